"""Run a planned MATCH_RECOGNIZE over a batch DataFrame.

Shape of the Spark job: add the row-local columns the plan asks for (Spark evaluates
them in the JVM), repartition by the PARTITION BY keys, sort each Spark partition by
keys and ORDER BY, then ``mapInArrow`` streams the sorted rows through the matcher one
key group at a time, and a final projection computes the measures in Spark from the
atoms the matcher emitted. Everything that can fail on the user's input is checked when
the DataFrame is built (analysis only), before any job runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from matchrec.planner.plan import MatchPlan, quote
from matchrec.planner.type_checks import TypeCheck, mismatch
from pyspark.errors import AnalysisException
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.pandas.types import to_arrow_type
from pyspark.sql.types import (
    BooleanType,
    DataType,
    DateType,
    StructField,
    StructType,
    TimestampNTZType,
    TimestampType,
)

from matchrec.engine import (
    PartitionOutput,
    PartitionProgram,
    chunkable,
    lookaround,
    run_chunk,
    run_groups,
    run_partition,
)
from matchrec.errors import MatchRuntimeError, SemanticError

MATCHED = "__mr_matched"
#: rows of one partition held before it is matched in pieces (0: never cut)
CHUNK_ROWS_CONF = "spark.matchrec.chunkRows"
DEFAULT_CHUNK_ROWS = 262_144
#: rows of complete partitions gathered before they are matched together: the engine's
#: vectorized passes cost a fixed overhead per step, shared by all rows matched at once
GROUP_ROWS_CONF = "spark.matchrec.groupRows"
DEFAULT_GROUP_ROWS = 131_072


def _sort_column(name: str, descending: bool, nulls_first: bool) -> Column:
    c = F.col(quote(name))
    if descending:
        return c.desc_nulls_first() if nulls_first else c.desc_nulls_last()
    return c.asc_nulls_first() if nulls_first else c.asc_nulls_last()


def _probe_types(df: DataFrame, plan: MatchPlan) -> list[DataType]:
    """Spark's type of every atom, from analysing an equivalent expression (no job runs)."""
    types: dict[str, DataType] = {}
    plain = [a for a in plan.atoms if not a.aggregate]
    aggs = [a for a in plan.atoms if a.aggregate]
    if plain:
        for f in df.selectExpr(*(f"{a.probe} AS {quote(a.name)}" for a in plain)).schema.fields:
            types[f.name] = f.dataType
    if aggs:
        for f in df.selectExpr(*(f"{a.probe} AS {quote(a.name)}" for a in aggs)).schema.fields:
            types[f.name] = f.dataType
    return [types[a.name] for a in plan.atoms]


def _check_types(df: DataFrame, plan: MatchPlan, checks: list[TypeCheck]) -> None:
    """Ask Spark for the operand types of ``checks`` over ``df`` (analysis only) and raise
    the first mix that would fail while the query runs (``planner.type_checks``)."""
    probes = [o.probe for c in checks for o in c.operands]
    if not probes:
        return
    try:
        fields = df.selectExpr(*(f"{p} AS `__mr_t{i}`" for i, p in enumerate(probes))).schema
    except AnalysisException:
        return  # Spark reports the expression itself where it is computed
    types = iter(f.dataType.simpleString() for f in fields)
    ansi = (df.sparkSession.conf.get("spark.sql.ansi.enabled") or "true").lower() == "true"
    for check in checks:
        error = mismatch(check, [next(types) for _ in check.operands], ansi, plan.clause.sql)
        if error is not None:
            raise error


def _check_within(df: DataFrame, plan: MatchPlan) -> None:
    if plan.within_column is None:
        return
    dtype = df.schema[plan.within_column].dataType
    if not isinstance(dtype, (TimestampType, TimestampNTZType, DateType)):
        key = plan.clause.order_by[0].expr
        raise SemanticError(
            f"WITHIN needs ORDER BY on a timestamp or date column; {plan.within_column!r} is "
            f"{dtype.simpleString()}",
            sql=plan.clause.sql,
            pos=key.pos,
            hint="order by an event-time column, e.g. CAST(x AS TIMESTAMP) computed in a subquery",
        )


