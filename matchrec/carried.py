"""A matchrec error that reached the driver only as text, rebuilt as the error it was.

The SQL table function plans its clause body in ``analyze``, which Spark runs in a
Python worker; a mistake there reaches the user as Spark's
TABLE_VALUED_FUNCTION_FAILED_TO_ANALYZE_IN_PYTHON, the matchrec message (with its caret
under the body string) buried after a worker traceback. :func:`rebuild` turns that
rendered message back into the matchrec error class it came from, and, when the query
that called the function is known (``matchrec.sql``), moves the caret into that query:
the string literal there holds the body, quotes doubled.

Pure Python: the text is found in the Spark error by :func:`matchrec.excepthook.carried_error`.
"""

from __future__ import annotations

import re

from matchrec.errors import (
    MatchRecognizeError,
    MatchRuntimeError,
    SemanticError,
    SqlSyntaxError,
    UnsupportedError,
)

#: the error classes by the ``kind`` their message starts with
KINDS: dict[str, type[MatchRecognizeError]] = {
    cls.kind: cls for cls in (SqlSyntaxError, SemanticError, UnsupportedError, MatchRuntimeError)
}

_HEAD = re.compile(
    r"^(?P<kind>[a-z ]+): (?P<message>.*?)(?: \(line (?P<line>\d+), column (?P<column>\d+)\))?$"
)
_SOURCE = re.compile(r"^  (?P<line>\d+) \| (?P<text>.*)$")


def rebuild(text: str, query: str | None = None) -> MatchRecognizeError | None:
    """The matchrec error rendered as ``text`` (``MatchRecognizeError.render``), or None
    if ``text`` is not one. With ``query``, the caret points into ``query`` where the
    error's source line is found once (as a SQL string literal's content)."""
    lines = text.strip("\n").splitlines()
    head = _HEAD.match(lines[0]) if lines else None
    if head is None or head["kind"] not in KINDS:
        return None
    cls = KINDS[head["kind"]]
    hint = next((ln[len("hint: ") :] for ln in lines[1:] if ln.startswith("hint: ")), None)
    source = next((m for m in map(_SOURCE.match, lines[1:3]) if m), None)
    if head["line"] is None or source is None:
        return cls(head["message"], hint=hint)
    line, column = int(head["line"]), int(head["column"])
    found = _in_query(source["text"], column, query) if query is not None else None
    if found is not None:
        return cls(head["message"], sql=query, pos=found, hint=hint)
    # only the one line of the body is known: keep it at its line number, and the caret
    # (``pos``) under the same column of it
    known = "\n" * (line - 1) + source["text"]
    return cls(head["message"], sql=known, pos=line - 1 + column - 1, hint=hint)


def _in_query(source: str, column: int, query: str) -> int | None:
    """Offset in ``query`` of ``column`` of ``source``, a line of the clause as written in
    ``query`` or of a string literal's value (quotes doubled in ``query``: the table
    function's body), when that line occurs exactly once; else None."""
    if not source.strip():
        return None
    for quote in ("'", "''"):
        written = source.replace("'", quote)
        if query.count(written) == 1:
            return query.index(written) + len(source[: column - 1].replace("'", quote))
    return None
