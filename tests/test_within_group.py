"""Aggregates that read the match's rows in an order of their own: ``WITHIN GROUP (ORDER
BY ...)`` (listagg/string_agg, percentile_cont, percentile_disc, mode()) and max_by/min_by
with a count. Expected values are Spark's own: its window over the same rows where Spark
allows one, else its GROUP BY over a self-join that gives each row the rows up to it."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from spark_windows import every_door, running_and_window

import matchrec
from matchrec.errors import SemanticError, UnsupportedError


@pytest.fixture(scope="module")
def ranked(spark):
    """Three partitions of 30 rows: doubles with NULLs, NaN and many ties, small integers
    with ties and NULLs, strings, DAY-TIME intervals of a few microseconds either side of
    zero (means and percentiles that fall between two microseconds); ``o`` orders each
    partition."""
    rng = random.Random(11)
    rows = []
    for k in ("a", "b", "c"):
        for o in range(1, 31):
            x = rng.choice([None, float("nan"), 0.5, 1.0, 1.0, 2.0, 3.5, -1.0, rng.random()])
            n = None if rng.random() < 0.15 else rng.randint(0, 4)
            s = None if rng.random() < 0.1 else rng.choice(["p", "q", "r", "s"])
            d = None if rng.random() < 0.1 else timedelta(microseconds=rng.randint(-7, 9))
            rows.append((k, o, x, n, s, d))
    frame = spark.createDataFrame(
        rows, "k string, o int, x double, n int, s string, d interval day to second"
    )
    frame.createOrReplaceTempView("mr_ranked")
    matchrec.register(spark)
    return frame


def _running(spark, aggregate: str, semantics: str = "RUNNING") -> tuple[list, list]:
    """``aggregate`` (over columns of ``mr_ranked``) at each row of one match per
    partition, and Spark's answer: its GROUP BY over the rows up to each row (RUNNING) or
    over all rows of the partition (FINAL)."""
    got = matchrec.sql(
        spark,
        f"""SELECT k, o, v FROM mr_ranked MATCH_RECOGNIZE (PARTITION BY k ORDER BY o
              MEASURES {semantics} {aggregate} AS v ALL ROWS PER MATCH
              PATTERN (A+) DEFINE A AS true)""",
    )
    spark_aggregate = aggregate
    for column in ("x", "n", "s", "o", "d"):
        spark_aggregate = spark_aggregate.replace(f"({column}", f"(b.{column}")
        spark_aggregate = spark_aggregate.replace(f" {column}", f" b.{column}")
    upto = "b.o <= a.o" if semantics == "RUNNING" else "true"
    expected = spark.sql(
        f"""SELECT a.k, a.o, {spark_aggregate} AS v FROM mr_ranked a JOIN mr_ranked b
              ON a.k = b.k AND {upto} GROUP BY a.k, a.o"""
    )
    return sorted(map(str, got.collect())), sorted(map(str, expected.collect()))


@pytest.mark.parametrize(
    "aggregate",
    [
        "percentile_cont(0.3) WITHIN GROUP (ORDER BY x)",
        "percentile_cont(0.75) WITHIN GROUP (ORDER BY n DESC)",
        "percentile_disc(0.3) WITHIN GROUP (ORDER BY x)",
        "percentile_disc(0.3) WITHIN GROUP (ORDER BY x DESC)",
        "percentile_disc(array(0.0, 0.1, 0.5, 0.99, 1.0)) WITHIN GROUP (ORDER BY n)",
        "percentile_cont(array(0.0, 0.25, 1.0)) WITHIN GROUP (ORDER BY n DESC)",
        "mode() WITHIN GROUP (ORDER BY n)",
        "mode() WITHIN GROUP (ORDER BY n DESC)",
        "mode() WITHIN GROUP (ORDER BY s DESC)",
        "listagg(s, ',') WITHIN GROUP (ORDER BY n DESC, o)",
        "listagg(s) WITHIN GROUP (ORDER BY n NULLS LAST, o DESC)",
        "string_agg(o, '-') WITHIN GROUP (ORDER BY s DESC NULLS FIRST, o)",
        "listagg(DISTINCT s, '|') WITHIN GROUP (ORDER BY s DESC)",
    ],
)
@pytest.mark.parametrize("semantics", ["RUNNING", "FINAL"])
def test_within_group_aggregates_are_sparks(spark, ranked, aggregate, semantics):
    got, expected = _running(spark, aggregate, semantics)
    assert got == expected


@pytest.mark.parametrize(
    "aggregate",
    [
        "avg(d)",
        "avg(d * -1)",
        "sum(d)",
        "median(d)",
        "percentile(d, array(0.1, 0.35, 0.5))",
        "percentile_cont(0.3) WITHIN GROUP (ORDER BY d DESC)",
        "percentile_disc(0.7) WITHIN GROUP (ORDER BY d)",
        "percentile_approx(d, 0.4)",
        "avg(d) FILTER (WHERE n > 1)",
    ],
)
@pytest.mark.parametrize("semantics", ["RUNNING", "FINAL"])
def test_interval_aggregates_round_as_spark(spark, ranked, aggregate, semantics):
    """Means and percentiles of DAY-TIME intervals are intervals: Spark rounds a mean half
    up to the microsecond and truncates a percentile between two microseconds."""
    got, expected = _running(spark, aggregate, semantics)
    assert got == expected


@pytest.mark.parametrize("aggregate", ["max_by(o, x, 3)", "min_by(s, n, 2)", "max_by(x, n, 1)"])
@pytest.mark.parametrize("semantics", ["RUNNING", "FINAL"])
def test_max_by_and_min_by_with_a_count_are_sparks(spark, ranked, aggregate, semantics):
    """Spark's window over the same rows in the same order: which of equal keys stay is
    decided row by row, as matchrec keeps them."""
    got, expected = running_and_window(spark, "mr_ranked", aggregate, semantics)
    assert got == expected


def test_every_door_gives_the_same_values_and_types(spark, ranked):
    """The table function types these without Spark: the same schema as the others."""
    measures = {
        "pc": "percentile_cont(0.5) WITHIN GROUP (ORDER BY n)",
        "pd": "percentile_disc(array(0.2, 0.8)) WITHIN GROUP (ORDER BY x DESC)",
        "md": "mode() WITHIN GROUP (ORDER BY s DESC)",
        "la": "listagg(s, ';') WITHIN GROUP (ORDER BY n, o DESC)",
        "mb": "max_by(s, n, 2)",
    }
    grouped = ", ".join(m for name, m in measures.items() if name != "mb")
    whole = "PARTITION BY k ORDER BY o ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING"
    expected = sorted(
        tuple(r)
        for r in spark.sql(
            f"""SELECT g.*, w.mb FROM (SELECT k, {grouped} FROM mr_ranked GROUP BY k) g
                JOIN (SELECT DISTINCT k, {measures["mb"]} OVER ({whole}) AS mb FROM mr_ranked) w
                ON g.k = w.k"""
        ).collect()
    )
    for door, rows in every_door(spark, "mr_ranked", measures).items():
        assert rows == expected, door


def test_interval_measures_have_sparks_types_through_every_door(spark, ranked):
    """The table function types interval aggregates and interval arithmetic without
    Spark: the same schema and values as the doors where Spark computes the measures."""
    measures = {
        "a": "avg(d)",
        "m": "median(d)",
        "s": "sum(d)",
        "h": "sum(CAST(d AS INTERVAL HOUR))",
        "p": "percentile(d, array(0.2, 0.9))",
        "pc": "percentile_cont(0.4) WITHIN GROUP (ORDER BY d)",
        "span": "LAST(d) - FIRST(d)",
        "mixed": "CAST(LAST(d) AS INTERVAL HOUR) + CAST(FIRST(d) AS INTERVAL MINUTE)",
    }
    values = every_door(spark, "mr_ranked", measures)
    assert values["df"] == values["sql"] and values["udtf"] == values["sql"]
    schema = matchrec.match_recognize(
        spark.table("mr_ranked"),
        "PARTITION BY k ORDER BY o MEASURES " + measures["mixed"] + " AS mixed "
        "PATTERN (A+) DEFINE A AS true",
    ).schema
    assert schema["mixed"].dataType.simpleString() == "interval hour to minute"


def test_listagg_keeps_rows_of_equal_keys_in_match_order(spark):
    # one match a..e; keys 2, 1, 2, NULL, 1: ascending (NULLs first) d, b, e, a, c; the
    # rows of equal keys in match order, also when descending: a, c, b, e, d
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW mr_ties AS SELECT * FROM VALUES "
        "(1, 'a', 2), (2, 'b', 1), (3, 'c', 2), (4, 'd', NULL), (5, 'e', 1) AS t(o, s, n)"
    )
    rows = matchrec.sql(
        spark,
        """SELECT * FROM mr_ties MATCH_RECOGNIZE (ORDER BY o
             MEASURES listagg(s) WITHIN GROUP (ORDER BY n) AS up,
                      listagg(s, ',') WITHIN GROUP (ORDER BY n DESC) AS down
             PATTERN (A+) DEFINE A AS true)""",
    ).collect()
    assert [tuple(r) for r in rows] == [("dbeac", "a,c,b,e,d")]


def test_filter_and_labels_with_within_group(spark, ranked):
    """FILTER drops the rows it rejects; a pattern variable's aggregate reads its rows."""
    expected = sorted(
        tuple(r)
        for r in spark.sql(
            """SELECT k, percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FILTER (WHERE n > 1),
                      listagg(s, ',') WITHIN GROUP (ORDER BY o DESC) FILTER (WHERE n > 1),
                      mode() WITHIN GROUP (ORDER BY n DESC) FILTER (WHERE o % 2 = 0)
               FROM mr_ranked GROUP BY k"""
        ).collect()
    )
    rows = matchrec.sql(
        spark,
        """SELECT * FROM mr_ranked MATCH_RECOGNIZE (PARTITION BY k ORDER BY o
             MEASURES percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FILTER (WHERE n > 1) AS p,
                      listagg(B.s, ',') WITHIN GROUP (ORDER BY B.o DESC) AS l,
                      mode() WITHIN GROUP (ORDER BY n DESC) FILTER (WHERE o % 2 = 0) AS m
             PATTERN ((A | B)+) DEFINE A AS n IS NULL OR n <= 1)""",
    ).collect()
    assert sorted(map(str, (tuple(r) for r in rows))) == sorted(map(str, expected))


