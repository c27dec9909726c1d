"""Stream = batch over the shared conformance suite.

Every query of ``../shared/conformance/standard`` with one MATCH_RECOGNIZE gets a
timestamped twin: its input gains an event time ``__ts`` that follows its ORDER BY
(``ORDER BY __ts, <the original keys>``), and the twin runs twice, as a batch query and
as a real Structured Streaming query over the same rows written as several files that
arrive out of order within the watermark delay. Both answers must be equal.

A stream cannot know that a partition ended, so each partition also gets a last row
(``__end``; one more per row that NEXT in DEFINE reads ahead) that no pattern variable
accepts (every DEFINE becomes ``(cond) AND NOT __end``, an undefined variable ``NOT
__end``): it settles the real rows the same way in both runs, and the rows of the real
data keep their verdicts.

A default run takes the twin of every other query of a file (``thorough.sampled``: from
the first query in one file, from the second in the next); ``MATCHREC_THOROUGH_TESTS=1``
runs the twin of every query.
"""

from __future__ import annotations

import random
import shutil
import tempfile
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from matchrec.grammar import parse_clause
from matchrec.grammar.query_scan import cte_scope, find_match_recognize
from matchrec.planner.plan import end_anchor, plan_clause, primary_labels
from matchrec.runtime.slt_parser import parse_file
from pyspark.errors import AnalysisException
from pyspark.sql import Window
from pyspark.sql import functions as F
from pyspark.sql.types import BooleanType, StructField, StructType, TimestampType
from streams import FolderStream
from thorough import sampled

import matchrec
from matchrec import ast

SUITE = Path(__file__).resolve().parents[2] / "shared" / "conformance" / "standard"
BASE = datetime(2026, 1, 1)


def _twin_sql(query: str, view: str) -> tuple[str, ast.MatchRecognizeClause, str] | None:
    """The twin's query text, its clause and its input relation; None if a stream cannot
    run the clause at all (``$``: tested as an error elsewhere)."""
    (occ,) = find_match_recognize(query)
    clause = parse_clause(query[occ.body_start : occ.body_end], base=occ.body_start, sql=query)
    if end_anchor(clause.pattern) is not None:
        return None
    edits: list[tuple[int, int, str]] = []  # (start, end, new text) in the query
    for d in clause.defines:
        end = d.expr.pos + len(d.expr.text)
        edits.append((d.expr.pos, end, f"({d.expr.text}) AND NOT __end"))
    defined = {d.label for d in clause.defines}
    missing = []
    for label in primary_labels(clause.pattern):
        if label.name not in defined and label.name not in missing:
            missing.append(label.name)
    extra = ", ".join(f'"{name}" AS NOT __end' for name in missing)
    if extra:
        if clause.defines:
            last = clause.defines[-1].expr
            at = last.pos + len(last.text)
            edits.append((at, at, f", {extra}"))
        else:
            edits.append((occ.body_end, occ.body_end, f" DEFINE {extra} "))
    if clause.order_by:
        first_key = clause.order_by[0].expr.pos
        edits.append((first_key, first_key, "__ts, "))
    else:  # rows in no defined order: the twin orders them as they came
        last = clause.partition_by[-1] if clause.partition_by else None
        at = last.pos + len(last.text) if last else occ.body_start
        edits.append((at, at, " ORDER BY __ts "))
    relation = query[occ.relation_start : occ.relation_end]
    edits.append((occ.relation_start, occ.relation_end, view))
    text = query
    for start, end, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        text = text[:start] + new + text[end:]
    return text, clause, relation


def _sort_key(column: str, descending: bool, nulls_first: bool):
    c = F.col(f"`{column}`")
    if descending:
        return c.desc_nulls_first() if nulls_first else c.desc_nulls_last()
    return c.asc_nulls_first() if nulls_first else c.asc_nulls_last()


ROUNDS = 3  # micro-batches of a twin (see Twin.feed)


