"""Spark's Murmur3 x86_32 hash (``Murmur3_x86_32``), seeds and results as unsigned
32-bit values: what ``hash()`` computes and what Spark's string hash codes (the order of
``collect_set``) are made of. Nothing here imports Spark."""

from __future__ import annotations

import struct

_M32 = 0xFFFFFFFF


def _signed8(byte: int) -> int:
    return byte - 256 if byte > 127 else byte


def _rotl32(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & _M32


def _mix_k1(k1: int) -> int:
    k1 = (k1 * 0xCC9E2D51) & _M32
    return (_rotl32(k1, 15) * 0x1B873593) & _M32


def _mix_h1(h1: int, k1: int) -> int:
    return (_rotl32(h1 ^ k1, 13) * 5 + 0xE6546B64) & _M32


def _fmix32(h1: int, length: int) -> int:
    h1 ^= length
    h1 ^= h1 >> 16
    h1 = (h1 * 0x85EBCA6B) & _M32
    h1 ^= h1 >> 13
    h1 = (h1 * 0xC2B2AE35) & _M32
    return h1 ^ (h1 >> 16)


class Murmur3:
    """Spark's ``Murmur3_x86_32`` (seeds and results as unsigned 32-bit values)."""

    @staticmethod
    def int4(v: int, seed: int) -> int:
        return _fmix32(_mix_h1(seed, _mix_k1(v & _M32)), 4)

    @staticmethod
    def long8(v: int, seed: int) -> int:
        h1 = _mix_h1(seed, _mix_k1(v & _M32))
        h1 = _mix_h1(h1, _mix_k1((v >> 32) & _M32))
        return _fmix32(h1, 8)

    @staticmethod
    def data(b: bytes, seed: int) -> int:
        aligned = len(b) - len(b) % 4
        h1 = seed
        for (word,) in struct.iter_unpack("<I", b[:aligned]):
            h1 = _mix_h1(h1, _mix_k1(word))
        for byte in b[aligned:]:
            h1 = _mix_h1(h1, _mix_k1(_signed8(byte) & _M32))
        return _fmix32(h1, len(b))
