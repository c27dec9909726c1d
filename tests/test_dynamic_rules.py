"""MATCH_RECOGNIZE_DYNAMIC without Spark: its grammar, compiling rules (rules are data),
version schedules, and a stream bucket's rule versions against batch matching."""

from __future__ import annotations

import json
import random
from datetime import date, datetime, timedelta, timezone
from decimal import ROUND_HALF_UP, Decimal
from zoneinfo import ZoneInfo

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from matchrec.grammar.parser import parse_dynamic
from matchrec.planner.rules import RuleRow, compile_rule, schedule
from sqlglot import exp

from matchrec.errors import (
    MatchRuntimeError,
    SemanticError,
    ShadowedVersionWarning,
    SqlSyntaxError,
    UnsupportedError,
)
from matchrec.keyed_stream import EVENT_MICROS
from matchrec.rule_set import RuleBucket, run_batch
from matchrec.zones import use_zone

COLUMNS = {
    "card": exp.DataType.build("string"),
    "ts": exp.DataType.build("timestamp"),
    "amount": exp.DataType.build("double"),
    "country": exp.DataType.build("string"),
}
SMALL_THEN_BIG = (
    "PARTITION BY card ORDER BY ts MEASURES FIRST(S.ts) AS t0, count(S.*) AS smalls, "
    "LAST(B.amount) AS big PATTERN (S{2,} B) "
    "DEFINE S AS amount < {limit}, B AS amount > 100 AND country <> FIRST(S.country)"
)


def _spec(limit: int) -> str:
    return SMALL_THEN_BIG.replace("{limit}", str(limit))


# ---------------------------------------------------------------------------- grammar


def test_dynamic_body_parses_keys_and_on_error() -> None:
    clause = parse_dynamic(
        "RULES FROM db.`my rules` KEYS (card), (merchant, country), () ON ERROR FAIL"
    )
    assert clause.rules.text == "db.`my rules`"
    assert [[k.text for k in s] for s in clause.key_sets] == [["card"], ["merchant", "country"], []]
    assert clause.on_error == "fail"
    plain = parse_dynamic("RULES FROM rules")
    assert plain.key_sets is None and plain.on_error == "skip"


@pytest.mark.parametrize(
    ("body", "message", "column"),
    [
        ("RULES rules", "expected FROM", 7),
        ("RULES FROM r ON ERROR IGNORE", "expected one of: SKIP, FAIL", 23),
        ("PATTERN (A)", "expected RULES", 1),
        ("RULES FROM", "expected an expression", 11),
    ],
)
def test_dynamic_body_errors_point_at_the_token(body: str, message: str, column: int) -> None:
    with pytest.raises(SqlSyntaxError) as err:
        parse_dynamic(body)
    assert message in err.value.message
    assert f"column {column})" in str(err.value)


# ---------------------------------------------------------------------------- rules are data


@pytest.mark.parametrize(
    ("define", "phrase"),
    [
        ("reflect('java.lang.System', 'exit', '0') = 1", "reflect() is not allowed in a rule"),
        ("java_method('java.lang.Math', 'abs', amount) > 1", "java_method() is not allowed"),
        ("amount > (SELECT max(amount) FROM payments)", "may not contain a subquery"),
        ("EXISTS (SELECT 1 FROM payments)", "may not contain a subquery"),
        ("input_file_name() LIKE '%x'", "input_file_name() is not allowed"),
        ("rand() > 0.5", "not deterministic"),
        ("raise_error('x') IS NULL", "must not stop others"),
        ("my_udf(amount) > 1", "cannot be evaluated in a rule"),
        # named as written
        ("sentences(country)[0][0] = 'x'", "sentences() cannot be evaluated in a rule"),
        # matchrec.sql counts (a, b) as a struct, which rules do not evaluate: said so at
        # the count, not as a struct() the rule never wrote
        ("count(DISTINCT A.card, A.country) < 3", "count(DISTINCT ...) of several values"),
    ],
)
def test_rules_are_data(define: str, phrase: str) -> None:
    spec = f"PARTITION BY card ORDER BY ts PATTERN (A) DEFINE A AS {define}"
    with pytest.raises(UnsupportedError) as err:
        compile_rule(RuleRow("r", 1, spec), COLUMNS)
    assert phrase in err.value.message
    assert err.value.pos >= spec.index("DEFINE A AS") + len("DEFINE A AS")


