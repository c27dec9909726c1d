"""Lower MEASURES and DEFINE expressions to what the runtime executes.

An expression of a MATCH_RECOGNIZE clause mixes three kinds of parts:

* **row-local** parts that read only the current row (``price * 2``, ``A.price`` inside
  ``DEFINE A``, constants, subqueries): Spark computes them once per row, as extra
  columns, before matching (full Spark SQL fidelity, vectorized in the JVM);
* **atoms** that read the match: navigation (``PREV``/``NEXT``/``FIRST``/``LAST``, a
  label-qualified column), ``CLASSIFIER()``, ``MATCH_NUMBER()``, aggregates over labels;
  they are evaluated where the matching runs (``matchrec.navigation``);
* **glue** around atoms. In DEFINE it runs in Python during matching (``pyeval``); in
  MEASURES it is handed back to Spark as an expression over the atom columns, so the
  measure's value and type are exactly what Spark computes.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import partial

import sqlglot
from sqlglot import exp
from sqlglot.errors import ErrorLevel

from matchrec import navigation as nav
from matchrec.ast import SqlExpr
from matchrec.errors import SemanticError, SqlSyntaxError, UnsupportedError
from matchrec.fewest_rows import fewest_at_row, fewest_in_match
from matchrec.integer_width import IntegerWidth, LongSum
from matchrec.moments import STATISTICS
from matchrec.navigation import Evaluator, RowValue
from matchrec.nfa import Program
from matchrec.vector_define import VExpr

from . import within_group
from .bit_functions import SHIFTS, shift_args, shift_name
from .close_names import close_match
from .collation_calls import collation_of, collation_sensitive
from .collation_calls import refusal as collation_refusal
from .datetime_steps import moved_midnight
from .decompose import DECODED, is_internal
from .foreign_functions import foreign_call_error, written_as
from .function_arity import arity_error as builtin_arity_error
from .function_types import dtype, internal_probe, is_interval, is_year_month
from .glue_functions import COMPARISONS
from .guarded_calls import GuardedCall
from .guarded_calls import lift as lift_calls
from .higher_order import (
    HIGHER_ORDER,
    bound_name,
    compiled_lambdas,
    higher_order_parts,
    parameter_probe,
    reads_outer_parameter,
)
from .implicit_casts import (
    COERCING,
    StringCasts,
    implicit_cast,
    is_string_literal,
    literal_cast,
)
from .lazy import lazily_evaluated, may_raise
from .navigation_aliases import as_navigation
from .pushdown import compiles_with_casts, failing_cast, failing_subscript, push_down
from .pyeval import (
    CHOSEN_ROW,
    call_args,
    check_format_pattern,
    compile_glue,
    compiles,
    date_cast,
    evaluates,
    glue_function_call,
    shallow,
)
from .python_udfs import ARROW_BATCHED_UDF, BATCHED_UDF, PythonFunction, PythonLookup, arity_error
from .python_udfs import glue_call as udf_glue_call
from .python_udfs import refusal as udf_refusal
from .python_udfs import refusal_hint as udf_refusal_hint
from .raising_calls import fails_on_plain_values, fails_on_values
from .sql_functions import (
    ChangedSettings,
    FunctionLookup,
    SqlFunction,
    UnknownFunction,
    inline_sql_functions,
    read_definition,
)
from .sqltext import (
    MARKED_CALL,
    ROW_PATTERN_CALLS,
    SEMANTICS_MARK,
    MatchRecognizeDialect,
    balanced_chains,
    builtin_name,
    call_name,
    call_pos,
    call_start,
    node_pos,
    parse_expression,
    quote,
    written_call,
)
from .struct_fields import check_field_path
from .type_checks import (
    TypeCheck,
    build_check,
    cast_check,
    condition_check,
    numeric_check,
    operands_of,
    pair_call,
    pair_check,
    pair_operands,
    replace_probes,
    rewritten_back,
    user_text,
)
from .type_names import read_named_type, type_name
from .typed_calls import TYPED_CALLS, TypedCall, type_refusal, typed_args, typed_name
from .vector_lowering import vector_glue

NAVIGATION = {"PREV", "NEXT", "FIRST", "LAST"}
PHYSICAL = {"PREV", "NEXT"}
_MAX_OFFSET = 2**31 - 1  # navigation offsets are 32-bit, as in Trino
SPECIAL = {"CLASSIFIER", "MATCH_NUMBER"}
AGGREGATE_NODES: dict[type, str] = {
    exp.Count: "COUNT",
    exp.Sum: "SUM",
    exp.Avg: "AVG",
    exp.Min: "MIN",
    exp.Max: "MAX",
    exp.ArrayAgg: "ARRAY_AGG",
    exp.ArgMax: "MAX_BY",
    exp.ArgMin: "MIN_BY",
    exp.LogicalAnd: "BOOL_AND",
    exp.LogicalOr: "BOOL_OR",
    exp.CountIf: "COUNT_IF",
    exp.GroupConcat: "LISTAGG",
    exp.Stddev: "STDDEV",
    exp.StddevSamp: "STDDEV_SAMP",
    exp.StddevPop: "STDDEV_POP",
    exp.Variance: "VARIANCE",
    exp.VariancePop: "VAR_POP",
    exp.AnyValue: "ANY_VALUE",
    exp.Median: "MEDIAN",
    exp.Quantile: "PERCENTILE",
    exp.ApproxQuantile: "PERCENTILE_APPROX",
    exp.Mode: "MODE",
    exp.FirstValue: "FIRST_VALUE",
    exp.LastValue: "LAST_VALUE",
    exp.BitwiseAndAgg: "BIT_AND",
    exp.BitwiseOrAgg: "BIT_OR",
    exp.BitwiseXorAgg: "BIT_XOR",
    exp.ApproxDistinct: "APPROX_COUNT_DISTINCT",
}
# Spark's statistical aggregates (matchrec.moments), where this sqlglot has a node for one
for _name in STATISTICS:
    _node = getattr(exp, _name.title().replace("_", ""), None)
    if _node is not None:
        AGGREGATE_NODES[_node] = _name

#: Spark's aggregate functions that sqlglot reads as plain calls: an error where matchrec
#: has no version of one (Spark would otherwise fail with MISSING_GROUP_BY)
SPARK_AGGREGATE_CALLS = frozenset(
    "APPROX_TOP_K APPROX_TOP_K_ACCUMULATE APPROX_TOP_K_COMBINE BITMAP_AND_AGG "
    "BITMAP_CONSTRUCT_AGG BITMAP_OR_AGG COLLECT_UNION COUNT_MIN_SKETCH GROUPING "
    "GROUPING_ID HISTOGRAM_NUMERIC HLL_SKETCH_AGG HLL_UNION_AGG KLL_SKETCH_AGG_BIGINT "
    "KLL_SKETCH_AGG_DOUBLE KLL_SKETCH_AGG_FLOAT KLL_MERGE_AGG_BIGINT KLL_MERGE_AGG_DOUBLE "
    "KLL_MERGE_AGG_FLOAT MEASURE PRODUCT THETA_SKETCH_AGG THETA_INTERSECTION_AGG "
    "THETA_UNION_AGG TUPLE_SKETCH_AGG_DOUBLE TUPLE_SKETCH_AGG_INTEGER "
    "TUPLE_INTERSECTION_AGG_DOUBLE TUPLE_INTERSECTION_AGG_INTEGER TUPLE_UNION_AGG_DOUBLE "
    "TUPLE_UNION_AGG_INTEGER TRY_AVG TRY_SUM APPROX_COUNT_DISTINCT BIT_AND BIT_OR "
    "BIT_XOR".split()
)
for _name in ("ArrayUniqueAgg", "CollectSet"):
    if hasattr(exp, _name):
        AGGREGATE_NODES[getattr(exp, _name)] = "COLLECT_SET"
if hasattr(exp, "CollectList"):
    AGGREGATE_NODES[exp.CollectList] = "COLLECT_LIST"


@dataclass
class Atom:
    """A value read from the match; ``probe`` is Spark SQL whose type is the atom's type."""

    name: str
    evaluate: Evaluator
    probe: str
    aggregate: bool = False
    text: str = ""  # the value as the user wrote it (``LAST(B.price)``), for messages
    pos: int | None = None  # where it starts in the query, for messages


