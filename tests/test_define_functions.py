"""Spark SQL functions over match-dependent values in DEFINE.

A function of one navigated row (``f(FIRST(S.x))``, ``f(A.x)``) moves inside the
navigation and Spark computes it (``planner.pushdown``): each case here must give what
the same query gives when the user computes ``f`` in a subquery first. Functions that
stay in DEFINE's Python glue are checked against Spark itself on generated values
(a differential test). Errors name what the user wrote.
"""

from __future__ import annotations

import functools
import math
import random
import re
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone

import pytest
from doors import DOORS, rows_through
from matchrec.grammar import parse_clause
from matchrec.planner.datetime_functions import DATETIME_FUNCTIONS
from matchrec.planner.pattern_literals import check_pattern_literals
from matchrec.planner.plan import plan_clause
from matchrec.planner.pyeval import compile_glue
from matchrec.planner.sqltext import MatchRecognizeDialect
from matchrec.runtime.session import session_settings
from pyspark.errors import PySparkException, PythonException
from pyspark.sql import functions as F
from spark_windows import every_door
from sqlglot import exp, parse_one

import matchrec
from matchrec.carried import rebuild
from matchrec.errors import MatchRuntimeError, SemanticError, UnsupportedError
from matchrec.excepthook import carried_error
from matchrec.zones import use_zone

ROWS = """('u', 1, TIMESTAMP'2024-01-01 10:00:00', '/a', 'x', 5.0D),
 ('u', 2, TIMESTAMP'2024-01-01 10:30:00', '/a/b', 'Y', 6.0D),
 ('u', 3, TIMESTAMP'2024-01-01 11:30:00', '/a/b/c', NULL, 7.0D),
 ('u', 4, TIMESTAMP'2024-01-02 12:30:00', '/z', 'z', NULL),
 ('u', 5, TIMESTAMP'2024-01-02 12:40:00', '/z/q', 'w', 9.0D),
 ('v', 1, NULL, NULL, 'x', 1.0D),
 ('v', 2, TIMESTAMP'2024-01-03 00:00:00', '/q', 'x', 2.0D),
 ('v', 3, TIMESTAMP'2024-01-03 01:00:00', '/q/r', 'x', 0.5D)"""

QUERY = """SELECT * FROM {view} MATCH_RECOGNIZE (
  PARTITION BY usr ORDER BY id
  MEASURES FIRST(id) AS f, LAST(id) AS l, count(N.*) AS n
  PATTERN ({pattern})
  DEFINE N AS {define}
) AS m ORDER BY usr, f"""


@pytest.fixture(scope="module")
def events(spark):
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW fn_events AS SELECT * FROM VALUES "
        f"{ROWS} AS fn_events(usr, id, ts, path, item, v)"
    )
    spark.sql(
        "CREATE OR REPLACE TEMPORARY FUNCTION fn_hour(t TIMESTAMP) RETURNS INT RETURN hour(t)"
    )
    spark.udf.register("fn_plus1", lambda x: None if x is None else x + 1.0, "double")
    yield "fn_events"
    spark.catalog.dropTempView("fn_events")


# (pattern, DEFINE as a user writes it, the same with f computed in the subquery below)
PRECOMPUTED = """(SELECT *, unix_timestamp(ts) AS uts, to_date(ts) AS d, fn_hour(ts) AS h,
  fn_plus1(v) AS p1, lower(item) AS li, coalesce(v, -1D) AS cv, concat(path, '/%') AS pp,
  concat_ws('-', item, 'k') AS cw FROM fn_events)"""
CASES = [
    (
        "S N+",
        "unix_timestamp(N.ts) - unix_timestamp(FIRST(S.ts)) <= 7200",
        "N.uts - FIRST(S.uts) <= 7200",
    ),
    ("S N+", "to_date(N.ts) = to_date(FIRST(S.ts))", "N.d = FIRST(S.d)"),
    ("S N+", "fn_hour(N.ts) >= fn_hour(FIRST(S.ts))", "N.h >= FIRST(S.h)"),  # SQL UDF
    ("S N+", "fn_plus1(N.v) > fn_plus1(S.v)", "N.p1 > S.p1"),  # Python UDF
    ("S N+", "lower(S.item) = 'x' AND N.v > 0", "S.li = 'x' AND N.v > 0"),
    ("S N+", "N.path LIKE concat(S.path, '/%')", "N.path LIKE S.pp"),
    # coalesce is not NULL for a NULL argument: while no S row exists, f(NULL) counts
    (
        "S? N+",
        "coalesce(FIRST(S.v), -1D) < N.v",
        "CASE WHEN count(S.*) > 0 THEN FIRST(S.cv) ELSE -1D END < N.v",
    ),
    ("N+", "size(collect_set(N.item)) <= 2", "count(DISTINCT N.item) <= 2"),
    # concat_ws skips NULLs and the glue does not have it: Spark computes it, and while
    # no S row exists the condition sees concat_ws('-', NULL, 'k') = 'k'
    (
        "S? N+",
        "concat_ws('-', FIRST(S.item), 'k') = 'k' OR N.v > 6",
        "CASE WHEN count(S.*) > 0 THEN FIRST(S.cw) ELSE 'k' END = 'k' OR N.v > 6",
    ),
    # a WHEN ... THEN pair of one row is no value: its result moves, the CASE stays
    (
        "S N+",
        "CASE WHEN FIRST(S.v) > 4 THEN concat_ws('-', FIRST(S.item), 'k') ELSE N.item END "
        "IN ('x-k', 'x')",
        "CASE WHEN FIRST(S.v) > 4 THEN FIRST(S.cw) ELSE N.item END IN ('x-k', 'x')",
    ),
]


@pytest.mark.parametrize(("pattern", "define", "precomputed"), CASES)
def test_functions_of_navigated_rows_give_spark_answers(
    spark, events, pattern, define, precomputed
):
    got = matchrec.sql(spark, QUERY.format(view=events, pattern=pattern, define=define))
    want = matchrec.sql(spark, QUERY.format(view=PRECOMPUTED, pattern=pattern, define=precomputed))
    rows = got.collect()
    assert rows == want.collect()
    assert rows  # the case matches something


def _plan(define: str, pattern: str = "S N+"):
    body = f"PARTITION BY usr ORDER BY id PATTERN ({pattern}) DEFINE N AS {define}"
    return plan_clause(parse_clause(body), ["usr", "id", "ts", "path", "item", "v"])


def test_a_pushed_function_is_a_spark_column_and_the_glue_stays_vectorized():
    p = _plan("unix_timestamp(N.ts) - unix_timestamp(FIRST(S.ts)) <= 7200")
    texts = [text for _, text in p.precomputed]
    assert "UNIX_TIMESTAMP(`ts`)" in texts
    assert p.defines["N"].vector is not None


@pytest.mark.parametrize(
    ("define", "spark_computes"),
    [
        # fails on some values: the glue computes it for the one row the condition reads
        ("make_date(2024, 1, FIRST(S.v)) < N.ts", None),
        ("unbase64(FIRST(S.path)) IS NOT NULL", None),
        ("pmod(FIRST(S.v), 3) = 1", None),
        # parses text or reads a pattern: Spark's column, the faster form
        ("regexp_extract(FIRST(S.path), '/(\\w+)', 1) = N.item", "REGEXP_EXTRACT(`path`"),
        ("date_format(FIRST(S.ts), 'dd') > '04'", "DATE_FORMAT(`ts`, 'dd')"),
    ],
)
def test_a_failing_function_of_another_row_is_computed_for_the_row_read(define, spark_computes):
    columns = ["usr", "id", "ts", "path", "item", "v"]
    body = f"PARTITION BY usr ORDER BY id PATTERN (S N+) DEFINE N AS {define}"
    p = plan_clause(parse_clause(body), columns, ansi=True, column_types={"ts": "timestamp"})
    texts = [text for _, text in p.precomputed]
    if spark_computes is None:
        assert texts == []
    else:
        assert any(text.startswith(spark_computes) for text in texts), texts


@pytest.mark.parametrize(
    ("cast", "types", "pushed"),
    [
        ("CAST(S.v AS DOUBLE)", {"v": "int"}, True),  # widens: cannot fail
        ("CAST(S.ts AS DATE)", {"ts": "timestamp"}, True),
        ("CAST(S.v AS INT)", {"v": "double"}, False),  # narrows: ANSI's CAST_OVERFLOW
        ("CAST(S.item AS DOUBLE)", {"item": "string"}, False),  # text: CAST_INVALID_INPUT
        ("to_date(S.item)", {"item": "string"}, False),
        ("CAST(S.v AS DOUBLE)", {}, False),  # the type unknown (a MATCH_RECOGNIZE_DYNAMIC rule)
    ],
)
def test_a_cast_of_another_row_is_a_spark_column_only_where_it_cannot_fail(cast, types, pushed):
    body = f"PARTITION BY usr ORDER BY id PATTERN (S N+) DEFINE N AS N.v > {cast}"
    columns = ["usr", "id", "ts", "path", "item", "v"]
    p = plan_clause(parse_clause(body), columns, ansi=True, column_types=types)
    assert any(text.startswith(("CAST(", "TO_DATE(")) for _, text in p.precomputed) is pushed
    without_ansi = plan_clause(parse_clause(body), columns, ansi=False, column_types=types)
    assert any(text.startswith(("CAST(", "TO_DATE(")) for _, text in without_ansi.precomputed)


@pytest.mark.parametrize(
    ("define", "name"),
    [
        ("date_format(N.ts, FIRST(S.path)) = 'x'", "date_format"),
        ("unix_timestamp(concat(N.path, FIRST(S.path)), S.path) > 0", "unix_timestamp"),
        ("to_date(concat(N.path, S.path), N.path) IS NULL", "to_date"),
    ],
)
def test_errors_name_the_function_as_written(define, name):
    with pytest.raises(UnsupportedError) as info:
        _plan(define)
    err = info.value
    assert err.message.startswith(f"function {name}() cannot be applied")
    assert err.sql[err.pos :].startswith(name)


@pytest.mark.parametrize(
    ("define", "error", "at", "says"),
    [
        ("format_string('%-3s %tY', N.path, S.ts) IS NULL", UnsupportedError, "%tY", "%t"),
        ("printf('%s|%a', N.path, FIRST(S.v)) = 'a|1'", UnsupportedError, "%a", "%a"),
        ("format_string('%s %q', N.path, S.id) = 'a'", SemanticError, "%q", "unknown"),
        ("format_string('id %,x', N.id + S.id) = 'a'", SemanticError, "%,x", "flag ','"),
        ("format_string('%-d', N.id + S.id) = 'a'", SemanticError, "%-d", "width"),
    ],
)
def test_a_format_specifier_java_rejects_or_the_glue_lacks_is_refused_when_built(
    define, error, at, says
):
    """A literal format of several rows' values with a specifier Java's formatter
    rejects, or one the glue does not compute, is an error at that specifier when the
    query is built (it failed the job at the first match, a worker traceback through the
    table function)."""
    with pytest.raises(error) as info:
        _plan(define)
    err = info.value
    assert says in err.message
    assert err.sql[err.pos :].startswith(at)


def test_a_format_of_several_rows_with_known_conversions_still_plans():
    assert _plan("format_string('%-4s|%05d %% %.2f', N.path, S.id, S.v) = 'a'") is not None


@pytest.mark.parametrize("call", ["rand()", "uuid()", "reflect('java.util.UUID', 'randomUUID')"])
def test_non_deterministic_functions_are_refused_in_define(call):
    with pytest.raises(UnsupportedError) as info:
        _plan(f"N.v > 0 AND {call} IS NOT NULL")
    err = info.value
    assert "is not deterministic" in err.message
    assert err.sql[err.pos :].startswith(call.split("(")[0])


@pytest.mark.parametrize(
    "measure",
    [
        "rand()",
        "LAST(N.v) + randn(1)",
        "uuid()",
        "count(*) FILTER (WHERE rand() < 2)",
        "shuffle(array_agg(N.v))",
        "reflect('java.util.UUID', 'randomUUID')",
    ],
)
@pytest.mark.parametrize("python_measures", [False, True])
def test_non_deterministic_functions_are_refused_in_measures(measure, python_measures):
    """The issue asks for a positioned error: a measure may be computed again for the same
    match, and Spark would give another value (they ran, in every door)."""
    body = f"PARTITION BY usr ORDER BY id MEASURES {measure} AS m PATTERN (S N+) DEFINE N AS v > 0"
    with pytest.raises(UnsupportedError) as info:
        plan_clause(
            parse_clause(body),
            ["usr", "id", "ts", "path", "item", "v"],
            python_measures=python_measures,
        )
    err = info.value
    assert "is not deterministic" in err.message and "in MEASURES" in err.message
    called = next(f for f in ("reflect", "randn", "rand", "uuid", "shuffle") if f in measure)
    assert err.sql[err.pos :].startswith(called)
    assert "around MATCH_RECOGNIZE" in err.hint


# ---------------------------------------------------------------- differential: Spark vs glue

STRINGS = ["", "a", "abc", "ABC", "a%c", "a_c", "a\\c", "x.y", "line\nbreak", None]
PATTERNS = ["", "%", "_", "a%", "%c", "a_c", "A%", "a\\%c", "%.%", "a.c", "^a", "b+", None]
DIFFERENTIAL = ["s LIKE p", "s ILIKE p", "s RLIKE p", "size(arr)", "cardinality(arr)"]


def _glue_value(text: str, row: dict):
    """``text`` evaluated by DEFINE's Python glue, every column an atom read from ``row``."""
    return _compiled_glue(text)(row)


@functools.lru_cache(maxsize=256)
def _compiled_glue(text: str):
    """``text`` compiled once by DEFINE's Python glue into a function of a row."""
    tree = parse_one(text, read=MatchRecognizeDialect)
    current: dict = {}

    def child(node: exp.Expression):
        if isinstance(node, exp.Column):
            return lambda ctx, name=node.name: current[name]
        return compile_glue(node, child, lambda n: 0, text)

    compiled = child(tree)

    def evaluate(row: dict):
        current.clear()
        current.update(row)
        return compiled(None)

    return evaluate


@pytest.mark.parametrize("text", DIFFERENTIAL)
def test_glue_functions_equal_spark(spark, text):
    values = [(s, p, None if s is None else list(s)) for s in STRINGS for p in PATTERNS]
    df = spark.createDataFrame(values, "s STRING, p STRING, arr ARRAY<STRING>")
    rows = df.selectExpr("*", f"{text} AS result").collect()
    for row in rows:
        assert _glue_value(text, row.asDict()) == row.result, (text, row)


# ---------------------------------------------------------------- MEASURES, struct fields

STRUCTS = """(SELECT 'u' AS usr, id,
  TIMESTAMP'2024-01-01 10:00:00' + make_interval(0, 0, 0, 0, 0, id) AS ts,
  named_struct('city', concat('c', id), 'kg', id * 1.5D) AS info FROM range(1, 6) AS r(id))"""
FLAT = f"(SELECT *, info.city AS city, info.kg AS kg, ts + INTERVAL 1 HOUR AS dl FROM {STRUCTS})"
SHAPE = """SELECT * FROM {view} MATCH_RECOGNIZE (
  PARTITION BY usr ORDER BY id
  MEASURES {measures}
  PATTERN (V R+)
  DEFINE R AS {define}
) AS m"""

# (MEASURES, DEFINE as a user writes them, the same over flattened columns)
FIELD_CASES = [
    ("FIRST(V.ts) + INTERVAL 1 HOUR AS deadline", "true", "FIRST(V.dl) AS deadline", "true"),
    (
        "LAST(R.info.city) AS c, FIRST(info.kg) AS k, R.info.city AS r",
        "R.info.kg > V.info.kg AND info.kg < 6",
        "LAST(R.city) AS c, FIRST(kg) AS k, R.city AS r",
        "R.kg > V.kg AND kg < 6",
    ),
    # a field of a struct built from two rows (Spark's field names, any case)
    (
        "named_struct('first', V.info.kg, 'last', LAST(R.info.kg)).LAST AS k",
        "named_struct('a', V.info.kg, 'b', R.info.kg).b > struct(V.info.kg * 1.1, R.id).col1"
        " AND struct(R.id AS n, V.id).n < 5",
        "LAST(R.kg) AS k",
        "R.kg > V.kg * 1.1 AND R.id < 5",
    ),
]


@pytest.mark.parametrize(("measures", "define", "flat_measures", "flat_define"), FIELD_CASES)
def test_intervals_and_struct_fields(spark, measures, define, flat_measures, flat_define):
    got = matchrec.sql(spark, SHAPE.format(view=STRUCTS, measures=measures, define=define))
    want = SHAPE.format(view=FLAT, measures=flat_measures, define=flat_define)
    rows = got.collect()
    assert rows and rows == matchrec.sql(spark, want).collect()


@pytest.mark.parametrize(
    ("define", "words"),
    [
        ("struct(N.v, FIRST(S.v)).col1 > 1", "no field named col1: its fields are v, col2"),
        ("struct(N.v AS p, FIRST(S.v) AS q).r > 1", "no field named r: its fields are p, q"),
        ("named_struct('x', N.v, 'X', S.v).x > 1", "2 fields named x: its fields are x, X"),
    ],
)
def test_a_field_a_struct_of_several_rows_lacks_is_a_positioned_error(define, words):
    """Spark's FIELD_NOT_FOUND (a column's field is named after it: ``struct(N.v, ...)``
    has ``v``, not ``col1``) or AMBIGUOUS_REFERENCE_TO_FIELDS, the caret at the field."""
    with pytest.raises(SemanticError) as info:
        _plan(define)
    err = info.value
    assert words in err.message
    field = re.search(r"\)\.(\w+)", define).group(1)
    assert err.sql[err.pos :].startswith(f"{field} > 1")


CHOSEN_STRUCTS = """SELECT * FROM VALUES (1, named_struct('a', 1, 'b', 'x'), 7),
    (2, named_struct('a', 2, 'b', 'y'), 5), (3, named_struct('a', 9, 'b', 'x'), 6)
    AS t(id, st, d)"""


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize(
    ("define", "spark_condition"),
    [
        ("max(B.st).a + A.st.a = 3", "B.st.a + A.st.a = 3"),
        ("max_by(B.st, B.d).A > 1", "B.st.a > 1"),
        ("min(B.st).b = 'x'", "B.st.b = 'x'"),
    ],
)
def test_a_field_of_an_aggregate_that_chooses_a_struct_is_read(
    spark, door, define, spark_condition
):
    """``max(B.st).a`` in DEFINE: the field of the struct the aggregate chose, as Spark
    reads it (without case), in every door (it was refused as a field access of a value
    of the match, while ``max(B.st)['a']`` ran)."""
    matchrec.register(spark)
    spark.sql(f"CREATE OR REPLACE TEMP VIEW chosen_structs AS {CHOSEN_STRUCTS}")
    body = (
        "ORDER BY id MEASURES B.id AS b AFTER MATCH SKIP TO NEXT ROW "
        f"PATTERN (A B) DEFINE B AS {define}"
    )
    want = spark.sql(
        f"SELECT B.id FROM chosen_structs A JOIN chosen_structs B ON B.id = A.id + 1"
        f" WHERE {spark_condition} ORDER BY 1"
    ).collect()
    assert rows_through(spark, door, "chosen_structs", body) == [tuple(r) for r in want]
    misspelled = body.replace(define, "max(B.st).zz < 8")
    with pytest.raises(SemanticError) as info:
        rows_through(spark, door, "chosen_structs", misspelled)
    err = info.value
    assert "FIELD_NOT_FOUND" in err.message and err.sql[err.pos :].startswith("zz")


def test_a_field_of_a_column_that_is_no_struct_is_a_positioned_error(spark):
    query = SHAPE.format(view=STRUCTS, measures="count(*) AS n", define="R.id.x > 1")
    with pytest.raises(matchrec.MatchRecognizeError) as info:
        matchrec.sql(spark, query)
    err = info.value
    assert err.sql == query and query[err.pos :].startswith("R.id.x")


#: (DEFINE, MEASURES, where the caret goes, a word of the message): a field the input's
#: struct lacks, a field of a column of no fields (the table function showed Spark's raw
#: FIELD_NOT_FOUND of its row-local DEFINE with no caret; the batch doors placed Spark's
#: message at the whole condition)
MISSPELLED_FIELDS = [
    ("R.info.cty = 'c2'", "count(*) AS n", "cty = ", "did you mean city?"),
    ("info.kilos > V.info.kg", "count(*) AS n", "kilos >", "its fields: city, kg"),
    ("true", "LAST(R.info.KGS) AS k", "KGS)", "did you mean kg?"),
    ("R.usr.x = 'u'", "count(*) AS n", "R.usr.x", "STRING, not a STRUCT"),
]


@pytest.mark.parametrize(("define", "measures", "caret", "words"), MISSPELLED_FIELDS)
def test_a_field_the_input_lacks_is_positioned_in_every_door(spark, define, measures, caret, words):
    spark.sql(f"CREATE OR REPLACE TEMP VIEW mr_structs AS SELECT * FROM {STRUCTS}")
    matchrec.register(spark)
    body = SHAPE.format(view="mr_structs", measures=measures, define=define)
    body = body[body.index("(\n") + 1 : body.rindex(")")]
    doors = {
        "sql": lambda: matchrec.sql(
            spark, SHAPE.format(view="mr_structs", measures=measures, define=define)
        ),
        "df": lambda: matchrec.match_recognize(spark.table("mr_structs"), body),
        "udtf": lambda: spark.sql(
            f'SELECT * FROM match_recognize(TABLE(mr_structs), "{body}")'
        ).collect(),
    }
    for door, run in doors.items():
        with pytest.raises(matchrec.SemanticError) as info:
            run()
        err = info.value
        assert err.sql[err.pos :].startswith(caret), (door, str(err))
        assert words in f"{err.message} {err.hint}", (door, str(err))


def test_fields_of_a_struct_with_a_dotted_field_name_are_read_in_every_door(spark):
    """A struct with a field named ``a.b`` or ``x y``: Spark's simpleString of its type
    does not read back, and the table function (and, for a moment, every door) found no
    field in it ("info has no field city (its fields: )")."""
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW mr_dotted AS SELECT 'k' AS k, id AS ts, "
        "named_struct('a.b', id, 'city', 'Oslo', 'x y', named_struct('q.r', id * 2)) AS info "
        "FROM range(3)"
    )
    matchrec.register(spark)
    body = (
        "PARTITION BY k ORDER BY ts MEASURES LAST(info.city) AS c, FIRST(info).`a.b` AS ab, "
        "LAST(info.`x y`.`q.r`) AS qr PATTERN (A+) "
        "DEFINE A AS info.city = 'Oslo' AND info.`x y`.`q.r` >= 0"
    )
    expected = [("k", "Oslo", 0, 4)]
    doors = {
        "sql": matchrec.sql(spark, f"SELECT * FROM mr_dotted MATCH_RECOGNIZE ({body})"),
        "df": matchrec.match_recognize(spark.table("mr_dotted"), body),
        "udtf": spark.sql(f'SELECT * FROM match_recognize(TABLE(mr_dotted), "{body}")'),
    }
    for door, frame in doors.items():
        assert [tuple(r) for r in frame.collect()] == expected, door


def test_a_struct_whose_field_names_repeat_is_carried_read_and_measured(spark):
    """Spark allows struct(id, id), Arrow refuses it (DUPLICATED_FIELD_NAME_IN_ARROW_STRUCT):
    such a column, atom or nested struct crosses the matcher with unique names and comes
    back in its own type (Trino's map_union case of TestCopyAggregationStateInRowPatternMatching,
    as Spark writes it, reads one)."""
    view = "(SELECT id, struct(id, id) AS s, array(struct(id, struct(id, id))) AS a FROM range(3))"
    got = matchrec.sql(
        spark,
        f"""SELECT * FROM {view} MATCH_RECOGNIZE (ORDER BY id
          MEASURES LAST(s) AS ls, array_agg(s) AS all_s, CLASSIFIER() AS c
          ALL ROWS PER MATCH PATTERN ((P | Q)* X)
          DEFINE X AS map_from_entries(array_agg(struct(id, id)))[0] = 0 AND count(P.*) = 1)""",
    )
    plain = spark.sql(f"SELECT *, s AS ls FROM {view}")
    assert got.schema["s"].dataType == got.schema["ls"].dataType == plain.schema["s"].dataType
    assert got.schema["a"].dataType == plain.schema["a"].dataType
    rows = got.collect()
    assert [(r.id, r.c, tuple(r.ls)) for r in rows] == [
        (0, "P", (0, 0)),
        (1, "Q", (1, 1)),
        (2, "X", (2, 2)),
    ]
    assert [tuple(v) for v in rows[-1].all_s] == [(0, 0), (1, 1), (2, 2)]
    assert rows[0].a == plain.collect()[0].a


# ---------------------------------------------------------------- functions of two rows

# Each partition holds two rows, S then N, made of one value of each pool below: every
# (S value, N value) pair is one partition. DEFINE N compares what matchrec computes from
# the two rows with ``want``, the same call computed by Spark in a subquery (the S value
# read with first_value over the partition): ``<=>`` must hold in every partition.
POOLS = {
    "d": "DATE",
    "ts": "TIMESTAMP",
    "s": "STRING",
    "n": "INT",
    "v": "DOUBLE",
}
VALUES = {
    "d": [
        "NULL",
        "DATE'2024-01-31'",
        "DATE'2024-02-29'",
        "DATE'2024-03-01'",
        "DATE'2023-12-31'",
        "DATE'1970-01-01'",
        "DATE'1969-12-31'",
        "DATE'2024-03-31'",
        "DATE'2024-04-30'",
        "DATE'1900-02-28'",
    ],
    "ts": [
        "NULL",
        "TIMESTAMP'2024-01-31 23:59:59.999999'",
        "TIMESTAMP'2024-02-29 00:00:00'",
        "TIMESTAMP'2024-03-01 12:30:00'",
        "TIMESTAMP'1969-12-31 23:59:59.5'",
        "TIMESTAMP'2024-03-10 01:30:00'",
        "TIMESTAMP'2024-03-10 03:30:00'",
        "TIMESTAMP'2024-11-03 01:30:00'",
        "TIMESTAMP'2023-01-31 10:00:00'",
        "TIMESTAMP'2024-04-30 09:59:59'",
    ],
    "s": ["NULL", "''", "'a'", "'ab'", "'abc'", "'b'", "'xab'", "'%'", "'é✓'", "'a-b'"],
    "n": ["NULL", "0", "1", "2", "3", "-1", "-2", "5", "4", "-5"],
    "v": [
        "NULL",
        "0.0D",
        "-0.0D",
        "1.5D",
        "double('NaN')",
        "-2.25D",
        "1e20D",
        "3.0D",
        "1.5D",
        "double('Infinity')",
    ],
}


