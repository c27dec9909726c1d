"""The Spark entry points: ``matchrec.sql`` and ``matchrec.match_recognize``.

``sql`` finds every ``<relation> MATCH_RECOGNIZE (...) [AS alias]`` in a query, parses
and plans all of them first (so that a mistake anywhere is reported before any Spark job
runs), then replaces each, innermost first, by a name that stands for its result and
hands the rewritten query to ``spark.sql`` with those results passed by reference
(``spark.sql("... {name} ...", name=df)``).

Passing DataFrames by reference, not through temporary views, is what makes the same
code work on Spark Connect: there a DataFrame is a plan that the server analyses again
at every action, so a view dropped after ``spark.sql`` returned would be missing then;
a referenced DataFrame travels inside the query's plan. (Classic PySpark registers such
references as temporary views for the duration of the ``spark.sql`` call itself.)

:func:`planned_clauses` is that shared step without the final ``spark.sql``: ``explain``
uses it to show what ``sql`` would run, without running anything.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import sys
import uuid
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from matchrec.planner.close_names import close_match
from matchrec.planner.plan import (
    MatchPlan,
    check_output_columns,
    plan_clause,
    refuse_misspelled_order,
)
from matchrec.planner.sql_functions import DescribedFunction, UnknownFunction
from matchrec.planner.sqltext import (
    backslash_error,
    backslash_string,
    double_quoted_identifiers,
    quote,
    statement_ctes,
)
from matchrec.planner.statement import (
    Occurrence,
    TempView,
    clause_bodies,
    cte_scope,
    in_lateral,
    read_body,
    read_statement,
    read_temp_view,
    refuse_empty_query,
    visible_ctes,
)
from matchrec.planner.window_query import WindowQuery, read_windows, window_order_text
from pyspark.errors import AnalysisException, PySparkException
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from matchrec import ast
from matchrec.ast import DynamicClause, MatchRecognizeClause
from matchrec.errors import (
    ARBITRARY_ORDER,
    ArbitraryOrderWarning,
    MatchRecognizeError,
    SemanticError,
    line_col,
)
from matchrec.excepthook import carried_rebuilt

from . import session_variables
from .arguments import check_argument
from .batch import analysed, execute, first_line
from .cluster import check, ship
from .dynamic import match_recognize_dynamic
from .expression_origins import remember_query
from .pattern_probes import session_pattern_check
from .python_udfs import session_python_function
from .query_args import QueryArguments, bound, formatted
from .session import (
    DOUBLE_QUOTED_IDENTIFIERS_CONF,
    ESCAPED_STRING_LITERALS_CONF,
    ansi_enabled,
    describe_function,
    is_connect,
    quiet_analysis,
    session_flag,
)
from .spark_errors import literal_error, seen_text, translated, window_call_error
from .stream_modes import refuse_unrunnable_stream
from .type_text import type_text
from .window_group import grouped_error
from .window_join import JoinedInput, joined_input
from .worker_errors import as_query_error
from .worker_errors import install as tell_worker_errors

_counter = itertools.count()


def match_recognize(df: DataFrame, clause: str) -> DataFrame:
    """Apply a MATCH_RECOGNIZE clause body (the text inside its parentheses) to ``df``."""
    check_argument("match_recognize", "df", df, DataFrame)
    check_argument("match_recognize", "clause", clause, str)
    tell_worker_errors()
    with _as_query_errors():
        parsed = read_body(clause)
        return run_clause(df, parsed)


@contextmanager
def _as_query_errors() -> Iterator[None]:
    """A fault of the query found while it is built, raised as also PySpark's class of it
    (``worker_errors.as_query_error``)."""
    try:
        yield
    except MatchRecognizeError as err:
        converted = as_query_error(err)
        if converted is err:
            raise
        raise converted from None


def run_clause(df: DataFrame, clause: MatchRecognizeClause) -> DataFrame:
    """Plan ``clause`` against ``df``'s columns and build the result DataFrame."""
    with _literal_errors_told(clause):
        plan = _plan(clause, df)
        ship(df.sparkSession)  # on a cluster: before the job's functions are built
        result = execute(df, plan)
    check(df.sparkSession)  # on a cluster: the executors can run it (once per session)
    return result


@contextmanager
def _literal_errors_told(clause: MatchRecognizeClause) -> Iterator[None]:
    """Spark's parser error about a literal of DEFINE or MEASURES (an interval it cannot
    read, a number no DECIMAL holds: ``spark_errors.literal_error``), which names no
    place, as our error at the literal."""
    try:
        yield
    except PySparkException as exc:
        told = literal_error(exc, clause.sql, (0, len(clause.sql)))
        if told is None:
            raise
        raise told from None


