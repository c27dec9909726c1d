"""A session variable (``DECLARE VARIABLE``) named in DEFINE: matchrec.sql says what the
name is and how to read it, where it used to say only that no column has that name; the
way it names works and gives Spark's answer."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import matchrec
from matchrec.errors import SemanticError

BODY = (
    "PARTITION BY card ORDER BY ts MEASURES count(*) AS n "
    "PATTERN (S+ BIG) DEFINE S AS v < {limit}, BIG AS v > 500"
)
VIEW = "(SELECT * FROM VALUES ('c1', 1, 2.0), ('c1', 2, 3.0), ('c1', 3, 900.0) AS t(card, ts, v))"


@pytest.fixture
def limit(spark) -> Iterator[str]:
    spark.sql("DECLARE OR REPLACE VARIABLE mr_small_limit DOUBLE DEFAULT 10")
    yield "mr_small_limit"
    spark.sql("DROP TEMPORARY VARIABLE IF EXISTS mr_small_limit")


def test_a_session_variable_by_name_is_explained_at_the_name(spark, limit):
    query = f"SELECT * FROM {VIEW} MATCH_RECOGNIZE ({BODY.format(limit=limit)})"
    with pytest.raises(SemanticError) as caught:
        matchrec.sql(spark, query)
    assert caught.value.message.startswith(f"{limit} is a session variable")
    assert query[caught.value.pos :].startswith(limit)
    assert f"(SELECT {limit})" in caught.value.hint


def test_the_subquery_the_hint_gives_reads_the_variable(spark, limit):
    body = BODY.format(limit=f"(SELECT {limit})")
    got = matchrec.sql(spark, f"SELECT n FROM {VIEW} MATCH_RECOGNIZE ({body})").collect()
    assert [r.n for r in got] == [3]


def test_an_unknown_name_keeps_its_error(spark, limit):
    query = f"SELECT * FROM {VIEW} MATCH_RECOGNIZE ({BODY.format(limit='no_such_name')})"
    with pytest.raises(SemanticError, match="Column 'no_such_name' cannot be resolved"):
        matchrec.sql(spark, query)
