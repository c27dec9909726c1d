"""Aggregates in MEASURES over values of every kind Spark aggregates: DECIMAL(38, s) wide
enough to pass Python's default 28 digits, BIGINT near its limit, BINARY for
listagg/string_agg, arrays and maps for mode() and DISTINCT. Expected values are Spark's:
its window over the same rows, or its GROUP BY."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from spark_windows import every_door, running_and_window, whole_partition_window

import matchrec
from matchrec.errors import MatchRuntimeError
from matchrec.sql_literals import sql_literal


@pytest.fixture(scope="module")
def wide(spark):
    """Two partitions: DECIMAL(38,18) values of about 10^12 with 18 decimals (31 digits,
    their sums more), BIGINTs near 2**63 whose sum as doubles is not the exact sum, BINARY
    strings, and arrays/maps with repeats."""
    rows = []
    for k, sign in (("a", 1), ("b", -1)):
        for o in range(1, 9):
            d = Decimal(f"{sign * (10**12 + o)}.{7 * o:018d}")  # 31 digits
            big = sign * (2**62 + o * 3**30)
            b = bytes([o % 3, 255 - o])
            arr = [int(o <= 5), o % 2 if o > 5 else 0]  # [1, 0] five times, 3 distinct
            m = {"x": o % 3 if o > 4 else 9}  # {x: 9} four times, 4 distinct
            rows.append((k, o, d, big, b, arr, m))
    frame = spark.createDataFrame(
        rows,
        "k string, o int, d decimal(38,18), big bigint, b binary, arr array<int>, "
        "m map<string,int>",
    )
    frame.createOrReplaceTempView("mr_wide")
    matchrec.register(spark)
    return frame


@pytest.mark.parametrize(
    "aggregate",
    # regr_avgx/regr_avgy are Spark's avg of a DECIMAL: they were averaged as doubles
    [
        "sum(d)",
        "avg(d)",
        "avg(big)",
        "sum(d * 3)",
        "regr_avgx(o, d)",
        "regr_avgy(d, IF(o % 3 = 0, NULL, o))",
        "regr_avgx(d, big)",
    ],
)
@pytest.mark.parametrize("semantics", ["RUNNING", "FINAL"])
def test_wide_sums_and_means_are_sparks(spark, wide, aggregate, semantics):
    got, expected = running_and_window(spark, "mr_wide", aggregate, semantics)
    assert got == expected


def test_regression_means_of_decimals_are_typed_as_sparks_in_every_door(spark, wide):
    """The table function typed regr_avgx of a DECIMAL as a DOUBLE (Spark: its avg's
    DECIMAL(p + 4, s + 4))."""
    measures = {"ax": "regr_avgx(o, d)", "ay": "regr_avgy(d, o)"}
    expected, doors = _grouped_and_matched(spark, measures)
    for door, rows in doors.items():
        assert rows == expected, door


def _grouped_and_matched(spark, measures: dict[str, str]) -> tuple[list, dict[str, list]]:
    """Spark's GROUP BY k of ``measures`` over mr_wide, and each door's one match per k."""
    return _grouped_and_matched_in(spark, "mr_wide", measures)


def _grouped_and_matched_in(
    spark, view: str, measures: dict[str, str]
) -> tuple[list, dict[str, list]]:
    """Spark's GROUP BY k of ``measures`` over ``view``, and each door's one match per k."""
    expected = sorted(
        map(
            tuple,
            spark.sql(
                "SELECT k, "
                + ", ".join(f"{m} AS {name}" for name, m in measures.items())
                + f" FROM {view} GROUP BY k"
            ).collect(),
        )
    )
    return expected, every_door(spark, view, measures)


def test_listagg_of_binary_values_is_binary(spark, wide):
    expected, got = _grouped_and_matched(
        spark,
        {
            "joined": "listagg(b)",
            "separated": "string_agg(b, X'2C')",
            "ordered": "listagg(b, X'00') WITHIN GROUP (ORDER BY o DESC)",
        },
    )
    for door, rows in got.items():
        assert rows == expected, door


def test_distinct_and_mode_of_arrays_and_maps(spark, wide):
    # the most frequent array is unique here, so Spark's mode() is deterministic (its
    # mode() of maps is not: it does not take equal maps as one value)
    expected, got = _grouped_and_matched(
        spark,
        {
            "arrays": "count(DISTINCT arr)",
            "maps": "count(DISTINCT m)",
            "approx": "approx_count_distinct(arr)",
            "common": "mode(arr)",
        },
    )
    for door, rows in got.items():
        assert rows == expected, door


def test_approx_count_distinct_of_values_holding_maps_is_sparks(spark, wide):
    """Spark's HLL++ hashes a map's keys and values in turn; matchrec had Spark's
    xxhash64 hash each value, which refuses a map (HASH_MAP_TYPE), at any depth."""
    measures = {
        "maps": "approx_count_distinct(m)",
        "arrays": "approx_count_distinct(array(m, map('y', o % 2)))",
        "structs": "approx_count_distinct(named_struct('f', m, 'g', o % 2))",
        "nested": "approx_count_distinct(map(k, m))",
    }
    expected, got = _grouped_and_matched(spark, measures)
    for door, rows in got.items():
        assert rows == expected, door
    got, expected = running_and_window(spark, "mr_wide", "approx_count_distinct(m)", "RUNNING")
    assert got == expected


@pytest.fixture(scope="module")
def sets(spark):
    """Values whose first-seen order is not the order of Spark's hash set: integers
    across buckets, strings, doubles with -0.0 and NaN, dates before 1970, booleans,
    timestamps (and without time zone), and
    enough distinct values in one partition for the set to grow its table twice."""
    rows = []
    for o, (i, s, d, day, b) in enumerate(
        [
            (10, "x", 1.0, "2055-06-17", True),
            (20, "yz", -2.5, "1966-05-07", False),
            (10, "", -0.0, "2016-04-12", None),
            (-1, "€é", 0.0, "1966-05-07", True),
            (2**40, None, float("nan"), None, False),
            (None, "x", float("nan"), "2056-05-27", True),
            (50, "aéb", 1e20, "1970-01-01", None),
        ],
        start=1,
    ):
        rows.append(("a", o, i, s, d, day, b))
    for o in range(1, 41):  # 37 distinct values: tables of 16, 32 and 64 buckets
        rows.append(("b", o, (o * 7919) % 37 - 18, f"s{o % 37}", o / 8, None, None))
    frame = spark.createDataFrame(
        rows, "k string, o int, i bigint, s string, d double, day string, b boolean"
    ).selectExpr(
        "k",
        "o",
        "i",
        "s",
        "d",
        "CAST(day AS DATE) AS day",
        "b",
        # microseconds that fit an Int and that do not, before and after 1970
        "timestamp_micros(i % 100000 * 1000003) AS ts",
        "CAST(timestamp_micros(i * 7) AS TIMESTAMP_NTZ) AS ntz",
    )
    frame.createOrReplaceTempView("mr_sets")
    matchrec.register(spark)
    return frame


@pytest.mark.parametrize("column", ["i", "s", "d", "day", "b", "ts", "ntz"])
@pytest.mark.parametrize("semantics", ["RUNNING", "FINAL"])
def test_collect_set_lists_values_in_sparks_order(spark, sets, column, semantics):
    # Spark lists a set in its hash set's order (and -0.0 as 0.0), not first-seen order
    got, expected = running_and_window(spark, "mr_sets", f"collect_set({column})", semantics)
    assert got == expected


def test_collect_set_in_every_door_is_sparks_window(spark, sets):
    measures = {c: f"collect_set({c})" for c in ("i", "s", "d", "day", "b", "ts", "ntz")}
    expected = whole_partition_window(spark, "mr_sets", measures)
    for door, rows in every_door(spark, "mr_sets", measures).items():
        assert repr(sorted(rows, key=repr)) == repr(expected), door  # NaN as text


#: percentile(x, p, frequency): each row counted its frequency's times (sqlglot dropped
#: the frequency: the unweighted percentile; RUNNING refused three arguments)
WEIGHTED = {
    "wi": "percentile(i, 0.3, o % 3)",
    "wd": "percentile(d, array(0.25, 0.75), o % 4)",
    "wn": "percentile(o, 0.5, IF(o > 3, NULL, o - 1))",
}


def test_percentile_with_a_frequency_in_every_door_is_sparks_window(spark, sets):
    expected = whole_partition_window(spark, "mr_sets", WEIGHTED)
    for door, rows in every_door(spark, "mr_sets", WEIGHTED).items():
        assert repr(sorted(rows, key=repr)) == repr(expected), door


@pytest.mark.parametrize("aggregate", WEIGHTED.values())
def test_running_percentile_with_a_frequency_is_sparks_window(spark, sets, aggregate):
    got, expected = running_and_window(spark, "mr_sets", aggregate, "RUNNING")
    assert got == expected


def test_percentile_with_a_frequency_in_define_weighs_each_row(spark, sets):
    """B goes on while the weighted median of its rows stays below 25 (Spark's window over
    the same rows says until where; the unweighted median stays below to the end)."""
    running = spark.sql(
        """SELECT o, percentile(i, 0.5, o % 3) OVER (ORDER BY o ROWS BETWEEN UNBOUNDED
           PRECEDING AND CURRENT ROW) AS m FROM mr_sets WHERE k = 'a' AND o >= 2"""
    ).collect()
    # B runs from row 2 while the running weighted median of its rows stays below 25
    last = max(
        (r.o for r in running if all(q.m is None or q.m < 25 for q in running if q.o <= r.o)),
        default=1,
    )
    got = matchrec.sql(
        spark,
        """SELECT * FROM mr_sets MATCH_RECOGNIZE (PARTITION BY k ORDER BY o
           MEASURES LAST(B.o) AS last PATTERN (^A B+)
           DEFINE B AS percentile(B.i, 0.5, B.o % 3) IS NULL OR percentile(B.i, 0.5, B.o % 3) < 25)
           WHERE k = 'a'""",
    ).collect()
    assert 2 < last < 7 and [r.last for r in got] == [last]


_COUNTS = {
    "pairs": "count(DISTINCT i, s)",
    "triples": "count(DISTINCT d, b, s)",
    "present": "count(i, b)",
    "late": "count(DISTINCT i, s) FILTER (WHERE o > 2)",
}


def test_count_of_several_values_is_sparks(spark, sets):
    # Spark counts the rows where none of the values is NULL (DISTINCT: distinct tuples)
    expected = sorted(
        map(
            tuple,
            spark.sql(
                "SELECT k, "
                + ", ".join(f"{m} AS {name}" for name, m in _COUNTS.items())
                + " FROM mr_sets GROUP BY k"
            ).collect(),
        )
    )
    for door, rows in every_door(spark, "mr_sets", _COUNTS).items():
        assert rows == expected, door


def test_running_count_of_several_values_is_sparks(spark, sets):
    # Spark has no DISTINCT window: each row's rows so far come from a self-join (their
    # own o named bo, as FILTER reads it)
    so_far = """(SELECT a.k, a.o, b.i, b.s, b.d, b.b, b.o AS bo FROM mr_sets a
                 JOIN mr_sets b ON a.k = b.k AND b.o <= a.o)"""
    measures = {n: m.replace("o > 2", "bo > 2") for n, m in _COUNTS.items()}
    expected = spark.sql(
        "SELECT k, o, "
        + ", ".join(f"{m} AS {n}" for n, m in measures.items())
        + f" FROM {so_far} GROUP BY k, o"
    )
    got = matchrec.sql(
        spark,
        "SELECT k, o, "
        + ", ".join(_COUNTS)
        + " FROM mr_sets MATCH_RECOGNIZE (PARTITION BY k ORDER BY o MEASURES "
        + ", ".join(f"RUNNING {m} AS {n}" for n, m in _COUNTS.items())
        + " ALL ROWS PER MATCH PATTERN (A+) DEFINE A AS true)",
    )
    assert sorted(map(tuple, got.collect())) == sorted(map(tuple, expected.collect()))


def test_count_of_several_values_in_define(spark, sets):
    # a match grows while fewer than 3 distinct (i, s) pairs are seen: Spark's count of
    # the rows so far (self-join) says where the first match of each partition ends
    got = matchrec.sql(
        spark,
        """SELECT k, n FROM mr_sets MATCH_RECOGNIZE (PARTITION BY k ORDER BY o
            MEASURES count(*) AS n ONE ROW PER MATCH
            PATTERN (^ A+) DEFINE A AS count(DISTINCT A.i, A.s) < 3)""",
    )
    expected = spark.sql(
        """SELECT k, max(o) FROM (SELECT a.k, a.o, count(DISTINCT b.i, b.s) AS c
             FROM mr_sets a JOIN mr_sets b ON a.k = b.k AND b.o <= a.o GROUP BY a.k, a.o)
           WHERE c < 3 GROUP BY k"""
    )
    assert sorted(map(tuple, got.collect())) == sorted(map(tuple, expected.collect()))


@pytest.mark.parametrize("aggregate", ["mode(s)", "mode(d)", "mode(day)", "mode(b)", "mode(o % 4)"])
@pytest.mark.parametrize("semantics", ["RUNNING", "FINAL"])
def test_mode_of_equally_frequent_values_is_sparks(spark, sets, aggregate, semantics):
    # running, most rows see ties: plain mode() takes the first in Spark's hash map
    got, expected = running_and_window(spark, "mr_sets", aggregate, semantics)
    assert got == expected


def test_deterministic_modes_take_the_lowest_or_highest(spark, sets):
    expected, got = _grouped_and_matched_in(
        spark,
        "mr_sets",
        {
            "low": "mode(s, true)",
            "asc": "mode() WITHIN GROUP (ORDER BY d)",
            "desc": "mode() WITHIN GROUP (ORDER BY o % 4 DESC)",
        },
    )
    for door, rows in got.items():
        assert repr(rows) == repr(expected), door


@pytest.fixture(scope="module")
def lcase(spark):
    """Strings of a case-insensitive collation whose byte order is not its order: 'Z'
    sorts above 'b' under UTF8_LCASE (below it by bytes), 'A'/'a' and 'b'/'B' are one
    value each."""
    spark.sql(
        """CREATE OR REPLACE TEMP VIEW mr_lcase AS
        SELECT k, o, CAST(s AS STRING COLLATE UTF8_LCASE) AS s FROM VALUES
        ('p', 1, 'b'), ('p', 2, 'A'), ('p', 3, 'B'), ('p', 4, 'a'), ('p', 5, 'Z'),
        ('q', 1, 'y'), ('q', 2, 'Y'), ('q', 3, 'x') AS v(k, o, s)"""
    )
    matchrec.register(spark)
    return "mr_lcase"


def test_aggregates_of_collated_strings_compare_under_the_collation(spark, lcase):
    # were compared by their bytes: max 'b', max_by(o, s) 1, 5 distinct values of p
    expected, got = _grouped_and_matched_in(
        spark,
        lcase,
        {
            "top": "max(s)",
            "low": "min(s)",
            "at_top": "max_by(o, s)",
            "at_low": "min_by(o, s)",
            "n": "count(DISTINCT s)",
            "by_case": "listagg(CAST(o AS STRING), ',') WITHIN GROUP (ORDER BY s)",
        },
    )
    for door, rows in got.items():
        assert rows == expected, door


@pytest.mark.parametrize("aggregate", ["max(s)", "min(s)", "max_by(o, s)", "count(DISTINCT s)"])
def test_running_aggregates_of_collated_strings_are_sparks_window(spark, lcase, aggregate):
    if "DISTINCT" in aggregate:  # Spark has no DISTINCT window: its GROUP BY at each row
        expected = sorted(
            str(r)
            for r in spark.sql(
                f"""SELECT a.k, a.o, (SELECT {aggregate} FROM {lcase} b
                    WHERE b.k = a.k AND b.o <= a.o) AS v FROM {lcase} a"""
            ).collect()
        )
        got = matchrec.sql(
            spark,
            f"""SELECT k, o, v FROM {lcase} MATCH_RECOGNIZE (PARTITION BY k ORDER BY o
                MEASURES {aggregate} AS v ALL ROWS PER MATCH PATTERN (A+) DEFINE A AS true)""",
        )
        assert sorted(map(str, got.collect())) == expected
        return
    got, expected = running_and_window(spark, lcase, aggregate, "RUNNING")
    assert got == expected


# ------------------------------------------------------------ DAY-TIME interval overflow

#: three intervals of ~106.75 million days: any two add up past a BIGINT of microseconds
_BIG_DAYS = "INTERVAL '106751990' DAY"


@pytest.fixture
def intervals(spark):
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW mr_big_intervals AS SELECT * FROM VALUES "
        f"('a', 1, {_BIG_DAYS}), ('a', 2, {_BIG_DAYS}), ('a', 3, {_BIG_DAYS}), "
        "('b', 1, INTERVAL '1' DAY) AS v(k, o, iv)"
    )
    matchrec.register(spark)
    return "mr_big_intervals"


@pytest.mark.parametrize("aggregate", ["sum(iv)", "avg(iv)", "RUNNING sum(iv)"])
def test_interval_sums_that_overflow_fail_as_sparks_in_every_door(spark, intervals, aggregate):
    """Spark's sum (and avg's sum) of DAY-TIME intervals is a BIGINT of microseconds
    added with a check, ANSI mode or not: INTERVAL_ARITHMETIC_OVERFLOW. Python's
    timedelta went on, and the job failed in Arrow (or avg gave a value)."""
    plain = aggregate.removeprefix("RUNNING ")
    with pytest.raises(Exception) as spark_error:
        spark.sql(f"SELECT {plain} FROM {intervals}").collect()
    condition = spark_error.value.getCondition().split(".")[0]
    assert condition == "INTERVAL_ARITHMETIC_OVERFLOW"
    body = f"PARTITION BY k ORDER BY o MEASURES {aggregate} AS v PATTERN (A+) DEFINE A AS true"
    doors = {
        "sql": lambda: matchrec.sql(
            spark, f"SELECT * FROM {intervals} MATCH_RECOGNIZE ({body})"
        ).collect(),
        "df": lambda: matchrec.match_recognize(spark.table(intervals), body).collect(),
        "udtf": lambda: spark.sql(
            f"SELECT * FROM match_recognize(TABLE({intervals}), '{body}')"
        ).collect(),
    }
    for door, run in doors.items():
        with pytest.raises(MatchRuntimeError) as info:
            run()
        err = info.value
        assert condition in err.message, door
        assert err.sql[err.pos :].startswith(aggregate), (door, err)


def test_try_sum_and_try_avg_of_intervals_that_overflow_are_null(spark, intervals):
    expected, got = _grouped_and_matched_in(
        spark, intervals, {"s": "try_sum(iv)", "a": "try_avg(iv)"}
    )
    assert [e[0] for e in expected if e[1] is None and e[2] is None] == ["a"]
    assert got["sql"] == got["df"] == got["udtf"] == expected


#: DECIMAL(38, 0) values whose mean does not fit avg's type DECIMAL(38, 4) (k a), whose
#: sum leaves 38 digits (k b), and whose mean fits with 34 digits (k c)
_WIDEST = "CAST({} AS DECIMAL(38, 0))"


@pytest.mark.parametrize("ansi", ["true", "false"])
def test_try_avg_of_decimals_out_of_range_is_null_as_sparks(spark, ansi):
    """try_avg of a DECIMAL whose mean leaves DECIMAL(38, s + 4), or whose sum leaves 38
    digits, is NULL in Spark whatever the ANSI mode; matchrec failed under ANSI mode."""
    rows = [
        ("a", 1, "9" * 35),
        ("b", 1, "9" * 38),
        ("b", 2, "9" * 38),
        ("c", 1, "9" * 34),
        ("c", 2, "9" * 34),
    ]
    values = ", ".join(f"('{k}', {o}, {_WIDEST.format(v)})" for k, o, v in rows)
    spark.sql(
        f"CREATE OR REPLACE TEMP VIEW mr_widest AS SELECT * FROM VALUES {values} AS v(k, o, d)"
    )
    matchrec.register(spark)
    before = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", ansi)
    try:
        expected, got = _grouped_and_matched_in(
            spark, "mr_widest", {"a": "try_avg(d)", "n": "try_avg(d) IS NULL"}
        )
    finally:
        spark.conf.set("spark.sql.ansi.enabled", before)
    assert [e[0] for e in expected if e[2]] == ["a", "b"]
    assert got["sql"] == got["df"] == got["udtf"] == expected


# ------------------------------------------------------------ listagg of other types


def test_listagg_of_values_that_are_no_strings_casts_them_as_spark(spark):
    """Spark 4's listagg/string_agg casts numbers, dates, timestamps and booleans to
    STRING before joining them (binary stays binary: above)."""
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW mr_listagg_kinds AS SELECT * FROM VALUES "
        "('a', 1, 10, 2.5D, 1.50BD, DATE'2024-01-01', TIMESTAMP'2024-01-01 10:00:00', true), "
        "('a', 2, 5, 1.0E20D, 2.25BD, DATE'2024-02-29', TIMESTAMP'2024-03-01 00:00:01', false), "
        "('a', 3, NULL, -0.0D, NULL, NULL, NULL, NULL) AS v(k, o, i, d, dec, dt, ts, b)"
    )
    matchrec.register(spark)
    measures = {
        f"{c}_{n}": f"{call}({c}{sep})"
        for c in ("i", "d", "dec", "dt", "ts", "b")
        for n, (call, sep) in enumerate([("listagg", ""), ("string_agg", ", '|'")])
    }
    expected, got = _grouped_and_matched_in(spark, "mr_listagg_kinds", measures)
    assert got["sql"] == got["df"] == got["udtf"] == expected


# ------------------------------------------------- arguments computed at the rows read


_NUMERIC = "s RLIKE '^[0-9]+$'"


@pytest.mark.parametrize(
    ("measure", "spark_aggregate"),
    [
        ("array_agg(CAST(B.s AS INT))", f"array_agg(CAST(s AS INT)) FILTER (WHERE {_NUMERIC})"),
        ("sum(CAST(B.s AS INT))", f"sum(CAST(s AS INT)) FILTER (WHERE {_NUMERIC})"),
        ("max(B.s::INT)", f"max(s::INT) FILTER (WHERE {_NUMERIC})"),
        (
            "percentile_cont(0.5) WITHIN GROUP (ORDER BY CAST(B.s AS INT))",
            "percentile_cont(0.5) WITHIN GROUP (ORDER BY CAST(s AS INT)) "
            f"FILTER (WHERE {_NUMERIC})",
        ),
    ],
)
def test_an_aggregates_computed_argument_never_fails_on_a_row_it_does_not_read(
    spark, measure, spark_aggregate
):
    """Under ANSI mode ``CAST(B.s AS INT)`` fails on the text of an event that is no B
    row (the A row of a match, an unmatched row); Spark's own ``agg(f(s)) FILTER (WHERE
    <B's condition>)`` never casts it. Every door gave CAST_INVALID_INPUT for such a row,
    and now gives Spark's FILTER answer."""
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW mr_cast_rows AS SELECT * FROM VALUES "
        "(1, 'start'), (2, '5'), (3, '6'), (4, 'noise'), (5, 'start'), (6, '7') AS v(o, s)"
    )
    matchrec.register(spark)
    expected = [
        tuple(r)
        for r in spark.sql(
            f"SELECT {spark_aggregate} FROM mr_cast_rows GROUP BY o > 4 ORDER BY o > 4"
        ).collect()
    ]
    body = (
        f"ORDER BY o MEASURES {measure} AS v PATTERN (A B+) "
        f"DEFINE A AS s = 'start', B AS {_NUMERIC}"
    )
    frames = {
        "sql": matchrec.sql(spark, f"SELECT * FROM mr_cast_rows MATCH_RECOGNIZE ({body})"),
        "udtf": spark.sql(
            f"SELECT * FROM match_recognize(TABLE(mr_cast_rows), {sql_literal(body)})"
        ),
    }
    for door, frame in frames.items():
        assert [tuple(r) for r in frame.collect()] == expected, door


