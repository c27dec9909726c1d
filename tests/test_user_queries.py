"""Queries a Spark user writes around and across the clause: input relations, key
types, session settings. Each answer is compared with what Spark computes by itself
(GROUP BY, window functions) through every door the query fits, never with our output.
"""

from __future__ import annotations

import warnings

import pyarrow as pa
import pytest
from pyspark.errors import AnalysisException

import matchrec
from matchrec.arrow_rows import group_starts
from matchrec.errors import ArbitraryOrderWarning, SemanticError, UnsupportedError


def _literal(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "''") + "'"


def _doors(spark, view: str, body: str) -> dict[str, list[tuple]]:
    """Sorted rows (by repr, NaN included) of ``body`` over ``view`` from each door."""
    matchrec.register(spark)
    frames = {
        "sql": matchrec.sql(spark, f"SELECT * FROM {view} MATCH_RECOGNIZE ({body})"),
        "df": matchrec.match_recognize(spark.table(view), body),
        "udtf": spark.sql(f"SELECT * FROM match_recognize(TABLE({view}), {_literal(body)})"),
    }
    return {d: _rows(df) for d, df in frames.items()}


def _rows(df) -> list[tuple]:
    return sorted((tuple(r) for r in df.collect()), key=repr)


@pytest.fixture(scope="module")
def keys(spark):
    """Rows whose keys Spark groups although Python's ``==`` would not: NaN with NaN,
    -0.0 with 0.0, arrays and structs by value."""
    spark.sql(
        """CREATE OR REPLACE TEMP VIEW mr_keys AS SELECT * FROM VALUES
        (1, -0.0D, CAST('NaN' AS FLOAT), array(1, 2), named_struct('a', 1, 'b', 'x')),
        (2, double('NaN'), CAST('NaN' AS FLOAT), array(1, 2), named_struct('a', 1, 'b', 'x')),
        (3, CAST('NaN' AS DOUBLE), CAST(1 AS FLOAT), array(), named_struct('a', 2, 'b', NULL)),
        (4, 0.0D, CAST('NaN' AS FLOAT), array(NULL), named_struct('a', 2, 'b', NULL)),
        (5, CAST('NaN' AS DOUBLE), CAST(1 AS FLOAT), NULL, NULL),
        (6, 1.0D, CAST(-0.0 AS FLOAT), array(), NULL),
        (7, -0.0D, CAST(0.0 AS FLOAT), array(1, 2), named_struct('a', 1, 'b', 'x'))
        AS t(id, d, f, arr, st)"""
    )
    return "mr_keys"


@pytest.mark.parametrize("key", ["d", "f", "arr", "st", "d, arr", "f, st"])
def test_partition_keys_group_as_spark_groups_them(spark, keys, key):
    # one match per partition, all its rows: the partitions are Spark's groups
    body = f"""PARTITION BY {key} ORDER BY id
        MEASURES count(*) AS n, collect_list(id) AS ids
        PATTERN (A+) DEFINE A AS true"""
    expected = _rows(
        spark.sql(
            f"SELECT count(*) AS n, array_sort(collect_list(id)) AS ids FROM {keys} GROUP BY {key}"
        )
    )
    for door, rows in _doors(spark, keys, body).items():
        # the key columns as the rows hold them (-0.0 or 0.0) aside: the groups
        assert sorted(r[-2:] for r in rows) == sorted(expected), door


def test_prev_across_nan_keys_reads_the_same_partition(spark, keys):
    # PREV reads Spark's window of the partition, so the matcher must see the same one:
    # rows 2, 3 and 5 are one partition (NaN), rows 1, 4 and 7 another (0.0)
    body = """PARTITION BY d ORDER BY id
        MEASURES FIRST(id) AS first_id, count(*) AS n
        PATTERN (A B+) DEFINE B AS id > PREV(id)"""
    for door, rows in _doors(spark, keys, body).items():
        assert sorted(r[-2:] for r in rows) == [(1, 3), (2, 3)], door