@dataclass
class Lowering:
    """Shared state while lowering all expressions of one clause."""

    sql: str
    label_ids: Mapping[str, int]
    subsets: Mapping[str, frozenset[int]]
    columns: Mapping[str, str]  # lower-case name -> name as in the input
    precomputed: dict[str, str] = field(default_factory=dict)  # spark sql text -> column
    atoms: list[Atom] = field(default_factory=list)
    # precomputed column -> offset in ``sql`` of the expression it was made from
    origins: dict[str, int] = field(default_factory=dict)
    # lower-case name of each function DEFINE and MEASURES call that is no built-in one
    # (a UDF) -> the offset in ``sql`` of its first call
    calls: dict[str, int] = field(default_factory=dict)
    # lower-case name -> the session's UDF of that name, once looked up (None: none)
    session_functions: dict[str, object] = field(default_factory=dict)
    # lower-case name -> the session's Python UDF of that name, once looked up (None: none)
    python_udfs: dict[str, PythonFunction | None] = field(default_factory=dict)
    # the OVER (...) body that PREV/NEXT of row-local values become (None: no ORDER BY)
    window: str | None = None
    # the OVER (...) body of the clause's PARTITION BY and ORDER BY, which a window over
    # the input in DEFINE written with neither takes (None: the clause has neither)
    match_window: str | None = None
    # whether a DEFINE holds a window over the input, whose own shuffle and sort the
    # runtime must undo (its rows sorted again before matching)
    input_windows: bool = False
    # each distinct LAG/LEAD(...) OVER (...) in precomputed columns -> the column
    # (``__mr_wN``) that computes it once, in a select before the ``__mr_cN`` columns
    windows: dict[str, str] = field(default_factory=dict)
    # precomputed column -> its Spark SQL with every window replaced by its ``__mr_wN``
    staged: dict[str, str] = field(default_factory=dict)
    # pattern variable -> the precomputed column of its DEFINE's row-local conjuncts,
    # true at every row the match labels with it (none: no such part)
    local_conditions: dict[str, str] = field(default_factory=dict)
    # while a MEASURES aggregate's arguments are lowered: the (text, staged text) of a
    # condition true at every row it reads, which each computed column of them is guarded
    # by (``aggregate_guard``)
    guard: tuple[str, str] | None = None
    # operand types of DEFINE operators (over the input with precomputed columns) and of
    # MEASURES operators (over the matched rows), checked when the query is built
    define_checks: list[TypeCheck] = field(default_factory=list)
    measure_checks: list[TypeCheck] = field(default_factory=list)
    # the integer operators of DEFINE's glue, whose width the runtime sets from Spark's
    # type of each before the query runs
    integer_widths: list[IntegerWidth] = field(default_factory=list)
    # spark.sql.ansi.enabled of the session: DEFINE's glue raises where Spark raises
    ansi: bool = True
    # MEASURES glue runs in Python (the table function), not in Spark: functions of one
    # navigated row move inside the navigation; ``pattern_may_be_empty`` keeps the
    # functions that are not NULL-preserving out (an empty match has no row to read
    # their f(NULL) at)
    python_measures: bool = False
    pattern_may_be_empty: bool = False
    # a measure that Spark computes with NULL on some rows (a row in no match, a late
    # row): its Python UDF calls go to columns computed on the other rows only
    guard_python_udfs: bool = False
    guarded_calls: list[GuardedCall] = field(default_factory=list)
    # the compiled pattern, which says how many rows of a variable every match has
    # (``matchrec.fewest_rows``): a moved navigation that always finds its row needs no
    # f(NULL) column for an absent one (a Python UDF that cannot take None fails on it)
    program: Program | None = None
    # whether MEASURES are read before a match's last row too (ALL ROWS PER MATCH) and
    # whether a match may end early (a timed-out partial match)
    measures_running: bool = False
    partial_matches: bool = False
    # the input relation's name (its alias or table name), which a subquery of MEASURES
    # or DEFINE must not use: it is evaluated once, not per row of the match
    input_name: str | None = None
    # every measure's alias (lower case) -> its expression as written, for the hint when
    # a measure names another one (not in scope: the standard's rule, also Trino's)
    measure_texts: dict[str, str] = field(default_factory=dict)
    # the session's SQL UDFs, looked up by name (None: no session at hand)
    sql_functions: FunctionLookup | None = None
    # the session's Python UDFs, looked up by name (None: no session at hand)
    python_functions: PythonLookup | None = None
    # whether a reference (its SQL text: ``lim``, ``system.session.lim``) reads a session
    # variable of Spark's (None: no session to ask, as in the table function)
    session_variable: Callable[[str], bool] | None = None
    # the first ORDER BY column, which Flink's MATCH_ROWTIME() reads (None: no ORDER BY)
    rowtime: str | None = None
    # each input column's Spark type (lower-case name -> simpleString), where known
    column_types: dict[str, str] = field(default_factory=dict)
    # (id of a node, plain) -> (the node, :meth:`fails_alone` of it)
    _fails_alone: dict[tuple[int, bool], tuple[exp.Expression, bool]] = field(default_factory=dict)

    # ------------------------------------------------------------------ helpers

    def error(
        self, cls: type, message: str, node: exp.Expression, base: int, hint: str | None = None
    ):
        return cls(message, sql=self.sql, pos=node_pos(node, base, self.sql), hint=hint)

    def always_found(self, kind: str, offset: int, label: str | None, at: str | None) -> bool:
        """Whether ``FIRST``/``LAST`` (``kind``) of variable ``label`` (None: any row) at
        ``offset`` finds its row wherever it is read: in DEFINE of variable ``at``, or in
        MEASURES (``at`` None), where an empty match reads no row at all."""
        if self.program is None or (at is None and self.pattern_may_be_empty):
            return False
        counted = self.label_ids.get(label, None) if label is not None else None
        ids = frozenset([counted]) if counted is not None else self.subsets.get(label)
        if label is not None and ids is None:
            return False
        if at is not None:
            fewest = fewest_at_row(self.program, ids, frozenset([self.label_ids[at]]))
        elif self.partial_matches or (self.measures_running and kind == "LAST"):
            fewest = fewest_at_row(self.program, ids, None)  # (FIRST reads the whole match)
        else:
            fewest = fewest_in_match(self.program, ids)
        return fewest > offset

    def label_set(self, name: str | None, node: exp.Expression, base: int) -> frozenset[int] | None:
        """Label ids a qualifier stands for; None for the universal variable (no qualifier).

        ``node`` locates the qualifier in errors: a column reference or the name itself."""
        if name is None:
            return None
        if name in self.label_ids:
            return frozenset([self.label_ids[name]])
        if name in self.subsets:
            return self.subsets[name]
        if isinstance(node, exp.Column) and isinstance(node.args.get("table"), exp.Expression):
            node = node.args["table"]
        known = ", ".join([*self.label_ids, *self.subsets]) or "(none)"
        hint = f"pattern variables: {known}"
        column = self.columns.get(name.lower())
        if column is not None:
            hint = (
                f"{column!r} is an input column; the name before '.' must be a pattern "
                f"variable ({known}) or a struct column"
            )
        else:
            close = close_match(name, [*self.label_ids, *self.subsets])
            if close:
                hint = f"did you mean {close}? {hint}"
            else:
                hint += " (a qualifier names a pattern variable, not a table)"
        raise self.error(
            SemanticError,
            f"{name} is not a primary pattern variable or subset name",
            node,
            base,
            hint,
        )

    def column(self, node: exp.Column, base: int) -> str:
        name = node.name
        real = self.columns.get(name.lower())
        if real is None:
            target = node.this if isinstance(node.this, exp.Expression) else node
            known = ", ".join(users_columns(self.columns.values())) or "(none)"
            close = close_match(name, users_columns(self.columns.values()))
            hint = f"input columns: {known}"
            if close:
                hint = f"did you mean {close}? {hint}"
            measure = None if _qualifier(node) else self.measure_texts.get(name.lower())
            if measure is not None:
                hint = (
                    f"{name} is a measure, and a measure cannot use another (the SQL "
                    f"standard's scope, unlike Spark's lateral column aliases in SELECT): "
                    f"write its expression, {measure}, in its place"
                )
            if any(mark in name for mark in _TYPOGRAPHIC_QUOTES):
                plain = name.strip("".join(_TYPOGRAPHIC_QUOTES))
                hint = (
                    f"‘ ’ and “ ” are no SQL quotes (text pasted from a document?): write "
                    f"'{plain}' for a string, `{plain}` for a column"
                )
            q = _qualifier(node)
            what = f"Column {name} prefixed with label {q}" if q else f"Column {name!r}"
            raise self.error(SemanticError, f"{what} cannot be resolved", target, base, hint)
        return real

    def precompute(self, node: exp.Expression, base: int) -> str:
        """Column name holding ``node`` (row-local, qualifiers stripped) computed by Spark."""
        if isinstance(node, exp.Column) and not isinstance(node.this, exp.Star):
            return self.column(node, base)
        template, windows = self._render(node, base)
        text = self._fill(template, {marker: window for marker, window, _ in windows})
        guard = self.guard if any(isinstance(n, exp.Column) for n in node.walk()) else None
        if guard is not None:
            text = f"CASE WHEN {guard[0]} THEN {text} END"
        if text not in self.precomputed:
            name = f"__mr_c{len(self.precomputed)}"
            self.precomputed[text] = name
            self.origins[name] = node_pos(node, base, self.sql)
            for _, window, call in windows:
                if window not in self.windows:
                    column = f"__mr_w{len(self.windows)}"
                    self.windows[window] = column
                    self.origins[column] = node_pos(call, base, self.sql)
            columns = {marker: quote(self.windows[window]) for marker, window, _ in windows}
            staged = self._fill(template, columns)
            if guard is not None:
                staged = f"CASE WHEN {guard[1]} THEN {staged} END"
            self.staged[name] = staged
        return self.precomputed[text]

    @property
    def columns_as_ansi(self) -> bool:
        """Whether the columns asked of Spark are chosen as under ANSI mode: with it on,
        and always for the table function, which plans under ANSI mode (``analyze`` has
        no session) and again in its tasks: the columns it asked for must be the same."""
        return self.ansi or self.python_measures

    def may_fail(self, node: exp.Expression) -> bool:
        """Whether Spark's column of ``node`` can fail on some row's values: a CAST that
        can fail under ANSI mode, a subscript, a UDF's call or a function that fails on
        some values (``parse_json``, ``planner.raising_calls``),
        a division or remainder under ANSI mode (with Python measures: whatever the
        session's mode). Arithmetic and comparisons stay
        unguarded: the array form of DEFINE's rules computes them, and CASE it has not."""
        if failing_subscript(node) or any(
            isinstance(n, exp.Anonymous) or fails_on_values(n) for n in node.walk()
        ):
            return True
        if not self.columns_as_ansi:
            return False
        return failing_cast(node, self.column_types.get) or any(may_raise(n) for n in node.walk())

    def compares_strings(self, node: exp.Expression) -> bool:
        """Whether DEFINE's glue casts a string that ``node`` (a comparison, IN) compares
        with a value of another type, as Spark does without ANSI mode (under it such a
        mix is refused when the query is built: Spark fails on the first string that
        does not convert): an operand other than a literal whose type is STRING or not
        known here (the runtime's types decide)."""
        if self.ansi or isinstance(node, exp.Between) or not _compared(node):
            return False
        for operand in _compared(node):
            if not _constant(operand):
                typed = _value_type(self, navigated_value(operand))
                if typed is None or typed.is_type(*exp.DataType.TEXT_TYPES):
                    return True
        return False

    def fails_alone(self, node: exp.Expression, plain: bool = False) -> bool:
        """Whether Spark's evaluation of ``node`` itself (not its operands) can fail on
        some row's values, and the glue computes it as Spark does: a CAST of a column
        that can fail, a division and (not ``plain``) integer arithmetic under ANSI
        mode, a subscript of an array, a function of ``planner.raising_calls``
        (``raise_error``, ``unbase64``...). Such a part is computed where the query
        reads it, not by Spark on every row.
        ``plain``: also one ``pyeval.compile_glue`` computes alone, without the types
        DEFINE's glue reads (not a typed call, a shift, a higher-order function)."""
        known = self._fails_alone.get((id(node), plain))
        if known is not None and known[0] is node:  # (asked again of each lazy part)
            return known[1]
        found = self._failing_alone(node, plain)
        self._fails_alone[(id(node), plain)] = (node, found)
        return found

    def _failing_alone(self, node: exp.Expression, plain: bool) -> bool:
        ansi = self.columns_as_ansi
        fails = (
            # (a CAST: below; a function that parses text or reads a pattern stays
            # Spark's column for speed, as README says: raising_calls.PARSING)
            (fails_on_plain_values(node) and not date_cast(node))
            or (ansi and may_raise(node))
            # (element_at's index 0 fails with or without ANSI mode)
            or (
                isinstance(node, exp.Bracket)
                and failing_subscript(node)
                and (ansi or node.args.get("offset") == 1)
            )
            or (
                ansi
                and _is_cast(node)
                and node.this.find(exp.Column) is not None
                and failing_cast(node, self.column_types.get)
                and self._casts_from(node.this)
            )
        )
        if not fails and isinstance(node, (*_OVERFLOWING, exp.Abs)):
            typed = _value_type(self, node)
            # integer arithmetic that overflows under ANSI mode (the glue fits each
            # result to Spark's width, which a plain evaluation would not); day-time
            # interval arithmetic overflows in either mode, and ``pyeval`` checks it
            fails = (
                not plain
                and ansi
                and isinstance(node, _OVERFLOWING)
                and typed is not None
                and typed.this in _INTEGRAL_TYPES
            ) or (is_interval(typed) and not is_year_month(typed))
        if not fails or not compiles_with_casts(_alone(node)):
            return False
        return not plain or (
            typed_name(node) is None
            and shift_name(node) is None
            and higher_order_parts(node) is None
        )

    def _casts_from(self, operand: exp.Expression) -> bool:
        """Whether the glue casts values of ``operand``'s type as Spark does: text, a
        number, a date or timestamp, a BOOLEAN (not a VARIANT's path, a struct...)."""
        typed = _value_type(self, operand)
        return typed is not None and typed.this in _GLUE_CAST_SOURCES

    def read_lazily(self, node: exp.Expression) -> set[int]:
        """The ``id`` of each part of ``node``, the argument of a navigation or an
        aggregate, that is computed at the rows read (``sum(CAST(B.s AS INT))`` casts
        B's rows only, as Spark computes an argument where the query reads it): ``node``
        itself if it can fail alone (:meth:`fails_alone`), and so on down its operands.
        Empty when ``node`` cannot fail, or fails inside arithmetic whose width Spark's
        column keeps (``CAST(B.s AS INT) + 1`` stays a column)."""
        top = _unparen(node)
        if not self.fails_alone(top, plain=True):
            return set()
        found = {id(top)}
        for child in top.iter_expressions():
            found |= self.read_lazily(child)
        return found

    def aggregate_guard(self, labels: frozenset[int] | None) -> tuple[str, str] | None:
        """The condition of the rows an aggregate over ``labels`` (None: every variable)
        reads: the OR of their DEFINEs' row-local conjuncts, as (text, staged text); None
        when a variable has none (a row of any value may be labelled with it). A computed
        argument guarded by it is NULL at other rows, which the aggregate never reads: a
        function that fails on another event's value (``CAST(s AS INT)`` under ANSI mode,
        a UDF) cannot fail the job, as Spark's ``agg(f(x)) FILTER (WHERE ...)`` does not."""
        names = [n for n, i in self.label_ids.items() if labels is None or i in labels]
        columns = [self.local_conditions.get(n) for n in names]
        if not columns or None in columns:
            return None
        texts = {name: text for text, name in self.precomputed.items()}
        # an input column (``DEFINE P AS flag``) is its own text
        text = " OR ".join(f"({texts.get(c) or quote(c)})" for c in columns)  # type: ignore[arg-type]
        staged = " OR ".join(f"({self.staged.get(c) or quote(c)})" for c in columns)  # type: ignore[arg-type]
        return text, staged

    def spark_sql(self, node: exp.Expression, base: int) -> str:
        """Spark SQL text of a row-local subtree with label qualifiers removed; PREV/NEXT
        become ``LAG``/``LEAD(...) OVER (window)`` written out in the text."""
        template, windows = self._render(node, base)
        return self._fill(template, {marker: window for marker, window, _ in windows})

    def stages(self) -> list[list[tuple[str, str]]]:
        """The selects that add the precomputed columns, in order: (column, Spark SQL)
        reading input columns and columns of earlier selects only.

        Without PREV/NEXT of row-local values that is one select of ``precomputed``.
        With them, a first select computes each distinct window once (``__mr_wN``) and a
        second one the ``__mr_cN`` columns over those: Spark does not merge equal window
        expressions of one select (``price < PREV(price)`` and ``price > PREV(price)``
        would compute the same LAG twice)."""
        columns = [(name, text) for text, name in self.precomputed.items()]
        if not self.windows:
            return [columns] if columns else []
        return [
            [(column, window) for window, column in self.windows.items()],
            [(name, self.staged[name]) for name, _ in columns],
        ]

    def _render(
        self, node: exp.Expression, base: int
    ) -> tuple[str, list[tuple[str, str, exp.Expression]]]:
        """Spark SQL of ``node`` with each PREV/NEXT call left as a marker, and per marker
        the ``LAG``/``LEAD(...) OVER (...)`` it stands for and the call in ``node``."""
        copy = node.copy()
        # pair the calls of the copy with those of ``node`` (for positions) before the
        # column references change shape
        calls = [(c, n) for c, n in zip(copy.walk(), node.walk()) if _special_kind(c) in PHYSICAL]
        for col in list(_columns(copy)):
            real = self.column(col, base)
            col.replace(exp.column(real, quoted=True))
        windows: list[tuple[str, str, exp.Expression]] = []
        for call, origin in calls:
            kind = _special_kind(call)
            args = list(call.expressions)
            steps = self.offset(args, call, base, default=1, what=kind)
            inner = args[0].sql(dialect=MatchRecognizeDialect)
            function = "LAG" if kind == "PREV" else "LEAD"
            marker = f"__mr_window_{len(windows)}__"
            windows.append((marker, f"{function}({inner}, {steps}) OVER ({self.window})", origin))
            if call is copy:  # the whole expression is the call: nothing to replace it in
                copy = exp.column(marker)
            else:
                call.replace(exp.column(marker))
        return copy.sql(dialect=MatchRecognizeDialect), windows

    @staticmethod
    def _fill(template: str, parts: Mapping[str, str]) -> str:
        """``template`` with each marker of ``parts`` replaced by its text."""
        for marker, text in parts.items():
            template = template.replace(marker, text)
        return template

    def label_of(self, node: exp.Expression, base: int, what: str) -> tuple[str | None, bool]:
        """The one qualifier used by column references and CLASSIFIER in a navigation or
        aggregate argument, and whether any reference exists. Mixing labels is an error."""
        refs = sorted(_label_refs(node), key=lambda r: node_pos(r[1], base))
        names: list[str | None] = []
        for name, ref in refs:
            if names and name != names[0]:
                first, other = (_shown(n) for n in (names[0], name))
                label = names[0] if name is None else name if names[0] is None else None
                if label is not None and not re.fullmatch(r"[A-Za-z_]\w*", label):
                    label = f'"{label}"'  # a delimited label, as written
                hint = f"use one {what} per pattern variable, e.g. {what}(A.x) - {what}(B.x)"
                if label is not None:  # a label beside an unqualified column or CLASSIFIER()
                    hint = (
                        f"qualify each column and CLASSIFIER in the {what} with {label}: "
                        f"{label}.x, CLASSIFIER({label})"
                    )
                raise self.error(
                    SemanticError,
                    f"{_mixing_rule(refs, what)} (it mixes {first} and {other})",
                    ref,
                    base,
                    hint=hint,
                )
            names.append(name)
        return (names[0] if names else None), bool(names)

    # ------------------------------------------------------------------ atoms

    def row_source(self, node: exp.Expression, base: int, what: str) -> RowValue:
        """How to read the argument of a navigation or aggregate at a given row."""
        inner = _unparen(node)
        kind = _special_kind(inner)
        if kind == "CLASSIFIER":
            return nav.classifier_at
        if kind == "MATCH_NUMBER":
            return nav.match_number_at
        for sub in _walk(inner):
            k = _special_kind(sub)
            if k in ("FIRST", "LAST") and what in PHYSICAL:
                raise self.error(
                    SemanticError,
                    _nesting_rule(inner, what),
                    sub,
                    base,
                    hint=f"write e.g. {what}({k}(A.x), 1) + 1, not {what}({k}(A.x) + 1)",
                )
            if k in NAVIGATION:
                raise self.error(
                    SemanticError,
                    f"Cannot nest {k.lower()} pattern navigation function inside {what.lower()} "
                    "pattern navigation function",
                    sub,
                    base,
                    hint=nesting_hint(k, what),
                )
            agg = _aggregate_name(sub)
            if agg:
                raise self.error(
                    SemanticError,
                    f"Cannot nest {agg.lower()} aggregate function inside {what.lower()} function",
                    sub,
                    base,
                    hint=nesting_hint(agg, what),
                )
        return self.special_source(inner, base)

    def special_source(self, node: exp.Expression, base: int) -> RowValue:
        """How to read ``node`` (no navigation or aggregate inside) at a row, where it may
        use CLASSIFIER() and MATCH_NUMBER() of that row.

        CLASSIFIER() has few values (the labels, or NULL outside the match): Spark
        computes ``node`` once per value, as columns, and the row's label picks one
        (:class:`~matchrec.navigation.ByLabel`), whatever functions ``node`` calls.
        MATCH_NUMBER() is known only while matching: DEFINE's glue evaluator computes
        what surrounds it, over columns Spark computes (the parts without it)."""
        if any(_special_kind(n) == "CLASSIFIER" for n in _walk(node)):
            names = sorted(self.label_ids, key=self.label_ids.__getitem__)
            by_label = [
                self.special_source(self._classified(node, name, base), base) for name in names
            ]
            outside = self.special_source(_replace_special(node, "CLASSIFIER", _NULL_STRING), base)
            return nav.ByLabel(by_label, outside)
        if not any(_special_kind(n) == "MATCH_NUMBER" for n in _walk(node)):
            failing = self.read_lazily(node)
            if not failing:
                return nav.column_at(self.precompute(node, base))
        else:  # computed in Python around MATCH_NUMBER(): each part that can fail too
            failing = {id(n) for n in _walk(node) if self.fails_alone(n, plain=True)}

        def child(n: exp.Expression):
            if _special_kind(n) == "MATCH_NUMBER":
                return lambda at: at[0].match_number
            if not isinstance(n, (exp.Literal, exp.Boolean, exp.Null)) and not any(
                _special_kind(m) == "MATCH_NUMBER" or id(m) in failing for m in _walk(n)
            ):
                column = self.precompute(n, base)
                return lambda at: at[0].cols[column][at[1]]
            compiled = compile_glue(
                n, child, lambda m: node_pos(m, base, self.sql), self.sql, self.ansi
            )
            scale = self._decimal_result(n, base)
            return compiled if scale is None else lambda at: scale.fit(compiled(at))

        return nav.RowGlue(child(node))

    def _decimal_result(self, node: exp.Expression, base: int) -> IntegerWidth | None:
        """Spark's DECIMAL type of arithmetic ``node`` that the glue computes at a row
        read, to round its result to (``d / 7`` of a DECIMAL(20,4) is a DECIMAL(22,6):
        0.001429, where a plain division keeps every digit), or None."""
        if not isinstance(node, _DECIMAL_SCALED):
            return None
        typed = _value_type(self, node)
        if typed is None or typed.this != exp.DataType.Type.DECIMAL:
            return None
        text, pos = user_text(node, self.sql, base, limit=60), node_pos(node, base, self.sql)
        width = IntegerWidth(typed.sql("spark"), text, self.sql, pos, self.ansi)
        width.set_type(typed.sql("spark").lower())
        return width

    def _classified(self, node: exp.Expression, label: str, base: int) -> exp.Expression:
        """``node`` at a row labelled ``label``: CLASSIFIER() is ``label``, and so is
        CLASSIFIER(X) where X covers ``label`` (the rows an aggregate or navigation over
        X reads are X rows), else NULL."""
        copy = node.copy()
        for n in list(copy.walk()):
            if _special_kind(n) != "CLASSIFIER":
                continue
            found = _classifier_label(n)
            covered = found is None or self.label_ids[label] in (
                self.label_set(found[0], found[1], base) or ()
            )
            value = exp.Literal.string(label) if covered else _NULL_STRING.copy()
            if n is copy:
                return value
            n.replace(value)
        return copy

    def probe_of(self, node: exp.Expression, base: int) -> str:
        inner = _unparen(node)
        kind = _special_kind(inner)
        if kind == "CLASSIFIER":
            return "CAST(NULL AS STRING)"
        if kind == "MATCH_NUMBER":
            return "CAST(NULL AS BIGINT)"
        if not any(isinstance(n, (exp.Column, exp.Subquery)) for n in _walk(inner)):
            # a constant (listagg's separator must stay one for Spark to type the call)
            return self.spark_sql(exp.Paren(this=_typed_specials(inner)), base)
        if self.read_lazily(inner) or any(_special_kind(n) in SPECIAL for n in _walk(inner)):
            # (a part read lazily is no column: Spark would compute it on every row)
            return self.spark_sql(exp.Paren(this=_typed_specials(inner)), base)
        return quote(self.precompute(inner, base))

    def guarded_column(self) -> str:
        """The name of the next column of a guarded Python UDF call (``guarded_calls``)."""
        return f"__mr_u{len(self.guarded_calls)}"

    def add_atom(
        self,
        evaluate: Evaluator,
        probe: str,
        aggregate: bool = False,
        text: str = "",
        pos: int | None = None,
    ) -> str:
        name = f"__mr_a{len(self.atoms)}"
        self.atoms.append(Atom(name, evaluate, probe, aggregate, text, pos))
        return name

    def check_numeric_arguments(
        self, func: str, args: list[exp.Expression], base: int, in_define: bool, shown: str = ""
    ) -> None:
        """Record the check that aggregate ``func``'s values are not strings
        (:func:`planner.type_checks.numeric_check`); the runtime asks Spark for their
        types before any job runs."""
        clause = "DEFINE" if in_define else "MEASURES"
        probe = partial(self.probe_of, base=base)
        check = numeric_check(func, shown or func, args, probe, self.sql, base, clause)
        if check is not None:
            self.define_checks.append(check)

    def check_constant_arguments(
        self,
        func: str,
        args: list[exp.Expression],
        distinct: bool,
        node: exp.Expression,
        base: int,
    ) -> None:
        """The constant arguments of aggregate ``func`` that Spark's analyser refuses
        (a percentage, an accuracy, a frequency, a relative error, mode's flag) are
        refused at the call, in every door: the table function has no Spark to ask."""
        self._check_mode(func, args, distinct, node, base)
        for check in (
            self._check_percentage,
            self._check_accuracy,
            self._check_frequency,
            self._check_relative_error,
        ):
            check(func, args, node, base)

    def _check_percentage(
        self, func: str, args: list[exp.Expression], node: exp.Expression, base: int
    ) -> None:
        """A literal percentage (or array of them) of a percentile aggregate must be between
        0 and 1, and not NULL."""
        at = PERCENTAGE_ARGUMENT.get(func)
        if at is None or len(args) <= at:
            return
        arg = args[at]
        if _null_literal(arg):
            raise self._spark_rejects(
                node,
                base,
                "the percentage must not be null",
                "write a fraction, e.g. 0.95 for the 95th percentile",
            )
        items = arg.expressions if isinstance(arg, exp.Array) else [arg]
        for item in items:
            value = _number(item)
            if value is not None and not 0.0 <= value <= 1.0:
                raise self._spark_rejects(
                    node,
                    base,
                    f"the percentage must be between [0.0, 1.0] (current value = {_excerpt(item)})",
                    "write a fraction, e.g. 0.95 for the 95th percentile",
                )

    def _check_accuracy(
        self, func: str, args: list[exp.Expression], node: exp.Expression, base: int
    ) -> None:
        """A literal accuracy of percentile_approx must be an integer in (0, 2147483647], as
        Spark's analyser requires (the batch doors ask Spark; the table function cannot)."""
        at = ACCURACY_ARGUMENT.get(func)
        if at is None or len(args) <= at:
            return
        value = _number(args[at])
        if value is None and _null_literal(args[at]):
            raise self._spark_rejects(
                node, base, "the accuracy must not be null", "write e.g. 10000, or leave it out"
            )
        if value is None:
            return
        reason = None
        if not value.is_integer() or _fraction_written(args[at]):
            reason = (
                f'the accuracy requires the "INTEGRAL" type (current value = {_excerpt(args[at])})'
            )
        elif not 0 < value <= 2147483647:
            reason = (
                "the accuracy must be between (0, 2147483647] "
                f"(current value = {_excerpt(args[at])})"
            )
        if reason is not None:
            raise self._spark_rejects(
                node,
                base,
                reason,
                "write a positive whole number of at most 2147483647 (Spark's default is "
                "10000), or leave it out",
            )

    def _check_frequency(
        self, func: str, args: list[exp.Expression], node: exp.Expression, base: int
    ) -> None:
        """percentile's literal frequency must be a whole number of 0 or more, as Spark's
        analyser (its type) and every row (its sign) require."""
        if func != "PERCENTILE" or len(args) < 3:
            return
        value = _number(args[2])
        if value is None:
            return
        if not value.is_integer() or _fraction_written(args[2]):
            reason = (
                f'the frequency requires the "INTEGRAL" type (current value = {_excerpt(args[2])})'
            )
        elif value < 0:
            reason = (
                f"the frequency {_excerpt(args[2])} is negative "
                "(Spark's NEGATIVE_VALUES_IN_FREQUENCY_EXPRESSION)"
            )
        else:
            return
        raise self._spark_rejects(
            node, base, reason, "give each value's count as a whole number of 0 or more"
        )

    def _check_relative_error(
        self, func: str, args: list[exp.Expression], node: exp.Expression, base: int
    ) -> None:
        """approx_count_distinct's relative error is a fractional literal of at most 0.39
        (HyperLogLog++ needs 4 bits of address), as Spark's analyser requires."""
        if func != "APPROX_COUNT_DISTINCT" or len(args) < 2:
            return
        value, text = _number(args[1]), args[1].sql()
        if value is None and not _null_literal(args[1]):
            return  # not a literal: Spark's own refusal, where it analyses the call
        if value is None or not any(c in text.lower() for c in ".ed"):
            reason = f"the second argument should be a double literal, not {_excerpt(args[1])}"
        elif value <= 0 or math.ceil(2.0 * math.log(1.106 / value) / math.log(2.0)) < 4:
            reason = f"the relative error must be above 0 and at most 0.39, not {_excerpt(args[1])}"
        else:
            return
        raise self._spark_rejects(
            node, base, reason, "write a fraction such as 0.05 (Spark's default), or leave it out"
        )

    def _check_mode(
        self,
        func: str,
        args: list[exp.Expression],
        distinct: bool,
        node: exp.Expression,
        base: int,
    ) -> None:
        """mode() takes no DISTINCT, and its second argument (whether ties go to the
        smallest value) is a BOOLEAN constant, as Spark's analyser requires."""
        if func != "MODE":
            return
        if distinct:
            raise self._spark_rejects(
                node,
                base,
                "mode() does not take DISTINCT (Spark's INVALID_WITHIN_GROUP_EXPRESSION."
                "DISTINCT_UNSUPPORTED)",
                "drop DISTINCT: the most frequent value is the same",
            )
        if len(args) < 2:
            return
        flag = _unparen(args[1])
        if isinstance(flag, exp.Boolean):
            return
        if _null_literal(flag):
            reason = "its `deterministic` argument must not be null"
        elif isinstance(flag, exp.Literal):
            reason = f'its second argument requires the "BOOLEAN" type, not {_excerpt(flag)}'
        elif any(isinstance(n, exp.Column) for n in flag.walk()):
            reason = f"its `deterministic` argument must be a constant, not {_excerpt(flag)}"
        else:
            return  # a constant expression: Spark's to type, where it analyses the call
        raise self._spark_rejects(
            node, base, reason, "write mode(x, true) for the smallest of tied values, or mode(x)"
        )

    def _spark_rejects(
        self, node: exp.Expression, base: int, reason: str, hint: str
    ) -> SemanticError:
        """Spark's refusal of call ``node`` for ``reason``: the call quoted as written,
        the caret at its name."""
        pos = call_start(self.sql, node_pos(node, base, self.sql), base)
        shown = written_call(self.sql, pos) or user_text(node, self.sql, base)
        return SemanticError(f"Spark rejects {shown}: {reason}", sql=self.sql, pos=pos, hint=hint)

    def arguments(self, name: str, node: exp.Expression, base: int) -> list[exp.Expression]:
        """The arguments of navigation call ``node``; it needs at least one."""
        args = list(node.expressions)
        if args and isinstance(args[0], exp.Distinct):
            raise self.error(
                SemanticError,
                f"Cannot use DISTINCT with {name.lower()} pattern recognition function",
                node,
                base,
                hint="DISTINCT applies to aggregates, e.g. count(DISTINCT A.x)",
            )
        if not args:
            raise self.error(
                SemanticError,
                f"{name.lower()} pattern recognition function requires 1 or 2 arguments",
                node,
                base,
                hint=f"write e.g. {name}(A.x)",
            )
        return args

    def navigation_atom(
        self, node: exp.Expression, base: int, in_define: bool
    ) -> tuple[Evaluator, str]:
        """Evaluator and type probe of PREV/NEXT/FIRST/LAST(...) ``node``."""
        semantics, name = call_name(node)
        args = self.arguments(name, node, base)
        what = name  # the call the user wrote around the argument, for messages
        physical = 0
        if name in PHYSICAL:
            if semantics:
                raise self.error(
                    SemanticError,
                    f"{semantics} semantics is not supported with {name.lower()} pattern "
                    "recognition function",
                    node,
                    base,
                    hint=f"write {name}({semantics} LAST(...))",
                )
            steps = self.offset(args, node, base, default=1, what=name)
            physical = -steps if name == "PREV" else steps
            inner = _unparen(args[0])
            inner_sem, inner_name = call_name(inner) if _is_call(inner) else (None, "")
            if _special_kind(inner) in ("FIRST", "LAST"):
                semantics, name, node = inner_sem, inner_name, inner
                args = self.arguments(name, node, base)
                what = name
            elif _special_kind(inner) in PHYSICAL:
                raise self.error(
                    SemanticError,
                    f"Cannot nest {inner_name.lower()} pattern navigation function inside "
                    f"{name.lower()} pattern navigation function",
                    inner,
                    base,
                    hint=nesting_hint(inner_name, name),
                )
            else:
                name, args = "LAST", [inner]
        if semantics == "FINAL" and in_define:
            raise self.error(
                SemanticError,
                "FINAL semantics is not supported in DEFINE clause",
                node,
                base,
                hint="use RUNNING (the default)",
            )
        offset = self.offset(args, node, base, default=0, what=name)
        qualifier, referenced = self.label_of(args[0], base, what)
        if not referenced:
            raise self.error(
                SemanticError,
                f"Pattern navigation function {what.lower()} must contain at least one column "
                "reference or CLASSIFIER()",
                args[0],
                base,
                hint=_constant_navigated_hint(what, args[0], self.sql, base),
            )
        labels = self.label_set(qualifier, _first_ref(args[0], qualifier) or args[0], base)
        with self._guarding(args[0], labels, physical == 0 and not in_define):
            source = self.row_source(args[0], base, what)
            probe = self.probe_of(args[0], base)
        evaluate = nav.navigate(
            source,
            labels,
            from_end=(name == "LAST"),
            offset=offset,
            physical=physical,
            # FIRST counts from the match's first row whatever the semantics, as Trino
            # does: in a RUNNING measure of ALL ROWS PER MATCH, FIRST(x, 2) on the match's
            # first row is the third row's x (LAST stops at the current row). DEFINE sees
            # the match up to the current row only, so there both agree
            final=(semantics == "FINAL" or (name == "FIRST" and not in_define)),
        )
        return evaluate, probe

    @contextmanager
    def _guarding(
        self, arg: exp.Expression, labels: frozenset[int] | None, on_labelled_rows: bool
    ) -> Iterator[None]:
        """Within it, the columns Spark computes for a navigation's argument in MEASURES
        (the table function's, the rules') are guarded, where the value can fail, by the
        row-local DEFINE conditions of the rows FIRST/LAST land on (``on_labelled_rows``),
        as an aggregate's argument is: ``from_json(S.p, ...).items[0]`` under ANSI mode
        cannot fail on another event's row, which it never reads."""
        guarded = (
            self.python_measures and on_labelled_rows and self.guard is None and self.may_fail(arg)
        )
        if guarded:
            self.guard = self.aggregate_guard(labels)
        try:
            yield
        finally:
            if guarded:
                self.guard = None

    def offset(
        self, args: list[exp.Expression], node: exp.Expression, base: int, default: int, what: str
    ) -> int:
        if len(args) < 2:
            return default
        if len(args) > 2:
            raise self.error(
                SemanticError,
                f"{what.lower()} pattern recognition function requires 1 or 2 arguments "
                f"(got {len(args)})",
                args[2],
                base,
                hint=f"write {what}(x) or {what}(x, offset)",
            )
        arg = _unparen(args[1])
        if not (isinstance(arg, exp.Literal) and not arg.is_string and arg.this.isdigit()):
            raise self.error(
                SemanticError,
                f"{what.lower()} pattern recognition navigation function requires a "
                f"{'non-negative number' if _negative(arg) else 'number'} as the second "
                f"argument (actual: {_excerpt(args[1])})",
                args[1],
                base,
                hint=f"write e.g. {what}(x, 2)",
            )
        if int(arg.this) > _MAX_OFFSET:
            raise self.error(
                SemanticError,
                f"The second argument of {what.lower()} pattern recognition navigation "
                f"function must not exceed {_MAX_OFFSET} (actual: {arg.this})",
                args[1],
                base,
            )
        return int(arg.this)

    def listagg_args(
        self, node: exp.Expression, args: list[exp.Expression], base: int
    ) -> list[exp.Expression]:
        """``listagg(x[, separator])`` as two arguments (the separator NULL when not
        given, as Spark's; untyped, as it stands for a STRING or a BINARY one)."""
        if not args or args[0] is None:  # listagg() WITHIN GROUP (...): nothing to join
            at = node_pos(node, base, self.sql)
            calls = list(_LISTAGG_CALL.finditer(self.sql, base, at + 1))
            pos, name = (calls[-1].start(), calls[-1].group(1)) if calls else (at, "listagg")
            raise SemanticError(
                f"{name.lower()}() needs the value to aggregate",
                sql=self.sql,
                pos=pos,
                hint=f"write {name.lower()}(x) or {name.lower()}(x, ',') WITHIN GROUP "
                "(ORDER BY ...)",
            )
        if len(args) == 1:
            return [*args, exp.Null()]
        return args

    def aggregate_atom(
        self, node: exp.Expression, base: int, in_define: bool
    ) -> tuple[Evaluator, str]:
        """The evaluator and type probe of an aggregate; in MEASURES its computed
        arguments are Spark's columns guarded by the rows it reads (:meth:`aggregate_guard`)."""
        if in_define or self.guard is not None:
            return self._aggregate_atom(node, base, in_define)
        _, func, args, _, keys = _aggregate_parts(node)
        read = [a for a in (*args, *(k.this for k in keys)) if isinstance(a, exp.Expression)]
        if not any(self.may_fail(a) for a in read):
            return self._aggregate_atom(node, base, in_define)
        try:
            labels = self.aggregated_labels(func, read, node, base)
            self.guard = self.aggregate_guard(labels)
        except (SemanticError, UnsupportedError):  # raised again, in its place, below
            self.guard = None
        try:
            return self._aggregate_atom(node, base, in_define)
        finally:
            self.guard = None

    def _aggregate_atom(
        self, node: exp.Expression, base: int, in_define: bool
    ) -> tuple[Evaluator, str]:
        semantics, func, args, distinct, keys = _aggregate_parts(node)
        if semantics == "FINAL" and in_define:
            raise self.error(
                SemanticError,
                "FINAL semantics is not supported in DEFINE clause",
                node,
                base,
                hint="use RUNNING (the default)",
            )
        if func in ("LISTAGG", "STRING_AGG"):
            args = self.listagg_args(node, args, base)

        def fail(message: str, at: exp.Expression, hint: str | None) -> Exception:
            return self.error(SemanticError, message, at, base, hint=hint)

        self.check_constant_arguments(func, args, distinct, node, base)
        ordered = within_group.plan(func, args, distinct, keys, node, fail)
        if ordered is not None:
            self.check_numeric_arguments(ordered.func, ordered.args, base, in_define, func)
            return self.ordered_aggregate(ordered, node, base, semantics, distinct)
        arity, _ = nav.AGGREGATES[func]
        stars = [a for a in args if _is_star(a)]
        if stars and func != "COUNT":
            q = _qualifier(stars[0]) if isinstance(stars[0], exp.Column) else None
            raise self.error(
                SemanticError,
                f"label.* syntax is only supported as the only argument of row pattern count "
                f"function, not of {func.lower()}: {_excerpt(stars[0])}",
                stars[0],
                base,
                hint=f"name a column, e.g. {func.lower()}({q + '.' if q else ''}x)",
            )
        if func == "COUNT" and len(args) == 1 and stars:
            if distinct:
                raise self.error(
                    SemanticError,
                    "count(DISTINCT *) is not allowed",
                    node,
                    base,
                    hint="write count(DISTINCT column)",
                )
            qualifier = _qualifier(args[0]) if isinstance(args[0], exp.Column) else None
            labels = self.label_set(qualifier, args[0], base)
            return nav.aggregate(
                "COUNT", None, labels, semantics == "FINAL"
            ), "CAST(NULL AS BIGINT)"
        if func == "COUNT" and not args:
            return nav.aggregate("COUNT", None, None, semantics == "FINAL"), "CAST(NULL AS BIGINT)"
        counts = arity if isinstance(arity, tuple) else (arity,)
        if func in ("MAX_BY", "MIN_BY"):
            counts = (2, 3)
        if len(args) not in counts:
            most = max(counts)
            s = "" if most == 1 else "s"
            where = args[most] if len(args) > most else node
            raise self.error(
                SemanticError,
                f"{func} takes {' or '.join(map(str, counts))} argument{s}, got {len(args)}",
                where,
                base,
            )
        labels = self.aggregated_labels(func, args, node, base)
        self.check_numeric_arguments(func, args, base, in_define)
        if func == "APPROX_COUNT_DISTINCT":  # HLL++ reads Spark's hash of each value
            args = [_spark_hash(args[0], _value_type(self, args[0])), *args[1:]]
        sources = [self.row_source(a, base, func) for a in args]
        probe_args = ", ".join(self.probe_of(a, base) for a in args)
        probe = f"{func}({'DISTINCT ' if distinct else ''}{probe_args})"
        overflow = None
        if func in ("SUM", "AVG", "MEAN"):
            # Spark's sum of integers is a BIGINT checked at every row, and a sum of
            # DAY-TIME intervals (avg's too) a BIGINT of microseconds, checked likewise
            at = node_pos(node, base, self.sql)
            text = written_call(self.sql, at) or user_text(node, self.sql, base, limit=60)
            overflow = LongSum(text, self.sql, at, self.ansi)
        final = semantics == "FINAL"
        collations = self.collations(func, args, distinct, 0, node, base)
        evaluate = nav.aggregate(
            func, sources, labels, final, distinct, overflow=overflow, collations=collations
        )
        return evaluate, probe

    def collations(
        self,
        func: str,
        args: list[exp.Expression],
        distinct: bool,
        keys: int,
        node: exp.Expression,
        base: int,
    ) -> list[IntegerWidth | None] | None:
        """Per argument of an aggregate that compares or groups its values (min, max,
        the key of max_by/min_by, mode, DISTINCT, WITHIN GROUP's ``keys`` last ones), the
        slot the runtime fills with Spark's type of it: a collated string's values then
        compare under their collation (:mod:`matchrec.collated_values`); None if none."""
        compared = set(_COMPARED_ARGUMENTS.get(func, ()))
        if distinct:
            compared.add(0)
        compared.update(range(len(args) - keys, len(args)))
        compared &= set(range(len(args)))
        if not compared:
            return None
        text = user_text(node, self.sql, base, limit=60)
        pos = node_pos(node, base, self.sql)
        slots: list[IntegerWidth | None] = [None] * len(args)
        for k in sorted(compared):
            slots[k] = IntegerWidth(self.probe_of(args[k], base), text, self.sql, pos, self.ansi)
            self.integer_widths.append(slots[k])
        return slots

    def ordered_aggregate(
        self,
        ordered: within_group.OrderedAggregate,
        node: exp.Expression,
        base: int,
        semantics: str | None,
        distinct: bool,
    ) -> tuple[Evaluator, str]:
        """An aggregate with WITHIN GROUP keys or a max_by/min_by count (see
        :mod:`planner.within_group`)."""
        args = ordered.args
        labels = self.aggregated_labels(ordered.func, args, node, base)
        sources = [self.row_source(a, base, ordered.func) for a in args]
        probe = ordered.probe_text([self.probe_of(a, base) for a in args])
        final = semantics == "FINAL"
        collations = self.collations(ordered.func, args, distinct, len(ordered.order), node, base)
        evaluate = nav.aggregate(
            ordered.func, sources, labels, final, distinct, ordered.order, collations=collations
        )
        return evaluate, probe

    def aggregated_labels(
        self, func: str, args: list[exp.Expression], node: exp.Expression, base: int
    ) -> frozenset[int] | None:
        """The rows an aggregate reads: those of the one pattern variable (or subset) its
        arguments name, all rows if none; nested aggregates and a mix are errors."""
        qualifiers: dict[str | None, exp.Expression] = {}
        # its name as written, for errors (sqlglot reads collect_list as array_agg)
        written = _written_call(self, node, base)[0] if isinstance(node, exp.Func) else func
        for a in args:
            for sub in _walk(a):
                inner = _aggregate_name(sub)
                if inner:
                    raise self.error(
                        SemanticError,
                        f"Cannot nest {inner.lower()} aggregate function inside {func.lower()} "
                        "function",
                        sub,
                        base,
                        hint=nesting_hint(inner, func),
                    )
            q, found = self.label_of(a, base, written)
            if found and q not in qualifiers:
                if qualifiers:
                    first = next(iter(qualifiers))
                    raise self.error(
                        SemanticError,
                        "All aggregate function arguments must apply to rows matched with the "
                        f"same label ({func} mixes {_shown(first)} and {_shown(q)})",
                        _first_ref(a, q) or a,
                        base,
                    )
                qualifiers[q] = _first_ref(a, q) or a
        qualifier = next(iter(qualifiers)) if qualifiers else None
        return self.label_set(qualifier, qualifiers.get(qualifier, node), base)


