"""Every door on Spark Connect: the same rows and the same errors as on a classic session.

A Connect server runs in a child process (``connect_server.py``, the ``connect_url``
fixture) and ``connect_driver.py`` runs all of ``connect_cases`` on one Connect session
to it, in another child process (PySpark switches a whole process to Connect mode);
this process runs the same cases on the test run's classic session and compares.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import connect_cases
import pytest

HERE = Path(__file__).resolve().parent


def _child_env() -> dict[str, str]:
    """The environment of a child process: the same matchrec, first on its path."""
    import matchrec

    env = dict(os.environ)
    source = str(Path(matchrec.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (source, env.get("PYTHONPATH")) if p)
    return env


@pytest.fixture(scope="module")
def on_connect(connect_url, tmp_path_factory):
    """The cases' results on one Spark Connect session (run once for this module)."""
    out = tmp_path_factory.mktemp("connect") / "results.json"
    proc = subprocess.run(
        [sys.executable, str(HERE / "connect_driver.py"), connect_url, str(out)],
        capture_output=True,
        text=True,
        timeout=600,
        env=_child_env(),
    )
    if proc.returncode != 0:
        raise AssertionError(
            f"connect driver failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
        )
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def on_classic(spark):
    """The same cases on the classic session."""
    return connect_cases.run_all(spark)


def test_driver_ran_on_connect(on_connect):
    assert on_connect["session"].startswith("pyspark.sql.connect")


@pytest.mark.parametrize("name", list(connect_cases.CASES))
def test_same_rows_as_classic(on_connect, on_classic, name):
    got, want = on_connect["results"][name], on_classic["results"][name]
    assert got == want
    assert want["rows"], "a case that matches nothing compares nothing"


def test_a_stream_on_connect_gives_what_it_gives_on_classic(on_connect, spark, tmp_path):
    """The same streaming MATCH_RECOGNIZE (files as micro-batches, out of order, WITHIN
    timeouts, a late row) on Connect and on the classic session: same rows, same
    late-row count (Connect reports progress in its own form)."""
    want = connect_cases.run_stream(spark, tmp_path)
    assert on_connect["stream"] == want
    assert want["late"] == 1
    assert {r[-1] for r in want["rows"]} == {"MATCHED", "TIMEOUT"}


def test_a_python_udf_of_several_rows_is_refused_on_connect_saying_why(
    on_connect, on_classic, spark
):
    """A Python UDF of one row's values works on Connect as on a classic session; of two
    rows' values, whose function matchrec's glue calls itself (classic sessions), Connect
    gives a positioned refusal that says Connect is why and what works there (it said the
    function could not be applied to a value that depends on the match)."""
    classic = connect_cases.python_udf_calls(spark)
    got = on_connect["python_udf"]
    assert got["one_row"] == classic["one_row"]
    assert classic["one_row"]["rows"]
    assert classic["two_rows"]["rows"], "a classic session calls the UDF itself"
    refused = got["two_rows"]
    assert refused["class"] == "UnsupportedError"
    assert "a UDF of a Spark Connect session" in refused["message"]
    assert refused["at"].startswith("cx_neg(B.price")
    assert "SQL UDF" in refused["hint"]


def test_doors_agree_with_each_other(on_classic):
    """The table function and the DataFrame door give what matchrec.sql gives."""
    results = on_classic["results"]
    for shape in ("one_row", "all_rows"):
        assert results[f"udtf_{shape}"] == results[f"dataframe_{shape}"] == results[f"sql_{shape}"]


@pytest.mark.parametrize("name", list(connect_cases.ERRORS))
def test_same_error_as_classic(on_connect, on_classic, name):
    """The class, the message and the caret line are those of the classic session."""
    got, want = on_connect["errors"][name], on_classic["errors"][name]
    assert want["class"] in (
        "SemanticError",
        "SqlSyntaxError",
        "UnsupportedError",
        "SparkAnalysisError",
        "MatchRuntimeError",
    )
    assert got == want


@pytest.fixture(scope="module")
def cli_expected(spark):
    """What the CLI's query gives on the classic session."""
    import matchrec

    table = "cx_cli_t"
    spark.createDataFrame(connect_cases.ROWS, connect_cases.SCHEMA).createOrReplaceTempView(table)
    try:
        query = connect_cases.CLI_QUERY.replace("cli_t", table)
        return connect_cases.written(matchrec.sql(spark, query))
    finally:
        spark.catalog.dropTempView(table)


def test_cli_run_in_the_connect_process(on_connect, cli_expected):
    """``matchrec run --out`` (with ``--conf``) on the Connect session of the driver."""
    cli = on_connect["cli"]
    assert cli["status"] == 0
    assert {k: cli[k] for k in ("columns", "rows")} == cli_expected


def test_cli_remote_option(connect_url, tmp_path, cli_expected):
    """``matchrec run --remote sc://...`` as its own process: a Connect client only."""
    table = connect_cases.write_table_file(tmp_path)
    query = connect_cases.cli_query_file(tmp_path)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "matchrec.runtime.cli",
            "run",
            str(query),
            "--table",
            f"cli_t={table}",
            "--schema",
            f"cli_t={connect_cases.SCHEMA}",
            "--remote",
            connect_url,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=_child_env(),
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    shown = [
        [cell.strip() for cell in line.split("|")[1:-1]]
        for line in proc.stdout.splitlines()
        if line.startswith("|")
    ]
    assert shown[0] == cli_expected["columns"]
    assert shown[1:] == [[str(v) for v in row] for row in cli_expected["rows"]]
