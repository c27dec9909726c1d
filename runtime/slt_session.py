"""A fresh session state for each query-suite file, as sqllogictest runners give each
script a fresh database.

The files of a run share one SparkSession (starting one per file would cost seconds
each); what a file leaves behind (its temporary views and functions, the tables it
created, the settings its ``SET`` statements changed, the current database) is undone
after it, so that a file's verdicts do not depend on which files ran before it: a query
reading a view its own file never creates fails, and a ``SET spark.sql.ansi.enabled``
ends with its file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@dataclass(frozen=True)
class SessionState:
    """What a file may change in a session, as it was."""

    database: str
    tables: frozenset[tuple[str, str, bool]]  # (namespace, name, temporary)
    functions: frozenset[str]
    conf: dict[str, str]


def session_state(spark: SparkSession) -> SessionState:
    """The state of ``spark`` now (a few catalog calls, no job)."""
    return SessionState(
        database=spark.catalog.currentDatabase(),
        tables=frozenset(
            (row[0], row[1], bool(row[2])) for row in spark.sql("SHOW TABLES").collect()
        ),
        functions=frozenset(row[0] for row in spark.sql("SHOW USER FUNCTIONS").collect()),
        conf=dict(spark.conf.getAll),
    )


def restore(spark: SparkSession, before: SessionState) -> None:
    """Undo what was done to ``spark`` since ``before``: drop the views, tables and
    temporary functions made since, set back the settings changed since (a setting
    Spark does not let a session change stays), and return to the database."""
    if spark.catalog.currentDatabase() != before.database:
        spark.catalog.setCurrentDatabase(before.database)
    for namespace, name, temporary in session_state(spark).tables - before.tables:
        if temporary:
            spark.catalog.dropTempView(name)
        else:
            spark.sql(f"DROP TABLE IF EXISTS {_quoted(namespace)}.{_quoted(name)}")
    for name in session_state(spark).functions - before.functions:
        try:
            spark.sql(f"DROP TEMPORARY FUNCTION IF EXISTS {name}")
        except Exception:  # noqa: BLE001 - a permanent function (in a catalog): it stays
            continue
    now = dict(spark.conf.getAll)
    for key in now.keys() | before.conf.keys():
        if now.get(key) == before.conf.get(key):
            continue
        try:
            if key in before.conf:
                spark.conf.set(key, before.conf[key])
            else:
                spark.conf.unset(key)
        except Exception:  # noqa: BLE001 - a static setting: the session keeps it
            continue


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"
