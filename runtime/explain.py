"""``matchrec.explain``: what ``matchrec.sql`` would do with a query, without running it.

For each MATCH_RECOGNIZE clause the :class:`Explanation` tells

* the clause as parsed (partition, order, pattern, skip, rows per match, measures,
  defines) and its input's columns;
* the Spark side: how the input is partitioned and sorted (said plainly, including when
  everything goes through ONE Spark partition) and Spark's physical plan of the
  DataFrame the runtime builds;
* which DEFINE conditions Spark evaluates vectorized as row-local columns and which
  parts run in Python while matching (and whether those read the match history);
* the atoms (values the matcher extracts for MEASURES) and the NFA program, also as a
  Graphviz DOT graph (``Explanation.dot``).

It builds the same DataFrames as ``matchrec.sql`` (through
:func:`matchrec.runtime.api.planned_clauses`), so only Spark's analysis runs: no job.
"""

from __future__ import annotations

import contextlib
import html
import io
import textwrap
from dataclasses import dataclass, field
from typing import Any

from matchrec.planner.plan import MatchPlan
from matchrec.planner.statement import TableFunctionClause, cte_scope, table_function_clauses
from pyspark.sql import DataFrame, SparkSession

from matchrec import ast
from matchrec.automaton_dot import pattern_dot, pattern_text, render_svg
from matchrec.errors import line_col

from .api import (
    PlannedClause,
    placed_errors,
    planned_clauses,
    prepared,
    statement,
    viewed_in_bodies,
)
from .arguments import check_argument
from .failing_query import table_function_names
from .session import ESCAPED_STRING_LITERALS_CONF
from .worker_errors import install as tell_worker_errors

INDENT = "  "
#: said of every clause without ORDER BY (``matchrec.sql`` also warns)
NO_ORDER_BY = (
    "Row order: no ORDER BY, so the rows of each partition are matched in an arbitrary "
    "order that may change from run to run, and the matches with it."
)
_NAME_WIDTH = 14  # width of the left column in the clause summary

_SKIP_TEXT = {
    "past_last": "SKIP PAST LAST ROW",
    "next_row": "SKIP TO NEXT ROW",
    "first": "SKIP TO FIRST {label}",
    "last": "SKIP TO LAST {label}",
}

_ALL_ROWS_TEXT = {
    "show": "ALL ROWS PER MATCH (SHOW EMPTY MATCHES)",
    "omit": "ALL ROWS PER MATCH OMIT EMPTY MATCHES",
    "unmatched": "ALL ROWS PER MATCH WITH UNMATCHED ROWS",
}


def rows_text(mode: ast.RowsPerMatch) -> str:
    """The ROWS PER MATCH option as written (its defaults spelled out), with the
    extensions WITH TIMEOUTS and WITH LATE ROWS."""
    text = "ONE ROW PER MATCH" if mode.mode == "one" else _ALL_ROWS_TEXT[mode.empty]
    extensions = [("WITH TIMEOUTS", mode.timeouts), ("WITH LATE ROWS", mode.late_rows)]
    return " ".join([text, *(words for words, asked in extensions if asked)])


def _frame_text(clause: ast.MatchRecognizeClause) -> str:
    """A window's frame and search modifier, as written (defaults spelled out)."""
    frame = clause.frame
    assert frame is not None
    end = {"current": "CURRENT ROW", "unbounded": "UNBOUNDED FOLLOWING"}.get(frame.end)
    if end is None:
        end = f"{frame.offset.text if frame.offset else '?'} FOLLOWING"
    search = "INITIAL" if clause.initial else "SEEK"
    return f"ROWS BETWEEN CURRENT ROW AND {end} {search} (one output row per input row)"


@dataclass(frozen=True)
class Explanation:
    """The explanation of a query: ``text`` for people, ``dot`` for Graphviz (one graph
    per MATCH_RECOGNIZE clause, in the order of the clauses in ``text``)."""

    text: str
    dot: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return self.text

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """For IPython's text output (a terminal, ``%%capture``): the text, not the
        dataclass's fields."""
        printer.text(self.text)

    def _repr_html_(self) -> str:
        """For notebooks: the text, then each automaton as SVG when Graphviz's ``dot`` is
        installed, else its DOT source."""
        parts = [f"<pre>{html.escape(self.text)}</pre>"]
        for number, dot in enumerate(self.dot, start=1):
            parts.append(f"<p><b>Automaton of MATCH_RECOGNIZE {number}</b></p>")
            svg = render_svg(dot)
            parts.append(svg if svg is not None else f"<pre>{html.escape(dot)}</pre>")
        return "\n".join(parts)