def test_group_starts_compares_keys_as_spark():
    table = pa.table(
        {
            "d": [float("nan"), float("nan"), -0.0, 0.0, None, None, 1.0],
            "arr": [[1], [1], [], [], None, None, [None]],
            "st": [{"a": 1}, {"a": 1}, {"a": 2}, {"a": 2}, None, None, {"a": None}],
        }
    )
    for key in ("d", "arr", "st"):
        assert group_starts(table, [key]) == [2, 4, 6], key


def test_partition_by_a_map_is_a_positioned_error(spark, keys):
    spark.sql(f"CREATE OR REPLACE TEMP VIEW mr_map_keys AS SELECT id, map('k', id) m FROM {keys}")
    for clause in ("PARTITION BY m ORDER BY id", "PARTITION BY id ORDER BY m"):
        query = f"""SELECT * FROM mr_map_keys MATCH_RECOGNIZE (
            {clause} MEASURES count(*) AS n PATTERN (A) DEFINE A AS true)"""
        with pytest.raises(SemanticError) as info:
            matchrec.sql(spark, query)
        text = str(info.value)
        assert "column 'm' is MAP<STRING,INT>, which Spark cannot compare or sort" in text
        assert info.value.line == 2 and "^" in text and "__mr" not in text
        body = f"{clause} MEASURES count(*) AS n PATTERN (A) DEFINE A AS true"
        matchrec.register(spark)
        with pytest.raises(AnalysisException) as info:  # the table function's analyze
            spark.sql(f"SELECT * FROM match_recognize(TABLE(mr_map_keys), {_literal(body)})")
        assert "column 'm' is MAP<STRING,INT>, which Spark cannot compare or sort" in str(
            info.value
        )


@pytest.fixture(scope="module")
def uneven(spark):
    """Rows 1 and 2 match ``A B``; row 3, never read by a measure, would fail each
    computation under ANSI mode (an empty array, a malformed number, a zero divisor)."""
    spark.sql(
        """CREATE OR REPLACE TEMP VIEW mr_uneven AS SELECT * FROM VALUES
        (1, array(1, 2), '5', 1, 'a'), (2, array(7), '6', 2, NULL), (3, array(), 'x', 0, 'c')
        AS t(id, arr, n, z, s)"""
    )
    return "mr_uneven"


def test_measure_computes_a_navigated_value_from_the_rows_it_reads(spark, uneven):
    # FIRST(f(x)) is f at the match's first row only: Spark must not compute f on row 3
    body = """ORDER BY id
        MEASURES FIRST(arr[0]) AS a, FIRST(CAST(n AS INT)) AS c, LAST(id / z) AS d,
                 LAST(coalesce(s, 'none')) AS e, PREV(FIRST(coalesce(s, 'none')), 3) AS p
        PATTERN (A B) DEFINE B AS id > PREV(id)"""
    expected = _rows(
        spark.sql(
            f"""SELECT f.arr[0] AS a, CAST(f.n AS INT) AS c, l.id / l.z AS d,
                coalesce(l.s, 'none') AS e, CAST(NULL AS STRING) AS p
            FROM {uneven} f JOIN {uneven} l ON f.id = 1 AND l.id = 2"""
        )
    )
    assert expected == [(1, 5, 1.0, "none", None)]  # the guard: p has no row, so NULL
    for door, rows in _doors(spark, uneven, body).items():
        assert rows == expected, door


def test_measure_of_an_unmatched_row_reads_nothing(spark, uneven):
    # WITH UNMATCHED ROWS: row 3 is output, its measure is NULL and is not computed
    body = """ORDER BY id MEASURES FIRST(arr[0] * 10) AS a
        ALL ROWS PER MATCH WITH UNMATCHED ROWS PATTERN (A) DEFINE A AS size(arr) > 0"""
    rows = _rows(matchrec.sql(spark, f"SELECT id, a FROM {uneven} MATCH_RECOGNIZE ({body})"))
    assert rows == [(1, 10), (2, 70), (3, None)]


_CLAUSE = """MATCH_RECOGNIZE (PARTITION BY k ORDER BY id
    MEASURES count(*) AS n PATTERN (A{2}) DEFINE A AS true)"""


