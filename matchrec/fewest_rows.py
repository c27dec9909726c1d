"""The fewest rows of some labels that a match of a pattern has, read from its program.

``f(FIRST(A.x))`` moved inside the navigation (``planner.pushdown``) is
``FIRST(f(A.x))`` where an A row exists and ``f(NULL)`` where none does, and that
``f(NULL)`` is a column computed over every row before matching: a Python UDF that
cannot take None fails the job though no match ever lacks its A row. When every match
has more A rows than the navigation's offset wherever the expression is read, the
absent-row branch is dead and is left out. These functions say how many rows at least:
a 0-1 breadth-first walk of the compiled program, where consuming a row of the counted
labels costs one and every other step nothing. Anchors are taken to hold (more ways
through, so never more rows than a match may have); an excluded row (``{- A -}``) is
not counted (fewer, never more).
"""

from __future__ import annotations

from collections import deque

from .nfa import Op, Program

#: no match reaches there
NEVER = float("inf")


def _fewest_before(program: Program, counted: frozenset[int] | None) -> list[float]:
    """For each instruction, the fewest rows of ``counted`` labels (None: any label)
    consumed on a way from the start to it."""
    fewest = [NEVER] * len(program)
    fewest[0] = 0
    queue = deque([0])
    while queue:
        pc = queue.popleft()
        ins = program[pc]
        cost = int(
            ins.op is Op.MATCH_LABEL
            and not ins.excluded
            and (counted is None or ins.label in counted)
        )
        for nxt in program.successors(pc):
            reached = fewest[pc] + cost
            if reached < fewest[nxt]:
                fewest[nxt] = reached
                if cost:
                    queue.append(nxt)
                else:
                    queue.appendleft(nxt)
    return fewest


def fewest_in_match(program: Program, counted: frozenset[int] | None) -> float:
    """The fewest rows of ``counted`` labels (None: any) in a whole match."""
    return _fewest_before(program, counted)[program.done_pc]


def fewest_at_row(
    program: Program, counted: frozenset[int] | None, at: frozenset[int] | None
) -> float:
    """The fewest rows of ``counted`` labels (None: any) among a match's rows up to and
    including a row labelled one of ``at`` (None: any row): what a running count reads
    there. NEVER when no row is labelled so."""
    before = _fewest_before(program, counted)
    found = [
        before[pc] + (counted is None or ins.label in counted) * (not ins.excluded)
        for pc, ins in enumerate(program)
        if ins.op is Op.MATCH_LABEL and (at is None or ins.label in at)
    ]
    return min(found, default=NEVER)
