"""Where expressions handed to Spark by another Python process come from, on this machine.

The table function's ``analyze`` runs in a Python worker that Spark's driver starts, not
in the user's process: the expressions it has Spark compute over the input (``select``:
DEFINE's one-row conditions, an aggregate's argument) are known there only. Spark's
ANSI error in one of them (``CAST_INVALID_INPUT``, ``DIVIDE_BY_ZERO``) reaches the user's
process quoting that expression, which the user never wrote. :func:`record` keeps each
such expression with the user's text and position in a small file of this machine's
temporary directory (the driver's, where ``analyze`` runs); :func:`lookup` reads it back
from the user's process (``runtime.expression_origins``), the latest record first. A
client of Spark Connect on another machine finds nothing: the error stays Spark's.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

#: the file's size at which it starts again (the older records kept in one more file)
_LIMIT = 1 << 20
#: how much of its end a lookup reads
_TAIL = 1 << 18


def _path() -> Path:
    user = os.getuid() if hasattr(os, "getuid") else os.getlogin()
    return Path(tempfile.gettempdir()) / f"matchrec-{user}" / "origins.jsonl"


def record(entries: list[tuple[str, str, int]]) -> None:
    """Keep each ``(text, sql, pos)``: ``text``, handed to Spark, computes the user's
    expression at ``pos`` of ``sql``. Never raises: the query runs without it."""
    _append([{"text": text, "sql": sql, "pos": pos} for text, sql, pos in entries])


def _append(entries: list[dict]) -> None:
    if not entries:
        return
    path = _path()
    lines = "".join(json.dumps(entry, ensure_ascii=False) + "\n" for entry in entries)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() and path.stat().st_size > _LIMIT:
            path.replace(path.with_suffix(".old"))
        with path.open("a", encoding="utf-8") as out:
            out.write(lines)
    except OSError:
        pass


def record_calls(calls: dict[str, int], sql: str) -> None:
    """Keep that ``sql`` calls each function of ``calls`` (no built-in one: maybe a Python
    UDF of the session) first at its offset, and when: a Python UDF's error while the job
    runs is shown at the call of the latest query that calls it. Never raises."""
    if calls:
        _append([{"calls": calls, "sql": sql, "at": time.time()}])


def recent_calls(limit: int) -> Iterator[tuple[str, str, int, float]]:
    """``(name, sql, pos, at)`` of each call :func:`record_calls` kept, from its latest
    ``limit`` records, the latest first."""
    found = (entry for entry in _latest_first() if isinstance(entry.get("calls"), dict))
    for _, entry in zip(range(limit), found):
        for name, pos in entry["calls"].items():
            yield name, entry.get("sql", ""), int(pos), float(entry.get("at", 0.0))


def recorded() -> Iterator[tuple[str, str, int]]:
    """``(text, sql, pos)`` of each expression :func:`record` kept, the latest first."""
    for entry in _latest_first():
        if "text" in entry:
            yield entry["text"], entry.get("sql", ""), int(entry.get("pos", 0))


def lookup(shown: str, fragment: str, start: int) -> tuple[str, int] | None:
    """The user's text and position of the latest recorded expression that holds the line
    Spark ``shown`` of an error, with ``fragment`` at ``start``; None if none does."""
    for entry in _latest_first():
        text = entry.get("text", "")
        if shown in text and text[start : start + len(fragment)] == fragment:
            return entry.get("sql", ""), int(entry.get("pos", 0))
    return None


def lookup_call(name: str, line: int, column: int) -> tuple[str, int] | None:
    """The user's text and the position of the call of function ``name`` in it, from the
    latest recorded expression that calls it at ``line`` and ``column`` (0-based) of its
    text, where Spark's analysis error naming the function says it is (the table
    function's ``select``, analysed just now)."""
    call = re.compile(rf"(?<![\w.`])`?{re.escape(name)}`?\s*\(", re.IGNORECASE)
    for entry in _latest_first():
        lines = entry.get("text", "").split("\n")
        if line > len(lines) or call.match(lines[line - 1], column) is None:
            continue
        sql, pos = entry.get("sql", ""), int(entry.get("pos", 0))
        found = call.search(sql, pos)
        return sql, found.start() if found is not None else pos
    return None


def _latest_first() -> Iterator[dict]:
    path = _path()
    try:
        with path.open("rb") as source:
            size = source.seek(0, os.SEEK_END)
            source.seek(max(0, size - _TAIL))
            tail = source.read().decode("utf-8", errors="replace")
    except OSError:
        return
    lines = tail.splitlines()
    if len(tail) >= _TAIL:
        lines = lines[1:]  # the first may be cut
    for line in reversed(lines):
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict):
            yield entry