class Twin:
    """One conformance query's twin: its batch answer, and a stream fed the same rows."""

    def __init__(self, spark, root: Path, records: list, index: int):
        self.spark, self.index = spark, index
        self.skipped: str | None = None
        for record in records[:index]:
            if record.is_setup:
                spark.sql(record.sql)
        self.location = records[index].location
        twin = _twin_sql(records[index].sql, f"twin_input_{index}")
        if twin is None:
            self.skipped = "a stream rejects this clause ($)"
            return
        self.text, clause, relation = twin
        self.view = f"twin_input_{index}"
        source = f"{relation} AS __twin_src" if relation.lstrip().startswith("(") else relation
        query = records[index].sql
        scope = cte_scope(query, before=find_match_recognize(query)[0].relation_start)
        data = spark.sql(scope(f"SELECT * FROM {source}"))
        plan = plan_clause(clause, data.columns)
        keys = [F.col(f"`{k}`") for k in plan.partition_by]
        order = [_sort_key(*key) for key in plan.order_by] or [F.monotonically_increasing_id()]
        window = Window.partitionBy(*keys).orderBy(*order) if keys else Window.orderBy(*order)
        rank = F.dense_rank().over(window)
        timed = data.withColumn("__ts", F.timestamp_seconds(F.lit(BASE.timestamp()) + rank * 60))
        timed = timed.withColumn("__end", F.lit(False))
        rows = [tuple(r) for r in timed.collect()]
        self.schema = StructType(
            [
                *(StructField(f.name, f.dataType, True) for f in data.schema.fields),
                StructField("__ts", TimestampType()),
                StructField("__end", BooleanType()),
            ]
        )
        names = self.schema.fieldNames()
        self.last = max((r[names.index("__ts")] for r in rows), default=BASE)
        self.last += timedelta(hours=1)
        key_index = [names.index(k) for k in plan.partition_by]
        # NEXT in DEFINE reads rows after a row: as many more last rows settle its verdict
        reach = plan_clause(clause, data.columns, windows=False).program.define_reach[1]
        self.ends = []
        for key in sorted({tuple(r[i] for i in key_index) for r in rows}, key=repr) or [()]:
            for extra in range(1 + reach):
                end: list = [None] * len(names)
                for i, value in zip(key_index, key):
                    end[i] = value
                end[names.index("__ts")] = self.last + timedelta(minutes=extra)
                end[names.index("__end")] = True
                self.ends.append(tuple(end))
        spark.createDataFrame(rows + self.ends, self.schema).createOrReplaceTempView(self.view)
        try:
            self.want = sorted(
                (tuple(r) for r in matchrec.sql(spark, self.text).collect()), key=repr
            )
        except (AnalysisException, matchrec.MatchRecognizeError) as err:
            # e.g. ORDER BY __ts, id beside PARTITION BY id repeats a column in the output
            self.skipped = f"the twin's rewriting does not fit this query: {str(err)[:80]}"
            return

        rng = random.Random(index)
        ts = names.index("__ts")
        arriving = sorted(rows, key=lambda r: r[ts] + timedelta(minutes=rng.uniform(0, 4)))
        half = len(arriving) // 2
        self.files = [arriving[:half], arriving[half:] + self.ends, []]
        self.stream = FolderStream(spark, root / str(index), self.schema, "__ts", "5 minutes")
        self.stream.source().createOrReplaceTempView(self.view)
        try:
            built = matchrec.sql(spark, self.text)
        except AnalysisException as err:
            if "streaming" not in str(err).lower():
                raise
            self.skipped = f"the query around the clause is not streamable: {str(err)[:80]}"
            return
        # the memory sink: a query's output may repeat a column name, which Parquet cannot
        self.sink = f"twin_output_{index}"
        self.query = (
            built.writeStream.format("memory")
            .queryName(self.sink)
            .option("checkpointLocation", str(self.stream.checkpoint))
            .start()
        )

    def feed(self, round_: int) -> None:
        """Round 0: half the rows; round 1: the rest, the last rows, and a row far ahead
        that moves the watermark past them all; round 2: one more row, whose micro-batch
        runs at that watermark and fires the timers."""
        names = self.schema.fieldNames()
        far = list(self.ends[-1])
        far[names.index("__ts")] = self.last + timedelta(days=3650 * round_)
        self.stream.write(self.files[round_] + [tuple(far)] if round_ else self.files[0])


FILES = sorted(p.name for p in SUITE.glob("*.slt")) if SUITE.is_dir() else []


@pytest.mark.parametrize("file", FILES)
def test_a_stream_gives_the_batch_answer_of_each_conformance_query(spark, tmp_path, file):
    """Each twin of one file in turn: a streaming query fed two files of real rows, the
    second with a row that moves the watermark past them, then a micro-batch that runs
    at that watermark and fires its timers."""
    records = parse_file(SUITE / file)
    indices = [
        i
        for i, r in enumerate(records)
        if r.kind == "query"
        and not r.expect_error
        and not r.skip
        and len(find_match_recognize(r.sql)) == 1
    ]
    if not indices:
        pytest.skip("no query with one MATCH_RECOGNIZE")
    indices = sampled(indices, offset=FILES.index(file))
    # Checkpoints in memory where the machine has a RAM disk (the state store syncs every
    # commit), and no extra no-data micro-batch after each one: the last input row fires
    # the timers of the watermark before it. Each twin costs a few micro-batches.
    shm = Path("/dev/shm")
    root = Path(tempfile.mkdtemp(dir=shm)) if shm.is_dir() else tmp_path
    no_data = "spark.sql.streaming.noDataMicroBatches.enabled"
    before = spark.conf.get(no_data, "true")
    spark.conf.set(no_data, "false")
    wrong, ran, skipped = [], 0, []
    try:
        for i in indices:
            ran += _run_twin(spark, root, records, i, wrong, skipped)
    finally:
        spark.conf.set(no_data, before)
        if root != tmp_path:
            shutil.rmtree(root, ignore_errors=True)
    assert not wrong, "\n".join(wrong)
    if not ran:
        pytest.skip("; ".join(skipped))


def _run_twin(spark, root: Path, records: list, i: int, wrong: list, skipped: list) -> int:
    """Run twin ``i``; 1 if it ran (a difference goes to ``wrong``), 0 if skipped."""
    twin = Twin(spark, root, records, i)
    if twin.skipped is not None:
        skipped.append(twin.skipped)
        return 0
    try:
        for round_ in range(ROUNDS):
            twin.feed(round_)
            twin.query.processAllAvailable()
    finally:
        twin.query.stop()
    got = sorted((tuple(r) for r in spark.table(twin.sink).collect()), key=repr)
    if got != twin.want:
        wrong.append(f"{twin.location}: stream {got} != batch {twin.want}")
    return 1
