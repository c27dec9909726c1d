"""Spark SQL functions in Python, for DEFINE glue over values read at several rows.

``f(FIRST(S.x))`` or ``f(A.x, A.y)`` reads one row, and ``planner.pushdown`` hands it to
Spark. ``f(N.x, FIRST(S.x))`` reads two rows: no Spark column holds it, and DEFINE's
Python glue must compute it while matching. Two levers, applied in this order:

* **decompose** (``planner.decompose``): where a function splits exactly into functions
  of one row each and a simple combination, e.g. ``datediff(a, b)`` is
  ``datediff(a, DATE'1970-01-01') - datediff(b, DATE'1970-01-01')``, each part goes to
  Spark (same function, same implicit casts, same errors) and only the combination runs
  here;
* **reimplement** (this module): string, comparison and date functions whose Spark
  semantics are small enough to copy exactly (array set functions in
  ``planner.array_functions``, regex functions in ``planner.regex_functions``, whose Java
  patterns ``planner.java_regex`` translates or refuses). Each one is checked against
  Spark on generated values by the differential test in ``tests/test_define_functions.py``.

A function here is used only where Spark cannot compute the value: pushdown still moves
every one-row use of it to Spark (:data:`EXTENDED` is not part of ``pyeval.evaluates``).
The functions take non-NULL arguments unless the entry says ``strict=False``; they
raise ``TypeError``/``ValueError``/``ArithmeticError`` on values Spark would reject,
which the glue reports with the position of the call.
"""

from __future__ import annotations

import calendar
import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, tzinfo
from decimal import Decimal
from typing import Any

from sqlglot import exp

from matchrec.far_dates import FarDate, add_days, date_of_days
from matchrec.far_timestamps import FarTimestamp, midnight_of, timestamp_of_micros
from matchrec.function_settings import NEGATIVE_INDEX_IN_ARRAY_INSERT, last_key_wins, setting_on
from matchrec.navigation import spark_order
from matchrec.sql_values import (
    MAX_ARRAY_LENGTH,
    WIDE_DECIMALS,
    double_text,
    map_key,
    to_text,
    unsigned_zero,
)

from .array_functions import ARRAY_FUNCTIONS, ARRAY_NODES
from .bit_functions import BIT_NODES, bit_count, conv, conv_ansi, to_binary
from .char_formats import binary_of, to_char_of
from .datetime_functions import (
    DATETIME_FUNCTIONS,
    DATETIME_NODES,
    cast_to_timestamp,
    date_from_unix_date,
    datetime_args,
    datetime_name,
    day_of,
    make_date,
    make_date_ansi,
    months_until,
    next_day,
    timestamp_micros,
    timestamp_millis,
    timestamp_seconds,
)
from .datetime_steps import months_later, temporal_sequence
from .digest_functions import DIGEST_FUNCTIONS, DIGEST_NODES
from .format_functions import (
    format_number,
    from_base64,
    make_dt_interval,
    make_dt_interval_ansi,
    make_interval,
    make_interval_ansi,
    to_base64,
)
from .json_functions import get_json_object, json_array_length, json_object_keys
from .number_formats import to_char, to_number, try_to_number
from .regex_functions import REGEX_FUNCTIONS, REGEX_NODES, REGEX_SLOTS
from .text_functions import (
    ascii_code,
    chr_of,
    chr_of_ansi,
    decode,
    encode,
    is_valid_utf8,
    jaro_winkler_similarity,
    luhn_check,
    make_valid_utf8,
    mask,
    quote,
    soundex,
    try_url_decode,
    try_validate_utf8,
    url_decode,
    url_encode,
    validate_utf8,
)
from .url_functions import parse_url, try_parse_url
from .zone_functions import ZONE_FUNCTIONS, ZONE_NODES, zone_args

__all__ = ["double_text", "to_text"]

_INT_MAX = 2**31 - 1


# ------------------------------------------------------------------ strings


def _int(n: Any) -> int:
    """An integer argument (Spark casts it to INT at analysis; Python must not guess)."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"{n!r} is not an integer")
    return n


def substring(s: Any, pos: Any, length: Any = _INT_MAX) -> Any:
    """Spark's ``UTF8String.substringSQL``: 1-based, 0 is 1, negative counts from the end."""
    pos, length = _int(pos), _int(length)
    n = len(s)
    start = pos - 1 if pos > 0 else (n + pos if pos < 0 else 0)
    end = start + length
    start = max(start, 0)
    return s[:0] if start >= end else s[start:end]


def left(s: Any, n: Any) -> Any:
    return substring(s, 1, n)


def right(s: Any, n: Any) -> Any:
    n = _int(n)
    return s[:0] if n <= 0 else substring(s, -n, n)


def _text(v: Any) -> str:
    if not isinstance(v, str):
        raise TypeError(f"{v!r} is not a string")
    return v


def str_position(s: Any, sub: Any, pos: Any = 1) -> Any:
    """``instr(s, sub)`` and ``locate(sub, s[, pos])``: 1-based, 0 when absent; a NULL
    ``pos`` gives 0 (as Hive), a ``pos`` below 1 too."""
    if pos is None:
        return 0
    if s is None or sub is None:
        return None
    pos = _int(pos)
    if pos < 1:
        return 0
    # Spark's UTF8String.indexOf finds an empty string at 0, whatever the start
    return 1 if _text(sub) == "" else _text(s).find(sub, pos - 1) + 1


def replace(s: Any, search: Any, by: Any = "") -> str:
    s, search, by = _text(s), _text(search), _text(by)
    return s if search == "" else s.replace(search, by)


