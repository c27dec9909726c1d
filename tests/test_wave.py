"""Searching from all start rows at once (``matchrec.wave``) finds exactly the matches of
the scalar matcher, one start row at a time.

Random partitions and a table of clauses whose DEFINE conditions read the match (other
variables' rows, FIRST/LAST, running aggregates, physical steps from them, NULLs,
WITHIN) run through the engine twice: with the array form of the conditions and without.
"""

from __future__ import annotations

import dataclasses
import math
import random
from datetime import datetime, timedelta

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matchrec.grammar import parse_clause
from matchrec.planner.plan import plan_clause
from pieces import match_in_pieces

from matchrec import engine, wave
from matchrec.engine import run_groups, run_partition

DEFINES = [
    "B AS B.v >= A.v AND avg(B.v) < A.v + 2, C AS C.v > A.v + 1",
    "A AS a, B AS B.v > PREV(B.v) OR count(B.*) < 2, C AS C.w <= FIRST(A.w) - 0.5",
    "B AS B.w > LAST(U.w) - 1 AND b, C AS sum(U.v) > 3 OR C.v IS NULL",
    "A AS A.v >= coalesce(LAST(B.v), 0), B AS max(B.w) - min(B.w) < 2.5, "
    "C AS abs(C.v - FIRST(v)) > 1",
    "B AS B.v BETWEEN FIRST(A.v) - 1 AND FIRST(A.v) + 1, C AS NEXT(LAST(B.v)) > C.v",
    "A AS A.w / 2 < 3, B AS B.w / (B.v - A.v) > 0.5 OR NOT b, C AS count(v) > 2",
    "B AS B.v * 2 >= A.v AND greatest(B.v, A.v) < 4, C AS least(C.w, PREV(C.w)) < A.w",
    "B AS B.v >= PREV(FIRST(A.v), 2) OR B.v IS NULL, C AS C.w > PREV(LAST(B.w), 3) + 1",
    # every row after the first compared with the first (matchrec.start_bound)
    "B AS B.v >= A.v AND avg(B.w) < A.w + 1, C AS C.v > PREV(A.v) + 1 OR C.v IS NULL",
    "B AS B.w >= FIRST(w) - 1 AND count(B.*) < 5, C AS C.w < LAST(A.w) AND C.v <> A.v",
]
PATTERNS = [
    "A B+ C",
    "(A | B)+ C?",
    "A B*? C",
    "A (B C)* B?",
    "^A B+ C?",
    "A B+ C? $",
    "PERMUTE(A, B) C*",
    "A? B* C?",
    "{- A -} B+ C",
    "(A+ B?)+ C",
    "A B{2,3} C",
]
SKIPS = ["PAST LAST ROW", "TO NEXT ROW", "TO LAST B", "TO FIRST C"]
START = datetime(2024, 1, 1)


WINDOW = "OVER (ORDER BY `t` ASC NULLS FIRST)"


def _lag(values, i):
    return values[i - 1] if i > 0 else None


def _strict(fn):
    return lambda *args: None if any(a is None for a in args) else fn(*args)


# Spark's value of each row-local column the DEFINES above ask for, as Spark would compute it
PRECOMPUTED = {
    f"`v` > LAG(`v`, 1) {WINDOW}": (
        pa.bool_(),
        lambda c, i: _strict(lambda x, y: x > y)(c["v"][i], _lag(c["v"], i)),
    ),
    "`v` IS NULL": (pa.bool_(), lambda c, i: c["v"][i] is None),
    "`w` / 2 < 3": (pa.bool_(), lambda c, i: _strict(lambda x: x / 2 < 3)(c["w"][i])),
    "NOT `b`": (pa.bool_(), lambda c, i: not c["b"][i]),
    "`v` * 2": (pa.int64(), lambda c, i: _strict(lambda x: x * 2)(c["v"][i])),
    f"LEAST(`w`, LAG(`w`, 1) {WINDOW})": (
        pa.float64(),
        lambda c, i: min((x for x in (c["w"][i], _lag(c["w"], i)) if x is not None), default=None),
    ),
}


