"""Run the rules of MATCH_RECOGNIZE_DYNAMIC over rows of events (batch and stream).

A :class:`RuleProgram` is one compiled rule version (``planner.rules`` builds it from the
rule's text): its matcher program, its keys and order, its row-local columns and its
measures as Python functions. The output of every rule has one shape
(:data:`OUTPUT_FIELDS`): rule id and version, a status, the match number, and the
rule's partition keys, measures and (ALL ROWS PER MATCH) input row as JSON objects that
the runtime turns into VARIANT values.

:func:`run_batch` matches complete partitions with the batch engine;
:class:`RuleBucket` is the state of one stream bucket under a changing rule set (one
:class:`~matchrec.keyed_stream.KeyedStream` per rule version). Nothing here imports
Spark or parses SQL: rules arrive compiled through the ``compile`` function the
runtime passes in.
"""

from __future__ import annotations

import base64
import dataclasses
import io
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, tzinfo
from decimal import Decimal
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from matchrec import vector_define as vd
from matchrec.arrow_rows import (
    MATCHED,
    ArrowColumns,
    arrow_array,
    group_starts,
    inferred_array,
    key_tuples,
    key_value,
    partition_order,
    python_values,
)
from matchrec.engine import (
    PartitionOutput,
    PartitionProgram,
    _numeric,
    _ticks,
    label_bits,
    run_groups,
    run_partition,
)
from matchrec.errors import MatchRecognizeError, MatchRuntimeError
from matchrec.far_dates import FarDate
from matchrec.far_timestamps import FarTimestamp
from matchrec.incremental import Cursor, step
from matchrec.keyed_stream import (
    EVENT_MICROS,
    MATCHED_STATUS,
    STATUS,
    TIMEOUT_STATUS,
    UNMATCHED_STATUS,
    KeyedStream,
    StreamSpec,
    concat_held,
    drop_late,
)
from matchrec.sql_values import java_text
from matchrec.zones import session_zone

ERROR_STATUS = "ERROR"
#: the columns every rule's output rows have, in order, with their Spark SQL types
OUTPUT_FIELDS: list[tuple[str, str]] = [
    ("rule_id", "STRING"),
    ("rule_version", "INT"),
    ("status", "STRING"),
    ("match_number", "BIGINT"),
    ("keys", "STRING"),  # JSON object (VARIANT after the runtime's projection)
    ("measures", "STRING"),
    ("row", "STRING"),
    ("error", "STRING"),
]
OutputRow = tuple


@dataclass
class RuleProgram:
    """One rule version, ready to run (built by ``planner.rules.compile_rule``)."""

    rule_id: str
    version: int
    program: PartitionProgram
    keys: list[str]
    order: list[tuple[str, bool, bool]]  # column, descending, nulls first
    # row-local columns: name, f(row values), the same as an array expression (or None),
    # the Arrow type of its values (or None: unknown), and the expression's text (rules
    # with the same text share its values)
    local: list[
        tuple[str, Callable[[Sequence[Any]], Any], vd.VExpr | None, pa.DataType | None, str]
    ]
    measures: list[tuple[str, Callable[[Sequence[Any]], Any]]]  # alias, f(atom values)
    match_number: Callable[[Sequence[Any]], Any]
    one_row: bool
    with_unmatched: bool
    timeouts: bool
    columns: list[str]  # the event columns, in the order ``local`` reads them
    _bits: PartitionProgram | None = field(default=None, repr=False)  # see _as_bits

    def with_local(self, table: pa.Table, shared: dict | None = None) -> pa.Table:
        """``table`` (event columns) plus the rule's row-local columns. ``shared`` holds
        the values computed for ``table`` by expression text: rules of one call that
        test the same condition compute it once."""
        n = table.num_rows
        if not self.local or n == 0:
            for name, *_ in self.local:
                table = table.append_column(name, pa.nulls(n))
            return table
        shared = {} if shared is None else shared
        rows = None
        for name, fn, vector, kind, text in self.local:
            found = shared.get(text)
            if found is None and vector is not None:
                try:
                    found = _vectorized(vector, table)
                except vd.NeedsScalar:
                    found = None  # the row function raises, positioned (ANSI: zero divisor)
            if found is None:
                if rows is None:
                    rows = list(zip(*(python_values(table.column(c)) for c in self.columns)))
                found = _array([fn(r) for r in rows], kind)
            shared[text] = found
            table = table.append_column(name, found)
        return table

    def carried(self) -> list[str]:
        return list(self.keys) if self.one_row else list(self.columns)

    def output(self, table: pa.Table, out: PartitionOutput, status: str) -> list[OutputRow]:
        """The output rows of ``out`` (rows of ``table``)."""
        return self.rows(table, out.rows, out.atoms, out.matched, status)

    def rows(
        self, table: Any, indices: Any, atoms: list[Any], matched: Any, status: str
    ) -> list[OutputRow]:
        count = len(indices)
        if count == 0:
            return []
        take = pa.array(np.asarray(indices, dtype=np.int64))
        keys = [python_values(table.column(k).take(take)) for k in self.keys]
        whole = None
        if not self.one_row:
            whole = [python_values(table.column(c).take(take)) for c in self.columns]
        values = [_pylist(a) for a in atoms]
        atom_rows = list(zip(*values)) if values else [()] * count
        flags = [True] * count if matched is None else list(matched)
        result = []
        for i in range(count):
            vals = atom_rows[i]
            keys_json = _object(self.keys, [k[i] for k in keys])
            row_json = None if whole is None else _object(self.columns, [c[i] for c in whole])
            shown = status
            if flags[i]:
                number = self.match_number(vals)
                measures = _object(
                    [a for a, _ in self.measures], [f(vals) for _, f in self.measures]
                )
            else:
                number, measures, shown = None, None, UNMATCHED_STATUS
            result.append(
                (self.rule_id, self.version, shown, number, keys_json, measures, row_json, None)
            )
        return result


