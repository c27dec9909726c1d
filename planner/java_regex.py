"""Java regular expressions (``java.util.regex``) run by Python's ``re``, for DEFINE glue.

Spark's regex functions (``rlike``, ``regexp_extract``, ``regexp_replace``, ``split``,
...) compile their pattern with ``java.util.regex.Pattern``. Where such a call reads
values from several rows (``B.msg RLIKE FIRST(A.pat)``), no Spark column holds it and
DEFINE's Python glue computes it: the pattern is first translated here into a Python
pattern that matches exactly the same strings at the same places, or refused.

:func:`translate` parses the Java syntax itself and writes every construct out in a form
whose Python meaning is unambiguous, rather than trusting Python to read Java text:

* ``.`` is the class Java means (no ``\\n \\r \\u0085 \\u2028 \\u2029``; any character
  under ``(?s)``); ``^ $ \\Z`` are lookarounds spelling Java's rules for line
  terminators (``$`` matches before a final ``\\r\\n``, ``\\r``, ``\\u0085``, ...; under
  ``(?m)`` ``^`` never matches at the end of the input); ``\\z`` is Python's ``\\Z``;
* ``\\d \\w \\s \\h \\v``, the POSIX classes ``\\p{Alpha}`` & co. (ASCII, as Java's
  defaults) and character classes with ranges, nesting (``[a[b]]``) and intersection
  (``[a-z&&[^e]]``) are computed as sets of code points and written out;
* ``(?i)`` is Java's default ASCII-only case folding, applied to each literal and class;
* named groups, back references (``\\1``, ``\\k<name>``; Java's rule for how many
  digits a reference takes), ``\\Q...\\E``, octal/hex/unicode/control escapes,
  lookarounds (a lookbehind Python can run: of fixed length), atomic groups, possessive
  quantifiers and ``\\R`` (which backtracks into ``\\r\\n`` in Java 17).

Anything else is refused with the construct named (:class:`RegexRefused`) rather than
guessed: ``(?x) (?u) (?U) (?d) (?c)``, ``\\G \\X \\N{...} \\b{g}``, a quantifier on a
quantifier or a lookaround, classes Java reads in surprising ways (``[]a]``, ``[^a[b]]``,
``[a-z-9]``) are not translated, neither are Unicode property classes (their tables
follow the JVM's Unicode version). Patterns Java rejects raise :class:`JavaPatternError`
with Java's message where the parser can tell.

``\\b``/``\\B`` are translated for ASCII subjects only: Java 17 counts any Unicode
letter or digit as a word character there, Java 19+ only ``[a-zA-Z0-9_]``, so on other
text the answer depends on the cluster's JVM (:func:`search` refuses such a subject).

:func:`find_all` steps through the matches as ``Matcher.find()`` does (after an empty
match the next search starts one character later, so ``a??`` finds two empty matches in
``'a'`` where Python's ``finditer`` also finds ``'a'``). After an empty match right before
a character outside the BMP, Java steps into its surrogate pair: refused. A repeated group
that can match empty and holds a capturing group (``(a?)*``) is refused: the engines
record different captures for the empty iteration. Translations are cached (patterns
read from rows repeat).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_MAX = 0x10FFFF

# Java's line terminators (Pattern's "." and "$" exclude / recognize them)
_LINE_END_CLASS = "[\\n\\r\\x85\\u2028\\u2029]"
_NOT_LINE_END = "[^\\n\\r\\x85\\u2028\\u2029]"
# Java's "$" does not match before a "\n" that follows a "\r", looking at the whole
# text even where a Matcher region starts at that "\n" (regexp_replace's position): the
# placeholder is nothing in the main translation and "not at the start" in the one for
# such a region (a NUL never appears raw in a translation: literals are escaped)
_AFTER_CR = "\0"


class RegexRefused(ValueError):
    """A valid Java regex using a construct the translator does not compute exactly."""

    def __init__(self, construct: str, offset: int) -> None:
        self.construct = construct
        self.offset = offset
        super().__init__(
            f"the regex construct {construct} (at index {offset} of the pattern) is not "
            "computed for values of several rows"
        )


class JavaPatternError(ValueError):
    """A pattern ``java.util.regex.Pattern`` rejects (Spark's PatternSyntaxException)."""

    def __init__(self, description: str, offset: int, pattern: str) -> None:
        self.description = description
        self.offset = offset
        super().__init__(
            f"java.util.regex.PatternSyntaxException: {description} near index {offset} "
            f"of {pattern!r}"
        )


Ranges = list[tuple[int, int]]


def _normal(ranges: Ranges) -> Ranges:
    out: Ranges = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def _complement(ranges: Ranges) -> Ranges:
    out: Ranges = []
    at = 0
    for lo, hi in _normal(ranges):
        if lo > at:
            out.append((at, lo - 1))
        at = hi + 1
    if at <= _MAX:
        out.append((at, _MAX))
    return out


def _intersect(a: Ranges, b: Ranges) -> Ranges:
    return _complement(_complement(a) + _complement(b))


def _fold(ranges: Ranges) -> Ranges:
    """``ranges`` closed under ASCII case (Java's CASE_INSENSITIVE without UNICODE_CASE)."""
    extra: Ranges = []
    for lo, hi in ranges:
        for a, b, shift in ((65, 90, 32), (97, 122, -32)):
            x, y = max(lo, a), min(hi, b)
            if x <= y:
                extra.append((x + shift, y + shift))
    return _normal(ranges + extra)


def _chars(text: str) -> Ranges:
    return _normal([(ord(c), ord(c)) for c in text])


_DIGIT: Ranges = [(48, 57)]
_WORD: Ranges = _normal([(48, 57), (65, 90), (95, 95), (97, 122)])
_SPACE: Ranges = _chars(" \t\n\x0b\f\r")
_HSPACE: Ranges = _normal([*_chars(" \t\xa0\u1680\u180e\u202f\u205f\u3000"), (0x2000, 0x200A)])
_VSPACE: Ranges = _chars("\n\x0b\f\r\x85\u2028\u2029")
_PUNCT: Ranges = [(0x21, 0x2F), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E)]
_POSIX: dict[str, Ranges] = {
    "Lower": [(97, 122)],
    "Upper": [(65, 90)],
    "ASCII": [(0, 127)],
    "Alpha": [(65, 90), (97, 122)],
    "Digit": _DIGIT,
    "Alnum": _normal([(48, 57), (65, 90), (97, 122)]),
    "Punct": _PUNCT,
    "Graph": _normal([(48, 57), (65, 90), (97, 122), *_PUNCT]),
    "Print": _normal([(48, 57), (65, 90), (97, 122), *_PUNCT, (32, 32)]),
    "Blank": _chars(" \t"),
    "Cntrl": [(0, 0x1F), (0x7F, 0x7F)],
    "XDigit": _normal([(48, 57), (65, 70), (97, 102)]),
    "Space": _SPACE,
}
_CLASS_ESCAPES: dict[str, Ranges] = {
    "d": _DIGIT,
    "w": _WORD,
    "s": _SPACE,
    "h": _HSPACE,
    "v": _VSPACE,
}
_SIMPLE_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f", "a": "\x07", "e": "\x1b"}
# letters Java gives a meaning after a backslash that are not translated here
_REFUSED_ESCAPES = {
    "G": "\\G (end of the previous match)",
    "X": "\\X (grapheme cluster)",
    "N": "\\N{name}",
    "E": "\\E without \\Q",
}


