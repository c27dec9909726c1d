"""Java's ``StrictMath`` (fdlibm 5.3) in pure Python, bit for bit.

Spark computes ``ln``/``log``, ``log2``, ``log10``, ``log1p``, ``log(base, x)``, ``exp``,
``expm1`` and ``power`` with ``java.lang.StrictMath``, and ``cbrt``, ``atan2``, ``sinh``,
``cosh``, ``tanh``, ``hypot``, ``asin``, ``acos`` and ``atan`` with ``java.lang.Math``
methods that on Java 17 only delegate to ``StrictMath``; ``asinh``, ``acosh`` and
``atanh`` are formulas over ``StrictMath.log``/``log1p`` and the correctly rounded
``Math.sqrt``. Python's ``math`` module calls the C library instead, which rounds some
results differently in the last bit (``ln(3)``: Spark 1.0986122886681096, glibc ...098).

StrictMath is specified as the fdlibm algorithms evaluated in IEEE double arithmetic with
round-to-nearest, and Python floats are exactly that, so evaluating the same argument
reductions, polynomial coefficients and operation order here gives Spark's bits. Every
function takes and returns a float, never raises, and answers as Java does for NaN,
signed zeros, infinities and subnormals (NaN payloads are not reproduced). The NULLs of
Spark's logarithms (at and below their asymptote) are the caller's business.

Not here: ``sin``, ``cos``, ``tan`` (also ``cot``, ``sec``, ``csc``), whose
``java.lang.Math`` versions are HotSpot intrinsics with their own algorithms.
"""

from __future__ import annotations

import math
import struct

__all__ = [
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "cbrt",
    "cosh",
    "exp",
    "expm1",
    "hypot",
    "log",
    "log10",
    "log1p",
    "log2",
    "log_base",
    "pow",
    "sinh",
    "tanh",
]

_DOUBLE = struct.Struct("<d")
_BITS = struct.Struct("<Q")
_INF = math.inf
_NAN = math.nan
_TWO54 = 18014398509481984.0
_HUGE = 1.0e300
_TINY = 1.0e-300


def _f(text: str) -> float:
    return float.fromhex(text)


def _bits(x: float) -> int:
    return _BITS.unpack(_DOUBLE.pack(x))[0]


def _hi(x: float) -> int:
    """The high 32 bits as Java's signed int."""
    h = _bits(x) >> 32
    return h - 0x1_0000_0000 if h & 0x8000_0000 else h


def _lo(x: float) -> int:
    """The low 32 bits, unsigned."""
    return _bits(x) & 0xFFFF_FFFF


def _words(hi: int, lo: int) -> float:
    return _DOUBLE.unpack(_BITS.pack(((hi & 0xFFFF_FFFF) << 32) | (lo & 0xFFFF_FFFF)))[0]


def _with_hi(x: float, hi: int) -> float:
    return _words(hi, _lo(x))


def _with_lo(x: float, lo: int) -> float:
    return _words(_hi(x), lo)


def _int32(value: int) -> int:
    """A Java int literal written in hex (0xbfd2bec3 is negative in Java)."""
    return value - 0x1_0000_0000 if value & 0x8000_0000 else value


def _divide(a: float, b: float) -> float:
    """Java's a / b: division by zero gives an infinity or NaN."""
    if b == 0.0:
        if a != a or a == 0.0:
            return _NAN
        return math.copysign(_INF, a) * math.copysign(1.0, b)
    return a / b


def _sqrt(x: float) -> float:
    """Java's Math.sqrt (correctly rounded; NaN below zero)."""
    return _NAN if x < 0.0 else math.sqrt(x)


# ---------------------------------------------------------------------------- logarithms

_LN2_HI = _f("0x1.62e42feep-1")
_LN2_LO = _f("0x1.a39ef35793c76p-33")
_LG1 = _f("0x1.5555555555593p-1")
_LG2 = _f("0x1.999999997fa04p-2")
_LG3 = _f("0x1.2492494229359p-2")
_LG4 = _f("0x1.c71c51d8e78afp-3")
_LG5 = _f("0x1.7466496cb03dep-3")
_LG6 = _f("0x1.39a09d078c69fp-3")
_LG7 = _f("0x1.2f112df3e5244p-3")


def _log_argument(x: float) -> tuple[float, int, int] | float:
    """A logarithm's answer where it is special (-Infinity at zero, NaN below zero, the
    argument itself for Infinity and NaN), else the argument (a subnormal scaled by 2**54),
    its high word and the exponent that scaling took away."""
    hx = _hi(x)
    k = 0
    if hx < 0x0010_0000:
        if (hx & 0x7FFF_FFFF) | _lo(x) == 0:
            return -_INF
        if hx < 0:
            return _NAN
        k -= 54
        x *= _TWO54
        hx = _hi(x)
    if hx >= 0x7FF0_0000:
        return x + x
    return x, hx, k


