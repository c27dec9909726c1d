"""A fresh session state for each query-suite file, as sqllogictest runners give each
script a fresh database.

The files of a run share one SparkSession (starting one per file would cost seconds
each); what a file leaves behind (its temporary and global temporary views, temporary
and permanent functions, the tables, views and databases it created, its session
variables, the settings its ``SET`` statements changed, the current catalog and
database) is undone after it, so that a file's verdicts do not
depend on which files ran before it: a query reading a view its own file never creates
fails, and a ``SET spark.sql.ansi.enabled`` ends with its file. What a file replaced or
dropped of what was there before the run is not brought back.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@dataclass(frozen=True)
class SessionState:
    """What a file may change in a session, as it was."""

    catalog: str
    database: str
    tables: frozenset[tuple[str, str, bool]]  # (namespace, name, temporary)
    functions: frozenset[str]
    conf: dict[str, str]
    databases: frozenset[str] = frozenset()
    #: whether the session has a variable (``DECLARE VARIABLE``); None: not known
    variables: bool | None = None


def session_state(spark: SparkSession) -> SessionState:
    """The state of ``spark`` now (a few catalog calls, no job)."""
    global_db = spark.conf.get("spark.sql.globalTempDatabase", "global_temp")
    listed = spark.sql("SHOW TABLES").collect()
    listed += spark.sql(f"SHOW TABLES IN `{global_db}`").collect()  # and the session's
    return SessionState(
        catalog=spark.catalog.currentCatalog(),
        database=spark.catalog.currentDatabase(),
        tables=frozenset((row[0], row[1], bool(row[2])) for row in listed),
        functions=frozenset(row[0] for row in spark.sql("SHOW USER FUNCTIONS").collect()),
        conf=dict(spark.conf.getAll),
        databases=frozenset(row[0] for row in spark.sql("SHOW DATABASES").collect()),
        variables=_or_none(_has_variables, spark),
    )


def _variables(spark: SparkSession):  # noqa: ANN202 - the JVM's TempVariableManager
    return spark._jsparkSession.sessionState().catalogManager().tempVariableManager()  # type: ignore[attr-defined]


def _has_variables(spark: SparkSession) -> bool:
    """Whether a session variable exists (Spark lists them nowhere else; Spark Connect
    has no such call: None, and a file's variables stay)."""
    return not _variables(spark).isEmpty()


def restore(spark: SparkSession, before: SessionState) -> None:
    """Undo what was done to ``spark`` since ``before``: drop the views, tables and
    temporary functions made since, set back the settings changed since, and return to
    the catalog and database. Never raises: what cannot be undone (a setting Spark does
    not let a session change, a table it refuses to drop) stays, with a warning."""
    _undo(spark.catalog.setCurrentCatalog, before.catalog, current=spark.catalog.currentCatalog())
    _undo(
        spark.catalog.setCurrentDatabase, before.database, current=spark.catalog.currentDatabase()
    )
    now = _or_none(session_state, spark)
    if now is None:
        return
    global_db = spark.conf.get("spark.sql.globalTempDatabase", "global_temp")
    for namespace, name, temporary in now.tables - before.tables:
        if temporary and namespace == global_db:
            _undo(spark.catalog.dropGlobalTempView, name)
        elif temporary:
            _undo(spark.catalog.dropTempView, name)
        else:
            where = f"{_quoted(namespace)}.{_quoted(name)}"
            if _or_none(spark.sql, f"DROP TABLE IF EXISTS {where}") is None:
                _undo(spark.sql, f"DROP VIEW IF EXISTS {where}")
    for name in now.functions - before.functions:
        permanent = "." in name  # listed qualified: spark_catalog.default.f
        _undo(spark.sql, f"DROP {'' if permanent else 'TEMPORARY '}FUNCTION IF EXISTS {name}")
    for name in now.databases - before.databases:
        _undo(spark.sql, f"DROP DATABASE IF EXISTS {_quoted(name)} CASCADE")
    if before.variables is False and now.variables:
        _or_none(lambda: _variables(spark).clear())
    for key in now.conf.keys() | before.conf.keys():
        if now.conf.get(key) == before.conf.get(key):
            continue
        if key in before.conf:
            _or_none(spark.conf.set, key, before.conf[key])  # a static setting stays
        else:
            _or_none(spark.conf.unset, key)


def _or_none(call, *args):  # noqa: ANN001, ANN202 - any catalog call
    try:
        return call(*args)
    except Exception:  # noqa: BLE001 - the caller says what stays
        return None


def _undo(call, value: str, current: str | None = None) -> None:  # noqa: ANN001
    if current == value:
        return
    try:
        call(value)
    except Exception as exc:  # noqa: BLE001 - the next file starts with it still there
        warnings.warn(f"matchrec test: could not undo a file's change ({exc})", stacklevel=3)


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"
