"""The SQL table function ``match_recognize(TABLE(t), '<clause body>')``.

Each clause runs three ways: ``matchrec.sql`` (MATCH_RECOGNIZE in a query),
``matchrec.match_recognize(df, body)`` and the registered table function through plain
``spark.sql``; rows and column names/types must agree. The typing rules of
``planner.measure_eval`` are checked against Spark's analyzer (no job runs for that).
"""

from __future__ import annotations

import functools
import json
import re

import pytest
from matchrec.planner.measure_eval import TypeEnv, dtype, infer_type, interval_text
from matchrec.planner.sqltext import MatchRecognizeDialect
from matchrec.runtime.demo import DEMO_QUERY, sample_path
from matchrec.runtime.session import session_settings
from matchrec.runtime.udtf import build_program, to_spark_type, to_sqlglot_type
from pyspark.errors import (
    AnalysisException,
    ArithmeticException,
    ArrayIndexOutOfBoundsException,
    DateTimeException,
    IllegalArgumentException,
    NumberFormatException,
    PySparkException,
    PythonException,
    SparkRuntimeException,
)
from pyspark.sql import DataFrame
from pyspark.sql.types import (
    ArrayType,
    BooleanType,
    ByteType,
    DateType,
    DayTimeIntervalType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    MapType,
    ShortType,
    StringType,
    StructField,
    StructType,
    TimestampNTZType,
    TimestampType,
    VariantVal,
)
from sqlglot import parse_one

import matchrec
from matchrec.errors import MatchRuntimeError, SemanticError, UnsupportedError

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


def test_small_arrow_batches_give_the_same_rows(spark, table, results):
    """Batches of two rows: partitions that span batches and batches that hold several
    partitions (the row-number check and the matcher's hand-over between batches)."""
    query = " UNION ALL ".join(_as_json(n, _call(body, view)) for n, (view, body) in CASES.items())
    with session_settings(spark, {"spark.sql.execution.arrow.maxRecordsPerBatch": "2"}):
        rows = spark.sql(query).collect()
    for name in CASES:
        assert sorted(r.r for r in rows if r.q == name) == results["sql"][name], name


def test_timestamp_casts_in_another_session_time_zone(spark, table):
    """Casts between TIMESTAMP, TIMESTAMP_NTZ and DATE in a measure computed in Python
    read and give wall-clock times in the session's time zone, as Spark's CAST (they
    used UTC's), with or without a TIMESTAMP column in the input."""
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW mr_udtf_tz AS SELECT * FROM VALUES "
        "('a', timestamp'2024-01-01 23:30:00', 1), ('a', timestamp'2024-01-02 01:30:00', 2) "
        "AS t(k, ts, v)"
    )
    body = (
        "PARTITION BY k ORDER BY v MEASURES CAST(LAST(ts) AS TIMESTAMP_NTZ) AS ntz, "
        "CAST(FIRST(ts) AS DATE) AS d, LAST(ts) - FIRST(ts) AS span, "
        "CAST(CAST(LAST(ts) AS DATE) AS TIMESTAMP) AS midnight, "
        "CAST(CAST(LAST(ts) AS TIMESTAMP_NTZ) AS TIMESTAMP) AS back "
        "PATTERN (A+) DEFINE A AS true"
    )
    # the same clause over dates and wall-clock times only (no TIMESTAMP column)
    local = body.replace("(ts)", "(tn)").replace("LAST(tn) - FIRST(tn)", "count(*)")
    for zone in ("America/New_York", "+05:30"):
        with session_settings(spark, {"spark.sql.session.timeZone": zone}):
            spark.sql(
                "CREATE OR REPLACE TEMP VIEW mr_udtf_ntz AS SELECT k, CAST(ts AS "
                "TIMESTAMP_NTZ) AS tn, v FROM mr_udtf_tz"
            )
            for view, clause in (("mr_udtf_tz", body), ("mr_udtf_ntz", local)):
                query = f"SELECT * FROM {view} MATCH_RECOGNIZE ({clause})"
                expected = matchrec.sql(spark, query).collect()
                assert spark.sql(_call(clause, view)).collect() == expected, (zone, view)
    with session_settings(spark, {"spark.sql.session.timeZone": "America/New_York"}):
        ntz = matchrec.sql(spark, f"SELECT * FROM mr_udtf_tz MATCH_RECOGNIZE ({body})")
        assert str(ntz.first().ntz) == "2024-01-01 20:30:00"  # 01:30 UTC in New York


def test_with_timeouts_is_refused_with_a_caret(spark, table):
    """WITH TIMEOUTS' rows (and match_status) come from matchrec.sql only: the table
    function says so, where it gave the matched rows alone, silently."""
    body = (
        "PARTITION BY k ORDER BY o MEASURES count(*) AS n ONE ROW PER MATCH WITH TIMEOUTS "
        "PATTERN (A B) DEFINE A AS v > 1, B AS v > 2"
    )
    with pytest.raises(UnsupportedError) as info:
        build_program(body, INPUT)
    assert "WITH TIMEOUTS is not available in the table function" in info.value.message
    assert body[info.value.pos :].startswith("TIMEOUTS")
    with pytest.raises(AnalysisException, match="not available in the table function"):
        spark.sql(_call(body))


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
    err = info.value  # Spark's error of the worker's analysis, raised as ours (worker_errors)
    assert isinstance(err, SemanticError)
    assert err.getCondition() == "TABLE_VALUED_FUNCTION_FAILED_TO_ANALYZE_IN_PYTHON"
    text = str(err)
    assert text.startswith("semantic error: X is not a primary pattern variable or subset name")
    assert "hint: pattern variables: A, B" in text and "Traceback" not in text
    assert err.sql[err.pos :].startswith("X.p")


@pytest.mark.parametrize(
    "rows, measure",
    [("ALL ROWS PER MATCH", "LAST(B.p) AS P"), ("ONE ROW PER MATCH", "LAST(B.o) AS k")],
)
def test_a_measure_named_as_a_carried_column_is_our_error(spark, table, rows, measure):
    """matchrec.sql returns both columns of the name (as Trino); the table function's
    rows cannot hold them: a positioned error before any job, where Spark's Arrow reader
    failed the job with an IllegalArgumentException."""
    body = (
        f"PARTITION BY k ORDER BY o MEASURES {measure} {rows} PATTERN (A B) DEFINE B AS p < PREV(p)"
    )
    query = f"SELECT * FROM mr_udtf_t MATCH_RECOGNIZE ({body})"
    name = measure.split()[-1]
    assert [c.lower() for c in matchrec.sql(spark, query).columns].count(name.lower()) == 2
    with pytest.raises(SemanticError) as info:
        build_program(body, INPUT)
    assert f"measure {name!r} has the name of input column" in info.value.message
    assert body[info.value.pos :].startswith(name)
    assert "matchrec.sql" in info.value.hint
    with pytest.raises(AnalysisException, match="the table function cannot return two"):
        spark.sql(_call(body))


@pytest.mark.parametrize(
    ("keys", "culprit", "where"),
    [
        ("ORDER BY o, o DESC", "o DESC", "in ORDER BY"),
        ("PARTITION BY k ORDER BY o, K", "K", "in PARTITION BY and ORDER BY"),
    ],
)
def test_a_column_ordered_twice_in_all_rows_is_our_error(spark, table, keys, culprit, where):
    """Trino's output layout repeats a column that ORDER BY names twice, and so does
    matchrec.sql; the table function's rows cannot hold it twice: a positioned error
    before any job (the job failed in Spark's Arrow reader). ONE ROW PER MATCH, which
    outputs no ORDER BY column, takes it."""
    body = f"{keys} MEASURES CLASSIFIER() AS c ALL ROWS PER MATCH PATTERN (A) DEFINE A AS true"
    query = f"SELECT * FROM mr_udtf_t MATCH_RECOGNIZE ({body})"
    name = culprit.split()[0].lower()
    assert [c.lower() for c in matchrec.sql(spark, query).columns].count(name) == 2
    with pytest.raises(SemanticError) as info:
        build_program(body, INPUT)
    assert f"column {name!r} is named twice {where}" in info.value.message
    assert body[info.value.pos :].startswith(culprit)
    one_row = body.replace("ALL ROWS PER MATCH", "ONE ROW PER MATCH")
    assert spark.sql(_call(one_row)).count() == 18


def test_partition_by_in_the_call(spark, table):
    """PARTITION BY belongs in the string. Written after TABLE(t) as well, the same keys
    give the same rows; other keys split the clause's partitions, which fails the query
    with matchrec's message (never rows matched out of order); with no ORDER BY in the
    clause Spark itself refuses the call."""
    body = "PARTITION BY k ORDER BY o MEASURES count(*) AS n PATTERN (A+) DEFINE A AS v > 1"
    same = f"SELECT * FROM match_recognize(TABLE(mr_udtf_t) PARTITION BY (k), '{body}')"
    expected = matchrec.sql(spark, f"SELECT * FROM mr_udtf_t MATCH_RECOGNIZE ({body})")
    assert sorted(spark.sql(same).collect(), key=repr) == sorted(expected.collect(), key=repr)
    other = f"SELECT * FROM match_recognize(TABLE(mr_udtf_t) PARTITION BY (s), '{body}')"
    with pytest.raises(Exception, match="split or out of ORDER BY order") as info:
        spark.sql(other).collect()
    assert "go inside the clause string, not after TABLE(t)" in str(info.value)
    unordered = body.replace(" ORDER BY o", "")
    query = f"SELECT * FROM match_recognize(TABLE(mr_udtf_t) PARTITION BY (s), '{unordered}')"
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


@pytest.mark.parametrize(
    ("measure", "says"),
    [
        ("FIRST(utm.campain)", "utm has no field campain (its fields: campaign, source)"),
        ("upper(LAST(B.utm.campain))", "utm has no field campain"),
        ("LAST(geo.at.lat)", "geo.at has no field lat (its fields: la, lo)"),
        # a lambda's parameter named like the struct column is no column
        ("transform(array(LAST(geo)), utm -> utm.at.la)", None),
    ],
)
def test_a_misspelled_struct_field_in_a_measure_is_named(measure, says):
    """The table function said only that it cannot infer the measure's type, and asked
    for a CAST, which would not mend the typo (or, under a function that types any
    argument, failed in Spark's analysis of its input)."""
    structs = StructType(
        [
            *INPUT.fields,
            StructField(
                "utm",
                StructType(
                    [StructField("campaign", StringType()), StructField("source", StringType())]
                ),
            ),
            StructField(
                "geo",
                StructType(
                    [
                        StructField(
                            "at",
                            StructType(
                                [StructField("la", DoubleType()), StructField("lo", DoubleType())]
                            ),
                        )
                    ]
                ),
            ),
        ]
    )
    body = f"ORDER BY o MEASURES {measure} AS u PATTERN (A B*) DEFINE A AS v > 0"
    if says is None:
        build_program(body, structs)
        return
    with pytest.raises(SemanticError, match=re.escape(says)):
        build_program(body, structs)


@pytest.mark.parametrize("measure", ["my_udf(LAST(s))", "my_udf(B.s, 1)", "my_udf(FIRST(s)) + 1"])
def test_untypable_measure_asks_for_a_cast(measure):
    """A measure of a session UDF of one row (the table function has no session to ask
    its type of) names the function and asks for a CAST, which makes it work."""
    body = f"ORDER BY o MEASURES {measure} AS u PATTERN (A B*) DEFINE A AS v > 0"
    with pytest.raises(UnsupportedError) as info:
        build_program(body, INPUT)
    assert info.value.column == body.index("my_udf") + 1 - (measure.index("my_udf"))
    assert "CAST" in str(info.value) and "matchrec.sql" in str(info.value)
    assert "my_udf() is no function it knows the type of" in str(info.value)


@pytest.mark.parametrize(
    ("measure", "meant"),
    [("MATCHNUMBER()", "match_number"), ("collectlist(B.s)", "collect_list")],
)
def test_a_misspelled_function_in_the_table_function_names_the_one_meant(measure, meant):
    body = f"ORDER BY o MEASURES {measure} AS u PATTERN (A B*) DEFINE A AS v > 0"
    with pytest.raises(UnsupportedError) as info:
        build_program(body, INPUT)
    assert f"did you mean {meant}()?" in str(info.value)


def test_a_spark_function_sqlglot_does_not_know_is_not_called_misspelled():
    """array_repeat is Spark's (sqlglot keeps it as written): of a NULL it has no element
    type here, which the error says rather than suggesting another function."""
    body = "ORDER BY o MEASURES array_repeat(NULL, FIRST(v)) AS u PATTERN (A B*) DEFINE A AS v > 0"
    with pytest.raises(UnsupportedError) as info:
        build_program(body, INPUT)
    assert "array_repeat() is a function whose result type it does not know" in str(info.value)
    assert "did you mean" not in str(info.value)


