"""MATCH_RECOGNIZE on real Structured Streaming queries: files arrive one micro-batch at a
time, rows out of order within the watermark delay, checkpoint and output on disk; the
stream's output equals the batch answer over the same rows."""

from __future__ import annotations

import random
import warnings
from datetime import timedelta

import pytest
from matchrec.runtime.session import session_settings
from matchrec.runtime.streaming import BUCKETS_CONF as BUCKETS
from matchrec.runtime.streaming import late_rows
from pyspark.sql import functions as F
from pyspark.sql.types import (
    ArrayType,
    DoubleType,
    IntegerType,
    MapType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)
from streams import FolderStream, at

import matchrec
from matchrec.errors import (
    ArbitraryOrderWarning,
    MatchRuntimeError,
    SemanticError,
    UnsupportedError,
)

CARDS = StructType(
    [
        StructField("card", StringType()),
        StructField("ts", TimestampType()),
        StructField("amount", DoubleType()),
        StructField("country", StringType()),
    ]
)

FRAUD = """
  SELECT * FROM events MATCH_RECOGNIZE (
    PARTITION BY card ORDER BY ts
    MEASURES FIRST(S.ts) AS first_ts, LAST(B.amount) AS big, count(S.*) AS smalls,
             MATCH_NUMBER() AS n
    ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW
    PATTERN (S{3,} B) WITHIN INTERVAL '10' MINUTE
    DEFINE S AS amount < 2, B AS amount > 500 AND country <> FIRST(S.country))"""


ORDERED = """
  SELECT * FROM events MATCH_RECOGNIZE (
    PARTITION BY card ORDER BY ts
    MEASURES listagg(country, ',') WITHIN GROUP (ORDER BY amount DESC, ts) AS by_amount,
             max_by(amount, ts, 2) AS last_two,
             percentile_disc(0.5) WITHIN GROUP (ORDER BY S.amount) AS middle
    ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW
    PATTERN (S{3,} B) WITHIN INTERVAL '10' MINUTE
    DEFINE S AS amount < 2 AND amount <= percentile_cont(0.5) WITHIN GROUP (ORDER BY S.amount) + 1,
           B AS amount > 500)"""


# CALENDAR INTERVALs (make_interval) in DEFINE: one of a count over the match, one of the
# previous row's value (Spark computes it, the matcher reads it)
CALENDAR = """
  SELECT * FROM events MATCH_RECOGNIZE (
    PARTITION BY card ORDER BY ts
    MEASURES FIRST(S.ts) AS first_ts, count(*) AS n,
             LAST(S.ts) + make_interval(0, 0, 0, 0, 0, count(S.*)) AS until
    ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW
    PATTERN (S{2,} B) WITHIN INTERVAL '10' MINUTE
    DEFINE S AS amount < 2 AND ts <= FIRST(S.ts) + make_interval(0, 0, 0, 0, 0, 2 * count(S.*)),
           B AS amount > 10
                AND ts <= PREV(ts) + make_interval(0, 0, 0, 0, 0, CAST(PREV(amount) AS INT) + 2))"""


# Spark's functions of the previous row's values in DEFINE (a stream has no LAG before
# matching: the matcher reads that row, Spark computes the function on every row)
PREV_CALLS = """
  SELECT * FROM events MATCH_RECOGNIZE (
    PARTITION BY card ORDER BY ts
    MEASURES FIRST(S.ts) AS first_ts, count(*) AS n, LAST(B.country) AS country
    ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW
    PATTERN (S{2,} B)
    DEFINE S AS amount < 2 AND unix_timestamp(ts) - unix_timestamp(PREV(ts)) <= 180,
           B AS amount > 10 AND date_format(PREV(ts), 'HH:mm') < date_format(ts, 'HH:mm')
                AND upper(PREV(country)) = country
                AND timestampadd(MINUTE, 3, PREV(ts)) >= ts)"""


# values of several rows through the evaluator a stream computes them with: to_char of a
# TIMESTAMP and a BINARY, a map keyed by a struct, array_append widening its elements
FUNCTIONS = """
  SELECT * FROM events MATCH_RECOGNIZE (
    PARTITION BY card ORDER BY ts
    MEASURES to_char(max(S.ts), 'yyyy-MM-dd HH:mm') AS last_small,
             to_char(CAST(string_agg(S.country, '') AS BINARY), 'hex') AS countries,
             array_append(collect_list(CAST(S.amount * 100 AS INT)), 0.5D) AS cents,
             map(named_struct('c', FIRST(S.country)), count(*))[named_struct('c', LAST(B.country))]
               AS same_country
    ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW
    PATTERN (S{2,} B) WITHIN INTERVAL '10' MINUTE
    DEFINE S AS amount < 2,
           B AS amount > 10 AND to_char(max(S.ts), 'HH') <= to_char(ts, 'HH'))"""


def card_events(seed: int, cards: int = 6, per_card: int = 40) -> list[tuple]:
    """Card payments over about two hours: runs of small amounts, now and then a big one
    from another country."""
    rng = random.Random(seed)
    rows = []
    for c in range(cards):
        minute = rng.uniform(0, 5)
        for _ in range(per_card):
            minute += rng.choice([0.5, 1, 1, 2, 3, 12])
            kind = rng.random()
            small = round(rng.uniform(0.1, 1.9), 2)
            amount = small if kind < 0.7 else rng.choice([20.0, 900.0, 900.0])
            country = rng.choice(["FR", "FR", "DE"]) if amount < 500 else rng.choice(["US", "FR"])
            rows.append((f"card{c}", at(minute), amount, country))
    return rows


