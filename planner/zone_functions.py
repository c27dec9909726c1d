"""Spark's time-zone conversions and timestamp constructors, for glue over several rows.

``from_utc_timestamp(LAST(B.ts), FIRST(A.tz))`` or ``make_timestamp(A.y, A.m, B.d, 0, 0,
0)`` read two rows, so no Spark column holds them and the glue computes them. A
TIMESTAMP reaches the glue as a datetime in the session zone, a TIMESTAMP_NTZ as a naive
datetime, a DATE as a date (one outside years 1-9999, a ``matchrec.far_timestamps``
``FarTimestamp`` or a ``FarDate``, computed 400-year cycles nearer); the result is of the
same kind. Spark's implicit casts of the
time argument are applied here as Spark applies them (a DATE is its midnight, a string is
read as CAST reads it, a TIMESTAMP_NTZ is its wall-clock time in the session zone). A zone
name is read as Spark's ``getZoneId`` reads it; one that names no zone is an error in any
mode (Spark's INVALID_TIMEZONE). Each function is compared with Spark on generated values
by ``tests/test_zone_functions.py``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone, tzinfo
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

from sqlglot import exp

from matchrec.far_dates import FarDate
from matchrec.far_timestamps import (
    CYCLE_MICROS,
    FarTimestamp,
    micros_of,
    midnight_of,
    through_cycles,
    timestamp_of_micros,
    year_cycles,
)
from matchrec.zones import java_zone, session_zone

from .datetime_functions import resolved
from .timestamp_text import TimestampNotComputed, TimestampTextError, ntz_of_text, timestamp_of_text

_INT_RANGE = range(-(2**31), 2**31)
_SECONDS = Decimal("0.000001")  # make_timestamp's seconds are a DECIMAL(16, 6)
_SECONDS_LIMIT = Decimal(10) ** 10


def _zone(name: Any) -> tzinfo:
    """The zone a zone argument names; an error in any mode for none (INVALID_TIMEZONE)."""
    if not isinstance(name, str):
        raise TypeError(f"{name!r} is not a time zone name")
    try:
        return java_zone(name)
    except ValueError:
        raise ValueError(
            f"the timezone {name!r} is invalid (Spark's INVALID_TIMEZONE): name a region "
            "such as 'America/Los_Angeles' or an offset such as '+08:00'"
        ) from None


def _session() -> tzinfo:
    return session_zone() or timezone.utc


def _text_failed(text: str, target: str, ansi: bool) -> None:
    if ansi:
        raise ValueError(
            f"{text!r} cannot be cast to {target} (Spark's CAST_INVALID_INPUT under "
            "spark.sql.ansi.enabled)"
        )


def _instant(v: Any, ansi: bool) -> datetime | FarTimestamp | None:
    """``v`` as Spark's implicit CAST to TIMESTAMP makes it, in the session zone (None
    where the cast gives NULL)."""
    if isinstance(v, str):
        try:
            return timestamp_of_text(v, session_zone())
        except TimestampNotComputed as err:
            raise TypeError(str(err)) from None
        except TimestampTextError:
            _text_failed(v, "TIMESTAMP", ansi)
            return None
    if isinstance(v, (datetime, FarTimestamp)):
        return v if v.tzinfo is not None else _far_safe(_resolved, v, _session())
    if isinstance(v, (date, FarDate)):  # its midnight
        return midnight_of(v, _session())
    raise TypeError(f"{v!r} is not a TIMESTAMP")


def _wall_clock(v: Any, ansi: bool) -> datetime | FarTimestamp | None:
    """``v`` as Spark's implicit CAST to TIMESTAMP_NTZ makes it (None where it gives NULL)."""
    if isinstance(v, str):
        try:
            return ntz_of_text(v)
        except TimestampTextError:
            _text_failed(v, "TIMESTAMP_NTZ", ansi)
            return None
    if isinstance(v, (datetime, FarTimestamp)):
        return v if v.tzinfo is None else _far_safe(_session_wall_clock, v)
    if isinstance(v, (date, FarDate)):
        return midnight_of(v, None)
    raise TypeError(f"{v!r} is not a TIMESTAMP_NTZ")


def _far_safe(fn: Callable[..., datetime], v: datetime | FarTimestamp, *args: Any) -> Any:
    """``fn(v, *args)``, computed whole 400-year cycles nearer where ``v`` or the answer
    is outside the years Python holds (``matchrec.far_timestamps``): far from today a
    zone keeps one yearly rule (late) or its local mean time (early), as Java's do."""
    if isinstance(v, FarTimestamp):
        return through_cycles(fn, v, *args)
    try:
        return fn(v, *args)
    except OverflowError:
        return through_cycles(fn, FarTimestamp(micros_of(v), v.tzinfo), *args)