def test_within_group_aggregate_in_define(spark, ranked):
    """B rows while the median of n so far (percentile_cont) stays below 3. Expected from
    Spark's running median over each partition from its first row: the match that starts
    there ends before the first row where it reaches 3 (none if the first row does)."""
    median = "coalesce(percentile_cont(0.5) WITHIN GROUP (ORDER BY {n}), 0)"
    body = f"""PARTITION BY k ORDER BY o MEASURES FIRST(o) AS f, count(*) AS c
        PATTERN (B+) DEFINE B AS {median.format(n="B.n")} < 3"""
    got = matchrec.match_recognize(spark.table("mr_ranked"), body)
    running = spark.sql(
        f"""SELECT a.k, a.o, {median.format(n="b.n")} AS p FROM mr_ranked a
            JOIN mr_ranked b ON a.k = b.k AND b.o <= a.o GROUP BY a.k, a.o"""
    ).collect()
    stops: dict[str, int] = {}
    for r in sorted(running, key=lambda r: (r.k, r.o)):
        if r.p >= 3 and r.k not in stops:
            stops[r.k] = r.o
    expected = {k: stops.get(k, 31) - 1 for k in ("a", "b", "c")}
    assert {r.k: r.c for r in got.collect() if r.f == 1} == {k: c for k, c in expected.items() if c}


