"""The Arrow type that holds the Python values of a Spark SQL type, for values the
evaluator computes outside Spark (a MATCH_RECOGNIZE_DYNAMIC rule's row-local columns):
a MAP with integer keys or an empty array has no type Arrow could guess from the values.
"""

from __future__ import annotations

import pyarrow as pa
from sqlglot import exp

from .function_types import decimal_params
from .measure_eval import is_day_time

T = exp.DataType.Type

_SIMPLE: dict[exp.DataType.Type, pa.DataType] = {
    T.BOOLEAN: pa.bool_(),
    T.TINYINT: pa.int8(),
    T.SMALLINT: pa.int16(),
    T.INT: pa.int32(),
    T.BIGINT: pa.int64(),
    T.FLOAT: pa.float32(),
    T.DOUBLE: pa.float64(),
    T.TEXT: pa.string(),
    T.VARCHAR: pa.string(),
    T.CHAR: pa.string(),
    T.BINARY: pa.binary(),
    T.VARBINARY: pa.binary(),
    T.DATE: pa.date32(),
    T.TIMESTAMP: pa.timestamp("us", tz="UTC"),
    T.TIMESTAMPTZ: pa.timestamp("us", tz="UTC"),
    T.TIMESTAMPLTZ: pa.timestamp("us", tz="UTC"),
    T.TIMESTAMPNTZ: pa.timestamp("us"),
    T.NULL: pa.null(),
}


def arrow_type(t: exp.DataType | None) -> pa.DataType | None:
    """The Arrow type of Spark type ``t``'s values (timestamps as UTC instants, a
    DAY-TIME interval as microseconds); ``None`` where there is none (a YEAR-MONTH
    interval, VARIANT) or ``t`` is unknown: the caller lets Arrow guess."""
    if t is None:
        return None
    if is_day_time(t):
        return pa.duration("us")
    simple = _SIMPLE.get(t.this)
    if simple is not None:
        return simple
    parts = t.expressions
    if t.this == T.DECIMAL:
        precision, scale = decimal_params(t) or (10, 0)
        return pa.decimal128(precision, scale)
    if t.this == T.ARRAY and len(parts) == 1:
        item = arrow_type(parts[0])
        return None if item is None else pa.list_(item)
    if t.this == T.MAP and len(parts) == 2:
        key, item = arrow_type(parts[0]), arrow_type(parts[1])
        return None if key is None or item is None else pa.map_(key, item)
    if t.this == T.STRUCT:
        fields = [(f.this.name, arrow_type(f.args.get("kind"))) for f in parts]
        if not fields or any(kind is None for _, kind in fields):
            return None
        return pa.struct(fields)
    return None