def log(x: float) -> float:
    """StrictMath.log: the natural logarithm (Spark's ``ln`` and ``log(x)``)."""
    reduced = _log_argument(x)
    if isinstance(reduced, float):
        return reduced
    x, hx, k = reduced
    k += (hx >> 20) - 1023
    hx &= 0x000F_FFFF
    i = (hx + 0x9_5F64) & 0x10_0000
    x = _with_hi(x, hx | (i ^ 0x3FF0_0000))  # x or x/2 into [sqrt(2)/2, sqrt(2))
    k += i >> 20
    f = x - 1.0
    dk = float(k)
    if (0x000F_FFFF & (2 + hx)) < 3:  # |f| < 2**-20
        if f == 0.0:
            return 0.0 if k == 0 else dk * _LN2_HI + dk * _LN2_LO
        r = f * f * (0.5 - 0.33333333333333333 * f)
        return f - r if k == 0 else dk * _LN2_HI - ((r - dk * _LN2_LO) - f)
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    t1 = w * (_LG2 + w * (_LG4 + w * _LG6))
    t2 = z * (_LG1 + w * (_LG3 + w * (_LG5 + w * _LG7)))
    r = t2 + t1
    if (hx - 0x6_147A) | (0x6B851 - hx) > 0:
        hfsq = 0.5 * f * f
        if k == 0:
            return f - (hfsq - s * (hfsq + r))
        return dk * _LN2_HI - ((hfsq - (s * (hfsq + r) + dk * _LN2_LO)) - f)
    if k == 0:
        return f - s * (f - r)
    return dk * _LN2_HI - ((s * (f - r) - dk * _LN2_LO) - f)


_IVLN10 = _f("0x1.bcb7b1526e50ep-2")
_LOG10_2HI = _f("0x1.34413509f6p-2")
_LOG10_2LO = _f("0x1.9fef311f12b36p-42")


def log10(x: float) -> float:
    """StrictMath.log10."""
    reduced = _log_argument(x)
    if isinstance(reduced, float):
        return reduced
    x, hx, k = reduced
    k += (hx >> 20) - 1023
    i = 1 if k < 0 else 0
    hx = (hx & 0x000F_FFFF) | ((0x3FF - i) << 20)
    y = float(k + i)
    x = _with_hi(x, hx)
    z = y * _LOG10_2LO + _IVLN10 * log(x)
    return z + y * _LOG10_2HI


def log1p(x: float) -> float:
    """StrictMath.log1p: log(1 + x), accurate near zero."""
    hx = _hi(x)
    ax = hx & 0x7FFF_FFFF
    k = 1
    f = c = 0.0
    hu = 0
    if hx < 0x3FDA_827A:  # x < 0.41422
        if ax >= 0x3FF0_0000:  # x <= -1
            return -_INF if x == -1.0 else _NAN
        if ax < 0x3E20_0000:  # |x| < 2**-29
            if ax < 0x3C90_0000:
                return x
            return x - x * x * 0.5
        if hx > 0 or hx <= _int32(0xBFD2_BEC3):  # -0.2929 < x < 0.41422
            k = 0
            f = x
            hu = 1
    if hx >= 0x7FF0_0000:
        return x + x
    if k != 0:
        if hx < 0x4340_0000:
            u = 1.0 + x
            hu = _hi(u)
            k = (hu >> 20) - 1023
            c = 1.0 - (u - x) if k > 0 else x - (u - 1.0)  # the rounding error of 1 + x
            c /= u
        else:
            u = x
            hu = _hi(u)
            k = (hu >> 20) - 1023
            c = 0.0
        hu &= 0x000F_FFFF
        if hu < 0x6_A09E:
            u = _with_hi(u, hu | 0x3FF0_0000)
        else:
            k += 1
            u = _with_hi(u, hu | 0x3FE0_0000)
            hu = (0x0010_0000 - hu) >> 2
        f = u - 1.0
    hfsq = 0.5 * f * f
    if hu == 0:  # |f| < 2**-20
        if f == 0.0:
            if k == 0:
                return 0.0
            c += k * _LN2_LO
            return k * _LN2_HI + c
        r = hfsq * (1.0 - 0.66666666666666666 * f)
        if k == 0:
            return f - r
        return k * _LN2_HI - ((r - (k * _LN2_LO + c)) - f)
    s = f / (2.0 + f)
    z = s * s
    r = z * (_LG1 + z * (_LG2 + z * (_LG3 + z * (_LG4 + z * (_LG5 + z * (_LG6 + z * _LG7))))))
    if k == 0:
        return f - (hfsq - s * (hfsq + r))
    return k * _LN2_HI - ((hfsq - (s * (hfsq + r) + (k * _LN2_LO + c))) - f)