@pytest.mark.parametrize(
    ("define", "operand", "shown"),
    [
        ("d AND v > 0", "d", "DECIMAL(10,2)"),
        ("NOT v", "v", "INT"),
        ("v > 0 OR s", "s", "STRING"),
        ("v > 0 AND A.s", "A.s", "STRING"),
    ],
)
def test_an_operand_of_and_or_not_that_is_no_boolean_is_our_error(define, operand, shown):
    """Through the table function Spark's DATATYPE_MISMATCH came with the plan of the
    lateral join and no position; a string is refused as in the other doors."""
    body = f"ORDER BY o MEASURES count(*) AS n PATTERN (A B) DEFINE B AS {define}"
    with pytest.raises(SemanticError) as info:
        build_program(body, INPUT)
    assert f"takes BOOLEAN operands, not {shown} ({operand})" in info.value.message
    assert body[info.value.pos :].startswith(operand)


@pytest.mark.parametrize(
    ("measure", "operand"), [("FIRST(A.s) > 5", "FIRST(A.s)"), ("LAST(v) = FIRST(s)", "FIRST(s)")]
)
def test_a_string_compared_with_a_number_in_a_measure_is_our_error(measure, operand):
    """As through matchrec.sql: where Spark would cast the string while the query runs,
    a positioned error when the query is built (the table function raised Python's
    TypeError for >, and computed = without Spark's cast)."""
    body = f"PARTITION BY k ORDER BY o MEASURES {measure} AS m PATTERN (A B) DEFINE B AS true"
    with pytest.raises(SemanticError) as info:
        build_program(body, INPUT)
    err = info.value
    assert f"mixes {operand} (STRING)" in err.message and "in MEASURES" in err.message
    assert body[err.pos :].startswith(operand)


def test_unsupported_glue_in_measure():
    body = (
        "ORDER BY o MEASURES sentences(concat(FIRST(s), LAST(s))) AS r PATTERN (A+) "
        "DEFINE A AS v > 0"
    )
    with pytest.raises(UnsupportedError, match=r"LAST\(upper\(x\)\)"):
        build_program(body, INPUT)


INTERVALS = [
    "TIMESTAMP'2024-01-02 11:30:00.5' - TIMESTAMP'2024-01-01 10:00:00'",
    "TIMESTAMP'2024-01-01 10:00:00' - TIMESTAMP'2024-01-02 11:30:00.25'",
    "DATE'2024-01-01' - DATE'2024-02-05'",
    "INTERVAL '90' MINUTE",
    "INTERVAL '-2' HOUR",
    "INTERVAL '1 02' DAY TO HOUR",
    "INTERVAL '02:03:04.5' HOUR TO SECOND",
    "INTERVAL '3.25' SECOND",
    "INTERVAL '03:04' MINUTE TO SECOND",
    "INTERVAL '-1 02:03' DAY TO MINUTE",
    "INTERVAL '100000 00:00:00' DAY TO SECOND",
]


def test_interval_text_is_sparks_cast_to_string(spark):
    """A measure's CAST of a day-time interval to STRING (``CAST(LAST(ts) - FIRST(ts)
    AS STRING)``) is written from its value and its type's fields, as Spark writes it."""
    frame = spark.sql("SELECT " + ", ".join(f"{e} AS c{i}" for i, e in enumerate(INTERVALS)))
    texts = spark.sql(
        "SELECT " + ", ".join(f"CAST({e} AS STRING) AS c{i}" for i, e in enumerate(INTERVALS))
    ).first()
    names = ["DAY", "HOUR", "MINUTE", "SECOND"]
    for field, value, text in zip(frame.schema.fields, frame.first(), texts):
        start, end = names[field.dataType.startField], names[field.dataType.endField]
        assert interval_text(value, start, end) == text


def test_a_call_the_measure_cannot_compute_is_named_and_placed_as_written():
    """sqlglot reads parse_json() as its ParseJSON node: the error names the call the
    user wrote and puts the caret under it, not at the start of the measure."""
    body = (
        "ORDER BY o MEASURES LAST(s) AS l, upper(FIRST(s)) || parse_json(concat(FIRST(s), "
        "count(*))) AS r PATTERN (A+) DEFINE A AS v > 0"
    )
    with pytest.raises(UnsupportedError, match=r"cannot evaluate parse_json\(\)") as info:
        build_program(body, INPUT)
    assert info.value.column == body.index("parse_json") + 1


def test_a_lambda_with_too_many_parameters_in_a_measure_is_our_error():
    """A higher-order function of two rows runs in the table function's evaluator: a
    lambda Spark would refuse is refused there, at the measure (``exists(array, x ->
    ...)`` is Spark's higher-order function, never EXISTS of a subquery)."""
    body = (
        "ORDER BY o MEASURES exists(array(FIRST(v), LAST(v)), (x, i) -> x > i) AS e "
        "PATTERN (A+) DEFINE A AS v > 0"
    )
    with pytest.raises(SemanticError, match="the lambda of exists.. takes one") as info:
        build_program(body, INPUT)
    assert info.value.column == body.index("x, i") + 1  # at the lambda


def test_non_null_preserving_function_of_a_row_an_empty_match_lacks_is_refused():
    """to_csv of a struct of NULL is not NULL: with no row to read f(NULL) at (A*
    matches empty), the call is not moved inside the navigation and the table function
    says so. ``hash`` and ``to_json`` are computed over the match's values by the table
    function itself: hash(NULL) is its seed, 42, as in Spark."""
    body = (
        "ORDER BY o MEASURES to_csv(named_struct('a', FIRST(A.s))) AS h PATTERN (A*) "
        "DEFINE A AS v > 0"
    )
    with pytest.raises(UnsupportedError, match="cannot evaluate") as info:
        build_program(body, INPUT)
    assert info.value.column == body.index("to_csv") + 1
    build_program(body.replace("to_csv", "to_json"), INPUT)
    build_program(body.replace("(A*)", "(A+)"), INPUT)
    build_program("ORDER BY o MEASURES hash(FIRST(A.s)) AS h PATTERN (A*) DEFINE A AS v > 0", INPUT)


def test_late_rows_are_refused_by_the_table_function():
    body = "ORDER BY o ALL ROWS PER MATCH WITH LATE ROWS PATTERN (A+) DEFINE A AS v > 0"
    with pytest.raises(UnsupportedError, match="matchrec.sql") as info:
        build_program(body, INPUT)
    assert info.value.column == body.index("LATE ROWS") + 1


def test_unknown_column_is_our_error():
    with pytest.raises(SemanticError, match="Column 'nope' cannot be resolved"):
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
    "t << 2",  # Spark shifts a TINYINT as an INT (was typed TINYINT, its result wrapped)
    "shiftright(t, 1)",
    "shiftrightunsigned(t, 1)",
    "b << 3",
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
    assert err.message == "X is not a primary pattern variable or subset name"
    assert err.sql == query
    assert (err.line, err.column) == (3, query.splitlines()[2].index("X.p") + 1)
    assert "TABLE_VALUED_FUNCTION" not in str(err) and "Traceback" not in str(err)
    # a correct call goes through matchrec.sql as through spark.sql
    good = _call(body.replace("X.p", "B.p"))
    assert matchrec.sql(spark, good).collect() == spark.sql(good).collect()


# ------------------------------------------------------------------ functions of match rows

RICH_ROWS = """
('a', 1, DATE'2024-01-01', TIMESTAMP'2024-01-01 10:00:00', 10.0D, 'x',
 named_struct('city', 'Oslo', 'kg', 3), array(1, 2, 3), map('k', 1), 5.00BD),
('a', 2, DATE'2024-01-03', TIMESTAMP'2024-01-01 11:00:00', 8.0D, 'y',
 named_struct('city', 'Rome', 'kg', 4), array(4), map('k', 2), 6.50BD),
('a', 3, DATE'2024-01-07', TIMESTAMP'2024-01-01 12:30:00', 12.0D, 'z',
 named_struct('city', 'Nice', 'kg', 5), array(5, 6), map('k', 3), 1.25BD),
('b', 1, DATE'2024-02-01', TIMESTAMP'2024-02-01 10:00:00', 5.0D, 'x',
 named_struct('city', 'Bern', 'kg', 1), array(), map('k', 4), 2.00BD),
('b', 2, DATE'2024-02-02', TIMESTAMP'2024-02-01 10:05:00', 4.0D, NULL,
 named_struct('city', NULL, 'kg', 2), NULL, NULL, NULL)
"""
RICH_COLUMNS = "sym, n, day, ts, price, tag, info, arr, m, dec"

