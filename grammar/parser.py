"""Parse the body of a MATCH_RECOGNIZE clause into :mod:`matchrec.ast` nodes.

``match_recognize.lark`` (next to this file) is the reference of the syntax. Lark's
LALR(1) parser runs it, but tokens come from the scanner in this module rather than from
a Lark lexer, for two reasons the grammar file explains:

* an ``EXPR`` token is a whole Spark SQL expression. Where it ends depends on what the
  grammar allows next (``AS`` in MEASURES, ``ASC`` in ORDER BY, ...), so the scanner asks
  the parser which terminals may follow and stops there, at paren depth 0;
* keywords are not reserved: a word is a keyword only where the grammar accepts that
  keyword, so ``LAST`` can name a pattern variable.

Both need the parser's state while tokens are produced, so :class:`_ClauseParser` drives
a Lark interactive parser token by token. Before it feeds a token it checks, on a copy of
the LALR state stack, that the token will be shifted; a token that will not is reported
as a :class:`~matchrec.errors.SqlSyntaxError` with its position and the exact set of
tokens that would have been accepted. No Lark exception reaches the caller.

Positions in the AST and in errors are offsets into the whole SQL text the body was cut
from, so carets land in the user's query.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from lark import Lark, Token, Tree, v_args
from lark.exceptions import VisitError
from lark.lexer import Lexer, PatternStr
from lark.parsers.lalr_analysis import Shift
from lark.visitors import Transformer_NonRecursive

from matchrec import ast
from matchrec.errors import SqlSyntaxError

__all__ = ["parse_clause"]

GRAMMAR_FILE = Path(__file__).with_name("match_recognize.lark")
START_RULE = "match_recognize_body"
MAX_BOUND = 2**31 - 1  # largest quantifier bound (a 32-bit int, as Trino parses them)
MAX_NESTING = 100  # deepest nesting of ( ) and {- -} in a pattern (later stages recurse)


def parse_clause(text: str, base: int = 0, sql: str | None = None) -> ast.MatchRecognizeClause:
    """Parse the body of a MATCH_RECOGNIZE clause (the text inside its parentheses).

    ``sql`` is the whole query the body was cut from (default: ``text`` itself) and
    ``base`` the offset of ``text[0]`` in it; every ``pos`` in the result, and in a
    :class:`~matchrec.errors.SqlSyntaxError`, is an offset into ``sql``. Expressions are
    returned as :class:`~matchrec.ast.SqlExpr` source spans for the planner to parse.
    """
    if sql is None:
        if base != 0:
            raise ValueError("parse_clause: base needs the sql text it is an offset into")
        sql = text
    elif sql[base : base + len(text)] != text:
        raise ValueError("parse_clause: text is not sql[base:base + len(text)]")
    source = _Source(text, sql, base)
    tree = _ClauseParser(source).parse()
    try:
        return _ToAst(sql).transform(tree)
    except VisitError as exc:  # a check in the transformer (e.g. A{3,2}) failed
        raise exc.orig_exc from None


# --------------------------------------------------------------------------- source


@dataclass(frozen=True)
class _Source:
    """The body being parsed and where it sits in the user's SQL."""

    text: str
    sql: str
    base: int

    def error(self, message: str, offset: int, hint: str | None = None) -> SqlSyntaxError:
        """A syntax error at ``offset`` in the body."""
        return SqlSyntaxError(message, sql=self.sql, pos=self.base + offset, hint=hint)


# -------------------------------------------------------------------------- scanner


class _Raw(NamedTuple):
    """A lexical token of the body, before the parser decides what it means."""

    kind: str  # word, number, qident, bqident, string, punct, end
    text: str
    start: int  # offsets into the body text
    end: int