def _refuse_backslash_strings(clause: MatchRecognizeClause) -> None:
    """Under ``spark.sql.parser.escapedStringLiterals`` Spark reads ``'^\\w$'`` as written;
    DEFINE and MEASURES read a backslash as an escape, as Spark does by default: a string
    literal with one is an error (it would match other rows), not another query's rows."""
    exprs = [m.expr for m in clause.measures] + [d.expr for d in clause.defines]
    for expr in exprs:
        at = backslash_string(expr.text)
        if at is not None:
            raise backslash_error(clause.sql, expr.pos + at)


def _plan(
    clause: MatchRecognizeClause, relation: DataFrame, qualifier: str | None = None
) -> MatchPlan:
    """``plan_clause`` over ``relation``'s columns (``qualifier``: the name that may
    qualify them in PARTITION BY and ORDER BY); a clause without ORDER BY is legal on a
    table, but warned about (:class:`ArbitraryOrderWarning`)."""
    ansi = ansi_enabled(relation.sparkSession)
    if session_flag(relation.sparkSession, ESCAPED_STRING_LITERALS_CONF):
        _refuse_backslash_strings(clause)
    dq = session_flag(relation.sparkSession, DOUBLE_QUOTED_IDENTIFIERS_CONF)
    with double_quoted_identifiers(dq), _session_variables_named(relation.sparkSession):
        plan = plan_clause(
            clause,
            relation.columns,
            windows=not relation.isStreaming,
            ansi=ansi,
            qualifier=qualifier,
            sql_functions=session_sql_function(relation.sparkSession),
            python_functions=session_python_function(relation.sparkSession),
            column_types={f.name: type_text(f.dataType) for f in relation.schema.fields},
            pattern_check=session_pattern_check(relation.sparkSession),
            session_variable=session_variables.variable_lookup(relation.sparkSession),
        )
    check_output_columns(clause)
    if not plan.order_by and not relation.isStreaming:  # a stream refuses it, said later
        where = ""
        if clause.sql and clause.pattern_pos >= 0:
            line, column = line_col(clause.sql, clause.pattern_pos)
            where = f" (its PATTERN at line {line}, column {column})"
        warnings.warn(
            f"MATCH_RECOGNIZE without ORDER BY{where}: {ARBITRARY_ORDER}",
            ArbitraryOrderWarning,
            stacklevel=_user_frame(),
        )
    return plan


@contextmanager
def _session_variables_named(spark: SparkSession) -> Iterator[None]:
    """A name the planner cannot resolve that is a session variable: said so."""
    try:
        yield
    except SemanticError as err:
        raise session_variables.explained(spark, err) from None


def session_sql_function(spark: SparkSession) -> Callable[[str], DescribedFunction | None]:
    """Looks a function up in ``spark`` (Spark's ``DESCRIBE FUNCTION EXTENDED``): a SQL
    UDF's ``Input:`` lines, ``Body:``, ``Returns:`` type and the ``Configs:`` captured at
    its creation that the session now has otherwise; None for anything else (a built-in
    function, a Python UDF, an unknown name). Asked only for calls DEFINE's glue cannot
    run on values from several rows."""

    def lookup(name: str) -> DescribedFunction | None:
        try:
            lines = describe_function(spark, name)
        except Exception as err:  # noqa: BLE001 - the planner reports the call
            if getattr(err, "getCondition", lambda: None)() == "UNRESOLVED_ROUTINE":
                raise UnknownFunction(first_line(err), _close_function(spark, name)) from None
            return None
        sections: dict[str, list[str]] = {}
        section = ""
        for line in lines:
            head, _, rest = line.partition(":")
            if head and not head.startswith(" ") and rest:
                section = head.strip()
                value = rest.strip()
            else:
                value = line.strip()
            if value:
                sections.setdefault(section, []).append(value)
        body = " ".join(sections.get("Body", []))
        if not body or sections.get("Type", ["SCALAR"])[0] != "SCALAR":
            return None
        returns = sections.get("Returns", [None])[0]
        return DescribedFunction(
            sections.get("Input", []), body, returns, _changed_settings(spark, sections)
        )

    return lookup


