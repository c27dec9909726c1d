"""DEFINE's values of several rows have the type Spark gives them, so casts and text agree.

matchrec computes an expression over values of several rows in Python (DEFINE's glue).
A Python value does not carry Spark's type, and three of them came out differently:

- ``CAST(B.dt - A.dt AS STRING)``: Spark writes the INTERVAL DAY as
  ``INTERVAL '30' DAY``; the glue raised CAST_OVERFLOW under ANSI mode, NULL without.
- ``A.dt + B.k * INTERVAL '12' HOUR``: Spark's result is a TIMESTAMP (a DATE plus a
  day-time interval other than INTERVAL DAY); where the hours made whole days the glue
  kept a DATE, so its text had no time.
- ``try_avg(dc)`` of a DECIMAL(p, s): Spark's mean is DECIMAL(p + 4, s + 4); the glue's
  kept the digits the division gave (``-0.7475`` for ``-0.7475000``).
- ``concat('x', B.t - A.t)``: Spark casts the interval as above; the glue and the table
  function's MEASURES wrote Python's timedelta text.

The glue's ANSI errors (a CAST of text, a zero divisor, ``make_date``) say what Spark
says for the same values. Each expected value and message is Spark's own, from a join of
the two rows the match reads.
"""

from __future__ import annotations

import re

import pytest
from doors import DOORS, pair_clause, pair_join, rows_through

import matchrec
from matchrec.errors import MatchRuntimeError

ROWS = (
    "SELECT g, seq, CAST(dc AS DECIMAL(10, 3)) AS dc, dt, k, s FROM VALUES "
    "(1, 1, 1.005BD, DATE'2024-01-31', 3, 'x'), (1, 2, -2.500BD, DATE'2024-03-01', 2, "
    "'y''\\\\') AS t(g, seq, dc, dt, k, s)"
)

#: expressions of A's and B's values whose text Spark gives
EXPRESSIONS = [
    "B.dt - A.dt",
    "A.dt - B.dt",
    "CAST(B.dt AS TIMESTAMP) - CAST(A.dt AS TIMESTAMP)",
    "(B.dt - A.dt) * 2",
    "A.dt + B.k * INTERVAL '12' HOUR",
    "B.dt - A.k * INTERVAL '24' HOUR",
    "A.dt + (B.k - 1) * INTERVAL '1' DAY",
    "A.dt + INTERVAL '1' DAY",
    "try_avg(dc)",
    "avg(dc)",
    "try_avg(dc) + 1",
    "concat('x', B.dt - A.dt)",
    "'x' || (CAST(B.dt AS TIMESTAMP) - CAST(A.dt AS TIMESTAMP))",
]


def _sparks_text(spark, expression: str) -> str | None:
    """Spark's CAST of ``expression`` to STRING over the first row as A, the second as B
    (an aggregate over both)."""
    if "avg(" in expression:
        query = f"SELECT CAST({expression} AS STRING) AS v FROM mr_glue_types"
    else:
        joined = expression.replace("A.", "a.").replace("B.", "b.")
        query = (
            f"SELECT CAST({joined} AS STRING) AS v FROM mr_glue_types a JOIN mr_glue_types b "
            "ON a.seq = 1 AND b.seq = 2"
        )
    return spark.sql(query).collect()[0].v


@pytest.mark.parametrize("ansi", [True, False], ids=["ansi", "no ansi"])
@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_a_value_of_two_rows_has_the_text_spark_gives_it(spark, expression, door, ansi):
    matchrec.register(spark)
    before = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", str(ansi).lower())
    try:
        spark.sql(ROWS).createOrReplaceTempView("mr_glue_types")
        want = _sparks_text(spark, expression)
        assert want is not None
        literal = "'" + want.replace("'", "''") + "'"
        body = (
            "PARTITION BY g ORDER BY seq MEASURES B.seq AS m PATTERN (A B) "
            f"DEFINE A AS seq = 1, B AS CAST({expression} AS STRING) = {literal}"
        )
        assert rows_through(spark, door, "mr_glue_types", body) == [(1, 2)]
    finally:
        spark.conf.set("spark.sql.ansi.enabled", before)


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize("expression", [e for e in EXPRESSIONS if "avg(" not in e])
def test_a_measure_of_two_rows_has_the_text_spark_gives_it(spark, expression, door):
    """The same values as MEASURES (the table function computes them in Python)."""
    matchrec.register(spark)
    spark.sql(ROWS).createOrReplaceTempView("mr_glue_types")
    body = (
        f"PARTITION BY g ORDER BY seq MEASURES CAST({expression} AS STRING) AS v "
        "PATTERN (A B) DEFINE A AS seq = 1"
    )
    want = _sparks_text(spark, expression)
    assert rows_through(spark, door, "mr_glue_types", body) == [(1, want)]


