"""An uncaught matchrec error shows its message and caret, not the planner's frames; other
exceptions reach the hook installed before ours unchanged."""

from __future__ import annotations

import pickle
import subprocess
import sys
import textwrap

import pytest
from matchrec.grammar import parse_clause

import matchrec
from matchrec.errors import MatchRecognizeError, SqlSyntaxError
from matchrec.excepthook import carried_error, make_hook

BODY = "ORDER BY id\nPATTERN (A B+\nDEFINE B AS true"


def _raised(action) -> BaseException:
    try:
        action()
    except BaseException as exc:  # noqa: BLE001 - the test inspects what was raised
        return exc
    raise AssertionError("nothing was raised")


def test_a_script_ending_on_a_matchrec_error_prints_message_and_caret():
    script = textwrap.dedent(
        f"""
        import matchrec
        from matchrec.grammar import parse_clause
        parse_clause({BODY!r})
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 1
    err = done.stderr
    expected = str(_raised(lambda: parse_clause(BODY)))
    assert err.rstrip().endswith(f"SqlSyntaxError: {expected}")
    assert "line 2" in err and "^" in err
    assert "grammar" not in err and "lark" not in err  # no parser frames
    assert err.count("\n") <= 4 + expected.count("\n")


def test_the_hook_hands_other_exceptions_to_the_previous_one(capsys):
    seen = []
    hook = make_hook(lambda *args: seen.append(args))
    exc = _raised(lambda: 1 / 0)
    hook(type(exc), exc, exc.__traceback__)
    assert seen == [(ZeroDivisionError, exc, exc.__traceback__)]
    assert capsys.readouterr().err == ""


def test_the_hook_shows_the_users_frames_and_the_message(capsys):
    hook = make_hook(lambda *args: pytest.fail("a matchrec error went to the previous hook"))
    exc = _raised(lambda: parse_clause(BODY))
    hook(type(exc), exc, exc.__traceback__)
    err = capsys.readouterr().err
    assert "test_excepthook.py" in err  # the caller's frame stays
    assert "parser.py" not in err and "to_ast" not in err
    assert err.rstrip().endswith(str(exc))


def test_importing_twice_wraps_once():
    before = sys.excepthook
    matchrec.excepthook.install()
    assert sys.excepthook is before
    assert getattr(sys.excepthook, "matchrec_previous", None) is not None


def test_a_table_function_error_shows_the_matchrec_message_first(spark, capsys):
    from pyspark.errors import AnalysisException

    matchrec.register(spark)
    spark.createDataFrame([(1, 2.0)], "id INT, price DOUBLE").createOrReplaceTempView("hook_t")
    query = (
        "SELECT * FROM match_recognize(TABLE(hook_t), '\n  ORDER BY id ALL ROWS PER MATCH\n"
        "  PATTERN (A B+)\n"
        "  DEFINE B AS price < PREV(pricex)')"
    )
    exc = _raised(lambda: spark.sql(query).collect())
    assert isinstance(exc, AnalysisException)
    message = carried_error(exc)
    assert message is not None
    column = query.splitlines()[3].index("pricex") + 1
    assert message.startswith(
        f"semantic error: Column 'pricex' cannot be resolved (line 4, column {column})"
    )
    assert message.splitlines()[1].endswith("DEFINE B AS price < PREV(pricex)")
    assert "SQLSTATE" not in message
    make_hook(lambda *a: None)(type(exc), exc, exc.__traceback__)
    err = capsys.readouterr().err
    assert err.index("semantic error") < err.index("AnalysisException")
    assert "TABLE_VALUED_FUNCTION_FAILED_TO_ANALYZE_IN_PYTHON" not in err


def test_matchrec_errors_are_carried_as_themselves():
    exc = _raised(lambda: parse_clause(BODY))
    assert isinstance(exc, SqlSyntaxError) and isinstance(exc, MatchRecognizeError)
    assert carried_error(exc) == str(exc)
    assert carried_error(ValueError("matchrec.errors.SemanticError: not ours")) is None


@pytest.mark.parametrize(
    ("body", "cls", "spark_class", "condition"),
    [
        (
            "ORDER BY id PATTERN (A) DEFINE A AS pricex > 1",
            "SemanticError",
            "AnalysisException",
            None,
        ),
        ("ORDER BY id PATTERN (A DEFINE A AS true", "SqlSyntaxError", "ParseException", None),
        (
            "ORDER BY id PATTERN (A) DEFINE A AS strpos('ab', 'b') > 1",
            "SemanticError",
            "AnalysisException",
            "UNRESOLVED_ROUTINE",
        ),
    ],
)
def test_a_fault_of_the_query_is_pysparks_error_of_it_through_every_door(
    spark, capsys, body, cls, spark_class, condition
):
    """``except AnalysisException`` caught the table function's errors only: matchrec.sql
    and match_recognize raised matchrec's classes alone. Each is both now; the message and
    caret are matchrec's, and the short report does not say Spark reported it."""
    from pyspark import errors

    matchrec.register(spark)
    df = spark.createDataFrame([(1, 2.0)], "id INT, price DOUBLE")
    df.createOrReplaceTempView("hook_doors")
    query = f"SELECT * FROM hook_doors MATCH_RECOGNIZE ({body})"
    for door, action in [
        ("matchrec.sql", lambda: matchrec.sql(spark, query)),
        ("match_recognize", lambda: matchrec.match_recognize(df, body)),
    ]:
        exc = _raised(action)
        assert type(exc).__name__ == cls and isinstance(exc, MatchRecognizeError), door
        assert isinstance(exc, getattr(errors, spark_class)), door
        assert exc.getCondition() == condition, door
        assert str(exc).startswith(("semantic error: ", "syntax error: ")), door
        make_hook(lambda *a: None)(type(exc), exc, exc.__traceback__)
        assert "Spark reported it" not in capsys.readouterr().err, door
        again = pickle.loads(pickle.dumps(exc))  # a process pool hands errors back so
        assert type(again).__name__ == cls and isinstance(again, getattr(errors, spark_class))
        assert str(again) == str(exc), door
    literal = body.replace("'", "''")
    tf = _raised(
        lambda: spark.sql(f"SELECT * FROM match_recognize(TABLE(hook_doors), '{literal}')")
    )
    assert type(tf).__name__ == cls and isinstance(tf, errors.AnalysisException)
