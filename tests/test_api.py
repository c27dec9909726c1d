"""The Python doors on real Spark: ``matchrec.sql`` around any query shape, and
``matchrec.match_recognize`` on a DataFrame giving the same rows."""

from __future__ import annotations

import warnings

import pytest
from sample_prices import PRICES

import matchrec
from matchrec.errors import SemanticError, SqlSyntaxError

BODY = """
  PARTITION BY sym
  ORDER BY t
  MEASURES FIRST(t) AS start_t, LAST(DOWN.t) AS bottom_t, count(*) AS n
  ONE ROW PER MATCH
  PATTERN (STRT DOWN+ UP+)
  DEFINE DOWN AS price < PREV(price), UP AS price > PREV(price)
"""


@pytest.fixture(scope="module")
def prices(spark):
    df = spark.createDataFrame(PRICES, "sym STRING, t INT, price DOUBLE")
    df.createOrReplaceTempView("prices")
    return df


def rows(df):
    return sorted(tuple(r) for r in df.collect())


def test_sql_and_dataframe_door_agree(spark, prices):
    via_sql = matchrec.sql(spark, f"SELECT * FROM prices MATCH_RECOGNIZE ({BODY}) AS m")
    via_df = matchrec.match_recognize(prices, BODY)
    assert via_sql.columns == ["sym", "start_t", "bottom_t", "n"]
    assert via_sql.schema == via_df.schema
    assert rows(via_sql) == rows(via_df) == [("x", 1, 3, 5), ("y", 1, 2, 3)]


def test_measure_types_are_sparks(spark, prices):
    df = matchrec.match_recognize(prices, BODY)
    types = {f.name: f.dataType.simpleString() for f in df.schema.fields}
    assert types == {"sym": "string", "start_t": "int", "bottom_t": "int", "n": "bigint"}


def test_query_shapes_around_the_clause(spark, prices):
    """CTE input, subquery input, WHERE/GROUP BY/ORDER BY outside, join of two clauses."""
    overlapping = BODY.replace("ONE ROW PER MATCH", "AFTER MATCH SKIP TO NEXT ROW")
    cte = matchrec.sql(
        spark,
        f"""WITH only_x AS (SELECT * FROM prices WHERE sym = 'x')
        SELECT sym, count(*) AS matches
        FROM only_x MATCH_RECOGNIZE ({overlapping}) AS m
        GROUP BY sym""",
    )
    assert rows(cte) == [("x", 3)]  # V shapes starting at t=1, 2 and 5

    sub = matchrec.sql(
        spark,
        f"SELECT m.n FROM (SELECT * FROM prices WHERE t > 1) MATCH_RECOGNIZE ({BODY}) AS m "
        "WHERE m.sym = 'x' ORDER BY m.n",
    )
    assert [r.n for r in sub.collect()] == [4]  # starts at t=2 now: 9, then 8 down, 9 and 11 up

    joined = matchrec.sql(
        spark,
        f"""SELECT a.sym, a.n, b.n AS n2
        FROM prices MATCH_RECOGNIZE ({BODY}) AS a
        JOIN prices MATCH_RECOGNIZE ({BODY}) AS b ON a.sym = b.sym
        ORDER BY a.sym""",
    )
    assert [tuple(r) for r in joined.collect()] == [("x", 5, 5), ("y", 3, 3)]


@pytest.mark.parametrize(
    ("after", "expected"),
    [
        (")m WHERE m.n > 3", [("x", 5)]),
        (")AS m", [("x", 5), ("y", 3)]),
        (")WHERE n > 3", [("x", 5)]),
        (")/* c /* nested */ ) */ ORDER BY sym", [("x", 5), ("y", 3)]),
    ],
)
def test_what_follows_the_clause_needs_no_space(spark, prices, after, expected):
    """A word right after the clause's ``)`` (an alias, WHERE) reads as Spark reads it
    after any subquery; a bracketed comment there may nest, as in Spark."""
    query = f"SELECT sym, n FROM prices MATCH_RECOGNIZE ({BODY.strip()}{after}"
    assert rows(matchrec.sql(spark, query)) == expected


