"""Spark SQL's operators and literals in MEASURES and DEFINE give Spark's answers.

Each expression is written over a column (``{v}``) and evaluated four ways: in MEASURES
and in a row-local DEFINE (Spark computes it), and over ``FIRST(A.v)``, a value of
another row of the match, in DEFINE (the matcher's Python glue computes it) and in
MEASURES. The answers are compared with ``spark.sql`` over the same rows.
"""

from __future__ import annotations

import pytest
import sqlglot
from matchrec.planner.sqltext import MatchRecognizeDialect

import matchrec

_VIEW = "mr_operators"
_ROWS = [(1, 8), (2, 16), (3, -4), (4, 33), (5, 7), (6, 1)]

EXPRESSIONS = [
    # shifts: Spark's unsigned shift right, and each level of Spark's precedence
    "{v} >>> 1",
    "CAST({v} AS BIGINT) >>> 1",
    "CAST({v} AS TINYINT) >>> 1",
    "{v} >>> 1 > 2",
    "{v} << 2",
    "{v} >> 1",
    "1 | {v} >> 1",
    "4 | {v} & 2",
    "{v} ^ 3 & 1",
    "{v} & 3 << 1",
    "{v} | 1",
    "~{v}",
    # binary literals, with and without spaces, either case
    "hex(X '10') || {v}",
    "hex(x '0a') || {v}",
    "hex(X'0A') || {v}",
    "X '0A' <=> x'0a'",
    # the other operators and typed literals
    "'7'::int + {v}",
    "{v}::string",
    "'a' || {v}",
    "{v} <=> 8",
    "{v} != 8",
    "{v} == 8",
    "{v} DIV 3",
    "{v} % 3",
    "DATE '2020-01-01' + {v}",
    "TIMESTAMP_NTZ '2020-01-01 00:00:00' + make_interval(0, 0, 0, {v})",
    "INTERVAL '1-2' YEAR TO MONTH * {v}",
    "1Y + {v}",
    "1S + {v}",
    "1L + {v}",
    "1BD + {v}",
    "1.5D + {v}",
    "1e3F + {v}",
    ".5 + {v}",
    # a literal of several units is one value (sqlglot: a sum, multiplied by its last part)
    "INTERVAL 1 DAY 2 HOURS * {v}",
    "TIMESTAMP '2020-01-01 00:00:00' + INTERVAL 1 DAY 3 HOURS * {v}",
]


@pytest.fixture(scope="module")
def values(spark):
    rows = ", ".join(f"({i}, {v})" for i, v in _ROWS)
    spark.sql(f"CREATE OR REPLACE TEMP VIEW {_VIEW} AS SELECT * FROM VALUES {rows} AS t(id, v)")


def _spark(spark, expr: str) -> list[tuple]:
    """Spark's value of ``expr`` on each row (as a string), and on the row before."""
    text = f"CAST(({expr.format(v='v')}) AS STRING)"
    return [
        tuple(r)
        for r in spark.sql(
            f"SELECT id, v, {text} AS e, lag({text}) OVER (ORDER BY id) AS before "
            f"FROM {_VIEW} ORDER BY id"
        ).collect()
    ]


@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_an_operator_gives_sparks_answer_in_measures_and_define(spark, values, expr):
    expected = _spark(spark, expr)
    rows = ", ".join(f"({i}, {v}, {_lit(e)}, {_lit(b)})" for i, v, e, b in expected)
    source = f"(SELECT * FROM VALUES {rows} AS t(id, v, e, before))"
    on_row = f"CAST(({expr.format(v='A.v')}) AS STRING)"
    # every row is an A: its own value as Spark computes it in DEFINE and in MEASURES
    query = f"""SELECT id, x FROM {source} MATCH_RECOGNIZE (ORDER BY id
        MEASURES {on_row} AS x ALL ROWS PER MATCH PATTERN (A)
        DEFINE A AS {on_row} <=> A.e)"""
    got = sorted(map(tuple, matchrec.sql(spark, query).collect()))
    assert got == [(i, e) for i, _, e, _ in expected]
    # A B pairs: B holds when the glue's value of FIRST(A.v) is Spark's value of A's row
    on_first = f"CAST(({expr.format(v='FIRST(A.v)')}) AS STRING)"
    query = f"""SELECT * FROM {source} MATCH_RECOGNIZE (ORDER BY id
        MEASURES A.id AS a, {on_first} AS x PATTERN (A B)
        DEFINE B AS {on_first} <=> B.before)"""
    got = sorted(map(tuple, matchrec.sql(spark, query).collect()))
    assert got == [(i, e) for i, _, e, _ in expected[0::2]]


