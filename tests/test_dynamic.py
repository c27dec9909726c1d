"""MATCH_RECOGNIZE_DYNAMIC on Spark: every rule's matches equal ``matchrec.sql`` of that
rule alone (batch), versions and disabled rules switch by event time, broken rules are
reported, and a real Structured Streaming query whose rules change while it runs (and
that is restarted from its checkpoint) gives the batch replay."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest
from matchrec.runtime.dynamic import RuleError
from matchrec.runtime.session import session_settings
from matchrec.runtime.streaming import BUCKETS_CONF as BUCKETS
from matchrec.runtime.streaming import late_rows
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.types import (
    DoubleType,
    IntegerType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)
from streams import FolderStream
from thorough import sampled

import matchrec
from matchrec.errors import ArbitraryOrderWarning, UnsupportedError, UsageError

EVENTS = StructType(
    [
        StructField("card", StringType()),
        StructField("ts", TimestampType()),
        StructField("amount", DoubleType()),
        StructField("country", StringType()),
        # named as a rule table column: the stream's union must keep the two apart
        StructField("version", IntegerType()),
    ]
)
RULES = "rule_id STRING, version INT, spec STRING, active_from TIMESTAMP, enabled BOOLEAN"
START = datetime(2026, 3, 1, tzinfo=timezone.utc)

SPECS = {
    "fraud": (
        "PARTITION BY card ORDER BY ts MEASURES FIRST(S.ts) AS first_ts, LAST(B.amount) AS "
        "big, count(S.*) AS smalls ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW "
        "PATTERN (S{2,} B) WITHIN INTERVAL '30' MINUTE "
        "DEFINE S AS amount < 5, B AS amount > 100 AND country <> FIRST(S.country)"
    ),
    "rising": (
        "PARTITION BY country ORDER BY ts MEASURES count(*) AS n, max(U.amount) - "
        "FIRST(U.amount) AS gain, CLASSIFIER() AS last_label AFTER MATCH SKIP TO NEXT ROW "
        "PATTERN (U{3}) DEFINE U AS amount > PREV(amount) OR PREV(amount) IS NULL"
    ),
    "every_row": (
        "PARTITION BY card ORDER BY ts MEASURES RUNNING count(*) AS k, MATCH_NUMBER() AS m, "
        # on B's row, FIRST(S.country) is a later row's (through a function Spark computes)
        "md5(FIRST(S.country)) AS first_s "
        "ALL ROWS PER MATCH PATTERN (B S+) DEFINE B AS amount > 100, S AS amount < 5"
    ),
}


def _events(n: int = 90) -> list[tuple]:
    amounts = [1.0, 2.0, 150.0, 3.0, 700.0, 4.0, 1.5, 2.5, 900.0, 120.0, 130.0, 140.0]
    rows = []
    for i in range(n):
        card = f"c{i % 3}"
        country = "FR" if (i // 7) % 2 else "US"
        rows.append((card, START + timedelta(minutes=i), amounts[(i * 5) % 12], country, i % 4))
    return rows


@pytest.fixture(scope="module")
def payments(spark: SparkSession) -> DataFrame:
    df = spark.createDataFrame(_events(), EVENTS)
    df.createOrReplaceTempView("dyn_payments")
    return df


def _rules(spark: SparkSession, rows: list[tuple]) -> DataFrame:
    return spark.createDataFrame(rows, RULES)


def _as_single(dynamic: DataFrame, single: DataFrame, rule_id: str) -> list[tuple]:
    """The rule's dynamic output read back with the single-rule output's columns and types
    (keys and input columns from ``keys``/``row``, measures from ``measures``)."""
    first = dynamic.where(f"rule_id = '{rule_id}'").first()
    measures = set(json.loads(first.measures_json))
    rest = "keys" if first.row is None else "row"  # ONE ROW / ALL ROWS PER MATCH
    picks = [
        f"{'measures' if f.name in measures else rest}:`{f.name}`::"
        f"{f.dataType.simpleString()} AS `{f.name}`"
        for f in single.schema.fields
    ]
    return sorted(
        tuple(r) for r in dynamic.where(f"rule_id = '{rule_id}'").selectExpr(*picks).collect()
    )


def _with_json(df: DataFrame) -> DataFrame:
    return df.withColumn("measures_json", df["measures"].cast("string"))


def test_each_rule_equals_its_own_match_recognize(spark: SparkSession, payments) -> None:
    rules = _rules(spark, [(rid, 1, spec, None, None) for rid, spec in SPECS.items()])
    dynamic = _with_json(matchrec.match_recognize_dynamic(payments, rules)).cache()
    assert {r.status for r in dynamic.collect()} == {"MATCHED"}
    for rule_id, spec in SPECS.items():
        single = matchrec.sql(spark, f"SELECT * FROM dyn_payments MATCH_RECOGNIZE ({spec})")
        expected = sorted(tuple(r) for r in single.collect())
        assert expected, f"{rule_id} finds nothing in the test data"
        assert _as_single(dynamic, single, rule_id) == expected, rule_id
    numbers = dynamic.where("rule_id = 'fraud'").select("match_number").collect()
    assert sorted(r.match_number for r in numbers) == sorted(
        r.m
        for r in matchrec.sql(
            spark,
            "SELECT m FROM dyn_payments MATCH_RECOGNIZE (PARTITION BY card ORDER BY ts "
            "MEASURES MATCH_NUMBER() AS m" + SPECS["fraud"].split("AS smalls")[1] + ")",
        ).collect()
    )
    dynamic.unpersist()


@pytest.mark.parametrize(
    "gap",
    [
        "B.ts - A.ts <= INTERVAL '3' MINUTE",
        "B.ts < A.ts + INTERVAL 200 SECONDS",
        "ts - PREV(ts) < INTERVAL 4 MINUTES",
    ],
)
def test_a_rule_compares_times_with_interval_literals(
    spark: SparkSession, payments, gap: str
) -> None:
    """A day-time interval literal in a rule (``B.ts - A.ts <= INTERVAL '3' MINUTE``,
    the usual fraud rule) was 'cannot be evaluated in a rule'; the pairs are Spark's."""
    spec = (
        "PARTITION BY card ORDER BY ts MEASURES A.ts AS a_ts AFTER MATCH SKIP TO NEXT ROW "
        f"PATTERN (A B) DEFINE B AS {gap} AND B.amount > A.amount"
    )
    rules = _rules(spark, [("gap", 1, spec, None, None)])
    out = matchrec.match_recognize_dynamic(payments, rules, on_error="fail")
    got = sorted(
        tuple(r) for r in out.selectExpr("keys:card::string", "measures:a_ts::timestamp").collect()
    )
    # every card's events are 3 minutes apart: each rising pair matches
    expected = sorted(
        tuple(r)
        for r in spark.sql(
            """SELECT card, prev_ts FROM (SELECT card, ts, amount,
                lag(ts) OVER w AS prev_ts, lag(amount) OVER w AS prev_amount
                FROM dyn_payments WINDOW w AS (PARTITION BY card ORDER BY ts))
            WHERE ts - prev_ts <= INTERVAL '3' MINUTE AND amount > prev_amount"""
        ).collect()
    )
    assert expected and got == expected


def test_an_interval_measure_is_sparks_text_of_it(spark: SparkSession, payments) -> None:
    """A VARIANT holds no interval: a rule's interval measure is Spark's CAST text of it,
    which CAST reads back (it was Python's text of a timedelta: '-1 day, 23:48:57')."""
    spec = (
        "PARTITION BY card ORDER BY ts MEASURES LAST(B.ts) - FIRST(A.ts) AS gap, "
        "FIRST(A.ts) - LAST(B.ts) AS neg AFTER MATCH SKIP PAST LAST ROW "
        "PATTERN (A B+) DEFINE B AS B.amount > A.amount"
    )
    rules = _rules(spark, [("span", 1, spec, None, None)])
    out = matchrec.match_recognize_dynamic(payments, rules, on_error="fail")
    got = sorted(
        tuple(r)
        for r in out.selectExpr(
            "keys:card::string",
            "CAST(measures:gap::string AS INTERVAL DAY TO SECOND)",
            "measures:neg::string",
        ).collect()
    )
    single = matchrec.sql(spark, f"SELECT * FROM dyn_payments MATCH_RECOGNIZE ({spec})")
    expected = sorted(
        tuple(r) for r in single.selectExpr("card", "gap", "CAST(neg AS STRING)").collect()
    )
    assert expected and got == expected


def _rule_as_its_match_recognize(
    spark: SparkSession, payments: DataFrame, spec: str, zone: str, view: str = "dyn_payments"
) -> None:
    """The rows of rule ``spec`` over ``payments`` (temp view ``view``) are those of the
    same clause run by ``matchrec.sql``, in session time zone ``zone``, and there are some."""
    rules = _rules(spark, [("r", 1, spec, None, None)])
    with session_settings(spark, {"spark.sql.session.timeZone": zone}):
        dynamic = _with_json(matchrec.match_recognize_dynamic(payments, rules, on_error="fail"))
        single = matchrec.sql(spark, f"SELECT * FROM {view} MATCH_RECOGNIZE ({spec})")
        expected = sorted(tuple(r) for r in single.collect())
        assert expected, "the rule should match some rows"
        assert _as_single(dynamic, single, "r") == expected


