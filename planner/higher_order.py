"""Spark's higher-order array functions in DEFINE's glue, over values from several rows.

``exists(A.tags, t -> t = B.tag)`` reads two rows: Spark cannot compute it as a column,
so the glue runs the function itself. The planner compiles the lambda's body with each
parameter read from a slot (a one-item list); the functions here fill the slots per
element (the element, and its index where the lambda takes two parameters) and combine
the body's results as Spark does: ``exists`` and ``forall`` with three-valued logic (a
NULL verdict makes the answer NULL unless another element decides it), ``filter`` keeps
the elements whose verdict is true, ``transform`` maps; a NULL array gives NULL.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlglot import exp

from matchrec.navigation import Evaluator


def bound_name(node: exp.Expression) -> str | None:
    """The name a reference may bind to a lambda parameter: an unqualified column, or a
    bare identifier (sqlglot parses a parameter's use in a lambda body as one), also
    the struct of a field access (``e.k``: sqlglot's Dot of identifiers e and k)."""
    if isinstance(node, exp.Column):
        if not node.table and isinstance(node.this, exp.Identifier):
            return node.name.lower()
        return None
    if isinstance(node, exp.Identifier):
        parent = node.parent
        if isinstance(parent, exp.Dot) and parent.this is node:
            return node.name.lower()
        if not isinstance(parent, (exp.Column, exp.Dot, exp.Lambda, exp.Alias, exp.PropertyEQ)):
            return node.name.lower()
    return None


def _binds(lam: exp.Expression, name: str) -> bool:
    return isinstance(lam, exp.Lambda) and any(p.name.lower() == name for p in lam.expressions)


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
        if at is node:  # no: is it a parameter of a lambda around node?
            at = node.parent
            while at is not None and not _binds(at, name):
                at = at.parent
            if at is not None:
                return True
    return False


def higher_order_parts(node: exp.Expression) -> tuple[str, exp.Expression, exp.Lambda] | None:
    """(kind, array, lambda) of a call of one of :data:`HIGHER_ORDER`, else None."""
    if isinstance(node, exp.Anonymous):
        name, args = str(node.this).upper(), node.expressions
    else:
        name = {exp.Exists: "EXISTS", exp.ArrayFilter: "FILTER", exp.Transform: "TRANSFORM"}.get(
            type(node), ""
        )
        args = [node.this, node.args.get("expression")]
    if name in HIGHER_ORDER and len(args) == 2 and isinstance(args[1], exp.Lambda):
        return name, args[0], args[1]
    return None


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

    def build(values: Evaluator, body: Evaluator, slots: list[list[Any]]) -> Evaluator:
        def run(ctx: Any) -> Any:
            found = _element_loop(values, body, slots, ctx)
            if found is None:
                return None
            verdicts = [v for _, v in found]
            if any(v is decisive for v in verdicts):
                return decisive
            return None if any(v is None for v in verdicts) else not decisive

        return run

    return build


def _filter(values: Evaluator, body: Evaluator, slots: list[list[Any]]) -> Evaluator:
    def run(ctx: Any) -> Any:
        found = _element_loop(values, body, slots, ctx)
        return None if found is None else [item for item, keep in found if keep is True]

    return run


def _transform(values: Evaluator, body: Evaluator, slots: list[list[Any]]) -> Evaluator:
    def run(ctx: Any) -> Any:
        found = _element_loop(values, body, slots, ctx)
        return None if found is None else [result for _, result in found]

    return run


#: Spark's higher-order functions of an array the glue runs: name -> (most lambda
#: parameters, the evaluator built of the array, the body and the parameter slots)
HIGHER_ORDER: dict[str, tuple[int, Callable[..., Evaluator]]] = {
    "EXISTS": (1, _three_valued(True)),
    "FORALL": (1, _three_valued(False)),
    "FILTER": (2, _filter),
    "TRANSFORM": (2, _transform),
}