_SPACE = re.compile(r"\s+")
_COMMENT_MARK = re.compile(r"/\*|\*/")
_TOKEN = re.compile(
    r"""
      (?P<string>[rR]'[^']*'|[rR]"[^"]*"|'(?:[^'\\]|\\.|'')*')   # r'raw' or 'x\'y''z'
    | (?P<word>[^\W\d]\w*)
    | (?P<number>\d\w*)
    | (?P<qident>"(?:[^"]|"")*")
    | (?P<bqident>`(?:[^`]|``)*`)
    | (?P<punct>\{-|-\}|[^\s\w'"`])
    """,
    re.VERBOSE | re.DOTALL,
)
_UNTERMINATED = {"'": "string literal", '"': "quoted name", "`": "quoted name"}


class _Scanner:
    """Splits the body into :class:`_Raw` tokens, skipping whitespace and comments.

    Strings, quoted names and comments are single tokens, so nothing inside them is
    ever taken for a paren, comma or keyword.
    """

    def __init__(self, source: _Source) -> None:
        self.source = source
        self._cache: dict[int, _Raw] = {}

    def at(self, offset: int) -> _Raw:
        """The first token at or after ``offset``."""
        raw = self._cache.get(offset)
        if raw is None:
            raw = self._cache[offset] = self._lex(offset)
        return raw

    def _lex(self, offset: int) -> _Raw:
        text = self.source.text
        i = self._skip(offset)
        if i >= len(text):
            return _Raw("end", "", len(text), len(text))
        match = _TOKEN.match(text, i)
        if match is None:
            what = _UNTERMINATED[text[i]]
            raise self.source.error(
                f"unterminated {what}", i, hint=f"close it with a matching {text[i]}"
            )
        return _Raw(match.lastgroup or "", match.group(), i, match.end())

    def _skip(self, i: int) -> int:
        text = self.source.text
        while True:
            space = _SPACE.match(text, i)
            if space:
                i = space.end()
            if text.startswith("--", i):
                newline = text.find("\n", i)
                i = len(text) if newline < 0 else newline + 1
            elif text.startswith("/*", i):
                i = self._end_of_comment(i)
            else:
                return i

    def _end_of_comment(self, start: int) -> int:
        """Spark's bracketed comments nest: /* a /* b */ c */."""
        depth, i = 0, start
        while True:
            mark = _COMMENT_MARK.search(self.source.text, i)
            if mark is None:
                raise self.source.error("unterminated comment", start, hint="close it with */")
            depth += 1 if mark.group() == "/*" else -1
            i = mark.end()
            if depth == 0:
                return i


# -------------------------------------------------------------------------- grammar


class _FedByHand(Lexer):
    """Placeholder lexer: :class:`_ClauseParser` feeds the tokens itself."""

    def __init__(self, lexer_conf: object) -> None:
        pass

    def lex(self, data: object) -> None:  # pragma: no cover - never called
        raise NotImplementedError


# How the terminals that the scanner makes are named in error messages.
_TERMINAL_NAMES = {
    "EXPR": "an expression",
    "LABEL": "a pattern variable",
    "ALIAS": "a column name",
    "NUMBER": "a number",
    "STRING": "a string",
    "$END": "end of clause",
}


@dataclass(frozen=True)
class _Grammar:
    """The Lark parser and the tables the scanner derives from the grammar file."""

    lark: Lark
    states: dict
    end_state: object
    keywords: dict[str, str]  # upper-case word -> terminal name
    punctuation: dict[str, str]  # text -> terminal name
    names: dict[str, str]  # terminal name -> how messages show it
    rank: dict[str, int]  # terminal name -> order in "expected one of" lists


