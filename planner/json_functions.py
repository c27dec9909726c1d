"""Spark 4.3's ``get_json_object``, ``json_array_length`` and ``json_object_keys`` in Python.

Spark reads the text with a streaming Jackson parser (single-quoted strings and raw control
characters inside strings allowed, nothing else lenient) and writes matches with a Jackson
generator. What that means, and what this module copies:

* Only the *first* JSON value of the text is read, and all of it (every function walks or
  skips the whole first value): an error anywhere inside it gives NULL, text after it is
  never looked at (``{"a":1} x`` is fine). A top-level number must be followed by white
  space or the end (``1x`` is NULL), a top-level ``true``/``false``/``null`` must not run
  into a Java identifier character (``truex`` is NULL, ``true]`` is ``true``).
* Jackson's limits: 1000 levels of nesting, 1000 digits in a number, 50000 characters
  in a field name.
* Matched containers and numbers are written again, compactly: integers in canonical form
  (``-0`` is ``0``), other numbers as Java's ``Double.toString`` of the parsed double
  (``1.0e2`` is ``100.0``, ``1E400`` is the *string* ``"Infinity"``; the digits are
  :func:`matchrec.sql_values.double_text`'s, see there), strings re-escaped.
  A string matched by a plain path comes back unquoted and unescaped.
* The path grammar is Spark's parser-combinator one (see :func:`parse_path`); a path it
  does not accept gives NULL.

Everything here is stdlib-only and never raises on bad input: NULL is ``None``.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Union

from matchrec.sql_values import double_text

__all__ = ["get_json_object", "json_array_length", "json_object_keys", "parse_path"]

MAX_DEPTH = 1000  # Jackson StreamReadConstraints.maxNestingDepth
MAX_NUMBER_LENGTH = 1000  # Jackson StreamReadConstraints.maxNumberLength
MAX_NAME_LENGTH = 50000  # Jackson StreamReadConstraints.maxNameLength
_WS = " \t\n\r"  # the only white space Jackson skips between tokens
_PATH_WS = " \t\n\x0b\x0c\r"  # Java regex \s, which Scala's RegexParsers skip


class _Fail(Exception):
    """Any error Jackson would throw (parse or generate): the function returns NULL."""


class JObject(list):
    """A JSON object as its ``(name, value)`` pairs in text order (duplicates kept)."""


class JFloat(float):
    """A JSON number with a fraction or exponent: Jackson reads it as a Java double."""


JValue = Union[None, bool, int, JFloat, str, list, JObject]  # noqa: UP007 - a runtime alias


# --------------------------------------------------------------------------- parsing


def _parse_first_value(text: str) -> tuple[JValue, int]:
    """Parse the first JSON value of ``text`` as Spark's Jackson parser reads it.

    Returns the value and the index just after it. Raises :class:`_Fail` where Jackson
    throws. Iterative, so 1000 levels of nesting need no deep Python recursion.
    """
    pos = _skip_ws(text, 0)
    if pos >= len(text):
        raise _Fail("no content")
    # stack of open containers: (container, pending field name or None)
    stack: list[list] = []
    while True:
        ch = text[pos]
        if ch == "[" or ch == "{":
            if len(stack) >= MAX_DEPTH:
                raise _Fail("nesting too deep")
            container: list = [] if ch == "[" else JObject()
            pos = _skip_ws(text, pos + 1)
            if pos >= len(text):
                raise _Fail("end of input in container")
            close = "]" if ch == "[" else "}"
            if text[pos] == close:
                value: JValue = container
                pos += 1
            else:
                stack.append([container, None])
                if ch == "{":
                    name, pos = _parse_name(text, pos)
                    stack[-1][1] = name
                continue
        else:
            value, pos = _parse_scalar(text, pos, at_root=not stack)
        # attach ``value`` to the innermost open container, closing finished ones
        while True:
            if not stack:
                return value, pos
            container, name = stack[-1]
            if isinstance(container, JObject):
                container.append((name, value))
            else:
                container.append(value)
            pos = _skip_ws(text, pos)
            if pos >= len(text):
                raise _Fail("end of input in container")
            close = "}" if isinstance(container, JObject) else "]"
            if text[pos] == ",":
                pos = _skip_ws(text, pos + 1)
                if pos >= len(text):
                    raise _Fail("end of input in container")
                if isinstance(container, JObject):
                    stack[-1][1], pos = _parse_name(text, pos)
                break
            if text[pos] != close:
                raise _Fail("expected comma or close marker")
            pos += 1
            value = container
            stack.pop()


def _skip_ws(text: str, pos: int) -> int:
    """Skip Jackson's white space; any other control character (or a comment) is an error
    when the caller reads it as a token."""
    while pos < len(text) and text[pos] in _WS:
        pos += 1
    return pos


def _parse_name(text: str, pos: int) -> tuple[str, int]:
    """A quoted field name (double or single quotes) and its colon; ``pos`` is at the name."""
    if text[pos] not in "\"'":
        raise _Fail("unquoted field name")
    name, pos = _parse_string(text, pos)
    if len(name) > MAX_NAME_LENGTH:
        raise _Fail("name too long")
    pos = _skip_ws(text, pos)
    if pos >= len(text) or text[pos] != ":":
        raise _Fail("expected colon")
    pos = _skip_ws(text, pos + 1)
    if pos >= len(text):
        raise _Fail("end of input")
    return name, pos


_ESCAPES = {
    '"': '"',
    "\\": "\\",
    "/": "/",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "'": "'",
}  # \' is accepted because single quotes are allowed


def _parse_string(text: str, pos: int) -> tuple[str, int]:
    """A string quoted by ``text[pos]``; raw control characters are allowed.

    ``\\uXXXX`` escapes give UTF-16 units; an escaped high+low pair becomes one code
    point and a lone surrogate stays a lone surrogate, as Java would hold them."""
    quote = text[pos]
    pos += 1
    out: list[str] = []
    n = len(text)
    while True:
        end = pos
        while end < n and text[end] != quote and text[end] != "\\":
            end += 1
        out.append(text[pos:end])
        if end >= n:
            raise _Fail("unterminated string")
        if text[end] == quote:
            return _join_surrogates("".join(out)), end + 1
        if end + 1 >= n:
            raise _Fail("unterminated escape")
        esc = text[end + 1]
        if esc == "u":
            digits = text[end + 2 : end + 6]
            if len(digits) < 4 or any(c not in "0123456789abcdefABCDEF" for c in digits):
                raise _Fail("bad unicode escape")
            out.append(chr(int(digits, 16)))
            pos = end + 6
        elif esc in _ESCAPES:
            out.append(_ESCAPES[esc])
            pos = end + 2
        else:
            raise _Fail("unrecognized escape")


def _join_surrogates(s: str) -> str:
    """Combine adjacent high+low surrogate code points into the character they encode."""
    if not _SURROGATE.search(s):
        return s
    return s.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def _parse_scalar(text: str, pos: int, at_root: bool) -> tuple[JValue, int]:
    """A string, number or literal at ``pos``."""
    ch = text[pos]
    if ch == '"' or ch == "'":
        return _parse_string(text, pos)
    if ch == "-" or "0" <= ch <= "9":
        return _parse_number(text, pos, at_root)
    for word, value in (("true", True), ("false", False), ("null", None)):
        if text.startswith(word, pos):
            end = pos + len(word)
            # Jackson rejects e.g. ``truex``: a Java identifier character right after
            if (
                end < len(text)
                and text[end] >= "0"
                and text[end] not in "]}"
                and _java_identifier_part(text[end])
            ):
                raise _Fail("unrecognized token")
            return value, end
    raise _Fail("unexpected character")


def _java_identifier_part(c: str) -> bool:
    """Java's ``Character.isJavaIdentifierPart`` of the UTF-16 unit starting ``c``."""
    if ord(c) > 0xFFFF:  # Java sees the high surrogate, which is not one
        return False
    code = ord(c)
    if code <= 8 or 0x0E <= code <= 0x1B or 0x7F <= code <= 0x9F:
        return True  # identifier-ignorable control characters
    return unicodedata.category(c) in {
        "Lu",
        "Ll",
        "Lt",
        "Lm",
        "Lo",
        "Nl",
        "Nd",
        "Mn",
        "Mc",
        "Pc",
        "Sc",
        "Cf",
    }


