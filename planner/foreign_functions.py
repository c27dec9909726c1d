"""Calls of functions Spark does not have, which sqlglot reads from other dialects.

sqlglot's parser knows the functions of many dialects: ``is_nan(x)``, ``strpos(s, t)``,
``array_length(a)``, ``json_extract_scalar(j, p)`` become nodes that matchrec then
computed as Spark's ``isnan``, ``instr``, ``size``, ``get_json_object`` (with their NULL
handling, not the other dialect's), where Spark itself says UNRESOLVED_ROUTINE. A call
whose written name is no Spark built-in (``planner.spark_function_names``), no row
pattern function and not one of matchrec's own is refused here, at the name, with the
Spark function meant where one is close.
"""

from __future__ import annotations

from sqlglot import exp

from matchrec.errors import SemanticError

from .close_names import close_match
from .function_arity import CALL
from .spark_function_names import SPARK_FUNCTIONS

#: names that are not in Spark's function registry but that its parser, or matchrec,
#: reads as calls: the unit forms of timestampadd/timestampdiff, the row pattern
#: functions, Flink's MATCH_ROWTIME/MATCH_PROCTIME; and the keywords of operators, which
#: a parenthesis may follow (``a AND (b OR c)``)
_OTHER_CALLS = frozenset(
    "TIMESTAMPADD TIMESTAMPDIFF PREV NEXT FIRST LAST CLASSIFIER MATCH_NUMBER "
    "MATCH_ROWTIME MATCH_PROCTIME "
    "AND OR NOT IN IS LIKE ILIKE RLIKE REGEXP BETWEEN CASE WHEN THEN ELSE EXISTS ANY ALL "
    "SOME ON AS FROM FOR PLACING BOTH LEADING TRAILING ESCAPE DISTINCT OVER WITHIN WHERE "
    "BY USING SELECT UNION INTERSECT EXCEPT MINUS VALUES JOIN INTERVAL".split()
)


def foreign_call_error(sql: str, pos: int) -> SemanticError | None:
    """Spark's UNRESOLVED_ROUTINE for the call written at ``pos`` of ``sql`` whose name
    sqlglot knows but Spark does not; None for any other text there."""
    found = CALL.match(sql, pos)
    if found is None or sql[:pos].rstrip().endswith("."):
        return None  # not a call as written, or a qualified name (a catalog's function)
    name = found.group(1)
    if name.upper() in SPARK_FUNCTIONS or name.upper() in _OTHER_CALLS:
        return None
    close = close_match(name, (f.lower() for f in SPARK_FUNCTIONS))
    return SemanticError(
        f"[UNRESOLVED_ROUTINE] Spark has no function {name}() (another SQL dialect's name?)",
        sql=sql,
        pos=pos,
        hint=f"did you mean {close}()?" if close else "SHOW FUNCTIONS lists Spark's",
    )


def written_as(node: exp.Expression, sql: str, pos: int) -> bool:
    """Whether the call written at ``pos`` is ``node`` itself, an operator node that a
    name also builds (``json_extract_scalar(j, p)``), not a call around its first operand
    (``f(a AND b)``: the AND starts there too)."""
    found = CALL.match(sql, pos)
    return found is not None and exp.FUNCTION_BY_NAME.get(found.group(1).upper()) is type(node)
