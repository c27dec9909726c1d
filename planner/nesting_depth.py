"""How deeply an expression of DEFINE or MEASURES may nest, and room to read it.

sqlglot parses by recursive descent, about 25 Python frames per level of parentheses,
and the planner's walks of the tree recurse too: under Python's default limit of 1,000
frames an expression 40 parentheses deep (``((((a > 1) AND b) AND c) ...)``, as query
generators write) raised a bare RecursionError. Spark's own parser reads such text;
matchrec reads up to :data:`MAX_NESTING` levels, with the recursion limit raised while
it plans (:func:`room_to_nest`), and refuses deeper text at its deepest parenthesis.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from matchrec.errors import SqlSyntaxError

#: the deepest nesting of parentheses read in one expression
MAX_NESTING = 200
#: the recursion limit while planning: MAX_NESTING levels at about 25 frames each, twice
_FRAMES = 12_000

_HINT = (
    "write it flatter: terms joined by one AND (or OR) need no parentheses around each, "
    "and a CASE can replace nested IFs"
)


def deepest_parenthesis(kinds: list[tuple[str, int]]) -> tuple[int, int]:
    """(depth, offset) of the first ``(`` at the greatest depth, from the expression's
    ``(``/``)`` tokens in order as (text, offset) pairs."""
    depth, deepest, at = 0, 0, 0
    for text, offset in kinds:
        if text == "(":
            depth += 1
            if depth > deepest:
                deepest, at = depth, offset
        elif text == ")":
            depth -= 1
    return deepest, at


def refuse_deep_nesting(parens: list[tuple[str, int]], sql: str, base: int) -> None:
    """Raise :class:`~matchrec.errors.SqlSyntaxError` when the parentheses ``parens`` of
    an expression starting at offset ``base`` of ``sql`` nest deeper than MAX_NESTING."""
    depth, at = deepest_parenthesis(parens)
    if depth > MAX_NESTING:
        raise SqlSyntaxError(
            f"expression nested {depth} parentheses deep: matchrec reads up to {MAX_NESTING}",
            sql=sql,
            pos=base + at,
            hint=_HINT,
        )


@contextmanager
def room_to_nest(sql: str) -> Iterator[None]:
    """Plan with room for MAX_NESTING levels (Python's recursion limit raised for the
    duration); a RecursionError left is reported on ``sql`` at its deepest parenthesis."""
    limit = sys.getrecursionlimit()
    if limit < _FRAMES:
        sys.setrecursionlimit(_FRAMES)
    try:
        yield
    except RecursionError:
        parens = [(c, i) for i, c in enumerate(sql) if c in "()"]
        raise SqlSyntaxError(
            "expression nested too deeply for matchrec to plan",
            sql=sql,
            pos=deepest_parenthesis(parens)[1],
            hint=_HINT,
        ) from None
    finally:
        if limit < _FRAMES:
            sys.setrecursionlimit(limit)