class Columns(dict):
    """Columns as the runtime gives them: Python lists, and typed Arrow arrays on demand."""

    types = {"a": pa.bool_(), "b": pa.bool_(), "v": pa.int64(), "w": pa.float64()}

    def arrow(self, name):
        kind = self.types.get(name, pa.timestamp("us") if name == "t" else None)
        return pa.array(self[name], type=kind)


def with_precomputed(cols: Columns, plan) -> Columns:
    """``cols`` plus the plan's row-local columns (on partitions side by side, a LAG
    reading across a partition edge is never used: the tests compare such inputs the same
    way on both sides)."""
    out = Columns(cols)
    out.types = dict(Columns.types)
    n = len(cols["v"])
    for name, text in plan.precomputed:
        kind, fn = PRECOMPUTED[text]
        out[name] = [fn(cols, i) for i in range(n)]
        out.types[name] = kind
    return out


def make_columns(rng: random.Random, n: int) -> Columns:
    return Columns(
        a=[rng.random() < 0.8 for _ in range(n)],
        b=[rng.random() < 0.7 for _ in range(n)],
        v=[rng.choice([None, *range(-3, 5)]) if rng.random() < 0.95 else None for _ in range(n)],
        w=[None if rng.random() < 0.05 else round(rng.uniform(-3, 3), 1) for _ in range(n)],
        t=[START + timedelta(seconds=i + rng.choice([0, 0, 1])) for i in range(n)],
    )


def plan_of(define: str, pattern: str, skip: str, rows: str, within: bool):
    if "{-" in pattern and "UNMATCHED" in rows:
        rows = "ALL ROWS PER MATCH"  # the standard forbids exclusions WITH UNMATCHED ROWS
    body = (
        "ORDER BY t MEASURES MATCH_NUMBER() AS m, CLASSIFIER() AS c, count(*) AS k "
        f"{rows} AFTER MATCH SKIP {skip} PATTERN ({pattern}) "
        f"{'WITHIN INTERVAL ' + chr(39) + '4' + chr(39) + ' SECOND ' if within else ''}"
        f"SUBSET U = (A, B) DEFINE {define}"
    )
    return body, plan_clause(parse_clause(body), ["a", "b", "v", "w", "t"])


def result(out):
    rows = [int(r) for r in out.rows]
    atoms = [a.to_pylist() if isinstance(a, pa.Array) else list(a) for a in out.atoms]
    return rows, atoms


def scalar(program):
    return dataclasses.replace(program, vector_defines=None)


def run(program, cols, n):
    try:
        return result(run_partition(program, cols, n))
    except Exception as err:  # a run-time error (SKIP TO an absent variable) must agree too
        return type(err).__name__, str(err)


@settings(max_examples=300, deadline=None)
@given(
    define=st.sampled_from(DEFINES),
    pattern=st.sampled_from(PATTERNS),
    skip=st.sampled_from(SKIPS),
    rows=st.sampled_from(["ONE ROW PER MATCH", "ALL ROWS PER MATCH WITH UNMATCHED ROWS"]),
    within=st.booleans(),
    size=st.integers(0, 30),
    seed=st.integers(0, 100_000),
)
def test_all_start_rows_at_once_equal_one_by_one(define, pattern, skip, rows, within, size, seed):
    body, plan = plan_of(define, pattern, skip, rows, within)
    program = plan.program
    assert program.searches_at_once or program.history_free, body
    cols = with_precomputed(make_columns(random.Random(seed), size), plan)
    assert run(program, cols, size) == run(scalar(program), cols, size), body


@pytest.mark.parametrize("define", DEFINES)
def test_searches_left_over_go_to_the_scalar_matcher(define, monkeypatch):
    """With the vectorized pass stopped after one step, every start row it did not
    settle is searched by the scalar matcher, with the same result."""
    monkeypatch.setattr(wave, "LONG_STEPS", 1)
    monkeypatch.setattr(wave, "TAIL_THREADS", 10**9)
    rng = random.Random(7)
    for pattern in PATTERNS:
        body, plan = plan_of(define, pattern, "PAST LAST ROW", "ONE ROW PER MATCH", False)
        cols = with_precomputed(make_columns(rng, 40), plan)
        assert run(plan.program, cols, 40) == run(scalar(plan.program), cols, 40), body


