"""Evaluate MEASURES in Python and infer their Spark types (for the SQL table function).

``matchrec.sql`` hands each measure's glue (the SQL around its atoms, see
``planner.expressions``) back to Spark, which computes its value and its type. The table
function ``match_recognize(TABLE(t), '...')`` cannot: a Python UDTF declares its output
schema in ``analyze``, before any row exists and with no Spark session at hand, and it
computes its output rows itself. So this module

* compiles a measure's lowered SQL to a Python closure over the atom values of one output
  row: ``planner.pyeval`` (the DEFINE glue evaluator) plus CAST / TRY_CAST;
* infers the measure's Spark type from the input schema with Spark's own rules (numeric
  widening, decimal precision and scale, aggregate result types, CAST targets), and
  falls back to sqlglot's type annotation only where that is reliable (non-numeric
  results);
* converts every value to the inferred type, so the rows match the declared schema.

What cannot be typed or evaluated is reported with the measure's position and a way
out (a CAST, or ``matchrec.sql``). Types are sqlglot ``DataType`` nodes: nothing here
imports Spark.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation, localcontext
from functools import partial
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.dialects.spark import Spark
from sqlglot.optimizer.annotate_types import annotate_types

from matchrec import ast
from matchrec.collated_values import collated, plain
from matchrec.errors import MatchRuntimeError, SemanticError, UnsupportedError
from matchrec.far_dates import FAR_HINT, FarCalendar, FarDate
from matchrec.far_timestamps import (
    FarTimestamp,
    micros_of,
    midnight_of,
    through_cycles,
    timestamp_of_micros,
)
from matchrec.integer_width import (
    WIDTHS,
    IntegerWidth,
    check_types_known,
    collation_fold,
    overflow_error,
)
from matchrec.moments import STATISTICS
from matchrec.navigation import AGGREGATES
from matchrec.sql_values import (
    StructValue,
    float_text,
    map_key,
    to_float32,
    to_text,
    unsigned_zero,
    utf8_bytes,
)
from matchrec.zones import session_zone

from .bit_functions import SHIFTS, shift_args, shift_name
from .collation_calls import collation_of, collation_sensitive
from .collation_calls import refusal as collation_refusal
from .datetime_functions import cast_to_timestamp
from .datetime_steps import moved_midnight
from .decompose import DECODED, is_internal, user_call_name
from .expressions import (
    AGGREGATE_NODES,
    BINARY_OPERATORS,
    INTEGER_OPERATORS,
    null_on_overflow,
    scaled_call,
)
from .function_types import (
    COLLATION,
    DAY_TIME_FIELDS,
    INTEGRAL_DIGITS,
    array_of,
    call_type,
    datetime_arithmetic,
    day_time_span,
    decimal_params,
    dtype,
    element_type,
    field_type,
    interval_type,
    is_interval,
    is_year_month,
    struct_fields,
    typed_call_names,
)
from .glue_functions import ARITHMETIC, COMPARISONS, EXTENDED
from .higher_order import HIGHER_ORDER, binding_lambda, bound_name, higher_order_parts
from .implicit_casts import COERCING, implicit_cast
from .number_text import decimal_text, double_text, integer_text
from .plan import MatchPlan, primary_labels
from .pyeval import call_args, check_format_pattern, compile_glue, glue_function_call
from .spark_function_names import SPARK_FUNCTIONS
from .sqltext import (
    ROW_PATTERN_CALLS,
    MatchRecognizeDialect,
    balanced_chains,
    higher_order_exists,
    qualified_calls,
    written_call,
)
from .timestamp_text import TimestampNotComputed, date_of_text, ntz_of_text, timestamp_of_text
from .type_checks import in_spark_order, mismatch
from .type_names import type_name
from .typed_calls import TYPED_CALLS, typed_args, typed_name
from .within_group import within_group_name

T = exp.DataType.Type
Value = Any
RowEval = Callable[[Sequence[Value]], Value]  # atom values of one output row -> value

_INTEGRAL = {T.TINYINT: 1, T.SMALLINT: 2, T.INT: 3, T.BIGINT: 4}
_FRACTIONAL = {T.FLOAT: 5, T.DOUBLE: 6}
_STRINGS = {T.TEXT, T.VARCHAR, T.CHAR, T.NCHAR, T.NVARCHAR}
_TIMESTAMPS = {T.TIMESTAMP, T.TIMESTAMPTZ, T.TIMESTAMPLTZ, T.TIMESTAMPNTZ}
# non-numeric results for which sqlglot's annotation agrees with Spark
_TRUSTED_FALLBACK = _STRINGS | _TIMESTAMPS | {T.BOOLEAN, T.DATE, T.BINARY}
MAX_PRECISION = 38

# the planner's table, plus window-style aggregates that may appear in measure SQL
_AGGREGATE_NODES: dict[type, str] = {
    **AGGREGATE_NODES,
    exp.FirstValue: "FIRST_VALUE",
    exp.LastValue: "LAST_VALUE",
    exp.Any: "ANY",
}

# functions pyeval evaluates (by node class), grouped by how Spark types their result
_SAME_AS_ARG = (exp.Abs,)
_STRING_FUNCS = (exp.Lower, exp.Upper)  # concat/||: planner.function_types
_DOUBLE_FUNCS = (exp.Sqrt, exp.Exp, exp.Ln, exp.Pow, exp.Sign)
_COMMON_FUNCS = (exp.Greatest, exp.Least, exp.Coalesce)
_SAFE_ARITHMETIC: dict[type, type] = {
    exp.SafeAdd: exp.Add,
    exp.SafeSubtract: exp.Sub,
    exp.SafeMultiply: exp.Mul,
    exp.SafeDivide: exp.Div,
}
_BOOLEAN_NODES = (
    *COMPARISONS,
    exp.And,
    exp.Or,
    exp.Not,
    exp.Is,
    exp.In,
    exp.Between,
    exp.Like,
    exp.ILike,
    exp.Escape,
    exp.RegexpLike,
    exp.Exists,
)
# Anonymous function names (as pyeval knows them) -> the node class typed like them
_ANONYMOUS = {
    "ABS": exp.Abs,
    "LCASE": exp.Lower,
    "UCASE": exp.Upper,
    "LOWER": exp.Lower,
    "UPPER": exp.Upper,
    "CONCAT": exp.Concat,
    "LENGTH": exp.Length,
    "CHAR_LENGTH": exp.Length,
    "SQRT": exp.Sqrt,
    "EXP": exp.Exp,
    "LN": exp.Ln,
    "POWER": exp.Pow,
    "POW": exp.Pow,
    "SIGN": exp.Sign,
    "SIGNUM": exp.Sign,
    "GREATEST": exp.Greatest,
    "LEAST": exp.Least,
    "FLOOR": exp.Floor,
    "CEIL": exp.Ceil,
    "CEILING": exp.Ceil,
    "ROUND": exp.Round,
    "BROUND": exp.Round,
}
NULL_TYPE = exp.DataType(this=T.NULL)


def decimal(precision: int, scale: int) -> exp.DataType:
    return dtype(f"decimal({precision},{scale})")


def _bounded(precision: int, scale: int) -> exp.DataType:
    return decimal(min(precision, MAX_PRECISION), min(scale, MAX_PRECISION))


def _wider_digits(digits: Sequence[tuple[int, int]]) -> tuple[int, int]:
    """(precision, scale) that hold every DECIMAL(p, s) of ``digits``, unbounded: Spark's
    ``widerDecimalType`` before it bounds them to 38 digits."""
    scale = max(s for _, s in digits)
    return max(p - s for p, s in digits) + scale, scale


def _integral_first(precision: int, scale: int) -> exp.DataType:
    """Spark 4's ``DecimalType.boundedPreferIntegralDigits`` (the wider type of two
    decimals, SPARK-45905): past 38 digits, fraction digits go before integer ones."""
    if precision <= MAX_PRECISION:
        return decimal(precision, scale)
    return decimal(MAX_PRECISION, max(0, scale - (precision - MAX_PRECISION)))


def _adjusted(precision: int, scale: int) -> exp.DataType:
    """Spark's ``DecimalType.adjustPrecisionScale`` (allowPrecisionLoss, the default)."""
    if precision <= MAX_PRECISION:
        return decimal(precision, scale)
    int_digits = precision - scale
    min_scale = min(scale, 6)
    return decimal(MAX_PRECISION, max(MAX_PRECISION - int_digits, min_scale))


def _is_numeric(t: exp.DataType) -> bool:
    return t.this in _INTEGRAL or t.this in _FRACTIONAL or t.this == T.DECIMAL


def _int_literal(node: exp.Expression) -> int | None:
    """The value of an integer literal (``-1``, ``((1))`` included), else None."""
    sign = 1
    node = node.unnest()
    if isinstance(node, exp.Neg):
        sign, node = -1, node.this.unnest()
    if isinstance(node, exp.Literal) and not node.is_string and node.this.isdigit():
        return sign * int(node.this)
    return None


def _scale_literal(node: exp.Expression) -> int | None:
    """A constant ROUND scale as Spark reads it, its implicit CAST to INT: an integer
    literal, one CAST to another integer type (``2L``), a DECIMAL or DOUBLE literal
    truncated (``2.7`` is 2, ``-2.7`` is -2); None for anything else."""
    sign, node = 1, node.unnest()
    while isinstance(node, exp.Neg) or (
        isinstance(node, exp.Cast) and node.to.is_type(*exp.DataType.INTEGER_TYPES)
    ):
        sign = -sign if isinstance(node, exp.Neg) else sign
        node = node.this.unnest()
    if not isinstance(node, exp.Literal) or node.is_string:
        return None
    try:
        value = Decimal(node.this)
    except InvalidOperation:
        return None
    return sign * int(value) if value.is_finite() else None


def _as_decimal(t: exp.DataType, node: exp.Expression) -> tuple[int, int] | None:
    """A numeric operand as Spark sees it next to a decimal: literal ints take their digits."""
    params = decimal_params(t)
    if params is not None:
        return params
    if t.this in _INTEGRAL:
        literal = _int_literal(node)
        if literal is not None:
            return max(len(str(abs(literal))), 1), 0
        return INTEGRAL_DIGITS[t.this], 0
    return None


#: DATE widens to TIMESTAMP_NTZ, both to TIMESTAMP (any other timestamp: rank 2)
_DATETIME_RANK = {T.DATE: 0, T.TIMESTAMPNTZ: 1}


def wider(a: exp.DataType | None, b: exp.DataType | None, ansi: bool = True) -> exp.DataType | None:
    """Spark's wider common type of two types (CASE branches, COALESCE, GREATEST), or None;
    ``ansi``: under spark.sql.ansi.enabled (without it a FLOAT beside an integer is a
    FLOAT)."""
    if a is None or b is None:
        return None
    if a.this == T.NULL:
        return b
    if b.this == T.NULL:
        return a
    if a == b:
        return _both(a, b)
    if a.this in _STRINGS and b.this in _STRINGS:
        return dtype("string")
    if {a.this, b.this} <= _TIMESTAMPS | {T.DATE}:
        return max(a, b, key=lambda t: _DATETIME_RANK.get(t.this, 2))
    if a.this in _COMPLEX or b.this in _COMPLEX:
        return _wider_complex(a, b, ansi)
    spans = (day_time_span(a), day_time_span(b))
    if spans[0] is not None and spans[1] is not None:
        return _day_time_covering(*spans)
    if not (_is_numeric(a) and _is_numeric(b)):
        return None
    if a.this == T.DECIMAL or b.this == T.DECIMAL:
        if a.this in _FRACTIONAL or b.this in _FRACTIONAL:
            return dtype("double")
        da, db = _as_decimal(a, exp.null()), _as_decimal(b, exp.null())
        assert da is not None and db is not None
        return _integral_first(*_wider_digits([da, db]))
    if a.this in _FRACTIONAL or b.this in _FRACTIONAL:
        return _fractional(a, b, ansi)
    return a if _INTEGRAL[a.this] >= _INTEGRAL[b.this] else b


_COMPLEX = {T.ARRAY, T.MAP, T.STRUCT}


def _day_time_covering(a: tuple[str, str], b: tuple[str, str]) -> exp.DataType:
    """Spark's common type of two day-time intervals: from the larger start field to the
    smaller end field (``INTERVAL HOUR`` beside ``INTERVAL MINUTE TO SECOND`` is
    ``INTERVAL HOUR TO SECOND``)."""
    start = min(a[0], b[0], key=DAY_TIME_FIELDS.index)
    end = max(a[1], b[1], key=DAY_TIME_FIELDS.index)
    return dtype(f"interval {start} to {end}" if start != end else f"interval {start}")


def _both(a: exp.DataType, b: exp.DataType) -> exp.DataType:
    """Equal types ``a`` and ``b`` as one type of values of either: a mark on a part of
    ``a`` (elements never NULL, a field never NULL, the exact Spark type) stays only
    where ``b`` has it too (``array_agg``'s NULL-free array beside one that may hold a
    NULL may hold one); a string's collation stays ``a``'s."""
    if not any(n.meta for n in a.walk()):
        return a
    result = a.copy()
    for mine, theirs in zip(result.walk(), b.walk()):
        for key in [k for k in mine.meta if k != COLLATION]:
            if theirs.meta.get(key) != mine.meta[key]:
                del mine.meta[key]
    return result