@pytest.fixture(scope="module")
def signed_zeros(spark):
    """Partitions of -0.0 and 0.0 in either order, alone, and beside other doubles."""
    rows = [
        ("a", 1, -0.0),
        ("a", 2, 0.0),
        ("a", 3, -0.0),
        ("a", 4, 0.0),
        ("b", 1, -0.0),
        ("b", 2, -0.0),
    ]
    rows += [("c", 1, 0.0), ("c", 2, -0.0), ("c", 3, 2.5), ("c", 4, -0.0)]
    rows += [("d", 1, -48.99), ("d", 2, -0.91), ("e", 1, -0.0), ("e", 2, -0.0), ("e", 3, -0.0)]
    # nine rows and more: NumPy's reductions no longer keep the first of equal values
    rows += [("f", o, -0.0 if o == 3 else 0.0) for o in range(1, 12)]
    rows += [("g", o, 0.0 if o == 2 else -0.0) for o in range(1, 12)]
    spark.createDataFrame(rows, "k string, o int, x double").createOrReplaceTempView("mr_zeros")
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW mr_zeros_apart AS SELECT * FROM mr_zeros WHERE k IN ('d', 'e')"
    )
    matchrec.register(spark)


@pytest.mark.parametrize(
    "aggregate", ["sum(x)", "avg(x)", "max(x)", "min(x)", "percentile(x, 0.9)"]
)
@pytest.mark.parametrize("semantics", ["RUNNING", "FINAL"])
def test_aggregates_of_signed_zeros_are_sparks(spark, signed_zeros, aggregate, semantics):
    """A sum of -0.0s was -0.0 (Spark's sum starts from 0.0: 0.0, which format_number shows
    as '0.00'); max of -0.0 then 0.0 was 0.0 (Spark keeps the first of equal values); a
    percentile between two -0.0s was interpolated to 0.0 (-48.99 and -0.91: the bits of
    Spark's interpolation). (Which of -0.0 and 0.0 Spark's percentile takes where a
    partition mixes them depends on its hash map's order: not asserted.)"""
    view = "mr_zeros_apart" if aggregate.startswith("percentile") else "mr_zeros"
    got, expected = running_and_window(spark, view, aggregate, semantics)
    assert got == expected