def _digits_end(text: str, pos: int) -> int:
    """The index after the run of ASCII digits at ``pos``."""
    while pos < len(text) and "0" <= text[pos] <= "9":
        pos += 1
    return pos


def _parse_number(text: str, pos: int, at_root: bool) -> tuple[int | JFloat, int]:
    """Strict JSON number (no leading zeros, ``+``, ``.5``, ``1.``, NaN or Infinity)."""
    n = len(text)
    start = pos
    if text[pos] == "-":
        pos += 1
    int_start = pos
    pos = _digits_end(text, pos)
    int_len = pos - int_start
    if int_len == 0:
        raise _Fail("no digits")
    if int_len > 1 and text[int_start] == "0":
        raise _Fail("leading zero")
    frac_len = exp_len = 0
    is_float = False
    if pos < n and text[pos] == ".":
        is_float = True
        pos += 1
        frac_start = pos
        pos = _digits_end(text, pos)
        frac_len = pos - frac_start
        if frac_len == 0:
            raise _Fail("decimal point without digits")
    if pos < n and text[pos] in "eE":
        is_float = True
        pos += 1
        if pos < n and text[pos] in "+-":
            pos += 1
        exp_start = pos
        pos = _digits_end(text, pos)
        exp_len = pos - exp_start
        if exp_len == 0:
            raise _Fail("exponent without digits")
    if int_len + frac_len + exp_len > MAX_NUMBER_LENGTH:
        raise _Fail("number too long")
    if at_root and pos < n and text[pos] not in _WS:
        raise _Fail("root value not followed by white space")
    body = text[start:pos]
    if not is_float:
        return int(body), pos
    return JFloat(body), pos