def _changed_settings(spark: SparkSession, sections: dict[str, list[str]]) -> tuple[str, ...]:
    """Each setting a SQL UDF captured at its creation (``Configs:``) that bears on its
    value and that the session now has otherwise, as ``key=value (the session has v)``."""
    changed = []
    for setting in sections.get("Configs", []):
        key, _, value = setting.partition("=")
        if key.startswith("spark.sql.artifact."):
            continue  # where the function's classes come from, not how it computes
        try:
            now = spark.conf.get(key)  # (a setting never set: its default, as Spark reads it)
        except Exception:  # noqa: BLE001 - a key this Spark does not know: no bearing here
            continue
        if now is not None and now.lower() != value.lower():
            changed.append(f"{key}={value} (the session has {now})")
    return tuple(changed)


def _close_function(spark: SparkSession, name: str) -> str | None:
    """The name of the session's functions closest to ``name`` (a typo's), if any."""
    names = [r[0] for r in spark.sql("SHOW FUNCTIONS").collect()]
    close = close_match(name, names)
    return None if close is None else close.lower()


def _user_frame() -> int:
    """The ``stacklevel`` of the first caller outside matchrec (and the context managers
    it runs in), so that a warning names the user's line."""
    ours = tuple(
        os.path.join(folder, "")
        for name in ("matchrec", "matchrec.runtime", "matchrec.planner", "matchrec.grammar")
        if name in sys.modules
        for folder in getattr(sys.modules[name], "__path__", ())
    ) + (contextlib.__file__,)
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(ours):
        frame, level = frame.f_back, level + 1
    return level


class _Rewriter:
    """Tracks how replacing spans of the query moved the offsets that come after them."""

    def __init__(self, sql: str):
        self.text = sql
        self.edits: list[tuple[int, int, int]] = []  # (original start, original end, new length)
        # a column of ours that stands for a call over a window -> the call's span in ``sql``
        self.calls: dict[str, tuple[int, int]] = {}

    def at(self, pos: int) -> int:
        shift = 0
        for start, end, new_len in self.edits:
            if end <= pos:
                shift += new_len - (end - start)
        return pos + shift

    def replace(self, start: int, end: int, text: str) -> None:
        a, b = self.at(start), self.at(end)
        self.text = self.text[:a] + text + self.text[b:]
        # edits inside this one are gone with the text they made: only the length of
        # this replacement counts from now on (else their shift would count twice)
        self.edits = [e for e in self.edits if not (start <= e[0] and e[1] <= end)]
        self.edits.append((start, end, len(text)))


@dataclass(frozen=True)
class PlannedClause:
    """One MATCH_RECOGNIZE of a query as :func:`sql` builds it (nothing has run yet)."""

    occurrence: Occurrence  # where it is in the query
    clause: MatchRecognizeClause | DynamicClause  # parsed
    input: DataFrame  # its input relation (inner clauses already replaced by their views)
    plan: MatchPlan | None  # None for MATCH_RECOGNIZE_DYNAMIC (its rules are planned later)
    result: DataFrame  # the DataFrame the runtime builds for it
    view: str  # the name that stands for ``result`` in ``rewritten``
    window: bool = False  # a window with a row pattern (its SELECT was rewritten)


@dataclass(frozen=True)
class PlannedQuery:
    """All MATCH_RECOGNIZE clauses of a query, planned, and the query rewritten to read
    their results by name; see :func:`planned_clauses`."""

    clauses: list[PlannedClause]
    rewritten: str
    #: the DataFrames the user's query names (``spark.sql``'s keyword arguments)
    inputs: dict[str, DataFrame] = field(default_factory=dict)
    #: the column that stands for each call over a window -> the call's span in the query
    window_calls: dict[str, tuple[int, int]] = field(default_factory=dict)

    def dataframe(self, spark: SparkSession) -> DataFrame:
        """``spark.sql`` of the rewritten query, each clause's result (and each DataFrame
        of ``inputs``) passed by reference."""
        frames = {**self.inputs, **{c.view: c.result for c in self.clauses}}
        return sql_with_frames(spark, self.rewritten, frames)