def test_distinct_aggregates_and_sets_of_signed_zeros_are_sparks(spark, signed_zeros):
    """Spark takes -0.0 as 0.0 where it keeps distinct values: sum(DISTINCT) of -0.0s was
    -0.0 in every door, and the table function's array_distinct kept [-0.0]."""
    expected, doors = _grouped_and_matched_in(
        spark,
        "mr_zeros",
        {
            "sd": "sum(DISTINCT x)",
            "ad": "avg(DISTINCT x)",
            "ag": "sort_array(array_agg(DISTINCT x))",
            "dis": "sort_array(array_distinct(array_agg(x)))",
            "uni": "sort_array(array_union(array_agg(x), array(-0.0D)))",
        },
    )
    assert {door: [str(r) for r in rows] for door, rows in doors.items()} == {
        door: [str(r) for r in expected] for door in doors
    }


@pytest.fixture(scope="module")
def narrow_decimals(spark):
    """DECIMAL(10,2) partitions whose exact mean is a tie at scale 6 somewhere (1.01 then
    zeros: 0.0063125 at the 160th row), and a DECIMAL(12,2) one, which Spark averages
    exactly."""
    rows = []
    for k, first in enumerate(["1.01", "7468.97", "0.01", "10.01", "-1.01"]):
        rows += [(f"p{k}", 0, first, first)] + [(f"p{k}", i, "0", "0") for i in range(1, 161)]
    frame = spark.createDataFrame(rows, "k string, o int, x string, y string").selectExpr(
        "k", "o", "CAST(x AS DECIMAL(10,2)) AS x", "CAST(y AS DECIMAL(12,2)) AS y"
    )
    frame.createOrReplaceTempView("mr_narrow")
    matchrec.register(spark)
    return frame


