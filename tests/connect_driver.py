"""A Spark Connect client for ``test_connect``: runs every case of ``connect_cases``
on a Connect session to ``URL`` and writes the results as JSON to OUT.

Usage: ``python connect_driver.py URL OUT``. A child process because PySpark switches a
whole process to Connect mode, which the test run's classic session cannot share.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import connect_cases  # noqa: E402
from matchrec.runtime.session import get_spark, is_connect  # noqa: E402


def main(url: str, out: str) -> None:
    spark = get_spark(remote=url)
    assert is_connect(spark), type(spark)
    found = connect_cases.run_all(spark)
    found["session"] = type(spark).__module__
    found["cli"] = _cli(spark)
    found["python_udf"] = connect_cases.python_udf_calls(spark)
    with tempfile.TemporaryDirectory() as tmp:
        found["stream"] = connect_cases.run_stream(spark, Path(tmp))
    Path(out).write_text(json.dumps(found))


def _cli(spark) -> dict:
    """``matchrec run --out`` in this process (on this Connect session), read back."""
    from matchrec.runtime.cli import main as cli

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        table = connect_cases.write_table_file(folder)
        query = connect_cases.cli_query_file(folder)
        status = cli(
            [
                "run",
                str(query),
                "--table",
                f"cli_t={table}",
                "--schema",
                f"cli_t={connect_cases.SCHEMA}",
                "--out",
                str(folder / "out.json"),
                "--conf",
                "spark.matchrec.groupRows=3",
            ]
        )
        rows = spark.read.json(str(folder / "out.json"))  # JSON columns come sorted by name
        return {
            "status": status,
            **connect_cases.written(rows.select(*connect_cases.ONE_ROW_COLUMNS)),
        }


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
