"""A part of DEFINE that can fail runs only on the rows whose condition reaches it.

Spark evaluates IF, CASE, COALESCE, AND and OR lazily: under ANSI mode
``CASE WHEN A.id = 99 THEN CAST(s AS INT) > 0 ELSE true END`` never casts a row's ``s``
when no A row has id 99. matchrec computed the row-local ``CAST(s AS INT)`` as a Spark
column on every row, and the job failed on the first text that is not a number. The same
held for ``to_date(s)``, a subscript past an array's end, ``raise_error`` and a
row-local division after a match-dependent conjunct (``A.id = 99 AND 10 / (id - 2) > 0``).
"""

from __future__ import annotations

import pytest
from doors import DOORS, rows_through
from pyspark.errors import SparkRuntimeException

import matchrec
from matchrec.errors import MatchRuntimeError

#: a view whose second row's text is no number and no date
ROWS = "SELECT * FROM VALUES (1, '3'), (2, 'x'), (3, '9'), (4, '7') AS mr_lazy(id, s)"

#: (condition of B, the same with its failing part replaced by one that never fails):
#: the failing part is never reached, so both give the same matches
NEVER_REACHED = {
    "CAST in CASE": (
        "CASE WHEN A.id = 99 THEN CAST(s AS INT) > 0 ELSE true END",
        "CASE WHEN A.id = 99 THEN TRY_CAST(s AS INT) > 0 ELSE true END",
    ),
    ":: in a later WHEN": (
        "CASE WHEN A.id = 1 THEN id < 4 WHEN s::int > 0 THEN true ELSE false END",
        "CASE WHEN A.id = 1 THEN id < 4 WHEN TRY_CAST(s AS INT) > 0 THEN true ELSE false END",
    ),
    "to_date in IF": (
        "IF(A.id = 99, to_date(s) > DATE'2020-01-01', id > 1)",
        "IF(A.id = 99, TRY_CAST(s AS DATE) > DATE'2020-01-01', id > 1)",
    ),
    "subscript in CASE": (
        "CASE WHEN A.id = 99 THEN array(1, 2)[id] > 0 ELSE true END",
        "CASE WHEN A.id = 99 THEN get(array(1, 2), id) > 0 ELSE true END",
    ),
    "raise_error in CASE": (
        "CASE WHEN count(B.id) > 5 THEN raise_error(concat('too long at ', s)) ELSE true END",
        "CASE WHEN count(B.id) > 5 THEN NULL ELSE true END",
    ),
    "CAST in COALESCE": (
        "coalesce(FIRST(A.id), CAST(s AS INT)) > 0",
        "coalesce(FIRST(A.id), TRY_CAST(s AS INT)) > 0",
    ),
    "CAST after a match-dependent conjunct": (
        "A.id = 1 AND id > 2 AND CAST(s AS INT) > 0 OR A.id > 1",
        "A.id = 1 AND id > 2 AND TRY_CAST(s AS INT) > 0 OR A.id > 1",
    ),
    "CAST in nvl2": (
        "nvl2(A.id, id > 1, CAST(s AS INT) > 0)",
        "nvl2(A.id, id > 1, TRY_CAST(s AS INT) > 0)",
    ),
    "integer overflow in CASE": (
        "CASE WHEN A.id = 99 THEN id * 2147483647 > 0 ELSE true END",
        "CASE WHEN A.id = 99 THEN try_multiply(id, 2147483647) > 0 ELSE true END",
    ),
    "division after a match-dependent conjunct": (
        "A.id > 1 AND 10 / (id - 2) > 0",
        "A.id > 1 AND try_divide(10, id - 2) > 0",
    ),
}