@pytest.mark.parametrize("semantics", ["RUNNING", "FINAL"])
@pytest.mark.parametrize(
    "aggregate", ["avg(x)", "avg(y)", "mean(x)", "avg(x + 0)", "avg(x * CAST(1 AS DECIMAL(1,0)))"]
)
def test_avg_of_a_narrow_decimal_is_sparks_double_mean(
    spark, narrow_decimals, aggregate, semantics
):
    """Spark's optimizer averages a DECIMAL of precision 11 or less as a DOUBLE mean of
    its unscaled values: at an exact tie Spark's answer is not the exact mean rounded
    half up (avg of 1.01 and 159 zeros: 0.006312, matchrec said 0.006313)."""
    got, expected = running_and_window(spark, "mr_narrow", aggregate, semantics)
    assert got == expected


def test_avg_of_a_narrow_decimal_in_every_door_with_distinct_and_filter(spark, narrow_decimals):
    measures = {
        "a": "avg(x)",
        "d": "avg(DISTINCT x)",
        "f": "avg(x) FILTER (WHERE o < 160)",
        "e": "avg(-x + 0) FILTER (WHERE o < 160)",  # typed DECIMAL(11,2) by Spark
    }
    expected, got = _grouped_and_matched_in(spark, "mr_narrow", measures)
    assert any(str(row[3]).endswith("2") for row in expected)  # a tie Spark rounds down
    for door, rows in got.items():
        assert rows == expected, door


