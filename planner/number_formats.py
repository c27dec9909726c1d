"""Spark's number formats: ``to_number``, ``try_to_number``, ``to_char``/``to_varchar``.

A format (``'999.99'``, ``'$9,999'``, ``'S0099D9'``, ``'999PR'``; case-insensitive) is
read as Spark's ``ToNumberParser`` reads it: runs of ``0``/``9`` digits, a point (``.``
or ``D``), grouping commas (``,`` or ``G``), ``$``, a sign (``S`` at either end, ``MI``
at the end) or angle brackets (``PR``). A format Spark refuses is its ``INVALID_FORMAT``
error (Spark raises it when it analyses the call); ``to_number`` of text that does not
match is ``INVALID_FORMAT.MISMATCH_INPUT`` in any mode, ``try_to_number`` NULL. The
result of ``to_number`` is a DECIMAL of the format's digits and its digits after the
point.
"""

# ruff: noqa: E501 - Spark's error messages are kept whole, as Spark writes them
from __future__ import annotations

import unicodedata
from decimal import Decimal

# --------------------------------------------------------------------------- number formats
#
# Tokens of a number format (after upper-casing it, as Spark does):
#   ("D", exact, n)   a run of n digits 0/9 (exact: it starts with 0 before the point)
#   (",",)  (".",)  ("$",)  ("S",)  ("MI",)  ("<",)  (">",)  ("?", char)
# and, after grouping, ("G", items, digit_runs) for a run of digits and separators, the
# items and runs listed right to left.


def _fmt_literal(fmt: str) -> str:
    return "'" + fmt.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _invalid_format(sub: str, fmt: str, detail: str) -> ValueError:
    return ValueError(
        f"[INVALID_FORMAT.{sub}] The format is invalid: {_fmt_literal(fmt)}. {detail}"
    )


def _token_name(tok: tuple) -> str:
    kind = tok[0]
    return {
        "G": "digit sequence",
        "D": "digit sequence",
        ".": ". or D",
        ",": ", or G",
        "$": "$",
        "S": "S",
        "MI": "MI",
        "<": "PR",
        ">": "PR",
    }.get(kind, f"character '{tok[1] if len(tok) > 1 else ''}''")