#: aggregates that compare or group their values -> the arguments compared (a collated
#: string's under its collation, as Spark's)
_COMPARED_ARGUMENTS: dict[str, tuple[int, ...]] = {
    "MIN": (0,),
    "MAX": (0,),
    "MAX_BY": (1,),
    "MIN_BY": (1,),
    "MAX_BY/K": (1,),
    "MIN_BY/K": (1,),
    "MODE": (0,),
    "MODE/ASC": (0,),
    "MODE/DESC": (0,),
}

#: aggregates with a percentage argument, and its position
#: the accuracy argument of the approximate percentile aggregates
ACCURACY_ARGUMENT: dict[str, int] = {"PERCENTILE_APPROX": 2, "APPROX_PERCENTILE": 2}

PERCENTAGE_ARGUMENT: dict[str, int] = {
    "PERCENTILE": 1,
    "PERCENTILE_APPROX": 1,
    "APPROX_PERCENTILE": 1,
    "PERCENTILE_CONT": 0,
    "PERCENTILE_DISC": 0,
}


def _fraction_written(node: exp.Expression) -> bool:
    """Whether a numeric literal is written as a fraction (``2.0``, ``1e3``), which Spark
    types DECIMAL or DOUBLE, not as an integer."""
    text = node.sql()
    return "." in text or "e" in text.lower()


def _null_literal(node: exp.Expression) -> bool:
    """NULL, also in parentheses or cast to a type (``CAST(NULL AS DOUBLE)``)."""
    node = _unparen(node)
    while isinstance(node, exp.Cast):
        node = _unparen(node.this)
    return isinstance(node, exp.Null)


def _number(node: exp.Expression) -> float | None:
    """The value of a numeric literal, signed or in parentheses; None for anything else."""
    while isinstance(node, exp.Paren):
        node = node.this
    sign = 1.0
    if isinstance(node, exp.Neg):
        sign, node = -1.0, node.this
    if isinstance(node, exp.Literal) and not node.is_string:
        try:
            return sign * float(node.this)
        except ValueError:
            return None
    return None


_NULL_STRING = exp.Cast(this=exp.Null(), to=exp.DataType(this=exp.DataType.Type.VARCHAR))
_NULL_BIGINT = exp.Cast(this=exp.Null(), to=exp.DataType(this=exp.DataType.Type.BIGINT))


def _replace_special(node: exp.Expression, kind: str, by: exp.Expression) -> exp.Expression:
    """A copy of ``node`` with every ``kind`` call (CLASSIFIER, MATCH_NUMBER) replaced."""
    copy = node.copy()
    if _special_kind(copy) == kind:
        return by.copy()
    for n in list(copy.walk()):
        if _special_kind(n) == kind:
            n.replace(by.copy())
    return copy


def _typed_specials(node: exp.Expression) -> exp.Expression:
    """``node`` with CLASSIFIER() and MATCH_NUMBER() (left inside aggregate arguments)
    replaced by NULLs of their types: Spark SQL with the same type."""
    typed = _replace_special(node, "CLASSIFIER", _NULL_STRING)
    return _replace_special(typed, "MATCH_NUMBER", _NULL_BIGINT)


def label_text(name: str) -> str:
    """A pattern variable as Trino shows it: ``B``, or ``"b"`` for a delimited name."""
    return name if re.fullmatch(r"[A-Z_][A-Z0-9_]*", name) else f'"{name}"'


def _negative(node: exp.Expression) -> bool:
    return isinstance(node, exp.Neg) or (
        isinstance(node, exp.Literal) and node.this.startswith("-")
    )


def _mixing_rule(refs: list, what: str) -> str:
    """Which of Trino's rules on the labels inside one argument a mix breaks."""

    def is_classifier(ref: exp.Expression) -> bool:  # CLASSIFIER() or CLASSIFIER(X)'s X
        return not isinstance(ref, exp.Column) or _special_kind(ref.parent) == "CLASSIFIER"

    classifiers = [name for name, ref in refs if is_classifier(ref)]
    columns = [name for name, ref in refs if not is_classifier(ref)]
    inside = f"inside argument of function {what.lower()}"
    if len(set(classifiers)) > 1:
        return (
            f"CLASSIFIER() calls {inside} must all either have the same label as the "
            "argument or have no arguments"
        )
    if classifiers and columns:
        return (
            f"Column references {inside} must all be prefixed with the same label that all "
            "CLASSIFIER() calls have as the argument"
        )
    return (
        f"Column references {inside} must all either be prefixed with the same label or be "
        "not prefixed"
    )


#: (what is nested, what it is nested in) -> how to write it instead; an aggregate is
#: "agg", PREV/NEXT "physical", FIRST/LAST "logical"
_AGGREGATE_IN_NAVIGATION = (
    "an aggregate is a value of the match, not of one row: write the aggregate alone "
    "(RUNNING or FINAL sum(B.price))"
)
_NAVIGATION_IN_AGGREGATE = (
    "aggregate a column of the rows (sum(B.price)); a navigation is no argument of an aggregate"
)
_NESTING_HINTS = {
    ("agg", "agg"): "aggregates do not nest: aggregate the rows themselves, e.g. "
    "sum(B.price), or combine two measures' aggregates outside them",
    ("agg", "physical"): _AGGREGATE_IN_NAVIGATION,
    ("agg", "logical"): _AGGREGATE_IN_NAVIGATION,
    ("physical", "physical"): "one navigation takes an offset: {outer}(x, 2), not "
    "{outer}({inner}(x))",
    ("physical", "agg"): _NAVIGATION_IN_AGGREGATE,
    ("logical", "agg"): _NAVIGATION_IN_AGGREGATE,
    ("logical", "logical"): "one navigation takes an offset: {outer}(B.x, 1), not "
    "{outer}({inner}(B.x))",
}


def _nesting_kind(name: str) -> str:
    upper = name.upper()
    if upper in PHYSICAL:
        return "physical"
    return "logical" if upper in ("FIRST", "LAST") else "agg"


def nesting_hint(inner: str, outer: str) -> str | None:
    """How to write a call ``inner`` nested in ``outer`` (functions' names) instead."""
    kinds = (_nesting_kind(inner), _nesting_kind(outer))
    if kinds == ("physical", "physical") and inner.upper() != outer.upper():
        return "write one navigation with the offset meant: PREV(x, 2), NEXT(x, 1), ..."
    hint = _NESTING_HINTS.get(kinds)
    return None if hint is None else hint.format(inner=inner.upper(), outer=outer.upper())


def _nesting_rule(inner: exp.Expression, what: str) -> str:
    """Trino's message for FIRST/LAST nested in PREV/NEXT but not as its whole argument."""
    count = sum(1 for n in inner.walk() if _special_kind(n) in ("FIRST", "LAST"))
    if count > 1:
        return (
            "Cannot nest multiple pattern navigation functions inside "
            f"{what.lower()} pattern navigation function"
        )
    return "Immediate nesting is required for pattern navigation functions"


def _shown(label: str | None) -> str:
    return "a column without pattern variable" if label is None else f"pattern variable {label}"


def _excerpt(node: exp.Expression, limit: int = 40) -> str:
    text = node.sql(dialect=MatchRecognizeDialect)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _walk(node: exp.Expression):
    """``node`` and its descendants, not descending into subqueries."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, (exp.Subquery, exp.Select, exp.Exists)):
            continue
        if isinstance(n, exp.In) and n.args.get("query") is not None:
            stack.append(n.this)
            continue
        stack.extend(reversed(list(n.iter_expressions())))


def _classifier_label(node: exp.Expression) -> tuple[str, exp.Expression] | None:
    """(label, name node) of ``CLASSIFIER(X)``; None for other nodes and ``CLASSIFIER()``."""
    if _special_kind(node) != "CLASSIFIER" or len(node.expressions) != 1:
        return None
    arg = node.expressions[0]
    if not isinstance(arg, exp.Column) or arg.args.get("table") is not None:
        return None
    quoted = isinstance(arg.this, exp.Identifier) and arg.this.quoted
    return (arg.name if quoted else arg.name.upper()), arg


def _label_refs(node: exp.Expression):
    """(qualifier, node) of every column reference and CLASSIFIER(X) in ``node``;
    ``CLASSIFIER()`` counts as a reference without pattern variable (as a plain column:
    the two may be mixed, but not with ``A.x`` or ``CLASSIFIER(A)``)."""
    for n in _walk(node):
        if isinstance(n, exp.Column) and not _is_star(n):
            if n.parent is None or _classifier_label(n.parent) is None:
                yield _qualifier(n), n
        else:
            found = _classifier_label(n)
            if found:
                yield found
            elif _special_kind(n) == "CLASSIFIER" and not n.expressions:
                yield None, n


def _first_ref(node: exp.Expression, qualifier: str | None) -> exp.Expression | None:
    for name, ref in _label_refs(node):
        if name == qualifier:
            return ref
    return None


def _columns(node: exp.Expression):
    """Column references of ``node``, not descending into subqueries."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, (exp.Subquery, exp.Select, exp.Exists)):
            continue
        if isinstance(n, exp.In) and n.args.get("query") is not None:
            stack.append(n.this)
            continue
        if isinstance(n, exp.Column) and not isinstance(n.this, exp.Star):
            yield n
            continue
        stack.extend(n.iter_expressions())


