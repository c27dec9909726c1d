"""DATEs past the years 1-9999 that Python holds, in the evaluator of several rows.

``DATE'9999-12-31'`` is the usual open end of a slowly changing dimension, and Spark's
DATE runs on past it: one day later is ``+10000-01-01``. Such a value used to fail the
whole batch it was in, even when no match read it. Spark's own answers, by a self-join
or a GROUP BY, are the reference; values are compared as Spark's text of them, since
PySpark cannot collect such a DATE either."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

import pytest
from doors import DOORS, job_error, pair_clause, pair_join, rows_through
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.types import DateType, IntegerType, StructField, StructType, TimestampType
from streams import FolderStream, at

import matchrec
from matchrec.far_dates import FIRST_DAY, LAST_DAY, calendar_text

VIEW = "far_date_rows"


@pytest.fixture(scope="module")
def far_rows(spark: SparkSession) -> str:
    """Rows 1-7: rows 3 and 6 end on 9999-12-31, row 4's ``far`` is +10000-01-01 and row
    5's ``early`` is 0000-12-31."""
    spark.sql(
        f"""CREATE OR REPLACE TEMP VIEW {VIEW} AS SELECT CAST(id AS INT) AS id,
        CAST(id % 2 AS INT) AS g, 1 AS n,
        date_add(DATE'2024-01-01', CAST(id * 10 AS INT)) AS valid_from,
        IF(id IN (3, 6), DATE'9999-12-31',
           date_add(DATE'2024-01-01', CAST(id * 10 + 9 AS INT))) AS valid_to,
        IF(id = 4, date_add(DATE'9999-12-31', 1), DATE'2024-01-01') AS far,
        IF(id = 5, date_add(DATE'0001-01-01', -1), DATE'2024-01-01') AS early
        FROM range(1, 8)"""
    )
    matchrec.register(spark)
    return VIEW


CONDITIONS = [
    # Spark computes the day after 9999-12-31 for each row (a function of one row)
    "B.valid_from <> date_add(A.valid_to, 1)",
    # the evaluator moves the dates itself
    "date_add(A.valid_to, B.n) > B.valid_from",
    "A.valid_to + B.n > B.valid_from",
    "B.far = date_add(A.valid_to, B.n)",
    "B.far > A.far",
    "B.early < A.early",
    "datediff(greatest(B.far, A.far), A.valid_to) > B.n",
    "CAST(greatest(B.far, A.far) AS STRING) LIKE '+%'",
    "least(B.early, A.valid_to) < DATE'0001-01-01'",
]


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize("condition", CONDITIONS)
def test_a_condition_over_dates_past_python_s_years_is_spark_s(spark, far_rows, door, condition):
    got = rows_through(spark, door, VIEW, pair_clause(condition), "a")
    assert got == pair_join(spark, VIEW, "A.id", condition)


@pytest.mark.parametrize("door", DOORS)
def test_measures_of_dates_past_python_s_years_are_spark_s(spark, far_rows, door):
    measures = (
        "A.id AS a, greatest(A.far, B.far) AS gf, date_add(A.valid_to, B.n) AS nx, "
        "max(far) AS mx, min(early) AS mn, count(DISTINCT far) AS c"
    )
    got = rows_through(
        spark,
        door,
        VIEW,
        pair_clause("true", measures),
        "a, string(gf), string(nx), string(mx), string(mn), c",
    )
    assert got == pair_join(
        spark,
        VIEW,
        "A.id, string(greatest(A.far, B.far)), string(date_add(A.valid_to, B.n)), "
        "string(greatest(A.far, B.far)), string(least(A.early, B.early)), "
        "size(array_distinct(array(A.far, B.far)))",
    )
    assert any(row[1] == "+10000-01-01" for row in got)


@pytest.mark.parametrize("door", DOORS)
def test_nested_measures_of_dates_past_python_s_years_are_spark_s(spark, far_rows, door):
    measures = (
        "A.id AS a, collect_list(far) AS fl, named_struct('d', greatest(A.far, B.far)) AS st, "
        "map(A.id, array(A.far, B.far)) AS m"
    )
    got = rows_through(
        spark, door, VIEW, pair_clause("true", measures), "a, string(fl), string(st), string(m)"
    )
    assert got == pair_join(
        spark,
        VIEW,
        "A.id, string(array(A.far, B.far)), "
        "string(named_struct('d', greatest(A.far, B.far))), "
        "string(map(A.id, array(A.far, B.far)))",
    )
    assert any("+10000-01-01" in row[1] for row in got)


