"""Operand type checks that catch, when the query is built, what would fail while it runs.

Spark analyses ``symbol < PREV(price)`` (STRING against DOUBLE) without complaint and
inserts a cast of the string; under ANSI mode the job then fails on the first string that
is not a number with ``CAST_INVALID_INPUT`` about our generated column names. Glue that
DEFINE evaluates per match in Python does not convert strings at all. So for each
comparison, arithmetic operator, BETWEEN and IN of DEFINE and MEASURES the planner
records its operands as Spark SQL of the same type (:class:`TypeCheck`), and the runtime
asks Spark for their types (analysis only, no job) and reports a mix of a string with a
non-string as a positioned error naming what the user wrote (:func:`mismatch`).

Rules (Spark's types, never guessed here):

* a string operand against a number, date, timestamp, boolean or interval is an error
  when ``spark.sql.ansi.enabled`` is true, unless the string is a literal (Spark checks
  a literal's cast when it analyses the query, so ``price > '10'`` is fine);
* in the match-dependent part of DEFINE (evaluated in Python) it is an error whatever
  the mode, literal or not: Python does not convert between strings and numbers.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache

import sqlglot
from sqlglot import errors as sqlglot_errors
from sqlglot import exp

from matchrec.errors import SemanticError
from matchrec.moments import STATISTICS

from .collation_calls import collation_of
from .element_types import ELEMENT_RULES, element_refusal
from .function_types import key
from .glue_functions import ARITHMETIC, COMPARISONS
from .java_format import conversion_error
from .pair_types import PAIR_REFUSALS, pair_refusal
from .pyeval import OPERATORS, call_args
from .sequence_types import sequence_refusal
from .sqltext import (
    ROW_PATTERN_CALLS,
    STANDS_FOR,
    MatchRecognizeDialect,
    node_pos,
    written_call,
    written_reading,
    written_text,
)
from .subscript_types import INTEGRAL, map_key_taken
from .typed_calls import TYPED_CALLS, read_any_collation, typed_args, typed_name
from .unary_types import UNARY_REFUSALS, unary_refusal

# operator node -> how it is written, for messages (the glue's spellings, and <=>)
CHECKED: dict[type, str] = {
    **{node: OPERATORS[node] for node in COMPARISONS if node in OPERATORS},
    exp.NullSafeEQ: "<=>",
    exp.NullSafeNEQ: "IS DISTINCT FROM",
    exp.EqualNull: "equal_null",  # <=> written as a function
    **{node: OPERATORS[node] for node in ARITHMETIC},
    exp.Between: "BETWEEN",
    exp.In: "IN",
    exp.Nullif: "nullif",  # compares its operands: nullif(s, 0) casts s as s = 0 does
    # operands that must be BOOLEAN (:func:`_not_boolean_operand`)
    exp.And: "AND",
    exp.Or: "OR",
    exp.Not: "NOT",
}
_LOGICAL = ("AND", "OR", "NOT")
#: the operators whose string literal operand DEFINE's glue casts to the others' type
_LITERAL_CASTS = (*(CHECKED[n] for n in COMPARISONS), "IN", "BETWEEN")
#: operands a BOOLEAN by their form (checked themselves where they have operands)
_BOOLEAN_NODES = (exp.And, exp.Or, exp.Not, exp.Predicate, exp.Boolean)


@dataclass(frozen=True)
class Operand:
    probe: str  # Spark SQL with the operand's type, over the frame the check runs on
    written: str | DeferredText  # the operand as the user wrote it
    pos: int  # offset of the operand in the query
    literal: bool  # a string literal

    @property
    def text(self) -> str:
        """The operand as the user wrote it (clipped)."""
        return str(self.written)


class DeferredText:
    """An operand's text as :func:`user_text` gives it, found when first shown: only a
    failing check's message shows it, and finding it reads the operand back (a parse)."""

    def __init__(self, reading: Callable[[], str | None] | None, fallback: str, limit: int):
        self._reading, self._fallback, self._limit = reading, fallback, limit
        self._text: str | None = None

    def __str__(self) -> str:
        if self._text is None:
            written = self._reading() if self._reading is not None else None
            self._text = _clipped(written or self._fallback, self._limit)
        return self._text

    def __eq__(self, other: object) -> bool:
        return str(self) == str(other) if isinstance(other, (str, DeferredText)) else False

    def __hash__(self) -> int:
        return hash(str(self))

    def __reduce__(self) -> tuple:
        return (str, (str(self),))


@dataclass(frozen=True)
class TypeCheck:
    """The operands of one operator; ``glue``: evaluated in Python during matching."""

    operator: str
    operands: tuple[Operand, ...]
    glue: bool
    clause: str  # DEFINE or MEASURES
    #: format_string/printf: its literal pattern (the first operand), whose conversions
    #: are checked against the types of the others (:func:`_format_mismatch`)
    pattern: str | None = None
    #: an array function's rule of its value's type beside its elements
    #: (:data:`planner.element_types.ELEMENT_RULES`)
    elements: str | None = None
    #: a built-in called with one argument, the only operand: its name as written
    #: (:data:`planner.unary_types.UNARY_REFUSALS`)
    unary: str | None = None
    #: a built-in called with two arguments, the operands: its name as written
    #: (:data:`planner.pair_types.PAIR_REFUSALS`); ``late``: its call has a check of its
    #: own too, whose message says more and comes first
    pair: str | None = None
    late: bool = False
    #: a comparison whose strings DEFINE's glue casts to the other operands' type, as
    #: Spark does without ANSI mode (``Lowering.compares_strings``)
    casts_strings: bool = False


#: the operator of a check that a function's arguments hold no MAP (then its name)
MAP_ARGUMENT = "map argument of"
_ORDERS = "INVALID_ORDERING_TYPE"
_HASHES = "HASH_MAP_TYPE"
_SETS = "UNSUPPORTED_INPUT_TYPE"
#: calls whose arguments (those of the slice) Spark refuses when a MAP is in their type,
#: when it analyses the query, by its condition: it orders, equates or hashes no MAP
#: values (the same entries in another order are the same map). By the call's key
#: (``function_types.key``: sqlglot's class, or an unknown call's upper-case name).
_NO_MAPS: dict[str, tuple[slice, str]] = {
    **dict.fromkeys(["Max", "Min", "ArrayMax", "ArrayMin", "ArrayDistinct"], (slice(1), _ORDERS)),
    **dict.fromkeys(["ArraySort"], (slice(1), _ORDERS)),  # with a comparator: the lambda's
    **dict.fromkeys(["ArgMax", "ArgMin"], (slice(1, 2), _ORDERS)),  # what orders
    **dict.fromkeys(["Greatest", "Least"], (slice(None), _ORDERS)),
    **dict.fromkeys(
        ["ARRAY_UNION", "ArrayIntersect", "ArrayExcept", "ARRAYS_OVERLAP"], (slice(2), _ORDERS)
    ),
    **dict.fromkeys(["ArrayPosition", "ArrayContains", "ArrayRemove"], (slice(2), _ORDERS)),
    **dict.fromkeys(["HASH", "XXHASH64"], (slice(None), _HASHES)),
    "ArrayUniqueAgg": (slice(1), _SETS),  # collect_set
}


def _map_checked(node: exp.Expression) -> tuple[str, list[exp.Expression]] | None:
    """For a call of :data:`_NO_MAPS`: its Spark condition and the arguments checked."""
    name = type(node).__name__ if not isinstance(node, exp.Anonymous) else node.name.upper()
    entry = _NO_MAPS.get(name)
    if entry is None:
        return None
    every = call_args(node)
    args = [a for a in every if not isinstance(a, exp.Lambda)]
    if isinstance(node, exp.ArraySort) and len(args) < len(every):
        return None  # array_sort(a, (x, y) -> ...) orders by its comparator
    which, condition = entry
    values = [v for a in args for v in (a.expressions if isinstance(a, exp.Distinct) else [a])]
    return (condition, values[which]) if values[which] else None