#: (clause body, the same with the failing part replaced): an aggregate's or a
#: navigation's argument that can fail is computed only at the rows it reads (B's, or
#: the row PREV lands on), never by Spark on every row
READ_ROWS_ONLY = {
    "sum in MEASURES": (
        "ORDER BY id MEASURES sum(CAST(B.s AS INT)) AS v PATTERN (A B+) DEFINE B AS A.id = 3",
        "ORDER BY id MEASURES sum(TRY_CAST(B.s AS INT)) AS v PATTERN (A B+) DEFINE B AS A.id = 3",
    ),
    "LAST in DEFINE": (
        "ORDER BY id MEASURES FIRST(A.id) AS a PATTERN (A B+) "
        "DEFINE B AS A.id = 3 AND LAST(CAST(B.s AS INT), 1) IS NULL",
        "ORDER BY id MEASURES FIRST(A.id) AS a PATTERN (A B+) "
        "DEFINE B AS A.id = 3 AND LAST(TRY_CAST(B.s AS INT), 1) IS NULL",
    ),
    "running sum in DEFINE, MATCH_NUMBER in MEASURES": (
        "ORDER BY id MEASURES LAST(CAST(B.s AS INT) * MATCH_NUMBER()) AS l PATTERN (A B+) "
        "DEFINE B AS A.id = 3 AND sum(CAST(B.s AS INT)) > 0",
        "ORDER BY id MEASURES LAST(TRY_CAST(B.s AS INT) * MATCH_NUMBER()) AS l "
        "PATTERN (A B+) DEFINE B AS A.id = 3 AND sum(TRY_CAST(B.s AS INT)) > 0",
    ),
    "PREV in DEFINE": (
        "ORDER BY id MEASURES FIRST(A.id) AS a PATTERN (A B+) "
        "DEFINE B AS A.id = 3 AND PREV(CAST(s AS INT)) > 0",
        "ORDER BY id MEASURES FIRST(A.id) AS a PATTERN (A B+) "
        "DEFINE B AS A.id = 3 AND PREV(TRY_CAST(s AS INT)) > 0",
    ),
}


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize("case", list(READ_ROWS_ONLY))
def test_a_failing_argument_is_computed_only_at_the_rows_read(spark, door, case):
    _same_rows(spark, door, *READ_ROWS_ONLY[case])


def _same_rows(spark, door: str, body: str, never_failing: str) -> None:
    """``body`` gives the rows of its twin that never fails, which match some rows."""
    matchrec.register(spark)
    spark.sql(ROWS).createOrReplaceTempView("mr_lazy")
    expected = rows_through(spark, door, "mr_lazy", never_failing)
    assert expected, "the case should match some rows"
    assert rows_through(spark, door, "mr_lazy", body) == expected


def _body(condition: str) -> str:
    return (
        "ORDER BY id MEASURES FIRST(A.id) AS a, LAST(B.id) AS b, count(*) AS n "
        f"ONE ROW PER MATCH PATTERN (A B+) DEFINE B AS {condition}"
    )


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize("case", list(NEVER_REACHED))
def test_a_failing_part_no_row_reaches_is_never_computed(spark, door, case):
    condition, never_failing = NEVER_REACHED[case]
    _same_rows(spark, door, _body(condition), _body(never_failing))


@pytest.mark.parametrize("door", DOORS)
def test_element_at_zero_no_row_reaches_is_never_computed_without_ansi(spark, ansi_off, door):
    """``element_at(arr, 0)`` fails with or without ANSI mode (INVALID_INDEX_OF_ZERO)."""
    matchrec.register(spark)
    spark.sql(ROWS).createOrReplaceTempView("mr_lazy")
    condition = "CASE WHEN A.id = 99 THEN element_at(array(1, 2), id - 2) > 0 ELSE true END"
    expected = rows_through(spark, door, "mr_lazy", _body("true"))
    assert rows_through(spark, door, "mr_lazy", _body(condition)) == expected


