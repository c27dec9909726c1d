"""Account takeover alerts: three or more failed sign-ins, then a success, within 10 minutes.

Business question: which accounts were probably broken into by guessing passwords, when,
and from how many addresses did the guesses come?

Pattern: ``F{3,} S WITHIN INTERVAL '10' MINUTE`` per account, in time order: at least
three failures in a row, then a success, the success at most ten minutes after the first
failure of the match. A success between failures resets the count (the rows must be
consecutive). When a long run of failures spreads over more than ten minutes, the match
starts at the earliest failure from which the success is still in time. Aggregates over
the ``F`` rows count the failures and their distinct IP addresses.

Run: ``python examples/failed_logins.py``
"""

from __future__ import annotations

from pathlib import Path

import matchrec

DATA = Path(__file__).resolve().parent / "data" / "login_attempts.csv"
SCHEMA = "account STRING, ts TIMESTAMP_NTZ, outcome STRING, ip STRING"

QUERY = """
SELECT account, first_fail, success_at, failures, distinct_ips, success_ip
FROM login_attempts MATCH_RECOGNIZE (
  PARTITION BY account
  ORDER BY ts
  MEASURES
    FIRST(F.ts) AS first_fail,
    S.ts AS success_at,
    count(F.ts) AS failures,
    size(collect_set(F.ip)) AS distinct_ips,
    S.ip AS success_ip
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (F{3,} S) WITHIN INTERVAL '10' MINUTE
  DEFINE
    F AS outcome = 'FAIL',
    S AS outcome = 'SUCCESS'
) AS m
ORDER BY account, first_fail
"""


def main(spark=None):
    """Load the attempts into the view ``login_attempts``, find alerts, print and return them."""
    if spark is None:
        from matchrec.runtime.session import get_spark

        spark = get_spark()
    attempts = spark.read.csv(str(DATA), header=True, schema=SCHEMA, mode="FAILFAST")
    attempts.createOrReplaceTempView("login_attempts")
    result = matchrec.sql(spark, QUERY)
    result.show(truncate=False)
    return result


if __name__ == "__main__":
    main()