_LOG_2 = log(2.0)


def log2(x: float) -> float:
    """Spark's ``log2``: ``StrictMath.log(x) / StrictMath.log(2)`` (NULL for x <= 0 is
    the caller's)."""
    return log(x) / _LOG_2


def log_base(base: float, x: float) -> float:
    """Spark's ``log(base, x)``: ``StrictMath.log(x) / StrictMath.log(base)`` (NULL when
    either is <= 0 is the caller's; base 1 divides by zero as Java does)."""
    return _divide(log(x), log(base))


# ------------------------------------------------------------------------- exponentials

_O_THRESHOLD = _f("0x1.62e42fefa39efp9")
_U_THRESHOLD = -_f("0x1.74910d52d3051p9")
_INVLN2 = _f("0x1.71547652b82fep0")
_TWOM1000 = _f("0x1.0p-1000")
_P1 = _f("0x1.555555555553ep-3")
_P2 = -_f("0x1.6c16c16bebd93p-9")
_P3 = _f("0x1.1566aaf25de2cp-14")
_P4 = -_f("0x1.bbd41c5d26bf1p-20")
_P5 = _f("0x1.6376972bea4d0p-25")


def exp(x: float) -> float:
    """StrictMath.exp."""
    hx = _hi(x)
    xsb = 1 if hx < 0 else 0
    hx &= 0x7FFF_FFFF
    if hx >= 0x4086_2E42:  # |x| >= 709.78...
        if hx >= 0x7FF0_0000:
            if (hx & 0xF_FFFF) | _lo(x):
                return x + x
            return x if xsb == 0 else 0.0
        if x > _O_THRESHOLD:
            return _INF
        if x < _U_THRESHOLD:
            return 0.0
    k = 0
    hi = lo = 0.0
    if hx > 0x3FD6_2E42:  # |x| > ln2/2: x = k*ln2 + (hi - lo)
        if hx < 0x3FF0_A2B2:  # |x| < 1.5 ln2
            hi = x - _LN2_HI * (1 - 2 * xsb)
            lo = _LN2_LO if xsb == 0 else -_LN2_LO
            k = 1 - xsb - xsb
        else:
            k = int(_INVLN2 * x + 0.5 * (1 - 2 * xsb))
            t = float(k)
            hi = x - t * _LN2_HI
            lo = t * _LN2_LO
        x = hi - lo
    elif hx < 0x3E30_0000:  # |x| < 2**-28
        return 1.0 + x
    t = x * x
    c = x - t * (_P1 + t * (_P2 + t * (_P3 + t * (_P4 + t * _P5))))
    if k == 0:
        return 1.0 - ((x * c) / (c - 2.0) - x)
    y = 1.0 - ((lo - (x * c) / (2.0 - c)) - hi)
    if k >= -1021:
        return _with_hi(y, _hi(y) + (k << 20))
    return _with_hi(y, _hi(y) + ((k + 1000) << 20)) * _TWOM1000


_Q1 = -_f("0x1.11111111110f4p-5")
_Q2 = _f("0x1.a01a019fe5585p-10")
_Q3 = -_f("0x1.4ce199eaadbb7p-14")
_Q4 = _f("0x1.0cfca86e65239p-18")
_Q5 = -_f("0x1.afdb76e09c32dp-23")


def expm1(x: float) -> float:
    """StrictMath.expm1: exp(x) - 1, accurate near zero."""
    hx = _hi(x)
    negative = hx < 0
    hx &= 0x7FFF_FFFF
    if hx >= 0x4043_687A:  # |x| >= 56*ln2
        if hx >= 0x4086_2E42:
            if hx >= 0x7FF0_0000:
                if (hx & 0xF_FFFF) | _lo(x):
                    return x + x
                return -1.0 if negative else x
            if x > _O_THRESHOLD:
                return _INF
        if negative:
            return _TINY - 1.0
    c = 0.0
    if hx > 0x3FD6_2E42:  # |x| > ln2/2
        if hx < 0x3FF0_A2B2:
            if not negative:
                hi, lo, k = x - _LN2_HI, _LN2_LO, 1
            else:
                hi, lo, k = x + _LN2_HI, -_LN2_LO, -1
        else:
            k = int(_INVLN2 * x + (-0.5 if negative else 0.5))
            t = float(k)
            hi = x - t * _LN2_HI
            lo = t * _LN2_LO
        x = hi - lo
        c = (hi - x) - lo
    elif hx < 0x3C90_0000:  # |x| < 2**-54
        t = _HUGE + x
        return x - (t - (_HUGE + x))
    else:
        k = 0
    hfx = 0.5 * x
    hxs = x * hfx
    r1 = 1.0 + hxs * (_Q1 + hxs * (_Q2 + hxs * (_Q3 + hxs * (_Q4 + hxs * _Q5))))
    t = 3.0 - r1 * hfx
    e = hxs * ((r1 - t) / (6.0 - x * t))
    if k == 0:
        return x - (x * e - hxs)
    e = x * (e - c) - c
    e -= hxs
    if k == -1:
        return 0.5 * (x - e) - 0.5
    if k == 1:
        if x < -0.25:
            return -2.0 * (e - (x + 0.5))
        return 1.0 + 2.0 * (x - e)
    if k <= -2 or k > 56:
        y = 1.0 - (e - x)
        y = _with_hi(y, _hi(y) + (k << 20))
        return y - 1.0
    if k < 20:
        t = _words(0x3FF0_0000 - (0x20_0000 >> k), 0)  # 1 - 2**-k
        y = t - (e - x)
    else:
        t = _words((0x3FF - k) << 20, 0)  # 2**-k
        y = x - (e + t)
        y += 1.0
    return _with_hi(y, _hi(y) + (k << 20))


