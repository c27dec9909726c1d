"""Without ANSI mode, a string of another row compared in DEFINE is cast as Spark casts it.

Spark (``spark.sql.ansi.enabled=false``) compares a STRING with a number, a DATE or a
TIMESTAMP by casting the string to the other operand's type (``i = s`` compares INTs,
`` 7 `` equals 7; a string that does not convert is NULL; beside a DECIMAL both are
DOUBLEs), and IN casts every value to STRING, its common type (``'07' IN (7)`` is false);
a BINARY is compared with the string's bytes.
DEFINE's glue, which compares values of several rows in Python, refused every such
condition ("without Spark's implicit casts"). Each condition here is compared with
Spark's own answer over a join of the two rows the match reads.
"""

from __future__ import annotations

import pytest
from doors import rows_through

import matchrec

VIEW = "mr_string_comparisons"
ROWS = (
    "SELECT *, CAST(IF(id = 2, '07', s) AS BINARY) AS b FROM VALUES "
    "(1, '07', 3, 1.5BD, 2.5F, DATE'2024-03-01', TIMESTAMP'2024-03-01 09:00:00'), "
    "(2, ' 7 ', 7, 7.0BD, 7.0F, DATE'2024-03-02', TIMESTAMP'2024-03-01 12:00:00'), "
    "(3, '4.5', 7, 4.5BD, 4.5F, DATE'2024-03-03', TIMESTAMP'2024-03-02 00:00:00'), "
    "(4, 'x', 4, 4.0BD, 1.0F, DATE'2024-03-01', TIMESTAMP'2024-03-02 00:00:00'), "
    "(5, '2024-03-02', 1, 2.0BD, 2.0F, DATE'2024-03-04', TIMESTAMP'2024-03-03 00:00:00'), "
    "(6, '2024-03-02 10:00', 2, 2.0BD, 3.0F, DATE'2024-03-02', TIMESTAMP'2024-03-02 08:00:00') "
    "AS t(id, s, i, dc, f, dt, ts)"
)

#: conditions of B over its row and A's, the row before
CONDITIONS = [
    "B.i = A.s",
    "A.s <= B.i",
    "B.dc = A.s",
    "B.dc >= A.s",
    "B.f >= A.s",
    "A.dt < B.s",
    "B.dt = A.s",
    "B.ts >= A.s",
    "A.s <=> B.i",
    "B.i IN (A.s, 4)",
    "A.s IN (B.i, '07')",
    "B.dt IN (A.s, '2024-03-04')",
    "FIRST(A.s) <= B.i",
    "PREV(B.s) = B.i",
    "B.b = A.s",
    "A.s = B.b",
]


@pytest.fixture
def ansi_off_view(spark, ansi_off) -> None:
    matchrec.register(spark)
    spark.sql(ROWS).createOrReplaceTempView(VIEW)


@pytest.mark.parametrize("condition", CONDITIONS)
def test_a_string_of_another_row_is_compared_as_spark_casts_it(spark, ansi_off_view, condition):
    body = (
        "ORDER BY id MEASURES A.id AS a, B.id AS b ONE ROW PER MATCH "
        f"AFTER MATCH SKIP TO NEXT ROW PATTERN (A B) DEFINE B AS {condition}"
    )
    joined = condition.replace("FIRST(A.", "(A.").replace("PREV(B.", "(A.")
    joined = joined.replace("A.", "a.").replace("B.", "b.")
    want = spark.sql(
        f"SELECT a.id, b.id FROM {VIEW} a JOIN {VIEW} b ON b.id = a.id + 1 WHERE {joined}"
    ).collect()
    assert want, "the data must give the condition some match"
    assert rows_through(spark, "matchrec.sql", VIEW, body) == sorted(tuple(r) for r in want)
