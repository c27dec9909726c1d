"""Run a planned MATCH_RECOGNIZE over a streaming DataFrame (Structured Streaming).

Shape of the query: Spark computes the row-local DEFINE columns (no PREV/NEXT windows:
a stream has no sorted partition; the matcher reads the previous rows itself), the event
time in microseconds and a bucket number (a hash of the PARTITION BY keys modulo
``spark.matchrec.stream.buckets``); a ``mapInArrow`` packs the rows of each bucket into
one Arrow IPC value per input batch (:mod:`matchrec.arrow_packing`: Spark would hand a
stateful processor its rows converted one by one), and
``groupBy(bucket).transformWithStateInPandas`` runs one stateful processor per bucket in
event-time mode. Each processor keeps its bucket's
state (:class:`matchrec.keyed_stream.KeyedStream`: the rows the watermark has not passed,
the rows live searches still need, a cursor per key) in one value of Spark's state store,
and registers an event-time timer for the moment a pending row becomes final or a WITHIN
bound passes. A final projection computes the measures in Spark, as in batch.

Rows arrive out of order within the watermark delay; the processor orders a key's rows
once the watermark has passed them. A row at or behind the watermark its bucket already
advanced to is late (Spark's rule): the processor drops it and counts it on an output
row of its own, which an observed metric of the query sums (:func:`late_rows`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pandas as pd
import pyarrow as pa
from matchrec.planner.clause_identity import clause_identity
from matchrec.planner.plan import MatchPlan, quote, refuse_end_anchor, refuse_input_windows
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.pandas.types import to_arrow_type
from pyspark.sql.streaming import StatefulProcessor, StatefulProcessorHandle
from pyspark.sql.types import (
    BinaryType,
    LongType,
    StructField,
    StructType,
    TimestampType,
)

from matchrec.arrow_packing import PACKED, ipc_bytes, pack, unpack, unpacked_batches
from matchrec.errors import SemanticError
from matchrec.function_settings import use_settings
from matchrec.keyed_stream import EVENT_MICROS, KeyedStream, StreamSpec
from matchrec.zones import use_zone

from .arrow_safe import atoms_for_arrow, months_for_arrow, months_restored
from .batch import (
    _check_types,
    _check_within,
    _probe_types,
    _select,
    _set_integer_widths,
    map_in_arrow,
    matcher_output,
    project_measures,
)
from .cluster import check, driver_worker_paths
from .collated_keys import refuse_on_a_stream
from .late_count import LATE_METRIC, watch
from .late_count import late_rows as late_rows  # the public name of old
from .processor_pickle import ShippedProcessor
from .session import count_setting, function_settings
from .sort_keys import check_sortable
from .udf_errors import remember_udfs

#: buckets the keys of a stream are hashed into; the state is kept per bucket, so the
#: number must stay the same for a checkpoint (the state records it and says so). Each
#: bucket costs a few JVM round trips per micro-batch (state, timer): few buckets run
#: faster, but no more tasks than buckets do the matching; 16 keeps 2-8 cores busy.
BUCKETS_CONF = "spark.matchrec.stream.buckets"
DEFAULT_BUCKETS = 16
BUCKET = "__mr_bucket"
#: column of the processor's output that counts late rows (on rows of their own)
LATE = "__mr_late"
#: column of a clause's packed rows that tells them from another clause's (run_buckets)
STREAM_TAG = "__mr_stream"
WATERMARK_DELAY = "spark.watermarkDelayMs"
STATE_STORE_CONF = "spark.sql.streaming.stateStore.providerClass"
ROCKSDB = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"


def watermark_column(df: DataFrame, preferred: str | None = None) -> str | None:
    """The column ``withWatermark`` was set on, or None. Spark marks copies of it too
    (``SELECT ts AS t0, *``; each side's time column after a stream-stream join): of
    several, ``preferred`` (the clause's first ORDER BY column) if it is one."""
    marked = [f.name for f in df.schema.fields if WATERMARK_DELAY in (f.metadata or {})]
    chosen = [name for name in marked if preferred and name.lower() == preferred.lower()]
    if chosen:
        return chosen[0]
    return marked[0] if marked else None


def check_stream(df: DataFrame, plan: MatchPlan) -> str:
    """The event-time column, after checking that ``plan`` can run on stream ``df``;
    errors point into the clause."""
    clause = plan.clause
    sql = clause.sql
    if plan.window:
        raise SemanticError(
            "row pattern recognition in a window runs on batch DataFrames, not on streams",
            sql=sql,
            pos=clause.frame.pos if clause.frame else clause.pattern_pos,
            hint="on a stream, use FROM t MATCH_RECOGNIZE (... ALL ROWS PER MATCH WITH "
            "UNMATCHED ROWS ...)",
        )
    event = watermark_column(df, plan.order_by[0][0] if plan.order_by else None)
    if event is None:
        raise SemanticError(
            "MATCH_RECOGNIZE on a stream needs an event-time column with a watermark",
            sql=sql,
            pos=clause.order_by[0].expr.pos if clause.order_by else clause.pattern_pos,
            hint='set one on the input, e.g. df.withWatermark("ts", "1 minute"), and '
            "ORDER BY that column first (after a window aggregation, window_time(window) "
            "has the watermark, window.end has none)",
        )
    first = plan.order_by[0] if plan.order_by else None
    if first is None or first[0] != event:
        raise SemanticError(
            f"on a stream, ORDER BY must start with the event-time column {event!r} (the "
            "one with the watermark)",
            sql=sql,
            pos=clause.order_by[0].expr.pos if clause.order_by else clause.pattern_pos,
            hint=f"write ORDER BY {event}[, other keys]",
        )
    if first[1]:
        raise SemanticError(
            "on a stream, ORDER BY the event-time column must be ascending",
            sql=sql,
            pos=clause.order_by[0].expr.pos,
            hint=f"write ORDER BY {event} ASC",
        )
    if not isinstance(df.schema[event].dataType, TimestampType):
        raise SemanticError(
            f"the event-time column {event!r} is {df.schema[event].dataType.simpleString()}; "
            "a stream's MATCH_RECOGNIZE needs TIMESTAMP",
            sql=sql,
            pos=clause.order_by[0].expr.pos,
            hint=f"cast it: CAST({event} AS TIMESTAMP) in a projection before withWatermark",
        )
    refuse_end_anchor(clause)
    refuse_input_windows(plan)
    return event


def execute_stream(df: DataFrame, plan: MatchPlan) -> DataFrame:
    """The streaming DataFrame of ``plan`` applied to stream ``df`` (append mode)."""
    event = check_stream(df, plan)
    spark = df.sparkSession
    remember_udfs(spark, plan)
    conf = spark.conf
    if conf.get(STATE_STORE_CONF, None) != ROCKSDB:
        # transformWithState keeps its state in RocksDB; the setting is read when the
        # query starts, so setting it here (before start) is in time
        conf.set(STATE_STORE_CONF, ROCKSDB)
    input_columns = list(df.columns)
    keys = plan.partition_by
    for stage in plan.stages:
        df = _select(df, plan, ["*"], stage)
    check_sortable(plan, {f.name: f for f in df.schema.fields})
    refuse_on_a_stream(plan, {f.name: f.dataType for f in df.schema.fields})
    _check_within(df, plan)
    _check_types(df, plan, plan.define_checks)
    _set_integer_widths(df, plan)
    atom_types = _probe_types(df, plan)
    df, encoded = months_for_arrow(df, plan, atom_types)
    atom_types = atoms_for_arrow(plan, atom_types, encoded)
    buckets = count_setting(spark, BUCKETS_CONF, DEFAULT_BUCKETS) if keys else 1
    bucket = bucket_of(keys, buckets)
    df = df.withColumn(EVENT_MICROS, F.unix_micros(F.col(quote(event)))).withColumn(BUCKET, bucket)
    zone = conf.get("spark.sql.session.timeZone") or "UTC"
    timeouts = plan.clause.rows_per_match.timeouts
    out_schema, carried = matcher_output(df, plan, input_columns, atom_types, stream=True)
    spec = StreamSpec(
        program=plan.program,
        keys=list(keys),
        order=list(plan.order_by),
        carried=carried,
        atom_types=[to_arrow_type(t, timezone=zone) for t in atom_types],
        buckets=buckets,
        timeouts=timeouts,
        late_rows=plan.clause.rows_per_match.late_rows,
        fingerprint=clause_identity(plan.clause, df.schema.simpleString(), plan.precomputed),
    )
    processor = MatchProcessor(spec, zone, function_settings(spark))
    matched = run_buckets(packed_by_bucket(df), processor, out_schema)
    check(spark, "stream")  # on a cluster: the executors can run a stream (once per session)
    return project_measures(months_restored(matched, encoded), plan, input_columns)


def bucket_of(keys: Sequence[str], buckets: int) -> Column:
    """The bucket of a row: a hash of its PARTITION BY ``keys`` modulo ``buckets`` (0
    without keys), the same for a key in every micro-batch and run."""
    if not keys:
        return F.lit(0).cast("long")
    return F.pmod(F.xxhash64(*(F.col(quote(k)) for k in keys)), F.lit(buckets))


def packed_by_bucket(df: DataFrame) -> DataFrame:
    """``df`` (with its :data:`BUCKET` column) as one packed row per bucket and input
    batch: Spark hands a stateful processor its rows converted one by one, packed rows
    arrive as the Arrow tables they were (:mod:`matchrec.arrow_packing`)."""
    return map_in_arrow(
        df,
        lambda batches: pack(batches, BUCKET),
        StructType([StructField(BUCKET, LongType()), StructField(PACKED, BinaryType())]),
    )


#: what a stateful processor of matchrec yields: its output rows packed (Arrow IPC bytes,
#: unpacked by a ``mapInArrow`` after it), or a count of late rows
PROCESSOR_OUTPUT = StructType(
    [StructField(PACKED, BinaryType(), True), StructField(LATE, LongType(), True)]
)


def run_buckets(packed: DataFrame, processor: StatefulProcessor, schema: StructType) -> DataFrame:
    """``processor`` over ``packed`` grouped by bucket (event time, append), its output
    rows unpacked into ``schema``, its late-row counts summed by an observed metric of
    the query and left out of the result.

    The processor yields its rows packed (:func:`output_frame`): PySpark converts the
    pandas frames of a stateful processor back to Arrow value by value, which reads a
    NaN as NULL at any depth; packed rows stay the Arrow batches the matcher built, and
    moving one binary value per batch is cheaper than converting every value.

    Each clause's packed rows carry a number of their own (:data:`STREAM_TAG`, last: the
    processors read their input columns by position): two clauses over one stream with
    the same row-local columns (``... MATCH_RECOGNIZE (...) UNION ALL ... MATCH_RECOGNIZE
    (...)``) would otherwise share one shuffle, and Spark 4.3 gives the processor reading the reused
    shuffle no watermark (0: no row ever final, no timer, nothing out)."""
    watch(packed.sparkSession)
    processor.import_paths = driver_worker_paths(packed.sparkSession)
    number = _next_stream()
    tagged = packed.withColumn(STREAM_TAG, F.lit(number))
    output = (
        tagged.groupBy(BUCKET)
        .transformWithStateInPandas(processor, PROCESSOR_OUTPUT, "Append", "EventTime")
        .observe(f"{LATE_METRIC}_{number}", F.coalesce(F.sum(LATE), F.lit(0)).alias("late_rows"))
        .filter(F.col(LATE).isNull())
        .select(PACKED)
    )
    return map_in_arrow(output, _unpacked, schema)


def _unpacked(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """The rows of the packed output batches (a ``mapInArrow`` function)."""
    for batch in batches:
        yield from unpacked_batches(batch.column(0).to_pylist())


def output_frame(table: pa.Table | pa.RecordBatch) -> pd.DataFrame:
    """``table``'s rows as a stateful processor of matchrec yields them: packed."""
    return pd.DataFrame({PACKED: [ipc_bytes(table)], LATE: pd.array([None], dtype="Int64")})


def late_frame(count: int) -> pd.DataFrame:
    """The output row of a processor that counts ``count`` late rows."""
    return pd.DataFrame({PACKED: [None], LATE: pd.array([count], dtype="Int64")})


def move_timer(handle: Any, registered: int | None, wake_micros: int | None, watermark_ms: int):
    """Change a bucket's event-time timer from ``registered`` (ms) to ``wake_micros``
    and return the new one (ms). Each timer call is a round trip to the JVM: nothing is
    called when the wake-up time stays; a timer at or behind the watermark has fired or
    is firing."""
    wake = None if wake_micros is None else -(-wake_micros // 1000)
    live = registered if registered is not None and registered > watermark_ms else None
    if live is not None and live != wake:
        handle.deleteTimer(live)
    if wake is not None and wake != live:
        handle.registerTimer(wake)
    return wake


class SettledBuckets:
    """The buckets a stream processor already advanced in this task, and to which
    watermark. Spark fires a bucket's expired timer after its input rows were handled at
    the same watermark; advancing again would settle nothing new and cost a state read
    and write, so such a timer is skipped (the input call registered the next one)."""

    def __init__(self) -> None:
        self._watermarks: dict[tuple, int] = {}

    def mark(self, key: Any, watermark_ms: int) -> None:
        self._watermarks[tuple(key)] = watermark_ms

    def done(self, key: Any, watermark_ms: int) -> bool:
        return self._watermarks.get(tuple(key)) == watermark_ms


_streams = 0


def _next_stream() -> int:
    """A number for one streaming clause, unique in this process: its late-row metric's
    name (Spark requires distinct names among the observations of a query) and its
    :data:`STREAM_TAG`."""
    global _streams
    _streams += 1
    return _streams


class MatchProcessor(ShippedProcessor, StatefulProcessor):
    """The stateful processor of one streaming MATCH_RECOGNIZE: one grouping key per
    bucket of partition keys, its input packed rows (:mod:`matchrec.arrow_packing`), its
    state one Arrow IPC value (:class:`KeyedStream`). Rows at or behind the watermark
    the bucket last advanced to are late: dropped here, and counted on an output row of
    their own that the query's late-row metric sums."""

    def __init__(
        self,
        spec: StreamSpec,
        zone: str | None = None,
        settings: Mapping[str, str] | None = None,
    ):
        self.spec = spec
        self.zone = zone  # the session time zone, which DEFINE's glue reads
        self.settings = settings  # the session's function settings, which the glue reads

    def init(self, handle: StatefulProcessorHandle) -> None:
        self.handle = handle
        self.state = handle.getValueState("bucket", StructType([StructField("blob", BinaryType())]))
        self.settled = SettledBuckets()

    def handleInputRows(self, key: Any, rows: Iterator[pd.DataFrame], timerValues: Any):
        # by position: Spark may rename input columns of a stateful processor (``_1``);
        # the bucket, the packed rows, then run_buckets' STREAM_TAG
        new = unpack(blob for pdf in rows for blob in pdf.iloc[:, 1])
        watermark_ms = timerValues.getCurrentWatermarkInMs()
        yield from self._advance(new, watermark_ms)
        self.settled.mark(key, watermark_ms)

    def handleExpiredTimer(self, key: Any, timerValues: Any, expiredTimerInfo: Any):
        watermark_ms = timerValues.getCurrentWatermarkInMs()
        if not self.settled.done(key, watermark_ms):
            yield from self._advance(None, watermark_ms)

    def _advance(self, new: pa.Table | None, watermark_ms: int) -> Iterator[pd.DataFrame]:
        use_zone(self.zone)
        use_settings(self.settings)
        found = self.state.get()
        stream = KeyedStream.load(self.spec, found[0] if found else None)
        late = None
        if new is not None:
            new, late = stream.split_late(new)
        done = stream.advance(new, watermark_ms * 1000 if watermark_ms > 0 else None)
        stream.timer = move_timer(self.handle, stream.timer, done.wake_micros, watermark_ms)
        self.state.update((stream.save(),))
        if late is not None and self.spec.late_rows:
            done.batches.append(stream.late_output(late))
        for batch in done.batches:
            yield output_frame(batch)
        if late is not None:
            yield late_frame(late.num_rows)
