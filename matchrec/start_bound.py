"""Searches that cannot match, found before :mod:`matchrec.wave` runs them.

In ``PATTERN (A B+ C)`` with ``DEFINE B AS B.price >= A.price AND ..., C AS C.price >
A.price + 1``, every row after a search's first row is tested against that first row:
a search from row ``s`` dies at the first row where neither ``price >= price[s]`` nor
``price > price[s] + 1`` holds, and it can only match if a row before that one passes
C's test. Most searches on such data end without a match, after living as many steps
as a search that matches: they are about half of the wave's thread steps. Those parts
of the conditions need no match state, so they can be tested for all searches a row at
a time with a few NumPy operations per row, far cheaper than a step of the wave, and
the searches that cannot match are never started.

It applies when every search begins with one row of a label ``A`` that no later row can
have (the pattern starts with ``A``, unquantified, and names it nowhere else), and
every other label's match-dependent DEFINE has a top-level AND operand that reads
only the current row and ``A``'s row (``A.x``, ``FIRST(x)``, ``LAST(A.x)``, physical
offsets from them): that operand must be TRUE wherever the condition is (NULL and FALSE
both fail), so a row where no label's operand holds ends every thread of the search,
and a match needs one row, before that, where the operand of a label that can end a
match holds. The test is a necessary condition only: a search it keeps runs in full,
so no answer depends on it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from matchrec import vector_define as vd
from matchrec.balanced import balanced
from matchrec.nfa import Op, Program

#: rows tested at most; a search still undecided after them runs (kept)
MAX_ROWS = 256
#: give up when, after so many rows, more than this share of the searches is undecided
#: (the test then costs more than it saves: on W2's data 48% are after 4 rows, 23% after
#: 16; a condition that decides nothing costs 4 rows of the test)
GIVE_UP = {4: 0.75, 16: 0.5}


@dataclass
class StartBound:
    """Per label after the start: its operands that read only the row and the start
    row, as one verdict; ``final``: the labels whose row can end a match; ``keys``: the
    state slots those operands read (the first/last row of ``A``: the start row)."""

    verdicts: dict[int, vd.Verdict]
    final: frozenset[int]
    keys: list[tuple]


def _conjuncts(expr: vd.VExpr) -> list[vd.VExpr]:
    """The operands of a top-level chain of ANDs."""
    if isinstance(expr, vd.Op) and expr.op == "and":
        return [c for a in expr.args for c in _conjuncts(a)]
    return [expr]


def _reads_start_only(expr: vd.VExpr, start_label: int) -> bool:
    """Whether ``expr`` reads nothing of the match but the start row (and reads it):
    no aggregate, no label set other than ``{A}``, no last row of the whole match."""
    anchored = False
    for node in vd._walk(expr):
        if isinstance(node, vd.Agg):
            return False
        if isinstance(node, vd.Nav):
            if node.labels is None:
                if node.from_end:
                    continue  # the current row, then a physical offset
            elif node.labels != frozenset({start_label}):
                return False
            anchored = True
    return anchored


def analyze(program: Program, glue: Mapping[int, vd.VExpr]) -> StartBound | None:
    """The bound of ``program``'s searches, or None where it does not apply."""
    firsts = {t for a in (False, True) for t in program.closure(0, a, False)}
    if len(firsts) != 1:
        return None
    first = firsts.pop()
    if program[first].op is not Op.MATCH_LABEL:
        return None
    start_label = program[first].label
    done = program.done_pc
    later: dict[int, bool] = {}  # label after the start -> whether its row can end a match
    for pc, ins in enumerate(program):
        if ins.op is not Op.MATCH_LABEL:
            continue
        after = {t for e in (False, True) for t in program.closure(pc + 1, False, e)}
        if first in after:
            return None  # the start label again, later (a loop around it)
        ends = done in after
        if pc == first:
            if ends:
                return None  # a match of the start row alone
            continue
        if ins.label == start_label:
            return None
        later[ins.label] = later.get(ins.label, False) or ends
    if not later:
        return None
    operands: dict[int, vd.VExpr] = {}
    for label in later:
        if label not in glue:
            return None  # always true after its row-local part: no search ends early
        found = [c for c in _conjuncts(glue[label]) if _reads_start_only(c, start_label)]
        if not found:
            return None
        operands[label] = balanced(found, lambda a, b: vd.Op("and", (a, b)))
    verdicts = vd.compile_verdicts(operands)
    keys = vd.state_keys(operands)
    final = frozenset(label for label, ends in later.items() if ends)
    return StartBound(verdicts, final, keys)


def possible(
    bound: StartBound,
    columns: vd.Columns,
    lows: np.ndarray,
    highs: np.ndarray,
    starts: np.ndarray,
    final: bool,
) -> np.ndarray | None:
    """Where a search from ``starts`` may match (a mask over ``starts``), or None if the
    test gave up. ``lows``/``highs``: each row's partition bounds; unless ``final``,
    more rows follow each partition's last row (a search that reaches it is kept)."""
    keep = np.ones(len(starts), dtype=bool)
    # the undecided searches: their positions in ``starts``, start rows, partition ends
    at, s, high = np.arange(len(starts)), starts, highs[starts]
    for step in range(1, MAX_ROWS + 1):
        if not len(at):
            break
        if step in GIVE_UP and len(at) > GIVE_UP[step] * len(starts):
            return None
        r = s + step
        inside = r < high
        if not inside.all():
            if final:
                keep[at[~inside]] = False  # no row of a final label before the end
            go = np.flatnonzero(inside)
            at, s, r, high = at[go], s[go], r[go], high[go]
            if not len(at):
                break
        # one set of threads for all labels: a value two operands read is read once
        t = vd.Threads(-1, r, s, columns, lambda s=s: (lows[s], highs[s]))
        t.state = {key: s for key in bound.keys}
        survive = ends = None
        for label, verdict in bound.verdicts.items():
            try:
                passed = verdict(t)
            except vd.NeedsScalar:
                return None  # a row the search may never reach: let the search meet it
            survive = passed if survive is None else survive | passed
            if label in bound.final:
                ends = passed if ends is None else ends | passed
        if not survive.all():
            keep[at[~survive]] = False
        go = np.flatnonzero(survive if ends is None else survive & ~ends)
        at, s, high = at[go], s[go], high[go]
    return keep