def _qualifier(col: exp.Column) -> str | None:
    table = col.args.get("table")
    if table is None:
        return None
    ident = table if isinstance(table, exp.Identifier) else None
    if ident is None:
        return str(table.name).upper()
    return ident.this if ident.quoted else ident.this.upper()


def _unparen(node: exp.Expression) -> exp.Expression:
    while isinstance(node, exp.Paren):
        node = node.this
    return node


def _is_call(node: exp.Expression) -> bool:
    return isinstance(node, exp.Func)


def _is_star(node: exp.Expression) -> bool:
    return isinstance(node, exp.Star) or (
        isinstance(node, exp.Column) and isinstance(node.this, exp.Star)
    )


def users_columns(names: Iterable[str]) -> list[str]:
    """``names`` without the columns matchrec adds to an input (``__mrw0_key0``, a
    window's computed PARTITION BY key), which a hint listing the input must not offer."""
    return [n for n in names if not n.startswith("__mr")]


def _constant_navigated_hint(what: str, argument: exp.Expression, sql: str, base: int) -> str:
    """The hint for a navigation of a constant: a string in double quotes there is a
    column name quoted as in standard SQL (``LAST("my col")``), a string to Spark."""
    if isinstance(argument, exp.Literal) and argument.is_string:
        if sql[node_pos(argument, base, sql)] == '"':
            return (
                f'"{argument.this}" is a string; Spark quotes a column name with backquotes: '
                f"{what}(`{argument.this}`)"
            )
    return f"navigate a column, e.g. {what}(A.x); a constant is the same on every row"


def _special_kind(node: exp.Expression) -> str | None:
    """PREV/NEXT/FIRST/LAST/CLASSIFIER/MATCH_NUMBER if ``node`` is such a call."""
    if isinstance(node, exp.Anonymous):
        _, name = call_name(node)
        if name in NAVIGATION or name in SPECIAL:
            return name
    return None


def _aggregate_name(node: exp.Expression) -> str | None:
    if isinstance(node, exp.WithinGroup):
        return within_group.within_group_name(node)
    if type(node) in AGGREGATE_NODES:
        return AGGREGATE_NODES[type(node)]
    if isinstance(node, exp.Anonymous):
        _, name = call_name(node)
        if name in nav.AGGREGATES:
            return name
    return None


def _check_input_windows(low: Lowering, tree: exp.Expression, local_labels: set, base: int) -> None:
    """Refuse a window over the input in DEFINE that reads anything but the current row
    (another variable's column, navigation, CLASSIFIER, MATCH_NUMBER): Spark computes
    the window over the input before any match exists."""
    for window in _input_windows_of(tree):
        name = window.args.get("alias")
        if name is not None:
            raise low.error(
                SemanticError,
                "[MISSING_WINDOW_SPECIFICATION] Window specification is not defined for "
                f"{name.sql(dialect=MatchRecognizeDialect)}: the query's WINDOW clause does "
                "not reach into DEFINE",
                name,
                base,
                hint="write the window in place: OVER (PARTITION BY ... ORDER BY ...)",
            )
        for node in window.walk():
            other = isinstance(node, exp.Column) and _qualifier(node) not in local_labels
            if other or _special_kind(node):
                raise low.error(
                    UnsupportedError,
                    f"{_excerpt(node)} inside a window over the input (OVER) in DEFINE: such "
                    "a window is computed over the input rows before matching, from the "
                    "current row's columns only",
                    node,
                    base,
                    hint="compare with the window's value outside it (p > avg(p) OVER () AND "
                    "p > FIRST(A.p)), or compute the value over the match (avg(A.p))",
                )


def _input_windows(low: Lowering, tree: exp.Expression) -> None:
    """Note a window over the input in ``tree``, and give each one written without
    PARTITION BY and ORDER BY (``avg(price) OVER ()``, ``... OVER (ROWS BETWEEN 2
    PRECEDING AND CURRENT ROW)``) the clause's own, as Snowflake reads such a window in
    DEFINE: it runs over the row pattern partition in the clause's order. A window that
    writes either is Spark's as written, over the input of the FROM."""
    for window in _input_windows_of(tree):
        low.input_windows = True
        if low.match_window is None:
            continue
        if window.args.get("partition_by") or window.args.get("order"):
            continue
        spec = sqlglot.parse_one(f"f() OVER ({low.match_window})", read=MatchRecognizeDialect)
        window.set("partition_by", spec.args.get("partition_by"))
        window.set("order", spec.args.get("order"))
        if window.args.get("spec") is None and _aggregate_name(_window_function(window)):
            # no frame written: the whole partition, as OVER () without an order reads it
            whole = sqlglot.parse_one(
                "f() OVER (ORDER BY x ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)",
                read=MatchRecognizeDialect,
            )
            window.set("spec", whole.args["spec"])


def _input_windows_of(tree: exp.Expression) -> list[exp.Window]:
    """The windows of ``tree`` over the clause's input (not those of a subquery's own)."""
    return [w for w in tree.find_all(exp.Window) if w.find_ancestor(exp.Select) is None]


#: what may wrap the function of a window (``sum(x) FILTER (WHERE ...) OVER``)
_WINDOW_WRAPPERS = (exp.Filter, exp.IgnoreNulls, exp.RespectNulls)


def _window_function(window: exp.Window) -> exp.Expression:
    """The function ``window`` applies, under its FILTER or IGNORE NULLS."""
    node = window.this
    while isinstance(node, _WINDOW_WRAPPERS):
        node = node.this
    return node


def _windowed(node: exp.Expression) -> bool:
    """Whether ``node`` is the function of a window over the input (``avg(p)`` of
    ``avg(p) OVER (...)``, also with FILTER or IGNORE NULLS): Spark's column of the row,
    no aggregate over the match."""
    parent = node.parent
    while isinstance(parent, _WINDOW_WRAPPERS):
        node, parent = parent, parent.parent
    return isinstance(parent, exp.Window) and parent.this is node


def is_aggregate(node: exp.Expression) -> bool:
    """Whether ``node`` is an aggregate call (what a window function over a row pattern
    window may be, besides navigation and ranking)."""
    return _aggregate_name(node) is not None


#: a call of listagg or its other name, as written
_LISTAGG_CALL = re.compile(r"\b(listagg|string_agg)\s*\(", re.IGNORECASE)


#: arguments sqlglot's aggregate nodes keep for other dialects
_OTHER_DIALECTS_ARGS = ("weight", "zero_on_all_null", "on_overflow")


def _aggregate_parts(
    node: exp.Expression,
) -> tuple[str | None, str, list[exp.Expression], bool, list[exp.Ordered]]:
    """(RUNNING/FINAL, function, arguments, DISTINCT, WITHIN GROUP keys) of an aggregate
    call."""
    node, keys = within_group.orderings(node)
    if isinstance(node, exp.Anonymous):
        semantics, name = call_name(node)
        args = list(node.expressions)
    else:
        semantics = None
        name = AGGREGATE_NODES.get(type(node)) or within_group.within_group_name(
            exp.WithinGroup(this=node)
        )
        args = [node.this] if node.args.get("this") is not None else []
        for key in ("expression", "separator", "quantile", "accuracy", "deterministic"):
            if node.args.get(key) is not None:
                args.append(node.args[key])
        args.extend(node.expressions)
        # another dialect's reading of an argument Spark does not take (percentile_approx's
        # fourth, count_if's second, listagg's third): counted, so the call is refused
        args.extend(node.args[k] for k in _OTHER_DIALECTS_ARGS if node.args.get(k) is not None)
    if name in ("LISTAGG", "STRING_AGG"):
        args, folded = within_group.listagg_order(args)
        keys = keys or folded
    distinct = False
    if args and isinstance(args[0], exp.Distinct):
        distinct = True
        args = [*args[0].expressions, *args[1:]]
    return semantics, name, args, distinct, keys


# ---------------------------------------------------------------------- public lowering


@dataclass
class DefineLowering:
    """A DEFINE condition split into a row-local Spark part and a match-dependent part."""

    local_column: str | None  # boolean column computed by Spark (None: no row-local part)
    glue: Evaluator | None  # Python part (None: none)
    history_free: bool  # the glue reads only the current row and physical offsets
    vector: VExpr | None = None  # the glue as an array expression (None: not covered)
    # rows the glue's navigation reads before a match's first row and after the current row
    reach: tuple[int, int] = (0, 0)


@dataclass
class MeasureLowering:
    spark_sql: str  # expression over input/atom columns, evaluated by Spark after matching


def _parsed(low: Lowering, expr: SqlExpr) -> exp.Expression:
    """The expression's tree, with Spark's ``lag``/``lead`` (no OVER) as PREV/NEXT."""

    def error(cls: type, message: str, node: exp.Expression, hint: str | None) -> Exception:
        return low.error(cls, message, node, expr.pos, hint=hint)

    tree = as_navigation(parse_expression(expr, low.sql), error, low.rowtime, low.column_types.get)
    return _variables_read(low, tree) if low.session_variable is not None else tree


def _variables_read(low: Lowering, tree: exp.Expression) -> exp.Expression:
    """``tree`` with each name that is no input column but one of the session's variables
    (``lim``, ``session.lim``, ``system.session.lim``) read as Spark reads one in a query,
    once: the constant subquery ``(SELECT lim)``. As in Spark, a column of that name
    comes first."""
    labels = {n.upper() for n in [*low.label_ids, *low.subsets]}
    for col in list(tree.find_all(exp.Column)):
        parts = [p.name for p in col.parts]
        if col.find_ancestor(exp.Select, exp.Subquery) is not None or isinstance(
            col.this, exp.Star
        ):
            continue
        if len(parts) == 1:
            unknown = parts[0].lower() not in low.columns
        else:
            scope = [p.lower() for p in parts[:-1]]
            unknown = scope in (["session"], ["system", "session"]) and "SESSION" not in labels
        if unknown and low.session_variable(col.sql(dialect="spark")):
            read = exp.Subquery(this=exp.select(col.copy()))
            if col is tree:
                return read
            col.replace(read)
    return tree


