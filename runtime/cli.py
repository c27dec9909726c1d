"""The ``matchrec`` command.

Usage::

    matchrec demo [--limit N]
    matchrec test PATH... [-k SUBSTRING] [-x] [-v] [--engine {matchrec,spark}]

``demo`` runs the main job: a V-shape query on the sample ticker data shipped in the
package, on local Spark, and prints its matches.

``test`` runs query suites (``.slt`` files, directories searched recursively), prints
each failing record with a diff, and ends with the line ``N passed, N failed``.
Exit status: 0 all passed, 1 some failed, 2 usage or setup error (bad option, no
``.slt`` file or no record to run, malformed file, no Java, ``matchrec.sql`` missing).

Each subcommand is a ``_add_<name>`` function that declares its arguments and a
``_cmd_<name>`` function that runs it; register new ones in :data:`SUBCOMMANDS`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

from matchrec.errors import MatchRecognizeError

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
        return args.handler(args)
    except MatchRecognizeError as exc:
        print(f"matchrec: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("matchrec: interrupted", file=sys.stderr)
        return 130


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
    if not summary.cases:
        which = f" matching -k {args.keyword!r}" if args.keyword else ""
        print(f"matchrec: no records{which} to run", file=sys.stderr)
    print(summary.line(), file=out, flush=True)
    if not summary.cases:
        return EXIT_USAGE
    return EXIT_FAILED if summary.failed else EXIT_OK


# ---------------------------------------------------------------------------- demo


def _add_demo(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--limit", type=int, default=50, help="rows to show (default 50)")


def _cmd_demo(args: argparse.Namespace) -> int:
    from matchrec.runtime.demo import run_demo

    run_demo(limit=args.limit)
    return EXIT_OK


# ---------------------------------------------------------------------------- registry

Handler = Callable[[argparse.Namespace], int]

#: name -> (declare arguments, run, one-line help). Later: "run" (execute a query and
#: print its result) and "explain" (show the plan of a MATCH_RECOGNIZE query).
SUBCOMMANDS: dict[str, tuple[Callable[[argparse.ArgumentParser], None], Handler, str]] = {
    "demo": (_add_demo, _cmd_demo, "run a MATCH_RECOGNIZE query on the bundled sample data"),
    "test": (_add_test, _cmd_test, "run query suites (.slt files) and report failures"),
}


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