#: conditions of one row a rule computes, with the session zone they run in (the events
#: start at 2026-03-01 00:00 UTC, 2026-02-28 19:00 in New York)
ROW_CONDITIONS = [
    ("UTC", "ts >= TIMESTAMP '2026-03-01 00:30:00'"),
    ("UTC", "CAST(amount AS INT) < 3 OR amount::int > 800"),
    ("UTC", "hour(ts) = 0 AND minute(ts) < 40"),
    ("UTC", "substring(country, 1, 1) = 'F'"),
    ("UTC", "to_date(ts) = DATE '2026-03-01' AND datediff(ts, DATE '2026-02-27') = 2"),
    ("UTC", "year(ts) = 2026 AND CAST(ts AS DATE) < DATE '2026-03-02'"),
    ("UTC", "split(concat(country, '-x'), '-')[0] = 'US'"),
    ("UTC", "array_contains(array(card, 'c9'), 'c1')"),
    ("UTC", "map('US', 1, 'FR', 2)[country] = 2 AND element_at(array(amount), 1) > 2"),
    ("UTC", "regexp_extract(card, 'c([0-9])', 1) = '2'"),
    ("UTC", "date_format(ts, 'HH:mm') BETWEEN '00:20' AND '00:50'"),
    ("UTC", "from_unixtime(unix_timestamp(ts), 'mm') < '15'"),
    ("America/New_York", "date_format(ts, 'HH:mm') BETWEEN '19:20' AND '19:50'"),
    ("America/New_York", "ts >= TIMESTAMP '2026-02-28 19:30:00'"),
    ("America/New_York", "hour(ts) = 19 AND to_date(ts) = DATE '2026-02-28'"),
    (
        "America/New_York",
        "unix_timestamp(ts) - unix_timestamp(TIMESTAMP '2026-02-28 19:00:00') < 1800",
    ),
    ("America/New_York", "date_add(ts, 1) = DATE '2026-03-01' AND date_sub(ts, version) < ts"),
    ("UTC", "add_months(ts, 1) = DATE '2026-04-01'"),
    ("America/New_York", "months_between(ts, TIMESTAMP '2026-01-28 19:00:00') < 1.0005"),
    # a STRING beside another type is cast as Spark casts it (was numpy's traceback)
    ("UTC", "amount < '3' OR ts > '2026-03-01 01:00:00'"),
    ("UTC", "amount BETWEEN '2' AND '500' AND version IN ('1', '3')"),
    ("UTC", "amount + '1' > 4 AND '2' >= version"),
    # Spark's functions of the previous row's values (refused: "cannot be applied to a
    # value that depends on the match")
    ("America/New_York", "date_format(PREV(ts), 'HH:mm') < '19:40' AND date_add(PREV(ts), 1) > ts"),
    ("UTC", "unix_timestamp(ts) - unix_timestamp(PREV(ts)) = 60 OR PREV(ts) IS NULL"),
    ("UTC", "add_months(PREV(ts), version) >= DATE '2026-03-01'"),
    # a DECIMAL(p, s) target's precision and scale were "5 cannot be evaluated"
    ("UTC", "try_cast(CAST(amount AS STRING) AS DECIMAL(6,1)) > 2.5BD"),
    # Java's shifts in Spark's widths, e(), pi(), try_to_timestamp and
    # try_to_date without a pattern (each 'cannot be evaluated in a rule')
    ("UTC", "shiftleft(version, 30) < 0 OR version >>> 1 = 1 OR shiftleft(amount::bigint, 62) < 0"),
    ("UTC", "amount > pi() * e() AND ~version <> -1"),
    (
        "UTC",
        "try_to_timestamp(country) IS NULL AND try_to_date(CAST(ts AS STRING)) = DATE '2026-03-01'",
    ),
    ("America/New_York", "try_to_timestamp(CAST(ts AS STRING)) < TIMESTAMP '2026-02-28 19:30:00'"),
    # a YEAR-MONTH interval literal: months added to the wall-clock date, clipped to the
    # month's end (was "INTERVAL '1' MONTH cannot be evaluated in a rule")
    ("America/New_York", "ts + INTERVAL '1' MONTH < TIMESTAMP '2026-03-28 19:30:00'"),
    (
        "UTC",
        "PREV(ts) + INTERVAL '1' MONTH > ts + INTERVAL '1' MONTH - INTERVAL '2' MINUTE "
        "OR PREV(ts) IS NULL",
    ),
    ("UTC", "ts - INTERVAL '1-1' YEAR TO MONTH < TIMESTAMP '2025-02-01 00:20:00'"),
    ("UTC", "ts - INTERVAL '1' MONTH * 12 < make_ym_interval(-1) + TIMESTAMP '2026-03-01 00:20'"),
    # decode(x, search, result, ..., default), and the parsing functions with a pattern that
    # sqlglot keeps by name (each 'cannot be evaluated in a rule')
    ("UTC", "decode(country, 'US', amount > 2, NULL, false, amount > 100)"),
    (
        "America/New_York",
        "try_to_date(date_format(ts, 'yyyyMMdd'), 'yyyyMMdd') = DATE '2026-02-28' "
        "OR to_timestamp_ltz(date_format(ts, 'yyyy-MM-dd HH:mm'), 'yyyy-MM-dd HH:mm') = ts "
        "AND try_to_timestamp(date_format(ts, 'HH'), 'HH') IS NOT NULL",
    ),
    # base64, which the README lists for rules ("cannot be evaluated in a rule")
    ("UTC", "base64(country) = 'VVM=' AND base64(CAST(card AS BINARY)) LIKE 'Y%'"),
]


@pytest.mark.parametrize(("zone", "condition"), sampled(ROW_CONDITIONS))
def test_a_rules_row_conditions_call_sparks_functions_as_match_recognize(
    spark: SparkSession, payments, condition: str, zone: str
) -> None:
    """A rule's condition of the current row calls what DEFINE's evaluator has: CAST and
    ``DATE``/``TIMESTAMP`` literals, date parts, substrings, subscripts, regexes, datetime
    patterns in the session's zone (each was 'cannot be evaluated in a rule', a literal
    named as try_cast()); its matches are those of the same clause run by
    ``matchrec.sql``, in UTC and in New York."""
    spec = (
        "PARTITION BY card ORDER BY ts MEASURES FIRST(A.ts) AS first_ts, count(*) AS n "
        f"AFTER MATCH SKIP PAST LAST ROW PATTERN (A+) DEFINE A AS {condition}"
    )
    _rule_as_its_match_recognize(spark, payments, spec, zone)


#: measures of a rule that call Spark's functions on values of the match, with the zone
#: they run in
MEASURE_CALLS = [
    ("UTC", "date_format(LAST(B.ts), 'HH:mm')"),
    ("America/New_York", "date_format(FIRST(A.ts), 'yyyy-MM-dd HH')"),
    # the zone's offset (refused: "the pattern letter 'X' is not computed here")
    ("America/New_York", "date_format(LAST(B.ts), 'yyyy-MM-dd HH:mm XXX xx ZZZZ O')"),
    ("UTC", "unix_timestamp(FIRST(A.ts))"),
    ("America/New_York", "from_unixtime(unix_timestamp(LAST(B.ts)) + 60, 'HH:mm')"),
    ("UTC", "sha2(LAST(B.country), 256)"),
    ("UTC", "concat(upper(FIRST(A.country)), '-', card)"),
    ("UTC", "date_add(to_date(FIRST(A.ts)), 1)"),
    ("UTC", "date_sub(LAST(B.ts), 2)"),
    ("America/New_York", "add_months(to_date(LAST(B.ts)), 1)"),
    ("UTC", "months_between(LAST(B.ts), FIRST(A.ts) - INTERVAL 40 DAYS)"),
    # timestampdiff/timestampadd of values of several rows, in the session zone's wall
    # clock (they were 'cannot be evaluated in a rule')
    ("America/New_York", "timestampdiff(MINUTE, FIRST(A.ts), LAST(B.ts))"),
    ("UTC", "timestampdiff(MONTH, FIRST(A.ts) - INTERVAL 40 DAYS, LAST(B.ts))"),
    ("America/New_York", "timestampdiff(HOUR, LAST(B.ts), FIRST(A.ts) - INTERVAL 3 DAYS)"),
    ("UTC", "timestampadd(HOUR, count(*), FIRST(A.ts))"),
    # constants beside values of several rows (the query failed with an IndexError)
    ("UTC", "LAST(B.ts) - FIRST(A.ts) > INTERVAL '4' MINUTE"),
    ("UTC", "CASE WHEN LAST(B.ts) - A.ts >= INTERVAL 3 MINUTES THEN 1 ELSE 0 END"),
    # DECIMAL types and literals (refused), a call sqlglot writes only with its
    # arguments (initcap: refused by the check of functions failing on some values)
    ("UTC", "CAST(CAST(CAST(LAST(B.amount) AS DECIMAL(8,1)) AS DOUBLE) AS STRING)"),
    ("UTC", "avg(B.amount) * 1.2BD"),
    ("UTC", "initcap(concat(LAST(B.country), ' x'))"),
    ("UTC", "round(LAST(B.amount) * pi() / e(), 3)"),
    ("UTC", "shiftleft(LAST(B.version), 31) + shiftright(count(*), 1)"),
    ("UTC", "decode(LAST(B.country), FIRST(A.country), 'same', NULL, 'none', 'other')"),
    ("America/New_York", "try_to_timestamp(date_format(LAST(B.ts), 'yyyyMMddHH'), 'yyyyMMddHH')"),
    # to_char of a TIMESTAMP or a BINARY (was refused: numbers only); date_format of an
    # aggregate (its session zone, a one-row part, was "current_timezone() cannot be
    # evaluated in a rule")
    ("America/New_York", "to_char(max(B.ts), 'yyyy-MM-dd HH:mm')"),
    ("America/New_York", "date_format(max(B.ts), 'HH:mm')"),
    ("UTC", "to_varchar(CAST(LAST(B.country) || A.country AS BINARY), 'base64')"),
    # to_binary of several rows, binary literals (were "cannot be evaluated in a rule")
    ("UTC", "hex(to_binary(LAST(B.country) || A.country, 'utf-8') || X'0A')"),
    ("UTC", "X'5553' = to_binary(LAST(B.country), 'utf8')"),
    # maps keyed by a struct or an array ("unhashable type" in the evaluator)
    (
        "UTC",
        "nvl(map(named_struct('c', LAST(B.country)), count(*))[named_struct('c', A.country)], -1)",
    ),
    ("UTC", "nvl(map_from_arrays(array(array(A.country)), array(1))[array(LAST(B.country))], -1)"),
    # base64 of a navigated value ("cannot be evaluated in a rule")
    ("UTC", "base64(LAST(B.country)) || base64(concat(A.country, count(*)))"),
]


