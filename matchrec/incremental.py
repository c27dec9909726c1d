"""Match partitions whose rows arrive over time (the keys of a stream).

The stream runtime holds, per partition key, the rows it has seen in ORDER BY order that
later matches may still need, and a :class:`Cursor`. Each time more rows are known (the
watermark passed them), :func:`step_pieces` matches what it can in the rows of many keys
at once, laid out one key after another in one set of columns: one search over all of
them with the batch engine's piece search (:func:`matchrec.engine.find_in_pieces`), the
measures of all settled matches computed together. It emits the matches that are
settled, and says per key how many held rows are no longer needed. A match is settled
when no later row can change it: every preferred thread died, or WITHIN's bound passed
(``expired``), and the rows NEXT in MEASURES reads are there. :func:`step` is the same
for one partition.

Beside the matches it can emit the unmatched rows of ALL ROWS PER MATCH WITH UNMATCHED
ROWS once no match can cover them, and (``WITH TIMEOUTS``) the partial matches that
WITHIN cut off. Nothing here imports Spark.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from matchrec.engine import (
    PartitionOutput,
    PartitionProgram,
    _measured,
    emit_rows,
    find_in_pieces,
    lookaround,
    make_evaluate,
    part_columns,
)
from matchrec.matcher import Match, MatchRun, next_start
from matchrec.navigation import MatchContext
from matchrec.sql_values import with_wide_decimals
from matchrec.wave import MatchArrays, Pieces

#: MATCH_NUMBER() of a timed-out partial match: it is not a match and takes no number
TIMEOUT_NUMBER = 0


@dataclass
class Cursor:
    """Where one partition's matching stands; rows are partition rows (absolute)."""

    origin: int = 0  # partition row of the first held row
    resume: int = 0  # partition row where the next search starts
    number: int = 1  # MATCH_NUMBER of the next match
    # partition row up to which rows were emitted as unmatched or are covered by a match
    unmatched_from: int = 0
    covered_to: int = 0  # end of the furthest match emitted so far
    reported_to: int = 0  # end of the last timed-out partial match reported

    def as_tuple(self) -> tuple[int, ...]:
        return (
            self.origin,
            self.resume,
            self.number,
            self.unmatched_from,
            self.covered_to,
            self.reported_to,
        )


#: the fields of a cursor, in order (the columns of :class:`Cursors` and of saved state)
CURSOR_FIELDS = tuple(f.name for f in fields(Cursor))


@dataclass
class Cursors:
    """The cursors of many partitions as arrays (entry ``i`` of each: partition ``i``),
    so that a step over many keys reads and updates them without a Python object per
    key."""

    origin: np.ndarray
    resume: np.ndarray
    number: np.ndarray
    unmatched_from: np.ndarray
    covered_to: np.ndarray
    reported_to: np.ndarray

    @classmethod
    def new(cls, count: int) -> Cursors:
        """``count`` cursors of partitions not matched yet."""
        return cls.of([Cursor()] * count)

    @classmethod
    def of(cls, cursors: Sequence[Cursor]) -> Cursors:
        values = np.array([c.as_tuple() for c in cursors], dtype=np.int64).reshape(
            len(cursors), len(CURSOR_FIELDS)
        )
        return cls(*(values[:, i].copy() for i in range(len(CURSOR_FIELDS))))

    @classmethod
    def from_columns(cls, columns: Sequence[np.ndarray]) -> Cursors:
        """Cursors from one array per field, in :data:`CURSOR_FIELDS` order."""
        return cls(*(np.array(c, dtype=np.int64) for c in columns))  # own, writable

    def columns(self) -> list[np.ndarray]:
        """One array per field, in :data:`CURSOR_FIELDS` order."""
        return [getattr(self, name) for name in CURSOR_FIELDS]

    def __len__(self) -> int:
        return len(self.origin)

    def __getitem__(self, i: int) -> Cursor:
        return Cursor(*(int(c[i]) for c in self.columns()))

    def take(self, which: np.ndarray) -> Cursors:
        return Cursors(*(c[which] for c in self.columns()))

    def put(self, which: np.ndarray, other: Cursors) -> None:
        """Set the cursors at ``which`` to ``other`` (in place)."""
        for mine, theirs in zip(self.columns(), other.columns()):
            mine[which] = theirs

    def extended(self, count: int) -> Cursors:
        """These cursors and ``count`` new ones after them."""
        if not count:
            return self
        more = Cursors.new(count)
        return Cursors(*(np.concatenate([a, b]) for a, b in zip(self.columns(), more.columns())))


@dataclass
class Step:
    """What :func:`step` settled: output rows (held rows) of the matches and unmatched
    rows, of the timed-out partial matches, how many leading held rows may be dropped,
    and the new cursor (counted after that drop)."""

    output: PartitionOutput
    timeouts: PartitionOutput | None
    drop: int
    cursor: Cursor


