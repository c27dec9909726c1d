"""The SQL table function ``match_recognize(TABLE(t), '<clause body>')``.

Each clause runs three ways: ``matchrec.sql`` (MATCH_RECOGNIZE in a query),
``matchrec.match_recognize(df, body)`` and the registered table function through plain
``spark.sql``; rows and column names/types must agree. The typing rules of
``planner.measure_eval`` are checked against Spark's analyzer (no job runs for that).
"""

from __future__ import annotations

import functools
import json

import pytest
from matchrec.planner.measure_eval import TypeEnv, dtype, infer_type
from matchrec.planner.sqltext import MatchRecognizeDialect
from matchrec.runtime.demo import DEMO_QUERY, sample_path
from matchrec.runtime.udtf import build_program, to_spark_type, to_sqlglot_type
from pyspark.errors import AnalysisException
from pyspark.sql import DataFrame
from pyspark.sql.types import (
    ByteType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)
from sqlglot import parse_one

import matchrec
from matchrec.errors import SemanticError, UnsupportedError

ROWS = """
('a', 1, 10.0D, 5, 1.25BD, 'x'), ('a', 2, 9.0D, 6, 2.50BD, 'y'), ('a', 3, 8.0D, 7, 1.00BD, 'x'),
('a', 4, 11.0D, 8, 3.00BD, 'z'), ('a', 5, 12.0D, 1, NULL, 'x'), ('a', 6, 7.0D, 2, 0.75BD, 'y'),
('a', 7, 6.5D, 9, 0.50BD, 'y'), ('a', 8, 9.5D, 4, 1.50BD, 'z'), ('a', NULL, 3.0D, 1, 1.00BD, 'x'),
('b', 1, 5.0D, 1, 0.10BD, 'x'), ('b', 2, 4.0D, 2, 0.20BD, 'x'), ('b', 3, 6.0D, 3, NULL, 'y'),
('b', 4, 2.0D, 4, 0.40BD, 'y'), ('b', 5, NULL, 5, 0.50BD, 'z'), ('b', 6, 8.0D, 6, 0.60BD, 'x'),
(NULL, 1, 1.0D, 1, 1.00BD, 'x'), (NULL, 2, 0.5D, 2, 2.00BD, 'y'), (NULL, 3, 2.5D, 3, 3.00BD, 'z')
"""
COLUMNS = "k, o, p, v, d, s"

CLAUSES = {
    "one_row_v_shape": """
        PARTITION BY k ORDER BY o
        MEASURES FIRST(A.p) AS start_p, LAST(B.p) AS bottom, LAST(C.p) AS top,
                 count(*) AS n, sum(B.v) AS sum_v, avg(p) AS avg_p, avg(v) AS avg_v,
                 sum(d) AS sum_d, avg(d) AS avg_d, CLASSIFIER() AS cls,
                 MATCH_NUMBER() AS mno
        ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW
        PATTERN (A B+ C+)
        DEFINE B AS p < PREV(p), C AS p > PREV(p)""",
    "all_rows_unmatched_running_final": """
        PARTITION BY k ORDER BY o
        MEASURES RUNNING count(*) AS run_n, FINAL count(*) AS fin_n,
                 RUNNING LAST(p) AS run_last, FINAL LAST(p) AS fin_last,
                 FIRST(p) AS first_p, CLASSIFIER() AS cls, MATCH_NUMBER() AS mno,
                 RUNNING sum(v) AS run_sum
        ALL ROWS PER MATCH WITH UNMATCHED ROWS
        PATTERN (A B* C)
        DEFINE A AS v < 5, B AS p > PREV(p), C AS p <= PREV(p)""",
    "no_partition_match_dependent": """
        ORDER BY o DESC
        MEASURES FIRST(k) AS first_k, LAST(k) AS last_k, A.p AS a_p, count(*) AS n,
                 sum(B.v) AS sum_b, count(B.*) AS nb, max(p) AS max_p, min(s) AS min_s,
                 array_agg(v) AS vs, (SELECT count(*) FROM mr_udtf_t) AS total
        ONE ROW PER MATCH
        PATTERN (A B+)
        DEFINE A AS p > (SELECT min(p) FROM mr_udtf_t),
               B AS p < A.p AND sum(B.v) < 12""",
    "cast_and_arithmetic": """
        PARTITION BY k ORDER BY o
        MEASURES CAST(sum(v) AS DOUBLE) / count(*) AS ratio,
                 LAST(d) * 2 + 1 AS d_expr, LAST(d) / 3 AS d_div,
                 CAST(LAST(o) AS STRING) || '-' || lower(CLASSIFIER()) AS tag,
                 ROUND(avg(p), 1) AS avg_r, CAST(avg(p) AS DECIMAL(6, 2)) AS avg_dec,
                 CASE WHEN count(*) > 2 THEN 'long' ELSE 'short' END AS len,
                 LAST(upper(s)) AS up_s, FIRST(p * 2) AS p2, LAST(v) + FIRST(v) AS v2,
                 coalesce(LAST(d), 0) AS d0, TRY_CAST(LAST(s) AS INT) AS s_int,
                 LAST(v) div 2 AS v_div
        ONE ROW PER MATCH
        PATTERN (A B+)
        DEFINE A AS s = 'x', B AS p > 4.0 AND p < PREV(p)""",
}


