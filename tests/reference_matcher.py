"""A small backtracking matcher over the pattern AST, used only by the tests.

It enumerates the ways to match the pattern in preferment order (generators, with a
continuation for "the rest of the pattern") and returns the first that reaches the end.
Exponential, for tiny inputs only; written to be obviously correct, not fast.

Empty loop iterations follow Trino: a path that comes back, without consuming a row, to
a point of the pattern it already passed at this row dies. The points are each label
and anchor, and each place where the pattern chooses: before every alternative but the
last, after every alternative but the last, a loop's entry and its test after each
iteration, and each optional copy of a bounded quantifier. Points are counted per copy:
``p{3,5}`` has 5 copies of ``p``; ``p{3,}`` has 3, the last one looping (so iterations
3, 4, 5... reuse it); ``p*`` has one looping copy; each permutation of ``PERMUTE`` has
its own copies of the items. So an iteration that consumes nothing returns to a point
it passed and dies; the loop's exit, offered at its test, survives.

These are the decision points of Trino's program (and ``matchrec.nfa``'s), so this is
the same rule as "a thread dies when it reaches an instruction it already reached at
this row", stated on the AST.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence

from matchrec import ast
from matchrec.errors import MatchRuntimeError
from matchrec.matcher import Match

Evaluate = Callable[[int, int, Sequence[int]], bool]
History = tuple[tuple[int, bool], ...]  # (label, excluded) per matched row
Visited = frozenset  # points passed since the last consumed row
State = tuple[int, History]
Cont = Callable[[int, History, Visited], Iterator[State]]


def reference_find_match(
    pattern: ast.PatternNode,
    label_ids: Mapping[str, int],
    start: int,
    n_rows: int,
    evaluate: Evaluate,
) -> Match | None:
    """The first match in preferment order starting at row ``start``, or None."""

    def match(node, where, pos, hist, seen, excl, k: Cont) -> Iterator[State]:
        """Match ``node`` (located at ``where``) from row ``pos``, then run ``k``."""
        if isinstance(node, (ast.Label, ast.Anchor)) and where in seen:
            return
        if isinstance(node, ast.Label):
            label = label_ids[node.name]
            if pos < n_rows and evaluate(label, start, [lab for lab, _ in hist] + [label]):
                yield from k(pos + 1, (*hist, (label, excl)), frozenset())
        elif isinstance(node, ast.Anchor):
            if (node.kind == "start" and pos == 0) or (node.kind == "end" and pos == n_rows):
                yield from k(pos, hist, seen | {where})
        elif isinstance(node, ast.Empty):
            yield from k(pos, hist, seen)
        elif isinstance(node, ast.Concat):
            yield from sequence(node.items, where, pos, hist, seen, excl, k)
        elif isinstance(node, ast.Alternation):
            branches = [((item,), (*where, i)) for i, item in enumerate(node.items)]
            yield from alternation(branches, where, pos, hist, seen, excl, k)
        elif isinstance(node, ast.Permute):
            orders = itertools.permutations(node.items)
            branches = [(order, (*where, i)) for i, order in enumerate(orders)]
            yield from alternation(branches, where, pos, hist, seen, excl, k)
        elif isinstance(node, ast.Exclusion):
            yield from match(node.inner, (*where, 0), pos, hist, seen, True, k)
        elif isinstance(node, ast.Quantified):
            if node.max is None:
                yield from loop(node, where, pos, hist, seen, excl, k)
            else:
                yield from bounded(node, where, pos, hist, seen, excl, k)
        else:
            raise TypeError(node)

    def sequence(items, where, pos, hist, seen, excl, k) -> Iterator[State]:
        """``items`` one after the other (item ``i`` located at ``where + (i,)``)."""

        def step(i, pos, hist, seen):
            if i == len(items):
                return k(pos, hist, seen)
            return match(
                items[i], (*where, i), pos, hist, seen, excl, lambda p, h, s: step(i + 1, p, h, s)
            )

        return step(0, pos, hist, seen)

    def passing(point, seen, k: Cont) -> Cont:
        """``k``, after passing ``point`` (dies if already passed)."""

        def go(pos, hist, seen):
            if point not in seen:
                yield from k(pos, hist, seen | {point})

        return go

    def alternation(branches, where, pos, hist, seen, excl, k) -> Iterator[State]:
        """Each branch (a sequence) in order; the choice before each but the last branch,
        and the jump to the end after each but the last, are points."""
        for i, (items, at) in enumerate(branches):
            if i == len(branches) - 1:
                yield from sequence(items, at, pos, hist, seen, excl, k)
                return
            choice = (*where, "choose", i)
            if choice in seen:
                return
            seen = seen | {choice}
            after = passing((*where, "jump", i), seen, k)
            yield from sequence(items, at, pos, hist, seen, excl, after)

    def loop(q: ast.Quantified, where, pos, hist, seen, excl, k) -> Iterator[State]:
        """``p{n,}``: ``n`` copies (at least one), the last repeated; its test after
        each of its iterations (and, for ``n == 0``, its entry) is a point."""
        copies = max(q.min, 1)

        def test(pos, hist, seen):
            point = (*where, "test")
            if point in seen:
                return
            seen = seen | {point}
            if q.greedy:
                yield from match(q.inner, (*where, copies), pos, hist, seen, excl, test)
                yield from k(pos, hist, seen)
            else:
                yield from k(pos, hist, seen)
                yield from match(q.inner, (*where, copies), pos, hist, seen, excl, test)

        def mandatory(copy, pos, hist, seen):
            if copy == copies:
                return match(q.inner, (*where, copy), pos, hist, seen, excl, test)
            return match(
                q.inner,
                (*where, copy),
                pos,
                hist,
                seen,
                excl,
                lambda p, h, s: mandatory(copy + 1, p, h, s),
            )

        if q.min > 0:
            yield from mandatory(1, pos, hist, seen)
            return
        point = (*where, "entry")
        if point in seen:
            return
        seen = seen | {point}
        if q.greedy:
            yield from mandatory(1, pos, hist, seen)
            yield from k(pos, hist, seen)
        else:
            yield from k(pos, hist, seen)
            yield from mandatory(1, pos, hist, seen)

    def bounded(q: ast.Quantified, where, pos, hist, seen, excl, k) -> Iterator[State]:
        """``p{n,m}``: copies 1..n, then optional copies n+1..m, each optional one
        preceded by its choice point (enter it, or skip all the remaining ones)."""

        def copy(j, pos, hist, seen):
            if j > q.max:
                yield from k(pos, hist, seen)
                return
            then = lambda p, h, s: copy(j + 1, p, h, s)  # noqa: E731
            if j <= q.min:
                yield from match(q.inner, (*where, j), pos, hist, seen, excl, then)
                return
            point = (*where, "optional", j)
            if point in seen:
                return
            seen = seen | {point}
            if q.greedy:
                yield from match(q.inner, (*where, j), pos, hist, seen, excl, then)
                yield from k(pos, hist, seen)
            else:
                yield from k(pos, hist, seen)
                yield from match(q.inner, (*where, j), pos, hist, seen, excl, then)

        yield from copy(1, pos, hist, seen)

    def finish(pos, hist, seen) -> Iterator[State]:
        yield pos, hist

    for end, hist in match(pattern, (), start, (), frozenset(), False, finish):
        return Match(start, end, [lab for lab, _ in hist], [ex for _, ex in hist])
    return None


def reference_match_partition(
    pattern: ast.PatternNode,
    label_ids: Mapping[str, int],
    n_rows: int,
    evaluate_factory: Callable[[int], Evaluate],
    skip_mode: str = "past_last",
    skip_labels: frozenset[int] = frozenset(),
) -> Iterator[tuple[int, Match]]:
    """All matches of a partition with AFTER MATCH SKIP, as the standard says; a SKIP
    error is raised after the match that causes it."""
    number = 1
    row = 0
    while row < n_rows:
        m = reference_find_match(pattern, label_ids, row, n_rows, evaluate_factory(number))
        if m is None:
            row += 1
            continue
        yield number, m
        number += 1
        if m.end == m.start:
            row += 1
        elif skip_mode == "past_last":
            row = m.end
        elif skip_mode == "next_row":
            row = m.start + 1
        else:
            rows = [m.start + i for i, lab in enumerate(m.labels) if lab in skip_labels]
            if not rows:
                raise MatchRuntimeError(
                    "AFTER MATCH SKIP failed: pattern variable is not present in match"
                )
            row = rows[0] if skip_mode == "first" else rows[-1]
            if row == m.start:
                raise MatchRuntimeError(
                    "AFTER MATCH SKIP failed: cannot skip to first row of match"
                )