def _wider_complex(a: exp.DataType, b: exp.DataType, ansi: bool) -> exp.DataType | None:
    """Spark's common type of two arrays, two maps or two structs: part by part (element;
    key and value; field by field, when the structs' field names match regardless of
    case, keeping the first struct's names), each part as :func:`_common_of` finds it
    (``array<int>`` beside ``array<bigint>`` is ``array<bigint>``)."""
    if a.this != b.this or len(a.expressions) != len(b.expressions):
        return None
    if a.this != T.STRUCT:
        parts = [_common_of([x, y], ansi) for x, y in zip(a.expressions, b.expressions)]
        if any(p is None for p in parts):
            return None
        return exp.DataType(this=a.this, expressions=[p.copy() for p in parts], nested=True)
    fields = []
    for f, g in zip(a.expressions, b.expressions):
        if not (isinstance(f, exp.ColumnDef) and isinstance(g, exp.ColumnDef)):
            return None
        common = _common_of([f.args.get("kind"), g.args.get("kind")], ansi)
        if f.name.lower() != g.name.lower() or common is None:
            return None
        fields.append(exp.ColumnDef(this=f.this.copy(), kind=common.copy()))
    return exp.DataType(this=T.STRUCT, expressions=fields, nested=True)


def _fractional(a: exp.DataType, b: exp.DataType, ansi: bool) -> exp.DataType:
    """The common type of a FLOAT or DOUBLE and another number (not a DECIMAL): two
    FLOATs a FLOAT; ANSI type coercion (Spark 4's default) skips FLOAT beside any other
    type; the legacy one without ANSI mode keeps a FLOAT beside an integer."""
    others = {a.this, b.this} - {T.FLOAT}
    if not others or (not ansi and others <= set(_INTEGRAL)):
        return dtype("float")
    return dtype("double")


# --------------------------------------------------------------------------- typing


@dataclass
class TypeEnv:
    """What column references mean while typing: input columns, precomputed row-local
    expressions (``__mr_cN``) and atoms (``__mr_aN``, typed from their probes)."""

    columns: Mapping[str, exp.DataType]  # lower-case input column name -> type
    precomputed: Mapping[str, str] = field(default_factory=dict)  # name -> Spark SQL
    probes: Mapping[str, str] = field(default_factory=dict)  # atom name -> probe SQL
    ansi: bool = True  # spark.sql.ansi.enabled: how a STRING beside another type is typed
    #: the lambda parameters in scope (a lambda's body reads them as identifiers)
    parameters: Mapping[str, exp.DataType] = field(default_factory=dict)
    _cache: dict[str, exp.DataType | None] = field(default_factory=dict)

    def column_type(self, name: str) -> exp.DataType | None:
        if name in self._cache:
            return self._cache[name]
        self._cache[name] = None  # guards against cycles
        if name in self.probes:
            result = self._sql_type(self.probes[name])
        elif name in self.precomputed:
            result = self._sql_type(self.precomputed[name])
        else:
            result = self.columns.get(name.lower())
        self._cache[name] = result
        return result

    def _sql_type(self, text: str) -> exp.DataType | None:
        if len(text) > 1 and text[0] == text[-1] == "`" and "`" not in text[1:-1].replace("``", ""):
            return self.column_type(text[1:-1].replace("``", "`"))
        try:
            tree = _parse(text)
        except sqlglot.errors.SqlglotError:
            # a probe like `a`b` (a column name with a backtick, not escaped): read the
            # name as it is
            if text.startswith("`") and text.endswith("`"):
                return self.column_type(text[1:-1])
            return None
        return infer_type(tree, self)


#: higher-order functions -> the type Spark requires of their lambda's body
_LAMBDA_RESULTS = {
    "ARRAY_SORT": T.INT,
    **dict.fromkeys(("FILTER", "EXISTS", "FORALL", "MAP_FILTER"), T.BOOLEAN),
}


def lambda_parameter_types(
    kind: str, args: list[exp.Expression], env: TypeEnv
) -> list[exp.DataType | None]:
    """The types of the parameters of higher-order function ``kind``'s lambdas over
    value arguments ``args``: an array's element (and an INT index), a map's key and
    value, an ``aggregate``'s accumulator typed as its start (None where not known)."""
    types = [infer_type(a, env) for a in args]
    first = types[0] if types else None
    if kind in ("AGGREGATE", "REDUCE"):
        return [types[1] if len(types) > 1 else None, element_type(first)]
    if kind in ("MAP_FILTER", "TRANSFORM_VALUES", "TRANSFORM_KEYS", "MAP_ZIP_WITH"):
        maps = [t for t in types if t is not None and t.this == T.MAP and len(t.expressions) == 2]
        if len(maps) != len(types):
            return []
        return [maps[0].expressions[0], *(m.expressions[1] for m in maps)]
    if kind == "ZIP_WITH":
        return [element_type(t) for t in types]
    if kind == "ARRAY_SORT":
        return [element_type(first)] * 2
    return [element_type(first), dtype("int")]  # transform, filter, exists, forall


def _with_parameters(env: TypeEnv, params: list[str], types: list[exp.DataType | None]) -> TypeEnv:
    """``env`` where lambda parameters ``params`` (which shadow columns of their names)
    have ``types``; one of unknown type stays unknown."""
    bound = dict(zip(params, types))
    columns = {k: v for k, v in env.columns.items() if k not in bound}
    known = {p: t for p, t in bound.items() if t is not None}
    outer = {k: v for k, v in env.parameters.items() if k not in bound}
    return TypeEnv({**columns, **known}, env.precomputed, env.probes, env.ansi, {**outer, **known})


def _parse(text: str) -> exp.Expression:
    tree = sqlglot.parse_one(text, read=MatchRecognizeDialect)
    return qualified_calls(higher_order_exists(balanced_chains(tree)))


def _aggregate_name(node: exp.Expression) -> str | None:
    if isinstance(node, exp.WithinGroup):
        return within_group_name(node)
    if type(node) in _AGGREGATE_NODES:
        return _AGGREGATE_NODES[type(node)]
    if isinstance(node, exp.Anonymous) and str(node.this).upper() in AGGREGATES:
        return str(node.this).upper()
    return None


def _aggregate_type(name: str, node: exp.Expression, env: TypeEnv) -> exp.DataType | None:
    if name in ("COUNT", "COUNT_IF", "APPROX_COUNT_DISTINCT"):
        return dtype("bigint")
    if name in ("BOOL_AND", "EVERY", "BOOL_OR", "ANY", "SOME"):
        return dtype("boolean")
    if name == "REGR_COUNT":
        return dtype("bigint")
    if name in ("LISTAGG", "STRING_AGG"):
        return _listagg_type(node, env)
    if name in ("REGR_AVGX", "REGR_AVGY"):  # Spark's avg of x (of y) where both are set
        operand = node.expression if name == "REGR_AVGX" else node.this
        t = infer_type(operand, env) if isinstance(operand, exp.Expression) else None
        params = decimal_params(t) if t is not None else None
        return _bounded(params[0] + 4, params[1] + 4) if params else dtype("double")
    if name.startswith(("STD", "VAR")) or name in STATISTICS:
        return dtype("double")
    if isinstance(node, exp.WithinGroup):  # percentile_cont/_disc, mode(): of the key
        return _within_group_type(name, node, env)
    arg = node.this if not isinstance(node, exp.Anonymous) else node.expressions[0]
    while isinstance(arg, (exp.Distinct, exp.Paren)):
        arg = arg.expressions[0] if isinstance(arg, exp.Distinct) else arg.this
    t = infer_type(arg, env)
    if t is None:
        return None
    if name in ("ARRAY_AGG", "COLLECT_LIST", "COLLECT_SET"):
        return array_of(t, no_nulls=True)
    if name in ("BIT_AND", "BIT_OR", "BIT_XOR"):
        return t if t.this in _INTEGRAL else None
    name = {"TRY_SUM": "SUM", "TRY_AVG": "AVG"}.get(name, name)
    if name in ("MAX_BY", "MIN_BY") and len(node.expressions) == 3:  # max_by(x, y, k)
        return array_of(t)
    if name in ("MIN", "MAX", "MAX_BY", "MIN_BY", "FIRST_VALUE", "LAST_VALUE", "ANY_VALUE"):
        return t
    if name == "MODE":
        return t
    if is_day_time(t) and name in _OF_DAY_TIME:
        kind = _OF_DAY_TIME[name] or t
        quantile = _quantile_arg(node) if name == "PERCENTILE" else None
        listed = quantile is not None and isinstance(_unparen(quantile), exp.Array)
        return array_of(kind, no_nulls=True) if listed else kind
    if name == "MEDIAN":
        return dtype("double") if _is_numeric(t) else None
    if name in ("PERCENTILE", "PERCENTILE_APPROX", "APPROX_PERCENTILE"):
        exact = name == "PERCENTILE"
        value = dtype("double") if exact else t
        if not _is_numeric(t) and exact:
            return None
        quantile = _quantile_arg(node)
        if quantile is not None and isinstance(_unparen(quantile), exp.Array):
            return array_of(value, no_nulls=True)
        return value
    params = decimal_params(t)
    if name == "SUM":
        if t.this in _INTEGRAL:
            return dtype("bigint")
        if t.this in _FRACTIONAL or t.this == T.NULL:
            return dtype("double")
        return _bounded(params[0] + 10, params[1]) if params else None
    if name in ("AVG", "MEAN"):
        if t.this in _INTEGRAL or t.this in _FRACTIONAL or t.this == T.NULL:
            return dtype("double")
        return _bounded(params[0] + 4, params[1] + 4) if params else None
    return None


#: aggregates of DAY-TIME intervals and their type: the argument's (None) or Spark's
#: widest day-time interval (percentile_approx keeps its argument's type: the rule below)
_OF_DAY_TIME: dict[str, exp.DataType | None] = {
    "SUM": None,
    **dict.fromkeys(("AVG", "MEAN", "MEDIAN", "PERCENTILE"), dtype("interval day to second")),
}


def is_day_time(t: exp.DataType) -> bool:
    """Whether ``t`` is a DAY-TIME interval (``INTERVAL HOUR``, ``... DAY TO SECOND``)."""
    return is_interval(t) and not any(
        unit.name.upper() in ("YEAR", "MONTH") for unit in t.this.find_all(exp.Var)
    )


def typed_call(
    node: exp.Expression,
    env: TypeEnv,
    compile: Callable[[exp.Expression], Callable[[Any], Value]],
    where: Callable[[exp.Expression], int],
    sql: str,
    ansi: bool,
    refuse: Callable[[str], Exception],
) -> Callable[[Any], Value]:
    """Evaluator of ``node``, a :data:`~planner.typed_calls.TYPED_CALLS` call (``to_json``,
    ``hash``, ``format_string``), with its arguments' Spark types inferred from ``env``;
    ``compile`` compiles an argument (of the table function's measures, of a rule's row).
    Raises ``refuse(message)`` when an argument's type is unknown."""
    typed = typed_name(node)
    call = TYPED_CALLS[typed]  # type: ignore[index]
    args = typed_args(node)
    if call.pattern:
        check_format_pattern(args, where, sql)
    types = [infer_type(a, env) for a in args]
    if any(t is None or (t.meta.get(COLLATION) and not call.collations) for t in types):
        raise refuse(
            f"cannot infer the Spark type of each argument of {written_name(node)}"
            + ("" if call.collations else " (or one is a collated string)")
        )
    for reason in (call.check(t) for t in types) if call.check else ():
        if reason:
            raise refuse(reason)

    def with_types(*values: Value) -> Value:
        return call.fn(list(zip(values, types)))

    if not call.reads_values:
        for arg in args:
            compile(arg)  # checked as any argument, never evaluated
        constant = with_types(*[None] * len(args))
        return lambda ctx: constant
    casts = (typed, ansi) if call.casts else None
    return glue_function_call(node, with_types, args, compile, where, sql, casts)  # type: ignore[arg-type]


def _listagg_type(node: exp.Expression, env: TypeEnv) -> exp.DataType:
    """listagg/string_agg: BINARY of BINARY values, a collated string of such strings
    (as Spark types it), else STRING."""
    call = node.this if isinstance(node, exp.WithinGroup) else node
    value = call.expressions[0] if isinstance(call, exp.Anonymous) else call.this
    while isinstance(value, (exp.Distinct, exp.Paren, exp.Order)):
        value = value.expressions[0] if isinstance(value, exp.Distinct) else value.this
    t = infer_type(value, env) if value is not None else None
    if t is not None and (t.this in (T.BINARY, T.VARBINARY) or t.meta.get(COLLATION)):
        return t
    return dtype("string")


def _unparen(node: exp.Expression) -> exp.Expression:
    while isinstance(node, exp.Paren):
        node = node.this
    return node


def _within_group_type(name: str, node: exp.WithinGroup, env: TypeEnv) -> exp.DataType | None:
    """percentile_cont/percentile_disc: DOUBLE (an array of them for an array of
    percentages) of a numeric key; mode(): the key's type."""
    order = node.expression
    keys = order.expressions if isinstance(order, exp.Order) else []
    t = infer_type(keys[0].this, env) if len(keys) == 1 else None
    if t is None:
        return None
    if name == "MODE":
        return t
    if is_day_time(t):
        t = dtype("interval day to second")
    elif not _is_numeric(t):
        return None
    else:
        t = dtype("double")
    args = node.this.expressions if isinstance(node.this, exp.Anonymous) else [node.this.this]
    if args and isinstance(_unparen(args[0]), exp.Array):
        return array_of(t, no_nulls=True)
    return t


def _quantile_arg(node: exp.Expression) -> exp.Expression | None:
    """The percentage argument of percentile/percentile_approx (a number or an array)."""
    if isinstance(node, exp.Anonymous):
        return node.expressions[1] if len(node.expressions) > 1 else None
    return node.args.get("quantile")


