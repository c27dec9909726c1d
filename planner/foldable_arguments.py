"""Arguments Spark requires to be constants, refused where they read rows.

``round(x, B.n)``, ``to_char(x, fmt)`` or ``percentile(x, A.p)``: Spark refuses such a
call when it analyses the query (NON_FOLDABLE_INPUT, NON_FOLDABLE_ARGUMENT), whatever
the values. ``matchrec.sql`` hands its parts to Spark, which says so; the table function
and MATCH_RECOGNIZE_DYNAMIC rules compute DEFINE and MEASURES in Python, where such a
call ran with each row's value: an answer Spark never gives. Which arguments, per
function, was read from Spark 4.3 by calling each with a column there.
"""

from __future__ import annotations

from sqlglot import exp

from matchrec import ast
from matchrec.errors import SemanticError

from .expressions import NAVIGATION, SPECIAL
from .function_types import call_arguments
from .sqltext import node_pos, parse_expression
from .type_checks import user_text, written_call_name

_INPUT, _ARGUMENT = "DATATYPE_MISMATCH.NON_FOLDABLE_INPUT", "NON_FOLDABLE_ARGUMENT"

#: function -> (Spark's condition, the names of its arguments after the first that must
#: be constants)
_CONSTANT_ARGUMENTS: dict[str, tuple[str, tuple[str, ...]]] = {
    **dict.fromkeys(("round", "bround"), (_INPUT, ("scale",))),
    **dict.fromkeys(("ceil", "ceiling", "floor"), (_ARGUMENT, ("scale",))),
    **dict.fromkeys(
        ("to_char", "to_varchar", "to_number", "try_to_number", "to_binary", "try_to_binary"),
        (_INPUT, ("format",)),
    ),
    "percentile": (_INPUT, ("percentage",)),
    **dict.fromkeys(
        ("percentile_approx", "approx_percentile"), (_INPUT, ("percentage", "accuracy"))
    ),
    "histogram_numeric": (_INPUT, ("nb",)),
    **dict.fromkeys(("listagg", "string_agg"), (_INPUT, ("delimiter",))),
    "mask": (_INPUT, ("upperChar", "lowerChar", "digitChar", "otherChar")),
}

#: nodes sqlglot counts as functions that are no call written by name (``a OR b``)
_NO_CALLS = (exp.Binary, exp.Connector, exp.Predicate, exp.Unary, exp.Cast, exp.Collate)

#: calls that read rows of the match (not constants)
_ROW_CALLS = NAVIGATION | SPECIAL


def check_constant_arguments(clause: ast.MatchRecognizeClause) -> None:
    """Raise :class:`SemanticError` at the first argument of DEFINE or MEASURES that
    Spark requires to be a constant and that reads a row (a column, a navigation, an
    aggregate)."""
    sql = clause.sql
    for expr in sorted(
        [d.expr for d in clause.defines] + [m.expr for m in clause.measures], key=lambda e: e.pos
    ):
        for node in parse_expression(expr, sql).walk():
            if not isinstance(node, exp.Func) or isinstance(node, _NO_CALLS):
                continue
            name = written_call_name(node, sql, expr.pos)
            rule = _CONSTANT_ARGUMENTS.get(name)
            if rule is None:
                continue
            condition, parameters = rule
            for parameter, argument in zip(parameters, call_arguments(node)[1:]):
                if _reads_rows(argument):
                    raise SemanticError(
                        f"[{condition}] the {parameter} of {name}() must be a constant, "
                        f"not {user_text(argument, sql, expr.pos)}: Spark refuses the query",
                        sql=sql,
                        pos=node_pos(argument, expr.pos, sql),
                        hint=f"write the {parameter} as a literal",
                    )


def _reads_rows(argument: exp.Expression) -> bool:
    return any(
        isinstance(n, (exp.Column, exp.AggFunc, exp.Window))
        or (isinstance(n, exp.Anonymous) and n.name.upper() in _ROW_CALLS)
        for n in argument.walk()
    )
