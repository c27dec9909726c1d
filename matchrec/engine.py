"""Run a planned MATCH_RECOGNIZE over the rows of one partition.

The runtime hands over one partition at a time (its rows sorted, as columns), with the
row-local DEFINE parts already computed by Spark as boolean columns. This module drives
the matcher, evaluates the match-dependent DEFINE parts and the measure atoms, and says
which input row each output row comes from. It never imports Spark, so the whole
matching path is testable in plain Python.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

import numpy as np
import pyarrow as pa

from matchrec import vector_define as vd
from matchrec import wave
from matchrec.errors import MatchRuntimeError
from matchrec.far_timestamps import FarTimestamp, micros_of
from matchrec.fastmatch import BitMatcher, NeedMoreRows, can_match_empty
from matchrec.matcher import Match, MatchRun, match_partition, next_start
from matchrec.navigation import Evaluator, MatchContext, Navigate
from matchrec.nfa import Op
from matchrec.sql_values import with_wide_decimals
from matchrec.vector_measures import MatchLayout, vector_atoms
from matchrec.window_rows import WindowSearch, run_window


@dataclass
class PartitionProgram:
    """The executable part of a plan: picklable, shipped to every Spark worker."""

    nfa: Any
    label_names: list[str]
    # label id -> (name of the precomputed boolean column or None, Python glue or None)
    defines: dict[int, tuple[str | None, Evaluator | None]]
    history_free: bool
    skip_mode: str
    skip_labels: frozenset[int]
    atoms: list[tuple[Evaluator, bool]]  # (evaluator, is aggregate)
    one_row: bool
    empty_matches: str  # show | omit | unmatched (ALL ROWS PER MATCH)
    excluded_output: bool  # ONE ROW PER MATCH ignores exclusion
    within_column: str | None = None
    within_seconds: float | None = None
    # label id -> the Python glue as an array expression (None: some glue has none)
    vector_defines: dict[int, vd.VExpr] | None = None
    # how far DEFINE navigation reaches physically: (rows before a match's first row,
    # rows after the current row)
    define_reach: tuple[int, int] = (0, 0)
    # each atom as the user wrote it and where (for run-time errors), and the query
    atom_sources: list[tuple[str, int | None]] = field(default_factory=list)
    sql: str = ""
    # offset in ``sql`` of AFTER MATCH SKIP's label (-1: none), where its run-time
    # errors point (:func:`matchrec.matcher.placed_skip_error`)
    skip_pos: int = -1
    # row pattern recognition in a window: how the frame bounds each row's search
    # (:mod:`matchrec.window_rows`); None for MATCH_RECOGNIZE
    window: WindowSearch | None = None
    # the session's spark.sql.ansi.enabled when planned: a DECIMAL atom out of its type's
    # range fails under it, else is NULL (``arrow_rows.output_batch``)
    ansi: bool = True
    _bit_matcher: BitMatcher | None = field(default=None, repr=False, compare=False)
    _wave: wave.WaveProgram | None = field(default=None, repr=False, compare=False)
    # bits-only programs: whether matches came often enough in the rows seen so far (on
    # this worker) for the searches at once to pay; None until a group was matched
    _dense: bool | None = field(default=None, repr=False, compare=False)

    @property
    def bits_only(self) -> bool:
        """Every DEFINE verdict is a precomputed bit: the DFA bit matcher applies."""
        return all(glue is None for _, glue in self.defines.values())

    def bit_matcher(self) -> BitMatcher:
        """The program's DFA matcher, built on first use (per worker) and kept."""
        if self._bit_matcher is None:
            self._bit_matcher = BitMatcher(self.nfa)
        return self._bit_matcher

    @property
    def searches_at_once(self) -> bool:
        """Whether the DEFINE glue runs as array expressions over all start rows at once
        (:mod:`matchrec.wave`); the scalar matcher covers the rest (and a history-free
        glue without WITHIN, which it scans in one linear pass)."""
        return (
            not self.bits_only
            and self.vector_defines is not None
            and len(self.nfa) <= wave.MAX_INSTRUCTIONS
            and not (self.history_free and self.within_column is None)
        )

    def wave_program(self) -> wave.WaveProgram:
        """The tables of the vectorized search, built on first use (per worker) and kept."""
        if self._wave is None:
            self._wave = wave.WaveProgram(self.nfa, self.vector_defines or {}, self.skip_mode)
        return self._wave

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_bit_matcher"] = None  # rebuilt where it runs
        state["_wave"] = None
        state["_dense"] = None
        return state


