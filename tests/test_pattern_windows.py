"""Row pattern recognition in a window (SQL:2016 R020) through ``matchrec.sql``.

Trino's cases are in tests/queries/pattern_windows.slt; here: what a window is to the
rest of the query (columns, names, WHERE, CTEs, several windows), the same answers as
MATCH_RECOGNIZE where the two must agree, Spark's values over an empty frame, and the
errors (class, message, caret)."""

from __future__ import annotations

import random

import pytest
from pyspark.errors import AnalysisException

import matchrec
from matchrec.errors import MatchRecognizeError, MatchRuntimeError, SemanticError, SqlSyntaxError
from tests.test_errors import assert_error

ROWS = "(VALUES (1, 'p', 90), (2, 'p', 80), (3, 'p', 70), (4, 'p', 80), (5, 'q', 10), (6, 'q', 5))"

WINDOW = """WINDOW w AS (
  PARTITION BY k ORDER BY id
  MEASURES LAST(v) AS last_v, CLASSIFIER() AS label
  ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING
  PATTERN (A B+)
  DEFINE B AS B.v < PREV(B.v)
)"""


def rows(df) -> list[tuple]:
    return [tuple(r) for r in df.collect()]


def test_columns_names_and_order(spark) -> None:
    df = matchrec.sql(
        spark,
        f"SELECT *, last_v OVER w, count(*) OVER w, label OVER w AS l "
        f"FROM {ROWS} t(id, k, v) {WINDOW} ORDER BY id",
    )
    assert df.columns == ["id", "k", "v", "last_v", "count(*) OVER w", "l"]
    assert rows(df) == [
        (1, "p", 90, 70, 3, "B"),
        (2, "p", 80, None, 0, None),
        (3, "p", 70, None, 0, None),
        (4, "p", 80, None, 0, None),
        (5, "q", 10, 5, 2, "B"),
        (6, "q", 5, None, 0, None),
    ]


def test_where_cte_qualified_star_and_expressions(spark) -> None:
    df = matchrec.sql(
        spark,
        f"WITH src AS (SELECT * FROM {ROWS} t(id, k, v)) "
        f"SELECT t.*, coalesce(last_v OVER w, -1) + 0 AS x FROM src t WHERE id <> 3 "
        f"{WINDOW} ORDER BY id",
    )
    # without row 3, p's rows are 90, 80, 80: A B, then 80 is not below 80
    assert df.columns == ["id", "k", "v", "x"]
    assert rows(df) == [
        (1, "p", 90, 80),
        (2, "p", 80, -1),
        (4, "p", 80, -1),
        (5, "q", 10, 5),
        (6, "q", 5, -1),
    ]


def test_two_pattern_windows_a_plain_one_and_ranking(spark) -> None:
    df = matchrec.sql(
        spark,
        f"""SELECT id, last_v OVER w, up OVER u, sum(v) OVER (PARTITION BY k ORDER BY id),
                   rank() OVER w AS r
            FROM {ROWS} t(id, k, v)
            {WINDOW}, u AS (ORDER BY id MEASURES LAST(v) AS up
                ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING AFTER MATCH SKIP TO NEXT ROW
                PATTERN (X Y) DEFINE Y AS Y.v > X.v)
            ORDER BY id""",
    )
    assert rows(df) == [
        (1, 70, None, 90, 1),
        (2, None, None, 170, 2),
        (3, None, 80, 240, 3),
        (4, None, None, 320, 4),
        (5, 5, None, 10, 1),
        (6, None, None, 15, 2),
    ]


def test_prev_at_the_current_row_is_outside_the_frame(spark) -> None:
    # MATCH_RECOGNIZE's PREV reads the row before the match; a window's frame starts at
    # the current row, so there it is NULL
    df = matchrec.sql(
        spark,
        "SELECT id, p OVER w FROM (VALUES (1, 5), (2, 6), (3, 7)) t(id, v) "
        "WINDOW w AS (ORDER BY id MEASURES PREV(A.v) AS p "
        "ROWS BETWEEN CURRENT ROW AND CURRENT ROW AFTER MATCH SKIP TO NEXT ROW "
        "PATTERN (A) DEFINE A AS PREV(A.v) IS NULL) ORDER BY id",
    )
    assert rows(df) == [(1, None), (2, None), (3, None)]