@lru_cache(maxsize=1)
def _grammar() -> _Grammar:
    """Build the LALR parser once, on first use."""
    lark = Lark(
        GRAMMAR_FILE.read_text(encoding="utf-8"),
        parser="lalr",
        lexer=_FedByHand,
        start=START_RULE,
        propagate_positions=True,
        maybe_placeholders=True,
    )
    keywords, punctuation, names = {}, {}, dict(_TERMINAL_NAMES)
    for terminal in lark.terminals:
        pattern = terminal.pattern
        if not isinstance(pattern, PatternStr):
            continue
        if re.fullmatch(r"\w+", pattern.value):
            assert "i" in pattern.flags, f"keyword {pattern.value} must be case-insensitive"
            keywords[pattern.value.upper()] = terminal.name
            names[terminal.name] = pattern.value.upper()
        else:
            punctuation[pattern.value] = terminal.name
            names[terminal.name] = f"'{pattern.value}'"
    # Scanner-made terminals first, then the grammar's in order of appearance.
    order = ["EXPR", "LABEL", "ALIAS", "NUMBER", "STRING"]
    order += [t.name for t in lark.terminals] + ["$END"]
    parser_state = lark.parse_interactive("").parser_state
    return _Grammar(
        lark=lark,
        states=parser_state.parse_conf.states,
        end_state=parser_state.parse_conf.end_state,
        keywords=keywords,
        punctuation=punctuation,
        names=names,
        rank={name: i for i, name in enumerate(order)},
    )


# ------------------------------------------------------------ words in expressions

# A word at paren depth 0 that starts a clause ends the expression before it, but only
# when the token after it fits, so that a column called `one`, `initial` or `within`
# does not cut an expression short. The same check confirms a misspelled clause keyword.


def _is_word(*words: str) -> Callable[[_Raw], bool]:
    return lambda raw: raw.kind == "word" and raw.text.upper() in words


def _is_name(raw: _Raw) -> bool:
    return raw.kind in ("word", "qident", "bqident")


def _starts_expression(raw: _Raw) -> bool:
    return _is_name(raw) or raw.kind in ("string", "number") or raw.text == "("


_CLAUSE_STARTS: dict[str, Callable[[_Raw], bool]] = {
    "PARTITION": _is_word("BY"),
    "ORDER": _is_word("BY"),
    "MEASURES": _starts_expression,
    "ONE": _is_word("ROW"),
    "ALL": _is_word("ROWS"),
    "AFTER": _is_word("MATCH"),
    "INITIAL": _is_word("PATTERN"),
    "SEEK": _is_word("PATTERN"),
    "PATTERN": lambda raw: raw.text == "(",
    "WITHIN": _is_word("INTERVAL"),
    "SUBSET": _is_name,
    "DEFINE": _is_name,
}
# Keywords that end an expression only where the grammar allows them after it (AS in
# MEASURES; ASC, DESC, NULLS in ORDER BY), with the same kind of check where useful.
_FOLLOWERS: dict[str, Callable[[_Raw], bool]] = {
    "AS": lambda raw: True,
    "ASC": lambda raw: True,
    "DESC": lambda raw: True,
    "NULLS": _is_word("FIRST", "LAST"),
}
_CLAUSE_ORDER = (
    "PARTITION BY, ORDER BY, MEASURES, ONE ROW PER MATCH | ALL ROWS PER MATCH, "
    "AFTER MATCH SKIP, INITIAL | SEEK, PATTERN, SUBSET, DEFINE"
)

# SQL words that join or prefix operands: the word after one of them is an operand, not
# a measure alias (`MEASURES a OR b` lacks an alias rather than naming `b`).
_OPERATOR_WORDS = frozenset(
    "AND OR NOT IS IN LIKE ILIKE RLIKE REGEXP BETWEEN CASE WHEN THEN ELSE ESCAPE "
    "DISTINCT RUNNING FINAL INTERVAL DIV AS ANY SOME ALL EXISTS".split()
)
# ... and words that are never an alias written without AS.
_NOT_ALIASES = _OPERATOR_WORDS | {"NULL", "NULLS", "TRUE", "FALSE", "END", "UNKNOWN"}


def _ends_operand(raw: _Raw) -> bool:
    """Whether ``raw`` can be the last token of an operand (so a name may follow it)."""
    if raw.kind == "word":
        return raw.text.upper() not in _OPERATOR_WORDS
    return raw.kind in ("number", "string", "qident", "bqident") or raw.text in (")", "]")


_CLOSERS = {"(": ")", "[": "]"}


class _Expression(NamedTuple):
    start: int
    end: int
    top_level: tuple[_Raw, ...]  # tokens at paren depth 0, closing parens included


