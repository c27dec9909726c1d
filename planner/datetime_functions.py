"""Spark's date-time field and constructor functions in Python, for glue over several rows.

``hour(greatest(A.ts, B.ts))``, ``extract(MINUTE FROM B.ts - A.ts)`` or
``timestampadd(HOUR, B.n, A.ts)`` read two rows, so no Spark column holds them and the glue
computes them. A TIMESTAMP reaches the glue as a datetime in the session time zone (which
is where Spark reads its fields), a DATE as a date, a day-time interval as a timedelta.
A string or a DATE where Spark would first cast it with the session's zone or formats is
refused with a hint to cast inside the navigation. Each function is compared with Spark on
generated values by ``tests/test_define_functions.py``.
"""

from __future__ import annotations

import calendar
import math
from collections.abc import Callable
from datetime import date, datetime, timedelta, timezone, tzinfo
from decimal import Decimal
from typing import Any

from sqlglot import exp

from matchrec.far_dates import FarDate, add_days, date_of_days, date_of_fields
from matchrec.far_timestamps import (
    FarTimestamp,
    micros_of,
    midnight_of,
    near_of,
    through_cycles,
    timestamp_of_micros,
)
from matchrec.sql_values import java_divmod
from matchrec.zones import session_zone

from .timestamp_text import (
    TimestampNotComputed,
    TimestampTextError,
    date_of_text,
    timestamp_of_text,
)

_MICRO = timedelta(microseconds=1)
_MICROS_PER = {
    "MICROSECOND": 1,
    "MILLISECOND": 1_000,
    "SECOND": 1_000_000,
    "MINUTE": 60_000_000,
    "HOUR": 3_600_000_000,
}
_DAYS_PER = {"DAY": 1, "WEEK": 7}
_MONTHS_PER = {"MONTH": 1, "QUARTER": 3, "YEAR": 12}


def _timestamp(v: Any) -> datetime | FarTimestamp:
    """A TIMESTAMP value; a string as Spark casts it to one (in the session zone). A
    FarTimestamp reads its fields; a call that moves it goes :func:`through_cycles`."""
    if isinstance(v, str):
        try:
            return timestamp_of_text(v, session_zone())
        except TimestampNotComputed as err:
            raise TypeError(str(err)) from None
    if not isinstance(v, (datetime, FarTimestamp)):
        raise TypeError(f"{v!r} is not a TIMESTAMP (CAST it inside the navigation)")
    return v


def day_of(v: Any) -> date | FarDate:
    """The date of a DATE or TIMESTAMP (a timestamp's in the session zone it arrives in);
    a DATE past the years Python holds raises where its calendar is read."""
    if isinstance(v, (datetime, FarTimestamp)):
        return v.date()
    if isinstance(v, (date, FarDate)):
        return v
    raise TypeError(f"{v!r} is not a DATE (CAST it inside the navigation)")


def _java_div(a: int, b: int) -> int:
    """Java's integer division: toward zero."""
    return java_divmod(a, b)[0]


def _java_rem(a: int, b: int) -> int:
    return java_divmod(a, b)[1]


def _interval_field(field: str, v: timedelta) -> Any:
    """A field of a day-time interval as Spark extracts it (each part keeps the sign)."""
    micros = v // _MICRO
    if field == "DAY":
        return _java_div(micros, 86_400_000_000)
    if field == "HOUR":
        return _java_div(_java_rem(micros, 86_400_000_000), 3_600_000_000)
    if field == "MINUTE":
        return _java_div(_java_rem(micros, 3_600_000_000), 60_000_000)
    if field == "SECOND":
        return Decimal(_java_rem(micros, 60_000_000)).scaleb(-6)
    raise ValueError(f"{field} cannot be extracted from a day-time interval")


def _day_of_week(d: date) -> int:
    return d.isoweekday() % 7 + 1  # 1 = Sunday


def _year_of_week(near: date, cycles: int) -> int:
    return near.isocalendar()[0] + 400 * cycles  # 400 years are whole weeks


