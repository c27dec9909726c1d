"""Matching over precomputed label bits with a lazily built DFA.

When every DEFINE condition is row-local (Spark computed it as one boolean column per
label), a row is fully described by a small integer: the set of labels it may take (its
*symbol*). The Pike VM's step then depends only on the ordered list of live
instructions and the symbol, so each distinct step is computed once and cached: a
DFA whose states are ordered thread lists, built as the data needs it (never more
states than the Pike VM would create). The per-row work is one table lookup.

Each cached transition also records where every new thread came from (its parent and
the label it gave the row), so the labels of a match are recovered by walking back
over the transitions of its rows, without keeping a history per thread.

Semantics are exactly those of :mod:`matchrec.matcher` (same program, same closure
rules, same preferment and thread dropping); the tests compare the two.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from matchrec.matcher import Match, next_start
from matchrec.nfa import Program

# A transition: (next state id, done reference, threads), where threads[i] is
# (parent reference, label, excluded) of new thread i, and a reference is the index of
# a thread of the previous state, or -1 for the thread started at this row. The done
# reference says which thread completed a match ending before this row (None: none).
Transition = tuple[int, "int | None", tuple[tuple[int, int, bool], ...]]

_NO_MATCH = None


class BitMatcher:
    """Finds the matches of one program over rows given as label-bit symbols."""

    def __init__(self, program: Program):
        self.program = program
        # state id -> (thread pcs, whether a new thread starts at each row)
        self._states: list[tuple[tuple[int, ...], bool]] = []
        self._state_ids: dict[tuple[tuple[int, ...], bool], int] = {}
        self._table: dict[int, Transition] = {}  # key: (state * 2 + at_start) * nsym + symbol
        self._nsym = 1 << program.num_labels
        self.scan_state = self._state((), True)
        self.empty_state = self._state((), False)

    def _state(self, pcs: tuple[int, ...], inject: bool) -> int:
        key = (pcs, inject)
        sid = self._state_ids.get(key)
        if sid is None:
            sid = self._state_ids[key] = len(self._states)
            self._states.append(key)
        return sid

    def _transition(self, state: int, symbol: int, at_start: bool) -> Transition:
        key = (state * 2 + at_start) * self._nsym + symbol
        found = self._table.get(key)
        if found is None:
            found = self._table[key] = self._compute(state, symbol, at_start)
        return found

    def _compute(self, state: int, symbol: int, at_start: bool) -> Transition:
        """One Pike VM step of the threads of ``state`` over a row with ``symbol``."""
        program = self.program
        pcs, inject = self._states[state]
        refs = list(range(len(pcs)))
        starts = list(pcs)
        if inject:
            starts.append(0)
            refs.append(-1)
        done_pc = program.done_pc
        labels = program.labels
        excluded = program.excluded
        seen: set[int] = set()
        new_pcs: list[int] = []
        threads: list[tuple[int, int, bool]] = []
        done: int | None = _NO_MATCH
        for ref, pc in zip(refs, starts):
            for target in program.closure(pc, at_start, False):
                if target in seen:
                    continue
                seen.add(target)
                if target == done_pc:
                    done = ref
                    break
                label = labels[target]
                if symbol >> label & 1:
                    new_pcs.append(target + 1)
                    threads.append((ref, label, excluded[target]))
            if done is not None:
                break
        # after a match no thread starts any more; before it, one starts at every row
        next_state = self._state(tuple(new_pcs), inject and done is None)
        return next_state, done, tuple(threads)

    def _settled(self, state: int, at_start: bool) -> int | None:
        """With more rows to come: None if the search needs the next row, else the thread
        of ``state`` that ends its match here (-1: none, the best match so far stands).
        While new searches start at every row (a scan before any match) it needs rows."""
        program = self.program
        pcs, inject = self._states[state]
        for ref, pc in enumerate(pcs):
            verdict = program.before_next_row(pc, at_start)
            if verdict == program.NEEDS_ROW:
                return None
            if verdict == program.ENDS:
                return ref
        return None if inject else -1

    def _finish(self, state: int, at_start: bool) -> int | None:
        """The thread of ``state`` that matches at the end of the partition, if any."""
        program = self.program
        pcs, _ = self._states[state]
        for ref, pc in enumerate(pcs):
            if program.done_pc in program.closure(pc, at_start, True):
                return ref
        return None

    # ------------------------------------------------------------------ search

    def first_match(
        self,
        symbols: Sequence[int],
        start: int,
        n: int,
        scan: bool = True,
        symbol_at: Callable[[int, int], int] | None = None,
        final: bool = True,
        origin: int = 0,
    ) -> Match | NeedMoreRows | None:
        """The first match starting at ``start`` (``scan=False``) or at the first row from
        ``start`` on where one starts (``scan=True``), or None.

        ``symbol_at(start, row)``, when given, replaces ``symbols[row]`` (e.g. a WITHIN
        bound that depends on the start row; only with ``scan=False``).

        ``final=False`` says more rows of the partition follow ``n``: a search still open
        there returns :class:`NeedMoreRows` instead of a guess. ``origin`` is the partition
        row of ``symbols[0]`` (``^`` holds only at partition row 0).
        """
        trail: list[Transition] = []
        append = trail.append
        base = start
        state = self.scan_state
        best: tuple[int, int] | None = None  # (trail index, done reference)
        table = self._table
        nsym = self._nsym
        scan_state = self.scan_state
        empty = self.empty_state
        states = self._states
        row = start
        while row < n:
            symbol = symbols[row] if symbol_at is None else symbol_at(start, row)
            tr = table.get((state * 2) * nsym + symbol) if row or origin else None
            if tr is None:
                tr = self._transition(state, symbol, row + origin == 0)
            if tr[1] is not None:
                best = (len(trail), tr[1])
            append(tr)
            state = tr[0]
            row += 1
            if state == empty:
                break
            if not scan and states[state][1]:
                state = self._state(states[state][0], False)
            elif state == scan_state:  # nothing alive: forget the rows read so far
                trail.clear()
                base = row
        else:
            if not final:
                ref = self._settled(state, n + origin == 0)
                if ref is None:
                    return NeedMoreRows(base)
                if ref >= 0:
                    best = (len(trail), ref)
                return None if best is None else self._rebuild(trail, base, *best)
            ref = self._finish(state, n + origin == 0)
            if ref is not None:
                best = (len(trail), ref)
        if best is None:
            return None
        return self._rebuild(trail, base, *best)

    @staticmethod
    def _rebuild(trail: list[Transition], base: int, index: int, ref: int) -> Match:
        """The match whose last thread is ``ref`` of the state before ``trail[index]``."""
        end = base + index
        labels: list[int] = []
        excluded: list[bool] = []
        j = index - 1
        while ref != -1:
            parent, label, ex = trail[j][2][ref]
            labels.append(label)
            excluded.append(ex)
            ref = parent
            j -= 1
        labels.reverse()
        excluded.reverse()
        return Match(end - len(labels), end, labels, excluded)

    def matches(
        self,
        symbols: Sequence[int],
        n: int,
        *,
        skip_mode: str = "past_last",
        skip_labels: frozenset[int] = frozenset(),
        symbol_at: Callable[[int, int], int] | None = None,
        final: bool = True,
        origin: int = 0,
        start: int = 0,
        number: int = 1,
    ) -> Iterator[tuple[int, Match] | NeedMoreRows]:
        """All matches of a partition from row ``start`` on, numbered from ``number``, with
        AFTER MATCH SKIP.

        With ``symbol_at`` (symbols that depend on the start row) each start row is tried
        in turn; otherwise one scan finds the next start row with a match. With
        ``final=False`` (more rows follow), the last item is a :class:`NeedMoreRows` saying
        where to resume once they are there.
        """
        row = start
        scan = symbol_at is None
        while row < n:
            match = self.first_match(
                symbols, row, n, scan=scan, symbol_at=symbol_at, final=final, origin=origin
            )
            if isinstance(match, NeedMoreRows):
                yield match
                return
            if match is None:
                if scan:
                    return
                row += 1
                continue
            yield number, match
            number += 1
            row = next_start(match, skip_mode, skip_labels)
        if not final:
            yield NeedMoreRows(row)


class NeedMoreRows:
    """A search ran into the end of the rows at hand: resume at ``row`` with more rows."""

    __slots__ = ("row",)

    def __init__(self, row: int):
        self.row = row

    def __repr__(self) -> str:
        return f"NeedMoreRows({self.row})"


def can_match_empty(program: Program) -> bool:
    """Whether the pattern may match no row (then ALL ROWS PER MATCH has empty-match rows)."""
    return any(
        program.done_pc in program.closure(0, at_start, at_end)
        for at_start in (False, True)
        for at_end in (False, True)
    )
