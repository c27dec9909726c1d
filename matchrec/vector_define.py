"""Match-dependent DEFINE conditions as array expressions, evaluated for many threads at once.

The Python "glue" of a DEFINE condition (``B.price >= A.price AND avg(B.price) < A.price + 1``)
reads the match through a few kinds of values: the current row, the first or last row of a
label set (``A.price`` in ``DEFINE B`` is the last A row so far), and running aggregates
over a label set. All of them follow from a small fixed-size state per thread, updated
as each row gets its label: the first and last row of each label set, and count, sum,
min and max of each aggregated column. :mod:`matchrec.wave` keeps that state as arrays,
one slot per thread, and evaluates the condition for thousands of threads with a few
NumPy operations instead of a Python call per thread and row.

The planner builds these expressions next to the scalar evaluators; where a condition
uses something this module does not cover (CLASSIFIER, MATCH_NUMBER, an offset inside
FIRST/LAST, a function outside the table below), it builds none and the scalar matcher
runs. Values are NumPy arrays with a validity mask (SQL NULL where the mask is False);
arithmetic follows Python's, as the scalar evaluators do, so both give the same verdicts.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import numpy as np

from matchrec.integer_width import IntegerWidth

LabelSet = frozenset | None  # label ids; None: every row of the match


@dataclass(frozen=True)
class Const:
    value: Any


@dataclass(frozen=True)
class Current:
    """Column ``name`` at the row being tested."""

    name: str


@dataclass(frozen=True)
class Nav:
    """Column ``name`` at the first (``from_end`` False) or last row of ``labels`` in the
    match so far, then ``physical`` rows further in the partition."""

    name: str
    labels: LabelSet
    from_end: bool
    physical: int


@dataclass(frozen=True)
class Agg:
    """A running aggregate (COUNT, SUM, AVG, MIN, MAX) of ``name`` (None: ``count(*)``)
    over the rows of ``labels`` in the match so far."""

    func: str
    name: str | None
    labels: LabelSet


@dataclass(frozen=True)
class Op:
    """An operator of the table ``OPERATORS`` applied to ``args``."""

    op: str
    args: tuple


@dataclass(frozen=True)
class Checked:
    """An integer operator (``+``, ``-``, ``*``, ``neg``) whose result Spark keeps in a
    fixed width (:class:`matchrec.integer_width.IntegerWidth`, set before the query
    runs): a result that may not fit sends the search to the scalar matcher, which
    wraps it or raises as Spark does. A FLOAT result is rounded to single precision."""

    inner: Op
    width: IntegerWidth = field(compare=False)


VExpr = Const | Current | Nav | Agg | Op | Checked

AGG_FUNCS = frozenset({"COUNT", "SUM", "AVG", "MEAN", "MIN", "MAX"})


# ------------------------------------------------------------------------------ state

Value = tuple[np.ndarray, np.ndarray]  # values, valid (0-d True: no NULL)


def state_keys(exprs: Mapping[int, VExpr]) -> list[tuple]:
    """The per-thread state slots the conditions read, in a fixed order.

    ``("first", L)``/``("last", L)``: row index (-1: none yet); ``("count", L, c)``: rows
    of L where column c is not NULL (c None: all rows); ``("sum"|"min"|"max", L, c)``.
    """
    keys: dict[tuple, None] = {}
    for expr in exprs.values():
        for node in _walk(expr):
            if isinstance(node, Nav) and node.labels is not None:
                keys[("first" if not node.from_end else "last", node.labels)] = None
            elif isinstance(node, Agg):
                keys[("count", node.labels, node.name)] = None
                if node.func in ("SUM", "AVG", "MEAN"):
                    keys[("sum", node.labels, node.name)] = None
                elif node.func in ("MIN", "MAX"):
                    keys[(node.func.lower(), node.labels, node.name)] = None
    return list(keys)


def columns_read(exprs: Mapping[int, VExpr]) -> set[str]:
    """Every column a condition reads."""
    names: set[str] = set()
    for expr in exprs.values():
        for node in _walk(expr):
            name = getattr(node, "name", None)
            if isinstance(node, (Current, Nav, Agg)) and name is not None:
                names.add(name)
    return names


def has_decimal(exprs: Mapping[int, VExpr]) -> bool:
    """Whether a condition has a DECIMAL constant."""
    return any(
        isinstance(node, Const) and isinstance(node.value, Decimal)
        for expr in exprs.values()
        for node in _walk(expr)
    )


def _walk(expr: VExpr):
    yield expr
    if isinstance(expr, Checked):
        yield from _walk(expr.inner)
    if isinstance(expr, Op):
        for a in expr.args:
            yield from _walk(a)


class Columns:
    """Numeric columns of the rows being matched, as (values, valid) NumPy pairs; valid
    is a 0-d True for a column without NULL (it then broadcasts, and costs nothing)."""

    def __init__(self, arrays: Mapping[str, tuple[np.ndarray, np.ndarray]]):
        self.arrays = arrays
        self._long_sums: dict[str, bool] = {}
        self._specials: dict[str, tuple[bool, bool]] = {}
        #: per comparison of a compiled condition (:func:`_compile`): whether each side
        #: may be NaN over these columns
        self.facts: dict[int, tuple[bool, bool]] = {}

    def __getitem__(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        return self.arrays[name]

    def long_sums(self, name: str) -> bool:
        """Whether every sum of integer column ``name``'s rows fits int64 at every row it
        adds: its absolute values add up (in doubles, rounding included) below 2**62."""
        fits = self._long_sums.get(name)
        if fits is None:
            values, valid = self.arrays[name]
            magnitude = np.abs(values.astype(np.float64))
            if valid.ndim:
                magnitude = magnitude[valid]
            fits = self._long_sums[name] = bool(magnitude.sum() < 2.0**62)
        return fits

    def specials(self, name: str) -> tuple[bool, bool]:
        """Whether column ``name`` holds a NaN, and an infinity, at any row (NULL rows
        included: whatever they hold is read too); False for columns of no floats."""
        found = self._specials.get(name)
        if found is None:
            values = self.arrays[name][0]
            if values.dtype.kind != "f":
                found = (False, False)
            else:
                found = (bool(np.isnan(values).any()), bool(np.isinf(values).any()))
            self._specials[name] = found
        return found


def specials(expr: VExpr, columns: Columns) -> tuple[bool, bool]:
    """Whether ``expr`` may be NaN, and may be infinite, at some thread over
    ``columns`` (conservative: True when not sure). Only a NaN or an infinity in a
    column, or arithmetic on infinities, makes a NaN: a sum of finite doubles may
    overflow to an infinity, never to NaN (it cannot come back from an infinity)."""
    if isinstance(expr, Const):
        value = float(expr.value) if isinstance(expr.value, (float, Decimal)) else 0.0
        return math.isnan(value), math.isinf(value)
    if isinstance(expr, (Current, Nav)):
        return columns.specials(expr.name)
    if isinstance(expr, Agg):
        if expr.func == "COUNT" or expr.name is None:
            return False, False
        nan, inf = columns.specials(expr.name)
        if expr.func in ("MIN", "MAX"):
            return nan, inf
        return nan or inf, True  # SUM, AVG: inf + -inf is NaN; a sum may overflow
    if isinstance(expr, Checked):
        return specials(expr.inner, columns)
    if not isinstance(expr, Op):
        return True, True
    if expr.op in _BOOLEAN_RESULTS:
        return False, False
    args = [specials(a, columns) for a in expr.args]
    nan = any(n for n, _ in args)
    inf = any(i for _, i in args)
    if expr.op in ("neg", "abs", "coalesce", "greatest", "least"):
        return nan, inf
    if expr.op in ("+", "-", "/", "/ansi"):
        # inf - inf and inf / inf are NaN; x / 0 is NULL (divided by 1)
        return nan or all(i for _, i in args), True
    if expr.op == "*":
        return nan or inf, True  # 0 * inf is NaN
    return True, True


def initial_state(keys: list[tuple], columns: Columns, size: int) -> dict[tuple, np.ndarray]:
    """The state of ``size`` threads that have matched no row yet."""
    state: dict[tuple, np.ndarray] = {}
    for key in keys:
        kind = key[0]
        if kind in ("first", "last"):
            state[key] = np.full(size, -1, dtype=np.int64)
        elif kind == "count":
            state[key] = np.zeros(size, dtype=np.int64)
        else:
            dtype = columns[key[2]][0].dtype
            if kind == "sum" and np.issubdtype(dtype, np.integer):
                # Spark's sum of integers is a BIGINT, checked (ANSI) or wrapped at each
                # row: the scalar matcher does that where a total may leave int64
                # (integer columns come as int64)
                if not columns.long_sums(key[2]):
                    raise NeedsScalar("integer overflow")
            state[key] = np.zeros(size, dtype=dtype)
    return state


def advance(
    state: dict[tuple, np.ndarray],
    label: int,
    rows: np.ndarray,
    current: Callable[[str], Value],
) -> dict[tuple, np.ndarray]:
    """The state after each thread's row ``rows[i]`` got ``label`` (new arrays; the
    inputs are not changed); ``current(name)`` is column ``name`` at ``rows``."""
    out = dict(state)
    for key, values in state.items():
        kind, labels = key[0], key[1]
        if labels is not None and label not in labels:
            continue
        if kind == "first":
            out[key] = np.where(values < 0, rows, values)
        elif kind == "last":
            out[key] = rows
        else:
            name = key[2]
            if name is None:
                out[key] = values + 1
                continue
            v, ok = current(name)
            every = ok.ndim == 0  # no NULL in the column
            if kind == "count":
                out[key] = values + 1 if every else values + ok
            elif kind == "sum":
                with np.errstate(invalid="ignore", over="ignore"):  # inf + -inf is NaN in Spark too
                    out[key] = values + v if every else np.where(ok, values + v, values)
            else:
                empty = state[("count", labels, name)] == 0
                # NaN is the largest double in Spark: max keeps it, min skips it
                pick = first_minimum if kind == "min" else first_maximum
                merged = np.where(empty, v, pick(values, v))
                out[key] = merged if every else np.where(ok, merged, values)
    return out


# ------------------------------------------------------------------------------ evaluation


class Threads:
    """What a condition sees for a batch of threads testing ``label``: the row each
    tests, the match start, the updated state, and (computed when asked for) the bounds
    of the partition around the row. Values read once are kept for the call.
    ``starts`` may be a function that gives them, called when a condition reads them
    (most do not)."""

    def __init__(
        self,
        label: int,
        rows: np.ndarray,
        starts: np.ndarray | Callable[[], np.ndarray],
        columns: Columns,
        bounds: Callable[[], tuple[np.ndarray, np.ndarray]],
    ):
        self.label, self.rows, self.columns = label, rows, columns
        self._starts = starts
        self.state: dict[tuple, np.ndarray] = {}
        self._bounds = bounds
        self._known: tuple[np.ndarray, np.ndarray] | None = None
        self.memo: dict[VExpr | int, Value] = {}  # int: a leaf of a compiled verdict
        self._current: dict[str, Value] = {}

    @property
    def starts(self) -> np.ndarray:
        """The start row of each thread's match."""
        if callable(self._starts):
            self._starts = self._starts()
        return self._starts

    @property
    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """The first row of each thread's partition, and the row after its last."""
        if self._known is None:
            self._known = self._bounds()
        return self._known

    def current(self, name: str) -> Value:
        """Column ``name`` at each thread's row."""
        found = self._current.get(name)
        if found is None:
            data, valid = self.columns[name]
            found = self._current[name] = (data[self.rows], _at(valid, self.rows))
        return found


