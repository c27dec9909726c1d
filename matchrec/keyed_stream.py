"""The rows and cursors of many partition keys of a stream, advanced together.

A stream is split into a fixed number of buckets by a hash of its PARTITION BY keys; one
:class:`KeyedStream` holds a bucket's state: the rows its keys still need (rows the
watermark has not passed yet, and rows that live searches or look-back read) and one
cursor per key seen (:class:`~matchrec.incremental.Cursors`, one array per field).
:meth:`KeyedStream.advance` takes the new rows and the watermark, matches every key that
has something new to decide in one :func:`matchrec.incremental.step_pieces` (the keys'
rows side by side, one search and one measure pass for all of them), and returns the
output rows (one batch) and the event time at which the bucket must be woken up again
even if no row comes (a pending row becomes final, or a WITHIN bound passes).

The state is plain Arrow tables, serialized as Arrow IPC for Spark's state store.
Nothing here imports Spark, so the whole path is testable without a stream.
"""

from __future__ import annotations

import io
import re
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from matchrec.arrow_packing import ipc_bytes
from matchrec.arrow_rows import (
    MATCHED,
    ArrowColumns,
    atom_column,
    group_starts,
    key_tuples,
    output_batch,
    partition_order,
)
from matchrec.engine import PartitionProgram
from matchrec.errors import MatchRuntimeError
from matchrec.incremental import CURSOR_FIELDS, Cursor, Cursors, step, step_pieces
from matchrec.matcher import placed_skip_error

#: the event time in microseconds since the epoch, added by the runtime to every row
EVENT_MICROS = "__mr_evt"
#: whether the watermark has passed a held row (then it is in ORDER BY order with its key)
FINAL = "__mr_final"
#: the status column of the output when timed-out partial matches are shown
STATUS = "__mr_status"
MATCHED_STATUS = "MATCHED"
#: a row in no match (ALL ROWS PER MATCH WITH UNMATCHED ROWS)
UNMATCHED_STATUS = "UNMATCHED"
TIMEOUT_STATUS = "TIMEOUT"
#: the status of an output row that is a late input row (WITH LATE ROWS)
LATE_STATUS = "LATE"


@dataclass
class StreamSpec:
    """What every bucket of one streaming MATCH_RECOGNIZE runs (picklable)."""

    program: PartitionProgram
    keys: list[str]  # PARTITION BY columns
    order: list[tuple[str, bool, bool]]  # ORDER BY: column, descending, nulls first
    carried: list[str]  # input columns copied to the output rows
    atom_types: list[pa.DataType]  # Arrow type of each atom's output column
    buckets: int  # how many buckets the keys are hashed into (fixed per checkpoint)
    timeouts: bool = False  # WITH TIMEOUTS
    late_rows: bool = False  # WITH LATE ROWS: late input rows are output rows too
    #: what the state's rows and cursors mean (the clause but its MEASURES, the columns
    #: of the rows held): a checkpoint's state is refused by a query that means other
    #: things (empty: not checked)
    fingerprint: str = ""

    @property
    def status_shown(self) -> bool:
        """Whether output rows carry a status (MATCHED, TIMEOUT, LATE)."""
        return self.timeouts or self.late_rows

    @property
    def within_micros(self) -> float | None:
        seconds = self.program.within_seconds
        return None if self.program.within_column is None else float(seconds or 0) * 1e6


@dataclass
class Advanced:
    """What one :meth:`KeyedStream.advance` produced."""

    batches: list[pa.RecordBatch] = field(default_factory=list)
    wake_micros: int | None = None  # event time at which to advance again without rows


class CursorView(Mapping):
    """The cursors of a bucket by partition key (a read-only view; each lookup builds a
    :class:`Cursor`)."""

    def __init__(self, stream: KeyedStream):
        self._stream = stream

    def __getitem__(self, key: tuple) -> Cursor:
        return self._stream._cursors[self._stream._index[key]]

    def __iter__(self) -> Iterator[tuple]:
        return iter(self._stream._keys)

    def __len__(self) -> int:
        return len(self._stream._keys)