@pytest.mark.parametrize(
    ("measure", "phrase"),
    [
        (
            "to_csv(named_struct('a', FIRST(A.ts), 'b', LAST(A.ts)))",
            "a rule cannot evaluate to_csv() in MEASURES",
        ),
        ("schema_of_json(LAST(A.country))", "schema_of_json() cannot be evaluated in a rule"),
    ],
    ids=["several_rows", "one_row"],
)
def test_a_measure_a_rule_cannot_evaluate_is_said_in_a_rules_words(
    measure: str, phrase: str
) -> None:
    """Not "the table function cannot evaluate ... over values from several rows", with
    a hint to CAST: a rule's measures run on its evaluator, which lacks to_csv of values
    of several rows and schema_of_json of one navigated row."""
    spec = f"PARTITION BY card ORDER BY ts MEASURES {measure} AS y PATTERN (A) DEFINE A AS true"
    with pytest.raises(UnsupportedError) as err:
        compile_rule(RuleRow("r", 1, spec), COLUMNS)
    assert phrase in err.value.message
    assert "table function" not in err.value.message
    assert "event column" in (err.value.hint or "")
    assert spec[err.value.pos :].startswith(measure.split("(")[0] + "(")


def test_a_rule_cannot_ask_for_late_rows() -> None:
    spec = "PARTITION BY card ORDER BY ts ONE ROW PER MATCH WITH LATE ROWS PATTERN (A)"
    with pytest.raises(UnsupportedError, match="WITH LATE ROWS") as err:
        compile_rule(RuleRow("r", 1, spec), COLUMNS)
    assert spec[err.value.pos :].startswith("LATE ROWS")


def test_a_rule_reads_only_event_columns() -> None:
    with pytest.raises(SemanticError, match="salary"):
        compile_rule(RuleRow("r", 1, "PATTERN (A) DEFINE A AS salary > 1"), COLUMNS)


def test_key_sets_are_sets_and_unsortable_keys_are_refused_at_the_key() -> None:
    """``KEYS (card, country)`` takes ``PARTITION BY country, card``. A key holding a MAP
    or a VARIANT is refused at the key (Spark cannot compare them); ARRAY and STRUCT keys
    compile, for batch and stream."""
    turned = "PARTITION BY country, card ORDER BY ts PATTERN (A) DEFINE A AS amount > 1"
    rule = compile_rule(RuleRow("r", 1, turned), COLUMNS, key_sets=[("CARD", "country")])
    assert rule.keys == ["country", "card"]
    nested = {**COLUMNS, "cards": exp.DataType.build("array<string>", dialect="spark")}
    nested["who"] = exp.DataType.build("struct<c: string>", dialect="spark")
    nested["tags"] = exp.DataType.build("map<string, int>", dialect="spark")
    nested["deep"] = exp.DataType.build("array<struct<m: map<int, int>>>", dialect="spark")
    nested["doc"] = exp.DataType.build("variant", dialect="spark")
    for key in ("tags", "deep", "doc"):
        for stream in (None, "ts"):
            spec = f"PARTITION BY card, {key} ORDER BY ts PATTERN (A) DEFINE A AS amount > 1"
            with pytest.raises(SemanticError, match="a rule's PARTITION BY takes no") as err:
                compile_rule(RuleRow("r", 1, spec), nested, event_time=stream)
            assert spec[err.value.pos :].startswith(key)
    for stream in (None, "ts"):
        keyed = "PARTITION BY who, cards ORDER BY ts PATTERN (A) DEFINE A AS amount > 1"
        assert compile_rule(RuleRow("r", 1, keyed), nested, event_time=stream).keys == [
            "who",
            "cards",
        ]