@settings(max_examples=100, deadline=None)
@given(
    define=st.sampled_from(DEFINES),
    pattern=st.sampled_from(["A B+ C", "(A | B)+ C?", "A B*? C", "{- A -} B+ C", "^A B+ C?"]),
    sizes=st.lists(st.integers(1, 9), min_size=1, max_size=6),
    seed=st.integers(0, 100_000),
)
def test_many_partitions_at_once_equal_one_by_one(define, pattern, sizes, seed):
    """Partitions side by side: no search reads or runs into a neighbouring partition."""
    body, plan = plan_of(define, pattern, "PAST LAST ROW", "ALL ROWS PER MATCH", False)
    cols = with_precomputed(make_columns(random.Random(seed), sum(sizes)), plan)
    bounds, low = [], 0
    for size in sizes:
        bounds.append((low, low + size))
        low += size
    together = run_groups(plan.program, cols, bounds)
    if together is None:  # an empty match somewhere: the engine goes partition by partition
        return
    want_rows, want_atoms = [], [[] for _ in plan.atoms]
    for a, b in bounds:
        part = Columns({k: v[a:b] for k, v in cols.items()})
        part.types = cols.types
        r, atoms = result(run_partition(scalar(plan.program), part, b - a))
        want_rows += [x + a for x in r]
        for column, values in zip(want_atoms, atoms):
            column += values
    got_rows, got_atoms = result(together)
    assert got_rows == want_rows, body
    for got, want in zip(got_atoms, want_atoms):
        assert all(
            x == y or (isinstance(x, float) and math.isclose(x, y)) for x, y in zip(got, want)
        ), body


@pytest.mark.parametrize(
    "pattern", ["(A+)+ B* C", "(A | B)+ C", "(A+ B*)+ C", "(A* | B)* C", "((A B?)+ | B)+ C"]
)
def test_threads_of_a_search_merge_when_their_state_is_the_same(pattern, monkeypatch):
    """Nested and alternating loops over 300 rows where every row may be A or B and none
    is C: threads in the same state merge, so each search keeps a few threads."""
    monkeypatch.setattr(wave, "LONG_STEPS", 10**9)  # run every search to the end
    body = (
        f"ORDER BY t MEASURES count(*) AS k PATTERN ({pattern}) "
        "DEFINE A AS A.v >= FIRST(v) - 100, B AS B.v <= LAST(v) + 100, C AS C.v > FIRST(v) + 1000"
    )
    plan = plan_clause(parse_clause(body), ["a", "b", "v", "w", "t"])
    n = 300
    cols = Columns(a=[True] * n, b=[True] * n, v=[1] * n, w=[0.0] * n, t=[START] * n)
    inputs = engine._wave_inputs(plan.program, cols, [(0, n)])
    found = wave.search(plan.program.wave_program(), inputs)
    assert (found.end == -1).all()
    assert found.most_threads <= 3 * n, (pattern, found.most_threads)


def test_searches_that_cannot_match_never_start():
    """Every row after a search's first is compared with it (W2's shape): on a random
    walk most searches fall below their first row before a row rises far enough for C.
    They are found unable to match before the searches run, so far fewer threads run at
    once than there are rows (all of them did), and the answers stay the scalar
    matcher's."""
    body = (
        "ORDER BY t MEASURES count(*) AS k, FIRST(w) AS f PATTERN (A B+ C) "
        "DEFINE B AS B.w >= A.w AND avg(B.w) < A.w + 1, C AS C.w > A.w + 1"
    )
    plan = plan_clause(parse_clause(body), ["a", "b", "v", "w", "t"])
    rng = random.Random(5)
    n = 3000
    w = [0.0]
    for _ in range(n - 1):
        w.append(round(w[-1] + rng.choice([-0.1, 0.1]), 1))
    cols = Columns(
        a=[True] * n,
        b=[True] * n,
        v=[0] * n,
        w=w,
        t=[START + timedelta(seconds=i) for i in range(n)],
    )
    inputs = engine._wave_inputs(plan.program, cols, [(0, n)])
    found = wave.search(plan.program.wave_program(), inputs)
    assert found.most_threads < n // 4, found.most_threads
    got = run(plan.program, cols, n)
    assert len(got[0]) >= 5
    assert got == run(scalar(plan.program), cols, n)


