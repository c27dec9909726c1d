"""MATCH_RECOGNIZE_DYNAMIC on Spark: many rules from a table, batch and stream.

Shape of the job. The events are shuffled once per PARTITION BY column set (``KEYS``):
each event goes to a bucket (a hash of its keys for that set, modulo
``spark.matchrec.stream.buckets``), every rule of that set runs in the bucket's Python
call, so N rules cost one shuffle per key set, not N queries. Rules are compiled by
``planner.rules`` and run by ``matchrec.rule_set`` (their expressions on matchrec's
evaluator: a rule can change while a stream runs, when Spark's plan is already fixed).

* Batch: the rule table is read once; each version covers the event times from its
  ``active_from`` to the next version's (``planner.rules.schedule``); ``groupBy(bucket)
  .applyInArrow`` matches complete partitions with the batch engine.
* Stream: events and rules flow through one stateful processor per bucket
  (``transformWithStateInPandas``, event time). A rule table that is itself a stream is
  unioned with the events and copied to every bucket, so every task of a micro-batch
  applies the same rules, a replayed micro-batch sees the same rule rows (their offsets
  are in Spark's checkpoint), and a version activates at the later of its ``active_from``
  and the watermark when it arrived: never retroactively. A static rule table is read
  when the query starts.

The output has one schema for every rule: ``rule_id, rule_version, status,
match_number, keys, measures, row, error``, with keys, measures and the ALL ROWS PER
MATCH input row as VARIANT objects (``measures:big::double``).
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import astuple
from typing import Any

import pandas as pd
import pyarrow as pa
from matchrec.planner.plan import quote
from matchrec.planner.rules import (
    COLLATED,
    RuleRow,
    compile_rule,
    first_order_column,
    schedule,
    table_problems,
    unnamed,
)
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.streaming import StatefulProcessor, StatefulProcessorHandle
from pyspark.sql.types import (
    BinaryType,
    BooleanType,
    DateType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampNTZType,
    TimestampType,
)

from matchrec.arrow_packing import PACKED, unpack
from matchrec.errors import (
    ARBITRARY_ORDER,
    ArbitraryOrderWarning,
    MatchRecognizeError,
    SemanticError,
    UsageError,
)
from matchrec.function_settings import use_settings
from matchrec.keyed_stream import EVENT_MICROS
from matchrec.rule_set import (
    OUTPUT_FIELDS,
    RuleBucket,
    RuleProgram,
    distinct_key_sets,
    error_row,
    key_set,
    run_batch_failing,
    run_batch_isolated,
)
from matchrec.zones import use_zone

from .arrow_safe import refuse_uncarried
from .cluster import check, ship
from .collated_keys import collated_anywhere
from .processor_pickle import ShippedProcessor
from .session import ansi_enabled, count_setting, function_settings
from .streaming import (
    BUCKETS_CONF,
    DEFAULT_BUCKETS,
    ROCKSDB,
    STATE_STORE_CONF,
    SettledBuckets,
    bucket_of,
    late_frame,
    move_timer,
    output_frame,
    packed_by_bucket,
    run_buckets,
    watermark_column,
)
from .udtf import to_sqlglot_type

BUCKET = "__mr_bucket"
KIND = "__mr_kind"
RULE_PREFIX = "__mr_rule_"
_REQUIRED = {"rule_id", "version", "spec"}
_OPTIONAL = {"active_from", "enabled"}
_RAW_SCHEMA = StructType(
    [
        StructField(name, {"INT": IntegerType(), "BIGINT": LongType()}.get(t, StringType()), True)
        for name, t in OUTPUT_FIELDS
    ]
)


class RuleError(MatchRecognizeError):
    """A rule of MATCH_RECOGNIZE_DYNAMIC does not compile (with ON ERROR FAIL)."""

    kind = "rule error"


def match_recognize_dynamic(
    df: DataFrame,
    rules: DataFrame,
    *,
    keys: list[list[str]] | None = None,
    on_error: str = "skip",
    sql: str | None = None,
    pos: int | None = None,
) -> DataFrame:
    """Apply every rule of ``rules`` (columns ``rule_id, version, spec[, active_from]
    [, enabled]``) to ``df``; see the module docstring. ``keys``: the PARTITION BY column
    sets rules may use (required when ``rules`` is a stream). ``sql``/``pos`` locate the
    clause for errors when it came from SQL."""
    from .arguments import check_argument
    from .worker_errors import install

    check_argument("match_recognize_dynamic", "df", df, DataFrame)
    check_argument("match_recognize_dynamic", "rules", rules, DataFrame)
    if not sql:  # called from Python: no SQL text to point into
        sql, pos = None, None
    if isinstance(keys, (str, tuple)) or any(isinstance(k, str) for k in keys or []):
        raise UsageError(
            f"keys must be a list of column lists, e.g. [['card'], ['merchant']], not {keys!r}",
            hint="each inner list is one PARTITION BY column set the rules may use",
        )
    install()  # a failing rule's error in a worker: raised as matchrec's (on_error="fail")
    if on_error not in ("skip", "fail"):
        raise UsageError(
            f"on_error must be 'skip' or 'fail', not {on_error!r}",
            hint="'skip': a broken rule is an ERROR row; 'fail': it fails the query",
        )
    _check_rule_columns(rules, sql, pos)
    refuse_uncarried(
        df.schema,
        "event",
        sql,
        pos,
        to="the Python that runs the rules",
        hint="select it as a number of months, CAST(CAST(x AS INTERVAL YEAR TO MONTH) AS "
        "INT) AS x, or leave it out of the events",
    )
    key_sets = None if keys is None else [tuple(_column(df, k, sql, pos) for k in s) for s in keys]
    if rules.isStreaming and not df.isStreaming:
        raise SemanticError(
            "the rules are a stream but the events are not",
            sql=sql,
            pos=pos,
            hint="read the rules as a batch table (spark.read), or the events as a stream",
        )
    if rules.isStreaming and key_sets is None:
        raise SemanticError(
            "rules that arrive as a stream need KEYS: the PARTITION BY column sets they may "
            "use must be known when the query starts (Spark cannot add a shuffle to a "
            "running query)",
            sql=sql,
            pos=pos,
            hint="write KEYS (card), (merchant) after RULES FROM ..., or keys=[['card'], "
            "['merchant']] in Python",
        )
    static, problems = ([], []) if rules.isStreaming else table_problems(_collect(rules))
    event_time = None
    if df.isStreaming:
        event_time = watermark_column(df, _ordered_by(static))
        if event_time is None:
            raise SemanticError(
                "MATCH_RECOGNIZE_DYNAMIC on a stream needs an event-time column with a watermark",
                sql=sql,
                pos=pos,
                hint='set one on the input, e.g. df.withWatermark("ts", "1 minute")',
            )
    types = {f.name: to_sqlglot_type(f.dataType) for f in df.schema.fields}
    for f in df.schema.fields:  # (sqlglot has no collations: a rule's key check reads this)
        if collated_anywhere(f.dataType):
            types[f.name].meta[COLLATED] = f.dataType.simpleString().upper()
    compiler = _Compiler(
        types,
        key_sets,
        event_time,
        ansi_enabled(df.sparkSession),
        skip_errors=on_error == "skip",
        zone=df.sparkSession.conf.get("spark.sql.session.timeZone"),
        settings=function_settings(df.sparkSession),
    )
    errors = []
    for row, why in problems:
        problem = SemanticError(why, hint=_TABLE_HINT)
        if on_error == "fail":
            raise RuleError(why, hint=_TABLE_HINT)
        warnings.warn(f"MATCH_RECOGNIZE_DYNAMIC skips a rule table row: {why}", stacklevel=2)
        errors.append(error_row(row.rule_id, row.version, problem))
    good: list[RuleRow] = []
    broken: list[RuleRow] = []  # on a stream, told by an ERROR row in its first batch
    for row in static:
        if not row.enabled:
            good.append(row)
            continue
        try:
            rule = compiler.compile(row)
        except MatchRecognizeError as err:
            if on_error == "fail":
                raise RuleError(
                    f"rule {row.rule_id!r} version {row.version}: {err.message}",
                    sql=row.spec,
                    pos=err.pos,
                    hint=err.hint,
                ) from None
            warnings.warn(
                f"MATCH_RECOGNIZE_DYNAMIC skips rule {row.rule_id!r} version {row.version}: "
                f"{err.message}",
                stacklevel=2,
            )
            errors.append(error_row(row.rule_id, row.version, err))
            broken.append(row)
            continue
        good.append(row)
        if not rule.order and not df.isStreaming:  # a stream refuses it when compiled
            warnings.warn(
                f"rule {row.rule_id!r} version {row.version} has no ORDER BY: {ARBITRARY_ORDER}",
                ArbitraryOrderWarning,
                stacklevel=2,
            )
        if key_sets is None:
            compiler.seen.add(tuple(rule.keys))
    key_sets = distinct_key_sets(sorted(compiler.seen) if key_sets is None else key_sets)
    buckets = count_setting(df.sparkSession, BUCKETS_CONF, DEFAULT_BUCKETS)
    ship(df.sparkSession)  # on a cluster: before the job's functions are built
    if df.isStreaming:
        raw = _stream(df, rules, good, broken, key_sets, buckets, compiler, event_time or "")
    else:
        raw = _batch(df, good, key_sets, buckets, compiler, errors)
    # on a cluster: the executors can run it (once per session)
    check(df.sparkSession, "stream" if df.isStreaming else "dynamic")
    return raw.selectExpr(
        "rule_id",
        "rule_version",
        "status",
        "match_number",
        "parse_json(keys) AS keys",
        "parse_json(measures) AS measures",
        "parse_json(`row`) AS `row`",
        "error",
    )


def _ordered_by(rows: list[RuleRow]) -> str | None:
    """The column most enabled rules ORDER BY first: of several columns a watermark
    marks (``SELECT ts AS copy, *``), the event time the rules mean."""
    firsts = Counter(first_order_column(row.spec) for row in rows if row.enabled)
    firsts.pop(None, None)
    return firsts.most_common(1)[0][0] if firsts else None


_TABLE_HINT = "give each rule row a rule_id and a version, and each change of a rule a new version"


class _Compiler:
    """Compiles rule rows against the event schema, once per process (picklable: the
    compiled rules are rebuilt from their text where they run). ``skip_errors`` (ON ERROR
    SKIP) goes with it to the workers: a rule that raises while it runs (an ANSI error)
    is an ERROR row there instead of failing the query."""

    def __init__(
        self,
        types: dict,
        key_sets: list[tuple[str, ...]] | None,
        event_time: str | None,
        ansi: bool = True,
        skip_errors: bool = True,
        zone: str | None = None,
        settings: Mapping[str, str] | None = None,
    ):
        self.types = types
        self.ansi = ansi
        self.zone = zone  # the session time zone: its rules' dates and patterns read it
        self.settings = settings  # the session's function settings, which the glue reads
        self.skip_errors = skip_errors
        self.key_sets = key_sets
        self.event_time = event_time
        self.seen: set[tuple[str, ...]] = set()
        self._cache: dict[tuple, RuleProgram] = {}

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_cache": {}}

    def compile(self, row: RuleRow) -> RuleProgram:
        key = (row.rule_id, row.version, row.spec, row.active_from is not None)
        found = self._cache.get(key)
        if found is None:
            if len(self._cache) > 4096:
                self._cache.clear()
            found = self._cache[key] = compile_rule(
                row, self.types, self.key_sets, self.event_time, self.ansi, self.zone
            )
        return found

    def __call__(self, spec: str, version: int, rule_id: str, active_from: int | None):
        return self.compile(RuleRow(rule_id, version, spec, active_from))


def _check_rule_columns(rules: DataFrame, sql: str | None, pos: int | None) -> None:
    names = {f.name.lower(): f for f in rules.schema.fields}
    missing = sorted(_REQUIRED - set(names))
    if missing:
        raise SemanticError(
            f"the rule table has no column {', '.join(missing)}",
            sql=sql,
            pos=pos,
            hint="a rule table has rule_id STRING, version INT, spec STRING and optionally "
            f"active_from TIMESTAMP, enabled BOOLEAN; it has {', '.join(rules.columns)}",
        )
    found = names.get("active_from")
    if found is not None and not isinstance(
        found.dataType, (TimestampType, TimestampNTZType, DateType)
    ):
        raise SemanticError(
            f"the rule table's active_from is {found.dataType.simpleString()}",
            sql=sql,
            pos=pos,
            hint="make it a TIMESTAMP (NULL: active from the beginning)",
        )
    found = names.get("enabled")
    if found is not None and not isinstance(found.dataType, BooleanType):
        # a STRING was cast: 'off' was NULL, and a NULL enabled is an enabled rule
        raise SemanticError(
            f"the rule table's enabled is {found.dataType.simpleString()}",
            sql=sql,
            pos=pos,
            hint="make it a BOOLEAN (false stops the rule; NULL: enabled)",
        )


def _column(df: DataFrame, name: str, sql: str | None, pos: int | None) -> str:
    for c in df.columns:
        if c.lower() == name.strip("`").lower():
            return c
    raise SemanticError(
        f"KEYS names {name!r}, which is not a column of the events",
        sql=sql,
        pos=pos,
        hint=f"columns: {', '.join(df.columns)}",
    )


def _rule_columns(rules: DataFrame) -> list[Any]:
    names = {c.lower() for c in rules.columns}
    return [
        F.col("rule_id").cast("string").alias("rule_id"),
        F.col("version").cast("int").alias("version"),
        F.col("spec").cast("string").alias("spec"),
        (
            F.unix_micros(F.col("active_from").cast("timestamp"))
            if "active_from" in names
            else F.lit(None).cast("long")
        ).alias("active_from"),
        (
            F.coalesce(F.col("enabled").cast("boolean"), F.lit(True))
            if "enabled" in names
            else F.lit(True)
        ).alias("enabled"),
    ]


def _collect(rules: DataFrame) -> list[RuleRow]:
    rows = rules.select(*_rule_columns(rules)).collect()
    return [
        RuleRow(r.rule_id, r.version, r.spec or "", r.active_from, bool(r.enabled)) for r in rows
    ]


def _bucket_of(keys: tuple[str, ...], buckets: int, offset: int) -> Any:
    return bucket_of(keys, buckets) + F.lit(offset)


# --------------------------------------------------------------------------- batch


def _batch(
    df: DataFrame,
    rows: list[RuleRow],
    key_sets: list[tuple[str, ...]],
    buckets: int,
    compiler: _Compiler,
    errors: list[tuple],
) -> DataFrame:
    spark = df.sparkSession
    plan = schedule(rows, broken=lambda r: False)
    outputs = []
    for keys in key_sets:
        mine = [
            (row, window)
            for row, window in plan
            if key_set(compiler.compile(row).keys) == key_set(keys)
        ]
        if not mine:
            continue
        grouped = df.withColumn(BUCKET, _bucket_of(keys, buckets if keys else 1, 0))
        run = _batch_runner(compiler, mine, list(df.columns))
        outputs.append(grouped.groupBy(BUCKET).applyInArrow(run, _RAW_SCHEMA))
    if errors or not outputs:
        outputs.append(spark.createDataFrame(errors, _RAW_SCHEMA))
    result = outputs[0]
    for other in outputs[1:]:
        result = result.unionByName(other)
    return result


def _batch_runner(compiler: _Compiler, plan: list, columns: list[str]):
    def run(table: pa.Table) -> pa.Table:
        use_zone(compiler.zone)  # the worker may have served another session
        use_settings(compiler.settings)
        table = table.select(columns)
        out: list[tuple] = []
        sorted_by: dict = {}  # rules that partition and order alike share one sort
        run_rule = run_batch_isolated if compiler.skip_errors else run_batch_failing
        for row, window in plan:
            out += run_rule(compiler.compile(row), table, window.start, window.end, sorted_by)
        return _table(out)

    return run


def _table(rows: list[tuple]) -> pa.Table:
    columns = list(zip(*rows)) if rows else [[] for _ in OUTPUT_FIELDS]
    types = [
        pa.int32() if t == "INT" else pa.int64() if t == "BIGINT" else pa.string()
        for _, t in OUTPUT_FIELDS
    ]
    return pa.table(
        [pa.array(list(c), type=t) for c, t in zip(columns, types)],
        names=[n for n, _ in OUTPUT_FIELDS],
    )


# --------------------------------------------------------------------------- stream


def _stream(
    df: DataFrame,
    rules: DataFrame,
    static: list[RuleRow],
    broken: list[RuleRow],
    key_sets: list[tuple[str, ...]],
    buckets: int,
    compiler: _Compiler,
    event_time: str,
) -> DataFrame:
    """The stream of ``df``'s matches of the rules, from stream ``rules`` or from the
    ``static`` rows of a static table; its ``broken`` rows (that do not compile) are
    ERROR rows of the first micro-batch, output once over the query's life."""
    spark = df.sparkSession
    if spark.conf.get(STATE_STORE_CONF, None) != ROCKSDB:
        spark.conf.set(STATE_STORE_CONF, ROCKSDB)
    event_columns = list(df.columns)
    total = len(key_sets) * buckets
    targets = F.array(*(_bucket_of(k, buckets, i * buckets) for i, k in enumerate(key_sets)))
    # the rule columns under names no event column has (an event may have a `version`)
    rule_fields = [
        ("rule_id", "string"),
        ("version", "int"),
        ("spec", "string"),
        ("active_from", "long"),
        ("enabled", "boolean"),
    ]
    rule_nulls = [F.lit(None).cast(t).alias(f"{RULE_PREFIX}{n}") for n, t in rule_fields]
    exploded = df.select(
        *(F.col(quote(c)) for c in event_columns),
        F.unix_micros(F.col(quote(event_time))).alias(EVENT_MICROS),
        F.explode(targets).alias(BUCKET),
    )
    # the events of a bucket travel packed, as in a streaming MATCH_RECOGNIZE; the rule
    # rows beside them as rows
    packed = packed_by_bucket(exploded)
    merged = packed.select(BUCKET, PACKED, F.lit("e").alias(KIND), *rule_nulls)
    if rules.isStreaming:
        rule_rows = rules.select(
            F.explode(F.sequence(F.lit(0), F.lit(total - 1)).cast("array<long>")).alias(BUCKET),
            F.lit(None).cast("binary").alias(PACKED),
            F.lit("r").alias(KIND),
            *(
                c.alias(f"{RULE_PREFIX}{name}")
                for c, (name, _) in zip(_rule_columns(rules), rule_fields)
            ),
        )
        merged = merged.unionByName(rule_rows)
    if broken:
        # bucket 0 tells of broken rules; it is called only for rows of its own, so
        # every packed batch sends it a marker too (a few rows per micro-batch)
        markers = packed.select(
            F.lit(0).cast("long").alias(BUCKET),
            F.lit(None).cast("binary").alias(PACKED),
            F.lit("m").alias(KIND),
            *rule_nulls,
        )
        merged = merged.unionByName(markers)
    processor = DynamicProcessor(compiler, key_sets, buckets, static, broken)
    return run_buckets(merged, processor, _RAW_SCHEMA)


