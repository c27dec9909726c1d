"""A Spark driver for the cluster tests, run as a child process (see spark_cluster.py).

Usage: ``python cluster_driver.py SPEC.json``. The spec names the master, tables to
register (name -> Parquet path) and sessions: name -> the Python the executors run
(``executor_python``), Spark settings (``conf``) and queries (name -> SQL for
``matchrec.sql``; one calling ``match_recognize(TABLE ...)`` registers the table
function and runs through ``spark.sql``). The sessions run one after the other in this
one driver (one JVM start). Each query's rows, or the matchrec error it raised (kind and
message), are printed as one JSON object (session -> query -> result) on the last line
of stdout.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any


def normalized(rows: list[Any]) -> list[list[Any]]:
    """Rows as sorted lists of JSON values (timestamps as text), comparable across
    processes."""
    return sorted(json.loads(json.dumps([list(r) for r in rows], default=str)), key=repr)


def main(path: str) -> int:
    spec = json.loads(open(path).read())
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable

    from matchrec.runtime.session import ensure_java

    ensure_java()
    out = {name: run_session(spec, session) for name, session in spec["sessions"].items()}
    print(json.dumps(out))
    return 0


def run_session(spec: dict[str, Any], session: dict[str, Any]) -> dict[str, Any]:
    """One SparkContext on the cluster whose executors run ``executor_python``: its
    queries' results (the same JVM serves every session of the spec, one at a time)."""
    from pyspark.sql import SparkSession

    import matchrec
    from matchrec.errors import MatchRecognizeError

    # PySpark reads it when the SparkContext starts and gives it to the executors
    os.environ["PYSPARK_PYTHON"] = session.get("executor_python") or sys.executable
    builder = SparkSession.builder.master(spec["master"]).appName("matchrec-cluster-test")
    conf = {
        "spark.driver.host": "127.0.0.1",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.driver.memory": "512m",
        "spark.executor.memory": "512m",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.shuffle.partitions": "4",
    }
    conf.update(spec.get("conf", {}))
    conf.update(session.get("conf", {}))
    for key, value in conf.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("OFF")
    results: dict[str, Any] = {}
    try:
        for name, table in spec.get("tables", {}).items():
            spark.read.parquet(table).createOrReplaceTempView(name)
        for name, query in session.get("queries", {}).items():
            started = time.perf_counter()
            try:
                if isinstance(query, dict):  # a stream: files in, Parquet out
                    results[name] = {"rows": normalized(run_stream(spark, query))}
                    results[name]["seconds"] = round(time.perf_counter() - started, 2)
                    continue
                if "match_recognize(TABLE" in query:  # the table function: plain spark.sql
                    matchrec.register(spark)
                    df = spark.sql(query)
                else:
                    df = matchrec.sql(spark, query)
                built = time.perf_counter()
                results[name] = {"rows": normalized(df.collect())}
                results[name]["build_seconds"] = round(built - started, 2)
            except MatchRecognizeError as err:
                results[name] = {"error": {"kind": err.kind, "message": str(err)}}
            except Exception as err:  # one case's failure must not hide the others'
                results[name] = {"error": {"kind": type(err).__name__, "message": str(err)}}
            results[name]["seconds"] = round(time.perf_counter() - started, 2)
    finally:
        spark.stop()
    return results


def run_stream(spark: Any, stream: dict[str, Any]) -> list[Any]:
    """Run ``stream["sql"]`` over the Parquet files of ``stream["inbox"]`` as a stream
    (one file per micro-batch, watermark on ``ts``) into Parquet; its rows."""
    import matchrec

    source = (
        spark.readStream.schema(stream["schema"])
        .option("maxFilesPerTrigger", 1)
        .parquet(stream["inbox"])
        .withWatermark("ts", stream["delay"])
    )
    source.createOrReplaceTempView(stream["view"])
    query = (
        matchrec.sql(spark, stream["sql"])
        .writeStream.format("parquet")
        .option("path", stream["out"])
        .option("checkpointLocation", stream["checkpoint"])
        .start()
    )
    try:
        query.processAllAvailable()
    finally:
        query.stop()
    return spark.read.parquet(stream["out"]).collect()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
