"""Spark's DOUBLE math functions in Python, for DEFINE glue over values of several rows.

``sin(radians(B.lat - A.lat))`` reads two rows, so no Spark column holds it and the glue
computes it while matching. Each function follows Spark's definition (``mathExpressions``
in Spark's catalyst): the argument is cast to DOUBLE; a result that does not exist is NaN
(Java's ``Math``), never a Python exception; the logarithms are NULL at and below their
asymptote; the functions Spark writes as formulas (``log2``, ``log(base, x)``,
``cot``/``sec``/``csc``, Spark 4.3's ``asinh``, ``acosh`` and ``atanh``) are computed by
the same formulas.

The transcendental ones are Java's ``StrictMath`` (``planner.strict_math``: fdlibm, bit
for bit), as Spark computes them, except ``sin``, ``cos`` and ``tan`` (and ``cot``,
``sec``, ``csc``), which Java computes with HotSpot's own intrinsics: Python's C library
may round those differently in the last bit. All are "inexact" for ``planner.pyeval``
still: a one-row use goes to Spark, only values of several rows are computed here
(``tests/test_define_functions.py`` compares them with Spark: the same bits, or within
4 ulps for the intrinsics).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from . import strict_math as sm


def _java_divide(a: float, b: float) -> float:
    """IEEE division as Java does it: x/0 is an infinity (or NaN), not an exception."""
    if b == 0.0:
        if a != a or a == 0.0:
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


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
    return _java_divide(sm.log(x), sm.log(base))


#: name -> function of non-NULL arguments (Spark's names; aliases included)
MATH_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "SIN": _real(math.sin),
    "COS": _real(math.cos),
    "TAN": _real(math.tan),
    "ASIN": _real(sm.asin),
    "ACOS": _real(sm.acos),
    "ATAN": _real(sm.atan),
    "SINH": _real(sm.sinh),
    "COSH": _real(sm.cosh),
    "TANH": _real(sm.tanh),
    "ASINH": _real(sm.asinh),
    "ACOSH": _real(sm.acosh),
    "ATANH": _real(sm.atanh),
    "COT": _real(lambda x: _java_divide(1.0, math.tan(x))),
    "SEC": _real(lambda x: _java_divide(1.0, math.cos(x))),
    "CSC": _real(lambda x: _java_divide(1.0, math.sin(x))),
    "ATAN2": _real(lambda y, x: sm.atan2(y + 0.0, x + 0.0)),
    "HYPOT": _real(sm.hypot),
    "CBRT": _real(sm.cbrt),
    "EXPM1": _real(sm.expm1),
    "DEGREES": _real(math.degrees),
    "RADIANS": _real(math.radians),
    "LOG10": _above(0.0, sm.log10),
    "LOG2": _above(0.0, sm.log2),
    "LOG1P": _above(-1.0, sm.log1p),
    "LOG": _log_base,
}

#: those whose Python result is the same double as Spark's (no transcendental function,
#: or one that both sides round correctly)
EXACT = {"DEGREES", "RADIANS"}
