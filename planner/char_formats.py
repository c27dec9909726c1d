"""``to_char``/``to_varchar(value, format)`` and ``to_binary``/``try_to_binary(text,
format)`` over values of several rows.

Spark chooses the function by the value's type when it analyses the call: a DATE or a
TIMESTAMP is ``date_format`` with a datetime pattern, a BINARY is written as its format
names it (``'base64'``, ``'hex'``, ``'utf-8'``), a number is written with a number
format. The glue gets the value with its Python type, so it chooses the same way when it
computes (``planner.decompose`` hands it the session zone and Spark's base64 of a probe,
as ``date_format`` and ``base64`` get them). ``to_binary`` reads text as its format names
it (hexadecimal digits by default, ``'utf-8'``, ``'base64'``); text the format does not
read is Spark's CONVERSION_INVALID_INPUT, NULL for ``try_to_binary``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from decimal import Decimal
from functools import lru_cache
from typing import Any

from matchrec.far_dates import FarDate
from matchrec.far_timestamps import FarTimestamp
from matchrec.sql_values import to_text

from .datetime_patterns import Element, PatternRefused, compile_pattern, format_value
from .digest_functions import unhex
from .format_functions import from_base64, to_base64
from .number_formats import to_char


def _utf8(value: bytes, probe: Any) -> str:
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(
            "[MALFORMED_CHARACTER_CODING] Invalid value found when performing `decode` with "
            "utf-8 (Spark's error for bytes that are no UTF-8)"
        ) from None


#: Spark's binary formats of to_char (any case) -> the text of the bytes
_BINARY_FORMATS = {
    "base64": to_base64,
    "hex": lambda value, probe: value.hex().upper(),
    "utf-8": _utf8,
}


@lru_cache(maxsize=256)
def _datetime_pattern(fmt: str) -> list[Element]:
    try:
        return compile_pattern(fmt)
    except PatternRefused as err:
        raise TypeError(f"the datetime pattern {fmt!r} is not computed here: {err}") from None


def to_char_of(value: Any, zone: str, probe: Any, fmt: str) -> str:
    """``to_char(value, fmt)`` as Spark computes it for ``value``'s type; ``zone``: the
    session time zone; ``probe``: Spark's base64 of 58 bytes (whether it chunks lines)."""
    if isinstance(value, bool):
        raise TypeError("to_char of a BOOLEAN: Spark refuses it (CAST it to a number)")
    if isinstance(value, (int, Decimal)):
        return to_char(value, fmt)
    if isinstance(value, (date, FarDate, FarTimestamp)):  # DATE, TIMESTAMP, TIMESTAMP_NTZ
        return format_value(_datetime_pattern(fmt), value, zone)
    if isinstance(value, (bytes, bytearray)):
        write = _BINARY_FORMATS.get(fmt.lower())
        if write is None:
            raise ValueError(
                "[INVALID_PARAMETER_VALUE.BINARY_FORMAT] to_char of a BINARY expects one of "
                f"the binary formats 'base64', 'hex', 'utf-8', but got {fmt!r}"
            )
        return write(bytes(value), probe)
    raise TypeError(f"to_char of {to_text(value)} is not computed here (CAST it to a number)")


_BASE64 = re.compile(r"[A-Za-z0-9+/]*(={0,2})")
_SPACE = re.compile(r"\s")


def _base64_bytes(text: str) -> bytes | None:
    """The bytes of base64 ``text`` as Spark's ``to_binary`` reads them (white space
    skipped, the padding optional), None for text it refuses (a character outside the
    alphabet, padding inside or too long)."""
    text = _SPACE.sub("", text)
    found = _BASE64.fullmatch(text)
    if found is None or len(text) % 4 == 1 or (found.group(1) and len(text) % 4):
        return None
    return from_base64(text)


def _utf8_bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


#: to_binary's formats (any case) -> the bytes of the text, None where it reads none
_TEXT_FORMATS = {"hex": unhex, "utf-8": _utf8_bytes, "utf8": _utf8_bytes, "base64": _base64_bytes}


def binary_of(failing: bool) -> Callable[..., bytes | None]:
    """``to_binary(text[, fmt])`` (``failing``: text the format does not read is an
    error) or ``try_to_binary`` (NULL instead, also for a format Spark does not know)."""

    def to_binary(value: Any, fmt: str = "hex") -> bytes | None:
        text = value if isinstance(value, str) else to_text(value)  # Spark casts to STRING
        read = _TEXT_FORMATS.get(fmt.lower())
        if read is None:
            if not failing:
                return None
            raise ValueError(
                "[INVALID_PARAMETER_VALUE.BINARY_FORMAT] to_binary expects one of the "
                f"formats 'hex', 'utf-8', 'utf8', 'base64', but got {fmt!r}"
            )
        data = read(text)
        if data is None and failing:
            raise ValueError(
                f"[CONVERSION_INVALID_INPUT] The value {text!r} ({fmt.upper()!r}) cannot be "
                'converted to "BINARY" because it is malformed. Use `try_to_binary` to '
                "tolerate malformed input and return NULL instead."
            )
        return data

    return to_binary
