"""Compile the rules of MATCH_RECOGNIZE_DYNAMIC: rows of a rule table -> runnable rules.

A rule is data: a row ``(rule_id, version, spec[, active_from][, enabled])`` whose
``spec`` is a MATCH_RECOGNIZE body. Rules arrive while a stream runs, after Spark's plan
is fixed, so a rule cannot add Spark expressions to the query: everything a rule computes
(its row-local DEFINE conditions and its MEASURES) runs on matchrec's own evaluator
(``planner.pyeval`` and ``planner.measure_eval``, each checked against Spark by a
differential test). That is also what keeps rules data: a rule can call only the
evaluator's functions, reads only the event columns, and cannot reach tables, files or
the JVM (``reflect``, ``java_method``, subqueries and UDFs are named in the error).

:func:`compile_rule` turns one row into a :class:`~matchrec.rule_set.RuleProgram` (the
core runs it without knowing SQL); :func:`schedule` says which event times each version
covers. Nothing here imports Spark.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

import pyarrow as pa
from matchrec.grammar import parse_clause
from sqlglot import exp

from matchrec import ast
from matchrec import vector_define as vd
from matchrec.errors import (
    MatchRecognizeError,
    SemanticError,
    ShadowedVersionWarning,
    UnsupportedError,
)
from matchrec.integer_width import WIDTHS, IntegerWidth
from matchrec.rule_set import RuleProgram, key_set

from .arrow_types import arrow_type
from .bit_functions import SHIFTS, shift_args, shift_name
from .decompose import BASE64_PROBE, decompose, struct_fields
from .expressions import BINARY_OPERATORS, INTEGER_OPERATORS, TRY
from .format_functions import UNKNOWN_PROBE
from .function_types import day_time_span
from .glue_functions import extended_name, struct_field
from .higher_order import HIGHER_ORDER, bound_name, compiled_lambdas, higher_order_parts
from .literal_arguments import check_literal_arguments
from .measure_eval import (
    TypeEnv,
    at_scale,
    cast_evaluator,
    check_operand_types,
    compile_measures,
    decimal_quantum,
    infer_type,
    interval_text,
    string_coerced,
    type_env,
    type_integer_widths,
    typed_call,
    written_name,
)
from .nesting_depth import room_to_nest
from .plan import plan_clause, refuse_end_anchor, refuse_late_rows, refuse_untimed_within
from .pyeval import _built_struct as built_struct
from .pyeval import compile_glue, compiles, date_cast, evaluates, glue_function_call, shallow
from .sqltext import MatchRecognizeDialect, node_pos, parse_expression
from .typed_calls import typed_name
from .vector_lowering import vector_glue

#: the hidden measure every rule gets, for the output's match_number column
MATCH_NUMBER_ALIAS = "__mr_match_number"

#: functions a rule may never call, and why (the evaluator has none of them either; the
#: message says why a rule cannot have them rather than "not supported")
FORBIDDEN: dict[str, str] = {
    **dict.fromkeys(
        ("REFLECT", "JAVA_METHOD", "TRY_REFLECT"), "it calls Java code: rules are data, not code"
    ),
    **dict.fromkeys(
        (
            "INPUT_FILE_NAME",
            "INPUT_FILE_BLOCK_START",
            "INPUT_FILE_BLOCK_LENGTH",
            "READ_FILES",
            "CURRENT_USER",
            "SESSION_USER",
            "USER",
            "CURRENT_CATALOG",
            "CURRENT_DATABASE",
            "CURRENT_SCHEMA",
        ),
        "it reads something other than the event columns",
    ),
    **dict.fromkeys(
        ("RAISE_ERROR", "ASSERT_TRUE"), "it fails the whole query: one rule must not stop others"
    ),
    **dict.fromkeys(
        (
            "RAND",
            "RANDN",
            "RANDOM",
            "UUID",
            "SHUFFLE",
            "SPARK_PARTITION_ID",
            "MONOTONICALLY_INCREASING_ID",
            "CURRENT_TIMESTAMP",
            "NOW",
            "CURRENT_DATE",
        ),
        "it is not deterministic: a replayed micro-batch must give the same answer",
    ),
}


#: what a rule's evaluator has, for the hint of what it has not
_TYPE_HINT = "wrap it in CAST(... AS type)"
_EVALUATOR_HINT = (
    "rules run on matchrec's evaluator: comparisons, arithmetic, AND/OR/NOT, CASE, IN, "
    "BETWEEN, LIKE/RLIKE, COALESCE, CAST and the functions DEFINE computes over several rows "
    "(README 'MATCH_RECOGNIZE_DYNAMIC'); compute anything else as an event column before "
    "the query"
)
#: the table function's words in the measures' errors -> a rule's (both run measures in
#: Python; a rule's values are its own rows, not "several rows" that Spark could not see)
_RULE_WORDS = {
    "the table function cannot evaluate": "a rule cannot evaluate",
    " over values from several rows of the match in MEASURES": " in MEASURES",
    " for the table function": "",
}


@dataclass(frozen=True)
class RuleRow:
    """One row of the rule table."""

    rule_id: str
    version: int
    spec: str
    active_from: int | None = None  # microseconds since the epoch; None: always
    enabled: bool = True


@dataclass(frozen=True)
class Window:
    """The event times one rule version covers: ``start <= t < end`` (None: unbounded)."""

    start: int | None
    end: int | None

    def empty(self) -> bool:
        return self.start is not None and self.end is not None and self.end <= self.start


def unnamed(rule_id: str | None, version: int | None) -> str | None:
    """Why a rule table row without a rule_id or version cannot run, else None."""
    if rule_id is not None and not str(rule_id).strip():
        return f"a rule table row has a blank rule_id ({rule_id!r}): it names no rule"
    if rule_id is not None and version is not None:
        return None
    missing = "rule_id" if rule_id is None else "version"
    return f"a rule table row has no {missing} (NULL): it names no rule"


def table_problems(rows: Sequence[RuleRow]) -> tuple[list[RuleRow], list[tuple[RuleRow, str]]]:
    """The rows of a rule table that can run, and each row that cannot with why: one
    without a rule_id or version names no rule; a (rule_id, version) given twice with
    different contents is no one version (the copies are left out, as a version that
    does not compile is, so the version before runs on); identical copies are one."""
    runnable: list[RuleRow] = []
    problems: list[tuple[RuleRow, str]] = []
    copies: dict[tuple[str, int], list[RuleRow]] = {}
    for row in rows:
        why = unnamed(row.rule_id, row.version)
        if why is not None:
            problems.append((row, why))
        else:
            copies.setdefault((row.rule_id, row.version), []).append(row)
    for (rule_id, version), same in copies.items():
        if len(set(same)) == 1:
            runnable.append(same[0])
        else:
            problems.append(
                (
                    same[0],
                    f"rule {rule_id!r} version {version} is in the rule table {len(same)} "
                    "times with different contents: one version is one row",
                )
            )
    return runnable, problems


def schedule(
    rows: Sequence[RuleRow], broken: Callable[[RuleRow], bool]
) -> list[tuple[RuleRow, Window]]:
    """The enabled versions of each rule and the event times each covers (batch).

    A version applies from its ``active_from`` (NULL: from the beginning) until the
    earliest ``active_from`` of a later version of the same rule; a disabled version ends
    the one before it (that is how a rule is stopped). A version that ``broken`` (it does
    not compile) is left out as if absent, so a typo in a new version does not switch
    the rule off: the one before it keeps running (its error is reported)."""
    by_rule: dict[str, list[RuleRow]] = {}
    for row in rows:
        if not broken(row):
            by_rule.setdefault(row.rule_id, []).append(row)
    result: list[tuple[RuleRow, Window]] = []
    for versions in by_rule.values():
        versions.sort(key=lambda r: r.version)
        for i, row in enumerate(versions):
            later = [r.active_from for r in versions[i + 1 :]]
            end = None
            if later:
                end = min(map(_starts, later))
            window = Window(row.active_from, end)
            if row.enabled and not window.empty():
                result.append((row, window))
            elif row.enabled and row.active_from is not None:
                first = min(versions[i + 1 :], key=lambda r: _starts(r.active_from))
                warnings.warn(
                    f"rule {row.rule_id!r} version {row.version} never applies: version "
                    f"{first.version} starts at or before its active_from",
                    ShadowedVersionWarning,
                    stacklevel=2,
                )
    return result


def first_order_column(spec: str | None) -> str | None:
    """The column a rule's ORDER BY starts with (as written, unquoted), or None when the
    rule does not parse or its first key is not a plain column: on a stream whose
    watermark marks several columns, it tells which one the rules order by."""
    if not spec:
        return None
    try:
        clause = parse_clause(spec)
    except MatchRecognizeError:
        return None
    if not clause.order_by:
        return None
    text = clause.order_by[0].expr.text.strip()
    if text.startswith("`") and text.endswith("`") and text.count("`") == 2:
        return text[1:-1]
    return text if text.replace("_", "a").isalnum() else None


def _starts(active_from: int | None) -> int:
    return -(2**63) if active_from is None else active_from


def compile_rule(
    row: RuleRow,
    columns: Mapping[str, exp.DataType],
    key_sets: Sequence[tuple[str, ...]] | None = None,
    event_time: str | None = None,
    ansi: bool = True,
    zone: str | None = None,
) -> RuleProgram:
    """The runnable form of ``row`` over events with ``columns`` (name -> type), under
    the session's ``spark.sql.ansi.enabled`` (``ansi``) and time zone (``zone``, which
    datetime patterns read: ``date_format(ts, 'HH')``).

    Raises a :class:`~matchrec.errors.MatchRecognizeError` positioned in ``row.spec``
    when the rule does not parse, does not plan, is not data (see :data:`FORBIDDEN`),
    uses what the evaluator cannot compute, partitions by a column set outside
    ``key_sets``, or (on a stream, ``event_time`` given) does not order by the event time."""
    if row.spec is None or not row.spec.strip():
        raise SemanticError(
            f"rule {row.rule_id!r} version {row.version} has no spec "
            f"({'NULL' if row.spec is None else 'empty'})",
            hint="write the MATCH_RECOGNIZE body in spec, e.g. PARTITION BY card ORDER BY ts "
            "... PATTERN (...) DEFINE ...; to delete a rule, add a version with enabled "
            "false",
        )
    with room_to_nest(row.spec):
        return _compile_rule(row, columns, key_sets, event_time, ansi, zone)


def _compile_rule(
    row: RuleRow,
    columns: Mapping[str, exp.DataType],
    key_sets: Sequence[tuple[str, ...]] | None,
    event_time: str | None,
    ansi: bool,
    zone: str | None,
) -> RuleProgram:
    clause = parse_clause(row.spec)
    _check_is_data(clause)
    refuse_late_rows(clause, "a rule of MATCH_RECOGNIZE_DYNAMIC")
    number = ast.Measure(ast.SqlExpr("MATCH_NUMBER()", 0), MATCH_NUMBER_ALIAS)
    clause = dataclasses.replace(clause, measures=(*clause.measures, number))
    names = list(columns)
    # with the events' types, which plan_clause is not given: element_at(arr, 0)
    check_literal_arguments(clause, {n: t.sql("spark").lower() for n, t in columns.items()})
    plan = plan_clause(clause, names, windows=False, ansi=ansi, python_measures=True)
    keys = tuple(plan.partition_by)
    _check_key_types(plan, keys, columns)
    if key_sets is not None and key_set(keys) not in {key_set(k) for k in key_sets}:
        shown = ", ".join(f"({', '.join(k)})" for k in key_sets) or "none"
        partitions = f"partitions by ({', '.join(keys)})" if keys else "has no PARTITION BY"
        raise SemanticError(
            f"this rule {partitions}, which is not one of the query's KEYS: {shown}",
            sql=clause.sql,
            # without PARTITION BY: the clause's start, where it would be written
            pos=clause.partition_by[0].pos if clause.partition_by else 0,
            hint="add the column set to KEYS (...) of MATCH_RECOGNIZE_DYNAMIC and restart "
            "the query (a running stream cannot add a shuffle), or partition the rule by "
            "one of them"
            + ("" if keys else " (an empty set, KEYS (card), (), takes rules without one)"),
        )
    if event_time is not None:
        first = plan.order_by[0] if plan.order_by else None
        if first is None or first[0].lower() != event_time.lower() or first[1]:
            raise SemanticError(
                f"on a stream, a rule must ORDER BY the event-time column {event_time!r} "
                "(ascending) first",
                sql=clause.sql,
                pos=clause.order_by[0].expr.pos if clause.order_by else clause.pattern_pos,
                hint=f"write ORDER BY {event_time}[, other keys]",
            )
    if row.active_from is not None:
        _check_time_order(plan, columns)
    if plan.within_column is not None:
        refuse_untimed_within(plan, columns[plan.within_column].sql("spark"))
    if event_time is not None:
        refuse_end_anchor(clause)
    # the glue's integer widths and DEFINE's type checks, from types inferred here as
    # the table function infers them (a rule has no DataFrame to ask Spark with)
    type_integer_widths(plan, columns)
    check_operand_types(plan, columns)
    types = {name.lower(): t for name, t in columns.items()}
    env = type_env(plan, types)
    local = [
        (
            name,
            *_row_function(text, plan.origins.get(name, 0), clause.sql, names, ansi, zone, env),
            _local_type(text, env),
            text,
        )
        for name, text in plan.precomputed
    ]
    try:
        compiled = compile_measures(plan, types)
    except UnsupportedError as err:
        message = err.message
        for theirs, ours in _RULE_WORDS.items():
            message = message.replace(theirs, ours)
        typing = "cannot infer the Spark type" in message
        raise UnsupportedError(
            message,
            sql=clause.sql,
            pos=err.pos,
            hint=_TYPE_HINT if typing else _EVALUATOR_HINT,
        ) from None
    measures = [(m.alias, _as_variant_value(m.evaluate, m.type)) for m in compiled.measures]
    if compiled.subqueries:
        # the constants the table function has Spark compute as extra input columns
        # (INTERVAL '10' MINUTE): computed here once, after the atoms in each row
        nothing = [None] * len(names)
        constants = tuple(
            _row_function(text, _constant_pos(clause, text), clause.sql, names, ansi, zone)[0](
                nothing
            )
            for text in compiled.subqueries
        )
        measures = [(alias, _with_constants(f, constants)) for alias, f in measures]
    return RuleProgram(
        rule_id=row.rule_id,
        version=row.version,
        program=plan.program,
        keys=list(keys),
        order=list(plan.order_by),
        local=local,
        measures=measures[:-1],
        match_number=measures[-1][1],
        one_row=plan.one_row,
        with_unmatched=plan.with_unmatched,
        timeouts=clause.rows_per_match.timeouts,
        columns=names,
    )


def _as_variant_value(
    evaluate: Callable[[Sequence[Any]], Any], t: exp.DataType
) -> Callable[[Sequence[Any]], Any]:
    """``evaluate``, whose day-time interval values become Spark's text of them (``INTERVAL
    '0 00:11:03' DAY TO SECOND``, which ``CAST(... AS INTERVAL DAY TO SECOND)`` reads
    back): a VARIANT holds no interval."""
    span = day_time_span(t)
    if span is None:
        return evaluate

    def shown(vals: Sequence[Any]) -> Any:
        value = evaluate(vals)
        return None if value is None else interval_text(value, *span)

    return shown


def _constant_pos(clause: ast.MatchRecognizeClause, text: str) -> int:
    """Where constant ``text`` (as sqlglot writes it) stands in the rule's MEASURES, for
    an error about it: its first place there, else the first measure's."""
    first = clause.measures[0].expr.pos if clause.measures else 0
    found = clause.sql.upper().find(text.upper(), first)
    return found if found >= 0 else first


