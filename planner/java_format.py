"""Spark's ``format_string``/``printf`` in Python, for values of several rows.

Spark formats with Java's ``java.util.Formatter`` (``Locale.US``) over the objects it holds
each value in, not over SQL values: an INT is an ``Integer``, a BIGINT a ``Long``, a DATE
the ``Integer`` of its day number, a TIMESTAMP the ``Long`` of its microseconds, a DECIMAL
Spark's own ``Decimal`` and a STRING a ``UTF8String``. So ``%.2f`` of a DOUBLE is
``1.01`` for 1.005 (Java rounds the shortest decimal digits half up), ``%x`` of an INT -1
is ``ffffffff`` and of a TINYINT ``ff``, and ``%.2f`` of a DECIMAL or of an INT fails
(``f != org.apache.spark.sql.types.Decimal``), as in Spark. Each argument therefore comes
with its Spark type.

Computed: ``%s %S %b %B %c %C %d %o %x %X %e %E %f %g %G %h %H %% %n`` with Java's flags
(``-#+ 0,(``), width, precision and argument indexes (``%2$s``, ``%<s``). Not computed
(:func:`pattern_error` says so when the query is built): ``%t``/``%T`` dates (Spark hands
them a number), ``%a`` (hexadecimal floats). Patterns Java rejects whatever the values
(an unknown conversion, flags a conversion does not take) are reported the same way.
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import ROUND_HALF_UP, Context, Decimal
from typing import Any

from sqlglot import exp

from matchrec.java_doubles import java_double_text
from matchrec.murmur3 import Murmur3
from matchrec.sql_values import double_text, float_text, to_float32, to_text, utf8_bytes

from .function_types import day_time_span, is_year_month
from .hash_functions import timestamp_micros

T = exp.DataType.Type
_WIDE = Context(prec=2000)
_EPOCH_DAY = date(1970, 1, 1)

_SPEC = re.compile(r"%(\d+\$)?([-#+ 0,(<]*)(\d+)?(\.\d+)?([tT])?([a-zA-Z%])")

#: Java's flags each conversion refuses whatever its argument (``checkBadFlags``)
_BAD_FLAGS: dict[str, str] = {
    "s": "+ 0,(",
    "b": "#+ 0,(",
    "h": "#+ 0,(",
    "c": "#+ 0,(",
    "d": "#",
    "o": ",",
    "x": ",",
    "e": ",",
    "f": "",
    "g": "#",
    "%": "#+ 0,(",
    "n": "-#+ 0,(",
}
_INTEGRAL = "dox"
_FLOATING = "efg"
_NOT_COMPUTED = {
    "a": "%a (a hexadecimal floating-point number)",
    "t": "%t (Spark hands a date or time to the formatter as a number)",
}


class FormatError(ValueError):
    """A pattern or an argument Java's formatter rejects (Spark's error at run time)."""


class NotComputed(FormatError):
    """A specifier Spark computes that is not computed here."""


@dataclass(frozen=True)
class Spec:
    """One ``%`` specifier of a pattern."""

    start: int
    end: int
    index: int | None  # 1-based explicit index; 0: ordinary; -1: ``<`` (the previous)
    flags: str
    width: int | None
    precision: int | None
    conversion: str  # lower case
    upper: bool

    @property
    def text(self) -> str:
        return "%" + ("<" if self.index == -1 else "") + self.flags + self.conversion


def parse(pattern: str) -> list[Spec | str]:
    """``pattern`` as literal text and specifiers; a malformed specifier raises
    :class:`FormatError` with Java's words, its offset in ``.offset``."""
    items: list[Spec | str] = []
    last = 0
    for at in _percents(pattern):
        if at < last:
            continue
        m = _SPEC.match(pattern, at)
        if m is None:
            raise _error(f"unknown format conversion '{pattern[at + 1 : at + 2] or '%'}'", at)
        items.append(pattern[last:at])
        items.append(_spec(m))
        last = m.end()
    items.append(pattern[last:])
    return [item for item in items if item != ""]


def _percents(pattern: str) -> list[int]:
    return [i for i, ch in enumerate(pattern) if ch == "%"]


def _error(message: str, offset: int, kind: type[FormatError] = FormatError) -> FormatError:
    err = kind(message)
    err.offset = offset  # type: ignore[attr-defined]
    return err


