"""Purchase funnel: view -> add to cart -> purchase within one hour.

Business question: for each user and product they looked at, how many times did they go
all the way from viewing it to buying it within an hour, and what was the fastest
conversion? Pairs that never converted are listed with 0.

Pattern: ``V+ C+ P WITHIN INTERVAL '1' HOUR`` per (user, product), in time order: one or
more views, one or more add-to-carts, then a purchase, with the purchase at most one hour
after the first view of the match. When a funnel started with an old view is too slow,
the match is tried again from the next view, so a late view that leads to a quick
purchase still counts. A purchase without a cart step ("buy now") is not this funnel.
The matches feed an ordinary LEFT JOIN (from every pair seen) and GROUP BY.

Run: ``python examples/funnel.py``
"""

from __future__ import annotations

from pathlib import Path

import matchrec

DATA = Path(__file__).resolve().parent / "data" / "shop_events.csv"
SCHEMA = "user_id STRING, product_id STRING, ts TIMESTAMP_NTZ, event STRING"

QUERY = """
SELECT pairs.user_id, pairs.product_id,
       count(funnels.purchased_at) AS completed_funnels,
       min(timestampdiff(MINUTE, funnels.first_view, funnels.purchased_at)) AS fastest_minutes
FROM (SELECT DISTINCT user_id, product_id FROM shop_events) AS pairs
LEFT JOIN (
  SELECT *
  FROM shop_events MATCH_RECOGNIZE (
    PARTITION BY user_id, product_id
    ORDER BY ts
    MEASURES
      FIRST(V.ts) AS first_view,
      P.ts AS purchased_at
    ONE ROW PER MATCH
    AFTER MATCH SKIP PAST LAST ROW
    PATTERN (V+ C+ P) WITHIN INTERVAL '1' HOUR
    DEFINE
      V AS event = 'view',
      C AS event = 'cart',
      P AS event = 'purchase'
  ) AS m
) AS funnels
  ON pairs.user_id = funnels.user_id AND pairs.product_id = funnels.product_id
GROUP BY pairs.user_id, pairs.product_id
ORDER BY pairs.user_id, pairs.product_id
"""


def main(spark=None):
    """Load the events into the view ``shop_events``, count funnels, print and return them."""
    if spark is None:
        from matchrec.runtime.session import get_spark

        spark = get_spark()
    events = spark.read.csv(str(DATA), header=True, schema=SCHEMA, mode="FAILFAST")
    events.createOrReplaceTempView("shop_events")
    result = matchrec.sql(spark, QUERY)
    result.show(truncate=False)
    return result


if __name__ == "__main__":
    main()