#: EXTRACT's fields of a DATE or TIMESTAMP (Spark's spellings) -> how each is read
_DATE_FIELDS: dict[str, Callable[[date], Any]] = {
    "YEAR": lambda d: d.year,
    "YEAROFWEEK": lambda d: _year_of_week(*near_of(d)),
    "QUARTER": lambda d: (d.month - 1) // 3 + 1,
    "MONTH": lambda d: d.month,
    "WEEK": lambda d: near_of(d)[0].isocalendar()[1],
    "DAY": lambda d: d.day,
    "DAYOFWEEK": _day_of_week,
    "DAYOFWEEK_ISO": lambda d: d.isoweekday(),
    "DOY": lambda d: near_of(d)[0].timetuple().tm_yday,
}
TIME_FIELDS: dict[str, Callable[[datetime], Any]] = {
    "HOUR": lambda t: t.hour,
    "MINUTE": lambda t: t.minute,
    "SECOND": lambda t: Decimal(t.second * 1_000_000 + t.microsecond).scaleb(-6),
}
#: Spark's other names of those fields
_SYNONYMS = {
    **dict.fromkeys(("Y", "YEARS", "YR", "YRS"), "YEAR"),
    **dict.fromkeys(("QTR",), "QUARTER"),
    **dict.fromkeys(("MON", "MONS", "MONTHS"), "MONTH"),
    **dict.fromkeys(("W", "WEEKS"), "WEEK"),
    **dict.fromkeys(("D", "DAYS"), "DAY"),
    **dict.fromkeys(("DOW",), "DAYOFWEEK"),
    **dict.fromkeys(("DOW_ISO",), "DAYOFWEEK_ISO"),
    **dict.fromkeys(("H", "HOURS", "HR", "HRS"), "HOUR"),
    **dict.fromkeys(("M", "MIN", "MINS", "MINUTES"), "MINUTE"),
    **dict.fromkeys(("S", "SEC", "SECONDS", "SECS"), "SECOND"),
}


def canonical_field(name: str) -> str:
    """An EXTRACT field as Spark's main spelling (``MINS`` -> ``MINUTE``)."""
    upper = name.strip().upper()
    return _SYNONYMS.get(upper, upper)


def extract(field: Any, v: Any) -> Any:
    """``extract(field FROM v)`` / ``date_part('field', v)``."""
    name = canonical_field(str(field))
    if isinstance(v, timedelta):
        return _interval_field(name, v)
    if name in TIME_FIELDS:
        return TIME_FIELDS[name](_timestamp(v))
    if name in _DATE_FIELDS:
        return _DATE_FIELDS[name](day_of(v))
    raise ValueError(f"{field!r} is not a field Spark extracts")


def make_date(year: Any, month: Any, day: Any) -> date | None:
    """``make_date`` without ANSI mode: NULL for a date that does not exist."""
    try:
        return make_date_ansi(year, month, day)
    except ValueError:
        return None


def make_date_ansi(year: Any, month: Any, day: Any) -> date | FarDate:
    """``make_date`` under ANSI mode: a date that does not exist is an error."""
    if not all(isinstance(x, int) and not isinstance(x, bool) for x in (year, month, day)):
        raise TypeError("make_date takes integers")
    try:
        return date(year, month, day)
    except ValueError:
        why = _invalid_date(year, month, day)
        if why is None:  # a year Java has and Python not (0, -1, 10000, ...)
            return date_of_fields(year, month, day)
        raise ValueError(f"[DATETIME_FIELD_OUT_OF_BOUNDS.WITHOUT_SUGGESTION] {why}.") from None


#: Java's ``java.time.temporal.ChronoField`` names and ranges of a date's fields
_JAVA_DATE_FIELDS = (("Year", -999_999_999, 999_999_999), ("MonthOfYear", 1, 12))


def _invalid_date(year: int, month: int, day: int) -> str | None:
    """Why Java's ``LocalDate.of`` refuses the date, in its words (Spark's message of
    ``make_date`` under ANSI mode), or None where Java has the date."""
    for (name, low, high), value in zip(_JAVA_DATE_FIELDS, (year, month)):
        if not low <= value <= high:
            return f"Invalid value for {name} (valid values {low} - {high}): {value}"
    if not 1 <= day <= 31:
        return f"Invalid value for DayOfMonth (valid values 1 - 28/31): {day}"
    if day <= calendar.monthrange(2000, month)[1] and not (month == 2 and day == 29):
        return None
    if month == 2 and day == 29:
        if calendar.isleap(year):
            return None
        return f"Invalid date 'February 29' as '{year}' is not a leap year"
    return f"Invalid date '{calendar.month_name[month].upper()} {day}'"


