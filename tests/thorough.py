"""How much of the slowest differential sweeps a test run covers.

The default run (CI's, on two cores) runs every other case of those sweeps
(:func:`sampled`), or each call of a sweep through both doors once, on the doors in turn
(:func:`in_turn`), so that each behaviour they check still runs somewhere; with
``MATCHREC_THOROUGH_TESTS=1`` every case runs (before a release, or after a change to
what a sweep covers)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, TypeVar

import pytest

T = TypeVar("T")

THOROUGH = os.environ.get("MATCHREC_THOROUGH_TESTS", "").strip() == "1"


def sampled(cases: Sequence[T], offset: int = 0) -> list[T]:
    """All ``cases`` in a thorough run, else every other one starting at ``offset % 2``
    (the first of one case, so that no group is left out)."""
    if THOROUGH:
        return list(cases)
    return list(cases[offset % 2 :: 2]) or list(cases[:1])


def in_turn(cases: Sequence[Any], sides: Sequence[str], ids: Sequence[str] | None = None) -> list:
    """Parameters ``(*case, side)`` for a test of each case on each side (a door, a
    clause part): in a thorough run every pair; by default each case once, on the sides
    in turn, so that every case and every side still runs."""
    params = []
    for i, case in enumerate(cases):
        values = case if isinstance(case, tuple) else (case,)
        name = ids[i] if ids is not None else str(case)
        for side in sides if THOROUGH else [sides[i % len(sides)]]:
            params.append(pytest.param(*values, side, id=f"{name}-{side}"))
    return params
