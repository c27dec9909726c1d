"""A session variable (``DECLARE VARIABLE``) named in DEFINE or MEASURES: matchrec.sql
reads it as Spark reads one in a query (once, its value when the query is built), by its
name, ``session.name`` or ``system.session.name``; a column of that name comes first, as
in Spark. The table function, which has no session while Spark analyses it, keeps its
'cannot be resolved'."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from doors import pair_clause, pair_join, rows_through

import matchrec
from matchrec.errors import SemanticError

BODY = (
    "PARTITION BY card ORDER BY ts MEASURES count(*) AS n "
    "PATTERN (S+ BIG) DEFINE S AS v < {limit}, BIG AS v > 500"
)
VIEW = "(SELECT * FROM VALUES ('c1', 1, 2.0), ('c1', 2, 3.0), ('c1', 3, 900.0) AS t(card, ts, v))"
PAIRS = "mr_variable_pairs"


@pytest.fixture
def limit(spark) -> Iterator[str]:
    spark.sql("DECLARE OR REPLACE VARIABLE mr_small_limit DOUBLE DEFAULT 10")
    spark.sql(
        f"CREATE OR REPLACE TEMP VIEW {PAIRS} AS SELECT * FROM VALUES (1, 5, 1), (2, 8, 2), "
        "(3, 9, 3), (4, 20, 4), (5, 31, 5) AS t(id, x, mr_shadowed)"
    )
    spark.sql("DECLARE OR REPLACE VARIABLE mr_shadowed INT DEFAULT 100")
    yield "mr_small_limit"
    spark.sql("DROP TEMPORARY VARIABLE IF EXISTS mr_small_limit")
    spark.sql("DROP TEMPORARY VARIABLE IF EXISTS mr_shadowed")


@pytest.mark.parametrize(
    ("condition", "measures"),
    [
        ("B.x - A.x > mr_small_limit", "A.id AS a"),
        ("B.x > mr_small_limit", "A.id AS a"),
        ("B.x - A.x > session.mr_small_limit - 7", "A.id AS a"),
        ("B.x - A.x > system.session.mr_small_limit / 4", "A.id AS a"),
        ("true", "A.id AS a, B.x - A.x + mr_small_limit AS m, mr_small_limit * 2 AS c"),
    ],
)
def test_a_session_variable_is_read_as_spark_reads_it(spark, limit, condition, measures):
    want = pair_join(spark, PAIRS, measures, condition)
    assert want, "Spark's answer must not be empty"
    assert rows_through(spark, "matchrec.sql", PAIRS, pair_clause(condition, measures)) == want


def test_a_column_of_its_name_comes_first(spark, limit):
    """An unqualified name in DEFINE B (and in MEASURES of ONE ROW PER MATCH) reads B's
    row: the column, as Spark's own resolution reads a column before a variable."""
    clause = pair_clause("B.x - A.x > mr_shadowed + 4", "A.id AS a, mr_shadowed AS s")
    want = pair_join(spark, PAIRS, "A.id AS a, B.mr_shadowed AS s", "B.x - A.x > B.mr_shadowed + 4")
    assert want, "Spark's answer must not be empty"
    assert rows_through(spark, "matchrec.sql", PAIRS, clause) == want


def test_its_value_is_the_one_the_query_was_built_with(spark, limit):
    """As a DataFrame of spark.sql: the variable's value when the query was built."""
    df = matchrec.sql(spark, f"SELECT n FROM {VIEW} MATCH_RECOGNIZE ({BODY.format(limit=limit)})")
    spark.sql(f"SET VAR {limit} = 1")
    assert [r.n for r in df.collect()] == [3]


def test_the_table_function_says_the_name_is_unknown(spark, limit):
    matchrec.register(spark)
    body = BODY.format(limit=limit).replace("'", "''")
    with pytest.raises(Exception, match=f"Column '{limit}' cannot be resolved"):
        spark.sql(f"SELECT * FROM match_recognize(TABLE{VIEW}, '{body}')").collect()


def test_the_subquery_reads_the_variable_in_every_door(spark, limit):
    body = BODY.format(limit=f"(SELECT {limit})")
    got = matchrec.sql(spark, f"SELECT n FROM {VIEW} MATCH_RECOGNIZE ({body})").collect()
    assert [r.n for r in got] == [3]
    matchrec.register(spark)
    quoted = body.replace("'", "''")
    got = spark.sql(f"SELECT n FROM match_recognize(TABLE{VIEW}, '{quoted}')").collect()
    assert [r.n for r in got] == [3]


def test_an_unknown_name_keeps_its_error(spark, limit):
    query = f"SELECT * FROM {VIEW} MATCH_RECOGNIZE ({BODY.format(limit='no_such_name')})"
    with pytest.raises(SemanticError, match="Column 'no_such_name' cannot be resolved"):
        matchrec.sql(spark, query)