@pytest.mark.parametrize("door", DOORS)
def test_a_partition_key_past_python_s_years_is_one_partition(spark, far_rows, door):
    body = (
        "PARTITION BY far ORDER BY id MEASURES count(*) AS c ONE ROW PER MATCH "
        "PATTERN (A+) DEFINE A AS true"
    )
    want = spark.sql(f"SELECT string(far), count(*) FROM {VIEW} GROUP BY far").collect()
    assert rows_through(spark, door, VIEW, body, "string(far), c") == sorted(tuple(r) for r in want)


CALENDAR_VIEW = "far_calendar_rows"

#: calls that read a DATE's calendar, of ``x`` (and an INT ``n``)
CALENDAR_CALLS = [
    "year({x})",
    "month({x})",
    "day({x})",
    "dayofweek({x})",
    "weekday({x})",
    "quarter({x})",
    "date_part('day', {x})",
    "last_day({x})",
    "add_months({x}, {n})",
    "add_months({x}, -{n} * 12)",
    "{x} + INTERVAL '2' YEAR",
    "{x} - INTERVAL '1' MONTH",
    "{x} + INTERVAL '3' DAY",
    "{x} + make_interval(0, 1, 0, 1)",
    "trunc({x}, 'MM')",
    "trunc({x}, 'YEAR')",
    "next_day({x}, 'MO')",
    "make_date(year({x}), 1, 1)",
    "date_format({x}, 'yyyy-MM-dd EEE D')",
    "dayofyear({x})",
    "weekofyear({x})",
    "extract(YEAROFWEEK FROM {x})",
    "unix_date({x})",
    "date_from_unix_date(unix_date({x}) + {n})",
    "to_json(named_struct('d', {x}))",
    "to_json(map({x}, {n}))",
    "to_char({x}, 'yyyy-MM')",
    "unix_timestamp({x})",
    "to_timestamp({x})",
    "from_utc_timestamp({x}, 'Asia/Tokyo')",
    "CAST({x} AS TIMESTAMP)",
    "{x} - DATE'2024-01-01'",
]


@pytest.fixture(scope="module")
def calendar_rows(spark: SparkSession) -> str:
    """Days past 9999 and before year 1, 9999-12-30 (a call moves it past 9999) and a
    leap day; ``prev_d``: the row before's ``d``."""
    spark.sql(
        f"""CREATE OR REPLACE TEMP VIEW {CALENDAR_VIEW} AS
        SELECT *, lag(d) OVER (ORDER BY id) AS prev_d FROM (
        SELECT CAST(id AS INT) AS id, CAST(id AS INT) AS n,
        CASE id WHEN 2 THEN date_add(DATE'9999-12-31', 1)
                WHEN 3 THEN date_add(DATE'9999-12-31', 400)
                WHEN 4 THEN date_add(DATE'0001-01-01', -1)
                WHEN 5 THEN date_add(DATE'0001-01-01', -800)
                WHEN 6 THEN DATE'9999-12-30' ELSE DATE'2024-02-29' END AS d
        FROM range(1, 8))"""
    )
    matchrec.register(spark)
    return CALENDAR_VIEW


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize("call", CALENDAR_CALLS)
def test_a_calendar_call_of_such_a_date_is_spark_s(spark, calendar_rows, door, call):
    """The evaluator's answer (of A's and B's rows) equals Spark's (of B's row alone, a
    function of one row) on every pair of rows."""
    ours = call.format(x="greatest(A.d, B.d)", n="B.n")
    sparks = call.format(x="greatest(B.prev_d, B.d)", n="B.n")
    condition = f"string({ours}) <=> string({sparks})"
    got = rows_through(spark, door, CALENDAR_VIEW, pair_clause(condition))
    assert got == [(a,) for a in range(1, 7)]


