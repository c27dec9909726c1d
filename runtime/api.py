"""The Spark entry points: ``matchrec.sql`` and ``matchrec.match_recognize``.

``sql`` finds every ``<relation> MATCH_RECOGNIZE (...) [AS alias]`` in a query, parses
and plans all of them first (so that a mistake anywhere is reported before any Spark job
runs), then replaces each, innermost first, by a temporary view of its result and hands
the rewritten query to ``spark.sql``.

:func:`planned_clauses` is that shared step without the final ``spark.sql``: ``explain``
uses it to show what ``sql`` would run, without running anything.
"""

from __future__ import annotations

import itertools
import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from matchrec.grammar import parse_clause
from matchrec.grammar.parser import parse_dynamic
from matchrec.grammar.query_scan import Occurrence, find_match_recognize, with_prefix
from matchrec.planner.plan import MatchPlan, plan_clause
from pyspark.errors import AnalysisException
from pyspark.sql import DataFrame, SparkSession

from matchrec.ast import DynamicClause, MatchRecognizeClause
from matchrec.errors import SemanticError

from .batch import execute
from .cluster import check, ship
from .dynamic import match_recognize_dynamic

_counter = itertools.count()


def match_recognize(df: DataFrame, clause: str) -> DataFrame:
    """Apply a MATCH_RECOGNIZE clause body (the text inside its parentheses) to ``df``."""
    parsed = parse_clause(clause)
    return run_clause(df, parsed)


def run_clause(df: DataFrame, clause: MatchRecognizeClause) -> DataFrame:
    """Plan ``clause`` against ``df``'s columns and build the result DataFrame."""
    plan = plan_clause(clause, df.columns, windows=not df.isStreaming)
    ship(df.sparkSession)  # on a cluster: before the job's functions are built
    result = execute(df, plan)
    check(df.sparkSession)  # on a cluster: the executors can run it (once per session)
    return result


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


@dataclass(frozen=True)
class PlannedClause:
    """One MATCH_RECOGNIZE of a query as :func:`sql` builds it (nothing has run yet)."""

    occurrence: Occurrence  # where it is in the query
    clause: MatchRecognizeClause | DynamicClause  # parsed
    input: DataFrame  # its input relation (inner clauses already replaced by their views)
    plan: MatchPlan | None  # None for MATCH_RECOGNIZE_DYNAMIC (its rules are planned later)
    result: DataFrame  # the DataFrame the runtime builds for it
    view: str  # the temporary view that stands for ``result`` in ``rewritten``


@dataclass(frozen=True)
class PlannedQuery:
    """All MATCH_RECOGNIZE clauses of a query, planned, and the query rewritten to read
    their views; see :func:`planned_clauses`."""

    clauses: list[PlannedClause]
    rewritten: str


def sql(spark: SparkSession, query: str) -> DataFrame:
    """Run ``query`` with Spark SQL, MATCH_RECOGNIZE clauses included."""
    with planned_clauses(spark, query) as planned:
        if planned.clauses:
            check(spark)  # on a cluster: the executors can run it (once per session)
        return spark.sql(planned.rewritten)


@contextmanager
def planned_clauses(spark: SparkSession, query: str) -> Iterator[PlannedQuery]:
    """Find, parse and plan every MATCH_RECOGNIZE of ``query`` and build its DataFrame.

    Every clause is parsed before any is planned, so a syntax error anywhere is reported
    first. Each result is registered as a temporary view (innermost first, so an outer
    clause reads it) that lives until the ``with`` block ends; the rewritten query, run
    by ``spark.sql`` inside the block, is the user's query. Only analysis happens here:
    no Spark job runs.
    """
    occurrences = find_match_recognize(query)
    clauses = [
        (parse_dynamic if o.dynamic else parse_clause)(
            query[o.body_start : o.body_end], base=o.body_start, sql=query
        )
        for o in occurrences
    ]
    if clauses:
        ship(spark)  # on a cluster: before the job's functions are built
    rewriter = _Rewriter(query)
    planned: list[PlannedClause] = []
    try:
        for occ, clause in zip(occurrences, clauses):
            relation = _relation(spark, rewriter, occ)
            if isinstance(clause, DynamicClause):
                plan = None
                result = _dynamic(spark, rewriter, relation, clause)
            else:
                plan = plan_clause(clause, relation.columns, windows=not relation.isStreaming)
                result = execute(relation, plan)
            view = f"__matchrec_{uuid.uuid4().hex[:8]}_{next(_counter)}"
            result.createOrReplaceTempView(view)
            planned.append(PlannedClause(occ, clause, relation, plan, result, view))
            rewriter.replace(occ.relation_start, occ.body_end + 1, view)
        yield PlannedQuery(planned, rewriter.text)
    finally:
        for step in planned:
            spark.catalog.dropTempView(step.view)


_TABLE_NAME = re.compile(
    r"^(?:[A-Za-z_][A-Za-z0-9_]*|`(?:[^`]|``)+`)(?:\.(?:[A-Za-z_][A-Za-z0-9_]*|`(?:[^`]|``)+`))*$"
)


def _dynamic(
    spark: SparkSession, rewriter: _Rewriter, relation: DataFrame, clause: DynamicClause
) -> DataFrame:
    """The DataFrame of one MATCH_RECOGNIZE_DYNAMIC: its rule table read as a table or
    view of the query (a streaming view streams the rules)."""
    name = clause.rules.text.strip()
    if not _TABLE_NAME.match(name):
        raise SemanticError(
            f"RULES FROM takes the name of a table or view, not {name!r}",
            sql=clause.sql,
            pos=clause.rules.pos,
            hint="create a view of the rules first, e.g. CREATE TEMP VIEW rules AS SELECT ...",
        )
    prefix = with_prefix(rewriter.text, before=len(rewriter.text))
    try:
        rules = spark.sql(f"{prefix} SELECT * FROM {name}")
    except AnalysisException:
        raise SemanticError(
            f"no table or view {name!r} for RULES FROM",
            sql=clause.sql,
            pos=clause.rules.pos,
            hint="create it (a table, a temporary view, or a streaming view to change rules "
            "while a stream runs)",
        ) from None
    keys = None
    if clause.key_sets is not None:
        keys = [[k.text for k in key_set] for key_set in clause.key_sets]
    return match_recognize_dynamic(
        relation,
        rules,
        keys=keys,
        on_error=clause.on_error,
        sql=clause.sql,
        pos=clause.rules.pos,
    )


def _relation(spark: SparkSession, rewriter: _Rewriter, occ: Occurrence) -> DataFrame:
    """The input DataFrame of one MATCH_RECOGNIZE, seeing the query's CTEs."""
    start = rewriter.at(occ.relation_start)
    text = rewriter.text[start : rewriter.at(occ.relation_end)]
    prefix = with_prefix(rewriter.text, before=start)
    source = f"{text} AS __matchrec_input" if text.startswith("(") else text
    return spark.sql(f"{prefix} SELECT * FROM {source}")