def _vectorized(expr: vd.VExpr, table: pa.Table) -> pa.Array | None:
    """``expr`` over every row of ``table`` with NumPy, or None if it reads a column the
    array form does not cover (strings, say)."""
    arrays = {}
    for name in vd.columns_read({0: expr}):
        found = _numeric(table.column(name).combine_chunks())
        if found is None:
            return None
        arrays[name] = found
    rows = np.arange(table.num_rows, dtype=np.int64)
    bounds = (np.zeros_like(rows), np.full_like(rows, table.num_rows))
    threads = vd.Threads(0, rows, rows, vd.Columns(arrays), lambda: bounds)
    with np.errstate(all="ignore"):
        values, valid = vd.evaluate(expr, threads)
    values = np.broadcast_to(np.asarray(values), rows.shape)
    valid = np.broadcast_to(np.asarray(valid, dtype=bool), rows.shape)
    return pa.array(values, mask=~valid)


def key_set(keys: Sequence[str]) -> tuple[str, ...]:
    """A PARTITION BY column set as compared with another: without case or order
    (``PARTITION BY g, k`` partitions as ``KEYS (k, g)`` does)."""
    return tuple(sorted(k.lower() for k in keys))


def distinct_key_sets(key_sets: Sequence[Sequence[str]]) -> list[tuple[str, ...]]:
    """``key_sets`` without a set that repeats one before it (see :func:`key_set`)."""
    first: dict[tuple[str, ...], tuple[str, ...]] = {}
    for keys in key_sets:
        first.setdefault(key_set(keys), tuple(keys))
    return list(first.values())


def error_row(rule_id: str, version: int, err: BaseException, keys: str | None = None) -> OutputRow:
    """The output row that reports a rule that does not compile, or one that raised
    while it ran (``keys``: the JSON of the partition it raised on, if known)."""
    text = err.render() if isinstance(err, MatchRecognizeError) else f"{type(err).__name__}: {err}"
    return (rule_id, version, ERROR_STATUS, None, keys, None, None, text)


def run_batch_isolated(
    rule: RuleProgram,
    table: pa.Table,
    start: int | None,
    end: int | None,
    sorted_by: dict | None = None,
) -> list[OutputRow]:
    """:func:`run_batch`, where a run-time error (Spark's ANSI errors: a zero divisor,
    an overflow) stops the rule on the partition that raised it only: that partition
    gives one ERROR row naming its keys, the others their matches. The partitions run
    together first; one at a time only after an error. A fault of matchrec's own (what
    raises that is no MatchRuntimeError) is one ERROR row for the rule."""
    try:
        return run_batch(rule, table, start, end, sorted_by)
    except MatchRuntimeError:
        pass
    except Exception as err:  # matchrec's own fault: one ERROR row, not one per partition
        return [error_row(rule.rule_id, rule.version, rule_fault(err))]
    ordered = sort_rows(table, rule.keys, rule.order)
    edges = [0, *group_starts(ordered, rule.keys), ordered.num_rows]
    result: list[OutputRow] = []
    for low, high in zip(edges, edges[1:]):
        part = ordered.slice(low, high - low)
        try:
            result += run_batch(rule, part, start, end)
        except Exception as err:
            keys = _object(rule.keys, [key_value(part.column(k), 0) for k in rule.keys])
            result.append(error_row(rule.rule_id, rule.version, rule_fault(err), keys))
    return result


