"""``decode`` without a default has Spark's type: its NULL default is a STRING.

Spark brings a ``decode``'s results together with its default, which is a STRING NULL
where none is written: ``decode(n, 3, x)`` of a DOUBLE ``x`` is a STRING without ANSI
mode, and ``decode(n, 3, n, 4, n)`` of an INT is a BIGINT under it. The table function
typed them as the results alone (DOUBLE, INT), so it declared another type than Spark's
(helper-143 finding 4). Each type and value here is Spark's, over a join of the rows.
"""

from __future__ import annotations

import pytest
from doors import DOORS

import matchrec
from matchrec.errors import MatchRecognizeError

VIEW = "mr_decode"
ROWS = "SELECT * FROM VALUES (1, 3, 1.5D), (2, 5, 2.5D), (3, 5, 0.25D) AS t(id, n, x)"
CALLS = ["decode(B.n, A.n + 2, A.x)", "decode(B.n, 5, B.n, 4, A.n)", "decode(A.n, 3, B.x, 0.5D)"]


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize("call", CALLS)
def test_decode_has_sparks_type(spark, call, door, either_ansi):
    matchrec.register(spark)
    spark.sql(ROWS).createOrReplaceTempView(VIEW)
    joined = call.replace("A.", "a.").replace("B.", "b.")
    want = spark.sql(
        f"SELECT a.id AS a, {joined} AS m FROM {VIEW} a JOIN {VIEW} b ON b.id = a.id + 1"
    )
    body = (
        f"ORDER BY id MEASURES A.id AS a, {call} AS m AFTER MATCH SKIP TO NEXT ROW "
        "PATTERN (A B) DEFINE B AS true"
    )
    if door == "matchrec.sql":
        got = matchrec.sql(spark, f"SELECT * FROM {VIEW} MATCH_RECOGNIZE ({body})")
    else:
        quoted = body.replace("'", "''")
        got = spark.sql(f"SELECT * FROM match_recognize(TABLE({VIEW}), '{quoted}')")
    wanted_type = want.schema["m"].dataType
    try:
        rows = sorted(tuple(r) for r in got.collect())
    except MatchRecognizeError as err:
        # the table function declares the types ANSI mode gives: it says so
        assert door == "table function" and either_ansi == "false"
        assert "spark.sql.ansi.enabled=false" in err.message
        assert wanted_type.simpleString().upper() in err.message
        return
    assert got.schema["m"].dataType == wanted_type
    assert rows == sorted(tuple(r) for r in want.collect())