def test_a_qualified_narrow_decimal_in_avg_is_read_as_its_column(spark, narrow_decimals):
    """``avg(a.x + 0)``: the label written in lower case (pattern variable A) was not
    dropped before typing, so the mean was the exact one (0.006313, Spark 0.006312)."""
    expected, _ = _grouped_and_matched_in(
        spark, "mr_narrow", {"q": "avg(x + 0) FILTER (WHERE o < 160)"}
    )
    measures = {"q": "avg(a.x + 0) FILTER (WHERE a.o < 160)"}
    for door, rows in every_door(spark, "mr_narrow", measures).items():
        assert rows == expected, door


def test_a_window_avg_of_a_narrow_decimal_in_define_is_sparks_window(spark, narrow_decimals):
    """``x > avg(x) OVER (PARTITION BY k)`` over a DECIMAL(10,2) was refused (the avg
    rewritten for MEASURES, then no window over the input)."""
    condition = "x > avg(x) OVER (PARTITION BY k)"
    got = matchrec.sql(
        spark,
        f"""SELECT k, o FROM mr_narrow MATCH_RECOGNIZE (PARTITION BY k ORDER BY o
             ALL ROWS PER MATCH PATTERN (H) DEFINE H AS {condition})""",
    ).collect()
    expected = spark.sql(
        f"SELECT k, o FROM (SELECT k, o, {condition} AS h FROM mr_narrow) WHERE h"
    ).collect()
    assert expected and sorted(got) == sorted(expected)


