"""Spark's ``lag``/``lead``, Snowflake's ``MATCH_SEQUENCE_NUMBER()`` and Flink's
``MATCH_ROWTIME()`` inside MATCH_RECOGNIZE: without OVER, lag/lead read the rows that
``PREV``/``NEXT`` read (Snowflake's examples write ``price < lag(price)``); with OVER they
are window functions over the input, computed before matching. Each answer is compared
with the same query written with the standard's navigation, through every door."""

from __future__ import annotations

import pytest

import matchrec
from matchrec.errors import SemanticError, UnsupportedError

ROWS = [(i, "a" if i < 9 else "b", p) for i, p in enumerate([5, 3, 4, 2, None, 6, 1, 7, 7, 9, 8])]


@pytest.fixture(scope="module")
def prices(spark):
    spark.createDataFrame(ROWS, "t int, k string, price int").createOrReplaceTempView("mr_lag")
    matchrec.register(spark)
    return "mr_lag"


def _doors(spark, view: str, body: str) -> dict[str, list[tuple]]:
    text = body.replace("'", "''")
    frames = {
        "sql": matchrec.sql(spark, f"SELECT * FROM {view} MATCH_RECOGNIZE ({body})"),
        "df": matchrec.match_recognize(spark.table(view), body),
        "udtf": spark.sql(f"SELECT * FROM match_recognize(TABLE({view}), '{text}')"),
    }
    return {door: sorted(map(tuple, df.collect()), key=repr) for door, df in frames.items()}


CASES = [
    # (DEFINE / MEASURES written with lag/lead, the same with PREV/NEXT)
    ("price < lag(price)", "price < PREV(price)"),
    ("price > lag(price, 2)", "price > PREV(price, 2)"),
    ("lead(price) > price", "NEXT(price) > price"),
    ("lag(price, -1) > price", "NEXT(price, 1) > price"),
    (
        "price > lag(price, 2, 4)",
        "price > (CASE WHEN PREV(t, 2) IS NULL THEN 4 ELSE PREV(price, 2) END)",
    ),
    (
        "coalesce(lead(price, 1, 100), 0) > price",
        "coalesce(CASE WHEN NEXT(t) IS NULL THEN 100 ELSE NEXT(price) END, 0) > price",
    ),
]


@pytest.mark.parametrize("per_match", ["ONE ROW PER MATCH", "ALL ROWS PER MATCH"])
@pytest.mark.parametrize(("written", "standard"), CASES)
def test_lag_and_lead_read_as_prev_and_next(spark, prices, per_match, written, standard):
    body = """PARTITION BY k ORDER BY t
        MEASURES FIRST(A.t) AS s, LAST(B.t) AS e, {m} AS m, MATCH_NUMBER() AS n
        {per_match} PATTERN (A B+) DEFINE B AS {d}"""
    measure_w = "lag(B.price, 1, -1)"
    measure_s = "CASE WHEN PREV(B.t) IS NULL THEN -1 ELSE PREV(B.price) END"
    got = _doors(spark, prices, body.format(m=measure_w, per_match=per_match, d=written))
    want = _doors(spark, prices, body.format(m=measure_s, per_match=per_match, d=standard))
    assert want["sql"], "the case finds matches"
    assert got == want


def test_lag_default_stands_in_only_outside_the_partition(spark, prices):
    # NULL prices stay NULL; the default appears where the row before is not there
    body = """PARTITION BY k ORDER BY t
        MEASURES lag(price, 1, -1) AS before, lead(price, 2, -2) AS after
        ALL ROWS PER MATCH PATTERN (X) DEFINE X AS TRUE"""
    df = matchrec.sql(spark, f"SELECT t, before, after FROM {prices} MATCH_RECOGNIZE ({body})")
    got = {r.t: (r.before, r.after) for r in df.collect()}
    window = spark.sql(
        f"""SELECT t, lag(price, 1, -1) OVER w AS before, lead(price, 2, -2) OVER w AS after
        FROM {prices} WINDOW w AS (PARTITION BY k ORDER BY t)"""
    )
    assert got == {r.t: (r.before, r.after) for r in window.collect()}
    assert got[5] == (None, 7) and got[0] == (-1, 4) and got[10] == (9, -2)


def test_lag_with_over_in_define_is_a_window_over_the_input(spark, prices):
    body = """PARTITION BY k ORDER BY t MEASURES FIRST(A.t) AS s, LAST(B.t) AS e
        PATTERN (A B+) DEFINE B AS price > lag(price) OVER (PARTITION BY k ORDER BY t)"""
    standard = body.replace("lag(price) OVER (PARTITION BY k ORDER BY t)", "PREV(price)")
    assert _doors(spark, prices, body) == _doors(spark, prices, standard)


def test_lag_ignore_nulls_is_a_positioned_error(spark, prices):
    query = f"""SELECT * FROM {prices} MATCH_RECOGNIZE (ORDER BY t
        MEASURES LAST(B.t) AS e PATTERN (A B+)
        DEFINE B AS lag(price) IGNORE NULLS < price)"""
    with pytest.raises(UnsupportedError) as info:
        matchrec.sql(spark, query)
    err = info.value
    assert "lag(...) IGNORE NULLS is not supported" in str(err)
    assert query[err.pos :].startswith("lag(price) IGNORE NULLS")
    assert "^" in str(err)


