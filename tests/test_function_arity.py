"""Spark's WRONG_NUM_ARGS when the query is built (``planner/function_arity.py``).

The table of how many arguments each built-in takes is compared with Spark's own answers
(each function called with NULLs); a call with a count Spark refuses is a positioned
error in every door, the table function's row-local DEFINE included (it showed Spark's
raw error, with no caret, once Spark analysed its input); a call of Spark's own syntax
(``datediff(DAY, a, b)``, ``trim(BOTH 'x' FROM s)``, a type ``decimal(9, 2)``) plans.
"""

from __future__ import annotations

import pytest
from matchrec.planner.function_arity import SPARK_ARITIES, written_arguments
from test_errors import clause_body, clause_errors, planning_doors

import matchrec
from matchrec.errors import MatchRecognizeError

#: the counts each function is called with in the comparison with Spark: those where
#: the table's answer changes from the count before or after it (its boundaries)
_COUNTS = (0, 1, 2, 3, 4, 16)


def _boundary_probes() -> list[tuple[str, int, bool]]:
    """(function, count, whether the table takes it) at each boundary of each arity."""
    probes = []
    for name, arity in sorted(SPARK_ARITIES.items()):
        takes = [arity.takes(count) for count in _COUNTS]
        for i, count in enumerate(_COUNTS):
            near = takes[max(i - 1, 0) : i + 2]
            if any(t != takes[i] for t in near):
                probes.append((name, count, takes[i]))
    return probes


def _call(name: str, count: int) -> str:
    return f"{name}({', '.join(['NULL'] * count)})"


def _refused(spark, calls: list[str]) -> bool | None:
    """True if Spark refuses the SELECT of ``calls`` with WRONG_NUM_ARGS, False if it
    takes them all, None if it fails for another reason (a NULL it cannot type)."""
    try:
        _ = spark.sql(f"SELECT {', '.join(calls)}").schema
        return False
    except Exception as err:  # noqa: BLE001 - any other error is Spark's taking the count
        return True if str(err).startswith("[WRONG_NUM_ARGS") else None


def test_the_arity_table_is_sparks(spark):
    """Each boundary count the table refuses is Spark's WRONG_NUM_ARGS, each it takes is
    not. The counts it takes are asked of Spark fifty calls to a SELECT (one by one
    when that SELECT fails for another reason); each refusal needs a query of its own."""
    probes = _boundary_probes()
    wrong = [
        (n, c, "taken")
        for n, c, takes in probes
        if not takes and not _refused(spark, [_call(n, c)])
    ]
    taken = [(n, c) for n, c, takes in probes if takes]
    for at in range(0, len(taken), 50):
        chunk = taken[at : at + 50]
        if _refused(spark, [_call(n, c) for n, c in chunk]) is False:
            continue
        wrong += [(n, c, "refused") for n, c in chunk if _refused(spark, [_call(n, c)])]
    assert not wrong


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("f()", 0),
        ("f( )", 0),
        ("f(a)", 1),
        ("f('a,b', (1, 2), c)", 3),
        ("f(arr[1], x -> (x, 1), named_struct('a', 1))", 3),
        ("f(a, -- a comment, with a comma\n b)", 2),
        ("f(a, /* , */ b)", 2),
        ("f(`a,b`, 'it''s, here', \"x,\")", 3),
        ("f(*)", 1),
        ("f(DISTINCT a, b)", 2),
        ("f(x FROM y)", None),
        ("f('a' IN s)", None),
        ("f(a => 1)", None),
        ("f(a, b", None),
    ],
)
def test_written_arguments_are_counted_as_spark_reads_them(text, count):
    starts = written_arguments(text, text.index("("))
    assert (None if starts is None else len(starts)) == count


