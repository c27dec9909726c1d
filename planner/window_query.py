"""The planner's door for a query with row pattern recognition in windows.

:func:`read_windows` finds every SELECT that calls measures or window functions over a
window with a row pattern (:mod:`matchrec.grammar.window_scan`), parses each window
specification as a clause body (positions stay offsets into the query), and decides what
each call becomes: a measure's column, a window function's column (the function added to
the clause as a measure over the match's rows), or a ranking function over the window's
PARTITION BY and ORDER BY (it ignores the frame). The runtime then runs each clause over
the SELECT's FROM and WHERE and rewrites the SELECT to read the columns.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

import sqlglot
from matchrec.grammar import parse_clause
from matchrec.grammar.window_scan import (
    RANKING,
    WindowCall,
    WindowSelect,
    WindowSpec,
    find_pattern_windows,
)

from matchrec import ast
from matchrec.errors import SemanticError

from .expressions import SPARK_AGGREGATE_CALLS, is_aggregate
from .plan import refuse_twice_named

__all__ = ["WindowQuery", "read_windows", "window_order_text"]


@dataclass(frozen=True)
class WindowQuery:
    """One SELECT with windows with a row pattern: ``clauses[k]`` is ``select.specs[k]``
    parsed (each measure named ``__mrw<k>_<j>``); ``targets[i]`` says what
    ``select.calls[i]`` becomes: (clause index, measure name), the name empty for a
    ranking function."""

    select: WindowSelect
    clauses: tuple[ast.MatchRecognizeClause, ...]
    targets: tuple[tuple[int, str], ...]


def read_windows(query: str) -> list[WindowQuery]:
    """Every SELECT of ``query`` with windows with a row pattern, parsed."""
    found = []
    for select in find_pattern_windows(query):
        _refuse_in_aggregates(select.calls, query)
        clauses = []
        targets: list[tuple[int, str]] = [(0, "")] * len(select.calls)
        for k, spec in enumerate(select.specs):
            clause = _parse_spec(query, spec)
            refuse_twice_named(clause.measures, query)
            clause, called = _with_calls(clause, k, spec.key, select.calls, query)
            for i, target in called.items():
                targets[i] = target
            clauses.append(clause)
        found.append(WindowQuery(select, tuple(clauses), tuple(targets)))
    return found


def _refuse_in_aggregates(calls: tuple[WindowCall, ...], query: str) -> None:
    """A measure or window function over a row pattern window is no aggregate's argument
    (Trino's rule, and Spark's for window functions)."""
    for call in calls:
        for name, _pos in call.enclosing:
            if _is_aggregate_name(name):
                raise SemanticError(
                    f"Cannot nest window functions or row pattern measures inside "
                    f"aggregation '{name}'",
                    sql=query,
                    pos=call.start,
                    hint=f"compute the measure in a subquery and call {name} in the query "
                    "around it",
                )


def _is_aggregate_name(name: str) -> bool:
    """Whether Spark's function ``name`` is an aggregate."""
    if name.upper() in SPARK_AGGREGATE_CALLS or name.upper() in ("FIRST", "LAST"):
        return True
    try:
        node = sqlglot.parse_one(f"{name}(x)", read="spark")
    except sqlglot.errors.ParseError:
        return False
    return is_aggregate(node)