def _with_constants(
    evaluate: Callable[[Sequence[Any]], Any], constants: tuple[Any, ...]
) -> Callable[[Sequence[Any]], Any]:
    return lambda vals: evaluate((*vals, *constants))


#: the meta of an event column's type that holds a collated string at any depth: its
#: Spark type, as the runtime writes it (sqlglot has no collations)
COLLATED = "matchrec_collated"

#: types Spark cannot compare or sort, at any depth of a key
_UNSORTABLE = frozenset({exp.DataType.Type.MAP, exp.DataType.Type.VARIANT})


def _check_key_types(
    plan: Any,
    keys: Sequence[str],
    columns: Mapping[str, exp.DataType],
) -> None:
    """Refuse, at the key, a rule's PARTITION BY key holding a MAP or a VARIANT, which
    Spark cannot compare or sort (MATCH_RECOGNIZE's PARTITION BY refuses them too), and
    a PARTITION BY or ORDER BY column holding a collated string (:data:`COLLATED`): a
    rule groups and orders its rows by their bytes, where Spark would take ``'x'`` and
    ``'X'`` as one key under UTF8_LCASE."""
    clause = plan.clause
    types = {name.lower(): kind for name, kind in columns.items()}
    for where, column, pos in plan.written_keys:
        kind = types.get(column.lower())
        if kind is not None and kind.meta.get(COLLATED):
            raise SemanticError(
                f"a rule's {where} takes no key with a collation ({column} is "
                f"{kind.meta[COLLATED]})",
                sql=clause.sql,
                pos=pos,
                hint="compute a key Spark compares byte by byte as a column of the events "
                "(SELECT *, lower(card) AS card_key FROM ... for UTF8_LCASE, rtrim(x) for an "
                "RTRIM collation) and use it",
            )
    for i, key in enumerate(keys):
        kind = types.get(key.lower())
        if kind is not None and any(t.this in _UNSORTABLE for t in kind.find_all(exp.DataType)):
            written = clause.partition_by[min(i, len(clause.partition_by) - 1)]
            raise SemanticError(
                f"a rule's PARTITION BY takes no {kind.sql('spark').lower()} key",
                sql=clause.sql,
                pos=written.pos,
                hint="partition by its parts: compute them as columns of the events "
                "(SELECT *, m['a'] AS m_a FROM ...) and PARTITION BY m_a",
            )