@pytest.fixture(scope="module")
def small(spark):
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW mr_small AS SELECT * FROM VALUES "
        "('a', 1), ('a', 2), ('b', 1), ('b', 2) AS t(k, id)"
    )
    return "mr_small"


@pytest.mark.parametrize(
    "query, at, condition",
    [
        (f"SELECT nonexist FROM {{t}} {_CLAUSE}", "nonexist", "UNRESOLVED_COLUMN"),
        (f"SELECT mr.id FROM {{t}} {_CLAUSE} mr", "mr.id", "UNRESOLVED_COLUMN"),
        (f"SELECT * FROM {{t}} {_CLAUSE} mr JOIN nosuch x ON mr.k = x.k", "nosuch", "TABLE_"),
        (f"SELECT * FROM nosuch {_CLAUSE}", "nosuch", "TABLE_OR_VIEW_NOT_FOUND"),
        (f"SELECT * FROM (SELECT k, idd FROM {{t}}) {_CLAUSE}", "idd", "UNRESOLVED_COLUMN"),
        (
            f"WITH c AS (SELECT * FROM {{t}}) SELECT * FROM c {_CLAUSE} x\nJOIN c ON x.k = c.kk",
            "c.kk",
            "UNRESOLVED_COLUMN",
        ),
        (
            f"CREATE OR REPLACE TEMP VIEW mr_bad AS SELECT nope FROM {{t}} {_CLAUSE}",
            "nope",
            "UNRESOLVED_COLUMN",
        ),
        (f"SELECT * FROM {{t}} {_CLAUSE} mr; SELECT 1", "SELECT 1", "PARSE_SYNTAX_ERROR"),
        (f"SELECT * FROM {{t}} {_CLAUSE} WHERE n >", "", "PARSE_SYNTAX_ERROR"),
    ],
)
def test_spark_error_around_the_clause_is_told_at_the_users_text(
    spark, small, query, at, condition
):
    # Spark's own error (still an AnalysisException) with its caret in the query as
    # written, not in matchrec's rewritten text, and no internal name or plan
    query = query.replace("{t}", small)
    if "mr.id" not in query:  # (the result has no id: the input has)
        with pytest.raises(AnalysisException) as info:  # Spark's error without the clause
            spark.sql(query.replace(_CLAUSE, "").replace("WHERE n >", "WHERE id >"))
        assert info.value.getCondition().startswith(condition)
    with pytest.raises(AnalysisException) as info:
        matchrec.sql(spark, query)
    err = info.value
    assert isinstance(err, matchrec.errors.MatchRecognizeError)
    assert err.getCondition().startswith(condition)
    text = str(err)
    assert "_pyspark_" not in text and "__m" not in text and "Project" not in text
    expected = query.index(at) if at else len(query.rstrip())
    assert err.pos == expected and "^" in text


def test_a_permanent_view_of_the_clause_says_what_to_do(spark, small):
    query = f"CREATE VIEW mr_permanent AS SELECT * FROM {small} {_CLAUSE}"
    with pytest.raises(SemanticError) as info:
        matchrec.sql(spark, query)
    text = str(info.value)
    assert "INVALID_TEMP_OBJ_REFERENCE" in text and "the MATCH_RECOGNIZE result" in text
    assert "CREATE TEMP VIEW" in info.value.hint and "_pyspark_" not in text
    assert info.value.line == 1 and "^" in text  # the statement: Spark names no part


def test_duplicate_input_columns_say_where_they_come_from(spark):
    left = spark.createDataFrame([(1, "x", 5), (2, "x", 3)], "id INT, k STRING, v INT")
    right = spark.createDataFrame([(1, "x", 50), (2, "x", 30)], "id INT, k STRING, w INT")
    body = "ORDER BY id MEASURES count(*) AS n PATTERN (A B) DEFINE B AS v > PREV(v)"
    with pytest.raises(SemanticError) as info:  # a join's two k columns
        matchrec.match_recognize(left.join(right, "id"), body)
    assert info.value.message == "ambiguous column: k in row pattern input relation"
    assert info.value.hint.startswith("the input has two columns named k: keep or rename one")
    with pytest.raises(SemanticError) as info:  # names that differ in case only
        matchrec.match_recognize(left.withColumnRenamed("k", "V"), body)
    assert "the input has columns V and v, which MATCH_RECOGNIZE does not tell apart" in str(
        info.value
    )


