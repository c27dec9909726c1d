"""A matchrec error raised in a Python worker reaches the user as that error.

A run-time error of a match (``AFTER MATCH SKIP TO FIRST A`` where A starts the match,
an ANSI error of DEFINE's glue or of the table function's MEASURES) is raised in a
Python worker of the job; Spark fails the job with a ``PythonException`` whose text is
Spark's header, the worker's traceback and, only at its end, the matchrec message with
its caret. The table function's errors of analysis come the same way, as an
``AnalysisException``. Nothing of matchrec runs between the user's ``collect()`` (or
``spark.sql`` of the table function) and that exception, so :func:`install` hooks the
one step that PySpark's classic and Connect clients both take for every error from
Spark: ``recover_python_exception``. An error that carries a matchrec error comes out
as that matchrec class, its message (what, where, caret, hint) first and alone, and
still the PySpark class it was (``except PythonException`` or ``AnalysisException``
still catches it; ``getCondition()`` still answers). Spark's own run-time error in an
expression matchrec handed it (an ANSI error of a MEASURE) likewise comes out at the
user's expression (``runtime.expression_origins``; the table function's parts too, and
Spark's UNRESOLVED_ROUTINE for a function one of them calls, through the record its
``analyze`` keeps: ``runtime.shared_origins``). A streaming query that either of
them stopped raises a ``StreamingQueryException`` that quotes it: that comes out as the
matchrec error too, still a ``StreamingQueryException``. Every other error is unchanged.
"""

from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Callable
from typing import Any

from matchrec.errors import (
    MatchRecognizeError,
    MatchRuntimeError,
    SemanticError,
    SqlSyntaxError,
    UnsupportedError,
)
from matchrec.excepthook import carried_rebuilt

from .expression_origins import at_unresolved_call, at_users_expression
from .failed_calls import at_failed_call, has_context
from .failing_query import USERS, failing_query, runs_matchrec_query
from .udf_errors import at_udf_call

#: PySpark's modules that recover a Python traceback from each error of Spark's (classic, Connect)
_CLIENTS = ("pyspark.errors.exceptions.captured", "pyspark.errors.exceptions.connect")
_HOOK = "recover_python_exception"


#: the StreamingQuery classes (classic, Connect), whose ``exception()`` builds the error
#: that stopped a query without the recovery step above
_QUERIES = (
    ("pyspark.sql.streaming.query", "StreamingQuery"),
    ("pyspark.sql.connect.streaming.query", "StreamingQuery"),
)


def install() -> None:
    """Hook each PySpark client's error recovery once, and each client's
    ``StreamingQuery.exception()`` (calling it again is harmless; a client that cannot be
    imported, or that lacks the step, is left alone)."""
    for name in _CLIENTS:
        try:
            module = importlib.import_module(name)
        except ImportError:  # Spark Connect's client needs grpc
            continue
        recover = getattr(module, _HOOK, None)
        if recover is None or getattr(recover, "matchrec_previous", None) is not None:
            continue
        setattr(module, _HOOK, _hooked(recover))
    for name, cls_name in _QUERIES:
        try:
            cls = getattr(importlib.import_module(name), cls_name)
        except (ImportError, AttributeError):
            continue
        exception = getattr(cls, "exception", None)
        if exception is None or getattr(exception, "matchrec_previous", None) is not None:
            continue
        cls.exception = _exception_hooked(exception)


def _hooked(recover: Callable[[BaseException], BaseException]) -> Callable:
    def recover_matchrec_error(exc: BaseException) -> BaseException:
        recovered = recover(exc)
        return as_matchrec_error(recovered) or recovered

    recover_matchrec_error.matchrec_previous = recover  # type: ignore[attr-defined]
    return recover_matchrec_error


def _exception_hooked(exception: Callable[[Any], BaseException | None]) -> Callable:
    """``StreamingQuery.exception`` giving the error that stopped a query as the matchrec
    error it carries, as ``awaitTermination()`` raises it."""

    @functools.wraps(exception)
    def exception_as_matchrec_error(query: Any) -> BaseException | None:
        found = exception(query)
        return None if found is None else as_matchrec_error(found) or found

    exception_as_matchrec_error.matchrec_previous = exception  # type: ignore[attr-defined]
    return exception_as_matchrec_error