@pytest.fixture(scope="module")
def table(spark):
    """The input views ``mr_udtf_t`` and ``ticker`` and the table function, set up once."""
    spark.sql(
        f"CREATE OR REPLACE TEMP VIEW mr_udtf_t AS SELECT * FROM VALUES {ROWS} AS t({COLUMNS})"
    )
    spark.read.csv(
        sample_path(), header=True, schema="symbol STRING, ts TIMESTAMP, price DOUBLE, volume INT"
    ).createOrReplaceTempView("ticker")
    matchrec.register(spark)
    return spark.table("mr_udtf_t")


def _fields(schema: StructType) -> list[tuple[str, str]]:
    return [(f.name, f.dataType.simpleString()) for f in schema.fields]


def _literal(text: str) -> str:
    """``text`` as a Spark SQL string literal."""
    return "'" + text.replace("\\", "\\\\").replace("'", "''") + "'"


def _call(body: str, view: str = "mr_udtf_t") -> str:
    return f"SELECT * FROM match_recognize(TABLE({view}), {_literal(body)})"


def _cases() -> dict[str, tuple[str, str]]:
    """name -> (input view, clause body): the clauses above and the demo query's."""
    start = DEMO_QUERY.index("MATCH_RECOGNIZE (") + len("MATCH_RECOGNIZE (")
    demo = DEMO_QUERY[start : DEMO_QUERY.rindex(") AS m")]
    return {**{k: ("mr_udtf_t", v) for k, v in CLAUSES.items()}, "demo": ("ticker", demo)}


CASES = _cases()


def _as_json(name: str, query: str) -> str:
    return f"SELECT '{name}' AS q, to_json(struct(*)) AS r FROM ({query})"


@pytest.fixture(scope="module")
def results(spark, table) -> dict[str, dict[str, list[str]]]:
    """door -> case -> sorted output rows as JSON; one Spark job per door for all cases."""
    doors = {
        "sql": [
            _as_json(n, f"SELECT * FROM {view} MATCH_RECOGNIZE ({body})")
            for n, (view, body) in CASES.items()
        ],
        "udtf": [_as_json(n, _call(body, view)) for n, (view, body) in CASES.items()],
    }
    out: dict[str, dict[str, list[str]]] = {}
    for door, parts in doors.items():
        run = matchrec.sql if door == "sql" else (lambda s, q: s.sql(q))
        rows = run(spark, " UNION ALL ".join(parts)).collect()
        out[door] = {n: sorted(r.r for r in rows if r.q == n) for n in CASES}
    frames = [
        matchrec.match_recognize(spark.table(view), body).selectExpr(
            f"'{n}' AS q", "to_json(struct(*)) AS r"
        )
        for n, (view, body) in CASES.items()
    ]
    rows = functools.reduce(DataFrame.unionAll, frames).collect()
    out["df"] = {n: sorted(r.r for r in rows if r.q == n) for n in CASES}
    return out


