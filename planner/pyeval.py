"""Compile the match-dependent part of a DEFINE condition to a Python closure.

Everything row-local in a condition is computed by Spark before matching; what is left
for Python is the "glue" around navigation atoms: comparisons, boolean logic, arithmetic,
CASE, IN, BETWEEN, NULL tests and a table of common scalar functions, with SQL's
three-valued logic (NULL is ``None``). An operator not in these tables is reported at
planning time with its position, never at run time.

Two tables: the core one (:func:`evaluates`), which also has an array form and which
``planner.pushdown`` leaves in the glue even for one row, and ``planner.glue_functions``
(Spark string, NULL and date functions), compiled only where values come from several
rows. Values follow Spark where Python differs: NaN equals NaN and sorts above every
double, ``%`` takes the dividend's sign, a DATE meets a TIMESTAMP at its local midnight,
``concat`` writes numbers as Spark casts them. With ``ansi`` (Spark 4's default) a zero
divisor raises, positioned at the operator, where Spark raises DIVIDE_BY_ZERO. Integer
``+ - *``, negation and ``abs`` keep Spark's widths: the lowering wraps them in
:class:`matchrec.integer_width.IntegerWidth`, whose type the runtime asks Spark for.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable, Iterator
from datetime import date, datetime, timedelta
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_EVEN, ROUND_HALF_UP, Context, Decimal
from typing import Any

from sqlglot import exp

from matchrec.errors import MatchRuntimeError, SemanticError, UnsupportedError
from matchrec.far_dates import FAR_HINT, FarCalendar, FarDate, add_days, far_refusal
from matchrec.far_timestamps import FarTimestamp, micros_of, through_cycles
from matchrec.function_settings import SIZE_OF_NULL, setting_on
from matchrec.navigation import Evaluator, MatchContext, instant
from matchrec.sql_literals import sql_literal
from matchrec.sql_values import (
    WIDE_DECIMALS,
    CalendarInterval,
    Float32,
    StructFields,
    StructValue,
    text_length,
    to_float32,
    unsigned_zero,
    utf8_bytes,
)

from . import glue_functions as gf
from . import strict_math
from .argument_casts import argument_casts
from .bit_functions import shift_name
from .datetime_patterns import PATTERNED, PatternRefused, compile_pattern
from .datetime_steps import calendar_plus, moved_midnight, timestamp_plus
from .format_functions import NumberPattern
from .glue_functions import DivisionByZero
from .java_format import NotComputed, pattern_error
from .java_regex import JavaPatternError, RegexRefused, translate
from .math_functions import EXACT as MATH_EXACT
from .math_functions import MATH_FUNCTIONS
from .regex_functions import REGEX_FUNCTIONS
from .sqltext import ROW_PATTERN_CALLS
from .typed_calls import typed_name

Compile = Callable[[exp.Expression], Evaluator]


def _num(a: Any, b: Any) -> tuple[Any, Any]:
    """Two operands brought to Spark's common type (:func:`glue_functions.common`)."""
    x, y = gf.common([a, b])
    return x, y


_DAY = timedelta(days=1)


def _date_arithmetic(
    op: Callable[[Any, Any], Any], a: Any, b: Any, adds: bool = False, ansi: bool = False
) -> Any:
    """``op`` as Spark applies it: a DATE plus or minus an integer moves by days
    (``date_add``/``date_sub``; ``adds``: ``op`` adds, so an integer may come first), a
    date or timestamp plus or minus a CALENDAR INTERVAL as Spark moves it (``ansi``: a
    DATE moved by microseconds is an error); anything else as Python does. (A flag, not
    ``op is ...``: a worker unpickles copies.)"""
    if _is_timestamp(a) and isinstance(b, (timedelta, CalendarInterval)):
        return _timestamp_moved(a, b if adds else -b, ansi)
    if _is_timestamp(b) and isinstance(a, (timedelta, CalendarInterval)) and adds:
        return _timestamp_moved(b, a, ansi)
    if isinstance(b, CalendarInterval) and isinstance(a, (date, FarDate)):
        return calendar_plus(a, b if adds else -b, ansi)
    if isinstance(a, CalendarInterval) and isinstance(b, (date, FarDate)) and adds:
        return calendar_plus(b, a, ansi)
    if _is_date(a) and isinstance(b, int) and not isinstance(b, bool):
        return add_days(a, op(timedelta(0), timedelta(days=b)).days)
    if _is_date(a) and isinstance(b, timedelta) and b % _DAY:
        return moved_midnight(a, b if adds else -b)
    if _is_date(a) and isinstance(b, timedelta):  # whole days: a DATE
        return add_days(a, op(timedelta(0), b).days)
    if _is_date(b) and isinstance(a, timedelta) and a % _DAY and adds:
        return moved_midnight(b, a)
    if _is_date(b) and isinstance(a, (int, timedelta)) and not isinstance(a, bool) and adds:
        return add_days(b, a if isinstance(a, int) else a.days)
    result = op(a, b)
    if isinstance(result, timedelta):
        return _in_interval_range(result, "INTERVAL_ARITHMETIC_OVERFLOW")
    return result


def _is_timestamp(v: Any) -> bool:
    return isinstance(v, (datetime, FarTimestamp))


def _timestamp_moved(
    ts: datetime | FarTimestamp, delta: timedelta | CalendarInterval, ansi: bool
) -> datetime | FarTimestamp:
    """A TIMESTAMP or TIMESTAMP_NTZ plus an interval, as Spark moves it, also where it or
    the answer is outside the years Python holds (``matchrec.far_timestamps``)."""
    if isinstance(ts, FarTimestamp):
        return through_cycles(_moved, ts, delta, ansi)
    try:
        return _moved(ts, delta, ansi)
    except OverflowError:
        return through_cycles(_moved, FarTimestamp(micros_of(ts), ts.tzinfo), delta, ansi)


def _moved(ts: datetime, delta: timedelta | CalendarInterval, ansi: bool) -> datetime:
    if isinstance(delta, CalendarInterval):
        return calendar_plus(ts, delta, ansi)
    return ts + delta if ts.tzinfo is None else timestamp_plus(ts, delta)


#: Spark's day-time interval: a count of microseconds in a signed 64-bit long
_INTERVAL_MICROS = range(-(2**63), 2**63)


def _in_interval_range(v: Any, condition: str) -> Any:
    """``v``, a day-time interval Spark can hold (or any other value); an error in Spark's
    words (``condition``, raised in either ANSI mode) for one past its range, which
    Python's timedelta holds."""
    if isinstance(v, timedelta) and v // _MICRO not in _INTERVAL_MICROS:
        raise ArithmeticError(f"the interval is out of range (Spark's {condition})")
    return v


def _is_date(v: Any) -> bool:
    return isinstance(v, FarDate) or isinstance(v, date) and not isinstance(v, datetime)


