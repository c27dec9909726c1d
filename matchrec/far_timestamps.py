"""TIMESTAMPs whose instant is outside the years 1-9999 of UTC that Python holds.

Spark's TIMESTAMP is a count of microseconds from 1970-01-01 00:00 UTC in a LONG, so it
runs from year -290308 to 294247. ``TIMESTAMP'9999-12-31 23:59:59'``, the usual open end
of a slowly changing dimension, is ``+10000-01-01 07:59:59`` UTC in Los Angeles, and
Arrow's conversion of it to a Python ``datetime`` overflows: one such row would fail its
whole batch. Such a value is read as a :class:`FarTimestamp`, which holds its count of
microseconds and the session zone (None for a TIMESTAMP_NTZ, whose wall clock is its UTC
fields): comparing, equality, hashing, the interval between two TIMESTAMPs and writing
it back to Arrow work by the count; its wall clock (year, month, day, hour, minute,
second, weekday, date) and its text are computed 400 years nearer, where Python holds
them. That is exact because 400 Gregorian years are a whole number of weeks (146,097
days), and the zone rules that far out repeat: past their last transition each zone
follows one yearly rule, and before its first one its local mean time (Java reads them
so too). :func:`through_cycles` runs a function of a ``datetime`` (adding an interval on
the wall clock, truncating) the same way. What else reads it raises
:class:`~matchrec.far_dates.FarCalendar`, which the evaluator reports at the call.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime, time, timedelta, timezone, tzinfo
from typing import Any, NoReturn

from matchrec.far_dates import FarDate, date_of_days, days_of, far_refusal, fields_text

_MICRO = timedelta(microseconds=1)
_UTC_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_NAIVE_EPOCH = datetime(1970, 1, 1)
_CYCLE_DAYS = 146_097  # the days of 400 Gregorian years
_DAY_MICROS = 86_400_000_000
_CYCLE = timedelta(days=_CYCLE_DAYS)
CYCLE_MICROS = _CYCLE // _MICRO
#: a far value is moved by whole cycles into these instants, a century inside Python's
#: years on either side, so that a wall clock, or an interval added, stays there too
_NEAR = (
    (datetime(100, 1, 1, tzinfo=timezone.utc) - _UTC_EPOCH) // _MICRO,
    (datetime(9900, 1, 1, tzinfo=timezone.utc) - _UTC_EPOCH) // _MICRO,
)
_NEAR_DAYS = (_NEAR[0] // 86_400_000_000, _NEAR[1] // 86_400_000_000)


def year_cycles(year: int) -> int:
    """How many 400-year cycles later than a year near Python's (inside its years, a
    century from either end) ``year`` is."""
    return _cycles(year, 100, 9900, 400)


def _cycles(count: int, low: int, high: int, cycle: int) -> int:
    """How many whole cycles of ``cycle`` (a count of days or microseconds) move
    ``count`` to below ``high`` from later, to ``low`` or after from earlier; 0 where it
    is between them. A later value is moved to the late end, where zones repeat their
    yearly rule, an earlier one to the early end, where they keep local mean time."""
    if count >= high:
        return (count - high) // cycle + 1
    if count < low:
        return -((low - count - 1) // cycle + 1)
    return 0


#: Spark's TIMESTAMP: a count of microseconds in a signed 64-bit LONG
SPARK_MICROS = range(-(2**63), 2**63)


class FarTimestamp:
    """A TIMESTAMP whose instant is outside years 1-9999 of UTC: microseconds from the
    epoch, in ``zone`` (the session's; None: a TIMESTAMP_NTZ)."""

    __slots__ = ("micros", "zone")

    def __init__(self, micros: int, zone: tzinfo | None):
        self.micros = micros
        self.zone = zone

    @property
    def tzinfo(self) -> tzinfo | None:
        return self.zone

    def __repr__(self) -> str:
        kind = "TIMESTAMP" if self.zone is not None else "TIMESTAMP_NTZ"
        return f"the {kind} {timestamp_text(self)}"

    def __str__(self) -> str:
        return timestamp_text(self)

    def _calendar(self, *_: Any, **__: Any) -> NoReturn:
        raise far_refusal(self)

    astimezone = replace = isoformat = strftime = timetuple = timestamp = _calendar
    toordinal = isocalendar = ctime = utcoffset = timetz = _calendar

    def __format__(self, spec: str) -> str:
        return str(self) if not spec else self._calendar()

    def near(self) -> tuple[datetime, int]:
        """The same wall clock some whole 400-year cycles nearer, where Python holds it
        (in the zone; naive for a TIMESTAMP_NTZ), and how many cycles later this is."""
        cycles = _cycles(self.micros, *_NEAR, CYCLE_MICROS)
        moved = self.micros - cycles * CYCLE_MICROS
        if self.zone is None:
            return _NAIVE_EPOCH + moved * _MICRO, cycles
        return (_UTC_EPOCH + moved * _MICRO).astimezone(self.zone), cycles

    def wall_clock(self) -> tuple[int, int, int, int, int, int, int]:
        """Year (ISO's proleptic: 0 before 1), month, day, hour, minute, second and
        microsecond of the wall clock in the zone."""
        near, cycles = self.near()
        return (
            near.year + 400 * cycles,
            near.month,
            near.day,
            near.hour,
            near.minute,
            near.second,
            near.microsecond,
        )

    year = property(lambda self: self.wall_clock()[0])
    month = property(lambda self: self.wall_clock()[1])
    day = property(lambda self: self.wall_clock()[2])
    hour = property(lambda self: self.wall_clock()[3])
    minute = property(lambda self: self.wall_clock()[4])
    second = property(lambda self: self.wall_clock()[5])
    microsecond = property(lambda self: self.wall_clock()[6])

    def date(self) -> date | FarDate:
        """The date of the wall clock in the zone."""
        near, cycles = self.near()
        return date_of_days(days_of(near.date()) + cycles * _CYCLE_DAYS)

    def time(self) -> time:
        """The time of day of the wall clock in the zone."""
        return self.near()[0].time()

    def offset_text(self) -> str:
        """The zone's offset from UTC at this instant as ISO writes it (``-08:00``,
        ``-07:52:58``); empty for a TIMESTAMP_NTZ."""
        offset = self.near()[0].utcoffset()
        if offset is None:
            return ""
        seconds = int(offset.total_seconds())
        sign = "-" if seconds < 0 else "+"
        hours, rest = divmod(abs(seconds), 3600)
        minutes, second = divmod(rest, 60)
        return f"{sign}{hours:02d}:{minutes:02d}" + (f":{second:02d}" if second else "")

    def weekday(self) -> int:
        return self.near()[0].weekday()  # a cycle is a whole number of weeks

    def isoweekday(self) -> int:
        return self.weekday() + 1

    def __hash__(self) -> int:
        return hash((FarTimestamp, self.micros))

    def __eq__(self, other: object) -> Any:
        micros = _micros_of(other, self.zone)
        return NotImplemented if micros is NotImplemented else micros == self.micros

    def __ne__(self, other: object) -> Any:
        micros = _micros_of(other, self.zone)
        return NotImplemented if micros is NotImplemented else micros != self.micros

    def __lt__(self, other: object) -> Any:
        micros = _micros_of(other, self.zone)
        return NotImplemented if micros is NotImplemented else self.micros < micros

    def __le__(self, other: object) -> Any:
        micros = _micros_of(other, self.zone)
        return NotImplemented if micros is NotImplemented else self.micros <= micros

    def __gt__(self, other: object) -> Any:
        micros = _micros_of(other, self.zone)
        return NotImplemented if micros is NotImplemented else self.micros > micros

    def __ge__(self, other: object) -> Any:
        micros = _micros_of(other, self.zone)
        return NotImplemented if micros is NotImplemented else self.micros >= micros

    def wall_micros(self) -> int:
        """Microseconds from 1970-01-01 00:00 to the wall clock in the zone."""
        if self.zone is None:
            return self.micros
        near, cycles = self.near()
        return micros_of(near.replace(tzinfo=None)) + cycles * CYCLE_MICROS

    def __sub__(self, other: object) -> Any:
        """The interval between two TIMESTAMPs (:func:`_difference`; adding an interval:
        :func:`through_cycles`)."""
        return _difference(self, other)

    def __rsub__(self, other: object) -> Any:
        difference = _difference(self, other)
        return difference if difference is NotImplemented else -difference

    def __reduce__(self) -> tuple[Any, ...]:
        return (FarTimestamp, (self.micros, self.zone))


def _micros_of(other: object, zone: tzinfo | None) -> Any:
    """``other``'s microseconds from the epoch, for a FarTimestamp in ``zone`` to meet:
    an aware ``datetime`` beside a TIMESTAMP, a naive one beside a TIMESTAMP_NTZ."""
    if isinstance(other, FarTimestamp) and (other.zone is None) == (zone is None):
        return other.micros
    if isinstance(other, datetime):
        return micros_of(other) if (other.tzinfo is None) == (zone is None) else NotImplemented
    if isinstance(other, (date, FarDate)):  # a DATE beside a TIMESTAMP: its midnight
        return midnight_micros(other, zone)
    return NotImplemented


def _difference(far: FarTimestamp, other: object) -> Any:
    """``far - other`` as Python subtracts datetimes: by their wall clocks where both
    are in one zone (Spark subtracts TIMESTAMPs so, in the session zone), else by their
    instants; a DATE beside a TIMESTAMP is its midnight there."""
    if isinstance(other, (date, FarDate)) and not isinstance(other, datetime):
        return (far.wall_micros() - days_of(other) * _DAY_MICROS) * _MICRO
    micros = _micros_of(other, far.zone)
    if micros is NotImplemented:
        return NotImplemented
    if far.zone is None or getattr(other, "tzinfo", None) != far.zone:
        return (far.micros - micros) * _MICRO
    return (far.wall_micros() - FarTimestamp(micros, far.zone).wall_micros()) * _MICRO


def midnight_micros(day: date | FarDate, zone: tzinfo | None) -> int:
    """The microseconds from the epoch of the first instant of ``day`` in ``zone`` (of
    its wall-clock midnight, for a TIMESTAMP_NTZ), as Spark casts a DATE to TIMESTAMP."""
    near, cycles = near_of(day)
    midnight = datetime.combine(near, datetime.min.time(), tzinfo=zone)
    return micros_of(midnight) + cycles * CYCLE_MICROS


def midnight_of(day: date | FarDate, zone: tzinfo | None) -> datetime | FarTimestamp:
    """A DATE as Spark casts it to TIMESTAMP: its first instant in ``zone`` (None: its
    wall-clock midnight, a TIMESTAMP_NTZ), a FarTimestamp past Python's years."""
    return timestamp_of_micros(midnight_micros(day, zone), zone)


def near_of(value: Any) -> tuple[Any, int]:
    """``value`` (a DATE, TIMESTAMP or TIMESTAMP_NTZ) some whole 400-year cycles nearer,
    where Python holds it, and how many cycles later it is (0 for a value Python
    holds: the value itself)."""
    if isinstance(value, FarTimestamp):
        return value.near()
    if isinstance(value, FarDate):
        cycles = _cycles(value.days, *_NEAR_DAYS, _CYCLE_DAYS)
        return date_of_days(value.days - cycles * _CYCLE_DAYS), cycles
    return value, 0


def micros_of(value: datetime | FarTimestamp) -> int:
    """A TIMESTAMP's microseconds from the epoch (a naive one's: of its wall clock as
    UTC, as Spark holds a TIMESTAMP_NTZ)."""
    if isinstance(value, FarTimestamp):
        return value.micros
    epoch = _NAIVE_EPOCH if value.tzinfo is None else _UTC_EPOCH
    return (value - epoch) // _MICRO


def timestamp_of_micros(micros: int, zone: tzinfo | None) -> datetime | FarTimestamp:
    """The TIMESTAMP ``micros`` from the epoch in ``zone`` (None: a TIMESTAMP_NTZ): a
    ``datetime`` where Python holds its instant and its wall clock, else a FarTimestamp."""
    if micros not in SPARK_MICROS:
        raise ArithmeticError("the TIMESTAMP is out of Spark's range (ARITHMETIC_OVERFLOW)")
    try:
        if zone is None:
            return _NAIVE_EPOCH + micros * _MICRO
        return (_UTC_EPOCH + micros * _MICRO).astimezone(zone)
    except OverflowError:
        return FarTimestamp(micros, zone)


def through_cycles(fn: Callable[..., Any], value: FarTimestamp, *args: Any) -> Any:
    """``fn(value, *args)`` for a function of a ``datetime`` that moves or truncates its
    wall clock (adds an interval, truncates to a unit): computed whole 400-year cycles
    nearer, and its TIMESTAMP or DATE moved back as far."""
    near, cycles = value.near()
    result = fn(near, *args)
    if isinstance(result, datetime):
        return timestamp_of_micros(micros_of(result) + cycles * CYCLE_MICROS, result.tzinfo)
    if isinstance(result, (date, FarDate)):
        return date_of_days(days_of(result) + cycles * _CYCLE_DAYS)
    return result


def wall_fields(value: datetime | FarTimestamp) -> tuple[int, int, int, int, int, int, int]:
    """Year, month, day, hour, minute, second and microsecond of a TIMESTAMP's wall
    clock, of a FarTimestamp too."""
    if isinstance(value, FarTimestamp):
        return value.wall_clock()
    v = value
    return v.year, v.month, v.day, v.hour, v.minute, v.second, v.microsecond


def timestamp_text(value: datetime | FarTimestamp) -> str:
    """A TIMESTAMP's wall clock as Spark's CAST to STRING writes it (a sign before a year
    past 9999 or before year 0; the fraction without its trailing zeros)."""
    year, month, day, hour, minute, second, micro = wall_fields(value)
    text = f"{fields_text(year, month, day)} {hour:02d}:{minute:02d}:{second:02d}"
    return text + (f".{micro:06d}".rstrip("0") if micro else "")
