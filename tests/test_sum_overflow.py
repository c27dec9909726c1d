"""``sum`` of integers over the match is Spark's BIGINT: Spark adds row by row and checks
each addition, so under ANSI mode a running total out of range at any row fails with
ARITHMETIC_OVERFLOW (a positioned matchrec error here), and without ANSI mode it wraps
around. Expected values are Spark's own ``sum`` over the same rows."""

from __future__ import annotations

import pytest
from test_errors import assert_error, find

import matchrec
from matchrec.carried import rebuild
from matchrec.errors import MatchRuntimeError
from matchrec.excepthook import carried_error
from matchrec.integer_width import LongSum

MAX = 2**63 - 1
# k -> the BIGINT values v in row order; i is an INT column of the same rows
ROWS = {
    "wraps": [MAX - 1, MAX - 2, MAX - 3],  # totals leave BIGINT and stay out
    "back": [MAX, 1, -10],  # the second total leaves BIGINT, the third is in range again
    "low": [-MAX, -5, 3],  # below BIGINT's least value at the second row
    "fits": [MAX - 5, 2, 3, -7],  # reaches MAX exactly, never beyond
    # longer than navigation._SHORT: running sums go on from the rows settled so far
    "long": [1] * 36 + [MAX - 40, 10, -20, 5],
}
INT_MAX = 2**31 - 1

_VIEW = "mr_sum_overflow"


@pytest.fixture(scope="module")
def sums(spark):
    rows = ", ".join(
        f"('{k}', {n}, CAST({v} AS BIGINT), CAST({INT_MAX - n} AS INT))"
        for k, values in ROWS.items()
        for n, v in enumerate(values, 1)
    )
    spark.sql(
        f"CREATE OR REPLACE TEMP VIEW {_VIEW} AS SELECT * FROM VALUES {rows} AS t(k, id, v, i)"
    )
    for k in ROWS:
        spark.sql(f"CREATE OR REPLACE TEMP VIEW {_of(k)} AS SELECT * FROM {_VIEW} WHERE k = '{k}'")
    matchrec.register(spark)


@pytest.fixture(params=["true", "false"], ids=["ansi", "no_ansi"])
def ansi(request, spark):
    before = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", request.param)
    yield request.param == "true"
    spark.conf.set("spark.sql.ansi.enabled", before)


def _of(k: str) -> str:
    """The view of partition ``k`` alone."""
    return f"{_VIEW}_{k}"


def _one_row(k: str, measure: str = "sum(v)") -> str:
    return f"""SELECT * FROM {_of(k)} MATCH_RECOGNIZE (PARTITION BY k ORDER BY id
      MEASURES {measure} AS s PATTERN (A+) DEFINE A AS true)"""


def _all_rows(k: str) -> str:
    return f"""SELECT k, id, s FROM {_of(k)} MATCH_RECOGNIZE (PARTITION BY k ORDER BY id
      MEASURES sum(v) AS s ALL ROWS PER MATCH PATTERN (A+) DEFINE A AS true)"""


def _spark_or_error(spark, sql: str):
    """Spark's rows for ``sql``, or the name of its error condition."""
    try:
        return sorted(map(tuple, spark.sql(sql).collect()))
    except Exception as err:  # noqa: BLE001 - Spark's error class is what is compared
        return getattr(err, "getCondition", lambda: None)() or type(err).__name__


def _match_error(spark, query: str, run=None) -> MatchRuntimeError:
    with pytest.raises(Exception) as info:
        (run or (lambda q: matchrec.sql(spark, q)))(query).collect()
    err = rebuild(carried_error(info.value) or "", query)
    assert isinstance(err, MatchRuntimeError), info.value
    return err


def _assert_sum_error(err, query: str, at: str) -> None:
    assert_error(
        err,
        query,
        find(query, at),
        MatchRuntimeError,
        "ARITHMETIC_OVERFLOW",
        hint="try_sum(x) gives NULL",
    )
    assert f"integer overflow: {at} reaches" in err.message and "BIGINT" in err.message
    assert "spark.sql.ansi.enabled=false" in err.hint and "DECIMAL(38, 0)" in err.hint


#: ONE ROW PER MATCH: the match's sum, Spark's window over the whole partition (a GROUP BY
#: adds partial sums of the input's partitions, whose running totals may differ); ALL ROWS
#: PER MATCH: the running sum, Spark's window up to the row
_FORMS = {
    "one row": (_one_row, "SELECT DISTINCT k", "UNBOUNDED FOLLOWING"),
    "all rows": (_all_rows, "SELECT k, id", "CURRENT ROW"),
}


