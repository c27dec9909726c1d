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

#: Java's ``ZoneId.SHORT_IDS``
_SHORT_IDS = {
    "EST": "-05:00",
    "MST": "-07:00",
    "HST": "-10:00",
    "ACT": "Australia/Darwin",
    "AET": "Australia/Sydney",
    "AGT": "America/Argentina/Buenos_Aires",
    "ART": "Africa/Cairo",
    "AST": "America/Anchorage",
    "BET": "America/Sao_Paulo",
    "BST": "Asia/Dhaka",
    "CAT": "Africa/Harare",
    "CNT": "America/St_Johns",
    "CST": "America/Chicago",
    "CTT": "Asia/Shanghai",
    "EAT": "Africa/Addis_Ababa",
    "ECT": "Europe/Paris",
    "IET": "America/Indiana/Indianapolis",
    "IST": "Asia/Kolkata",
    "JST": "Asia/Tokyo",
    "MIT": "Pacific/Apia",
    "NET": "Asia/Yerevan",
    "NST": "Pacific/Auckland",
    "PLT": "Asia/Karachi",
    "PNT": "America/Phoenix",
    "PRT": "America/Puerto_Rico",
    "PST": "America/Los_Angeles",
    "SST": "Pacific/Guadalcanal",
    "VST": "Asia/Ho_Chi_Minh",
}
_JAVA_OFFSET = re.compile(r"([+-])(\d{1,2})(?::?(\d{2}))?(?::?(\d{2}))?")
_PREFIXED = re.compile(r"(UTC|GMT|UT)(?:([+-].*))?")


def _offset(text: str) -> tzinfo:
    """A zone offset as Java's ``ZoneOffset.of`` reads it (hours up to 18)."""
    found = _JAVA_OFFSET.fullmatch(text)
    if found is None:
        raise ValueError(f"{text!r} is not a zone offset")
    sign, hours, minutes, seconds = found.groups()
    if len(hours) == 1 and minutes is not None and ":" not in text:
        raise ValueError(f"{text!r} is not a zone offset")
    h, m, s = int(hours), int(minutes or 0), int(seconds or 0)
    if h > 18 or m > 59 or s > 59 or (h == 18 and (m or s)):
        raise ValueError(f"{text!r} is out of a zone offset's range")
    delta = timedelta(hours=h, minutes=m, seconds=s)
    return timezone(-delta if sign == "-" else delta)


def java_zone(text: str) -> tzinfo:
    """The zone ``text`` names, as Spark's ``getZoneId`` reads it (Java's ``ZoneId.of``
    with its short ids; a one-digit hour or minute of an offset padded, as Spark
    accepted before 3.0); ValueError for no zone."""
    name = re.sub(r"([+-])(\d):", r"\g<1>0\2:", text, count=1)
    name = re.sub(r"([+-])(\d\d):(\d)$", r"\1\2:0\3", name, count=1)
    name = _SHORT_IDS.get(name, name)
    if name == "Z":
        return timezone.utc
    if name[:1] in "+-":
        return _offset(name)
    prefixed = _PREFIXED.fullmatch(name)
    if prefixed is not None:
        return _offset(prefixed.group(2)) if prefixed.group(2) else timezone.utc
    try:
        return ZoneInfo(name)
    except (ValueError, ZoneInfoNotFoundError):
        raise ValueError(f"{text!r} is not a time zone") from None


def zone_named(name: str | None) -> tzinfo | None:
    """The zone of a ``spark.sql.session.timeZone`` value: a region (``Europe/Paris``)
    or an offset (``+05:30``, ``GMT-8``); None for no name or one Python cannot read."""
    if not name:
        return None
    try:
        return java_zone(name)
    except ValueError:
        return None


def session_zone() -> tzinfo | None:
    """The session zone this worker's glue reads (a function: a closure that reads the
    context variable itself could not be pickled to an executor)."""
    return SESSION_ZONE.get()


def use_zone(name: str | None) -> None:
    """Make ``name`` the session zone of this worker's glue (a worker may serve several
    sessions, so each door sets it before matching)."""
    SESSION_ZONE.set(zone_named(name))


def arrow_zone_name(name: str) -> str | None:
    """The name Arrow's conversion to Python reads for Spark's session zone ``name``
    (``UTC+05:30``, ``GMT-08:00``, ``Z`` and ``PST`` are Java's names, not Python's): a
    region's key, an offset as ``+05:30``; None where ``name`` is no zone or an offset
    with seconds, which Arrow cannot hold (its values then fail as before)."""
    try:
        zone = java_zone(name)
    except ValueError:
        return None
    return arrow_zone_of(zone)


def arrow_zone_of(zone: tzinfo) -> str | None:
    """The name Arrow gives ``zone`` (see :func:`arrow_zone_name`)."""
    if isinstance(zone, ZoneInfo):
        return zone.key
    offset = zone.utcoffset(None)
    if offset is None or offset % timedelta(minutes=1):
        return None
    minutes = offset // timedelta(minutes=1)
    sign = "-" if minutes < 0 else "+"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"
