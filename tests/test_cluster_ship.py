"""What matchrec ships to a cluster and how it explains executors that cannot run it
(pure Python; the cluster itself is in test_cluster.py)."""

from __future__ import annotations

import subprocess
import sys
import zipfile

import pytest
from matchrec.runtime import cluster
from matchrec.runtime.cluster import ClusterSetupError

MINE = "{}.{}".format(*sys.version_info[:2])


@pytest.mark.parametrize(
    ("master", "local"),
    [
        ("local", True),
        ("local[2]", True),
        ("local[*]", True),
        ("local[4,2]", True),
        ("local-cluster[2,1,1024]", False),
        ("spark://127.0.0.1:7077", False),
        ("yarn", False),
        ("k8s://https://host:443", False),
    ],
)
def test_which_masters_are_local(master, local):
    assert cluster.is_local_master(master) is local


@pytest.fixture(scope="module")
def zip_data() -> bytes:
    return cluster.zip_bytes(cluster.package_files())


def test_the_zip_holds_the_package_layout_and_its_pure_python_dependencies():
    names = set(cluster.package_files())
    expected = {
        "matchrec/__init__.py",
        "matchrec/engine.py",
        "matchrec/grammar/match_recognize.lark",
        "matchrec/grammar/parser.py",
        "matchrec/planner/pyeval.py",
        "matchrec/runtime/partitions.py",
        "lark/__init__.py",
        "sqlglot/__init__.py",
    }
    assert expected <= names
    assert not [n for n in names if "__pycache__" in n or n.startswith("matchrec/runtime/data")]
    assert not [n for n in names if n.startswith(("matchrec/matchrec", "grammar/", "runtime/"))]


