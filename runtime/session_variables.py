"""A session variable (``DECLARE VARIABLE lim DOUBLE DEFAULT 10``) named in DEFINE or
MEASURES, where the planner knows only the input's columns: its 'cannot be resolved'
says what the name is and how to read it, ``(SELECT lim)``, a constant subquery that
every door computes once. The name is asked of the session, so that only a variable's
error changes."""

from __future__ import annotations

import re

from pyspark.sql import SparkSession

from matchrec.errors import SemanticError

from .batch import analysed
from .session import quiet_analysis

_UNRESOLVED = re.compile(r"Column '([^']+)' cannot be resolved")


def _is_variable(spark: SparkSession, name: str) -> bool:
    """Whether ``name`` reads a session variable: with no FROM, nothing else resolves."""
    try:
        with quiet_analysis():
            analysed(spark.sql(f"SELECT `{name.replace('`', '``')}`"))
    except Exception:  # noqa: BLE001 - Spark's refusal: no variable of that name
        return False
    return True


def explained(spark: SparkSession, err: SemanticError) -> SemanticError:
    """``err`` with the way to read a session variable, if it names one; else ``err``."""
    unknown = _UNRESOLVED.fullmatch(err.message)
    if unknown is None or not _is_variable(spark, unknown.group(1)):
        return err
    name = unknown.group(1)
    return SemanticError(
        f"{name} is a session variable, which MATCH_RECOGNIZE does not read by its name: "
        "a name in DEFINE and MEASURES is a column of the input",
        sql=err.sql,
        pos=err.pos,
        hint=f"read it with a scalar subquery, (SELECT {name}), or add it to the input "
        f"as a column: SELECT *, {name} AS {name} FROM ...",
    )
