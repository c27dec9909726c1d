"""TIMESTAMPs whose instant is past the years 1-9999 of UTC, in the evaluator of several
rows.

``TIMESTAMP'9999-12-31 23:59:59'``, the usual open end of a slowly changing dimension, is
``+10000-01-01 07:59:59`` UTC in Los Angeles. Such a value used to fail the whole batch
it was in, wherever a condition over two rows read its column. Spark's own answers, by a
self-join or a GROUP BY, are the reference; values are compared as Spark's text of them,
since PySpark cannot collect such a TIMESTAMP either."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from doors import DOORS, job_error, pair_clause, pair_join, rows_through
from matchrec.runtime.session import session_settings
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.types import IntegerType, StructField, StructType, TimestampType
from streams import FolderStream, at
from thorough import in_turn

import matchrec
from matchrec.far_timestamps import timestamp_of_micros, timestamp_text
from matchrec.rule_set import to_json
from matchrec.zones import java_zone

VIEW = "far_timestamp_rows"
ZONE = "America/Los_Angeles"


@pytest.fixture(scope="module")
def far_rows(spark: SparkSession) -> Iterator[str]:
    """Rows 1-7 in Los Angeles: rows 3 and 6 end on 9999-12-31 23:59:59 (past 9999 in
    UTC), row 4's ``far`` is half a year later (a summer time), row 5's ``early`` is in
    year 0 of UTC; ``ntz`` is a TIMESTAMP_NTZ, past 9999 on row 2; ``prev_far``: the row
    before's ``far``."""
    with session_settings(spark, {"spark.sql.session.timeZone": ZONE}):
        spark.sql(VIEW_QUERY)
        matchrec.register(spark)
        yield VIEW


VIEW_QUERY = f"""CREATE OR REPLACE TEMP VIEW {VIEW} AS
        SELECT *, lag(far) OVER (ORDER BY id) AS prev_far FROM (
        SELECT CAST(id AS INT) AS id, CAST(id AS INT) AS n,
        TIMESTAMP'2024-01-01 00:00:00' + make_dt_interval(CAST(id * 10 AS INT)) AS valid_from,
        IF(id IN (3, 6), TIMESTAMP'9999-12-31 23:59:59',
           TIMESTAMP'2024-01-01 00:00:00' + make_dt_interval(CAST(id * 10 + 10 AS INT)))
           AS valid_to,
        CASE id WHEN 4 THEN TIMESTAMP'9999-12-31 23:59:59' + INTERVAL '190' DAY
                WHEN 2 THEN TIMESTAMP'9999-12-31 20:00:00'
                ELSE TIMESTAMP'2024-03-10 01:30:00' END AS far,
        IF(id = 5, timestamp_micros(-62135596800000000 - 3600000000),
           TIMESTAMP'2024-01-01 00:00:00') AS early,
        IF(id = 2, TIMESTAMP_NTZ'9999-12-31 23:00:00' + INTERVAL '2' HOUR,
           TIMESTAMP_NTZ'2024-01-01 00:00:00') AS ntz
        FROM range(1, 8))"""


CONDITIONS = [
    "B.valid_from = A.valid_to",
    "B.valid_to > A.valid_to",
    "B.valid_to > A.valid_from + INTERVAL 1 DAY",
    "A.valid_to + INTERVAL '1' DAY > B.valid_from",
    "B.valid_to - A.valid_to > INTERVAL '1' DAY",
    "B.far >= A.far AND B.early < A.early",
    "greatest(A.far, B.far) > TIMESTAMP'9999-12-31 23:00:00'",
    "B.ntz > A.ntz",
    "B.ntz + INTERVAL '1' HOUR > A.ntz",
    "CAST(greatest(A.valid_to, B.valid_to) AS DATE) > DATE'9999-12-30'",
    "B.valid_to > CAST(A.valid_from AS DATE)",
]


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize("condition", CONDITIONS)
def test_a_condition_over_timestamps_past_python_s_years_is_spark_s(
    spark, far_rows, door, condition
):
    got = rows_through(spark, door, VIEW, pair_clause(condition), "a")
    assert got == pair_join(spark, VIEW, "A.id", condition)