def _at(valid: np.ndarray, rows: np.ndarray) -> np.ndarray:
    return valid if valid.ndim == 0 else valid[rows]


def evaluate(expr: VExpr, t: Threads) -> Value:
    """The value of ``expr`` for every thread of ``t`` (a value read twice is read once)."""
    if isinstance(expr, Op):
        return _op(expr, t)
    if isinstance(expr, Checked):
        return _checked(expr, t)
    found = t.memo.get(expr)
    if found is None:
        found = t.memo[expr] = _EVAL[type(expr)](expr, t)
    return found


def verdict(expr: VExpr, t: Threads) -> np.ndarray:
    """Where ``expr`` is TRUE (NULL and FALSE both fail a DEFINE condition)."""
    with np.errstate(all="ignore"):
        values, valid = evaluate(expr, t)
    return _truth(values, valid, len(t.rows))


def _truth(values: Any, valid: np.ndarray, size: int) -> np.ndarray:
    """Where a condition's value is TRUE, for ``size`` threads."""
    out = np.asarray(values, dtype=bool)
    if valid.ndim or not valid:  # a 0-d True (no NULL) needs no AND, nor its copy
        out = out & valid
    return out if out.ndim else np.full(size, bool(out))


Verdict = Callable[[Threads], np.ndarray]