FUNCTION_CASES = {
    # Spark functions of values read at match rows: in the table function Spark computes
    # each function of one row (moved inside the navigation), Python only what combines
    # several rows; types are declared before any row exists
    "one_row_functions": """
        PARTITION BY sym ORDER BY n
        MEASURES datediff(LAST(day), FIRST(day)) AS days, FIRST(ts) + INTERVAL 1 HOUR AS due,
                 A.info.city AS city, LAST(info.kg) * 2 AS kg2, any_value(tag) AS any_tag,
                 date_add(FIRST(day), 3) AS later,
                 unix_timestamp(LAST(ts)) - unix_timestamp(FIRST(ts)) AS secs,
                 to_date(LAST(ts)) AS last_day, size(collect_list(tag)) AS n_tags,
                 array_agg(n) AS ns, LAST(arr)[0] AS head, element_at(LAST(arr), 1) AS head1,
                 LAST(m)['k'] AS mk, LAST(m) AS last_m,
                 date_format(LAST(ts), 'yyyy-MM') AS ym,
                 timestampdiff(MINUTE, FIRST(ts), LAST(ts)) AS minutes,
                 LAST(ts) - FIRST(ts) AS span, LAST(day) - FIRST(day) AS day_span,
                 year(FIRST(day)) AS yr, regexp_extract(LAST(tag), '(.)', 1) AS ch,
                 percentile(price, 0.5) AS pct, median(price) AS med,
                 try_divide(LAST(price), 0) AS inf, hash(LAST(tag)) AS h,
                 make_date(2024, 1, LAST(n)) AS made, typeof(LAST(n)) AS ty,
                 array(FIRST(n), LAST(n)) AS ends, FIRST(ts) + INTERVAL 1 MONTH AS next_month,
                 struct(FIRST(n), LAST(tag)) AS pair, struct(n, tag) AS last_row,
                 named_struct('y', year(FIRST(day)), 'c', LAST(info.city)) AS named,
                 struct(FIRST(info), LAST(arr)) AS nested, collect_list(info) AS infos,
                 LAST(info)['city'] AS town, info['kg'] AS kg, FIRST(info)['CITY'] AS upper_key,
                 upper(LAST(B.info)['city']) AS shout
        ONE ROW PER MATCH
        PATTERN (A B*)
        DEFINE B AS true""",
    "functions_of_several_rows": """
        PARTITION BY sym ORDER BY n
        MEASURES map('first', FIRST(n), 'last', LAST(n)) AS ends,
                 format_string('%s-%d', FIRST(tag), LAST(n)) AS label,
                 flatten(array(FIRST(arr), LAST(arr))) AS both_arrs,
                 array_join(array(FIRST(tag), LAST(tag)), '>', '?') AS path,
                 array_sort(array(LAST(price), FIRST(price))) AS prices,
                 sort_array(array(FIRST(n), LAST(n)), false) AS desc_ns,
                 bround(FIRST(dec) * LAST(dec), 1) AS product,
                 round(LAST(price) - FIRST(price), -1) AS tens,
                 sign(LAST(price) - FIRST(price)) AS dir,
                 pmod(FIRST(n) - LAST(n), 3) AS pm, bround(LAST(price), 0) AS br,
                 decode(LAST(n), 1, 'one', 2, 'two', 'many') AS word,
                 transform(LAST(arr), x -> x * 10) AS tenfold,
                 aggregate(FIRST(arr), 0, (acc, x) -> acc + x) AS total,
                 LAST(m)['k'] + FIRST(n) AS mk, LAST(ts) + make_interval(0, 0, 0, 1, 2) AS later,
                 date_add(FIRST(day), LAST(n)) AS shifted,
                 timestampdiff(MONTH, FIRST(ts), LAST(ts)) AS months,
                 CAST(LAST(price) / 3 AS FLOAT) * 2 AS float_twice,
                 CAST(FIRST(price) / 7 AS FLOAT) + CAST(LAST(price) AS FLOAT) AS fsum,
                 LAST(ts) - FIRST(ts) > INTERVAL '2' HOUR AS over_2h,
                 LAST(day) - FIRST(day) <= INTERVAL '5' DAY AS within_5d,
                 LAST(ts) - FIRST(ts) < make_dt_interval(0, 2, 30) AS under_230,
                 CAST(LAST(ts) AS LONG) - CAST(FIRST(ts) AS LONG) AS secs,
                 CAST(LAST(ts) AS DOUBLE) AS epoch, CAST(max(n) * 60 AS TIMESTAMP) AS stamp,
                 CAST(LAST(ts) - FIRST(ts) AS STRING) AS span_text,
                 CAST(LAST(day) - FIRST(day) AS STRING) AS days_text,
                 date_format(FIRST(ts) + (LAST(ts) - FIRST(ts)) / 2, 'yyyy-MM-dd HH:mm') AS mid,
                 base64(FIRST(tag) || LAST(tag)) AS b64,
                 unix_timestamp('202' || LAST(n), 'yyyy') AS year_secs,
                 to_date('202' || FIRST(n) || '-0' || LAST(n), 'yyyy-M') AS ym_day,
                 to_timestamp('202' || LAST(n), 'yyyy') AS year_start,
                 from_unixtime(FIRST(n) * LAST(n)) AS unix_text
        ONE ROW PER MATCH
        PATTERN (A B*)
        DEFINE B AS true""",
    "replaced_calls_and_casts": """
        PARTITION BY sym ORDER BY n
        MEASURES isnull(coalesce(LAST(tag), FIRST(B.tag))) AS no_tag,
                 isnotnull(LAST(arr)[0] + FIRST(n)) AS has_head,
                 negative(LAST(price) - FIRST(price)) AS drop_by,
                 zeroifnull(LAST(dec) - FIRST(dec)) AS dec_change,
                 dayname(greatest(FIRST(day), LAST(day))) AS dn,
                 monthname(least(FIRST(ts), LAST(ts))) AS mn,
                 make_timestamp(greatest(FIRST(day), LAST(day))) AS midnight,
                 to_timestamp_ntz(greatest(FIRST(ts), LAST(ts))) AS wall,
                 CAST(concat(LAST(day), ' ', 10 + LAST(n), ':30:00') AS TIMESTAMP) AS at_n,
                 CAST(concat(FIRST(tag), LAST(tag)) AS BINARY) AS tag_bytes,
                 bit_get(FIRST(n) * 5 + LAST(n), 2) AS bit2
        ONE ROW PER MATCH
        PATTERN (A B*)
        DEFINE B AS true""",
    "zipped_arrays_and_map_entries": """
        PARTITION BY sym ORDER BY n
        MEASURES arrays_zip(array(FIRST(n), LAST(n)), LAST(arr)) AS by_place,
                 arrays_zip(FIRST(arr), array(LAST(tag), FIRST(tag))) AS zipped,
                 arrays_zip(A.arr, array(A.n))[0] AS same_row,
                 size(arrays_zip(FIRST(arr), LAST(arr), array(LAST(n)))) AS longest,
                 map_entries(map_concat(FIRST(m), map('z', LAST(n)))) AS entries,
                 map_entries(LAST(m))[0].value AS last_k
        ONE ROW PER MATCH
        PATTERN (A B*)
        DEFINE B AS true""",
    "json_of_several_rows": """
        PARTITION BY sym ORDER BY n
        MEASURES to_json(collect_list(named_struct('n', n, 'tag', tag))) AS rows_json,
                 to_json(array(FIRST(day), LAST(day))) AS days,
                 to_json(map(FIRST(tag), LAST(price) / 3)) AS priced,
                 to_json(named_struct('ts', LAST(ts), 'dec', LAST(dec))) AS last_json,
                 to_json(if(LAST(price) > 100, array(FIRST(n), LAST(n)), NULL)) AS none_json
        ONE ROW PER MATCH
        PATTERN (A B*)
        DEFINE B AS true""",
    "types_of_several_rows": """
        PARTITION BY sym ORDER BY n
        MEASURES typeof(sum(price)) AS total, typeof(collect_list(named_struct('n', n, 'd', day)))
                     AS rows_type, typeof(FIRST(price) / 0) AS never_evaluated,
                 typeof(map(FIRST(tag), LAST(dec) * 2)) AS map_type,
                 typeof(LAST(ts) - FIRST(ts)) AS span, LAST(tag) AS last_tag
        ONE ROW PER MATCH
        PATTERN (A B*)
        DEFINE B AS true""",
    "urls_of_several_rows": """
        PARTITION BY sym ORDER BY n
        MEASURES parse_url(concat('http://', FIRST(tag), '.org/', LAST(tag), '?k=', LAST(n)),
                           'QUERY', 'k') AS k,
                 parse_url(concat('http://', FIRST(tag), '.org:8', LAST(n), '/p'), 'AUTHORITY')
                     AS authority,
                 try_parse_url(concat('http://', FIRST(tag), ' ', LAST(tag)), 'HOST') AS bad
        ONE ROW PER MATCH
        PATTERN (A B*)
        DEFINE B AS true""",
    "all_rows_pattern_that_can_be_empty": """
        PARTITION BY sym ORDER BY n
        MEASURES year(FIRST(B.day)) AS yr, coalesce(FIRST(B.tag), 'none') AS first_b,
                 FIRST(B.ts) + INTERVAL 1 HOUR AS due, try_element_at(LAST(B.arr), 1) AS head,
                 date_format(FINAL LAST(ts), 'yyyy') AS fin_year,
                 datediff(LAST(day), FIRST(A.day)) AS days, upper(FIRST(B.tag)) AS up,
                 year(FINAL LAST(B.day)) - year(FIRST(day)) AS years
        ALL ROWS PER MATCH
        PATTERN (A* B*)
        DEFINE A AS price > 9, B AS price <= 9""",
}


@pytest.fixture(scope="module")
def rich_table(spark, table):
    spark.sql(
        f"CREATE OR REPLACE TEMP VIEW mr_udtf_rich AS SELECT * FROM VALUES {RICH_ROWS} "
        f"AS t({RICH_COLUMNS})"
    )
    return spark.table("mr_udtf_rich")


@pytest.mark.parametrize("name", list(FUNCTION_CASES))
def test_functions_of_match_rows_same_in_every_door(spark, rich_table, name):
    body = FUNCTION_CASES[name]
    expected = matchrec.sql(spark, f"SELECT * FROM mr_udtf_rich MATCH_RECOGNIZE ({body})")
    actual = spark.sql(_call(body, "mr_udtf_rich"))
    # whole types: array element and map value nullability too
    assert [(f.name, f.dataType) for f in actual.schema.fields] == [
        (f.name, f.dataType) for f in expected.schema.fields
    ]
    want = sorted(map(repr, expected.collect()))
    assert sorted(map(repr, actual.collect())) == want
    assert want and "None" in " ".join(want)  # NULL cases are part of it


def test_spot_values_of_functions_of_match_rows(spark, rich_table):
    """A few values by hand, so that both doors agreeing on a wrong answer cannot pass."""
    body = FUNCTION_CASES["one_row_functions"]
    rows = {r.sym: r for r in spark.sql(_call(body, "mr_udtf_rich")).collect()}
    a, b = rows["a"], rows["b"]
    assert (a.days, a.city, a.kg2, a.secs, a.minutes, a.head, a.mk) == (
        6,
        "Oslo",
        10,
        9000,
        150,
        5,
        3,
    )
    assert (b.head, b.head1, b.mk, b.ch, b.ns) == (None, None, None, None, [1, 2])
    assert str(a.span) == "2:30:00" and a.day_span.days == 6
    query = _call(FUNCTION_CASES["functions_of_several_rows"], "mr_udtf_rich")
    several = {r.sym: r for r in spark.sql(query).collect()}
    sa, sb = several["a"], several["b"]
    assert (sa.over_2h, sa.within_5d, sa.under_230, sa.secs) == (True, False, False, 9000)
    assert (sb.over_2h, sb.within_5d, sb.under_230, sb.secs) == (False, True, True, 300)
    epoch = spark.sql("SELECT CAST(TIMESTAMP'2024-01-01 12:30:00' AS DOUBLE)").first()[0]
    assert sa.epoch == epoch
    assert (sa.stamp.minute, sb.stamp.minute) == (3, 2)
    assert (a.ty, a.ym, a.yr, a.next_month.month) == ("int", "2024-01", 2024, 2)


# Spark's result types of functions, as planner.function_types and measure_eval give them
# without a Spark session: each against the schema Spark gives the same expression
RICH_INPUT = StructType(
    [
        StructField("tag", StringType()),
        StructField("n", IntegerType()),
        StructField("b", LongType()),
        StructField("s", ShortType()),
        StructField("day", DateType()),
        StructField("ts", TimestampType()),
        StructField("tsn", TimestampNTZType()),
        StructField("price", DoubleType()),
        StructField("f", FloatType()),
        StructField("dec", DecimalType(10, 2)),
        StructField(
            "info",
            StructType([StructField("city", StringType()), StructField("kg", IntegerType())]),
        ),
        StructField("arr", ArrayType(IntegerType(), False)),
        StructField("m", MapType(StringType(), IntegerType(), False)),
        StructField("ih", DayTimeIntervalType(1, 1)),
        StructField("idy", DayTimeIntervalType(0, 0)),
    ]
)

