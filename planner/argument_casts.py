"""Spark's implicit casts of the arguments of a function the glue computes.

Spark casts an argument to the type its function takes (``ImplicitCastInputTypes``):
``upper(A.n + B.n)`` is the upper case of the sum's text, ``substring(s, A.x + B.x, 3)``
of a DOUBLE position reads it as an INT, ``hex(A.d + B.d)`` of a DECIMAL hexes the BIGINT,
``hour(least(A.d, B.d))`` of a DATE reads its midnight. The glue's Python functions take
the Python value of one type, so each argument whose value is of another type is cast
first, as Spark's CAST to that type casts it (under ANSI mode a value that does not
convert is an error at the call). A call Spark refuses for its argument types is refused
when the query is built (``planner.type_checks``), so only the casts Spark makes remain.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from .implicit_casts import implicit_cast

#: a parameter: the Spark type an argument is cast to, and the Python types taken as they are
Param = tuple[str, tuple[type, ...]]

_STRING: Param = ("string", (str,))
_TEXT_OR_BYTES: Param = ("string", (str, bytes, bytearray))
_INT: Param = ("int", (int,))
_LONG_BYTES_OR_TEXT: Param = ("bigint", (int, str, bytes, bytearray))
_LONG: Param = ("bigint", (int,))
_DOUBLE: Param = ("double", (float,))
_DOUBLE_OR_INTERVAL: Param = ("double", (float, timedelta))
_TIMESTAMP: Param = ("timestamp", (datetime,))
_ANY: Param = ("", ())  # no cast

#: a function's parameters, the last one repeated for further arguments
PARAMS: dict[str, tuple[Param, ...]] = {
    **dict.fromkeys(
        ("UPPER", "UCASE", "LOWER", "LCASE", "INITCAP", "SOUNDEX", "ASCII", "LUHN_CHECK"),
        (_STRING,),
    ),
    **dict.fromkeys(("URL_ENCODE", "URL_DECODE", "TRY_URL_DECODE"), (_STRING,)),
    **dict.fromkeys(("TRIM", "BTRIM", "LTRIM", "RTRIM", "REPLACE", "TRANSLATE"), (_STRING,)),
    **dict.fromkeys(("LENGTH", "CHAR_LENGTH"), (_TEXT_OR_BYTES,)),
    **dict.fromkeys(("SUBSTRING", "SUBSTR", "LEFT", "RIGHT"), (_TEXT_OR_BYTES, _INT)),
    **dict.fromkeys(("LPAD", "RPAD"), (_TEXT_OR_BYTES, _INT, _TEXT_OR_BYTES)),
    **dict.fromkeys(("STARTSWITH", "ENDSWITH", "CONTAINS"), (_TEXT_OR_BYTES,)),
    "STRPOSITION": (_STRING, _STRING, _INT),
    "REPEAT": (_STRING, _INT),
    "LEVENSHTEIN": (_STRING, _STRING, _INT),
    "SPLIT_PART": (_STRING, _STRING, _INT),
    "SUBSTRING_INDEX": (_STRING, _STRING, _INT),
    "FIND_IN_SET": (_STRING,),
    "OVERLAY": (_TEXT_OR_BYTES, _TEXT_OR_BYTES, _INT),
    "ELT": (_INT, _TEXT_OR_BYTES),
    "CHR": (_LONG,),
    "HEX": (_LONG_BYTES_OR_TEXT,),
    **dict.fromkeys(
        (
            "SQRT EXP LN SIN COS TAN ASIN ACOS ATAN SINH COSH TANH ASINH ACOSH ATANH COT SEC "
            "CSC ATAN2 HYPOT CBRT EXPM1 DEGREES RADIANS LOG10 LOG2 LOG1P POWER POW"
        ).split(),
        (_DOUBLE,),
    ),
    **dict.fromkeys(("HOUR", "MINUTE", "SECOND"), (_TIMESTAMP,)),
    **dict.fromkeys(("MAKE_DATE", "FACTORIAL"), (_INT,)),
    **dict.fromkeys(("RINT", "ISNAN", "NANVL"), (_DOUBLE,)),
    "WIDTH_BUCKET": (_DOUBLE_OR_INTERVAL, _DOUBLE_OR_INTERVAL, _DOUBLE_OR_INTERVAL, _LONG),
    "BIN": (_LONG,),
    "CONV": (_STRING, _INT),
    "SLICE": (_ANY, _INT),
}


def argument_casts(
    name: str, count: int, *, ansi: bool, sql: str, pos: int | None
) -> list[Callable[[Any], Any] | None] | None:
    """For each of ``count`` arguments of function ``name``, the cast Spark applies to a
    value of another type (None: taken as it is); None for a function without casts here."""
    params = PARAMS.get(name)
    if params is None:
        return None
    casts: list[Callable[[Any], Any] | None] = []
    for i in range(count):
        target, taken = params[min(i, len(params) - 1)]
        cast = implicit_cast(target, ansi=ansi, sql=sql, pos=pos)
        casts.append(None if cast is None else _unless(taken, cast))
    return casts


def _unless(taken: tuple[type, ...], cast: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``cast``, but for a value of one of the ``taken`` types (a bool is no integer)."""

    def convert(v: Any) -> Any:
        if v is None or (isinstance(v, taken) and not isinstance(v, bool)):
            return v
        return cast(v)

    return convert