def _spec(m: re.Match[str]) -> Spec:
    explicit, flags, width, precision, time, conversion = m.groups()
    at = m.start()
    if time:
        raise _error(f"{_NOT_COMPUTED['t']} is not computed here", at, NotComputed)
    lower = conversion.lower()
    if lower == "a":
        raise _error(f"{_NOT_COMPUTED['a']} is not computed here", at, NotComputed)
    if lower not in _BAD_FLAGS or (conversion.isupper() and lower in "dofn%"):
        raise _error(
            f"unknown format conversion '{conversion}' (Java's UnknownFormatConversionException)",
            at,
        )
    relative = "<" in flags
    flags = flags.replace("<", "")
    if len(set(flags)) != len(flags):
        raise _error(f"the flags '{flags}' repeat one (Java's DuplicateFormatFlagsException)", at)
    index = -1 if relative else int(explicit[:-1]) if explicit else 0
    if explicit and index == 0:
        raise _error("argument indexes start at 1 (Spark's INVALID_PARAMETER_VALUE.ZERO_INDEX)", at)
    spec = Spec(
        start=at,
        end=m.end(),
        index=None if lower in "%n" else index,
        flags=flags,
        width=int(width) if width else None,
        precision=int(precision[1:]) if precision else None,
        conversion=lower,
        upper=conversion.isupper(),
    )
    _check(spec)
    return spec


def _check(spec: Spec) -> None:
    """Java's checks of a specifier that do not depend on its argument."""
    c, flags = spec.conversion, spec.flags
    bad = [f for f in flags if f in _BAD_FLAGS[c]]
    if bad:
        raise _error(
            f"%{c} does not take the flag '{bad[0]}' (Java's "
            "FormatFlagsConversionMismatchException)",
            spec.start,
        )
    if spec.precision is not None and c in "cdox%n":
        raise _error(
            f"%{c} takes no precision (Java's IllegalFormatPrecisionException)", spec.start
        )
    if c == "n" and spec.width is not None:
        raise _error("%n takes no width (Java's IllegalFormatWidthException)", spec.start)
    if ("-" in flags or "0" in flags) and spec.width is None:
        raise _error(
            f"the flag '{'-' if '-' in flags else '0'}' needs a width (Java's "
            "MissingFormatWidthException)",
            spec.start,
        )
    if ("+" in flags and " " in flags) or ("-" in flags and "0" in flags):
        raise _error(
            f"the flags '{flags}' exclude each other (Java's IllegalFormatFlagsException)",
            spec.start,
        )


def pattern_error(pattern: str) -> FormatError | None:
    """The error of the first specifier of ``pattern`` that fails whatever the values
    (a :class:`NotComputed` for one not computed here), its offset in ``.offset``; None
    when every one is computed."""
    try:
        parse(pattern)
    except FormatError as err:
        return err
    return None


def _with_arguments(items: list[Spec | str]) -> list[tuple[Spec | str, int]]:
    """Each item of a parsed pattern with the 0-based argument it formats (-1 for text,
    ``%n`` and ``%%``), as Java counts: ordinary specifiers in turn, ``%2$s`` the second,
    ``%<s`` the one before (an explicit index does not move the ordinary count)."""
    out: list[tuple[Spec | str, int]] = []
    ordinary, last = -1, -1
    for item in items:
        if isinstance(item, str) or item.index is None:
            out.append((item, -1))
            continue
        if item.index == 0:
            ordinary += 1
            last = ordinary
        elif item.index > 0:
            last = item.index - 1
        out.append((item, last))
    return out


def missing_argument(pattern: str, count: int) -> FormatError | None:
    """The error of the first specifier of a well-formed ``pattern`` that reads past
    ``count`` arguments (Java's MissingFormatArgumentException, for every value), its
    offset in ``.offset``; None when each reads one."""
    for item, at in _with_arguments(parse(pattern)):
        if isinstance(item, Spec) and item.index is not None and not 0 <= at < count:
            return _error(_missing(item), item.start)
    return None


def _missing(spec: Spec) -> str:
    return f"format specifier '{spec.text}' has no argument (Java's MissingFormatArgumentException)"


# ------------------------------------------------------------------ the objects Java sees


@dataclass(frozen=True)
class JavaValue:
    """What Spark hands the formatter for one value: ``kind`` is one of int, float,
    decimal, string, boolean, other; ``bits`` an integer's width; ``name`` the Java class
    (for Java's conversion error)."""

    value: Any
    kind: str
    bits: int = 0
    name: str = ""
    single: bool = False  # a FLOAT (Float.toString)


