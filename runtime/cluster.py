"""Make a session's executors able to run matchrec, once per session, before any job.

On a cluster the Python workers run on other machines (or at least in other processes
with their own working directory and Python), usually without matchrec installed. The
first time matchrec builds a DataFrame on a session (:func:`ship`, then :func:`check`
once it is planned, so that mistakes in the query are still reported first):

* does nothing in local mode (``local``, ``local[N]``) when the workers run this
  driver's Python (its ``bin`` folder: ``get_spark`` sees to it): they are children of
  this driver and import the same matchrec. A local session whose workers start another
  Python (``PYSPARK_PYTHON``; often ``python3`` from ``PATH``, without PyArrow) gets
  the probe below, so that a missing PyArrow is one line, not a worker traceback;
* otherwise ships matchrec itself: its installed package tree (core, ``grammar``,
  ``planner``, ``runtime``, the ``.lark`` grammar; no data files) zipped with the import
  layout ``matchrec/...``, with its pure-Python dependencies Lark and sqlglot, and
  added with ``SparkContext.addPyFile``, which puts it first
  on the workers' ``sys.path`` so they run the driver's exact version even where
  another one is installed. ``spark.matchrec.ship=false`` turns this off;
* then runs one tiny probe job (one task per default parallelism slot, no Arrow) that
  imports what the real job needs and reports the executors' Python version and
  packages; a missing package or another minor Python version becomes one
  :class:`ClusterSetupError` line saying what to install where, instead of a worker
  traceback in the middle of the user's job. The probe costs one short job per session.

A Spark Connect session has no ``SparkContext`` to ship files with: there the probe
alone runs (unless the server says its master is local), and a missing matchrec is
reported the same way.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import sys
import tempfile
import threading
import zipfile
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from matchrec.errors import MatchRecognizeError

if TYPE_CHECKING:
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

#: ``false`` turns off shipping matchrec to the executors (it is installed there)
SHIP_CONF = "spark.matchrec.ship"
#: the packages shipped, in the import layout the executors see
PACKAGES = ("matchrec", "matchrec.grammar", "matchrec.planner", "matchrec.runtime")
#: files of those packages that executors may need (code and the grammar)
SHIPPED_SUFFIXES = (".py", ".lark")
#: pure-Python packages matchrec imports on executors, shipped with it: ``sqlglot`` (the
#: compiled DEFINE glue lives in the planner) and ``lark`` (the SQL table function plans
#: its clause there)
DEPENDENCIES = ("lark", "sqlglot")
#: what the probe imports on an executor, in order, and what a user installs for each,
#: by the door that uses the session: ``matchrec.sql``/``match_recognize`` run the
#: matcher there (:mod:`matchrec.runtime.partitions`, and the compiled DEFINE glue of
#: :mod:`matchrec.planner.pyeval`), the SQL table function its whole module,
#: MATCH_RECOGNIZE_DYNAMIC its module (which imports pandas), and a stream PySpark's
#: ``transformWithStateInPandas`` (pandas, and protobuf for its state messages)
NEEDED: dict[str, tuple[tuple[str, str], ...]] = {
    "dynamic": (
        ("numpy", "numpy"),
        ("pyarrow", "pyarrow"),
        ("pandas", "pandas"),
        ("matchrec.runtime.dynamic", "matchrec"),
    ),
    "stream": (
        ("numpy", "numpy"),
        ("pyarrow", "pyarrow"),
        ("pandas", "pandas"),
        ("google.protobuf.descriptor", "protobuf"),
        ("matchrec.runtime.streaming", "matchrec"),
        ("matchrec.runtime.dynamic", "matchrec"),
    ),
    "sql": (
        ("numpy", "numpy"),
        ("pyarrow", "pyarrow"),
        ("matchrec.runtime.partitions", "matchrec"),
        ("matchrec.planner.pyeval", "matchrec"),  # match-dependent DEFINE glue (sqlglot)
    ),
    "udtf": (
        ("numpy", "numpy"),
        ("pyarrow", "pyarrow"),
        ("lark", "lark"),
        ("sqlglot", "sqlglot"),
        ("matchrec.runtime.udtf", "matchrec"),
    ),
}

_prepared: set[tuple[str, str]] = set()  # (session, door) done; (session, "shipped")
_lock = threading.Lock()


class ClusterSetupError(MatchRecognizeError):
    """The cluster's executors cannot run matchrec (raised before the user's job runs)."""

    kind = "cluster setup error"


def is_local_master(master: str) -> bool:
    """True for ``local`` and ``local[N]`` / ``local[N,F]`` / ``local[*]``, whose
    workers share the driver's Python; ``local-cluster[...]`` is a cluster."""
    return master == "local" or master.startswith("local[")


