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


def whole_partition_window(spark, view: str, measures: dict[str, str]) -> list[tuple]:
    """``measures`` (name -> aggregate) over each whole partition of ``view`` (``k``,
    ordered by ``o``) from Spark's window, one row per partition (its first row's: a
    DISTINCT would make -0.0 0.0), as text-sortable tuples in ``repr`` order."""
    windows = ", ".join(
        f"{m} OVER (PARTITION BY k ORDER BY o ROWS BETWEEN UNBOUNDED PRECEDING "
        f"AND UNBOUNDED FOLLOWING) AS {name}"
        for name, m in measures.items()
    )
    rows = spark.sql(
        f"SELECT * EXCEPT (o, first) FROM (SELECT k, o, min(o) OVER (PARTITION BY k) AS "
        f"first, {windows} FROM {view}) WHERE o = first"
    ).collect()
    return sorted(map(tuple, rows), key=repr)
