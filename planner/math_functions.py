"""Spark's DOUBLE math functions in Python, for DEFINE glue over values of several rows.

``sin(radians(B.lat - A.lat))`` reads two rows, so no Spark column holds it and the glue
computes it while matching. Each function follows Spark's definition (``mathExpressions``
in Spark's catalyst): the argument is cast to DOUBLE; a result that does not exist is NaN
(Java's ``Math``), never a Python exception; the logarithms are NULL at and below their
asymptote; the functions Spark writes as formulas (``log2``, ``log(base, x)``,
``cot``/``sec``/``csc``) are computed by the same formulas. (``asinh``, ``acosh`` and
``atanh`` are the precise functions: Spark 4.3 answers as they do, not as the textbook
formulas of earlier Spark versions.)

Java's ``Math``/``StrictMath`` and the C library under Python may round the
transcendental ones differently in the last bit, so these are "inexact" for
``planner.pyeval``: used only where Spark cannot compute the value (a one-row use goes to
Spark), and compared with Spark by ``tests/test_define_functions.py``: equal, or within
4 ulps (at most 3 were seen, for ``cbrt`` and ``log(base, x)``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any


def _java_divide(a: float, b: float) -> float:
    """IEEE division as Java does it: x/0 is an infinity (or NaN), not an exception."""
    if b == 0.0:
        if a != a or a == 0.0:
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def _log(x: float) -> float:
    """Java's ``log``: -Infinity at 0, NaN below."""
    if x > 0.0:
        return math.log(x)
    return -math.inf if x == 0.0 else math.nan


def _cbrt(x: float) -> float:
    cbrt = getattr(math, "cbrt", None)  # Python >= 3.11
    if cbrt is not None:
        return cbrt(x)
    if x == 0.0 or not math.isfinite(x):
        return x
    r = math.copysign(abs(x) ** (1.0 / 3.0), x)
    return r - (r * r * r - x) / (3.0 * r * r)


def _real(fn: Callable[..., float], overflow: Callable[..., float] | None = None):
    """``fn`` over DOUBLE arguments with Java's answers where Python raises: NaN outside
    the domain (``asin(2)``, ``sin(Infinity)``), an infinity on overflow."""

    def apply(*args: Any) -> float:
        xs = [float(a) for a in args]
        try:
            return fn(*xs)
        except ValueError:
            return math.nan
        except OverflowError:
            return overflow(*xs) if overflow else math.inf

    return apply


def _above(asymptote: float, fn: Callable[[float], float]) -> Callable[[Any], Any]:
    """Spark's logarithms: NULL at or below the asymptote (NaN passes through)."""

    def apply(x: Any) -> Any:
        x = float(x)
        return None if x <= asymptote else fn(x)

    return apply


def _log_base(base: Any, x: Any) -> Any:
    """Spark's ``log(base, x)``: NULL unless both are positive; ``ln x / ln base``."""
    base, x = float(base), float(x)
    if base <= 0.0 or x <= 0.0:
        return None
    return _java_divide(_log(x), _log(base))


def _signed_infinity(x: float) -> float:
    return math.copysign(math.inf, x)


#: name -> function of non-NULL arguments (Spark's names; aliases included)
MATH_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "SIN": _real(math.sin),
    "COS": _real(math.cos),
    "TAN": _real(math.tan),
    "ASIN": _real(math.asin),
    "ACOS": _real(math.acos),
    "ATAN": _real(math.atan),
    "SINH": _real(math.sinh, _signed_infinity),
    "COSH": _real(math.cosh),
    "TANH": _real(math.tanh),
    "ASINH": _real(math.asinh),
    "ACOSH": _real(math.acosh),
    "ATANH": _real(lambda x: math.copysign(math.inf, x) if abs(x) == 1.0 else math.atanh(x)),
    "COT": _real(lambda x: _java_divide(1.0, math.tan(x))),
    "SEC": _real(lambda x: _java_divide(1.0, math.cos(x))),
    "CSC": _real(lambda x: _java_divide(1.0, math.sin(x))),
    "ATAN2": _real(lambda y, x: math.atan2(y + 0.0, x + 0.0)),
    "HYPOT": _real(math.hypot),
    "CBRT": _real(_cbrt),
    "EXPM1": _real(math.expm1),
    "DEGREES": _real(math.degrees),
    "RADIANS": _real(math.radians),
    "LOG10": _above(0.0, math.log10),
    "LOG2": _above(0.0, lambda x: _log(x) / _log(2.0)),
    "LOG1P": _above(-1.0, math.log1p),
    "LOG": _log_base,
}

#: those whose Python result is the same double as Spark's (no transcendental function,
#: or one that both sides round correctly)
EXACT = {"DEGREES", "RADIANS"}
