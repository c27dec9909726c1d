"""Spark's run-time errors in a user's expression, shown at that expression.

matchrec hands Spark each one-row part of DEFINE and each MEASURE as one expression of a
``selectExpr``, in the planner's text (``100 / `v` > 1 AS `100 / v > 1```,
``CAST(`LAST(B.s)` AS INT) AS `r```). An ANSI error that Spark raises while the job
runs (DIVIDE_BY_ZERO, CAST_INVALID_INPUT, INVALID_ARRAY_INDEX_IN_ELEMENT_AT, ...) quotes
that text "at line 1, position 1", which is nowhere in the user's query. The runtime
:func:`remember`\\ s, for each expression text it hands Spark, where that expression
starts in the user's query; :func:`at_users_expression` finds the text of an error's
query context among them and gives the error as a :class:`MatchRuntimeError` at the
user's expression, Spark's message kept whole.

Each text handed to Spark starts with a comment of its own (:func:`marked`), so the
same expression of two queries (a notebook's cell run again after an edit) is two texts,
each with its own place, wherever Spark's error shows that comment; else the latest
query with that text is taken.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator

from matchrec.errors import MatchRuntimeError, SemanticError

from . import shared_origins
from .recent import Recent

#: expression texts remembered at once (the least recently remembered go first)
_CAPACITY = 4096

_origins: Recent[str, tuple[str, int]] = Recent(_CAPACITY)
#: queries around clauses, as Spark saw them: the user's query and the way back to it
_queries: Recent[str, tuple[str, Callable[[int], int]]] = Recent(_CAPACITY // 16)
_serial = itertools.count(1)


def marked(text: str) -> str:
    """``text`` (an expression with its alias) after a comment that no other text handed
    to Spark has: Spark reads the same expression, and its error shows the comment with
    the failed part when that part starts within Spark's 32 characters of context."""
    return f"/* matchrec {next(_serial)} */ {text}"


def remember(text: str, sql: str, pos: int | None) -> None:
    """``text``, an expression handed to Spark (:func:`marked`), computes the user's
    expression at ``pos`` of ``sql``."""
    if pos is None:
        return
    _origins.put(text, (sql, pos))


def remember_query(seen: str, sql: str, back: Callable[[int], int]) -> None:
    """``seen``, the text Spark runs for the user's query ``sql`` (each clause replaced by
    a name), maps its offsets to ``sql`` by ``back``: Spark's run-time error in the query
    around the clauses (``WHERE bottom < 'x'`` after one) is told at the user's line, not
    at the line of a text the user never wrote."""
    _queries.put(seen, (sql, back))


def at_users_expression(exc: BaseException, in_text: bool = False) -> MatchRuntimeError | None:
    """``exc``, Spark's error in an expression matchrec handed it, as a run-time error at
    the user's expression; None when its query context names no remembered text. With
    ``in_text``, an error that quotes another's (a streaming query's failure, which has
    no context of its own) is also looked up by the SQL context its text shows."""
    origin = _origin(exc) or (_origin_in_text(str(exc)) if in_text else None)
    if origin is None:
        return None
    sql, pos = origin
    message = STREAM_FAILED.sub("", str(exc).split("\n== ", 1)[0].strip())
    return MatchRuntimeError(message, sql=sql, pos=pos)


def at_unresolved_call(exc: BaseException) -> SemanticError | None:
    """Spark's UNRESOLVED_ROUTINE for a function that an expression of the table
    function's ``select`` calls (a session function it leaves to Spark: ``frobnicate(x)``
    when none is registered), at that call of the user's text; None for any other error."""
    try:
        condition = exc.getCondition()  # type: ignore[attr-defined]
        name = (exc.getMessageParameters() or {}).get("routineName", "")  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - not one of Spark's errors with parameters
        return None
    where = _ROUTINE_AT.search(str(exc))
    if condition != "UNRESOLVED_ROUTINE" or not name or where is None:
        return None
    called = name.strip("`").split("`.`")[-1]
    found = shared_origins.lookup_call(called, int(where[1]), int(where[2]))
    if found is None:
        return None
    sql, pos = found
    first = _ROUTINE_TAIL.sub("", str(exc).strip().splitlines()[0])
    return SemanticError(
        first,
        sql=sql,
        pos=pos,
        hint="register the function on the session before the query (spark.udf.register, "
        "CREATE TEMPORARY FUNCTION), or check its name",
    )


def latest_call(call: re.Pattern[str], shared: bool = False) -> tuple[str, int, str] | None:
    """The user's text, the position in it and the written name of the call that
    ``call`` matches in the latest remembered expression that has one (Spark's error
    without a context names a function, not a query: ``runtime.failed_calls``);
    ``shared``: then among those the table function's ``analyze`` recorded on this
    machine too, for a ``call`` narrow enough to be told from another process's."""
    recorded = _recorded() if shared else iter(())
    for text, (sql, pos) in itertools.chain(_origins.latest_first(), recorded):
        if call.search(text.split("*/", 1)[-1]) is None:
            continue
        found = call.search(sql, pos)
        if found is None:  # a call of ours, or another name of it: the expression's place
            return sql, pos, _expression_at(sql, pos)
        called = sql[found.end() :].lstrip().startswith("(")
        return sql, found.start(), found[0] + ("()" if called else "")
    return None