ROW_FUNCTIONS = [
    # types the table function lacked (tf2 probe), each as Spark gives it
    "instr(tag, 'b', 1, 2)",
    "jaro_winkler_similarity(tag, 'x')",
    "is_valid_utf8(tag)",
    "make_valid_utf8(tag)",
    "validate_utf8(tag)",
    "try_validate_utf8(tag)",
    "try_parse_url(tag, 'HOST')",
    "try_to_binary(tag, 'utf-8')",
    "try_to_date(tag)",
    "make_timestamp_ltz(n, 12, 28, 6, 30, 45.887)",
    "try_make_timestamp(n, 12, 28, 6, 30, 45.887)",
    "try_make_timestamp_ltz(n, 12, 28, 6, 30, 45.887)",
    "try_make_timestamp_ntz(n, 12, 28, 6, 30, 45.887)",
    "xpath(tag, 'a/b/text()')",
    "xpath_boolean(tag, 'a/b')",
    "xpath_double(tag, 'sum(a/b)')",
    "xpath_float(tag, 'sum(a/b)')",
    "xpath_int(tag, 'sum(a/b)')",
    "xpath_long(tag, 'sum(a/b)')",
    "xpath_number(tag, 'sum(a/b)')",
    "xpath_short(tag, 'sum(a/b)')",
    "xpath_string(tag, 'a/c')",
    "vector_cosine_similarity(array(f), array(f))",
    "vector_inner_product(array(f), array(f))",
    "vector_l2_distance(array(f), array(f))",
    "vector_norm(array(f), 2.0F)",
    "vector_normalize(array(f), 2.0F)",
    "bitmap_bit_position(b)",
    "bitmap_bucket_number(b)",
    "bitmap_count(to_binary(tag, 'utf-8'))",
    "map_entries(m)",
    "map_from_entries(array(named_struct('k', n, 'v', tag)))",
    "map_from_entries(map_entries(m))",
    "arrays_zip(arr, array(tag))",
    "to_number(tag, '999')",
    "try_to_number(tag, 'S99,999.00')",
    "to_number(tag, '$9G990D9')",
    # a BINARY stays one (substr of a BINARY was typed STRING: "b'k SQL'" came out)
    "substr(to_binary(tag, 'utf-8'), 2, 3)",
    "substring(tag, 2)",
    "left(to_binary(tag, 'utf-8'), 2)",
    "right(to_binary(tag, 'utf-8'), 2)",
    "lpad(to_binary(tag, 'utf-8'), 5, X'00')",
    "rpad(tag, 5)",
    # DOUBLE functions it did not know, Spark's casts written as functions
    "acosh(price)",
    "asinh(n)",
    "atanh(f)",
    "sec(price)",
    "csc(n)",
    "cot(price)",
    "regexp(tag, 'b')",
    "bigint(price)",
    "smallint(tag)",
    "tinyint(n)",
    "decimal(price)",
    "binary(tag)",
    "from_csv(tag, 'a INT, b STRING')",
    "from_csv(tag, 'a INT', map('sep', ';'))",
    "from_xml(tag, 'a INT')",
    "hmac(tag, 'k')",
    "sentences(tag)",
    # NULL elements (declared NOT NULL, a NULL failed the job in Spark's Arrow reader)
    "array_append(array('a'), tag)",
    "array_prepend(array('a'), CAST(NULL AS STRING))",
    "array_append(array('a'), 'b')",
    "sentences(tag, 'en', 'US')",
    "aes_encrypt(tag, '0000111122223333')",
    "try_aes_decrypt(to_binary(tag, 'utf-8'), '0000111122223333')",
    "array_repeat(tag, n)",
    "array_repeat(price, 2)",
    "array_insert(arr, 1, price)",
    "array_insert(arr, n, n)",
    "map_concat(m, map('x', price))",
    "map_concat(m, m)",
    "luhn_check(tag)",
    "try_mod(n, s)",
    "try_mod(dec, n)",
    "try_mod(price, b)",
    "array_compact(array(n, NULL))",
    "ts + INTERVAL 1 HOUR",
    "ts - INTERVAL 1 DAY",
    "day + INTERVAL 1 DAY",
    "day + INTERVAL 1 HOUR",
    "day + INTERVAL 1 MONTH",
    "ts + INTERVAL 1 MONTH",
    "ts - ts",
    "day - day",
    "tsn - tsn",
    "ts - day",
    "tsn + INTERVAL 1 HOUR",
    "hash(tag)",
    "xxhash64(tag)",
    "timestampdiff(MINUTE, ts, ts)",
    "make_date(2024,1,n)",
    "from_unixtime(b)",
    "unix_timestamp(ts)",
    "date_add(day, 3)",
    "date_add(ts, 3)",
    "try_divide(n, 0)",
    "try_divide(dec, 2)",
    "try_divide(b, 2)",
    "date_trunc('day', ts)",
    "last_day(day)",
    "sha2(tag, 256)",
    "md5(tag)",
    "split(tag, ',')",
    "array_distinct(arr)",
    "sort_array(arr)",
    "filter(arr, x -> x > 1)",
    "array_join(arr, ',')",
    "instr(tag, 'b')",
    "second(ts)",
    "array(n, b)",
    "array(n, NULL)",
    "element_at(arr, 1)",
    "arr[0]",
    "m['k']",
    "info.city",
    "to_timestamp(tag)",
    "months_between(ts, ts)",
    "add_months(day, 1)",
    "datediff(ts, ts)",
    "date_sub(day, 1)",
    "next_day(day, 'MO')",
    "dayofweek(day)",
    "to_csv(info)",
    "mask(tag)",
    "quote(tag)",
    "to_timestamp_ltz(tag)",
    "to_xml(info)",
    "schema_of_csv('1,abc')",
    "to_varchar(day, 'yyyy')",
    "collation(tag)",
    "to_binary(tag, 'utf-8')",
    "weekday(day)",
    "unix_date(day)",
    "unix_seconds(ts)",
    "timestamp_seconds(b)",
    "to_unix_timestamp(ts)",
    "initcap(tag)",
    "trim(tag)",
    "lpad(tag, 3, 'x')",
    "split_part(tag, ',', 1)",
    "format_number(price, 2)",
    "format_string('%s', tag)",
    "parse_url(tag, 'HOST')",
    "parse_url(tag, 'QUERY', 'item')",
    "url_decode(tag)",
    "url_encode(tag)",
    "getbit(b, 0)",
    "json_object_keys(tag)",
    "from_json(tag, 'a INT, b STRUCT<c: STRING>')",
    "from_json(tag, 'a INT, b STRUCT<c: STRING>').b.c",
    "from_json(tag, 'ARRAY<INT>')",
    "from_json(tag, 'map<string, double>')",
    "schema_of_json('[1]')",
    "bit_length(tag)",
    "octet_length(tag)",
    "ascii(tag)",
    "chr(65)",
    "base64(tag)",
    "crc32(tag)",
    "conv(tag, 10, 2)",
    "abs(s)",
    "s + s",
    "-s",
    "log10(price)",
    "log(2, price)",
    "cbrt(price)",
    "degrees(price)",
    "pi()",
    "e()",
    "factorial(n)",
    "shiftleft(n, 1)",
    "n & 1",
    "~n",
    "n ^ 1",
    "sign(n)",
    "signum(n)",
    "positive(n)",
    "negative(n)",
    "least(n, b)",
    "greatest(n, price)",
    "nanvl(price, 0D)",
    "isnan(price)",
    "ifnull(tag, 'a')",
    "nvl2(tag, 1, 2)",
    "nullif(n, 1)",
    "zeroifnull(n)",
    "zeroifnull(dec)",
    "extract(MINUTE FROM ts)",
    "extract(SECOND FROM ts)",
    "date_part('DAY', day)",
    "date_part('seconds', ts)",
    "extract(HOUR FROM ts - ts)",
    "extract(MINS FROM ts - day)",
    "extract(DAY FROM day - day)",
    "date_part('SECOND', ts - ts)",
    "unix_millis(ts)",
    "unix_micros(ts)",
    "nullifzero(dec)",
    "nullifzero(n)",
    "width_bucket(price, 0, 10, 5)",
    "round(dec, 1)",
    "ceil(dec)",
    "floor(price)",
    "rint(price)",
    "map_keys(m)",
    "map_values(m)",
    "size(arr)",
    "cardinality(arr)",
    "array_size(arr)",
    "array_contains(arr, 1)",
    "array_position(arr, 1)",
    "array_max(arr)",
    "slice(arr, 1, 1)",
    "concat(arr, arr)",
    "flatten(array(arr))",
    "reverse(arr)",
    "reverse(tag)",
    "exists(arr, x -> x > 1)",
    "to_json(info)",
    "get_json_object('{}', '$.a')",
    "json_array_length('[]')",
    "regexp_count(tag, 'x')",
    "regexp_substr(tag, 'x')",
    "regexp_instr(tag, 'x')",
    "regexp_replace(tag, 'x', 'y')",
    "rlike(tag, 'x')",
    "typeof(n)",
    "left(tag, 1)",
    "encode(tag, 'utf-8')",
    "decode(encode(tag, 'utf-8'), 'utf-8')",
    "to_char(n, '999')",
    "try_add(n, 1)",
    "try_subtract(n, 1)",
    "try_multiply(n, 2)",
    "try_element_at(arr, 5)",
    "element_at(m, 'k')",
    "date_from_unix_date(1)",
    "make_timestamp(2024,1,1,0,0,0)",
    "make_dt_interval(1)",
    "from_utc_timestamp(ts, 'UTC')",
    "to_utc_timestamp(ts, 'UTC')",
    "dayname(day)",
    "monthname(day)",
    "quarter(day)",
    "hour(ts)",
    "minute(ts)",
    "weekofyear(day)",
    "dayofyear(day)",
    "year(ts)",
    "month(tsn)",
    "last_day(ts)",
    "trunc(day, 'MM')",
    "date_format(day, 'yyyy')",
    "to_date(tag)",
    "try_to_timestamp(tag)",
    "to_timestamp_ntz(tag)",
    "cast(n as string)",
    "n::string",
    "if(n > 1, n, b)",
    "case when n > 1 then dec else price end",
    "coalesce(n, dec)",
    "coalesce(s, n)",
    "n % 2",
    "b div 2",
    "n / 2",
    "dec / 3",
    "dec * dec",
    "price * f",
    "f * f",
    "f + 1",
    "s * 2",
    "s + 1L",
    "n + 1.5",
    "dec + 1",
    "b + dec",
    "sqrt(n)",
    "exp(n)",
    "pow(n, 2)",
    "ln(n)",
    "bround(price, 1)",
    "bround(dec, 1)",
    "round(dec, -1)",
    "round(n, -1)",
    "pmod(n, 3)",
    "pmod(b, n)",
    "pmod(price, 2)",
    "pmod(dec, 3)",
    "pmod(s, s)",
    "decode(n, 1, 'one', 2, 'two', 'other')",
    "map('a', n, 'b', b)",
    "map(tag, price)",
    "m['k']",
    "m['k'] + n",
    "transform(arr, x -> x * 2)",
    "transform(arr, x -> x * 1.5)",
    "transform(arr, x -> upper(tag))",
    "transform(arr, (x, i) -> concat(tag, x, i))",
    "filter(arr, x -> x > 1)",
    "exists(arr, x -> x > n)",
    "forall(arr, x -> x > 0)",
    "aggregate(arr, 0, (acc, x) -> acc + x)",
    "aggregate(arr, 0L, (acc, x) -> acc + x, acc -> acc * 2.5)",
    "reduce(arr, 0D, (acc, x) -> acc + x)",
    "zip_with(arr, arr, (x, y) -> x * y)",
    "zip_with(arr, array(tag), (x, y) -> concat(y, x))",
    "transform_values(m, (k, v) -> v + 1)",
    "transform_values(m, (k, v) -> concat(k, v))",
    "transform_keys(m, (k, v) -> upper(k))",
    "map_filter(m, (k, v) -> v > 2)",
    "ts + make_interval(0, 0, 0, n, 2, 0, 0)",
    "tsn - make_interval(1)",
    "day + make_interval(0, 1, 0, 2)",
    "ts + make_dt_interval(n, 2)",
    "ts + INTERVAL '1 02:03' DAY TO MINUTE",
    "ts - INTERVAL '1:30' HOUR TO MINUTE",
    "format_string('%s-%d', tag, n)",
    "printf('%.2f', price)",
    "flatten(array(arr, arr))",
    "array_join(array(tag, tag), ',')",
    "array_sort(array(n, b))",
    "sort_array(arr, false)",
    "array_union(arr, array(n))",
    "array_distinct(arr)",
    "array_position(arr, n)",
    "array_remove(arr, n)",
    "arrays_overlap(arr, arr)",
    "slice(arr, 1, 2)",
    "sequence(1, n)",
    "date_add(day, n)",
    "date_sub(day, s)",
    "add_months(day, n)",
    "months_between(ts, day)",
    "try_add(n, n)",
    "try_subtract(b, n)",
    "try_multiply(dec, n)",
    "try_add(ts, INTERVAL 1 DAY)",
    "nanvl(price, 0D)",
    "ifnull(tag, 'x')",
    "nvl2(tag, n, b)",
    "zeroifnull(dec)",
    "width_bucket(price, 0, 10, 5)",
    "to_timestamp(tag)",
    "to_date(tag, 'yyyy-MM-dd')",
    "from_utc_timestamp(ts, 'Europe/Oslo')",
    "to_utc_timestamp(ts, 'Europe/Oslo')",
    "convert_timezone('UTC', 'Europe/Oslo', tsn)",
    "date_format(ts, 'HH')",
    "unix_timestamp(ts)",
    "to_unix_timestamp(ts)",
    "weekday(day)",
    "dayofweek(day)",
    "last_day(day)",
    "next_day(day, 'Mon')",
    "trunc(day, 'MM')",
    "date_trunc('HOUR', ts)",
    "hour(tsn)",
    "extract(HOUR FROM ts)",
    "ts::date",
    "n::string",
    "try_cast(tag AS DOUBLE)",
    "substring_index(tag, '.', 1)",
    "regexp_extract_all(tag, '(a)', 1)",
    "split(tag, ',')",
    "split_part(tag, ',', 1)",
    "str_to_map(tag)",
    "named_struct('a', n).a",
    "info.city",
    "element_at(m, 'k')",
    "element_at(arr, 1)",
    "try_element_at(arr, n)",
    "map_contains_key(m, 'k')",
    "map_values(m)",
    "map_from_arrays(array(tag), array(n))",
    "conv(tag, 16, 10)",
    "bin(n)",
    "hex(n)",
    "mod(n, 3)",
    "negative(dec)",
    "positive(n)",
    "e()",
    "pi() * n",
    "log(2, price)",
    "log2(price)",
    "cbrt(price)",
    "degrees(price)",
    "shiftleft(n, 2)",
    "n & b",
    "n | 1",
    "~n",
    "bit_count(n)",
    "char(n)",
    "ascii(tag)",
    "base64(tag)",
    "initcap(tag)",
    "lpad(tag, 5, '*')",
    "btrim(tag)",
    "translate(tag, 'a', 'b')",
    "soundex(tag)",
    "levenshtein(tag, 'x')",
    "locate('a', tag)",
    "instr(tag, 'a')",
    "find_in_set('a', tag)",
    "regexp_like(tag, 'a')",
    "tag rlike 'a'",
    "tag ilike 'A%'",
    "endswith(tag, 'x')",
    "len(tag)",
    "char_length(tag)",
    "octet_length(tag)",
    "reverse(tag)",
    "repeat(tag, 2)",
    "isnull(n)",
    "isnotnull(n)",
    "equal_null(n, b)",
    "if(n > 1, 'a', NULL)",
    "CASE n WHEN 1 THEN 'a' WHEN 2 THEN 'b' END",
    "nullif(tag, 'x')",
    "coalesce(day, ts)",
    "greatest(day, ts)",
    "least(price, dec)",
    "struct(n AS a, tag AS b)",
    "array(n, NULL)",
    "array(day, ts)",
    "to_json(info)",
    "get_json_object(tag, '$.a')",
    "json_array_length(tag)",
    "crc32(tag)",
    "sha1(tag)",
    "sha2(tag, 256)",
    "md5(tag)",
    "hash(n, tag)",
    "parse_json(tag)",
    "try_parse_json(tag)",
    "info['city']",
    "info['KG']",
    "is_variant_null(parse_json(tag))",
    "variant_get(parse_json(tag), '$.a', 'int')",
    "try_variant_get(parse_json(tag), '$.a', 'array<string>')",
    "variant_get(parse_json(tag), '$.a')",
    "schema_of_variant(parse_json(tag))",
    "to_variant_object(info)",
]
MATCH_AGGREGATES = [
    "percentile(price, 0.5)",
    "percentile(n, array(0.5))",
    "median(n)",
    "median(dec)",
    "any_value(tag)",
    "collect_list(n)",
    "collect_set(tag)",
    "array_agg(tag)",
    "percentile_approx(price, 0.5)",
    "percentile_approx(n, 0.5)",
    "mode(tag)",
    "stddev(n)",
    "variance(dec)",
    "count_if(n > 1)",
    "max_by(tag, n)",
    "first_value(tag)",
    "array_agg(DISTINCT n)",
    "bool_and(n > 1)",
]