@dataclass
class PartitionOutput:
    """Output rows of one partition, column-wise.

    ``rows[i]`` is the input row (partition index) output row i comes from: the row itself
    for ALL ROWS PER MATCH, the first row of the match for ONE ROW PER MATCH (its
    partition columns are the same). ``atoms[k][i]`` is atom k's value for output row i;
    ``matched[i]`` is False for unmatched rows (WITH UNMATCHED ROWS). The vectorized
    path gives ``rows`` as a NumPy array, ``atoms`` as Arrow arrays and ``matched`` None
    (every row is matched).
    """

    rows: Any = field(default_factory=list)
    atoms: list[Any] = field(default_factory=list)
    matched: list[bool] | None = field(default_factory=list)


def _elapsed_seconds(a: Any, b: Any) -> float | None:
    """Seconds from ``a`` to ``b``: between two TIMESTAMPs, the time that passed (their
    instants, as the vectorized search, the stream's timers and Flink's ``within`` count
    it), not their session-zone wall clocks, which a DST change moves by an hour."""
    if a is None or b is None:
        return None
    stamps = (datetime, FarTimestamp)
    if isinstance(a, stamps) and isinstance(b, stamps) and (a.tzinfo is None) == (b.tzinfo is None):
        return (micros_of(b) - micros_of(a)) / 1_000_000  # (Python subtracts wall clocks)
    delta = b - a
    if isinstance(delta, timedelta):
        return delta.total_seconds()
    if isinstance(a, (datetime, date)):
        return None
    return float(delta)


def make_evaluate(
    program: PartitionProgram, ctx: MatchContext, match_number: int
) -> Callable[[int, int, Sequence[int]], bool]:
    """The DEFINE test the matcher calls: row-local bit, WITHIN bound, then Python glue."""
    tests: list[tuple[Sequence[Any] | None, Evaluator | None]] = [(None, None)] * len(
        program.label_names
    )
    for label, (column, glue) in program.defines.items():
        tests[label] = (ctx.cols[column] if column else None, glue)
    times = ctx.cols[program.within_column] if program.within_column else None
    limit = program.within_seconds

    def evaluate(label: int, start: int, labels: Sequence[int]) -> bool:
        row = start + len(labels) - 1
        bits, glue = tests[label]
        if bits is not None and bits[row] is not True:
            return False
        if times is not None:
            span = _elapsed_seconds(times[start], times[row])
            if span is None or span > limit:
                return False
        if glue is None:
            return True
        ctx.start = start
        ctx.labels = labels
        ctx.upto = len(labels)
        ctx.match_number = match_number
        return glue(ctx) is True

    return evaluate


def label_bits(cols: Any, name: str) -> np.ndarray:
    """A boolean column as a NumPy mask (NULL is false); ``cols.mask`` is used if offered."""
    getter = getattr(cols, "mask", None)
    if getter is not None:
        return getter(name)
    return np.array([v is True for v in cols[name]], dtype=bool)


def label_symbols(program: PartitionProgram, cols: Any, n: int) -> list[int]:
    """Per row, the set of labels its DEFINE conditions allow, as a bit set."""
    symbols = np.zeros(n, dtype=np.int64)
    for label in range(len(program.label_names)):
        column = program.defines.get(label, (None, None))[0]
        if column is None:
            symbols |= 1 << label
        else:
            symbols |= label_bits(cols, column).astype(np.int64) << label
    return symbols.tolist()


def _bit_matches(
    program: PartitionProgram, symbols: list[int], times: Sequence[Any] | None, low: int, high: int
):
    """Matches of the partition in rows [low, high) of ``symbols``, numbered from 1, with
    rows counted from ``low``."""
    part = symbols[low:high] if low or high < len(symbols) else symbols
    symbol_at = _within_symbols(program, part, times, low) if times is not None else None
    return program.bit_matcher().matches(
        part,
        high - low,
        skip_mode=program.skip_mode,
        skip_labels=program.skip_labels,
        symbol_at=symbol_at,
    )