def _in_zone(local: datetime, like: datetime) -> datetime:
    """A wall-clock time in ``like``'s zone, resolved as Java's ``ZonedDateTime.plusDays``
    and ``plusMonths`` resolve it (:func:`_offset_kept`)."""
    return local if like.tzinfo is None else _offset_kept(local, like)


def resolved(local: datetime, zone: tzinfo) -> datetime:
    """Wall-clock time ``local`` (its ``fold`` choosing in an overlap) in ``zone``, a
    time in a gap moved later by the gap."""
    return local.replace(tzinfo=zone).astimezone(timezone.utc).astimezone(zone)


def cast_to_timestamp(local: datetime, zone: tzinfo) -> datetime:
    """Wall-clock time ``local`` (a TIMESTAMP_NTZ, a DATE's midnight) cast to TIMESTAMP
    in ``zone`` as Java's ``atZone`` reads it: a time in a gap moved later by the gap, a
    repeated one at its earlier offset. Where the instant is outside Python's years
    (0001-01-01 east of UTC, 9999-12-31 west of it) the wall clock is kept: no gap is
    that near either end."""
    try:
        return resolved(local.replace(fold=0), zone)
    except OverflowError:
        return local.replace(tzinfo=zone, fold=0)


def _timestamp_add(unit: str) -> Callable[[Any, Any], datetime]:
    """``timestampadd(unit, n, ts)``: units up to an hour move the instant; days and
    weeks the wall-clock time of the session zone; months, quarters and years its date,
    clipped to the month's last day."""

    def add(ts: Any, n: Any) -> datetime | FarTimestamp:
        ts = _timestamp(ts)
        if isinstance(ts, FarTimestamp):
            return through_cycles(add, ts, n)
        if isinstance(n, bool) or not isinstance(n, int):
            raise TypeError(f"{n!r} is not an integer")
        if unit in _MICROS_PER:
            step = timedelta(microseconds=n * _MICROS_PER[unit])
            if ts.tzinfo is None:
                return ts + step
            return (ts.astimezone(timezone.utc) + step).astimezone(ts.tzinfo)
        local = ts.replace(tzinfo=None)
        if unit in _DAYS_PER:
            return _in_zone(local + timedelta(days=n * _DAYS_PER[unit]), ts)
        months = local.year * 12 + local.month - 1 + n * _MONTHS_PER[unit]
        year, month = divmod(months, 12)
        day = min(local.day, calendar.monthrange(year, month + 1)[1])
        return _in_zone(local.replace(year=year, month=month + 1, day=day), ts)

    return add


def _local(v: Any) -> datetime | FarTimestamp:
    """The wall-clock time in the session zone of a value cast to TIMESTAMP, as
    ``timestampdiff`` casts its arguments: a DATE at its first instant, a TIMESTAMP_NTZ
    that a daylight-saving gap skips after the gap; past Python's years a FarTimestamp
    without a zone."""
    zone = session_zone()
    if isinstance(v, (date, FarDate)) and not isinstance(v, datetime):
        v = midnight_of(v, zone)
    ts = _timestamp(v)
    if isinstance(ts, FarTimestamp) and ts.zone is not None:
        return through_cycles(lambda near: _local(near).replace(tzinfo=None), ts)
    if zone is not None and ts.tzinfo is not None:
        ts = ts.astimezone(zone)
    elif zone is not None and isinstance(ts, datetime):
        ts = cast_to_timestamp(ts, zone)
    return ts.replace(tzinfo=None)


def months_until(a: datetime, b: datetime) -> int:
    """Java's ``LocalDateTime.until(end, MONTHS)``: whole months toward zero, the end's
    time of day taken into account."""
    end = b.date()
    if end > a.date() and b.time() < a.time():
        end -= timedelta(days=1)
    elif end < a.date() and b.time() > a.time():
        end += timedelta(days=1)
    diff = (end.year * 12 + end.month) * 32 + end.day - ((a.year * 12 + a.month) * 32 + a.day)
    return diff // 32 if diff >= 0 else -((-diff) // 32)


