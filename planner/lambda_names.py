"""Lambda parameters renamed where they would hide a qualified column of the match.

In ``exists(items, x -> A.x > 50)`` the parameter ``x`` and the column ``A.x`` are two
things; the planner writes A's columns unqualified for Spark (``x > 50``), and the glue
reads them by name, so the parameter would take the column's place. Renaming the
parameter (``x_ -> x > 50``) keeps both: a lambda's parameters are its own, any name
does."""

from __future__ import annotations

from sqlglot import exp


def bound_name(node: exp.Expression) -> str | None:
    """The name a reference may bind to a lambda parameter: an unqualified column, or a
    bare identifier (sqlglot parses a parameter's use in a lambda body as one, and a
    body that is the parameter alone), also the struct of a field access (``e.k``:
    sqlglot's Dot of identifiers e and k)."""
    if isinstance(node, exp.Column):
        if not node.table and isinstance(node.this, exp.Identifier):
            return node.name.lower()
        return None
    if isinstance(node, exp.Identifier):
        parent = node.parent
        if isinstance(parent, (exp.Dot, exp.Lambda)) and parent.this is node:
            return node.name.lower()  # ``e.k``, or the whole body of ``e -> e``
        if not isinstance(parent, (exp.Column, exp.Dot, exp.Lambda, exp.Alias, exp.PropertyEQ)):
            return node.name.lower()
    return None


def unshadowed_parameters(tree: exp.Expression) -> exp.Expression:
    """``tree`` with each lambda parameter that shares its name with a qualified column
    read in the lambda's body (``x`` and ``A.x``) renamed to a name no column, label or
    parameter of ``tree`` has."""
    taken = {
        part.lower()
        for node in tree.find_all(exp.Column, exp.Identifier)
        for part in ([node.name] if isinstance(node, exp.Identifier) else [node.name, node.table])
        if part
    }
    for lam in list(tree.find_all(exp.Lambda)):
        params = {p.name.lower() for p in lam.expressions}
        clashing = {
            c.name.lower()
            for c in lam.this.find_all(exp.Column)
            if c.table and c.name.lower() in params
        }
        for name in sorted(clashing):
            fresh = name + "_"
            while fresh in taken:
                fresh += "_"
            taken.add(fresh)
            _rename(lam, name, fresh)
    return tree


def _rename(lam: exp.Lambda, old: str, new: str) -> None:
    """Parameter ``old`` of ``lam`` and its uses in the body renamed ``new`` (not inside a
    nested lambda that binds ``old`` again)."""
    for param in lam.expressions:
        if param.name.lower() == old:
            param.set("this", new)
    stack = [lam.this]
    while stack:
        node = stack.pop()
        if isinstance(node, exp.Lambda) and old in {p.name.lower() for p in node.expressions}:
            continue
        if isinstance(node, exp.Column) and node.table.lower() == old:
            node.set("table", exp.to_identifier(new))  # ``x.f``: a field of the parameter
        elif bound_name(node) == old:
            target = node.this if isinstance(node, exp.Column) else node
            target.set("this", new)
            continue
        stack.extend(node.iter_expressions())
