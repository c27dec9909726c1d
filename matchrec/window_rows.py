"""Row pattern recognition in a window (SQL:2016 R020): one output row per input row.

``WINDOW w AS (... ROWS BETWEEN CURRENT ROW AND <end> ... PATTERN ... DEFINE ...)``
searches, for each row of the partition in order, a match that starts at that row
(INITIAL) or at a later row of its frame (SEEK). Unlike MATCH_RECOGNIZE, the search and
every navigation see only the frame: the rows from the current row to the frame's end,
so ``PREV`` at the current row is NULL. A row that an earlier row's match skipped (AFTER
MATCH SKIP) is not searched from. Each row gets the measures of its match, computed at
the match's last row (RUNNING is FINAL there), or, where there is no match, none; the
window functions called over the window see the match's rows, or no row.

This is the same matcher as MATCH_RECOGNIZE's (:class:`~matchrec.matcher.MatchRun`)
with bounds on the rows it reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import MatchRuntimeError
from .matcher import Match, next_start
from .navigation import MatchContext


@dataclass(frozen=True)
class WindowSearch:
    """How a window's frame bounds the search: ``rows`` after the current row (None:
    up to the partition's end), or read per row from ``column``; SEEK or INITIAL."""

    rows: int | None = None
    column: str | None = None
    seek: bool = False
    # the frame's end as the user wrote it, and where (for an error about a row's value)
    text: str = ""
    pos: int | None = None
    sql: str = ""

    def frame_end(self, cols: Any, row: int, n: int) -> int:
        """The first row after ``row``'s frame in a partition of ``n`` rows."""
        if self.column is None:
            return n if self.rows is None else min(n, row + self.rows + 1)
        offset = cols[self.column][row]
        if offset is None or isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
            raise MatchRuntimeError(
                f"Window frame offset value must not be negative or null: {self.text} is "
                f"{offset!r} at a row",
                sql=self.sql or None,
                pos=self.pos,
                hint="write a non-negative whole number of rows, e.g. coalesce(n, 0)",
            )
        return min(n, row + offset + 1)


def run_window(program: Any, cols: Any, n: int) -> Any:
    """The output of a window's row pattern search over one partition of ``n`` rows:
    every row once, in order (``program`` is an :class:`~matchrec.engine.PartitionProgram`
    whose ``window`` is set). ``matched`` is False for a row without a match, whose
    atoms are those of an empty match (window functions over no row)."""
    from .engine import PartitionOutput, _append_atoms, _scalar_search

    search: WindowSearch = program.window
    out = PartitionOutput(atoms=[[] for _ in program.atoms])
    define_ctx = MatchContext(cols, n, program.label_names)
    ctx = MatchContext(cols, n, program.label_names)
    skipped_to = -1  # rows up to here were skipped by an earlier row's match
    number = 1
    for row in range(n):
        match: Match | None = None
        high = row + 1
        if row > skipped_to:
            high = search.frame_end(cols, row, n)
            define_ctx.low, define_ctx.n = row, high
            start = row
            while True:
                found = _scalar_search(program, define_ctx, start, number)
                match = found if isinstance(found, Match) else None
                if match is not None or not search.seek or start >= high - 1:
                    break
                start += 1
        ctx.low, ctx.n = row, high
        out.rows.append(row)
        out.matched.append(match is not None)
        if match is None:
            ctx.start, ctx.labels, ctx.upto = row, (), 0
        else:
            ctx.start, ctx.labels, ctx.upto = match.start, match.labels, match.end - match.start
        ctx.match_number = number
        _append_atoms(program, ctx, out)
        if match is None or match.end == match.start:
            skipped_to = max(skipped_to, row)
            number += match is not None
            continue
        number += 1
        if program.skip_mode == "next_row":
            skipped_to = row
        else:
            skipped_to = next_start(match, program.skip_mode, program.skip_labels) - 1
    return out
