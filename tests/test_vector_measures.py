"""Vectorized measures give exactly the per-match evaluators' values.

Random partitions of rows and a table of clauses (navigation with offsets and physical
steps, label sets and SUBSETs, CLASSIFIER, MATCH_NUMBER, RUNNING and FINAL aggregates,
ONE ROW and ALL ROWS, exclusion, overlapping matches) run through ``run_partition`` twice:
vectorized and match by match.
"""

from __future__ import annotations

import math
import os

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matchrec.grammar import parse_clause
from matchrec.planner.plan import plan_clause

from matchrec.engine import run_partition

MEASURES = [
    "LAST(A.v) AS a1, FIRST(B.v, 1) AS a2, PREV(LAST(B.v), 2) AS a3, NEXT(FIRST(A.v)) AS a4",
    "CLASSIFIER() AS c1, NEXT(CLASSIFIER(), 1) AS c2, PREV(CLASSIFIER()) AS c3, "
    "MATCH_NUMBER() AS m",
    "count(*) AS n1, count(B.*) AS n2, sum(A.v) AS s1, avg(U.v) AS s2, count(B.v) AS n3",
    "FINAL LAST(v) AS f1, FINAL count(A.*) AS f2, FINAL max(B.v) AS f3, FINAL min(v) AS f4",
    "FIRST(U.v, 2) AS u1, LAST(U.v, 1) AS u2, LAST(v, 3) AS u3, FIRST(v) AS u4, v AS u5",
    "max(v) AS x1, min(A.v) AS x2",
]
PATTERNS = ["A B+", "(A | B)+", "A {- B* -} A?", "A+? B*", "PERMUTE(A, B)+", "(A B?)* A"]
SKIPS = ["PAST LAST ROW", "TO NEXT ROW", "TO LAST B"]


class Columns(dict):
    """Columns as the runtime gives them: Python lists on demand, typed Arrow arrays."""

    def arrow(self, name):
        kind = pa.bool_() if name in ("a", "b") else pa.int64()
        return pa.array(self[name], type=kind)


def outputs(program, cols, n, vectorize):
    out = run_partition(program, cols, n, vectorize=vectorize)
    if vectorize and out.rows is not None and len(out.rows):
        outputs.arrow_used = all(isinstance(a, pa.Array) for a in out.atoms)
    rows = [int(r) for r in out.rows]
    atoms = [a.to_pylist() if isinstance(a, pa.Array) else list(a) for a in out.atoms]
    return rows, atoms


def same(x, y):
    if isinstance(x, float) and isinstance(y, float):
        return math.isclose(x, y, rel_tol=1e-9) or (math.isnan(x) and math.isnan(y))
    return x == y


@settings(max_examples=150, deadline=None)
@given(
    measures=st.sampled_from(MEASURES),
    pattern=st.sampled_from(PATTERNS),
    skip=st.sampled_from(SKIPS),
    rows=st.sampled_from(["ONE ROW PER MATCH", "ALL ROWS PER MATCH"]),
    data=st.lists(
        st.tuples(st.booleans(), st.booleans(), st.one_of(st.none(), st.integers(-5, 5))),
        min_size=0,
        max_size=12,
    ),
)
def test_vectorized_measures_equal_per_match(measures, pattern, skip, rows, data):
    body = (
        f"MEASURES {measures} {rows} AFTER MATCH SKIP {skip} PATTERN ({pattern}) "
        "SUBSET U = (A, B) DEFINE A AS a, B AS b"
    )
    try:
        plan = plan_clause(parse_clause(body), ["a", "b", "v"])
    except Exception as err:  # a measure that this pattern rejects (e.g. SKIP TO B)
        raise AssertionError(body) from err
    cols = Columns(a=[d[0] for d in data], b=[d[1] for d in data], v=[d[2] for d in data])
    for name, text in plan.precomputed:
        cols[name] = cols[text.strip("`")]
    n = len(data)
    try:
        expected = outputs(plan.program, cols, n, vectorize=False)
    except Exception as err:
        # run-time errors (SKIP TO a missing label) must be the same both ways
        try:
            outputs(plan.program, cols, n, vectorize=True)
        except Exception as again:
            assert str(again) == str(err)
            return
        raise
    outputs.arrow_used = None
    got = outputs(plan.program, cols, n, vectorize=True)
    # no pattern here matches empty, so only running min/max fall back to per match
    if got[0] and not (measures.startswith("max(v)") and rows.startswith("ALL")):
        assert outputs.arrow_used, body
    assert got[0] == expected[0], body
    for g, e in zip(got[1], expected[1]):
        assert all(same(a, b) for a, b in zip(g, e)) and len(g) == len(e), (body, g, e)


