"""Query-suite runner: runs sqllogictest (``.slt``) files against Spark.

Each record runs through an *executor* ``executor(spark, sql) -> DataFrame``, by default
:func:`matchrec.sql`; its result is collected, written as text
(:mod:`matchrec.runtime.slt_format`) and compared with the record's expected rows.
All records of a file run in order in one shared session, so the temp views that
``statement ok`` records create are there for the records after them; what a file
leaves behind is undone before the next (:mod:`matchrec.runtime.slt_session`).

A ``statement error`` record passes when executing or collecting the SQL raises an
error of the engine (a :class:`~matchrec.errors.MatchRecognizeError` or an error from
PySpark/the JVM) whose text matches the expected one, as a case-insensitive substring
or regular expression. Any other exception (``TypeError``, ``KeyError``, ..., also when
raised in a Python worker) is a crash of the implementation and fails the record,
whatever its message.

Public API: :func:`run_paths`, :func:`run_file`, :func:`run_record`,
:func:`collect_files`, :func:`default_executor`, and the result classes
:class:`CaseResult`, :class:`FileResult`, :class:`Summary`.
"""

from __future__ import annotations

import builtins
import hashlib
import os
import re
import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from matchrec.errors import MatchRecognizeError

from .interval_text import intervals_as_text
from .slt_format import (
    EXACT,
    format_rows,
    sort_table,
    table_diff,
    tables_equal,
    valuesort_types,
)
from .slt_parser import (
    HASHED,
    Record,
    SltError,
    SltParseError,
    parse_file,
    parse_slt,
)
from .slt_session import restore, session_state

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import StructType

__all__ = [
    "CaseResult",
    "Executor",
    "FileResult",
    "Record",
    "SltError",
    "SltParseError",
    "Summary",
    "collect_files",
    "default_executor",
    "keyword_filter",
    "parse_file",
    "parse_slt",
    "run_file",
    "run_paths",
    "run_record",
    "spark_executor",
]

Executor = Callable[["SparkSession", str], "DataFrame"]
"""Runs one SQL text in a session and returns its (lazy) result."""

PASSED, FAILED, SKIPPED = "passed", "failed", "skipped"

_MAX_ERROR_LINES = 30


@dataclass
class CaseResult:
    """The outcome of one record."""

    record: Record
    status: str
    message: str = ""
    """Why it failed: a diff of the rows, or the error text."""
    seconds: float = 0.0
    setup: bool = False
    """Run only to prepare a later selected record (``-k``), not selected itself."""

    @property
    def passed(self) -> bool:
        return self.status == PASSED

    @property
    def failed(self) -> bool:
        return self.status == FAILED

    def report(self) -> str:
        """A readable block: where, the record header, its SQL, then the message."""
        role = " (setup for a selected record)" if self.setup else ""
        sql = "\n".join("    " + line for line in self.record.sql.splitlines())
        return f"{self.record.location}: {self.record.header}{role}\n{sql}\n{self.message}".rstrip()


@dataclass
class FileResult:
    """The outcomes of the records of one file that ran."""

    path: str
    cases: list[CaseResult] = field(default_factory=list)

    @property
    def passed(self) -> int:
        """Test records (queries and expected errors) that passed; a ``statement ok`` that
        ran as it should is setup, not a test (it is counted as failed if it fails)."""
        return sum(c.passed and not c.record.is_setup for c in self.cases)

    @property
    def setup(self) -> int:
        return sum(c.passed and c.record.is_setup for c in self.cases)

    @property
    def failed(self) -> int:
        return sum(c.failed for c in self.cases)

    @property
    def skipped(self) -> int:
        return sum(c.status == SKIPPED for c in self.cases)


@dataclass
class Summary:
    """The outcomes of a whole run."""

    files: list[FileResult] = field(default_factory=list)
    #: the files that do not parse, each not run
    unparsed: list[SltParseError] = field(default_factory=list)

    @property
    def cases(self) -> list[CaseResult]:
        return [case for f in self.files for case in f.cases]

    @property
    def passed(self) -> int:
        return sum(f.passed for f in self.files)

    @property
    def failed(self) -> int:
        return sum(f.failed for f in self.files)

    @property
    def skipped(self) -> int:
        return sum(f.skipped for f in self.files)

    @property
    def setup(self) -> int:
        return sum(f.setup for f in self.files)

    def line(self) -> str:
        """``N passed, N failed``: the closing line of the CLI."""
        return f"{self.passed} passed, {self.failed} failed"


