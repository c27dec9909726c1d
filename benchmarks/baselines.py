"""The two baselines every MATCH_RECOGNIZE run is compared with.

* **floor**: the job shape of matchrec without the matching: read, repartition by the
  key, ``sortWithinPartitions(key, ts)``, ``mapInArrow`` that only counts the rows (one
  one-row batch per Spark partition), then the no-op sink. MATCH_RECOGNIZE can't be
  cheaper than that.
* **udtf floor** (with a table-function workload): Spark's cost of an Arrow UDTF of
  W1-UDTF's shape (``TABLE(t)`` with the same selected columns, LAG windows and row
  number, sorted by symbol and ts by that window, as matchrec's table function) whose
  ``eval`` only counts its rows: what any analyze-typed table function pays before it
  matches anything.
* **naive**: what a user writes today for the V-shape query (W1):
  ``groupBy("symbol").applyInPandas`` with a plain Python loop over the sorted rows.

This module is pickled by value for the Python workers (:func:`ship_to_workers`), so
they don't need ``benchmarks`` on their path.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyarrow as pa

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

FLOOR_SCHEMA = "rows long"
NAIVE_SCHEMA = "symbol string, s timestamp, b timestamp, e timestamp"


def ship_to_workers() -> None:
    """Pickle this module's functions by value, so Spark's workers need not import it."""
    from pyspark import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])


def count_rows(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """The floor's ``mapInArrow`` function: consume every batch, yield one row count."""
    rows = 0
    for batch in batches:
        rows += batch.num_rows
    yield pa.RecordBatch.from_pydict({"rows": [rows]}, schema=pa.schema([("rows", pa.int64())]))


def floor(df: DataFrame, keyed: bool) -> DataFrame:
    """The floor job over ``df``: by ``symbol`` if ``keyed``, else one Spark partition."""
    from pyspark.sql import functions as F

    if keyed:
        shuffled = df.repartition(F.col("symbol"))
    else:
        shuffled = df.repartition(1)
    ordered = shuffled.sortWithinPartitions("symbol", "ts")
    return ordered.mapInArrow(count_rows, FLOOR_SCHEMA)


def naive_v_shape(group: pd.DataFrame) -> pd.DataFrame:
    """W1 for one symbol, as a hand-written state machine over the rows sorted by ts.

    ``STRT DOWN+ UP+`` with ``AFTER MATCH SKIP TO LAST UP``: idle until a row is lower
    than the one before (that one is STRT); then DOWN while prices fall, UP while they
    rise; a fall after UP ends the match, whose last UP is the next STRT; an equal price
    during DOWN fails the attempt (no start inside that run can succeed either).
    """
    group = group.sort_values("ts", kind="stable")
    prices = group["price"].tolist()
    times = group["ts"].to_numpy()
    symbol = group["symbol"].iloc[0] if len(group) else None
    found: list[tuple[int, int, int]] = []
    state, start, bottom = "idle", 0, 0
    for i in range(1, len(prices)):
        falls, rises = prices[i] < prices[i - 1], prices[i] > prices[i - 1]
        if state == "up":
            if rises:
                continue
            found.append((start, bottom, i - 1))
            state, start = ("down", i - 1) if falls else ("idle", 0)
            bottom = i
        elif state == "down":
            if falls:
                bottom = i
            elif rises:
                state = "up"
            else:
                state = "idle"
        elif falls:
            state, start, bottom = "down", i - 1, i
    if state == "up":
        found.append((start, bottom, len(prices) - 1))
    idx = np.array(found, dtype=np.int64).reshape(-1, 3)
    return pd.DataFrame(
        {
            "symbol": pd.Series([symbol] * len(found), dtype=object),
            "s": times[idx[:, 0]],
            "b": times[idx[:, 1]],
            "e": times[idx[:, 2]],
        }
    )


def naive(df: DataFrame) -> DataFrame:
    """The naive W1 job: ``groupBy("symbol").applyInPandas(naive_v_shape)``."""
    return df.groupBy("symbol").applyInPandas(naive_v_shape, NAIVE_SCHEMA)


UDTF_FLOOR_NAME = "matchrec_bench_udtf_floor"


class CountingUDTF:
    """The udtf floor's table function: W1-UDTF's input shape (the same selected columns,
    sorted by the same window), as an Arrow UDTF like matchrec's; one row count out per
    Spark partition."""

    @staticmethod
    def analyze(table, body):  # noqa: ANN001, ANN205 (Spark's analyze signature)
        from pyspark.sql.types import LongType, StructField, StructType
        from pyspark.sql.udtf import AnalyzeResult, SelectedColumn

        window = "OVER (PARTITION BY `symbol` ORDER BY `ts` ASC NULLS FIRST)"
        selected = [
            SelectedColumn("`symbol`"),
            SelectedColumn("`ts`"),
            SelectedColumn("`price`"),
            SelectedColumn(f"`price` < LAG(`price`, 1) {window}", alias="__down"),
            SelectedColumn(f"`price` > LAG(`price`, 1) {window}", alias="__up"),
            SelectedColumn(f"row_number() {window}", alias="__rn"),
        ]
        return AnalyzeResult(schema=StructType([StructField("rows", LongType())]), select=selected)

    def __init__(self, analyze_result=None) -> None:  # noqa: ANN001
        self.rows = 0

    def eval(self, batch, body):  # noqa: ANN001, ANN201
        self.rows += batch.num_rows
        return iter(())

    def terminate(self):  # noqa: ANN201
        import pyarrow as pa

        yield pa.table({"rows": pa.array([self.rows], pa.int64())})


def udtf_floor(df: DataFrame, query: str) -> DataFrame:
    """The udtf floor job: ``query`` (W1-UDTF's text) calling the counting UDTF instead
    of matchrec's table function."""
    from matchrec.runtime.udtf import arrow_udtf_with_analyze

    spark = df.sparkSession
    floor = arrow_udtf_with_analyze(CountingUDTF, UDTF_FLOOR_NAME, spark)  # as matchrec
    spark.udtf.register(UDTF_FLOOR_NAME, floor)
    return spark.sql(query.replace("match_recognize(", f"{UDTF_FLOOR_NAME}(", 1))