def _lit(text: str | None) -> str:
    return "NULL" if text is None else "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        ("a | b >> c", "a | SHIFTRIGHT(b, c)"),
        ("a | b & c", "a | b & c"),
        ("a & b << c", "a & SHIFTLEFT(b, c)"),
        ("a >>> b >>> c", "SHIFTRIGHTUNSIGNED(SHIFTRIGHTUNSIGNED(a, b), c)"),
        ("a + b >>> c", "SHIFTRIGHTUNSIGNED(a + b, c)"),
        ("INTERVAL 1 DAY 2 HOURS * v", "(INTERVAL '1' DAY + INTERVAL '2' HOURS) * v"),
    ],
)
def test_spark_operator_precedence(text, tree):
    assert sqlglot.parse_one(text, read=MatchRecognizeDialect).sql(MatchRecognizeDialect) == tree


def test_concatenation_binds_as_addition():
    """``'a' || 1 + 2`` is ``('a' || 1) + 2`` in Spark (sqlglot: ``'a' || (1 + 2)``)."""
    tree = sqlglot.parse_one("'a' || 1 + 2", read=MatchRecognizeDialect)
    assert isinstance(tree, sqlglot.exp.Add) and isinstance(tree.this, sqlglot.exp.DPipe)


def test_a_variant_path_gives_sparks_answer(spark):
    """``v:a.b[0]``, Spark's path into a VARIANT, in MEASURES, in a row-local DEFINE and
    beside a navigation (``FIRST(A.j):a``)."""
    spark.sql(
        """CREATE OR REPLACE TEMP VIEW mr_variant AS SELECT id, parse_json(s) AS j FROM VALUES
          (1, '{"a": 1, "b": {"c": [10, 20]}}'), (2, '{"a": 5, "b": {"c": [30]}}'),
          (3, '{"a": 2, "b": {"c": []}}'), (4, '{"a": 0, "b": {}}') AS t(id, s)"""
    )
    expected = spark.sql(
        "SELECT id, j:a::int, CAST(j:b.c[0] AS INT), CAST(j:['a'] AS INT) FROM mr_variant "
        "WHERE j:a::int > 0"
    ).collect()
    got = matchrec.sql(
        spark,
        """SELECT id, a, c0, q FROM mr_variant MATCH_RECOGNIZE (ORDER BY id
          MEASURES A.j:a::int AS a, CAST(A.j:b.c[0] AS INT) AS c0, CAST(A.j:['a'] AS INT) AS q
          ALL ROWS PER MATCH PATTERN (A) DEFINE A AS A.j:a::int > 0)""",
    ).collect()
    assert sorted(map(tuple, got)) == sorted(map(tuple, expected))
    # A then B rows whose a exceeds A's: 1 -> 5, 2 (then 0 ends it)
    got = matchrec.sql(
        spark,
        """SELECT * FROM mr_variant MATCH_RECOGNIZE (ORDER BY id
          MEASURES FIRST(A.id) AS f, count(*) AS n, CAST(LAST(B.j):a AS INT) AS last_a
          PATTERN (A B+) DEFINE B AS B.j:a::int > FIRST(A.j):a::int)""",
    ).collect()
    assert [tuple(r) for r in got] == [(1, 3, 2)]


#: an operand that fails (``arr[0]`` of an empty array under ANSI mode) beside one that
#: is NULL: Spark's generated code reads a binary operator's left operand first and
#: stops at a NULL, a division's divisor first; each odd row is an A row
#: with the values read, each even one a B row (whose values never fail)
_ORDERED = [(1, "CAST(NULL AS INT)", "array()"), (3, "2", "array(5)"), (5, "4", "array(7)")]
ORDERED = [
    ("{n} * {arr}[0]", "answers"),
    ("{n} - {arr}[0] > 1", "answers"),
    ("{n} >= {arr}[0]", "answers"),
    ("{arr}[0] / {n}", "answers"),
    ("{arr}[0] % {n}", "answers"),
    ("{arr}[0] DIV {n}", "answers"),
    ("{arr}[0] * {n}", "fails"),
    ("{n} / {arr}[0]", "fails"),
    ("{n} || {arr}[0]", "answers"),
    ("coalesce({n}, 1) + {arr}[0]", "fails"),
    ("{n} IN (1, {arr}[0])", "answers"),
    ("coalesce({n}, 0) IN (0, {arr}[0])", "answers"),
    ("coalesce({n}, 0) IN ({arr}[0], 0)", "fails"),
    ("{n} BETWEEN {arr}[0] AND {arr}[1]", "answers"),
    ("coalesce({n}, 0) BETWEEN 1 AND {arr}[0]", "answers"),
    ("CASE {n} WHEN {arr}[0] THEN 'x' ELSE 'y' END", "answers"),
]


