"""Suggestions attached to syntax errors for the commonest mistakes."""

from __future__ import annotations

import difflib

from matchrec.grammar.expressions import CLAUSE_STARTS
from matchrec.grammar.lalr import Grammar
from matchrec.grammar.scanner import Raw

__all__ = ["hint"]

_CLAUSE_ORDER = (
    "PARTITION BY, ORDER BY, MEASURES, ONE ROW PER MATCH | ALL ROWS PER MATCH, "
    "AFTER MATCH SKIP, INITIAL | SEEK, PATTERN, SUBSET, DEFINE"
)


def hint(grammar: Grammar, raw: Raw, kind: str, expected: set[str], fed: list[str]) -> str | None:
    """A suggestion for the token ``raw``, taken as terminal ``kind`` where the parser
    expected the terminals ``expected`` after those in ``fed``; or None."""
    keywords = [word for word, t in grammar.keywords.items() if t in expected]
    if raw.kind == "word":
        guess = difflib.get_close_matches(raw.text.upper(), keywords, n=1, cutoff=0.75)
        if guess and guess[0] != raw.text.upper():
            return f"did you mean {guess[0]}?"
    if "ONE" not in grammar.keywords:  # MATCH_RECOGNIZE_DYNAMIC's body: the rest is moot
        return None
    keyword, punctuation = grammar.keywords, grammar.punctuation
    one_row = [keyword[word] for word in ("ONE", "ROW", "PER", "MATCH")]
    after_one_row = fed[-4:] == one_row or fed[-5:] == [*one_row, keyword["WITH"]]
    if kind in (keyword["SHOW"], keyword["OMIT"], keyword["UNMATCHED"]) and after_one_row:
        return (
            "SHOW EMPTY MATCHES, OMIT EMPTY MATCHES and WITH UNMATCHED ROWS only go with "
            "ALL ROWS PER MATCH (ONE ROW PER MATCH takes WITH TIMEOUTS and WITH LATE ROWS)"
        )
    if fed and fed[-1] == punctuation.get("{-") and raw.kind == "number":  # ``A{-1}``
        return (
            "'{-' starts an exclusion {- ... -}; a quantifier's bounds are numbers of 0 or "
            "more: {n}, {n,}, {,m}, {n,m}"
        )
    skip_to = [keyword["SKIP"], keyword["TO"], "LABEL"]
    if fed[-3:] == skip_to and kind == punctuation["("]:
        return (
            "the word before '(' was read as the variable AFTER MATCH SKIP TO goes to: "
            "write SKIP TO NEXT ROW, SKIP PAST LAST ROW, SKIP TO FIRST x, SKIP TO LAST x "
            "or SKIP TO x, then the PATTERN"
        )
    quantifier_ends = {punctuation[c] for c in "*+?}"}
    quantifier_starts = {punctuation[c] for c in "*+?{"}
    if kind in quantifier_starts and fed and fed[-1] in quantifier_ends:
        return (
            "a pattern element takes one quantifier (and one '?' to make it "
            "reluctant); use parentheses to quantify again, e.g. (A*)+"
        )
    if expected == {keyword["AS"], "ALIAS"}:
        return "every measure needs a column name: MEASURES <expression> AS <name>"
    if keyword["PATTERN"] in expected and kind in (
        keyword["SUBSET"],
        keyword["DEFINE"],
        "$END",
    ):
        return f"a PATTERN clause is required; the clauses go in this order: {_CLAUSE_ORDER}"
    if raw.kind == "word" and raw.text.upper() in ("RANGE", "GROUPS") and "ROWS" in keyword:
        if keyword["ROWS"] in expected:
            return (
                "Pattern recognition requires ROWS frame type: a window with a row pattern "
                "takes ROWS BETWEEN CURRENT ROW AND ..."
            )
    rows_per_match = {keyword["ONE"], keyword["ALL"]}
    if raw.kind == "word" and raw.text.upper() == "ROWS" and rows_per_match & set(fed):
        return (
            "in a window, the frame ROWS BETWEEN CURRENT ROW AND ... stands where "
            "MATCH_RECOGNIZE has ONE ROW PER MATCH or ALL ROWS PER MATCH: keep one of them"
        )
    if kind == "$END" and fed and fed[-1] == keyword["DEFINE"]:
        return (
            "DEFINE lists each variable's condition: DEFINE A AS <condition>, B AS ...; "
            "leave DEFINE out where no variable has one"
        )
    if kind == "$END" and expected == {"EXPR"}:
        return "write the expression before the clause ends, e.g. DEFINE A AS price > PREV(price)"
    if raw.kind == "word" and raw.text.upper() in CLAUSE_STARTS:
        if "EXPR" in expected:  # ``ORDER BY measures``: a column named like a clause
            return (
                f"{raw.text} starts a clause; a column of that name is written with "
                f"backquotes: `{raw.text}`"
            )
        return f"the clauses go in this order: {_CLAUSE_ORDER}"
    return None
