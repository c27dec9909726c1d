"""``matchrec.sql(spark, query, args, **kwargs)`` takes what ``spark.sql`` takes.

``args`` binds parameter markers (``:name`` from a dict, ``?`` from a list) anywhere in
the query: around the clause, in its input relation, in DEFINE (row-local and in the
matcher's glue) and MEASURES. Keyword arguments format ``{name}``: a DataFrame is read
by reference, a Column is its name, a string a quoted literal. Answers are compared
with ``spark.sql`` on the same rows; a marker without a value is an error at the marker.
"""

from __future__ import annotations

import datetime
from decimal import Decimal

import pytest
from matchrec.grammar.parameters import parameter_markers
from matchrec.runtime.query_args import typed_literal
from pyspark.sql import functions as F
from test_errors import assert_error, find

import matchrec
from matchrec.errors import SemanticError, UsageError
from matchrec.sql_literals import sql_literal
from matchrec.text_edits import EditedText

_VIEW = "mr_sql_args"


@pytest.fixture(scope="module")
def prices(spark):
    spark.sql(
        f"""CREATE OR REPLACE TEMP VIEW {_VIEW} AS SELECT * FROM VALUES
          ('a', 1, 10), ('a', 2, 12), ('a', 3, 15), ('a', 4, 9), ('a', 5, 20),
          ('b', 1, 5), ('b', 2, 30), ('b', 3, 31), ('b', 4, 2) AS t(sym, id, price)"""
    )
    return spark.table(_VIEW)


# B rises above a limit and above A's price less a slack: row-local (B.price > limit),
# match-dependent (FIRST(A.price) in the matcher's glue), MEASURES and the outer WHERE
_NAMED = """SELECT * FROM {source} MATCH_RECOGNIZE (PARTITION BY sym ORDER BY id
  MEASURES FIRST(A.id) AS first_id, count(*) + :bonus AS c
  PATTERN (A B+) DEFINE B AS B.price > :limit AND B.price > FIRST(A.price) - :slack
) WHERE c > :min_count"""


def _literal_query(source: str, limit, bonus, slack, min_count) -> str:
    return (
        _NAMED.replace("{source}", source)
        .replace(":bonus", str(bonus))
        .replace(":limit", str(limit))
        .replace(":slack", str(slack))
        .replace(":min_count", str(min_count))
    )


def _rows(df) -> list[tuple]:
    return sorted(map(tuple, df.collect()))


@pytest.mark.parametrize("limit", [11, 14])
def test_named_parameters_everywhere_give_the_literal_querys_answer(spark, prices, limit):
    args = {"limit": limit, "bonus": 100, "slack": -1, "min_count": 101}
    got = _rows(matchrec.sql(spark, _NAMED.replace("{source}", _VIEW), args=args))
    expected = _rows(matchrec.sql(spark, _literal_query(_VIEW, limit, 100, -1, 101)))
    assert got == expected and got


def test_positional_parameters_count_in_text_order_past_pattern_quantifiers(spark, prices):
    query = f"""SELECT sym, first_id, tag FROM {_VIEW} MATCH_RECOGNIZE (
      PARTITION BY sym ORDER BY id MEASURES FIRST(A.id) AS first_id, ? AS tag
      PATTERN (A B+? C?) DEFINE B AS B.price > ?, C AS C.price < FIRST(A.price) - ?
    ) WHERE first_id >= ?"""
    got = _rows(matchrec.sql(spark, query, args=["x", 11, 0, 1]))
    literal = (
        query.replace("? AS tag", "'x' AS tag")
        .replace("B.price > ?", "B.price > 11")
        .replace("- ?", "- 0")
        .replace(">= ?", ">= 1")
    )
    assert got == _rows(matchrec.sql(spark, literal)) and got