@pytest.mark.parametrize(("zone", "measure"), sampled(MEASURE_CALLS, offset=1))
def test_a_rules_measures_call_sparks_functions_as_match_recognize(
    spark: SparkSession, payments, measure: str, zone: str
) -> None:
    """A rule's measure may call Spark's functions on navigated values (each of these was
    'a rule cannot evaluate ... in MEASURES'); its values are those of the same clause run
    by ``matchrec.sql``, in UTC and in New York."""
    spec = (
        f"PARTITION BY card ORDER BY ts MEASURES {measure} AS x, count(*) AS n "
        "AFTER MATCH SKIP PAST LAST ROW PATTERN (A B+) DEFINE B AS B.amount > A.amount"
    )
    _rule_as_its_match_recognize(spark, payments, spec, zone)


def test_a_rules_condition_of_two_rows_may_call_timestampdiff(
    spark: SparkSession, payments
) -> None:
    spec = (
        "PARTITION BY card ORDER BY ts MEASURES FIRST(A.ts) AS t0, count(*) AS n "
        "AFTER MATCH SKIP PAST LAST ROW PATTERN (A B+) "
        "DEFINE B AS timestampdiff(MINUTE, A.ts, B.ts) <= 6 AND B.amount > A.amount"
    )
    _rule_as_its_match_recognize(spark, payments, spec, "America/New_York")


def test_a_rules_condition_of_two_rows_may_add_a_calendar_interval_of_one(
    spark: SparkSession, payments
) -> None:
    """``make_interval`` of the current row is a row-local CALENDAR INTERVAL the rule
    computes in Python (Arrow had no type for it: the job failed, every rule with it)."""
    spec = (
        "PARTITION BY card ORDER BY ts MEASURES FIRST(A.ts) AS t0, count(*) AS n "
        "AFTER MATCH SKIP PAST LAST ROW PATTERN (A B+) "
        "DEFINE B AS minute(A.ts + make_interval(0, 0, 0, 0, B.version, 0, 0)) % 2 = 0"
    )
    _rule_as_its_match_recognize(spark, payments, spec, "America/New_York")


ZIPPED = [
    "arrays_zip(LAST(B.tags), LAST(B.nums))",
    "arrays_zip(LAST(B.tags), FIRST(A.nums))",
    "arrays_zip(LAST(B.tags), LAST(B.tags))",
    "arrays_zip(B.tags, A.nums)",
]


@pytest.mark.parametrize("measure", ZIPPED)
def test_arrays_zip_of_navigated_values_names_its_fields_as_match_recognize(
    spark: SparkSession, measure: str
) -> None:
    """Spark names a field of ``arrays_zip`` after its argument when that is a column,
    else by its place: ``LAST(B.tags)`` is no column, so its field is ``0`` in
    ``matchrec.sql``; a rule and the table function, which compute the call on B's row,
    named it ``tags`` (twice: the rule's job failed, the table function refused it)."""
    df = spark.createDataFrame(
        [("p", START + timedelta(minutes=i), ["a", "b"][: i % 3], [i, i + 1]) for i in range(6)],
        "p STRING, ts TIMESTAMP, tags ARRAY<STRING>, nums ARRAY<INT>",
    )
    df.createOrReplaceTempView("dyn_zipped")
    spec = (
        f"PARTITION BY p ORDER BY ts MEASURES to_json({measure}) AS z "
        "AFTER MATCH SKIP TO NEXT ROW PATTERN (A B) DEFINE B AS true"
    )
    _rule_as_its_match_recognize(spark, df, spec, "UTC", view="dyn_zipped")
    matchrec.register(spark)
    quoted = spec.replace("'", "''")
    by_function = spark.sql(f"SELECT z FROM match_recognize(TABLE(dyn_zipped), '{quoted}')")
    by_sql = matchrec.sql(spark, f"SELECT z FROM dyn_zipped MATCH_RECOGNIZE ({spec})")
    assert sorted(by_function.collect()) == sorted(by_sql.collect())


def test_unmatched_rows_of_a_rule_say_so_in_their_status(spark: SparkSession, payments) -> None:
    """ALL ROWS PER MATCH WITH UNMATCHED ROWS: a row in no match has status UNMATCHED (it
    was MATCHED, so a consumer keeping status = 'MATCHED' got rows of no match)."""
    spec = (
        "PARTITION BY card ORDER BY ts MEASURES MATCH_NUMBER() AS m ALL ROWS PER MATCH "
        "WITH UNMATCHED ROWS PATTERN (B S+) DEFINE B AS amount > 100, S AS amount < 5"
    )
    rules = _rules(spark, [("u", 1, spec, None, None)])
    out = matchrec.match_recognize_dynamic(payments, rules, on_error="fail")
    got = sorted(
        tuple(r)
        for r in out.selectExpr(
            "row:card::string", "row:ts::timestamp", "match_number", "status"
        ).collect()
    )
    single = matchrec.sql(spark, f"SELECT card, ts, m FROM dyn_payments MATCH_RECOGNIZE ({spec})")
    expected = sorted(
        (r.card, r.ts, r.m, "MATCHED" if r.m is not None else "UNMATCHED") for r in single.collect()
    )
    assert {r[3] for r in expected} == {"MATCHED", "UNMATCHED"}
    assert got == expected


def test_rules_follow_the_sessions_ansi_mode(spark: SparkSession, payments, ansi_off) -> None:
    """Without ANSI mode a zero divisor in a rule's glue is NULL, as in the rule's own
    MATCH_RECOGNIZE (under ANSI mode both fail the query)."""
    spec = (
        "PARTITION BY card ORDER BY ts MEASURES count(*) AS n PATTERN (A B) "
        "DEFINE A AS amount > 100, B AS B.amount / (A.version - A.version) IS NULL"
    )
    rules = _rules(spark, [("div", 1, spec, None, None)])
    dynamic = _with_json(matchrec.match_recognize_dynamic(payments, rules))
    single = matchrec.sql(spark, f"SELECT * FROM dyn_payments MATCH_RECOGNIZE ({spec})")
    expected = sorted(tuple(r) for r in single.collect())
    assert expected, "the data must match"
    assert _as_single(dynamic, single, "div") == expected


@pytest.mark.parametrize(
    "condition", ["version IN ('1', '3') AND amount < '3'", "amount + '1' > 4 OR version < '1'"]
)
def test_a_rules_string_operands_without_ansi_are_cast_as_sparks(
    spark: SparkSession, payments, ansi_off, condition: str
) -> None:
    """Without ANSI mode Spark compares an integer IN strings as STRINGs and adds a
    STRING to a number as DOUBLEs: a rule's matches are those of its MATCH_RECOGNIZE."""
    spec = (
        "PARTITION BY card ORDER BY ts MEASURES count(*) AS n "
        f"AFTER MATCH SKIP PAST LAST ROW PATTERN (A+) DEFINE A AS {condition}"
    )
    _rule_as_its_match_recognize(spark, payments, spec, "UTC")