def _pad(s: Any, length: Any, pad: Any, at_left: bool) -> Any:
    """``lpad``/``rpad``; without a pad a string is padded with spaces, a BINARY with
    zero bytes (as Spark pads one)."""
    if pad is None:
        pad = b"\x00" if isinstance(s, (bytes, bytearray)) else " "
    length = _int(length)
    room = length - len(s)
    if room <= 0 or len(pad) == 0:
        return s[: max(length, 0)]
    fill = (pad * (room // len(pad) + 1))[:room]
    return fill + s if at_left else s + fill


def _trimmer(leading: bool, trailing: bool) -> Callable[..., str]:
    """Spark's trim/ltrim/rtrim/btrim: the characters of ``chars`` (a space, not other
    white space, when not given) taken off the string's ends."""

    def trim(s: Any, chars: Any = " ") -> str:
        if leading:
            s = s.lstrip(chars)
        return s.rstrip(chars) if trailing else s

    return trim


def repeat(s: Any, n: Any) -> str:
    return _text(s) * max(_int(n), 0)


def levenshtein(a: Any, b: Any, threshold: Any = None) -> int:
    """Edit distance over characters; with ``threshold``, -1 when it is exceeded."""
    a, b = _text(a), _text(b)
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    distance = previous[-1]
    return -1 if threshold is not None and distance > _int(threshold) else distance


def try_divide(a: Any, b: Any) -> Any:
    """``try_divide``: NULL for a zero divisor, whatever the ANSI mode."""
    if b == 0:
        return None
    if isinstance(a, Decimal) or isinstance(b, Decimal):
        # as ``/``: 38 fraction digits (half up) before the result's scale, not Python's
        # default 28 significant digits
        quotient = WIDE_DECIMALS.divide(Decimal(a), Decimal(b))
        return unsigned_zero(quotient.quantize(Decimal(1).scaleb(-38), context=WIDE_DECIMALS))
    return a / b


def concat(*values: Any, plain_decimals: bool = True) -> Any:
    """``concat``/``||`` (no NULL among ``values``): of arrays the array of their
    elements, of BINARY values their bytes, else the text of each value joined, as
    Spark's ``concat`` types the call by its arguments (``plain_decimals``: ANSI mode's
    text of a DECIMAL, :func:`to_text`)."""
    if values and all(isinstance(v, (list, tuple)) for v in values):
        return [x for v in values for x in v]
    if values and all(isinstance(v, (bytes, bytearray)) for v in values):
        return b"".join(values)
    return "".join(to_text(v, plain_decimals) for v in values)


class UserRaised(ValueError):
    """``raise_error``'s error, in Spark's words (USER_RAISED_EXCEPTION)."""


def raise_error(message: Any) -> Any:
    """Spark's ``raise_error``: fails with ``message`` as text (``null`` for NULL)."""
    text = "null" if message is None else to_text(message)
    raise UserRaised(f"[USER_RAISED_EXCEPTION] {text}")


def legacy_concat(*values: Any) -> Any:
    """``concat`` without ANSI mode: a DECIMAL written as Java's ``BigDecimal.toString``."""
    return concat(*values, plain_decimals=False)


def concat_ws(sep: Any, *values: Any, plain_decimals: bool = True) -> Any:
    """NULL separator: NULL; NULL values are skipped; arrays contribute their elements."""
    if sep is None:
        return None
    parts: list[str] = []
    for v in values:
        if isinstance(v, (list, tuple)):
            parts.extend(to_text(x, plain_decimals) for x in v if x is not None)
        elif v is not None:
            parts.append(to_text(v, plain_decimals))
    return to_text(sep).join(parts)


def legacy_concat_ws(sep: Any, *values: Any) -> Any:
    """``concat_ws`` without ANSI mode (see :func:`legacy_concat`)."""
    return concat_ws(sep, *values, plain_decimals=False)


# ------------------------------------------------------------------ comparisons, NULLs


def order_key(v: Any) -> Any:
    """Spark's order: NaN above every other double, timestamps by their instant, arrays
    element by element and structs field by field, a NULL inside first
    (``matchrec.navigation.spark_order``, the aggregates' order)."""
    return spark_order(v)


def common(values: list[Any]) -> list[Any]:
    """Values widened as Spark widens them: integers and Decimals with a float to
    doubles; with a TIMESTAMP, a DATE to its first instant and a TIMESTAMP_NTZ's wall
    clock (naive) to that time in the timestamps' zone, which is the session's (Spark
    hands timestamps to Python in it; a wall clock the zone skips is read after the
    gap, one it repeats at the earlier instant, as Java's ``atZone``)."""
    if any(isinstance(v, float) for v in values):
        return [
            float(v) if isinstance(v, (int, Decimal)) and not isinstance(v, bool) else v
            for v in values
        ]
    stamps = [v for v in values if isinstance(v, datetime)]
    if not stamps:
        return values
    zone = next((v.tzinfo for v in stamps if v.tzinfo is not None), None)
    return [
        v
        if isinstance(v, datetime) and (v.tzinfo is not None or zone is None)
        else _read_in(v, zone)
        if isinstance(v, date)
        else v
        for v in values
    ]


def _read_in(v: date, zone: tzinfo | None) -> datetime:
    """A DATE's midnight or a TIMESTAMP_NTZ's wall clock read in ``zone`` (naive when
    there is none)."""
    local = v if isinstance(v, datetime) else datetime.combine(v, time())
    return local if zone is None else cast_to_timestamp(local, zone)


def greatest(*values: Any) -> Any:
    """The largest non-NULL argument (NULL only when all are)."""
    present = common([v for v in values if v is not None])
    return _widened(max(present, key=order_key), present) if present else None


def least(*values: Any) -> Any:
    present = common([v for v in values if v is not None])
    return _widened(min(present, key=order_key), present) if present else None


def _widened(picked: Any, values: list[Any]) -> Any:
    """``picked``, one of ``values`` in their common type: a DATE among TIMESTAMPs that
    :func:`common` left a DATE (one past Python's years, or beside a TIMESTAMP past them)
    is its midnight in their zone."""
    stamp = next((v for v in values if isinstance(v, (datetime, FarTimestamp))), None)
    if stamp is None or not isinstance(picked, (date, FarDate)) or isinstance(picked, datetime):
        return picked
    zone = stamp.tzinfo
    return midnight_of(picked, zone)


def nullif(a: Any, b: Any) -> Any:
    if a is None or b is None:
        return a
    x, y = common([a, b])
    return None if order_key(x) == order_key(y) else a  # NaN equals NaN, as in Spark


def nullifzero(v: Any) -> Any:
    """``nullifzero``: NULL for a number equal to 0 (-0.0 too; NaN is kept), else the
    value; a string is compared as Spark casts it, which is not done here."""
    if isinstance(v, bool) or not isinstance(v, (int, float, Decimal)):
        raise TypeError(f"nullifzero() of {v!r} is computed here of numbers only")
    return None if v == 0 else v


def nvl2(test: Any, then: Any, other: Any) -> Any:
    return other if test is None else then


def array_contains(values: Any, needle: Any) -> Any:
    """True if found (NaN equals NaN, as Spark's ordering compares); NULL if not found
    but the array holds a NULL; else false."""
    if values is None or needle is None:
        return None
    key = order_key(needle)
    found = any(order_key(v) == key for v in values if v is not None)
    return True if found else (None if any(v is None for v in values) else False)


def _array_extreme(pick_max: bool) -> Callable[[Any], Any]:
    """``array_max`` / ``array_min``: NULL elements skipped, NaN above every double."""

    def extreme(values: Any) -> Any:
        present = common([v for v in values if v is not None])
        if not present:
            return None
        return (max if pick_max else min)(present, key=order_key)

    return extreme


#: a zero divisor's condition under ANSI mode -> what Spark's message calls the
#: operation, and the ``try_`` function it suggests
_ZERO_DIVISORS = {
    "DIVIDE_BY_ZERO": ("Division", "try_divide"),
    "REMAINDER_BY_ZERO": ("Remainder", "try_mod"),
}


class DivisionByZero(ZeroDivisionError):
    """Spark's DIVIDE_BY_ZERO / REMAINDER_BY_ZERO under ANSI mode, in Spark's words (its
    SQLSTATE is the error's ``getSqlState()``, not in its text)."""

    def __init__(self, condition: str) -> None:
        what, instead = _ZERO_DIVISORS[condition]
        super().__init__(
            f"[{condition}] {what} by zero. Use `{instead}` to tolerate divisor being 0 and "
            'return NULL instead. If necessary set "spark.sql.ansi.enabled" to "false" to '
            "bypass this error."
        )
        self.condition = condition


def pmod_ansi(a: Any, b: Any) -> Any:
    """``pmod`` under ANSI mode: a zero divisor is Spark's REMAINDER_BY_ZERO."""
    if b == 0:
        raise DivisionByZero("REMAINDER_BY_ZERO")
    return pmod(a, b)


def java_remainder(a: Any, b: Any) -> Any:
    """Java's ``%`` (Spark's): the sign of the dividend; NaN for an infinite dividend."""
    if isinstance(a, int) and isinstance(b, int):
        r = abs(a) % abs(b)
        return r if a >= 0 else -r
    if isinstance(a, (Decimal, int)) and isinstance(b, (Decimal, int)):
        # an integer beside a DECIMAL is one (Spark's common type); Decimal's remainder
        # takes the dividend's sign, as Java's
        return Decimal(a) % Decimal(b)
    try:
        return math.fmod(a, b)
    except ValueError:
        return math.nan


def pmod(a: Any, b: Any) -> Any:
    """Spark's ``pmod``: ``a % b``, made non-negative by adding ``b`` once (as Spark
    does; a negative ``b`` can still give a negative result)."""
    if b == 0:
        return None
    r = java_remainder(a, b)
    return java_remainder(r + b, b) if r < 0 else r


class InvalidIndex(ValueError):
    """An array index Spark rejects (INVALID_INDEX_OF_ZERO, INVALID_ARRAY_INDEX...)."""


def _out_of_bounds(index: int, size: int, element_at: bool) -> str:
    """Spark's message for an array index out of bounds under ANSI mode."""
    if element_at:
        return (
            f"[INVALID_ARRAY_INDEX_IN_ELEMENT_AT] The index {index} is out of bounds. The "
            f"array has {size} elements. Use `try_element_at` to tolerate accessing element "
            "at invalid index and return NULL instead."
        )
    return (
        f"[INVALID_ARRAY_INDEX] The index {index} is out of bounds. The array has {size} "
        "elements. Use the SQL function `get()` to tolerate accessing element at invalid "
        "index and return NULL instead."
    )


def struct_field(struct: Any, name: str) -> Any:
    """The field ``name`` of a struct value (a dict, or a Row), found as Spark finds it
    (case-insensitively, spark.sql.caseSensitive being off); NULL of a NULL struct; of an
    array of structs, each one's."""
    if struct is None:
        return None
    if isinstance(struct, list):  # an array of structs: the array of their fields
        return [struct_field(s, name) for s in struct]
    if hasattr(struct, "asDict"):
        struct = struct.asDict()
    if isinstance(struct, tuple) and name.isdigit() and int(name) < len(struct):
        return struct[int(name)]  # arrays_zip's struct, its fields read by place
    if not isinstance(struct, dict):
        raise TypeError(f"{struct!r} is not a struct")
    if name in struct:
        return struct[name]
    found = [k for k in struct if k.lower() == name.lower()]
    if len(found) != 1:
        raise KeyError(f"the struct has no field {name} (its fields: {', '.join(struct)})")
    return struct[found[0]]


def subscript(offset: int, safe: bool, ansi: bool) -> Callable[[Any, Any], Any]:
    """``arr[i]`` (``offset`` 0), ``element_at(arr, i)`` (1: negative counts from the
    end, 0 is an error) and ``try_element_at`` (``safe``): out of bounds is NULL, or an
    error under ANSI mode unless ``safe``, as in Spark. On a map (a dict) each looks
    the key up; on a struct (a Row), ``s['f']`` is its field ``f``, as in Spark."""

    def at(values: Any, index: Any) -> Any:
        if hasattr(values, "asDict") and isinstance(index, str):
            return struct_field(values, index)
        if isinstance(values, dict):  # a map: a missing key is NULL, also under ANSI
            return values.get(map_key(index))
        if not isinstance(values, (list, tuple)):
            raise TypeError(f"{values!r} is not an array")
        i = _int(index)
        if offset == 1 and i == 0:
            raise InvalidIndex(
                "[INVALID_INDEX_OF_ZERO] The index 0 is invalid. An index shall be either < 0 "
                "or > 0 (the first element has index 1)."
            )
        position = i - 1 if offset == 1 and i > 0 else (len(values) + i if offset else i)
        if 0 <= position < len(values):
            return values[position]
        if ansi and not safe:
            raise InvalidIndex(_out_of_bounds(i, len(values), offset == 1))
        return None

    return at


def nanvl(a: Any, b: Any) -> Any:
    """``nanvl``: ``a`` unless it is NaN, then ``b`` (both as DOUBLE, as Spark casts)."""
    if a is None:
        return None
    a = float(a)
    if a == a:
        return a
    return None if b is None else float(b)


def try_mod(a: Any, b: Any) -> Any:
    """``try_mod``: Java's remainder, NULL for a zero divisor."""
    return None if b == 0 else java_remainder(a, b)


def find_in_set(s: Any, items: Any) -> int:
    """``find_in_set``: the 1-based place of ``s`` among the comma-separated ``items``;
    0 when absent or when ``s`` holds a comma."""
    s, items = _text(s), _text(items)
    if "," in s:
        return 0
    for i, item in enumerate(items.split(","), start=1):
        if item == s:
            return i
    return 0


def substring_index(s: Any, delim: Any, count: Any) -> str:
    """Spark's ``UTF8String.subStringIndex``: the text before the ``count``-th ``delim``
    from the left (from the right for a negative count); each search starts one place
    after the last match, so matches may overlap; fewer matches give all of ``s``."""
    s, delim, count = _text(s), _text(delim), _int(count)
    if not delim or count == 0:
        return ""
    if count > 0:
        idx = -1
        for _ in range(count):
            idx = s.find(delim, idx + 1)
            if idx < 0:
                return s
        return s[:idx]
    idx = len(s)
    for _ in range(-count):
        idx = s.rfind(delim, 0, idx - 1 + len(delim)) if idx > 0 else -1
        if idx < 0:
            return s
    return s[idx + len(delim) :]


def translate(s: Any, matching: Any, replace_by: Any) -> str:
    """Spark's ``translate``: each character of ``matching`` becomes the character at
    the same place in ``replace_by`` (the first occurrence in ``matching`` decides), or
    is removed where ``replace_by`` is shorter."""
    s, matching, replace_by = _text(s), _text(matching), _text(replace_by)
    table: dict[str, str] = {}
    for i, ch in enumerate(matching):
        table.setdefault(ch, replace_by[i] if i < len(replace_by) else "")
    return "".join(table.get(ch, ch) for ch in s)


def _elt(ansi: bool) -> Callable[..., Any]:
    """``elt(n, s1, s2, ...)``: the n-th string (1-based); out of range NULL, or an error
    under ANSI mode, as Spark."""

    def elt(n: Any, *values: Any) -> Any:
        if n is None:
            return None
        n = _int(n)
        if 1 <= n <= len(values):
            v = values[n - 1]
            binary = all(isinstance(x, (bytes, bytearray)) for x in values if x is not None)
            # Spark casts the values to STRING unless all are BINARY
            return v if v is None or isinstance(v, str) or binary else to_text(v)
        if ansi:
            raise InvalidIndex(_out_of_bounds(n, len(values), element_at=False))
        return None

    return elt


# ------------------------------------------------------------------ arrays and maps


def map_contains_key(values: Any, key: Any) -> Any:
    """``map_contains_key``: whether the map has the key (as ``array_contains`` of its
    keys)."""
    if not isinstance(values, dict):
        raise TypeError(f"{values!r} is not a map")
    return array_contains(list(values), key)


def array_slice(values: Any, start: Any, length: Any) -> list[Any]:
    """Spark's ``slice``: from 1-based ``start`` (negative: from the end) at most
    ``length`` elements; a start of 0 or a negative length is an error, as in Spark."""
    items, start, length = _array(values), _int(start), _int(length)
    if start == 0:
        raise InvalidIndex("slice() start must not be 0 (INVALID_PARAMETER_VALUE.START)")
    if length < 0:
        raise InvalidIndex(
            f"slice() length must be at least 0, got {length} (INVALID_PARAMETER_VALUE.LENGTH)"
        )
    first = start - 1 if start > 0 else len(items) + start
    if first < 0 or first >= len(items):
        return []
    return items[first : first + length]


def _with_element(at_end: bool) -> Callable[[Any, Any], Any]:
    """``array_append``/``array_prepend``: the element added (a NULL one too); NULL for
    a NULL array. Numbers take the array's common type, as Spark widens them."""

    def add(values: Any, element: Any) -> Any:
        if values is None:
            return None
        items = _array(values)
        return common([*items, element] if at_end else [element, *items])

    return add


def _array(v: Any) -> list[Any]:
    if not isinstance(v, (list, tuple)):
        raise TypeError(f"{v!r} is not an array")
    return list(v)


def array_join(values: Any, sep: Any, null_text: Any = None) -> str:
    """``array_join``: elements as Spark casts them to strings; NULL elements skipped,
    or written as ``null_text`` when given."""
    parts = [to_text(v) if v is not None else null_text for v in _array(values)]
    return _text(sep).join(p for p in parts if p is not None)


def _array_length(n: int, name: str) -> int:
    if n > MAX_ARRAY_LENGTH:
        raise ValueError(
            f"{name}() cannot create an array of {n} elements, above Spark's limit of "
            f"{MAX_ARRAY_LENGTH} (COLLECTION_SIZE_LIMIT_EXCEEDED)"
        )
    return n


def array_repeat(element: Any, count: Any) -> Any:
    """``array_repeat``: ``count`` times the element (a NULL one too); none for a count
    below 1; NULL for a NULL count."""
    if count is None:
        return None
    return [element] * _array_length(max(_int(count), 0), "array_repeat")


def array_insert(values: Any, pos: Any, element: Any) -> Any:
    """Spark's ``array_insert``: the element put at 1-based ``pos``, past the end padded
    with NULLs; a negative ``pos`` counts from the end, -1 putting it after the last
    element, and before the first pads NULLs after it (under
    ``spark.sql.legacy.negativeIndexInArrayInsert`` -1 puts it before the last element,
    every negative ``pos`` one place further left); ``pos`` 0 is an error
    (INVALID_INDEX_OF_ZERO). A NULL array or position gives NULL; numbers take the common
    type of the array and the element."""
    if values is None or pos is None:
        return None
    items, pos = _array(values), _int(pos)
    if pos == 0:
        raise InvalidIndex(
            "array_insert() position 0 is invalid (INVALID_INDEX_OF_ZERO): the first "
            "element has position 1"
        )
    if pos < 0 and setting_on(NEGATIVE_INDEX_IN_ARRAY_INSERT):
        pos -= 1
    at = pos - 1 if pos > 0 else len(items) + pos + 1
    if at < 0:
        _array_length(len(items) - at + 1, "array_insert")
        result = [element, *([None] * -at), *items]
    else:
        _array_length(max(at, len(items)) + 1, "array_insert")
        result = items[:at] + [None] * (at - len(items)) + [element] + items[at:]
    return common(result)


def _map_key(k: Any) -> Any:
    """A map key as Spark compares keys: NaN equals NaN, -0.0 equals 0.0."""
    if isinstance(k, float) and k != k:
        return ("NaN",)
    return map_key(k)


def map_concat(*maps: Any) -> dict[Any, Any]:
    """``map_concat``: the entries of every map in order; a key in two of them is an
    error (DUPLICATED_MAP_KEY, under the default spark.sql.mapKeyDedupPolicy=EXCEPTION), or
    keeps its first place with the last value (LAST_WIN). Keys and values each take their
    common type, as Spark widens them."""
    keys: list[Any] = []
    values: list[Any] = []
    seen: dict[Any, int] = {}
    for m in maps:
        for k, v in _map(m).items():
            key = _map_key(k)
            if key in seen:
                if not last_key_wins():
                    raise ValueError(
                        f"duplicate map key {k!r} in map_concat() (Spark's DUPLICATED_MAP_KEY "
                        "under the default spark.sql.mapKeyDedupPolicy=EXCEPTION)"
                    )
                values[seen[key]] = v
                continue
            seen[key] = len(keys)
            keys.append(k)
            values.append(v)
    return dict(zip(map(map_key, common(keys)), common(values)))


def flatten(values: Any) -> Any:
    """``flatten``: NULL if an inner array is NULL."""
    inner = _array(values)
    if any(v is None for v in inner):
        return None
    return [x for v in inner for x in _array(v)]


def sorter(ascending: bool, nulls_first: bool) -> Callable[[Any], list[Any]]:
    """``array_sort(arr)`` (ascending, NULLs last) and ``sort_array(arr[, asc])`` (NULLs
    first ascending, last descending); NaN sorts above every other double."""

    def sort(values: Any) -> list[Any]:
        items = _array(values)
        present = sorted((v for v in items if v is not None), key=order_key, reverse=not ascending)
        nulls = [None] * (len(items) - len(present))
        return nulls + present if nulls_first else present + nulls

    return sort


def checked_key(key: Any, seen: dict) -> Any:
    """``key`` as a new key of the map ``seen`` is building (see :func:`map_key`); a key
    already there is Spark's error, or (``spark.sql.mapKeyDedupPolicy=LAST_WIN``) the one
    whose value the caller replaces, keeping its place."""
    if key is None:
        raise ValueError("a map key is NULL (Spark's NULL_MAP_KEY)")
    key = map_key(key)
    if key in seen and not last_key_wins():
        raise ValueError(
            f"duplicate map key {key!r} (Spark's DUPLICATED_MAP_KEY under the default "
            "spark.sql.mapKeyDedupPolicy=EXCEPTION)"
        )
    return key


def make_map(keys: Any, values: Any) -> dict[Any, Any]:
    """``map(k1, v1, ...)`` (given as the list of keys and the list of values) and
    ``map_from_arrays``: a NULL or repeated key is an error, as in Spark."""
    keys, values = _array(keys), _array(values)
    if len(keys) != len(values):
        raise ValueError(  # Spark's words
            "[_LEGACY_ERROR_TEMP_2128] The key array and value array of MapData must have "
            "the same length."
        )
    result: dict[Any, Any] = {}
    for k, v in zip(keys, values):
        result[checked_key(k, result)] = v
    return result


def _map(v: Any) -> dict[Any, Any]:
    if not isinstance(v, dict):
        raise TypeError(f"{v!r} is not a map")
    return v


def map_entries(v: Any) -> list[tuple[Any, Any]]:
    """The (key, value) entries of a map value, in order."""
    return list(_map(v).items())


def arrays_zip(*arrays: Any) -> list[tuple[Any, ...]] | None:
    """``arrays_zip``: the i-th elements of every array as one struct (a tuple of them),
    as long as the longest array, NULL past a shorter one's end; NULL if an array is."""
    if any(a is None for a in arrays):
        return None
    items = [_array(a) for a in arrays]
    length = max((len(a) for a in items), default=0)
    return [tuple(a[i] if i < len(a) else None for a in items) for i in range(length)]


def sequence(start: Any, stop: Any, step: Any = None) -> list[Any]:
    """Spark's ``sequence`` of integers: ``stop`` included, the step 1 or -1 by default;
    a step that never reaches ``stop`` is an error (Spark's
    INVALID_SEQUENCE_BOUNDARIES... "Illegal sequence boundaries"). Of dates and
    timestamps: :func:`planner.datetime_steps.temporal_sequence`."""
    if isinstance(start, date) or isinstance(stop, date):
        return temporal_sequence(start, stop, step)
    if step is None:
        step = 1 if start <= stop else -1
    elif isinstance(step, (bool, float, Decimal, date)):  # Spark refuses the step's type
        raise TypeError(
            f"sequence() of integers takes an integral step, not {to_text(step)} (Spark's "
            "DATATYPE_MISMATCH.SEQUENCE_WRONG_INPUT_TYPES when it analyses the query)"
        )
    if not ((step > 0 and start <= stop) or (step < 0 and start >= stop) or start == stop):
        raise ValueError(
            f"illegal sequence boundaries: {start} to {stop} by {step} (Spark's "
            "INVALID_SEQUENCE_BOUNDARIES)"
        )
    return list(range(start, stop + (1 if step > 0 else -1), step)) if step else [start]


def map_from_entries(entries: Any) -> dict[Any, Any] | None:
    """``map_from_entries``: an array of (key, value) structs (dicts, as Arrow gives
    them, or tuples) as a map; a NULL entry makes the map NULL, a NULL or repeated key is
    an error, as in Spark."""
    result: dict[Any, Any] = {}
    for entry in _array(entries):
        if entry is None:
            return None
        pair = list(entry.values()) if isinstance(entry, dict) else list(entry)
        if len(pair) != 2:
            raise TypeError(f"{entry!r} is no (key, value) struct")
        result[checked_key(pair[0], result)] = pair[1]
    return result


def initcap(s: Any, _space: Any = " ") -> str:
    """Spark's ``initcap``: each word (split at spaces only) its first character in
    title case, in full (``ß`` is ``Ss``, ``ﬁ`` is ``Fi``; ``İ`` stays), the rest in lower
    case (a final sigma as ``ς``)."""
    return " ".join(w[:1].title() + w[1:].lower() for w in s.split(" "))


def split_part(s: Any, delim: Any, part: Any) -> str:
    """``split_part``: the ``part``-th piece (1-based, negative from the end, '' when
    beyond); an empty delimiter does not split; part 0 is Spark's INVALID_INDEX_OF_ZERO."""
    part = _int(part)
    if part == 0:
        raise ValueError("split_part's index 0 is invalid (Spark's INVALID_INDEX_OF_ZERO)")
    pieces = s.split(delim) if delim else [s]
    i = part - 1 if part > 0 else len(pieces) + part
    return pieces[i] if 0 <= i < len(pieces) else ""


def overlay(s: Any, by: Any, pos: Any, length: Any = -1) -> Any:
    """``overlay(s PLACING by FROM pos [FOR length])``: ``length`` characters from
    ``pos`` replaced (a negative length: as many as ``by`` has)."""
    pos, length = _int(pos), _int(length)
    n = length if length >= 0 else len(by)
    return substring(s, 1, pos - 1) + by + substring(s, pos + n)


def rint(x: Any) -> float:
    """Java's ``Math.rint``: the nearest whole double, ties to even, a zero keeps the sign."""
    f = float(x)
    if not math.isfinite(f):
        return f
    return math.copysign(float(round(f)), f)


def isnan(x: Any) -> bool:
    """``isnan``: false for NULL and for any non-NaN."""
    return isinstance(x, float) and x != x


def factorial(n: Any) -> Any:
    """``factorial``: n! for 0 <= n <= 20 (a BIGINT), NULL otherwise."""
    n = _int(n)
    return math.factorial(n) if 0 <= n <= 20 else None


def measured(x: Any) -> float:
    """A number, or a day-time interval as its microseconds (Spark's long of one)."""
    if isinstance(x, timedelta):
        return float(x // timedelta(microseconds=1))
    return float(x)


def width_bucket(value: Any, low: Any, high: Any, buckets: Any) -> Any:
    """Spark's ``width_bucket``: the 1-based bucket of ``value`` among ``buckets`` equal
    ranges from ``low`` to ``high`` (0 below, ``buckets + 1`` above; a descending range
    counts from ``low`` down); NULL for a NaN, an infinite bound, equal bounds or a
    bucket count that is not positive."""
    v, lo, hi, n = measured(value), measured(low), measured(high), _int(buckets)
    if n <= 0 or n == 2**63 - 1 or v != v or lo == hi:
        return None
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return None
    lower, upper = min(lo, hi), max(lo, hi)
    if lo < hi:
        if v < lower:
            return 0
        if v >= upper:
            return n + 1
        return int(n * (v - lower) / (upper - lower)) + 1
    if v > upper:
        return 0
    if v <= lower:
        return n + 1
    return int(n * (upper - v) / (upper - lower)) + 1


# ------------------------------------------------------------------ dates (decomposed calls)


def datediff(end: Any, start: Any) -> int:
    """``datediff`` of two DATE values (the parts of a decomposed call are Spark's; this
    is what is left when an argument is an aggregate or glue, e.g. ``max(S.d)``)."""
    return (day_of(end) - day_of(start)).days


def days_add(day: Any, n: Any) -> date | FarDate:
    """``date_add(day, n)``; ``day`` is already a DATE (Spark cast it)."""
    return add_days(day, _int(n))


def months_add(day: Any, n: Any) -> date | FarDate:
    """``add_months``: the same day ``n`` months later, clipped to the month's last day."""
    return months_later(day, _int(n))


def year_month_add(v: Any, months: Any) -> date:
    """``v + INTERVAL 'n' MONTH`` (a YEAR-MONTH interval literal, as ``months``): a DATE
    moves as ``add_months`` moves it and stays a DATE, a TIMESTAMP or TIMESTAMP_NTZ its
    wall-clock date as ``timestampadd(MONTH, n, v)`` (Spark's ``dateAddMonths`` and
    ``timestampAddMonths``)."""
    if isinstance(v, (datetime, FarTimestamp)):
        return DATETIME_FUNCTIONS["TIMESTAMPADD_MONTH"](v, months)
    if not isinstance(v, (date, FarDate)):
        raise TypeError(f"{v!r} is not a DATE or a TIMESTAMP")
    return months_add(v, months)


def local_months_until(a_micros: int, b_micros: int) -> int:
    """Java's ``LocalDateTime.until(end, MONTHS)`` for local date-times given as
    microseconds since 1970-01-01T00:00 (what ``timestampdiff(MICROSECOND, anchor, x)``
    gives): whole months, counted toward zero, the end's time of day taken into account."""
    return months_until(timestamp_of_micros(a_micros, None), timestamp_of_micros(b_micros, None))


def months_between(
    days1: Any, seconds1: Any, days2: Any, seconds2: Any, round_off: Any = True
) -> float:
    """Spark's ``DateTimeUtils.monthsBetween`` from each side's local date (days since
    1970-01-01) and seconds since the start of that day."""
    d1, d2 = date_of_days(days1), date_of_days(days2)  # past 9999 too
    month_diff = float((d1.year * 12 + d1.month) - (d2.year * 12 + d2.month))
    # (the Gregorian calendar repeats every 400 years)
    last1 = d1.day == calendar.monthrange(2000 + d1.year % 400, d1.month)[1]
    last2 = d2.day == calendar.monthrange(2000 + d2.year % 400, d2.month)[1]
    if d1.day == d2.day or (last1 and last2):
        return month_diff
    seconds = (d1.day - d2.day) * 86400 + seconds1 - seconds2
    diff = month_diff + seconds / float(31 * 86400)
    return math.floor(diff * 1e8 + 0.5) / 1e8 if round_off else diff


def _of_strings(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` of STRING arguments only: Spark casts nothing to the JSON functions'
    strings (``get_json_object(12, '$')`` is refused when Spark analyses it)."""

    def call(*args: Any) -> Any:
        for v in args:
            if not isinstance(v, str):
                raise TypeError(f"{to_text(v)} is not a STRING (Spark casts nothing here)")
        return fn(*args)

    return call


def _number_text(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``to_char``/``to_varchar`` of a number (an integer or a DECIMAL; Spark formats a
    date, a timestamp or a binary another way, not computed here)."""

    def call(value: Any, fmt: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, (int, Decimal)):
            raise TypeError(f"to_char of {to_text(value)} is not computed here (only numbers)")
        return fn(value, fmt)

    return call


def _masked(s: Any, *chars: Any) -> Any:
    """``mask(s[, upper[, lower[, digit[, other]]]])``: a NULL replacement keeps those
    characters; a NULL ``s`` is NULL."""
    return None if s is None else mask(s, *chars)


# ------------------------------------------------------------------ the table


#: internal calls (``planner.decompose``) -> the places of the arguments they get besides
#: the user's (the session zone, a probe), which an error about the call does not show
CONTEXT_ARGUMENTS: dict[str, tuple[int, ...]] = {
    "__MR_TO_CHAR": (1, 2),
    "__MR_BASE64": (1,),
}


@dataclass(frozen=True)
class GlueFunction:
    """A Spark function in Python; ``strict``: a NULL argument gives NULL."""

    fn: Callable[..., Any]
    strict: bool = True
    ansi_fn: Callable[..., Any] | None = None  # the function under ANSI mode, if it differs


EXTENDED: dict[str, GlueFunction] = {
    "SUBSTRING": GlueFunction(substring),
    "SUBSTR": GlueFunction(substring),
    "LEFT": GlueFunction(left),
    "RIGHT": GlueFunction(right),
    "STRPOSITION": GlueFunction(str_position, strict=False),
    "STARTSWITH": GlueFunction(lambda s, p: s.startswith(p)),
    "ENDSWITH": GlueFunction(lambda s, p: s.endswith(p)),
    "CONTAINS": GlueFunction(lambda s, p: p in s),
    "REPLACE": GlueFunction(replace),
    "LPAD": GlueFunction(lambda s, n, *pad: _pad(s, n, pad[0] if pad else None, True)),
    "RPAD": GlueFunction(lambda s, n, *pad: _pad(s, n, pad[0] if pad else None, False)),
    "REPEAT": GlueFunction(repeat),
    "TRIM": GlueFunction(_trimmer(True, True)),
    "BTRIM": GlueFunction(_trimmer(True, True)),
    "LTRIM": GlueFunction(_trimmer(True, False)),
    "RTRIM": GlueFunction(_trimmer(False, True)),
    "REVERSE": GlueFunction(lambda s: s[::-1]),
    "CONCAT_WS": GlueFunction(legacy_concat_ws, strict=False, ansi_fn=concat_ws),
    "NULLIF": GlueFunction(nullif, strict=False),
    "NVL2": GlueFunction(nvl2, strict=False),
    "ARRAY_CONTAINS": GlueFunction(array_contains, strict=False),
    "ARRAY_MAX": GlueFunction(_array_extreme(True)),
    "ARRAY_MIN": GlueFunction(_array_extreme(False)),
    "PMOD": GlueFunction(pmod, ansi_fn=pmod_ansi),
    "LEVENSHTEIN": GlueFunction(levenshtein),
    "ARRAY": GlueFunction(lambda *values: list(common(list(values))), strict=False),
    "TRY_DIVIDE": GlueFunction(try_divide),
    "DATEDIFF": GlueFunction(datediff),
    "ARRAY_JOIN": GlueFunction(array_join),
    "FLATTEN": GlueFunction(flatten),
    "ARRAY_SORT": GlueFunction(sorter(True, False)),
    "SORT_ARRAY": GlueFunction(sorter(True, True)),
    "SORT_ARRAY_DESC": GlueFunction(sorter(False, False)),
    "NANVL": GlueFunction(nanvl, strict=False),
    "TRY_MOD": GlueFunction(try_mod),
    "FIND_IN_SET": GlueFunction(find_in_set),
    "SUBSTRING_INDEX": GlueFunction(substring_index),
    "TRANSLATE": GlueFunction(translate),
    "ELT": GlueFunction(_elt(False), strict=False, ansi_fn=_elt(True)),
    "GET": GlueFunction(subscript(0, safe=True, ansi=False)),  # 0-based, NULL outside
    "MAP_CONTAINS_KEY": GlueFunction(map_contains_key),
    "SLICE": GlueFunction(array_slice),
    "ARRAY_APPEND": GlueFunction(_with_element(True), strict=False),
    "ARRAY_PREPEND": GlueFunction(_with_element(False), strict=False),
    "MAP": GlueFunction(make_map),
    "MAP_FROM_ARRAYS": GlueFunction(make_map),
    "MAP_FROM_ENTRIES": GlueFunction(map_from_entries),
    "MAP_KEYS": GlueFunction(lambda m: list(_map(m))),
    "MAP_CONCAT": GlueFunction(map_concat),
    "MAP_ENTRIES": GlueFunction(map_entries),
    "PARSE_URL": GlueFunction(
        lambda *a: parse_url(*a, ansi=False), ansi_fn=lambda *a: parse_url(*a, ansi=True)
    ),
    "TRY_PARSE_URL": GlueFunction(try_parse_url),
    "ARRAYS_ZIP": GlueFunction(arrays_zip, strict=False),
    "ARRAY_REPEAT": GlueFunction(array_repeat, strict=False),
    "ARRAY_INSERT": GlueFunction(array_insert, strict=False),
    "NULLIFZERO": GlueFunction(nullifzero),
    "ASCII": GlueFunction(ascii_code),
    "CHR": GlueFunction(chr_of, ansi_fn=chr_of_ansi),
    "SOUNDEX": GlueFunction(soundex),
    "LUHN_CHECK": GlueFunction(luhn_check),
    "URL_ENCODE": GlueFunction(url_encode),
    "URL_DECODE": GlueFunction(url_decode),
    "TRY_URL_DECODE": GlueFunction(try_url_decode),
    "ENCODE": GlueFunction(encode),
    "DECODE": GlueFunction(decode),
    "MAP_VALUES": GlueFunction(lambda m: list(_map(m).values())),
    "SEQUENCE": GlueFunction(sequence),
    "INITCAP": GlueFunction(initcap),
    "SPLIT_PART": GlueFunction(split_part),
    "OVERLAY": GlueFunction(overlay),
    "RINT": GlueFunction(rint),
    "ISNAN": GlueFunction(isnan, strict=False),
    "FACTORIAL": GlueFunction(factorial),
    "WIDTH_BUCKET": GlueFunction(width_bucket),
    "BIT_COUNT": GlueFunction(bit_count),
    "BIN": GlueFunction(to_binary),
    "CONV": GlueFunction(conv, ansi_fn=conv_ansi),
    "FORMAT_NUMBER": GlueFunction(format_number),
    "UNBASE64": GlueFunction(from_base64),
    "E": GlueFunction(lambda: math.e),  # Java's Math.E and Math.PI: the same doubles
    "PI": GlueFunction(lambda: math.pi),
    "MAKE_DT_INTERVAL": GlueFunction(make_dt_interval, ansi_fn=make_dt_interval_ansi),
    "MAKE_INTERVAL": GlueFunction(make_interval, ansi_fn=make_interval_ansi),
    "GET_JSON_OBJECT": GlueFunction(_of_strings(get_json_object)),
    "JSON_ARRAY_LENGTH": GlueFunction(_of_strings(json_array_length)),
    "JSON_OBJECT_KEYS": GlueFunction(_of_strings(json_object_keys)),
    "TO_NUMBER": GlueFunction(_of_strings(to_number)),
    "TRY_TO_NUMBER": GlueFunction(_of_strings(try_to_number)),
    "TO_CHAR": GlueFunction(_number_text(to_char)),
    "TO_VARCHAR": GlueFunction(_number_text(to_char)),
    "MASK": GlueFunction(_masked, strict=False),
    "JARO_WINKLER_SIMILARITY": GlueFunction(jaro_winkler_similarity),
    "QUOTE": GlueFunction(quote),
    "SPACE": GlueFunction(lambda n: " " * n if n > 0 else ""),
    "POSITIVE": GlueFunction(lambda x: x),
    "IS_VALID_UTF8": GlueFunction(is_valid_utf8),
    "MAKE_VALID_UTF8": GlueFunction(make_valid_utf8),
    "VALIDATE_UTF8": GlueFunction(validate_utf8),
    "TRY_VALIDATE_UTF8": GlueFunction(try_validate_utf8),
    "TIMESTAMP_SECONDS": GlueFunction(timestamp_seconds),
    "TIMESTAMP_MILLIS": GlueFunction(timestamp_millis),
    "TIMESTAMP_MICROS": GlueFunction(timestamp_micros),
    "DATE_FROM_UNIX_DATE": GlueFunction(date_from_unix_date),
    "__MR_BASE64": GlueFunction(to_base64),
    "__MR_TO_CHAR": GlueFunction(to_char_of),
    "TO_BINARY": GlueFunction(binary_of(failing=True)),
    "TRY_TO_BINARY": GlueFunction(binary_of(failing=False)),
    # the value itself: a comparison of it folds as its Spark type's collation says
    # (``IntegerWidth.fold``), one the glue lacks is refused there
    "COLLATE": GlueFunction(lambda s: s),
    # the combinations of decomposed calls (planner.decompose); never written by users
    "__MR_DAYS_ADD": GlueFunction(days_add),
    "__MR_MONTHS_ADD": GlueFunction(months_add),
    "__MR_YEAR_MONTH_ADD": GlueFunction(year_month_add),
    "__MR_MONTHS_UNTIL": GlueFunction(local_months_until),
    "__MR_MONTHS_BETWEEN": GlueFunction(months_between),
}

# sqlglot's node classes of those functions
EXTENDED_NODES: dict[type, str] = {
    exp.Substring: "SUBSTRING",
    exp.Left: "LEFT",
    exp.Right: "RIGHT",
    exp.StartsWith: "STARTSWITH",
    exp.EndsWith: "ENDSWITH",
    exp.Contains: "CONTAINS",
    exp.Replace: "REPLACE",
    exp.StrPosition: "STRPOSITION",
    exp.Repeat: "REPEAT",
    exp.Reverse: "REVERSE",
    exp.ConcatWs: "CONCAT_WS",
    exp.Nullif: "NULLIF",
    exp.Nvl2: "NVL2",
    exp.ArrayContains: "ARRAY_CONTAINS",
    exp.ArrayToString: "ARRAY_JOIN",
    exp.ArrayMax: "ARRAY_MAX",
    exp.ArrayMin: "ARRAY_MIN",
    exp.Levenshtein: "LEVENSHTEIN",
    exp.Array: "ARRAY",
    exp.SafeDivide: "TRY_DIVIDE",
    exp.Flatten: "FLATTEN",
    exp.VarMap: "MAP",
    exp.Map: "MAP_FROM_ARRAYS",
    exp.MapFromEntries: "MAP_FROM_ENTRIES",
    exp.MapKeys: "MAP_KEYS",
    exp.ArraysZip: "ARRAYS_ZIP",
    exp.ParseUrl: "PARSE_URL",
    exp.GenerateSeries: "SEQUENCE",
    exp.Nanvl: "NANVL",
    exp.SubstringIndex: "SUBSTRING_INDEX",
    exp.Translate: "TRANSLATE",
    exp.Elt: "ELT",
    exp.MapContainsKey: "MAP_CONTAINS_KEY",
    exp.ArraySlice: "SLICE",
    exp.ArrayAppend: "ARRAY_APPEND",
    exp.ArrayPrepend: "ARRAY_PREPEND",
    exp.SplitPart: "SPLIT_PART",
    exp.Overlay: "OVERLAY",
    exp.Rint: "RINT",
    exp.IsNan: "ISNAN",
    exp.Factorial: "FACTORIAL",
    exp.WidthBucket: "WIDTH_BUCKET",
    exp.FromBase64: "UNBASE64",
    exp.ToBinary: "TO_BINARY",
    exp.Pi: "PI",
    exp.ArrayInsert: "ARRAY_INSERT",
    exp.Ascii: "ASCII",
    exp.Soundex: "SOUNDEX",
    exp.Encode: "ENCODE",
    exp.Decode: "DECODE",
    exp.JSONExtractScalar: "GET_JSON_OBJECT",
    exp.JSONKeys: "JSON_OBJECT_KEYS",
    exp.ToNumber: "TO_NUMBER",
    exp.DateFromUnixDate: "DATE_FROM_UNIX_DATE",
    exp.Space: "SPACE",
    exp.MakeInterval: "MAKE_INTERVAL",
}


EXTENDED.update({name: GlueFunction(fn) for name, fn in ARRAY_FUNCTIONS.items()})
EXTENDED_NODES.update(ARRAY_NODES)
EXTENDED_NODES.update(BIT_NODES)
EXTENDED.update({name: GlueFunction(fn) for name, fn in REGEX_FUNCTIONS.items()})
EXTENDED_NODES.update(REGEX_NODES)
EXTENDED.update({name: GlueFunction(fn) for name, fn in DIGEST_FUNCTIONS.items()})
EXTENDED_NODES.update(DIGEST_NODES)
EXTENDED.update({name: GlueFunction(fn) for name, fn in DATETIME_FUNCTIONS.items()})
EXTENDED_NODES.update(DATETIME_NODES)
EXTENDED["MAKE_DATE"] = GlueFunction(make_date, ansi_fn=make_date_ansi)
EXTENDED["NEXT_DAY"] = GlueFunction(next_day(False), ansi_fn=next_day(True))
EXTENDED.update(
    {name: GlueFunction(fn, ansi_fn=ansi_fn) for name, (fn, ansi_fn) in ZONE_FUNCTIONS.items()}
)
EXTENDED_NODES.update(ZONE_NODES)


def extended_name(node: exp.Expression) -> str | None:
    """The :data:`EXTENDED` entry of call ``node``, or None."""
    if isinstance(node, exp.DateDiff):
        return "DATEDIFF" if node.args.get("unit") is None else None
    if isinstance(node, exp.Pad):
        return "LPAD" if node.args.get("is_left") else "RPAD"
    if isinstance(
        node, (exp.Extract, exp.TimestampAdd, exp.TimestampDiff, exp.TimestampTrunc, exp.DateTrunc)
    ):
        return datetime_name(node)
    if isinstance(node, exp.Trim):  # sqlglot's arguments: the string, then the characters
        return None if node.args.get("collation") else _TRIMS.get(node.args.get("position"))
    if isinstance(node, exp.Chr):  # another dialect's character set: not Spark's chr
        return None if isinstance(node.args.get("charset"), exp.Expression) else "CHR"
    if isinstance(node, exp.Initcap):  # sqlglot's delimiters: Spark's is a space only
        space = node.expression
        spark = space is None or (isinstance(space, exp.Literal) and space.this == " ")
        return "INITCAP" if spark else None
    if isinstance(node, exp.ArraySort):
        return _sort_name(node)
    if isinstance(node, exp.Collate):
        return "COLLATE" if _compared(node) else None
    if isinstance(node, exp.Anonymous):  # date_trunc('fortnight', ts) before date_trunc(u, ts)
        name = str(node.this).upper()
        if name in ("DATE_TRUNC", "TRUNC") and len(node.expressions) != 2:
            return None  # not Spark's call: refused as written
        return datetime_name(node) or (name if name in EXTENDED else None)
    name = EXTENDED_NODES.get(type(node))
    if name in REGEX_SLOTS and _other_slots(node, REGEX_SLOTS[name]):
        return None  # another dialect's arguments (occurrence, flags, ...): not Spark's
    return name


#: the comparison operators (Spark brings their operands to one type: a DECIMAL scale, a
#: string collation)
COMPARISONS = (
    exp.EQ,
    exp.NEQ,
    exp.LT,
    exp.LTE,
    exp.GT,
    exp.GTE,
    exp.NullSafeEQ,
    exp.NullSafeNEQ,
)
#: the arithmetic operators (Spark brings their operands to one type: a DECIMAL's
#: precision and scale, a string read as a number)
ARITHMETIC = (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod, exp.IntDiv)
#: what compares a collated string as its collation says (``IntegerWidth.fold``); other
#: functions of it (contains, replace, ...) would need their collation-aware forms
_FOLDING = (*COMPARISONS, exp.In)


def _compared(node: exp.Expression) -> bool:
    """Whether collated ``node`` is compared, or is a measure's value itself."""
    parent = node.parent
    while isinstance(parent, exp.Paren):
        parent = parent.parent
    return parent is None or isinstance(parent, (*_FOLDING, exp.Alias))


#: the entries of sqlglot's Trim by its position (trim(s), trim(BOTH c FROM s), ltrim...)
_TRIMS = {None: "TRIM", "BOTH": "TRIM", "LEADING": "LTRIM", "TRAILING": "RTRIM"}


def _other_slots(node: exp.Expression, slots: tuple[str, ...]) -> bool:
    return any(isinstance(v, exp.Expression) and k not in slots for k, v in node.args.items())


def _sort_name(node: exp.ArraySort) -> str | None:
    """The entry of ``array_sort``/``sort_array`` by its flags; a comparator lambda or a
    direction that is not a literal is not computed here."""
    asc, nulls_first = node.args.get("asc"), node.args.get("nulls_first")
    if node.expression is not None or not isinstance(nulls_first, exp.Boolean):
        return None
    if asc is not None and not isinstance(asc, exp.Boolean):
        return None
    if asc is not None and not asc.this:
        return "SORT_ARRAY_DESC"
    return "SORT_ARRAY" if nulls_first.this else "ARRAY_SORT"


def node_args(node: exp.Expression) -> list[exp.Expression]:
    """The arguments of call ``node`` in sqlglot's order of its argument slots (the
    flags of ``array_sort``/``sort_array`` are in its entry's name)."""
    if isinstance(node, (exp.ArraySort, exp.Collate)):
        return [node.this]
    special = datetime_args(node)
    if special is None:
        special = zone_args(node)
    if special is not None:
        return special
    if isinstance(node, exp.Anonymous):
        return list(node.expressions)
    name = EXTENDED_NODES.get(type(node))
    if name in REGEX_SLOTS:
        slots = [node.args.get(k) for k in REGEX_SLOTS[name]]
        return [v for v in slots if isinstance(v, exp.Expression)]
    args: list[exp.Expression] = []
    for key in node.arg_types:
        value = node.args.get(key)
        if isinstance(value, exp.Expression):
            args.append(value)
        elif isinstance(value, list):
            args.extend(v for v in value if isinstance(v, exp.Expression))
    return args
