"""A SQL UDF of values from several rows in DEFINE is inlined into matchrec's glue
(``planner.sql_functions``): its value is Spark's, cast to its RETURNS type, and a
function whose captured settings differ from the session's is refused with a caret."""

from __future__ import annotations

import pytest

import matchrec
from matchrec.errors import SemanticError

ROWS = """SELECT * FROM VALUES (1, CAST(1.25 AS DECIMAL(10,2)), 5),
    (2, CAST(-3.10 AS DECIMAL(10,2)), 0), (3, CAST(2.00 AS DECIMAL(10,2)), 4) AS t(id, d, n)"""

FUNCTIONS = {
    "udf_dec_sum": "(a DECIMAL(10,2), b DECIMAL(10,2)) RETURNS DECIMAL(12,3) RETURN a + b",
    "udf_half": "(a INT, b INT) RETURNS INT RETURN (a + b) / 2",
    "udf_twice": "(x INT) RETURNS INT RETURN x * 2",
}


@pytest.fixture
def sql_udfs(spark, either_ansi):
    """The functions, created under the mode the test runs in."""
    for name, signature in FUNCTIONS.items():
        spark.sql(f"CREATE OR REPLACE TEMPORARY FUNCTION {name}{signature}")
    yield either_ansi
    for name in FUNCTIONS:
        spark.sql(f"DROP TEMPORARY FUNCTION IF EXISTS {name}")


@pytest.mark.parametrize(
    "condition",
    [
        "CAST(udf_dec_sum(A.d, B.d) AS STRING) = '-1.850'",
        "typeof(udf_dec_sum(A.d, B.d)) = 'decimal(12,3)'",
        "udf_half(A.n, B.n) = 2",
        "udf_half(A.n, B.n) < 2.5",
    ],
)
def test_an_inlined_sql_udf_has_its_returns_type(spark, sql_udfs, condition):
    """``RETURNS INT RETURN (a + b) / 2`` is 2 for 5 and 0, not 2.5; a DECIMAL(12,3)
    result prints three decimals: each as Spark's join of the two rows says."""
    query = f"""SELECT * FROM ({ROWS}) MATCH_RECOGNIZE (ORDER BY id MEASURES B.id AS b
      AFTER MATCH SKIP TO NEXT ROW PATTERN (A B) DEFINE B AS {condition})"""
    got = [tuple(r) for r in matchrec.sql(spark, query).collect()]
    spark_rows = spark.sql(
        f"SELECT B.id AS b FROM ({ROWS}) A JOIN ({ROWS}) B ON B.id = A.id + 1"
        f" WHERE {condition} ORDER BY b"
    ).collect()
    assert got == [tuple(r) for r in spark_rows] and got


def test_a_sql_udf_created_under_other_settings_is_refused_at_its_call(spark, sql_udfs):
    """Spark computes a SQL UDF's body under the ANSI mode of its creation; the glue
    could only compute it under the session's (``x * 2`` of 2147483647 wraps or fails):
    refused, at the call, naming the setting. A call of the current row is still Spark's."""
    other = "false" if sql_udfs == "true" else "true"
    if other == "true":
        spark.conf.unset("spark.sql.ansi.enabled")  # Spark's default, never set: true
    else:
        spark.conf.set("spark.sql.ansi.enabled", other)
    query = f"""SELECT * FROM ({ROWS}) MATCH_RECOGNIZE (ORDER BY id MEASURES B.id AS b
      PATTERN (A B) DEFINE B AS udf_twice(A.n) < B.n + {{}})"""
    with pytest.raises(SemanticError) as info:
        matchrec.sql(spark, query.format("B.n"))
    err = info.value
    assert f"spark.sql.ansi.enabled={sql_udfs} (the session has {other})" in err.message
    assert query.format("B.n")[err.pos :].startswith("udf_twice(A.n)")
    current_row = query.format("0").replace("udf_twice(A.n) < B.n", "udf_twice(B.n) > B.n")
    assert matchrec.sql(spark, current_row).collect()
