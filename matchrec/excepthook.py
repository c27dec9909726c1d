"""Show an uncaught matchrec error as its message and caret, not a planner traceback.

A script that calls ``matchrec.sql`` with a mistake in its query would otherwise end
with 20-40 lines of grammar and planner frames before the one message that matters.
:func:`install` (run when ``matchrec`` is imported) wraps ``sys.excepthook`` so that
an uncaught :class:`~matchrec.errors.MatchRecognizeError`, or a Spark error that carries
one raised in a Python worker (a DEFINE failing during a job, the table function's
analysis), prints the frames of the user's own code and then the matchrec message.
Every other exception goes to the hook that was installed before, unchanged. Set
``MATCHREC_FULL_TRACEBACK=1`` to see the full traceback instead.

This module never imports Spark: Spark's errors are recognised by the matchrec error
quoted in their text.
"""

from __future__ import annotations

import os
import re
import sys
import sysconfig
import traceback
from collections.abc import Callable
from types import TracebackType

from matchrec.carried import rebuild
from matchrec.errors import MatchRecognizeError

_QUOTED = re.compile(r"^matchrec\.errors\.\w+: ", re.MULTILINE)
_SPARK_TAIL = re.compile(r"\s*SQLSTATE: \w+.*$", re.DOTALL)

Hook = Callable[[type[BaseException], BaseException, TracebackType | None], object]


def carried_error(exc: BaseException) -> str | None:
    """The matchrec message (with its caret) that ``exc`` is or carries, else None.

    A Spark error raised for a Python worker's failure quotes the worker's traceback; the
    matchrec error is its last ``matchrec.errors.<Class>: ...`` entry."""
    if isinstance(exc, MatchRecognizeError):
        return exc.render()
    if not type(exc).__module__.startswith(("pyspark", "py4j")):
        return None
    text = str(exc)
    found = list(_QUOTED.finditer(text))
    if not found:
        return None
    quoted = text[found[-1].end() :]
    return _SPARK_TAIL.sub("", quoted).rstrip()


def carried_rebuilt(exc: BaseException, query: str | None = None) -> MatchRecognizeError | None:
    """The matchrec error that ``exc`` carries (:func:`carried_error`) as that error again,
    its caret in ``query`` where given (:func:`matchrec.carried.rebuild`); else None."""
    text = carried_error(exc)
    return rebuild(text, query) if text is not None else None


def _is_library(filename: str) -> bool:
    """Whether a frame's file is matchrec's, Spark's client's or Python's own."""
    path = os.path.abspath(filename)
    parts = set(os.path.normpath(path).split(os.sep))
    folders = [os.path.dirname(os.path.abspath(__file__)), sysconfig.get_paths()["stdlib"]]
    for sub in ("grammar", "planner", "runtime"):  # beside matchrec/ in a source checkout
        module = sys.modules.get(f"matchrec.{sub}")
        if module is not None and getattr(module, "__file__", None):
            folders.append(os.path.dirname(module.__file__))
    inside = any(path.startswith(os.path.abspath(f) + os.sep) for f in folders)
    return inside or bool(parts & {"pyspark", "py4j"})


def short_report(exc: BaseException, message: str) -> str:
    """The user's own frames (none of matchrec, PySpark or py4j) and the message."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not _is_library(f.filename)]
    lines = []
    if frames:
        lines.append("Traceback (most recent call last; matchrec and Spark frames hidden):")
        lines.extend(traceback.format_list(frames))
    if isinstance(exc, MatchRecognizeError):
        lines.append(f"{type(exc).__name__}: {message}\n")
        spark_class = _spark_class(exc)
        if spark_class is not None:  # a worker's error raised as ours (runtime.worker_errors)
            lines.append(f"(Spark reported it as {spark_class})\n")
    else:
        lines.append(f"{message}\n(Spark reported it as {type(exc).__name__})\n")
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _spark_class(exc: BaseException) -> str | None:
    """The name of the PySpark class of Spark's error that a matchrec error also is, if
    any (not the plain class of a query's fault, ``AnalysisException``, that an error
    found while building a query also is)."""
    for cls in type(exc).__mro__:
        if cls.__module__.startswith("pyspark.") and cls.__module__ != _PLAIN_CLASSES:
            return cls.__name__
    return None


#: PySpark's module of the error classes without Spark's state (its captured and Spark
#: Connect errors subclass them)
_PLAIN_CLASSES = "pyspark.errors.exceptions.base"


def make_hook(previous: Hook) -> Hook:
    """A ``sys.excepthook`` that reports matchrec errors briefly and hands the rest on."""

    def hook(exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None) -> object:
        message = None if os.environ.get("MATCHREC_FULL_TRACEBACK") else carried_error(exc)
        if message is None:
            return previous(exc_type, exc, tb)
        sys.stderr.write(short_report(exc, message))
        return None

    hook.matchrec_previous = previous  # type: ignore[attr-defined]
    return hook


def install() -> None:
    """Wrap the current ``sys.excepthook`` once (importing matchrec twice is harmless)."""
    if getattr(sys.excepthook, "matchrec_previous", None) is None:
        sys.excepthook = make_hook(sys.excepthook)