def lower_define(low: Lowering, label: str, expr: SqlExpr) -> DefineLowering:
    """Lower ``DEFINE label AS expr``."""
    tree = _filtered_aggregates(
        low,
        _counts_of_several(
            _ignoring_nulls(
                _spark_implicit_aggregates(low, _resolve_fields(low, _parsed(low, expr), expr.pos))
            )
        ),
        expr.pos,
    )
    _input_windows(low, tree)
    base = expr.pos
    label_id = low.label_ids[label]
    local_labels = {None, label} | {s for s, ids in low.subsets.items() if label_id in ids}
    _check_input_windows(low, tree, local_labels, base)
    history_free = True
    reach = [0, 0]  # rows DEFINE navigation reads before the match start, after the row

    def is_local(node: exp.Expression) -> bool:
        if isinstance(node, (exp.Subquery, exp.Exists)):
            return True
        if isinstance(node, exp.In) and node.args.get("query") is not None:
            return is_local(node.this)
        if isinstance(node, exp.Column):
            if _is_star(node):
                raise _star_error(low, node, base)
            q = _qualifier(node)
            low.label_set(q, node, base)
            low.column(node, base)
            return q in local_labels
        kind = _special_kind(node)
        if kind in PHYSICAL and low.window is not None and node.expressions:
            # PREV/NEXT of a current-row expression: Spark's LAG/LEAD over the sorted rows
            inner = node.expressions[0]
            pure = not any(_special_kind(n) or _aggregate_name(n) for n in inner.walk())
            # (a part that can fail is read at the row PREV lands on, not LAG's every row)
            if pure and is_local(inner) and not low.read_lazily(inner):
                low.offset(list(node.expressions), node, base, default=1, what=kind)
                return True
            return False
        if kind or (_aggregate_name(node) and not _windowed(node)):
            return False
        return all(is_local(c) for c in node.iter_expressions())

    def classify(node: exp.Expression) -> Evaluator | str | None:
        """A row-local column's name, the evaluator of an atom, or None (glue)."""
        nonlocal history_free
        if is_local(node):
            return low.precompute(node, base)
        kind = _special_kind(node)
        if kind in NAVIGATION:
            evaluate, _ = low.navigation_atom(node, base, in_define=True)
            if not _is_physical_on_current(node, local_labels):
                history_free = False
            reach[0] = max(reach[0], -evaluate.physical)
            reach[1] = max(reach[1], evaluate.physical)
            return evaluate
        if kind == "CLASSIFIER":
            history_free = False
            return _classifier(low, node, base)
        if kind == "MATCH_NUMBER":
            return nav.match_number
        if _aggregate_name(node):
            history_free = False
            evaluate, _ = low.aggregate_atom(node, base, in_define=True)
            return evaluate
        if isinstance(node, exp.Column):
            # another variable's column, e.g. A.price in DEFINE B: the last row of A so far
            history_free = False
            labels = low.label_set(_qualifier(node), node, base)
            return nav.navigate(nav.column_at(low.column(node, base)), labels)
        return None

    widths: dict[int, IntegerWidth] = {}  # id of an integer operator node -> its width

    def width(node: exp.Expression) -> IntegerWidth | None:
        """The width Spark gives ``node``'s result, if it is an operator that can
        overflow (its type is set by the runtime; shared by scalar and array glue)."""
        remainder = scaled_call(node)
        if type(node) not in INTEGER_OPERATORS and shift_name(node) is None and not remainder:
            return None
        found = widths.get(id(node))
        if found is None:
            text = user_text(node, low.sql, base, limit=60)
            pos = node_pos(node, base, low.sql)
            safe = null_on_overflow(node)
            found = widths[id(node)] = IntegerWidth(
                probe(node),
                text,
                low.sql,
                pos,
                low.ansi,
                null_on_overflow=safe,
                binary_operator=type(node) in BINARY_OPERATORS,
                implicit=_timestamp_of_date if isinstance(node, (exp.Add, exp.Sub)) else None,
            )
            low.integer_widths.append(found)
        return found

    lazy: set[int] = set()  # ids of nodes Spark may not evaluate on a row (planner.lazy)

    def glue_or_atom(node: exp.Expression) -> Evaluator | str | None:
        """``classify``, but None (glue) for a row-local operator that can raise in a
        lazily evaluated place, or one the glue computes around it (``1 / (x - x) > 0``):
        a Spark column would compute it on every row."""
        if id(node) in lazy and is_local(node) and raises_inside(node):
            return None
        return classify(node)

    def raises_in(node: exp.Expression) -> bool:
        return any(low.fails_alone(n) for n in node.walk())

    def raises_inside(node: exp.Expression) -> bool:
        """Whether ``node`` can fail (``Lowering.fails_alone``), or is one the glue
        computes (not a cast, a call it lacks, a navigation: its argument is read at the
        rows it lands on) with such a part inside."""
        if low.fails_alone(node):
            return True
        return not _special_kind(node) and evaluates(shallow(node)) and raises_in(node)

    bound: dict[str, list[object]] = {}  # the lambda parameters in scope -> their slots

    def reads_bound(node: exp.Expression) -> bool:
        return any(bound_name(n) in bound for n in node.walk()) if bound else False

    # the operands of a comparison -> the width of their common type: Spark compares two
    # DECIMALs of different scales in a wider type, rounded (half up) to its scale
    operand_widths: dict[int, IntegerWidth] = {}
    # the operands of a comparison -> the cast of its strings without ANSI mode
    string_casts: dict[int, IntegerWidth] = {}

    def compile_node(node: exp.Expression) -> Evaluator:
        if collation_sensitive(node):  # typed, to refuse a collated string's call
            reason = collation_refusal(user_text(node, low.sql, base, limit=60))
            for arg in node.iter_expressions():
                low.integer_widths.append(
                    IntegerWidth(
                        probe(arg),
                        rewritten_back(arg, limit=60),
                        low.sql,
                        call_pos(node, base, low.sql),  # (a moved argument has no place)
                        low.ansi,
                        refuses=lambda t, reason=reason: reason if collation_of(t) else None,
                    )
                )
        operands = _compared(node)
        if operands:
            texts = [o for o in operands if is_string_literal(o)]
            pos = node_pos(node, base, low.sql)
            # beside a string literal, Spark's type of the comparison is that of the
            # other operands without ANSI mode (the literal cast to it)
            typed = [o for o in operands if low.ansi or not is_string_literal(o)]
            literals = [(t.this, node_pos(t, base, low.sql)) for t in texts]
            common = IntegerWidth(
                f"coalesce({', '.join(probe(o) for o in typed or operands)})",
                user_text(node, low.sql, base, limit=60),
                low.sql,
                pos,
                low.ansi,
                implicit=partial(
                    literal_cast, literals=literals, ansi=low.ansi, sql=low.sql, pos=pos
                )
                if texts and len(texts) < len(operands)
                else None,
            )
            casts = None
            if low.compares_strings(node):
                each = [
                    IntegerWidth(
                        probe(o),
                        user_text(o, low.sql, base, limit=60),
                        low.sql,
                        node_pos(o, base, low.sql),
                        low.ansi,
                    )
                    for o in operands
                ]
                common.implicit = None  # (the strings are cast by the operands' types)
                casts = StringCasts(
                    each[0].probe,
                    common.text,
                    low.sql,
                    pos,
                    low.ansi,
                    operands=each,
                    listed=isinstance(node, exp.In),
                    common=common,
                )
                low.integer_widths.extend(each)  # (typed before ``casts``)
                for operand in operands:
                    string_casts[id(operand)] = casts
            low.integer_widths.append(common)
            if casts is not None:
                low.integer_widths.append(casts)
            for operand in operands:
                operand_widths[id(operand)] = common
        compiled = compile_uncommon(node)
        common = operand_widths.get(id(node))
        compiled = compiled if common is None else fitted(compiled, common)
        casts = string_casts.get(id(node))
        return compiled if casts is None else fitted(compiled, casts)

    def compile_uncommon(node: exp.Expression) -> Evaluator:
        if bound_name(node) in bound:
            slot = bound[bound_name(node)]
            return lambda ctx: slot[0]
        if not isinstance(node, (exp.Literal, exp.Boolean, exp.Null)) and not reads_bound(node):
            found = glue_or_atom(node)
            if isinstance(found, str):
                return nav.navigate(nav.column_at(found), None)  # current row
            if found is not None:
                return found
        parts = higher_order_parts(node)
        if parts is not None:
            return higher_order(node, *parts)
        udf = python_udf(node)
        if udf is not None:
            return udf
        shift = shift_name(node)
        if shift is not None:
            return shifted(node, SHIFTS[shift], width(node))
        typed = typed_name(node)
        if typed is not None:
            return typed_call(node, TYPED_CALLS[typed])
        if (
            isinstance(node, (exp.Cast, exp.TryCast))
            and node.to.is_type(*exp.DataType.TEXT_TYPES, *exp.DataType.NUMERIC_TYPES)
            and not reads_bound(node)  # (a lambda's parameter has no type probe)
        ):
            return interval_cast(node)
        fits = width(node)
        child = compile_node if fits is None or low.ansi else partial(operand_of, fits)
        if isinstance(node, (exp.Concat, exp.DPipe)) and not reads_bound(node):
            child = as_text
        compiled = compile_glue(
            node,
            child,
            lambda n: node_pos(n, base, low.sql),
            low.sql,
            low.ansi,
        )
        compiled = compiled if fits is None else fitted(compiled, fits)
        common = common_type(node)
        return compiled if common is None else fitted(compiled, common)

    def as_text(node: exp.Expression) -> Evaluator:
        """An operand of ``concat`` or ``||``, which Spark casts to STRING: a day-time
        interval written with the fields of Spark's type of it, as :func:`text_cast`."""
        from .measure_eval import interval_text  # it builds on this module

        evaluate = compile_node(node)
        if isinstance(node, (exp.Literal, exp.Null, exp.Boolean)):
            return evaluate
        text, pos = user_text(node, low.sql, base, limit=60), node_pos(node, base, low.sql)
        operand = IntegerWidth(probe(node), text, low.sql, pos, low.ansi)
        low.integer_widths.append(operand)

        def written(ctx):
            value = evaluate(ctx)
            if isinstance(value, timedelta):
                span = _day_time_fields(operand.type_name)
                if span is not None:
                    return interval_text(value, *span)
            return value

        return written

    def interval_cast(node: exp.Cast) -> Evaluator:
        """A CAST to STRING or a number, which reads a day-time interval by the fields of
        Spark's type of it (``INTERVAL '30' DAY`` for ``dt - A.dt``; 25 of an INTERVAL
        HOUR of 25 hours): the value alone does not tell them, so the operand's type is
        asked of Spark before the query runs (a cast Spark refuses, an interval of two
        fields to a number, is refused then)."""
        from .measure_eval import cast_evaluator  # it builds on this module

        text = user_text(node.this, low.sql, base, limit=60)
        pos = node_pos(node.this, base, low.sql)
        target = node.to.sql("spark").upper()
        refuses = None if node.to.is_type(*exp.DataType.TEXT_TYPES) else partial(_no_number, target)
        operand = IntegerWidth(probe(node.this), text, low.sql, pos, low.ansi, refuses=refuses)
        low.integer_widths.append(operand)
        compiled: dict[int, Evaluator] = {}

        def recorded(n: exp.Expression) -> Evaluator:
            compiled[id(n)] = found = compile_node(n)
            return found

        where = lambda n: node_pos(n, base, low.sql)  # noqa: E731
        cast = compile_glue(node, recorded, where, low.sql, low.ansi)
        inner = compiled.get(id(node.this))
        if inner is None:
            return cast
        chosen: list[Evaluator] = []  # once the runtime set the operand's type
        ansi, sql, at = low.ansi, low.sql, where(node)  # (the closure is shipped: no ``low``)

        def evaluate(ctx):
            if not chosen:
                name = operand.type_name
                interval = _day_time_fields(name) is not None
                chosen.append(
                    cast_evaluator(node, lambda _: inner, ansi, sql, at, True, dtype(name))  # type: ignore[arg-type]
                    if interval
                    else cast
                )
            return chosen[0](ctx)

        return evaluate

    def operand_of(fits: IntegerWidth, node: exp.Expression) -> Evaluator:
        """An arithmetic operator's operand, read as Spark reads it for the result's
        type: an integer cast to FLOAT (without ANSI mode only: under it, Spark types an
        integer and a FLOAT together DOUBLE)."""
        evaluate = compile_node(node)
        return lambda ctx: fits.operand(evaluate(ctx))

    def common_type(node: exp.Expression) -> IntegerWidth | None:
        """Spark's type of a conditional's (array's, ...) result, to which the glue casts
        each value as Spark casts the operands (set by the runtime), or None."""
        if not isinstance(node, COERCING) or reads_bound(node):
            return None
        if node.meta.get(DECODED) and not low.ansi:
            return None
        pos = node_pos(node, base, low.sql)
        found = IntegerWidth(
            probe(node),
            user_text(node, low.sql, base, limit=60),
            low.sql,
            pos,
            low.ansi,
            implicit=partial(implicit_cast, ansi=low.ansi, sql=low.sql, pos=pos),
        )
        low.integer_widths.append(found)
        return found

    def shifted(node: exp.Expression, fn, bits: IntegerWidth | None) -> Evaluator:
        """A shift of values from several rows (``shiftleft(B.n, A.k)``, ``a >>> b``):
        Java's, in the width of Spark's type of the result (INT or BIGINT), which the
        runtime sets before the query runs."""
        text = user_text(node, low.sql, base, limit=60)
        if bits is not None:
            bits.required = text

        def shift(a, n):
            if a is None or n is None:
                return None
            if bits is None or bits.bits not in (32, 64):
                raise TypeError(f"the width of {text} is not known (CAST it to INT or BIGINT)")
            return fn(a, n, bits.bits)

        where = lambda n: node_pos(n, base, low.sql)  # noqa: E731
        casts = (shift_name(node), low.ansi)
        return glue_function_call(
            node, shift, shift_args(node), compile_node, where, low.sql, casts, strict=True
        )

    def typed_call(node: exp.Expression, call: TypedCall) -> Evaluator:
        """``hash(...)``, ``format_string(...)`` of values from several rows: each
        argument read with its Spark type, which the runtime sets before the query runs
        (the probe of an integer width, whose type it keeps)."""
        where = lambda n: node_pos(n, base, low.sql)  # noqa: E731
        args = typed_args(node)
        if call.pattern:
            check_format_pattern(args, where, low.sql)
        kinds = []
        call_text = user_text(node, low.sql, base, limit=60)
        for arg in args:
            kind = IntegerWidth(
                probe(arg),
                user_text(arg, low.sql, base, limit=60),
                low.sql,
                node_pos(arg, base, low.sql),
                low.ansi,
                required=call_text,
                refuses=type_refusal(call),
            )
            low.integer_widths.append(kind)
            kinds.append(kind)

        def with_types(*values):
            typed = []
            for value, kind in zip(values, kinds):
                if kind.type_name is None:
                    raise TypeError(f"the Spark type of {kind.text} is not known here")
                typed.append((value, call.read_type(kind.type_name)))
            return call.fn(typed)

        if not call.reads_values:
            for arg in args:
                compile_node(arg)  # checked as any argument, never evaluated
            return lambda ctx: with_types(*[None] * len(args))
        casts = (typed_name(node), low.ansi) if call.casts else None
        return glue_function_call(node, with_types, args, compile_node, where, low.sql, casts)

    def higher_order(
        node: exp.Expression, kind: str, args: list[exp.Expression], lambdas: list[exp.Lambda]
    ) -> Evaluator:
        """A higher-order function over values from several rows (``exists(A.tags, t ->
        t = B.tag)``): each lambda's body compiled with each parameter read from a slot
        the function fills per element."""
        spec = HIGHER_ORDER[kind]
        values = [compile_node(a) for a in args]
        bodies, slots = compiled_lambdas(lambdas, bound, compile_node)
        return spec.evaluator(kind, values, bodies, slots, low.sql, node_pos(node, base, low.sql))

    def python_udf(node: exp.Expression) -> Evaluator | None:
        """The glue's call of a session Python UDF ``node`` (of values from several
        rows), None if ``node`` calls none; an error if the glue cannot call it as Spark
        would."""
        if not isinstance(node, exp.Anonymous):
            return None
        found = _python_function(low, str(node.this))
        if found is None:
            return None
        why = udf_refusal(found)
        if why is not None:
            raise low.error(
                UnsupportedError,
                f"{str(node.this)}() is {why}: DEFINE cannot call it on values from several rows",
                node,
                base,
                hint=udf_refusal_hint(found),
            )
        positional = [a for a in node.expressions if not isinstance(a, exp.Kwarg)]
        named = [a for a in node.expressions if isinstance(a, exp.Kwarg)]
        call = udf_glue_call(found)
        names = [a.this.name for a in named]

        def with_names(*values):  # ``f(b => x)``: Python's keyword arguments
            cut = len(positional)
            return call(*values[:cut], **dict(zip(names, values[cut:])))

        return glue_function_call(
            node,
            with_names,
            [*positional, *(a.expression for a in named)],
            compile_node,
            lambda n: node_pos(n, base, low.sql),
            low.sql,
        )

    def probe(node: exp.Expression, bound: frozenset[str] = frozenset()) -> str:
        """Spark SQL with the type of ``node`` over the input and the precomputed columns
        (atoms stand for the value they read at some row); no new column is added.
        ``bound``: the parameters of the lambdas inside the probed expression around
        ``node``, which stay parameters (Spark binds them before a column of that name)."""
        node = _unparen(node)
        if isinstance(node, (exp.Column, exp.Identifier)) and bound_name(node) in bound:
            return node.sql(dialect=MatchRecognizeDialect)
        parameter = parameter_probe(node, probe)
        if parameter is not None:
            return parameter
        if isinstance(node, exp.Column) and not _is_star(node):
            return quote(low.column(node, base))
        if is_local(node) and not reads_outer_parameter(node):
            # in parentheses: a top-level column or PREV is replaced too
            return low.spark_sql(exp.Paren(this=node.copy()), base)
        kind = _special_kind(node)
        if kind in NAVIGATION:
            text = low.navigation_atom(node, base, in_define=True)[1]
            collation = _explicit_collation(node)
            # (Spark's collation of a comparison prefers an explicit COLLATE, which the
            # column of another row's value no longer is: ``B.s = A.s COLLATE UTF8_LCASE``)
            return f"({text}) COLLATE {collation}" if collation else text
        if kind == "CLASSIFIER":
            return "CAST(NULL AS STRING)"
        if kind == "MATCH_NUMBER":
            return "CAST(NULL AS BIGINT)"
        if _aggregate_name(node):
            text = low.aggregate_atom(node, base, in_define=True)[1]
            if text.startswith("CAST("):
                return text
            return text.replace("(DISTINCT ", "(", 1) + " OVER ()"  # a value per row
        if isinstance(node, exp.Anonymous) and is_internal(node.name):
            return internal_probe(node, [probe(a, bound) for a in node.expressions])
        copy = node.copy()
        parts: dict[str, str] = {}
        pairs = list(zip(list(node.iter_expressions()), list(copy.iter_expressions())))
        while pairs:
            original, child = pairs.pop()
            if isinstance(child.parent, _PROBED_BY_PARTS.get(type(child), ())):
                # WHEN ... THEN ... has no SQL of its own, nor map(...)'s keys and values
                # lists, nor the LIKE of LIKE ... ESCAPE, nor a named struct's `x := v`:
                # probe their parts
                pairs.extend(zip(list(original.iter_expressions()), list(child.iter_expressions())))
                continue
            if (
                isinstance(
                    child,
                    (exp.DataType, exp.Identifier, exp.Var, exp.Interval, exp.Boolean, exp.Null),
                )
                and parameter_probe(original, probe) is None
            ) or (
                isinstance(child.parent, (exp.Escape, exp.Collate))
                and child is child.parent.expression
            ):
                # (``IS (NULL)``, ``ESCAPE ('!')``, ``COLLATE(s, ('UTF8_LCASE'))`` are no
                # Spark SQL: their checks never ran)
                continue
            marker = f"__mr_probe_{id(child)}__"
            inner = bound
            if isinstance(original, exp.Lambda):
                inner = bound | {p.name.lower() for p in original.expressions}
            parts[marker] = f"({probe(original, inner)})"
            child.replace(exp.column(marker))
        text = copy.sql(dialect=MatchRecognizeDialect, unsupported_level=ErrorLevel.IGNORE)
        return Lowering._fill(text, parts)

    _check_semantics(low, tree, base, in_define=True)
    original = tree.copy()  # as written, for the type checks' messages
    tree = _current_classifier(tree, label)

    def pushed(tree: exp.Expression) -> exp.Expression:
        return push_down(
            tree,
            local_labels,
            _qualifier,
            _special_kind,
            _aggregate_name,
            evaluates,
            ansi=low.columns_as_ansi,
            column_type=low.column_types.get,
            kept_call=lambda call: _glue_udf(low, call),
            lags=low.window is not None,
            found=lambda kind, offset, q: low.always_found(kind, offset, q, label),
        )

    tree = pushed(tree)
    if low.sql_functions is not None:  # a SQL UDF of several rows: its body, lowered

        def keeps(node: exp.Expression) -> bool:  # Spark or the glue runs it as it is
            return _glue_keeps(node) or _current_row_only(node, local_labels)

        try:
            inlined = inline_sql_functions(tree.copy(), low.sql_functions, keeps)
        except UnknownFunction as unknown:
            raise SemanticError(
                unknown.message,
                sql=low.sql,
                pos=call_pos(unknown.node, base, low.sql),
                hint=f"did you mean {unknown.close}?" if unknown.close else None,
            ) from None
        except ChangedSettings as changed:
            raise SemanticError(
                changed.message,
                sql=low.sql,
                pos=call_pos(changed.node, base, low.sql),
                hint=changed.hint,
            ) from None
        if inlined != tree:
            tree = pushed(inlined)
    conjuncts = list(_conjuncts(tree))
    # Spark skips a conjunct after one that is false: a row-local one that can fail and
    # follows a match-dependent one stays with it in the glue
    first = next((i for i, c in enumerate(conjuncts) if not is_local(c)), len(conjuncts))
    glued = {i for i, c in enumerate(conjuncts) if not is_local(c) or (i > first and raises_in(c))}
    local = [c for i, c in enumerate(conjuncts) if i not in glued]
    dynamic = [c for i, c in enumerate(conjuncts) if i in glued]
    local_column = None
    if local:
        combined = local[0] if len(local) == 1 else balanced_chains(exp.and_(*local, copy=True))
        local_column = low.precompute(combined, base)
        low.local_conditions[label] = local_column
    glue = vector = None
    if dynamic:
        combined = dynamic[0]
        if len(dynamic) > 1:
            combined = balanced_chains(exp.and_(*dynamic, copy=False))
        lazy.update(lazily_evaluated(combined))
        glue = compile_node(combined)
        vector = vector_glue(combined, glue_or_atom, low.ansi, width)
    lazy_written = lazily_evaluated(original)  # (a cast the glue computes is checked)
    for node in _walk(original):
        check = None
        if operands_of(node):
            check = build_check(node, probe, low.sql, base, not is_local(node), "DEFINE")
            if check is not None and low.compares_strings(node):
                check = dataclasses.replace(check, casts_strings=True)
            if check is not None:
                low.define_checks.append(check)
        elif isinstance(node, exp.Cast) and (
            not is_local(node) or (id(node) in lazy_written and low.fails_alone(node))
        ):
            low.define_checks.append(cast_check(node, probe, low.sql, base, "DEFINE"))
        found = pair_call(node, low.sql, base)
        if found is None:
            continue  # (is_local refuses some nodes a call's check never reads: ``B.*``)
        in_glue, late = not is_local(node), check is not None
        low.define_checks.append(pair_check(found, probe, low.sql, base, in_glue, "DEFINE", late))
    low.define_checks.append(condition_check(original, probe, low.sql, base, label, expr.text))
    return DefineLowering(local_column, glue, history_free, vector, (reach[0], reach[1]))


#: quotation marks of typeset text, which SQL does not read as quotes
_TYPOGRAPHIC_QUOTES = ("‘", "’", "“", "”")


#: Spark's ``simpleString`` of a day-time interval type: ``interval day to second``
_DAY_TIME = re.compile(r"interval (day|hour|minute|second)(?: to (day|hour|minute|second))?")


def _no_number(target: str, type_name: str) -> str | None:
    """Why Spark refuses to cast a value of ``type_name`` to the number type ``target``
    (a day-time interval of two fields, or to a fractional type), or None."""
    fields = _day_time_fields(type_name)
    if fields is None:
        return None
    if fields[0] == fields[1] and not target.startswith(("DOUBLE", "FLOAT", "REAL")):
        return None
    return (
        f"[DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION] Spark cannot cast "
        f"{type_name.upper()} to {target}: an interval of one field casts to an integer "
        "or DECIMAL"
    )


def _day_time_fields(type_name: str | None) -> tuple[str, str] | None:
    """The start and end fields of the day-time interval type ``type_name``, else None."""
    found = _DAY_TIME.fullmatch(type_name or "")
    if found is None:
        return None
    return found.group(1).upper(), (found.group(2) or found.group(1)).upper()


#: DATE and the TIMESTAMPs, as sqlglot names them
_MOMENT_TYPES = (
    exp.DataType.Type.DATE,
    exp.DataType.Type.TIMESTAMP,
    exp.DataType.Type.TIMESTAMPTZ,
    exp.DataType.Type.TIMESTAMPLTZ,
    exp.DataType.Type.TIMESTAMPNTZ,
)

#: the types of the values a CAST of the glue converts as Spark does
_GLUE_CAST_SOURCES = {
    *exp.DataType.TEXT_TYPES,
    *exp.DataType.NUMERIC_TYPES,
    *_MOMENT_TYPES,
    exp.DataType.Type.BOOLEAN,
}

#: operators whose integer result overflows (ARITHMETIC_OVERFLOW under ANSI mode)
_OVERFLOWING = (exp.Add, exp.Sub, exp.Mul, exp.Neg)

#: arithmetic whose DECIMAL result Spark rounds to its type's scale
_DECIMAL_SCALED = (exp.Div, exp.Mod, exp.Add, exp.Sub, exp.Mul)
_INTEGRAL_TYPES = {
    exp.DataType.Type.TINYINT,
    exp.DataType.Type.SMALLINT,
    exp.DataType.Type.INT,
    exp.DataType.Type.BIGINT,
}


def _timestamp_of_date(type_name: str) -> Callable[[object], object] | None:
    """Where Spark types a DATE plus or minus an interval TIMESTAMP (any day-time
    interval but INTERVAL DAY: ``dt + 2 * INTERVAL '12' HOUR``), a DATE the glue computed
    (whole days moved) as its midnight in the session time zone."""
    if type_name != "timestamp":
        return None
    return lambda v: moved_midnight(v, timedelta(0)) if type(v) is date else v


def _is_cast(node: exp.Expression) -> bool:
    """A CAST of Spark's, written or implied (``to_date(s)``)."""
    return isinstance(node, (exp.Cast, exp.TryCast)) or date_cast(node)


def _alone(node: exp.Expression) -> exp.Expression:
    """``node`` with NULL for its operands (:func:`pyeval.shallow`), a CAST's target
    type kept."""
    if not _is_cast(node):
        return shallow(node)
    copy = node.copy()
    copy.set("this", exp.Null())
    return copy


#: nodes with no Spark SQL of their own inside the parent given (a type probe in
#: parentheses would not parse), whose parts are probed instead
_PROBED_BY_PARTS: dict[type[exp.Expression], tuple[type[exp.Expression], ...]] = {
    exp.If: (exp.Case,),
    exp.Array: (exp.VarMap,),
    exp.Like: (exp.Escape,),
    exp.ILike: (exp.Escape,),
    exp.PropertyEQ: (exp.Struct,),
}

#: Spark's try_ forms of integer operators: NULL where the result does not fit
TRY = (exp.SafeAdd, exp.SafeSubtract, exp.SafeMultiply)
#: comparisons whose DECIMAL operands Spark brings to a common type first

#: glue operators whose integer results Spark keeps in their type's width, and whose
#: DECIMAL results it rounds to their type's scale (``/`` only the latter)
INTEGER_OPERATORS = (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.IntDiv, exp.Neg, exp.Abs, *TRY)
#: the operators whose TINYINT or SMALLINT overflow Spark names BINARY_ARITHMETIC_OVERFLOW
BINARY_OPERATORS = (exp.Add, exp.Sub, exp.Mul)


#: the functions whose DECIMAL results the glue rounds to the scale Spark types them with
#: (``try_divide`` as ``/``; the remainders with the larger scale of their operands)
_REMAINDERS = ("PMOD", "TRY_MOD")


def scaled_call(node: exp.Expression) -> str | None:
    """``node``'s name if it is ``%``, ``pmod``, ``try_mod`` or ``try_divide`` (whose
    DECIMAL result is rounded to its type's scale), else None."""
    if isinstance(node, exp.Mod):
        return "MOD"
    if isinstance(node, exp.SafeDivide):
        return "TRY_DIVIDE"
    if isinstance(node, exp.Anonymous) and node.name.upper() in _REMAINDERS:
        return node.name.upper()
    return None


def null_on_overflow(node: exp.Expression) -> bool:
    """Whether ``node`` is a ``try_`` operator, whose result that its type cannot hold
    is NULL (``try_divide`` of DECIMALs too), ANSI mode or not."""
    return type(node) in TRY or scaled_call(node) in ("TRY_MOD", "TRY_DIVIDE")


def _compared(node: exp.Expression) -> list[exp.Expression]:
    """The operands Spark brings to one common type to compare them (a comparison's two,
    IN's value and list, BETWEEN's three beside a string literal): DECIMALs of one
    scale, strings of one collation, a string literal of the others' type."""
    if type(node) in COMPARISONS and node.left is not None and node.right is not None:
        return [node.left, node.right]
    if isinstance(node, exp.In) and node.args.get("query") is None and node.expressions:
        return [node.this, *node.expressions]
    if isinstance(node, exp.Between):
        operands = [node.this, node.args.get("low"), node.args.get("high")]
        if all(o is not None for o in operands) and any(map(is_string_literal, operands)):
            return operands
    return []


def navigated_value(node: exp.Expression) -> exp.Expression:
    """``node`` with each row pattern navigation replaced by its argument, which has its
    type (``PREV(B.x)`` as ``B.x``), for matchrec's typer (:func:`_value_type`)."""

    def argument(n: exp.Expression) -> exp.Expression:
        if _special_kind(n) in NAVIGATION and n.expressions:
            return n.expressions[0].transform(argument)
        return n

    return node.copy().transform(argument)


def _constant(node: exp.Expression) -> bool:
    return isinstance(node, (exp.Literal, exp.Null, exp.Boolean))


def fitted(evaluate: Evaluator, width: IntegerWidth) -> Evaluator:
    """``evaluate`` with its result fitted to ``width`` (wrapped, or an error)."""
    return lambda ctx: width.fit(evaluate(ctx))


def _current_classifier(tree: exp.Expression, label: str) -> exp.Expression:
    """``tree`` with CLASSIFIER() of the current row, in ``DEFINE label``, replaced by the
    label: the row being tested is tentatively ``label``, so the value is known when the
    query is planned and Spark computes what surrounds it, whatever functions it calls
    (``regexp_extract(CLASSIFIER(), ...)``). Inside navigation and aggregates CLASSIFIER()
    reads other rows and stays."""

    def inside_other_rows(node: exp.Expression) -> bool:
        parent = node.parent
        while parent is not None:
            if _special_kind(parent) in NAVIGATION or _aggregate_name(parent):
                return True
            parent = parent.parent
        return False

    for node in list(tree.walk()):
        if _special_kind(node) == "CLASSIFIER" and not node.expressions:
            if not inside_other_rows(node):
                literal = exp.Literal.string(label)
                literal.meta.update(node.meta)
                if node is tree:
                    return literal
                node.replace(literal)
    return tree


#: aggregates that return something other than NULL for rows whose argument is NULL (a
#: FILTER cannot be written as a NULL argument for them)
_NULL_KEEPING_AGGREGATES = (exp.AnyValue, exp.First, exp.Last, exp.FirstValue, exp.LastValue)


