"""The function ``mapInArrow`` runs on every Spark partition of a batch MATCH_RECOGNIZE.

Everything here runs on the executors, where matchrec may arrive as a shipped zip
(:mod:`matchrec.runtime.cluster`): it imports only the core (``matchrec.engine``), NumPy
and PyArrow, never the grammar or the planner, so executors need neither Lark nor
sqlglot. :mod:`matchrec.runtime.batch` builds the job around it on the driver.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pyarrow as pa

from matchrec.arrow_rows import (
    MATCHED,
    ArrowColumns,
    group_starts,
    key_value,
    output_batch,
    partition_key,
)
from matchrec.engine import (
    PartitionOutput,
    PartitionProgram,
    _ticks,
    chunkable,
    lookaround,
    run_chunk,
    run_groups,
    run_partition,
)
from matchrec.errors import MatchRuntimeError
from matchrec.function_settings import use_settings
from matchrec.incremental import Cursor, step
from matchrec.keyed_stream import MATCHED_STATUS, TIMEOUT_STATUS, _with_status
from matchrec.matcher import placed_skip_error
from matchrec.zones import use_zone

#: rows of one partition held before it is matched in pieces (0: never cut)
DEFAULT_CHUNK_ROWS = 262_144
#: rows of complete partitions gathered before they are matched together: the engine's
#: vectorized passes cost a fixed overhead per step, shared by all rows matched at once
DEFAULT_GROUP_ROWS = 131_072

__all__ = [
    "MATCHED",
    "ArrowColumns",
    "PartitionMatcher",
    "_partition_mapper",
    "_timeout_mapper",
    "group_starts",
]


def _timeout_mapper(
    program: PartitionProgram,
    keys: list[str],
    carried: list[str],
    arrow_types: list[pa.DataType],
    zone: str | None = None,
    settings: Mapping[str, str] | None = None,
):
    """``mapInArrow`` for ONE ROW PER MATCH WITH TIMEOUTS: each partition (held whole) is
    matched as a stream would at its end, with the partial matches that WITHIN cut off
    (or that the partition's end left open) as TIMEOUT rows; ``zone``: the session time
    zone, which DEFINE's glue reads (:mod:`matchrec.zones`); ``settings``: the session's
    settings that change what a function computes (:mod:`matchrec.function_settings`)."""

    def match(rows: list[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        table = pa.Table.from_batches(rows)
        found = _ticks(table.column(program.within_column).combine_chunks())
        assert found is not None  # WITHIN is checked to order by a timestamp or date
        ticks, _, per_second = found
        limit = float(program.within_seconds or 0) * per_second
        done = step(
            program,
            ArrowColumns(table),
            table.num_rows,
            Cursor(),
            final=True,
            timeouts=True,
            within_ticks=(ticks, limit),
        )
        for out, status in ((done.output, MATCHED_STATUS), (done.timeouts, TIMEOUT_STATUS)):
            batch = None if out is None else output_batch(table, out, carried, arrow_types, program)
            if batch is not None:
                yield _with_status(batch, status, True)

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        use_zone(zone)
        use_settings(settings)
        held: list[pa.RecordBatch] = []
        key = None
        for batch in batches:
            if batch.num_rows == 0:
                continue
            edges = [0, *group_starts(batch, keys), batch.num_rows]
            for low, high in zip(edges, edges[1:]):
                part = batch.slice(low, high - low)
                part_key = key_at(part, keys, 0)
                if held and part_key != key:
                    yield from match(held)
                    held = []
                held.append(part)
                key = part_key
        if held:
            yield from match(held)

    return run


def key_at(batch: pa.RecordBatch, keys: list[str], row: int) -> tuple:
    """The partition key of ``row`` of ``batch``, as hashable Python values that are
    equal when Spark puts the rows in one partition (:func:`partition_key`)."""
    return tuple(partition_key(key_value(batch.column(k), row)) for k in keys)


def _partition_mapper(
    program: PartitionProgram,
    keys: list[str],
    carried: list[str],
    arrow_types: list[pa.DataType],
    chunk_rows: int = 0,
    group_rows: int = 0,
    zone: str | None = None,
    settings: Mapping[str, str] | None = None,
):
    """The function ``mapInArrow`` runs on each Spark partition (sorted by keys and order):
    a :class:`PartitionMatcher` whose output is the matcher's rows (carried columns,
    atoms, matched flag); ``zone`` and ``settings``: the session's, which the glue reads
    (as in :func:`_timeout_mapper`)."""

    def output(table: pa.Table, out: PartitionOutput) -> pa.RecordBatch | None:
        return output_batch(table, out, carried, arrow_types, program)

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        use_zone(zone)
        use_settings(settings)
        matcher = PartitionMatcher(program, keys, output, chunk_rows, group_rows)
        for batch in batches:
            yield from matcher.push(batch)
        yield from matcher.finish()

    return run


Emit = Callable[[pa.Table, PartitionOutput], Any]


class PartitionMatcher:
    """Matches rows that arrive in batches sorted by partition keys and ORDER BY (one
    Spark partition of a batch job, or of a table function's input), one key group at a
    time; ``emit(table, output)`` turns each engine output over rows of ``table`` into
    what the caller yields (None: nothing).

    A partition (key group) longer than ``chunk_rows`` is matched in pieces where the
    program allows it (:func:`chunkable`): only the rows a later match may still need are
    kept, so memory follows the live searches, not the partition. Complete partitions are
    gathered up to ``group_rows`` rows and matched together.
    """

    def __init__(
        self,
        program: PartitionProgram,
        keys: list[str],
        emit: Emit,
        chunk_rows: int = 0,
        group_rows: int = 0,
    ) -> None:
        self.program, self.keys, self.emit = program, keys, emit
        self.chunk_rows, self.group_rows = chunk_rows, group_rows
        self.chunks = chunk_rows > 0 and chunkable(program)
        self.back, self.ahead = lookaround(program)
        self.finished: set[tuple] = set()  # first and last keys of what was matched
        # complete partitions not matched yet
        self.held: list[pa.RecordBatch] = []
        self.held_rows = 0
        # rows of the partition that may continue in the next batch, and, once a long
        # partition has been matched in pieces, where its kept rows start and its next
        # match number
        self.pending: list[pa.RecordBatch] = []
        self.pending_rows = 0
        self.key: tuple | None = None
        self._reset_pending()

    def _reset_pending(self) -> None:
        self.pending, self.pending_rows = [], 0
        self.origin: int | None = None  # None: not cut yet
        self.start = 0  # where the search resumes in what is held
        self.number = 1
        # cut again once this many rows are held: twice what a cut left, so that a
        # search that keeps going (one huge match) costs linear time, not quadratic
        self.next_cut = self.chunk_rows

    def push(self, batch: pa.RecordBatch, starts: list[int] | None = None) -> Iterator[Any]:
        """Take the next sorted ``batch``; yield what the partitions it completes give.
        ``starts``: its ``group_starts``, where the caller has them already."""
        yield from self._placed(self._push(batch, starts))

    def finish(self) -> Iterator[Any]:
        """The input ended: match what is left."""
        yield from self._placed(self._finish())

    def _placed(self, results: Iterator[Any]) -> Iterator[Any]:
        """``results``, with AFTER MATCH SKIP's run-time errors pointing at the query."""
        try:
            yield from results
        except MatchRuntimeError as err:
            placed = placed_skip_error(err, self.program.sql, self.program.skip_pos)
            if placed is err:
                raise
            raise placed from None

    def _push(self, batch: pa.RecordBatch, starts: list[int] | None) -> Iterator[Any]:
        if batch.num_rows == 0:
            return
        keys = self.keys
        if starts is None:
            starts = group_starts(batch, keys)
        first_key = key_at(batch, keys, 0)
        if self.pending and first_key != self.key:
            yield from self._close()
            self.finished.add(self.key)
        if first_key in self.finished:
            raise MatchRuntimeError(
                "rows of one partition reached the matcher out of order "
                f"(key {first_key!r} seen twice); this Spark version does not keep "
                "the sorted order of a partition's rows into Python"
            )
        if starts:
            # the batch ends the pending partition, then holds complete ones, then one
            # that may go on
            self._add_pending(batch.slice(0, starts[0]))
            self.key = first_key
            yield from self._close()
            self.finished.add(first_key)
            if starts[-1] > starts[0]:
                yield from self._hold([batch.slice(starts[0], starts[-1] - starts[0])])
                self.finished.add(key_at(batch, keys, starts[-2]))
        last = starts[-1] if starts else 0
        self._add_pending(batch.slice(last))
        self.key = key_at(batch, keys, last)
        if self.chunks and self.pending_rows >= self.next_cut:
            if self.origin is None:
                self.origin = 0
            yield from self._piece(False)

    def _finish(self) -> Iterator[Any]:
        yield from self._close()
        yield from self._release()

    def _add_pending(self, batch: pa.RecordBatch) -> None:
        self.pending.append(batch)
        self.pending_rows += batch.num_rows

    def _hold(self, batches: list[pa.RecordBatch]) -> Iterator[Any]:
        self.held.extend(batches)
        self.held_rows += sum(b.num_rows for b in batches)
        if self.held_rows >= self.group_rows:
            yield from self._release()

    def _release(self) -> Iterator[Any]:
        batches, self.held, self.held_rows = self.held, [], 0
        if batches:
            yield from self._flush(batches)

    def _flush(self, batches: list[pa.RecordBatch]) -> Iterator[Any]:
        """Match complete partitions (one or many) held in ``batches``."""
        rows = pa.concat_batches(batches) if len(batches) > 1 else batches[0]
        table = pa.Table.from_batches([rows])
        edges = [0, *group_starts(rows, self.keys), rows.num_rows]
        bounds = list(zip(edges, edges[1:]))
        together = run_groups(self.program, ArrowColumns(table), bounds)
        if together is not None:
            result = self.emit(table, together)
            if result is not None:
                yield result
            return
        for low, high in bounds:
            part = table.slice(low, high - low)
            result = self.emit(part, run_partition(self.program, ArrowColumns(part), high - low))
            if result is not None:
                yield result

    def _piece(self, final: bool) -> Iterator[Any]:
        """Match what is held of a partition matched in pieces."""
        batches = self.pending
        rows = pa.concat_batches(batches) if len(batches) > 1 else batches[0]
        table = pa.Table.from_batches([rows])
        out, resume, self.number = run_chunk(
            self.program,
            ArrowColumns(table),
            table.num_rows,
            origin=self.origin or 0,
            number=self.number,
            final=final,
            start=self.start,
            lookahead=self.ahead,
        )
        result = self.emit(table, out)
        if result is not None:
            yield result
        keep = max(0, resume - self.back)
        self.start = resume - keep
        self.origin = (self.origin or 0) + keep
        self.pending = [rows.slice(keep)] if keep < rows.num_rows else []
        self.pending_rows = rows.num_rows - keep
        self.next_cut = max(self.chunk_rows, 2 * self.pending_rows)

    def _close(self) -> Iterator[Any]:
        """The pending partition ended: match the rest."""
        if self.pending:
            if self.origin is not None:
                yield from self._piece(True)
            else:
                yield from self._hold(self.pending)
        self._reset_pending()