def test_a_python_without_matchrec_imports_it_from_the_zip(tmp_path, zip_data):
    path = tmp_path / "matchrec.zip"
    path.write_bytes(zip_data)
    assert zipfile.ZipFile(path).read("matchrec/engine.pyc")  # compiled beside the source
    script = f"""
import sys
sys.path.insert(1, {str(path)!r})   # where addPyFile puts it on an executor
import matchrec.runtime.partitions, matchrec.planner.pyeval, sqlglot, lark
from matchrec.grammar import parse_clause
clause = parse_clause("PATTERN (A B+) DEFINE B AS B.x > A.x")
for module in (matchrec, matchrec.runtime.partitions, sqlglot, lark):
    assert module.__file__.startswith({str(path)!r}), module.__file__
print(len(clause.defines))
"""
    done = subprocess.run(
        [sys.executable, "-I", "-c", script], capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1"


def test_a_stream_processor_unpickles_from_the_zip_given_to_it(tmp_path, zip_data):
    """Spark's driver-side worker of a stream unpickles the stateful processor without the
    shipped files on its path: the processor's pickle puts them there first itself."""
    path = tmp_path / "matchrec.zip"
    path.write_bytes(zip_data)
    # pickled in a child too: importing the stream runtime here would change how this
    # process compiles the zip (marshal's output follows reference counts)
    pickled = f"""
from matchrec.runtime.streaming import MatchProcessor
from pyspark import cloudpickle
processor = MatchProcessor(spec=None, zone="Europe/Paris", settings=dict(k="v"))
processor.import_paths = ({str(path)!r},)
open("processor.pickle", "wb").write(cloudpickle.dumps(processor))
"""
    done = subprocess.run(
        [sys.executable, "-c", pickled], capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    script = f"""
import pickle, sys
processor = pickle.loads(open("processor.pickle", "rb").read())
import matchrec, sqlglot
for module in (matchrec, sys.modules[type(processor).__module__], sqlglot):
    assert module.__file__.startswith({str(path)!r}), module.__file__
print(type(processor).__name__, processor.zone, processor.settings)
"""
    done = subprocess.run(
        [sys.executable, "-I", "-c", script], capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["MatchProcessor", "Europe/Paris", "{'k':", "'v'}"]


def test_the_zip_a_module_was_imported_from_is_known(tmp_path, monkeypatch):
    """The zips of ``--py-files`` the driver imported matchrec from go to that worker too."""
    path = tmp_path / "deps.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("mr_zipped_probe/__init__.py", "VALUE = 1\n")
    monkeypatch.syspath_prepend(str(path))
    monkeypatch.delitem(sys.modules, "mr_zipped_probe", raising=False)
    assert cluster.archive_of("mr_zipped_probe") == str(path)
    assert cluster.archive_of("zipfile") is None
    sys.modules.pop("mr_zipped_probe", None)


def test_the_zip_is_the_same_for_the_same_files(zip_data):
    assert cluster.zip_bytes(cluster.package_files()) == zip_data


OK_REPORT = {"python": MINE, "executable": "/env/bin/python", "missing": None}


def _missing(module: str, absent: str) -> dict:
    return {
        **OK_REPORT,
        "missing": module,
        "module": absent,
        "error": f"No module named {absent!r}",
    }


@pytest.mark.parametrize(
    ("report", "door", "shipped", "expected"),
    [
        (OK_REPORT, "sql", True, None),
        ({**OK_REPORT, "python": "3.9"}, "sql", True, "run Python 3.9 (/env/bin/python)"),
        (_missing("pyarrow", "pyarrow"), "sql", True, "has no pyarrow: pip install pyarrow"),
        (_missing("numpy", "numpy"), "udtf", True, "has no numpy: pip install numpy"),
        (_missing("pandas", "pandas"), "dynamic", True, "has no pandas: pip install pandas"),
        (
            _missing("google.protobuf.descriptor", "google"),
            "stream",
            True,
            "has no protobuf: pip install protobuf",
        ),
        (
            _missing("matchrec.planner.pyeval", "sqlglot"),
            "sql",
            False,
            "has no sqlglot: pip install sqlglot",
        ),
        (
            _missing("matchrec.runtime.partitions", "matchrec"),
            "sql",
            False,
            "pip install matchrec in that Python on every node",
        ),
        (
            _missing("matchrec.runtime.partitions", "matchrec.runtime.partitions"),
            "sql",
            True,
            "it was shipped but fails there",
        ),
    ],
)
def test_executor_reports_become_one_line(report, door, shipped, expected):
    if expected is None:
        cluster._check([report], cluster.NEEDED[door], shipped)
        return
    with pytest.raises(ClusterSetupError) as caught:
        cluster._check([OK_REPORT, report], cluster.NEEDED[door], shipped)
    message = str(caught.value)
    assert message.startswith("cluster setup error: ") and "\n" not in message
    assert expected in message


@pytest.mark.parametrize(
    ("spark_error", "expected"),
    [
        (
            "py4j...\n[PYTHON_VERSION_MISMATCH] Python in worker has different version: 3.10 "
            "than that in driver: 3.11, PySpark cannot run with different minor versions.\n  at",
            f"the executors run Python 3.10, the driver Python {MINE}",
        ),
        (
            "Job aborted\njava.io.IOException: Cannot run program "
            '"/opt/none/bin/python": error=2, No such file or directory\n\tat java.base',
            'cannot start Python (Cannot run program "/opt/none/bin/python": error=2, No such',
        ),
        ("\nSomething else broke\nmore", "could not run a Python task: Something else broke"),
    ],
)
def test_worker_failures_become_one_line(spark_error, expected):
    message = cluster._worker_failure(RuntimeError(spark_error))
    assert "\n" not in message and expected in message


@pytest.mark.parametrize("door", ["sql", "udtf"])
def test_what_executors_import_needs_no_pandas(door):
    """Executors need NumPy and PyArrow only for MATCH_RECOGNIZE in batch: the modules the
    probe imports for those doors must not pull in pandas (a fresh cluster node has none;
    MATCH_RECOGNIZE_DYNAMIC and streams need it, and their probes ask for it)."""
    modules = [m for m, _ in cluster.NEEDED[door] if m.startswith("matchrec")]
    code = f"""
import importlib, sys
class NoPandas:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "pandas":
            raise ModuleNotFoundError("No module named 'pandas'", name="pandas")
sys.meta_path.insert(0, NoPandas())
for m in {modules!r}:
    importlib.import_module(m)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
