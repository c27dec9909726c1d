"""The function ``mapInArrow`` runs on every Spark partition of a batch MATCH_RECOGNIZE.

Everything here runs on the executors, where matchrec may arrive as a shipped zip
(:mod:`matchrec.runtime.cluster`): it imports only the core (``matchrec.engine``), NumPy
and PyArrow, never the grammar or the planner, so executors need neither Lark nor
sqlglot. :mod:`matchrec.runtime.batch` builds the job around it on the driver.
"""

from __future__ import annotations

from collections.abc import Iterator

import pyarrow as pa

from matchrec.arrow_rows import MATCHED, ArrowColumns, group_starts, output_batch
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
from matchrec.incremental import Cursor, step
from matchrec.keyed_stream import MATCHED_STATUS, TIMEOUT_STATUS, _with_status

__all__ = ["MATCHED", "ArrowColumns", "_partition_mapper", "_timeout_mapper", "group_starts"]


def _timeout_mapper(
    program: PartitionProgram, keys: list[str], carried: list[str], arrow_types: list[pa.DataType]
):
    """``mapInArrow`` for ONE ROW PER MATCH WITH TIMEOUTS: each partition (held whole) is
    matched as a stream would at its end, with the partial matches that WITHIN cut off
    (or that the partition's end left open) as TIMEOUT rows."""

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
            batch = None if out is None else output_batch(table, out, carried, arrow_types)
            if batch is not None:
                yield _with_status(batch, status, True)

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        held: list[pa.RecordBatch] = []
        key = None
        for batch in batches:
            if batch.num_rows == 0:
                continue
            edges = [0, *group_starts(batch, keys), batch.num_rows]
            for low, high in zip(edges, edges[1:]):
                part = batch.slice(low, high - low)
                part_key = _key_at(part, keys, 0)
                if held and part_key != key:
                    yield from match(held)
                    held = []
                held.append(part)
                key = part_key
        if held:
            yield from match(held)

    return run


def _key_at(batch: pa.RecordBatch, keys: list[str], row: int) -> tuple:
    return tuple(batch.column(k)[row].as_py() for k in keys)


def _partition_mapper(
    program: PartitionProgram,
    keys: list[str],
    carried: list[str],
    arrow_types: list[pa.DataType],
    chunk_rows: int = 0,
    group_rows: int = 0,
):
    """The function ``mapInArrow`` runs on each Spark partition (sorted by keys and order).

    A partition (key group) longer than ``chunk_rows`` is matched in pieces where the
    program allows it (:func:`chunkable`): only the rows a later match may still need are
    kept, so memory follows the live searches, not the partition. Complete partitions are
    gathered up to ``group_rows`` rows and matched together.
    """

    def output(table: pa.Table, out: PartitionOutput) -> pa.RecordBatch | None:
        return output_batch(table, out, carried, arrow_types)

    def flush(batches: list[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        """Match complete partitions (one or many) held in ``batches``."""
        rows = pa.concat_batches(batches) if len(batches) > 1 else batches[0]
        table = pa.Table.from_batches([rows])
        edges = [0, *group_starts(rows, keys), rows.num_rows]
        bounds = list(zip(edges, edges[1:]))
        together = run_groups(program, ArrowColumns(table), bounds)
        if together is not None:
            result = output(table, together)
            if result is not None:
                yield result
            return
        for low, high in bounds:
            part = table.slice(low, high - low)
            result = output(part, run_partition(program, ArrowColumns(part), high - low))
            if result is not None:
                yield result

    chunks = chunk_rows > 0 and chunkable(program)
    back, ahead = lookaround(program)

    class Held:
        """Complete partitions not matched yet: matched together once they reach
        ``group_rows`` rows (or the input ends)."""

        def __init__(self) -> None:
            self.batches: list[pa.RecordBatch] = []
            self.rows = 0

        def add(self, batches: list[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            self.batches.extend(batches)
            self.rows += sum(b.num_rows for b in batches)
            if self.rows >= group_rows:
                yield from self.release()

        def release(self) -> Iterator[pa.RecordBatch]:
            batches, self.batches, self.rows = self.batches, [], 0
            if batches:
                yield from flush(batches)

    class Pending:
        """Rows of the partition that may continue in the next batch, and, once a long
        partition has been matched in pieces, where its kept rows start and its next
        match number."""

        def __init__(self, held: Held) -> None:
            self.held = held
            self.batches: list[pa.RecordBatch] = []
            self.rows = 0
            self.key: tuple | None = None
            self.origin: int | None = None  # None: not cut yet
            self.start = 0  # where the search resumes in what is held
            self.number = 1
            # cut again once this many rows are held: twice what a cut left, so that a
            # search that keeps going (one huge match) costs linear time, not quadratic
            self.next_cut = chunk_rows

        def add(self, batch: pa.RecordBatch) -> None:
            self.batches.append(batch)
            self.rows += batch.num_rows

        def piece(self, final: bool) -> Iterator[pa.RecordBatch]:
            """Match what is held of a partition matched in pieces."""
            rows = pa.concat_batches(self.batches) if len(self.batches) > 1 else self.batches[0]
            table = pa.Table.from_batches([rows])
            out, resume, self.number = run_chunk(
                program,
                ArrowColumns(table),
                table.num_rows,
                origin=self.origin or 0,
                number=self.number,
                final=final,
                start=self.start,
                lookahead=ahead,
            )
            result = output(table, out)
            if result is not None:
                yield result
            keep = max(0, resume - back)
            self.start = resume - keep
            self.origin = (self.origin or 0) + keep
            self.batches = [rows.slice(keep)] if keep < rows.num_rows else []
            self.rows = rows.num_rows - keep
            self.next_cut = max(chunk_rows, 2 * self.rows)

        def close(self) -> Iterator[pa.RecordBatch]:
            """The partition ended: match the rest."""
            if self.batches:
                yield from (
                    self.piece(True) if self.origin is not None else self.held.add(self.batches)
                )
            self.batches, self.rows, self.origin, self.start, self.number = [], 0, None, 0, 1
            self.next_cut = chunk_rows

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        held = Held()
        pending = Pending(held)
        finished: set[tuple] = set()  # first and last keys of what was matched
        for batch in batches:
            if batch.num_rows == 0:
                continue
            starts = group_starts(batch, keys)
            first_key = _key_at(batch, keys, 0)
            if pending.batches and first_key != pending.key:
                yield from pending.close()
                finished.add(pending.key)
            if first_key in finished:
                raise MatchRuntimeError(
                    "rows of one partition reached the matcher out of order "
                    f"(key {first_key!r} seen twice); this Spark version does not keep "
                    "sortWithinPartitions order into mapInArrow"
                )
            if starts:
                # the batch ends the held partition, then holds complete ones, then one
                # that may go on
                pending.add(batch.slice(0, starts[0]))
                pending.key = first_key
                yield from pending.close()
                finished.add(first_key)
                if starts[-1] > starts[0]:
                    yield from held.add([batch.slice(starts[0], starts[-1] - starts[0])])
                    finished.add(_key_at(batch, keys, starts[-2]))
            last = starts[-1] if starts else 0
            pending.add(batch.slice(last))
            pending.key = _key_at(batch, keys, last)
            if chunks and pending.rows >= pending.next_cut:
                if pending.origin is None:
                    pending.origin = 0
                yield from pending.piece(False)
        yield from pending.close()
        yield from held.release()

    return run