@with_wide_decimals
def run_chunk(
    program: PartitionProgram,
    cols: Any,
    n: int,
    *,
    origin: int,
    number: int,
    final: bool,
    start: int = 0,
    lookahead: int = 0,
) -> tuple[PartitionOutput, int, int]:
    """Match rows [0, n) of a partition too large to hold at once; its row 0 is partition
    row ``origin``, the search resumes at row ``start`` (rows before it are kept for
    PREV), its next match gets ``number``, and unless ``final`` more rows follow.

    Returns the output of the matches that are settled (and whose ``lookahead`` rows after
    their end, for NEXT in MEASURES, are here), the row where matching resumes once more
    rows come, and the number of the next match. Only for bit-only programs whose pattern
    cannot match empty and without WITH UNMATCHED ROWS (:func:`chunkable`).
    """
    found, resume, number = find_in_piece(
        program,
        cols,
        n,
        origin=origin,
        number=number,
        final=final,
        start=start,
        lookahead=lookahead,
    )
    return _measured(program, cols, n, found), resume, number


def find_in_piece(
    program: PartitionProgram,
    cols: Any,
    n: int,
    *,
    origin: int,
    number: int,
    final: bool,
    start: int = 0,
    lookahead: int = 0,
    stop: int | None = None,
) -> tuple[list[tuple[int, Match]], int, int]:
    """The settled matches of :func:`run_chunk` (not measured), the resume row and the
    next match number: :func:`find_in_pieces` for one piece.

    ``stop`` (with ``final`` False): only the searches from rows before ``stop`` run, and
    each treats the end of the rows at hand as the end of the partition (its WITHIN bound
    has passed, so no later row can join it), although more rows follow; matching then
    resumes at ``stop`` at the earliest."""

    def one(value: int) -> np.ndarray:
        return np.array([value], dtype=np.int64)

    pieces = wave.Pieces(
        one(0), one(n), one(origin), one(start), one(number), None if stop is None else one(stop)
    )
    found = find_in_pieces(program, cols, n, pieces, final=final, lookahead=lookahead)
    return found.matches.pairs(), int(found.resume[0]), int(found.numbers[0])


def find_in_pieces(
    program: PartitionProgram,
    cols: Any,
    n: int,
    pieces: wave.Pieces,
    *,
    final: bool,
    lookahead: int = 0,
) -> wave.PiecesFound:
    """The settled matches of several pieces of partitions laid out in ``cols`` (``n``
    rows; see :class:`matchrec.wave.Pieces`), each from its start row on, and per piece
    the row where matching resumes once more rows come and the next match number.
    Unless ``final``, more rows follow each piece; a match is settled when its search
    ended inside the piece and the ``lookahead`` rows after it (NEXT in MEASURES) are
    there.

    Where the DEFINE glue has an array form, the searches of all pieces run at once
    (:func:`matchrec.wave.search`); bits-only programs scan each piece with the DFA;
    the rest runs the scalar matcher from each start row."""
    if program.bits_only:
        return _bit_pieces(program, cols, n, pieces, final=final, lookahead=lookahead)
    ends = final or pieces.stops is not None  # the searches that run see no row after a piece
    # a piece has no one-pass scan (a history-free glue without WITHIN uses it on whole
    # partitions): the array search is the fast way for every glue that has an array form
    at_once = (
        program.vector_defines is not None
        and len(program.nfa) <= wave.MAX_INSTRUCTIONS
        and pieces.horizons is None  # the array search reads each piece to its end
    )
    inputs = _wave_inputs(program, cols, pieces.row_bounds(n)) if at_once else None
    if inputs is not None:
        inputs.final = ends
        inputs.searches = pieces.search_rows()
        at_partition_start = np.zeros(n, dtype=bool)
        at_partition_start[pieces.lows[(pieces.origins == 0) & (pieces.highs > pieces.lows)]] = True
        inputs.at_partition_start = at_partition_start
        result = _searched(program, inputs)
    if inputs is None or result is None:
        result = wave.WaveResult.unresolved(n)
    contexts: dict[int, MatchContext] = {}  # one per piece that needs the scalar matcher

    def fallback(k: int, row: int, match_number: int) -> Match | None | bool:
        low, high = int(pieces.lows[k]), int(pieces.highs[k])
        ctx = contexts.get(k)
        if ctx is None:
            ctx = contexts[k] = MatchContext(
                part_columns(cols, n, low, high), high - low, program.label_names
            )
        origin = int(pieces.origins[k])
        horizon = None if pieces.horizons is None else int(pieces.horizons[k]) - low
        found = _scalar_search(
            program, ctx, row - low, match_number, final=ends, origin=origin, horizon=horizon
        )
        if not isinstance(found, Match):
            return found
        return Match(found.start + low, found.end + low, found.labels, found.excluded)

    return wave.resolve_pieces(
        result, pieces, program.skip_mode, program.skip_labels, fallback, final, lookahead
    )


