"""matchrec: SQL:2016 row pattern recognition (MATCH_RECOGNIZE) for Apache Spark.

The core (grammar, planner, NFA matcher) never imports Spark; the Spark entry points
below load the runtime only when called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from matchrec.errors import (
    MatchRecognizeError,
    MatchRuntimeError,
    SemanticError,
    SqlSyntaxError,
    UnsupportedError,
)

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__version__ = "0.1.0"

__all__ = [
    "MatchRecognizeError",
    "MatchRuntimeError",
    "SemanticError",
    "SqlSyntaxError",
    "UnsupportedError",
    "match_recognize",
    "register",
    "sql",
]


def sql(spark: SparkSession, query: str) -> DataFrame:
    """Run a Spark SQL query whose FROM clauses may hold ``MATCH_RECOGNIZE``."""
    from matchrec.runtime.api import sql as _sql

    return _sql(spark, query)


def match_recognize(df: DataFrame, clause: str) -> DataFrame:
    """Apply the body of a MATCH_RECOGNIZE clause (the text inside its parentheses) to ``df``."""
    from matchrec.runtime.api import match_recognize as _mr

    return _mr(df, clause)


def register(spark: SparkSession, name: str = "match_recognize") -> Any:
    """Register the SQL table function ``match_recognize(TABLE(t), '<clause body>')``."""
    from matchrec.runtime.udtf import register as _register

    return _register(spark, name)