def _timestamp_diff(unit: str) -> Callable[[Any, Any], int]:
    """``timestampdiff(unit, start, end)``: whole units between the two wall-clock times
    of the session zone, toward zero (Java's ``ChronoUnit.between`` over local date-times,
    as Spark counts)."""

    def diff(start: Any, end: Any) -> int:
        a, b = _local(start), _local(end)
        if unit in _MONTHS_PER:
            return _java_div(months_until(a, b), _MONTHS_PER[unit])
        micros = (b - a) // _MICRO
        per = _MICROS_PER.get(unit) or _DAYS_PER[unit] * 86_400_000_000
        return _java_div(micros, per)

    return diff


#: the units of timestampadd and timestampdiff
TIMESTAMP_UNITS = (*_MICROS_PER, *_DAYS_PER, *_MONTHS_PER)
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _unix(per: int) -> Callable[[Any], int]:
    """``unix_micros``/``unix_millis``/``unix_seconds``: whole units since the epoch, the
    division floored as Spark's (``Math.floorDiv``); a TIMESTAMP_NTZ's own microseconds,
    its wall clock read as UTC, as Spark's functions take it (not cast to TIMESTAMP)."""

    def since_epoch(v: Any) -> int:
        return micros_of(_timestamp(v)) // per

    return since_epoch


# ------------------------------------------------------------------ epoch constructors

_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


def _overflow(value: Any, unit: str) -> ValueError:
    return ValueError(
        f"[DATETIME_OVERFLOW] Datetime operation overflow: create a TIMESTAMP from {value} "
        f"{unit} since the epoch"
    )


def _instant(micros: int) -> datetime | FarTimestamp:
    """The TIMESTAMP ``micros`` after the epoch, in the session zone (as the glue holds a
    TIMESTAMP; a FarTimestamp outside the years Python holds)."""
    return timestamp_of_micros(micros, session_zone() or timezone.utc)


def timestamp_seconds(x: Any) -> datetime | None:
    """``timestamp_seconds``: an integer beyond a BIGINT of microseconds is Spark's
    DATETIME_OVERFLOW; a DOUBLE is scaled in double arithmetic and truncated, saturating
    at the BIGINT range (NaN and the infinities give NULL); a DECIMAL must come to whole
    microseconds (Java's "Rounding necessary" otherwise). The same under both modes."""
    if isinstance(x, bool):
        raise TypeError("timestamp_seconds takes a number")
    if isinstance(x, int):
        micros = x * 1_000_000
        if not _LONG_MIN <= micros <= _LONG_MAX:
            raise _overflow(f"{x}L", "seconds")
    elif isinstance(x, float):
        if not math.isfinite(x):
            return None
        scaled = x * 1_000_000.0
        if scaled >= 2.0**63:
            micros = _LONG_MAX
        else:
            micros = _LONG_MIN if scaled <= -(2.0**63) else int(scaled)
    elif isinstance(x, Decimal):
        scaled = x.scaleb(6)
        if scaled != scaled.to_integral_value():
            raise ValueError("Rounding necessary")
        micros = int(scaled)
        if not _LONG_MIN <= micros <= _LONG_MAX:
            raise _overflow(f"{x:f}BD", "seconds")
    else:
        raise TypeError("timestamp_seconds takes a number")
    return _instant(micros)


def _integer(x: Any, name: str) -> int:
    """An integral argument: Spark casts nothing else to these (it refuses the call)."""
    if isinstance(x, bool) or not isinstance(x, int):
        raise TypeError(f"{name} takes an integer (Spark refuses other types)")
    return x


def timestamp_millis(x: Any) -> datetime:
    """``timestamp_millis`` of an integer (beyond a BIGINT of microseconds: overflow)."""
    micros = _integer(x, "timestamp_millis") * 1_000
    if not _LONG_MIN <= micros <= _LONG_MAX:
        raise _overflow(f"{x}L", "milliseconds")
    return _instant(micros)