def _check_time_order(plan: Any, columns: Mapping[str, exp.DataType]) -> None:
    clause = plan.clause
    time_types = {exp.DataType.Type.DATE, *exp.DataType.TEMPORAL_TYPES}
    first = plan.order_by[0][0] if plan.order_by else None
    if first is None or columns[first].this not in time_types or plan.order_by[0][1]:
        raise SemanticError(
            "a rule with active_from needs ORDER BY an event-time column (TIMESTAMP or DATE, "
            "ascending) first: active_from is compared with it",
            sql=clause.sql,
            pos=clause.order_by[0].expr.pos if clause.order_by else clause.pattern_pos,
            hint="ORDER BY the event time, or leave active_from NULL",
        )


def _check_is_data(clause: ast.MatchRecognizeClause) -> None:
    """Reject what may not be in a rule, naming it: subqueries and :data:`FORBIDDEN`."""
    exprs = [d.expr for d in clause.defines] + [m.expr for m in clause.measures]
    for expr in exprs:
        tree = parse_expression(expr, clause.sql)
        for node in tree.walk():
            if isinstance(node, (exp.Subquery, exp.Select, exp.Exists)):
                raise UnsupportedError(
                    "a rule may not contain a subquery: rules read only the event columns",
                    sql=clause.sql,
                    pos=node_pos(node, expr.pos, clause.sql),
                    hint="compute what the rule needs as an event column before the query",
                )
            name = _function_name(node)
            if name == "COUNT" and _distinct_of_several(node):
                raise UnsupportedError(
                    "count(DISTINCT ...) of several values is not available in a rule (its "
                    "values are taken together as a struct, which rules do not evaluate)",
                    sql=clause.sql,
                    pos=node_pos(node, expr.pos, clause.sql),
                    hint="count one value that joins them, e.g. "
                    "count(DISTINCT concat(a, '|', b)), or use MATCH_RECOGNIZE",
                )
            if name in FORBIDDEN:
                raise UnsupportedError(
                    f"{name.lower()}() is not allowed in a rule: {FORBIDDEN[name]}",
                    sql=clause.sql,
                    pos=node_pos(node, expr.pos, clause.sql),
                    hint="rules are data; compute such values as event columns before the query",
                )


