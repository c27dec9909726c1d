"""A Python UDF's error while the job runs, shown at the UDF's call in the user's query.

A UDF that raises (``10 // (x - 7)`` at a price of 7) fails Spark's job with a
``PythonException`` whose text is the worker's traceback, which names the file, line and
Python function but not the SQL call: with several calls, or several UDFs, the user cannot
tell which one failed. Before a query runs, :func:`remember_udfs` notes, for each Python
UDF that DEFINE or MEASURES call, the lines of its function and where its first call is
written; :func:`at_udf_call` finds the innermost frame of the traceback inside one of them
and gives the error as a :class:`MatchRuntimeError` at that call, the Python error's last
line kept as the message. A classic session only (Spark Connect keeps the UDFs' functions
in the server, out of the client's reach): elsewhere the error stays PySpark's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from matchrec.errors import MatchRuntimeError

from .python_udfs import session_python_function
from .recent import Recent
from .session import is_connect

if TYPE_CHECKING:
    from matchrec.planner.plan import MatchPlan
    from pyspark.sql import SparkSession

#: functions remembered at once (the least recently remembered go first)
_CAPACITY = 512


@dataclass(frozen=True)
class _Call:
    name: str  # the UDF's name as the query calls it
    lines: range  # the lines of its Python function
    sql: str
    pos: int


_calls: Recent[tuple[str, int], _Call] = Recent(_CAPACITY)

#: a frame of Python's traceback as PySpark shows a worker's error
_FRAME = re.compile(r'^\s*File "(.+)", line (\d+), in ', re.MULTILINE)


def remember_udfs(spark: SparkSession, plan: MatchPlan) -> None:
    """Note each Python UDF of the session that ``plan`` calls, with its first call."""
    if is_connect(spark):  # the functions stay on the server: no frame to match
        return
    lookup = session_python_function(spark)
    for name, pos in plan.calls.items():
        found = lookup(name)
        code = getattr(found.fn, "__code__", None) if found is not None else None
        if code is None:  # not a Python UDF, or a callable without code of its own
            continue
        lines = [line for *_, line in code.co_lines() if line is not None]
        span = range(code.co_firstlineno, max(lines, default=code.co_firstlineno) + 1)
        _calls.put((code.co_filename, code.co_firstlineno), _Call(name, span, plan.clause.sql, pos))


def at_udf_call(exc: BaseException) -> MatchRuntimeError | None:
    """``exc``, a worker's error raised in a remembered UDF's code, as a run-time error at
    that UDF's call; None when no frame of its traceback is in one."""
    text = str(exc)
    frames = [(m.group(1), int(m.group(2))) for m in _FRAME.finditer(text)]
    known = _calls.latest_first()
    for filename, line in reversed(frames):
        for (file, _), call in known:
            if file == filename and line in call.lines:
                return MatchRuntimeError(
                    f"the Python UDF {call.name}() raised {_raised(text)}",
                    sql=call.sql,
                    pos=call.pos,
                )
    return None


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
