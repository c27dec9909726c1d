"""Python UDF calls of MEASURES that Spark must not make on rows outside any match.

With ALL ROWS PER MATCH WITH UNMATCHED ROWS (and in a window with a row pattern), a row
in no match has NULL measures: ``matchrec.sql`` computes each as ``CASE WHEN matched
THEN ... END`` over the matcher's rows, where a row in no match reads NULL for every
value of the match. Spark computes a Python UDF's calls over every row of the
projection, whatever a CASE around them says (PySpark documents it: no short-circuit
for UDFs), so ``py_twice(FIRST(B.price))`` called a UDF that cannot take None
(``lambda x: x * 2``) with None on those rows and failed the query, where the standard
reads no value there (the table function gives NULL). Likewise a late row of a stream
(WITH LATE ROWS), whose measures are NULL.

:func:`lift` takes each call of a row-at-a-time Python UDF of the session out of the
measure's tree, innermost first, into a :class:`GuardedCall` for a column of its own
that the runtime computes with the UDF's function called on the rows that have
measures only (NULL elsewhere); the measure reads that column. A call with named
arguments stays where it is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlglot import exp

from .sqltext import MatchRecognizeDialect


@dataclass(frozen=True)
class GuardedCall:
    column: str  # the column the measure reads the call's value from
    function: str  # the UDF's name as the session knows it
    arguments: tuple[str, ...]  # Spark SQL of each argument (over atom columns)


def lift(
    tree: exp.Expression,
    is_python_udf: Callable[[str], bool],
    name_column: Callable[[], str],
    calls: list[GuardedCall],
) -> exp.Expression:
    """``tree`` with each call of a Python UDF (``is_python_udf`` of its name) replaced
    by a column (named by ``name_column``), innermost calls first, each appended to
    ``calls``; a subquery is left as it is."""

    def visit(node: exp.Expression) -> exp.Expression:
        if isinstance(node, (exp.Subquery, exp.Exists, exp.Lambda)):
            return node
        for key, value in list(node.args.items()):
            if isinstance(value, exp.Expression):
                node.set(key, visit(value))
            elif isinstance(value, list):
                node.set(key, [visit(v) if isinstance(v, exp.Expression) else v for v in value])
        if not isinstance(node, exp.Anonymous) or not is_python_udf(node.name):
            return node
        if any(isinstance(a, (exp.Kwarg, exp.PropertyEQ)) for a in node.expressions):
            return node
        column = name_column()
        arguments = tuple(a.sql(dialect=MatchRecognizeDialect) for a in node.expressions)
        calls.append(GuardedCall(column, node.name, arguments))
        return exp.column(column)

    return visit(tree)
