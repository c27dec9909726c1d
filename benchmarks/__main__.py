"""Command line: ``python -m benchmarks run|gen [options]`` (see ``--help``)."""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from . import runner
from .datagen import DEFAULT_SEED
from .workloads import WORKLOADS, select


def _parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--rows",
        type=int,
        default=10_000_000,
        help="rows of the main dataset (default: %(default)s)",
    )
    common.add_argument(
        "--symbols",
        type=int,
        default=1000,
        help="symbols of the main dataset (default: %(default)s)",
    )
    common.add_argument(
        "--workloads",
        default=None,
        help="comma-separated subset of: " + ", ".join(w.name for w in WORKLOADS),
    )
    common.add_argument(
        "--data-dir",
        type=Path,
        default=Path("benchmarks/data"),
        help="where generated Parquet files are cached (default: %(default)s)",
    )
    common.add_argument(
        "--seed", type=int, default=DEFAULT_SEED, help="generator seed (default: %(default)s)"
    )
    common.add_argument(
        "--flink", action="store_true", help="also run W1-FLINK with PyFlink, if importable"
    )
    common.add_argument(
        "--flink-python",
        default=None,
        help="Python interpreter with PyFlink installed (e.g. a venv's), default: this one",
    )

    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="matchrec benchmarks on Spark (local[2] or --master)",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("gen", parents=[common], help="only generate (or find) the data")
    run = commands.add_parser("run", parents=[common], help="generate if needed, run, report")
    run.add_argument("--repeat", type=int, default=3, help="timed runs per job (median)")
    run.add_argument(
        "--warmup", type=int, default=1, help="untimed runs per job before the timed ones"
    )
    run.add_argument(
        "--budget",
        type=float,
        default=0.0,
        help="seconds per job after which no further run starts (0: none); a job whose "
        "warm-up alone exceeds it keeps that run as its one timed run",
    )
    run.add_argument("--out", type=Path, default=None, help="also write the Markdown here")
    run.add_argument(
        "--driver-memory",
        default="auto",
        help="spark.driver.memory (auto: 1g up to 1M rows, 2g up to 4M, else 4g)",
    )
    run.add_argument(
        "--no-isolate",
        dest="isolate",
        action="store_false",
        help="reuse one SparkContext (faster; py MB then carries over between jobs)",
    )
    run.add_argument(
        "--master",
        default=None,
        help="Spark master URL, e.g. spark://host:7077 (default: local[2]); on a cluster "
        "whose nodes are other machines also pass --conf spark.driver.host=<this host>",
    )
    run.add_argument(
        "--conf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="extra Spark setting (repeatable), e.g. spark.executor.memory=2g",
    )
    run.add_argument(
        "--check-max-rows",
        type=int,
        default=runner.DEFAULT_CHECK_MAX_ROWS,
        help="check counts against the pure-Python reference up to this many rows",
    )
    return parser


def _setting(item: str) -> tuple[str, str]:
    key, sep, value = item.partition("=")
    if not sep or not key.strip():
        raise ValueError(f"--conf takes KEY=VALUE, got {item!r}")
    return key.strip(), value


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        workloads = select(args.workloads, args.flink)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    config = runner.RunConfig(
        rows=args.rows,
        symbols=args.symbols,
        workloads=workloads,
        data_dir=args.data_dir,
        seed=args.seed,
        flink=args.flink,
        flink_python=args.flink_python,
        command="python -m benchmarks " + shlex.join(sys.argv[1:] if argv is None else argv),
    )
    if args.command == "gen":
        jobs = runner.plan_jobs(workloads)
        paths = runner.generate(config, [j.role for j in jobs])
        if args.flink and "main" in paths:
            from . import flink

            print(f"flink csv: {flink.ensure_csv(paths['main'])}")
        return 0

    if args.repeat < 1 or args.warmup < 0:
        print("error: --repeat must be >= 1 and --warmup >= 0", file=sys.stderr)
        return 2
    config.repeat = args.repeat
    config.warmup = args.warmup
    config.budget = args.budget
    config.driver_memory = args.driver_memory
    config.isolate = args.isolate
    config.check_max_rows = args.check_max_rows
    config.master = args.master
    try:
        config.conf = dict(_setting(item) for item in args.conf)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    report = runner.run(config)
    text = report.markdown()
    print()
    print(text)
    if args.out is not None:
        args.out.write_text(text)
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
