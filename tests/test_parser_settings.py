"""Settings of Spark's SQL parser inside the clause: what ``spark.sql`` reads differently
under them, DEFINE and MEASURES read the same way, or refuse with the reason (they read
``"x"`` as a string and ``'\\w'`` with escapes whatever the session said, and returned
another query's rows)."""

from __future__ import annotations

import pytest
from matchrec.runtime.session import session_settings
from pyspark.sql import SparkSession

import matchrec
from matchrec.errors import UnsupportedError

ROWS = """('A', 1, 10.0D), ('A', 2, 8.0D), ('A', 3, 6.0D), ('A', 4, 7.0D), ('B', 1, 20.0D),
    ('B', 2, 21.0D), ('C', 1, 5.0D)"""


@pytest.fixture(scope="module")
def quotes(spark: SparkSession) -> None:
    spark.sql(f"CREATE OR REPLACE TEMP VIEW ps_ticks AS SELECT * FROM VALUES {ROWS} AS t(s, ts, p)")
    matchrec.register(spark)


def test_double_quoted_names_are_names_under_double_quoted_identifiers(spark, quotes):
    """``"s" = 'A'`` in DEFINE and ``= "s"`` in MEASURES compare with the column s, as
    Spark's WHERE does with the setting on (a string before: no row matched)."""
    with session_settings(spark, {"spark.sql.ansi.doubleQuotedIdentifiers": "true"}):
        want = sorted(
            tuple(r)
            for r in spark.sql(
                """SELECT s, count(*) FROM ps_ticks WHERE "s" = 'A' AND "p" < 9 GROUP BY s"""
            ).collect()
        )
        got = matchrec.sql(
            spark,
            """SELECT s, n, same FROM ps_ticks MATCH_RECOGNIZE (PARTITION BY s ORDER BY ts
              MEASURES count(*) AS n, LAST(X.s) = "s" AS same PATTERN (X+)
              DEFINE X AS "s" = 'A' AND "p" < 9)""",
        ).collect()
    assert want == [("A", 3)]
    assert [tuple(r) for r in got] == [("A", 3, True)]


def test_the_table_function_refuses_a_double_quoted_name_it_cannot_read(spark, quotes):
    body = "PARTITION BY s ORDER BY ts MEASURES count(*) AS n PATTERN (X+) "
    body += "DEFINE X AS \"s\" = ''A''"
    query = f"SELECT * FROM match_recognize(TABLE(ps_ticks), '{body}')"
    with session_settings(spark, {"spark.sql.ansi.doubleQuotedIdentifiers": "true"}):
        with pytest.raises(UnsupportedError) as info:
            matchrec.sql(spark, query).collect()
    assert "spark.sql.ansi.doubleQuotedIdentifiers" in info.value.message
    assert info.value.sql[info.value.pos :].startswith('"s"')


@pytest.mark.parametrize("door", ["sql", "table function"])
def test_a_backslash_under_escaped_string_literals_is_refused_at_its_string(spark, quotes, door):
    """Spark reads ``'^\\w$'`` as written with the setting on; the clause read the
    escape (the letter w) and matched nothing."""
    body = "PARTITION BY s ORDER BY ts MEASURES count(*) AS n PATTERN (X+) "
    body += "DEFINE X AS s RLIKE '^\\w$'"
    query = (  # the body in double quotes: under the setting a doubled quote stays doubled
        f"SELECT * FROM ps_ticks MATCH_RECOGNIZE ({body})"
        if door == "sql"
        else f'SELECT * FROM match_recognize(TABLE(ps_ticks), "{body}")'
    )
    with session_settings(spark, {"spark.sql.parser.escapedStringLiterals": "true"}):
        assert spark.sql("SELECT 'x' RLIKE '^\\w$'").first()[0] is True
        with pytest.raises(UnsupportedError) as info:
            matchrec.sql(spark, query).collect()
    assert "spark.sql.parser.escapedStringLiterals" in info.value.message
    assert info.value.sql[info.value.pos :].startswith("'^\\w$'")
    # without the setting the escape is Spark's (\w is w): the same answer as spark.sql
    want = spark.sql("SELECT count(*) FROM ps_ticks WHERE s RLIKE '^\\w$'").first()[0]
    got = matchrec.sql(spark, f"SELECT * FROM ps_ticks MATCH_RECOGNIZE ({body})").count()
    assert want == got == 0


@pytest.mark.parametrize(
    ("text", "culprit"),
    [
        ("x RLIKE '^\\w$'", "'^"),
        ("x = 'it''s' AND y RLIKE 'a\\b'", "'a\\"),
        # an apostrophe in a double-quoted string or a backtick name is no quote
        ("name = \"it's\" OR name RLIKE '^\\w$'", "'^"),
        ("`it's` = 1 AND n RLIKE '\\d'", "'\\d"),
        ("x = 'plain' -- 'a\\b'", None),
        ("x = 'a\\'b' OR z = 'q'", "'a"),
    ],
)
def test_the_string_with_a_backslash_is_found(text, culprit):
    from matchrec.planner.sqltext import backslash_string

    at = backslash_string(text)
    assert (None if at is None else text[at : at + len(culprit)]) == culprit
