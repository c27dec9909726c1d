"""Rows as Arrow columns for the engine, and the engine's output as an Arrow batch.

Shared by the batch runtime (``mapInArrow``) and the stream runtime (a stateful
processor): both hand the engine a partition's rows as Arrow columns and turn the
:class:`~matchrec.engine.PartitionOutput` into a record batch of carried input columns,
atom values and the matched flag. Nothing here imports Spark.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any, Protocol

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from matchrec.engine import PartitionOutput
from matchrec.errors import MatchRuntimeError
from matchrec.far_dates import FAR_HINT, FarDate, date_of_days, days_of, far_refusal
from matchrec.far_timestamps import FarTimestamp, micros_of, timestamp_of_micros
from matchrec.sql_values import (
    WIDE_DECIMALS,
    CalendarInterval,
    Float32,
    StructFields,
    from_utf8,
    leaves_mapped,
    map_key,
    utf8_bytes,
)
from matchrec.zones import arrow_zone_name, arrow_zone_of, zone_named

MATCHED = "__mr_matched"


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
        array = self.arrow(name)
        if pa.types.is_null(array.type):  # a condition NULL on every row (no type to fill)
            return np.zeros(len(array), dtype=bool)
        filled = pc.fill_null(array, False)
        return np.asarray(filled.to_numpy(zero_copy_only=False), dtype=bool)

    def __getitem__(self, name: str) -> list[Any]:
        found = self._lists.get(name)
        if found is None:
            # maps as dicts, as Spark hands them to Python (a subscript looks a key up)
            array = self.arrow(name)
            found = python_values(array)
            self._lists[name] = found
        return found


def in_python_zone(array: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """A TIMESTAMP ``array`` in the session zone as Python's conversion names it (the
    same instants): Spark writes the zone as Java names it (``UTC+05:30``), which
    Arrow's conversion to Python values cannot read."""
    kind = array.type
    if not pa.types.is_timestamp(kind) or not kind.tz:
        return array
    name = arrow_zone_name(kind.tz)
    if name is None or name == kind.tz:
        return array
    return array.cast(pa.timestamp(kind.unit, tz=name))


def python_values(array: pa.Array | pa.ChunkedArray) -> list[Any]:
    """``array``'s values as the engine's Python values: maps as dicts (as Spark hands
    them to Python), structs as :class:`~matchrec.sql_values.StructFields` (dicts that
    are no maps), FLOATs, also inside arrays, maps and structs, as
    :class:`~matchrec.sql_values.Float32` (so that they are written as Spark writes a
    FLOAT), CALENDAR INTERVALs as :class:`~matchrec.sql_values.CalendarInterval`."""
    array = in_python_zone(array)
    # Arrow builds a dict of a map only where its keys are hashable Python values
    options = {} if _has_complex_keys(array.type) else {"maps_as_pydicts": "lossy"}
    try:
        values = _plain_values(array, **options)
    except OverflowError:  # past Python's years, where no DATE or TIMESTAMP is
        raise MatchRuntimeError(
            f"a {array.type} value outside years 1-9999 reached the evaluator of several "
            "rows, which holds dates and times in Python's range",
            hint="keep such rows out of the match, or compute the measure with matchrec.sql",
        ) from None
    except UnicodeDecodeError:  # a STRING of bytes that are no UTF-8 (CAST(unhex(s) AS STRING))
        values = _undecodable_strings(array)
    if pa.types.is_interval(array.type):  # make_interval(...): a CALENDAR INTERVAL
        return [None if v is None else _calendar(v) for v in values]
    return _marked_all(values, array.type) if _needs_marks(array.type) else values


def _plain_values(array: pa.Array | pa.ChunkedArray, **options: Any) -> list[Any]:
    """``array.to_pylist(**options)``; where a DATE or TIMESTAMP in it, at any depth, is
    outside the years 1-9999 Python holds (in the session zone), the column is read by
    days and microseconds, such a value as a :class:`~matchrec.far_dates.FarDate` or a
    :class:`~matchrec.far_timestamps.FarTimestamp`."""
    try:
        return array.to_pylist(**options)
    except OverflowError:
        kind = array.type
        if not any(_by_count(t) for t in _parts(kind)):
            raise
        counts = array.cast(_each_type(kind, lambda t: _by_count(t) or t))
        return [_of_counts(v, kind) for v in counts.to_pylist(**options)]


