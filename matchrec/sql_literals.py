"""Python values as Spark SQL literals, typed as PySpark's ``lit`` types them.

``matchrec.sql(spark, query, args=...)`` binds the values of parameter markers by
writing them into the query as literals (see the README's decisions): ``1`` is an INT,
``2**40`` a BIGINT (``1099511627776L``), ``1.5`` a DOUBLE (``1.5D``), ``Decimal('1.50')``
a DECIMAL(3, 2) (``1.50BD``), a ``date`` a DATE, a ``datetime`` a TIMESTAMP (a naive one
in this process's local time zone, as PySpark reads it), a ``timedelta`` an INTERVAL DAY
TO SECOND, ``bytes`` a BINARY, a list an ARRAY, None a NULL (a dict, which ``lit``
cannot type, is a TypeError).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any

from matchrec.errors import UsageError
from matchrec.far_dates import FarDate, calendar_text
from matchrec.far_timestamps import FarTimestamp

_INT = 2**31
_LONG = 2**63


def _string(v: str) -> str:
    """As PySpark writes a string (``pyspark.sql.utils.get_lit_sql_str``)."""
    return "'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _signed(text: str) -> str:
    """A negative number in parentheses: ``x - :p`` must not become ``x --1`` (a comment)."""
    return f"({text})" if text.startswith("-") else text


def _integer(v: int) -> str:
    v = int(v)
    if -_INT <= v < _INT:
        return _signed(str(v))
    if -_LONG <= v < _LONG:
        return _signed(f"{v}L")
    if len(str(abs(v))) <= 38:
        return _signed(f"{v}BD")
    raise ValueError(f"{v} has more than 38 digits: no Spark SQL number holds it")


def _double(v: float) -> str:
    v = float(v)
    if math.isnan(v):
        return "CAST('NaN' AS DOUBLE)"
    if math.isinf(v):
        return f"CAST('{'' if v > 0 else '-'}Infinity' AS DOUBLE)"
    return _signed(f"{v!r}D")


def _decimal(v: Decimal) -> str:
    if not v.is_finite():
        raise ValueError(f"Decimal {v} is no Spark SQL number")
    return _signed(f"{format(v, 'f')}BD")


def _timestamp(v: datetime) -> str:
    # a naive datetime is in this process's time zone, as PySpark's TimestampType reads it
    aware = v if v.tzinfo is not None else v.astimezone()
    return f"TIMESTAMP '{aware.isoformat(sep=' ')}'"


def _far_timestamp(v: FarTimestamp) -> str:
    if v.zone is None:
        return f"TIMESTAMP_NTZ '{v}'"
    return f"TIMESTAMP '{v}{v.offset_text()}'"


def _interval(v: timedelta) -> str:
    micros = (v.days * 86400 + v.seconds) * 1_000_000 + v.microseconds
    sign = "-" if micros < 0 else ""
    seconds, micro = divmod(abs(micros), 1_000_000)
    minutes, second = divmod(seconds, 60)
    hours, minute = divmod(minutes, 60)
    days, hour = divmod(hours, 24)
    text = f"{sign}{days} {hour:02d}:{minute:02d}:{second:02d}.{micro:06d}"
    return f"INTERVAL '{text}' DAY TO SECOND"


#: (Python type, its literal), the first type ``isinstance`` matches wins: bool before
#: int, datetime before date
_WRITERS: list[tuple[type | tuple[type, ...], Callable[[Any], str]]] = [
    (bool, lambda v: "true" if v else "false"),
    (numbers.Integral, _integer),
    (Decimal, _decimal),
    (numbers.Real, _double),
    (str, _string),
    ((bytes, bytearray), lambda v: f"X'{bytes(v).hex().upper()}'"),
    (datetime, _timestamp),
    (date, lambda v: f"DATE '{v.isoformat()}'"),
    (FarDate, lambda v: f"DATE '{calendar_text(v.days)}'"),
    (FarTimestamp, _far_timestamp),
    (timedelta, _interval),
    ((list, tuple), lambda v: "ARRAY(" + ", ".join(sql_literal(x) for x in v) + ")"),
]


def sql_literal(value: Any) -> str:
    """``value`` as a Spark SQL literal of the type PySpark's ``lit(value)`` has; a
    TypeError for a value no literal writes."""
    if value is None:
        return "NULL"
    for kind, write in _WRITERS:
        if isinstance(value, kind):
            return write(value)
    raise UsageError(
        f"a value of type {type(value).__name__} cannot be a SQL parameter's value: pass a "
        "number, a string, a bool, a date, a datetime, a timedelta, bytes, a list or None"
    )
