"""Spark's higher-order array functions in DEFINE's glue, over values from several rows.

``exists(A.tags, t -> t = B.tag)`` reads two rows: Spark cannot compute it as a column,
so the glue runs the function itself. The planner compiles the lambda's body with each
parameter read from a slot (a one-item list); the functions here fill the slots per
element (the element, and its index where the lambda takes two parameters) and combine
the body's results as Spark does: ``exists`` and ``forall`` with three-valued logic (a
NULL verdict makes the answer NULL unless another element decides it), ``filter`` keeps
the elements whose verdict is true, ``transform`` maps, ``aggregate`` (``reduce``) folds
(``aggregate(collect_list(B.p), 0, (acc, x) -> acc + x)``), ``zip_with`` pairs two arrays,
``array_sort`` sorts by a comparator; a NULL array gives NULL. Of maps (``(k, v)``
lambdas): ``map_filter`` keeps the entries whose verdict is true, ``transform_values`` and
``transform_keys`` map one side of each entry, ``map_zip_with`` merges two maps key by key
(the first map's keys, then the second's new ones; a missing value is NULL).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cmp_to_key
from typing import Any

from sqlglot import exp

from matchrec.errors import MatchRuntimeError
from matchrec.navigation import Evaluator

from .glue_functions import checked_key, map_entries
from .lambda_names import bound_name
from .pyeval import guarded


def _binds(lam: exp.Expression, name: str) -> bool:
    return isinstance(lam, exp.Lambda) and any(p.name.lower() == name for p in lam.expressions)


def binding_lambda(node: exp.Expression, name: str) -> exp.Lambda | None:
    """The nearest lambda around ``node`` that has a parameter ``name`` (lower case)."""
    at = node.parent
    while at is not None and not _binds(at, name):
        at = at.parent
    return at if isinstance(at, exp.Lambda) else None


def reads_outer_parameter(node: exp.Expression) -> bool:
    """Whether ``node`` is a lambda, or reads a parameter of a lambda around it (then it
    is no expression on its own: it cannot be moved out of the lambda, e.g. into a
    navigation Spark computes). A lambda inside ``node`` binding the name is fine."""
    if isinstance(node, exp.Lambda):
        return True
    for n in node.walk():
        name = bound_name(n)
        if name is None:
            continue
        at = n
        while at is not node and not _binds(at, name):  # a lambda inside node binds it?
            at = at.parent
        if at is node and binding_lambda(node, name) is not None:
            return True  # a parameter of a lambda around node
    return False


def compiled_lambdas(
    lambdas: list[exp.Lambda],
    bound: dict[str, list[Any]],
    compile_body: Callable[[exp.Expression], Callable[[Any], Any]],
) -> tuple[list[Callable[[Any], Any]], list[list[list[Any]]]]:
    """Each lambda's body compiled by ``compile_body`` while its parameters are bound in
    ``bound`` to slots (a one-item list each, which the function fills per element; an
    outer binding of the same name is restored after), and those slots."""
    bodies, slots = [], []
    for lam in lambdas:
        params = [p.name.lower() for p in lam.expressions]
        lam_slots: list[list[Any]] = [[None] for _ in params]
        outer = {p: bound[p] for p in params if p in bound}
        bound.update(zip(params, lam_slots))
        try:
            bodies.append(compile_body(lam.this))
        finally:
            for p in params:
                del bound[p]
            bound.update(outer)
        slots.append(lam_slots)
    return bodies, slots


def higher_order_parts(
    node: exp.Expression,
) -> tuple[str, list[exp.Expression], list[exp.Lambda]] | None:
    """(kind, value arguments, lambdas) of a call of one of :data:`HIGHER_ORDER`, else
    None (also for a call whose lambdas are not where Spark takes them)."""
    if isinstance(node, exp.Reduce):  # aggregate/reduce(array, zero, merge[, finish])
        name = "AGGREGATE"
        args = [node.this, node.args.get("initial"), node.args.get("merge")]
        if node.args.get("finish") is not None:
            args.append(node.args["finish"])
    elif isinstance(node, exp.Anonymous):
        name, args = str(node.this).upper(), list(node.expressions)
    else:
        name = {
            exp.Exists: "EXISTS",
            exp.ArrayFilter: "FILTER",
            exp.Transform: "TRANSFORM",
            exp.ArraySort: "ARRAY_SORT",
        }.get(type(node), "")
        args = [node.this, node.args.get("expression")]
    spec = HIGHER_ORDER.get(name)
    if spec is None or not all(isinstance(a, exp.Expression) for a in args):
        return None
    values, lambdas = args[: spec.values], args[spec.values :]
    if len(lambdas) not in spec.lambdas or not all(isinstance(a, exp.Lambda) for a in lambdas):
        return None
    return name, values, lambdas  # type: ignore[return-value]


Slots = list[list[list[Any]]]  # per lambda, per parameter: a one-item list

_ELEMENT = "element_at({0}, 1)"
_KEY = "element_at(map_keys({0}), 1)"
_VALUE = "element_at(map_values({0}), 1)"
#: Spark SQL of each lambda parameter's type, by (lambda, parameter) index, over the
#: function's value arguments: the array's element, an INT index, the accumulator (the
#: zero's type, which Spark requires the merge to keep)
_PARAMETER_TYPES: dict[str, dict[tuple[int, int], str]] = {
    "EXISTS": {(0, 0): _ELEMENT},
    "FORALL": {(0, 0): _ELEMENT},
    "FILTER": {(0, 0): _ELEMENT, (0, 1): "0"},
    "TRANSFORM": {(0, 0): _ELEMENT, (0, 1): "0"},
    "AGGREGATE": {(0, 0): "{1}", (0, 1): _ELEMENT, (1, 0): "{1}"},
    "REDUCE": {(0, 0): "{1}", (0, 1): _ELEMENT, (1, 0): "{1}"},
    "ZIP_WITH": {(0, 0): _ELEMENT, (0, 1): "element_at({1}, 1)"},
    "ARRAY_SORT": {(0, 0): _ELEMENT, (0, 1): _ELEMENT},
    "MAP_FILTER": {(0, 0): _KEY, (0, 1): _VALUE},
    "TRANSFORM_VALUES": {(0, 0): _KEY, (0, 1): _VALUE},
    "TRANSFORM_KEYS": {(0, 0): _KEY, (0, 1): _VALUE},
    "MAP_ZIP_WITH": {(0, 0): _KEY, (0, 1): _VALUE, (0, 2): "element_at(map_values({1}), 1)"},
}


def parameter_probe(node: exp.Expression, probe: Callable[[exp.Expression], str]) -> str | None:
    """Spark SQL with the type of lambda parameter ``node`` (``x`` of ``x -> x + 1``)
    outside its lambda, given ``probe`` for the function's value arguments; None when
    ``node`` is no parameter. The runtime types an operator of a lambda's body (its
    integer width, its operands' mix) before any job runs: ``x`` alone is no SQL there."""
    name = bound_name(node) if isinstance(node, (exp.Column, exp.Identifier)) else None
    if name is None:
        return None
    lam = binding_lambda(node, name)
    parts = None if lam is None else higher_order_parts(lam.parent)
    if parts is None:
        return None
    kind, values, lambdas = parts
    at = next(k for k, candidate in enumerate(lambdas) if candidate is lam)
    params = [p.name.lower() for p in lam.expressions]
    template = _PARAMETER_TYPES.get(kind, {}).get((at, params.index(name)))
    if template is None:
        return None
    return "(" + template.format(*(probe(v) for v in values)) + ")"