def _distinct_of_several(count: exp.Expression) -> bool:
    """``count(DISTINCT a, b, ...)``: DISTINCT over more than one value."""
    args = [count.this] if isinstance(count, exp.Count) else list(count.expressions)
    return any(isinstance(a, exp.Distinct) and len(a.expressions) > 1 for a in args)


def _function_name(node: exp.Expression) -> str | None:
    if isinstance(node, exp.Anonymous):
        return str(node.this).upper()
    if isinstance(node, exp.Func):
        return node.sql_name().upper()
    return None


def _local_type(text: str, env: TypeEnv) -> pa.DataType | None:
    """The Arrow type of a row-local column's values, from Spark's type of its
    expression (None: unknown, Arrow guesses it from the values)."""
    return arrow_type(
        infer_type(string_coerced(parse_expression(ast.SqlExpr(text, 0), text), env), env)
    )


def _row_function(
    text: str,
    pos: int,
    sql: str,
    names: list[str],
    ansi: bool,
    zone: str | None = None,
    env: TypeEnv | None = None,
) -> tuple[Callable[[Sequence[Any]], Any], vd.VExpr | None]:
    """A row-local expression (Spark SQL over event columns, as the planner wrote it) as a
    function of one row's values (in ``names`` order), and as an array expression over
    all rows where it has one (``matchrec.vector_define``, the same arithmetic). Under
    ``ansi`` a zero divisor raises, positioned, as Spark's projection of the condition
    over every row would (the array form defers to the row function to raise). ``env``:
    the events' types, with which a STRING beside another type is cast as Spark casts it
    (``price < '2'``: ``measure_eval.string_coerced``)."""
    tree = _patterns_in_zone(parse_expression(ast.SqlExpr(text, 0), text), zone or "UTC")
    if env is not None:
        tree = string_coerced(tree, env)
    widths = _integer_widths(tree, env, text, sql, pos, ansi) if env is not None else {}
    index = {n.lower(): i for i, n in enumerate(names)}
    intervals = [n for n in tree.walk() if isinstance(n, exp.Interval)]
    constant = {id(n): interval_literal(n) for n in intervals}
    inside = {id(c) for n in intervals for c in n.walk() if constant[id(n)] is not None}
    # the precision and scale of a cast's DECIMAL(p, s) (``1.2BD`` too): no values
    inside |= {
        id(c)
        for n in tree.walk()
        if isinstance(n, exp.DataType) and _cast(n.parent)
        for c in n.walk()
        if c is not n
    }
    for node in tree.walk() if not evaluates(tree, exact=False) else ():
        # needs Spark's types of its values: inferred from the events' types where known
        typed = typed_name(node) is not None and env is None
        if isinstance(node, exp.Lambda) or higher_order_parts(node) is not None:
            continue  # exists(items, x -> x > 4): the glue's, each body compiled with slots
        if isinstance(node, (exp.Column, exp.Identifier)) or (
            compiles(shallow(node)) and not typed
        ):
            continue
        if isinstance(node, exp.Var) or extended_name(node) is not None:
            continue  # a unit word; a call the glue computes by its unit (timestampdiff)
        if shift_name(node) is not None and env is not None:
            continue  # shiftleft(x, 2), x >>> 1: Java's, in the width of its inferred type
        if (
            _cast(node)
            or date_cast(node)
            or (isinstance(node, exp.DataType) and _cast(node.parent))
        ):
            continue
        if isinstance(node, exp.Bracket) and len(node.expressions) == 1:
            continue  # a[i], m[k], element_at, try_element_at: the glue's subscript
        if id(node) in inside:  # a day-time interval literal (or its parts): a timedelta
            continue
        if isinstance(node, exp.RegexpLike):  # Java's regex, translated (planner.java_regex)
            continue
        if built_struct(node):  # named_struct('x', s): a struct of its fields' values
            continue
        if isinstance(node, exp.Dot) and isinstance(node.expression, exp.Identifier):
            continue  # a field of a struct value: named_struct(...).x, coalesce(s, t).f
        raise UnsupportedError(
            f"{_shown(node)} cannot be evaluated in a rule",
            sql=sql,
            pos=pos,
            hint=_EVALUATOR_HINT,
        )

    bound: dict[str, list[Any]] = {}  # a lambda's parameters in scope: their slots

    def higher_order(
        node: exp.Expression, kind: str, args: list[exp.Expression], lambdas: list[exp.Lambda]
    ) -> Callable[[Any], Any]:
        spec = HIGHER_ORDER[kind]
        values = [child(a) for a in args]
        bodies, slots = compiled_lambdas(lambdas, bound, child)
        return spec.evaluator(kind, values, bodies, slots, sql, pos)

    def child(node: exp.Expression) -> Callable[[Any], Any]:
        name = bound_name(node) if bound else None
        if name in bound:
            slot = bound[name]
            return lambda values: slot[0]
        parts = higher_order_parts(node)
        if parts is not None:
            return higher_order(node, *parts)
        if constant.get(id(node)) is not None:
            value = constant[id(node)]
            return lambda values: value
        parts = [p.name for p in node.parts] if isinstance(node, exp.Column) else []
        if len(parts) > 1 and parts[0].lower() in index:
            # a struct column's field (s.a, s.z.a): the planner writes event columns
            # unqualified
            at, path = index[parts[0].lower()], parts[1:]

            def field(values: Sequence[Any]) -> Any:
                value = values[at]
                for name in path:
                    value = struct_field(value, name)
                return value

            return field
        if isinstance(node, exp.Column):
            i = index.get(node.name.lower())
            if i is None:
                raise SemanticError(f"unknown column {node.name!r}", sql=sql, pos=pos)
            return lambda values: values[i]
        if date_cast(node):  # to_date(x), how sqlglot reads year(x)'s argument
            node = exp.Cast(this=node.this, to=exp.DataType.build("DATE"))
        if _cast(node):  # TIMESTAMP '...' too: the measures' cast, in the session zone
            return cast_evaluator(node, child, ansi, sql, pos)  # type: ignore[arg-type,return-value]
        if (
            isinstance(node, exp.Dot)
            and isinstance(node.expression, exp.Identifier)
            and struct_fields(node) is None
        ):  # a field of a computed struct (of a built one: the glue reads its expression)
            base, name = child(node.this), node.expression.name
            return lambda values: struct_field(base(values), name)
        shift = shift_name(node) if env is not None else None
        if shift is not None:
            return _shift(node, shift, env, child, sql, pos, ansi)
        if env is not None and typed_name(node) is not None:  # to_json, hash, format_string

            def refuse(message: str) -> UnsupportedError:
                return UnsupportedError(message + " in a rule", sql=sql, pos=pos, hint=_TYPE_HINT)

            return typed_call(node, env, child, lambda n: pos, sql, ansi, refuse)
        compiled = compile_glue(node, child, lambda n: pos, sql, ansi=ansi)
        width = widths.get(id(node))
        quantum = decimal_quantum(node, env) if env is not None else None
        if quantum is not None:  # at Spark's scale of the DECIMAL it computes
            return lambda values: at_scale(compiled(values), quantum)
        return compiled if width is None else (lambda values: width.fit(compiled(values)))

    decimals = env is not None and any(decimal_quantum(n, env) for n in tree.walk())
    lambdas = any(isinstance(n, exp.Lambda) for n in tree.walk())
    if widths or decimals or lambdas:  # the array form computes in 64 bits without Spark's
        # overflow, DECIMALs without Spark's scales, and has no lambda parameters
        return child(tree), None
    real = {n.lower(): n for n in names}
    vector = vector_glue(
        tree,
        lambda n: real.get(n.name.lower()) if isinstance(n, exp.Column) and not n.table else None,
        ansi,
    )
    return child(tree), vector


