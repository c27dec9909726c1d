"""Aggregates whose rows are read in an order of their own: ``WITHIN GROUP (ORDER BY ...)``
(Spark 4: ``listagg``/``string_agg``, ``percentile_cont``, ``percentile_disc``,
``mode()``) and ``max_by``/``min_by`` with a count (Spark 4.2).

Over a match they become :mod:`matchrec.navigation` aggregates: listagg sorts its rows by
the keys (stable: rows of equal keys stay in match order, as in Spark), the others read
the ordered value with its direction in the aggregate's name. Spark's rules on the forms
(how many orderings, DISTINCT, a constant count) are checked here, with the user's node
to point at.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from sqlglot import exp

from .sqltext import MatchRecognizeDialect, call_name

#: aggregates that take WITHIN GROUP, by sqlglot node and by the name of a plain call
#: (``FINAL listagg(...)`` is a plain call whose name carries the semantics)
_NODES: dict[type, str] = {
    exp.GroupConcat: "LISTAGG",
    exp.PercentileCont: "PERCENTILE_CONT",
    exp.PercentileDisc: "PERCENTILE_DISC",
    exp.Mode: "MODE",
}
_CALLS = frozenset({"LISTAGG", "STRING_AGG", "PERCENTILE_CONT", "PERCENTILE_DISC", "MODE"})
#: the inverse distribution functions: the one ORDER BY key is the value they read
_INVERSE = {
    ("PERCENTILE_CONT", False): "PERCENTILE",
    ("PERCENTILE_CONT", True): "PERCENTILE/DESC",
    ("PERCENTILE_DISC", False): "PERCENTILE_DISC/ASC",
    ("PERCENTILE_DISC", True): "PERCENTILE_DISC/DESC",
    ("MODE", False): "MODE/ASC",  # of equally frequent values the lowest
    ("MODE", True): "MODE/DESC",
}
_MAX_COUNT = 2**31 - 1

Fail = Callable[[str, exp.Expression, str | None], Exception]


@dataclass
class OrderedAggregate:
    """An aggregate as the matcher computes it: ``func`` over ``args`` (the sort keys
    last, ``order`` giving their direction) and the Spark SQL whose type is its type,
    with ``{0}``, ``{1}``, ... standing for the arguments' probes."""

    func: str
    args: list[exp.Expression]
    order: tuple[tuple[bool, bool], ...]
    probe: str

    def probe_text(self, probes: list[str]) -> str:
        """The probe with each ``{i}`` replaced by the probe of argument i."""
        return re.sub(r"\{(\d+)\}", lambda m: probes[int(m.group(1))], self.probe)


def within_group_name(node: exp.Expression) -> str | None:
    """The aggregate a ``WITHIN GROUP`` node applies (``PERCENTILE_CONT``), None if it is
    not one that takes WITHIN GROUP."""
    if not isinstance(node, exp.WithinGroup):
        return None
    inner = node.this
    if isinstance(inner, exp.Anonymous):
        name = call_name(inner)[1]
        return name if name in _CALLS else None
    return _NODES.get(type(inner))


def orderings(node: exp.Expression) -> tuple[exp.Expression, list[exp.Ordered]]:
    """The aggregate call inside ``node`` and its WITHIN GROUP keys ([] for none);
    ``listagg(x) WITHIN GROUP (...)`` is read by sqlglot as listagg of an ORDER BY."""
    if isinstance(node, exp.WithinGroup):
        order = node.expression
        return node.this, list(order.expressions) if isinstance(order, exp.Order) else []
    return node, []


def listagg_order(args: list[exp.Expression]) -> tuple[list[exp.Expression], list[exp.Ordered]]:
    """listagg's arguments with the ORDER BY sqlglot folds into its first one taken out."""
    if args and isinstance(args[0], exp.Order):
        order = args[0]
        return [order.this, *args[1:]], list(order.expressions)
    return args, []