def _strict(fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    def apply(a: Any, b: Any) -> Any:
        if a is None or b is None:
            return None
        return fn(*_num(a, b))

    return apply


def _concatenated(fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """``||`` of two values: NULL if either is, each operand as it is (Spark writes each
    as text of its own type: ``1 || 2.5D`` is '12.5'); arrays in their common type."""

    def apply(a: Any, b: Any) -> Any:
        if a is None or b is None:
            return None
        if isinstance(a, list) and isinstance(b, list):
            a, b = _num(a, b)
        return fn(a, b)

    return apply


def _is_nan(v: Any) -> bool:
    return isinstance(v, float) and v != v


def _nan_equal(v: Any) -> Any:
    """An array or struct value whose NaNs equal each other (Python's NaN equals only
    itself); for ``=`` and ``<>`` of arrays. A struct compares by its fields' values,
    whether built in place (a tuple) or read from a row (a dict of its fields)."""
    if isinstance(v, dict):
        v = list(v.values())
    if isinstance(v, (list, tuple)):
        return tuple(_nan_equal(x) for x in v)
    return ("NaN",) if _is_nan(v) else instant(v)


def _ordered(op: Callable[[Any, Any], bool]) -> Callable[[Any, Any], bool]:
    """A comparison as Spark makes it: NaN equals NaN and is above every other double;
    arrays and structs compare element by element (field by field), NULL first."""

    def compare(a: Any, b: Any) -> bool:
        if isinstance(a, str) and isinstance(b, (bytes, bytearray)):
            a = utf8_bytes(a)  # Spark casts the STRING to BINARY: its UTF-8 bytes
        elif isinstance(b, str) and isinstance(a, (bytes, bytearray)):
            b = utf8_bytes(b)
        if _is_nan(a) or _is_nan(b):
            return op(gf.order_key(a), gf.order_key(b))
        if isinstance(a, (list, tuple, dict)) and isinstance(b, (list, tuple, dict)):
            if op in (operator.eq, operator.ne):
                return op(_nan_equal(a), _nan_equal(b))
            return op(_nested_key(a), _nested_key(b))
        return op(instant(a), instant(b))

    return compare


def _nested_key(v: Any) -> Any:
    """A sort key of a value inside an array or struct, ordered as Spark orders them:
    NULL first, NaN last among doubles, arrays by their elements (a prefix first)."""
    if v is None:
        return (0,)
    if isinstance(v, dict):
        v = list(v.values())
    if isinstance(v, (list, tuple)):
        return (1, tuple(_nested_key(x) for x in v))
    return (1, gf.order_key(v))


_MICRO = timedelta(microseconds=1)


def _number(v: Any) -> bool:
    return isinstance(v, (int, float, Decimal)) and not isinstance(v, bool)


def _whole_micros(value: Decimal) -> timedelta:
    """A day-time interval of ``value`` microseconds, rounded half away from zero (Java's
    HALF_UP, as Spark's interval arithmetic rounds)."""
    return timedelta(microseconds=int(value.to_integral_value(ROUND_HALF_UP)))


def _scaled_interval(v: timedelta, factor: Any) -> timedelta:
    """Spark's day-time interval times a number (a double product rounded as a double)."""
    micros = v // _MICRO
    if isinstance(factor, float):
        product = micros * factor
        if not math.isfinite(product):
            raise ArithmeticError(f"{v} * {factor!r} is not an interval (Spark's overflow)")
        return _in_interval_range(_whole_micros(Decimal(product)), "ARITHMETIC_OVERFLOW")
    scaled = _whole_micros(Decimal(micros) * Decimal(factor))
    return _in_interval_range(scaled, "ARITHMETIC_OVERFLOW")


def _divided_interval(v: timedelta, divisor: Any) -> timedelta:
    """Spark's day-time interval divided by a number; a zero divisor is Spark's
    INTERVAL_DIVIDED_BY_ZERO in either ANSI mode."""
    if divisor == 0:
        raise ArithmeticError("an interval divided by zero (Spark's INTERVAL_DIVIDED_BY_ZERO)")
    micros = v // _MICRO
    if isinstance(divisor, float):
        quotient = micros / divisor
        if not math.isfinite(quotient):
            raise ArithmeticError(f"{v} / {divisor!r} is not an interval (Spark's overflow)")
        return _whole_micros(Decimal(quotient))
    return _whole_micros(WIDE_DECIMALS.divide(Decimal(micros), Decimal(divisor)))


def _divide(a: Any, b: Any) -> Any:
    if isinstance(a, timedelta) and _number(b):
        return _divided_interval(a, b)
    if b == 0:
        return None
    if isinstance(a, Decimal) or isinstance(b, Decimal):
        # Spark divides to 38 fraction digits (half up), then rounds to the result's
        # scale (planner.expressions' width of the operator)
        quotient = WIDE_DECIMALS.divide(Decimal(a), Decimal(b))
        return unsigned_zero(quotient.quantize(_SCALE_38, context=WIDE_DECIMALS))
    return a / b


_SCALE_38 = Decimal(1).scaleb(-38)

#: Spark negates a DECIMAL (``-x``, ``abs`` of a negative one) through Scala's BigDecimal,
#: rounded to its 34 significant digits (MathContext.DECIMAL128, half even); Python's
#: ``-x`` would round to its default context's 28
_DECIMAL128 = Context(prec=34, rounding=ROUND_HALF_EVEN)


def _negated(v: Any) -> Any:
    if isinstance(v, timedelta):
        return _in_interval_range(-v, "INTERVAL_ARITHMETIC_OVERFLOW")
    return _DECIMAL128.minus(v) if isinstance(v, Decimal) else -v


def _exact(op: Callable[[Any, Any], Any], wide: Callable[[Any, Any], Any]):
    """``op``, but DECIMAL operands (with integers) computed exactly (Python's default
    context keeps 28 digits; Spark's DECIMAL has 38)."""

    def apply(a: Any, b: Any) -> Any:
        if op is operator.mul and (isinstance(a, timedelta) or isinstance(b, timedelta)):
            v, factor = (a, b) if isinstance(a, timedelta) else (b, a)
            if _number(factor):
                return _scaled_interval(v, factor)
        if (isinstance(a, Decimal) or isinstance(b, Decimal)) and all(
            isinstance(v, (Decimal, int)) and not isinstance(v, bool) for v in (a, b)
        ):
            return wide(Decimal(a), Decimal(b))
        return op(a, b)

    return apply


_ADD = _exact(operator.add, WIDE_DECIMALS.add)
_SUB = _exact(operator.sub, WIDE_DECIMALS.subtract)
_MUL = _exact(operator.mul, WIDE_DECIMALS.multiply)


def _ansi(fn: Callable[[Any, Any], Any], condition: str) -> Callable[[Any, Any], Any]:
    """``fn`` raising where Spark's ANSI mode raises (error ``condition``): a zero divisor."""

    def checked(a: Any, b: Any) -> Any:
        # (an interval divided by zero is Spark's INTERVAL_DIVIDED_BY_ZERO in any mode)
        if a is not None and b is not None and b == 0 and not isinstance(a, timedelta):
            raise DivisionByZero(condition)
        return fn(a, b)

    return checked


def _int_divide(a: Any, b: Any) -> Any:
    if b == 0:
        return None
    q = abs(a) // abs(b)
    return int(q if (a >= 0) == (b >= 0) else -q)


def _mod(a: Any, b: Any) -> Any:
    if b == 0:
        return None
    return gf.java_remainder(a, b)


def _concat(a: Any, b: Any) -> Any:
    return gf.concat(a, b)


def _legacy_concat(a: Any, b: Any) -> Any:
    return gf.legacy_concat(a, b)


def _integral(op: Callable[[int, int], int]) -> Callable[[Any, Any], int]:
    """A bitwise operator of two integers (Spark's ``&``, ``|``, ``^``: the result of two
    values in range is in range, whatever the width)."""

    def apply(a: Any, b: Any) -> int:
        for v in (a, b):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"{v!r} is not an integer")
        return op(a, b)

    return apply


def _like_regex(pattern: str, escape: str = "\\") -> re.Pattern[str]:
    """Spark's LIKE pattern as a regex: ``%`` any run, ``_`` one character, ``escape``
    (``\\`` unless ESCAPE names another) escapes the next one, which must be ``%``,
    ``_`` or itself (Spark's INVALID_FORMAT errors otherwise, and at the end)."""
    parts, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if c == escape:
            shown = pattern.replace("\\", "\\\\")
            if i + 1 == len(pattern):
                raise ValueError(
                    f"[INVALID_FORMAT.ESC_AT_THE_END] The format is invalid: '{shown}'. The "
                    "escape character is not allowed to end with."
                )
            if pattern[i + 1] not in ("%", "_", escape):
                raise ValueError(
                    f"[INVALID_FORMAT.ESC_IN_THE_MIDDLE] The format is invalid: '{shown}'. The "
                    f"escape character is not allowed to precede '{pattern[i + 1]}'."
                )
            parts.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        parts.append(".*" if c == "%" else "." if c == "_" else re.escape(c))
        i += 1
    return re.compile("".join(parts), re.DOTALL)


def _like(value: str, pattern: str) -> bool:
    return _like_regex(pattern).fullmatch(value) is not None


def _ilike(value: str, pattern: str) -> bool:
    return _like(value.lower(), pattern.lower())


def _like_with(ignore_case: bool, negate: bool, escape: str) -> Callable[[str, str], bool]:
    """``[NOT] LIKE``/``ILIKE`` with an ESCAPE character (sqlglot keeps NOT as the
    node's ``negate`` and ESCAPE as a node around it)."""

    def like(value: str, pattern: str) -> bool:
        if ignore_case:
            value, pattern = value.lower(), pattern.lower()
        return (_like_regex(pattern, escape).fullmatch(value) is not None) != negate

    return like


def _like_node(
    node: exp.Expression, where: Callable[[exp.Expression], int], sql: str
) -> tuple[exp.Like | exp.ILike, Callable[[str, str], bool]] | None:
    """The LIKE/ILIKE of ``node`` (``x [NOT] LIKE p [ESCAPE 'c']``) and its function;
    None for other nodes and for LIKE ANY/ALL (a list of patterns)."""
    escape = "\\"
    like = node
    if isinstance(node, exp.Escape):
        like, char = node.this, node.expression
        if not isinstance(like, (exp.Like, exp.ILike)):
            return None
        if not (isinstance(char, exp.Literal) and char.is_string and len(char.this) == 1):
            raise SemanticError(
                "the ESCAPE of LIKE must be a string literal of one character (as Spark requires)",
                sql=sql,
                pos=where(char),
            )
        escape = char.this
    if not isinstance(like, (exp.Like, exp.ILike)) or isinstance(
        like.expression, (exp.Any, exp.All)
    ):
        return None
    fn = _like_with(isinstance(like, exp.ILike), bool(like.args.get("negate")), escape)
    return like, fn


_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    exp.Add: _strict(lambda a, b: _date_arithmetic(_ADD, a, b, adds=True)),
    exp.Sub: _strict(lambda a, b: _date_arithmetic(_SUB, a, b)),
    exp.Mul: _strict(_MUL),
    exp.Div: _strict(_divide),
    exp.IntDiv: _strict(_int_divide),
    exp.Mod: _strict(_mod),
    exp.EQ: _strict(_ordered(operator.eq)),
    exp.NEQ: _strict(_ordered(operator.ne)),
    exp.LT: _strict(_ordered(operator.lt)),
    exp.LTE: _strict(_ordered(operator.le)),
    exp.GT: _strict(_ordered(operator.gt)),
    exp.GTE: _strict(_ordered(operator.ge)),
    exp.DPipe: _concatenated(_legacy_concat),  # ANSI mode's in _ANSI_BINARY
    exp.Like: _strict(_like),
    exp.ILike: _strict(_ilike),
    # try_add & co.: NULL instead of an overflow (the integer width) or an error
    exp.SafeAdd: _strict(lambda a, b: _date_arithmetic(_ADD, a, b, adds=True)),
    exp.SafeSubtract: _strict(lambda a, b: _date_arithmetic(_SUB, a, b)),
    exp.SafeMultiply: _strict(_MUL),
    exp.BitwiseAnd: _strict(_integral(operator.and_)),
    exp.BitwiseOr: _strict(_integral(operator.or_)),
    exp.BitwiseXor: _strict(_integral(operator.xor)),
}


