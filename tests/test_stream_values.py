"""A stream's output values are the batch door's, at any depth: NaN and -0.0 inside
arrays, maps and structs, DECIMAL(38, s) in an array, timestamps and dates in a struct,
binary values. PySpark converts a stateful processor's pandas output value by value, and
read a NaN inside an ARRAY, MAP or STRUCT as NULL."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path

from pyspark.sql import SparkSession
from pyspark.sql.types import (
    BinaryType,
    DateType,
    DecimalType,
    DoubleType,
    IntegerType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)
from streams import FolderStream, at

import matchrec

SCHEMA = StructType(
    [
        StructField("k", StringType()),
        StructField("ts", TimestampType()),
        StructField("y", DoubleType()),
        StructField("n", IntegerType()),
        StructField("d", DecimalType(38, 18)),
        StructField("day", DateType()),
        StructField("b", BinaryType()),
    ]
)

NAN = float("nan")
BIG = Decimal("12345678901234567890.123456789012345678")
ROWS = [
    ("a", at(0), 1.5, 1, BIG, date(1812, 6, 24), b"\x00\xff"),
    ("a", at(1), NAN, 2, -BIG, date(2024, 2, 29), None),
    ("a", at(2), -0.0, 3, None, None, b""),
    ("a", at(4), 4.0, 9, None, None, None),
    ("b", at(1), NAN, 1, Decimal("0.5"), date(1900, 1, 1), b"x"),
    ("b", at(3), 2.0, 2, Decimal("-0.000000000000000001"), date(9999, 12, 31), b"yz"),
    ("b", at(9), 9.0, 9, None, None, None),
]

#: nested measures of every row of a match, and its rows' own values
MEASURES = """MEASURES collect_list(A.y) AS ys, array(FIRST(A.y), LAST(A.y)) AS ends,
                 map('first', FIRST(A.y), 'last', LAST(A.y)) AS by_name,
                 collect_list(named_struct('y', A.y, 'ts', A.ts, 'day', A.day)) AS parts,
                 collect_list(A.d) AS ds, collect_list(A.b) AS bs, sum(A.d) AS total
              ALL ROWS PER MATCH"""


def _text(rows: list[tuple]) -> list[str]:
    """Rows as sorted text: NaN as nan, -0.0 kept apart from 0.0."""
    return sorted(repr(r) for r in rows)


def test_a_streams_nested_values_are_the_batch_doors(spark: SparkSession, tmp_path: Path) -> None:
    body = (
        f"PARTITION BY k ORDER BY ts {MEASURES} AFTER MATCH SKIP PAST LAST ROW "
        "PATTERN (A+ B) DEFINE A AS n < 5, B AS n >= 5"
    )
    spark.createDataFrame(ROWS, SCHEMA).createOrReplaceTempView("mr_stream_values")
    batch = matchrec.sql(spark, f"SELECT * FROM mr_stream_values MATCH_RECOGNIZE ({body})")
    want = _text([tuple(r) for r in batch.collect()])
    stream = FolderStream(spark, tmp_path, SCHEMA, "ts", "1 minute")
    # out of order within the delay, over three micro-batches
    files = [[ROWS[1], ROWS[0]], [ROWS[4], ROWS[2]], [ROWS[3], ROWS[6], ROWS[5]]]
    query = stream.run(lambda df: matchrec.match_recognize(df, body), files)
    try:
        stream.push_watermark(query, ROWS[-1], at(9))
    finally:
        query.stop()
    got = _text(stream.output())
    assert got == want
    assert sum(r.count("nan") for r in want) >= 3 and any("-0.0" in r for r in want)
