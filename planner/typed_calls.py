"""Functions of several rows whose Python needs each argument's Spark type.

``hash``/``xxhash64`` hash each argument by its type (``planner.hash_functions``),
``to_json`` writes a value as its type says (``planner.json_writer``);
``format_string``/``printf`` format the object Spark holds each value in, which its type
decides (``planner.java_format``). DEFINE's glue asks the runtime for the types before
the query runs (the probe of ``matchrec.integer_width``); the table function infers them
(``planner.measure_eval``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlglot import exp
from sqlglot.errors import ParseError

from .bit_functions import bit_get
from .hash_functions import HASHES, spark_type
from .java_format import FORMATTERS
from .json_writer import to_json, unwritten
from .type_names import read_named_type, type_name

Typed = list[tuple[Any, exp.DataType]]


def read_any_collation(name: str) -> exp.DataType:
    """A type from its ``simpleString``, its collation dropped (a formatter sees the
    string's characters whatever the collation); ``void`` (a NULL literal's) as NULL."""
    if name == "void":
        return exp.DataType(this=exp.DataType.Type.NULL)
    return exp.DataType.build(re.sub(r"(?i)\s+collate\s+\w+", "", name), dialect="spark")


@dataclass(frozen=True)
class TypedCall:
    """``fn`` of (value, Spark type) pairs; ``read_type`` reads a type's ``simpleString``
    (it raises TypeError for a type ``fn`` cannot take); ``collations``: whether a
    collated string argument is computed as any string (a hash is not: Spark hashes a
    collation key); ``pattern``: the first argument is a Java format pattern, checked
    when the query is built; ``casts``: Spark's implicit casts of the arguments
    (``planner.argument_casts``) apply before ``fn`` reads them."""

    fn: Callable[[Typed], Any]
    read_type: Callable[[str], exp.DataType]
    collations: bool
    pattern: bool = False  # the first argument is a Java format pattern
    casts: bool = False
    reads_values: bool = True  # False: ``fn`` reads the types alone (values are None)
    #: why ``fn`` cannot take an argument of a type (None: it can), checked before the
    #: query runs where ``read_type`` accepts the type but ``fn`` does not compute it
    check: Callable[[exp.DataType], str | None] | None = None


TYPED_CALLS: dict[str, TypedCall] = {
    **{name: TypedCall(fn, spark_type, False) for name, fn in HASHES.items()},
    **{
        name: TypedCall(fn, read_any_collation, True, pattern=True)
        for name, fn in FORMATTERS.items()
    },
    "GETBIT": TypedCall(bit_get, read_any_collation, True, casts=True),
    "TO_JSON": TypedCall(
        lambda typed: to_json(*typed[0]), read_any_collation, True, check=unwritten
    ),
    # Spark folds typeof to its argument's type name; the argument is never evaluated
    "TYPEOF": TypedCall(
        lambda typed: type_name(typed[0][1]), read_named_type, True, reads_values=False
    ),
}


def type_refusal(call: TypedCall) -> Callable[[str], str | None] | None:
    """``call.check`` of a type given by its ``simpleString`` (as the runtime sets an
    argument's type before the query runs); None for a call without a check. A type
    ``read_type`` cannot read is left to the call, which raises at run time."""
    check = call.check
    if check is None:
        return None

    def refuses(name: str) -> str | None:
        try:
            return check(call.read_type(name))
        except (TypeError, ValueError, ParseError):
            return None

    return refuses


def typed_name(node: exp.Expression) -> str | None:
    """The :data:`TYPED_CALLS` entry of call ``node``, None for another node."""
    if isinstance(node, exp.Format):
        return "FORMAT_STRING"
    if isinstance(node, exp.Getbit):  # bit_get and getbit
        return "GETBIT"
    if isinstance(node, exp.JSONFormat):  # to_json; with options Spark's JSON options apply
        return None if node.args.get("options") else "TO_JSON"
    if isinstance(node, exp.Typeof):
        return "TYPEOF"
    if isinstance(node, exp.Anonymous) and node.expressions:
        name = str(node.this).upper()
        return name if name in TYPED_CALLS else None
    return None


def typed_args(node: exp.Expression) -> list[exp.Expression]:
    """The arguments of a typed call, in order (sqlglot keeps format_string's pattern
    apart from its values)."""
    if isinstance(node, exp.Format):
        return [node.this, *node.expressions]
    if isinstance(node, exp.Getbit):
        return [node.this, node.expression]
    if isinstance(node, (exp.JSONFormat, exp.Typeof)):
        return [node.this]
    return list(node.expressions)
