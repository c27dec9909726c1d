"""Whether the action that just failed runs a query matchrec built.

Some of Spark's run-time errors carry no query context (``make_date`` with a month of
20, ``to_date`` of text its pattern does not read): the error names a function, not a
query, and a user's own ``spark.sql`` that calls the same function fails the same way.
``runtime.failed_calls`` shows such an error at matchrec's call only when the query that
failed is one of matchrec's. PySpark converts the error inside the action that failed
(``collect()``, ``show()``, ``toPandas()``, a writer's ``save()``): its DataFrame is a
caller's ``self`` on the stack, and its analyzed plan says whose query it is. matchrec's
plans hold columns of its own (``__mr_...``); the table function's holds its
``Generate <name>(...)``.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

#: the names the table function was registered under (``runtime.udtf.register``)
_table_functions: set[str] = {"match_recognize"}


def note_table_function(name: str) -> None:
    """The table function is registered as ``name``: a plan that generates rows by it is
    a matchrec query."""
    _table_functions.add(name.lower())


def runs_matchrec_query() -> bool | None:
    """True when the action failing on the stack (the nearest caller whose ``self`` is a
    DataFrame, or a writer of one) runs a matchrec query, False when it runs another;
    None when no such action is on the stack or its plan cannot be read."""
    frame = inspect.currentframe()
    try:
        while frame is not None:
            df = _dataframe_of(frame.f_locals.get("self"))
            if df is not None:
                plan = _plan_text(df)
                return None if plan is None else _marks().search(plan) is not None
            frame = frame.f_back
        return None
    finally:
        del frame


def _dataframe_of(owner: Any) -> Any:
    from pyspark.sql import DataFrame

    if isinstance(owner, DataFrame):
        return owner
    df = getattr(owner, "_df", None)  # DataFrameWriter, DataFrameWriterV2
    return df if isinstance(df, DataFrame) else None


def _plan_text(df: Any) -> str | None:
    """The analyzed plan of ``df`` as text (classic: the JVM's query execution; Connect:
    the server's explanation); None when it cannot be had."""
    try:
        jdf = getattr(df, "_jdf", None)
        if jdf is not None:
            return str(jdf.queryExecution().analyzed().toString())
        return str(df._explain_string(extended=True))
    except Exception:  # noqa: BLE001 - a plan that cannot be read tells nothing
        return None


def _marks() -> re.Pattern[str]:
    names = "|".join(re.escape(n) for n in sorted(_table_functions))
    return re.compile(rf"\b__mr_\w+|\bGenerate (?:{names})\(", re.IGNORECASE)
