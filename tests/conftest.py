"""Shared fixtures.

``spark`` is the one SparkSession of the test run (:func:`matchrec.runtime.session.get_spark`).
Only tests that ask for it start Spark; pure-Python tests never do. ``spark_cluster``
is a standalone cluster on this machine (``spark_cluster.py``), started once for the
tests that ask for it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pyspark.sql import SparkSession
    from spark_cluster import StandaloneCluster

pytest_plugins = ["pytester"]

# Trino's cases run through the query-suite runner in test_trino_cases.py, one test per
# file; the .slt plugin (--slt) would run them again record by record. A file named on
# the command line is still collected by the plugin.
collect_ignore_glob = ["trino_cases/*.slt"]


@pytest.fixture(scope="session")
def spark() -> Iterator[SparkSession]:
    """The session-wide local SparkSession (started on first use, reused after)."""
    from matchrec.runtime.session import get_spark

    yield get_spark()


@pytest.fixture
def ansi_off(spark: SparkSession) -> Iterator[None]:
    """``spark.sql.ansi.enabled=false`` for one test (Spark's non-ANSI answers)."""
    before = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", "false")
    yield
    spark.conf.set("spark.sql.ansi.enabled", before)


@pytest.fixture(params=["true", "false"], ids=["ansi", "no ansi"])
def either_ansi(spark: SparkSession, request: pytest.FixtureRequest) -> Iterator[str]:
    """Each test twice: ``spark.sql.ansi.enabled`` true, then false (its value given)."""
    before = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", request.param)
    yield request.param
    spark.conf.set("spark.sql.ansi.enabled", before)


@pytest.fixture(scope="session")
def spark_cluster() -> Iterator[StandaloneCluster]:
    """A Spark standalone master and two 1-core workers on 127.0.0.1, started once per
    test run for every test that asks for it and stopped (every process) at the end.
    Tests drive it from a child process: :func:`spark_cluster.run_driver`."""
    from spark_cluster import StandaloneCluster

    with StandaloneCluster(workers=2) as cluster:
        yield cluster


@pytest.fixture(scope="session")
def fresh_executor_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A Python for executors as on a new cluster node: NumPy and PyArrow, no matchrec
    (nor Lark, sqlglot or pandas), built once per test run from this installation."""
    from spark_cluster import isolated_python

    return str(isolated_python(tmp_path_factory.mktemp("fresh") / "venv", ["numpy", "pyarrow"]))


@pytest.fixture(scope="session")
def connect_url() -> Iterator[str]:
    """The address of a Spark Connect server on 127.0.0.1 (``connect_server.py``, a child
    process: this process keeps its classic session), started once for the tests that ask
    for it and stopped at the end."""
    from connect_server import serve

    with serve() as url:
        yield url
