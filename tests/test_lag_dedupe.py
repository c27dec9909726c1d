"""PREV/NEXT of current-row values become LAG/LEAD windows that Spark computes once each.

``DEFINE DOWN AS price < PREV(price), UP AS price > PREV(price)`` needs ``LAG(price, 1)``
in two conditions; Spark does not merge equal window expressions of one select, so the
plan computes each distinct window in a column of its own (``__mr_wN``), in a select
before the condition columns read it, and drops it before the matcher.
"""

from __future__ import annotations

import re

import pytest
from matchrec.grammar import parse_clause
from matchrec.planner.plan import plan_clause
from sample_prices import PRICES

import matchrec

WINDOW = "OVER (PARTITION BY `sym` ORDER BY `t` ASC NULLS FIRST)"

V_SHAPE = """
  PARTITION BY sym
  ORDER BY t
  MEASURES FIRST(t) AS start_t, LAST(DOWN.t) AS bottom_t, LAST(t) AS end_t
  ONE ROW PER MATCH
  PATTERN (STRT DOWN+ UP+)
  DEFINE DOWN AS price < PREV(price), UP AS price > PREV(price)
"""

# PREV(price) and PREV(price, 1) are one window; NEXT(price) another
PEAK = """
  PARTITION BY sym
  ORDER BY t
  MEASURES FIRST(t) AS start_t, LAST(t) AS end_t
  ONE ROW PER MATCH
  PATTERN (UP+ PEAK)
  DEFINE UP AS price > PREV(price), PEAK AS price > PREV(price, 1) AND price > NEXT(price)
"""


def plan(body: str):
    return plan_clause(parse_clause(body), ["sym", "t", "price"])


# --------------------------------------------------------------------------- the plan


def test_v_shape_computes_its_one_window_in_a_stage_of_its_own():
    p = plan(V_SHAPE)
    lag = f"LAG(`price`, 1) {WINDOW}"
    assert p.stages == [
        [("__mr_w0", lag)],
        [("__mr_c0", "`price` < `__mr_w0`"), ("__mr_c1", "`price` > `__mr_w0`")],
    ]
    assert p.scratch == ["__mr_w0"]
    # the columns the matcher reads, unchanged: each text stands alone
    assert p.precomputed == [("__mr_c0", f"`price` < {lag}"), ("__mr_c1", f"`price` > {lag}")]
    assert p.origins["__mr_w0"] == p.clause.sql.index("PREV(price)")


def test_equal_windows_are_one_column_and_different_ones_are_not():
    p = plan(PEAK)
    windows, conditions = p.stages
    assert windows == [
        ("__mr_w0", f"LAG(`price`, 1) {WINDOW}"),
        ("__mr_w1", f"LEAD(`price`, 1) {WINDOW}"),
    ]
    assert conditions == [
        ("__mr_c0", "`price` > `__mr_w0`"),
        ("__mr_c1", "`price` > `__mr_w0` AND `price` > `__mr_w1`"),
    ]


def test_without_windows_one_stage_of_the_precomputed_columns():
    p = plan("ORDER BY t PATTERN (A B+) DEFINE B AS price > 10 AND sym = 'x'")
    assert p.stages == [p.precomputed] and p.scratch == []
    assert plan("ORDER BY t PATTERN (A B+) DEFINE B AS B.price > A.price").stages == []


# --------------------------------------------------------------------------- on Spark


@pytest.fixture(scope="module")
def prices(spark):
    df = spark.createDataFrame(PRICES, "sym STRING, t INT, price DOUBLE")
    df.createOrReplaceTempView("lag_prices")
    return df


def physical_plan(df, capsys) -> str:
    capsys.readouterr()
    df.explain()
    return capsys.readouterr().out


def count(pattern: str, text: str) -> int:
    return len(re.findall(pattern, text))


@pytest.fixture
def matcher_input(spark, monkeypatch):
    """The columns of every DataFrame handed to ``mapInArrow`` (the matcher's input)."""
    DataFrame = type(spark.range(0))  # the session's DataFrame class (classic or Connect)
    seen: list[list[str]] = []
    original = DataFrame.mapInArrow

    def spy(self, *args, **kwargs):
        seen.append(list(self.columns))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(DataFrame, "mapInArrow", spy)
    return seen


@pytest.mark.parametrize(
    "body, lags, leads, expected",
    [
        # x: 10 9 8 9 11 | 10 12 -> one V from t=1 to 5, bottom at 3; y: 5 4 6 | 6
        (V_SHAPE, 1, 0, [("x", 1, 3, 5), ("y", 1, 2, 3)]),
        # x: UP at 4 (9 > 8), PEAK at 5 (11 > 9 and 11 > 10); y: 6 at 3 is not above the
        # next 6, and 4 has no next
        (PEAK, 1, 1, [("x", 4, 5)]),
    ],
)
def test_one_window_expression_per_distinct_window_and_same_rows(
    spark, prices, capsys, matcher_input, body, lags, leads, expected
):
    df = matchrec.sql(spark, f"SELECT * FROM lag_prices MATCH_RECOGNIZE ({body}) AS m")
    text = physical_plan(df, capsys)
    assert count(r"\blag\(", text) == lags, text
    assert count(r"\blead\(", text) == leads, text
    # the windows read the rows as the runtime sorted them: no other shuffle or sort
    assert count(r"\bExchange\b", text) == 1, text
    assert count(r"\bSort \[", text) == 1, text
    assert sorted(tuple(r) for r in df.collect()) == expected
    # the window columns are not shipped to the matcher
    (columns,) = matcher_input
    assert not [c for c in columns if c.startswith("__mr_w")], columns
    assert {"__mr_c0", "__mr_c1"} <= set(columns)


def test_stages_in_spark_compute_the_window_once(spark, prices, capsys):
    """The plan's stages alone, applied as the runtime does, on the sorted rows."""
    p = plan(V_SHAPE)
    df = prices.repartition("sym").sortWithinPartitions("sym", prices["t"].asc_nulls_first())
    for stage in p.stages:
        df = df.selectExpr("*", *(f"{text} AS {name}" for name, text in stage))
    df = df.drop(*p.scratch)
    text = physical_plan(df, capsys)
    assert count(r"\blag\(", text) == 1, text
    assert count(r"\bExchange\b", text) == 1 and count(r"\bSort \[", text) == 1, text
    got = sorted((r["sym"], r["t"], r["__mr_c0"], r["__mr_c1"]) for r in df.collect())
    downs = {("x", 2), ("x", 3), ("x", 6), ("y", 2)}
    ups = {("x", 4), ("x", 5), ("x", 7), ("y", 3)}
    firsts = {("x", 1), ("y", 1)}  # no previous row: NULL
    assert got == [
        (
            s,
            t,
            None if (s, t) in firsts else (s, t) in downs,
            None if (s, t) in firsts else (s, t) in ups,
        )
        for s, t, _ in PRICES
    ]
    assert df.columns == ["sym", "t", "price", "__mr_c0", "__mr_c1"]