#: the bits of a shift's result by Spark's type of it (a narrower operand is an INT)
_SHIFT_BITS = {"tinyint": 32, "smallint": 32, "int": 32, "bigint": 64}


def _shift(
    node: exp.Expression,
    name: str,
    env: TypeEnv,
    child: Callable[[exp.Expression], Callable[[Any], Any]],
    sql: str,
    pos: int,
    ansi: bool,
) -> Callable[[Any], Any]:
    """``shiftleft(x, n)``, ``x >> n``, ``x >>> n`` of one row: Java's shift in the width of
    Spark's type of the result (INT or BIGINT), inferred from the events' types."""
    t = infer_type(node, env)
    bits = _SHIFT_BITS.get(t.sql("spark").lower() if t is not None else "")
    if bits is None:
        raise UnsupportedError(
            f"{_shown(node)} cannot be evaluated in a rule: the type of its value is not known",
            sql=sql,
            pos=pos,
            hint="CAST the shifted value to INT or BIGINT",
        )
    fn = SHIFTS[name]

    def shift(a: Any, n: Any) -> Any:
        return None if a is None or n is None else fn(a, n, bits)

    return glue_function_call(
        node, shift, shift_args(node), child, lambda n: pos, sql, (name, ansi)
    )


def _integer_widths(
    tree: exp.Expression, env: TypeEnv, text: str, sql: str, pos: int, ansi: bool
) -> dict[int, IntegerWidth]:
    """The width of each integer operator of ``tree`` (by node id) from its type in
    ``env``: its result wraps around as Spark's does without ANSI mode, or raises
    ARITHMETIC_OVERFLOW with it (try_add & co: NULL)."""
    widths = {}
    for node in tree.walk():
        if type(node) not in INTEGER_OPERATORS:
            continue
        t = infer_type(node, env)
        type_name = t.sql("spark").lower() if t is not None else None
        if type_name not in WIDTHS:
            continue  # not an integer type: nothing to wrap
        written = node.sql(dialect=MatchRecognizeDialect)
        width = IntegerWidth(
            text,
            written,
            sql,
            pos,
            ansi,
            null_on_overflow=type(node) in TRY,
            binary_operator=type(node) in BINARY_OPERATORS,
        )
        width.set_type(type_name)
        widths[id(node)] = width
    return widths


