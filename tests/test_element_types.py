"""The value an array function looks for, or its second array, beside the first array's
elements: the table function (which computes these in Python) takes exactly the types
Spark takes, with Spark's result type, and refuses the others with Spark's error class
before any job, as ``matchrec.sql`` does (differential over a matrix of types, Spark
analysing each call itself)."""

from __future__ import annotations

import itertools

import pytest
from doors import refusals
from matchrec.runtime.session import session_settings
from matchrec.runtime.udtf import build_program
from pyspark.errors import AnalysisException
from pyspark.sql.types import IntegerType, StructField, StructType

import matchrec
from matchrec.errors import MatchRecognizeError

#: element and value types: numbers of each family, strings, truth values, moments, an
#: interval, nested types (a year-month interval and an array of NULLs have no Python
#: value in the table function: refused there, README)
TYPES = [
    "int",
    "bigint",
    "float",
    "decimal(4,2)",
    "decimal(12,2)",
    "string",
    "boolean",
    "date",
    "timestamp",
    "interval day",
    "array<int>",
    "struct<a:int>",
]
CALLS = {
    "array_contains": "array_contains({a}, {v})",
    "array_position": "array_position({a}, {v})",
    "array_remove": "array_remove({a}, {v})",
    "arrays_overlap": "arrays_overlap({a}, array({v}))",
    "array_union": "array_union({a}, array({v}))",
    "array_except": "array_except({a}, array({v}))",
    "array_insert": "array_insert({a}, 1, {v})",
    "array_append": "array_append({a}, {v})",
    "array_prepend": "array_prepend({a}, {v})",
}


def _null_of(type_name: str) -> str:
    return "NULL" if type_name == "void" else f"CAST(NULL AS {type_name})"


def _spark_type(spark, expression: str) -> str | None:
    try:
        return spark.sql(f"SELECT {expression} AS x").schema["x"].dataType.simpleString()
    except AnalysisException:
        return None


def _table_function_type(spark, call: str, element: str, value: str) -> str | None:
    fields = [
        StructField("k", IntegerType()),
        StructField("a", spark.sql(f"SELECT array({_null_of(element)}) AS x").schema["x"].dataType),
    ]
    if value != "void":
        fields.append(
            StructField("v", spark.sql(f"SELECT {_null_of(value)} AS x").schema["x"].dataType)
        )
    measure = call.format(a="FIRST(A.a)", v="NULL" if value == "void" else "LAST(B.v)")
    body = f"ORDER BY k MEASURES {measure} AS m PATTERN (A B) DEFINE B AS true"
    try:
        return build_program(body, StructType(fields)).schema["m"].dataType.simpleString()
    except MatchRecognizeError:
        return None


@pytest.mark.parametrize("name", sorted(CALLS))
def test_the_table_function_takes_the_types_spark_takes(spark, name):
    call = CALLS[name]
    differ = []
    with session_settings(spark, {"spark.sql.ansi.enabled": "true"}):
        for element, value in itertools.product(TYPES, [*TYPES, "void"]):
            if value == "void" and name in ("arrays_overlap", "array_union", "array_except"):
                continue  # array(NULL): no Python value in the table function
            want = _spark_type(
                spark, call.format(a=f"array({_null_of(element)})", v=_null_of(value))
            )
            got = _table_function_type(spark, call, element, value)
            if got != want:
                differ.append((element, value, want, got))
    assert differ == []


#: key types of a map (their values INT) and the keys map_contains_key looks for
MAP_KEYS = ["int", "double", "decimal(4,2)", "string", "date", "timestamp"]


def test_map_contains_key_takes_the_keys_spark_takes(spark):
    differ = []
    with session_settings(spark, {"spark.sql.ansi.enabled": "true"}):
        for key_type, value in itertools.product(MAP_KEYS, [*TYPES, "void"]):
            written = f"map_contains_key(map({_null_of(key_type)}, 1), {_null_of(value)})"
            want = _spark_type(spark, written)
            map_type = spark.sql(f"SELECT map({_null_of(key_type)}, 1) AS x").schema["x"].dataType
            fields = [StructField("k", IntegerType()), StructField("m", map_type)]
            if value != "void":
                value_type = spark.sql(f"SELECT {_null_of(value)} AS x").schema["x"].dataType
                fields.append(StructField("v", value_type))
            looked = "NULL" if value == "void" else "LAST(B.v)"
            body = (
                f"ORDER BY k MEASURES map_contains_key(FIRST(A.m), {looked}) AS m "
                "PATTERN (A B) DEFINE B AS true"
            )
            try:
                got = build_program(body, StructType(fields)).schema["m"].dataType.simpleString()
            except MatchRecognizeError:
                got = None
            if got != want:
                differ.append((key_type, value, want, got))
    assert differ == []