@dataclass
class Steps:
    """What :func:`step_pieces` settled: output rows (rows of the columns) of the matches
    and unmatched rows, of the timed-out partial matches, per partition how many of its
    leading held rows may be dropped, and the new cursors (counted after that drop)."""

    output: PartitionOutput
    timeouts: PartitionOutput | None
    drop: np.ndarray
    cursors: Cursors


def step(
    program: PartitionProgram,
    cols: Any,
    n: int,
    cursor: Cursor,
    *,
    expired: int = 0,
    final: bool = False,
    timeouts: bool = False,
    within_ticks: tuple[np.ndarray, float] | None = None,
) -> Step:
    """Match the held rows [0, n) of one partition (row 0 is partition row
    ``cursor.origin``) as far as they allow: :func:`step_pieces` for one partition.

    ``expired``: the searches from held rows before it can gain no row (their WITHIN
    bound has passed); ``final``: the partition ends with these rows (batch).
    ``within_ticks``: the WITHIN column as ticks and the bound in ticks, for timeouts.
    """
    one = np.array([0], dtype=np.int64)
    done = step_pieces(
        program,
        cols,
        n,
        one,
        one + n,
        Cursors.of([cursor]),
        expired=one + expired,
        final=final,
        timeouts=timeouts,
        within_ticks=within_ticks,
    )
    return Step(done.output, done.timeouts, int(done.drop[0]), done.cursors[0])


@with_wide_decimals
def step_pieces(
    program: PartitionProgram,
    cols: Any,
    n: int,
    lows: np.ndarray,
    highs: np.ndarray,
    cursors: Cursors,
    *,
    expired: np.ndarray | None = None,
    final: bool = False,
    timeouts: bool = False,
    within_ticks: tuple[np.ndarray, float] | None = None,
) -> Steps:
    """Match the held rows of several partitions, laid out in ``cols`` (``n`` rows):
    partition ``k`` holds rows [``lows[k]``, ``highs[k]``), its row ``lows[k]`` is
    partition row ``cursors.origin[k]``; each as far as its rows allow.

    ``expired[k]``: the searches from partition ``k``'s held rows before that many rows
    can gain no row (their WITHIN bound has passed); ``final``: the partitions end with
    these rows (batch). ``within_ticks``: the WITHIN column as ticks (all ``n`` rows)
    and the bound in ticks, for timeouts. Output rows are rows of ``cols``.
    """
    back, ahead = lookaround(program)
    reach = program.define_reach[1]  # rows DEFINE's NEXT reads after the current row
    origin = cursors.origin
    first = lows + (cursors.resume - origin)  # where each partition's search resumes
    start = first.copy()
    number = cursors.number.copy()
    found: list[MatchArrays] = []
    if final:
        done = find_in_pieces(
            program, cols, n, Pieces(lows, highs, origin, start, number), final=True
        )
        found.append(done.matches.arrays())
        settled_to = done.resume
    else:
        if expired is not None and reach and within_ticks is not None:
            expired = _expired_with_reach(expired, lows, highs, within_ticks, reach)
        stop = None if expired is None else lows + expired
        which = np.flatnonzero(stop > start) if stop is not None else np.zeros(0, np.int64)
        if len(which):
            # the searches WITHIN cut off first: the rows at hand end them
            pieces = Pieces(
                lows[which], highs[which], origin[which], start[which], number[which], stop[which]
            )
            done = find_in_pieces(program, cols, n, pieces, final=False, lookahead=ahead)
            matches = done.matches.arrays()
            matches.piece = which[matches.piece]
            found.append(matches)
            start[which] = done.resume
            number[which] = done.numbers
        settled_to = start
        # the last ``reach`` rows' verdicts read rows that have not come yet
        horizons = np.maximum(lows, highs - reach) if reach else None
        pieces = Pieces(lows, highs, origin, start, number, horizons=horizons)
        done = find_in_pieces(program, cols, n, pieces, final=False, lookahead=ahead)
        found.append(done.matches.arrays())
    resume, number = done.resume, done.numbers
    matches = MatchArrays.concat(found)

    output = _output(program, cols, n, matches, lows, highs, cursors, resume)
    rel_resume = resume - lows
    drop = np.maximum(0, rel_resume - back)
    covered_to = cursors.covered_to.copy()
    if len(matches):
        reach = origin[matches.piece] + np.maximum(matches.ends, matches.starts + 1)
        np.maximum.at(covered_to, matches.piece, reach - lows[matches.piece])
    new = Cursors(
        origin=origin + drop,
        resume=origin + rel_resume,
        number=number,
        unmatched_from=np.maximum(cursors.unmatched_from, origin + rel_resume),
        covered_to=covered_to,
        reported_to=cursors.reported_to.copy(),
    )
    partials = None
    if timeouts and within_ticks is not None:
        partials, new.reported_to = _timed_out(
            program, cols, n, matches, lows, highs, cursors, first, settled_to, within_ticks
        )
    return Steps(output, partials, drop, new)