def run_batch_failing(
    rule: RuleProgram,
    table: pa.Table,
    start: int | None,
    end: int | None,
    sorted_by: dict | None = None,
) -> list[OutputRow]:
    """:func:`run_batch` for ``ON ERROR FAIL``: what raises fails the query, told as
    :func:`rule_fault` tells it."""
    try:
        return run_batch(rule, table, start, end, sorted_by)
    except MatchRuntimeError:
        raise
    except Exception as err:
        raise rule_fault(err) from err


def rule_fault(err: Exception) -> MatchRuntimeError:
    """``err``, raised while a rule ran, as the error its ERROR row reports: a
    MatchRuntimeError as it is; anything else is matchrec's own fault, which must stop
    only that rule, never the rules that run beside it (``ON ERROR SKIP``)."""
    if isinstance(err, MatchRuntimeError):
        return err
    return MatchRuntimeError(
        f"matchrec could not run this rule here: {type(err).__name__}: {err}",
        hint="a fault of matchrec's, not of the rule: please report it with the rule's "
        "text; the other rules ran",
    )


# --------------------------------------------------------------------------- batch


def run_batch(
    rule: RuleProgram,
    table: pa.Table,
    start: int | None,
    end: int | None,
    sorted_by: dict | None = None,
) -> list[OutputRow]:
    """Match ``rule`` over complete partitions of events in ``table`` (any order), on
    the rows whose first ORDER BY value is in ``[start, end)`` (None: unbounded).
    ``sorted_by`` keeps ``table`` sorted per (keys, order) for the next rules of a call,
    with the row-local values computed on it: rules that partition and order alike share
    one sort, and a condition that several of them test is computed once."""
    key = (tuple(rule.keys), tuple(rule.order))
    sorted_by = {} if sorted_by is None else sorted_by
    if key not in sorted_by:
        sorted_by[key] = (sort_rows(table, rule.keys, rule.order), {})
    ordered, shared = sorted_by[key]
    if start is None and end is None:
        # row-local conditions over all rows of the sort, shared by the rules that test them
        table = rule.with_local(ordered, shared)
    else:  # only the rows of the version's time (elsewhere they could raise under ANSI)
        table = ordered.filter(_in_window(ordered.column(rule.order[0][0]), start, end))
        table = rule.with_local(table)
    if table.num_rows == 0:
        return []
    edges = [0, *group_starts(table, rule.keys), table.num_rows]
    bounds = list(zip(edges, edges[1:]))
    if rule.timeouts:
        return _timeouts(rule, table, bounds)
    program, table = _as_bits(rule, table, bounds)
    cols = ArrowColumns(table)
    together = run_groups(program, cols, bounds)
    if together is not None:
        return rule.output(table, together, MATCHED_STATUS)
    result: list[OutputRow] = []
    for low, high in bounds:
        part = table.slice(low, high - low)
        result += rule.output(
            part, run_partition(program, ArrowColumns(part), high - low), MATCHED_STATUS
        )
    return result