def test_a_condition_on_the_avg_of_a_narrow_decimal_reads_sparks_value(spark, narrow_decimals):
    """The match goes on while Spark's running avg is not 0.006313 (it never is: it is
    0.006312 at the 160th row, where the exact mean rounds to 0.006313)."""
    rows = matchrec.sql(
        spark,
        """SELECT * FROM mr_narrow MATCH_RECOGNIZE (PARTITION BY k ORDER BY o
             MEASURES count(*) AS n PATTERN (A+) DEFINE A AS avg(A.x) <> 0.006313)""",
    ).collect()
    assert {(r.k, r.n) for r in rows if r.k == "p0"} == {("p0", 161)}


@pytest.fixture(scope="module")
def moments(spark):
    """Event times with fractions of a second, a NULL among them."""
    spark.sql(
        """CREATE OR REPLACE TEMPORARY VIEW mr_moments AS
        SELECT IF(o % 2 = 0, 'a', 'b') AS k, o,
          IF(o = 5, NULL, TIMESTAMP'2024-03-10 01:59:59.25' + make_dt_interval(0, 0, o, o / 8))
            AS ts, o > 3 AS flag
        FROM range(1, 9) AS r(o)"""
    )
    matchrec.register(spark)


@pytest.mark.parametrize("ansi", [True, False])
def test_sums_and_means_of_timestamps_are_sparks_doubles(spark, moments, ansi):
    """Spark casts a TIMESTAMP to DOUBLE seconds in sum/avg (mean, try_sum, try_avg):
    every door failed with a Python TypeError adding datetimes (the table function could
    not type it)."""
    spark.conf.set("spark.sql.ansi.enabled", str(ansi).lower())
    try:
        expected, got = _grouped_and_matched_in(
            spark,
            "mr_moments",
            {
                "mean_ts": "avg(ts)",
                "total": "sum(ts)",
                "m": "mean(ts)",
                "t": "try_sum(ts)",
                "ta": "try_avg(ts)",
                "late": "sum(ts) FILTER (WHERE o > 4)",
                "once": "avg(DISTINCT ts)",
                "parsed": "avg(to_timestamp(CAST(ts AS STRING)))",  # typed TIMESTAMP, not TZ
            },
        )
        for door, rows in got.items():
            assert rows == expected, door
        for semantics in ("RUNNING", "FINAL"):
            got, expected = running_and_window(spark, "mr_moments", "avg(ts)", semantics)
            assert got == expected
    finally:
        spark.conf.unset("spark.sql.ansi.enabled")


