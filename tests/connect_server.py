"""A Spark Connect server for the tests: a local Spark session (``get_spark``) with the
Connect plugin listening on 127.0.0.1:PORT, until its standard input closes.

Run as ``python connect_server.py PORT`` (prints ``ready`` once clients can connect);
:func:`serve` starts it as a child process and stops it. A separate process because a
Python process holds classic or Connect sessions, not both.
"""

from __future__ import annotations

import os
import select
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

STARTUP_SECONDS = 180


def main(port: int) -> None:
    from matchrec.runtime.session import get_spark

    spark = get_spark(
        conf={
            "spark.plugins": "org.apache.spark.sql.connect.SparkConnectPlugin",
            "spark.connect.grpc.binding.address": "127.0.0.1",
            "spark.connect.grpc.binding.port": str(port),
        }
    )
    print("ready", flush=True)
    sys.stdin.read()  # until the test run closes our input (or ends)
    spark.stop()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_ready(proc: subprocess.Popen) -> None:
    """Wait for the server's ``ready`` line (at most :data:`STARTUP_SECONDS`)."""
    assert proc.stdout is not None
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        readable, _, _ = select.select([proc.stdout], [], [], deadline - time.monotonic())
        if not readable:
            break
        line = proc.stdout.readline()
        if line.strip() == "ready":
            return
        if not line:  # the server ended
            break
    raise RuntimeError(f"the Connect server did not start (exit status {proc.poll()})")


@contextmanager
def serve() -> Iterator[str]:
    """A Connect server in a child process for the ``with`` block; yields its address."""
    port = _free_port()
    log = tempfile.NamedTemporaryFile("w+", prefix="matchrec-connect-", suffix=".log")
    proc = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), str(port)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=log,  # the server logs each failed request: kept out of the test output
        text=True,
        env=dict(os.environ),
        start_new_session=True,  # its JVM and Python workers go with it
    )
    try:
        try:
            _wait_ready(proc)
        except RuntimeError as exc:
            log.seek(0)
            raise RuntimeError(f"{exc}:\n{log.read()[-5000:]}") from None
        yield f"sc://127.0.0.1:{port}"
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()
        log.close()


if __name__ == "__main__":
    main(int(sys.argv[1]))
