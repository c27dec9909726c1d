"""Where row pattern recognition may not go: inside another one, or a recursive query.

A row pattern body is the text in parentheses that holds ``PATTERN (`` at its own level:
a ``MATCH_RECOGNIZE ( ... )`` clause or a window specification with a row pattern
(``OVER ( ... )``, ``WINDOW w AS ( ... )``). The standard (and Trino) refuse one body
inside another (a subquery or a window of MEASURES or DEFINE), and row pattern
recognition in the recursive part of ``WITH RECURSIVE``. Without this check the scanners
would each see only part of such a query and report a misleading syntax error, or Spark
a missing table.

A window specification with row pattern clauses (MEASURES, AFTER MATCH SKIP, INITIAL or
SEEK, SUBSET, DEFINE) but no PATTERN is no row pattern window either: the scanners leave
it to Spark, whose parser knows none of those words; it is refused here, at the clause.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable

from matchrec.errors import SemanticError, SqlSyntaxError

from .query_scan import Token, _is, _word, tokenize

__all__ = ["refuse_nested_recognition", "refuse_row_pattern_clauses_without_pattern"]


def refuse_nested_recognition(sql: str) -> None:
    """Raise :class:`~matchrec.errors.SemanticError` at the first row pattern body of
    ``sql`` that lies inside another, or inside a recursive common table expression."""
    tokens = tokenize(sql)
    if not any(_word(t, "PATTERN") for t in tokens):
        return
    pairs = _paren_pairs(tokens)
    bodies = [(o, c) for o, c in pairs.items() if _holds_pattern(tokens, o, c)]
    for o, c in bodies:
        if any(a < o and c < b for a, b in bodies):
            raise SemanticError(
                "nested row pattern recognition in row pattern recognition",
                sql=sql,
                pos=_head(tokens, o).start,
                hint="a MATCH_RECOGNIZE or a window with a row pattern cannot be used in the "
                "MEASURES or DEFINE of another: compute it in a subquery of the FROM clause "
                "and join or compare with its result",
            )
    for name, a, b in _recursive_ctes(tokens, pairs):
        inner = [o for o, c in bodies if a < o and c < b]
        if inner:
            raise SemanticError(
                f"nested row pattern recognition in a recursive query (WITH RECURSIVE {name})",
                sql=sql,
                pos=_head(tokens, inner[0]).start,
                hint="match the rows the recursion produced, in the query after WITH RECURSIVE",
            )


def _paren_pairs(tokens: list[Token]) -> dict[int, int]:
    """Token index of each ``(`` -> that of its ``)`` (unclosed ones are left out: the
    scanners report them)."""
    pairs: dict[int, int] = {}
    stack: list[int] = []
    for k, tok in enumerate(tokens):
        if _is(tok, "("):
            stack.append(k)
        elif _is(tok, ")") and stack:
            pairs[stack.pop()] = k
    return pairs


def _holds_pattern(tokens: list[Token], o: int, c: int) -> bool:
    """Whether ``PATTERN (`` stands at the own level of the parentheses ``o``..``c``."""
    depth = 0
    for k in range(o + 1, c):
        if _is(tokens[k], "("):
            depth += 1
        elif _is(tokens[k], ")"):
            depth -= 1
        elif depth == 0 and _word(tokens[k], "PATTERN") and _is(tokens[k + 1], "("):
            return True
    return False


def _head(tokens: list[Token], o: int) -> Token:
    """The word that opens the body at ``(`` ``o``: MATCH_RECOGNIZE, OVER, or AS of a
    named window (the ``(`` itself when there is none)."""
    return tokens[o - 1] if o > 0 and tokens[o - 1].kind == "word" else tokens[o]


def _recursive_ctes(tokens: list[Token], pairs: dict[int, int]) -> list[tuple[str, int, int]]:
    """(name, ``(`` and ``)`` of the body) of each common table expression of a ``WITH
    RECURSIVE`` list whose body names it (the recursive ones)."""
    found: list[tuple[str, int, int]] = []
    for k, tok in enumerate(tokens[:-1]):
        if not (_word(tok, "WITH") and _word(tokens[k + 1], "RECURSIVE")):
            continue
        i = k + 2
        while i + 2 < len(tokens) and tokens[i].kind in ("word", "quoted"):
            name = tokens[i]
            i += 1
            if _is(tokens[i], "(") and i in pairs:  # the column list
                i = pairs[i] + 1
            if not (i + 1 < len(tokens) and _word(tokens[i], "AS") and i + 1 in pairs):
                break
            o, c = i + 1, pairs[i + 1]
            key = name.text.strip('`"').upper()
            if any(
                t.text.strip('`"').upper() == key for t in tokens[o + 1 : c] if t.kind != "string"
            ):
                found.append((name.text, o, c))
            i = c + 1
            if not (i < len(tokens) and _is(tokens[i], ",")):
                break
            i += 1
    return found


def _same_name(token: Token, name: Token) -> bool:
    """Whether ``token`` names the same table as ``name`` (case-insensitive, quotes off)."""
    if token.kind not in ("word", "quoted"):
        return False
    return token.text.strip('`"').upper() == name.text.strip('`"').upper()


def _follows(*shapes: str) -> Callable[[list[Token], int], bool]:
    """A check that the tokens after index ``k`` have ``shapes``: ``name`` (a word or a
    quoted name), ``name(`` (that or ``(``), ``end`` (``)`` or a word), or a word itself."""

    def fits(tok: Token, shape: str) -> bool:
        if shape == "name":
            return tok.kind in ("word", "quoted")
        if shape == "name(":
            return tok.kind in ("word", "quoted") or _is(tok, "(")
        if shape == "end":
            return tok.kind == "word" or _is(tok, ")")
        return _is(tok, shape) or _word(tok, shape)

    def check(tokens: list[Token], k: int) -> bool:
        after = tokens[k + 1 : k + 1 + len(shapes)]
        return len(after) == len(shapes) and all(map(fits, after, shapes))

    return check


#: the row pattern clauses of a window specification: first word -> (what the tokens
#: after it look like, how the message names the clause)
_PATTERN_CLAUSES: dict[str, tuple[Callable[[list[Token], int], bool], str]] = {
    "MEASURES": (_follows("name("), "row pattern measures (MEASURES)"),
    "AFTER": (_follows("MATCH", "SKIP"), "AFTER MATCH SKIP"),
    "INITIAL": (_follows("end"), "the pattern search modifier INITIAL"),
    "SEEK": (_follows("end"), "the pattern search modifier SEEK"),
    "SUBSET": (_follows("name", "="), "union variables (SUBSET)"),
    "DEFINE": (_follows("name", "AS"), "pattern variable definitions (DEFINE)"),
}


def refuse_row_pattern_clauses_without_pattern(sql: str) -> None:
    """Raise :class:`~matchrec.errors.SemanticError` at the first row pattern clause of a
    window specification (``OVER (...)``, ``WINDOW w AS (...)``) that has no PATTERN."""
    tokens = tokenize(sql)
    if not any(t.kind == "word" and t.text.upper() in _PATTERN_CLAUSES for t in tokens):
        return
    for o, c in sorted(_paren_pairs(tokens).items()):
        if not _is_window_spec(tokens, o) or _holds_pattern(tokens, o, c):
            continue
        depth = 0
        for k in range(o + 1, c):
            tok = tokens[k]
            depth += _is(tok, "(") - _is(tok, ")")
            clause = _PATTERN_CLAUSES.get(tok.text.upper()) if tok.kind == "word" else None
            if depth or clause is None or not _starts_clause(tokens[k - 1]):
                continue
            fits, what = clause
            if fits(tokens, k):
                _refuse_misspelled_pattern(tokens, o, c, sql)
                raise SemanticError(
                    f"this window has {what} but no PATTERN: they make no sense without one",
                    sql=sql,
                    pos=tok.start,
                    hint="add PATTERN (...) and DEFINE to the window, after its frame "
                    "ROWS BETWEEN CURRENT ROW AND ...",
                )


def _refuse_misspelled_pattern(tokens: list[Token], o: int, c: int, sql: str) -> None:
    """A word like PATTERN before a ``(`` at the window's own level (``PATERN (A B+)``) is
    the keyword misspelled: say so there, rather than that PATTERN is missing."""
    depth = 0
    for k in range(o + 1, c - 1):
        tok = tokens[k]
        depth += _is(tok, "(") - _is(tok, ")")
        if depth or tok.kind != "word" or not _is(tokens[k + 1], "("):
            continue
        if difflib.get_close_matches(tok.text.upper(), ["PATTERN"], n=1, cutoff=0.75):
            raise SqlSyntaxError(
                f"unexpected {tok.text!r} in a window with row pattern clauses",
                sql=sql,
                pos=tok.start,
                hint="did you mean PATTERN?",
            )


def _is_window_spec(tokens: list[Token], o: int) -> bool:
    """Whether the ``(`` at ``o`` opens a window specification: ``OVER (`` or ``WINDOW w
    AS (`` (also a later ``, v AS (`` of the WINDOW clause)."""
    if o >= 1 and _word(tokens[o - 1], "OVER"):
        return True
    return (
        o >= 3
        and _word(tokens[o - 1], "AS")
        and tokens[o - 2].kind in ("word", "quoted")
        and (_word(tokens[o - 3], "WINDOW") or _is(tokens[o - 3], ","))
        and any(_word(t, "WINDOW") for t in tokens[:o])
    )


def _starts_clause(before: Token) -> bool:
    """Whether a clause word may start after ``before``: not an operand of BY, a comma or
    an operator (``PARTITION BY subset``, ``ORDER BY a, seek``)."""
    if before.kind == "punct":
        return before.text in ("(", ")")
    return not _word(before, "BY")
