"""Spark's character, phonetic, URL and charset functions in Python, for glue over
values of several rows.

``ascii(concat(A.s, B.s))``, ``url_encode(B.q || A.q)`` or ``decode(unhex(...), 'UTF-16')``
read two rows, so no Spark column holds them and the glue (DEFINE's, the table
function's MEASURES) computes them. Spark computes these on Java strings: ``ascii`` reads
the first code point, ``chr`` takes the code modulo 256, ``soundex`` works on ASCII
letters only, ``luhn_check`` accepts any Unicode decimal digit Java's ``isDigit`` accepts,
the URL functions are Java's ``URLEncoder``/``URLDecoder`` in UTF-8, and ``encode`` /
``decode`` use Java's charsets with errors on unmappable or malformed input (Spark's
default; ``spark.sql.legacy.codingErrorAction`` is not followed). Each entry is compared
with Spark on generated values by ``tests/test_define_functions.py``.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from matchrec.sql_values import java_text, java_utf8, to_text, utf8_bytes


def _string(v: Any) -> str:
    """A STRING argument: Spark casts other values to their text (a number's digits)."""
    if isinstance(v, str):
        return v
    if isinstance(v, (bytes, bytearray, list, tuple, dict)):
        raise TypeError(f"{v!r} is not a STRING (CAST it inside the navigation)")
    return to_text(v)


def ascii_code(s: Any) -> int:
    """``ascii``: the code point of the first character (of a supplementary character,
    the whole code point), 0 for an empty string."""
    s = _string(s)
    return ord(s[0]) if s else 0


_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


def _as_long(n: Any, ansi: bool) -> int:
    """Spark's implicit CAST of ``chr``'s argument to BIGINT: a fraction cut toward
    zero; NaN, an infinity or a value out of range is CAST_OVERFLOW under ANSI mode,
    else a double saturates (NaN is 0) and a DECIMAL keeps its low 64 bits."""
    if isinstance(n, bool) or not isinstance(n, (int, float, Decimal)):
        raise TypeError(f"chr() of {n!r} is computed here of numbers only (CAST it to BIGINT)")
    if isinstance(n, int):
        return n
    if isinstance(n, float) and n != n:
        if ansi:
            raise OverflowError("NaN cannot be cast to BIGINT (Spark's CAST_OVERFLOW)")
        return 0
    if isinstance(n, float) and math.isinf(n):
        whole = _LONG_MAX + 1 if n > 0 else _LONG_MIN - 1
    else:
        whole = int(n)  # toward zero, for a double and a DECIMAL alike
    if _LONG_MIN <= whole <= _LONG_MAX:
        return whole
    if ansi:
        raise OverflowError(f"{n} cannot be cast to BIGINT (Spark's CAST_OVERFLOW)")
    if isinstance(n, float):
        return _LONG_MAX if whole > 0 else _LONG_MIN
    whole &= 2**64 - 1
    return whole - 2**64 if whole > _LONG_MAX else whole


def _chr(ansi: bool) -> Callable[[Any], str]:
    def chr_of(n: Any) -> str:
        """``chr``/``char``: '' for a negative code, else the character of ``n mod 256``
        (``chr(256)`` is U+0000); the argument is cast to BIGINT as Spark casts it."""
        code = _as_long(n, ansi)
        return "" if code < 0 else chr(code % 256)

    return chr_of


chr_of = _chr(False)
chr_of_ansi = _chr(True)


#: American Soundex codes of A..Z: '0' a vowel (or Y), '7' H and W (skipped, not separators)
_SOUNDEX = "01230127022455012623017202"


def soundex(s: Any) -> str:
    """Spark's ``soundex``: a string whose first character is no ASCII letter is
    returned as it is; else its upper-cased first letter and up to three digits of the
    later letters' codes, a code not repeated right after the same code; H and W are
    skipped, vowels and any character that is no ASCII letter separate equal codes;
    padded with '0' to four characters."""
    s = _string(s)
    if not s or not ("A" <= s[0].upper() <= "Z" and s[0].isascii()):
        return s
    first = s[0].upper()
    out = [first]
    last = _SOUNDEX[ord(first) - 65]
    for ch in s[1:]:
        up = ch.upper() if ch.isascii() else ch
        if not ("A" <= up <= "Z"):
            last = "0"
            continue
        code = _SOUNDEX[ord(up) - 65]
        if code == "7":
            continue
        if code != "0" and code != last:
            out.append(code)
            if len(out) == 4:
                break
        last = code
    return "".join(out).ljust(4, "0")


def _utf16_units(s: str) -> list[str]:
    """The UTF-16 code units of ``s`` as Java's chars (a supplementary character as two
    surrogates, each of which is no digit)."""
    units: list[str] = []
    for ch in s:
        if ord(ch) > 0xFFFF:
            units.extend(("\ud800", "\udc00"))
        else:
            units.append(ch)
    return units


def luhn_check(s: Any) -> bool:
    """Spark's ``luhn_check``: false for an empty string or any character that is no
    decimal digit (Java's ``Character.isDigit`` of each UTF-16 char: other scripts'
    digits count with their value); else whether the Luhn sum is a multiple of 10."""
    units = _utf16_units(_string(s))
    if not units:
        return False
    total = 0
    for i, ch in enumerate(reversed(units)):
        if unicodedata.category(ch) != "Nd":
            return False
        digit = unicodedata.decimal(ch)
        if i % 2 == 1:
            digit *= 2
            if digit > 9:
                digit -= 9
        total += digit
    return total % 10 == 0


_URL_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-*_")


def url_encode(s: Any) -> str:
    """Java's ``URLEncoder.encode(s, UTF-8)``: letters, digits and ``.-*_`` kept, a space
    as '+', every other character's UTF-8 bytes as ``%XX`` (upper case)."""
    out = []
    for ch in _string(s):
        if ch in _URL_SAFE:
            out.append(ch)
        elif ch == " ":
            out.append("+")
        else:
            out.append("".join(f"%{b:02X}" for b in ch.encode("utf-8", "surrogatepass")))
    return "".join(out)


class UrlDecodeError(ValueError):
    """Spark's CANNOT_DECODE_URL."""


def _java_digit(ch: str) -> int:
    """Java's ``Character.digit(ch, 16)``: ASCII and full-width hex letters, any Unicode
    decimal digit; -1 otherwise."""
    if "0" <= ch <= "9":
        return ord(ch) - 48
    low = ch.lower()
    if "a" <= low <= "f":
        return ord(low) - 87
    if "\uff21" <= ch <= "\uff26":
        return ord(ch) - 0xFF21 + 10
    if "\uff41" <= ch <= "\uff46":
        return ord(ch) - 0xFF41 + 10
    if unicodedata.category(ch) == "Nd":
        return unicodedata.decimal(ch)
    return -1


def _escape_value(text: str) -> int:
    """Java's ``Integer.parseInt(text, 16)`` of the two characters after a '%': an
    optional sign then hex digits; a value below 0 is refused as URLDecoder does."""
    sign, digits = 1, text
    if text[0] in "+-":
        sign, digits = (-1 if text[0] == "-" else 1), text[1:]
    values = [_java_digit(c) for c in digits]
    if not digits or any(v < 0 for v in values):
        raise UrlDecodeError(f"the escape %{text} is no hexadecimal number")
    value = sign * int("".join(f"{v:x}" for v in values), 16)
    if value < 0:
        raise UrlDecodeError(f"the escape %{text} is negative")
    return value


def url_decode(s: Any) -> str:
    """Java's ``URLDecoder.decode(s, UTF-8)``: '+' is a space; each run of ``%XX``
    escapes is bytes read as UTF-8 (malformed ones replaced); an escape without two
    characters after it, or that is no hex number, is Spark's CANNOT_DECODE_URL."""
    s = _string(s)
    out: list[str] = []
    i, n = 0, len(s)
    while i < n:
        ch = s[i]
        if ch == "+":
            out.append(" ")
            i += 1
        elif ch == "%":
            data = bytearray()
            while i + 2 < n and s[i] == "%":
                data.append(_escape_value(s[i + 1 : i + 3]) & 0xFF)
                i += 3
                if i >= n:
                    break
            if i < n and s[i] == "%":
                raise UrlDecodeError(
                    f"cannot decode the URL {s!r}: an incomplete escape (Spark's CANNOT_DECODE_URL)"
                )
            out.append(java_utf8(bytes(data)))
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def try_url_decode(s: Any) -> str | None:
    """``try_url_decode``: ``url_decode``, NULL where it fails."""
    try:
        return url_decode(s)
    except UrlDecodeError:
        return None


class CharacterCodingError(ValueError):
    """Spark's MALFORMED_CHARACTER_CODING (or INVALID_PARAMETER_VALUE.CHARSET)."""


#: the charsets of Spark's ``encode``/``decode`` (case-insensitive) -> Python's codec
_CHARSETS = {
    "US-ASCII": "ascii",
    "ISO-8859-1": "latin-1",
    "UTF-8": "utf-8",
    "UTF-16BE": "utf-16-be",
    "UTF-16LE": "utf-16-le",
    "UTF-16": "utf-16-be",  # Java's UTF-16: big-endian, a byte-order mark when writing
    "UTF-32": "utf-32-be",  # Java's UTF-32: big-endian, no byte-order mark when writing
}


def _charset(name: Any, function: str) -> tuple[str, str]:
    charset = _string(name).upper()
    if charset not in _CHARSETS:
        raise CharacterCodingError(
            f"{function}() charset {name!r} is invalid: Spark expects one of "
            f"{', '.join(c.lower() for c in sorted(_CHARSETS))} (INVALID_PARAMETER_VALUE.CHARSET)"
        )
    return charset, _CHARSETS[charset]


def _coding_error(function: str, charset: str) -> CharacterCodingError:
    return CharacterCodingError(
        f"invalid value found when performing {function} with {charset} (Spark's "
        "MALFORMED_CHARACTER_CODING)"
    )


def encode(s: Any, charset: Any) -> bytes:
    """Spark's ``encode``: the string's bytes in the charset; a character the charset
    cannot hold is an error (MALFORMED_CHARACTER_CODING), ANSI mode or not. UTF-16
    writes a big-endian byte-order mark first (none for an empty string), UTF-32 none."""
    text = java_text(_string(s))  # Spark encodes Java's String of the bytes
    name, codec = _charset(charset, "encode")
    try:
        data = text.encode(codec)
    except UnicodeError:
        raise _coding_error("encode", name) from None
    return b"\xfe\xff" + data if name == "UTF-16" and data else data


def _binary(v: Any) -> bytes:
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v)
    return utf8_bytes(_string(v))  # Spark casts a string to its UTF-8 bytes


