"""The main job: find V-shaped price moves in the sample ticker data shipped with matchrec.

Run it with ``matchrec demo``. It starts Spark in local mode, loads the CSV that ships
inside the package, runs one MATCH_RECOGNIZE query through ``matchrec.sql`` and prints
the matches.
"""

from __future__ import annotations

from importlib import resources

DEMO_QUERY = """\
SELECT *
FROM ticker MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY ts
  MEASURES
    FIRST(STRT.ts) AS start_ts,
    LAST(DOWN.ts) AS bottom_ts,
    LAST(UP.ts) AS end_ts,
    STRT.price AS start_price,
    LAST(DOWN.price) AS bottom_price,
    LAST(UP.price) AS end_price,
    count(*) AS minutes
  ONE ROW PER MATCH
  AFTER MATCH SKIP TO LAST UP
  PATTERN (STRT DOWN{2,} UP{2,})
  DEFINE
    DOWN AS price < PREV(price),
    UP AS price > PREV(price)
) AS m
ORDER BY symbol, start_ts
"""


def sample_path() -> str:
    """Path of the sample CSV shipped in the package."""
    return str(resources.files("matchrec.runtime").joinpath("data/ticker.csv"))


def run_demo(limit: int = 50) -> int:
    """Run the demo query and print its matches; returns the number of matches."""
    import matchrec

    from .session import get_spark

    spark = get_spark()
    spark.read.csv(
        sample_path(), header=True, schema="symbol STRING, ts TIMESTAMP, price DOUBLE, volume INT"
    ).createOrReplaceTempView("ticker")
    print(
        "-- sample data: 120 rows of minute prices for 3 symbols (matchrec/runtime/data/ticker.csv)"
    )
    print(DEMO_QUERY)
    result = matchrec.sql(spark, DEMO_QUERY)
    rows = result.collect()  # one job; the table below is printed from these rows
    spark.createDataFrame(rows, result.schema).show(limit, truncate=False)
    print(f"{len(rows)} V-shaped moves found")
    return len(rows)
