"""Calls of functions the session does not have, found where no session can be asked.

``matchrec.sql`` learns of an unknown function from Spark's analysis, with a caret at the
call. The table function's ``analyze`` runs in a Python worker without a session, and the
expressions it hands Spark are analysed after it returned, where Spark's
UNRESOLVED_ROUTINE points at "line 1 pos 0" of a text the user never wrote. So
``matchrec.register`` reads the session's function names (SHOW FUNCTIONS: Spark's and the
session's UDFs, as of that call) and the table function checks each call of its clause
against them first.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from sqlglot import exp

from matchrec import ast
from matchrec.errors import SemanticError

from .sqltext import MARKED_CALL, call_pos, parse_expression

#: the clause's own calls, which no session has
CLAUSE_CALLS = frozenset({"prev", "next", "classifier", "match_number", "first", "last"})


def check_known_functions(clause: ast.MatchRecognizeClause, known: Iterable[str]) -> None:
    """Raise a positioned error at the first call in DEFINE or MEASURES of a function
    that is neither the clause's own (PREV, CLASSIFIER, ...) nor in ``known``."""
    names = {n.lower() for n in known}
    for expr in [d.expr for d in clause.defines] + [m.expr for m in clause.measures]:
        for node in parse_expression(expr, clause.sql).walk():
            if not isinstance(node, exp.Anonymous) or not isinstance(node.this, str):
                continue
            written = node.this
            marked = MARKED_CALL.match(written)
            name = (marked.group(2) if marked else written).lower()
            if name in names or name in CLAUSE_CALLS or "." in name:
                continue
            close = difflib.get_close_matches(name, sorted(names), n=1)
            hint = f"did you mean {close[0]}()? " if close else ""
            pos = call_pos(node, expr.pos, clause.sql)
            if marked:  # RUNNING f(...): at f
                written = marked.group(2)
                pos = max(clause.sql.lower().find(name, pos), pos)
            raise SemanticError(
                f"unknown function {written}(): the session has no function of that name "
                "(Spark's UNRESOLVED_ROUTINE)",
                sql=clause.sql,
                pos=pos,
                hint=f"{hint}a function registered after matchrec.register(spark) is "
                "known to the table function once register is called again",
            )
