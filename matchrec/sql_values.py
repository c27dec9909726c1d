"""Python values as Spark SQL writes them (``CAST(v AS STRING)``).

Shared by the planner's glue evaluator (``concat``, ``||``) and the aggregates of
:mod:`matchrec.navigation` (``listagg``), so both turn a double, a date or a boolean
into the text Spark would.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from datetime import date, datetime
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Context, Decimal
from typing import Any

from matchrec.java_doubles import java_double_text

#: Decimal arithmetic wide enough for Spark's DECIMAL(38, s) values and their sums
#: (Python's default context keeps 28 digits, then rounds or raises), rounding half up as
#: Spark's decimals do
WIDE_DECIMALS = Context(prec=100, rounding=ROUND_HALF_UP)


#: Spark's largest array (``ByteArrayMethods.MAX_ROUNDED_ARRAY_LENGTH``)
MAX_ARRAY_LENGTH = 2**31 - 1 - 15


class Float32(float):
    """A FLOAT value (Spark's 32-bit float), which Python holds in a double: the class
    tells what reads it that Spark writes it as Java's ``Float.toString`` (``0.1``, not
    the double's ``0.10000000149011612``), names it FLOAT and hashes it as a Float.
    Arithmetic on it gives plain doubles; the glue rounds results Spark types FLOAT back
    (``matchrec.integer_width``)."""

    __slots__ = ()


def to_float32(x: float) -> Float32:
    """``x`` rounded to the nearest FLOAT, as Java's ``(float) d`` (infinite beyond its
    range, NaN kept)."""
    try:
        return Float32(struct.unpack("f", struct.pack("f", x))[0])
    except OverflowError:
        return Float32(math.copysign(math.inf, x))


def double_text(x: float) -> str:
    """Java 17's ``Double.toString``, which Spark uses for CAST(double AS STRING). Written
    in E notation (below 10^-3, from 10^7 on) its digits are not always the shortest
    (``9.999999999999999E22`` for 1e23): :func:`matchrec.java_doubles.java_double_text`
    computes them; plain, it writes the shortest digits, as Python's ``repr`` does."""
    if math.isfinite(x) and x != 0 and not 1e-3 <= abs(x) < 1e7:
        return java_double_text(x)
    return _java_text(x, repr)


def float_text(x: float) -> str:
    """Java's ``Float.toString`` of the FLOAT ``x``, which Spark uses for CAST(float AS
    STRING): the fewest digits that read back as the same FLOAT (``-12.9``, where the
    double it is held in writes -12.899999618530273), as Java 19 and later write it
    (Java 17 writes a digit more for a few values: 2.14748365E9 for 2.1474836E9)."""
    return _java_text(x, _shortest_float32)


def _shortest_float32(x: float) -> str:
    for digits in range(1, 10):
        text = f"{x:.{digits}g}"
        if struct.unpack("f", struct.pack("f", float(text)))[0] == x:
            return text
    return repr(x)


def _java_text(x: float, shortest: Callable[[float], str]) -> str:
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    if 1e-3 <= abs(x) < 1e7:
        text = format(Decimal(shortest(x)), "f")
        return text if "." in text else text + ".0"
    short = Decimal(shortest(x))
    sign, digits, exponent = short.as_tuple()
    if len(digits) == 1:
        # Java writes two digits at least: the value rounded one digit below the shortest
        # one's, which differ for a subnormal (Double.MIN_VALUE is 4.9E-324, not 5.0E-324;
        # twice it 1.0E-323)
        step = Decimal(1).scaleb(short.adjusted() - 1)
        sign, digits, exponent = Decimal(x).quantize(step, ROUND_HALF_EVEN).as_tuple()
    mantissa = "".join(map(str, digits)).rstrip("0") or "0"
    power = exponent + len(digits) - 1
    head, tail = mantissa[0], mantissa[1:] or "0"
    return f"{'-' if sign else ''}{head}.{tail}E{power}"


def to_text(v: Any, plain_decimals: bool = True) -> str:
    """``CAST(v AS STRING)`` as Spark writes it. A DECIMAL's digits are plain under ANSI
    mode; without it (``plain_decimals=False``) Spark writes Java's
    ``BigDecimal.toString``, with an exponent below 10^-6 (``-3.75000E-8``, ``0E-13``),
    the rule Python's ``str`` of a Decimal follows too."""
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return float_text(v) if type(v) is Float32 else double_text(v)
    if isinstance(v, Decimal):
        v = v.copy_abs() if v.is_zero() else v  # Java's BigDecimal has no -0
        return format(v, "f") if plain_decimals else str(v)
    if isinstance(v, datetime):
        text = v.strftime("%Y-%m-%d %H:%M:%S")
        return text + (f".{v.microsecond:06d}".rstrip("0") if v.microsecond else "")
    if isinstance(v, date):
        return v.isoformat()
    if isinstance(v, (bytes, bytearray)):  # Spark decodes UTF-8, a bad byte as U+FFFD
        return bytes(v).decode("utf-8", errors="replace")
    if isinstance(v, (list, tuple)):  # an array; a tuple is a struct: {a, b}
        inner = ", ".join("null" if x is None else to_text(x, plain_decimals) for x in v)
        return f"{{{inner}}}" if isinstance(v, tuple) else f"[{inner}]"
    if isinstance(v, dict):  # a map: {k1 -> v1, k2 -> null}
        pairs = (
            f"{to_text(k, plain_decimals)} -> {'null' if x is None else to_text(x, plain_decimals)}"
            for k, x in v.items()
        )
        return "{" + ", ".join(pairs) + "}"
    return str(v)