def _element_loop(values: Evaluator, body: Evaluator, slots: list[list[Any]], ctx: Any):
    """Each element's lambda result, the parameters set (the element, its index)."""
    items = values(ctx)
    if items is None:
        return None
    out = []
    for i, item in enumerate(items):
        slots[0][0] = item
        if len(slots) > 1:
            slots[1][0] = i
        out.append((item, body(ctx)))
    return out


def _three_valued(decisive: bool) -> Callable[..., Evaluator]:
    """Spark's ``exists`` (``decisive`` True) and ``forall`` (False): the decisive verdict
    for one element decides; else NULL if one verdict was NULL; else the other answer (a
    NULL array gives NULL)."""

    def build(values: list[Evaluator], bodies: list[Evaluator], slots: Slots) -> Evaluator:
        def run(ctx: Any) -> Any:
            found = _element_loop(values[0], bodies[0], slots[0], ctx)
            if found is None:
                return None
            verdicts = [v for _, v in found]
            if any(v is decisive for v in verdicts):
                return decisive
            return None if any(v is None for v in verdicts) else not decisive

        return run

    return build


def _filter(values: list[Evaluator], bodies: list[Evaluator], slots: Slots) -> Evaluator:
    def run(ctx: Any) -> Any:
        found = _element_loop(values[0], bodies[0], slots[0], ctx)
        return None if found is None else [item for item, keep in found if keep is True]

    return run