#: the operators whose operands Spark casts as it casts those of the function named
#: (``planner.argument_casts``): ``try_add('5', 2)``, ``'12' & 3``
_CAST_AS: dict[type, str] = {
    exp.SafeAdd: "TRY_ADD",
    exp.SafeSubtract: "TRY_SUBTRACT",
    exp.SafeMultiply: "TRY_MULTIPLY",
    exp.BitwiseAnd: "BITWISE_AND",
    exp.BitwiseOr: "BITWISE_OR",
    exp.BitwiseXor: "BITWISE_XOR",
}


# the same operators under ANSI mode (Spark 4's default)
_ANSI_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    exp.Add: _strict(lambda a, b: _date_arithmetic(_ADD, a, b, adds=True, ansi=True)),
    exp.Sub: _strict(lambda a, b: _date_arithmetic(_SUB, a, b, ansi=True)),
    exp.DPipe: _concatenated(_concat),
    exp.Div: _ansi(_BINARY[exp.Div], "DIVIDE_BY_ZERO"),
    exp.IntDiv: _ansi(_BINARY[exp.IntDiv], "DIVIDE_BY_ZERO"),
    exp.Mod: _ansi(_BINARY[exp.Mod], "REMAINDER_BY_ZERO"),
}


def _null_safe_eq(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return _ordered(operator.eq)(*_num(a, b))


#: enough digits to round any double or DECIMAL(38) exactly (a double has at most 309
#: integer digits and its shortest decimal form at most 341 fractional ones)
_ROUND_CONTEXT = Context(prec=1000)


def _rounder(mode: str) -> Callable[..., Any]:
    """Spark's ``round`` (HALF_UP) or ``bround`` (HALF_EVEN) to ``places``: a double goes
    through its shortest decimal form (Scala's ``BigDecimal(d)``) and back, a NaN or an
    infinity stays, a zero result is +0.0; an integer rounds only to negative places."""

    def quantize(d: Decimal, places: int) -> Decimal:
        step = Decimal(1).scaleb(-places)
        return unsigned_zero(d.quantize(step, rounding=mode, context=_ROUND_CONTEXT))

    def round_to(x: Any, places: Any = 0) -> Any:
        places = int(places)
        if isinstance(x, float):
            if not math.isfinite(x):
                return x
            d = Decimal(repr(x))
            if d.as_tuple().exponent >= -places:  # nothing to round
                rounded = x + 0.0
            else:
                rounded = float(quantize(d, places)) + 0.0
            return to_float32(rounded) if type(x) is Float32 else rounded  # a FLOAT's is one
        if isinstance(x, Decimal):
            return quantize(x, places)
        if isinstance(x, int) and not isinstance(x, bool) and places < 0:
            return int(quantize(Decimal(x), places))
        return x

    return round_to


_round = _rounder(ROUND_HALF_UP)


_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


#: the DECIMAL type (digits, scale) Spark casts a double to before ``ceil``/``floor``
#: to a scale, and a FLOAT
_SCALED_DOUBLE = (30, 15)
_SCALED_FLOAT = (14, 7)


def _to_long(rounding: Callable[[float], int], ansi: bool) -> Callable[..., Any]:
    """Spark's ``floor``/``ceil`` (a BIGINT): a double's NaN is 0, and one out of BIGINT's
    range (infinities too) is an overflow error under ANSI mode, else clamped, as Java's
    double-to-long conversion. With a ``scale``, :func:`_to_scale`."""
    mode = ROUND_CEILING if rounding is math.ceil else ROUND_FLOOR

    def apply(x: Any, scale: Any = None) -> Any:
        if scale is not None:
            return _to_scale(x, int(scale), mode, ansi)
        if not isinstance(x, float):
            return rounding(x)
        if x != x:
            return 0
        if math.isfinite(x):
            result = rounding(x)
            if _LONG_MIN <= result <= _LONG_MAX:
                return result
        if ansi:
            raise OverflowError(
                f"{x!r} is out of BIGINT's range (Spark's ARITHMETIC_OVERFLOW under "
                "spark.sql.ansi.enabled)"
            )
        return _LONG_MAX if x > 0 else _LONG_MIN

    return apply


def _to_scale(x: Any, scale: int, mode: str, ansi: bool) -> Decimal | None:
    """Spark's ``ceil``/``floor`` of ``x`` to ``scale`` places (a DECIMAL): a double is
    first cast to DECIMAL(30, 15) (a FLOAT to DECIMAL(14, 7)) as Spark casts, rounding
    half up; one that type cannot hold is an overflow error under ANSI mode, else NULL.
    NaN and the infinities are NULL in either mode (Spark's cast of them to a DECIMAL)."""
    if isinstance(x, float):
        digits, places = _SCALED_FLOAT if type(x) is Float32 else _SCALED_DOUBLE
        if not math.isfinite(x):
            return None
        exact = Decimal(repr(x))
        value = exact.quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP, _ROUND_CONTEXT)
        if value.adjusted() >= digits - places:
            if ansi:
                raise OverflowError(
                    f"{x!r} cannot be represented as Decimal({digits}, {places}) "
                    "(Spark's NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION under "
                    "spark.sql.ansi.enabled)"
                )
            return None
        x = value
    rounded = unsigned_zero(Decimal(x).quantize(Decimal(1).scaleb(-scale), mode, _ROUND_CONTEXT))
    return rounded.quantize(Decimal(1), context=_ROUND_CONTEXT) if scale < 0 else rounded


def _signum(x: Any) -> float:
    """Spark's ``sign``/``signum``: a double, NaN for NaN, a zero keeps its sign; of a
    day-time interval the sign of its microseconds."""
    f = gf.measured(x)
    return f if f != f or f == 0 else math.copysign(1.0, f)


def _power(a: Any, b: Any) -> Any:
    """Spark's ``power``: always a double, Java's ``StrictMath.pow``'s (NaN where the real
    result does not exist)."""
    return strict_math.pow(float(a), float(b))


