"""Python values as Spark SQL writes them (``CAST(v AS STRING)``).

Shared by the planner's glue evaluator (``concat``, ``||``) and the aggregates of
:mod:`matchrec.navigation` (``listagg``), so both turn a double, a date or a boolean
into the text Spark would.
"""

from __future__ import annotations

import functools
import math
import re
import struct
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timezone
from decimal import ROUND_HALF_UP, Context, Decimal, localcontext
from typing import Any, TypeVar

from matchrec.far_dates import FarDate
from matchrec.far_timestamps import FarTimestamp
from matchrec.java_doubles import java_double_text, java_float_text

#: Decimal arithmetic wide enough for Spark's DECIMAL(38, s) values and their sums
#: (Python's default context keeps 28 digits, then rounds or raises), rounding half up as
#: Spark's decimals do
WIDE_DECIMALS = Context(prec=100, rounding=ROUND_HALF_UP)

#: the context the evaluator of several rows computes in: Python's default (rounding
#: half even where a call does not say otherwise) with room for Spark's 38 digits, whose
#: products and quotients the default's 28 digits rounded or refused (``abs``, ``%``,
#: ``format_number`` of a DECIMAL(38, 6))
_EVALUATOR_DECIMALS = Context(prec=100)

_Call = TypeVar("_Call", bound=Callable[..., Any])


def unsigned_zero(value: Decimal) -> Decimal:
    """``value`` with the sign of a zero dropped: Spark's DECIMAL (Java's BigDecimal) has
    no negative zero, where Python's keeps one (``-0.00004 * 0``, ``-0.4`` rounded)."""
    return value.copy_abs() if value.is_zero() else value


def with_wide_decimals(fn: _Call) -> _Call:
    """``fn``, run with Python's decimal context wide enough for Spark's DECIMALs: each
    entry of the matcher that evaluates DEFINE's glue or MEASURES is one."""

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        with localcontext(_EVALUATOR_DECIMALS):
            return fn(*args, **kwargs)

    return run  # type: ignore[return-value]


def leaves_mapped(value: Any, fn: Callable[[Any], Any]) -> Any:
    """``value``, a Python value of Spark's (an array a list, a struct a tuple or a dict,
    a map a dict), with ``fn`` applied to each value inside it that is none of those (a
    struct's field names kept, and its class)."""
    if isinstance(value, list):
        return [leaves_mapped(v, fn) for v in value]
    if isinstance(value, StructValue):
        return StructValue(tuple(leaves_mapped(v, fn) for v in value), value.names)
    if isinstance(value, tuple):
        return tuple(leaves_mapped(v, fn) for v in value)
    if isinstance(value, StructFields):
        return StructFields((k, leaves_mapped(v, fn)) for k, v in value.items())
    if isinstance(value, dict):
        return {leaves_mapped(k, fn): leaves_mapped(v, fn) for k, v in value.items()}
    return fn(value)


#: Spark's largest array (``ByteArrayMethods.MAX_ROUNDED_ARRAY_LENGTH``)
MAX_ARRAY_LENGTH = 2**31 - 1 - 15


class Float32(float):
    """A FLOAT value (Spark's 32-bit float), which Python holds in a double: the class
    tells what reads it that Spark writes it as Java's ``Float.toString`` (``0.1``, not
    the double's ``0.10000000149011612``), names it FLOAT and hashes it as a Float.
    Arithmetic on it gives plain doubles; the glue rounds results Spark types FLOAT back
    (``matchrec.integer_width``)."""

    __slots__ = ()


class StructFields(dict):
    """A STRUCT value read from a row: its fields by name, in order. A dict, as the glue
    reads a struct's fields; its own class so that it is not taken for a MAP (also a
    dict): ``CAST(s AS STRING)`` writes ``{lyon, 7}``, not ``{city -> lyon, n -> 7}``,
    and ``s['city']`` is the field (found as Spark finds it), not a key."""

    __slots__ = ()

    def asDict(self) -> dict[str, Any]:  # noqa: N802 - the name PySpark's Row has
        return dict(self)


