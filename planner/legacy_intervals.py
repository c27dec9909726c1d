"""Where the table function would compute an interval that Spark's legacy intervals make
another value.

Under ``spark.sql.legacy.interval.enabled=true`` Spark computes ``ts - ts``, ``d - d``,
an INTERVAL literal and ``k * INTERVAL '1' DAY`` as a CALENDAR INTERVAL (months, days,
microseconds), with its own text (``1477 hours 45 minutes 30 seconds``) and rules (a
DATE difference in months and days). The table function computes ANSI intervals in
Python, so it refuses such a part, at the part, rather than give another value, another
type or a Python error. ``matchrec.sql`` asks Spark for the types of DEFINE's glue
(``matchrec.integer_width.check_types_known`` refuses a calendar interval there); its
row-local parts and MEASURES are Spark's own.
"""

from __future__ import annotations

from collections.abc import Mapping

from sqlglot import exp

from matchrec import ast
from matchrec.errors import UnsupportedError

from .expressions import navigated_value
from .function_types import is_interval
from .measure_eval import TypeEnv, infer_type
from .plan import primary_labels
from .sqltext import node_pos, parse_expression
from .type_checks import user_text

#: the SQL setting that makes Spark's intervals legacy calendar intervals
LEGACY_INTERVALS_CONF = "spark.sql.legacy.interval.enabled"


def refuse_legacy_intervals(
    clause: ast.MatchRecognizeClause, columns: Mapping[str, exp.DataType], ansi: bool
) -> None:
    """Raise at the first part of DEFINE or MEASURES whose value is an interval (typed
    over input ``columns`` as Spark types it under ANSI intervals)."""
    labels = {label.name.lower() for label in primary_labels(clause.pattern)}
    labels |= {s.name.lower() for s in clause.subsets}
    env = TypeEnv(columns={k.lower(): v for k, v in columns.items()}, ansi=ansi)
    written = [d.expr for d in clause.defines] + [m.expr for m in clause.measures]
    for expr in sorted(written, key=lambda e: e.pos):
        tree = parse_expression(expr, clause.sql)
        part = _interval_part(tree, labels, env)
        if part is not None:
            raise UnsupportedError(
                "with spark.sql.legacy.interval.enabled=true Spark computes "
                f"{user_text(part, clause.sql, expr.pos, limit=60)} as a legacy CALENDAR "
                "INTERVAL, which the table function does not compute (it computes ANSI "
                "intervals)",
                sql=clause.sql,
                pos=node_pos(part, expr.pos, clause.sql),
                hint="set spark.sql.legacy.interval.enabled=false (Spark's default), "
                "compute in numbers (unix_timestamp(B.ts) - unix_timestamp(A.ts), "
                "datediff), or use matchrec.sql",
            )


def _interval_part(tree: exp.Expression, labels: set[str], env: TypeEnv) -> exp.Expression | None:
    """The outermost node of ``tree`` (first in reading order) whose value is an
    interval, or None."""
    for node in tree.walk():
        if isinstance(node, exp.Interval):
            return node
        if not isinstance(node, (exp.Binary, exp.Func, exp.Neg, exp.Paren)):
            continue
        if is_interval(infer_type(_typable(node, labels), env)):
            return node
    return None


def _typable(node: exp.Expression, labels: set[str]) -> exp.Expression:
    """``node`` as matchrec's typer reads it: a pattern variable's column as the column
    (``B.ts`` as ``ts``), a navigation as its argument (``FIRST(A.ts)`` as ``ts``)."""

    def plain(n: exp.Expression) -> exp.Expression:
        if isinstance(n, exp.Column) and n.table and n.table.lower() in labels:
            return exp.column(n.name)
        return n

    return navigated_value(node).transform(plain)