# ------------------------------------------------------------------------------- power

_INV_LN2_H = _f("0x1.715476p0")
_INV_LN2_L = _f("0x1.4ae0bf85ddf44p-26")
_CP = _f("0x1.ec709dc3a03fdp-1")
_CP_H = _f("0x1.ec709ep-1")
_CP_L = -_f("0x1.e2fe0145b01f5p-28")
_DP_H1 = _f("0x1.2b8034p-1")
_DP_L1 = _f("0x1.cfdeb43cfd006p-27")
_L1 = _f("0x1.3333333333303p-1")
_L2 = _f("0x1.b6db6db6fabffp-2")
_L3 = _f("0x1.55555518f264dp-2")
_L4 = _f("0x1.17460a91d4101p-2")
_L5 = _f("0x1.d864a93c9db65p-3")
_L6 = _f("0x1.a7e284a454eefp-3")
_LG2_F = _f("0x1.62e42fefa39efp-1")
_LG2_H = _f("0x1.62e43p-1")
_LG2_L = -_f("0x1.05c610ca86c39p-29")
_OVT = 8.0085662595372944372e-17
_MAX = 1.7976931348623157e308


def pow(x: float, y: float) -> float:
    """StrictMath.pow: x raised to y (Spark's ``power``/``pow``)."""
    if y == 0.0:
        return 1.0
    if x != x or y != y:
        return x + y
    y_abs = abs(y)
    x_abs = abs(x)
    if y == 2.0:
        return x * x
    if y == 0.5:
        if x >= -_MAX:
            return _sqrt(x + 0.0)
    elif y_abs == 1.0:
        return x if y == 1.0 else _divide(1.0, x)
    elif y_abs == _INF:
        if x_abs == 1.0:
            return _NAN
        if x_abs > 1.0:
            return y if y >= 0 else 0.0
        return -y if y < 0 else 0.0

    hx = _hi(x)
    ix = hx & 0x7FFF_FFFF
    y_is_int = 0  # for x < 0: 0 y is not an integer, 1 odd, 2 even
    if hx < 0:
        if y_abs >= 9007199254740992.0:
            y_is_int = 2
        elif y_abs >= 1.0:
            whole = int(y_abs)
            if float(whole) == y_abs:
                y_is_int = 2 - (whole & 1)

    if x_abs == 0.0 or x_abs == _INF or x_abs == 1.0:
        z = x_abs
        if y < 0.0:
            z = _divide(1.0, z)
        if hx < 0:
            if (ix - 0x3FF0_0000) | y_is_int == 0:
                return _NAN  # (-1) ** non-integer
            if y_is_int == 1:
                z = -1.0 * z
        return z

    n = (hx >> 31) + 1
    if n | y_is_int == 0:
        return _NAN  # negative ** non-integer
    s = -1.0 if n | (y_is_int - 1) == 0 else 1.0

    if y_abs > _f("0x1.00000ffffffffp31"):  # |y| > ~2**31
        if x_abs < _f("0x1.fffff00000000p-1"):
            return s * _INF if y < 0.0 else s * 0.0
        if x_abs > _f("0x1.00000ffffffffp0"):
            return s * _INF if y > 0.0 else s * 0.0
        t = x_abs - 1.0
        w = (t * t) * (0.5 - t * (0.3333333333333333333333 - t * 0.25))
        u = _INV_LN2_H * t
        v = t * _INV_LN2_L - w * _INVLN2
        t1 = _with_lo(u + v, 0)
        t2 = v - (t1 - u)
    else:
        n = 0
        if ix < 0x0010_0000:  # subnormal x
            x_abs *= 9007199254740992.0
            n -= 53
            ix = _hi(x_abs)
        n += (ix >> 20) - 0x3FF
        j = ix & 0x000F_FFFF
        ix = j | 0x3FF0_0000
        if j <= 0x3988E:
            k = 0
        elif j < 0xBB67A:
            k = 1
        else:
            k = 0
            n += 1
            ix -= 0x0010_0000
        x_abs = _with_hi(x_abs, ix)

        # log2(x_abs) in two pieces t1 + t2, from ss = (x - bp) / (x + bp)
        bp = 1.0 + 0.5 * k
        u = x_abs - bp
        v = 1.0 / (x_abs + bp)
        ss = u * v
        s_h = _with_lo(ss, 0)
        t_h = _words(((ix >> 1) | 0x2000_0000) + 0x0008_0000 + (k << 18), 0)
        t_l = x_abs - (t_h - bp)
        s_l = v * ((u - s_h * t_h) - s_h * t_l)
        s2 = ss * ss
        r = s2 * s2 * (_L1 + s2 * (_L2 + s2 * (_L3 + s2 * (_L4 + s2 * (_L5 + s2 * _L6)))))
        r += s_l * (s_h + ss)
        s2 = s_h * s_h
        t_h = _with_lo(3.0 + s2 + r, 0)
        t_l = r - ((t_h - 3.0) - s2)
        u = s_h * t_h
        v = s_l * t_h + t_l * ss
        p_h = _with_lo(u + v, 0)
        p_l = v - (p_h - u)
        z_h = _CP_H * p_h
        z_l = _CP_L * p_h + p_l * _CP + _DP_L1 * k
        t = float(n)
        t1 = _with_lo(((z_h + z_l) + _DP_H1 * k) + t, 0)
        t2 = z_l - (((t1 - t) - _DP_H1 * k) - z_h)

    # y * log2(x) = p_h + p_l, y split as y1 + (y - y1)
    y1 = _with_lo(y, 0)
    p_l = (y - y1) * t1 + y * t2
    p_h = y1 * t1
    z = p_l + p_h
    j = _hi(z)
    i = _lo(z)
    if j >= 0x4090_0000:  # z >= 1024
        if (j - 0x4090_0000) | i != 0 or p_l + _OVT > z - p_h:
            return s * _INF
    elif (j & 0x7FFF_FFFF) >= 0x4090_CC00:  # z <= -1075
        if (j - _int32(0xC090_CC00)) | i != 0 or p_l <= z - p_h:
            return s * 0.0

    # 2 ** (p_h + p_l) = 2**n * exp(r)
    i = j & 0x7FFF_FFFF
    k = (i >> 20) - 0x3FF
    n = 0
    if i > 0x3FE0_0000:  # |z| > 0.5: n = [z + 0.5]
        n = j + (0x0010_0000 >> (k + 1))
        k = ((n & 0x7FFF_FFFF) >> 20) - 0x3FF
        t = _words(n & ~(0x000F_FFFF >> k), 0)
        n = ((n & 0x000F_FFFF) | 0x0010_0000) >> (20 - k)
        if j < 0:
            n = -n
        p_h -= t
    t = _with_lo(p_l + p_h, 0)
    u = t * _LG2_H
    v = (p_l - (t - p_h)) * _LG2_F + t * _LG2_L
    z = u + v
    w = v - (z - u)
    t = z * z
    t1 = z - t * (_P1 + t * (_P2 + t * (_P3 + t * (_P4 + t * _P5))))
    r = (z * t1) / (t1 - 2.0) - (w + z * w)
    z = 1.0 - (r - z)
    j = _hi(z) + (n << 20)
    if (j >> 20) <= 0:
        z = math.ldexp(z, n)  # subnormal result, rounded once like Math.scalb
    else:
        z = _with_hi(z, j)
    return s * z


