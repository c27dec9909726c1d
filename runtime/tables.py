"""Table files for the ``matchrec`` command: ``--table NAME=PATH`` in, ``--out PATH`` out.

The format comes from the file name: ``.parquet``, ``.csv``, ``.json`` or ``.jsonl``
(optionally compressed, e.g. ``.csv.gz``), or a directory of such files (Spark's own
output directories included). CSV files have a header line; their column types are
inferred unless ``--schema NAME='ddl'`` gives them. Each table becomes a temporary view
named NAME for the query.

Everything a user can get wrong here raises an :class:`InputError` subclass whose
message fits on one line; ``matchrec``'s ``main`` prints it and exits with status 2.
Options are checked before Spark starts where that is possible, so a typo costs no JVM.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from matchrec.errors import MatchRecognizeError

from .session import quiet_analysis

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

#: file extension -> Spark data source
FORMATS: dict[str, str] = {
    ".parquet": "parquet",
    ".csv": "csv",
    ".json": "json",
    ".jsonl": "json",
    ".ndjson": "json",
}

#: compression suffixes Spark reads transparently for CSV and JSON (e.g. ``t.csv.gz``)
COMPRESSIONS = (".gz", ".bz2", ".deflate", ".lz4", ".snappy", ".zst")

#: reader options per format (before ``--schema``); JSON arrays get ``multiLine`` too
READ_OPTIONS: dict[str, dict[str, str]] = {
    "csv": {"header": "true", "inferSchema": "true"},
    "json": {},
    "parquet": {},
}

#: writer options per format
WRITE_OPTIONS: dict[str, dict[str, str]] = {"csv": {"header": "true"}, "json": {}, "parquet": {}}

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PARTITION_DIR = re.compile(r"[^=]+=.*")  # key=value directories of partitioned output


class InputError(MatchRecognizeError):
    """A command-line input that cannot be used (the message says which and why)."""

    kind = "input error"


class OptionError(InputError):
    """A malformed ``--table``, ``--schema``, ``--out`` or ``--format`` option."""

    kind = "usage error"


class TableFileError(InputError):
    """A table or query file that is missing or whose format is unknown or unreadable."""

    kind = "file error"


class SchemaError(InputError):
    """A ``--schema`` DDL string that Spark cannot parse."""

    kind = "schema error"


class UnknownTableError(InputError):
    """The query reads a table that is neither loaded with ``--table`` nor in Spark."""

    kind = "unknown table"


class SparkQueryError(InputError):
    """Spark rejected the query around the MATCH_RECOGNIZE clauses (analysis error)."""

    kind = "spark error"


class WorkerError(MatchRecognizeError):
    """A Spark job failed with a matchrec error raised in a Python worker (say, a DEFINE
    that compares a string with a number); shown as the worker rendered it, caret and
    all, without the Python and JVM traceback around it."""

    def render(self) -> str:
        return self.message


@dataclass(frozen=True)
class TableSource:
    """One ``--table NAME=PATH``: how to read it."""

    name: str
    path: str
    format: str
    schema: str | None = None  # DDL from --schema
    options: dict[str, str] = field(default_factory=dict)
    stream: bool = False  # read as a stream (--stream): files arriving in the folder
    watermark: tuple[str, str] | None = None  # (event-time column, delay) from --watermark


# ---------------------------------------------------------------------------- options


def parse_assignment(text: str, option: str, example: str) -> tuple[str, str]:
    """``NAME=VALUE`` of ``option`` as (NAME, VALUE); NAME must be a plain identifier
    (it becomes a temporary view name)."""
    name, sep, value = text.partition("=")
    name, value = name.strip(), value.strip()
    if not sep or not value:
        raise OptionError(f"{option} takes NAME=VALUE, e.g. {option} {example}; got {text!r}")
    if not _NAME.fullmatch(name):
        raise OptionError(
            f"{option} {text!r}: the table name {name!r} must be letters, digits and _ "
            "(not starting with a digit)"
        )
    return name, value


def table_sources(tables: Sequence[str], schemas: Sequence[str] = ()) -> list[TableSource]:
    """The tables named by ``--table`` and ``--schema`` options, checked: files exist,
    formats are known, every schema belongs to a table, no name is given twice."""
    ddl: dict[str, str] = {}
    for text in schemas:
        name, value = parse_assignment(text, "--schema", "t='id INT, ts TIMESTAMP'")
        if name.lower() in (n.lower() for n in ddl):
            raise OptionError(f"--schema names table {name!r} twice")
        ddl[name] = value
    sources: list[TableSource] = []
    for text in tables:
        name, path = parse_assignment(text, "--table", "ticker=data/ticker.csv")
        if any(s.name.lower() == name.lower() for s in sources):
            raise OptionError(f"--table names table {name!r} twice")
        fmt, options = detect_format(path, f"--table {text}")
        schema = next((v for k, v in ddl.items() if k.lower() == name.lower()), None)
        sources.append(TableSource(name, _absolute(path), fmt, schema, options))
    loaded = {s.name.lower() for s in sources}
    for name in ddl:
        if name.lower() not in loaded:
            raise OptionError(f"--schema names table {name!r}, which no --table option loads")
    return sources


def _absolute(path: str) -> str:
    """A local file's path made absolute: a Spark Connect server reads it from its own
    working directory, not the command's (a URI, ``s3://...``, is left as it is)."""
    if "://" in path or not os.path.exists(path):
        return path
    return os.path.abspath(path)