# ---------------------------------------------------------------------------- executors


def default_executor() -> Executor:
    """:func:`matchrec.sql`; raises :class:`SltError` if its runtime cannot be imported."""
    import importlib

    import matchrec

    try:
        importlib.import_module("matchrec.runtime.api")
    except ImportError as exc:
        raise SltError(f"matchrec.sql is not available: {exc}") from exc
    return matchrec.sql


def open_doors(spark: SparkSession, executor: Executor) -> None:
    """Register the table function on ``spark`` when the records run through matchrec,
    so that a record may call ``match_recognize(TABLE(t), '...')`` as well as the
    clause."""
    import matchrec

    if executor is matchrec.sql:
        matchrec.register(spark)


def spark_executor(spark: SparkSession, sql: str) -> DataFrame:
    """Plain ``spark.sql``: runs suites without matchrec (to check the suites themselves)."""
    return spark.sql(sql)


# ---------------------------------------------------------------------------- running


def run_paths(
    paths: Iterable[str | os.PathLike[str]],
    executor: Executor | None = None,
    spark: SparkSession | None = None,
    *,
    keyword: str | None = None,
    exitfirst: bool = False,
    on_result: Callable[[CaseResult], None] | None = None,
) -> Summary:
    """Run every ``.slt`` file found in ``paths`` (files or directories, recursively).

    ``keyword`` keeps only the records whose file name, ``file:line`` or SQL contains
    it (case-insensitive); ``exitfirst`` stops at the first failure; ``on_result`` is
    called with each result as soon as it is known. All files are parsed before any
    runs; one that does not parse is in ``Summary.unparsed`` and the others run (a suite
    with a file in another runner's dialect still gives its other verdicts).
    """
    files = collect_files(paths)
    summary = Summary()
    parsed = []
    for path in files:
        try:
            parsed.append((os.fspath(path), parse_file(path)))
        except SltParseError as err:
            summary.unparsed.append(err)
    select = keyword_filter(keyword)
    if not any(select is None or select(r) for _, records in parsed for r in records):
        return summary  # nothing to run: don't start Spark
    if executor is None:
        executor = default_executor()
    if spark is None:
        from matchrec.runtime.session import get_spark

        spark = get_spark()
    open_doors(spark, executor)
    baseline = session_state(spark)
    for path, records in parsed:
        try:
            result = _run_records(path, records, executor, spark, select, exitfirst, on_result)
        finally:
            restore(spark, baseline)  # each file starts from the same state
        if result.cases:
            summary.files.append(result)
        if exitfirst and result.failed:
            break
    return summary


def keyword_filter(keyword: str | None) -> Callable[[Record], bool] | None:
    """A ``select`` for :func:`run_file`: records whose ``file:line`` or SQL contains
    ``keyword`` (case-insensitive); None (all records) when ``keyword`` is empty."""
    if not keyword:
        return None
    needle = keyword.casefold()
    return lambda record: needle in f"{record.location}\n{record.sql}".casefold()


def run_file(
    path: str | os.PathLike[str],
    executor: Executor | None = None,
    spark: SparkSession | None = None,
    *,
    select: Callable[[Record], bool] | None = None,
    exitfirst: bool = False,
    on_result: Callable[[CaseResult], None] | None = None,
) -> FileResult:
    """Run the records of one ``.slt`` file in order, in one session.

    With ``select``, only the records it accepts are run and reported, plus the
    ``statement ok`` records before them, which run as setup and are reported only if
    they fail.
    """
    records = parse_file(path)
    if executor is None:
        executor = default_executor()
    if spark is None:
        from matchrec.runtime.session import get_spark

        spark = get_spark()
    open_doors(spark, executor)
    return _run_records(os.fspath(path), records, executor, spark, select, exitfirst, on_result)


