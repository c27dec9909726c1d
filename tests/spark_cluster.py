"""A Spark standalone cluster on this machine for tests, and drivers that use it.

:class:`StandaloneCluster` starts a master and workers as separate processes from the
pip PySpark install (``spark-class org.apache.spark.deploy.master.Master`` / ``...Worker``),
on 127.0.0.1 only, one core and little memory each, every log and work directory in a
temporary folder; :meth:`StandaloneCluster.stop` kills every process it started (their
process groups, so the executors the workers launched go too).

The test run's one local SparkSession cannot share its JVM with a cluster session, so
cluster jobs run in a child driver process (``cluster_driver.py``, :func:`run_driver`)
that prints its results as JSON. :func:`isolated_python` builds a Python for executors
that sees only the packages asked for (no matchrec), as on a fresh cluster node.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path
from typing import Any

import pyspark

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "cluster_driver.py"
SPARK_HOME = Path(pyspark.__file__).resolve().parent
STARTUP_SECONDS = 180


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class StandaloneCluster:
    """A master and ``workers`` workers (1 core, ``worker_memory`` each) on 127.0.0.1."""

    def __init__(self, workers: int = 2, worker_memory: str = "1g") -> None:
        self.workers = workers
        self.worker_memory = worker_memory
        self.root = Path(tempfile.mkdtemp(prefix="matchrec-cluster-"))
        self.port = _free_port()
        self.master = f"spark://127.0.0.1:{self.port}"
        self.processes: list[subprocess.Popen] = []

    def _spawn(self, name: str, args: list[str], env: dict[str, str]) -> Path:
        log = self.root / f"{name}.log"
        with open(log, "wb") as out:
            self.processes.append(
                subprocess.Popen(
                    [str(SPARK_HOME / "bin" / "spark-class"), *args],
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    env=env,
                    cwd=self.root,
                    start_new_session=True,  # its own process group: stop() kills it whole
                    preexec_fn=_die_with_parent,
                )
            )
        return log

    def start(self) -> StandaloneCluster:
        """Start the master and the workers; return once every worker has registered."""
        from matchrec.runtime.session import ensure_java

        ensure_java()
        env = dict(os.environ)
        env.update(
            SPARK_HOME=str(SPARK_HOME),
            SPARK_LOCAL_IP="127.0.0.1",
            SPARK_DAEMON_MEMORY="256m",
            SPARK_MASTER_OPTS="-Dspark.master.rest.enabled=false",
            SPARK_WORKER_OPTS="-Dspark.worker.cleanup.enabled=false",
            SPARK_LOG_DIR=str(self.root),
            SPARK_PID_DIR=str(self.root),
        )
        try:
            master = ["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1"]
            master += ["--port", str(self.port), "--webui-port", "0"]
            master_log = self._spawn("master", master, env)
            logs = []
            for n in range(self.workers):
                work = self.root / f"work{n}"
                work.mkdir()
                worker = ["org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1"]
                worker += ["--cores", "1", "--memory", self.worker_memory, "--webui-port", "0"]
                worker += ["--work-dir", str(work), self.master]
                logs.append(self._spawn(f"worker{n}", worker, env))
            self._wait([master_log], "I have been elected leader")
            self._wait(logs, "Successfully registered with master")
        except BaseException:
            self.stop()
            raise
        return self

    def _wait(self, logs: list[Path], line: str) -> None:
        deadline = time.monotonic() + STARTUP_SECONDS
        while time.monotonic() < deadline:
            if all(line in log.read_text(errors="replace") for log in logs):
                return
            dead = [p for p in self.processes if p.poll() is not None]
            if dead:
                break
            time.sleep(0.2)
        tails = "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-2000:]}" for p in logs)
        raise RuntimeError(f"the Spark cluster did not start ({line!r} not seen):\n{tails}")

    def stop(self) -> None:
        """Kill every process this cluster started (and their children), then its files."""
        for proc in self.processes:
            _kill_group(proc, signal.SIGTERM)
        deadline = time.monotonic() + 20
        for proc in self.processes:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
        for proc in self.processes:
            _kill_group(proc, signal.SIGKILL)  # and executors left in the group
            proc.wait()
        self.processes.clear()
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> StandaloneCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _die_with_parent() -> None:
    """In the child before exec (Linux): SIGTERM it when this process dies, so a test
    run killed without teardown leaves no cluster behind."""
    if sys.platform.startswith("linux"):
        import ctypes

        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)


def _kill_group(proc: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


# ------------------------------------------------------------------ executor Pythons


def _distribution_closure(names: list[str]) -> list[metadata.Distribution]:
    """The installed distributions ``names`` and everything they require (no extras)."""
    seen: dict[str, metadata.Distribution] = {}
    todo = list(names)
    while todo:
        name = todo.pop()
        key = name.lower().replace("_", "-")
        if key in seen:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        seen[key] = dist
        for req in dist.requires or []:
            if "extra ==" in req:
                continue
            todo.append(re.match(r"[A-Za-z0-9._-]*", req.strip()).group())  # the name
    return list(seen.values())


def isolated_python(dest: Path, packages: list[str]) -> Path:
    """A venv at ``dest`` without system site-packages that sees only ``packages`` (and
    what they require), linked from this interpreter's installation: no downloads, no
    matchrec. Returns its ``python``."""
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(dest)], check=True, timeout=120
    )
    python = dest / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    for dist in _distribution_closure(packages):
        base = Path(dist.locate_file(""))
        tops = {Path(str(f)).parts[0] for f in dist.files or [] if not str(f).startswith("..")}
        for top in tops:
            if top.endswith(".pth") or top == "__pycache__":
                continue
            target = site / top
            if not target.exists() and (base / top).exists():
                target.symlink_to(base / top)
    return python


# ------------------------------------------------------------------ drivers


def other_minor_python() -> str | None:
    """A Python of another minor version than this one found on this machine, or None."""
    import glob

    mine = sys.version_info[:2]
    candidates = [shutil.which(f"python3.{minor}") for minor in range(8, 16)]
    candidates += sorted(glob.glob(str(Path(sys.base_prefix).parent / "3.*" / "bin" / "python3")))
    for candidate in filter(None, candidates):
        try:
            out = subprocess.run(
                [candidate, "-c", "import sys; print(*sys.version_info[:2])"],
                capture_output=True,
                text=True,
                timeout=30,
            ).stdout.split()
        except (OSError, subprocess.SubprocessError):
            continue
        if len(out) == 2 and tuple(map(int, out)) != mine and int(out[1]) >= 9:
            return candidate
    return None


def run_driver(spec: dict[str, Any], timeout: float = 300) -> dict[str, Any]:
    """Run ``cluster_driver.py`` with ``spec`` in a child process; its JSON result.

    The child imports the same matchrec as this process (its folder goes first on
    ``PYTHONPATH``).
    """
    import matchrec

    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(spec, handle)
    env = dict(os.environ)
    source = str(Path(matchrec.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (source, env.get("PYTHONPATH")) if p)
    try:
        proc = subprocess.run(
            [sys.executable, str(DRIVER), handle.name],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            cwd=tempfile.gettempdir(),  # not the checkout: nothing found by accident
        )
    finally:
        os.unlink(handle.name)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        raise AssertionError(
            f"cluster driver failed (exit {proc.returncode}):\n{proc.stdout[-3000:]}\n"
            f"{proc.stderr[-5000:]}"
        )
    return json.loads(lines[-1])