def test_a_rule_reads_a_map_column_as_a_map(spark: SparkSession) -> None:
    """A MAP column reaches a rule as a map: ``m['k']`` reads a key (it was a list of
    pairs: an ERROR row per partition), and ``row:m`` is a VARIANT object that
    ``::map<...>`` reads back, as the same clause's rows through ``matchrec.sql``."""
    events = spark.createDataFrame(
        [("p", START + timedelta(minutes=k), {"k": k, "z": 9}) for k in range(5)]
        + [("q", START + timedelta(minutes=k), {"k": 5 - k}) for k in range(3)],
        "a STRING, ts TIMESTAMP, m MAP<STRING, INT>",
    )
    events.createOrReplaceTempView("dyn_maps")
    spec = (
        "PARTITION BY a ORDER BY ts MEASURES element_at(LAST(B.m), 'k') AS last_k "
        "ALL ROWS PER MATCH PATTERN (A B+) DEFINE B AS m['k'] > PREV(m)['k']"
    )
    single = matchrec.sql(
        spark,
        f"SELECT a, ts, last_k, m['k'] AS mk, m['z'] AS mz FROM dyn_maps MATCH_RECOGNIZE ({spec})",
    )
    expected = sorted(tuple(r) for r in single.collect())
    assert expected, "the rule should match some rows"
    rules = _rules(spark, [("r", 1, spec, None, None)])
    got = matchrec.match_recognize_dynamic(events, rules, on_error="fail").selectExpr(
        "row:a::string AS a",
        "row:ts::timestamp AS ts",
        "measures:last_k::int AS last_k",
        "(row:m::map<string, int>)['k'] AS mk",
        "(row:m::map<string, int>)['z'] AS mz",
    )
    assert sorted(tuple(r) for r in got.collect()) == expected


@pytest.fixture(scope="module")
def nested_events(spark: SparkSession) -> DataFrame:
    """Events with an INT-keyed and a STRING-keyed map and a struct (view dyn_nested)."""
    df = spark.createDataFrame(
        [
            (
                f"p{i % 2}",
                START + timedelta(minutes=i),
                i % 4,
                {i % 4: i, 7: 1},
                {f"k{i % 3}": i},
                (f"c{i}", i),
            )
            for i in range(12)
        ],
        "a STRING, ts TIMESTAMP, k INT, m MAP<INT, INT>, sm MAP<STRING, INT>, "
        "info STRUCT<city: STRING, n: INT>",
    )
    df.createOrReplaceTempView("dyn_nested")
    return df


#: rules whose row-local values are maps or structs, computed in Python
NESTED_RULES = [
    # a map with INT keys (a TypeError in the rule job, not caught by ON ERROR SKIP)
    "MEASURES element_at(transform_values(LAST(B.m), (x, v) -> v + 1), FIRST(A.k)) AS x "
    "ONE ROW PER MATCH PATTERN (A B+) DEFINE B AS B.k <> A.k",
    "MEASURES LAST(B.ts) AS x ONE ROW PER MATCH PATTERN (A B+) "
    "DEFINE B AS element_at(map_filter(m, (x, v) -> v >= 0), (A.k + 2) % 4) IS NOT NULL",
    # a STRING-keyed map with other keys in other rows (read as a struct of every key)
    "MEASURES LAST(B.ts) AS x ONE ROW PER MATCH PATTERN (A B+) "
    "DEFINE B AS element_at(map_filter(sm, (x, v) -> v >= 0), concat('k', A.k)) IS NULL",
    # calls that write or hash a value by its type, and a field of a struct built in
    # place, of one row ("cannot be evaluated in a rule")
    "MEASURES to_json(LAST(B.info)) AS x, format_string('%s-%d', LAST(B.info).city, FIRST(A.k)) "
    "AS y, xxhash64(LAST(B.info)) AS z ONE ROW PER MATCH PATTERN (A B+) "
    "DEFINE B AS to_json(sm) LIKE '%k1%' OR named_struct('x', B.k, 'y', 1).x > A.k",
    # a struct as text (written as a map's: {city -> c3, n -> 3})
    "MEASURES CAST(LAST(B.info) AS STRING) AS x ONE ROW PER MATCH PATTERN (A B+) "
    "DEFINE B AS CAST(info AS STRING) LIKE '{c1%'",
]


@pytest.mark.parametrize("body", NESTED_RULES)
def test_a_rules_map_and_struct_values_are_those_of_match_recognize(
    spark: SparkSession, nested_events, body: str
) -> None:
    """A rule's row-local values of MAP and STRUCT type are Spark's: a map keeps its keys
    (also INT keys) and a struct is written as Spark writes it."""
    spec = f"PARTITION BY a ORDER BY ts {body}"
    _rule_as_its_match_recognize(spark, nested_events, spec, "UTC", view="dyn_nested")


def test_a_rules_timestamps_and_infinite_doubles_read_back_as_sparks(spark: SparkSession) -> None:
    """In New York, a rule's computed TIMESTAMP measure (``LAST(ts) + INTERVAL 1 HOUR``)
    was written at UTC's offset: ``measures:v::date`` was the next day, where Spark's
    date of it is the session's. A DOUBLE infinity was the STRING "inf" (NaN "nan"):
    an infinity is a DOUBLE of the VARIANT, NaN Spark's text of it."""
    spark.createDataFrame(
        [("c1", datetime(2024, 3, 11, 0, 30, tzinfo=timezone.utc), 1.0),
         ("c1", datetime(2024, 3, 11, 1, 0, tzinfo=timezone.utc), float("inf")),
         ("c2", datetime(2024, 3, 11, 1, 0, tzinfo=timezone.utc), float("nan"))],
        "k STRING, ts TIMESTAMP, p DOUBLE",
    ).createOrReplaceTempView("dyn_times")  # fmt: skip
    spec = (
        "PARTITION BY k ORDER BY ts MEASURES LAST(ts) + INTERVAL 1 HOUR AS v, max(p) AS x "
        "ONE ROW PER MATCH PATTERN (A+) DEFINE A AS true"
    )
    with session_settings(spark, {"spark.sql.session.timeZone": "America/New_York"}):
        want = matchrec.sql(
            spark,
            f"SELECT k, CAST(v AS DATE) AS day, v, CAST(x AS STRING) AS x FROM dyn_times "
            f"MATCH_RECOGNIZE ({spec})",
        )
        rules = _rules(spark, [("r", 1, spec, None, None)])
        got = matchrec.match_recognize_dynamic(spark.table("dyn_times"), rules).selectExpr(
            "keys:k::string AS k",
            "measures:v::date AS day",
            "measures:v::timestamp AS v",
            "measures:x::string AS x",
            "schema_of_variant(measures:x) AS x_type",
        )
        rows = sorted(got.collect())
        assert {r.day for r in rows} == {date(2024, 3, 10)}  # 22:00 in New York
        assert [tuple(r)[:4] for r in rows] == sorted(tuple(r) for r in want.collect())
    assert [r.x_type for r in rows] == ["DOUBLE", "STRING"]  # Infinity; NaN as text


def test_a_rule_that_raises_under_ansi_is_an_error_row_for_its_partition(
    spark: SparkSession, payments
) -> None:
    """Under ANSI mode (Spark's default) a zero divisor on card c1's rows stops the rule on
    that card only, with an ERROR row naming it (ON ERROR SKIP): the other cards give the
    rule's own MATCH_RECOGNIZE without c1, and the other rules run. ON ERROR FAIL fails."""
    zero = "(CASE WHEN card = 'c1' THEN 0 ELSE 1 END)"
    spec = SPECS["every_row"].replace("amount > 100", f"amount / {zero} > 100")
    rules = _rules(spark, [("div", 1, spec, None, None), ("fraud", 1, SPECS["fraud"], None, None)])
    dynamic = _with_json(matchrec.match_recognize_dynamic(payments, rules)).cache()
    errors = dynamic.where("status = 'ERROR'").collect()
    assert [(r.rule_id, json.loads(r["keys"].toJson())) for r in errors] == [
        ("div", {"card": "c1"})
    ]
    assert "DIVIDE_BY_ZERO" in errors[0].error and "^" in errors[0].error
    without_c1 = "(SELECT * FROM dyn_payments WHERE card <> 'c1')"
    single = matchrec.sql(spark, f"SELECT * FROM {without_c1} MATCH_RECOGNIZE ({spec})")
    expected = sorted(tuple(r) for r in single.collect())
    assert expected, "the other cards must match"
    assert _as_single(dynamic.where("status <> 'ERROR'"), single, "div") == expected
    assert dynamic.where("rule_id = 'fraud' AND status = 'MATCHED'").count() > 0
    dynamic.unpersist()
    with pytest.raises(Exception, match="DIVIDE_BY_ZERO"):
        matchrec.match_recognize_dynamic(payments, rules, on_error="fail").collect()


#: a rule whose integer arithmetic of one row leaves INT (version is an INT column)
OVERFLOWING = (
    "PARTITION BY card ORDER BY ts MEASURES count(*) AS n AFTER MATCH SKIP PAST LAST ROW "
    "PATTERN (A+) DEFINE A AS version * 2147483647 > 0"
)


def test_a_rules_integer_overflow_wraps_without_ansi_as_sparks(
    spark: SparkSession, payments, ansi_off
) -> None:
    """Without ANSI mode an INT product that does not fit wraps around in a rule as in
    Spark (the rule computed it unbounded: other matches)."""
    _rule_as_its_match_recognize(spark, payments, OVERFLOWING, "UTC")


