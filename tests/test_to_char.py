"""``to_char``/``to_varchar`` of a DATE, a TIMESTAMP or a BINARY over values of several rows.

Spark picks what ``to_char`` does by its argument's type: a datetime is written with a
datetime pattern in the session time zone, a BINARY in a binary format. The glue that
computes a call over values of several rows (DEFINE in both doors, the table function's
MEASURES, rules) wrote numbers only. Each case runs in UTC and in New York across the
clock change of 2024-03-10, against what Spark computes itself.
"""

from __future__ import annotations

import pytest
from doors import DOORS, rows_through
from matchrec.planner.char_formats import to_char_of
from matchrec.planner.format_functions import UNKNOWN_PROBE
from matchrec.runtime.session import session_settings

import matchrec

VIEW = "mr_to_char"
ROWS = (
    "SELECT 'k' AS k, id AS o, timestamp'2024-03-10 04:30:00' + make_interval(0, 0, 0, 0, "
    "int(id), 0, 0) AS ts, CAST('v' || id AS BINARY) AS b, id * 1.25D AS x FROM range(1, 8)"
)
ZONES = ["UTC", "America/New_York"]
#: the match is the whole partition (B AS true), so an aggregate over B is the group's
#: over rows 2..7 and Spark's GROUP BY gives the value to expect
MEASURES = {
    "to_char(max(B.ts), 'yyyy-MM-dd HH:mm')": "to_char(max(ts), 'yyyy-MM-dd HH:mm')",
    "to_varchar(min(B.ts), 'EEE d MMM h a')": "to_varchar(min_by(ts, o) FILTER (WHERE o > 1), "
    "'EEE d MMM h a')",
    "to_char(CAST(max(B.ts) AS DATE), 'dd/MM/yy')": "to_char(CAST(max(ts) AS DATE), 'dd/MM/yy')",
    "to_char(max(B.b), 'hex') || to_char(min(B.b), 'base64') || to_char(max(B.b), 'utf-8')": (
        "to_char(max(b), 'hex') || to_char(min(b) FILTER (WHERE o > 1), 'base64') "
        "|| to_char(max(b), 'utf-8')"
    ),
    # a DOUBLE or FLOAT: Spark formats its DECIMAL(30, 15)
    "to_char(max(B.x) / 3, '999.9999')": "to_char(max(x) / 3, '999.9999')",
    "to_char(CAST(sum(B.x) AS FLOAT), '0000.00')": (
        "to_char(CAST(sum(x) FILTER (WHERE o > 1) AS FLOAT), '0000.00')"
    ),
}


@pytest.fixture(scope="module")
def spark_view(spark):
    spark.sql(ROWS).createOrReplaceTempView(VIEW)
    matchrec.register(spark)
    return spark


def _through(spark, door: str, body: str) -> list[tuple]:
    return rows_through(spark, door, VIEW, body)


@pytest.mark.parametrize("zone", ZONES)
@pytest.mark.parametrize("measure", list(MEASURES))
def test_the_table_functions_to_char_of_several_rows_is_sparks(spark_view, measure, zone):
    body = (
        f"PARTITION BY k ORDER BY o MEASURES {measure} AS m ONE ROW PER MATCH "
        "PATTERN (A B+) DEFINE B AS true"
    )
    with session_settings(spark_view, {"spark.sql.session.timeZone": zone}):
        expected = [
            tuple(r)
            for r in spark_view.sql(
                f"SELECT k, {MEASURES[measure]} AS m FROM {VIEW} GROUP BY k"
            ).collect()
        ]
        assert _through(spark_view, "table function", body) == expected
        assert _through(spark_view, "matchrec.sql", body) == expected


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize("zone", ZONES)
def test_a_condition_may_format_an_aggregate_of_the_match(spark_view, door, zone):
    """B rows while their local day is the day of A's: formatted by to_char of the
    match's max (the current row's time, as times increase), or plainly by to_date."""
    body = (
        "PARTITION BY k ORDER BY o MEASURES FIRST(A.o) AS a, LAST(B.o) AS z ONE ROW PER "
        "MATCH PATTERN (A B+) DEFINE B AS {}"
    )
    formatted = "to_char(max(B.ts), 'yyyy-MM-dd HH') < concat(to_char(A.ts, 'yyyy-MM-dd'), ' 07')"
    plain = "date_format(B.ts, 'yyyy-MM-dd HH') < concat(date_format(A.ts, 'yyyy-MM-dd'), ' 07')"
    with session_settings(spark_view, {"spark.sql.session.timeZone": zone}):
        expected = _through(spark_view, "matchrec.sql", body.format(plain))
        assert expected
        assert _through(spark_view, door, body.format(formatted)) == expected


def test_a_rules_base64_of_a_long_binary_is_refused_where_line_breaks_are_unknown():
    """A rule has no session to tell whether base64 breaks lines: one line (57 bytes or
    fewer) is the same either way; a longer value is an error, never a guess."""
    assert to_char_of(b"x" * 57, "UTC", UNKNOWN_PROBE, "base64") == "eHh4" * 19
    with pytest.raises(TypeError, match="spark.sql.chunkBase64String.enabled"):
        to_char_of(b"x" * 58, "UTC", UNKNOWN_PROBE, "base64")
