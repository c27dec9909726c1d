"""Spark's name of a type (its ``simpleString``, what ``typeof`` returns) for a sqlglot
type: the table function infers sqlglot types, DEFINE's glue is told Spark's names."""

from __future__ import annotations

import re

from sqlglot import exp

from .function_types import COLLATION

T = exp.DataType.Type

#: the meta key keeping the name a type was read from (the runtime's ``simpleString``)
SPARK_NAME = "mr_spark_name"

_NAMES = {T.NULL: "void", T.TEXT: "string", T.VARCHAR: "string", T.CHAR: "string"}


def read_named_type(name: str) -> exp.DataType:
    """A type read from its ``simpleString``, the name kept (collation included)."""
    text = re.sub(r"(?i)\s+collate\s+\w+", "", name)
    t = exp.DataType(this=T.NULL) if name == "void" else exp.DataType.build(text, dialect="spark")
    # (a name written by sqlglot, as matchrec's typer gives one, spaces its DECIMAL)
    t.meta[SPARK_NAME] = re.sub(r"(?i)\b(decimal)\((\d+),\s+(\d+)\)", r"\1(\2,\3)", name)
    return t


def type_name(t: exp.DataType) -> str:
    """Spark's ``simpleString`` of ``t``: ``int``, ``decimal(10,2)``, ``array<string>``,
    ``struct<a b:int>``, ``string collate UTF8_LCASE``, ``interval day to second``."""
    if SPARK_NAME in t.meta:
        return t.meta[SPARK_NAME]
    kind, parts = t.this, t.expressions
    if kind == T.STRUCT:
        fields = (f"{c.this.name}:{type_name(c.args['kind'])}" for c in parts)
        return "struct<" + ",".join(fields) + ">"
    if kind in (T.ARRAY, T.MAP):
        return f"{kind.value.lower()}<" + ",".join(type_name(p) for p in parts) + ">"
    if kind == T.DECIMAL:
        precision, scale = ([p.name for p in parts] + ["10", "0"][len(parts) :])[:2]
        return f"decimal({precision},{scale})"
    if kind in _NAMES:
        collation = t.meta.get(COLLATION)
        suffix = f" collate {collation}" if collation and collation != "UTF8_BINARY" else ""
        return _NAMES[kind] + suffix
    return t.sql("spark").lower()
