"""What a MATCH_RECOGNIZE clause means to the state a stream keeps, as a digest.

A streaming query keeps, per key, the rows its searches still need and a cursor into
them; restarted from its checkpoint with another PATTERN, DEFINE or PARTITION BY, that
state is read as if the new clause had made it. :func:`clause_identity` is the same for
two clauses that make the same state (the layout of the text, its comments, the case of
keywords and names, and the MEASURES, which are computed from the rows held, do not
count, nor the names matchrec.sql makes up for each run) and differs otherwise, so that
the runtime can refuse the old state.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Sequence
from typing import Any

from sqlglot.tokens import TokenType

from matchrec import ast

from .sqltext import MatchRecognizeDialect

#: tokens whose text is kept as written (everything else is compared upper-cased)
_AS_WRITTEN = {TokenType.STRING, TokenType.NATIONAL_STRING, TokenType.RAW_STRING}


def clause_identity(
    clause: ast.MatchRecognizeClause,
    held_columns: str,
    computed: Sequence[tuple[str, str]] = (),
) -> str:
    """A digest of ``clause`` without its MEASURES, of ``held_columns`` (the text of the
    schema of the rows the state holds) and of ``computed``, the (name, Spark SQL) of the
    columns computed per row before matching, which the held rows keep (a measure's
    ``FIRST(A.price * 2)`` is one: changed, the held rows would give the old values)."""
    kept = dataclasses.replace(clause, measures=(), sql="")
    columns = tuple((name, _tokens(text)) for name, text in computed)
    text = repr((_canonical(kept), columns)) + held_columns
    return hashlib.sha256(_GENERATED.sub("__matchrec_", text).encode()).hexdigest()[:32]


#: names matchrec.sql makes up per call (a DataFrame argument's, a view's): another each
#: run of the same query
_GENERATED = re.compile(r"__matchrec_\w+", re.IGNORECASE)


def _canonical(node: Any) -> Any:
    """An AST node as nested tuples, without positions, each expression as its tokens."""
    if isinstance(node, ast.SqlExpr):
        return _tokens(node.text)
    if dataclasses.is_dataclass(node):
        return (type(node).__name__,) + tuple(
            (f.name, _canonical(getattr(node, f.name)))
            for f in dataclasses.fields(node)
            if not f.name.endswith("pos")
        )
    if isinstance(node, (tuple, list)):
        return tuple(_canonical(item) for item in node)
    if isinstance(node, (set, frozenset)):  # in an order of its own, the same every run
        return tuple(sorted((_canonical(item) for item in node), key=repr))
    return node


def _tokens(text: str) -> tuple[tuple[str, str], ...]:
    """The tokens of an expression, each its kind and text (upper-cased but for string
    literals: ``'ABC'`` is no column ``ABC``)."""
    try:
        tokens = MatchRecognizeDialect().tokenize(text)
    except Exception:  # noqa: BLE001 - planned already; a text sqlglot cannot split stays as is
        return (("TEXT", " ".join(text.split())),)
    return tuple(
        (t.token_type.name, t.text if t.token_type in _AS_WRITTEN else t.text.upper())
        for t in tokens
    )
