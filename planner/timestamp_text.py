"""Spark's CAST of a string to TIMESTAMP (and to TIMESTAMP_NTZ), in Python.

Where a string of several rows meets a function that takes a TIMESTAMP
(``date_format(from_unixtime(B.t - A.t), 'HH:mm')``, ``CAST(concat(A.d, ' ', B.t) AS
TIMESTAMP)`` in the table function), Spark casts it as its ``stringToTimestamp`` reads
text: ``[+-]yyyy[y][y]`` then optionally ``-[m]m``, ``-[d]d``, a space or ``T``, ``[h]h``,
``:[m]m``, ``:[s]s``, ``.`` and up to 9 fraction digits (those beyond microseconds
dropped), and after the seconds a zone: ``Z``, an offset (``+01:00``, ``-0800``, ``+1``,
``+1:0``), ``UTC``/``GMT``/``UT`` with or without an offset, a region
(``America/New_York``) or one of Java's short ids (``EST``, ``PST``). Without a zone the
text is a wall-clock time of the session zone (a time in a daylight-saving gap moves later,
a repeated one is its earlier instant). Leading and trailing spaces are ignored.

Text Spark does not read is :class:`TimestampTextError` (a ValueError: NULL, or Spark's
CAST_INVALID_INPUT under ANSI mode). A time without a date (``10:30:00``) reads the
current date: :class:`TimestampNotComputed`, which no cast turns into NULL. A year
outside 1-9999, or an instant there, is a ``matchrec.far_timestamps.FarTimestamp``.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timezone, tzinfo

from matchrec.far_timestamps import (
    CYCLE_MICROS,
    FarTimestamp,
    micros_of,
    timestamp_of_micros,
    year_cycles,
)
from matchrec.zones import java_zone

from .number_text import spark_trim

_TEXT = re.compile(
    r"(?P<sign>[+-])?(?P<year>\d{4,6})"
    r"(?:-(?P<month>\d{1,2})"
    r"(?:-(?P<day>\d{1,2})"
    r"(?:[ T](?P<hour>\d{1,2})"
    r"(?::(?P<minute>\d{1,2})"
    r"(?::(?P<second>\d{1,2})(?:\.(?P<fraction>\d*))?(?P<zone>\D.*)?)?)?)?)?)?",
    re.S | re.ASCII,
)
_TIME_ONLY = re.compile(r"T?\d{1,2}:\d{1,2}.*", re.S | re.ASCII)


class TimestampTextError(ValueError):
    """Text Spark's CAST to TIMESTAMP does not read (NULL, or an error under ANSI mode)."""


class TimestampNotComputed(Exception):
    """Text Spark reads as a timestamp that Python cannot hold or that reads today's date:
    an error, never a NULL (it is no ValueError, which a cast turns into NULL)."""


def _wall_clock(text: str) -> tuple[datetime, str | None, int]:
    """The wall-clock time ``text`` writes, its zone text (None: none written) and, for
    a year outside 1-9999, how many 400-year cycles later than the wall clock given it is
    (``matchrec.far_timestamps``)."""
    stripped = spark_trim(text)
    found = _TEXT.fullmatch(stripped)
    if found is None:
        if _TIME_ONLY.fullmatch(stripped):
            raise TimestampNotComputed(f"{text!r} is a time without a date: not computed here")
        raise TimestampTextError(f"{text!r} is not a timestamp")
    g = found.groupdict()
    year = int(g["year"]) * (-1 if g["sign"] == "-" else 1)
    cycles = year_cycles(year) if not 1 <= year <= 9999 else 0
    micros = int((g["fraction"] or "")[:6].ljust(6, "0"))
    try:
        wall = datetime(
            year - 400 * cycles,
            int(g["month"] or 1),
            int(g["day"] or 1),
            int(g["hour"] or 0),
            int(g["minute"] or 0),
            int(g["second"] or 0),
            micros,
        )
    except ValueError:
        raise TimestampTextError(f"{text!r} is not a valid date and time") from None
    zone = g["zone"].strip() if g["zone"] else None
    return wall, zone, cycles


def _zone(text: str) -> tzinfo:
    try:
        return java_zone(text)
    except ValueError as err:
        raise TimestampTextError(str(err)) from None


def _instant(wall: datetime, zone: tzinfo) -> datetime:
    """A wall-clock time of ``zone`` as Java resolves it (a time in a gap moves later by
    the gap, a repeated time is its earlier instant)."""
    return wall.replace(tzinfo=zone).astimezone(timezone.utc).astimezone(zone)


def timestamp_of_text(text: str, session: tzinfo | None) -> datetime | FarTimestamp:
    """``CAST(text AS TIMESTAMP)``: an aware datetime in the ``session`` zone (None: UTC);
    a FarTimestamp where Python cannot hold it."""
    wall, written, cycles = _wall_clock(text)
    session = session or timezone.utc
    zone = session if written is None else _zone(written)
    try:
        if not cycles:
            return _instant(wall, zone).astimezone(session)
    except OverflowError:  # 9999-12-31 23:00 in Los Angeles is past 9999 in UTC
        cycles = 1 if wall.year > 5000 else -1
        wall = wall.replace(year=wall.year - 400 * cycles)
    instant = micros_of(_instant(wall, zone)) + cycles * CYCLE_MICROS
    return _far(text, instant, session)


def ntz_of_text(text: str) -> datetime | FarTimestamp:
    """``CAST(text AS TIMESTAMP_NTZ)``: the wall-clock time written (a zone, if written,
    checked and ignored, as Spark does)."""
    wall, written, cycles = _wall_clock(text)
    if written is not None:
        _zone(written)
    return _far(text, micros_of(wall) + cycles * CYCLE_MICROS, None) if cycles else wall


def _far(text: str, micros: int, zone: tzinfo | None) -> datetime | FarTimestamp:
    try:
        return timestamp_of_micros(micros, zone)
    except ArithmeticError:  # past Spark's range: a text Spark's CAST does not read
        raise TimestampTextError(f"{text!r} is not a timestamp Spark holds") from None


#: the forms Spark's CAST reads a DATE from: [+-]yyyy[-[m]m[-[d]d[ or T anything]]]
_DATE_TEXT = re.compile(r"([+-]?\d{4,7})(?:-(\d{1,2})(?:-(\d{1,2})(?:[ T].*)?)?)?", re.S | re.ASCII)


def date_of_text(text: str) -> date:
    """``CAST(text AS DATE)`` (:class:`TimestampTextError` where Spark's gives NULL or
    raises CAST_INVALID_INPUT)."""
    found = _DATE_TEXT.fullmatch(spark_trim(text))
    if found is None:
        raise TimestampTextError(f"{text!r} is not a date")
    year, month, day = found.groups()
    if not 1 <= int(year) <= 9999:
        raise TimestampNotComputed(f"{text!r} is beyond the years Python holds")
    try:
        return date(int(year), int(month or 1), int(day or 1))
    except ValueError:
        raise TimestampTextError(f"{text!r} is not a date") from None