def as_matchrec_error(exc: BaseException) -> MatchRecognizeError | None:
    """``exc``, a PySpark error that carries a matchrec error raised in a Python worker, as
    that matchrec error (and still ``exc``'s class, with its state); None for any other
    error. The caret is in the line of the clause the worker quoted (the whole query is
    not known here): ``err.sql[err.pos:]`` starts where the error is. Spark's run-time
    error in an expression matchrec handed it is a :class:`MatchRuntimeError` at the
    user's expression (``expression_origins``)."""
    if isinstance(exc, MatchRecognizeError) or not _is_spark_error(exc):
        return None
    carrier = type(exc)
    if _is_worker_error(exc):  # a worker's error, or Spark's analysis: never a run-time one
        error = carried_rebuilt(exc) or _at_udf_call_of_ours(exc) or at_unresolved_call(exc)
    elif _is_stream_failure(exc):  # a micro-batch's error, whichever part raised it
        error = carried_rebuilt(exc) or at_users_expression(exc, in_text=True)
        error = error or _at_udf_call_of_ours(exc)
        if error is None:
            kind = failing_query()  # USERS: the user's own stream failed
            error = None if kind == USERS else at_failed_call(exc, kind)[0]
    else:
        error = at_users_expression(exc)
        if error is None and not has_context(exc):
            kind = failing_query()  # USERS: the user's own query failed
            if kind != USERS:
                error, named = at_failed_call(exc, kind)
                carrier = _named_class(exc, named) if named else carrier
    if error is None:
        return None
    merged = _both(type(error), carrier, *_sparks_class(error, exc))
    converted = merged.__new__(merged)
    converted.__dict__.update(exc.__dict__)
    converted.__dict__.update(error.__dict__)
    converted.args = error.args
    return converted


def _at_udf_call_of_ours(exc: BaseException) -> MatchRuntimeError | None:
    """A Python UDF's error at its call in the latest matchrec query calling it, unless
    the action that failed runs a query of the user's own (``runtime.failing_query``):
    the UDF's traceback does not say which query called it."""
    error = at_udf_call(exc)
    return None if error is None or runs_matchrec_query() is False else error


def _named_class(exc: BaseException, name: str) -> type:
    """PySpark's class ``name`` of ``exc``'s client (classic or Connect), for an error it
    gave no class of its own (an ``UnknownException``, which PySpark raises as py4j's
    error it came in)."""
    module = importlib.import_module(type(exc).__module__)
    return getattr(module, name, type(exc))


def _is_stream_failure(exc: BaseException) -> bool:
    """Whether ``exc`` stopped a streaming query: it quotes the error of the micro-batch
    (a worker's traceback, or Spark's run-time error with its SQL context) in its text."""
    from pyspark.errors import StreamingQueryException

    return isinstance(exc, StreamingQueryException)


def _is_spark_error(exc: BaseException) -> bool:
    from pyspark.errors import PySparkException

    return isinstance(exc, PySparkException)


def _is_worker_error(exc: BaseException) -> bool:
    from pyspark.errors import AnalysisException, PythonException

    return isinstance(exc, (PythonException, AnalysisException))


#: PySpark's class of the error Spark raises for a query with a fault of each kind
_QUERY_ERRORS = {
    SqlSyntaxError: "ParseException",
    SemanticError: "AnalysisException",
    UnsupportedError: "AnalysisException",
}
#: Spark's condition that a message of ours quotes (``[UNRESOLVED_ROUTINE]``)
_CONDITION = re.compile(r"\[(_?[A-Z][A-Z0-9]*_[A-Z0-9_.]*)\]")


def as_query_error(err: MatchRecognizeError) -> MatchRecognizeError:
    """``err``, found while ``matchrec.sql`` or ``match_recognize`` builds a query, as
    also PySpark's error for such a query (a ``ParseException``, an
    ``AnalysisException``), as the table function's errors are: ``except
    AnalysisException`` catches a bad query through every door. ``getCondition()`` is
    Spark's condition where the message gives one. Other errors are returned as they are."""
    import pyspark.errors as spark_errors
    from pyspark.errors import PySparkException

    name = next((n for c, n in _QUERY_ERRORS.items() if type(err) is c), None)
    if name is None:
        return err
    merged = _both(type(err), getattr(spark_errors, name))
    converted = merged.__new__(merged)
    found = _CONDITION.search(err.message)
    PySparkException.__init__(
        converted, message=err.message, errorClass=found[1] if found else None
    )
    converted.__dict__.update(err.__dict__)
    converted.args = err.args
    return converted


