"""Spark's fixed-width integer (and DECIMAL) results for arithmetic that DEFINE's glue
computes in Python.

Spark adds, subtracts, multiplies and negates TINYINT, SMALLINT, INT and BIGINT values
in their own width: under ``spark.sql.ansi.enabled`` a result out of range fails with
ARITHMETIC_OVERFLOW, without it the result wraps around (two's complement). Python's
integers have no width, so each such operator of the glue carries an
:class:`IntegerWidth`: the planner records what Spark SQL has the operator's type, the
runtime asks Spark for that type before the query runs (analysis only) and sets
``bits``; the matcher then fits every result to it. A DECIMAL result is rounded half
up to Spark's scale of it, and one beyond its precision is NULL (an error under ANSI
mode), as Spark's decimal arithmetic does. The operands of a comparison carry one too:
a string compared under a collation (``STRING COLLATE UTF8_LCASE``) is folded as that
collation compares it. Nothing here imports Spark.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from typing import Any

from matchrec.errors import MatchRuntimeError, UnsupportedError
from matchrec.sql_values import WIDE_DECIMALS, to_float32, unsigned_zero

#: Spark's integral type names -> their width in bits
WIDTHS = {"tinyint": 8, "smallint": 16, "int": 32, "bigint": 64}


@dataclass(eq=False)
class IntegerWidth:
    """The width of one arithmetic operator's result (``bits`` None: not an integer
    type, or not known) and what Spark does when a result does not fit."""

    probe: str  # Spark SQL whose type is the operator's result type
    text: str  # the operator's expression as the user wrote it, for messages
    sql: str
    pos: int
    ansi: bool
    bits: int | None = None
    #: ``try_add``/``try_subtract``/``try_multiply``: NULL when the result does not fit
    null_on_overflow: bool = False
    #: ``+``, ``-`` or ``*`` of two operands: Spark's overflow of a TINYINT or SMALLINT
    #: result is BINARY_ARITHMETIC_OVERFLOW (of an INT or BIGINT: ARITHMETIC_OVERFLOW)
    binary_operator: bool = False

    #: a DECIMAL result's (precision, scale), where Spark's type of it is one
    decimal: tuple[int, int] | None = None

    #: Spark's type of the result is FLOAT: a result (computed in double) is rounded to
    #: it, as Spark computes in single precision
    single: bool = False

    #: a string comparison's operands as their collation compares them (None: by bytes)
    fold: Callable[[str], str] | None = None

    #: Spark's type of the result as it was set (``hash`` reads its arguments' types)
    type_name: str | None = None

    #: the call (as written) that cannot run without this type (``hash(...)`` reads
    #: each argument's, a shift its width); None: the glue does without it
    required: str | None = None

    #: given the type's ``simpleString``, why the call cannot compute a value of it
    #: (``to_json`` of a map with BINARY keys), or None: checked before the query runs
    refuses: Callable[[str], str | None] | None = None

    #: given Spark's type of the result, the cast of a value to it where Spark brings
    #: operands of other types to it (``coalesce(x, 0)`` of a DOUBLE ``x``); None: kept
    implicit: Callable[[str], Callable[[Any], Any] | None] | None = None
    convert: Callable[[Any], Any] | None = None

    def set_type(self, type_name: str) -> None:
        """Take Spark's type of the result (its ``simpleString``)."""
        self.type_name = type_name
        self.bits = WIDTHS.get(type_name)
        self.single = type_name == "float"
        self.convert = self.implicit(type_name) if self.implicit is not None else None
        collated = _COLLATED.fullmatch(type_name)
        # (a type a call refuses or takes is no comparison's: its collation folds nothing)
        comparison = collated and self.refuses is None and self.required is None
        self.fold = self._folding(collated.group(1)) if comparison else None
        found = _DECIMAL.fullmatch(type_name.replace(" ", ""))
        self.decimal = (int(found.group(1)), int(found.group(2))) if found else None

    def _folding(self, collation: str) -> Callable[[str], str] | None:
        """How strings compare under ``collation``; an error for one the glue lacks."""
        name = collation.upper()
        if name in _FOLDS:
            return _FOLDS[name]
        raise UnsupportedError(
            f"this compares strings of two rows under collation {collation}, which "
            "matchrec's evaluator of several rows does not have (it has UTF8_BINARY and "
            "UTF8_LCASE)",
            sql=self.sql,
            pos=self.pos,
            hint="compare a per-row key instead, e.g. lower(x) in a subquery, or "
            "x COLLATE UTF8_LCASE",
        )

    def fits(self, value: int) -> bool:
        half = 1 << (self.bits - 1) if self.bits else 0
        return not self.bits or -half <= value < half

    def fit(self, value: Any) -> Any:
        """``value`` as Spark's result: unchanged if it fits (or is no integer), else
        wrapped around, or under ANSI mode an error positioned at the operator."""
        if self.convert is not None and value is not None:
            value = self.convert(value)
        if self.fold is not None and isinstance(value, str):
            return self.fold(value)
        if self.decimal is not None and isinstance(value, Decimal):
            return self._fit_decimal(value)
        if self.single and isinstance(value, (int, float)) and not isinstance(value, bool):
            return to_float32(value)
        if self.bits is None or type(value) is not int or self.fits(value):
            return value
        if self.null_on_overflow:
            return None
        if self.ansi:
            raise overflow_error(
                f"{self.text} is {value}",
                self.bits,
                self.sql,
                self.pos,
                "CAST an operand to a wider type, e.g. CAST(x AS BIGINT) or "
                "CAST(x AS DECIMAL(38, 0)); with spark.sql.ansi.enabled=false the "
                "result wraps around as in Spark",
                binary=self.binary_operator,
            )
        return wrapped(value, self.bits)

    def operand(self, value: Any) -> Any:
        """An operand of the operator as Spark reads it: an integer taken into a FLOAT
        result is first cast to FLOAT (``16777217 + CAST(1 AS FLOAT)`` without ANSI
        mode is 16777216.0 in Spark)."""
        if self.single and type(value) is int:
            return to_float32(value)
        return value

    def _fit_decimal(self, value: Decimal) -> Decimal | None:
        """``value`` rounded half up to Spark's scale of the result; one that does not
        fit its precision is NULL, or under ANSI mode an error at the operator."""
        precision, scale = self.decimal or (38, 0)
        rounded = unsigned_zero(value.quantize(Decimal(1).scaleb(-scale), context=WIDE_DECIMALS))
        if rounded.copy_abs() < Decimal(10) ** (precision - scale):
            return rounded
        if self.ansi and not self.null_on_overflow:
            raise MatchRuntimeError(
                f"{self.text} is {value}, which DECIMAL({precision}, {scale}) cannot hold "
                "(Spark raises NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION under "
                "spark.sql.ansi.enabled)",
                sql=self.sql,
                pos=self.pos,
                hint="CAST the operands to a DECIMAL with fewer fraction digits, or use "
                "try_add/try_multiply/try_divide for NULL instead",
            )
        return None