@pytest.fixture(scope="module")
def wide_decimals(spark):
    """DECIMAL(38, 6) values of 34 digits: more than Python's default 28."""
    spark.sql(
        """CREATE OR REPLACE TEMP VIEW mr_wide AS SELECT * FROM VALUES
        (1, 'a', CAST(1234567890123456789012345678.123456 AS DECIMAL(38, 6))),
        (2, 'a', CAST(1234567890123456789012345678.123457 AS DECIMAL(38, 6))),
        (3, 'a', CAST(0.000001 AS DECIMAL(38, 6))),
        (4, 'b', CAST(9999999999999999999999999999.999999 AS DECIMAL(38, 6))),
        (5, 'b', CAST(-0.000001 AS DECIMAL(38, 6)))
        AS t(id, k, x)"""
    )
    return "mr_wide"


def test_aggregates_of_38_digit_decimals_are_exact(spark, wide_decimals):
    body = """PARTITION BY k ORDER BY id
        MEASURES sum(x) AS s, avg(x) AS a, max(x) AS m, min(x) AS n
        PATTERN (A+) DEFINE A AS true"""
    expected = _rows(
        spark.sql(
            f"SELECT k, sum(x) AS s, avg(x) AS a, max(x) AS m, min(x) AS n FROM {wide_decimals} "
            "GROUP BY k"
        )
    )
    for door, rows in _doors(spark, wide_decimals, body).items():
        assert rows == expected, door
    # a match-dependent DEFINE sums them per match too (the scalar matcher)
    query = f"""SELECT k, id, rs FROM {wide_decimals} MATCH_RECOGNIZE (PARTITION BY k
        ORDER BY id MEASURES RUNNING sum(x) AS rs ALL ROWS PER MATCH
        PATTERN (A B*) DEFINE B AS sum(x) <> A.x)"""
    window = f"SELECT k, id, sum(x) OVER (PARTITION BY k ORDER BY id) AS rs FROM {wide_decimals}"
    assert _rows(matchrec.sql(spark, query)) == _rows(spark.sql(window))


def test_a_decimal_sum_past_its_type_is_a_runtime_error(spark):
    # Spark (ANSI): NUMERIC_VALUE_OUT_OF_RANGE; matchrec says so, not a worker traceback
    rows = "VALUES (1, CAST(99999999999999999999999999999999.999999 AS DECIMAL(38, 6))), (2, 1)"
    relation = f"(SELECT * FROM {rows} AS t(id, x))"
    with pytest.raises(Exception) as info:
        spark.sql(f"SELECT sum(x) FROM {relation}").collect()
    assert "NUMERIC_VALUE_OUT_OF_RANGE" in str(info.value)
    query = f"""SELECT * FROM {relation} MATCH_RECOGNIZE (ORDER BY id
        MEASURES sum(x) AS s PATTERN (A+) DEFINE A AS true)"""
    with pytest.raises(Exception) as info:
        matchrec.sql(spark, query).collect()
    assert "[NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION]" in str(info.value)
    assert "cannot be represented as Decimal(38, 6)" in str(info.value)
    assert "decimal.InvalidOperation" not in str(info.value)


def test_try_sum_of_decimals_is_null_while_past_its_type(spark):
    # Spark's running try_sum: NULL at the row where the sum leaves DECIMAL(38, 6), a
    # value again once it is back in range (not an error, not a rounded 28-digit sum)
    big = "CAST(99999999999999999999999999999999.999999 AS DECIMAL(38, 6))"
    relation = f"(SELECT * FROM VALUES (1, {big}), (2, 1), (3, -5) AS t(id, x))"
    query = f"""SELECT id, rs FROM {relation} MATCH_RECOGNIZE (ORDER BY id
        MEASURES RUNNING try_sum(x) AS rs ALL ROWS PER MATCH PATTERN (A+) DEFINE A AS true)"""
    window = f"SELECT id, try_sum(x) OVER (ORDER BY id) AS rs FROM {relation}"
    expected = _rows(spark.sql(window))
    assert [r[1] is None for r in expected] == [False, True, False]
    assert _rows(matchrec.sql(spark, query)) == expected


