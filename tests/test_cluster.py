"""matchrec on a real Spark cluster: a standalone master and two workers on this machine.

The cluster jobs run in one child driver (``cluster_driver.py``), one SparkContext per
case, since this run's local session owns this process's JVM; each case's rows are
compared with the same queries run here in local mode. Cases: executors running this
Python; executors whose Python has only NumPy and PyArrow (no matchrec, Lark, sqlglot
or pandas), where matchrec ships itself, and only those with pandas and protobuf (a
stream); executors without PyArrow, and of another minor
Python version, which must fail with one line before the job.
"""

from __future__ import annotations

import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # the benchmarks folder is not installed, only run from the repo
    sys.path.insert(0, str(ROOT))

from cluster_driver import normalized  # noqa: E402
from spark_cluster import isolated_python, other_minor_python, run_driver  # noqa: E402

import matchrec  # noqa: E402
from benchmarks.datagen import DatasetSpec, generate  # noqa: E402
from benchmarks.stream import write_in_order  # noqa: E402
from benchmarks.workloads import WORKLOADS  # noqa: E402

pytestmark = pytest.mark.cluster

TABLE = "cluster_ticks"
_WORKLOADS = {w.name: w for w in WORKLOADS}
#: W1: V-shape, row-local DEFINE with PREV; W2: match-dependent DEFINE (other labels,
#: running AVG); W1-UDTF: W1 through the SQL table function (plans on the executors)
QUERIES = {name: _WORKLOADS[name].query(TABLE) for name in ("W1", "W2", "W1-UDTF")}
ONE_EXECUTOR = {"spark.cores.max": "1"}  # the failing cases need one executor only