def compile_verdict(expr: VExpr) -> Verdict:
    """:func:`verdict` of ``expr`` as one function built once: the tree is walked when
    it is built, not at each call (no dispatch on node types, constants made once, equal
    leaves read once per call through a memo keyed by a small number), which is most of
    the fixed cost of a step of :mod:`matchrec.wave` when few threads are left."""
    return _verdict(_compile(expr, {}))


def compile_verdicts(exprs: Mapping[int, VExpr]) -> dict[int, Verdict]:
    """:func:`compile_verdict` of each of ``exprs``, with one numbering of their leaves:
    called in turn on one :class:`Threads` of label -1 (so no aggregate may read the
    label), they read a value they share once."""
    slots: dict[VExpr, int] = {}
    return {key: _verdict(_compile(expr, slots)) for key, expr in exprs.items()}


def _verdict(value: Callable[[Threads], Value]) -> Verdict:
    def run(t: Threads) -> np.ndarray:
        with np.errstate(all="ignore"):
            values, valid = value(t)
        return _truth(values, valid, len(t.rows))

    return run


_COMPARISON_IDS = itertools.count()


def _compile_comparison(
    expr: Op, left: Callable[[Threads], Value], right: Callable[[Threads], Value]
) -> Callable[[Threads], Value]:
    """A comparison that skips the NaN rule of a side that holds no NaN over the
    columns of the call (:func:`specials`, found once per set of columns)."""
    compare = _COMPARISONS[expr.op]
    key = next(_COMPARISON_IDS)
    x, y = expr.args

    def compared(t: Threads) -> Value:
        facts = t.columns.facts.get(key)
        if facts is None:
            facts = (specials(x, t.columns)[0], specials(y, t.columns)[0])
            t.columns.facts[key] = facts
        (a, va), (b, vb) = left(t), right(t)
        return compare(a, b, *facts), _valid_both(va, vb)

    return compared


