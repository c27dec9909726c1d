"""String functions whose answer depends on their strings' collation.

Spark computes ``contains``, ``replace``, ``LIKE``, the regex functions, ``trim`` of
given characters, the array set functions and their kin under the collation of their
string arguments: ``contains('ABC' COLLATE UTF8_LCASE, 'b')`` is true. matchrec's
evaluator of several rows (DEFINE's glue, the table function's MEASURES) computes them
over the characters, as under UTF8_BINARY. Comparisons are another matter: the glue
folds their strings as the collation says (``matchrec.integer_width``).

So such a call of a collated string, computed there, is refused with a caret, never
answered as if the string had no collation. A call of one row's values is Spark's own
column and keeps the collation. Nothing here imports Spark.
"""

from __future__ import annotations

import re

from sqlglot import exp

#: sqlglot's nodes of the functions whose answer depends on the collation (Spark 4)
_NODES: tuple[type[exp.Expression], ...] = (
    exp.Contains,
    exp.StartsWith,
    exp.EndsWith,
    exp.StrPosition,  # instr, locate, position
    exp.Replace,
    exp.SubstringIndex,
    exp.Translate,
    exp.SplitPart,
    exp.RegexpSplit,  # split
    exp.StrToMap,
    exp.Like,
    exp.ILike,
    exp.RegexpLike,  # rlike, regexp, regexp_like
    exp.RegexpReplace,
    exp.RegexpExtract,
    exp.RegexpExtractAll,
    exp.RegexpCount,
    exp.RegexpInstr,
    exp.RegexpSubstr,
    exp.ArrayContains,
    exp.ArrayPosition,
    exp.ArrayRemove,
    exp.ArrayDistinct,
    exp.ArrayExcept,
    exp.ArrayIntersect,
    exp.Nullif,  # compares its operands: the glue's comparisons fold, nullif's not
)

#: the same functions where sqlglot keeps the call by name
_NAMES = frozenset({"FIND_IN_SET", "ARRAY_UNION", "ARRAYS_OVERLAP", "BTRIM"})

#: a type's collation other than UTF8_BINARY, anywhere in its ``simpleString``
_COLLATED = re.compile(r"collate\s+(?!utf8_binary\b)(\w+)", re.IGNORECASE)


def collation_sensitive(node: exp.Expression) -> bool:
    """Whether ``node`` is a call whose answer depends on its strings' collation
    (``trim`` only with the characters to trim given)."""
    if isinstance(node, exp.Trim):
        return node.expression is not None
    if isinstance(node, exp.Anonymous):
        return str(node.this).upper() in _NAMES
    return isinstance(node, _NODES)


def collation_of(type_name: str) -> str | None:
    """The collation other than UTF8_BINARY in Spark's ``simpleString`` of a type
    (``string collate UTF8_LCASE``, ``array<string collate UNICODE_CI>``), if any."""
    found = _COLLATED.search(type_name)
    return found.group(1) if found else None


def refusal(name: str) -> str:
    """Why a call of ``name`` with a collated argument is refused over several rows."""
    return (
        f"{name} compares strings under their collation in Spark; matchrec's evaluator "
        "of values from several rows would compare their characters as UTF8_BINARY does "
        "(compute it on one row's values, or on strings without a collation: lower(x) "
        "for UTF8_LCASE)"
    )