def _run_records(
    path: str,
    records: Sequence[Record],
    executor: Executor,
    spark: SparkSession,
    select: Callable[[Record], bool] | None,
    exitfirst: bool,
    on_result: Callable[[CaseResult], None] | None,
) -> FileResult:
    result = FileResult(path)
    chosen = [select is None or select(r) for r in records]
    last = max((i for i, c in enumerate(chosen) if c), default=-1)
    for record, selected in zip(records[: last + 1], chosen, strict=False):
        if not selected and not (record.is_setup and not record.skip):
            continue
        case = run_record(record, executor, spark)
        if not selected:
            if not case.failed:
                continue
            case.setup = True
        result.cases.append(case)
        if on_result is not None:
            on_result(case)
        if exitfirst and case.failed:
            break
    return result


def run_record(record: Record, executor: Executor, spark: SparkSession) -> CaseResult:
    """Run one record and judge it; never raises for what the executor does."""
    if record.skip:
        return CaseResult(record, SKIPPED, "skipped by skipif/onlyif")
    start = time.perf_counter()
    status, message = _judge(record, executor, spark)
    return CaseResult(record, status, message, time.perf_counter() - start)


def _judge(record: Record, executor: Executor, spark: SparkSession) -> tuple[str, str]:
    try:
        df = executor(spark, record.sql)
        df = intervals_as_text(df) if df is not None else None
        rows = df.collect() if df is not None else []
        schema = df.schema if df is not None else None
    except Exception as exc:  # judged below: the runner must go on
        return _judge_error(record, exc)

    if record.expect_error:
        shown = f"; it returned {len(rows)} row(s)" if record.kind == "query" else ""
        expected = f"an error matching: {record.error}" if record.error else "an error"
        return FAILED, f"expected {expected}\nbut the SQL ran without error{shown}"
    if record.kind == "statement":
        return PASSED, ""

    try:
        time_zone = spark.conf.get("spark.sql.session.timeZone")
        written = format_rows(rows, schema, time_zone)
    except Exception:  # a value the formatter does not know
        return FAILED, "could not write the result as text:\n" + traceback.format_exc(limit=3)
    expected = sort_table(list(record.expected), record.sort, record.types)
    hashed = _hashed(expected)
    # a hashed result in the order of the cells' text, as sqllogictest hashes it
    actual = sort_table(written, record.sort, "" if hashed else record.types)
    problems = []
    ncols = len(schema.fields) if schema is not None else 0
    if record.sort != "valuesort" and ncols != len(record.types):
        declared = f"{len(record.types)} ({record.types})"
        problems.append(f"the query returned {ncols} column(s), the record declares {declared}")
    types = record.types if record.sort != "valuesort" else valuesort_types(record.types)
    if record.sort != "valuesort" and schema is not None and ncols == len(types):
        types = exact_types(types, schema)
    if hashed is not None:  # sqllogictest's ``N values hashing to <md5>``
        values = [v for row in actual for v in row]
        digest = hashlib.md5("".join(v + "\n" for v in values).encode()).hexdigest()
        if not problems and (len(values), digest) == hashed:
            return PASSED, ""
        problems.append(f"expected {hashed[0]} values hashing to {hashed[1]}")
        problems.append(f"actual   {len(values)} values hashing to {digest}:")
        problems.append(_indent("\n".join("\t".join(row) for row in actual)))
        return FAILED, "\n".join(problems)
    if not problems and tables_equal(expected, actual, types):
        return PASSED, ""
    problems.append(table_diff(expected, actual))
    return FAILED, "\n".join(problems)


def exact_types(types: str, schema: StructType) -> str:
    """``types`` with each ``R`` of a DECIMAL or integer column as :data:`EXACT`: its
    values are compared as numbers, without the tolerance a FLOAT's or DOUBLE's get."""
    from pyspark.sql.types import DecimalType, IntegralType

    return "".join(
        EXACT if t == "R" and isinstance(f.dataType, (DecimalType, IntegralType)) else t
        for t, f in zip(types, schema.fields)
    )


def _hashed(expected: Sequence[tuple[str, ...]]) -> tuple[int, str] | None:
    """(count, md5) when the expected rows are ``N values hashing to <md5>``."""
    if len(expected) != 1 or len(expected[0]) != 1:
        return None
    found = HASHED.fullmatch(expected[0][0].strip())
    return None if found is None else (int(found.group(1)), found.group(2))


