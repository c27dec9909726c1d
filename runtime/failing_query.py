"""Whether the action that just failed runs a query matchrec built.

Some of Spark's run-time errors carry no query context (``make_date`` with a month of
20, ``to_date`` of text its pattern does not read): the error names a function, not a
query, and a user's own ``spark.sql`` that calls the same function fails the same way.
``runtime.failed_calls`` shows such an error at matchrec's call only when the query that
failed is one of matchrec's. PySpark converts the error inside the action that failed
(``collect()``, ``show()``, ``toPandas()``, a writer's ``save()``, a streaming query's
``awaitTermination()``): its DataFrame (or streaming query) is a caller's ``self`` on the
stack, and its analyzed plan says whose query it is. matchrec's
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


def table_function_names() -> frozenset[str]:
    """The names the table function is known by in this process (lower case)."""
    return frozenset(_table_functions)


#: what the plan of the failing action runs: a MATCH_RECOGNIZE clause matchrec planned
#: (its columns ``__mr_...``: ``matchrec.sql``, the DataFrame door, a stream), only the
#: table function, or neither
CLAUSE, TABLE_FUNCTION, USERS = "clause", "table function", "users"


def failing_query() -> str | None:
    """:data:`CLAUSE`, :data:`TABLE_FUNCTION` or :data:`USERS`: what the action failing on
    the stack (the nearest caller whose ``self`` is a DataFrame, a writer of one or a
    streaming query) runs; None when no such action is on the stack or its plan cannot
    be read."""
    frame = inspect.currentframe()
    try:
        while frame is not None:
            for name in _OWNER_NAMES:
                plan = _plan_text(frame.f_locals.get(name))
                if plan is not None:
                    return _kind(plan)
            frame = frame.f_back
        return None
    finally:
        del frame


def runs_matchrec_query() -> bool | None:
    """Whether the failing action runs a matchrec query (:func:`failing_query`); None
    when that is not known."""
    kind = failing_query()
    return None if kind is None else kind != USERS


def _kind(plan: str) -> str:
    if re.search(r"\b__mr_\w+", plan):
        return CLAUSE
    names = "|".join(re.escape(n) for n in sorted(_table_functions))
    if re.search(rf"\bGenerate (?:{names})\(", plan, re.IGNORECASE):
        return TABLE_FUNCTION
    return USERS


#: the locals that hold the failing action's owner: a method's ``self``, and the streaming
#: query whose ``exception()`` ``runtime.worker_errors`` wraps
_OWNER_NAMES = ("self", "query")


def _plan_text(owner: Any) -> str | None:
    """The analyzed plan of ``owner`` (a DataFrame, a writer of one, a streaming query)
    as text: classic, the JVM's; a Connect DataFrame, the server's explanation. None for
    anything else, or when the plan cannot be had."""
    from pyspark.sql import DataFrame
    from pyspark.sql.streaming import StreamingQuery

    if not isinstance(owner, DataFrame):
        df = getattr(owner, "_df", None)  # DataFrameWriter, DataFrameWriterV2
        owner = df if isinstance(df, DataFrame) else owner
    try:
        if isinstance(owner, StreamingQuery):  # (classic: Connect's has no JVM query)
            return str(owner._jsq.streamingQuery().logicalPlan().toString())
        if not isinstance(owner, DataFrame):
            return None
        jdf = getattr(owner, "_jdf", None)
        if jdf is not None:
            return str(jdf.queryExecution().analyzed().toString())
        return str(owner._explain_string(extended=True))
    except Exception:  # noqa: BLE001 - a plan that cannot be read tells nothing
        return None
