"""Interval values of a result as Spark's text of them, for the places that collect a
result to show it (``matchrec test``, ``%%matchrec``).

PySpark cannot collect a YEAR-MONTH interval (``YearMonthIntervalType.fromInternal is
not implemented``) and hands a DAY-TIME one over as Python's timedelta, which prints as
``1 day, 2:03:04.500000``. Cast to STRING, each is what Spark's ``show()`` prints:
``INTERVAL '1-2' YEAR TO MONTH``, ``INTERVAL '1 02:03:04.5' DAY TO SECOND``. An interval
inside an array, map or struct is cast where it is, so the value keeps its shape (the
runner and the magic print arrays, maps and structs their own way).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

#: the names of Spark's interval types
_INTERVAL_TYPES = ("DayTimeIntervalType", "YearMonthIntervalType", "CalendarIntervalType")


def intervals_as_text(df: DataFrame) -> DataFrame:
    """``df`` with each interval value, at any depth, cast to Spark's text of it (columns
    by position: a result may have two columns of one name); ``df`` itself when it has
    none."""
    fields = df.schema.fields
    positional = [f"_{i}" for i in range(len(fields))]
    texts = [_as_text(name, f.dataType) for name, f in zip(positional, fields, strict=True)]
    if all(text is None for text in texts):
        return df
    cast = [text or name for name, text in zip(positional, texts, strict=True)]
    return df.toDF(*positional).selectExpr(*cast).toDF(*(f.name for f in fields))


def _as_text(sql: str, dtype: Any, depth: int = 0) -> str | None:
    """Spark SQL that is ``sql`` (of type ``dtype``) with its intervals as STRINGs, or None
    when it holds none."""
    kind = type(dtype).__name__
    if kind in _INTERVAL_TYPES:
        return f"CAST({sql} AS STRING)"
    x, k = f"__mr_x{depth}", f"__mr_k{depth}"
    if kind == "ArrayType":
        inner = _as_text(x, dtype.elementType, depth + 1)
        return None if inner is None else f"transform({sql}, {x} -> {inner})"
    if kind == "MapType":
        keys = _as_text(k, dtype.keyType, depth + 1)
        values = _as_text(x, dtype.valueType, depth + 1)
        if keys is not None:
            sql = f"transform_keys({sql}, ({k}, {x}) -> {keys})"
        if values is not None:
            sql = f"transform_values({sql}, ({k}, {x}) -> {values})"
        return None if keys is None and values is None else sql
    if kind == "StructType":
        fields = [
            (f.name, _as_text(f"{sql}.`{_backquoted(f.name)}`", f.dataType, depth + 1))
            for f in dtype.fields
        ]
        if all(field is None for _, field in fields):
            return None
        names = [n.lower() for n, _ in fields]
        if len(set(names)) < len(names):  # a field cannot be read by its name: Spark's text
            return f"CAST({sql} AS STRING)"
        pairs = ", ".join(
            "'"
            + n.replace("\\", "\\\\").replace("'", "\\'")
            + "', "
            + (field or f"{sql}.`{_backquoted(n)}`")
            for n, field in fields
        )
        return f"IF({sql} IS NULL, NULL, named_struct({pairs}))"
    return None


def _backquoted(name: str) -> str:
    return name.replace("`", "``")