#: PySpark's class of Spark's error for each condition that matchrec's own evaluation
#: raises as Spark would (a zero divisor of DEFINE's glue, of the table function's MEASURES)
_CONDITION_CLASSES = {
    **dict.fromkeys(
        "DIVIDE_BY_ZERO REMAINDER_BY_ZERO INTERVAL_DIVIDED_BY_ZERO ARITHMETIC_OVERFLOW "
        "BINARY_ARITHMETIC_OVERFLOW CAST_OVERFLOW NUMERIC_VALUE_OUT_OF_RANGE "
        "INTERVAL_ARITHMETIC_OVERFLOW DATETIME_OVERFLOW".split(),
        "ArithmeticException",
    ),
    "INVALID_ARRAY_INDEX": "ArrayIndexOutOfBoundsException",
    "INVALID_ARRAY_INDEX_IN_ELEMENT_AT": "ArrayIndexOutOfBoundsException",
    "CANNOT_PARSE_TIMESTAMP": "DateTimeException",
    "DATETIME_FIELD_OUT_OF_BOUNDS": "DateTimeException",
    "CAST_INVALID_INPUT": "NumberFormatException",
    "DUPLICATED_MAP_KEY": "SparkRuntimeException",
    "NULL_MAP_KEY": "SparkRuntimeException",
    "USER_RAISED_EXCEPTION": "SparkRuntimeException",
    "_LEGACY_ERROR_TEMP_2128": "SparkRuntimeException",  # map_from_arrays' lengths
    "INVALID_URL": "IllegalArgumentException",
}
#: CAST_INVALID_INPUT's class by the type cast to, where it is not a number's
_CAST_CLASSES = {
    "DATE": "DateTimeException",
    "TIMESTAMP": "DateTimeException",
    "TIMESTAMP_NTZ": "DateTimeException",
    "TIMESTAMP_LTZ": "DateTimeException",
    "BOOLEAN": "SparkRuntimeException",
}
#: the type a message says a value was cast to ("cannot cast 'x' to INT", "... to \"DATE\"")
_CAST_TO = re.compile(r"\bcast\b.*?\bto \"?([A-Z][A-Z_]*)")


def _sparks_class(error: MatchRecognizeError, exc: BaseException) -> tuple[type, ...]:
    """PySpark's class of the error Spark raises where matchrec computed ``error``
    itself (DIVIDE_BY_ZERO: ``ArithmeticException``), unless ``exc``, its carrier, is one
    already: ``except ArithmeticException`` catches it through every door."""
    import pyspark.errors as spark_errors

    condition = error.spark_condition if isinstance(error, MatchRuntimeError) else None
    if condition is None:
        return ()
    condition = condition.split(".")[0]
    name = _CONDITION_CLASSES.get(condition)
    if condition == "CAST_INVALID_INPUT":
        targets = _CAST_TO.findall(error.message)
        name = _CAST_CLASSES.get(targets[-1], name) if targets else name
    spark_class = getattr(spark_errors, name) if name else None
    if spark_class is None or isinstance(exc, spark_class):
        return ()
    return (spark_class,)


@functools.cache
def _both(error_class: type, *spark_classes: type) -> type:
    """The class of a matchrec error carried by a PySpark error: the classes, the
    matchrec one first (its message and caret are what ``str()`` shows)."""
    names = " and ".join(c.__name__ for c in spark_classes)
    members = {
        "__module__": error_class.__module__,
        "__doc__": f"{error_class.__doc__} Raised in a Python worker of Spark's: also {names}.",
        "__reduce__": _reduce,
    }
    if issubclass(error_class, MatchRuntimeError):
        members.update(getCondition=_spark_condition, getSqlState=_spark_sqlstate)
    return type(error_class.__name__, (error_class, *spark_classes), members)


def _reduce(self) -> tuple:
    """Pickle a merged error as its classes and its state (its class is made here, not
    found by name where it is read back)."""
    return (_merged_again, (type(self).__bases__, self.args, dict(self.__dict__)))


def _merged_again(classes: tuple[type, ...], args: tuple, state: dict) -> BaseException:
    merged = _both(*classes)
    err = merged.__new__(merged)
    err.__dict__.update(state)
    err.args = args
    return err


def _spark_condition(self) -> str | None:
    """Spark's condition for the ANSI error matchrec computed (``DIVIDE_BY_ZERO``), as
    Spark raises it where it computes the same expression; else the carrier's."""
    return self.spark_condition or super(MatchRuntimeError, self).getCondition()


def _spark_sqlstate(self) -> str | None:
    return self.spark_sqlstate or super(MatchRuntimeError, self).getSqlState()