def test_key_sets_and_event_time_are_enforced() -> None:
    spec = "PARTITION BY country ORDER BY ts PATTERN (A) DEFINE A AS amount > 1"
    with pytest.raises(SemanticError, match="not one of the query's KEYS: \\(card\\)") as err:
        compile_rule(RuleRow("r", 1, spec), COLUMNS, key_sets=[("card",)])
    assert err.value.pos == spec.index("country")
    unpartitioned = "ORDER BY ts PATTERN (A) DEFINE A AS amount > 1"
    with pytest.raises(SemanticError, match="this rule has no PARTITION BY, which") as err:
        compile_rule(RuleRow("r", 1, unpartitioned), COLUMNS, key_sets=[("card",)])
    assert err.value.pos == 0 and "()" in err.value.hint  # the caret was at PATTERN
    with pytest.raises(SemanticError, match="event-time column 'ts'"):
        compile_rule(
            RuleRow("r", 1, "PARTITION BY card ORDER BY amount PATTERN (A) DEFINE A AS amount > 1"),
            COLUMNS,
            event_time="ts",
        )
    with pytest.raises(SemanticError, match="active_from needs ORDER BY an event-time"):
        compile_rule(
            RuleRow("r", 1, "ORDER BY amount PATTERN (A) DEFINE A AS amount > 1", active_from=0),
            COLUMNS,
        )


# ---------------------------------------------------------------------------- schedules


def test_within_over_a_rule_ordered_by_no_time_is_refused_as_in_match_recognize() -> None:
    """It ran, the span measured in amounts, when active_from was NULL."""
    spec = "PARTITION BY card ORDER BY amount PATTERN (A B) WITHIN INTERVAL '1' SECOND"
    with pytest.raises(SemanticError, match="WITHIN needs ORDER BY on a timestamp or date") as err:
        compile_rule(RuleRow("w", 1, spec), COLUMNS)
    assert spec[err.value.pos :].startswith("amount")
    timed = spec.replace("ORDER BY amount", "ORDER BY ts")
    assert compile_rule(RuleRow("w", 1, timed), COLUMNS) is not None


def test_end_anchor_in_a_rule_on_a_stream_is_refused() -> None:
    """The rule ran and never matched: a stream's partitions have no last row."""
    spec = "PARTITION BY card ORDER BY ts PATTERN (A B $) DEFINE B AS amount > A.amount"
    with pytest.raises(UnsupportedError, match="never comes on a stream") as err:
        compile_rule(RuleRow("d", 1, spec), COLUMNS, [("card",)], event_time="ts")
    assert spec[err.value.pos :].startswith("$")
    assert compile_rule(RuleRow("d", 1, spec), COLUMNS) is not None  # a batch has one


@pytest.mark.parametrize("spec", [None, "", "  \n "])
def test_a_rule_without_a_spec_says_so(spec) -> None:
    """A NULL spec was Python's TypeError (a Spark job: an empty clause's syntax error at
    line 1, column 1)."""
    with pytest.raises(SemanticError, match="rule 'r' version 3 has no spec") as err:
        compile_rule(RuleRow("r", 3, spec), COLUMNS)
    assert "enabled" in err.value.hint


def test_versions_cover_times_until_the_next_version() -> None:
    rows = [
        RuleRow("a", 1, "v1"),
        RuleRow("a", 2, "v2", active_from=100),
        RuleRow("a", 3, "broken", active_from=150),
        RuleRow("a", 4, "off", active_from=200, enabled=False),
        RuleRow("b", 1, "b1", active_from=50),
    ]
    planned = schedule(rows, broken=lambda r: r.spec == "broken")
    windows = {(r.rule_id, r.version): (w.start, w.end) for r, w in planned}
    # the broken version 3 is left out: version 2 runs on until version 4 disables the rule
    assert windows == {("a", 1): (None, 100), ("a", 2): (100, 200), ("b", 1): (50, None)}


def test_a_scheduled_version_a_later_one_starts_before_is_warned_about() -> None:
    """Version 2 scheduled at 200 and version 3 (back-dated) at 100: version 2 never
    applies, which nothing said. Two unscheduled versions (the later replaces the
    earlier, the usual update) are no warning."""
    rows = [
        RuleRow("a", 1, "v1"),
        RuleRow("a", 2, "v2", active_from=200),
        RuleRow("a", 3, "v3", active_from=100),
        RuleRow("b", 1, "b1"),
        RuleRow("b", 2, "b2"),
    ]
    with pytest.warns(ShadowedVersionWarning) as caught:
        planned = schedule(rows, broken=lambda r: False)
    assert [str(w.message) for w in caught] == [
        "rule 'a' version 2 never applies: version 3 starts at or before its active_from"
    ]
    assert {r.version for r, _ in planned if r.rule_id == "a"} == {1, 3}


