"""Spark's implicit cast of a value computed by DEFINE's glue to the type Spark gives it.

Spark brings the branches of a conditional (CASE, ``if``, ``coalesce``, ``nvl2``,
``greatest``, ...) and the elements of an array to one common type, so
``coalesce(if(A.x > B.x, A.p * 1.5D, NULL), 0)`` is the DOUBLE 0.0 and
``coalesce(CAST(A.n AS DECIMAL(5, 2)), 0)`` the DECIMAL 0.00. The glue's Python values
keep the type of the branch taken, which compares equal but is written differently
(``CAST(... AS STRING)``, ``concat``, ``format_string``) and hashes differently. The
runtime asks Spark for the expression's type (an :class:`~matchrec.integer_width.IntegerWidth`
probe) and the glue casts each result to it, as Spark's own implicit CAST would.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from functools import lru_cache
from typing import Any

from sqlglot import exp

from matchrec.errors import MatchRuntimeError, SemanticError, UnsupportedError
from matchrec.integer_width import IntegerWidth

T = exp.DataType.Type

#: Spark's TIMESTAMP (sqlglot reads it as TIMESTAMPTZ) and TIMESTAMP_NTZ -> zone-aware
_STAMPS = {T.TIMESTAMP: True, T.TIMESTAMPTZ: True, T.TIMESTAMPNTZ: False}

#: target kinds the glue converts to -> the Python types already of that kind
_ALREADY: dict[Any, tuple[type, ...]] = {
    **dict.fromkeys((T.TINYINT, T.SMALLINT, T.INT, T.BIGINT), (int,)),
    **dict.fromkeys((T.FLOAT, T.DOUBLE), (float,)),
    T.DECIMAL: (Decimal,),
    T.DATE: (date,),
    T.BOOLEAN: (bool,),
    **dict.fromkeys((T.VARCHAR, T.TEXT, T.CHAR), (str,)),
    **dict.fromkeys(_STAMPS, ()),
    T.ARRAY: (),
}

#: nodes whose operands Spark brings to one common type that is also the result's
COERCING: tuple[type[exp.Expression], ...] = (
    exp.If,
    exp.Case,
    exp.Coalesce,
    exp.Nvl2,
    exp.Greatest,
    exp.Least,
    exp.Array,
    exp.ArrayAppend,
    exp.ArrayPrepend,
    exp.Concat,
)


def implicit_cast(
    type_name: str, *, ansi: bool, sql: str, pos: int | None
) -> Callable[[Any], Any] | None:
    """A function casting a glue value to Spark's type ``type_name`` (its simpleString)
    as Spark's implicit CAST does (under ANSI mode a value that does not convert is an
    error positioned at ``pos``); None where the glue keeps values as they are."""
    target = _parsed(type_name)
    if target is None or not _converts(target):
        return None
    from .measure_eval import cast_evaluator  # measure_eval builds on the glue's modules

    node = exp.Cast(this=exp.Placeholder(), to=target)
    cast = cast_evaluator(node, lambda _: _same, ansi, sql, pos or 0)
    if cast is None:
        return None
    already = _ALREADY[target.this]
    if target.this in _STAMPS:
        aware = _STAMPS[target.this]

        def to_stamp(v: Any) -> Any:
            fits = isinstance(v, datetime) and (v.tzinfo is not None) == aware
            return v if v is None or fits else cast(v)

        return to_stamp

    def convert(v: Any) -> Any:
        if v is None or (type(v) in already):
            return v
        return cast(v)

    return convert


def _same(v: Any) -> Any:
    return v


def _converts(t: exp.DataType) -> bool:
    """Whether the glue casts to ``t``: numbers, strings, dates, timestamps and arrays of
    them."""
    if t.this == T.ARRAY:
        return bool(t.expressions) and _converts(t.expressions[0])
    return t.this in _ALREADY


@lru_cache(maxsize=256)
def _parsed(type_name: str) -> exp.DataType | None:
    try:
        return exp.DataType.build(type_name, dialect="spark")
    except Exception:  # a type sqlglot does not read (a collated string, VARIANT)
        return None


@dataclass(eq=False)
class StringCasts(IntegerWidth):
    """Without ANSI mode, the cast of a comparison's operands where a string meets a
    value of another type in DEFINE's glue (``dt < A.s`` compares DATEs): set by the
    runtime from ``operands``, the width of each operand (typed before this one), and
    ``common``, the comparison's own (Spark's common type of the operands). Spark casts
    the string to the other operand's type (``i = s`` INTs, a DECIMAL beside a string
    both DOUBLEs); IN (``listed``) casts every value to the common type, a STRING. A
    string that does not convert is NULL. Its own probe is one operand's, any type."""

    operands: Sequence[IntegerWidth] = ()
    listed: bool = False
    common: IntegerWidth | None = None

    def set_type(self, type_name: str) -> None:
        self.type_name = type_name
        self.convert = self._cast()

    def fit(self, value: Any) -> Any:
        return value if self.convert is None or value is None else self.convert(value)

    def _cast(self) -> Callable[[Any], Any] | None:
        types = [w.type_name for w in self.operands]
        if not any(map(_is_string, types)):
            return None
        others = [t for t in types if t is not None and t != "void" and not _is_string(t)]
        if self.listed:
            target = self.common.type_name if self.common is not None else None
        else:
            target = others[0] if others else None
        if target is None or target == "binary" or (_is_string(target) and not self.listed):
            return None  # strings alone (and NULLs): compared as strings; BINARY as bytes
        if target.startswith("decimal"):
            target = "double"
        cast = implicit_cast(target, ansi=False, sql=self.sql, pos=self.pos)
        if cast is None:
            raise UnsupportedError(
                f"{self.text} compares a string with a {target.upper()} from several rows, "
                "which matchrec's evaluator of several rows does not convert",
                sql=self.sql,
                pos=self.pos,
                hint=f"convert explicitly, e.g. try_cast(... AS {target.upper()}), or "
                "compare values of one type",
            )
        return cast