#: expressions of A's and B's values that fail under ANSI mode
FAILING = [
    "CAST(concat(A.s, B.s) AS INT)",
    "CAST(concat(A.s, B.s) AS DATE)",
    "CAST(concat(A.s, B.s) AS DECIMAL(5, 2))",
    "A.k / (B.k - 2)",
    "A.k div (B.k - 2)",
    "A.k % (B.k - 2)",
    "pmod(A.k, B.k - 2)",
    "make_date(2020, A.k + 10, B.k)",
    "make_date(2023, B.k, A.k + 26)",
    "make_date(2020, A.k + 1, B.k + 29)",
]


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize("expression", FAILING)
def test_an_error_of_two_rows_says_what_spark_says(spark, expression, door):
    """The glue's ANSI errors (CAST_INVALID_INPUT, DIVIDE_BY_ZERO, REMAINDER_BY_ZERO,
    make_date's DATETIME_FIELD_OUT_OF_BOUNDS) have Spark's message for the same values,
    word for word."""
    matchrec.register(spark)
    spark.sql(ROWS).createOrReplaceTempView("mr_glue_types")
    joined = expression.replace("A.", "a.").replace("B.", "b.")
    with pytest.raises(Exception) as by_spark:
        spark.sql(
            f"SELECT {joined} FROM mr_glue_types a JOIN mr_glue_types b ON a.seq = 1 AND b.seq = 2"
        ).collect()
    body = (
        "PARTITION BY g ORDER BY seq MEASURES B.seq AS m PATTERN (A B) "
        f"DEFINE A AS seq = 1, B AS {expression} IS NULL"
    )
    with pytest.raises(Exception) as ours:
        rows_through(spark, door, "mr_glue_types", body)
    err = ours.value
    assert isinstance(err, MatchRuntimeError), err
    spark_says = str(by_spark.value).splitlines()[0]
    assert err.message == re.sub(r" SQLSTATE: \w+$", "", spark_says).rstrip()
    assert (err.getCondition(), err.getSqlState()) == (
        by_spark.value.getCondition(),
        by_spark.value.getSqlState(),
    )


CONCAT_ROWS = """SELECT * FROM VALUES
    (1, 1, 2.5D, CAST(2.5 AS FLOAT), DATE'2024-01-01', 1.50BD),
    (2, 2, 0.5D, CAST(0.5 AS FLOAT), DATE'2024-01-02', 2.00BD) AS t(id, n, d, f, dt, dc)"""


@pytest.mark.parametrize("door", DOORS)
def test_concatenation_writes_each_operand_in_its_own_type(spark, either_ansi, door):
    """``||`` casts each operand to text on its own: ``1 || 2.5D`` is '12.5'. The glue
    brought the two to a common type first, as for arithmetic ('1.02.5'), in DEFINE and
    in the table function's MEASURES."""
    matchrec.register(spark)
    spark.sql(CONCAT_ROWS).createOrReplaceTempView("mr_concat")
    measures = (
        "A.id AS a, A.n || B.d AS nd, A.d || B.n AS dn, A.n || B.f AS nf,"
        " A.dc || B.d AS cd, A.dt || B.dc AS tc"
    )
    condition = "(A.n || B.d) = '10.5' OR (A.d || B.n) = '2.52'"
    want = pair_join(spark, "mr_concat", measures, condition)
    assert want and rows_through(spark, door, "mr_concat", pair_clause(condition, measures)) == want


LONG_ROWS = "SELECT * FROM VALUES (1, -9223372036854775808L, -128Y), (2, -1L, 5Y) AS t(id, b, y)"


