"""The ``matchrec`` command.

Usage::

    matchrec demo [--limit N]
    matchrec test PATH... [-k SUBSTRING] [-x] [-v] [--engine {matchrec,spark}]
    matchrec run QUERY.sql --table NAME=PATH... [--schema NAME=DDL]... [--limit N]
                 [--out PATH [--format {csv,json,parquet}] [--overwrite]]
                 [--stream --watermark TABLE.COLUMN=DELAY --checkpoint DIR [--continuous]]
                 [--conf KEY=VALUE]... [--remote URL]
    matchrec explain QUERY.sql [--table NAME=PATH]... [--schema NAME=DDL]... [--dot]
                 [--conf KEY=VALUE]... [--remote URL]

``demo`` runs the main job: a V-shape query on the sample ticker data shipped in the
package, on local Spark, and prints its matches.

``test`` runs query suites (``.slt`` files, directories searched recursively), prints
each failing record with a diff, and ends with the line ``N passed, N failed``.
Exit status: 0 all passed, 1 some failed, 2 usage or setup error (bad option, no
``.slt`` file or no record to run, malformed file, no Java, ``matchrec.sql`` missing).

``run`` loads table files as temporary views (``matchrec.runtime.tables``), runs the
query (a file, or ``-`` for standard input) with ``matchrec.sql`` and prints the result,
or writes it with ``--out``. ``explain`` prints ``matchrec.explain`` of the query (only
the automata as Graphviz DOT with ``--dot``) and runs no Spark job itself (reading a CSV
or JSON table does, to infer its column types). Both exit with status 2 and a one-line
message for bad input: missing file, unknown extension, bad option, bad schema, unknown
table, a query Spark or matchrec rejects; a job that fails on a matchrec error in a
Python worker (e.g. a DEFINE comparing a string with a number) prints that error alone.

``run`` and ``explain`` take Spark settings with ``--conf KEY=VALUE`` (e.g.
``spark.matchrec.chunkRows=65536``, ``spark.sql.shuffle.partitions=200``) and run on a
Spark Connect server with ``--remote sc://host:port`` (default: ``$SPARK_REMOTE``, as
PySpark reads it; ``--remote 'local[2]'`` starts a local Connect server).

Each subcommand is a ``_add_<name>`` function that declares its arguments and a
``_cmd_<name>`` function that runs it; register new ones in :data:`SUBCOMMANDS`.
"""

from __future__ import annotations

import argparse
import re
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from matchrec.errors import ArbitraryOrderWarning, MatchRecognizeError, SqlSyntaxError

