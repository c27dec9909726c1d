"""Where an ``EXPR`` token (a whole Spark SQL expression) ends.

An expression runs from its first token up to a stop at paren depth 0: a ``,``, an
unmatched ``)``, the end of the body, a word that starts a clause when the token after
it fits, or a keyword that the grammar allows right after the expression (``AS`` in
MEASURES; ``ASC``, ``DESC``, ``NULLS`` in ORDER BY). :func:`scan_expression` asks the
parser's state which terminals may follow, then finds that stop.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import NamedTuple

from matchrec.grammar.lalr import Grammar
from matchrec.grammar.scanner import Raw, Scanner, describe

__all__ = ["CLAUSE_STARTS", "Expression", "scan_expression"]

# A word at paren depth 0 that starts a clause ends the expression before it, but only
# when the token after it fits, so that a column called `one`, `initial` or `within`
# does not cut an expression short. The same check confirms a misspelled clause keyword.


def _is_word(*words: str) -> Callable[[Raw], bool]:
    return lambda raw: raw.kind == "word" and raw.text.upper() in words


def _is_name(raw: Raw) -> bool:
    return raw.kind in ("word", "qident", "bqident")


#: prefix operators an expression may start with (``MEASURES -amt AS v``)
_PREFIX_OPERATORS = ("(", "-", "+", "~", "!")


def _starts_expression(raw: Raw) -> bool:
    return _is_name(raw) or raw.kind in ("string", "number") or raw.text in _PREFIX_OPERATORS


CLAUSE_STARTS: dict[str, Callable[[Raw], bool]] = {
    "PARTITION": _is_word("BY"),
    "ORDER": _is_word("BY"),
    "MEASURES": _starts_expression,
    "ONE": _is_word("ROW"),
    "ALL": _is_word("ROWS"),
    "AFTER": _is_word("MATCH"),
    "ROWS": _is_word("BETWEEN", "CURRENT"),  # a row pattern window's frame
    "RANGE": _is_word("BETWEEN", "CURRENT"),  # a frame type a row pattern window refuses
    "GROUPS": _is_word("BETWEEN", "CURRENT"),
    "EXCLUDE": _is_word("NO"),
    "INITIAL": _is_word("PATTERN"),
    "SEEK": _is_word("PATTERN"),
    "PATTERN": lambda raw: raw.text == "(",
    "WITHIN": _is_word("INTERVAL"),
    "SUBSET": _is_name,
    "DEFINE": _is_name,
}
#: words that start a window's frame (``ROWS BETWEEN CURRENT ROW ...``, ``ROWS CURRENT
#: ROW``): a clause start only when BETWEEN and CURRENT or UNBOUNDED, or CURRENT ROW follow
_FRAME_UNITS = ("ROWS", "RANGE", "GROUPS")
# Keywords that end an expression only where the grammar allows them after it (AS in
# MEASURES; ASC, DESC, NULLS in ORDER BY), with the same kind of check where useful.
_FOLLOWERS: dict[str, Callable[[Raw], bool]] = {
    "AS": lambda raw: True,
    "ASC": lambda raw: True,
    "DESC": lambda raw: True,
    "NULLS": _is_word("FIRST", "LAST"),
    # a window frame's end: ROWS BETWEEN CURRENT ROW AND <expression> FOLLOWING
    "FOLLOWING": lambda raw: True,
    # MATCH_RECOGNIZE_DYNAMIC: after the rules table
    "KEYS": lambda raw: raw.text == "(",
    "ON": _is_word("ERROR"),
}

# SQL words that join or prefix operands: the word after one of them is an operand, not
# a measure alias (`MEASURES a OR b` lacks an alias rather than naming `b`).
_OPERATOR_WORDS = frozenset(
    "AND OR NOT IS IN LIKE ILIKE RLIKE REGEXP BETWEEN CASE WHEN THEN ELSE ESCAPE "
    "DISTINCT RUNNING FINAL INTERVAL DIV AS ANY SOME ALL EXISTS".split()
)
# ... and words that are never an alias written without AS.
_NOT_ALIASES = _OPERATOR_WORDS | {"NULL", "NULLS", "TRUE", "FALSE", "END", "UNKNOWN"}


def _ends_operand(raw: Raw) -> bool:
    """Whether ``raw`` can be the last token of an operand (so a name may follow it)."""
    if raw.kind == "word":
        return raw.text.upper() not in _OPERATOR_WORDS
    return raw.kind in ("number", "string", "qident", "bqident") or raw.text in (")", "]")


_CLOSERS = {"(": ")", "[": "]"}


class Expression(NamedTuple):
    """The extent of an expression in the body text (empty when there is none)."""

    start: int
    end: int
    top_level: tuple[Raw, ...]  # tokens at paren depth 0, closing parens included
    clause_stop: int | None  # offset of a clause keyword that ended it, if one did

    @property
    def empty(self) -> bool:
        return self.end == self.start


def scan_expression(scanner: Scanner, grammar: Grammar, stack: list, first: Raw) -> Expression:
    """Find the extent of the Spark SQL expression that starts at ``first``, in parser
    state ``stack`` (which must accept ``EXPR``).

    The result is empty when there is no expression (the next token cannot start one),
    so that the parser reports what it expected instead.
    """
    after = grammar.advance(stack, "EXPR")
    assert after is not None
    follow = grammar.expected(after)
    may_alias = "ALIAS" in follow
    if may_alias:  # MEASURES: the keywords after the alias end the expression too
        follow |= grammar.expected(grammar.advance(after, "ALIAS") or after)
    expression = _Extent(scanner, grammar, follow).scan(first)
    if expression.empty:
        return expression
    if may_alias:
        following = scanner.at(expression.end)
        if not (following.kind == "word" and following.text.upper() == "AS"):
            expression = _without_alias(expression)  # `... INTERVAL 1 HOUR AS x` keeps HOUR
    return expression


class _Extent:
    """Scans tokens for the end of one expression, given the terminals that may follow."""

    def __init__(self, scanner: Scanner, grammar: Grammar, follow: set[str]) -> None:
        self.scanner = scanner
        self.source = scanner.source
        self.grammar = grammar
        self.follow = follow

    def scan(self, first: Raw) -> Expression:
        """Tokens from ``first`` up to a stop at paren depth 0 (see module docstring)."""
        opened: list[Raw] = []
        top: list[Raw] = []
        clause_stop = None
        raw, end = first, first.start
        while raw.kind != "end":
            if raw.text in _CLOSERS:
                opened.append(raw)
            elif raw.text in (")", "]"):
                if not opened:
                    break
                opener = opened.pop()
                if _CLOSERS[opener.text] != raw.text:
                    raise self.source.error(
                        f"'{raw.text}' does not match '{opener.text}'",
                        raw.start,
                        hint=f"close '{opener.text}' with '{_CLOSERS[opener.text]}'",
                    )
                if not opened:
                    top.append(raw)
            elif not opened:
                if raw.text == ",":
                    break
                if self._ends_expression(raw, top):
                    if raw.text.upper() in CLAUSE_STARTS:
                        clause_stop = raw.start
                    break
                top.append(raw)
            end = raw.end
            raw = self.scanner.at(raw.end)
        if opened:
            raise self.source.error(
                f"'{opened[-1].text}' is never closed",
                opened[-1].start,
                hint=f"add the missing '{_CLOSERS[opened[-1].text]}'",
            )
        return Expression(first.start, end, tuple(top), clause_stop)

    def _ends_expression(self, raw: Raw, before: list[Raw]) -> bool:
        """Whether the word ``raw`` at paren depth 0 ends the expression before it."""
        if raw.kind != "word":
            return False
        word = raw.text.upper()
        following = self.scanner.at(raw.end)
        if word in _FRAME_UNITS:  # `rows BETWEEN 1 AND 3` may be a column's test
            after = self.scanner.at(following.end) if following.kind == "word" else following
            between = _is_word("BETWEEN")(following) and _is_word("CURRENT", "UNBOUNDED")(after)
            return between or (_is_word("CURRENT")(following) and _is_word("ROW")(after))
        if word in CLAUSE_STARTS:
            return CLAUSE_STARTS[word](following)
        keyword = self.grammar.keywords.get(word)
        if keyword in self.follow and word in _FOLLOWERS:
            return _FOLLOWERS[word](following)
        if before and _ends_operand(before[-1]):
            self._check_misspelled_clause(raw, word, following)
        return False

    def _check_misspelled_clause(self, raw: Raw, word: str, following: Raw) -> None:
        """`ORDER BY x PATERN (A)`: two operands in a row where the second looks like a
        clause keyword, with the right token after it. Report it rather than let the
        expression swallow the rest of the clause."""
        for guess in difflib.get_close_matches(word, CLAUSE_STARTS, n=3, cutoff=0.75):
            if CLAUSE_STARTS[guess](following):
                raise self.source.error(
                    f"unexpected {describe(raw)}; expected {self.grammar.phrase(self.follow)}",
                    raw.start,
                    hint=f"did you mean {guess}?",
                )


def _without_alias(expression: Expression) -> Expression:
    """`MEASURES expr alias` (no AS): give the last name to the alias when the token
    before it ends an operand; otherwise the parser asks for AS."""
    top = expression.top_level
    if len(top) < 2:
        return expression
    alias, before = top[-1], top[-2]
    if not _is_name(alias) or not _ends_operand(before):
        return expression
    if alias.kind == "word" and alias.text.upper() in _NOT_ALIASES:
        return expression
    return expression._replace(end=before.end, top_level=top[:-1])