def sql(
    spark: SparkSession,
    query: str,
    args: dict[str, Any] | list[Any] | None = None,
    **kwargs: Any,
) -> DataFrame:
    """Run ``query`` with Spark SQL, MATCH_RECOGNIZE clauses included; ``args`` and
    ``kwargs`` as ``spark.sql`` takes them.

    ``kwargs`` format ``query`` first (``{name}``: a DataFrame is read by reference, a
    Column is its name, a string a quoted literal; braces meant as text are doubled, a
    pattern's ``A{{2,3}}`` too), then ``args`` binds its parameter markers, a dict the
    ``:name`` ones, a list the ``?`` ones, anywhere in the query, the clause included. A
    query without MATCH_RECOGNIZE goes to ``spark.sql`` as it is.

    A matchrec error that Spark reports from a Python worker while analysing the query
    (the ``match_recognize`` table function's ``analyze``) is raised as that error, its
    caret in ``query``, instead of Spark's error that quotes it after a traceback.
    """
    check_argument("sql", "spark", spark, SparkSession)
    check_argument("sql", "query", query, str)
    tell_worker_errors()  # the job's errors of a match: raised as matchrec's, caret first
    with _as_query_errors():
        arguments = prepared(spark, query, args, kwargs)
        if arguments is None:
            return _spark_sql(spark, query, args, kwargs)
        with placed_errors(arguments), viewed_in_bodies(spark, arguments):
            return _sql(spark, arguments.text, arguments.frames)


def prepared(
    spark: SparkSession, query: str, args: dict | list | None, kwargs: dict[str, Any]
) -> QueryArguments | None:
    """``query`` formatted with ``kwargs`` and bound to ``args`` as :func:`sql` takes them,
    or None when it holds no MATCH_RECOGNIZE (``spark.sql`` takes it as it is)."""
    refuse_empty_query(query)
    arguments = QueryArguments(query, query)
    if kwargs:
        arguments = formatted(spark, query, kwargs)  # its errors are about ``query``
    with placed_errors(arguments):
        if not clause_bodies(arguments.text):
            return None
        return bound(arguments, spark, args)


@contextmanager
def placed_errors(arguments: QueryArguments) -> Iterator[None]:
    """A matchrec error about ``arguments.text`` raised with its caret in the user's query."""
    try:
        yield
    except MatchRecognizeError as err:
        placed = arguments.placed(err)
        if placed is err:
            raise
        raise placed from None


@contextmanager
def viewed_in_bodies(spark: SparkSession, arguments: QueryArguments) -> Iterator[None]:
    """The DataFrames of ``arguments`` that a clause body names (a subquery of DEFINE or
    MEASURES, which Spark analyses in ``selectExpr``, not in ``spark.sql``) as temporary
    views under their names while the query is built, as PySpark's ``spark.sql`` views
    them while it runs; on Spark Connect, which analyses later, they stay registered."""
    bodies = [arguments.text[a:b] for a, b in clause_bodies(arguments.text)]
    named = [n for n in arguments.frames if any(re.search(rf"\b{n}\b", b) for b in bodies)]
    for name in named:
        arguments.frames[name].createOrReplaceTempView(name)
    try:
        yield
    finally:
        if not is_connect(spark):
            for name in named:
                spark.catalog.dropTempView(name)


def _spark_sql(
    spark: SparkSession, query: str, args: dict | list | None, kwargs: dict[str, Any]
) -> DataFrame:
    """``spark.sql(query, args, **kwargs)`` of a query without MATCH_RECOGNIZE, analysed;
    a matchrec error carried in Spark's (the table function's) raised as itself."""
    try:
        return analysed(spark.sql(query, args, **kwargs))
    except PySparkException as exc:
        error = carried_rebuilt(exc, query)
        if error is None:
            raise
        raise error from None


def _sql(spark: SparkSession, query: str, inputs: dict[str, DataFrame]) -> DataFrame:
    """:func:`sql` of ``query`` (formatted and bound), which holds MATCH_RECOGNIZE; the
    names of ``inputs`` in it stand for those DataFrames."""
    with planned_clauses(spark, query, inputs) as planned:
        if planned.clauses:
            check(spark)  # on a cluster: the executors can run it (once per session)
        return statement(spark, query, planned)


def statement(
    spark: SparkSession, query: str, planned: PlannedQuery, define: bool = True
) -> DataFrame | None:
    """The DataFrame of ``query`` once its clauses are ``planned``, analysed: Spark's
    errors about the query around them told at ``query``'s text. A ``CREATE TEMP VIEW``
    statement defines its view (``define``; else nothing is done with it: None)."""
    view = read_temp_view(query) if planned.clauses else None
    # the query around the clauses, which Spark sees rewritten
    outermost = _outermost(planned.clauses)
    length = len(_SEEN_NAME[is_connect(spark)]) + 2  # and its spaces
    start = view.query_start if view is not None else 0
    try:
        if view is not None:
            df = _define_view(spark, planned, view) if define else None
        else:
            # analysed now (Spark Connect analyses lazily), so that Spark's errors about
            # the query around the clauses are told at the query's text below
            df = _named_as_written(analysed(planned.dataframe(spark)), query, planned)
            refuse_unrunnable_stream(df, query)
        if planned.clauses:
            seen, back = seen_text(query, outermost, length, start)
            remember_query(seen, query, back)
        return df
    except PySparkException as exc:
        error = carried_rebuilt(exc, query)
        if error is None and isinstance(exc, AnalysisException):
            error = window_call_error(exc, query, planned.window_calls)
        if error is None and planned.clauses and isinstance(exc, AnalysisException):
            error = translated(exc, query, outermost, length, seen_from=start)
        if error is None:
            raise
        raise error from None


