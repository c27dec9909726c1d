"""Exceptions that matchrec raises for the user.

Every error a user can cause derives from :class:`MatchRecognizeError`. It carries the
SQL text and a position so that ``str(err)`` shows the line, the column, a caret under
the offending spot and a hint on how to fix it, instead of a traceback from deep inside.
"""

from __future__ import annotations

import re
import unicodedata

#: what the planner writes for the spaces between RUNNING/FINAL and a call's name
#: (``RUNNING·sum(x)``): no unquoted Spark name has it
SEMANTICS_MARK = "\u00b7"
_MARKED = re.compile(rf"\b(RUNNING|FINAL){SEMANTICS_MARK}+", re.IGNORECASE)


def _as_written(text: str | None) -> str | None:
    """``text`` with ``RUNNING·sum(`` as the user writes it: ``RUNNING sum(``."""
    return None if text is None else _MARKED.sub(r"\1 ", text)


class MatchRecognizeError(Exception):
    """Base class of every error matchrec reports to a user.

    ``pos`` is a 0-based character offset into ``sql``; ``line`` and ``column`` are
    1-based and derived from it when not given.
    """

    kind = "error"

    def __init__(
        self,
        message: str,
        *,
        sql: str | None = None,
        pos: int | None = None,
        hint: str | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        self.message = _as_written(message)
        self.sql = sql
        self.pos = pos
        self.hint = _as_written(hint)
        if sql is not None and pos is not None and line is None:
            line, column = line_col(sql, pos)
        self.line = line
        self.column = column
        super().__init__(self.render())

    def render(self) -> str:
        """The message as the user sees it: what, where (with a caret) and a hint."""
        head = f"{self.kind}: {self.message}"
        if self.line is not None:
            head += f" (line {self.line}, column {self.column})"
        parts = [head]
        if self.sql is not None and self.line is not None:
            lines = self.sql.split("\n")
            text = lines[self.line - 1] if self.line <= len(lines) else ""
            text, before = line_excerpt(text, (self.column or 1) - 1)
            parts.append(f"  {self.line} | {text}")
            gutter = " " * (len(str(self.line)) + 3)
            parts.append(f"  {gutter}{_under(text[:before])}^")
        if self.hint:
            parts.append(f"hint: {self.hint}")
        return "\n".join(parts)

    def __str__(self) -> str:
        return self.render()

    def _render_traceback_(self) -> list[str]:
        """IPython shows these lines instead of a traceback: the message with its caret."""
        return self.render().splitlines()


class SqlSyntaxError(MatchRecognizeError):
    """The SQL text does not follow the MATCH_RECOGNIZE grammar."""

    kind = "syntax error"


class SemanticError(MatchRecognizeError):
    """The clause parses but means nothing valid: unknown label, bad nesting, ..."""

    kind = "semantic error"


class UnsupportedError(MatchRecognizeError):
    """Valid SQL that this version of matchrec does not run yet."""

    kind = "not supported"


class MatchRuntimeError(MatchRecognizeError):
    """An error the standard defines at run time, e.g. AFTER MATCH SKIP to the first row,
    or one of Spark's ANSI errors that matchrec computes itself (a zero divisor of
    DEFINE's glue): :attr:`spark_condition` names Spark's condition for it."""

    kind = "runtime error"

    @property
    def spark_condition(self) -> str | None:
        """The error condition Spark raises for the same error (``DIVIDE_BY_ZERO``), as
        its message names it, else None."""
        found = _CONDITION.search(self.message)
        return (found.group(1) or found.group(2)) if found else None

    @property
    def spark_sqlstate(self) -> str | None:
        """The SQLSTATE of :attr:`spark_condition`, where known."""
        condition = self.spark_condition
        return _SQLSTATES.get(condition.split(".")[0]) if condition else None


#: how matchrec's messages name Spark's condition: ``[DIVIDE_BY_ZERO] ...`` or
#: ``(Spark raises ARITHMETIC_OVERFLOW under spark.sql.ansi.enabled)``
_CONDITION = re.compile(
    r"\[(_?[A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*)\]|Spark raises ([A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*)"
)
#: Spark's SQLSTATE of the conditions matchrec raises itself
_SQLSTATES = {
    "DIVIDE_BY_ZERO": "22012",
    "REMAINDER_BY_ZERO": "22012",
    "ARITHMETIC_OVERFLOW": "22003",
    "BINARY_ARITHMETIC_OVERFLOW": "22003",
    "NUMERIC_VALUE_OUT_OF_RANGE": "22003",
    "CAST_OVERFLOW": "22003",
    "INVALID_ARRAY_INDEX": "22003",
    "INVALID_ARRAY_INDEX_IN_ELEMENT_AT": "22003",
    "CAST_INVALID_INPUT": "22018",
    "INTERVAL_ARITHMETIC_OVERFLOW": "22015",
    "DATETIME_OVERFLOW": "22008",
    "CANNOT_PARSE_TIMESTAMP": "22007",
    "DUPLICATED_MAP_KEY": "23505",
    "COMPARATOR_RETURNS_NULL": "22004",
    "NULL_MAP_KEY": "2200E",
    "USER_RAISED_EXCEPTION": "P0001",
    "DATETIME_FIELD_OUT_OF_BOUNDS": "22023",
}


class UsageError(MatchRecognizeError, TypeError):
    """A function of matchrec's called with arguments of the wrong kind (a table name
    where a DataFrame goes, the arguments swapped)."""

    kind = "usage error"


class ArbitraryOrderWarning(UserWarning):
    """A MATCH_RECOGNIZE without ORDER BY: legal, but the rows of each partition are
    matched in whatever order Spark hands them over, which may change from run to run
    (and the matches with it)."""


class ShadowedVersionWarning(UserWarning):
    """A rule version with an ``active_from`` that never applies: a later version of the
    rule starts at or before it (a back-dated fix hides a scheduled version)."""


#: what an :class:`ArbitraryOrderWarning` says after naming the clause or rule
ARBITRARY_ORDER = (
    "the rows of each partition are matched in the arbitrary order Spark hands them over, "
    "which may change from run to run; add ORDER BY to make the matches repeatable"
)


def line_col(text: str, pos: int) -> tuple[int, int]:
    """1-based line and column of character offset ``pos`` in ``text``."""
    pos = max(0, min(pos, len(text)))
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return line, col


#: the most characters of a line shown above the caret (a generated query can put
#: thousands on one line): the part around the caret, cut ends marked with "..."
SHOWN_LINE = 500


def line_excerpt(line: str, at: int) -> tuple[str, int]:
    """The part of ``line`` shown above a caret at its character ``at``, and where that
    character lies in the part."""
    if len(line) <= SHOWN_LINE:
        return line, at
    start = max(0, min(at - SHOWN_LINE // 2, len(line) - SHOWN_LINE))
    end = start + SHOWN_LINE
    head = "..." if start else ""
    return f"{head}{line[start:end]}{'...' if end < len(line) else ''}", at - start + len(head)


def _under(prefix: str) -> str:
    """Blank space as wide on screen as ``prefix``, the text before the caret: its tabs
    kept (a terminal expands them alike) and a wide character (CJK) as two spaces."""
    return "".join(
        c if c == "\t" else "  " if unicodedata.east_asian_width(c) in "WF" else " " for c in prefix
    )
