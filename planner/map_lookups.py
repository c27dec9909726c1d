"""A key looked up in a map built on the spot, read as Spark's optimizer reads it.

Spark never builds the map of ``map(k1, v1, k2, v2)[key]`` when some of its keys or
values are not constants: its optimizer (``SimplifyExtractValueOps``) rewrites the lookup
as ``CASE key WHEN k1 THEN v1 WHEN k2 THEN v2 END``. So a NULL among the keys is no
NULL_MAP_KEY error, a repeated key gives its first value (whatever
``spark.sql.mapKeyDedupPolicy`` says), and the values not chosen are never computed.
matchrec evaluates a lookup over the rows of a match the same way by writing it as that
CASE before anything else reads it. A map of constants only is folded by Spark before
the rewrite, so it is built (and its errors raised) as written; ``element_at`` and
``try_element_at`` always build the map.
"""

from __future__ import annotations

from sqlglot import exp


def _subscripted_map(node: exp.Expression) -> exp.VarMap | None:
    """The map constructor that ``node`` subscripts with ``[key]``, if it is one whose
    lookup Spark rewrites (some key or value is not a constant)."""
    if not isinstance(node, exp.Bracket) or len(node.expressions) != 1:
        return None
    if node.args.get("offset") or node.args.get("safe"):
        return None  # element_at, try_element_at
    built = node.this
    while isinstance(built, exp.Paren):
        built = built.this
    if not isinstance(built, exp.VarMap):
        return None
    keys, values = built.args["keys"].expressions, built.args["values"].expressions
    if not keys or len(keys) != len(values):
        return None
    if all(_constant(e) for e in (*keys, *values)):
        return None
    return built


#: calls of no column whose value depends on the match
_OF_THE_MATCH = frozenset({"CLASSIFIER", "MATCH_NUMBER"})


def _constant(node: exp.Expression) -> bool:
    """Whether ``node`` reads no column, row or match (what Spark folds to a literal
    first)."""
    for part in node.walk():
        if isinstance(part, (exp.Column, exp.Star)):
            return False
        if isinstance(part, exp.Anonymous) and str(part.this).upper() in _OF_THE_MATCH:
            return False
    return True


def map_lookups_as_case(tree: exp.Expression) -> exp.Expression:
    """``tree`` with each ``map(k1, v1, ...)[key]`` (not of constants only) as ``CASE key
    WHEN k1 THEN v1 ... END``, Spark's reading of it."""

    def rewritten(node: exp.Expression) -> exp.Expression:
        built = _subscripted_map(node)
        if built is None:
            return node
        keys, values = built.args["keys"].expressions, built.args["values"].expressions
        case = exp.Case(
            this=node.expressions[0],
            ifs=[exp.If(this=k, true=v) for k, v in zip(keys, values)],
        )
        case.meta.update(node.meta)
        return case

    return tree.transform(rewritten, copy=False)