class NumberFormat:
    """A parsed number format of ``to_number`` / ``to_char`` (Spark's ToNumberParser):
    ``check()`` raises Spark's INVALID_FORMAT error for a format Spark refuses (at
    analysis, in any mode); ``parse`` reads a string, ``format`` writes a DECIMAL."""

    def __init__(self, fmt: str) -> None:
        self.original = fmt
        self.fmt = fmt.upper()
        self.tokens = self._group(self._tokenize(self.fmt))
        runs = [self._run_length(t) for t in self.tokens if t[0] == "G"]
        self.precision = sum(runs)
        point = self._index(".")
        self.scale = (
            sum(self._run_length(t) for t in self.tokens[point:] if t[0] == "G")
            if point >= 0
            else 0
        )

    @staticmethod
    def _tokenize(fmt: str) -> list[tuple]:
        tokens: list[tuple] = []
        i, n, after_point = 0, len(fmt), False
        while i < n:
            c = fmt[i]
            if c in "09":
                start = i
                i += 1
                while i < n and fmt[i] in "09":
                    i += 1
                tokens.append(("D", c == "0" and not after_point, i - start))
            elif c in ".D":
                tokens.append((".",))
                after_point = True
                i += 1
            elif c in ",G":
                tokens.append((",",))
                i += 1
            elif c == "$":
                tokens.append(("$",))
                i += 1
            elif c == "S":
                tokens.append(("S",))
                i += 1
            elif c == "M" and i < n - 1 and fmt[i + 1] == "I":
                tokens.append(("MI",))
                i += 2
            elif c == "P" and i < n - 1 and fmt[i + 1] == "R":
                tokens.insert(0, ("<",))
                tokens.append((">",))
                i += 2
            else:
                tokens.append(("?", c))
                i += 1
        return tokens

    @staticmethod
    def _group(tokens: list[tuple]) -> list[tuple]:
        grouped: list[tuple] = []
        items: list[tuple] = []
        for tok in tokens:
            if tok[0] in ("D", ","):
                items.append(tok)
                continue
            if items:
                grouped.append(
                    ("G", tuple(reversed(items)), tuple(t for t in reversed(items) if t[0] == "D"))
                )
                items = []
            grouped.append(tok)
        if items:
            grouped.append(
                ("G", tuple(reversed(items)), tuple(t for t in reversed(items) if t[0] == "D"))
            )
        return grouped

    @staticmethod
    def _run_length(group: tuple) -> int:
        return sum(d[2] for d in group[2])

    def _index(self, kind: str) -> int:
        for i, t in enumerate(self.tokens):
            if t[0] == kind:
                return i
        return -1

    def check(self) -> None:
        """Spark's format validation (INVALID_FORMAT.<reason>)."""
        fmt, toks = self.original, self.tokens
        if fmt == "":
            raise _invalid_format("EMPTY", fmt, "The number format string cannot be empty.")
        first_digit = self._index("G")
        if first_digit < 0:
            raise _invalid_format(
                "WRONG_NUM_DIGIT", fmt, "The format string requires at least one number digit."
            )
        dollar = self._index("$")
        point = self._index(".")
        if first_digit < dollar:
            raise _invalid_format(
                "CUR_MUST_BEFORE_DIGIT",
                fmt,
                "Currency characters must appear before digits in the number format.",
            )
        if point != -1 and point < dollar:
            raise _invalid_format(
                "CUR_MUST_BEFORE_DEC",
                fmt,
                "Currency characters must appear before any decimal point in the number format.",
            )
        before = [t for i, t in enumerate(toks) if t[0] == "G" and (point == -1 or i < point)]
        after = [t for i, t in enumerate(toks) if t[0] == "G" and point != -1 and i > point]
        for _, items, _ in before:
            last = len(items) - 1
            for j, it in enumerate(items):
                if it[0] == "," and (
                    j == 0 or j == last or items[j - 1][0] == "," or items[j + 1][0] == ","
                ):
                    raise _invalid_format(
                        "CONT_THOUSANDS_SEPS",
                        fmt,
                        "Thousands separators (, or G) must have digits in between them in the number format.",
                    )
        for _, items, digits in after:
            if len(items) > len(digits):
                raise _invalid_format(
                    "THOUSANDS_SEPS_MUST_BEFORE_DEC",
                    fmt,
                    "Thousands separators (, or G) may not appear after the decimal point in the number format.",
                )
        for kind in (".", "S", "MI", "$", ">"):
            if sum(1 for t in toks if t[0] == kind) > 1:
                name = _token_name((kind,))
                raise _invalid_format(
                    "WRONG_NUM_TOKEN", fmt, f"At most one {name} is allowed in the number format."
                )
        slots = [("<",), ("MI", "S"), ("$",), ("G",), (".",), ("G",), ("$",), ("MI", "S", ">")]
        k = 0
        for slot in slots:
            if k < len(toks) and toks[k][0] in slot:
                k += 1
        if k < len(toks):
            raise _invalid_format(
                "UNEXPECTED_TOKEN",
                fmt,
                f"Found the unexpected {_token_name(toks[k])} in the format string; the structure of the valid format is [MI|S] [$] [0|9|G|,]* [.|D] [0|9]* [$] [PR|MI|S].",
            )

    # ----------------------------------------------------------------- to_number

    def parse(self, text: str, error: bool) -> Decimal | None:
        """``to_number(text, fmt)`` (error: INVALID_FORMAT.MISMATCH_INPUT) or
        ``try_to_number`` (NULL) on a mismatch; a DECIMAL(precision, scale)."""
        # Java reads UTF-16 units; a supplementary character matches nothing
        chars = [c if ord(c) < 0x10000 else "\uffff" for c in text]
        n = len(chars)
        before: list[str] = []
        after: list[str] = []
        reached_point = opened = closed = negate = False
        pos = 0

        def fail() -> None:
            if error:
                raise ValueError(
                    f"[INVALID_FORMAT.MISMATCH_INPUT] The format is invalid: {_fmt_literal(self.original)}. "
                    f"The input \"STRING\" '{text}' does not match the format."
                )
            return None

        for tok in self.tokens:
            c = chars[pos] if pos < n else None
            kind = tok[0]
            if kind == "G":
                sizes: list[int] = []
                count = 0
                while pos < n:
                    ch = chars[pos]
                    if _java_whitespace(ch):
                        pass
                    elif _java_digit(ch):
                        count += 1
                        (after if reached_point else before).append(ch)
                    elif ch == ",":
                        sizes.insert(0, count)
                        count = 0
                    else:
                        sizes.insert(0, count)
                        break
                    pos += 1
                if pos == n:
                    sizes.insert(0, count)
                runs = tok[2]
                if len(sizes) > len(runs):
                    return fail()
                for i, (_, exact, width) in enumerate(runs):
                    got = sizes[i] if i < len(sizes) else 0
                    if (exact and got != width) or (not exact and got > width):
                        return fail()
            elif kind == ".":
                if c == ".":
                    reached_point = True
                    pos += 1
            elif kind == "$":
                if c is not None:
                    if c != "$":
                        return fail()
                    pos += 1
            elif kind == "S":
                if c == "+":
                    pos += 1
                elif c == "-":
                    negate = not negate
                    pos += 1
            elif kind == "MI":
                if c == "-":
                    negate = not negate
                    pos += 1
            elif kind == "<":
                if c == "<":
                    if opened:
                        return fail()
                    opened = True
                    pos += 1
            elif kind == ">":
                if c == ">":
                    if not opened:
                        return fail()
                    closed = True
                    negate = not negate
                    pos += 1
        if pos < n or opened != closed:
            return fail()
        if not before and not after:
            return fail()
        digits_after = "".join(after) + "0" * (self.scale - len(after))
        number = (
            ("-" if negate else "") + "".join(before) + ("." + digits_after if digits_after else "")
        )
        value = Decimal(number)
        if value == 0:
            value = value.copy_abs()
        if abs(value.scaleb(self.scale)) >= 10**self.precision:
            # Spark's Decimal.set refuses it in any mode, even in try_to_number
            shown = "0" if self.precision <= 18 else str(value)
            raise ValueError(
                f"[NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION]  {shown} cannot be represented as "
                f"Decimal({self.precision}, {self.scale}). If necessary set "
                '"spark.sql.ansi.enabled" to "false" to bypass this error, and return NULL '
                "instead. SQLSTATE: 22003"
            )
        return value

    # ----------------------------------------------------------------- to_char

    def format(self, value: Decimal | int) -> str:
        """``to_char(value, fmt)`` of a DECIMAL (an integral value: its DECIMAL(p, 0))."""
        dec = Decimal(value)
        negative = dec < 0
        plain = format(dec, "f")
        int_part, _, frac_part = plain.partition(".")
        int_part = int_part.lstrip("-0")
        frac_part = frac_part.rstrip("0")
        n_before = n_after = 0
        point_seen = False
        for tok in self.tokens:
            if tok[0] == "G":
                if point_seen:
                    n_after += self._run_length(tok)
                else:
                    n_before += self._run_length(tok)
            elif tok[0] == ".":
                point_seen = True
        if n_before < len(int_part) or n_after < len(frac_part):
            int_part, frac_part = "#" * n_before, "#" * n_after
        int_digits = " " * (n_before - len(int_part)) + int_part
        frac_digits = frac_part + "0" * (n_after - len(frac_part))
        out: list[str] = []
        bi = ai = 0
        reached_point = False
        for tok in self.tokens:
            kind = tok[0]
            if kind == "G":
                for item in reversed(tok[1]):
                    if item[0] == "D":
                        for _ in range(item[2]):
                            if reached_point:
                                out.append(frac_digits[ai])
                                ai += 1
                            else:
                                d = int_digits[bi]
                                if d == " " and item[1]:
                                    out.append("0")
                                elif d == " ":
                                    _add_space(out)
                                else:
                                    out.append(d)
                                bi += 1
                    elif out and out[-1].isdigit() and out[-1] in "0123456789":
                        out.append(",")
                    else:
                        _add_space(out)
            elif kind == ".":
                if out and out[-1] == " ":
                    out[-1] = "0"
                out.append(".")
                reached_point = True
            elif kind == "$":
                out.append("$")
            elif kind == "S":
                _strip_lone_point(out)
                _add_char(out, "-" if negative else "+")
            elif kind == "MI":
                if negative:
                    _strip_lone_point(out)
                    _add_char(out, "-")
                else:
                    out.append(" ")
            elif kind == "<":
                if negative:
                    out.append("<")
            elif kind == ">":
                _strip_lone_point(out)
                if negative:
                    _add_char(out, ">")
                else:
                    out.extend("  ")
        _strip_lone_point(out)
        text = "".join(out)
        return "0" if text in ("", "+", "-") else text