#: the operator of a check that a call's count or position is an INT (then its name)
INT_ARGUMENT = "INT argument of"


def _days(days: exp.Expression | None) -> list[exp.Expression] | None:
    """date_add's day count; date_sub's, which sqlglot holds as ``n * -1``."""
    if isinstance(days, exp.Mul) and isinstance(days.expression, exp.Neg):
        return [days.this]
    return [days] if days is not None else None


def _element_at(node: exp.Expression) -> list[exp.Expression] | None:
    """element_at's and try_element_at's collection and position (a subscript ``a[i]``
    takes any integer)."""
    if node.args.get("offset") != 1 or len(node.expressions) != 1:
        return None
    return [node.this, node.expressions[0]]


#: calls of which Spark takes a count or position as an INT, SMALLINT or TINYINT only: no
#: implicit cast from a BIGINT, DECIMAL or DOUBLE, ANSI mode or not (DATATYPE_MISMATCH
#: when it analyses the call), by ``function_types.key``: the checked operands, the last
#: one the number (a MAP's element_at takes a key of the map's type instead)
_INT_ONLY: dict[str, Callable[[exp.Expression], list[exp.Expression] | None]] = {
    "TsOrDsAdd": lambda n: _days(n.expression),
    "__MR_DAYS_ADD": lambda n: _days(n.expressions[1]) if len(n.expressions) == 2 else None,
    "ArrayInsert": lambda n: [n.args["position"]] if n.args.get("position") else None,
    "ARRAY_REPEAT": lambda n: n.expressions[1:2] or None,
    "FORMAT_NUMBER": lambda n: n.expressions[1:2] or None,
    "Bracket": _element_at,
}


def _int_only(node: exp.Expression) -> list[exp.Expression] | None:
    name = node.name.upper() if isinstance(node, exp.Anonymous) else type(node).__name__
    rule = _INT_ONLY.get(name)
    return rule(node) if rule is not None else None


#: the operator of a check of a ``sequence``'s argument types
SEQUENCE_ARGUMENTS = "arguments of sequence"
#: the operator of a check of a one-argument call's argument type alone
UNARY = "argument of"
#: the operator of a check of a two-argument call's argument types
PAIR = "arguments of"
#: the operator of a check of a value beside a collection's elements (then its name)
ELEMENT_ARGUMENT = "element argument of"
#: the operator of a check of a subscript's collection and index (:mod:`subscript_types`)
SUBSCRIPT = "subscript"
#: the operator of a check that listagg's values and separator are of one type (then
#: the call's name as written)
JOINED = "values and separator of"


def _joined(node: exp.Expression) -> list[exp.Expression] | None:
    """The values and the separator of ``listagg``/``string_agg`` call ``node`` (None
    without a separator: Spark's default one takes the values' type)."""
    if not isinstance(node, exp.GroupConcat) or node.args.get("separator") is None:
        return None
    value = node.this
    while isinstance(value, (exp.Distinct, exp.Order)):
        if isinstance(value, exp.Order):
            value = value.this
        elif len(value.expressions) == 1:
            value = value.expressions[0]
        else:
            return None
    return None if value is None else [value, node.args["separator"]]


def _subscript(node: exp.Expression) -> list[exp.Expression] | None:
    """A subscript's collection and index (``a[i]``, ``m[k]``), not element_at's."""
    if not isinstance(node, exp.Bracket) or node.args.get("offset") or node.args.get("safe"):
        return None
    return [node.this, node.expressions[0]] if len(node.expressions) == 1 else None


def operands_of(node: exp.Expression) -> list[exp.Expression] | None:
    """The value operands of a checked operator node, or None for other nodes."""
    if isinstance(node, exp.GenerateSeries):
        step = node.args.get("step")
        return [node.args["start"], node.args["end"], *([step] if step is not None else [])]
    mapped = _map_checked(node)
    if mapped is not None:
        return mapped[1]
    counted = _int_only(node) or _subscript(node)
    if counted is not None:
        return counted
    if _nullifzero(node):  # nullif(x, 0)
        zero = exp.Literal.number(0)
        zero.meta.update(node.meta)
        return [node.expressions[0], zero]
    if _format_pattern(node) is not None:
        return typed_args(node)
    joined = _joined(node)
    if joined is not None:
        return joined
    if key(node) in ELEMENT_RULES:  # array_append, map_contains_key: (collection, value)
        value = node.args.get("key") if isinstance(node, exp.MapContainsKey) else node.expression
        return [node.this, value] if node.this is not None and value is not None else None
    if type(node) not in CHECKED:
        return _unary_argument(node)
    if isinstance(node, exp.Between):
        return [node.this, node.args["low"], node.args["high"]]
    if isinstance(node, exp.In):
        if node.args.get("query") is not None:
            return None
        return [node.this, *node.expressions]
    if isinstance(node, (exp.And, exp.Or, exp.Not)):  # a logical or comparison operand is
        operands = [node.this] if isinstance(node, exp.Not) else [node.this, node.expression]
        return [o for o in operands if not isinstance(o.unnest(), _BOOLEAN_NODES)] or None
    return [node.this, node.expression]


def in_spark_order(checks: list[TypeCheck]) -> list[TypeCheck]:
    """``checks`` with those of a call's own argument types first: Spark refuses
    ``abs(flag)`` of a BOOLEAN before the ``> 0`` around it; a two-argument call's table
    check after the call's own (:attr:`TypeCheck.late`), whose message says more."""
    return sorted(checks, key=_spark_rank)


def _spark_rank(check: TypeCheck) -> int:
    if check.late:
        return 2
    return 0 if check.unary is not None or check.pair is not None else 1


def _unary_argument(node: exp.Expression) -> list[exp.Expression] | None:
    """The one argument of a call that may be of :data:`UNARY_REFUSALS` (by sqlglot's
    node for the names there; :func:`build_check` reads the name as written)."""
    if not isinstance(node, exp.Func) or isinstance(node, (exp.Cast, exp.TryCast)):
        return None  # a CAST has checks of its own (:func:`cast_check`)
    if key(node) not in _unary_kinds():
        return None
    args = call_args(node)
    if len(args) != 1 or isinstance(args[0], (exp.Distinct, exp.Star, exp.Lambda)):
        return None
    return args


@cache
def _unary_keys() -> dict[str, str]:
    """Each name of the table -> ``function_types.key`` of a one-argument call of it."""
    keys = {}
    for name in UNARY_REFUSALS:
        try:
            keys[name] = key(sqlglot.parse_one(f"{name}(x)", read=MatchRecognizeDialect))
        except sqlglot_errors.SqlglotError:
            continue
    return keys


@cache
def _unary_kinds() -> frozenset[str]:
    return frozenset(_unary_keys().values())


def _written_unary(node: exp.Expression, sql: str, base: int) -> str | None:
    """The name of ``node`` as written, if it is a call of :data:`UNARY_REFUSALS` with
    one argument (its only operand): the name read at its position must be one whose call
    is a node of its kind (a CASE's ``WHEN`` is placed on the condition it reads)."""
    args = _unary_argument(node)
    found = _CALL_NAME.match(sql, node_pos(node, base, sql)) if args else None
    name = found.group(1).lower() if found is not None else None
    return name if name is not None and _unary_keys().get(name) == key(node) else None


#: where a call holds an argument: the (arg key, list index) steps down to it
_Path = tuple[tuple[str, int | None], ...]