def _literal_type(node: exp.Literal) -> exp.DataType:
    if node.is_string:
        return dtype("string")
    text = node.this
    if "e" in text.lower():
        return dtype("double")
    if "." in text:
        d = Decimal(text).as_tuple()
        scale = max(-int(d.exponent), 0)
        precision = max(len(d.digits), scale)
        return decimal(precision, scale)
    return _integer_literal_type(int(text), len(text))


def _integer_literal_type(value: int, digits: int) -> exp.DataType:
    """Spark's type of an integer literal of ``value``: the narrowest of INT and BIGINT
    that holds it (``-2147483648`` is an INT: Spark's grammar reads the sign with the
    digits), else DECIMAL(digits, 0)."""
    if -(2**31) <= value <= 2**31 - 1:
        return dtype("int")
    if -(2**63) <= value <= 2**63 - 1:
        return dtype("bigint")
    return decimal(digits, 0)


def _arithmetic_type(node: exp.Binary, env: TypeEnv) -> exp.DataType | None:
    lt, rt = infer_type(node.this, env), infer_type(node.expression, env)
    if lt is None or rt is None:
        return None
    if lt.this == T.NULL:
        lt = rt
    if rt.this == T.NULL:
        rt = lt
    if _mixes_strings([lt, rt]) and (_is_numeric(lt) or _is_numeric(rt)):
        # both are cast to one type first (``x % '3'``, a pushed-down ``pmod(x, '3')``)
        partner = _string_partner(rt if lt.this in _STRINGS else lt, True, env.ansi)
        if partner is None:
            return None
        lt = rt = partner
    if isinstance(node, (exp.Add, exp.Sub)) and not (_is_numeric(lt) and _is_numeric(rt)):
        return datetime_arithmetic(node, lt, rt)
    scaled = _scaled_interval_type(node, lt, rt)
    if scaled is not None:
        return scaled
    if not (_is_numeric(lt) and _is_numeric(rt)):
        return None
    if isinstance(node, exp.IntDiv):
        return dtype("bigint")
    if lt.this in _FRACTIONAL or rt.this in _FRACTIONAL:
        if isinstance(node, exp.Div):
            return dtype("double")
        return _fractional(lt, rt, env.ansi)
    if lt.this == T.DECIMAL or rt.this == T.DECIMAL:
        left, right = _as_decimal(lt, node.this), _as_decimal(rt, node.expression)
        assert left is not None and right is not None
        (p1, s1), (p2, s2) = left, right
        if isinstance(node, (exp.Add, exp.Sub)):
            scale = max(s1, s2)
            return _adjusted(max(p1 - s1, p2 - s2) + scale + 1, scale)
        if isinstance(node, exp.Mul):
            return _adjusted(p1 + p2 + 1, s1 + s2)
        if isinstance(node, exp.Div):
            scale = max(6, s1 + p2 + 1)
            return _adjusted(p1 - s1 + s2 + scale, scale)
        if isinstance(node, exp.Mod):
            scale = max(s1, s2)
            return _adjusted(min(p1 - s1, p2 - s2) + scale, scale)
        return None
    if isinstance(node, exp.Div):
        return dtype("double")
    return wider(lt, rt)


def _scaled_interval_type(
    node: exp.Binary, lt: exp.DataType, rt: exp.DataType
) -> exp.DataType | None:
    """An interval times a number (either side) or divided by one: Spark's widest
    interval of its kind (DAY TO SECOND, YEAR TO MONTH), whatever the operand's fields."""
    if isinstance(node, exp.Mul) and is_interval(rt) and _is_numeric(lt):
        lt, rt = rt, lt
    if not (isinstance(node, (exp.Mul, exp.Div)) and is_interval(lt) and _is_numeric(rt)):
        return None
    return dtype("interval year to month" if is_year_month(lt) else "interval day to second")


#: the DECIMAL (precision, scale) Spark casts a number of these types to before
#: ``ceil``/``floor`` to a scale
_AS_DECIMAL = {
    exp.DataType.Type.TINYINT: (3, 0),
    exp.DataType.Type.SMALLINT: (5, 0),
    exp.DataType.Type.INT: (10, 0),
    exp.DataType.Type.BIGINT: (20, 0),
    exp.DataType.Type.FLOAT: (14, 7),
    exp.DataType.Type.DOUBLE: (30, 15),
}


def _rounding_type(node: exp.Expression, env: TypeEnv) -> exp.DataType | None:
    """FLOOR / CEIL / ROUND with Spark's result types."""
    args = call_args(node)
    t = infer_type(args[0], env)
    if t is None:
        return None
    if t.this == T.NULL:
        t = dtype("double")  # Spark reads an untyped NULL as the DOUBLE NULL
    params = decimal_params(t)
    if isinstance(node, (exp.Floor, exp.Ceil)):
        if len(args) > 1:  # to a scale: the number as a DECIMAL, rounded as ROUND types it
            params = params or _AS_DECIMAL.get(t.this)
        elif params:
            p, s = params
            return t if s == 0 else _bounded(p - s + 1, 0)
        else:
            return dtype("bigint") if _is_numeric(t) else None
    digits = _scale_literal(args[1]) if len(args) > 1 else 0
    if digits is None:
        return None
    if params:
        p, s = params
        if digits < 0:  # Spark keeps the digits left of the point, and one more
            return decimal(min(max(p - s + 1, 1 - digits), MAX_PRECISION), 0)
        new_scale = min(s, digits)
        return decimal(min(p - s + 1 + new_scale, MAX_PRECISION), new_scale)
    return t if _is_numeric(t) else None


def _ansi_string_partner(t: exp.DataType) -> exp.DataType | None:
    """The type Spark's ANSI coercion gives a STRING beside ``t`` in CASE, IF and
    COALESCE (the string is cast to it), or None where Spark has no common type."""
    if t.this in _INTEGRAL:
        return dtype("bigint")
    if t.this in _FRACTIONAL or t.this == T.DECIMAL:
        return dtype("double")
    if t.this in _TIMESTAMPS or t.this in (T.DATE, T.BOOLEAN, T.BINARY):
        return t
    return None


def _with_strings(others: exp.DataType | None, ansi: bool) -> exp.DataType | None:
    """The common type of STRINGs and values of the common type ``others``: under ANSI
    the strings are cast to the others' type (BIGINT for integers, DOUBLE for fractions),
    without it numbers, dates and timestamps are cast to STRING (Spark 4, measured)."""
    if others is None:
        return None
    if others.this == T.NULL:
        return dtype("string")
    if ansi:
        return _ansi_string_partner(others)
    if _is_numeric(others) or others.this in _TIMESTAMPS | {T.DATE}:
        return dtype("string")
    return None


def _common_type(
    nodes: Sequence[exp.Expression], env: TypeEnv, strings: bool = True
) -> exp.DataType | None:
    """The type Spark gives values of ``nodes`` together (CASE branches, COALESCE's
    arguments, an array's elements); ``strings``: a STRING may join another type
    (GREATEST and LEAST refuse that). A string's explicit collation (``s COLLATE c``)
    is the common one, before a column's, as Spark's precedence of collations says."""
    common = _common_of([infer_type(n, env) for n in nodes], env.ansi, strings)
    explicit = [n.unnest() for n in nodes if isinstance(n.unnest(), exp.Collate)]
    if common is None or common.this not in _STRINGS or not explicit:
        return common
    common = common.copy()
    common.meta[COLLATION] = explicit[0].expression.name.upper()
    return common


def _common_of(
    types: Sequence[exp.DataType | None], ansi: bool, strings: bool = True
) -> exp.DataType | None:
    """:func:`_common_type` of values of ``types``."""
    texts = [t for t in types if strings and t is not None and t.this in _STRINGS]
    others = [t for t in types if not (strings and t is not None and t.this in _STRINGS)]
    result: exp.DataType | None = NULL_TYPE
    for t in others:
        result = wider(result, t, ansi)
    if texts and result != NULL_TYPE:
        return _with_strings(result, ansi)
    for t in texts:  # strings only (and NULLs): their collation stays
        result = wider(result, t, ansi)
    return result


def _result_branches(node: exp.Expression) -> list[exp.Expression]:
    """The arguments whose common type is the result of a CASE, IF, NVL2 or COALESCE,
    or the element type of an array (a map's keys and values are arrays here); a
    missing ELSE is NULL, which joins any type."""
    if isinstance(node, exp.Coalesce):
        return [node.this, *node.expressions]
    if isinstance(node, exp.Array):
        return list(node.expressions)
    if isinstance(node, exp.Case):
        ifs = [i.args["true"] for i in node.args.get("ifs", [])]
        return ifs + [d for d in [node.args.get("default")] if d is not None]
    if isinstance(node, (exp.If, exp.Nvl2)):
        return [b for b in (node.args.get("true"), node.args.get("false")) if b is not None]
    return []


def decimal_quantum(node: exp.Expression, env: TypeEnv) -> Decimal | None:
    """The quantum of arithmetic ``node`` (``+ - * / % div``) whose Spark type is a
    DECIMAL (``Decimal('0.000001')`` for a DECIMAL(16,6)); None for anything else."""
    if not isinstance(node, ARITHMETIC):
        return None
    t = infer_type(node, env)
    return _quantum(t) if t is not None and t.this == T.DECIMAL else None


def _quantum(t: exp.DataType) -> Decimal:
    """The smallest step of DECIMAL type ``t`` (``Decimal('0.01')`` for a DECIMAL(p,2))."""
    return Decimal(1).scaleb(-(decimal_params(t) or (10, 0))[1])


def at_scale(value: Value, quantum: Decimal) -> Value:
    """A DECIMAL value at its type's scale, rounded half up as Spark rounds."""
    if not isinstance(value, Decimal) or not value.is_finite():
        return value
    with localcontext() as ctx:
        ctx.prec = MAX_PRECISION + 2
        try:
            return unsigned_zero(value.quantize(quantum, rounding=ROUND_HALF_UP))
        except InvalidOperation:  # out of any DECIMAL's range: the measure's cast says
            return value


def struct_subscripts(tree: exp.Expression, env: TypeEnv) -> exp.Expression:
    """``tree`` with each ``s['f']`` of a struct ``s`` as ``s.f``, the field Spark reads
    (its name matched without case), not a map's key."""
    for node in [n for n in tree.walk(bfs=False) if isinstance(n, exp.Bracket)][::-1]:
        key = node.expressions[0] if len(node.expressions) == 1 else None
        if not (isinstance(key, exp.Literal) and key.is_string):
            continue
        t = infer_type(node.this, env)
        if t is not None and t.this == T.STRUCT:
            field = exp.Dot(this=node.this.copy(), expression=exp.to_identifier(key.this, True))
            if node is tree:
                tree = field
            else:
                node.replace(field)
    return tree


def string_coerced(tree: exp.Expression, env: TypeEnv) -> exp.Expression:
    """``tree`` with the casts Spark adds where a STRING meets another type, written out
    so that Python evaluates it as Spark does: the branches of a CASE, IF, COALESCE or
    array (:func:`_with_strings`), and the operands of a comparison, BETWEEN, IN or
    arithmetic (:func:`_operand_casts`: ``price < '2'`` compares with the DOUBLE 2.0)."""
    tree = _between_split(tree.copy(), env)
    for node in reversed(list(tree.walk())):
        casts = _operand_casts(node, env)
        branches = _result_branches(node)
        types = [infer_type(b, env) for b in branches]
        if any(t is not None and t.this in _STRINGS for t in types):
            target = _common_of(types, env.ansi)
            for branch, t in zip(branches, types):
                if target is not None and t is not None and t.this != T.NULL and t != target:
                    casts.setdefault(id(branch), (branch, target))
        # try_mod's own casts fail into its NULL (try_mod('x', 2) is NULL under ANSI)
        trying = isinstance(node, exp.Anonymous) and node.name.upper() == "TRY_MOD"
        cast = exp.TryCast if trying else exp.Cast  # (only TRY_CAST carries ``safe``)
        for operand, target in casts.values():
            operand.replace(cast(this=operand.copy(), to=target.copy(), safe=trying or None))
    return tree


#: the calls whose two arguments Spark coerces as the operands of ``%``
_REMAINDER_CALLS = frozenset({"PMOD", "TRY_MOD"})


def _mixes_strings(types: Sequence[exp.DataType | None]) -> bool:
    """Whether ``types`` (all known) hold a STRING and another type."""
    if any(t is None for t in types):
        return False
    texts = [t.this in _STRINGS for t in types]  # type: ignore[union-attr]
    return any(texts) and not all(texts)


def _between_split(tree: exp.Expression, env: TypeEnv) -> exp.Expression:
    """``tree`` with each BETWEEN that mixes a STRING with another type written as the
    two comparisons Spark makes of it (``x >= low AND x <= high``), each cast on its own."""
    for node in list(tree.find_all(exp.Between)):
        low, high = node.args["low"], node.args["high"]
        if _mixes_strings([infer_type(n, env) for n in (node.this, low, high)]):
            both = exp.and_(
                exp.GTE(this=node.this.copy(), expression=low.copy()),
                exp.LTE(this=node.this.copy(), expression=high.copy()),
            )
            replaced = node.replace(exp.Paren(this=both))
            if node is tree:
                tree = replaced
    return tree


