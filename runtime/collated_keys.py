"""PARTITION BY keys of a collated string type (Spark 4's ``STRING COLLATE UTF8_LCASE``).

Spark groups, shuffles and sorts such a key by its collation: ``'x'`` and ``'X'`` are one
partition. The matcher finds partition boundaries by comparing the Arrow values, which
are plain strings: it would cut that partition at each change of case (a match cut
short, or the table function's order check failing). So for each collated key Spark
computes a stand-in, the key's value at the partition's first row (``first_value`` over
the same window as the sort: no extra shuffle or sort), equal within a partition and
different between partitions; the matcher compares stand-ins, the output keeps the
rows' own values.
"""

from __future__ import annotations

from matchrec.planner.plan import MatchPlan, quote, window_spec
from pyspark.sql.types import ArrayType, DataType, MapType, StringType, StructType

from matchrec.errors import UnsupportedError

#: the name of the stand-in column of the i-th partition key
STAND_IN = "__mr_key{}"


def is_collated(t: object) -> bool:
    """Whether ``t`` is a string type whose equality is not byte equality."""
    return isinstance(t, StringType) and (t.collation or "UTF8_BINARY") != "UTF8_BINARY"


def collated_stand_ins(
    schema: StructType, keys: list[str], order_by: list[tuple[str, bool, bool]]
) -> dict[str, tuple[str, str]]:
    """Key -> (stand-in column name, its Spark SQL) for each collated key of ``keys``."""
    types = {f.name: f.dataType for f in schema.fields}
    if order_by:
        window = window_spec(keys, order_by)
    else:
        window = "PARTITION BY " + ", ".join(quote(k) for k in keys)
    return {
        k: (STAND_IN.format(i), f"first_value({quote(k)}) OVER ({window})")
        for i, k in enumerate(keys)
        if is_collated(types.get(k))
    }


def collated_anywhere(t: DataType) -> bool:
    """Whether ``t`` holds a collated string at any depth (a struct's field, an element)."""
    if isinstance(t, ArrayType):
        return collated_anywhere(t.elementType)
    if isinstance(t, MapType):
        return collated_anywhere(t.keyType) or collated_anywhere(t.valueType)
    if isinstance(t, StructType):
        return any(collated_anywhere(f.dataType) for f in t.fields)
    return is_collated(t)


def refuse_on_a_stream(plan: MatchPlan, types: dict[str, DataType]) -> None:
    """A stream keeps each PARTITION BY key's state and orders its rows by their bytes;
    a key or ORDER BY column with a collation (``'x'`` and ``'X'`` one partition under
    UTF8_LCASE) would be split or misordered. Spark's own state stores refuse such keys
    (STATE_STORE_UNSUPPORTED_OPERATION_BINARY_INEQUALITY): so does matchrec, at the key,
    before the query starts."""
    for where, column, pos in plan.written_keys:
        dtype = types.get(column)
        if dtype is not None and collated_anywhere(dtype):
            raise UnsupportedError(
                f"{where} column {column!r} is {dtype.simpleString().upper()}: on a stream, "
                "a key with a collation cannot be kept apart by its state (Spark's state "
                "stores refuse such keys too)",
                sql=plan.clause.sql,
                pos=pos,
                hint="compute a key Spark compares byte by byte in a subquery (lower(x) for "
                "UTF8_LCASE, rtrim(x) for an RTRIM collation, or collate(x, 'UTF8_BINARY')) "
                "and use it",
            )


def boundary_keys(keys: list[str], stand_ins: dict[str, tuple[str, str]]) -> list[str]:
    """The columns the matcher compares to find partition boundaries."""
    return [stand_ins[k][0] if k in stand_ins else k for k in keys]