def prepare(spark: SparkSession, door: str = "sql") -> None:
    """:func:`ship` then :func:`check`: call before building the door's functions."""
    ship(spark)
    check(spark, door)


def ship(spark: SparkSession) -> None:
    """Add matchrec's zip to ``spark``'s Python files (once per session; no job runs;
    nothing in local mode or with ``spark.matchrec.ship=false``).

    Call it before building the DataFrames whose Python functions need matchrec: PySpark
    gives a function the files added up to its creation.
    """
    context = _context(spark)
    if context is None or _runs_driver_python(spark, context):
        return
    session = _session_key(spark, context)
    with _lock:
        if (session, "shipped") in _prepared or not _ship_enabled(spark):
            return
        if not package_files():
            return
        context.addPyFile(str(package_zip()))
        _prepared.add((session, "shipped"))


def driver_worker_paths(spark: SparkSession) -> tuple[str, ...]:
    """Where a Python worker that Spark starts on the driver's machine with the executors'
    Python finds matchrec: the zip :func:`ship` added, or the zips the driver imported
    matchrec and its dependencies from (``--py-files``). Spark gives both to the
    executors' workers but not to the worker that runs a stateful processor's ``init``
    (:mod:`.processor_pickle`). Nothing in local mode with the driver's Python."""
    context = _context(spark)
    if context is None or _runs_driver_python(spark, context):
        return ()
    with _lock:
        shipped = (_session_key(spark, context), "shipped") in _prepared
    if shipped:
        return (str(package_zip()),)
    archives = (archive_of(name) for name in ("matchrec", *DEPENDENCIES))
    return tuple(dict.fromkeys(a for a in archives if a))


def archive_of(module: str) -> str | None:
    """The zip an imported ``module`` was loaded from (``zipimport``), else None."""
    import importlib

    return getattr(getattr(importlib.import_module(module), "__loader__", None), "archive", None)


def check(spark: SparkSession, door: str = "sql") -> None:
    """Check, with one tiny probe job, that ``spark``'s executors can run what ``door``
    (``sql``, ``udtf``, ``dynamic`` or ``stream``, see :data:`NEEDED`) needs there: once
    per session and door, a no-op in local mode with the driver's Python. Raises
    :class:`ClusterSetupError`."""
    context = _context(spark)
    if _runs_driver_python(spark, context):
        return
    session = _session_key(spark, context)
    with _lock:
        if (session, door) in _prepared:
            return
        shipped = (session, "shipped") in _prepared
        _check(_run_probe(spark, context, NEEDED[door]), NEEDED[door], shipped)
        _prepared.add((session, door))


def _context(spark: SparkSession) -> SparkContext | None:
    """The session's SparkContext, or None for a Spark Connect session."""
    from .session import is_connect

    if is_connect(spark):
        return None  # (its sparkContext property raises)
    return spark.sparkContext


def _runs_driver_python(spark: SparkSession, context: SparkContext | None) -> bool:
    """Whether the session's Python workers are local and run this driver's Python."""
    return is_local_master(_master(spark, context)) and shares_driver_python(
        _worker_python(context)
    )


def _worker_python(context: SparkContext | None) -> str | None:
    """The Python that Spark starts for Python workers, when this process knows it (a
    Spark Connect server's environment is not visible from here)."""
    return None if context is None else context.pythonExec


def shares_driver_python(worker: str | None) -> bool:
    """Whether local-mode workers that start ``worker`` (a path, or a name looked up on
    ``PATH``) run in this interpreter's environment, so import the packages it imports:
    the same ``bin`` folder (``python``, ``python3``, ``python3.11`` of one venv)."""
    if worker is None:
        return False
    path = shutil.which(worker) or worker
    here = os.path.dirname(os.path.abspath(sys.executable))
    return os.path.dirname(os.path.abspath(path)) == here


def _master(spark: SparkSession, context: SparkContext | None) -> str:
    """The session's master URL; a Spark Connect server may not tell it ("")."""
    if context is not None:
        return context.master
    try:
        return str(spark.conf.get("spark.master", "") or "")
    except Exception:  # a server that hides its static settings: probe it like a cluster
        return ""