def explain(
    spark: SparkSession,
    query: str,
    args: dict[str, Any] | list[Any] | None = None,
    **kwargs: Any,
) -> Explanation:
    """Explain every MATCH_RECOGNIZE of ``query`` (see the module docstring); no job runs.

    ``args`` and ``kwargs`` as :func:`matchrec.sql` takes them (parameter markers, ``{name}``
    DataFrames); the explanation shows the query with its parameters bound. Errors in the
    query are raised as by ``matchrec.sql`` (``SqlSyntaxError``, ...), caret in ``query``.
    """
    check_argument("explain", "spark", spark, SparkSession)
    check_argument("explain", "query", query, str)
    tell_worker_errors()  # Spark's error folding a constant (``price < 'abc'``): at its place
    arguments = prepared(spark, query, args, kwargs)
    if arguments is None:
        escaped = spark.conf.get(ESCAPED_STRING_LITERALS_CONF, "false") == "true"
        calls = table_function_clauses(query, table_function_names(), escaped)
        if calls:
            return _table_function_explained(spark, query, calls)
        return Explanation(
            "No MATCH_RECOGNIZE in this query: matchrec.sql hands it to spark.sql unchanged."
        )
    with placed_errors(arguments), viewed_in_bodies(spark, arguments):
        return _explained(spark, arguments.text, arguments.frames)


def _explained(spark: SparkSession, query: str, frames: dict[str, DataFrame]) -> Explanation:
    with planned_clauses(spark, query, frames) as planned:
        steps = planned.clauses
        if not steps:
            return Explanation(
                "No MATCH_RECOGNIZE in this query: matchrec.sql hands it to spark.sql unchanged."
            )
        statement(spark, query, planned, define=False)  # the query around: as matchrec.sql
        sections = [
            _section(spark, query, step, number, len(steps))
            for number, step in enumerate(steps, start=1)
        ]
        dots = [
            pattern_dot(step.clause.pattern, step.plan.program.nfa, name=f"match_recognize_{n}")
            for n, step in enumerate(steps, start=1)
            if step.plan is not None
        ]
    return Explanation("\n\n".join(sections) + "\n", dots)


def _table_function_explained(
    spark: SparkSession, query: str, calls: list[TableFunctionClause]
) -> Explanation:
    """Each call of the table function, explained as ``matchrec.sql`` runs its clause
    over its input: the same matcher and program; the table function's own way of
    feeding it is said in words."""
    sections, dots = [], []
    for number, call in enumerate(calls, start=1):
        scoped = cte_scope(query, call.start)  # TABLE(t) may name a CTE of the query
        clause = scoped(f"SELECT * FROM {call.table} MATCH_RECOGNIZE ({call.body})")
        inner = _explained(spark, clause, {})
        line, _ = line_col(query, call.start)
        head = (
            f"== Table function {number} of {len(calls)} (line {line}): "
            f"{call.name}(TABLE({_one_line(call.table)}), ...) =="
        )
        sections.append(
            head
            + "\n"
            + _indent(_wrap(TABLE_FUNCTION_NOTE))
            + f"\nIts clause, as matchrec.sql runs it:\n{_indent(_wrap(' '.join(clause.split())))}"
            + "\n\n"
            + inner.text
        )
        dots += inner.dot
    return Explanation("\n".join(sections), dots)


#: how the table function runs the program explained below it
TABLE_FUNCTION_NOTE = (
    "The table function runs the same matcher and program as matchrec.sql: Spark sorts the "
    "input by the clause's PARTITION BY and ORDER BY (a window that also computes DEFINE's "
    "row-local conditions and PREV/NEXT) and hands the rows to it in Arrow batches; its "
    "MEASURES that combine several rows are computed in Python with Spark's rules, where "
    "matchrec.sql's are computed by Spark (README, 'From plain Spark SQL')."
)


# ---------------------------------------------------------------------------- sections