def _as_bits(
    rule: RuleProgram, table: pa.Table, bounds: list[tuple[int, int]]
) -> tuple[PartitionProgram, pa.Table]:
    """A program whose DEFINE glue depends only on the row and its physical neighbours
    (``PREV(price)``: what Spark's LAG computes for a plain MATCH_RECOGNIZE) with every
    verdict computed up front as array expressions over all rows: label bits, so the DFA
    scan runs instead of a Python evaluation per row. Otherwise the rule's program."""
    program = rule.program
    glue = program.vector_defines
    if not glue or not program.history_free or not _row_relative(glue.values()):
        return program, table
    arrays = {}
    for name in vd.columns_read(glue):
        found = _numeric(table.column(name).combine_chunks())
        if found is None:
            return program, table
        arrays[name] = found
    n = table.num_rows
    sizes = [high - low for low, high in bounds]
    lows = np.repeat(np.array([low for low, _ in bounds], dtype=np.int64), sizes)
    highs = np.repeat(np.array([high for _, high in bounds], dtype=np.int64), sizes)
    rows = np.arange(n, dtype=np.int64)
    columns = vd.Columns(arrays)
    defines = dict(program.defines)
    for label, expr in glue.items():
        local, _ = program.defines[label]
        threads = vd.Threads(label, rows, rows, columns, lambda: (lows, highs))
        try:
            bits = vd.verdict(expr, threads)
        except vd.NeedsScalar:
            return program, table  # the scalar matcher decides (and raises if it must)
        if local is not None:
            bits = bits & label_bits(ArrowColumns(table), local)
        name = f"__mr_bits{label}"
        table = table.append_column(name, pa.array(bits))
        defines[label] = (name, None)
    if rule._bits is None:  # kept: its DFA is built once
        rule._bits = dataclasses.replace(program, defines=defines, vector_defines=None)
    return rule._bits, table


def _row_relative(exprs: Any) -> bool:
    """Whether every navigation reads the current row or its physical neighbours."""
    for expr in exprs:
        for node in vd._walk(expr):
            if isinstance(node, vd.Agg):
                return False
            if isinstance(node, vd.Nav) and (node.labels is not None or not node.from_end):
                return False
    return True


def _timeouts(rule: RuleProgram, table: pa.Table, bounds: list[tuple[int, int]]) -> list[OutputRow]:
    """WITH TIMEOUTS: each partition as a stream would see it at its end."""
    program = rule.program
    result: list[OutputRow] = []
    for low, high in bounds:
        part = table.slice(low, high - low)
        ticks, _, per_second = _ticks(part.column(program.within_column).combine_chunks())
        done = step(
            program,
            ArrowColumns(part),
            part.num_rows,
            Cursor(),
            final=True,
            timeouts=True,
            within_ticks=(ticks, float(program.within_seconds or 0) * per_second),
        )
        for out, status in ((done.output, MATCHED_STATUS), (done.timeouts, TIMEOUT_STATUS)):
            if out is not None:
                result += rule.output(part, out, status)
    return result


def sort_rows(table: pa.Table, keys: list[str], order: list[tuple[str, bool, bool]]) -> pa.Table:
    """``table`` sorted by ``keys`` then ``order`` (NULLs placed per ORDER BY key)."""
    rows = partition_order(table, keys, order)
    return table if rows is None else table.take(rows)


def _midnights(days: np.ndarray, zone: tzinfo | None) -> np.ndarray:
    """Days since the epoch (NaN: NULL) as the microseconds of their midnight in
    ``zone`` (UTC when None)."""
    micros = days * 86_400_000_000
    if zone is None:
        return micros
    for day in np.unique(days[~np.isnan(days)]):
        local = datetime.combine(date(1970, 1, 1) + timedelta(days=int(day)), time(0))
        offset = local.replace(tzinfo=zone).utcoffset() or timedelta(0)
        micros[days == day] -= offset // timedelta(microseconds=1)
    return micros


def _in_window(values: pa.ChunkedArray, start: int | None, end: int | None) -> pa.Array:
    micros = _micros(values)
    keep = np.ones(len(micros), dtype=bool)
    valid = ~np.isnan(micros)
    if start is not None:
        keep &= valid & (micros >= start)
    if end is not None:
        keep &= valid & (micros < end)
    return pa.array(keep)