@pytest.mark.parametrize(
    ("measure", "error", "message", "at"),
    [
        (
            "percentile_cont(0.5)",
            SemanticError,
            "percentile_cont() needs WITHIN GROUP (ORDER BY ...): the values it reads",
            "percentile_cont",
        ),
        (
            "percentile_disc(0.5) WITHIN GROUP (ORDER BY x, n)",
            SemanticError,
            "percentile_disc() needs exactly one ordering in WITHIN GROUP (ORDER BY ...), got 2",
            "n)",
        ),
        (
            "mode(x) WITHIN GROUP (ORDER BY x)",
            SemanticError,
            "mode() with WITHIN GROUP takes 0 arguments, got 1",
            "x) WITHIN",
        ),
        (
            "sum(x) WITHIN GROUP (ORDER BY x)",
            UnsupportedError,
            "sum() does not take WITHIN GROUP (ORDER BY ...)",
            "sum",
        ),
        (
            "listagg(DISTINCT s) WITHIN GROUP (ORDER BY n)",
            SemanticError,
            "listagg(DISTINCT ...) WITHIN GROUP must order by the aggregated value itself, not n",
            "n)",
        ),
        (
            "max_by(s, n, 0)",
            SemanticError,
            "the third argument of max_by must be an integer constant from 1 to 2147483647 "
            "(the number of values to return), not 0",
            "0)",
        ),
        (
            "min_by(s, n, o)",
            SemanticError,
            "the third argument of min_by must be an integer constant from 1 to 2147483647 "
            "(the number of values to return), not o",
            "o)",
        ),
    ],
)
def test_spark_rules_on_the_forms_are_positioned_errors(spark, ranked, measure, error, message, at):
    body = f"PARTITION BY k ORDER BY o\nMEASURES {measure} AS v\nPATTERN (A+) DEFINE A AS true"
    with pytest.raises(error) as info:
        matchrec.match_recognize(spark.table("mr_ranked"), body)
    assert info.value.message == message
    assert info.value.line == 2
    assert info.value.column == body.splitlines()[1].index(at) + 1