#: Spark's value aggregates -> the position their NULL-skipping form reads in the list of
#: the non-NULL values (``first_value(x, true)``: the first; ``last_value(x, true)``: the
#: last). ``FIRST(x, true)``/``LAST(x, true)`` are Spark's ``first``/``last`` aggregates
#: with ``ignoreNulls``: FIRST/LAST navigation takes no boolean.
_IGNORE_NULLS_POSITION: dict[str, int] = {
    "FIRST_VALUE": 1,
    "FIRST": 1,
    "ANY_VALUE": 1,
    "LAST_VALUE": -1,
    "LAST": -1,
}


def _skipping_nulls(node: exp.Expression) -> tuple[str | None, int, exp.Expression] | None:
    """(RUNNING/FINAL, position, argument) of ``first_value(x, true)``, ``last_value(x)
    IGNORE NULLS``, ``FINAL any_value(x, true)``, ...; None for other nodes."""
    flagged = isinstance(node, exp.IgnoreNulls)
    call = node.this if flagged else node
    if not isinstance(call, exp.Func):
        return None
    semantics, name = call_name(call)
    position = _IGNORE_NULLS_POSITION.get(name)
    if position is None:
        return None
    args = list(call.expressions) if isinstance(call, exp.Anonymous) else [call.this]
    if not flagged:
        if len(args) != 2 or not isinstance(args[1], exp.Boolean) or not args[1].this:
            return None
        args = args[:1]
    if len(args) != 1 or args[0] is None:
        return None
    return semantics, position, args[0]


def _drop_respect_nulls(node: exp.Expression) -> None:
    """``FIRST(x, false)``, ``FINAL last_value(x, false)`` (Spark's ``ignoreNulls`` set to
    false) as the same call without the flag, in place."""
    if not isinstance(node, exp.Anonymous) or call_name(node)[1] not in _IGNORE_NULLS_POSITION:
        return
    args = list(node.expressions)
    if len(args) == 2 and isinstance(args[1], exp.Boolean) and not args[1].this:
        node.set("expressions", args[:1])


def _spark_implicit_aggregates(low: Lowering, tree: exp.Expression) -> exp.Expression:
    """``tree`` with the aggregates over the match whose argument Spark casts before it
    aggregates computed as Spark computes them: ``sum``/``avg`` of a TIMESTAMP are of its
    DOUBLE seconds, and ``avg`` of a narrow DECIMAL is Spark's double mean (below)."""
    return _spark_decimal_means(low, _timestamp_sums(low, tree))


def _aggregated_value(
    node: exp.Expression, names: tuple[str, ...]
) -> tuple[exp.Expression, exp.Expression] | None:
    """(the argument, the value in it) of a one-argument aggregate ``node`` named one of
    ``names`` over the match (``avg(DISTINCT x)``: ``DISTINCT x`` and ``x``); None for
    another node, a window over the input or a subquery's (Spark's to compute, as
    written)."""
    if call_name(node)[1] not in names or node.find_ancestor(exp.Window, exp.Subquery, exp.Select):
        return None  # (an aggregate of a subquery's rows is Spark's too)
    if isinstance(node, exp.Anonymous):
        if len(node.expressions) != 1:
            return None
        argument = node.expressions[0]
    else:
        argument = node.this
    distinct = isinstance(argument, exp.Distinct) and len(argument.expressions) == 1
    value = argument.expressions[0] if distinct else argument
    return (argument, value) if value is not None else None


def _replace_value(node: exp.Expression, argument: exp.Expression, new: exp.Expression) -> None:
    """Put ``new`` in the place of the value of ``node``'s ``argument`` (see above)."""
    if isinstance(argument, exp.Distinct):
        argument.set("expressions", [new])
    elif isinstance(node, exp.Anonymous):
        node.set("expressions", [new])
    else:
        node.set("this", new)


def _timestamp_sums(low: Lowering, tree: exp.Expression) -> exp.Expression:
    """``sum``/``avg`` (``mean``, ``try_sum``, ``try_avg``) of a TIMESTAMP: Spark casts it
    to DOUBLE (seconds since the epoch) and the answer is a DOUBLE; the matcher's Python
    aggregates would add datetimes. A TIMESTAMP_NTZ or DATE Spark refuses (its analysis of
    the measure says so)."""
    names = ("SUM", "AVG", "MEAN", "TRY_SUM", "TRY_AVG")
    for node in list(tree.find_all(exp.Sum, exp.Avg, exp.Anonymous)):
        found = _aggregated_value(node, names)
        if found is None:
            continue
        argument, value = found
        typed = _value_type(low, value)
        if typed is not None and type_name(typed) == "timestamp":  # not TIMESTAMP_NTZ
            seconds = exp.Cast(this=value.copy(), to=exp.DataType.build("DOUBLE"))
            _replace_value(node, argument, seconds)
    return tree


def _spark_decimal_means(low: Lowering, tree: exp.Expression) -> exp.Expression:
    """``tree`` with each ``avg`` of a DECIMAL(p, s) column with ``p + 4 <= 15`` computed
    as Spark's optimizer computes it (its DecimalAggregates rule): the DOUBLE mean of the
    unscaled values, divided by ``10^s`` as a DOUBLE, cast to DECIMAL(p + 4, s + 4). Where
    the exact mean is a tie at that scale, the double is just below or above it, so
    Spark's answer is not the exact mean rounded half up (``avg`` of 1.01 and 159 zeros
    is 0.006312). DISTINCT and FILTER are kept; the unscaled values are exact BIGINTs."""
    for node in list(tree.find_all(exp.Avg, exp.Anonymous)):
        found = _aggregated_value(node, ("AVG", "MEAN"))
        if found is None:
            continue
        argument, value = found
        typed = _value_type(low, value)
        if typed is None or typed.this != exp.DataType.Type.DECIMAL or len(typed.expressions) != 2:
            continue
        precision, scale = (int(e.this.name) for e in typed.expressions)
        if precision + 4 > 15:
            continue
        unscaled = exp.Cast(
            this=exp.Mul(
                this=exp.Paren(this=value.copy()), expression=exp.Literal.number(10**scale)
            ),
            to=exp.DataType.build("BIGINT"),
        )
        _replace_value(node, argument, unscaled)
        unit = node.parent if isinstance(node.parent, exp.Filter) else node
        mean = exp.Div(
            this=unit.copy(),
            expression=exp.Cast(
                this=exp.Literal.number(10**scale), to=exp.DataType.build("DOUBLE")
            ),
        )
        to = dtype(f"DECIMAL({precision + 4},{scale + 4})")
        replaced = exp.Cast(this=mean, to=to)
        if unit is tree:
            tree = replaced
        else:
            unit.replace(replaced)
    return tree


def _explicit_collation(node: exp.Expression) -> str | None:
    """The collation a navigation ``node`` reads its value in explicitly (``A.s COLLATE
    UTF8_LCASE``, moved inside it: ``PREV(s COLLATE UTF8_LCASE)``), else None."""
    node = _unparen(navigated_value(node))
    if isinstance(node, exp.Collate) and isinstance(node.expression, (exp.Var, exp.Literal)):
        name = node.expression.name
        return name if re.fullmatch(r"\w+", name) else None
    return None


def _value_type(low: Lowering, value: exp.Expression) -> exp.DataType | None:
    """The Spark type of ``value``, by matchrec's typer of Spark's rules over the input's
    column types (pattern variables dropped: ``b.qty * B.price`` is typed as ``qty *
    price``); None when unknown."""
    from .measure_eval import TypeEnv, infer_type  # it imports this module

    labels = {*low.label_ids, *low.subsets}

    def unqualified(node: exp.Expression) -> exp.Expression:
        if not isinstance(node, exp.Column) or _qualifier(node) not in labels:
            return node
        parts = [part.copy() for part in node.parts[1:]]
        return exp.column(parts[-1], *reversed(parts[:-1])) if parts else node

    columns = {}
    for name, written in low.column_types.items():
        try:
            columns[name] = read_named_type(written)
        except (sqlglot.errors.SqlglotError, ValueError):
            continue
    return infer_type(value.transform(unqualified), TypeEnv(columns=columns, ansi=low.ansi))


def _counts_of_several(tree: exp.Expression) -> exp.Expression:
    """``tree`` with Spark's ``count(a, b, ...)`` and ``count(DISTINCT a, b, ...)`` written
    with one argument: a row counts when none of the values is NULL, and DISTINCT takes
    the values together (``struct(a, b)``, compared field by field), as Spark counts."""

    def several(node: exp.Expression) -> tuple[list[exp.Expression], exp.Distinct | None]:
        if isinstance(node, exp.Count):
            first = node.this
            values = [first, *node.expressions] if first is not None else []
        elif isinstance(node, exp.Anonymous) and call_name(node)[1] == "COUNT":
            values = list(node.expressions)
        else:
            return [], None
        if len(values) == 1 and isinstance(values[0], exp.Distinct):
            return list(values[0].expressions), values[0]
        return values, None

    for node in list(tree.find_all(exp.Count, exp.Anonymous)):
        values, distinct = several(node)
        if len(values) < 2 or any(_is_star(v) for v in values):
            continue
        present = exp.and_(
            *(exp.Not(this=exp.Is(this=v.copy(), expression=exp.Null())) for v in values)
        )
        value = (
            exp.Struct(expressions=[v.copy() for v in values])
            if distinct
            else (exp.Literal.number(1))
        )
        single: exp.Expression = exp.If(this=present, true=value, false=exp.Null())
        if distinct is not None:
            single = exp.Distinct(expressions=[single])
        if isinstance(node, exp.Count):
            node.set("this", single)
            node.set("expressions", [])
        else:
            node.set("expressions", [single])
    return tree


def _ignoring_nulls(tree: exp.Expression) -> exp.Expression:
    """``tree`` with Spark's NULL-skipping forms of ``first_value``/``last_value``/
    ``any_value``/``first``/``last`` written as ``try_element_at(array_agg(x), 1 or -1)``:
    the first or last non-NULL value of the rows in match order, NULL when there is none,
    of ``x``'s type. A FILTER on the call moves onto ``array_agg``."""
    for node in list(tree.walk()):
        if isinstance(node, exp.RespectNulls):  # the default: the call alone
            if node is tree:
                tree = node.this
            else:
                node.replace(node.this)
            continue
        found = _skipping_nulls(node)
        if found is None:
            _drop_respect_nulls(node)
            continue
        semantics, position, arg = found
        values: exp.Expression = (
            exp.Anonymous(this=f"{semantics}{SEMANTICS_MARK}array_agg", expressions=[arg.copy()])
            if semantics
            else exp.ArrayAgg(this=arg.copy())
        )
        target = node.parent if isinstance(node.parent, exp.Filter) else node
        if target is not node:
            values = exp.Filter(this=values, expression=target.expression.copy())
        index: exp.Expression = exp.Literal.number(1)
        index = index if position > 0 else exp.Neg(this=index)
        at = exp.Bracket(this=values, expressions=[index], offset=1, safe=True)  # try_element_at
        if target is tree:
            return at
        target.replace(at)
    return tree


def _filtered_aggregates(low: Lowering, tree: exp.Expression, base: int) -> exp.Expression:
    """``tree`` with each ``agg(x) FILTER (WHERE c)`` written as ``agg(IF(c, x, NULL))``
    (``count(*)``: ``count(IF(c, 1, NULL))``): every aggregate matchrec computes over a
    match but ``any_value`` skips NULL arguments, so the rows ``c`` rejects count for
    nothing, as Spark's FILTER says."""
    for node in list(tree.find_all(exp.Filter)):
        agg, where = node.this, node.expression
        if not isinstance(where, exp.Where):
            continue
        special = _special_kind(agg)
        if special:
            raise low.error(
                SemanticError,
                f"Cannot use FILTER with {special.lower()} pattern recognition function",
                node,
                base,
                hint="FILTER (WHERE ...) applies to aggregates, e.g. count(*) FILTER (WHERE ...)",
            )
        # a call sqlglot knows as a scalar function (a name it does not know may be an
        # aggregate matchrec leaves to Spark, or a UDAF)
        scalar = isinstance(agg, exp.Func) and not isinstance(agg, (exp.AggFunc, exp.Anonymous))
        if scalar and not is_aggregate(agg):
            name = agg.sql_name()
            raise low.error(
                SqlSyntaxError,
                "Invalid SQL syntax: The function "
                f"`{name.lower() or agg.sql()}` does not support FILTER clause",
                node,
                base,
                hint="FILTER (WHERE ...) goes after an aggregate, e.g. max(x) FILTER (WHERE ...); "
                "to test a condition on one value, use CASE WHEN ... THEN ... END",
            )
        if isinstance(agg, _NULL_KEEPING_AGGREGATES):
            raise low.error(
                UnsupportedError,
                f"FILTER (WHERE ...) on {agg.sql_name().lower()}() is not supported in "
                "MATCH_RECOGNIZE (it does not skip NULL arguments)",
                node,
                base,
                hint="use max_by/min_by or first_value over a CASE WHEN cond THEN x END",
            )
        cond = where.this
        filtered = agg.copy()
        if _filter_sorted(filtered, cond):
            if node is tree:
                return filtered
            node.replace(filtered)
            continue
        if isinstance(filtered, exp.Anonymous):  # RUNNING/FINAL agg(...), max_by, ...
            _filter_call_args(low, filtered, cond)
            if node is tree:
                return filtered
            node.replace(filtered)
            continue
        inner = filtered.this
        if isinstance(inner, exp.Distinct):
            inner.set("expressions", [_only_where(cond, e) for e in inner.expressions])
        elif _is_star(inner) and _qualifier(inner) is not None:
            filtered.set("this", _labelled_rows_where(low, cond, inner))
        elif inner is not None:
            filtered.set("this", _only_where(cond, inner))
        if isinstance(filtered, (exp.ArgMax, exp.ArgMin)):
            filtered.set("expression", _only_where(cond, filtered.expression))
        if node is tree:
            return filtered
        node.replace(filtered)
    return tree


def _filter_sorted(agg: exp.Expression, cond: exp.Expression) -> bool:
    """FILTER (WHERE ``cond``) on an aggregate with WITHIN GROUP keys, in place: the
    value it aggregates is NULL where ``cond`` does not hold, so the row counts for
    nothing (a listagg's value; a percentile's or mode's ORDER BY key, the value it
    reads). False when ``agg`` has no keys."""
    call, keys = within_group.orderings(agg)
    if isinstance(call, exp.GroupConcat) and isinstance(call.this, exp.Order):
        order = call.this  # listagg(x) WITHIN GROUP (...) as sqlglot reads it
        keys = list(order.expressions)
        order.set("this", _value_where(cond, order.this))
    elif keys and isinstance(call, exp.Anonymous) and call.expressions:
        if call_name(call)[1] in ("LISTAGG", "STRING_AGG"):  # FINAL listagg(x) WITHIN ...
            call.set(
                "expressions", [_value_where(cond, call.expressions[0]), *call.expressions[1:]]
            )
    if not keys:
        return False
    for key in keys:
        key.set("this", _only_where(cond, key.this))
    return True


def _value_where(cond: exp.Expression, value: exp.Expression) -> exp.Expression:
    """An aggregate's value argument (DISTINCT's values too) NULL where ``cond`` fails."""
    if isinstance(value, exp.Distinct):
        value.set("expressions", [_only_where(cond, e) for e in value.expressions])
        return value
    return _only_where(cond, value)


#: aggregates whose first n arguments are values of the aggregated rows (the rest are
#: constants such as a percentile or a separator); 1 when not listed
_ROW_ARGUMENTS = {"MIN_BY": 2, "MAX_BY": 2}


def _filter_call_args(low: Lowering, call: exp.Anonymous, cond: exp.Expression) -> None:
    """The arguments of aggregate ``call`` (written as a call: ``FINAL sum(x)``) rewritten
    as FILTER (WHERE ``cond``) reads them, in place (see :func:`_filtered_aggregates`)."""
    _, name = call_name(call)
    args = list(call.expressions)
    distinct = bool(args) and isinstance(args[0], exp.Distinct)
    values = list(args[0].expressions) if distinct else args
    n = _ROW_ARGUMENTS.get(name, 1)
    for i, value in enumerate(values[:n]):
        if _is_star(value) and _qualifier(value) is not None:
            values[i] = _labelled_rows_where(low, cond, value)
        else:
            values[i] = _only_where(cond, value)
    if distinct:
        args[0].set("expressions", values)
    else:
        args = values
    call.set("expressions", args)


def _labelled_rows_where(low: Lowering, cond: exp.Expression, star: exp.Column) -> exp.Expression:
    """The argument ``count(X.*) FILTER (WHERE cond)`` counts: 1 at the rows of ``X`` where
    ``cond`` holds (its columns without a pattern variable read those rows, as Spark's
    FILTER reads the aggregated row), else NULL. The 1 is written ``nvl2(X.c, 1, 1)``
    over an input column ``c``, so that the argument still names ``X``."""
    table = star.args["table"]
    cond = cond.copy()
    for col in list(_columns(cond)):
        if col.args.get("table") is None:
            col.set("table", table.copy())
    column = exp.column(next(iter(low.columns.values())), table=table.copy(), quoted=True)
    one = exp.Literal.number(1)
    marked = exp.Anonymous(this="nvl2", expressions=[column, one, one.copy()])
    return exp.If(this=cond, true=marked, false=exp.Null())


def _only_where(cond: exp.Expression, value: exp.Expression) -> exp.Expression:
    """``IF(cond, value, NULL)`` (``*`` counts as 1)."""
    if isinstance(value, exp.Star):
        value = exp.Literal.number(1)
    return exp.If(this=cond.copy(), true=value, false=exp.Null())


def _resolve_fields(low: Lowering, tree: exp.Expression, base: int) -> exp.Expression:
    """Dotted names as Spark reads them here: ``R.info.city`` (pattern variable R, struct
    column ``info``, field ``city``) and ``info.kg`` (``info`` not a pattern variable but
    an input column) become field accesses (``.``) on a column reference."""

    def resolve(col: exp.Column) -> exp.Expression | None:
        parts = [col.args.get(k) for k in ("catalog", "db", "table")] + [col.this]
        parts = [p for p in parts if isinstance(p, exp.Identifier)]
        if len(parts) < 2 or isinstance(col.this, exp.Star):
            return None
        first = parts[0].this if parts[0].quoted else parts[0].this.upper()
        if first in low.label_ids or first in low.subsets:
            head = exp.Column(this=parts[1], table=parts[0])
            rest = parts[2:]
        elif parts[0].this.lower() in low.columns and len(parts) >= 2:
            head = exp.Column(this=parts[0])
            rest = parts[1:]
        else:
            return None
        if not rest:
            return None
        column = head.name.lower()
        check_field_path(
            low.columns.get(column, head.name),
            low.column_types.get(column),
            rest,
            low.sql,
            base,
            node_pos(col, base, low.sql),
        )
        for name in rest:
            head = exp.Dot(this=head, expression=name)
        return head

    for col in list(tree.find_all(exp.Column)):
        if col.find_ancestor(exp.Subquery, exp.Select) is not None:
            continue
        new = resolve(col)
        if new is not None:
            if col is tree:
                tree = new
            else:
                col.replace(new)
    for dot in list(tree.find_all(exp.Dot)):  # ``max(B.st).a``: the field of B.st's type
        chosen, names = dot.this.unnest(), []
        if not isinstance(chosen, CHOSEN_ROW) or not isinstance(chosen.this, exp.Column):
            continue
        step: exp.Expression | None = dot
        while isinstance(step, exp.Dot) and isinstance(step.expression, exp.Identifier):
            names.append(step.expression)
            step = step.parent if isinstance(step.parent, exp.Dot) else None
        column = chosen.this.name.lower()
        check_field_path(
            low.columns.get(column, chosen.this.name),
            low.column_types.get(column),
            names,
            low.sql,
            base,
            node_pos(dot, base, low.sql),
        )
    return tree


def _star_error(low: Lowering, node: exp.Column, base: int) -> SemanticError:
    q = _qualifier(node) or "A"
    return low.error(
        SemanticError,
        "label.* syntax is only supported as the only argument of row pattern count "
        f"function ({_excerpt(node)})",
        node,
        base,
        hint=f"write count({q}.*) to count the rows of {q}, or name a column: {q}.x",
    )


def _classifier(low: Lowering, node: exp.Expression, base: int) -> Evaluator:
    """CLASSIFIER() or CLASSIFIER(X) (arguments are checked by ``_check_semantics``)."""
    found = _classifier_label(node)
    labels = low.label_set(found[0], found[1], base) if found else None
    return nav.navigate(nav.classifier_at, labels)