def _char_text(cp: int) -> str:
    if cp < 128 and (chr(cp).isalnum() or chr(cp) == "_"):
        return chr(cp)
    if cp <= 0xFF:
        return f"\\x{cp:02x}"
    if cp <= 0xFFFF:
        return f"\\u{cp:04x}"
    return f"\\U{cp:08x}"


def _class_text(ranges: Ranges) -> str:
    ranges = _normal(ranges)
    if not ranges:
        return "(?!)"
    if ranges == [(0, _MAX)]:
        return "(?s:.)"
    if len(ranges) == 1 and ranges[0][0] == ranges[0][1]:
        return _char_text(ranges[0][0])
    parts = [
        _char_text(lo) if lo == hi else f"{_char_text(lo)}-{_char_text(hi)}" for lo, hi in ranges
    ]
    return "[" + "".join(parts) + "]"


@dataclass(frozen=True)
class JavaRegex:
    """A translated pattern: the Python regex, Java's group count and names, and what
    the subject must not hold for the translation to be exact."""

    java: str
    python: re.Pattern[str]
    groups: int
    names: dict[str, int]
    word_boundary: bool  # uses \b or \B: exact only on ASCII subjects
    after_cr: re.Pattern[str]  # the translation for a region that starts after a \r


@dataclass
class _Flags:
    i: bool = False
    m: bool = False
    s: bool = False


