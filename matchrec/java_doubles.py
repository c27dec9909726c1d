"""Java 17's ``Double.toString``, the text Spark running on Java 17 gives a DOUBLE.

Spark writes a DOUBLE as text (``CAST(x AS STRING)``, ``concat``, ``get_json_object``'s
numbers) with Java's ``Double.toString``. Before Java 19 that method does not always print
the shortest digits that read back as the same double: it runs the old ``FloatingDecimal``
digit generation, which gives e.g. ``9.999999999999999E22`` for 1e23 and
``2.82879384806159008E17`` for an integer above 2^53. This module computes that digit
generation with Python's exact integers (the same stopping tests, and the same overflow
of its int and long fast variants), then lays the digits out as Java does: plain when the
decimal exponent is -3..7, else ``d.dddE<n>``. Java 19 and later print the shortest
digits (Python's ``repr``), which :mod:`matchrec.sql_values` uses where both agree.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable


def java_double_text(x: float) -> str:
    """Java 17's ``Double.toString(x)``: the digits of the old ``FloatingDecimal`` digit
    generation, e.g. ``9.999999999999999E22`` for 1e23 and ``2.82879384806159008E17`` for
    an integer above 2^53, laid out as Java does: plain when the decimal exponent is
    -3..7, else ``d.dddE<n>``."""
    return _java_text(x, _double_parts)


def java_float_text(x: float) -> str:
    """Java 17's ``Float.toString`` of the FLOAT ``x`` (held in a double): the same digit
    generation over the float's 24 significant bits (``2.81474977E14``, where the
    shortest digits are ``2.8147498E14``)."""
    return _java_text(x, _float_parts)


def _java_text(x: float, parts: Callable[[float], tuple[int, int, int]]) -> str:
    """``x`` laid out as Java writes it, its digits from ``parts`` of its bits."""
    if x != x:
        return "NaN"
    if x in (float("inf"), float("-inf")):
        return "Infinity" if x > 0 else "-Infinity"
    sign = "-" if math.copysign(1.0, x) < 0 else ""
    if x == 0:
        return sign + "0.0"
    digits, dec_exponent = _java17_digits(*parts(abs(x)))
    if 0 < dec_exponent <= 7:
        whole = digits[:dec_exponent].ljust(dec_exponent, "0")
        return f"{sign}{whole}.{digits[dec_exponent:] or '0'}"
    if -3 < dec_exponent <= 0:
        return f"{sign}0.{'0' * -dec_exponent}{digits}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{dec_exponent - 1}"


def _double_parts(x: float) -> tuple[int, int, int]:
    """The significand (its point after bit 52), the unbiased binary exponent and the
    count of significant bits of a positive finite double, as Java's converter reads it
    (a subnormal normalised)."""
    bits = struct.unpack("<Q", struct.pack("<d", x))[0]
    fract, bin_exp = bits & ((1 << 52) - 1), bits >> 52
    if bin_exp == 0:
        n_significant = fract.bit_length()
        shift = (64 - n_significant) - 11
        return fract << shift, 1 - shift - 1023, n_significant
    return fract | 1 << 52, bin_exp - 1023, 53


def _float_parts(x: float) -> tuple[int, int, int]:
    """:func:`_double_parts` of a FLOAT: its 23 fraction bits moved to a double's place
    (Java's converter hands a float to the same digit generation so)."""
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    fract, bin_exp = bits & ((1 << 23) - 1), bits >> 23
    if bin_exp == 0:
        n_significant = fract.bit_length()
        shift = (32 - n_significant) - 8
        fract, bin_exp = fract << shift, 1 - shift
    else:
        fract, n_significant = fract | 1 << 23, 24
    return fract << 29, bin_exp - 127, n_significant


# bit lengths of 5**i for the table-driven size estimates, and Java 17's count of
# insignificant low digits of an integer double of 2^(54+i)
_N5_BITS = [(5**i).bit_length() for i in range(27)]
_INSIGNIFICANT = (
    0,
    0,
    0,
    0,
    1,
    1,
    1,
    2,
    2,
    2,
    3,
    3,
    3,
    3,
    4,
    4,
    4,
    5,
    5,
    5,
    6,
    6,
    6,
    6,
    7,
    7,
    7,
    8,
    8,
    8,
    9,
    9,
    9,
    9,
    10,
    10,
    10,
    11,
    11,
    11,
    12,
    12,
    12,
    12,
    13,
    13,
    13,
    14,
    14,
    14,
    15,
    15,
    15,
    15,
    16,
    16,
    16,
    17,
    17,
    17,
    18,
    18,
    18,
    19,
)


def _wrap(value: int, bits: int) -> int:
    """``value`` as a Java int (32) or long (64) would hold it after overflow."""
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def _java17_digits(fract: int, bin_exp: int, n_significant: int) -> tuple[str, int]:
    """Digits and decimal exponent (value = 0.DIGITS * 10^exp) of the positive value
    ``fract`` * 2^(bin_exp - 52) with ``n_significant`` significant bits."""
    tail_zeros = (fract & -fract).bit_length() - 1
    n_fract = 53 - tail_zeros
    n_tiny = max(0, n_fract - bin_exp - 1)
    if -21 <= bin_exp <= 62 and n_tiny == 0:
        # an integer below 2^63: its exact digits, a few low ones rounded off
        value = fract << (bin_exp - 52) if bin_exp >= 52 else fract >> (52 - bin_exp)
        p2 = bin_exp - n_significant - 1
        drop = _INSIGNIFICANT[p2] if bin_exp > n_significant and 1 < p2 < 64 else 0
        if drop:
            value, residue = divmod(value, 10**drop)
            if residue >= 10**drop // 2:
                value += 1
        text = str(value)
        return text.rstrip("0"), len(text) + drop
    # the general case: B/S is x scaled to [1, 10), M half an ulp scaled alike
    mantissa = struct.unpack("<d", struct.pack("<Q", (1023 << 52) | (fract & ((1 << 52) - 1))))[0]
    estimate = (mantissa - 1.5) * 0.289529654 + 0.176091259 + bin_exp * 0.301029995663981
    dec_exp = math.floor(estimate)
    b5 = max(0, -dec_exp)
    b2 = b5 + n_tiny + bin_exp
    s5 = max(0, dec_exp)
    s2 = s5 + n_tiny
    m5, m2 = b5, b2 - n_significant
    fract >>= tail_zeros
    b2 -= n_fract - 1
    common = min(b2, s2)
    b2, s2, m2 = b2 - common, s2 - common, m2 - common
    if n_fract == 1:
        m2 -= 1
    if m2 < 0:
        b2, s2, m2 = b2 - m2, s2 - m2, 0
    b_bits = n_fract + b2 + (_N5_BITS[b5] if b5 < 27 else b5 * 3)
    ten_s_bits = s2 + 1 + (_N5_BITS[s5 + 1] if s5 + 1 < 27 else (s5 + 1) * 3)
    b = (fract * 5**b5) << b2
    s = 5**s5 << s2
    m = 5**m5 << m2
    tens = 10 * s
    # Java uses int, long or big-integer arithmetic by size; the first two may overflow
    width = 32 if b_bits < 32 and ten_s_bits < 32 else 64 if b_bits < 64 and ten_s_bits < 64 else 0
    out: list[int] = []

    def step() -> tuple[bool, bool]:
        nonlocal b, m
        q, b = divmod(b, s)
        b *= 10
        out.append(q)
        if width:
            m = _wrap(m * 10, width)
            if m <= 0 and len(out) > 1:
                return True, True  # Java's guard for an overflowed m
            return b < m, _wrap(b + m, width) > tens
        m *= 10
        return b < m, b + m >= tens

    low, high = step()
    if out[0] == 0 and not high:
        out.pop()
        dec_exp -= 1
    if dec_exp < -3 or dec_exp >= 8:
        low = high = False  # E notation needs two digits
    while not low and not high:
        low, high = step()
    dec_exponent = dec_exp + 1
    # below half way: keep; above: round up; a tie: round to even
    difference = 2 * b - tens
    if width:
        difference = _wrap(_wrap(2 * b, width) - tens, width)
    if high and (not low or difference > 0 or (difference == 0 and out[-1] % 2)):
        i = len(out) - 1
        while i > 0 and out[i] == 9:
            out[i] = 0
            i -= 1
        if out[i] == 9:
            out[0] = 1
            dec_exponent += 1
        else:
            out[i] += 1
    return "".join(map(str, out)), dec_exponent
