"""Other spellings of row pattern navigation that users bring: Spark's ``lag``/``lead``
written without ``OVER``, Snowflake's ``MATCH_SEQUENCE_NUMBER()``, Flink's
``MATCH_ROWTIME()``.

A Spark user reaches for ``lag(price)`` where the standard writes ``PREV(price)`` (as
Snowflake's own examples do): without a window of its own, ``lag(x, n)`` in DEFINE or
MEASURES reads the row ``n`` rows before the row being looked at, in the clause's ORDER BY
order within the partition, which is what ``PREV(x, n)`` reads; ``lead`` is ``NEXT``.
A default value stands in only where that row lies outside the partition, as Spark's
``lag(x, n, default)`` does (a NULL value of ``x`` stays NULL). ``lag(...) OVER (...)``
is a window function, left alone here. ``MATCH_SEQUENCE_NUMBER()`` (Snowflake) numbers
the rows of a match from 1: ``RUNNING count(*)``. ``MATCH_ROWTIME([column])`` (Flink)
is the ORDER BY column (or the column named) of the match's last row: ``LAST(column)``;
``MATCH_PROCTIME()`` is an error (not deterministic).
"""

from __future__ import annotations

from collections.abc import Callable

import sqlglot
from sqlglot import exp

from matchrec.errors import SEMANTICS_MARK, SemanticError, UnsupportedError

#: Spark's offset function -> (navigation it reads like, navigation of a negative offset)
_NAVIGATION: dict[type, tuple[str, str]] = {
    exp.Lag: ("PREV", "NEXT"),
    exp.Lead: ("NEXT", "PREV"),
}

ErrorAt = Callable[[type, str, exp.Expression, str | None], Exception]


def _sequence_number(node: exp.Anonymous, rowtime: str | None, error: ErrorAt) -> exp.Expression:
    if node.expressions:
        raise error(SemanticError, "MATCH_SEQUENCE_NUMBER() takes no arguments", node, None)
    return exp.Anonymous(this=f"RUNNING{SEMANTICS_MARK}count", expressions=[exp.Star()])


def _rowtime(node: exp.Anonymous, rowtime: str | None, error: ErrorAt) -> exp.Expression:
    args = list(node.expressions)
    if len(args) > 1:
        raise error(
            SemanticError,
            "MATCH_ROWTIME takes at most one argument: the time column",
            node,
            "MATCH_ROWTIME() or MATCH_ROWTIME(ts)",
        )
    if args:
        return exp.Anonymous(this="LAST", expressions=[args[0].copy()])
    if rowtime is None:
        raise error(
            SemanticError,
            "MATCH_ROWTIME() reads the ORDER BY column of the match's last row, and this "
            "MATCH_RECOGNIZE has no ORDER BY",
            node,
            "add ORDER BY ts, or write LAST(ts)",
        )
    return exp.Anonymous(this="LAST", expressions=[exp.column(rowtime, quoted=True)])


def _proctime(node: exp.Anonymous, rowtime: str | None, error: ErrorAt) -> exp.Expression:
    raise error(
        UnsupportedError,
        "MATCH_PROCTIME() (Flink's processing time of the match) is not deterministic: a "
        "batch or a restarted stream would give another answer",
        node,
        "use MATCH_ROWTIME() (the event time of the match's last row), or current_timestamp() "
        "in the SELECT around MATCH_RECOGNIZE",
    )


_Spelling = Callable[[exp.Anonymous, str | None, ErrorAt], exp.Expression]
#: a call other engines write (upper case) -> its standard form
_CALLS: dict[str, _Spelling] = {
    "MATCH_SEQUENCE_NUMBER": _sequence_number,
    "MATCH_ROWTIME": _rowtime,
    "MATCH_PROCTIME": _proctime,
}