# ----------------------------------------------------------------------------- output


class _Gen:
    """Jackson's generator, as far as these functions use it.

    ``utf8`` is the byte generator Spark writes the result with: it escapes characters
    outside the BMP (as two ``\\uXXXX``) and lone surrogates. The other kind is the
    ``StringWriter`` generator that buffers ``[*]`` matches: it writes them as they are.
    Values at the root are separated by one space, as Jackson's root separator is.
    """

    def __init__(self, utf8: bool) -> None:
        self.utf8 = utf8
        self.out: list[str] = []
        # per open context: [kind, values written]; kind is "root", "array" or "object"
        self.ctx: list[list] = [["root", 0]]

    def _before_value(self) -> None:
        kind, count = self.ctx[-1]
        if kind == "array" and count:
            self.out.append(",")
        elif kind == "root" and count:
            self.out.append(" ")
        self.ctx[-1][1] += 1

    def start(self, kind: str) -> None:
        self._before_value()
        self.out.append("[" if kind == "array" else "{")
        self.ctx.append([kind, 0])

    def end(self) -> None:
        kind, _ = self.ctx.pop()
        self.out.append("]" if kind == "array" else "}")

    def field(self, name: str) -> None:
        if self.ctx[-1][1]:
            self.out.append(",")
        self.ctx[-1][1] += 1
        self.out.append(self._quote(name) + ":")

    def scalar(self, value: JValue) -> None:
        """Write a number, string, boolean or null as a value."""
        if self.ctx[-1][0] != "object":
            self._before_value()
        self.out.append(self._scalar_text(value))

    def raw(self, text: str) -> None:
        """``writeRaw``: text as is, no separator, no context change."""
        _check_raw(text)
        self.out.append(text)

    def raw_value(self, text: str) -> None:
        """``writeRawValue``: text as is, as the next value."""
        _check_raw(text)
        self._before_value()
        self.out.append(text)

    def copy(self, value: JValue) -> None:
        """``copyCurrentStructure``: write ``value`` and everything inside it."""
        todo: list = [("value", value)]
        while todo:
            what, item = todo.pop()
            if what == "end":
                self.end()
            elif what == "field":
                self.field(item[0])
                todo.append(("value", item[1]))
            elif isinstance(item, JObject):
                self.start("object")
                todo.append(("end", None))
                todo.extend(("field", pair) for pair in reversed(item))
            elif isinstance(item, list):
                self.start("array")
                todo.append(("end", None))
                todo.extend(("value", v) for v in reversed(item))
            else:
                self.scalar(item)

    def _scalar_text(self, value: JValue) -> str:
        if value is None:
            return "null"
        if value is True:
            return "true"
        if value is False:
            return "false"
        if isinstance(value, JFloat):
            text = double_text(float(value))
            # Jackson writes non-finite doubles as strings (WRITE_NAN_AS_STRINGS)
            return '"' + text + '"' if text.endswith("Infinity") else text
        if isinstance(value, int):
            return str(value)
        return self._quote(value)

    def _quote(self, s: str) -> str:
        parts = ['"']
        for c in s:
            code = ord(c)
            if c == '"' or c == "\\":
                parts.append("\\" + c)
            elif code < 0x20:
                parts.append(_SHORT_ESCAPES.get(c) or f"\\u{code:04X}")
            elif self.utf8 and code > 0xFFFF:
                code -= 0x10000
                parts.append(f"\\u{0xD800 + (code >> 10):04X}\\u{0xDC00 + (code & 0x3FF):04X}")
            elif self.utf8 and 0xD800 <= code <= 0xDFFF:
                parts.append(f"\\u{code:04X}")
            else:
                parts.append(c)
        parts.append('"')
        return "".join(parts)

    def text(self) -> str:
        return "".join(self.out)


