"""A matchrec error quoted in a Spark error, rebuilt as the error it was (pure Python),
and the pieces of the Spark Connect support that need no Spark."""

from __future__ import annotations

import pytest
from matchrec.grammar.query_scan import find_match_recognize
from matchrec.runtime.cli import parse_confs
from matchrec.runtime.cluster import shares_driver_python
from matchrec.runtime.tables import OptionError

from matchrec.carried import rebuild
from matchrec.errors import MatchRuntimeError, SemanticError, SqlSyntaxError

BODY = "\n  ORDER BY t\n  MEASURES LAST(Z.t) AS z\n  PATTERN (A B+)\n  DEFINE B AS s = 'it''s'"


def _rendered(cls, body: str, fragment: str, hint: str | None = "a hint") -> str:
    return cls("what went wrong", sql=body, pos=body.index(fragment), hint=hint).render()


def test_rebuilt_with_its_class_position_and_hint():
    err = rebuild(_rendered(SemanticError, BODY, "Z.t"))
    assert type(err) is SemanticError
    assert (err.message, err.line, err.column, err.hint) == ("what went wrong", 3, 17, "a hint")
    assert err.render() == _rendered(SemanticError, BODY, "Z.t")


def test_caret_moves_into_the_query_that_holds_the_body():
    literal = BODY.replace("'", "''")
    query = f"SELECT *\nFROM match_recognize(TABLE(t), '{literal}')"
    # each quote of the body is doubled in the query's string literal
    err = rebuild(_rendered(SqlSyntaxError, BODY, "s = "), query)
    assert type(err) is SqlSyntaxError
    assert err.sql == query
    assert (err.line, err.column) == (6, query.splitlines()[5].index("s = ") + 1)
    err = rebuild(_rendered(MatchRuntimeError, BODY, "Z.t", hint=None), query)
    assert (err.line, err.column, err.hint) == (4, 17, None)


def test_caret_moves_into_a_query_that_holds_the_clause_as_written():
    # matchrec.sql: the clause is in the query itself, its quotes single
    query = f"SELECT *\nFROM t MATCH_RECOGNIZE ({BODY})"
    err = rebuild(_rendered(MatchRuntimeError, BODY, "s = ", hint=None), query)
    assert err.sql == query
    assert (err.line, err.column) == (6, query.splitlines()[5].index("s = ") + 1)


def test_a_line_found_twice_in_the_query_keeps_the_body_position():
    query = f"SELECT * FROM match_recognize(TABLE(t), '{BODY}') JOIN x ON '{BODY}' = ''"
    err = rebuild(_rendered(SemanticError, BODY, "Z.t"), query.replace("'it''s'", "1"))
    assert (err.line, err.column) == (3, 17)


@pytest.mark.parametrize(
    "text", ["", "NameError: name 'x' is not defined", "spark error: something (line 1, column 2)"]
)
def test_other_text_is_not_rebuilt(text):
    assert rebuild(text) is None


def test_the_table_function_call_is_not_a_clause():
    query = (
        "SELECT * FROM match_recognize(TABLE(t), 'ORDER BY x PATTERN (A) DEFINE A AS true') "
        "JOIN u MATCH_RECOGNIZE (ORDER BY y PATTERN (B) DEFINE B AS true) AS m ON true"
    )
    (found,) = find_match_recognize(query)
    assert query[found.relation_start : found.relation_end] == "u"
    with pytest.raises(SqlSyntaxError, match="needs an input table"):
        find_match_recognize("SELECT * FROM MATCH_RECOGNIZE (ORDER BY y PATTERN (B))")


def test_conf_options():
    assert parse_confs(["spark.a=1", "spark.b = x=y", "spark.a=2"]) == {
        "spark.a": "2",
        "spark.b": "x=y",
    }
    for bad in ("spark.a", "=1", "spark a=1"):
        with pytest.raises(OptionError, match="--conf takes KEY=VALUE"):
            parse_confs([bad])


def test_which_worker_pythons_share_the_drivers(tmp_path):
    import sys
    from pathlib import Path

    here = Path(sys.executable)
    assert shares_driver_python(sys.executable)
    assert shares_driver_python(str(here.parent / "python3-or-any-name-in-that-folder"))
    assert not shares_driver_python(str(tmp_path / "python3"))
    assert not shares_driver_python(None)  # a Connect server's workers: not known here