def _of_counts(v: Any, kind: pa.DataType) -> Any:
    """A value read by :func:`_plain_values` with each DATE and TIMESTAMP in it (of Arrow
    type ``kind``) a count of days or microseconds, as the engine's value."""
    if v is None:
        return None
    if pa.types.is_date32(kind):
        return date_of_days(v)
    if pa.types.is_timestamp(kind):
        return timestamp_of_micros(v, _zone_named(kind.tz) if kind.tz else None)
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return [_of_counts(x, kind.value_type) for x in v]
    if pa.types.is_map(kind):
        key, item = kind.key_type, kind.item_type
        if isinstance(v, dict):
            return {_of_counts(k, key): _of_counts(x, item) for k, x in v.items()}
        return [(_of_counts(k, key), _of_counts(x, item)) for k, x in v]
    if pa.types.is_struct(kind):
        return {f.name: _of_counts(v[f.name], f.type) for f in kind}
    return v


def _zone_named(name: str) -> Any:
    zone = zone_named(name)
    if zone is None:
        raise OverflowError(f"the zone {name} is not known here")
    return zone


def _parts(kind: pa.DataType) -> Iterator[pa.DataType]:
    """``kind`` and each type inside it, at any depth."""
    yield kind
    for i in range(kind.num_fields):
        yield from _parts(kind.field(i).type)


def _each_type(kind: pa.DataType, leaf: Callable[[pa.DataType], pa.DataType]) -> pa.DataType:
    """``kind`` with ``leaf`` applied to each type inside it that holds no other."""
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        item = kind.value_field.with_type(_each_type(kind.value_type, leaf))
        return pa.list_(item) if pa.types.is_list(kind) else pa.large_list(item)
    if pa.types.is_map(kind):
        return pa.map_(
            kind.key_field.with_type(_each_type(kind.key_type, leaf)),
            kind.item_field.with_type(_each_type(kind.item_type, leaf)),
        )
    if pa.types.is_struct(kind):
        return pa.struct([f.with_type(_each_type(f.type, leaf)) for f in kind])
    return leaf(kind)


def _calendar(v: Any) -> CalendarInterval:
    return CalendarInterval(v.months, v.days, v.nanoseconds // 1000)


def _needs_marks(kind: pa.DataType) -> bool:
    """Whether values of ``kind`` hold a FLOAT, a struct or a map with array keys, at
    any depth."""
    return any(
        pa.types.is_float32(t) or pa.types.is_struct(t) or _complex_keyed(t) for t in _parts(kind)
    )


def _has_complex_keys(kind: pa.DataType) -> bool:
    """Whether values of ``kind`` hold a map whose keys are arrays or structs."""
    return any(_complex_keyed(t) for t in _parts(kind))


def _complex_keyed(t: pa.DataType) -> bool:
    return pa.types.is_map(t) and pa.types.is_nested(t.key_type)


def _marked_all(values: list[Any], kind: pa.DataType) -> list[Any]:
    """``values`` of Arrow type ``kind`` with each FLOAT in it a Float32 and each struct
    a StructFields."""
    return [None if v is None else _marked(v, kind) for v in values]


def _marked(v: Any, kind: pa.DataType) -> Any:
    if pa.types.is_float32(kind):
        return Float32(v)
    if pa.types.is_map(kind):
        key, item = kind.key_type, kind.item_type
        entries = v.items() if isinstance(v, dict) else v  # (key, value) pairs, see above
        return {map_key(_mark(k, key)): _mark(x, item) for k, x in entries}
    if pa.types.is_struct(kind):
        return StructFields((f.name, _mark(v[f.name], f.type)) for f in kind)
    if pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind):
        return _marked_all(v, kind.value_type)
    return v


def _mark(v: Any, kind: pa.DataType) -> Any:
    return v if v is None or not _needs_marks(kind) else _marked(v, kind)