# ---------------------------------------------------------------------------- buckets


def _events(seed: int, n: int = 120) -> pa.Table:
    rng = random.Random(seed)
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    rows = []
    for i in range(n):
        card = rng.choice(["c1", "c2", "c3"])
        amount = rng.choice([1.0, 2.0, 3.0, 4.0, 150.0, 600.0])
        rows.append((card, start + timedelta(minutes=i), amount, rng.choice(["FR", "US"])))
    table = pa.table(
        {
            "card": [r[0] for r in rows],
            "ts": pa.array([r[1] for r in rows], pa.timestamp("us", tz="UTC")),
            "amount": [r[2] for r in rows],
            "country": [r[3] for r in rows],
        }
    )
    micros = table.column("ts").cast(pa.int64())
    return table.append_column(EVENT_MICROS, micros)


def _compiler():
    cache = {}

    def compile_(spec, version, rule_id, active_from):
        key = (spec, version, rule_id, active_from is not None)
        if key not in cache:
            cache[key] = compile_rule(RuleRow(rule_id, version, spec, active_from), COLUMNS)
        return cache[key]

    return compile_


def _normal(rows):
    return sorted((r[0], r[1], r[2], r[3], r[4], r[5]) for r in rows)


@pytest.mark.parametrize("seed", range(6))
def test_a_stream_bucket_gives_the_batch_answer(seed: int) -> None:
    """Events arrive shuffled in micro-batches; a second version of the rule arrives
    before its active_from, a third disables it: the output equals batch matching of each
    version over the event times it covers."""
    events = _events(seed)
    micros = events.column(EVENT_MICROS).to_pylist()
    switch, stop = micros[40], micros[90]
    rules = [
        [("small", 1, _spec(3), None, True)],
        [("small", 2, _spec(4), switch, True), ("other", 1, _spec(2), None, True)],
        [("small", 3, "", stop, False)],
    ]
    compile_ = _compiler()
    bucket = RuleBucket(["card"], 1, True)
    rng = random.Random(seed)
    out = []
    cut = [0, 30, 60, 120]
    for k, (low, high) in enumerate(zip(cut, cut[1:])):
        part = events.slice(low, high - low)
        part = part.take(pa.array(rng.sample(range(part.num_rows), part.num_rows)))
        watermark = micros[low] - 1 if low else None  # behind every row still to come
        out += bucket.add_rules(rules[k], watermark, compile_)
        done, _ = bucket.advance(part, watermark, compile_)
        out += done
    done, _ = bucket.advance(None, micros[-1] + 10**9, compile_)
    out += done
    done, _ = bucket.advance(None, micros[-1] + 2 * 10**9, compile_)  # the wake-up
    out += done
    table = events.drop_columns([EVENT_MICROS])
    expected = run_batch(compile_(_spec(3), 1, "small", None), table, None, switch)
    expected += run_batch(compile_(_spec(4), 2, "small", switch), table, switch, stop)
    other_start = micros[30] - 1  # arrived with the second micro-batch's watermark
    expected += run_batch(compile_(_spec(2), 1, "other", None), table, other_start, None)
    assert _normal(out) == _normal(expected)
    assert out, "the rules found nothing: the test data does not exercise them"


def test_bucket_state_survives_save_and_load() -> None:
    events = _events(7)
    compile_ = _compiler()
    bucket = RuleBucket(["card"], 4, False)
    bucket.add_rules([("small", 1, _spec(3), None, True)], None, compile_)
    bucket.advance(events.slice(0, 50), events.column(EVENT_MICROS)[30].as_py(), compile_)
    again = RuleBucket.load(["card"], 4, False, bucket.save())
    assert [v.as_dict() for v in again.versions] == [v.as_dict() for v in bucket.versions]
    assert again.latest == bucket.latest
    assert again.pending.equals(bucket.pending)
    assert again.watermark == bucket.watermark == events.column(EVENT_MICROS)[30].as_py()