_INTEGERS = {
    T.TINYINT: (8, "java.lang.Byte"),
    T.SMALLINT: (16, "java.lang.Short"),
    T.INT: (32, "java.lang.Integer"),
    T.BIGINT: (64, "java.lang.Long"),
    T.DATE: (32, "java.lang.Integer"),
    T.TIMESTAMP: (64, "java.lang.Long"),
    T.TIMESTAMPTZ: (64, "java.lang.Long"),
    T.TIMESTAMPLTZ: (64, "java.lang.Long"),
    T.TIMESTAMPNTZ: (64, "java.lang.Long"),
}
_UTF8 = "org.apache.spark.unsafe.types.UTF8String"
#: the kind and Java class of the object Spark holds a value of each other type in
_OBJECTS: dict[Any, tuple[str, str]] = {
    T.FLOAT: ("float", "java.lang.Float"),
    T.DOUBLE: ("float", "java.lang.Double"),
    T.DECIMAL: ("decimal", "org.apache.spark.sql.types.Decimal"),
    T.TEXT: ("string", _UTF8),
    T.VARCHAR: ("string", _UTF8),
    T.CHAR: ("string", _UTF8),
    T.BOOLEAN: ("boolean", "java.lang.Boolean"),
}


def java_value(v: Any, t: exp.DataType) -> JavaValue:
    """``v`` (a SQL value of Spark type ``t``) as the object Spark formats."""
    if is_year_month(t):
        bits, name = 32, "java.lang.Integer"
    elif day_time_span(t) is not None:
        bits, name = 64, "java.lang.Long"
    else:
        bits, name = _INTEGERS.get(t.this, (0, ""))
    if bits:
        return JavaValue(None if v is None else _as_long(v), "int", bits, name)
    kind, name = _OBJECTS.get(t.this, ("other", t.sql("spark").upper()))
    single = t.this == T.FLOAT
    value = _scaled(v, t) if kind == "decimal" else _float32(v) if single else v
    return JavaValue(value, kind, name=name, single=single)


def _float32(v: Any) -> Any:
    """A FLOAT's value as Java's Float holds it (the glue may carry more precision)."""
    return to_float32(v) if isinstance(v, float) and math.isfinite(v) else v


def _scaled(v: Any, t: exp.DataType) -> Any:
    """A DECIMAL with its type's scale (``BigDecimal.toString`` writes the scale)."""
    params = t.expressions
    if not isinstance(v, Decimal) or len(params) < 2 or not v.is_finite():
        return v
    return v.quantize(Decimal(1).scaleb(-int(params[1].this.this)), context=_WIDE)


def _as_long(v: Any) -> int:
    """The integer Spark holds a value in: a DATE's day number, a TIMESTAMP's (or a
    day-time interval's) microseconds."""
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int):
        return v
    if isinstance(v, datetime):
        return timestamp_micros(v)
    if isinstance(v, date):
        return (v - _EPOCH_DAY).days
    if isinstance(v, timedelta):
        return v // timedelta(microseconds=1)
    raise TypeError(f"{v!r} is not held as an integer")


# ------------------------------------------------------------------ formatting


def format_typed(typed: list[tuple[Any, exp.DataType]]) -> str | None:
    """``format_string(pattern, args...)`` over (value, Spark type) pairs, the pattern
    first: Java's formatter as Spark calls it; NULL for a NULL pattern."""
    pattern = typed[0][0] if typed else None
    if pattern is None:
        return None
    args = [java_value(v, t) for v, t in typed[1:]]
    out: list[str] = []
    for item, at in _with_arguments(parse(pattern)):
        if isinstance(item, str):
            out.append(item)
        elif item.index is None:
            out.append(_text_spec(item))
        elif not 0 <= at < len(args):
            raise FormatError(_missing(item))
        else:
            out.append(_justified(item, _formatted(item, args[at])))
    return "".join(out)


def _text_spec(spec: Spec) -> str:
    return "\n" if spec.conversion == "n" else _justified(spec, "%")


def _utf16_length(text: str) -> int:
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def _justified(spec: Spec, text: str) -> str:
    """``text`` padded with spaces to the width, which Java counts in UTF-16 units."""
    if spec.width is None:
        return text
    pad = " " * max(spec.width - _utf16_length(text), 0)
    return text + pad if "-" in spec.flags else pad + text


def _truncated(text: str, units: int) -> str:
    """Java's ``substring(0, units)`` (UTF-16 units; a half of a pair becomes '?', as
    Java encodes it in UTF-8)."""
    if _utf16_length(text) <= units:
        return text
    data = text.encode("utf-16-le", "surrogatepass")[: 2 * units]
    cut = data.decode("utf-16-le", "surrogatepass")
    return "".join("?" if 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in cut)


