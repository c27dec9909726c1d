"""Streaming benchmark: W1 and W3 as Structured Streaming queries, against the batch engine
on the same rows, measured in the same run.

``python -m benchmarks.stream --rows 1000000 --batches 10 [--workloads W1,W3]``

The main dataset (``benchmarks/data``, generated once) is cut by event time into
``--batches`` Parquet files; a stream reads them one file per micro-batch
(``maxFilesPerTrigger=1``, watermark 10 seconds on ``ts``) into the no-op sink, and a last
file moves the watermark past every row. Steady-state throughput is the rows of
micro-batches 2.. divided by their trigger time (the first one pays for the Python
workers and the state store). The batch baseline runs the same SQL on the same rows as a
batch view into the no-op sink (median of ``--repeat``). The stream floor is the same
source read into the no-op sink with nothing between: what a micro-batch of that size
costs Spark alone (planning, offsets, commit, reading). The processor floor is the same
source through matchrec's packing and a stateful processor per bucket that only counts its
rows and rewrites a state value (:func:`processor_floor`): what Spark charges for the
stateful operator before any matching. The table also shows the state after the run:
rows held by matchrec and the state store's memory.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from . import flink
from .datagen import DEFAULT_SEED, DatasetSpec, ensure
from .workloads import W3_SQL, _v_shape

QUERIES = {"W1": _v_shape(), "W3": W3_SQL, "W1-FLINK": _v_shape(up_plus=False)}
#: the workloads Flink SQL accepts (a greedy UP+ last in the pattern it rejects)
FLINK_FORMS = {"W1-FLINK"}


def write_in_order(tables: list[pa.Table], inbox: Path) -> None:
    """Write ``tables`` as Parquet files that a file stream reads in this order.

    Spark's file source orders new files by modification time only, and files written in
    one go can share a time stamp: then the listing order decides, and a later slice read
    first moves the watermark past an earlier one, whose rows are dropped as late. Each
    file gets a modification time one second after the previous one."""
    start = time.time() - len(tables)
    for i, part in enumerate(tables):
        hidden, name = inbox / f".part-{i:04d}.parquet", inbox / f"part-{i:04d}.parquet"
        pq.write_table(part, hidden)
        os.utime(hidden, (start + i, start + i))
        hidden.rename(name)


def cut_by_time(table: pa.Table, batches: int, inbox: Path) -> list[int]:
    """Write ``table`` into ``batches`` files of consecutive event-time slices, then one
    row an hour after the last; returns the rows per file."""
    table = table.sort_by("ts")
    size = -(-table.num_rows // batches)
    parts = [table.slice(low, size) for low in range(0, table.num_rows, size)]
    last = pc.max(table.column("ts")).as_py()
    end = pa.table(
        {
            "symbol": pa.array(["ZZZZ"]),
            "ts": pa.array([last + timedelta(hours=1)], type=table.schema.field("ts").type),
            "price": pa.array([0.0]),
        }
    )
    write_in_order([*parts, end], inbox)
    return [part.num_rows for part in parts]


#: what ``run_stream`` runs instead of a query: Spark's floors for the same micro-batches
SOURCE_FLOOR = "source"
PROCESSOR_FLOOR = "processor"


def processor_floor(source):
    """The source through matchrec's stream plumbing with a stateful processor that only
    counts its rows: rows packed per bucket (``mapInArrow``), shuffled, handed to one
    ``transformWithStateInPandas`` processor per bucket that reads and writes a state value
    of the size a W1 bucket keeps. What Spark charges before matchrec matches anything."""
    import pandas as pd
    from matchrec.runtime.streaming import (
        BUCKET,
        BUCKETS_CONF,
        DEFAULT_BUCKETS,
        ROCKSDB,
        STATE_STORE_CONF,
        bucket_of,
        packed_by_bucket,
    )
    from pyspark.sql.streaming import StatefulProcessor
    from pyspark.sql.types import BinaryType, LongType, StructField, StructType

    spark = source.sparkSession
    spark.conf.set(STATE_STORE_CONF, ROCKSDB)
    buckets = int(spark.conf.get(BUCKETS_CONF, str(DEFAULT_BUCKETS)))
    blob = b"x" * 200_000  # about a W1 bucket's state at 100,000 rows per micro-batch

    class CountingProcessor(StatefulProcessor):
        def init(self, handle):
            schema = StructType([StructField("blob", BinaryType())])
            self.state = handle.getValueState("bucket", schema)

        def handleInputRows(self, key, rows, timerValues):
            count = sum(len(frame) for frame in rows)
            self.state.get()
            self.state.update((blob,))
            yield pd.DataFrame({"rows": [count]})

    bucketed = source.withColumn(BUCKET, bucket_of(["symbol"], buckets))
    return (
        packed_by_bucket(bucketed)
        .groupBy(BUCKET)
        .transformWithStateInPandas(
            CountingProcessor(),
            StructType([StructField("rows", LongType())]),
            "Append",
            "EventTime",
        )
    )


def run_stream(spark, sql: str, inbox: Path, root: Path, schema) -> dict:
    """Run ``sql`` over the files of ``inbox`` as a stream, or a floor: the source alone
    into the no-op sink (:data:`SOURCE_FLOOR`, Spark's floor for micro-batches of that
    size) or :func:`processor_floor` (:data:`PROCESSOR_FLOOR`)."""
    import matchrec

    source = (
        spark.readStream.schema(schema)
        .option("maxFilesPerTrigger", 1)
        .parquet(str(inbox))
        .withWatermark("ts", "10 seconds")
    )
    source.createOrReplaceTempView("stream_ticks")
    if sql == SOURCE_FLOOR:
        result = source
    elif sql == PROCESSOR_FLOOR:
        result = processor_floor(source)
    else:
        result = matchrec.sql(spark, sql.format(table="stream_ticks"))
    query = (
        result.writeStream.format("noop").option("checkpointLocation", str(root / "chk")).start()
    )
    started = time.perf_counter()
    query.processAllAvailable()
    total = time.perf_counter() - started
    progress = [p for p in query.recentProgress if p["numInputRows"]]
    query.stop()
    steady = progress[1:]
    rows = sum(p["numInputRows"] for p in steady)
    seconds = sum(p["durationMs"]["triggerExecution"] for p in steady) / 1000
    operators = query.lastProgress["stateOperators"] if query.lastProgress else []
    state = operators[0] if operators else {}
    return {
        "micro_batches": len(progress),
        "rows_per_s": rows / seconds if seconds else None,
        "total_s": total,
        "state_mb": (state.get("memoryUsedBytes") or 0) / 1e6,
        "state_rows": state.get("numRowsTotal"),
    }


def run_batch(spark, sql: str, path: Path, repeat: int) -> float:
    import matchrec

    spark.read.parquet(str(path)).createOrReplaceTempView("batch_ticks")
    times = []
    for _ in range(repeat + 1):
        started = time.perf_counter()
        matchrec.sql(spark, sql.format(table="batch_ticks")).write.format("noop").mode(
            "overwrite"
        ).save()
        times.append(time.perf_counter() - started)
    return statistics.median(times[1:])  # the first run warms up


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.stream")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--symbols", type=int, default=1000)
    parser.add_argument("--batches", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--workloads", default="W1,W3")
    parser.add_argument(
        "--buckets",
        type=int,
        default=None,
        help="spark.matchrec.stream.buckets (default: matchrec's)",
    )
    parser.add_argument("--data-dir", type=Path, default=Path("benchmarks/data"))
    parser.add_argument(
        "--flink-python",
        default=None,
        help="a Python with PyFlink: W1-FLINK also runs as a Flink SQL streaming job",
    )
    args = parser.parse_args(argv)

    from matchrec.runtime.session import get_spark

    spark = get_spark({"spark.driver.memory": "2g"})
    if args.buckets:
        spark.conf.set("spark.matchrec.stream.buckets", str(args.buckets))
    path = ensure(DatasetSpec(args.rows, args.symbols, DEFAULT_SEED), args.data_dir)
    table = pq.read_table(path)
    schema = spark.read.parquet(str(path)).schema
    lines = [
        f"Streaming vs batch, {args.rows:,} rows, {args.symbols} symbols, "
        f"{args.batches} micro-batches (local[2]), "
        f"{spark.conf.get('spark.matchrec.stream.buckets', 'default')} buckets",
        "",
        "| workload | batch s | batch rows/s | stream rows/s (steady) | stream / batch "
        "| stream floor rows/s | stream / floor | processor floor rows/s "
        "| processor floor / batch | micro-batches | state MB | state rows "
        "| Flink streaming rows/s | stream / Flink |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
        "| ---: | ---: |",
    ]
    for name in args.workloads.split(","):
        sql = QUERIES[name.strip()]
        root = Path(tempfile.mkdtemp(prefix=f"mr-stream-{name}-"))
        inbox = root / "in"
        inbox.mkdir()
        try:
            cut_by_time(table, args.batches, inbox)
            floor = run_stream(spark, SOURCE_FLOOR, inbox, root / "floor", schema)
            processor = run_stream(spark, PROCESSOR_FLOOR, inbox, root / "processor", schema)
            stream = run_stream(spark, sql, inbox, root, schema)
            batch_s = run_batch(spark, sql, path, args.repeat)
        finally:
            shutil.rmtree(root, ignore_errors=True)
        flink_rate = _flink_rate(args, name.strip(), sql, path)
        batch_rate = args.rows / batch_s
        ratio = stream["rows_per_s"] / batch_rate if stream["rows_per_s"] else None
        lines.append(
            f"| {name} | {batch_s:.2f} | {batch_rate:,.0f} | {stream['rows_per_s']:,.0f} | "
            f"{ratio:.2f} | {floor['rows_per_s']:,.0f} | "
            f"{stream['rows_per_s'] / floor['rows_per_s']:.2f} | "
            f"{processor['rows_per_s']:,.0f} | {processor['rows_per_s'] / batch_rate:.2f} | "
            f"{stream['micro_batches']} | {stream['state_mb']:.1f} | "
            f"{stream['state_rows']} | "
            + (
                f"{flink_rate:,.0f} | {stream['rows_per_s'] / flink_rate:.2f} |"
                if flink_rate
                else "| |"
            )
        )
        print(lines[-1], flush=True)
    print("\n".join(lines))


def _flink_rate(args: argparse.Namespace, name: str, sql: str, path: Path) -> float | None:
    """Rows/s of Flink SQL running ``sql`` as a streaming job over the same rows (one
    timed run after a counting run; job start-up included), or None if not asked for."""
    if name not in FLINK_FORMS or not args.flink_python:
        return None
    if not flink.available(args.flink_python):
        print(f"Flink skipped: {flink.UNAVAILABLE}", flush=True)
        return None
    result = flink.run(
        flink.ensure_csv(path, by_time=True),
        sql.format(table="ticks"),
        1,
        args.flink_python,
        "streaming",
    )
    if result.error or not result.times:
        print(f"Flink failed: {result.error}", flush=True)
        return None
    print(f"Flink streaming: {result.times} s, {result.count} result rows", flush=True)
    return args.rows / min(result.times)


if __name__ == "__main__":
    main()