def _expired_with_reach(
    expired: np.ndarray,
    lows: np.ndarray,
    highs: np.ndarray,
    within_ticks: tuple[np.ndarray, float],
    reach: int,
) -> np.ndarray:
    """``expired`` cut to the searches whose rows are all here: a search's last row
    inside its WITHIN bound reads ``reach`` rows after it (NEXT in DEFINE), so the
    search ends only once those rows are held too."""
    ticks, limit = within_ticks
    cut = expired.copy()
    for k in np.flatnonzero(expired > 0):
        low, high = int(lows[k]), int(highs[k])
        held = ticks[low:high]
        starts = held[: int(expired[k])]
        # first row past each start's bound, and the rows its searches read after that
        bound = np.searchsorted(held, starts + limit, side="right")
        cut[k] = int(np.count_nonzero(bound + reach - 1 < high - low))
    return cut


def _output(
    program: PartitionProgram,
    cols: Any,
    n: int,
    matches: MatchArrays,
    lows: np.ndarray,
    highs: np.ndarray,
    cursors: Cursors,
    resume: np.ndarray,
) -> PartitionOutput:
    """Output rows of ``matches`` and, for WITH UNMATCHED ROWS, of each partition's held
    rows before its ``resume`` that no match covers (no later match can: it starts at
    ``resume`` or after). All measures at once unless a partition needs its rows one
    by one (unmatched rows, empty matches)."""
    unmatched = program.empty_matches == "unmatched" and not program.one_row
    if not unmatched and not matches.has_empty():
        return _measured(program, cols, n, matches)
    out = PartitionOutput(atoms=[[] for _ in program.atoms])
    per_piece: list[list[tuple[int, Match]]] = [[] for _ in lows]
    for k, pair in zip(matches.piece.tolist(), matches.pairs()):
        per_piece[k].append(pair)
    origin = cursors.origin
    for k, (low, high) in enumerate(zip(lows.tolist(), highs.tolist())):
        if not per_piece[k] and not unmatched:
            continue
        shifted = [
            (num, Match(m.start - low, m.end - low, m.labels, m.excluded))
            for num, m in per_piece[k]
        ]
        part = emit_rows(
            program,
            part_columns(cols, n, low, high),
            high - low,
            shifted,
            upto=int(resume[k]) - low,
            unmatched_from=int(cursors.unmatched_from[k] - origin[k]),
            covered_to=int(cursors.covered_to[k] - origin[k]),
        )
        out.rows.extend(row + low for row in part.rows)
        out.matched.extend(part.matched)
        for column, values in zip(out.atoms, part.atoms):
            column.extend(values)
    return out


def _timed_out(
    program: PartitionProgram,
    cols: Any,
    n: int,
    matches: MatchArrays,
    lows: np.ndarray,
    highs: np.ndarray,
    cursors: Cursors,
    first: np.ndarray,
    settled_to: np.ndarray,
    within_ticks: tuple[np.ndarray, float],
) -> tuple[PartitionOutput, np.ndarray]:
    """The partial matches of the searches from rows [first, settled_to) of each
    partition that found no match because WITHIN cut them off while a thread was still
    matching, and per partition the partition row up to which partial matches are now
    reported.

    A start row inside a partial match already reported is not reported again (a run of
    rows that never completes the pattern gives one timeout, not one per row)."""
    ticks, limit = within_ticks
    origin = cursors.origin
    per_piece: list[list[Match]] = [[] for _ in lows]
    for k, (_, m) in zip(matches.piece.tolist(), matches.pairs()):
        per_piece[k].append(m)
    partials: list[tuple[int, Match]] = []
    bounds: list[tuple[int, int]] = []
    reported_to = cursors.reported_to.copy()
    for k, (low, high) in enumerate(zip(lows.tolist(), highs.tolist())):
        reported = low + max(0, int(cursors.reported_to[k] - origin[k]))
        end = int(settled_to[k])
        tried: list[int] = []
        row = int(first[k])
        for m in per_piece[k]:
            tried.extend(range(row, min(m.start, end)))
            row = next_start(m, program.skip_mode, program.skip_labels)
        tried.extend(range(row, end))
        held = ticks[low:high]
        ctx: MatchContext | None = None
        for s in tried:
            if s < reported:
                continue
            if ctx is None:
                part = part_columns(cols, n, low, high)
                ctx = MatchContext(part, high - low, program.label_names)
            bound = int(np.searchsorted(held, ticks[s] + limit, side="right"))
            run = MatchRun(
                program.nfa,
                s - low,
                make_evaluate(program, ctx, TIMEOUT_NUMBER),
                history_matters=not program.history_free,
                origin=int(origin[k]),
            )
            while run.position < min(bound, high - low) and run.step():
                pass
            partial = None if run.finished else run.partial()
            if partial is not None:
                at = Match(partial.start + low, partial.end + low, partial.labels, partial.excluded)
                partials.append((TIMEOUT_NUMBER, at))
                bounds.append((low, high))
                reported = at.end
        reported_to[k] = origin[k] + reported - low
    lows_of = np.array([b[0] for b in bounds], dtype=np.int64)
    highs_of = np.array([b[1] for b in bounds], dtype=np.int64)
    return _measured(program, cols, n, partials, (lows_of, highs_of)), reported_to
