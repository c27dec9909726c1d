"""Spark's datetime patterns (``yyyy-MM-dd HH:mm:ss``) in Python, for glue over several rows.

``from_unixtime(B.n - A.n, 'HH:mm')`` or ``to_timestamp(concat(A.d, B.t), 'yyyy-MM-dd
HH:mm')`` read two rows, so no Spark column holds them and DEFINE's glue formats or parses
the value itself. Spark 4 (its default, non-legacy parser) builds a Java
``DateTimeFormatter`` from the pattern; this module copies what it does for the letters
listed in :data:`LETTERS` (with the letter counts Spark accepts), quoted text (``'T'``,
``''`` for a quote) and any other character as itself. A pattern with another letter, or
a count Spark rejects, is refused when the query is built (:class:`PatternRefused`, with
the offset of the letter), never guessed at.

Spark replaces ``y`` by ``u`` (the proleptic year) where the pattern has no era (``G``,
which is refused here): so a year is the proleptic one. Parsing is Java's strict,
case-insensitive parse: a one-letter numeric field reads one or more digits, two letters
exactly two (``yy``: 2000 to 2099), ``yyyy`` exactly four; a missing field defaults as
Spark's (1970-01-01 00:00:00); the text must be consumed whole.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone, tzinfo
from decimal import Decimal
from functools import lru_cache
from typing import Any

from matchrec.errors import MatchRuntimeError
from matchrec.far_dates import FarDate
from matchrec.far_timestamps import (
    FarTimestamp,
    micros_of,
    midnight_micros,
    midnight_of,
    near_of,
    through_cycles,
    timestamp_of_micros,
)
from matchrec.zones import java_zone

from .datetime_functions import cast_to_timestamp
from .hash_functions import timestamp_micros
from .timestamp_text import TimestampNotComputed, TimestampTextError, timestamp_of_text

#: letter -> the counts Spark accepts when formatting (parsing: :data:`PARSE_LETTERS`)
LETTERS: dict[str, range] = {
    "y": range(1, 10),
    "M": range(1, 5),
    "L": range(1, 5),
    "d": range(1, 3),
    "D": range(1, 4),
    "Q": range(1, 5),
    "E": range(1, 5),
    "a": range(1, 2),
    "H": range(1, 3),
    "k": range(1, 3),
    "K": range(1, 3),
    "h": range(1, 3),
    "m": range(1, 3),
    "s": range(1, 3),
    "S": range(1, 10),
    # the zone's offset: ISO-8601 (X: Z for zero; x), RFC-822 and localized (Z, O)
    "X": range(1, 6),
    "x": range(1, 6),
    "Z": range(1, 6),
    "O": (1, 4),
}
#: letters a pattern may parse (Spark refuses Q, E and L when parsing, or reads them
#: differently from formatting)
PARSE_LETTERS = frozenset("yMdDakKhHmsS")
#: characters Spark reserves (optional sections, ...): refused, not taken as themselves
_RESERVED = frozenset("[]{}#")

_MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_QUARTERS = ["1st quarter", "2nd quarter", "3rd quarter", "4th quarter"]


class PatternRefused(ValueError):
    """A pattern the glue does not compute: ``offset`` into the pattern, ``why``."""

    def __init__(self, offset: int, why: str) -> None:
        super().__init__(why)
        self.offset = offset
        self.why = why


@dataclass(frozen=True)
class Field:
    """A run of one pattern letter (``letter`` * ``count``) at ``offset``."""

    letter: str
    count: int
    offset: int


Element = Field | str  # a field, or literal text


def compile_pattern(pattern: str, parsing: bool = False) -> list[Element]:
    """``pattern`` as fields and literal texts; :class:`PatternRefused` for a letter or a
    count this module does not compute (``parsing``: as a pattern to parse with)."""
    out: list[Element] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "'":
            end = i + 1
            text = []
            while True:
                if end >= len(pattern):
                    raise PatternRefused(i, "the quoted text is not closed")
                if pattern[end] == "'":
                    if end + 1 < len(pattern) and pattern[end + 1] == "'":
                        text.append("'")
                        end += 2
                        continue
                    break
                text.append(pattern[end])
                end += 1
            out.append("'" if end == i + 1 else "".join(text))
            i = end + 1
            continue
        if c.isascii() and c.isalpha():
            count = len(pattern) - i - len(pattern[i:].lstrip(c))
            _check_letter(c, count, i, parsing)
            out.append(Field(c, count, i))
            i += count
            continue
        if c in _RESERVED:
            raise PatternRefused(i, f"the pattern character {c!r} is not computed here")
        out.append(c)
        i += 1
    if parsing:
        _check_adjacent(out)
    return out


def _check_letter(letter: str, count: int, offset: int, parsing: bool) -> None:
    if letter not in LETTERS or (parsing and letter not in PARSE_LETTERS):
        use = "parsing" if parsing and letter in LETTERS else "values of several rows"
        raise PatternRefused(
            offset, f"the pattern letter {letter!r} is not computed here for {use}"
        )
    if count not in LETTERS[letter]:
        raise PatternRefused(
            offset, f"the pattern letter {letter!r} repeated {count} times is not valid in Spark"
        )


def _width(field: Field) -> tuple[int, int] | None:
    """The digits a numeric field reads when parsing (least, most); None for a text."""
    letter, n = field.letter, field.count
    if (letter == "M" and n >= 3) or letter == "a":
        return None
    if letter == "S":
        return 1, n
    if letter == "D" and n == 2:
        return 2, 3
    return (n, 19) if n == 1 or (letter == "y" and n == 3) else (n, n)


def _check_adjacent(elements: list[Element]) -> None:
    """Java reserves digits for a numeric field that directly follows another one of
    variable width (``yMMdd``); the glue reads greedily, so such a pattern is refused."""
    for first, second in zip(elements, elements[1:]):
        if isinstance(first, Field) and isinstance(second, Field):
            width, follows = _width(first), _width(second)
            if width is not None and follows is not None and width[0] != width[1]:
                raise PatternRefused(
                    first.offset,
                    f"the pattern letter {first.letter!r} of variable width directly before "
                    "another number is not computed here for parsing",
                )


# ------------------------------------------------------------------ zones


@lru_cache(maxsize=64)
def zone_of(name: str) -> tzinfo:
    """The session time zone named ``name`` (a region, or an offset such as ``+05:30``)."""
    try:
        return java_zone(name)
    except ValueError:
        raise ValueError(f"unknown time zone {name!r}") from None


def local_time(v: object, zone: str) -> datetime:
    """The wall-clock time Spark formats for ``v``: a TIMESTAMP in the session zone, a
    TIMESTAMP_NTZ (a naive datetime) cast to TIMESTAMP first (a time in a gap moves
    later), a DATE at its midnight."""
    return zoned_time(v, zone).replace(tzinfo=None)


def zoned_time(v: object, zone: str) -> datetime:
    """:func:`local_time` with the session zone attached (its offset at that time)."""
    if isinstance(v, datetime):
        aware = v if v.tzinfo else in_zone(v, zone)
        return aware.astimezone(zone_of(zone))
    if isinstance(v, date):  # its first instant: 01:00 where a gap skips midnight
        return cast_to_timestamp(datetime(v.year, v.month, v.day), zone_of(zone))
    raise TypeError(f"{v!r} is not a TIMESTAMP or DATE (CAST it inside the navigation)")


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MICRO = timedelta(microseconds=1)


def epoch_micros(v: object, zone: str) -> int:
    """Microseconds since 1970-01-01 UTC of a TIMESTAMP, of a DATE's midnight in the
    session zone, of a TIMESTAMP_NTZ read as UTC (as Spark's ``unix_timestamp``)."""
    if isinstance(v, FarTimestamp):
        return v.micros
    if isinstance(v, FarDate):
        return midnight_micros(v, zone_of(zone))
    if isinstance(v, datetime):
        return timestamp_micros(v)
    if isinstance(v, date):
        return (in_zone(datetime(v.year, v.month, v.day), zone) - _EPOCH) // _MICRO
    raise TypeError(f"{v!r} is not a TIMESTAMP or DATE (CAST it inside the navigation)")


def in_zone(local: datetime, zone: str) -> datetime | FarTimestamp:
    """The instant of a wall-clock time of ``zone`` as Java resolves it: a time in a gap
    moves later by the gap, a repeated time is its earlier instant (a FarTimestamp where
    the instant is past the years Python holds)."""
    tz = zone_of(zone)
    try:
        return local.replace(tzinfo=tz, fold=0).astimezone(timezone.utc).astimezone(tz)
    except OverflowError:
        wall = FarTimestamp(micros_of(local.replace(tzinfo=None)), None)
        return through_cycles(in_zone, wall, zone)


# ------------------------------------------------------------------ formatting


def _year(year: int, count: int) -> str:
    if count == 2:
        return f"{year % 100:02d}"
    text = f"{abs(year):0{count}d}"
    if year < 0:
        return "-" + text
    return "+" + text if count >= 4 and len(text) > count else text


def _hour12(t: datetime, zero_based: bool) -> int:
    h = t.hour % 12
    return h if zero_based or h else 12


_FORMATTERS = {
    "M": lambda t, n: _month(t.month, n),
    "L": lambda t, n: _month(t.month, n),
    "d": lambda t, n: f"{t.day:0{n}d}",
    "D": lambda t, n: f"{t.timetuple().tm_yday:0{n}d}",
    "Q": lambda t, n: _quarter((t.month - 1) // 3 + 1, n),
    "E": lambda t, n: _DAYS[t.weekday()] if n == 4 else _DAYS[t.weekday()][:3],
    "a": lambda t, n: "AM" if t.hour < 12 else "PM",
    "H": lambda t, n: f"{t.hour:0{n}d}",
    "k": lambda t, n: f"{t.hour or 24:0{n}d}",
    "K": lambda t, n: f"{_hour12(t, True):0{n}d}",
    "h": lambda t, n: f"{_hour12(t, False):0{n}d}",
    "m": lambda t, n: f"{t.minute:0{n}d}",
    "s": lambda t, n: f"{t.second:0{n}d}",
    "S": lambda t, n: f"{t.microsecond:06d}000"[:n],
    "y": lambda t, n: _year(t.year, n),
    "X": lambda t, n: _iso_offset(t, n, "Z"),
    "x": lambda t, n: _iso_offset(t, n, None),
    "Z": lambda t, n: _iso_offset(t, 2, None) if n < 4 else _zone_z(t, n),
    "O": lambda t, n: _localized_offset(t, short=n == 1),
}


def _offset_fields(t: datetime) -> tuple[int, str, int, int, int]:
    """The zone offset of ``t``: total seconds, sign, hours, minutes, seconds."""
    offset = t.utcoffset()
    total = 0 if offset is None else int(offset.total_seconds())
    whole = abs(total)
    return total, "-" if total < 0 else "+", whole // 3600, whole // 60 % 60, whole % 60


def _iso_offset(t: datetime, n: int, zero: str | None) -> str:
    """Java's offset of ``n`` letters X or x: +HH[mm], +HHmm, +HH:mm, +HHmm[ss],
    +HH:mm[:ss] (bracketed parts only when not zero); when every part written is zero,
    ``zero`` (X: Z) or the same form of +00 (x)."""
    _, sign, h, m, sec = _offset_fields(t)
    colon = ":" if n in (3, 5) else ""
    parts = [h] + ([m] if n > 1 or m else []) + ([sec] if n > 3 and sec else [])
    if not any(parts):
        if zero is not None:
            return zero
        parts, sign = [0] * (1 if n == 1 else 2), "+"
    return sign + colon.join(f"{p:02d}" for p in parts)


def _zone_z(t: datetime, n: int) -> str:
    """ZZZZ: the localized offset (GMT+08:00); ZZZZZ: +HH:mm[:ss], Z for zero."""
    return _localized_offset(t, short=False) if n == 4 else _iso_offset(t, 5, "Z")


def _localized_offset(t: datetime, short: bool) -> str:
    """Java's localized offset: GMT for zero, else GMT+8 / GMT+5:30 (short, O) or
    GMT+08:00 (full, OOOO and ZZZZ), seconds added when not zero."""
    total, sign, h, m, sec = _offset_fields(t)
    if total == 0:
        return "GMT"
    text = f"GMT{sign}{h}" if short else f"GMT{sign}{h:02d}"
    if m or sec or not short:
        text += f":{m:02d}"
    return text + (f":{sec:02d}" if sec else "")


def _month(month: int, n: int) -> str:
    if n >= 3:
        return _MONTHS[month - 1] if n == 4 else _MONTHS[month - 1][:3]
    return f"{month:0{n}d}"


def _quarter(q: int, n: int) -> str:
    return {1: str(q), 2: f"{q:02d}", 3: f"Q{q}", 4: _QUARTERS[q - 1]}[n]


def format_local(elements: list[Element], t: datetime, years: int = 0) -> str:
    """The wall-clock time ``t`` (``years`` later) written with the compiled pattern
    ``elements`` (``t`` in the session zone, :func:`zoned_time`, for the offset letters)."""
    return "".join(
        e
        if isinstance(e, str)
        else _year(t.year + years, e.count)
        if e.letter == "y"
        else _FORMATTERS[e.letter](t, e.count)
        for e in elements
    )


def format_value(elements: list[Element], v: object, zone: str) -> str:
    """A TIMESTAMP, TIMESTAMP_NTZ or DATE ``v`` written with ``elements`` in the session
    ``zone``; one past Python's years is written 400-year cycles nearer, where its month,
    day, weekday and offset are the same (``matchrec.far_timestamps``), and its year
    moved back."""
    near, cycles = near_of(v)
    return format_local(elements, zoned_time(near, zone), 400 * cycles)


# ------------------------------------------------------------------ parsing


class ParseFailed(ValueError):
    """A text the pattern does not read (Spark's CANNOT_PARSE_TIMESTAMP under ANSI mode,
    NULL without it)."""


_TEXTS = {
    "M": {name.lower(): i + 1 for i, name in enumerate(_MONTHS)},
    "a": {"am": 0, "pm": 1},
}


def _digits(text: str, at: int, least: int, most: int, what: str) -> tuple[int, int]:
    end = at
    while end < len(text) and end - at < most and text[end].isascii() and text[end].isdigit():
        end += 1
    if end - at < least:
        raise ParseFailed(f"{text!r} could not be parsed at index {at} ({what})")
    return int(text[at:end]), end


def _read_field(field: Field, text: str, at: int) -> tuple[int, int]:
    """The value of one field read at ``at`` of ``text``, and where reading stopped."""
    letter, n = field.letter, field.count
    if letter == "M" and n >= 3:
        names = _TEXTS["M"]
        for name, month in names.items():
            candidate = name if n == 4 else name[:3]
            if text[at : at + len(candidate)].lower() == candidate:
                return month, at + len(candidate)
        raise ParseFailed(f"{text!r} could not be parsed at index {at} (a month name)")
    if letter == "a":
        mark = text[at : at + 2].lower()
        if mark not in _TEXTS["a"]:
            raise ParseFailed(f"{text!r} could not be parsed at index {at} (AM or PM)")
        return _TEXTS["a"][mark], at + 2
    least, most = _width(field) or (0, 0)
    value, end = _digits(text, at, least, most, letter)
    if letter == "S":
        return int(f"{text[at:end]:0<9}"[:9]), end  # nanoseconds
    return value, end


_RANGES = {
    "M": (1, 12, "MonthOfYear"),
    "d": (1, 31, "DayOfMonth"),
    "D": (1, 366, "DayOfYear"),
    "H": (0, 23, "HourOfDay"),
    "k": (1, 24, "ClockHourOfDay"),
    "K": (0, 11, "HourOfAmPm"),
    "h": (1, 12, "ClockHourOfAmPm"),
    "m": (0, 59, "MinuteOfHour"),
    "s": (0, 59, "SecondOfMinute"),
}


def parse_local(elements: list[Element], text: str) -> datetime:
    """The wall-clock time ``text`` holds by the compiled pattern ``elements`` (read as
    Spark reads it); :class:`ParseFailed` where Spark cannot parse it."""
    fields: dict[str, int] = {}
    at = 0
    for e in elements:
        if isinstance(e, str):
            if text[at : at + len(e)].lower() != e.lower():
                raise ParseFailed(f"{text!r} could not be parsed at index {at}")
            at += len(e)
            continue
        value, at = _read_field(e, text, at)
        if e.letter in _RANGES:
            low, high, name = _RANGES[e.letter]
            if not low <= value <= high:
                raise ParseFailed(f"invalid value for {name}: {value}")
        if e.letter == "y" and e.count == 2:
            value += 2000
        if fields.get(e.letter, value) != value:
            raise ParseFailed(f"{text!r}: conflicting values of {e.letter}")
        fields[e.letter] = value
    if at != len(text):
        raise ParseFailed(f"{text!r} could not be parsed, unparsed text found at index {at}")
    return _resolve(fields, text)


def _hour(fields: dict[str, int]) -> int:
    """Java's strict resolution of the hour fields, then Spark's: an hour of AM/PM
    without an AM/PM is taken as AM."""
    hours = set()
    if "H" in fields:
        hours.add(fields["H"])
    if "k" in fields:
        hours.add(fields["k"] % 24)
    of_ampm = {fields[f] % 12 for f in ("K", "h") if f in fields}
    if len(of_ampm) > 1:
        raise ParseFailed("conflicting hours")
    if of_ampm:
        h = of_ampm.pop()
        hours.add(h + 12 * fields["a"] if "a" in fields else h)
    elif hours and "a" in fields and min(hours) // 12 != fields["a"]:
        raise ParseFailed("the hour conflicts with AM/PM")
    if len(hours) > 1:
        raise ParseFailed("conflicting hours")
    return hours.pop() if hours else 0


def _resolve(fields: dict[str, int], text: str) -> datetime:
    year = fields.get("y", 1970)
    try:
        if "D" in fields:
            day = date(year, 1, 1) + timedelta(days=fields["D"] - 1)
            if day.year != year:
                raise ParseFailed(f"{text!r}: day {fields['D']} of {year} does not exist")
            if fields.get("M", day.month) != day.month or fields.get("d", day.day) != day.day:
                raise ParseFailed(f"{text!r}: the day of the year conflicts with the date")
        else:
            day = date(year, fields.get("M", 1), fields.get("d", 1))
    except ValueError as err:
        raise ParseFailed(f"{text!r} could not be parsed: {err}") from None
    t = datetime(day.year, day.month, day.day, _hour(fields), fields.get("m", 0))
    return t + timedelta(seconds=fields.get("s", 0), microseconds=fields.get("S", 0) // 1000)


# ------------------------------------------------------------------ the functions

_LONG = 2**64
_DEFAULT = "yyyy-MM-dd HH:mm:ss"


def _wrapped_long(v: int) -> int:
    """``v`` as Java's long arithmetic leaves it (two's complement, 64 bits)."""
    v %= _LONG
    return v - _LONG if v >= 2**63 else v


def _as_long(text: str, ansi: bool) -> int | None:
    """Spark's cast of a string to BIGINT: NULL for text that is no integer, an error
    under ANSI mode."""
    from .implicit_casts import implicit_cast  # implicit_casts builds on the glue's modules

    cast = implicit_cast("bigint", ansi=ansi, sql="", pos=None)
    assert cast is not None
    try:
        return cast(text)
    except MatchRuntimeError as err:  # reported at the call, as the glue's other errors
        raise ValueError(err.message) from None


def _seconds(v: object) -> int:
    """The BIGINT Spark casts ``from_unixtime``'s argument to (a fraction truncated)."""
    if isinstance(v, bool) or not isinstance(v, (int, float, Decimal)):
        raise TypeError(f"{v!r} is not a number of seconds (CAST it inside the navigation)")
    if isinstance(v, float) and not math.isfinite(v):
        raise TypeError(f"{v!r} is not a number of seconds")
    return int(v)


def _instant(micros: int, zone: str) -> datetime | FarTimestamp:
    return timestamp_of_micros(micros, zone_of(zone))


def _parse_failed(err: ParseFailed, ansi: bool, instead: str) -> None:
    """NULL without ANSI mode (the caller returns None); Spark's error under it."""
    if ansi:
        raise ParseFailed(
            f"{err} (Spark's CANNOT_PARSE_TIMESTAMP under spark.sql.ansi.enabled; {instead} "
            "gives NULL instead)"
        ) from None


Builder = Callable[[list[Element], bool], Callable[..., Any]]


def _from_unixtime(elements: list[Element], ansi: bool) -> Callable[..., Any]:
    def from_unixtime(seconds: object, zone: str) -> str | None:
        if isinstance(seconds, str):  # Spark casts a string to BIGINT first
            seconds = _as_long(seconds, ansi)
            if seconds is None:
                return None
        micros = _wrapped_long(_seconds(seconds) * 1_000_000)
        return format_value(elements, _instant(micros, zone), zone)

    return from_unixtime


def _date_format(elements: list[Element], ansi: bool) -> Callable[..., Any]:
    def date_format(v: object, zone: str) -> str | None:
        if isinstance(v, str):  # Spark casts a string to TIMESTAMP first
            v = _cast_text(v, zone, ansi)
            if v is None:
                return None
        return format_value(elements, v, zone)

    return date_format


def _cast_text(text: str, zone: str, ansi: bool) -> datetime | None:
    """``CAST(text AS TIMESTAMP)`` in the session zone: NULL where Spark's is, its
    CAST_INVALID_INPUT under ANSI mode."""
    try:
        return timestamp_of_text(text, zone_of(zone))
    except TimestampNotComputed as err:
        raise TypeError(str(err)) from None  # the glue's run-time error at the call
    except TimestampTextError:
        if ansi:
            raise ValueError(
                f"{text!r} cannot be cast to TIMESTAMP (Spark's CAST_INVALID_INPUT under "
                "spark.sql.ansi.enabled; try_to_timestamp gives NULL instead)"
            ) from None
        return None


def _parsed(elements: list[Element], ansi: bool, instead: str):
    """``v`` as Spark's parsing functions read it: a string by the pattern (in the
    session zone), a TIMESTAMP or DATE as it is; None where parsing fails without ANSI."""

    def parse(v: object, zone: str) -> object:
        if isinstance(v, (datetime, date, FarTimestamp, FarDate)):
            return v
        if not isinstance(v, str):
            raise TypeError(f"{v!r} is not a string, TIMESTAMP or DATE")
        try:
            return in_zone(parse_local(elements, v), zone)
        except ParseFailed as err:
            _parse_failed(err, ansi, instead)
            return None

    return parse


def _to_timestamp(elements: list[Element], ansi: bool) -> Callable[..., Any]:
    parse = _parsed(elements, ansi, "try_to_timestamp")

    def to_timestamp(v: object, zone: str) -> datetime | FarTimestamp | None:
        t = parse(v, zone)
        if isinstance(t, (datetime, FarTimestamp)) or t is None:
            return t
        if isinstance(t, FarDate):  # its midnight in the session zone
            return midnight_of(t, zone_of(zone))
        return in_zone(datetime(t.year, t.month, t.day), zone)  # type: ignore[attr-defined]

    return to_timestamp


def _to_date(elements: list[Element], ansi: bool) -> Callable[..., Any]:
    parse = _parsed(elements, ansi, "try_to_date")

    def to_date(v: object, zone: str) -> date | FarDate | None:
        t = parse(v, zone)
        if isinstance(t, datetime):
            return local_time(t, zone).date()
        if isinstance(t, FarTimestamp):
            return t.date()  # its wall clock in the session zone
        return t  # type: ignore[return-value]

    return to_date


def _unix_timestamp(elements: list[Element], ansi: bool) -> Callable[..., Any]:
    parse = _parsed(elements, ansi, "try_to_timestamp")

    def unix_timestamp(v: object, zone: str) -> int | None:
        t = parse(v, zone)
        if t is None:
            return None
        micros = epoch_micros(t, zone)  # whole seconds toward zero, as Spark divides
        return micros // 1_000_000 if micros >= 0 else -(-micros // 1_000_000)

    return unix_timestamp


def _to_timestamp_ntz(elements: list[Element], ansi: bool) -> Callable[..., Any]:
    """``to_timestamp_ntz(v, fmt)``: the wall-clock time a string reads as (no zone). Of a
    TIMESTAMP Spark keeps the microseconds, so the time is its wall clock in UTC (a DATE
    is first its midnight in the session zone)."""

    def to_timestamp_ntz(v: object, zone: str) -> datetime | None:
        if isinstance(v, datetime) and v.tzinfo is None:
            return v
        if not isinstance(v, str):
            return (_EPOCH + epoch_micros(v, zone) * _MICRO).replace(tzinfo=None)
        try:
            return parse_local(elements, v)
        except ParseFailed as err:
            _parse_failed(err, ansi, "try_to_timestamp")
            return None

    return to_timestamp_ntz


def _never_failing(build: Builder) -> Builder:
    """The ``try_`` form of a parsing function: NULL for text that does not parse, in any
    mode."""
    return lambda elements, ansi: build(elements, False)


@dataclass(frozen=True)
class Patterned:
    """A datetime function of a value and a pattern literal: ``build(elements, ansi)``
    is the function of (value, session zone); ``parsing``: the pattern reads text."""

    build: Builder
    parsing: bool
    default: str | None = _DEFAULT  # the pattern when the call has none


#: internal names (``planner.decompose`` writes them) -> the function
PATTERNED: dict[str, Patterned] = {
    "__MR_FROM_UNIXTIME": Patterned(_from_unixtime, parsing=False),
    "__MR_DATE_FORMAT": Patterned(_date_format, parsing=False, default=None),
    "__MR_TO_TIMESTAMP": Patterned(_to_timestamp, parsing=True, default=None),
    "__MR_TO_DATE": Patterned(_to_date, parsing=True, default=None),
    "__MR_UNIX_TIMESTAMP": Patterned(_unix_timestamp, parsing=True),
    "__MR_TO_TIMESTAMP_LTZ": Patterned(_to_timestamp, parsing=True, default=None),
    "__MR_TO_TIMESTAMP_NTZ": Patterned(_to_timestamp_ntz, parsing=True, default=None),
    "__MR_TRY_TO_TIMESTAMP": Patterned(_never_failing(_to_timestamp), parsing=True, default=None),
    "__MR_TRY_TO_DATE": Patterned(_never_failing(_to_date), parsing=True, default=None),
}