def test_match_recognize_without_a_parenthesis_is_a_name(spark, prices):
    """Not a Spark keyword: a column or alias may be named so; before a clause's body
    (PARTITION BY ...) it is a clause missing its parenthesis."""
    named = matchrec.sql(spark, "SELECT count(*) AS match_recognize FROM prices")
    assert named.columns == ["match_recognize"]
    with pytest.raises(SqlSyntaxError, match=r"must be followed by \(") as info:
        matchrec.sql(spark, "SELECT * FROM prices MATCH_RECOGNIZE PARTITION BY sym")
    assert info.value.pos == len("SELECT * FROM prices MATCH_RECOGNIZE")


def test_a_variable_reference_in_a_define_string_is_substituted_as_spark_does(spark, prices):
    """Spark substitutes ``${...}`` in the SQL it reads (spark.sql.variable.substitute),
    in the column names matchrec computes DEFINE's row-local values under too."""
    body = BODY.replace(
        "DOWN AS price < PREV(price)", "DOWN AS price < PREV(price) AND sym <> '${mr_unset}'"
    )
    query = f"SELECT * FROM prices MATCH_RECOGNIZE ({body})"
    expected = spark.sql("SELECT count(*) AS c FROM prices WHERE sym <> '${mr_unset}'").first().c
    assert expected == len(PRICES)  # the text Spark compares with is no ticker
    assert rows(matchrec.sql(spark, query)) == [("x", 1, 3, 5), ("y", 1, 2, 3)]


def test_nested_match_recognize(spark, prices):
    """A MATCH_RECOGNIZE over the output of another one."""
    inner = "SELECT * FROM prices MATCH_RECOGNIZE (" + BODY + ") AS i"
    outer = f"""SELECT * FROM ({inner}) MATCH_RECOGNIZE (
        ORDER BY sym
        MEASURES count(*) AS total, FINAL sum(n) AS rows_in_matches
        PATTERN (M+)
        DEFINE M AS true) AS o"""
    assert rows(matchrec.sql(spark, outer)) == [(2, 8)]


def test_statement_without_match_recognize_goes_to_spark(spark, prices):
    assert matchrec.sql(spark, "SELECT count(*) AS c FROM prices").collect()[0].c == len(PRICES)


def test_all_rows_layout(spark, prices):
    df = matchrec.match_recognize(
        prices,
        """PARTITION BY sym ORDER BY t
        MEASURES classifier() AS cls, match_number() AS mn
        ALL ROWS PER MATCH
        PATTERN (STRT DOWN+ UP+)
        DEFINE DOWN AS price < PREV(price), UP AS price > PREV(price)""",
    )
    assert df.columns == ["sym", "t", "cls", "mn", "price"]
    got = [(r.sym, r.t, r.cls) for r in df.orderBy("sym", "t").collect()]
    assert got == [
        ("x", 1, "STRT"),
        ("x", 2, "DOWN"),
        ("x", 3, "DOWN"),
        ("x", 4, "UP"),
        ("x", 5, "UP"),
        ("y", 1, "STRT"),
        ("y", 2, "DOWN"),
        ("y", 3, "UP"),
    ]


def _job_ids(spark) -> set[int]:
    tracker = spark.sparkContext.statusTracker()
    return set(tracker.getJobIdsForGroup(None)) | set(tracker.getJobIdsForGroup("matchrec-test"))


def test_errors_come_before_any_job(spark, prices):
    spark.sparkContext.setJobGroup("matchrec-test", "errors")
    before = _job_ids(spark)
    query = (
        "SELECT *\nFROM prices MATCH_RECOGNIZE (\n  ORDER BY t\n  PATTERN (A B)\n"
        "  DEFINE C AS true\n) m"
    )
    with pytest.raises(SemanticError) as err:
        matchrec.sql(spark, query)
    assert err.value.line == 5
    assert err.value.column == query.splitlines()[4].index("C") + 1
    with pytest.raises(SqlSyntaxError) as err:
        matchrec.sql(spark, "SELECT * FROM prices MATCH_RECOGNIZE (ORDER BY t PATERN (A))")
    assert "PATTERN" in str(err.value)
    assert _job_ids(spark) == before