def _operand_casts(
    node: exp.Expression, env: TypeEnv
) -> dict[int, tuple[exp.Expression, exp.DataType]]:
    """The casts Spark adds to the operands of ``node`` where a STRING meets another
    type (by ``id`` of the operand: its node and the type it is cast to)."""
    if isinstance(node, exp.In) and not node.args.get("query"):
        return _in_casts(node, env)
    if isinstance(node, exp.Bracket):
        return _map_key_cast(node, env)
    remainder = isinstance(node, exp.Anonymous) and node.name.upper() in _REMAINDER_CALLS
    if remainder and len(node.expressions) == 2:
        a, b = node.expressions  # pmod(a, b): its operands are those of a % b
    elif not isinstance(node, (*COMPARISONS, *ARITHMETIC)):
        return {}
    else:
        a, b = node.this, node.expression
    if isinstance(node, exp.IntDiv) and not env.ansi:
        return {}  # Spark refuses a STRING's DOUBLE in div without ANSI mode
    ta, tb = infer_type(a, env), infer_type(b, env)
    if isinstance(node, COMPARISONS):
        decimals = _decimal_casts([a, b], [ta, tb], literal_digits=True)
        if decimals:
            return decimals
    if not _mixes_strings([ta, tb]):
        return {}
    other = tb if ta.this in _STRINGS else ta  # type: ignore[union-attr]
    computed = isinstance(node, ARITHMETIC) or remainder
    target = _string_partner(other, computed, env.ansi)  # type: ignore[arg-type]
    if target is None:
        return {}
    return {id(o): (o, target) for o, t in ((a, ta), (b, tb)) if t != target}


def _map_key_cast(
    node: exp.Bracket, env: TypeEnv
) -> dict[int, tuple[exp.Expression, exp.DataType]]:
    """A map subscript's key cast to the map's key type, as Spark casts it (``m['2']`` of
    a MAP<INT, ...> looks up 2); element_at and try_element_at look up the key as it is
    (:mod:`planner.subscript_types`)."""
    if node.args.get("offset") or node.args.get("safe") or len(node.expressions) != 1:
        return {}
    container, index = infer_type(node.this, env), infer_type(node.expressions[0], env)
    if container is None or container.this != T.MAP or len(container.expressions) != 2:
        return {}
    key_type = container.expressions[0]
    if index is None or index.this == T.NULL or index == key_type:
        return {}
    return {id(node.expressions[0]): (node.expressions[0], key_type)}


def _decimal_casts(
    operands: list[exp.Expression],
    types: list[exp.DataType | None],
    literal_digits: bool,
) -> dict[int, tuple[exp.Expression, exp.DataType]]:
    """Compared DECIMALs (and integers beside them) whose wider DECIMAL passes 38 digits
    are cast to it first, as Spark does, which drops fraction digits: ``5000.00 =
    5000.001`` of DECIMAL(38, 2) and DECIMAL(7, 3) is true. (Within 38 digits the cast
    changes no value, and the exact comparison is Spark's.) ``literal_digits``: an integer
    literal takes only its own digits, as in a comparison (IN takes its type's)."""
    digits = []
    for o, t in zip(operands, types):
        if t is None:
            return {}
        if t.this == T.NULL:
            continue
        if t.this not in _INTEGRAL and t.this != T.DECIMAL:
            return {}
        found = _as_decimal(t, o if literal_digits else exp.null())
        if found is None:
            return {}
        digits.append(found)
    if not any(t is not None and t.this == T.DECIMAL for t in types):
        return {}
    precision, scale = _wider_digits(digits)
    if precision <= MAX_PRECISION:
        return {}
    target = _integral_first(precision, scale)
    return {
        id(o): (o, target)
        for o, t in zip(operands, types)
        if t is not None and t.this != T.NULL and t != target
    }


def _string_partner(t: exp.DataType, arithmetic: bool, ansi: bool) -> exp.DataType | None:
    """The type a STRING and a value of type ``t`` are both cast to when compared (or,
    ``arithmetic``, added...), as Spark 4 does (measured): under ANSI mode an integer
    and the string are BIGINTs, a fraction or DECIMAL and the string DOUBLEs; without it
    the string takes an integer's or fraction's type when compared (DOUBLE in
    arithmetic), a DECIMAL and the string are DOUBLEs; a DATE, TIMESTAMP or BOOLEAN
    compared with a string reads the string as one."""
    if t.this in _INTEGRAL:
        return dtype("bigint") if ansi else (dtype("double") if arithmetic else t)
    if t.this in _FRACTIONAL:
        return dtype("double") if ansi or arithmetic else t
    if t.this == T.DECIMAL:
        return dtype("double")
    if not arithmetic and (t.this in _TIMESTAMPS or t.this in (T.DATE, T.BOOLEAN)):
        return t
    return None


def _in_casts(node: exp.In, env: TypeEnv) -> dict[int, tuple[exp.Expression, exp.DataType]]:
    """``x IN (...)`` where a STRING meets another type: under ANSI mode each is cast
    to the type a comparison of a string with the others' common type uses (``i IN
    (1.5, '2')``: DOUBLE); without it, Spark compares them all as STRINGs."""
    operands = [node.this, *node.expressions]
    types = [infer_type(o, env) for o in operands]
    if not _mixes_strings(types):
        return _decimal_casts(operands, types, literal_digits=False)
    if env.ansi:
        others = _common_of([t for t in types if t.this not in _STRINGS], True)  # type: ignore[union-attr]
        target = None if others is None else _string_partner(others, False, True)
    else:
        target = dtype("string")
    if target is None:
        return {}
    return {id(o): (o, target) for o, t in zip(operands, types) if t != target}


def _empty_window(node: exp.Window) -> bool:
    return not any(node.args.get(k) for k in ("partition_by", "order", "spec"))


#: the types found during one outermost :func:`infer_type` call, by node and environment
#: (each kept alive in its entry, so that no other node takes its id meanwhile)
_TYPED: ContextVar[dict[tuple[int, int], tuple] | None] = ContextVar("typed", default=None)


def infer_type(node: exp.Expression, env: TypeEnv) -> exp.DataType | None:
    """Spark's type of ``node`` (a glue, probe or row-local expression), or None if unknown.
    A node is typed once per outermost call: a call typed by two rules (``abs``: as its
    argument, then by the function table when that is unknown) typed its argument twice
    per level, 2^depth times in all."""
    typed = _TYPED.get()
    if typed is None:
        token = _TYPED.set({})
        try:
            return infer_type(node, env)
        finally:
            _TYPED.reset(token)
    key = (id(node), id(env))
    if key not in typed:
        typed[key] = (node, env, _infer_type(node, env))
    return typed[key][2]


def _infer_type(node: exp.Expression, env: TypeEnv) -> exp.DataType | None:
    while isinstance(node, exp.Paren) or (isinstance(node, exp.Window) and _empty_window(node)):
        node = node.this  # an aggregate ``OVER ()`` (a probe of DEFINE's) has its type
    if isinstance(node, exp.Column):
        if isinstance(node.this, exp.Star):
            return None
        if node.table:  # ``info.city``, ``info.geo.lat``: fields of struct column info
            first, *fields = [part.name for part in node.parts]
            t = env.column_type(first)
            for name in fields:
                t = field_type(t, name)
            return t
        return env.column_type(node.name)
    if isinstance(node, exp.Identifier):  # a lambda's parameter
        return env.parameters.get(node.name.lower())
    if isinstance(node, exp.Interval):
        return interval_type(node)
    if isinstance(node, exp.Collate):  # s COLLATE name, collate(s, 'name')
        t = dtype("string")
        t.meta[COLLATION] = node.expression.name.upper()
        return t
    if isinstance(node, exp.Literal):
        return _literal_type(node)
    if isinstance(node, exp.HexString):  # X'0A1B'
        return dtype("binary")
    if isinstance(node, exp.Boolean):
        return dtype("boolean")
    if isinstance(node, exp.Null):
        return NULL_TYPE
    if isinstance(node, (exp.Cast, exp.TryCast)):
        return _spark_target(node.to)
    if type(node) in _SAFE_ARITHMETIC:  # try_add, try_divide, ...: typed as + and /
        plain = _SAFE_ARITHMETIC[type(node)](this=node.this, expression=node.expression)
        return _arithmetic_type(plain, env)
    if isinstance(node, exp.Subquery):
        return _subquery_type(node)
    if isinstance(node, _BOOLEAN_NODES):
        return dtype("boolean")
    if isinstance(node, exp.Neg):
        digits = node.this
        if isinstance(digits, exp.Literal) and not digits.is_string and digits.this.isdigit():
            return _integer_literal_type(-int(digits.this), len(digits.this))
        return infer_type(node.this, env)
    if isinstance(node, ARITHMETIC):
        return _arithmetic_type(node, env)
    name = _aggregate_name(node)
    if name is not None:
        return _aggregate_type(name, node, env)
    if isinstance(node, exp.Anonymous) and str(node.this).upper() in _ANONYMOUS:
        cls = _ANONYMOUS[str(node.this).upper()]
        return _function_type(cls, node, env)
    if isinstance(node, (exp.Case, exp.If)):
        return _common_type(_result_branches(node), env)
    result = _function_type(type(node), node, env)
    if result is None and isinstance(node, _COMMON_FUNCS):
        return None
    if result is None:
        result = call_type(node, lambda n: infer_type(n, env), lambda ns: _common_type(ns, env))
    if result is None:
        result = _fallback_type(node, env)
    return _with_collation(node, result, env)


#: string functions whose result has the collation of their string arguments (Spark's
#: ``upper(x)`` of a ``STRING COLLATE UTF8_LCASE`` is one)
_COLLATION_KEEPING = (
    exp.Collate,
    exp.Lower,
    exp.Upper,
    exp.Concat,
    exp.DPipe,
    exp.Substring,
    exp.Left,
    exp.Right,
    exp.Trim,
    exp.Initcap,
    exp.Pad,
)


def _with_collation(
    node: exp.Expression, result: exp.DataType | None, env: TypeEnv
) -> exp.DataType | None:
    """``result`` with the collation of the first collated string argument of ``node``,
    when ``node`` is a string function that keeps it."""
    if result is None or not isinstance(node, _COLLATION_KEEPING) or result.meta.get(COLLATION):
        return result
    if result.this not in (T.TEXT, T.VARCHAR):
        return result
    for arg in call_args(node):
        t = infer_type(arg, env) if isinstance(arg, exp.Expression) else None
        if t is not None and t.meta.get(COLLATION):
            kept = result.copy()
            kept.meta[COLLATION] = t.meta[COLLATION]
            return kept
    return result


def _subquery_type(node: exp.Subquery) -> exp.DataType | None:
    """A scalar subquery typed by its one select expression, when that needs no table
    columns (``(SELECT 1000)``, ``(SELECT count(*) FROM u)``, a CAST): the tables of a
    subquery are unknown here."""
    select = node.this
    if not isinstance(select, exp.Select) or len(select.expressions) != 1:
        return None
    return infer_type(select.expressions[0].unalias(), TypeEnv({}))


def _function_type(cls: type, node: exp.Expression, env: TypeEnv) -> exp.DataType | None:
    args = call_args(node)
    if issubclass(cls, _STRING_FUNCS):
        return dtype("string")
    if issubclass(cls, _DOUBLE_FUNCS):
        return dtype("double")
    if issubclass(cls, exp.Length):
        return dtype("int")
    if issubclass(cls, _SAME_AS_ARG) and args:
        typed = infer_type(args[0], env)
        read_as_double = typed is not None and typed.this in (T.VARCHAR, T.TEXT, T.CHAR, T.NULL)
        return dtype("double") if read_as_double else typed  # a string's or NULL's DOUBLE
    if issubclass(cls, _COMMON_FUNCS):
        return _common_type(args, env, strings=issubclass(cls, exp.Coalesce))
    if issubclass(cls, (exp.Floor, exp.Ceil, exp.Round)) and args:
        return _rounding_type(node, env)
    if issubclass(cls, exp.TimestampAdd):  # a TIMESTAMP_NTZ stays one, the rest TIMESTAMP
        moved = infer_type(node.this, env)
        if moved is None:
            return None
        return moved if moved.this == T.TIMESTAMPNTZ else dtype("timestamp")
    return None


def _fallback_type(node: exp.Expression, env: TypeEnv) -> exp.DataType | None:
    """sqlglot's annotation, trusted for non-numeric results without date arithmetic
    (sqlglot types ``timestamp - timestamp`` as a timestamp, Spark as an interval) nor
    a common type (sqlglot types ``coalesce(s, 1)`` as a string, Spark under ANSI as a
    BIGINT)."""
    if any(isinstance(n, ARITHMETIC) for n in node.walk()) or isinstance(node, _COMMON_FUNCS):
        return None  # COALESCE, GREATEST, LEAST: their common type, or unknown
    copy = node.copy()
    # a call sqlglot does not know (``btrim(x)``) as the type we give it (only those:
    # typing every call argument again here would be exponential in the nesting depth)
    for arg in list(copy.iter_expressions()):
        if isinstance(arg, exp.Anonymous):
            t = infer_type(arg, env)
            if t is not None and t.this != T.NULL:
                arg.replace(exp.Cast(this=exp.null(), to=t.copy()))
    for col in list(copy.find_all(exp.Column)):
        t = None if isinstance(col.this, exp.Star) else env.column_type(col.name)
        if t is None or t.this == T.NULL:
            return None
        col.replace(exp.Cast(this=exp.null(), to=t.copy()))
    try:
        annotated = annotate_types(copy, dialect="spark")
    except Exception:  # sqlglot may not know a function: then we do not either
        return None
    result = annotated.type
    if result is None or result.this not in _TRUSTED_FALLBACK:
        return None
    return dtype("string") if result.this in _STRINGS else result


def _spark_target(t: exp.DataType) -> exp.DataType:
    """The type Spark gives a CAST target (VARCHAR/CHAR are plain strings in a query)."""
    if t.this in _STRINGS:
        return dtype("string")
    if t.this == T.DECIMAL:
        p, s = decimal_params(t) or (10, 0)
        return decimal(p, s)
    return t


