"""Spark's regex functions in Python, for DEFINE glue over values read at several rows.

``B.msg RLIKE FIRST(A.pat)`` or ``regexp_extract(concat(A.s, B.s), 'x(\\d+)', 1)`` read
two rows: the glue computes them while matching, with the pattern translated from Java's
syntax by ``planner.java_regex`` (or refused there). Each function follows Spark's
``regexpExpressions.scala`` / ``UTF8String.split``: the answers, where Spark gives ``''``
or NULL for no match, Spark's error for a group index out of range
(INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX, raised only when there is a match) and for a
bad replacement string (INVALID_REGEXP_REPLACE), and positions in characters (as Spark 4
counts them, not Java's UTF-16 units).
Each is checked against Spark by ``tests/test_define_functions.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlglot import exp

from matchrec.function_settings import last_key_wins

from .java_regex import JavaRegex, find_all, search, translate


class RegexGroupIndexError(ValueError):
    """Spark's INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX."""


class RegexReplaceError(ValueError):
    """Spark's INVALID_REGEXP_REPLACE (a replacement string Java's Matcher rejects)."""


def _text(v: Any) -> str:
    if not isinstance(v, str):
        raise TypeError(f"{v!r} is not a string")
    return v


def _int(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"{v!r} is not an integer")
    return v


def _checked_group(name: str, rx: JavaRegex, index: Any) -> int:
    index = _int(index)
    if index < 0 or index > rx.groups:
        raise RegexGroupIndexError(
            f"[INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX] The value of parameter(s) `idx` in "
            f"`{name}` is invalid: Expects group index between 0 and {rx.groups}, but got "
            f"{index}."
        )
    return index


def rlike(s: Any, pattern: Any) -> bool:
    return search(translate(_text(pattern)), _text(s)) is not None


def regexp_extract(s: Any, pattern: Any, index: Any = 1) -> str:
    rx = translate(_text(pattern))
    m = search(rx, _text(s))
    if m is None:
        return ""
    return m.group(_checked_group("regexp_extract", rx, index)) or ""


def regexp_extract_all(s: Any, pattern: Any, index: Any = 1) -> list[str]:
    rx = translate(_text(pattern))
    return [
        m.group(_checked_group("regexp_extract_all", rx, index)) or ""
        for m in find_all(rx, _text(s))
    ]


def regexp_count(s: Any, pattern: Any) -> int:
    return len(find_all(translate(_text(pattern)), _text(s)))


def regexp_substr(s: Any, pattern: Any) -> str | None:
    """The first match; NULL when there is none or it is empty (Spark's
    ``nullif(regexp_extract(s, p, 0), '')``)."""
    m = search(translate(_text(pattern)), _text(s))
    return (m.group() or None) if m is not None else None


def regexp_instr(s: Any, pattern: Any, index: Any = 0) -> int:
    """1-based place (in characters) of the first match, 0 for none. Spark 4 takes
    ``index`` but neither checks nor uses it: the place is the whole match's."""
    _int(index)
    m = search(translate(_text(pattern)), _text(s))
    return 0 if m is None else m.start() + 1


# ------------------------------------------------------------------ regexp_replace

Template = list[str | int]  # literal text or a group number


def _template(rx: JavaRegex, replacement: str) -> Template:
    """Java's ``Matcher.appendReplacement`` syntax: ``$n`` (as many digits as name a
    group), ``${name}``, ``\\x`` for ``x``; raises ValueError where Java throws."""
    out: Template = []
    i = 0
    while i < len(replacement):
        c = replacement[i]
        if c == "\\":
            if i + 1 >= len(replacement):
                raise ValueError("character to be escaped is missing")
            out.append(replacement[i + 1])
            i += 2
        elif c == "$":
            i += 1
            if i >= len(replacement):
                raise ValueError("Illegal group reference: group index is missing")
            if replacement[i] == "{":
                j = i + 1
                while (
                    j < len(replacement) and replacement[j].isascii() and replacement[j].isalnum()
                ):
                    j += 1
                name = replacement[i + 1 : j]
                if not name:
                    raise ValueError("named capturing group has 0 length name")
                if j >= len(replacement) or replacement[j] != "}":
                    raise ValueError("named capturing group is missing trailing '}'")
                if name[0].isdigit():
                    raise ValueError(f"capturing group name {{{name}}} starts with digit character")
                if name not in rx.names:
                    raise ValueError(f"No group with name {{{name}}}")
                out.append(rx.names[name])
                i = j + 1
            else:
                d = replacement[i]
                if not (d.isascii() and d.isdigit()):
                    raise ValueError("Illegal group reference")
                number = int(d)
                i += 1
                while (
                    i < len(replacement) and replacement[i].isascii() and replacement[i].isdigit()
                ):
                    longer = number * 10 + int(replacement[i])
                    if longer > rx.groups:
                        break
                    number = longer
                    i += 1
                if number > rx.groups:
                    raise ValueError(f"No group {number}")
                out.append(number)
        else:
            out.append(c)
            i += 1
    return out