@cache
def _pair_places() -> dict[str, tuple[exp.Expression, tuple[_Path, _Path]]]:
    """Each name of :data:`PAIR_REFUSALS` -> sqlglot's tree of a call of it with two
    arguments ``x0``, ``x1`` and where it holds each (``datediff`` holds its arguments
    in casts of its own, ``date_sub`` its count times -1); a name whose call sqlglot
    holds otherwise (an argument as a name) is left out."""
    places = {}
    for name in PAIR_REFUSALS:
        try:
            node = sqlglot.parse_one(f"{name}(x0, x1)", read=MatchRecognizeDialect)
        except sqlglot_errors.SqlglotError:
            continue
        found = [_path(node, f"x{i}") for i in range(2)]
        if found[0] is not None and found[1] is not None:
            places[name] = (node, (found[0], found[1]))
    return places


def _path(node: exp.Expression, column: str) -> _Path | None:
    """The steps from ``node`` down to its column named ``column``."""
    target = next((c for c in node.find_all(exp.Column) if c.name == column), None)
    steps = []
    while target is not None and target is not node:
        parent = target.parent
        if parent is None:
            return None
        value = parent.args.get(target.arg_key)
        steps.append((target.arg_key, target.index if isinstance(value, list) else None))
        target = parent
    return tuple(reversed(steps)) if target is node else None


def _follow(node: exp.Expression, path: _Path) -> exp.Expression | None:
    for arg, index in path:
        value = node.args.get(arg)
        if isinstance(value, list):
            value = value[index] if index is not None and index < len(value) else None
        if not isinstance(value, exp.Expression):
            return None
        node = value
    return node


#: a two-argument call of the table: its name as written and its arguments in Spark's order
PairCall = tuple[str, list[exp.Expression]]


def pair_call(node: exp.Expression, sql: str, base: int) -> PairCall | None:
    """The name and two arguments, in Spark's order, of a call of :data:`PAIR_REFUSALS`
    with two (by the name as written at the call's position: the call must be sqlglot's
    tree of that name's call, its arguments in their places), else None."""
    if key(node) not in _pair_kinds():
        return None
    found = _CALL_NAME.match(sql, node_pos(node, base, sql))
    name = found.group(1).lower() if found is not None else ""
    entry = _pair_places().get(name)
    if entry is None or key(entry[0]) != key(node):
        return None
    template, paths = entry
    args = [_follow(node, path) for path in paths]
    if args[0] is None or args[1] is None:
        return None
    if any(isinstance(a, (exp.Distinct, exp.Star, exp.Lambda)) for a in args):
        return None
    skeleton = node.copy()
    for i, path in enumerate(paths):
        placed = _follow(skeleton, path)
        if placed is None:
            return None
        placed.replace(exp.column(f"x{i}"))
    return (name, [args[0], args[1]]) if skeleton == template else None


def pair_operands(node: exp.Expression, name: str) -> list[exp.Expression] | None:
    """The two arguments of ``node``, a call that :func:`pair_call` found as ``name``,
    read from their places: after lowering, where an argument became an atom column
    with no position, the name as written can no longer be found at the call."""
    entry = _pair_places().get(name)
    if entry is None:
        return None
    args = [_follow(node, path) for path in entry[1]]
    return None if args[0] is None or args[1] is None else [args[0], args[1]]


@cache
def _pair_kinds() -> frozenset[str]:
    return frozenset(key(template) for template, _ in _pair_places().values())


def pair_check(
    found: PairCall,
    probe: Callable[[exp.Expression], str],
    sql: str,
    base: int,
    glue: bool,
    clause: str,
    late: bool,
) -> TypeCheck:
    """The check of the argument types of a two-argument call found by :func:`pair_call`
    (:mod:`planner.pair_types`); ``late``: the call has a check of its own
    (:func:`build_check`)."""
    name, args = found
    operands = tuple(_operand(a, probe, sql, base) for a in args)
    return TypeCheck(PAIR, operands, glue, clause, pair=name, late=late)


def build_check(
    node: exp.Expression,
    probe: Callable[[exp.Expression], str],
    sql: str,
    base: int,
    glue: bool,
    clause: str,
) -> TypeCheck | None:
    """The check of ``node`` (None if it is not a checked operator); ``probe`` turns an
    operand into Spark SQL of its type."""
    args = operands_of(node)
    if not args:
        return None
    operands = tuple(_operand(a, probe, sql, base) for a in args)
    if isinstance(node, exp.GenerateSeries):
        return TypeCheck(SEQUENCE_ARGUMENTS, operands, glue, clause)
    mapped = _map_checked(node)
    if mapped is not None:
        operator = f"{MAP_ARGUMENT} {written_call_name(node, sql, base)} {mapped[0]}"
        rule, unary = ELEMENT_RULES.get(key(node)), _written_unary(node, sql, base)
        return TypeCheck(operator, operands, glue, clause, elements=rule, unary=unary)
    if _int_only(node) is not None:
        operator = f"{INT_ARGUMENT} {written_call_name(node, sql, base)}"
        return TypeCheck(operator, operands, glue, clause)
    if _joined(node) is not None:
        return TypeCheck(f"{JOINED} {written_call_name(node, sql, base)}", operands, glue, clause)
    if _subscript(node) is not None:
        return TypeCheck(SUBSCRIPT, operands, glue, clause)
    if key(node) in ELEMENT_RULES:
        operator = f"{ELEMENT_ARGUMENT} {written_call_name(node, sql, base)}"
        return TypeCheck(operator, operands, glue, clause, elements=ELEMENT_RULES[key(node)])
    pattern = _format_pattern(node)
    if pattern is not None:  # an argument not found as written (moved into a navigation)
        operands = tuple(  # is named by its place
            o if written_text(a, sql, base) else Operand(o.probe, f"argument {k + 1}", o.pos, False)
            for k, (a, o) in enumerate(zip(args, operands))
        )
        return TypeCheck(f"{typed_name(node)}".lower(), operands, glue, clause, pattern)
    if type(node) not in CHECKED and not _nullifzero(node):
        unary = _written_unary(node, sql, base)
        return TypeCheck(UNARY, operands, glue, clause, unary=unary) if unary else None
    operator = "nullifzero" if _nullifzero(node) else CHECKED[type(node)]
    return TypeCheck(operator, operands, glue, clause)


def written_call_name(node: exp.Expression, sql: str, base: int) -> str:
    """The name of call ``node`` (of an expression at ``base`` of ``sql``) as the user
    wrote it, lower case (``sort_array``, not sqlglot's ``ARRAY_SORT``)."""
    found = _CALL_NAME.match(sql, node_pos(node, base, sql))
    if found is not None:
        return found.group(1).lower()
    return node.sql(dialect=MatchRecognizeDialect).split("(")[0].lower()


def _format_pattern(node: exp.Expression) -> str | None:
    """The literal pattern of a ``format_string``/``printf`` call, else None."""
    name = typed_name(node)
    if name is None or not TYPED_CALLS[name].pattern:
        return None
    args = typed_args(node)
    first = args[0].unnest() if args else None
    return first.this if isinstance(first, exp.Literal) and first.is_string else None


def _nullifzero(node: exp.Expression) -> bool:
    return (
        isinstance(node, exp.Anonymous)
        and node.name.upper() == "NULLIFZERO"
        and len(node.expressions) == 1
    )


def _operand(
    node: exp.Expression, probe: Callable[[exp.Expression], str], sql: str, base: int
) -> Operand:
    return Operand(
        probe(node),
        deferred_user_text(node, sql, base),
        node_pos(node, base, sql),
        isinstance(node, exp.Literal) and node.is_string,
    )


