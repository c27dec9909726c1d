"""Find ``<relation> MATCH_RECOGNIZE ( ... ) [AS alias]`` inside a whole Spark SQL query.

Spark's parser does not know MATCH_RECOGNIZE, so the surrounding query stays Spark's
business: this scanner only locates each clause, its input relation (a table name or a
parenthesised subquery) and its alias, respecting strings, quoted names and comments.
The clause body itself is parsed by the grammar (``parse_clause``).
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass

from matchrec.errors import MatchRecognizeError, SemanticError, SqlSyntaxError

from .scanner import comment_end

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# words that may follow a FROM item and so are not an alias
_NOT_ALIAS = {
    "WHERE",
    "GROUP",
    "ORDER",
    "HAVING",
    "LIMIT",
    "UNION",
    "EXCEPT",
    "INTERSECT",
    "JOIN",
    "INNER",
    "LEFT",
    "RIGHT",
    "FULL",
    "CROSS",
    "NATURAL",
    "ON",
    "USING",
    "WINDOW",
    "QUALIFY",
    "CLUSTER",
    "DISTRIBUTE",
    "SORT",
    "LATERAL",
    "OFFSET",
    "MINUS",
    "SEMI",
    "ANTI",
    "PIVOT",
    "UNPIVOT",
    "TABLESAMPLE",
    "REPEATABLE",
    "FOR",
    "MATCH_RECOGNIZE",
    "MATCH_RECOGNIZE_DYNAMIC",
}
_KEYWORDS = {"MATCH_RECOGNIZE", "MATCH_RECOGNIZE_DYNAMIC"}
#: what follows ``MATCH_`` in each keyword, for ``MATCH RECOGNIZE`` written as two words
_SECOND_WORDS = sorted(k.removeprefix("MATCH_") for k in _KEYWORDS)


@dataclass(frozen=True)
class Token:
    kind: str  # word | quoted | string | punct
    text: str
    start: int
    end: int


@dataclass(frozen=True)
class Occurrence:
    """One MATCH_RECOGNIZE in a query; offsets into the query text."""

    relation_start: int
    relation_end: int
    keyword: int
    body_start: int  # first character after "("
    body_end: int  # the closing ")"
    alias: str | None
    dynamic: bool = False  # MATCH_RECOGNIZE_DYNAMIC (rules from a table)
    #: the input relation has its own alias (``t``, ``AS t``, ``t(id, value)``)
    relation_aliased: bool = False
    #: the name that may qualify the input's columns in PARTITION BY and ORDER BY
    #: (``Ticker.x``): the relation's alias, or a table's own name; None when unnamed
    relation_name: str | None = None


def tokenize(sql: str) -> list[Token]:
    """Words, quoted names, string literals and punctuation; comments and spaces dropped.

    A query is scanned by several passes (nesting, windows, CTEs, statements), each of
    which tokenizes it: the tokens of the last texts are kept, and each caller gets its
    own list of them."""
    return list(_tokens(sql))


@functools.lru_cache(maxsize=32)
def _tokens(sql: str) -> tuple[Token, ...]:
    tokens: list[Token] = []
    i, n = 0, len(sql)
    while i < n:
        c = sql[i]
        if c.isspace():
            i += 1
        elif sql.startswith("--", i):
            j = sql.find("\n", i)
            i = n if j < 0 else j
        elif sql.startswith("/*", i):
            end = comment_end(sql, i)
            if end is None:
                raise SqlSyntaxError(
                    "unterminated comment", sql=sql, pos=i, hint="close it with */"
                )
            i = end
        elif c in "'\"`":
            j = i + 1
            while j < n and sql[j] != c:
                j += 2 if (sql[j] == "\\" and c != "`") else 1
            if j >= n:
                what = "string" if c == "'" else "quoted name"
                raise SqlSyntaxError(
                    f"unterminated {what}", sql=sql, pos=i, hint=f"close it with {c}"
                )
            kind = "string" if c == "'" else "quoted"
            tokens.append(Token(kind, sql[i : j + 1], i, j + 1))
            i = j + 1
        else:
            m = _WORD.match(sql, i)
            if m:
                tokens.append(Token("word", m.group(), i, m.end()))
                i = m.end()
            else:
                tokens.append(Token("punct", c, i, i + 1))
                i += 1
    return tuple(tokens)


def _is(token: Token, text: str) -> bool:
    return token.kind == "punct" and token.text == text


def _matching(tokens: list[Token], i: int, sql: str, keyword: str | None = None) -> int:
    """Index of the token closing the parenthesis opened at ``tokens[i]``.

    When none does, a ``(`` inside the clause is the likely culprit: the last ``)`` that
    returns to the clause's own depth is taken as the clause's end and the body is parsed
    up to it, so that the error points at the ``(`` that is never closed (a ``)`` on a
    line of its own reads as the clause's). When every ``(`` inside is closed and
    ``tokens[i]`` opens the body of clause ``keyword``, the clause's own ``)`` is
    missing: see :func:`_raise_unclosed_clause`."""
    depth = 0
    last_inner = None  # the last ``)`` that brings the depth back to 1
    for j in range(i, len(tokens)):
        if _is(tokens[j], "("):
            depth += 1
        elif _is(tokens[j], ")"):
            depth -= 1
            if depth == 0:
                return j
            if depth == 1:
                last_inner = j
    if last_inner is not None:
        from matchrec.grammar.parser import parse_clause  # the clause's own parser

        start = tokens[i].end
        closing = tokens[last_inner]
        own_line = not sql[sql.rfind("\n", 0, closing.start) + 1 : closing.start].strip()
        if keyword is not None and unclosed(tokens[i:]) == [0] and not own_line:
            _raise_unclosed_clause(tokens, i, last_inner, sql, keyword)
        parse_clause(sql[start : tokens[last_inner].start], base=start, sql=sql)
    raise _unbalanced(sql, tokens[i].start, stray=False)


#: tokens of the query after a clause that lacks its ``)``, tried as the clause's end
_TAIL_TRIES = 64


def _raise_unclosed_clause(
    tokens: list[Token], i: int, last_inner: int, sql: str, keyword: str
) -> None:
    """Raise at the end of the longest body that reads as a clause (``... DEFINE B AS
    price < 10`` before ``AS m``) when the ``(`` at ``tokens[i]`` is the clause's and only
    its ``)`` is missing: the user left out the clause's last ``)``, not one inside."""
    from matchrec.grammar.parser import parse_clause

    start = tokens[i].end
    for k in range(len(tokens) - 1, max(last_inner - 1, len(tokens) - _TAIL_TRIES), -1):
        try:
            clause = parse_clause(sql[start : tokens[k].end], base=start, sql=sql)
        except MatchRecognizeError:
            continue
        if not all(_one_expression(d.expr.text) for d in clause.defines):
            continue  # ``price < 10 AS m``: the query's alias read into the condition
        raise SqlSyntaxError(
            f"unbalanced parenthesis: the '(' of {keyword} is never closed",
            sql=sql,
            pos=tokens[k].end,
            hint=f"add the ')' that ends the {keyword} clause here",
        )


def _one_expression(text: str) -> bool:
    """Whether ``text`` is one Spark SQL expression without an alias (what a condition
    of DEFINE is), as far as sqlglot reads it."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    if re.search(r"\bAS\s*$", text, re.IGNORECASE):
        return False  # sqlglot drops a trailing AS
    try:
        return not isinstance(sqlglot.parse_one(text, read="spark"), exp.Alias)
    except SqlglotError:
        return False


def _first_stray(tokens: list[Token]) -> int | None:
    """Index of the first ``)`` in ``tokens`` that no earlier ``(`` of them opens."""
    depth = 0
    for j, tok in enumerate(tokens):
        depth += _is(tok, "(") - _is(tok, ")")
        if depth < 0:
            return j
    return None


def unclosed(tokens: list[Token]) -> list[int]:
    """Indexes of the ``(`` in ``tokens`` that no later ``)`` of them closes."""
    opened: list[int] = []
    for j, tok in enumerate(tokens):
        if _is(tok, "("):
            opened.append(j)
        elif _is(tok, ")") and opened:
            opened.pop()
    return opened


# words after which a stray ``)`` belongs to the query around the clause, not the clause
_QUERY_WORDS = {"SELECT", "FROM", "WHERE", "GROUP", "HAVING", "JOIN", "ON", "UNION", "LIMIT"}


def _without_paren(tokens: list[Token], k: int, sql: str) -> SqlSyntaxError | None:
    """The error for the keyword at ``tokens[k]`` when a clause body follows it without
    its ``(`` (``MATCH_RECOGNIZE PARTITION BY``, or ``MATCH_RECOGNIZE stock (`` with a
    name between); None when it has its ``(`` or is a name."""
    if k + 1 < len(tokens) and tokens[k + 1].text == "(":
        return None
    stray = next((j for j in (k + 2, k + 3) if _opens_clause_body(tokens, j)), None)
    if not _starts_clause_body(tokens, k + 1) and stray is None:
        return None
    keyword = tokens[k].text.upper()
    return SqlSyntaxError(
        f"{keyword} must be followed by (",
        sql=sql,
        pos=tokens[k].end if stray is None else tokens[k + 1].start,
        hint=f"write <table> {keyword} ( ... ) AS alias: the input before "
        f"{keyword}, the alias after its closing )",
    )


def _check_balance(tokens: list[Token], sql: str, found: list[tuple[int, int]]) -> None:
    """Report a ``)`` without its ``(`` (or a ``(`` never closed) in the query around the
    clauses, with the user's own line numbers rather than Spark's message about the
    rewritten query. ``found`` holds the token indexes of each clause's ``(`` and ``)``.

    A stray ``)`` right after a clause (``PREV(price))`` then ``) AS m``) is the clause
    closing early: the caret goes to the ``)`` that ended it."""
    j = _first_stray(tokens)
    if j is not None:
        culprit = j
        for _, close in found:
            between = tokens[close + 1 : j]
            aliased = bool(between) and (between[0].text.upper() == "AS" or len(between) == 1)
            if close < j and not aliased and _clause_text(between):
                culprit = close
        raise _unbalanced(sql, tokens[culprit].start, stray=True)
    opened = unclosed(tokens)
    if opened:
        raise _unbalanced(sql, tokens[opened[-1]].start, stray=False)


def refuse_unbalanced(tokens: list[Token], sql: str) -> None:
    """Raise at the unbalanced parenthesis of ``sql`` (its ``tokens``), if any: where the
    layout places it (:func:`_layout_culprit`), else where counting does. Spark would
    report it in the query matchrec rewrote, at a place the user never wrote."""
    if _first_stray(tokens) is None and not unclosed(tokens):
        return
    error = _layout_culprit(tokens, sql)
    if error is not None:
        raise error
    _check_balance(tokens, sql, [])


def _unbalanced(sql: str, pos: int, stray: bool) -> SqlSyntaxError:
    """The error for a ``)`` without its ``(`` (``stray``), or a ``(`` never closed, at
    ``pos``."""
    if stray:
        return SqlSyntaxError(
            "unbalanced parenthesis: ')' without a matching '('",
            sql=sql,
            pos=pos,
            hint="remove this ')' or add the '(' it should close",
        )
    return SqlSyntaxError(
        "unbalanced parenthesis: '(' is never closed", sql=sql, pos=pos, hint="add the missing )"
    )


def _layout_culprit(tokens: list[Token], sql: str) -> SqlSyntaxError | None:
    """The unbalanced parenthesis as the query's layout tells it, or None.

    A ``)`` that starts a line closes the ``(`` ending the nearest line above with the
    same indentation (``MATCH_RECOGNIZE (`` ... ``) AS m``, ``WITH r AS (`` ... ``)``):
    that is how a reader pairs them, whatever the count says. The smallest such pair
    whose inside does not balance holds the mistake: its first ``)`` without a ``(``, or
    else its innermost ``(`` never closed. Counting alone blames the outermost ``)`` or
    ``(``, lines away from a ``lastB.ts)`` or a doubled ``PATTERN ( (``."""
    opened: list[tuple[int, str]] = []  # a ``(`` that ends its line, and that line's indent
    pairs: list[tuple[int, int]] = []
    for j, tok in enumerate(tokens):
        if _is(tok, "(") and (j + 1 == len(tokens) or "\n" in sql[tok.end : tokens[j + 1].start]):
            opened.append((j, _indent(sql, tok.start)))
        elif _is(tok, ")") and not sql[_line_start(sql, tok.start) : tok.start].strip():
            indent = sql[_line_start(sql, tok.start) : tok.start]
            same = [k for k, (_, ind) in enumerate(opened) if ind == indent]
            if same:
                pairs.append((opened[same[-1]][0], j))
                del opened[same[-1] :]
    for start, end in sorted(pairs, key=lambda pair: pair[1] - pair[0]):
        inside = tokens[start + 1 : end]
        stray = _first_stray(inside)
        if stray is not None:
            return _unbalanced(sql, inside[stray].start, stray=True)
        never_closed = unclosed(inside)
        if never_closed:
            return _unbalanced(sql, inside[never_closed[-1]].start, stray=False)
    return None


def _line_start(sql: str, pos: int) -> int:
    return sql.rfind("\n", 0, pos) + 1


def _indent(sql: str, pos: int) -> str:
    """The spaces and tabs that start the line holding ``pos``."""
    line = sql[_line_start(sql, pos) : pos]
    return line[: len(line) - len(line.lstrip(" \t"))]


def in_lateral(sql: str, pos: int) -> bool:
    """Whether offset ``pos`` of ``sql`` lies inside a ``LATERAL ( ... )`` subquery."""
    opened: list[int] = []
    tokens = tokenize(sql)
    for j, tok in enumerate(tokens):
        if tok.start >= pos:
            break
        if _is(tok, "("):
            opened.append(j)
        elif _is(tok, ")") and opened:
            opened.pop()
    return any(j > 0 and _word(tokens[j - 1], "LATERAL") for j in opened)


def _clause_text(tokens: list[Token]) -> bool:
    """Whether ``tokens`` (between a clause's ``)`` and a stray one) read as more of the
    clause (``DEFINE B AS PREV(x) > 0``): parentheses balanced within, no word of the
    query around it outside them."""
    depth = 0
    for t in tokens:
        depth += _is(t, "(") - _is(t, ")")
        if depth < 0 or (depth == 0 and t.kind == "word" and t.text.upper() in _QUERY_WORDS):
            return False
    return depth == 0


def _opening(tokens: list[Token], j: int) -> int:
    """Index of the token opening the parenthesis closed at ``tokens[j]``."""
    depth = 0
    for i in range(j, -1, -1):
        t = tokens[i]
        if t.kind == "punct" and t.text == ")":
            depth += 1
        elif t.kind == "punct" and t.text == "(":
            depth -= 1
            if depth == 0:
                return i
    return 0


#: words before which a relation starts (so a word after them is no alias)
_RELATION_OPENERS = {"FROM", "JOIN", "LATERAL", "VALUES", "AS", "ON", "USING", "SELECT"}


def _word(token: Token, text: str) -> bool:
    return token.kind == "word" and token.text.upper() == text


def _names_relation(token: Token) -> bool:
    """Whether ``token`` can end a relation before an alias (a name or a parenthesis)."""
    if token.kind == "quoted":
        return True
    if token.kind == "word":
        return token.text.upper() not in _RELATION_OPENERS | _NOT_ALIAS
    return token.text == ")"


def _is_alias(tokens: list[Token], j: int) -> bool:
    """Whether the word at ``j`` is a relation's alias: after AS, or right after a
    name or a parenthesised relation (``tbl t``, ``(VALUES ...) t``)."""
    t = tokens[j]
    if t.kind not in ("word", "quoted") or j == 0:
        return False
    if t.kind == "word" and t.text.upper() in _RELATION_OPENERS | _NOT_ALIAS:
        return False
    before = tokens[j - 1]
    return _word(before, "AS") or _names_relation(before)


def _primary_start(tokens: list[Token], end: int) -> int:
    """Index of the first token of the relation that ends at ``tokens[end]``: a dotted
    name, a parenthesised subquery, a function call (``range(10)``), or Spark's inline
    ``VALUES (..), (..)``."""
    if _is(tokens[end], ")"):
        i = _opening(tokens, end)
        # VALUES (1, 2), (3, 4): back over the groups to VALUES
        j = i
        while j >= 2 and _is(tokens[j - 1], ",") and _is(tokens[j - 2], ")"):
            j = _opening(tokens, j - 2)
        if j >= 1 and _word(tokens[j - 1], "VALUES"):
            return j - 1
        if i >= 1 and tokens[i - 1].kind in ("word", "quoted") and _names_relation(tokens[i - 1]):
            i -= 1  # a table-valued function's name
        else:
            return i
        end = i
    j = end
    while j >= 2 and tokens[j - 1].text == "." and tokens[j - 2].kind in ("word", "quoted"):
        j -= 2
    return j


def _relation(tokens: list[Token], k: int) -> tuple[int, bool, str | None] | None:
    """The first token of the relation before MATCH_RECOGNIZE at ``k``, whether it has
    an alias of its own (``t``, ``AS t``, ``t(id, value)``: Trino and the standard allow
    one), and the name that qualifies its columns (that alias, or a table's own name; None
    for an unnamed subquery); None if no relation is there."""
    end = k - 1
    prev = tokens[end]
    aliased = False
    if _is(prev, ")"):
        o = _opening(tokens, end)
        if o >= 2 and _is_alias(tokens, o - 1) and not _is(tokens[o - 2], ","):
            end, aliased = o - 1, True  # t(id, value)
    elif prev.kind in ("word", "quoted") and end >= 1 and _is_alias(tokens, end):
        aliased = True
    elif not (prev.kind in ("word", "quoted") and prev.text.upper() not in ("FROM", "JOIN", ",")):
        return None
    if aliased:
        name = _name_text(tokens[end])
        end -= 1
        if _word(tokens[end], "AS"):
            end -= 1
    end = _before_sample(tokens, end)
    if end < 0 or not _names_relation(tokens[end]):
        return None
    if not aliased:
        name = _name_text(tokens[end]) if tokens[end].kind in ("word", "quoted") else None
    return _primary_start(tokens, end), aliased, name


def _refuse_chained(tokens: list[Token], k: int, sql: str) -> None:
    """A clause right after another's result (``t MATCH_RECOGNIZE (...) [AS m]
    MATCH_RECOGNIZE (...)``) is no table primary in the standard (nor in Trino): say how
    to write it, a subquery, instead of reading the first keyword as an alias."""
    j = k - 1
    if tokens[j].kind in ("word", "quoted") and tokens[j].text.upper() not in _NOT_ALIAS:
        j -= 1  # the first clause's alias
        if j >= 0 and _word(tokens[j], "AS"):
            j -= 1
    if j < 1 or not _is(tokens[j], ")"):
        return
    o = _opening(tokens, j)
    if o >= 1 and tokens[o - 1].kind == "word" and tokens[o - 1].text.upper() in _KEYWORDS:
        keyword = tokens[k].text.upper()
        raise SqlSyntaxError(
            f"{keyword} cannot follow another row pattern clause directly",
            sql=sql,
            pos=tokens[k].start,
            hint=f"match the first clause's rows in a subquery: FROM (SELECT * FROM t "
            f"{tokens[o - 1].text.upper()} (...)) AS m {keyword} (...)",
        )


def _before_sample(tokens: list[Token], end: int) -> int:
    """The last token of the relation before its ``TABLESAMPLE (...) [REPEATABLE (n)]``
    ending at ``tokens[end]``; ``end`` itself when it has none."""
    for word in ("REPEATABLE", "TABLESAMPLE"):
        if end >= 2 and _is(tokens[end], ")"):
            o = _opening(tokens, end)
            if o >= 2 and _word(tokens[o - 1], word):
                end = o - 2
    return end


def _name_text(token: Token) -> str:
    """The name a word or a quoted name token stands for (backquotes removed)."""
    if token.kind == "quoted" and len(token.text) >= 2:
        return token.text[1:-1].replace(token.text[0] * 2, token.text[0])
    return token.text


def _calls_table_function(tokens: list[Token], k: int) -> bool:
    """Whether the MATCH_RECOGNIZE word at ``k`` calls the SQL table function
    (``match_recognize(TABLE(t), '<body>')``, ``TABLE t``, named arguments ``table =>
    TABLE(t), body => '...'``; ``matchrec.register``): a clause body never starts with
    ``TABLE`` and a name, nor with ``name =>``, nor with a string."""
    after = tokens[k + 2 : k + 5]
    if not after:
        return False
    first = after[0]
    if first.kind == "string":
        return True
    if len(after) == 3 and _is(after[1], "=") and _is(after[2], ">"):
        return first.kind in ("word", "quoted")
    if len(after) >= 2 and first.kind == "word" and first.text.upper() == "TABLE":
        return _is(after[1], "(") or after[1].kind in ("word", "quoted")
    return False


@dataclass(frozen=True)
class TableFunctionCall:
    """A call of the SQL table function in a query; offsets into the query text."""

    start: int  # the function's name
    table: str  # its input as a relation: a name, or a query in parentheses
    body: str  # the clause body's string literal(s) as written, quotes included
    body_start: int


def table_function_calls(sql: str, names: Collection[str]) -> list[TableFunctionCall]:
    """The calls ``name(TABLE(t), '<body>')`` of the table function registered under
    one of ``names`` (lower case) in ``sql``, positional or named (``table =>``, ``body
    =>``), whose input and body are written as such; a call written otherwise is left
    out (Spark says what is wrong with it)."""
    tokens = tokenize(sql)
    calls = []
    for k, tok in enumerate(tokens[:-1]):
        if tok.kind != "word" or tok.text.lower() not in names or not _is(tokens[k + 1], "("):
            continue
        if k and _is(tokens[k - 1], "."):
            continue  # a qualified name: another catalog's function
        close = _closing(tokens, k + 1)
        if close is None:
            continue
        found = _call_arguments(tokens[k + 2 : close], sql)
        if found is not None:
            table, body = found
            calls.append(TableFunctionCall(tok.start, table, sql[body[0] : body[1]], body[0]))
    return calls


#: Spark's escapes in a string literal (``unescapeSQLString``); ``\%`` and ``\_`` keep
#: their backslash (LIKE's), any other escaped character is itself
_ESCAPES = {"0": "\0", "b": "\b", "n": "\n", "r": "\r", "t": "\t", "Z": "\x1a"}
_ESCAPES |= {"%": "\\%", "_": "\\_"}


def string_value(literals: str, escaped: bool = False) -> str:
    """The text Spark reads from the string literal(s) ``literals`` as written (adjacent
    ones joined; ``''`` a quote; backslash escapes unless ``escaped``, Spark's
    ``spark.sql.parser.escapedStringLiterals``)."""
    parts = []
    end = None
    for token in tokenize(literals):
        if token.start == end:  # 'a''b': the tokens of one literal around a doubled quote
            parts.append("'")
        end = token.end
        inner = token.text[1:-1]
        if escaped:
            parts.append(inner)
            continue
        out, i = [], 0
        while i < len(inner):
            c = inner[i]
            if c == "\\" and i + 1 < len(inner):
                nxt = inner[i + 1]
                if nxt == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", inner[i + 2 : i + 6]):
                    out.append(chr(int(inner[i + 2 : i + 6], 16)))
                    i += 6
                    continue
                out.append(_ESCAPES.get(nxt, nxt))
                i += 2
            else:
                out.append(c)
                i += 1
        parts.append("".join(out))
    return "".join(parts)


def _closing(tokens: list[Token], i: int) -> int | None:
    """The index of the ``)`` closing the ``(`` at ``i``; None when there is none."""
    depth = 0
    for j in range(i, len(tokens)):
        depth += _is(tokens[j], "(") - _is(tokens[j], ")")
        if depth == 0:
            return j
    return None


def _call_arguments(tokens: list[Token], sql: str) -> tuple[str, tuple[int, int]] | None:
    """The input (as a relation) and the body's span of a table function call's
    argument ``tokens``; None where they are not a TABLE argument and string literals."""
    args: list[list[Token]] = [[]]
    depth = 0
    for t in tokens:
        depth += _is(t, "(") - _is(t, ")")
        if depth == 0 and _is(t, ","):
            args.append([])
        else:
            args[-1].append(t)
    named: dict[str, list[Token]] = {}
    for place, arg in enumerate(args):
        if len(arg) > 3 and _is(arg[1], "=") and _is(arg[2], ">"):
            named[arg[0].text.lower()] = arg[3:]
        elif arg:
            named[("table", "body")[place] if place < 2 else str(place)] = arg
    table, body = named.get("table"), named.get("body")
    if not table or not body or any(t.kind != "string" for t in body):
        return None
    if not (table[0].kind == "word" and table[0].text.upper() == "TABLE" and len(table) > 1):
        return None
    if _is(table[1], "("):
        end = _closing(table, 1)
        if end is None:
            return None
        inner = sql[table[1].end : table[end].start].strip()
        first = tokenize(inner)[:1]
        is_query = bool(first) and first[0].text.upper() in ("SELECT", "WITH", "VALUES", "FROM")
        relation = f"({inner})" if is_query else inner
    else:  # TABLE name, maybe qualified: db.t
        last = 1
        while last + 2 < len(table) and _is(table[last + 1], "."):
            last += 2
        relation = sql[table[1].start : table[last].end]
    return relation, (body[0].start, body[-1].end)


#: tokens that end a join condition, never a relation: what MATCH_RECOGNIZE would read
#: after ``a JOIN b ON a.k = b.k`` or ``USING (k)`` is part of the condition
_CONDITION_TOKENS = {"ON", "USING", "AND", "OR", "NOT", "=", "==", "<", ">", "<=", ">="}
_CONDITION_TOKENS |= {"<>", "!=", "<=>", "+", "-", "*", "/", "%", "||"}


def _refuse_join_condition(tokens: list[Token], start: int, keyword: str, sql: str) -> None:
    """A MATCH_RECOGNIZE right after a join's ON or USING condition is an error (the
    clause applies to one table or subquery, as in the standard and Trino), not a read
    of the condition's last name as a table."""
    if start >= 1 and tokens[start - 1].text.upper() in _CONDITION_TOKENS:
        word = tokens[start].text
        if word.upper() != "FROM" and difflib.get_close_matches(word.upper(), ["FROM"], 1, 0.7):
            raise SqlSyntaxError(  # ``SELECT * FORM t MATCH_RECOGNIZE``: FORM read as the table
                f"unknown word {word!r} before the input of {keyword}",
                sql=sql,
                pos=tokens[start].start,
                hint="did you mean FROM?",
            )
        raise SqlSyntaxError(
            f"{keyword} follows a join condition: it applies to one table or subquery, "
            "not to a join",
            sql=sql,
            pos=tokens[start].start,
            hint=f"join in a subquery first: FROM (SELECT ... FROM a JOIN b ON ...) {keyword} "
            f"( ... ), or to one side: JOIN (SELECT * FROM b {keyword} ( ... )) m ON ...",
        )


def _refuse_nesting(tokens: list[Token], k: int, spans: list[tuple[int, int]], sql: str) -> None:
    """A MATCH_RECOGNIZE at token ``k`` inside the body of an earlier one (in a subquery
    of its MEASURES or DEFINE) is an error, as the standard and Trino say."""
    if any(open_ < k < close for open_, close in spans):
        raise SemanticError(
            "nested row pattern recognition in row pattern recognition",
            sql=sql,
            pos=tokens[k].start,
            hint="run the inner MATCH_RECOGNIZE in a CTE or subquery of the FROM clause and "
            "join or compare with its result",
        )


#: words that open the body of a MATCH_RECOGNIZE: after the keyword without its ``(``
#: they are a clause missing it, not the keyword used as a name
_BODY_WORDS = {"PARTITION", "ORDER", "MEASURES", "ONE", "ALL", "AFTER", "PATTERN"}
_BODY_WORDS |= {"SUBSET", "DEFINE", "ROWS", "INITIAL", "SEEK"}


def _starts_clause_body(tokens: list[Token], k: int) -> bool:
    return k < len(tokens) and tokens[k].kind == "word" and tokens[k].text.upper() in _BODY_WORDS


def _opens_clause_body(tokens: list[Token], k: int) -> bool:
    """Whether token ``k`` is a ``(`` that a clause body's first word follows."""
    return k < len(tokens) and tokens[k].text == "(" and _starts_clause_body(tokens, k + 1)


def _refuse_misspelled_keyword(tokens: list[Token], k: int, sql: str) -> None:
    """A word close to MATCH_RECOGNIZE (``MATCH_RECOGNISE``, ``MATCHRECOGNIZE``), or two
    words that are it with a space for the underscore (``MATCH RECOGNIZE``), before a
    clause body is the keyword misspelled: Spark would say "syntax error at '('"."""
    word = tokens[k].text.upper()
    if _opens_clause_body(tokens, k + 1) and 12 <= len(word) <= 26:
        close = difflib.get_close_matches(word, sorted(_KEYWORDS), n=1, cutoff=0.85)
        if close:
            raise SqlSyntaxError(
                f"unknown word {tokens[k].text!r} before a row pattern clause",
                sql=sql,
                pos=tokens[k].start,
                hint=f"did you mean {close[0]}?",
            )
    after = tokens[k + 1] if k + 1 < len(tokens) else None
    if after is None or after.kind != "word" or not _opens_clause_body(tokens, k + 2):
        return
    if after.text.upper() in _KEYWORDS:  # ``FROM batch MATCH_RECOGNIZE (``: the keyword
        return
    rest = difflib.get_close_matches(after.text.upper(), _SECOND_WORDS, n=1, cutoff=0.8)
    if rest and difflib.get_close_matches(word, ["MATCH"], n=1, cutoff=0.75):
        raise SqlSyntaxError(
            f"unknown words {sql[tokens[k].start : after.end]!r} before a row pattern clause",
            sql=sql,
            pos=tokens[k].start,
            hint=f"did you mean MATCH_{rest[0]}? (one word)",
        )


def find_match_recognize(sql: str) -> list[Occurrence]:
    """Every MATCH_RECOGNIZE clause of ``sql``, in text order (inner ones first)."""
    tokens = tokenize(sql)
    named = any(t.kind == "word" and t.text.upper() in _KEYWORDS for t in tokens)
    if named and (_first_stray(tokens) is not None or unclosed(tokens)):
        # a keyword without its ``(`` unbalances the rest: said at the keyword first
        for k, tok in enumerate(tokens):
            if tok.kind == "word" and tok.text.upper() in _KEYWORDS:
                error = _without_paren(tokens, k, sql)
                if error is not None:
                    raise error
        error = _layout_culprit(tokens, sql)
        if error is not None:
            raise error
    found: list[Occurrence] = []
    spans: list[tuple[int, int]] = []  # token indexes of each clause's ( and )
    for k, tok in enumerate(tokens):
        if tok.kind != "word":
            continue
        if tok.text.upper() not in _KEYWORDS:
            _refuse_misspelled_keyword(tokens, k, sql)
            continue
        keyword = tok.text.upper()
        if k + 1 >= len(tokens) or tokens[k + 1].text != "(":
            error = _without_paren(tokens, k, sql)
            if error is None:
                continue  # ``SELECT 1 AS match_recognize``: a name, Spark's to read
            raise error
        if _calls_table_function(tokens, k):
            continue  # match_recognize(TABLE(t), '...'): the SQL table function, Spark's
        close = _matching(tokens, k + 1, sql, keyword)
        _refuse_nesting(tokens, k, spans, sql)
        spans.append((k + 1, close))
        if k == 0:
            raise SqlSyntaxError(
                f"{keyword} needs an input table before it", sql=sql, pos=tok.start
            )
        prev = tokens[k - 1]
        _refuse_chained(tokens, k, sql)
        found_relation = _relation(tokens, k)
        if found_relation is not None:
            _refuse_join_condition(tokens, found_relation[0], keyword, sql)
            rel_start, relation_aliased = tokens[found_relation[0]].start, found_relation[1]
            relation_name = found_relation[2]
        else:
            raise SqlSyntaxError(
                f"{keyword} needs an input table or subquery before it",
                sql=sql,
                pos=tok.start,
                hint=f"write FROM <table> {keyword} ( ... )",
            )
        alias = None
        a = close + 1
        if a < len(tokens) and tokens[a].kind == "word" and tokens[a].text.upper() == "AS":
            a += 1
        if (
            a < len(tokens)
            and tokens[a].kind in ("word", "quoted")
            and tokens[a].text.upper() not in _NOT_ALIAS
        ):
            alias = tokens[a].text
        found.append(
            Occurrence(
                relation_start=rel_start,
                relation_end=prev.end,
                keyword=tok.start,
                body_start=tokens[k + 1].end,
                body_end=tokens[close].start,
                alias=alias,
                dynamic=keyword == "MATCH_RECOGNIZE_DYNAMIC",
                relation_aliased=relation_aliased,
                relation_name=relation_name,
            )
        )
    if found:
        _check_balance(tokens, sql, spans)
    return found


@dataclass(frozen=True)
class CteList:
    """One ``WITH [RECURSIVE] name AS (...), ...`` list of a query: its keyword(s), the
    span of each CTE, and the span of the query it belongs to (the statement, or the
    parenthesised subquery it starts), where its names are seen."""

    keyword: str
    spans: list[tuple[int, int]]
    start: int  # the WITH
    end: int  # where its query ends: the ``)`` around it, or the text's end
    names: list[str]  # each CTE's name as Spark compares it (unquoted, lower case)


def cte_lists(sql: str) -> list[CteList]:
    """Every WITH list of ``sql`` (the statement's, and each of a subquery ``(WITH ...``),
    in text order: an enclosing one before those inside it. In a temporary view's
    definition, those of the view's query."""
    tokens = tokenize(sql)
    view = _temp_view(tokens, sql)
    if view is not None:
        tokens = [t for t in tokens if t.start >= view.query_start]
    lists: list[CteList] = []
    for w, tok in enumerate(tokens):
        if not _word(tok, "WITH"):
            continue
        if w == 0:
            end = len(sql)
        elif _is(tokens[w - 1], "("):
            end = tokens[_matching(tokens, w - 1, sql)].start
        else:
            continue  # ``WITH UNMATCHED ROWS``, ``WITH TIMEOUTS``, ``WITH TIME ZONE``
        i, keyword = w + 1, "WITH"
        if i < len(tokens) and _word(tokens[i], "RECURSIVE"):
            keyword, i = "WITH RECURSIVE", i + 1
        if w and not _opens_cte(tokens, i):
            continue  # ``count(with)``: a column named with, which Spark allows
        spans: list[tuple[int, int]] = []
        names: list[str] = []
        while i < len(tokens):
            close = _cte_query_end(tokens, i, sql)
            spans.append((tokens[i].start, tokens[close].end))
            names.append(_name_text(tokens[i]).lower())
            i = close + 1
            if i < len(tokens) and tokens[i].text == ",":
                i += 1
                continue
            break
        lists.append(CteList(keyword, spans, tok.start, end, names))
    return lists


def _opens_cte(tokens: list[Token], i: int) -> bool:
    """Whether ``tokens[i]`` starts a CTE: a name, then ``(``, ``AS`` or ``MAX``."""
    return (
        i + 1 < len(tokens)
        and tokens[i].kind in ("word", "quoted")
        and (_is(tokens[i + 1], "(") or _word(tokens[i + 1], "AS") or _word(tokens[i + 1], "MAX"))
    )


def _seen_lists(sql: str, before: int | None) -> list[tuple[str, list[str], list[str]]]:
    """The WITH lists around offset ``before`` of ``sql`` (all, for None), outermost
    first: keyword, the text and the name of each CTE defined before that offset (a CTE
    sees only the earlier ones of its own list)."""
    seen = []
    for found in cte_lists(sql):
        if before is not None and not found.start < before <= found.end:
            continue
        kept = [k for k, (_, b) in enumerate(found.spans) if before is None or b <= before]
        if kept:
            texts = [sql[slice(*found.spans[k])] for k in kept]
            seen.append((found.keyword, texts, [found.names[k] for k in kept]))
    return seen


def cte_scope(sql: str, before: int) -> Callable[[str], str]:
    """A query (``SELECT * FROM t``) as it reads at offset ``before`` of ``sql``: inside
    each WITH list around that place, the innermost one's names first, as Spark resolves
    them. A relation of the query Spark reads on its own is read through it."""
    lists = _seen_lists(sql, before)

    def scoped(query: str) -> str:
        for depth, (keyword, texts, _) in enumerate(reversed(lists)):
            if depth:
                query = f"SELECT * FROM ({query}) AS __matchrec_scope{depth}"
            query = f"{keyword} {', '.join(texts)} {query}"
        return query

    return scoped


def visible_ctes(sql: str, before: int | None = None) -> list[tuple[str, list[str]]]:
    """The WITH lists a relation at offset ``before`` of ``sql`` sees (every one of
    ``sql`` for None), outermost first: each its keyword(s) and the text of each CTE
    (``name AS (...)``) it defines before that offset."""
    return [(keyword, texts) for keyword, texts, _ in _seen_lists(sql, before)]


def _cte_query_end(tokens: list[Token], i: int, sql: str) -> int:
    """Index of the ``)`` that ends the CTE ``name [(cols)] [MAX RECURSION LEVEL n] [AS]
    (query)`` at ``tokens[i]`` (Spark's form: AS may be left out); a header of another
    form is a syntax error where it goes wrong, as Spark reports it (its input would be
    read without the CTE)."""
    if tokens[i].kind == "word" and tokens[i].text.upper() in _QUERY_WORDS_START and i > 1:
        raise SqlSyntaxError(
            f"the WITH clause ends with '{tokens[i - 1].text}' before {tokens[i].text.upper()}",
            sql=sql,
            pos=tokens[i - 1].start,
            hint="remove it, or add the next common table expression (name AS (query))",
        )
    j = i + 1
    if tokens[i].kind in ("word", "quoted"):
        if j < len(tokens) and _is(tokens[j], "("):
            close = _matching(tokens, j, sql)
            if not _names_only(tokens[j + 1 : close]):
                return close  # ``name (query)``
            j = close + 1  # ``name (cols)``
        if _words_at(tokens, j, "MAX", "RECURSION", "LEVEL"):
            j += 3
            while j < len(tokens) and tokens[j].kind == "punct" and tokens[j].text.isdigit():
                j += 1  # the level's digits, one token each
        if j < len(tokens) and _word(tokens[j], "AS"):
            j += 1
        if j < len(tokens) and _is(tokens[j], "("):
            return _matching(tokens, j, sql)
    at = tokens[j] if tokens[i].kind in ("word", "quoted") and j < len(tokens) else tokens[i]
    raise SqlSyntaxError(
        f"unexpected '{at.text}' in the WITH clause",
        sql=sql,
        pos=at.start,
        hint="write each common table expression as name AS (query), separated by commas",
    )


def _names_only(tokens: list[Token]) -> bool:
    """Whether ``tokens`` read as a list of column names (``a, b``), not a query."""
    return all(
        (t.kind in ("word", "quoted") and t.text.upper() not in _QUERY_WORDS_START)
        if k % 2 == 0
        else _is(t, ",")
        for k, t in enumerate(tokens)
    )


def _words_at(tokens: list[Token], j: int, *words: str) -> bool:
    return len(tokens) >= j + len(words) and all(
        _word(tokens[j + k], w) for k, w in enumerate(words)
    )


@dataclass(frozen=True)
class TempView:
    """``CREATE [OR REPLACE] [GLOBAL] TEMP[ORARY] VIEW [IF NOT EXISTS] name [(cols)] AS
    query``: what it asks for, and the offset where its query starts."""

    name: str  # as Spark takes it (backquotes removed)
    columns: list[str] | None
    replace: bool
    is_global: bool
    query_start: int
    #: ``CACHE [LAZY] TABLE name [OPTIONS (...)] [AS] query``: a view, then cached
    cache: bool = False
    lazy: bool = False


_QUERY_WORDS_START = {"SELECT", "WITH", "FROM", "VALUES", "TABLE"}


def temp_view_definition(sql: str) -> TempView | None:
    """The temporary view ``sql`` defines, or None if it is no such statement."""
    return _temp_view(tokenize(sql), sql)


def _temp_view(tokens: list[Token], sql: str) -> TempView | None:
    words = [t.text.upper() if t.kind == "word" else None for t in tokens]

    def at(i: int, *expected: str) -> bool:
        return all(i + k < len(words) and words[i + k] == w for k, w in enumerate(expected))

    if at(0, "CACHE"):
        lazy = at(1, "LAZY")
        i = 2 if lazy else 1
        named = i + 1 < len(tokens) and tokens[i + 1].kind in ("word", "quoted")
        if not (at(i, "TABLE") and named):
            return None
        name, i = _name_text(tokens[i + 1]), i + 2
        if at(i, "OPTIONS") and i + 1 < len(tokens) and _is(tokens[i + 1], "("):
            i = _matching(tokens, i + 1, sql) + 1
        i += 1 if at(i, "AS") else 0
        if i >= len(tokens) or not (words[i] in _QUERY_WORDS_START or _is(tokens[i], "(")):
            return None
        return TempView(name, None, False, False, tokens[i].start, True, lazy)
    if not at(0, "CREATE"):
        return None
    i = 1
    replace = at(i, "OR", "REPLACE")
    i += 2 if replace else 0
    is_global = at(i, "GLOBAL")
    i += 1 if is_global else 0
    if not (at(i, "TEMP", "VIEW") or at(i, "TEMPORARY", "VIEW")):
        return None
    i += 2
    if at(i, "IF", "NOT", "EXISTS"):  # Spark's parser refuses it
        raise SqlSyntaxError(
            "It is not allowed to define a TEMPORARY view with IF NOT EXISTS",
            sql=sql,
            pos=tokens[i].start,
            hint="write CREATE OR REPLACE TEMP VIEW, or CREATE TEMP VIEW (an error if it exists)",
        )
    if i >= len(tokens) or tokens[i].kind not in ("word", "quoted"):
        return None
    name = _name_text(tokens[i])
    i += 1
    columns = None
    if i < len(tokens) and _is(tokens[i], "("):
        close = _matching(tokens, i, sql)
        columns, expect_name, depth = [], True, 0
        for t in tokens[i + 1 : close]:
            if _is(t, "(") or _is(t, ")"):
                depth += 1 if t.text == "(" else -1
            elif depth == 0 and _is(t, ","):
                expect_name = True
            elif expect_name and t.kind in ("word", "quoted"):
                columns.append(_name_text(t))
                expect_name = False
        i = close + 1
    while i < len(tokens) and not at(i, "AS"):  # COMMENT '...', TBLPROPERTIES (...)
        i = _matching(tokens, i, sql) + 1 if _is(tokens[i], "(") else i + 1
    if i + 1 >= len(tokens):
        return None
    return TempView(name, columns, replace, is_global, tokens[i + 1].start)


def outer_order_by(sql: str) -> int | None:
    """Where the statement's own ORDER BY (or SORT BY) is: the last one outside every
    parenthesis, so not a clause's, a window's or a subquery's; None when it has none."""
    depth, found = 0, None
    tokens = tokenize(sql)
    for k, token in enumerate(tokens):
        if _is(token, "("):
            depth += 1
        elif _is(token, ")"):
            depth -= 1
        elif depth == 0 and any(_words_at(tokens, k, w, "BY") for w in ("ORDER", "SORT")):
            found = token.start
    return found
