"""The order in which Spark's ``collect_set`` lists its values.

Spark keeps a ``collect_set``'s values in a Scala ``mutable.HashSet`` and lists them in
that set's iteration order: by bucket (the improved hash of the value masked by the table
size), then by hash inside a bucket (hashes compared as signed Ints), equal hashes in
the order added. The order is not a documented contract, but it is deterministic for
a given set of values added one row at a time (a window over the rows, or a match), and
users compare it: ``collect_set(x)[0]`` or ``collect_set(x) = array(...)``. This module
computes it from the values alone.

Values are hashed as the set hashes Spark's internal values: integers with Scala's ``##``
(a BIGINT that fits an ``Int`` as that ``Int``), doubles with Java's ``Double.hashCode``
once -0.0 and NaN are normalized (a FLOAT's value arrives here widened to a double, so
its order may differ from Spark's, which hashes the float), booleans as Java's
``Boolean.hashCode``, strings as Spark's ``UTF8String.hashCode`` (its Murmur3 of the UTF-8
bytes, seed 42), dates as their day number, timestamps as their microseconds. For a
value of another kind (decimals, arrays, structs, ...) :func:`spark_set_order` returns
``None``: the caller keeps its own order.
"""

from __future__ import annotations

import datetime as dt
import struct
from collections.abc import Callable
from typing import Any

from matchrec.murmur3 import Murmur3
from matchrec.sql_values import timestamp_micros, utf8_bytes

_MASK = 0xFFFFFFFF
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1
_EPOCH = dt.date(1970, 1, 1)
#: Scala's mutable.HashSet: initial table size and load factor
_INITIAL_TABLE, _LOAD_FACTOR = 16, 0.75


def _signed(h: int) -> int:
    h &= _MASK
    return h - (1 << 32) if h & 0x80000000 else h


def utf8_string_hash(text: str) -> int:
    """Spark's ``UTF8String.hashCode``: ``Murmur3_x86_32.hashUnsafeBytes`` of the UTF-8
    bytes with seed 42, whose tail bytes are mixed one by one as signed ints (Spark's
    own variant, not the reference Murmur3 tail)."""
    return _signed(Murmur3.data(utf8_bytes(text), 42))


def _long_hash(v: int) -> int:
    """Scala's ``##`` of a Long (an Int's when it fits one, else Java's Long.hashCode)."""
    if _INT_MIN <= v <= _INT_MAX:
        return v
    u = v & 0xFFFFFFFFFFFFFFFF
    return _signed(u ^ (u >> 32))


def _double_hash(d: float) -> int:
    """Java's ``Double.hashCode`` of a double as Spark's set holds it: -0.0 as 0.0 and
    every NaN as the canonical NaN (Spark normalizes both before they enter the set, and
    hashes them as Java does, not with Scala's cooperative ``##`` of numbers)."""
    bits = struct.unpack("<Q", struct.pack("<d", normalized_double(d)))[0]
    return _signed(bits ^ (bits >> 32))


def normalized_double(d: float) -> float:
    """The double Spark keeps in a set for ``d``: 0.0 for -0.0, NaN's canonical bits."""
    if d != d:
        return float("nan")
    return 0.0 if d == 0.0 else d


#: value kind -> Scala's ``##`` of Spark's internal value of that kind (bool before int:
#: a Python bool is an int; datetime before date: a datetime is a date)
_HASHES: tuple[tuple[type, Callable[[Any], int]], ...] = (
    (bool, lambda b: 1231 if b else 1237),
    (int, _long_hash),
    (float, _double_hash),
    (str, utf8_string_hash),
    (dt.datetime, lambda t: _long_hash(timestamp_micros(t))),
    (dt.date, lambda d: (d - _EPOCH).days),
)


def scala_hash(value: Any) -> int | None:
    """Scala's ``##`` of ``value`` as Spark holds it, or None for a kind not covered."""
    for kind, hasher in _HASHES:
        if isinstance(value, kind):
            return None if hasher is None else hasher(value)
    return None


def spark_set_order(values: list[Any], added_after: bool = False) -> list[Any] | None:
    """``values`` (distinct, non-NULL, in the order first added) in the order Spark's
    ``collect_set`` lists them, or None when a value's hash is not known here.
    ``added_after``: a repeated value was added after the last new one.

    Before each add (new value or not), the table doubles once the set would reach
    three quarters of it: its final size follows from the number of distinct values and
    whether an add came after the last of them."""
    hashes = []
    for v in values:
        h = scala_hash(v)
        if h is None:
            return None
        h &= _MASK
        hashes.append(_signed(h ^ (h >> 16)))  # Scala's improveHash, an Int
    table, threshold = _INITIAL_TABLE, int(_INITIAL_TABLE * _LOAD_FACTOR)
    for size in range(len(values) + added_after):
        if size + 1 >= threshold:
            table *= 2
            threshold = int(table * _LOAD_FACTOR)
    keyed = sorted(range(len(values)), key=lambda i: (hashes[i] & (table - 1), hashes[i], i))
    return [values[i] for i in keyed]


def _java_hash(value: Any) -> int | None:
    """Java's ``hashCode`` of Spark's internal value, where it does not depend on a type
    the Python value no longer tells (an INT and a BIGINT differ below zero, a FLOAT and
    a DOUBLE always): None there. Doubles as Spark keys them: -0.0 as 0.0, one NaN."""
    if isinstance(value, bool):
        return 1231 if value else 1237
    if isinstance(value, int):
        return value if 0 <= value <= _INT_MAX else None
    if isinstance(value, float):
        return _double_hash(value)
    if isinstance(value, str):
        return utf8_string_hash(value)
    if isinstance(value, dt.datetime):
        return None
    if isinstance(value, dt.date):
        return (value - _EPOCH).days
    return None


def _murmur3_int(h: int) -> int:
    """Guava's ``murmur3_32_fixed().hashInt``: Spark's OpenHashSet spreads hash codes."""
    return Murmur3.int4(h, 0)


def open_hash_map_order(keys: list[Any]) -> list[Any] | None:
    """``keys`` (distinct, non-NULL, in the order first added) in the order Spark's
    ``OpenHashMap`` lists them (``mode()`` takes the first most frequent key in it), or
    None when a key's hash is not known here.

    The map starts with 64 slots, probes ``pos + 1, + 2, ...`` from the spread hash, and
    doubles once it holds more than 70% of its slots, moving the keys in slot order."""
    spread: dict[int, int] = {}
    for i, k in enumerate(keys):
        h = _java_hash(k)
        if h is None:
            return None
        spread[i] = _murmur3_int(h)
    capacity = 64
    slots: dict[int, int] = {}  # slot -> key index

    def place(table: dict[int, int], i: int, mask: int) -> None:
        pos, delta = spread[i] & mask, 1
        while pos in table:
            pos = (pos + delta) & mask
            delta += 1
        table[pos] = i

    for i in range(len(keys)):
        place(slots, i, capacity - 1)
        if len(slots) > int(0.7 * capacity):
            capacity *= 2
            moved: dict[int, int] = {}
            for pos in sorted(slots):
                place(moved, slots[pos], capacity - 1)
            slots = moved
    return [keys[slots[pos]] for pos in sorted(slots)]