def test_a_subquery_in_define_and_measures_sees_the_statement_s_ctes(spark, prices):
    """In Spark every subquery of a statement sees its CTEs; a CTE of the subquery's own
    keeps its name."""
    body = """PARTITION BY sym ORDER BY t
        MEASURES count(*) AS n, (SELECT max(cap) FROM caps) AS top
        PATTERN (LOW+)
        DEFINE LOW AS price < (SELECT min(cap) FROM caps)"""
    ctes = "WITH caps AS (SELECT * FROM VALUES ('x', 9.5), ('y', 99) AS c(sym, cap))"
    got = matchrec.sql(spark, f"{ctes} SELECT * FROM prices MATCH_RECOGNIZE ({body})")
    plain = body.replace(
        "FROM caps", "FROM (SELECT * FROM VALUES ('x', 9.5), ('y', 99) AS c(sym, cap))"
    )
    assert rows(got) == rows(matchrec.sql(spark, f"SELECT * FROM prices MATCH_RECOGNIZE ({plain})"))
    own = body.replace(
        "(SELECT max(cap) FROM caps)", "(WITH caps AS (SELECT 1 AS cap) SELECT max(cap) FROM caps)"
    )
    assert {
        r.top
        for r in matchrec.sql(
            spark, f"{ctes} SELECT * FROM prices MATCH_RECOGNIZE ({own})"
        ).collect()
    } == {1}


CAPS_BODY = """PARTITION BY sym ORDER BY t
    MEASURES count(*) AS n, (SELECT max(cap) FROM caps) AS top
    PATTERN (LOW+)
    DEFINE LOW AS price < (SELECT min(cap) FROM caps)"""
CAPS = "(SELECT * FROM VALUES ('x', 9.5), ('y', 99), ('z', 11) AS c(sym, cap))"


@pytest.mark.parametrize(
    ("query", "caps"),
    [
        (  # an inner CTE that reads the outer CTE of its own name
            f"WITH caps AS {CAPS} SELECT * FROM (WITH caps AS (SELECT * FROM caps "
            "WHERE cap < 50) SELECT * FROM prices MATCH_RECOGNIZE ({body})) q",
            f"(SELECT * FROM {CAPS} WHERE cap < 50)",
        ),
        (  # an inner CTE that reads an outer one an inner CTE after it hides
            "WITH c0 AS (SELECT 1 AS k) SELECT * FROM (WITH caps AS (SELECT c.* FROM "
            f"{CAPS} c JOIN c0 ON c.cap > c0.k * 10), c0 AS (SELECT 0 AS k) "
            "SELECT * FROM prices MATCH_RECOGNIZE ({body})) q",
            f"(SELECT * FROM {CAPS} WHERE cap > 10)",
        ),
        (  # IN of a subquery that reads the inner CTE, which reads the outer one
            f"WITH caps AS {CAPS} SELECT * FROM (WITH caps AS (SELECT * FROM caps "
            "WHERE cap < 50) SELECT * FROM prices MATCH_RECOGNIZE ({in_body})) q",
            f"(SELECT * FROM {CAPS} WHERE cap < 50)",
        ),
    ],
    ids=["same_name", "later_name", "in_subquery"],
)
def test_a_subquery_in_define_reads_the_with_lists_nested(spark, prices, query, caps):
    """A subquery of DEFINE and MEASURES sees the WITH lists around the clause as Spark
    does, one inside the other: an inner CTE reads the outer CTE it hides (they were one
    list, and the inner CTE read itself or the catalog)."""
    in_body = CAPS_BODY.replace(
        "price < (SELECT min(cap) FROM caps)", "price IN (SELECT cap - 1.5 FROM caps)"
    )
    body = in_body if "in_body" in query else CAPS_BODY
    expected = rows(
        matchrec.sql(
            spark,
            "SELECT * FROM prices MATCH_RECOGNIZE ("
            + body.replace("FROM caps", f"FROM {caps}")
            + ")",
        )
    )
    assert rows(matchrec.sql(spark, query.format(body=CAPS_BODY, in_body=in_body))) == expected
    assert {r[-1] for r in expected} == {99 if "c0" in query else 11}