BODY = "PARTITION BY p ORDER BY k MEASURES count(*) AS n PATTERN (A B+) DEFINE B AS {condition}"
SOURCE = (
    "(SELECT * FROM VALUES (1, 1, array(1, 2), 'x', 3.0D), (1, 2, array(3), '1', 2.5D) "
    "AS u(p, k, arr, s, dbl))"
)


@pytest.mark.parametrize(
    ("condition", "at", "error", "says"),
    [
        (
            "array_contains(B.arr, A.s)",
            "A.s",
            "ARRAY_FUNCTION_DIFF_TYPES",
            "array_contains() takes a value",
        ),
        (
            "array_position(B.arr, CAST(FIRST(A.dbl) AS DECIMAL(4,2))) > 0",
            "CAST(FIRST(A.dbl)",
            "ARRAY_FUNCTION_DIFF_TYPES",
            "elements' type (INT), not one of type DECIMAL(4,2)",
        ),
        ("array_contains(B.arr, NULL)", "NULL", "NULL_TYPE", "array_contains() takes no NULL"),
        (
            "arrays_overlap(B.arr, array(A.s))",
            "array(A.s)",
            "BINARY_ARRAY_DIFF_TYPES",
            "two arrays",
        ),
        (
            "size(array_remove(B.arr, PREV(s))) > 0",
            "PREV(s)",
            "ARRAY_FUNCTION_DIFF_TYPES",
            "takes a value",
        ),
        (
            "size(array_append(B.arr, A.s)) > 0",
            "A.s",
            "ARRAY_FUNCTION_DIFF_TYPES",
            "array_append() takes a value of the elements' type (INT), not one of type STRING",
        ),
        (
            "map_contains_key(map(B.s, 1), A.k)",
            "A.k",
            "MAP_FUNCTION_DIFF_TYPES",
            "map's key type (STRING), not one of type INT",
        ),
    ],
)
def test_a_value_spark_refuses_beside_the_elements_is_its_error_in_every_door(
    spark, condition, at, error, says
):
    """Both doors stop before any job with a positioned error of Spark's class (the
    table function used to answer false or NULL); matchrec's own names the value, which
    the caret is under, where Spark does not refuse the precomputed columns first."""
    body = BODY.format(condition=condition)
    query, by_sql, by_function = refusals(spark, SOURCE, body)
    assert f"[DATATYPE_MISMATCH.{error}]" in by_sql.message
    assert by_sql.pos >= query.index(condition)
    if not by_sql.message.startswith("Spark cannot evaluate"):
        assert says in by_sql.message
        assert query[by_sql.pos :].startswith(at)
    assert f"[DATATYPE_MISMATCH.{error}] " in by_function.message
    assert says in by_function.message
    assert body[by_function.pos :].startswith(at)


@pytest.mark.parametrize(
    "condition",
    ["array_contains(B.arr, FIRST(A.dbl))", "array_position(B.arr, CAST(A.dbl AS BIGINT)) > 0"],
)
def test_a_value_spark_takes_beside_the_elements_runs_in_both_doors(spark, condition):
    """A number of another family (a DOUBLE beside INTs for array_contains, a BIGINT for
    array_position) is Spark's to compare: both doors answer alike."""
    body = BODY.format(condition=condition)
    literal = "'" + body.replace("'", "''") + "'"
    matchrec.register(spark)
    got = matchrec.sql(spark, f"SELECT * FROM {SOURCE} MATCH_RECOGNIZE ({body})").collect()
    tf = spark.sql(f"SELECT * FROM match_recognize(TABLE{SOURCE}, {literal})").collect()
    assert sorted(got) == sorted(tf) == [(1, 2)]