def _bit_pieces(
    program: PartitionProgram,
    cols: Any,
    n: int,
    pieces: wave.Pieces,
    *,
    final: bool,
    lookahead: int,
) -> wave.PiecesFound:
    """:func:`find_in_pieces` for bits-only programs: the DFA scans piece after piece
    (the symbols of all rows are computed once)."""
    ends = final or pieces.stops is not None
    symbols = label_symbols(program, cols, n)
    times = cols[program.within_column] if program.within_column else None
    items: list[int | Match] = []
    numbers: list[int] = []
    lows: list[int] = []
    highs: list[int] = []
    piece: list[int] = []
    resume = pieces.highs.copy()
    next_numbers = pieces.numbers.copy()
    for k in range(len(pieces)):
        low, high = int(pieces.lows[k]), int(pieces.highs[k])
        size = high - low
        # rows the DFA may read: none after the horizon is decided yet
        seen = size if pieces.horizons is None else int(pieces.horizons[k]) - low
        part = symbols[low : low + seen]
        symbol_at = _within_symbols(program, part, times, low) if times is not None else None
        start = int(pieces.starts[k]) - low
        limit = size if pieces.stops is None else int(pieces.stops[k]) - low
        number = int(pieces.numbers[k])
        after = start  # where the search goes on after the last settled match
        settled = None
        for item in program.bit_matcher().matches(
            part,
            seen,
            skip_mode=program.skip_mode,
            skip_labels=program.skip_labels,
            symbol_at=symbol_at,
            final=ends,
            origin=int(pieces.origins[k]),
            start=start,
            number=number,
        ):
            if isinstance(item, NeedMoreRows):
                settled = item.row
                break
            num, match = item
            if match.start >= limit:
                break
            if not final and match.end + lookahead > size:
                settled, number = match.start, num
                break
            items.append(Match(match.start + low, match.end + low, match.labels, match.excluded))
            numbers.append(num)
            lows.append(low)
            highs.append(high)
            piece.append(k)
            number = num + 1
            after = next_start(match, program.skip_mode, program.skip_labels)
        if settled is None:
            settled = seen if pieces.stops is None else max(after, limit)
        resume[k] = low + settled
        next_numbers[k] = number
    found = wave.Resolved(wave.WaveResult.unresolved(0), items, numbers, lows, highs, piece)
    return wave.PiecesFound(found, resume, next_numbers)


def chunkable(program: PartitionProgram) -> bool:
    """Whether :func:`run_chunk` applies: a long partition may then be matched in pieces.

    Not for a pattern that can match empty, WITH UNMATCHED ROWS, a DEFINE that looks
    at rows after the current one (NEXT from a label's row: the piece may end there), or
    a pattern with ``$``, which the end of a piece would satisfy as the partition's end."""
    unmatched = program.empty_matches == "unmatched" and not program.one_row
    ahead = program.define_reach[1]
    ends = any(ins.op is Op.ANCHOR_END for ins in program.nfa)
    return (
        program.window is None
        and not unmatched
        and not can_match_empty(program.nfa)
        and ahead == 0
        and not ends
    )


