"""Expressions Spark takes as non-deterministic, refused before the query runs.

The planner refuses ``rand()``, ``uuid()`` and the like where they are written; a UDF
declared non-deterministic (``udf(...).asNondeterministic()``, ``CREATE FUNCTION ... NOT
DETERMINISTIC``) or a SQL UDF whose body calls ``rand()`` looks like any other call
there. Spark's analysis knows: :func:`check_deterministic` reads it for each expression
matchrec hands Spark (DEFINE's row-local parts, the measures it computes), so that such
a call is a positioned error, not a match or a measure that changes when a task is
retried or a stream restarts. A Spark Connect client cannot read the analysed plan: the
check is skipped there.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from pyspark.sql import DataFrame

from matchrec.errors import UnsupportedError

#: Spark's expression classes of a user's function, and how to read the name it has
_NAMED_CALLS = {
    "PythonUDF": lambda e: e.name(),
    "ScalaUDF": lambda e: e.udfName().getOrElse(lambda: "udf"),
    "SQLScalarFunction": lambda e: e.function().name().funcName(),
}

_HINT = (
    "matchrec may evaluate a DEFINE condition several times or not at all for a row, and "
    "compute a measure again for the same match (a retried task, a stream's restart); "
    "compute the value in a subquery that feeds MATCH_RECOGNIZE, or in the query around it"
)


def check_deterministic(
    selected: DataFrame, columns: Mapping[str, str], sql: str, origins: Mapping[str, int]
) -> None:
    """Raise an :class:`UnsupportedError` (as for ``rand()``) at the user's expression
    if Spark takes one of the columns of projection ``selected`` as non-deterministic;
    ``columns``: the name a column has in ``selected`` -> the name ``origins`` knows it
    by."""
    try:
        projection = selected._jdf.queryExecution().analyzed().projectList()
    except Exception:  # noqa: BLE001 - Spark Connect, or a plan that is no projection
        return
    for i in range(projection.size()):
        column = projection.apply(i)
        name = columns.get(column.name())
        if name is None or column.deterministic():
            continue
        call = _volatile_call(column)
        what = f"{call}() is" if call else "this expression is"
        raise UnsupportedError(
            f"{what} not deterministic (so Spark's analysis says) and cannot be used in "
            "DEFINE or MEASURES",
            sql=sql,
            pos=origins.get(name),
            hint=_HINT,
        )


def _volatile_call(expression) -> str | None:  # noqa: ANN001 - a JVM expression
    """The name of the outermost non-deterministic call in ``expression``: a UDF's name
    as the user registered it, else Spark's name of the function (``rand``)."""
    for node in _walk(expression):
        if node.deterministic():
            continue
        read = _NAMED_CALLS.get(node.getClass().getSimpleName())
        if read is not None:
            try:
                return str(read(node))
            except Exception:  # noqa: BLE001 - a Spark version naming it otherwise
                return None
        if all(child.deterministic() for child in _children(node)):
            return str(node.prettyName())
    return None


def _children(expression) -> list:  # noqa: ANN001 - a JVM expression
    kids = expression.children()
    return [kids.apply(i) for i in range(kids.size())]


def _walk(expression) -> Iterator:  # noqa: ANN001 - a JVM expression
    yield expression
    for child in _children(expression):
        yield from _walk(child)
