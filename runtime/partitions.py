"""The function ``mapInArrow`` runs on every Spark partition of a batch MATCH_RECOGNIZE.

Everything here runs on the executors, where matchrec may arrive as a shipped zip
(:mod:`matchrec.runtime.cluster`): it imports only the core (``matchrec.engine``), NumPy
and PyArrow, never the grammar or the planner, so executors need neither Lark nor
sqlglot. :mod:`matchrec.runtime.batch` builds the job around it on the driver.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from matchrec.engine import (
    PartitionOutput,
    PartitionProgram,
    chunkable,
    lookaround,
    run_chunk,
    run_groups,
    run_partition,
)
from matchrec.errors import MatchRuntimeError

MATCHED = "__mr_matched"


def _to_arrow(values: list[Any], arrow_type: pa.DataType) -> pa.Array:
    if pa.types.is_decimal(arrow_type):
        q = Decimal(1).scaleb(-arrow_type.scale)
        values = [None if v is None else Decimal(v).quantize(q) for v in values]
    elif pa.types.is_floating(arrow_type):
        values = [None if v is None else float(v) for v in values]
    return pa.array(values, type=arrow_type)


class ArrowColumns:
    """One partition's columns for the engine: Arrow arrays, turned into Python lists or
    NumPy masks only when (and as often as) something asks for them."""

    def __init__(self, table: pa.Table):
        self.table = table
        self._arrays: dict[str, pa.Array] = {}
        self._lists: dict[str, list[Any]] = {}

    def arrow(self, name: str) -> pa.Array:
        found = self._arrays.get(name)
        if found is None:
            found = self._arrays[name] = self.table.column(name).combine_chunks()
        return found

    def mask(self, name: str) -> np.ndarray:
        filled = pc.fill_null(self.arrow(name), False)
        return np.asarray(filled.to_numpy(zero_copy_only=False), dtype=bool)

    def __getitem__(self, name: str) -> list[Any]:
        found = self._lists.get(name)
        if found is None:
            found = self._lists[name] = self.arrow(name).to_pylist()
        return found


def group_starts(batch: pa.RecordBatch, keys: list[str]) -> list[int]:
    """Row positions (after 0) where the partition key changes, found vectorized; NULL
    equals NULL, as in PARTITION BY."""
    n = batch.num_rows
    if not keys or n < 2:
        return []
    changed = np.zeros(n - 1, dtype=bool)
    for k in keys:
        column = batch.column(k)
        head, tail = column.slice(0, n - 1), column.slice(1)
        differs = pc.fill_null(pc.not_equal(head, tail), False)
        nulls = pc.not_equal(head.is_null(), tail.is_null())
        changed |= np.asarray(pc.or_(differs, nulls).to_numpy(zero_copy_only=False), dtype=bool)
    return (np.flatnonzero(changed) + 1).tolist()


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
        count = len(out.rows)
        if count == 0:
            return None
        indices = pa.array(out.rows, type=pa.int64())
        arrays = [table.column(c).take(indices).combine_chunks() for c in carried]
        for values, arrow_type in zip(out.atoms, arrow_types):
            if isinstance(values, pa.Array):
                arrays.append(values if values.type == arrow_type else values.cast(arrow_type))
            else:
                arrays.append(_to_arrow(values, arrow_type))
        names = carried + [f"__mr_a{i}" for i in range(len(out.atoms))]
        matched = np.ones(count, dtype=bool) if out.matched is None else out.matched
        arrays.append(pa.array(matched, type=pa.bool_()))
        names.append(MATCHED)
        return pa.RecordBatch.from_arrays(arrays, names=names)

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