#: the operator of a :func:`condition_check`
CONDITION = "condition"
#: the operator of a check that an aggregate's values are numbers (followed by its name)
NUMERIC_ARGUMENT = "numeric argument of"
#: aggregates whose first n arguments must be numbers (Spark casts a string to DOUBLE)
NUMERIC_AGGREGATES: dict[str, int] = {
    **dict.fromkeys(
        "SUM AVG MEAN TRY_SUM TRY_AVG STDDEV STD STDDEV_SAMP STDDEV_POP VARIANCE VAR_SAMP "
        "VAR_POP MEDIAN PERCENTILE PERCENTILE_APPROX APPROX_PERCENTILE PERCENTILE/DESC "
        "PERCENTILE_DISC/ASC PERCENTILE_DISC/DESC".split(),
        1,
    ),
    **{name: 2 if name.startswith(("CORR", "COVAR", "REGR")) else 1 for name in STATISTICS},
}
#: the operator of a check that an aggregate's values are truth values (then its name)
BOOLEAN_ARGUMENT = "boolean argument of"
#: aggregates of truth values: Spark refuses any other argument type when it analyses
#: the query; matchrec's own evaluation would take a number's truth instead
BOOLEAN_AGGREGATES = frozenset("BOOL_AND BOOL_OR EVERY ANY SOME COUNT_IF".split())
#: the types a DEFINE condition may have (NULL is false)
_CONDITION_TYPES = ("boolean", "void")


def condition_check(
    node: exp.Expression,
    probe: Callable[[exp.Expression], str],
    sql: str,
    base: int,
    label: str,
    written: str,
) -> TypeCheck:
    """The check that the whole condition of ``DEFINE label AS node`` is a BOOLEAN, as
    Spark requires of a WHERE condition (``DEFINE A AS price`` is an error, not a truth
    value of a number); ``written``: the condition as the user wrote it, which the error
    quotes, at its start (``node`` may be rewritten: ``first(x, true)`` is a subscript)."""
    literal = isinstance(node, exp.Literal) and node.is_string
    operand = Operand(probe(node), _clipped(" ".join(written.split())), base, literal)
    return TypeCheck(CONDITION, (operand,), False, f"DEFINE {label}")


#: Spark's names of a few types as Trino writes them in its messages
_TRINO_TYPES = {"int": "integer", "string": "varchar", "tinyint": "tinyint", "float": "real"}


def _not_boolean(check: TypeCheck, type_name: str, sql: str) -> SemanticError | None:
    """The error for a :func:`condition_check` whose condition Spark types ``type_name``."""
    if type_name in _CONDITION_TYPES:
        return None
    operand = check.operands[0]
    shown = _TRINO_TYPES.get(type_name.lower(), type_name.lower())
    return SemanticError(
        f"Expression defining a label must be boolean (actual type: {shown}): the condition "
        f"of {check.clause} must be BOOLEAN, not {type_name.upper()} ({operand.text})",
        sql=sql,
        pos=operand.pos,
        hint="write a comparison, e.g. x > 0 or x IS NOT NULL",
    )


def _not_boolean_operand(
    check: TypeCheck, types: list[str], ansi: bool, sql: str
) -> SemanticError | None:
    """The error for an operand of AND, OR or NOT that is no BOOLEAN: a number, date, ...
    (Spark refuses it, DATATYPE_MISMATCH), or a string that is not a literal under ANSI
    mode or in DEFINE's glue (Spark casts it while the job runs and fails on 'ACME'; the
    glue does not cast)."""
    for operand, type_name in zip(check.operands, types):
        if type_name in _CONDITION_TYPES:
            continue
        if _is_string(type_name) and (operand.literal or not (ansi or check.glue)):
            continue
        return SemanticError(
            f"{check.operator} takes BOOLEAN operands, not {type_name.upper()} "
            f"({operand.text}) in {check.clause}",
            sql=sql,
            pos=operand.pos,
            hint=f"write a comparison, e.g. {operand.text} > 0 or {operand.text} IS NOT "
            f"NULL, or convert it: try_cast({operand.text} AS BOOLEAN)",
        )
    return None


def numeric_check(
    func: str,
    shown: str,
    args: list[exp.Expression],
    probe: Callable[[exp.Expression], str],
    sql: str,
    base: int,
    clause: str,
) -> TypeCheck | None:
    """The check that the value arguments of aggregate ``func`` (named ``shown`` in
    messages) are not strings: matchrec computes it over the match without Spark's
    implicit cast of a string to DOUBLE (``sum(s)`` would join the strings). None for an
    aggregate that takes any type."""
    if func in BOOLEAN_AGGREGATES:
        operands = tuple(_operand(a, probe, sql, base) for a in args[:1])
        return TypeCheck(f"{BOOLEAN_ARGUMENT} {shown.lower()}", operands, True, clause)
    count = NUMERIC_AGGREGATES.get(func, 0)
    if not count:
        return None
    operands = tuple(_operand(a, probe, sql, base) for a in args[:count])
    return TypeCheck(f"{NUMERIC_ARGUMENT} {shown.lower()}", operands, True, clause)


def cast_check(
    node: exp.Cast,
    probe: Callable[[exp.Expression], str],
    sql: str,
    base: int,
    clause: str,
) -> TypeCheck:
    """The check of a CAST that DEFINE's glue computes: its probe is the CAST itself, so
    that Spark's analysis refuses a cast it never allows (``CAST(n AS DATE)`` of a number)
    when the query is built, as it would refuse it in ``spark.sql``."""
    return TypeCheck("CAST", (_operand(node, probe, sql, base),), True, clause)


#: the types no numeric aggregate takes (Spark's DATATYPE_MISMATCH), but those of
#: ``_TAKES_TIMES`` (``sum``/``avg`` of a TIMESTAMP matchrec could type are planned as
#: sums of its DOUBLE seconds, as Spark computes them)
_NOT_AGGREGATED = ("boolean", "date", "timestamp", "timestamp_ntz", "binary")
_SUMS = frozenset({"sum", "avg", "mean", "try_sum", "try_avg"})
_TAKES_TIMES = {
    **dict.fromkeys(("percentile_approx", "approx_percentile"), _NOT_AGGREGATED[1:4]),
    **dict.fromkeys(_SUMS, ("timestamp",)),
}


def _string_aggregated(check: TypeCheck, types: list[str], sql: str) -> SemanticError | None:
    """The error for a string among the values of a numeric aggregate (``sum(s)``), or a
    value of a type Spark refuses there (``stddev(ts)``; the table function, which cannot
    ask Spark, computed it until Python failed)."""
    func = check.operator[len(NUMERIC_ARGUMENT) :].strip().split("/")[0]
    for operand, type_name in zip(check.operands, types):
        if _is_string(type_name):
            return SemanticError(
                f"{func}() of {operand.text} (STRING) in {check.clause}: matchrec computes "
                f"{func} over the match without Spark's implicit cast of strings to DOUBLE",
                sql=sql,
                pos=operand.pos,
                hint=f"convert explicitly: write try_cast({operand.text} AS DOUBLE) in its place",
            )
        seconds = f"CAST({operand.text} AS DOUBLE)"
        if type_name in _TAKES_TIMES.get(func, ()):
            if func not in _SUMS:
                continue
            return SemanticError(  # a TIMESTAMP matchrec's typer could not see as one
                f"{func}() of {operand.text} (TIMESTAMP) in {check.clause}: matchrec "
                "cannot tell its type when it plans the query, to sum its seconds as Spark does",
                sql=sql,
                pos=operand.pos,
                hint=f"write {func}({seconds}), what Spark computes",
            )
        if type_name in _NOT_AGGREGATED or type_name.startswith(("array<", "map<", "struct<")):
            return SemanticError(
                f"{func}() takes numbers, not {type_name.upper()} ({operand.text}) in "
                f"{check.clause} (Spark's DATATYPE_MISMATCH)",
                sql=sql,
                pos=operand.pos,
                hint=f"aggregate a number of it, e.g. {func}({seconds})"
                if type_name == "timestamp"
                else f"aggregate a number of it, e.g. {func}(CAST({operand.text} AS INT))"
                if type_name == "boolean"
                else "aggregate a number computed from it",
            )
    return None


