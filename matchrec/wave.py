"""Search from every start row at once: the Pike VM of ``matchrec.matcher``, vectorized
across start rows, for DEFINE conditions that read the match.

When a condition reads the match (``B.price >= A.price``), the verdict depends on the
start row and the labels so far, so the scalar matcher runs one anchored search per
start row, in Python. Here all those searches advance together, one row per step: a
thread is a row of parallel arrays (its search, its instruction, its state), and a step
is a few NumPy operations over all threads of all searches. The state that stands in for
the history is the one :mod:`matchrec.vector_define` defines (first/last row per label
set, running aggregates): two threads of the same search at the same instruction with
the same state have the same future, so the later one is dropped, as the scalar matcher
drops a thread whose history repeats an earlier one's. Preferment is kept by keeping
threads sorted by search, then by priority, exactly as the scalar matcher orders them.

The result for each start row is its first match in preferment order (or none);
AFTER MATCH SKIP then picks the matches in order (:func:`resolve`). Searches still
running after ``MAX_STEPS`` steps, or long matches most of whose searches SKIP will never
need (``LONG_STEPS``), are left to the scalar matcher, which runs only the ones SKIP
reaches. Row-local programs use the same search where matches are frequent (the DFA scan
pays Python work per match); ``probe`` gives it up early when most searches are long.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np

from matchrec import skip_chain, start_bound
from matchrec import vector_define as vd
from matchrec.matcher import Match, next_start
from matchrec.nfa import Op, Program
from matchrec.vector_measures import MatchLayout

#: programs larger than this run scalar (the closure tables grow with the program)
MAX_INSTRUCTIONS = 4096
#: past LONG_STEPS, fewer threads than this go on in the scalar matcher (0: none do; a
#: step over a few threads costs about what the scalar matcher pays for one of them, and
#: the scalar matcher recomputes running aggregates, so the last searches stay here)
TAIL_THREADS = 0
#: after this many steps, if most searches still run and most of those have found a
#: match already, they are long matches: AFTER MATCH SKIP will start few of those
#: searches (the others begin inside a match), so the scalar matcher runs the ones it
#: needs instead of all of them running here (not with SKIP TO NEXT ROW, which needs all)
LONG_STEPS = 32
#: steps at most
MAX_STEPS = 4096
#: closures of at most this many instructions are read from a padded table
PADDED_WIDTH = 8
#: programs of at most this many labels split a step's entries by label one label at a
#: time (else after counting the labels present)
LABEL_LOOP_MAX = 4
#: with SKIP PAST LAST ROW, every this many steps (and at the steps PRUNE_AT, when most
#: searches still run) the searches inside a match of the tentative chain stop
#: (:mod:`matchrec.skip_chain`); a check costs O(rows) of NumPy, and checking often
#: stops searches that the chain then reaches and restarts from scratch
PRUNE_EVERY = 64
PRUNE_AT = frozenset({8, 16, 32})

UNRESOLVED = -2
#: ``end`` of a search that reached the last row of a piece that more rows follow
NEED_MORE = -3


class WaveProgram:
    """The tables one program needs: epsilon closures as flat arrays, per instruction."""

    def __init__(self, program: Program, glue: Mapping[int, vd.VExpr], skip_mode: str):
        self.program = program
        self.glue = dict(glue)
        # SKIP TO NEXT ROW searches again from every row inside a match
        self.skips_into_matches = skip_mode == "next_row"
        # SKIP PAST LAST ROW needs no search from inside a match
        self.skips_past_matches = skip_mode == "past_last"
        size = len(program)
        self.size = size
        self.done_pc = program.done_pc
        self.labels = np.array([i.label for i in program], dtype=np.int64)
        self.labels32 = self.labels.astype(np.int32)  # as the history keeps them
        self.excluded = np.array([i.excluded for i in program], dtype=bool)
        self.any_excluded = bool(self.excluded.any())
        starts = [0] + [pc + 1 for pc, i in enumerate(program) if i.op is Op.MATCH_LABEL]
        self.ptr = np.zeros((2, size), dtype=np.int64)
        self.count = np.zeros((2, size), dtype=np.int64)
        self.done_at_end = np.zeros(size, dtype=bool)
        flat: list[int] = []
        for at_start in (0, 1):
            for pc in dict.fromkeys(starts):
                targets = program.closure(pc, bool(at_start), False)
                self.ptr[at_start, pc] = len(flat)
                self.count[at_start, pc] = len(targets)
                flat.extend(targets)
        # a thread at the end of a piece with more rows to come (Program.before_next_row)
        self.before_next_row = np.zeros(size, dtype=np.int64)
        for pc in dict.fromkeys(starts):
            self.done_at_end[pc] = self.done_pc in program.closure(pc, False, True)
            self.before_next_row[pc] = program.before_next_row(pc, False)
        self.targets = np.array(flat, dtype=np.int64)
        # the same closures as rows of a table padded with -1 (None: the widest closure
        # is too wide for that to pay): a step lists its entries with one gather and a
        # flatnonzero instead of np.repeat, which costs ~15 ns per element
        # (width a power of two: an entry's thread is its position shifted right)
        widest = max(1, int(self.count.max(initial=0)))
        self.shift = (widest - 1).bit_length()
        self.width = 1 << self.shift
        self.table: np.ndarray | None = None
        if self.width <= PADDED_WIDTH:
            self.table = np.full((2, size, self.width), -1, dtype=np.int64)
            for at_start in (0, 1):
                for pc in dict.fromkeys(starts):
                    begin, count = self.ptr[at_start, pc], self.count[at_start, pc]
                    self.table[at_start, pc, :count] = flat[begin : begin + count]
        self.keys = vd.state_keys(self.glue)
        # the labels the program matches, ascending
        self.label_ids = sorted({i.label for i in program if i.op is Op.MATCH_LABEL})
        self.verdicts = {label: vd.compile_verdict(g) for label, g in self.glue.items()}
        # searches that cannot match, found before they start (None: not this program)
        self.start_bound = start_bound.analyze(program, self.glue)
        # per label: the state its rows change, and what its step reads (that, and
        # what its condition reads); the rest of a thread's state is carried as it is
        self.touches: dict[int, list[tuple]] = {}
        self.needs: dict[int, list[tuple]] = {}
        for label in {i.label for i in program if i.op is Op.MATCH_LABEL}:
            touches = [k for k in self.keys if k[1] is None or label in k[1]]
            reads = vd.state_keys({label: self.glue[label]}) if label in self.glue else []
            self.touches[label] = touches
            self.needs[label] = list(dict.fromkeys([*touches, *reads]))
        # each closure as a bit set of its targets, to see cheaply whether two threads of
        # a search can reach the same instruction (None: too many targets for 63 bits)
        distinct = {t: i for i, t in enumerate(dict.fromkeys(flat))}
        self.signature: np.ndarray | None = None
        if len(distinct) <= 63:
            self.signature = np.zeros((2, size), dtype=np.int64)
            for at_start in (0, 1):
                for pc in dict.fromkeys(starts):
                    begin = self.ptr[at_start, pc]
                    bits = 0
                    for t in flat[begin : begin + self.count[at_start, pc]]:
                        bits |= 1 << distinct[t]
                    self.signature[at_start, pc] = bits


@dataclass
class WaveInputs:
    """The rows being matched (several partitions, one after another).

    ``bits[label]``: the row-local part of the label's DEFINE (None: always true);
    ``times``/``limit``: WITHIN, as ticks per row and the bound in ticks (None: no WITHIN);
    ``lows``/``highs``: the bounds of the partition of each row.

    Pieces of partitions (:func:`resolve_pieces`): searches start at row ``first``
    (the rows before it are kept for look-back), or at the rows ``searches`` (ascending)
    when given; unless ``final``, more rows follow the last row of each partition;
    ``at_partition_start`` says whether the first row of each partition (or, as an array,
    of the partition of each row) is the partition's first row (``^``).
    """

    columns: vd.Columns
    bits: Sequence[np.ndarray | None]
    lows: np.ndarray
    highs: np.ndarray
    times: tuple[np.ndarray, np.ndarray] | None = None
    limit: float | None = None
    first: int = 0
    final: bool = True
    at_partition_start: bool | np.ndarray = True
    stop: int | None = None  # searches start only at rows [first, stop)
    searches: np.ndarray | None = None  # the start rows, instead of [first, stop)


@dataclass
class WaveResult:
    """Per start row: ``end`` of its match (exclusive; -1: none; UNRESOLVED: left to the
    scalar matcher) and where its history is: its length ``level`` and the ``thread``
    that ended it, at step ``origin + level`` (``origin``: the step its search started
    at, None: all at step 0; a search set aside and started again starts later)."""

    end: np.ndarray
    level: np.ndarray
    thread: np.ndarray
    parents: list[np.ndarray]
    label_of: list[np.ndarray]
    excluded_of: list[np.ndarray]
    most_threads: int = 0  # the most threads alive after a step (a diagnostic)
    origin: np.ndarray | None = None

    @classmethod
    def unresolved(cls, n: int) -> WaveResult:
        """A result that leaves every start row of ``n`` rows to the scalar matcher."""
        end = np.full(n, UNRESOLVED, dtype=np.int64)
        return cls(end, end, end, [], [], [])

    def match(self, start: int) -> Match:
        """The match found from ``start`` (whose ``end`` is >= 0), with its labels."""
        return self.matches([start])[0]

    def matches(self, starts: Sequence[int]) -> list[Match]:
        """The matches found from ``starts`` (each ``end`` >= 0), with their labels."""
        at = np.asarray(starts, dtype=np.int64)
        levels, labels, excluded = self.histories(at)
        label_list = labels.tolist()
        excluded_list = excluded.tolist() if excluded is not None else [False] * len(labels)
        out = []
        offset = 0
        for start, size in zip(at.tolist(), levels.tolist()):
            out.append(
                Match(
                    start,
                    start + size,
                    label_list[offset : offset + size],
                    excluded_list[offset : offset + size],
                )
            )
            offset += size
        return out

    def histories(self, at: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """For the matches found from start rows ``at``: their lengths, and the labels
        (and exclusion flags; None if the pattern has none) of all their rows one after
        another, read back level by level for all of them at once."""
        levels = self.level[at]
        threads = self.thread[at].copy()
        offsets = np.cumsum(levels) - levels
        labels = np.zeros(int(levels.sum()), dtype=np.int64)
        flags = any(len(e) for e in self.excluded_of)
        excluded = np.zeros(len(labels), dtype=bool) if flags else None

        def read(idx: np.ndarray, step: int, pos: np.ndarray) -> None:
            here = threads[idx]
            labels[pos] = self.label_of[step][here]
            if excluded is not None and len(self.excluded_of[step]):
                excluded[pos] = self.excluded_of[step][here]
            threads[idx] = self.parents[step][here]

        origin = np.zeros(len(at), dtype=np.int64) if self.origin is None else self.origin[at]
        late = origin > 0
        # searches from step 0, longest first: the ones still reading are a prefix
        plain = np.flatnonzero(~late)
        by_length = plain[np.argsort(-levels[plain], kind="stable")]
        ordered = levels[by_length]
        for j in range(int(ordered.max(initial=0)), 0, -1):
            idx = by_length[: int(np.searchsorted(-ordered, -j, side="right"))]
            read(idx, j - 1, offsets[idx] + j - 1)
        # the few searches started again later
        again = np.flatnonzero(late)
        tops = origin[again] + levels[again]
        for step in range(int(tops.max(initial=0)) - 1, int(origin[again].min(initial=0)) - 1, -1):
            idx = again[(step < tops) & (step >= origin[again])]
            read(idx, step, offsets[idx] + step - origin[idx])
        return levels, labels, excluded


@dataclass
class MatchArrays:
    """Matches as flat arrays, rows counted in the columns they were found in: per match
    its number, first row, end (exclusive), the bounds of its partition and the piece it
    was found in; ``labels``/``excluded`` hold the rows of all matches one after another
    (``excluded`` None: no row is excluded). Matches of several searches concatenate
    without a Python object per match."""

    numbers: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    lows: np.ndarray
    highs: np.ndarray
    piece: np.ndarray
    labels: np.ndarray
    excluded: np.ndarray | None

    @classmethod
    def of_pairs(
        cls,
        pairs: Sequence[tuple[int, Match]],
        lows: Sequence[int],
        highs: Sequence[int],
        piece: Sequence[int],
    ) -> MatchArrays:
        """The arrays of matches given as objects."""
        labels: list[int] = []
        excluded: list[bool] = []
        for _, m in pairs:
            labels.extend(m.labels)
            excluded.extend(m.excluded)
        count = len(pairs)
        return cls(
            np.fromiter((num for num, _ in pairs), np.int64, count),
            np.fromiter((m.start for _, m in pairs), np.int64, count),
            np.fromiter((m.end for _, m in pairs), np.int64, count),
            np.asarray(lows, dtype=np.int64).reshape(count),
            np.asarray(highs, dtype=np.int64).reshape(count),
            np.asarray(piece, dtype=np.int64).reshape(count),
            np.array(labels, dtype=np.int64),
            np.array(excluded, dtype=bool) if any(excluded) else None,
        )

    @classmethod
    def concat(cls, parts: Sequence[MatchArrays]) -> MatchArrays:
        """The matches of ``parts``, one part after another."""
        if len(parts) == 1:
            return parts[0]
        excluded = None
        if any(p.excluded is not None for p in parts):
            excluded = np.concatenate(
                [np.zeros(len(p.labels), bool) if p.excluded is None else p.excluded for p in parts]
            )
        fields = ("numbers", "starts", "ends", "lows", "highs", "piece", "labels")
        joined = {f: np.concatenate([getattr(p, f) for p in parts]) for f in fields}
        return cls(**joined, excluded=excluded)

    def __len__(self) -> int:
        return len(self.starts)

    def has_empty(self) -> bool:
        return bool((self.ends == self.starts).any())

    def layout(self, n: int, one_row: bool) -> MatchLayout:
        """The matches laid out for the vectorized measures."""
        return MatchLayout.from_arrays(
            self.numbers,
            self.starts,
            self.ends,
            self.labels,
            self.excluded,
            n,
            one_row,
            (self.lows, self.highs),
        )

    def pairs(self) -> list[tuple[int, Match]]:
        """``(number, match)`` for each, as Python objects."""
        labels = self.labels.tolist()
        excluded = [False] * len(labels) if self.excluded is None else self.excluded.tolist()
        out = []
        offset = 0
        for number, start, end in zip(
            self.numbers.tolist(), self.starts.tolist(), self.ends.tolist()
        ):
            size = end - start
            rows = slice(offset, offset + size)
            out.append((number, Match(start, end, labels[rows], excluded[rows])))
            offset += size
        return out


@dataclass
class Resolved:
    """The matches AFTER MATCH SKIP keeps, in order: each a start row whose match was
    found here, or a :class:`Match` from the scalar matcher; with its number, the
    bounds of its partition and (pieces) the piece it was found in."""

    result: WaveResult
    items: list[int | Match]
    numbers: list[int]
    lows: list[int]
    highs: list[int]
    piece: list[int] | None = None

    def pairs(self) -> list[tuple[int, Match]]:
        """``(number, match)`` for each, as Python objects."""
        starts = [item for item in self.items if isinstance(item, int)]
        built = iter(self.result.matches(starts))
        return [
            (number, item if isinstance(item, Match) else next(built))
            for number, item in zip(self.numbers, self.items)
        ]

    def has_empty(self) -> bool:
        end = self.result.end
        return any(
            item.end == item.start if isinstance(item, Match) else end[item] == item
            for item in self.items
        )

    def arrays(self) -> MatchArrays:
        """The matches as flat arrays (no Python object per match when all were found
        here)."""
        piece = self.piece if self.piece is not None else [0] * len(self.items)
        if not all(isinstance(item, int) for item in self.items):
            return MatchArrays.of_pairs(self.pairs(), self.lows, self.highs, piece)
        starts = np.array(self.items, dtype=np.int64)
        levels, labels, excluded = self.result.histories(starts)
        return MatchArrays(
            np.array(self.numbers, dtype=np.int64),
            starts,
            starts + levels,
            np.array(self.lows, dtype=np.int64),
            np.array(self.highs, dtype=np.int64),
            np.array(piece, dtype=np.int64),
            labels,
            excluded,
        )

    def layout(self, n: int, one_row: bool) -> MatchLayout:
        """The matches as flat arrays for the vectorized measures (no Python object per
        match when all were found here)."""
        return self.arrays().layout(n, one_row)


def skip_targets(result: WaveResult, skip_mode: str, skip_labels: frozenset[int]) -> np.ndarray:
    """For every start row with a match found here, the row AFTER MATCH SKIP goes to
    next (one backwards pass over the histories of all of them at once); -1 where SKIP TO
    names a variable absent from the match, 0 where it would start again at the match's
    first row (both errors, raised only if SKIP reaches that match); unused elsewhere."""
    end = result.end
    n = len(end)
    out = np.zeros(n, dtype=np.int64)
    starts = np.flatnonzero(end >= 0)
    levels = result.level[starts]
    out[starts] = starts + 1  # empty matches, and the defaults of the modes below
    if skip_mode == "past_last":
        out[starts] = np.where(levels > 0, end[starts], starts + 1)
        return out
    if skip_mode == "next_row":
        return out
    wanted = np.zeros(max(skip_labels, default=0) + 1, dtype=bool)
    wanted[list(skip_labels)] = True
    offset = np.full(len(starts), -1, dtype=np.int64)
    threads = result.thread[starts].copy()
    by_length = np.argsort(-levels, kind="stable")
    ordered = levels[by_length]
    for j in range(int(levels.max(initial=0)), 0, -1):
        idx = by_length[: int(np.searchsorted(-ordered, -j, side="right"))]
        here = threads[idx]
        labels = result.label_of[j - 1][here]
        hit = np.zeros(len(idx), dtype=bool)
        inside = labels < len(wanted)
        hit[inside] = wanted[labels[inside]]
        if skip_mode == "last":
            hit &= offset[idx] < 0  # the first hit going backwards is the last row
        offset[idx[hit]] = j - 1
        threads[idx] = result.parents[j - 1][here]
    targets = np.where(offset < 0, -1, np.where(offset == 0, 0, starts + offset))
    out[starts] = np.where(levels > 0, targets, starts + 1)
    return out


def _per_pc(table: np.ndarray, at_start: int | np.ndarray, t_pc: np.ndarray) -> np.ndarray:
    """``table[at_start, t_pc]``; when ``at_start`` is one number, ``np.take`` from its
    row (NumPy's fancy indexing of a 2-d table by rows costs ~10x ``take``)."""
    if isinstance(at_start, int):
        return np.take(table[at_start], t_pc, axis=0)
    return table[at_start, t_pc]


def _entries(
    wp: WaveProgram, at_start: int | np.ndarray, t_pc: np.ndarray, at_end: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """The entries of a step: each thread's epsilon closure, in order (no entry for a
    thread ``at_end`` of its partition; None: none is), as the thread each comes from
    and its target."""
    if wp.table is None:
        count = _per_pc(wp.count, at_start, t_pc)
        if at_end is not None:
            count[at_end] = 0
        total = int(count.sum())
        ent_thread = np.repeat(np.arange(len(t_pc)), count)
        begin = np.cumsum(count) - count
        within = np.arange(total) - np.repeat(begin, count)
        ptr = _per_pc(wp.ptr, at_start, t_pc)
        return ent_thread, wp.targets[np.repeat(ptr, count) + within]
    block = _per_pc(wp.table, at_start, t_pc)
    if at_end is not None:
        block[at_end] = -1  # a copy: fancy indexing
    flat = block.ravel()
    at = np.flatnonzero(flat >= 0)
    return at >> wp.shift, flat[at]


def _by_label(
    candidates: np.ndarray, ent_label: np.ndarray, label_ids: list[int], num_labels: int
) -> list[tuple[int, np.ndarray]]:
    """The candidates of each label present (``ent_label``: the label of each), in
    label order. With few labels in the program, one comparison and a flatnonzero per
    label cost less than counting them all first (``np.bincount``)."""
    if not len(candidates):
        return []
    if len(label_ids) <= LABEL_LOOP_MAX:
        if len(label_ids) == 1:
            return [(label_ids[0], candidates)]
        out = []
        for label in label_ids:
            at = np.flatnonzero(ent_label == label)
            if len(at) == len(candidates):
                return [(label, candidates)]
            if len(at):
                out.append((label, candidates[at]))
        return out
    present = np.flatnonzero(np.bincount(ent_label, minlength=num_labels)).tolist()
    if len(present) == 1:
        return [(present[0], candidates)]
    return [(label, candidates[np.flatnonzero(ent_label == label)]) for label in present]


def _first_per_search(sids: np.ndarray, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For ``positions`` (ascending) of entries whose searches are ``sids`` (ascending),
    the distinct searches and the first position of each."""
    first = np.ones(len(sids), dtype=bool)
    first[1:] = sids[1:] != sids[:-1]
    return sids[first], positions[first]


def _overlap(t_sid: np.ndarray, signature: np.ndarray, shared: np.ndarray) -> bool:
    """Whether two threads of one search have closures with a target in common
    (``signature``: each thread's closure as a bit set; ``shared``: thread i+1 is of the
    same search as thread i). Searches rarely have more than a few threads, so pairs
    k apart are compared for k = 1, 2, ... while any such pair is in one search (``at``:
    the first threads of those pairs, so only they are read)."""
    at = np.flatnonzero(shared)
    k = 1
    while len(at):
        if ((signature[at] & signature[at + k]) != 0).any():
            return True
        # threads i and i + k + 1 are of one search where i and i + k are, and so are
        # i + k and i + k + 1
        after = at + k
        at = at[after < len(shared)]
        at = at[shared[at + k]]
        k += 1
    return False


def _dedup(
    t_sid, ent_sid, ent_target, ent_thread, state, size, signature=None
) -> np.ndarray | None:
    """Mask of entries to keep: the first of each (search, instruction, state), or None
    if no two entries can share a search and an instruction. ``signature()`` gives each
    thread's closure as a bit set (only asked for when a search has two threads)."""
    shared = t_sid[1:] == t_sid[:-1]
    if not shared.any():
        return None  # one thread per search: its closure has no repeats
    if signature is not None and not _overlap(t_sid, signature(), shared):
        return None
    many = np.zeros(len(t_sid), dtype=bool)
    many[1:] = shared
    many[:-1] |= shared
    among = np.flatnonzero(many[ent_thread])
    key = ent_sid[among] * size + ent_target[among]
    ordered = np.sort(key)
    if not (ordered[1:] == ordered[:-1]).any():
        return None
    columns = [among]
    for values in reversed(list(state.values())):
        v = values[ent_thread[among]]
        columns.append(v.view(np.int64) if v.dtype == np.float64 else v.astype(np.int64))
    columns.append(key)
    order = np.lexsort(columns)
    differs = np.zeros(len(key), dtype=bool)
    differs[0] = True
    for col in columns[1:]:
        c = col[order]
        differs[1:] |= c[1:] != c[:-1]
    keep = np.ones(len(ent_sid), dtype=bool)
    keep[among] = False
    keep[among[order[differs]]] = True
    return keep


def search(wp: WaveProgram, data: WaveInputs, probe: int | None = None) -> WaveResult | None:
    """Run the search from every row of ``data`` (see the module docstring).

    ``probe``: after that many steps, if more than half the searches still run, give up
    and return None (the caller has a matcher for long searches, e.g. the DFA scan)."""
    n = len(data.lows)
    best_level = np.full(n, -1, dtype=np.int64)
    best_thread = np.full(n, -1, dtype=np.int64)
    parents: list[np.ndarray] = []
    label_of: list[np.ndarray] = []
    excluded_of: list[np.ndarray] = []
    if data.searches is not None:
        t_sid = np.asarray(data.searches, dtype=np.int64)
    else:
        t_sid = np.arange(data.first, n if data.stop is None else data.stop, dtype=np.int64)
    if wp.start_bound is not None and len(t_sid):
        keep = start_bound.possible(
            wp.start_bound, data.columns, data.lows, data.highs, t_sid, data.final
        )
        if keep is not None:
            t_sid = t_sid[keep]
    t_pc = np.zeros(len(t_sid), dtype=np.int64)
    state = vd.initial_state(wp.keys, data.columns, len(t_sid))
    num_labels = len(data.bits)
    open_ended: list[np.ndarray] = []  # searches that need rows after the piece
    aside = None
    if (
        wp.skips_past_matches
        and data.final
        and data.searches is None
        and data.first == 0
        and data.stop is None
        and data.at_partition_start is True
    ):
        aside = _SetAside(wp, data, best_level, best_thread, (parents, label_of, excluded_of))
    level = most = 0
    while len(t_sid):
        rows = (
            t_sid + level
            if aside is None or aside.origin is None
            else t_sid + (level - aside.origin[t_sid])
        )
        at_end = rows >= data.highs[t_sid]
        ending = bool(at_end.any())
        if not data.final and ending:
            # the first live thread of each search decides: it ends the match here, or
            # it wants the next row (the search stays open until that row is known)
            verdict = wp.before_next_row[t_pc]
            live = np.flatnonzero(at_end & (verdict != Program.DEAD))
            if len(live):
                sids, first = _first_per_search(t_sid[live], live)
                ends = verdict[first] == Program.ENDS
                best_level[sids[ends]] = level  # no search started late (see _SetAside)
                best_thread[sids[ends]] = first[ends]
                open_ended.append(sids[~ends])
        elif ending:
            # the partition ends: a thread whose closure reaches DONE past the last row
            cand = np.flatnonzero(at_end & wp.done_at_end[t_pc])
            if len(cand):
                sids, first = _first_per_search(t_sid[cand], cand)
                best_level[sids] = level if aside is None else aside.length(sids, level)
                best_thread[sids] = first
        # only a search's first row can be its partition's first row (for ^)
        at_start = 0
        if level == 0 and data.at_partition_start is not False:
            first_row = rows == data.lows[t_sid]
            if isinstance(data.at_partition_start, np.ndarray):
                first_row &= data.at_partition_start[t_sid]
            at_start = first_row.astype(np.int64)
        ent_thread, ent_target = _entries(wp, at_start, t_pc, at_end if ending else None)
        total = len(ent_thread)
        if total == 0:
            t_sid = t_sid[:0]  # every search ended
            if aside is None:
                break
            # ... but some set aside may have to start again
            state = {k: v[:0] for k, v in state.items()}
            t_pc = t_pc[:0]
            parents.append(np.zeros(0, dtype=np.int32))
            label_of.append(np.zeros(0, dtype=np.int32))
            excluded_of.append(wp.excluded[:0])
            level += 1
            t_sid, t_pc, state = aside.check(level, t_sid, t_pc, state)
            continue
        ent_sid = t_sid[ent_thread]
        signature = None
        if wp.signature is not None:
            signature = partial(_per_pc, wp.signature, at_start, t_pc)
        keep = _dedup(t_sid, ent_sid, ent_target, ent_thread, state, wp.size, signature)
        done = ent_target == wp.done_pc
        if keep is not None:
            done &= keep
        alive = ~done if keep is None else keep & ~done
        hits = np.flatnonzero(done)
        if len(hits):
            # a match; the search's entries after it are less preferred
            sids, first = _first_per_search(ent_sid[hits], hits)
            best_level[sids] = level if aside is None else aside.length(sids, level)
            best_thread[sids] = ent_thread[first]
            after = np.minimum(first + 1, total - 1)
            if ((first + 1 < total) & (ent_sid[after] == sids)).any():
                at = np.minimum(np.searchsorted(sids, ent_sid), len(sids) - 1)
                alive &= ~((sids[at] == ent_sid) & (np.arange(total) > first[at]))
        candidates = np.flatnonzero(alive)
        ent_label = wp.labels[ent_target[candidates]]
        ok = np.zeros(total, dtype=bool)
        groups = _by_label(candidates, ent_label, wp.label_ids, num_labels)
        # the state a label of this step changes, per entry (the rest is its thread's)
        changed = {k for label, _ in groups for k in wp.touches[label]}
        new_state = {k: v[ent_thread] for k, v in state.items() if k in changed}
        for label, sel in groups:
            parent = ent_thread[sel]
            r = rows[parent]
            passed = None if data.bits[label] is None else data.bits[label][r]
            if data.times is not None:
                ticks, valid = data.times
                s = t_sid[parent]
                near = valid[r] & valid[s] & (ticks[r] - ticks[s] <= data.limit)
                passed = near if passed is None else passed & near
            if passed is not None and not passed.all():
                at = np.flatnonzero(passed)  # cheaper than three boolean-mask gathers
                sel, parent, r = sel[at], parent[at], r[at]
            if not len(sel):
                continue
            t = vd.Threads(
                label,
                r,
                lambda p=parent, s=t_sid: s[p],
                data.columns,
                lambda p=parent, s=t_sid: (data.lows[s[p]], data.highs[s[p]]),
            )
            needs = {k: state[k][parent] for k in wp.needs[label]}
            t.state = vd.advance(needs, label, r, t.current)
            glue = wp.verdicts.get(label)
            ok[sel] = True if glue is None else glue(t)
            for k in wp.touches[label]:
                new_state[k][sel] = t.state[k]
        survivors = np.flatnonzero(ok)
        came_from = ent_thread[survivors]
        state = {
            k: new_state[k][survivors] if k in new_state else v[came_from] for k, v in state.items()
        }
        targets = ent_target[survivors]
        parents.append(came_from.astype(np.int32))
        label_of.append(wp.labels32[targets])
        excluded_of.append(wp.excluded[targets] if wp.any_excluded else wp.excluded[:0])
        t_sid = ent_sid[survivors]
        t_pc = targets + 1
        level += 1
        if aside is not None and (level % PRUNE_EVERY == 0 or level in PRUNE_AT or not len(t_sid)):
            t_sid, t_pc, state = aside.check(level, t_sid, t_pc, state)
        live = len(t_sid)
        most = max(most, live)
        if level == probe and live > n // 2:
            return None
        if live and (
            (live < TAIL_THREADS and level >= LONG_STEPS)
            or level >= MAX_STEPS
            or (
                level >= LONG_STEPS
                and live > n // 2
                and wp.skips_into_matches is False
                and (best_level[t_sid] >= 0).mean() > 0.5
            )
        ):
            break
    end = np.where(best_level >= 0, np.arange(n) + best_level, -1)
    if len(t_sid):
        end[np.unique(t_sid)] = UNRESOLVED
    for sids in open_ended:
        end[sids] = NEED_MORE
    origin = None
    if aside is not None:
        end[aside.aside] = UNRESOLVED
        origin = aside.origin
    return WaveResult(end, best_level, best_thread, parents, label_of, excluded_of, most, origin)


class _SetAside:
    """With SKIP PAST LAST ROW: the searches stopped because they start inside a match
    of the tentative chain (:mod:`matchrec.skip_chain`), and the ones started again
    because the chain reached them after all (at step ``origin``; never stopped twice,
    so a search runs at most twice)."""

    def __init__(
        self,
        wp: WaveProgram,
        data: WaveInputs,
        best_level: np.ndarray,
        best_thread: np.ndarray,
        history: tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]],
    ):
        n = len(best_level)
        self.wp, self.data, self.history = wp, data, history
        self.best_level, self.best_thread = best_level, best_thread  # changed in place
        self.aside = np.zeros(n, dtype=bool)
        self.again = np.zeros(n, dtype=bool)
        self.origin: np.ndarray | None = None

    def length(self, sids: np.ndarray, level: int) -> np.ndarray | int:
        """The length of a match of searches ``sids`` found at step ``level``."""
        return level if self.origin is None else level - self.origin[sids]

    def check(
        self, level: int, t_sid: np.ndarray, t_pc: np.ndarray, state: dict
    ) -> tuple[np.ndarray, np.ndarray, dict]:
        """Stop the live searches inside a match of the chain, start the stopped ones it
        reaches again; the threads (sorted by search) and the last step of the history
        change alike."""
        wp, data, history = self.wp, self.data, self.history
        best_level, best_thread = self.best_level, self.best_thread
        chain = skip_chain.walk(best_level, np.flatnonzero(self.aside), len(self.aside))
        if len(t_sid):
            stop = chain.covers(t_sid) & ~self.again[t_sid]
            if stop.any():
                gone = np.unique(t_sid[stop])
                self.aside[gone] = True
                best_level[gone] = -1
                best_thread[gone] = -1
                keep = ~stop
                t_sid, t_pc = t_sid[keep], t_pc[keep]
                state = {k: v[keep] for k, v in state.items()}
                for steps in history:
                    if len(steps[-1]):
                        steps[-1] = steps[-1][keep]
        rows = chain.reached
        if len(rows):
            self.aside[rows] = False
            self.again[rows] = True
            if self.origin is None:
                self.origin = np.zeros(len(self.aside), dtype=np.int64)
            self.origin[rows] = level
            at = np.searchsorted(t_sid, rows)
            t_sid = np.insert(t_sid, at, rows)
            t_pc = np.insert(t_pc, at, 0)
            fresh = vd.initial_state(wp.keys, data.columns, len(rows))
            state = {k: np.insert(v, at, fresh[k]) for k, v in state.items()}
            parents, label_of, excluded_of = history
            parents[-1] = np.insert(parents[-1], at, 0)  # no parent: its history starts here
            label_of[-1] = np.insert(label_of[-1], at, 0)
            if wp.any_excluded:
                excluded_of[-1] = np.insert(excluded_of[-1], at, False)
        return t_sid, t_pc, state


Fallback = Callable[[int, int, int, int], "Match | None"]
"""``fallback(low, high, start, number)``: the scalar search from row ``start`` of the
partition of rows [low, high), looking for match ``number``; rows are absolute."""


def resolve(
    result: WaveResult,
    bounds: Sequence[tuple[int, int]],
    skip_mode: str,
    skip_labels: frozenset[int],
    fallback: Fallback,
) -> Resolved:
    """The matches AFTER MATCH SKIP keeps, per partition in order."""
    end = result.end
    n = len(end)
    # the next start row, from each row on, that has a match or is left to the scalar matcher
    candidate = np.where(end != -1, np.arange(n), n)
    following = np.minimum.accumulate(candidate[::-1])[::-1].tolist()
    items: list[int | Match] = []
    numbers: list[int] = []
    lows: list[int] = []
    highs: list[int] = []
    target = skip_targets(result, skip_mode, skip_labels).tolist()
    ends = end.tolist()
    for low, high in bounds:
        row, number = low, 1
        while row < high:
            row = following[row]
            if row >= high:
                break
            if ends[row] == UNRESOLVED:
                match = fallback(low, high, row, number)
                if match is None:
                    row += 1
                    continue
                items.append(match)
                row = next_start(match, skip_mode, skip_labels)
            else:
                items.append(row)
                after = target[row]
                if after <= 0:
                    next_start(result.match(row), skip_mode, skip_labels)  # raises its error
                row = after
            numbers.append(number)
            lows.append(low)
            highs.append(high)
            number += 1
    return Resolved(result, items, numbers, lows, highs)


PieceFallback = Callable[[int, int, int], "Match | None | bool"]
"""``fallback(piece, start, number)`` for pieces: the scalar search from row ``start``
(absolute) of piece ``piece`` for match ``number``, or True if it needs rows after the
piece."""


@dataclass
class Pieces:
    """Pieces of partitions laid out one after another in one set of columns (rows are
    rows of those columns): piece ``k`` holds rows [``lows[k]``, ``highs[k]``), its first
    row is partition row ``origins[k]``, its search resumes at row ``starts[k]`` (rows
    before it are kept for look-back) with match number ``numbers[k]``; with ``stops``,
    only the searches from rows before ``stops[k]`` run, and each treats the piece's end
    as the end of the partition (WITHIN's bound has passed: no later row can join); with
    ``horizons``, searches step only through rows before ``horizons[k]``: the rows after
    it are there for DEFINE's NEXT to read, their own verdicts wait for more rows."""

    lows: np.ndarray
    highs: np.ndarray
    origins: np.ndarray
    starts: np.ndarray
    numbers: np.ndarray
    stops: np.ndarray | None = None
    horizons: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.lows)

    def search_rows(self) -> np.ndarray:
        """The start rows of all searches, ascending."""
        ends = self.highs if self.stops is None else np.minimum(self.stops, self.highs)
        sizes = np.maximum(ends - self.starts, 0)
        offsets = np.arange(int(sizes.sum()), dtype=np.int64)
        return np.repeat(self.starts - (np.cumsum(sizes) - sizes), sizes) + offsets

    def row_bounds(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Per row of the ``n`` columns, the bounds of its piece (a row of no piece:
        itself)."""
        lows = np.arange(n, dtype=np.int64)
        highs = lows + 1
        sizes = self.highs - self.lows
        inside = np.repeat(self.lows - (np.cumsum(sizes) - sizes), sizes)
        rows = inside + np.arange(int(sizes.sum()), dtype=np.int64)
        lows[rows] = np.repeat(self.lows, sizes)
        highs[rows] = np.repeat(self.highs, sizes)
        return lows, highs


@dataclass
class PiecesFound:
    """What :func:`resolve_pieces` settled: the matches (rows absolute, ``piece`` says
    whose), and per piece the row where matching resumes once more rows come and the
    number of its next match."""

    matches: Resolved
    resume: np.ndarray
    numbers: np.ndarray


def resolve_pieces(
    result: WaveResult,
    pieces: Pieces,
    skip_mode: str,
    skip_labels: frozenset[int],
    fallback: PieceFallback,
    final: bool,
    lookahead: int = 0,
) -> PiecesFound:
    """The matches AFTER MATCH SKIP keeps in each piece, from its start row on: the
    settled ones, where matching resumes once more rows come, and the next number. A
    match is settled when its search ended inside the piece and the ``lookahead`` rows
    after it (NEXT in MEASURES) are there; with ``pieces.stops``, only searches before
    the stop were run (see :class:`Pieces`)."""
    end = result.end
    n = len(end)
    candidate = np.where(end != -1, np.arange(n), n)
    following = np.minimum.accumulate(candidate[::-1])[::-1].tolist() + [n]
    ends = end.tolist()
    target = skip_targets(result, skip_mode, skip_labels).tolist()
    items: list[int | Match] = []
    numbers: list[int] = []
    lows: list[int] = []
    highs: list[int] = []
    piece: list[int] = []
    resume = (pieces.highs if pieces.horizons is None else pieces.horizons).copy()
    next_numbers = pieces.numbers.copy()
    stops = pieces.highs if pieces.stops is None else pieces.stops
    if pieces.horizons is not None:
        stops = np.minimum(stops, pieces.horizons)
    bounds = zip(pieces.lows.tolist(), pieces.highs.tolist(), pieces.starts.tolist())
    for k, (low, high, row) in enumerate(bounds):
        number = int(pieces.numbers[k])
        limit = int(stops[k])
        settled = None  # where matching resumes, when a search waits for rows
        while row < limit:
            if following[row] >= limit:
                break
            row = following[row]
            if ends[row] == NEED_MORE:
                settled = row
                break
            if ends[row] == UNRESOLVED:
                match = fallback(k, row, number)
                if match is True:
                    settled = row
                    break
                if match is None or match is False:
                    row += 1
                    continue
                if not final and match.end + lookahead > high:
                    settled = match.start
                    break
                items.append(match)
                after = next_start(match, skip_mode, skip_labels)
            else:
                if not final and ends[row] + lookahead > high:
                    settled = row
                    break
                items.append(row)
                after = target[row]
                if after <= 0:
                    next_start(result.match(row), skip_mode, skip_labels)  # raises its error
            numbers.append(number)
            lows.append(low)
            highs.append(high)
            piece.append(k)
            number += 1
            row = after
        if settled is not None:
            resume[k] = settled
        elif pieces.stops is not None:
            resume[k] = max(row, limit)
        next_numbers[k] = number
    matches = Resolved(result, items, numbers, lows, highs, piece)
    return PiecesFound(matches, resume, next_numbers)