@pytest.fixture(scope="module")
def folds(spark):
    """Two partitions of numbers and arrays (a NULL element, an empty array)."""
    spark.sql(
        """CREATE OR REPLACE TEMP VIEW mr_folds AS SELECT * FROM VALUES
        ('a', 1, 3, array(1, NULL)), ('a', 2, 1, array()), ('a', 3, 4, array(2, 5)),
        ('b', 4, 5, array(7)), ('b', 5, 2, NULL), ('b', 6, 6, array(1, 2, 3))
        AS t(k, id, p, arr)"""
    )
    return "mr_folds"


# a higher-order function of the match's values ({L}: the list of p in match order,
# {F}: the first p), as a measure over each whole partition
FOLDS = [
    "aggregate({L}, 0, (acc, x) -> acc + x)",
    "aggregate({L}, 0D, (acc, x) -> acc + x, acc -> acc / 2)",
    "reduce({L}, {F}, (acc, x) -> greatest(acc, x))",
    "transform({L}, (x, i) -> x * 10 + i)",
    "filter({L}, x -> x % 2 = 0)",
    "exists({L}, x -> x > {F} + 2)",
    "forall({L}, x -> x > 0)",
    "zip_with({L}, reverse({L}), (x, y) -> x - y)",
    "array_sort({L}, (l, r) -> r - l)",
    "size(filter({L}, x -> x > {F}))",
]


@pytest.mark.parametrize("measure", FOLDS)
def test_higher_order_functions_of_the_matchs_values(spark, folds, measure):
    # the table function refused these (several rows' values); Spark's answer from
    # GROUP BY over the same rows in order
    body = f"""PARTITION BY k ORDER BY id
        MEASURES {measure.format(L="collect_list(A.p)", F="FIRST(A.p)")} AS v
        PATTERN (A+) DEFINE A AS true"""
    expected = _rows(
        spark.sql(
            f"""SELECT k, {measure.format(L="ps", F="ps[0]")} AS v FROM (
            SELECT k, transform(array_sort(collect_list(struct(id, p))), e -> e.p) AS ps
            FROM {folds} GROUP BY k)"""
        )
    )
    for door, rows in _doors(spark, folds, body).items():
        assert rows == expected, door


def test_higher_order_functions_of_two_rows_in_define_and_measures(spark, folds):
    # pairs (A, B) where B's array outweighs A's: folds over two rows' arrays in
    # DEFINE (a glue error before) and MEASURES (the table function refused it)
    body = """PARTITION BY k ORDER BY id
        MEASURES B.id AS b, zip_with(A.arr, B.arr, (x, y) -> coalesce(y, 0) - coalesce(x, 0)) AS d
        AFTER MATCH SKIP TO NEXT ROW PATTERN (A B)
        DEFINE B AS aggregate(B.arr, 0, (acc, x) -> acc + coalesce(x, 0))
                  > aggregate(A.arr, 0, (acc, x) -> acc + coalesce(x, 0))"""
    expected = _rows(
        spark.sql(
            f"""SELECT a.k, b.id, zip_with(a.arr, b.arr,
                  (x, y) -> coalesce(y, 0) - coalesce(x, 0)) AS d
            FROM {folds} a JOIN {folds} b ON a.k = b.k AND b.id = a.id + 1
            WHERE aggregate(b.arr, 0, (acc, x) -> acc + coalesce(x, 0))
                > aggregate(a.arr, 0, (acc, x) -> acc + coalesce(x, 0))"""
        )
    )
    assert expected
    for door, rows in _doors(spark, folds, body).items():
        assert rows == expected, door