# --------------------------------------------------------------------------- values


_TRUE = {"t", "true", "y", "yes", "1"}
_FALSE = {"f", "false", "n", "no", "0"}


def _to_bool(v: Value) -> bool:
    if isinstance(v, str):
        low = v.strip().lower()
        if low in _TRUE or low in _FALSE:
            return low in _TRUE
        raise ValueError(v)
    return bool(v)


def _integral_range(t: exp.DataType.Type) -> int:
    return 2 ** (8 * {T.TINYINT: 1, T.SMALLINT: 2, T.INT: 4, T.BIGINT: 8}[t] - 1)


#: CAST targets the DEFINE glue converts as the table function does (``cast_evaluator``)
_GLUE_CASTS = {
    *_INTEGRAL,
    *_FRACTIONAL,
    T.DECIMAL,
    *_STRINGS,
    T.BOOLEAN,
    T.DATE,
    *_TIMESTAMPS,
    T.BINARY,
}


def glue_casts_to(t: exp.DataType) -> bool:
    """Whether DEFINE's glue converts values to ``t`` (:func:`cast_evaluator` with
    ``glue``)."""
    return _spark_target(t).this in _GLUE_CASTS


def cast_evaluator(
    node: exp.Cast | exp.TryCast,
    compile_arg: Callable[[exp.Expression], Callable[[Any], Value]],
    ansi: bool,
    sql: str,
    pos: int,
    glue: bool = False,
    source: exp.DataType | None = None,
) -> Callable[[Any], Value] | None:
    """CAST (TRY_CAST, ``::``) of its argument (compiled by ``compile_arg``) as Spark
    casts: a value that does not convert is NULL for TRY_CAST, what Spark's legacy cast
    gives without ANSI mode (:func:`legacy_cast`), a positioned error under it. None
    where the target has no conversion here; ``glue`` (DEFINE's glue): numbers, strings,
    BOOLEAN, DATE, timestamps (a TIMESTAMP arrives in the session time zone, and text
    without a zone is read in it, which each door sets on its workers) and BINARY;
    intervals and nested types are left to Spark. The dialect
    parses every CAST as a TryCast node: only TRY_CAST carries ``safe``."""
    target = _spark_target(node.to)
    convert = _converter(target) if not glue or target.this in _GLUE_CASTS else None
    if convert is None:
        return None
    span = day_time_span(source) if source is not None else None
    if span is not None and target.this in _STRINGS:
        convert = lambda v: interval_text(v, *span)  # noqa: E731
    elif span is not None and (target.this in _INTEGRAL or target.this == T.DECIMAL):
        exact = target.this == T.DECIMAL and span[1] == "SECOND"
        convert = _interval_number(convert, span[1], exact)
    elif source is not None and source.this == T.FLOAT and target.this in _STRINGS:
        convert = lambda v: float_text(v) if isinstance(v, float) else _to_string(v)  # noqa: E731
    elif target.this in _STRINGS and not ansi:  # a DECIMAL as Java's BigDecimal.toString
        convert = _legacy_string
    inner = compile_arg(node.this)
    safe = bool(node.args.get("safe"))
    # an interval that overflows the number is Spark's error with or without ANSI mode
    legacy = legacy_cast(target) if span is None else None

    def evaluate(arg: Any) -> Value:
        v = inner(arg)
        if v is None:
            return None
        try:
            return convert(v)
        except (TimestampNotComputed, CastNotComputed) as err:
            raise MatchRuntimeError(f"cannot cast {err}", sql=sql, pos=pos) from None
        except FarCalendar as err:
            raise MatchRuntimeError(str(err), sql=sql, pos=pos, hint=FAR_HINT) from None
        except (ValueError, TypeError, ArithmeticError):  # InvalidOperation included
            if safe:
                return None
            if not ansi and legacy is not None:
                return legacy(v)
            if isinstance(v, str):
                raise MatchRuntimeError(invalid_input(v, target), sql=sql, pos=pos) from None
            shown = interval_text(v, *span) if span is not None else _shown_value(v)
            when = "" if legacy is None else " under spark.sql.ansi.enabled"
            raise MatchRuntimeError(
                f"cannot cast {shown} to {target.sql('spark').upper()} (Spark raises "
                f"{_cast_condition(v, target)}{when})",
                sql=sql,
                pos=pos,
                hint="use TRY_CAST to get NULL instead",
            ) from None

    return evaluate


def _interval_number(
    to_number: Callable[[Value], Value], end: str, exact: bool
) -> Callable[[Value], Value]:
    """CAST of a day-time interval to a number, as Spark casts it: a count of its end
    field (``DAY TO SECOND``: seconds), ``exact`` (seconds to a DECIMAL) or whole
    (truncated toward zero), then converted as that number would be."""
    unit = _FIELD_MICROS[DAY_TIME_FIELDS.index(end)]

    def convert(v: Value) -> Value:
        micros = v // timedelta(microseconds=1)
        if exact:
            return to_number(Decimal(micros) / Decimal(unit))
        whole = abs(micros) // unit
        return to_number(whole if micros >= 0 else -whole)

    return convert


def _shown_value(v: Value) -> str:
    """``v`` as a user reads it in SQL: a string quoted, anything else as Spark writes it."""
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'"
    return to_text(v)


def invalid_input(text: str, target: exp.DataType) -> str:
    """Spark's CAST_INVALID_INPUT message for ``text`` that does not cast to ``target``
    (the value quoted as Spark quotes it, the type as Spark writes it; its SQLSTATE is the
    error's ``getSqlState()``)."""
    quoted = "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
    type_sql = target.sql("spark").upper().replace(", ", ",")
    return (
        f'[CAST_INVALID_INPUT] The value {quoted} of the type "STRING" cannot be cast to '
        f'"{type_sql}" because it is malformed. Correct the value as per the syntax, or '
        "change its target type. Use `try_cast` to tolerate malformed input and return "
        "NULL instead."
    )


def _cast_condition(v: Value, target: exp.DataType) -> str:
    """Spark's error condition of a failed ANSI cast of ``v`` to ``target``."""
    if isinstance(v, str):
        return "CAST_INVALID_INPUT"
    return (
        "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION"
        if target.this == T.DECIMAL
        else "CAST_OVERFLOW"
    )


def _wrapped(n: int, bits: int) -> int:
    """``n``'s low ``bits`` bits as a signed integer (Java's narrowing of integers)."""
    n &= (1 << bits) - 1
    return n - (1 << bits) if n >> (bits - 1) else n


def legacy_cast(to: exp.DataType) -> Callable[[Value], Value]:
    """Without ANSI mode, what Spark's CAST to ``to`` gives for a value the ANSI cast
    refuses: a number to an integer type is narrowed as Java narrows (a double or float
    saturates at INT, or BIGINT for a BIGINT target, NaN is 0, then the low bits are
    kept; an integer or DECIMAL, truncated, keeps its low bits), anything else is NULL
    (a malformed string, a DECIMAL out of its precision)."""
    kind = _spark_target(to).this
    if kind not in _INTEGRAL:
        return lambda v: None
    bits = 8 * {T.TINYINT: 1, T.SMALLINT: 2, T.INT: 4, T.BIGINT: 8}[kind]
    wide = 64 if bits == 64 else 32

    def narrow(v: Value) -> Value:
        if isinstance(v, float):
            if math.isnan(v):
                return 0
            low, high = -(2 ** (wide - 1)), 2 ** (wide - 1) - 1
            whole = (high if v > 0 else low) if math.isinf(v) else int(v)
            return _wrapped(min(max(whole, low), high), bits)
        if isinstance(v, (int, Decimal)):
            return _wrapped(_wrapped(int(v), 64), bits)
        if isinstance(v, str):  # digits after a point dropped; out of range: NULL
            whole = integer_text(v, drop_fraction=True)
            half = 1 << (bits - 1)
            return whole if whole is not None and -half <= whole < half else None
        return None

    return narrow


def _far_timestamp(v: FarTimestamp, wall_clock: bool) -> datetime | FarTimestamp:
    """A TIMESTAMP or TIMESTAMP_NTZ past Python's years cast to TIMESTAMP_NTZ
    (``wall_clock``: its wall clock in the session zone) or to TIMESTAMP (a wall clock
    read in the session zone)."""
    if (v.zone is None) == wall_clock:
        return v
    if wall_clock:
        return through_cycles(lambda near: near.replace(tzinfo=None), v)
    zone = session_zone() or timezone.utc
    return through_cycles(lambda near: near.replace(tzinfo=zone), v)


def _converter(t: exp.DataType) -> Callable[[Value], Value] | None:
    """A function turning a non-NULL Python value into a value of type ``t`` (raises
    ValueError/TypeError/ArithmeticError when it cannot), or None when ``t`` is unknown."""
    kind = t.this
    if kind in _INTEGRAL:
        bound = _integral_range(kind)

        def to_int(v: Value) -> int:
            if isinstance(v, (datetime, FarTimestamp)):
                v = micros_of(v) // 1_000_000  # whole seconds, rounded down as Spark
            elif isinstance(v, str):
                v = _read(integer_text(v), v)
            if isinstance(v, float) and not math.isfinite(v):
                raise ValueError(v)
            result = int(v)
            if not -bound <= result < bound:
                raise OverflowError(f"{v} is out of range")
            return result

        return to_int
    if kind == T.FLOAT:
        return lambda v: to_float32(_to_double(v))
    if kind in _FRACTIONAL:
        return _to_double
    if kind == T.DECIMAL:
        precision, scale = decimal_params(t) or (10, 0)
        quantum = Decimal(1).scaleb(-scale)
        limit = Decimal(10) ** (precision - scale)

        def to_decimal(v: Value) -> Decimal | None:
            if isinstance(v, (datetime, FarTimestamp)):
                v = _to_double(v)  # Spark goes through the seconds as a double
            if isinstance(v, float):
                if not math.isfinite(v):
                    return None  # Spark's too, ANSI mode or not
                v = repr(v)
            if isinstance(v, str):
                v = _read(decimal_text(v), v)
            with localcontext() as ctx:
                ctx.prec = MAX_PRECISION + 2
                d = unsigned_zero(Decimal(v).quantize(quantum, rounding=ROUND_HALF_UP))
            if d.copy_abs() >= limit:  # abs() would round to the default 28 digits
                raise OverflowError(f"{v} does not fit decimal({precision},{scale})")
            return d

        return to_decimal
    if kind in _STRINGS:
        return _to_string
    if kind == T.BOOLEAN:
        return _to_bool
    if kind == T.DATE:

        def to_date(v: Value) -> date:
            if isinstance(v, (datetime, FarTimestamp)):
                return v.date()  # a TIMESTAMP arrives in the session time zone
            if isinstance(v, (date, FarDate)):
                return v
            return date_of_text(str(v))

        return to_date
    if kind in _TIMESTAMPS:
        wall_clock = kind == T.TIMESTAMPNTZ

        def to_timestamp(v: Value) -> datetime:
            if isinstance(v, FarTimestamp):
                return _far_timestamp(v, wall_clock)
            if isinstance(v, FarDate):  # its midnight (in the session zone)
                zone = None if wall_clock else session_zone() or timezone.utc
                return midnight_of(v, zone)
            if isinstance(v, datetime):
                stamp = v
            elif isinstance(v, date):
                stamp = datetime(v.year, v.month, v.day)
            elif isinstance(v, (int, float, Decimal)) and not isinstance(v, bool):
                return _from_epoch_seconds(v, wall_clock)
            elif wall_clock:
                return ntz_of_text(str(v))
            else:
                return timestamp_of_text(str(v), session_zone())
            if wall_clock:
                # a TIMESTAMP arrives in the session time zone: as TIMESTAMP_NTZ it is
                # that zone's wall-clock time, as Spark's CAST gives it
                return stamp.replace(tzinfo=None, fold=0)
            zone = session_zone()
            if stamp.tzinfo is None and zone is not None:
                # a wall-clock time (a date, TIMESTAMP_NTZ) is read in the session's zone
                stamp = cast_to_timestamp(stamp, zone)
            return stamp

        return to_timestamp
    if kind == T.ARRAY and t.expressions:
        inner = _converter(t.expressions[0])
        if inner is None:
            return None
        return lambda v: [None if x is None else inner(x) for x in v]
    if kind == T.MAP and len(t.expressions) == 2:
        return _map_converter(*t.expressions)
    if kind == T.STRUCT and t.expressions:
        return _struct_converter(t.expressions)
    if kind == T.BINARY:
        return _to_binary
    if kind in (T.NULL, T.MAP, T.STRUCT, T.VARIANT):
        return lambda v: v
    if isinstance(kind, exp.Interval):
        span = day_time_span(t)
        if span is None:
            return _to_interval
        if span[1] == "SECOND":  # seconds keep their fraction
            return _to_interval
        unit = timedelta(microseconds=_FIELD_MICROS[DAY_TIME_FIELDS.index(span[1])])
        return lambda v: _truncated(_to_interval(v), unit)
    return None


def _map_converter(key: exp.DataType, value: exp.DataType) -> Callable[[Value], Value] | None:
    """CAST of a MAP: each key and each non-NULL value converted (``MAP<STRING, STRING>``
    of a ``MAP<STRING, INT>`` holds ``'9'``, not ``9``)."""
    keys, values = _converter(key), _converter(value)
    if keys is None or values is None:
        return None
    return lambda v: {map_key(keys(k)): None if x is None else values(x) for k, x in _items(v)}


def _items(v: Value) -> list[tuple[Value, Value]]:
    return list(v.items()) if isinstance(v, dict) else [tuple(p) for p in v]


