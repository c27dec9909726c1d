"""DECIMAL arithmetic and comparisons in DEFINE's match-dependent glue give Spark's
answers: results rounded half up to Spark's result scale (DECIMAL(38, 18) * DECIMAL(38,
18) keeps 6 fraction digits), overflow NULL without ANSI mode, and two DECIMALs of
different scales compared in their common type (rounded) as Spark compares them. Each
expected value is Spark's own, computed over the same two rows."""

from __future__ import annotations

import pytest
from doors import DOORS, pair_clause, pair_join, rows_through

import matchrec

COLUMNS = {
    "w": (
        "DECIMAL(38,18)",
        [
            "1.0",
            "1.0000002",
            "12345678901234567890.123456789012345678",
            "12345678901234567890.123456789012345679",
            "0.000000000000000001",
            "99999999999999999999.999999999999999999",
            "3",
            "-2.5",
        ],
    ),
    "n": (
        "DECIMAL(10,2)",
        ["1.00", "0.01", "99999999.99", "-3.33", "2.50", "7.00", "0.00", "1.01"],
    ),
    "z": (
        "DECIMAL(38,0)",
        [
            "1",
            "3",
            "99999999999999999999999999999999999999",
            "-7",
            "10",
            "0",
            "2",
            "12345678901234567890",
        ],
    ),
}
SIZE = 8

CALLS = [
    "N.w + S.w",
    "N.w - S.n",
    "N.w * S.w",
    "N.w * S.n",
    "N.w / S.w",
    "N.n / S.n",
    "N.z / S.n",
    "N.z * S.z",
    "(N.w + S.w) / 3",
    "N.n * S.w + 1",
]
TESTS = [
    "N.w + S.w > 24691357802469135780.246913578024691357",
    "N.w / S.w > 1.0000001",
    "N.w > S.n",
    "N.w = S.n * 1.0",
    "N.z >= S.w",
    "N.n * 3 = S.n",
]