def test_function_types_match_spark(spark):
    env = TypeEnv({f.name: to_sqlglot_type(f.dataType) for f in RICH_INPUT.fields})
    empty = spark.createDataFrame([], RICH_INPUT)
    expected = [f.dataType for f in empty.selectExpr(*ROW_FUNCTIONS).schema.fields]
    expected += [f.dataType for f in empty.selectExpr(*MATCH_AGGREGATES).schema.fields]
    mismatches = []
    for text, want in zip(ROW_FUNCTIONS + MATCH_AGGREGATES, expected):
        inferred = infer_type(parse_one(text, read=MatchRecognizeDialect), env)
        got = to_spark_type(inferred) if inferred is not None else None
        if got != want:
            mismatches.append((text, got and got.simpleString(), want.simpleString()))
    assert not mismatches, "\n".join(map(str, mismatches))


def test_casts_that_read_the_session_time_zone_are_sparks(spark, rich_table):
    """CAST of a date to a timestamp (its midnight in the session time zone), of a
    timestamp to a date or a string: Spark casts them (once Python did, in the worker's
    zone), so a session zone other than the worker's gives Spark's answer."""
    body = """PARTITION BY sym ORDER BY n
        MEASURES CAST(FIRST(day) AS TIMESTAMP) AS midnight, CAST(LAST(ts) AS DATE) AS d,
                 CAST(LAST(ts) AS STRING) AS text, FIRST(ts)::date = LAST(ts)::date AS same_day
        ONE ROW PER MATCH PATTERN (A B*) DEFINE B AS true"""
    before = spark.conf.get("spark.sql.session.timeZone")
    spark.conf.set("spark.sql.session.timeZone", "Asia/Tokyo")
    try:
        expected = matchrec.sql(spark, f"SELECT * FROM mr_udtf_rich MATCH_RECOGNIZE ({body})")
        want = sorted(map(repr, expected.collect()))
        assert sorted(map(repr, spark.sql(_call(body, "mr_udtf_rich")).collect())) == want
    finally:
        spark.conf.set("spark.sql.session.timeZone", before)


# values Spark cannot compare or add, found by ``analyze`` itself: Spark's own error comes
# only after it, with no caret and the table function's plan. (clause body, culprit, message)
NESTED_TYPE_MIXES = [
    ("p = MAP('a', 1)", "MAP(", "= compares MAP('a', 1) (MAP<STRING,INT>) with p (DOUBLE)"),
    ("PREV(v) + 1 = MAP('a', 1)", "MAP(", "with PREV(v) + 1 (INT)"),
    ("array(v) < 1", "array(", "< compares array(v) (ARRAY<INT>) with 1 (INT)"),
    ("array(v) + 1 > 3", "array(", "+ is not defined for array(v) (ARRAY<INT>)"),
]


@pytest.mark.parametrize(("define", "culprit", "message"), NESTED_TYPE_MIXES)
def test_nested_values_of_the_wrong_kind_are_our_error_in_analyze(
    spark, table, define, culprit, message
):
    body = f"ORDER BY o MEASURES FIRST(A.p) AS f PATTERN (A B+) DEFINE B AS {define}"
    with pytest.raises(SemanticError) as info:
        build_program(body, INPUT)
    assert message in info.value.message
    assert info.value.pos == body.index(culprit)
    assert "^" in str(info.value) and info.value.hint
    with pytest.raises(AnalysisException) as through_spark:
        spark.sql(_call(body))
    assert isinstance(through_spark.value, SemanticError)
    assert through_spark.value.getCondition() == "TABLE_VALUED_FUNCTION_FAILED_TO_ANALYZE_IN_PYTHON"
    assert message in through_spark.value.message


def test_sparks_errors_about_the_selected_expressions_name_no_column_of_ours(spark, table):
    """What analyze cannot check (here the argument types of array_contains) Spark
    rejects after it, printing the plan of the table argument: each column computed for
    the clause is shown under the user's expression, not as ``__mr_c0``/``__mr_rn``."""
    body = (
        "ORDER BY o MEASURES FIRST(A.p) AS f PATTERN (A B+) "
        "DEFINE B AS p < PREV(p) AND array_contains(d, 1)"
    )
    with pytest.raises(AnalysisException) as info:
        spark.sql(_call(body))
    text = str(info.value)
    assert "DATATYPE_MISMATCH" in text
    assert "__mr_" not in text
    assert "AS p < LAG(p, 1) OVER (ORDER BY o ASC NULLS FIRST)" in text
    assert "array_contains(d, 1)" in text
    assert "AS row_number() OVER (ORDER BY o ASC NULLS FIRST)" in text


def test_after_match_skip_errors_point_at_the_label_in_the_body(spark, table):
    """A run-time error of AFTER MATCH SKIP (Trino's wording) reaches the user from the
    worker with the caret under the label in the body string and how to avoid it."""
    body = "ORDER BY o MEASURES A.o AS a AFTER MATCH SKIP TO FIRST A PATTERN (A B) DEFINE B AS true"
    with pytest.raises(PythonException) as info:
        spark.sql(_call(body)).collect()
    err = info.value  # raised as ours, its message first, no worker traceback
    assert isinstance(err, MatchRuntimeError)
    text = str(err)
    assert text.startswith("runtime error: AFTER MATCH SKIP failed") and "Traceback" not in text
    assert err.sql[err.pos :].startswith("A PATTERN")
    column = body.index("A PATTERN") + 1
    assert (
        "runtime error: AFTER MATCH SKIP failed: cannot skip to first row of match "
        f"(line 1, column {column})"
    ) in text
    assert f"  1 | {body}\n" + " " * (column + 5) + "^" in text
    assert "hint: skipping to a match's first row would find the same match again" in text


def test_collated_values_of_several_rows_compare_under_their_collation(spark):
    # The table function computes these in Python: it compared the strings' bytes ('b' <
    # 'Z' false, greatest 'b'); under UTF8_LCASE 'b' < 'z', and 'Z' = 'z'
    spark.sql(
        """CREATE OR REPLACE TEMP VIEW mr_udtf_lcase AS
        SELECT k, o, CAST(s AS STRING COLLATE UTF8_LCASE) AS s FROM VALUES
        ('p', 1, 'b'), ('p', 2, 'A'), ('p', 3, 'Z') AS v(k, o, s)"""
    )
    matchrec.register(spark)
    measures = {
        "lt": "FIRST(s) < LAST(s)",
        "g": "greatest(FIRST(s), LAST(s))",
        "l": "least(FIRST(s), LAST(s))",
        "eq": "LAST(s) = 'z'",
        "inside": "PREV(LAST(s)) IN ('a', 'q')",
    }
    expected = spark.sql(
        "SELECT k, "
        + ", ".join(
            f"{m.replace('FIRST(s)', 'f').replace('PREV(LAST(s))', 'p').replace('LAST(s)', 'l')}"
            f" AS {name}"
            for name, m in measures.items()
        )
        + """ FROM (SELECT k, first_value(s) OVER w AS f, s AS l, lag(s) OVER w AS p, o,
              max(o) OVER (PARTITION BY k) AS n FROM mr_udtf_lcase
              WINDOW w AS (PARTITION BY k ORDER BY o)) WHERE o = n"""
    ).collect()
    body = (
        "PARTITION BY k ORDER BY o MEASURES "
        + ", ".join(f"{m} AS {name}" for name, m in measures.items())
        + " PATTERN (A+) DEFINE A AS true"
    )
    got = spark.sql(f"SELECT * FROM match_recognize(TABLE(mr_udtf_lcase), {_literal(body)})")
    assert [tuple(r) for r in got.collect()] == [tuple(r) for r in expected]
    assert [tuple(r) for r in expected] == [("p", True, "Z", "b", True, True)]


def test_a_decimal_cast_of_one_row_is_not_computed_on_rows_the_measure_never_reads(spark):
    # CAST(... AS DECIMAL(4, 1)) was moved inside the navigation (its target's
    # parameters were not seen as part of the cast): Spark cast every row, and the last
    # row's 2000000000 failed the query under ANSI mode
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW mr_udtf_dec AS "
        "SELECT * FROM VALUES ('p', 1, 3), ('p', 2, 2000000000) AS v(k, o, x)"
    )
    matchrec.register(spark)
    expected = spark.sql(
        "SELECT 'p', CAST(x AS DECIMAL(4, 1)), CAST(x AS DECIMAL(4, 1)) + 1 "
        "FROM mr_udtf_dec WHERE o = 1"
    ).collect()
    body = """PARTITION BY k ORDER BY o
        MEASURES CAST(FIRST(x) AS DECIMAL(4, 1)) AS d, CAST(FIRST(x) AS DECIMAL(4, 1)) + 1 AS e
        PATTERN (A B*) DEFINE B AS true"""
    got = spark.sql(f"SELECT * FROM match_recognize(TABLE(mr_udtf_dec), {_literal(body)})")
    assert got.schema.simpleString() == "struct<k:string,d:decimal(4,1),e:decimal(5,1)>"
    assert [tuple(r) for r in got.collect()] == [tuple(r) for r in expected]


def test_string_functions_of_collated_values_keep_the_collation(spark):
    # typed STRING (Spark: STRING COLLATE UTF8_LCASE), and upper(FIRST(s)) = 'b' compared
    # Python's plain upper-case string by its bytes
    spark.sql(
        """CREATE OR REPLACE TEMP VIEW mr_udtf_lcase2 AS
        SELECT k, o, CAST(s AS STRING COLLATE UTF8_LCASE) AS s FROM VALUES
        ('p', 1, 'b'), ('p', 2, 'A'), ('p', 3, 'Zé') AS v(k, o, s)"""
    )
    matchrec.register(spark)
    measures = {
        "u": "upper(LAST(s))",
        "c": "FIRST(s) || LAST(s)",
        "ss": "substr(LAST(s), 1, 1)",
        "mu": "max(upper(s))",
        "ueq": "upper(FIRST(s)) = 'b'",
    }
    body = (
        "PARTITION BY k ORDER BY o MEASURES "
        + ", ".join(f"{m} AS {name}" for name, m in measures.items())
        + " PATTERN (A+) DEFINE A AS true"
    )
    expected = matchrec.sql(
        spark, f"SELECT * FROM mr_udtf_lcase2 MATCH_RECOGNIZE ({body})"
    )  # Spark computes these measures over the matcher's columns
    got = spark.sql(f"SELECT * FROM match_recognize(TABLE(mr_udtf_lcase2), {_literal(body)})")
    assert got.schema == expected.schema
    assert [tuple(r) for r in got.collect()] == [tuple(r) for r in expected.collect()]
    assert [tuple(r) for r in expected.collect()] == [("p", "ZÉ", "bZé", "Z", "ZÉ", True)]
    assert "collate UTF8_LCASE" in got.schema["u"].dataType.simpleString()


def test_wide_decimal_negation_abs_and_try_divide_are_sparks(spark):
    # The table function's glue computed these with Python's default 28 digits: abs and
    # -x gave ...678.0000000000 (Spark rounds a negation to 34 digits), try_divide
    # ...542.400000 (Spark divides to 38 fraction digits, as for /)
    spark.sql(
        """CREATE OR REPLACE TEMP VIEW mr_udtf_wide AS
        SELECT k, o, CAST(x AS DECIMAL(38, 10)) AS x FROM VALUES
        ('p', 1, '-1.25'), ('p', 2, '-1234567890123456789012345678.0123456789') AS v(k, o, x)"""
    )
    matchrec.register(spark)
    expected = spark.sql(
        """SELECT k, abs(l), -l, try_divide(l, f), l / f FROM (SELECT k, o, x AS l,
           first_value(x) OVER (PARTITION BY k ORDER BY o) AS f FROM mr_udtf_wide)
           WHERE o = 2"""
    )
    body = """PARTITION BY k ORDER BY o
        MEASURES abs(LAST(x)) AS a, -LAST(x) AS n, try_divide(LAST(x), FIRST(x)) AS t,
                 LAST(x) / FIRST(x) AS d
        PATTERN (A B*) DEFINE B AS true"""
    got = spark.sql(f"SELECT * FROM match_recognize(TABLE(mr_udtf_wide), {_literal(body)})")
    assert [f.dataType for f in got.schema.fields] == [f.dataType for f in expected.schema.fields]
    assert [tuple(r) for r in got.collect()] == [tuple(r) for r in expected.collect()]