@pytest.mark.parametrize("name", list(CASES))
def test_same_as_matchrec_sql(spark, table, results, name):
    view, body = CASES[name]
    expected = matchrec.sql(spark, f"SELECT * FROM {view} MATCH_RECOGNIZE ({body})")
    via_df = matchrec.match_recognize(spark.table(view), body)
    actual = spark.sql(_call(body, view))
    assert _fields(actual.schema) == _fields(expected.schema) == _fields(via_df.schema)
    assert results["udtf"][name] == results["sql"][name] == results["df"][name]
    assert results["udtf"][name], "the clause should find something"


def test_values_of_one_clause(results):
    """Spot values, so that the doors agreeing on a wrong answer would not pass."""
    rows = [json.loads(r) for r in results["udtf"]["cast_and_arithmetic"]]
    assert sorted(rows, key=lambda r: r["tag"]) == [
        {
            "k": "a",
            "ratio": 6.0,
            "d_expr": 3.0,
            "d_div": 0.333333,
            "tag": "3-b",
            "avg_r": 9.0,
            "avg_dec": 9.0,
            "len": "long",
            "up_s": "X",
            "p2": 20.0,
            "v2": 12,
            "d0": 1.0,
            "v_div": 3,
        },
        {
            "k": "a",
            "ratio": 4.0,
            "d_expr": 2.0,
            "d_div": 0.166667,
            "tag": "7-b",
            "avg_r": 8.5,
            "avg_dec": 8.5,
            "len": "long",
            "up_s": "Y",
            "p2": 24.0,
            "v2": 10,
            "d0": 0.5,
            "v_div": 4,
        },
    ]
    assert len(results["udtf"]["demo"]) == 4


def test_unknown_label_shows_our_message(spark, table):
    body = "ORDER BY o MEASURES LAST(X.p) AS x PATTERN (A B) DEFINE B AS p < PREV(p)"
    with pytest.raises(AnalysisException) as info:
        spark.sql(_call(body))
    text = str(info.value)
    assert "TABLE_VALUED_FUNCTION_FAILED_TO_ANALYZE_IN_PYTHON" in text
    assert "semantic error: unknown pattern variable 'X'" in text
    assert "hint: pattern variables: A, B" in text


def test_partition_by_in_the_call_is_rejected(spark, table):
    body = "PARTITION BY k ORDER BY o MEASURES count(*) AS n PATTERN (A+) DEFINE A AS v > 1"
    query = f"SELECT * FROM match_recognize(TABLE(mr_udtf_t) PARTITION BY (k), '{body}')"
    with pytest.raises(AnalysisException, match="REQUIRED_METADATA_INCOMPATIBLE_WITH_CALL"):
        spark.sql(query)


# ------------------------------------------------------------------ analysis only (no job)

INPUT = StructType(
    [
        StructField("k", StringType()),
        StructField("o", IntegerType()),
        StructField("p", DoubleType()),
        StructField("v", IntegerType()),
        StructField("d", DecimalType(10, 2)),
        StructField("s", StringType()),
        StructField("b", LongType()),
        StructField("t", ByteType()),
        StructField("f", FloatType()),
        StructField("ts", TimestampType()),
    ]
)


def test_untypable_measure_asks_for_a_cast():
    body = "ORDER BY o MEASURES LAST(ts) - FIRST(ts) AS span PATTERN (A+) DEFINE A AS v > 0"
    with pytest.raises(UnsupportedError) as info:
        build_program(body, INPUT)
    assert info.value.column == body.index("LAST(ts)") + 1
    assert "CAST" in str(info.value) and "matchrec.sql" in str(info.value)


def test_unsupported_glue_in_measure():
    body = "ORDER BY o MEASURES md5(LAST(s)) AS r PATTERN (A+) DEFINE A AS v > 0"
    with pytest.raises(UnsupportedError, match=r"LAST\(upper\(x\)\)"):
        build_program(body, INPUT)


def test_unknown_column_is_our_error():
    with pytest.raises(SemanticError, match="unknown column 'nope'"):
        build_program("ORDER BY o MEASURES LAST(nope) AS x PATTERN (A)", INPUT)