@pytest.mark.parametrize("skip", ["PAST LAST ROW", "TO NEXT ROW", "TO LAST B"])
def test_matches_at_search_rows_are_match_recognize_matches(spark, skip: str) -> None:
    """Without SEEK and with an unbounded frame, a row's match is MATCH_RECOGNIZE's
    match starting there, wherever no DEFINE reads before the match's first row."""
    rng = random.Random(7)
    values = ", ".join(f"({i}, {i % 3}, {rng.randint(0, 9)})" for i in range(60))
    source = f"(VALUES {values}) t(id, k, v)"
    body = (
        "PARTITION BY k ORDER BY id MEASURES FIRST(id) AS first_id, LAST(id) AS last_id, "
        "count(B.*) AS bs, sum(v) AS total {mode} AFTER MATCH SKIP " + skip + " "
        "PATTERN (A B+ C?) DEFINE B AS B.v >= FIRST(A.v) AND B.v > PREV(B.v), "
        "C AS C.v < LAST(B.v)"
    )
    windowed = matchrec.sql(
        spark,
        f"SELECT id, first_id OVER w, last_id OVER w, bs OVER w, total OVER w FROM {source} "
        "WINDOW w AS ("
        + body.format(mode="ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING")
        + ")",
    )
    matched = matchrec.sql(
        spark,
        f"SELECT first_id, last_id, bs, total FROM {source} MATCH_RECOGNIZE ("
        + body.format(mode="ONE ROW PER MATCH")
        + ")",
    )
    got = sorted(r[1:] for r in rows(windowed) if r[1] is not None)
    assert got == sorted(rows(matched))
    assert all(r[0] == r[1] for r in rows(windowed) if r[1] is not None)


def test_window_functions_over_no_row_are_spark_values(spark) -> None:
    aggregates = "collect_list(v), count(v), sum(v), collect_set(v), count_if(v > 0), max(v)"
    calls = ", ".join(f"{a} OVER w" for a in aggregates.split(", "))
    df = matchrec.sql(
        spark,
        f"SELECT id, {calls} FROM (VALUES (1, 1), (2, 2)) t(id, v) "
        "WINDOW w AS (ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING "
        "PATTERN (A) DEFINE A AS A.v > 5) ORDER BY id",
    )
    empty = spark.sql(f"SELECT {aggregates} FROM VALUES (1) AS t(v) WHERE false").collect()[0]
    assert [tuple(r)[1:] for r in df.collect()] == [tuple(empty)] * 2


def test_first_last_nth_value_read_the_match(spark) -> None:
    df = matchrec.sql(
        spark,
        "SELECT id, first_value(v) OVER w, last_value(v) OVER w, nth_value(v, 2) OVER w "
        "FROM (VALUES (1, 10), (2, 20), (3, 30), (4, 5)) t(id, v) "
        "WINDOW w AS (ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING "
        "PATTERN (A+) DEFINE A AS A.v >= 10) ORDER BY id",
    )
    assert rows(df) == [
        (1, 10, 30, 20),
        (2, None, None, None),
        (3, None, None, None),
        (4, None, None, None),
    ]


def _error(spark, query: str) -> MatchRecognizeError:
    with pytest.raises(MatchRecognizeError) as info:
        matchrec.sql(spark, query)
    return info.value


BASE = "SELECT id, m OVER w FROM (VALUES (1, 10), (2, 20)) t(id, v) WINDOW w AS (ORDER BY id "


@pytest.mark.parametrize(
    ("rest", "at", "cls", "message"),
    [
        (
            "MEASURES MATCH_NUMBER() AS m ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING "
            "PATTERN (A) DEFINE A AS true)",
            "MATCH_NUMBER",
            SemanticError,
            "MATCH_NUMBER function is not supported in window",
        ),
        (
            "MEASURES 1 AS m ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING "
            "PATTERN (^A) DEFINE A AS true)",
            "^",
            SemanticError,
            "Anchor pattern syntax is not allowed in window",
        ),
        (
            "MEASURES 1 AS m PATTERN (A) DEFINE A AS true)",
            "PATTERN",
            SemanticError,
            "needs the frame ROWS BETWEEN CURRENT ROW",
        ),
        (
            "MEASURES 1 AS m ONE ROW PER MATCH PATTERN (A) DEFINE A AS true)",
            "PATTERN",
            SemanticError,
            "needs the frame ROWS BETWEEN CURRENT ROW",
        ),
        (
            "MEASURES 1 AS x ROWS BETWEEN CURRENT ROW AND 2 FOLLOWING "
            "PATTERN (A) DEFINE A AS true)",
            "m OVER",
            SemanticError,
            "m is not a measure of the window",
        ),
        (
            "MEASURES 1 AS m ROWS BETWEEN CURRENT ROW AND 1 PRECEDING "
            "PATTERN (A) DEFINE A AS true)",
            "1 PRECEDING",
            SqlSyntaxError,
            "not AND 1 PRECEDING",
        ),
        (
            "MEASURES 1 AS m ROWS BETWEEN CURRENT ROW AND 'x' FOLLOWING "
            "PATTERN (A) DEFINE A AS true)",
            "'x'",
            SemanticError,
            "must be a whole number of rows",
        ),
    ],
)
def test_errors(spark, rest: str, at: str, cls: type, message: str) -> None:
    query = BASE + rest
    assert_error(_error(spark, query), query, query.index(at), cls, message)