def _struct_converter(fields: list[exp.Expression]) -> Callable[[Value], Value] | None:
    """CAST of a STRUCT: field by field in order, each to its target type and name."""
    named = [
        (f.name, _converter(f.args["kind"]))
        for f in fields
        if isinstance(f, exp.ColumnDef) and isinstance(f.args.get("kind"), exp.DataType)
    ]
    if len(named) != len(fields) or any(c is None for _, c in named):
        return None

    def convert(v: Value) -> dict[str, Value]:
        parts = list(v.values()) if isinstance(v, dict) else list(v)
        if len(parts) != len(named):
            raise TypeError(f"{v!r} has {len(parts)} fields, not {len(named)}")
        return {n: None if x is None else c(x) for (n, c), x in zip(named, parts)}  # type: ignore[misc]

    return convert


_MICROS = timedelta(microseconds=1)
_MAX_MICROS = 2**63 - 1


def _to_double(v: Value) -> float:
    """CAST to DOUBLE: a TIMESTAMP is its seconds since the epoch, with their fraction."""
    if isinstance(v, (datetime, FarTimestamp)):
        return micros_of(v) / 1_000_000
    return _read(double_text(v), v) if isinstance(v, str) else float(v)


def _read(number: Any, text: str) -> Any:
    """``number`` read from ``text`` (:mod:`planner.number_text`); ValueError when the
    text is no such number for Spark."""
    if number is None:
        raise ValueError(f"{text!r} is not a number Spark reads")
    return number


def _from_epoch_seconds(
    seconds: int | float | Decimal, wall_clock: bool
) -> datetime | FarTimestamp:
    """CAST of a number to TIMESTAMP: that many seconds after 1970-01-01 UTC, in the
    session's zone (ValueError/OverflowError where Spark's ANSI cast raises: NaN,
    infinities, beyond the microseconds a long holds). Spark casts no number to
    TIMESTAMP_NTZ."""
    if wall_clock:
        raise TypeError("a number does not cast to TIMESTAMP_NTZ")
    if isinstance(seconds, float):
        if not math.isfinite(seconds):
            raise ValueError(seconds)
        micros = int(seconds * 1_000_000)  # Spark: (long) (d * 1e6)
    else:
        micros = int(Decimal(seconds) * 1_000_000)
    if not -_MAX_MICROS - 1 <= micros <= _MAX_MICROS:
        raise OverflowError(f"{seconds} seconds is out of the TIMESTAMP range")
    return timestamp_of_micros(micros, session_zone())  # naive outside a session


def _legacy_string(v: Value) -> str:
    """CAST to STRING without ANSI mode: a DECIMAL as Java's ``BigDecimal.toString``."""
    plain = not isinstance(v, (Decimal, list, tuple))
    return _to_string(v) if plain else to_text(v, plain_decimals=False)


class CastNotComputed(Exception):
    """A cast Spark computes that this evaluator does not: an error in every mode, never
    the NULL of a value that does not convert (it is no ValueError)."""


def _to_binary(v: Value) -> bytes:
    """CAST to BINARY of a string (its UTF-8 bytes, a byte the column could not decode
    restored from its surrogate escape) or of bytes; Spark's bytes of an integer (legacy
    mode) are not computed here."""
    if isinstance(v, (bytes, bytearray)):
        return bytes(v)
    if isinstance(v, str):
        return utf8_bytes(v)
    raise CastNotComputed(
        f"{_shown_value(v)} to BINARY: cast it inside the navigation, where Spark computes it"
    )


def _to_string(v: Value) -> str:
    """CAST to STRING; an interval's text names its fields, which its value does not hold
    (``cast_evaluator`` formats one whose type is known)."""
    if isinstance(v, timedelta):
        raise TypeError("an interval of unknown fields does not cast to STRING here")
    return to_text(v)


_FIELD_MICROS = (86_400_000_000, 3_600_000_000, 60_000_000, 1_000_000)


def interval_text(v: timedelta, start: str, end: str) -> str:
    """A day-time interval of fields ``start`` to ``end`` as Spark's CAST writes it:
    ``INTERVAL '1 01:30:00.5' DAY TO SECOND``, ``INTERVAL '-35' DAY``."""
    micros = v // timedelta(microseconds=1)
    rest = abs(micros)
    first, last = DAY_TIME_FIELDS.index(start), DAY_TIME_FIELDS.index(end)
    parts = []
    for i in range(first, last + 1):
        if DAY_TIME_FIELDS[i] == "SECOND":
            whole, fraction = divmod(rest, 1_000_000)
            text = f"{whole:02d}" + (f".{fraction:06d}".rstrip("0") if fraction else "")
        else:
            value = rest // _FIELD_MICROS[i]
            rest -= value * _FIELD_MICROS[i]
            text = str(value) if DAY_TIME_FIELDS[i] == "DAY" else f"{value:02d}"
        parts.append(text)
    body = (
        (parts[0] + " " + ":".join(parts[1:])) if first == 0 and len(parts) > 1 else ":".join(parts)
    )
    sign = "-" if micros < 0 else ""
    fields = start if start == end else f"{start} TO {end}"
    return f"INTERVAL '{sign}{body}' {fields}"


def _truncated(v: timedelta, unit: timedelta) -> timedelta:
    """A day-time interval cut to whole ``unit``s toward zero, as Spark casts one to a type
    ending at a coarser field (``CAST(d AS INTERVAL HOUR)``)."""
    whole = abs(v) // unit * unit
    return whole if v >= timedelta(0) else -whole


def _to_interval(v: Value) -> timedelta:
    """A day-time interval value (Python's timedelta, as PySpark represents one)."""
    if not isinstance(v, timedelta):
        raise TypeError(f"{v!r} is not an interval")
    return v


def coercer(
    t: exp.DataType, ansi: bool = False, sql: str | None = None, pos: int | None = None
) -> Callable[[Value], Value] | None:
    """How an output value is brought to its declared type (None stays None). An integer
    out of an integral type's range is the result of Python's arithmetic without width
    (``FIRST(i) + 1``): wrapped around as Spark's arithmetic of that type (for ``+ - *``
    the same as wrapping each step), or Spark's ARITHMETIC_OVERFLOW under ANSI mode, at
    the measure (``sql``/``pos``)."""
    convert = _converter(t)
    if convert is None:
        return None
    bits = WIDTHS.get(t.sql("spark").lower()) if t.this in _INTEGRAL else None

    def coerce(v: Value) -> Value:
        if v is None:
            return None
        try:
            return convert(v)
        except (TimestampNotComputed, CastNotComputed) as err:
            raise MatchRuntimeError(f"measure value {err}", sql=sql, pos=pos) from None
        except OverflowError:
            if t.this == exp.DataType.Type.DECIMAL:
                return _decimal_overflow(v, t, ansi, sql, pos)
            if bits is None or type(v) is not int:
                raise MatchRuntimeError(
                    f"measure value {v!r} cannot be represented as {t.sql('spark')}",
                    sql=sql,
                    pos=pos,
                ) from None
            if not ansi:
                return _wrapped(v, bits)
            raise overflow_error(
                f"the measure's value is {v}",
                bits,
                sql or "",
                pos,
                "try_add, try_subtract and try_multiply give NULL instead; with "
                "spark.sql.ansi.enabled=false the value wraps around as in Spark",
            ) from None
        except (ArithmeticError, InvalidOperation) as err:
            if t.this != exp.DataType.Type.DECIMAL:
                raise _unrepresentable(v, t, err, sql, pos) from None
            return _decimal_overflow(v, t, ansi, sql, pos)
        except (ValueError, TypeError) as err:
            raise _unrepresentable(v, t, err, sql, pos) from None

    return coerce


def _decimal_overflow(
    v: Value, t: exp.DataType, ansi: bool, sql: str | None, pos: int | None
) -> None:
    """Spark's answer for a value that DECIMAL type ``t`` cannot hold: NULL without ANSI
    mode, else its NUMERIC_VALUE_OUT_OF_RANGE error."""
    if not ansi:
        return None
    precision, scale = decimal_params(t) or (10, 0)
    raise MatchRuntimeError(
        f"[NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION] {v} cannot be represented as "
        f"Decimal({precision}, {scale}). If necessary set spark.sql.ansi.enabled to "
        "false to bypass this error, and return NULL instead",
        sql=sql,
        pos=pos,
    ) from None


def _unrepresentable(
    v: Value, t: exp.DataType, err: Exception, sql: str | None, pos: int | None
) -> MatchRuntimeError:
    return MatchRuntimeError(
        f"measure value {v!r} cannot be represented as {t.sql('spark')}: {err}",
        sql=sql,
        pos=pos,
    )


# --------------------------------------------------------------------------- compile


@dataclass
class CompiledMeasure:
    """One measure as the table function runs it."""

    alias: str
    type: exp.DataType
    evaluate: RowEval  # atom values of one output row -> value of ``type``
    atom: int | None = None  # the measure is this atom's value as it is


_HINT = "wrap it in CAST(... AS type), or use matchrec.sql"


#: nodes that read a row's values (atoms and columns are Column nodes in a measure's SQL)
_READS_ROWS = (exp.Column, exp.Identifier, exp.Lambda, exp.Star)


