"""Calls of other dialects' functions that sqlglot knows and Spark does not
(``planner/foreign_functions.py``): ``is_nan(x)`` ran as Spark's ``isnan``, where Spark
says UNRESOLVED_ROUTINE; now a positioned error in every door, with the Spark name meant."""

from __future__ import annotations

import pytest
from matchrec.grammar import parse_clause
from matchrec.planner.plan import plan_clause
from test_errors import clause_body, clause_errors, planning_doors

from matchrec.errors import MatchRecognizeError

#: (a condition with another dialect's function, the function, the Spark name hinted)
FOREIGN = [
    ("is_nan(B.value)", "is_nan", "isnan"),
    ("strpos(CAST(B.value AS STRING), '1') > 0", "strpos", None),
    ("array_length(array(B.value)) > 0", "array_length", None),
    ("json_extract_scalar(CAST(B.value AS STRING), '$.a') = '1'", "json_extract_scalar", None),
    ("B.value > 0 AND charindex('1', CAST(PREV(B.value) AS STRING)) > 0", "charindex", None),
]


@pytest.mark.parametrize(("condition", "name", "meant"), FOREIGN)
def test_another_dialects_function_is_unresolved_in_every_door(condition, name, meant):
    for clause in (f"DEFINE B AS {condition}", f"MEASURES {condition} AS x DEFINE B AS true"):
        for door, err in clause_errors(clause_body(clause)).items():
            assert "[UNRESOLVED_ROUTINE]" in err.message, (door, str(err))
            assert err.sql[err.pos :].startswith(f"{name}("), (door, str(err))
            if meant:
                assert f"did you mean {meant}()?" in (err.hint or ""), (door, str(err))


@pytest.mark.parametrize(
    "condition",
    [
        "timestampdiff(HOUR, FIRST(A.id), B.id) > 1 OR true",
        "datediff(DAY, FIRST(A.id), B.id) > 1 OR true",
        "len(CAST(B.value AS STRING)) > 0",
        "ifnull(B.value, 0) > nvl(PREV(B.value), 0)",
        "pow(B.value, 2) > power(PREV(B.value), 2)",
        "(B.value > 0 AND B.value < 9) OR startswith(CAST(B.value AS STRING), '1')",
        # keywords a parenthesised operand follows, around an aggregate or a navigation
        "B.value IS DISTINCT FROM (sum(A.value))",
        "B.value IS NOT DISTINCT FROM (PREV(B.value) + count(*))",
        "substring(CAST(B.value AS STRING) FROM (count(*)) FOR (count(*))) = '1'",
        "trim(BOTH '1' FROM (CAST(max(B.value) AS STRING))) = ''",
        "position('1' IN (CAST(max(B.value) AS STRING))) > 0",
        "overlay(CAST(B.value AS STRING) PLACING ('x') FROM (count(*))) <> ''",
        "max(B.value) DIV (count(*)) > 0",
        "B.value > (SELECT (max(v)) FROM (SELECT 1 AS v))",
    ],
)
def test_sparks_own_functions_are_not_foreign(condition):
    body = f"ORDER BY id MEASURES count(*) AS n PATTERN (A B) DEFINE B AS {condition}"
    for door, call in planning_doors(body).items():
        try:
            call()
        except MatchRecognizeError as err:
            assert "UNRESOLVED_ROUTINE" not in err.message, (door, str(err))


def test_a_session_function_of_that_name_is_not_refused():
    """A session function named like another dialect's (Spark resolves the session's)."""
    body = "ORDER BY id MEASURES count(*) AS n PATTERN (A B) DEFINE B AS is_nan(B.value)"

    def sql_functions(name: str):
        return None  # the session has a function of every name asked: not a SQL one

    plan_clause(parse_clause(body), ["id", "value"], sql_functions=sql_functions)
