"""The name a misspelled one was most likely meant to be, for an error's hint."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def close_match(name: str, options: Iterable[str]) -> str | None:
    """The option ``name`` was most likely meant to be, compared without case (as Spark
    resolves columns and fields), if any is close enough."""
    lowered = {o.lower(): o for o in options}
    hits = difflib.get_close_matches(name.lower(), list(lowered), n=1, cutoff=0.75)
    return lowered[hits[0]] if hits else None