def regexp_replace(s: Any, pattern: Any, replacement: Any, position: Any = 1) -> str:
    """Spark's ``regexp_replace``: every match from 1-based character ``position`` on
    (the region's start is the start for ``^``, ``\\A``, lookbehind and ``\\b``, as a
    Matcher region with its default bounds) replaced; a position past the end leaves
    ``s`` as it is."""
    s, pattern, replacement = _text(s), _text(pattern), _text(replacement)
    rx, start = translate(pattern), _int(position) - 1
    if not (start == 0 or start < len(s)):
        return s
    region = s[start:]
    matches = find_all(rx, region, after_cr=start > 0 and s[start - 1] == "\r")
    if not matches:
        return s
    try:
        template = _template(rx, replacement)
    except ValueError as err:
        raise RegexReplaceError(
            f'[INVALID_REGEXP_REPLACE] Could not perform regexp_replace for source = "{s}", '
            f'pattern = "{pattern}", replacement = "{replacement}" and position = '
            f"{start + 1} ({err})."
        ) from None
    out = [s[:start]]
    last = 0
    for m in matches:
        out.append(region[last : m.start()])
        for part in template:
            out.append(part if isinstance(part, str) else (m.group(part) or ""))
        last = m.end()
    out.append(region[last:])
    return "".join(out)


# ------------------------------------------------------------------ split, str_to_map


def java_split(s: str, pattern: str, limit: int) -> list[str]:
    """``UTF8String.split``: an empty pattern splits a non-empty string into characters
    (at most ``limit``, the last one keeping the rest); otherwise Java's
    ``String.split(pattern, limit)`` with a limit of 0 taken as -1 (trailing empty
    strings kept), where a zero-width match at the start gives no leading empty string."""
    if s and pattern == "":
        n = len(s) if limit <= 0 or limit > len(s) else limit
        return [*s[: n - 1], s[n - 1 :]]
    rx = translate(pattern)
    limited = limit > 0
    parts: list[str] = []
    index = 0
    for m in find_all(rx, s):
        if not limited or len(parts) < limit - 1:
            if index == 0 and m.start() == 0 and m.end() == 0:
                continue
            parts.append(s[index : m.start()])
            index = m.end()
        elif len(parts) == limit - 1:
            parts.append(s[index:])
            index = m.end()
    if index == 0:
        return [s]
    if not limited or len(parts) < limit:
        parts.append(s[index:])
    return parts


def split(s: Any, pattern: Any, limit: Any = -1) -> list[str]:
    return java_split(_text(s), _text(pattern), _int(limit))


def str_to_map(text: Any, pair_delim: Any = ",", key_value_delim: Any = ":") -> dict:
    """``str_to_map``: ``text`` split at the regex ``pair_delim``, each piece at the
    first match of the regex ``key_value_delim`` (no match: a NULL value); a repeated
    key is Spark's DUPLICATED_MAP_KEY, or keeps its first place with the last value under
    ``spark.sql.mapKeyDedupPolicy=LAST_WIN``."""
    result: dict[str, str | None] = {}
    for piece in java_split(_text(text), _text(pair_delim), -1):
        kv = java_split(piece, _text(key_value_delim), 2)
        if kv[0] in result and not last_key_wins():
            raise ValueError(
                f"[DUPLICATED_MAP_KEY] Duplicate map key {kv[0]} was found (under the default "
                "spark.sql.mapKeyDedupPolicy=EXCEPTION)"
            )
        result[kv[0]] = kv[1] if len(kv) > 1 else None
    return result


# ------------------------------------------------------------------ the table

#: name -> function of non-NULL arguments (the pattern is the second one)
REGEX_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "RLIKE": rlike,
    "REGEXP": rlike,
    "REGEXP_EXTRACT": regexp_extract,
    "REGEXP_EXTRACT_ALL": regexp_extract_all,
    "REGEXP_REPLACE": regexp_replace,
    "REGEXP_COUNT": regexp_count,
    "REGEXP_SUBSTR": regexp_substr,
    "REGEXP_INSTR": regexp_instr,
    "SPLIT": split,
    "STR_TO_MAP": str_to_map,
}

#: sqlglot's node classes of those functions
REGEX_NODES: dict[type, str] = {
    exp.RegexpLike: "RLIKE",
    exp.RegexpExtract: "REGEXP_EXTRACT",
    exp.RegexpExtractAll: "REGEXP_EXTRACT_ALL",
    exp.RegexpReplace: "REGEXP_REPLACE",
    exp.RegexpCount: "REGEXP_COUNT",
    exp.RegexpSubstr: "REGEXP_SUBSTR",
    exp.RegexpInstr: "REGEXP_INSTR",
    exp.RegexpSplit: "SPLIT",
    exp.StrToMap: "STR_TO_MAP",
}

#: the argument slots of each node, in the function's order
REGEX_SLOTS: dict[str, tuple[str, ...]] = {
    "RLIKE": ("this", "expression"),
    "REGEXP_EXTRACT": ("this", "expression", "group"),
    "REGEXP_EXTRACT_ALL": ("this", "expression", "group"),
    "REGEXP_REPLACE": ("this", "expression", "replacement", "position"),
    "REGEXP_COUNT": ("this", "expression"),
    "REGEXP_SUBSTR": ("this", "expression"),
    "REGEXP_INSTR": ("this", "expression", "position"),
    "SPLIT": ("this", "expression", "limit"),
    "STR_TO_MAP": ("this", "pair_delim", "key_value_delim"),
}
