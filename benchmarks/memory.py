"""Peak memory of Spark's Python workers, sampled from ``/proc`` while a job runs.

In local mode the Python workers are descendants of this process: the driver starts
the JVM, the JVM starts ``python -m pyspark.daemon``, and the daemon forks one worker
per concurrent task (their command line stays the daemon's). A background thread walks
the process tree every ``interval`` seconds and records, for the Python processes under
the JVM whose command line mentions ``pyspark``, the largest single RSS and the largest
sum of RSS seen. Without ``/proc`` (not Linux) nothing is measured and peaks are None.
"""

from __future__ import annotations

import os
import threading
from collections import defaultdict
from pathlib import Path
from types import TracebackType

PROC = Path("/proc")
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_MB = 1024 * 1024


def _parents() -> dict[int, list[int]]:
    """Children of every process, from ``/proc/<pid>/stat``."""
    children: dict[int, list[int]] = defaultdict(list)
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses
        fields = stat[stat.rindex(")") + 2 :].split()
        children[int(fields[1])].append(int(entry.name))
    return children


def _descendants(root: int) -> list[int]:
    children = _parents()
    found: list[int] = []
    todo = list(children.get(root, []))
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def _is_python_worker(pid: int) -> bool:
    try:
        cmdline = (PROC / str(pid) / "cmdline").read_bytes()
    except OSError:
        return False
    return b"pyspark" in cmdline and b"python" in cmdline.split(b"\0", 1)[0]


def _rss_bytes(pid: int) -> int:
    try:
        return int((PROC / str(pid) / "statm").read_text().split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):
        return 0


def worker_rss(root: int | None = None) -> dict[int, int]:
    """RSS in bytes of each Spark Python worker process under ``root`` (default: us)."""
    root = os.getpid() if root is None else root
    return {
        pid: _rss_bytes(pid) for pid in _descendants(root) if pid != root and _is_python_worker(pid)
    }


class WorkerMemorySampler:
    """Context manager sampling the Python workers' RSS in a background thread."""

    def __init__(self, interval: float = 0.1, enabled: bool = True) -> None:
        self.interval = interval
        self.available = enabled and PROC.is_dir()
        self.peak_max_bytes = 0
        self.peak_sum_bytes = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def sample(self) -> None:
        """Take one sample now."""
        sizes = worker_rss()
        if sizes:
            self.peak_max_bytes = max(self.peak_max_bytes, max(sizes.values()))
            self.peak_sum_bytes = max(self.peak_sum_bytes, sum(sizes.values()))

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            self.sample()

    def __enter__(self) -> WorkerMemorySampler:
        if self.available:
            self.sample()
            self._thread = threading.Thread(target=self._loop, name="rss-sampler", daemon=True)
            self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self.sample()

    @property
    def peak_max_mb(self) -> float | None:
        """Largest RSS of one worker, in MB (None when not measurable)."""
        return self.peak_max_bytes / _MB if self.available else None

    @property
    def peak_sum_mb(self) -> float | None:
        """Largest total RSS of all workers at one moment, in MB."""
        return self.peak_sum_bytes / _MB if self.available else None