# ---------------------------------------------------------------------------- formats


def format_of_name(name: str) -> str | None:
    """The Spark format of a file name by its extension, compression suffix ignored."""
    lower = name.lower()
    for suffix in COMPRESSIONS:
        if lower.endswith(suffix):
            lower = lower[: -len(suffix)]
            break
    return next((fmt for ext, fmt in FORMATS.items() if lower.endswith(ext)), None)


def _known_extensions() -> str:
    return ", ".join(FORMATS)


def detect_format(path: str, where: str) -> tuple[str, dict[str, str]]:
    """Spark format and extra reader options of the table at ``path`` (a file or a
    directory of files of one format). URLs (``s3a://...``) are judged by name only."""
    if "://" in path:
        fmt = format_of_name(path.rstrip("/"))
        if fmt is None:
            raise TableFileError(
                f"{where}: cannot tell the format of {path} (known: {_known_extensions()})"
            )
        return fmt, {}
    target = Path(path)
    if not target.exists():
        raise TableFileError(f"{where}: no such file or directory: {path}")
    if target.is_file():
        fmt = format_of_name(target.name)
        if fmt is None:
            raise TableFileError(
                f"{where}: unknown file extension {''.join(target.suffixes) or '(none)'} "
                f"(known: {_known_extensions()})"
            )
        return fmt, _sniff_options(fmt, [target])
    return _directory_format(target, where)


def _directory_format(folder: Path, where: str) -> tuple[str, dict[str, str]]:
    files = [
        f
        for f in sorted(folder.rglob("*"))
        if f.is_file() and not any(p.startswith(("_", ".")) for p in f.relative_to(folder).parts)
    ]
    if not files:
        raise TableFileError(f"{where}: directory {folder} holds no data files")
    by_format: dict[str, list[Path]] = {}
    for f in files:
        fmt = format_of_name(f.name)
        if fmt is None:
            raise TableFileError(
                f"{where}: {f} has an unknown file extension (known: {_known_extensions()})"
            )
        by_format.setdefault(fmt, []).append(f)
    if len(by_format) > 1:
        raise TableFileError(
            f"{where}: directory {folder} mixes formats ({', '.join(sorted(by_format))})"
        )
    ((fmt, members),) = by_format.items()
    options = _sniff_options(fmt, members)
    nested = [f.relative_to(folder).parts[:-1] for f in members]
    if any(not _PARTITION_DIR.fullmatch(part) for parts in nested for part in parts):
        options["recursiveFileLookup"] = "true"  # plain subdirectories, not key=value ones
    return fmt, options