@settings(max_examples=200, deadline=None)
@given(
    define=st.sampled_from(DEFINES),
    pattern=st.sampled_from([p for p in PATTERNS if p != "A? B* C?"]),
    skip=st.sampled_from(SKIPS),
    within=st.booleans(),
    vectorized=st.booleans(),
    size=st.integers(0, 30),
    chunk=st.integers(1, 9),
    seed=st.integers(0, 100_000),
)
def test_a_partition_matched_in_pieces_equals_whole(
    define, pattern, skip, within, vectorized, size, chunk, seed
):
    """Match-dependent DEFINE on a long partition, matched piece by piece as the runtime
    does (keeping only the rows later searches need), with and without the array form:
    the same output as the whole partition at once."""
    body, plan = plan_of(define, pattern, skip, "ALL ROWS PER MATCH", within)
    program = plan.program if vectorized else scalar(plan.program)
    if not engine.chunkable(program):
        # NEXT(LAST(B.v)), or ``$`` (a piece's end is no partition's end): not cut
        assert plan.program.define_reach[1] > 0 or "$" in pattern, body
        return
    cols = with_precomputed(make_columns(random.Random(seed), size), plan)
    want = run(scalar(plan.program), cols, size)

    def piece_of(low: int, high: int) -> Columns:
        piece = Columns({k: v[low:high] for k, v in cols.items()})
        piece.types = cols.types
        return piece

    try:
        got_rows, got_atoms = match_in_pieces(program, len(plan.atoms), size, chunk, piece_of)
    except Exception as err:
        assert want == (type(err).__name__, str(err)), body
        return
    assert (got_rows, got_atoms) == want, body


@pytest.mark.parametrize(
    ("pattern", "skip", "hands_over"),
    [
        ("A B* C?", "PAST LAST ROW", True),  # one long match: most searches start inside it
        ("A B* C?", "TO NEXT ROW", False),  # every search is needed
        ("A B{40} C", "PAST LAST ROW", False),  # long, but no match found yet: needed
    ],
)
def test_long_matches_leave_their_inner_searches_to_the_scalar_matcher(pattern, skip, hands_over):
    """Rising values and `B AS B.v >= A.v`: every search is long. Where a match has been
    found from most start rows, AFTER MATCH SKIP will need few of those searches: the
    vectorized pass stops and the scalar matcher runs the ones needed. Same rows either way."""
    body = (
        f"ORDER BY t MEASURES count(*) AS k AFTER MATCH SKIP {skip} PATTERN ({pattern}) "
        "DEFINE B AS B.v >= A.v, C AS C.v < A.v"
    )
    plan = plan_clause(parse_clause(body), ["a", "b", "v", "w", "t"])
    n = 200
    cols = Columns(a=[True] * n, b=[True] * n, v=list(range(n)), w=[0.0] * n, t=[START] * n)
    found = wave.search(
        plan.program.wave_program(), engine._wave_inputs(plan.program, cols, [(0, n)])
    )
    assert (found.end == wave.UNRESOLVED).any() == hands_over
    assert run(plan.program, cols, n) == run(scalar(plan.program), cols, n)


