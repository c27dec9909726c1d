"""Spark's shift, bit and base-conversion functions in Python, for glue over several rows.

``shiftleft(B.n, A.k)``, ``B.mask >>> A.k``, ``bit_count(B.n ^ A.n)``, ``bin(B.n - A.n)``
or ``conv(concat(A.s, B.s), 16, 10)`` read two rows, so no Spark column holds them. Spark
computes them as Java does: a shift masks its count to the width of its left operand
(``n & 31`` for INT, ``n & 63`` for BIGINT) and wraps around, ``>>>`` shifts in zeros;
``bit_count`` and ``bin`` read the value as a 64-bit two's complement BIGINT; ``conv``
reads an unsigned 64-bit number (``NumberConverter``). The width of a shift's result is
Spark's type of it, which the runtime asks Spark for (``matchrec.integer_width``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlglot import exp

from matchrec.sql_values import utf8_bytes

T = exp.DataType.Type
_UNSIGNED = 2**64
_DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _integer(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"{v!r} is not an integer (CAST it inside the navigation)")
    return v


def _wrap(v: int, bits: int) -> int:
    v %= 1 << bits
    return v - (1 << bits) if v >= 1 << (bits - 1) else v


def shift_left(a: Any, n: Any, bits: int) -> int:
    """Java's ``a << n`` in ``bits`` (32 or 64): the count masked, the result wrapped."""
    return _wrap(_integer(a) << (_integer(n) & (bits - 1)), bits)


def shift_right(a: Any, n: Any, bits: int) -> int:
    """Java's ``a >> n``: the sign bit shifted in."""
    return _integer(a) >> (_integer(n) & (bits - 1))


def shift_right_unsigned(a: Any, n: Any, bits: int) -> int:
    """Java's ``a >>> n``: zeros shifted in."""
    return _wrap((_integer(a) % (1 << bits)) >> (_integer(n) & (bits - 1)), bits)


#: the shift functions by their entry's name
SHIFTS: dict[str, Callable[[Any, Any, int], int]] = {
    "SHIFTLEFT": shift_left,
    "SHIFTRIGHT": shift_right,
    "SHIFTRIGHTUNSIGNED": shift_right_unsigned,
}
_SHIFT_NODES: dict[type, str] = {
    exp.BitwiseLeftShift: "SHIFTLEFT",
    exp.BitwiseRightShift: "SHIFTRIGHT",
}


def shift_name(node: exp.Expression) -> str | None:
    """The :data:`SHIFTS` entry of ``node`` (``shiftleft(a, n)``, ``a << n``, ``a >>> n``...)."""
    if isinstance(node, exp.Anonymous):
        name = str(node.this).upper()
        return name if name in SHIFTS and len(node.expressions) == 2 else None
    return _SHIFT_NODES.get(type(node))


def shift_args(node: exp.Expression) -> list[exp.Expression]:
    if isinstance(node, exp.Anonymous):
        return list(node.expressions)
    return [node.this, node.expression]


def bit_count(v: Any) -> int:
    """Spark's ``bit_count``: the one bits of the value as a BIGINT (a BOOLEAN: 1 or 0)."""
    if isinstance(v, bool):
        return int(v)
    return bin(_integer(v) % _UNSIGNED).count("1")


def to_binary(v: Any) -> str:
    """Spark's ``bin``: Java's ``Long.toBinaryString`` (two's complement, 64 bits)."""
    return format(_integer(v) % _UNSIGNED, "b")


#: the bits of each integral type, which bound ``bit_get``'s position
_BIT_SIZES = {T.TINYINT: 8, T.SMALLINT: 16, T.INT: 32, T.BIGINT: 64}


def bit_get(typed: list[tuple[Any, exp.DataType]]) -> Any:
    """Spark's ``bit_get(x, pos)``/``getbit``: bit ``pos`` (0 the lowest) of the integral
    ``x`` in its type's two's complement, as a TINYINT 0 or 1. A position outside the
    type's bits is an error whatever the ANSI mode (as Spark), so the type is needed."""
    (x, kind), (pos, _) = typed
    if x is None or pos is None:
        return None
    bits = _BIT_SIZES.get(kind.this)
    if bits is None:
        raise TypeError(
            f"bit_get takes a TINYINT, SMALLINT, INT or BIGINT, not {kind.sql('spark')}"
        )
    if not 0 <= _integer(pos) < bits:
        raise ValueError(
            f"bit_get's position {pos} is outside [0, {bits}) for its {kind.sql('spark')} value "
            "(Spark's INVALID_PARAMETER_VALUE.BIT_POSITION_RANGE)"
        )
    return (_integer(x) >> pos) & 1


class ConvOverflow(ArithmeticError):
    """``conv`` of a number beyond 64 bits under ANSI mode (Spark's ARITHMETIC_OVERFLOW)."""


def _conv(ansi: bool) -> Callable[[Any, Any, Any], Any]:
    """Spark's ``conv(s, from, to)`` (``NumberConverter.convert``): ``s`` trimmed of
    spaces, read in base ``from`` up to its first non-digit as an unsigned 64-bit number
    (a leading ``-`` negates it); beyond 64 bits it is all ones, or an error under ANSI
    mode; written in base ``|to|``, signed when ``to`` is negative. A base outside 2..36
    or an empty string: NULL."""

    def conv(s: Any, from_base: Any, to_base: Any) -> Any:
        if isinstance(s, int) and not isinstance(s, bool):
            s = str(s)
        if not isinstance(s, str):
            raise TypeError(f"{s!r} is not a string (CAST it inside the navigation)")
        base, to = _integer(from_base), _integer(to_base)
        if not (2 <= base <= 36 and 2 <= abs(to) <= 36):
            return None
        data = utf8_bytes(s.strip(" "))
        if not data:
            return None
        negative = data[:1] == b"-"
        v = 0
        for byte in data[1 if negative else 0 :]:
            ch = chr(byte).upper()
            digit = _DIGITS.find(ch) if ch.isascii() and ch.isalnum() else -1
            if digit < 0 or digit >= base:
                break
            v = v * base + digit
            if v >= _UNSIGNED:
                if ansi:
                    raise ConvOverflow(
                        "Overflow in function conv() (Spark's ARITHMETIC_OVERFLOW under "
                        "spark.sql.ansi.enabled)"
                    )
                v = _UNSIGNED - 1
                break
        signed = v - _UNSIGNED if v >= 2**63 else v
        if negative and to > 0:
            signed = -1 if signed < 0 else -signed
        if to < 0 and signed < 0:
            signed, negative = -signed, True
        digits = _in_base(signed % _UNSIGNED, abs(to))
        return "-" + digits if negative and to < 0 else digits

    return conv


def _in_base(v: int, base: int) -> str:
    out = []
    while True:
        v, digit = divmod(v, base)
        out.append(_DIGITS[digit])
        if not v:
            return "".join(reversed(out))


conv = _conv(False)
conv_ansi = _conv(True)

BIT_NODES: dict[type, str] = {exp.BitwiseCount: "BIT_COUNT"}
