"""Spark's ``hash`` and ``xxhash64`` in Python, for DEFINE glue over values of several rows.

``hash(A.id, B.id)`` or ``xxhash64(concat(A.s, B.s))`` read two rows, so no Spark column
holds them. Spark hashes each argument by its SQL type, the hash of one argument being
the seed of the next (the first seed is 42; a NULL leaves the seed as it is):

* BOOLEAN (1 or 0), TINYINT, SMALLINT, INT and DATE (its day number) as a 4-byte int;
* BIGINT, TIMESTAMP and TIMESTAMP_NTZ (microseconds since the epoch) as an 8-byte long;
* FLOAT and DOUBLE by their IEEE bits (-0.0 as 0.0, NaN as Java's canonical NaN);
* DECIMAL of precision up to 18 as the long of its unscaled value, a wider one as the
  bytes of Java's ``BigInteger.toByteArray`` of it;
* STRING by its UTF-8 bytes, BINARY by its bytes;
* ARRAY element by element, MAP key then value entry by entry, STRUCT field by field.

``hash`` is Murmur3 x86_32 (Spark's variant: the bytes after the last whole 4-byte word
are mixed one at a time as signed ints), an INT; ``xxhash64`` is XXH64, a BIGINT. The
type of each argument is Spark's, which the runtime asks for before the query runs (the
same probe as an integer operator's width, ``matchrec.integer_width``).
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable
from datetime import date, datetime, timezone
from decimal import Decimal
from typing import Any

from sqlglot import exp

from matchrec.murmur3 import Murmur3
from matchrec.sql_values import utf8_bytes

T = exp.DataType.Type
SEED = 42
_M32 = 0xFFFFFFFF
_M64 = 0xFFFFFFFFFFFFFFFF
_EPOCH_DAY = date(1970, 1, 1)
_EPOCH = datetime(1970, 1, 1)
_EPOCH_UTC = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _signed(v: int, bits: int) -> int:
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


# ------------------------------------------------------------------ XXH64

_P1 = 0x9E3779B185EBCA87
_P2 = 0xC2B2AE3D27D4EB4F
_P3 = 0x165667B19E3779F9
_P4 = 0x85EBCA77C2B2AE63
_P5 = 0x27D4EB2F165667C5


def _rotl64(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & _M64


def _round(acc: int, lane: int) -> int:
    acc = (acc + lane * _P2) & _M64
    return (_rotl64(acc, 31) * _P1) & _M64


def _merge(acc: int, v: int) -> int:
    acc ^= _round(0, v)
    return (acc * _P1 + _P4) & _M64


def _xxh64(b: bytes, seed: int) -> int:
    """XXH64 of ``b`` (unsigned 64-bit seed and result)."""
    n, i = len(b), 0
    if n >= 32:
        v1 = (seed + _P1 + _P2) & _M64
        v2 = (seed + _P2) & _M64
        v3 = seed
        v4 = (seed - _P1) & _M64
        while i + 32 <= n:
            a, c, d, e = struct.unpack_from("<4Q", b, i)
            v1, v2, v3, v4 = _round(v1, a), _round(v2, c), _round(v3, d), _round(v4, e)
            i += 32
        h = (_rotl64(v1, 1) + _rotl64(v2, 7) + _rotl64(v3, 12) + _rotl64(v4, 18)) & _M64
        for v in (v1, v2, v3, v4):
            h = _merge(h, v)
    else:
        h = (seed + _P5) & _M64
    h = (h + n) & _M64
    while i + 8 <= n:
        (k,) = struct.unpack_from("<Q", b, i)
        h ^= _round(0, k)
        h = (_rotl64(h, 27) * _P1 + _P4) & _M64
        i += 8
    if i + 4 <= n:
        (k,) = struct.unpack_from("<I", b, i)
        h ^= (k * _P1) & _M64
        h = (_rotl64(h, 23) * _P2 + _P3) & _M64
        i += 4
    while i < n:
        h ^= (b[i] * _P5) & _M64
        h = (_rotl64(h, 11) * _P1) & _M64
        i += 1
    h ^= h >> 33
    h = (h * _P2) & _M64
    h ^= h >> 29
    h = (h * _P3) & _M64
    return h ^ (h >> 32)


class XxHash64:
    """Spark's ``XXH64`` (seeds and results as unsigned 64-bit values)."""

    @staticmethod
    def int4(v: int, seed: int) -> int:
        return _xxh64(struct.pack("<I", v & _M32), seed)

    @staticmethod
    def long8(v: int, seed: int) -> int:
        return _xxh64(struct.pack("<Q", v & _M64), seed)

    @staticmethod
    def data(b: bytes, seed: int) -> int:
        return _xxh64(b, seed)


# ------------------------------------------------------------------ Spark's rules by type

_INT4 = {T.BOOLEAN, T.TINYINT, T.SMALLINT, T.INT}
_LONG8 = {T.BIGINT}
_TIMESTAMPS = {T.TIMESTAMP, T.TIMESTAMPTZ, T.TIMESTAMPLTZ, T.TIMESTAMPNTZ}