@pytest.mark.parametrize("door", DOORS)
def test_measures_of_timestamps_past_python_s_years_are_spark_s(spark, far_rows, door):
    measures = (
        "A.id AS a, greatest(A.far, B.far) AS gf, A.valid_to + INTERVAL '1' DAY AS nx, "
        "max(valid_to) AS mx, min(early) AS mn, B.valid_to - A.valid_from AS d, "
        "collect_list(far) AS fl, greatest(A.ntz, B.ntz) AS gn"
    )
    got = rows_through(
        spark,
        door,
        VIEW,
        pair_clause("true", measures),
        "a, string(gf), string(nx), string(mx), string(mn), string(d), string(fl), string(gn)",
    )
    assert got == pair_join(
        spark,
        VIEW,
        "A.id, string(greatest(A.far, B.far)), string(A.valid_to + INTERVAL '1' DAY), "
        "string(greatest(A.valid_to, B.valid_to)), string(least(A.early, B.early)), "
        "string(B.valid_to - A.valid_from), string(array(A.far, B.far)), "
        "string(greatest(A.ntz, B.ntz))",
    )
    assert any(row[1].startswith("+10000-07") for row in got)


@pytest.mark.parametrize("door", DOORS)
def test_a_partition_key_past_python_s_years_is_one_partition(spark, far_rows, door):
    body = (
        "PARTITION BY valid_to ORDER BY id MEASURES count(*) AS c ONE ROW PER MATCH "
        "PATTERN (A+) DEFINE A AS true"
    )
    want = spark.sql(f"SELECT string(valid_to), count(*) FROM {VIEW} GROUP BY valid_to")
    got = rows_through(spark, door, VIEW, body, "string(valid_to), c")
    assert got == sorted(tuple(r) for r in want.collect())


