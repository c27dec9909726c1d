"""Lexical tokens of a MATCH_RECOGNIZE clause body.

:class:`Scanner` splits the body into :class:`Raw` tokens (words, numbers, strings,
quoted names, punctuation) without deciding what they mean: whether a word is a keyword
or a name, and where an expression ends, depends on the parser's state (see
:mod:`matchrec.grammar.parser`). :class:`Source` knows where the body sits in the user's
SQL, so that errors point into the whole query.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import NamedTuple

from matchrec.errors import SqlSyntaxError

__all__ = ["Raw", "Scanner", "Source", "describe"]


@dataclass(frozen=True)
class Source:
    """The body being parsed and where it sits in the user's SQL."""

    text: str
    sql: str
    base: int

    def error(self, message: str, offset: int, hint: str | None = None) -> SqlSyntaxError:
        """A syntax error at ``offset`` in the body."""
        return SqlSyntaxError(message, sql=self.sql, pos=self.base + offset, hint=hint)


class Raw(NamedTuple):
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
    | (?P<number>\d\w*|\.\d\w*)                               # 5, 1e3F, .5
    | (?P<qident>"(?:[^"]|"")*")
    | (?P<bqident>`(?:[^`]|``)*`)
    | (?P<punct>\{-|-\}|[^\s\w'"`])
    """,
    re.VERBOSE | re.DOTALL,
)
_UNTERMINATED = {"'": "string literal", '"': "quoted name", "`": "quoted name"}


class Scanner:
    """Splits the body into :class:`Raw` tokens, skipping whitespace and comments.

    Strings, quoted names and comments are single tokens, so nothing inside them is
    ever taken for a paren, comma or keyword.
    """

    def __init__(self, source: Source) -> None:
        self.source = source
        self._cache: dict[int, Raw] = {}

    def at(self, offset: int) -> Raw:
        """The first token at or after ``offset``."""
        raw = self._cache.get(offset)
        if raw is None:
            raw = self._cache[offset] = self._lex(offset)
        return raw

    def _lex(self, offset: int) -> Raw:
        text = self.source.text
        i = self._skip(offset)
        if i >= len(text):
            return Raw("end", "", len(text), len(text))
        match = _TOKEN.match(text, i)
        if match is None:
            what = _UNTERMINATED[text[i]]
            raise self.source.error(
                f"unterminated {what}", i, hint=f"close it with a matching {text[i]}"
            )
        return Raw(match.lastgroup or "", match.group(), i, match.end())

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
        end = comment_end(self.source.text, start)
        if end is None:
            raise self.source.error("unterminated comment", start, hint="close it with */")
        return end


def comment_end(text: str, start: int) -> int | None:
    """Where the bracketed comment opened at ``start`` ends (None: it does not). Spark's
    bracketed comments nest: /* a /* b */ c */."""
    depth, i = 0, start
    while True:
        mark = _COMMENT_MARK.search(text, i)
        if mark is None:
            return None
        depth += 1 if mark.group() == "/*" else -1
        i = mark.end()
        if depth == 0:
            return i


def describe(raw: Raw) -> str:
    """How an error message shows the token ``raw``."""
    if raw.kind == "end":
        return "end of clause"
    if len(raw.text) == 1 and not raw.text.isprintable():  # U+200B: shown, it is nothing
        name = unicodedata.name(raw.text, "a control character")
        return f"the invisible character U+{ord(raw.text):04X} ({name})"
    text = raw.text if len(raw.text) <= 30 else raw.text[:27] + "..."
    return f"string {text}" if raw.kind == "string" else f"'{text}'"
