"""A chain of one associative operator as a balanced tree.

A condition generated with a thousand terms (``a OR b OR ...``) is as deep as its chain
when nested one level per term, and the walks over expressions recurse. Joined pairwise,
level by level, the same terms in the same order make a tree of depth log2(n).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


def balanced(items: Sequence[T], join: Callable[[T, T], T]) -> T:
    """``items`` (at least one) joined by ``join`` in order, as a balanced tree."""
    level = list(items)
    while len(level) > 1:
        joined = [join(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        level = joined + ([level[-1]] if len(level) % 2 else [])
    return level[0]
