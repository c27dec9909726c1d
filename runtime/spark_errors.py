"""Spark's errors about the query around MATCH_RECOGNIZE, told at the user's text.

``matchrec.sql`` hands Spark a rewritten query: each clause replaced by a name that
stands for its result (which PySpark turns into a ``_pyspark_<hex>`` view), each input
relation read on its own. Spark's analysis and parse errors about that text (an unknown
column after the clause, a missing table, a syntax error in the WHERE that follows)
would quote the rewritten text, its positions, internal names and a plan. This module
reports them as :class:`SparkAnalysisError` (or :class:`SparkSyntaxError`): Spark's own
first line with the internal names put in words, the caret in the query the user wrote.
Both stay Spark's ``AnalysisException`` (``ParseException``), so code that catches
Spark's errors still does.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence

from pyspark.errors import AnalysisException, ParseException

from matchrec.errors import MatchRecognizeError, SemanticError, SqlSyntaxError


class SparkAnalysisError(SemanticError, AnalysisException):
    """Spark's analysis error about the query around a MATCH_RECOGNIZE, positioned; its
    condition and message parameters are Spark's."""

    def __init__(self, message: str, *, spark_error: AnalysisException, **where) -> None:
        super().__init__(message, **where)
        self._errorClass = spark_error.getCondition()
        self._messageParameters = spark_error.getMessageParameters()


class SparkSyntaxError(SqlSyntaxError, ParseException):
    """Spark's parse error about the query around a MATCH_RECOGNIZE, positioned."""

    def __init__(self, message: str, *, spark_error: AnalysisException, **where) -> None:
        super().__init__(message, **where)
        self._errorClass = spark_error.getCondition()
        self._messageParameters = spark_error.getMessageParameters()


#: the names that stand for a clause's result in the text Spark saw
_RESULT_NAME = re.compile(
    r"`?\b(?:_pyspark_(?:connect_temp_view_)?[0-9a-f]{32}|__matchrec_[0-9a-f]{8}_\d+)\b`?"
)
_INPUT_NAME = re.compile(r"`?\b__matchrec_input\b`?")
#: the qualifier of the rows of windows with a row pattern over a join (window_join)
_JOIN_ROWS = re.compile(r"`?\b__mrj_from\b`?\.")
#: a column matchrec adds (a window's measure, a DEFINE bit), as Spark lists it
_INTERNAL_ITEM = re.compile(r"^(?:`[^`]*`\.)*`__mr\w*`$")
_LIST = re.compile(r"\[([^\[\]]*)\]")
_TAIL = re.compile(r"\s*(?:SQLSTATE: \w+)?;?\s*(?:\(?line \d+,? pos \d+\)?)?;?\s*$")
_NEAR = re.compile(r"at or near (?:'((?:[^']|'')*)'|(end of input))")
_PARSE_AT = re.compile(r"\(line (\d+), pos (\d+)\)")

_HINTS = {
    "ASSIGNMENT_ARITY_MISMATCH": "name each output column of MATCH_RECOGNIZE in the "
    "alias's list, in order, or drop the list",
    "INVALID_TEMP_OBJ_REFERENCE": "a permanent view keeps its query's text, which Spark "
    "cannot run alone: use CREATE TEMP VIEW (matchrec registers the result) or "
    "CREATE TABLE ... AS SELECT to keep the rows",
}


def translated(
    exc: AnalysisException,
    query: str,
    replaced: Sequence[tuple[int, int]],
    name_length: int = 0,
    seen_from: int = 0,
    within: tuple[int, int] | None = None,
    hint: str | None = None,
) -> MatchRecognizeError:
    """``exc``, raised by Spark for ``query`` rewritten (each span of ``replaced``, the
    outermost MATCH_RECOGNIZE clauses with their input relations, stood for by a name of
    ``name_length`` characters; Spark saw that text from offset ``seen_from`` on), as an
    error at ``query``'s text. With ``within`` (the span of an input relation, which
    Spark read on its own), the error is looked for there by the text Spark quotes;
    ``hint`` where Spark's condition has none of its own here."""
    condition = exc.getCondition()
    text = str(exc)
    first = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    first = _TAIL.sub("", first)
    first = _RESULT_NAME.sub("the MATCH_RECOGNIZE result", first)
    first = _INPUT_NAME.sub("the MATCH_RECOGNIZE input", first)
    first = _JOIN_ROWS.sub("", first)
    first = _LIST.sub(_user_items, first)
    spans = sorted(replaced)
    if within is not None:
        pos = _fragment_at(_quoted(exc, text)[0], query, [within], inside=True)
        pos = pos if pos is not None else _fragment_at(_quoted(exc, text)[0], query, spans)
    else:
        pos = _position(exc, text, query, spans, name_length, seen_from)
    if pos is None and condition == "ASSIGNMENT_ARITY_MISMATCH":
        pos = _column_list_after(query, spans)
    if pos is None:
        pos = len(query) - len(query.lstrip())  # the statement, where Spark names no part
    cls = SparkSyntaxError if isinstance(exc, ParseException) else SparkAnalysisError
    hint = _HINTS.get((condition or "").split(".")[0]) or _row_pattern_call_hint(exc) or hint
    return cls(first, spark_error=exc, sql=query, pos=pos, hint=hint)