def _scalar_search(
    program: PartitionProgram,
    ctx: MatchContext,
    start: int,
    number: int,
    *,
    final: bool = True,
    origin: int = 0,
    horizon: int | None = None,
) -> Match | None | bool:
    """The scalar matcher's search from row ``start`` of the rows of ``ctx`` for match
    ``number``: the match or None, or True if it reached the last row and more follow.
    ``horizon``: the search steps only through rows before it (the rows after are there
    for navigation to read; more rows follow)."""
    run = MatchRun(
        program.nfa,
        start,
        make_evaluate(program, ctx, number),
        history_matters=not program.history_free,
        origin=origin,
    )
    end = ctx.n if horizon is None else horizon
    while run.position < end:
        if not run.step():
            return run.result
    if final and horizon is None:
        return run.finish()
    return run.result if run.settled() else True


def lookaround(program: PartitionProgram) -> tuple[int, int]:
    """How far MEASURES navigate physically before a match's first row and after its
    last, and DEFINE before a match's first row."""
    back, ahead = program.define_reach[0], 0
    for atom, _ in program.atoms:
        if isinstance(atom, Navigate):
            back = max(back, -atom.physical)
            ahead = max(ahead, atom.physical)
    return back, ahead


def _measured(
    program: PartitionProgram,
    cols: Any,
    n: int,
    found: list[tuple[int, Match]] | wave.Resolved | wave.MatchArrays,
    bounds: tuple[np.ndarray, np.ndarray] | None = None,
) -> PartitionOutput:
    """Output rows of non-empty matches: atoms vectorized where possible, the rest per match
    (``bounds``: the partition of each match, when several share the columns; matches
    found by :mod:`matchrec.wave` carry their own and become objects only if needed)."""
    if isinstance(found, (wave.Resolved, wave.MatchArrays)):
        layout = found.layout(n, program.one_row)
    else:
        layout = MatchLayout(found, n, program.one_row, bounds)
    arrow = getattr(cols, "arrow", None) or (lambda name: pa.array(cols[name]))
    atoms = vector_atoms(
        layout, [a for a, _ in program.atoms], arrow, program.label_names, partial=True
    )
    assert atoms is not None
    missing = [k for k, values in enumerate(atoms) if values is None]
    if missing:
        slow = PartitionOutput(atoms=[[] for _ in program.atoms])
        pairs = found if isinstance(found, list) else found.pairs()
        contexts: dict[tuple[int, int], MatchContext] = {}  # one per partition
        for i, (number, match) in enumerate(pairs):
            low, high = int(layout.low[i]), int(layout.high[i])
            ctx = contexts.get((low, high))
            if ctx is None:
                part = part_columns(cols, n, low, high)
                ctx = contexts[low, high] = MatchContext(part, high - low, program.label_names)
            shifted = Match(match.start - low, match.end - low, match.labels, match.excluded)
            _emit_match(program, ctx, number, shifted, slow)
        for k in missing:
            atoms[k] = slow.atoms[k]
    return PartitionOutput(rows=layout.out_rows, atoms=atoms, matched=None)


def _within_symbols(
    program: PartitionProgram, part: list[int], times: Sequence[Any], low: int
) -> Callable[[int, int], int]:
    """Symbols under WITHIN: a row too far from the start row of the search gets none."""
    limit = program.within_seconds

    def symbol_at(start: int, row: int) -> int:
        span = _elapsed_seconds(times[low + start], times[low + row])
        return part[row] if span is not None and span <= limit else 0

    return symbol_at


class _Slice:
    """Rows [low, high) of a set of columns, for the scalar matcher of one partition."""

    def __init__(self, cols: Any, low: int, high: int):
        self.cols, self.low, self.high = cols, low, high
        self._lists: dict[str, list[Any]] = {}

    def __getitem__(self, name: str) -> list[Any]:
        found = self._lists.get(name)
        if found is None:
            found = self._lists[name] = list(self.cols[name][self.low : self.high])
        return found