# Spark scalar functions available in match-dependent glue: name -> function of non-NULL args.
_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "ABS": lambda v: (
        _negated(v)
        if isinstance(v, Decimal) and v < 0
        else _in_interval_range(abs(v), "ARITHMETIC_OVERFLOW")
    ),
    "LOWER": str.lower,
    "LCASE": str.lower,
    "UPPER": str.upper,
    "UCASE": str.upper,
    "LENGTH": text_length,
    "CHAR_LENGTH": text_length,
    "SQRT": lambda x: math.sqrt(x) if x >= 0 else math.nan,
    "EXP": lambda x: strict_math.exp(float(x)),
    "LN": lambda x: strict_math.log(float(x)) if x > 0 else (math.nan if x != x else None),
    "FLOOR": _to_long(math.floor, ansi=False),
    "CEIL": _to_long(math.ceil, ansi=False),
    "CEILING": _to_long(math.ceil, ansi=False),
    "ROUND": _round,
    "BROUND": _rounder(ROUND_HALF_EVEN),
    "SIGN": _signum,
    "SIGNUM": _signum,
    "POWER": lambda a, b: _power(a, b),
    "POW": lambda a, b: _power(a, b),
    "CONCAT": gf.concat,
    "RAISE_ERROR": gf.raise_error,
    "GREATEST": gf.greatest,
    "LEAST": gf.least,
    "SIZE": len,
    "CARDINALITY": len,
    "ARRAY_SIZE": len,
    **MATH_FUNCTIONS,
}

# the functions of that table that raise under ANSI mode where Spark does
_ANSI_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "FLOOR": _to_long(math.floor, ansi=True),
    "CEIL": _to_long(math.ceil, ansi=True),
    "CEILING": _to_long(math.ceil, ansi=True),
}


def _size_of(x: Any) -> int | None:
    """Spark's ``size``/``cardinality`` when ANSI is off: -1 of a NULL, unless the session
    sets ``spark.sql.legacy.sizeOfNull`` to false (then NULL, as under ANSI)."""
    if x is None:
        return -1 if setting_on(SIZE_OF_NULL) else None
    return len(x)


# the functions of that table that differ when ANSI is off, all of them given NULLs
_LEGACY_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "SIZE": _size_of,
    "CARDINALITY": _size_of,
    "CONCAT": lambda *values: _nulled(gf.legacy_concat, values),
}


def _nulled(fn: Callable[..., Any], values: tuple[Any, ...]) -> Any:
    """``fn`` of ``values``, NULL if one is (a legacy entry is called with NULLs)."""
    return None if any(v is None for v in values) else fn(*values)


# sqlglot node classes of those functions (sqlglot parses many of them to typed nodes)
_FUNCTION_NODES: dict[type, str] = {
    exp.Abs: "ABS",
    exp.Lower: "LOWER",
    exp.Upper: "UPPER",
    exp.Length: "LENGTH",
    exp.Sqrt: "SQRT",
    exp.Exp: "EXP",
    exp.Ln: "LN",
    exp.Floor: "FLOOR",
    exp.Ceil: "CEIL",
    exp.Round: "ROUND",
    exp.Sign: "SIGN",
    exp.Pow: "POWER",
    exp.Concat: "CONCAT",
    exp.Greatest: "GREATEST",
    exp.Least: "LEAST",
    exp.ArraySize: "SIZE",
    exp.Sin: "SIN",
    exp.Cos: "COS",
    exp.Tan: "TAN",
    exp.Asin: "ASIN",
    exp.Acos: "ACOS",
    exp.Atan: "ATAN",
    exp.Atan2: "ATAN2",
    exp.Sinh: "SINH",
    exp.Cosh: "COSH",
    exp.Tanh: "TANH",
    exp.Asinh: "ASINH",
    exp.Acosh: "ACOSH",
    exp.Atanh: "ATANH",
    exp.Cot: "COT",
    exp.Sec: "SEC",
    exp.Csc: "CSC",
    exp.Radians: "RADIANS",
    exp.Degrees: "DEGREES",
    exp.Cbrt: "CBRT",
    exp.Log: "LOG",
}


# functions of that table that are not NULL for a NULL argument
_NON_STRICT = {"GREATEST", "LEAST", "RAISE_ERROR"}

_GLUE_NODES: tuple[type, ...] = (
    exp.Paren,
    exp.Literal,
    exp.HexString,
    exp.Boolean,
    exp.Null,
    exp.And,
    exp.Or,
    exp.Not,
    exp.Neg,
    exp.NullSafeEQ,
    exp.NullSafeNEQ,
    exp.EqualNull,
    exp.BitwiseNot,
    exp.Between,
    exp.Case,
    exp.If,
    exp.Coalesce,
    exp.Column,
    exp.Identifier,
    exp.Escape,
)


#: functions whose Python results may differ from Spark's in the last bit (Spark uses
#: Java's StrictMath): the glue computes them only where Spark cannot, like the
#: functions of ``planner.glue_functions``; a function of one row goes to Spark
_INEXACT = {"EXP", "LN", "POWER", "POW", *(set(MATH_FUNCTIONS) - MATH_EXACT)}


def _inexact(node: exp.Expression) -> bool:
    name = _FUNCTION_NODES.get(type(node))
    if name is None and isinstance(node, exp.Anonymous):
        name = str(node.this).upper()
    return name in _INEXACT


def evaluates(node: exp.Expression, exact: bool = True) -> bool:
    """Whether :func:`compile_glue` has every operator of ``node`` (columns and
    navigation calls count as atoms); with ``exact``, also computes it as Spark does to
    the last bit."""
    for n in node.walk():
        if _inexact(n):
            if exact:
                return False
            continue
        if isinstance(n, _GLUE_NODES) or type(n) in _BINARY or type(n) in _FUNCTION_NODES:
            continue
        if isinstance(n, exp.Is) and isinstance(n.expression, (exp.Null, exp.Boolean)):
            continue
        if isinstance(n, exp.In) and not n.args.get("query"):
            continue
        if isinstance(n, exp.Anonymous) and str(n.this).upper() in {*_FUNCTIONS, *_ATOM_CALLS}:
            continue
        return False
    return True


_ATOM_CALLS = ROW_PATTERN_CALLS


def compiles(
    node: exp.Expression, also: Callable[[exp.Expression], bool] = lambda n: False
) -> bool:
    """Whether :func:`compile_glue` compiles every operator of ``node``: what
    :func:`evaluates` says, plus the Spark functions of ``planner.glue_functions`` (used
    only where Spark cannot compute a value, see that module) and the calls ``also``
    says the caller compiles (a session UDF)."""
    return all(
        also(n)
        or evaluates(shallow(n))
        or gf.extended_name(n) is not None
        or _inexact(n)
        or _patterned(n)
        # shifts: compiled with their width by planner.expressions
        or shift_name(n) is not None
        # hash, format_string...: compiled with their arguments' types by
        # planner.expressions
        or typed_name(n) is not None
        or _struct_field(n)
        or (isinstance(n, exp.Bracket) and len(n.expressions) == 1)
        or _built_struct(n)
        for n in node.walk()
        if not isinstance(n, exp.Column) and not _field_name(n)
    )


def date_cast(node: exp.Expression) -> bool:
    """``to_date(x)`` without a pattern: Spark's CAST of ``x`` to DATE (sqlglot also wraps
    ``datediff``'s and ``year``'s arguments in it)."""
    return isinstance(node, exp.TsOrDsToDate) and node.args.get("format") is None


def _built_struct(node: exp.Expression) -> bool:
    """A struct built in place (its fields' names and values), which the glue holds as
    a tuple."""
    if isinstance(node, exp.PropertyEQ):
        return isinstance(node.parent, exp.Struct)
    if isinstance(node, exp.Identifier):
        return isinstance(node.parent, exp.PropertyEQ) and node is node.parent.this
    return isinstance(node, exp.Struct) and all(
        isinstance(e, exp.PropertyEQ) for e in node.expressions
    )


def _struct_field(node: exp.Expression) -> bool:
    """Whether ``node`` reads a field of a value that can be a struct: an element
    (``LAST(B.arr)[0].n``), a field, a column, a navigated row's value or a choice among
    such (``coalesce``, ``CASE``); another base (``(A.x + B.x).f``) is refused as Spark
    refuses it."""
    if not (isinstance(node, exp.Dot) and isinstance(node.expression, exp.Identifier)):
        return False
    base = node.this
    while isinstance(base, exp.Paren):
        base = base.this
    if isinstance(base, (exp.Bracket, exp.Dot, exp.Column, *_CHOOSING, *CHOSEN_ROW)):
        return True
    return isinstance(base, exp.Anonymous) and str(base.this).upper() in _ATOM_CALLS


#: calls whose value is one of their arguments' (a struct of a struct's):
#: ``coalesce(LAST(B.addr), FIRST(A.addr)).zip``
_CHOOSING = (exp.Coalesce, exp.If, exp.Case, exp.Greatest, exp.Least)
#: aggregates whose value is one row's (a struct of a struct's): ``max(B.st).a``
CHOSEN_ROW = (exp.Max, exp.Min, exp.ArgMax, exp.ArgMin, exp.AnyValue, exp.First, exp.Last)