def _java_whitespace(ch: str) -> bool:
    """Java's ``Character.isWhitespace`` (a space separator other than a no-break one,
    or one of \\t \\n \\u000B \\f \\r \\u001C-\\u001F, line and paragraph separators)."""
    if ch in "\t\n\u000b\f\r\u001c\u001d\u001e\u001f":
        return True
    if ch in "\u00a0\u2007\u202f":
        return False
    return unicodedata.category(ch) in ("Zs", "Zl", "Zp")


def _java_digit(ch: str) -> bool:
    return unicodedata.category(ch) == "Nd"


def _add_char(out: list[str], ch: str) -> None:
    out.append(ch)
    i = len(out) - 1
    while i >= 1 and out[i - 1] == " " and out[i] == ch:
        out[i], out[i - 1] = " ", ch
        i -= 1


def _add_space(out: list[str]) -> None:
    out.append(" ")
    i = len(out) - 1
    while i >= 1 and out[i - 1] in "+-<" and out[i] == " ":
        out[i], out[i - 1] = out[i - 1], " "
        i -= 1


def _strip_lone_point(out: list[str]) -> None:
    if "." in out:
        i = out.index(".")
        if i == len(out) - 1 or out[i + 1] == " ":
            out[i] = " "


_FORMATS: dict[str, NumberFormat] = {}


