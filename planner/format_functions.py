"""Spark's ``format_number``, ``base64``/``unbase64``, ``make_dt_interval`` and
``make_interval`` in Python, for DEFINE's glue over values of several rows.

* ``format_number(x, d)``: Java's ``DecimalFormat`` (US symbols, HALF_EVEN) with Spark's
  pattern ``#,###,...,##0.000`` (``d`` zeros), or with a pattern string of ``#``, ``0``,
  ``,`` and one ``.`` (an empty one: no fraction); a negative ``d`` is NULL. A DOUBLE is
  written from its shortest decimal digits, a tie of those digits decided by its exact
  binary value (as DecimalFormat does since Java 8).
* ``base64``: MIME-chunked lines of 76 characters joined by CRLF where the session
  chunks them (``spark.sql.chunkBase64String.enabled``: ``planner.decompose`` hands the
  glue Spark's base64 of a 58-byte probe, which tells); ``unbase64``: Java's MIME decoder
  (characters outside the alphabet skipped, its errors on a bad end).
* ``make_dt_interval(days, hours, mins, secs)``: ``secs`` as DECIMAL(18, 6), rounded
  half up (out of range: NULL, or Spark's NUMERIC_VALUE_OUT_OF_RANGE under ANSI mode),
  the sum in microseconds checked against a long as Java's exact arithmetic.
* ``make_interval(years, months, weeks, days, hours, mins, secs)``: a CALENDAR INTERVAL
  of months, days and microseconds, each summed with Java's exact int or long
  arithmetic (an overflow is NULL, or ARITHMETIC_OVERFLOW under ANSI mode).
"""

from __future__ import annotations

import base64 as b64
import math
import re
from collections.abc import Callable
from datetime import timedelta
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Context, Decimal
from typing import Any

from matchrec.sql_values import CalendarInterval, utf8_bytes

_WIDE = Context(prec=1000)
_PATTERN = re.compile(r"[#,]*0[0,]*(\.0*#*)?|[#,]*(\.0*#*)?")


def _int(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"{v!r} is not an integer")
    return v


# ------------------------------------------------------------------ format_number


class NumberPattern:
    """What ``format_number`` reads from a DecimalFormat pattern: the grouping size (0:
    none), and the least integer and the least and most fraction digits."""

    def __init__(self, pattern: str) -> None:
        if not _PATTERN.fullmatch(pattern):
            raise ValueError(
                f"the format_number pattern {pattern!r} is not computed here (only #, 0, "
                "',' and one '.')"
            )
        whole, _, fraction = pattern.partition(".")
        self.grouping = len(whole) - whole.rindex(",") - 1 if "," in whole else 0
        self.min_int = whole.count("0")
        self.min_frac = fraction.count("0")
        self.max_frac = len(fraction)


def _default_pattern(places: int) -> NumberPattern:
    zeros = "." + "0" * places if places > 0 else ""
    return NumberPattern("#,###,###,###,###,###,##0" + zeros)


def _rounded(x: Any, places: int) -> Decimal:
    """``x`` rounded half even to ``places`` fraction digits as DecimalFormat rounds it."""
    step = Decimal(1).scaleb(-places)
    if not isinstance(x, float):
        return Decimal(x).quantize(step, rounding=ROUND_HALF_EVEN, context=_WIDE)
    shortest = Decimal(repr(x))
    down = shortest.quantize(step, rounding="ROUND_DOWN", context=_WIDE)
    rest = abs(shortest - down)
    if rest != step / 2:
        return shortest.quantize(step, rounding=ROUND_HALF_EVEN, context=_WIDE)
    exact = abs(Decimal(x) - down)  # a tie of the digits: the binary value decides
    if exact == step / 2:
        return shortest.quantize(step, rounding=ROUND_HALF_EVEN, context=_WIDE)
    away = down + (step if x > 0 else -step)
    return away if exact > step / 2 else down


