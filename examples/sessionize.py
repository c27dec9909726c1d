"""Web sessionization: cut each user's click stream into sessions.

Business question: how many visits did each user make, how long and how busy was each,
and did it end with a purchase? A session ends after more than 30 minutes of silence, or
right after a checkout (the next click starts a new visit).

Pattern: ``S N*`` per user, in time order. ``S`` (undefined, so any event) opens a
session; ``N`` continues it while the event comes at most 30 minutes after the previous
one (``ts <= PREV(ts) + INTERVAL 30 MINUTES``) and the previous event was not a checkout
(``PREV(action) <> 'checkout'``). ``N*`` is greedy, so a session takes every event it
can; the first event that fails ``N`` starts the next match. MATCH_NUMBER() numbers the
sessions of each user. Every event belongs to exactly one session.

Run: ``python examples/sessionize.py``
"""

from __future__ import annotations

from pathlib import Path

import matchrec

DATA = Path(__file__).resolve().parent / "data" / "web_clicks.csv"
SCHEMA = "user_id STRING, ts TIMESTAMP_NTZ, action STRING, page STRING"

QUERY = """
SELECT user_id, session_no, session_start, session_end, events,
       timestampdiff(MINUTE, session_start, session_end) AS minutes, checked_out
FROM web_clicks MATCH_RECOGNIZE (
  PARTITION BY user_id
  ORDER BY ts
  MEASURES
    MATCH_NUMBER() AS session_no,
    FIRST(ts) AS session_start,
    LAST(ts) AS session_end,
    count(*) AS events,
    LAST(action) = 'checkout' AS checked_out
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (S N*)
  DEFINE
    N AS ts <= PREV(ts) + INTERVAL 30 MINUTES AND PREV(action) <> 'checkout'
) AS m
ORDER BY user_id, session_no
"""


def main(spark=None):
    """Load the clicks into the view ``web_clicks``, sessionize, print and return the sessions."""
    if spark is None:
        from matchrec.runtime.session import get_spark

        spark = get_spark()
    clicks = spark.read.csv(str(DATA), header=True, schema=SCHEMA, mode="FAILFAST")
    clicks.createOrReplaceTempView("web_clicks")
    result = matchrec.sql(spark, QUERY)
    result.show(truncate=False)
    return result


if __name__ == "__main__":
    main()
