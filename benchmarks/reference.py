"""An independent reference for the V-shape workloads, to check matchrec's match counts.

Written from the semantics, not from the engine: per partition ordered by time, try each
row as STRT; DOWN+ is the longest strictly decreasing run after it (greedy), UP+ the
longest strictly increasing run after that; AFTER MATCH SKIP TO LAST UP starts the next
try at the match's last row; no match at a row moves on to the next row.

Greedy DOWN+ never needs backtracking here: a row inside the decreasing run is lower
than its predecessor, so it can never be the first UP; if the row after the whole run
is not UP, no shorter DOWN+ gives a match either.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import pyarrow as pa


def v_shape_matches(prices: Sequence[float], up_plus: bool = True) -> list[tuple[int, int, int]]:
    """The matches of ``STRT DOWN+ UP+`` (``UP`` once if not ``up_plus``) in one partition.

    Each match is ``(start, bottom, end)``: the STRT row, the last DOWN row and the last
    UP row, as indices into ``prices``.
    """
    p = list(prices)
    n = len(p)
    matches: list[tuple[int, int, int]] = []
    start = 0
    while start + 2 < n:
        bottom = start
        while bottom + 1 < n and p[bottom + 1] < p[bottom]:
            bottom += 1
        if bottom == start or bottom + 1 >= n or not p[bottom + 1] > p[bottom]:
            start += 1
            continue
        end = bottom + 1
        if up_plus:
            while end + 1 < n and p[end + 1] > p[end]:
                end += 1
        matches.append((start, bottom, end))
        start = end  # AFTER MATCH SKIP TO LAST UP
    return matches


def price_partitions(table: pa.Table, partitioned: bool) -> Iterator[list[float]]:
    """The price sequences to match in ``table`` (sorted by symbol, ts).

    Partitioned: one sequence per symbol. Not partitioned: the whole table as one
    sequence (ordered by symbol, then ts), as a query without PARTITION BY sees it.
    """
    prices = table.column("price").to_pylist()
    if not partitioned:
        yield prices
        return
    symbols = table.column("symbol").to_pylist()
    begin = 0
    for i in range(1, len(symbols) + 1):
        if i == len(symbols) or symbols[i] != symbols[begin]:
            yield prices[begin:i]
            begin = i


@dataclass(frozen=True)
class VShapeReference:
    """How to count a V-shape workload's result rows from the input data."""

    partitioned: bool = True
    all_rows: bool = False
    up_plus: bool = True

    def count(self, sorted_table: pa.Table) -> int:
        """Result rows expected from ``sorted_table`` (sorted by symbol, ts)."""
        total = 0
        for prices in price_partitions(sorted_table, self.partitioned):
            for start, _bottom, end in v_shape_matches(prices, self.up_plus):
                total += end - start + 1 if self.all_rows else 1
        return total
