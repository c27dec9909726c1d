"""A Python UDF's error while the job runs, shown at the UDF's call in the user's query.

A UDF that raises (``10 // (x - 7)`` at a price of 7) fails Spark's job with a
``PythonException`` whose text is the worker's traceback, which names the file, line and
Python function but not the SQL call: with several calls, or several UDFs, the user cannot
tell which one failed. Before a query runs, :func:`remember_udfs` notes, for each Python
UDF that DEFINE or MEASURES call, the lines of its function and where its first call is
written; the table function's ``analyze``, in a worker without the session's functions,
keeps each call's name and place in ``runtime.shared_origins``. :func:`at_udf_call` finds
the innermost frame of the traceback inside one of those functions and gives the error as
a :class:`MatchRuntimeError` at the call of the latest query that calls it (the error
itself does not say which query failed: the one just built is the one just run, as a rule;
``runtime.worker_errors`` leaves the error of a query of the user's own to PySpark),
the Python error's last line kept as the message. A classic session only (Spark Connect
keeps the UDFs' functions in the server, out of the client's reach): elsewhere the error
stays PySpark's.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from matchrec.errors import MatchRuntimeError

from . import shared_origins
from .python_udfs import session_python_function
from .recent import Recent
from .session import is_connect

if TYPE_CHECKING:
    from types import CodeType

    from matchrec.planner.plan import MatchPlan
    from matchrec.planner.python_udfs import PythonFunction
    from pyspark.sql import SparkSession

#: functions remembered at once (the least recently remembered go first)
_CAPACITY = 512
#: the table function's latest records of calls read back for one error
_SHARED_RECORDS = 32


@dataclass(frozen=True)
class _Call:
    name: str  # the UDF's name as the query calls it
    lines: range  # the lines of its Python function
    sql: str
    pos: int
    at: float  # when the query was built


_calls: Recent[tuple[str, int], _Call] = Recent(_CAPACITY)

#: a frame of Python's traceback as PySpark shows a worker's error
_FRAME = re.compile(r'^\s*File "(.+)", line (\d+), in ', re.MULTILINE)


def remember_udfs(spark: SparkSession, plan: MatchPlan) -> None:
    """Note each Python UDF of the session that ``plan`` calls, with its first call."""
    if is_connect(spark):  # the functions stay on the server: no frame to match
        return
    lookup = session_python_function(spark)
    for name, pos in plan.calls.items():
        code = _code(lookup(name))
        if code is None:  # not a Python UDF, or a callable without code of its own
            continue
        call = _Call(name, _lines(code), plan.clause.sql, pos, time.time())
        _calls.put((code.co_filename, code.co_firstlineno), call)


def at_udf_call(exc: BaseException) -> MatchRuntimeError | None:
    """``exc``, a worker's error raised in the code of a UDF that a query called, as a
    run-time error at that UDF's call in the latest such query; None when no frame of its
    traceback is in one."""
    text = str(exc)
    frames = [(m.group(1), int(m.group(2))) for m in _FRAME.finditer(text)]
    if not frames:
        return None
    known = [(file, call) for (file, _), call in _calls.latest_first()]
    try:
        known += _table_function_calls()
    except Exception:  # noqa: BLE001 - never in place of the error being told
        pass
    for filename, line in reversed(frames):
        calls = [call for file, call in known if file == filename and line in call.lines]
        if calls:
            call = max(calls, key=lambda c: c.at)
            return MatchRuntimeError(
                f"the Python UDF {call.name}() raised {_raised(text)}", sql=call.sql, pos=call.pos
            )
    return None


def _table_function_calls() -> list[tuple[str, _Call]]:
    """The calls of the active session's Python UDFs that the table function's latest
    queries hold (``shared_origins``), by the file of each UDF's function."""
    from pyspark.sql import SparkSession

    spark = SparkSession.getActiveSession()
    if spark is None or is_connect(spark):
        return []
    lookup = session_python_function(spark)
    codes: dict[str, CodeType | None] = {}
    found = []
    for name, sql, pos, at in shared_origins.recent_calls(_SHARED_RECORDS):
        if name not in codes:
            codes[name] = _code(lookup(name))
        code = codes[name]
        if code is not None:
            found.append((code.co_filename, _Call(name, _lines(code), sql, pos, at)))
    return found


def _code(found: PythonFunction | None) -> CodeType | None:
    return getattr(found.fn, "__code__", None) if found is not None else None


def _lines(code: CodeType) -> range:
    """The lines of a function's code."""
    lines = [line for *_, line in code.co_lines() if line is not None]
    return range(code.co_firstlineno, max(lines, default=code.co_firstlineno) + 1)


def _raised(text: str) -> str:
    """The exception line (``ValueError: boom``) of the last traceback in ``text``: the
    first line after its last frame that is not indented (a stream's error goes on with
    Spark's plan after it)."""
    frames = list(_FRAME.finditer(text))
    after = text[frames[-1].end() :] if frames else text
    lines = after.splitlines()[1:] if frames else after.splitlines()
    found = next((t for t in lines if t.strip() and not t[0].isspace()), None)
    if found is None:
        found = next((t for t in reversed(text.splitlines()) if t.strip()), "")
    return found.strip()