EXPRESSIONS = [
    "o + 1",
    "o + b",
    "o + p",
    "t * t",
    "f + o",
    "f * p",
    "o / 2",
    "d + o",
    "d + 1",
    "d * d",
    "d / o",
    "d / 3",
    "d % 3",
    "d - b",
    "d * p",
    "o div 2",
    "t + f",
    "o + f",
    "f + f",
    "f / f",
    "f % 2",
    "f + d",
    "coalesce(f, o)",
    "coalesce(o, 1.5)",
    "coalesce(t, d)",
    "coalesce(b, d)",
    "t + t",
    "t + 1",
    "o + 1L",
    "abs(f)",
    "round(f, 1)",
    "floor(f)",
    "d div 2",
    "1.5",
    "0.05",
    "12345678901",
    "-7",
    "o * 1.5",
    "abs(d)",
    "floor(d)",
    "ceil(p)",
    "round(d, 1)",
    "round(p, 1)",
    "round(o)",
    "sqrt(o)",
    "sign(d)",
    "coalesce(o, b)",
    "coalesce(d, 1)",
    "greatest(o, p)",
    "CASE WHEN o > 1 THEN d ELSE o END",
    "CASE WHEN o > 1 THEN d ELSE 1.5 END",
    "if(o > 1, o, NULL)",
    "upper(s)",
    "length(s)",
    "s || 'x'",
    "concat(s, 'y')",
    "substr(s, 1, 2)",
    "year(ts)",
    "CAST(o AS DECIMAL(5,1))",
    "CAST(p AS DECIMAL)",
    "CAST(o AS VARCHAR(3))",
    "TRY_CAST(s AS INT)",
    "o = 1 AND s IS NULL",
    "sum(o)",
    "sum(d)",
    "avg(d)",
    "avg(o)",
    "sum(p)",
    "count(s)",
    "min(d)",
    "max_by(s, o)",
    "collect_list(d)",
    "bool_and(o > 1)",
    "count_if(o > 1)",
]


def test_inferred_types_match_spark(spark):
    env = TypeEnv({f.name: to_sqlglot_type(f.dataType) for f in INPUT.fields})
    empty = spark.createDataFrame([], INPUT)
    plain = [e for e in EXPRESSIONS if not _is_aggregate(e)]
    aggregates = [e for e in EXPRESSIONS if _is_aggregate(e)]
    expected = [f.dataType for f in empty.selectExpr(*plain).schema.fields]
    expected += [f.dataType for f in empty.selectExpr(*aggregates).schema.fields]
    mismatches = []
    for text, want in zip(plain + aggregates, expected):
        inferred = infer_type(parse_one(text, read=MatchRecognizeDialect), env)
        got = to_spark_type(inferred) if inferred is not None else None
        if got is None or got.simpleString() != want.simpleString():
            mismatches.append((text, got and got.simpleString(), want.simpleString()))
    assert not mismatches


def _is_aggregate(text: str) -> bool:
    return text.split("(")[0] in {
        "sum",
        "avg",
        "count",
        "min",
        "max_by",
        "collect_list",
        "bool_and",
        "count_if",
    }


def test_types_round_trip():
    for f in INPUT.fields:
        assert to_spark_type(to_sqlglot_type(f.dataType)) == f.dataType
    assert to_spark_type(dtype("array<decimal(12,2)>")).simpleString() == "array<decimal(12,2)>"


def test_matchrec_sql_shows_the_table_functions_error_with_a_caret_in_the_query(spark, table):
    """Through matchrec.sql, an error in the table function's body is our error, first,
    with the caret in the user's query, not Spark's error quoting a worker traceback."""
    body = "ORDER BY o\n  MEASURES LAST(X.p) AS x\n  PATTERN (A B)\n  DEFINE B AS p < PREV(p)"
    query = "SELECT *\nFROM " + _call(body).removeprefix("SELECT * FROM ")
    with pytest.raises(SemanticError) as info:
        matchrec.sql(spark, query)
    err = info.value
    assert err.message == "unknown pattern variable 'X'"
    assert err.sql == query
    assert (err.line, err.column) == (3, query.splitlines()[2].index("X.p") + 1)
    assert "TABLE_VALUED_FUNCTION" not in str(err) and "Traceback" not in str(err)
    # a correct call goes through matchrec.sql as through spark.sql
    good = _call(body.replace("X.p", "B.p"))
    assert matchrec.sql(spark, good).collect() == spark.sql(good).collect()