def timestamp_micros(x: Any) -> datetime:
    """``timestamp_micros`` of an integer: every BIGINT is a TIMESTAMP."""
    return _instant(_integer(x, "timestamp_micros"))


def date_from_unix_date(n: Any) -> date | FarDate:
    """``date_from_unix_date``: the DATE ``n`` days after 1970-01-01."""
    return date_of_days(int(n))


def last_day(v: Any) -> date:
    """``last_day(d)``: the last day of the month of a DATE (a TIMESTAMP's date)."""
    d = day_of(v)
    return d.replace(day=calendar.monthrange(d.year, d.month)[1])


#: the days of the week ``next_day`` reads (any case) -> Python's weekday
_WEEKDAYS = {
    spelling: i
    for i, name in enumerate(
        ("MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY")
    )
    for spelling in (name[:2], name[:3], name)
}


def next_day(ansi: bool) -> Callable[[Any, Any], date | FarDate | None]:
    """``next_day(start, day_of_week)``: the first date after ``start`` that falls on that
    day ('MO', 'MON' or 'MONDAY', any case); a day Spark does not read is its
    ILLEGAL_DAY_OF_WEEK under ANSI mode, else NULL. A string ``start`` is cast to DATE."""

    def next_day(start: Any, day_of_week: Any) -> date | FarDate | None:
        if isinstance(start, str):
            try:
                start = date_of_text(start)
            except TimestampTextError:
                if ansi:
                    raise ValueError(
                        f"{start!r} cannot be cast to DATE (Spark's CAST_INVALID_INPUT)"
                    ) from None
                return None
            except TimestampNotComputed as err:
                raise TypeError(str(err)) from None
        weekday = _WEEKDAYS.get(str(day_of_week).upper()) if isinstance(day_of_week, str) else None
        if weekday is None:
            if ansi:
                raise ValueError(
                    f"illegal input for day of week: {day_of_week!r} (Spark's "
                    "ILLEGAL_DAY_OF_WEEK; NULL without ANSI mode)"
                )
            return None
        d = day_of(start)
        return add_days(d, (weekday - d.weekday() - 1) % 7 + 1)

    return next_day


#: Spark's names of the units ``trunc`` and ``date_trunc`` take (case-insensitive; any
#: other spelling, sqlglot's abbreviations 'H' or 'Q' too, is NULL in Spark)
TRUNC_UNITS = {
    **dict.fromkeys(("YEAR", "YYYY", "YY"), "YEAR"),
    "QUARTER": "QUARTER",
    **dict.fromkeys(("MONTH", "MM", "MON"), "MONTH"),
    "WEEK": "WEEK",
}
DATE_TRUNC_UNITS = {
    **TRUNC_UNITS,
    **dict.fromkeys(("DAY", "DD"), "DAY"),
    **{unit: unit for unit in ("HOUR", "MINUTE", "SECOND", "MILLISECOND", "MICROSECOND")},
}


def _truncated_day(d: date, unit: str) -> date:
    """The first day of ``d``'s year, quarter, month or week (a Monday)."""
    if unit == "WEEK":
        return d - timedelta(days=d.weekday())
    if unit == "YEAR":
        return d.replace(month=1, day=1)
    first_month = (d.month - 1) // 3 * 3 + 1 if unit == "QUARTER" else d.month
    return d.replace(month=first_month, day=1)


def _trunc(unit: str | None) -> Callable[[Any], date | None]:
    """``trunc(d, fmt)``: the DATE ``d`` (a TIMESTAMP's date) truncated to a year,
    quarter, month or week; NULL for a unit Spark does not truncate dates to."""

    def trunc(v: Any) -> date | None:
        return None if unit is None else _truncated_day(day_of(v), unit)

    return trunc