def timestamp_micros(v: datetime) -> int:
    """Microseconds since the epoch Spark holds a TIMESTAMP in (a TIMESTAMP_NTZ, naive
    here, its wall clock read as UTC)."""
    if v.tzinfo is None:  # a TIMESTAMP_NTZ: its wall clock read as UTC, as Spark keeps it
        delta = v - _EPOCH
    else:
        delta = v - _EPOCH_UTC
    return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds


def _unscaled_bytes(n: int) -> bytes:
    """Java's ``BigInteger.toByteArray``: the shortest two's complement, big-endian."""
    bits = n.bit_length() if n >= 0 else (~n).bit_length()
    return n.to_bytes(bits // 8 + 1, "big", signed=True)


def _hash_value(h: Any, v: Any, t: exp.DataType, seed: int) -> int:
    """The hash of value ``v`` of Spark type ``t`` with ``seed`` (a NULL: the seed)."""
    if v is None:
        return seed
    kind = t.this
    if kind in _INT4:
        return h.int4(int(v), seed)
    if kind in _LONG8:
        return h.long8(v, seed)
    if kind == T.DATE:
        return h.int4((v - _EPOCH_DAY).days, seed)
    if kind in _TIMESTAMPS:
        return h.long8(timestamp_micros(v), seed)
    if kind == T.FLOAT:
        bits = 0x7FC00000 if v != v else struct.unpack("<I", struct.pack("<f", v + 0.0))[0]
        return h.int4(bits, seed)
    if kind == T.DOUBLE:
        bits = 0x7FF8000000000000 if v != v else struct.unpack("<Q", struct.pack("<d", v + 0.0))[0]
        return h.long8(bits, seed)
    if kind == T.DECIMAL:
        precision, scale = _decimal_shape(t)
        unscaled = int(Decimal(v).scaleb(scale).to_integral_value())
        if precision <= 18:
            return h.long8(unscaled, seed)
        return h.data(_unscaled_bytes(unscaled), seed)
    if kind in (T.VARCHAR, T.CHAR, T.TEXT) and isinstance(v, str):
        return h.data(utf8_bytes(v), seed)
    if kind in (T.BINARY, T.VARBINARY) and isinstance(v, (bytes, bytearray)):
        return h.data(bytes(v), seed)
    if kind == T.ARRAY and t.expressions:
        for item in v:
            seed = _hash_value(h, item, t.expressions[0], seed)
        return seed
    if kind == T.MAP and len(t.expressions) == 2:
        for key, value in v.items():
            seed = _hash_value(h, key, t.expressions[0], seed)
            seed = _hash_value(h, value, t.expressions[1], seed)
        return seed
    if kind == T.STRUCT:
        values = list(v.values()) if isinstance(v, dict) else list(v)
        for field, value in zip(t.expressions, values):
            seed = _hash_value(h, value, field.args["kind"], seed)
        return seed
    raise TypeError(f"{t.sql('spark')} values are not hashed here (CAST it inside the navigation)")


def _decimal_shape(t: exp.DataType) -> tuple[int, int]:
    params = [int(p.this.this) for p in t.expressions]
    precision = params[0] if params else 10
    return precision, params[1] if len(params) > 1 else 0


def _hasher(h: Any, bits: int) -> Callable[[list[tuple[Any, exp.DataType]]], int]:
    def hash_all(typed: list[tuple[Any, exp.DataType]]) -> int:
        seed = SEED
        for value, t in typed:
            seed = _hash_value(h, value, t, seed)
        return _signed(seed, bits)

    return hash_all


#: name -> hash of the (value, Spark type) of each argument
HASHES: dict[str, Callable[[list[tuple[Any, exp.DataType]]], int]] = {
    "HASH": _hasher(Murmur3, 32),
    "XXHASH64": _hasher(XxHash64, 64),
}


def spark_type(name: str) -> exp.DataType:
    """A Spark type from its ``simpleString``; a string under a collation other than
    UTF8_BINARY is hashed by its collation key in Spark, not here."""
    if name == "void":  # a NULL literal's: Spark hashes nothing for a NULL
        return exp.DataType(this=exp.DataType.Type.NULL)
    if "collate" in name.lower() and "utf8_binary" not in name.lower():
        raise TypeError(f"{name} values are not hashed here (Spark hashes a collation key)")
    try:
        return exp.DataType.build(re.sub(r"(?i)\s+collate\s+\w+", "", name), dialect="spark")
    except Exception:  # noqa: BLE001 - a type sqlglot does not read
        raise TypeError(f"{name} values are not hashed here") from None


def hash_name(node: exp.Expression) -> str | None:
    """The :data:`HASHES` entry of call ``node`` (``hash(...)``, ``xxhash64(...)``)."""
    if isinstance(node, exp.Anonymous) and node.expressions:
        name = str(node.this).upper()
        return name if name in HASHES else None
    return None
