"""Subscripts ``a[i]`` and ``m[k]``, and element_at of a map: the index types Spark takes
(planner/subscript_types.py, asked of Spark again), the key cast Spark makes before a
map lookup, and Spark's refusals in both doors at the index."""

from __future__ import annotations

import pytest
from doors import refusals
from matchrec.planner.subscript_types import INTEGRAL, map_key_taken
from matchrec.planner.unary_types import CODES
from matchrec.runtime.session import session_settings
from pyspark.errors import AnalysisException

import matchrec

VIEW = "mr_subscript_types"
KEYS = [c for c in CODES if c != "M"]  # a MAP is no map key


def _taken(spark, expression: str) -> bool:
    try:
        spark.sql(f"SELECT {expression} AS v FROM {VIEW}")  # analysed
        return True
    except AnalysisException:
        return False


def test_the_index_types_are_sparks_answer(spark):
    """Each map key type with each index type, and an array with each, in both modes."""
    maps = ", ".join(f"map(CAST(NULL AS {CODES[c]}), 1) AS m{k}" for k, c in enumerate(KEYS))
    values = ", ".join(f"CAST(NULL AS {CODES[c]}) AS c{i}" for i, c in enumerate(CODES))
    spark.sql(f"SELECT array(1) AS arr, {maps}, {values}").createOrReplaceTempView(VIEW)
    differ = []
    for ansi in (True, False):
        with session_settings(spark, {"spark.sql.ansi.enabled": str(ansi).lower()}):
            for i, index in enumerate(CODES):
                ours = CODES[index] in INTEGRAL
                if ours != _taken(spark, f"arr[c{i}]"):
                    differ.append(("array", CODES[index], ansi))
                for k, key in enumerate(KEYS):
                    ours = map_key_taken(CODES[key], CODES[index], ansi)
                    if ours != _taken(spark, f"m{k}[c{i}]"):
                        differ.append((CODES[key], CODES[index], ansi))
    assert differ == []


#: a map and a key of another type, which Spark casts to the map's key type first
LOOKUPS = [
    ("map(1, 'a', 2, 'b')", "'2'"),
    ("map(1, 'a', 2, 'b')", "2.5D"),
    ("map(1, 'a', 2, 'b')", "CAST(2 AS DECIMAL(10,2))"),
    ("map('1', 'a', '2.0', 'b', 'true', 'c')", "1"),
    ("map('1', 'a', '2.0', 'b', 'true', 'c')", "2.0D"),
    ("map('1', 'a', '2.0', 'b', 'true', 'c')", "true"),
    ("map(1.5D, 'a')", "'1.5'"),
    ("map(CAST(1.5 AS DECIMAL(10,2)), 'a')", "1.5D"),
    ("map(date'2024-01-01', 'a')", "'2024-01-01'"),
    ("map(date'2024-01-01', 'a')", "timestamp'2024-01-01 10:00:00'"),
    ("map('2024-01-01', 'a')", "date'2024-01-01'"),
    ("map(1, 'a', 2, 'b')", "'x'"),
]


@pytest.mark.parametrize("ansi", ["true", "false"])
def test_a_map_key_is_cast_as_spark_casts_it(spark, ansi):
    """The table function's ``LAST(B.mp)[FIRST(A.x)]`` is Spark's ``mp[x]``: the value,
    NULL, or under ANSI mode an error for a key that does not cast (it looked the key up
    as it was: NULL)."""
    matchrec.register(spark)
    differ = []
    with session_settings(spark, {"spark.sql.ansi.enabled": ansi}):
        for mp, key in LOOKUPS:
            try:
                want = spark.sql(f"SELECT {mp}[{key}] AS v").collect()[0][0]
            except Exception as e:  # noqa: BLE001 (Spark's run-time error, any class)
                want = "CAST_INVALID_INPUT" if "CAST_INVALID_INPUT" in str(e) else str(e)
            source = f"(SELECT * FROM VALUES (1, {key}, {mp}), (2, {key}, {mp}) AS u(k, x, mp))"
            body = "ORDER BY k MEASURES LAST(B.mp)[FIRST(A.x)] AS v PATTERN (A B) DEFINE B AS true"
            query = f"SELECT * FROM match_recognize(TABLE{source}, '{body}')"
            try:
                got = spark.sql(query).collect()[0][0]
            except Exception as e:  # noqa: BLE001
                got = "CAST_INVALID_INPUT" if "CAST_INVALID_INPUT" in str(e) else str(e)
            if got != want:
                differ.append((mp, key, want, got))
    assert differ == []


BODY = "PARTITION BY p ORDER BY k MEASURES {measure} AS m PATTERN (A B+) DEFINE B AS {condition}"
SOURCE = (
    "(SELECT * FROM VALUES (1, 1, 4, '2', array(1), map(1, 'a')), "
    "(1, 2, 5, 'x', array(2), map(2, 'b')) AS u(p, k, n, s, arr, mp))"
)


@pytest.mark.parametrize(
    "measure, condition, at, says",
    [
        (
            "LAST(B.arr)[FIRST(A.s)]",
            "true",
            "FIRST(A.s)",
            "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE]",
        ),
        ("count(*)", "B.arr[FIRST(A.s)] > 0", "FIRST(A.s)", "takes an integer, not FIRST(A.s)"),
        ("FIRST(A.mp)[LAST(B.arr)]", "true", "LAST(B.arr)", "a key Spark casts to INT"),
        ("element_at(FIRST(A.mp), LAST(B.s))", "true", "LAST(B.s)", "MAP_FUNCTION_DIFF_TYPES"),
        ("FIRST(A.n)[1]", "true", "FIRST(A.n)", "[INVALID_EXTRACT_BASE_FIELD_TYPE]"),
        # Spark would cast '2' to 2; the glue, which computes this per match, says so
        ("count(*)", "B.mp[FIRST(A.s)] = 'b'", "FIRST(A.s)", "without Spark's cast of the key"),
        (
            "element_at(LAST(B.arr), FIRST(A.s))",
            "true",
            "FIRST(A.s)",
            "element_at() cannot take FIRST(A.s) (STRING) as its second argument",
        ),
    ],
)
def test_an_index_spark_refuses_is_its_error_in_every_door(spark, measure, condition, at, says):
    """Both doors stop before any job with Spark's condition, the caret under the index
    (or the value that has no subscript); the table function computed these, or said it
    could not infer the measure's type."""
    body = BODY.format(measure=measure, condition=condition)
    query, by_sql, by_function = refusals(spark, SOURCE, body)
    for error, text in ((by_sql, query), (by_function, body)):
        assert says in error.message
        assert text[error.pos :].startswith(at)


def test_a_key_spark_takes_runs_in_both_doors(spark):
    """A key of a type Spark casts (a STRING into a MAP<INT, ...>), an integer index of
    any width: the same rows in both doors, the key cast."""
    body = BODY.format(
        measure="LAST(B.mp)[FIRST(A.s)] AS v, LAST(B.arr)[CAST(FIRST(A.n) AS BIGINT) - 4]",
        condition="true",
    )
    matchrec.register(spark)
    by_sql = matchrec.sql(spark, f"SELECT * FROM {SOURCE} MATCH_RECOGNIZE ({body})").collect()
    literal = "'" + body.replace("'", "''") + "'"
    by_function = spark.sql(f"SELECT * FROM match_recognize(TABLE{SOURCE}, {literal})").collect()
    assert [tuple(r) for r in by_sql] == [tuple(r) for r in by_function] == [(1, "b", 2)]