class StructValue(tuple):
    """A struct the glue builds (``named_struct('s', 0, 'c', 0)``): its field values in
    order, as a STRUCT column takes a tuple, that also knows its field names, so that a
    lambda reads ``acc.s`` of it (an ``aggregate``'s struct accumulator)."""

    names: tuple[str, ...]

    def __new__(cls, values: tuple, names: tuple[str, ...]) -> StructValue:
        made = super().__new__(cls, values)
        made.names = names
        return made

    def __reduce__(self):  # pickled as the pair it is made of
        return (StructValue, (tuple(self), self.names))

    def asDict(self) -> dict[str, Any]:  # noqa: N802 - the name PySpark's Row has
        return dict(zip(self.names, self))


class ArrayKey(list):
    """An ARRAY value that is a map's key (Spark allows any type but MAP as a key): a
    list that hashes by its elements, so that the glue's maps (dicts) can hold it."""

    __slots__ = ()

    def __hash__(self) -> int:
        return hash(tuple(self))


def map_key(value: Any) -> Any:
    """``value`` as the key of a glue map, hashable and equal to the same key however it
    was made: an array becomes an :class:`ArrayKey`, a struct (read from a row as a
    :class:`StructFields`, or built) a :class:`StructValue` (a tuple: equal by its
    values, in order, as Spark compares struct keys); a key is never a MAP, which Spark
    refuses."""
    if isinstance(value, list):
        return ArrayKey(map_key(v) for v in value)
    if isinstance(value, dict):
        return StructValue(tuple(map_key(v) for v in value.values()), tuple(value))
    if isinstance(value, StructValue):
        return StructValue(tuple(map_key(v) for v in value), value.names)
    if isinstance(value, tuple):
        return tuple(map_key(v) for v in value)
    return value


@dataclass(frozen=True)
class CalendarInterval:
    """A value of Spark's CALENDAR INTERVAL type (``make_interval(...)``): months, days
    and microseconds kept apart, since a month and a day have no fixed length. Arrow
    carries it as a month-day-nano interval; it is added to dates and timestamps
    (:func:`matchrec.planner.datetime_steps.calendar_plus`), negated and summed."""

    months: int
    days: int
    micros: int

    def __neg__(self) -> CalendarInterval:
        return CalendarInterval(-self.months, -self.days, -self.micros)

    def __add__(self, other: object) -> CalendarInterval:
        if not isinstance(other, CalendarInterval):
            return NotImplemented
        return CalendarInterval(
            self.months + other.months, self.days + other.days, self.micros + other.micros
        )

    def __sub__(self, other: object) -> CalendarInterval:
        return self + (-other) if isinstance(other, CalendarInterval) else NotImplemented

    def __str__(self) -> str:
        """As Spark writes it (``1 years 2 months 4 days 1 hours 1.5 seconds``): each unit
        that is not zero, Java's truncating division and remainder between them."""
        hours, rest = java_divmod(self.micros, 3_600_000_000)
        minutes, rest = java_divmod(rest, 60_000_000)
        years, months = java_divmod(self.months, 12)
        seconds = f"{Decimal(rest).scaleb(-6).normalize():f}"
        units = [years, months, self.days, hours, minutes, seconds if rest else 0]
        names = ["years", "months", "days", "hours", "minutes", "seconds"]
        return " ".join(f"{n} {name}" for n, name in zip(units, names) if n) or "0 seconds"


def timestamp_micros(t: datetime) -> int:
    """Spark's internal value of a TIMESTAMP: microseconds since the epoch (a naive value,
    a TIMESTAMP_NTZ's wall clock, counted as UTC's)."""
    base = _EPOCH_UTC if t.tzinfo is not None else _EPOCH_UTC.replace(tzinfo=None)
    delta = t - base
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


_EPOCH_UTC = datetime(1970, 1, 1, tzinfo=timezone.utc)


def java_divmod(a: int, b: int) -> tuple[int, int]:
    """Java's ``a / b`` and ``a % b`` of integers: the quotient truncated toward zero,
    the remainder of ``a``'s sign."""
    q = abs(a) // abs(b)
    q = q if (a >= 0) == (b > 0) else -q
    return q, a - q * b


def to_float32(x: float) -> Float32:
    """``x`` rounded to the nearest FLOAT, as Java's ``(float) d`` (infinite beyond its
    range, NaN kept)."""
    try:
        return Float32(struct.unpack("f", struct.pack("f", x))[0])
    except OverflowError:
        return Float32(math.copysign(math.inf, x))