#: the row pattern functions Spark does not know (FIRST and LAST are also its aggregates),
#: each with a measure computing it
_ROW_PATTERN_ONLY = {
    "CLASSIFIER": "CLASSIFIER() AS label",
    "MATCH_NUMBER": "MATCH_NUMBER() AS match_no",
    "PREV": "PREV(x) AS previous_x",
    "NEXT": "NEXT(x) AS next_x",
}


def _row_pattern_call_hint(exc: AnalysisException) -> str | None:
    """For ``MATCH_NUMBER()`` or ``CLASSIFIER()`` called in the query around a clause,
    where Spark does not know them: they belong in the clause's MEASURES."""
    if (exc.getCondition() or "") != "UNRESOLVED_ROUTINE":
        return None
    name = (exc.getMessageParameters() or {}).get("routineName", "").strip("`").upper()
    if name not in _ROW_PATTERN_ONLY:
        return None
    return (
        f"{name}() is known only inside MATCH_RECOGNIZE: compute it in MEASURES "
        f"({_ROW_PATTERN_ONLY[name]}) and select that column"
    )


#: a relation's alias with a list of column names: ``AS m(a, b)``, ``m (a, b)``
_ALIAS_COLUMNS = re.compile(r"\s*(?:AS\s+)?(?:`[^`]+`|\w+)\s*(\()", re.IGNORECASE)


def _column_list_after(query: str, spans: list[tuple[int, int]]) -> int | None:
    """The ``(`` of the first alias column list right after a clause (``) AS m(a, b)``),
    the list whose length Spark found wrong; None if no clause has one."""
    for _, end in spans:
        found = _ALIAS_COLUMNS.match(query, end)
        if found is not None:
            return found.start(1)
    return None


#: a column of ours that stands for a call over a window with a row pattern
_WINDOW_CALL = re.compile(r"`?\b(__mrw\d+_\w+)\b`?")


def window_call_error(
    exc: AnalysisException, query: str, calls: dict[str, tuple[int, int]]
) -> MatchRecognizeError | None:
    """Spark's error about the SELECT of a window with a row pattern, which Spark saw
    with each call over that window as a column of ours (``val OVER w`` as
    ``__mrw0_0``): told at the first such call Spark names, with the call as written;
    None when Spark names none."""
    first = _first_line(exc)
    named = [m for m in _WINDOW_CALL.finditer(first) if m.group(1) in calls]
    if not named:
        return None

    def written(m: re.Match[str]) -> str:
        span = calls.get(m.group(1))
        return " ".join(query[span[0] : span[1]].split()) if span else "a call over the window"

    message = _WINDOW_CALL.sub(written, first)
    cls = SparkSyntaxError if isinstance(exc, ParseException) else SparkAnalysisError
    juxtaposed = cls is SparkSyntaxError or exc.getCondition() == "MULTI_ALIAS_WITHOUT_GENERATOR"
    hint = "is a comma missing between the items of the SELECT?" if juxtaposed else None
    return cls(message, spark_error=exc, sql=query, pos=calls[named[0].group(1)][0], hint=hint)


def _first_line(exc: AnalysisException) -> str:
    text = str(exc)
    first = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    return _TAIL.sub("", first)


def _user_items(found: re.Match[str]) -> str:
    """A list Spark suggests names from (``Did you mean one of the following? [...]``)
    without the columns matchrec added to the query it saw."""
    items = found.group(1).split(", ")
    return "[" + ", ".join(i for i in items if not _INTERNAL_ITEM.match(i.strip())) + "]"


def _quoted(exc: AnalysisException, text: str) -> tuple[str | None, int | None]:
    """The part of its text Spark quotes and its offset there (None where unknown)."""
    try:
        contexts = exc.getQueryContext()
    except Exception:  # no JVM context to ask
        contexts = []
    for context in contexts:
        found = getattr(context, "fragment", lambda: "")()
        if found:
            return found, getattr(context, "startIndex", lambda: None)()
    near = _NEAR.search(text)
    if near is not None and near.group(1) is not None:
        return near.group(1).replace("''", "'"), None
    return None, None


def _position(
    exc: AnalysisException,
    text: str,
    query: str,
    replaced: list[tuple[int, int]],
    name_length: int,
    seen_from: int,
) -> int | None:
    """Where in ``query`` Spark's error points, None if unknown: Spark's offset into the
    text it saw mapped back when the text there is the fragment Spark quotes, else the
    first place of that fragment outside the clauses."""
    seen, back = seen_text(query, replaced, name_length, seen_from)
    fragment, start = _quoted(exc, text)
    near = _NEAR.search(text)
    if near is not None and near.group(2):  # at the end of the input
        return len(query.rstrip().rstrip(";").rstrip())
    at = _PARSE_AT.search(text)
    if start is None and at is not None:
        lines = seen.split("\n")
        line = int(at.group(1))
        if line <= len(lines):
            start = sum(len(ln) + 1 for ln in lines[: line - 1]) + int(at.group(2))
    if start is not None and (not fragment or seen[start : start + len(fragment)] == fragment):
        return back(start)
    return _fragment_at(fragment, query, replaced)


