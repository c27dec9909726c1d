"""Run one MATCH_RECOGNIZE clause through a door of matchrec (tests only)."""

from __future__ import annotations

from pyspark.sql import SparkSession

import matchrec

#: the doors a clause over a view goes through: Spark SQL with the clause, and the table
#: function registered by ``matchrec.register``
DOORS = ["matchrec.sql", "table function"]


def rows_through(spark: SparkSession, door: str, view: str, body: str) -> list[tuple]:
    """The sorted output rows of the clause ``body`` over ``view`` through ``door``."""
    if door == "matchrec.sql":
        df = matchrec.sql(spark, f"SELECT * FROM {view} MATCH_RECOGNIZE ({body})")
    else:
        quoted = body.replace("'", "''")
        df = spark.sql(f"SELECT * FROM match_recognize(TABLE({view}), '{quoted}')")
    return sorted(tuple(r) for r in df.collect())