def test_errors_around_the_window(spark) -> None:
    frame = "ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING PATTERN (A) DEFINE A AS true)"
    query = (
        f"SELECT id, abs(v) OVER w FROM (VALUES (1, 10)) t(id, v) WINDOW w AS (ORDER BY id {frame}"
    )
    assert_error(
        _error(spark, query), query, query.index("abs"), SemanticError, "not a window function"
    )
    query = (
        "SELECT k, count(*) OVER w FROM (VALUES (1, 10)) t(k, v) GROUP BY {key} "
        f"WINDOW w AS (ORDER BY k {frame}"
    )
    assert rows(matchrec.sql(spark, query.format(key="k"))) == [(1, 1)]  # over the groups
    grouped = query.format(key="k + 0")
    at = grouped.index("k + 0")
    assert_error(_error(spark, grouped), grouped, at, SemanticError, "keys that are columns")
    clause = "SELECT * FROM (VALUES (1, 10)) t(id, v) MATCH_RECOGNIZE (ORDER BY id " + frame
    assert_error(_error(spark, clause), clause, clause.index("ROWS"), SemanticError, "ROWS BETWEEN")
    query = f"SELECT id FROM (VALUES (1, 10)) t(id, v) ORDER BY nope OVER (ORDER BY id {frame}"
    assert "nope" in str(_error(spark, query))


LAID_OUT = """SELECT k, id, last_v OVER w, count(*) OVER w AS n
FROM (VALUES (1, 'p', 90), (2, 'p', 80)) t(id, k, v)
WINDOW w AS (
  PARTITION BY k ORDER BY id
  MEASURES LAST(v) AS last_v
  ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING
  PATTERN (A B+)
  DEFINE B AS v < PREV(v)
)"""


@pytest.mark.parametrize(
    ("old", "new", "at", "cls", "message", "hint"),
    [
        # a stray ``)`` was Spark's syntax error in the rewritten query, its caret on
        # line 1 (count's ``(*)``); after PATTERN it read as a window without DEFINE
        ("PREV(v)\n", "PREV(v))\n", "PREV(v))", SqlSyntaxError, "')' without", "remove"),
        ("(A B+)\n", "(A B+))\n", "(A B+))", SqlSyntaxError, "')' without", "remove"),
        # "this window has row pattern measures (MEASURES) but no PATTERN"
        ("PATTERN (", "PATERN (", "PATERN", SqlSyntaxError, "'PATERN'", "did you mean PATTERN?"),
        # "Spark rejects k ORDER BT id: " with nothing after the colon, caret at k
        ("ORDER BY id", "ORDER BT id", "BT", SqlSyntaxError, "'BT'", "did you mean ORDER BY?"),
    ],
)
def test_a_laid_out_windows_typos_are_told_where_written(
    spark, old: str, new: str, at: str, cls: type, message: str, hint: str
) -> None:
    query = LAID_OUT.replace(old, new)
    pos = query.index(at) + (len(at) - 1 if at.endswith("))") else 0)
    assert_error(_error(spark, query), query, pos, cls, message, hint)


def test_a_key_expression_with_the_word_order_in_it_runs(spark) -> None:
    """The ORDER BT check read every key expression: ``concat(k, ' order x')`` was
    refused with "did you mean ORDER BY?"."""
    query = LAID_OUT.replace("PARTITION BY k", "PARTITION BY concat(k, ' order x')")
    assert rows(matchrec.sql(spark, query)) == rows(matchrec.sql(spark, LAID_OUT))


def test_a_negative_frame_offset_fails_the_query_at_its_expression(spark) -> None:
    query = (
        "SELECT id, m OVER w FROM (VALUES (1, 0), (2, -1)) t(id, n) WINDOW w AS (ORDER BY id "
        "MEASURES LAST(id) AS m ROWS BETWEEN CURRENT ROW AND n FOLLOWING "
        "PATTERN (A+) DEFINE A AS true)"
    )
    with pytest.raises((MatchRuntimeError, Exception)) as info:
        matchrec.sql(spark, query).collect()
    assert "must not be negative or null" in str(info.value)


def test_an_unknown_table_in_from_is_told_at_the_query(spark) -> None:
    query = (
        "SELECT id, m OVER w FROM no_such_table WINDOW w AS (ORDER BY id MEASURES 1 AS m "
        "ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING PATTERN (A) DEFINE A AS true)"
    )
    with pytest.raises(AnalysisException) as info:
        matchrec.sql(spark, query)
    assert "no_such_table" in str(info.value)