def _micros(values: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """A timestamp or date column as float microseconds since the epoch (NaN: NULL); a
    date is its midnight in the session time zone, as Spark casts it to compare it with
    a version's active_from."""
    array = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    if pa.types.is_date(array.type):
        days = pc.fill_null(array.cast(pa.date32()).cast(pa.int32()).cast(pa.float64()), math.nan)
        return _midnights(days.to_numpy(), session_zone())
    array = array.cast(pa.timestamp("us", tz=array.type.tz)).cast(pa.int64())
    return pc.fill_null(array.cast(pa.float64()), math.nan).to_numpy()


# --------------------------------------------------------------------------- stream


@dataclass
class Version:
    """One rule version in a stream bucket: the event times it covers and its state."""

    rule_id: str
    version: int
    spec: str
    start: int | None
    end: int | None
    blob: bytes | None = None  # its KeyedStream state
    #: the keys (JSON objects, as ERROR rows show them) it raised on: it stopped there
    stopped: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        names = ("rule_id", "version", "spec", "start", "end", "stopped")
        return {k: getattr(self, k) for k in names}


Compile = Callable[[str, int, str, int | None], RuleProgram]


@dataclass
class RuleBucket:
    """The state of one stream bucket under MATCH_RECOGNIZE_DYNAMIC: the events the
    watermark has not passed (held once for all rules), the versions in force and each
    version's matcher state. Rule rows arrive through the stream itself, so every bucket
    sees the same rules in the same micro-batch and a replay sees them again."""

    keys: list[str]  # the bucket's PARTITION BY column set
    buckets: int
    reports_errors: bool  # the one bucket that outputs ERROR rows
    versions: list[Version] = field(default_factory=list)
    latest: dict[str, int] = field(default_factory=dict)  # rule -> highest version seen
    #: broken versions already told of by an ERROR row (a static table's rows come again
    #: on every call: each is told once over the query's life, restarts included)
    reported: set[tuple[str, int]] = field(default_factory=set)
    pending: pa.Table | None = None
    watermark: int | None = None  # the latest watermark advanced to (late rows: at or behind)
    timer: int | None = None  # the event-time timer (ms) its processor registered

    # ------------------------------------------------------------------ state I/O

    @classmethod
    def load(cls, keys: list[str], buckets: int, reports: bool, blob: bytes | None) -> RuleBucket:
        bucket = cls(keys, buckets, reports)
        if not blob:
            return bucket
        parts = pa.ipc.open_stream(io.BytesIO(blob)).read_all()
        names = parts.column("part").to_pylist()
        blobs = parts.column("blob").to_pylist()
        meta = json.loads(blobs[names.index("meta")])
        bucket.latest = meta["latest"]
        bucket.watermark = meta.get("watermark")
        bucket.timer = meta.get("timer")
        bucket.reported = {(r, v) for r, v in meta.get("reported", [])}
        bucket.versions = [Version(**v) for v in meta["versions"]]
        for v, i in zip(bucket.versions, range(len(bucket.versions))):
            name = f"v{i}"
            v.blob = blobs[names.index(name)] if name in names else None
        if "pending" in names:
            bucket.pending = pa.ipc.open_stream(
                io.BytesIO(blobs[names.index("pending")])
            ).read_all()
        return bucket

    def save(self) -> bytes:
        parts = [
            (
                "meta",
                json.dumps(
                    {
                        "latest": self.latest,
                        "versions": [v.as_dict() for v in self.versions],
                        "watermark": self.watermark,
                        "timer": self.timer,
                        "reported": sorted(self.reported),
                    }
                ).encode(),
            )
        ]
        parts += [(f"v{i}", v.blob) for i, v in enumerate(self.versions) if v.blob]
        if self.pending is not None and self.pending.num_rows:
            sink = io.BytesIO()
            with pa.ipc.new_stream(sink, self.pending.schema) as writer:
                writer.write_table(self.pending)
            parts.append(("pending", sink.getvalue()))
        schema = pa.schema([("part", pa.string()), ("blob", pa.binary())])
        sink = io.BytesIO()
        with pa.ipc.new_stream(sink, schema) as writer:
            writer.write_table(
                pa.table(
                    {"part": [p for p, _ in parts], "blob": [b for _, b in parts]}, schema=schema
                )
            )
        return sink.getvalue()

    def drop_late(self, events: pa.Table) -> tuple[pa.Table, int]:
        """:func:`~matchrec.keyed_stream.drop_late` by the latest watermark this bucket
        advanced to."""
        return drop_late(events, self.watermark)

    @property
    def idle(self) -> bool:
        return not self.versions and not self.latest and self.pending is None

    # ------------------------------------------------------------------ advancing

    def add_rules(
        self,
        rules: list[tuple[str, int, str, int | None, bool]],
        watermark: int | None,
        compile_rule: Compile,
        skip_errors: bool = True,
    ) -> list[OutputRow]:
        """Apply rule rows ``(rule_id, version, spec, active_from, enabled)`` that arrived
        now; a version activates at the later of its active_from and the watermark (never
        retroactively). Returns ERROR rows for rules that do not compile, or raises the
        first one's error, naming the rule, unless ``skip_errors`` (ON ERROR FAIL)."""
        errors: list[OutputRow] = []
        for rule_id, version, spec, active_from, enabled in sorted(rules, key=lambda r: r[1]):
            if version <= self.latest.get(rule_id, -(2**31)):
                continue  # an older or repeated version: the newer one stands
            mine = False
            if enabled:
                try:
                    rule = compile_rule(spec, version, rule_id, active_from)
                except MatchRecognizeError as err:
                    if not skip_errors:
                        raise type(err)(
                            f"rule {rule_id!r} version {version}: {err.message}",
                            sql=err.sql,
                            pos=err.pos,
                            hint=err.hint,
                        ) from None
                    if self.reports_errors and (rule_id, version) not in self.reported:
                        errors.append(error_row(rule_id, version, err))
                        self.reported.add((rule_id, version))
                    continue  # a broken version is as if absent: the one before runs on
                mine = key_set(rule.keys) == key_set(self.keys)
            self.latest[rule_id] = version
            start = _later(active_from, watermark)
            for v in self.versions:
                if v.rule_id == rule_id and (v.end is None or start is None or start < v.end):
                    v.end = start
            if mine:  # this bucket's key set: the version runs here
                self.versions.append(Version(rule_id, version, spec, start, None))
        return errors

    def add_static(
        self,
        rules: list[tuple[str, int, str, int | None, bool]],
        watermark: int | None,
        compile_rule: Compile,
    ) -> list[OutputRow]:
        """Apply the rows of a static rule table, read when the query (re)started, on
        every call: versions the state already holds are skipped, so a version added to
        the table before a restart from the checkpoint (a new rule, a change, a deletion
        by ``enabled = false``) activates at the watermark, never retroactively; on the
        bucket's first call, with no state, each activates at its active_from."""
        return self.add_rules(rules, watermark if self.latest else None, compile_rule)

    def advance(
        self,
        events: pa.Table | None,
        watermark: int | None,
        compile_rule: Compile,
        skip_errors: bool = True,
    ) -> tuple[list[OutputRow], int | None]:
        """Add events, route those the watermark passed to each version covering their
        time, match, and close versions whose end the watermark passed. Returns the output
        rows and the event time to be woken at. A version that raises while it runs (an
        ANSI error of Spark's: a zero divisor, an overflow) stops on the keys that raise,
        with an ERROR row each, when ``skip_errors``, else the error propagates (ON ERROR
        FAIL)."""
        if events is not None and events.num_rows:
            self.pending = events if self.pending is None else concat_held(self.pending, events)
        if watermark is not None and (self.watermark is None or watermark > self.watermark):
            self.watermark = watermark
        ready = None
        if self.pending is not None and watermark is not None:
            times = self.pending.column(EVENT_MICROS).to_numpy()
            final = times < watermark
            if final.any():
                ready = self.pending.filter(pa.array(final))
                rest = self.pending.filter(pa.array(~final))
                self.pending = rest if rest.num_rows else None
        out: list[OutputRow] = []
        wake: int | None = None
        kept: list[Version] = []
        shared: dict = {}  # row-local values of ``ready`` by expression text
        for v in self.versions:
            rule = compile_rule(v.spec, v.version, v.rule_id, v.start)
            spec = StreamSpec(
                program=rule.program,
                keys=rule.keys,
                order=rule.order,
                carried=rule.carried(),
                atom_types=[None] * len(rule.program.atoms),
                buckets=self.buckets,
                timeouts=rule.timeouts,
            )
            stream = KeyedStream.load(spec, v.blob)
            mine = _without_keys(ready, rule.keys, set(v.stopped)) if v.stopped else ready
            try:
                # row-local values shared by versions are those of every ready row
                common = shared if mine is ready else {}
                found, done, finished = self._run_version(v, rule, stream, mine, watermark, common)
            except Exception as err:
                if not skip_errors and isinstance(err, MatchRuntimeError):
                    raise
                if not skip_errors:
                    raise rule_fault(err) from err
                isolated = (
                    self._isolated(v, rule, KeyedStream.load(spec, v.blob), mine, watermark)
                    if isinstance(err, MatchRuntimeError)
                    else None  # matchrec's own fault: the version stops
                )
                if isolated is None:
                    out.append(error_row(v.rule_id, v.version, rule_fault(err)))
                    continue  # the version stops here: its held searches would miss rows
                errors, stream, (found, done, finished) = isolated
                out += errors
            out += found
            if finished is not None:
                continue  # the version is over: its partial matches end with it
            v.blob = stream.save() if (stream.held_rows or stream.cursors) else None
            kept.append(v)
            if done.wake_micros is not None:
                wake = done.wake_micros if wake is None else min(wake, done.wake_micros)
            if v.end is not None:
                wake = v.end + 1 if wake is None else min(wake, v.end + 1)
        self.versions = kept
        if self.pending is not None:
            first = int(pc.min(self.pending.column(EVENT_MICROS)).as_py()) + 1
            wake = first if wake is None else min(wake, first)
        return out, wake

    @classmethod
    def _run_version(
        cls,
        v: Version,
        rule: RuleProgram,
        stream: KeyedStream,
        ready: pa.Table | None,
        watermark: int | None,
        shared: dict,
    ) -> tuple[list[OutputRow], Any, Any]:
        """Advance one version (:meth:`_advance_version`) and compute its output rows:
        the measures are computed here, so their run-time errors are raised here too."""
        done, finished = cls._advance_version(v, rule, stream, ready, watermark, shared)
        found = _stream_rows(rule, done.batches)
        if finished is not None:
            found += _stream_rows(rule, finished.batches)
        return found, done, finished

    @classmethod
    def _isolated(
        cls,
        v: Version,
        rule: RuleProgram,
        stream: KeyedStream,
        ready: pa.Table | None,
        watermark: int | None,
    ) -> tuple[list[OutputRow], KeyedStream, tuple] | None:
        """After a version raised in this bucket (``stream``: its state before), each key
        advanced alone finds the keys that raise; the version stops on those (one ERROR row
        each, naming the key, as a batch query's partition) and advances on the others.
        Returns the ERROR rows, the others' state and their advance; None when no key
        raises alone (then the version stops in the whole bucket)."""
        keys = rule.keys
        rows_of: dict[tuple, list[int]] = {}
        if ready is not None:
            for i, key in enumerate(key_tuples(ready, keys)):
                rows_of.setdefault(key, []).append(i)
        raised: dict[tuple, MatchRuntimeError] = {}
        for key in dict.fromkeys([*stream.held_keys(), *rows_of]):
            part = None if key not in rows_of else ready.take(pa.array(rows_of[key]))
            try:
                cls._run_version(v, rule, stream.restricted([key]), part, watermark, {})
            except Exception as err:
                raised[key] = rule_fault(err)
        if not raised:
            return None
        stopped = [_object(keys, list(key)) for key in raised]
        rest = stream.restricted(raised, keep=False)
        others = None if ready is None else _without_keys(ready, keys, set(stopped))
        try:
            advanced = cls._run_version(v, rule, rest, others, watermark, {})
        except Exception:
            return None
        v.stopped = [*v.stopped, *stopped]
        errors = [
            error_row(v.rule_id, v.version, err, text)
            for text, err in zip(stopped, raised.values())
        ]
        return errors, rest, advanced

    @staticmethod
    def _advance_version(
        v: Version,
        rule: RuleProgram,
        stream: KeyedStream,
        ready: pa.Table | None,
        watermark: int | None,
        shared: dict,
    ) -> tuple[Any, Any]:
        """Advance one version's matcher over the ready rows of its time; the second
        value is its final output when the watermark passed its end, else None."""
        rows = None
        if ready is not None:
            times = ready.column(EVENT_MICROS).to_numpy()
            inside = np.ones(len(times), dtype=bool)
            if v.start is not None:
                inside &= times >= v.start
            if v.end is not None:
                inside &= times < v.end
            if inside.all():  # the common case: versions share row-local values
                rows = rule.with_local(ready, shared)
            elif inside.any():
                rows = rule.with_local(ready.filter(pa.array(inside)))
        done = stream.advance(rows, watermark)
        if v.end is not None and watermark is not None and v.end <= watermark:
            return done, stream.finish()
        return done, None


def _without_keys(table: pa.Table | None, keys: list[str], stopped: set[str]) -> pa.Table | None:
    """``table``'s rows but those whose key (as JSON, :func:`_object`) is ``stopped``."""
    if table is None:
        return None
    tuples = key_tuples(table, keys)
    texts = {key: _object(keys, list(key)) for key in dict.fromkeys(tuples)}
    if stopped.isdisjoint(texts.values()):
        return table
    kept = [texts[key] not in stopped for key in tuples]
    return table.filter(pa.array(kept, type=pa.bool_()))


def _stream_rows(rule: RuleProgram, batches: list[pa.RecordBatch]) -> list[OutputRow]:
    result: list[OutputRow] = []
    for batch in batches:
        table = pa.Table.from_batches([batch])
        names = table.column_names
        atoms = [table.column(n) for n in names if n.startswith("__mr_a")]
        matched = table.column(MATCHED).to_pylist()
        statuses = (
            table.column(STATUS).to_pylist() if STATUS in names else [MATCHED_STATUS] * len(table)
        )
        for status in dict.fromkeys(statuses):
            picked = np.flatnonzero(np.array(statuses) == status)
            result += rule.rows(
                table,
                picked,
                [a.take(pa.array(picked)) for a in atoms],
                [matched[i] for i in picked],
                status,
            )
    return result


def _later(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b)


# --------------------------------------------------------------------------- JSON


def _pylist(values: Any) -> list[Any]:
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        return python_values(values)
    if hasattr(values, "tolist"):
        return values.tolist()
    return list(values)


def _array(values: list[Any], kind: pa.DataType | None = None) -> pa.Array:
    """A row-local column's values as Arrow, of Spark's type ``kind`` where it holds them
    (a MAP is no struct, whatever its keys; an empty array has its element type), else
    of the type Arrow guesses (numbers of mixed kinds as doubles)."""
    if any(isinstance(v, (tuple, list)) for v in values):
        values = [_arrow_value(v) for v in values]
    if kind is not None:
        try:
            return arrow_array(values, kind)
        except (pa.ArrowException, TypeError, ValueError):
            pass
    return inferred_array(values)


def _arrow_value(value: Any) -> Any:
    """A row function's value as Arrow takes it: a struct the glue built (a tuple that
    knows its field names, ``named_struct('x', s, 'y', v)``) as a dict of its fields, at
    any depth (as a tuple, Arrow reads it as a list of one type)."""
    if hasattr(value, "asDict"):
        return {k: _arrow_value(v) for k, v in value.asDict().items()}
    if isinstance(value, list):
        return [_arrow_value(v) for v in value]
    return value


def _object(names: Sequence[str], values: Sequence[Any]) -> str:
    return "{" + ",".join(f"{json.dumps(n)}:{to_json(v)}" for n, v in zip(names, values)) + "}"


def to_json(value: Any) -> str:
    """A SQL value as JSON text for ``parse_json``: numbers stay numbers (decimals keep
    their digits, a DOUBLE is written with an exponent, which parse_json reads as a
    DOUBLE, not a DECIMAL that drops the sign of -0.0; an infinity as a DOUBLE too large,
    which it reads as one; NaN, which JSON cannot write, as Spark's text of it), times are
    ISO text (``measures:t::timestamp`` reads them back), a TIMESTAMP at its offset in the
    session zone (its date part is the session's date of it, as ``::date`` reads it),
    BINARY its base64 text."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return '"NaN"'
        if math.isinf(value):
            return "1e999" if value > 0 else "-1e999"
        text = json.dumps(value)  # with an exponent, parse_json keeps a DOUBLE (and -0.0)
        return text if "e" in text else text + "e0"
    if isinstance(value, Decimal):
        return str(value) if value.is_finite() else json.dumps(str(value))
    if isinstance(value, datetime):
        zone = session_zone()
        if value.tzinfo is not None and zone is not None:
            value = value.astimezone(zone)
        return json.dumps(value.isoformat(sep=" "))
    if isinstance(value, (date, time)):
        return json.dumps(value.isoformat())
    if isinstance(value, FarDate):
        return json.dumps(str(value))
    if isinstance(value, FarTimestamp):  # at its offset, as a TIMESTAMP above
        return json.dumps(str(value) + value.offset_text())
    if isinstance(value, (bytes, bytearray)):
        return json.dumps(base64.b64encode(value).decode())
    if isinstance(value, dict):
        return _object([str(k) for k in value], list(value.values()))
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(to_json(v) for v in value) + "]"
    if isinstance(value, str):  # parse_json reads text: bytes that are no UTF-8 as U+FFFD
        return json.dumps(java_text(value))
    return json.dumps(str(value))