def _compile(expr: VExpr, slots: dict[VExpr, int]) -> Callable[[Threads], Value]:
    """A function of the threads giving ``expr``'s value, as :func:`evaluate` does;
    ``slots`` numbers the distinct leaves (equal leaves share a number)."""
    if isinstance(expr, Op) and expr.op in _COMPARISONS:
        return _compile_comparison(
            expr, _compile(expr.args[0], slots), _compile(expr.args[1], slots)
        )
    if isinstance(expr, Op):
        apply = OPERATORS[expr.op]
        args = tuple(_compile(a, slots) for a in expr.args)
        return lambda t: apply([a(t) for a in args])
    if isinstance(expr, Checked):
        checked = tuple(_compile(a, slots) for a in expr.inner.args)
        return lambda t: _checked_args(expr, [a(t) for a in checked])
    if isinstance(expr, Const):
        constant = _const(expr, None)  # never written to: every operator makes new arrays
        return lambda t: constant
    slot = slots.setdefault(expr, len(slots))
    read = _EVAL[type(expr)]

    def leaf(t: Threads) -> Value:
        found = t.memo.get(slot)
        if found is None:
            found = t.memo[slot] = read(expr, t)
        return found

    return leaf


def _const(expr: Const, t: Threads) -> Value:
    """A constant as 0-d arrays: NumPy broadcasts them against the threads' values."""
    value = expr.value
    if value is None:
        return np.asarray(0.0), np.asarray(False)
    if isinstance(value, Decimal):
        value = float(value)
    return np.asarray(value), np.asarray(True)