def test_match_recognize_inside_a_with_clause(spark, prices):
    """A clause inside a CTE sees only the CTEs defined before it."""
    query = f"""WITH only_x AS (SELECT * FROM prices WHERE sym = 'x'),
        vs AS (SELECT * FROM only_x MATCH_RECOGNIZE ({BODY}) AS m),
        later AS (SELECT n FROM vs)
    SELECT * FROM later"""
    assert [r.n for r in matchrec.sql(spark, query).collect()] == [5]


X = "(SELECT * FROM prices WHERE sym = 'x')"
Y = "(SELECT * FROM prices WHERE sym = 'y')"
CLAUSE = f"MATCH_RECOGNIZE ({BODY})"


@pytest.mark.parametrize(
    ("query", "inline"),
    [
        (  # a union branch's own WITH hides the statement's CTE of the same name
            f"WITH t AS {X} SELECT * FROM t {CLAUSE} m UNION ALL "
            f"SELECT * FROM (WITH t AS {Y} SELECT * FROM t {CLAUSE} m2)",
            f"SELECT * FROM {X} {CLAUSE} m UNION ALL SELECT * FROM {Y} {CLAUSE} m2",
        ),
        (  # a WITH in a FROM subquery, a name of its own
            f"SELECT * FROM (WITH u AS {Y} SELECT * FROM u {CLAUSE} m) z",
            f"SELECT * FROM {Y} {CLAUSE} m",
        ),
        (  # ... hiding a temporary view
            f"SELECT * FROM (WITH prices AS {Y} SELECT * FROM prices {CLAUSE} m) z",
            f"SELECT * FROM {Y} {CLAUSE} m",
        ),
        (  # a WITH in a CTE's body hides the outer CTE
            f"WITH t AS {X}, r AS (WITH t AS {Y} SELECT * FROM t {CLAUSE} m) SELECT * FROM r",
            f"SELECT * FROM {Y} {CLAUSE} m",
        ),
        (  # a scalar subquery's WITH
            f"WITH t AS {X} SELECT n, (SELECT max(n) FROM (WITH t AS {Y} "
            f"SELECT * FROM t {CLAUSE} m2)) AS other FROM t {CLAUSE} m",
            f"SELECT n, (SELECT max(n) FROM (SELECT * FROM {Y} {CLAUSE} m2)) AS other "
            f"FROM {X} {CLAUSE} m",
        ),
    ],
    ids=["union_branch", "from_subquery", "hides_view", "cte_body", "scalar_subquery"],
)
def test_a_clause_reads_the_nearest_with_of_its_input_name(spark, prices, query, inline):
    """Spark resolves a name through the WITH lists around it, innermost first: so does
    a clause's input (it read the statement's WITH only, a wrong answer)."""
    expected = rows(matchrec.sql(spark, inline))
    assert rows(matchrec.sql(spark, query)) == expected
    assert expected  # the data gives a match to tell the CTEs apart


PIECEWISE = {
    "row-local": """AFTER MATCH SKIP TO LAST UP
      PATTERN (STRT DOWN+ UP+)
      DEFINE DOWN AS price < PREV(price), UP AS price > PREV(price)""",
    "match-dependent": """AFTER MATCH SKIP PAST LAST ROW
      PATTERN (STRT DOWN+ UP+)
      DEFINE DOWN AS DOWN.price < PREV(DOWN.price) AND avg(DOWN.price) > STRT.price - 6,
             UP AS UP.price > PREV(LAST(DOWN.price), 1) AND UP.price <= FIRST(STRT.price)""",
}