def plan(
    func: str,
    args: list[exp.Expression],
    distinct: bool,
    keys: list[exp.Ordered],
    node: exp.Expression,
    fail: Fail,
) -> OrderedAggregate | None:
    """The matcher's form of an aggregate with WITHIN GROUP keys or a max_by/min_by
    count; None for any other aggregate."""
    if func in ("MAX_BY", "MIN_BY") and len(args) == 3:
        _check_count(func, args[2], fail)
        return OrderedAggregate(f"{func}/K", args, (), f"{func}({{0}}, {{1}}, {{2}})")
    inverse = func in ("PERCENTILE_CONT", "PERCENTILE_DISC") or (
        func == "MODE" and isinstance(node, exp.WithinGroup)
    )
    if inverse:
        return _inverse(func, args, distinct, keys, node, fail)
    if keys:
        return _sorted_listagg(func, args, distinct, keys, fail)
    return None


def _inverse(func, args, distinct, keys, node, fail) -> OrderedAggregate:
    name = func.lower()
    takes = 0 if func == "MODE" else 1
    if len(keys) != 1:
        raise fail(
            f"{name}() needs exactly one ordering in WITHIN GROUP (ORDER BY ...), got {len(keys)}",
            keys[1] if len(keys) > 1 else node,
            f"write {name}({'' if takes == 0 else '0.5'}) WITHIN GROUP (ORDER BY x)",
        )
    if len(args) != takes:
        raise fail(
            f"{name}() with WITHIN GROUP takes {takes} argument{'s' if takes != 1 else ''}, "
            f"got {len(args)}",
            args[takes] if len(args) > takes else node,
            f"write {name}({'' if takes == 0 else '0.5'}) WITHIN GROUP (ORDER BY x)",
        )
    if distinct:
        raise fail(f"DISTINCT is not allowed in {name}() with WITHIN GROUP", node, None)
    key = keys[0]
    descending = bool(key.args.get("desc"))
    written = f"{func}({'{1}' if takes else ''}) WITHIN GROUP (ORDER BY {{0}}"
    probe = written + (" DESC)" if descending else ")")
    return OrderedAggregate(_INVERSE[(func, descending)], [key.this, *args], (), probe)


def _sorted_listagg(func, args, distinct, keys, fail) -> OrderedAggregate:
    if func not in ("LISTAGG", "STRING_AGG"):
        raise fail(f"{func.lower()}() does not take WITHIN GROUP (ORDER BY ...)", keys[0], None)
    if distinct:
        for key in keys:
            if key.this != args[0]:
                raise fail(
                    f"{func.lower()}(DISTINCT ...) WITHIN GROUP must order by the aggregated "
                    f"value itself, not {key.this.sql(dialect=MatchRecognizeDialect)}",
                    key,
                    "order by the DISTINCT argument, or drop DISTINCT",
                )
    order = tuple((bool(k.args.get("desc")), bool(k.args.get("nulls_first"))) for k in keys)
    spelled = ", ".join(
        f"{{{i + 2}}} {'DESC' if d else 'ASC'} NULLS {'FIRST' if n else 'LAST'}"
        for i, (d, n) in enumerate(order)
    )
    head = f"{func}({'DISTINCT ' if distinct else ''}{{0}}, {{1}})"
    probe = f"{head} WITHIN GROUP (ORDER BY {spelled})"
    return OrderedAggregate(func, [*args, *(k.this for k in keys)], order, probe)


def _check_count(func: str, count: exp.Expression, fail: Fail) -> None:
    """max_by/min_by's count: Spark takes a constant integer from 1 to 2**31 - 1."""
    inner = count
    while isinstance(inner, exp.Paren):
        inner = inner.this
    literal = inner.this if isinstance(inner, exp.Literal) and not inner.is_string else None
    if literal is None or not literal.isdigit() or not 1 <= int(literal) <= _MAX_COUNT:
        raise fail(
            f"the third argument of {func.lower()} must be an integer constant from 1 to "
            f"{_MAX_COUNT} (the number of values to return), not "
            f"{count.sql(dialect=MatchRecognizeDialect)}",
            count,
            f"write e.g. {func.lower()}(x, y, 3)",
        )
