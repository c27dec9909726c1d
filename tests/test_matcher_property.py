"""Property test: the Pike VM matcher agrees with the backtracking reference.

Hypothesis draws small patterns over the labels A, B, C (concatenation, alternation,
PERMUTE, exclusion, greedy and reluctant quantifiers with small bounds, the empty
pattern, anchors) and partitions of a few rows, each row saying which labels' DEFINE
holds on it, optionally with a condition that looks at the match so far. For every
start row, ``find_match`` must return exactly the reference's first match (rows,
labels, exclusion marks); ``match_partition`` must agree for every AFTER MATCH SKIP mode.

Some bugs only show on rare shapes (two threads meeting with different histories, an
empty alternative inside a loop); ``tests/test_matcher.py`` pins those down by hand, and
``MATCHREC_PROPERTY_EXAMPLES=5000`` runs this test harder.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from hypothesis import given, note, settings
from hypothesis import strategies as st
from reference_matcher import reference_find_match, reference_match_partition

from matchrec import ast
from matchrec.errors import MatchRuntimeError
from matchrec.matcher import find_match, match_partition
from matchrec.nfa import compile_pattern

IDS = {"A": 0, "B": 1, "C": 2}
# a few seconds by default; MATCHREC_PROPERTY_EXAMPLES=5000 for a thorough run
EXAMPLES = int(os.environ.get("MATCHREC_PROPERTY_EXAMPLES", "300"))


def show(node: ast.PatternNode) -> str:
    """The pattern in SQL syntax, for failure reports."""
    if isinstance(node, ast.Label):
        return node.name
    if isinstance(node, ast.Empty):
        return "()"
    if isinstance(node, ast.Anchor):
        return "^" if node.kind == "start" else "$"
    if isinstance(node, ast.Concat):
        return "(" + " ".join(map(show, node.items)) + ")"
    if isinstance(node, ast.Alternation):
        return "(" + " | ".join(map(show, node.items)) + ")"
    if isinstance(node, ast.Permute):
        return "PERMUTE(" + ", ".join(map(show, node.items)) + ")"
    if isinstance(node, ast.Exclusion):
        return "{- " + show(node.inner) + " -}"
    assert isinstance(node, ast.Quantified)
    bounds = f"{{{node.min},{'' if node.max is None else node.max}}}"
    return f"({show(node.inner)}){bounds}{'' if node.greedy else '?'}"


# weighted choices: quantifiers are where the interesting cases are
WEIGHTS = {
    "label": 3,
    "concat": 3,
    "alternation": 3,
    "quantified": 6,
    "permute": 1,
    "exclusion": 1,
    "empty": 1,
    "anchor": 1,
}
KINDS = [kind for kind, weight in WEIGHTS.items() for _ in range(weight)]


@st.composite
def patterns(draw, depth: int = 4, budget: int = 4) -> ast.PatternNode:
    """A random pattern. ``budget`` caps the product of the repetition counts of the
    enclosing quantifiers and permutations, which keeps the exponential reference fast
    (nested bounded quantifiers over empty-matching patterns have very many paths)."""
    kind = draw(st.sampled_from(KINDS if depth > 0 else ["label"] * 6 + ["empty", "anchor"]))
    if kind == "label":
        return ast.Label(draw(st.sampled_from(sorted(IDS))))
    if kind == "empty":
        return ast.Empty()
    if kind == "anchor":
        return ast.Anchor(draw(st.sampled_from(["start", "end"])))
    if kind == "exclusion":
        return ast.Exclusion(draw(patterns(depth - 1, budget)))
    if kind == "quantified":
        low = draw(st.integers(0, min(2, budget)))
        extras = [e for e in (None, None, 0, 1, 2) if (low + (1 if e is None else e)) <= budget]
        extra = draw(st.sampled_from(extras or [0]))
        high = None if extra is None else low + extra
        greedy = draw(st.sampled_from([True, True, False]))
        copies = max(low + 1 if high is None else high, 1)
        inner = draw(patterns(depth - 1, budget // copies))
        return ast.Quantified(inner, low, high, greedy)
    if kind == "permute" and budget >= 2:
        size = 3 if budget >= 6 and draw(st.booleans()) else 2
        items = draw(st.lists(patterns(depth - 1, budget // 6), min_size=size, max_size=size))
        return ast.Permute(tuple(items))
    items = tuple(draw(st.lists(patterns(depth - 1, budget), min_size=2, max_size=3)))
    return ast.Alternation(items) if kind == "alternation" else ast.Concat(items)


# each label holds on a row more often than not: matches get long enough to matter
row_bits = st.lists(st.sampled_from([True, True, False]), min_size=3, max_size=3)
partitions = st.lists(
    row_bits.map(lambda bits: frozenset(i for i, bit in enumerate(bits) if bit)), max_size=6
)
# "local": the row alone decides; the others also look at the match so far
conditions = st.sampled_from(
    ["local", "local", "C needs an earlier A", "no B after B", "B only right after A"]
)


def make_evaluate(rows: Sequence[frozenset[int]], condition: str):
    def evaluate(label: int, start: int, labels: Sequence[int]) -> bool:
        assert labels[-1] == label
        if label not in rows[start + len(labels) - 1]:
            return False
        if condition == "C needs an earlier A" and label == IDS["C"]:
            return IDS["A"] in labels[:-1]
        if condition == "no B after B" and label == IDS["B"]:
            return len(labels) < 2 or labels[-2] != IDS["B"]
        if condition == "B only right after A" and label == IDS["B"]:
            return len(labels) >= 2 and labels[-2] == IDS["A"]
        return True

    return evaluate


@settings(max_examples=EXAMPLES, deadline=None)
@given(pattern=patterns(), rows=partitions, condition=conditions)
def test_find_match_agrees_with_reference(pattern, rows, condition):
    note(f"PATTERN ({show(pattern)}) rows={[sorted(r) for r in rows]} {condition}")
    program = compile_pattern(pattern, IDS)
    evaluate = make_evaluate(rows, condition)
    for start in range(len(rows) + 1):
        expected = reference_find_match(pattern, IDS, start, len(rows), evaluate)
        assert find_match(program, start, len(rows), evaluate) == expected, start
        if condition == "local":
            fast = find_match(program, start, len(rows), evaluate, history_matters=False)
            assert fast == expected, start


def _all(matches) -> list:
    out = []
    try:
        out.extend(matches)
    except MatchRuntimeError as err:
        out.append(err.message)
    return out


@settings(max_examples=EXAMPLES * 2 // 3, deadline=None)
@given(
    pattern=patterns(),
    rows=partitions,
    condition=conditions,
    skip_mode=st.sampled_from(["past_last", "next_row", "first", "last"]),
    skip_labels=st.frozensets(st.sampled_from(sorted(IDS.values())), min_size=1),
)
def test_match_partition_agrees_with_reference(pattern, rows, condition, skip_mode, skip_labels):
    note(f"PATTERN ({show(pattern)}) rows={[sorted(r) for r in rows]} {condition} {skip_mode}")
    program = compile_pattern(pattern, IDS)
    evaluate = make_evaluate(rows, condition)
    expected = _all(
        reference_match_partition(
            pattern, IDS, len(rows), lambda n: evaluate, skip_mode, skip_labels
        )
    )
    options = {"skip_mode": skip_mode, "skip_labels": skip_labels}
    assert _all(match_partition(program, len(rows), lambda n: evaluate, **options)) == expected
    if condition == "local":
        # one scan for all start rows
        scan = match_partition(
            program,
            len(rows),
            lambda n: evaluate,
            history_matters=False,
            start_matters=False,
            **options,
        )
        assert _all(scan) == expected