def _date_trunc(unit: str | None) -> Callable[[Any], datetime | None]:
    """``date_trunc(fmt, ts)``: as Spark truncates a TIMESTAMP in the session zone: below
    a minute the instant, a minute to a day its wall-clock time (the offset kept where
    the time is ambiguous, moved past a gap), a week to a year its date's first day at
    its start in the zone; NULL for a unit Spark does not know."""

    def date_trunc(v: Any) -> datetime | FarTimestamp | None:
        if unit is None:
            return None
        if isinstance(v, FarTimestamp) and v.zone is not None:
            return through_cycles(date_trunc, v)
        ts = _zoned(v)
        if unit in ("MICROSECOND", "MILLISECOND", "SECOND"):
            micros = (ts - _EPOCH) // _MICRO
            cut = micros - micros % _MICROS_PER[unit]
            return (_EPOCH + cut * _MICRO).astimezone(ts.tzinfo)
        local = ts.replace(tzinfo=None)
        if unit == "MINUTE":
            local = local.replace(second=0, microsecond=0)
        elif unit == "HOUR":
            local = local.replace(minute=0, second=0, microsecond=0)
        else:
            day = local.date() if unit == "DAY" else _truncated_day(local.date(), unit)
            return _in_zone(datetime.combine(day, datetime.min.time()), ts)
        return _offset_kept(local, ts)

    return date_trunc


def _offset_kept(local: datetime, ts: datetime) -> datetime:
    """Wall-clock time ``local`` in ``ts``'s zone as Java's ``ZonedDateTime.truncatedTo``
    resolves it: with ``ts``'s offset where that is one of the time's (an overlap),
    else the earlier one; a time in a gap moves later by the gap."""
    for fold in (0, 1):
        back = resolved(local.replace(fold=fold), ts.tzinfo)
        if back.replace(tzinfo=None) == local and back.utcoffset() == ts.utcoffset():
            return back
    return resolved(local.replace(fold=0), ts.tzinfo)


def _zoned(v: Any) -> datetime:
    """A TIMESTAMP in the session zone; a TIMESTAMP_NTZ or DATE read there (Spark's cast
    to TIMESTAMP)."""
    if isinstance(v, date) and not isinstance(v, datetime):
        v = datetime.combine(v, datetime.min.time())
    ts = _timestamp(v)
    zone = session_zone() or timezone.utc
    return resolved(ts, zone) if ts.tzinfo is None else ts.astimezone(zone)


#: Spark's ``dayname``/``monthname`` texts (``DateTimeUtils``, in English whatever the
#: locale)
_DAY_NAMES = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTH_NAMES = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")

DATETIME_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "DAYNAME": lambda v: _DAY_NAMES[day_of(v).weekday()],
    "MONTHNAME": lambda v: _MONTH_NAMES[day_of(v).month - 1],
    "HOUR": lambda v: _timestamp(v).hour,
    "MINUTE": lambda v: _timestamp(v).minute,
    "SECOND": lambda v: _timestamp(v).second,
    "YEAR": lambda v: day_of(v).year,
    "MONTH": lambda v: day_of(v).month,
    "DAY": lambda v: day_of(v).day,
    "QUARTER": lambda v: (day_of(v).month - 1) // 3 + 1,
    "DAYOFWEEK": lambda v: _day_of_week(day_of(v)),
    # (the day and week of the year repeat every 400 years: past 9999 too)
    "DAYOFYEAR": lambda v: near_of(day_of(v))[0].timetuple().tm_yday,
    "WEEKOFYEAR": lambda v: near_of(day_of(v))[0].isocalendar()[1],
    "WEEKDAY": lambda v: day_of(v).weekday(),
    "EXTRACT": extract,
    "DATE_PART": extract,
    "DATEPART": extract,
    **{f"TIMESTAMPADD_{unit}": _timestamp_add(unit) for unit in TIMESTAMP_UNITS},
    **{f"TIMESTAMPDIFF_{unit}": _timestamp_diff(unit) for unit in TIMESTAMP_UNITS},
    "UNIX_DATE": lambda v: (day_of(v) - _EPOCH.date()).days,
    "UNIX_MICROS": _unix(1),
    "UNIX_MILLIS": _unix(1_000),
    "UNIX_SECONDS": _unix(1_000_000),
    "LAST_DAY": last_day,
    **{f"TRUNC_{unit}": _trunc(unit) for unit in (*set(TRUNC_UNITS.values()), None)},
    **{f"DATE_TRUNC_{unit}": _date_trunc(unit) for unit in (*set(DATE_TRUNC_UNITS.values()), None)},
    # a unit read from a row, as written: date_trunc(B.grain, A.ts), trunc(A.d, B.grain)
    "DATE_TRUNC": lambda unit, v: _date_trunc(DATE_TRUNC_UNITS.get(str(unit).upper()))(v),
    "TRUNC": lambda v, unit: _trunc(TRUNC_UNITS.get(str(unit).upper()))(v),
}

