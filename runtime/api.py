"""The Spark entry points: ``matchrec.sql`` and ``matchrec.match_recognize``.

``sql`` finds every ``<relation> MATCH_RECOGNIZE (...) [AS alias]`` in a query, parses
and plans all of them first (so that a mistake anywhere is reported before any Spark job
runs), then replaces each, innermost first, by a temporary view of its result and hands
the rewritten query to ``spark.sql``.
"""

from __future__ import annotations

import itertools
import uuid

from matchrec.grammar import parse_clause
from matchrec.grammar.query_scan import Occurrence, find_match_recognize, with_prefix
from matchrec.planner.plan import plan_clause
from pyspark.sql import DataFrame, SparkSession

from matchrec.ast import MatchRecognizeClause
from matchrec.errors import MatchRecognizeError

from .batch import execute

_counter = itertools.count()


def match_recognize(df: DataFrame, clause: str) -> DataFrame:
    """Apply a MATCH_RECOGNIZE clause body (the text inside its parentheses) to ``df``."""
    parsed = parse_clause(clause)
    return run_clause(df, parsed)


def run_clause(df: DataFrame, clause: MatchRecognizeClause) -> DataFrame:
    """Plan ``clause`` against ``df``'s columns and build the result DataFrame."""
    plan = plan_clause(clause, df.columns)
    return execute(df, plan)


class _Rewriter:
    """Tracks how replacing spans of the query moved the offsets that come after them."""

    def __init__(self, sql: str):
        self.text = sql
        self.edits: list[tuple[int, int, int]] = []  # (original start, original end, new length)

    def at(self, pos: int) -> int:
        shift = 0
        for start, end, new_len in self.edits:
            if end <= pos:
                shift += new_len - (end - start)
        return pos + shift

    def replace(self, start: int, end: int, text: str) -> None:
        a, b = self.at(start), self.at(end)
        self.text = self.text[:a] + text + self.text[b:]
        self.edits.append((start, end, len(text)))


def sql(spark: SparkSession, query: str) -> DataFrame:
    """Run ``query`` with Spark SQL, MATCH_RECOGNIZE clauses included."""
    occurrences = find_match_recognize(query)
    if not occurrences:
        return spark.sql(query)
    clauses = [
        parse_clause(query[o.body_start : o.body_end], base=o.body_start, sql=query)
        for o in occurrences
    ]
    rewriter = _Rewriter(query)
    views: list[str] = []
    try:
        for occ, clause in zip(occurrences, clauses):
            relation = _relation(spark, rewriter, occ)
            result = run_clause(relation, clause)
            view = f"__matchrec_{uuid.uuid4().hex[:8]}_{next(_counter)}"
            result.createOrReplaceTempView(view)
            views.append(view)
            rewriter.replace(occ.relation_start, occ.body_end + 1, view)
        return spark.sql(rewriter.text)
    except MatchRecognizeError:
        raise
    finally:
        for view in views:
            spark.catalog.dropTempView(view)


def _relation(spark: SparkSession, rewriter: _Rewriter, occ: Occurrence) -> DataFrame:
    """The input DataFrame of one MATCH_RECOGNIZE, seeing the query's CTEs."""
    text = rewriter.text[rewriter.at(occ.relation_start) : rewriter.at(occ.relation_end)]
    prefix = with_prefix(rewriter.text)
    source = f"{text} AS __matchrec_input" if text.startswith("(") else text
    return spark.sql(f"{prefix} SELECT * FROM {source}")
