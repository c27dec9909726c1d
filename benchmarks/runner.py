"""Run the benchmark: generate data, time every job, check counts, build the report.

A job is a workload run by matchrec, or a baseline (the floor for each dataset and
partitioning a workload uses; the naive applyInPandas W1 when W1 or W1-ALL runs). Each
job: build the DataFrame (parsing and planning are not timed), ``warmup`` untimed runs
(they start and warm up the Python workers), then ``repeat`` timed runs into the no-op
sink; the median is reported. Every run counts the result rows on the side with a Spark
``Observation`` (an aggregate kept in the JVM, no extra job), and all runs must agree.
The Python workers' RSS is sampled during all of it. Before the first job, untimed
runs of it warm up the JVM, so the first job measured is not the one paying for that.

With ``isolate`` (the CLI's default) every job gets a fresh SparkContext (same JVM), so
each job starts with new Python workers and their peak memory is that job's own, not
left over from the previous one. The first session fixes the driver's memory.
"""

from __future__ import annotations

import contextlib
import os
import platform
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from . import baselines, flink
from .datagen import DatasetSpec, ensure, load_sorted
from .memory import WorkerMemorySampler
from .reference import VShapeReference
from .report import Report, Result
from .workloads import Workload, dataset_spec

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

DEFAULT_CHECK_MAX_ROWS = 1_000_000
#: untimed runs of the first job before anything is measured (JIT, caches)
JVM_WARMUP_RUNS = 2


@dataclass
class RunConfig:
    """Everything a run depends on (the CLI's options)."""

    rows: int
    symbols: int = 1000
    repeat: int = 3
    warmup: int = 1
    #: stop a job's runs once they took this many seconds (0: no limit), see measure()
    budget: float = 0.0
    workloads: list[Workload] = field(default_factory=list)
    data_dir: Path = Path("benchmarks/data")
    seed: int = 20240101
    flink: bool = False
    #: interpreter with PyFlink for the Flink runs (None: this one)
    flink_python: str | None = None
    isolate: bool = True
    driver_memory: str = "auto"
    #: Spark master URL (None: local[2]); on a cluster the workers' memory is not sampled
    master: str | None = None
    #: extra Spark settings (``--conf KEY=VALUE``)
    conf: dict[str, str] = field(default_factory=dict)
    check_max_rows: int = DEFAULT_CHECK_MAX_ROWS
    #: the command line, for the report
    command: str = ""
    log: Callable[[str], None] = print

    def spec(self, role: str) -> DatasetSpec:
        return dataset_spec(role, self.rows, self.symbols, self.seed)

    def memory(self) -> str:
        """Driver memory (local mode: the whole executor): grows with the data."""
        if self.driver_memory != "auto":
            return self.driver_memory
        if self.rows <= 1_000_000:
            return "1g"
        return "2g" if self.rows <= 4_000_000 else "4g"


@dataclass
class Job:
    """One measured Spark job."""

    name: str
    engine: str
    role: str
    build: Callable[[SparkSession, str], DataFrame]
    keyed: bool = True
    reference: VShapeReference | None = None
    floor: str | None = None
    naive: str | None = None
    notes: str = ""
    #: the aggregate that counts the result rows (default: ``count(1)``)
    metric: Callable[[], Column] = field(default=lambda: _count_rows())


def floor_name(role: str, keyed: bool) -> str:
    """Name of the floor job for a dataset role and partitioning."""
    suffix = "" if keyed else ", 1 partition"
    return "floor" if (role, keyed) == ("main", True) else f"floor ({role}{suffix})"


def view_name(role: str) -> str:
    return "bench_" + "".join(c if c.isalnum() else "_" for c in role)


def _floor_job(role: str, keyed: bool) -> Job:
    shape = "by symbol" if keyed else "to 1 partition"
    return Job(
        name=floor_name(role, keyed),
        engine="floor",
        role=role,
        keyed=keyed,
        build=lambda spark, view: baselines.floor(spark.table(view), keyed),
        metric=lambda: _sum_rows(),
        notes=f"repartition {shape} + sortWithinPartitions(symbol, ts) + mapInArrow "
        f"counting rows, {role} data",
    )


def _matchrec_job(workload: Workload, has_naive: bool) -> Job:
    def build(spark: SparkSession, view: str) -> DataFrame:
        import matchrec

        if workload.door == "udtf":
            matchrec.register(spark)
            return spark.sql(workload.query(view))
        return matchrec.sql(spark, workload.query(view))

    return Job(
        name=workload.name,
        engine="matchrec",
        role=workload.dataset,
        keyed=workload.keyed,
        build=build,
        reference=workload.reference,
        floor=floor_name(workload.dataset, workload.keyed),
        naive="naive" if workload.vs_naive and has_naive else None,
        notes=workload.notes,
    )


