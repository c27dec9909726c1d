"""``matchrec run`` and ``matchrec explain``: in-process ``main([...])`` on small Parquet,
CSV and JSON files, and the one-line message of each bad input.

The Spark tests reuse the session-wide ``spark`` fixture (the CLI's ``get_spark`` returns
the active session); the table-file checks at the end are pure Python.
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from matchrec.runtime.cli import main
from matchrec.runtime.tables import (
    OptionError,
    TableFileError,
    detect_format,
    format_of_name,
    spark_message,
    table_sources,
    worker_error_text,
)

VIEW = "cli_prices"

QUERY = f"""SELECT * FROM {VIEW} MATCH_RECOGNIZE (
  PARTITION BY sym
  ORDER BY t
  MEASURES FIRST(t) AS start_t, LAST(DOWN.t) AS bottom_t, count(*) AS n
  ONE ROW PER MATCH
  PATTERN (STRT DOWN+ UP+)
  DEFINE DOWN AS price < PREV(price), UP AS price > PREV(price)
) AS m
ORDER BY sym;
"""

# two V shapes in x (1-3-5 and 5-7-8: the first one wins), one in y
PRICES = [
    ("x", 1, 10.0),
    ("x", 2, 9.0),
    ("x", 3, 8.0),
    ("x", 4, 9.0),
    ("x", 5, 11.0),
    ("x", 6, 10.0),
    ("x", 7, 12.0),
    ("y", 1, 5.0),
    ("y", 2, 4.0),
    ("y", 3, 6.0),
]
EXPECTED = [["x", "1", "3", "5"], ["y", "1", "2", "3"]]
SCHEMA = f"{VIEW}=sym STRING, t INT, price DOUBLE"


# ---------------------------------------------------------------------------- files


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    """The prices as a Parquet directory (two part files and a _SUCCESS marker), a CSV
    file, a JSON-lines file, a JSON array file, and the query file."""
    parquet_dir = tmp_path / "prices_parquet"
    parquet_dir.mkdir()
    for sym in ("x", "y"):
        rows = [r for r in PRICES if r[0] == sym]
        table = pa.table(
            {
                "sym": [r[0] for r in rows],
                "t": pa.array([r[1] for r in rows], pa.int32()),
                "price": [r[2] for r in rows],
            }
        )
        pq.write_table(table, parquet_dir / f"part-{sym}.parquet")
    (parquet_dir / "_SUCCESS").write_text("")

    csv_file = tmp_path / "prices.csv"
    csv_file.write_text("sym,t,price\n" + "".join(f"{s},{t},{p}\n" for s, t, p in PRICES))
    records = [{"sym": s, "t": t, "price": p} for s, t, p in PRICES]
    jsonl_file = tmp_path / "prices.jsonl"
    jsonl_file.write_text("".join(json.dumps(r) + "\n" for r in records))
    json_file = tmp_path / "prices.json"
    json_file.write_text(json.dumps(records, indent=2))
    query_file = tmp_path / "v_shape.sql"
    query_file.write_text(QUERY)
    return {
        "parquet": parquet_dir,
        "csv": csv_file,
        "jsonl": jsonl_file,
        "json": json_file,
        "query": query_file,
        "tmp": tmp_path,
    }


def shown_rows(out: str) -> list[list[str]]:
    """The body rows of a ``DataFrame.show`` table."""
    rows = [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in out.splitlines()
        if line.startswith("|")
    ]
    return rows[1:]  # without the header


def part_files(folder: Path, suffix: str) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.name.startswith("part-") and suffix in p.name)


# ---------------------------------------------------------------------------- run


def test_run_parquet_directory_prints_the_result(spark, files, capsys):
    code = main(["run", str(files["query"]), "--table", f"{VIEW}={files['parquet']}"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "|sym|start_t|bottom_t|n  |" in out
    assert shown_rows(out) == EXPECTED
    assert VIEW not in {t.name for t in spark.catalog.listTables()}  # view dropped after


def test_a_query_without_order_by_is_warned_about_in_one_line(spark, files, capsys):
    unordered = files["tmp"] / "unordered.sql"
    unordered.write_text(
        f"SELECT * FROM {VIEW} MATCH_RECOGNIZE (PARTITION BY sym\n"
        "  MEASURES count(*) AS n PATTERN (A+) DEFINE A AS price > 0)"
    )
    code = main(["run", str(unordered), "--table", f"{VIEW}={files['parquet']}"])
    out, err = capsys.readouterr()
    assert code == 0, err
    (line,) = [w for w in err.splitlines() if "ORDER BY" in w]
    assert line.startswith("matchrec: warning: MATCH_RECOGNIZE without ORDER BY")
    assert "line 2, column 26" in line


def test_run_csv_with_schema_writes_json(spark, files, capsys):
    out_dir = files["tmp"] / "result.json"
    code = main(
        [
            "run",
            str(files["query"]),
            "--table",
            f"{VIEW}={files['csv']}",
            "--schema",
            SCHEMA,
            "--out",
            str(out_dir),
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out == f"wrote the result to {out_dir} (json)\n"
    rows = [json.loads(line) for f in part_files(out_dir, ".json") for line in f.open()]
    assert sorted((r["sym"], r["start_t"], r["bottom_t"], r["n"]) for r in rows) == [
        ("x", 1, 3, 5),
        ("y", 1, 2, 3),
    ]


def test_run_with_conf_sets_it_for_the_run_only(spark, files, capsys):
    """``--conf`` reaches the session for the run (a groupRows of 1 matches every
    partition alone: same rows) and the session's value is restored after."""
    code = main(
        [
            "run",
            str(files["query"]),
            "--table",
            f"{VIEW}={files['parquet']}",
            "--conf",
            "spark.matchrec.groupRows=1",
            "--conf",
            "spark.sql.shuffle.partitions=3",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert shown_rows(out) == EXPECTED
    assert spark.conf.get("spark.matchrec.groupRows", None) is None
    assert spark.conf.get("spark.sql.shuffle.partitions") == "2"
    assert main(["run", str(files["query"]), "--conf", "nonsense"]) == 2
    assert "--conf takes KEY=VALUE" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["run", "explain"])
def test_a_conf_value_spark_refuses_is_one_line(spark, files, capsys, command):
    """A word where Spark wants a boolean was a Python and Java traceback, exit code 1."""
    table = ["--table", f"{VIEW}={files['parquet']}"]
    argv = [command, str(files["query"]), *table, "--conf", "spark.sql.ansi.enabled=maybe"]
    err = run_error(argv, capsys)
    assert err.startswith(
        "matchrec: usage error: --conf spark.sql.ansi.enabled=maybe: [INVALID_CONF_VALUE"
    ), err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert spark.conf.get("spark.sql.ansi.enabled") == "true"


def test_run_and_explain_bind_params(spark, files, capsys):
    """``--param NAME=VALUE`` binds a ``:NAME`` marker (in the clause too) to a SQL
    literal: a string, a number."""
    query = files["tmp"] / "params.sql"
    query.write_text(
        QUERY.replace("price < PREV(price)", "price < PREV(price) - :step").replace(
            ") AS m", ") AS m WHERE sym = :sym"
        )
    )
    table = ["--table", f"{VIEW}={files['parquet']}"]
    code = main(["run", str(query), *table, "--param", "sym='x'", "--param", "step=0"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert shown_rows(out) == EXPECTED[:1]
    # x falls by 1.0 at each step: a step of 1 leaves no DOWN row
    code = main(["run", str(query), *table, "--param", "sym='x'", "--param", "step=1"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert shown_rows(out) == []
    code = main(["explain", str(query), *table, "--param", "sym='x'", "--param", "step=0.5"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "PATTERN" in out
    # a marker left without a value: the fix in the command line's words
    err = run_error(["run", str(query), *table, "--param", "sym='x'"], capsys)
    assert err.startswith("matchrec: semantic error: [UNBOUND_SQL_PARAMETER] no value for the")
    assert "hint: give its value: --param step=VALUE" in err and "args=" not in err


def test_run_jsonl_from_stdin_with_limit(spark, files, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(QUERY))
    code = main(["run", "-", "--table", f"{VIEW}={files['jsonl']}", "--limit", "1"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert shown_rows(out) == EXPECTED[:1]
    assert "only showing top 1 row" in out


def test_run_json_array_writes_csv_with_format(spark, files, capsys):
    out_dir = files["tmp"] / "result"
    args = ["run", str(files["query"]), "--table", f"{VIEW}={files['json']}"]
    code = main([*args, "--out", str(out_dir), "--format", "csv"])
    out, err = capsys.readouterr()
    assert code == 0, err
    rows = [row for f in part_files(out_dir, ".csv") for row in csv.DictReader(f.open())]
    assert sorted([r["sym"], r["start_t"], r["bottom_t"], r["n"]] for r in rows) == EXPECTED


# ---------------------------------------------------------------------------- explain


def test_explain_prints_the_explanation_and_dot(spark, files, capsys):
    args = ["explain", str(files["query"]), "--table", f"{VIEW}={files['parquet']}"]
    assert main(args) == 0
    out, _ = capsys.readouterr()
    assert out.startswith(f"== MATCH_RECOGNIZE 1 of 1 (line 1): {VIEW} AS m ==")
    assert "PATTERN       (STRT DOWN+ UP+)" in out and "== Physical Plan ==" in out
    assert main([*args, "--dot"]) == 0
    out, _ = capsys.readouterr()
    assert out.startswith('digraph "match_recognize_1" {') and out.rstrip().endswith("}")
    assert "PATTERN (STRT DOWN+ UP+)" in out


# ---------------------------------------------------------------------------- bad input


def run_error(argv: list[str], capsys) -> str:
    """The message ``main(argv)`` prints for a bad input (exit status 2)."""
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    assert err.startswith("matchrec: "), err
    return err


def one_line(err: str) -> str:
    assert err.endswith("\n") and err.count("\n") == 1, f"not one line: {err!r}"
    return err.strip()


# (arguments after "run QUERY", expected start of the message after "matchrec: ");
# {dir} is the test's tmp_path, {csv} the CSV file. These fail before Spark starts.
BEFORE_SPARK = [
    (
        ["--table", f"{VIEW}={{dir}}/missing.csv"],
        f"file error: --table {VIEW}={{dir}}/missing.csv: no such file or directory",
    ),
    (["--table", VIEW], "usage error: --table takes NAME=VALUE"),
    (["--table", "my-prices={csv}"], "usage error: --table 'my-prices={csv}': the table name"),
    (
        ["--table", f"{VIEW}={{csv}}", "--table", f"{VIEW}={{csv}}"],
        f"usage error: --table names table '{VIEW}' twice",
    ),
    (["--table", f"{VIEW}={{csv}}", "--schema", "other=a INT"], "usage error: --schema names"),
    (["--table", f"{VIEW}={{csv}}", "--format", "csv"], "usage error: --format needs --out"),
    (["--table", f"{VIEW}={{csv}}", "--out", "{dir}/r.txt"], "usage error: cannot tell the output"),
    (["--table", f"{VIEW}={{csv}}", "--out", "{csv}"], "usage error: --out {csv} already exists"),
    (["--table", f"{VIEW}={{csv}}", "--limit", "-1"], "usage error: --limit must be 0 or more"),
    (["--param", "sym"], "usage error: --param takes NAME=VALUE for a :NAME marker"),
    (["--param", "sym=x"], "usage error: --param sym: 'x' is not a SQL literal; quote a string"),
    (["--param", "1a=5"], "usage error: --param takes NAME=VALUE"),
]


@pytest.mark.parametrize(("extra", "expected"), BEFORE_SPARK)
def test_bad_options_and_files(files, capsys, extra, expected):
    fill = {"dir": str(files["tmp"]), "csv": str(files["csv"])}
    argv = ["run", str(files["query"]), *(a.format(**fill) for a in extra)]
    assert one_line(run_error(argv, capsys)).startswith("matchrec: " + expected.format(**fill))


@pytest.mark.parametrize(
    "extra",
    [["run"], ["run", "--stream", "--out", "{dir}/o", "--checkpoint", "{dir}/c"], ["explain"]],
    ids=["run", "stream", "explain"],
)
def test_a_mistyped_clause_is_told_before_spark_starts(files, capsys, monkeypatch, extra):
    def no_session(*args, **kwargs):
        raise AssertionError("a session was started for a query with a syntax error")

    monkeypatch.setattr("matchrec.runtime.session.get_spark", no_session)
    bad = files["tmp"] / "typo.sql"
    bad.write_text(QUERY.replace("PATTERN (", "PATERN ("))
    fill = {"dir": str(files["tmp"])}
    command, *rest = extra
    table = ["--table", f"{VIEW}={files['csv']}"]
    argv = [command, str(bad), *table, *(a.format(**fill) for a in rest)]
    err = run_error(argv, capsys)
    assert err.startswith("matchrec: syntax error: unexpected 'PATERN'"), err
    assert "^" in err and "did you mean PATTERN?" in err


def test_an_errors_line_is_the_files_line_after_leading_blank_lines(files, capsys):
    """A query file that starts with blank lines (a comment header cut, a triple-quoted
    string written out) tells the line of the file: it told the line in the text with the
    blank lines stripped, three lines too early here."""
    bad = files["tmp"] / "late_typo.sql"
    bad.write_text("\n\n\n" + QUERY.replace("PATTERN (", "PATERN ("))
    err = run_error(["explain", str(bad)], capsys)
    line = 3 + QUERY.splitlines().index("  PATTERN (STRT DOWN+ UP+)") + 1
    assert f"(line {line}, column 3)" in err, err


def test_unknown_extension_is_named(files, capsys):
    err = run_error(["run", str(files["query"]), "--table", f"t={files['query']}"], capsys)
    assert "unknown file extension .sql (known: .parquet, .csv, .json, .jsonl" in one_line(err)


def test_missing_and_empty_query_files(files, capsys, monkeypatch):
    missing = files["tmp"] / "nope.sql"
    err = run_error(["run", str(missing), "--table", f"{VIEW}={files['csv']}"], capsys)
    assert one_line(err) == f"matchrec: file error: query file {missing} does not exist"
    empty = files["tmp"] / "empty.sql"
    empty.write_text("  ;\n")
    err = run_error(["explain", str(empty)], capsys)
    assert one_line(err) == f"matchrec: file error: query file {empty} is empty"
    monkeypatch.setattr("sys.stdin", io.StringIO("\n"))
    err = run_error(["run", "-"], capsys)
    assert one_line(err) == "matchrec: file error: standard input is empty"
    comments = files["tmp"] / "comments.sql"
    comments.write_text("-- the query is to come\n/* later */\n")
    err = run_error(["run", str(comments)], capsys)
    assert (
        one_line(err)
        == f"matchrec: file error: query file {comments} holds only comments, no query"
    )


@pytest.mark.parametrize(
    ("before", "hint"),
    [
        ("SET spark.sql.ansi.enabled=false;\n", "give settings as --conf KEY=VALUE instead of SET"),
        (f"SELECT * FROM {VIEW};\n", "put each query in a file of its own"),
    ],
)
def test_a_statement_before_the_query_is_told_at_the_query(
    files, capsys, monkeypatch, before, hint
):
    """Spark said INVALID_SET_SYNTAX at the SET, which is not the mistake: a file runs one
    statement."""
    monkeypatch.setattr("matchrec.runtime.session.get_spark", None)  # told before Spark starts
    two = files["tmp"] / "two.sql"
    two.write_text(before + QUERY + ";\n")
    err = run_error(["run", str(two), "--table", f"{VIEW}={files['csv']}"], capsys)
    assert err.startswith("matchrec: syntax error: the file holds 2 statements;")
    assert "(line 2, column 1)" in err and f"hint: {hint}" in err


def test_a_semicolon_inside_the_clause_is_told_where_it_stands(spark, files, capsys):
    """It was "the file holds 2 statements" with the caret on ``) AS m``."""
    one = files["tmp"] / "semicolon.sql"
    one.write_text(QUERY.replace("> PREV(price)\n", "> PREV(price);\n"))
    err = run_error(["run", str(one), "--table", f"{VIEW}={files['csv']}"], capsys)
    assert err.startswith("matchrec: syntax error: unexpected ';' inside the clause")
    assert "(line 7, column 64)" in err


def test_bad_ddl_schema_is_reworded(spark, files, capsys):
    argv = ["run", str(files["query"]), "--table", f"{VIEW}={files['csv']}"]
    err = one_line(run_error([*argv, "--schema", f"{VIEW}=sym STRNG, t INT"], capsys))
    assert err.startswith(f"matchrec: schema error: --schema {VIEW}='sym STRNG, t INT' is not")
    assert 'Unsupported data type "STRNG"' in err and "SQLSTATE" not in err
    assert "CREATE TABLE column list" in err
    err = one_line(run_error([*argv, "--schema", f"{VIEW}=sym STRING t INT"], capsys))
    assert "PARSE_SYNTAX_ERROR" in err


def test_unknown_table_names_the_table_option(spark, files, capsys):
    argv = ["run", str(files["query"]), "--table", f"other={files['parquet']}"]
    err = one_line(run_error(argv, capsys))
    assert err == (
        f"matchrec: unknown table: the query reads table '{VIEW}', which is not loaded: "
        f"add --table {VIEW}=PATH (loaded: other)"
    )
    err = one_line(run_error(["explain", str(files["query"])], capsys))
    assert f"add --table {VIEW}=PATH" in err
    assert "other" not in {t.name for t in spark.catalog.listTables()}


def test_query_errors(spark, files, capsys):
    table = ["--table", f"{VIEW}={files['parquet']}"]
    bad = files["tmp"] / "bad.sql"
    bad.write_text(QUERY.replace("PATTERN (", "PATERN ("))
    err = run_error(["run", str(bad), *table], capsys)  # matchrec's own: caret and all
    assert err.startswith("matchrec: syntax error:") and "^" in err
    bad.write_text(f"SELECT nope FROM {VIEW}")
    err = one_line(run_error(["run", str(bad), *table], capsys))
    assert err.startswith("matchrec: spark error: [UNRESOLVED_COLUMN")
    # a type mix found when the query is built: shown without the tracebacks
    bad.write_text(QUERY.replace("price < PREV(price)", "FIRST(DOWN.sym) > 1"))
    err = run_error(["run", str(bad), *table], capsys)
    assert err.startswith("matchrec: semantic error: > mixes FIRST(DOWN.sym) (STRING) and 1")
    assert "Traceback" not in err and "^" in err
    # an error of the data that Spark raises while the job runs, in the query around the
    # clause: at the user's expression, no traceback
    bad.write_text(QUERY.replace("SELECT *", "SELECT CAST(sym AS INT) AS n"))
    err = run_error(["run", str(bad), *table], capsys)
    assert err.startswith("matchrec: runtime error: [CAST_INVALID_INPUT]"), err
    assert "Traceback" not in err and "| SELECT CAST(sym AS INT)" in err and "^" in err
    # a run-time error of a match raised in a worker: matchrec's message and caret
    bad.write_text(QUERY.replace("ONE ROW PER MATCH", "AFTER MATCH SKIP TO FIRST STRT"))
    err = run_error(["run", str(bad), *table], capsys)
    assert err.startswith("matchrec: runtime error: AFTER MATCH SKIP failed"), err
    assert "Traceback" not in err and "^" in err


# ---------------------------------------------------------------------------- table files


def test_format_of_name():
    cases = {
        "a.parquet": "parquet",
        "part-0000.snappy.parquet": "parquet",
        "A.CSV": "csv",
        "a.csv.gz": "csv",
        "a.jsonl": "json",
        "a.json.bz2": "json",
        "a.txt": None,
        "a": None,
    }
    assert {name: format_of_name(name) for name in cases} == cases


def test_detect_format_of_directories(tmp_path):
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    (mixed / "a.csv").write_text("x\n1\n")
    (mixed / "b.json").write_text('{"x": 1}\n')
    with pytest.raises(TableFileError, match=r"mixes formats \(csv, json\)"):
        detect_format(str(mixed), "--table t")
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "_SUCCESS").write_text("")
    with pytest.raises(TableFileError, match="holds no data files"):
        detect_format(str(empty), "--table t")
    partitioned = tmp_path / "partitioned"
    (partitioned / "day=1").mkdir(parents=True)
    (partitioned / "day=1" / "part-0.csv").write_text("x\n1\n")
    (partitioned / ".part-0.csv.crc").write_text("")
    assert detect_format(str(partitioned), "--table t") == ("csv", {})
    nested = tmp_path / "nested"
    (nested / "2024").mkdir(parents=True)
    (nested / "2024" / "a.jsonl").write_text('{"x": 1}\n')
    assert detect_format(str(nested), "--table t") == ("json", {"recursiveFileLookup": "true"})


def test_json_documents_are_read_multiline(tmp_path):
    lines = tmp_path / "lines.json"
    lines.write_text('{"x": 1}\n{"x": 2}\n')
    array = tmp_path / "array.json"
    array.write_text('[{"x": 1}]')
    pretty = tmp_path / "pretty.json"
    pretty.write_text('{\n  "x": 1\n}\n')
    assert detect_format(str(lines), "t") == ("json", {})
    assert detect_format(str(array), "t") == ("json", {"multiLine": "true"})
    assert detect_format(str(pretty), "t") == ("json", {"multiLine": "true"})


def test_table_sources_attach_schemas_case_insensitively(tmp_path):
    data = tmp_path / "t.csv"
    data.write_text("x\n1\n")
    (source,) = table_sources([f"Prices={data}"], ["prices=x INT"])
    assert (source.name, source.format, source.schema) == ("Prices", "csv", "x INT")
    with pytest.raises(OptionError, match="names table 'prices' twice"):
        table_sources([f"Prices={data}", f"prices={data}"])


def test_a_relative_table_path_is_made_absolute(tmp_path, monkeypatch):
    """A Spark Connect server reads a path from its own working directory: a relative
    --table path that the command finds is handed over absolute (the server failed with
    PATH_NOT_FOUND, a traceback); a URI is left as written."""
    (tmp_path / "t.csv").write_text("x\n1\n")
    monkeypatch.chdir(tmp_path)
    (source,) = table_sources(["t=t.csv"])
    assert source.path == str(tmp_path / "t.csv")
    assert table_sources(["u=s3a://bucket/u.parquet"])[0].path == "s3a://bucket/u.parquet"


def test_spark_message_is_the_first_line_without_sqlstate():
    error = Exception('[X] Bad thing "y". SQLSTATE: 42601 (line 1, pos 2)\n\n== SQL ==\nfoo')
    assert spark_message(error) == '[X] Bad thing "y". (line 1, pos 2)'


def test_worker_error_text_is_the_matchrec_error_at_the_end():
    message = (
        "An exception was thrown from the Python worker:\nTraceback (most recent call last):\n"
        '  File "x.py", line 1, in f\n'
        "matchrec.errors.MatchRuntimeError: runtime error: boom (line 2, column 3)\n"
        "  2 | DEFINE A AS x\n        ^\n"
    )
    assert worker_error_text(message) == (
        "runtime error: boom (line 2, column 3)\n  2 | DEFINE A AS x\n        ^"
    )
    assert worker_error_text("[DIVIDE_BY_ZERO] Division by zero.") is None


def test_a_clause_error_after_spark_starts_is_all_that_is_printed(tmp_path):
    """In a process of its own (Spark's start-up is printed once per JVM): the error and
    its caret, without Spark's "Setting default log level to WARN" and its advice."""
    bad = tmp_path / "bad.sql"
    bad.write_text(
        "SELECT * FROM (VALUES (1)) t(x) MATCH_RECOGNIZE (ORDER BY x MEASURES nope AS n "
        "PATTERN (A) DEFINE A AS true)"
    )
    code = "import sys; from matchrec.runtime.cli import main; sys.exit(main(sys.argv[1:]))"
    done = subprocess.run(
        [sys.executable, "-c", code, "run", str(bad)], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 2, done.stderr
    # the JVM's own notice of an incubator module is not Spark's to silence
    lines = [s for s in done.stderr.splitlines() if not s.startswith("WARNING: Using incubator")]
    assert lines[0].startswith("matchrec: semantic error: Column 'nope' cannot be resolved")
    assert len(lines) == 4 and lines[3] == "hint: input columns: x", lines


def test_explain_tells_a_constant_spark_cannot_cast_at_its_place(tmp_path):
    """``matchrec explain`` of ``price < 'abc'`` (ANSI mode): Spark casts the constant while
    it plans, so explain fails as the job would, at the condition with a caret. In a
    process of its own, which ran no query before: explain did not hook Spark's errors,
    and printed one line of Spark's without a place."""
    query = tmp_path / "cast.sql"
    query.write_text(
        "SELECT * FROM (VALUES (1, 2.0D), (2, 1.0D)) t(x, price) MATCH_RECOGNIZE (\n"
        "  ORDER BY x MEASURES count(*) AS n PATTERN (A B)\n"
        "  DEFINE B AS price < 'abc')"
    )
    code = "import sys; from matchrec.runtime.cli import main; sys.exit(main(sys.argv[1:]))"
    done = subprocess.run(
        [sys.executable, "-c", code, "explain", str(query)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 2, done.stderr
    lines = [s for s in done.stderr.splitlines() if not s.startswith("WARNING: Using incubator")]
    assert lines[0].startswith("matchrec: runtime error: [CAST_INVALID_INPUT]"), lines
    assert lines[0].endswith("(line 3, column 15)"), lines


def _table_function_query() -> str:
    """:data:`QUERY` through the table function: its clause body as the text argument."""
    body = QUERY[QUERY.index("(") + 1 : QUERY.index(") AS m")].strip()
    quoted = body.replace("'", "''")
    return f"SELECT * FROM match_recognize(TABLE({VIEW}), '{quoted}') ORDER BY sym"


def test_run_explain_and_test_take_the_table_function(spark, files, capsys):
    """A query file or a suite's record may call the table function: the commands
    register it on their session (a suite cannot call ``matchrec.register``)."""
    table = ["--table", f"{VIEW}={files['parquet']}"]
    query_file = files["tmp"] / "by_function.sql"
    query_file.write_text(_table_function_query())
    spark.sql("DROP TEMPORARY FUNCTION IF EXISTS match_recognize")
    code = main(["run", str(query_file), *table])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert shown_rows(out) == EXPECTED

    spark.sql("DROP TEMPORARY FUNCTION IF EXISTS match_recognize")
    assert main(["explain", str(query_file), *table]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert out.startswith(f"== Table function 1 of 1 (line 1): match_recognize(TABLE({VIEW})")
    assert "NFA program" in out

    rows = "\n".join(" ".join(row) for row in EXPECTED)
    suite = files["tmp"] / "by_function.slt"
    suite.write_text(
        f"statement ok\nCREATE OR REPLACE TEMP VIEW {VIEW} AS SELECT * FROM parquet."
        f"`{files['parquet']}`\n\nquery TIII\n{_table_function_query()}\n----\n{rows}\n"
    )
    spark.sql("DROP TEMPORARY FUNCTION IF EXISTS match_recognize")
    code = main(["test", str(suite)])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert "1 passed, 0 failed" in out