def _undecodable_strings(array: pa.Array | pa.ChunkedArray) -> list[Any]:
    """A STRING column holding bytes that are no UTF-8 (Spark keeps a CAST of BINARY as
    it is): each undecodable byte as Python's surrogate escape (U+DC80..U+DCFF), so that
    values are equal, join, compare and hash as their bytes do in Spark (except such a
    byte against a character from U+E000 up, which Spark's bytes put below it); such text
    inside another type is refused."""
    binary = _bytes_of_text(
        array.type,
        "read",
        "keep such text out of the match, or compute the measure with matchrec.sql",
    )
    return [None if b is None else from_utf8(b) for b in array.cast(binary).to_pylist()]


def _bytes_of_text(kind: pa.DataType, done: str, hint: str) -> pa.DataType:
    """The BINARY type of the same layout as text type ``kind`` (whose values hold bytes
    that are no UTF-8); such text inside another type, which the evaluator cannot
    ``done`` (read, write), is refused."""
    binary = {pa.string(): pa.binary(), pa.large_string(): pa.large_binary()}.get(kind)
    if binary is None:
        raise MatchRuntimeError(
            f"a {kind} value holds text that is not UTF-8, which the evaluator of several "
            f"rows cannot {done} inside another type",
            hint=hint,
        ) from None
    return binary


def group_starts(batch: pa.RecordBatch | pa.Table, keys: list[str]) -> list[int]:
    """Row positions (after 0) where the partition key changes, found vectorized; NULL
    equals NULL, NaN equals NaN and -0.0 equals 0.0, as in Spark's PARTITION BY (which
    normalizes floating-point keys); arrays and structs compare by value."""
    n = batch.num_rows
    if not keys or n < 2:
        return []
    changed = np.zeros(n - 1, dtype=bool)
    for k in keys:
        column = batch.column(k)
        if isinstance(column, pa.ChunkedArray):
            column = column.combine_chunks()
        changed |= _changes(column)
    return (np.flatnonzero(changed) + 1).tolist()


def _changes(column: pa.Array) -> np.ndarray:
    """For each row but the last of ``column``: does the next row hold another key?"""
    n = len(column)
    head, tail = column.slice(0, n - 1), column.slice(1)
    kind = column.type
    if pa.types.is_floating(kind):
        both_nan = pc.and_(pc.is_nan(head), pc.is_nan(tail))
        differs = pc.and_(pc.not_equal(head, tail), pc.invert(both_nan))
    elif pa.types.is_nested(kind) or pa.types.is_dictionary(kind):
        # no Arrow kernel compares them: compare the keys as Python values
        values = [partition_key(v) for v in column.to_pylist()]
        return np.fromiter((a != b for a, b in zip(values, values[1:])), bool, n - 1)
    else:
        differs = pc.not_equal(head, tail)
    nulls = pc.not_equal(head.is_null(), tail.is_null())
    both = pc.or_(pc.fill_null(differs, False), nulls)
    return np.asarray(both.to_numpy(zero_copy_only=False), dtype=bool)


class _NaN:
    """The one NaN of partition keys: equal to itself, as Spark groups NaN values."""

    def __repr__(self) -> str:
        return "NaN"


_NAN = _NaN()


def partition_key(value: Any) -> Any:
    """A Python value of a PARTITION BY column as a hashable key that is equal exactly
    when Spark puts the two values in one partition: NaN equals NaN, -0.0 equals 0.0
    (Python's ``==`` and ``hash`` already agree there), arrays and structs by value."""
    if isinstance(value, float):
        return _NAN if value != value else value
    if isinstance(value, list):
        return tuple(partition_key(v) for v in value)
    if isinstance(value, dict):
        return tuple((k, partition_key(v)) for k, v in value.items())
    if isinstance(value, tuple):
        return tuple(partition_key(v) for v in value)
    return value


