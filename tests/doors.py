"""Run one MATCH_RECOGNIZE clause through a door of matchrec (tests only)."""

from __future__ import annotations

import pytest
from pyspark.sql import SparkSession

import matchrec
from matchrec.errors import MatchRecognizeError, MatchRuntimeError, SemanticError

#: the doors a clause over a view goes through: Spark SQL with the clause, and the table
#: function registered by ``matchrec.register``
DOORS = ["matchrec.sql", "table function"]


def rows_through(
    spark: SparkSession, door: str, view: str, body: str, columns: str = "*"
) -> list[tuple]:
    """The sorted output rows (``columns`` of them) of the clause ``body`` over ``view``
    through ``door``."""
    if door == "matchrec.sql":
        df = matchrec.sql(spark, f"SELECT {columns} FROM {view} MATCH_RECOGNIZE ({body})")
    else:
        quoted = body.replace("'", "''")
        df = spark.sql(f"SELECT {columns} FROM match_recognize(TABLE({view}), '{quoted}')")
    return sorted(tuple(r) for r in df.collect())


def pair_clause(condition: str, measures: str = "A.id AS a") -> str:
    """The clause of a match of each row A and the row B after it where ``condition``
    holds of B, one per row (``AFTER MATCH SKIP TO NEXT ROW``), ordered by ``id``: the
    rows Spark's self-join ``A JOIN B ON B.id = A.id + 1 WHERE condition`` gives."""
    return (
        f"ORDER BY id MEASURES {measures} AFTER MATCH SKIP TO NEXT ROW "
        f"PATTERN (A B) DEFINE B AS {condition}"
    )


def pair_join(
    spark: SparkSession, view: str, measures: str = "A.id AS a", condition: str = "true"
) -> list[tuple]:
    """Spark's sorted answer to :func:`pair_clause`: ``measures`` of each row A and the row
    B after it where ``condition`` holds, by a self-join of ``view``."""
    rows = spark.sql(
        f"SELECT {measures} FROM {view} A JOIN {view} B ON B.id = A.id + 1 WHERE {condition}"
    ).collect()
    return sorted(tuple(r) for r in rows)


def job_error(spark: SparkSession, view: str, condition: str) -> tuple[str, MatchRuntimeError]:
    """The query ``matchrec.sql`` runs for :func:`pair_clause` of ``condition`` over
    ``view``, and the error its job raises."""
    query = f"SELECT * FROM {view} MATCH_RECOGNIZE ({pair_clause(condition)})"
    with pytest.raises(MatchRuntimeError) as info:
        matchrec.sql(spark, query).collect()
    return query, info.value


def refusals(
    spark: SparkSession, source: str, body: str
) -> tuple[str, SemanticError, MatchRecognizeError]:
    """The errors both doors raise, before any job, for the clause ``body`` over
    ``source`` (a view's name in parentheses): the query given to ``matchrec.sql`` (the
    positions of its error are in it; the table function's are in ``body``), its error,
    and the table function's."""
    matchrec.register(spark)
    query = f"SELECT * FROM {source} MATCH_RECOGNIZE ({body})"
    with pytest.raises(SemanticError) as by_sql:
        matchrec.sql(spark, query).collect()
    literal = "'" + body.replace("'", "''") + "'"
    with pytest.raises(MatchRecognizeError) as by_function:
        spark.sql(f"SELECT * FROM match_recognize(TABLE{source}, {literal})").collect()
    return query, by_sql.value, by_function.value