def _mismatch(spec: Spec, arg: JavaValue) -> FormatError:
    return FormatError(
        f"%{spec.conversion} cannot format {arg.name} (Java's "
        f"IllegalFormatConversionException: {spec.conversion} != {arg.name})"
    )


def _formatted(spec: Spec, arg: JavaValue) -> str:
    c = spec.conversion
    if c == "b":
        text = (
            "false"
            if arg.value is None
            else _general_text(arg)
            if arg.kind == "boolean"
            else "true"
        )
        return _general(spec, text)
    if arg.value is None:
        return _general(spec, "null")
    if not _accepts(c, arg):
        raise _mismatch(spec, arg)
    if c == "s":
        return _general(spec, _general_text(arg))
    if c == "h":
        return _general(spec, format(_hash_code(arg) & 0xFFFFFFFF, "x"))
    if c == "c":
        return _character(spec, arg.value)
    if c in _INTEGRAL:
        return _integral(spec, arg)
    return _floating(spec, arg.value)


def _accepts(conversion: str, arg: JavaValue) -> bool:
    """Whether Java's ``conversion`` takes the object ``arg`` (a non-NULL one: Java
    writes NULL as ``null`` for any conversion)."""
    if conversion in "bsh":
        return True
    if conversion == "c":
        return arg.kind == "int" and arg.bits <= 32
    if conversion in _INTEGRAL:
        return arg.kind == "int"
    return arg.kind == "float"


def conversion_error(pattern: str, types: list[exp.DataType]) -> FormatError | None:
    """The error of the first specifier of ``pattern`` that Java refuses for the object
    Spark holds its argument's type in (``%d`` of a DOUBLE, ``%.2f`` of a DECIMAL or an
    INT: IllegalFormatConversionException for every value but NULL), with the index of
    that argument in ``.argument`` and the conversion in ``.conversion``; None when each
    conversion takes its argument's type, or for a pattern this module does not read
    (``%t``: :func:`pattern_error`)."""
    try:
        items = _with_arguments(parse(pattern))
    except FormatError:
        return None
    for item, at in items:
        if isinstance(item, Spec) and item.index is not None and 0 <= at < len(types):
            if types[at].this == T.NULL:
                continue  # a NULL literal: Java writes null for any conversion
            arg = java_value(None, types[at])
            if not _accepts(item.conversion, arg):
                err = _error(str(_mismatch(item, arg)), item.start)
                err.argument = at  # type: ignore[attr-defined]
                err.conversion = item.conversion  # type: ignore[attr-defined]
                return err
    return None


def _general(spec: Spec, text: str) -> str:
    if spec.precision is not None:
        text = _truncated(text, spec.precision)
    return text.upper() if spec.upper else text


def _general_text(arg: JavaValue) -> str:
    """``toString`` of the object Spark holds the value in."""
    v = arg.value
    if arg.kind == "int":
        return str(v)
    if arg.kind == "float":
        return float_text(v) if arg.single else double_text(v)
    if arg.kind in ("string", "boolean", "decimal"):
        return to_text(v, plain_decimals=False)
    raise TypeError(f"Spark formats {arg.name} values as its internal objects: not computed here")


def _hash_code(arg: JavaValue) -> int:
    """Java's ``hashCode`` of the object Spark holds the value in."""
    v = arg.value
    if arg.kind == "int":
        if arg.bits <= 32:
            return v
        return (v ^ ((v % 2**64) >> 32)) & 0xFFFFFFFF
    if arg.kind == "boolean":
        return 1231 if v else 1237
    if arg.kind == "string":
        return Murmur3.data(utf8_bytes(v), 42)
    if arg.kind == "float":
        if arg.single:
            return struct.unpack(">I", struct.pack(">f", math.nan if math.isnan(v) else v))[0]
        bits = struct.unpack(">Q", struct.pack(">d", math.nan if math.isnan(v) else v))[0]
        return (bits ^ (bits >> 32)) & 0xFFFFFFFF
    raise TypeError(f"%h of {arg.name} values is not computed here")


def _character(spec: Spec, code: int) -> str:
    if not 0 <= code <= 0x10FFFF:
        raise FormatError(
            f"{code} is no Unicode code point (Java's IllegalFormatCodePointException)"
        )
    return _general(spec, chr(code))


def _sign(negative: bool, flags: str) -> tuple[str, str]:
    if negative:
        return ("(", ")") if "(" in flags else ("-", "")
    return ("+" if "+" in flags else " " if " " in flags else "", "")


def _grouped(digits: str) -> str:
    whole, dot, fraction = digits.partition(".")
    head = len(whole) % 3 or 3
    groups = [whole[:head]] + [whole[i : i + 3] for i in range(head, len(whole), 3)]
    return ",".join(groups) + dot + fraction