@pytest.mark.parametrize("order", ["ORDER BY id", ""])
@pytest.mark.parametrize("collation", ["UTF8_LCASE", "UNICODE_CI"])
def test_a_collated_partition_key_groups_as_spark_groups_it(spark, collation, order):
    # 'x' and 'X' are one partition under a case-insensitive collation: the matcher cut
    # it at each change of case (the table function failed its order check)
    spark.sql(
        f"""CREATE OR REPLACE TEMP VIEW mr_collated AS
        SELECT id, CAST(g AS STRING COLLATE {collation}) AS g FROM VALUES
        (1, 'x'), (2, 'X'), (3, 'x'), (4, 'X'), (5, 'y'), (6, 'Y'), (7, 'y') AS t(id, g)"""
    )
    body = f"""PARTITION BY g {order} MEASURES count(*) AS n, max(id) AS last_id
        PATTERN (A+) DEFINE A AS true"""
    expected = _rows(spark.sql("SELECT count(*), max(id) FROM mr_collated GROUP BY g"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ArbitraryOrderWarning)
        doors = _doors(spark, "mr_collated", body)
    for door, rows in doors.items():
        assert sorted(r[1:] for r in rows) == expected, door


@pytest.fixture(scope="module")
def collated(spark):
    """Pairs of rows (odd id, next id) whose strings differ in case only, or not at all."""
    spark.sql(
        """CREATE OR REPLACE TEMP VIEW mr_collated_text AS
        SELECT id, CAST(t AS STRING COLLATE UTF8_LCASE) AS c, t FROM VALUES
        (1, 'Apple'), (2, 'APPLE'), (3, 'pear'), (4, 'PEAR '), (5, 'a'), (6, 'B'),
        (7, 'b'), (8, 'A') AS v(id, t)"""
    )
    return "mr_collated_text"


@pytest.mark.parametrize(
    "condition",
    [
        "B.c = A.c",
        "c = PREV(c)",
        "B.c < A.c",
        "B.c >= A.c",
        "B.c IN (A.c, 'zzz')",
        "B.c <=> A.c",
        "upper(B.t) COLLATE UTF8_LCASE = A.t",
    ],
)
def test_collated_strings_of_two_rows_compare_as_spark_compares_them(spark, collated, condition):
    # DEFINE's glue compared the strings byte by byte ('APPLE' <> 'Apple', 'B' < 'a'),
    # and refused the explicit COLLATE as a type mismatch
    body = f"""ORDER BY id MEASURES B.id AS b PATTERN (A B)
        DEFINE A AS id % 2 = 1, B AS {condition}"""
    plain = condition.replace("PREV(c)", "A.c").replace("A.", "a.").replace("B.", "b.")
    plain = plain.replace("c = a.c", "b.c = a.c") if plain.startswith("c =") else plain
    expected = _rows(
        spark.sql(
            f"""SELECT b.id FROM {collated} a JOIN {collated} b ON b.id = a.id + 1
            WHERE a.id % 2 = 1 AND ({plain})"""
        )
    )
    assert expected
    doors = _doors(spark, collated, body)
    if "COLLATE" in condition:  # sqlglot cannot type an expression's collation
        del doors["udtf"]
    for door, rows in doors.items():
        assert rows == expected, door


def test_a_collation_the_glue_lacks_is_a_positioned_error(spark, collated):
    query = """SELECT * FROM mr_collated_text MATCH_RECOGNIZE (ORDER BY id
        MEASURES B.id AS b PATTERN (A B)
        DEFINE B AS B.t COLLATE UNICODE_CI = A.t COLLATE UNICODE_CI)"""
    with pytest.raises(UnsupportedError) as info:
        matchrec.sql(spark, query)
    text = str(info.value)
    assert "under collation UNICODE_CI" in text and "UTF8_LCASE" in text
    assert info.value.line == 3 and "^" in text


@pytest.mark.parametrize("name", ["__mr_c0", "__MR_A0", "__mr_matched"])
def test_an_input_column_named_like_an_internal_one_is_refused(spark, name):
    df = spark.createDataFrame([(1, 5), (2, 3)], f"id INT, `{name}` INT")
    body = "ORDER BY id MEASURES count(*) AS n PATTERN (A B) DEFINE B AS id > PREV(id)"
    with pytest.raises(SemanticError) as info:
        matchrec.match_recognize(df, body)
    assert info.value.message == (
        f"input column {name} has a name matchrec keeps for its own columns (__mr_...)"
    )
    assert info.value.hint.startswith(f"rename {name} in a subquery that feeds MATCH_RECOGNIZE")
    assert "^" in str(info.value)


@pytest.fixture(scope="module")
def prices(spark):
    """Two companies' prices (Snowflake's OVERAVG example has this shape)."""
    rows = [("ABCD", i, p) for i, p in enumerate([50, 36, 39, 42, 30, 47, 71, 80, 75, 63], 1)]
    rows += [("XYZ", i, p) for i, p in enumerate([89, 24, 37, 63, 65, 56, 50, 54, 2, 95], 1)]
    spark.createDataFrame(rows, "company string, day int, price int").createOrReplaceTempView(
        "mr_window_prices"
    )
    return "mr_window_prices"


#: DEFINE with a window over the input, the same window written in a subquery that feeds
#: the clause (as column w), and DEFINE over w: a window without PARTITION BY and ORDER BY
#: runs over the clause's partition (an aggregate over all of it, ranking in the clause's
#: order); one that writes either is Spark's as written, over every input row
INPUT_WINDOWS = [
    (
        "price > avg(price) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)",
        "avg(price) OVER (PARTITION BY company)",
        "price > w",
    ),
    ("price > avg(price) OVER ()", "avg(price) OVER (PARTITION BY company)", "price > w"),
    (
        "price >= max(price) OVER (ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)",
        "max(price) OVER (PARTITION BY company ORDER BY day "
        "ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)",
        "price >= w",
    ),
    ("price > avg(price) OVER (ORDER BY day)", "avg(price) OVER (ORDER BY day)", "price > w"),
    (
        "price > avg(price) OVER (PARTITION BY day % 2)",
        "avg(price) OVER (PARTITION BY day % 2)",
        "price > w",
    ),
    (
        "price * 10 > sum(price) FILTER (WHERE price > 40) OVER (PARTITION BY company)",
        "sum(price) FILTER (WHERE price > 40) OVER (PARTITION BY company)",
        "price * 10 > w",
    ),
    (
        "row_number() OVER (ORDER BY price, company) > 8",
        "row_number() OVER (ORDER BY price, company)",
        "w > 8",
    ),
    (  # a subquery's own window is the subquery's
        "price > (SELECT max(price) OVER () / 2 FROM mr_window_prices LIMIT 1)",
        "(SELECT max(price) OVER () / 2 FROM mr_window_prices LIMIT 1)",
        "price > w",
    ),
    (
        "row_number() OVER () % 3 > 0",
        "row_number() OVER (PARTITION BY company ORDER BY day)",
        "w % 3 > 0",
    ),
]


@pytest.mark.parametrize(("define", "window", "over_w"), INPUT_WINDOWS)
def test_a_window_over_the_input_in_define_is_sparks_window(spark, prices, define, window, over_w):
    body = """PARTITION BY company ORDER BY day
      MEASURES FIRST(day) AS first_day, count(*) AS n
      ONE ROW PER MATCH PATTERN (UP+) DEFINE UP AS {define}"""
    spark.sql(f"SELECT *, {window} AS w FROM {prices}").createOrReplaceTempView(
        "mr_window_prices_w"
    )
    want = matchrec.sql(
        spark,
        "SELECT company, first_day, n FROM mr_window_prices_w MATCH_RECOGNIZE ("
        + body.format(define=over_w)
        + ")",
    )
    want_rows = _rows(want)
    assert len(want_rows) >= 2
    for door, rows in _doors(spark, prices, body.format(define=define)).items():
        assert rows == want_rows, door


def test_a_window_over_the_input_reads_the_current_row_only(spark, prices):
    query = f"""SELECT * FROM {prices} MATCH_RECOGNIZE (PARTITION BY company ORDER BY day
      MEASURES count(*) AS n PATTERN (A B+)
      DEFINE B AS price > avg(A.price) OVER ())"""
    with pytest.raises(UnsupportedError) as info:
        matchrec.sql(spark, query)
    assert "A.price inside a window over the input (OVER) in DEFINE" in info.value.message
    assert info.value.pos == query.index("A.price) OVER")