class _Parser:
    def __init__(self, pattern: str) -> None:
        self.p = pattern
        self.i = 0
        self.flags = _Flags()
        self.opened = 0  # capturing groups opened so far
        self.closed: set[int] = set()
        self.names: dict[str, int] = {}
        self.word_boundary = False

    # -------------------------------------------------------------- helpers

    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.p[j] if j < len(self.p) else ""

    def error(self, description: str, at: int | None = None) -> JavaPatternError:
        return JavaPatternError(description, self.i if at is None else at, self.p)

    def refuse(self, construct: str, at: int | None = None) -> RegexRefused:
        return RegexRefused(construct, self.i if at is None else at)

    # -------------------------------------------------------------- structure

    def parse(self) -> str:
        out = self.alternation()
        if self.i < len(self.p):  # only a ')' stops an alternation early
            raise self.error("Unmatched closing ')'")
        return out

    def alternation(self) -> str:
        """Alternatives; ``self.nullable``: whether one can match the empty string."""
        parts = [self.sequence()]
        nullable = self.nullable
        while self.peek() == "|":
            self.i += 1
            parts.append(self.sequence())
            nullable = nullable or self.nullable
        self.nullable = nullable
        return "|".join(parts)

    def sequence(self) -> str:
        out: list[str] = []
        nullable = True
        while self.i < len(self.p) and self.peek() not in "|)":
            start, opened = self.i, self.opened
            self.nullable = False  # what atom() says of its atom
            atom = self.atom()
            if atom is None:  # an inline flag group: nothing to quantify
                continue
            out.append(self.quantified(atom, start, self.opened > opened))
            nullable = nullable and self.nullable
        self.nullable = nullable
        return "".join(out)

    def quantified(self, atom: str, start: int, captures: bool) -> str:
        c = self.peek()
        if c in ("*", "+", "?"):
            self.i += 1
            q = c
            low, repeats = (1 if c == "+" else 0), c != "?"
        elif c == "{":
            q = self.braces()
            bounds = q[1:-1].split(",")
            low = int(bounds[0])
            repeats = len(bounds) == 1 and low > 1 or len(bounds) == 2 and bounds[1] != "1"
        else:
            return atom
        if captures and repeats and self.nullable:
            # Java and Python record different captures for an iteration that matches empty
            raise self.refuse(
                "a repeated group that can match empty and holds a capturing group", start
            )
        self.nullable = self.nullable or low == 0
        if self.peek() in ("?", "+"):
            q += self.peek()
            self.i += 1
        if self.peek() and self.peek() in "*+?{":
            raise self.refuse("a quantifier applied to a quantifier")
        if atom.startswith(
            ("(?=", "(?!", "(?<", "\\A", "\\Z", "\\b", "(?:\\B", "(?:\\Z", "(?:(?!")
        ):
            raise self.refuse("a quantified lookaround or anchor", start)
        return f"(?:{atom}){q}"

    def braces(self) -> str:
        at = self.i
        m = re.compile(r"\{([0-9]+)(,([0-9]*))?\}").match(self.p, self.i)
        if not m:
            raise self.error("Illegal repetition", at)
        low = int(m.group(1))
        high = m.group(3)
        if m.group(2) and high and int(high) < low:
            raise self.error("Illegal repetition range", m.end() - 1)  # (Java's: at '}')
        if low > 65535 or (high and int(high) > 65535):
            raise self.refuse("a repetition count above 65535", at)
        self.i = m.end()
        return m.group()

    # -------------------------------------------------------------- atoms

    def atom(self) -> str | None:
        c = self.peek()
        start = self.i
        if c == "(":
            return self.group()
        if c == "[":
            self.i += 1
            return _class_text(self.char_class())
        if c in ("*", "+", "?"):
            raise self.error(f"Dangling meta character '{c}'")
        if c == "{":
            raise self.error("Illegal repetition")
        if c == ".":
            self.i += 1
            return "(?s:.)" if self.flags.s else _NOT_LINE_END
        if c in ("^", "$"):
            self.nullable = True
        if c == "^":
            self.i += 1
            if self.flags.m:
                # after any line terminator but inside \r\n, never at the end of input
                return "(?:(?!\\Z)(?:\\A|(?<=[\\n\\x85\\u2028\\u2029])|(?<=\\r)(?!\\n)))"
            return "\\A"
        if c == "$":
            self.i += 1
            return self.dollar_text(self.flags.m)
        if c == "\\":
            return self.escape_atom()
        self.i += 1
        del start
        return self.literal(ord(c))

    def literal(self, cp: int) -> str:
        if self.flags.i:
            return _class_text(_fold([(cp, cp)]))
        return _char_text(cp)

    def dollar_text(self, multiline: bool) -> str:
        if multiline:
            return f"(?:\\Z|(?=[\\r\\x85\\u2028\\u2029])|(?<!\\r){_AFTER_CR}(?=\\n))"
        return (
            f"(?:\\Z|(?=\\r\\n\\Z)|(?=[\\r\\x85\\u2028\\u2029]\\Z)|(?<!\\r){_AFTER_CR}(?=\\n\\Z))"
        )

    def group(self) -> str | None:
        start = self.i
        self.i += 1
        saved = _Flags(self.flags.i, self.flags.m, self.flags.s)
        head: str
        number = 0
        if self.peek() == "?":
            self.i += 1
            c = self.peek()
            if c == ":":
                self.i += 1
                head = "(?:"
            elif c in ("=", "!"):
                self.i += 1
                head = f"(?{c}"
            elif c == ">":
                self.i += 1
                head = "(?>"
            elif c == "<" and self.peek(1) in ("=", "!"):
                head = f"(?<{self.peek(1)}"
                self.i += 2
            elif c == "<":
                m = re.compile(r"<([a-zA-Z][a-zA-Z0-9]*)>").match(self.p, self.i)
                if not m:
                    raise self.error("named capturing group is missing trailing '>'")
                name = m.group(1)
                if name in self.names:
                    raise self.error(f"Named capturing group <{name}> is already defined")
                self.i = m.end()
                self.opened += 1
                number = self.opened
                self.names[name] = number
                head = f"(?P<{name}>"
            else:
                if self.inline_flags():
                    return None  # (?i): applies to the rest of the enclosing group
                head = "(?:"
        else:
            self.opened += 1
            number = self.opened
            head = "("
        body = self.alternation()
        if self.peek() != ")":
            raise self.error("Unclosed group", len(self.p))
        self.i += 1
        self.flags = saved
        if number:
            self.closed.add(number)
        if head in ("(?=", "(?!", "(?<=", "(?<!"):
            self.nullable = True
        del start
        return head + body + ")"

    def inline_flags(self) -> bool:
        """``(?ims-ims)`` (True: no body follows) or ``(?ims-ims:`` (False)."""
        on = True
        while True:
            c = self.peek()
            if c == "-":
                on = False
            elif c in ("i", "m", "s"):
                setattr(self.flags, c, on)
            elif c == ")":
                self.i += 1
                return True
            elif c == ":":
                self.i += 1
                return False
            elif c in ("x", "u", "U", "d", "c"):
                names = {
                    "x": "(?x) (comments)",
                    "u": "(?u) (Unicode case folding)",
                    "U": "(?U) (Unicode character classes)",
                    "d": "(?d) (Unix lines)",
                    "c": "(?c) (canonical equivalence)",
                }
                raise self.refuse(f"the flag {names[c]}")
            else:
                raise self.error("Unknown inline modifier")
            self.i += 1

    def escape_atom(self) -> str:
        start = self.i
        self.i += 1
        c = self.peek()
        if c == "":
            raise self.error("Unexpected internal error", len(self.p))
        self.nullable = c in "123456789kbBAzZ" or (
            c == "Q" and self.p.startswith("\\E", self.i + 1)
        )
        if c in "123456789":
            return self.back_reference(start)
        if c == "k":
            m = re.compile(r"k<([a-zA-Z][a-zA-Z0-9]*)>").match(self.p, self.i)
            if not m:
                raise self.error("\\k is not followed by '<' for named capturing group")
            name = m.group(1)
            if name not in self.names:
                raise self.error(f"named capturing group <{name}> does not exist")
            self.i = m.end()
            if self.flags.i:
                raise self.refuse("a back reference under (?i)", start)
            if self.names[name] not in self.closed:
                raise self.refuse("a back reference to a group that is still open", start)
            return f"(?P={name})"
        if c == "Q":
            end = self.p.find("\\E", self.i + 1)
            text = self.p[self.i + 1 :] if end < 0 else self.p[self.i + 1 : end]
            self.i = len(self.p) if end < 0 else end + 2
            return "".join(self.literal(ord(ch)) for ch in text) or "(?:)"
        if c in ("b", "B"):
            self.i += 1
            if self.peek() == "{":
                raise self.refuse("\\b{...}", start)
            self.word_boundary = True
            # Python's \B never matches in the empty string, Java's does
            return "\\b" if c == "b" else "(?:\\B|\\A\\Z)"
        if c == "A":
            self.i += 1
            return "\\A"
        if c == "z":
            self.i += 1
            return "\\Z"
        if c == "Z":
            self.i += 1
            return self.dollar_text(False)
        if c == "R":
            self.i += 1
            return "(?:\\r\\n|[\\n\\x0b\\f\\r\\x85\\u2028\\u2029])"
        ranges = self.class_escape()
        if ranges is not None:
            return _class_text(ranges)
        return self.literal(self.char_escape(start))

    def back_reference(self, start: int) -> str:
        number = int(self.peek())
        self.i += 1
        while self.peek().isdigit() and self.peek().isascii():
            longer = number * 10 + int(self.peek())
            if longer > self.opened:
                break
            number = longer
            self.i += 1
        if self.flags.i:
            raise self.refuse("a back reference under (?i)", start)
        if number > self.opened:
            return "(?!)"  # Java: a group that does not exist never matches
        if number not in self.closed:
            raise self.refuse("a back reference to a group that is still open", start)
        return f"(?:\\{number})"

    def class_escape(self) -> Ranges | None:
        """The set of a class escape at ``self.i`` (after the backslash), or None."""
        c = self.peek()
        if c.lower() in _CLASS_ESCAPES:
            self.i += 1
            ranges = _CLASS_ESCAPES[c.lower()]
            return _complement(ranges) if c.isupper() else ranges
        if c in ("p", "P"):
            at = self.i - 1
            m = re.compile(r"[pP]\{([A-Za-z]+)\}").match(self.p, self.i)
            if not m or m.group(1) not in _POSIX:
                raise self.refuse("a Unicode property class \\p{...}", at)
            if self.flags.i and m.group(1) in ("Lower", "Upper"):
                raise self.refuse(f"\\p{{{m.group(1)}}} under (?i)", at)
            self.i = m.end()
            ranges = _POSIX[m.group(1)]
            return _complement(ranges) if c == "P" else ranges
        return None

    def char_escape(self, start: int) -> int:
        """The code point of a character escape at ``self.i`` (after the backslash)."""
        c = self.peek()
        if c == "":
            raise self.error("Unexpected internal error", len(self.p))
        self.i += 1
        if c in _SIMPLE_ESCAPES:
            return ord(_SIMPLE_ESCAPES[c])
        if c == "0":
            digits = ""
            while len(digits) < 3 and self.peek() in tuple("01234567") and self.peek():
                if len(digits) == 2 and digits[0] > "3":
                    break
                digits += self.peek()
                self.i += 1
            if not digits:
                raise self.error("Illegal octal escape sequence")
            return int(digits, 8)
        if c == "x":
            if self.peek() == "{":
                end = self.p.find("}", self.i)
                text = self.p[self.i + 1 : end] if end > 0 else ""
                if not text or not all(ch in "0123456789abcdefABCDEF" for ch in text):
                    raise self.error("Illegal hexadecimal escape sequence")
                self.i = end + 1
                cp = int(text, 16)
                if cp > _MAX:
                    raise self.error("Hexadecimal codepoint is too big")
                return self.not_surrogate(cp, start)
            return self.hex_digits(2, start)
        if c == "u":
            return self.not_surrogate(self.hex_digits(4, start), start)
        if c == "c":
            if not self.peek():
                raise self.error("Illegal control escape sequence")
            self.i += 1
            return ord(self.p[self.i - 1]) ^ 64
        if c in _REFUSED_ESCAPES:
            raise self.refuse(_REFUSED_ESCAPES[c], start)
        if c.isascii() and c.isalpha():
            raise self.error("Illegal/unsupported escape sequence", self.i - 1)
        if c.isascii() and c.isdigit():
            raise self.refuse(f"\\{c}", start)  # (inside a class: Java's rules differ)
        return ord(c)

    def hex_digits(self, n: int, start: int) -> int:
        text = self.p[self.i : self.i + n]
        if len(text) < n or not all(ch in "0123456789abcdefABCDEF" for ch in text):
            raise self.error(
                "Illegal hexadecimal escape sequence"
                if n == 2
                else "Illegal Unicode escape sequence"
            )
        self.i += n
        return int(text, 16)

    def not_surrogate(self, cp: int, start: int) -> int:
        if 0xD800 <= cp <= 0xDFFF:
            raise self.refuse("a surrogate code unit escape", start)
        return cp

    # -------------------------------------------------------------- character classes

    def char_class(self) -> Ranges:
        """A class after its ``[``: Java's union of items and ``&&`` intersections."""
        start = self.i - 1
        negated = self.peek() == "^"
        if negated:
            self.i += 1
        doubled = self.p.startswith("&&", self.i) or (negated and self.peek() == "^")
        if self.peek() == "]" or doubled:
            raise self.refuse("a class starting with ']', '&&' or '^^'", start)
        result: Ranges | None = None  # the left operand of && so far
        current: Ranges = []
        nested = False
        first = True
        while True:
            c = self.peek()
            if c == "":
                raise self.error("Unclosed character class", len(self.p) - 1)
            if c == "]":
                self.i += 1
                break
            if c == "[":
                self.i += 1
                current = current + self.char_class()
                nested = True
            elif c == "&" and self.peek(1) == "&":
                self.i += 2
                nested = True
                result = current if result is None else _intersect(result, current)
                current = []
                if self.peek() in ("]", "&"):
                    raise self.refuse("an empty operand of && in a class", start)
                continue
            else:
                current = current + self.class_item(first, start)
            first = False
        whole = current if result is None else _intersect(result, current)
        if negated and nested:
            raise self.refuse("a negated class with a nested class or &&", start)
        return _complement(whole) if negated else _normal(whole)

    def class_item(self, first: bool, start: int) -> Ranges:
        lo_at = self.i
        low = self.class_char()
        if isinstance(low, list):
            return low
        if self.peek() == "-" and self.peek(1) == "":
            # Java reads the end of the pattern as the range's end, character 0
            raise self.error("Illegal character range", len(self.p))
        if self.peek() == "-" and self.peek(1) not in ("]", ""):
            if self.peek(1) in ("[", "&"):
                raise self.refuse("'-' before a nested class or &&", self.i)
            self.i += 1
            high = self.class_char()
            if isinstance(high, list):
                raise self.refuse("a range ending in a class escape", lo_at)
            if high < low:
                raise self.error("Illegal character range", self.i - 1)
            if self.peek() == "-" and self.peek(1) != "]":
                raise self.refuse("'-' right after a range", self.i)
            span: Ranges = [(low, high)]
        else:
            if self.p[lo_at] == "-" and not first and self.peek() != "]":
                raise self.refuse("'-' inside a class", lo_at)
            span = [(low, low)]
        return _fold(span) if self.flags.i else span

    def class_char(self) -> int | Ranges:
        c = self.peek()
        if c != "\\":
            self.i += 1
            return ord(c)
        start = self.i
        self.i += 1
        if self.peek() == "Q":
            raise self.refuse("\\Q inside a class", start)
        ranges = self.class_escape()
        if ranges is not None:
            return ranges
        if self.peek() in tuple("123456789kbBAzZRG") and self.peek():
            raise self.refuse(f"\\{self.peek()} inside a class", start)
        return self.char_escape(start)


