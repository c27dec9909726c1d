"""MATCH_RECOGNIZE_DYNAMIC benchmark: 1, 10 and 100 rules of mixed shapes over the same
ticker rows, batch (and stream with ``--stream``), with the single-rule MATCH_RECOGNIZE
of the first rule shape as the baseline measured in the same run.

``python -m benchmarks.dynamic --rows 1000000 --rules 1,10,100 [--stream]``

Rules cycle through four shapes (V-shape, rising run, threshold run, ALL ROWS spike),
each with its own thresholds, partitioned by symbol. The table reports the seconds per
run (median of ``--repeat`` after a warm-up), seconds per rule, and the ratio to the
single-rule baseline: the time per rule falls as rules share the read, the shuffle and
the Python call.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from .datagen import DEFAULT_SEED, DatasetSpec, ensure
from .stream import cut_by_time

SHAPES = [
    (
        "PARTITION BY symbol ORDER BY ts MEASURES FIRST(A.price) AS top, LAST(B.price) AS "
        "bottom, count(*) AS n AFTER MATCH SKIP PAST LAST ROW PATTERN (A B+ C+) "
        "DEFINE B AS price < PREV(price) - {k}, C AS price > PREV(price)"
    ),
    (
        "PARTITION BY symbol ORDER BY ts MEASURES count(*) AS n, LAST(U.price) - FIRST(U.price) "
        "AS gain PATTERN (U{{3,}}) DEFINE U AS price > PREV(price) + {k}"
    ),
    (
        "PARTITION BY symbol ORDER BY ts MEASURES avg(H.price) AS level, count(*) AS n "
        "AFTER MATCH SKIP TO NEXT ROW PATTERN (H{{2}}) DEFINE H AS price > 100 + {k}"
    ),
    (
        "PARTITION BY symbol ORDER BY ts MEASURES CLASSIFIER() AS label ALL ROWS PER MATCH "
        "PATTERN (S J) DEFINE J AS price > PREV(price) * (1.01 + {k} / 1000)"
    ),
]


def rule_rows(count: int) -> list[tuple]:
    return [
        (f"r{i:03d}", 1, SHAPES[i % len(SHAPES)].format(k=i // len(SHAPES) % 10), None, True)
        for i in range(count)
    ]


def _timed(action, repeat: int) -> float:
    times = []
    for _ in range(repeat + 1):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times[1:])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.dynamic")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--symbols", type=int, default=1000)
    parser.add_argument("--rules", default="1,10,100")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--stream", action="store_true", help="also run each rule set as a stream")
    parser.add_argument("--batches", type=int, default=5)
    parser.add_argument("--data-dir", type=Path, default=Path("benchmarks/data"))
    args = parser.parse_args(argv)

    from matchrec.runtime.session import get_spark

    import matchrec

    spark = get_spark({"spark.driver.memory": "2g"})
    path = ensure(DatasetSpec(args.rows, args.symbols, DEFAULT_SEED), args.data_dir)
    events = spark.read.parquet(str(path))
    events.createOrReplaceTempView("dyn_ticks")
    rules_schema = (
        "rule_id STRING, version INT, spec STRING, active_from TIMESTAMP, enabled BOOLEAN"
    )

    def noop(df) -> None:
        df.write.format("noop").mode("overwrite").save()

    baseline_sql = f"SELECT * FROM dyn_ticks MATCH_RECOGNIZE ({SHAPES[0].format(k=0)})"
    baseline = _timed(lambda: noop(matchrec.sql(spark, baseline_sql)), args.repeat)
    lines = [
        f"MATCH_RECOGNIZE_DYNAMIC, {args.rows:,} rows, {args.symbols} symbols (local[2]); "
        f"baseline: one MATCH_RECOGNIZE of the first shape, {baseline:.2f} s",
        "",
        "| rules | batch s | s per rule | per rule / baseline | stream rows/s |",
        "| ---: | ---: | ---: | ---: | ---: |",
    ]
    for count in (int(c) for c in args.rules.split(",")):
        rules = spark.createDataFrame(rule_rows(count), rules_schema)
        seconds = _timed(
            lambda rules=rules: noop(matchrec.match_recognize_dynamic(events, rules)),
            args.repeat,
        )
        rate = "-"
        if args.stream:
            rate = f"{_stream_rate(spark, path, rules, args.batches):,.0f}"
        lines.append(
            f"| {count} | {seconds:.2f} | {seconds / count:.2f} | "
            f"{seconds / count / baseline:.2f}x | {rate} |"
        )
        print(lines[-1], flush=True)
    print("\n".join(lines))


def _stream_rate(spark, path: Path, rules, batches: int) -> float:
    import pyarrow.parquet as pq

    import matchrec

    root = Path(tempfile.mkdtemp(prefix="mr-dynamic-"))
    inbox = root / "in"
    inbox.mkdir()
    try:
        cut_by_time(pq.read_table(path), batches, inbox)
        source = (
            spark.readStream.schema(spark.read.parquet(str(path)).schema)
            .option("maxFilesPerTrigger", 1)
            .parquet(str(inbox))
            .withWatermark("ts", "10 seconds")
        )
        result = matchrec.match_recognize_dynamic(source, rules)
        query = (
            result.writeStream.format("noop")
            .option("checkpointLocation", str(root / "chk"))
            .start()
        )
        query.processAllAvailable()
        progress = [p for p in query.recentProgress if p["numInputRows"]]
        query.stop()
        steady = progress[1:] or progress
        rows = sum(p["numInputRows"] for p in steady)
        seconds = sum(p["durationMs"]["triggerExecution"] for p in steady) / 1000
        return rows / seconds if seconds else 0.0
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