@pytest.mark.parametrize("define", list(PIECEWISE))
def test_long_partitions_matched_in_pieces_give_the_same_rows(spark, define):
    """With spark.matchrec.chunkRows small, a partition is matched piece by piece (memory
    follows the live searches); the rows are the same as matching it whole, whether the
    DEFINE conditions are row-local or read the match."""
    import random

    rng = random.Random(5)
    price, data = 50.0, []
    for t in range(400):
        price += rng.choice([-1.0, 0.0, 1.0])
        data.append(("x" if t % 2 else "y", t, price))
    df = spark.createDataFrame(data, "sym STRING, t INT, price DOUBLE")
    body = """PARTITION BY sym ORDER BY t
      MEASURES FIRST(t) AS s, LAST(DOWN.t) AS b, PREV(FIRST(t), 2) AS before,
               NEXT(LAST(t), 3) AS after, count(*) AS n, classifier() AS c
      ALL ROWS PER MATCH
      """ + PIECEWISE[define]
    results = []
    for chunk in ("0", "7"):
        spark.conf.set("spark.matchrec.chunkRows", chunk)
        # small Arrow batches: a partition arrives in many pieces and is cut many times
        spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "16")
        try:
            results.append(rows(matchrec.match_recognize(df, body)))
        finally:
            spark.conf.unset("spark.matchrec.chunkRows")
            spark.conf.unset("spark.sql.execution.arrow.maxRecordsPerBatch")
    whole, pieces = results
    assert len(whole) > 15
    assert pieces == whole


@pytest.mark.parametrize(
    ("pattern", "define"),
    [("B (B $)?", "B AS v > 0"), ("B $", "B AS v > FIRST(v) - 1"), ("PERMUTE(B, $)", "B AS v > 0")],
)
def test_the_partitions_end_is_not_the_end_of_a_piece(spark, pattern, define):
    """``$`` holds at the partition's last row only: a partition matched in pieces
    (spark.matchrec.chunkRows) took the end of a piece for it (here all 8 rows arrive in
    one Arrow batch, cut before the matcher knows the partition ends there), and ended
    matches there (``B (B $)?`` gave (7, 7), (8, 8) for (7, 8)) or lost the match."""
    df = spark.createDataFrame([(1, i, i) for i in range(1, 9)], "p INT, t INT, v INT")
    body = (
        "PARTITION BY p ORDER BY t MEASURES FIRST(t) AS f, LAST(t) AS l "
        f"AFTER MATCH SKIP TO NEXT ROW PATTERN ({pattern}) DEFINE {define}"
    )
    results = []
    for chunk in ("0", "5"):
        spark.conf.set("spark.matchrec.chunkRows", chunk)
        try:
            results.append(rows(matchrec.match_recognize(df, body)))
        finally:
            spark.conf.unset("spark.matchrec.chunkRows")
    whole, pieces = results
    assert (1, 8, 8) in whole
    assert pieces == whole


def test_one_match_longer_than_a_piece(spark):
    """A match that spans the whole partition keeps growing across pieces and is whole."""
    df = spark.createDataFrame([("k", t) for t in range(300)], "k STRING, t INT")
    spark.conf.set("spark.matchrec.chunkRows", "5")
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "16")
    try:
        got = rows(
            matchrec.match_recognize(
                df,
                "PARTITION BY k ORDER BY t MEASURES count(*) AS n, LAST(t) AS last_t "
                "PATTERN (A+) DEFINE A AS t >= 0",
            )
        )
    finally:
        spark.conf.unset("spark.matchrec.chunkRows")
        spark.conf.unset("spark.sql.execution.arrow.maxRecordsPerBatch")
    assert got == [("k", 300, 299)]


def test_a_clause_without_order_by_is_legal_but_warned_about(spark, prices):
    from matchrec.errors import ArbitraryOrderWarning

    body = "PARTITION BY sym MEASURES count(*) AS n PATTERN (A+) DEFINE A AS price > 0"
    query = f"SELECT * FROM prices MATCH_RECOGNIZE (\n  {body}) AS m"
    with pytest.warns(ArbitraryOrderWarning, match=r"without ORDER BY \(its PATTERN at line 2"):
        got = matchrec.sql(spark, query)
    assert rows(got) == [("x", 7), ("y", 4)]  # each partition is one match, in any order
    with pytest.warns(ArbitraryOrderWarning, match="without ORDER BY"):
        matchrec.match_recognize(prices, body)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ArbitraryOrderWarning)
        matchrec.match_recognize(prices, BODY)  # ORDER BY t: no warning