def _named_as_written(df: DataFrame, query: str, planned: PlannedQuery) -> DataFrame:
    """``df`` with each column that Spark named after an expression holding a call over a
    window with a row pattern (``val OVER w + 1``, unaliased) named with that call as
    written, not with the column of ours that stood for it."""
    calls = planned.window_calls
    if not calls:
        return df
    renamed = {}
    for column in df.columns:
        new = _CALL_NAME.sub(
            lambda m: (
                " ".join(query[calls[m.group(0)][0] : calls[m.group(0)][1]].split())
                if m.group(0) in calls
                else m.group(0)
            ),
            column,
        )
        if new != column:
            renamed[column] = new
    return df.withColumnsRenamed(renamed) if renamed else df


_CALL_NAME = re.compile(r"__mrw\d+_\w+")


#: how PySpark names a DataFrame passed to ``spark.sql`` (classic, Spark Connect), as
#: far as the length of the name goes: an error's offset into the text Spark saw
_SEEN_NAME = {False: "_pyspark_" + "0" * 32, True: "_pyspark_connect_temp_view_" + "0" * 32}


def _outermost(clauses: list[PlannedClause]) -> list[tuple[int, int]]:
    """The spans of the query that Spark saw as a name (a clause with its input
    relation), without those inside another."""
    spans = [
        (c.occurrence.relation_start, c.occurrence.body_end + 1) for c in clauses if not c.window
    ]
    return [s for s in spans if not any(o != s and o[0] <= s[0] and s[1] <= o[1] for o in spans)]


def _define_view(spark: SparkSession, planned: PlannedQuery, view: TempView) -> DataFrame:
    """``CREATE ... TEMP VIEW v AS <query with MATCH_RECOGNIZE>`` (or ``CACHE TABLE v AS
    ...``): the view is the query's DataFrame, registered by name (and cached). Spark's
    own statement would keep the query's text, which reads each clause's result through a
    name that only lives while the statement runs, so the view would fail when read."""
    # the clauses sit after ``AS``: the rewritten text starts its query at the same offset
    query = PlannedQuery(planned.clauses, planned.rewritten[view.query_start :], planned.inputs)
    result = query.dataframe(spark)
    if view.columns is not None:
        result = result.toDF(*view.columns)
    catalog = spark.catalog
    quoted = "`" + view.name.replace("`", "``") + "`"
    registers = {
        (False, False): result.createTempView,
        (False, True): result.createOrReplaceTempView,
        (True, False): result.createGlobalTempView,
        (True, True): result.createOrReplaceGlobalTempView,
    }
    registers[view.is_global, view.replace](quoted)
    if view.cache:
        catalog.cacheTable(quoted)
        if not view.lazy:
            spark.table(quoted).count()  # CACHE TABLE fills the cache now
    return spark.sql("SELECT 1 AS done").limit(0).drop("done")  # no rows, as CREATE VIEW


def sql_with_frames(spark: SparkSession, text: str, frames: dict[str, DataFrame]) -> DataFrame:
    """``spark.sql(text)`` where each name of ``frames`` (a unique identifier in ``text``)
    stands for that DataFrame, handed over by reference.

    ``spark.sql``'s DataFrame arguments are written ``{name}`` in a ``str.format`` string,
    so every other brace of ``text`` (a quantifier ``A{2,3}`` in a string, a JSON path)
    is doubled first.
    """
    used = {name: df for name, df in frames.items() if name in text}
    if not used:
        return spark.sql(text)
    template = text.replace("{", "{{").replace("}", "}}")
    for name in used:
        template = re.sub(rf"\b{re.escape(name)}\b", "{" + name + "}", template)
    return spark.sql(template, **used)