def plan_jobs(workloads: list[Workload]) -> list[Job]:
    """Baselines first (each needed floor once; naive if a workload compares with it)."""
    jobs: list[Job] = []
    floors = dict.fromkeys((w.dataset, w.keyed) for w in workloads)
    jobs += [_floor_job(role, keyed) for role, keyed in floors]
    has_naive = any(w.vs_naive for w in workloads)
    if has_naive:
        jobs.append(
            Job(
                name="naive",
                engine="naive",
                role="main",
                build=lambda spark, view: baselines.naive(spark.table(view)),
                reference=VShapeReference(),
                floor="floor",
                notes="W1 by groupBy(symbol).applyInPandas with a Python loop",
            )
        )
    udtf = next((w for w in workloads if w.door == "udtf"), None)
    if udtf is not None:
        jobs.append(
            Job(
                name="udtf floor",
                engine="udtf floor",
                role=udtf.dataset,
                build=lambda spark, view: baselines.udtf_floor(spark.table(view), udtf.query(view)),
                metric=lambda: _sum_rows(),
                floor=floor_name(udtf.dataset, udtf.keyed),
                notes="an Arrow UDTF of W1-UDTF's shape whose eval only counts rows: "
                "Spark's cost of the table-function door",
            )
        )
    jobs += [_matchrec_job(w, has_naive) for w in workloads]
    return jobs


def generate(config: RunConfig, roles: list[str]) -> dict[str, Path]:
    """Make sure the datasets of ``roles`` exist; their paths by role."""
    paths: dict[str, Path] = {}
    for role in dict.fromkeys(roles):
        spec = config.spec(role)
        started = time.perf_counter()
        existed = (config.data_dir / spec.filename).exists()
        paths[role] = ensure(spec, config.data_dir)
        how = "cached" if existed else f"generated in {time.perf_counter() - started:.1f}s"
        config.log(
            f"data {role}: {paths[role]} ({spec.rows:,} rows, {spec.symbols:,} symbols, {how})"
        )
    return paths


def _expected_counts(
    config: RunConfig, jobs: list[Job], paths: dict[str, Path]
) -> dict[str, tuple[int | None, str]]:
    """Each checkable job's expected count from the reference, or why it isn't checked."""
    out: dict[str, tuple[int | None, str]] = {}
    tables = {}
    for job in jobs:
        if job.reference is None:
            continue
        spec = config.spec(job.role)
        if spec.rows > config.check_max_rows:
            out[job.name] = (None, f"not checked (> {config.check_max_rows:,} rows)")
            continue
        if job.role not in tables:
            tables[job.role] = load_sorted(paths[job.role])
        out[job.name] = (job.reference.count(tables[job.role]), "")
    for job in jobs:  # the floor sees every input row once
        if job.engine in ("floor", "udtf floor"):
            out[job.name] = (config.spec(job.role).rows, "")
    return out


def _session(config: RunConfig, fresh: bool) -> SparkSession:
    from matchrec.runtime.session import get_spark
    from pyspark.sql import SparkSession

    if fresh:
        active = SparkSession.getActiveSession()
        if active is not None:
            active.stop()
    return get_spark(session_conf(config))


def session_conf(config: RunConfig) -> dict[str, str]:
    """Settings of the benchmark's session: driver memory, master, ``--conf``."""
    conf = {"spark.driver.memory": config.memory()}
    if config.master:
        conf["spark.master"] = config.master  # overrides get_spark's local[2]
    conf.update(config.conf)
    return conf


def _count_rows() -> Column:
    from pyspark.sql import functions as F

    return F.count(F.lit(1))


def _sum_rows() -> Column:
    from pyspark.sql import functions as F

    return F.sum("rows")


def timed_write(df: DataFrame, metric: Column) -> tuple[float, int]:
    """Seconds to write ``df`` to the no-op sink, and ``metric`` over its rows."""
    from pyspark.sql import Observation

    observation = Observation(f"bench_{uuid.uuid4().hex}")
    observed = df.observe(observation, metric.alias("n"))
    started = time.perf_counter()
    observed.write.format("noop").mode("overwrite").save()
    seconds = time.perf_counter() - started
    return seconds, int(observation.get["n"] or 0)