#: Spark's simpleString of a collated string type
_COLLATED = re.compile(r"string collate (\w+)", re.IGNORECASE)


def _lower(value: str) -> str:
    return value.lower()


def _rtrim(value: str) -> str:
    return value.rstrip(" ")


def _rtrim_lower(value: str) -> str:
    return value.rstrip(" ").lower()


#: the collations the glue compares: a string's folding, equal and ordered as Spark's
#: (UTF8_LCASE compares lowercase strings; _RTRIM ignores trailing spaces)
_FOLDS: dict[str, Callable[[str], str] | None] = {
    "UTF8_BINARY": None,
    "UTF8_BINARY_RTRIM": _rtrim,
    "UTF8_LCASE": _lower,
    "UTF8_LCASE_RTRIM": _rtrim_lower,
}


#: Spark's name of its legacy interval type (``spark.sql.legacy.interval.enabled``)
CALENDAR_INTERVAL = "interval"


def check_types_known(widths: list[IntegerWidth]) -> None:
    """Raise, before the query runs, for the first type a call cannot do without that
    could not be told (the runtime set the others from Spark's or its own typing)."""
    for width in widths:
        if width.type_name == CALENDAR_INTERVAL:
            raise UnsupportedError(
                f"Spark computes {width.text} as a CALENDAR INTERVAL (make_interval's "
                "type, and every interval's under spark.sql.legacy.interval.enabled=true), "
                "which DEFINE's glue does not compute over several rows (it computes ANSI "
                "intervals)",
                sql=width.sql,
                pos=width.pos,
                hint="use ANSI intervals: make_dt_interval(days, hours, mins, secs), "
                "make_ym_interval(years, months) or INTERVAL literals, with "
                "spark.sql.legacy.interval.enabled=false (Spark's default); or compute in "
                "numbers (unix_timestamp(B.ts) - unix_timestamp(A.ts), datediff)",
            )
        if width.required is not None and width.type_name is None:
            raise UnsupportedError(
                f"cannot tell the Spark type of {width.text}, which {width.required} "
                "needs to compute its value over several rows of the match",
                sql=width.sql,
                pos=width.pos,
                hint="CAST it to its Spark type, e.g. CAST(... AS BIGINT) or CAST(... AS "
                "ARRAY<INT>)",
            )
        reason = width.refuses(width.type_name) if width.refuses and width.type_name else None
        if reason:
            where = f", in {width.required}" if width.required else ""
            raise UnsupportedError(
                f"{reason} ({width.text} is {width.type_name}{where})",
                sql=width.sql,
                pos=width.pos,
            )


