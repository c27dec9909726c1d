"""Expected values of aggregates over a match, from Spark's own window functions, and
the same measures through every door."""

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


def every_door(spark, view: str, measures: dict[str, str]) -> dict[str, list[tuple]]:
    """``measures`` (name -> expression) of one match per partition of ``view``
    (``PARTITION BY k ORDER BY o``, every row) through ``matchrec.sql``, the DataFrame
    door and the table function: each door's sorted rows, once all three schemas are
    asserted equal."""
    body = (
        "PARTITION BY k ORDER BY o MEASURES "
        + ", ".join(f"{m} AS {name}" for name, m in measures.items())
        + " PATTERN (A+) DEFINE A AS true"
    )
    frames = {
        "sql": matchrec.sql(spark, f"SELECT * FROM {view} MATCH_RECOGNIZE ({body})"),
        "df": matchrec.match_recognize(spark.table(view), body),
        "udtf": spark.sql(
            f"SELECT * FROM match_recognize(TABLE({view}), '" + body.replace("'", "''") + "')"
        ),
    }
    schemas = {door: frame.schema.simpleString() for door, frame in frames.items()}
    assert len(set(schemas.values())) == 1, schemas
    return {door: sorted(map(tuple, frame.collect())) for door, frame in frames.items()}
