"""NaN and the infinities of several rows meet a DECIMAL as Spark's cast meets them: NULL.

``floor``/``ceil`` to a scale cast a DOUBLE to DECIMAL(30, 15) first, and
``make_timestamp``'s seconds are cast to DECIMAL(16, 6). Spark's cast of NaN or an
infinity to a DECIMAL is NULL in either ANSI mode, so the result is NULL. DEFINE's glue
and the table function's MEASURES raised NUMERIC_VALUE_OUT_OF_RANGE under ANSI mode
(floor), or a Python ``decimal.InvalidOperation`` in either mode (make_timestamp). Each
answer here is Spark's over a join of the two rows the match reads.
"""

from __future__ import annotations

import pytest
from doors import DOORS, rows_through

import matchrec

VIEW = "mr_non_finite"
ROWS = (
    "SELECT * FROM VALUES (1, 1.0D), (2, CAST('NaN' AS DOUBLE)), "
    "(3, CAST('Infinity' AS DOUBLE)), (4, 2.5D) AS t(id, x)"
)

CALLS = [
    "floor(A.x + B.x, -1)",
    "ceil(A.x * B.x, 2)",
    "floor(CAST(A.x - B.x AS FLOAT), 1)",
    "make_timestamp(2024, 3, 1, 2, 30, A.x + B.x)",
]


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize("call", CALLS)
def test_nan_and_infinity_give_sparks_null(spark, call, door, either_ansi):
    matchrec.register(spark)
    spark.sql(ROWS).createOrReplaceTempView(VIEW)
    body = (
        f"ORDER BY id MEASURES A.id AS a, CAST({call} AS STRING) AS m "
        f"AFTER MATCH SKIP TO NEXT ROW PATTERN (A B) DEFINE B AS {call} IS NULL "
        f"OR CAST({call} AS STRING) <> ''"
    )
    joined = call.replace("A.", "a.").replace("B.", "b.")
    want = spark.sql(
        f"SELECT a.id, CAST({joined} AS STRING) FROM {VIEW} a JOIN {VIEW} b ON b.id = a.id + 1"
    ).collect()
    assert any(r[1] is None for r in want)
    assert rows_through(spark, door, VIEW, body) == sorted(tuple(r) for r in want)
