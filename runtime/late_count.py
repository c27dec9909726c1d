"""How many rows a streaming query dropped as late, over its whole life in this process.

Each micro-batch's progress report carries the late rows it dropped: matchrec's own count
of each MATCH_RECOGNIZE (an observed metric named ``matchrec_late_rows_<n>``) and what
Spark's stateful operators dropped (``numRowsDroppedByWatermark``). A query keeps only
its latest reports (``spark.sql.streaming.numRecentProgressUpdates``, 100 by default,
idle ones included), so a sum over them forgets an hour-old late row. :func:`watch`
adds a listener to a classic session that keeps every report's count that is not 0,
by query, run and batch; :func:`late_rows` adds those to the reports the query still
holds (the listener's events arrive a moment after the query reports, so the newest
reports are read from the query), each report counted once. A Spark Connect session's
listeners run on the server: there only the query's own reports are summed.
"""

from __future__ import annotations

import atexit
import json
import threading
import weakref
from typing import Any

from pyspark.sql import SparkSession
from pyspark.sql.streaming import StreamingQueryListener

#: the prefix of matchrec's observed metric of late rows (one per clause of a query)
LATE_METRIC = "matchrec_late_rows"

_lock = threading.Lock()
#: query id -> {(run id, batch id): late rows of that batch}, for batches with some
_dropped: dict[str, dict[tuple[str, int], int]] = {}
#: each watched session's listener
_watched: weakref.WeakKeyDictionary[SparkSession, StreamingQueryListener] = (
    weakref.WeakKeyDictionary()
)


def watch(spark: SparkSession) -> None:
    """Count the late rows of every streaming query of ``spark`` from now on (once per
    session; a Spark Connect session is left alone)."""
    from .session import is_connect

    if is_connect(spark) or spark in _watched:
        return
    listener = _LateRowListener()
    spark.streams.addListener(listener)
    if not _watched:  # once: at exit the Py4J gateway is still open to remove them
        atexit.unregister(unwatch_all)
        atexit.register(unwatch_all)
    _watched[spark] = listener


def unwatch_all() -> None:
    """Remove the listeners :func:`watch` added (at exit: the JVM went on sending a
    stopping query's events to Python after the callback server had closed, and each
    printed a 30-line trace of a listener the user never added)."""
    for spark, listener in list(_watched.items()):
        try:
            spark.streams.removeListener(listener)
        except Exception:  # noqa: BLE001 - a session already stopped has none to remove
            pass
        _watched.pop(spark, None)


def late_rows(query: Any) -> int:
    """Rows ``query`` dropped as late so far, over all its runs in this process that a
    watched session started (a restart from the checkpoint in this process goes on
    counting; a new process counts from its own start)."""
    with _lock:
        counts = dict(_dropped.get(str(query.id), {}))
    for progress in query.recentProgress:
        if not isinstance(progress, dict):  # Spark Connect: StreamingQueryProgress
            progress = json.loads(progress.json)
        count = late_in(progress)
        if count:
            counts[_batch_of(progress)] = count
    return sum(counts.values())


def late_in(progress: dict) -> int:
    """The late rows one progress report (as JSON) tells of."""
    total = 0
    for operator in progress.get("stateOperators") or []:
        total += int(operator.get("numRowsDroppedByWatermark", 0) or 0)
    for name, metrics in (progress.get("observedMetrics") or {}).items():
        if name.startswith(LATE_METRIC):
            total += int(_metrics(metrics).get("late_rows", 0) or 0)
    return total


def _batch_of(progress: dict) -> tuple[str, int]:
    return str(progress.get("runId")), int(progress.get("batchId", -1))


def _metrics(observed: Any) -> dict:
    """An observation's values by name: a Row of them (classic sessions), or on Spark
    Connect a Row or JSON object of ``values`` and their ``schema``."""
    values = observed.asDict() if hasattr(observed, "asDict") else dict(observed)
    if set(values) == {"values", "schema"}:
        schema = values["schema"]
        fields = schema["fields"] if isinstance(schema, dict) else schema.fields
        names = [f["name"] if isinstance(f, dict) else f.name for f in fields]
        return dict(zip(names, values["values"]))
    return values


class _LateRowListener(StreamingQueryListener):
    """Keeps the late-row count of every progress report that has one."""

    def onQueryStarted(self, event: Any) -> None:
        pass

    def onQueryProgress(self, event: Any) -> None:
        progress = json.loads(event.progress.json)
        count = late_in(progress)
        if count:
            with _lock:
                _dropped.setdefault(str(progress.get("id")), {})[_batch_of(progress)] = count

    def onQueryIdle(self, event: Any) -> None:
        pass

    def onQueryTerminated(self, event: Any) -> None:
        pass
