"""Parse the body of a MATCH_RECOGNIZE clause into :mod:`matchrec.ast` nodes.

``match_recognize.lark`` (next to this file) is the reference of the syntax. Lark's
LALR(1) parser runs it, but tokens come from :mod:`~matchrec.grammar.scanner` rather than
from a Lark lexer, for two reasons the grammar file explains:

* an ``EXPR`` token is a whole Spark SQL expression. Where it ends depends on what the
  grammar allows next (``AS`` in MEASURES, ``ASC`` in ORDER BY, ...), so
  :mod:`~matchrec.grammar.expressions` asks the parser which terminals may follow and
  stops there, at paren depth 0;
* keywords are not reserved: a word is a keyword only where the grammar accepts that
  keyword, so ``LAST`` can name a pattern variable.

Both need the parser's state while tokens are produced, so :class:`ClauseParser` drives
a Lark interactive parser token by token. Before it feeds a token it checks, on a copy of
the LALR state stack (:mod:`~matchrec.grammar.lalr`), that the token will be shifted; a
token that will not is reported as a :class:`~matchrec.errors.SqlSyntaxError` with its
position and the exact set of tokens that would have been accepted (plus a suggestion
from :mod:`~matchrec.grammar.hints`). No Lark exception reaches the caller. The tree is
turned into AST nodes by :mod:`~matchrec.grammar.to_ast`.

Positions in the AST and in errors are offsets into the whole SQL text the body was cut
from, so carets land in the user's query.
"""

from __future__ import annotations

from lark import Token, Tree
from matchrec.grammar.expressions import scan_expression
from matchrec.grammar.hints import hint
from matchrec.grammar.lalr import DYNAMIC_RULE, START_RULE, load_grammar
from matchrec.grammar.query_scan import tokenize, unclosed
from matchrec.grammar.scanner import Raw, Scanner, Source, describe
from matchrec.grammar.to_ast import to_ast

from matchrec import ast
from matchrec.errors import SqlSyntaxError

__all__ = ["parse_clause", "parse_dynamic"]

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
    source = Source(text, sql, base)
    try:
        tree = ClauseParser(source).parse()
    except SqlSyntaxError as err:
        if not err.message.startswith("unexpected"):
            raise
        raise _unclosed_error(text, base, sql) or err from None
    return to_ast(tree, sql)


def parse_dynamic(text: str, base: int = 0, sql: str | None = None) -> ast.DynamicClause:
    """Parse the body of a MATCH_RECOGNIZE_DYNAMIC clause (``RULES FROM t [KEYS ...]
    [ON ERROR ...]``); positions as in :func:`parse_clause`."""
    if sql is None:
        sql = text
    source = Source(text, sql, base)
    try:
        tree = ClauseParser(source, DYNAMIC_RULE).parse()
    except SqlSyntaxError as err:
        if not err.message.startswith("unexpected"):
            raise
        raise _unclosed_error(text, base, sql) or err from None
    return to_ast(tree, sql)


def _unclosed_error(text: str, base: int, sql: str) -> SqlSyntaxError | None:
    """A '(' never closed explains any later syntax error better (the parser only notices
    where the text stops making sense, often clauses later): an error at the innermost one."""
    try:
        tokens = tokenize(text)
    except SqlSyntaxError:  # an unterminated string or comment: the parser's error stands
        return None
    opened = unclosed(tokens)
    if not opened:
        return None
    return SqlSyntaxError(
        "'(' is never closed",
        sql=sql,
        pos=base + tokens[opened[-1]].start,
        hint="add the missing ')'",
    )


class ClauseParser:
    """Feeds scanner tokens to Lark's LALR parser, deciding what each token is from the
    parser's state; reports any token the parser cannot take as a SqlSyntaxError."""

    def __init__(self, source: Source, start: str = START_RULE) -> None:
        self.source = source
        self.scanner = Scanner(source)
        self.grammar = load_grammar(start)
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
            if not self.grammar.accepts(self.stack, token.type):
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

    # ---------------------------------------------------------------- tokens

    def _next_token(self) -> Token:
        raw = self.scanner.at(self.offset)
        if raw.kind != "end" and self.grammar.accepts(self.stack, "EXPR"):
            expression = scan_expression(self.scanner, self.grammar, self.stack, raw)
            if expression.clause_stop is not None:
                self.clause_stop = expression.clause_stop
            if not expression.empty:
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

    def _classify(self, raw: Raw, stack: list, lookahead: int = 2) -> str:
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
        names = [t for t in ("LABEL", "ALIAS") if self.grammar.accepts(stack, t)]
        if raw.kind != "word":
            return names[0] if names else "LABEL"
        keyword = self.grammar.keywords.get(raw.text.upper())
        if keyword is not None and raw.start == self.clause_stop:
            return keyword  # an expression ended here because a clause starts here
        if keyword is not None and self.grammar.accepts(stack, keyword):
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
        after = self.grammar.advance(stack, terminal)
        if after is None:
            return False
        if depth == 0 or self.grammar.accepts(after, "EXPR"):
            return True
        raw = self.scanner.at(offset)
        kinds = {self._classify(raw, after, lookahead=0)}
        if raw.kind == "word":
            keyword = self.grammar.keywords.get(raw.text.upper())
            kinds |= {keyword, "LABEL", "ALIAS"} - {None}
        return any(self._fits(after, kind, raw.end, depth - 1) for kind in kinds)

    # ----------------------------------------------------------------- errors

    def _unexpected(self, token: Token) -> SqlSyntaxError:
        expected = self.grammar.expected(self.stack)
        offset = token.start_pos - self.source.base
        # EXPR tokens are only made where accepted, so this is a single scanner token
        raw = self.scanner.at(offset) if token.type != "$END" else Raw("end", "", offset, offset)
        if raw.text == ")" and self.nesting == 0:  # nothing open: no grammar rule explains it
            return self.source.error(
                "')' without a matching '('",
                offset,
                hint="remove this ')' or add the '(' it should close",
            )
        message = f"unexpected {describe(raw)}; expected {self.grammar.phrase(expected)}"
        suggestion = hint(self.grammar, raw, token.type, expected, self.fed)
        return self.source.error(message, offset, hint=suggestion)