def _grouped(digits: str, size: int) -> str:
    if size <= 0:
        return digits
    groups = []
    while len(digits) > size:
        digits, tail = digits[:-size], digits[-size:]
        groups.append(tail)
    groups.append(digits)
    return ",".join(reversed(groups))


def _format_with(x: Any, pattern: NumberPattern) -> str:
    if isinstance(x, float) and math.isnan(x):
        return "NaN"
    if isinstance(x, float) and math.isinf(x):
        return "∞" if x > 0 else "-∞"
    value = _rounded(x, pattern.max_frac)
    negative = value.is_signed()
    text = f"{abs(value):f}"
    whole, _, fraction = text.partition(".")
    fraction = fraction[: pattern.max_frac].rstrip("0")
    fraction = fraction.ljust(pattern.min_frac, "0")
    whole = whole.lstrip("0")
    if len(whole) < pattern.min_int:
        whole = whole.rjust(pattern.min_int, "0")
    if not whole and not fraction:
        whole = "0"
    out = _grouped(whole, pattern.grouping) + ("." + fraction if fraction else "")
    return "-" + out if negative else out


def format_number(x: Any, places: Any) -> Any:
    """Spark's ``format_number(x, d)``: ``d`` fraction digits (an INT; negative: NULL) or
    a DecimalFormat pattern (a string; empty: no fraction digits)."""
    if isinstance(x, bool) or not isinstance(x, (int, float, Decimal)):
        raise TypeError(f"{x!r} is not a number")
    if isinstance(places, str):
        pattern = NumberPattern(places) if places else _default_pattern(0)
        return _format_with(x, pattern)
    places = _int(places)
    return None if places < 0 else _format_with(x, _default_pattern(places))


# ------------------------------------------------------------------ base64


def _bytes(v: Any) -> bytes:
    if isinstance(v, str):
        return utf8_bytes(v)
    if isinstance(v, (bytes, bytearray)):
        return bytes(v)
    raise TypeError(f"{v!r} is not a string or BINARY (CAST it inside the navigation)")


#: the probe where no session answers it (a rule): base64 of at most 57 bytes is one line
#: whether the session chunks or not, a longer one is not computed
UNKNOWN_PROBE = ""


def to_base64(v: Any, probe: Any) -> str:
    """``base64`` of ``v``; ``probe`` is Spark's base64 of 58 bytes: with a line break
    when the session chunks (76 characters a line, CRLF between lines)."""
    text = b64.b64encode(_bytes(v)).decode()
    if probe == UNKNOWN_PROBE and len(text) > 76:
        raise TypeError(
            "base64 of more than 57 bytes is not computed here: whether the session breaks "
            "it into lines (spark.sql.chunkBase64String.enabled) is not known in a rule"
        )
    if not isinstance(probe, str) or "\r\n" not in probe:
        return text
    return "\r\n".join(text[i : i + 76] for i in range(0, len(text), 76))