def _current(expr: Current, t: Threads) -> Value:
    return t.current(expr.name)


def _nav(expr: Nav, t: Threads) -> Value:
    data, valid = t.columns[expr.name]
    if expr.labels is None:
        if expr.physical == 0:
            return t.current(expr.name) if expr.from_end else (data[t.starts], _at(valid, t.starts))
        base = t.rows if expr.from_end else t.starts
        found = np.asarray(True)
    else:
        base = t.state[("last" if expr.from_end else "first", expr.labels)]
        if not len(base) or base.min() >= 0:
            found = np.asarray(True)  # one reduction, where most threads have the row
        else:
            found = base >= 0
    if expr.physical == 0:  # a row of the match: inside the partition
        if found.ndim == 0:
            return data[base], _at(valid, base)
        safe = np.where(found, base, 0)
        return data[safe], _at(valid, safe) & found
    target = base + expr.physical
    lows, highs = t.bounds
    inside = found & (target >= lows) & (target < highs)
    safe = np.where(inside, target, 0)
    return data[safe], _at(valid, safe) & inside


def _agg(expr: Agg, t: Threads) -> Value:
    count = t.state[("count", expr.labels, expr.name)]
    if expr.func == "COUNT":
        return count, np.asarray(True)
    if (expr.labels is None or t.label in expr.labels) and t.columns[expr.name][1].ndim == 0:
        has = np.asarray(True)  # the current row is in the set and its value is not NULL
        if expr.func in ("AVG", "MEAN"):
            return t.state[("sum", expr.labels, expr.name)] / count, has
    else:
        has = count > 0
    if expr.func in ("SUM", "AVG", "MEAN"):
        total = t.state[("sum", expr.labels, expr.name)]
        if expr.func == "SUM":
            return total, has
        return total / np.where(has, count, 1), has
    return t.state[(expr.func.lower(), expr.labels, expr.name)], has


def _both(fn: Callable[[np.ndarray, np.ndarray], np.ndarray]):
    def apply(args: list[Value]) -> Value:
        (a, va), (b, vb) = args
        return fn(a, b), _valid_both(va, vb)

    return apply


def _valid_both(va: np.ndarray, vb: np.ndarray) -> np.ndarray:
    """``va & vb``, without a NumPy call when one is a 0-d True (no NULL)."""
    if vb.ndim == 0 and vb:
        return va
    if va.ndim == 0 and va:
        return vb
    return va & vb


def _nan_mask(a: Any, may: bool = True) -> np.ndarray | None:
    """Where ``a`` is NaN, or None where it cannot be (``may`` False: known not to; no
    floats; or a number that is not NaN): a comparison then needs no NaN rule, and
    skips its NumPy calls."""
    if not may:
        return None
    a = np.asarray(a)
    if a.dtype.kind != "f":
        return None
    if a.ndim == 0:
        return a if np.isnan(a) else None  # a NaN constant: a 0-d float that is truthy
    return np.isnan(a)


def _or_nan(out: Any, nan: np.ndarray | None) -> Any:
    """``out | nan`` (``nan`` None: all False)."""
    return out if nan is None else out | (np.asarray(nan, dtype=bool))


# Spark's comparisons of doubles (NaN = NaN, NaN above everything), as NumPy's are not:
# each is one NumPy comparison, plus an isnan and an OR per side that may hold a NaN
# (``a_nan``/``b_nan`` False: that side is known to hold none, see :func:`specials`)