# ---------------------------------------------------------------- cube root, hypotenuse

_B1 = 715094163
_B2 = 696219795
_CB_C = _f("0x1.15f15f15f15f1p-1")
_CB_D = -_f("0x1.691de2532c834p-1")
_CB_E = _f("0x1.6a0ea0ea0ea0fp0")
_CB_F = _f("0x1.9b6db6db6db6ep0")
_CB_G = _f("0x1.6db6db6db6db7p-2")


def cbrt(x: float) -> float:
    """StrictMath.cbrt (what Java 17's Math.cbrt returns)."""
    if x == 0.0 or not math.isfinite(x):
        return x
    sign = -1.0 if x < 0.0 else 1.0
    x = abs(x)
    if x < _f("0x1.0p-1022"):
        t = _TWO54 * x
        t = _with_hi(t, _hi(t) // 3 + _B2)
    else:
        t = _words(_hi(x) // 3 + _B1, 0)
    r = t * t / x
    s = _CB_C + r * t
    t *= _CB_G + _CB_F / (s + _CB_E + _CB_D / s)
    t = _with_lo(t, 0)
    t = _with_hi(t, _hi(t) + 1)  # 20 bits, rounded up
    s = t * t
    r = x / s
    w = t + t
    r = (r - t) / (w + r)
    t = t + t * r
    return sign * t


_TWO_M600 = _f("0x1.0p-600")
_TWO_P600 = _f("0x1.0p600")


def hypot(x: float, y: float) -> float:
    """StrictMath.hypot: sqrt(x*x + y*y) without undue overflow or underflow."""
    a = abs(x)
    b = abs(y)
    if not math.isfinite(a) or not math.isfinite(b):
        if a == _INF or b == _INF:
            return _INF
        return a + b
    if b > a:
        a, b = b, a
    ha = _hi(a)
    hb = _hi(b)
    if ha - hb > 0x3C0_0000:  # a / b > 2**60
        return a + b
    k = 0
    if a > _f("0x1.00000ffffffffp500"):
        ha -= 0x2580_0000
        hb -= 0x2580_0000
        a *= _TWO_M600
        b *= _TWO_M600
        k += 600
    if b < _f("0x1.0p-500"):
        if b < _f("0x1.0p-1022"):
            if b == 0.0:
                return a
            t1 = _f("0x1.0p1022")
            b *= t1
            a *= t1
            k -= 1022
        else:
            ha += 0x2580_0000
            hb += 0x2580_0000
            a *= _TWO_P600
            b *= _TWO_P600
            k -= 600
    w = a - b
    if w > b:
        t1 = _words(ha, 0)
        t2 = a - t1
        w = math.sqrt(t1 * t1 - (b * (-b) - t2 * (a + t1)))
    else:
        a = a + a
        y1 = _words(hb, 0)
        y2 = b - y1
        t1 = _words(ha + 0x0010_0000, 0)
        t2 = a - t1
        w = math.sqrt(t1 * y1 - (w * (-w) - (t1 * y2 + t2 * b)))
    return math.ldexp(1.0, k) * w if k != 0 else w


# -------------------------------------------------------------------- inverse circular

_PIO2_HI = _f("0x1.921fb54442d18p0")
_PIO2_LO = _f("0x1.1a62633145c07p-54")
_PIO4_HI = _f("0x1.921fb54442d18p-1")
_PS0 = _f("0x1.5555555555555p-3")
_PS1 = -_f("0x1.4d61203eb6f7dp-2")
_PS2 = _f("0x1.9c1550e884455p-3")
_PS3 = -_f("0x1.48228b5688f3bp-5")
_PS4 = _f("0x1.9efe07501b288p-11")
_PS5 = _f("0x1.23de10dfdf709p-15")
_QS1 = -_f("0x1.33a271c8a2d4bp1")
_QS2 = _f("0x1.02ae59c598ac8p1")
_QS3 = -_f("0x1.6066c1b8d0159p-1")
_QS4 = _f("0x1.3b8c5b12e9282p-4")


def _asin_ratio(t: float) -> float:
    p = t * (_PS0 + t * (_PS1 + t * (_PS2 + t * (_PS3 + t * (_PS4 + t * _PS5)))))
    q = 1.0 + t * (_QS1 + t * (_QS2 + t * (_QS3 + t * _QS4)))
    return p / q


def asin(x: float) -> float:
    """StrictMath.asin (what Java 17's Math.asin returns)."""
    hx = _hi(x)
    ix = hx & 0x7FFF_FFFF
    if ix >= 0x3FF0_0000:  # |x| >= 1
        if (ix - 0x3FF0_0000) | _lo(x) == 0:
            return x * _PIO2_HI + x * _PIO2_LO
        return _NAN
    if ix < 0x3FE0_0000:  # |x| < 0.5
        if ix < 0x3E40_0000:
            return x
        return x + x * _asin_ratio(x * x)
    t = (1.0 - abs(x)) * 0.5
    r = _asin_ratio(t)
    s = math.sqrt(t)
    if ix >= 0x3FEF_3333:  # |x| > 0.975
        t = _PIO2_HI - (2.0 * (s + s * r) - _PIO2_LO)
    else:
        w = _with_lo(s, 0)
        c = (t - w * w) / (s + w)
        p = 2.0 * s * r - (_PIO2_LO - 2.0 * c)
        q = _PIO4_HI - 2.0 * w
        t = _PIO4_HI - (p - q)
    return t if hx > 0 else -t


def acos(x: float) -> float:
    """StrictMath.acos (what Java 17's Math.acos returns)."""
    hx = _hi(x)
    ix = hx & 0x7FFF_FFFF
    if ix >= 0x3FF0_0000:  # |x| >= 1
        if (ix - 0x3FF0_0000) | _lo(x) == 0:
            return 0.0 if hx > 0 else math.pi + 2.0 * _PIO2_LO
        return _NAN
    if ix < 0x3FE0_0000:  # |x| < 0.5
        if ix <= 0x3C60_0000:
            return _PIO2_HI + _PIO2_LO
        r = _asin_ratio(x * x)
        return _PIO2_HI - (x - (_PIO2_LO - x * r))
    if hx < 0:  # x < -0.5
        z = (1.0 + x) * 0.5
        r = _asin_ratio(z)
        s = math.sqrt(z)
        w = r * s - _PIO2_LO
        return math.pi - 2.0 * (s + w)
    z = (1.0 - x) * 0.5
    s = math.sqrt(z)
    df = _with_lo(s, 0)
    c = (z - df * df) / (s + df)
    r = _asin_ratio(z)
    w = r * s + c
    return 2.0 * (df + w)


_ATAN_HI = tuple(
    _f(v)
    for v in (
        "0x1.dac670561bb4fp-2",
        "0x1.921fb54442d18p-1",
        "0x1.f730bd281f69bp-1",
        "0x1.921fb54442d18p0",
    )
)
_ATAN_LO = tuple(
    _f(v)
    for v in (
        "0x1.a2b7f222f65e2p-56",
        "0x1.1a62633145c07p-55",
        "0x1.007887af0cbbdp-56",
        "0x1.1a62633145c07p-54",
    )
)
_AT = tuple(
    _f(v)
    for v in (
        "0x1.555555555550dp-2",
        "-0x1.999999998ebc4p-3",
        "0x1.24924920083ffp-3",
        "-0x1.c71c6fe231671p-4",
        "0x1.745cdc54c206ep-4",
        "-0x1.3b0f2af749a6dp-4",
        "0x1.10d66a0d03d51p-4",
        "-0x1.dde2d52defd9ap-5",
        "0x1.97b4b24760debp-5",
        "-0x1.2b4442c6a6c2fp-5",
        "0x1.0ad3ae322da11p-6",
    )
)


def atan(x: float) -> float:
    """StrictMath.atan (what Java 17's Math.atan returns)."""
    hx = _hi(x)
    ix = hx & 0x7FFF_FFFF
    if ix >= 0x4410_0000:  # |x| >= 2**66, or not finite
        if x != x:
            return x + x
        return _ATAN_HI[3] + _ATAN_LO[3] if hx > 0 else -_ATAN_HI[3] - _ATAN_LO[3]
    if ix < 0x3FDC_0000:  # |x| < 0.4375
        if ix < 0x3E20_0000:
            return x
        part = -1
    else:
        x = abs(x)
        if ix < 0x3FF3_0000:  # |x| < 1.1875
            if ix < 0x3FE6_0000:
                part = 0
                x = (2.0 * x - 1.0) / (2.0 + x)
            else:
                part = 1
                x = (x - 1.0) / (x + 1.0)
        elif ix < 0x4003_8000:  # |x| < 2.4375
            part = 2
            x = (x - 1.5) / (1.0 + 1.5 * x)
        else:
            part = 3
            x = -1.0 / x
    a = _AT
    z = x * x
    w = z * z
    s1 = z * (a[0] + w * (a[2] + w * (a[4] + w * (a[6] + w * (a[8] + w * a[10])))))
    s2 = w * (a[1] + w * (a[3] + w * (a[5] + w * (a[7] + w * a[9]))))
    if part < 0:
        return x - x * (s1 + s2)
    z = _ATAN_HI[part] - ((x * (s1 + s2) - _ATAN_LO[part]) - x)
    return -z if hx < 0 else z


_PI_O_4 = _f("0x1.921fb54442d18p-1")
_PI_LO = _f("0x1.1a62633145c07p-53")


def atan2(y: float, x: float) -> float:
    """StrictMath.atan2: the angle of the point (x, y) (what Java 17's Math.atan2 returns;
    Spark calls it as ``atan2(y + 0.0, x + 0.0)``)."""
    if x != x or y != y:
        return x + y
    hx = _hi(x)
    ix = hx & 0x7FFF_FFFF
    lx = _lo(x)
    hy = _hi(y)
    iy = hy & 0x7FFF_FFFF
    ly = _lo(y)
    if (hx - 0x3FF0_0000) | lx == 0:  # x == 1.0
        return atan(y)
    m = (1 if hy < 0 else 0) | (2 if hx < 0 else 0)
    if iy | ly == 0:  # y == 0
        return (y, y, math.pi + _TINY, -math.pi - _TINY)[m]
    if ix | lx == 0:  # x == 0
        return -_PIO2_HI - _TINY if hy < 0 else _PIO2_HI + _TINY
    if ix == 0x7FF0_0000:  # x infinite
        if iy == 0x7FF0_0000:
            return (
                _PI_O_4 + _TINY,
                -_PI_O_4 - _TINY,
                3.0 * _PI_O_4 + _TINY,
                -3.0 * _PI_O_4 - _TINY,
            )[m]
        return (0.0, -0.0, math.pi + _TINY, -math.pi - _TINY)[m]
    if iy == 0x7FF0_0000:
        return -_PIO2_HI - _TINY if hy < 0 else _PIO2_HI + _TINY
    k = (iy - ix) >> 20
    if k > 60:  # |y/x| > 2**60
        z = _PIO2_HI + 0.5 * _PI_LO
    elif hx < 0 and k < -60:
        z = 0.0
    else:
        z = atan(abs(y / x))
    if m == 0:
        return z
    if m == 1:
        return -z
    if m == 2:
        return math.pi - (z - _PI_LO)
    return (z - _PI_LO) - math.pi


# ------------------------------------------------------------------------- hyperbolic

_SHUGE = 1.0e307


def _overflows(x: float) -> bool:
    """|x| beyond where exp(|x|/2)**2/2 overflows."""
    ix = _hi(x) & 0x7FFF_FFFF
    return ix > 0x4086_33CE or (ix == 0x4086_33CE and _lo(x) > 0x8FB9_F87D)


def sinh(x: float) -> float:
    """StrictMath.sinh (what Java 17's Math.sinh returns)."""
    jx = _hi(x)
    ix = jx & 0x7FFF_FFFF
    if ix >= 0x7FF0_0000:
        return x + x
    h = -0.5 if jx < 0 else 0.5
    if ix < 0x4036_0000:  # |x| < 22
        if ix < 0x3E30_0000:
            return x
        t = expm1(abs(x))
        if ix < 0x3FF0_0000:
            return h * (2.0 * t - t * t / (t + 1.0))
        return h * (t + t / (t + 1.0))
    if ix < 0x4086_2E42:
        return h * exp(abs(x))
    if not _overflows(x):
        w = exp(0.5 * abs(x))
        t = h * w
        return t * w
    return x * _SHUGE


def cosh(x: float) -> float:
    """StrictMath.cosh (what Java 17's Math.cosh returns)."""
    ix = _hi(x) & 0x7FFF_FFFF
    if ix >= 0x7FF0_0000:
        return x * x
    if ix < 0x3FD6_2E43:  # |x| < ln2/2
        t = expm1(abs(x))
        w = 1.0 + t
        if ix < 0x3C80_0000:
            return w
        return 1.0 + (t * t) / (w + w)
    if ix < 0x4036_0000:  # |x| < 22
        t = exp(abs(x))
        return 0.5 * t + 0.5 / t
    if ix < 0x4086_2E42:
        return 0.5 * exp(abs(x))
    if not _overflows(x):
        w = exp(0.5 * abs(x))
        t = 0.5 * w
        return t * w
    return _INF


def tanh(x: float) -> float:
    """StrictMath.tanh (what Java 17's Math.tanh returns)."""
    jx = _hi(x)
    ix = jx & 0x7FFF_FFFF
    if ix >= 0x7FF0_0000:
        return 1.0 / x + 1.0 if jx >= 0 else 1.0 / x - 1.0
    if ix < 0x4036_0000:  # |x| < 22
        if ix < 0x3C80_0000:
            return x * (1.0 + x)
        if ix >= 0x3FF0_0000:
            t = expm1(2.0 * abs(x))
            z = 1.0 - 2.0 / (t + 2.0)
        else:
            t = expm1(-2.0 * abs(x))
            z = -t / (t + 2.0)
    else:
        z = 1.0 - _TINY
    return z if jx >= 0 else -z


# Spark 4.3's inverse hyperbolic functions (ExpressionImplUtils.asinh/acosh and the
# Atanh expression), over StrictMath.log/log1p and Math.sqrt.

_TWO_M28 = _f("0x1.0p-28")
_TWO_P28 = _f("0x1.0p28")


def asinh(x: float) -> float:
    """Spark's ``asinh``."""
    a = abs(x)
    if math.isinf(a) or a != a or a < _TWO_M28:
        w = a
    elif a > _TWO_P28:
        w = log(a) + _LOG_2
    elif a > 2.0:
        w = log(2.0 * a + 1.0 / (math.sqrt(x * x + 1.0) + a))
    else:
        t = x * x
        w = log1p(a + t / (1.0 + math.sqrt(1.0 + t)))
    return math.copysign(w, x)


def acosh(x: float) -> float:
    """Spark's ``acosh``."""
    if x < 1.0:
        return _NAN
    if x >= _TWO_P28:
        return log(x) + _LOG_2
    if x == 1.0:
        return 0.0
    if x > 2.0:
        return log(2.0 * x - 1.0 / (x + math.sqrt(x * x - 1.0)))
    t = x - 1.0
    return log1p(t + _sqrt(2.0 * t + t * t))


def atanh(x: float) -> float:
    """Spark's ``atanh``: ``0.5 * (StrictMath.log1p(x) - StrictMath.log1p(-x))``."""
    return 0.5 * (log1p(x) - log1p(-x))