def _sniff_options(fmt: str, files: Sequence[Path]) -> dict[str, str]:
    """``multiLine`` for JSON files that hold one document (``[...]`` or a pretty-printed
    object) rather than one object per line."""
    if fmt != "json":
        return {}
    for f in files:
        if f.suffix.lower() in COMPRESSIONS:
            continue
        with f.open("rb") as handle:
            head = handle.read(4096).lstrip()
        first_line = head.split(b"\n", 1)[0].strip()
        if head.startswith(b"[") or (head.startswith(b"{") and not first_line.endswith(b"}")):
            return {"multiLine": "true"}
    return {}


# ---------------------------------------------------------------------------- Spark


def read_table(spark: SparkSession, source: TableSource) -> DataFrame:
    """The DataFrame of ``source`` (CSV and JSON schema inference reads the data once)."""
    from pyspark.errors import AnalysisException, ParseException, PySparkException

    options = {**READ_OPTIONS[source.format], **source.options}
    reader = spark.read.format(source.format)
    if source.schema is not None:
        options.pop("inferSchema", None)
        try:
            with quiet_analysis():
                reader = reader.schema(source.schema)
        except (ParseException, AnalysisException) as exc:
            raise SchemaError(
                f"--schema {source.name}={source.schema!r} is not a valid schema: "
                f"{spark_message(exc)}; write it like a CREATE TABLE column list, e.g. "
                "'symbol STRING, ts TIMESTAMP, price DOUBLE'"
            ) from None
    try:
        table = reader.options(**options).load(source.path)
        if not source.stream:
            return table
        # a stream's files are read with the schema of those there now (or --schema)
        stream = spark.readStream.format(source.format).schema(table.schema)
        stream = stream.options(**options).load(source.path)
    except PySparkException as exc:  # e.g. PATH_NOT_FOUND, a corrupt Parquet footer
        raise TableFileError(
            f"--table {source.name}={source.path}: Spark cannot read it as {source.format}: "
            f"{spark_message(exc)}"
        ) from None
    if source.watermark is None:
        return stream
    column, delay = source.watermark
    if column not in stream.columns:
        raise OptionError(
            f"--watermark {source.name}.{column}: table {source.name} has no column "
            f"{column!r} (columns: {', '.join(stream.columns)})"
        )
    try:
        return stream.withWatermark(column, delay)
    except PySparkException as exc:
        raise OptionError(
            f"--watermark {source.name}.{column}={delay}: {spark_message(exc)}"
        ) from None


#: ``--watermark`` delay units: 30s, 5m, 2h, 1d (or Spark's own "10 minutes")
_DELAY_UNITS = {"ms": "milliseconds", "s": "seconds", "m": "minutes", "h": "hours", "d": "days"}


def parse_watermarks(values: Sequence[str]) -> dict[str, tuple[str, str]]:
    """``--watermark TABLE.COLUMN=DELAY`` options as table -> (column, Spark delay)."""
    found: dict[str, tuple[str, str]] = {}
    for text in values:
        target, sep, delay = text.partition("=")
        table, dot, column = target.strip().partition(".")
        delay = delay.strip()
        if not sep or not dot or not column or not delay:
            raise OptionError(
                f"--watermark takes TABLE.COLUMN=DELAY, e.g. --watermark events.ts=1m; got {text!r}"
            )
        match = re.fullmatch(r"(\d+)\s*(ms|s|m|h|d)", delay)
        if match:
            delay = f"{match.group(1)} {_DELAY_UNITS[match.group(2)]}"
        found[table.lower()] = (column, delay)
    return found