#: calls that read a TIMESTAMP's wall clock, of ``x`` (and an INT ``n``)
CALENDAR_CALLS = [
    "year({x})",
    "month({x})",
    "day({x})",
    "hour({x})",
    "minute({x})",
    "second({x})",
    "dayofweek({x})",
    "weekday({x})",
    "quarter({x})",
    "to_date({x})",
    "CAST({x} AS DATE)",
    "CAST({x} AS STRING)",
    "{x} + INTERVAL '3' DAY",
    "{x} - INTERVAL '2' HOUR",
    "{x} + INTERVAL '1' MONTH",
    "{x} + make_interval(0, 1, 0, {n})",
    "date_trunc('HOUR', {x})",
    "date_trunc('MONTH', {x})",
    "unix_micros({x})",
    "unix_seconds({x})",
    "date_part('HOUR', {x})",
    "extract(DAY FROM {x})",
    "last_day({x})",
    "add_months({x}, {n})",
    "date_add({x}, {n})",
    "datediff({x}, TIMESTAMP'2024-01-01 00:00:00')",
    "date_format({x}, 'yyyy-MM-dd HH:mm EEE D xxx')",
    "dayofyear({x})",
    "weekofyear({x})",
    "timestampadd(MONTH, {n}, {x})",
    "timestampadd(HOUR, {n}, {x})",
    "timestampdiff(HOUR, TIMESTAMP'2024-01-01 00:00:00', {x})",
    "timestampdiff(MONTH, {x}, TIMESTAMP'9999-01-31 00:00:00')",
    "timestampdiff(DAY, {x}, TIMESTAMP'+10000-01-02 00:00:00')",
    "months_between({x}, TIMESTAMP'2024-01-31 10:00:00')",
    "months_between(TIMESTAMP'+10000-02-29 10:00:00', {x}, false)",
    "unix_timestamp({x})",
    "to_unix_timestamp({x})",
    "unix_timestamp({x}, 'yyyy-MM-dd')",
    "from_utc_timestamp({x}, 'Asia/Tokyo')",
    "to_utc_timestamp({x}, 'America/New_York')",
    "convert_timezone('Asia/Tokyo', {x})",
    "convert_timezone('UTC', 'Asia/Kolkata', CAST({x} AS TIMESTAMP_NTZ))",
    "extract(YEAROFWEEK FROM {x})",
    "date_part('DOW', {x})",
    "extract(DAYOFWEEK_ISO FROM {x})",
    "to_char({x}, 'yyyy-MM-dd HH')",
    "to_varchar({x}, 'yyyy')",
    "hash({x})",
    "xxhash64({x})",
    "to_json(named_struct('t', {x}))",
    "CAST({x} AS TIMESTAMP_NTZ)",
    "CAST({x} AS BIGINT)",
    "CAST({x} AS DOUBLE)",
    "trunc({x}, 'MM')",
    "next_day({x}, 'MO')",
    "make_date(year({x}), 1, 1)",
    "unix_date(to_date({x}))",
    "date_from_unix_date(unix_date(to_date({x})))",
    "timestamp_seconds(unix_seconds({x}))",
    "timestamp_millis(unix_millis({x}))",
    "from_unixtime(unix_seconds({x}))",
    "from_unixtime(unix_seconds({x}), 'yyyy-MM-dd HH:mm:ss XXX')",
    "to_timestamp_ntz({x})",
    "to_timestamp_ltz(to_timestamp_ntz({x}))",
    "date_part('WEEK', {x})",
    "monthname({x})",
    "dayname({x})",
    "try_to_timestamp(string({x}))",
    "CAST(string({x}) AS TIMESTAMP)",
    "date_diff({x}, DATE'2024-01-01')",
    "trunc({x}, 'WEEK')",
    "trunc({x}, 'QUARTER')",
    "date_trunc('WEEK', {x})",
    "make_date(least(year({x}), 9999), 12, 31) + {n}",
    "CAST({x} AS DATE) - INTERVAL 1 YEAR",
    "{x} - TIMESTAMP'2024-01-01 00:00:00'",
    "{x} - to_date({x})",
    "CAST({x} AS TIMESTAMP_NTZ) + INTERVAL 1 DAY",
    "hour(from_utc_timestamp({x}, 'UTC'))",
    "extract(SECOND FROM {x})",
    "string(struct({x}))",
    "xxhash64(to_date({x}))",
    "crc32(CAST(string({x}) AS BINARY))",
    "timestamp_micros(unix_micros({x}))",
    "CAST({x} AS DECIMAL(20, 3))",
    "CAST(CAST({x} AS BIGINT) AS TIMESTAMP)",
    "to_json(map({x}, {n}))",
    "to_json(array(to_date({x})))",
    "to_date({x}, 'yyyy-MM-dd')",
    "to_timestamp(to_date({x}))",
    "to_timestamp({x}, 'yyyy')",
    "make_timestamp(least(year({x}), 9999), 12, 31, 23, {n}, 0)",
    "make_timestamp(least(year({x}), 9999), 12, 31, 23, {n}, 0, 'Asia/Tokyo')",
    "make_timestamp((year({x}) DIV 4 + {n}) * 4, 2, 29, 23, 59, 60)",
    "make_timestamp_ntz(year({x}), month({x}), 1, 0, 0, 0)",
    "make_timestamp(to_date({x}))",
]


