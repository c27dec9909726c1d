"""SQL UDFs of the session (``CREATE TEMPORARY FUNCTION f(a INT) RETURNS ... RETURN expr``)
inlined where DEFINE's Python glue would need to call them.

A call of one navigated row (``f(FIRST(S.x))``) moves inside the navigation and Spark
calls the function itself (``planner.pushdown``). A call of values from two rows
(``gap(A.n, B.n)``) has no Spark column to be computed in: its body, with each parameter
replaced by ``CAST(argument AS parameter type)`` (Spark's implicit cast of a SQL UDF's
arguments), is lowered like any expression, so each one-row part goes to Spark and
only what combines the rows runs in the glue.

The body's value is cast to the function's ``RETURNS`` type, as Spark casts it. Spark
computes the body under the settings captured when the function was created (ANSI mode,
time zone); the glue computes under the session's, so a function whose captured
settings differ from the session's is refused where it would be inlined.

The runtime looks definitions up (:data:`FunctionLookup`, Spark's ``DESCRIBE FUNCTION
EXTENDED`` lines ``Input:``, ``Returns:``, ``Configs:`` and ``Body:``); this module reads
them. Nothing here imports Spark.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import sqlglot
from sqlglot import exp

from .sqltext import MatchRecognizeDialect, call_name


class DescribedFunction(NamedTuple):
    """What the session says of a SQL UDF: its ``Input:`` lines, one per parameter
    (``name TYPE [DEFAULT expr]``), its ``Body:``, its ``Returns:`` type, and each setting
    captured at its creation that the session now has otherwise, worded for the user
    (``spark.sql.ansi.enabled=true (the session has false)``)."""

    inputs: Sequence[str]
    body: str
    returns: str | None = None
    changed_settings: tuple[str, ...] = ()


#: a function name -> its description (a :class:`DescribedFunction` or a tuple of the
#: same fields), or None when it is no SQL UDF of the session; raises
#: :class:`UnknownFunction` for a name the session has no function of
FunctionLookup = Callable[[str], "DescribedFunction | tuple | None"]


class UnknownFunction(Exception):
    """The session has no function of the name a call uses (Spark's UNRESOLVED_ROUTINE):
    its ``message`` as Spark words it, and a close name the session has (or None)."""

    def __init__(self, message: str, close: str | None = None) -> None:
        super().__init__(message)
        self.message, self.close = message, close
        self.node: exp.Expression | None = None  # the call, once the planner knows it


class ChangedSettings(Exception):
    """A SQL UDF to inline whose settings captured at creation differ from the session's:
    Spark computes its body under those, the glue could only under the session's."""

    def __init__(self, name: str, changed: Sequence[str], node: exp.Expression) -> None:
        super().__init__(name)
        self.node = node
        self.message = (
            f"SQL function {name}() was created under {', '.join(changed)}: Spark computes "
            "its body under the settings of its creation, and over values of several rows "
            "matchrec computes it under the session's"
        )
        self.hint = (
            "create the function again under the session's settings, or set them back; "
            "a call of the current row's values alone (f(B.x) in B's condition) is Spark's"
        )


_PARAMETER = re.compile(r"^\s*(`(?:[^`]|``)+`|\w+)\s+(.+?)(?:\s+DEFAULT\s+(.+))?\s*$", re.I)


@dataclass(frozen=True)
class SqlFunction:
    """One SQL UDF: parameter names, their Spark types, defaults, the body, its RETURNS
    type (None: not known) and the settings of its creation the session has otherwise."""

    params: list[str]
    types: list[str]
    defaults: list[str | None]
    body: exp.Expression
    returns: exp.DataType | None = None
    changed_settings: tuple[str, ...] = ()


def read_definition(
    inputs: Sequence[str],
    body: str,
    returns: str | None = None,
    changed_settings: tuple[str, ...] = (),
) -> SqlFunction | None:
    """A SQL UDF from its ``DESCRIBE FUNCTION EXTENDED`` lines, or None if they cannot
    be read (then the call stays as it is and is reported where it cannot run)."""
    params, types, defaults = [], [], []
    for line in inputs:
        found = _PARAMETER.match(line)
        if not found:
            return None
        name, kind, default = found.groups()
        params.append(name.strip("`").replace("``", "`").lower())
        types.append(kind)
        defaults.append(default)
    try:
        tree = sqlglot.parse_one(body, read=MatchRecognizeDialect)
    except sqlglot.errors.SqlglotError:
        return None
    if tree is None or isinstance(tree, (exp.Select, exp.Subquery)):
        return None  # a table function or a query body: not inlined
    result_type = None
    if returns is not None:
        try:
            result_type = exp.DataType.build(returns, dialect="spark")
        except (sqlglot.errors.SqlglotError, ValueError):
            return None
    return SqlFunction(params, types, defaults, tree, result_type, tuple(changed_settings))


def _parse(text: str) -> exp.Expression:
    return sqlglot.parse_one(text, read=MatchRecognizeDialect)


def inline_call(node: exp.Anonymous, function: SqlFunction) -> exp.Expression | None:
    """The body of ``function`` for call ``node`` (None: the arguments do not fit); named
    arguments (``b => x``) after the positional ones, as Spark takes them."""
    args = [a for a in node.expressions if not isinstance(a, exp.Kwarg)]
    kwargs = [a for a in node.expressions if isinstance(a, exp.Kwarg)]
    named = {a.this.name.lower(): a.expression for a in kwargs}
    if len(args) + len(named) > len(function.params) or not set(named) <= set(function.params):
        return None
    values: dict[str, exp.Expression] = {}
    for i, (name, kind) in enumerate(zip(function.params, function.types)):
        if i < len(args):
            value = args[i].copy()
        elif name in named:
            value = named[name].copy()
        elif function.defaults[i] is not None:
            value = _parse(function.defaults[i])
        else:
            return None
        try:
            target = exp.DataType.build(kind, dialect="spark")
        except (sqlglot.errors.SqlglotError, ValueError):
            return None
        values[name] = exp.Cast(this=exp.Paren(this=value), to=target)
    body = function.body.copy()
    for col in list(body.find_all(exp.Column)):
        if col.table:
            continue
        value = values.get(col.name.lower())
        if value is not None:
            if col is body:
                body = value.copy()
            else:
                col.replace(value.copy())
    if function.returns is not None:
        return exp.Cast(this=exp.Paren(this=body), to=function.returns.copy())
    return exp.Paren(this=body)


def inline_sql_functions(
    tree: exp.Expression, lookup: FunctionLookup, keep: Callable[[exp.Expression], bool]
) -> exp.Expression:
    """``tree`` with each call of a session SQL UDF that ``keep`` does not keep (the glue
    cannot run it) replaced by its inlined body; unchanged if there is none."""
    cache: dict[str, SqlFunction | None] = {}
    for node in list(tree.find_all(exp.Anonymous)):
        if keep(node):
            continue
        semantics, name = call_name(node)
        if semantics:
            continue
        key = name.lower()
        if key not in cache:
            try:
                found = lookup(key)
            except UnknownFunction as unknown:
                unknown.node = node
                raise
            cache[key] = read_definition(*found) if found is not None else None
        function = cache[key]
        if function is None:
            continue
        if function.changed_settings:
            raise ChangedSettings(key, function.changed_settings, node)
        inlined = inline_call(node, function)
        if inlined is None:
            continue
        if node is tree:
            tree = inlined
        else:
            node.replace(inlined)
    return tree