class KeyedStream:
    """The state of one bucket: held rows (all keys) and the cursor of every key seen."""

    def __init__(self, spec: StreamSpec, rows: pa.Table | None, cursors: pa.Table | None):
        self.spec = spec
        self.rows = rows
        #: the latest watermark this bucket advanced to (rows at or behind it are late)
        self.watermark: int | None = None
        #: the event-time timer (milliseconds) its stream processor registered, if any
        self.timer: int | None = None
        # the keys seen, their slots, and their cursors (slot i: self._keys[i])
        self._keys: list[tuple] = []
        self._index: dict[tuple, int] = {}
        self._cursors = Cursors.new(0)
        # Arrow types of the key columns (from whichever table has them: a bucket saved
        # before its first row wrote them with the null type)
        self.key_fields: list[pa.Field] | None = None
        for table in (rows, cursors):
            if table is not None and table.num_rows and self.key_fields is None:
                self.key_fields = [table.schema.field(k) for k in spec.keys]
        if cursors is not None and cursors.num_rows:
            self._add_keys(key_tuples(cursors, spec.keys))
            self._cursors = Cursors.from_columns(
                [cursors.column(c).to_numpy() for c in CURSOR_FIELDS]
            )

    # ------------------------------------------------------------------ state I/O

    @classmethod
    def load(cls, spec: StreamSpec, blob: bytes | None) -> KeyedStream:
        """The state saved by :meth:`save` (None: a new bucket)."""
        if not blob:
            return cls(spec, None, None)
        reader = pa.ipc.open_stream(io.BytesIO(blob))
        meta = reader.schema.metadata or {}
        buckets = int(meta.get(b"buckets", b"0"))
        if buckets != spec.buckets:
            raise MatchRuntimeError(
                f"this checkpoint's state was written with {buckets} stream buckets, the "
                f"query now asks for {spec.buckets}; set spark.matchrec.stream.buckets to "
                f"{buckets} or start from a new checkpoint"
            )
        written = meta.get(b"clause", b"").decode()
        if written and spec.fingerprint and written != spec.fingerprint:
            raise MatchRuntimeError(
                "this checkpoint's state was written by another query: its MATCH_RECOGNIZE "
                "(PARTITION BY, ORDER BY, PATTERN, DEFINE, ...), the columns it reads or "
                "what it computes per row changed since; the state's partial matches mean "
                "nothing to the new one. Start the changed query from a new checkpoint, or "
                "run the query as it was (the query around the clause may change)"
            )
        tables = reader.read_all()
        rows = _unpack(tables, "rows")
        cursors = _unpack(tables, "cursors")
        stream = cls(spec, rows, cursors)
        for name in ("watermark", "timer"):
            if name.encode() in meta:
                setattr(stream, name, int(meta[name.encode()]))
        return stream

    def save(self) -> bytes:
        """The bucket's state as bytes (Arrow IPC: held rows and cursors)."""
        spec = self.spec
        key_values = list(zip(*self._keys)) if self._keys else [[] for _ in spec.keys]
        fields = self.key_fields or [pa.field(k, pa.null()) for k in spec.keys]
        cursor_cols = {
            **{f.name: pa.array(list(v), type=f.type) for f, v in zip(fields, key_values)},
            **{
                c: pa.array(v, type=pa.int64())
                for c, v in zip(CURSOR_FIELDS, self._cursors.columns())
            },
        }
        cursors = pa.table(cursor_cols)
        sink = io.BytesIO()
        meta = {b"buckets": str(spec.buckets).encode(), b"clause": spec.fingerprint.encode()}
        for name in ("watermark", "timer"):
            if getattr(self, name) is not None:
                meta[name.encode()] = str(getattr(self, name)).encode()
        schema = pa.schema([("part", pa.string()), ("blob", pa.binary())], metadata=meta)
        with pa.ipc.new_stream(sink, schema) as writer:
            for name, table in (("rows", self.rows), ("cursors", cursors)):
                if table is None:
                    continue
                writer.write_batch(
                    pa.record_batch(
                        [pa.array([name]), pa.array([ipc_bytes(table)], type=pa.binary())],
                        schema=schema,
                    )
                )
        return sink.getvalue()

    @property
    def held_rows(self) -> int:
        return 0 if self.rows is None else self.rows.num_rows

    @property
    def cursors(self) -> Mapping[tuple, Cursor]:
        """The cursor of every key seen, by key."""
        return CursorView(self)

    def held_keys(self) -> list[tuple]:
        """Every key this bucket holds something of: a cursor or a row."""
        held = key_tuples(self.rows, self.spec.keys) if self.rows is not None else []
        return list(dict.fromkeys([*self._keys, *held]))

    def restricted(self, keys: Collection[tuple], keep: bool = True) -> KeyedStream:
        """A copy of this bucket's state with only ``keys`` (``keep``) or all keys but
        them: their rows and cursors, the watermark and timer. A key's matching reads
        nothing of another's, so a part advances as the same keys would in the whole."""
        chosen = set(keys)
        rows = self.rows
        if rows is not None:
            inside = [(key in chosen) == keep for key in key_tuples(rows, self.spec.keys)]
            rows = rows.filter(pa.array(inside, type=pa.bool_()))
        part = KeyedStream(self.spec, rows, None)
        part.key_fields = self.key_fields
        part.watermark, part.timer = self.watermark, self.timer
        slots = [i for i, key in enumerate(self._keys) if (key in chosen) == keep]
        part._add_keys([self._keys[i] for i in slots])
        part._cursors = self._cursors.take(np.array(slots, dtype=np.int64))
        return part

    def _add_keys(self, keys: list[tuple]) -> None:
        for key in keys:
            self._index[key] = len(self._keys)
            self._keys.append(key)

    def _slots(self, keys: list[tuple]) -> np.ndarray:
        """The slots of ``keys``; keys not seen before get new cursors."""
        fresh = [key for key in dict.fromkeys(keys) if key not in self._index]
        if fresh:
            self._add_keys(fresh)
            self._cursors = self._cursors.extended(len(fresh))
        index = self._index
        return np.array([index[key] for key in keys], dtype=np.int64)

    # ------------------------------------------------------------------ matching

    def advance(self, new: pa.Table | None, watermark_micros: int | None) -> Advanced:
        """Add ``new`` rows, then settle what the watermark allows (rows with an event
        time before ``watermark_micros`` are complete; :meth:`split_late` takes out the
        rows that come after that). AFTER MATCH SKIP's run-time errors point at the query."""
        try:
            return self._advance(new, watermark_micros)
        except MatchRuntimeError as err:
            program = self.spec.program
            placed = placed_skip_error(err, program.sql, program.skip_pos)
            if placed is err:
                raise
            raise placed from None

    def _advance(self, new: pa.Table | None, watermark_micros: int | None) -> Advanced:
        spec = self.spec
        result = Advanced()
        if new is not None and new.num_rows:
            if new.column(EVENT_MICROS).null_count:
                raise MatchRuntimeError(
                    "a row has a NULL event time (the ORDER BY column with the watermark); "
                    "a stream can place it nowhere: filter such rows out or give them a time"
                )
        if watermark_micros is not None and (
            self.watermark is None or watermark_micros > self.watermark
        ):
            self.watermark = watermark_micros
        if new is not None and new.num_rows:
            new = new.append_column(FINAL, pa.array(np.zeros(new.num_rows, dtype=bool)))
            if self.key_fields is None:
                self.key_fields = [new.schema.field(k) for k in spec.keys]
            self.rows = new if self.rows is None else concat_held(self.rows, new)
        if self.rows is None or self.rows.num_rows == 0:
            return result
        rows = self.rows
        final = rows.column(FINAL).to_numpy()
        if watermark_micros is not None:
            events = rows.column(EVENT_MICROS).to_numpy()
            newly = ~final & (events < watermark_micros)
        else:
            newly = np.zeros(rows.num_rows, dtype=bool)
        known = final | newly
        pending = rows.filter(pa.array(~known))
        ready = rows.filter(pa.array(known))
        fresh = newly[known]  # per ready row: did it just become final
        ready = ready.set_column(
            ready.schema.get_field_index(FINAL), FINAL, pa.array(np.ones(ready.num_rows, bool))
        )
        kept: list[pa.Table] = []
        if ready.num_rows:
            order = self._order(ready)
            ready = ready.take(order)
            fresh = fresh[order.to_numpy()]
            left = self._match(ready, fresh, watermark_micros, result)
            if left.num_rows:
                kept.append(left)
        if pending.num_rows:
            kept.append(pending)
            first = int(pc.min(pending.column(EVENT_MICROS)).as_py())
            result.wake_micros = _earliest(result.wake_micros, first + 1)
        self.rows = pa.concat_tables(kept) if kept else None
        return result

    def split_late(self, new: pa.Table) -> tuple[pa.Table, pa.Table | None]:
        """:func:`split_late` by the latest watermark this bucket advanced to."""
        return split_late(new, self.watermark)

    def late_output(self, late: pa.Table) -> pa.RecordBatch:
        """The output rows of ``late`` input rows (WITH LATE ROWS): their carried
        columns, no atom values, not matched, status LATE."""
        spec = self.spec
        count = late.num_rows
        arrays = [late.column(c).combine_chunks() for c in spec.carried]
        arrays += [pa.nulls(count, type=t) for t in spec.atom_types]
        arrays.append(pa.array(np.zeros(count, dtype=bool)))
        names = [*spec.carried, *map(atom_column, range(len(spec.atom_types))), MATCHED]
        return _with_status(pa.RecordBatch.from_arrays(arrays, names=names), LATE_STATUS, True)

    def finish(self) -> Advanced:
        """Match every key's held rows as if its partition ended here (a rule version of
        MATCH_RECOGNIZE_DYNAMIC that a newer one replaced); the state is spent after it."""
        spec = self.spec
        result = Advanced()
        if self.rows is None or self.rows.num_rows == 0:
            return result
        ready = self.rows.take(self._order(self.rows))
        edges = [0, *group_starts(ready, spec.keys), ready.num_rows]
        limit = spec.within_micros
        for low, high in zip(edges, edges[1:]):
            part = ready.slice(low, high - low)
            (key,) = key_tuples(part.slice(0, 1), spec.keys)
            ticks = np.asarray(part.column(EVENT_MICROS).to_numpy(), dtype=np.int64)
            done = step(
                spec.program,
                ArrowColumns(part),
                part.num_rows,
                self.cursors.get(key) or Cursor(),
                final=True,
                timeouts=spec.timeouts,
                within_ticks=(ticks, limit) if limit is not None else None,
            )
            for out, status in ((done.output, MATCHED_STATUS), (done.timeouts, TIMEOUT_STATUS)):
                batch = (
                    None
                    if out is None
                    else output_batch(part, out, spec.carried, spec.atom_types, spec.program)
                )
                if batch is not None:
                    result.batches.append(_with_status(batch, status, spec.status_shown))
        self.rows = None
        self._keys, self._index, self._cursors = [], {}, Cursors.new(0)
        return result

    def _match(
        self,
        ready: pa.Table,
        fresh: np.ndarray,
        watermark_micros: int | None,
        result: Advanced,
    ) -> pa.Table:
        """Match the final rows of every key (``ready``, sorted by key and ORDER BY) that
        has something new to decide, all in one step; returns the rows still held."""
        spec = self.spec
        limit = spec.within_micros
        n = ready.num_rows
        edges = np.array([0, *group_starts(ready, spec.keys), n], dtype=np.int64)
        lows, highs = edges[:-1], edges[1:]
        slots = self._slots(key_tuples(ready.take(pa.array(lows)), spec.keys))
        cursors = self._cursors.take(slots)
        ticks = np.asarray(ready.column(EVENT_MICROS).to_numpy(), dtype=np.int64)
        expired = np.zeros(len(lows), dtype=np.int64)
        if limit is not None and watermark_micros is not None:
            # rows are in event-time order within a key: count those past the bound
            past = (ticks < watermark_micros - limit).astype(np.int64)
            expired = np.add.reduceat(past, lows)
        # a key with no new final row and no search newly cut off by WITHIN is as it was
        active = np.logical_or.reduceat(fresh, lows) | (expired > cursors.resume - cursors.origin)
        which = np.flatnonzero(active)
        drop = np.zeros(len(lows), dtype=np.int64)
        if len(which):
            done = step_pieces(
                spec.program,
                ArrowColumns(ready),
                n,
                lows[which],
                highs[which],
                cursors.take(which),
                expired=expired[which],
                timeouts=spec.timeouts,
                within_ticks=(ticks, limit) if limit is not None else None,
            )
            batch = output_batch(ready, done.output, spec.carried, spec.atom_types, spec.program)
            if batch is not None:
                result.batches.append(_with_status(batch, MATCHED_STATUS, spec.status_shown))
            if done.timeouts is not None:
                lost = output_batch(
                    ready, done.timeouts, spec.carried, spec.atom_types, spec.program
                )
                if lost is not None:
                    result.batches.append(_with_status(lost, TIMEOUT_STATUS, True))
            drop[which] = done.drop
            cursors.put(which, done.cursors)
            self._cursors.put(slots[which], done.cursors)
        if limit is not None:
            # the bucket wakes when the oldest live search of a key can no longer gain a
            # row; one whose bound the watermark passed waits for the rows DEFINE's NEXT
            # reads, which are held as pending (they wake it) or have not come
            at = lows + drop + (cursors.resume - cursors.origin)
            wakes = ticks[at[at < highs]] + int(limit) + 1
            if watermark_micros is not None:
                wakes = wakes[wakes > watermark_micros]
            if len(wakes):
                result.wake_micros = _earliest(result.wake_micros, int(wakes.min()))
        if not drop.any():
            return ready
        keep = np.arange(n, dtype=np.int64) >= np.repeat(lows + drop, highs - lows)
        return ready.filter(pa.array(keep))

    def _order(self, table: pa.Table) -> pa.Array:
        """The rows of ``table`` by PARTITION BY then ORDER BY (as they are without)."""
        order = partition_order(table, self.spec.keys, self.spec.order)
        return pa.array(np.arange(table.num_rows)) if order is None else order