#: byte-order marks Java's UTF-16 and UTF-32 decoders read (and drop)
_BOMS = {
    "UTF-16": ((b"\xfe\xff", "utf-16-be"), (b"\xff\xfe", "utf-16-le")),
    "UTF-32": ((b"\x00\x00\xfe\xff", "utf-32-be"), (b"\xff\xfe\x00\x00", "utf-32-le")),
}


def decode(b: Any, charset: Any) -> str:
    """Spark's ``decode``: the bytes read in the charset; malformed bytes are an error
    (MALFORMED_CHARACTER_CODING), ANSI mode or not. UTF-16 and UTF-32 read a leading
    byte-order mark of either order, big-endian without one."""
    data = _binary(b)
    name, codec = _charset(charset, "decode")
    for mark, marked in _BOMS.get(name, ()):
        if data.startswith(mark):
            data, codec = data[len(mark) :], marked
            break
    try:
        return data.decode(codec)
    except UnicodeError:
        raise _coding_error("decode", name) from None


def quote(s: str) -> str:
    """``quote(s)``: ``s`` in single quotes, each single quote in it preceded by a
    backslash (a backslash itself is kept as is)."""
    return "'" + s.replace("'", "\\'") + "'"


# --------------------------------------------------------------------------- UTF-8


def _utf8_bytes(b: Any) -> bytes:
    """The bytes a UTF-8 check reads: a BINARY's, or those Spark holds a STRING in."""
    return bytes(b) if isinstance(b, (bytes, bytearray)) else utf8_bytes(_string(b))