def test_a_try_divide_of_decimals_its_type_cannot_hold_is_null_under_ansi(spark):
    """A quotient past DECIMAL(38, 6) was NUMERIC_VALUE_OUT_OF_RANGE in the table
    function's MEASURES; Spark's ``try_divide`` (and ``matchrec.sql``'s) is NULL."""
    spark.sql(
        """CREATE OR REPLACE TEMP VIEW mr_udtf_try AS SELECT o, CAST(x AS DECIMAL(38, 18)) AS x
        FROM VALUES (1, '12345678901234567890.5'), (2, '-0.000000000000000001'), (3, '2')
        AS v(o, x)"""
    )
    matchrec.register(spark)
    body = """ORDER BY o MEASURES A.o AS a, try_divide(FIRST(A.x), LAST(B.x)) AS t
        AFTER MATCH SKIP TO NEXT ROW PATTERN (A B) DEFINE A AS true"""
    got = spark.sql(f"SELECT * FROM match_recognize(TABLE(mr_udtf_try), {_literal(body)})")
    expected = spark.sql(
        "SELECT a.o, try_divide(a.x, b.x) FROM mr_udtf_try a JOIN mr_udtf_try b "
        "ON b.o = a.o + 1 DISTRIBUTE BY a.o"
    )
    assert sorted(tuple(r) for r in got.collect()) == sorted(tuple(r) for r in expected.collect())
    assert [tuple(r) for r in got.orderBy("a").collect()][0] == (1, None)


# ------------------------------------------------------------------ errors of a match's values

#: measures that fail under ANSI mode on the rows of ``mr_udtf_ansi`` (one match of both
#: rows), and Spark's expression of the same values: ``fp``/``lp`` FIRST/LAST(p), ...
ANSI_MEASURES = {
    "LAST(p) div LAST(z)": "lp div lz",
    "FIRST(p) % LAST(z)": "fp % lz",
    "FIRST(p) + 1": "fp + 1",
    "FIRST(p) * 2 - LAST(p)": "fp * 2 - lp",
}


@pytest.fixture
def ansi_view(spark, table):
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW mr_udtf_ansi AS SELECT * FROM VALUES "
        "(1, 2147483647, 1), (2, 5, 0) AS v(o, p, z)"
    )
    return (
        "SELECT {expr} AS r FROM (SELECT min_by(p, o) AS fp, max_by(p, o) AS lp, "
        "min_by(z, o) AS fz, max_by(z, o) AS lz FROM mr_udtf_ansi)"
    )


def _ansi_body(measure: str) -> str:
    return f"ORDER BY o MEASURES {measure} AS r PATTERN (A B) DEFINE B AS true"


@pytest.mark.parametrize("measure", list(ANSI_MEASURES))
def test_ansi_errors_of_a_measure_are_ours_with_sparks_condition(spark, ansi_view, measure):
    """The table function computes MEASURES in its worker: Spark's ANSI error of the
    same values (divide by zero, integer overflow) is raised as our error, first, at the
    measure, naming Spark's condition, where Spark's PythonException quoted it after a
    traceback (and an overflow named neither the measure nor Spark's condition)."""
    with pytest.raises(Exception) as spark_error:
        spark.sql(ansi_view.format(expr=ANSI_MEASURES[measure])).collect()
    condition = spark_error.value.getCondition()
    body = _ansi_body(measure)
    with pytest.raises(PythonException) as info:
        spark.sql(_call(body, "mr_udtf_ansi")).collect()
    err = info.value
    assert isinstance(err, MatchRuntimeError), err
    assert str(err).startswith("runtime error: ") and "Traceback" not in str(err)
    assert condition in err.message
    assert err.sql[err.pos :].startswith(measure)


#: measures the table function's worker computes (values of two rows) that fail under
#: ANSI mode on ``mr_udtf_ansi``, and Spark's expression of the same values
WORKER_ERRORS = {
    "FIRST(p) + LAST(p)": "fp + lp",
    "FIRST(p) % LAST(z)": "fp % lz",
    "CAST(concat(FIRST(p), 'x', LAST(z)) AS INT)": "CAST(concat(fp, 'x', lz) AS INT)",
    "CAST(concat(FIRST(p), 'x', LAST(z)) AS DATE)": "CAST(concat(fp, 'x', lz) AS DATE)",
    "CAST(concat(FIRST(p), 'x', LAST(z)) AS BOOLEAN)": "CAST(concat(fp, 'x', lz) AS BOOLEAN)",
    "element_at(array(FIRST(p), LAST(z)), 5)": "element_at(array(fp, lz), 5)",
    "map(FIRST(o), 1, LAST(o) - 1, 2)": "map(1, 1, 1, 2)",
    "make_date(2024, FIRST(p), LAST(z))": "make_date(2024, fp, lz)",
}

#: PySpark's classes of Spark's errors while a job runs
_RUNTIME_CLASSES = (
    ArithmeticException,
    ArrayIndexOutOfBoundsException,
    DateTimeException,
    IllegalArgumentException,
    NumberFormatException,
    SparkRuntimeException,
)


def _runtime_classes(err: BaseException) -> set[str]:
    return {c.__name__ for c in _RUNTIME_CLASSES if isinstance(err, c)}


@pytest.mark.parametrize("measure", list(WORKER_ERRORS))
def test_an_error_the_worker_computes_is_the_class_spark_raises(spark, ansi_view, measure):
    """The worker computes these measures as Spark would, and raises where Spark raises:
    the error was a PythonException (Spark's carrier of a worker's error) alone, where
    Spark's own is an ArithmeticException, a DateTimeException, ...: ``except
    ArithmeticException`` caught DIVIDE_BY_ZERO through one door only. It is also that
    class now, and still a PythonException."""
    with pytest.raises(PySparkException) as spark_error:
        spark.sql(ansi_view.format(expr=WORKER_ERRORS[measure])).collect()
    expected = _runtime_classes(spark_error.value)
    assert expected, spark_error.value
    with pytest.raises(PythonException) as info:
        spark.sql(_call(_ansi_body(measure), "mr_udtf_ansi")).collect()
    err = info.value
    assert isinstance(err, MatchRuntimeError), err
    assert _runtime_classes(err) == expected
    condition = spark_error.value.getCondition().split(".")[0]
    assert err.getCondition().split(".")[0] == condition


@pytest.mark.parametrize("door", ["sql", "table function"])
def test_an_error_of_defines_glue_is_the_class_spark_raises(spark, ansi_view, door):
    """DEFINE's glue (a condition over two rows) raises CAST_INVALID_INPUT as Spark's
    class of it, in each door."""
    with pytest.raises(PySparkException) as spark_error:
        spark.sql(ansi_view.format(expr="CAST(concat(fp, 'x', lz) AS INT)")).collect()
    body = (
        "ORDER BY o MEASURES count(*) AS n PATTERN (A B) "
        "DEFINE B AS CAST(concat(A.p, 'x', z) AS INT) > 0"
    )
    with pytest.raises(MatchRuntimeError) as info:
        if door == "sql":
            matchrec.sql(spark, f"SELECT * FROM mr_udtf_ansi MATCH_RECOGNIZE ({body})").collect()
        else:
            spark.sql(_call(body, "mr_udtf_ansi")).collect()
    assert _runtime_classes(info.value) == _runtime_classes(spark_error.value)
    assert info.value.getCondition() == spark_error.value.getCondition()


@pytest.mark.parametrize("measure", list(ANSI_MEASURES))
def test_the_same_measures_without_ansi_are_sparks_values(spark, ansi_off, ansi_view, measure):
    expected = spark.sql(ansi_view.format(expr=ANSI_MEASURES[measure]))
    got = spark.sql(_call(_ansi_body(measure), "mr_udtf_ansi"))
    assert got.schema == expected.schema
    assert got.collect() == expected.collect()


#: parts of a body that Spark computes over the input rows for the table function (its
#: ``select``): DEFINE's one-row conditions, an aggregate's argument; each raises under
#: ANSI mode on mr_udtf_ansi (a zero z, an INT overflow of p), at the quoted expression
SPARK_COMPUTED_ERRORS = {
    "DEFINE": (
        "ORDER BY o MEASURES count(*) AS n PATTERN (A B) DEFINE B AS 10 / z > 1",
        "10 / z",
        "DIVIDE_BY_ZERO",
    ),
    "aggregate": (
        "ORDER BY o MEASURES sum(p * 2) AS n PATTERN (A B) DEFINE B AS true",
        "p * 2",
        "ARITHMETIC_OVERFLOW",
    ),
    "cast": (
        "ORDER BY o MEASURES max(CAST(concat('x', B.p) AS INT)) AS n PATTERN (A B) "
        "DEFINE B AS true",
        "CAST(concat(",
        "CAST_INVALID_INPUT",
    ),
}


@pytest.mark.parametrize("part", list(SPARK_COMPUTED_ERRORS))
def test_an_ansi_error_spark_raises_in_a_computed_part_is_ours(spark, ansi_view, part):
    """Spark computes some parts of the body over the input (the table function's
    ``select``): its ANSI error there quoted our text of the part (``CASE WHEN (TRUE) THEN
    CAST(`n` AS INT) END``, "line 1, position 1"), not the user's body, as a
    NumberFormatException. It is our run-time error at the user's expression, Spark's
    condition and class kept."""
    body, caret, condition = SPARK_COMPUTED_ERRORS[part]
    with pytest.raises(PySparkException) as info:
        spark.sql(_call(body, "mr_udtf_ansi")).collect()
    err = info.value
    assert isinstance(err, MatchRuntimeError), err
    assert err.getCondition() == condition
    assert "== SQL" not in str(err) and "CASE WHEN" not in str(err)
    assert err.sql == body and err.sql[err.pos :].startswith(caret)


@pytest.mark.parametrize("condition", ["frobnicate(o) > 1", "o + 1 > 10 - frobnicate(PREV(o), 2)"])
def test_a_function_the_session_lacks_is_named_at_its_call(spark, table, condition):
    """A function the table function leaves to Spark (a session's function, as far as it
    knows) that the session lacks was Spark's UNRESOLVED_ROUTINE at "line 1 pos 0" of our
    text; it is a positioned error at the call in the body, still Spark's
    AnalysisException. The same call in a plain query stays Spark's own error."""
    body = f"ORDER BY o MEASURES count(*) AS n PATTERN (A B+) DEFINE B AS {condition}"
    with pytest.raises(AnalysisException) as info:
        spark.sql(_call(body, "mr_udtf_t")).collect()
    err = info.value
    assert isinstance(err, SemanticError), err
    assert err.getCondition() == "UNRESOLVED_ROUTINE"
    assert err.sql == body and err.sql[err.pos :].startswith("frobnicate(")
    with pytest.raises(AnalysisException) as plain:
        spark.sql("SELECT frobnicate(o) FROM mr_udtf_t").collect()
    assert not isinstance(plain.value, SemanticError)


_YM_SCHEMA = StructType(
    [
        StructField("k", IntegerType()),
        StructField("ts", TimestampType()),
        StructField("d", DateType()),
    ]
)


@pytest.fixture
def ym_view(spark, table):
    """Month ends, a leap day and NULLs: where adding months clips the day."""
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW mr_udtf_ym AS SELECT * FROM VALUES "
        "(1, TIMESTAMP'2024-01-31 10:00:00', DATE'2024-01-31'), "
        "(1, TIMESTAMP'2024-02-29 11:00:00', DATE'2024-02-29'), "
        "(2, TIMESTAMP'2023-08-31 00:00:00', DATE'2023-08-31'), "
        "(2, CAST(NULL AS TIMESTAMP), CAST(NULL AS DATE)) AS t(k, ts, d)"
    )
    return "mr_udtf_ym"


@pytest.mark.parametrize(
    "measure",
    [
        "max(ts) + INTERVAL '1' MONTH",
        "max(d) - INTERVAL '1-6' YEAR TO MONTH",
        "INTERVAL 1 YEAR 2 MONTHS + min(d)",
        "LAST(ts) - INTERVAL '13' MONTH",
        "max(d) + INTERVAL '1' MONTH * 2",
        "min(ts) - make_ym_interval(1, 1)",
        "max(d) + INTERVAL '1' MONTH * 1.5",
        "max(ts) - INTERVAL '1' YEAR / 8",
    ],
)
def test_a_year_month_literal_added_to_several_rows_is_spark_s_answer(spark, ym_view, measure):
    """A YEAR-MONTH interval literal added to a measure over several rows was refused
    (PySpark cannot hand the interval to the table function); it is a constant number of
    months, added as Spark adds it: the answer is Spark's own over each partition, whose
    one match is all its rows."""
    body = f"PARTITION BY k ORDER BY ts MEASURES {measure} AS v PATTERN (A+) DEFINE A AS true"
    got = spark.sql(_call(body, ym_view))
    spark_measure = measure.replace("LAST(ts)", "max_by(ts, ts)")
    want = spark.sql(f"SELECT k, {spark_measure} AS v FROM {ym_view} GROUP BY k")
    assert got.schema == want.schema
    assert sorted(got.collect()) == sorted(want.collect())


@pytest.mark.parametrize(
    "measure", ["max(d) + INTERVAL '1' MONTH * 1.5D", "max(ts) + INTERVAL '1' YEAR / 2.5D"]
)
def test_a_year_month_constant_of_several_rows_is_refused_when_built(measure):
    """A YEAR-MONTH interval the table function would have Spark compute for a measure
    over several rows (not a constant of literals and exact numbers): PySpark could not hand
    it over, and the query failed with Arrow's KeyError 21 and a traceback. It is
    refused at the measure, saying how."""
    body = f"PARTITION BY k ORDER BY ts MEASURES {measure} AS v PATTERN (A+) DEFINE A AS true"
    with pytest.raises(UnsupportedError, match="YEAR-MONTH interval") as info:
        build_program(body, _YM_SCHEMA)
    assert info.value.sql[info.value.pos :].startswith(measure)
    assert "add_months" in info.value.hint