def _shifted(instant: datetime, zone: tzinfo, to_utc: bool) -> datetime:
    """The wall clock of ``instant`` in one zone read in the other (OverflowError where
    Python cannot hold it)."""
    source, target = (zone, timezone.utc) if to_utc else (timezone.utc, zone)
    return _zoned(instant.astimezone(target).replace(tzinfo=None), source)


def _shift(to_utc: bool) -> Callable[[bool], Callable[[Any, Any], datetime | None]]:
    """``from_utc_timestamp(ts, zone)``: ``ts``'s wall-clock time in ``zone`` read as a
    time in UTC; ``to_utc_timestamp(ts, zone)``: its wall-clock time in UTC read as a time
    in ``zone`` (Spark's ``DateTimeUtils.convertTz``)."""

    def build(ansi: bool) -> Callable[[Any, Any], datetime | None]:
        def shift(ts: Any, zone_name: Any) -> datetime | None:
            zone = _zone(zone_name)
            instant = _instant(ts, ansi)
            if instant is None:
                return None
            return _far_safe(_shifted, instant, zone, to_utc)

        return shift

    return build


def _resolved(wall: datetime, zone: tzinfo) -> datetime:
    """Wall-clock time ``wall`` in ``zone`` as Java's ``atZone`` places it
    (``datetime_functions.resolved``): the earlier offset in an overlap."""
    return resolved(wall.replace(fold=0), zone)


def _session_wall_clock(instant: datetime) -> datetime:
    return instant.astimezone(_session()).replace(tzinfo=None, fold=0)  # a wall clock only


def _zoned(wall: datetime, zone: tzinfo) -> datetime:
    """The instant of wall-clock time ``wall`` in ``zone``, in the session zone."""
    return _resolved(wall, zone).astimezone(_session())


def _converted(wall: datetime, source: tzinfo, target: tzinfo) -> datetime:
    return _resolved(wall, source).astimezone(target).replace(tzinfo=None, fold=0)


def convert_timezone(ansi: bool) -> Callable[..., datetime | None]:
    """``convert_timezone([source,] target, ts)``: the TIMESTAMP_NTZ ``ts`` read as a
    wall-clock time in ``source`` (the session zone when not given), written as the
    wall-clock time of that instant in ``target``."""

    def convert(*args: Any) -> datetime | None:
        if len(args) == 2:
            source, (target, ts) = _session(), args
        else:
            source, target, ts = _zone(args[0]), args[1], args[2]
        target_zone = _zone(target)
        wall = _wall_clock(ts, ansi)
        if wall is None:
            return None
        return _far_safe(_converted, wall, source, target_zone)

    return convert


def _field(v: Any, name: str, ansi: bool) -> int | None:
    """An INT argument of make_timestamp (Spark casts a BIGINT to INT: an overflow is
    CAST_OVERFLOW under ANSI mode, NULL without it)."""
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"the {name} {v!r} is not an integer (CAST it to INT)")
    if v in _INT_RANGE:
        return v
    if ansi:
        raise ValueError(f"the {name} {v} cannot be cast to INT (Spark's CAST_OVERFLOW)")
    return None


def _seconds(v: Any, ansi: bool) -> Decimal | None:
    """The seconds argument as Spark's implicit CAST to DECIMAL(16, 6) makes it (a DOUBLE
    through its shortest text, rounded half up); NaN and the infinities are NULL in
    either mode, as Spark's cast of them to a DECIMAL."""
    if isinstance(v, bool) or not isinstance(v, (int, float, Decimal)):
        raise TypeError(f"the seconds {v!r} are not a number (CAST them to DECIMAL(16, 6))")
    if isinstance(v, float) and not math.isfinite(v):
        return None
    try:
        exact = Decimal(repr(v)) if isinstance(v, float) else Decimal(v)
        seconds = exact.quantize(_SECONDS, rounding=ROUND_HALF_UP)
    except InvalidOperation:  # NaN or an infinity
        seconds = None
    if seconds is not None and abs(seconds) < _SECONDS_LIMIT:
        return seconds
    if ansi:
        raise ValueError(
            f"the seconds {v} cannot be represented as DECIMAL(16, 6) (Spark's "
            "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION)"
        )
    return None


_FIELDS = ("year", "month", "day", "hour", "minute")