#: (condition of B whose failing part the second row reaches, where the caret is, words)
REACHED = {
    "CAST": (
        "CASE WHEN A.id = 1 THEN CAST(s AS INT) > 0 ELSE true END",
        "CAST(s AS INT)",
        "CAST_INVALID_INPUT",
    ),
    "raise_error": (
        "CASE WHEN A.id = 1 THEN raise_error(concat('bad ', s)) ELSE true END",
        "raise_error(",
        "[USER_RAISED_EXCEPTION] bad x",
    ),
    "division": ("A.id = 1 AND 10 / (id - 2) > 0", "/ (id", "[DIVIDE_BY_ZERO]"),
}


@pytest.mark.parametrize("case", list(REACHED))
def test_a_failing_part_a_row_reaches_fails_at_that_part(spark, case):
    spark.sql(ROWS).createOrReplaceTempView("mr_lazy")
    condition, caret, words = REACHED[case]
    query = f"SELECT * FROM mr_lazy MATCH_RECOGNIZE ({_body(condition)})"
    with pytest.raises(MatchRuntimeError) as info:
        matchrec.sql(spark, query).collect()
    err = info.value
    assert words in err.message
    assert err.sql == query and err.sql[err.pos :].startswith(caret)


def test_raise_error_of_the_glue_is_sparks_class_and_condition(spark):
    """As Spark's own ``raise_error``: a SparkRuntimeException, USER_RAISED_EXCEPTION,
    SQLSTATE P0001, ``null`` for a NULL message."""
    spark.sql(ROWS).createOrReplaceTempView("mr_lazy")
    condition = "CASE WHEN A.id = 1 THEN raise_error(NULL) ELSE true END"
    query = f"SELECT * FROM mr_lazy MATCH_RECOGNIZE ({_body(condition)})"
    with pytest.raises(SparkRuntimeException) as info:
        matchrec.sql(spark, query).collect()
    with pytest.raises(SparkRuntimeException) as by_spark:
        spark.sql("SELECT raise_error(NULL)").collect()
    assert isinstance(info.value, MatchRuntimeError)
    assert info.value.getCondition() == by_spark.value.getCondition()
    assert info.value.getSqlState() == by_spark.value.getSqlState()
    assert "[USER_RAISED_EXCEPTION] null" in info.value.message


def test_a_cast_spark_never_allows_in_a_branch_is_refused_at_the_cast(spark):
    spark.sql(ROWS).createOrReplaceTempView("mr_lazy")
    condition = "CASE WHEN A.id = 99 THEN CAST(id AS DATE) IS NULL ELSE true END"
    query = f"SELECT * FROM mr_lazy MATCH_RECOGNIZE ({_body(condition)})"
    with pytest.raises(matchrec.SemanticError) as info:
        matchrec.sql(spark, query)
    assert "CAST_WITH_FUNC_SUGGESTION" in info.value.message
    assert query[info.value.pos :].startswith("CAST(id AS DATE)")


@pytest.mark.parametrize("door", DOORS)
def test_raise_error_in_a_measure_runs_through_every_door(spark, door):
    """The table function knows ``raise_error``'s type (NULL, as Spark's VOID), so a
    measure with it in a branch runs; the branch taken fails at the call."""
    matchrec.register(spark)
    spark.sql(ROWS).createOrReplaceTempView("mr_lazy")
    measure = "CASE WHEN count(*) > {n} THEN raise_error(concat('long at ', LAST(s))) END"
    body = "ORDER BY id MEASURES {m} AS e, count(*) AS n PATTERN (A B+) DEFINE B AS true"
    quiet = body.format(m=measure.format(n=9))
    assert rows_through(spark, door, "mr_lazy", quiet) == [(None, 4)]
    failing = body.format(m=measure.format(n=3))
    with pytest.raises(MatchRuntimeError) as info:
        rows_through(spark, door, "mr_lazy", failing)
    assert "[USER_RAISED_EXCEPTION] long at 7" in info.value.message
    assert info.value.getCondition() == "USER_RAISED_EXCEPTION"
    where = info.value.sql[info.value.pos :]
    assert where.startswith("raise_error(")