def test_match_sequence_number_numbers_the_rows_of_each_match(spark, prices):
    body = """PARTITION BY k ORDER BY t
        MEASURES MATCH_SEQUENCE_NUMBER() AS seq, MATCH_NUMBER() AS n, FINAL count(*) AS rows
        ALL ROWS PER MATCH PATTERN (A B+) DEFINE B AS price > PREV(price)"""
    got = _doors(spark, prices, body)
    want = _doors(spark, prices, body.replace("MATCH_SEQUENCE_NUMBER()", "RUNNING count(*)"))
    assert got == want
    seqs: dict[tuple, list[int]] = {}
    for row in matchrec.sql(spark, f"SELECT * FROM {prices} MATCH_RECOGNIZE ({body})").collect():
        seqs.setdefault((row.k, row.n), []).append(row.seq)
        assert row.seq <= row.rows
    assert seqs and all(s == list(range(1, len(s) + 1)) for s in seqs.values())


@pytest.mark.parametrize("per_match", ["ONE ROW PER MATCH", "ALL ROWS PER MATCH"])
def test_match_rowtime_is_the_order_column_of_the_last_row(spark, prices, per_match):
    body = f"""PARTITION BY k ORDER BY t
        MEASURES MATCH_ROWTIME() AS rt, MATCH_ROWTIME(price) AS rp, FIRST(A.t) AS s
        {per_match} PATTERN (A B+) DEFINE B AS price > PREV(price)"""
    got = _doors(spark, prices, body)
    standard = body.replace("MATCH_ROWTIME()", "LAST(t)").replace(
        "MATCH_ROWTIME(price)", "LAST(price)"
    )
    assert got["sql"] and got == _doors(spark, prices, standard)


def test_match_rowtime_without_order_by_says_what_it_reads(spark, prices):
    query = f"""SELECT * FROM {prices} MATCH_RECOGNIZE (PARTITION BY k
        MEASURES MATCH_ROWTIME() AS rt PATTERN (A) DEFINE A AS price > 5)"""
    with pytest.raises(SemanticError) as info:
        matchrec.sql(spark, query)
    assert "no ORDER BY" in str(info.value)
    assert query[info.value.pos :].startswith("MATCH_ROWTIME()")


def test_match_proctime_is_refused_with_what_to_write(spark, prices):
    query = f"""SELECT * FROM {prices} MATCH_RECOGNIZE (ORDER BY t
        MEASURES MATCH_PROCTIME() AS p PATTERN (A) DEFINE A AS price > 5)"""
    with pytest.raises(UnsupportedError) as info:
        matchrec.sql(spark, query)
    assert "not deterministic" in str(info.value) and "MATCH_ROWTIME()" in str(info.value)
    assert query[info.value.pos :].startswith("MATCH_PROCTIME()")


@pytest.mark.parametrize("offset", ["t", "'a'", "1 + 1"])
def test_lag_offset_that_is_no_integer_literal_is_a_positioned_error(spark, prices, offset):
    query = f"""SELECT * FROM {prices} MATCH_RECOGNIZE (ORDER BY t
        MEASURES LAST(B.t) AS e PATTERN (A B+) DEFINE B AS price > lag(price, {offset}))"""
    with pytest.raises(SemanticError) as info:
        matchrec.sql(spark, query)
    assert "must be an integer literal" in str(info.value)
    assert query[info.value.pos :].startswith(offset)


#: lag/lead with a default of another type than the value's: Spark casts the default to
#: the value's type (an INT price stays INT: 2.5 is 2, '7' is 7; a STRING k takes '5')
TYPED_DEFAULTS = [
    "lag(price, 1, 2.5)",
    "lag(price, 2, 2.5D)",
    "lead(price, 1, '7')",
    "lag(price, 1, 1.5BD)",
    "lag(k, 1, 5)",
    "lead(A.price, 2, 9.9D)",
]


@pytest.mark.parametrize("call", TYPED_DEFAULTS)
def test_lag_default_is_cast_to_the_values_type_as_sparks(spark, prices, call):
    body = f"""PARTITION BY k ORDER BY t
        MEASURES {call} AS v ALL ROWS PER MATCH PATTERN (A) DEFINE A AS TRUE"""
    window = spark.sql(
        f"SELECT t, {call.replace('A.', '')} OVER (PARTITION BY k ORDER BY t) AS v FROM {prices}"
    )
    quote = "'"
    frames = {
        "sql": matchrec.sql(spark, f"SELECT t, v FROM {prices} MATCH_RECOGNIZE ({body})"),
        "df": matchrec.match_recognize(spark.table(prices), body).select("t", "v"),
        "udtf": spark.sql(
            f"SELECT t, v FROM match_recognize(TABLE({prices}), '{body.replace(quote, 2 * quote)}')"
        ),
    }
    expected = sorted(map(tuple, window.collect()), key=repr)
    for door, frame in frames.items():
        assert frame.schema["v"].dataType == window.schema["v"].dataType, door
        assert sorted(map(tuple, frame.collect()), key=repr) == expected, door


def test_lag_default_in_define_compares_as_sparks(spark, prices):
    # 2.5 cast to INT is 2: the first row of each partition has lag(price, 1, 2.5) = 2
    condition = "lag(price, 1, 2.5) = 2"
    body = f"PARTITION BY k ORDER BY t MEASURES t AS at PATTERN (A) DEFINE A AS {condition}"
    windowed = condition.replace(")", ") OVER (PARTITION BY k ORDER BY t)", 1)
    want = spark.sql(f"SELECT t FROM (SELECT t, {windowed} AS hit FROM {prices}) WHERE hit")
    expected = sorted(r.t for r in want.collect())
    assert expected, "the condition holds somewhere"
    got = _doors(spark, prices, body)
    assert {door: sorted(r[-1] for r in rows) for door, rows in got.items()} == {
        door: expected for door in got
    }