def _judge_error(record: Record, exc: Exception) -> tuple[str, str]:
    text = error_text(exc)
    if not is_engine_error(exc):
        crashed = worker_exception(text)
        if crashed:
            return FAILED, f"a Python worker crashed with {crashed}:\n{_indent(text)}"
        where = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__, limit=-6))
        return FAILED, f"the implementation crashed with {type(exc).__name__}:\n{where.rstrip()}"
    if not record.expect_error:
        return FAILED, f"unexpected error:\n{_indent(text)}"
    if record.error is None or error_matches(record.error, error_message(exc)):
        return PASSED, ""
    return FAILED, f"expected an error matching: {record.error}\nactual error:\n{_indent(text)}"


def is_engine_error(exc: BaseException) -> bool:
    """An error the engine reports on purpose: matchrec's own, PySpark's or the JVM's.

    Not one: any other Python exception, also when a Python worker raised it (PySpark
    then reports a ``PythonException`` whose traceback ends in, e.g., ``KeyError: 0``).
    """
    if isinstance(exc, MatchRecognizeError):
        return True
    module = type(exc).__module__ or ""
    if module.startswith("pyspark."):
        return worker_exception(str(exc)) is None
    return module.startswith("py4j.") and type(exc).__name__ == "Py4JJavaError"


def worker_exception(message: str) -> str | None:
    """The builtin exception (``TypeError``, ...) that ends a Python worker traceback
    quoted in ``message``, or None (no traceback, or it ends in a library's error)."""
    lines = message.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("Traceback (most recent call")]
    if not starts:
        return None
    for line in lines[starts[-1] + 1 :]:
        if line and not line[0].isspace():
            name = line.split(":", 1)[0].strip()
            builtin = getattr(builtins, name, None)
            is_error = isinstance(builtin, type) and issubclass(builtin, BaseException)
            return name if is_error else None
    return None


def error_text(exc: BaseException) -> str:
    """The message of ``exc``, at most a screenful."""
    lines = str(exc).strip().splitlines() or [type(exc).__name__]
    if len(lines) > _MAX_ERROR_LINES:
        lines = lines[:_MAX_ERROR_LINES] + [f"... ({len(lines) - _MAX_ERROR_LINES} more lines)"]
    return "\n".join(lines)


def error_message(exc: BaseException) -> str:
    """What ``statement error <text>`` is matched against: the error's message and hint,
    without the SQL it quotes (matchrec's line and caret, Spark's ``== SQL ==`` block,
    its plan after ``SQLSTATE: ...;``): an expected text that the query itself holds
    must not pass on another error."""
    if isinstance(exc, MatchRecognizeError):
        hint = f"\nhint: {exc.hint}" if exc.hint else ""
        return f"{exc.kind}: {exc.message}{hint}"
    kept = []
    for line in str(exc).strip().splitlines():
        if line.startswith("== SQL"):
            break
        kept.append(line)
        if "SQLSTATE: " in line:
            break  # Spark's plan or context follows
    return "\n".join(kept[:_MAX_ERROR_LINES])  # not a JVM stack's frames


def error_matches(expected: str, message: str) -> bool:
    """``expected`` is a case-insensitive substring or regular expression of ``message``."""
    flat = " ".join(message.split())
    for text in (message, flat):
        if expected.casefold() in text.casefold():
            return True
        try:
            if re.search(expected, text, re.IGNORECASE | re.DOTALL):
                return True
        except re.error:
            pass
    return False


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


# ---------------------------------------------------------------------------- files


def collect_files(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """The ``.slt`` files named by ``paths``: files as given, directories searched
    recursively in sorted order; duplicates dropped. Raises :class:`SltError` for a
    path that does not exist.
    """
    found: list[Path] = []
    seen: set[Path] = set()
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            candidates = sorted(p for p in path.rglob("*.slt") if p.is_file())
        elif path.is_file():
            candidates = [path]
        else:
            raise SltError(f"no such file or directory: {os.fspath(raw)}")
        for candidate in candidates:
            key = candidate.resolve()
            if key not in seen:
                seen.add(key)
                found.append(candidate)
    return found