def test_a_rules_integer_overflow_under_ansi_is_an_error_row(spark: SparkSession, payments):
    """Under ANSI mode the same overflow stops the rule (an ERROR row per card, as
    Spark's ARITHMETIC_OVERFLOW fails its MATCH_RECOGNIZE); it gave matches."""
    with pytest.raises(Exception, match="ARITHMETIC_OVERFLOW"):
        matchrec.sql(spark, f"SELECT * FROM dyn_payments MATCH_RECOGNIZE ({OVERFLOWING})").collect()
    rules = _rules(spark, [("big", 1, OVERFLOWING, None, None)])
    rows = _with_json(matchrec.match_recognize_dynamic(payments, rules)).collect()
    assert {r.status for r in rows} == {"ERROR"}
    assert all("overflow" in r.error and "INT" in r.error for r in rows)


def test_versions_switch_by_event_time_and_a_disabled_rule_stops(
    spark: SparkSession, payments
) -> None:
    switch, stop = START + timedelta(minutes=30), START + timedelta(minutes=70)
    v2 = SPECS["fraud"].replace("amount < 5", "amount < 4")
    rules = _rules(
        spark,
        [
            ("fraud", 1, SPECS["fraud"], None, True),
            ("fraud", 2, v2, switch, None),
            ("fraud", 3, SPECS["fraud"], stop, False),
        ],
    )
    rules.createOrReplaceTempView("dyn_rules")
    found = matchrec.sql(
        spark,
        "SELECT r.rule_version, r.keys:card::string AS card, r.measures:first_ts::timestamp "
        "AS first_ts, r.measures:big::double AS big FROM dyn_payments "
        "MATCH_RECOGNIZE_DYNAMIC (RULES FROM dyn_rules) AS r",
    )
    got = sorted(tuple(r) for r in found.collect())
    expected = []
    for version, spec, where in (
        (1, SPECS["fraud"], f"ts < TIMESTAMP '{switch.isoformat()}'"),
        (2, v2, f"ts >= TIMESTAMP '{switch.isoformat()}' AND ts < TIMESTAMP '{stop.isoformat()}'"),
    ):
        single = matchrec.sql(
            spark,
            f"SELECT card, first_ts, big FROM (SELECT * FROM dyn_payments WHERE {where}) "
            f"MATCH_RECOGNIZE ({spec})",
        )
        expected += [(version, *r) for r in single.collect()]
    assert {r[0] for r in expected} == {1, 2}, "the data must exercise both versions"
    assert got == sorted(expected)


def test_a_broken_rule_is_reported_and_the_others_run(spark: SparkSession, payments) -> None:
    broken = "PARTITION BY card ORDER BY ts PATTERN (A) DEFINE A AS reflect('x', 'y') = 1"
    rules = _rules(
        spark, [("fraud", 1, SPECS["fraud"], None, None), ("bad", 7, broken, None, None)]
    )
    with pytest.warns(UserWarning, match="skips rule 'bad' version 7"):
        out = matchrec.match_recognize_dynamic(payments, rules)
    rows = out.collect()
    errors = [r for r in rows if r.status == "ERROR"]
    assert [(r.rule_id, r.rule_version) for r in errors] == [("bad", 7)]
    assert "reflect() is not allowed in a rule" in errors[0].error
    assert "^" in errors[0].error  # the caret under the rule's text
    assert any(r.rule_id == "fraud" and r.status == "MATCHED" for r in rows)
    with pytest.raises(RuleError, match="rule 'bad' version 7: reflect") as err:
        matchrec.match_recognize_dynamic(payments, rules, on_error="fail")
    assert err.value.pos == broken.index("reflect")


def test_rule_table_rows_that_name_no_one_version_are_reported(
    spark: SparkSession, payments
) -> None:
    """A row without rule_id or version was dropped silently; a version given twice with
    different specs ran one of them, picked by row order (batch and stream picked
    differently). Both are ERROR rows now, and the version before a duplicated one runs
    on; identical copies are one version. A blank rule_id (it was taken) names no rule."""
    fraud, other = SPECS["fraud"], SPECS["fraud"].replace("amount > 100", "amount > 150")
    rows = [
        ("fraud", 1, fraud, None, None),
        ("dup", 1, fraud, None, None),
        ("dup", 2, fraud, None, None),
        ("dup", 2, other, None, None),
        ("same", 1, fraud, None, None),
        ("same", 1, fraud, None, None),
        (None, 3, fraud, None, None),
        (" ", 1, fraud, None, None),
    ]
    with pytest.warns(UserWarning, match="skips a rule table row"):
        out = matchrec.match_recognize_dynamic(payments, _rules(spark, rows)).collect()
    errors = sorted((r.rule_id or "", r.rule_version, r.error) for r in out if r.status == "ERROR")
    assert [(e[0], e[1]) for e in errors] == [("", 3), (" ", 1), ("dup", 2)]
    assert "has no rule_id" in errors[0][2]
    assert "has a blank rule_id (' ')" in errors[1][2]
    assert "version 2 is in the rule table 2 times with different contents" in errors[2][2]
    matched = {(r.rule_id, r.rule_version) for r in out if r.status == "MATCHED"}
    assert matched == {("fraud", 1), ("dup", 1), ("same", 1)}
    per_rule = [
        sum(r.rule_id == i and r.status == "MATCHED" for r in out) for i in ("fraud", "dup", "same")
    ]
    assert per_rule[0] == per_rule[1] == per_rule[2]  # one copy of "same" ran
    with pytest.raises(RuleError, match="has no rule_id"):
        matchrec.match_recognize_dynamic(payments, _rules(spark, rows), on_error="fail")


def test_a_rule_without_order_by_is_warned_about_as_match_recognize_is(
    spark: SparkSession, payments
) -> None:
    """A rule with no ORDER BY ran in batch without the warning the clause gives."""
    spec = "PARTITION BY card MEASURES count(*) AS n PATTERN (A) DEFINE A AS amount > 100"
    rules = _rules(spark, [("loose", 2, spec, None, None)])
    with pytest.warns(ArbitraryOrderWarning, match="rule 'loose' version 2 has no ORDER BY"):
        out = matchrec.match_recognize_dynamic(payments, rules)
    assert out.where("status = 'MATCHED'").count() > 0


def test_python_door_errors_have_no_caret_and_keys_are_lists_of_lists(
    spark: SparkSession, payments
) -> None:
    rules = _rules(spark, [("fraud", 1, SPECS["fraud"], None, None)])
    with pytest.raises(UsageError, match=r"list of column lists, e\.g\. \[\['card'\]"):
        matchrec.match_recognize_dynamic(payments, rules, keys=["card"])
    with pytest.raises(matchrec.SemanticError, match="KEYS names 'nope'") as err:
        matchrec.match_recognize_dynamic(payments, rules, keys=[["nope"]])
    assert err.value.line is None and " | " not in str(err.value)


def test_sql_door_errors(spark: SparkSession, payments) -> None:
    query = "SELECT * FROM dyn_payments MATCH_RECOGNIZE_DYNAMIC (RULES FROM no_such_rules) r"
    with pytest.raises(matchrec.SemanticError, match="no table or view 'no_such_rules'") as err:
        matchrec.sql(spark, query)
    assert err.value.pos == query.index("no_such_rules")
    spark.createDataFrame([("a", 1)], "rule_id STRING, version INT").createOrReplaceTempView(
        "dyn_no_spec"
    )
    with pytest.raises(matchrec.SemanticError, match="the rule table has no column spec"):
        matchrec.sql(spark, query.replace("no_such_rules", "dyn_no_spec"))
    with pytest.raises(matchrec.SemanticError, match="RULES FROM takes the name of a table"):
        matchrec.sql(spark, query.replace("no_such_rules", "(SELECT 1)"))


@pytest.mark.parametrize(
    ("column", "value", "says"),
    [
        ("active_from", "'2026-01-01'", "the rule table's active_from is string"),
        # 'off' was cast to a NULL BOOLEAN, and a NULL enabled is an enabled rule
        ("enabled", "'off'", "the rule table's enabled is string"),
        ("enabled", "0", "the rule table's enabled is int"),
    ],
)
def test_rule_table_columns_of_another_type_are_refused(
    spark: SparkSession, payments, column: str, value: str, says: str
) -> None:
    rules = spark.sql(
        f"SELECT 'fraud' AS rule_id, 1 AS version, {SPECS['fraud']!r} AS spec, {value} AS {column}"
    )
    with pytest.raises(matchrec.SemanticError, match=says) as err:
        matchrec.match_recognize_dynamic(payments, rules, keys=[["card"]])
    assert "make it a" in err.value.hint


def test_explain_describes_the_rules(spark: SparkSession, payments) -> None:
    _rules(spark, [("fraud", 1, SPECS["fraud"], None, None)]).createOrReplaceTempView("dyn_ok")
    text = str(
        matchrec.explain(
            spark,
            "SELECT * FROM dyn_payments MATCH_RECOGNIZE_DYNAMIC (RULES FROM dyn_ok KEYS (card) "
            "ON ERROR FAIL) r",
        )
    )
    assert "MATCH_RECOGNIZE_DYNAMIC 1 of 1" in text
    assert "Key sets (one shuffle each" in text and "(card)" in text
    assert "ON ERROR FAIL" in text


