"""An aggregate of two arguments with DISTINCT reads each distinct pair once, as Spark
does (corr(DISTINCT x, y) is of the distinct (x, y) pairs, not of the rows with a distinct
x); corr, covar_* and five regr_* with DISTINCT were a syntax error ("missing an
argument")."""

from __future__ import annotations

import pytest
from doors import DOORS, rows_through

VIEW = "mr_distinct_pairs"

AGGREGATES = [
    "corr(DISTINCT v, w)",
    "covar_samp(DISTINCT v, w)",
    "covar_pop(DISTINCT v, w)",
    "regr_slope(DISTINCT w, v)",
    "regr_count(DISTINCT w, v)",
    "regr_sxy(DISTINCT w, v)",
    # Spark reads it as avg(if(w IS NULL, NULL, v)): DISTINCT of that column
    "regr_avgx(DISTINCT w, v)",
    "regr_avgy(DISTINCT w, v)",
    "regr_syy(DISTINCT w, v)",
]


@pytest.fixture(scope="module")
def pairs(spark):
    import matchrec

    matchrec.register(spark)
    spark.sql(
        f"CREATE OR REPLACE TEMP VIEW {VIEW} AS SELECT * FROM VALUES (1, 1, 3, 10), "
        "(1, 2, 1, 20), (1, 3, 3, 30), (1, 4, 1, 20), (1, 5, 2, 50), (1, 6, 3, 10), "
        "(2, 7, 9, 60), (2, 8, 8, 70), (2, 9, 9, 75) AS t(g, id, v, w)"
    )


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize("aggregate", AGGREGATES)
def test_distinct_is_of_the_pairs(spark, pairs, door, aggregate):
    want = sorted(
        tuple(r) for r in spark.sql(f"SELECT g, {aggregate} FROM {VIEW} GROUP BY g").collect()
    )
    body = (
        f"PARTITION BY g ORDER BY id MEASURES {aggregate} AS m ONE ROW PER MATCH "
        "PATTERN (A+) DEFINE A AS true"
    )
    got = rows_through(spark, door, VIEW, body)
    assert [g for g, _ in got] == [g for g, _ in want]
    # Spark's own answer depends on the order its hash aggregate meets the pairs in
    assert [m for _, m in got] == pytest.approx([m for _, m in want], rel=1e-12)