@settings(max_examples=150, deadline=None)
@given(
    pattern=st.sampled_from(PATTERNS),
    skip=st.sampled_from(SKIPS),
    rows=st.sampled_from(["ONE ROW PER MATCH", "ALL ROWS PER MATCH"]),
    sizes=st.lists(st.integers(1, 12), min_size=1, max_size=6),
    seed=st.integers(0, 100_000),
)
def test_row_local_programs_searched_at_once_equal_the_dfa(pattern, skip, rows, sizes, seed):
    """Where matches are frequent, row-local programs search from all start rows at once
    over many partitions: the same rows, numbers and measures as the DFA scan, partition
    by partition (or the same run-time error)."""
    body = (
        "ORDER BY t MEASURES MATCH_NUMBER() AS m, CLASSIFIER() AS c, count(B.*) AS k, "
        f"LAST(A.v) AS a {rows} AFTER MATCH SKIP {skip} PATTERN ({pattern}) "
        "DEFINE A AS a, B AS b"
    )
    plan = plan_clause(parse_clause(body), ["a", "b", "v", "w", "t"])
    program = plan.program
    assert program.bits_only
    program._dense = True  # as after a first group with many matches
    cols = make_columns(random.Random(seed), sum(sizes))
    bounds, low = [], 0
    for size in sizes:
        bounds.append((low, low + size))
        low += size
    probe, engine.BITS_PROBE_STEPS = engine.BITS_PROBE_STEPS, None  # never hand over
    try:
        together = run_groups(program, cols, bounds)
    except Exception as err:
        together = (type(err).__name__, str(err))
    finally:
        engine.BITS_PROBE_STEPS = probe
    want_rows, want_atoms = [], [[] for _ in plan.atoms]
    try:
        for a, b in bounds:
            part = Columns({k: v[a:b] for k, v in cols.items()})
            r, atoms = result(run_partition(dataclasses.replace(program), part, b - a))
            want_rows += [x + a for x in r]
            for column, values in zip(want_atoms, atoms):
                column += values
    except Exception as err:
        assert together == (type(err).__name__, str(err)), body
        return
    if together is None:  # an empty match: the runtime goes partition by partition
        return
    assert not isinstance(together, tuple), (body, together)
    assert result(together) == (want_rows, want_atoms), body


@pytest.mark.parametrize(
    "setting", [("PADDED_WIDTH", 0), ("LABEL_LOOP_MAX", 0), ("PADDED_WIDTH", 1)]
)
def test_other_layouts_of_a_step_equal_one_by_one(setting, monkeypatch):
    """A step's entries listed with np.repeat instead of the padded closure table, and
    split by label after counting the labels, give the scalar matcher's results too."""
    name, value = setting
    monkeypatch.setattr(wave, name, value)
    rng = random.Random(11)
    for define in DEFINES:
        for pattern in PATTERNS:
            skip = rng.choice(SKIPS)
            body, plan = plan_of(define, pattern, skip, "ONE ROW PER MATCH", False)
            cols = with_precomputed(make_columns(rng, 30), plan)
            program = dataclasses.replace(plan.program, _wave=None)
            assert run(program, cols, 30) == run(scalar(plan.program), cols, 30), body


SPECIAL_DEFINES = [
    "B AS B.w >= A.w AND avg(B.w) < A.w + 1, C AS C.w > A.w + 1",
    "B AS max(B.w) - min(B.w) < 2.5 AND B.w <= LAST(A.w), C AS C.w = FIRST(A.w)",
    "B AS sum(U.w) > 3 OR B.w <> A.w * 2, C AS C.w / (A.w - 1) <= 3",
    "B AS B.w - A.w < A.w - B.w, C AS greatest(C.w, A.w) = abs(C.w - A.w)",
]


@settings(max_examples=150, deadline=None)
@given(
    define=st.sampled_from(SPECIAL_DEFINES),
    pattern=st.sampled_from(["A B+ C", "(A | B)+ C?", "A B*? C"]),
    skip=st.sampled_from(["PAST LAST ROW", "TO NEXT ROW"]),
    size=st.integers(0, 30),
    seed=st.integers(0, 100_000),
    specials=st.sampled_from([(), (math.nan,), (math.inf, -math.inf), (math.nan, math.inf)]),
)
def test_nan_and_infinities_equal_one_by_one(define, pattern, skip, size, seed, specials):
    """Comparisons skip the NaN rule only where no NaN can arise (``vector_define
    .specials``): with NaN and infinities in the data, the answers stay the scalar
    matcher's."""
    body, plan = plan_of(define, pattern, skip, "ONE ROW PER MATCH", False)
    rng = random.Random(seed)
    cols = with_precomputed(make_columns(rng, size), plan)
    choices = [*specials, 0.0, 1.0, 1.5, 2.0, -1.0, None]
    cols["w"] = [rng.choice(choices) if rng.random() < 0.5 else w for w in cols["w"]]
    assert run(plan.program, cols, size) == run(scalar(plan.program), cols, size), body