def _pairs_sql() -> str:
    """Two-row partitions of every pair of values: part k has S = k // SIZE, N = k % SIZE."""
    rows = []
    for k in range(SIZE * SIZE):
        for row_id, index in ((1, k // SIZE), (2, k % SIZE)):
            cells = ", ".join(
                f"CAST('{values[index]}' AS {kind})" for kind, values in COLUMNS.values()
            )
            rows.append(f"({k}, {row_id}, {cells})")
    return f"SELECT * FROM VALUES {', '.join(rows)} AS p(part, id, {', '.join(COLUMNS)})"


def _spark(expression: str) -> str:
    value = expression.replace("N.", "")
    for c in COLUMNS:
        value = value.replace(f"S.{c}", f"first_value({c}) OVER (PARTITION BY part ORDER BY id)")
    return value


def _matched_parts(spark, define: str, extra: str = "") -> set[int]:
    query = f"""SELECT part FROM (SELECT *{extra} FROM ({_pairs_sql()}))
    MATCH_RECOGNIZE (
      PARTITION BY part ORDER BY id
      MEASURES count(*) AS k
      PATTERN (^S N)
      DEFINE N AS {define}
    )"""
    return {r.part for r in matchrec.sql(spark, query).collect()}


@pytest.mark.parametrize("call", CALLS)
def test_decimal_results_are_spark_values(spark, ansi_off, call: str) -> None:
    parts = _matched_parts(spark, f"{call} <=> want", f", {_spark(call)} AS want")
    assert parts == set(range(SIZE * SIZE))


@pytest.mark.parametrize(
    "call", ["try_divide(N.w, S.w)", "try_divide(N.z, S.w)", "try_multiply(N.w, S.z)"]
)
def test_a_try_call_is_null_where_its_decimal_type_cannot_hold_it_under_ansi(spark, call):
    """Under ANSI mode too, ``try_divide`` of DECIMALs is NULL where the quotient does not
    fit its type (it was NUMERIC_VALUE_OUT_OF_RANGE, an error where Spark answers)."""
    parts = _matched_parts(spark, f"{call} <=> want", f", {_spark(call)} AS want")
    assert parts == set(range(SIZE * SIZE))


@pytest.mark.parametrize("test", TESTS)
def test_decimal_comparisons_are_spark_verdicts(spark, ansi_off, test: str) -> None:
    want = {
        r.part
        for r in spark.sql(
            f"SELECT part FROM (SELECT *, {_spark(test)} AS t FROM ({_pairs_sql()})) "
            "WHERE id = 2 AND t"
        ).collect()
    }
    assert _matched_parts(spark, test) == want


WIDE_ROWS = """SELECT * FROM VALUES
    (1, CAST(12345678901234567890123456789012.123456 AS DECIMAL(38,6)), CAST(1.5 AS DECIMAL(5,1))),
    (2, CAST(-8765432109876543210987654321098.765432 AS DECIMAL(38,6)), CAST(-2.5 AS DECIMAL(5,1))),
    (3, CAST(11111111111111111111111111111111.111111 AS DECIMAL(38,6)), CAST(3 AS DECIMAL(5,1))),
    (4, CAST(0.000001 AS DECIMAL(38,6)), CAST(0.1 AS DECIMAL(5,1))) AS t(id, m, p)"""


@pytest.mark.parametrize("door", DOORS)
def test_values_of_more_than_28_digits_keep_every_digit(spark, either_ansi, door):
    """Python's default decimal context keeps 28 digits: ``abs``, ``format_number``,
    ``%``, ``pmod`` and the hashes of a DECIMAL(38, 6) of two rows rounded it (or raised
    DivisionImpossible), and DEFINE missed Spark's matches."""
    matchrec.register(spark)
    spark.sql(WIDE_ROWS).createOrReplaceTempView("mr_wide_decimals")
    measures = (
        "A.id AS a, CAST(abs(A.m - B.m) AS STRING) AS d, format_number(A.m + B.m, 3) AS f,"
        " CAST(A.m % B.p AS STRING) AS r, CAST(pmod(A.m, B.p) AS STRING) AS pm,"
        " xxhash64(A.m * B.p) AS h"
    )
    condition = (
        "abs(A.m - B.m) = 11111111111111111111111111111111.111110BD"
        " OR format_number(A.m + B.m, 1) LIKE '%,012.3' OR A.m % B.p = 0.000001"
    )
    want = pair_join(spark, "mr_wide_decimals", measures, condition)
    got = rows_through(spark, door, "mr_wide_decimals", pair_clause(condition, measures))
    assert len(want) == 2 and got == want


@pytest.fixture(scope="module")
def wide_decimals(spark) -> str:
    spark.sql(
        """CREATE OR REPLACE TEMP VIEW wide_decimal_pair AS SELECT id,
        CAST(12345678901234567890.123456789012345678 AS DECIMAL(38, 18)) AS dd
        FROM VALUES (1), (2) AS v(id)"""
    )
    matchrec.register(spark)
    return "wide_decimal_pair"


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize(
    ("place", "expression", "spark_query"),
    [
        ("DEFINE", "B.dd * A.dd", "SELECT a.dd * b.dd FROM {v} a JOIN {v} b ON b.id = a.id + 1"),
        ("MEASURES", "FIRST(dd) * LAST(dd)", "SELECT a.dd * b.dd FROM {v} a, {v} b"),
        ("MEASURES", "avg(dd)", "SELECT avg(dd) FROM {v}"),
    ],
)
def test_under_ansi_a_decimal_overflow_is_spark_s_condition(
    spark, wide_decimals, door, place, expression, spark_query
):
    """Spark's NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION, in every door and place (the
    doors said NUMERIC_VALUE_OUT_OF_RANGE, some of them)."""
    with pytest.raises(Exception) as spark_error:
        spark.sql(spark_query.format(v=wide_decimals)).collect()
    want = spark_error.value.getCondition()
    if place == "DEFINE":
        body = pair_clause(f"{expression} <> 0")
    else:
        body = pair_clause("true", f"{expression} AS m")
    if door == "matchrec.sql":
        run = lambda: matchrec.sql(  # noqa: E731
            spark, f"SELECT * FROM {wide_decimals} MATCH_RECOGNIZE ({body})"
        ).collect()
    else:
        run = lambda: spark.sql(  # noqa: E731
            f"SELECT * FROM match_recognize(TABLE({wide_decimals}), '{body}')"
        ).collect()
    with pytest.raises(Exception) as info:
        run()
    error = info.value
    condition = error.getCondition() if hasattr(error, "getCondition") else error.spark_condition
    assert condition == want