class DynamicProcessor(ShippedProcessor, StatefulProcessor):
    """One bucket of one key set: its events (packed) and every rule, as a
    :class:`RuleBucket`. Late events are dropped here and counted on rows of their own."""

    def __init__(
        self,
        compiler: _Compiler,
        key_sets: list[tuple[str, ...]],
        buckets: int,
        static: list[RuleRow],
        broken: list[RuleRow],
    ):
        self.compiler = compiler
        self.key_sets = key_sets
        self.buckets = buckets
        self.static = [astuple(r) for r in static]
        #: a static table's rules that do not compile: bucket 0 tells of them, once
        self.broken = [astuple(r) for r in broken]

    def init(self, handle: StatefulProcessorHandle) -> None:
        self.handle = handle
        self.state = handle.getValueState("rules", StructType([StructField("blob", BinaryType())]))
        self.settled = SettledBuckets()

    def handleInputRows(self, key: Any, rows: Iterator[pd.DataFrame], timerValues: Any):
        frames = [pdf for pdf in rows if len(pdf)]
        pdf = pd.concat(frames, ignore_index=True) if frames else None
        watermark_ms = timerValues.getCurrentWatermarkInMs()
        yield from self._advance(int(key[0]), pdf, watermark_ms)
        self.settled.mark(key, watermark_ms)

    def handleExpiredTimer(self, key: Any, timerValues: Any, expiredTimerInfo: Any):
        watermark_ms = timerValues.getCurrentWatermarkInMs()
        if not self.settled.done(key, watermark_ms):
            yield from self._advance(int(key[0]), None, watermark_ms)

    def _advance(
        self, bucket_id: int, pdf: pd.DataFrame | None, watermark_ms: int
    ) -> Iterator[pd.DataFrame]:
        use_zone(self.compiler.zone)
        use_settings(self.compiler.settings)
        found = self.state.get()
        keys = list(self.key_sets[bucket_id // self.buckets])
        bucket = RuleBucket.load(keys, self.buckets, bucket_id == 0, found[0] if found else None)
        watermark = watermark_ms * 1000 if watermark_ms > 0 else None
        out: list[tuple] = []
        rules = self.static + (self.broken if bucket.reports_errors else [])
        if rules:
            out += bucket.add_static(rules, watermark, self.compiler)
        events, late = None, 0
        if pdf is not None:
            # by position (Spark may rename a stateful processor's input columns):
            # bucket, packed events, kind, then the five rule columns
            kinds = pdf.iloc[:, 2].to_numpy()
            rule_part = pdf[kinds == "r"].iloc[:, 3:8]
            rule_rows = []
            for r in rule_part.itertuples(index=False, name=None):
                version = None if pd.isna(r[1]) else int(r[1])
                why = unnamed(r[0], version)
                if why is None:
                    active = None if pd.isna(r[3]) else int(r[3])
                    rule_rows.append((str(r[0]), version, str(r[2] or ""), active, bool(r[4])))
                elif not self.compiler.skip_errors:
                    raise RuleError(why, hint=_TABLE_HINT)
                elif bucket.reports_errors:
                    out.append(error_row(r[0], version, SemanticError(why, hint=_TABLE_HINT)))
            if rule_rows:
                out += bucket.add_rules(
                    rule_rows, watermark, self.compiler, self.compiler.skip_errors
                )
            events = unpack(pdf[kinds == "e"].iloc[:, 1])
            if events is not None:
                events, late = bucket.drop_late(events)
        done, wake = bucket.advance(events, watermark, self.compiler, self.compiler.skip_errors)
        out += done
        bucket.timer = move_timer(self.handle, bucket.timer, wake, watermark_ms)
        self.state.update((bucket.save(),))
        if out:
            yield output_frame(_table(out))
        if late:
            yield late_frame(late)