def lower_measure(low: Lowering, expr: SqlExpr) -> MeasureLowering:
    """Lower one MEASURES expression to Spark SQL over atom columns."""
    tree = _filtered_aggregates(
        low,
        _counts_of_several(
            _ignoring_nulls(
                _spark_implicit_aggregates(low, _resolve_fields(low, _parsed(low, expr), expr.pos))
            )
        ),
        expr.pos,
    )
    base = expr.pos
    _check_semantics(low, tree, base, in_define=False)
    if low.python_measures:
        # as written: push_down moves navigations into calls and rewrites some calls
        low.measure_checks.extend(_written_pair_checks(low, tree.copy(), base))
        absent = None if low.pattern_may_be_empty else "last"
        tree = push_down(
            tree,
            set(),
            _qualifier,
            _special_kind,
            _aggregate_name,
            _measure_glue,
            absent,
            found=lambda kind, offset, q: low.always_found(kind, offset, q, None),
        )

    def replace(node: exp.Expression) -> exp.Expression:
        if isinstance(node, (exp.Subquery, exp.Exists)):
            return node
        if isinstance(node, exp.In) and node.args.get("query") is not None:
            node.set("this", replace(node.this))
            return node
        kind = _special_kind(node)
        text = node.sql(dialect=MatchRecognizeDialect)
        value = _computed_value(node) if kind in NAVIGATION else None
        if value is not None and (not low.python_measures or _measure_glue(value)):
            return _read_through(low, node, value, base, replace)
        if kind in NAVIGATION:
            evaluate, probe = low.navigation_atom(node, base, in_define=False)
            pos = node_pos(node, base, low.sql)
            return exp.column(low.add_atom(evaluate, probe, text=text, pos=pos))
        if kind == "CLASSIFIER":
            evaluate = _classifier(low, node, base)
            return exp.column(low.add_atom(evaluate, "CAST(NULL AS STRING)", text=text))
        if kind == "MATCH_NUMBER":
            return exp.column(low.add_atom(nav.match_number, "CAST(NULL AS BIGINT)", text=text))
        if _aggregate_name(node):
            evaluate, probe = low.aggregate_atom(node, base, in_define=False)
            call = node.this if isinstance(node, exp.WithinGroup) else node
            pos = _written_call(low, call, base)[1]
            return exp.column(low.add_atom(evaluate, probe, aggregate=True, text=text, pos=pos))
        if isinstance(node, exp.Column):
            if _is_star(node):
                raise _star_error(low, node, base)
            labels = low.label_set(_qualifier(node), node, base)
            column = low.column(node, base)
            evaluate = nav.navigate(nav.column_at(column), labels)
            pos = node_pos(node, base, low.sql)
            return exp.column(low.add_atom(evaluate, quote(column), text=text, pos=pos))
        for key, value in list(node.args.items()):
            if isinstance(value, exp.Expression):
                node.set(key, replace(value))
            elif isinstance(value, list):
                node.set(key, [replace(v) if isinstance(v, exp.Expression) else v for v in value])
        return node

    # operands as written, before ``replace`` puts atom columns in their place
    checked = []
    for node in _walk(tree):
        if reads_outer_parameter(node):  # an operator of a lambda's parameter (``x -> x +
            continue  # 1``): Spark types it there
        check = build_check(node, lambda n: "", low.sql, base, False, "MEASURES")
        if check is not None:
            checked.append((node, check))
        found = None if low.python_measures else pair_call(node, low.sql, base)
        if found is not None:  # (the table function's: _written_pair_checks)
            late = check is not None
            pair = pair_check(found, lambda n: "", low.sql, base, False, "MEASURES", late)
            checked.append((node, pair))
    zipped = _zip_field_names(tree)
    lowered = _named_zips(replace(tree), zipped)
    if low.guard_python_udfs and not low.python_measures:
        lowered = lift_calls(
            lowered, partial(_guarded_udf, low), low.guarded_column, low.guarded_calls
        )
    for node, check in checked:  # the operands as lowered: atoms where the glue computes
        if check.pair is not None:
            operands = pair_operands(node, check.pair)
        else:
            operands = operands_of(node)
        probes = [_typed_specials(o).sql(dialect=MatchRecognizeDialect) for o in operands or []]
        low.measure_checks.append(replace_probes(check, probes))
    return MeasureLowering(lowered.sql(dialect=MatchRecognizeDialect))


def _written_pair_checks(low: Lowering, tree: exp.Expression, base: int) -> list[TypeCheck]:
    """The two-argument calls' checks of a measure as written, for the table function,
    whose types come from the input's: each operand's probe is itself with each row
    pattern navigation read as its value (``FIRST(A.n)``: ``A.n``, of the same type)."""

    def value_of(node: exp.Expression) -> exp.Expression:
        if _special_kind(node) in NAVIGATION and call_args(node):
            return call_args(node)[0]
        return node

    checks = []
    for node in _walk(tree):
        found = None if reads_outer_parameter(node) else pair_call(node, low.sql, base)
        if found is None:
            continue
        late = build_check(node, lambda n: "", low.sql, base, False, "MEASURES") is not None
        check = pair_check(found, lambda n: "", low.sql, base, False, "MEASURES", late)
        probes = [
            _typed_specials(a.copy().transform(value_of)).sql(dialect=MatchRecognizeDialect)
            for a in found[1]
        ]
        checks.append(replace_probes(check, probes))
    return checks


def _zip_field_names(tree: exp.Expression) -> dict[int, list[str]]:
    """Spark's names of the fields of each ``arrays_zip`` of ``tree``, from its arguments
    as written: a column's name (``arr`` for ``A.arr``), else the argument's place."""
    return {
        id(z): [
            a.name if isinstance(a, exp.Column) and not _is_star(a) else str(i)
            for i, a in enumerate(z.expressions)
        ]
        for z in tree.find_all(exp.ArraysZip)
    }


def _named_zips(tree: exp.Expression, names: dict[int, list[str]]) -> exp.Expression:
    """``tree`` with each ``arrays_zip`` whose arguments became atom columns (named after
    the user's text, ``COLLECT_LIST(v)``, which Spark would name its fields after) giving
    its fields Spark's names of the arguments as written: an argument that is no column
    is wrapped (Spark names it by its place), and columns' names are set on each element."""
    for zipped in list(tree.find_all(exp.ArraysZip)):
        wanted = names.get(id(zipped))
        if wanted is None or not any(isinstance(a, exp.Column) for a in zipped.expressions):
            continue
        zipped.set("expressions", [exp.Coalesce(this=a) for a in zipped.expressions])
        if all(n == str(i) for i, n in enumerate(wanted)):
            continue
        fields = ", ".join(
            f"{exp.Literal.string(n).sql(dialect=MatchRecognizeDialect)}, __mr_zipped.`{i}`"
            for i, n in enumerate(wanted)
        )
        named = sqlglot.parse_one(
            f"transform(__mr_zip, __mr_zipped -> named_struct({fields}))",
            read=MatchRecognizeDialect,
        )
        slot = next(c for c in named.find_all(exp.Column) if c.name == "__mr_zip")
        slot.replace(zipped.copy())
        if zipped is tree:
            tree = named
        else:
            zipped.replace(named)
    return tree


def _value_argument(node: exp.Expression) -> exp.Expression | None:
    """The argument navigation ``node`` reads at the row it lands on (``x + 1`` of
    ``PREV(LAST(A.x + 1), 2)``), None when it has none."""
    args = node.expressions
    if not args:
        return None
    inner = _unparen(args[0])
    if _special_kind(node) in PHYSICAL and _special_kind(inner) in ("FIRST", "LAST"):
        return inner.expressions[0] if inner.expressions else None
    return args[0]


def _computed_value(node: exp.Expression) -> exp.Expression | None:
    """The value argument of navigation ``node`` in a measure when it computes something
    from plain columns of the row (``FIRST(arr[0])``, ``LAST(qty / n)``), else None.

    Spark would compute such an argument as a column of every row before matching, so
    under ANSI mode a row the measure never reads (an unmatched row with an empty array,
    a zero divisor) would fail the job; the measure reads the columns through the
    navigation and computes the value after instead (:func:`_read_through`)."""
    value = _value_argument(node)
    if value is None or isinstance(_unparen(value), (exp.Column, exp.Distinct)):
        return None  # (DISTINCT: the navigation reports it)
    columns = 0
    for n in value.walk():
        if isinstance(n, (exp.Subquery, exp.Exists, exp.Lambda, exp.Window, exp.Star)):
            return None
        if _special_kind(n) or _aggregate_name(n):
            return None
        if isinstance(n, exp.Column):
            if _is_star(n):
                return None
            columns += 1
    return value if columns else None


def _read_through(
    low: Lowering,
    node: exp.Expression,
    value: exp.Expression,
    base: int,
    replace,
) -> exp.Expression:
    """``FIRST(f(A.x, A.y), k)`` as ``CASE WHEN <FIRST(A.*, k) exists> THEN f(FIRST(A.x,
    k), FIRST(A.y, k)) END``: the same value, computed from the navigated row only (the
    guard keeps NULL where no row is found, whatever ``f`` of NULLs is)."""
    outer = _unparen(value.parent) if value.parent is not node else node
    low.label_of(value, base, call_name(outer)[1])  # one label, as for any navigation
    atoms: dict[str, exp.Expression] = {}
    computed = value.copy()
    for column in list(computed.find_all(exp.Column)):
        key = column.sql(dialect=MatchRecognizeDialect).lower()
        if key not in atoms:
            single = node.copy()
            _value_argument(single).replace(column.copy())
            atoms[key] = replace(single)
        column.replace(atoms[key].copy())
    probe = node.copy()
    _value_argument(probe).replace(next(value.find_all(exp.Column)).copy())
    found, _ = low.navigation_atom(probe, base, in_define=False)
    present = nav.navigate(
        nav.row_found,
        found.labels,
        found.from_end,
        found.offset,
        found.physical,
        found.final,
    )
    text = node.sql(dialect=MatchRecognizeDialect)
    guard = exp.column(low.add_atom(present, "CAST(NULL AS BOOLEAN)", text=f"row of {text}"))
    return exp.Paren(this=exp.Case(ifs=[exp.If(this=guard, true=computed)]))


# what may raise under ANSI on a row the match never reads, were Spark to compute it on
# every row: kept in the table function's Python glue where it can run
_RAISES_ON_SOME_ROWS = (exp.Cast, exp.Bracket)
_MEASURE_GLUE_EXTRA = (exp.Cast, exp.TryCast, exp.Bracket, exp.DataType)
#: CAST targets whose value depends on the session time zone or Spark's datetime formats
#: (a timestamp's date, a date's midnight, a timestamp as text): never cast in Python
_ZONED_TARGETS = {
    *_MOMENT_TYPES,
    exp.DataType.Type.TEXT,
    exp.DataType.Type.VARCHAR,
    exp.DataType.Type.CHAR,
}


#: the input types whose values a Python UDF gets in the glue as Spark hands them
_UDF_ARGUMENT_TYPES = re.compile(
    r"tinyint|smallint|int|bigint|float|double|decimal\(\d+,\d+\)|string|boolean|date"
)


def _glue_udf(low: Lowering, call: exp.Expression) -> bool:
    """Whether DEFINE's glue calls session UDF ``call`` itself, on the values the match
    reads: a Python UDF it calls as Spark would, of values it hands over as Spark does,
    or a SQL UDF whose body it inlines. Moved inside a navigation instead, Spark would
    call it on every row, and a UDF that fails on a row the match never reads as that
    variable would fail the job."""
    name = str(call.this).lower()
    if call_name(call)[0] or builtin_name(name):
        return False  # RUNNING/FINAL, or a built-in name, which Spark resolves first
    if name not in low.session_functions:
        low.session_functions[name] = _session_function(low, name)
    found = low.session_functions[name]
    if isinstance(found, PythonFunction):
        return udf_refusal(found) is None and all(_udf_argument(low, a) for a in call.expressions)
    return found is not None


def _check_udf_arity(low: Lowering, call: exp.Anonymous, pos: int) -> None:
    """Refuse a call of a session Python UDF with arguments its function does not take
    (``pyneg(p, 2)`` of ``lambda x: -x``): Spark fails the job with the worker's
    TypeError and PySpark's frames, naming no call of the query."""
    found = _python_function(low, str(call.this))
    if found is None:
        return
    named = [a.this.name for a in call.expressions if isinstance(a, exp.Kwarg)]
    positional = len(call.expressions) - len(named)
    why = arity_error(found, positional, named)
    if why is not None:
        count = len(call.expressions)
        raise SemanticError(
            f"the Python UDF {call.this}() is called with {count} argument"
            f"{'' if count == 1 else 's'}, which its function {why[0]} does not take "
            f"({why[1]})",
            sql=low.sql,
            pos=pos,
            hint="pass the arguments its function takes",
        )


def _python_function(low: Lowering, name: str) -> PythonFunction | None:
    """The session's Python UDF of ``name`` (None: none, or no session to ask), looked up
    once per clause: its function comes unpickled from Spark's registry."""
    if low.python_functions is None:
        return None
    key = name.lower()
    if key not in low.python_udfs:
        low.python_udfs[key] = low.python_functions(name)
    return low.python_udfs[key]


def _guarded_udf(low: Lowering, name: str) -> bool:
    """Whether ``name`` is a Python UDF of the session that the runtime can call on the
    rows of its choice: a row-at-a-time one whose function is at hand."""
    found = _python_function(low, name)
    return found is not None and found.eval_type in (BATCHED_UDF, ARROW_BATCHED_UDF)


def _session_function(low: Lowering, name: str) -> PythonFunction | SqlFunction | None:
    """The session's Python UDF or SQL UDF (read) of ``name``, or None."""
    found = _python_function(low, name)
    if found is not None:
        return found
    if low.sql_functions is None:
        return None
    try:
        found_sql = low.sql_functions(name)
    except UnknownFunction:
        return None
    return read_definition(*found_sql) if found_sql is not None else None


def _udf_argument(low: Lowering, arg: exp.Expression) -> bool:
    """Whether the glue hands a Python UDF the value ``arg`` as Spark would: a literal, or
    a column (navigated or not) of a type it passes."""
    if isinstance(arg, (exp.Literal, exp.Boolean, exp.Null)):
        return True
    while _special_kind(arg) in NAVIGATION and arg.expressions:
        arg = arg.expressions[0]
    if not isinstance(arg, exp.Column) or _is_star(arg):
        return False
    kind = low.column_types.get(arg.name.lower())
    return kind is not None and _UDF_ARGUMENT_TYPES.fullmatch(kind) is not None


def _glue_keeps(node: exp.Expression) -> bool:
    """Whether DEFINE's glue runs call ``node`` itself (a navigation, an aggregate, one of
    its functions), or Spark computes it as a column (pushed inside a navigation)."""
    if _special_kind(node) or _aggregate_name(node) or compiles(shallow(node)):
        return True
    return _is_pushed(node)


def _current_row_only(node: exp.Expression, local_labels: set[str | None]) -> bool:
    """A call of the current row's columns only (row-local: Spark computes it as it is)."""
    for n in node.walk():
        if _special_kind(n) or (n is not node and _aggregate_name(n)):
            return False
        if isinstance(n, exp.Column) and not _is_star(n) and _qualifier(n) not in local_labels:
            return False
    return True


def _is_pushed(node: exp.Expression) -> bool:
    """A call whose every column is inside a navigation of one row (pushdown's result,
    ``FIRST(f(S.x))``): Spark computes it."""
    parent = node.parent
    while parent is not None:
        if _special_kind(parent):
            return True
        parent = parent.parent
    return False


def _measure_glue(node: exp.Expression) -> bool:
    """Whether the table function's MEASURES glue (Python, ``planner.measure_eval``)
    keeps ``node``: what DEFINE's glue evaluates, and CASTs, subscripts and functions
    that fail on some values (``planner.raising_calls``) it can run (pushed inside a
    navigation, Spark would compute them on every row and could fail on a row the measure
    never reads: ``LAST(arr)[0]`` with an empty array elsewhere, ``make_date(2024, 2,
    FIRST(B.day))`` with a day -2 on another B row), with the calls around them it
    computes (``format_number(CAST(LAST(B.x) AS DECIMAL(10, 2)), 1)``) and constants."""
    if evaluates(node):
        return True
    if any(fails_on_values(n) for n in node.walk()) and compiles_with_casts(node):
        return True
    if not any(isinstance(n, _RAISES_ON_SOME_ROWS) or fails_on_values(n) for n in node.walk()):
        return False

    def runs(n: exp.Expression) -> bool:
        if isinstance(n, exp.Column) or _special_kind(n) or _aggregate_name(n):
            return True  # an atom
        if isinstance(n, exp.DataType):
            return True  # a CAST's target, with its parameters (DECIMAL(4, 1))
        if isinstance(n, exp.Cast) and n.to.this in _ZONED_TARGETS:
            return False  # the session time zone and Spark's formats: Spark casts it
        if not any(isinstance(c, exp.Column) for c in n.walk()):
            return True  # a constant: the glue's, or Spark's as a one-row subquery
        if not (isinstance(n, _MEASURE_GLUE_EXTRA) or compiles(shallow(n))):
            return False
        return all(runs(c) for c in n.iter_expressions())

    return runs(node)


def _conjuncts(node: exp.Expression):
    node = _unparen(node)
    if isinstance(node, exp.And):
        yield from _conjuncts(node.this)
        yield from _conjuncts(node.expression)
    else:
        yield node


def _is_physical_on_current(node: exp.Expression, local_labels: set) -> bool:
    """PREV/NEXT of a current-row expression: depends on the row index only."""
    kind = _special_kind(node)
    if kind not in PHYSICAL or not node.expressions:
        return False
    inner = _unparen(node.expressions[0])
    if any(_special_kind(n) is not None for n in _walk(inner)):
        return False  # PREV(lower(CLASSIFIER())): the label of that row is history
    return all(_qualifier(c) in local_labels for c in _columns(inner))


def _check_unqualified_call(low: Lowering, node: exp.Expression, base: int) -> None:
    """A row pattern function or aggregate written after a dot (``A.FIRST(x)``,
    ``A.count(x)``, ``A.FINAL LAST(x)``) is refused: the planner would take the call and
    leave ``A.`` in front of the column it computes, which no one can resolve. The label
    goes inside the call."""
    parent = node.parent
    if not (isinstance(parent, exp.Dot) and parent.expression is node):
        return
    name = _special_kind(node) or _aggregate_name(node)
    if name is None:
        return
    qualifier = parent.this.sql(dialect=MatchRecognizeDialect).replace("`", "")
    name = name.upper()
    written = _QUALIFIED_CALL_FIX.get(name, "{name}({q}.x)").format(name=name, q=qualifier)
    raise low.error(
        SqlSyntaxError,
        f"{name}(...) cannot follow '{qualifier}.': a row pattern function or aggregate is "
        "called by its name alone",
        parent,
        base,
        hint=f"write {written}",
    )


#: how to write a call that :func:`_check_unqualified_call` refuses, by name
_QUALIFIED_CALL_FIX = {"CLASSIFIER": "CLASSIFIER({q})", "MATCH_NUMBER": "MATCH_NUMBER()"}


#: the units of Spark's interval literals (``INTERVAL '30' MINUTES``), and of the ends of
#: a span (``INTERVAL '1 02' DAY TO HOUR``)
_INTERVAL_UNITS = frozenset(
    unit + plural
    for unit in (
        "NANOSECOND MICROSECOND MILLISECOND SECOND MINUTE HOUR DAY WEEK MONTH YEAR".split()
    )
    for plural in ("", "S")
)
_SPAN_UNITS = frozenset("SECOND MINUTE HOUR DAY MONTH YEAR".split())


def _check_interval_units(low: Lowering, node: exp.Interval, base: int) -> None:
    """An interval literal's unit is one of Spark's (``INTERVAL '30' MINUTS`` was Spark's
    syntax error at an ``AS`` matchrec writes, or the table function's raw error)."""
    unit = node.args.get("unit")
    span = isinstance(unit, exp.IntervalSpan)
    allowed = _SPAN_UNITS if span else _INTERVAL_UNITS
    for part in (unit.this, unit.expression) if span else (unit,):
        if not isinstance(part, exp.Var) or part.name.upper() in allowed:
            continue
        close = difflib.get_close_matches(part.name.upper(), sorted(allowed), n=1)
        pos = node_pos(node, base, low.sql)
        at = re.compile(rf"\b{re.escape(part.name)}\b", re.I).search(low.sql, pos)
        raise SemanticError(
            f"{part.name} is no unit of an interval" + (" span (DAY TO HOUR, ...)" if span else ""),
            sql=low.sql,
            pos=at.start() if at else pos,
            hint=(f"did you mean {close[0]}? " if close else "")
            + "Spark's units: "
            + ", ".join(sorted(u for u in allowed if not u.endswith("S"))),
        )


def _check_lambda_parameters(low: Lowering, node: exp.Expression, base: int) -> None:
    """The lambdas of a higher-order function take as many parameters as Spark's function
    gives them (``exists(tags, (x, y, z) -> ...)``): an error at the lambda wherever the
    call is (a row-local one reached the table function's caller as Spark's raw error)."""
    parts = higher_order_parts(node)
    if parts is None:
        return
    kind, _, lambdas = parts
    spec = HIGHER_ORDER[kind]
    for lam, counts in zip(lambdas, spec.params):
        if len(lam.expressions) not in counts:
            message = f"the lambda of {kind.lower()}() takes {spec.takes}"
            raise low.error(SemanticError, message, lam, base)


def _refuse_misspelled_pattern_function(low: Lowering, name: str, pos: int) -> None:
    """``prevv(B.price)`` where no session is at hand to say whether it has such a function
    (the table function, a rule): a name this close to a row pattern function's is that
    one misspelled, not a UDF, which Spark would otherwise report without a caret."""
    if low.sql_functions is not None or low.python_functions is not None:
        return  # the session is asked (Spark's UNRESOLVED_ROUTINE, with a close name)
    close = close_match(name, sorted(ROW_PATTERN_CALLS))
    if close is not None:
        raise SemanticError(
            f"[UNRESOLVED_ROUTINE] Spark has no function {name}()",
            sql=low.sql,
            pos=pos,
            hint=f"did you mean {close.lower()}()?",
        )