def _field_name(node: exp.Expression) -> bool:
    """Whether ``node`` is the name of a field read (``x.name``)."""
    return isinstance(node, exp.Identifier) and isinstance(node.parent, exp.Dot)


def _patterned(node: exp.Expression) -> bool:
    """Whether ``node`` is a datetime call with a pattern that ``planner.decompose``
    handed to the glue (``__MR_FROM_UNIXTIME(x, zone)``...)."""
    return isinstance(node, exp.Anonymous) and str(node.this).upper() in PATTERNED


def shallow(node: exp.Expression) -> exp.Expression:
    """``node`` with its children replaced by NULL, so that :func:`evaluates` checks
    ``node`` alone."""
    copy = node.copy()
    for key, value in list(copy.args.items()):
        if isinstance(value, exp.Expression):
            copy.set(key, exp.Null())
        elif isinstance(value, list):
            copy.set(key, [exp.Null() if isinstance(v, exp.Expression) else v for v in value])
    return copy


def compile_glue(
    node: exp.Expression,
    child: Compile,
    where: Callable[[exp.Expression], int],
    sql: str,
    ansi: bool = True,
) -> Evaluator:
    """Compile one glue ``node``; ``child`` compiles sub-expressions (atoms included).
    ``ansi``: raise where Spark raises under ``spark.sql.ansi.enabled`` (a zero divisor)
    instead of giving NULL."""
    if isinstance(node, exp.Paren):
        return child(node.this)
    if isinstance(node, exp.Literal):
        value = _literal(node)
        return lambda ctx: value
    if isinstance(node, exp.HexString):
        digits = node.this
        data = bytes.fromhex(digits if len(digits) % 2 == 0 else "0" + digits)  # X'A' is 0A
        return lambda ctx: data
    if isinstance(node, exp.Boolean):
        value = bool(node.this)
        return lambda ctx: value
    if isinstance(node, exp.Null):
        return lambda ctx: None
    if isinstance(node, (exp.And, exp.Or)):
        # `x AND false` is false and `x OR true` is true whatever x is (NULL, or an error
        # such as a zero divisor): Spark's optimizer drops x (BooleanSimplification)
        decider = isinstance(node, exp.Or)
        if _is_boolean(node.this, decider) or _is_boolean(node.expression, decider):
            return lambda ctx: decider
        left, right = child(node.this), child(node.expression)
        if decider:
            return lambda ctx: _or(left, right, ctx)
        return lambda ctx: _and(left, right, ctx)
    if isinstance(node, exp.Dot) and _parameter_field(node):  # e -> e.k, e -> e.geo.lat
        inner, name = child(node.this), node.expression.this
        return lambda ctx: gf.struct_field(inner(ctx), name)
    if isinstance(node, exp.Not):
        inner = child(node.this)

        def negate(ctx: MatchContext) -> Any:
            v = inner(ctx)
            return None if v is None else not v

        return negate
    if isinstance(node, exp.Neg):
        inner = child(node.this)
        negated = lambda ctx: None if (v := inner(ctx)) is None else _negated(v)  # noqa: E731
        return guarded(negated, "unary -", sql, where(node))  # (an interval's range)
    if isinstance(node, exp.BitwiseNot):
        inner, xor = child(node.this), _integral(operator.xor)
        return lambda ctx: None if (v := inner(ctx)) is None else xor(v, -1)
    if isinstance(node, (exp.NullSafeEQ, exp.EqualNull)):
        left, right = child(node.this), child(node.expression)
        return lambda ctx: _null_safe_eq(left(ctx), right(ctx))
    if isinstance(node, exp.NullSafeNEQ):
        left, right = child(node.this), child(node.expression)
        return lambda ctx: not _null_safe_eq(left(ctx), right(ctx))
    if isinstance(node, exp.Is):
        inner = child(node.this)
        target = node.expression
        if isinstance(target, exp.Null):
            return lambda ctx: inner(ctx) is None
        if isinstance(target, exp.Boolean):
            want = bool(target.this)
            return lambda ctx: inner(ctx) is want
    like = _like_node(node, where, sql)
    if like is not None:
        left, right = child(like[0].this), child(like[0].expression)
        name = OPERATORS[type(like[0])]
        return _guarded_binary(_strict(like[1]), left, right, like[0], where, sql, (name, ansi))
    for cls, fn in _BINARY.items():
        if type(node) is cls:
            left, right = child(node.this), child(node.expression)
            fn = _ANSI_BINARY.get(cls, fn) if ansi else fn
            name = _CAST_AS.get(cls)
            casts = None if name is None else (name, ansi)
            return _guarded_binary(fn, left, right, node, where, sql, casts)
    if isinstance(node, exp.In) and not node.args.get("query"):
        needle = child(node.this)
        options = [child(e) for e in node.expressions]
        return lambda ctx: _in(needle(ctx), (o(ctx) for o in options))
    if isinstance(node, exp.Between):
        value, low, high = child(node.this), child(node.args["low"]), child(node.args["high"])
        # Spark's x >= low AND x <= high: no bound read for a NULL x, no high one when
        # x is below low
        return lambda ctx: _and(
            lambda c: None if (v := value(c)) is None else _BINARY[exp.GTE](v, low(c)),
            lambda c: None if (v := value(c)) is None else _BINARY[exp.LTE](v, high(c)),
            ctx,
        )
    if isinstance(node, exp.Case):
        return _case(node, child)
    if isinstance(node, exp.If):
        cond, then = child(node.this), child(node.args["true"])
        other = child(node.args["false"]) if node.args.get("false") else (lambda ctx: None)
        return lambda ctx: then(ctx) if cond(ctx) is True else other(ctx)
    if isinstance(node, exp.Struct) and all(
        isinstance(e, exp.PropertyEQ) for e in node.expressions
    ):  # struct(...), named_struct(...): a tuple of the field values, as a STRUCT column
        fields = [child(e.expression) for e in node.expressions]
        names = tuple(e.this.name for e in node.expressions)
        return lambda ctx: StructValue(tuple(f(ctx) for f in fields), names)
    if isinstance(node, exp.Coalesce):
        parts = [child(node.this), *(child(e) for e in node.expressions)]
        return lambda ctx: next((v for p in parts if (v := p(ctx)) is not None), None)
    if date_cast(node):
        cast = exp.Cast(to=exp.DataType.build("DATE"))
        cast.args["this"] = node.this  # not ``set``: the operand stays in the query's tree
        node = cast
    if isinstance(node, exp.Cast):
        cast = _glue_cast(node, child, where, sql, ansi)
        if cast is not None:
            return cast
    name = _FUNCTION_NODES.get(type(node))
    if name is None and isinstance(node, exp.Anonymous):
        name = str(node.this).upper()
        if name not in _FUNCTIONS:
            name = None
    if name is not None:
        if ansi:
            fn, strict = _ANSI_FUNCTIONS.get(name, _FUNCTIONS[name]), name not in _NON_STRICT
        else:
            fn = _LEGACY_FUNCTIONS.get(name, _FUNCTIONS[name])
            strict = name not in _NON_STRICT and name not in _LEGACY_FUNCTIONS
        return _cast_call(node, name, fn, strict, call_args(node), child, where, sql, ansi)
    if isinstance(node, exp.Bracket) and len(node.expressions) == 1:
        at = gf.subscript(int(node.args.get("offset") or 0), bool(node.args.get("safe")), ansi)
        return _call(node, at, True, [node.this, node.expressions[0]], child, where, sql)
    if _patterned(node):
        fn = _pattern_function(node, where, sql, ansi)
        return _call(node, fn, True, list(node.expressions[:2]), child, where, sql)
    extended = gf.extended_name(node)
    if extended is not None:
        entry = gf.EXTENDED[extended]
        fn = entry.ansi_fn if ansi and entry.ansi_fn is not None else entry.fn
        if extended == "FORMAT_NUMBER":
            _check_number_pattern(gf.node_args(node), where, sql)
        if extended in REGEX_FUNCTIONS:
            _check_regex_call(node, extended, gf.node_args(node), where, sql)
            if isinstance(node, exp.RegexpLike) and not _written_as_call(node, where, sql):
                left, right = child(node.this), child(node.expression)
                casts = (extended, ansi)
                return _guarded_binary(_strict(fn), left, right, node, where, sql, casts)
        args = gf.node_args(node)
        return _cast_call(node, extended, fn, entry.strict, args, child, where, sql, ansi)
    if isinstance(node, exp.Dot):
        built = _check_struct_field(node, where, sql)
        if built is not None:  # ``named_struct('x', 1).x``: the field's own value
            return child(built)
        if _struct_field(node):  # a field of a struct value
            name = node.expression.this
            return _call(
                node, lambda v: gf.struct_field(v, name), True, [node.this], child, where, sql
            )
    raise UnsupportedError(
        f"{_describe(node, sql, where(node))} cannot be applied to a value that depends on "
        "the match",
        sql=sql,
        pos=where(node),
        hint="a function of values from several rows runs in matchrec's own evaluator, "
        "which has operators, CASE, COALESCE and the functions the README lists (How it "
        "works); a function of one row is Spark's: compute it per row in a subquery (f(x) AS "
        "fx) and compare those columns, e.g. B.fx > A.fx",
    )


