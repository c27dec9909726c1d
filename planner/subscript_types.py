"""Which index types Spark takes in a subscript ``a[i]`` of an ARRAY or ``m[k]`` of a MAP,
when it analyses the query: an array's index is an integer (TINYINT to BIGINT), ANSI
mode or not; a map's key is cast to the map's key type where Spark casts implicitly
(``m['2']`` of a MAP<INT, ...> looks up 2, ``'x'`` fails under ANSI mode; ``m[2]`` of a
MAP<STRING, ...> looks up ``'2'``). The table function and DEFINE's glue compute
subscripts in Python: they refuse what Spark refuses, and cast the key as Spark does
(:func:`planner.measure_eval.string_coerced`).

:data:`_MAP_KEYS` lists, per map key type (one-letter codes of
:data:`planner.unary_types.CODES`), the index types Spark takes under ANSI mode and,
after ``/``, without it (where they differ). Read from Spark 4.3 by subscripting a map
of each key type with a column of each type; ``tests/test_subscript_types.py`` asks
Spark again. A DECIMAL of any precision reads as ``m``; a key or index type outside the
codes is left to Spark.
"""

from __future__ import annotations

from .unary_types import CODES

_MAP_KEYS = """
    i:ildms l:ildms d:ildms m:ildms s:ildmsbDTNByY b:sb/b D:sDTN T:sDTN N:sDTN B:sB
    a:a/aA A:aA S:S y:sy/y Y:sY/Y
"""

#: the types of an array's index Spark takes
INTEGRAL = frozenset({"tinyint", "smallint", "int", "bigint", "void"})

_NAMES = {name: code for code, name in CODES.items()}


def _read(table: str) -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """Key code -> the index codes taken under ANSI mode and without it."""
    taken = {}
    for entry in table.split():
        code, _, modes = entry.partition(":")
        ansi, _, legacy = modes.partition("/")
        taken[code] = (frozenset(ansi), frozenset(legacy or ansi))
    return taken


#: map key code -> (index codes Spark takes under ANSI mode, without it)
MAP_KEY_CASTS = _read(_MAP_KEYS)


def _code(type_name: str) -> str | None:
    name = type_name.lower()
    return "m" if name.startswith("decimal(") else _NAMES.get(name)


def map_key_taken(key_type: str, index_type: str, ansi: bool) -> bool | None:
    """Whether Spark takes an index of ``index_type`` into a map whose keys are of
    ``key_type`` (Spark's simple names): None where a type is not one of the codes."""
    key, index = _code(key_type), _code(index_type)
    if key is None or index is None or key not in MAP_KEY_CASTS:
        return None
    return index in MAP_KEY_CASTS[key][0 if ansi else 1]
