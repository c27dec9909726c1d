"""Match one partition whose rows arrive over time (a key of a stream).

The stream runtime holds, per partition key, the rows it has seen in ORDER BY order that
later matches may still need, and a :class:`Cursor`. Each time more rows are known (the
watermark passed them), :func:`step` matches what it can with the batch engine's piece
search (:func:`matchrec.engine.find_in_piece`), emits the matches that are settled, and
says how many held rows are no longer needed. A match is settled when no later row can
change it: every preferred thread died, or WITHIN's bound passed (``expired``), and the
rows NEXT in MEASURES reads are there.

Beside the matches it can emit the unmatched rows of ALL ROWS PER MATCH WITH UNMATCHED
ROWS once no match can cover them, and (``WITH TIMEOUTS``) the partial matches that
WITHIN cut off. Nothing here imports Spark.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from matchrec.engine import (
    PartitionOutput,
    PartitionProgram,
    _measured,
    emit_rows,
    find_in_piece,
    lookaround,
    make_evaluate,
)
from matchrec.matcher import Match, MatchRun, next_start
from matchrec.navigation import MatchContext

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


@dataclass
class Step:
    """What :func:`step` settled: output rows (held rows) of the matches and unmatched
    rows, of the timed-out partial matches, how many leading held rows may be dropped,
    and the new cursor (counted after that drop)."""

    output: PartitionOutput
    timeouts: PartitionOutput | None
    drop: int
    cursor: Cursor


def streamable(program: PartitionProgram) -> str | None:
    """Why ``program`` cannot run on a stream, or None if it can."""
    if program.define_reach[1] > 0:
        return "NEXT in DEFINE"
    return None


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
    ``cursor.origin``) as far as they allow.

    ``expired``: the searches from held rows before it can gain no row (their WITHIN
    bound has passed); ``final``: the partition ends with these rows (batch).
    ``within_ticks``: the WITHIN column as ticks and the bound in ticks, for timeouts.
    """
    back, ahead = lookaround(program)
    origin = cursor.origin
    start = cursor.resume - origin
    number = cursor.number
    found: list[tuple[int, Match]] = []
    settled_to = start  # held row: searches from rows before it are decided
    search = partial(find_in_piece, program, cols, n, origin=origin)
    if final:
        found, resume, number = search(number=number, final=True, start=start)
        settled_to = resume
    else:
        if expired > start:
            found, start, number = search(
                number=number, final=False, start=start, lookahead=ahead, stop=expired
            )
        settled_to = start
        more, resume, number = search(number=number, final=False, start=start, lookahead=ahead)
        found += more

    output = _output(program, cols, n, found, cursor, resume)
    partials = None
    if timeouts and within_ticks is not None:
        partials = _timed_out(
            program, cols, n, found, cursor, cursor.resume - origin, settled_to, within_ticks
        )
    drop = max(0, resume - back)
    new = Cursor(
        origin=origin + drop,
        resume=origin + resume,
        number=number,
        unmatched_from=max(cursor.unmatched_from, origin + resume),
        covered_to=max([cursor.covered_to] + [origin + max(m.end, m.start + 1) for _, m in found]),
        reported_to=cursor.reported_to,
    )
    if partials is not None:
        partials, new.reported_to = partials
    return Step(output, partials, drop, new)


def _output(
    program: PartitionProgram,
    cols: Any,
    n: int,
    found: list[tuple[int, Match]],
    cursor: Cursor,
    resume: int,
) -> PartitionOutput:
    """Output rows of ``found`` and, for WITH UNMATCHED ROWS, of the held rows before
    ``resume`` that no match covers (no later match can: it starts at ``resume`` or
    after)."""
    unmatched = program.empty_matches == "unmatched" and not program.one_row
    if not unmatched and all(m.end > m.start for _, m in found):
        return _measured(program, cols, n, found)
    origin = cursor.origin
    return emit_rows(
        program,
        cols,
        n,
        found,
        upto=resume,
        unmatched_from=cursor.unmatched_from - origin,
        covered_to=cursor.covered_to - origin,
    )


def _timed_out(
    program: PartitionProgram,
    cols: Any,
    n: int,
    found: list[tuple[int, Match]],
    cursor: Cursor,
    first: int,
    settled_to: int,
    within_ticks: tuple[np.ndarray, float],
) -> tuple[PartitionOutput, int]:
    """The partial matches of the searches from held rows [first, settled_to) that found
    no match because WITHIN cut them off while a thread was still matching, and the
    partition row up to which partial matches are now reported.

    A start row inside a partial match already reported is not reported again (a run of
    rows that never completes the pattern gives one timeout, not one per row)."""
    ticks, limit = within_ticks
    origin = cursor.origin
    reported = max(0, cursor.reported_to - origin)
    tried: list[int] = []
    row = first
    for _, m in found:
        tried.extend(range(row, min(m.start, settled_to)))
        row = next_start(m, program.skip_mode, program.skip_labels)
    tried.extend(range(row, settled_to))
    ctx = MatchContext(cols, n, program.label_names)
    partials: list[tuple[int, Match]] = []
    for s in tried:
        if s < reported:
            continue
        bound = int(np.searchsorted(ticks, ticks[s] + limit, side="right"))
        run = MatchRun(
            program.nfa,
            s,
            make_evaluate(program, ctx, TIMEOUT_NUMBER),
            history_matters=not program.history_free,
            origin=origin,
        )
        while run.position < min(bound, n) and run.step():
            pass
        partial = None if run.finished else run.partial()
        if partial is not None:
            partials.append((TIMEOUT_NUMBER, partial))
            reported = partial.end
    return _measured(program, cols, n, partials), origin + reported