def _decoded(b: Any) -> str | None:
    """The text of well-formed UTF-8 bytes, None for ill-formed ones (an overlong form,
    a surrogate, a code point above U+10FFFF)."""
    try:
        return _utf8_bytes(b).decode("utf-8")
    except UnicodeDecodeError:
        return None


def is_valid_utf8(b: Any) -> bool:
    """``is_valid_utf8(b)``: whether the bytes are well-formed UTF-8."""
    return _decoded(b) is not None


def make_valid_utf8(b: Any) -> str:
    """``make_valid_utf8(b)``: the text with each maximal ill-formed subpart replaced by
    U+FFFD (the Unicode "substitution of maximal subparts" practice)."""
    return _utf8_bytes(b).decode("utf-8", errors="replace")


def validate_utf8(b: Any) -> str:
    """``validate_utf8(b)``: the text; INVALID_UTF8_STRING (any mode) for ill-formed
    bytes, the message listing every byte of the value as ``\\xHH``."""
    text = _decoded(b)
    if text is None:
        listed = "".join(f"\\x{c:02X}" for c in _utf8_bytes(b))
        raise ValueError(
            f"[INVALID_UTF8_STRING] Invalid UTF8 byte sequence found in string: {listed}. "
            "SQLSTATE: 22029"
        )
    return text


