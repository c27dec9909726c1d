"""Strings that compare as their collation says, for aggregates over the match.

Spark's ``max``, ``min``, ``max_by``/``min_by`` (their key), ``mode``, DISTINCT and
WITHIN GROUP sorts compare a ``STRING COLLATE UTF8_LCASE`` value under its collation
(``'Z'`` above ``'b'``, ``'A'`` and ``'a'`` one value), not by its bytes. The aggregates
of :mod:`matchrec.navigation` compare Python values; a collated argument's values are
handed to them as :func:`collated` strings, a ``str`` whose equality, hash and order are
those of the folded string (the folding the glue's comparisons use,
:mod:`matchrec.integer_width`). :func:`plain` turns a result back into ordinary strings.
Nothing here imports Spark.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Fold = Callable[[str], str]

_CLASSES: dict[Fold, type] = {}


def _collated_class(fold: Fold) -> type:
    """The ``str`` subclass comparing as ``fold`` (one per folding)."""

    def key(s: str) -> str:
        return fold(str.__str__(s))

    class CollatedStr(str):
        __slots__ = ()

        def __eq__(self, other: object) -> bool:
            return isinstance(other, str) and key(self) == key(other)

        def __ne__(self, other: object) -> bool:
            return not self.__eq__(other)

        def __hash__(self) -> int:
            return hash(key(self))

        def __lt__(self, other: str) -> bool:
            return key(self) < key(other)

        def __le__(self, other: str) -> bool:
            return key(self) <= key(other)

        def __gt__(self, other: str) -> bool:
            return key(self) > key(other)

        def __ge__(self, other: str) -> bool:
            return key(self) >= key(other)

    return CollatedStr


def collated(values: list[Any], fold: Fold | None) -> list[Any]:
    """``values`` with each string made one that compares under ``fold`` (None: as is)."""
    if fold is None:
        return values
    cls = _CLASSES.get(fold)
    if cls is None:
        cls = _CLASSES[fold] = _collated_class(fold)
    return [cls(v) if isinstance(v, str) else v for v in values]


def plain(value: Any) -> Any:
    """``value`` (an aggregate's result) with collated strings as ordinary ones."""
    if isinstance(value, str):
        return str.__str__(value) if type(value) is not str else value
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value