def _is_string(type_name: str | None) -> bool:
    return type_name is not None and type_name.startswith("string")


def is_string_literal(node: exp.Expression) -> bool:
    """Whether ``node`` is a string literal (``'2024-03-01'``)."""
    return isinstance(node, exp.Literal) and node.is_string


def literal_cast(
    type_name: str,
    *,
    literals: list[tuple[str, int]],
    ansi: bool,
    sql: str,
    pos: int,
) -> Callable[[Any], Any] | None:
    """The cast of a comparison's operands to Spark's type of it, ``type_name``, where
    string ``literals`` (each with its position) are compared with values of another
    type: Spark casts the literal to that type (``max(d) > '2024-03-01'`` compares
    DATEs, ``sum(i) = '4'`` BIGINTs), and a DECIMAL beside a string both to DOUBLE. Each
    literal is cast here, when the runtime sets the type before the query runs, so one
    that does not convert is an error at it then (under ANSI mode; else NULL)."""
    if type_name.startswith("decimal"):
        type_name = "double"
    if type_name.startswith("string") or type_name == "void":
        return None  # the other operands are strings too, or NULLs
    cast = implicit_cast(type_name, ansi=ansi, sql=sql, pos=pos)
    if cast is None:
        raise UnsupportedError(
            f"this compares a string literal with values of type {type_name.upper()} from "
            "several rows, which matchrec's evaluator of several rows does not convert",
            sql=sql,
            pos=pos,
            hint=f"write the literal as a {type_name.upper()}, e.g. CAST('...' AS "
            f"{type_name.upper()})",
        )
    for text, where in literals:
        try:
            implicit_cast(type_name, ansi=ansi, sql=sql, pos=where)(text)  # type: ignore[misc]
        except MatchRuntimeError as err:
            raise SemanticError(
                f"{err.message}: Spark compares the string literal as a "
                f"{type_name.upper()} here, the type of what it is compared with",
                sql=sql,
                pos=where,
                hint=f"write a {type_name.upper()} value Spark reads, or compare strings",
            ) from None
    return cast
