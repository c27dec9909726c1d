"""With AFTER MATCH SKIP PAST LAST ROW, searches that start inside a match of the
tentative chain stop early, and start again if the chain reaches them after all
(``matchrec.skip_chain``, ``wave._SetAside``): the matches found are exactly those
found with every search run to its end.

The data are random walks in small steps, where a search with a running aggregate
(W2 of the benchmarks) stays alive for tens to hundreds of rows and its neighbours'
searches do too: the case the stopping is for.
"""

from __future__ import annotations

import random
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matchrec.grammar import parse_clause
from matchrec.planner.plan import plan_clause
from test_wave import START, Columns, result, with_precomputed

from matchrec import engine, skip_chain, wave
from matchrec.engine import run_groups

W2_LIKE = "B AS B.v >= A.v AND avg(B.v) < A.v + 3, C AS C.v > A.v + 3"
DEFINES = [
    W2_LIKE,
    "B AS B.v >= FIRST(A.v) AND count(B.*) < 40, C AS C.v > LAST(B.v) + 1",
    "B AS max(B.v) - min(B.v) < 6, C AS C.v < FIRST(B.v) - 1",
]
PATTERNS = ["A B+ C", "A B+? C", "A B* C+", "(A B+)+ C", "A (B | C)+ C"]


def walk_columns(rng: random.Random, n: int) -> Columns:
    v, steps = [], 0
    for _ in range(n):
        steps += rng.choice([-1, 0, 1])
        v.append(steps)
    return Columns(
        a=[True] * n,
        b=[True] * n,
        v=v,
        w=[float(x) for x in v],
        t=[START] * n,
    )


def plan_of(define: str, pattern: str, rows: str):
    body = (
        "ORDER BY t MEASURES MATCH_NUMBER() AS m, CLASSIFIER() AS c, count(*) AS k "
        f"{rows} AFTER MATCH SKIP PAST LAST ROW PATTERN ({pattern}) DEFINE {define}"
    )
    return body, plan_clause(parse_clause(body), ["a", "b", "v", "w", "t"])


@contextmanager
def stopping(every: int | None):
    """Check the chain every ``every`` steps (None: never stop a search). Searches run
    to their end here (no hand-over of long matches to the scalar matcher, whose running
    aggregates cost the square of a match's length on these walks)."""
    saved = wave.PRUNE_EVERY, wave.PRUNE_AT, wave.LONG_STEPS
    wave.PRUNE_EVERY = every or 10**9
    wave.PRUNE_AT = frozenset()
    wave.LONG_STEPS = 10**9
    try:
        yield
    finally:
        wave.PRUNE_EVERY, wave.PRUNE_AT, wave.LONG_STEPS = saved


def groups(sizes: list[int]) -> list[tuple[int, int]]:
    bounds, low = [], 0
    for size in sizes:
        bounds.append((low, low + size))
        low += size
    return bounds


def run_both(define, pattern, rows, sizes, seed, every):
    body, plan = plan_of(define, pattern, rows)
    cols = with_precomputed(walk_columns(random.Random(seed), sum(sizes)), plan)
    bounds = groups(sizes)
    with stopping(every):
        stopped = run_groups(plan.program, cols, bounds)
    with stopping(None):
        whole = run_groups(plan.program, cols, bounds)
    return body, stopped, whole


@settings(max_examples=150, deadline=None)
@given(
    define=st.sampled_from(DEFINES),
    pattern=st.sampled_from(PATTERNS),
    rows=st.sampled_from(["ONE ROW PER MATCH", "ALL ROWS PER MATCH"]),
    sizes=st.lists(st.integers(1, 120), min_size=1, max_size=5),
    seed=st.integers(0, 100_000),
    every=st.sampled_from([1, 2, 5]),
)
def test_stopping_searches_inside_matches_changes_no_match(
    define, pattern, rows, sizes, seed, every
):
    body, stopped, whole = run_both(define, pattern, rows, sizes, seed, every)
    assert (stopped is None) == (whole is None), body
    if whole is not None:
        assert result(stopped) == result(whole), body


def searched(define: str, n: int, seed: int, every: int | None):
    _, plan = plan_of(define, "A B+ C", "ALL ROWS PER MATCH")
    cols = with_precomputed(walk_columns(random.Random(seed), n), plan)
    inputs = engine._wave_inputs(plan.program, cols, [(0, n)])
    with stopping(every):
        return wave.search(plan.program.wave_program(), inputs)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_searches_inside_matches_stop_and_reached_ones_start_again(seed):
    """The mechanism is at work on such data: fewer steps in all, searches started
    again (their histories start late), and every match SKIP keeps has the same rows
    and labels as without stopping."""
    n = 3000
    stopped = searched(W2_LIKE, n, seed, 1)
    whole = searched(W2_LIKE, n, seed, None)
    assert stopped.origin is not None and (stopped.origin > 0).any()
    assert sum(map(len, stopped.parents)) < 0.8 * sum(map(len, whole.parents))

    def kept(found):
        return wave.resolve(found, [(0, n)], "past_last", frozenset(), lambda *a: None).pairs()

    assert kept(stopped) == kept(whole)


def test_the_chain_is_the_path_of_matches_skip_follows():
    length = np.full(20, -1)
    length[[2, 4, 7, 9, 15]] = [5, 2, 3, 9, 1]  # 2..6, 4..5, 7..9, 9..17, 15 alone
    chain = skip_chain.walk(length, np.array([3, 8, 12, 18]), 20)
    assert chain.starts.tolist() == [2, 7]
    assert chain.ends.tolist() == [7, 10]
    assert chain.reached.tolist() == [12, 18]
    assert chain.covers(np.arange(20)).nonzero()[0].tolist() == [3, 4, 5, 6, 8, 9]