def _not_boolean_aggregated(check: TypeCheck, types: list[str], sql: str) -> SemanticError | None:
    """The error for a value that is not a BOOLEAN in a truth-value aggregate (``any(1)``)."""
    func = check.operator[len(BOOLEAN_ARGUMENT) :].strip()
    for operand, type_name in zip(check.operands, types):
        if type_name not in _CONDITION_TYPES:
            return SemanticError(
                f"{func}() takes BOOLEAN values, not {type_name.upper()} ({operand.text}) in "
                f"{check.clause}",
                sql=sql,
                pos=operand.pos,
                hint=f"pass a condition, e.g. {func}({operand.text} > 0)",
            )
    return None


def replace_probes(check: TypeCheck, probes: list[str]) -> TypeCheck:
    """``check`` with the operands' probes replaced (same order)."""
    operands = tuple(
        Operand(p, o.written, o.pos, o.literal) for o, p in zip(check.operands, probes)
    )
    return replace(check, operands=operands)


def user_text(node: exp.Expression, sql: str, base: int, limit: int = 40) -> str:
    """The operand as the user wrote it (a call the planner rewrote, ``LAST`` moved into
    ``regexp_extract(LAST(msg), p)``, by the call written at its place), else as Spark SQL
    prints it (``COLLECT_LIST`` for ``array_agg``)."""
    return str(deferred_user_text(node, sql, base, limit))


def deferred_user_text(node: exp.Expression, sql: str, base: int, limit: int = 40) -> DeferredText:
    """:func:`user_text`, with what it needs of ``node`` taken now and the reading back of
    the written text left for when it is shown."""
    node = _as_written(node.meta.get(STANDS_FOR, node))
    reading = written_reading(node, sql, base)
    fallback = None
    if isinstance(node, exp.Func):
        start = node_pos(node, base, sql)
        name = _CALL_NAME.match(sql, start)
        # a navigation at its place is one the planner moved outside the call: not it
        if name and name.group(1).upper() not in ROW_PATTERN_CALLS:
            fallback = written_call(sql, start, limit=len(sql))
    return DeferredText(reading, fallback or node.sql(dialect=MatchRecognizeDialect), limit)


def rewritten_back(node: exp.Expression, limit: int = 40) -> str:
    """``node`` as Spark SQL with the parts the planner rewrote put back as written
    (``A.s COLLATE UTF8_LCASE`` for the navigation it was moved into), clipped."""
    return _clipped(
        _as_written(node.meta.get(STANDS_FOR, node)).sql(dialect=MatchRecognizeDialect), limit
    )


def _as_written(node: exp.Expression) -> exp.Expression:
    """``node`` with each part the planner rewrote put back as written (``STANDS_FOR``:
    ``FIRST(datediff(...))`` for ``datediff(FIRST(B.d), ...)``), positions kept."""
    if not any(STANDS_FOR in n.meta for n in node.walk()):
        return node
    return node.transform(lambda n: n.meta[STANDS_FOR].copy() if STANDS_FOR in n.meta else n)


#: a function's name up to its opening parenthesis
_CALL_NAME = re.compile(r"([A-Za-z_][\w.]*)\s*\(")


