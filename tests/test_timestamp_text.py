"""Spark's CAST of a string to TIMESTAMP (planner.timestamp_text) against Spark's own,
and through the doors where a string of several rows meets a TIMESTAMP function."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from doors import DOORS, rows_through
from matchrec.planner.number_text import decimal_text, double_text, integer_text
from matchrec.planner.timestamp_text import (
    TimestampNotComputed,
    TimestampTextError,
    date_of_text,
    timestamp_of_text,
)

import matchrec
from matchrec.zones import java_zone

TEXTS = [
    "2024",
    "2024-1",
    "2024-01-05",
    "2024-1-5",
    " 2024-01-05 ",
    "2024-01-05 10",
    "2024-01-05 10:30",
    "2024-01-05 1:2:3",
    "2024-01-05T10:30:00",
    "2024-01-05 10:30:00.1234567",
    "2024-01-05 10:30:00.",
    "2024-01-05 10:30:00Z",
    "2024-01-05 10:30:00 UTC",
    "2024-01-05 10:30:00+01:00",
    "2024-01-05 10:30:00-0800",
    "2024-01-05 10:30:00 America/Los_Angeles",
    "2024-01-05T10:30:00.5+05:30",
    "+2024-01-05",
    "2024-03-10 02:30:00",
    "2024-11-03 01:30:00",
    "2024-01-05 10:30:00 GMT+2",
    "2024-01-05 10:30:00UTC+03:00",
    "2024-01-05 10:30:00 +01:00",
    "2024-01-05 10:30:00 CET",
    "2024-01-05 10:30:00 PST",
    "2024-01-05 10:30:00 +1",
    "2024-01-05 10:30:00+1:0",
    "2024-01-05 10:30:00.000000001",
    "024-01-05",
    "2024-13-01",
    "2024-02-30",
    "2024-01-05 24:00:00",
    "2024-01-05 10:60",
    "2024/01/05",
    "20240105",
    "2024-01-05T",
    "2024-01-05 10:30Z",
    "2024-01-05 10:30:00 Mars/Olympus",
    "2024-01-05 10:30:00+19:00",
    "",
    # years Python's datetime does not hold, in the session zone or in UTC
    "12024-01-05",
    "-0044-03-15 12:00:00",
    "+10000-11-05 01:30:00",
    "9999-12-31 23:59:59",
    "0001-01-01 00:00:00",
    "9999-12-31 23:59:59 Asia/Tokyo",
    "+294247-01-10 04:00:54.775807Z",
    "+294247-01-10 04:00:54.775808Z",
    "-290308-12-21 19:59:06Z",
    "2024-02-29",
    "+10400-02-29",
    "+10500-02-29",
]
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


@pytest.mark.parametrize("zone", ["America/New_York", "+05:30"])
def test_text_cast_to_timestamp_as_spark_casts_it(spark, ansi_off, zone):
    before = spark.conf.get("spark.sql.session.timeZone")
    spark.conf.set("spark.sql.session.timeZone", zone)
    try:
        df = spark.createDataFrame([(t,) for t in TEXTS], "s string")
        rows = df.selectExpr("s", "unix_micros(CAST(s AS TIMESTAMP)) AS want").collect()
    finally:
        spark.conf.set("spark.sql.session.timeZone", before)
    wrong = []
    for r in rows:
        try:
            got = (timestamp_of_text(r.s, java_zone(zone)) - _EPOCH) // _MICRO
        except TimestampTextError:
            got = None
        if got != r.want:
            wrong.append((r.s, r.want, got))
    assert not wrong


_MICRO = datetime(1970, 1, 1, 0, 0, 0, 1, tzinfo=timezone.utc) - _EPOCH


@pytest.mark.parametrize("text", ["10:30:00", "T10:30"])
def test_text_python_cannot_hold_is_not_guessed(text):
    """A time without a date (Spark reads today's date)."""
    with pytest.raises(TimestampNotComputed, match="not computed here"):
        timestamp_of_text(text, None)


BODY = (
    "PARTITION BY k ORDER BY id MEASURES {m} AS m ONE ROW PER MATCH PATTERN (A B+) DEFINE B AS true"
)


@pytest.mark.parametrize(
    "measure",
    [
        "date_format(from_unixtime(LAST(B.n) * 3607 - FIRST(A.n)), 'HH:mm')",
        "date_format(concat(FIRST(A.s), ' ', LAST(B.s)), 'yyyy-MM-dd HH:mm EEE')",
        "CAST(concat(FIRST(A.s), 'T', LAST(B.s), '+02:00') AS TIMESTAMP)",
        "hour(CAST(concat(FIRST(A.s), ' ', LAST(B.s)) AS TIMESTAMP))",
        "minute(concat(FIRST(A.s), ' ', LAST(B.s))) + hour(concat(FIRST(A.s), 'T', LAST(B.s)))",
    ],
)
def test_a_string_of_several_rows_read_as_a_timestamp_through_the_table_function(spark, measure):
    spark.sql(
        "SELECT * FROM VALUES (1, 1, 100, '2024-03-10'), (1, 2, 7, '02:30:00'), "
        "(1, 3, 9, '1:5:9') AS t(k, id, n, s)"
    ).createOrReplaceTempView("mr_ts_text")
    matchrec.register(spark)
    body = BODY.format(m=measure)
    want = matchrec.sql(spark, f"SELECT m FROM mr_ts_text MATCH_RECOGNIZE ({body})").collect()
    got = spark.sql(
        "SELECT m FROM match_recognize(TABLE(mr_ts_text), '" + body.replace("'", "''") + "')"
    ).collect()
    assert got == want


def test_text_python_cannot_hold_is_an_error_through_the_table_function_not_a_null(spark, ansi_off):
    """A cast Spark computes but Python cannot (a time without a date):
    a positioned run-time error, never a NULL (ANSI off turned it into one)."""
    spark.sql(
        "SELECT * FROM VALUES (1, 1, '10:30'), (1, 2, ':00') AS t(k, id, s)"
    ).createOrReplaceTempView("mr_ts_time_only")
    matchrec.register(spark)
    body = BODY.format(m="CAST(concat(FIRST(A.s), LAST(B.s)) AS TIMESTAMP)")
    with pytest.raises(Exception, match="not computed here"):
        spark.sql(
            "SELECT m FROM match_recognize(TABLE(mr_ts_time_only), '"
            + body.replace("'", "''")
            + "')"
        ).collect()


#: texts around a number or a date: what Spark's casts trim (ASCII white space and
#: control characters) and what they do not (a no-break or ideographic space, digits
#: other than ASCII ones)
_EDGED = ["5\u00a0", "\u30005", "5\x00", "\x7f5", "\t5\n", "\x1f5\x0b", "\uff15", "5\u2003"]
_DATES = [
    "2024-01-05\u00a0",
    "\x002024-01-05\x7f",
    "\uff12\uff10\uff12\uff14-01-05",
    " 2024-01-05\r",
]


def _read(reader, text):
    try:
        return reader(text)
    except (TimestampTextError, ValueError):
        return None


def test_text_around_numbers_and_dates_is_trimmed_as_spark_trims_it(spark, ansi_off):
    """Python's strip() took a no-break space off (``'5\u00a0'`` read as 5, Spark's NULL or
    CAST_INVALID_INPUT) and left control characters on (``'5\x00'`` NULL, Spark's 5);
    full-width digits were read as digits."""
    df = spark.createDataFrame([(t,) for t in _EDGED + _DATES], "s string")
    rows = df.selectExpr(
        "s",
        "CAST(s AS BIGINT) AS i",
        "CAST(s AS DOUBLE) AS d",
        "CAST(s AS DECIMAL(10, 2)) AS m",
        "CAST(s AS DATE) AS day",
        "unix_micros(CAST(s AS TIMESTAMP)) AS ts",
    ).collect()
    wrong = []
    for r in rows:
        moment = _read(lambda t: timestamp_of_text(t, timezone.utc), r.s)
        got = (
            _read(integer_text, r.s),
            _read(double_text, r.s),
            _read(decimal_text, r.s),
            _read(date_of_text, r.s),
            None if moment is None else (moment - _EPOCH) // _MICRO,
        )
        want = (r.i, r.d, r.m, r.day, r.ts)
        if got != want:
            wrong.append((r.s, want, got))
    assert not wrong


EARLY = (
    "SELECT * FROM VALUES (1, TIMESTAMP'0999-03-04 05:06:07', DATE'0050-01-01'), "
    "(2, TIMESTAMP'0001-01-01 00:00:00.25', DATE'0999-12-31'), "
    "(3, TIMESTAMP'2024-01-01 00:00:00', DATE'2024-01-01') AS t(id, ts, d)"
)


@pytest.mark.parametrize("door", DOORS)
def test_an_early_timestamp_of_several_rows_is_written_with_a_four_digit_year(spark, door):
    """``concat`` and CAST to STRING of a TIMESTAMP before year 1000 keep the year's
    leading zeros, as Spark writes it (``0001-01-01 00:00:00.25``): the glue wrote
    ``1-01-01``, so ``LIKE '0%'`` matched nothing."""
    matchrec.register(spark)
    spark.sql(EARLY).createOrReplaceTempView("mr_early")
    texts = "concat(A.ts, '|', B.ts, '|', A.d), CAST(least(A.ts, B.ts) AS STRING)"
    body = (
        f"ORDER BY id MEASURES struct({texts}) AS m AFTER MATCH SKIP TO NEXT ROW "
        "PATTERN (A B) DEFINE B AS concat(A.ts, '|', B.ts) LIKE '0%'"
    )
    joined = texts.replace("A.", "a.").replace("B.", "b.")
    want = spark.sql(
        f"SELECT struct({joined}) FROM mr_early a JOIN mr_early b ON b.id = a.id + 1 "
        "WHERE concat(a.ts, '|', b.ts) LIKE '0%'"
    ).collect()
    assert len(want) == 2
    assert rows_through(spark, door, "mr_early", body) == sorted(tuple(r) for r in want)