def test_a_dataframe_keyword_argument_is_the_input_and_a_join_partner(spark, prices):
    """``{df}`` as the clause's input and in the query around it; a Column names the
    PARTITION BY key, a string is a quoted literal (as ``spark.sql`` formats them)."""
    limits = spark.createDataFrame([("a", 100), ("b", 200)], "sym string, lim int")
    query = """SELECT m.sym, m.first_id, l.lim, m.tag FROM {df} MATCH_RECOGNIZE (
      PARTITION BY {key} ORDER BY id MEASURES FIRST(A.id) AS first_id, {tag} AS tag
      PATTERN (A B{{1,2}}) DEFINE B AS B.price > :limit) m JOIN {limits} l ON m.sym = l.sym"""
    got = _rows(
        matchrec.sql(
            spark,
            query,
            args={"limit": 11},
            df=prices,
            key=F.col("sym"),
            tag="it's",
            limits=limits,
        )
    )
    spark_join = spark.sql(
        "SELECT m.sym, m.first_id, l.lim FROM {m} m JOIN {limits} l ON m.sym = l.sym",
        m=matchrec.sql(
            spark,
            f"""SELECT * FROM {_VIEW} MATCH_RECOGNIZE (PARTITION BY sym ORDER BY id
              MEASURES FIRST(A.id) AS first_id PATTERN (A B{{1,2}}) DEFINE B AS B.price > 11)""",
        ),
        limits=limits,
    )
    assert got == [(*r, "it's") for r in _rows(spark_join)] and got


def test_a_dataframe_keyword_argument_inside_define_and_measures(spark, prices):
    """A subquery of DEFINE or MEASURES reads a DataFrame argument as the same query
    over a temporary view does; no view is left behind."""
    limits = spark.createDataFrame([(11,)], "x int")
    query = """SELECT * FROM {t} MATCH_RECOGNIZE (PARTITION BY sym ORDER BY id
      MEASURES count(*) AS c, (SELECT max(x) FROM {limits}) AS m
      PATTERN (A B+) DEFINE B AS B.price > (SELECT max(x) FROM {limits}))"""
    before = {t.name for t in spark.catalog.listTables()}
    got = _rows(matchrec.sql(spark, query, t=prices, limits=limits))
    assert {t.name for t in spark.catalog.listTables()} == before
    limits.createOrReplaceTempView("mr_sql_args_limits")
    viewed = query.replace("{limits}", "mr_sql_args_limits").replace("{t}", _VIEW)
    assert got == _rows(matchrec.sql(spark, viewed)) and got


def test_a_query_without_the_clause_is_spark_sqls_own(spark, prices):
    query = "SELECT sym, price * :k AS p FROM {t} WHERE price > ? - 0"
    with pytest.raises(Exception) as spark_err:
        spark.sql(query, args={"k": 2}, t=prices).collect()
    with pytest.raises(type(spark_err.value)):
        matchrec.sql(spark, query, args={"k": 2}, t=prices).collect()
    query = "SELECT sym, price * :k AS p FROM {t} WHERE price > :low"
    args = {"k": 2, "low": 12}
    assert _rows(matchrec.sql(spark, query, args=args, t=prices)) == _rows(
        spark.sql(query, args=args, t=prices)
    )


_VALUES = [
    1,
    2**40,
    -7,
    1.5,
    -2.5,
    Decimal("1.50"),
    Decimal("-3.25"),
    "it's \\ a\nstring",
    True,
    None,
    datetime.date(2020, 1, 2),
    datetime.datetime(2020, 1, 2, 3, 4, 5, 123),
    datetime.datetime(2020, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc),
    datetime.timedelta(days=-1, seconds=5, microseconds=7),
    b"\x01\x02",
    [1, 2],
]


#: constant Columns a parameter may take (Spark Connect evaluates them on the server)
_COLUMNS = {
    "ints": lambda: F.array(F.lit(1), F.lit(None), F.lit(3)),
    "map": lambda: F.create_map(F.lit("a"), F.lit(1.5), F.lit("b"), F.lit(None)),
    "struct": lambda: F.struct(F.lit(1).alias("n"), F.array(F.lit("x")).alias("odd name")),
    "decimal": lambda: F.lit(Decimal("12.340")),
    "timestamp": lambda: F.lit(datetime.datetime(2020, 1, 2, 3, 4, 5, 6)),
    "null_array": lambda: F.lit(None).cast("array<date>"),
    "float": lambda: F.lit(0.1).cast("float"),
    "nested": lambda: F.array(F.struct(F.lit(2).cast("tinyint").alias("t"))),
}


