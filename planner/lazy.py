"""Which parts of a DEFINE condition Spark may never evaluate on a row.

Spark evaluates ``IF``, ``CASE``, ``nvl2``, ``COALESCE``, ``AND`` and ``OR`` lazily: a branch not
taken, or a right-hand side the left-hand side decided, is not computed, so under ANSI
mode ``IF(MATCH_NUMBER() > 1, 1 / (x - x), 0)`` raises only on the rows that take the
division. matchrec computes row-local parts of DEFINE as Spark columns on every row;
one that can raise and sits in such a lazy place must stay in the glue, which
evaluates it only when the condition reaches it (``lower_define`` asks these two).
"""

from __future__ import annotations

from sqlglot import exp

#: operators whose own evaluation can raise on some rows (ANSI division, remainder)
_RAISING = (exp.Div, exp.IntDiv, exp.Mod)


def lazily_evaluated(tree: exp.Expression) -> set[int]:
    """``id`` of every node of ``tree`` inside a part Spark may skip: the branches of
    IF, CASE (and CASE's later conditions) and ``nvl2``, COALESCE's arguments after the
    first, and the right-hand side of AND and OR."""
    lazy: set[int] = set()

    def mark(node: exp.Expression | None) -> None:
        if isinstance(node, exp.Expression):
            lazy.update(id(n) for n in node.walk())

    for node in tree.walk():
        if isinstance(node, exp.If):
            mark(node.args.get("true"))
            mark(node.args.get("false"))
        elif isinstance(node, exp.Case):
            for i, branch in enumerate(node.args.get("ifs") or []):
                mark(branch.args.get("true"))
                if i > 0:
                    mark(branch.this)
            mark(node.args.get("default"))
        elif isinstance(node, exp.Coalesce):
            for arg in node.expressions:
                mark(arg)
        elif isinstance(node, exp.Nvl2):
            mark(node.args.get("true"))
            mark(node.args.get("false"))
        elif isinstance(node, (exp.And, exp.Or)):
            mark(node.expression)
    return lazy


def may_raise(node: exp.Expression) -> bool:
    """Whether evaluating ``node`` itself (not its operands) can raise on some rows."""
    return isinstance(node, _RAISING)
