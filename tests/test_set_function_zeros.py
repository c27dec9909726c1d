"""Spark's array set functions write -0.0 as 0.0 at any depth (a struct's field, an
inner array), not only as an element: over values of two rows the evaluator must too."""

from __future__ import annotations

import pytest
from doors import DOORS, pair_clause, pair_join, rows_through

import matchrec

VIEW = "mr_set_zeros"

CALLS = [
    "array_distinct(array(named_struct('x', A.d), named_struct('x', B.d)))",
    "array_union(array(named_struct('x', A.d)), array(named_struct('x', B.d)))",
    "array_distinct(array(array(A.d), array(B.d)))",
    "array_except(array(named_struct('x', A.d), named_struct('x', B.d)), array())",
]


@pytest.fixture(scope="module")
def zeros(spark):
    matchrec.register(spark)
    spark.sql(
        f"CREATE OR REPLACE TEMP VIEW {VIEW} AS SELECT * FROM VALUES (1, -0.0D), "
        "(2, CAST(NULL AS DOUBLE)), (3, -0.0D), (4, 1.5D) AS t(id, d)"
    )


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize("call", CALLS)
def test_a_set_function_writes_negative_zero_as_spark(spark, zeros, door, call):
    text = f"CAST({call} AS STRING)"
    want = pair_join(spark, VIEW, f"A.id AS a, {text}")
    assert any("0.0" in str(r) for r in want), "the data must hold a zero"
    for row in want:  # each row's text, read back by a condition of both doors
        condition = f"A.id = {row[0]} AND {text} = '{row[1]}'"
        assert rows_through(spark, door, VIEW, pair_clause(condition)) == [(row[0],)], row
    got = rows_through(spark, door, VIEW, pair_clause("true", f"A.id AS a, {text} AS s"))
    assert got == want
