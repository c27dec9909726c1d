"""Match a partition piece by piece with ``engine.run_chunk``, as the batch runtime does:
pieces grow by ``chunk`` rows, and after each only the rows later searches need are kept."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyarrow as pa

from matchrec.engine import lookaround, run_chunk


def match_in_pieces(
    program: Any, atoms: int, size: int, chunk: int, piece_of: Callable[[int, int], Any]
) -> tuple[list[int], list[list[Any]]]:
    """Output rows (partition rows) and atom values of a partition of ``size`` rows;
    ``piece_of(low, high)`` gives its rows [low, high) as columns."""
    back, ahead = lookaround(program)
    rows: list[int] = []
    values: list[list[Any]] = [[] for _ in range(atoms)]
    origin, start, number, held_to = 0, 0, 1, 0
    while True:
        held_to = min(size, held_to + chunk)
        final = held_to == size
        out, resume, number = run_chunk(
            program,
            piece_of(origin, held_to),
            held_to - origin,
            origin=origin,
            number=number,
            final=final,
            start=start,
            lookahead=ahead,
        )
        rows += [int(r) + origin for r in out.rows]
        for column, got in zip(values, out.atoms):
            column += got.to_pylist() if isinstance(got, pa.Array) else list(got)
        if final:
            return rows, values
        keep = max(0, resume - back)
        origin, start = origin + keep, resume - keep