@pytest.mark.parametrize(
    ("sample", "qualifier"),
    [
        ("TABLESAMPLE (100 PERCENT)", "walk"),
        ("TABLESAMPLE (100 PERCENT) REPEATABLE (7)", "walk"),
        ("TABLESAMPLE (100 PERCENT) AS s", "s"),
    ],
)
def test_a_sampled_input(spark, sample, qualifier):
    """``FROM t TABLESAMPLE (...) [REPEATABLE (n)] [AS s] MATCH_RECOGNIZE``: the sample is
    the input (all of it at 100 percent), and the table's name or the alias qualifies its
    columns."""
    walk = [("x", i, float(p)) for i, p in enumerate([5, 4, 3, 6, 2, 1, 7])]
    spark.createDataFrame(walk, "sym string, t int, p double").createOrReplaceTempView("walk")
    body = f"""MATCH_RECOGNIZE (PARTITION BY {qualifier}.sym ORDER BY {qualifier}.t
      MEASURES FIRST(t) AS first_t, count(*) AS n PATTERN (A B+) DEFINE B AS B.p < PREV(B.p))"""
    got = matchrec.sql(spark, f"SELECT first_t, n FROM walk {sample} {body} ORDER BY first_t")
    assert rows(got) == [(0, 3), (3, 3)]


@pytest.mark.parametrize(
    "source",
    [
        "(VALUES (1, 90), (2, 80), (3, 70), (4, 70), (5, 80)) t(id, value)",
        "(VALUES (1, 90), (2, 80), (3, 70), (4, 70), (5, 80)) AS t (id, value)",
        "VALUES (1, 90), (2, 80), (3, 70), (4, 70), (5, 80) AS t(id, value)",
    ],
)
def test_an_input_aliased_with_column_names(spark, source):
    """Trino's tests write their input as ``(VALUES ...) t(id, value)``: the alias and
    its column names are the input's, as in a subquery that names them."""
    body = """MATCH_RECOGNIZE (ORDER BY id
      MEASURES match_number() AS mn, CLASSIFIER() AS cls, RUNNING LAST(value) AS val
      ALL ROWS PER MATCH AFTER MATCH SKIP PAST LAST ROW
      PATTERN (A B+ C+) DEFINE B AS B.value < PREV(B.value), C AS C.value >= PREV(C.value)
    ) AS m"""
    got = matchrec.sql(spark, f"SELECT id, mn, cls, val FROM {source} {body}").collect()
    named = (
        "(SELECT col1 AS id, col2 AS value FROM VALUES (1, 90), (2, 80), (3, 70), (4, 70), (5, 80))"
    )
    want = matchrec.sql(spark, f"SELECT id, mn, cls, val FROM {named} {body}").collect()
    assert [tuple(r) for r in got] == [tuple(r) for r in want]
    assert [r.cls for r in got] == ["A", "B", "B", "C", "C"]


VIEW_QUERY = """SELECT * FROM walk_v MATCH_RECOGNIZE (PARTITION BY sym ORDER BY t
  MEASURES FIRST(t) AS first_t, count(*) AS n PATTERN (A B+) DEFINE B AS B.p < PREV(B.p))"""


