"""Spark's parameter markers in a query: ``:name`` and ``?``, bound to SQL literals.

``spark.sql(query, args=...)`` binds named markers (``:name``, ``args`` a dict) or
positional ones (``?``, ``args`` a list) where Spark's parser meets them. A query with
MATCH_RECOGNIZE reaches Spark in pieces, its DEFINE and MEASURES partly as Python glue,
so matchrec writes each marker's value into the text as a literal before anything is
parsed (:func:`bind_parameters`), and reports a marker without a value at the marker.

A marker is found as Spark's lexer finds it, outside strings, quoted names and comments:
``?`` anywhere but in a PATTERN (where it is a quantifier); ``:name`` where a value may
start (after an operator, ``(``, ``,`` or a keyword), not after a value, where ``v:name``
is Spark's path into a VARIANT, nor in ``x::type``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from matchrec.errors import SemanticError
from matchrec.text_edits import EditedText

from .query_scan import Token, tokenize

#: words after which a value starts (so ``:name`` there is a marker, not a VARIANT path)
_BEFORE_VALUE = {
    "ALL",
    "AND",
    "ANY",
    "AS",
    "BETWEEN",
    "BY",
    "CASE",
    "DEFINE",
    "DISTINCT",
    "DIV",
    "ELSE",
    "ESCAPE",
    "EXISTS",
    "HAVING",
    "ILIKE",
    "IN",
    "INTERVAL",
    "IS",
    "LIKE",
    "LIMIT",
    "MEASURES",
    "NOT",
    "OFFSET",
    "ON",
    "OR",
    "QUALIFY",
    "REGEXP",
    "RETURN",
    "RLIKE",
    "SELECT",
    "SET",
    "SOME",
    "THEN",
    "VALUES",
    "WHEN",
    "WHERE",
}


@dataclass(frozen=True)
class Marker:
    """One parameter marker: its span in the query, its name (``:name``) or its 0-based
    place among the positional ones (``?``)."""

    start: int
    end: int
    name: str | None = None
    index: int = -1


def _after_value(token: Token | None) -> bool:
    """Whether ``token`` ends a value (so a ``:`` after it is no marker)."""
    if token is None:
        return False
    if token.kind in ("quoted", "string"):
        return True
    if token.kind == "word":
        return token.text.upper() not in _BEFORE_VALUE
    return token.text in ")]:" or token.text.isalnum()


def parameter_markers(query: str) -> list[Marker]:
    """Every parameter marker of ``query``, in text order."""
    return markers_and_braces(query)[0]


def markers_and_braces(query: str) -> tuple[list[Marker], list[Token]]:
    """Every parameter marker of ``query`` and every ``{`` outside PATTERN (where braces
    quantify; elsewhere one is a ``{name}`` left unformatted, which no Spark SQL has), in
    text order."""
    tokens = tokenize(query)
    found: list[Marker] = []
    braces: list[Token] = []
    positional = 0
    depth_in_pattern = 0
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if depth_in_pattern:
            depth_in_pattern += {"(": 1, ")": -1}.get(tok.text, 0) if tok.kind == "punct" else 0
        elif (
            tok.kind == "word"
            and tok.text.upper() == "PATTERN"
            and i + 1 < len(tokens)
            and tokens[i + 1].text == "("
        ):
            depth_in_pattern = 1
            i += 1
        elif tok.kind == "punct" and tok.text == "{":
            braces.append(tok)
        elif tok.kind == "punct" and tok.text == "?" and not _quantifies(tokens, i):
            found.append(Marker(tok.start, tok.end, index=positional))
            positional += 1
        elif tok.kind == "punct" and tok.text == ":" and i + 1 < len(tokens):
            name = tokens[i + 1]
            before = tokens[i - 1] if i else None
            if (
                name.kind in ("word", "quoted")
                and name.start == tok.end
                and not (before is not None and before.end == tok.start and before.text == ":")
                and not _after_value(before)
                # a qualified name (``r.measures:x``) is a value, whatever its last word
                and not (before is not None and i >= 2 and tokens[i - 2].text == ".")
            ):
                text = name.text[1:-1].replace("``", "`") if name.kind == "quoted" else name.text
                found.append(Marker(tok.start, name.end, name=text))
                i += 1
        i += 1
    return found, braces


def _quantifies(tokens: list, i: int) -> bool:
    """Whether ``?`` (token ``i``) is a quantifier of a pattern the scanner did not see as
    one (``PATTERNS (A B?)``, a misspelled keyword): it follows a word, ``)`` or ``}``
    with no space, where no value can stand. The clause's parse then names the keyword."""
    before = tokens[i - 1] if i else None
    return (
        before is not None
        and before.end == tokens[i].start
        and (before.kind == "word" or before.text in (")", "}"))
    )


def bind_parameters(query: str, values: Mapping[str, str] | Sequence[str] | None) -> EditedText:
    """``query`` with each parameter marker replaced by its value's SQL text: ``values``
    maps names to texts (named markers) or lists them in order (positional markers).
    A marker without a value is a :class:`SemanticError` at the marker, as Spark's
    UNBOUND_SQL_PARAMETER."""
    replacements: list[tuple[int, int, str]] = []
    for marker in parameter_markers(query):
        text = _value(marker, values)
        if text is None:
            raise _unbound(query, marker, values)
        replacements.append((marker.start, marker.end, text))
    return EditedText.of(query, replacements)


def _value(marker: Marker, values: Mapping[str, str] | Sequence[str] | None) -> str | None:
    if isinstance(values, Mapping):
        return values.get(marker.name) if marker.name is not None else None
    if values is not None and marker.name is None and marker.index < len(values):
        return values[marker.index]
    return None


def _unbound(
    query: str, marker: Marker, values: Mapping[str, str] | Sequence[str] | None
) -> SemanticError:
    if marker.name is not None:
        what = f"parameter :{marker.name}"
        if isinstance(values, Mapping) or values is None:
            hint = (
                f"pass its value: args={{{marker.name!r}: ...}} in matchrec.sql(spark, query, "
                f"args=...), --args VAR in %%matchrec, --param {marker.name}=... in matchrec run"
            )
        else:
            hint = "args is a list, for ? markers: pass a dict for :name markers"
    else:
        what = f"positional parameter ? (number {marker.index + 1})"
        if isinstance(values, Mapping):
            hint = "args is a dict, for :name markers: pass a list for ? markers"
        else:
            given = len(values) if values is not None else 0
            hint = f"args has {given} value{'' if given == 1 else 's'}: pass one per ? marker"
    return SemanticError(
        f"[UNBOUND_SQL_PARAMETER] no value for the {what}", sql=query, pos=marker.start, hint=hint
    )
