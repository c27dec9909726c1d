"""Spark settings that change what a function computes are followed where matchrec
computes the function itself (DEFINE over several rows, the table function's MEASURES,
aggregates over a match), in every door and on streams and rules:
``spark.sql.legacy.statisticalAggregate`` (NaN for a division by zero),
``spark.sql.legacy.sizeOfNull`` (with ANSI off), ``spark.sql.legacy.negativeIndexInArrayInsert``
and ``spark.sql.mapKeyDedupPolicy``. Each answer is Spark's own under the same setting."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest
from doors import DOORS, pair_clause, pair_join, rows_through
from matchrec.runtime.session import session_settings
from pyspark.sql import SparkSession
from pyspark.sql.types import (
    DoubleType,
    IntegerType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)
from streams import FolderStream, at
from thorough import in_turn

import matchrec

STATS = "mr_fs_stats"
PAIRS = "mr_fs_pairs"

#: aggregates over the rows of a group, each as Spark's GROUP BY and a measure read them
STATISTICS = [
    "stddev(y)",
    "stddev_samp(y)",
    "stddev_pop(y)",
    "variance(y)",
    "var_samp(y)",
    "var_pop(y)",
    "covar_samp(y, id)",
    "covar_pop(y, id)",
    "corr(y, id)",
    "corr(c, id)",
    "skewness(y)",
    "kurtosis(y)",
    "skewness(c)",
    "kurtosis(c)",
    "regr_slope(y, c)",
    "regr_intercept(y, id)",
    "regr_r2(y, c)",
]


@pytest.fixture(scope="module")
def views(spark: SparkSession) -> None:
    matchrec.register(spark)
    spark.sql(
        f"CREATE OR REPLACE TEMP VIEW {STATS} AS SELECT * FROM VALUES "
        "(1, 1, 1.0D, 5), (1, 2, 2.0D, 5), (1, 3, 4.0D, 5), (2, 4, 7.0D, 3), "
        "(3, 5, 1.5D, 2), (3, 6, 1.5D, 2) AS t(g, id, y, c)"
    )
    spark.sql(
        f"CREATE OR REPLACE TEMP VIEW {PAIRS} AS SELECT * FROM VALUES "
        "(1, 2, array(1, NULL, 3), map('a', 1, 'b', 2), 'a', 'a:1,b:2'), "
        "(2, 1, CAST(NULL AS ARRAY<INT>), map('b', 20), 'b', 'b:7'), "
        "(3, 3, array(4), map('c', 3), 'a', 'a:5') AS t(id, v, arr, m, k, s)"
    )


def _same(value: object) -> object:
    """``value`` with NaN as a string, so that rows holding NaN compare equal."""
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    if isinstance(value, (tuple, list)):
        return type(value)(_same(v) for v in value)
    return value


def _rows(rows: list[tuple]) -> list[tuple]:
    return sorted((_same(r) for r in rows), key=repr)


@pytest.fixture(params=["true", "false"], ids=["legacy", "default"])
def statistical(spark: SparkSession, request: pytest.FixtureRequest) -> Iterator[str]:
    with session_settings(spark, {"spark.sql.legacy.statisticalAggregate": request.param}):
        yield request.param


@pytest.mark.parametrize("door", DOORS)
def test_statistical_aggregates_of_a_match_follow_the_legacy_setting(
    spark: SparkSession, views: None, either_ansi: str, statistical: str, door: str
) -> None:
    """One match per group: each aggregate over it is Spark's GROUP BY answer (NaN where
    the formula divides by zero under the legacy setting, NULL by default)."""
    measures = ", ".join(f"{a} AS m{i}" for i, a in enumerate(STATISTICS))
    want = spark.sql(f"SELECT g, {measures} FROM {STATS} GROUP BY g").collect()
    body = (
        f"PARTITION BY g ORDER BY id MEASURES {measures} ONE ROW PER MATCH "
        "PATTERN (A+) DEFINE A AS true"
    )
    assert _rows(rows_through(spark, door, STATS, body)) == _rows([tuple(r) for r in want])


@pytest.mark.parametrize("door", DOORS)
def test_a_statistical_aggregate_in_define_follows_the_legacy_setting(
    spark: SparkSession, views: None, statistical: str, door: str
) -> None:
    """``isnan(var_samp(A.y))`` over one row A holds under the legacy setting only."""
    holds = spark.sql("SELECT isnan(var_samp(y)) FROM VALUES (1.0D) AS t(y)").first()[0]
    view = f"(SELECT id, y FROM {STATS})"
    got = rows_through(spark, door, view, pair_clause("isnan(var_samp(A.y))"))
    assert got == pair_join(spark, view, condition=str(bool(holds)).lower())


#: a measure or condition over two rows, and the setting (with ANSI mode) it depends on
OVER_PAIRS = [
    (
        "size(CASE WHEN A.id > 0 THEN B.arr END)",
        {"spark.sql.legacy.sizeOfNull": "false", "spark.sql.ansi.enabled": "false"},
    ),
    (
        "cardinality(CASE WHEN A.id > 0 THEN B.arr END)",
        {"spark.sql.legacy.sizeOfNull": "true", "spark.sql.ansi.enabled": "false"},
    ),
    *(
        (
            f"array_insert(A.arr, B.v - B.v - {k}, A.v)",
            {"spark.sql.legacy.negativeIndexInArrayInsert": legacy},
        )
        for k in (1, 2, 4)
        for legacy in ("true", "false")
    ),
    *(
        (call, {"spark.sql.mapKeyDedupPolicy": "LAST_WIN"})
        for call in (
            "map_concat(A.m, B.m)",
            "map(A.k, A.id, B.k, B.id, 'x', A.v)",
            "map_from_arrays(array(A.k, B.k), array(A.id, B.id))",
            "map_from_entries(array(struct(A.k, A.v), struct(B.k, B.v)))",
            "str_to_map(concat(A.s, ',', B.s))",
            "transform_keys(map_concat(A.m, B.m), (k, v) -> k < 'c')",
        )
    ),
]


@pytest.mark.parametrize(
    ("call", "settings", "door"), in_turn(OVER_PAIRS, DOORS, ids=[c for c, _ in OVER_PAIRS])
)
def test_a_function_of_two_rows_follows_the_session_setting(
    spark: SparkSession, views: None, call: str, settings: dict, door: str
) -> None:
    """As a measure (the table function computes it) and in DEFINE (both doors do), the
    function gives Spark's answer under the setting: in DEFINE, each row B holds Spark's
    answer for it and the row before as text, which the condition compares with."""
    with session_settings(spark, settings):
        measures = f"A.id AS a, {call} AS x"
        want = pair_join(spark, PAIRS, measures)
        assert rows_through(spark, door, PAIRS, pair_clause("true", measures)) == want
        view = (
            f"(SELECT B.*, CASE WHEN A.id IS NOT NULL THEN CAST({call} AS STRING) END AS spark "
            f"FROM {PAIRS} B "
            f"LEFT JOIN {PAIRS} A ON B.id = A.id + 1)"
        )
        clause = pair_clause(f"CAST({call} AS STRING) <=> B.spark")
        assert rows_through(spark, door, view, clause) == pair_join(spark, view)


#: a measure of one row's sample deviation, and a NaN measured and carried
STREAMED = [
    "MEASURES FIRST(A.ts) AS t0, stddev_samp(A.y) AS sd, FIRST(A.y) AS y0, LAST(A.y) AS y1 "
    "ONE ROW PER MATCH",
    "MEASURES stddev_samp(A.y) AS sd, FIRST(A.y) AS y0 ALL ROWS PER MATCH",
]


@pytest.mark.parametrize("measures", STREAMED, ids=["one row", "all rows"])
def test_a_stream_follows_the_session_setting_and_keeps_nan(
    spark: SparkSession, tmp_path: Path, measures: str
) -> None:
    """A streaming MATCH_RECOGNIZE computes its aggregates under the session's setting as
    the batch door does (NaN for the sample deviation of one row under the legacy one),
    and its output keeps a NaN as NaN, measured or carried from the input (PySpark's
    pandas conversion read it as NULL)."""
    schema = StructType(
        [
            StructField("k", StringType()),
            StructField("ts", TimestampType()),
            StructField("y", DoubleType()),
            StructField("n", IntegerType()),
        ]
    )
    nan = float("nan")
    rows = [("a", at(0), 1.0, 1), ("a", at(1), nan, 2), ("b", at(2), 3.0, 1), ("b", at(5), 9.0, 9)]
    body = (
        f"PARTITION BY k ORDER BY ts {measures} AFTER MATCH SKIP PAST LAST ROW "
        "PATTERN (A) DEFINE A AS n < 5"
    )
    with session_settings(spark, {"spark.sql.legacy.statisticalAggregate": "true"}):
        spark.createDataFrame(rows, schema).createOrReplaceTempView("mr_fs_stream")
        want = matchrec.sql(spark, f"SELECT * FROM mr_fs_stream MATCH_RECOGNIZE ({body})")
        want_rows = _rows([tuple(r) for r in want.collect()])
        stream = FolderStream(spark, tmp_path, schema, "ts", "1 minute")
        query = stream.run(lambda df: matchrec.match_recognize(df, body), [rows[:2], rows[2:]])
        try:
            stream.push_watermark(query, rows[-1], at(5))
        finally:
            query.stop()
    assert _rows(stream.output()) == want_rows and len(want_rows) == 3
    assert sum(str(r).count("'NaN'") for r in want_rows) >= 4  # three deviations, a y


def test_rules_follow_the_session_setting(spark: SparkSession, views: None) -> None:
    """MATCH_RECOGNIZE_DYNAMIC computes a rule's aggregates under the session's setting."""
    spec = (
        "PARTITION BY g ORDER BY id MEASURES count(*) AS n ONE ROW PER MATCH "
        "PATTERN (A+) DEFINE A AS isnan(var_samp(A.y))"
    )
    rules = spark.createDataFrame([("r", 1, spec)], "rule_id string, version int, spec string")
    with session_settings(spark, {"spark.sql.legacy.statisticalAggregate": "true"}):
        want = matchrec.sql(spark, f"SELECT * FROM {STATS} MATCH_RECOGNIZE ({spec})").collect()
        got = matchrec.match_recognize_dynamic(spark.table(STATS), rules, on_error="fail")
        got = got.selectExpr("keys:g::int AS g", "measures:n::long AS n").collect()
    assert sorted(tuple(r) for r in got) == sorted(tuple(r) for r in want)
    assert want  # a one-row match's var_samp is NaN, so the rule matches
