"""Random typed expressions, each computed two independent ways (a differential test).

MEASURES: ``matchrec.sql`` has Spark compute a measure over the matched rows; the table
function computes it in Python (``planner.measure_eval``) from its own plan. Their
values and Spark types must agree, ONE ROW and ALL ROWS PER MATCH.

DEFINE: a condition ``c`` that reads no B- or C-only value is B's in
``PATTERN (A (B|C)*)`` with ``C AS (c) IS NOT TRUE``, and also a RUNNING measure that
Spark computes: every B row must have it TRUE and no C row, in both doors.

The seeds are fixed, so the expressions are the same in every run; the data has NULLs,
NaN, 1e10, an empty and a non-ASCII string, and the 2024-03-10 clock change of the
session zone America/New_York.
"""

from __future__ import annotations

import datetime as dt
import decimal
import math
import random
from collections.abc import Iterator

import pytest
from matchrec.runtime.session import session_settings
from random_expressions import CALLS, DEFINE_LEAVES, MEASURE_LEAVES, expression

import matchrec

VIEW = "mr_random_t"
TYPES = ["int", "bigint", "double", "decimal", "string", "date", "timestamp", "boolean", "array"]


@pytest.fixture(scope="module")
def view(spark) -> Iterator[str]:
    i = [3, 1, None, 4, 1, 5, -2, 6, None, 2]
    dbl = [1.5, None, -0.5, 2.25, 0.0, 3.75, float("nan"), 10.0, -7.125, 1e10]
    dec = ["1.25", "2.50", None, "-3.75", "0.00", "10.10", "7.77", None, "4.00", "-0.01"]
    s = ["ab", "Ab cd", None, "xyz", "b a", "", "Ef", "aaa", "cd ", "ée"]
    b = [True, False, None, True, True, False, True, None, False, True]
    arr = [[1, 2], [3], None, [], [2, 2, None], [5, 1], [0], [7, 8, 9], [1], [4, None]]
    rows = []
    for p in (1, 2):
        for j in range(10):
            day = dt.date(2024, 2, 26) + dt.timedelta(days=j * (3 + p))
            at = dt.datetime(2024, 3, 9, 22, 0) + dt.timedelta(minutes=j * 47 * p)
            x = (j + p * 3) % 10 if p == 2 else j
            rows.append((
                p, j + 1, i[x], dbl[x], None if dec[x] is None else decimal.Decimal(dec[x]),
                s[x], None if (j, p) == (3, 1) else day, None if (j, p) == (5, 2) else at,
                b[x], arr[x],
            ))  # fmt: skip
    schema = (
        "p int, k bigint, i int, dbl double, dec decimal(10,2), s string, d date, "
        "ts timestamp, b boolean, arr array<int>"
    )
    spark.createDataFrame(rows, schema).createOrReplaceTempView(VIEW)
    matchrec.register(spark)
    yield VIEW
    spark.catalog.dropTempView(VIEW)


def _value(v: object) -> object:
    if isinstance(v, float) and math.isnan(v):
        return "NaN"
    if isinstance(v, (list, tuple)):
        return tuple(_value(x) for x in v)
    return v


def _outcome(spark, query: str) -> tuple[str, list] | str:
    """The schema and sorted rows of ``query``, or "error"."""
    try:
        df = spark.sql(query) if "match_recognize(TABLE" in query else matchrec.sql(spark, query)
        rows = sorted((tuple(_value(x) for x in r) for r in df.collect()), key=repr)
        return df.schema.simpleString(), rows
    except Exception:  # noqa: BLE001 - either door's refusal or run-time error
        return "error"


def _doors(measures: list[str], rows_per_match: str) -> tuple[str, str]:
    selected = ", ".join(f"{m} AS m{j}" for j, m in enumerate(measures))
    body = (
        f"PARTITION BY p ORDER BY k MEASURES {selected} {rows_per_match} "
        "PATTERN (A B*) DEFINE B AS B.k % 4 != 1"
    )
    literal = "'" + body.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return (
        f"SELECT * FROM {VIEW} MATCH_RECOGNIZE ({body})",
        f"SELECT * FROM match_recognize(TABLE({VIEW}), {literal})",
    )