class PartitionKey(tuple):
    """A row's PARTITION BY values (as written, for output and state) that hash and
    compare as :func:`partition_key` says: a key of NaN, -0.0, a struct or an array
    finds its partition again in a dict, as Spark groups it."""

    def __new__(cls, values: Any) -> PartitionKey:
        key = super().__new__(cls, values)
        key._same = partition_key(tuple(key))
        return key

    def __hash__(self) -> int:
        return hash(self._same)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PartitionKey):
            return self._same == other._same
        return isinstance(other, tuple) and self._same == partition_key(other)

    def __ne__(self, other: object) -> bool:
        return not self == other


def _plain_key(kind: pa.DataType) -> bool:
    """Whether values of ``kind`` are equal and hash alike exactly when Spark groups
    them together, as Python values (no float and nothing nested)."""
    return not (pa.types.is_floating(kind) or pa.types.is_nested(kind))


def key_tuples(table: pa.Table | pa.RecordBatch, keys: Sequence[str]) -> list[tuple]:
    """The partition key of each row of ``table``, as tuples of its values: equal and of
    one hash exactly when Spark puts the rows in one partition (:class:`PartitionKey`
    where a key is a float or nested)."""
    columns = [_key_values(table.column(k)) for k in keys]
    if not columns:
        return [()] * table.num_rows
    if all(_plain_key(table.schema.field(k).type) for k in keys):
        return list(zip(*columns))
    return [PartitionKey(values) for values in zip(*columns)]


def key_value(column: pa.Array | pa.ChunkedArray, row: int) -> Any:
    """The value of a key ``column`` at ``row`` (as :func:`key_tuples` holds it)."""
    return _key_values(column.slice(row, 1))[0]


def _key_values(column: pa.Array | pa.ChunkedArray) -> list[Any]:
    return _plain_values(in_python_zone(column))


def sortable_keys(table: pa.Table, keys: Sequence[str]) -> tuple[pa.Table, list[str]]:
    """``table`` with a helper column for each nested key, which Arrow cannot sort: the
    rank of its value by first appearance (equal keys alike, as :func:`partition_key`
    says); returns the table and the columns to sort by in place of ``keys``. Sorting
    only gathers each partition's rows, so any order of the partitions does."""
    names = []
    for k in keys:
        kind = table.schema.field(k).type
        if not pa.types.is_nested(kind):
            names.append(k)
            continue
        ranks: dict[Any, int] = {}
        values = [partition_key(v) for v in table.column(k).to_pylist()]
        rank = [ranks.setdefault(v, len(ranks)) for v in values]
        name = f"__mr_rank_{k}"
        table = table.append_column(name, pa.array(rank, type=pa.int64()))
        names.append(name)
    return table, names


def partition_order(
    table: pa.Table, keys: Sequence[str], order: Sequence[tuple[str, bool, bool]]
) -> pa.Array | None:
    """The row order of ``table`` by PARTITION BY ``keys`` (each partition's rows
    together, :func:`sortable_keys`) then ORDER BY ``order`` (column, descending, nulls
    first: each key's NULL placement by a helper column, since Arrow places NULLs once
    for all keys); None when there is nothing to sort by."""
    table, names = sortable_keys(table, keys)
    sort: list[tuple[str, str]] = [(k, "ascending") for k in names]
    for i, (column, descending, nulls_first) in enumerate(order):
        values = table.column(column)
        if values.null_count:
            flag = f"__mr_null_{i}"
            table = table.append_column(flag, pc.is_null(values))
            sort.append((flag, "descending" if nulls_first else "ascending"))
        sort.append((column, "descending" if descending else "ascending"))
    return pc.sort_indices(table, sort_keys=sort) if sort else None


def to_arrow(values: list[Any], arrow_type: pa.DataType, ansi: bool = True) -> pa.Array:
    """Python values of an atom as an Arrow array of the atom's Spark type; a DECIMAL
    value its type cannot hold (a sum past 38 digits) is Spark's error under ``ansi``
    (``spark.sql.ansi.enabled``), else NULL, as Spark's own ``sum`` gives."""
    if pa.types.is_decimal(arrow_type):
        values = _decimals(values, arrow_type.precision, arrow_type.scale, ansi)
    elif pa.types.is_floating(arrow_type):
        values = [None if v is None else float(v) for v in values]
    return arrow_array(values, arrow_type)


