"""Build the array form of a DEFINE condition's match-dependent part (``matchrec.vector_define``).

It follows the same split as the scalar lowering in ``expressions.lower_define`` (the same
row-local columns, the same navigation and aggregate atoms) and gives up, returning
None, at the first thing the array form does not cover; the scalar evaluator then runs.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from matchrec import navigation as nav
from matchrec import vector_define as vd
from matchrec.integer_width import IntegerWidth

from .pyeval import OPERATORS as SCALAR_OPERATORS
from .pyeval import _literal

# the binary operators of the scalar glue (spelled as in its messages) that the array
# form has too, and AND/OR
_OPERATORS: dict[type, str] = {
    **{node: op for node, op in SCALAR_OPERATORS.items() if op in vd.OPERATORS},
    exp.And: "and",
    exp.Or: "or",
}

_UNARY: dict[type, str] = {exp.Not: "not", exp.Neg: "neg", exp.Abs: "abs"}

_VARIADIC: dict[type, str] = {
    exp.Coalesce: "coalesce",
    exp.Greatest: "greatest",
    exp.Least: "least",
}


class _NotCovered(Exception):
    """The condition uses something the array form does not cover."""


def vector_glue(
    node: exp.Expression,
    atom: Callable[[exp.Expression], nav.Evaluator | str | None],
    ansi: bool = False,
    width: Callable[[exp.Expression], IntegerWidth | None] = lambda node: None,
) -> vd.VExpr | None:
    """The array form of glue ``node``, or None.

    ``atom(n)`` classifies a sub-expression as the scalar lowering does: the name of a
    row-local column computed by Spark (a ``str``), the navigation or aggregate evaluator it
    stands for, or None for an operator node to look into. ``ansi``: a zero divisor sends
    the search to the scalar matcher (``vector_define.NeedsScalar``), which raises.
    ``width(n)``: the integer width of arithmetic node ``n`` the scalar lowering fits its
    results to (shared, so that both see the type the runtime sets), or None."""
    try:
        lowered = _lower(node, atom, width)
    except _NotCovered:
        return None
    return _ansi_division(lowered) if ansi else lowered


def _ansi_division(expr: vd.VExpr) -> vd.VExpr:
    """``expr`` with each ``/`` checked for a zero divisor."""
    if isinstance(expr, vd.Checked):
        return vd.Checked(_ansi_division(expr.inner), expr.width)
    if not isinstance(expr, vd.Op):
        return expr
    op = "/ansi" if expr.op == "/" else expr.op
    return vd.Op(op, tuple(_ansi_division(a) for a in expr.args))


def _lower(node: exp.Expression, atom, width) -> vd.VExpr:
    if isinstance(node, exp.Paren):
        return _lower(node.this, atom, width)
    if isinstance(node, exp.Literal):
        if node.is_string:  # compared, it is cast to the other operand's type: scalar
            raise _NotCovered
        return vd.Const(_literal(node))
    if isinstance(node, exp.Boolean):
        return vd.Const(bool(node.this))
    if isinstance(node, exp.Null):
        return vd.Const(None)
    found = atom(node)
    if isinstance(found, str):
        return vd.Current(found)
    if isinstance(found, nav.Navigate):
        return _navigation(found)
    if isinstance(found, nav.Aggregate):
        return _aggregate(found)
    if found is not None:
        raise _NotCovered  # CLASSIFIER, MATCH_NUMBER
    op = _OPERATORS.get(type(node))
    if op is not None:
        lowered = vd.Op(op, (_lower(node.this, atom, width), _lower(node.expression, atom, width)))
        return _checked(lowered, width(node))
    op = _UNARY.get(type(node))
    if op is not None:
        return _checked(vd.Op(op, (_lower(node.this, atom, width),)), width(node))
    op = _VARIADIC.get(type(node))
    if op is not None:
        return vd.Op(op, tuple(_lower(a, atom, width) for a in [node.this, *node.expressions]))
    if isinstance(node, exp.Is) and isinstance(node.expression, exp.Null):
        return vd.Op("is_null", (_lower(node.this, atom, width),))
    if isinstance(node, exp.Between):
        value = _lower(node.this, atom, width)
        low, high = _lower(node.args["low"], atom, width), _lower(node.args["high"], atom, width)
        return vd.Op("and", (vd.Op(">=", (value, low)), vd.Op("<=", (value, high))))
    raise _NotCovered


def _checked(lowered: vd.Op, width: IntegerWidth | None) -> vd.VExpr:
    return lowered if width is None else vd.Checked(lowered, width)


def _navigation(found: nav.Navigate) -> vd.VExpr:
    if found.offset != 0 or found.final or not isinstance(found.source, nav.ColumnAt):
        raise _NotCovered
    return vd.Nav(found.source.name, found.labels, found.from_end, found.physical)


def _aggregate(found: nav.Aggregate) -> vd.VExpr:
    if found.func not in vd.AGG_FUNCS or found.distinct or found.final:
        raise _NotCovered
    if found.collations and any(c is not None and c.fold for c in found.collations):
        raise _NotCovered  # strings compared under a collation (matchrec.collated_values)
    if found.args is None:
        return vd.Agg("COUNT", None, found.labels)
    if len(found.args) != 1 or not isinstance(found.args[0], nav.ColumnAt):
        raise _NotCovered
    func = "AVG" if found.func == "MEAN" else found.func
    return vd.Agg(func, found.args[0].name, found.labels)
