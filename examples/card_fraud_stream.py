"""Card fraud on a live stream: three or more small payments, then a big one from another
country, within 10 minutes (Structured Streaming).

Business question: which cards are being tested with small payments before a large
fraudulent one, as the payments arrive? And which cards showed the small-payment run but
no big payment in time (an early warning)?

The same query text as in batch, on a streaming DataFrame: JSON files of payments arrive
in a folder one after another (rows within a file and across files slightly out of
order); the event time ``ts`` has a watermark of one minute. ``WITH TIMEOUTS`` adds a row
(``match_status`` TIMEOUT) for a run of small payments that WITHIN cut off, with the
measures of the rows matched so far. A payment that arrives later than the watermark is
dropped and counted (``late_rows``).

Expected alerts (data in ``data/card_payments/``, one file per arrival): c-1001 matches
(three small FR payments from 10:00, then 899.00 from the US at 10:05); c-1004 times out
(five small payments from 11:00, the big one only at 11:20, past the 10 minutes); c-1005
matches (three small IT payments from 12:00, 1500.00 from CA at 12:08). c-1002's big
payment comes from the same country, c-1003 has only two small ones; the c-1001 payment
in the fifth file is an hour behind the watermark: dropped and counted.

Run: ``python examples/card_fraud_stream.py``
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from matchrec.runtime.streaming import late_rows

import matchrec

PAYMENTS = Path(__file__).resolve().parent / "data" / "card_payments"
SCHEMA = "card STRING, ts TIMESTAMP, amount DOUBLE, country STRING"

QUERY = """
SELECT * FROM payments MATCH_RECOGNIZE (
  PARTITION BY card
  ORDER BY ts
  MEASURES FIRST(S.ts) AS first_ts, LAST(B.amount) AS big, count(S.*) AS smalls
  ONE ROW PER MATCH WITH TIMEOUTS
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (S{3,} B) WITHIN INTERVAL '10' MINUTE
  DEFINE
    S AS amount < 2,
    B AS amount > 500 AND country <> FIRST(S.country)
)
"""


def main(spark=None, workdir: str | None = None):
    """Stream the payment files through the query (one file per micro-batch), print the
    alerts, and return everything the stream wrote as a DataFrame."""
    if spark is None:
        from matchrec.runtime.session import get_spark

        spark = get_spark()
    root = Path(workdir or tempfile.mkdtemp(prefix="matchrec-fraud-"))
    inbox, out, checkpoint = root / "inbox", root / "alerts", root / "checkpoint"
    inbox.mkdir(parents=True, exist_ok=True)
    payments = (
        spark.readStream.schema(SCHEMA)
        .option("maxFilesPerTrigger", 1)
        .json(str(inbox))
        .withWatermark("ts", "1 minute")
    )
    payments.createOrReplaceTempView("payments")
    alerts = matchrec.sql(spark, QUERY)
    query = (
        alerts.writeStream.format("parquet")
        .option("path", str(out))
        .option("checkpointLocation", str(checkpoint))
        .start()
    )
    try:
        for file in sorted(PAYMENTS.glob("*.json")):
            shutil.copy(file, inbox / f".{file.name}")  # arrives whole: hidden, then renamed
            (inbox / f".{file.name}").rename(inbox / file.name)
            query.processAllAvailable()
        print(f"late payments dropped: {late_rows(query)}")
    finally:
        query.stop()
    result = spark.read.parquet(str(out)).orderBy("card", "first_ts")
    result.show(truncate=False)
    return result


if __name__ == "__main__":
    main()