# --------------------------------------------------------------------------- driver


class _ClauseParser:
    """Feeds scanner tokens to Lark's LALR parser, deciding what each token is from the
    parser's state; reports any token the parser cannot take as a SqlSyntaxError."""

    def __init__(self, source: _Source) -> None:
        self.source = source
        self.scanner = _Scanner(source)
        self.grammar = _grammar()
        self.parser = self.grammar.lark.parse_interactive("")
        self.stack = self.parser.parser_state.state_stack  # updated in place by Lark
        self.offset = 0  # where the next token is scanned
        self.last_end = 0  # end of the last token fed (where "end of clause" is shown)
        self.fed: list[str] = []  # terminal types fed so far
        self.clause_stop = -1  # offset of a clause keyword that ended an expression
        self.nesting = 0  # open ( and {- fed so far

    def parse(self) -> Tree:
        """Run the parser over the whole body and return Lark's tree."""
        while True:
            token = self._next_token()
            if not self._accepts(self.stack, token.type):
                raise self._unexpected(token)
            result = self.parser.feed_token(token)
            if token.type == "$END":
                return result
            self.fed.append(token.type)
            self._check_nesting(token)
            self.offset = self.last_end = token.end_pos - self.source.base

    def _check_nesting(self, token: Token) -> None:
        punctuation = self.grammar.punctuation
        if token.type in (punctuation["("], punctuation["{-"]):
            self.nesting += 1
            if self.nesting > MAX_NESTING:
                raise self.source.error(
                    f"parentheses nest more than {MAX_NESTING} deep",
                    token.start_pos - self.source.base,
                    hint="simplify the pattern",
                )
        elif token.type in (punctuation[")"], punctuation["-}"]):
            self.nesting -= 1

    # ----------------------------------------------------------- LALR lookahead

    def _advance(self, stack: list, terminal: str) -> list | None:
        """The state stack after ``terminal`` is shifted, or None if it would be refused.

        Replays LALR reductions on a copy of the stack, so that the answer is exact
        (merged LALR lookaheads would otherwise claim tokens the parser later refuses).
        """
        states, stack = self.grammar.states, list(stack)
        while True:
            action = states[stack[-1]].get(terminal)
            if action is None:
                return None
            kind, arg = action
            if kind is Shift:
                stack.append(arg)
                return stack
            if arg.expansion:
                del stack[-len(arg.expansion) :]
            stack.append(states[stack[-1]][arg.origin.name][1])
            if terminal == "$END" and stack[-1] == self.grammar.end_state:
                return stack

    def _accepts(self, stack: list, terminal: str) -> bool:
        return self._advance(stack, terminal) is not None

    def _expected(self, stack: list) -> set[str]:
        """Every terminal the parser takes next in state ``stack``."""
        candidates = self.grammar.states[stack[-1]]
        return {t for t in candidates if t.isupper() and self._accepts(stack, t)}

    # ---------------------------------------------------------------- tokens

    def _next_token(self) -> Token:
        raw = self.scanner.at(self.offset)
        if raw.kind != "end" and self._accepts(self.stack, "EXPR"):
            expression = self._scan_expression(raw)
            if expression is not None:
                return self._token("EXPR", expression.start, expression.end)
        kind = self._classify(raw, self.stack)
        if kind == "$END":
            return self._token("$END", self.last_end, self.last_end)
        if kind in ("LABEL", "ALIAS") and raw.kind in ("qident", "bqident") and len(raw.text) == 2:
            raise self.source.error("a quoted name cannot be empty", raw.start)
        return self._token(kind, raw.start, raw.end)

    def _token(self, kind: str, start: int, end: int) -> Token:
        base = self.source.base
        return Token(kind, self.source.text[start:end], start_pos=base + start, end_pos=base + end)

    def _classify(self, raw: _Raw, stack: list, lookahead: int = 2) -> str:
        """The terminal that ``raw`` is in parser state ``stack``.

        A word is a keyword where the grammar accepts that keyword and a name otherwise.
        Where both are accepted (``SKIP TO FIRST x``, ``PERMUTE(...)``) the keyword wins
        unless only the name lets the next ``lookahead`` tokens parse, so that
        ``SKIP TO LAST PATTERN (...)`` skips to a variable called LAST. Tokens that fit
        nowhere get a type that no state accepts, so they are reported as unexpected.
        """
        if raw.kind == "end":
            return "$END"
        if raw.kind == "punct":
            return self.grammar.punctuation.get(raw.text, "<punctuation>")
        if raw.kind == "number":
            return "NUMBER" if raw.text.isascii() and raw.text.isdigit() else "<number>"
        if raw.kind == "string":
            return "STRING"
        names = [t for t in ("LABEL", "ALIAS") if self._accepts(stack, t)]
        if raw.kind != "word":
            return names[0] if names else "LABEL"
        keyword = self.grammar.keywords.get(raw.text.upper())
        if keyword is not None and raw.start == self.clause_stop:
            return keyword  # an expression ended here because a clause starts here
        if keyword is not None and self._accepts(stack, keyword):
            if names and lookahead and not self._fits(stack, keyword, raw.end, lookahead):
                if any(self._fits(stack, name, raw.end, lookahead) for name in names):
                    return names[0]
            return keyword
        if names:
            return names[0]
        return keyword or "LABEL"

    def _fits(self, stack: list, terminal: str, offset: int, depth: int) -> bool:
        """Whether, once ``terminal`` is shifted, the next ``depth`` tokens from
        ``offset`` can be parsed (taking each as any terminal it could be)."""
        after = self._advance(stack, terminal)
        if after is None:
            return False
        if depth == 0 or self._accepts(after, "EXPR"):
            return True
        raw = self.scanner.at(offset)
        kinds = {self._classify(raw, after, lookahead=0)}
        if raw.kind == "word":
            keyword = self.grammar.keywords.get(raw.text.upper())
            kinds |= {keyword, "LABEL", "ALIAS"} - {None}
        return any(self._fits(after, kind, raw.end, depth - 1) for kind in kinds)

    # ------------------------------------------------------------ expressions

    def _scan_expression(self, first: _Raw) -> _Expression | None:
        """Find the extent of the Spark SQL expression that starts at ``first``.

        Returns None when there is none (the next token cannot start one), so that the
        parser reports what it expected instead.
        """
        after = self._advance(self.stack, "EXPR")
        assert after is not None
        follow = self._expected(after)
        may_alias = "ALIAS" in follow
        if may_alias:  # MEASURES: the keywords after the alias end the expression too
            follow |= self._expected(self._advance(after, "ALIAS") or after)
        expression = self._extent(first, follow)
        if expression is None:
            return None
        if may_alias:
            expression = self._without_alias(expression)
        return expression

    def _extent(self, first: _Raw, follow: set[str]) -> _Expression | None:
        """Tokens from ``first`` up to a stop at paren depth 0 (see module docstring)."""
        opened: list[_Raw] = []
        top: list[_Raw] = []
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
                if self._ends_expression(raw, follow, top):
                    if raw.text.upper() in _CLAUSE_STARTS:
                        self.clause_stop = raw.start
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
        if end == first.start:
            return None
        return _Expression(first.start, end, tuple(top))

    def _ends_expression(self, raw: _Raw, follow: set[str], before: list[_Raw]) -> bool:
        """Whether the word ``raw`` at paren depth 0 ends the expression before it."""
        if raw.kind != "word":
            return False
        word = raw.text.upper()
        following = self.scanner.at(raw.end)
        if word in _CLAUSE_STARTS:
            return _CLAUSE_STARTS[word](following)
        keyword = self.grammar.keywords.get(word)
        if keyword in follow and word in _FOLLOWERS:
            return _FOLLOWERS[word](following)
        if before and _ends_operand(before[-1]):
            self._check_misspelled_clause(raw, word, following, follow)
        return False

    def _check_misspelled_clause(
        self, raw: _Raw, word: str, following: _Raw, follow: set[str]
    ) -> None:
        """`ORDER BY x PATERN (A)`: two operands in a row where the second looks like a
        clause keyword, with the right token after it. Report it rather than let the
        expression swallow the rest of the clause."""
        for guess in difflib.get_close_matches(word, _CLAUSE_STARTS, n=3, cutoff=0.75):
            if _CLAUSE_STARTS[guess](following):
                raise self.source.error(
                    f"unexpected {_describe(raw)}; expected {self._phrase(follow)}",
                    raw.start,
                    hint=f"did you mean {guess}?",
                )

    def _without_alias(self, expression: _Expression) -> _Expression:
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
        return _Expression(expression.start, before.end, top[:-1])

    # ----------------------------------------------------------------- errors

    def _unexpected(self, token: Token) -> SqlSyntaxError:
        expected = self._expected(self.stack)
        offset = token.start_pos - self.source.base
        # EXPR tokens are only made where accepted, so this is a single scanner token
        raw = self.scanner.at(offset) if token.type != "$END" else _Raw("end", "", offset, offset)
        message = f"unexpected {_describe(raw)}; expected {self._phrase(expected)}"
        return self.source.error(message, offset, hint=self._hint(raw, token.type, expected))

    def _phrase(self, terminals: set[str]) -> str:
        """`expected X` or `expected one of: X, Y, Z`, in grammar order."""
        names: list[str] = []
        for terminal in sorted(terminals, key=lambda t: self.grammar.rank.get(t, -1)):
            name = self.grammar.names.get(terminal, terminal)
            if name not in names:
                names.append(name)
        return names[0] if len(names) == 1 else "one of: " + ", ".join(names)

    def _hint(self, raw: _Raw, kind: str, expected: set[str]) -> str | None:
        """A suggestion for the commonest mistakes, or None."""
        keywords = [word for word, t in self.grammar.keywords.items() if t in expected]
        if raw.kind == "word":
            guess = difflib.get_close_matches(raw.text.upper(), keywords, n=1, cutoff=0.75)
            if guess and guess[0] != raw.text.upper():
                return f"did you mean {guess[0]}?"
        keyword, punctuation = self.grammar.keywords, self.grammar.punctuation
        one_row = [keyword[word] for word in ("ONE", "ROW", "PER", "MATCH")]
        if kind in (keyword["SHOW"], keyword["OMIT"], keyword["WITH"]) and self.fed[-4:] == one_row:
            return (
                "SHOW EMPTY MATCHES, OMIT EMPTY MATCHES and WITH UNMATCHED ROWS "
                "only go with ALL ROWS PER MATCH"
            )
        quantifier_ends = {punctuation[c] for c in "*+?}"}
        quantifier_starts = {punctuation[c] for c in "*+?{"}
        if kind in quantifier_starts and self.fed and self.fed[-1] in quantifier_ends:
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
        if raw.kind == "word" and raw.text.upper() in _CLAUSE_STARTS:
            return f"the clauses go in this order: {_CLAUSE_ORDER}"
        return None