@pytest.fixture(scope="module")
def ticks(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Generated ticks (10,000 rows, 20 symbols) in a Parquet file every process reads."""
    path = tmp_path_factory.mktemp("cluster-data") / "ticks.parquet"
    pq.write_table(generate(DatasetSpec(rows=10_000, symbols=20)), path)
    return str(path)


@pytest.fixture(scope="module")
def cluster_results(
    spark_cluster: Any, ticks: str, fresh_executor_python: str, tmp_path_factory: Any
) -> dict[str, Any]:
    """Every case's results from one child driver on the cluster."""
    no_arrow = isolated_python(tmp_path_factory.mktemp("no-arrow") / "venv", ["numpy"])
    sessions: dict[str, Any] = {
        "installed": {"queries": {n: QUERIES[n] for n in ("W1", "W2")}},
        "fresh": {"executor_python": fresh_executor_python, "queries": QUERIES},
        "no_pyarrow": {
            "executor_python": str(no_arrow),
            "queries": {"W1": QUERIES["W1"]},
            "conf": ONE_EXECUTOR,
        },
    }
    sessions["installed"]["queries"]["stream"] = stream_spec(
        ticks, tmp_path_factory.mktemp("cluster-stream")
    )
    # a stream needs pandas (and protobuf) on the executors, which a fresh node lacks
    sessions["fresh_stream"] = {
        "executor_python": fresh_executor_python,
        "queries": {"W1": stream_spec(ticks, tmp_path_factory.mktemp("fresh-stream"))},
        "conf": ONE_EXECUTOR,
    }
    # ... and has them here, but not matchrec, which is shipped
    stream_python = isolated_python(
        tmp_path_factory.mktemp("stream-python") / "venv",
        ["numpy", "pyarrow", "pandas", "protobuf"],
    )
    sessions["shipped_stream"] = {
        "executor_python": str(stream_python),
        "queries": {"stream": stream_spec(ticks, tmp_path_factory.mktemp("shipped-stream"))},
        "conf": ONE_EXECUTOR,
    }
    other = other_minor_python()
    if other is not None:
        sessions["other_python"] = {
            "executor_python": other,
            "queries": {"W1": QUERIES["W1"]},
            "conf": ONE_EXECUTOR,
        }
    return run_driver(
        {"master": spark_cluster.master, "tables": {TABLE: ticks}, "sessions": sessions}
    )


STREAM_VIEW = "cluster_stream"
#: V-shapes within 30 s: once the watermark is past the data every search is settled
#: (WITHIN), so the stream's answer is the batch answer over the same rows
STREAM_SQL = f"""
SELECT * FROM {STREAM_VIEW} MATCH_RECOGNIZE (
  PARTITION BY symbol ORDER BY ts
  MEASURES FIRST(A.ts) AS s, LAST(C.ts) AS e, count(*) AS n
  PATTERN (A B+ C+) WITHIN INTERVAL '30' SECOND
  DEFINE B AS price < PREV(price), C AS price > PREV(price) AND price < FIRST(A.price)
)"""


def stream_spec(ticks: str, root: Path) -> dict[str, Any]:
    """The ticks cut by time into three files (and rows an hour later that move the
    watermark past them) in a folder every process sees."""
    table = pq.read_table(ticks).sort_by("ts")
    inbox = root / "in"
    inbox.mkdir()
    third = -(-table.num_rows // 3)
    parts = [table.slice(i * third, third) for i in range(3)]
    for hours in (1, 2):  # the second one's micro-batch fires the first one's timers
        last = table.slice(table.num_rows - 1).to_pylist()[0]
        last["symbol"], last["ts"] = "ZZZ", last["ts"] + timedelta(hours=hours)
        parts.append(pa.Table.from_pylist([last], schema=table.schema))
    write_in_order(parts, inbox)
    return {
        "inbox": str(inbox),
        "schema": "symbol STRING, ts TIMESTAMP, price DOUBLE",
        "view": STREAM_VIEW,
        "delay": "10 seconds",
        "sql": STREAM_SQL,
        "out": str(root / "out"),
        "checkpoint": str(root / "chk"),
    }


@pytest.fixture(scope="module")
def local_rows(spark: Any, ticks: str) -> dict[str, list]:
    """The same queries in this run's local session."""
    spark.read.parquet(ticks).createOrReplaceTempView(TABLE)
    matchrec.register(spark)
    rows = {}
    for name, query in QUERIES.items():
        df = spark.sql(query) if "match_recognize(TABLE" in query else matchrec.sql(spark, query)
        rows[name] = normalized(df.collect())
    spark.read.parquet(ticks).createOrReplaceTempView(STREAM_VIEW)
    rows["stream"] = normalized(matchrec.sql(spark, STREAM_SQL).collect())
    return rows


def _rows(results: dict[str, Any], session: str, query: str) -> list:
    result = results[session][query]
    assert "error" not in result, result["error"]["message"]
    return result["rows"]


def test_cluster_gives_the_rows_of_local_mode(cluster_results, local_rows):
    for query in ("W1", "W2"):
        rows = _rows(cluster_results, "installed", query)
        assert rows, f"{query} found no match: the data should have many"
        assert rows == local_rows[query], query


def test_a_stream_on_the_cluster_gives_the_batch_rows_of_local_mode(cluster_results, local_rows):
    """V-shapes as Structured Streaming on the cluster (checkpoint and output on a path every
    process sees) equals W3 in batch here."""
    rows = _rows(cluster_results, "installed", "stream")
    assert rows and rows == local_rows["stream"]


def test_executors_without_matchrec_get_it_shipped(cluster_results, local_rows):
    for query in QUERIES:
        assert _rows(cluster_results, "fresh", query) == local_rows[query], query


def test_a_stream_on_executors_without_matchrec_gets_it_shipped(cluster_results, local_rows):
    """Spark runs a stateful processor's ``init`` once in a Python worker on the driver's
    machine, with the executors' Python and without the shipped files on its path: the
    stream died there with "No module named 'matchrec'" (or sqlglot) while batch queries
    ran."""
    rows = _rows(cluster_results, "shipped_stream", "stream")
    assert rows and rows == local_rows["stream"]


def _one_line_error(cluster_results: dict[str, Any], session: str) -> str:
    result = cluster_results[session]["W1"]
    assert "rows" not in result, "the query ran where it should have failed"
    assert result["error"]["kind"] == "cluster setup error"
    message = result["error"]["message"]
    assert "\n" not in message and "Traceback" not in message
    return message


def test_executors_without_pyarrow_fail_with_one_line(cluster_results):
    message = _one_line_error(cluster_results, "no_pyarrow")
    assert "has no pyarrow" in message and "pip install pyarrow" in message


def test_a_stream_on_executors_without_pandas_fails_with_one_line(cluster_results):
    """PySpark's stateful streaming needs pandas and protobuf on the executors: a stream
    died after minutes of task retries with a worker's ModuleNotFoundError."""
    message = _one_line_error(cluster_results, "fresh_stream")
    assert "has no pandas" in message and "pip install pandas" in message


def test_executors_of_another_python_fail_with_one_line(cluster_results):
    if "other_python" not in cluster_results:
        pytest.skip("no Python of another minor version on this machine")
    message = _one_line_error(cluster_results, "other_python")
    mine = "{}.{}".format(*sys.version_info[:2])
    assert f"driver Python {mine}" in message and "same minor version" in message
