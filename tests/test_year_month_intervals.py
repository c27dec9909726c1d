"""Year-month interval columns: PySpark has no Arrow form for them, so matchrec carries
such a column through its matcher as months and gives it back its type; a value the
matcher itself would read or compute of that type is an error naming it, before any job.

PySpark cannot collect year-month intervals either: the tests read them as strings."""

from __future__ import annotations

import pytest
from test_errors import _jobs, assert_error, find

import matchrec
from matchrec.errors import SemanticError

_INPUT = """SELECT k, id, CAST(make_ym_interval(0, m) AS INTERVAL YEAR TO MONTH) AS ym,
       CAST(make_ym_interval(m DIV 12, 0) AS INTERVAL YEAR) AS y,
       CAST(make_ym_interval(0, -m) AS INTERVAL MONTH) AS mo
  FROM VALUES ('a', 1, 14), ('a', 2, 3), ('a', 3, NULL), ('a', 4, 30), ('b', 1, -25), ('b', 2, 7)
  AS t(k, id, m)"""


@pytest.fixture(scope="module")
def spans(spark):
    spark.sql(f"CREATE OR REPLACE TEMP VIEW mr_ym AS {_INPUT}")
    matchrec.register(spark)


def _as_text(columns: str) -> str:
    return ", ".join(f"CAST({c} AS STRING) AS {c}" for c in columns.split(", "))


def test_carried_columns_keep_their_values_and_types(spark, spans):
    got = matchrec.sql(
        spark,
        """SELECT * FROM mr_ym MATCH_RECOGNIZE (PARTITION BY k ORDER BY id
             MEASURES MATCH_NUMBER() AS n ALL ROWS PER MATCH PATTERN (A+) DEFINE A AS true)""",
    )
    types = {f.name: f.dataType.simpleString() for f in got.schema.fields}
    expected_types = {f.name: f.dataType.simpleString() for f in spark.table("mr_ym").schema}
    assert {c: types[c] for c in ("ym", "y", "mo")} == {
        c: expected_types[c] for c in ("ym", "y", "mo")
    }
    columns = "k, id, ym, y, mo"
    shown = sorted(map(tuple, got.selectExpr(*_as_text(columns).split(", ")).collect()))
    source = spark.table("mr_ym").selectExpr(*_as_text(columns).split(", "))
    expected = sorted(map(tuple, source.collect()))
    assert shown == expected


def test_row_local_conditions_on_them_run_in_spark(spark, spans):
    # per partition, the longest run of rows whose interval exceeds a year, or else one row
    got = matchrec.sql(
        spark,
        """SELECT k, first_id, rows FROM mr_ym MATCH_RECOGNIZE (PARTITION BY k ORDER BY id
             MEASURES FIRST(id) AS first_id, count(*) AS rows ONE ROW PER MATCH
             PATTERN (BIG+) DEFINE BIG AS ym > INTERVAL '1' YEAR AND y >= PREV(y))""",
    )
    expected = spark.sql(
        """SELECT k, id AS first_id, 1L AS rows FROM (
             SELECT k, id, ym, y, lag(y) OVER (PARTITION BY k ORDER BY id) AS before FROM mr_ym)
           WHERE ym > INTERVAL '1' YEAR AND y >= before"""
    )
    assert sorted(map(tuple, got.collect())) == sorted(map(tuple, expected.collect()))


def test_a_partition_key_of_months_groups_as_spark(spark, spans):
    """PARTITION BY a year-month column (its NULLs one partition, as GROUP BY's): the
    matcher compares keys for equality only, so it reads them as months (was refused,
    without a position)."""
    got = matchrec.sql(
        spark,
        """SELECT * FROM mr_ym MATCH_RECOGNIZE (PARTITION BY y ORDER BY k, id
             MEASURES count(*) AS n, FIRST(id) AS first_id PATTERN (A+) DEFINE A AS true)""",
    )
    assert got.schema["y"].dataType.simpleString() == "interval year"
    expected = spark.sql(
        "SELECT CAST(y AS STRING) AS y, count(*) AS n, min_by(id, (k, id)) AS first_id "
        "FROM mr_ym GROUP BY y"
    )
    rows = got.selectExpr("CAST(y AS STRING) AS y", "n", "first_id").collect()
    assert sorted(map(tuple, rows), key=str) == sorted(map(tuple, expected.collect()), key=str)


@pytest.mark.parametrize(
    "measures, define, culprit",
    [
        ("LAST(ym) AS last_ym", "true", "LAST(ym)"),
        ("max(B.y) AS top", "true", "max(B.y)"),
        # the caret on the interval's keyword (it was on its string, sqlglot's position)
        ("count(*) AS n", "B.ym - FIRST(A.ym) < INTERVAL '9' MONTH", "INTERVAL '9' MONTH"),
        # a column of a variable: the message had no line, column or caret
        ("sign(A.mo) AS s", "true", "A.mo"),
        ("B.y AS y", "true", "B.y"),
    ],
)
def test_values_the_matcher_reads_are_refused_before_any_job(
    spark, spans, measures, define, culprit
):
    query = f"""SELECT * FROM mr_ym MATCH_RECOGNIZE (PARTITION BY k ORDER BY id
      MEASURES {measures} ONE ROW PER MATCH PATTERN (A B+)
      DEFINE A AS true, B AS {define})"""
    before = _jobs(spark)
    with pytest.raises(SemanticError) as info:
        matchrec.sql(spark, query)
    assert_error(info.value, query, find(query, culprit), SemanticError, "INTERVAL", "months")
    assert "YEAR" in info.value.message or "MONTH" in info.value.message
    assert _jobs(spark) == before


def test_the_table_function_says_what_to_do(spark, spans):
    body = "PARTITION BY k ORDER BY id MEASURES count(*) AS n PATTERN (A+) DEFINE A AS true"
    with pytest.raises(Exception) as info:
        spark.sql(f"SELECT * FROM match_recognize(TABLE(mr_ym), '{body}')")
    assert "input column ym is INTERVAL YEAR TO MONTH" in str(info.value)
    assert "CAST(CAST(x AS INTERVAL YEAR TO MONTH) AS INT)" in str(info.value)
    # the months as the hint says them: the table function runs
    months = "k, id, CAST(CAST(ym AS INTERVAL YEAR TO MONTH) AS INT) AS ym"
    rows = spark.sql(
        f"SELECT * FROM match_recognize(TABLE(SELECT {months} FROM mr_ym), '{body}')"
    ).collect()
    assert sorted(map(tuple, rows)) == [("a", 4), ("b", 2)]