def _spark_equal(a: Any, b: Any, a_nan: bool = True, b_nan: bool = True) -> Any:
    """Spark's ``=``: NaN equals NaN."""
    out = np.equal(a, b)
    na = _nan_mask(a, a_nan)
    nb = None if na is None else _nan_mask(b, b_nan)
    if na is None or nb is None:
        return out
    return out | (np.asarray(na, dtype=bool) & np.asarray(nb, dtype=bool))


def _spark_not_equal(a: Any, b: Any, a_nan: bool = True, b_nan: bool = True) -> Any:
    return ~np.asarray(_spark_equal(a, b, a_nan, b_nan))


def _spark_greater_equal(a: Any, b: Any, a_nan: bool = True, b_nan: bool = True) -> Any:
    """Spark's ``>=``: NaN is larger than any other double and equal to NaN, so
    ``a >= b`` holds where NumPy's does or where ``a`` is NaN."""
    return _or_nan(np.greater_equal(a, b), _nan_mask(a, a_nan))


def _spark_less_equal(a: Any, b: Any, a_nan: bool = True, b_nan: bool = True) -> Any:
    """Spark's ``<=``: NumPy's, or ``b`` is NaN."""
    return _or_nan(np.less_equal(a, b), _nan_mask(b, b_nan))


def _spark_less(a: Any, b: Any, a_nan: bool = True, b_nan: bool = True) -> Any:
    """Spark's ``<``: NaN is larger than any other double (NaN's order is total, so
    ``a < b`` is ``NOT a >= b``)."""
    return ~np.asarray(_spark_greater_equal(a, b, a_nan, b_nan))


def _spark_greater(a: Any, b: Any, a_nan: bool = True, b_nan: bool = True) -> Any:
    """Spark's ``>``: ``NOT a <= b``."""
    return ~np.asarray(_spark_less_equal(a, b, a_nan, b_nan))


_COMPARISONS: dict[str, Callable[..., Any]] = {
    "=": _spark_equal,
    "<>": _spark_not_equal,
    "<": _spark_less,
    "<=": _spark_less_equal,
    ">": _spark_greater,
    ">=": _spark_greater_equal,
}
# operators whose result is a boolean (never NaN)
_BOOLEAN_RESULTS = frozenset({*_COMPARISONS, "and", "or", "not", "is_null", "is_not_null"})


def _divide(args: list[Value]) -> Value:
    (a, va), (b, vb) = args
    zero = b == 0
    out = np.true_divide(a, np.where(zero, 1, b))
    return out, va & vb & ~zero


class NeedsScalar(ArithmeticError):
    """A zero divisor under ANSI mode, or an integer result or sum that may leave its
    width: Spark raises (or wraps) where the condition is evaluated, but the array form
    evaluates threads the scalar matcher may never reach. The caller runs the scalar
    matcher instead, which raises (positioned) or wraps only if it gets there."""


def _divide_ansi(args: list[Value]) -> Value:
    (a, va), (b, vb) = args
    if np.any(va & vb & (b == 0)):
        raise NeedsScalar("division by zero")
    return _divide(args)


def _and(args: list[Value]) -> Value:
    (a, va), (b, vb) = args
    if va.ndim == 0 and vb.ndim == 0 and va and vb:
        return np.asarray(a, dtype=bool) & np.asarray(b, dtype=bool), va
    false = (va & ~np.asarray(a, dtype=bool)) | (vb & ~np.asarray(b, dtype=bool))
    known = false | (va & vb)
    return ~false, known


def _or(args: list[Value]) -> Value:
    (a, va), (b, vb) = args
    if va.ndim == 0 and vb.ndim == 0 and va and vb:
        return np.asarray(a, dtype=bool) | np.asarray(b, dtype=bool), va
    true = (va & np.asarray(a, dtype=bool)) | (vb & np.asarray(b, dtype=bool))
    known = true | (va & vb)
    return true, known


def _not(args: list[Value]) -> Value:
    (a, va) = args[0]
    return ~np.asarray(a, dtype=bool), va


def _is_null(args: list[Value]) -> Value:
    (_, va) = args[0]
    return ~va, np.asarray(True)


