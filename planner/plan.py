"""Check a parsed MATCH_RECOGNIZE clause and lower it to an executable plan.

``plan_clause`` is the planner's single entry point: it validates what the grammar cannot
(labels, subsets, SKIP targets, column names, navigation nesting), compiles the pattern
with the NFA compiler, and lowers DEFINE and MEASURES (``planner.expressions``). The
result, :class:`MatchPlan`, is plain data and closures that the runtime ships to Spark
workers; nothing here imports Spark.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from sqlglot import exp

from matchrec import ast
from matchrec.engine import PartitionProgram
from matchrec.errors import SemanticError, SqlSyntaxError, UnsupportedError
from matchrec.fastmatch import can_match_empty
from matchrec.integer_width import IntegerWidth
from matchrec.nfa import MAX_PROGRAM_SIZE, compile_pattern, oversized_part, program_size
from matchrec.vector_define import VExpr

from .expressions import (
    Atom,
    DefineLowering,
    Lowering,
    is_aggregate,
    label_text,
    lower_define,
    lower_measure,
    users_columns,
)
from .foldable_arguments import check_constant_arguments
from .guarded_calls import GuardedCall
from .literal_arguments import check_literal_arguments
from .nesting_depth import room_to_nest
from .pattern_literals import PatternCheck, check_pattern_literals
from .python_udfs import PythonLookup
from .sql_functions import FunctionLookup
from .sqltext import parse_expression, quote
from .type_checks import TypeCheck
from .window_plan import check_window_shape, frame_function_measure, window_search

# WITHIN units -> seconds
_UNIT_SECONDS = {
    "MILLISECOND": 0.001,
    "SECOND": 1.0,
    "MINUTE": 60.0,
    "HOUR": 3600.0,
    "DAY": 86400.0,
}


@dataclass
class MatchPlan:
    """Everything the runtime needs to run one MATCH_RECOGNIZE."""

    clause: ast.MatchRecognizeClause
    partition_by: list[str]
    order_by: list[tuple[str, bool, bool]]  # column, descending, nulls first
    # (column name, Spark SQL of a row-local expression): the columns the matcher reads,
    # each text standing alone (windows written out), e.g. for one select or for display
    precomputed: list[tuple[str, str]]
    atoms: list[Atom]
    measures: list[tuple[str, str]]  # (alias, Spark SQL over atom and input columns)
    program: PartitionProgram
    defines: dict[str, DefineLowering] = field(default_factory=dict)
    within_column: str | None = None
    # where each precomputed column and each measure comes from: name or alias -> offset in
    # ``clause.sql`` (for reporting errors Spark finds when it analyses them)
    origins: dict[str, int] = field(default_factory=dict)
    # how the batch runtime adds ``precomputed``: selects run in order, each a list of
    # (column name, Spark SQL) that reads input columns and columns of earlier stages.
    # Each distinct LAG/LEAD window that PREV/NEXT became is a column (``__mr_wN``) of
    # its own, computed once in a first stage that the conditions read; ``scratch`` lists
    # those columns, which the matcher does not read
    stages: list[list[tuple[str, str]]] = field(default_factory=list)
    # a DEFINE reads a window over the input: its shuffle and sort undo the runtime's, which
    # sorts the rows again after ``stages``
    input_windows: bool = False
    # operand types to check when the query is built (``planner.type_checks``): DEFINE's
    # over the input after ``stages``, MEASURES' over the rows the matcher emits
    define_checks: list[TypeCheck] = field(default_factory=list)
    measure_checks: list[TypeCheck] = field(default_factory=list)
    # DEFINE glue's integer operators (over the input after ``stages``): the runtime sets
    # each one's width from Spark's type of it (``matchrec.integer_width``)
    integer_widths: list[IntegerWidth] = field(default_factory=list)
    # each function DEFINE and MEASURES call that is no built-in one -> offset of its
    # first call in ``clause.sql`` (a Python UDF's error while the job runs is shown there)
    calls: dict[str, int] = field(default_factory=dict)
    # MEASURES' Python UDF calls that the runtime computes on the rows that have
    # measures only (``planner.guarded_calls``)
    guarded_calls: list[GuardedCall] = field(default_factory=list)

    @property
    def scratch(self) -> list[str]:
        """Columns the stages add that are not in ``precomputed``: drop them after the
        last stage so that they are not shipped to the matcher."""
        kept = {name for name, _ in self.precomputed}
        return [name for stage in self.stages for name, _ in stage if name not in kept]

    @property
    def written_keys(self) -> list[tuple[str, str, int | None]]:
        """("PARTITION BY" or "ORDER BY", the column, where the clause writes it) of each
        key, PARTITION BY's first: where a check of the keys' types puts its caret."""
        clause = self.clause
        keys = [("PARTITION BY", c, e.pos) for c, e in zip(self.partition_by, clause.partition_by)]
        return keys + [
            ("ORDER BY", c, k.expr.pos) for (c, _, _), k in zip(self.order_by, clause.order_by)
        ]

    @property
    def one_row(self) -> bool:
        return self.clause.rows_per_match.mode == "one" and not self.clause.in_window

    @property
    def window(self) -> bool:
        """Row pattern recognition in a window: one output row per input row."""
        return self.clause.in_window

    @property
    def with_unmatched(self) -> bool:
        if self.clause.in_window:
            return True
        return (
            self.clause.rows_per_match.mode == "all"
            and self.clause.rows_per_match.empty == "unmatched"
        )


def _check_pattern_size(clause: ast.MatchRecognizeClause, sql: str) -> None:
    """Refuse a pattern whose program would exceed :data:`MAX_PROGRAM_SIZE` instructions
    (``A{2147483647}``, ``PERMUTE`` of a dozen items), at the quantifier or PERMUTE to
    shrink, before compiling it unrolled would hang."""
    culprit = oversized_part(clause.pattern)
    if culprit is None:
        return
    size = program_size(culprit)
    pos = culprit.pos if culprit.pos >= 0 else clause.pattern_pos
    permute = isinstance(culprit, ast.Permute)
    what = "PERMUTE" if permute else "this part of the pattern"
    raise UnsupportedError(
        f"{what} unrolls to {size:,} matcher instructions, more than the "
        f"{MAX_PROGRAM_SIZE:,} matchrec compiles",
        sql=sql,
        pos=pos,
        hint="PERMUTE tries every order of its items: list fewer"
        if permute
        else "use smaller bounds, or an unbounded quantifier such as A{n,} with a DEFINE "
        "that stops it",
    )


def _empty_permute_hint(pattern: ast.PatternNode) -> str | None:
    """``PERMUTE()`` without items reads as a variable PERMUTE and an empty pattern ``()``
    (the keyword needs an item): say so where that leaves a DEFINE without its variable."""
    for node in pattern_nodes(pattern):
        if isinstance(node, ast.Concat):
            for a, b in zip(node.items, node.items[1:]):
                if isinstance(a, ast.Label) and a.name == "PERMUTE" and isinstance(b, ast.Empty):
                    return (
                        "PERMUTE() without items reads as a variable PERMUTE and an empty "
                        "pattern: list the variables to permute, e.g. PERMUTE(A, B)"
                    )
    return None


def pattern_nodes(node: ast.PatternNode) -> Iterator[ast.PatternNode]:
    """Every node of a pattern, each before the nodes inside it, in written order."""
    yield node
    if isinstance(node, (ast.Concat, ast.Alternation, ast.Permute)):
        for item in node.items:
            yield from pattern_nodes(item)
    elif isinstance(node, (ast.Exclusion, ast.Quantified)):
        yield from pattern_nodes(node.inner)


def primary_labels(node: ast.PatternNode) -> Iterator[ast.Label]:
    """Primary pattern variables in order of appearance."""
    return (n for n in pattern_nodes(node) if isinstance(n, ast.Label))


def plan_clause(
    clause: ast.MatchRecognizeClause,
    columns: Sequence[str],
    *,
    windows: bool = True,
    ansi: bool = True,
    python_measures: bool = False,
    qualifier: str | None = None,
    sql_functions: FunctionLookup | None = None,
    python_functions: PythonLookup | None = None,
    column_types: Mapping[str, str] | None = None,
    pattern_check: PatternCheck | None = None,
    session_variable: Callable[[str], bool] | None = None,
) -> MatchPlan:
    """Validate ``clause`` against the input ``columns`` and build its plan.

    ``windows=False`` keeps PREV/NEXT of current-row values out of the row-local columns
    (they become navigation the matcher evaluates, like ``PREV(A.x)``): a stream has no
    sorted partition for Spark's LAG/LEAD to run over. ``ansi``: the session's
    ``spark.sql.ansi.enabled`` (DEFINE's Python glue raises where Spark would).
    ``python_measures``: MEASURES are computed in Python (the table function), so each
    function of one navigated row moves inside the navigation for Spark to compute.
    ``qualifier``: the input relation's name (its alias, or a table's name), with which
    PARTITION BY and ORDER BY may qualify a column (``PARTITION BY Ticker.symbol``).
    ``sql_functions``: looks up the session's SQL UDFs, whose bodies are inlined where
    DEFINE's glue would call one on values from several rows (``planner.sql_functions``).
    ``python_functions``: looks up the session's Python UDFs, which DEFINE's glue calls
    on values from several rows (``planner.python_udfs``). ``column_types``: each input
    column's Spark type (``simpleString``), where known: Spark's ``lag(x, n, default)``
    casts the default to x's type (``planner.navigation_aliases``). ``pattern_check``:
    asks the session whether Spark takes a pattern literal: a datetime pattern, a regular
    expression (``planner.pattern_literals``). ``session_variable``: whether a name that
    is no input column reads a session variable, which DEFINE and MEASURES then read as
    Spark does, once per query."""
    with room_to_nest(clause.sql):
        return _plan_clause(
            clause,
            columns,
            windows=windows,
            ansi=ansi,
            python_measures=python_measures,
            qualifier=qualifier,
            sql_functions=sql_functions,
            python_functions=python_functions,
            column_types=column_types,
            pattern_check=pattern_check,
            session_variable=session_variable,
        )


def _plan_clause(
    clause: ast.MatchRecognizeClause,
    columns: Sequence[str],
    *,
    windows: bool,
    ansi: bool,
    python_measures: bool,
    qualifier: str | None,
    sql_functions: FunctionLookup | None,
    python_functions: PythonLookup | None,
    column_types: Mapping[str, str] | None,
    pattern_check: PatternCheck | None,
    session_variable: Callable[[str], bool] | None,
) -> MatchPlan:
    sql = clause.sql
    _check_clause_shape(clause)
    _refuse_reserved_labels(clause)
    check_window_shape(clause, list(pattern_nodes(clause.pattern)))
    if pattern_check is not None:
        check_pattern_literals(clause, pattern_check, column_types)
    check_literal_arguments(clause, column_types)
    check_constant_arguments(clause)
    label_ids: dict[str, int] = {}
    for label in primary_labels(clause.pattern):
        label_ids.setdefault(label.name, len(label_ids))
    subsets = _subsets(clause, label_ids)
    column_map = {c.lower(): c for c in columns}
    if len(column_map) < len(columns):
        lowered = [c.lower() for c in columns]
        twice = next(c for i, c in enumerate(columns) if c.lower() in lowered[:i])
        first = columns[lowered.index(twice.lower())]
        if first == twice:  # a join's columns, say
            hint = f"the input has two columns named {twice}: keep or rename one in a "
        else:
            hint = (
                f"the input has columns {first} and {twice}, which MATCH_RECOGNIZE does not "
                "tell apart (its names are case-insensitive): rename one in a "
            )
        raise SemanticError(
            f"ambiguous column: {twice} in row pattern input relation",
            sql=sql,
            pos=clause.pattern_pos,
            hint=hint + "subquery that feeds MATCH_RECOGNIZE",
        )
    _refuse_internal_names(columns, clause)
    _check_pattern_size(clause, sql)
    nfa = compile_pattern(clause.pattern, label_ids)
    low = Lowering(
        sql,
        label_ids,
        subsets,
        column_map,
        ansi=ansi,
        python_measures=python_measures,
        pattern_may_be_empty=can_match_empty(nfa),
        program=nfa,
        measures_running=clause.rows_per_match.mode == "all",
        partial_matches=clause.rows_per_match.timeouts,
        input_name=qualifier,
        sql_functions=sql_functions,
        python_functions=python_functions,
        session_variable=session_variable,
    )

    partition_by = [_column_ref(low, e, "PARTITION BY", qualifier) for e in clause.partition_by]
    _refuse_repeated_keys(partition_by, clause)
    # Spark's null order unless written (the standard leaves it): ASC NULLS FIRST, DESC
    # NULLS LAST, as Spark's own ORDER BY and window ORDER BY
    order_by = [
        (
            _column_ref(low, k.expr, "ORDER BY", qualifier),
            k.descending,
            (not k.descending) if k.nulls_first is None else k.nulls_first,
        )
        for k in clause.order_by
    ]
    low.rowtime = order_by[0][0] if order_by else None
    low.column_types = {k.lower(): v for k, v in (column_types or {}).items()}
    # a window's frame starts at the current row: PREV there is NULL, which Spark's LAG
    # over the partition would not give, so the matcher navigates itself
    if order_by and windows and not clause.in_window:
        low.window = window_spec(partition_by, order_by)
    if order_by:
        low.match_window = window_spec(partition_by, order_by)
    elif partition_by:
        low.match_window = "PARTITION BY " + ", ".join(quote(k) for k in partition_by)

    defines: dict[str, DefineLowering] = {}
    for d in clause.defines:
        if d.label in defines:
            raise SemanticError(
                f"pattern variable with name: {label_text(d.label)} is defined twice",
                sql=sql,
                pos=d.label_pos,
                hint="merge the two conditions into one with AND",
            )
        if d.label in subsets:
            raise SemanticError(
                f"defined variable: {label_text(d.label)} is not a primary pattern variable "
                "(it is a SUBSET; DEFINE takes the variables of PATTERN)",
                sql=sql,
                pos=d.label_pos,
                hint="define each variable of the subset instead",
            )
        if d.label not in label_ids:
            raise SemanticError(
                f"defined variable: {label_text(d.label)} is not a primary pattern variable "
                "(it does not appear in PATTERN)",
                sql=sql,
                pos=d.label_pos,
                hint=_empty_permute_hint(clause.pattern)
                or f"pattern variables: {', '.join(label_ids) or '(none)'}",
            )
        defines[d.label] = lower_define(low, d.label, d.expr)

    measures: list[tuple[str, str]] = []
    refuse_twice_named(clause.measures, sql)
    low.measure_texts.update((m.alias.lower(), m.expr.text) for m in clause.measures)
    rows = clause.rows_per_match
    late_rows = rows.late_rows
    with_unmatched = clause.in_window or (rows.mode == "all" and rows.empty == "unmatched")
    frames = clause.frame_functions
    for m in clause.measures:
        if m.alias in clause.frame_functions:
            m = frame_function_measure(m, sql, is_aggregate)
        # a measure read on rows without one (in no match, late) is NULL there
        low.guard_python_udfs = late_rows or (with_unmatched and m.alias not in frames)
        measures.append((m.alias, lower_measure(low, m.expr).spark_sql))

    skip = clause.after_match_skip
    skip_labels: frozenset[int] = frozenset()
    if skip.mode in ("first", "last"):
        name = skip.label or ""
        if name in label_ids:
            skip_labels = frozenset([label_ids[name]])
        elif name in subsets:
            skip_labels = subsets[name]
        else:
            raise SemanticError(
                f"{label_text(name)} is not a primary or union pattern variable (AFTER MATCH "
                "SKIP TO names it)",
                sql=sql,
                pos=skip.pos,
                hint=_SKIP_WORDS.get(name.upper(), "").format(label=next(iter(label_ids), "A"))
                or f"pattern variables: {', '.join([*label_ids, *subsets]) or '(none)'}",
            )

    within_column = None
    within_seconds = None
    if clause.within is not None:
        if not order_by:
            raise SemanticError(
                "WITHIN needs ORDER BY on a time column",
                sql=sql,
                pos=clause.within.pos,
                hint="add ORDER BY <timestamp column>",
            )
        if order_by[0][1]:
            raise SemanticError(
                "WITHIN needs the first ORDER BY key ascending",
                sql=sql,
                pos=clause.order_by[0].expr.pos,
            )
        within_column = order_by[0][0]
        within_seconds = _within_seconds(clause.within, sql)

    if clause.rows_per_match.timeouts and clause.within is None:
        raise SemanticError(
            "WITH TIMEOUTS needs WITHIN: a partial match times out when its WITHIN bound passes",
            sql=sql,
            pos=clause.rows_per_match.timeouts_pos
            if clause.rows_per_match.timeouts_pos >= 0
            else clause.pattern_pos,
            hint="add e.g. WITHIN INTERVAL '10' MINUTE after PATTERN (...)",
        )

    program = PartitionProgram(
        nfa=nfa,
        label_names=list(label_ids),
        defines={label_ids[k]: (v.local_column, v.glue) for k, v in defines.items()},
        history_free=all(v.history_free for v in defines.values()),
        skip_mode=skip.mode,
        skip_labels=skip_labels,
        skip_pos=skip.pos,
        atoms=[(a.evaluate, a.aggregate) for a in low.atoms],
        atom_sources=[(a.text, a.pos) for a in low.atoms],
        sql=sql,
        ansi=ansi,
        one_row=clause.rows_per_match.mode == "one",
        empty_matches=clause.rows_per_match.empty,
        excluded_output=clause.rows_per_match.mode == "one",
        within_column=within_column,
        within_seconds=within_seconds,
        vector_defines=_vector_defines(defines, label_ids),
        define_reach=(
            max((v.reach[0] for v in defines.values()), default=0),
            max((v.reach[1] for v in defines.values()), default=0),
        ),
    )
    if clause.in_window:
        program.window = window_search(
            clause, lambda e: low.precompute(parse_expression(e, sql), e.pos)
        )
    precomputed = [(name, text) for text, name in low.precomputed.items()]
    return MatchPlan(
        clause=clause,
        partition_by=partition_by,
        order_by=order_by,
        precomputed=precomputed,
        atoms=low.atoms,
        measures=measures,
        program=program,
        defines=defines,
        within_column=within_column,
        origins={**low.origins, **{m.alias: m.expr.pos for m in clause.measures}},
        stages=low.stages(),
        input_windows=low.input_windows,
        define_checks=low.define_checks,
        measure_checks=low.measure_checks,
        integer_widths=low.integer_widths,
        calls=low.calls,
        guarded_calls=low.guarded_calls,
    )


#: the prefix of the columns matchrec adds to a row while it matches (``__mr_c0``...)
INTERNAL_PREFIX = "__mr_"


def _refuse_internal_names(columns: Sequence[str], clause: ast.MatchRecognizeClause) -> None:
    """An input column named like one matchrec adds would be confused with it (Spark's
    AMBIGUOUS_REFERENCE, or the wrong column read): refused, saying how to rename it."""
    for name in columns:
        if name.lower().startswith(INTERNAL_PREFIX):
            raise SemanticError(
                f"input column {name} has a name matchrec keeps for its own columns "
                f"({INTERNAL_PREFIX}...)",
                sql=clause.sql,
                pos=clause.pattern_pos,
                hint=f"rename {name} in a subquery that feeds MATCH_RECOGNIZE "
                f"(SELECT {name} AS {name.lstrip('_')}, ... FROM ...)",
            )


def refuse_twice_named(measures: Sequence[ast.Measure], sql: str) -> None:
    """Two measures may not share a name (Spark's names are case-insensitive)."""
    seen: set[str] = set()
    for m in measures:
        if m.alias.lower() in seen:
            raise SemanticError(
                f"two measures are named {m.alias!r}",
                sql=sql,
                pos=m.alias_pos,
                hint="give each measure its own name (names are case-insensitive)",
            )
        seen.add(m.alias.lower())


def refuse_late_rows(clause: ast.MatchRecognizeClause, door: str) -> None:
    """Raise a positioned error if ``clause`` asks WITH LATE ROWS of ``door``, which runs
    no MATCH_RECOGNIZE on a stream of its own (late rows exist only there)."""
    if clause.rows_per_match.late_rows:
        raise UnsupportedError(
            f"WITH LATE ROWS is not available in {door}",
            sql=clause.sql,
            pos=clause.rows_per_match.late_pos,
            hint="drop it; late rows exist only where matchrec.sql or "
            "matchrec.match_recognize run the clause on a stream",
        )


def _refuse_repeated_keys(partition_by: list[str], clause: ast.MatchRecognizeClause) -> None:
    """A column named twice in PARTITION BY (the output would carry it twice)."""
    seen: set[str] = set()
    for name, expr in zip(partition_by, clause.partition_by):
        if name.lower() in seen:
            raise SemanticError(
                f"column {name!r} appears twice in PARTITION BY",
                sql=clause.sql,
                pos=expr.pos,
                hint="name each column once",
            )
        seen.add(name.lower())


def end_anchor(node: ast.PatternNode) -> int | None:
    """Where the pattern has ``$`` (the partition's last row), or None."""
    if isinstance(node, ast.Anchor):
        return node.pos if node.kind == "end" else None
    for child in getattr(node, "items", ()) or ((getattr(node, "inner", None),)):
        if child is not None:
            found = end_anchor(child)
            if found is not None:
                return found
    return None


def refuse_end_anchor(clause: ast.MatchRecognizeClause) -> None:
    """Refuse ``$`` on a stream, whose partitions have no last row."""
    anchor = end_anchor(clause.pattern)
    if anchor is not None:
        raise UnsupportedError(
            "'$' (the partition's last row) never comes on a stream",
            sql=clause.sql,
            pos=anchor,
            hint="drop '$'; use WITHIN to bound how long a match may take",
        )


def refuse_input_windows(plan: MatchPlan) -> None:
    """Refuse a window over the input in DEFINE (``avg(price) OVER (PARTITION BY sym)``,
    ``row_number() OVER (...)``) on a stream: Spark computes no such window on a stream
    (its NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING)."""
    for name, text in plan.precomputed:
        if " OVER " not in text.upper():
            continue
        window = parse_expression(ast.SqlExpr(text, 0), text).find(exp.Window)
        if window is not None:
            raise UnsupportedError(
                "a window function over the input (OVER) cannot run on a stream: Spark "
                "computes such windows on batch tables only",
                sql=plan.clause.sql,
                pos=plan.origins.get(name, plan.clause.pattern_pos),
                hint="compare with PREV/FIRST/LAST or an aggregate over the match (avg(A.price)), "
                "or join a batch table that holds the value",
            )


#: Spark's simple names of the types WITHIN measures a time span on
_TIME_TYPES = ("timestamp", "timestamp_ntz", "timestamp_ltz", "date")


def refuse_untimed_within(
    plan: MatchPlan, type_name: str, hint: str = "order by an event-time column"
) -> None:
    """Refuse WITHIN when the first ORDER BY column (of Spark type ``type_name``) is no
    time: the span would be measured in its values."""
    if plan.within_column is None or type_name.lower() in _TIME_TYPES:
        return
    raise SemanticError(
        f"WITHIN needs ORDER BY on a timestamp or date column; {plan.within_column!r} is "
        f"{type_name.lower()}",
        sql=plan.clause.sql,
        pos=plan.clause.order_by[0].expr.pos,
        hint=hint,
    )


def window_spec(partition_by: list[str], order_by: list[tuple[str, bool, bool]]) -> str:
    """The body of ``OVER (...)`` that orders rows exactly as the runtime sorts them, so
    that Spark computes LAG/LEAD on the already sorted partition without sorting again."""
    parts = []
    if partition_by:
        parts.append("PARTITION BY " + ", ".join(quote(k) for k in partition_by))
    keys = [
        f"{quote(c)} {'DESC' if desc else 'ASC'} NULLS {'FIRST' if first else 'LAST'}"
        for c, desc, first in order_by
    ]
    parts.append("ORDER BY " + ", ".join(keys))
    return " ".join(parts)


#: words of SQL's own syntax that name no pattern variable unless quoted, as in Trino
#: (``PATTERN (STRT AS DOWN+ UP+)`` read AS as a variable that matches any row)
#: (Trino reserves ON and IN too; they are left to name states: ``PATTERN (OFF+ ON+)``)
_RESERVED_WORDS = frozenset(
    "AND AS BETWEEN BY CASE DISTINCT ELSE EXISTS FALSE FROM GROUP HAVING IS JOIN LIKE NOT "
    "NULL OR ORDER SELECT THEN TRUE UNION WHEN WHERE WITH".split()
)


def _refuse_reserved_labels(clause: ast.MatchRecognizeClause) -> None:
    """Raise at an unquoted pattern variable of PATTERN that is a reserved word."""
    for label in primary_labels(clause.pattern):
        word = label.name.upper()
        quoted = 0 <= label.pos < len(clause.sql) and clause.sql[label.pos] in '`"'
        if word in _RESERVED_WORDS and not quoted:
            raise SqlSyntaxError(
                f"{word} is a reserved word: it cannot name a pattern variable",
                sql=clause.sql,
                pos=label.pos,
                hint=f"remove it from PATTERN, or quote it (`{label.name}`) to use it as a "
                "variable's name",
            )


def _check_clause_shape(clause: ast.MatchRecognizeClause) -> None:
    """Refuse what the standard forbids in a MATCH_RECOGNIZE clause as a whole: a pattern
    search modifier (INITIAL or SEEK belong to a window's row pattern) and an exclusion
    with WITH UNMATCHED ROWS (an excluded row would be neither output nor unmatched)."""
    sql = clause.sql
    if clause.initial_pos >= 0 and not clause.in_window:
        word = "INITIAL" if clause.initial else "SEEK"
        raise SemanticError(
            f"pattern search modifier: {word} is not allowed in MATCH_RECOGNIZE clause",
            sql=sql,
            pos=clause.initial_pos,
            hint="drop it: MATCH_RECOGNIZE already tries every row as a start row",
        )
    rows = clause.rows_per_match
    if rows.mode == "all" and rows.empty == "unmatched":
        excluded = next(
            (n for n in pattern_nodes(clause.pattern) if isinstance(n, ast.Exclusion)), None
        )
        if excluded is not None:
            raise SemanticError(
                "pattern exclusion syntax is not allowed when ALL ROWS PER MATCH WITH "
                "UNMATCHED ROWS is specified",
                sql=sql,
                pos=excluded.pos,
                hint="drop the exclusion, or use SHOW EMPTY MATCHES / OMIT EMPTY MATCHES",
            )


def check_output_columns(clause: ast.MatchRecognizeClause) -> None:
    """Refuse a clause whose result has no columns: ONE ROW PER MATCH with neither
    PARTITION BY nor MEASURES (what a relation of no columns would mean in a query is
    nothing Spark can hold). The doors that build a result call it before planning."""
    if clause.in_window:
        return  # a window's rows are the input's, with or without measures
    if clause.rows_per_match.mode == "one" and not clause.partition_by and not clause.measures:
        raise SemanticError(
            "pattern recognition output table has no columns: ONE ROW PER MATCH outputs the "
            "PARTITION BY columns and the MEASURES, and there are none",
            sql=clause.sql,
            pos=clause.pattern_pos,
            hint="add MEASURES (e.g. MATCH_NUMBER() AS match) or use ALL ROWS PER MATCH",
        )


def _subsets(
    clause: ast.MatchRecognizeClause, label_ids: dict[str, int]
) -> dict[str, frozenset[int]]:
    subsets: dict[str, frozenset[int]] = {}
    for s in clause.subsets:
        if s.name in label_ids:
            raise SemanticError(
                f"union pattern variable name: {label_text(s.name)} is a duplicate of primary "
                "pattern variable name",
                sql=clause.sql,
                pos=s.pos,
                hint="give the subset a name of its own",
            )
        if s.name in subsets:
            raise SemanticError(
                f"union pattern variable name: {label_text(s.name)} is declared twice",
                sql=clause.sql,
                pos=s.pos,
            )
        ids = []
        for i, label in enumerate(s.labels):
            if label not in label_ids:
                pos = s.label_pos[i] if i < len(s.label_pos) else s.pos
                raise SemanticError(
                    f"subset element: {label_text(label)} is not a primary pattern variable "
                    f"(in SUBSET {label_text(s.name)})",
                    sql=clause.sql,
                    pos=pos,
                    hint=f"pattern variables: {', '.join(label_ids) or '(none)'}",
                )
            ids.append(label_ids[label])
        subsets[s.name] = frozenset(ids)
    return subsets


#: a word of AFTER MATCH SKIP read as a variable's name -> what was likely meant
_SKIP_WORDS = {
    "NEXT": "did you mean AFTER MATCH SKIP TO NEXT ROW?",
    "LAST": "SKIP TO LAST names a variable: AFTER MATCH SKIP TO LAST {label}",
    "FIRST": "SKIP TO FIRST names a variable: AFTER MATCH SKIP TO FIRST {label}",
}

_NAME = r'(?:[A-Za-z_][A-Za-z0-9_]*|`(?:[^`]|``)+`|"(?:[^"]|"")+")'
_QUALIFIED = re.compile(rf"^\s*({_NAME})\s*\.\s*({_NAME})\s*$")


def _unquoted(name: str) -> str:
    if len(name) > 1 and name[0] == name[-1] and name[0] in '`"':
        return name[1:-1].replace(name[0] * 2, name[0])
    return name


def _column_ref(low: Lowering, expr: ast.SqlExpr, where: str, qualifier: str | None) -> str:
    """The input column a PARTITION BY or ORDER BY item names: ``x``, `` `x` `` or, with
    the input relation's name, ``t.x``."""
    text = expr.text.strip()
    qualified = _QUALIFIED.match(text)
    if qualified:
        head = _unquoted(qualified.group(1))
        foreign = qualifier is None or head.lower() != qualifier.lower()
        if foreign and head.lower() in low.columns:
            raise SemanticError(
                f"Expected column reference. Actual: {text} (a field of column "
                f"{low.columns[head.lower()]}; {where} takes column names, not expressions)",
                sql=low.sql,
                pos=expr.pos,
                hint=f"name the field in a subquery, e.g. SELECT *, {text} AS "
                f"{_unquoted(qualified.group(2))} FROM ...",
            )
        if foreign:
            named = f"the input is {qualifier}" if qualifier else "the input has no name"
            raise SemanticError(
                f"unknown column {text!r} in {where}: {named}",
                sql=low.sql,
                pos=expr.pos,
                hint=f"input columns: {', '.join(users_columns(low.columns.values()))}",
            )
        text = qualified.group(2)
    name = _unquoted(text)
    real = low.columns.get(name.lower())
    if real is None:
        known = ", ".join(users_columns(low.columns.values()))
        refuse_misspelled_order(low.sql, expr)
        if text == name and not name.replace("_", "").isalnum():
            one_line = " ".join(text.split())
            words = re.fullmatch(r"\w+(?:\s+\w+)+", one_line) is not None
            shown = one_line if re.fullmatch(r"\w+\s*\(.*\)", one_line) else f"({one_line})"
            raise SemanticError(
                f"Expected column reference. Actual: {shown} ({where} takes column names, not "
                "expressions)",
                sql=low.sql,
                pos=expr.pos,
                hint="a keyword misspelled, or a comma missing between two columns?"
                if words
                else "compute the expression in a subquery and name it",
            )
        raise SemanticError(
            f"Column {name} is not present in the input relation ({where})",
            sql=low.sql,
            pos=expr.pos,
            hint=f"input columns: {known}",
        )
    return real


#: a word after an ORDER BY item that means a keyword of Spark's -> that keyword
_ORDER_WORDS = {"DESCENDING": "DESC", "ASCENDING": "ASC", "NULL": "NULLS"}
_ORDER_ITEM = re.compile(rf"\s*{_NAME}\s+(\w+)\b")
#: ``PARTITION BY k ORDER BT ts``: the ORDER BY clause misspelled after its BY
_ORDER_CLAUSE = re.compile(r"\sORDER\s+(\w+)\b", re.IGNORECASE)


def refuse_misspelled_order(sql: str, expr: ast.SqlExpr) -> None:
    """``ORDER BY id DESCENDING`` (or ``NULL FIRST``) reads as an expression with an alias,
    and ``PARTITION BY k ORDER BT ts`` as one PARTITION BY item: raise at the word, with
    the keyword meant."""
    found = _ORDER_ITEM.match(expr.text)
    meant = _ORDER_WORDS.get(found.group(1).upper()) if found else None
    if meant is None:
        found = _ORDER_CLAUSE.search(expr.text)
        if found is not None and found.group(1).upper() != "BY":
            meant = "ORDER BY"
    if meant is not None:
        raise SqlSyntaxError(
            f"unexpected {found.group(1)!r}",
            sql=sql,
            pos=expr.pos + found.start(1),
            hint=f"did you mean {meant}?",
        )


def _within_seconds(within: ast.Within, sql: str) -> float:
    unit = within.unit.upper().rstrip("S")
    try:
        amount = float(within.amount)
    except ValueError:
        raise SemanticError(
            f"WITHIN needs a number, got {within.amount!r}", sql=sql, pos=within.pos
        ) from None
    if unit not in _UNIT_SECONDS or amount < 0:
        raise SemanticError(
            f"unsupported WITHIN interval {within.amount!r} {within.unit}",
            sql=sql,
            pos=within.pos,
            hint=f"units: {', '.join(_UNIT_SECONDS)}",
        )
    return amount * _UNIT_SECONDS[unit]


def _vector_defines(
    defines: dict[str, DefineLowering], label_ids: dict[str, int]
) -> dict[int, VExpr] | None:
    """Every DEFINE glue as an array expression, or None if one has no array form."""
    out: dict[int, VExpr] = {}
    for name, lowered in defines.items():
        if lowered.glue is None:
            continue
        if lowered.vector is None:
            return None
        out[label_ids[name]] = lowered.vector
    return out