#: a wrong call in DEFINE or MEASURES, its function, and where the caret goes: at the
#: first argument too many, or at the call (too few); a count sqlglot's reader refuses
#: itself (``ascii(x, 1)``) is Spark's WRONG_NUM_ARGS the same way
WRONG_CALLS = [
    ("DEFINE B AS substr(B.value) = 'a'", "substr", "substr("),
    ("DEFINE B AS length(B.value, 2) > 1", "length", "2) > 1"),
    ("DEFINE B AS B.value > ascii(PREV(B.value), 1)", "ascii", "1)"),
    ("DEFINE B AS B.value > 1 AND nvl2(FIRST(A.value), 1) > 0", "nvl2", "nvl2("),
    ("MEASURES map(1, 2, LAST(B.value)) AS x DEFINE B AS true", "map", "map("),
    ("MEASURES elt(LAST(B.value)) AS x DEFINE B AS true", "elt", "elt("),
    ("MEASURES nvl(LAST(B.value), 1, 2) AS x DEFINE B AS true", "nvl", "2) AS x"),
]


@pytest.mark.parametrize(("clause", "name", "caret"), WRONG_CALLS)
def test_a_builtin_called_with_a_count_spark_refuses_is_positioned_in_every_door(
    clause, name, caret
):
    for door, err in clause_errors(clause_body(clause)).items():
        assert name.upper() in err.message.upper() and "argument" in err.message, (door, err)
        assert err.sql[err.pos :].startswith(caret), (door, str(err))


def test_a_count_spark_refuses_is_told_with_the_counts_it_takes():
    body = "ORDER BY id MEASURES map(1, 2, LAST(B.value)) AS x PATTERN (A B) DEFINE B AS true"
    with pytest.raises(MatchRecognizeError) as info:
        planning_doors(body)["plan"]()
    assert "[WRONG_NUM_ARGS] map() takes 0, 2, 4, 6, 8, 10, ... arguments, not 3" in str(info.value)


#: calls of Spark's own syntax, or type names written as calls, that must plan
SPARK_SYNTAX = [
    "datediff(DAY, FIRST(A.id), B.id) < 3",
    "date_add(DAY, 1, B.id) IS NULL OR true",
    "trim(BOTH 'x' FROM CAST(B.value AS STRING)) <> ''",
    "position('1' IN CAST(B.value AS STRING)) >= 0",
    "substring(CAST(B.value AS STRING) FROM 1 FOR 2) IS NOT NULL",
    "CAST(B.value AS decimal(9, 2)) > 0",
    "B.value :: decimal(9, 2) > 0",
    "size(CAST(array(B.value) AS ARRAY<decimal(9, 2)>)) = 1",
    "extract(YEAR FROM DATE '2024-01-01') = 2024",
    "EXISTS (SELECT 1) OR true",
    "count(*) FILTER (WHERE A.value > 0) >= 0",
]


@pytest.mark.parametrize("condition", SPARK_SYNTAX)
def test_spark_syntax_of_its_own_is_not_counted(condition):
    body = f"ORDER BY id MEASURES count(*) AS n PATTERN (A B) DEFINE B AS {condition}"
    for door, call in planning_doors(body).items():
        if door == "dynamic rule":
            continue
        try:
            call()
        except MatchRecognizeError as err:
            assert "WRONG_NUM_ARGS" not in err.message, (door, str(err))


def test_the_table_functions_row_local_define_says_where(spark):
    """Spark analysed the table function's row-local condition after ``analyze`` and
    raised its own WRONG_NUM_ARGS, with no caret in the body."""
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW mr_arity AS SELECT * FROM VALUES "
        "(1, 1, 'a'), (1, 2, 'b') AS v(k, o, s)"
    )
    matchrec.register(spark)
    body = (
        "PARTITION BY k ORDER BY o MEASURES count(*) AS n PATTERN (A B) DEFINE B AS substr(s) = 'b'"
    )
    with pytest.raises(MatchRecognizeError) as info:
        spark.sql(f'SELECT * FROM match_recognize(TABLE(mr_arity), "{body}")').collect()
    err = info.value
    assert "substr() takes 2 or 3 arguments, not 1" in err.message
    assert err.sql[err.pos :].startswith("substr(s)")
