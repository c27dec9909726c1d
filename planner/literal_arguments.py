"""Literal arguments that make a call fail on every row, refused when the query is built.

``slice(arr, 0, 2)``, ``element_at(arr, 0)`` or ``split_part(s, ',', 0)`` fail in Spark on
the first row they are computed on, whatever its value (``regexp_extract(s, '(a)', 2)``:
on the first value its pattern matches): Spark raises INVALID_PARAMETER_VALUE or
INVALID_INDEX_OF_ZERO while the job runs, with no position in the query (these errors
carry no query context), after rows may have been written. Their literal arguments alone
decide it, so :func:`check_literal_arguments` refuses the call when the query is built,
at the literal, with Spark's condition, in every door. (Spark's answer differs only
where the call never fails: every value NULL, a CASE branch no row takes, no value the
pattern matches; such a call is a mistake all the same.)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from sqlglot import exp

from matchrec import ast
from matchrec.errors import SemanticError

from .java_regex import JavaPatternError, RegexRefused, translate
from .pattern_literals import column_kind
from .sqltext import node_pos, parse_expression
from .type_checks import written_call_name

ColumnType = Callable[[str], "str | None"]


@dataclass(frozen=True)
class Refusal:
    """Why a call fails on every row: at which argument, Spark's condition, and a fix."""

    argument: exp.Expression  # the literal (or, where not written, the pattern)
    condition: str
    reason: str
    hint: str
    #: when Spark fails: on the first row it computes the call on (a NULL value aside)
    when: str = "on the first row it computes this call on"


def _integer(node: exp.Expression | None) -> int | None:
    """The value of an integer literal (``2``, ``-1``, ``(0)``), else None."""
    while isinstance(node, exp.Paren):
        node = node.this
    sign = 1
    if isinstance(node, exp.Neg):
        sign, node = -1, node.this
    if isinstance(node, exp.Literal) and not node.is_string and node.this.lstrip("-").isdigit():
        return sign * int(node.this)
    return None


def _slice(node: exp.Expression, column_type: ColumnType) -> Refusal | None:
    start, length = node.args.get("start"), node.args.get("end")
    if _integer(start) == 0:
        return Refusal(
            start,
            "INVALID_PARAMETER_VALUE.START",
            "the start 0 is invalid: Spark counts elements from 1 (from the end: -1)",
            "slice(a, 1, n) takes the first n elements, slice(a, -n, n) the last n",
        )
    count = _integer(length) if node.args.get("is_length", True) else None
    if count is not None and count < 0:
        return Refusal(
            length,
            "INVALID_PARAMETER_VALUE.LENGTH",
            f"the length {count} is invalid: Spark expects a length of 0 or more",
            "slice(a, -n, n) takes the last n elements",
        )
    return None


def _element_at(node: exp.Expression, column_type: ColumnType) -> Refusal | None:
    """``element_at(arr, 0)``/``try_element_at(arr, 0)`` of an array (of a map, 0 is a
    key; ``arr[0]`` counts from 0)."""
    if node.args.get("offset") != 1 or len(node.expressions) != 1:
        return None
    if _integer(node.expressions[0]) != 0:
        return None
    value = node.this
    if not isinstance(value, exp.Array) and column_kind(value, column_type) != "array":
        return None
    return Refusal(
        node.expressions[0],
        "INVALID_INDEX_OF_ZERO",
        "the index 0 is invalid: Spark counts array elements from 1 (the last: -1)",
        "element_at(a, 1) is the first element (a[0] counts from 0)",
    )


def _split_part(node: exp.Expression, column_type: ColumnType) -> Refusal | None:
    part = node.args.get("part_index")
    if _integer(part) != 0:
        return None
    return Refusal(
        part,
        "INVALID_INDEX_OF_ZERO",
        "the part 0 is invalid: Spark counts parts from 1 (the last: -1)",
        "split_part(s, ',', 1) is the first part",
    )


def _regex_group(node: exp.Expression, column_type: ColumnType) -> Refusal | None:
    """A group of ``regexp_extract``/``regexp_extract_all`` that its literal regular
    expression lacks (sqlglot writes the default group 1 where none is written)."""
    pattern, group = node.args.get("expression"), node.args.get("group")
    if not (isinstance(pattern, exp.Literal) and pattern.is_string):
        return None
    wanted = 1 if group is None else _integer(group)
    if wanted is None:
        return None
    try:
        groups = translate(pattern.this).groups
    except (JavaPatternError, RegexRefused):
        return None  # an invalid one is refused as such; an unread one left to Spark
    if 0 <= wanted <= groups:
        return None
    has = f"{groups} group{'' if groups == 1 else 's'}"
    return Refusal(
        group if group is not None and group.meta else pattern,
        "INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX",
        f"the group {wanted} is invalid: the regular expression {pattern.this!r} has {has} "
        "(0: the whole match)",
        "give the group of a parenthesis of the pattern, or 0 for the whole match"
        if groups
        else "without parentheses in the pattern, take the whole match: group 0",
        "on the first row whose value the pattern matches",
    )


#: the calls whose literal arguments can fail every row, by sqlglot's node
_CHECKS: dict[type, Callable[[exp.Expression, ColumnType], Refusal | None]] = {
    exp.ArraySlice: _slice,
    exp.Bracket: _element_at,
    exp.SplitPart: _split_part,
    exp.RegexpExtract: _regex_group,
    exp.RegexpExtractAll: _regex_group,
}


def check_literal_arguments(
    clause: ast.MatchRecognizeClause, column_types: Mapping[str, str] | None = None
) -> None:
    """Raise :class:`SemanticError` at the first literal argument of DEFINE or MEASURES
    that makes its call fail on every row (see the module docstring). ``column_types``:
    the input columns' Spark types (``simpleString``), where known."""
    types = {k.lower(): v for k, v in (column_types or {}).items()}
    sql = clause.sql
    for expr in [d.expr for d in clause.defines] + [m.expr for m in clause.measures]:
        for node in parse_expression(expr, sql).walk():
            check = _CHECKS.get(type(node))
            refusal = check(node, types.get) if check is not None else None
            if refusal is None:
                continue
            name = written_call_name(node, sql, expr.pos)
            raise SemanticError(
                f"[{refusal.condition}] {name}(): {refusal.reason}; Spark fails the query "
                + refusal.when,
                sql=sql,
                pos=node_pos(refusal.argument, expr.pos, sql),
                hint=refusal.hint,
            )