def part_columns(cols: Any, n: int, low: int, high: int) -> Any:
    """The columns of rows [low, high) of ``cols`` (``n`` rows) for the scalar matcher
    and the per-match evaluators (``cols`` itself when that is all of it)."""
    return cols if (low, high) == (0, n) else _Slice(cols, low, high)


def _arrow_of(cols: Any, name: str) -> pa.Array:
    getter = getattr(cols, "arrow", None)
    return getter(name) if getter is not None else pa.array(cols[name])


def _numeric(array: pa.Array) -> tuple[np.ndarray, np.ndarray] | None:
    """A column as (values, valid) NumPy arrays, if it is integer, floating or boolean."""
    kind = array.type
    if pa.types.is_integer(kind):
        dtype: Any = np.int64
    elif pa.types.is_floating(kind):
        dtype = np.float64
    elif pa.types.is_boolean(kind):
        dtype = bool
    elif pa.types.is_null(kind):
        return np.zeros(len(array), dtype=np.float64), np.zeros(len(array), dtype=bool)
    else:
        return None
    valid = np.asarray(True)  # no NULL: a 0-d mask that broadcasts
    if array.null_count:
        valid = np.asarray(array.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
    filled = array.fill_null(False if dtype is bool else 0)
    return np.asarray(filled.to_numpy(zero_copy_only=False), dtype=dtype), valid


_TICKS_PER_SECOND = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}


