"""A key looked up in ``map(...)`` built of values from several rows gives Spark's
answer: Spark's optimizer reads ``map(k1, v1, ...)[key]`` as ``CASE key WHEN k1 THEN v1
... END``, so a NULL or repeated key among the map's is no error and the first value of
a repeated key wins, under any ``spark.sql.mapKeyDedupPolicy``."""

from __future__ import annotations

import pytest
from matchrec.runtime.session import session_settings
from pyspark.sql import SparkSession

import matchrec
from tests.doors import DOORS, pair_clause, pair_join, rows_through

ROWS = "mr_map_lookup_rows"

#: calls over the rows A and B
LOOKUPS = [
    "map(A.k, A.v, B.k, B.v)[B.k]",  # a repeated key: the first value
    "map(A.nk, A.v, B.nk, B.v)[B.k]",  # a NULL key among the map's
    "map(A.k, A.v, B.k, B.v)[A.nk]",  # a NULL key looked up
    "map(A.k, A.v, B.k, B.v DIV B.z)[A.k]",  # the value not chosen divides by zero
    "map('x', A.v, B.k, B.v)['y']",  # no such key
]


@pytest.fixture(scope="module")
def rows(spark: SparkSession) -> None:
    matchrec.register(spark)
    spark.sql(
        f"CREATE OR REPLACE TEMP VIEW {ROWS} AS SELECT * FROM VALUES "
        "(1, 'a', 10, CAST(NULL AS STRING), 1), (2, 'a', 20, 'x', 0), "
        "(3, 'b', 30, 'a', 2), (4, 'y', 40, NULL, 0), (5, 'y', 50, 'y', 5) "
        "AS t(id, k, v, nk, z)"
    )


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize("policy", ["EXCEPTION", "LAST_WIN"])
def test_a_lookup_in_a_map_of_two_rows_is_sparks(
    spark: SparkSession, rows: None, policy: str, door: str
) -> None:
    """As measures and in DEFINE (each row B holds Spark's answers for it and the row
    before as text, which the condition compares with), under ANSI mode, where building
    the map would raise (NULL_MAP_KEY, DUPLICATED_MAP_KEY, DIVIDE_BY_ZERO) or, under
    LAST_WIN, take a repeated key's last value."""
    settings = {"spark.sql.ansi.enabled": "true", "spark.sql.mapKeyDedupPolicy": policy}
    with session_settings(spark, settings):
        measures = ", ".join(["A.id AS a", *(f"{c} AS x{i}" for i, c in enumerate(LOOKUPS))])
        want = pair_join(spark, ROWS, measures)
        assert rows_through(spark, door, ROWS, pair_clause("true", measures)) == want
        answers = ", ".join(
            f"CASE WHEN A.id IS NOT NULL THEN CAST({c} AS STRING) END AS spark{i}"
            for i, c in enumerate(LOOKUPS)
        )
        view = f"(SELECT B.*, {answers} FROM {ROWS} B LEFT JOIN {ROWS} A ON B.id = A.id + 1)"
        condition = " AND ".join(
            f"CAST({c} AS STRING) <=> B.spark{i}" for i, c in enumerate(LOOKUPS)
        )
        assert rows_through(spark, door, view, pair_clause(condition)) == pair_join(spark, view)
