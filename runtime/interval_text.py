"""Interval columns of a result as Spark's text of them, for the places that collect a
result to show it (``matchrec test``, ``%%matchrec``).

PySpark cannot collect a YEAR-MONTH interval (``YearMonthIntervalType.fromInternal is
not implemented``) and hands a DAY-TIME one over as Python's timedelta, which prints as
``1 day, 2:03:04.500000``. Cast to STRING, each is what Spark's ``show()`` prints:
``INTERVAL '1-2' YEAR TO MONTH``, ``INTERVAL '1 02:03:04.5' DAY TO SECOND``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

#: the names of Spark's interval types
_INTERVAL_TYPES = ("DayTimeIntervalType", "YearMonthIntervalType", "CalendarIntervalType")


def intervals_as_text(df: DataFrame) -> DataFrame:
    """``df`` with each interval column cast to Spark's text of it (by position: a result
    may have two columns of one name); ``df`` itself when it has none."""
    fields = df.schema.fields
    if not any(type(f.dataType).__name__ in _INTERVAL_TYPES for f in fields):
        return df
    positional = [f"_{i}" for i in range(len(fields))]
    cast = [
        f"CAST({name} AS STRING)" if type(f.dataType).__name__ in _INTERVAL_TYPES else name
        for name, f in zip(positional, fields, strict=True)
    ]
    return df.toDF(*positional).selectExpr(*cast).toDF(*(f.name for f in fields))
