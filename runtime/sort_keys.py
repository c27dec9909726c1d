"""PARTITION BY and ORDER BY columns of a type Spark cannot sort.

matchrec sorts the input by its keys (the batch door) or numbers its rows over them (the
table function); a MAP or VARIANT key would fail there with Spark's analysis of matchrec's
own sort. Both doors check the input's types instead and report the user's key, before
any job and without asking Spark.
"""

from __future__ import annotations

from matchrec.planner.plan import MatchPlan
from pyspark.sql.types import (
    ArrayType,
    CalendarIntervalType,
    DataType,
    MapType,
    StructField,
    StructType,
    VariantType,
)

from matchrec.errors import SemanticError


def sortable(dtype: DataType) -> bool:
    """Whether Spark can sort by (and so partition a window by) a value of ``dtype``."""
    if isinstance(dtype, ArrayType):
        return sortable(dtype.elementType)
    if isinstance(dtype, StructType):
        return all(sortable(f.dataType) for f in dtype.fields)
    return not isinstance(dtype, (MapType, VariantType, CalendarIntervalType))


def check_sortable(plan: MatchPlan, fields: dict[str, StructField]) -> None:
    """Raise a positioned error for the first PARTITION BY or ORDER BY column of
    ``fields`` (the input's, by name) that Spark cannot sort."""
    clause = plan.clause
    for where, column, pos in plan.written_keys:
        dtype = fields[column].dataType
        if not sortable(dtype):
            raise SemanticError(
                f"{where} column {column!r} is {dtype.simpleString().upper()}, which Spark "
                "cannot compare or sort",
                sql=clause.sql,
                pos=pos,
                hint="partition or order by a key computed from it in a subquery "
                "(e.g. to_json(m) or one of its values)",
            )