def _describe(raw: _Raw) -> str:
    if raw.kind == "end":
        return "end of clause"
    text = raw.text if len(raw.text) <= 30 else raw.text[:27] + "..."
    return f"string {text}" if raw.kind == "string" else f"'{text}'"


# ------------------------------------------------------------------ tree -> AST


def _canonical(token: Token) -> str:
    """Pattern variable names: unquoted ones are case-insensitive (upper-cased)."""
    return _unquote(token) if token[0] in '"`' else token.upper()


def _unquote(token: Token) -> str:
    """The name as written, without delimiting quotes ("" and `` stand for one quote)."""
    quote = token[0]
    if quote in '"`':
        return token[1:-1].replace(quote * 2, quote)
    return str(token)


def _expr(token: Token) -> ast.SqlExpr:
    return ast.SqlExpr(str(token), token.start_pos)


class _Quantifier(NamedTuple):
    min: int
    max: int | None
    greedy: bool
    pos: int


class _ToAst(Transformer_NonRecursive):
    """Turns Lark's tree into :mod:`matchrec.ast` nodes. Clause rules return dicts of
    :class:`~matchrec.ast.MatchRecognizeClause` fields; the body merges them."""

    def __init__(self, sql: str) -> None:
        super().__init__(visit_tokens=False)
        self.sql = sql

    # ---------------------------------------------------------------- clauses

    def match_recognize_body(self, children: list[dict]) -> ast.MatchRecognizeClause:
        fields: dict = {}
        for clause in children:
            fields.update(clause)
        return ast.MatchRecognizeClause(**fields, sql=self.sql)

    def partition_by(self, children: list[Token]) -> dict:
        return {"partition_by": tuple(_expr(t) for t in children)}

    def order_by(self, children: list[ast.SortKey]) -> dict:
        return {"order_by": tuple(children)}

    def sort_key(self, children: list) -> ast.SortKey:
        expression, descending, nulls_first = children
        return ast.SortKey(_expr(expression), bool(descending), nulls_first)

    def ascending(self, _: list) -> bool:
        return False

    def descending(self, _: list) -> bool:
        return True

    def nulls_first(self, _: list) -> bool:
        return True

    def nulls_last(self, _: list) -> bool:
        return False

    def measures(self, children: list[ast.Measure]) -> dict:
        return {"measures": tuple(children)}

    def measure(self, children: list[Token]) -> ast.Measure:
        expression, alias = children
        return ast.Measure(_expr(expression), _unquote(alias), alias.start_pos)

    def one_row_per_match(self, _: list) -> dict:
        return {"rows_per_match": ast.RowsPerMatch("one")}

    def all_rows_per_match(self, children: list) -> dict:
        (empty,) = children
        return {"rows_per_match": ast.RowsPerMatch("all", empty or "show")}

    def show_empty_matches(self, _: list) -> str:
        return "show"

    def omit_empty_matches(self, _: list) -> str:
        return "omit"

    def with_unmatched_rows(self, _: list) -> str:
        return "unmatched"

    @v_args(meta=True)
    def after_match_skip(self, meta, children: list[ast.SkipTo]) -> dict:
        (skip,) = children
        if skip.label is None:  # no label to point at: point at AFTER
            skip = replace(skip, pos=meta.start_pos)
        return {"after_match_skip": skip}

    def skip_past_last_row(self, _: list) -> ast.SkipTo:
        return ast.SkipTo("past_last")

    def skip_to_next_row(self, _: list) -> ast.SkipTo:
        return ast.SkipTo("next_row")

    def skip_to_first(self, children: list[Token]) -> ast.SkipTo:
        (label,) = children
        return ast.SkipTo("first", _canonical(label), label.start_pos)

    def skip_to_last(self, children: list[Token]) -> ast.SkipTo:
        (label,) = children
        return ast.SkipTo("last", _canonical(label), label.start_pos)

    def initial(self, _: list) -> dict:
        return {"initial": True}

    def seek(self, _: list) -> dict:
        return {"initial": False}

    @v_args(meta=True)
    def pattern_clause(self, meta, children: list) -> dict:
        pattern, within = children
        return {"pattern": pattern, "pattern_pos": meta.start_pos, "within": within}

    @v_args(meta=True)
    def row_pattern(self, meta, children: list) -> ast.PatternNode:
        (pattern,) = children
        return pattern if pattern is not None else ast.Empty(meta.start_pos)

    @v_args(meta=True)
    def within(self, meta, children: list) -> ast.Within:
        amount, unit = children
        value = _unquote_string(amount).strip() if amount.type == "STRING" else str(amount)
        if not (value.isascii() and value.isdigit()):
            raise SqlSyntaxError(
                f"the WITHIN interval must be a whole number, not {amount}",
                sql=self.sql,
                pos=amount.start_pos,
                hint="write e.g. WITHIN INTERVAL '10' SECOND",
            )
        return ast.Within(value, unit, meta.start_pos)

    def time_unit(self, children: list[Token]) -> str:
        unit = children[0].upper()
        return unit[:-1] if unit.endswith("S") else unit

    def subset_clause(self, children: list[ast.Subset]) -> dict:
        return {"subsets": tuple(children)}

    def subset_item(self, children: list[Token]) -> ast.Subset:
        name, *labels = children
        return ast.Subset(
            _canonical(name),
            tuple(_canonical(t) for t in labels),
            name.start_pos,
            tuple(t.start_pos for t in labels),
        )

    def define_clause(self, children: list[ast.Define]) -> dict:
        return {"defines": tuple(children)}

    def definition(self, children: list[Token]) -> ast.Define:
        label, expression = children
        return ast.Define(_canonical(label), _expr(expression), label.start_pos)

    # ---------------------------------------------------------------- pattern

    @v_args(meta=True)
    def alternation(self, meta, children: list) -> ast.Alternation:
        return ast.Alternation(tuple(children), meta.start_pos)

    @v_args(meta=True)
    def concatenation(self, meta, children: list) -> ast.Concat:
        return ast.Concat(tuple(children), meta.start_pos)

    def quantified(self, children: list) -> ast.Quantified:
        inner, quantifier = children
        return ast.Quantified(
            inner, quantifier.min, quantifier.max, quantifier.greedy, quantifier.pos
        )

    def label(self, children: list[Token]) -> ast.Label:
        (name,) = children
        return ast.Label(_canonical(name), name.start_pos)

    @v_args(meta=True)
    def start_anchor(self, meta, _: list) -> ast.Anchor:
        return ast.Anchor("start", meta.start_pos)

    @v_args(meta=True)
    def end_anchor(self, meta, _: list) -> ast.Anchor:
        return ast.Anchor("end", meta.start_pos)

    @v_args(meta=True)
    def empty(self, meta, _: list) -> ast.Empty:
        return ast.Empty(meta.start_pos)

    @v_args(meta=True)
    def exclusion(self, meta, children: list) -> ast.Exclusion:
        (inner,) = children
        return ast.Exclusion(inner, meta.start_pos)

    @v_args(meta=True)
    def permute(self, meta, children: list) -> ast.Permute:
        return ast.Permute(tuple(children), meta.start_pos)

    @v_args(meta=True)
    def quantifier(self, meta, children: list) -> _Quantifier:
        (low, high), reluctant = children
        if high is not None and low > high:
            text = self.sql[meta.start_pos : meta.end_pos]
            raise SqlSyntaxError(
                f"quantifier {text} has a minimum ({low}) greater than its maximum ({high})",
                sql=self.sql,
                pos=meta.start_pos,
                hint=f"write {{{high},{low}}}{'' if reluctant is None else '?'}",
            )
        return _Quantifier(low, high, reluctant is None, meta.start_pos)

    def reluctant(self, _: list) -> bool:
        return True

    def zero_or_more(self, _: list) -> tuple[int, None]:
        return (0, None)

    def one_or_more(self, _: list) -> tuple[int, None]:
        return (1, None)

    def zero_or_one(self, _: list) -> tuple[int, int]:
        return (0, 1)

    def exactly(self, children: list[Token]) -> tuple[int, int]:
        count = self._bound(children[0])
        return (count, count)

    def between(self, children: list) -> tuple[int, int | None]:
        low, high = children
        return (
            self._bound(low) if low is not None else 0,
            self._bound(high) if high is not None else None,
        )

    def _bound(self, token: Token) -> int:
        if len(token.lstrip("0")) > len(str(MAX_BOUND)) or int(token) > MAX_BOUND:
            raise SqlSyntaxError(
                f"quantifier bound {token} is too large",
                sql=self.sql,
                pos=token.start_pos,
                hint=f"bounds go up to {MAX_BOUND}",
            )
        return int(token)


def _unquote_string(token: Token) -> str:
    """The value of a '...' literal (enough for the digits of an interval)."""
    body = token[2:-1] if token[0] in "rR" else token[1:-1]
    return body.replace("''", "'")