def _clipped(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


_STRING = ("string", "varchar", "char")
#: Spark's nested types, by the simple name's head (``map<string,int>``)
_COMPLEX = ("array", "map", "struct")


def _kind(type_name: str) -> str:
    """``array``/``map``/``struct`` for a nested type, else the simple name's head."""
    return type_name.split("<")[0].split("(")[0].strip()


def _complex_mixed(check: TypeCheck, types: list[str], sql: str) -> SemanticError | None:
    """The error for an array, map or struct operand of arithmetic, or compared with a
    value of another kind (``x = MAP('a', 1)``): Spark never converts between them and
    rejects the operator when it analyses the query. The table function's ``analyze``
    has no Spark to ask, and Spark's own error there comes after it, without a caret."""
    kinds = [_kind(t) for t in types]
    for i, (operand, kind) in enumerate(zip(check.operands, kinds)):
        if kind not in _COMPLEX:
            continue
        if check.operator in {OPERATORS[n] for n in ARITHMETIC}:
            return SemanticError(
                f"{check.operator} is not defined for {operand.text} ({types[i].upper()}) in "
                f"{check.clause}: Spark has no arithmetic on {kind.upper()} values",
                sql=sql,
                pos=operand.pos,
                hint="apply it to an element or field, e.g. element_at(a, 1) or s.field",
            )
        for j, other in enumerate(kinds):
            if other != kind and other != "void":
                shown = check.operands[j]
                return SemanticError(
                    f"{check.operator} compares {operand.text} ({types[i].upper()}) with "
                    f"{shown.text} ({types[j].upper()}) in {check.clause}: Spark compares "
                    "values of one type",
                    sql=sql,
                    pos=operand.pos,
                    hint="compare an element or field of it, e.g. element_at(m, 'key') = 1",
                )
    if check.operator in _COMPARING:
        for operand, t in zip(check.operands, types):
            if "map<" in t.lower():  # a map anywhere in it: Spark orders no MAP values
                return SemanticError(
                    f"[INVALID_ORDERING_TYPE] {check.operator} cannot compare {operand.text} "
                    f"({t.upper()}) in {check.clause}: Spark neither orders nor equates MAP "
                    "values",
                    sql=sql,
                    pos=operand.pos,
                    hint="compare an entry (m['key'] = 1), or the maps' map_entries, keys "
                    "sorted: array_sort(map_entries(m))",
                )
    return None


#: what each condition of :data:`_NO_MAPS` says Spark cannot do, and the way around it
_MAP_REFUSALS = {
    _ORDERS: (
        "Spark neither orders nor equates MAP values",
        "compare an entry (m['key']), or the map's entries in key order: "
        "array_sort(map_entries(m))",
    ),
    _HASHES: (
        "Spark hashes no MAP values (the same entries in another order would hash apart)",
        "hash the map's entries in key order: {name}(array_sort(map_entries(m)))",
    ),
    _SETS: (
        "Spark collects no set of MAP values",
        "collect_list keeps every map; a set of their entries in key order: "
        "collect_set(array_sort(map_entries(m)))",
    ),
}


#: why Spark collects no set of such strings (at any depth), and the way around it
_COLLATED_SET = (
    "Spark collects no set of strings of a collation other than UTF8_BINARY",
    "collect the text by its bytes, {name}(x COLLATE UTF8_BINARY), or keep every value "
    "with collect_list(x)",
)


def _map_argument(check: TypeCheck, types: list[str], sql: str) -> SemanticError | None:
    """The error for a MAP in the type of an argument of a :data:`_NO_MAPS` call (its
    check's operator: :data:`MAP_ARGUMENT`, the name as written, Spark's condition), and
    for a collated string in collect_set's."""
    name, condition = check.operator[len(MAP_ARGUMENT) + 1 :].rsplit(" ", 1)
    for operand, type_name in zip(check.operands, types):
        if condition == _SETS and collation_of(type_name):
            why, hint = _COLLATED_SET
        elif "map<" in type_name.lower():
            why, hint = _MAP_REFUSALS[condition]
        else:
            continue
        return SemanticError(
            f"[{condition}] {name}() cannot take {operand.text} ({type_name.upper()}) in "
            f"{check.clause}: {why}",
            sql=sql,
            pos=operand.pos,
            hint=hint.replace("{name}", name),
        )
    return None


_INTEGERS = ("tinyint", "smallint", "int", "void")

#: types Spark casts to STRING for listagg (its values and separator are STRING or BINARY)
_CAST_TO_TEXT = re.compile(
    r"(tinyint|smallint|int|bigint|float|double|decimal\(.*\)|boolean|date|timestamp"
    r"|timestamp_ntz|void)",
)


def _joined_type(type_name: str) -> str | None:
    """The type listagg takes a value or separator of ``type_name`` as (a string keeps its
    collation); None for one Spark refuses otherwise (an ARRAY)."""
    name = type_name.lower()
    if name == "binary" or name.startswith("string"):
        return name
    return "string" if _CAST_TO_TEXT.fullmatch(name) else None


def _joined_apart(check: TypeCheck, types: list[str], sql: str) -> SemanticError | None:
    """Spark's refusal of listagg's separator of another type than its values
    (DATA_DIFF_TYPES): STRING and BINARY, or strings of two collations."""
    value, separator = _joined_type(types[0]), _joined_type(types[1])
    if value is None or separator is None or value == separator or types[1].lower() == "void":
        return None
    name = check.operator[len(JOINED) + 1 :]
    values, operand = check.operands
    return SemanticError(
        f"[DATATYPE_MISMATCH.DATA_DIFF_TYPES] {name}() cannot join {values.text} "
        f"({types[0].upper()}) with the separator {operand.text} ({types[1].upper()}) in "
        f"{check.clause}: Spark takes values and a separator of one type",
        sql=sql,
        pos=operand.pos,
        hint="give the separator the values' type (',' COLLATE UTF8_LCASE for collated "
        "strings, X'2C' for BINARY), or CAST the values",
    )


def _unary_refused(check: TypeCheck, types: list[str], sql: str) -> SemanticError | None:
    """Spark's refusal of the type of a one-argument call's argument (:mod:`unary_types`)."""
    condition = unary_refusal(check.unary, types[0]) if check.unary and types else None
    if condition is None:
        return None
    operand = check.operands[0]
    return SemanticError(
        f"[DATATYPE_MISMATCH.{condition}] {check.unary}() cannot take {operand.text} "
        f"({types[0].upper()}) in {check.clause}: Spark refuses it when it analyses the query",
        sql=sql,
        pos=operand.pos,
        hint=f"CAST it to a type {check.unary}() takes",
    )


_ORDINALS = ("first", "second")


def _pair_refused(check: TypeCheck, types: list[str], sql: str) -> SemanticError | None:
    """Spark's refusal of the argument types of a two-argument call (:mod:`pair_types`)."""
    refusal = pair_refusal(check.pair, types[0], types[1]) if check.pair else None
    if refusal is None:
        return None
    at, condition = refusal
    operand, name = check.operands[at], check.pair
    if condition == "UNEXPECTED_INPUT_TYPE" or at == 0:
        what = f"{operand.text} ({types[at].upper()}) as its {_ORDINALS[at]} argument"
    else:
        first = check.operands[0]
        what = f"{operand.text} ({types[1].upper()}) with {first.text} ({types[0].upper()})"
    return SemanticError(
        f"[DATATYPE_MISMATCH.{condition}] {name}() cannot take {what} in {check.clause}: "
        "Spark refuses it when it analyses the query",
        sql=sql,
        pos=operand.pos,
        hint=f"CAST it to a type {name}() takes",
    )


def _element_mismatch(check: TypeCheck, types: list[str], sql: str) -> SemanticError | None:
    """Spark's refusal of an array function's value (or second array) whose type has no
    common type with the elements (:func:`planner.element_types.element_refusal`)."""
    refusal = element_refusal(check.elements, types) if check.elements else None
    if refusal is None:
        return None
    if check.operator.startswith(MAP_ARGUMENT):
        name = check.operator[len(MAP_ARGUMENT) + 1 :].rsplit(" ", 1)[0]
    else:
        name = check.operator[len(ELEMENT_ARGUMENT) + 1 :]
    hint = "CAST it to the elements' type" if refusal[1] else "pass a collection of that kind"
    return _refused_element(check, name, refusal, sql, hint)


def _refused_element(
    check: TypeCheck, name: str, refusal: tuple[str, int, str], sql: str, hint: str
) -> SemanticError:
    """Spark's ``refusal`` (condition, operand at fault, what it says) of call ``name``."""
    condition, at, what = refusal
    operand = check.operands[at]
    return SemanticError(
        f"[DATATYPE_MISMATCH.{condition}] {name}() {what}: {operand.text} in {check.clause} "
        "(Spark refuses it when it analyses the query)",
        sql=sql,
        pos=operand.pos,
        hint=hint,
    )


def _sequence_arguments(check: TypeCheck, types: list[str], sql: str) -> SemanticError | None:
    """Spark's SEQUENCE_WRONG_INPUT_TYPES for argument types it refuses, at the argument
    at fault (:func:`planner.sequence_types.sequence_refusal`)."""
    refusal = sequence_refusal((types[0], types[1]), types[2] if len(types) > 2 else None)
    if refusal is None:
        return None
    at, what, hint = refusal
    operand = check.operands[at]
    return SemanticError(
        f"[DATATYPE_MISMATCH.SEQUENCE_WRONG_INPUT_TYPES] {what}: {operand.text} in "
        f"{check.clause} (Spark refuses it when it analyses the query)",
        sql=sql,
        pos=operand.pos,
        hint=hint,
    )


def _subscript_refused(
    check: TypeCheck, types: list[str], ansi: bool, sql: str
) -> SemanticError | None:
    """Spark's refusal of a subscript's index: an array's that is no integer, a map's
    that Spark does not cast to the map's key type; or of a value that is no ARRAY, MAP
    or STRUCT (:mod:`subscript_types`)."""
    (collection, index), (of, by) = check.operands, types
    kind = _kind(of)
    if kind not in _COMPLEX and of != "void":
        return SemanticError(
            f"[INVALID_EXTRACT_BASE_FIELD_TYPE] {collection.text} ({of.upper()}) has no "
            f"subscript in {check.clause}: Spark subscripts an ARRAY, a MAP or a STRUCT",
            sql=sql,
            pos=collection.pos,
            hint="subscript a collection, or leave out the [...]",
        )
    if kind == "array" and by not in INTEGRAL:
        takes, hint = "an integer", f"CAST it: CAST({index.text} AS INT)"
    elif (
        kind == "map" and not index.literal and map_key_taken(_map_key_type(of), by, ansi) is False
    ):
        key_type = _map_key_type(of).upper()
        takes, hint = f"a key Spark casts to {key_type}", "CAST it to the map's key type"
    elif kind == "map" and check.glue and _cast_key(_map_key_type(of), by):
        key_type = _map_key_type(of).upper()
        return SemanticError(
            f"a subscript of {collection.text} ({of.upper()}) with {index.text} "
            f"({by.upper()}) in {check.clause}: DEFINE evaluates this per match, without "
            f"Spark's cast of the key to the map's key type ({key_type})",
            sql=sql,
            pos=index.pos,
            hint=f"CAST it: CAST({index.text} AS {key_type})",
        )
    else:
        return None
    return SemanticError(
        f"[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] a subscript of {collection.text} "
        f"({of.upper()}) takes {takes}, not {index.text} ({by.upper()}) in {check.clause}: "
        "Spark refuses it when it analyses the query",
        sql=sql,
        pos=index.pos,
        hint=hint,
    )


def _cast_key(key_type: str, index_type: str) -> bool:
    """Whether Spark casts a map subscript's key of ``index_type`` to ``key_type`` in a
    way that can find another entry than the key as it is (an integer into an integer
    key, a DECIMAL into a DECIMAL one, a NULL: the same entry)."""
    kinds = (_kind(key_type), _kind(index_type))
    return not (
        index_type == key_type
        or "void" in kinds
        or all(k in INTEGRAL for k in kinds)
        or kinds == ("decimal", "decimal")
        or all(_is_string(t) for t in (key_type, index_type))
    )


def _map_key_type(type_name: str) -> str:
    """The key type of Spark's simple name of a MAP type (``map<int,string>``: ``int``)."""
    depth = 0
    inner = type_name[4:-1]
    for i, c in enumerate(inner):
        depth += {"<": 1, "(": 1, ">": -1, ")": -1}.get(c, 0)
        if c == "," and depth == 0:
            return inner[:i]
    return inner


def _not_int_argument(check: TypeCheck, types: list[str], sql: str) -> SemanticError | None:
    """The error for a count or position of a :data:`_INT_ONLY` call that is a wider
    number (its check's operator: :data:`INT_ARGUMENT` and the name as written)."""
    name = check.operator[len(INT_ARGUMENT) + 1 :]
    if types[0].lower().startswith("map<"):  # element_at(map, key): a key
        refusal = element_refusal("lookup", types)
        if refusal is None:
            return None
        hint = "CAST it to the map's key type, or subscript the map: m[key] casts the key"
        return _refused_element(check, name, refusal, sql, hint)
    operand, type_name = check.operands[-1], types[-1]
    kind = type_name.split("(")[0].lower()
    if kind in _INTEGERS or kind not in _NUMBERS:
        return None  # other types: Spark's own message where it refuses them
    return SemanticError(
        f"{name}() takes an INT, SMALLINT or TINYINT there, not {operand.text} "
        f"({type_name.upper()}) in {check.clause}: Spark casts no wider number to INT "
        "implicitly (DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE)",
        sql=sql,
        pos=operand.pos,
        hint=f"CAST it: CAST({operand.text} AS INT)",
    )


#: the checked operators that compare their operands
_COMPARING = frozenset(CHECKED[n] for n in (*COMPARISONS, exp.EqualNull)) | {
    "BETWEEN",
    "IN",
    "nullif",
}


def _is_string(type_name: str) -> bool:
    """A string type, of any collation (``string collate UTF8_LCASE``)."""
    return type_name.split("(")[0].split(" collate ")[0] in _STRING


_MOMENTS = ("date", "timestamp", "timestamp_ntz")
_NUMBERS = ("tinyint", "smallint", "int", "bigint", "float", "double", "decimal")
_DAY_COUNTS = ("tinyint", "smallint", "int")
_MOMENT_ARITHMETIC = ("+", "-", "*", "/", "%", "DIV")
_MOMENT_COMPARISONS = tuple(CHECKED[n] for n in COMPARISONS)


def _moment_with_number(check: TypeCheck, types: list[str], sql: str) -> SemanticError | None:
    """A DATE or TIMESTAMP with a number in arithmetic or a comparison, which Spark
    refuses, ANSI mode or not (``PREV(ts) + 1``, ``d > 1``), but for Spark's date_add and
    date_sub (``d + 1``, ``1 + d``, ``d - 1`` with an INT, SMALLINT or TINYINT)."""
    arithmetic = check.operator in _MOMENT_ARITHMETIC
    if len(types) != 2 or not (arithmetic or check.operator in _MOMENT_COMPARISONS):
        return None
    kinds = [t.split("(")[0] for t in types]
    moments = [i for i, k in enumerate(kinds) if k in _MOMENTS]
    numbers = [i for i, k in enumerate(kinds) if k in _NUMBERS]
    if len(moments) != 1 or len(numbers) != 1:
        return None
    moment, number = moments[0], numbers[0]
    days = kinds[moment] == "date" and kinds[number] in _DAY_COUNTS
    if days and (check.operator == "+" or (check.operator == "-" and moment == 0)):
        return None
    shown = check.operands[moment]
    other = check.operands[number]
    if arithmetic:
        why = "Spark moves a date or a timestamp by an INTERVAL, not by a number"
        hint = (
            f"write {shown.text} {check.operator if check.operator in '+-' else '+'} "
            "INTERVAL 1 SECOND (the unit you mean), or compare epoch seconds: "
            f"unix_timestamp({shown.text})"
        )
        if kinds[moment] == "date":
            hint = f"add whole days as an INT (date_add({shown.text}, n)) or an INTERVAL"
    else:
        why = "Spark does not compare a date or a timestamp with a number"
        hint = f"compare with a {kinds[moment].upper()} value, or compare unix_timestamp(...)"
    return SemanticError(
        f"{check.operator} mixes {shown.text} ({kinds[moment].upper()}) and {other.text} "
        f"({types[number].upper()}) in {check.clause}: {why}",
        sql=sql,
        pos=other.pos,
        hint=hint,
    )


def _boolean_mixed(
    check: TypeCheck, types: list[str], ansi: bool, sql: str
) -> SemanticError | None:
    """A BOOLEAN in arithmetic, or compared with a value that is no BOOLEAN or STRING
    (``FIRST(A.flag) < C.n``), which Spark refuses when it analyses the query; without
    ANSI mode it allows ``=`` and ``<=>`` (and ``<>``) with a number, as 1 or 0."""
    arithmetic = check.operator in _MOMENT_ARITHMETIC
    if len(types) != 2 or not (arithmetic or check.operator in _MOMENT_COMPARISONS):
        return None
    kinds = [_kind(t) for t in types]
    if "boolean" not in kinds:
        return None
    flag = kinds.index("boolean")
    other = 1 - flag
    if not arithmetic and (kinds[other] in ("boolean", "void") or _is_string(types[other])):
        return None
    equality = check.operator in ("=", "<>", "<=>")
    if not arithmetic and not ansi and equality and kinds[other] in _NUMBERS:
        return None
    shown = check.operands[flag]
    why = (
        "Spark has no arithmetic on BOOLEAN values"
        if arithmetic
        else "under ANSI mode Spark compares a BOOLEAN only with a BOOLEAN (without it, = "
        "and <=> take a number as 1 or 0)"
        if equality and kinds[other] in _NUMBERS
        else "Spark compares a BOOLEAN only with a BOOLEAN"
    )
    return SemanticError(
        f"{check.operator} mixes {shown.text} (BOOLEAN) and {check.operands[other].text} "
        f"({types[other].upper()}) in {check.clause}: {why}",
        sql=sql,
        pos=shown.pos,
        hint=f"turn it into a number first, e.g. IF({shown.text}, 1, 0)",
    )


#: operators Spark refuses between a DAY-TIME or YEAR-MONTH interval and a number, by
#: the interval's operand index (0: on the left); ``*`` scales it, ``/`` divides it
_INTERVAL_REFUSED = {
    **{op: (0, 1) for op in (*_MOMENT_COMPARISONS, "+", "-", "%", "DIV")},
    "/": (1,),
}


def _interval_with_number(check: TypeCheck, types: list[str], sql: str) -> SemanticError | None:
    """An interval compared with, added to or divided into a number (``LAST(d) -
    FIRST(d) < 30``), which Spark refuses (DATATYPE_MISMATCH), ANSI mode or not."""
    if len(types) != 2:
        return None
    kinds = [t.split("(")[0] for t in types]
    intervals = [i for i, k in enumerate(kinds) if k.startswith("interval")]
    numbers = [i for i, k in enumerate(kinds) if k in _NUMBERS]
    if len(intervals) != 1 or len(numbers) != 1:
        return None
    at, number = intervals[0], numbers[0]
    if at not in _INTERVAL_REFUSED.get(check.operator, ()):
        return None
    shown, other = check.operands[at], check.operands[number]
    unit = "DAY" if "day" in kinds[at] or "hour" in kinds[at] or "second" in kinds[at] else "MONTH"
    return SemanticError(
        f"{check.operator} mixes {shown.text} ({types[at].upper()}) and {other.text} "
        f"({types[number].upper()}) in {check.clause}: Spark does not mix an interval "
        "with a number here",
        sql=sql,
        pos=other.pos,
        hint=f"write the number as an interval (INTERVAL '{other.text}' {unit}), or "
        f"take a number of the interval (extract({unit} FROM {shown.text}))",
    )


def _moment_with_interval(check: TypeCheck, types: list[str], sql: str) -> SemanticError | None:
    """A DATE or TIMESTAMP compared with an interval (``ts > INTERVAL '5' DAY``), which
    Spark refuses (DATATYPE_MISMATCH), ANSI mode or not; the table function's caller got
    Spark's raw error with its plan."""
    if len(types) != 2 or check.operator not in _MOMENT_COMPARISONS:
        return None
    kinds = [t.split("(")[0] for t in types]
    moments = [i for i, k in enumerate(kinds) if k in _MOMENTS]
    intervals = [i for i, k in enumerate(kinds) if k.startswith("interval")]
    if len(moments) != 1 or len(intervals) != 1:
        return None
    moment, interval = check.operands[moments[0]], check.operands[intervals[0]]
    return SemanticError(
        f"{check.operator} compares {moment.text} ({types[moments[0]].upper()}) with "
        f"{interval.text} ({types[intervals[0]].upper()}) in {check.clause}: Spark does not "
        "compare a point in time with a length of time",
        sql=sql,
        pos=interval.pos,
        hint=f"compare a difference of times with it ({moment.text} - PREV({moment.text})), "
        "or add it to a time",
    )


def _format_mismatch(check: TypeCheck, types: list[str], sql: str) -> SemanticError | None:
    """A conversion of a format pattern that Java refuses for the object Spark holds an
    argument's type in (``format_string('%.2f', sum(n))`` of an INT ``n``): Spark fails
    on the first value that is not NULL; found here when the query is built."""
    try:
        spark_types = [read_any_collation(t) for t in types[1:]]
    except (ValueError, sqlglot_errors.ParseError):
        return None
    err = conversion_error(check.pattern or "", spark_types)
    if err is None:
        return None
    at = 1 + err.argument  # type: ignore[attr-defined]
    operand = check.operands[at]
    target = _FORMAT_TARGETS.get(err.conversion, "STRING")  # type: ignore[attr-defined]
    return SemanticError(
        f"{check.operator}() in {check.clause} cannot format {operand.text} "
        f"({types[at].upper()}): {err}",
        sql=sql,
        pos=operand.pos,
        hint=f"CAST the argument to a type the conversion takes ({target}), or write %s",
    )


#: a conversion of a format pattern -> the type to CAST an argument it refuses to
_FORMAT_TARGETS = {**dict.fromkeys("efg", "DOUBLE"), **dict.fromkeys("dox", "BIGINT"), "c": "INT"}


def _fractional_div(check: TypeCheck, types: list[str], sql: str) -> SemanticError | None:
    """A FLOAT or DOUBLE operand of ``div``, which Spark refuses (DATATYPE_MISMATCH), ANSI
    mode or not; the table function would compute it."""
    for operand, type_name in zip(check.operands, types):
        if type_name in ("float", "double"):
            return SemanticError(
                f"{check.operator} takes integers and DECIMALs, not {operand.text} "
                f"({type_name.upper()}) in {check.clause} (Spark's DATATYPE_MISMATCH)",
                sql=sql,
                pos=operand.pos,
                hint=f"write floor({operand.text} / ...) or CAST it to BIGINT or a DECIMAL",
            )
    return None


def mismatch(check: TypeCheck, types: list[str], ansi: bool, sql: str) -> SemanticError | None:
    """The error for ``check`` given Spark's simple type names of its operands, if any."""
    if check.operator.startswith(MAP_ARGUMENT):  # its own message says what to do of a map
        return (
            _map_argument(check, types, sql)
            or _unary_refused(check, types, sql)
            or _element_mismatch(check, types, sql)
        )
    if check.operator == PAIR:
        return _pair_refused(check, types, sql)
    refused = _unary_refused(check, types, sql)
    if refused is not None or check.operator == UNARY:
        return refused
    if check.pattern is not None:
        return _format_mismatch(check, types, sql)
    if check.operator == CONDITION:
        return _not_boolean(check, types[0], sql)
    if check.operator in _LOGICAL:
        return _not_boolean_operand(check, types, ansi, sql)
    if check.operator.startswith(NUMERIC_ARGUMENT):
        return _string_aggregated(check, types, sql)
    if check.operator.startswith(BOOLEAN_ARGUMENT):
        return _not_boolean_aggregated(check, types, sql)
    if check.operator.startswith(INT_ARGUMENT):
        return _not_int_argument(check, types, sql)
    if check.operator == SEQUENCE_ARGUMENTS:
        return _sequence_arguments(check, types, sql)
    if check.operator == SUBSCRIPT:
        return _subscript_refused(check, types, ansi, sql)
    if check.operator.startswith(JOINED):
        return _joined_apart(check, types, sql)
    if check.operator.startswith(ELEMENT_ARGUMENT):
        return _element_mismatch(check, types, sql)
    if check.operator == CHECKED[exp.IntDiv]:
        fractional = _fractional_div(check, types, sql)
        if fractional is not None:
            return fractional
    if check.operator != "CAST":
        complex_error = _complex_mixed(check, types, sql)
        if complex_error is not None:
            return complex_error
    moment_error = (
        _moment_with_number(check, types, sql)
        or _interval_with_number(check, types, sql)
        or _moment_with_interval(check, types, sql)
        or _boolean_mixed(check, types, ansi, sql)
    )
    if moment_error is not None:
        return moment_error
    strings = [(o, t) for o, t in zip(check.operands, types) if _is_string(t)]
    others = [(o, t) for o, t in zip(check.operands, types) if not _is_string(t) and t != "void"]
    if strings and not others and check.glue and not ansi and check.operator in _MOMENT_ARITHMETIC:
        operand = strings[0][0]  # Spark's arithmetic of strings alone: of their DOUBLEs
        return SemanticError(
            f"{check.operator} of {operand.text} (STRING) in {check.clause}: DEFINE evaluates "
            "this per match, without Spark's implicit cast of strings to DOUBLE",
            sql=sql,
            pos=operand.pos,
            hint=f"convert explicitly, e.g. try_cast({operand.text} AS DOUBLE)",
        )
    if not strings or not others:
        return None
    if all(t == "binary" for _, t in others):
        return None  # a string's cast to BINARY (its UTF-8 bytes) never fails
    # the glue casts a string literal compared with other types as Spark does
    # (``implicit_casts.literal_cast``), any other string it cannot
    casts_literal = check.operator in _LITERAL_CASTS
    culprits = [(o, t) for o, t in strings if not o.literal or (check.glue and not casts_literal)]
    if not culprits or not (ansi or check.glue) or check.casts_strings:
        return None
    operand, _ = culprits[0]
    other, other_type = others[0]
    target = other_type.upper()
    if check.glue:
        why = (
            "DEFINE evaluates this per match, without Spark's implicit casts between "
            "strings and other types"
        )
    else:
        why = (
            "under ANSI mode Spark converts the string implicitly while the query runs "
            "and fails on the first value that does not convert"
        )
    return SemanticError(
        f"{check.operator} mixes {operand.text} (STRING) and {other.text} ({target}) in "
        f"{check.clause}: {why}",
        sql=sql,
        pos=operand.pos,
        hint=f"convert explicitly, e.g. try_cast({operand.text} AS {target}), or compare "
        "values of one type",
    )