def arrival_files(rows: list[tuple], seed: int, files: int, jitter_minutes: float) -> list:
    """The rows in arrival order (event time plus a delay of up to ``jitter_minutes``),
    cut into ``files`` micro-batches."""
    rng = random.Random(seed)
    arriving = sorted(rows, key=lambda r: r[1] + timedelta(minutes=rng.uniform(0, jitter_minutes)))
    size = -(-len(arriving) // files)
    return [arriving[i : i + size] for i in range(0, len(arriving), size)]


def batch_answer(spark, rows: list[tuple], schema: StructType, query: str) -> list[tuple]:
    spark.createDataFrame(rows, schema).createOrReplaceTempView("events")
    return sorted((tuple(r) for r in matchrec.sql(spark, query).collect()), key=repr)


def card_stream(spark, tmp_path, sql: str, rows: list[tuple], seed: int, files: int):
    """The output rows of ``sql`` over ``events`` as a real stream of ``rows`` arriving
    out of order in ``files`` micro-batches (then a far later row that moves the
    watermark past them all), and the number of late rows it counted."""
    stream = FolderStream(spark, tmp_path, CARDS, "ts", "2 minutes")

    def build(source):
        source.createOrReplaceTempView("events")
        return matchrec.sql(spark, sql)

    query = stream.run(build, arrival_files(rows, seed=seed, files=files, jitter_minutes=1.5))
    stream.push_watermark(query, ("zz-end", None, 50.0, "XX"), at(200))
    try:
        late = late_rows(query)
    finally:
        query.stop()
    return stream.output(), late


@pytest.mark.parametrize(
    ("sql", "seed", "files"),
    [(FRAUD, 1, 5), (ORDERED, 3, 4), (CALENDAR, 2, 4), (PREV_CALLS, 4, 4), (FUNCTIONS, 5, 4)],
    ids=["fraud", "ordered", "calendar", "prev_calls", "functions"],
)
def test_a_stream_gives_the_batch_answer(spark, tmp_path, sql, seed, files):
    """The issue's card-fraud query (and one with aggregates in an order of their own:
    WITHIN GROUP, max_by with a count, in MEASURES and DEFINE) over micro-batches of rows
    arriving out of order within the watermark delay: the streaming output equals the
    batch output."""
    rows = card_events(seed=seed)
    output, late = card_stream(spark, tmp_path, sql, rows, seed=seed, files=files)
    assert late == 0
    want = batch_answer(spark, rows, CARDS, sql)
    assert len(want) >= 3
    assert output == want


PRICES = StructType(
    [
        StructField("symbol", StringType()),
        StructField("ts", TimestampType()),
        StructField("price", DoubleType()),
    ]
)

V_SHAPE = """
    PARTITION BY symbol ORDER BY ts
    MEASURES MATCH_NUMBER() AS n, CLASSIFIER() AS label, FIRST(STRT.price) AS top,
             PREV(price) AS before, RUNNING avg(DOWN.price) AS avg_down
    ALL ROWS PER MATCH WITH UNMATCHED ROWS
    AFTER MATCH SKIP TO LAST UP
    PATTERN (STRT DOWN+ UP+)
    DEFINE DOWN AS price < PREV(price), UP AS price > PREV(price) AND price < FIRST(STRT.price) + 3
"""


def price_ticks(seed: int, symbols: int = 4, per_symbol: int = 60) -> list[tuple]:
    rng = random.Random(seed)
    rows = []
    for s in range(symbols):
        price = 20.0
        for i in range(per_symbol):
            price = round(max(1.0, price + rng.choice([-1.0, -0.5, 0.5, 1.0])), 2)
            rows.append((f"S{s}", at(i), price))
    return rows


def test_all_rows_per_match_with_prev_navigation_and_restart(spark, tmp_path):
    """ALL ROWS PER MATCH WITH UNMATCHED ROWS, PREV in DEFINE and MEASURES, a
    match-dependent condition, SKIP TO LAST, MATCH_NUMBER over micro-batches; the query
    is stopped halfway and restarted from its checkpoint: nothing lost, nothing twice."""
    rows = price_ticks(seed=3)
    # a last row per symbol that no condition accepts (NULL price) settles the real rows:
    # a stream cannot know that a partition ended, so its last rows wait for one more
    ends = [(f"S{s}", at(90), None) for s in range(4)]
    files = arrival_files(rows, seed=3, files=6, jitter_minutes=2)
    files[-1] = files[-1] + ends
    stream = FolderStream(spark, tmp_path, PRICES, "ts", "3 minutes")

    def build(source):
        return matchrec.match_recognize(source, V_SHAPE)

    first = stream.run(build, files[:3])
    first.stop()
    halfway = stream.output()
    second = stream.run(build, files[3:])
    stream.push_watermark(second, ("zz", None, 1.0), at(500))
    second.stop()
    got = stream.output()
    batch = matchrec.match_recognize(spark.createDataFrame(rows + ends, PRICES), V_SHAPE)
    want = sorted((tuple(r) for r in batch.collect() if r.ts < at(90)), key=repr)
    assert 0 < len(halfway) < len(want)
    assert got == want


def test_a_changed_clause_on_the_same_checkpoint_is_refused_and_new_measures_are_not(
    spark, tmp_path
):
    """A query whose PATTERN or DEFINE changed, restarted on the old checkpoint, read the
    old state as its own: a raw Arrow error from the worker when it reads another column
    (or partial matches of another pattern). It is refused with a message saying what to
    do; changed MEASURES (computed from the rows held) and layout are the same query."""
    rows = price_ticks(seed=5)
    files = arrival_files(rows, seed=5, files=4, jitter_minutes=2)
    stream = FolderStream(spark, tmp_path, PRICES, "ts", "3 minutes")
    first = stream.run(lambda source: matchrec.match_recognize(source, V_SHAPE), files[:2])
    first.stop()
    halfway = stream.output()
    measures = V_SHAPE.replace("AVG(DOWN.price) AS avg_down", "avg(DOWN.price)  AS avg_down")
    measures = measures.replace("RUNNING avg(DOWN.price)", "RUNNING max(DOWN.price)")
    relaid = measures.replace("price < PREV(price),", "price<PREV(price) ,\n   ")
    again = stream.run(lambda source: matchrec.match_recognize(source, relaid), files[2:3])
    again.stop()
    assert len(stream.output()) > len(halfway)
    changed = V_SHAPE.replace("PATTERN (STRT DOWN+ UP+)", "PATTERN (STRT DOWN+ UP{2,})")
    with pytest.raises(MatchRuntimeError) as info:
        stream.run(lambda source: matchrec.match_recognize(source, changed), files[3:])
    assert "this checkpoint's state was written by another query" in info.value.message
    assert "new checkpoint" in info.value.message


def test_two_clauses_over_one_stream_in_a_union_both_give_their_matches(spark, tmp_path):
    """Two clauses with the same row-local columns over one stream, UNION ALL: Spark
    would read both from one shuffle and give the second no watermark; each gives its
    batch answer."""
    body = """PARTITION BY symbol ORDER BY ts MEASURES FIRST(A.ts) AS t0, count(*) AS n
        ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW
        PATTERN (A B{{2,}}) DEFINE B AS price {op} PREV(price)"""
    sql = f"""SELECT symbol, t0, n, 'up' AS kind FROM ticks MATCH_RECOGNIZE ({body.format(op=">")})
        UNION ALL
        SELECT symbol, t0, n, 'down' AS kind FROM ticks MATCH_RECOGNIZE ({body.format(op="<")})"""
    rows = price_ticks(seed=7, symbols=2, per_symbol=30)
    ends = [(f"S{s}", at(60), None) for s in range(2)]
    stream = FolderStream(spark, tmp_path, PRICES, "ts", "2 minutes")

    def build(source):
        source.createOrReplaceTempView("ticks")
        return matchrec.sql(spark, sql)

    query = stream.run(build, arrival_files(rows + ends, seed=7, files=3, jitter_minutes=1))
    stream.push_watermark(query, ("zz", None, 1.0), at(500))
    query.stop()
    spark.createDataFrame(rows + ends, PRICES).createOrReplaceTempView("ticks")
    want = sorted((tuple(r) for r in matchrec.sql(spark, sql).collect()), key=repr)
    assert {r[3] for r in want} == {"up", "down"}
    assert stream.output() == want


def test_order_by_a_copy_of_the_watermarked_column_spark_also_marks(spark, tmp_path):
    """After ``SELECT ts AS copy, *`` Spark marks both columns as event time; ORDER BY ts
    was refused ("must start with the event-time column 'copy'"): the first marked
    column was taken for the event time."""
    sql = """SELECT * FROM ticks MATCH_RECOGNIZE (PARTITION BY symbol ORDER BY ts
        MEASURES FIRST(A.ts) AS t0, LAST(B.copy) AS t1, count(*) AS n
        PATTERN (A B+) DEFINE B AS price > PREV(price))"""
    rows = price_ticks(seed=11, symbols=2, per_symbol=25)
    ends = [(f"S{s}", at(60), None) for s in range(2)]
    stream = FolderStream(spark, tmp_path, PRICES, "ts", "2 minutes")

    def build(source):
        source.selectExpr("ts AS copy", "*").createOrReplaceTempView("ticks")
        return matchrec.sql(spark, sql)

    query = stream.run(build, arrival_files(rows + ends, seed=11, files=3, jitter_minutes=1))
    stream.push_watermark(query, ("zz", None, 1.0), at(500))
    query.stop()
    batch = spark.createDataFrame(rows + ends, PRICES).selectExpr("ts AS copy", "*")
    batch.createOrReplaceTempView("ticks")
    want = sorted((tuple(r) for r in matchrec.sql(spark, sql).collect()), key=repr)
    assert want and stream.output() == want


def test_a_search_past_within_waiting_for_next_s_row_is_woken_by_the_watermark(spark, tmp_path):
    """B reads the row after it (NEXT), which comes long after the WITHIN bound: once the
    watermark passes the bound the search waits for that row, and the watermark alone
    (rows of a key in another bucket) must settle it when that row is final."""
    sql = """SELECT * FROM ticks MATCH_RECOGNIZE (PARTITION BY symbol ORDER BY ts
        MEASURES FIRST(A.ts) AS t0, LAST(B.price) AS b
        PATTERN (A B) WITHIN INTERVAL '8' MINUTE
        DEFINE A AS price < 5, B AS NEXT(price) > price)"""
    with session_settings(spark, {BUCKETS: "4"}):
        buckets = {
            r.s: r.b
            for r in spark.sql(
                "SELECT s, pmod(xxhash64(s), 4) AS b FROM VALUES ('S0'), ('S1'), ('S2'), "
                "('S3'), ('S4') AS t(s)"
            ).collect()
        }
        other = next(s for s in buckets if buckets[s] != buckets["S0"])
        rows = [("S0", at(0), 1.0), ("S0", at(1), 2.0), ("S0", at(40), 3.0), ("S0", at(41), 0.0)]
        stream = FolderStream(spark, tmp_path, PRICES, "ts", "2 minutes")

        def build(source):
            source.createOrReplaceTempView("ticks")
            return matchrec.sql(spark, sql)

        # the watermark passes A's bound while NEXT's row (minute 40) is not final; then
        # only the other key's rows move it
        files = [[rows[0], rows[1], (other, at(20), 9.0)], [rows[2], rows[3], (other, at(30), 9.0)]]
        query = stream.run(build, files)
        stream.push_watermark(query, (other, None, 9.0), at(100))
        query.stop()
    spark.createDataFrame(rows, PRICES).createOrReplaceTempView("ticks")
    want = [tuple(r) for r in matchrec.sql(spark, sql).collect()]
    assert len(want) == 1
    assert [r for r in stream.output() if r[0] == "S0"] == want


PEAKS = """
    PARTITION BY symbol ORDER BY ts
    MEASURES MATCH_NUMBER() AS n, CLASSIFIER() AS label, NEXT(price) AS following
    ALL ROWS PER MATCH
    AFTER MATCH SKIP TO NEXT ROW
    PATTERN (UP+ TOP DOWN+) WITHIN INTERVAL '12' MINUTE
    DEFINE UP AS price < NEXT(price), TOP AS price > NEXT(price),
           DOWN AS price >= NEXT(price, 2) AND price > FIRST(UP.price)
"""


def test_next_in_define_waits_for_the_rows_it_reads_and_restarts(spark, tmp_path):
    """NEXT in DEFINE (one and two rows ahead) with WITHIN: a row's verdict is decided
    only once the rows NEXT reads are past the watermark, so the stream gives the batch
    answer; stopped halfway and restarted from its checkpoint: nothing lost or twice."""
    rows = price_ticks(seed=5)
    # NEXT(price, 2) reads two rows on: two last rows per symbol (NULL price) settle the
    # real ones, as the end of the partition does in batch
    ends = [(f"S{s}", at(90 + k), None) for s in range(4) for k in (0, 1)]
    files = arrival_files(rows, seed=5, files=6, jitter_minutes=2)
    files[-1] = files[-1] + ends
    stream = FolderStream(spark, tmp_path, PRICES, "ts", "3 minutes")

    def build(source):
        return matchrec.match_recognize(source, PEAKS)

    first = stream.run(build, files[:3])
    first.stop()
    halfway = stream.output()
    second = stream.run(build, files[3:])
    stream.push_watermark(second, ("zz", None, 1.0), at(500))
    second.stop()
    batch = matchrec.match_recognize(spark.createDataFrame(rows + ends, PRICES), PEAKS)
    want = sorted((tuple(r) for r in batch.collect() if r.ts < at(90)), key=repr)
    assert 0 < len(halfway) < len(want)
    assert stream.output() == want


def test_within_timeouts_are_emitted_with_the_rows_matched_so_far(spark, tmp_path):
    """WITH TIMEOUTS: a card with three small payments and then silence gives a TIMEOUT
    row once the watermark passes its WITHIN bound, with the measures of those rows; a
    completed pattern gives its MATCHED row."""
    query = FRAUD.replace("ONE ROW PER MATCH", "ONE ROW PER MATCH WITH TIMEOUTS")
    rows = [
        ("a", at(0), 1.0, "FR"),
        ("a", at(1), 1.5, "FR"),
        ("a", at(2), 0.5, "FR"),
        ("a", at(3), 900.0, "US"),
        ("b", at(0), 1.0, "FR"),
        ("b", at(1), 1.0, "FR"),
        ("b", at(2), 1.0, "FR"),
        ("b", at(3), 1.0, "FR"),
        ("b", at(30), 20.0, "FR"),
    ]
    stream = FolderStream(spark, tmp_path, CARDS, "ts", "1 minute")

    def build(source):
        source.createOrReplaceTempView("events")
        return matchrec.sql(spark, query)

    q = stream.run(build, [rows[:8], rows[8:]])
    stream.push_watermark(q, ("zz", None, 50.0, "XX"), at(100))
    q.stop()
    got = stream.output()
    assert ("a", at(0), 900.0, 3, 1, "MATCHED") in got
    assert ("b", at(0), None, 4, 0, "TIMEOUT") in got
    assert got == batch_answer(spark, rows, CARDS, query)


NESTED = StructType(
    [
        StructField("k", StringType()),
        StructField("ts", TimestampType()),
        StructField("v", DoubleType()),
        StructField("tags", MapType(StringType(), IntegerType())),
        StructField("hops", ArrayType(MapType(StringType(), IntegerType()))),
    ]
)


@pytest.mark.parametrize(
    "body",
    [
        "MEASURES count(B.*) AS nb ALL ROWS PER MATCH PATTERN (A B+) DEFINE B AS v > PREV(v)",
        "MEASURES LAST(B.tags) AS last_tags, map_keys(FIRST(A.tags)) AS keys, "
        "collect_list(B.tags) AS all_tags, FIRST(B.hops) AS hops "
        "ONE ROW PER MATCH PATTERN (A B+) DEFINE B AS v > PREV(v)",
    ],
    ids=["all_rows", "measures"],
)
def test_map_values_in_a_stream_s_output(spark, tmp_path, body):
    """A MAP value (an input column of ALL ROWS PER MATCH, a measure of one, maps inside
    an array) reaches the stream's output as the batch gives it (it failed the first
    micro-batch: PySpark reads a map from a dict, not from Arrow's pairs)."""
    rows = [
        ("a", at(m), v, {"m": int(m)} if m != 2 else None, [{"h": int(m)}, None])
        for m, v in [(0, 5.0), (1, 6.0), (2, 7.0), (3, 1.0), (4, 2.0), (5, 3.0), (6, 0.0)]
    ]
    files = [[rows[1], rows[0], rows[3]], [rows[2], rows[5], rows[4]], [rows[6]]]
    stream = FolderStream(spark, tmp_path, NESTED, "ts", "5 minutes")
    sql = f"SELECT * FROM events MATCH_RECOGNIZE (PARTITION BY k ORDER BY ts {body})"

    def build(source):
        source.createOrReplaceTempView("events")
        return matchrec.sql(spark, sql)

    query = stream.run(build, files)
    stream.push_watermark(query, ("a", None, 0.0, None, None), at(100))
    query.stop()
    spark.createDataFrame(rows, NESTED).createOrReplaceTempView("events")
    want = sorted((tuple(r) for r in matchrec.sql(spark, sql).collect()), key=repr)
    assert len(want) >= 2
    assert stream.output() == want


def test_column_names_with_dots_and_backticks_on_a_stream(spark, tmp_path):
    """Names that PySpark's mapInArrow would read as field paths (``k e.y``) or refuse
    (`` v`q ``): a stream matches them as the batch does (Spark's analysis error before)."""
    query = """
      SELECT * FROM (SELECT card AS `card.id`, ts, amount AS `amount``usd` FROM events)
      MATCH_RECOGNIZE (
        PARTITION BY `card.id` ORDER BY ts
        MEASURES LAST(B.`amount``usd`) AS `last.amount`, count(*) AS n
        PATTERN (A B+)
        DEFINE B AS `amount``usd` > PREV(`amount``usd`))"""
    rows = [("a", at(m), v, "FR") for m, v in [(0, 1.0), (1, 2.0), (2, 3.0), (3, 1.0), (4, 5.0)]]
    stream = FolderStream(spark, tmp_path, CARDS, "ts", "5 minutes")

    def build(source):
        source.createOrReplaceTempView("events")
        return matchrec.sql(spark, query)

    running = stream.run(build, [[rows[1], rows[0]], [rows[3], rows[2], rows[4]]])
    stream.push_watermark(running, ("a", None, 0.0, "FR"), at(100))
    running.stop()
    spark.createDataFrame(rows, CARDS).createOrReplaceTempView("events")
    want = sorted((tuple(r) for r in matchrec.sql(spark, query).collect()), key=repr)
    assert len(want) == 2
    assert stream.output() == want


def test_late_rows_are_counted_not_matched(spark, tmp_path):
    """A row older than the watermark is dropped by Spark and counted in the query's
    progress (``late_rows``); the output is that of the rows that were on time."""
    on_time = [("a", at(m), 1.0, "FR") for m in (0, 1, 2)] + [("a", at(3), 900.0, "US")]
    late = ("a", at(2.5), 1000.0, "US")
    stream = FolderStream(spark, tmp_path, CARDS, "ts", "1 minute")

    def build(source):
        source.createOrReplaceTempView("events")
        return matchrec.sql(spark, FRAUD)

    q = stream.run(build, [on_time[:2], [("a", at(20), 5.0, "FR")], [late], on_time[2:]])
    stream.push_watermark(q, ("zz", None, 50.0, "XX"), at(100))
    try:
        assert late_rows(q) == 3  # the late row, and the two rows behind the 20-minute one
    finally:
        q.stop()
    assert stream.output() == []


@pytest.mark.parametrize(
    ("measure", "condition", "caret"),
    [
        ("100 / (LAST(B.amount) - FIRST(A.amount))", "B.amount <= A.amount", "100 / (LAST"),
        ("LAST(B.amount)", "100 / (B.amount - FIRST(A.amount)) > 0", "/ (B.amount"),
    ],
    ids=["measure_spark_computes", "define_over_two_rows"],
)
def test_a_run_time_error_stops_the_stream_at_the_users_expression(
    spark, tmp_path, measure, condition, caret
):
    """An ANSI error of a micro-batch (Spark's, in a MEASURE; the matcher's, in DEFINE)
    stops the query with a StreamingQueryException that is matchrec's run-time error at
    the expression, caret under it, not Spark's text of the rewritten query."""
    from pyspark.errors import StreamingQueryException

    query = f"""
      SELECT * FROM events MATCH_RECOGNIZE (
        PARTITION BY card ORDER BY ts
        MEASURES {measure} AS r
        PATTERN (A B)
        DEFINE B AS {condition})"""
    stream = FolderStream(spark, tmp_path, CARDS, "ts", "1 minute")

    def build(source):
        source.createOrReplaceTempView("events")
        return matchrec.sql(spark, query)

    with pytest.raises(MatchRuntimeError) as info:
        q = stream.run(build, [[("a", at(0), 5.0, "FR"), ("a", at(1), 5.0, "FR")]])
        stream.push_watermark(q, ("zz", None, 50.0, "XX"), at(100))
    err = info.value
    assert isinstance(err, StreamingQueryException)
    assert err.message.startswith("[DIVIDE_BY_ZERO]")  # Spark's, not the stream's wrapper
    assert err.sql[err.pos :].startswith(caret)  # the query, or the line a worker quoted
    assert "__mr_" not in str(err) and "/* matchrec" not in str(err)


def test_a_python_udf_raising_in_a_stream_is_told_at_its_call(spark, tmp_path):
    """A Python UDF that raises in a micro-batch: matchrec's run-time error at the call,
    naming the UDF's own exception (not a line of Spark's plan that follows the
    traceback), from ``processAllAvailable()`` and from the stopped query's
    ``exception()`` alike; the user's own stream failing in the same UDF keeps PySpark's
    error, and Spark's error without a query context in a matchrec stream is told at its
    call."""
    from pyspark.errors import StreamingQueryException

    def boom(x: float | None) -> float | None:
        if x is not None and x > 100:
            raise ValueError(f"too big: {x}")
        return x

    spark.udf.register("mr_stream_boom", boom, DoubleType())
    query = """
      SELECT * FROM events MATCH_RECOGNIZE (
        PARTITION BY card ORDER BY ts
        MEASURES count(*) AS n
        PATTERN (A B)
        DEFINE B AS mr_stream_boom(amount) > 0)"""
    stream = FolderStream(spark, tmp_path, CARDS, "ts", "1 minute")
    source = stream.source()
    source.createOrReplaceTempView("events")
    running = stream.start(matchrec.sql(spark, query))
    stream.write([("a", at(0), 5.0, "FR"), ("a", at(1), 500.0, "FR")])
    with pytest.raises(MatchRuntimeError) as info:
        running.processAllAvailable()
    stopped = running.exception()
    for err in (info.value, stopped):
        assert isinstance(err, MatchRuntimeError) and isinstance(err, StreamingQueryException)
        assert "mr_stream_boom() raised ValueError: too big: 500.0" in err.message
        assert err.sql[err.pos :].startswith("mr_stream_boom(amount)")
        assert "__mr_" not in str(err)
    # the user's own stream failing in the same UDF keeps PySpark's error (it was told at
    # the matchrec query's call: the traceback does not say which query called the UDF)
    own = (
        source.selectExpr("mr_stream_boom(amount) AS b")
        .writeStream.format("memory")
        .queryName("mr_own_boom")
        .option("checkpointLocation", str(tmp_path / "own_checkpoint"))
        .start()
    )
    with pytest.raises(StreamingQueryException) as plain:
        own.processAllAvailable()
    assert not isinstance(plain.value, MatchRuntimeError)
    assert not isinstance(own.exception(), MatchRuntimeError)
    # Spark's error without a query context (make_date's month 14) in a matchrec stream
    # is told at the call: the stopped query's plan is matchrec's
    dated = matchrec.sql(
        spark,
        "SELECT * FROM events MATCH_RECOGNIZE (PARTITION BY card ORDER BY ts "
        "MEASURES make_date(2026, count(*) + 12, 1) AS d PATTERN (A B) DEFINE B AS true)",
    )
    failing = (
        dated.writeStream.format("memory")
        .queryName("mr_dated")
        .option("checkpointLocation", str(tmp_path / "dated_checkpoint"))
        .start()
    )
    with pytest.raises(MatchRuntimeError) as field:  # (the match settles at the watermark)
        stream.push_watermark(failing, ("zz", None, 5.0, "XX"), at(100))
    assert "failed in make_date(): [DATETIME_FIELD_OUT_OF_BOUNDS" in field.value.message
    assert "STREAM_FAILED" not in field.value.message and "XXKST" not in field.value.message
    assert field.value.sql[field.value.pos :].startswith("make_date(2026")


def test_late_rows_counts_more_batches_than_the_query_keeps_reports_of(spark, tmp_path):
    """``late_rows`` counts every micro-batch of the query's life, not only the reports
    Spark still keeps (``numRecentProgressUpdates``, here 2)."""
    stream = FolderStream(spark, tmp_path, CARDS, "ts", "1 minute")

    def build(source):
        source.createOrReplaceTempView("events")
        return matchrec.sql(spark, FRAUD)

    on_time = [[("a", at(m), 1.0, "FR")] for m in (20, 21, 22, 23)]
    late = [[("a", at(m), 1.0, "FR")] for m in (2, 3, 4)]
    spark.conf.set("spark.sql.streaming.numRecentProgressUpdates", "2")
    try:
        q = stream.run(build, [*on_time[:2], *late, *on_time[2:]])
    finally:
        spark.conf.unset("spark.sql.streaming.numRecentProgressUpdates")
    try:
        assert len(q.recentProgress) <= 2
        assert late_rows(q) == 3
    finally:
        q.stop()


def test_the_late_row_listener_is_removed_at_exit(spark, monkeypatch):
    """The listener matchrec adds to count late rows is removed by its exit hook: the JVM
    went on sending a stopping query's events to Python after the callback server had
    closed, and a script's stderr ended with 30-line traces of a listener it never added."""
    from matchrec.runtime import late_count

    listeners = spark._jsparkSession.streams().listListeners
    late_count.watch(spark)
    before = len(listeners())
    late_count.unwatch_all()
    hooks = []
    monkeypatch.setattr(late_count.atexit, "register", hooks.append)
    late_count.watch(spark)
    assert hooks == [late_count.unwatch_all]  # what runs at exit
    late_count.unwatch_all()
    try:
        assert len(listeners()) == before - 1
    finally:
        late_count.watch(spark)  # the other tests count late rows
    assert len(listeners()) == before


def test_with_late_rows_each_late_row_is_an_output_row_of_its_own(spark, tmp_path):
    """WITH LATE ROWS: a late row comes out as a LATE row (measures NULL, the row in
    ``late_row``), still counted; the other rows are the batch answer of the rows on
    time, whose ``late_row`` is NULL."""
    query = FRAUD.replace("ONE ROW PER MATCH", "ONE ROW PER MATCH WITH LATE ROWS")
    on_time = [("a", at(m), 1.0, "FR") for m in (0, 1, 2)] + [("a", at(3), 900.0, "US")]
    later = [("a", at(m), 1.0, "FR") for m in (30, 31, 32)] + [("a", at(33), 700.0, "DE")]
    late = ("a", at(2.5), 1000.0, "US")
    stream = FolderStream(spark, tmp_path, CARDS, "ts", "1 minute")

    def build(source):
        source.createOrReplaceTempView("events")
        return matchrec.sql(spark, query)

    q = stream.run(build, [on_time, later[:1], [late], later[1:]])
    stream.push_watermark(q, ("zz", None, 50.0, "XX"), at(100))
    try:
        assert late_rows(q) == 1
    finally:
        q.stop()
    got = stream.output()
    assert [r for r in got if r[5] == "LATE"] == [
        ("a", None, None, None, None, "LATE", ("a", at(2.5), 1000.0, "US"))
    ]
    assert [r for r in got if r[5] != "LATE"] == batch_answer(spark, on_time + later, CARDS, query)
    assert all(r[5] == "MATCHED" and r[6] is None for r in got if r[5] != "LATE")


def test_with_late_rows_in_all_rows_per_match_a_late_row_keeps_its_columns(spark, tmp_path):
    query = """SELECT * FROM events MATCH_RECOGNIZE (
        PARTITION BY card ORDER BY ts
        MEASURES CLASSIFIER() AS cls, MATCH_NUMBER() AS n
        ALL ROWS PER MATCH WITH LATE ROWS
        PATTERN (S+ B) DEFINE S AS amount < 2, B AS amount > 500)"""
    rows = [("b", at(0), 1.0, "FR"), ("b", at(1), 600.0, "FR"), ("b", at(10), 1.0, "FR")]
    stream = FolderStream(spark, tmp_path, CARDS, "ts", "1 minute")

    def build(source):
        source.createOrReplaceTempView("events")
        return matchrec.sql(spark, query)

    q = stream.run(build, [rows, [("b", at(0.5), 1.5, "IT")], [("b", at(11), 900.0, "FR")]])
    stream.push_watermark(q, ("zz", None, 50.0, "XX"), at(100))
    q.stop()
    assert stream.output() == sorted(
        [
            ("b", at(0), "S", 1, "MATCHED", 1.0, "FR"),
            ("b", at(1), "B", 1, "MATCHED", 600.0, "FR"),
            ("b", at(0.5), None, None, "LATE", 1.5, "IT"),
            ("b", at(10), "S", 2, "MATCHED", 1.0, "FR"),
            ("b", at(11), "B", 2, "MATCHED", 900.0, "FR"),
        ],
        key=repr,
    )


def test_with_unmatched_rows_a_row_in_no_match_is_unmatched_in_match_status(spark, tmp_path):
    """A row in no match had match_status 'MATCHED' (so ``WHERE match_status = 'MATCHED'``
    kept it with the matches); it is 'UNMATCHED', as in MATCH_RECOGNIZE_DYNAMIC, on a
    stream and in batch."""
    query = """SELECT * FROM events MATCH_RECOGNIZE (
        PARTITION BY card ORDER BY ts
        MEASURES CLASSIFIER() AS cls, MATCH_NUMBER() AS n
        ALL ROWS PER MATCH WITH UNMATCHED ROWS WITH LATE ROWS
        PATTERN (S B) DEFINE S AS amount < 2, B AS amount > 500)"""
    rows = [("b", at(0), 50.0, "FR"), ("b", at(1), 1.0, "FR"), ("b", at(10), 900.0, "FR")]
    stream = FolderStream(spark, tmp_path, CARDS, "ts", "1 minute")

    def build(source):
        source.createOrReplaceTempView("events")
        return matchrec.sql(spark, query)

    q = stream.run(build, [rows, [("b", at(0.5), 1.5, "IT")], [("b", at(11), 600.0, "FR")]])
    stream.push_watermark(q, ("zz", None, 50.0, "XX"), at(100))
    q.stop()
    on_time = [
        ("b", at(0), None, None, "UNMATCHED", 50.0, "FR"),
        ("b", at(1), "S", 1, "MATCHED", 1.0, "FR"),
        ("b", at(10), "B", 1, "MATCHED", 900.0, "FR"),
        ("b", at(11), None, None, "UNMATCHED", 600.0, "FR"),
    ]
    late = ("b", at(0.5), None, None, "LATE", 1.5, "IT")
    got = [r for r in stream.output() if r[0] != "zz"]  # the row that moved the watermark
    assert got == sorted([*on_time, late], key=repr)
    spark.createDataFrame([*rows, ("b", at(11), 600.0, "FR")], CARDS).createOrReplaceTempView(
        "events"
    )
    batch = sorted((tuple(r) for r in matchrec.sql(spark, query).collect()), key=repr)
    assert batch == sorted(on_time, key=repr)


def test_with_late_rows_on_a_batch_adds_its_columns_and_no_row(spark):
    query = FRAUD.replace("ONE ROW PER MATCH", "ONE ROW PER MATCH WITH LATE ROWS")
    rows = [("a", at(m), 1.0, "FR") for m in (0, 1, 2)] + [("a", at(3), 900.0, "US")]
    spark.createDataFrame(rows, CARDS).createOrReplaceTempView("events")
    result = matchrec.sql(spark, query)
    assert result.columns[-2:] == ["match_status", "late_row"]
    assert result.schema["late_row"].dataType.fieldNames() == CARDS.fieldNames()
    assert [tuple(r) for r in result.collect()] == [("a", at(0), 900.0, 3, 1, "MATCHED", None)]


@pytest.mark.parametrize(
    ("body", "error", "message", "caret"),
    [
        (
            "PARTITION BY card ORDER BY amount PATTERN (A)",
            SemanticError,
            "must start with the event-time",
            "amount",
        ),
        (
            "PARTITION BY card ORDER BY ts DESC PATTERN (A)",
            SemanticError,
            "must be ascending",
            "ts DESC",
        ),
        (
            "PARTITION BY card ORDER BY ts PATTERN (A B $) DEFINE A AS amount > 1",
            UnsupportedError,
            "'$'",
            "$",
        ),
        # Spark's NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING, with a plan, when it started
        (
            "PARTITION BY card ORDER BY ts PATTERN (A) "
            "DEFINE A AS amount > lag(amount) OVER (PARTITION BY card ORDER BY ts)",
            UnsupportedError,
            "window function over the input (OVER) cannot run on a stream",
            "amount > lag",
        ),
        (
            "PARTITION BY card ORDER BY ts PATTERN (A B) "
            "DEFINE B AS row_number() OVER (PARTITION BY card ORDER BY ts) > 1",
            UnsupportedError,
            "window function over the input (OVER) cannot run on a stream",
            "row_number()",
        ),
    ],
)
def test_queries_a_stream_cannot_run_fail_before_it_starts(
    spark, tmp_path, body, error, message, caret
):
    stream = FolderStream(spark, tmp_path, CARDS, "ts", "1 minute")
    with pytest.raises(error) as info:
        matchrec.match_recognize(stream.source(), body)
    assert message in info.value.message
    assert body[info.value.pos :].startswith(caret)


def test_a_partition_key_spark_cannot_compare_is_refused_at_the_key_on_a_stream(spark, tmp_path):
    """As in batch, before the query starts: a MAP key, at any depth (the bucket of a
    STRUCT or ARRAY key is found as Spark groups it, ``test_stream_keys``); and, unlike
    batch, a key with a collation."""
    stream = FolderStream(spark, tmp_path, CARDS, "ts", "1 minute")
    source = stream.source().selectExpr("*", "array(map('c', card)) AS tags")
    body = "PARTITION BY card, tags ORDER BY ts PATTERN (A) DEFINE A AS amount > 1"
    with pytest.raises(SemanticError) as info:
        matchrec.match_recognize(source, body)
    assert "'tags' is ARRAY<MAP<STRING,STRING>>, which Spark cannot" in info.value.message
    assert body[info.value.pos :].startswith("tags")
    # a key or ORDER BY column with a collation, at any depth: a stream kept 'card7' and
    # 'CARD7' of a UTF8_LCASE key apart, as Spark's own state stores would refuse to
    collated = stream.source().selectExpr(
        "*",
        "collate(card, 'UTF8_LCASE') AS ck",
        "array(named_struct('c', collate(card, 'UTF8_LCASE_RTRIM'))) AS sk",
    )
    for body, caret in (
        ("PARTITION BY ck ORDER BY ts PATTERN (A) DEFINE A AS amount > 1", "ck"),
        ("PARTITION BY card, sk ORDER BY ts PATTERN (A) DEFINE A AS amount > 1", "sk"),
        ("PARTITION BY card ORDER BY ts, ck PATTERN (A) DEFINE A AS amount > 1", "ck"),
    ):
        with pytest.raises(UnsupportedError) as info:
            matchrec.match_recognize(collated, body)
        assert "a key with a collation cannot be kept apart" in info.value.message
        assert body[info.value.pos :].startswith(caret) and "lower(" in info.value.hint


def test_a_stream_sorted_after_the_clause_is_refused_at_its_order_by(spark, tmp_path):
    """No output mode runs a sort of a stream's matches: matchrec.sql built it and
    ``start()`` failed with Spark's message and a plan of matchrec's internal columns.
    An aggregation, which update mode runs, is still built."""
    stream = FolderStream(spark, tmp_path, CARDS, "ts", "1 minute")
    stream.source().createOrReplaceTempView("cards_stream")
    clause = """cards_stream MATCH_RECOGNIZE (PARTITION BY card ORDER BY ts
        MEASURES count(*) AS n PATTERN (A B) DEFINE B AS B.amount > A.amount)"""
    query = f"SELECT * FROM {clause}\nORDER BY n DESC"
    with pytest.raises(SemanticError) as info:
        matchrec.sql(spark, query)
    assert "no output mode of a stream can run this query: Sorting" in info.value.message
    assert query[info.value.pos :].startswith("ORDER BY n DESC")
    assert "foreachBatch" in info.value.hint
    grouped = f"SELECT card, count(*) AS k FROM {clause} GROUP BY card"
    assert matchrec.sql(spark, grouped).isStreaming


def test_a_stream_without_order_by_is_refused_without_a_warning_first(spark, tmp_path):
    """A stream without ORDER BY is an error; the batch warning about arbitrary order
    would only be noise before it."""
    stream = FolderStream(spark, tmp_path, CARDS, "ts", "1 minute")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with pytest.raises(SemanticError, match="event-time"):
            matchrec.match_recognize(stream.source(), "PARTITION BY card PATTERN (A)")
    assert not [w for w in seen if issubclass(w.category, ArbitraryOrderWarning)]


def test_a_stream_without_watermark_is_told_how_to_add_one(spark, tmp_path):
    stream = FolderStream(spark, tmp_path, CARDS, "ts", "1 minute")
    source = spark.readStream.schema(CARDS).parquet(str(stream.inbox))
    with pytest.raises(SemanticError) as info:
        matchrec.match_recognize(source, "PARTITION BY card ORDER BY ts PATTERN (A)")
    assert "watermark" in info.value.message
    assert "withWatermark" in info.value.hint


def test_a_window_aggregation_before_the_clause_is_told_to_use_window_time(spark, tmp_path):
    """``window.end`` of a window aggregation carries no watermark; the hint named only
    withWatermark, while ``window_time(window)`` is the column that has it."""
    stream = FolderStream(spark, tmp_path, CARDS, "ts", "1 minute")
    source = spark.readStream.schema(CARDS).parquet(str(stream.inbox))
    source = source.withWatermark("ts", "1 minute")
    sums = source.groupBy("card", F.window("ts", "5 minutes")).agg(F.sum("amount").alias("total"))
    with pytest.raises(SemanticError) as info:
        matchrec.match_recognize(
            sums.select("card", F.col("window.end").alias("ts"), "total"),
            "PARTITION BY card ORDER BY ts PATTERN (A)",
        )
    assert "window_time(window) has the watermark" in info.value.hint
    ok = sums.select("card", F.window_time("window").alias("ts"), "total")
    matchrec.match_recognize(ok, "PARTITION BY card ORDER BY ts PATTERN (A) DEFINE A AS true")


def test_explain_shows_the_streaming_plan_and_warns_of_unbounded_searches(spark, tmp_path):
    stream = FolderStream(spark, tmp_path, CARDS, "ts", "1 minute")
    stream.source().createOrReplaceTempView("events")
    unbounded = matchrec.explain(
        spark,
        "SELECT * FROM events MATCH_RECOGNIZE (PARTITION BY card ORDER BY ts "
        "PATTERN (S B*) DEFINE S AS amount < 2, B AS amount > PREV(amount))",
    ).text
    assert "Event time: ts (watermark delay 60000 ms)" in unbounded
    assert "buckets" in unbounded and "TransformWithState" in unbounded
    assert "WARNING: the quantifier * has no upper bound" in unbounded
    bounded = matchrec.explain(spark, FRAUD).text
    assert "WARNING" not in bounded and "WITHIN (600 s)" in bounded
    assert "'LATE'" not in bounded
    late = FRAUD.replace("ONE ROW PER MATCH", "ONE ROW PER MATCH WITH LATE ROWS")
    assert "output row with match_status 'LATE'" in matchrec.explain(spark, late).text


def test_matchrec_run_streams_a_folder_and_a_second_run_goes_on(spark, tmp_path):
    """``matchrec run --stream``: a first run appends the matches of the files there, a
    second run with the same checkpoint only those of the files that came since."""
    from matchrec.runtime.cli import main

    inbox, out, chk = tmp_path / "in", tmp_path / "out", tmp_path / "chk"
    query = tmp_path / "fraud.sql"
    query.write_text(FRAUD)
    stream = FolderStream(spark, tmp_path, CARDS, "ts", "1 minute")
    rows = [("a", at(m), 1.0, "FR") for m in (0, 1, 2)] + [("a", at(3), 900.0, "US")]
    later = [("b", at(m), 1.0, "FR") for m in (40, 41, 42)] + [("b", at(43), 990.0, "US")]
    stream.write(rows)
    stream.write([("zz", at(30), 50.0, "XX")])
    args = [
        "run",
        str(query),
        "--table",
        f"events={inbox}",
        "--stream",
        "--watermark",
        "events.ts=1m",
    ]
    args += ["--out", str(out), "--checkpoint", str(chk)]
    assert main(args) == 0
    first = spark.read.parquet(str(out)).collect()
    assert [(r.card, r.big) for r in first] == [("a", 900.0)]
    stream.write(later)
    stream.write([("zz", at(90), 50.0, "XX")])
    assert main(args) == 0
    both = sorted((r.card, r.big) for r in spark.read.parquet(str(out)).collect())
    assert both == [("a", 900.0), ("b", 990.0)]


def test_matchrec_run_stream_options_are_checked(tmp_path, capsys):
    from matchrec.runtime.cli import main

    query = tmp_path / "q.sql"
    query.write_text(FRAUD)
    (tmp_path / "in").mkdir()
    assert main(["run", str(query), "--stream"]) == 2
    assert "--stream needs --out DIR and --checkpoint DIR" in capsys.readouterr().err
    assert main(["run", str(query), "--watermark", "events.ts=1m"]) == 2
    assert "go with --stream" in capsys.readouterr().err
    bad = ["run", str(query), "--stream", "--watermark", "events.ts"]
    assert main([*bad, "--out", str(tmp_path / "o"), "--checkpoint", str(tmp_path / "c")]) == 2
    assert "TABLE.COLUMN=DELAY" in capsys.readouterr().err


def test_a_killed_driver_restarts_from_its_checkpoint_with_nothing_lost_or_twice(spark, tmp_path):
    """A driver process runs the stream and is killed (SIGKILL, JVM included) while it
    works through the files; the query restarted from the checkpoint in another driver
    finishes: the output equals the batch answer, each match once."""
    import os
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    rows = card_events(seed=1)
    files = arrival_files(rows, seed=1, files=6, jitter_minutes=1.5)
    stream = FolderStream(spark, tmp_path, CARDS, "ts", "2 minutes")
    for part in files[:4]:
        stream.write(part)
    driver = Path(__file__).resolve().parent / "stream_driver.py"
    process = subprocess.Popen(
        [sys.executable, str(driver), str(tmp_path)],
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 300
        # kill once the third micro-batch is planned (its offsets logged), before or
        # while it commits
        while not (stream.checkpoint / "offsets" / "2").exists():
            assert process.poll() is None, "the driver process ended by itself"
            assert time.monotonic() < deadline, "the driver made no progress"
            time.sleep(0.05)
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    assert not (stream.checkpoint / "commits" / "3").exists()

    def build(source):
        source.createOrReplaceTempView("events")
        return matchrec.sql(spark, FRAUD)

    query = stream.run(build, files[4:])
    stream.push_watermark(query, ("zz-end", None, 50.0, "XX"), at(200))
    query.stop()
    assert stream.output() == batch_answer(spark, rows, CARDS, FRAUD)


def test_the_table_function_on_a_stream_says_to_use_matchrec_sql(spark, tmp_path):
    """Spark's table function cannot keep a stream's state: called on a streaming TABLE
    it fails when the query is built, with matchrec's message naming matchrec.sql; the
    same text through matchrec.sql is a stream."""
    stream = FolderStream(spark, tmp_path, CARDS, "ts", "1 minute")
    stream.write([("a", at(0), 1.0, "FR")])
    stream.source().createOrReplaceTempView("tf_events")
    matchrec.register(spark)
    query = (
        "SELECT * FROM match_recognize(TABLE(tf_events), 'PARTITION BY card ORDER BY ts "
        "MEASURES count(*) AS n PATTERN (A+) DEFINE A AS amount > 0')"
    )
    with pytest.raises(Exception, match="takes batch tables") as err:
        spark.sql(query)
    assert "matchrec.sql" in str(err.value)
    with pytest.raises(UnsupportedError, match="takes batch tables"):
        matchrec.sql(spark, query)  # the table function is Spark's: the same error, ours
    body = (
        "PARTITION BY card ORDER BY ts MEASURES count(*) AS n PATTERN (A+) DEFINE A AS amount > 0"
    )
    assert matchrec.sql(spark, f"SELECT * FROM tf_events MATCH_RECOGNIZE ({body})").isStreaming