def _section(spark: SparkSession, query: str, step: PlannedClause, number: int, total: int) -> str:
    if step.plan is None:
        return _dynamic_section(query, step, number, total)
    occ = step.occurrence
    line, _ = line_col(query, occ.keyword)
    relation = _one_line(query[occ.relation_start : occ.relation_end])
    alias = f" AS {occ.alias}" if occ.alias else ""
    what = "WINDOW WITH A ROW PATTERN" if step.window else "MATCH_RECOGNIZE"
    head = f"== {what} {number} of {total} (line {line}): {relation}{alias} =="
    blocks = [
        head + "\nInput columns: " + _schema_text(step.input),
        "Clause\n" + _indent(_clause_summary(step.clause, step.plan)),
        "DEFINE evaluation\n" + _indent(_defines(step.plan)),
        "Spark plan\n" + _indent(_spark_side(spark, step)),
        "Atoms (values the matcher extracts from each match; MEASURES read them in Spark)\n"
        + _indent(_atoms(step.plan)),
        f"NFA program ({len(step.plan.program.nfa)} instructions; Graphviz DOT in "
        f"Explanation.dot[{number - 1}], or `matchrec explain --dot`)\n"
        + _indent(step.plan.program.nfa.dump()),
    ]
    return "\n\n".join(blocks)


def _dynamic_section(query: str, step: PlannedClause, number: int, total: int) -> str:
    """What MATCH_RECOGNIZE_DYNAMIC runs: where rules come from, how they are shared."""
    from .dynamic import BUCKET
    from .streaming import BUCKETS_CONF

    occ = step.occurrence
    clause = step.clause
    line, _ = line_col(query, occ.keyword)
    relation = _one_line(query[occ.relation_start : occ.relation_end])
    keys = (
        "taken from the rules when the query starts"
        if clause.key_sets is None
        else ", ".join("(" + ", ".join(k.text for k in s) + ")" for s in clause.key_sets)
    )
    lines = [
        f"Rules: rows of {clause.rules.text} (rule_id, version, spec[, active_from]"
        f"[, enabled]); each spec is a MATCH_RECOGNIZE body. ON ERROR {clause.on_error.upper()}: "
        + (
            "a rule that does not compile is an output row with status 'ERROR'."
            if clause.on_error == "skip"
            else "a rule that does not compile fails the query."
        ),
        f"Key sets (one shuffle each, {BUCKETS_CONF} buckets per set): {keys}.",
        "Rule expressions (DEFINE and MEASURES) run on matchrec's evaluator, not Spark's, "
        "so that a rule can change while a stream runs.",
        "Versions: a version applies from its active_from until the next version's; on a "
        "stream, from the later of active_from and the watermark when it arrived.",
        "Output: rule_id, rule_version, status, match_number, keys, measures, row (VARIANT), "
        "error.",
    ]
    if step.input.isStreaming:
        lines.append(
            "Streaming: events and rule rows go through one stateful processor per bucket "
            f"({BUCKET}; transformWithStateInPandas, event time, RocksDB); rule rows are "
            "copied to every bucket, so every task applies the same rules."
        )
    head = f"== MATCH_RECOGNIZE_DYNAMIC {number} of {total} (line {line}): {relation} =="
    return "\n\n".join(
        [
            head + "\nInput columns: " + _schema_text(step.input),
            "Rules\n" + _indent("\n".join(_wrap(x) for x in lines)),
        ]
    )