@lru_cache(maxsize=512)
def _translated(pattern: str) -> JavaRegex | ValueError:
    parser = _Parser(pattern)
    try:
        text = parser.parse()
    except (RegexRefused, JavaPatternError) as err:
        return err
    try:
        compiled = re.compile(text.replace(_AFTER_CR, ""))
        after_cr = re.compile(text.replace(_AFTER_CR, "(?!\\A)"))
    except re.error as err:
        return RegexRefused(f"this pattern in Python ({err.msg})", 0)
    if compiled.groups != parser.opened:  # never: each capturing group is written once
        return RegexRefused("a group Python counts differently", 0)
    return JavaRegex(
        pattern,
        compiled,
        parser.opened,
        dict(parser.names),
        parser.word_boundary,
        after_cr,
    )


def translate(pattern: str) -> JavaRegex:
    """The Python form of Java regex ``pattern`` (cached); raises :class:`RegexRefused`
    or :class:`JavaPatternError`."""
    result = _translated(pattern)
    if isinstance(result, ValueError):
        raise result
    return result


# ------------------------------------------------------------------ matching as Java does


def _check_subject(rx: JavaRegex, s: str) -> None:
    if rx.word_boundary and not s.isascii():
        raise RegexRefused(
            "\\b or \\B on text that is not ASCII (Java 17 and Java 21 disagree on its "
            "word characters)",
            0,
        )


def search(rx: JavaRegex, s: str, pos: int = 0) -> re.Match[str] | None:
    """``Matcher.find()`` from ``pos``."""
    _check_subject(rx, s)
    return rx.python.search(s, pos)


def find_all(rx: JavaRegex, s: str, after_cr: bool = False) -> list[re.Match[str]]:
    """Every match ``Matcher.find()`` gives in turn: after an empty match the next search
    starts one character later, after another one where it ended. ``after_cr``: ``s`` is
    a region that follows a ``\\r``."""
    _check_subject(rx, s)
    python = rx.after_cr if after_cr else rx.python
    found: list[re.Match[str]] = []
    pos = 0
    while pos <= len(s):
        m = python.search(s, pos)
        if m is None:
            break
        found.append(m)
        if m.end() == m.start():
            if m.end() < len(s) and ord(s[m.end()]) > 0xFFFF:
                # Java steps one UTF-16 unit: into the middle of this character
                raise RegexRefused(
                    "an empty match before a character outside the BMP (Java steps "
                    "into its surrogate pair)",
                    0,
                )
            pos = m.end() + 1
        else:
            pos = m.end()
    return found