def _ticks(array: pa.Array) -> tuple[np.ndarray, np.ndarray, float] | None:
    """A timestamp or date column as integer ticks, its validity, and ticks per second."""
    kind = array.type
    if pa.types.is_timestamp(kind):
        per_second: float = _TICKS_PER_SECOND[kind.unit]
        raw = array.cast(pa.int64())
    elif pa.types.is_date32(kind):
        per_second = 1 / 86_400
        raw = array.cast(pa.int32()).cast(pa.int64())
    else:
        return None
    valid = np.asarray(array.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
    return np.asarray(raw.fill_null(0).to_numpy(), dtype=np.int64), valid, per_second


def _wave_inputs(
    program: PartitionProgram,
    cols: Any,
    bounds: Sequence[tuple[int, int]] | tuple[np.ndarray, np.ndarray],
) -> wave.WaveInputs | None:
    """What the vectorized search reads, or None if a column has a type it does not cover.
    ``bounds``: the partitions as (low, high) pairs, or as two arrays with the bounds of
    each row's partition."""
    glue = program.vector_defines or {}
    arrays: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for name in vd.columns_read(glue):
        found = _numeric(_arrow_of(cols, name))
        if found is None:
            return None
        arrays[name] = found
    if vd.has_decimal(glue) and any(v.dtype == np.int64 for v, _ in arrays.values()):
        return None  # Python adds an int and a DECIMAL exactly; NumPy would round
    if isinstance(bounds, tuple) and isinstance(bounds[0], np.ndarray):
        lows, highs = bounds
    else:
        sizes = [high - low for low, high in bounds]
        lows = np.repeat(np.array([low for low, _ in bounds], dtype=np.int64), sizes)
        highs = np.repeat(np.array([high for _, high in bounds], dtype=np.int64), sizes)
    bits: list[np.ndarray | None] = [None] * len(program.label_names)
    for label, (column, _) in program.defines.items():
        if column is not None:
            bits[label] = label_bits(cols, column)
    times = limit = None
    if program.within_column is not None:
        found_ticks = _ticks(_arrow_of(cols, program.within_column))
        if found_ticks is None:
            return None
        ticks, valid, per_second = found_ticks
        times, limit = (ticks, valid), float(program.within_seconds or 0) * per_second
    return wave.WaveInputs(vd.Columns(arrays), bits, lows, highs, times, limit)


#: steps after which the searches of a bits-only program, if most still run, are left to
#: the DFA scan (linear however long they are)
BITS_PROBE_STEPS = 2
#: a bits-only program whose first group had a match per this many rows or more often
#: searches from all start rows at once (the DFA scan pays Python work per match)
DENSE_MATCH_ROWS = 64


def _searched(
    program: PartitionProgram, inputs: wave.WaveInputs, probe: int | None = None
) -> wave.WaveResult | None:
    """:func:`wave.search`, or None where the array form met a zero divisor under ANSI
    mode (the scalar matcher then decides, and raises if it evaluates that division)."""
    try:
        return wave.search(program.wave_program(), inputs, probe=probe)
    except vd.NeedsScalar:
        return None


def _wave_found(
    program: PartitionProgram, cols: Any, bounds: Sequence[tuple[int, int]]
) -> wave.Resolved | None:
    """The matches of the partitions ``bounds`` found by searching from all start rows at
    once (rows absolute), or None where that does not apply.

    A bits-only program has the DFA scan too. The searches at once are tried first: with
    short, frequent matches they cost less per match (the DFA pays a Python search and
    Python objects per match), and they are given up after a few steps if most searches
    are long (the DFA scan stays linear however long they are)."""
    bits_only = program.bits_only and len(program.nfa) <= wave.MAX_INSTRUCTIONS
    if not (program.searches_at_once or bits_only):
        return None
    inputs = _wave_inputs(program, cols, bounds)
    if inputs is None:
        return None
    result = _searched(program, inputs, probe=BITS_PROBE_STEPS if bits_only else None)
    if result is None:
        return None

    contexts: dict[tuple[int, int], MatchContext] = {}  # one per partition searched

    def fallback(low: int, high: int, start: int, number: int) -> Match | None:
        ctx = contexts.get((low, high))
        if ctx is None:
            ctx = contexts[low, high] = MatchContext(
                _Slice(cols, low, high), high - low, program.label_names
            )
        found = _scalar_search(program, ctx, start - low, number)
        if not isinstance(found, Match):
            return None
        return Match(found.start + low, found.end + low, found.labels, found.excluded)

    return wave.resolve(result, bounds, program.skip_mode, program.skip_labels, fallback)


@with_wide_decimals
def run_groups(
    program: PartitionProgram, cols: Any, bounds: Sequence[tuple[int, int]]
) -> PartitionOutput | None:
    """Several partitions laid out one after another in ``cols`` (partition ``k`` is rows
    ``bounds[k]``), each matched on its own, their measures computed together; output rows
    are table rows. This is how many small partitions stay cheap. None where it does not
    apply (DEFINE parts in Python, unmatched rows, an empty match): then run each
    partition with :func:`run_partition`."""
    if program.window is not None or (program.empty_matches == "unmatched" and not program.one_row):
        return None
    total = bounds[-1][1] if bounds else 0
    # a bits-only program tries the searches at once only where matches are frequent:
    # the first group goes through the DFA scan, which tells how frequent they are
    at_once = (
        None if program.bits_only and not program._dense else _wave_found(program, cols, bounds)
    )
    if not program.bits_only or at_once is not None:
        if at_once is None or at_once.has_empty():
            return None
        return _measured(program, cols, total, at_once)
    symbols = label_symbols(program, cols, total)
    times = cols[program.within_column] if program.within_column else None
    found: list[tuple[int, Match]] = []
    lows: list[int] = []
    highs: list[int] = []
    for low, high in bounds:
        for number, m in _bit_matches(program, symbols, times, low, high):
            if m.end == m.start:
                return None
            found.append((number, Match(m.start + low, m.end + low, m.labels, m.excluded)))
            lows.append(low)
            highs.append(high)
    if program._dense is None and total:
        program._dense = len(found) * DENSE_MATCH_ROWS >= total
    bounds_of_matches = (np.array(lows, dtype=np.int64), np.array(highs, dtype=np.int64))
    return _measured(program, cols, total, found, bounds_of_matches)


@with_wide_decimals
def run_partition(
    program: PartitionProgram, cols: Any, n: int, vectorize: bool = True
) -> PartitionOutput:
    """Find all matches of one partition of ``n`` rows and compute the output rows.

    Measures are computed for all matches at once where every atom allows it
    (``vectorize``), else match by match; both give the same values."""
    if n == 0:
        return PartitionOutput(atoms=[[] for _ in program.atoms])
    if program.window is not None:
        return run_window(program, cols, n)
    define_ctx = MatchContext(cols, n, program.label_names)
    unmatched = program.empty_matches == "unmatched" and not program.one_row
    found: Any
    if program.bits_only:
        times = cols[program.within_column] if program.within_column else None
        found = _bit_matches(program, label_symbols(program, cols, n), times, 0, n)
    elif (at_once := _wave_found(program, cols, [(0, n)])) is not None:
        found = at_once.pairs()
    else:
        found = match_partition(
            program.nfa,
            n,
            lambda number: make_evaluate(program, define_ctx, number),
            skip_mode=program.skip_mode,
            skip_labels=program.skip_labels,
            history_matters=not program.history_free,
            start_matters=program.within_column is not None,
        )
    if not unmatched and vectorize:
        found = list(found)
        if all(match.end > match.start for _, match in found):
            return _measured(program, cols, n, found)
    return emit_rows(program, cols, n, found, upto=n)


def emit_rows(
    program: PartitionProgram,
    cols: Any,
    n: int,
    found: Iterable[tuple[int, Match]],
    *,
    upto: int,
    unmatched_from: int = 0,
    covered_to: int = 0,
) -> PartitionOutput:
    """Output rows of ``found`` match by match and, for WITH UNMATCHED ROWS, of the rows
    in [``unmatched_from``, ``upto``) that no match covers (rows before ``covered_to``
    are covered by matches emitted before). Matches come in order of their first row,
    so a row before a match's first row can no longer be covered by a later one."""
    out = PartitionOutput(atoms=[[] for _ in program.atoms])
    ctx = MatchContext(cols, n, program.label_names)
    unmatched = program.empty_matches == "unmatched" and not program.one_row
    covered = np.zeros(n + 1, dtype=bool)
    covered[: max(0, min(n, covered_to))] = True
    next_free = max(0, unmatched_from)

    def emit_unmatched(end: int) -> None:
        nonlocal next_free
        for r in range(next_free, end):
            if not covered[r]:
                out.rows.append(r)
                out.matched.append(False)
                for column in out.atoms:
                    column.append(None)
        next_free = max(next_free, end)

    for number, match in found:
        if unmatched:
            emit_unmatched(match.start)
            covered[match.start : max(match.end, match.start + 1)] = True
        _emit_match(program, ctx, number, match, out)
    if unmatched:
        emit_unmatched(upto)
    return out


def _append_atoms(program: PartitionProgram, ctx: MatchContext, out: PartitionOutput) -> None:
    """Each atom's value at ``ctx``; a value Python cannot compute (an aggregate given
    values of a type it does not handle) is a run-time error at the user's expression."""
    try:
        for (atom, _), column in zip(program.atoms, out.atoms):
            column.append(atom(ctx))
    except (TypeError, ValueError, ArithmeticError, KeyError, IndexError) as err:
        # the failing atom's column is the first one short of a value for this row
        k = next(i for i, column in enumerate(out.atoms) if len(column) < len(out.rows))
        text, pos = program.atom_sources[k] if k < len(program.atom_sources) else ("", None)
        raise MatchRuntimeError(
            f"could not compute {text or 'a measure'} over the match: {type(err).__name__}: {err}",
            sql=program.sql or None,
            pos=pos,
            hint="the values may have a type matchrec's Python side does not handle; "
            "CAST them to a simpler type inside the aggregate or navigation",
        ) from None


def _emit_match(
    program: PartitionProgram, ctx: MatchContext, number: int, match: Match, out: PartitionOutput
) -> None:
    ctx.start = match.start
    ctx.labels = match.labels
    ctx.match_number = number
    size = match.end - match.start
    if program.one_row:
        ctx.upto = size
        out.rows.append(match.start)
        out.matched.append(True)
        _append_atoms(program, ctx, out)
        return
    if size == 0:
        if program.empty_matches == "omit":
            return
        ctx.upto = 0
        out.rows.append(match.start)
        out.matched.append(True)
        _append_atoms(program, ctx, out)
        return
    for i in range(size):
        if match.excluded[i]:
            continue
        ctx.upto = i + 1
        out.rows.append(match.start + i)
        out.matched.append(True)
        _append_atoms(program, ctx, out)
