"""The checks of what a user passes to matchrec's Python functions.

``matchrec.sql("SELECT ...", spark)`` (the arguments swapped) or
``matchrec.match_recognize("ticker", body)`` (a table's name for its DataFrame) would
fail deep inside with Python's ``'str' object has no attribute 'sparkSession'``; each
public function checks its arguments first and raises a :class:`UsageError` that says
what it takes and how to get it.
"""

from __future__ import annotations

from typing import Any

from pyspark.sql import DataFrame, SparkSession

from matchrec.errors import UsageError

#: what each kind of argument is, and how a user gets one
_KINDS: dict[type, tuple[str, str]] = {
    SparkSession: ("a SparkSession", "e.g. matchrec.runtime.session.get_spark()"),
    DataFrame: ("a Spark DataFrame", "for a table, spark.table('name')"),
    str: ("a string of SQL", "the text of the query or of the clause"),
}


def check_argument(function: str, name: str, value: Any, kind: type) -> None:
    """Raise a :class:`UsageError` unless ``value`` (argument ``name`` of ``function``) is
    a ``kind``."""
    if isinstance(value, kind) or _connect_session(value, kind):
        return
    what, how = _KINDS[kind]
    got = type(value).__name__
    if kind is DataFrame and type(value).__module__.startswith("pandas"):
        got, how = "pandas DataFrame", "for one, spark.createDataFrame(pdf)"
    raise UsageError(f"{function}() takes {what} as {name}, got a {got}: {how}")


def _connect_session(value: Any, kind: type) -> bool:
    """Whether ``value`` is a Spark Connect session where a SparkSession goes (its class
    is not classic PySpark's SparkSession nor a subclass of it)."""
    cls = type(value)
    return (
        kind is SparkSession
        and cls.__name__ == "SparkSession"
        and cls.__module__.startswith("pyspark.sql.connect")
    )
