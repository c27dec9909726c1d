"""Spark's refusal of a two-argument call's argument types when the query is built
(``planner/pair_types.py``): the table is Spark's own answer, and every door says it with
a caret at the argument at fault (the table function and DEFINE's glue used to compute
``add_months(n, 1)`` of an INT, ``array_contains(n, 1)`` of no array)."""

from __future__ import annotations

import random

import pytest
from doors import refusals
from matchrec.planner.pair_types import PAIR_REFUSALS, pair_refusal
from matchrec.planner.unary_types import CODES
from matchrec.runtime.session import session_settings
from pyspark.errors import AnalysisException

import matchrec

#: the probe's types: the codes' but INTERVAL YEAR TO MONTH (no table function takes it)
TYPES = [t for t in CODES.values() if t != "interval year to month"]
VIEW = "mr_pair_types"


def _refused(spark, name: str, first: int, second: int) -> bool:
    """Whether Spark refuses ``name`` of two columns of the types, ANSI mode or not."""
    for ansi in ("true", "false"):
        with session_settings(spark, {"spark.sql.ansi.enabled": ansi}):
            try:
                spark.sql(f"SELECT {name}(c{first}, c{second}) AS m FROM {VIEW}")  # analysed
                return False
            except AnalysisException:
                continue
    return True


#: every third function of the table (the whole table takes Spark many minutes to read)
SAMPLE = sorted(PAIR_REFUSALS)[::3]


def test_the_table_is_sparks_answer(spark):
    """Each type as either argument, beside a type drawn at random for the other."""
    columns = ", ".join(f"CAST(NULL AS {t}) AS c{i}" for i, t in enumerate(TYPES))
    spark.sql(f"SELECT {columns}").createOrReplaceTempView(VIEW)
    pick = random.Random(7)
    differ = []
    for name in SAMPLE:
        for t in range(len(TYPES)):
            other = pick.randrange(len(TYPES))
            for a, b in ((t, other), (other, t)):
                ours = pair_refusal(name, TYPES[a], TYPES[b]) is not None
                if ours != _refused(spark, name, a, b):
                    differ.append((name, TYPES[a], TYPES[b], ours))
    assert differ == []


BODY = "PARTITION BY p ORDER BY k MEASURES {measure} AS m PATTERN (A B+) DEFINE B AS {condition}"
SOURCE = (
    "(SELECT * FROM VALUES (1, 1, 4, 'x', array(1), date'2024-01-31'), "
    "(1, 2, 5, 'y', array(2), date'2024-02-29') AS u(p, k, n, s, arr, d))"
)


@pytest.mark.parametrize(
    ("measure", "condition", "at", "says"),
    [
        (
            "add_months(FIRST(A.n), 1)",
            "true",
            # the table function computes add_months(A.n, 1) of the first row
            ("FIRST(A.n)", "A.n"),
            ("add_months() cannot take ", "(INT) as its first argument in MEASURES"),
        ),
        (
            "add_months(FIRST(A.n), LAST(B.k))",
            "true",
            "FIRST(A.n)",
            ("add_months() cannot take FIRST(A.n) (INT) as its first argument in MEASURES",),
        ),
        (
            "datediff(LAST(B.d), FIRST(A.k))",
            "true",
            "FIRST(A.k)",
            ("datediff() cannot take FIRST(A.k) (INT) as its second argument in MEASURES",),
        ),
        (
            "count(*)",
            "datediff(FIRST(A.d), B.n) > 0",
            "B.n",
            ("datediff() cannot take B.n (INT) as its second argument in DEFINE",),
        ),
        (
            "array_contains(FIRST(A.n), LAST(B.n))",
            "true",
            "FIRST(A.n)",
            ("array_contains() cannot take FIRST(A.n) (INT) as its first argument",),
        ),
        (
            "count(*)",
            "array_join(PREV(B.s), ',') <> B.s",
            "PREV(B.s)",
            ("array_join() cannot take PREV(B.s) (STRING) as its first argument in DEFINE",),
        ),
    ],
)
def test_argument_types_spark_refuses_are_its_error_in_every_door(
    spark, measure, condition, at, says
):
    """Both doors stop before any job with Spark's condition, the caret under the
    argument at fault (matchrec.sql may hear Spark's own message first: at the clause)."""
    body = BODY.format(measure=measure, condition=condition)
    query, by_sql, by_function = refusals(spark, SOURCE, body)
    assert "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE" in by_sql.message
    assert by_sql.pos >= query.index("MEASURES")
    if not by_sql.message.startswith("Spark"):
        assert all(part in by_sql.message for part in says)
        assert query[by_sql.pos :].startswith(at)
    assert by_function.message.startswith("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] ")
    assert all(part in by_function.message for part in says)
    assert body[by_function.pos :].startswith(at)


def test_argument_types_spark_takes_run_alike_in_both_doors(spark):
    """Types Spark takes or casts (a string date, a DECIMAL of any precision, an array's
    element): computed, the same in both doors."""
    body = BODY.format(
        measure="add_months(FIRST(A.d), LAST(B.n)) AS a, "
        "date_add(CAST(FIRST(A.d) AS STRING), LAST(B.k)) AS b, "
        "array_contains(LAST(B.arr), FIRST(A.k) * 1) AS c, atan2(FIRST(A.n) * 1.5BD, 1) > 1",
        condition="array_join(transform(B.arr, x -> CAST(x AS STRING)), '-') <> PREV(B.s)",
    )
    literal = "'" + body.replace("'", "''") + "'"
    matchrec.register(spark)
    got = matchrec.sql(spark, f"SELECT * FROM {SOURCE} MATCH_RECOGNIZE ({body})").collect()
    tf = spark.sql(f"SELECT * FROM match_recognize(TABLE{SOURCE}, {literal})").collect()
    assert [tuple(r) for r in got] == [tuple(r) for r in tf]
    assert len(got) == 1 and got[0]["c"] is False


#: two-argument calls of one navigated value and a constant, as a measure
_CONSTANT_SECONDS = [
    "substr(LAST(B.s), 2)",
    "substring(A.s, 1)",
    "trim(B.s, 'y')",
    "decode(encode(B.s, 'UTF-8'), 'UTF-8')",
    "datediff(A.d, date'2024-01-01')",
    "left(B.s || A.s, 1)",
]


@pytest.mark.parametrize("measure", _CONSTANT_SECONDS)
def test_a_call_of_a_navigated_value_and_a_constant_is_sparks_value(spark, measure):
    """``substr(B.s, 2)`` in MEASURES: Spark's answer over the two rows, in both doors
    (matchrec.sql's type check used to look for the call by a position its lowered
    argument no longer had, and failed with a Python IndexError)."""
    body = (
        f"PARTITION BY p ORDER BY k MEASURES {measure} AS m "
        "AFTER MATCH SKIP TO NEXT ROW PATTERN (A B) DEFINE B AS true"
    )
    expected = spark.sql(
        f"SELECT {measure.replace('LAST(B.s)', 'B.s')} AS m FROM {SOURCE} A "
        f"JOIN {SOURCE} B ON A.p = B.p AND B.k = A.k + 1"
    ).collect()
    literal = "'" + body.replace("'", "''") + "'"
    matchrec.register(spark)
    got = matchrec.sql(spark, f"SELECT m FROM {SOURCE} MATCH_RECOGNIZE ({body})").collect()
    tf = spark.sql(f"SELECT m FROM match_recognize(TABLE{SOURCE}, {literal})").collect()
    assert [tuple(r) for r in got] == [tuple(r) for r in expected] == [tuple(r) for r in tf]
    assert len(got) == 1