class _MeasureCompiler:
    def __init__(
        self,
        plan: MatchPlan,
        text: ast.SqlExpr,
        subqueries: list[str],
        env: TypeEnv,
        subquery_pos: list[int],
    ):
        #: an atom of a collated string type was read: its values compare as collated
        #: strings (matchrec.collated_values), the measure's value is a plain string
        self.collated = False
        self.sql = plan.clause.sql
        self.ansi = plan.program.ansi
        self.pos = text.pos
        self.text = text  # the measure as written, where an error looks for its call
        self.env = env
        self.atom_index = {a.name: i for i, a in enumerate(plan.atoms)}
        self.subqueries = subqueries  # shared by all measures of the plan
        self.bound: dict[str, list[Value]] = {}  # lambda parameters in scope -> their slots
        self.subquery_pos = subquery_pos  # where each subquery's measure starts

    def subquery(self, node: exp.Expression) -> RowEval:
        """An uncorrelated subquery: Spark evaluates it as an extra input column."""
        text = node.sql(dialect=MatchRecognizeDialect)
        if text not in self.subqueries:
            self.subqueries.append(text)
            self.subquery_pos.append(self.pos)
        i = len(self.atom_index) + self.subqueries.index(text)
        return lambda vals: vals[i]

    def constant(self, node: exp.Expression) -> bool:
        """Whether ``node`` reads no row (no column, atom or lambda parameter): Spark then
        computes it once per input row as it computes a subquery, with its own types and
        rules, and the measure reads it at the output row. Non-deterministic calls were
        refused when the query was planned."""
        return not any(isinstance(n, _READS_ROWS) for n in node.walk())

    def holds_year_month_constant(self, node: exp.Expression) -> bool:
        """Whether ``node`` is a constant of another type computed from a YEAR-MONTH
        interval (``DATE'2024-02-29' + INTERVAL 1 MONTH``): PySpark cannot pass the
        interval itself to the table function, so Spark computes the whole constant."""
        if isinstance(node, (exp.Column, exp.Literal)) or not self.constant(node):
            return False
        if is_year_month(infer_type(node, self.env)):
            return False
        return any(
            is_year_month(infer_type(n, self.env))
            for n in node.walk()
            if n is not node and isinstance(n, (exp.Interval, exp.Func))
        )

    def error(self, message: str, hint: str) -> UnsupportedError:
        return UnsupportedError(message, sql=self.sql, pos=self.pos, hint=hint)

    def compile(self, node: exp.Expression) -> RowEval:
        self.refuse_collated_call(node)
        name = bound_name(node) if self.bound else None
        if name in self.bound:
            slot = self.bound[name]
            return lambda vals: slot[0]
        parts = higher_order_parts(node)
        if parts is not None:
            return self.higher_order(*parts)
        if self.holds_year_month_constant(node):
            return self.subquery(node)
        if isinstance(node, exp.Column) and node.table in self.atom_index:
            return self.field(node.table, node.name)  # ``max(info).city``
        if isinstance(node, exp.Column):
            i = self.atom_index.get(node.name)
            if i is None:
                raise self.error(
                    f"column {node.sql()} cannot be read in a MEASURES expression here",
                    "use matchrec.sql",
                )
            fold = self.collation_of(node.name)
            if fold is not None:
                self.collated = True
                return lambda vals: collated([vals[i]], fold)[0]
            t = self.env.column_type(node.name) if self.env is not None else None
            if t is not None and t.this == T.DECIMAL:
                # at Spark's scale of its type (avg of a DECIMAL(12,2) is 9.600000, not 9.60)
                quantum = _quantum(t)
                return lambda vals: at_scale(vals[i], quantum)
            return lambda vals: vals[i]
        if isinstance(node, (exp.Subquery, exp.Exists)):
            return self.subquery(node)
        if isinstance(node, exp.In) and node.args.get("query") is not None:
            raise self.error(
                "the table function cannot evaluate IN (subquery) over match values",
                "apply it inside the navigation, e.g. LAST(x IN (SELECT ...)), or use matchrec.sql",
            )
        if isinstance(node, (exp.Cast, exp.TryCast)):
            return self.cast(node)
        fields = struct_fields(node) if isinstance(node, exp.Struct) else None
        if fields:  # a tuple, which PySpark returns as a struct row, that knows its names
            parts = [self.compile(value) for _, value in fields]
            names = tuple(name for name, _ in fields)
            return lambda vals: StructValue(tuple(part(vals) for part in parts), names)
        moved = self.date_moved(node)
        if moved is not None:
            return moved
        typed = self.typed_call(node)
        if typed is not None:
            return typed
        try:
            width = self.result_width(node)
            child = self.compile if width is None or self.ansi else partial(self.operand, width)
            if isinstance(node, (exp.Concat, exp.DPipe)):
                child = partial(self.as_text, child)
            glue = compile_glue(node, child, self.call_pos, self.sql, self.ansi)  # type: ignore[arg-type]
            glue = self.conformed(node, glue if width is None else self.fitted(width, glue))  # type: ignore[arg-type]
            return self.collating(node, self.scaled(node, glue))
        except UnsupportedError as err:
            if getattr(err, "from_measure", False):  # an inner call's: it names that call
                raise
            if self.constant(node):  # INTERVAL '2' HOUR, make_dt_interval(0, 2): Spark's
                return self.subquery(node)
            name, pos = written_call_at(node, self.text)
            close = closest_function(str(node.this)) if isinstance(node, exp.Anonymous) else None
            if close:  # a misspelled function, not one the glue lacks
                message = (
                    f"{name or str(node.this) + '()'} is no built-in function (did you mean "
                    f"{close}()?), and the table function cannot call the session's functions "
                    "over values from several rows of the match in MEASURES"
                )
                hint = (
                    "check the function's name; a UDF of one row's values goes inside the "
                    "navigation, e.g. LAST(my_udf(x)), or use matchrec.sql"
                )
            else:
                message = (
                    f"the table function cannot evaluate {name or written_name(node)} over "
                    "values from several rows of the match in MEASURES"
                )
                hint = (
                    "apply it inside the navigation, e.g. LAST(upper(x)) rather than "
                    "upper(LAST(x)), or use matchrec.sql"
                )
            error = UnsupportedError(
                message, sql=self.sql, pos=self.pos if pos is None else pos, hint=hint
            )
            error.from_measure = True  # type: ignore[attr-defined]
            raise error from err

    def call_pos(self, node: exp.Expression) -> int:
        """Where call ``node`` is written in the measure (its errors name and point at it),
        else the measure's position."""
        pos = written_call_at(node, self.text)[1]
        return self.pos if pos is None else pos

    def typed_call(self, node: exp.Expression) -> RowEval | None:
        """A call that needs Spark's types of its values, which DEFINE's glue asks the
        runtime for (``planner.expressions``) and the table function infers here: a
        shift (Java's, in the width of its INT or BIGINT result), ``hash`` /
        ``xxhash64`` (each argument hashed by its type) and ``format_string`` (Java
        formats the object Spark holds a value of each type in). None for other nodes."""
        shift, typed = shift_name(node), typed_name(node)
        if shift is None and typed is None:
            return None
        where = self.call_pos
        if shift is not None:
            t = infer_type(node, self.env)
            bits = WIDTHS.get(t.sql("spark").lower()) if t is not None else None
            if bits not in (32, 64):
                raise self.error(
                    f"cannot infer the INT or BIGINT width of {written_name(node)} for the "
                    "table function",
                    _HINT,
                )
            fn = SHIFTS[shift]

            def shifted(a: Value, n: Value) -> Value:
                return None if a is None or n is None else fn(a, n, bits)

            casts = (shift, self.ansi)
            return glue_function_call(
                node, shifted, shift_args(node), self.compile, where, self.sql, casts, strict=True
            )  # type: ignore[arg-type]
        return typed_call(
            node,
            self.env,
            self.compile,
            where,
            self.sql,
            self.ansi,
            lambda message: self.error(message + " for the table function", _HINT),
        )

    def date_moved(self, node: exp.Expression) -> RowEval | None:
        """A DATE plus or minus a day-time interval that Spark types TIMESTAMP (the
        interval has hours, minutes or seconds): ``datetime_steps.moved_midnight``, a TIMESTAMP
        for whole days too (the glue keeps a DATE for those). None for other nodes."""
        if not isinstance(node, (exp.Add, exp.Sub)):
            return None
        t = infer_type(node, self.env)
        if t is None or t.this not in _TIMESTAMPS:
            return None
        operands = [node.this, node.expression]
        types = [infer_type(o, self.env) for o in operands]
        if isinstance(node, exp.Add) and types[1] is not None and types[1].this == T.DATE:
            operands.reverse()
            types.reverse()
        if types[0] is None or types[0].this != T.DATE or not is_day_time(types[1]):
            return None
        day, interval = (self.compile(o) for o in operands)
        sign = -1 if isinstance(node, exp.Sub) else 1

        def evaluate(vals: Sequence[Value]) -> Value:
            d, by = day(vals), interval(vals)
            return None if d is None or by is None else moved_midnight(d, sign * by)

        return evaluate

    def result_width(self, node: exp.Expression) -> IntegerWidth | None:
        """Spark's type of an arithmetic operator's result, where the glue fits results
        to it as DEFINE's does (``matchrec.integer_width``): an integer out of its width
        wraps around, or under ANSI mode is Spark's overflow error; a DECIMAL is rounded
        to its scale; a FLOAT to single precision. (The measure's type fits only its
        final value: ``A.t * A.t`` of a TINYINT is a TINYINT in Spark, wrapped, not a
        wider number.) None for other nodes and other types."""
        remainder = scaled_call(node)
        fitted = type(node) in INTEGER_OPERATORS or remainder is not None
        t = infer_type(node, self.env) if fitted else None
        if t is None:
            return None
        width = IntegerWidth(
            self.text.text,
            self.text.text,
            self.sql,
            self.pos,
            self.ansi,
            null_on_overflow=null_on_overflow(node),
            binary_operator=type(node) in BINARY_OPERATORS,
        )
        width.set_type(t.sql("spark").lower())
        return None if width.bits is None and width.decimal is None and not width.single else width

    @staticmethod
    def fitted(width: IntegerWidth, evaluate: RowEval) -> RowEval:
        return lambda vals: width.fit(evaluate(vals))

    def operand(self, width: IntegerWidth, node: exp.Expression) -> RowEval:
        """An operand of an operator of ``width``, read as Spark reads it (an integer in
        a FLOAT result is cast to FLOAT first)."""
        evaluate = self.compile(node)
        return lambda vals: width.operand(evaluate(vals))

    def conformed(self, node: exp.Expression, evaluate: RowEval) -> RowEval:
        """``evaluate`` of a conditional (an array, ...) whose results are cast to Spark's
        common type of its operands (``planner.implicit_casts``), where it is known."""
        if not isinstance(node, COERCING) or (node.meta.get(DECODED) and not self.ansi):
            return evaluate
        t = infer_type(node, self.env)
        convert = None
        if t is not None:
            convert = implicit_cast(
                t.sql("spark").lower(), ansi=self.ansi, sql=self.sql, pos=self.pos
            )
        return evaluate if convert is None else lambda vals: convert(evaluate(vals))

    def scaled(self, node: exp.Expression, evaluate: RowEval) -> RowEval:
        """``evaluate`` of arithmetic whose Spark type is a DECIMAL, its results at that
        type's scale (``FIRST(d) / 4`` of a DECIMAL(12,2) is a DECIMAL(16,6): 2.057500,
        where Python's division gives as many digits as its context holds)."""
        quantum = decimal_quantum(node, self.env) if self.env is not None else None
        if quantum is None:
            return evaluate
        return lambda vals: at_scale(evaluate(vals), quantum)

    def collating(self, node: exp.Expression, evaluate: RowEval) -> RowEval:
        """``evaluate`` whose string results compare under the collation of ``node``'s
        type, if it is a collated string (``upper(LAST(s))`` of a collated ``s``: Python's
        upper gives a plain string)."""
        if not isinstance(node, _COLLATION_KEEPING) or self.env is None:
            return evaluate
        t = infer_type(node, self.env)
        fold = self.folding(t.meta.get(COLLATION) if t is not None else None)
        if fold is None:
            return evaluate
        self.collated = True
        return lambda vals: collated([evaluate(vals)], fold)[0]

    def collation_of(self, atom: str) -> Callable[[str], str] | None:
        """The folding under which the values of ``atom`` compare, if its type is a
        collated string (Spark compares, groups and orders those by their collation)."""
        t = self.env.column_type(atom) if self.env is not None else None
        return self.folding(t.meta.get(COLLATION) if t is not None else None)

    def folding(self, collation: str | None) -> Callable[[str], str] | None:
        """How strings of ``collation`` compare (None: by their characters); an error
        for a collation the evaluator does not have (UNICODE_CI, de_CI), which it would
        otherwise compare as UTF8_BINARY."""
        if not collation or collation.upper() == "UTF8_BINARY":
            return None
        fold = collation_fold(collation)
        if fold is None:
            error = self.error(
                f"strings of collation {collation} compare as that collation says in "
                "Spark; the table function's evaluator has UTF8_BINARY and UTF8_LCASE "
                "(and their _RTRIM forms) only",
                "use matchrec.sql, whose MEASURES Spark computes",
            )
            error.from_measure = True  # type: ignore[attr-defined]  # (it names the cause)
            raise error
        return fold

    def refuse_collated_call(self, node: exp.Expression) -> None:
        """A call computed under its strings' collation (``contains``, ``LIKE``) of a
        collated string: refused (``planner.collation_calls``)."""
        if self.env is None or not collation_sensitive(node):
            return
        for arg in node.iter_expressions():
            t = infer_type(arg, self.env)
            if t is not None and collation_of(type_name(t)):
                name, pos = written_call_at(node, self.text)
                error = UnsupportedError(
                    collation_refusal(name or written_name(node)),
                    sql=self.sql,
                    pos=self.pos if pos is None else pos,
                    hint="use matchrec.sql, whose MEASURES Spark computes",
                )
                error.from_measure = True  # type: ignore[attr-defined]
                raise error

    def higher_order(
        self, kind: str, args: list[exp.Expression], lambdas: list[exp.Lambda]
    ) -> RowEval:
        """A higher-order function of match values (``aggregate(collect_list(x), 0D,
        (acc, v) -> acc + v)``): the glue's, each lambda's body compiled with its
        parameters read from slots the function fills."""
        spec = HIGHER_ORDER[kind]
        values = [self.compile(a) for a in args]
        bodies, slots = [], []
        for lam in lambdas:  # (their parameters counted by the planner's checks)
            params = [p.name.lower() for p in lam.expressions]
            lam_slots: list[list[Value]] = [[None] for _ in params]
            outer = {p: self.bound[p] for p in params if p in self.bound}
            self.bound.update(zip(params, lam_slots))
            env = self.env
            self.env = _with_parameters(env, params, lambda_parameter_types(kind, args, env))
            try:
                bodies.append(self.compile(lam.this))
                if kind in ("AGGREGATE", "REDUCE") and not bodies[1:]:
                    self._check_merge_type(kind, args, lam, env)
                self._check_body_type(kind, lam)
            finally:
                self.env = env
                for p in params:
                    del self.bound[p]
                self.bound.update(outer)
            slots.append(lam_slots)
        return spec.evaluator(kind, values, bodies, slots, self.sql, self.pos)  # type: ignore[return-value]

    def _check_body_type(self, kind: str, lam: exp.Lambda) -> None:
        """Spark's refusal of a lambda whose type its function does not take (a filter's
        non-BOOLEAN predicate, an array_sort comparator that is no INT): computed here, the
        predicate's truth or the comparator's sign would give an answer Spark refuses."""
        wanted = _LAMBDA_RESULTS.get(kind)
        got = infer_type(lam.this, self.env) if wanted and self.env is not None else None
        if got is None or got.this in (T.NULL, wanted):
            return
        raise SemanticError(
            f"the lambda function of {kind.lower()}() returns {got.sql('spark').upper()}, "
            f"but {kind.lower()}() requires {wanted.value} (Spark's DATATYPE_MISMATCH)",
            sql=self.sql,
            pos=self.pos,
            hint=f"make the lambda's body a {wanted.value}"
            + (", e.g. CAST(... AS INT) or signum(...)" if wanted == T.INT else ""),
        )

    def _check_merge_type(
        self, kind: str, args: list[exp.Expression], merge: exp.Lambda, outer: TypeEnv | None
    ) -> None:
        """Spark's refusal of an ``aggregate`` whose merge function's type is not its start
        value's (``aggregate(array_agg(amount), 0, (acc, x) -> acc + x)`` of DECIMALs):
        folded here, the sum would be cut to the INT the start value types it as."""
        zero = infer_type(args[1], outer) if len(args) > 1 and outer is not None else None
        merged = infer_type(merge.this, self.env) if self.env is not None else None
        if zero is None or merged is None or zero == merged:
            return
        if {zero.this, merged.this} & {T.STRUCT, T.ARRAY, T.MAP}:
            return  # Spark compares nested types without their fields' names: not here
        start, result = zero.sql("spark").upper(), merged.sql("spark").upper()
        shown = args[1].sql("spark")
        shown = "..." if "__mr_" in shown else shown  # (a navigation, as our column)
        raise SemanticError(
            f"{kind.lower()}()'s merge function returns {result}, but its start value is "
            f"{start}: Spark requires one type for both (DATATYPE_MISMATCH)",
            sql=self.sql,
            pos=self.pos,
            hint=f"write the start value as a {result}, e.g. CAST({shown} AS {result})",
        )

    def field(self, atom: str, name: str) -> RowEval:
        """Field ``name`` of a struct atom (a PySpark Row or a dict; Spark matches field
        names without case); of a map atom (``max_by(m, t).k``), Spark's ``m['k']``: the
        key as written, NULL where it is missing."""
        i = self.atom_index[atom]
        wanted = name.lower()
        t = self.env.column_type(atom) if self.env is not None else None
        if t is not None and t.this == T.MAP:
            return lambda vals: None if vals[i] is None else dict(vals[i]).get(name)

        def read(vals: Sequence[Value]) -> Value:
            value = vals[i]
            if value is None:
                return None
            fields = value.asDict() if hasattr(value, "asDict") else value
            return next((v for k, v in fields.items() if k.lower() == wanted), None)

        return read

    def as_text(
        self, compile_operand: Callable[[exp.Expression], Any], node: exp.Expression
    ) -> Any:
        """An operand of ``concat`` or ``||``, which Spark casts to STRING: a day-time
        interval is written with the fields of its type (``INTERVAL '61 13:45:30' DAY TO
        SECOND``), as its CAST writes it."""
        evaluate = compile_operand(node)
        t = infer_type(node, self.env) if self.env is not None else None
        span = day_time_span(t) if t is not None else None
        if span is None:
            return evaluate

        def written(vals: Any) -> Value:
            v = evaluate(vals)
            return interval_text(v, *span) if isinstance(v, timedelta) else v

        return written

    def cast(self, node: exp.Cast | exp.TryCast) -> RowEval:
        source = infer_type(node.this, self.env)
        evaluate = cast_evaluator(node, self.compile, self.ansi, self.sql, self.pos, source=source)
        if evaluate is None:
            raise self.error(f"CAST to {node.to.sql('spark')} is not supported here", _HINT)
        return evaluate


