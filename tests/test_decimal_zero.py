"""Spark's DECIMAL has no negative zero (Java's BigDecimal): ``-0.00004 * 0``, a negative
double cast to a DECIMAL zero, ``bround(-0.4, 0)`` and ``0 / -5`` are plain zeros, and
what reads them (``format_number``, a CAST to DOUBLE or STRING, ``to_json``, ``sign``)
shows no minus sign. Python's Decimal keeps the sign of a zero; where matchrec computes
over several rows (DEFINE in both doors, the table function's MEASURES), each answer is
Spark's."""

from __future__ import annotations

import pytest
from doors import DOORS, pair_clause, pair_join, rows_through
from thorough import in_turn

import matchrec

VIEW = "mr_decimal_zero"

#: expressions of two consecutive rows A and B whose DECIMAL may be a zero of either sign
CALLS = [
    "format_number(A.dm * B.dm, 2)",
    "format_number(CAST(A.f AS DECIMAL(10, 2)), 2)",
    "format_number(bround(A.dd + B.dm, 0), 1)",
    "format_number(round(A.dd, 0), 1)",
    "CAST(CAST(A.dm * B.dm AS DOUBLE) AS STRING)",
    "format_string('%.2f', CAST(A.dm / B.big AS DOUBLE))",
    "to_json(named_struct('v', A.dm * B.dm))",
    "CAST(sign(CAST(A.dm * B.dm AS DOUBLE)) AS STRING)",
    "CAST(CAST(floor(A.dd, 0) + ceil(B.dd, 0) AS FLOAT) AS STRING)",
]


@pytest.fixture(scope="module")
def rows(spark):
    matchrec.register(spark)
    spark.sql(
        f"CREATE OR REPLACE TEMP VIEW {VIEW} AS SELECT * FROM VALUES "
        "(1, CAST(-0.00004 AS DECIMAL(10, 5)), -0.00001D, CAST(-0.4 AS DECIMAL(3, 1)), 2BD), "
        "(2, CAST(0 AS DECIMAL(10, 5)), 0.0D, CAST(0.4 AS DECIMAL(3, 1)), -5BD), "
        "(3, CAST(-0.00006 AS DECIMAL(10, 5)), -0.004D, CAST(-0.5 AS DECIMAL(3, 1)), 7BD), "
        "(4, CAST(-0.00015 AS DECIMAL(10, 5)), 2.5D, CAST(-2.5 AS DECIMAL(3, 1)), -1BD) "
        "AS t(id, dm, f, dd, big)"
    )


@pytest.mark.parametrize(("call", "door"), in_turn(CALLS, DOORS))
def test_a_decimal_zero_has_no_sign(spark, rows, either_ansi, call, door):
    """As a measure and in DEFINE (each row B holds Spark's answer for it and the row
    before, computed under the same ANSI mode), the value is Spark's."""
    measures = f"A.id AS a, {call} AS x"
    want = pair_join(spark, VIEW, measures)
    assert rows_through(spark, door, VIEW, pair_clause("true", measures)) == want
    spark.sql(  # a view keeps the ANSI mode it was made under
        f"CREATE OR REPLACE TEMP VIEW {VIEW}_spark AS SELECT B.*, CASE WHEN A.id IS NOT "
        f"NULL THEN CAST({call} AS STRING) END AS spark FROM {VIEW} B "
        f"LEFT JOIN {VIEW} A ON B.id = A.id + 1"
    )
    clause = pair_clause(f"CAST({call} AS STRING) <=> B.spark")
    got = rows_through(spark, door, f"{VIEW}_spark", clause)
    assert got == pair_join(spark, f"{VIEW}_spark") and len(got) == 3