from .tables import (
    WRITE_OPTIONS,
    OptionError,
    TableFileError,
    check_output,
    output_format,
    parse_watermarks,
    registered_tables,
    spark_errors,
    table_sources,
    write_table,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

RULE = "-" * 72


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``matchrec`` command with ``argv`` (default: ``sys.argv[1:]``)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits on --help and on usage errors
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            return args.handler(args)
    except MatchRecognizeError as exc:
        print(f"matchrec: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("matchrec: interrupted", file=sys.stderr)
        return 130


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """matchrec's own warnings as one ``matchrec: warning:`` line (the Python file and
    line a warning names are the command's, which says nothing to its user)."""
    if issubclass(category, ArbitraryOrderWarning):
        print(f"matchrec: warning: {message}", file=file or sys.stderr)
    else:
        _DEFAULT_SHOW(message, category, filename, lineno, file, line)


_DEFAULT_SHOW = warnings.showwarning


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with one subparser per entry of :data:`SUBCOMMANDS`."""
    parser = argparse.ArgumentParser(
        prog="matchrec",
        description="SQL:2016 row pattern recognition (MATCH_RECOGNIZE) for Apache Spark.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (add, handler, help_text) in SUBCOMMANDS.items():
        command = sub.add_parser(name, help=help_text, description=help_text)
        add(command)
        command.set_defaults(handler=handler)
    return parser


# ---------------------------------------------------------------------------- test


def _add_test(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help=".slt files or directories")
    parser.add_argument(
        "-k",
        dest="keyword",
        metavar="SUBSTRING",
        help="only records whose file:line or SQL contains SUBSTRING (case-insensitive)",
    )
    parser.add_argument("-x", "--exitfirst", action="store_true", help="stop at the first failure")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every record")
    parser.add_argument(
        "--engine",
        choices=("matchrec", "spark"),
        default="matchrec",
        help="run the SQL with matchrec.sql (default) or plain spark.sql",
    )


def _cmd_test(args: argparse.Namespace, out: TextIO | None = None) -> int:
    from matchrec.runtime.slt import collect_files, run_paths, spark_executor

    out = out or sys.stdout
    files = collect_files(args.paths)
    if not files:
        print(f"matchrec: no .slt files in {' '.join(args.paths)}", file=sys.stderr)
        return EXIT_USAGE

    def show(case) -> None:
        if case.failed:
            print(f"{RULE}\nFAILED {case.report()}", file=out, flush=True)
        elif args.verbose:
            print(f"{case.status.upper():7} {case.record.location}", file=out, flush=True)

    executor = spark_executor if args.engine == "spark" else None
    summary = run_paths(
        files, executor, keyword=args.keyword, exitfirst=args.exitfirst, on_result=show
    )
    if summary.failed:
        print(RULE, file=out)
        for case in summary.cases:
            if case.failed:
                print(f"FAILED {case.record.location}", file=out)
    if summary.skipped:
        print(f"{summary.skipped} skipped", file=out)
    if summary.setup:
        print(f"{summary.setup} setup statements ran", file=out)
    if summary.unparsed:
        count = len(summary.unparsed)
        print(f"{count} file{'s' if count > 1 else ''} not run: not sqllogictest", file=out)
    elif not summary.cases:
        which = f" matching -k {args.keyword!r}" if args.keyword else ""
        print(f"matchrec: no records{which} to run", file=sys.stderr)
    print(summary.line(), file=out, flush=True)
    for err in summary.unparsed:  # each file's own mistake, at its line
        print(f"matchrec: {err}", file=sys.stderr)
    if summary.unparsed or not summary.cases:
        return EXIT_USAGE
    return EXIT_FAILED if summary.failed else EXIT_OK


# ---------------------------------------------------------------------------- demo


def _add_demo(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--limit", type=int, default=50, help="rows to show (default 50)")


def _cmd_demo(args: argparse.Namespace) -> int:
    from matchrec.runtime.demo import run_demo

    run_demo(limit=args.limit)
    return EXIT_OK


# ---------------------------------------------------------------------------- run / explain

#: Spark settings when ``run`` starts the session: show stage progress on long jobs.
RUN_CONF = {"spark.ui.showConsoleProgress": "true"}


def _run_conf() -> dict[str, str]:
    """:data:`RUN_CONF` where a person watches stderr; none in a log or a CI capture,
    where the progress bar's carriage returns would run into the error message."""
    return RUN_CONF if sys.stderr.isatty() else {}


_TABLE_HELP = "load a table file as temporary view NAME (.parquet/.csv/.json/.jsonl or a directory)"
_SCHEMA_HELP = (
    "column types of table NAME as DDL, e.g. 'ts TIMESTAMP, price DOUBLE' (CSV: no inference)"
)


def _add_tables(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("query", metavar="QUERY.sql", help="file with the query, or - for stdin")
    parser.add_argument(
        "--table", action="append", default=[], metavar="NAME=PATH", help=_TABLE_HELP
    )
    parser.add_argument(
        "--schema", action="append", default=[], metavar="NAME=DDL", help=_SCHEMA_HELP
    )
    parser.add_argument(
        "--conf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a Spark setting, e.g. spark.matchrec.chunkRows=65536 (repeatable)",
    )
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="bind the query's :NAME marker to a SQL literal, e.g. --param limit=5, "
        "--param sym=\"'ACME'\", --param since=\"DATE'2024-01-01'\" (repeatable)",
    )
    parser.add_argument(
        "--remote",
        metavar="URL",
        help="run on a Spark Connect server, sc://host:port ('local[2]': a local one); "
        "default: $SPARK_REMOTE",
    )


def parse_confs(values: Sequence[str]) -> dict[str, str]:
    """``--conf KEY=VALUE`` options as a dict (a later KEY wins, as with spark-submit)."""
    settings: dict[str, str] = {}
    for text in values:
        key, sep, value = text.partition("=")
        key = key.strip()
        if not sep or not key or any(c.isspace() for c in key):
            raise OptionError(
                f"--conf takes KEY=VALUE, e.g. --conf spark.matchrec.chunkRows=65536; got {text!r}"
            )
        settings[key] = value.strip()
    return settings


_PARAM_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def parse_params(values: Sequence[str]) -> dict[str, str]:
    """``--param NAME=VALUE`` options as a dict of SQL literal texts (a later NAME wins)."""
    from matchrec.planner.statement import is_constant_literal

    params: dict[str, str] = {}
    for text in values:
        name, sep, value = text.partition("=")
        name, value = name.strip(), value.strip()
        if not sep or not _PARAM_NAME.fullmatch(name):
            raise OptionError(
                f"--param takes NAME=VALUE for a :NAME marker, e.g. --param limit=5; got {text!r}"
            )
        if not is_constant_literal(value):
            raise OptionError(
                f"--param {name}: {value!r} is not a SQL literal; quote a string, e.g. "
                f"--param {name}=\"'{value}'\", or write DATE'2024-01-01', 5, TRUE"
            )
        params[name] = value
    return params


def _bound(params: dict[str, str]) -> dict[str, object] | None:
    """The ``args`` of ``matchrec.sql`` for ``--param`` values (literal Columns)."""
    from pyspark.sql import functions as F

    return {name: F.expr(value) for name, value in params.items()} or None


@contextmanager
def _session(args: argparse.Namespace, base: dict[str, str]) -> Iterator[SparkSession]:
    """The session of a ``run`` or ``explain``, with its ``--conf`` settings for the block
    and the table function registered (a query may call it instead of the clause)."""
    from .session import get_spark, session_settings
    from .udtf import register

    settings = parse_confs(args.conf)
    spark = get_spark(conf={**base, **settings}, remote=args.remote)
    _check_conf_values(spark, settings)
    register(spark)
    with session_settings(spark, settings):
        yield spark


def _check_conf_values(spark: SparkSession, settings: dict[str, str]) -> None:
    """Raise an :class:`OptionError` for a ``--conf`` value the session refuses (a word
    where Spark wants a boolean or a number), which Spark tells with a Java stack trace."""
    from pyspark.errors import PySparkException

    from .batch import first_line

    for key, value in settings.items():
        if not spark.conf.isModifiable(key):
            continue
        old = spark.conf.get(key, None)
        try:
            spark.conf.set(key, value)
        except PySparkException as exc:
            raise OptionError(f"--conf {key}={value}: {first_line(exc)}") from None
        if old is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, old)


def _add_run(parser: argparse.ArgumentParser) -> None:
    _add_tables(parser)
    parser.add_argument(
        "--limit", type=int, metavar="N", help="rows to print (default 20) or to write with --out"
    )
    parser.add_argument("--out", metavar="PATH", help="write the result here instead of printing")
    parser.add_argument(
        "--format",
        choices=tuple(WRITE_OPTIONS),
        help="format of --out (default: from its extension)",
    )
    parser.add_argument("--overwrite", action="store_true", help="replace --out if it exists")
    stream = parser.add_argument_group(
        "streams",
        "with --stream, every --table folder is read as a stream of files (Structured "
        "Streaming); the result is appended to --out, and a later run with the same "
        "--checkpoint goes on with the files that arrived since",
    )
    stream.add_argument("--stream", action="store_true", help="read the tables as streams")
    stream.add_argument(
        "--watermark",
        action="append",
        default=[],
        metavar="TABLE.COLUMN=DELAY",
        help="event-time column of a stream and how late its rows may come, e.g. events.ts=1m",
    )
    stream.add_argument("--checkpoint", metavar="DIR", help="the stream's checkpoint folder")
    stream.add_argument(
        "--continuous",
        action="store_true",
        help="keep running and process new files as they come (default: process the files "
        "there now, then stop)",
    )


def _add_explain(parser: argparse.ArgumentParser) -> None:
    _add_tables(parser)
    parser.add_argument(
        "--dot", action="store_true", help="print only the automata, as Graphviz DOT"
    )


def read_query(path: str) -> str:
    """The query in file ``path`` (``-``: standard input), trailing semicolons removed."""
    if path == "-":
        text = sys.stdin.read()
    else:
        file = Path(path)
        if not file.is_file():
            what = "is a directory" if file.is_dir() else "does not exist"
            raise TableFileError(f"query file {path} {what}")
        text = file.read_text(encoding="utf-8")
    # leading blank lines stay: an error's line is the file's line
    query = text.rstrip().rstrip(";").rstrip()
    if not query.strip():
        raise TableFileError(
            "standard input is empty" if path == "-" else f"query file {path} is empty"
        )
    _refuse_statements_before(query, "standard input" if path == "-" else f"query file {path}")
    return query


#: a statement that sets what ``--conf`` sets
_SETTING = re.compile(r"\s*SET\b", re.IGNORECASE)


def _refuse_statements_before(query: str, source: str) -> None:
    """A file runs one statement: one before it (``SET k=v;`` then the query) is an
    error at the second statement, saying what to do instead (Spark would report it at
    the first, as a syntax error of SET), and comments alone are no query."""
    from matchrec.planner.statement import statement_starts

    starts = statement_starts(query)
    if not starts:
        raise TableFileError(f"{source} holds only comments, no query")
    if len(starts) < 2:
        return
    settings = all(_SETTING.match(query, s) for s in starts[:-1])
    raise SqlSyntaxError(
        f"the file holds {len(starts)} statements; matchrec run and explain run one",
        sql=query,
        pos=starts[1],
        hint="give settings as --conf KEY=VALUE instead of SET"
        if settings
        else "put each query in a file of its own",
    )


#: a parameter marker without a value, as matchrec's error names it
_UNBOUND = re.compile(r"\[UNBOUND_SQL_PARAMETER\] no value for the (?:parameter :(\w+)|positional)")


@contextmanager
def _command_line_hints() -> Iterator[None]:
    """An unbound parameter's hint in the command line's words (``--param``), not
    ``matchrec.sql``'s (``args=``)."""
    try:
        yield
    except MatchRecognizeError as err:
        unbound = _UNBOUND.match(err.message)
        if unbound is not None:
            name = unbound.group(1)
            err.hint = (
                f"give its value: --param {name}=VALUE, a SQL literal (5, \"'ACME'\", "
                "DATE'2024-01-01')"
                if name
                else "the command line binds :name markers (--param NAME=VALUE): name this one"
            )
        raise


def _check_syntax(query: str) -> None:
    """The query's clauses read, their syntax errors raised before Spark starts."""
    from matchrec.planner.statement import check_syntax

    check_syntax(query)


def _cmd_run(args: argparse.Namespace) -> int:
    import matchrec

    if args.limit is not None and args.limit < 0:
        raise OptionError(f"--limit must be 0 or more, got {args.limit}")
    if args.format and not args.out:
        raise OptionError("--format needs --out PATH")
    if args.stream or args.watermark or args.checkpoint or args.continuous:
        # a stream appends to --out run after run: a folder, parquet unless --format says
        query = read_query(args.query)
        _check_syntax(query)
        return _run_stream(args, query, table_sources(args.table, args.schema), args.format)
    fmt = output_format(args.out, args.format) if args.out else None
    if args.out:
        check_output(args.out, args.overwrite)
    query = read_query(args.query)
    sources = table_sources(args.table, args.schema)
    parse_confs(args.conf)  # a bad option or a mistyped clause costs no JVM
    _check_syntax(query)
    params = parse_params(args.param)
    with (
        _session(args, _run_conf()) as spark,
        registered_tables(spark, sources) as names,
        spark_errors(names),
    ):
        with _command_line_hints():
            result = matchrec.sql(spark, query, _bound(params))
        if args.out:
            if args.limit is not None:
                result = result.limit(args.limit)
            write_table(result, args.out, fmt, overwrite=args.overwrite)
            print(f"wrote the result to {args.out} ({fmt})")
        else:
            result.show(20 if args.limit is None else args.limit, truncate=False)
    return EXIT_OK


def _run_stream(args: argparse.Namespace, query: str, sources: list, fmt: str | None) -> int:
    """``run --stream``: the query as a streaming query from the table folders to --out."""
    import dataclasses

    import matchrec

    from .streaming import late_rows

    if not args.stream:
        raise OptionError("--watermark, --checkpoint and --continuous go with --stream")
    if not args.out or not args.checkpoint:
        raise OptionError("--stream needs --out DIR and --checkpoint DIR")
    if args.limit is not None:
        raise OptionError("--limit does not apply to --stream")
    watermarks = parse_watermarks(args.watermark)
    known = {s.name.lower() for s in sources}
    for table in watermarks:
        if table not in known:
            raise OptionError(f"--watermark names table {table!r}, which no --table option loads")
    sources = [
        dataclasses.replace(s, stream=True, watermark=watermarks.get(s.name.lower()))
        for s in sources
    ]
    parse_confs(args.conf)
    params = parse_params(args.param)
    with (
        _session(args, _run_conf()) as spark,
        registered_tables(spark, sources) as names,
        spark_errors(names),
    ):
        with _command_line_hints():
            result = matchrec.sql(spark, query, _bound(params))
        writer = (
            result.writeStream.format(fmt or "parquet")
            .option("path", args.out)
            .option("checkpointLocation", args.checkpoint)
        )
        if fmt == "csv":
            writer = writer.option("header", "true")
        running = writer.start()
        try:
            if args.continuous:
                running.awaitTermination()
            else:
                _drain(running)
        except KeyboardInterrupt:
            pass
        finally:
            running.stop()
    late = late_rows(running)
    print(
        f"appended the matches to {args.out} ({fmt or 'parquet'}); checkpoint {args.checkpoint}"
        + (f"; {late} late rows dropped (behind the watermark)" if late else "")
    )
    return EXIT_OK


def _drain(running) -> None:
    """Process the files there now, and the micro-batches without data that follow while
    the watermark moves (they fire the timers that settle matches), then return. (The
    availableNow trigger stops before those.)"""
    import time

    last = None
    while True:
        running.processAllAvailable()
        progress = running.lastProgress
        batch = progress["batchId"] if progress else None
        if batch == last and not running.status["isTriggerActive"]:
            return
        last = batch
        time.sleep(0.5)


def _cmd_explain(args: argparse.Namespace) -> int:
    import matchrec

    query = read_query(args.query)
    sources = table_sources(args.table, args.schema)
    parse_confs(args.conf)
    _check_syntax(query)
    params = parse_params(args.param)
    with (
        _session(args, {}) as spark,
        registered_tables(spark, sources) as names,
        spark_errors(names),
    ):
        with _command_line_hints():
            explanation = matchrec.explain(spark, query, _bound(params))
    if args.dot:
        if not explanation.dot:
            print("matchrec: no MATCH_RECOGNIZE in the query: no automaton", file=sys.stderr)
        print("\n".join(explanation.dot), end="")
    else:
        print(explanation.text, end="")
    return EXIT_OK


# ---------------------------------------------------------------------------- registry

Handler = Callable[[argparse.Namespace], int]

#: name -> (declare arguments, run, one-line help).
SUBCOMMANDS: dict[str, tuple[Callable[[argparse.ArgumentParser], None], Handler, str]] = {
    "demo": (_add_demo, _cmd_demo, "run a MATCH_RECOGNIZE query on the bundled sample data"),
    "test": (_add_test, _cmd_test, "run query suites (.slt files) and report failures"),
    "run": (_add_run, _cmd_run, "run a query over table files and print or write its result"),
    "explain": (
        _add_explain,
        _cmd_explain,
        "explain a query's MATCH_RECOGNIZE: clause, Spark plan, DEFINE split, automaton",
    ),
}


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