def _clause_summary(clause: ast.MatchRecognizeClause, plan: MatchPlan) -> str:
    rows: list[tuple[str, str]] = [
        (
            "PARTITION BY",
            ", ".join(plan.partition_by) or "(none: the whole input is one partition)",
        ),
        ("ORDER BY", ", ".join(_order_text(*key) for key in plan.order_by) or "(none)"),
        ("PATTERN", pattern_text(clause.pattern)),
    ]
    if clause.within is not None:
        rows.append(("WITHIN", f"INTERVAL '{clause.within.amount}' {clause.within.unit}"))
    for subset in clause.subsets:
        rows.append(("SUBSET", f"{subset.name} = ({', '.join(subset.labels)})"))
    skip = clause.after_match_skip
    rows.append(("AFTER MATCH", _SKIP_TEXT[skip.mode].format(label=skip.label)))
    if clause.frame is not None:
        rows.append(("FRAME", _frame_text(clause)))
    else:
        rows.append(("ROWS", rows_text(clause.rows_per_match)))
    lines = [f"{name:<{_NAME_WIDTH}}{value}" for name, value in rows]

    names = [m.alias for m in clause.measures] + plan.program.label_names
    width = max(_NAME_WIDTH - len(INDENT), *(len(name) + 2 for name in names))
    lines.append("MEASURES" + ("" if clause.measures else "  (none)"))
    lowered = dict(plan.measures)
    for measure in clause.measures:
        lines.append(f"{INDENT}{measure.alias:<{width}}{_one_line(measure.expr.text)}")
        lines.append(f"{INDENT}{'':<{width}}-> Spark: {lowered[measure.alias]}")
    for call in plan.guarded_calls:
        called = f"{call.function}({', '.join(call.arguments)})"
        lines.append(f"{INDENT}{'':<{width}}   {call.column} = {called}, on rows in a match only")
    lines.append("DEFINE")
    defined = {d.label: d for d in clause.defines}
    for label in plan.program.label_names:
        text = _one_line(defined[label].expr.text) if label in defined else "(not defined: TRUE)"
        lines.append(f"{INDENT}{label:<{width}}{text}")
    return "\n".join(lines)


def _defines(plan: MatchPlan) -> str:
    precomputed = dict(plan.precomputed)
    lines = []
    for label in plan.program.label_names:
        lowering = plan.defines.get(label)
        if lowering is None:
            lines.append(f"{label}: no DEFINE, every row qualifies (nothing to evaluate)")
            continue
        lines.append(f"{label}:")
        column = lowering.local_column
        if column is None:
            spark_part = "(nothing row-local)"
        elif column in precomputed:
            spark_part = f"column {column} = {precomputed[column]}"
        else:
            spark_part = f"input column {column}"
        lines.append(f"{INDENT}vectorized in Spark:  {spark_part}")
        if lowering.glue is None:
            python_part = "(nothing: the Spark column decides)"
        elif lowering.history_free:
            python_part = "yes; history-free (reads the current row and physical offsets only)"
        else:
            python_part = "yes; reads the match so far (labels of earlier rows)"
        lines.append(f"{INDENT}per match in Python:  {python_part}")
    if plan.program.history_free:
        matcher = (
            "Matcher: history-free: no condition looks at earlier labels, so it keeps at "
            "most one thread per instruction."
        )
    else:
        matcher = (
            "Matcher: history-dependent: threads at the same instruction are merged only "
            "when their label histories are equal."
        )
    lines.append(_wrap(matcher))
    return "\n".join(lines)


def _stream_side(spark: SparkSession, step: PlannedClause) -> str:
    """How a streaming input runs: buckets, state, timers, the watermark column, and a
    warning when a pattern may wait forever."""
    from .session import count_setting
    from .streaming import BUCKETS_CONF, DEFAULT_BUCKETS, watermark_column

    plan = step.plan
    keys = ", ".join(plan.partition_by)
    event = watermark_column(step.input, plan.order_by[0][0] if plan.order_by else None)
    delay = step.input.schema[event].metadata.get("spark.watermarkDelayMs") if event else None
    buckets = count_setting(spark, BUCKETS_CONF, DEFAULT_BUCKETS) if keys else 1
    lines = [
        f"Streaming input (Structured Streaming, append mode). Event time: {event} "
        f"(watermark delay {delay} ms); rows are matched in event-time order once the "
        "watermark has passed them; rows at or behind the watermark are dropped and "
        "counted (matchrec.runtime.streaming.late_rows(query))"
        + (
            ", and each is an output row with match_status 'LATE' (WITH LATE ROWS)."
            if plan.clause.rows_per_match.late_rows
            else "."
        ),
        f"State: transformWithStateInPandas in event-time mode (RocksDB state store), one "
        f"processor per bucket of {'keys ' + keys if keys else 'the single partition'}, "
        "its rows packed per bucket by a mapInArrow before the shuffle and its matches "
        "unpacked by one after it "
        f"({buckets} buckets, {BUCKETS_CONF}; keep it fixed for a checkpoint). Per key it "
        "keeps the rows not yet final, the rows live searches and look-back need, and a "
        "cursor (next MATCH_NUMBER).",
    ]
    if plan.program.within_column is not None:
        lines.append(
            f"Timers: event-time timers wake a bucket when a pending row becomes final and "
            f"when WITHIN ({plan.program.within_seconds:g} s) cuts off its oldest live "
            "search"
            + (
                ": timed-out searches become TIMEOUT rows."
                if plan.clause.rows_per_match.timeouts
                else "."
            )
        )
    else:
        lines.append(
            "Timers: event-time timers wake a bucket when a pending row becomes final. "
            "Without WITHIN, a search that is not settled waits for the next row of its "
            "key, however long that takes."
        )
        grows = _unbounded(plan.clause.pattern)
        if grows:
            lines.append(
                f"WARNING: {grows} has no upper bound and there is no WITHIN: a search may "
                "keep matching (and keep its rows in state) for as long as rows qualify; "
                "add WITHIN INTERVAL '...' after PATTERN to bound it."
            )
    return "\n".join(_wrap(line) for line in lines)


