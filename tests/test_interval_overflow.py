"""Day-time interval arithmetic of two rows past Spark's range (a long of microseconds,
about 106751991 days) is Spark's overflow error in DEFINE's glue, in either ANSI mode:
Python's timedelta holds such a value, and the glue matched rows with it. An interval
divided by zero is INTERVAL_DIVIDED_BY_ZERO in either mode (not DIVIDE_BY_ZERO, whose
message says to turn ANSI mode off)."""

from __future__ import annotations

import pytest
from doors import DOORS, pair_clause, pair_join, rows_through

import matchrec
from matchrec.errors import MatchRuntimeError

ROWS = """SELECT * FROM VALUES
    (1, INTERVAL '106751991 04:00:54.775807' DAY TO SECOND),
    (2, INTERVAL '-1' SECOND),
    (3, INTERVAL '-106751991 04:00:54.775808' DAY TO SECOND),
    (4, INTERVAL '1' DAY) AS t(id, iv)"""


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize(
    ("condition", "condition_name"),
    [
        ("B.iv - A.iv > INTERVAL '0' SECOND", "INTERVAL_ARITHMETIC_OVERFLOW"),
        ("-A.iv < B.iv", "INTERVAL_ARITHMETIC_OVERFLOW"),
        ("abs(A.iv) > B.iv", "ARITHMETIC_OVERFLOW"),
        ("B.iv / (A.id - A.id) > INTERVAL '0' SECOND", "INTERVAL_DIVIDED_BY_ZERO"),
    ],
)
def test_interval_arithmetic_past_sparks_range_is_sparks_error(
    spark, either_ansi, door, condition, condition_name
):
    matchrec.register(spark)
    spark.sql(ROWS).createOrReplaceTempView("mr_interval_range")
    with pytest.raises(Exception) as by_spark:
        spark.sql(
            "SELECT A.id FROM mr_interval_range A JOIN mr_interval_range B"
            f" ON B.id = A.id + 1 WHERE {condition}"
        ).collect()
    assert condition_name in str(by_spark.value)
    with pytest.raises(MatchRuntimeError) as info:
        rows_through(spark, door, "mr_interval_range", pair_clause(condition))
    assert f"[{condition_name}]" in info.value.message


@pytest.mark.parametrize("door", DOORS)
def test_the_smallest_intervals_are_written_as_spark_holds_them(spark, door):
    """Spark's smallest day-time interval and those within a day of it are written out as
    they are (Arrow's own conversion of such a timedelta overflows and failed the job),
    alone, in an array and after arithmetic."""
    matchrec.register(spark)
    spark.sql(ROWS).createOrReplaceTempView("mr_interval_range")
    measures = "A.id AS a, least(A.iv, B.iv) AS low, array(A.iv, B.iv) AS both_ivs"
    by_spark = pair_join(spark, "mr_interval_range", measures)
    for aggregated in (measures, measures.replace("least(A.iv, B.iv)", "min(iv)")):
        got = rows_through(spark, door, "mr_interval_range", pair_clause("true", aggregated))
        assert got == by_spark
    plus_second = "A.id AS a, B.iv + INTERVAL '1' SECOND AS later"
    got = rows_through(spark, door, "mr_interval_range", pair_clause("true", plus_second))
    assert got == pair_join(spark, "mr_interval_range", plus_second)


@pytest.mark.parametrize("door", DOORS)
def test_interval_arithmetic_is_computed_only_at_the_rows_read(spark, door):
    """A day-time interval's arithmetic over a navigated value is computed at the rows the
    match reads, as Spark's join computes it: row 1 (the largest interval) is never A nor
    B here, and adding a second to it, which overflows, must not fail the query."""
    matchrec.register(spark)
    spark.sql(ROWS).createOrReplaceTempView("mr_interval_range")
    condition = "A.iv + INTERVAL '1' SECOND > B.iv"
    measures = "A.id AS a, B.iv + INTERVAL '1' SECOND AS later"
    by_spark = pair_join(spark, "mr_interval_range", measures, f"A.id > 1 AND {condition}")
    body = (
        f"ORDER BY id MEASURES {measures}"
        f" AFTER MATCH SKIP TO NEXT ROW PATTERN (A B) DEFINE A AS id > 1, B AS {condition}"
    )
    assert by_spark and rows_through(spark, door, "mr_interval_range", body) == by_spark