@pytest.mark.parametrize(("call", "door"), in_turn(CALENDAR_CALLS, DOORS))
def test_a_wall_clock_call_of_such_a_timestamp_is_spark_s(spark, far_rows, door, call):
    """The evaluator's answer (of A's and B's rows) equals Spark's (of B's row alone, a
    function of one row) on every pair of rows."""
    ours = call.format(x="greatest(A.far, B.far)", n="B.n")
    sparks = call.format(x="greatest(B.prev_far, B.far)", n="B.n")
    condition = f"string({ours}) <=> string({sparks})"
    got = rows_through(spark, door, VIEW, pair_clause(condition))
    assert got == [(a,) for a in range(1, 7)]


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize(
    "call",
    [
        "CAST({x} AS BIGINT)",
        "CAST({x} AS DOUBLE)",
        "CAST(unix_seconds({x}) AS TIMESTAMP)",
        "{x} - TIMESTAMP'2024-01-01 00:00:00'",
    ],
)
def test_such_a_timestamp_without_ansi_is_spark_s_not_null(spark, far_rows, ansi_off, door, call):
    """Without ANSI mode a failed cast is NULL: these gave NULL (the casts) or an hour
    less (Spark subtracts the wall clocks in the session zone, a summer time here) where
    Spark gives the value, silently."""
    ours = call.format(x="greatest(A.far, B.far)")
    sparks = call.format(x="greatest(B.prev_far, B.far)")
    condition = f"string({ours}) <=> string({sparks}) AND {ours} IS NOT NULL"
    got = rows_through(spark, door, VIEW, pair_clause(condition))
    assert got == [(a,) for a in range(1, 7)]


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize(
    ("first", "second", "within", "matched"),
    [
        # a summer time begins between them in year 10000: one hour passed, not two
        ("+10000-03-12 01:30:00", "+10000-03-12 03:30:00", "1", True),
        ("2024-03-10 01:30:00", "2024-03-10 03:30:00", "1", True),
        ("2024-11-03 00:30:00", "2024-11-03 01:30:00-08:00", "1", False),  # the later 01:30
        # the first in Python's years, the second past them in UTC: two hours passed
        ("9999-12-31 15:00:00", "9999-12-31 17:00:00", "2", True),
        ("9999-12-31 15:00:00", "9999-12-31 17:00:00", "1", False),
    ],
)
def test_within_counts_the_time_passed_between_such_timestamps(
    spark, far_rows, door, first, second, within, matched
):
    """WITHIN's span is the time that passed, also past Python's years (it was the wall
    clocks' difference there, an hour too long across a change of summer time, or an
    error where one row was in Python's years and the other past them)."""
    with session_settings(spark, {"spark.sql.session.timeZone": ZONE}):
        spark.sql(
            f"""CREATE OR REPLACE TEMP VIEW far_within_rows AS SELECT * FROM VALUES
            (1, TIMESTAMP'{first}', 1), (2, TIMESTAMP'{second}', 2) AS v(id, ts, v)"""
        )
        body = (
            "ORDER BY ts MEASURES A.id AS a PATTERN (A B) "
            f"WITHIN INTERVAL '{within}' HOUR DEFINE B AS array_contains(array(A.v, B.v), 2)"
        )
        got = rows_through(spark, door, "far_within_rows", body, "a")
    assert got == ([(1,)] if matched else [])