def _glue_cast(
    node: exp.Cast, child: Compile, where: Callable[[exp.Expression], int], sql: str, ansi: bool
) -> Evaluator | None:
    """CAST (TRY_CAST, ``::``) of a value of several rows to a number, a string, a
    BOOLEAN, a date, a timestamp or BINARY, as the table function casts measures
    (``measure_eval.cast_evaluator``); None for other targets (intervals, nested types:
    refused as before). A day-time interval whose fields its expression fixes
    (``make_dt_interval(...)``) is written as Spark writes that type."""
    from .function_types import day_time_span
    from .measure_eval import TypeEnv, cast_evaluator, infer_type  # they build on this module

    source = infer_type(node.this, TypeEnv(columns={}))
    interval = source if source is not None and day_time_span(source) is not None else None
    return cast_evaluator(node, child, ansi, sql, where(node), glue=True, source=interval)  # type: ignore[arg-type]


def _written_as_call(
    node: exp.Expression, where: Callable[[exp.Expression], int], sql: str
) -> bool:
    """Whether ``node`` is written ``rlike(s, p)`` (or ``regexp``/``regexp_like``), not
    as the operator ``s RLIKE p``."""
    written = _NAME.match(sql, where(node))
    return (
        written is not None
        and written.group().lower() in ("rlike", "regexp", "regexp_like")
        and sql[written.end() :].lstrip().startswith("(")
    )


def check_format_pattern(
    arguments: list[exp.Expression], where: Callable[[exp.Expression], int], sql: str
) -> None:
    """A ``format_string``/``printf`` pattern that is a literal with a specifier not
    computed over values of several rows (``%tY``, ``%a``): an error when the query is
    built, the caret at the specifier, not a failed job (``planner.sqltext`` refuses the
    specifiers Java rejects for any value)."""
    from .sqltext import specifier_pos

    fmt = arguments[0] if arguments else None
    if not (isinstance(fmt, exp.Literal) and fmt.is_string):
        return
    found = pattern_error(fmt.this)
    if isinstance(found, NotComputed):
        raise UnsupportedError(
            f"format_string() over values of several rows: {found}",
            sql=sql,
            pos=specifier_pos(sql, where(fmt), fmt.this, found),
            hint="format each row's value where Spark computes it (format_string('%tY', "
            "B.ts) of one row), or CAST the value to STRING first",
        )


def _check_struct_field(
    node: exp.Dot, where: Callable[[exp.Expression], int], sql: str
) -> exp.Expression | None:
    """The value of field ``f`` of ``struct(...).f`` (a struct built in place), None for
    another ``.``; where the struct has no field ``f``, or two: Spark's FIELD_NOT_FOUND /
    AMBIGUOUS_REFERENCE_TO_FIELDS, positioned at the field's name."""
    from .decompose import struct_fields  # decompose builds on this module

    fields = struct_fields(node)
    if fields is None:
        return None
    wanted = node.expression.name
    found = [value for name, value in fields if name.lower() == wanted.lower()]
    if len(found) == 1:
        return found[0]
    count = len(found)
    pos = where(node)
    field = re.compile(r"\)\s*\.\s*`?(" + re.escape(wanted) + r")\b", re.IGNORECASE)
    written = field.search(sql, pos)
    names = ", ".join(name for name, _ in fields)
    raise SemanticError(
        f"the struct has {'no' if count == 0 else count} field{'s' if count > 1 else ''} "
        f"named {wanted}: its fields are {names} (as Spark's "
        f"{'FIELD_NOT_FOUND' if count == 0 else 'AMBIGUOUS_REFERENCE_TO_FIELDS'})",
        sql=sql,
        pos=written.start(1) if written is not None else pos,
        hint="Spark names a field after its column (struct(B.v, ...) has a field v), "
        "else col1, col2, ...; name it with AS (struct(B.v AS p, FIRST(A.v) AS q).q)",
    )


def _written_pattern(node: exp.Expression, pos: int, sql: str) -> tuple[str, int] | None:
    """The last argument of the call written at ``pos`` of ``sql`` if a string literal,
    and the offset of its text; ``("", -1)`` for a call of one argument; None if the last
    argument is no string literal."""
    from sqlglot.tokens import TokenType

    from .sqltext import MatchRecognizeDialect

    tokens = MatchRecognizeDialect().tokenize(sql[pos:])
    if len(tokens) < 2 or tokens[1].token_type != TokenType.L_PAREN:
        return None
    args: list[list] = [[]]
    depth = 0
    for tok in tokens[1:]:
        if tok.token_type in (TokenType.L_PAREN, TokenType.L_BRACKET):
            depth += 1
            if depth == 1:
                continue
        elif tok.token_type in (TokenType.R_PAREN, TokenType.R_BRACKET):
            depth -= 1
            if depth == 0:
                break
        elif tok.token_type == TokenType.COMMA and depth == 1:
            args.append([])
            continue
        args[-1].append(tok)
    if len(args) == 1:
        return "", -1
    last = args[-1]
    if len(last) != 1 or last[0].token_type != TokenType.STRING:
        return None
    return last[0].text, pos + last[0].start + 1


def _pattern_function(
    node: exp.Expression, where: Callable[[exp.Expression], int], sql: str, ansi: bool
) -> Callable[..., Any]:
    """The glue function of a datetime call with a pattern (``planner.datetime_patterns``),
    the pattern read as written and checked now: a letter the glue does not compute is an
    error when the query is built, the caret at that letter."""
    spec = PATTERNED[str(node.this).upper()]
    pos = where(node)
    what = _describe(node, sql, pos)
    carried = node.expressions[2] if len(node.expressions) > 2 else None
    if carried is None and spec.default is None:
        raise UnsupportedError(
            f"{what} over values of several rows needs its pattern as a string literal",
            sql=sql,
            pos=pos,
        )
    pattern = carried.this if carried is not None else spec.default or ""
    # where the pattern is written, for a caret at a letter: only if the call found at
    # ``pos`` is this one (a call inside another may be placed on the outer one)
    written = _written_pattern(node, pos, sql)
    at = written[1] if written is not None and written[0] == pattern else -1
    try:
        elements = compile_pattern(pattern, parsing=spec.parsing)
    except PatternRefused as err:
        if at >= 0 and sql.startswith(pattern[: err.offset], at):
            pos = at + err.offset
        raise UnsupportedError(
            f"{what} over values of several rows: {err.why} (pattern {pattern!r})",
            sql=sql,
            pos=pos,
            hint="over values of several rows matchrec formats and parses the pattern "
            "letters y M L d D Q E a H k K h m s S and quoted text (README); format or parse "
            "each row's value where Spark computes it, e.g. in a subquery",
        ) from None
    return spec.build(elements, ansi)


def _check_number_pattern(
    arguments: list[exp.Expression], where: Callable[[exp.Expression], int], sql: str
) -> None:
    """A ``format_number`` pattern that is a literal, checked now: one the glue does not
    compute (DecimalFormat's ``%``, ``E``, quotes, ...) is an error when the query is
    built, the caret at the pattern."""
    pattern = arguments[1] if len(arguments) > 1 else None
    if not (isinstance(pattern, exp.Literal) and pattern.is_string):
        return
    try:
        NumberPattern(pattern.this)
    except ValueError as err:
        raise UnsupportedError(
            f"format_number() over values of several rows: {err}",
            sql=sql,
            pos=where(pattern),
            hint="format each row's value where Spark computes it, or give the number of "
            "fraction digits (format_number(x, 2))",
        ) from None