def test_a_run_time_error_through_matchrec_sql_is_ours(spark, table):
    """The same worker error through matchrec.sql's DataFrame: our class, the caret in
    the line of the query that holds the clause."""
    body = "ORDER BY o MEASURES A.o AS a AFTER MATCH SKIP TO FIRST A PATTERN (A B) DEFINE B AS true"
    query = f"SELECT *\nFROM mr_udtf_t MATCH_RECOGNIZE ({body})"
    with pytest.raises(PythonException) as info:
        matchrec.sql(spark, query).collect()
    err = info.value
    assert isinstance(err, MatchRuntimeError) and err.line == 2
    assert str(err).startswith("runtime error: AFTER MATCH SKIP failed")
    assert err.sql[err.pos :].startswith("A PATTERN")


_WIDE_DECIMALS = (
    "SELECT * FROM VALUES ('P', 1, CAST(12345678901234567890.123456789012345678 AS "
    "DECIMAL(38,18))), ('P', 2, CAST(12345678901234567890.123456789012345678 AS "
    "DECIMAL(38,18))) AS t(p, id, dd)"
)
_AVG_BODY = "PARTITION BY p ORDER BY id MEASURES avg(dd) AS v PATTERN (A B) DEFINE B AS true"


def test_a_decimal_average_out_of_range_is_null_without_ansi_as_spark(spark, table, ansi_off):
    """Spark's avg of DECIMAL(38,18) is DECIMAL(38,22): out of range here, which is NULL
    without ANSI mode (the table function raised Python's InvalidOperation text)."""
    spark.sql(f"CREATE OR REPLACE TEMP VIEW mr_wide_dec AS {_WIDE_DECIMALS}")
    expected = spark.sql("SELECT p, avg(dd) AS v FROM mr_wide_dec GROUP BY p")
    got = spark.sql(_call(_AVG_BODY, "mr_wide_dec"))
    assert got.schema == expected.schema and got.collect() == expected.collect()


def test_a_decimal_average_out_of_range_is_sparks_condition_under_ansi(spark, table):
    spark.sql(f"CREATE OR REPLACE TEMP VIEW mr_wide_dec AS {_WIDE_DECIMALS}")
    with pytest.raises(PythonException) as info:
        spark.sql(_call(_AVG_BODY, "mr_wide_dec")).collect()
    err = info.value
    assert isinstance(err, MatchRuntimeError)
    assert err.getCondition() == "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION"
    assert "cannot be represented as Decimal(38, 22)" in err.message


def test_nested_struct_fields_are_typed_as_matchrec_sql_types_them(spark, table):
    """A path of two fields (info.geo.lat), inside an aggregate or after a navigation,
    was 'cannot infer the Spark type' in the table function."""
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW mr_nested AS SELECT * FROM VALUES "
        "(1, named_struct('geo', named_struct('lat', 1.5D, 'lon', 2), 'city', 'Oslo')), "
        "(2, named_struct('geo', named_struct('lat', 3.5D, 'lon', 4), 'city', 'Rome')) "
        "AS t(id, info)"
    )
    body = (
        "ORDER BY id MEASURES FIRST(A.info).geo.lat AS a, max(info.geo.lat) AS b, "
        "FIRST(A.info.geo).lon AS c, min(A.info.geo.lon) + 1 AS d "
        "PATTERN (A+) DEFINE A AS true"
    )
    got = spark.sql(_call(body, "mr_nested"))
    expected = matchrec.sql(spark, f"SELECT * FROM mr_nested MATCH_RECOGNIZE ({body})")
    assert got.schema == expected.schema
    assert got.collect() == expected.collect() == [(1.5, 3.5, 2, 3)]


@pytest.mark.parametrize(
    ("call", "spark_value"),
    [
        ("hash(round(A.dc + B.dc, 1))", "hash(round(a.dc + b.dc, 1))"),
        ("xxhash64(stddev(A.n), B.n)", "xxhash64(stddev(a.n), b.n)"),
        ("format_string('%s', date_add(A.d, B.n))", "format_string('%s', date_add(a.d, b.n))"),
        ("hash(sum(A.n) FILTER (WHERE A.n > 3))", "hash(sum(a.n) FILTER (WHERE a.n > 3))"),
        ("bit_get(A.n * 1000003 - B.n, B.n + 20)", "bit_get(a.n * 1000003 - b.n, b.n + 20)"),
        (
            "getbit(CAST(B.n - A.n * 9 AS TINYINT), '6')",
            "getbit(CAST(b.n - a.n * 9 AS TINYINT), 6)",
        ),
    ],
)
def test_typed_calls_in_define_know_their_argument_types_when_built(spark, call, spark_value):
    """``hash``/``format_string`` of several rows read each argument's Spark type, which
    the table function infers; a rounded DECIMAL and an aggregate were not known (a
    run-time error)."""
    spark.sql(
        """CREATE OR REPLACE TEMP VIEW mr_udtf_typed AS SELECT * FROM VALUES
        ('p', 1, 3, CAST(1.25 AS DECIMAL(10, 2)), DATE'2024-01-01'),
        ('p', 2, 5, CAST(2.5 AS DECIMAL(10, 2)), DATE'2024-01-05')
        AS v(k, o, n, dc, d)"""
    )
    matchrec.register(spark)
    (want,) = spark.sql(
        f"""SELECT {spark_value} FROM mr_udtf_typed a JOIN mr_udtf_typed b
        ON a.o = 1 AND b.o = 2 GROUP BY a.n, a.dc, a.d, b.n, b.dc, b.d"""
    ).first()
    want_sql = want if isinstance(want, int) else _literal(want)
    body = (
        "PARTITION BY k ORDER BY o MEASURES count(*) AS c PATTERN (A B) "
        f"DEFINE B AS {call} = {want_sql}"
    )
    got = spark.sql(f"SELECT c FROM match_recognize(TABLE(mr_udtf_typed), {_literal(body)})")
    assert [r.c for r in got.collect()] == [2]


def test_a_typed_call_whose_argument_type_cannot_be_told_is_refused_when_built(spark, table):
    body = (
        "PARTITION BY k ORDER BY o MEASURES count(*) AS c PATTERN (A B) "
        "DEFINE B AS hash(transform(array(A.v, B.v), x -> x * 2)) > 0"
    )
    with pytest.raises(Exception) as info:
        spark.sql(f"SELECT * FROM match_recognize(TABLE(mr_udtf_t), {_literal(body)})")
    text = str(info.value)
    assert "cannot tell the Spark type of" in text and "hash(" in text
    assert "line 1, column" in text and "CAST it to its Spark type" in text


@pytest.mark.parametrize("measure", ["struct(A.v, B.v)", "array(struct(A.v, B.v))"])
def test_a_struct_with_two_fields_of_one_name_is_refused_when_built(spark, table, measure):
    """Spark names ``struct(A.v, B.v)``'s fields v and v; PySpark's Arrow table functions
    rename them, and the job failed in Java's Arrow reader. A clear error instead."""
    body = f"PARTITION BY k ORDER BY o MEASURES {measure} AS m PATTERN (A B) DEFINE B AS true"
    with pytest.raises(Exception) as info:  # noqa: PT011 - Spark wraps the UDTF's error
        spark.sql(f"SELECT * FROM match_recognize(TABLE(mr_udtf_t), {_literal(body)})")
    text = str(info.value)
    assert "two fields named 'v'" in text and "named_struct(" in text
    named = measure.replace("A.v, B.v", "A.v AS a, B.v AS b")
    body = f"PARTITION BY k ORDER BY o MEASURES {named} AS m PATTERN (A B) DEFINE B AS true"
    rows = spark.sql(f"SELECT m FROM match_recognize(TABLE(mr_udtf_t), {_literal(body)})")
    assert rows.count() > 0


@pytest.mark.parametrize("measure", ["LAST(B.p) div FIRST(A.p)", "CAST(A.v AS FLOAT) div 2"])
def test_div_of_a_double_is_refused_as_spark_refuses_it(spark, table, measure):
    """Spark's ``div`` takes integers and DECIMALs (a DOUBLE is DATATYPE_MISMATCH, ANSI
    mode or not); the table function computed it."""
    body = f"PARTITION BY k ORDER BY o MEASURES {measure} AS m PATTERN (A B) DEFINE B AS true"
    with pytest.raises(Exception) as info:  # noqa: PT011 - Spark wraps the UDTF's error
        spark.sql(f"SELECT * FROM match_recognize(TABLE(mr_udtf_t), {_literal(body)})")
    assert "DIV takes integers and DECIMALs" in str(info.value)
    with pytest.raises(Exception, match="DATATYPE_MISMATCH"):
        spark.sql("SELECT 7.5D div 2").collect()


def test_a_date_past_year_9999_is_sparks_in_python_measures(spark):
    """Spark's dates reach past year 9999; Python's stop there. The table function's
    Python measures hold such a date as Spark does (``matchrec.far_dates``); they were
    a matchrec error naming the range, and before that a Python traceback."""
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW mr_udtf_far AS SELECT k, o, date_add(d, n) AS d, n "
        "FROM VALUES ('p', 1, DATE'9999-12-31', 4), ('p', 2, DATE'9999-12-31', 4) AS v(k, o, d, n)"
    )
    matchrec.register(spark)
    body = (
        "PARTITION BY k ORDER BY o MEASURES concat(LAST(B.d), A.n) AS m "
        "PATTERN (A B) DEFINE B AS true"
    )
    got = spark.sql(f"SELECT m FROM match_recognize(TABLE(mr_udtf_far), {_literal(body)})")
    want = spark.sql(
        "SELECT concat(B.d, A.n) FROM mr_udtf_far A JOIN mr_udtf_far B ON B.o = A.o + 1"
    )
    assert [tuple(r) for r in got.collect()] == [tuple(r) for r in want.collect()]


# ------------------------------------------------------------------ ANSI mode off

_GUARDED_SCHEMA = StructType(
    [
        StructField("sym", StringType()),
        StructField("ts", TimestampType()),
        StructField("price", DoubleType()),
        StructField("s", StringType()),
        StructField("n", IntegerType()),
    ]
)
#: measures whose columns were guarded by DEFINE's conditions under ANSI mode only
_GUARDED_MEASURES = [
    "timestampdiff(MINUTE, A.ts, LAST(B.ts))",
    "months_between(LAST(B.ts), A.ts)",
    "sum(CAST(B.s AS INT))",
    "avg(B.price / B.n)",
    "CAST(LAST(B.s) AS INT)",
    "max(B.n % 3)",
]


@pytest.mark.parametrize("measure", _GUARDED_MEASURES)
def test_the_columns_asked_of_spark_do_not_depend_on_ansi_mode(measure):
    """``analyze`` plans under ANSI mode (it has no session), each task under the
    session's: with ANSI off, a guarded column was missing and every task failed with
    Arrow's "tried to rename a record batch of 15 columns but only 14 names"."""
    body = (
        f"PARTITION BY sym ORDER BY ts MEASURES {measure} AS x "
        "PATTERN (A B+) DEFINE B AS price < PREV(price) AND n > 0"
    )
    on, off = (
        build_program(body, _GUARDED_SCHEMA, True),
        build_program(body, _GUARDED_SCHEMA, False),
    )
    assert off.selected == on.selected and off.names == on.names


def test_a_cast_of_another_variable_s_text_without_ansi(spark, table, ansi_off):
    """``CAST(LAST(A.s) AS INT)`` in DEFINE without ANSI mode: the tasks planned another
    set of columns than analyze (which plans under ANSI mode) and failed renaming them."""
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW mr_udtf_casts AS SELECT * FROM VALUES "
        "(1, '1'), (2, '5'), (3, '7'), (4, 'x'), (5, '-2'), (6, '3') AS t(id, s)"
    )
    body = """ORDER BY id MEASURES A.id AS a, B.id AS b PATTERN (A B)
        DEFINE A AS true, B AS CAST(LAST(A.s) AS INT) > 0"""
    got = sorted(tuple(r) for r in spark.sql(_call(body, "mr_udtf_casts")).collect())
    expected = matchrec.sql(spark, f"SELECT * FROM mr_udtf_casts MATCH_RECOGNIZE ({body})")
    assert got == sorted(tuple(r) for r in expected.collect()) == [(1, 2), (3, 4)]