def _with_calls(
    clause: ast.MatchRecognizeClause,
    k: int,
    key: str,
    calls: tuple[WindowCall, ...],
    query: str,
) -> tuple[ast.MatchRecognizeClause, dict[int, tuple[int, str]]]:
    """Window ``k``'s clause with its measures renamed ``__mrw<k>_<j>`` (unique beside the
    input's columns) and a measure added per window function called over it, and what
    each of its calls (index into ``calls``) becomes."""
    names = {m.alias.lower(): j for j, m in enumerate(clause.measures)}
    measures = [replace(m, alias=f"__mrw{k}_{j}") for j, m in enumerate(clause.measures)]
    functions: dict[str, str] = {}  # a window function's text -> its measure
    targets: dict[int, tuple[int, str]] = {}
    for i, call in enumerate(calls):
        if call.spec != key:
            continue
        if call.measure is not None:
            j = names.get(call.measure.lower())
            if j is None:
                raise SemanticError(
                    f"{call.measure} is not a measure of the window it is called over",
                    sql=query,
                    pos=call.measure_pos,
                    hint="its measures: "
                    + (", ".join(m.alias for m in clause.measures) or "(none)"),
                )
            targets[i] = (k, measures[j].alias)
        elif call.function_name in RANKING:
            targets[i] = (k, "")
        else:
            text = call.function or ""
            if text not in functions:
                functions[text] = f"__mrw{k}_f{len(functions)}"
                expr = ast.SqlExpr(text, call.function_pos)
                measures.append(ast.Measure(expr, functions[text], call.function_pos))
            targets[i] = (k, functions[text])
    clause = replace(
        clause,
        measures=tuple(measures),
        in_window=True,
        frame_functions=frozenset(functions.values()),
    )
    return clause, targets


def _parse_spec(query: str, spec: WindowSpec) -> ast.MatchRecognizeClause:
    """The clause of a window specification; ``OVER (w MEASURES ...)`` takes PARTITION BY
    and ORDER BY from the named window ``w``."""
    start = spec.body_start + spec.body_skip
    clause = parse_clause(query[start : spec.body_end], base=start, sql=query)
    if not spec.base:
        return clause
    if clause.partition_by or clause.order_by:
        what = clause.partition_by[0] if clause.partition_by else clause.order_by[0].expr
        raise SemanticError(
            "a window that extends a named window cannot have its own PARTITION BY or ORDER BY",
            sql=query,
            pos=what.pos,
            hint="put them in the named window, or drop the name",
        )
    # each named window holds PARTITION BY and ORDER BY only: parse it as a body with a
    # pattern after it (its positions stay those of the query); the nearest one that has
    # them gives each
    partition_by, order_by = (), ()
    for low, high in spec.base:
        tail = " PATTERN (A)"
        base = parse_clause(query[low:high] + tail, base=low, sql=query[:high] + tail)
        partition_by = partition_by or base.partition_by
        order_by = order_by or base.order_by
    return replace(clause, partition_by=partition_by, order_by=order_by)


def window_order_text(clause: ast.MatchRecognizeClause) -> str:
    """``PARTITION BY .. ORDER BY ..`` of a window with a row pattern, for a ranking
    function over it (which ignores the frame)."""
    parts = []
    if clause.partition_by:
        parts.append("PARTITION BY " + ", ".join(e.text for e in clause.partition_by))
    if clause.order_by:
        keys = []
        for key in clause.order_by:
            text = key.expr.text + (" DESC" if key.descending else " ASC")
            if key.nulls_first is not None:
                text += " NULLS FIRST" if key.nulls_first else " NULLS LAST"
            keys.append(text)
        parts.append("ORDER BY " + ", ".join(keys))
    return " ".join(parts)


_IDENTIFIER = re.compile(r"`(?:[^`]|``)+`|[A-Za-z_][A-Za-z0-9_]*")
_STRING = re.compile(r"'(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.)*\"")
#: words of a FROM clause that never name a relation
_NOT_NAMES = frozenset(
    "select from where join on using values as inner left right full outer cross natural "
    "semi anti lateral and or not null true false is in between like case when then else "
    "end cast table group by order limit union all distinct".split()
)


def relation_name_candidates(from_text: str) -> list[str]:
    """The words of a FROM clause's text (strings skipped, keywords dropped, back-quoted
    names unquoted) that may name one of its relations: the runtime asks Spark which do."""
    names = []
    for word in _IDENTIFIER.findall(_STRING.sub(" ", from_text)):
        name = word[1:-1].replace("``", "`") if word.startswith("`") else word
        if name.lower() not in _NOT_NAMES:
            names.append(name)
    return names
