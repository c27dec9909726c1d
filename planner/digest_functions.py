"""Spark's digest and byte functions in Python, for glue over values of several rows.

``md5(B.card || A.card)`` or ``octet_length(concat(A.s, B.s))`` read two rows, so no Spark
column holds them and the glue (DEFINE's, the table function's MEASURES) computes them.
Spark takes a BINARY argument and casts a STRING to it as its UTF-8 bytes; the digests
are lower-case hexadecimal text, ``hex`` is upper-case. Each entry is compared with
Spark on generated values by ``tests/test_define_functions.py``.
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Callable
from typing import Any

from sqlglot import exp

from matchrec.sql_values import to_text, utf8_bytes


def _bytes(v: Any) -> bytes:
    """A BINARY argument: a string is its UTF-8 bytes, as Spark's implicit cast."""
    if isinstance(v, str):
        return utf8_bytes(v)
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v)
    raise TypeError(f"{v!r} is not a STRING or BINARY value")


def _digest(name: str) -> Callable[[Any], str]:
    return lambda v: hashlib.new(name, _bytes(v)).hexdigest()


#: sha2's bit lengths (0 is 256); any other is NULL in Spark
_SHA2 = {0: "sha256", 224: "sha224", 256: "sha256", 384: "sha384", 512: "sha512"}


def sha2(v: Any, bits: Any) -> str | None:
    name = _SHA2.get(bits) if isinstance(bits, int) and not isinstance(bits, bool) else None
    return None if name is None else hashlib.new(name, _bytes(v)).hexdigest()


def crc32(v: Any) -> int:
    return zlib.crc32(_bytes(v))


def hex_text(v: Any) -> str:
    """``hex``: a BIGINT as Java's ``Long.toHexString`` (two's complement for negatives),
    a STRING or BINARY as its bytes, upper case either way."""
    if isinstance(v, int) and not isinstance(v, bool):
        return format(v & 0xFFFF_FFFF_FFFF_FFFF, "X")
    return _bytes(v).hex().upper()


_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def unhex(v: Any) -> bytes | None:
    """``unhex``: the bytes of a hexadecimal string (either case; an odd length reads its
    first digit alone as the first byte); NULL if any character is no ASCII hex digit.
    A number is read as its digits, as Spark casts it to a string."""
    text = v if isinstance(v, str) else to_text(v)
    if any(c not in _HEX_DIGITS for c in text):
        return None
    return bytes.fromhex("0" + text if len(text) % 2 else text)


def octet_length(v: Any) -> int:
    return len(_bytes(v))


def bit_length(v: Any) -> int:
    return 8 * len(_bytes(v))


DIGEST_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "MD5": _digest("md5"),
    "SHA": _digest("sha1"),
    "SHA2": sha2,
    "CRC32": crc32,
    "HEX": hex_text,
    "OCTET_LENGTH": octet_length,
    "UNHEX": unhex,
    "BIT_LENGTH": bit_length,
}

DIGEST_NODES: dict[type, str] = {
    exp.MD5: "MD5",
    exp.SHA: "SHA",
    exp.SHA2: "SHA2",
    exp.Hex: "HEX",
    exp.Unhex: "UNHEX",
    exp.BitLength: "BIT_LENGTH",
}
