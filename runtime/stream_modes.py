"""A streaming query that no output mode can run, refused when it is built.

Spark checks a streaming query's operators against its output mode only at ``start()``
(``UnsupportedOperationChecker``): ``SELECT ... MATCH_RECOGNIZE (...) ORDER BY n`` on a
stream was accepted by ``matchrec.sql`` and failed later with Spark's message and a plan
full of matchrec's internal columns. The same check, asked here for each output mode,
finds a query that none can run; a query that one mode can run (an aggregation in update
mode) is left to the user's choice of mode.
"""

from __future__ import annotations

from matchrec.planner.statement import statement_order_by
from py4j.protocol import Py4JError
from pyspark.errors import AnalysisException
from pyspark.sql import DataFrame

from matchrec.errors import SemanticError

from .session import is_connect

_MODES = ("Append", "Update", "Complete")
_CHECK_CONF = "spark.sql.streaming.unsupportedOperationCheck"


def refuse_unrunnable_stream(df: DataFrame, query: str) -> None:
    """Raise :class:`SemanticError` when streaming ``df`` (the result of ``query``) runs
    in no output mode, with Spark's reason for append mode, at the statement's ORDER BY
    when that is the reason. Spark Connect, or a Spark without the check, is left to
    ``start()``."""
    spark = df.sparkSession
    if not df.isStreaming or is_connect(spark):
        return
    if str(spark.conf.get(_CHECK_CONF, "true")).lower() == "false":
        return
    reasons = []
    try:
        jvm = spark._jvm  # type: ignore[attr-defined]
        checker = jvm.org.apache.spark.sql.catalyst.analysis.UnsupportedOperationChecker
        modes = jvm.org.apache.spark.sql.streaming.OutputMode
        plan = df._jdf.queryExecution().analyzed()  # type: ignore[attr-defined]
        for mode in _MODES:
            try:
                checker.checkForStreaming(plan, getattr(modes, mode)())
                return
            except AnalysisException as err:  # PySpark's of the JVM's, the check's verdict
                reasons.append(str(err.getMessage() or err).split(";", 1)[0].strip())
    except (Py4JError, AttributeError):
        return  # this Spark has no such check to ask: start() checks
    sorting = reasons[0].startswith("Sorting")
    at = statement_order_by(query) if sorting else None
    raise SemanticError(
        f"no output mode of a stream can run this query: {reasons[0]}",
        sql=query,
        pos=at if at is not None else 0,
        hint="sort each micro-batch in foreachBatch, or the sink's output, not the stream"
        if sorting
        else "see Spark's unsupported operations on streams (Structured Streaming guide)",
    )