def double_text(x: float) -> str:
    """Java 17's ``Double.toString``, which Spark uses for CAST(double AS STRING). Written
    plain (from 10^-3 to below 10^7) it has the shortest digits, Python's ``repr``; in E
    notation they are not always the shortest (``9.999999999999999E22`` for 1e23), which
    :func:`matchrec.java_doubles.java_double_text` computes."""
    if 1e-3 <= abs(x) < 1e7:
        text = format(Decimal(repr(x)), "f")
        return text if "." in text else text + ".0"
    return java_double_text(x)


def float_text(x: float) -> str:
    """Java 17's ``Float.toString`` of the FLOAT ``x``, which Spark uses for CAST(float AS
    STRING): ``-12.9``, not the ``-12.899999618530273`` of the double it is held in, and
    for an integer past 2^24 more digits than the shortest (``2.81474977E14``;
    :func:`matchrec.java_doubles.java_float_text`)."""
    return java_float_text(x)


def utf8_bytes(text: str) -> bytes:
    """The bytes Spark holds a STRING in: its UTF-8. Spark keeps the bytes of a CAST of
    BINARY that are no UTF-8; the evaluator holds each such byte as Python's surrogate
    escape (U+DC80..U+DCFF) and gives it back here."""
    return text.encode("utf-8", "surrogateescape")


def from_utf8(data: bytes) -> str:
    """A STRING of Spark's bytes (a CAST of BINARY): each byte that is no UTF-8 kept, as
    a surrogate escape (see :func:`utf8_bytes`)."""
    return data.decode("utf-8", "surrogateescape")


#: the bytes Spark's ``UTF8String`` takes a character to be, by its first byte (else 1)
_LEAD_WIDTHS = {
    **dict.fromkeys(range(0xC2, 0xE0), 2),
    **dict.fromkeys(range(0xE0, 0xF0), 3),
    **dict.fromkeys(range(0xF0, 0xF5), 4),
}


def text_length(v: str | bytes) -> int:
    """Spark's ``length``: the bytes of a BINARY; the characters of a STRING, which for
    text holding bytes that are no UTF-8 Spark counts by each first byte's width (the
    bytes ``F0 C3 A9`` are one character)."""
    if not isinstance(v, str) or not holds_raw_bytes(v):
        return len(v)
    data, count, i = utf8_bytes(v), 0, 0
    while i < len(data):
        i += _LEAD_WIDTHS.get(data[i], 1)
        count += 1
    return count


def java_utf8(data: bytes) -> str:
    """``new String(bytes, UTF_8)`` in Java: malformed input replaced by U+FFFD as
    Python's decoder replaces it, except that a three-byte sequence of a surrogate
    (ED A0..BF xx) is one replacement, as Java gives it."""
    out = []
    start = 0
    i = 0
    while i + 2 < len(data):
        if data[i] == 0xED and 0xA0 <= data[i + 1] <= 0xBF and 0x80 <= data[i + 2] <= 0xBF:
            out.append(data[start:i].decode("utf-8", "replace"))
            out.append("\ufffd")
            i += 3
            start = i
        else:
            i += 1
    out.append(data[start:].decode("utf-8", "replace"))
    return "".join(out)


def java_text(text: str) -> str:
    """``text`` as Java's String of its bytes, which Spark hands to Python and to the
    functions it computes on Java's text: each bad sequence of text that holds bytes that
    are no UTF-8 as U+FFFD."""
    return java_utf8(utf8_bytes(text)) if holds_raw_bytes(text) else text


def holds_raw_bytes(text: str) -> bool:
    """Whether ``text`` holds bytes that are no UTF-8 (see :func:`utf8_bytes`)."""
    return _ESCAPED.search(text) is not None


_ESCAPED = re.compile("[\udc80-\udcff]")


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
        # (strftime's %Y leaves out a year's leading zeros on some platforms: 999)
        text = f"{v.year:04d}-{v.month:02d}-{v.day:02d} {v:%H:%M:%S}"
        return text + (f".{v.microsecond:06d}".rstrip("0") if v.microsecond else "")
    if isinstance(v, date):
        return v.isoformat()
    if isinstance(v, (FarDate, FarTimestamp)):
        return str(v)
    if isinstance(v, (bytes, bytearray)):  # Spark keeps the bytes, UTF-8 or not
        return from_utf8(bytes(v))
    if isinstance(v, StructFields):
        v = tuple(v.values())
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
