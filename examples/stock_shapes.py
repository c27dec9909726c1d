"""Stock chart shapes: V-shaped dips and W-shaped double bottoms, per symbol.

Business question: in a day of minute prices, where did a symbol fall and recover (a V),
and where did it test a low twice before breaking out (a W, "double bottom")?

Pattern: a tick is DOWN when its price is below the previous tick's, UP when above
(``PREV(price)``). A V is ``STRT DOWN{2,} UP{2,}``: some starting tick, at least two
ticks down, at least two up; one-tick wiggles are noise and a flat tick breaks a shape.
AFTER MATCH SKIP TO LAST UP lets the top of one V start the next, so back-to-back Vs are
all found. A W is ``STRT D1{2,} U1{2,} D2{2,} U2{2,}``: two Vs joined at the middle peak
(each W therefore also shows up as two Vs). Both clauses run in one query, joined with
UNION ALL.

Run: ``python examples/stock_shapes.py``
"""

from __future__ import annotations

from pathlib import Path

import matchrec

DATA = Path(__file__).resolve().parent / "data" / "stock_ticks.csv"
SCHEMA = "symbol STRING, ts TIMESTAMP_NTZ, price DOUBLE"

QUERY = """
SELECT symbol, 'V' AS shape, start_ts, bottom_ts,
       CAST(NULL AS TIMESTAMP_NTZ) AS second_bottom_ts, end_ts,
       start_price, low_price, end_price, ticks
FROM stock_ticks MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY ts
  MEASURES
    STRT.ts AS start_ts,
    LAST(DOWN.ts) AS bottom_ts,
    LAST(UP.ts) AS end_ts,
    STRT.price AS start_price,
    min(price) AS low_price,
    LAST(UP.price) AS end_price,
    count(*) AS ticks
  ONE ROW PER MATCH
  AFTER MATCH SKIP TO LAST UP
  PATTERN (STRT DOWN{2,} UP{2,})
  DEFINE
    DOWN AS price < PREV(price),
    UP AS price > PREV(price)
) AS v
UNION ALL
SELECT symbol, 'W' AS shape, start_ts, bottom_ts, second_bottom_ts, end_ts,
       start_price, low_price, end_price, ticks
FROM stock_ticks MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY ts
  MEASURES
    STRT.ts AS start_ts,
    LAST(D1.ts) AS bottom_ts,
    LAST(D2.ts) AS second_bottom_ts,
    LAST(U2.ts) AS end_ts,
    STRT.price AS start_price,
    min(price) AS low_price,
    LAST(U2.price) AS end_price,
    count(*) AS ticks
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (STRT D1{2,} U1{2,} D2{2,} U2{2,})
  DEFINE
    D1 AS price < PREV(price),
    U1 AS price > PREV(price),
    D2 AS price < PREV(price),
    U2 AS price > PREV(price)
) AS w
ORDER BY symbol, start_ts, shape
"""


def main(spark=None):
    """Load the ticks into the view ``stock_ticks``, find the shapes, print and return them."""
    if spark is None:
        from matchrec.runtime.session import get_spark

        spark = get_spark()
    ticks = spark.read.csv(str(DATA), header=True, schema=SCHEMA, mode="FAILFAST")
    ticks.createOrReplaceTempView("stock_ticks")
    result = matchrec.sql(spark, QUERY)
    result.show(truncate=False)
    return result


if __name__ == "__main__":
    main()
