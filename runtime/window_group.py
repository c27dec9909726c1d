"""Errors of a window with a row pattern over GROUP BY, in the grouped query's terms.

Such a window matches the groups (one row per group, its keys as columns), so a column
that is no grouping key is unknown to the clause. The planner's 'cannot be resolved'
then means what Trino says of it: the measure, the variable's definition or the frame's
end must be an aggregate or appear in GROUP BY.
"""

from __future__ import annotations

import re

from matchrec.ast import MatchRecognizeClause
from matchrec.errors import SemanticError

__all__ = ["grouped_error"]

_UNRESOLVED = re.compile(
    r"Column '?(?P<name>[^' ]+)'?( prefixed with label \S+)? cannot be resolved"
)


def grouped_error(
    err: SemanticError, clause: MatchRecognizeClause, keys: list[str]
) -> SemanticError:
    """``err`` of planning ``clause`` over the groups (columns ``keys``), reworded when it
    is about a column that is no grouping key."""
    unknown = _UNRESOLVED.search(err.message)
    if unknown is None or unknown.group("name").lower() in {k.lower() for k in keys}:
        return err
    defines = [d.expr.pos for d in clause.defines if d.expr.pos >= 0]
    frame = clause.frame.pos if clause.frame is not None else -1
    if defines and err.pos >= min(defines):
        what = "Row pattern variable definition"
    elif frame >= 0 and err.pos >= frame:
        what = "Window frame end"
    else:
        what = "Row pattern measure"
    return SemanticError(
        f"{what} must be an aggregate expression or appear in GROUP BY clause "
        f"({unknown.group('name')} is no grouping key)",
        sql=err.sql,
        pos=err.pos,
        hint=f"the window matches the groups, whose columns are {', '.join(keys)}",
    )