def _session_key(spark: SparkSession, context: SparkContext | None) -> str:
    if context is not None:
        return "app:" + context.applicationId
    return "connect:" + str(getattr(spark, "session_id", id(spark)))


def _ship_enabled(spark: SparkSession) -> bool:
    return str(spark.conf.get(SHIP_CONF, "true")).strip().lower() != "false"


# ------------------------------------------------------------------ the package zip


def package_files() -> dict[str, Path]:
    """Every file shipped, by its name in the zip (``matchrec/grammar/parser.py``...).

    Read from where the packages were imported: a source checkout keeps ``grammar/``,
    ``planner/`` and ``runtime/`` beside ``matchrec/``, an installed package inside it;
    both give the same zip. The pure-Python dependencies the executors import
    (:data:`DEPENDENCIES`) go in too, whole.
    """
    import importlib

    found: dict[str, Path] = {}
    subpackages = {p.rsplit(".", 1)[-1] for p in PACKAGES[1:]}
    for name in PACKAGES:
        root = Path(importlib.import_module(name).__file__ or "").parent
        if not root.is_dir():  # imported from a zip (--py-files): Spark ships that one
            return {}
        for relative, path in _tree(root, SHIPPED_SUFFIXES):
            if name == "matchrec" and relative.parts[0] in subpackages:
                continue  # installed layout: the subpackage adds its own files
            found.setdefault(f"{name.replace('.', '/')}/{relative.as_posix()}", path)
    for name in DEPENDENCIES:
        root = Path(importlib.import_module(name).__file__ or "").parent
        for relative, path in _tree(root, None):
            found.setdefault(f"{name}/{relative.as_posix()}", path)
    return found


def _tree(root: Path, suffixes: tuple[str, ...] | None) -> Iterator[tuple[Path, Path]]:
    """Files under ``root`` (relative path, path): with ``suffixes``, only those; else
    all but compiled ones."""
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if not path.is_file() or "__pycache__" in relative.parts:
            continue
        if suffixes is not None and path.suffix not in suffixes:
            continue
        if suffixes is None and path.suffix in (".pyc", ".so", ".pyd", ".dylib"):
            continue
        yield relative, path


def zip_bytes(files: dict[str, Path]) -> bytes:
    """The zip of ``files``, byte-for-byte the same for the same contents and Python.

    Each module also goes in compiled (``x.pyc`` beside ``x.py``, unchecked-hash, which
    ``zipimport`` loads without looking at the source): an executor worker would
    otherwise compile every module it imports from the zip, each time it starts. A
    Python of another version ignores those and compiles the sources.
    """
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for arcname in sorted(files):
            source = files[arcname].read_bytes()
            _add(archive, arcname, source)
            if arcname.endswith(".py"):
                _add(archive, arcname + "c", _compiled(source, arcname))
    return buffer.getvalue()