def _magnitude(spec: Spec, digits: str, negative: bool, tail: str = "") -> str:
    """Sign, digits (grouped with ','), zeros after the sign up to the width with '0',
    as Java's ``localizedMagnitude``."""
    lead, trail = _sign(negative, spec.flags)
    if "," in spec.flags:
        digits = _grouped(digits)
    if "0" in spec.flags and spec.width is not None:
        room = spec.width - len(lead) - len(trail) - len(tail)
        digits = digits.rjust(room, "0")
    return lead + digits + tail + trail


def _integral(spec: Spec, arg: JavaValue) -> str:
    v = arg.value
    if spec.conversion == "d":
        text = _magnitude(spec, str(abs(v)), v < 0)
        return text.upper() if spec.upper else text
    if "+" in spec.flags or " " in spec.flags or "(" in spec.flags:
        flag = next(f for f in "+ (" if f in spec.flags)
        raise FormatError(
            f"%{spec.conversion} of {arg.name} does not take the flag '{flag}' (Java's "
            "FormatFlagsConversionMismatchException)"
        )
    if v < 0:
        v += 1 << arg.bits
    digits = format(v, "o" if spec.conversion == "o" else "x")
    prefix = ("0" if spec.conversion == "o" else "0x") if "#" in spec.flags else ""
    if "0" in spec.flags and spec.width is not None:
        digits = digits.rjust(spec.width - len(prefix), "0")
    text = prefix + digits
    return text.upper() if spec.upper else text


def _floating(spec: Spec, v: float) -> str:
    if math.isnan(v):
        return "NAN" if spec.upper else "NaN"
    negative = v < 0 or (v == 0 and math.copysign(1.0, v) < 0)
    if math.isinf(v):
        lead, trail = _sign(negative, spec.flags)
        return lead + ("INFINITY" if spec.upper else "Infinity") + trail
    # Java's Formatter starts from FloatingDecimal's digits (Java 17's Double.toString),
    # not the shortest that read back: 4.9E-324, not 5e-324 (then 4.900000e-324)
    shortest = Decimal(java_double_text(abs(v)))
    c = spec.conversion
    precision = 6 if spec.precision is None else spec.precision
    if c == "f":
        digits = _fixed(shortest, precision, "#" in spec.flags)
        text = _magnitude(spec, digits, negative)
    elif c == "e":
        mantissa, exponent = _scientific(shortest, precision, "#" in spec.flags)
        text = _magnitude(spec, mantissa, negative, exponent)
    else:
        text = _general_float(spec, shortest, max(precision, 1), negative)
    return text.upper() if spec.upper else text


def _fixed(x: Decimal, places: int, point: bool) -> str:
    q = x.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP, context=_WIDE)
    text = f"{q:f}"
    return text + "." if point and places == 0 else text


def _scientific(x: Decimal, places: int, point: bool) -> tuple[str, str]:
    """Mantissa ``d.ddd`` (``places`` digits after the point, rounded half up) and Java's
    exponent ``e+NN``."""
    if x.is_zero():
        exponent = 0
        mantissa = Decimal(0).quantize(Decimal(1).scaleb(-places))
    else:
        exponent = x.adjusted()
        mantissa = x.scaleb(-exponent).quantize(
            Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP, context=_WIDE
        )
        if mantissa >= 10:
            exponent += 1
            mantissa = x.scaleb(-exponent).quantize(
                Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP, context=_WIDE
            )
    text = f"{mantissa:f}"
    if point and places == 0:
        text += "."
    return text, f"e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"


def _general_float(spec: Spec, x: Decimal, precision: int, negative: bool) -> str:
    """Java's ``%g``: ``precision`` significant digits, in decimal form when the rounded
    value is at least 10^-4 and below 10^precision, else scientific; zeros kept."""
    if x.is_zero():
        exponent = 0
    else:
        rounded = x.quantize(
            Decimal(1).scaleb(x.adjusted() - precision + 1), rounding=ROUND_HALF_UP, context=_WIDE
        )
        exponent = rounded.adjusted()
    if -4 <= exponent < precision:
        return _magnitude(spec, _fixed(x, precision - 1 - exponent, False), negative)
    mantissa, tail = _scientific(x, precision - 1, False)
    return _magnitude(spec, mantissa, negative, tail)


#: name -> the formatter over (value, Spark type) pairs
FORMATTERS: dict[str, Callable[[list[tuple[Any, exp.DataType]]], Any]] = {
    "FORMAT_STRING": format_typed,
    "PRINTF": format_typed,
}