def arrow_array(values: list[Any], arrow_type: pa.DataType) -> pa.Array:
    """``pa.array(values, type=arrow_type)`` that also takes every DAY-TIME interval
    Spark can hold (see ``_as_micros``)."""
    if _holds_duration(arrow_type):
        values = [_as_micros(v) for v in values]
    if any(pa.types.is_interval(t) for t in _parts(arrow_type)):
        values = [leaves_mapped(v, _month_day_nano) for v in values]
    try:
        return pa.array(values, type=arrow_type)
    except pa.ArrowTypeError:  # a DATE or TIMESTAMP past Python's years, at any depth
        if not any(_by_count(t) for t in _parts(arrow_type)):
            far = next((v for v in values if isinstance(v, (FarDate, FarTimestamp))), None)
            if far is None:
                raise
            raise MatchRuntimeError(str(far_refusal(far)), hint=FAR_HINT) from None
        counts = [leaves_mapped(v, _count) for v in values]
        as_counts = _each_type(arrow_type, lambda t: _by_count(t) or t)
        return pa.array(counts, type=as_counts).cast(arrow_type)
    except UnicodeEncodeError:  # text holding bytes that are no UTF-8 (see _undecodable_strings)
        binary = _bytes_of_text(arrow_type, "write", "compute the measure with matchrec.sql")
        raw = pa.array([v if v is None else utf8_bytes(v) for v in values], type=binary)
        # the same buffers read as text: Spark keeps such a STRING's bytes as they are
        return pa.Array.from_buffers(arrow_type, len(raw), raw.buffers(), raw.null_count)


_MICROSECOND = timedelta(microseconds=1)


def _count(v: Any) -> Any:
    """A DATE as its days from 1970-01-01, a TIMESTAMP as its microseconds from the
    epoch (as Arrow holds them); anything else kept."""
    if isinstance(v, (datetime, FarTimestamp)):
        return micros_of(v)
    return days_of(v) if isinstance(v, (date, FarDate)) else v


def _by_count(kind: pa.DataType) -> pa.DataType | None:
    """The integer type an Arrow DATE or TIMESTAMP ``kind`` is cast from; None for
    another type."""
    if pa.types.is_date32(kind):
        return pa.int32()
    if pa.types.is_timestamp(kind) and kind.unit == "us":
        return pa.int64()
    return None


def _month_day_nano(v: Any) -> Any:
    """A CALENDAR INTERVAL as Arrow's month-day-nano interval takes it."""
    if isinstance(v, CalendarInterval):
        return pa.MonthDayNano([v.months, v.days, v.micros * 1000])
    return v


def _holds_duration(arrow_type: pa.DataType) -> bool:
    """Whether a value of ``arrow_type`` may hold a DAY-TIME interval (a duration)."""
    return any(pa.types.is_duration(t) for t in _parts(arrow_type))


def _as_micros(value: Any) -> Any:
    """``value`` with each timedelta as its count of microseconds, which Arrow takes for a
    duration. Arrow's own conversion of a timedelta multiplies its days first and
    overflows within a day of Spark's smallest interval (-106751991 04:00:54.775808)."""
    return leaves_mapped(value, _micros)


def _micros(v: Any) -> Any:
    return v // _MICROSECOND if isinstance(v, timedelta) else v


def _decimals(
    values: list[Any], precision: int, scale: int, ansi: bool = True
) -> list[Decimal | None]:
    """``values`` rounded half up to ``scale`` digits (with all 38 of Spark's digits:
    Python's default context keeps 28), each checked to fit DECIMAL(``precision``,
    ``scale``): one that does not is an error under ``ansi``, else NULL."""
    q = Decimal(1).scaleb(-scale)
    limit = Decimal(10) ** (precision - scale)
    out: list[Decimal | None] = []
    for v in values:
        if v is None:
            out.append(None)
            continue
        d = WIDE_DECIMALS.quantize(Decimal(v), q)  # half up, as Spark's changePrecision
        if d.copy_abs() >= limit and not ansi:  # abs() would round to the default 28 digits
            out.append(None)
            continue
        if d.copy_abs() >= limit:
            raise MatchRuntimeError(
                f"[NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION] {d} cannot be represented as "
                f"Decimal({precision}, {scale}): a measure's aggregate over the match "
                "is out of its type's range",
                hint="CAST the values to a wider type (DOUBLE) before the aggregate, "
                "or use try_sum/try_avg",
            )
        out.append(d)
    return out


