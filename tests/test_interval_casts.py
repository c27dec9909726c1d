"""CAST of another row's day-time interval of one field to a number in DEFINE: the
count of its field, as Spark casts it (``CAST(INTERVAL '25' HOUR AS BIGINT)`` is 25),
whichever door and ANSI mode; a cast Spark refuses is refused before any job."""

from __future__ import annotations

import pytest
from doors import DOORS, pair_clause, pair_join, rows_through

import matchrec
from matchrec.errors import MatchRecognizeError

ROWS = """SELECT * FROM VALUES
    (1, INTERVAL '1' HOUR, INTERVAL '3' DAY, INTERVAL '2.5' SECOND),
    (2, INTERVAL '25' HOUR, INTERVAL '-1' DAY, INTERVAL '-1.5' SECOND),
    (3, INTERVAL '5' HOUR, INTERVAL '10' DAY, INTERVAL '7' SECOND) AS t(id, h, dd, sec)"""


@pytest.fixture(scope="module")
def intervals(spark):
    matchrec.register(spark)
    spark.sql(ROWS).createOrReplaceTempView("mr_interval_casts")
    return "mr_interval_casts"


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize(
    "condition",
    [
        "CAST(B.h AS BIGINT) > CAST(A.h AS BIGINT)",
        "CAST(A.dd AS INT) > 0",
        "CAST(A.sec AS DECIMAL(10,2)) > 2.4",
    ],
)
def test_an_interval_of_another_row_casts_to_the_count_of_its_field(
    spark, intervals, either_ansi, door, condition
):
    """Under ANSI mode both doors failed with a false CAST_OVERFLOW; without it the table
    function read the cast as NULL and missed the match."""
    want = spark.sql(
        f"SELECT A.id FROM {intervals} A JOIN {intervals} B ON B.id = A.id + 1"
        f" WHERE {condition} ORDER BY 1"
    ).collect()
    got = rows_through(spark, door, intervals, pair_clause(condition))
    assert got and got == [tuple(r) for r in want]


@pytest.mark.parametrize("door", DOORS)
def test_a_cast_of_an_interval_spark_refuses_is_refused_when_built(spark, intervals, door):
    with pytest.raises(MatchRecognizeError) as info:
        rows_through(spark, door, intervals, pair_clause("CAST(A.h AS DOUBLE) > 0"))
    assert "CAST_WITHOUT_SUGGESTION" in info.value.message


@pytest.mark.parametrize("door", DOORS)
def test_intervals_of_different_fields_meet_in_the_covering_type(spark, intervals, door):
    """least, coalesce, IF and an array of day-time intervals of different fields are of
    the interval from the largest start field to the smallest end field (HOUR beside
    SECOND: HOUR TO SECOND), as Spark types them: the table function could not type them
    ("cannot tell the Spark type")."""
    measures = (
        "A.id AS a, least(A.h, B.sec) AS low, coalesce(A.sec, B.dd) AS first,"
        " if(B.id > 2, A.dd, B.h) AS picked, array(A.h, B.sec) AS both_ivs,"
        " CAST(greatest(A.sec, B.h) AS STRING) AS text"
    )
    condition = "least(A.h, B.sec) < INTERVAL '5' HOUR"
    want = pair_join(spark, intervals, measures, condition)
    assert want and rows_through(spark, door, intervals, pair_clause(condition, measures)) == want