def _check_regex_call(
    node: exp.Expression,
    name: str,
    arguments: list[exp.Expression],
    where: Callable[[exp.Expression], int],
    sql: str,
) -> None:
    """A regex function's patterns that are literals, translated now (``planner.
    java_regex``): one the glue cannot run exactly, or Java rejects, is an error when
    the query is built, the caret at the construct; ``regexp_replace``'s position must
    be a positive integer literal, as Spark requires."""
    patterns = arguments[1:3] if name == "STR_TO_MAP" else arguments[1:2]
    for arg in patterns:
        if not (isinstance(arg, exp.Literal) and arg.is_string):
            continue
        try:
            translate(arg.this)
        except (RegexRefused, JavaPatternError) as err:
            pos = where(arg)
            # the caret under the construct where the literal's text is the pattern's
            if sql[pos : pos + 1] in ("'", '"') and sql.startswith(arg.this[: err.offset], pos + 1):
                pos += 1 + err.offset
            if isinstance(err, JavaPatternError):
                raise SemanticError(
                    f"invalid regex {arg.this!r}: {err.description} (Java rejects it)",
                    sql=sql,
                    pos=pos,
                ) from None
            raise UnsupportedError(
                f"the regex construct {err.construct} is not computed for values of several rows",
                sql=sql,
                pos=pos,
                hint="over values of several rows matchrec translates Java's regex to "
                "Python's and refuses what it cannot match exactly (README: regex functions "
                "of several rows): rewrite the pattern without it",
            ) from None
    if name == "REGEXP_REPLACE" and len(arguments) > 3:
        position = arguments[3]
        if not (isinstance(position, exp.Literal) and position.is_int and position.to_py() > 0):
            raise SemanticError(
                "the position of regexp_replace() must be a positive integer literal (as "
                "Spark requires)",
                sql=sql,
                pos=where(position),
            )


def glue_function_call(
    node: exp.Expression,
    fn: Callable[..., Any],
    arguments: list[exp.Expression],
    child: Compile,
    where: Callable[[exp.Expression], int],
    sql: str,
    casts_of: tuple[str, bool] | None = None,
    strict: bool = False,
) -> Evaluator:
    """Evaluator of a call of ``fn`` (NULL arguments passed on, as to a UDF, unless
    ``strict``: NULL for a NULL one, the rest unread) whose errors are run-time errors at
    the call; ``casts_of``: the name and ANSI mode of the function whose implicit casts
    Spark applies to the arguments."""
    if casts_of is not None:
        name, ansi = casts_of
        return _cast_call(node, name, fn, strict, arguments, child, where, sql, ansi)
    return _call(node, fn, strict, arguments, child, where, sql)


def _cast_call(
    node: exp.Expression,
    name: str,
    fn: Callable[..., Any],
    strict: bool,
    arguments: list[exp.Expression],
    child: Compile,
    where: Callable[[exp.Expression], int],
    sql: str,
    ansi: bool,
) -> Evaluator:
    """:func:`_call` of function ``name`` with Spark's implicit casts of its arguments
    (``planner.argument_casts``), placed once at the call."""
    pos = where(node)
    casts = argument_casts(name, len(arguments), ansi=ansi, sql=sql, pos=pos)
    return _call(node, fn, strict, arguments, child, lambda _: pos, sql, casts, _READS.get(name))


#: the non-strict functions that read some arguments only, by the values of the ones
#: before (Spark's ``If`` for nvl2 and nullif; ``Elt`` reads none for a NULL index,
#: ``NaNvl`` its second for a NaN first only):
#: what the others give is never read, nor their errors (``nvl2(B.x, arr[0], 1)``)
_READS: dict[str, Callable[[list[Evaluator], MatchContext], list[Any]]] = {
    "NVL2": lambda args, ctx: [
        a := args[0](ctx),
        args[1](ctx) if a is not None else None,
        args[2](ctx) if a is None else None,
    ],
    "NULLIF": lambda args, ctx: [a := args[0](ctx), None if a is None else args[1](ctx)],
    # the second only for a NaN first (or a value read as one, ``'NaN'``)
    "NANVL": lambda args, ctx: [
        a := args[0](ctx),
        None if a is None or (isinstance(a, (int, float, Decimal)) and a == a) else args[1](ctx),
    ],
    "ELT": lambda args, ctx: [
        n := args[0](ctx),
        *(None if n is None else arg(ctx) for arg in args[1:]),
    ],
}


def _call(
    node: exp.Expression,
    fn: Callable[..., Any],
    strict: bool,
    arguments: list[exp.Expression],
    child: Compile,
    where: Callable[[exp.Expression], int],
    sql: str,
    casts: Callable[[list[Any]], list[Any]] | None = None,
    reads: Callable[[list[Evaluator], MatchContext], list[Any]] | None = None,
) -> Evaluator:
    """Evaluator of a function call: ``fn`` over the argument values (``strict``: NULL for
    a NULL argument, the arguments after it unread, as Spark's generated code reads them:
    ``date_add(B.d, arr[0])`` is NULL for a NULL ``B.d`` however short ``arr`` is; else
    those ``reads`` reads, or all), each first cast as ``casts`` says (Spark's implicit
    casts, ``planner.argument_casts``); a value ``fn`` rejects is a run-time error at
    the call."""
    args = [child(a) for a in arguments]
    pos = where(node)
    what = _describe(node, sql, pos).removeprefix("function ")
    name = str(node.this).upper() if isinstance(node, exp.Anonymous) else ""
    hidden = gf.CONTEXT_ARGUMENTS.get(name, ())

    def call(ctx: MatchContext) -> Any:
        if reads is not None:
            vals = reads(args, ctx)
        elif strict:
            vals = []
            for a in args:
                vals.append(a(ctx))
                if vals[-1] is None:
                    vals += [None] * (len(args) - len(vals))
                    break
        else:
            vals = [a(ctx) for a in args]
        try:
            if casts is not None:
                vals = casts(vals)
            if strict and any(v is None for v in vals):
                return None
            return fn(*vals)
        except _REJECTED as err:
            shown = [v for i, v in enumerate(vals) if i not in hidden]
            raise _runtime_error(what, shown, err, sql, pos) from None

    return call


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _describe(node: exp.Expression, sql: str, pos: int) -> str:
    """How a glue node the evaluator does not know is named in an error: a function by
    the name the user wrote (sqlglot's own names, like ``str_to_unix`` for
    ``unix_timestamp``, mean nothing to them)."""
    name = _NODE_NAMES.get(type(node))
    if name:
        return name
    if node.meta.get("written"):  # a split operator (planner.decompose)
        return node.meta["written"]
    if node.meta.get("decomposed"):  # a part of a split call (planner.decompose): its call
        written = _NAME.match(sql, pos)
        if written:
            return f"function {written.group()}()"
    if isinstance(node, exp.Func) and not isinstance(node, (exp.Cast, exp.TryCast)):
        written = _NAME.match(sql, pos)
        if written and sql[written.end() :].lstrip().startswith("("):
            return f"function {written.group()}()"
    if isinstance(node, exp.Anonymous):
        return f"function {node.name}()"
    if isinstance(node, (exp.Cast, exp.TryCast)):
        return "CAST"
    if isinstance(node, exp.Bracket):
        return "subscript [...]"
    if isinstance(node, exp.Func):
        return f"function {node.sql_name().lower()}()"
    if isinstance(node, (exp.Binary, exp.Unary, exp.Predicate)):
        return f"operator {node.key.upper()}"
    text = node.sql()
    return repr(text if len(text) <= 40 else text[:37] + "...")


_NODE_NAMES: dict[type, str] = {
    exp.Dot: "field access (.)",
    exp.BitwiseAnd: "operator &",
    exp.BitwiseOr: "operator |",
    exp.BitwiseXor: "operator ^",
    exp.BitwiseNot: "operator ~",
    exp.Collate: "COLLATE outside a comparison (=, <, IN, ...)",
}


#: the order in which Spark reads a binary operator's operands, where it is not the left
#: one first, stopping at a NULL (``BinaryExpression.eval``: ``B.n * arr[0]`` is NULL for
#: a NULL ``B.n``, however short ``arr`` is): "right" first for a division or remainder
#: (Spark's ``DivModLike``: a NULL divisor, the dividend unread)
_OPERAND_ORDER: dict[type, str] = {exp.Div: "right", exp.IntDiv: "right", exp.Mod: "right"}


def _guarded_binary(
    fn: Callable[[Any, Any], Any],
    left: Evaluator,
    right: Evaluator,
    node: exp.Expression,
    where: Callable[[exp.Expression], int],
    sql: str,
    casts_of: tuple[str, bool] | None = None,
) -> Evaluator:
    """Evaluator of a binary operator; ``casts_of``: the name and ANSI mode of the
    function whose implicit casts Spark applies to the operands (``planner.argument_casts``:
    ``n LIKE '1%'`` of a number reads its text)."""
    op = OPERATORS.get(type(node), node.key.upper())
    pos = where(node.expression) if node.expression is not None else where(node)
    pos = _operator_pos(sql, where(node.this), pos, op)
    casts = None
    if casts_of is not None:
        casts = argument_casts(casts_of[0], 2, ansi=casts_of[1], sql=sql, pos=pos)

    order = _OPERAND_ORDER.get(type(node), "left")

    def evaluate(ctx: MatchContext) -> Any:
        if order == "left":
            a = left(ctx)
            if a is None:
                return None
            b = right(ctx)
        else:
            b = right(ctx)
            if b is None:
                return None
            a = left(ctx)
        try:
            if casts is not None:
                a, b = casts([a, b])
            return fn(a, b)
        except _REJECTED as err:
            raise _runtime_error(op, [a, b], err, sql, pos) from None

    return evaluate


