"""What a stream's checkpointed state records of its clause (pure Python): the same for
the same query however laid out or run, another for a clause that would read the old
state wrongly."""

from __future__ import annotations

import pytest
from matchrec.grammar import parse_clause
from matchrec.planner.clause_identity import clause_identity

BODY = (
    "PARTITION BY k ORDER BY ts MEASURES avg(B.price) AS a PATTERN (A B+) "
    "DEFINE B AS price < PREV(price) AND s = 'ABC'"
)


def identity(body: str, computed=(("__mr_c0", "price * 2"),), held: str = "struct<k:int>") -> str:
    return clause_identity(parse_clause(body), held, computed)


@pytest.mark.parametrize(
    "same",
    [
        BODY.replace("avg(B.price)", "max(B.price)"),  # a measure over the rows held
        BODY.replace("price < PREV(price)", "price<prev( price )  -- lower\n"),
        BODY.lower().replace("'abc'", "'ABC'"),
    ],
)
def test_the_same_clause_however_written(same):
    assert identity(same) == identity(BODY)


def test_names_made_up_for_each_run_do_not_count():
    """matchrec.sql names a DataFrame argument __matchrec_df_<uuid> anew on each call: a
    restart of the same query was refused as another query's."""
    first = BODY + " AND price < (SELECT max(p) FROM __matchrec_df_0123abcd)"
    again = BODY + " AND price < (SELECT max(p) FROM __matchrec_df_fedc9876)"
    assert identity(first) == identity(again)


@pytest.mark.parametrize(
    "other",
    [
        BODY.replace("PATTERN (A B+)", "PATTERN (A B{2,})"),
        BODY.replace("PARTITION BY k", "PARTITION BY j"),
        BODY.replace("s = 'ABC'", "s = ABC"),  # a column, not the string
        BODY.replace("AS a PATTERN", "AS a AFTER MATCH SKIP TO NEXT ROW PATTERN"),
    ],
)
def test_another_clause_is_another_identity(other):
    assert identity(other) != identity(BODY)


def test_a_value_computed_per_row_or_a_held_column_changed_is_another_identity():
    """FIRST(A.price * 2) changed to * 3 keeps the computed column's name and type: the
    held rows would give the old values."""
    assert identity(BODY, computed=(("__mr_c0", "price * 3"),)) != identity(BODY)
    assert identity(BODY, held="struct<k:int,x:int>") != identity(BODY)