def _fragment_at(
    fragment: str | None, query: str, spans: list[tuple[int, int]], inside: bool = False
) -> int | None:
    """The first offset of ``fragment`` in ``query`` outside ``spans`` (``inside``: in
    one of them), exact case first; None if there is none."""
    if not fragment:
        return None
    for pattern in (re.escape(fragment), rf"(?i){re.escape(fragment)}"):
        for m in re.finditer(pattern, query):
            if any(a <= m.start() < b for a, b in spans) == inside:
                return m.start()
    return None


def seen_text(
    query: str, replaced: Sequence[tuple[int, int]], name_length: int, seen_from: int = 0
) -> tuple[str, Callable[[int], int]]:
    """The text Spark sees for ``query`` rewritten as :func:`translated` takes it (names'
    characters as underscores), and the map from an offset there to one of ``query``."""
    spans = sorted(replaced)
    return _seen(query, spans, name_length)[seen_from:], functools.partial(
        _back_from, seen_from=seen_from, replaced=spans, name_length=name_length
    )


def _back_from(seen: int, seen_from: int, replaced: list[tuple[int, int]], name_length: int) -> int:
    return _back(seen + seen_from, replaced, name_length)


def _seen(query: str, replaced: list[tuple[int, int]], name_length: int) -> str:
    """``query`` as Spark saw it, up to the names' characters."""
    parts, last = [], 0
    for a, b in replaced:
        parts += [query[last:a], "_" * name_length]
        last = b
    return "".join(parts) + query[last:]


def _back(seen: int, replaced: list[tuple[int, int]], name_length: int) -> int:
    """The offset in the user's query of offset ``seen`` of the text Spark saw (inside a
    clause's name: where the clause's input relation starts)."""
    shift = 0
    for a, b in replaced:
        if seen < a + shift:
            break
        if seen < a + shift + name_length:
            return a
        shift += name_length - (b - a)
    return seen - shift


#: a number as Spark SQL reads it (digits, fraction, exponent, type suffix), not in a word
_NUMBER = re.compile(r"(?<![\w.])(\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?(?:BD|[LSYDF])?(?!\w)", re.I)
#: a quoted string or name, which holds no number literal
_QUOTED_TEXT = re.compile(r"'(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.|\"\")*\"|`[^`]*`")
_MAX_DIGITS = 38


def literal_error(exc: Exception, query: str, span: tuple[int, int]) -> MatchRecognizeError | None:
    """Spark's error about a literal in ``span`` of ``query`` that Spark raises while it
    parses, naming no place: a number no DECIMAL holds
    (DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION), an interval it cannot read
    (INVALID_INTERVAL_FORMAT), at the first such literal; None for other errors."""
    condition = getattr(exc, "getCondition", lambda: None)() or ""
    if condition.startswith("INVALID_INTERVAL_FORMAT"):
        return _interval_error(exc, query, span)
    if not condition.startswith("DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION"):
        return None
    start, end = span
    text = _QUOTED_TEXT.sub(lambda m: " " * len(m.group(0)), query[start:end])
    for found in _NUMBER.finditer(text):
        mantissa = found.group(1)
        exact = not re.search(r"[eE]|[DF]$", found.group(0), re.I)
        if exact and len(mantissa.replace(".", "").lstrip("0")) > _MAX_DIGITS:
            first = _TAIL.sub("", str(exc).strip().splitlines()[0])
            return SemanticError(
                first,
                sql=query,
                pos=start + found.start(),
                hint=f"a DECIMAL holds at most {_MAX_DIGITS} digits: write fewer, or a DOUBLE "
                "with an exponent (1.5E40)",
            )
    return None


#: an interval literal as written: ``INTERVAL '1-2' DAY`` (its quoted text in group 1)
_INTERVAL = re.compile(r"\bINTERVAL\s*'((?:[^'\\]|\\.|'')*)'", re.I)


def _interval_error(exc: Exception, query: str, span: tuple[int, int]) -> SemanticError | None:
    """Spark's INVALID_INTERVAL_FORMAT at the interval literal of ``span`` whose text its
    message quotes (``Error parsing ' 1-2 DAY' to interval``)."""
    first = _TAIL.sub("", (str(exc).strip().splitlines() or [""])[0])
    start, end = span
    for found in _INTERVAL.finditer(query, start, end):
        text = found.group(1).strip()
        if text and (f"' {text} " in first or f"'{text} " in first or f"value {text}." in first):
            return SemanticError(
                first,
                sql=query,
                pos=found.start(),
                hint="write an interval as Spark reads it, e.g. INTERVAL '1' DAY, "
                "INTERVAL '1-2' YEAR TO MONTH or INTERVAL '1 02:03:04' DAY TO SECOND",
            )
    return None
