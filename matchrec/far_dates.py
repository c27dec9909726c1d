"""DATEs outside the years 1-9999 that Python's ``date`` holds.

Spark's DATE is a count of days from 1970-01-01 in an INT, so it runs far past year
9999: ``DATE'9999-12-31'``, the usual open end of a slowly changing dimension, plus one
day is ``+10000-01-01``. Arrow's conversion of such a value to a Python ``date``
overflows, and one such row would fail its whole batch. Such a value is read as a
:class:`FarDate`, which holds its count of days: comparing, equality, hashing, adding or
subtracting days, the days between two dates and writing it back to Arrow work as
Spark's DATE does, and so do its year, month, day and weekday (the Gregorian calendar
repeats every 400 years, so Python's calendar computes them 400 years at a time) and a
new date from fields (``add_months``, ``make_date``). What else reads its calendar
(``isoformat``, ``strftime``: ``date_format``, ``dayofyear``) raises
:class:`FarCalendar`, which the evaluator reports at the call that read it.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any, NoReturn

_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()
#: the days from 1970-01-01 of the first and last DATE Python holds
FIRST_DAY = date.min.toordinal() - _EPOCH_ORDINAL
LAST_DAY = date.max.toordinal() - _EPOCH_ORDINAL
_DAY = timedelta(days=1)
_CYCLE = 146_097  # the days of 400 Gregorian years, after which the calendar repeats
#: how to avoid the error of a call that cannot read such a value
FAR_HINT = "compute it in matchrec.sql's MEASURES, or keep such rows out of the match"


class FarCalendar(ValueError):
    """A call read what is not computed of a DATE or TIMESTAMP outside the years Python
    holds (a :class:`FarDate`, a ``far_timestamps.FarTimestamp``)."""


class FarDate:
    """A DATE outside years 1-9999, held as its count of days from 1970-01-01."""

    __slots__ = ("days",)

    def __init__(self, days: int):
        self.days = days

    def __repr__(self) -> str:
        return f"the DATE {calendar_text(self.days)}"

    def __str__(self) -> str:
        return calendar_text(self.days)

    def _calendar(self, *_: Any, **__: Any) -> NoReturn:
        raise far_refusal(self)

    @property
    def year(self) -> int:
        return calendar_fields(self.days)[0]

    @property
    def month(self) -> int:
        return calendar_fields(self.days)[1]

    @property
    def day(self) -> int:
        return calendar_fields(self.days)[2]

    def weekday(self) -> int:
        return (self.days + 3) % 7  # 1970-01-01 was a Thursday

    def isoweekday(self) -> int:
        return self.weekday() + 1

    def replace(
        self, year: int | None = None, month: int | None = None, day: int | None = None
    ) -> date | FarDate:
        """``date.replace``: the same day with the fields given."""
        given = (year, month, day)
        fields = [old if new is None else new for new, old in zip(given, self.year_month_day)]
        return date_of_fields(*fields)

    @property
    def year_month_day(self) -> tuple[int, int, int]:
        return calendar_fields(self.days)

    isocalendar = isoformat = strftime = timetuple = toordinal = ctime = _calendar

    def __format__(self, spec: str) -> str:
        return str(self) if not spec else self._calendar()

    def __hash__(self) -> int:
        return hash((FarDate, self.days))

    def __eq__(self, other: object) -> Any:
        days = _days(other)
        return NotImplemented if days is NotImplemented else days == self.days

    def __ne__(self, other: object) -> Any:
        days = _days(other)
        return NotImplemented if days is NotImplemented else days != self.days

    def __lt__(self, other: object) -> Any:
        days = _days(other)
        return NotImplemented if days is NotImplemented else self.days < days

    def __le__(self, other: object) -> Any:
        days = _days(other)
        return NotImplemented if days is NotImplemented else self.days <= days

    def __gt__(self, other: object) -> Any:
        days = _days(other)
        return NotImplemented if days is NotImplemented else self.days > days

    def __ge__(self, other: object) -> Any:
        days = _days(other)
        return NotImplemented if days is NotImplemented else self.days >= days

    def __add__(self, other: object) -> Any:
        if not isinstance(other, timedelta):
            return NotImplemented
        if other % _DAY:
            self._calendar()  # a DATE moved by hours is a TIMESTAMP in its wall clock
        return date_of_days(self.days + other.days)

    __radd__ = __add__

    def __sub__(self, other: object) -> Any:
        if isinstance(other, timedelta):
            return self + -other
        days = _days(other)
        if days is NotImplemented or isinstance(other, datetime):
            return NotImplemented
        return timedelta(days=self.days - days)

    def __rsub__(self, other: object) -> Any:
        days = _days(other)
        if days is NotImplemented or isinstance(other, datetime):
            return NotImplemented
        return timedelta(days=days - self.days)

    def __reduce__(self) -> tuple[Any, ...]:
        return (FarDate, (self.days,))


def far_refusal(value: Any) -> FarCalendar:
    """The error of a call that cannot read ``value``, a FarDate or a
    ``far_timestamps.FarTimestamp``."""
    return FarCalendar(
        f"{value!r} is outside the years 1-9999 that the evaluator of several rows "
        "holds, and this call cannot read it here (Spark can)"
    )


def _days(other: object) -> Any:
    """``other``'s days from 1970-01-01 for comparing with a FarDate; a TIMESTAMP compares
    by its date, since every TIMESTAMP Python holds is inside the years a FarDate is
    outside of (a ``far_timestamps.FarTimestamp`` compares by its instant)."""
    if isinstance(other, FarDate):
        return other.days
    if isinstance(other, date):
        return other.toordinal() - _EPOCH_ORDINAL
    return NotImplemented


def date_of_days(days: int) -> date | FarDate:
    """The DATE ``days`` from 1970-01-01: a ``date`` where Python holds it."""
    if FIRST_DAY <= days <= LAST_DAY:
        return date.fromordinal(days + _EPOCH_ORDINAL)
    return FarDate(days)


def days_of(value: date | FarDate) -> int:
    """The days from 1970-01-01 of a DATE value (as Arrow's ``date32`` holds it)."""
    return value.days if isinstance(value, FarDate) else value.toordinal() - _EPOCH_ORDINAL


def calendar_fields(days: int) -> tuple[int, int, int]:
    """The year, month and day of the DATE ``days`` from 1970-01-01, in ISO's proleptic
    calendar as Java counts it (year 0 before year 1): Python's, 400 years at a time."""
    ordinal = days + _EPOCH_ORDINAL
    cycles = (ordinal - 1) // _CYCLE
    moved = date.fromordinal(ordinal - cycles * _CYCLE)
    return moved.year + 400 * cycles, moved.month, moved.day


def date_of_fields(year: int, month: int, day: int) -> date | FarDate:
    """The DATE of ``year``, ``month`` and ``day`` (a valid day of that month), in any
    year Spark's DATE holds."""
    cycles = (year - 1) // 400
    days = days_of(date(year - 400 * cycles, month, day)) + cycles * _CYCLE
    if days not in _SPARK_DAYS:
        raise ArithmeticError(
            f"{year}-{month:02d}-{day:02d} is beyond the DATE range (Spark's ARITHMETIC_OVERFLOW)"
        )
    return date_of_days(days)


def calendar_text(days: int) -> str:
    """The DATE ``days`` from 1970-01-01 as Java writes it (ISO's proleptic calendar: a
    sign before a year past 9999 or before year 0)."""
    return fields_text(*calendar_fields(days))


def fields_text(year: int, month: int, day: int) -> str:
    """A date's fields as Java writes them: a sign before a year past 9999 or before
    year 0."""
    sign = "+" if year > 9999 else "-" if year < 0 else ""
    return f"{sign}{abs(year):04d}-{month:02d}-{day:02d}"


#: Spark's DATE: a count of days in a signed 32-bit INT
_SPARK_DAYS = range(-(2**31), 2**31)


def add_days(value: date | FarDate, days: int) -> date | FarDate:
    """``date_add(value, days)``, past the years Python holds as Spark's DATE runs."""
    moved = days_of(value) + days
    if moved not in _SPARK_DAYS:
        raise ArithmeticError(
            f"{days} days from {value} is beyond the DATE range (Spark's ARITHMETIC_OVERFLOW)"
        )
    return date_of_days(moved)