@pytest.mark.parametrize("door", DOORS)
def test_the_smallest_typed_literals_and_quotients_are_sparks(spark, either_ansi, door):
    """``-9223372036854775808L`` and ``-128Y`` are one literal each in Spark; read as the
    negation of a cast of 9223372036854775808 they overflowed (CAST_OVERFLOW under ANSI
    mode, NULL without it). ``Long.MIN DIV -1`` wraps without ANSI mode, as Spark's."""
    matchrec.register(spark)
    spark.sql(LONG_ROWS).createOrReplaceTempView("mr_longs")
    condition = (
        "(A.b = -9223372036854775808L OR A.y IN (-128Y, 7Y))"
        " AND B.b <=> -1L AND B.b > -9223372036854775808L"
    )
    measures = "A.id AS a, -9223372036854775808L AS low, CAST(-128Y AS STRING) AS t"
    want = pair_join(spark, "mr_longs", measures, condition)
    assert want and want == rows_through(spark, door, "mr_longs", pair_clause(condition, measures))
    divided = pair_clause("CAST(A.b DIV B.b AS STRING) = '-9223372036854775808'")
    if either_ansi == "true":
        with pytest.raises(MatchRuntimeError) as info:
            rows_through(spark, door, "mr_longs", divided)
        assert "ARITHMETIC_OVERFLOW" in info.value.message
    else:
        assert rows_through(spark, door, "mr_longs", divided) == [(1,)]


@pytest.mark.parametrize("door", DOORS)
def test_a_negative_zero_double_literal_is_negative(spark, door):
    """``-0.0D`` is the negation of the DOUBLE 0.0 in Spark, -0.0; it was written as a cast
    of the number -0.0 (a DECIMAL zero, unsigned): 0.0, in MEASURES and DEFINE, of one
    row or of several."""
    matchrec.register(spark)
    spark.sql(LONG_ROWS).createOrReplaceTempView("mr_longs")
    measures = (
        "A.id AS a, CAST(-0.0D AS STRING) AS d, CAST(array(-0.0F, B.b * 0.0D) AS STRING) AS f, "
        "CAST(named_struct('z', -0.0D, 'w', -0D) AS STRING) AS s"
    )
    condition = (
        "CAST(-0.0D AS STRING) = '-0.0' AND CAST(least(-0.0D, B.b * 0.0D + 1) AS STRING) = '-0.0'"
    )
    want = pair_join(spark, "mr_longs", measures, condition)
    assert want and want == rows_through(spark, door, "mr_longs", pair_clause(condition, measures))


BOOLEAN_ROWS = (
    "SELECT * FROM VALUES (1, true, 'no'), (2, false, 'yes'), (3, true, 'x') AS t(id, bo, s)"
)


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize(
    "condition",
    [
        "A.bo = 'true' AND B.bo = 'F'",
        "A.bo = 'yes' AND B.bo <> A.bo",
        "A.bo <=> ' t ' OR B.bo < '1'",
    ],
)
def test_a_string_literal_compared_with_a_boolean_is_cast(spark, either_ansi, door, condition):
    """Spark casts a string literal compared with a BOOLEAN to BOOLEAN ('t', 'yes', '1'
    are true); the glue refused it ("does not convert")."""
    matchrec.register(spark)
    spark.sql(BOOLEAN_ROWS).createOrReplaceTempView("mr_booleans")
    want = pair_join(spark, "mr_booleans", condition=condition)
    assert want and rows_through(spark, door, "mr_booleans", pair_clause(condition)) == want


@pytest.mark.parametrize("door", DOORS)
def test_a_hash_of_a_number_read_by_format_is_sparks(spark, door):
    """``xxhash64`` needs its argument's type: the table function could not type
    ``try_to_number(..., '99')`` when its format literal came in the probe's parentheses."""
    matchrec.register(spark)
    spark.sql(
        "SELECT * FROM VALUES (1, '1'), (2, '2'), (3, 'x') AS t(id, s)"
    ).createOrReplaceTempView("mr_numbers")
    condition = "xxhash64(try_to_number(concat(A.s, B.s), '99')) % 3 <> 0"
    want = pair_join(spark, "mr_numbers", condition=condition)
    assert want and rows_through(spark, door, "mr_numbers", pair_clause(condition)) == want
