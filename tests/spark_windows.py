"""Expected values of aggregates over a match, from Spark's own window functions."""

from __future__ import annotations

import matchrec


def running_and_window(spark, view: str, aggregate: str, semantics: str):
    """``aggregate`` over each partition's rows so far (RUNNING) or all of them (FINAL),
    as text: from MEASURES of one match per partition (``PARTITION BY k ORDER BY o``), and
    from Spark's window over the same rows."""
    frame = "CURRENT ROW" if semantics == "RUNNING" else "UNBOUNDED FOLLOWING"
    expected = spark.sql(
        f"""SELECT k, o, {aggregate} OVER (PARTITION BY k ORDER BY o
                                 ROWS BETWEEN UNBOUNDED PRECEDING AND {frame}) AS v
            FROM {view}"""
    )
    got = matchrec.sql(
        spark,
        f"""SELECT k, o, v FROM {view} MATCH_RECOGNIZE (PARTITION BY k ORDER BY o
              MEASURES {semantics} {aggregate} AS v ALL ROWS PER MATCH
              PATTERN (A+) DEFINE A AS true)""",
    )
    return sorted(map(str, got.collect())), sorted(map(str, expected.collect()))