def _cast(node: exp.Expression | None) -> bool:
    """Whether ``node`` is a CAST (``::``, TRY_CAST, a ``DATE '...'`` or ``TIMESTAMP
    '...'`` literal) to a type the measures' cast converts to."""
    if not isinstance(node, (exp.Cast, exp.TryCast)):
        return False
    return cast_evaluator(node, lambda _: lambda v: v, True, "", 0) is not None


def _patterns_in_zone(tree: exp.Expression, zone: str) -> exp.Expression:
    """``tree`` with each call the glue computes through ``planner.decompose`` (a datetime
    call of a literal pattern: ``date_format``, ``unix_timestamp``, ``from_unixtime``,
    ``to_timestamp``, ``to_date``, ``try_to_date``, ``to_timestamp_ltz``...; ``date_add``/
    ``date_sub``, ``add_months``, ``months_between``; ``+``/``-`` of a YEAR-MONTH interval
    literal; ``decode(x, s1, r1, ...)``; ``to_char``; ``base64``) split as the glue's, with its
    one-row parts computed here, also where the planner split a call of an aggregate: the
    session zone is the literal ``zone`` (a rule has no Spark to ask
    ``current_timezone()``), and the base64 probe is unknown (base64 of more than 57
    bytes is refused when computed)."""
    for node in reversed(list(tree.walk())):  # inner calls first: an outer one copies them
        if not isinstance(node, _DECOMPOSED) or _is_probe(node):
            continue  # (the probe of an earlier split: answered below)
        split = decompose(node)
        if split is None:
            continue
        if node is tree:
            tree = split
            break
        node.replace(split)
    # the planner's own splits (of a call of an aggregate) arrive as one-row parts too
    for call in list(tree.walk()):
        if isinstance(call, exp.CurrentTimezone) or (
            isinstance(call, exp.Anonymous) and str(call.this).lower() == "current_timezone"
        ):
            known = exp.Literal.string(zone)
        elif _is_probe(call):
            known = exp.Literal.string(UNKNOWN_PROBE)
        else:
            continue
        if call is tree:
            return known
        call.replace(known)
    return tree