def drop_late(rows: pa.Table, watermark: int | None) -> tuple[pa.Table, int]:
    """``rows`` without the late ones, and how many there were: rows at or behind
    ``watermark``, the latest a bucket advanced to (Spark's rule for late rows; the rows
    they would come before may already be matched). None: nothing is late yet."""
    kept, late = split_late(rows, watermark)
    return kept, 0 if late is None else late.num_rows


def split_late(rows: pa.Table, watermark: int | None) -> tuple[pa.Table, pa.Table | None]:
    """``rows`` without the late ones (as :func:`drop_late`), and the late ones (None:
    none)."""
    if watermark is None:
        return rows, None
    late = rows.column(EVENT_MICROS).to_numpy() <= watermark
    if not late.any():
        return rows, None
    return rows.filter(pa.array(~late)), rows.filter(pa.array(late))


def _earliest(a: int | None, b: int) -> int:
    return b if a is None else min(a, b)


def _with_status(batch: pa.RecordBatch, status: str, shown: bool) -> pa.RecordBatch:
    if not shown:
        return batch
    column = pa.array([status] * batch.num_rows, type=pa.string())
    return pa.RecordBatch.from_arrays([*batch.columns, column], names=[*batch.schema.names, STATUS])


def _unpack(tables: pa.Table, name: str) -> pa.Table | None:
    parts = tables.column("part").to_pylist()
    if name not in parts:
        return None
    blob = tables.column("blob")[parts.index(name)].as_py()
    return pa.ipc.open_stream(io.BytesIO(blob)).read_all()


def concat_held(rows: pa.Table, new: pa.Table) -> pa.Table:
    """``rows`` then ``new``. A column the rules compute in Python is typed from its values
    (``rule_set._array``): one micro-batch's all-NULL values, or empty arrays, are of
    Arrow's null type, the next batch's are typed; so the types are promoted to one.
    Held rows of a query restarted under another session time zone carry the old zone
    on their timestamps: they take the new rows' (the same instants)."""
    held = {f.name: f.type for f in rows.schema}
    zoned = {
        f.name: f.type
        for f in new.schema
        if f.name in held
        and f.type != held[f.name]
        and _zone_free(f.type) == _zone_free(held[f.name])
    }
    if zoned:
        names = rows.schema.names
        rows = pa.table([rows.column(n).cast(zoned.get(n, held[n])) for n in names], names=names)
    return pa.concat_tables([rows, new], promote_options="permissive")


_ZONE = re.compile(r", tz=[^,\]>]+")


def _zone_free(kind: pa.DataType) -> str:
    """``kind`` as text without the time zones of its timestamps (at any depth)."""
    return _ZONE.sub("", str(kind))
