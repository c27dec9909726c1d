"""An argument Spark requires to be a constant is refused where it reads rows, in every
door.

Spark refuses ``round(x, n)`` of a column ``n`` (NON_FOLDABLE_INPUT) when it analyses the
query, whatever the values; so does ``matchrec.sql``, which hands its parts to Spark. The
table function computes DEFINE and MEASURES in Python and ran ``round(A.x, B.n)`` with
each row's scale, an answer Spark never gives (helper-143 finding 5). It now refuses the
call when the query is built, at the argument; so does ``matchrec.sql``, whose glue ran
``floor(B.x, A.n)`` too.
"""

from __future__ import annotations

import pytest
from doors import DOORS, rows_through
from matchrec.planner.foldable_arguments import check_constant_arguments
from matchrec.planner.statement import read_body

import matchrec
from matchrec.errors import MatchRecognizeError

VIEW = "mr_foldable"
ROWS = (
    "SELECT * FROM VALUES (1, 1.25D, 1, '99.9', 0.5D), (2, 12.5D, -1, '999', 0.25D), "
    "(3, 3.14159D, 2, '9.99', 0.75D) AS t(id, x, n, f, p)"
)

#: (the call, its argument that reads rows, Spark's word for that argument)
CALLS = [
    ("round(A.x, B.n)", "B.n", "scale"),
    ("bround(A.x + B.x, FIRST(B.n))", "FIRST(B.n)", "scale"),
    ("floor(B.x, A.n)", "A.n", "scale"),
    ("to_char(A.x, B.f)", "B.f", "format"),
    ("percentile(B.x, A.p)", "A.p", "percentage"),
]


@pytest.mark.parametrize("place", ["DEFINE", "MEASURES"])
@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize(("call", "argument", "parameter"), CALLS)
def test_an_argument_spark_requires_constant_is_refused(
    spark, call, argument, parameter, door, place
):
    matchrec.register(spark)
    spark.sql(ROWS).createOrReplaceTempView(VIEW)
    measure, condition = (
        (f"CAST({call} AS STRING)", "true")
        if place == "MEASURES"
        else ("A.id", f"CAST({call} AS STRING) IS NOT NULL")
    )
    body = (
        f"ORDER BY id MEASURES {measure} AS m AFTER MATCH SKIP TO NEXT ROW "
        f"PATTERN (A B) DEFINE B AS {condition}"
    )
    with pytest.raises(MatchRecognizeError) as err:
        rows_through(spark, door, VIEW, body)
    assert "FOLDABLE" in err.value.message and parameter in err.value.message
    assert err.value.sql[err.value.pos :].startswith(argument)


def test_a_constant_argument_still_runs(spark):
    matchrec.register(spark)
    spark.sql(ROWS).createOrReplaceTempView(VIEW)
    body = (
        "ORDER BY id MEASURES round(A.x + B.x, -1) AS m AFTER MATCH SKIP TO NEXT ROW "
        # (an OR that starts with such a call is no call of it: its right side is no scale)
        "PATTERN (A B) DEFINE B AS round(A.x, 1) IS NULL OR CAST(B.x AS STRING) <> ''"
    )
    want = spark.sql(
        f"SELECT round(a.x + b.x, 1 - 2) FROM {VIEW} a JOIN {VIEW} b ON b.id = a.id + 1"
    ).collect()
    for door in DOORS:
        assert rows_through(spark, door, VIEW, body) == sorted(tuple(r) for r in want)


@pytest.mark.parametrize(
    "measure",
    [
        "to_char(A.x, '99') COLLATE UTF8_LCASE",
        "listagg(B.f, ',') WITHIN GROUP (ORDER BY B.x)",
        "round(A.x, 1) IS NULL AND B.x > 1",
        "round(A.x, 1) BETWEEN B.x AND 2",
        "floor(A.x) || B.f",
    ],
)
def test_an_expression_that_starts_with_such_a_call_is_not_that_call(measure):
    """sqlglot counts ``a AND b`` or ``x COLLATE c`` as functions, written where their
    first operand is: only the call itself is checked."""
    clause = read_body(f"ORDER BY id MEASURES {measure} AS m PATTERN (A B) DEFINE B AS true")
    check_constant_arguments(clause)
