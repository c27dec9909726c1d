"""Optional: the V-shape query run by Flink SQL (PyFlink's local mini-cluster).

Used only with ``--flink`` and only if ``pyflink`` (the ``apache-flink`` package) is
importable by the interpreter chosen for it: ``--flink-python`` (e.g. a separate venv,
since PyFlink pins its own pandas/pyarrow), else this one; otherwise the run says it was
skipped. Flink runs in a child process (this file as a script), so its JVM and py4j
never meet PySpark's: batch mode, parallelism 2,
the same rows as CSV (Flink's bundled CSV format; Parquet needs an extra jar), a
``blackhole`` sink as Spark's ``noop``. The child prints one JSON line:
``{"times": [...], "count": N}`` or ``{"error": "..."}``.

The sink has the V-shape's columns (symbol, s, b, e): only V-shape queries are run here.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

UNAVAILABLE = (
    "PyFlink is not importable (pip install apache-flink, here or in a venv given with "
    "--flink-python, to compare with Flink SQL)"
)
TIMEOUT_SECONDS = 4 * 3600

SOURCE_DDL = """
CREATE TABLE ticks (
  symbol STRING,
  ts TIMESTAMP(3),
  price DOUBLE,
  WATERMARK FOR ts AS {watermark}
) WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'csv')
"""

SINK_DDL = """
CREATE TABLE sink (symbol STRING, s TIMESTAMP(3), b TIMESTAMP(3), e TIMESTAMP(3))
WITH ('connector' = 'blackhole')
"""


@dataclass
class FlinkResult:
    times: list[float] = field(default_factory=list)
    count: int | None = None
    error: str | None = None


def available(python: str | None = None) -> bool:
    """Whether PyFlink can be imported here, or by the interpreter ``python``."""
    if python is None:
        return importlib.util.find_spec("pyflink") is not None
    try:
        probe = subprocess.run(
            [python, "-c", "import pyflink"], capture_output=True, timeout=120, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return probe.returncode == 0


#: the watermark of each mode: batch ignores it; a stream allows rows 10 s out of order
#: (as ``benchmarks.stream`` gives Spark)
WATERMARKS = {"batch": "ts", "streaming": "ts - INTERVAL '10' SECOND"}


def ensure_csv(parquet_path: Path, by_time: bool = False) -> Path:
    """A headerless CSV copy of a generated dataset (symbol, ts as text, price); with
    ``by_time`` in event-time order, as a stream delivers it (the dataset is in symbol
    order: a stream reading that would find most rows behind its watermark)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    path = parquet_path.with_suffix(".bytime.csv" if by_time else ".csv")
    if path.exists():
        return path
    table = pq.read_table(parquet_path)
    if by_time:
        table = table.sort_by([("ts", "ascending"), ("symbol", "ascending")])
    ts = pc.strftime(table.column("ts").cast(pa.timestamp("s", tz="UTC")), "%Y-%m-%d %H:%M:%S")
    out = pa.table({"symbol": table.column("symbol"), "ts": ts, "price": table.column("price")})
    tmp = path.with_name(path.name + ".tmp")
    pacsv.write_csv(
        out, tmp, write_options=pacsv.WriteOptions(include_header=False, quoting_style="none")
    )
    tmp.replace(path)
    return path


def run(
    csv: Path, query: str, repeat: int, python: str | None = None, mode: str = "batch"
) -> FlinkResult:
    """Count ``query``'s result once, then time ``repeat`` runs into a blackhole sink.

    ``python`` is the interpreter with PyFlink (default: this one); ``mode`` is Flink's
    runtime mode, ``batch`` or ``streaming`` (event time from the ``ts`` watermark; the
    bounded file source ends with a final watermark that settles every match).
    """
    interpreter = python or sys.executable
    cmd = [interpreter, str(Path(__file__).resolve()), str(csv.resolve()), str(repeat), mode]
    try:
        proc = subprocess.run(
            cmd,
            input=query,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return FlinkResult(error=f"timed out after {TIMEOUT_SECONDS}s")
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if not lines:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return FlinkResult(error=f"Flink child exited {proc.returncode}: {tail[:300]}")
    data = json.loads(lines[-1])
    return FlinkResult(data.get("times", []), data.get("count"), data.get("error"))


def _child(csv: str, repeat: int, query: str, mode: str = "batch") -> dict:
    """In the child process: run ``query`` with PyFlink over ``csv``."""
    from pyflink.table import EnvironmentSettings, TableEnvironment

    settings = (
        EnvironmentSettings.in_streaming_mode()
        if mode == "streaming"
        else EnvironmentSettings.in_batch_mode()
    )
    env = TableEnvironment.create(settings)
    config = env.get_config()
    config.set("parallelism.default", "2")
    config.set("table.exec.resource.default-parallelism", "2")
    env.execute_sql(SOURCE_DDL.format(path=csv, watermark=WATERMARKS[mode]))
    env.execute_sql(SINK_DDL)
    with env.execute_sql(f"SELECT COUNT(*) FROM ({query})").collect() as rows:
        # a stream's count is a changelog: its last row is the final count
        count = int(list(rows)[-1][0])
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        env.execute_sql(f"INSERT INTO sink {query}").wait()
        times.append(time.perf_counter() - started)
    return {"times": times, "count": count}


if __name__ == "__main__":
    # run as a script: don't let this folder's modules shadow anything PyFlink imports
    here = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != here]
    try:
        mode = sys.argv[3] if len(sys.argv) > 3 else "batch"
        result = _child(sys.argv[1], int(sys.argv[2]), sys.stdin.read(), mode)
    except Exception as exc:  # reported to the parent as data
        result = {"error": f"{type(exc).__name__}: {str(exc).strip().splitlines()[0][:300]}"}
    print(json.dumps(result), flush=True)