def _transform(values: list[Evaluator], bodies: list[Evaluator], slots: Slots) -> Evaluator:
    def run(ctx: Any) -> Any:
        found = _element_loop(values[0], bodies[0], slots[0], ctx)
        return None if found is None else [result for _, result in found]

    return run


def _aggregate(values: list[Evaluator], bodies: list[Evaluator], slots: Slots) -> Evaluator:
    """Spark's ``aggregate``/``reduce``: the accumulator starts at the zero, the merge
    function folds each element in, in order; the finish function (if any) maps the
    result. A NULL array gives NULL; NULL elements are handed to merge as they are."""
    (array, zero), merge = values, bodies[0]
    finish = bodies[1] if len(bodies) > 1 else None

    def run(ctx: Any) -> Any:
        items = array(ctx)
        if items is None:
            return None
        acc = zero(ctx)
        for item in items:
            slots[0][0][0], slots[0][1][0] = acc, item
            acc = merge(ctx)
        if finish is None:
            return acc
        slots[1][0][0] = acc
        return finish(ctx)

    return run


def _zip_with(values: list[Evaluator], bodies: list[Evaluator], slots: Slots) -> Evaluator:
    """Spark's ``zip_with``: the function of the elements at each index, the shorter
    array padded with NULLs; a NULL array gives NULL."""

    def run(ctx: Any) -> Any:
        left, right = values[0](ctx), values[1](ctx)
        if left is None or right is None:
            return None
        out = []
        for i in range(max(len(left), len(right))):
            slots[0][0][0] = left[i] if i < len(left) else None
            slots[0][1][0] = right[i] if i < len(right) else None
            out.append(bodies[0](ctx))
        return out

    return run


def _sorted_by(values: list[Evaluator], bodies: list[Evaluator], slots: Slots) -> Evaluator:
    """Spark's ``array_sort(array, (l, r) -> ...)``: a stable sort by the comparator's
    sign; a NULL comparator result is Spark's error."""
    left, right = slots[0][0], slots[0][1]

    def compare(a: Any, b: Any, ctx: Any) -> int:
        left[0], right[0] = a, b
        verdict = bodies[0](ctx)
        if verdict is None:
            raise MatchRuntimeError(
                "[COMPARATOR_RETURNS_NULL] the comparator of array_sort() returned NULL "
                f"comparing {a!r} and {b!r}; it should return a number (negative, 0 or "
                "positive) for every pair"
            )
        return (verdict > 0) - (verdict < 0)

    def run(ctx: Any) -> Any:
        items = values[0](ctx)
        if items is None:
            return None
        return sorted(items, key=cmp_to_key(lambda a, b: compare(a, b, ctx)))

    return run


def _entry_loop(values: Evaluator, body: Evaluator, slots: list[list[Any]], ctx: Any):
    """Each entry of a map with its lambda's result, the parameters set (key, value)."""
    entries = values(ctx)
    if entries is None:
        return None
    out = []
    for key, value in map_entries(entries):
        slots[0][0], slots[1][0] = key, value
        out.append((key, value, body(ctx)))
    return out


def _map_filter(values: list[Evaluator], bodies: list[Evaluator], slots: Slots) -> Evaluator:
    def run(ctx: Any) -> Any:
        found = _entry_loop(values[0], bodies[0], slots[0], ctx)
        return None if found is None else {k: v for k, v, keep in found if keep is True}

    return run


def _transform_values(values: list[Evaluator], bodies: list[Evaluator], slots: Slots) -> Evaluator:
    def run(ctx: Any) -> Any:
        found = _entry_loop(values[0], bodies[0], slots[0], ctx)
        return None if found is None else {k: result for k, _, result in found}

    return run


