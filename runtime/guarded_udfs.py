"""Columns of MEASURES' Python UDF calls, computed on the rows that have measures only.

The planner takes each call of a row-at-a-time Python UDF out of a measure that is NULL
on some rows (``planner.guarded_calls``: a row in no match, a late row): Spark would
call the UDF there with the NULLs those rows read, whatever the CASE around it says.
:func:`with_guarded_calls` adds each call's column as a UDF of Spark's that calls the
session's function on the rows the ``guard`` holds on and gives NULL elsewhere: the
same declared type, Arrow or not as the session's UDF is, so Spark converts its
results as it converts the session UDF's. A UDF whose function is out of reach (a
Spark Connect session) is computed by Spark as written, on every row, as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from matchrec.planner.guarded_calls import GuardedCall
from matchrec.planner.python_udfs import ARROW_BATCHED_UDF
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from .python_udfs import session_python_function


def with_guarded_calls(
    df: DataFrame, calls: list[GuardedCall], readable: Callable[[str], str], guard: str
) -> DataFrame:
    """``df`` with a column for each of ``calls`` (innermost first: an argument may read
    an earlier one's column), computed where the Spark SQL ``guard`` is true; each
    argument's text goes through ``readable`` (the atom columns' names in ``df``)."""
    if not calls:
        return df
    lookup = session_python_function(df.sparkSession)
    for call in calls:
        arguments = [readable(a) for a in call.arguments]
        found = lookup(call.function)
        if found is None or found.fn is None:
            text = f"CASE WHEN {guard} THEN {call.function}({', '.join(arguments)}) END"
            df = df.withColumn(call.column, F.expr(text))
            continue
        udf = F.udf(
            _called_where(found.fn),
            found.return_type,
            useArrow=found.eval_type == ARROW_BATCHED_UDF,
        )
        if not found.deterministic:
            udf = udf.asNondeterministic()
        column = udf(F.expr(f"coalesce({guard}, false)"), *[F.expr(a) for a in arguments])
        df = df.withColumn(call.column, column)
    return df


def _called_where(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` of the arguments after the first, where the first is true; else None."""

    def called_where(guarded: bool, *arguments: Any) -> Any:
        return fn(*arguments) if guarded else None

    return called_where
