"""The Spark session time zone on the worker that evaluates DEFINE glue and measures.

Spark hands TIMESTAMP values to Python in the session zone, so most glue reads the zone
from the values themselves; a DATE meeting a day-time interval with hours (its midnight
is a zone's midnight) has no zone of its own and reads :data:`SESSION_ZONE`, which each
door sets on the worker before matching.
"""

from __future__ import annotations

import re
from contextvars import ContextVar
from datetime import timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

#: the session time zone where the worker knows it (None: unknown; a wall-clock time
#: cast to TIMESTAMP then reads as UTC)
SESSION_ZONE: ContextVar[tzinfo | None] = ContextVar("matchrec_session_zone", default=None)

_OFFSET = re.compile(r"(?:GMT|UTC)?([+-])(\d{1,2}):?(\d{2})?")


def zone_named(name: str | None) -> tzinfo | None:
    """The zone of a ``spark.sql.session.timeZone`` value: a region (``Europe/Paris``)
    or an offset (``+05:30``, ``GMT-8``); None for no name or one Python cannot read."""
    if not name:
        return None
    try:
        return ZoneInfo(name)
    except (ValueError, ZoneInfoNotFoundError):
        found = _OFFSET.fullmatch(name)
        if found is None:
            return None
        sign = -1 if found.group(1) == "-" else 1
        offset = timedelta(hours=int(found.group(2)), minutes=int(found.group(3) or 0))
        return timezone(sign * offset)


def session_zone() -> tzinfo | None:
    """The session zone this worker's glue reads (a function: a closure that reads the
    context variable itself could not be pickled to an executor)."""
    return SESSION_ZONE.get()


def use_zone(name: str | None) -> None:
    """Make ``name`` the session zone of this worker's glue (a worker may serve several
    sessions, so each door sets it before matching)."""
    SESSION_ZONE.set(zone_named(name))