@contextmanager
def planned_clauses(
    spark: SparkSession, query: str, inputs: dict[str, DataFrame] | None = None
) -> Iterator[PlannedQuery]:
    """Find, parse and plan every MATCH_RECOGNIZE of ``query`` and build its DataFrame.

    Every clause is parsed before any is planned, so a syntax error anywhere is reported
    first. Each clause, innermost first, is replaced in the query by a unique name that
    stands for its result (an outer clause's input reads it); ``PlannedQuery.dataframe``
    runs the rewritten query. A SELECT with windows with a row pattern has its FROM and
    WHERE replaced the same way, by the rows with the windows' columns, and its calls
    over those windows by the columns. Nothing is registered in the session, so the
    DataFrames stay valid after the block, on classic Spark and on Spark Connect alike.
    Only analysis happens here: no Spark job runs. ``inputs``: DataFrames the query names
    (the names :func:`sql` gives ``spark.sql``'s keyword arguments).
    """
    inputs = dict(inputs or {})
    clauses = read_statement(query)
    windows = read_windows(query)
    if clauses or windows:
        ship(spark)  # on a cluster: before the job's functions are built
    rewriter = _Rewriter(query)
    planned: list[PlannedClause] = []
    steps: list[tuple[int, Any]] = [(o.body_end, (o, c)) for o, c in clauses]
    steps += [(w.select.end, w) for w in windows]
    steps.sort(key=lambda step: step[0])  # a clause or SELECT inside another comes first
    for _, step in steps:
        frames = {**inputs, **{p.view: p.result for p in planned}}
        if isinstance(step, WindowQuery):
            planned.extend(_windows(spark, rewriter, step, frames, query))
            continue
        occ, clause = step
        try:
            relation = _relation(spark, rewriter, occ, frames)
        except AnalysisException as exc:
            if isinstance(exc, MatchRecognizeError):
                raise
            spans = [(o.relation_start, o.body_end + 1) for o, _ in clauses]
            span = (occ.relation_start, occ.relation_end)
            hint = None
            if (exc.getCondition() or "").startswith("UNRESOLVED_COLUMN") and in_lateral(
                query, occ.relation_start
            ):
                hint = (
                    "a MATCH_RECOGNIZE input is read on its own, without the row of the query "
                    "around a LATERAL: match the whole input and join its result instead"
                )
            raise translated(exc, query, spans, within=span, hint=hint) from None
        except PySparkException as exc:
            told = literal_error(exc, query, (occ.relation_start, occ.relation_end))
            if told is None:
                raise
            raise told from None
        if isinstance(clause, DynamicClause):
            plan = None
            result = _dynamic(spark, rewriter, relation, clause, frames, occ.relation_start)
        else:
            ctes = visible_ctes(rewriter.text, before=rewriter.at(occ.relation_start))
            with _literal_errors_told(clause), statement_ctes(ctes):
                plan = _plan(clause, relation, occ.relation_name)
                result = execute(relation, plan)
        view = _view_name()
        planned.append(PlannedClause(occ, clause, relation, plan, result, view))
        # spaced: a word written right after the clause's ")" (``)m``) stays a word of its own
        rewriter.replace(occ.relation_start, occ.body_end + 1, f" {view} ")
    yield PlannedQuery(planned, rewriter.text, inputs, rewriter.calls)


#: a PARTITION BY or ORDER BY item that names a column (maybe qualified)
_PLAIN_NAME = re.compile(r"\s*(`(?:[^`]|``)+`|\w+)(\s*\.\s*(`(?:[^`]|``)+`|\w+))?\s*")


def _keys_as_columns(
    relation: DataFrame, clause: MatchRecognizeClause, k: int, joined: JoinedInput | None = None
) -> tuple[DataFrame, MatchRecognizeClause]:
    """A window's PARTITION BY and ORDER BY may be expressions (``PARTITION BY id % 2``),
    a MATCH_RECOGNIZE's only columns: each expression becomes a column of the input,
    named in the clause at the expression's place (so errors still point there). Over a
    join (``joined``), a name qualified with a relation of the join (``a.id``) is one."""
    added: dict[str, Column] = {}
    scope = joined.scope(relation) if joined is not None else relation

    def as_column(expr: ast.SqlExpr) -> ast.SqlExpr:
        plain = _PLAIN_NAME.fullmatch(expr.text)
        if plain and (joined is None or plain.group(2) is None):
            return expr
        try:
            with quiet_analysis():
                column = F.expr(expr.text)
                # beside the input's columns, as it is added: an aggregate is refused
                scope.select("*", column).schema  # noqa: B018 - analysis only
        except AnalysisException as err:
            refuse_misspelled_order(clause.sql, expr)
            raise SemanticError(
                f"Spark rejects {expr.text}: {first_line(err)}",
                sql=clause.sql,
                pos=expr.pos,
                hint="PARTITION BY and ORDER BY take expressions of the input's columns",
            ) from None
        name = f"__mrw{k}_key{len(added)}"
        added[name] = column
        return ast.SqlExpr(name, expr.pos)

    partition_by = tuple(as_column(e) for e in clause.partition_by)
    order_by = tuple(replace(key, expr=as_column(key.expr)) for key in clause.order_by)
    if not added:
        return relation, clause
    if joined is not None:
        relation = scope.withColumns(added).drop(*joined.names())
    else:
        relation = relation.withColumns(added)
    return relation, replace(clause, partition_by=partition_by, order_by=order_by)