def _foreign_call(low: Lowering, pos: int) -> SemanticError | None:
    """A call sqlglot read as another dialect's function (``strpos``), unless the session
    has a function of that name (``planner.foreign_functions``)."""
    wrong = foreign_call_error(low.sql, pos)
    if wrong is None:
        return None
    name = re.match(r"\w+", low.sql[pos:]).group(0).lower()
    if low.python_functions is not None and low.python_functions(name) is not None:
        return None
    if low.sql_functions is not None:
        try:
            low.sql_functions(name)
            return None  # the session has a function of that name
        except UnknownFunction:
            pass
    return wrong


def _check_semantics(low: Lowering, tree: exp.Expression, base: int, in_define: bool) -> None:
    """Checks that hold for any position of a node: RUNNING/FINAL placement, nesting of
    navigation and aggregates, the arguments of CLASSIFIER and MATCH_NUMBER, constructs
    MATCH_RECOGNIZE does not take, and pattern variables inside subqueries."""
    clause = "DEFINE" if in_define else "MEASURES"
    for node in _walk(tree):
        _check_unqualified_call(low, node, base)
        if isinstance(node, exp.Interval):
            _check_interval_units(low, node, base)
        _check_lambda_parameters(low, node, base)
        if isinstance(node, exp.Func) and not isinstance(node, (exp.SubqueryPredicate, exp.Cast)):
            at = call_pos(node, base, low.sql)
            operator = isinstance(node, (exp.Binary, exp.Unary))
            if operator:  # json_extract_scalar(j, p) is one, as j ->> p and a AND b are
                at = call_start(low.sql, at, base)
            wrong = builtin_arity_error(low.sql, at)
            if wrong is None and not isinstance(node, exp.Anonymous):
                if not operator or written_as(node, low.sql, at):
                    wrong = _foreign_call(low, at)
            if wrong is not None:
                raise wrong
        if isinstance(node, exp.Anonymous) and not _special_kind(node):
            name, pos = _written_call(low, node, base)
            if not builtin_name(name):
                if in_define:  # (MEASURES: measure_eval names the function meant)
                    _refuse_misspelled_pattern_function(low, name, pos)
                low.calls.setdefault(name.lower(), pos)
                _check_udf_arity(low, node, pos)
        if isinstance(node, (exp.Subquery, exp.Exists)) or (
            isinstance(node, exp.In) and node.args.get("query") is not None
        ):
            _check_subquery(low, node, base)
            if in_define and isinstance(node, exp.In):
                _check_in_subquery_value(low, node, base)
        if isinstance(node, exp.Column) and (
            node.args.get("db") is not None or node.args.get("catalog") is not None
        ):
            raise low.error(
                UnsupportedError,
                f"{_excerpt(node)}: struct fields cannot be read in MATCH_RECOGNIZE expressions",
                node,
                base,
                hint="a reference is [pattern variable.]column; read the field in a subquery "
                "that feeds MATCH_RECOGNIZE",
            )
        if isinstance(node, exp.Window):
            if not in_define or _special_kind(node.this):
                raise low.error(
                    UnsupportedError,
                    "Cannot nest window functions or row pattern measures inside pattern "
                    f"recognition expressions ({clause})",
                    node,
                    base,
                    hint="compute the window in a subquery that feeds MATCH_RECOGNIZE, or "
                    "over its output",
                )
        generator = _called_name(node, _GENERATORS)
        if generator:
            raise low.error(
                UnsupportedError,
                f"{generator}() returns rows, not a value, and cannot be used in {clause}",
                node,
                base,
                hint=_GENERATOR_HINTS[clause],
            )
        time_window = _called_name(node, _TIME_WINDOWS)
        if time_window:
            raise low.error(
                UnsupportedError,
                f"{time_window}() groups rows into time windows (Spark drops the rows whose "
                f"time is NULL and repeats a row for each sliding window), so it has no "
                f"value of its own in {clause}",
                node,
                base,
                hint=_TIME_WINDOW_HINTS[clause],
            )
        volatile = _called_name(node, _VOLATILE)
        if volatile:
            pos = node_pos(node, base, low.sql)
            written = _NAMED_CALL.match(low.sql, pos)  # random(), which sqlglot calls rand()
            if written and written.group(1).upper() in _VOLATILE:
                volatile = written.group(1)
            raise UnsupportedError(
                f"{volatile}() is not deterministic (or has side effects) and cannot be used "
                f"in {clause}",
                sql=low.sql,
                pos=pos,
                hint=_VOLATILE_HINTS[clause],
            )
        if isinstance(node, exp.WithinGroup) and not _aggregate_name(node):
            name, pos = _written_call(low, node.this, base)
            raise UnsupportedError(
                f"{name}() does not take WITHIN GROUP (ORDER BY ...)",
                sql=low.sql,
                pos=pos,
                hint="WITHIN GROUP orders the rows of listagg/string_agg, percentile_cont, "
                "percentile_disc and mode()",
            )
        if isinstance(node.parent, exp.WithinGroup) and node is node.parent.this:
            continue  # the call of a WITHIN GROUP aggregate: checked as one with it
        if isinstance(node, (exp.PercentileCont, exp.PercentileDisc)):
            name, pos = _written_call(low, node, base)
            raise SemanticError(
                f"{name}() needs WITHIN GROUP (ORDER BY ...): the values it reads",
                sql=low.sql,
                pos=pos,
                hint=f"write {name}(0.5) WITHIN GROUP (ORDER BY x)",
            )
        unknown_call = (
            isinstance(node, exp.Anonymous)
            and call_name(node)[1] in SPARK_AGGREGATE_CALLS
            and not _aggregate_name(node)
        )
        window_head = isinstance(node.parent, exp.Window) and node is node.parent.this
        if (
            (isinstance(node, exp.AggFunc) or unknown_call)
            and not _aggregate_name(node)
            and not window_head
        ):
            name, pos = _written_call(low, node, base)
            raise UnsupportedError(
                f"aggregate {name}() is not supported in {clause}",
                sql=low.sql,
                pos=pos,
                hint="aggregates over the match: count, sum, avg, min, max, array_agg, "
                "collect_list, collect_set, min_by/max_by, bool_and/bool_or, count_if, "
                "listagg/string_agg, stddev/variance (_pop/_samp), any_value, first_value, "
                "last_value, median, percentile, percentile_approx, mode, "
                "approx_count_distinct, bit_and/bit_or/bit_xor, try_sum/try_avg, skewness, "
                "kurtosis, covar_pop/covar_samp, corr, regr_*; or aggregate "
                "the ALL ROWS PER MATCH output by MATCH_NUMBER() in Spark",
            )
        if isinstance(node, exp.Filter):
            raise low.error(
                UnsupportedError,
                f"aggregate FILTER (WHERE ...) is not supported in {clause}",
                node,
                base,
                hint="use count_if(cond) or sum(CASE WHEN cond THEN x END)",
            )
        semantics, name = call_name(node) if isinstance(node, exp.Anonymous) else (None, "")
        if semantics and name in SPECIAL:
            raise low.error(
                SemanticError,
                f"{semantics} semantics is not supported with {name.lower()} pattern "
                "recognition function",
                node,
                base,
                hint=f"remove {semantics}",
            )
        if semantics and not (name in NAVIGATION or name in nav.AGGREGATES):
            raise low.error(
                SemanticError,
                f"{semantics} semantics is supported only for FIRST(), LAST() and aggregation "
                f"functions. Actual: {name.lower()}",
                node,
                base,
                hint=f"remove {semantics}, or move it inside: {name}({semantics} LAST(...))"
                if name in PHYSICAL
                else f"remove {semantics}",
            )
        if semantics == "FINAL" and in_define:
            raise low.error(
                SemanticError,
                "FINAL semantics is not supported in DEFINE clause",
                node,
                base,
                hint="use RUNNING (the default): DEFINE sees the match only up to the current row",
            )
        kind = _special_kind(node)
        if kind == "MATCH_NUMBER" and node.expressions:
            raise low.error(
                SemanticError,
                "MATCH_NUMBER pattern recognition function takes no arguments",
                node.expressions[0],
                base,
                hint="write MATCH_NUMBER()",
            )
        if kind == "CLASSIFIER":
            _check_classifier(low, node, base)
        if kind in NAVIGATION and node.expressions and not _navigates_a_row(node.expressions[0]):
            raise low.error(
                SemanticError,
                f"Pattern navigation function {kind.lower()} must contain at least one column "
                "reference or CLASSIFIER()",
                node.expressions[0],
                base,
                hint=_constant_navigated_hint(kind, node.expressions[0], low.sql, base),
            )
        agg = _aggregate_name(node)
        if kind in NAVIGATION or agg:
            what = kind or agg
            for sub in _walk(node):
                if sub is node or (isinstance(node, exp.WithinGroup) and sub is node.this):
                    continue
                inner_agg = _aggregate_name(sub)
                if inner_agg:
                    raise low.error(
                        SemanticError,
                        f"Cannot nest {inner_agg.lower()} aggregate function inside "
                        f"{what.lower()} function",
                        sub,
                        base,
                        hint=nesting_hint(inner_agg, what),
                    )
                inner = _special_kind(sub)
                if inner in NAVIGATION and (kind not in PHYSICAL or inner in PHYSICAL or agg):
                    hint = nesting_hint(inner, what)
                    if inner in PHYSICAL and kind in ("FIRST", "LAST"):
                        hint = f"nest the other way round: {inner}({kind}(x))"
                    raise low.error(
                        SemanticError,
                        f"Cannot nest {inner.lower()} pattern navigation function inside "
                        f"{what.lower()}{' pattern navigation' if kind else ''} function",
                        sub,
                        base,
                        hint=hint,
                    )


def _navigates_a_row(arg: exp.Expression) -> bool:
    """Whether a navigation's argument reads a row: a column or CLASSIFIER() in it."""
    return any(
        (isinstance(n, exp.Column) and not isinstance(n.this, exp.Star))
        or _special_kind(n) == "CLASSIFIER"
        for n in arg.walk()
    )


_VOLATILE = {
    "RAND",
    "RANDN",
    "RANDOM",
    "UUID",
    "SHUFFLE",
    "REFLECT",
    "JAVA_METHOD",
    "TRY_REFLECT",
    "RANDSTR",
    "UNIFORM",
    "MONOTONICALLY_INCREASING_ID",
    "SPARK_PARTITION_ID",
    "INPUT_FILE_NAME",
    "INPUT_FILE_BLOCK_START",
    "INPUT_FILE_BLOCK_LENGTH",
}


_CALL_HEAD = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(\s*(?:DISTINCT\s+)?$", re.IGNORECASE)
_NAMED_CALL = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(")
#: ``RUNNING f(...)`` as written (prepared as ``RUNNING·f``: MARKED_CALL)
_SEMANTICS_CALL = re.compile(r"(?:RUNNING|FINAL)\s+([A-Za-z_]\w*)\s*\(", re.IGNORECASE)


def _spark_hash(node: exp.Expression, t: exp.DataType | None) -> exp.Expression:
    """``xxhash64(x)`` (seed 42, the hash Spark's HLL++ takes of a value), NULL for NULL;
    ``t``: the value's type, where known, whose maps are hashed as HLL++ hashes them."""
    return exp.If(
        this=exp.Is(this=node.copy(), expression=exp.Null()),
        true=exp.Null(),
        false=exp.Anonymous(this="xxhash64", expressions=[_map_free(node.copy(), t)]),
    )


def _holds_map(t: exp.DataType) -> bool:
    return any(isinstance(n, exp.DataType) and n.this == exp.DataType.Type.MAP for n in t.walk())


def _map_free(node: exp.Expression, t: exp.DataType | None) -> exp.Expression:
    """``node`` with each map inside it (by its type ``t``) as the array of its entries,
    which ``xxhash64`` takes where it refuses a map (HASH_MAP_TYPE) and hashes alike: HLL++
    hashes a map's keys and values in turn, as xxhash64 hashes the key and value fields
    of each entry in turn. A NULL struct and a struct of NULLs hash alike (to the seed),
    so a struct is rebuilt field by field without a NULL check."""
    if t is None or not _holds_map(t):
        return node
    placeholder = "__mr_hashed"
    text = _map_free_text(placeholder, t, 0)
    tree = sqlglot.parse_one(text, read=MatchRecognizeDialect)
    for column in list(tree.find_all(exp.Column)):
        if column.name == placeholder:
            if column is tree:
                return node
            column.replace(node)
    return tree


def _map_free_text(value: str, t: exp.DataType, depth: int) -> str:
    """Spark SQL of :func:`_map_free` over ``value`` (text) of type ``t``; ``depth``
    names the lambda parameters apart."""
    if not _holds_map(t):
        return value
    kind, param = t.this, f"mr_hashed_{depth}"
    if kind == exp.DataType.Type.MAP and len(t.expressions) == 2:
        key_type, value_type = t.expressions
        if not (_holds_map(key_type) or _holds_map(value_type)):
            return f"map_entries({value})"
        key = _map_free_text(f"{param}.key", key_type, depth + 1)
        item = _map_free_text(f"{param}.value", value_type, depth + 1)
        entry = f"named_struct('key', {key}, 'value', {item})"
        return f"transform(map_entries({value}), {param} -> {entry})"
    if kind == exp.DataType.Type.ARRAY and len(t.expressions) == 1:
        element = _map_free_text(param, t.expressions[0], depth + 1)
        return f"transform({value}, {param} -> {element})"
    if kind == exp.DataType.Type.STRUCT:
        fields = []
        for field in t.expressions:
            name = field.this.name if isinstance(field.this, exp.Identifier) else str(field.this)
            quoted = "`" + name.replace("`", "``") + "`"
            literal = "'" + name.replace("\\", "\\\\").replace("'", "\\'") + "'"
            inner = _map_free_text(f"({value}).{quoted}", field.args["kind"], depth)
            fields.append(f"{literal}, {inner}")
        return f"named_struct({', '.join(fields)})"
    return value


def _renamed_as(written: str, node: exp.Expression) -> bool:
    """Whether a call of the function named ``written`` reads as ``node``'s kind."""
    try:
        call = sqlglot.parse_one(f"{written}(x)", read=MatchRecognizeDialect)
    except sqlglot.errors.SqlglotError:
        return False
    return type(call) is type(node)


def _written_call(low: Lowering, node: exp.Expression, base: int) -> tuple[str, int]:
    """The function name of call ``node`` as the user wrote it (sqlglot renames some,
    ``percentile_approx`` is its ``approx_quantile``) and where it starts."""
    pos = node_pos(node, base, low.sql)
    name = node.name if isinstance(node, exp.Anonymous) else node.sql_name()
    semantics = MARKED_CALL.match(name)  # RUNNING f(...), prepared as RUNNING·f(...)
    written = _SEMANTICS_CALL.match(low.sql, pos) if semantics else None
    if semantics and written:
        name, pos = semantics.group(2), written.start(1)
    here = _NAMED_CALL.match(low.sql, pos)
    if here and here.group(1).lower() == name.lower():  # the call itself starts at pos
        return here.group(1), pos
    if here and not isinstance(node, exp.Anonymous) and _renamed_as(here.group(1), node):
        return here.group(1), pos  # collect_list(...), which sqlglot reads as array_agg
    found = _CALL_HEAD.search(low.sql, 0, pos)
    if found:
        return found.group(1), found.start(1)
    return name.lower(), pos


#: Spark's generators: each makes rows of its argument, where a measure is one value
_GENERATORS = {
    "EXPLODE",
    "EXPLODE_OUTER",
    "POSEXPLODE",
    "POSEXPLODE_OUTER",
    "INLINE",
    "INLINE_OUTER",
    "STACK",
    "JSON_TUPLE",
    "VARIANT_EXPLODE",
    "VARIANT_EXPLODE_OUTER",
}
_GENERATOR_HINTS = {
    "DEFINE": "a condition is one value of a row; test the array instead, e.g. "
    "exists(tags, t -> t = 'x') or array_contains(tags, 'x')",
    "MEASURES": "a measure is one value of a match (or of a row, ALL ROWS PER MATCH); keep "
    "the array as the measure and explode it in the query around MATCH_RECOGNIZE, e.g. "
    "SELECT m.*, t FROM (...) AS m LATERAL VIEW explode(m.tags) x AS t",
}
#: Spark's time windows: each rewrites the query it is in (a filter, an expansion)
_TIME_WINDOWS = {"WINDOW", "SESSION_WINDOW", "WINDOW_TIME"}
_TIME_WINDOW_HINTS = {
    "DEFINE": "a row's bucket is a value: date_trunc('HOUR', ts), or for 6 hours "
    "timestamp_seconds(floor(unix_seconds(ts) / 21600) * 21600)",
    "MEASURES": "keep the time as the measure and take its window in the query around "
    "MATCH_RECOGNIZE, e.g. SELECT m.*, window(m.last_ts, '6 hours').start AS w FROM (...) "
    "AS m, or bucket it with date_trunc('HOUR', LAST(ts))",
}
_VOLATILE_HINTS = {
    "DEFINE": "the matcher may evaluate a condition several times or not at all for a row; "
    "compute the value in a subquery that feeds MATCH_RECOGNIZE",
    "MEASURES": "a measure may be computed again for the same match (a retried task, a "
    "stream's restart); compute the value in the query around MATCH_RECOGNIZE, e.g. "
    "SELECT m.*, rand() AS r FROM t MATCH_RECOGNIZE (...) AS m",
}


def _called_name(node: exp.Expression, names: set[str]) -> str | None:
    """The name of ``node`` if it calls one of ``names`` (upper case), else None."""
    if isinstance(node, exp.Anonymous):
        name = call_name(node)[1].strip('"`')  # `window`(...) is Spark's window too
    elif isinstance(node, exp.Func):
        name = node.sql_name().upper()
    else:
        return None
    return name.lower() if name in names else None


def _check_classifier(low: Lowering, node: exp.Expression, base: int) -> None:
    args = list(node.expressions)
    if len(args) > 1:
        raise low.error(
            SemanticError,
            "CLASSIFIER pattern recognition function takes no arguments or 1 argument "
            f"(got {len(args)})",
            args[1],
            base,
            hint="write CLASSIFIER() or CLASSIFIER(A)",
        )
    if args and isinstance(args[0], exp.Distinct):
        raise low.error(
            SemanticError,
            "Cannot use DISTINCT with classifier pattern recognition function",
            node,
            base,
            hint="write CLASSIFIER() or CLASSIFIER(A)",
        )
    if args:
        found = _classifier_label(node)
        if found is None:
            raise low.error(
                SemanticError,
                "CLASSIFIER function argument should be primary pattern variable or subset "
                f"name. Actual: {_excerpt(args[0])}",
                args[0],
                base,
                hint="write CLASSIFIER() or CLASSIFIER(A)",
            )
        low.label_set(found[0], found[1], base)


def _check_in_subquery_value(low: Lowering, node: exp.In, base: int) -> None:
    """In DEFINE, ``x IN (SELECT ...)`` takes a value of the current row only (as Trino):
    a pattern variable's column, a navigation, CLASSIFIER() or MATCH_NUMBER() there is
    refused before Spark is asked (it would compare per label, or fail late)."""
    for sub in _walk(node.this):
        kind = _special_kind(sub)
        if kind in NAVIGATION:
            what = f"{kind.lower()} function"
        elif kind == "CLASSIFIER":
            what = "classifier function"
        elif kind == "MATCH_NUMBER":
            what = "match_number function"
        elif isinstance(sub, exp.Column) and _qualifier(sub) is not None:
            what = "labeled column reference"
        else:
            continue
        raise low.error(
            UnsupportedError,
            f"IN-PREDICATE with {what} is not yet supported",
            sub,
            base,
            hint="compare the current row's value, e.g. x IN (SELECT ...), or list the "
            "values: A.x IN (1, 2, 3)",
        )


def _check_subquery(low: Lowering, node: exp.Expression, base: int) -> None:
    """A subquery cannot see pattern variables (it is evaluated for the current row)."""
    query = node.args.get("query") if isinstance(node, exp.In) else node
    if query is None:
        return
    visible = {t.alias_or_name.lower() for t in query.find_all(exp.Table)}
    visible |= {t.name.lower() for t in query.find_all(exp.Table)}
    visible |= {a.name.lower() for a in query.find_all(exp.TableAlias) if a.name}
    for col in query.find_all(exp.Column):
        q = _qualifier(col)
        if q is None or q.lower() in visible:
            continue
        if low.input_name is not None and q.lower() == low.input_name.lower():
            raise low.error(
                UnsupportedError,
                f"Reference to column '{q}.{col.name}' from outer scope not allowed in this "
                "context",
                col,
                base,
                hint="a subquery of MEASURES or DEFINE is uncorrelated; compare outside it, "
                "e.g. x > (SELECT max(y) FROM other)",
            )
        if q in low.label_ids or q in low.subsets:
            raise low.error(
                SemanticError,
                f"a subquery cannot refer to pattern variable {q}",
                col.args["table"],
                base,
                hint="pattern variables are not visible inside subqueries; compare outside, "
                "e.g. A.x > (SELECT max(x) FROM t)",
            )