def number_format(fmt: str) -> NumberFormat:
    """The checked :class:`NumberFormat` of ``fmt`` (cached; INVALID_FORMAT raised)."""
    found = _FORMATS.get(fmt)
    if found is None:
        found = NumberFormat(fmt)
        found.check()
        if len(_FORMATS) < 256:
            _FORMATS[fmt] = found
    return found


def _decimal_format(fmt: str) -> NumberFormat:
    found = number_format(fmt)
    if found.precision > 38:
        raise ValueError(
            f"[DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION] Decimal precision {found.precision} "
            "exceeds max precision 38. SQLSTATE: 22003"
        )
    return found


def to_number(s: str, fmt: str) -> Decimal:
    """``to_number(s, fmt)``: ``s`` read by the number format ``fmt`` (digits 0/9, . or D,
    , or G, $, S, MI, PR; case-insensitive) as a DECIMAL(digits of fmt, digits after its
    point); INVALID_FORMAT.MISMATCH_INPUT in any mode when ``s`` does not match, an
    INVALID_FORMAT.<reason> for a format Spark refuses. Inside a run of digits
    whitespace is skipped. A NULL ``fmt`` gives NULL (the caller's)."""
    result = _decimal_format(fmt).parse(s, True)
    assert result is not None
    return result


def try_to_number(s: str, fmt: str) -> Decimal | None:
    """``try_to_number(s, fmt)``: as :func:`to_number`, NULL for a mismatch (a format
    Spark refuses is still an error, and so is a value with more integer digits than
    the format's DECIMAL holds, e.g. '454' by 'D999': NUMERIC_VALUE_OUT_OF_RANGE)."""
    return _decimal_format(fmt).parse(s, False)


def to_char(value: Decimal | int, fmt: str) -> str:
    """``to_char(value, fmt)`` / ``to_varchar`` of a number: ``value`` (a DECIMAL, or an
    integer read as its DECIMAL) written by the number format ``fmt``. A leading run of
    ``0`` pads with zeros, ``9`` with spaces; more digits than the format holds gives
    ``#`` in every digit place; ``S`` writes ``+``/``-``, ``MI`` ``-`` or a space, ``PR``
    ``<..>`` or two spaces. A format Spark refuses is an INVALID_FORMAT error. (A DATE,
    TIMESTAMP or BINARY value takes another path in Spark, not this one.)"""
    return number_format(fmt).format(value)