# ---------------------------------------------------------------------------- stream


def dynamic_stream(spark: SparkSession, source: DataFrame, rules_dir: Path) -> DataFrame:
    """The stream under test: rules read as a stream of JSON files, keys by card, the
    VARIANT columns as JSON text for the Parquet sink."""
    rules = spark.readStream.schema(RULES).json(str(rules_dir))
    out = matchrec.match_recognize_dynamic(source, rules, keys=[["card"]])
    return out.selectExpr(*OUT_COLUMNS)


OUT_COLUMNS = [
    "rule_id",
    "rule_version",
    "status",
    "match_number",
    "to_json(keys) AS keys",
    "to_json(measures) AS measures",
    "error",
]


def _rule_file(folder: Path, name: str, rows: list[dict]) -> None:
    hidden = folder / f".{name}.json"
    hidden.write_text("\n".join(json.dumps(r) for r in rows))
    hidden.rename(folder / f"{name}.json")


def _waves() -> list[list[dict]]:
    """The rule files of the stream tests, in order of arrival: a rule at the start; a new
    version and a new rule scheduled ahead of the watermark, a broken rule and a row that
    names no rule; a row that disables a rule from a later time."""
    at = lambda minute: (START + timedelta(minutes=minute)).isoformat()  # noqa: E731
    v2 = SPECS["fraud"].replace("amount < 5", "amount < 4")
    rising = (
        SPECS["rising"]
        .replace("PARTITION BY country", "PARTITION BY card")
        .replace("PATTERN (U{3})", "PATTERN (U{2})")
    )
    off = {"rule_id": "rising", "version": 2, "spec": rising, "active_from": at(100)}
    return [
        [{"rule_id": "fraud", "version": 1, "spec": SPECS["fraud"]}],
        [
            {"rule_id": "fraud", "version": 2, "spec": v2, "active_from": at(60)},
            {"rule_id": "rising", "version": 1, "spec": rising, "active_from": at(45)},
            {"rule_id": "bad", "version": 1, "spec": "PARTITION BY card PATTERN (A"},
            {"version": 3, "spec": SPECS["fraud"]},  # no rule_id: reported, never run
        ],
        [{**off, "enabled": False}],
    ]


def stream_files() -> list[list[tuple]]:
    """The events of the stream tests as files of 20 minutes, every other one reversed."""
    events = _events(120)
    slices = [events[i : i + 20] for i in range(0, len(events), 20)]
    return [s[::-1] if k % 2 else s for k, s in enumerate(slices)]


def _finish(spark: SparkSession, stream: FolderStream, query) -> list[tuple]:
    """Move the watermark past every event (two far rows: the second fires the timers),
    stop, and read everything the query wrote."""
    far = START + timedelta(days=400)
    for row in [("zz", far, 0.0, "X", 0), ("zz", far + timedelta(days=1), 0.0, "X", 0)]:
        stream.write([row])
        query.processAllAvailable()
    query.stop()
    return sorted((tuple(r) for r in spark.read.parquet(str(stream.out)).collect()), key=repr)


def _assert_batch_replay(spark: SparkSession, got: list[tuple]) -> None:
    """``got`` equals MATCH_RECOGNIZE_DYNAMIC over the same events as a batch, with the
    same rule rows as a rule table; the broken rule and the row without a rule_id are
    reported once."""
    replay = _rules(
        spark,
        [
            (
                r.get("rule_id"),
                r["version"],
                r["spec"],
                None if "active_from" not in r else datetime.fromisoformat(r["active_from"]),
                r.get("enabled"),
            )
            for wave in _waves()
            for r in wave
        ],
    )
    events = spark.createDataFrame(_events(120), EVENTS)
    with pytest.warns(UserWarning, match="skips rule 'bad'"):
        batch = matchrec.match_recognize_dynamic(events, replay, keys=[["card"]])
    expected = sorted((tuple(r) for r in batch.selectExpr(*OUT_COLUMNS).collect()), key=repr)
    assert {(r[0], r[1]) for r in expected if r[2] == "MATCHED"} >= {
        ("fraud", 1),
        ("fraud", 2),
        ("rising", 1),
    }, "the test data must exercise every version"
    errors = [r for r in got if r[2] == "ERROR"]
    assert [(r[0], r[1]) for r in errors] == [("bad", 1), (None, 3)]
    assert "has no rule_id" in errors[1][-1]
    assert [r for r in got if r[2] != "ERROR"] == [r for r in expected if r[2] != "ERROR"]


@pytest.fixture
def two_buckets(spark: SparkSession) -> Iterator[None]:
    """Two stream buckets for this test (as the killed driver uses), the session's own
    setting back afterwards: other tests' checkpoints record theirs."""
    before = spark.conf.get(BUCKETS, None)
    spark.conf.set(BUCKETS, "2")
    yield
    if before is None:
        spark.conf.unset(BUCKETS)
    else:
        spark.conf.set(BUCKETS, before)


def test_rules_change_while_a_stream_runs_and_restart_loses_nothing(
    spark: SparkSession, tmp_path: Path, two_buckets: None
) -> None:
    """Rules arrive as a stream of JSON files while events arrive out of order; the query
    is stopped and restarted from its checkpoint in the middle. Its output equals the
    batch replay of the same rule rows on the same events."""
    stream = FolderStream(spark, tmp_path, EVENTS, "ts", "5 minutes")
    rules_dir = tmp_path / "rules"
    rules_dir.mkdir()
    waves = _waves()
    _rule_file(rules_dir, "r0", waves[0])
    query = stream.start(dynamic_stream(spark, stream.source(), rules_dir))
    for k, rows in enumerate(stream_files()):
        if k == 1:
            _rule_file(rules_dir, "r1", waves[1])
        if k == 3:
            query.processAllAvailable()
            query.stop()  # restart from the checkpoint mid-stream
            query = stream.start(dynamic_stream(spark, stream.source(), rules_dir))
        if k == 4:
            _rule_file(rules_dir, "r2", waves[2])
        stream.write(rows)
        query.processAllAvailable()
    # an hour behind the watermark: dropped, counted, and absent from the output
    first = _events(1)[0]
    stream.write([(first[0], first[1], 1.0, first[3], first[4])])
    query.processAllAvailable()
    assert late_rows(query) == 1
    _assert_batch_replay(spark, _finish(spark, stream, query))