_SURROGATE = re.compile("[\ud800-\udfff]")
_SHORT_ESCAPES = {"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def _check_raw(text: str) -> None:
    """Jackson's UTF-8 ``writeRaw`` fails on a lone surrogate (it cannot encode it)."""
    if _SURROGATE.search(text):
        raise _Fail("split surrogate")


# ------------------------------------------------------------------------------- paths

# path instructions, as Spark's JsonPathParser produces them
KEY, SUBSCRIPT, WILDCARD = "key", "subscript", "wildcard"
Instruction = Union[str, tuple[str, Union[str, int]]]  # noqa: UP007  # KEY | ("named", n) | ("index", i)


def parse_path(path: str) -> list[Instruction] | None:
    """Spark's path grammar: ``$`` then any of ``.name``, ``['name']``, ``[n]``, ``[*]``,
    ``.*``, ``['*']``; ``None`` if the path does not parse.

    Scala's ``RegexParsers`` skip Java white space before string literals and regexes but
    not before single characters, so ``$. a`` is ``$.a`` and ``$[ 0]`` is ``$[0]``, while
    ``$ .a``, ``$[0 ]`` and `` $`` do not parse; trailing white space is allowed. A name
    after ``.`` runs to the next ``.`` or ``[`` (so it may hold spaces, ``]``, quotes);
    ``['...']`` takes anything but a quote. An index must fit a Java long.
    """
    if not path.startswith("$"):
        return None
    out: list[Instruction] = []
    pos, n = 1, len(path)

    def skip(i: int) -> int:
        while i < n and path[i] in _PATH_WS:
            i += 1
        return i

    while True:
        at = skip(pos)
        if path.startswith(".*", at) or path.startswith("['*']", at):
            out.append(WILDCARD)
            pos = at + (2 if path.startswith(".*", at) else 5)
            continue
        if pos < n and path[pos] == ".":
            start = skip(pos + 1)
            end = start
            while end < n and path[end] not in ".[":
                end += 1
            if end > start:
                out += [KEY, ("named", path[start:end])]
                pos = end
                continue
        if path.startswith("['", at):
            start = skip(at + 2)
            end = start
            while end < n and path[end] != "'":
                end += 1
            close = skip(end)
            if end > start and path.startswith("']", close):
                out += [KEY, ("named", path[start:end])]
                pos = close + 2
                continue
        if pos < n and path[pos] == "[":
            if path.startswith("*]", pos + 1):
                out += [SUBSCRIPT, WILDCARD]
                pos += 3
                continue
            start = skip(pos + 1)
            end = start
            while end < n and "0" <= path[end] <= "9":
                end += 1
            if end > start and int(path[start:end]) < 2**63 and path.startswith("]", end):
                out += [SUBSCRIPT, ("index", int(path[start:end]))]
                pos = end + 1
                continue
        break
    return out if skip(pos) == n else None


# ---------------------------------------------------------------------------- evaluate

_RAW, _QUOTED, _FLATTEN = "raw", "quoted", "flatten"


def _is_wildcard_subscript(path: list[Instruction]) -> bool:
    return len(path) >= 2 and path[0] == SUBSCRIPT and path[1] == WILDCARD


def _evaluate(value: JValue, gen: _Gen, style: str, path: list[Instruction]) -> bool:
    """Spark's ``evaluatePath`` over a parsed value: write what ``path`` matches in
    ``value`` to ``gen``; ``True`` if anything matched."""
    if not path:
        if isinstance(value, str) and style == _RAW:
            gen.raw(value)  # a plain match on a string: unquoted, unescaped
            return True
        if isinstance(value, list) and not isinstance(value, JObject) and style == _FLATTEN:
            # under [*][*] nested arrays are flattened into the parent: write the leaves
            matched = False
            todo = list(reversed(value))
            while todo:
                item = todo.pop()
                if isinstance(item, list) and not isinstance(item, JObject):
                    todo.extend(reversed(item))
                else:
                    gen.copy(item)
                    matched = True
            return matched
        gen.copy(value)
        return True
    if isinstance(value, JObject):
        if path[0] != KEY:
            return False
        rest = path[1:]
        for name, item in value:
            # a field matches ``rest = Named(n) :: more`` if its name is n and its value is
            # not null; the first field that yields a match wins (later duplicates too)
            head = rest[0] if rest else None
            if isinstance(head, tuple) and head[0] == "named" and head[1] == name:
                if item is not None and _evaluate(item, gen, style, rest[1:]):
                    return True
            elif head == WILDCARD:
                if _evaluate(item, gen, style, rest[1:]):
                    return True
        return False
    if not isinstance(value, list) or path[0] != SUBSCRIPT or len(path) < 2:
        return False
    op, rest = path[1], path[2:]
    if op == WILDCARD:
        if _is_wildcard_subscript(rest):
            # Hive's double wildcard: one array of everything, nested arrays flattened
            gen.start("array")
            matched = False
            for item in value:
                matched |= _evaluate(item, gen, _FLATTEN, rest[2:])
            gen.end()
            return matched
        if style != _QUOTED:
            # buffer the matches; a single match is written without the brackets
            buffer = _Gen(utf8=False)
            buffer.start("array")
            count = sum(
                _evaluate(item, buffer, _QUOTED if style == _RAW else _FLATTEN, rest)
                for item in value
            )
            buffer.end()
            text = buffer.text()
            if count > 1:
                gen.raw_value(text)
            elif count == 1:
                gen.raw_value(text[1:-1])
            return count > 0
        gen.start("array")
        matched = False
        for item in value:
            matched |= _evaluate(item, gen, _QUOTED, rest)
        gen.end()
        return matched
    index = op[1]
    if index >= len(value):
        return False
    return _evaluate(value[index], gen, _QUOTED if _is_wildcard_subscript(rest) else style, rest)


# --------------------------------------------------------------------------- functions


def get_json_object(json_text: str, path: str) -> str | None:
    """Spark's ``get_json_object(json_text, path)``: the JSON at ``path`` as text, NULL if
    the path is invalid, nothing matches, the match is JSON null, or the text is not valid
    JSON up to the end of its first value."""
    instructions = parse_path(path)
    if instructions is None:
        return None
    try:
        value, _ = _parse_first_value(json_text)
        gen = _Gen(utf8=True)
        if not _evaluate(value, gen, _RAW, instructions):
            return None
        return gen.text()
    except _Fail:
        return None


def json_array_length(json_text: str) -> int | None:
    """Spark's ``json_array_length``: the number of elements of the top-level array; NULL
    for any other top-level value or for text that is not valid JSON up to the end of
    its first value."""
    try:
        value, _ = _parse_first_value(json_text)
    except _Fail:
        return None
    if isinstance(value, list) and not isinstance(value, JObject):
        return len(value)
    return None


def json_object_keys(json_text: str) -> list[str] | None:
    """Spark's ``json_object_keys``: the keys of the top-level object in text order,
    duplicates kept (``[]`` for ``{}``); NULL for any other top-level value or for text
    that is not valid JSON up to the end of its first value."""
    try:
        value, _ = _parse_first_value(json_text)
    except _Fail:
        return None
    if isinstance(value, JObject):
        # Java's String -> UTF-8 conversion turns a lone surrogate into "?"
        return [_SURROGATE.sub("?", name) for name, _ in value]
    return None