def try_validate_utf8(b: Any) -> str | None:
    """``try_validate_utf8(b)``: the text, or NULL for ill-formed bytes."""
    return _decoded(b)


# --------------------------------------------------------------------------- mask


def _mask_char(arg: str | None, label: str) -> str | None:
    if arg is not None and len(arg) != 1:
        raise ValueError(
            f"[DATATYPE_MISMATCH.INPUT_SIZE_NOT_ONE] Cannot resolve mask due to data type "
            f"mismatch: Length of {label} should be 1. SQLSTATE: 42K09"
        )
    return arg


def mask(
    s: str,
    upper: str | None = "X",
    lower: str | None = "x",
    digit: str | None = "n",
    other: str | None = None,
) -> str:
    """``mask(s[, upper[, lower[, digit[, other]]]])``: each code point of ``s`` that is
    an upper-case letter (category Lu), a lower-case letter (Ll), a decimal digit (Nd)
    or anything else replaced by ``upper``, ``lower``, ``digit`` or ``other``; a NULL
    replacement keeps those code points. Each replacement is one code point (else
    DATATYPE_MISMATCH.INPUT_SIZE_NOT_ONE, an analysis error in Spark); a NULL ``s`` gives
    NULL (the caller's), NULL replacements do not."""
    by_category = {
        "Lu": _mask_char(upper, "upperChar"),
        "Ll": _mask_char(lower, "lowerChar"),
        "Nd": _mask_char(digit, "digitChar"),
    }
    other = _mask_char(other, "otherChar")
    out = []
    for ch in s:
        category = unicodedata.category(ch)
        repl = by_category[category] if category in by_category else other
        out.append(ch if repl is None else repl)
    return "".join(out)


# --------------------------------------------------------------------------- Jaro-Winkler


def _utf16(s: str) -> list[int]:
    data = s.encode("utf-16-le", "surrogatepass")
    return [int.from_bytes(data[i : i + 2], "little") for i in range(0, len(data), 2)]


def jaro_winkler_similarity(a: str, b: str) -> float:
    """``jaro_winkler_similarity(a, b)`` (new in 4.3): the Jaro-Winkler similarity of
    the UTF-16 code units of ``a`` and ``b`` (case-sensitive), a DOUBLE in [0, 1]: equal
    strings 1.0, no common character 0.0; matches within ``max(len)/2 - 1`` positions;
    transpositions halved as a real number; the Winkler boost (0.1 per character of a
    common prefix of up to 4) applied whatever the Jaro similarity."""
    if a == b:
        return 1.0
    x, y = _utf16(a), _utf16(b)
    longer, shorter = (x, y) if len(x) > len(y) else (y, x)
    window = max(len(longer) // 2 - 1, 0)
    taken = [False] * len(longer)
    matched_short: list[int] = []
    short_pos: list[int] = []
    for i, c in enumerate(shorter):
        for j in range(max(i - window, 0), min(i + window + 1, len(longer))):
            if not taken[j] and longer[j] == c:
                taken[j] = True
                matched_short.append(c)
                short_pos.append(i)
                break
    m = len(matched_short)
    if m == 0:
        return 0.0
    matched_long = [c for j, c in enumerate(longer) if taken[j]]
    half = sum(1 for p, q in zip(matched_short, matched_long) if p != q) / 2.0
    prefix = 0
    for p, q in zip(x[:4], y[:4]):
        if p != q:
            break
        prefix += 1
    jaro = (m / len(x) + m / len(y) + (m - half) / m) / 3.0
    return jaro + 0.1 * prefix * (1.0 - jaro)
