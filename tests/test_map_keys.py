"""Maps keyed by structs and arrays in DEFINE and MEASURES, as Spark reads them.

Spark allows any type but MAP as a map's key. The glue that evaluates a condition or a
measure of several rows held maps as Python dicts, which cannot hold a struct or an
array as a key: such a map, built in the clause or read from a column, failed the query
("unhashable type", or a Python worker's traceback when read from a column). Each
condition here means the same as a plain comparison, so the clause with the plain one
(run by ``matchrec.sql``) gives the rows to expect; each measure is compared with the
same measure that ``matchrec.sql`` hands to Spark.
"""

from __future__ import annotations

import pytest
from doors import DOORS, rows_through

import matchrec

VIEW = "mr_map_keys"
ROWS = (
    "SELECT id AS t, 10 - id % 3 AS v, map(named_struct('a', id % 2), id) AS ms, "
    "map(array(id % 2), id) AS ma FROM range(1, 13)"
)

#: condition of B with a map keyed by a struct or an array -> the same as a comparison
CONDITIONS = {
    "map(named_struct('a', A.t), 1)[named_struct('a', B.t - 1)] IS NOT NULL": "B.t - 1 = A.t",
    "B.ms[named_struct('a', A.t % 2)] IS NULL": "B.t % 2 <> A.t % 2",
    "element_at(B.ma, array((A.t + 1) % 2)) IS NOT NULL": "B.t % 2 <> A.t % 2",
    "map_contains_key(A.ma, array((B.t + 1) % 2))": "A.t % 2 <> B.t % 2",
    "map_from_arrays(array(array(A.t)), array(B.t))[array(A.t)] = B.t AND B.t < A.t + 4": (
        "B.t < A.t + 4"
    ),
    "size(map_filter(B.ms, (k, x) -> k.a = A.t % 2)) = 0": "B.t % 2 <> A.t % 2",
}

#: measures of values of several rows, as text (PySpark cannot collect a map keyed by
#: an array into a dict)
MEASURES = [
    "CAST(map_filter(LAST(B.ms), (k, x) -> k.a = (FIRST(A.t) + 1) % 2) AS STRING)",
    "CAST(map_concat(LAST(B.ma), map(array(FIRST(A.t) + 100), 0)) AS STRING)",
    "nvl(LAST(B.ms)[named_struct('a', FIRST(A.t) % 2)], -1)",
    "nvl(element_at(FIRST(B.ma), array((FIRST(A.t) + 1) % 2)), -1)",
    "CAST(map_concat(FIRST(A.ms), map(named_struct('a', 7), LAST(B.t))) AS STRING)",
    "CAST(transform_keys(LAST(B.ma), (k, x) -> array(x, k[0], FIRST(A.t))) AS STRING)",
    "CAST(map_from_arrays(array(array(FIRST(A.t)), array(LAST(B.t))), array(1, 2)) AS STRING)",
]


@pytest.fixture(scope="module")
def spark_view(spark):
    spark.sql(ROWS).createOrReplaceTempView(VIEW)
    matchrec.register(spark)
    return spark


def _rows(spark, door: str, body: str) -> list[tuple]:
    return rows_through(spark, door, VIEW, body)


def _body(measures: str, condition: str) -> str:
    return (
        f"ORDER BY t MEASURES {measures} ONE ROW PER MATCH PATTERN (A B+) DEFINE B AS {condition}"
    )


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize("condition", list(CONDITIONS))
def test_a_condition_of_a_map_keyed_by_a_struct_or_an_array(spark_view, door, condition):
    measures = "FIRST(A.t) AS a, LAST(B.t) AS b, count(*) AS n"
    expected = _rows(spark_view, "matchrec.sql", _body(measures, CONDITIONS[condition]))
    assert expected, "the plain condition should match something"
    assert _rows(spark_view, door, _body(measures, condition)) == expected


@pytest.mark.parametrize("measure", MEASURES)
def test_a_measure_of_a_map_keyed_by_a_struct_or_an_array(spark_view, measure):
    body = _body(f"{measure} AS m", "B.v < PREV(B.v)")
    expected = _rows(spark_view, "matchrec.sql", body)
    assert expected and all(m is not None for (m,) in expected)
    assert _rows(spark_view, "table function", body) == expected
