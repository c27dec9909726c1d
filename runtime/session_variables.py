"""A session variable (``DECLARE VARIABLE lim DOUBLE DEFAULT 10``) named in DEFINE or
MEASURES, where the planner knows only the input's columns. ``matchrec.sql`` and
``match_recognize`` give the planner :func:`variable_lookup`, which reads such a name
as Spark does, once per query (``(SELECT lim)``, a constant subquery); where a name is
still unresolved, :func:`explained` says what it is and how to read it. The table
function has no session while Spark analyses it and keeps its 'cannot be resolved'."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from pyspark.sql import SparkSession

from matchrec.errors import SemanticError

from .batch import analysed
from .session import quiet_analysis

_UNRESOLVED = re.compile(r"Column '([^']+)' cannot be resolved")


def _is_variable(spark: SparkSession, name: str) -> bool:
    """Whether ``name`` reads a session variable: with no FROM, nothing else resolves."""
    return reads_variable(spark, f"`{name.replace('`', '``')}`")


def reads_variable(spark: SparkSession, reference: str) -> bool:
    """Whether the SQL ``reference`` (``lim``, ``system.session.lim``) reads a session
    variable: with no FROM, nothing else resolves."""
    try:
        with quiet_analysis():
            analysed(spark.sql(f"SELECT {reference}"))
    except Exception:  # noqa: BLE001 - Spark's refusal: no variable of that name
        return False
    return True


def variable_lookup(spark: SparkSession) -> Callable[[str], bool]:
    """:func:`reads_variable` of ``spark``, each reference asked once."""
    return functools.cache(functools.partial(reads_variable, spark))


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
