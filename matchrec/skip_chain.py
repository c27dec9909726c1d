"""Which searches AFTER MATCH SKIP PAST LAST ROW can still need, while they all run.

:mod:`matchrec.wave` searches from every start row at once, but SKIP PAST LAST ROW keeps
only the searches on a chain: a partition's first row, then the row after each match
(or the next row where a search found none). Most rows of a long match start a search
nobody needs, and on data where matches are long these searches are long too (a random
walk that stays near its start keeps every search near it alive): they are most of the
work. During the search, the chain is known tentatively: the match each search has found
so far (its end can only move later) or none. :func:`walk` follows that chain through
the whole group of partitions at once, visiting only the searches that found a match
and the ones set aside, and says which live searches lie inside a match of the chain
(set aside: their threads stop) and which set-aside searches the chain now reaches (they
start again). A search set aside for good stays unresolved, and the scalar matcher runs
it if SKIP reaches it after all, so the result never depends on the guess.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Chain:
    """The tentative chain: the matches on it (``starts``/``ends``, ends exclusive,
    ascending) and the set-aside searches it reaches (``reached``, ascending)."""

    starts: np.ndarray
    ends: np.ndarray
    reached: np.ndarray

    def covers(self, rows: np.ndarray) -> np.ndarray:
        """Where a search from ``rows`` starts strictly inside a match of the chain."""
        if not len(self.starts):
            return np.zeros(len(rows), dtype=bool)
        at = np.searchsorted(self.starts, rows, side="right") - 1
        inside = at >= 0
        at = np.maximum(at, 0)
        return inside & (self.starts[at] < rows) & (rows < self.ends[at])


def walk(length: np.ndarray, set_aside: np.ndarray, n: int) -> Chain:
    """The chain over start rows ``[0, n)`` laid out as one group of partitions.

    ``length[s]``: the length of the match found so far from ``s`` (-1: none yet);
    ``set_aside``: the rows whose search was stopped, ascending (they count as having no
    match). A match never runs past its partition, so the chain of one partition ends on
    the first row of the next: one walk serves them all. Every row up to the first match
    is on the chain, and after each match of the chain, every row up to the next match
    that starts at or after its end: the matches on the chain are the path from the
    first match through "next match after my end", found by pointer doubling."""
    starts = np.flatnonzero(length > 1)  # a match of one row covers no other start
    ends = starts + length[starts]
    count = len(starts)
    if count == 0:
        return Chain(starts, ends, set_aside)
    hop = np.append(np.searchsorted(starts, ends), count)  # count: past the last
    path = np.zeros(1, dtype=np.int64)
    hops = [hop]
    while len(hops) < 64 and (hops[-1][:count] < count).any():
        hops.append(hops[-1][hops[-1]])
    for jump in reversed(hops):  # the path's first 2**len(hops) steps
        path = np.union1d(path, jump[path])
    path = path[path < count]
    chain = Chain(starts[path], ends[path], set_aside[:0])
    chain.reached = set_aside[~chain.covers(set_aside)]
    return chain