def _transform_keys(values: list[Evaluator], bodies: list[Evaluator], slots: Slots) -> Evaluator:
    """Spark's ``transform_keys``: a NULL or repeated new key is its error (NULL_MAP_KEY,
    DUPLICATED_MAP_KEY under the default spark.sql.mapKeyDedupPolicy=EXCEPTION; under
    LAST_WIN the last value at the first place)."""

    def run(ctx: Any) -> Any:
        found = _entry_loop(values[0], bodies[0], slots[0], ctx)
        if found is None:
            return None
        result: dict[Any, Any] = {}
        for _, value, key in found:
            result[checked_key(key, result)] = value
        return result

    return run


def _map_zip_with(values: list[Evaluator], bodies: list[Evaluator], slots: Slots) -> Evaluator:
    """Spark's ``map_zip_with(m1, m2, (k, v1, v2) -> f)``: every key of m1, then the keys of
    m2 not in m1, each with f of its two values (NULL where a map lacks the key); a NULL
    map gives NULL."""
    key, first, second = (slot for slot in slots[0])

    def run(ctx: Any) -> Any:
        left, right = values[0](ctx), values[1](ctx)
        if left is None or right is None:
            return None
        left_entries, right_entries = dict(map_entries(left)), dict(map_entries(right))
        result = {}
        for k in [*left_entries, *(k for k in right_entries if k not in left_entries)]:
            key[0], first[0], second[0] = k, left_entries.get(k), right_entries.get(k)
            result[k] = bodies[0](ctx)
        return result

    return run


@dataclass(frozen=True)
class HigherOrder:
    """How the glue runs one of Spark's higher-order functions."""

    values: int  # the value arguments before the lambdas
    lambdas: tuple[int, ...]  # how many lambdas it may take
    params: tuple[tuple[int, ...], ...]  # per lambda: the parameter counts it may take
    build: Callable[[list[Evaluator], list[Evaluator], Slots], Evaluator]
    takes: str  # the parameters, as an error message says them

    def evaluator(
        self,
        kind: str,
        values: list[Evaluator],
        bodies: list[Evaluator],
        slots: Slots,
        sql: str,
        pos: int,
    ) -> Evaluator:
        """The function's evaluator; a value it rejects (a repeated key of
        ``transform_keys``) is a run-time error at ``pos``, as a call's is."""
        return guarded(self.build(values, bodies, slots), f"function {kind.lower()}()", sql, pos)


#: Spark's higher-order functions of arrays the glue runs, by name
HIGHER_ORDER: dict[str, HigherOrder] = {
    "EXISTS": HigherOrder(1, (1,), ((1,),), _three_valued(True), "one parameter"),
    "FORALL": HigherOrder(1, (1,), ((1,),), _three_valued(False), "one parameter"),
    "FILTER": HigherOrder(1, (1,), ((1, 2),), _filter, "one or two parameters (x, index)"),
    "TRANSFORM": HigherOrder(1, (1,), ((1, 2),), _transform, "one or two parameters (x, index)"),
    "AGGREGATE": HigherOrder(
        2, (1, 2), ((2,), (1,)), _aggregate, "(acc, x) to merge and (acc) to finish"
    ),
    "REDUCE": HigherOrder(
        2, (1, 2), ((2,), (1,)), _aggregate, "(acc, x) to merge and (acc) to finish"
    ),
    "ZIP_WITH": HigherOrder(2, (1,), ((2,),), _zip_with, "two parameters (x, y)"),
    "ARRAY_SORT": HigherOrder(1, (1,), ((2,),), _sorted_by, "two parameters (left, right)"),
    "MAP_FILTER": HigherOrder(1, (1,), ((2,),), _map_filter, "two parameters (key, value)"),
    "TRANSFORM_VALUES": HigherOrder(
        1, (1,), ((2,),), _transform_values, "two parameters (key, value)"
    ),
    "TRANSFORM_KEYS": HigherOrder(1, (1,), ((2,),), _transform_keys, "two parameters (key, value)"),
    "MAP_ZIP_WITH": HigherOrder(
        2, (1,), ((3,),), _map_zip_with, "three parameters (key, value1, value2)"
    ),
}