@pytest.mark.parametrize(
    ("measure", "says"),
    [
        ("stddev(ts)", "stddev() takes numbers, not TIMESTAMP (ts)"),
        ("sum(flag)", "sum() takes numbers, not BOOLEAN (flag)"),
    ],
)
def test_a_numeric_aggregate_of_a_type_spark_refuses_is_refused_in_every_door(
    spark, moments, measure, says
):
    """Spark's DATATYPE_MISMATCH; the table function computed ``stddev(ts)`` until Python
    failed (``float() argument must be ... not 'datetime.datetime'``)."""
    body = f"PARTITION BY k ORDER BY o MEASURES {measure} AS x PATTERN (A+) DEFINE A AS true"
    for run in (
        lambda: matchrec.sql(spark, f"SELECT * FROM mr_moments MATCH_RECOGNIZE ({body})"),
        lambda: matchrec.match_recognize(spark.table("mr_moments"), body),
        lambda: spark.sql(f"SELECT * FROM match_recognize(TABLE(mr_moments), '{body}')"),
    ):
        with pytest.raises(Exception, match=re.escape(says)):
            run().collect()


def test_an_aggregate_of_a_subquery_is_not_typed_by_the_input_columns(spark, moments):
    """``(SELECT sum(ts) FROM ...)`` sums the subquery's own ``ts``: the rewrite of a sum
    of the input's TIMESTAMP column ``ts`` took it for it and summed DOUBLEs (the exact
    BIGINT sum lost its last digit)."""
    measures = {
        "big": "CAST((SELECT sum(ts) FROM VALUES (9007199254740993L), (2L) AS o(ts)) AS BIGINT)",
        "mean": "CAST((SELECT avg(o) FROM VALUES (CAST(123456789012345678.25 AS DECIMAL(20,2)))"
        " AS t(o)) AS DECIMAL(24,6))",
    }  # (CAST: the table function cannot ask Spark a subquery's type)
    for door, rows in every_door(spark, "mr_moments", measures).items():
        assert {r[1:] for r in rows} == {(9007199254740995, Decimal("123456789012345678.25"))}, door