def _unbounded(node: ast.PatternNode) -> str | None:
    """The first quantifier of the pattern without an upper bound, as written."""
    if isinstance(node, ast.Quantified):
        if node.max is None:
            shown = f"{{{node.min},}}" if node.min > 1 else "*+"[node.min]
            return f"the quantifier {shown}"
        return _unbounded(node.inner)
    for child in getattr(node, "items", ()) or [getattr(node, "inner", None)]:
        found = None if child is None else _unbounded(child)
        if found:
            return found
    return None


def _spark_side(spark: SparkSession, step: PlannedClause) -> str:
    plan = step.plan
    keys = ", ".join(plan.partition_by)
    order = ", ".join(_order_text(*key) for key in plan.order_by)
    if keys:
        shuffle = spark.conf.get("spark.sql.shuffle.partitions")
        summary = (
            f"Spark hash-partitions the input by {keys} (into spark.sql.shuffle.partitions "
            f"= {shuffle} Spark partitions), sorts each Spark partition by {keys}"
            + (f", {order}" if order else "")
            + ", and mapInArrow streams one PARTITION BY key group at a time through the "
            "matcher: key groups are matched in parallel."
        )
    elif order:
        summary = (
            "No PARTITION BY: every row goes to ONE Spark partition (repartition(1)), sorted "
            f"by {order}; one Python worker matches the whole input, with no parallelism."
        )
    else:
        summary = (
            "No PARTITION BY and no ORDER BY: every row goes through ONE Spark partition "
            "(coalesce(1)) in the input's order, which Spark does not define; one Python "
            "worker matches the whole input."
        )
    if not plan.order_by:
        summary += " " + NO_ORDER_BY
    summary = _stream_side(spark, step) if step.input.isStreaming else _wrap(summary)
    if plan.precomputed:
        summary += "\nColumns Spark computes for every row before matching:\n" + "\n".join(
            f"{INDENT}{name} = {text}" for name, text in plan.precomputed
        )
    return summary + "\n" + _physical_plan(step.result).rstrip()


def _physical_plan(df: DataFrame) -> str:
    """Spark's physical plan of ``df`` as ``DataFrame.explain`` prints it (no job runs)."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        df.explain()
    return buffer.getvalue()


def _atoms(plan: MatchPlan) -> str:
    if not plan.atoms:
        return "(none)"
    width = max(len(atom.name) for atom in plan.atoms) + 2
    return "\n".join(
        f"{atom.name:<{width}}{'aggregate' if atom.aggregate else 'value':<11}probe: {atom.probe}"
        for atom in plan.atoms
    )


# ---------------------------------------------------------------------------- helpers


def _order_text(column: str, descending: bool, nulls_first: bool | None) -> str:
    # the plan's null order (Spark's default already filled in where none is written)
    return f"{column} {'DESC' if descending else 'ASC'} NULLS {'FIRST' if nulls_first else 'LAST'}"


def _schema_text(df: DataFrame) -> str:
    return ", ".join(f"{f.name} {f.dataType.simpleString()}" for f in df.schema.fields)


def _one_line(text: str, limit: int = 100) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _wrap(text: str, width: int = 96) -> str:
    return textwrap.fill(text, width=width, break_on_hyphens=False)


def _indent(text: str) -> str:
    return "\n".join(INDENT + line if line else line for line in text.splitlines())
