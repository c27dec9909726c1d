"""A Spark type as SQL text that reads back as the same type, field names quoted.

``DataType.simpleString()`` writes a struct's field names as they are: a field named
``a.b`` or ``a b`` makes ``struct<a.b:int,city:string>``, which sqlglot (and Spark's own
type parser) cannot read back, so the planner saw a struct without fields and called
every field of it missing. Quoted, ``struct<`a.b`:int,`city`:string>`` reads back whole.
"""

from __future__ import annotations

from pyspark.sql.types import ArrayType, DataType, MapType, StructType


def type_text(t: DataType) -> str:
    """``t`` as ``simpleString`` writes it, but with every struct field name quoted."""
    if isinstance(t, StructType):
        fields = ",".join(f"`{f.name.replace('`', '``')}`:{type_text(f.dataType)}" for f in t)
        return f"struct<{fields}>"
    if isinstance(t, ArrayType):
        return f"array<{type_text(t.elementType)}>"
    if isinstance(t, MapType):
        return f"map<{type_text(t.keyType)},{type_text(t.valueType)}>"
    return t.simpleString()
