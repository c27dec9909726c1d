"""Numbers written as strings, read as Spark's CAST reads them.

Python's ``int()``, ``float()`` and ``Decimal()`` accept what Spark refuses (``'1_000'``,
``'10e1'`` as an integer, digits of other scripts) and refuse what it accepts (Java's
``'1d'`` and ``'0x1p3'`` as a double). Spark's rules, measured on Spark 4 (both ANSI
modes, ``try_cast`` for ANSI's):

* integers: an optional sign and ASCII digits; without ANSI mode a fraction after a
  point is dropped (``'12.9'`` is 12, ``'.5'`` and ``'.'`` are 0);
* DOUBLE and FLOAT: Java's ``Double.parseDouble`` (exponents, a ``d``/``f`` suffix,
  hexadecimal ``0x1p3``) plus ``inf``, ``infinity`` and ``nan`` in any case;
* DECIMAL: Java's ``BigDecimal`` (an exponent, digits of any script, no suffix).

Surrounding whitespace is dropped first. Each function gives None for a string Spark
does not read as that kind of number.
"""

from __future__ import annotations

import re
from decimal import Decimal

_INTEGER = re.compile(r"[+-]?[0-9]+", re.ASCII)
_INTEGER_WITH_FRACTION = re.compile(r"([+-]?)([0-9]*)(?:\.[0-9]*)?", re.ASCII)
_JAVA_DOUBLE = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fFdD]?", re.ASCII)
_JAVA_HEX_DOUBLE = re.compile(
    r"[+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+[fFdD]?", re.ASCII
)
_SPECIAL_DOUBLES = {
    "inf": float("inf"),
    "+inf": float("inf"),
    "infinity": float("inf"),
    "+infinity": float("inf"),
    "-inf": float("-inf"),
    "-infinity": float("-inf"),
    "nan": float("nan"),
}
#: (BigDecimal reads any Unicode digit, as Python's Decimal does)
_BIG_DECIMAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


#: what Java's ``String.trim`` takes off text (to a DOUBLE or DECIMAL): characters up to
#: the space; Spark's ``UTF8String.trimAll`` (to an integer, a date, a timestamp) also
#: DEL. No other (a no-break space stays, and fails the cast)
_JAVA_BLANKS = "".join(map(chr, range(0x21)))
_SPARK_BLANKS = _JAVA_BLANKS + "\x7f"


def spark_trim(text: str) -> str:
    """``text`` without the leading and trailing characters Spark's casts to integers,
    dates and timestamps ignore."""
    return text.strip(_SPARK_BLANKS)


def integer_text(text: str, drop_fraction: bool = False) -> int | None:
    """The integer ``text`` writes; ``drop_fraction`` (without ANSI mode): digits after a
    point are dropped, as Spark's legacy CAST drops them."""
    text = spark_trim(text)
    if _INTEGER.fullmatch(text):
        return int(text)
    found = _INTEGER_WITH_FRACTION.fullmatch(text) if drop_fraction else None
    if found is None or text in ("", "+", "-"):
        return None
    sign, whole = found.group(1), found.group(2) or "0"
    return -int(whole) if sign == "-" else int(whole)


def double_text(text: str) -> float | None:
    """The DOUBLE ``text`` writes, as Java parses it."""
    text = text.strip(_JAVA_BLANKS)
    special = _SPECIAL_DOUBLES.get(text.lower())
    if special is not None:
        return special
    if _JAVA_DOUBLE.fullmatch(text):
        return float(text.rstrip("fFdD"))
    if _JAVA_HEX_DOUBLE.fullmatch(text):
        return float.fromhex(text.rstrip("fFdD"))
    return None


def decimal_text(text: str) -> Decimal | None:
    """The DECIMAL ``text`` writes, as Java's BigDecimal reads it."""
    text = text.strip(_JAVA_BLANKS)
    return Decimal(text) if _BIG_DECIMAL.fullmatch(text) else None