def test_an_unknown_column_is_suggested_only_the_users_names(spark) -> None:
    """Spark's "did you mean" list leaves out the columns matchrec adds for a window."""
    query = (
        "SELECT id, nope, m OVER w FROM VALUES (1, 2) AS t(id, v) WINDOW w AS (ORDER BY id "
        "MEASURES 1 AS m ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING PATTERN (A) "
        "DEFINE A AS true)"
    )
    with pytest.raises(AnalysisException) as info:
        matchrec.sql(spark, query)
    message = str(info.value).splitlines()[0]
    assert "`nope` cannot be resolved" in message and "`id`" in message, message
    assert "__mr" not in message


def test_explain_shows_the_window_and_its_frame(spark) -> None:
    shown = str(
        matchrec.explain(
            spark, f"SELECT id, last_v OVER w FROM {ROWS} t(id, k, v) {WINDOW} ORDER BY id"
        )
    )
    assert "== WINDOW WITH A ROW PATTERN 1 of 1" in shown
    assert "FRAME         ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING INITIAL" in shown


def test_partition_by_expression_spark_rejects_is_told_at_it(spark) -> None:
    query = (
        "SELECT id, m OVER w FROM (VALUES (1, 10)) t(id, v) WINDOW w AS (PARTITION BY "
        "nope % 2 ORDER BY id MEASURES 1 AS m ROWS BETWEEN CURRENT ROW AND UNBOUNDED "
        "FOLLOWING PATTERN (A) DEFINE A AS true)"
    )
    assert_error(_error(spark, query), query, query.index("nope"), SemanticError, "Spark rejects")


def test_an_aggregate_as_order_by_key_is_told_at_it(spark) -> None:
    # a global aggregate analyses alone, not beside the input's columns: it reached the
    # user as Spark's MISSING_GROUP_BY with a plan naming our key column
    query = (
        "SELECT id, m OVER w FROM (VALUES (1, 10)) t(id, v) WINDOW w AS (ORDER BY "
        "percentile(v, 0.5) MEASURES 1 AS m ROWS BETWEEN CURRENT ROW AND UNBOUNDED "
        "FOLLOWING PATTERN (A) DEFINE A AS true)"
    )
    err = _error(spark, query)
    assert_error(err, query, query.index("percentile"), SemanticError, "MISSING_GROUP_BY")
    assert "__mr" not in str(err)


def test_a_join_sharing_a_column_name_runs_and_the_name_alone_is_ambiguous(spark) -> None:
    query = (
        "SELECT a.id, b.k, m OVER w FROM (VALUES (1, 'x')) a(id, k) JOIN (VALUES ('x', 5)) b(k, v) "
        "ON a.k = b.k WINDOW w AS (ORDER BY a.id MEASURES {m} AS m ROWS BETWEEN CURRENT ROW AND "
        "UNBOUNDED FOLLOWING PATTERN (A) DEFINE A AS true)"
    )
    assert rows(matchrec.sql(spark, query.format(m="LAST(v)"))) == [(1, "x", 5)]
    ambiguous = query.format(m="LAST(k)")
    err = _error(spark, ambiguous)
    at = ambiguous.index("k) AS m")
    assert_error(err, ambiguous, at, SemanticError, "Column 'k' is ambiguous: the join has a.k")
    outer = query.format(m="LAST(v)").replace("SELECT a.id, b.k,", "SELECT k,")
    err = _error(spark, outer)  # Spark's word, without our names
    assert "ambiguous" in err.message and "__mr" not in str(err), str(err)
    assert err.pos == outer.index("k,")


def test_parameters_reach_a_window(spark) -> None:
    df = matchrec.sql(
        spark,
        "SELECT id, m OVER w FROM {src} WINDOW w AS (ORDER BY id MEASURES LAST(v) AS m "
        "ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING PATTERN (A+) "
        "DEFINE A AS A.v > :least) ORDER BY id",
        args={"least": 15},
        src=spark.sql("SELECT * FROM VALUES (1, 10), (2, 20), (3, 30) AS t(id, v)"),
    )
    assert rows(df) == [(1, None), (2, 30), (3, None)]


def test_an_unknown_order_key_lists_only_the_users_columns(spark) -> None:
    # PARTITION BY id % 2 is computed as a column of ours, which the hint listed
    query = (
        "SELECT id, m OVER w FROM (VALUES (1, 10), (2, 20)) t(id, v) WINDOW w AS ("
        "PARTITION BY id % 2 ORDER BY nope MEASURES 1 AS m "
        "ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING PATTERN (A) DEFINE A AS true)"
    )
    err = _error(spark, query)
    assert_error(err, query, query.index("nope"), SemanticError, "Column nope is not present")
    assert err.hint == "input columns: id, v"