@pytest.mark.parametrize(
    ("statement", "read", "columns"),
    [
        ("CREATE OR REPLACE TEMP VIEW mr_view AS {q}", "mr_view", ["sym", "first_t", "n"]),
        ("CREATE TEMPORARY VIEW mr_view (s, f, k) AS {q}", "mr_view", ["s", "f", "k"]),
        (
            "CREATE OR REPLACE GLOBAL TEMP VIEW mr_view AS {q}",
            "global_temp.mr_view",
            ["sym", "first_t", "n"],
        ),
        ("CACHE TABLE mr_view AS {q}", "mr_view", ["sym", "first_t", "n"]),
        ("CREATE TEMP VIEW `mr view` AS {q}", "`mr view`", ["sym", "first_t", "n"]),
        (  # the view's query has CTEs of its own
            "CREATE TEMP VIEW mr_view AS WITH w AS (SELECT * FROM walk_v) "
            + VIEW_QUERY.replace("FROM walk_v", "FROM w"),
            "mr_view",
            ["sym", "first_t", "n"],
        ),
    ],
)
def test_a_view_of_a_match_recognize_query_reads_later(spark, statement, read, columns):
    """``CREATE TEMP VIEW v AS <query with MATCH_RECOGNIZE>`` (and CACHE TABLE): the view
    is readable after the statement. Spark's own statement keeps the query's text, which
    reads each clause's result through a name that lives only while the statement runs."""
    walk = [("x", i, float(p)) for i, p in enumerate([5, 4, 3, 6, 2, 1, 7])]
    spark.createDataFrame(walk, "sym string, t int, p double").createOrReplaceTempView("walk_v")
    try:
        assert matchrec.sql(spark, statement.format(q=VIEW_QUERY)).collect() == []
        got = spark.sql(f"SELECT * FROM {read} ORDER BY 2")
        assert got.columns == columns
        assert rows(got) == [("x", 0, 3), ("x", 3, 3)]
        if "CACHE" in statement:
            assert spark.catalog.isCached("mr_view")
    finally:
        spark.sql("UNCACHE TABLE IF EXISTS mr_view")
        spark.catalog.dropTempView("mr_view")
        spark.catalog.dropTempView("`mr view`")
        spark.catalog.dropGlobalTempView("mr_view")


def test_a_temp_view_that_exists_is_spark_s_error_and_if_not_exists_is_refused(spark):
    spark.createDataFrame([("x", 0, 1.0)], "sym string, t int, p double").createOrReplaceTempView(
        "walk_v"
    )
    spark.sql("CREATE OR REPLACE TEMP VIEW mr_taken AS SELECT 1 AS one")
    try:
        with pytest.raises(Exception, match="TEMP_TABLE_OR_VIEW_ALREADY_EXISTS"):
            matchrec.sql(spark, f"CREATE TEMP VIEW mr_taken AS {VIEW_QUERY}")
        for kind in ("TEMP", "GLOBAL TEMPORARY"):  # Spark's parser refuses both
            query = f"CREATE {kind} VIEW IF NOT EXISTS mr_taken AS {VIEW_QUERY}"
            with pytest.raises(SqlSyntaxError) as info:
                matchrec.sql(spark, query)
            assert "not allowed to define a TEMPORARY view with IF NOT EXISTS" in str(info.value)
            assert query[info.value.pos :].startswith("IF NOT EXISTS")
        assert spark.table("mr_taken").columns == ["one"]  # left as it was
    finally:
        spark.catalog.dropTempView("mr_taken")


def test_arguments_of_the_wrong_kind_are_a_usage_error(spark, prices):
    """A table's name for its DataFrame, a pandas DataFrame, swapped arguments: a
    UsageError (a TypeError) that says what to pass, not an AttributeError from inside."""
    import pandas as pd

    from matchrec.errors import UsageError

    body = "ORDER BY ts PATTERN (A) DEFINE A AS true"
    calls = [
        (lambda: matchrec.match_recognize("prices", body), "spark.table('name')"),
        (lambda: matchrec.match_recognize(pd.DataFrame({"a": [1]}), body), "a pandas DataFrame"),
        (lambda: matchrec.match_recognize(body, prices), "got a str"),
        (lambda: matchrec.sql("SELECT 1", spark), "takes a SparkSession as spark, got a str"),
        (lambda: matchrec.explain("SELECT 1", spark), "takes a SparkSession as spark"),
        (lambda: matchrec.match_recognize_dynamic(prices, "rules"), "as rules, got a str"),
    ]
    for call, words in calls:
        with pytest.raises(UsageError) as err:
            call()
        assert isinstance(err.value, TypeError) and words in str(err.value)
