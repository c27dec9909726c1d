"""Moving dates and timestamps by day-time intervals as Spark does, and ``sequence``
of dates and timestamps.

Spark splits a day-time interval into whole days (toward zero), which move the wall
clock of the session time zone (Java's ``plusDays``: the offset kept where still
valid, a time in a gap moved forward by the gap), and the rest, elapsed time added to
the instant. So ``+ INTERVAL 1 DAY`` on the day the clocks change is the same time the
next day, and ``+ INTERVAL 24 HOURS`` is too; ``+ INTERVAL 13 HOURS`` twice is not.
A DATE moved by an interval with hours starts at its midnight in the session zone.
"""

from __future__ import annotations

import calendar
from datetime import date, datetime, time, timedelta, timezone
from typing import Any

from matchrec.errors import MatchRuntimeError
from matchrec.far_dates import FarDate, date_of_fields
from matchrec.sql_values import MAX_ARRAY_LENGTH, CalendarInterval
from matchrec.zones import SESSION_ZONE

_MICRO = timedelta(microseconds=1)
_DAY = timedelta(days=1)
_DAY_MICROS = 86_400_000_000


def whole_days(delta: timedelta) -> tuple[int, timedelta]:
    """A day-time interval's whole days (truncated toward zero, as Spark's
    ``timestampAddDayTime`` splits it) and the rest."""
    micros = delta // _MICRO
    days = abs(micros) // _DAY_MICROS * (1 if micros >= 0 else -1)
    return days, timedelta(microseconds=micros - days * _DAY_MICROS)


def local_days_plus(ts: datetime, days: int) -> datetime:
    """An aware TIMESTAMP ``days`` days later on its zone's wall clock (Java's
    ``ZonedDateTime.plusDays``)."""
    if not days:
        return ts
    return _resolved(ts, ts.replace(tzinfo=None) + timedelta(days=days))


def _resolved(ts: datetime, local: datetime) -> datetime:
    """The wall clock ``local`` in ``ts``'s zone, at ``ts``'s offset where that is one
    of its offsets (Java's ``ZonedDateTime.ofLocal`` with a preferred offset)."""
    offset = ts.utcoffset()
    candidates = [local.replace(tzinfo=ts.tzinfo, fold=f) for f in (0, 1)]
    same = [c for c in candidates if c.utcoffset() == offset]
    return _normal((same or candidates)[0])


def elapsed_plus(ts: datetime, delta: timedelta) -> datetime:
    """An aware TIMESTAMP ``delta`` of elapsed time later, in its own zone."""
    return (ts.astimezone(timezone.utc) + delta).astimezone(ts.tzinfo)


def _normal(ts: datetime) -> datetime:
    """A wall-clock time in a gap read as Java reads it: moved forward by the gap."""
    return ts.astimezone(timezone.utc).astimezone(ts.tzinfo)


def timestamp_plus(ts: datetime, delta: timedelta) -> datetime:
    """Spark's TIMESTAMP plus a day-time interval (``timestampAddDayTime``)."""
    days, rest = whole_days(delta)
    return elapsed_plus(local_days_plus(ts, days), rest)


def months_later(day: date | FarDate, months: int) -> date | FarDate:
    """Java's ``plusMonths``: the same day ``months`` later, clipped to the month's end
    (in any year Spark's DATE holds: past 9999, a FarDate)."""
    if not months:
        return day
    count = day.year * 12 + day.month - 1 + months
    year, month = divmod(count, 12)
    return date_of_fields(year, month + 1, min(day.day, _month_length(year, month)))


def _month_length(year: int, month0: int) -> int:
    return calendar.monthrange(year, month0 + 1)[1]


def calendar_plus(value: date, interval: CalendarInterval, ansi: bool) -> date:
    """Spark's DATE, TIMESTAMP or TIMESTAMP_NTZ plus a CALENDAR INTERVAL
    (``make_interval``): its months, then its days move the wall clock (the offset kept
    where still valid, as Java's ``ZonedDateTime.plusMonths``/``plusDays``), then its
    microseconds are elapsed time. A DATE moved by microseconds is an error under ANSI
    mode; without it, its midnight in the session zone is moved and the day taken."""
    months, days = interval.months, interval.days
    micros = timedelta(microseconds=interval.micros)
    if isinstance(value, datetime) and value.tzinfo is None:  # a wall clock: no zone
        moved = value.replace(**_fields(months_later(value.date(), months) + timedelta(days=days)))
        return moved + micros
    if isinstance(value, datetime):
        local = value.replace(tzinfo=None)
        by_months = local.replace(**_fields(months_later(local.date(), months)))
        return elapsed_plus(local_days_plus(_resolved(value, by_months), days), micros)
    if not interval.micros:
        return months_later(value, months) + timedelta(days=days)
    if ansi:
        raise ValueError(
            "[INVALID_INTERVAL_WITH_MICROSECONDS_ADDITION] Cannot add an interval to a date "
            "because its microseconds part is not 0. To resolve this, cast the input date "
            "to a timestamp, which supports the addition of intervals with non-zero "
            "microseconds."
        )
    midnight = _midnight(value)
    return calendar_plus(midnight, interval, ansi).astimezone(midnight.tzinfo).date()


