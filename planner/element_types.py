"""Whether Spark takes the value an array function looks for or adds
(``array_contains``, ``array_position``, ``array_remove``, ``array_append``,
``array_prepend``), its second array (``arrays_overlap``, ``array_union``,
``array_intersect``, ``array_except``) beside the first array's elements, or the key
``map_contains_key`` looks for beside the map's keys. Spark decides when it analyses the
query, ANSI mode or not, by a common type that never casts to STRING
(``array_contains(array(1), '1')`` is refused): the tightest one, or for
``array_contains`` and map keys any two numbers. The table function, which computes these
in Python, would answer instead (false, NULL): Spark's answer is the refusal. Read from
Spark's simple type names; a type this does not model (CHAR, a collation, VARIANT) is
left to Spark."""

from __future__ import annotations

from sqlglot import exp
from sqlglot.errors import SqlglotError

from .function_types import joins_without_strings, tightest
from .type_names import read_named_type, type_name

T = exp.DataType.Type

#: call key (``function_types.key``) -> its rule: ``contains`` (a value, any two numbers
#: join), ``value`` (a value of the tightest common type), ``arrays`` (two arrays),
#: ``key`` (a map's key, as ``contains``); ``lookup`` (element_at's key of a map, of the
#: tightest common type: :func:`planner.type_checks.build_check`)
ELEMENT_RULES = {
    "ArrayContains": "contains",
    "ArrayPosition": "value",
    "ArrayRemove": "value",
    "ArrayAppend": "value",
    "ArrayPrepend": "value",
    "MapContainsKey": "key",
    "ARRAYS_OVERLAP": "arrays",
    "ARRAY_UNION": "arrays",
    "ArrayIntersect": "arrays",
    "ArrayExcept": "arrays",
}

_MODELED = {
    T.TINYINT, T.SMALLINT, T.INT, T.BIGINT, T.FLOAT, T.DOUBLE, T.DECIMAL, T.TEXT,
    T.BOOLEAN, T.BINARY, T.DATE, T.TIMESTAMP, T.TIMESTAMPTZ, T.TIMESTAMPNTZ, T.NULL,
}  # fmt: skip


def _read(name: str) -> exp.DataType | None:
    """The type of Spark's name ``name``, if every part of it is one modeled here."""
    if " collate " in name.lower():
        return None
    try:
        t = read_named_type(name)
    except (ValueError, TypeError, AttributeError, SqlglotError):
        return None
    modeled = _modeled(t)
    return t if modeled else None


def _modeled(t: exp.DataType) -> bool:
    """Whether ``t`` and each part of it are of the kinds whose rules Spark was asked."""
    if isinstance(t.this, exp.Interval):
        return True
    if t.this in (T.ARRAY, T.MAP, T.STRUCT):
        parts = [p.args.get("kind") if isinstance(p, exp.ColumnDef) else p for p in t.expressions]
        return all(isinstance(p, exp.DataType) and _modeled(p) for p in parts)
    return t.this in _MODELED


def element_refusal(rule: str, types: list[str]) -> tuple[str, int, str] | None:
    """Why Spark refuses a call of ``rule`` whose array and value (or two arrays) have
    types named ``types``: (its error class, the index of the operand at fault, what is
    wrong), or None."""
    read = [_read(t) for t in types]
    if len(read) != 2 or read[0] is None or read[1] is None:
        return None
    if rule in ("key", "lookup"):
        return _key_refusal(read[0], read[1], types, rule)
    if read[0].this != T.ARRAY or not read[0].expressions:
        return None  # no array, or an empty one of no element type (array()), which fits
    element, other = read[0].expressions[0], read[1]
    if rule == "arrays":
        if other.this != T.ARRAY or not other.expressions:
            return None
        if tightest(element, other.expressions[0]) is not None:
            return None
        return (
            "BINARY_ARRAY_DIFF_TYPES",
            1,
            f"takes two arrays of one element type, not {types[0].upper()} and {types[1].upper()}",
        )
    if rule == "contains" and other.this == T.NULL:
        return "NULL_TYPE", 1, "takes no NULL of no type as the value it looks for"
    if rule == "contains" and joins_without_strings(element, other):
        return None
    if rule == "value" and tightest(element, other) is not None:
        return None
    return (
        "ARRAY_FUNCTION_DIFF_TYPES",
        1,
        f"takes a value of the elements' type ({types[0][6:-1].upper()}), not one of "
        f"type {types[1].upper()}",
    )


def _key_refusal(
    container: exp.DataType, key: exp.DataType, types: list[str], rule: str
) -> tuple[str, int, str] | None:
    """``map_contains_key``'s refusal (``rule`` ``key``): no MAP, a NULL of no type, or a
    key of no common type with the map's keys (MAP_FUNCTION_DIFF_TYPES); ``element_at``'s
    of a map (``lookup``): a key of no tightest common type (a NULL is taken)."""
    if container.this != T.MAP:
        return (
            "MAP_FUNCTION_DIFF_TYPES",
            0,
            f"looks in a MAP, not in one of type {types[0].upper()}",
        )
    if key.this == T.NULL and rule == "key":
        return "NULL_TYPE", 1, "takes no NULL of no type as the key it looks for"
    keys = container.expressions[0]
    if key.this == T.NULL:
        return None
    if rule == "lookup" and tightest(keys, key) is not None:
        return None
    if rule == "key" and joins_without_strings(keys, key):
        return None
    return (
        "MAP_FUNCTION_DIFF_TYPES",
        1,
        f"looks for a key of the map's key type ({type_name(container.expressions[0]).upper()}), "
        f"not one of type {types[1].upper()}",
    )