@pytest.mark.parametrize("name", sorted(_COLUMNS))
def test_a_columns_value_written_with_its_type_reads_back_the_same(spark, name):
    """What a Spark Connect session binds for a Column parameter: its value and type,
    evaluated by Spark and written as SQL, read back by Spark equal."""
    column = spark.range(1).select(_COLUMNS[name]().alias("v"))
    dtype, value = column.schema["v"].dataType, column.first().v
    written = spark.sql(f"SELECT {typed_literal(value, dtype)} AS v")
    # the same type up to nullability, which a CAST does not write
    assert written.schema["v"].dataType.simpleString() == dtype.simpleString()
    assert written.first().v == value


@pytest.mark.parametrize("value", _VALUES, ids=[repr(v) for v in _VALUES])
def test_a_parameter_has_the_type_and_value_spark_binds(spark, prices, value):
    """In MEASURES (Spark computes it) and in DEFINE's glue (beside FIRST, the matcher
    compares it): the type and value of ``spark.sql("SELECT :v", args)``."""
    expected = spark.sql("SELECT :v AS v", args={"v": value})
    query = f"""SELECT v, v2 FROM {_VIEW} MATCH_RECOGNIZE (PARTITION BY sym ORDER BY id
      MEASURES :v AS v, CASE WHEN FIRST(A.id) > 0 THEN :v END AS v2 PATTERN (A B)
      DEFINE B AS FIRST(A.id) > 0 AND (:v IS NULL OR :v <=> :v))"""
    got = matchrec.sql(spark, query, args={"v": value})
    assert got.schema["v"].dataType == expected.schema["v"].dataType
    assert got.schema["v2"].dataType == expected.schema["v"].dataType
    want = expected.collect()[0].v
    rows = got.collect()
    assert len(rows) == 4 and all(r.v == want and r.v2 == want for r in rows)  # 2 per sym


def test_a_missing_named_parameter_is_an_error_at_its_marker(spark, prices):
    query = _NAMED.replace("{source}", _VIEW)
    with pytest.raises(SemanticError) as info:
        matchrec.sql(spark, query, args={"limit": 11, "bonus": 1, "min_count": 0})
    assert_error(
        info.value,
        query,
        find(query, ":slack"),
        SemanticError,
        "[UNBOUND_SQL_PARAMETER] no value for the parameter :slack",
        hint="args={'slack': ...}",
    )


def test_a_missing_positional_parameter_is_an_error_at_its_marker(spark, prices):
    query = f"""SELECT * FROM {_VIEW} MATCH_RECOGNIZE (ORDER BY id
      MEASURES ? AS tag PATTERN (A B?) DEFINE B AS B.price > ?)"""
    with pytest.raises(SemanticError) as info:
        matchrec.sql(spark, query, args=["x"])
    assert_error(
        info.value,
        query,
        query.rindex("?"),
        SemanticError,
        "no value for the positional parameter ? (number 2)",
        hint="args has 1 value",
    )


def test_without_args_a_marker_in_the_clause_is_unbound(spark, prices):
    query = f"""SELECT * FROM {_VIEW} MATCH_RECOGNIZE (ORDER BY id
      MEASURES count(*) AS c PATTERN (A B) DEFINE B AS B.price > :limit)"""
    with pytest.raises(SemanticError) as info:
        matchrec.sql(spark, query)
    assert_error(info.value, query, find(query, ":limit"), SemanticError, ":limit")


def test_an_error_after_formatting_is_shown_in_the_users_text(spark, prices):
    """The caret goes past ``{df}`` and the literals that replaced markers, into the
    query as written."""
    query = """SELECT * FROM {df} MATCH_RECOGNIZE (PARTITION BY sym ORDER BY id
      MEASURES count(*) + :bonus AS c PATTERN (A B) DEFINE B AS B.prize > :limit)"""
    with pytest.raises(SemanticError) as info:
        matchrec.sql(spark, query, args={"bonus": 123456789, "limit": 1}, df=prices)
    message = "Column prize prefixed with label B cannot be resolved"
    assert_error(info.value, query, find(query, "prize"), SemanticError, message)


def test_an_analysis_error_around_the_clause_is_shown_in_the_users_text(spark, prices):
    query = """SELECT nope FROM {df} MATCH_RECOGNIZE (ORDER BY id MEASURES A.price AS p
      PATTERN (A) DEFINE A AS A.price > :x) m WHERE p > :y"""
    with pytest.raises(SemanticError) as info:
        matchrec.sql(spark, query, args={"x": 1, "y": 2}, df=prices)
    assert_error(info.value, query, find(query, "nope"), SemanticError, "UNRESOLVED_COLUMN")