def test_a_killed_driver_restarts_with_its_rules_and_state(
    spark: SparkSession, tmp_path: Path, two_buckets: None
) -> None:
    """A driver process runs the rule stream and is killed (SIGKILL, JVM included) once
    its third micro-batch is planned; another driver restarts the query from the
    checkpoint, more rules and events arrive: the output equals the batch replay."""
    import os
    import signal
    import subprocess
    import sys
    import time

    stream = FolderStream(spark, tmp_path, EVENTS, "ts", "5 minutes")
    rules_dir = tmp_path / "rules"
    rules_dir.mkdir()
    waves, files = _waves(), stream_files()
    _rule_file(rules_dir, "r0", waves[0])
    _rule_file(rules_dir, "r1", waves[1])
    for rows in files[:3]:
        stream.write(rows)
    driver = Path(__file__).resolve().parent / "dynamic_driver.py"
    process = subprocess.Popen(
        [sys.executable, str(driver), str(tmp_path)],
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 300
        while not (stream.checkpoint / "offsets" / "2").exists():
            assert process.poll() is None, "the driver process ended by itself"
            assert time.monotonic() < deadline, "the driver made no progress"
            time.sleep(0.05)
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    assert not (stream.checkpoint / "commits" / "3").exists()
    query = stream.start(dynamic_stream(spark, stream.source(), rules_dir))
    query.processAllAvailable()
    _rule_file(rules_dir, "r2", waves[2])
    for rows in files[3:]:
        stream.write(rows)
        query.processAllAvailable()
    _assert_batch_replay(spark, _finish(spark, stream, query))


def test_a_static_rule_table_s_broken_rule_is_an_error_row_of_the_stream_once(
    spark: SparkSession, tmp_path: Path
) -> None:
    """A static rule table's broken rule on a stream was only a warning at start-up (the
    batch answer has its ERROR row: a team alerting on ERROR rows never saw it). It is an
    ERROR row of the stream, once over the query's life: not again in later micro-batches
    nor after a restart from the checkpoint, which reads the table again."""
    broken = SPECS["fraud"].replace("PATTERN (S{2,} B)", "PATTERN (S{2,} B")
    table = _rules(
        spark, [("fraud", 1, SPECS["fraud"], None, None), ("bad", 1, broken, None, None)]
    )
    stream = FolderStream(spark, tmp_path, EVENTS, "ts", "5 minutes")

    def build(source: DataFrame) -> DataFrame:
        with pytest.warns(UserWarning, match="skips rule 'bad'"):
            out = matchrec.match_recognize_dynamic(source, table, keys=[["card"]])
        return out.selectExpr(*OUT_COLUMNS)

    files = stream_files()
    first = stream.run(build, files[:2])
    first.stop()
    second = stream.run(build, files[2:])
    got = _finish(spark, stream, second)
    errors = [(r[0], r[1], r[-1]) for r in got if r[2] == "ERROR"]
    assert [e[:2] for e in errors] == [("bad", 1)]
    assert "'(' is never closed" in errors[0][2]
    events = spark.createDataFrame(_events(120), EVENTS)
    with pytest.warns(UserWarning, match="skips rule 'bad'"):
        batch = matchrec.match_recognize_dynamic(events, table, keys=[["card"]])
    expected = sorted((tuple(r) for r in batch.selectExpr(*OUT_COLUMNS).collect()), key=repr)
    assert got == expected


def test_a_rule_that_raises_on_a_stream_stops_on_its_key_as_in_a_batch(
    spark: SparkSession, tmp_path: Path
) -> None:
    """Under ANSI mode a zero divisor on card c1's rows stops the rule on that card only,
    on a stream as in a batch query: one ERROR row naming c1 (its keys were NULL, and the
    rule stopped for every card of the bucket), the other cards' matches, over
    micro-batches of rows out of order and a restart from the checkpoint."""
    zero = "(CASE WHEN card = 'c1' THEN 0 ELSE 1 END)"
    spec = SPECS["every_row"].replace("amount > 100", f"amount / {zero} > 100")
    spec = spec.replace("(B S+)", "(B S)")  # no match open at the end, where a stream waits
    table = _rules(spark, [("div", 1, spec, None, None), ("fraud", 1, SPECS["fraud"], None, None)])
    stream = FolderStream(spark, tmp_path, EVENTS, "ts", "5 minutes")

    def build(source: DataFrame) -> DataFrame:
        out = matchrec.match_recognize_dynamic(source, table, keys=[["card"]])
        return out.selectExpr(*OUT_COLUMNS)

    files = stream_files()
    stream.run(build, files[:3]).stop()
    got = _finish(spark, stream, stream.run(build, files[3:]))
    errors = [(r[0], r[4]) for r in got if r[2] == "ERROR"]
    assert errors == [("div", '{"card":"c1"}')]
    events = spark.createDataFrame(_events(120), EVENTS)
    batch = matchrec.match_recognize_dynamic(events, table, keys=[["card"]])
    expected = sorted((tuple(r) for r in batch.selectExpr(*OUT_COLUMNS).collect()), key=repr)
    assert any(r[0] == "div" and r[2] == "MATCHED" for r in expected)
    assert got == expected


def test_rules_ordered_by_ts_on_a_stream_where_a_copy_of_ts_is_marked_first(
    spark: SparkSession, tmp_path: Path
) -> None:
    """After ``SELECT ts AS copy, *`` Spark marks both columns as event time: rules that
    ORDER BY ts were each refused ("must ORDER BY the event-time column 'copy'"), the
    first marked column taken. The column the rules order by is the event time."""
    table = _rules(spark, [("fraud", 1, SPECS["fraud"], None, None)])
    stream = FolderStream(spark, tmp_path, EVENTS, "ts", "5 minutes")

    def build(source: DataFrame) -> DataFrame:
        out = matchrec.match_recognize_dynamic(
            source.selectExpr("ts AS copy", "*"), table, keys=[["card"]], on_error="fail"
        )
        return out.selectExpr(*OUT_COLUMNS)

    got = _finish(spark, stream, stream.run(build, stream_files()))
    events = spark.createDataFrame(_events(120), EVENTS).selectExpr("ts AS copy", "*")
    batch = matchrec.match_recognize_dynamic(events, table, keys=[["card"]])
    expected = sorted((tuple(r) for r in batch.selectExpr(*OUT_COLUMNS).collect()), key=repr)
    assert expected and got == expected


def test_a_rule_reads_struct_fields(spark: SparkSession) -> None:
    """``B.info.amount > A.info.amount`` in a rule: a struct column's field (it was
    'unknown column amount'); the pairs and measures are Spark's."""
    spark.sql(
        """CREATE OR REPLACE TEMP VIEW dyn_structs AS SELECT id, id % 2 AS k,
        named_struct('amount', (id * 37) % 11, 'city', concat('c', id % 3)) AS info
        FROM range(1, 25)"""
    )
    spec = (
        "PARTITION BY k ORDER BY id MEASURES B.id AS b, A.info.city AS city "
        "AFTER MATCH SKIP TO NEXT ROW PATTERN (A B) "
        "DEFINE A AS info.city <> 'c0', B AS B.info.amount > A.info.amount"
    )
    rules = _rules(spark, [("st", 1, spec, None, None)])
    out = matchrec.match_recognize_dynamic(spark.table("dyn_structs"), rules, on_error="fail")
    got = sorted(
        tuple(r) for r in out.selectExpr("measures:b::bigint", "measures:city::string").collect()
    )
    expected = sorted(
        tuple(r)
        for r in spark.sql(
            """SELECT id, prev.city FROM (SELECT id, info,
                lag(info) OVER (PARTITION BY k ORDER BY id) AS prev FROM dyn_structs)
            WHERE prev.city <> 'c0' AND info.amount > prev.amount"""
        ).collect()
    )
    assert expected and got == expected


def test_a_rule_reads_fields_of_nested_structs(spark: SparkSession) -> None:
    """``A.loc.z.a``, a field of a struct field: "unknown column 'a'" in DEFINE and
    MEASURES; the rows are those of the same clause run by ``matchrec.sql``."""
    spark.sql(
        """CREATE OR REPLACE TEMP VIEW dyn_nested AS SELECT id, id % 2 AS k,
        named_struct('z', named_struct('a', (id * 4) % 7), 'city', concat('c', id % 3)) AS loc
        FROM range(1, 21)"""
    )
    spec = (
        "PARTITION BY k ORDER BY id MEASURES LAST(B.loc.z.a) AS za, FIRST(A.loc.city) AS city "
        "AFTER MATCH SKIP TO NEXT ROW PATTERN (A B) "
        "DEFINE A AS A.loc.z.a >= 2, B AS B.loc.z.a > A.loc.z.a"
    )
    _rule_as_its_match_recognize(spark, spark.table("dyn_nested"), spec, "UTC", "dyn_nested")


#: higher-order functions of a row's own arrays in a rule, as conditions and measures
HIGHER_ORDER_RULES = [
    (
        "exists(A.items, x -> x > 4) AND forall(items, x -> x IS NULL OR x >= 0)",
        "transform(LAST(A.items), (x, i) -> x + i) AS t",
    ),
    # a parameter named as an event column, a lambda reading another column of its row
    ("exists(items, id -> id > 5) AND size(filter(items, x -> x > k)) >= 1", "LAST(A.id) AS t"),
    (
        "aggregate(items, 0L, (acc, x) -> acc + coalesce(x, 0)) > 6",
        "aggregate(FIRST(A.items), 0L, (acc, x) -> acc + coalesce(x, 0), acc -> acc * 10) AS t",
    ),
    (
        "array_sort(items, (l, r) -> CASE WHEN l < r THEN 1 WHEN l > r THEN -1 ELSE 0 END)[0] > 5",
        "coalesce(exists(LAST(A.items), x -> exists(LAST(A.items), y -> y = x + 1)), false) AS t",
    ),
]


@pytest.mark.parametrize(("condition", "measure"), HIGHER_ORDER_RULES)
def test_a_rules_higher_order_functions_are_those_of_match_recognize(
    spark: SparkSession, condition: str, measure: str
) -> None:
    """exists, forall, filter, transform, aggregate and array_sort of a row's array in a
    rule's DEFINE and MEASURES ("exists() cannot be evaluated in a rule"): the rows are
    those of the same clause run by ``matchrec.sql``."""
    spark.sql(
        """CREATE OR REPLACE TEMP VIEW dyn_arrays AS SELECT id, id % 2 AS k,
        IF(id % 5 = 0, NULL, array((id * 3) % 7, (id * 5) % 9, IF(id % 4 = 0, NULL, id % 6)))
        AS items FROM range(1, 31)"""
    )
    spec = (
        f"PARTITION BY k ORDER BY id MEASURES {measure} AFTER MATCH SKIP PAST LAST ROW "
        f"PATTERN (A+) DEFINE A AS {condition}"
    )
    _rule_as_its_match_recognize(spark, spark.table("dyn_arrays"), spec, "UTC", "dyn_arrays")


def test_a_rules_doubles_binaries_and_one_field_structs_read_back_as_its_match_recognize(
    spark: SparkSession,
) -> None:
    """A DOUBLE -0.0 measure read back as 0.0 (parse_json made it a DECIMAL), a BINARY one
    is its base64 text (as Spark's to_json), and ``named_struct('x', FIRST(A.s))`` was
    refused ('struct() cannot be evaluated in a rule') though MATCH_RECOGNIZE runs it; a
    struct of fields of several types is one too (Arrow read it as a list)."""
    spark.sql(
        """CREATE OR REPLACE TEMP VIEW dyn_values AS SELECT * FROM VALUES
        ('k', 1, X'00ff', -0.0D, 'a'), ('k', 2, X'01', 1.5D, 'b') AS t(k, ts, bin, d, s)"""
    )
    spec = (
        "PARTITION BY k ORDER BY ts MEASURES FIRST(A.d) AS d, LAST(A.d) AS e, "
        "FIRST(A.bin) AS bin, named_struct('x', FIRST(A.s)) AS st, "
        "named_struct('x', FIRST(A.s), 'y', FIRST(A.ts)) AS mixed, "
        "FIRST(named_struct('x', A.s, 'y', A.ts, 'z', named_struct('d', A.d))) AS nested "
        "PATTERN (A+) DEFINE A AS true"
    )
    rules = _rules(spark, [("v", 1, spec, None, None)])
    out = matchrec.match_recognize_dynamic(spark.table("dyn_values"), rules, on_error="fail")
    got = out.selectExpr(
        "CAST(measures:d::double AS STRING)",
        "measures:e::double",
        "unbase64(measures:bin::string)",
        "measures:st::struct<x:string>",
        "measures:mixed::struct<x:string,y:int>",
        "measures:nested::struct<x:string,y:int,z:struct<d:double>>",
        "schema_of_variant(measures:d)",
    ).collect()
    single = matchrec.sql(
        spark,
        "SELECT CAST(d AS STRING), e, bin, st, mixed, nested "
        f"FROM dyn_values MATCH_RECOGNIZE ({spec})",
    ).collect()
    assert [tuple(r)[:6] for r in got] == [tuple(r) for r in single]
    assert got[0][0] == "-0.0" and got[0][6] == "DOUBLE"


def test_reverse_of_a_binary_is_a_binary_in_a_rule_and_the_table_function(
    spark: SparkSession,
) -> None:
    """Spark's reverse keeps a BINARY a BINARY: a rule cast it to STRING first (a condition
    comparing it with bytes never held: the match was lost), the table function typed it
    STRING (garbled text)."""
    spark.sql(
        """CREATE OR REPLACE TEMP VIEW dyn_bytes AS SELECT 1 AS k, o, X'CAFE' AS b,
        X'FECA' AS rb FROM VALUES (1), (2), (3) AS v(o)"""
    )
    spec = (
        "PARTITION BY k ORDER BY o MEASURES reverse(A.b) AS r1, reverse(nvl(A.b, B.b)) AS r2 "
        "PATTERN (A B) DEFINE B AS reverse(FIRST(A.b)) = B.rb AND reverse(B.b) = B.rb"
    )
    rules = _rules(spark, [("v", 1, spec, None, None)])
    out = matchrec.match_recognize_dynamic(spark.table("dyn_bytes"), rules, on_error="fail")
    got = out.selectExpr(  # a BINARY measure is its base64 text, as Spark's to_json
        "unbase64(measures:r1::string)", "unbase64(measures:r2::string)"
    ).collect()
    assert [tuple(r) for r in got] == [(b"\xfe\xca", b"\xfe\xca")]
    matchrec.register(spark)
    udtf = spark.sql(f"SELECT * FROM match_recognize(TABLE(dyn_bytes), '{spec}')")
    single = matchrec.sql(spark, f"SELECT * FROM dyn_bytes MATCH_RECOGNIZE ({spec})")
    assert udtf.schema == single.schema
    assert udtf.collect() == single.collect() == [(1, b"\xfe\xca", b"\xfe\xca")]


def test_a_year_month_event_column_is_refused_before_any_job(spark: SparkSession) -> None:
    """PySpark passes no INTERVAL YEAR TO MONTH to Python: such an event column, read by
    no rule, failed every rule's job with pyarrow's KeyError: 21."""
    events = spark.sql(
        "SELECT 1 AS k, o, o * 10 AS x, INTERVAL '1-1' YEAR TO MONTH AS ym "
        "FROM VALUES (1), (2) AS v(o)"
    )
    spec = "PARTITION BY k ORDER BY o MEASURES LAST(B.x) AS r PATTERN (A B)"
    rules = _rules(spark, [("r", 1, spec, None, None)])
    with pytest.raises(UnsupportedError) as info:
        matchrec.match_recognize_dynamic(events, rules)
    assert "event column ym is INTERVAL YEAR TO MONTH" in info.value.message
    assert "CAST(CAST(x AS INTERVAL YEAR TO MONTH) AS INT)" in info.value.hint


def test_a_rules_python_values_null_in_one_micro_batch_and_typed_in_the_next(
    spark: SparkSession, tmp_path: Path
) -> None:
    """A rule's row-local value computed in Python is typed from its values: all NULL in
    one micro-batch (Arrow's null type), integers in the next; keeping both batches' rows
    failed the stream with pyarrow's ArrowInvalid."""
    files = [
        [("a", "2026-01-01T00:00:00", []), ("a", "2026-01-01T00:01:00", None)],
        [("a", "2026-01-01T00:02:00", [1, 2]), ("a", "2026-01-01T00:03:00", [3])],
        [("a", "2026-01-02T00:00:00", [4])],
        [("a", "2026-01-03T00:00:00", [5])],
    ]
    folder = tmp_path / "in"
    folder.mkdir()
    for i, rows in enumerate(files):
        text = "\n".join(json.dumps({"k": k, "ts": ts, "arr": arr}) for k, ts, arr in rows)
        (folder / f"f{i}.json").write_text(text)
        os.utime(folder / f"f{i}.json", (1_000_000 + 10 * i, 1_000_000 + 10 * i))
    spec = "PARTITION BY k ORDER BY ts MEASURES get(FIRST(A.arr), 0) AS a0 PATTERN (A B{1,3})"
    rules = _rules(spark, [("r", 1, spec, None, None)])
    schema = "k STRING, ts TIMESTAMP, arr ARRAY<INT>"
    source = (
        spark.readStream.schema(schema)
        .option("maxFilesPerTrigger", 1)
        .json(str(folder))
        .withWatermark("ts", "1 minute")
    )
    out = matchrec.match_recognize_dynamic(source, rules, keys=[["k"]])
    query = (
        out.selectExpr("status", "match_number", "to_json(measures) AS m")
        .writeStream.format("memory")
        .queryName("dyn_null_then_typed")
        .option("checkpointLocation", str(tmp_path / "chk"))
        .start()
    )
    try:
        query.processAllAvailable()
        got = [tuple(r) for r in spark.table("dyn_null_then_typed").collect()]
    finally:
        query.stop()
    assert got[:1] == [("MATCHED", 1, '{"a0":null}')]


def test_keys_are_column_sets_in_any_order(spark: SparkSession, payments) -> None:
    """``KEYS (country, card)`` takes a rule that partitions by ``card, country``, and
    rules of either order are one key set (one shuffle, each match once): the rule was
    an ERROR row, "not one of the query's KEYS"."""
    spec = (
        "PARTITION BY card, country ORDER BY ts MEASURES count(*) AS n "
        "PATTERN (A B) DEFINE A AS amount < 5, B AS amount > 100"
    )
    single = matchrec.sql(spark, f"SELECT * FROM dyn_payments MATCH_RECOGNIZE ({spec})")
    expected = sorted(tuple(r) for r in single.collect())
    turned = spec.replace("card, country", "country, card")
    rules = _rules(spark, [("cc", 1, spec, None, None), ("turned", 1, turned, None, None)])
    for keys in ([["country", "card"]], None):
        dynamic = _with_json(matchrec.match_recognize_dynamic(payments, rules, keys=keys))
        assert {r.status for r in dynamic.collect()} == {"MATCHED"}
        assert expected and _as_single(dynamic, single, "cc") == expected
        assert _as_single(dynamic, single, "turned") == expected


@pytest.mark.parametrize(
    ("spec", "caret"),
    [
        ("PARTITION BY ck ORDER BY ts PATTERN (A) DEFINE A AS amount > 1", "ck"),
        ("PARTITION BY card, sk ORDER BY ts PATTERN (A) DEFINE A AS amount > 1", "sk"),
        ("PARTITION BY card ORDER BY ts, uk PATTERN (A) DEFINE A AS amount > 1", "uk"),
    ],
)
def test_a_rule_keyed_or_ordered_by_a_collated_string_is_refused_at_the_key(
    spark: SparkSession, payments, spec: str, caret: str
) -> None:
    """A rule groups and orders its rows by their bytes: a UTF8_LCASE key kept 'card7'
    and 'CARD7' apart (matches lost, others made up), where MATCH_RECOGNIZE (and Spark)
    take them as one partition. Such a key, at any depth, or an ORDER BY column with a
    collation, is a broken rule with the caret at the key."""
    events = payments.selectExpr(
        "*",
        "collate(card, 'UTF8_LCASE') AS ck",
        "named_struct('c', collate(card, 'UTF8_LCASE')) AS sk",
        "collate(card, 'UNICODE_CI') AS uk",
    )
    rules = _rules(spark, [("c", 1, spec, None, None)])
    with pytest.raises(RuleError, match="takes no key with a collation") as err:
        matchrec.match_recognize_dynamic(events, rules, on_error="fail")
    assert spec[err.value.pos :].startswith(caret)
    assert "lower(" in err.value.hint
