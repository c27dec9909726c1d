"""IoT: a sensor above its threshold continuously for at least five minutes.

Business question: which boilers ran hot (above 80 degrees C) without a break for five
minutes or more, when, for how long, and how hot did they get? Short spikes are noise.

Pattern: ``H+`` per sensor, in time order, with ``H AS temp_c > 80.0``: a maximal run of
consecutive hot readings (greedy ``+``, SKIP PAST LAST ROW), one row per run. A reading
of exactly 80.0, or a missing reading (NULL: the condition is not true), ends the run.
The outer WHERE keeps the runs whose first and last readings are at least five minutes
apart.

Run: ``python examples/sensor_threshold.py``
"""

from __future__ import annotations

from pathlib import Path

import matchrec

DATA = Path(__file__).resolve().parent / "data" / "sensor_readings.csv"
SCHEMA = "sensor_id STRING, ts TIMESTAMP_NTZ, temp_c DOUBLE"

QUERY = """
SELECT sensor_id, start_ts, end_ts,
       timestampdiff(MINUTE, start_ts, end_ts) AS minutes, readings, peak_c
FROM sensor_readings MATCH_RECOGNIZE (
  PARTITION BY sensor_id
  ORDER BY ts
  MEASURES
    FIRST(H.ts) AS start_ts,
    LAST(H.ts) AS end_ts,
    count(*) AS readings,
    max(H.temp_c) AS peak_c
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (H+)
  DEFINE H AS temp_c > 80.0
) AS m
WHERE end_ts >= start_ts + INTERVAL 5 MINUTES
ORDER BY sensor_id, start_ts
"""


def main(spark=None):
    """Load the readings into the view ``sensor_readings``, find hot runs, print, return them."""
    if spark is None:
        from matchrec.runtime.session import get_spark

        spark = get_spark()
    readings = spark.read.csv(str(DATA), header=True, schema=SCHEMA, mode="FAILFAST")
    readings.createOrReplaceTempView("sensor_readings")
    result = matchrec.sql(spark, QUERY)
    result.show(truncate=False)
    return result


if __name__ == "__main__":
    main()