def _view_name() -> str:
    return f"__matchrec_{uuid.uuid4().hex[:8]}_{next(_counter)}"


def _windows(
    spark: SparkSession,
    rewriter: _Rewriter,
    query_windows: WindowQuery,
    frames: dict[str, DataFrame],
    query: str,
) -> list[PlannedClause]:
    """Plan the windows with a row pattern of one SELECT over its FROM and WHERE, one
    after the other (each adds its columns to every row), and rewrite the SELECT to read
    the result: FROM and WHERE become its name, each call over a window its column."""
    select = query_windows.select
    start, end = rewriter.at(select.from_start), rewriter.at(select.input_end)
    scope = cte_scope(rewriter.text, before=start)
    try:
        relation = sql_with_frames(
            spark, scope(f"SELECT * FROM {rewriter.text[start:end]}"), frames
        )
        input_columns = list(relation.columns)
    except AnalysisException as exc:
        if isinstance(exc, MatchRecognizeError):
            raise
        span = (select.from_start, select.input_end)
        raise translated(exc, query, [span], within=span) from None
    except PySparkException as exc:
        told = literal_error(exc, query, (select.from_start, select.input_end))
        if told is None:
            raise
        raise told from None
    joined = None
    grouped = None
    if select.group_keys:
        grouped = _grouped_input(spark, rewriter, select, frames, query, scope)
        relation, input_columns = grouped, list(grouped.columns)
    elif select.joined:
        joined = joined_input(
            lambda text: sql_with_frames(spark, scope(text), frames),
            rewriter.text[start:end],
            input_columns,
        )
        twice = sorted({c for c in input_columns if input_columns.count(c) > 1})
        if twice and joined is None:
            raise SemanticError(
                f"a window with a row pattern reads its FROM as one relation, where "
                f"{', '.join(twice)} would be two columns",
                sql=query,
                pos=select.from_start + 1,
                hint="join in a subquery that names each column once, and use the names "
                "unqualified: FROM (SELECT a.id, b.k AS b_k, ... FROM a JOIN b ON ...) t",
            )
    star_columns = ", ".join(quote(c) for c in input_columns)
    if joined is not None:
        relation = joined.relation
        if joined.twice:
            star_columns = joined.star()
    planned = []
    current = relation
    for k, (spec, clause) in enumerate(zip(select.specs, query_windows.clauses)):
        current, clause = _keys_as_columns(current, clause, k, joined)
        try:
            plan = _plan(clause, current, select.alias)
        except SemanticError as err:
            if grouped is not None:
                raise grouped_error(err, clause, input_columns) from None
            raise joined.explained(err) if joined is not None else err from None
        result = execute(current, plan)
        occurrence = Occurrence(
            relation_start=select.from_start,
            relation_end=select.input_end,
            keyword=spec.body_start,
            body_start=spec.body_start,
            body_end=spec.body_end,
            alias=None,
        )
        planned.append(PlannedClause(occurrence, clause, current, plan, result, _view_name(), True))
        current = result
    view = planned[-1].view
    alias = f" AS {quote(select.alias)}" if select.alias else ""
    if grouped is not None:
        # the groups' measures join the rows of each group; the query groups by them too
        # (one value per group, so its groups stay the same)
        names = list(dict.fromkeys(name for _, name in query_windows.targets if name))
        keys = [query[a:b] for a, b in select.group_keys]
        columns = [f"{quote(c)} AS __mrg{n}" for n, c in enumerate(input_columns)]
        on = " AND ".join(f"{k} <=> __mrg.__mrg{n}" for n, k in enumerate(keys))
        inner = ", ".join(columns + [quote(n) for n in names])
        join = f" JOIN (SELECT {inner} FROM {view}) AS __mrg ON {on}"
        rewriter.replace(select.from_end, select.from_end, join)
        if names:
            more = ", " + ", ".join(f"__mrg.{quote(n)}" for n in names)
            rewriter.replace(select.group_end, select.group_end, more)
    else:
        outer = joined.outer_from(view) if joined is not None else f" {view}{alias}"
        rewriter.replace(select.from_start, select.input_end, outer)
    for call, (k, name) in zip(select.calls, query_windows.targets):
        if name:
            # in parentheses: a call the user wrote next to another (a comma missing)
            # stays an error, never our column taken as an alias of the one before
            text = quote(name) if call.name is not None else f"({quote(name)})"
            rewriter.calls[name] = (call.start, call.end)
        else:
            over = window_order_text(query_windows.clauses[k])
            text = f"{call.function} OVER ({over})"
        if call.name is not None:
            text += f" AS {quote(call.name)}"
        rewriter.replace(call.start, call.end, text)
    for a, b in select.removals:
        rewriter.replace(a, b, " ")
    for a, b, qualifier in select.stars:
        if qualifier is None:
            rewriter.replace(a, b, star_columns)
        elif select.alias and qualifier.strip("`").lower() == select.alias.lower():
            rewriter.replace(a, b, ", ".join(f"{qualifier}.{quote(c)}" for c in input_columns))
    return planned