_PROBE = BASE64_PROBE.sql("spark")


def _is_probe(node: exp.Expression) -> bool:
    """Whether ``node`` is Spark's base64 of a probe (``planner.decompose``)."""
    return isinstance(node, (exp.ToBase64, exp.Anonymous)) and node.sql("spark") == _PROBE


#: the calls :func:`_patterns_in_zone` gives the glue (``exp.Anonymous``: the parsing
#: functions sqlglot keeps by name, ``try_to_date(s, fmt)``...; ``DecodeCase``:
#: ``decode(x, s1, r1, ..., default)``, a CASE of null-safe comparisons)
_PATTERNED = (exp.UnixToStr, exp.TimeToStr, exp.StrToUnix, exp.StrToTime, exp.TsOrDsToDate)
_DECOMPOSED = (
    *_PATTERNED,
    exp.TsOrDsAdd,
    exp.AddMonths,
    exp.MonthsBetween,
    exp.Add,
    exp.Sub,
    exp.Anonymous,
    exp.DecodeCase,
    exp.ToChar,
    exp.ToBase64,
)


#: day-time interval units -> their length
_UNITS = {
    "WEEK": timedelta(weeks=1),
    "DAY": timedelta(days=1),
    "HOUR": timedelta(hours=1),
    "MINUTE": timedelta(minutes=1),
    "SECOND": timedelta(seconds=1),
}


def interval_literal(node: exp.Interval) -> timedelta | None:
    """A day-time interval literal of one unit (``INTERVAL '10' MINUTE``, ``INTERVAL 2
    HOURS``) as the timedelta Spark's value is; None for any other interval (a span such
    as DAY TO SECOND, a year-month interval, a non-literal amount)."""
    unit = node.args.get("unit")
    amount = node.this
    if not isinstance(unit, exp.Var) or not isinstance(amount, exp.Literal):
        return None
    length = _UNITS.get(unit.name.upper().rstrip("S"))
    try:
        number = Decimal(amount.name.strip())
    except InvalidOperation:
        return None
    if length is None or not number.is_finite():
        return None
    if length < timedelta(seconds=2):  # seconds may have a fraction (to microseconds)
        return timedelta(microseconds=int(number * 1_000_000))
    if number != number.to_integral_value():
        return None  # Spark refuses a fraction of a day, an hour or a minute
    return int(number) * length


def _shown(node: exp.Expression) -> str:
    """``node`` as the user wrote it: ``date_format()``, not sqlglot's TIME_TO_STR."""
    if isinstance(node, exp.Func):
        return written_name(node)
    return node.sql(dialect=MatchRecognizeDialect)[:40]