def test_a_static_rule_table_changed_before_a_restart_applies_at_the_watermark() -> None:
    """The static rule table is read again when the query restarts from its checkpoint:
    a new version, a deletion (enabled = false) and a new rule take effect at the
    watermark (they were ignored once the bucket had rules in its state)."""
    events = _events(5)
    micros = events.column(EVENT_MICROS).to_pylist()
    compile_ = _compiler()
    first = [("small", 1, _spec(3), None, True), ("gone", 1, _spec(2), None, True)]
    bucket = RuleBucket(["card"], 1, True)
    bucket.add_static(first, micros[20], compile_)  # no state yet: from active_from
    assert [(v.rule_id, v.start) for v in bucket.versions] == [("small", None), ("gone", None)]
    bucket.advance(events.slice(0, 40), micros[20], compile_)
    restarted = RuleBucket.load(["card"], 1, True, bucket.save())
    edited = [
        *first,
        ("small", 2, _spec(4), None, True),
        ("gone", 2, "", None, False),
        ("new", 1, _spec(2), None, True),
    ]
    assert restarted.add_static(edited, micros[40], compile_) == []
    spans = {(v.rule_id, v.version): (v.start, v.end) for v in restarted.versions}
    assert spans == {
        ("small", 1): (None, micros[40]),
        ("gone", 1): (None, micros[40]),
        ("small", 2): (micros[40], None),
        ("new", 1): (micros[40], None),
    }
    assert restarted.add_static(edited, micros[60], compile_) == []  # the next micro-batch
    assert {(v.rule_id, v.version) for v in restarted.versions} == set(spans)


def test_events_at_or_behind_the_watermark_the_bucket_passed_are_late() -> None:
    events = _events(3)
    micros = events.column(EVENT_MICROS).to_numpy()
    bucket = RuleBucket(["card"], 1, True)
    assert bucket.drop_late(events)[1] == 0  # no watermark yet: nothing is late
    bucket.advance(events.slice(0, 20), int(micros[10]), _compiler())
    kept, late = bucket.drop_late(events.slice(0, 40))
    assert late == 11  # rows 0..10: behind or at the watermark
    assert kept.column(EVENT_MICROS).to_pylist() == micros[11:40].tolist()


def test_a_broken_version_is_reported_once_and_the_previous_one_runs_on() -> None:
    compile_ = _compiler()
    reporter, other = RuleBucket(["card"], 2, True), RuleBucket(["card"], 2, False)
    rows = [("small", 1, _spec(3), None, True), ("small", 2, "PATTERN (A", None, True)]
    errors = reporter.add_rules(rows, None, compile_)
    assert other.add_rules(rows, None, compile_) == []
    assert [(e[0], e[1], e[2]) for e in errors] == [("small", 2, "ERROR")]
    assert "'(' is never closed" in errors[0][7]
    assert [(v.version, v.end) for v in reporter.versions] == [(1, None)]
    failing = RuleBucket(["card"], 2, False)  # ON ERROR FAIL: the query stops at it
    with pytest.raises(SqlSyntaxError, match="rule 'small' version 2: .*never closed") as err:
        failing.add_rules(rows, None, compile_, skip_errors=False)
    assert err.value.sql == "PATTERN (A" and err.value.pos is not None


def test_rules_of_one_call_share_their_sort_and_row_local_conditions() -> None:
    """Two rules that test the same condition (different counts around it) compute it
    once per call; each still gives what it gives alone."""
    events = _events(11).drop_columns([EVENT_MICROS])
    compile_ = _compiler()
    three, four = compile_(_spec(3), 1, "three", None), compile_(_spec(4), 1, "four", None)
    shared: dict = {}
    together = run_batch(three, events, None, None, shared) + run_batch(
        four, events, None, None, shared
    )
    alone = run_batch(three, events, None, None) + run_batch(four, events, None, None)
    assert _normal(together) == _normal(alone)
    ((ordered, values),) = shared.values()  # one sort for both rules
    texts = {text for *_, text in three.local} | {text for *_, text in four.local}
    assert set(values) == texts  # each distinct condition computed once
    assert len(texts) < len(three.local) + len(four.local), "the rules must share a condition"


