"""Rows of a stream packed into one Arrow IPC value per bucket, and unpacked again.

A stateful operator of Structured Streaming hands its Python processor the rows of a
group as pandas frames, converted row by row on the JVM side; for a bucket that holds
thousands of keys that conversion, not the matching, bounds the throughput. Packing the
rows of each bucket into one binary value first (in a ``mapInArrow`` before the shuffle,
where Spark moves Arrow batches as they are) leaves the operator one row per bucket and
input batch, and the processor reads the rows back as the Arrow table they were.

Pure Arrow and NumPy: nothing here imports Spark.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np
import pyarrow as pa

#: the column of a packed row that holds the rows (Arrow IPC stream bytes)
PACKED = "__mr_rows"

#: rows gathered from a Spark partition's input batches before they are packed: larger
#: values mean fewer, larger packed rows, and more memory in the Python worker
FLUSH_ROWS = 500_000


def packed_schema(bucket: str) -> pa.Schema:
    """The schema of packed rows: the bucket number and the rows' bytes."""
    return pa.schema([(bucket, pa.int64()), (PACKED, pa.binary())])


def pack(
    batches: Iterable[pa.RecordBatch], bucket: str, flush_rows: int = FLUSH_ROWS
) -> Iterator[pa.RecordBatch]:
    """Packed rows of ``batches``: one per bucket (the int64 column ``bucket``, which the
    packed rows keep and the packed tables drop) for every ``flush_rows`` input rows or
    fewer. Row order within a bucket is kept."""
    held: list[pa.RecordBatch] = []
    count = 0
    for batch in batches:
        if batch.num_rows:
            held.append(batch)
            count += batch.num_rows
        if count >= flush_rows:
            yield from _pack_table(pa.Table.from_batches(held), bucket)
            held, count = [], 0
    if held:
        yield from _pack_table(pa.Table.from_batches(held), bucket)


def _pack_table(table: pa.Table, bucket: str) -> Iterator[pa.RecordBatch]:
    numbers = table.column(bucket).to_numpy()
    order = np.argsort(numbers, kind="stable")
    rows = table.drop_columns([bucket]).take(pa.array(order))
    ordered = numbers[order]
    edges = np.flatnonzero(np.diff(ordered)) + 1
    starts = [0, *edges.tolist()]
    ends = [*edges.tolist(), len(ordered)]
    blobs = [ipc_bytes(rows.slice(lo, hi - lo)) for lo, hi in zip(starts, ends)]
    yield pa.record_batch(
        [pa.array(ordered[starts], type=pa.int64()), pa.array(blobs, type=pa.binary())],
        schema=packed_schema(bucket),
    )


def unpack(blobs: Iterable[bytes]) -> pa.Table | None:
    """The rows of packed values, concatenated in the order given (None: no rows)."""
    tables = [pa.ipc.open_stream(blob).read_all() for blob in blobs]
    tables = [t for t in tables if t.num_rows]
    if not tables:
        return None
    return tables[0] if len(tables) == 1 else pa.concat_tables(tables)


def unpacked_batches(blobs: Iterable[bytes | None]) -> Iterator[pa.RecordBatch]:
    """The record batches of packed values, in the order given (a None is skipped)."""
    for blob in blobs:
        if blob is not None:
            yield from pa.ipc.open_stream(blob)


def ipc_bytes(table: pa.Table | pa.RecordBatch) -> bytes:
    """``table`` as one packed value (Arrow IPC stream bytes)."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write(table)
    return sink.getvalue().to_pybytes()