@dataclass(frozen=True)
class TimestampMaker:
    """``make_timestamp`` (``zoned``: a TIMESTAMP in the session zone or the zone
    argument) or ``make_timestamp_ntz`` (a TIMESTAMP_NTZ); ``strict``: fields that make no
    time are an error (ANSI mode), else NULL (``try_make_timestamp`` always);
    ``takes_date``: one argument, a DATE, is its midnight (``make_timestamp(d)``, zoned
    only)."""

    zoned: bool
    strict: bool
    takes_date: bool = False

    def __call__(self, *args: Any) -> datetime | None:
        if any(a is None for a in args):
            return None
        if len(args) == 1 and self.takes_date:  # a DATE's midnight (Spark casts nothing)
            return self._midnight(args[0])
        zone = _zone(args[6]) if len(args) > 6 and self.zoned else _session()
        fields = [_field(v, name, self.strict) for v, name in zip(args[:5], _FIELDS)]
        seconds = _seconds(args[5], self.strict)
        if seconds is None or None in fields:
            return None
        try:
            wall = self._wall_clock(*fields, seconds)  # type: ignore[arg-type]
        except ValueError:
            if self.strict:
                raise
            return None
        return _far_safe(_zoned, wall, zone) if self.zoned else wall

    @staticmethod
    def _midnight(day: Any) -> datetime:
        """``make_timestamp(d)``: the DATE's midnight in the session zone."""
        if not isinstance(day, (date, FarDate)) or isinstance(day, datetime):
            raise TypeError(f"make_timestamp of one argument takes a DATE, not {day!r}")
        return midnight_of(day, _session())

    @staticmethod
    def _wall_clock(
        year: int, month: int, day: int, hour: int, minute: int, seconds: Decimal
    ) -> datetime:
        """Spark's ``LocalDateTime.of`` of the fields; 60 seconds with no fraction is the
        next minute (as PostgreSQL)."""
        micros = int(seconds.scaleb(6))
        whole, fraction = divmod(micros, 1_000_000)
        call = f"make_timestamp({year}, {month}, {day}, {hour}, {minute}, {seconds})"
        if whole == 60 and fraction:
            raise ValueError(
                f"{call}: the seconds must be in [0, 60] (Spark's INVALID_FRACTION_OF_SECOND)"
            )
        cycles = year_cycles(year)  # a year Python holds not, 400-year cycles nearer
        try:
            wall = datetime(
                year - 400 * cycles, month, day, hour, minute, 0 if whole == 60 else whole, fraction
            )
        except ValueError:
            raise ValueError(
                f"{call} is no date and time (Spark's DATETIME_FIELD_OUT_OF_BOUNDS under "
                "ANSI mode; NULL without it, or with try_make_timestamp)"
            ) from None
        if whole == 60:
            wall += timedelta(minutes=1)
        if not cycles:
            return wall
        return timestamp_of_micros(micros_of(wall) + cycles * CYCLE_MICROS, None)


def _both(build: Callable[[bool], Callable[..., Any]]) -> tuple[Callable[..., Any], ...]:
    return build(False), build(True)


def _makers(
    zoned: bool, always_null: bool = False, takes_date: bool = False
) -> tuple[Callable[..., Any], ...]:
    return (
        TimestampMaker(zoned, False, takes_date),
        TimestampMaker(zoned, not always_null, takes_date),
    )


#: the functions by name -> (without ANSI mode, under it)
ZONE_FUNCTIONS: dict[str, tuple[Callable[..., Any], ...]] = {
    "FROM_UTC_TIMESTAMP": _both(_shift(to_utc=False)),
    "TO_UTC_TIMESTAMP": _both(_shift(to_utc=True)),
    "CONVERT_TIMEZONE": _both(convert_timezone),
    "MAKE_TIMESTAMP": _makers(zoned=True, takes_date=True),
    "MAKE_TIMESTAMP_LTZ": _makers(zoned=True),
    "MAKE_TIMESTAMP_NTZ": _makers(zoned=False),
    "TRY_MAKE_TIMESTAMP": _makers(zoned=True, always_null=True, takes_date=True),
    "TRY_MAKE_TIMESTAMP_LTZ": _makers(zoned=True, always_null=True),
    "TRY_MAKE_TIMESTAMP_NTZ": _makers(zoned=False, always_null=True),
}

#: sqlglot's nodes of them (Spark's other functions are Anonymous calls)
ZONE_NODES: dict[type, str] = {
    exp.AtTimeZone: "FROM_UTC_TIMESTAMP",
    exp.FromTimeZone: "TO_UTC_TIMESTAMP",
    exp.ConvertTimezone: "CONVERT_TIMEZONE",
    exp.TimestampFromParts: "MAKE_TIMESTAMP",
}

_MAKE_TIMESTAMP_SLOTS = ("year", "month", "day", "hour", "min", "sec", "nano")


def zone_args(node: exp.Expression) -> list[exp.Expression] | None:
    """The arguments of those calls sqlglot reads with slots of its own: the CAST to
    TIMESTAMP it wraps around the time of ``from_utc_timestamp``/``to_utc_timestamp`` is
    Spark's implicit cast, which the functions apply themselves (the glue casts no
    TIMESTAMP); ``make_timestamp``'s zone is in the ``nano`` slot."""
    if isinstance(node, (exp.AtTimeZone, exp.FromTimeZone)):
        ts = node.this
        if isinstance(ts, exp.Cast) and ts.to.this == exp.DataType.Type.TIMESTAMP:
            ts = ts.this
        return [ts, node.args["zone"]]
    if isinstance(node, exp.TimestampFromParts):
        return [node.args[k] for k in _MAKE_TIMESTAMP_SLOTS if node.args.get(k) is not None]
    return None