def _add(archive: zipfile.ZipFile, arcname: str, data: bytes) -> None:
    info = zipfile.ZipInfo(arcname, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    archive.writestr(info, data)


def _compiled(source: bytes, arcname: str) -> bytes:
    """The ``.pyc`` bytes of ``source`` (unchecked hash-based, as ``py_compile`` writes)."""
    import importlib.util
    from importlib import _bootstrap_external  # the one public-enough pyc writer

    code = compile(source, arcname, "exec", dont_inherit=True)
    digest = importlib.util.source_hash(source)
    return bytes(_bootstrap_external._code_to_hash_pyc(code, digest, checked=False))


@lru_cache(maxsize=1)
def package_zip() -> Path:
    """matchrec as a zip for ``addPyFile``, built once per process (removed at exit);
    the name carries the version and a hash of the contents (executors keep files by
    name)."""
    import atexit
    import shutil

    import matchrec

    data = zip_bytes(package_files())
    digest = hashlib.sha256(data).hexdigest()[:12]
    folder = tempfile.mkdtemp(prefix="matchrec-ship-")
    atexit.register(shutil.rmtree, folder, True)
    path = Path(folder) / f"matchrec-{matchrec.__version__}-{digest}.zip"
    path.write_bytes(data)
    return path


# ------------------------------------------------------------------ the probe


def _probe_function(needed: tuple[tuple[str, str], ...]) -> Callable[[Iterable[Any]], Iterator]:
    """The probe run on executors, built here so that it is pickled by value (it must
    run where matchrec cannot be imported)."""

    def probe(_: Iterable[Any]) -> Iterator[dict[str, str | None]]:
        import importlib
        import sys as _sys

        report: dict[str, str | None] = {
            "python": "{}.{}".format(*_sys.version_info[:2]),
            "executable": _sys.executable,
            "missing": None,
        }
        for module, _package in needed:
            try:
                importlib.import_module(module)
            except ImportError as exc:
                report["missing"] = module
                report["module"] = getattr(exc, "name", None) or module
                report["error"] = f"{type(exc).__name__}: {exc}"
                break
        yield report

    return probe


def _run_probe(
    spark: SparkSession, context: SparkContext | None, needed: tuple[tuple[str, str], ...]
) -> list[dict[str, Any]]:
    """The probe's reports (one per task); a failure to start the executors' Python
    becomes a ClusterSetupError."""
    probe = _probe_function(needed)
    try:
        if context is not None:
            slots = max(1, min(context.defaultParallelism, 64))
            return context.parallelize(range(slots), slots).mapPartitions(probe).collect()
        return _run_probe_connect(spark, probe)
    except Exception as exc:  # a Py4J or Spark error: translated, not passed through
        raise ClusterSetupError(_worker_failure(exc)) from None


def _run_probe_connect(spark: SparkSession, probe: Callable) -> list[dict[str, Any]]:
    """The probe through a plain Python UDF (a Connect session has no RDDs)."""
    import json

    from pyspark.sql import functions as F

    run = F.udf(lambda _: json.dumps(next(iter(probe([])))), "string")
    return [json.loads(row[0]) for row in spark.range(1).select(run("id")).collect()]


#: how a probe that failed before reporting is explained: (pattern in Spark's error,
#: the line shown; ``{driver}`` and the pattern's groups are filled in)
WORKER_FAILURES = (
    (
        r"different version:?\s*(?P<worker>[\d.]+) than that in driver",
        "the executors run Python {worker}, the driver Python {driver}: use the same minor "
        "version on both (PYSPARK_PYTHON, or spark-submit's --conf spark.pyspark.python)",
    ),
    (
        r"(?P<detail>Cannot run program [^\n;]*)",
        "the executors cannot start Python ({detail}): set PYSPARK_PYTHON (or spark-submit's "
        "--conf spark.pyspark.python) to a Python installed on every node",
    ),
)


def _worker_failure(exc: Exception) -> str:
    """One line for a probe that failed before reporting (the executors' Python did not
    start, or started with another minor version)."""
    import re

    text = str(exc)
    for pattern, message in WORKER_FAILURES:
        found = re.search(pattern, text)
        if found:
            groups = {k: v.strip() for k, v in found.groupdict().items()}
            return message.format(driver=_driver_python(), **groups)
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), type(exc).__name__)
    return f"the executors could not run a Python task: {first[:300]}"


def _driver_python() -> str:
    return "{}.{}".format(*sys.version_info[:2])


def _check(
    reports: list[dict[str, Any]], needed: tuple[tuple[str, str], ...], shipped: bool
) -> None:
    """Raise a ClusterSetupError for the first executor report that shows a problem."""
    install = dict(needed)
    for report in reports:
        where = report.get("executable") or "the executors' Python"
        if report.get("python") != _driver_python():
            raise ClusterSetupError(
                f"the executors run Python {report.get('python')} ({where}), the driver "
                f"Python {_driver_python()}: use the same minor version on both"
            )
        missing = report.get("missing")
        if missing is None:
            continue
        package = install[missing]
        absent = str(report.get("module") or missing).split(".")[0]
        if package == "matchrec" and absent != "matchrec":
            package = absent  # matchrec is there, a module it imports is not
        if package == "matchrec":
            how = (
                f"it was shipped but fails there ({report.get('error')})"
                if shipped
                else "pip install matchrec in that Python on every node, or add its zip "
                "with spark.submit.pyFiles"
            )
            raise ClusterSetupError(
                f"matchrec cannot be imported on the executors ({where}): {how}"
            )
        raise ClusterSetupError(
            f"the executors' Python ({where}) has no {package}: pip install {package} "
            "in that Python on every node (or ship a venv with spark.archives)"
        )
