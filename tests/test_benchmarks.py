"""The benchmark harness (``benchmarks/``): data generator, reference, report, one smoke run.

The pure-Python tests are fast; the one Spark test runs the whole harness (every
workload, both baselines, reference checks, report) at 2,000 rows with one repetition.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # the benchmarks folder is not installed, only run from the repo
    sys.path.insert(0, str(ROOT))

from benchmarks import flink, runner  # noqa: E402
from benchmarks.baselines import naive_v_shape  # noqa: E402
from benchmarks.datagen import BASE_TS_US, DatasetSpec, ensure, generate, load_sorted  # noqa: E402
from benchmarks.reference import VShapeReference, v_shape_matches  # noqa: E402
from benchmarks.report import Report, Result  # noqa: E402
from benchmarks.workloads import WORKLOADS, dataset_spec, select  # noqa: E402

# ------------------------------------------------------------------------ generator


def test_generator_is_deterministic_and_seeded():
    spec = DatasetSpec(rows=1003, symbols=7)
    assert generate(spec).equals(generate(spec))
    assert not generate(spec).equals(generate(DatasetSpec(1003, 7, seed=spec.seed + 1)))


def test_generated_data_shape():
    spec = DatasetSpec(rows=1003, symbols=7)
    table = generate(spec)
    assert table.num_rows == 1003
    assert table.schema.names == ["symbol", "ts", "price"]
    symbols = table.column("symbol").to_pylist()
    assert symbols != sorted(symbols)  # shuffled
    assert sorted(set(symbols)) == [f"S{i}" for i in range(7)]

    ordered = table.sort_by([("symbol", "ascending"), ("ts", "ascending")])
    sym = np.array(ordered.column("symbol").to_pylist())
    seconds = (ordered.column("ts").cast(pa.int64()).to_numpy() - BASE_TS_US) // 1_000_000
    tenths = np.rint(ordered.column("price").to_numpy() * 10).astype(np.int64)
    # prices are exactly one-decimal numbers
    assert np.array_equal(ordered.column("price").to_numpy(), np.round(tenths / 10.0, 1))
    for name in set(symbols):
        rows = sym == name
        assert list(seconds[rows]) == list(range(rows.sum()))  # one row per second from 0
        assert set(np.diff(tenths[rows])) <= {-1, 0, 1}  # steps of 0.1
    assert {(sym == s).sum() for s in set(symbols)} == {143, 144}  # 1003 = 7 * 143 + 2


def test_ensure_caches_by_parameters(tmp_path):
    spec = DatasetSpec(rows=50, symbols=5)
    path = ensure(spec, tmp_path)
    mtime = path.stat().st_mtime_ns
    assert ensure(spec, tmp_path) == path and path.stat().st_mtime_ns == mtime
    assert ensure(DatasetSpec(rows=50, symbols=2), tmp_path) != path
    assert load_sorted(path).equals(
        generate(spec).sort_by([("symbol", "ascending"), ("ts", "ascending")])
    )


def test_dataset_roles():
    assert dataset_spec("main", 1000, 10, 1) == DatasetSpec(1000, 10, 1)
    assert dataset_spec("long/10", 1000, 10, 1) == DatasetSpec(100, 10, 1)
    assert dataset_spec("tiny", 1000, 10, 1) == DatasetSpec(1000, 100, 1)
    with pytest.raises(ValueError):
        dataset_spec("nope", 1000, 10, 1)


# ------------------------------------------------------------------------ reference


@pytest.mark.parametrize(
    ("prices", "up_plus", "expected"),
    [
        ([3, 2, 1, 2, 3, 2, 1, 2], True, [(0, 2, 4), (4, 6, 7)]),
        ([3, 2, 1, 2, 3, 2, 1, 2], False, [(0, 2, 3), (4, 6, 7)]),
        ([3, 2, 2, 3], True, []),  # an equal price is neither DOWN nor UP
        ([1, 2, 3], True, []),
        ([2, 1], True, []),
        ([5, 4, 5, 4, 5], True, [(0, 1, 2), (2, 3, 4)]),  # the last UP starts the next match
        ([1, 1, 0, 1], True, [(1, 2, 3)]),
    ],
)
def test_reference_v_shape(prices, up_plus, expected):
    assert v_shape_matches(prices, up_plus) == expected


def test_reference_counts_partitions_and_all_rows():
    table = pa.table({"symbol": ["A"] * 4 + ["B"] * 2, "price": [3.0, 2.0, 3.0, 2.0, 1.0, 2.0]})
    assert VShapeReference().count(table) == 1  # A: rows 0-2; B has no V
    assert VShapeReference(all_rows=True).count(table) == 3
    # one partition, A's rows then B's: rows 0-2, then from row 2 a V across the boundary
    assert VShapeReference(partitioned=False).count(table) == 2
    assert VShapeReference(partitioned=False, all_rows=True).count(table) == 3 + 4


def test_naive_baseline_agrees_with_reference():
    rng = random.Random(7)
    for trial in range(300):
        n = rng.randint(0, 25)
        prices = np.round(np.cumsum([rng.choice((-1, 0, 1)) for _ in range(n)]) / 10.0, 1)
        ts = pd.date_range("2024-01-01", periods=n, freq="s")
        group = pd.DataFrame({"symbol": ["X"] * n, "ts": ts, "price": prices})
        out = naive_v_shape(group.sample(frac=1, random_state=trial))
        got = [
            tuple(int((t - ts[0]).total_seconds()) for t in (r.s, r.b, r.e))
            for r in out.itertuples()
        ]
        assert got == v_shape_matches(list(prices)), list(prices)


# ------------------------------------------------------------------------ workloads, report


def test_select_workloads():
    assert [w.name for w in select(None, with_flink=False)] == [
        w.name for w in WORKLOADS if not w.flink
    ]
    assert "W1-FLINK" in [w.name for w in select(None, with_flink=True)]
    assert [w.name for w in select("w4, W1", with_flink=False)] == ["W1", "W4", "W4/10"]
    with pytest.raises(ValueError, match="unknown"):
        select("W9", with_flink=False)


def test_workload_queries_name_their_table():
    for w in WORKLOADS:
        reads = "match_recognize(TABLE(tbl), '" if w.door == "udtf" else "FROM tbl MATCH_RECOGNIZE"
        assert reads in w.query("tbl"), w.name


def test_report_markdown():
    report = Report(settings={"data": "tiny"})
    report.results += [
        Result("floor", "floor", 1000, [1.0, 3.0, 2.0], count=1000, expected=1000),
        Result("naive", "naive", 1000, [8.0], count=5, floor="floor"),
        Result("W1", "matchrec", 1000, [4.0], count=5, expected=6, floor="floor", naive="naive"),
        Result("W4", "matchrec", 1000, [5.0], floor="floor"),
        Result("W4/10", "matchrec", 100, [1.0], floor="floor"),
        Result("W2", "matchrec", 1000, [], error="Boom: failed"),
    ]
    text = report.markdown()
    assert "| floor | floor | 1,000 | 2.000 | 3 | 500 |" in text
    assert "| W1 | matchrec | 1,000 | 4.000 | 1 | 250 | 2.00 | 0.50 |" in text
    assert "MISMATCH (expected 6)" in text
    assert "W4 / W4/10 (10x the rows): 5.00" in text and ": linear" in text
    assert "W2: error: Boom: failed" in text
    assert not report.ok


@pytest.mark.parametrize(
    ("budget", "expected_runs", "expected_times"),
    [(0.0, 4, [10.0, 10.0, 10.0]), (15.0, 2, [10.0]), (5.0, 1, [10.0])],
)
def test_measure_repeats_within_budget(monkeypatch, budget, expected_runs, expected_times):
    calls = []

    def fake_write(df, metric):
        calls.append(df)
        return 10.0, 5

    monkeypatch.setattr(runner, "timed_write", fake_write)
    job = runner.Job("J", "matchrec", "main", build=lambda spark, view: "df", metric=lambda: None)
    result = runner.measure(job, None, "v", 100, repeat=3, warmup=1, budget=budget)
    assert len(calls) == expected_runs and result.times == expected_times
    assert result.count == 5 and result.error is None


def test_flink_is_skipped_when_not_importable():
    assert not flink.available("/nonexistent/python")
    report = Report()
    workloads = select("W1-FLINK", with_flink=True)
    config = runner.RunConfig(rows=100, workloads=workloads, flink=True, log=lambda line: None)
    runner._run_flink(config, report, workloads, csv=None)
    assert report.results == [] and "PyFlink is not importable" in report.skipped[0]
    assert "skipped: Flink" in report.markdown()


def test_master_and_conf_options_reach_the_session(monkeypatch, capsys):
    from benchmarks.__main__ import main as bench_main

    seen = []
    monkeypatch.setattr(runner, "run", lambda config: seen.append(config) or Report())
    argv = ["run", "--rows", "100", "--workloads", "W1", "--master", "spark://h:7077"]
    argv += ["--conf", "spark.executor.memory=2g", "--conf", "spark.matchrec.groupRows=4096"]
    assert bench_main(argv) == 0
    conf = runner.session_conf(seen[0])
    assert conf["spark.master"] == "spark://h:7077"
    assert conf["spark.executor.memory"] == "2g" and conf["spark.matchrec.groupRows"] == "4096"
    settings = runner._settings(seen[0])
    assert settings["spark"].startswith("spark://h:7077") and "not measured" in settings["py MB"]
    assert "spark.master" not in runner.session_conf(runner.RunConfig(rows=100))
    assert bench_main(["run", "--rows", "100", "--conf", "no-equals-sign"]) == 2
    assert "--conf takes KEY=VALUE" in capsys.readouterr().err


# ------------------------------------------------------------------------ Spark smoke run


def test_harness_end_to_end(spark, tmp_path):
    """Every workload and baseline at 2,000 rows, one timed run each, counts checked."""
    config = runner.RunConfig(
        rows=2000,
        symbols=10,
        repeat=1,
        warmup=0,
        workloads=select(None, with_flink=False),
        data_dir=tmp_path,
        isolate=False,
        log=lambda line: None,
    )
    report = runner.run(config)
    names = [r.name for r in report.results]
    assert names[:2] == ["floor", "floor (long)"]
    assert {"naive", "W1", "W1-ALL", "W2", "W3", "W4", "W4/10", "W5", "W6"} <= set(names)
    for r in report.results:
        assert r.error is None, (r.name, r.error)
        assert len(r.times) == 1 and r.seconds > 0, r.name
        assert not r.check.startswith("MISMATCH"), (r.name, r.check)
    checked = {r.name for r in report.results if r.check == "OK"}
    assert {"floor", "naive", "W1", "W1-ALL", "W5", "W6"} <= checked
    assert report.find("W4").count == 0
    assert report.ok
    assert "| W1 | matchrec | 2,000 |" in report.markdown()