def _is_not_null(args: list[Value]) -> Value:
    (_, va) = args[0]
    return va, np.asarray(True)


def _coalesce(args: list[Value]) -> Value:
    values, valid = args[0]
    values, valid = values.copy(), valid.copy()
    for v, ok in args[1:]:
        take = ~valid & ok
        values = np.where(take, v, values)
        valid = valid | ok
    return values, valid


def first_maximum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The larger of ``a`` and ``b`` at each position as Spark's max and greatest pick it:
    NaN above every double, and of equal values (-0.0 and 0.0) the first, ``a``
    (np.maximum takes ``b``)."""
    a, b = np.asarray(a), np.asarray(b)
    if np.result_type(a, b).kind != "f":
        return np.maximum(a, b)
    return np.where(np.isnan(b) | (b > a), b, a)


def first_minimum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The smaller of ``a`` and ``b`` at each position as Spark's min and least pick it: a
    NaN only where both are, and of equal values (-0.0 and 0.0) the first, ``a`` (np.fmin
    takes either on arrays)."""
    a, b = np.asarray(a), np.asarray(b)
    if np.result_type(a, b).kind != "f":
        return np.minimum(a, b)
    return np.where((b < a) | (np.isnan(a) & ~np.isnan(b)), b, a)


def _extreme(pick: Callable[[Any, Any], Any], args: list[Value]) -> Value:
    """``pick`` of the non-NULL arguments at each position; NULL where all are NULL."""
    values, valid = args[0]
    for v, ok in args[1:]:
        values = np.where(valid & ok, pick(values, v), np.where(ok, v, values))
        valid = valid | ok
    return values, valid


# operator name -> function of the evaluated arguments (NULL in, NULL out unless noted)
OPERATORS: dict[str, Callable[[list[Value]], Value]] = {
    "+": _both(np.add),
    "-": _both(np.subtract),
    "*": _both(np.multiply),
    "/": _divide,
    "/ansi": _divide_ansi,
    **{op: _both(compare) for op, compare in _COMPARISONS.items()},
    "neg": lambda args: (np.negative(args[0][0]), args[0][1]),
    "abs": lambda args: (np.abs(args[0][0]), args[0][1]),
    "and": _and,
    "or": _or,
    "not": _not,
    "is_null": _is_null,
    "is_not_null": _is_not_null,
    "coalesce": _coalesce,
    # Spark's greatest/least skip NULL arguments (NULL only when all are); NaN is the
    # largest double: greatest keeps it, least drops it
    "greatest": lambda args: _extreme(first_maximum, args),
    "least": lambda args: _extreme(first_minimum, args),
}


def _op(expr: Op, t: Threads) -> Value:
    return OPERATORS[expr.op]([evaluate(a, t) for a in expr.args])


def _checked(expr: Checked, t: Threads) -> Value:
    return _checked_args(expr, [evaluate(a, t) for a in expr.inner.args])


def _checked_args(expr: Checked, args: list[Value]) -> Value:
    """Checked ``expr`` applied to its evaluated arguments."""
    out = OPERATORS[expr.inner.op](args)
    if expr.width.single:  # a FLOAT result: Spark computes it in single precision
        with np.errstate(over="ignore"):  # past FLOAT's range: infinite, as Java's cast
            return out[0].astype(np.float32).astype(np.float64), out[1]
    bits = expr.width.bits
    if bits is None:
        return out
    # the same operator in doubles: exact below 2**53, so a result of up to 32 bits is
    # checked exactly; a 64-bit one near its bounds goes to the scalar matcher
    wide, _ = OPERATORS[expr.inner.op]([(np.asarray(v, dtype=np.float64), ok) for v, ok in args])
    limit = 2.0 ** (bits - 1) if bits < 64 else 2.0**62
    valid = out[1]
    if np.any((np.abs(wide) >= limit) & valid):
        raise NeedsScalar("integer overflow")
    return out


_EVAL: dict[type, Callable[[Any, Threads], Value]] = {
    Const: _const,
    Current: _current,
    Nav: _nav,
    Agg: _agg,
    Op: _op,
}