def measure(
    job: Job,
    spark: SparkSession,
    view: str,
    rows: int,
    repeat: int,
    warmup: int = 1,
    log: Callable[[str], None] = lambda line: None,
    budget: float = 0.0,
    local: bool = True,
) -> Result:
    """``warmup`` untimed then ``repeat`` timed runs of ``job`` into the no-op sink.

    The Python workers' memory is sampled when ``local`` (they are this process's
    descendants only in local mode).

    With a ``budget`` (seconds), no further run starts once the runs so far took longer;
    a warm-up run that alone exceeds it is kept as the one timed run (for a job that
    long, starting the workers is noise).
    """
    result = Result(
        job.name, job.engine, rows, [], floor=job.floor, naive=job.naive, notes=job.notes
    )
    with WorkerMemorySampler(enabled=local) as memory:
        try:
            df = job.build(spark, view)
            counts = []
            spent = 0.0
            for run in range(warmup + repeat):
                seconds, count = timed_write(df, job.metric())
                counts.append(count)
                spent += seconds
                kind = "warm-up" if run < warmup else "timed"
                log(f"    {kind} run: {seconds:.3f} s, {count:,} result rows")
                if run >= warmup:
                    result.times.append(seconds)
                if budget and spent > budget:
                    if not result.times:
                        result.times.append(seconds)
                    log(f"    budget of {budget:g} s used up: no more runs")
                    break
            result.count = counts[0] if counts else None
            if len(set(counts)) > 1:
                result.error = f"result counts differ between runs: {counts}"
        except Exception as exc:  # report it and go on with the other jobs
            result.error = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0][:300]}"
    result.py_max_mb, result.py_sum_mb = memory.peak_max_mb, memory.peak_sum_mb
    return result


def run(config: RunConfig) -> Report:
    """Run every job of ``config`` and return the report."""
    jobs = plan_jobs(config.workloads)
    paths = generate(config, [j.role for j in jobs])
    expected = _expected_counts(config, jobs, paths)
    flink_csv = None
    flink_workloads = [w for w in config.workloads if w.flink] if config.flink else []
    if flink_workloads and flink.available(config.flink_python):
        flink_csv = flink.ensure_csv(paths["main"])

    report = Report(settings=_settings(config))
    baselines.ship_to_workers()
    for number, job in enumerate(jobs):
        spark = _session(config, fresh=config.isolate and number > 0)
        view = view_name(job.role)
        spark.read.parquet(str(paths[job.role])).createOrReplaceTempView(view)
        if number == 0 and config.warmup:
            config.log(f"warming up the JVM with {job.name} ...")
            with contextlib.suppress(Exception):  # measure() below reports a failure
                for _ in range(JVM_WARMUP_RUNS):
                    timed_write(job.build(spark, view), job.metric())
        config.log(f"running {job.name} ({job.engine}) ...")
        rows = config.spec(job.role).rows
        result = measure(
            job,
            spark,
            view,
            rows,
            config.repeat,
            config.warmup,
            config.log,
            config.budget,
            local=not config.master,
        )
        result.expected, result.check_note = expected.get(job.name, (None, ""))
        report.results.append(result)
        config.log(
            f"  {job.name}: median {_fmt(result.seconds)} s over {len(result.times)} runs, "
            f"{result.count} result rows {result.check}"
            + (f" {result.error}" if result.error else "")
        )

    if config.flink:
        _run_flink(config, report, flink_workloads, flink_csv)
    return report


def _run_flink(
    config: RunConfig, report: Report, workloads: list[Workload], csv: Path | None
) -> None:
    if not workloads:
        report.skipped.append("Flink: no selected workload has a Flink form (W1-FLINK)")
        return
    if csv is None:
        report.skipped.append(f"Flink: {flink.UNAVAILABLE}")
        config.log(f"Flink skipped: {flink.UNAVAILABLE}")
        return
    for w in workloads:
        config.log(f"running {w.name} (Flink) ...")
        res = flink.run(csv, w.query("ticks"), config.repeat, config.flink_python)
        config.log(
            f"  {w.name} (Flink): times {res.times}, {res.count} result rows {res.error or ''}"
        )
        mine = report.find(w.name)
        report.results.append(
            Result(
                w.name,
                "flink",
                config.spec(w.dataset).rows,
                res.times,
                count=res.count,
                expected=mine.expected if mine else None,
                check_note=mine.check_note if mine else "",
                floor=floor_name(w.dataset, w.keyed),
                notes="Flink SQL, PyFlink local mini-cluster, batch mode, parallelism 2, "
                "CSV input, blackhole sink (child process; py MB not measured)",
                error=res.error,
            )
        )


def _settings(config: RunConfig) -> dict[str, str]:
    return {
        "command": config.command or "(called from Python)",
        "data": f"{config.rows:,} rows, {config.symbols:,} symbols, seed {config.seed}",
        "spark": f"{config.master or 'local[2]'} via get_spark, driver memory "
        f"{config.memory()}, "
        f"{'fresh SparkContext per job' if config.isolate else 'one SparkContext'}"
        + "".join(f", {k}={v}" for k, v in config.conf.items()),
        "timing": f"median of {config.repeat} runs into the noop sink, after "
        f"{config.warmup} untimed run(s) per job"
        + (f"; fewer runs once a job took {config.budget:g} s" if config.budget else ""),
        "py MB": "peak RSS of one Spark Python worker (max) and of all of them at one "
        "moment (sum), sampled every 0.1 s from /proc"
        + (
            " (not measured: the executors are not this process's children)"
            if config.master
            else ""
        ),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}",
    }


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
