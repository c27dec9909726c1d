"""The planner's part of row pattern recognition in a window (SQL:2016 R020).

A window specification with a row pattern (``WINDOW w AS (... PATTERN ... DEFINE ...)``)
is read by the grammar as a MATCH_RECOGNIZE body with a frame in place of the rows per
match. This module checks what the standard (and Trino) allow there and nowhere else,
turns the frame into the matcher's :class:`~matchrec.window_rows.WindowSearch`, and
turns a window function called over the window (``first_value(x) OVER w``) into the
measure that computes it over the match's rows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from sqlglot import exp

from matchrec import ast
from matchrec.errors import SemanticError
from matchrec.window_rows import WindowSearch

from .sqltext import call_name, parse_expression


def check_window_shape(clause: ast.MatchRecognizeClause, nodes: list[ast.PatternNode]) -> None:
    """Refuse a frame outside a window, a window without one, and what a window's row
    pattern may not use: anchors, MATCH_NUMBER(), WITHIN."""
    sql = clause.sql
    if not clause.in_window:
        if clause.frame is not None:
            raise SemanticError(
                "ROWS BETWEEN belongs to row pattern recognition in a window, not to "
                "MATCH_RECOGNIZE",
                sql=sql,
                pos=clause.frame.pos,
                hint="write ONE ROW PER MATCH or ALL ROWS PER MATCH here, or move the "
                "pattern into WINDOW w AS (...) and call its measures as m OVER w",
            )
        return
    if clause.frame is None:
        raise SemanticError(
            "row pattern recognition in a window needs the frame ROWS BETWEEN CURRENT ROW "
            "AND ... before AFTER MATCH SKIP and PATTERN",
            sql=sql,
            pos=clause.pattern_pos,
            hint="add e.g. ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING",
        )
    if not clause.defines:
        raise SemanticError(
            "Pattern recognition requires DEFINE clause",
            sql=sql,
            pos=clause.pattern_pos,
            hint="define at least one variable of the pattern, e.g. DEFINE A AS true",
        )
    anchor = next((n for n in nodes if isinstance(n, ast.Anchor)), None)
    if anchor is not None:
        raise SemanticError(
            "Anchor pattern syntax is not allowed in window",
            sql=sql,
            pos=anchor.pos,
            hint="the frame starts at the current row: drop ^ and $",
        )
    if clause.within is not None:
        raise SemanticError(
            "WITHIN is not supported in a window's row pattern",
            sql=sql,
            pos=clause.within.pos,
            hint="bound the frame instead: ROWS BETWEEN CURRENT ROW AND n FOLLOWING",
        )
    texts = [d.expr for d in clause.defines] + [m.expr for m in clause.measures]
    for expr in texts:
        for node in parse_expression(expr, sql).walk():
            if isinstance(node, exp.Anonymous) and call_name(node)[1] == "MATCH_NUMBER":
                raise SemanticError(
                    "MATCH_NUMBER function is not supported in window",
                    sql=sql,
                    pos=expr.pos + (node.meta.get("start", 0) if node.meta else 0),
                    hint="a window gives each row its own match; number the rows with "
                    "row_number() OVER (...) instead",
                )


#: calls that read the match, not the current row
_MATCH_FUNCTIONS = {"PREV", "NEXT", "FIRST", "LAST", "CLASSIFIER", "MATCH_NUMBER"}

#: window functions that read the frame as FIRST/LAST read the match (name -> navigation)
_NAVIGATIONS = {exp.FirstValue: "FIRST", exp.LastValue: "LAST"}


def frame_function_measure(
    measure: ast.Measure, sql: str, is_aggregate: Callable[[exp.Expression], bool]
) -> ast.Measure:
    """The measure that computes a window function called over a window with a row
    pattern: an aggregate is itself (over the match's rows; over no row where there is no
    match), ``first_value``/``last_value``/``nth_value`` become ``FIRST``/``LAST``/
    ``FIRST(x, n - 1)``. Anything else is not a window function Spark has: an error."""
    expr = measure.expr
    tree = parse_expression(expr, sql)
    if isinstance(tree, exp.IgnoreNulls) or isinstance(tree, exp.RespectNulls):
        raise SemanticError(
            "IGNORE NULLS / RESPECT NULLS is not supported over a window with a row pattern",
            sql=sql,
            pos=expr.pos,
            hint="select the rows with a pattern variable instead, e.g. LAST(A.x) in MEASURES",
        )
    if type(tree) in _NAVIGATIONS:
        name = expr.text[: expr.text.index("(")]
        # same length, so that positions inside the argument stay where they are
        text = _NAVIGATIONS[type(tree)].ljust(len(name)) + expr.text[len(name) :]
        return replace(measure, expr=ast.SqlExpr(text, expr.pos))
    if isinstance(tree, exp.NthValue):
        offset = tree.args.get("offset")
        if not (isinstance(offset, exp.Literal) and offset.is_int and int(offset.this) >= 1):
            raise SemanticError(
                "nth_value over a window with a row pattern takes a whole number >= 1",
                sql=sql,
                pos=expr.pos,
                hint="write e.g. nth_value(x, 2)",
            )
        inner = tree.this.sql(dialect="spark")
        text = f"FIRST({inner}, {int(offset.this) - 1})"
        return replace(measure, expr=ast.SqlExpr(text, expr.pos))
    if not is_aggregate(tree):
        raise SemanticError(
            f"{expr.text} is not a window function: over a window with a row pattern, call "
            "its measures (m OVER w), aggregates, first_value, last_value, nth_value or a "
            "ranking function",
            sql=sql,
            pos=expr.pos,
            hint="define the expression as a measure of the window and call it as m OVER w",
        )
    return measure


def window_search(
    clause: ast.MatchRecognizeClause, frame_column: Callable[[ast.SqlExpr], str]
) -> WindowSearch:
    """The matcher's bounds for the window's frame; ``frame_column(expr)`` is the
    row-local column Spark computes for an ``n FOLLOWING`` that is not a literal."""
    frame = clause.frame
    assert frame is not None
    seek = not clause.initial
    if frame.end == "unbounded":
        return WindowSearch(None, seek=seek)
    if frame.end == "current":
        return WindowSearch(0, seek=seek)
    offset = frame.offset
    assert offset is not None
    text = offset.text.strip()
    if text.isascii() and text.isdigit():
        return WindowSearch(int(text), seek=seek)
    for node in parse_expression(offset, clause.sql).walk():
        named = isinstance(node, exp.Anonymous) and call_name(node)[1] in _MATCH_FUNCTIONS
        if named or isinstance(node, exp.AggFunc):
            raise SemanticError(
                "the frame's end is an expression of the current row: no navigation, "
                "pattern function or aggregate",
                sql=clause.sql,
                pos=offset.pos,
                hint="compute it as a column of the input, e.g. in a subquery",
            )
    return WindowSearch(
        None, frame_column(offset), seek=seek, text=text, pos=offset.pos, sql=clause.sql
    )