def execute(df: DataFrame, plan: MatchPlan) -> DataFrame:
    """The DataFrame of ``plan`` applied to ``df``."""
    input_columns = list(df.columns)
    keys = plan.partition_by
    order = [_sort_column(c, d, nf) for c, d, nf in plan.order_by]
    if keys:
        df = df.repartition(*(F.col(quote(k)) for k in keys)).sortWithinPartitions(
            *(F.col(quote(k)) for k in keys), *order
        )
    elif order:
        df = df.repartition(1).sortWithinPartitions(*order)
    else:
        df = df.coalesce(1)
    # after the sort: PREV/NEXT became LAG/LEAD windows ordered as the sort, so Spark
    # computes them on the sorted rows without another shuffle or sort
    for stage in plan.stages:
        df = _select(df, plan, ["*"], stage)
    if plan.scratch:
        df = df.drop(*plan.scratch)
    _check_within(df, plan)
    _check_types(df, plan, plan.define_checks)
    atom_types = _probe_types(df, plan)

    atom_fields = [StructField(a.name, t, True) for a, t in zip(plan.atoms, atom_types)]
    by_name = {f.name: f for f in df.schema.fields}
    if plan.one_row:
        # MATCHED also keeps the row count when there is no other column
        out_schema = StructType(
            [by_name[k] for k in keys] + atom_fields + [StructField(MATCHED, BooleanType(), False)]
        )
        carried = list(keys)
    else:
        out_schema = StructType(
            [by_name[c] for c in input_columns]
            + atom_fields
            + [StructField(MATCHED, BooleanType(), False)]
        )
        carried = list(input_columns)
    zone = df.sparkSession.conf.get("spark.sql.session.timeZone") or "UTC"
    arrow_types = [to_arrow_type(t, timezone=zone) for t in atom_types]
    conf = df.sparkSession.conf
    chunk_rows = int(conf.get(CHUNK_ROWS_CONF, str(DEFAULT_CHUNK_ROWS)))
    group_rows = int(conf.get(GROUP_ROWS_CONF, str(DEFAULT_GROUP_ROWS)))
    mapper = _partition_mapper(plan.program, keys, carried, arrow_types, chunk_rows, group_rows)
    matched = df.mapInArrow(mapper, out_schema)
    _check_types(matched, plan, plan.measure_checks)

    measures = []
    for alias, text in plan.measures:
        expr = f"CASE WHEN {MATCHED} THEN ({text}) END" if plan.with_unmatched else text
        measures.append((alias, expr))
    if plan.one_row:
        return _select(matched, plan, [quote(k) for k in keys], measures)
    order_cols = [c for c, _, _ in plan.order_by]
    others = [c for c in input_columns if c not in keys and c not in order_cols]
    return _select(
        matched, plan, [quote(c) for c in keys + order_cols], measures, [quote(c) for c in others]
    )


def _select(
    df: DataFrame,
    plan: MatchPlan,
    head: list[str],
    named: list[tuple[str, str]],
    tail: tuple[str, ...] | list[str] = (),
) -> DataFrame:
    """``df.selectExpr(*head, *(text AS name), *tail)``; a Spark analysis error in one of
    the user's expressions becomes our error pointing at that expression in the query."""
    try:
        return df.selectExpr(*head, *(f"{text} AS {quote(name)}" for name, text in named), *tail)
    except AnalysisException as err:
        for name, text in named:
            try:
                df.selectExpr(f"{text} AS {quote(name)}")
            except AnalysisException as one:
                raise SemanticError(
                    f"Spark cannot evaluate this expression: {_first_line(one)}",
                    sql=plan.clause.sql,
                    pos=plan.origins.get(name),
                    hint="check function names and argument types",
                ) from None
        raise err


def _first_line(err: Exception) -> str:
    text = getattr(err, "getMessage", lambda: str(err))() or str(err)
    return text.strip().splitlines()[0] if text.strip() else type(err).__name__


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