DATETIME_NODES: dict[type, str] = {
    exp.Hour: "HOUR",
    exp.Minute: "MINUTE",
    exp.Second: "SECOND",
    exp.Year: "YEAR",
    exp.Month: "MONTH",
    exp.Day: "DAY",
    exp.DayOfMonth: "DAY",
    exp.Quarter: "QUARTER",
    exp.DayOfWeek: "DAYOFWEEK",
    exp.DayOfYear: "DAYOFYEAR",
    exp.WeekOfYear: "WEEKOFYEAR",
    exp.UnixDate: "UNIX_DATE",
    exp.UnixMicros: "UNIX_MICROS",
    exp.UnixMillis: "UNIX_MILLIS",
    exp.UnixSeconds: "UNIX_SECONDS",
    exp.LastDay: "LAST_DAY",
    exp.NextDay: "NEXT_DAY",
    exp.Dayname: "DAYNAME",
    exp.Monthname: "MONTHNAME",
}


#: the calls the dialect keeps as written when their literal unit is none of Spark's
#: (``date_trunc('H', ts)``) -> the argument that is the unit
_UNIT_AT = {"DATE_TRUNC": 0, "TRUNC": 1}


def _unknown_unit(node: exp.Expression) -> str | None:
    """``DATE_TRUNC`` or ``TRUNC`` for such a call of two arguments, else None."""
    if not isinstance(node, exp.Anonymous) or len(node.expressions) != 2:
        return None
    name = str(node.this).upper()
    unit = node.expressions[_UNIT_AT[name]] if name in _UNIT_AT else None
    return name if isinstance(unit, exp.Literal) and unit.is_string else None


def datetime_name(node: exp.Expression) -> str | None:
    """The entry of a call sqlglot reads with extra slots: ``extract(field FROM x)`` (its
    field is a name), ``timestampadd(unit, n, x)`` (one entry per unit)."""
    if isinstance(node, exp.Extract):
        return "EXTRACT"
    if isinstance(node, (exp.TimestampTrunc, exp.DateTrunc)):
        unit = node.args.get("unit")
        if not isinstance(unit, (exp.Var, exp.Literal)):
            return None  # a unit read from a row: not computed here
        units = TRUNC_UNITS if isinstance(node, exp.DateTrunc) else DATE_TRUNC_UNITS
        kind = "TRUNC" if isinstance(node, exp.DateTrunc) else "DATE_TRUNC"
        return f"{kind}_{units.get(str(unit.this).upper())}"
    unknown = _unknown_unit(node)
    if unknown is not None:  # a literal unit Spark does not know: NULL
        return f"{unknown}_None"
    if isinstance(node, (exp.TimestampAdd, exp.TimestampDiff)):
        unit = node.args.get("unit")
        name = unit.name.upper() if isinstance(unit, exp.Expression) else str(unit).upper()
        kind = "TIMESTAMPADD" if isinstance(node, exp.TimestampAdd) else "TIMESTAMPDIFF"
        return f"{kind}_{name}" if name in TIMESTAMP_UNITS else None
    return None


def datetime_args(node: exp.Expression) -> list[exp.Expression] | None:
    """The arguments of those calls, in their functions' order (an EXTRACT field as a
    string literal)."""
    if isinstance(node, exp.Extract):
        return [exp.Literal.string(node.this.name), node.expression]
    if isinstance(node, (exp.TimestampTrunc, exp.DateTrunc)):
        return [node.this]
    unknown = _unknown_unit(node)
    if unknown is not None:
        return [node.expressions[1 if unknown == "DATE_TRUNC" else 0]]
    if isinstance(node, exp.TimestampAdd):
        return [node.this, node.expression]
    if isinstance(node, exp.TimestampDiff):  # timestampdiff(unit, start, end)
        return [node.expression, node.this]
    return None