def as_navigation(
    tree: exp.Expression,
    error: ErrorAt,
    rowtime: str | None,
    column_type: Callable[[str], str | None] = lambda name: None,
) -> exp.Expression:
    """``tree`` with each ``lag``/``lead`` call that has no ``OVER`` written as
    ``PREV``/``NEXT``, and the calls of ``_CALLS`` as the standard's forms; ``rowtime`` is
    the first ORDER BY column; ``column_type`` gives an input column's Spark type (by its
    lower-case name; None where not known). ``error(cls, message, node, hint)`` makes the
    error of a form the navigation functions cannot express (``IGNORE NULLS``)."""
    for node in list(tree.find_all(exp.Anonymous)):
        spelled = _CALLS.get(str(node.this).upper())
        if spelled is None:
            continue
        replacement = spelled(node, rowtime, error)
        if node is tree:
            return replacement
        node.replace(replacement)
    for node in list(tree.find_all(exp.Lag, exp.Lead)):
        parent = node.parent
        if isinstance(parent, exp.Window) and parent.this is node:
            continue
        name = type(node).__name__.lower()
        if isinstance(parent, exp.IgnoreNulls):
            raise error(
                UnsupportedError,
                f"{name}(...) IGNORE NULLS is not supported in MATCH_RECOGNIZE",
                node,
                f"{name}(x, n) reads the row n rows away, NULL or not; to skip NULLs use "
                "LAST(x) or FIRST(x) over the rows of a pattern variable",
            )
        offset = node.args.get("offset")
        if offset is not None and _literal_int(offset) is None:
            raise error(
                SemanticError,
                f"the offset of {name}(x, n) inside MATCH_RECOGNIZE must be an integer "
                f"literal: {name} reads as {_NAVIGATION[type(node)][0]}(x, n), the row n rows "
                f"{'before' if name == 'lag' else 'after'}",
                offset,
                f"write {name}(x, 2)",
            )
        replacement = _navigation(node, column_type)
        if node is tree:
            return replacement
        node.replace(replacement)
    return tree


def _navigation(
    node: exp.Lag | exp.Lead, column_type: Callable[[str], str | None]
) -> exp.Expression:
    forward, backward = _NAVIGATION[type(node)]
    offset = node.args.get("offset")
    steps = _literal_int(offset)
    function = forward
    if steps is not None and steps < 0:
        function, offset = backward, exp.Literal.number(-steps)
    value = node.this.copy()
    args = [value] if offset is None else [value, offset.copy()]
    reads: exp.Expression = exp.Anonymous(this=function, expressions=args)
    default = node.args.get("default")
    if default is None or isinstance(default, exp.Null):
        return reads
    # a value of the same row(s) that is never NULL: NULL only where no row is there
    probe = exp.Is(this=exp.Paren(this=node.this.copy()), expression=exp.Null())
    present_args = [probe] + ([] if offset is None else [offset.copy()])
    outside = exp.Is(
        this=exp.Anonymous(this=function, expressions=present_args), expression=exp.Null()
    )
    value_type = _value_type(node.this, column_type)
    if value_type is not None:  # Spark casts the default to the value's type
        default = exp.Cast(this=default.copy(), to=value_type)
    return exp.Paren(this=exp.If(this=outside, true=default.copy(), false=reads))


def _value_type(
    value: exp.Expression, column_type: Callable[[str], str | None]
) -> exp.DataType | None:
    """The Spark type of ``lag``'s value where it is an input column (``price``,
    ``A.price``) of a known type that SQL can name; None otherwise (the default then
    keeps its own type, and the result is the two's common type)."""
    if not isinstance(value, exp.Column) or not isinstance(value.this, exp.Identifier):
        return None
    name = column_type(value.name.lower())
    if name is None or " collate " in name.lower():
        return None
    try:
        return exp.DataType.build(name, dialect="spark")
    except (ValueError, sqlglot.errors.SqlglotError):
        return None


def _literal_int(node: exp.Expression | None) -> int | None:
    negative = isinstance(node, exp.Neg)
    inner = node.this if negative else node
    if not isinstance(inner, exp.Literal) or inner.is_string:
        return None
    try:
        value = int(inner.this)
    except ValueError:
        return None
    return -value if negative else value
