"""Measure atoms for all matches of a partition at once, with NumPy and Arrow.

The per-match evaluators in :mod:`matchrec.navigation` cost a Python call per atom and
output row, and convert every value read to a Python object. Here the matches of a
partition are laid out as flat arrays (one entry per matched row: its partition row,
its label, its match), and each atom becomes index arithmetic over those arrays:

* navigation is a position in the match (``FIRST``/``LAST`` among the rows of a label
  set, found with a cumulative count and ``searchsorted``), then a physical step;
  the value is gathered from the Arrow column with ``take``, never touching Python;
* ``count``, ``sum`` and ``avg`` are differences of cumulative sums (RUNNING or FINAL;
  an integer ``sum`` only where no total can leave BIGINT);
  ``min``/``max`` under FINAL are segment reductions.

An atom this module does not know how to vectorize returns None, and the caller falls
back to the per-match evaluators for the whole partition (same results, slower).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from matchrec.matcher import Match
from matchrec.navigation import (
    Aggregate,
    ColumnAt,
    Navigate,
    classifier_at,
    match_number,
    row_found,
)

ArrowColumn = Callable[[str], pa.Array]


class MatchLayout:
    """The matches of one partition as flat arrays, and the output rows to compute.

    Position ``p`` in the flat arrays is one matched row: ``rows[p]`` its partition
    row, ``labels[p]`` its label, ``match_of[p]`` its match. ``first[i]`` is the position
    of match ``i``'s first row. Each output row has a match ``out_match`` and a current
    position ``out_pos`` (the last visible row; ``first - 1`` for nothing visible).
    """

    def __init__(
        self,
        matches: Sequence[tuple[int, Match]],
        n: int,
        one_row: bool,
        bounds: tuple[np.ndarray, np.ndarray] | None = None,
    ):
        count = len(matches)
        labels: list[int] = []
        excluded: list[bool] = []
        for _, m in matches:
            labels.extend(m.labels)
            excluded.extend(m.excluded)
        self._setup(
            np.fromiter((num for num, _ in matches), np.int64, count),
            np.fromiter((m.start for _, m in matches), np.int64, count),
            np.fromiter((m.end for _, m in matches), np.int64, count),
            np.array(labels, dtype=np.int64),
            np.array(excluded, dtype=bool),
            n,
            one_row,
            bounds,
        )

    @classmethod
    def from_arrays(
        cls,
        numbers: np.ndarray,
        starts: np.ndarray,
        ends: np.ndarray,
        labels: np.ndarray,
        excluded: np.ndarray | None,
        n: int,
        one_row: bool,
        bounds: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> MatchLayout:
        """The layout of matches given as arrays: ``labels``/``excluded`` hold the rows of
        all matches one after another (``excluded`` None: no row is excluded)."""
        layout = cls.__new__(cls)
        if excluded is None:
            excluded = np.zeros(len(labels), dtype=bool)
        layout._setup(numbers, starts, ends, labels, excluded, n, one_row, bounds)
        return layout

    def _setup(self, numbers, starts, ends, labels, excluded, n, one_row, bounds) -> None:
        count = len(starts)
        # the partition each match lies in, as [low, high) rows: physical navigation stays
        # inside it (several partitions may be laid out in one table)
        if bounds is None:
            bounds = (np.zeros(count, dtype=np.int64), np.full(count, n, dtype=np.int64))
        self.low, self.high = bounds
        self.numbers = numbers
        self.starts = starts
        lengths = ends - starts
        self.first = np.zeros(count + 1, dtype=np.int64)
        np.cumsum(lengths, out=self.first[1:])
        self.labels = np.asarray(labels, dtype=np.int64)
        total = len(self.labels)
        self.match_of = np.repeat(np.arange(count, dtype=np.int64), lengths)
        self.rows = self.starts[self.match_of] + (
            np.arange(total, dtype=np.int64) - self.first[:-1][self.match_of]
        )
        if one_row:
            self.out_match = np.arange(count, dtype=np.int64)
            self.out_pos = self.first[1:] - 1
            self.out_rows = self.starts
        else:
            keep = ~excluded if total else np.zeros(0, dtype=bool)
            self.out_pos = np.flatnonzero(keep).astype(np.int64)
            self.out_match = self.match_of[self.out_pos]
            self.out_rows = self.rows[self.out_pos]
        self._masks: dict[frozenset[int] | None, np.ndarray] = {}

    def window(self, final: bool) -> tuple[np.ndarray, np.ndarray]:
        """Per output row, the first and last visible flat position (last < first: none)."""
        lo = self.first[:-1][self.out_match]
        hi = (self.first[1:] - 1)[self.out_match] if final else self.out_pos
        return lo, hi

    def counts(self, labels: frozenset[int] | None) -> np.ndarray:
        """``c[p]`` = number of flat positions before ``p`` whose label is in ``labels``."""
        found = self._masks.get(labels)
        if found is None:
            mask = (
                np.ones(len(self.labels), dtype=bool)
                if labels is None
                else np.isin(self.labels, sorted(labels))
            )
            found = np.zeros(len(mask) + 1, dtype=np.int64)
            np.cumsum(mask, out=found[1:])
            self._masks[labels] = found
        return found


def _navigate_rows(layout: MatchLayout, atom: Navigate) -> tuple[np.ndarray, np.ndarray]:
    """Partition row each output row reads, and whether it exists."""
    lo, hi = layout.window(atom.final)
    if atom.labels is None:
        pos = hi - atom.offset if atom.from_end else lo + atom.offset
        valid = (pos >= lo) & (pos <= hi)
    else:
        counts = layout.counts(atom.labels)
        hits = np.flatnonzero(np.diff(counts))  # flat positions with a label of the set
        before, upto = counts[lo], counts[np.maximum(hi + 1, lo)]
        index = upto - 1 - atom.offset if atom.from_end else before + atom.offset
        valid = (index >= before) & (index < upto)
        pos = hits[np.clip(index, 0, max(len(hits) - 1, 0))] if len(hits) else lo
    pos = np.where(valid, pos, 0)
    rows = layout.rows[pos] + atom.physical if len(layout.rows) else np.zeros_like(lo)
    match = layout.out_match
    valid &= (rows >= layout.low[match]) & (rows < layout.high[match])
    return np.where(valid, rows, 0), valid


def _take(column: pa.Array, rows: np.ndarray, valid: np.ndarray) -> pa.Array:
    indices = pa.array(rows, type=pa.int64(), mask=~valid)
    return pc.take(column, indices)


def _navigation(layout: MatchLayout, atom: Navigate, column: ArrowColumn, names: pa.Array):
    rows, valid = _navigate_rows(layout, atom)
    source = atom.source
    if isinstance(source, ColumnAt):
        return _take(column(source.name), rows, valid)
    if source is row_found:
        return pa.array(np.ones(len(valid), dtype=bool), mask=~valid)
    if source is classifier_at:
        # the label of that row in the (whole) match, NULL outside the match
        match = layout.out_match
        inside = (
            valid
            & (rows >= layout.starts[match])
            & (rows < layout.starts[match] + (layout.first[1:] - layout.first[:-1])[match])
        )
        pos = np.where(inside, layout.first[:-1][match] + rows - layout.starts[match], 0)
        label = layout.labels[pos] if len(layout.labels) else np.zeros_like(pos)
        return _take(names, label, inside)
    return None


#: integer sums whose absolute values add up to less (in doubles, rounding included) can
#: have no running total outside BIGINT, nor can any prefix sum of them
_NO_OVERFLOW = 2.0**62


def _aggregate(layout: MatchLayout, atom: Aggregate, column: ArrowColumn):
    lo, hi = layout.window(atom.final)
    counts = layout.counts(atom.labels)
    upto = counts[np.maximum(hi + 1, lo)]
    picked = upto - counts[lo]
    if atom.args is None:
        return pa.array(picked, type=pa.int64()) if atom.func == "COUNT" else None
    if atom.distinct or len(atom.args) != 1 or not isinstance(atom.args[0], ColumnAt):
        return None
    if atom.func not in ("COUNT", "SUM", "AVG", "MIN", "MAX"):
        return None
    values = column(atom.args[0].name)
    kind = values.type
    if not (pa.types.is_integer(kind) or pa.types.is_floating(kind)):
        return None
    gathered = values.take(pa.array(layout.rows, type=pa.int64()))
    present = ~np.asarray(gathered.is_null().to_numpy(zero_copy_only=False), dtype=bool)
    in_set = np.diff(counts).astype(bool) & present
    nonnull = np.zeros(len(in_set) + 1, dtype=np.int64)
    np.cumsum(in_set, out=nonnull[1:])
    seen = nonnull[np.maximum(hi + 1, lo)] - nonnull[lo]
    if atom.func == "COUNT":
        return pa.array(seen, type=pa.int64())
    dtype = np.int64 if pa.types.is_integer(kind) else np.float64
    raw = np.asarray(gathered.fill_null(0).to_numpy(zero_copy_only=False), dtype=dtype)
    if atom.func == "AVG" and dtype is np.int64:
        # Spark averages integers as doubles added in row order (exact only up to 2**53)
        dtype, raw = np.float64, raw.astype(np.float64)
    if atom.func in ("SUM", "AVG"):
        if dtype is np.float64:
            # doubles are added in row order from the match's first row, as Spark adds
            # them: a difference of prefix sums over all matches is not that sum
            running = _match_running_sums(np.where(in_set, raw, 0.0), layout.first)
            total = np.where(hi >= lo, running[np.clip(hi, 0, max(len(raw) - 1, 0))], 0.0)
            total += 0.0  # Spark's sum starts from 0.0: a sum of -0.0s is 0.0
        else:
            if np.abs(raw[in_set].astype(np.float64)).sum() >= _NO_OVERFLOW:
                # a running total may leave BIGINT (and int64 prefix sums wrap silently):
                # the per-match evaluators raise or wrap at the row, as Spark does
                return None
            sums = np.zeros(len(raw) + 1, dtype=dtype)
            np.cumsum(np.where(in_set, raw, 0), out=sums[1:])
            total = sums[np.maximum(hi + 1, lo)] - sums[lo]
        if atom.func == "AVG":
            return pa.array(total / np.maximum(seen, 1), mask=seen == 0, type=pa.float64())
        return pa.array(total, mask=seen == 0)
    if not atom.final and not np.array_equal(hi, layout.first[1:][layout.out_match] - 1):
        return None  # running MIN/MAX are not a difference of prefix sums
    # Spark orders NaN above every double: MAX keeps it, MIN skips it unless nothing else
    # is there (np.fmin, NaN as the neutral fill). Of equal values (-0.0 and 0.0) both keep
    # the first: NumPy's reductions pick either, so a zero result takes the first's sign
    fill = np.iinfo(dtype).max if dtype is np.int64 else np.nan
    if atom.func == "MAX":
        fill = np.iinfo(dtype).min if dtype is np.int64 else -np.inf
    masked = np.where(in_set, raw, fill)
    starts = layout.first[:-1]
    nonempty = layout.first[1:] > starts
    reducer = np.fmin if atom.func == "MIN" else np.fmax
    per_match = np.full(len(starts), fill, dtype=dtype)
    if len(masked):
        at = np.minimum(starts, len(masked) - 1)
        reduced = reducer.reduceat(masked, at)
        if dtype is np.float64:
            if atom.func == "MAX":
                reduced[np.logical_or.reduceat(np.isnan(masked), at)] = np.nan
            _first_zero_sign(reduced, masked, in_set, at)
        per_match[nonempty] = reduced[nonempty]
    extremes = pa.array(per_match[layout.out_match], mask=seen == 0)
    return extremes.cast(kind) if pa.types.is_float32(kind) else extremes  # a FLOAT's own


def _first_zero_sign(
    reduced: np.ndarray, values: np.ndarray, in_set: np.ndarray, at: np.ndarray
) -> None:
    """Give each zero of ``reduced`` (a MAX or MIN per segment of ``values`` starting at
    ``at``) the sign of the segment's first zero read (``in_set``): Spark keeps the first
    of equal values, and -0.0 equals 0.0."""
    n = len(values)
    first = np.minimum.reduceat(np.where(in_set & (values == 0), np.arange(n), n), at)
    fix = (reduced == 0) & (first < n)
    reduced[fix] = np.where(np.signbit(values[first[fix]]), -0.0, 0.0)


def _match_running_sums(values: np.ndarray, first: np.ndarray) -> np.ndarray:
    """Per flat position, the sum of ``values`` from its match's first position up to it,
    added one row after the other (``first``: each match's first position, then the end).
    Either one vectorized step per row of the longest match, for all matches at once, or
    one ``cumsum`` (which adds in order) per match, whichever loops fewer times: many short
    matches or a few long ones."""
    out = values.astype(np.float64, copy=True)
    starts, lengths = first[:-1], np.diff(first)
    longest = int(lengths.max()) if len(lengths) else 0
    if len(starts) < longest:
        for low, high in zip(starts.tolist(), first[1:].tolist()):
            np.cumsum(out[low:high], out=out[low:high])
        return out
    for k in range(1, longest):
        at = starts[lengths > k] + k
        out[at] = out[at - 1] + out[at]
    return out


def vector_atoms(
    layout: MatchLayout,
    atoms: Sequence[Any],
    column: ArrowColumn,
    label_names: Sequence[str],
    partial: bool = False,
) -> list[pa.Array | None] | None:
    """Every atom's values for the output rows of ``layout``, or None if one atom cannot
    be vectorized (then the caller evaluates per match); with ``partial``, None only in
    the place of each such atom."""
    names = pa.array(list(label_names), type=pa.string())
    out: list[pa.Array] = []
    for atom in atoms:
        if isinstance(atom, Navigate):
            values = _navigation(layout, atom, column, names)
        elif isinstance(atom, Aggregate):
            values = _aggregate(layout, atom, column)
        elif atom is match_number:
            values = pa.array(layout.numbers[layout.out_match], type=pa.int64())
        else:
            values = None
        if values is None and not partial:
            return None
        out.append(values)
    return out