_ALPHABET = {
    c: i for i, c in enumerate(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
}
_PAD = ord("=")


def from_base64(v: Any) -> bytes:
    """``unbase64``: Java's MIME decoder (bytes outside the alphabet skipped; a dangling
    character or misplaced padding raise as Java raises)."""
    data = _bytes(v)
    out = bytearray()
    bits, shift, i = 0, 18, 0
    while i < len(data):
        b = data[i]
        i += 1
        if b == _PAD:
            if (shift == 6 and (i == len(data) or data[i] != _PAD)) or shift == 18:
                raise ValueError("Input byte array has wrong 4-byte ending unit")
            if shift == 6:
                i += 1
            break
        if b not in _ALPHABET:
            continue
        bits |= _ALPHABET[b] << shift
        shift -= 6
        if shift < 0:
            out += bytes(((bits >> 16) & 255, (bits >> 8) & 255, bits & 255))
            bits, shift = 0, 18
    if shift == 6:
        out.append((bits >> 16) & 255)
    elif shift == 0:
        out += bytes(((bits >> 16) & 255, (bits >> 8) & 255))
    elif shift == 12:
        raise ValueError("Last unit does not have enough valid bits")
    for b in data[i:]:
        if b in _ALPHABET or b == _PAD:
            raise ValueError(f"Input byte array has incorrect ending byte at {i}")
    return bytes(out)


# ------------------------------------------------------------------ make_dt_interval

_SECONDS_LIMIT = Decimal(10) ** 12  # DECIMAL(18, 6)
_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


def _seconds(secs: Any, ansi: bool) -> Decimal | None:
    """``secs`` as the DECIMAL(18, 6) Spark casts it to (half up); out of that range an
    error under ANSI mode, else None (Spark's NULL)."""
    if isinstance(secs, bool) or not isinstance(secs, (int, float, Decimal)):
        raise TypeError(f"{secs!r} is not a number of seconds")
    seconds = None
    if not isinstance(secs, float) or math.isfinite(secs):
        exact = Decimal(repr(secs)) if isinstance(secs, float) else Decimal(secs)
        seconds = exact.quantize(Decimal("0.000001"), rounding=ROUND_HALF_UP, context=_WIDE)
    if seconds is None or abs(seconds) >= _SECONDS_LIMIT:
        if ansi:
            raise ArithmeticError(
                f"{secs} cannot be represented as DECIMAL(18, 6) (Spark's "
                "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION under spark.sql.ansi.enabled)"
            )
        return None
    return seconds


def _make_dt_interval(ansi: bool) -> Callable[..., Any]:
    def make_dt_interval(days: Any = 0, hours: Any = 0, mins: Any = 0, secs: Any = 0) -> Any:
        days, hours, mins = _int(days), _int(hours), _int(mins)
        seconds = _seconds(secs, ansi)
        if seconds is None:
            return None
        micros = ((days * 24 + hours) * 60 + mins) * 60_000_000 + int(seconds.scaleb(6))
        if not _LONG_MIN <= micros <= _LONG_MAX:
            raise OverflowError("long overflow (Spark's ARITHMETIC_OVERFLOW)")
        return timedelta(microseconds=micros)

    return make_dt_interval


make_dt_interval = _make_dt_interval(False)
make_dt_interval_ansi = _make_dt_interval(True)

_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1


def _exact(value: int, low: int, high: int) -> int:
    if not low <= value <= high:
        raise OverflowError
    return value


def _make_interval(ansi: bool) -> Callable[..., Any]:
    def make_interval(
        years: Any = 0,
        months: Any = 0,
        weeks: Any = 0,
        days: Any = 0,
        hours: Any = 0,
        mins: Any = 0,
        secs: Any = 0,
    ) -> Any:
        years, months, weeks, days, hours, mins = map(
            _int, (years, months, weeks, days, hours, mins)
        )
        seconds = _seconds(secs, ansi)
        if seconds is None:
            return None
        try:  # Java's exact int and long arithmetic, step by step as Spark's makeInterval
            total_months = _exact(
                months + _exact(years * 12, _INT_MIN, _INT_MAX), _INT_MIN, _INT_MAX
            )
            total_days = _exact(days + _exact(weeks * 7, _INT_MIN, _INT_MAX), _INT_MIN, _INT_MAX)
            micros = int(seconds.scaleb(6))
            for count, unit in ((hours, 3_600_000_000), (mins, 60_000_000)):
                micros = _exact(
                    micros + _exact(count * unit, _LONG_MIN, _LONG_MAX), _LONG_MIN, _LONG_MAX
                )
        except OverflowError:
            if ansi:
                raise OverflowError(
                    "integer overflow (Spark's ARITHMETIC_OVERFLOW under spark.sql.ansi.enabled; "
                    "try_make_interval gives NULL instead)"
                ) from None
            return None
        return CalendarInterval(total_months, total_days, micros)

    return make_interval


make_interval = _make_interval(False)
make_interval_ansi = _make_interval(True)
