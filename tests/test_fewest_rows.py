"""How many rows of a variable every match has (``matchrec.fewest_rows``), against every
match of up to seven rows found by brute force (pure Python, no Spark)."""

from __future__ import annotations

import itertools

import pytest
from test_matcher import IDS, program

from matchrec.fewest_rows import NEVER, fewest_at_row, fewest_in_match
from matchrec.nfa import Op, Program

#: the longest label sequence tried: every pattern below has its fewest counts in shorter
_LONGEST = 7


def _accepted(prog: Program, labels: tuple[int, ...]) -> bool:
    """Whether the pattern matches the whole of ``labels``, the partition being exactly
    those rows (``^`` holds at the first, ``$`` after the last)."""
    n = len(labels)
    states = set(prog.closure(0, True, n == 0))
    for i, label in enumerate(labels):
        after = set()
        for pc in states:
            if prog[pc].op is Op.MATCH_LABEL and prog[pc].label == label:
                after.update(prog.closure(pc + 1, False, i + 1 == n))
        states = after
    return prog.done_pc in states


def _matches(prog: Program, used: list[int]):
    for n in range(_LONGEST + 1):
        for labels in itertools.product(used, repeat=n):
            if _accepted(prog, labels):
                yield labels


PATTERNS = [
    "A B+",
    "A? B+ C",
    "(A | B) C",
    "(A B)+ C?",
    "A{2,} B",
    "A{3} | B",
    "A*? B{1,2}",
    "PERMUTE(A, B, C)",
    "(A | B C)+",
    "A (B | C A) D",
    "(A{2})+ | B C",
    "X* A X*",
]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_the_fewest_rows_are_those_of_the_shortest_matches(pattern):
    """Exact for patterns without anchors or excluded rows: counted over the whole match,
    and up to each row of a variable, for every variable and for any row."""
    prog = program(pattern)
    used = sorted({ins.label for ins in prog if ins.op is Op.MATCH_LABEL})
    matches = list(_matches(prog, used))
    assert matches
    for counted in [None, *(frozenset([u]) for u in used), frozenset(used[:2])]:

        def count(labels, end, counted=counted):
            return sum(counted is None or x in counted for x in labels[:end])

        assert fewest_in_match(prog, counted) == min(count(m, len(m)) for m in matches)
        for at in [None, *(frozenset([u]) for u in used)]:
            seen = [
                count(m, i + 1) for m in matches for i, x in enumerate(m) if at is None or x in at
            ]
            assert fewest_at_row(prog, counted, at) == min(seen, default=NEVER), (counted, at)


@pytest.mark.parametrize("pattern", ["^ A B+", "A+ $", "A {- B -} C", "(^ A | B) C"])
def test_anchors_and_excluded_rows_never_count_more_than_a_match_has(pattern):
    """Anchors taken to hold and excluded rows not counted: a lower bound, never more."""
    prog = program(pattern)
    used = sorted({ins.label for ins in prog if ins.op is Op.MATCH_LABEL})
    matches = list(_matches(prog, used))
    for label in used:
        counted = frozenset([label])
        exact = min(sum(x == label for x in m) for m in matches)
        assert fewest_in_match(prog, counted) <= exact


def test_a_variable_no_match_has_is_never_reached():
    prog = program("A B")
    assert fewest_at_row(prog, None, frozenset([IDS["C"]])) == NEVER
    assert fewest_in_match(prog, frozenset([IDS["C"]])) == 0