# a zero divisor on card c2's rows only: row-local, in DEFINE's glue, in MEASURES
ZERO_ON_C2 = "(CASE WHEN card = 'c2' THEN 0 ELSE 1 END)"
RAISING = {
    "row-local": _spec(3).replace("amount < 3", f"amount / {ZERO_ON_C2} < 3"),
    "define glue": _spec(3).replace("amount > 100", f"amount / {ZERO_ON_C2} > FIRST(S.amount)"),
    "measures": _spec(3).replace("LAST(B.amount) AS big", f"LAST(B.amount) / {ZERO_ON_C2} AS big"),
}


@pytest.mark.parametrize("where", RAISING)
def test_a_rule_that_raises_stops_on_its_partition_only(where: str) -> None:
    """Under ANSI mode a zero divisor raises as Spark's DIVIDE_BY_ZERO, positioned in the
    rule's text: the partition it raised on gives one ERROR row naming its keys, the other
    partitions give what the rule gives without that partition's rows."""
    from matchrec.rule_set import run_batch_isolated

    spec = RAISING[where]
    events = _events(5).drop_columns([EVENT_MICROS])
    rule = compile_rule(RuleRow("r", 1, spec), COLUMNS)
    out = run_batch_isolated(rule, events, None, None)
    errors = [r for r in out if r[2] == "ERROR"]
    assert [(e[0], e[1], e[4]) for e in errors] == [("r", 1, '{"card":"c2"}')]
    assert "DIVIDE_BY_ZERO" in errors[0][7] and "^" in errors[0][7]
    others = events.filter(pc.not_equal(events.column("card"), "c2"))
    expected = run_batch(rule, others, None, None)
    assert expected, "the other cards must match"
    assert _normal([r for r in out if r[2] != "ERROR"]) == _normal(expected)
    with pytest.raises(MatchRuntimeError, match="DIVIDE_BY_ZERO"):
        run_batch(rule, events, None, None)  # ON ERROR FAIL: the error itself
    lenient = compile_rule(RuleRow("r", 1, spec), COLUMNS, ansi=False)
    assert all(r[2] != "ERROR" for r in run_batch_isolated(lenient, events, None, None))


@pytest.mark.parametrize("where", RAISING)
def test_a_stream_version_that_raises_stops_on_that_key_only(where: str) -> None:
    """On a stream, as in a batch query, a rule that raises on card c2's rows stops on c2
    only: one ERROR row naming the key, over micro-batches and restarts from the saved
    state; the other cards of the same bucket give the rule's batch answer without c2."""
    events = _events(5)
    micros = events.column(EVENT_MICROS).to_pylist()
    compile_ = _compiler()
    bucket = RuleBucket(["card"], 1, True)
    bucket.add_rules([("bad", 1, RAISING[where], None, True)], None, compile_)
    out = []
    cut = [0, 40, 80, 120]
    for low, high in zip(cut, cut[1:]):
        watermark = micros[low] - 1 if low else None
        done, _ = bucket.advance(events.slice(low, high - low), watermark, compile_)
        out += done
        bucket = RuleBucket.load(["card"], 1, True, bucket.save())
    done, _ = bucket.advance(None, micros[-1] + 10**9, compile_)
    out += done
    errors = [r for r in out if r[2] == "ERROR"]
    assert [(e[0], e[1], e[4]) for e in errors] == [("bad", 1, '{"card":"c2"}')]
    assert "DIVIDE_BY_ZERO" in errors[0][7] and "^" in errors[0][7]
    table = events.drop_columns([EVENT_MICROS])
    others = table.filter(pc.not_equal(table.column("card"), "c2"))
    expected = run_batch(compile_(RAISING[where], 1, "bad", None), others, None, None)
    assert {r[4] for r in expected} == {'{"card":"c1"}', '{"card":"c3"}'}
    assert _normal([r for r in out if r[2] != "ERROR"]) == _normal(expected)