def _expression_at(sql: str, pos: int) -> str:
    """The user's expression at ``pos`` of ``sql`` to quote: a call to its closing
    parenthesis (``bit_get(A.x + B.x, 40)``, not what follows it), else up to 40
    characters of its line."""
    line = sql[pos : pos + 200].split("\n", 1)[0]
    opened = re.match(r"[\w.`]+\s*\(", line)
    depth = 0
    for i, c in enumerate(line[opened.end() - 1 :] if opened else ""):
        depth += {"(": 1, ")": -1}.get(c, 0)
        if depth == 0:
            return line[: opened.end() + i] if opened else line
    return line[:40]


def _recorded() -> Iterator[tuple[str, tuple[str, int]]]:
    """The table function's expressions that its ``analyze`` recorded, latest first, as
    :data:`_origins` holds this process's (``runtime.shared_origins``)."""
    for text, sql, pos in shared_origins.recorded():
        yield text, (sql, pos)


#: where Spark's analysis error says the call is, in the text it analysed
_ROUTINE_AT = re.compile(r"; line (\d+) pos (\d+)")
#: the end of Spark's first line: its SQLSTATE and a position in a text of ours
_ROUTINE_TAIL = re.compile(r"\s*SQLSTATE: \w+;?.*$")


#: how a streaming query's failure wraps the error of its micro-batch
STREAM_FAILED = re.compile(r"^\[STREAM_FAILED\] Query \[[^\]]*\] terminated with exception: ")


def _origin(exc: BaseException) -> tuple[str, int] | None:
    try:
        contexts = exc.getQueryContext()  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - an error without contexts, or a client without them
        return None
    for context in contexts or ():
        try:
            fragment = context.fragment()
            start = context.startIndex()
            lines = context.summary().split("\n")
        except Exception:  # noqa: BLE001 - a DataFrame context: no SQL text
            continue
        if not fragment or len(lines) < 2:
            continue
        origin = _latest(_shown(lines[1]), fragment, start) or _around(lines, fragment, start)
        if origin is not None:
            return origin
    return None


#: the header of the SQL context of Spark's error message: the line and column it shows
_HEADER = re.compile(r"== SQL \(line (\d+), position (\d+)\) ==")
#: a view name as Spark shows it (maybe cut by "..."), or a cut name's hexadecimal tail
_VIEW_NAME = re.compile(r"\S*_pyspark_\S*|^[0-9a-f]+(?=\s)")


def _around(lines: list[str], fragment: str, start: int) -> tuple[str, int] | None:
    """The user's place of an error in the query around the clauses: the latest
    remembered text with ``fragment`` at ``start``, on the line and column of Spark's
    header (``lines[0]``), whose line holds the text Spark shows (``lines[1]``, view
    names aside): a plain ``spark.sql`` failing in the same expression at the same
    place reads another table there."""
    found = _HEADER.search(lines[0])
    if found is None:
        return None
    line, column = int(found[1]), int(found[2])
    pieces = [p for p in _VIEW_NAME.split(_shown(lines[1]).strip()) if p.strip()]
    for seen, (sql, back) in _queries.latest_first():
        if seen[start : start + len(fragment)] != fragment:
            continue
        before = seen[:start]
        if before.count("\n") + 1 != line or start - before.rfind("\n") != column:
            continue
        shown = seen.split("\n")[line - 1]
        if all(p.strip() in shown for p in pieces):
            return sql, back(start)
    return None


#: the SQL context of Spark's error message: its header, then the line it shows
_CONTEXT = re.compile(rf"^{_HEADER.pattern}\n(.+)$", re.MULTILINE)


def _origin_in_text(message: str) -> tuple[str, int] | None:
    for found in _CONTEXT.finditer(message):
        shown = _shown(found[3]).strip()  # after the header's line and column
        origin = _latest(shown) if shown else None
        if origin is not None:
            return origin
    return None


def _shown(line: str) -> str:
    """The text of the line Spark shows of a failed part, which it gives with up to 32
    characters either side and "..." where it cut the line."""
    return line.removeprefix("...").removesuffix("...")


def _latest(shown: str, fragment: str = "", start: int = 0) -> tuple[str, int] | None:
    """The place of the latest remembered text that holds the line Spark ``shown`` (and
    the failed ``fragment`` at ``start``, where Spark gives it)."""
    for text, origin in _origins.latest_first():
        if shown in text and text[start : start + len(fragment)] == fragment:
            return origin
    return shared_origins.lookup(shown, fragment, start) if fragment else None