@pytest.mark.parametrize("form", list(_FORMS))
@pytest.mark.parametrize("k", ["wraps", "back", "low", "fits", "long"])
def test_sums_as_spark(spark, sums, ansi, k, form):
    clause, select, frame_end = _FORMS[form]
    expected = _spark_or_error(
        spark,
        f"""{select}, sum(v) OVER (PARTITION BY k ORDER BY id
              ROWS BETWEEN UNBOUNDED PRECEDING AND {frame_end}) FROM {_of(k)}""",
    )
    query = clause(k)
    if ansi and k != "fits":
        assert expected == "ARITHMETIC_OVERFLOW"
        _assert_sum_error(_match_error(spark, query), query, "sum(v)")
    else:
        assert sorted(map(tuple, matchrec.sql(spark, query).collect())) == expected


def test_try_sum_and_decimal_sums_are_unchanged(spark, sums, ansi):
    query = _one_row("back", "try_sum(v) AS t, sum(CAST(v AS DECIMAL(38, 0))) AS d, count(*)")
    got = matchrec.sql(spark, query).collect()
    whole = "OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)"
    expected = spark.sql(
        f"""SELECT DISTINCT try_sum(v) {whole}, sum(CAST(v AS DECIMAL(38, 0))) {whole}
              FROM {_of("back")}"""
    ).collect()
    assert [(r.t, r.d) for r in got] == [tuple(expected[0])]
    assert got[0].t is None and got[0].d == MAX - 9


def _define(k: str) -> str:
    # B+ runs while the sum of B's values so far is positive
    return f"""SELECT * FROM {_of(k)} MATCH_RECOGNIZE (PARTITION BY k ORDER BY id
      MEASURES FIRST(id) AS first_id, count(*) AS c PATTERN (A B+)
      DEFINE B AS sum(B.v) > 0)"""


@pytest.mark.parametrize("k", ["wraps", "fits", "long"])
def test_sum_in_define_as_spark(spark, sums, ansi, k):
    """Spark's totals of the rows after the first; B+ takes them while they are positive."""
    totals = _spark_or_error(
        spark,
        f"""SELECT id, sum(CASE WHEN id > 1 THEN v END) OVER (ORDER BY id
              ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM {_of(k)}""",
    )
    query = _define(k)
    if ansi and k != "fits":
        assert totals == "ARITHMETIC_OVERFLOW"
        _assert_sum_error(_match_error(spark, query), query, "sum(B.v)")
        return
    taken = 0
    for _, total in totals[1:]:
        if total is None or total <= 0:
            break
        taken += 1
    got = sorted(map(tuple, matchrec.sql(spark, query).collect()))
    assert (got[0] if got else None) == ((k, 1, 1 + taken) if taken else None)
    # "wraps", "long": the wrapped total is negative at the row after them
    assert taken == {"wraps": 1, "fits": 2, "long": 36}[k]


def test_a_sum_of_ints_in_define_is_a_bigint(spark, sums, ansi):
    """An INT column's sum does not wrap at INT's range, in DEFINE or MEASURES."""
    query = f"""SELECT * FROM {_of("wraps")} MATCH_RECOGNIZE (PARTITION BY k ORDER BY id
      MEASURES count(*) AS c, sum(i) AS s PATTERN (A+) DEFINE A AS sum(A.i) > 0)"""
    expected = spark.sql(f"SELECT k, count(*), sum(i) FROM {_of('wraps')} GROUP BY k").collect()
    assert [tuple(r) for r in matchrec.sql(spark, query).collect()] == [tuple(expected[0])]


def test_the_table_function_follows_the_sessions_ansi_mode(spark, sums, ansi):
    """The table function reads spark.sql.ansi.enabled of the session running the query
    (its workers get it from the task): an error under ANSI mode, Spark's wrapped sum
    without it, in MEASURES and in DEFINE alike."""
    body = "PARTITION BY k ORDER BY id MEASURES sum(v) AS s PATTERN (A+) DEFINE A AS true"
    fits = f"SELECT * FROM match_recognize(TABLE({_of('fits')}), '{body}')"
    assert spark.sql(fits).collect()[0].s == MAX - 7
    query = f"SELECT * FROM match_recognize(TABLE({_of('back')}), '{body}')"
    define = "PARTITION BY k ORDER BY id MEASURES count(*) AS c PATTERN (A B+) "
    define += "DEFINE B AS sum(B.v) > 0"
    in_define = f"SELECT * FROM match_recognize(TABLE({_of('wraps')}), '{define}')"
    if ansi:
        _assert_sum_error(_match_error(spark, query, spark.sql), query, "sum(v)")
        _assert_sum_error(_match_error(spark, in_define, spark.sql), in_define, "sum(B.v)")
        return
    wrapped = spark.sql(f"SELECT sum(v) AS s FROM {_of('back')}").collect()[0].s
    assert spark.sql(query).collect()[0].s == wrapped
    through_sql = matchrec.sql(spark, f"SELECT * FROM {_of('wraps')} MATCH_RECOGNIZE ({define})")
    assert spark.sql(in_define).collect() == through_sql.collect()