_NAME_PART = r"(?:[A-Za-z_][A-Za-z0-9_]*|`(?:[^`]|``)+`)"
_TABLE_NAME = re.compile(rf"^{_NAME_PART}(?:\.{_NAME_PART})*$")


def _grouped_input(
    spark: SparkSession,
    rewriter: _Rewriter,
    select: Any,
    frames: dict[str, DataFrame],
    query: str,
    scope: Callable[[str], str],
) -> DataFrame:
    """The groups of a SELECT with GROUP BY, one row per group with its keys: the rows a
    window with a row pattern of that SELECT matches (as Trino, after GROUP BY and
    HAVING)."""
    if select.joined:
        raise SemanticError(
            "a window with a row pattern over GROUP BY of a join is not supported",
            sql=query,
            pos=select.from_start + 1,
            hint="join in a subquery and put GROUP BY and the window in the query around it",
        )
    keys = ", ".join(query[a:b] for a, b in select.group_keys)
    start, end = rewriter.at(select.from_start), rewriter.at(select.input_end)
    having = ""
    if select.having is not None:
        having = rewriter.text[rewriter.at(select.having[0]) : rewriter.at(select.having[1])]
    text = scope(f"SELECT {keys} FROM {rewriter.text[start:end]} GROUP BY {keys} {having}")
    try:
        with quiet_analysis():
            groups = sql_with_frames(spark, text, frames)
            groups.schema  # noqa: B018 - Spark Connect analyses lazily: ask now
    except AnalysisException as exc:
        if isinstance(exc, MatchRecognizeError):
            raise
        span = (select.from_start, select.input_end)
        raise translated(exc, query, [span], within=span) from None
    return groups


def _dynamic(
    spark: SparkSession,
    rewriter: _Rewriter,
    relation: DataFrame,
    clause: DynamicClause,
    frames: dict[str, DataFrame],
    clause_start: int,
) -> DataFrame:
    """The DataFrame of one MATCH_RECOGNIZE_DYNAMIC (its input relation at ``clause_start``
    of the query): its rule table read as a table or view of the query where the clause
    is (a streaming view streams the rules)."""
    name = clause.rules.text.strip()
    if not _TABLE_NAME.match(name):
        raise SemanticError(
            f"RULES FROM takes the name of a table or view, not {name!r}",
            sql=clause.sql,
            pos=clause.rules.pos,
            hint="create a view of the rules first, e.g. CREATE TEMP VIEW rules AS SELECT ...",
        )
    scope = cte_scope(rewriter.text, before=rewriter.at(clause_start))
    try:
        with quiet_analysis():
            rules = sql_with_frames(spark, scope(f"SELECT * FROM {name}"), frames)
            rules.schema  # noqa: B018 - Spark Connect analyses lazily: ask now
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


def _relation(
    spark: SparkSession, rewriter: _Rewriter, occ: Occurrence, frames: dict[str, DataFrame]
) -> DataFrame:
    """The input DataFrame of one MATCH_RECOGNIZE, seeing the query's CTEs and the
    results of the clauses already replaced (``frames``)."""
    start = rewriter.at(occ.relation_start)
    text = rewriter.text[start : rewriter.at(occ.relation_end)]
    # a bare subquery needs an alias in Spark; an aliased relation keeps its own
    source = (
        f"{text} AS __matchrec_input" if text.startswith("(") and not occ.relation_aliased else text
    )
    return sql_with_frames(
        spark, cte_scope(rewriter.text, start)(f"SELECT * FROM {source}"), frames
    )
