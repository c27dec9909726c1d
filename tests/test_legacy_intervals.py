"""Spark's legacy intervals (``spark.sql.legacy.interval.enabled=true``) never give
another value through matchrec.

Under that setting Spark computes ``ts - ts``, an INTERVAL literal or ``k * INTERVAL '1'
DAY`` as a CALENDAR INTERVAL, with its own text (``1477 hours 45 minutes 30 seconds``)
and rules. matchrec's own evaluation computes ANSI intervals: DEFINE's glue wrote ANSI
text or raised CAST_OVERFLOW, and the table function's MEASURES failed with a Python
TypeError (``int * CalendarInterval``). Where matchrec would compute such an interval it
now refuses, at the part; what Spark computes keeps Spark's legacy answer.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from doors import DOORS, rows_through

import matchrec
from matchrec.errors import MatchRecognizeError

LEGACY = "spark.sql.legacy.interval.enabled"

ROWS = (
    "SELECT * FROM VALUES (1, DATE'2024-01-01', TIMESTAMP'2024-01-01 10:00:00', 3), "
    "(2, DATE'2024-01-31', TIMESTAMP'2024-03-02 23:45:30', 2) AS t(id, dt, ts, k)"
)


@pytest.fixture
def legacy(spark) -> Iterator[None]:
    matchrec.register(spark)
    spark.sql(ROWS).createOrReplaceTempView("mr_legacy")
    spark.conf.set(LEGACY, "true")
    yield
    spark.conf.unset(LEGACY)


def _body(measure: str, condition: str) -> str:
    return (
        f"ORDER BY id MEASURES {measure} AS m ONE ROW PER MATCH PATTERN (A B) "
        f"DEFINE B AS {condition}"
    )


#: (door, MEASURES, DEFINE, the part matchrec would compute as an interval)
REFUSED = [
    *[(door, "A.id", "CAST(B.dt - A.dt AS STRING) <> ''", "B.dt - A.dt") for door in DOORS],
    *[(door, "A.id", "concat('x', B.ts - A.ts) <> ''", "B.ts - A.ts") for door in DOORS],
    ("table function", "A.dt + B.k * INTERVAL '1' DAY", "true", "B.k * INTERVAL '1' DAY"),
    ("table function", "CAST(B.ts - A.ts AS STRING)", "true", "B.ts - A.ts"),
    ("table function", "A.id", "B.ts > A.ts + INTERVAL '30' DAY", "INTERVAL '30' DAY"),
]


@pytest.mark.parametrize(("door", "measure", "condition", "part"), REFUSED)
def test_an_interval_matchrec_would_compute_is_refused_at_it(
    spark, legacy, door, measure, condition, part
):
    body = _body(measure, condition)
    with pytest.raises(MatchRecognizeError) as err:
        rows_through(spark, door, "mr_legacy", body)
    assert LEGACY in err.value.message
    assert err.value.sql is not None and err.value.pos is not None
    assert err.value.sql[err.value.pos :].startswith(part)


def _joined(spark, expression: str, where: str = "true") -> list[tuple]:
    """Spark's value of ``expression`` over the first row as A and the second as B."""
    expression, where = (e.replace("A.", "a.").replace("B.", "b.") for e in (expression, where))
    query = (
        f"SELECT {expression} FROM mr_legacy a JOIN mr_legacy b "
        f"ON a.id = 1 AND b.id = 2 WHERE {where}"
    )
    return [tuple(r) for r in spark.sql(query).collect()]


@pytest.mark.parametrize(
    ("measure", "condition"),
    [
        ("CAST(B.ts - A.ts AS STRING)", "true"),
        ("A.dt + B.k * INTERVAL '1' DAY", "true"),
        ("A.id", "B.ts > A.ts + INTERVAL '30' DAY"),
    ],
)
def test_what_spark_computes_keeps_sparks_legacy_answer(spark, legacy, measure, condition):
    got = rows_through(spark, "matchrec.sql", "mr_legacy", _body(measure, condition))
    assert got == _joined(spark, measure, condition)


@pytest.mark.parametrize("door", DOORS)
def test_make_interval_of_two_rows_is_refused_as_the_calendar_interval_it_always_is(spark, door):
    """make_interval is a CALENDAR INTERVAL whatever the flag: the refusal says so and
    names the ANSI intervals to use (it said the legacy flag was true while it was not)."""
    matchrec.register(spark)
    spark.sql(ROWS).createOrReplaceTempView("mr_legacy")
    body = _body("A.id", "CAST(make_interval(0, 0, 0, 0, A.k, B.k, 0) AS STRING) <> ''")
    with pytest.raises(MatchRecognizeError) as err:
        rows_through(spark, door, "mr_legacy", body)
    message = err.value.message
    assert "make_interval's type" in message and "make_dt_interval" in str(err.value)
    assert err.value.sql[err.value.pos :].startswith("make_interval(")