def collation_fold(collation: str) -> Callable[[str], str] | None:
    """How strings of ``collation`` compare (None: by their bytes, or a collation the
    glue does not have)."""
    return _FOLDS.get(collation.upper())


#: Spark's simpleString of a DECIMAL type
_DECIMAL = re.compile(r"decimal\((\d+),(\d+)\)")


def wrapped(value: int, bits: int) -> int:
    """``value`` wrapped around into ``bits`` bits (two's complement, as Java's)."""
    half = 1 << (bits - 1)
    return (value + half) % (2 * half) - half


def overflow_error(
    what: str, bits: int, sql: str, pos: int | None, hint: str, binary: bool = False
) -> MatchRuntimeError:
    """The error of a result out of Spark's integer type of ``bits`` bits under ANSI mode
    (``what``: the expression and its value, as the user wrote it; ``binary``: of a
    ``+``, ``-`` or ``*``, whose TINYINT or SMALLINT overflow Spark names apart)."""
    half = 1 << (bits - 1)
    type_name = next(k for k, v in WIDTHS.items() if v == bits).upper()
    condition = "BINARY_ARITHMETIC_OVERFLOW" if binary and bits < 32 else "ARITHMETIC_OVERFLOW"
    return MatchRuntimeError(
        f"integer overflow: {what}, outside {type_name} [{-half}, {half - 1}] (Spark "
        f"raises {condition} under spark.sql.ansi.enabled)",
        sql=sql,
        pos=pos,
        hint=hint,
    )


_LONG = 1 << 63


@dataclass(eq=False)
class LongSum:
    """Spark's ``sum`` of TINYINT ... BIGINT values: a BIGINT, each row added with a
    check (under ANSI mode a running total out of range at any row fails with
    ARITHMETIC_OVERFLOW, even if later rows bring it back; otherwise it wraps around).
    Python adds exactly; this fits its totals. Values that are no integers (doubles,
    decimals, intervals) pass unchanged."""

    text: str  # the aggregate as the user wrote it, for messages
    sql: str
    pos: int | None
    ansi: bool

    def fit(self, total: Any) -> Any:
        """A running total (the sum of the rows so far) as Spark's BIGINT, or a DAY-TIME
        interval's checked."""
        if type(total) is timedelta:
            return self.interval(total)
        if type(total) is not int or -_LONG <= total < _LONG:
            return total
        if self.ansi:
            raise overflow_error(
                f"{self.text} reaches {total} at a row of the match",
                64,
                self.sql,
                self.pos,
                "try_sum(x) gives NULL instead, sum(CAST(x AS DECIMAL(38, 0))) adds "
                "exactly; with spark.sql.ansi.enabled=false the sum wraps around as in "
                "Spark",
            )
        return wrapped(total, 64)

    def total(self, values: list[Any], exact: Any) -> Any:
        """``exact``, the sum of the non-NULL ``values`` in row order, as Spark's: every
        running total checked under ANSI mode (only when they may leave the range)."""
        if type(exact) is timedelta:
            running = timedelta(0)
            for v in values:
                running = self.interval(running + v)
            return running
        if type(exact) is not int:
            return exact
        if not self.ansi:
            return self.fit(exact)
        if -_LONG <= exact < _LONG and sum(map(abs, values)) < _LONG:
            return exact  # no running total can be out of range
        running = 0
        for v in values:
            running = self.fit(running + v)
        return running

    def interval(self, total: timedelta) -> timedelta:
        """A running total of DAY-TIME intervals, which Spark holds as a BIGINT of
        microseconds and adds with a check, ANSI mode or not: past it Spark raises
        INTERVAL_ARITHMETIC_OVERFLOW (Python's timedelta would go on, and Arrow then
        fail on it)."""
        if interval_fits(total):
            return total
        raise MatchRuntimeError(
            f"interval overflow: the running total of {self.text} reaches {total} at a row "
            "of the match, past a DAY-TIME interval's range of microseconds in a BIGINT "
            "(Spark raises INTERVAL_ARITHMETIC_OVERFLOW, with or without "
            "spark.sql.ansi.enabled)",
            sql=self.sql,
            pos=self.pos,
            hint="try_sum(x) or try_avg(x) gives NULL instead",
        )


_MICROSECOND = timedelta(microseconds=1)


def interval_fits(v: timedelta) -> bool:
    """Whether Spark's DAY-TIME interval (microseconds in a BIGINT) holds ``v``."""
    return -_LONG <= v // _MICROSECOND < _LONG
