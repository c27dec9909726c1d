"""``to_char``/``to_varchar(value, format)`` over values of several rows.

Spark chooses the function by the value's type when it analyses the call: a DATE or a
TIMESTAMP is ``date_format`` with a datetime pattern, a BINARY is written as its format
names it (``'base64'``, ``'hex'``, ``'utf-8'``), a number is written with a number
format. The glue gets the value with its Python type, so it chooses the same way when it
computes (``planner.decompose`` hands it the session zone and Spark's base64 of a probe,
as ``date_format`` and ``base64`` get them).
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from functools import lru_cache
from typing import Any

from matchrec.sql_values import to_text

from .datetime_patterns import Element, PatternRefused, compile_pattern, format_local, local_time
from .format_functions import to_base64
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
    if isinstance(value, date):  # a datetime too: a DATE, TIMESTAMP or TIMESTAMP_NTZ
        return format_local(_datetime_pattern(fmt), local_time(value, zone))
    if isinstance(value, (bytes, bytearray)):
        write = _BINARY_FORMATS.get(fmt.lower())
        if write is None:
            raise ValueError(
                "[INVALID_PARAMETER_VALUE.BINARY_FORMAT] to_char of a BINARY expects one of "
                f"the binary formats 'base64', 'hex', 'utf-8', but got {fmt!r}"
            )
        return write(bytes(value), probe)
    raise TypeError(f"to_char of {to_text(value)} is not computed here (CAST it to a number)")