@pytest.mark.parametrize("zone", [ZONE, "UTC", "Asia/Kolkata", "Australia/Lord_Howe"])
def test_a_timestamps_text_is_spark_s(spark, zone):
    year = 365 * 86_400_000_000
    micros = [253_402_300_800_000_000 + k * year // 7 for k in range(-3, 30)]
    micros += [-62_135_596_800_000_000 - k * year // 5 for k in range(-2, 12)]
    micros += [-(2**63), 2**63 - 1, 253_402_300_800_000_000 + 1]
    df = spark.createDataFrame([(m,) for m in micros], "m BIGINT")
    with session_settings(spark, {"spark.sql.session.timeZone": zone}):
        want = [r[0] for r in df.selectExpr("string(timestamp_micros(m))").collect()]
    assert [timestamp_text(timestamp_of_micros(m, java_zone(zone))) for m in micros] == want


def test_a_call_that_cannot_read_such_a_timestamp_is_an_error_at_it(spark, far_rows):
    condition = (
        "size(sequence(greatest(B.far, A.far), greatest(B.far, A.far) + INTERVAL 1 HOUR,"
        " INTERVAL 30 MINUTE)) > 1"
    )
    query, err = job_error(spark, VIEW, condition)
    assert "the TIMESTAMP 9999-12-31 20:00:00 is outside the years 1-9999" in err.message
    assert query[err.pos :].startswith("sequence(greatest")
    assert "MEASURES" in err.hint


RULES = "rule_id STRING, version INT, spec STRING, active_from TIMESTAMP, enabled BOOLEAN"


def test_a_rule_reads_and_writes_timestamps_past_python_s_years(spark, far_rows):
    condition = "B.valid_from = A.valid_to OR B.valid_to > A.valid_to"
    spec = pair_clause(condition, "A.id AS a, greatest(A.valid_to, B.valid_to) AS g")
    rules = spark.createDataFrame([("open_end", 1, spec, None, None)], RULES)
    out = matchrec.match_recognize_dynamic(spark.table(VIEW), rules, on_error="fail")
    got = sorted(
        tuple(r)
        for r in out.selectExpr("measures:a::int", "string(measures:g::timestamp)").collect()
    )
    want = "A.id, string(greatest(A.valid_to, B.valid_to))"
    assert got == pair_join(spark, VIEW, want, condition)
    assert any(g == "9999-12-31 23:59:59" for _, g in got)


def test_a_rule_s_json_of_such_a_timestamp_reads_back_as_the_same_instant(spark):
    """A rule's measures are JSON: the text of such a TIMESTAMP carries its offset, so
    the hour that a fall-back repeats reads back as the instant it was (here the first
    Sunday of November, year 10000, 01:30 in Los Angeles: both of them)."""
    zone = java_zone(ZONE)
    micros = [253_429_029_000_000_000, 253_429_032_600_000_000, 253_402_329_599_000_000]
    micros += [-62_135_600_400_000_000, -62_170_156_800_000_000]
    texts = [(to_json(timestamp_of_micros(m, zone)),) for m in micros]
    with session_settings(spark, {"spark.sql.session.timeZone": ZONE}):
        df = spark.createDataFrame(texts, "j STRING")
        got = [r[0] for r in df.selectExpr("unix_micros(parse_json(j)::timestamp)").collect()]
    assert got == micros


NESTED = [
    "B.arr[0] >= A.arr[0]",
    "B.st.d > A.st.d AND B.st.t >= A.st.t",
    "element_at(B.m, B.id) > element_at(A.m, A.id) OR B.id = 2",
]


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize("condition", NESTED)
def test_dates_and_timestamps_past_python_s_years_inside_other_types(
    spark, far_rows, door, condition
):
    """Inside an array, a struct or a map of the input (each such value failed its batch)."""
    spark.sql(
        f"""CREATE OR REPLACE TEMP VIEW far_nested_rows AS SELECT id, array(far, valid_to) AS arr,
        named_struct('d', date_add(DATE'9999-12-30', id), 't', valid_to) AS st,
        map(id, far) AS m FROM {VIEW}"""
    )
    measures = "A.id AS a, B.arr AS arr, B.st AS st, A.m AS m"
    got = rows_through(
        spark,
        door,
        "far_nested_rows",
        pair_clause(condition, measures),
        "a, string(arr), string(st), string(m)",
    )
    want = "A.id, string(B.arr), string(B.st), string(A.m)"
    assert got == pair_join(spark, "far_nested_rows", want, condition)
    assert got


SCHEMA = StructType([StructField("id", IntegerType()), StructField("ts", TimestampType())])


def test_a_stream_reads_and_writes_timestamps_past_python_s_years(
    spark: SparkSession, tmp_path: Path
) -> None:
    """Each third row ends on 9999-12-31 23:59:59 in Los Angeles (computed by Spark in
    the stream); three micro-batches, rows out of order; the state between them holds
    such values."""
    rows = [(i, at(i)) for i in range(8)]
    body = (
        "ORDER BY ts MEASURES A.id AS a, A.valid_to + INTERVAL '1' DAY AS nx, "
        "max(valid_to) AS mx AFTER MATCH SKIP TO NEXT ROW PATTERN (A B) "
        "DEFINE B AS B.valid_to > A.valid_to AND B.id < 90"  # not the watermark's rows
    )

    def matched(df: DataFrame) -> DataFrame:
        ends = df.selectExpr(
            "*",
            "IF(id % 3 = 0, TIMESTAMP'9999-12-31 23:59:59', ts + INTERVAL '1' DAY) AS valid_to",
        )
        return matchrec.match_recognize(ends, body).selectExpr(
            "a", "string(nx) AS nx", "string(mx) AS mx"
        )

    with session_settings(spark, {"spark.sql.session.timeZone": ZONE}):
        want = sorted(tuple(r) for r in matched(spark.createDataFrame(rows, SCHEMA)).collect())
        stream = FolderStream(spark, tmp_path, SCHEMA, "ts", "1 minute")
        files = [[rows[1], rows[0], rows[2]], [rows[4], rows[3]], rows[5:]]
        query = stream.run(matched, files)
        try:
            stream.push_watermark(query, (99, at(9)), at(9))
        finally:
            query.stop()
        got = sorted(stream.output())
    assert got == want
    assert any(mx == "9999-12-31 23:59:59" for _, _, mx in want)
