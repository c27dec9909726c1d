"""TIMESTAMPs whose wall clock in the session zone Python cannot hold.

Spark holds a TIMESTAMP from year -290308 to 294247; Python's datetime holds years
1-9999. An instant inside Python's range can still have a wall clock outside it in the
session zone (``0001-01-01 00:00 UTC`` is year 0 in Los Angeles), and Arrow's
conversion to Python values, which writes each TIMESTAMP in its zone, then fails. Such
a value is read in UTC as a :class:`FarInstant`: what needs only the instant
(comparisons, subtraction, adding an interval, writing it back to Arrow) works; what
reads its wall clock (``hour``, ``date_format``, a CAST to text) raises, where the
wall clock would be that of UTC and the answer wrong.
"""

from __future__ import annotations

from datetime import datetime, timezone, tzinfo
from typing import Any, NoReturn

from matchrec.far_dates import FarCalendar
from matchrec.sql_values import leaves_mapped

#: how to avoid the error
FAR_HINT = "compute it in matchrec.sql's MEASURES, or keep such rows out of the match"


class FarWallClock(FarCalendar):
    """The wall clock of a :class:`FarInstant` was read."""


class FarInstant(datetime):
    """A TIMESTAMP in UTC whose wall clock in the session zone is outside years 1-9999."""

    def _wall_clock(self, *_: Any) -> NoReturn:
        raise FarWallClock(
            f"the TIMESTAMP {self!r} has a wall clock in the session time zone outside "
            "the years 1-9999 that the evaluator of several rows holds (Spark holds it)"
        )

    def __repr__(self) -> str:
        # (computing it from the instant would read a zone's offset, which may read the
        # wall clock: a value derived from one read, ``ts + INTERVAL '1' DAY``, is named so)
        return getattr(self, "utc_text", "near year 1 or year 9999")

    year = month = day = hour = minute = second = microsecond = property(_wall_clock)
    date = time = timetuple = strftime = isoformat = __format__ = __str__ = _wall_clock
    weekday = isoweekday = isocalendar = toordinal = ctime = _wall_clock


def in_zone(value: Any, zone: tzinfo) -> Any:
    """``value`` (Arrow's Python value read in UTC, at any depth) with each TIMESTAMP in
    ``zone``, or a :class:`FarInstant` where its wall clock there is outside years 1-9999."""
    return leaves_mapped(value, lambda v: _zoned(v, zone))


def _zoned(value: Any, zone: tzinfo) -> Any:
    if not (isinstance(value, datetime) and value.tzinfo is not None):
        return value
    try:
        return value.astimezone(zone)
    except OverflowError:
        utc = value.astimezone(timezone.utc)
        far = FarInstant(*utc.timetuple()[:6], utc.microsecond, tzinfo=timezone.utc)
        far.utc_text = f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d} {utc:%H:%M:%S} UTC"
        return far