def _pairs_sql() -> str:
    """SELECT of the two-row partitions: part k has S = values[k // P], N = values[k % P]."""
    size = len(VALUES["d"])
    rows = []
    for k in range(size * size):
        for row_id, i in ((1, k // size), (2, k % size)):
            cells = ", ".join(f"CAST({VALUES[c][i]} AS {t})" for c, t in POOLS.items())
            rows.append(f"({k}, {row_id}, {cells})")
    return f"SELECT * FROM VALUES {', '.join(rows)} AS t(part, id, {', '.join(POOLS)})"


TWO_ROW_QUERY = """SELECT part FROM (
  SELECT *, {want} AS want FROM ({pairs})
) MATCH_RECOGNIZE (
  PARTITION BY part ORDER BY id
  MEASURES count(*) AS k
  PATTERN (^S N)
  DEFINE N AS {call} <=> want
)"""

#: datetime functions with a pattern, of values of two rows (each always parses: a
#: failed parse is an error under ANSI mode, in Spark's column too; see below for NULLs)
DATETIME_PATTERN_CALLS = [
    "from_unixtime(N.n * 100000000 + S.n * 1000003)",
    "from_unixtime(1710050000 + N.n * 1800 + S.n * 60, 'yyyy-MM-dd HH:mm:ss a')",
    "from_unixtime(1730610000 + N.n * 1800 + S.n * 60, 'yyyy-MM-dd HH:mm:ss a')",
    "from_unixtime(N.n * 86400 * 40 + S.n * 3607, "
    "'y yy yyy yyyy yyyyy M MM MMM MMMM L LL LLL LLLL d dd D DD DDD')",
    "from_unixtime(N.n * 8640000 + S.n * 3607, "
    "'Q QQ QQQ QQQQ E EE EEE EEEE a H HH k kk K KK h hh m mm s ss S SSS ''at'' ''''')",
    "date_format(greatest(N.ts, S.ts), 'yyyy-MM-dd HH:mm:ss.SSSSSS a h K k E')",
    "date_format(least(N.ts, S.ts), 'S SS SSSS SSSSSSS SSSSSSSSS D')",
    "date_format(least(N.d, S.d), 'yyyy-MM-dd HH D Q EEEE')",
    "date_format(coalesce(N.ts, S.d), 'yyyy-MM-dd HH:mm')",
    "unix_timestamp(greatest(N.ts, S.ts))",
    "unix_timestamp(least(N.d, S.d))",
    "to_unix_timestamp(greatest(N.ts, S.d))",
    "unix_timestamp(concat(abs(S.n) + 2000, '-0', abs(N.n) + 1, '-10 0', abs(S.n), ':30'), "
    "'yyyy-MM-dd HH:mm')",
    "to_unix_timestamp(concat('2024-03-10 0', abs(N.n), ':', abs(S.n) + 10), 'yyyy-MM-dd HH:mm')",
    "to_timestamp(concat('2024-11-03 0', abs(N.n), ':', abs(S.n) + 10), 'yyyy-MM-dd HH:mm')",
    "to_timestamp(concat(abs(S.n) + 2000, '-', abs(N.n) + 1, '-', abs(S.n) + 1), 'yyyy-M-d')",
    "to_timestamp(concat(abs(N.n) + 1, ' ', nvl2(S.n, 'PM', 'am'), ' ', abs(S.n) + 1), 'h a d')",
    "to_timestamp(concat('24-', abs(N.n) + 100, ' ', abs(S.n) + 10, '.', abs(N.n)), "
    "'yy-DDD kk.SS')",
    "to_timestamp(concat('24-', abs(N.n) + 100, ' ', abs(S.n) + 1), 'yy-DD k')",
    "to_timestamp(concat('''x', abs(N.n) + 1990, ' Mar'), '''''''x''yyyy MMM')",
    "to_date(concat(abs(N.n) + 1, '/', abs(S.n) + 1, '/24 1'), 'M/d/yy H')",
    "to_date(greatest(N.ts, S.ts), 'yyyy')",
    # the try_ forms (NULL where the text does not parse, ANSI mode or not), _ntz and _ltz
    "try_to_timestamp(concat('2024-11-03 0', abs(N.n), ':', S.n + 10), 'yyyy-MM-dd HH:mm')",
    "try_to_date(concat(abs(N.n) + 1, '/', S.n, '/24'), 'M/d/yy')",
    "try_to_date(greatest(N.d, S.d), 'yyyy')",
    "to_timestamp_ntz(concat('2024-03-10 0', abs(N.n), ':', abs(S.n) + 10), 'yyyy-MM-dd HH:mm')",
    "to_timestamp_ntz(greatest(N.ts, S.ts), 'yyyy')",
    "to_timestamp_ntz(least(N.d, S.d), 'yyyy')",
    "to_timestamp_ltz(concat('2024-03-10 0', abs(N.n), ':', abs(S.n) + 10), 'yyyy-MM-dd HH:mm')",
    # a string Spark casts to TIMESTAMP first
    "date_format(from_unixtime(N.n * 100000 + S.n * 3607), 'yyyy-MM-dd HH:mm')",
    "date_format(concat('2024-03-10 0', abs(N.n), ':', abs(S.n) + 10), 'HH:mm a')",
]

#: sequence() of dates and timestamps: wall-clock days, elapsed hours (DST in New York)
SEQUENCE_CALLS = [
    "sequence(N.d, date_add(N.d, S.n))",
    "sequence(least(N.d, S.d), greatest(N.d, S.d), INTERVAL 400 DAY)",
    "sequence(least(N.d, S.d), greatest(N.d, S.d), INTERVAL 4000 HOUR)",
    "sequence(greatest(N.d, S.d), least(N.d, S.d), INTERVAL '-50 13' DAY TO HOUR)",
    "sequence(N.ts, N.ts + make_dt_interval(S.n, 5))",
    "sequence(least(N.ts, S.ts), greatest(N.ts, S.ts), INTERVAL 30 DAY)",
    "sequence(least(N.ts, S.ts), greatest(N.ts, S.ts), INTERVAL '45 13' DAY TO HOUR)",
    "sequence(N.ts, N.ts + make_dt_interval(0, S.n * 7), "
    "CASE WHEN S.n < 0 THEN INTERVAL -13 HOUR ELSE INTERVAL 13 HOUR END)",
    "sequence(S.d, greatest(N.ts, TIMESTAMP'2024-12-01 00:00:00'), INTERVAL 2000 HOUR)",
    "sequence(least(CAST(N.ts AS TIMESTAMP_NTZ), CAST(S.ts AS TIMESTAMP_NTZ)), "
    "greatest(CAST(N.ts AS TIMESTAMP_NTZ), CAST(S.ts AS TIMESTAMP_NTZ), S.d), "
    "INTERVAL '41 16' DAY TO HOUR)",
]

#: DECIMALs written as text: plain digits under ANSI mode, Java's BigDecimal.toString
#: (an exponent below 10^-6) without it, and always in format_string's %s
DECIMAL_TEXT_CALLS = [
    "CAST(CAST(N.n AS DECIMAL(10, 2)) / CAST(nullif(S.n, 0) * 99999999 AS DECIMAL(12, 1)) "
    "AS STRING)",
    "concat('<', CAST(N.n AS DECIMAL(10, 2)) / 100000000 - S.n)",
    "concat_ws(',', CAST(N.n AS DECIMAL(10, 2)) / 1000000000 * S.n, S.s)",
    "CAST(N.n AS DECIMAL(10, 2)) / 100000000 * S.n || '|'",
    "CAST(array(CAST(N.n AS DECIMAL(10, 3)) / 10000000 * S.n) AS STRING)",
    "format_string('%s|%s|%s', N.d, S.ts, CAST(N.n AS DECIMAL(10, 2)) / 100000000 + S.n)",
]

#: character, array, map and URL functions of the glue whose answers do not depend on
#: the ANSI mode (checked under both)
TEXT_CALLS = [
    "nullifzero(N.n - S.n)",
    "nullifzero(N.v * S.v)",
    "nullifzero(CAST(N.n AS DECIMAL(5, 2)) / 4 - S.n)",
    "ascii(concat(N.s, S.s))",
    "ascii(N.n - S.n)",
    "chr(N.n * 97 + S.n * 40)",
    "char(N.n * S.n + 65)",
    "chr(least(abs(N.v), 1000D) * S.n)",
    "chr(CAST(N.n AS DECIMAL(6, 2)) * 40.7 - S.n)",
    "array_repeat(concat(N.s, S.s), N.n - S.n)",
    "array_repeat(N.v, S.n)",
    "array_insert(array(N.n, S.n), nullif(N.n, 0) * 2, S.v)",
    "array_insert(array(N.s), nullif(S.n, 0), N.s)",
    "array_insert(array(N.d, S.d), nullif(N.n - S.n, 0), NULL)",
    "map_values(map_concat(map(coalesce(N.s, 'z'), N.n), "
    "map(concat(coalesce(S.s, 'y'), '!'), S.v)))",
    "map_keys(map_concat(map(1, N.n), map(2, S.v), map(3, N.n * S.n)))",
    "map_concat(map(coalesce(N.n, 7), N.s), map(abs(coalesce(S.n, 9)) + 10, S.s))[10]",
    "arrays_zip(array(N.n, S.n), array(S.s, N.s, NULL))",
    "arrays_zip(array(N.v), array(S.d, N.d))[1]",
    "size(arrays_zip(array(N.n), array(S.n, N.n, S.n)))",
    "arrays_zip(array(N.n), if(S.n > 0, array(S.s), NULL))",
    "map_entries(map(coalesce(N.s, 'z'), S.n))",
    "to_json(array(N.v, S.v, NULL))",
    "to_json(named_struct('d', N.d, 't', S.ts, 's', N.s, 'n', S.n))",
    "to_json(map(coalesce(N.s, 'k'), S.v))",
    "to_json(array(named_struct('x', N.n), named_struct('x', S.n)))",
    "to_json(named_struct('t', N.ts, 'd', S.d, 'q', CAST(N.n AS DECIMAL(6, 2)) / 3))",
    "map_entries(map_concat(map(1, N.v), map(2, S.v)))[1]",
    "typeof(N.n + S.v)",
    "typeof(named_struct('a b', N.d - S.d, 'c', array(CAST(N.n AS DECIMAL(5, 2)) * S.n)))",
    "typeof(map(S.s COLLATE UTF8_LCASE, N.ts - S.ts))",
    "typeof(N.n DIV 0 + S.n)",
    "unhex(concat(N.s, S.s))",
    "unhex(N.n * 1000 + S.n)",
    "soundex(concat(N.s, S.s))",
    "soundex(concat(S.s, 'obert', N.s))",
    "soundex(concat(upper(N.s), 'shcraft', S.s, 'whb'))",
    "luhn_check(concat(N.n, S.n))",
    "luhn_check(concat(abs(N.n), abs(S.n), N.n * S.n))",
    "luhn_check(concat(N.s, S.s))",
    "url_encode(concat(N.s, ' ', S.s, '+/~*._-'))",
    "url_decode(url_encode(concat(N.s, S.s)))",
    "url_decode(concat(replace(N.s, '%', '%25'), '+%2', abs(S.n), replace(S.s, '%', '+')))",
    "try_url_decode(concat(N.s, S.s, '41'))",
    "try_url_decode(concat(N.s, S.n, S.s))",
    "hex(encode(concat(N.s, S.s), 'UTF-16'))",
    "hex(encode(concat(N.s, '😀', S.s), 'utf-16le'))",
    "hex(encode(concat(N.s, S.n), 'UTF-16BE'))",
    "hex(encode(concat(N.s, '😀', S.s), 'UTF-32'))",
    "encode(concat(N.s, S.s), 'UTF-8')",
    "encode(translate(concat(N.s, S.s), '✓', 'x'), 'ISO-8859-1')",
    "encode(translate(concat(N.s, S.s), 'é✓', 'ex'), 'us-ascii')",
    "decode(encode(concat(N.s, S.s), 'UTF-16LE'), 'UTF-16LE')",
    "decode(unhex(concat('FEFF00', hex(N.n + 64), '00', hex(S.n + 70))), 'UTF-16')",
    "decode(unhex(concat('FFFE', hex(N.n + 64), '00', hex(S.n + 70), '00')), 'UTF-16')",
    "decode(unhex(concat(hex(N.n + 64), '00', hex(S.n + 233), '00')), 'UTF-16')",
    "decode(unhex(concat('000000', hex(N.n + 64), '000000', hex(S.n + 200))), 'UTF-32')",
    "decode(unhex(concat('0000FEFF000000', hex(N.n + 64))), 'UTF-32')",
    "decode(unhex(concat('FFFE0000', hex(N.n + 64), '000000')), 'UTF-32')",
    "decode(unhex(concat(hex(N.n + 200), hex(S.n + 65))), 'ISO-8859-1')",
    "decode(unhex(concat('C3', hex(N.n + 170), hex(S.n + 65))), 'utf-8')",
    "decode(concat(N.s, S.s), 'UTF-8')",
]

#: hash and xxhash64 of values of two rows, each argument hashed by its Spark type
HASH_CALLS = [
    "hash(N.n, S.n)",
    "hash(N.n - S.n)",
    "hash(CAST(N.n AS BIGINT) * S.n)",
    "hash(N.v * S.v)",
    "hash(CAST(N.v + S.v AS FLOAT))",
    "hash(concat(N.s, S.s))",
    "hash(N.s, S.s, N.n)",
    "hash(NULL, N.n + S.n)",
    "xxhash64(N.s || S.s, NULL)",
    "hash(repeat(concat(N.s, S.s), 9))",
    "hash(greatest(N.d, S.d))",
    "hash(greatest(N.ts, S.ts))",
    "hash(greatest(CAST(N.ts AS TIMESTAMP_NTZ), CAST(S.ts AS TIMESTAMP_NTZ)))",
    "hash(CAST(N.n AS DECIMAL(5, 2)) / 4 + S.n)",
    "hash(CAST(N.n AS DECIMAL(30, 2)) * S.n - 1)",
    "hash(array(N.n, S.n, NULL))",
    "hash(array(array(N.v, S.v), NULL, array(S.v)), array(N.d, S.d))",
    "hash(unhex(concat(N.s, S.s)))",
    "hash(N.n > S.n)",
    "hash(CAST(N.n AS TINYINT) + CAST(S.n AS SMALLINT))",
    "xxhash64(N.n, S.n)",
    "xxhash64(N.n - S.n)",
    "xxhash64(CAST(N.n AS BIGINT) * S.n)",
    "xxhash64(N.v * S.v)",
    "xxhash64(CAST(N.v + S.v AS FLOAT))",
    "xxhash64(concat(N.s, S.s))",
    "xxhash64(N.s, S.s, N.n)",
    "xxhash64(repeat(concat(N.s, S.s), 9))",
    "xxhash64(greatest(N.d, S.d))",
    "xxhash64(greatest(N.ts, S.ts))",
    "xxhash64(greatest(CAST(N.ts AS TIMESTAMP_NTZ), CAST(S.ts AS TIMESTAMP_NTZ)))",
    "xxhash64(CAST(N.n AS DECIMAL(5, 2)) / 4 + S.n)",
    "xxhash64(CAST(N.n AS DECIMAL(30, 2)) * S.n - 1)",
    "xxhash64(array(N.n, S.n, NULL))",
    "xxhash64(array(array(N.v, S.v), NULL, array(S.v)), array(N.d, S.d))",
    "xxhash64(unhex(concat(N.s, S.s)))",
    "xxhash64(N.n > S.n)",
    "xxhash64(CAST(N.n AS TINYINT) + CAST(S.n AS SMALLINT))",
    # arguments split into one-row parts (planner.decompose) and rounded decimals: typed
    # when the query is built, as the call they stand for
    "hash(date_add(N.d, S.n), add_months(S.d, N.n))",
    "xxhash64(datediff(N.d, S.d), months_between(N.ts, S.ts))",
    "hash(from_unixtime(N.n * 86400 + S.n, 'yyyy-MM-dd'))",
    "hash(to_date(concat('2024-01-1', abs(N.n - S.n) % 10), 'yyyy-MM-dd'))",
    "hash(round(CAST(N.n AS DECIMAL(5, 2)) / 3 + S.n, 1))",
    "xxhash64(bround(CAST(N.n AS DECIMAL(5, 2)) / 3 - S.n, -1))",
]

#: truncations of a value of two rows (in the session zone: also run in New York below)
TRUNCATION_CALLS = [
    *(
        f"date_trunc('{unit}', greatest(N.ts, S.ts))"
        for unit in (
            "YEAR",
            "yy",
            "QUARTER",
            "MONTH",
            "mon",
            "WEEK",
            "DAY",
            "dd",
            "HOUR",
            "MINUTE",
            "SECOND",
            "MILLISECOND",
            "MICROSECOND",
            "fortnight",
        )
    ),
    "date_trunc('HOUR', N.ts + (S.ts - N.ts) / 2)",
    "date_trunc('DAY', greatest(N.d, S.d))",
    *(
        f"trunc(greatest(N.d, S.d), '{unit}')"
        for unit in ("YEAR", "YYYY", "QUARTER", "MM", "MONTH", "WEEK", "DD", "DAY", "hour")
    ),
    "trunc(greatest(N.ts, S.ts), 'MM')",
    "last_day(greatest(N.d, S.d))",
    "last_day(greatest(N.ts, S.ts))",
    "last_day(date_add(N.d, S.n))",
    # a unit read from another row (refused: 'cannot be applied to a value that depends
    # on the match'); no NULL index: Spark 4.3's element_at gives the last element for
    # it under ANSI mode
    "date_trunc(element_at(array('YEAR', 'quarter', 'mm', 'WEEK', 'dd', 'hour'), "
    "abs(coalesce(S.n, 2)) + 1), N.ts)",
    "date_trunc(CASE WHEN S.n > 2 THEN 'MINUTE' WHEN S.n < 0 THEN 'second' "
    "WHEN S.n = 0 THEN 'MilliSecond' ELSE 'microsecond' END, N.ts)",
    "date_trunc(S.s, N.ts)",
    "trunc(N.d, element_at(array('YEAR', 'yy', 'QUARTER', 'MON', 'WEEK', 'day'), "
    "abs(coalesce(S.n, 3)) + 1))",
    # of a STRING date (Spark casts it; the unit from a row made it a run-time error)
    "trunc(date_format(N.d, 'yyyy-MM-dd'), "
    "element_at(array('YEAR', 'mm'), abs(coalesce(S.n, 1)) % 2 + 1))",
    # units sqlglot abbreviates but Spark does not know: NULL
    "date_trunc('H', greatest(N.ts, S.ts))",
    "date_trunc('m', greatest(N.ts, S.ts))",
    "trunc(greatest(N.d, S.d), 'Q')",
    # NaN is in an array that holds NaN (Spark's ordering equates them)
    "array_contains(array(N.v, 1.5D), S.v)",
]

#: JSON, number formats, masks, UTF-8, epoch constructors and the date functions' casts
#: (planner.json_functions, planner.number_formats, planner.text_functions,
#: planner.datetime_functions)
JSON_AND_FORMAT_CALLS = [
    "get_json_object(concat('{\"k\":\"', S.s, '\",\"n\":', N.n, ',\"v\":', N.v, '}'), '$.k')",
    "get_json_object(concat('{\"k\":[', S.n, ',', N.v, ']}'), concat('$.k[', abs(N.n), ']'))",
    "json_array_length(concat('[', S.n, ',', N.n, ']'))",
    "json_object_keys(concat('{\"', S.s, '\":1,\"', N.s, '\":2}'))",
    "to_number(concat(abs(N.n), abs(S.n)), '99')",
    "try_to_number(concat(S.s, N.n), '9D9')",
    "to_char(N.n * 1000 + S.n, 'S0,000')",
    "to_char(CAST(N.n AS DECIMAL(5, 2)) / 4 - S.n, '99.99MI')",
    "mask(concat(S.s, 'Ab1', N.s))",
    "mask(concat(S.s, N.s), NULL, 'l', NULL, '*')",
    "jaro_winkler_similarity(S.s, N.s)",
    "quote(concat(S.s, '''', N.s))",
    "positive(N.v - S.v)",
    "space(N.n + S.n)",
    "make_valid_utf8(concat(encode(S.s, 'utf-8'), unhex('FF'), encode(N.s, 'utf-8')))",
    "is_valid_utf8(concat(encode(S.s, 'utf-8'), unhex(concat('C3', N.n))))",
    "positive(concat(abs(S.n), abs(N.n)))",
    "extract(DAY FROM concat(S.d, ' 0', abs(N.n), ':30:00+05:30'))",
    "date_part('HOUR', concat(S.d, ' 0', abs(N.n), ':30:00+05:30'))",
    "timestamp_seconds(N.n * 100000 + S.n)",
    "timestamp_seconds(N.v / 100000000000000 + S.n)",
    "timestamp_millis(N.n * 1000000 + S.n)",
    "timestamp_micros(CAST(N.n AS BIGINT) * 1000000000000 + S.n)",
    "date_from_unix_date(N.n * 1000 + S.n)",
    "add_months(least(N.ts, S.d), N.n)",
    "date_add(greatest(N.ts, S.ts), S.n)",
    "extract(DAY FROM greatest(N.ts, S.ts))",
]

#: functions Spark replaces with another expression (isnull, zeroifnull, to_timestamp_ntz
#: of one argument...), dayname/monthname, make_timestamp of a DATE, and casts of values of
#: two rows to TIMESTAMP, TIMESTAMP_NTZ and BINARY
REPLACED_AND_CAST_CALLS = [
    "isnull(coalesce(N.n, S.n))",
    "isnotnull(IF(N.n > S.n, N.s, S.s))",
    "isnull(N.s) = isnotnull(S.v)",
    "negative(N.v - S.n)",
    "negative(N.n) * S.n",
    "zeroifnull(IF(N.n > S.n, N.v, S.v))",
    "zeroifnull(coalesce(N.n, S.n)) + 1",
    "dayname(greatest(N.d, S.d))",
    "monthname(least(N.ts, S.ts))",
    "dayname(coalesce(N.ts, S.d))",
    "make_timestamp(greatest(N.d, S.d))",
    "try_make_timestamp(coalesce(N.d, S.d))",
    "to_timestamp_ntz(greatest(N.ts, S.ts))",
    "to_timestamp_ltz(coalesce(N.d, S.d))",
    "CAST(greatest(N.d, S.d) AS TIMESTAMP)",
    "CAST(concat(coalesce(N.d, S.d), ' 10:30:00') AS TIMESTAMP)",
    "CAST(least(N.ts, S.ts) AS TIMESTAMP_NTZ) < S.ts",
    "CAST(N.n * S.n AS TIMESTAMP)",
    "try_cast(concat(N.s, S.d) AS TIMESTAMP)",
    "to_timestamp(concat(coalesce(N.d, S.d), 'T', abs(coalesce(N.n, 0)) + 10, ':00:00'))",
    "CAST(concat(N.s, S.s) AS BINARY)",
    # without a pattern: Spark's cast that never fails
    "try_to_timestamp(concat(coalesce(N.d, S.d), ' ', S.s))",
    "try_to_timestamp(concat(N.s, S.d))",
    "try_to_date(concat(N.s, S.d))",
    "try_to_date(greatest(N.ts, S.ts))",
    "~(N.n - S.n)",
    "N.v * pi() - S.v / e()",
    # a struct built of values of two rows: a tuple, compared and written as Spark's
    "struct(N.n, S.s) = struct(S.n, N.s)",
    "named_struct('a', N.n, 'b', S.v) <=> named_struct('a', S.n, 'b', N.v)",
    "struct(N.n, S.n) < struct(S.n, N.n)",
    "struct(N.d, S.s)",
    "CAST(named_struct('t', N.ts, 'n', S.n) AS STRING)",
]


#: CALENDAR INTERVALs (make_interval) of values of two rows moving dates and timestamps:
#: months, then days on the wall clock, then elapsed microseconds
CALENDAR_INTERVAL_CALLS = [
    "S.ts + make_interval(0, N.n, 0, S.n, N.n, 0, S.n * 1.5)",
    "N.ts - make_interval(S.n, N.n, S.n, 0, 0, N.n)",
    "S.ts + make_interval(0, 0, 0, 0, 0, 0, N.n - S.n)",
    "S.d + make_interval(0, N.n, 0, S.n - N.n)",
    "make_interval(0, N.n, 0, S.n) + N.d",
    "CAST(S.ts AS TIMESTAMP_NTZ) + make_interval(0, N.n - S.n, 0, S.n, 0, N.n)",
    "N.ts - make_interval(0, 0, 0, S.n * 1000)",
    "S.ts + make_interval(0, N.n, 0, N.n, N.n)",  # Spark's value, read by the matcher
]


TWO_ROW_CALLS = [
    *TEXT_CALLS,
    *HASH_CALLS,
    *TRUNCATION_CALLS,
    # decomposed: one-row parts computed by Spark, glue combines them
    "datediff(N.d, S.d)",
    "date_diff(S.ts, N.d)",
    "datediff(N.ts, S.ts)",
    "datediff(DAY, S.ts, N.ts)",
    "timestampdiff(MICROSECOND, S.ts, N.ts)",
    "timestampdiff(MILLISECOND, S.ts, N.ts)",
    "timestampdiff(SECOND, S.ts, N.ts)",
    "timestampdiff(MINUTE, S.ts, N.ts)",
    "timestampdiff(HOUR, N.ts, S.ts)",
    "timestampdiff(DAY, S.ts, N.ts)",
    "timestampdiff(WEEK, S.d, N.ts)",
    "timestampdiff(MONTH, S.ts, N.ts)",
    "timestampdiff(QUARTER, S.d, N.d)",
    "timestampdiff(YEAR, N.ts, S.d)",
    "datediff(HOUR, S.ts, N.ts)",
    "months_between(N.ts, S.ts)",
    "months_between(N.d, S.ts, false)",
    "months_between(S.d, N.d)",
    "date_add(S.d, N.n)",
    "date_sub(N.ts, S.n)",
    "add_months(S.d, N.n)",
    "N.ts - S.ts",
    "N.d - S.d",
    # Spark functions in the glue
    "greatest(N.v, S.v)",
    "least(N.n, S.v)",
    "greatest(N.d, S.d, DATE'2024-02-01')",
    "least(N.s, S.s)",
    "concat(N.s, S.s)",
    "concat(N.s, S.n, N.v)",
    "N.s || S.d",
    "concat_ws('-', N.s, S.s, N.n)",
    "substr(N.s, S.n)",
    "substring(N.s, S.n, N.n)",
    "left(N.s, S.n)",
    "right(N.s, S.n)",
    "instr(N.s, S.s)",
    "locate(S.s, N.s, N.n)",
    "position(S.s IN N.s)",
    "replace(N.s, S.s, 'x')",
    "replace(N.s, S.s)",
    "lpad(N.s, S.n, S.s)",
    "rpad(N.s, S.n)",
    "repeat(N.s, S.n)",
    "reverse(concat(N.s, S.s))",
    "startswith(N.s, S.s)",
    "endswith(N.s, S.s)",
    "contains(N.s, S.s)",
    "nullif(N.n, S.n)",
    "nvl2(S.s, N.n, S.n)",
    "array_contains(array(N.s, 'a', NULL), S.s)",
    "array_contains(array(N.s, 'a'), S.s)",
    "array_join(array(N.s, S.s, NULL), '-')",
    "array_join(array(N.s, NULL, S.s), S.s, '?')",
    "array_join(array(N.n, S.n), N.s)",
    "array_max(array(N.v, S.v, NULL))",
    "array_min(array(N.n, S.n))",
    "array_max(array(N.s, S.s))",
    "array_min(array(N.d, S.d))",
    "N.v = S.v",
    "N.v > S.v",
    "abs(N.v - S.v)",
    "datediff(greatest(N.d, S.d), N.d)",
    "N.ts > S.d",
    "N.d <= S.ts",
    "N.ts - S.d",
    "greatest(N.ts, S.d)",
    "S.d + N.n",
    "N.d - S.n",
    "N.n + S.d",
    "least(N.d, S.ts, N.ts)",
    "N.n + S.v",
    "N.n * S.n",
    "try_element_at(array(N.s, 'x', NULL), abs(S.n) + 1)",
    "element_at(array(N.s, 'x', S.s), -1 - abs(N.n) % 3)",
    "levenshtein(N.s, S.s)",
    "levenshtein(N.s, S.s, 1)",
    "try_divide(N.v, S.n)",
    "try_divide(N.n, S.n)",
    "round(N.v * S.v, 1)",
    "round(N.v - S.v)",
    "round(N.v + S.v, -1)",
    "round(N.n * S.n * 5, -1)",
    "bround(N.v * S.v, 1)",
    "bround(N.v - S.v)",
    "bround(N.n * S.n * 5, -1)",
    "sign(N.v - S.v)",
    "signum(N.n - S.n)",
    "array_join(array(N.s, S.s, NULL), '-')",
    "array_join(array(N.s, S.s, NULL), S.s, '?')",
    "array_join(array(N.v, S.v, NULL), '/')",
    "flatten(array(array(N.n, S.n), array(S.n)))",
    "flatten(array(array(N.s), NULL))",
    "array_sort(array(N.v, S.v, NULL, 0D))",
    "array_sort(array(N.s, S.s, 'b'))",
    "sort_array(array(N.n, S.n, NULL))",
    "sort_array(array(N.d, S.d, NULL), false)",
    "sort_array(array(N.v, S.v), true)",
    "format_string('%s|%d|%5s|%-3d|%05d|%%', N.s, S.n, S.s, N.n, S.n)",
    "printf('%S=%s', N.s, S.s)",
    "format_string('%.2f|%10.3e|%g|%,.1f|%(+08.2f', N.v - S.v, N.v * S.v, S.v, N.v * 1e6, S.v)",
    # Java's digits, not the shortest: a subnormal's 4.9E-324 is 4.900000e-324
    "format_string('%e|%.20e|%.17g|%.3e|%.25f', signum(N.v) * 4.9E-324D, (N.v + S.v) * 1e22D, "
    "N.v * 0.1D, S.v * 2.5E-320D, N.v / 3)",
    "format_string('%x|%#o|%X|%c|%h', N.n - S.n, S.n * 8, N.d, 65 + abs(N.n), N.s)",
    "printf('%2$s %1$d %<x %b %s', N.n * S.n, S.s, N.v, S.ts)",
    "map('a', N.n, 'b', S.n)['b']",
    "map('a', N.s, 'b', S.s)['a']",
    "map_from_arrays(array(1, 2), array(N.v, S.v))[2]",
    "map_from_entries(array(named_struct('k', 1, 'v', N.v), named_struct('k', 2, 'v', S.v)))[2]",
    "element_at(map_from_entries(array(named_struct('k', 'a', 'v', N.s), "
    "named_struct('k', 'b', 'v', S.s))), 'b')",
    "N.n & S.n",
    "N.n | S.n",
    "N.n ^ S.n",
    "~(N.n ^ S.n)",
    "equal_null(N.s, S.s)",
    "equal_null(N.v, S.v)",
    "decode(N.s, S.s, 'same', 'a', 'is a', 'other')",
    "decode(N.n, S.n, N.v)",
    "named_struct('a', N.n, 'b', S.s).B",
    "struct(N.v + S.v, S.d).col1",
    # array set and search functions of arrays built from both rows
    "array_distinct(array(N.v, S.v, N.v, NULL, NULL))",
    "array_distinct(array(N.s, S.s, S.s))",
    "array_union(array(N.v, NULL), array(S.v, N.v))",
    "array_intersect(array(N.v, S.v, NULL), array(S.v, 1.5D))",
    "array_except(array(N.n, S.n, 3, NULL), array(S.n))",
    "array_position(array(N.v, S.v, N.v), S.v)",
    "array_position(array(N.s, 'a', S.s), S.s)",
    "array_remove(array(N.v, S.v, NULL, N.v), S.v)",
    "arrays_overlap(array(N.v, 2.0D), array(S.v))",
    "arrays_overlap(array(N.s), array(S.s, NULL))",
    "array_compact(array(N.n, NULL, S.n))",
    # try_ arithmetic: NULL where the INT result overflows (the glue keeps Spark's width)
    "try_add(N.n + 2147483642, S.n)",
    "try_subtract(N.n - 2147483643, S.n)",
    "try_multiply(N.n * 429496729, S.n)",
    "try_add(N.v, S.v)",
    # higher-order functions of an array built from both rows
    "exists(array(S.v, N.v), x -> x > 1)",
    "exists(array(S.n, N.n), x -> x % 2 = 0)",
    "forall(array(S.v, N.v), x -> x >= 0)",
    "filter(array(S.n, N.n, NULL), (x, i) -> x > i)",
    "transform(array(N.s, S.s), x -> concat(x, '!'))",
    "transform(array(N.n, S.n), (x, i) -> x * 10 + i)",
    "size(filter(array(S.s, N.s), x -> x LIKE 'a%'))",
    # more string, array and map functions whose arguments come from two rows
    "nanvl(N.v, S.v)",
    "nanvl(N.v, S.n)",
    "try_mod(N.n, S.n)",
    "try_mod(N.v, S.v)",
    "find_in_set(S.s, concat_ws(',', N.s, 'b', N.s))",
    "find_in_set(S.s, N.s)",
    "substring_index(concat(N.s, S.s, N.s, 'aa', S.s), S.s, N.n)",
    "substring_index('aaaa', concat(S.s, 'a'), N.n)",
    "translate(concat(N.s, 'abcé'), S.s, 'xy')",
    "translate(N.s, 'ab', S.s)",
    "translate(concat(N.s, 'ab'), concat(S.s, 'ba'), 'xyz')",
    "elt(abs(N.n) % 3 + 1, S.s, N.s, 'z')",
    # values of other types are Spark's STRINGs of them (a run-time "only strings" error)
    "elt(abs(N.n) % 3 + 1, S.s, N.n, S.v)",
    "elt(abs(S.n) % 2 + 1, N.d, S.n)",
    "get(array(N.n, S.n, 7), S.n)",
    "map_contains_key(map(coalesce(N.s, 'k'), 1), S.s)",
    "slice(array(N.n, S.n, 1, 2), nvl(nullif(S.n, 0), 1), abs(N.n))",
    "array_append(array(N.n, S.n), S.v)",
    "array_prepend(array(N.s), S.s)",
    "array_append(array(N.d), S.d)",
    # CAST, TRY_CAST and :: of a value of two rows to numbers, strings, BOOLEAN
    "CAST(N.n + S.n AS DOUBLE)",
    "CAST(N.n + S.n AS FLOAT)",
    "CAST(N.v * S.n AS STRING)",
    "CAST(N.n * S.n AS DECIMAL(4, 1))",
    "try_cast(N.v - S.v AS DECIMAL(5, 2))",
    "try_cast(N.v + S.v AS INT)",
    "try_cast(concat(N.s, S.n) AS INT)",
    "try_cast(concat(S.n, '.', N.n) AS DOUBLE)",
    "try_cast(concat(N.s, S.s) AS BOOLEAN)",
    "(N.n - S.n)::bigint",
    "CAST(N.n - S.n AS BOOLEAN)",
    "CAST(N.n < S.n AS INT)",
    "CAST(CAST(N.v AS FLOAT) * S.n AS FLOAT)",
    # ... and to DATE: a timestamp's date in the session zone, a string read as Spark reads it
    "CAST(greatest(N.ts, S.ts) AS DATE)",
    "(coalesce(N.ts, S.ts))::date",
    "CAST(least(N.d, S.d) AS DATE)",
    "try_cast(concat(S.n + 2000, '-', N.n, '-', abs(S.n) + 1) AS DATE)",
    "try_cast(concat(N.s, S.n) AS DATE)",
    # digests and byte functions (planner.digest_functions): a STRING is its UTF-8 bytes
    "md5(concat(N.s, S.s))",
    "sha1(concat(N.s, S.s))",
    "sha2(concat(S.s, N.s), 224)",
    "sha2(concat(N.s, S.s), abs(S.n) * 128)",
    "crc32(concat(N.s, S.s))",
    "hex(N.n - S.n)",
    "hex(concat(N.s, S.s))",
    "octet_length(concat(N.s, S.s))",
    "bit_length(concat(S.s, N.s))",
    # string and math functions of the glue (planner.glue_functions)
    "initcap(concat(N.s, ' ', upper(S.s)))",
    # a first letter's full title case (ß is Ss, the ligature fi two letters), İ kept
    "initcap(concat(N.s, ' ßa ﬁx ΣΑΣ İX ', S.s))",
    "split_part(concat(N.s, '-', S.s), '-', nullif(S.n, 0))",
    "split_part(concat(N.s, S.s), '', nullif(N.n, 0))",
    "overlay(N.s PLACING S.s FROM abs(S.n) + 1)",
    "overlay(N.s, S.s, abs(N.n) + 1, S.n)",
    "trim(concat(' ', N.s, ' \t', S.s, ' '))",
    "trim(BOTH 'a' FROM concat(N.s, S.s))",
    "trim(LEADING S.s FROM N.s)",
    "ltrim(S.s, concat(N.s, S.s))",
    "rtrim(concat(N.s, '  ', S.s, '  '))",
    "btrim(concat(N.s, S.s), 'ab')",
    "rint(N.v - S.v)",
    "rint((N.n - S.n) / 2)",
    "isnan(N.v * S.v)",
    "factorial(N.n - S.n + 15)",
    "width_bucket(N.v, S.v, S.n, abs(N.n))",
    "width_bucket(N.n - S.n, 5, -5, 4)",
    # date-time fields, make_date, timestampadd (planner.datetime_functions)
    "hour(greatest(N.ts, S.ts)) * 100 + minute(least(N.ts, S.ts))",
    "second(coalesce(N.ts, S.ts))",
    "year(greatest(N.d, S.d)) * 1000 + dayofyear(least(N.d, S.d))",
    "dayofweek(greatest(N.d, S.d)) * 100 + weekofyear(least(N.d, S.d))",
    "weekday(coalesce(N.d, S.d)) * 10 + quarter(greatest(N.ts, S.ts))",
    "to_date(greatest(N.ts, S.ts))",
    "extract(HOUR FROM N.ts - S.ts) * 100 + extract(MINUTE FROM S.ts - N.ts)",
    "extract(SECOND FROM N.ts - S.ts) + extract(DAY FROM N.ts - S.ts)",
    "extract(SECOND FROM greatest(N.ts, S.ts))",
    "date_part('DOY', greatest(N.ts, S.ts)) * 10 + date_part('dow_iso', least(N.d, S.d))",
    "extract(WEEK FROM greatest(N.d, S.d)) * 10000 + extract(YEAROFWEEK FROM least(N.d, S.d))",
    "make_date(year(S.d), abs(N.n) + 1, abs(S.n) + 1)",
    "timestampadd(HOUR, N.n, S.ts)",
    "timestampadd(DAY, N.n - S.n, S.ts)",
    "timestampadd(MONTH, N.n, S.d)",
    "timestampadd(QUARTER, S.n, N.ts)",
    "timestampadd(SECOND, N.n * 1000, S.ts)",
    "timestampadd(WEEK, N.n, greatest(N.ts, S.ts))",
    # a YEAR-MONTH interval literal beside a value of two rows (the months a constant)
    "greatest(N.ts, S.ts) + INTERVAL '1' MONTH",
    "least(N.d, S.d) - INTERVAL '1-1' YEAR TO MONTH",
    "INTERVAL 1 YEAR 1 MONTH + coalesce(N.d, S.d)",
    "coalesce(N.ts, S.ts) - INTERVAL '-13' MONTH",
    "-INTERVAL '2' YEAR + greatest(N.d, S.d)",
    "CAST(least(N.ts, S.ts) AS TIMESTAMP_NTZ) + INTERVAL '1' MONTH",
    "greatest(N.ts, S.ts) + INTERVAL '1' MONTH < least(N.ts, S.ts) + INTERVAL '2' YEAR",
    # ... and a constant of such literals: products with integers, make_ym_interval
    "greatest(N.d, S.d) + INTERVAL '1' MONTH * 2",
    "least(N.ts, S.ts) - 3 * (INTERVAL '1' YEAR - INTERVAL '1' MONTH)",
    "coalesce(N.d, S.d) + make_ym_interval(1, -2)",
    "make_ym_interval(2) + greatest(N.ts, S.ts)",
    # ... times or divided by an integer or a DECIMAL (Spark rounds half away from zero)
    "greatest(N.d, S.d) + INTERVAL '1' MONTH * 1.5",
    "least(N.ts, S.ts) - INTERVAL '-3' MONTH * 0.5",
    "coalesce(N.d, S.d) + INTERVAL '-5' MONTH / 2",
    "greatest(N.ts, S.ts) + INTERVAL '7' MONTH / 0.3 + INTERVAL '1' YEAR / 5",
    # ... inside a datetime function of two rows (the sum was not split in there)
    "datediff(greatest(N.d, S.d) + INTERVAL '1' MONTH, least(N.d, S.d))",
    "date_format(greatest(N.ts, S.ts) + INTERVAL '1' MONTH, 'yyyy-MM')",
    "timestampdiff(HOUR, least(N.ts, S.ts), greatest(N.ts, S.ts) + INTERVAL '1' YEAR)",
    "unix_micros(greatest(N.ts, S.ts)) - unix_millis(least(N.ts, S.ts))",
    "unix_seconds(coalesce(N.ts, S.ts)) + N.n",
    "unix_date(greatest(N.d, S.d)) - unix_date(least(N.d, S.d)) + N.n",
    # shifts (Java's: the count masked to the width of Spark's type), bits, bases
    "shiftleft(N.n, S.n + 30)",
    "N.n << abs(S.n) * 7",
    "shiftright(N.n - 100, S.n + 32)",
    "N.n >> S.n",
    "shiftrightunsigned(N.n, S.n)",
    "N.n >>> (S.n + 31)",
    "shiftleft(CAST(N.n AS BIGINT), S.n * 13)",
    "shiftrightunsigned(CAST(N.n AS BIGINT) - S.n, abs(S.n) + 60)",
    "shiftleft(CAST(N.n AS TINYINT), S.n + 6)",
    "bit_count(N.n - S.n)",
    "bit_count(CAST(N.n AS BIGINT) * S.n * 1000000007)",
    "bit_count(N.n > S.n)",
    # bit_get reads its value's type: a position past its bits is an error, so positions
    # here stay inside them
    "bit_get(N.n * 1000003 - S.n * 7, abs(N.n) * 5 + abs(S.n))",
    "getbit(CAST(N.n * 20 + S.n AS TINYINT), abs(S.n) + 2)",
    "bit_get(CAST(N.n AS BIGINT) * 100000000000 + S.n, abs(N.n) * 11 + abs(S.n) + 3)",
    "bit_get(N.n - S.n, concat(abs(S.n), ''))",
    "getbit(CAST(N.n - S.n AS SMALLINT), abs(N.n) * 3.0D)",
    "bin(N.n * S.n)",
    "bin(CAST(N.n AS BIGINT) - S.n * 4000000000)",
    "conv(concat(N.s, S.s), 16, 10)",
    "conv(concat(N.n, S.n), 10, -16)",
    "conv(concat(S.n, N.s), 36, 2)",
    "conv(concat(' ', N.s, S.n, ' '), 16, -10)",
    "conv(N.n - S.n, 10, 16)",
    "conv(concat(N.s, S.s), abs(N.n) * 8, S.n * 7)",
    # format_number, base64/unbase64, make_dt_interval (planner.format_functions)
    "format_number(N.v * S.n, abs(N.n))",
    "format_number(N.n * 1000003 + S.n, S.n)",
    "format_number(N.n / 8 + S.n, 2)",
    "format_number(N.v - S.v, '#,##0.0#')",
    "format_number(N.v + S.n, '')",
    "format_number(N.n / 8 - S.n * 1000, '000,0.00')",
    "format_number(CAST(N.n AS DECIMAL(10, 3)) / 8 + S.n, 1)",
    "base64(concat(N.s, S.s))",
    "base64(repeat(concat(N.s, S.s), 20))",
    "unbase64(base64(concat(N.s, S.s)))",
    "unbase64(concat(replace(base64(concat(N.s, S.s)), '=', ''), '%✓'))",
    "S.ts + make_dt_interval(N.n, S.n)",
    "N.ts - make_dt_interval(0, N.n - S.n, 30)",
    "make_dt_interval(N.n, S.n, N.n * 7, CAST(S.n AS DECIMAL(10, 7)) / 3)",
    "make_dt_interval(N.n, S.n, 0, 1.5)",
    *CALENDAR_INTERVAL_CALLS,
    "S.ts + (N.ts - S.ts) * 1.5D",
    "N.ts - (N.ts - S.ts) / 3",
    # datetime patterns (planner.datetime_patterns): the session zone is a one-row part
    *DATETIME_PATTERN_CALLS,
    *SEQUENCE_CALLS,
    *DECIMAL_TEXT_CALLS,
    # day-time intervals times and divided by numbers: Spark rounds half up to microseconds
    "(N.ts - S.ts) * 0.5",
    "(N.ts - S.ts) * 1.5D",
    "(S.ts - N.ts) * (N.n - S.n)",
    "(N.ts - S.ts) / nullif(N.n, 0)",
    "(N.ts - S.ts) / 0.7",
    # ceil/floor to a scale (a DECIMAL)
    "ceil(CAST(N.n AS DECIMAL(10, 2)) / 3 + S.n, 2)",
    "floor(N.n * S.n, -1)",
    "ceil(N.n - S.n, 0)",
    "floor(CAST(N.n AS DECIMAL(10, 2)) / 7, 3)",
    # a TIMESTAMP_NTZ's wall clock with a TIMESTAMP: read in the session zone
    "CAST(N.ts AS TIMESTAMP_NTZ) > S.ts",
    "convert_timezone('UTC', 'America/New_York', N.ts) <=> S.ts",
    "to_timestamp_ntz(N.ts) - S.ts",
    "greatest(CAST(N.ts AS TIMESTAMP_NTZ), S.ts, N.d)",
    "coalesce(CAST(N.ts AS TIMESTAMP_NTZ), S.ts)",
    *JSON_AND_FORMAT_CALLS,
    *REPLACED_AND_CAST_CALLS,
]


def _want(call: str) -> str:
    """``call`` with N's columns read from the current row and S's from the first row."""
    text = call.replace("N.", "")
    for c in POOLS:
        text = text.replace(f"S.{c}", f"first_value({c}) OVER (PARTITION BY part ORDER BY id)")
    return text


#: calls checked together, one query (one Spark job) a batch
BATCH = 16
BATCH_QUERY = """SELECT part FROM (
  SELECT *, {wants} FROM ({pairs})
) MATCH_RECOGNIZE (
  PARTITION BY part ORDER BY id
  MEASURES count(*) AS k
  PATTERN (^S N)
  DEFINE N AS {tests}
)"""
#: (session zone, ANSI, the calls of a test) -> those its batched queries found equal
_AGREED: dict[tuple, frozenset[str]] = {}


def _agreed(spark, family: Sequence[str]) -> frozenset[str]:
    """The calls of ``family`` equal to Spark on every pair, checked ``BATCH`` calls at a
    time (``DEFINE N AS (c1 <=> want1) AND (c2 <=> want2) ...``) under the session's
    zone and ANSI mode. A batch that fails or misses a pair vouches for none of its
    calls: each then runs alone and reports its own difference."""
    key = (
        spark.conf.get("spark.sql.session.timeZone"),
        spark.conf.get("spark.sql.ansi.enabled"),
        tuple(family),
    )
    if key not in _AGREED:
        pairs = _pairs_sql()
        every_pair = set(range(len(VALUES["d"]) ** 2))
        agreed: set[str] = set()
        for start in range(0, len(family), BATCH):
            batch = family[start : start + BATCH]
            query = BATCH_QUERY.format(
                pairs=pairs,
                wants=", ".join(f"{_want(c)} AS want{i}" for i, c in enumerate(batch)),
                tests=" AND ".join(f"({c} <=> want{i})" for i, c in enumerate(batch)),
            )
            try:
                got = {r.part for r in matchrec.sql(spark, query).collect()}
            except Exception:  # noqa: BLE001 - each call of the batch then runs alone
                continue
            if got == every_pair:
                agreed.update(batch)
        _AGREED[key] = frozenset(agreed)
    return _AGREED[key]


@pytest.mark.parametrize("call", TWO_ROW_CALLS)
def test_functions_of_two_rows_equal_spark(spark, call):
    _two_rows_equal_spark(spark, call, TWO_ROW_CALLS)


def _two_rows_equal_spark(spark, call: str, family: Sequence[str] = ()) -> None:
    """``call`` (N's values and S's) gives Spark's answer on every pair of values; where
    its batch of ``family`` found so, no query of its own."""
    if call in _agreed(spark, family):
        return
    pairs = _pairs_sql()
    query = TWO_ROW_QUERY.format(want=_want(call), pairs=pairs, call=call)
    got = {r.part for r in matchrec.sql(spark, query).collect()}
    missing = sorted(set(range(len(VALUES["d"]) ** 2)) - got)
    if missing:
        size = len(VALUES["d"])
        shown = [
            (
                VALUES["d"][k // size],
                VALUES["ts"][k // size],
                VALUES["s"][k // size],
                VALUES["n"][k // size],
                "|",
                VALUES["s"][k % size],
                VALUES["n"][k % size],
            )
            for k in missing[:5]
        ]
        raise AssertionError(f"{call}: {len(missing)} pairs differ from Spark, e.g. {shown}")


@pytest.mark.parametrize("call", ["chr(N.v * S.n)", "chr(N.v - 2.5D)"])
def test_chr_of_a_double_without_ansi_saturates_as_sparks_cast(spark, ansi_off, call):
    """NaN is 0, an infinity or a double beyond BIGINT its extreme (Spark's legacy
    cast); under ANSI mode each is CAST_OVERFLOW."""
    _two_rows_equal_spark(spark, call)


@pytest.mark.parametrize("call", HASH_CALLS)
def test_hashes_of_two_rows_without_ansi_are_sparks(spark, ansi_off, call):
    _two_rows_equal_spark(spark, call, HASH_CALLS)


@pytest.mark.parametrize("call", TEXT_CALLS)
def test_text_functions_of_two_rows_without_ansi_are_sparks(spark, ansi_off, call):
    _two_rows_equal_spark(spark, call, TEXT_CALLS)


CASTS_WITHOUT_ANSI = [
    "CAST(concat(N.s, S.n) AS INT)",
    "CAST(concat(S.n, N.s) AS DOUBLE)",
    # out of range: narrowed as Spark narrows without ANSI mode, or NULL
    "CAST(N.v + S.v AS INT)",
    "CAST(N.v * S.v AS TINYINT)",
    "CAST(N.v - S.n AS BIGINT)",
    "CAST(N.n * S.n AS SMALLINT)",
    "CAST(CAST(N.n AS DECIMAL(12, 1)) * S.n AS TINYINT)",
    "CAST(N.v * S.v AS DECIMAL(4, 1))",
    *DECIMAL_TEXT_CALLS,
]


@pytest.mark.parametrize("call", CASTS_WITHOUT_ANSI)
def test_a_cast_of_two_rows_without_ansi_is_sparks(spark, ansi_off, call):
    """A malformed string is NULL, a number out of an integer type's range is narrowed
    (saturated at INT/BIGINT from a double, then its low bits), as Spark's legacy cast."""
    _two_rows_equal_spark(spark, call, CASTS_WITHOUT_ANSI)


#: conditionals and arrays whose operands have several types: each value is of Spark's
#: common type (DOUBLE, DECIMAL, STRING, TIMESTAMP), which shows once written as text
COMMON_TYPE_CALLS = [
    "CAST(coalesce(if(N.n > S.n, CAST(N.n AS DECIMAL(5, 2)), NULL), 0) AS STRING)",
    "CAST(coalesce(if(N.n > S.n, N.v, NULL), 0) AS STRING)",
    "CAST(if(N.n > S.n, N.v, S.n) AS STRING)",
    "CAST(CASE WHEN N.n > S.n THEN CAST(N.n AS DECIMAL(5, 2)) ELSE S.n END AS STRING)",
    "CAST(greatest(N.v, S.n) AS STRING)",
    "CAST(least(N.n, S.n * 0.5D) AS STRING)",
    "CAST(nvl(if(N.n > S.n, N.v, NULL), S.n) AS STRING)",
    "CAST(nvl2(N.s, S.n, N.v) AS STRING)",
    "concat(coalesce(if(N.n > S.n, N.v, NULL), 0), '|')",
    "CAST(array(N.v, S.n) AS STRING)",
    "CAST(array_append(array(N.n), S.v) AS STRING)",
    "CAST(coalesce(if(N.n > S.n, N.ts, NULL), S.d) AS STRING)",
    "CAST(decode(N.n, 1, S.n, 2, 2.5D) AS STRING)",
]


#: arrays ordered as Spark orders them: element by element, a NULL inside first, a
#: prefix before the longer array
NESTED_ORDER_CALLS = [
    "greatest(array(N.n, S.n), array(S.n, N.n))",
    "least(array(N.n), array(S.n, N.n))",
    "array_max(array(array(N.n), array(S.n, 1)))",
    "array_min(array(array(N.n, S.n), array(S.n)))",
    "array_sort(array(array(N.n, S.n), array(S.n), array(N.n)))",
    "sort_array(array(array(N.v, S.v), array(S.v)), false)",
]


@pytest.mark.parametrize("call", NESTED_ORDER_CALLS)
def test_greatest_least_and_sorts_of_arrays_are_sparks(spark, call):
    """Was "'>' not supported between 'NoneType' and 'int'" or "sorting arrays of list is
    not computed here" while the job ran."""
    _two_rows_equal_spark(spark, call, NESTED_ORDER_CALLS)


def test_greatest_of_structs_orders_them_field_by_field(spark):
    """A struct column compared with another row's: field by field, a NULL field first."""
    rows = """SELECT * FROM VALUES (1, named_struct('a', 1, 'b', 'x')),
        (2, named_struct('a', 2, 'b', 'y')), (3, named_struct('a', 0, 'b', 'z')),
        (4, named_struct('a', 1, 'b', CAST(NULL AS STRING))), (5, named_struct('a', 1, 'b', 'w'))
        AS t(id, s)"""
    query = f"""SELECT * FROM ({rows}) MATCH_RECOGNIZE (ORDER BY id
        MEASURES CLASSIFIER() AS c ALL ROWS PER MATCH PATTERN (X (Y | Z)*)
        DEFINE Y AS greatest(s, FIRST(X.s)) = s AND least(s, PREV(s)) = PREV(s))"""
    expected = spark.sql(
        f"""SELECT id, CASE WHEN id = 1 THEN 'X' WHEN greatest(s, first_value(s) OVER w) = s
              AND least(s, lag(s) OVER w) = lag(s) OVER w THEN 'Y' ELSE 'Z' END AS c
            FROM ({rows}) WINDOW w AS (ORDER BY id)"""
    )
    got = matchrec.sql(spark, query).select("id", "c")
    assert sorted(map(tuple, got.collect())) == sorted(map(tuple, expected.collect()))


def test_strings_that_are_no_utf8_compare_as_their_bytes(spark):
    """A CAST of BINARY to STRING keeps its bytes in Spark; DEFINE's glue read such a
    value with a worker traceback (UnicodeDecodeError)."""
    rows = """SELECT * FROM VALUES (1, X'41'), (2, X'FF'), (3, X'42'), (4, X'C3A9'), (5, X'FF')
        AS t(id, c)"""
    query = f"""SELECT * FROM ({rows}) MATCH_RECOGNIZE (ORDER BY id
        MEASURES CLASSIFIER() AS cls ALL ROWS PER MATCH PATTERN (X (Y | Z)*)
        DEFINE Y AS CAST(c AS STRING) > CAST(FIRST(X.c) AS STRING)
          AND CAST(c AS STRING) >= CAST(PREV(c) AS STRING))"""
    expected = spark.sql(
        f"""SELECT id, CASE WHEN id = 1 THEN 'X' WHEN CAST(c AS STRING) >
              CAST(first_value(c) OVER w AS STRING) AND CAST(c AS STRING) >=
              CAST(lag(c) OVER w AS STRING) THEN 'Y' ELSE 'Z' END AS cls
            FROM ({rows}) WINDOW w AS (ORDER BY id)"""
    )
    got = matchrec.sql(spark, query).select("id", "cls")
    assert sorted(map(tuple, got.collect())) == sorted(map(tuple, expected.collect()))


@pytest.mark.parametrize("ansi", ["true", "false"])
@pytest.mark.parametrize("call", COMMON_TYPE_CALLS)
def test_a_conditional_of_several_types_is_of_sparks_common_type(spark, ansi, call):
    """``coalesce(x, 0)`` of a DOUBLE is 0.0, of a DECIMAL(5, 2) 0.00, as Spark casts
    each operand to the common type (without ANSI mode ``decode`` is a STRING of each
    result's own text, as Spark's)."""
    with session_settings(spark, {"spark.sql.ansi.enabled": ansi}):
        _two_rows_equal_spark(spark, call, COMMON_TYPE_CALLS)


@pytest.mark.parametrize(
    "call",
    [
        "coalesce(concat(N.n, S.n), 5)",
        "CASE WHEN N.n > S.n THEN concat(N.n, S.n) ELSE 3 END",
    ],
)
def test_a_conditional_of_a_string_and_a_number_without_ansi_is_a_string(spark, ansi_off, call):
    """Without ANSI mode Spark's common type of a STRING and an INT is STRING: 5 is '5'."""
    _two_rows_equal_spark(spark, call)


@pytest.mark.parametrize(
    ("call", "says", "at"),
    [
        ("nullif(concat(N.n, S.n), 0)", "nullif mixes", "concat(N.n"),
        ("nullifzero(concat(N.s, S.s))", "nullifzero mixes", "concat(N.s"),
    ],
)
def test_nullif_of_a_string_and_a_number_is_refused_as_a_comparison(spark, call, says, at):
    """``nullif(s, 0)`` compares ``s = 0``, which Spark casts: the glue does not, so it is
    the positioned error of ``=``, not a value kept because '00' is not 0."""
    query = TWO_ROW_QUERY.format(want="CAST(NULL AS STRING)", pairs=_pairs_sql(), call=call)
    with pytest.raises(SemanticError) as caught:
        matchrec.sql(spark, query)
    assert says in str(caught.value)
    assert caught.value.pos == query.index(at)


@pytest.mark.parametrize("call", ["N.s - S.s > 1", "concat(N.s, 'x') * S.s IS NULL"])
def test_arithmetic_of_strings_of_two_rows_without_ansi_is_refused(spark, ansi_off, call):
    """Without ANSI mode Spark computes the DOUBLEs of strings in arithmetic; the glue
    does not convert, so it is a positioned error when the query is built, not a
    failure while matching."""
    query = TWO_ROW_QUERY.format(want="CAST(NULL AS BOOLEAN)", pairs=_pairs_sql(), call=call)
    with pytest.raises(SemanticError) as caught:
        matchrec.sql(spark, query)
    assert "without Spark's implicit cast of strings to DOUBLE" in str(caught.value)
    assert caught.value.pos == query.index(call.split(" ")[0])


@pytest.mark.parametrize(
    ("cast", "fails"),
    [
        ("CAST(N.v + S.v AS INT)", True),
        ("(N.v + S.v)::int", True),
        ("TRY_CAST(N.v + S.v AS INT)", False),
    ],
)
def test_a_cast_of_two_rows_out_of_range_under_ansi_fails_at_the_cast(spark, cast, fails):
    """Under ANSI mode CAST and :: raise where Spark's cast overflows (TRY_CAST is NULL)."""
    query = f"""SELECT * FROM VALUES (1, 1e20D), (2, 1.0D) AS t(id, v) MATCH_RECOGNIZE (
      ORDER BY id MEASURES count(*) AS k PATTERN (S N?) DEFINE N AS {cast} IS NULL)"""
    if not fails:
        assert [r.k for r in matchrec.sql(spark, query).collect()] == [2]
        return
    with pytest.raises(Exception) as info:
        matchrec.sql(spark, query).collect()
    err = rebuild(carried_error(info.value) or "", query)
    assert isinstance(err, MatchRuntimeError), info.value
    assert "cannot cast" in err.message and "INT" in err.message
    assert err.pos == query.index(cast.split("(")[0] if cast[0] != "(" else cast)


@pytest.mark.parametrize(
    ("values", "cast", "says"),
    [
        (
            "('maybe', 1.0D), ('x', 2.0D)",
            "CAST(concat(S.s, N.s) AS BOOLEAN)",
            "[CAST_INVALID_INPUT] The value 'maybex' of the type \"STRING\" cannot be cast "
            'to "BOOLEAN"',
        ),
        (
            "('a', double('NaN')), ('b', 1.0D)",
            "CAST(S.v + N.v AS INT)",
            "cannot cast NaN to INT (Spark raises CAST_OVERFLOW",
        ),
        (
            "('a', 1234.5D), ('b', 1.0D)",
            "CAST(S.v * N.v AS DECIMAL(5, 2))",
            "cannot cast 1234.5 to DECIMAL(5, 2) (Spark raises NUMERIC_VALUE_OUT_OF_RANGE",
        ),
    ],
)
def test_a_failed_cast_of_two_rows_under_ansi_names_sparks_condition(spark, values, cast, says):
    """The value is shown as SQL writes it (a string quoted, NaN as NaN), with the error
    condition Spark raises for it."""
    query = f"""SELECT * FROM VALUES {values} AS t(s, v) MATCH_RECOGNIZE (
      ORDER BY s MEASURES count(*) AS k PATTERN (S N) DEFINE N AS {cast} IS NULL)"""
    with pytest.raises(Exception) as info:
        matchrec.sql(spark, query).collect()
    err = rebuild(carried_error(info.value) or "", query)
    assert isinstance(err, MatchRuntimeError), info.value
    assert says in err.message
    assert err.pos == query.index(cast)


def test_a_cast_of_two_rows_spark_never_allows_is_refused_when_built(spark):
    """``CAST(number AS DATE)`` is not a cast Spark has: refused before any job, as Spark
    refuses it, with the caret at the CAST (the glue would otherwise try it per match)."""
    define = "CAST(N.n + S.n AS DATE) IS NULL"
    query = TWO_ROW_QUERY.format(want="1", pairs=_pairs_sql(), call=define)
    with pytest.raises(SemanticError) as info:
        matchrec.sql(spark, query)
    assert info.value.message.startswith("Spark rejects CAST(N.n + S.n AS DATE): ")
    assert "DATATYPE_MISMATCH" in info.value.message
    assert query[info.value.pos :].startswith("CAST(N.n")


def _python_udfs() -> list[tuple]:
    """Python UDFs of two rows: (name, function, declared type, a call in DEFINE); several
    return a Python type other than the declared one, which Spark converts (or makes
    NULL). Defined here, not at module level, so that they pickle by value for Spark's
    workers (which cannot import this test module)."""

    def text(a, b):  # each Python kind a STRING UDF may return: Java's text of it
        if a is None or b is None:
            return None
        return [a < b, a * 1.5, a * b, f"{a}|{b}", None][(a + b) % 5]

    def hyp(a, b):
        return None if a is None or b is None else math.hypot(a, b)

    def days(a, b):
        return None if a is None or b is None else str(a - b)

    return [
        ("py_hyp", hyp, "double", "py_hyp(N.v, S.v)"),
        ("py_int_double", lambda a, b: (a or 0) + (b or 0), "double", "py_int_double(N.n, S.n)"),
        ("py_wide", lambda a, b: (a or 7) * 2**31 + (b or 3) * 2**20, "int", "py_wide(N.n, S.n)"),
        ("py_short", lambda a, b: (a or 7) * 40_000 + (b or 3), "smallint", "py_short(N.n, S.n)"),
        (
            "py_huge",
            lambda a, b: 2**70 if a else (a or 0) - (b or 0),
            "bigint",
            "py_huge(N.n, S.n)",
        ),
        ("py_text", text, "string", "py_text(N.n, S.n)"),
        (
            "py_flag",
            lambda a, b: 1 if a == b else None not in (a, b) and a < b,
            "boolean",
            "py_flag(N.s, S.s)",
        ),
        (
            "py_third",
            lambda a, b: None if a is None else a / 3.0 + (b or 0),
            "float",
            "py_third(N.v, S.v)",
        ),
        ("py_days", days, "string", "py_days(N.d, S.d)"),
    ]


PYTHON_UDF_CALLS = [u[3] for u in _python_udfs()]
#: the same functions as Arrow-optimized UDFs (``udf()``'s default in PySpark 4), whose
#: results PySpark converts otherwise (an int for DOUBLE is a DOUBLE, a float for INT
#: is cut, a text of digits for INT is read)
#: (those whose results Arrow refuses, as too wide or a bool for INT, fail in Spark: below)
_ARROW_FAILS = ("py_wide", "py_short", "py_huge", "py_flag")
ARROW_UDF_CALLS = [
    call.replace("py_", "pa_", 1) for call in PYTHON_UDF_CALLS if not call.startswith(_ARROW_FAILS)
]


@pytest.fixture(scope="module")
def python_udfs(spark):
    from pyspark.sql.functions import udf

    for name, fn, kind, _ in _python_udfs():
        spark.udf.register(name, fn, kind)
        spark.udf.register(name.replace("py_", "pa_", 1), udf(fn, kind, useArrow=True))
    yield
    for name, *_ in _python_udfs():
        spark.sql(f"DROP TEMPORARY FUNCTION IF EXISTS {name}")
        spark.sql(f"DROP TEMPORARY FUNCTION IF EXISTS {name.replace('py_', 'pa_', 1)}")


@pytest.mark.parametrize("call", PYTHON_UDF_CALLS)
def test_python_udfs_of_two_rows_equal_spark(spark, python_udfs, call):
    """A Python UDF of values from two rows, called by DEFINE's glue, gives what Spark
    gives calling it on the same values: same arguments, same conversion of the result
    to the declared type (an int for DOUBLE is NULL, an int too wide for INT keeps its
    low bits, a boolean for STRING is 'true')."""
    _two_rows_equal_spark(spark, call, PYTHON_UDF_CALLS)


@pytest.mark.parametrize("call", ARROW_UDF_CALLS)
def test_arrow_optimized_udfs_of_two_rows_equal_spark(spark, python_udfs, call):
    """As above for Arrow-optimized UDFs (refused before: "Arrow-optimized or pandas"),
    whose results the glue converts with the session's PySpark, as its worker does."""
    _two_rows_equal_spark(spark, call, ARROW_UDF_CALLS)


def test_an_arrow_udf_result_arrow_refuses_is_a_positioned_error(spark, python_udfs):
    """Where Spark's job fails converting the result (ArrowInvalid: out of range of INT,
    the session converting safely, Spark's default), the glue fails at the call."""
    query = """SELECT * FROM VALUES (1, 3), (2, 4) AS t(id, n)
      MATCH_RECOGNIZE (ORDER BY id MEASURES count(*) AS k PATTERN (A B)
      DEFINE B AS pa_wide(A.n, n) IS NOT NULL)"""
    with pytest.raises(Exception) as info:
        matchrec.sql(spark, query).collect()
    err = rebuild(carried_error(info.value) or "", query)
    assert isinstance(err, MatchRuntimeError), info.value
    assert "Arrow conversion failed" in err.message and query[err.pos :].startswith("pa_wide")


def test_python_udfs_defines_cannot_call_are_positioned_errors(spark, python_udfs):
    import pandas as pd
    import pyarrow as pa
    import pyarrow.compute as pc
    from pyspark.sql.functions import arrow_udf, pandas_udf, udf

    def added(a, b):
        return a + b

    added.__annotations__ = {"a": pd.Series, "b": pd.Series, "return": pd.Series}
    spark.udf.register("py_pandas", pandas_udf(added, "double"))

    def added_arrays(a, b):
        return pc.add(a, b)

    added_arrays.__annotations__ = {"a": pa.Array, "b": pa.Array, "return": pa.Array}
    spark.udf.register("py_arrow", arrow_udf(added_arrays, "double"))
    spark.udf.register("py_list", lambda a, b: [a, b], "array<int>")
    jitter = udf(lambda a, b: 1.0, "double", useArrow=True).asNondeterministic()
    spark.udf.register("py_jitter", jitter)
    try:
        for call, name, why in [
            ("py_pandas(N.v, S.v) > 0", "py_pandas", "a pandas UDF"),
            ("py_arrow(N.v, S.v) > 0", "py_arrow", "an Arrow UDF"),
            ("size(py_list(N.n, S.n)) > 0", "py_list", "returning ARRAY<INT>"),
            # the reason that stays when the other is mended, first
            ("py_jitter(N.v, S.v) > 0", "py_jitter", "a non-deterministic UDF"),
        ]:
            query = TWO_ROW_QUERY.format(want="1", pairs=_pairs_sql(), call=call)
            with pytest.raises(UnsupportedError, match=why) as info:
                matchrec.sql(spark, query)
            assert query[info.value.pos :].startswith(name)
        # a timestamp argument: a positioned run-time error, not a guess at its form
        query = TWO_ROW_QUERY.format(want="'x'", pairs=_pairs_sql(), call="py_days(N.ts, S.ts)")
        with pytest.raises(Exception, match="numbers, strings, booleans, decimals and dates"):
            matchrec.sql(spark, query).collect()
    finally:
        for name in ("py_pandas", "py_arrow", "py_list", "py_jitter"):
            spark.sql(f"DROP TEMPORARY FUNCTION IF EXISTS {name}")


UDF_PRICES = """SELECT * FROM VALUES ('a', 1, 3), ('a', 2, 5), ('a', 3, 9), ('a', 4, 7),
    ('a', 5, 4), ('a', 6, 6) AS t(sym, id, price)"""


@pytest.fixture
def raising_udfs(spark):
    """A Python and a SQL UDF that fail for a price of 7 (as ``10 DIV (price - 7)``)."""
    spark.udf.register("py_ten_div", lambda x: None if x is None else 10 // (x - 7), "int")
    spark.sql("CREATE TEMPORARY FUNCTION sql_ten_div(x INT) RETURNS INT RETURN 10 DIV (x - 7)")
    yield
    for name in ("py_ten_div", "sql_ten_div"):
        spark.sql(f"DROP TEMPORARY FUNCTION IF EXISTS {name}")


@pytest.mark.parametrize("udf", ["py_ten_div", "sql_ten_div"])
@pytest.mark.parametrize(
    ("define", "arg"),
    [
        ("B AS B.price > PREV(B.price) AND {x} <> 0", "FIRST(A.price)"),
        ("A AS price < 7, B AS {x} <> 0", "FIRST(A.price)"),
        ("A AS price < 7, B AS {x} + 1 > price - 20", "A.price"),
    ],
)
def test_a_udf_of_another_row_is_called_on_the_row_the_match_reads(
    spark, raising_udfs, udf, define, arg
):
    """A UDF of A's value in B's condition is called on the row read as A, as Spark calls
    a function on the value it reads: the row priced 7, never A, cannot fail the job (it
    was a Spark column over every row: ZeroDivisionError / DIVIDE_BY_ZERO at that row)."""
    query = f"""SELECT * FROM ({UDF_PRICES}) MATCH_RECOGNIZE (PARTITION BY sym ORDER BY id
      MEASURES FIRST(A.id) AS a, count(*) AS n AFTER MATCH SKIP PAST LAST ROW
      PATTERN (A B+) DEFINE {{}})"""
    got = matchrec.sql(spark, query.format(define.format(x=f"{udf}({arg})"))).collect()
    built_in = define.format(x=f"10 DIV ({arg} - 7)")
    assert got and got == matchrec.sql(spark, query.format(built_in)).collect()


@pytest.mark.parametrize(
    "condition",
    [
        "CAST(10 DIV (A.price - 7) AS STRING) <> 'x'",
        "CAST(10 / (A.price - 7) AS DECIMAL(10, 2)) < B.price",
        "concat('q', 10 % (A.price - 7)) <> 'x'",
    ],
)
def test_a_division_of_another_row_under_a_cast_is_computed_for_the_row_read(spark, condition):
    """Under ANSI mode, a division of A's value inside a CAST or call in B's condition is
    computed at the row read as A, as Spark computes it: the row priced 7 is never A and
    cannot fail the job (it was a Spark column over every row: DIVIDE_BY_ZERO)."""
    query = f"""SELECT * FROM ({UDF_PRICES}) MATCH_RECOGNIZE (PARTITION BY sym ORDER BY id
      MEASURES A.id AS a AFTER MATCH SKIP TO NEXT ROW
      PATTERN (A B) DEFINE A AS price < 7, B AS {condition})"""
    got = [tuple(r) for r in matchrec.sql(spark, query).collect()]
    joined = spark.sql(
        f"SELECT A.sym, A.id AS a FROM ({UDF_PRICES}) A JOIN ({UDF_PRICES}) B ON B.id = A.id + 1"
        f" WHERE A.price < 7 AND {condition} ORDER BY a"
    ).collect()
    assert got and got == [tuple(r) for r in joined]


@pytest.mark.parametrize(
    "clause",
    [
        "MEASURES sum(py_ten_div(B.price)) AS m PATTERN (A B+) DEFINE B AS true",
        "MEASURES count(*) AS m PATTERN (A B+) DEFINE B AS py_ten_div(price) > -100",
        "MEASURES count(*) AS m PATTERN (A B+) DEFINE B AS py_ten_div(A.price + 4) > price",
    ],
)
def test_a_python_udf_that_raises_is_shown_at_its_call(spark, raising_udfs, clause):
    """The worker's traceback named the Python function, not the call: a PythonException
    without a position (DEFINE's glue already said where, as the third case checks)."""
    from pyspark.errors import PythonException

    query = f"SELECT * FROM ({UDF_PRICES}) MATCH_RECOGNIZE (PARTITION BY sym ORDER BY id {clause})"
    with pytest.raises(MatchRuntimeError) as info:
        matchrec.sql(spark, query).collect()
    err = info.value
    assert isinstance(err, PythonException) and "ZeroDivisionError" in err.message
    assert query[err.pos :].startswith("py_ten_div(")


def test_a_python_udf_raising_in_the_users_own_query_keeps_sparks_error(spark, raising_udfs):
    """The UDF's traceback does not say which query called it: after a matchrec query
    failed in it (told at its call), the user's own ``spark.sql`` failing in the same UDF
    stays PySpark's error, not a MatchRuntimeError at the matchrec query's call."""
    from pyspark.errors import PythonException

    query = (
        f"SELECT * FROM ({UDF_PRICES}) MATCH_RECOGNIZE (PARTITION BY sym ORDER BY id "
        "MEASURES count(*) AS m PATTERN (A B+) DEFINE B AS py_ten_div(price) > -100)"
    )
    with pytest.raises(MatchRuntimeError):
        matchrec.sql(spark, query).collect()
    with pytest.raises(PythonException) as own:
        spark.sql(f"SELECT py_ten_div(price) FROM ({UDF_PRICES})").collect()
    assert not isinstance(own.value, MatchRuntimeError)
    assert "ZeroDivisionError" in str(own.value)


@pytest.mark.parametrize(
    "order", [("matchrec.sql", "table function"), ("table function", "matchrec.sql")]
)
@pytest.mark.parametrize(
    "clause",
    [
        "MEASURES count(*) AS m PATTERN (A B+) DEFINE B AS py_ten_div(price) > -100",
        "MEASURES CAST(py_ten_div(LAST(B.price)) AS INT) AS m PATTERN (A B) DEFINE B AS true",
    ],
)
def test_a_python_udf_that_raises_is_shown_in_the_query_that_ran(
    spark, raising_udfs, order, clause
):
    """Both doors in turn call the same failing UDF, written at different places: each
    error is at its own query's call. The table function's was Spark's traceback, or the
    call in an earlier ``matchrec.sql`` query that had used the UDF."""
    matchrec.register(spark)
    for door, lead in zip(order, ("", "\n  ")):
        body = f"{lead}PARTITION BY sym ORDER BY id {clause}"
        if door == "matchrec.sql":
            query = f"SELECT * FROM ({UDF_PRICES}) MATCH_RECOGNIZE ({body})"
            run = matchrec.sql(spark, query)
        else:
            query = body
            run = spark.sql(f"SELECT * FROM match_recognize(TABLE({UDF_PRICES}), '{body}')")
        with pytest.raises(MatchRuntimeError) as info:
            run.collect()
        err = info.value
        assert "ZeroDivisionError" in err.message, door
        assert err.sql == query and query[err.pos :].startswith("py_ten_div("), door


@pytest.mark.parametrize(
    "clause",
    [
        "MEASURES count(*) AS n PATTERN (A B+) DEFINE B AS py_twice(FIRST(A.price)) > price",
        "MEASURES count(*) AS n PATTERN (A B+) DEFINE B AS py_twice(A.price) > abs(price)",
        # a built-in call as its first argument (was "Spark has no function py_twice()")
        "MEASURES count(*) AS n PATTERN (A B+) DEFINE B AS py_twice(abs(price)) > 8",
        "MEASURES CAST(py_twice(LAST(B.price)) AS INT) AS m PATTERN (A B+) "
        "DEFINE B AS B.price > PREV(B.price)",
        "MEASURES CAST(py_twice(FIRST(A.price)) AS INT) AS m ALL ROWS PER MATCH "
        "PATTERN (A B+) DEFINE B AS true",
        "MEASURES CAST(py_twice(LAST(B.price)) AS INT) AS m ALL ROWS PER MATCH "
        "PATTERN (B A*) DEFINE A AS A.price < py_twice(FIRST(B.price))",
        # an absent row's f(NULL) is read: a UDF that takes None gives its value
        "MEASURES CAST(py_or_minus_one(LAST(B.price, 1)) AS INT) AS m PATTERN (A B+) "
        "DEFINE B AS B.price > PREV(B.price)",
    ],
)
def test_a_python_udf_of_another_row_is_never_called_on_a_row_no_match_lacks(spark, clause):
    """The table function moves ``f(FIRST(A.x))`` inside the navigation, with Spark
    computing ``f(NULL)`` over every row for a match without its A row: a UDF that cannot
    take None failed every query, though every match of ``A B+`` has its A row. Both doors
    now give the same rows."""
    matchrec.register(spark)
    spark.udf.register("py_twice", lambda x: x * 2, "int")
    spark.udf.register("py_or_minus_one", lambda x: -1 if x is None else x, "int")
    spark.sql(UDF_PRICES).createOrReplaceTempView("udf_prices")
    body = f"PARTITION BY sym ORDER BY id {clause}"
    try:
        got = {door: rows_through(spark, door, "udf_prices", body) for door in DOORS}
    finally:
        for name in ("py_twice", "py_or_minus_one"):
            spark.sql(f"DROP TEMPORARY FUNCTION IF EXISTS {name}")
    assert got["matchrec.sql"] and got["table function"] == got["matchrec.sql"]
    if "py_or_minus_one" in clause:
        assert any(row[-1] == -1 for row in got["table function"])


def test_an_empty_match_reads_the_udf_of_null(spark):
    """Every row of a match of ``A*`` is an A, but an empty match has no row: its measure
    is ``f(NULL)``, which matchrec.sql computes and the table function cannot (it is not
    moved inside the navigation, where it would be NULL)."""
    matchrec.register(spark)
    spark.udf.register("py_or_minus_one", lambda x: -1 if x is None else x, "int")
    spark.sql(UDF_PRICES).createOrReplaceTempView("udf_prices")
    body = (
        "PARTITION BY sym ORDER BY id MEASURES CAST(py_or_minus_one(LAST(A.price)) AS INT) "
        "AS m ALL ROWS PER MATCH SHOW EMPTY MATCHES PATTERN (A*) DEFINE A AS price > 6"
    )
    try:
        got = rows_through(spark, "matchrec.sql", "udf_prices", body)
        measured = [row[2] for row in got]  # (sym, id, m, price)
        assert -1 in measured and 9 in measured
        with pytest.raises(UnsupportedError, match="py_or_minus_one"):
            rows_through(spark, "table function", "udf_prices", body)
    finally:
        spark.sql("DROP TEMPORARY FUNCTION IF EXISTS py_or_minus_one")


@pytest.mark.parametrize("arrow", [False, True], ids=["pickled", "arrow"])
@pytest.mark.parametrize(
    "query",
    [
        "SELECT * FROM udf_prices MATCH_RECOGNIZE (PARTITION BY sym ORDER BY id "
        "MEASURES py_twice(FINAL FIRST(B.price)) AS fb, "
        "py_twice(py_twice(FINAL LAST(B.price))) + 1 AS lb "
        "ALL ROWS PER MATCH WITH UNMATCHED ROWS PATTERN (A B+) DEFINE B AS price > PREV(price))",
        "SELECT id, t OVER w AS t FROM udf_prices WINDOW w AS (PARTITION BY sym ORDER BY id "
        "MEASURES py_twice(LAST(B.price)) AS t ROWS BETWEEN CURRENT ROW AND UNBOUNDED "
        "FOLLOWING PATTERN (A B+) DEFINE B AS price > PREV(price))",
    ],
    ids=["with unmatched rows", "window"],
)
def test_a_row_in_no_match_never_calls_a_measures_python_udf(spark, arrow, query):
    """A row in no match has NULL measures, and matchrec.sql computed ``CASE WHEN
    matched THEN py_twice(...) END``: Spark calls a Python UDF on every row whatever the
    CASE says, so a UDF that cannot take None failed the query on those rows. The rows
    are now those of the same UDF made to take None: its values where a match has
    them, NULL elsewhere."""
    spark.udf.register("py_twice", F.udf(lambda x: x * 2, "int", useArrow=arrow))
    spark.udf.register("py_twice_or_null", lambda x: None if x is None else x * 2, "int")
    # a row in no match after the last one too (7 > 6, then 1)
    rows = UDF_PRICES.replace("('a', 6, 6)", "('a', 6, 6), ('a', 7, 1)")
    spark.sql(rows).createOrReplaceTempView("udf_prices")
    try:
        got = sorted(map(tuple, matchrec.sql(spark, query).collect()))
        safe = query.replace("py_twice(", "py_twice_or_null(")
        expected = sorted(map(tuple, matchrec.sql(spark, safe).collect()))
    finally:
        for name in ("py_twice", "py_twice_or_null"):
            spark.sql(f"DROP TEMPORARY FUNCTION IF EXISTS {name}")
    assert got == expected
    assert any(None in row for row in got) and any(None not in row for row in got)


@pytest.mark.parametrize(
    ("clause", "count"),
    [
        ("MEASURES count(*) AS m PATTERN (A B+) DEFINE B AS py_ten_div(price, 2) > -100", 2),
        ("MEASURES py_ten_div(LAST(B.price), 1, 2) AS m PATTERN (A B+) DEFINE B AS true", 3),
        ("MEASURES count(*) AS m PATTERN (A B+) DEFINE B AS py_ten_div() > price", 0),
    ],
)
def test_a_python_udf_called_with_a_wrong_argument_count_is_refused_at_its_call(
    spark, raising_udfs, clause, count
):
    """Spark fails the job with the worker's TypeError and PySpark's frames, naming no call
    of the query: refused before any job, at the call."""
    query = f"SELECT * FROM ({UDF_PRICES}) MATCH_RECOGNIZE (PARTITION BY sym ORDER BY id {clause})"
    with pytest.raises(SemanticError) as info:
        matchrec.sql(spark, query)
    err = info.value
    assert err.message.startswith(f"the Python UDF py_ten_div() is called with {count} argument")
    assert query[err.pos :].startswith("py_ten_div(")


@pytest.mark.parametrize(
    ("call", "built_in"),
    [
        ("py_scaled(price, factor => 2)", "price * 2"),
        ("py_scaled(B.price - A.price, factor => 3)", "(B.price - A.price) * 3"),
        ("py_first(price, 1, 2)", "price"),
    ],
)
def test_a_python_udf_call_its_function_takes_is_accepted(spark, call, built_in):
    """Named arguments and a function of *args are what its function takes: no refusal,
    Spark's answer."""
    spark.udf.register("py_scaled", lambda x, *, factor=1: x * factor, "int")
    spark.udf.register("py_first", lambda *xs: xs[0], "int")
    query = f"""SELECT * FROM ({UDF_PRICES}) MATCH_RECOGNIZE (PARTITION BY sym ORDER BY id
      MEASURES count(*) AS n PATTERN (A B+) DEFINE B AS {{}} > 4)"""
    try:
        got = matchrec.sql(spark, query.format(call)).collect()
        assert got and got == matchrec.sql(spark, query.format(built_in)).collect()
    finally:
        for name in ("py_scaled", "py_first"):
            spark.sql(f"DROP TEMPORARY FUNCTION IF EXISTS {name}")


@pytest.mark.parametrize(
    "clause",
    [
        "MEASURES group_mean(B.price) AS m PATTERN (A B+) DEFINE B AS true",
        "MEASURES group_mean(price) AS m ALL ROWS PER MATCH PATTERN (A B+) DEFINE B AS true",
        "MEASURES count(*) AS m PATTERN (A B+) DEFINE B AS group_mean(B.price) > 3",
    ],
)
def test_a_pandas_aggregate_udf_over_the_match_is_a_positioned_refusal(spark, clause):
    """It was Spark's MISSING_GROUP_BY with the plan of matchrec's columns (__mr_a0,
    MapInArrow), no position: Spark's analysis of the measure alone had accepted it."""
    import pandas as pd
    from pyspark.sql.functions import pandas_udf

    def mean(v):
        return float(v.mean())

    mean.__annotations__ = {"v": pd.Series, "return": float}  # the module's are text
    spark.udf.register("group_mean", pandas_udf(mean, "double"))
    query = f"SELECT * FROM ({UDF_PRICES}) MATCH_RECOGNIZE (PARTITION BY sym ORDER BY id {clause})"
    try:
        with pytest.raises(UnsupportedError) as info:
            matchrec.sql(spark, query)
    finally:
        spark.sql("DROP TEMPORARY FUNCTION IF EXISTS group_mean")
    assert "cannot aggregate the rows of a match" in info.value.message
    assert query[info.value.pos :].startswith("group_mean(")


@pytest.mark.parametrize(
    ("define", "measure"),
    [
        ("default.mr_gap(B.price, FIRST(A.price))", "default.mr_gap(LAST(B.price), A.price)"),
        ("spark_catalog.default.mr_gap(price, A.price)", "default.mr_gap(FIRST(A.price), 1)"),
    ],
)
def test_a_qualified_function_of_two_rows_is_called_not_read_as_a_field(spark, define, measure):
    """``schema.f(...)`` of values from two rows: sqlglot reads a field access, which the
    glue refused ("field access (.) cannot be applied to a value that depends on the
    match"); the same call unqualified worked."""
    spark.sql("CREATE OR REPLACE FUNCTION default.mr_gap(a INT, b INT) RETURNS INT RETURN a - b")
    query = f"""SELECT * FROM ({UDF_PRICES}) MATCH_RECOGNIZE (PARTITION BY sym ORDER BY id
      MEASURES FIRST(A.id) AS a, count(*) AS n, {{}} AS m PATTERN (A B+) DEFINE B AS {{}} > 1)"""
    try:
        rows = matchrec.sql(spark, query.format(measure, define)).collect()
    finally:
        spark.sql("DROP FUNCTION IF EXISTS default.mr_gap")
    plain = measure.replace("default.mr_gap(", "(").replace(", ", " - ")
    want = matchrec.sql(spark, query.format(plain, "(price - A.price)")).collect()
    assert rows and rows == want


@pytest.mark.parametrize(
    "define",
    [
        "py_minus(b => FIRST(A.price), a => B.price) > 1",
        "py_minus(B.price, b => FIRST(A.price)) > 1",
        "sql_minus(b => FIRST(A.price), a => B.price) > 1",
        "sql_minus(a => B.price - FIRST(A.price)) > 1",
    ],
)
def test_named_arguments_of_a_udf_of_two_rows_are_passed_by_name(spark, define):
    """Spark takes ``f(b => x, a => y)``; in a condition of two rows the planner wrote
    ``b => FIRST(...)`` as a value of its own (Spark's PARSE_SYNTAX_ERROR at '=>')."""
    spark.udf.register("py_minus", lambda a, b: None if None in (a, b) else a - b, "int")
    spark.sql(
        "CREATE TEMPORARY FUNCTION sql_minus(a INT, b INT DEFAULT 0) RETURNS INT RETURN a - b"
    )
    query = f"""SELECT * FROM ({UDF_PRICES}) MATCH_RECOGNIZE (PARTITION BY sym ORDER BY id
      MEASURES FIRST(A.id) AS a, count(*) AS n PATTERN (A B+) DEFINE B AS {{}})"""
    try:
        got = matchrec.sql(spark, query.format(define)).collect()
    finally:
        for name in ("py_minus", "sql_minus"):
            spark.sql(f"DROP TEMPORARY FUNCTION IF EXISTS {name}")
    plain = matchrec.sql(spark, query.format("B.price - FIRST(A.price) > 1")).collect()
    assert got and got == plain


@pytest.fixture
def volatile_udfs(spark):
    from pyspark.sql.functions import udf

    spark.udf.register("py_jitter", udf(lambda x: x, "int", useArrow=False).asNondeterministic())
    spark.sql(
        "CREATE TEMPORARY FUNCTION sql_jitter(x INT) RETURNS DOUBLE NOT DETERMINISTIC "
        "RETURN x + rand()"
    )
    spark.sql("CREATE TEMPORARY FUNCTION sql_hidden(x INT) RETURNS DOUBLE RETURN x + rand()")
    yield
    for name in ("py_jitter", "sql_jitter", "sql_hidden"):
        spark.sql(f"DROP TEMPORARY FUNCTION IF EXISTS {name}")


@pytest.mark.parametrize(
    ("clause", "call"),
    [
        ("MEASURES py_jitter(FIRST(A.price)) AS m PATTERN (A B) DEFINE B AS true", "py_jitter"),
        ("MEASURES sum(py_jitter(B.price)) AS m PATTERN (A B+) DEFINE B AS true", "py_jitter"),
        ("MEASURES count(*) AS m PATTERN (A B) DEFINE B AS py_jitter(price) > 4", "py_jitter"),
        ("MEASURES sql_jitter(LAST(B.price)) AS m PATTERN (A B) DEFINE B AS true", "sql_jitter"),
        ("MEASURES count(*) AS m PATTERN (A B) DEFINE B AS sql_hidden(price) > 4", "sql_hidden"),
    ],
)
def test_a_udf_spark_takes_as_non_deterministic_is_refused_where_written(
    spark, volatile_udfs, clause, call
):
    """As rand() is: a UDF declared non-deterministic (or a SQL UDF whose body calls rand())
    would give another match or measure when a task is retried; they ran before."""
    query = f"SELECT * FROM ({UDF_PRICES}) MATCH_RECOGNIZE (PARTITION BY sym ORDER BY id {clause})"
    with pytest.raises(UnsupportedError) as info:
        matchrec.sql(spark, query).collect()
    err = info.value
    assert f"{call}() is not deterministic" in err.message
    assert query[err.pos :].startswith(call) or query[err.pos :].startswith("sum(")
    assert "subquery" in err.hint


@pytest.fixture
def new_york(spark):
    """The session time zone set to one with daylight saving (2024-03-10, 2024-11-03)."""
    before = spark.conf.get("spark.sql.session.timeZone")
    spark.conf.set("spark.sql.session.timeZone", "America/New_York")
    yield
    spark.conf.set("spark.sql.session.timeZone", before)


TIMESTAMP_CALLS = [c for c in TWO_ROW_CALLS if "ts" in c]
PATTERN_CALLS_OF_NO_TIMESTAMP = [c for c in DATETIME_PATTERN_CALLS if "ts" not in c]


@pytest.mark.parametrize("call", TIMESTAMP_CALLS)
def test_functions_of_two_timestamps_in_a_daylight_saving_zone(spark, new_york, call):
    _two_rows_equal_spark(spark, call, TIMESTAMP_CALLS)


@pytest.mark.parametrize("call", [c for c in SEQUENCE_CALLS if "ts" not in c])
def test_sequences_of_two_dates_in_a_daylight_saving_zone(spark, new_york, call):
    """A DATE moved by a step with hours starts at its midnight in the session zone."""
    _two_rows_equal_spark(spark, call)


@pytest.mark.parametrize(
    "call",
    ["S.d - make_interval(0, N.n, 0, S.n, N.n * 7)", "N.d + make_interval(0, 0, 0, 0, 0, S.n)"],
)
def test_dates_moved_by_hours_without_ansi_are_sparks(spark, ansi_off, new_york, call):
    """Without ANSI mode a DATE moved by a CALENDAR INTERVAL with hours is its midnight
    in the session zone moved, then the day of that (Spark's DateAddInterval)."""
    _two_rows_equal_spark(spark, call)


def _two_row_error(spark, call: str) -> tuple[MatchRuntimeError, str]:
    """The positioned run-time error of DEFINE ``call`` over the pairs, and the query."""
    query = TWO_ROW_QUERY.format(want="true", pairs=_pairs_sql(), call=call)
    with pytest.raises(Exception) as info:
        matchrec.sql(spark, query).collect()
    err = rebuild(carried_error(info.value) or "", query)
    assert isinstance(err, MatchRuntimeError), info.value
    return err, query


def test_a_date_moved_by_hours_under_ansi_is_sparks_positioned_error(spark):
    err, query = _two_row_error(spark, "N.d + make_interval(0, 0, 0, 0, S.n) IS NULL")
    assert "INVALID_INTERVAL_WITH_MICROSECONDS_ADDITION" in err.message
    assert err.pos == query.index("+ make_interval(0, 0, 0, 0, S.n)")


def test_a_sequence_of_dates_by_less_than_a_day_is_a_positioned_error(spark):
    err, query = _two_row_error(spark, "size(sequence(N.d, S.d, INTERVAL 12 HOUR)) > 0")
    assert "day granularity if start and end values are dates" in err.message
    assert err.pos == query.index("sequence(N.d")


@pytest.mark.parametrize(
    "call",
    [
        "collate(concat(N.s, S.s), 'UTF8_LCASE') = 'AB'",
        "concat(N.s, S.s) COLLATE UTF8_LCASE < 'AB'",
        "collate(N.s, 'UTF8_LCASE') = S.s",
        "concat(S.s, N.s) COLLATE UTF8_LCASE IN ('AB', 'XAB', 'É✓A')",
        "'B ' > collate(concat(N.s, S.s), 'UTF8_LCASE_RTRIM')",
    ],
)
def test_collated_strings_of_two_rows_compare_as_their_collation(spark, call):
    """``x COLLATE c`` and ``collate(x, 'c')`` of a value of several rows compare under
    ``c`` (case-blind for UTF8_LCASE), as in Spark."""
    _two_rows_equal_spark(spark, call)


@pytest.mark.parametrize(
    ("define", "says"),
    [
        ("contains(concat(N.path, S.path) COLLATE UTF8_LCASE, 'A')", "COLLATE outside a"),
        ("collate(concat(N.path, S.path), 'UNICODE_CI') = 'a'", "under collation UNICODE_CI"),
    ],
)
def test_collations_the_glue_lacks_are_refused_when_built(spark, events, define, says):
    """A collation-aware function of a collated value of several rows, or a collation the
    glue cannot compare, is refused with a caret (it would be a wrong answer)."""
    query = QUERY.format(view=events, pattern="S N+", define=define)
    with pytest.raises(UnsupportedError) as info:
        matchrec.sql(spark, query)
    assert says in info.value.message
    assert info.value.pos >= query.index(define)


@pytest.mark.parametrize("call", PATTERN_CALLS_OF_NO_TIMESTAMP)
def test_datetime_patterns_of_two_rows_in_a_daylight_saving_zone(spark, new_york, call):
    _two_rows_equal_spark(spark, call, PATTERN_CALLS_OF_NO_TIMESTAMP)


@pytest.mark.parametrize(
    "call", ["conv(concat(repeat('f', 16), N.s), 16, 10)", "conv(concat(N.n, '9', S.s), 10, -10)"]
)
def test_conv_beyond_64_bits_without_ansi_is_sparks(spark, ansi_off, call):
    _two_rows_equal_spark(spark, call)


def test_conv_beyond_64_bits_under_ansi_is_a_positioned_error(spark):
    query = """SELECT * FROM VALUES (1, 'ffffffff'), (2, 'ffffffffff') AS t(id, s)
      MATCH_RECOGNIZE (ORDER BY id MEASURES count(*) AS k PATTERN (S N?)
      DEFINE N AS conv(concat(S.s, N.s), 16, 10) IS NULL)"""
    with pytest.raises(Exception) as info:
        matchrec.sql(spark, query).collect()
    err = rebuild(carried_error(info.value) or "", query)
    assert isinstance(err, MatchRuntimeError), info.value
    assert "ARITHMETIC_OVERFLOW" in err.message
    assert err.pos == query.index("conv(")


#: the zone offset's pattern letters, of a TIMESTAMP, a DATE's midnight and an instant
OFFSET_CALLS = [
    "date_format(greatest(N.ts, S.ts), "
    "'X XX XXX XXXX XXXXX x xx xxx xxxx xxxxx Z ZZ ZZZ ZZZZ ZZZZZ O OOOO')",
    "date_format(least(N.d, S.d), 'yyyy-MM-dd X XXXX XXXXX x xxxxx ZZZZ ZZZZZ O')",
    "from_unixtime(N.n * 86400 * 400 + S.n * 3607 - 2500000000, 'yyyy-MM-dd HH:mm X xxx O')",
]


@pytest.mark.parametrize(
    "zone",
    # daylight saving; offsets with seconds (Kolkata before 1942) and half hours; a
    # half-hour saving; UTC
    ["America/New_York", "Asia/Kolkata", "Australia/Lord_Howe", "UTC"],
)
def test_zone_offset_letters_of_two_rows_are_sparks(spark, zone):
    """X, x, Z and O of a value of several rows were refused ("the pattern letter 'X'
    is not computed here"); DEFINE's glue and MATCH_RECOGNIZE_DYNAMIC's rules write the
    session zone's offset as Spark's formatter does."""
    with session_settings(spark, {"spark.sql.session.timeZone": zone}):
        for call in OFFSET_CALLS:
            _two_rows_equal_spark(spark, call)


@pytest.mark.parametrize("zone", ["UTC", "America/New_York"])
def test_months_between_of_an_aggregate_is_sparks(spark, zone):
    """Split into one-row parts, one of which casts an aggregate (``min(S.ts)``) to a
    TIMESTAMP: the glue computes it (it was refused, naming months_between)."""
    view = """SELECT * FROM VALUES (1, TIMESTAMP'2024-01-31 10:00:00'),
      (2, TIMESTAMP'2024-03-10 02:30:00'), (3, TIMESTAMP'2024-11-03 01:30:00') AS t(id, ts)"""
    with session_settings(spark, {"spark.sql.session.timeZone": zone}):
        (want,) = spark.sql(
            f"SELECT months_between(max(ts), min(ts)) FROM ({view}) WHERE id <= 2"
        ).first()
        query = f"""SELECT * FROM ({view}) MATCH_RECOGNIZE (ORDER BY id
          MEASURES count(*) AS k PATTERN (S+ N)
          DEFINE N AS months_between(N.ts, min(S.ts)) = {want}D)"""
        assert [r.k for r in matchrec.sql(spark, query).collect()] == [2]


@pytest.mark.parametrize("ansi", ["true", "false"])
def test_bit_get_past_its_values_bits_is_a_positioned_error(spark, ansi):
    """Spark raises INVALID_PARAMETER_VALUE.BIT_POSITION_RANGE whatever the ANSI mode."""
    query = """SELECT * FROM VALUES (1, 30), (2, 2) AS t(id, n)
      MATCH_RECOGNIZE (ORDER BY id MEASURES count(*) AS k PATTERN (S N?)
      DEFINE N AS bit_get(N.n, S.n + N.n) = 0)"""
    with session_settings(spark, {"spark.sql.ansi.enabled": ansi}):
        with pytest.raises(Exception) as info:
            matchrec.sql(spark, query).collect()
    err = rebuild(carried_error(info.value) or "", query)
    assert isinstance(err, MatchRuntimeError), info.value
    assert "outside [0, 32) for its INT value" in err.message
    assert "BIT_POSITION_RANGE" in err.message
    assert err.pos == query.index("bit_get(")


EVENTS = """SELECT * FROM VALUES
    (1, 'order', '5', '2024-01-02', 1), (2, 'note', 'x', 'soon', 9),
    (3, 'order', '2', '2024-03-01', 1), (4, 'note', 'y', 'later', 7),
    (5, 'order', '8', '2024-01-20', 1), (6, 'note', 'z', '?', 12)
    AS t(id, kind, payload, day, n)"""


@pytest.mark.parametrize(
    ("condition", "tolerant"),
    [
        ("B.n > CAST(A.payload AS INT) + 1", "B.n > try_cast(A.payload AS INT) + 1"),
        ("B.n > A.payload::DECIMAL(3, 1) * 2", "B.n > try_cast(A.payload AS DECIMAL(3, 1)) * 2"),
        ("to_date(A.day) < DATE'2024-02-01'", "try_to_date(A.day) < DATE'2024-02-01'"),
        (
            "CAST(A.day AS TIMESTAMP) + make_dt_interval(B.n) > TIMESTAMP'2024-01-10'",
            "try_cast(A.day AS TIMESTAMP) + make_dt_interval(B.n) > TIMESTAMP'2024-01-10'",
        ),
    ],
)
def test_a_cast_of_another_rows_value_reads_only_the_row_the_match_reads(
    spark, condition, tolerant
):
    """Under ANSI mode a CAST of A's value in B's condition casts the row read as A, as
    Spark casts a value it reads: other events' text, never A, cannot fail the job (it
    was a Spark column cast on every row: CAST_INVALID_INPUT at 'x')."""
    query = f"""SELECT * FROM ({EVENTS}) MATCH_RECOGNIZE (ORDER BY id
      MEASURES FIRST(A.id) AS a, count(*) AS k PATTERN (A B)
      DEFINE A AS kind = 'order', B AS {{}})"""
    got = matchrec.sql(spark, query.format(condition)).collect()
    assert got and got == matchrec.sql(spark, query.format(tolerant)).collect()


def test_a_cast_of_a_row_the_match_reads_still_fails_as_spark(spark):
    query = f"""SELECT * FROM ({EVENTS}) MATCH_RECOGNIZE (ORDER BY id
      MEASURES FIRST(A.id) AS a AFTER MATCH SKIP TO NEXT ROW PATTERN (A B)
      DEFINE B AS B.n > CAST(A.payload AS INT))"""
    with pytest.raises(Exception) as info:
        matchrec.sql(spark, query).collect()
    err = rebuild(carried_error(info.value) or "", query)
    assert isinstance(err, MatchRuntimeError), info.value
    assert "'x'" in err.message and "CAST_INVALID_INPUT" in err.message
    assert err.pos == query.index("CAST(")


def _unmappable_is_a_positioned_error(spark):
    query = """SELECT * FROM VALUES (1, 'a'), (2, 'é') AS t(id, s)
      MATCH_RECOGNIZE (ORDER BY id MEASURES count(*) AS k PATTERN (S N?)
      DEFINE N AS encode(concat(S.s, N.s), 'US-ASCII') IS NULL)"""
    with pytest.raises(Exception) as info:
        matchrec.sql(spark, query).collect()
    err = rebuild(carried_error(info.value) or "", query)
    assert isinstance(err, MatchRuntimeError), info.value
    assert "MALFORMED_CHARACTER_CODING" in err.message
    assert err.pos == query.index("encode(")


def test_an_unmappable_character_of_two_rows_is_a_positioned_error(spark):
    """Spark's encode and decode fail on a character the charset cannot hold (or bytes
    it cannot read), ANSI mode or not (spark.sql.legacy.codingErrorAction is false)."""
    _unmappable_is_a_positioned_error(spark)


def test_an_unmappable_character_without_ansi_is_also_an_error(spark, ansi_off):
    _unmappable_is_a_positioned_error(spark)


def test_base64_of_two_rows_follows_the_session_chunking(spark):
    """``spark.sql.chunkBase64String.enabled`` off: one line, as Spark writes it."""
    before = spark.conf.get("spark.sql.chunkBase64String.enabled", None)
    spark.conf.set("spark.sql.chunkBase64String.enabled", "false")
    try:
        _two_rows_equal_spark(spark, "base64(repeat(concat(N.s, S.s), 20))")
    finally:
        if before is None:
            spark.conf.unset("spark.sql.chunkBase64String.enabled")
        else:
            spark.conf.set("spark.sql.chunkBase64String.enabled", before)


def test_make_dt_interval_seconds_out_of_range_without_ansi_are_null(spark, ansi_off):
    _two_rows_equal_spark(spark, "make_dt_interval(0, 0, N.n, N.v * S.n)")


WALL_CLOCKS = """SELECT * FROM VALUES (1, TIMESTAMP_NTZ'2024-03-10 02:30:00'),
  (2, TIMESTAMP_NTZ'2024-03-10 01:10:00'), (3, TIMESTAMP_NTZ'2024-01-05 00:00:00') AS t(id, w)"""


@pytest.mark.parametrize(
    "call",
    ["date_format(greatest(A.w, B.w), 'yyyy-MM-dd HH:mm')", "unix_timestamp(least(A.w, B.w))"],
)
def test_datetime_patterns_of_timestamp_ntz_values_are_sparks(spark, new_york, call):
    """A TIMESTAMP_NTZ is formatted as Spark casts it to TIMESTAMP (a wall-clock time in
    the spring-forward gap moves later); ``unix_timestamp`` reads it as UTC."""
    want = call.replace("A.w", "lag(w) OVER (ORDER BY id)").replace("B.w", "w")
    query = f"""SELECT a FROM (SELECT *, {want} AS want FROM ({WALL_CLOCKS}))
        MATCH_RECOGNIZE (ORDER BY id MEASURES A.id AS a AFTER MATCH SKIP TO NEXT ROW
        PATTERN (A B) DEFINE B AS {call} <=> B.want)"""
    assert sorted(r.a for r in matchrec.sql(spark, query).collect()) == [1, 2]


PARSE_FAILURES = [
    "to_timestamp(concat(N.s, S.s), 'yyyy')",
    "to_timestamp(concat(S.n + 2000, '-', N.n, '-', S.n), 'yyyy-M-d')",
    "to_date(concat(N.n, '/', S.n, '/2024'), 'MM/dd/yyyy')",
    "unix_timestamp(concat(N.n, ':', S.n), 'H:m')",
    "to_unix_timestamp(concat(N.s, S.n), 'MMM d')",
    "to_timestamp(concat(N.n + 10, ' ', S.s), 'hh a')",
]


@pytest.mark.parametrize("call", PARSE_FAILURES)
def test_a_failed_parse_of_two_rows_without_ansi_is_null_as_spark(spark, ansi_off, call):
    _two_rows_equal_spark(spark, call, PARSE_FAILURES)


@pytest.mark.parametrize(
    ("values", "define", "condition"),
    [
        ("'2024-01-0'), (2, 'x'", "to_date(concat(S.s, N.s), 'yyyy-MM-dd')", "CANNOT_PARSE"),
        ("'http://h/'), (2, '%zz'", "parse_url(concat(S.s, N.s), 'HOST')", "INVALID_URL"),
    ],
)
def test_a_failure_of_two_rows_under_ansi_is_a_positioned_error(spark, values, define, condition):
    """A parse of two rows' text that fails under ANSI mode fails the query as Spark's
    does, the caret at the call."""
    query = f"""SELECT * FROM VALUES (1, {values}) AS t(id, s) MATCH_RECOGNIZE (
      ORDER BY id MEASURES count(*) AS k PATTERN (S N?)
      DEFINE N AS {define} IS NULL)"""
    with pytest.raises(Exception) as info:
        matchrec.sql(spark, query).collect()
    err = rebuild(carried_error(info.value) or "", query)
    assert isinstance(err, MatchRuntimeError), info.value
    assert condition in err.message
    assert err.pos == query.index(define)


#: parse_url of URLs built of two rows' values; some are malformed (a '%' without hex
#: digits), which Spark's parse_url without ANSI mode and try_parse_url give as NULL
URL_CALLS = [
    f"parse_url(concat('http://', N.s, 'h.org:8', S.n, '/p', S.s, '?', N.s, '=', S.n, "
    f"'#', S.s), '{part}')"
    for part in ("HOST", "PATH", "QUERY", "REF", "AUTHORITY", "FILE", "PROTOCOL", "host")
] + [
    "parse_url(concat('ftp://', N.s, '@[::1]:', S.n, '/', S.s), 'USERINFO')",
    "parse_url(concat(N.s, ':', S.s), 'PROTOCOL')",
    "parse_url(concat('http://h/?', N.s, '=', S.n, '&b=', S.s), 'QUERY', 'b')",
    "parse_url(concat('http://h/?', N.s, '=', S.n, '&b=', S.s), 'QUERY', N.s)",
    "parse_url(concat('mailto:', N.s, '@h?x=', S.n), 'QUERY', 'x')",
    "parse_url(concat('http://h/', N.s, S.s), 'PATH', 'x')",
]


@pytest.mark.parametrize("call", URL_CALLS)
def test_parse_url_of_two_rows_without_ansi_is_sparks(spark, ansi_off, call):
    _two_rows_equal_spark(spark, call, URL_CALLS)


@pytest.mark.parametrize("call", [c.replace("parse_url", "try_parse_url") for c in URL_CALLS])
def test_try_parse_url_of_two_rows_is_sparks(spark, call):
    _two_rows_equal_spark(spark, call)


@pytest.mark.parametrize(
    ("define", "at", "words"),
    [
        ("date_format(greatest(N.ts, S.ts), 'yyyy-MM-dd G') = 'x'", "G'", "letter 'G'"),
        ("from_unixtime(N.id + S.id, 'HH:mm VV') = 'x'", "VV", "letter 'V'"),
        ("to_timestamp(concat(N.path, S.path), 'yyyy EEE') IS NULL", "EEE", "for parsing"),
        ("to_date(concat(N.path, S.path), 'yMMdd') IS NULL", "yMMdd", "variable width"),
        ("from_unixtime(N.id + S.id, 'dd [HH]') = 'x'", "[HH", "'['"),
        ("format_number(N.v - S.v, '#,##0.0%') = 'x'", "'#,##0.0%'", "'#,##0.0%'"),
    ],
)
def test_a_pattern_letter_the_glue_lacks_is_refused_when_built(define, at, words):
    """A pattern letter (or count, or reserved character) the glue does not compute is an
    error when the query is built, the caret at that letter of the pattern."""
    with pytest.raises(UnsupportedError) as info:
        _plan(define)
    err = info.value
    assert words in err.message
    assert err.sql[err.pos :].startswith(at)


PATTERN_VALUES = """SELECT * FROM VALUES
  (1, TIMESTAMP'2024-03-01 10:00:00', '05-Apr-11', 1709287200),
  (2, TIMESTAMP'2024-03-02 11:30:00', '06-Apr-11', 1709379000) AS t(id, ts, s, n)"""
#: a datetime call of one row for each function -> the column it reads
PATTERN_CALLS = {
    "to_date": "s",
    "to_timestamp": "s",
    "try_to_timestamp": "s",
    "to_timestamp_ntz": "s",
    "unix_timestamp": "s",
    "date_format": "ts",
    "to_char": "ts",
    "from_unixtime": "n",
}
#: patterns Spark refuses (a week-based letter, a letter it lacks or does not parse, too
#: many letters, a reserved character) and patterns it takes (an optional section too)
PATTERN_CASES = [
    ("to_date", "DD-MON-YY"),
    ("date_format", "yyyy-ww"),
    ("to_timestamp", "yyyy EEE"),
    ("date_format", "yyyy EEE"),
    ("unix_timestamp", "MMMMM"),
    ("date_format", "qq"),
    ("try_to_timestamp", "qq"),
    ("from_unixtime", "yyyy#"),
    ("to_timestamp_ntz", "uuuu"),
    ("date_format", "B"),
    ("date_format", "yyyy-MM-dd[ HH:mm]"),
    # to_char of a TIMESTAMP is date_format (the job failed on its first row)
    ("to_char", "YYYY"),
    ("to_char", "yyyy-MM-dd"),
    ("to_date", "dd-MMM-yy"),
    ("from_unixtime", "HH:mm"),
]


def _sparks_verdict(spark, call: str) -> tuple[str | None, list]:
    """Spark's own answer to ``call`` over :data:`PATTERN_VALUES`: (the error condition
    of a pattern it refuses, or None; the values)."""
    try:
        rows = spark.sql(f"SELECT {call} AS v FROM ({PATTERN_VALUES}) ORDER BY id").collect()
    except PySparkException as exc:
        return exc.getCondition(), []
    return None, [r.v for r in rows]


@pytest.mark.parametrize(("function", "pattern"), PATTERN_CASES)
def test_a_datetime_pattern_spark_refuses_is_refused_when_built(spark, function, pattern):
    """A datetime pattern literal Spark refuses (which Spark reports on the first row of
    a job, without a position) is an error when the query is built, with Spark's reason
    and the caret in the pattern, in MEASURES and in DEFINE; one it takes gives Spark's
    values."""
    column = PATTERN_CALLS[function]
    refused, values = _sparks_verdict(spark, f"{function}({column}, '{pattern}')")
    queries = [
        f"""SELECT * FROM ({PATTERN_VALUES}) MATCH_RECOGNIZE (ORDER BY id
            MEASURES {function}(LAST(X.{column}), '{pattern}') AS v
            ALL ROWS PER MATCH PATTERN (X) DEFINE X AS true)""",
        f"""SELECT * FROM ({PATTERN_VALUES}) MATCH_RECOGNIZE (ORDER BY id
            MEASURES X.id AS x ALL ROWS PER MATCH PATTERN (X)
            DEFINE X AS coalesce(CAST({function}({column}, '{pattern}') AS STRING), '-') <> '?')""",
    ]
    for query in queries:
        if refused is None:
            rows = matchrec.sql(spark, query).collect()
            assert len(rows) == 2
            if "MEASURES X.id" not in query:
                assert [r.v for r in rows] == values
            continue
        assert refused.startswith(("INVALID_DATETIME_PATTERN", "INCONSISTENT_BEHAVIOR"))
        with pytest.raises(SemanticError) as info:
            matchrec.sql(spark, query)
        err = info.value
        assert f"{function}(): Spark cannot use the datetime pattern '{pattern}'" in err.message
        assert refused in err.message
        start = err.sql.index(f"'{pattern}'")
        assert start <= err.pos <= start + len(pattern), "the caret is in the pattern"


@pytest.mark.parametrize(
    "call",
    [
        "regexp_like(s, '(')",
        "s RLIKE '[a-'",
        "split(s, 'a{2,1}')[0]",
        "regexp_replace(s, 'x)', 'y')",
        "str_to_map(s, ',', '(')",
        "regexp_like(s, '\\\\(')",
        "regexp_extract(s, '(A)(p)', 2)",
    ],
)
def test_a_regular_expression_spark_refuses_is_refused_when_built(spark, call):
    """A regular expression literal Java cannot compile fails Spark's job on its first
    row (with Java's stack trace, for a column's values): it is an error when the query
    is built, with Java's reason, the caret at the literal; one it compiles gives Spark's
    values."""
    refused = False
    try:
        want = spark.sql(f"SELECT {call} AS v FROM ({PATTERN_VALUES}) ORDER BY id").collect()
    except Exception:  # Spark's job fails: a Py4JJavaError holding Java's PatternSyntaxException
        refused = True
    query = f"""SELECT * FROM ({PATTERN_VALUES}) MATCH_RECOGNIZE (ORDER BY id
        MEASURES {call.replace("(s", "(LAST(X.s)").replace("s RLIKE", "LAST(X.s) RLIKE")} AS v
        ALL ROWS PER MATCH PATTERN (X) DEFINE X AS true)"""
    if not refused:
        assert [r.v for r in matchrec.sql(spark, query).collect()] == [r.v for r in want]
        return
    with pytest.raises(SemanticError) as info:
        matchrec.sql(spark, query)
    err = info.value
    assert "Spark cannot use the regular expression" in err.message
    assert "near index" in err.message  # Java's reason
    assert err.sql[err.pos] == "'"


@pytest.mark.parametrize("pattern", ["([a-", "[b-a]", "a{2,1}"])
def test_the_table_function_says_which_regular_expression_java_refuses(spark, pattern):
    """The table function has no session to ask: matchrec's reader of Java's syntax says
    what Java says (``([a-`` was "cannot evaluate regexp_extract() over values from
    several rows"), at the literal, as matchrec.sql does with Spark's answer."""
    matchrec.register(spark)
    body = (
        f"ORDER BY id MEASURES regexp_extract(LAST(X.s), '{pattern}', 0) AS v "
        "PATTERN (X) DEFINE X AS true"
    )
    quoted = body.replace("'", "''")
    with pytest.raises(matchrec.MatchRecognizeError) as by_function:
        spark.sql(f"SELECT * FROM match_recognize(TABLE({PATTERN_VALUES}), '{quoted}')")
    with pytest.raises(SemanticError) as by_sql:
        matchrec.sql(spark, f"SELECT * FROM ({PATTERN_VALUES}) MATCH_RECOGNIZE ({body})")
    java_says = by_sql.value.message.split(": ", 1)[1]  # Spark's own reason
    assert java_says in by_function.value.message
    assert body[by_function.value.pos :].startswith(f"'{pattern}'")


def test_a_refused_pattern_is_shown_at_the_letter_spark_names():
    """Spark names the week-based letter of DD-MON-YY: the caret is under it, and Spark's
    refusal comes before what the glue of two rows computes itself."""
    said = "[X] detected week-based character: Y."
    clause = parse_clause(
        "PARTITION BY usr ORDER BY id MEASURES count(*) AS n PATTERN (S N+) "
        "DEFINE N AS to_date(concat(S.path, N.path), 'DD-MON-YY') IS NULL"
    )
    with pytest.raises(SemanticError) as info:
        check_pattern_literals(
            clause, lambda function, pattern: said if function == "to_date" else None
        )
    err = info.value
    assert err.sql[err.pos :].startswith("YY')")
    assert said in err.message


LAGGED_VALUES = """SELECT * FROM VALUES
  (1, TIMESTAMP'2026-01-01 10:00:00', DATE'2026-01-01', 1767261600),
  (2, TIMESTAMP'2026-01-01 10:30:00', DATE'2026-03-01', 1767263400),
  (3, TIMESTAMP'2026-01-01 10:31:00', DATE'2026-03-15', 1767270000),
  (4, TIMESTAMP'2026-01-02 09:00:00', DATE'2026-06-30', 1767330000) AS t(id, ts, d, n)"""


@pytest.mark.parametrize(
    ("define", "spark_sql"),
    [
        (
            "unix_timestamp(ts) - unix_timestamp(PREV(ts)) > 120",
            "unix_timestamp(ts) - unix_timestamp(lag(ts) OVER w) > 120",
        ),
        (
            "to_unix_timestamp(NEXT(ts)) - to_unix_timestamp(ts) < 3600",
            "to_unix_timestamp(lead(ts) OVER w) - to_unix_timestamp(ts) < 3600",
        ),
        ("date_format(PREV(ts, 2), 'HH') = '10'", "date_format(lag(ts, 2) OVER w, 'HH') = '10'"),
        ("months_between(d, PREV(d)) > 1", "months_between(d, lag(d) OVER w) > 1"),
        (
            "from_unixtime(n) > from_unixtime(PREV(n))",
            "from_unixtime(n) > from_unixtime(lag(n) OVER w)",
        ),
        (
            "to_date(CAST(PREV(d) AS STRING), 'yyyy-MM-dd') < d",
            "to_date(CAST(lag(d) OVER w AS STRING), 'yyyy-MM-dd') < d",
        ),
    ],
)
def test_datetime_patterns_of_the_previous_row_are_sparks(spark, define, spark_sql):
    """A datetime function of PREV/NEXT of the current row is Spark's LAG/LEAD with the
    function applied, computed by Spark (was refused naming an internal function)."""
    query = f"""SELECT * FROM ({LAGGED_VALUES}) MATCH_RECOGNIZE (ORDER BY id
        MEASURES B.id AS b PATTERN (B) DEFINE B AS {define})"""
    want = spark.sql(
        f"SELECT id FROM ({LAGGED_VALUES}) WINDOW w AS (ORDER BY id) QUALIFY {spark_sql}"
    )
    expected = sorted(r.id for r in want.collect())
    assert expected, "the case should select some rows"
    assert sorted(r.b for r in matchrec.sql(spark, query).collect()) == expected


ONE_ROW_VALUES = """SELECT * FROM VALUES
  (1, TIMESTAMP'0999-03-01 10:00:00', '24-3-1', '2024-01-05 10:00'),
  (2, TIMESTAMP'2024-03-02 10:00:00', '2024-3-1', '2024-01-05'),
  (3, TIMESTAMP'0042-12-31 23:59:59', '7-1-2', '99-1-2') AS t(id, ts, s, s2)"""
#: calls of one row with a pattern whose letters sqlglot's strftime mapping rewrote
#: ('y' as 'yyyy', 'E' as 'EEE'; to_date(s, 'yyyy-MM-dd') as to_date(s), a lenient CAST)
ONE_ROW_PATTERNS = [
    "date_format(ts, 'y E')",
    "date_format(ts, 'yyy-M-d')",
    "from_unixtime(unix_timestamp(ts), 'y')",
    "unix_timestamp(s, 'y-M-d')",
    "to_timestamp(s, 'y-M-d')",
    "to_date(s, 'y-M-d')",
    "to_date(s2, 'yyyy-MM-dd')",
    "to_unix_timestamp(s2, 'yy-M-d')",
]


def test_patterns_of_one_row_are_sparks_as_written(spark, ansi_off):
    """A datetime pattern of one row reaches Spark as written, in MEASURES and in DEFINE,
    through ``matchrec.sql`` and the table function: Spark's answers (a failed parse
    NULL without ANSI)."""
    matchrec.register(spark)
    spark.sql(f"CREATE OR REPLACE TEMP VIEW mr_one_row_patterns AS {ONE_ROW_VALUES}")
    names = [f"m{i}" for i in range(len(ONE_ROW_PATTERNS))]
    selected = ", ".join(f"{call} AS {n}" for call, n in zip(ONE_ROW_PATTERNS, names))
    want = {r.id: r for r in spark.sql(f"SELECT id, {selected} FROM mr_one_row_patterns").collect()}
    measures = ", ".join(f"{call} AS {n}" for call, n in zip(ONE_ROW_PATTERNS, names))
    body = f"ORDER BY id MEASURES {measures} ALL ROWS PER MATCH PATTERN (A) DEFINE A AS true"
    quote = "'"
    doors = {
        "matchrec.sql": matchrec.sql(
            spark, f"SELECT * FROM mr_one_row_patterns MATCH_RECOGNIZE ({body})"
        ),
        "table function": spark.sql(
            "SELECT * FROM match_recognize(TABLE(mr_one_row_patterns), "
            f"'{body.replace(quote, quote * 2)}')"
        ),
    }
    for door, frame in doors.items():
        got = {r.id: r for r in frame.collect()}
        for call, n in zip(ONE_ROW_PATTERNS, names):
            values = {i: (got[i][n], want[i][n]) for i in want}
            assert all(a == b for a, b in values.values()), (door, call, values)
    for call in ONE_ROW_PATTERNS:
        query = f"""SELECT * FROM (SELECT *, {call} AS want FROM mr_one_row_patterns)
            MATCH_RECOGNIZE (ORDER BY id MEASURES A.id AS a ALL ROWS PER MATCH
            PATTERN (A) DEFINE A AS {call} <=> want)"""
        assert sorted(r.a for r in matchrec.sql(spark, query).collect()) == [1, 2, 3], call


# 2024-11-03 in New York: 01:30 EDT, then 01:10 EST (40 minutes later), then 02:10 EST
REPEATED_HOUR = """SELECT * FROM VALUES
  (1, TIMESTAMP'2024-11-03 01:30:00-04:00'), (2, TIMESTAMP'2024-11-03 01:10:00-05:00'),
  (3, TIMESTAMP'2024-11-03 02:10:00-05:00'), (4, TIMESTAMP'2024-11-03 01:50:00-05:00')
  AS t(id, ts)"""


@pytest.mark.parametrize(
    "define",
    [
        "B.ts > FIRST(A.ts)",
        "B.ts = A.ts + INTERVAL '40' MINUTE",
        "greatest(B.ts, A.ts) = B.ts AND B.ts <> A.ts",
        "least(B.ts, A.ts) = A.ts",
        "B.ts - A.ts > INTERVAL '0' SECOND",
        "date_trunc('HOUR', B.ts) > date_trunc('HOUR', FIRST(A.ts))",
        "timestampadd(MINUTE, 1, A.ts) < B.ts",
        "array(B.ts) > array(A.ts)",
        "B.ts BETWEEN A.ts AND A.ts + INTERVAL '1' HOUR",
    ],
)
def test_timestamps_of_the_hour_a_dst_change_repeats_compare_as_spark(spark, new_york, define):
    # two times of one zone compare by their instant, not by their wall clock
    query = f"""SELECT a, b FROM ({REPEATED_HOUR}) MATCH_RECOGNIZE (ORDER BY id
        MEASURES A.id AS a, B.id AS b AFTER MATCH SKIP TO NEXT ROW
        PATTERN (A B) DEFINE B AS {define})"""
    got = {tuple(r) for r in matchrec.sql(spark, query).collect()}
    pair = define.replace("FIRST(A.ts)", "a.ts").replace("A.ts", "a.ts").replace("B.ts", "b.ts")
    want = spark.sql(
        f"""SELECT a.id, b.id FROM ({REPEATED_HOUR}) a JOIN ({REPEATED_HOUR}) b
        ON b.id = a.id + 1 WHERE {pair}"""
    )
    assert got == {tuple(r) for r in want.collect()}


def test_aggregates_over_the_hour_a_dst_change_repeats_are_sparks(spark, new_york):
    # the same wall clock twice (01:30 EDT, 01:30 EST) is two values; order is the instant
    rows = REPEATED_HOUR.replace(
        "(4, TIMESTAMP'2024-11-03 01:50:00-05:00')", "(4, TIMESTAMP'2024-11-03 01:30:00-05:00')"
    )
    measures = (
        "max(ts) AS hi, min(ts) AS lo, count(DISTINCT ts) AS n, max_by(id, ts) AS at_hi, "
        "min_by(id, ts) AS at_lo"
    )
    body = f"ORDER BY id MEASURES {measures} PATTERN (X+) DEFINE X AS TRUE"
    matchrec.register(spark)
    spark.sql(f"CREATE OR REPLACE TEMP VIEW mr_repeated AS {rows}")
    doors = [
        matchrec.sql(spark, f"SELECT * FROM mr_repeated MATCH_RECOGNIZE ({body})"),
        spark.sql(f"SELECT * FROM match_recognize(TABLE(mr_repeated), '{body}')"),
    ]
    want = spark.sql(f"SELECT {measures} FROM mr_repeated").collect()
    for door in doors:
        assert door.collect() == want


# ---------------------------------------------------------------- CLASSIFIER, MATCH_NUMBER inside

LABELLED = """SELECT * FROM VALUES
  ('p', 1, 'a', 1), ('p', 2, 'b', 5), ('p', 3, NULL, 2), ('p', 4, 'd', 7), ('p', 5, 'e', 1),
  ('p', 6, 'f', 3), ('p', 7, 'g', 9), ('q', 1, 'h', 4), ('q', 2, 'i', 2), ('q', 3, 'j', 8)
  AS t(part, id, value, x)"""
BODY = """PARTITION BY part ORDER BY id
  MEASURES {measures}
  ALL ROWS PER MATCH
  PATTERN (X Y? Z+)
  DEFINE Z AS x < 8"""

# (measure as a user writes it, the same over a matched row's label ``cl`` and match
# number ``mn``, as a window over the match's rows so far)
INSIDE_MEASURES = [
    ("array_agg(value || CLASSIFIER())", "collect_list(value || cl) OVER w"),
    ("array_agg(lower(CLASSIFIER()) || MATCH_NUMBER())", "collect_list(lower(cl) || mn) OVER w"),
    ("max(MATCH_NUMBER())", "max(mn) OVER w"),
    ("sum(x * MATCH_NUMBER())", "sum(x * mn) OVER w"),
    ("count_if(CLASSIFIER() = 'Z')", "count_if(cl = 'Z') OVER w"),
    ("count(CLASSIFIER())", "count(cl) OVER w"),
    ("max_by(CLASSIFIER(), x)", "max_by(cl, x) OVER w"),
    (
        "sum(CASE CLASSIFIER() WHEN 'X' THEN 100 ELSE x END)",
        "sum(CASE cl WHEN 'X' THEN 100 ELSE x END) OVER w",
    ),
    (
        "array_agg(regexp_replace(CLASSIFIER(), 'Z', value))",
        "collect_list(regexp_replace(cl, 'Z', value)) OVER w",
    ),
    (
        "string_agg(CLASSIFIER(), ',')",
        "CASE WHEN count(cl) OVER w > 0 THEN array_join(collect_list(cl) OVER w, ',') END",
    ),
    (
        "listagg(value)",
        "CASE WHEN count(value) OVER w > 0 THEN array_join(collect_list(value) OVER w, '') END",
    ),
    ("listagg(x, '-')", "array_join(collect_list(CAST(x AS STRING)) OVER w, '-')"),
    ("LAST(lower(CLASSIFIER()), 1)", "lag(lower(cl)) OVER (PARTITION BY part, mn ORDER BY id)"),
    # statistical aggregates over the match, row by row as Spark's (Welford, in doubles)
    ("stddev(x)", "stddev(x) OVER w"),
    ("std(x / 3)", "std(x / 3) OVER w"),
    ("stddev_pop(x)", "stddev_pop(x) OVER w"),
    ("variance(x * 1.1D)", "variance(x * 1.1D) OVER w"),
    ("var_samp(x)", "var_samp(x) OVER w"),
    ("var_pop(x)", "var_pop(x) OVER w"),
    ("any_value(value)", "first(value) OVER w"),
]


@pytest.fixture(scope="module")
def labelled(spark):
    spark.sql(f"CREATE OR REPLACE TEMP VIEW labelled AS {LABELLED}")
    yield "labelled"
    spark.catalog.dropTempView("labelled")


@pytest.mark.parametrize(("measure", "over_rows"), INSIDE_MEASURES)
def test_classifier_and_match_number_inside_measures(spark, labelled, measure, over_rows):
    got = matchrec.match_recognize(
        spark.table(labelled), BODY.format(measures=f"{measure} AS r")
    ).select("part", "id", "r")
    matched = matchrec.match_recognize(
        spark.table(labelled), BODY.format(measures="MATCH_NUMBER() AS mn, CLASSIFIER() AS cl")
    )
    window = "(PARTITION BY part, mn ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"
    want = matched.selectExpr(
        "part", "id", f"{over_rows.replace(' OVER w', f' OVER {window}')} AS r"
    )
    rows = got.orderBy("part", "id").collect()
    assert rows == want.orderBy("part", "id").collect()
    assert len(rows) > 5 and any(r.r is not None for r in rows)


# (DEFINE as a user writes it, the same without CLASSIFIER/MATCH_NUMBER inside)
INSIDE_DEFINE = [
    ("count_if(CLASSIFIER() = 'Z') < 3", "count(Z.*) < 3"),
    ("sum(CASE WHEN CLASSIFIER() = 'X' THEN x END) > 1", "sum(X.x) > 1"),
    ("max(MATCH_NUMBER() * 10) <= 10 * x", "MATCH_NUMBER() * 10 <= 10 * x"),
    ("PREV(upper(CLASSIFIER())) <> 'Y'", "PREV(CLASSIFIER()) <> 'Y'"),
    ("size(array_agg(lower(CLASSIFIER()))) < 4", "count(*) < 4"),
]


@pytest.mark.parametrize(("define", "plain"), INSIDE_DEFINE)
def test_classifier_and_match_number_inside_define(spark, labelled, define, plain):
    body = (
        "PARTITION BY part ORDER BY id MEASURES MATCH_NUMBER() AS mn, CLASSIFIER() AS cl "
        "ALL ROWS PER MATCH PATTERN (X Y? Z+) DEFINE Z AS {}"
    )
    got = matchrec.match_recognize(spark.table(labelled), body.format(define))
    want = matchrec.match_recognize(spark.table(labelled), body.format(plain))
    rows = got.orderBy("part", "id").collect()
    assert rows == want.orderBy("part", "id").collect()
    assert rows


def test_statistical_aggregates_in_define(spark, labelled):
    """A match anchored at the partition start: DEFINE's running aggregates are Spark's
    windows from the partition start, for as long as the match goes on."""
    body = (
        "PARTITION BY part ORDER BY id MEASURES count(*) AS k ALL ROWS PER MATCH "
        "PATTERN (^A+) DEFINE A AS {}"
    )
    define = "stddev(x) IS NULL OR x <= avg(x) + 0.5D * stddev(x) + var_pop(x) / 100"
    plain = "sd IS NULL OR x <= av + 0.5D * sd + vp / 100"
    frame = "OVER (PARTITION BY part ORDER BY id ROWS UNBOUNDED PRECEDING)"
    windowed = spark.table(labelled).selectExpr(
        "*", f"stddev(x) {frame} AS sd", f"avg(x) {frame} AS av", f"var_pop(x) {frame} AS vp"
    )
    got = matchrec.match_recognize(spark.table(labelled), body.format(define))
    want = matchrec.match_recognize(windowed, body.format(plain))
    rows = got.select("part", "id", "k").orderBy("part", "id").collect()
    assert rows == want.select("part", "id", "k").orderBy("part", "id").collect()
    assert 2 < len(rows) < 10


def test_classifier_inside_aggregates_through_the_table_function(spark, labelled):
    matchrec.register(spark)
    body = BODY.format(
        measures="array_agg(value || CLASSIFIER()) AS r, string_agg(CLASSIFIER()) AS s"
    )
    got = spark.sql(f"SELECT part, id, r, s FROM match_recognize(TABLE({labelled}), '{body}')")
    via_api = matchrec.match_recognize(spark.table(labelled), body).select("part", "id", "r", "s")
    rows = got.orderBy("part", "id").collect()
    assert rows == via_api.orderBy("part", "id").collect()
    assert rows and rows[-1].s
    assert got.schema["r"].dataType.simpleString() == "array<string>"


ZERO_DIVISORS = ["N.n / S.n", "N.v % S.n", "N.n DIV S.n", "pmod(N.n, S.n)"]


@pytest.mark.parametrize(
    "call",
    [
        "array(N.s, 'x', S.s)[N.n]",
        "CASE WHEN S.n = 0 THEN 'zero' ELSE element_at(array(N.s, 'x'), S.n) END",
        "elt(N.n, S.s, N.s, 'z')",
    ],
)
def test_an_index_out_of_bounds_without_ansi_gives_null_as_spark(spark, ansi_off, call):
    _two_rows_equal_spark(spark, call)


def _job_error(spark, call: str) -> MatchRuntimeError:
    """The matchrec error that the two-row query of ``call`` fails its job with."""
    query = TWO_ROW_QUERY.format(want="NULL", pairs=_pairs_sql(), call=call)
    with pytest.raises(Exception) as info:
        matchrec.sql(spark, query).collect()
    err = rebuild(carried_error(info.value) or "", query)
    assert isinstance(err, MatchRuntimeError), info.value
    return err


@pytest.mark.parametrize(
    ("call", "plain"),
    [
        ("array(N.s, S.s)[S.n]", "array('a', 'b')[5]"),
        ("elt(S.n, N.s, S.s)", "elt(5, 'a', 'b')"),
        ("element_at(array(N.s, S.s), S.n + 3)", "element_at(array('a', 'b'), 5)"),
    ],
)
def test_an_index_out_of_bounds_under_ansi_is_a_positioned_error(spark, call, plain):
    """In Spark's words and condition (element_at's was INVALID_ARRAY_INDEX in matchrec's
    words, which the table function's error reported as PYTHON_EXCEPTION)."""
    with pytest.raises(PySparkException) as spark_error:
        spark.sql(f"SELECT {plain}").collect()
    err = _job_error(spark, call)
    assert "out of bounds" in err.message
    assert err.spark_condition == spark_error.value.getCondition()
    assert err.message.startswith(f"[{err.spark_condition}] The index")
    assert err.sql[err.pos :].startswith(call)


@pytest.mark.parametrize("call", ZERO_DIVISORS)
def test_a_zero_divisor_without_ansi_gives_null_as_spark(spark, ansi_off, call):
    _two_rows_equal_spark(spark, call, ZERO_DIVISORS)


@pytest.mark.parametrize("call", ZERO_DIVISORS)
def test_a_zero_divisor_under_ansi_is_a_positioned_error(spark, call):
    """Spark's default (ANSI) raises DIVIDE_BY_ZERO / REMAINDER_BY_ZERO: so does DEFINE,
    during the job, as a matchrec error with a caret under the operator."""
    err = _job_error(spark, call)
    assert "by zero" in err.message and "spark.sql.ansi.enabled" in err.message
    # Spark's condition and SQLSTATE, as where Spark computes the division itself
    condition = "REMAINDER_BY_ZERO" if "%" in call or "pmod" in call else "DIVIDE_BY_ZERO"
    assert (err.spark_condition, err.spark_sqlstate) == (condition, "22012")
    operator = "pmod" if call.startswith("pmod") else call.split(" ")[1]
    assert err.sql[err.pos :].startswith(operator), err.sql[err.pos : err.pos + 20]


def test_the_error_raised_in_the_job_answers_with_sparks_condition(spark):
    """The error the user catches (still PySpark's PythonException) answers
    getCondition() and getSqlState() as Spark's does where Spark computes the division:
    DIVIDE_BY_ZERO, 22012 (it answered PYTHON_EXCEPTION, 38000)."""
    query = TWO_ROW_QUERY.format(want="NULL", pairs=_pairs_sql(), call="N.n / S.n")
    with pytest.raises(PythonException) as info:
        matchrec.sql(spark, query).collect()
    err = info.value
    assert isinstance(err, MatchRuntimeError)
    assert (err.getCondition(), err.getSqlState()) == ("DIVIDE_BY_ZERO", "22012")
    with pytest.raises(PySparkException) as by_spark:
        spark.sql("SELECT 1 / 0").collect()
    spark_says = str(by_spark.value).splitlines()[0]
    assert err.message == spark_says.replace(" SQLSTATE: 22012", "")  # Spark's words


def test_timestampdiff_of_the_glue_is_sparks(spark):
    """The glue's timestampdiff (of an aggregate, ``timestampdiff(HOUR, max(S.ts), N.ts)``,
    and in rules) counts whole units between wall-clock times of the session zone, as
    Spark does: compared with Spark on pairs across New York's change to summer time."""
    zone = "America/New_York"
    rng = random.Random(5)
    start = datetime(2026, 3, 7, tzinfo=timezone.utc)
    pairs = [
        tuple(start + timedelta(minutes=rng.randrange(0, 60 * 24 * 70)) for _ in range(2))
        for _ in range(200)
    ]
    units = ["MICROSECOND", "SECOND", "MINUTE", "HOUR", "DAY", "WEEK", "MONTH", "QUARTER", "YEAR"]
    with session_settings(spark, {"spark.sql.session.timeZone": zone}):
        rows = (
            spark.createDataFrame(pairs, "a TIMESTAMP, b TIMESTAMP")
            .selectExpr(*(f"timestampdiff({u}, a, b) AS d_{u}" for u in units))
            .collect()
        )
    use_zone(zone)
    try:
        got = [
            tuple(DATETIME_FUNCTIONS[f"TIMESTAMPDIFF_{u}"](a, b) for u in units) for a, b in pairs
        ]
    finally:
        use_zone(None)
    assert got == [tuple(r) for r in rows]


@pytest.mark.parametrize(
    "text, want",
    [
        ("n / 0 > 0 AND false", False),
        ("(FALSE) AND n / 0 > 0", False),
        ("n / 0 > 0 OR true", True),
        ("(n / 0 > 0 OR (true)) AND x", None),
        ("x AND false", False),
    ],
)
def test_a_literal_that_decides_and_or_drops_the_other_side_as_spark(text, want):
    """Spark's optimizer turns `e AND false` into false and `e OR true` into true
    (BooleanSimplification), so e is never evaluated: the glue does the same, in either
    operand order (Trino's TestExpressionRewriteInRowPatternMatching.testSimplifyExpressions)."""
    assert _glue_value(text, {"n": 1, "x": None}) is want
    with pytest.raises(MatchRuntimeError, match="by zero"):
        _glue_value("n / 0 > 0 AND true", {"n": 1})


ROUNDED_TO_LONG = [
    "floor(N.v * S.v)",
    "ceil(N.v - S.v)",
    "floor(N.v + S.n)",
    # to a scale: a DECIMAL, the double cast to DECIMAL(30, 15) first
    "ceil(N.v * S.n, 1)",
    "floor(N.v - S.v, -1)",
    "ceil(N.v / 3 + S.n, 2)",
]


@pytest.mark.parametrize("call", ROUNDED_TO_LONG)
def test_floor_and_ceil_of_nan_and_infinity_without_ansi_are_sparks(spark, ansi_off, call):
    """NaN is 0, an infinity or a double past BIGINT is clamped (once a Python error)."""
    _two_rows_equal_spark(spark, call, ROUNDED_TO_LONG)


def test_floor_of_an_infinity_under_ansi_is_a_positioned_error(spark):
    err = _job_error(spark, "floor(N.v * S.v)")
    assert "ARITHMETIC_OVERFLOW" in err.message and "floor()" in err.message
    assert "floor(N.v * S.v)" in err.sql[err.pos - 6 : err.pos + 20]


# ---------------------------------------------------------------- differential: wide inputs

INTS = [None, 0, 1, 2, -1, -3, 5, 100, 2147483647, -2147483648]
DOUBLES = [None, 0.0, -0.0, 1.5, -2.5, float("nan"), float("inf"), float("-inf"), 1e300, 3.0]
TEXT_FUNCTIONS = [
    "substr(s, n)",
    "substr(s, n, m)",
    "substring(s FROM n FOR m)",
    "left(s, n)",
    "right(s, n)",
    "instr(s, p)",
    "locate(p, s, n)",
    "position(p IN s)",
    "replace(s, p, 'Z')",
    "lpad(s, n % 9, p)",
    "rpad(s, m % 9, p)",
    "repeat(s, m % 7)",
    "concat_ws(p, s, n, NULL, m)",
    "concat(s, n, p)",
    "nullif(n, m)",
    "nvl2(s, n, m)",
    # pmod(n, -2^31) wraps around in Spark's INT arithmetic (r + m): the glue's Python
    # integers have no width, a known difference left out here
    "CASE WHEN m = 0 OR m = -2147483648 THEN -7 ELSE pmod(n, m) END",
    "CASE WHEN m = 0 THEN -7 ELSE n % m END",
    "CASE WHEN m = 0 THEN -7 ELSE n DIV m END",
    "levenshtein(s, p)",
    "levenshtein(s, p, n)",
    "startswith(s, p)",
    "endswith(s, p)",
    "contains(s, p)",
    "greatest(n, m, 3)",
    "least(n, m)",
]
DOUBLE_FUNCTIONS = [
    "a = b",
    "a < b",
    "a >= b",
    "a <=> b",
    "greatest(a, b)",
    # (least(a, b, 2.0) with a and b NULL is the DECIMAL 2.0 in the glue, the DOUBLE 2.0
    # in Spark: the glue does not know the static type of a NULL; equal in comparisons)
    "least(a, b)",
    "nullif(a, b)",
    "CASE WHEN b = 0 THEN a ELSE pmod(a, b) END",
    "CASE WHEN b = 0 THEN a ELSE a % b END",
    "try_divide(a, b)",
    "concat(a, '|', n)",
]


def _same(got, want) -> bool:
    """Equal values of the same Python type (NaN equal to NaN)."""
    if got is None or want is None:
        return got is None and want is None
    if isinstance(want, float) and want != want:
        return isinstance(got, float) and got != got
    return type(got) is type(want) and got == want


def _differential(spark, frame, text: str, same=_same) -> None:
    rows = frame.selectExpr("*", f"{text} AS result").collect()
    wrong = [
        (row.asDict(), got)
        for row in rows
        if not same(got := _glue_value(text, row.asDict()), row.result)
    ]
    assert not wrong, f"{text}: {len(wrong)} of {len(rows)} rows differ, e.g. {wrong[:3]}"


@pytest.mark.parametrize("text", TEXT_FUNCTIONS)
def test_glue_text_and_integer_functions_equal_spark(spark, text):
    values = [
        (s, p, n, m) for s in STRINGS for p in STRINGS[::2] + ["é"] for n in INTS for m in INTS
    ]
    _differential(spark, spark.createDataFrame(values, "s STRING, p STRING, n INT, m INT"), text)


@pytest.mark.parametrize("text", DOUBLE_FUNCTIONS)
def test_glue_double_functions_equal_spark(spark, text):
    values = [(a, b, n) for a in DOUBLES for b in DOUBLES for n in INTS[:4]]
    _differential(spark, spark.createDataFrame(values, "a DOUBLE, b DOUBLE, n INT"), text)


MATH_DOUBLES = [None, 0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1.5, 2.0, -3.25, 10.0, 1e-300]
MATH_DOUBLES += [710.0, -710.0, 1e300, float("nan"), float("inf"), float("-inf")]
MATH_FUNCTIONS = [
    "sin(a)",
    "cos(a)",
    "tan(a)",
    "asin(a)",
    "acos(a)",
    "atan(a)",
    "sinh(a)",
    "cosh(a)",
    "tanh(a)",
    "asinh(a)",
    "acosh(a)",
    "atanh(a)",
    "cot(a)",
    "sec(a)",
    "csc(a)",
    "atan2(a, b)",
    "hypot(a, b)",
    "cbrt(a)",
    "expm1(a)",
    "degrees(a)",
    "radians(a)",
    "log10(a)",
    "log2(a)",
    "log1p(a)",
    "log(a, b)",
    "log(n, a)",
    "sin(n)",
    "atan2(n, a)",
]


#: the functions Java computes with HotSpot intrinsics (the glue's C library may round
#: them differently); the others are StrictMath's, which the glue reproduces bit for bit
_INTRINSIC = re.compile(r"^(sin|cos|tan|cot|sec|csc)\(")


def _within_ulps(got, want, ulps: int = 4) -> bool:
    """Equal, or both finite doubles a few units in the last place apart (Java's
    intrinsic sin, cos and tan and the C library round differently)."""
    if _same(got, want):
        return True
    return (
        isinstance(got, float)
        and isinstance(want, float)
        and math.isfinite(want)
        and abs(got - want) <= ulps * math.ulp(want)
    )


@pytest.mark.parametrize("text", MATH_FUNCTIONS)
def test_glue_math_functions_equal_spark(spark, text):
    """The math functions DEFINE's glue computes over values of several rows give
    Spark's answers: the same doubles (NULL, NaN and the infinities included), within 4
    ulps for the trigonometric functions Java computes with its intrinsics (edge values,
    and random ones where rounding differences show)."""
    rng = random.Random(text)
    edges = [(a, b, n) for a in MATH_DOUBLES for b in MATH_DOUBLES[::3] for n in INTS[:5]]
    spread = [(rng.uniform(-5, 5), rng.uniform(-5, 5), rng.randint(-3, 9)) for _ in range(1500)]
    frame = spark.createDataFrame(edges + spread, "a DOUBLE, b DOUBLE, n INT")
    _differential(spark, frame, text, same=_within_ulps if _INTRINSIC.match(text) else _same)


def test_a_distance_between_two_rows_in_define(spark):
    """The haversine distance between a trip's first point and each later one, in
    DEFINE: the same trips as with the distance computed by Spark beforehand."""
    rng = random.Random(7)
    points = [("t", i, rng.uniform(40, 41), rng.uniform(-74, -73)) for i in range(60)]
    spark.createDataFrame(
        points, "trip string, i int, lat double, lon double"
    ).createOrReplaceTempView("gps_points")

    def km(a: str, b: str) -> str:
        return (
            f"6371 * 2 * asin(sqrt(power(sin(radians({b}lat - {a}lat) / 2), 2) + "
            f"cos(radians({a}lat)) * cos(radians({b}lat)) * "
            f"power(sin(radians({b}lon - {a}lon) / 2), 2)))"
        )

    shape = """SELECT first_i, last_i FROM {source} MATCH_RECOGNIZE (
      PARTITION BY trip ORDER BY i MEASURES FIRST(i) AS first_i, LAST(i) AS last_i
      PATTERN (S N+) DEFINE N AS {define}) ORDER BY first_i"""
    got = matchrec.sql(spark, shape.format(source="gps_points", define=f"{km('S.', 'N.')} < 60"))
    # every later row within 60 km of the start: for S N+ that is each row's own distance
    # to the first row of its match, computed by Spark for every (start, row) pair
    pairs = spark.sql(
        f"""SELECT s.i AS s, n.i AS n, {km("s.", "n.")} < 60 AS near
        FROM gps_points s JOIN gps_points n ON n.i > s.i"""
    ).collect()
    near = {(r.s, r.n): r.near for r in pairs}
    want, start = [], 0
    while start < len(points) - 1:
        end = start + 1
        while end < len(points) and near[(start, end)]:
            end += 1
        if end == start + 1:
            start += 1
            continue
        want.append((start, end - 1))
        start = end
    assert [tuple(r) for r in got.collect()] == want
    assert len(want) > 1


# ---------------------------------------------------------------- Trino's cases

# Trino's TestAggregationsInRowPatternMatching (testAggregationArguments,
# testTentativeLabelMatchWithRuntimeEvaluatedAggregationArgument, testSelectiveAggregation):
# CLASSIFIER(), CLASSIFIER(U) and MATCH_NUMBER() inside aggregate arguments, with the
# results Trino's tests expect
TRINO_ABC = "(SELECT * FROM VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd') AS t(id, value))"
TRINO_CASES = [
    (
        f"""SELECT m.id, m.measure FROM {TRINO_ABC} MATCH_RECOGNIZE (ORDER BY id
        MEASURES array_agg(value || value || CLASSIFIER()) AS measure ALL ROWS PER MATCH
        PATTERN (X Y Z) DEFINE X AS true) AS m ORDER BY 1""",
        [(1, ["aaX"]), (2, ["aaX", "bbY"]), (3, ["aaX", "bbY", "ccZ"])],
    ),
    (
        f"""SELECT m.id, m.m1, m.m2, m.m3 FROM {TRINO_ABC} MATCH_RECOGNIZE (ORDER BY id
        MEASURES array_agg(CLASSIFIER() || (SELECT 'A')) AS m1,
          array_agg(MATCH_NUMBER() = 10 AND 0 IN (SELECT 1)) AS m2,
          array_agg(MATCH_NUMBER() = 1 AND EXISTS (SELECT 'Y')) AS m3
        ALL ROWS PER MATCH PATTERN (X Y Z) DEFINE X AS true) AS m ORDER BY 1""",
        [
            (1, ["XA"], [False], [True]),
            (2, ["XA", "YA"], [False, False], [True, True]),
            (3, ["XA", "YA", "ZA"], [False, False, False], [True, True, True]),
        ],
    ),
    (
        f"""SELECT m.id, m.measure FROM {TRINO_ABC} MATCH_RECOGNIZE (ORDER BY id
        MEASURES max_by(value, CLASSIFIER()) AS measure ALL ROWS PER MATCH
        PATTERN (A B D C) DEFINE A AS true) AS m ORDER BY 1""",
        [(1, "a"), (2, "b"), (3, "c"), (4, "c")],
    ),
    (
        f"""SELECT m.id, m.m1, m.m2, m.m3 FROM {TRINO_ABC} MATCH_RECOGNIZE (ORDER BY id
        MEASURES array_agg(U.id) AS m1, array_agg(CLASSIFIER(U)) AS m2,
          array_agg(U.value || CLASSIFIER(U)) AS m3
        ALL ROWS PER MATCH PATTERN (X Y Z Y) SUBSET U = (X, Z) DEFINE X AS true) AS m
        ORDER BY 1""",
        [
            (1, [1], ["X"], ["aX"]),
            (2, [1], ["X"], ["aX"]),
            (3, [1, 3], ["X", "Z"], ["aX", "cZ"]),
            (4, [1, 3], ["X", "Z"], ["aX", "cZ"]),
        ],
    ),
    (
        """SELECT m.part, m.id, m.classy, m.running_max FROM (SELECT * FROM VALUES
          (1, 'p1', 1), (2, 'p1', 2), (3, 'p1', 3), (4, 'p1', 4), (5, 'p1', 5),
          (1, 'p2', 2), (2, 'p2', 4), (3, 'p2', 6), (4, 'p2', 8), (5, 'p2', 10)
          AS t(id, part, value)) MATCH_RECOGNIZE (PARTITION BY part ORDER BY id
        MEASURES RUNNING max(value) AS running_max, CLASSIFIER() AS classy
        ALL ROWS PER MATCH PATTERN ((A | B)*) DEFINE A AS max(value + MATCH_NUMBER()) > 5
        ) AS m ORDER BY 1, 2""",
        [
            ("p1", 1, "B", 1),
            ("p1", 2, "B", 2),
            ("p1", 3, "B", 3),
            ("p1", 4, "B", 4),
            ("p1", 5, "A", 5),
            ("p2", 1, "B", 2),
            ("p2", 2, "B", 4),
            ("p2", 3, "A", 6),
            ("p2", 4, "A", 8),
            ("p2", 5, "A", 10),
        ],
    ),
]


@pytest.mark.parametrize(("query", "want"), TRINO_CASES)
def test_trino_aggregation_arguments(spark, query, want):
    assert [tuple(r) for r in matchrec.sql(spark, query).collect()] == want


# ---------------------------------------------------------------- aggregate FILTER

FILTER_ROWS = """(SELECT * FROM VALUES
  ('a', 1, 10.0, 3, 'x'), ('a', 2, 9.0, -1, NULL), ('a', 3, 11.0, 4, 'y'), ('a', 4, 12.5, 2, 'x'),
  ('a', 5, 12.0, 0, 'z'), ('a', 6, 13.0, 5, NULL), ('b', 1, 5.0, 1, 'y'), ('b', 2, 6.0, 2, 'y'),
  ('b', 3, 4.0, 7, 'x'), ('b', 4, 8.0, -2, 'x') AS t(k, i, price, qty, tag))"""
FILTER_BODY = """PARTITION BY k ORDER BY i MEASURES {measure} AS v, MATCH_NUMBER() AS mn
  {rows} PATTERN (A B+) DEFINE B AS price > PREV(price) OR qty > 3"""


@pytest.mark.parametrize(
    "measure",
    [
        "sum(qty) FILTER (WHERE qty > 0)",
        "count(*) FILTER (WHERE tag = 'x')",
        "count(DISTINCT tag) FILTER (WHERE qty > 1)",
        "max_by(tag, price) FILTER (WHERE tag IS NOT NULL)",
        "listagg(tag, '-') FILTER (WHERE qty % 2 = 0)",
        "avg(price) FILTER (WHERE CLASSIFIER() = 'B')",
        "array_agg(i) FILTER (WHERE price > 9)",
    ],
)
def test_aggregate_filter_in_measures_equals_spark_filter_over_the_match(spark, measure):
    """``agg(x) FILTER (WHERE c)`` over a match gives what Spark's FILTER gives over the
    same rows (the match's rows from ALL ROWS PER MATCH, grouped by MATCH_NUMBER)."""
    got = matchrec.sql(
        spark,
        f"SELECT k, mn, v FROM {FILTER_ROWS} MATCH_RECOGNIZE ("
        + FILTER_BODY.format(measure=measure, rows="ONE ROW PER MATCH")
        + ")",
    )
    rows = matchrec.sql(
        spark,
        f"SELECT * FROM {FILTER_ROWS} MATCH_RECOGNIZE ("
        + FILTER_BODY.format(measure="CLASSIFIER()", rows="ALL ROWS PER MATCH")
        + ")",
    )
    rows.createOrReplaceTempView("filter_match_rows")
    spark_form = measure.replace("CLASSIFIER()", "v")
    want = spark.sql(f"SELECT k, mn, {spark_form} AS v FROM filter_match_rows GROUP BY k, mn")
    assert sorted(map(tuple, got.collect())) == sorted(map(tuple, want.collect()))
    assert got.count() >= 3


def test_aggregate_filter_in_define_and_its_limits(spark):
    filtered = matchrec.sql(
        spark,
        f"SELECT k, mn, v FROM {FILTER_ROWS} MATCH_RECOGNIZE (PARTITION BY k ORDER BY i "
        "MEASURES count(*) AS v, MATCH_NUMBER() AS mn PATTERN (A B+) "
        "DEFINE B AS count(*) FILTER (WHERE B.tag = 'x') < 2)",
    )
    spelled = matchrec.sql(
        spark,
        f"SELECT k, mn, v FROM {FILTER_ROWS} MATCH_RECOGNIZE (PARTITION BY k ORDER BY i "
        "MEASURES count(*) AS v, MATCH_NUMBER() AS mn PATTERN (A B+) "
        "DEFINE B AS count(CASE WHEN B.tag = 'x' THEN 1 END) < 2)",
    )
    assert sorted(map(tuple, filtered.collect())) == sorted(map(tuple, spelled.collect()))
    query = (
        f"SELECT * FROM {FILTER_ROWS} MATCH_RECOGNIZE (PARTITION BY k ORDER BY i "
        "MEASURES any_value(tag) FILTER (WHERE qty > 0) AS v PATTERN (A B+) "
        "DEFINE B AS price > PREV(price))"
    )
    with pytest.raises(UnsupportedError) as info:
        matchrec.sql(spark, query)
    assert "FILTER" in info.value.message
    assert query[info.value.pos :].startswith("any_value(tag) FILTER")


def test_higher_order_exists_is_a_function_not_a_subquery(spark):
    """Spark's ``exists(array, x -> ...)`` in MEASURES and in a row-local DEFINE gives
    what ``array_max`` says (sqlglot reads it as an EXISTS node)."""

    def run(measure: str, define: str) -> list[tuple]:
        query = (
            f"SELECT k, mn, v FROM {FILTER_ROWS} MATCH_RECOGNIZE (PARTITION BY k ORDER BY i "
            f"MEASURES {measure} AS v, MATCH_NUMBER() AS mn PATTERN (A B+) "
            f"DEFINE A AS {define}, B AS price > PREV(price))"
        )
        return sorted(map(tuple, matchrec.sql(spark, query).collect()))

    got = run("exists(array_agg(qty), x -> x > 3)", "exists(array(qty, i), x -> x % 2 = 1)")
    want = run("array_max(array_agg(qty)) > 3", "qty % 2 = 1 OR i % 2 = 1")
    assert got == want and len(got) >= 2


# ---------------------------------------------------------------- median, percentiles, mode

PERCENTILE_ROWS = """(SELECT * FROM VALUES
  ('a', 1, 5, 2.5D), ('a', 2, 3, NULL), ('a', 3, 9, -1.0D), ('a', 4, 3, 4.25D),
  ('a', 5, NULL, 7.0D), ('a', 6, 8, 7.0D), ('a', 7, 1, 0.5D), ('b', 1, 2, 1.0D),
  ('b', 2, 2, 1.0D), ('b', 3, 7, 3.0D), ('b', 4, 7, 9.5D), ('b', 5, 4, -2.0D),
  ('c', 1, NULL, NULL), ('c', 2, 6, 6.0D) AS t(k, i, n, x))"""


@pytest.mark.parametrize(
    "measure",
    [
        "median(n)",
        "median(x)",
        "percentile(n, 0.25)",
        "percentile(x, 0.9)",
        "percentile(n, array(0.1, 0.5, 1.0))",
        "percentile_approx(n, 0.5)",
        "percentile_approx(x, 0.3, 1000)",
        "approx_percentile(n, array(0.0, 0.75))",
        "mode(n, true)",
        "median(DISTINCT n)",
    ],
)
def test_percentiles_median_and_mode_over_each_prefix_equal_spark(spark, measure):
    """RUNNING aggregates over every prefix of the partition (ALL ROWS PER MATCH of one
    match) equal Spark's aggregate over the same rows (a window up to the row)."""
    got = matchrec.sql(
        spark,
        f"SELECT k, i, v FROM {PERCENTILE_ROWS} MATCH_RECOGNIZE (PARTITION BY k ORDER BY i "
        f"MEASURES {measure} AS v ALL ROWS PER MATCH PATTERN (A+) DEFINE A AS true)",
    )
    # Spark takes none of these over an ordered window: each row joined with its prefix
    prefix = re.sub(r"\b([nx])\b", r"b.\1", measure)
    want = spark.sql(
        f"SELECT a.k, a.i, {prefix} AS v FROM {PERCENTILE_ROWS} a "
        f"JOIN {PERCENTILE_ROWS} b ON a.k = b.k AND b.i <= a.i GROUP BY a.k, a.i"
    )
    assert got.schema["v"].dataType == want.schema["v"].dataType
    assert sorted(map(tuple, got.collect())) == sorted(map(tuple, want.collect()))


@pytest.mark.parametrize(
    "measure", ["first_value(x)", "last_value(x)", "last_value(n) - first_value(n)"]
)
def test_first_and_last_value_over_each_prefix_equal_spark(spark, measure):
    """first_value/last_value as aggregates over the match rows in their order, NULLs
    kept (Spark's default), as Spark's window over the rows up to each row gives."""
    got = matchrec.sql(
        spark,
        f"SELECT k, i, v FROM {PERCENTILE_ROWS} MATCH_RECOGNIZE (PARTITION BY k ORDER BY i "
        f"MEASURES {measure} AS v ALL ROWS PER MATCH PATTERN (A+) DEFINE A AS true)",
    )
    window = "OVER (PARTITION BY k ORDER BY i ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"
    over = re.sub(r"(_value\([nx]\))", rf"\1 {window}", measure)
    want = spark.sql(f"SELECT k, i, {over} AS v FROM {PERCENTILE_ROWS}")
    assert got.schema["v"].dataType == want.schema["v"].dataType
    assert sorted(map(tuple, got.collect())) == sorted(map(tuple, want.collect()))


def test_percentile_of_a_running_match_in_define(spark):
    query = (
        f"SELECT k, first_i, last_i FROM {PERCENTILE_ROWS} MATCH_RECOGNIZE (PARTITION BY k "
        "ORDER BY i MEASURES FIRST(i) AS first_i, LAST(i) AS last_i PATTERN (A B+) "
        "DEFINE B AS median(B.x) < 5 AND percentile_approx(B.n, 0.5) >= A.n - 4)"
    )
    rows = sorted(map(tuple, matchrec.sql(spark, query).collect()))
    # a: from i=1 the first B's x is NULL (median NULL); from i=2 the medians of x are
    # -1, 1.625, 4.25, then 5.625 ends it. b: every prefix of x has a median below 5
    assert rows == [("a", 2, 5), ("b", 1, 5)]


SQL_UDF_PAIRS = [
    # (DEFINE B AS ..., the same over the row before B, read with lag)
    ("fn_close(A.v, B.v)", "fn_close(lag(v) OVER w, v)"),
    ("fn_close(B.v)", "fn_close(v)"),
    ("NOT fn_close(A.v, B.v + 1D)", "NOT fn_close(lag(v) OVER w, v + 1D)"),
    ("fn_span(A.ts, B.ts) >= 3600", "fn_span(lag(ts) OVER w, ts) >= 3600"),
    ("fn_prefix(A.path, B.path)", "fn_prefix(lag(path) OVER w, path)"),
]


@pytest.mark.parametrize(("define", "plain"), SQL_UDF_PAIRS)
def test_sql_udf_of_two_rows_in_define_is_inlined(spark, events, define, plain):
    """A session SQL UDF of values from two rows (once "cannot be applied to a value that
    depends on the match"): its body runs with the rows' values, as Spark would call it."""
    spark.sql(
        "CREATE OR REPLACE TEMPORARY FUNCTION fn_close(a DOUBLE, b DOUBLE DEFAULT 5D) "
        "RETURNS BOOLEAN RETURN abs(a - b) <= 1D"
    )
    spark.sql(
        "CREATE OR REPLACE TEMPORARY FUNCTION fn_span(a TIMESTAMP, b TIMESTAMP) "
        "RETURNS BIGINT RETURN unix_timestamp(b) - unix_timestamp(a)"
    )
    spark.sql(
        "CREATE OR REPLACE TEMPORARY FUNCTION fn_prefix(a STRING, b STRING) "
        "RETURNS BOOLEAN RETURN b LIKE concat(a, '/%')"
    )
    expected = sorted(
        (r.usr, r.id)
        for r in spark.sql(
            f"""SELECT usr, id FROM (SELECT *, lag(id) OVER w AS prev_id, {plain} AS ok
                FROM fn_events WINDOW w AS (PARTITION BY usr ORDER BY id))
                WHERE prev_id IS NOT NULL AND ok"""
        ).collect()
    )
    body = f"""PARTITION BY usr ORDER BY id MEASURES B.id AS id AFTER MATCH SKIP TO NEXT ROW
        PATTERN (A B) DEFINE B AS {define}"""
    for door, frame in {
        "sql": matchrec.sql(spark, f"SELECT * FROM fn_events MATCH_RECOGNIZE ({body})"),
        "df": matchrec.match_recognize(spark.table("fn_events"), body),
    }.items():
        assert sorted((r.usr, r.id) for r in frame.collect()) == expected, door


HIGHER_ORDER_CASES = [
    # (DEFINE with a lambda reading another row, the same without it)
    ("exists(A.arr, x -> x > B.v)", "A.v + 1 > B.v"),
    ("forall(A.arr, x -> x < B.v)", "A.v + 1 < B.v"),
    ("size(filter(B.arr, (x, i) -> x > A.v + i)) > 0", "B.v > A.v"),
    ("forall(A.arr, x -> exists(B.arr, y -> y > x))", "B.v > A.v"),
    # an exists in the lambda of a whole condition's exists (refused as a subquery before)
    ("exists(array(A.arr), a -> exists(a, x -> x > B.v))", "A.v + 1 > B.v"),
    ("transform(A.arr, v -> v - B.v)[1] > 0", "A.v + 1 > B.v"),
    # folds, pairs and comparator sorts (each a glue error before)
    ("aggregate(array(A.v, B.v), 0D, (acc, x) -> acc + x) > 2 * A.v", "B.v > A.v"),
    ("reduce(A.arr, B.v, (acc, x) -> acc - x, acc -> acc > 0)", "B.v > 2 * A.v + 1"),
    ("aggregate(collect_list(B.v), 0D, (acc, x) -> acc + x) < 20", "sum(B.v) < 20"),
    ("exists(zip_with(A.arr, B.arr, (x, y) -> y - x), d -> d > 0)", "B.v > A.v"),
    (
        "array_sort(array(A.v, B.v), (l, r) -> CASE WHEN l < r THEN 1 "
        "WHEN l > r THEN -1 ELSE 0 END)[0] = B.v AND B.v <> A.v",
        "B.v > A.v",
    ),
    # a field of a struct parameter (sqlglot's Dot), its name case-insensitive as Spark's
    (
        "exists(array(named_struct('W', A.v), named_struct('W', A.v + 1)), s -> s.w > B.v)",
        "A.v + 1 > B.v",
    ),
    # a nested field (Dots of Dots)
    (
        "exists(array(named_struct('g', named_struct('w', A.v + 1))), s -> s.g.W > B.v)",
        "A.v + 1 > B.v",
    ),
    # higher-order functions of maps (each a glue error before)
    (
        "cardinality(map_filter(map('a', A.v, 'b', A.v + 1), (k, x) -> x > B.v)) > 0",
        "A.v + 1 > B.v",
    ),
    ("transform_values(map('a', A.v), (k, x) -> x - B.v)['a'] > 0", "A.v > B.v"),
    ("map_keys(transform_keys(map(A.v, 1), (k, x) -> k + B.v))[0] > 10", "A.v + B.v > 10"),
    (
        "map_zip_with(map(1, A.v), map(1, B.v, 2, 0D), (k, x, y) -> coalesce(x, 0) - y)[1] < 0",
        "A.v < B.v",
    ),
]


def _same_matches(spark, define: str, plain: str) -> None:
    """``DEFINE B AS define`` finds some matches, the same as ``DEFINE B AS plain``."""
    view = """(SELECT id % 3 AS k, id, v, array(v, v + 1) AS arr,
        CASE WHEN id % 2 = 0 THEN 'x' || id ELSE 'X' || v END AS s
      FROM (SELECT id, CAST((id * 7919) % 13 AS DOUBLE) AS v FROM range(60)))"""
    shape = """SELECT k, first_id, n FROM {view} MATCH_RECOGNIZE (PARTITION BY k ORDER BY id
      MEASURES FIRST(id) AS first_id, count(*) AS n PATTERN (A B+) DEFINE B AS {define})
      ORDER BY k, first_id"""
    got = matchrec.sql(spark, shape.format(view=view, define=define)).collect()
    want = matchrec.sql(spark, shape.format(view=view, define=plain)).collect()
    assert got and got == want


@pytest.mark.parametrize(("define", "plain"), HIGHER_ORDER_CASES)
def test_higher_order_functions_with_a_lambda_of_two_rows(spark, define, plain):
    """A lambda whose body reads another row than its array (``exists(A.arr, x -> x >
    B.v)``) runs in DEFINE's glue: the same matches as the condition written without
    it. A parameter named like a column (``v``) is the parameter."""
    _same_matches(spark, define, plain)


@pytest.mark.parametrize(
    ("define", "plain"),
    [
        ("exists(FIRST(A.arr), arr -> arr > 5)", "FIRST(A.v) + 1 > 5"),
        ("exists(FIRST(A.arr), s -> s > B.v)", "FIRST(A.v) + 1 > B.v"),
        ("aggregate(LAST(A.arr), 0D, (v, arr) -> v + arr) > B.v", "2 * A.v + 1 > B.v"),
    ],
)
def test_a_lambda_parameter_named_like_a_column_of_another_type(spark, define, plain):
    """Spark binds a name in a lambda to its parameter first (its own examples write
    ``x -> ...`` over a column ``x``): ``exists(FIRST(A.arr), arr -> arr > 5)`` was refused,
    the type probe reading the ARRAY column ``arr`` inside the lambda."""
    _same_matches(spark, define, plain)


def test_a_measures_lambda_parameter_named_like_a_column(spark):
    """``transform(LAST(A.arr), arr -> arr + 1)`` was refused in every door as '+ is not
    defined for arr (ARRAY<INT>)', and ``s -> s + 1`` (``s`` a STRING column) as a mix of
    STRING and INT."""
    spark.sql(
        """CREATE OR REPLACE TEMP VIEW fn_shadowed AS SELECT id % 2 AS k, id AS o,
        CAST(id AS STRING) AS s, array(id, id * 2) AS arr FROM range(6)"""
    )
    matchrec.register(spark)
    measures = {
        "plus": "transform(LAST(A.arr), arr -> arr + 1)",
        "twice": "transform(LAST(A.arr), s -> s * 2)",
    }
    expected = sorted(
        tuple(r)
        for r in spark.sql(
            """SELECT k, transform(max_by(arr, o), arr -> arr + 1),
                transform(max_by(arr, o), s -> s * 2) FROM fn_shadowed GROUP BY k"""
        ).collect()
    )
    for door, rows in every_door(spark, "fn_shadowed", measures).items():
        assert rows == expected, door


@pytest.mark.parametrize(
    ("define", "written"),
    [
        ("ilike(B.s, 'X%') <=> true", "(B.s ILIKE 'X%') <=> true"),
        ("like(B.s, 'x%') = (B.v > A.v)", "(B.s LIKE 'x%') = (B.v > A.v)"),
        ("false = rlike(B.s, '1$')", "false = (B.s RLIKE '1$')"),
        ("like(B.s, 'x%') IS NULL OR B.v > A.v", "(B.s LIKE 'x%') IS NULL OR B.v > A.v"),
    ],
)
def test_a_predicate_function_inside_an_operator_keeps_its_place(spark, define, written):
    """``ilike(s, p) <=> true`` was handed to Spark as ``s ILIKE p IS NOT DISTINCT FROM
    TRUE`` (a syntax error), ``like(s, p) = true`` as ``s LIKE p = TRUE``, which Spark
    reads as ``s LIKE (p = TRUE)``."""
    _same_matches(spark, define, written)


def test_a_repeated_key_of_transform_keys_is_sparks_error_at_the_call(spark):
    """A Python ValueError escaped from the glue's higher-order functions; Spark raises
    DUPLICATED_MAP_KEY for the same map."""
    query = """SELECT * FROM (SELECT id, 1 AS one FROM range(3)) MATCH_RECOGNIZE (
      ORDER BY id MEASURES count(*) AS n PATTERN (A B)
      DEFINE B AS cardinality(transform_keys(map(1, A.one, 2, B.one), (k, x) -> B.one)) > 0)"""
    with pytest.raises(Exception, match="DUPLICATED_MAP_KEY"):
        spark.sql("SELECT transform_keys(map(1, 1, 2, 1), (k, x) -> 1)").collect()
    with pytest.raises(MatchRuntimeError) as info:
        matchrec.sql(spark, query).collect()
    assert info.value.spark_condition == "DUPLICATED_MAP_KEY"
    assert info.value.sql[info.value.pos :].startswith("transform_keys(")


@pytest.mark.parametrize(
    ("define", "message"),
    [
        ("exists(array(S.v, N.v), (x, i) -> x > 0)", "the lambda of exists() takes one parameter"),
        (
            "size(filter(array(S.v, N.v), (x, i, j) -> x > i)) > 0",
            "the lambda of filter() takes one or two parameters",
        ),
        # of the row alone (Spark computes it): the table function's caller got Spark's
        # raw INVALID_LAMBDA_FUNCTION_CALL
        ("exists(array(N.v), (x, i) -> x > 0)", "the lambda of exists() takes one parameter"),
    ],
)
def test_a_lambda_with_too_many_parameters_is_a_positioned_error(define, message):
    with pytest.raises(SemanticError, match=re.escape(message)) as info:
        _plan(define)
    assert info.value.sql[info.value.pos :].startswith("x, i")


# ---------------------------------------------------------------- regex functions (Java's regex)

# Subjects with every Java line terminator, Unicode, case pairs (the Kelvin sign K and
# the long s fold to k and s in Unicode, not in Java's default ASCII case folding)
REGEX_SUBJECTS = [
    "",
    "a",
    "abc",
    "aBc",
    "ABC abc",
    "a\nb",
    "a\r\nb\r\n",
    "x\u0085",
    "line\u2028end\u2029",
    "é É ü",
    "a1b22c333",
    "foo.bar",
    "  tab\tend ",
    "aaa",
    "x{y}]",
    "a$b\\c",
    "ab\n",
    "\r",
    "k \u212a s \u017f",
    "\x0b\f\xa0",
    "Z^_`a(",
    " 0",
    "xaa11",
    "k=1&a&b=2",
    None,
]
# Java patterns the glue translates: each construct of planner/java_regex.py
REGEX_PATTERNS = [
    "",
    "a",
    "x*",
    "a*",
    "a??",
    "b+?",
    ".",
    "a.b",
    "(?s)a.b",
    ".$",
    "^",
    "$",
    "^a",
    "b$",
    "(?m)^",
    "(?m)$",
    "(?m)^\\w+$",
    "\\Z",
    "\\z",
    "\\A.",
    "\\d+",
    "\\D",
    "\\w+",
    "\\W",
    "\\s",
    "\\S+",
    "\\h",
    "\\v",
    "\\R",
    "\\R\\n",
    "[a-c]+",
    "[^a-c\\n]",
    "[a-z&&[^b]]+",
    "[a[0-9]]+",
    "[\\w&&[^\\d]]",
    "(?i)abc",
    "(?i)[a-c]+",
    "(?i)[^a]",
    "(?i)k",
    "(?i)s",
    "(?i)é",
    "(?i:a)B",
    "a(?i)b|c",
    "(?i)a(?-i)b",
    "(a)(b)?",
    "(?<x>a)\\k<x>",
    "(a|b)\\1",
    "(a)\\11",
    "\\2",
    "\\Qa.b\\E|\\.",
    "\\Q$",
    "\\x61|\\u0062|\\0143|\\x{63}",
    "\\cJ",
    "\\t|\\f",
    "a{2}",
    "a{1,}",
    "\\d{2,3}",
    "a{1,2}?",
    "a++",
    "(?>a|ab)c",
    "(?=b)",
    "(?!a).",
    "(?<=a)b",
    "(?<!a)b",
    "\\p{Alpha}+",
    "\\P{Digit}+",
    "\\p{Punct}",
    "[\\p{Lower}\\d]+",
    "(?:(a)|b)+",
    "(a|b)*?c",
    "}",
    "]",
    "[.]",
    "[\\]]",
    "[-a]",
    "[a-]",
    "\\$",
    "\\\\",
    "[$^]",
    "\\0400",
    "a|",
    "|b",
    "(?:ab)*c",
    "x{0}y",
    "[a-c&&b-d]",
    "[^&]+",
    "[&a-c]",
    "(?i)[Z-a]+",
    "\\(|\\{|\\[|\\.",
    "😀|\\x{1F600}",
    "(?=(a))\\w",
    None,
]
REGEX_TEXTS = [
    "s RLIKE p",
    "regexp_like(s, p)",
    "regexp(s, p)",
    "regexp_extract(s, p, 0)",
    "regexp_extract_all(s, p, 0)",
    "regexp_replace(s, p, '<$0>')",
    "regexp_replace(s, p, '-', 3)",
    "regexp_count(s, p)",
    "regexp_substr(s, p)",
    "regexp_instr(s, p)",
    "split(s, p)",
    "split(s, p, 2)",
    "split(s, p, 0)",
    "split(s, p, -3)",
]


def test_every_regex_of_the_pools_is_translated():
    from matchrec.planner.java_regex import translate

    for p in REGEX_PATTERNS + REGEX_GROUPED:
        if p is not None:
            translate(p)


@pytest.mark.parametrize("text", REGEX_TEXTS)
def test_glue_regex_functions_equal_spark(spark, text):
    """Every (subject, pattern) pair: the glue's answer is Spark's (java.util.regex)."""
    values = [(s, p) for s in REGEX_SUBJECTS for p in REGEX_PATTERNS]
    _differential(spark, spark.createDataFrame(values, "s STRING, p STRING"), text)


# patterns with groups, for group indexes and replacements ($n, ${name})
REGEX_GROUPED = [
    "(?<x>a)(b)?",
    "(?<x>b)(c)?",
    "(?<x>)",
    "(?<x>\\w)\\w*",
    "(?<x>x)?b",
    "(?i)(?<x>b)",
    "(?<x>[^\\n]*)$",
    "(?m)(?<x>^.)",
    "(?<x>\\d)(\\d)?",
]
REPLACEMENTS = ["-", "$0", "[$1]", "$12", "\\$1", "\\\\", "${x}!", "$1$1", "", "é$0\\n"]


@pytest.mark.parametrize(
    "text",
    [
        "regexp_extract(s, p, 1)",
        "regexp_extract_all(s, p, 1)",
        "regexp_instr(s, p, 1)",
        "regexp_instr(s, p, 0)",
        "regexp_replace(s, p, r)",
        "regexp_replace(s, p, r, 2)",
    ],
)
def test_glue_regex_groups_and_replacements_equal_spark(spark, text):
    values = [(s, p, r) for s in REGEX_SUBJECTS for p in REGEX_GROUPED for r in REPLACEMENTS]
    frame = spark.createDataFrame(values, "s STRING, p STRING, r STRING")
    _differential(spark, frame, text)


@pytest.mark.parametrize("text", ["str_to_map(s, p, q)", "str_to_map(s)", "str_to_map(s, p)"])
def test_glue_str_to_map_equals_spark(spark, text):
    """``str_to_map``'s delimiters are regexes in Spark (``UTF8String.split``)."""
    subjects = ["a=1,b=2", "a:1;b", "", "k", "x=1=2,y", "p:1,q:2", None]
    delimiters = [(",", "="), ("[,;]", "[=:]"), (";+", ":"), (",", ""), (None, ":")]
    values = [(s, p, q) for s in subjects for p, q in delimiters]
    frame = spark.createDataFrame(values, "s STRING, p STRING, q STRING")
    _differential(spark, frame, text)


def test_word_boundaries_on_ascii_text_equal_spark(spark):
    """``\\b``/``\\B`` on ASCII text (elsewhere Java 17 and 21 disagree: refused)."""
    subjects = ["", "a b", "ab_c d1", "x-y", " a", "ab ", "a\nb"]
    patterns = ["\\b", "\\B", "\\bb", "b\\b", "\\b\\w+\\b", "\\Ba\\B"]
    values = [(s, p) for s in subjects for p in patterns]
    frame = spark.createDataFrame(values, "s STRING, p STRING")
    for text in ["s RLIKE p", "regexp_count(s, p)", "regexp_replace(s, p, '|')"]:
        _differential(spark, frame, text)


def test_positions_outside_the_bmp_equal_spark(spark):
    """Characters outside the BMP (two Java chars each): regexp_instr and regexp_replace's
    position and the matches themselves as Spark has them."""
    values = [("😀a😀b", "b", "-"), ("😀😀x", "x", "-"), ("a😀", "😀", "-")]
    # a class of every BMP character: Java does not match it inside a surrogate pair
    values += [("😀", "[\\x{0}-\\x{FFFF}]", "-"), ("a😀b", "[^a]+", "-")]
    frame = spark.createDataFrame(values, "s STRING, p STRING, r STRING")
    for text in ["regexp_instr(s, p)", "regexp_replace(s, p, r, 3)", "regexp_extract(s, p, 0)"]:
        _differential(spark, frame, text)


# Each partition: S holds a pattern (and a replacement), N a subject; DEFINE N compares
# the call computed by the glue with Spark's (the S values read with first_value):
# TWO_ROW_QUERY over a view of such pairs
def _regex_pair_query(want: str, view: str, call: str) -> str:
    return TWO_ROW_QUERY.format(want=want, pairs=f"SELECT * FROM {view}", call=call)


def _regex_pairs(spark, patterns: list) -> tuple[str, int]:
    rows = []
    for k, (s, p) in enumerate((s, p) for s in REGEX_SUBJECTS for p in patterns):
        rows += [(k, 1, "S-row", p, "<$0>"), (k, 2, s, "N-row", "N")]
    view = "regex_pairs"
    schema = "part INT, id INT, s STRING, p STRING, r STRING"
    spark.createDataFrame(rows, schema).createOrReplaceTempView(view)
    return view, len(rows) // 2


REGEX_TWO_ROW_CALLS = [
    "N.s RLIKE S.p",
    "regexp_extract(N.s, S.p, 0)",
    "regexp_extract_all(concat(N.s, S.r), S.p, 0)",
    "regexp_replace(N.s, S.p, S.r)",
    "regexp_count(N.s, S.p)",
    "regexp_substr(N.s, S.p)",
    "regexp_instr(N.s, S.p)",
    "split(N.s, S.p, 3)",
    "regexp_extract(concat(N.s, S.r), '<(\\\\$?)[0-9]>', 1)",
]


@pytest.mark.parametrize("call", REGEX_TWO_ROW_CALLS)
def test_regex_functions_of_two_rows_equal_spark(spark, call):
    """A whole MATCH_RECOGNIZE whose DEFINE calls a regex function of a subject from one
    row and a pattern from another: every (subject, pattern) partition matches."""
    view, parts = _regex_pairs(spark, REGEX_PATTERNS[:-1])
    want = call.replace("N.", "")
    for c in ("s", "p", "r"):
        want = want.replace(f"S.{c}", f"first_value({c}) OVER (PARTITION BY part ORDER BY id)")
    query = _regex_pair_query(want, view, call)
    got = {r.part for r in matchrec.sql(spark, query).collect()}
    missing = sorted(set(range(parts)) - got)
    assert not missing, f"{call}: {len(missing)} of {parts} partitions differ from Spark"


def _regex_job_error(
    spark, call: str, pattern: str, subject: str = "abc", replacement: str = "-"
) -> MatchRuntimeError:
    rows = [(0, 1, "S-row", pattern, replacement), (0, 2, subject, "N-row", "N")]
    spark.createDataFrame(
        rows, "part INT, id INT, s STRING, p STRING, r STRING"
    ).createOrReplaceTempView("regex_error")
    query = _regex_pair_query("NULL", "regex_error", call)
    with pytest.raises(Exception) as info:
        matchrec.sql(spark, query).collect()
    err = rebuild(carried_error(info.value) or "", query)
    assert isinstance(err, MatchRuntimeError), info.value
    at = "RLIKE" if " RLIKE " in call else call.split("(")[0]
    assert err.sql[err.pos :].startswith(at), err
    return err


def _spark_error(spark, text: str, s: str, p: str, r: str = "-") -> str:
    frame = spark.createDataFrame([(s, p, r)], "s STRING, p STRING, r STRING")
    with pytest.raises(Exception) as info:
        frame.selectExpr(text).collect()
    return str(info.value)


@pytest.mark.parametrize(
    ("call", "pattern", "replacement", "spark_says"),
    [
        (
            "regexp_extract(N.s, S.p, 2)",
            "(b)",
            "-",
            "[INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX] The value of parameter(s) `idx` in "
            "`regexp_extract` is invalid: Expects group index between 0 and 1, but got 2.",
        ),
        (
            "regexp_extract_all(N.s, S.p, -1)",
            "b",
            "-",
            "Expects group index between 0 and 0, but got -1.",
        ),
        (
            "regexp_replace(N.s, S.p, S.r)",
            "(b)",
            "$2",
            '[INVALID_REGEXP_REPLACE] Could not perform regexp_replace for source = "abc", '
            'pattern = "(b)", replacement = "$2" and position = 1',
        ),
        (
            "regexp_replace(N.s, S.p, S.r)",
            "(?<x>b)",
            "${y}",
            '[INVALID_REGEXP_REPLACE] Could not perform regexp_replace for source = "abc", '
            'pattern = "(?<x>b)", replacement = "${y}" and position = 1',
        ),
        ("regexp_replace(N.s, S.p, S.r)", "b", "x\\", "[INVALID_REGEXP_REPLACE]"),
        (
            "N.s RLIKE S.p",
            "a(b",
            "-",
            "java.util.regex.PatternSyntaxException: Unclosed group near index",
        ),
        ("N.s RLIKE S.p", "a{,2}", "-", "Illegal repetition"),
        ("N.s RLIKE S.p", "[a-", "-", "Illegal character range near index 3"),
        ("N.s RLIKE S.p", "\\y", "-", "Illegal/unsupported escape sequence"),
    ],
)
def test_regex_errors_of_two_rows_are_sparks(spark, call, pattern, replacement, spark_says):
    """What Spark raises for these values (checked here), the glue raises too: a
    run-time error positioned at the call, with Spark's error text. (A replacement is
    read from S.r: a quote in the error's line would keep the caret out of the query.)"""
    text = call.replace("N.", "").replace("S.", "")
    assert spark_says in _spark_error(spark, text, "abc", pattern, replacement)
    err = _regex_job_error(spark, call, pattern, replacement=replacement)
    assert spark_says in err.message, err.message


@pytest.mark.parametrize(
    ("pattern", "subject", "construct"),
    [
        ("\\p{L}", "abc", "a Unicode property class"),
        ("(?x) a", "abc", "(?x) (comments)"),
        ("(?iu)é", "É", "(?u)"),
        ("\\bé", "é", "\\b or \\B on text that is not ASCII"),
        ("x*", "😀", "an empty match before a character outside the BMP"),
        ("(?<=a+)b", "ab", "this pattern in Python"),
        ("(a?)*", "aa", "a repeated group that can match empty and holds a capturing group"),
    ],
)
def test_regexes_read_from_a_row_that_are_not_translated_fail_the_job(
    spark, pattern, subject, construct
):
    """A pattern read from a row that the glue cannot run exactly fails the job, naming
    the construct."""
    err = _regex_job_error(spark, "regexp_count(N.s, S.p)", pattern, subject)
    assert construct in err.message and "not computed" in err.message, err.message


@pytest.mark.parametrize(
    ("define", "caret", "cls", "message"),
    [
        ("N.path RLIKE concat(S.path, '(?x)a')", None, None, None),
        (
            "regexp_extract(concat(N.path, S.path), 'a(?x)b', 0) = ''",
            "x)b'",
            UnsupportedError,
            "the regex construct the flag (?x) (comments) is not computed",
        ),
        (
            "regexp_count(concat(N.path, S.path), '[a-z]\\\\p{Lu}') > 0",
            "\\\\p{Lu}",
            UnsupportedError,
            "a Unicode property class",
        ),
        (
            "regexp_count(concat(N.path, S.path), 'ab(c') > 0",
            "') > 0",  # where the ')' is missing
            SemanticError,
            "invalid regex 'ab(c': Unclosed group (Java rejects it)",
        ),
        (
            "split(concat(N.path, S.path), '/', 2)[0] = regexp_replace(N.path, S.path, 'x', N.id)",
            "N.id)",
            SemanticError,
            "the position of regexp_replace() must be a positive integer literal",
        ),
    ],
)
def test_literal_regexes_are_checked_when_the_query_is_built(define, caret, cls, message):
    if cls is None:  # the pattern is not a literal: checked as it runs
        _plan(define)
        return
    with pytest.raises(cls) as info:
        _plan(define)
    err = info.value
    assert message in err.message, err.message
    assert err.sql[err.pos :].startswith(caret), err.sql[err.pos :]


def test_a_regex_function_of_two_rows_through_the_three_doors(spark):
    """``regexp_extract(B.line, FIRST(A.pattern), 1)`` in DEFINE, the pattern read from
    the match's first row: the same rows from matchrec.sql, match_recognize and the
    table function, and the ones worked out by hand."""
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW regex_log AS SELECT * FROM VALUES "
        "('h', 1, 'rule', 'id=(\\\\d+)$'), ('h', 2, 'id=7', NULL), ('h', 3, 'x id=9\\r\\n', NULL), "
        "('h', 4, 'ID=8', NULL), ('h', 5, 'id=', NULL), "
        "('j', 1, 'rule', '(?i)id=(\\\\d+)'), ('j', 2, 'ID=3', NULL), ('j', 3, 'id=x', NULL) "
        "AS t(k, i, line, pattern)"
    )
    matchrec.register(spark)
    body = (
        "PARTITION BY k ORDER BY i MEASURES FIRST(i) AS first_i, LAST(i) AS last_i "
        "PATTERN (A B+) DEFINE A AS pattern IS NOT NULL, "
        "B AS regexp_extract(B.line, FIRST(A.pattern), 1) <> ''"
    )
    frames = {
        "sql": matchrec.sql(spark, f"SELECT * FROM regex_log MATCH_RECOGNIZE ({body})"),
        "df": matchrec.match_recognize(spark.table("regex_log"), body),
        "udtf": spark.sql(
            "SELECT * FROM match_recognize(TABLE(regex_log), '" + body.replace("'", "''") + "')"
        ),
    }
    for door, frame in frames.items():
        # h: 'id=7' and 'x id=9\r\n' match (Java's $ before a final \r\n), 'ID=8' does
        # not (no (?i)); j: 'ID=3' under (?i)
        assert sorted(tuple(r) for r in frame.collect()) == [("h", 1, 3), ("j", 1, 2)], door


def _random_regexes(count: int, seed: int) -> list[str]:
    """Patterns of random pieces of Java's syntax that the glue translates (a seeded
    sample: what Java rejects or the glue refuses is left out)."""
    from matchrec.planner.java_regex import JavaPatternError, RegexRefused, translate

    pieces = list("ab()[]|*+?.^$\\-&") + [
        *("(?", "[^", "&&", "{2}", "{0,1}", "(?<n>", "\\k<n>", "\\w", "\\d", "\\s", "\\b"),
        *("\\1", "(?i)", "(?m)", "(?s)", "\\Z", "\\z", "\\R", "(?=", "(?!", "(?>", "(?<="),
        *("\\Q", "\\E", "\\n", "\\r"),
    ]
    rng = random.Random(seed)
    found: list[str] = []
    while len(found) < count:
        p = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 7)))
        try:
            translate(p)
        except (RegexRefused, JavaPatternError):
            continue
        found.append(p)
    return found


@pytest.mark.parametrize(
    "text",
    ["s RLIKE p", "regexp_extract_all(s, p, 0)", "regexp_replace(s, p, '<$0>')", "split(s, p)"],
)
def test_random_java_regexes_equal_spark(spark, text):
    """Random combinations of the translated constructs over ASCII subjects with line
    terminators (Spark would fail the whole frame on a pattern Java rejects: none is
    taken that the glue does not reject too)."""
    subjects = ["", "a", "ab", "ba\nb", "aab\r\nb", "A B_b", "b\ra", "((a))", "a-b&", "bb\r"]
    values = [(s, p) for s in subjects for p in _random_regexes(150, 11)]
    _differential(spark, spark.createDataFrame(values, "s STRING, p STRING"), text)


@pytest.mark.parametrize(
    "text", ["c RLIKE 'E$'", "c RLIKE '(?i)^se'", "regexp_like(c, '[^\\\\w]')"]
)
def test_rlike_in_a_dynamic_rule_is_javas(spark, text):
    """A MATCH_RECOGNIZE_DYNAMIC rule's row-local RLIKE runs in Python too: with Java's
    regex, as Spark's (once Python's ``re``: ``$`` before a final ``\\r\\n`` differed)."""
    from matchrec.planner.rules import _row_function

    fn, _ = _row_function(text, 0, text, ["c"], ansi=True)
    values = ["SE\r\n", "SE\n", "se", "xSE", "", "SE\u2028", None]
    rows = spark.createDataFrame([(v,) for v in values], "c STRING").selectExpr("c", text).collect()
    for row in rows:
        assert fn([row.c]) == row[1], (row.c, fn([row.c]), row[1])


CONCAT_ROWS = """SELECT * FROM VALUES
  ('p', 1, array('x', 'y'), X'0A'), ('p', 2, array('y', 'z'), X'0B0C'),
  ('p', 3, array(), X''), ('p', 4, array('x', NULL), NULL), ('p', 5, NULL, X'FF')
  AS t(part, id, tags, bin)"""

CONCAT_CONDITIONS = [
    "size(concat(A.tags, B.tags)) > 2",
    "size(A.tags || B.tags) = 4",
    "element_at(concat(A.tags, B.tags), -1) = 'z'",
    "array_position(A.tags || B.tags, 'y') = 2",
    "length(concat(A.bin, B.bin)) = 3",
    "concat(A.bin, B.bin) = X'0A0B0C'",
]


def _two_row_condition_in_every_door(spark, rows: str, view: str, condition: str) -> None:
    """DEFINE ``B AS condition`` over pairs of consecutive rows of ``rows`` through every
    door (``matchrec.sql``, ``match_recognize``, the table function) finds the pairs a
    self-join with the same condition finds."""
    spark.sql(rows).createOrReplaceTempView(view)
    body = f"""PARTITION BY part ORDER BY id MEASURES A.id AS aid
      AFTER MATCH SKIP TO NEXT ROW PATTERN (A B) DEFINE B AS {condition}"""
    joined = condition.replace("A.", "a.").replace("B.", "b.")
    want = spark.sql(
        f"""SELECT a.part, a.id FROM {view} a JOIN {view} b
        ON b.part = a.part AND b.id = a.id + 1 WHERE {joined}"""
    ).collect()
    assert want  # the condition holds somewhere
    matchrec.register(spark)
    quoted = "'" + body.replace("\\", "\\\\").replace("'", "\\'") + "'"
    frames = [
        matchrec.sql(spark, f"SELECT * FROM {view} MATCH_RECOGNIZE ({body})"),
        matchrec.match_recognize(spark.table(view), body),
        spark.sql(f"SELECT * FROM match_recognize(TABLE({view}), {quoted})"),
    ]
    for frame in frames:
        assert sorted(map(tuple, frame.collect())) == sorted(map(tuple, want)), condition


@pytest.mark.parametrize("condition", CONCAT_CONDITIONS)
def test_concat_of_two_rows_arrays_and_binaries_is_sparks(spark, condition):
    """``concat``/``||`` of arrays (or BINARY values) of two rows is the array (bytes)
    Spark's concat gives, not the text of each value (once ``size(concat(A.tags,
    B.tags))`` counted characters)."""
    _two_row_condition_in_every_door(spark, CONCAT_ROWS, "concat_rows", condition)


def test_concat_of_two_rows_in_the_table_functions_measures(spark):
    """The table function computes ``concat(A.tags, B.tags)`` and ``A.bin || B.bin`` of
    the match as Spark's arrays and bytes, typed as Spark types them."""
    spark.sql(CONCAT_ROWS).createOrReplaceTempView("concat_rows")
    matchrec.register(spark)
    got = spark.sql(
        """SELECT * FROM match_recognize(TABLE(concat_rows), 'PARTITION BY part ORDER BY id
        MEASURES A.id AS aid, concat(A.tags, B.tags) AS tags, A.bin || B.bin AS bin,
          size(concat(A.tags, B.tags)) AS n
        AFTER MATCH SKIP TO NEXT ROW PATTERN (A B) DEFINE A AS true')"""
    )
    want = spark.sql(
        """SELECT a.part, a.id AS aid, concat(a.tags, b.tags) AS tags, a.bin || b.bin AS bin,
          size(concat(a.tags, b.tags)) AS n
        FROM concat_rows a JOIN concat_rows b ON b.part = a.part AND b.id = a.id + 1"""
    )
    assert got.schema.simpleString() == want.schema.simpleString()
    assert sorted(map(tuple, got.collect())) == sorted(map(tuple, want.collect()))


LIKE_ROWS = """SELECT * FROM VALUES
  ('p', 1, 'err', 'u'), ('p', 2, 'err_404', 'u2'), ('p', 3, 'ok%200', 'v'),
  ('p', 4, 'ERR-500', NULL), ('p', 5, 'warn', 'u') AS t(part, id, msg, who)"""

LIKE_CONDITIONS = [
    "B.msg NOT LIKE concat(A.msg, '%')",
    "B.msg NOT ILIKE concat(A.msg, '%')",
    "concat(A.who, B.msg) LIKE 'u2ok!%%' ESCAPE '!'",
    "concat(A.who, B.msg) NOT LIKE 'uerr!_%' ESCAPE '!'",
    "concat(B.msg, A.who) ILIKE 'ERR#_404%' ESCAPE '#'",
    "NOT (B.msg LIKE concat(A.msg, '%'))",
    "B.msg LIKE ANY (concat(A.msg, '%'), 'ok%')",
    "B.msg LIKE ALL (concat(A.msg, '%'), '%4%')",
    "B.msg NOT LIKE ANY (concat(A.msg, '%'), 'w%')",
    "B.msg NOT ILIKE ALL (concat(A.msg, '%'), A.who || '%')",
    "B.msg ILIKE ANY (upper(A.msg) || '%', A.who)",
]


@pytest.mark.parametrize("condition", LIKE_CONDITIONS)
def test_not_like_and_escape_of_two_rows_are_sparks(spark, condition):
    """``NOT LIKE``/``NOT ILIKE`` of values from two rows is the negation (the glue once
    dropped the NOT: the opposite rows, silently) and ``ESCAPE 'c'`` works there as in
    Spark (it was refused); ``[NOT] LIKE ANY|ALL`` with a pattern of another row is
    Spark's (it was refused), NULL patterns included."""
    _two_row_condition_in_every_door(spark, LIKE_ROWS, "like_rows", condition)


def test_a_like_escape_that_is_not_one_character_is_a_positioned_error():
    with pytest.raises(SemanticError) as info:
        _plan("concat(N.path, S.path) LIKE 'a!%' ESCAPE '!!'")
    err = info.value
    assert "one character" in err.message
    assert err.sql[err.pos :].startswith("'!!'")


@pytest.mark.parametrize(
    "text",
    [
        "c NOT LIKE 'a%'",
        "c NOT ILIKE 'A%'",
        "c LIKE 'a!_%' ESCAPE '!'",
        "c NOT LIKE 'a!_%' ESCAPE '!'",
    ],
)
def test_not_like_and_escape_in_a_dynamic_rule_are_sparks(spark, text):
    """A MATCH_RECOGNIZE_DYNAMIC rule's row-local [NOT] LIKE runs in matchrec's
    evaluator: its NOT and ESCAPE as Spark reads them."""
    from matchrec.planner.rules import _row_function

    fn, _ = _row_function(text, 0, text, ["c"], ansi=True)
    values = ["abc", "a_c", "ABC", "xyz", "", None]
    rows = spark.createDataFrame([(v,) for v in values], "c STRING").selectExpr("c", text).collect()
    for row in rows:
        assert fn([row.c]) == row[1], (row.c, fn([row.c]), row[1])


_PROBE_FORMS = ["({call}) IS NULL", "({call}) IS NOT NULL", "coalesce({call}) = ({call})"]


@pytest.mark.parametrize("form", _PROBE_FORMS)
def test_every_type_probe_of_a_two_row_call_is_spark_sql(spark, form):
    """Before a job runs, the runtime asks Spark to type each operand of DEFINE (its
    *probe*, SQL over the input's columns); a probe Spark cannot parse silently skipped
    its check, so a type error surfaced only while matching (``x IS NULL`` was probed as
    ``x IS (NULL)``). Every probe of every two-row call, in several surroundings, parses."""
    unparsable = []
    for call in TWO_ROW_CALLS:
        condition = form.format(call=call)
        body = f"ORDER BY n PATTERN (S N) DEFINE N AS {condition}"
        plan = plan_clause(parse_clause(body), list(POOLS))
        probes = [o.probe for c in plan.define_checks for o in c.operands]
        for probe in probes + [w.probe for w in plan.integer_widths]:
            if (error := _parse_error(spark, probe)) is not None:
                unparsable.append((condition, probe, error))
    assert not unparsable, unparsable[:5]


_PARSE_ERRORS: dict[str, str | None] = {}


def _parse_error(spark, probe: str) -> str | None:
    """The first line of Spark's error parsing ``probe`` (None: it parses), asked once
    per probe text (the forms share most probes)."""
    if probe not in _PARSE_ERRORS:
        try:
            spark._jsparkSession.sessionState().sqlParser().parseExpression(probe)
            _PARSE_ERRORS[probe] = None
        except Exception as err:  # py4j's error for Spark's ParseException
            _PARSE_ERRORS[probe] = str(err).splitlines()[0][:120]
    return _PARSE_ERRORS[probe]


LAMBDA_ROWS = """SELECT * FROM VALUES
  ('p', 1, array(1, 2147483647), 3), ('p', 2, array(2147483647, 5), 2147483647),
  ('p', 3, array(-5, NULL), -2147483648), ('p', 4, array(7), 1) AS t(part, id, arr, v)"""

LAMBDA_CONDITIONS = [
    "exists(A.arr, x -> x + B.v < 0)",
    "aggregate(B.arr, A.v, (acc, x) -> acc + x) < 0",
    "zip_with(B.arr, A.arr, (x, y) -> x + y)[0] < 0",
    "transform(A.arr, (x, i) -> x * B.v + i)[0] < 0",
]


@pytest.mark.parametrize("condition", LAMBDA_CONDITIONS)
def test_integer_operators_in_a_lambda_of_two_rows_wrap_as_spark_without_ansi(
    spark, ansi_off, condition
):
    """An integer operator in a lambda's body over values of two rows keeps Spark's
    width: without ANSI it wraps around as Spark does (it once computed in Python's
    unbounded integers, the opposite verdict, silently: the body's type was never asked)."""
    _two_row_condition_in_every_door(spark, LAMBDA_ROWS, "lambda_rows", condition)


def test_an_integer_overflow_in_a_lambda_under_ansi_is_a_positioned_error(spark):
    spark.sql(LAMBDA_ROWS).createOrReplaceTempView("lambda_rows")
    condition = LAMBDA_CONDITIONS[0]
    query = f"""SELECT * FROM lambda_rows MATCH_RECOGNIZE (PARTITION BY part ORDER BY id
      MEASURES A.id AS aid PATTERN (A B) DEFINE B AS {condition})"""
    with pytest.raises(Exception) as info:
        matchrec.sql(spark, query).collect()
    text = carried_error(info.value)
    at = query.index("x + B.v")
    column = at - query.index("\n") if query.index("\n") < at else at + 1
    assert text.startswith("runtime error: integer overflow: x + B.v is 2147483648")
    assert f"(line 2, column {column})" in text


NESTED_ORDER_ROWS = (
    "SELECT * FROM VALUES (1, 1, 10), (1, 2, NULL), (1, 3, 3), (1, 4, 10), (1, 5, NULL), "
    "(1, 6, 1) AS t(part, id, x)"
)


@pytest.mark.parametrize(
    "condition",
    [
        "array(A.x, B.x) < array(10, 1)",
        "array(B.x, A.x) >= array(B.x)",
        "named_struct('a', A.x, 'b', A.id) > named_struct('a', B.x, 'b', B.id)",
    ],
)
def test_arrays_and_structs_of_two_rows_order_as_sparks(spark, condition):
    """Element by element (field by field), a NULL before any value, a shorter array
    that is a prefix of another before it."""
    _two_row_condition_in_every_door(spark, NESTED_ORDER_ROWS, "fn_nested", condition)


@pytest.mark.parametrize(
    "condition",
    [
        "transform(array(A.x, B.x), e -> e)[0] = 10",
        "zip_with(array(A.x, A.id), array(B.x, B.id), (l, r) -> r)[1] > 4",
    ],
)
def test_a_lambda_whose_body_is_its_parameter(spark, condition):
    """``e -> e``: sqlglot reads the body as a bare name, which is the parameter."""
    _two_row_condition_in_every_door(spark, NESTED_ORDER_ROWS, "fn_nested", condition)


@pytest.mark.parametrize("unit", ["HOUR", "MINUTE", "DAY"])
def test_date_trunc_keeps_the_offset_where_the_truncated_time_repeats(spark, new_york, unit):
    """New York's clocks went back 3 min 58 s at noon of 1883-11-18 (and an hour on
    2024-11-03): 12:03:58 truncated to the hour is the second 12:00, as Java's
    ``ZonedDateTime.truncatedTo`` keeps the offset."""
    stamps = [
        "1883-11-18 16:59:00",
        "1883-11-18 17:03:58",
        "1883-11-18 17:10:00",
        "2024-11-03 05:30:00",
        "2024-11-03 06:30:00",
    ]
    rows = ", ".join(f"({k}, {i}, TIMESTAMP'{t}Z')" for k, t in enumerate(stamps) for i in (1, 2))
    query = f"""SELECT part FROM (
      SELECT part, id, ts, date_trunc('{unit}', ts) AS want FROM VALUES {rows} AS v(part, id, ts)
    ) MATCH_RECOGNIZE (
      PARTITION BY part ORDER BY id MEASURES count(*) AS k PATTERN (^S N)
      DEFINE N AS date_trunc('{unit}', greatest(S.ts, N.ts)) <=> want
    )"""
    got = {r.part for r in matchrec.sql(spark, query).collect()}
    assert got == set(range(len(stamps)))


@pytest.mark.parametrize("call", JSON_AND_FORMAT_CALLS)
def test_json_and_format_calls_without_ansi_in_a_daylight_saving_zone(
    spark, ansi_off, new_york, call
):
    _two_rows_equal_spark(spark, call, JSON_AND_FORMAT_CALLS)


@pytest.mark.parametrize("call", REPLACED_AND_CAST_CALLS)
def test_replaced_calls_and_casts_without_ansi_in_a_daylight_saving_zone(
    spark, ansi_off, new_york, call
):
    _two_rows_equal_spark(spark, call, REPLACED_AND_CAST_CALLS)


@pytest.mark.parametrize(
    ("clause", "inlined"),
    [
        (
            "MEASURES CAST(final_price(LAST(B.price), 1) AS INT) AS m, "
            "CAST(running_total(FIRST(A.price)) AS INT) AS r PATTERN (A B+) "
            "DEFINE B AS final_price(B.price, 1) < final_price(PREV(price), 1)"
            " OR running_total(B.price) > 60",
            "MEASURES (LAST(B.price) - 1) AS m, (FIRST(A.price) * 10) AS r "
            "PATTERN (A B+) DEFINE B AS (B.price - 1) < (PREV(price) - 1)"
            " OR (B.price * 10) > 60",
        ),
        (
            "MEASURES RUNNING sum(price) AS m, CAST(FINAL_price(price, 2) AS INT) AS r "
            "ALL ROWS PER MATCH PATTERN (A B+) DEFINE B AS final_price(B.price, 0) > 0",
            "MEASURES RUNNING sum(price) AS m, (price - 2) AS r "
            "ALL ROWS PER MATCH PATTERN (A B+) DEFINE B AS B.price > 0",
        ),
    ],
)
def test_a_udf_named_like_running_or_final_keeps_its_name(spark, clause, inlined):
    """``final_price(...)`` is the user's function, not ``FINAL price(...)``: both were
    refused ("FINAL semantics is supported only for FIRST(), LAST() and aggregation
    functions. Actual: price"). The table function, which cannot ask Spark a UDF's
    type, takes the measures CAST."""
    spark.sql(
        "CREATE OR REPLACE TEMPORARY FUNCTION final_price(p INT, d INT) RETURNS INT RETURN p - d"
    )
    spark.udf.register("running_total", lambda x: None if x is None else x * 10, "int")
    spark.sql(f"CREATE OR REPLACE TEMPORARY VIEW udf_prices AS {UDF_PRICES}")
    matchrec.register(spark)
    head = "PARTITION BY sym ORDER BY id "
    try:
        doors = [
            matchrec.sql(spark, f"SELECT * FROM udf_prices MATCH_RECOGNIZE ({head}{clause})"),
            matchrec.match_recognize(spark.table("udf_prices"), head + clause),
            spark.sql(f"SELECT * FROM match_recognize(TABLE(udf_prices), '{head}{clause}')"),
        ]
        got = [sorted(map(tuple, frame.collect())) for frame in doors]
    finally:
        for name in ("final_price", "running_total"):
            spark.sql(f"DROP TEMPORARY FUNCTION IF EXISTS {name}")
    want = matchrec.sql(spark, f"SELECT * FROM udf_prices MATCH_RECOGNIZE ({head}{inlined})")
    assert got[0] and got == [sorted(map(tuple, want.collect()))] * 3


#: row 3 is a B row (its text is no A's) whose day -2 makes no date; no match reads it as
#: the first B row, the only one each condition below reads the day of
_UNREAD_BAD_DAY = """(1, 1, 'x', 1), (1, 2, '12', 5), (1, 3, 'bad', {day}),
 (1, 4, 'y', 1), (1, 5, '7', 3), (1, 6, 'worse', 20) AS u(p, o, s, i)"""


@pytest.mark.parametrize(
    "condition",
    [
        "make_date(2024, 2, FIRST(B.i)) > DATE'2024-01-01'",
        "date_add(make_date(2024, 2, FIRST(B.i)), 1) > DATE'2024-02-04'",
        "unix_date(date_sub(make_date(2024, 2, FIRST(B.i)), 3)) > 19750",
        "date_format(make_date(2024, 2, FIRST(B.i)), 'dd') > '04'",
        "datediff(make_date(2024, 2, FIRST(B.i)), DATE'2024-01-01') > 34",
        "CAST(unbase64(base64(FIRST(B.s))) AS STRING) = FIRST(B.s) AND FIRST(B.i) > 4",
        "to_char(make_date(2024, 2, FIRST(B.i)), 'dd') > '04'",
    ],
)
def test_a_function_failing_on_a_row_no_condition_reads_fails_no_job(spark, condition):
    """make_date(2024, 2, -2) fails under ANSI mode; row 3 meets B's row-local condition
    but no match reads its day: every door answers as the same query over data where
    that day is a valid one (Spark computing make_date over every B row would fail)."""
    body = (
        "PARTITION BY p ORDER BY o MEASURES CLASSIFIER() AS c, MATCH_NUMBER() AS n "
        "ALL ROWS PER MATCH PATTERN (A B*) "
        f"DEFINE A AS A.s IN ('x', 'y'), B AS B.s NOT IN ('x', 'y') AND {condition}"
    )
    literal = "'" + body.replace("'", "''") + "'"
    matchrec.register(spark)
    with session_settings(spark, {"spark.sql.ansi.enabled": "true"}):
        want = matchrec.sql(
            spark, f"SELECT * FROM VALUES {_UNREAD_BAD_DAY.format(day=1)} MATCH_RECOGNIZE ({body})"
        ).collect()
        source = f"(SELECT * FROM VALUES {_UNREAD_BAD_DAY.format(day=-2)})"
        got = {
            "sql": matchrec.sql(spark, f"SELECT * FROM {source} MATCH_RECOGNIZE ({body})"),
            "udtf": spark.sql(f"SELECT * FROM match_recognize(TABLE{source}, {literal})"),
        }
        for door, frame in got.items():
            assert sorted(frame.select("p", "o", "c", "n").collect()) == sorted(
                (r.p, r.o, r.c, r.n) for r in want
            ), door
    assert {r.c for r in want} == {"A", "B"}


@pytest.mark.parametrize("right", ["s", "lower(s)"])
def test_a_collation_read_from_another_row_decides_the_comparison(spark, right):
    """``collate(A.s, 'UTF8_LCASE') = s``: the collate() is computed on A's row, where it
    is a column, no longer explicit, and Spark could not type the comparison's operands
    together (an indeterminate collation), which escaped as PySpark's
    CANNOT_PARSE_DATATYPE and was then refused. The explicit collation decides, as
    Spark's precedence of collations says: Spark's rows."""
    spark.sql(
        "SELECT * FROM VALUES (1, 1, 'ABC'), (1, 2, 'abc') AS r(g, seq, s)"
    ).createOrReplaceTempView("mr_collated")
    query = (
        "SELECT * FROM mr_collated MATCH_RECOGNIZE (PARTITION BY g ORDER BY seq "
        "MEASURES B.seq AS m PATTERN (A B) DEFINE A AS seq = 1, B AS {})"
    )
    condition = f"collate(A.s, 'UTF8_LCASE') = {right}"
    joined = f"collate(a.s, 'UTF8_LCASE') = {right.replace('s', 'b.s')}"
    sparks = spark.sql(
        "SELECT b.seq FROM mr_collated a JOIN mr_collated b ON a.g = b.g AND b.seq = a.seq + 1 "
        f"WHERE a.seq = 1 AND {joined}"
    ).collect()
    got = [tuple(r) for r in matchrec.sql(spark, query.format(condition)).collect()]
    assert sparks and got == [(1, r.seq) for r in sparks]


@pytest.mark.parametrize("door", DOORS)
def test_typeof_a_decimal_of_two_rows_is_sparks_text_in_every_door(spark, door):
    """The table function's DEFINE wrote matchrec's own type of ``A.x * B.x``,
    'decimal(21, 4)', where Spark's typeof says 'decimal(21,4)'."""
    view = "(SELECT * FROM VALUES (1, 1.25BD), (2, -3.10BD) AS t(id, x))"
    spark.sql(f"CREATE OR REPLACE TEMP VIEW mr_typeof_decimal AS SELECT * FROM {view}")
    matchrec.register(spark)
    wanted = spark.sql(
        "SELECT typeof(CAST(x AS DECIMAL(10, 2)) * CAST(x AS DECIMAL(10, 2))) "
        "FROM mr_typeof_decimal"
    ).first()[0]
    body = (
        "ORDER BY id MEASURES B.id AS b PATTERN (A B) DEFINE B AS "
        f"typeof(CAST(A.x AS DECIMAL(10, 2)) * CAST(B.x AS DECIMAL(10, 2))) = '{wanted}'"
    )
    assert rows_through(spark, door, "mr_typeof_decimal", body) == [(2,)]