@pytest.mark.parametrize(
    ("written", "message", "hint"),
    [
        ("B{2,3}", "{2,3} reads as a keyword argument's place", "{{2,3}}"),
        ("B{4}", "{4} reads as a keyword argument's place", "{{4}}"),
        ("{- B -}", "no keyword argument fills {- B -} (passed: df, lim)", "{{- B -}}"),
        ("B{cap}", "no keyword argument fills {cap} (passed: df, lim)", "pass it"),
        ("B{lim.x}", "cannot format {lim.x} with the keyword arguments", "{{lim.x}}"),
        ("B{lim", "a single '{' in a query formatted with keyword", "write {{ for a brace"),
    ],
)
def test_a_brace_keyword_arguments_do_not_fill_is_an_error_at_it(
    spark, prices, written, message, hint
):
    """With keyword arguments, ``{...}`` is a place for one (as in ``spark.sql``): one
    that no argument fills raised Python's KeyError, IndexError, AttributeError or
    ValueError from ``str.format``, without a place in the query."""
    query = (
        "SELECT * FROM {df} MATCH_RECOGNIZE (ORDER BY id MEASURES count(*) AS c\n"
        f"  PATTERN (A {written}) DEFINE B AS B.price < {{lim}})"
    )
    with pytest.raises(UsageError) as info:
        matchrec.sql(spark, query, df=prices, lim=9)
    at = query.index(written) + written.index("{")
    assert_error(info.value, query, at, UsageError, message, hint=hint)


def test_arguments_of_the_wrong_kind_are_usage_errors(spark, prices):
    query = f"SELECT * FROM {_VIEW} MATCH_RECOGNIZE (ORDER BY id PATTERN (A) DEFINE A AS true)"
    with pytest.raises(UsageError, match="args must be a dict or a list, not int"):
        matchrec.sql(spark, query, args=5)
    with pytest.raises(
        UsageError, match="a value of type object cannot be a SQL parameter's value"
    ):
        matchrec.sql(spark, query.replace("true", ":x"), args={"x": object()})
    rules = spark.createDataFrame(
        [("r", 1, "PATTERN (A)")], "rule_id STRING, version INT, spec STRING"
    )
    with pytest.raises(UsageError, match="on_error must be 'skip' or 'fail', not 'explode'"):
        matchrec.match_recognize_dynamic(prices, rules, on_error="explode")


# ----------------------------------------------------------------------- without Spark


@pytest.mark.parametrize(
    ("query", "markers"),
    [
        ("SELECT :a, ?, x", [":a", "?"]),
        ("SELECT v:a, x::int, '?:b', `?` -- ? :c", []),  # VARIANT path, cast, strings...
        ("SELECT CAST(:a AS INT) WHERE b IN (:c, ?) AND d = :e", [":a", ":c", "?", ":e"]),
        ("SELECT * FROM t MATCH_RECOGNIZE (PATTERN (A B? C*?) DEFINE B AS B.x > ?)", ["?"]),
    ],
)
def test_markers_are_found_where_spark_finds_them(query, markers):
    assert [query[m.start : m.end] for m in parameter_markers(query)] == markers


@pytest.mark.parametrize(
    ("value", "literal"),
    [
        (-3, "(-3)"),
        (2**40, "1099511627776L"),
        (Decimal("-1.50"), "(-1.50BD)"),
        (float("inf"), "CAST('Infinity' AS DOUBLE)"),
        ("a'b\\", "'a\\'b\\\\'"),
        (b"\x0a", "X'0A'"),
        (datetime.timedelta(seconds=-1.5), "INTERVAL '-0 00:00:01.500000' DAY TO SECOND"),
    ],
)
def test_values_as_spark_sql_literals(value, literal):
    assert sql_literal(value) == literal


def test_a_dict_is_no_parameter_value_as_in_pyspark():
    with pytest.raises(TypeError, match="cannot be a SQL parameter's value"):
        sql_literal({"a": 1})


def test_edited_text_maps_offsets_back():
    edit = EditedText.of("a :xy b", [(2, 5, "12345")])
    assert edit.text == "a 12345 b"
    assert [edit.to_original(i) for i in (0, 2, 6, 7, 8)] == [0, 2, 2, 5, 6]
