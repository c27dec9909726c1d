"""A stream partitions as a batch query does whatever the PARTITION BY key's type:
STRUCT and ARRAY keys (NaN and -0.0 inside them equal to NaN and 0.0, as Spark groups
them), and a DOUBLE key that is NaN or -0.0, in a key held across micro-batches."""

from __future__ import annotations

from pathlib import Path

from pyspark.sql import SparkSession
from pyspark.sql.types import (
    ArrayType,
    DoubleType,
    IntegerType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)
from streams import FolderStream, at

import matchrec

PLACE = StructType(
    [
        StructField("a", StringType()),
        StructField("x", DoubleType()),
        StructField("t", TimestampType()),
    ]
)
SCHEMA = StructType(
    [
        StructField("s", PLACE),
        StructField("arr", ArrayType(IntegerType())),
        StructField("y", DoubleType()),
        StructField("ts", TimestampType()),
        StructField("n", IntegerType()),
    ]
)
NAN = float("nan")


def _row(x: float, minute: float, n: int, y: float | None = None, arr=(1, 2)) -> tuple:
    place = None if x is None else ("p", x, at(-60))
    return (place, None if arr is None else list(arr), x if y is None else y, at(minute), n)


# three partitions, each met again in later micro-batches with its NaN or zero written
# another way (-NaN, -0.0 for 0.0), and one of NULL keys
ROWS = [
    _row(NAN, 0, 1),
    _row(-0.0, 0, 1),
    _row(None, 0.5, 1, y=1.0, arr=None),
    _row(-NAN, 1, 2),
    _row(0.0, 1, 2),
    _row(None, 1.5, 2, y=1.0, arr=None),
    _row(NAN, 2, 3, y=-NAN),
    _row(0.0, 2, 7, y=-0.0),
    _row(None, 2.5, 8, y=1.0, arr=None),
    _row(NAN, 4, 9),
    _row(NAN, 30, 9, arr=(1, None)),
]

BODY = """PARTITION BY s, arr, y ORDER BY ts
          MEASURES MATCH_NUMBER() AS m, count(*) AS c, FIRST(A.n) AS f, CLASSIFIER() AS v
          ALL ROWS PER MATCH AFTER MATCH SKIP PAST LAST ROW
          PATTERN (A+ B) DEFINE A AS n < 5, B AS n >= 5"""


def _text(rows) -> list[str]:
    return sorted(repr(tuple(r)) for r in rows)


#: a dynamic rule's matched rows, as the static clause's columns that say the partition
PICKS = [
    "row:ts::timestamp AS ts",
    "row:n::int AS n",
    "measures:c::bigint AS c",
    "measures:f::int AS f",
    "measures:v::string AS v",
]


def test_a_stream_partitions_by_nested_and_float_keys_as_a_batch_query(
    spark: SparkSession, tmp_path: Path
) -> None:
    """MATCH_RECOGNIZE and a MATCH_RECOGNIZE_DYNAMIC rule partitioned alike, on one
    stream (two queries over one folder) and in batch."""
    spark.createDataFrame(ROWS, SCHEMA).createOrReplaceTempView("mr_stream_keys")
    batch = matchrec.sql(spark, f"SELECT * FROM mr_stream_keys MATCH_RECOGNIZE ({BODY})")
    want = _text(batch.collect())
    want_rule = _text(batch.select("ts", "n", "c", "f", "v").collect())
    rules = spark.createDataFrame([("k", 1, BODY)], "rule_id STRING, version INT, spec STRING")
    keys = [["y", "arr", "s"]]
    dynamic = matchrec.match_recognize_dynamic(spark.table("mr_stream_keys"), rules, keys=keys)
    assert _text(dynamic.selectExpr(*PICKS).collect()) == want_rule

    stream = FolderStream(spark, tmp_path / "static", SCHEMA, "ts", "1 minute")
    ruled = FolderStream(spark, tmp_path / "dynamic", SCHEMA, "ts", "1 minute")
    ruled.inbox = stream.inbox
    queries = [
        stream.start(matchrec.match_recognize(stream.source(), BODY)),
        ruled.start(
            matchrec.match_recognize_dynamic(ruled.source(), rules, keys=keys).selectExpr(*PICKS)
        ),
    ]
    # out of order within the delay, over four micro-batches; the last row moves the
    # watermark past all the others, and one more micro-batch fires their timers
    files = [ROWS[1::-1], [ROWS[3], ROWS[2], ROWS[4]], [ROWS[i] for i in (8, 5, 7, 6)]]
    files += [ROWS[9:], [(*ROWS[-1][:3], at(90), 9)]]
    try:
        for rows in files:
            stream.write(rows)
            for query in queries:
                query.processAllAvailable()
    finally:
        for query in queries:
            query.stop()
    assert _text(stream.output()) == want
    assert _text(ruled.output()) == want_rule
    # each partition's match spans the micro-batches (the last row is alone)
    assert sorted(r.c for r in batch.collect() if r.v == "B") == [3, 3, 4]