def test_a_stream_version_that_raises_stops_and_the_others_run_on() -> None:
    events = _events(5)
    micros = events.column(EVENT_MICROS).to_pylist()
    compile_ = _compiler()
    bucket = RuleBucket(["card"], 1, True)
    bucket.add_rules(
        [("bad", 1, RAISING["measures"], None, True), ("good", 1, _spec(3), None, True)],
        None,
        compile_,
    )
    out, _ = bucket.advance(events, micros[-1] + 1, compile_)
    errors = [r for r in out if r[2] == "ERROR"]
    assert [(e[0], e[1]) for e in errors] == [("bad", 1)] and "DIVIDE_BY_ZERO" in errors[0][7]
    assert [(v.rule_id, v.stopped) for v in bucket.versions] == [
        ("bad", ['{"card":"c2"}']),  # stopped on c2 only
        ("good", []),
    ]
    table = events.drop_columns([EVENT_MICROS])
    expected = run_batch(compile_(_spec(3), 1, "good", None), table, None, None)
    assert expected and _normal([r for r in out if r[0] == "good"]) == _normal(expected)
    with pytest.raises(MatchRuntimeError, match="DIVIDE_BY_ZERO"):
        failing = RuleBucket(["card"], 1, True)
        failing.add_rules([("bad", 1, RAISING["measures"], None, True)], None, compile_)
        failing.advance(events, micros[-1] + 1, compile_, skip_errors=False)


def _broken(*_args, **_kwargs):
    raise ValueError("an Arrow value Python cannot read")  # a fault of matchrec's own


def test_a_fault_of_matchrec_in_one_rule_is_its_error_row_not_the_end_of_the_others(
    monkeypatch,
) -> None:
    """What raises in a rule that is no MatchRuntimeError (a TypeError of the evaluator
    stopped every rule of the job, ON ERROR SKIP or not) is that rule's ERROR row, batch
    and stream; ON ERROR FAIL raises it as matchrec's error."""
    from matchrec.rule_set import run_batch_failing, run_batch_isolated

    events = _events(5)
    table = events.drop_columns([EVENT_MICROS])
    rule = compile_rule(RuleRow("r", 1, _spec(3)), COLUMNS)
    monkeypatch.setattr(rule, "with_local", _broken)
    out = run_batch_isolated(rule, table, None, None)
    assert [(r[0], r[2], r[4]) for r in out] == [("r", "ERROR", None)]  # once, not per key
    assert "matchrec could not run this rule here: ValueError: an Arrow value" in out[0][7]
    with pytest.raises(MatchRuntimeError, match="could not run this rule here"):
        run_batch_failing(rule, table, None, None)

    compile_ = _compiler()
    monkeypatch.setattr(compile_(_spec(2), 1, "bad", None), "with_local", _broken)
    bucket = RuleBucket(["card"], 1, True)
    rules = [("bad", 1, _spec(2), None, True), ("good", 1, _spec(3), None, True)]
    bucket.add_rules(rules, None, compile_)
    micros = events.column(EVENT_MICROS).to_pylist()
    out, _ = bucket.advance(events, micros[-1] + 1, compile_)
    assert [(r[0], r[2]) for r in out if r[0] == "bad"] == [("bad", "ERROR")]
    expected = run_batch(compile_(_spec(3), 1, "good", None), table, None, None)
    assert expected and _normal([r for r in out if r[0] == "good"]) == _normal(expected)
    failing = RuleBucket(["card"], 1, True)
    failing.add_rules(rules[:1], None, compile_)
    with pytest.raises(MatchRuntimeError, match="could not run this rule here"):
        failing.advance(events, micros[-1] + 1, compile_, skip_errors=False)


@pytest.mark.parametrize("condition", ["info['city'] = 'Oslo'", "upper(info['city']) = 'OSLO'"])
def test_a_rule_reads_a_struct_field_by_subscript(condition: str) -> None:
    """``s['f']`` of a struct in a rule's DEFINE reads the field (the table function's
    rewrite of it as ``s.f`` had made rules refuse it: "cannot be evaluated in a rule")."""
    columns = {**COLUMNS, "info": exp.DataType.build("struct<city string, kg int>", "spark")}
    spec = "PARTITION BY card ORDER BY ts MEASURES A.amount AS a "
    spec += f"PATTERN (A) DEFINE A AS {condition}"
    rule = compile_rule(RuleRow("r", 1, spec), columns)
    events = _events(seed=3, n=4)
    cities = [{"city": c, "kg": 1} for c in ("Oslo", "Rome", "Oslo", None)]
    events = events.append_column("info", pa.array(cities))
    found = run_batch(rule, events, None, None)
    amounts = events.column("amount").to_pylist()
    assert sorted(json.loads(r[5])["a"] for r in found) == sorted(amounts[i] for i in (0, 2))