def _measures(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    return [expression(rng, rng.choice(TYPES), rng.randint(2, 4), MEASURE_LEAVES) for _ in range(n)]


#: the leaves of several rows (aggregates, CLASSIFIER, MATCH_NUMBER): a call of them is
#: computed in Python by the table function, not moved inside a navigation for Spark
_SEVERAL_ROWS = {
    t: [v for v in values if "(" in v and not v.startswith(("FIRST", "LAST", "PREV", "NEXT"))]
    for t, values in MEASURE_LEAVES.items()
}


def _every_call(seed: int) -> list[str]:
    """Each call of the table once, of values of several rows or calls of them."""
    rng = random.Random(seed)
    return [
        template.format(*(expression(rng, a, 1, _SEVERAL_ROWS) for a in args))
        for _, template, args in CALLS
    ]


def _agree(spark, measures: list[str], rows_per_match: str, size: int) -> None:
    """Both doors give the same schema and rows for each batch of ``size`` measures;
    a batch that differs is checked measure by measure (both refused counts)."""
    with session_settings(spark, {"spark.sql.session.timeZone": "America/New_York"}):
        for start in range(0, len(measures), size):
            batch = measures[start : start + size]
            sql, tf = (_outcome(spark, q) for q in _doors(batch, rows_per_match))
            if sql == tf and sql != "error":
                continue
            for m in batch:
                sql, tf = (_outcome(spark, q) for q in _doors([m], rows_per_match))
                assert sql == tf, m


@pytest.mark.parametrize("rows_per_match", ["ONE ROW PER MATCH", "ALL ROWS PER MATCH"])
def test_every_call_equal_in_spark_and_the_table_function(spark, view, rows_per_match):
    _agree(spark, _every_call(7), rows_per_match, 12)


@pytest.mark.parametrize("rows_per_match", ["ONE ROW PER MATCH", "ALL ROWS PER MATCH"])
@pytest.mark.parametrize("seed", [11, 12])
def test_random_measures_equal_in_spark_and_the_table_function(spark, view, seed, rows_per_match):
    _agree(spark, _measures(seed, 18), rows_per_match, 6)


def _conditions(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    found: list[str] = []
    while len(found) < n:
        c = expression(rng, "boolean", rng.randint(2, 4), DEFINE_LEAVES)
        if c not in found and c not in DEFINE_LEAVES["boolean"]:
            found.append(c)
    return found


@pytest.mark.parametrize("seed", [21, 22, 23])
def test_random_define_conditions_label_rows_as_spark_computes_them(spark, view, seed):
    checked = 0
    with session_settings(spark, {"spark.sql.session.timeZone": "America/New_York"}):
        for c in _conditions(seed, 10):
            body = (
                f"PARTITION BY p ORDER BY k MEASURES CLASSIFIER() AS cl, {c} AS m "
                f"ALL ROWS PER MATCH PATTERN (A (B|C)*) DEFINE B AS {c}, C AS ({c}) IS NOT TRUE"
            )
            literal = "'" + body.replace("\\", "\\\\").replace("'", "\\'") + "'"
            sql = _outcome(spark, f"SELECT p, k, cl, m FROM {VIEW} MATCH_RECOGNIZE ({body})")
            tf = _outcome(
                spark, f"SELECT p, k, cl, m FROM match_recognize(TABLE({VIEW}), {literal})"
            )
            assert sql == tf, c
            if sql == "error":
                continue
            rows = sql[1]
            assert len(rows) == 20, c  # every row is in a match: A, then B or C
            labelled = [(cl, m) for _, _, cl, m in rows if cl != "A"]
            assert all((m is True) == (cl == "B") for cl, m in labelled), c
            checked += 1
    assert checked >= 7  # the seeds give conditions that run, not only refusals