@pytest.mark.parametrize("door", DOORS)
def test_such_a_date_beside_a_timestamp_is_its_midnight(spark, far_rows, door):
    """``greatest`` of such a DATE and a TIMESTAMP is the DATE's midnight, a TIMESTAMP
    past Python's years too (it was an error at the call)."""
    widest = "greatest(A.far, CAST(B.valid_from AS TIMESTAMP))"
    condition = (
        f"{widest} > TIMESTAMP'2024-01-01 00:00:00' AND A.far > CAST(B.valid_from AS TIMESTAMP)"
    )
    body = pair_clause(condition, f"A.id AS a, {widest} AS g")
    got = rows_through(spark, door, VIEW, body, "a, string(g)")
    assert got == pair_join(spark, VIEW, f"A.id, string({widest})", condition)
    assert any(g.startswith("+10000-01-01 00:00:00") for _, g in got)


def test_a_calendar_call_that_cannot_read_such_a_date_is_an_error_at_it(spark, far_rows):
    far = "greatest(B.far, A.far)"
    query, err = job_error(spark, VIEW, f"size(sequence({far}, {far} + 2)) > 1")
    assert "the DATE +10000-01-01 is outside the years 1-9999" in err.message
    assert query.index("sequence(") <= err.pos < query.index(") > 1")
    assert "MEASURES" in err.hint


def test_a_dates_text_is_spark_s(spark):
    days = [FIRST_DAY - 367, FIRST_DAY - 366, FIRST_DAY - 1, LAST_DAY + 1, LAST_DAY + 366]
    days += [-(2**31), 2**31 - 1, 2**31 - 146_097 * 7, -(2**31) + 146_097 * 5 + 59]
    df = spark.createDataFrame([(d,) for d in days], "d INT")
    want = [r[0] for r in df.selectExpr("string(date_from_unix_date(d))").collect()]
    assert [calendar_text(d) for d in days] == want


RULES = "rule_id STRING, version INT, spec STRING, active_from TIMESTAMP, enabled BOOLEAN"


def test_a_rule_reads_and_writes_dates_past_python_s_years(spark, far_rows):
    condition = "B.valid_from <> date_add(A.valid_to, 1)"
    spec = pair_clause(condition, "A.id AS a, date_add(A.valid_to, 1) AS nx")
    rules = spark.createDataFrame([("open_end", 1, spec, None, None)], RULES)
    out = matchrec.match_recognize_dynamic(spark.table(VIEW), rules, on_error="fail")
    got = sorted(
        tuple(r) for r in out.selectExpr("measures:a::int", "string(measures:nx::date)").collect()
    )
    assert got == pair_join(spark, VIEW, "A.id, string(date_add(A.valid_to, 1))", condition)


SCHEMA = StructType(
    [
        StructField("id", IntegerType()),
        StructField("ts", TimestampType()),
        StructField("valid_from", DateType()),
        StructField("valid_to", DateType()),
    ]
)


def test_a_stream_reads_and_writes_dates_past_python_s_years(
    spark: SparkSession, tmp_path: Path
) -> None:
    first = date(2024, 1, 1)
    rows = [
        (i, at(i), first + timedelta(days=i), date(9999, 12, 31) if i % 3 == 0 else None)
        for i in range(8)
    ]
    rows = [(i, t, d, end or d) for i, t, d, end in rows]
    body = (
        "ORDER BY ts MEASURES A.id AS a, date_add(A.valid_to, 1) AS nx "
        "AFTER MATCH SKIP TO NEXT ROW PATTERN (A B) "
        "DEFINE B AS B.valid_from <> date_add(A.valid_to, 1)"
    )

    def matched(df: DataFrame) -> DataFrame:
        return matchrec.match_recognize(df, body).selectExpr("a", "string(nx) AS nx")

    spark.createDataFrame(rows, SCHEMA).createOrReplaceTempView("far_date_events")
    want = sorted(tuple(r) for r in matched(spark.table("far_date_events")).collect())
    stream = FolderStream(spark, tmp_path, SCHEMA, "ts", "1 minute")
    # out of order within the delay, over three micro-batches
    files = [[rows[1], rows[0], rows[2]], [rows[4], rows[3]], rows[5:]]
    query = stream.run(matched, files)
    try:
        # rows that follow on: no pair with them matches
        last = rows[-1][3]
        stream.push_watermark(query, (99, at(9), last + timedelta(days=1), last), at(9))
    finally:
        query.stop()
    assert sorted(stream.output()) == want
    assert any(nx.startswith("+10000") for _, nx in want)
