"""Deterministic tick data for the benchmarks, written once to Parquet and reused.

A dataset has ``rows`` rows over ``symbols`` symbols (``S000`` ...): one row per symbol
per second from 2024-01-01 00:00:00 UTC, and a price that is a random walk per symbol
with steps of -0.1, 0 or +0.1 (computed in integer tenths, so prices are exactly the
doubles nearest to one-decimal numbers: no float noise in comparisons). Rows are
shuffled, so that Spark really has to repartition and sort them.

The same :class:`DatasetSpec` always gives the same bytes (numpy ``default_rng`` with a
fixed seed); the file name carries every parameter, so a second run finds the file and
does not generate it again.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

#: Bump when the generator changes, so stale cached files are not reused.
GENERATOR_VERSION = 1
DEFAULT_SEED = 20240101
#: First timestamp of every symbol, in microseconds since the epoch (2024-01-01 UTC).
BASE_TS_US = 1_704_067_200_000_000
ROW_GROUP_SIZE = 1 << 20

SCHEMA = pa.schema(
    [
        ("symbol", pa.string()),
        ("ts", pa.timestamp("us", tz="UTC")),
        ("price", pa.float64()),
    ]
)


@dataclass(frozen=True)
class DatasetSpec:
    """The parameters that fully determine one generated dataset."""

    rows: int
    symbols: int
    seed: int = DEFAULT_SEED

    def __post_init__(self) -> None:
        if self.rows < 1 or self.symbols < 1:
            raise ValueError(f"rows and symbols must be positive: {self}")
        if self.symbols > self.rows:
            raise ValueError(f"more symbols than rows: {self}")

    @property
    def filename(self) -> str:
        """The cache file name: every parameter and the generator version."""
        return f"ticks-v{GENERATOR_VERSION}-r{self.rows}-k{self.symbols}-s{self.seed}.parquet"

    @property
    def rows_per_symbol(self) -> float:
        return self.rows / self.symbols


def symbol_names(count: int) -> list[str]:
    """``S0``... zero-padded to one width, so string order is numeric order."""
    width = len(str(count - 1))
    return [f"S{i:0{width}d}" for i in range(count)]


def generate(spec: DatasetSpec) -> pa.Table:
    """The dataset of ``spec`` as an Arrow table (symbol, ts, price), rows shuffled."""
    rng = np.random.default_rng(spec.seed)
    n, k = spec.rows, spec.symbols
    # symbol-major layout first: symbol j owns a contiguous run of rows
    counts = np.full(k, n // k, dtype=np.int64)
    counts[: n % k] += 1
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    sym = np.repeat(np.arange(k, dtype=np.int64), counts)
    offset = np.arange(n, dtype=np.int64) - starts[sym]  # seconds since the symbol's start

    start_tenths = rng.integers(500, 1500, size=k, dtype=np.int64)  # 50.0 .. 149.9
    steps = rng.integers(-1, 2, size=n, dtype=np.int64)
    steps[starts] = 0  # each symbol's first row is its start price
    walk = np.cumsum(steps)
    tenths = start_tenths[sym] + walk - walk[starts][sym]
    price = np.round(tenths / 10.0, 1)

    perm = rng.permutation(n)
    names = pa.array(symbol_names(k), type=pa.string())
    return pa.table(
        {
            "symbol": names.take(pa.array(sym[perm])),
            "ts": pa.array(BASE_TS_US + offset[perm] * 1_000_000, type=SCHEMA.field("ts").type),
            "price": pa.array(price[perm], type=pa.float64()),
        },
        schema=SCHEMA,
    )


def ensure(spec: DatasetSpec, data_dir: str | os.PathLike[str]) -> Path:
    """The Parquet file of ``spec`` in ``data_dir``, generated (atomically) if missing."""
    directory = Path(data_dir)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / spec.filename
    if path.exists():
        return path
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    pq.write_table(generate(spec), tmp, row_group_size=ROW_GROUP_SIZE)
    os.replace(tmp, path)
    return path


def load_sorted(path: str | os.PathLike[str]) -> pa.Table:
    """A generated file read back and sorted by (symbol, ts), for reference checks."""
    return pq.read_table(path).sort_by([("symbol", "ascending"), ("ts", "ascending")])