def test_date_differences_without_ansi_are_matchrec_sql_s(spark, table, ansi_off):
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW mr_udtf_times AS SELECT * FROM VALUES "
        "('A', TIMESTAMP'2024-01-01 10:00:00', 10.0D), ('A', TIMESTAMP'2024-03-01 10:05:00', 8.0D),"
        "('A', TIMESTAMP'2024-03-02 10:30:00', 7.0D) AS v(sym, ts, price)"
    )
    body = (
        "PARTITION BY sym ORDER BY ts MEASURES timestampdiff(MINUTE, A.ts, LAST(B.ts)) AS m, "
        "months_between(LAST(B.ts), A.ts) AS mb PATTERN (A B+) DEFINE B AS price < PREV(price)"
    )
    got = spark.sql(_call(body, "mr_udtf_times"))
    want = matchrec.sql(spark, f"SELECT * FROM mr_udtf_times MATCH_RECOGNIZE ({body})")
    assert got.schema == want.schema
    assert got.collect() == want.collect() and len(want.collect()) == 1


def test_the_arguments_may_be_named(spark, table):
    """``table => TABLE(t), body => '...'`` passed ``analyze`` and then failed every task
    with UDTF_EVAL_METHOD_ARGUMENTS_DO_NOT_MATCH_SIGNATURE (eval named them otherwise)."""
    body = "ORDER BY o MEASURES count(*) AS n PATTERN (A B+) DEFINE B AS true"
    positional = spark.sql(_call(body)).collect()
    call = f"SELECT * FROM match_recognize(body => {_literal(body)}, table => TABLE(mr_udtf_t))"
    assert spark.sql(call).collect() == positional and positional
    # matchrec.sql (and the CLI, the magic, the slt runner) read it as the table function
    assert matchrec.sql(spark, call).collect() == positional


@pytest.mark.parametrize(
    "measure", ["named_struct('x', 1).x", "named_struct('x', 1, 'y', 'a').y", "struct(7 AS q).q"]
)
def test_a_field_of_a_struct_built_of_constants(spark, table, measure):
    """It was refused: "the struct has 1 field named x: its fields are x"."""
    body = f"ORDER BY o MEASURES {measure} AS x PATTERN (A B+) DEFINE B AS true"
    got = spark.sql(_call(body))
    want = matchrec.sql(spark, f"SELECT * FROM mr_udtf_t MATCH_RECOGNIZE ({body})")
    assert [f.dataType for f in got.schema.fields] == [f.dataType for f in want.schema.fields]
    assert got.collect() == want.collect()


def test_a_subquery_it_cannot_type_is_named_as_the_reason():
    """The refusal said only "cannot infer the Spark type of measure 'x'"."""
    body = (
        "PARTITION BY sym ORDER BY ts MEASURES LAST(B.price) - (SELECT min(price) FROM t) AS x "
        "PATTERN (A B+) DEFINE B AS price < PREV(price)"
    )
    with pytest.raises(UnsupportedError) as info:
        build_program(body, _GUARDED_SCHEMA, True)
    assert "a scalar subquery's type" in info.value.message and "CAST" in info.value.hint


def test_the_udf_a_measure_calls_is_named_not_one_of_its_labels_condition():
    """``f(LAST(B.price))`` is computed on B's rows under B's condition; the refusal named
    the UDF of that condition (``py_flag()``), not the measure's own ``py_scale()``."""
    body = (
        "PARTITION BY sym ORDER BY ts MEASURES py_scale(LAST(B.price), 1) AS x "
        "PATTERN (A B+) DEFINE B AS py_flag(B.price) > 0"
    )
    with pytest.raises(UnsupportedError) as info:
        build_program(body, _GUARDED_SCHEMA, True)
    assert "py_scale() is no function" in info.value.message


def test_a_boolean_equal_to_a_number_says_ansi_mode_refuses_it():
    """The table function plans under ANSI mode; the refusal of ``A.n = true`` said Spark
    compares a BOOLEAN only with a BOOLEAN, which is false without ANSI mode (1 or 0)."""
    schema = StructType([*_GUARDED_SCHEMA.fields, StructField("flag", BooleanType())])
    body = "ORDER BY ts MEASURES LAST(A.n) = FIRST(A.flag) AS x PATTERN (A+) DEFINE A AS true"
    with pytest.raises(SemanticError) as info:
        build_program(body, schema, True)
    assert "under ANSI mode Spark compares a BOOLEAN only with a BOOLEAN" in info.value.message


def _json_values(df) -> list[tuple]:
    """The rows of ``df`` with each VARIANT as its JSON text (VariantVal has no ``==``)."""
    rows = (tuple(v.toJson() if isinstance(v, VariantVal) else v for v in r) for r in df.collect())
    return sorted(rows, key=repr)


def test_variant_measures_and_functions_failing_on_rows_never_read(spark, table):
    """VARIANT measures (``parse_json``, a VARIANT column, ``variant_get``) are typed: the
    table function refused them ("cannot infer the Spark type", and called
    ``try_parse_json`` no built-in function). ``parse_json(FIRST(A.payload))`` is
    computed for A's rows only: Spark parsed every row's payload and failed the job on a
    row that is no A (``'x'``), which the measure never reads."""
    spark.sql(
        """CREATE OR REPLACE TEMP VIEW mr_udtf_json AS SELECT k, ts, payload,
           try_parse_json(payload) AS j, v, d FROM VALUES
           (1, 1, '{"a":1}', 10, 2), (1, 2, '{"a":2}', 5, 0), (1, 3, 'x', 7, 0),
           (1, 4, '{"a":4}', 8, 1), (1, 5, '{"a":5}', 6, 3) AS t(k, ts, payload, v, d)"""
    )
    body = """PARTITION BY k ORDER BY ts
        MEASURES parse_json(FIRST(A.payload)) AS pj, try_parse_json(LAST(B.payload)) AS tj,
                 FIRST(A.j) AS fj, variant_get(LAST(B.j), '$.a', 'int') AS vb,
                 variant_get(FIRST(A.j), '$.a') AS va, is_variant_null(FIRST(A.j)) AS isn,
                 schema_of_variant(FIRST(A.j)) AS sch
        ALL ROWS PER MATCH PATTERN (A B) DEFINE A AS A.d > 0, B AS B.v < PREV(B.v)"""
    expected = matchrec.sql(spark, f"SELECT * FROM mr_udtf_json MATCH_RECOGNIZE ({body})")
    got = spark.sql(_call(body, "mr_udtf_json"))
    assert _fields(got.schema) == _fields(expected.schema)
    assert _json_values(got) == _json_values(expected)
    assert sorted(r.pj.toJson() for r in got.collect()) == ['{"a":1}'] * 2 + ['{"a":4}'] * 2


@pytest.mark.parametrize(
    "measure",
    [
        "FIRST(A.s) RLIKE FIRST(A.p)",
        "split(FIRST(A.s), FIRST(A.p))",
        "regexp_count(LAST(A.s), LAST(A.p))",
        "slice(array(1, 2, 3), FIRST(A.n), 1)",
    ],
)
def test_a_pattern_or_position_from_a_row_the_measure_never_reads(spark, table, measure):
    """A regular expression or an array position taken from a row: Spark computed the
    function on every row and failed the job on one that is no A (``'('``, ``0``)."""
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW mr_udtf_patterns AS SELECT * FROM VALUES "
        "(1, 'x', 'abc', '(', 0), (2, 'a', 'abc', 'a.c', 1), (3, 'b', 'abd', 'x', 2) "
        "AS t(id, lab, s, p, n)"
    )
    body = f"""ORDER BY id MEASURES {measure} AS m PATTERN (A B)
        DEFINE A AS lab = 'a', B AS lab = 'b'"""
    expected = spark.sql(
        f"SELECT {measure.replace('FIRST(A.', '(').replace('LAST(A.', '(')} AS m "
        "FROM mr_udtf_patterns WHERE id = 2"
    ).collect()
    assert spark.sql(_call(body, "mr_udtf_patterns")).collect() == expected


@pytest.mark.parametrize(
    ("measure", "condition", "pattern"),
    [
        ("regexp_extract(LAST(A.raw), 'CELL=(', 1)", "true", "'CELL=('"),
        ("count(*)", "regexp_extract(raw, 'DROP=(', 1) = '1'", "'DROP=('"),
        ("count(*)", "raw RLIKE 'a{2,1}'", "'a{2,1}'"),
    ],
)
def test_a_regular_expression_java_rejects_is_refused_at_the_literal(measure, condition, pattern):
    """``analyze`` has no session to ask Spark about a pattern: an unclosed group reached
    the caller as Spark's SparkRuntimeException once the job ran. matchrec's reader of
    Java's regex syntax finds it at the literal, as matchrec.sql does."""
    schema = StructType([*_GUARDED_SCHEMA.fields, StructField("raw", StringType())])
    body = f"ORDER BY ts MEASURES {measure} AS x PATTERN (A+) DEFINE A AS {condition}"
    with pytest.raises(SemanticError) as info:
        build_program(body, schema, True)
    assert info.value.message.startswith("Spark cannot use the regular expression")
    assert info.value.pos == body.index(pattern)


@pytest.mark.parametrize("measure", ["initcap(A.s)", "sort_array(array(A.s, LAST(s)))"])
def test_a_call_sqlglot_cannot_write_with_null_arguments_is_a_measure(measure):
    """The check for functions that fail on some values wrote each call with NULL
    arguments; sqlglot refuses ``initcap`` with a NULL delimiter (and ``sort_array`` with a
    NULL direction), so every such measure of the table function and the rules was
    refused ("INITCAP does not support custom delimiters")."""
    body = f"ORDER BY ts MEASURES {measure} AS x PATTERN (A+) DEFINE A AS n > 0"
    program = build_program(body, _GUARDED_SCHEMA, True)
    assert [f.name for f in program.schema.fields] == ["x"]


def test_a_decimal_aggregate_inside_an_expression_keeps_spark_s_scale(spark, table):
    """``CAST(avg(A.amount) AS STRING)`` of a DECIMAL(12,2) is '9.600000' in Spark (avg's
    type is a DECIMAL(16,6)); the table function wrote '9.60', the value's own scale."""
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW mr_udtf_amounts AS SELECT * FROM VALUES "
        "(1, CAST(8.23 AS DECIMAL(12,2))), (2, CAST(10.97 AS DECIMAL(12,2))) AS t(seq, amount)"
    )
    body = """ORDER BY seq
        MEASURES CAST(avg(A.amount) AS STRING) AS a1, avg(A.amount) || '' AS a2,
                 CAST(FIRST(A.amount) / 3 AS STRING) AS a3, avg(A.amount) * 2 AS a4
        PATTERN (A+) DEFINE A AS true"""
    expected = matchrec.sql(spark, f"SELECT * FROM mr_udtf_amounts MATCH_RECOGNIZE ({body})")
    got = spark.sql(_call(body, "mr_udtf_amounts"))
    assert _fields(got.schema) == _fields(expected.schema)
    assert got.collect() == expected.collect()


@pytest.mark.parametrize(
    ("pattern", "condition"),
    [("a\\\\", "INVALID_FORMAT.ESC_AT_THE_END"), ("a\\\\b", "INVALID_FORMAT.ESC_IN_THE_MIDDLE")],
)
def test_a_like_pattern_with_a_misplaced_escape_is_spark_s_error(spark, table, pattern, condition):
    """``'ab' LIKE FIRST(A.p)`` with a pattern ending in the escape character (or one
    escaping a letter) is an error in Spark, in matchrec.sql too; the table function's
    evaluator answered false."""
    spark.sql(f"CREATE OR REPLACE TEMP VIEW mr_udtf_like AS SELECT 1 AS seq, '{pattern}' AS p")
    body = "ORDER BY seq MEASURES 'ab' LIKE FIRST(A.p) AS m PATTERN (A) DEFINE A AS true"
    for run in (
        lambda: matchrec.sql(spark, f"SELECT * FROM mr_udtf_like MATCH_RECOGNIZE ({body})"),
        lambda: spark.sql(_call(body, "mr_udtf_like")),
    ):
        with pytest.raises(Exception) as info:
            run().collect()
        assert condition in str(info.value)


@pytest.mark.parametrize(
    "text", ["CAST(unhex(A.s) AS STRING)", "CAST(try_to_binary(A.s, 'hex') AS STRING)"]
)
def test_text_that_is_not_utf8_reads_as_spark_hands_it_to_python(spark, table, text):
    """A STRING of bytes that are no UTF-8 (0x0A 0xBC) failed the table function's worker
    with Python's UnicodeDecodeError; it is read as PySpark reads it, U+FFFD for each
    bad sequence, the value matchrec.sql gives."""
    spark.sql(
        "SELECT * FROM VALUES (1, 1, '0ABC'), (1, 2, '41') AS t(g, seq, s)"
    ).createOrReplaceTempView("mr_not_utf8")
    body = f"PARTITION BY g ORDER BY seq MEASURES {text} AS m PATTERN (A B) DEFINE A AS seq = 1"
    through_sql = matchrec.sql(spark, f"SELECT * FROM mr_not_utf8 MATCH_RECOGNIZE ({body})")
    got = spark.sql(_call(body, "mr_not_utf8")).collect()
    assert got == through_sql.collect() == [(1, "\n\ufffd")]