def test_a_condition_null_on_every_row_of_a_partition_matches_nothing_there() -> None:
    """``array_contains(A.tags, 'vip')`` over a partition whose tags are all NULL was a
    column of Arrow's null type, which the engine could not read as a mask: the job
    failed (ArrowInvalid) and every rule's output with it, ON ERROR SKIP or not."""
    columns = {**COLUMNS, "tags": exp.DataType.build("array<string>", "spark")}
    spec = "PARTITION BY card ORDER BY ts MEASURES count(*) AS n "
    spec += "PATTERN (A+) DEFINE A AS array_contains(A.tags, 'vip')"
    rule = compile_rule(RuleRow("r", 1, spec), columns)
    events = _events(seed=5, n=6)
    nulls = pa.array([None] * events.num_rows, pa.list_(pa.string()))
    assert run_batch(rule, events.append_column("tags", nulls), None, None) == []
    vip = pa.array([["vip"]] + [None] * (events.num_rows - 1), pa.list_(pa.string()))
    found = run_batch(rule, events.append_column("tags", vip), None, None)
    assert [json.loads(r[4])["card"] for r in found] == [events.column("card")[0].as_py()]


def test_decimal_measures_are_at_the_scale_of_spark_s_type() -> None:
    """avg of a DECIMAL(12,2) is a DECIMAL(16,6) and d / 4 a DECIMAL(16,6) in Spark (an
    integer literal counts as DECIMAL(1,0)): as text '9.600000' and '2.057500'. A rule
    wrote '9.60' and 2.0575 with 34 more zeros (Python's scale of the value)."""
    columns = {**COLUMNS, "amt": exp.DataType.build("decimal(12,2)", "spark")}
    measures = "CAST(avg(A.amt) AS STRING) AS a1, CAST(FIRST(A.amt) / 4 AS STRING) AS a2, "
    measures += "avg(A.amt) || '' AS a3, CAST(FIRST(A.amt) / 3 AS STRING) AS a4"
    spec = f"PARTITION BY card ORDER BY ts MEASURES {measures} PATTERN (A+) DEFINE A AS true"
    rule = compile_rule(RuleRow("r", 1, spec), columns)
    events = _events(seed=1, n=2).set_column(0, "card", pa.array(["c1", "c1"]))
    amounts = [Decimal("8.23"), Decimal("10.97")]
    events = events.append_column("amt", pa.array(amounts, pa.decimal128(12, 2)))
    (row,) = run_batch(rule, events, None, None)
    six = Decimal("0.000001")
    mean = (sum(amounts) / 2).quantize(six, ROUND_HALF_UP)
    assert json.loads(row[5]) == {
        "a1": str(mean),
        "a2": str((amounts[0] / 4).quantize(six, ROUND_HALF_UP)),
        "a3": str(mean),
        "a4": str((amounts[0] / 3).quantize(six, ROUND_HALF_UP)),
    }


@pytest.mark.parametrize("zone", ["UTC", "America/New_York", "Asia/Tokyo"])
def test_a_date_ordered_rule_starts_at_its_day_s_midnight_in_the_session_zone(zone) -> None:
    """A version whose active_from is a day's midnight in the session zone covers that
    day's rows, as Spark's CAST(d AS TIMESTAMP) >= active_from says: west of UTC the date
    was taken at UTC midnight, before active_from, and the day's rows were dropped."""
    columns = {"d": exp.DataType.build("date"), "seq": exp.DataType.build("int")}
    spec = "ORDER BY d, seq MEASURES FIRST(A.seq) AS s PATTERN (A) DEFINE A AS true"
    rule = compile_rule(RuleRow("r", 1, spec), columns)
    days = [date(2026, 3, 7), date(2026, 3, 8), date(2026, 3, 8), date(2026, 3, 9)]
    events = pa.table({"d": pa.array(days, pa.date32()), "seq": [0, 1, 2, 3]})
    midnight = datetime(2026, 3, 8, tzinfo=ZoneInfo(zone))
    start = int(midnight.timestamp()) * 1_000_000
    use_zone(zone)
    try:
        found = run_batch(rule, events, start, None)
    finally:
        use_zone(None)
    assert sorted(json.loads(r[5])["s"] for r in found) == [1, 2, 3]