def test_approximate_percentiles_of_times_are_sparks(spark, moments):
    """Spark's percentile_approx takes DATE and TIMESTAMP values (and answers one): the
    refusal of times in numeric aggregates must leave it alone."""
    expected, got = _grouped_and_matched_in(
        spark,
        "mr_moments",
        {
            "mid": "percentile_approx(ts, 0.5)",
            "day": "approx_percentile(CAST(ts AS DATE), 0.5)",
        },
    )
    for door, rows in got.items():
        assert rows == expected, door


def test_an_aggregate_of_a_decimal_quotient_reads_each_quotient_at_sparks_scale(
    spark, wide, either_ansi
):
    """``avg(d / 7)``: Spark rounds each quotient to its type's scale (DECIMAL(38,18) / 7
    is a DECIMAL(38,6)) before it aggregates; under ANSI mode, where the division is
    computed at the rows read, the doors averaged the exact quotients (and
    ``collect_list`` failed in Arrow, the digits not fitting the list's type)."""
    measures = {
        "mean": "avg(d / 7)",
        "total": "sum(d / 7)",
        "listed": "collect_list(d / 7)",
        "scaled": "avg(d * 3 / 7)",
    }
    expected, got = _grouped_and_matched(spark, measures)
    for door, rows in got.items():
        assert rows == expected, door
