"""The MATCH_RECOGNIZE grammar: SQL text of a clause body -> :mod:`matchrec.ast`.

``match_recognize.lark`` is the reference of the accepted syntax; :func:`parse_clause`
parses a clause body and raises :class:`~matchrec.errors.SqlSyntaxError` on bad input.
"""

from matchrec.grammar.parser import parse_clause

__all__ = ["parse_clause"]
