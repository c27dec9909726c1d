"""A string literal compared with a value of several rows in DEFINE, as Spark compares it.

Spark casts a string literal compared with a DATE, a TIMESTAMP or a number to the other
side's type (under ANSI mode a number's is BIGINT or DOUBLE, a DECIMAL beside a string
is compared as a DOUBLE), so ``max(B.d) < '2024-03-10'`` compares dates. DEFINE's glue,
which evaluates a condition over several rows, refused any string beside another type
("without Spark's implicit casts"), literal or not. Each condition here means the same
as the one with the literal written in its type, which the glue always ran: both doors
must match the same rows with either. A literal that does not convert is an error at
the literal when the query is built, as Spark's is when it analyses the query.
"""

from __future__ import annotations

import pytest
from doors import DOORS, rows_through
from matchrec.runtime.session import session_settings

import matchrec
from matchrec.errors import MatchRecognizeError

VIEW = "mr_literal_comparisons"
ROWS = (
    "SELECT id AS t, date_add(DATE'2024-03-01', CAST(id % 4 * 4 AS INT)) AS d, "
    "TIMESTAMP'2024-03-09 23:00:00' + make_interval(0, 0, 0, 0, CAST(id % 4 AS INT)) AS ts, "
    "CAST(id % 4 + 1 AS INT) AS i, CAST(id % 4 * 0.75 AS DECIMAL(6, 2)) AS dec, "
    "id % 4 / 4 AS dbl FROM range(1, 17)"
)

#: a condition of B with a string literal -> the same with the literal in its type
CONDITIONS = {
    "max(B.d) < '2024-03-10'": "max(B.d) < DATE'2024-03-10'",
    "max(B.ts) <= '2024-03-10 01:00'": "max(B.ts) <= TIMESTAMP'2024-03-10 01:00:00'",
    "sum(B.i) < '6'": "sum(B.i) < 6",
    "'3' > count(B.*)": "3 > count(B.*)",
    "avg(B.dec) < '1.6'": "CAST(avg(B.dec) AS DOUBLE) < 1.6D",
    "A.i + B.i IN ('3', '4', '5')": "A.i + B.i IN (3, 4, 5)",
    "max(B.d) BETWEEN '2024-03-02' AND '2024-03-10'": (
        "max(B.d) BETWEEN DATE'2024-03-02' AND DATE'2024-03-10'"
    ),
    "NOT (sum(B.dbl) <=> '1.5')": "NOT (sum(B.dbl) <=> 1.5D)",
    # (was TRUE for every row: IS DISTINCT FROM compared a DATE with a string)
    "max(B.d) IS DISTINCT FROM '2024-03-13'": "max(B.d) IS DISTINCT FROM DATE'2024-03-13'",
}


@pytest.fixture(scope="module")
def spark_view(spark):
    spark.sql(ROWS).createOrReplaceTempView(VIEW)
    matchrec.register(spark)
    return spark


def _body(condition: str) -> str:
    return (
        "ORDER BY t MEASURES FIRST(A.t) AS a, LAST(B.t) AS b, count(*) AS n "
        f"ONE ROW PER MATCH PATTERN (A B+) DEFINE B AS {condition}"
    )


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize("condition", list(CONDITIONS))
def test_a_string_literal_is_compared_in_the_other_values_type(spark_view, door, condition):
    expected = rows_through(spark_view, "matchrec.sql", VIEW, _body(CONDITIONS[condition]))
    assert len(expected) > 1, "the typed condition should match several times"
    assert rows_through(spark_view, door, VIEW, _body(condition)) == expected


def test_without_ansi_mode_the_literal_takes_the_other_values_type(spark_view):
    """Without ANSI mode Spark casts the literal to the other side's own type (an INT
    here), where '4.0' is 4."""
    with session_settings(spark_view, {"spark.sql.ansi.enabled": "false"}):
        got = rows_through(spark_view, "matchrec.sql", VIEW, _body("max(B.i) <> '4.0'"))
        expected = rows_through(spark_view, "matchrec.sql", VIEW, _body("max(B.i) <> 4"))
    assert len(expected) > 1
    assert got == expected


@pytest.mark.parametrize(
    ("condition", "literal", "type_name"),
    [("max(B.i) = '4.5'", "'4.5'", "BIGINT"), ("max(B.d) > 'soon'", "'soon'", "DATE")],
)
@pytest.mark.parametrize("door", DOORS)
def test_a_literal_that_does_not_convert_is_an_error_at_it(
    spark_view, door, condition, literal, type_name
):
    with pytest.raises(MatchRecognizeError) as info:
        rows_through(spark_view, door, VIEW, _body(condition))
    err = info.value
    assert f"as a {type_name} here" in err.message
    assert err.sql[err.pos :].startswith(literal)