OPERATORS: dict[type, str] = {
    exp.Add: "+",
    exp.Sub: "-",
    exp.Mul: "*",
    exp.Div: "/",
    exp.IntDiv: "DIV",
    exp.Mod: "%",
    exp.EQ: "=",
    exp.NEQ: "<>",
    exp.LT: "<",
    exp.LTE: "<=",
    exp.GT: ">",
    exp.GTE: ">=",
    exp.DPipe: "||",
    exp.Like: "LIKE",
    exp.ILike: "ILIKE",
    exp.RegexpLike: "RLIKE",
}


def _operator_pos(sql: str, left: int, right: int, op: str) -> int:
    """Offset of operator ``op`` between its operands (falls back to the left operand)."""
    spellings = {"<>": ("<>", "!="), "=": ("==", "=")}.get(op, (op,))
    for spelling in spellings:
        i = sql.upper().rfind(spelling.upper(), left, right)
        if i >= 0:
            return i
    return left


#: a glue function's error in Spark's words: ``[CONDITION] message``
_SPARK_MESSAGE = re.compile(r"\[_?[A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*\] ")
#: how a glue function's error names the condition Spark raises for it
_SPARK_CONDITION = re.compile(r"(?:Spark's |\()([A-Z][A-Z0-9]*_[A-Z0-9_]*(?:\.[A-Z0-9_]+)*)")

#: Spark's name of the type of a Python value, for a message (the first that fits)
_SQL_KINDS: list[tuple[type | tuple[type, ...], str]] = [
    (bool, "BOOLEAN"),
    (int, "INT"),
    (Float32, "FLOAT"),
    (float, "DOUBLE"),
    (Decimal, "DECIMAL"),
    (str, "STRING"),
    ((bytes, bytearray), "BINARY"),
    ((datetime, FarTimestamp), "TIMESTAMP"),
    ((date, FarDate), "DATE"),
    ((timedelta, CalendarInterval), "INTERVAL"),
    (list, "ARRAY"),
    (dict, "MAP"),
    (tuple, "STRUCT"),
]


def _sql_kind(v: Any) -> str:
    if v is None:
        return "NULL"
    kind = next((name for cls, name in _SQL_KINDS if isinstance(v, cls)), type(v).__name__)
    if kind == "INT" and not -(2**31) <= v < 2**31:
        return "BIGINT"
    return kind


def _shown(v: Any) -> str:
    """A value as SQL writes it (``'b'``, ``ARRAY(1, 2)``, ``map('x', 1)``), for a message."""
    if isinstance(v, StructFields):
        v = tuple(v.values())
    if isinstance(v, dict):
        return "map(" + ", ".join(f"{_shown(k)}, {_shown(x)}" for k, x in v.items()) + ")"
    if isinstance(v, tuple):
        return "struct(" + ", ".join(_shown(x) for x in v) + ")"
    if isinstance(v, CalendarInterval):
        return f"INTERVAL '{v}'"
    try:
        return sql_literal(v)
    except TypeError:
        return repr(v)


#: what a glue function raises for a value it rejects (and, as a last resort, one it does
#: not compute: NotImplementedError): a run-time error at the call, never a traceback
_REJECTED = (TypeError, ValueError, ArithmeticError, NotImplementedError)


def _runtime_error(
    what: str, values: list[Any], err: Exception, sql: str, pos: int
) -> MatchRuntimeError:
    if isinstance(err, DivisionByZero):  # Spark's words for it
        return MatchRuntimeError(str(err), sql=sql, pos=pos)
    far = next((v for v in values if isinstance(v, (FarDate, FarTimestamp))), None)
    if isinstance(err, TypeError) and far is not None:  # a type check the far value failed
        err = far_refusal(far)
    if isinstance(err, FarCalendar):
        return MatchRuntimeError(f"{what}: {err}", sql=sql, pos=pos, hint=FAR_HINT)
    if isinstance(err, ValueError) and _SPARK_MESSAGE.match(str(err)):  # Spark's own words
        return MatchRuntimeError(str(err), sql=sql, pos=pos)
    condition = _SPARK_CONDITION.search(str(err))
    if condition is not None and not isinstance(err, TypeError):  # in Spark's terms
        return MatchRuntimeError(f"[{condition.group(1)}] {what}: {err}", sql=sql, pos=pos)
    shown = ", ".join(f"{_shown(v)} ({_sql_kind(v)})" for v in values)
    return MatchRuntimeError(
        f"could not apply {what}{' to ' + shown if values else ''}: {err}",
        sql=sql,
        pos=pos,
        hint="the values have types that do not fit; CAST inside the navigation, "
        "e.g. PREV(CAST(x AS DOUBLE))"
        if isinstance(err, TypeError)
        else None,
    )


def guarded(evaluate: Evaluator, what: str, sql: str, pos: int) -> Evaluator:
    """``evaluate`` with a value it rejects told as :func:`_call` tells it, at ``pos``
    (a higher-order function's own errors: a repeated key of ``transform_keys``)."""

    def run(ctx: MatchContext) -> Any:
        try:
            return evaluate(ctx)
        except _REJECTED as err:
            raise _runtime_error(what, [], err, sql, pos) from None

    return run


def call_args(node: exp.Expression) -> list[exp.Expression]:
    """The arguments of a function call node, whether sqlglot typed it or not."""
    if isinstance(node, exp.Anonymous):
        return list(node.expressions)
    args = [node.this] if node.args.get("this") is not None else []
    for key in ("expression", "decimals", "digits"):
        if node.args.get(key) is not None:
            args.append(node.args[key])
    args.extend(node.expressions)
    return args


def _literal(node: exp.Literal) -> Any:
    if node.is_string:
        return node.this
    text = node.this
    if any(c in text for c in ".eE"):
        if "e" in text.lower():
            return float(text)
        return Decimal(text)
    return int(text)


def _parameter_field(node: exp.Dot) -> bool:
    """Whether ``node`` reads a field of a lambda's parameter, through nested structs
    (sqlglot's Dots of identifiers, the parameter's innermost)."""
    while isinstance(node, exp.Dot) and isinstance(node.expression, exp.Identifier):
        node = node.this
    return isinstance(node, exp.Identifier)


def _is_boolean(node: exp.Expression, value: bool) -> bool:
    """Whether ``node`` is the literal TRUE (``value``) or FALSE, in parentheses or not."""
    while isinstance(node, exp.Paren):
        node = node.this
    return isinstance(node, exp.Boolean) and bool(node.this) is value


def _and(left: Evaluator, right: Evaluator, ctx: MatchContext) -> Any:
    a = left(ctx)
    if a is False:
        return False
    b = right(ctx)
    if b is False:
        return False
    if a is None or b is None:
        return None
    return True


def _or(left: Evaluator, right: Evaluator, ctx: MatchContext) -> Any:
    a = left(ctx)
    if a is True:
        return True
    b = right(ctx)
    if b is True:
        return True
    if a is None or b is None:
        return None
    return False


def _in(needle: Any, options: Iterator[Any]) -> Any:
    """``needle IN (...)`` as Spark's ``In`` reads it: no option for a NULL needle, none
    after the first equal one (an option that would fail there is never computed)."""
    if needle is None:
        return None
    saw_null = False
    for o in options:
        if o is None:
            saw_null = True
        elif _BINARY[exp.EQ](needle, o):
            return True
    return None if saw_null else False


def _case(node: exp.Case, child: Compile) -> Evaluator:
    subject = child(node.this) if node.args.get("this") is not None else None
    branches = [(child(i.this), child(i.args["true"])) for i in node.args.get("ifs", [])]
    default = child(node.args["default"]) if node.args.get("default") is not None else None

    def evaluate(ctx: MatchContext) -> Any:
        s = subject(ctx) if subject else None
        if subject and s is None:  # Spark's x = a of each WHEN reads no a for a NULL x
            return default(ctx) if default else None
        for cond, then in branches:
            c = cond(ctx)
            hit = _BINARY[exp.EQ](s, c) if subject else c
            if hit is True:
                return then(ctx)
        return default(ctx) if default else None

    return evaluate
