"""Spark's refusal of a one-argument call's argument type when the query is built
(``planner/unary_types.py``): the table is Spark's own answer, and every door says it
with a caret at the argument (the table function used to compute the call)."""

from __future__ import annotations

import pytest
from doors import refusals
from matchrec.planner.unary_types import CODES, UNARY_REFUSALS
from matchrec.runtime.session import session_settings
from pyspark.errors import AnalysisException

import matchrec

#: the conditions the table keeps: of the argument's type, not of its NULL value
_KEPT = {
    "UNEXPECTED_INPUT_TYPE",
    "UNSUPPORTED_INPUT_TYPE",
    "TYPE_CHECK_FAILURE_WITH_HINT",
    "DATA_DIFF_TYPES",
}


def _spark_refusals(spark, name: str) -> dict[str, str]:
    """The types Spark refuses for ``name`` with one NULL argument, under both ANSI
    settings with the same kept condition: type name -> condition."""
    seen: dict[str, set[str | None]] = {}
    for ansi in ("true", "false"):
        with session_settings(spark, {"spark.sql.ansi.enabled": ansi}):
            for type_name in CODES.values():
                try:
                    spark.sql(f"SELECT {name}(CAST(NULL AS {type_name})) AS m")  # analysed
                    condition = None
                except AnalysisException as error:
                    condition = (error.getCondition() or "").partition(".")[2] or None
                seen.setdefault(type_name, set()).add(condition)
    return {t: next(iter(c)) for t, c in seen.items() if len(c) == 1 and c <= _KEPT}


#: every fourth function of the table (the whole table takes Spark minutes to read)
SAMPLE = sorted(UNARY_REFUSALS)[::4]


def test_the_table_is_sparks_answer(spark):
    differ = {}
    for name in SAMPLE:
        want = _spark_refusals(spark, name)
        if UNARY_REFUSALS[name] != want:
            differ[name] = (UNARY_REFUSALS[name], want)
    assert differ == {}


BODY = "PARTITION BY p ORDER BY k MEASURES {measure} AS m PATTERN (A B+) DEFINE B AS {condition}"
SOURCE = (
    "(SELECT * FROM VALUES (1, 1, true, 4, array(1)), (1, 2, false, 5, array(2)) "
    "AS u(p, k, flag, n, arr))"
)


@pytest.mark.parametrize(
    ("measure", "condition", "at", "says"),
    [
        ("count(*)", "abs(A.flag) > 0", "A.flag", "abs() cannot take A.flag (BOOLEAN) in DEFINE"),
        ("size(FIRST(A.n))", "true", "FIRST(A.n)", "size() cannot take FIRST(A.n) (INT)"),
        ("count(*)", "upper(PREV(arr)) = 'X'", "PREV(arr)", "upper() cannot take PREV(arr)"),
        # the table function computes sort_array(B.n) of the last row: its caret at B.n
        ("sort_array(LAST(B.n))", "true", ("LAST(B.n)", "B.n"), "sort_array() cannot take"),
    ],
)
def test_an_argument_type_spark_refuses_is_its_error_in_every_door(
    spark, measure, condition, at, says
):
    """Both doors stop before any job with Spark's condition, the caret under the
    argument (matchrec.sql has Spark analyse a row-local condition first: its message,
    at the condition)."""
    body = BODY.format(measure=measure, condition=condition)
    query, by_sql, by_function = refusals(spark, SOURCE, body)
    assert "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE" in by_sql.message
    assert by_sql.pos >= query.index("MEASURES")
    if not by_sql.message.startswith("Spark"):
        assert says in by_sql.message
        assert query[by_sql.pos :].startswith(at)  # a str or a tuple of them
    assert by_function.message.startswith("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] ")
    assert says in by_function.message
    assert body[by_function.pos :].startswith(at)


def test_an_argument_type_spark_takes_runs_in_both_doors(spark):
    """A string Spark casts (``abs('4')``), a DECIMAL of any precision: not refused."""
    body = BODY.format(
        measure="abs(CAST(FIRST(A.n) AS STRING)) AS s, size(LAST(B.arr))",
        condition="abs(B.n * 1.5BD) > 0",
    )
    literal = "'" + body.replace("'", "''") + "'"
    matchrec.register(spark)
    got = matchrec.sql(spark, f"SELECT * FROM {SOURCE} MATCH_RECOGNIZE ({body})").collect()
    tf = spark.sql(f"SELECT * FROM match_recognize(TABLE{SOURCE}, {literal})").collect()
    assert [tuple(r) for r in got] == [tuple(r) for r in tf] == [(1, 4.0, 1)]


def test_a_case_whose_condition_is_a_call_is_no_call_of_one_argument(spark):
    """sqlglot places ``CASE WHEN bool_and(...)``'s branch on its condition: the branch is
    not taken for a call of ``bool_and`` (whose argument would be the condition)."""
    body = BODY.format(
        measure="datediff(min(d), CASE WHEN bool_and(B.flag) THEN min(d) ELSE max(B.d) END)",
        condition="CASE WHEN bool_or(B.flag) THEN true ELSE B.n > 0 END",
    )
    source = SOURCE.replace("(SELECT *", "(SELECT *, make_date(2024, 1, n) AS d")
    literal = "'" + body.replace("'", "''") + "'"
    matchrec.register(spark)
    got = matchrec.sql(spark, f"SELECT * FROM {source} MATCH_RECOGNIZE ({body})").collect()
    tf = spark.sql(f"SELECT * FROM match_recognize(TABLE{source}, {literal})").collect()
    assert [tuple(r) for r in got] == [tuple(r) for r in tf] == [(1, -1)]