def _at_atom(err: MatchRuntimeError, k: int, plan: PlannedAtoms) -> MatchRuntimeError:
    """``err`` naming atom ``k`` as the user wrote it, with a caret under it."""
    text, pos = plan.atom_sources[k] if k < len(plan.atom_sources) else ("", None)
    if not text or err.line is not None:
        return err
    return MatchRuntimeError(f"{text}: {err.message}", sql=plan.sql or None, pos=pos, hint=err.hint)


def inferred_array(values: list[Any]) -> pa.Array:
    """Untyped values (a rule's, read in Python) as Arrow, of the type Arrow guesses:
    numbers of mixed kinds as doubles, DATEs past Python's years as DATEs, CALENDAR
    INTERVALs as month-day-nano intervals."""
    try:
        return pa.array(values)
    except UnicodeEncodeError:  # text holding bytes that are no UTF-8
        return arrow_array(values, pa.string())
    except (pa.ArrowException, TypeError, ValueError):  # mixed ints and floats, say
        kind = next((k for cls, k in _UNINFERRED if any(isinstance(v, cls) for v in values)), None)
        far = next((v for v in values if isinstance(v, FarTimestamp)), None)
        if far is not None:
            zone = None if far.zone is None else arrow_zone_of(far.zone) or "UTC"
            kind = pa.timestamp("us", tz=zone)
        if kind is not None:
            return arrow_array(values, kind)
        return pa.array([None if v is None else float(v) for v in values])


#: values whose Arrow type :func:`inferred_array` names itself: Arrow cannot tell it
_UNINFERRED: list[tuple[type, pa.DataType]] = [
    (FarDate, pa.date32()),
    (CalendarInterval, pa.month_day_nano_interval()),
]


def atom_column(index: int) -> str:
    """The name of the matcher's output column of atom ``index``."""
    return f"__mr_a{index}"


class PlannedAtoms(Protocol):
    """What :func:`output_batch` reads of the plan (a ``PartitionProgram``)."""

    ansi: bool  # spark.sql.ansi.enabled: a DECIMAL out of its type's range fails, or is NULL
    atom_sources: list[tuple[str, int | None]]  # each atom as written, and where in sql
    sql: str


def output_batch(
    table: pa.Table,
    out: PartitionOutput,
    carried: list[str],
    arrow_types: list[pa.DataType | None],
    plan: PlannedAtoms,
) -> pa.RecordBatch | None:
    """The output rows of ``out`` (rows of ``table``): the ``carried`` columns, one column
    per atom (``__mr_a<k>``, typed ``arrow_types[k]``) and :data:`MATCHED`. A value out
    of its type's range is an error at the atom's place in the query."""
    count = len(out.rows)
    if count == 0:
        return None
    indices = pa.array(out.rows, type=pa.int64())
    arrays = [table.column(c).take(indices).combine_chunks() for c in carried]
    for values, arrow_type in zip(out.atoms, arrow_types):
        if arrow_type is None:  # untyped (MATCH_RECOGNIZE_DYNAMIC reads them in Python)
            arrays.append(values if isinstance(values, pa.Array) else inferred_array(values))
        elif isinstance(values, pa.Array):
            arrays.append(values if values.type == arrow_type else values.cast(arrow_type))
        else:
            try:
                arrays.append(to_arrow(values, arrow_type, plan.ansi))
            except MatchRuntimeError as err:
                raise _at_atom(err, len(arrays) - len(carried), plan) from None
    names = carried + [atom_column(i) for i in range(len(out.atoms))]
    matched = np.ones(count, dtype=bool) if out.matched is None else out.matched
    arrays.append(pa.array(matched, type=pa.bool_()))
    names.append(MATCHED)
    return pa.RecordBatch.from_arrays(arrays, names=names)