def _fields(day: date) -> dict[str, int]:
    return {"year": day.year, "month": day.month, "day": day.day}


def moved_midnight(day: date, by: timedelta) -> datetime:
    """Spark's DATE plus a day-time interval with time fields (a TIMESTAMP): its whole
    days (truncated toward zero) move the date, then the rest is elapsed time added to
    that date's midnight in the session time zone (Spark's ``timestampAddDayTime``: on a
    day the clocks change, ``+ 1 day`` is the next midnight, ``+ 24 hours`` is not)."""
    whole, rest = whole_days(by)
    return elapsed_plus(_midnight(day + timedelta(days=whole)), rest)


def _midnight(day: date) -> datetime:
    zone = SESSION_ZONE.get()
    if zone is None:  # Python's date arithmetic would drop the hours
        raise MatchRuntimeError(
            f"a DATE moved by hours ({day}) is a TIMESTAMP in Spark, which this "
            "evaluator computes only where it knows the session time zone",
            hint="CAST the date AS TIMESTAMP first, or move it by whole days",
        )
    return _normal(datetime.combine(day, time(), tzinfo=zone))


# ------------------------------------------------------------------ sequence


def _is_date(v: Any) -> bool:
    return isinstance(v, date) and not isinstance(v, datetime)


def _as_timestamp(v: Any, zone: Any) -> datetime:
    """A DATE or TIMESTAMP_NTZ value met with a TIMESTAMP (Spark's common type): its
    wall clock read in ``zone``; a TIMESTAMP as it is."""
    if _is_date(v):
        v = datetime.combine(v, time())
    return v if v.tzinfo is not None else _normal(v.replace(tzinfo=zone))


def temporal_sequence(start: Any, stop: Any, step: Any = None) -> list[Any]:
    """Spark's ``sequence`` of DATE, TIMESTAMP or TIMESTAMP_NTZ values (the common type
    of ``start`` and ``stop``), ``stop`` included: the i-th element is ``start`` moved
    by i times the step's whole days on the wall clock, then by i times its rest of
    elapsed time. The step is one day toward ``stop`` by default; for dates it must be
    a day or more; a step away from ``stop`` is an error, as in Spark."""
    if not isinstance(step, (timedelta, type(None))):
        raise TypeError(f"{step!r} is no day-time interval step for dates or timestamps")
    zones = [v.tzinfo for v in (start, stop) if isinstance(v, datetime) and v.tzinfo]
    if zones:
        start, stop = _as_timestamp(start, zones[0]), _as_timestamp(stop, zones[0])
    elif not (_is_date(start) and _is_date(stop)):  # TIMESTAMP_NTZ, or one and a DATE
        start, stop = (
            v if isinstance(v, datetime) else datetime.combine(v, time()) for v in (start, stop)
        )
    if step is None:
        step = _DAY if start <= stop else -_DAY
    if _is_date(start) and abs(step) < _DAY:
        raise ValueError(
            "sequence step must be an interval day to second of day granularity if start "
            f"and end values are dates (the step is {step})"
        )
    zero = timedelta(0)
    if not ((step > zero and start <= stop) or (step < zero and start >= stop) or start == stop):
        raise ValueError(
            f"illegal sequence boundaries: {start} to {stop} by {step} (Spark's "
            "INVALID_SEQUENCE_BOUNDARIES)"
        )
    days, rest = whole_days(step)
    nth = _nth(start, days, rest)
    last = _midnight(stop) if _is_date(stop) and rest else stop
    found = []
    while len(found) < MAX_ARRAY_LENGTH:
        value = nth(len(found))
        if (value > last) if step > zero else (value < last):
            break
        found.append(value)
        if step == zero:
            break
    else:
        raise ValueError(
            f"a sequence of more than {MAX_ARRAY_LENGTH} elements (Spark's array limit)"
        )
    return [v.date() for v in found] if _is_date(start) and rest else found


def _nth(start: Any, days: int, rest: timedelta) -> Any:
    """The i-th element's function: ``start`` moved i times by ``days`` on the wall
    clock and by ``rest`` of elapsed time (a DATE moved by hours: from its midnight in
    the session zone, a TIMESTAMP whose local date is the element)."""
    if _is_date(start) and not rest:
        return lambda i: start + timedelta(days=i * days)
    if _is_date(start):
        return lambda i: elapsed_plus(_midnight(start + timedelta(days=i * days)), i * rest)
    if start.tzinfo is None:
        return lambda i: start + timedelta(days=i * days) + i * rest
    return lambda i: elapsed_plus(local_days_plus(start, i * days), i * rest)