def written_name(node: exp.Expression) -> str:
    """How the user wrote call ``node``: ``map()``, ``format_string()``, ``bround()``
    (never sqlglot's class names such as VARMAP or ANONYMOUS)."""
    if isinstance(node, exp.Anonymous):
        return f"{user_call_name(node.name)}()"
    if isinstance(node, exp.Func):
        text = node.sql(dialect="spark")
        name = text.split("(", 1)[0].strip()
        if name.replace("_", "").isalnum():
            return f"{name.lower()}()"
    if isinstance(node, (exp.Binary, exp.Unary)):
        return f"operator {node.key.upper()}"
    text = node.sql(dialect="spark")
    head = _CALL_START.match(text)  # a call that is no Func node (from_utc_timestamp)
    if head and not head.group(1).startswith("__mr_"):
        return f"{head.group(1).lower()}()"
    if "__mr_" in text:  # it holds a navigation or aggregate, as our column: not as written
        return "a tuple (..., ...)" if isinstance(node, exp.Tuple) else "this expression"
    return repr(text if len(text) <= 40 else text[:37] + "...")


_CALL_START = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(")


def written_call_at(node: exp.Expression, text: ast.SqlExpr) -> tuple[str | None, int | None]:
    """The name (``timestampadd()``) and position of the call in measure ``text`` that
    parsed to a node of ``node``'s class, or (None, None): the measure's lowered SQL
    holds sqlglot's spelling (``date_add`` for ``timestampadd``) and no positions."""
    calls = isinstance(node, (exp.Func, exp.Binary))  # shiftleft(a, b) is a Binary node
    if not calls and not _CALL_START.match(node.sql(dialect="spark")):
        return None, None
    for found in _CALL_START.finditer(text.text):
        call = written_call(text.text, found.start())
        if call is None:
            continue
        try:
            parsed = sqlglot.parse_one(call, read=MatchRecognizeDialect)
        except Exception:  # noqa: BLE001 - a text the dialect does not read (sqlglot may
            continue  # fail on it with other errors than its own) is not the call
        if type(parsed) is type(node) and (
            not isinstance(node, exp.Anonymous) or parsed.name.lower() == node.name.lower()
        ):
            return f"{found.group(1).lower()}()", text.pos + found.start()
    return None, None


def type_env(plan: MatchPlan, columns: Mapping[str, exp.DataType]) -> TypeEnv:
    """The typing environment of ``plan`` over input columns of the given types."""
    return TypeEnv(
        columns={k.lower(): v for k, v in columns.items()},
        precomputed=dict(plan.precomputed),
        probes={a.name: a.probe for a in plan.atoms},
        ansi=plan.program.ansi,
    )


@dataclass
class CompiledMeasures:
    """The measures of a plan as the table function runs them.

    Each measure's ``evaluate`` takes the atom values of one output row followed by the
    values of ``subqueries`` (uncorrelated subqueries of MEASURES, Spark SQL that the
    table function has Spark evaluate as extra input columns).
    """

    measures: list[CompiledMeasure]
    subqueries: list[str]
    #: where each subquery's measure starts in the clause (by the subquery's place)
    subquery_pos: list[int] = field(default_factory=list)


def compile_measures(plan: MatchPlan, columns: Mapping[str, exp.DataType]) -> CompiledMeasures:
    """Compile and type every measure of ``plan``; ``columns`` maps input columns to types."""
    env = type_env(plan, columns)
    result = CompiledMeasures([], [])
    for measure, (alias, text) in zip(plan.clause.measures, plan.measures):
        pos = measure.expr.pos
        compiler = _MeasureCompiler(plan, measure.expr, result.subqueries, env, result.subquery_pos)
        tree = string_coerced(struct_subscripts(_parse(text), env), env)
        missing = _missing_field(tree, env)
        if missing is not None:
            raise SemanticError(
                f"measure {alias!r}: {missing}",
                sql=plan.clause.sql,
                pos=pos,
                hint="Spark matches a field's name without case; check its spelling",
            )
        evaluate = compiler.compile(tree)
        if compiler.collated:
            evaluate = _plain_result(evaluate)
        t = infer_type(tree, env)
        coerce = coercer(t, plan.program.ansi, plan.clause.sql, pos) if t is not None else None
        if t is None or coerce is None:
            unknown = _untyped_call(tree, env, measure.expr.text) if t is None else None
            why = ""
            if unknown and is_internal(unknown):
                why = f": {user_call_name(unknown)}() of values from several rows"
            elif unknown:
                why = ": " + _unknown_call(unknown)
            elif tree.find(exp.Subquery) is not None:
                why = ": a scalar subquery's type (it has no session to ask Spark)"
            raise UnsupportedError(
                f"cannot infer the Spark type of measure {alias!r} for the table function{why}",
                sql=plan.clause.sql,
                pos=pos,
                hint=_HINT,
            )
        bare = isinstance(tree, exp.Column) and not tree.table
        atom = compiler.atom_index.get(tree.name) if bare else None
        result.measures.append(CompiledMeasure(alias, t, _chain(evaluate, coerce), atom))
    return result


#: names a call may have: sqlglot's Spark functions and the clause's own
_KNOWN_CALLS = sorted(
    {
        *Spark.Parser.FUNCTIONS,
        *SPARK_FUNCTIONS,
        *typed_call_names(),
        *EXTENDED,
        *TYPED_CALLS,
        *ROW_PATTERN_CALLS,
    }
)


def closest_function(name: str) -> str | None:
    """The built-in function (or row pattern function) whose name ``name`` misspells
    (``cout`` -> ``count``), in lower case; None for a known name or none close."""
    if name.upper() in _KNOWN_CALLS:
        return None
    close = difflib.get_close_matches(name.upper(), _SUGGESTED, n=1, cutoff=0.8)
    return close[0].lower() if close else None


#: the names a misspelling is matched to: Spark's functions and the row pattern functions
#: (not matchrec's own ``__MR_...`` nor sqlglot's names of other dialects' functions)
_SUGGESTED = sorted(SPARK_FUNCTIONS | ROW_PATTERN_CALLS)


def _unknown_call(name: str) -> str:
    """Why the table function has no type for a call of ``name``: a misspelled function
    (``matchnumber()``: did you mean match_number()?) or a UDF."""
    if name.upper() in _KNOWN_CALLS:
        return f"{name}() is a function whose result type it does not know"
    close = closest_function(name)
    if close:
        return (
            f"{name}() is no built-in function: did you mean {close}()? (a UDF's type it "
            "cannot know)"
        )
    return f"{name}() is no function it knows the type of (a UDF?)"


def _untyped_call(tree: exp.Expression, env: TypeEnv, written: str) -> str | None:
    """The name of the innermost call of ``tree`` (or of the atoms and row-local columns
    it reads) that the table function has no type for though its arguments have one: a
    UDF, usually, named in the error so that the user knows what to CAST. A call the
    measure as ``written`` names comes first (a row-local column of ``f(FIRST(A.x))``
    also holds A's condition, which may call another UDF)."""
    found = [
        str(node.this).lower()
        for node in _read_nodes(tree, env)
        if isinstance(node, exp.Anonymous)
        and infer_type(node, env) is None
        and all(infer_type(a, env) is not None for a in node.expressions)
    ]
    named = [name for name in found if re.search(rf"\b{re.escape(name)}\s*\(", written, re.I)]
    return (named or found or [None])[0]


def _read_nodes(tree: exp.Expression, env: TypeEnv, depth: int = 0) -> Iterator[exp.Expression]:
    """The nodes of ``tree`` innermost first, each atom or row-local column preceded by
    the nodes of the Spark SQL it stands for (its probe, its expression)."""
    for node in reversed(list(tree.walk())):
        text = env.probes.get(node.name) or env.precomputed.get(node.name)
        if isinstance(node, exp.Column) and text and depth < 8:
            try:
                inner = _parse(text)
            except sqlglot.errors.SqlglotError:
                continue
            yield from _read_nodes(inner, env, depth + 1)
        yield node


def _missing_field(tree: exp.Expression, env: TypeEnv) -> str | None:
    """Why a struct field ``tree`` (or an atom or row-local column it reads) names is not
    there (``utm.campain`` of a struct without that field): the user's typo, which a
    CAST would not mend."""
    for node in _read_nodes(tree, env):
        if not isinstance(node, exp.Column) or not node.table:
            continue
        first, *fields = [part.name for part in node.parts]
        if binding_lambda(node, first.lower()) is not None:
            continue  # a field of a lambda's parameter (f -> f.qty)
        t = env.column_type(first)
        for name in fields:
            inner = field_type(t, name)
            if inner is None and t is not None and t.this == T.STRUCT:
                names = [f.name for f in t.expressions if isinstance(f, exp.ColumnDef)]
                return f"{first} has no field {name} (its fields: {', '.join(names)})"
            first, t = f"{first}.{name}", inner
    return None


def type_integer_widths(plan: MatchPlan, columns: Mapping[str, exp.DataType]) -> None:
    """Set the width of each integer operator of DEFINE's glue from its type inferred
    here (the table function has no DataFrame to ask Spark with); one whose type is not
    known keeps Python's unbounded integers, a call that needs its arguments' types
    (``hash``, a shift) is refused when one is not known."""
    env = type_env(plan, columns)
    for width in plan.integer_widths:
        t = infer_type(_parse(width.probe), env)
        if t is not None and t.meta.get(COLLATION):  # a comparison of collated strings
            width.set_type(f"string collate {t.meta[COLLATION]}")
        elif t is not None:
            width.set_type(t.sql("spark").lower())
    check_types_known(plan.integer_widths)


def _plain_result(evaluate: RowEval) -> RowEval:
    return lambda vals: plain(evaluate(vals))


def _chain(evaluate: RowEval, coerce: Callable[[Value], Value]) -> RowEval:
    return lambda vals: coerce(evaluate(vals))


def check_operand_types(plan: MatchPlan, columns: Mapping[str, exp.DataType]) -> None:
    """Raise the first failing type check of DEFINE then MEASURES (``plan.define_checks``,
    ``plan.measure_checks``: operand mixes, a condition that is not BOOLEAN) with the
    types inferred here, under the ANSI setting the plan was made with; a check with an
    operand of unknown type is skipped (the batch doors ask Spark instead)."""
    env = type_env(plan, columns)
    labels = {label.name.lower() for label in primary_labels(plan.clause.pattern)}
    labels |= {s.name.lower() for s in plan.clause.subsets}
    for check in [*in_spark_order(plan.define_checks), *in_spark_order(plan.measure_checks)]:
        types = [_probe_type(o.probe, env, labels) for o in check.operands]
        if any(t is None for t in types):
            continue
        error = mismatch(
            check, [_simple_name(t) for t in types], plan.program.ansi, plan.clause.sql
        )
        if error is not None:
            raise error


def _probe_type(probe: str, env: TypeEnv, labels: Collection[str] = ()) -> exp.DataType | None:
    """The type of a DEFINE check's probe; an aggregate there runs over a window (``max(v)
    OVER ()``), which has the aggregate's type, and PREV/NEXT's ``LAG``/``LEAD`` without
    a default has its value's. A column qualified by one of ``labels`` (``B.m`` in an
    aggregate's argument) is the input column's."""

    def navigated(n: exp.Expression) -> exp.Expression:
        if isinstance(n, (exp.Lag, exp.Lead)) and n.args.get("default") is None:
            return n.this
        if isinstance(n, exp.Column) and n.table and n.parts[0].name.lower() in labels:
            return exp.column(n.name) if len(n.parts) == 2 else _unlabelled(n)
        return n

    try:
        tree = (
            _parse(probe)
            .transform(lambda n: n.this if isinstance(n, exp.Window) else n, copy=False)
            .transform(navigated, copy=False)
        )
        return infer_type(tree, env)
    except sqlglot.errors.SqlglotError:
        return None


def _unlabelled(column: exp.Column) -> exp.Expression:
    """``B.info.city`` as ``info.city``: a field of the input column, not of ``B``."""
    parts = [p.copy() for p in column.parts[1:]]
    return exp.Column(this=parts[-1], table=parts[-2], db=parts[-3] if len(parts) > 2 else None)


def _simple_name(t: exp.DataType) -> str:
    """Spark's simple type name of ``t`` (``void`` for NULL's type)."""
    return type_name(t)
