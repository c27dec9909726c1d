"""Spark's array set and search functions in Python, for DEFINE glue over several rows.

``array_position(A.tags, B.tag)`` or ``array_union(A.ids, B.ids)`` read two rows: the glue
computes them while matching. Elements compare as Spark compares them in these functions:
NaN equals NaN, and a NULL element is kept (once) by the set functions but matches
nothing in a search. Results keep the order Spark gives: first occurrences, the first
array's elements before the second's. Each is checked against Spark on every pair of
edge values by ``tests/test_define_functions.py``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from sqlglot import exp

from matchrec.sql_values import StructFields, leaves_mapped


def _key(v: Any) -> Any:
    """Equality key of an element: NaN equals NaN; 0.0 and -0.0 are one value; an array
    by its elements, a struct (a tuple, or a dict of its fields) by its fields' values,
    a map by its entries (as Spark compares their bytes)."""
    if isinstance(v, float):
        if math.isnan(v):
            return ("NaN",)
        return v + 0.0
    if isinstance(v, list):
        return ("[", tuple(_key(x) for x in v))
    if isinstance(v, StructFields):
        v = tuple(v.values())
    if isinstance(v, tuple):
        return ("(", tuple(_key(x) for x in v))
    if isinstance(v, dict):
        return ("{", tuple((_key(k), _key(x)) for k, x in v.items()))
    return v


def _items(v: Any) -> list[Any]:
    if not isinstance(v, (list, tuple)):
        raise TypeError(f"{v!r} is not an array")
    return list(v)


def _distinct(values: list[Any]) -> list[Any]:
    seen: set[Any] = set()
    out = []
    for v in values:
        k = ("NULL",) if v is None else _key(v)
        if k not in seen:
            seen.add(k)
            out.append(leaves_mapped(v, _positive_zero))  # Spark's 0.0, at any depth
    return out


def _positive_zero(v: Any) -> Any:
    """0.0 for -0.0 (of its own float type: a FLOAT stays one), else ``v``."""
    return type(v)(0.0) if isinstance(v, float) and v == 0 else v


def array_distinct(a: Any) -> list[Any]:
    return _distinct(_items(a))


def array_union(a: Any, b: Any) -> list[Any]:
    return _distinct(_items(a) + _items(b))


def _keys(values: list[Any]) -> set[Any]:
    return {("NULL",) if v is None else _key(v) for v in values}


def array_intersect(a: Any, b: Any) -> list[Any]:
    other = _keys(_items(b))
    return [v for v in _distinct(_items(a)) if (("NULL",) if v is None else _key(v)) in other]


def array_except(a: Any, b: Any) -> list[Any]:
    other = _keys(_items(b))
    return [v for v in _distinct(_items(a)) if (("NULL",) if v is None else _key(v)) not in other]


def array_position(a: Any, x: Any) -> int:
    """1-based index of the first element equal to ``x``, 0 if none."""
    want = _key(x)
    for i, v in enumerate(_items(a), start=1):
        if v is not None and _key(v) == want:
            return i
    return 0


def array_remove(a: Any, x: Any, *_: Any) -> list[Any]:
    want = _key(x)
    return [v for v in _items(a) if v is None or _key(v) != want]


def arrays_overlap(a: Any, b: Any) -> Any:
    """True if a non-NULL element is in both; else NULL if both are non-empty and one
    holds a NULL; else false."""
    left, right = _items(a), _items(b)
    if _keys([v for v in left if v is not None]) & _keys([v for v in right if v is not None]):
        return True
    if left and right and (None in left or None in right):
        return None
    return False


def array_compact(a: Any) -> list[Any]:
    return [v for v in _items(a) if v is not None]


#: name -> function of non-NULL arguments (a NULL array or searched value gives NULL)
ARRAY_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "ARRAY_DISTINCT": array_distinct,
    "ARRAY_UNION": array_union,
    "ARRAY_INTERSECT": array_intersect,
    "ARRAY_EXCEPT": array_except,
    "ARRAY_POSITION": array_position,
    "ARRAY_REMOVE": array_remove,
    "ARRAYS_OVERLAP": arrays_overlap,
    "ARRAY_COMPACT": array_compact,
}

#: sqlglot's node classes of those functions
ARRAY_NODES: dict[type, str] = {
    exp.ArrayDistinct: "ARRAY_DISTINCT",
    exp.ArrayIntersect: "ARRAY_INTERSECT",
    exp.ArrayExcept: "ARRAY_EXCEPT",
    exp.ArrayPosition: "ARRAY_POSITION",
    exp.ArrayRemove: "ARRAY_REMOVE",
    exp.ArrayCompact: "ARRAY_COMPACT",
}