@contextmanager
def registered_tables(spark: SparkSession, sources: Sequence[TableSource]) -> Iterator[list[str]]:
    """Register each source as a temporary view for the ``with`` block; the views are
    dropped afterwards (the CLI may run inside a longer-lived session, e.g. in tests)."""
    from pyspark.errors import PySparkException

    names: list[str] = []
    try:
        for source in sources:
            table = read_table(spark, source)
            try:  # a Connect session reads the files only here
                table.createOrReplaceTempView(source.name)
            except PySparkException as exc:
                raise TableFileError(
                    f"--table {source.name}={source.path}: Spark cannot read it as "
                    f"{source.format}: {spark_message(exc)}"
                ) from None
            names.append(source.name)
        yield names
    finally:
        for name in names:
            spark.catalog.dropTempView(name)


@contextmanager
def spark_errors(loaded: Sequence[str]) -> Iterator[None]:
    """Turn Spark's analysis errors into one-line :class:`InputError` messages (an unknown
    table names the ``--table`` option to add; others keep Spark's first line), and a
    job that failed on a matchrec error in a worker into a :class:`WorkerError`."""
    from pyspark.errors import AnalysisException, PySparkException

    try:
        with quiet_analysis():
            yield
    except AnalysisException as exc:
        condition = (exc.getCondition() or "").split(".")[0]
        if condition == "TABLE_OR_VIEW_NOT_FOUND":
            name = (exc.getMessageParameters() or {}).get("relationName", "?").replace("`", "")
            have = f" (loaded: {', '.join(loaded)})" if loaded else ""
            raise UnknownTableError(
                f"the query reads table {name!r}, which is not loaded: add "
                f"--table {name.split('.')[-1]}=PATH{have}"
            ) from None
        if isinstance(exc, MatchRecognizeError):
            raise  # already told at the query's text (matchrec.sql's errors around a clause)
        raise SparkQueryError(spark_message(exc)) from None
    except PySparkException as exc:
        if isinstance(exc, MatchRecognizeError):
            raise  # a worker's matchrec error, raised as itself (worker_errors)
        carried = worker_error_text(str(exc))
        if carried is None:
            raise SparkQueryError(spark_message(exc)) from None
        raise WorkerError(carried) from None


_WORKER_ERROR = re.compile(r"^matchrec\.errors\.\w+: ", re.MULTILINE)


def worker_error_text(message: str) -> str | None:
    """The matchrec error at the end of a Python worker's traceback quoted in a Spark
    error ``message`` (``runtime error: ... (line 5, column 31)`` and its caret lines)."""
    found = list(_WORKER_ERROR.finditer(message))
    return message[found[-1].end() :].strip() if found else None


def spark_message(exc: BaseException) -> str:
    """The first line of a Spark error, without its SQLSTATE."""
    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
    first = lines[0] if lines else type(exc).__name__
    return re.sub(r"\s*SQLSTATE: \w+", "", first).strip()


# ---------------------------------------------------------------------------- output


def output_format(out: str, fmt: str | None) -> str:
    """The format to write ``--out`` in: ``--format`` if given, else from its extension."""
    if fmt is not None:
        return fmt
    detected = format_of_name(out.rstrip("/"))
    if detected is None:
        raise OptionError(
            f"cannot tell the output format from --out {out}: add --format "
            f"{'|'.join(WRITE_OPTIONS)} or use an extension ({_known_extensions()})"
        )
    return detected


def check_output(out: str, overwrite: bool) -> None:
    """Refuse to write over an existing path unless ``--overwrite`` says so."""
    if "://" not in out and Path(out).exists() and not overwrite:
        raise OptionError(f"--out {out} already exists: remove it or add --overwrite")


def write_table(df: DataFrame, out: str, fmt: str, overwrite: bool = False) -> None:
    """Write ``df`` to ``out`` as Spark does: a directory of part files in ``fmt``."""
    writer = df.write.format(fmt).options(**WRITE_OPTIONS[fmt])
    # "error", not its alias "errorifexists", which Spark Connect's client rejects
    writer.mode("overwrite" if overwrite else "error").save(out)