@settings(max_examples=100, deadline=None)
@given(
    measures=st.sampled_from(MEASURES[:5]),
    pattern=st.sampled_from(PATTERNS),
    rows=st.sampled_from(["ONE ROW PER MATCH", "ALL ROWS PER MATCH"]),
    sizes=st.lists(st.integers(1, 6), min_size=1, max_size=5),
    seed=st.integers(0, 10_000),
)
def test_many_partitions_in_one_table_equal_one_by_one(measures, pattern, rows, sizes, seed):
    """run_groups (partitions side by side) gives each partition's own results: navigation
    never crosses into a neighbouring partition."""
    import random

    from matchrec.engine import run_groups

    rng = random.Random(seed)
    body = f"MEASURES {measures} {rows} PATTERN ({pattern}) SUBSET U = (A, B) DEFINE A AS a, B AS b"
    plan = plan_clause(parse_clause(body), ["a", "b", "v"])
    total = sum(sizes)
    data = [
        (rng.random() < 0.6, rng.random() < 0.5, rng.choice([None, *range(-3, 4)]))
        for _ in range(total)
    ]
    cols = Columns(a=[d[0] for d in data], b=[d[1] for d in data], v=[d[2] for d in data])
    bounds, low = [], 0
    for size in sizes:
        bounds.append((low, low + size))
        low += size
    together = run_groups(plan.program, cols, bounds)
    expected_rows, expected_atoms = [], [[] for _ in plan.atoms]
    for a, b in bounds:
        part = Columns({k: v[a:b] for k, v in cols.items()})
        r, atoms = outputs(plan.program, part, b - a, vectorize=False)
        expected_rows += [x + a for x in r]
        for column, values in zip(expected_atoms, atoms):
            column += values
    assert together is not None, body
    assert [int(r) for r in together.rows] == expected_rows, body
    for got, want in zip(together.atoms, expected_atoms):
        values = got.to_pylist()
        assert len(values) == len(want) and all(same(x, y) for x, y in zip(values, want)), body


@settings(max_examples=int(os.environ.get("MATCHREC_PROPERTY_EXAMPLES", "150")), deadline=None)
@given(
    measures=st.sampled_from(
        [*MEASURES, "PREV(LAST(A.v), 3) AS p, NEXT(FIRST(B.v), 2) AS q, NEXT(v, 4) AS r"]
    ),
    pattern=st.sampled_from(PATTERNS),
    skip=st.sampled_from(SKIPS),
    rows=st.sampled_from(["ONE ROW PER MATCH", "ALL ROWS PER MATCH"]),
    anchored=st.booleans(),
    size=st.integers(0, 25),
    chunk=st.integers(1, 8),
    seed=st.integers(0, 10_000),
)
def test_a_partition_matched_in_pieces_equals_whole(
    measures, pattern, skip, rows, anchored, size, chunk, seed
):
    """run_chunk over growing pieces (keeping only what later matches need, as the
    runtime does) gives the same output as the whole partition at once."""
    import random

    from pieces import match_in_pieces

    from matchrec.engine import chunkable

    rng = random.Random(seed)
    pattern = f"^{pattern}" if anchored else pattern
    body = (
        f"MEASURES {measures} {rows} AFTER MATCH SKIP {skip} PATTERN ({pattern}) "
        "SUBSET U = (A, B) DEFINE A AS a, B AS b"
    )
    plan = plan_clause(parse_clause(body), ["a", "b", "v"])
    program = plan.program
    if not chunkable(program):
        return
    data = [
        (rng.random() < 0.6, rng.random() < 0.5, rng.choice([None, *range(-3, 4)]))
        for _ in range(size)
    ]
    cols = Columns(a=[d[0] for d in data], b=[d[1] for d in data], v=[d[2] for d in data])
    try:
        want_rows, want_atoms = outputs(program, cols, size, vectorize=False)
    except Exception as err:
        want_rows, want_atoms = str(err), None
    try:
        got_rows, got_atoms = match_in_pieces(
            program,
            len(plan.atoms),
            size,
            chunk,
            lambda low, high: Columns({k: v[low:high] for k, v in cols.items()}),
        )
    except Exception as err:
        assert want_atoms is None and str(err) == want_rows, body
        return
    assert want_atoms is not None, (body, want_rows)
    assert got_rows == want_rows, body
    for got, want in zip(got_atoms, want_atoms):
        assert len(got) == len(want) and all(same(x, y) for x, y in zip(got, want)), body


@pytest.mark.parametrize("seed", range(4))
def test_running_double_sums_add_each_match_in_row_order(seed):
    """Both ways of summing (a step per row for many short matches, a cumsum per match
    for few long ones) give the sum a row-by-row loop gives, to the last bit."""
    from matchrec.vector_measures import _match_running_sums

    rng = np.random.default_rng(seed)
    for lengths in ([3, 0, 5, 1, 2, 2, 4], [900, 2], [1] * 50, []):
        first = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        values = rng.choice([1e16, -1e16, 0.1, 0.2, 3.3, -0.0], size=int(first[-1]))
        expected = []
        for low, high in zip(first[:-1], first[1:]):
            total = 0.0
            for i in range(low, high):
                total = values[i] if i == low else total + values[i]
                expected.append(total)
        assert _match_running_sums(values, first).tolist() == expected
