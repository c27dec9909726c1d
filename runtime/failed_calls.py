"""Spark's run-time error that has no query context, shown at the call that raised it.

Some of Spark's functions fail a job with no SQL context: ``unbase64`` of text that is
not base64 (Java's Base64 decoder throws), ``rlike`` or ``split`` with a pattern from a
column that is no Java regular expression, ``format_string`` with a bad format from a
column. PySpark cannot convert those Java exceptions, and ``collect()`` raised py4j's
``Py4JJavaError``: a page of JVM frames that names neither the function nor the query.
Others are Spark's own conditions without a context that name the function in their
parameters (``INVALID_PARAMETER_VALUE``'s ``functionName``), or that only some functions
raise (``raise_error``'s and ``assert_true``'s USER_RAISED_EXCEPTION; a datetime pattern
Spark refuses as it builds the formatter, at the call with that pattern: the table
function hands Spark its MEASURES' one-row calls, which ``matchrec.sql`` checks first).

:func:`at_failed_call` tells the function from the error (its parameters, or the Java
code in the failed task's frames, by :data:`_JAVA_FAILURES`) and finds the latest
expression matchrec handed Spark that calls it (``runtime.expression_origins``): the
error is a :class:`MatchRuntimeError` at that call, the Java exception's first line
kept, with a hint. The error does not say which query failed: the caller reads the
plan of the DataFrame whose action failed (``runtime.failing_query``) and asks only for
a matchrec query's; then, as for a Python UDF's error (``runtime.udf_errors``), the
latest query built that calls the function is the one taken. Conditions that a user's
own query raises as readily (a field out of range: :data:`_CONDITIONS_OF_ANY_QUERY`) are
taken only when that plan is known to be matchrec's. An error of a function no
remembered expression calls stays Spark's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from matchrec.errors import MatchRuntimeError

from .expression_origins import STREAM_FAILED, latest_call
from .failing_query import CLAUSE, TABLE_FUNCTION


@dataclass(frozen=True)
class _JavaFailure:
    frame: str  # text of a frame of the failed task that marks the Java code
    call: str  # a pattern of the calls (or operators) that run that code
    hint: str


#: Java code in a failed task's frames -> the calls that run it; the first that a
#: failure's frames show is taken (``split`` compiles a pattern too). Each throws an
#: IllegalArgumentException (PatternSyntaxException, IllegalFormatException are ones).
_JAVA_FAILURES = (
    _JavaFailure(
        "UTF8String.split",
        r"split|str_to_map",
        "the pattern (a delimiter) is not a Java regular expression: escape its special "
        "characters, e.g. with a backslash",
    ),
    _JavaFailure(
        "java.util.regex.Pattern",
        r"rlike|regexp|regexp_like",
        "the pattern is not a Java regular expression: escape its special characters, "
        "e.g. with a backslash",
    ),
    _JavaFailure(
        "java.util.Base64$Decoder",
        r"unbase64|to_binary",
        "the text is not base64: try_to_binary(x, 'base64') gives NULL for such text",
    ),
    _JavaFailure(
        "java.util.Formatter",
        r"format_string|printf",
        "the format is not one Java's String.format takes (%s, %d, %.2f, ...)",
    ),
)

#: the Java exception that failed the task, as Spark's job failure quotes it
_CAUSE = re.compile(r"executor \S+\): ((?:java|javax|org)\.[\w.$]+(?:Exception|Error)\b[^\n]*)")


def at_failed_call(
    exc: BaseException, kind: str | None = None
) -> tuple[MatchRuntimeError | None, str | None]:
    """``exc``, Spark's error with no query context, as a run-time error at the latest
    remembered call of the function that raised it, and the name of PySpark's class for
    it where PySpark gave it none (``IllegalArgumentException``); (None, None) when the
    error names no function of :data:`_JAVA_FAILURES` or of its parameters, or no
    remembered expression calls it. ``kind``: what the failed action runs
    (``runtime.failing_query``), None when not known; only a matchrec query's error is
    one of :data:`_CONDITIONS_OF_ANY_QUERY`, and only a clause's (whose expressions this
    process remembers, not the table function's) an operator's."""
    if has_context(exc):  # a query's own error, at its own text: not one of ours
        return None, None
    found = _parameter_call(exc, kind)
    shared, spark_class = False, None
    if found is not None:
        name, message, hint, shared = found
    else:
        text = str(exc)
        cause = _CAUSE.search(text)
        failure = next((f for f in _JAVA_FAILURES if f.frame in text), None)
        if cause is None or failure is None:
            return None, None
        name, message, hint = failure.call, cause[1], failure.hint
        spark_class = "IllegalArgumentException"
    operator = name in _OPERATORS.values()  # (it stands between its operands)
    bounded = name if operator else rf"(?<![\w.`])(?:{name})\b"
    call = re.compile(bounded, re.IGNORECASE)
    origin = latest_call(call, shared=shared)
    if origin is None:
        return None, None
    sql, pos, written = origin
    written = f"operator {written}" if operator else written
    message = f"Spark's job failed in {written}: {message}"
    return MatchRuntimeError(message, sql=sql, pos=pos, hint=hint), spark_class


def has_context(exc: BaseException) -> bool:
    """Whether Spark's error says where it is (a SQL text or a DataFrame call): then it
    is about a query matchrec did not hand Spark (``expression_origins`` found none)."""
    try:
        return bool(exc.getQueryContext())  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - an error without contexts
        return False


#: the condition of the error that stopped a streaming query, after STREAM_FAILED's head
_QUOTED_CONDITION = re.compile(r"\[([A-Z][\w.]*)\]")

#: the functions that read a datetime pattern (Spark builds its formatter as the job runs)
_PATTERN_CALLS = (
    "date_format|from_unixtime|unix_timestamp|to_unix_timestamp|try_to_timestamp|"
    "to_timestamp(?:_ntz|_ltz)?|to_date|try_to_date|to_char|to_varchar"
)
_PATTERN_HINT = (
    "write the pattern with the letters of Spark's datetime pattern guide "
    "(https://spark.apache.org/docs/latest/sql-ref-datetime-pattern.html)"
)

#: Spark's conditions that no function's parameter names -> the calls that raise them, a hint
_CONDITION_CALLS: dict[str, tuple[str, str | None]] = {
    "USER_RAISED_EXCEPTION": ("raise_error|assert_true", None),
    "INCONSISTENT_BEHAVIOR_CROSS_VERSION.DATETIME_PATTERN_RECOGNITION": (
        _PATTERN_CALLS,
        _PATTERN_HINT,
    ),
    "INVALID_DATETIME_PATTERN": (_PATTERN_CALLS, _PATTERN_HINT),
}

#: conditions that a user's own query calling the same function raises as often as
#: matchrec's (a field or a text out of range, not a pattern): taken only when the failed
#: action is known to run a matchrec query
_CONDITIONS_OF_ANY_QUERY: dict[str, tuple[str, str | None]] = {
    "CANNOT_PARSE_TIMESTAMP": (
        "to_date|to_timestamp(?:_ntz|_ltz)?|unix_timestamp|to_unix_timestamp",
        "the text does not read with the pattern: try_to_date and try_to_timestamp give "
        "NULL for such text",
    ),
    "DATETIME_FIELD_OUT_OF_BOUNDS": (
        "make_date|make_timestamp(?:_ntz|_ltz)?",
        "a field is out of its range (month 1-12, day 1-28/31, hour 0-23, minute 0-59, "
        "second below 60): try_make_timestamp gives NULL for such fields",
    ),
    "CAST_OVERFLOW": (
        "cast",
        "the value is outside the type it is cast to (NaN and the infinities are outside "
        "every integer type): try_cast gives NULL instead",
    ),
    "_LEGACY_ERROR_TEMP_2128": (
        "map_from_arrays",
        "the key array and the value array have different lengths (collect_list leaves "
        "out NULLs): collect the pairs together, e.g. map_from_entries(collect_list("
        "struct(k, v)))",
    ),
    # sequence(start, stop, step) whose step goes away from stop, or is 0
    "_LEGACY_ERROR_TEMP_3243": (
        "sequence",
        "the step must go from start toward stop (a negative step for a stop below start)",
    ),
}


#: the operators whose TINYINT or SMALLINT result Spark checks without a query context
#: (BINARY_ARITHMETIC_OVERFLOW's ``symbol``) -> the pattern of each (not a comment's
#: ``--``, nor the star of ``count(*)`` or ``A.*``)
_OPERATORS = {"+": r"\+", "-": r"(?<!-)-(?!-)", "*": r"(?<![(.])\*(?!\s*\))"}
_NARROW_OVERFLOW_HINT = (
    "a TINYINT or SMALLINT result is out of its type's range: CAST an operand to INT or "
    "BIGINT, or use try_add, try_subtract or try_multiply for NULL instead"
)


def _parameter_call(
    exc: BaseException, kind: str | None
) -> tuple[str, str, str | None, bool] | None:
    """(the calls, Spark's first line, a hint or None, whether the calls are narrow
    enough to look for among the table function's, which another process records) of
    Spark's error that names the function in its parameters, or whose condition only
    some functions raise (those of :data:`_CONDITIONS_OF_ANY_QUERY` in a matchrec query); None
    for any other."""
    try:
        parameters = exc.getMessageParameters() or {}  # type: ignore[attr-defined]
        condition = exc.getCondition() or ""  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - an error without parameters
        return None
    text = str(exc).strip()
    head = STREAM_FAILED.match(text)
    quoted = _QUOTED_CONDITION.match(text, head.end()) if head is not None else None
    if condition == "STREAM_FAILED" and quoted is not None:  # the error that stopped it
        condition, parameters = quoted[1], {}
        text = re.sub(r"\s*SQLSTATE: XXKST\b", "", text[head.end() :], count=1)
    name = parameters.get("functionName", "").strip("`")
    narrowed = False  # (to the call with the refused pattern's literal)
    symbol = _OPERATORS.get(parameters.get("symbol", ""))
    if condition == "BINARY_ARITHMETIC_OVERFLOW" and kind == CLAUSE and symbol is not None:
        # (its functionName is the try_ form it suggests, which the query does not call)
        calls, hint = symbol, _NARROW_OVERFLOW_HINT
    elif re.fullmatch(r"\w+", name):
        calls, hint = re.escape(name), None
    else:
        ours = kind in (CLAUSE, TABLE_FUNCTION)
        conditions = {**_CONDITION_CALLS, **(_CONDITIONS_OF_ANY_QUERY if ours else {})}
        found = conditions.get(condition) or conditions.get(condition.split(".")[0])
        if found is None:
            return None
        calls, hint = found
        if calls == _PATTERN_CALLS:
            # the call that reads that pattern as a literal; one that reads it from a
            # column cannot be told from a query of the user's own: Spark's error stays
            pattern = parameters.get("pattern", "")
            if not re.fullmatch(r"'.+'", pattern):
                return None
            calls = rf"(?:{calls})(?=\s*\([^;]*?{re.escape(pattern)})"
            narrowed = True
    first = text.split("\n", 1)[0]
    if first.endswith(":"):  # (INCONSISTENT_BEHAVIOR_CROSS_VERSION: what comes next)
        first = " ".join(text.split("\n")[:2])
    return calls, first, hint, narrowed