@pytest.mark.parametrize(
    ("values", "ansi_total", "wrapped"),
    [
        ([MAX, 1, -10], None, MAX - 9),
        ([2, 3], 5, 5),
        ([-MAX, -1, -1], None, MAX),
        ([MAX, -MAX, MAX], MAX, MAX),
    ],
)
def test_a_long_sum_checks_every_running_total(values, ansi_total, wrapped):
    exact = sum(values)
    if ansi_total is None:
        with pytest.raises(MatchRuntimeError):
            LongSum("s", "s", 0, ansi=True).total(values, exact)
    else:
        assert LongSum("s", "s", 0, ansi=True).total(values, exact) == ansi_total
    assert LongSum("s", "s", 0, ansi=False).total(values, exact) == wrapped
    assert LongSum("s", "s", 0, ansi=True).total([1.5e300], 1.5e300) == 1.5e300


#: DECIMAL(38, 0) values whose running total leaves the type at the second row and comes
#: back at the third (Spark keeps the exact total and checks each result)
_BIG = "99999999999999999999999999999999999999"
_DECIMALS = "mr_decimal_overflow"


@pytest.fixture(scope="module")
def decimals(spark):
    rows = ", ".join(
        f"('d', {n}, CAST('{v}' AS DECIMAL(38, 0)))"
        for n, v in enumerate([_BIG, _BIG, "-" + _BIG], 1)
    )
    spark.sql(
        f"CREATE OR REPLACE TEMP VIEW {_DECIMALS} AS SELECT * FROM VALUES {rows} AS t(k, id, v)"
    )


def test_a_decimal_sum_past_its_type_is_as_spark(spark, decimals, ansi):
    """Past DECIMAL(38, 0): Spark's NUMERIC_VALUE_OUT_OF_RANGE under ANSI mode, NULL
    without it (and the total again once it is back in range), as Spark's window sum."""
    expected = _spark_or_error(
        spark,
        f"""SELECT k, id, sum(v) OVER (PARTITION BY k ORDER BY id
              ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM {_DECIMALS}""",
    )
    query = f"""SELECT k, id, s FROM {_DECIMALS} MATCH_RECOGNIZE (PARTITION BY k ORDER BY id
      MEASURES sum(v) AS s ALL ROWS PER MATCH PATTERN (A+) DEFINE A AS true)"""
    if ansi:
        assert expected == "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION"
        err = _match_error(spark, query)
        assert err.spark_condition == expected
        # the error points at the measure
        assert (err.line, err.column) == (2, query.splitlines()[1].index("sum(v)") + 1)
    else:
        assert expected == [("d", 1, int(_BIG)), ("d", 2, None), ("d", 3, int(_BIG))]
        got = sorted(map(tuple, matchrec.sql(spark, query).collect()))
        assert got == expected


def test_a_stream_gives_null_for_a_decimal_sum_past_its_type_without_ansi(spark, tmp_path):
    """The stream's worker reads the plan's ANSI setting as the batch's does."""
    from decimal import Decimal

    from pyspark.sql.types import DecimalType, StringType, StructField, StructType, TimestampType
    from streams import FolderStream, at

    schema = StructType(
        [
            StructField("k", StringType()),
            StructField("ts", TimestampType()),
            StructField("v", DecimalType(38, 0)),
        ]
    )
    big = Decimal(_BIG)
    rows = [("d", at(1), big), ("d", at(2), big), ("d", at(3), Decimal(1))]
    clause = """PARTITION BY k ORDER BY ts MEASURES sum(v) AS s ALL ROWS PER MATCH
      PATTERN (A{3}) DEFINE A AS true"""
    before = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", "false")
    try:
        stream = FolderStream(spark, tmp_path, schema, "ts", "1 minute")
        query = stream.run(lambda source: matchrec.match_recognize(source, clause), [rows])
        stream.push_watermark(query, ("zz", None, Decimal(0)), at(10))
        query.stop()
        # k, ts, then the measure s (ALL ROWS PER MATCH: keys, order, measures, the rest)
        got = [(r[0], r[1], r[2]) for r in stream.output() if r[0] == "d"]
        window = (
            "OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"
        )
        expected = spark.createDataFrame(rows, schema).selectExpr("k", "ts", f"sum(v) {window}")
        expected = sorted(map(tuple, expected.collect()))
    finally:
        spark.conf.set("spark.sql.ansi.enabled", before)
    assert expected == [("d", at(1), big), ("d", at(2), None), ("d", at(3), None)]
    assert sorted(got) == expected