@pytest.mark.parametrize(("expr", "outcome"), ORDERED)
def test_an_operator_reads_its_operands_in_sparks_order(spark, expr, outcome):
    """``A.n * A.arr[0]`` is NULL for a NULL ``A.n`` however short ``A.arr`` is, in Spark:
    the matcher's glue (DEFINE over another row's values, the table function's MEASURES)
    does not read the other operand either, and fails where Spark does."""
    rows = ", ".join(f"({i}, {n}, {arr}), ({i + 1}, 2, array(0))" for i, n, arr in _ORDERED)
    # a repartition keeps Spark from folding the rows in its interpreter, which reads
    # every argument of concat: Spark's answer over a table is its generated code's
    source = f"(SELECT /*+ REPARTITION(1) */ * FROM VALUES {rows} AS t(id, n, arr))"
    plain = f"SELECT id, {expr.format(n='n', arr='arr')} AS x FROM {source} WHERE id % 2 = 1"
    measure = expr.format(n="FIRST(A.n)", arr="FIRST(A.arr)")
    body = (
        f"ORDER BY id MEASURES A.id AS id, {measure} AS x ONE ROW PER MATCH "
        f"PATTERN (A B) DEFINE B AS ({measure}) IS NULL OR B.id > 0"
    )
    quoted = body.replace("'", "\\'")
    matchrec.register(spark)
    doors = [
        lambda: spark.sql(plain),
        lambda: matchrec.sql(spark, f"SELECT * FROM {source} MATCH_RECOGNIZE ({body})"),
        lambda: spark.sql(f"SELECT * FROM match_recognize(TABLE{source}, '{quoted}')"),
    ]
    if outcome == "fails":
        for door in doors:
            with pytest.raises(Exception, match="INVALID_ARRAY_INDEX"):
                door().collect()
        return
    expected = sorted(map(tuple, doors[0]().collect()))
    assert len(expected) == 3
    for door in doors[1:]:
        assert sorted(map(tuple, door().collect())) == expected


CALLS = [
    ("date_add(DATE'2024-01-01' + {n}, {arr}[0])", "answers"),
    ("substring('abcdef', {n}, {arr}[0])", "answers"),
    ("pow({n}, {arr}[0])", "answers"),
    ("left(repeat('x', {n}), {arr}[0])", "answers"),
    ("concat(CAST({n} AS STRING), CAST({arr}[0] AS STRING))", "answers"),
    ("map_concat(if({n} IS NULL, NULL, map('a', 1)), map('b', {arr}[0]))", "answers"),
    ("nvl2({n}, {arr}[0], 1)", "answers"),
    ("nullif({n}, {arr}[0])", "answers"),
    ("elt({n} DIV 2, 'a', CAST({arr}[0] AS STRING))", "answers"),
    ("nanvl({n} * 1.5D, {arr}[0] * 1.5D)", "answers"),
    ("shiftleft({n}, {arr}[0])", "answers"),
    ("{n} >> {arr}[0]", "answers"),
    ("pow({arr}[0], {n})", "fails"),
    ("concat_ws(',', CAST({n} AS STRING), CAST({arr}[0] AS STRING))", "fails"),
    ("greatest({n}, {arr}[0])", "fails"),
]


@pytest.mark.parametrize(("expr", "outcome"), CALLS)
def test_a_function_reads_its_arguments_in_sparks_order(spark, expr, outcome):
    """Spark's functions that are NULL for a NULL argument read their arguments in order
    and stop at a NULL (``concat`` too, in its generated code); nvl2 and nullif are
    Spark's IF of their first argument; others read all (``greatest``, ``concat_ws``)."""
    test_an_operator_reads_its_operands_in_sparks_order(spark, expr, outcome)
