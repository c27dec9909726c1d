"""Result values as sqllogictest text, and comparison of expected and actual tables.

Values are written as the conformance files expect: ``NULL``, ``true``/``false``,
floats in Python's shortest form (``4.0``, ``NaN``, ``Infinity``), decimals in plain
notation (``1.50``), timestamps ISO with a space (``2020-01-01 10:00:00.5``), arrays
``[a, b]``, maps and structs ``{k: v}``, and the empty string as ``(empty)``.
"""

from __future__ import annotations

import datetime as dt
import difflib
import math
import re
from collections.abc import Iterable, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

import numpy as np

from .slt_parser import EMPTY

NULL = "NULL"

Table = list[tuple[str, ...]]


def format_value(value: Any, dtype: Any = None, time_zone: str | None = None) -> str:
    """``value`` (from ``DataFrame.collect()``) as one sqllogictest cell.

    ``dtype`` is the Spark data type of the value, when known: PySpark hands
    ``TIMESTAMP`` values over in the local time of the Python process, and with the
    type and the session ``time_zone`` they are shown in the session's time instead.
    """
    text = _format(value, dtype, time_zone)
    return EMPTY if text == "" else text


def format_row(
    row: Sequence[Any], schema: Any = None, time_zone: str | None = None
) -> tuple[str, ...]:
    """A result row (a ``Row`` or any sequence) as a tuple of cells."""
    types = [f.dataType for f in schema.fields] if schema is not None else [None] * len(row)
    return tuple(format_value(v, t, time_zone) for v, t in zip(row, types, strict=False))


def format_rows(
    rows: Iterable[Sequence[Any]], schema: Any = None, time_zone: str | None = None
) -> Table:
    """All result rows as tuples of cells, in their order."""
    return [format_row(row, schema, time_zone) for row in rows]


def _format(value: Any, dtype: Any, tz: str | None) -> str:
    if value is None:
        return NULL
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format_float(value, single=type(dtype).__name__ == "FloatType")
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, str):
        return value
    if isinstance(value, dt.datetime):
        return format_datetime(_in_session_zone(value, dtype, tz))
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, dt.time):
        return _trim_fraction(value.isoformat())
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    if isinstance(value, dict):
        key_type = getattr(dtype, "keyType", None)
        value_type = getattr(dtype, "valueType", None)
        items = (
            f"{_format(k, key_type, tz)}: {_format(v, value_type, tz)}" for k, v in value.items()
        )
        return "{" + ", ".join(items) + "}"
    if isinstance(value, tuple) and hasattr(value, "__fields__"):  # a pyspark Row (struct)
        fields = getattr(dtype, "fields", None) or [None] * len(value)
        items = (
            f"{name}: {_format(v, getattr(f, 'dataType', None), tz)}"
            for name, v, f in zip(value.__fields__, value, fields, strict=False)
        )
        return "{" + ", ".join(items) + "}"
    if isinstance(value, (list, tuple)):
        element_type = getattr(dtype, "elementType", None)
        return "[" + ", ".join(_format(v, element_type, tz) for v in value) + "]"
    return str(value)


def format_float(value: float, single: bool = False) -> str:
    """Shortest round-trip form: ``4.0``, ``1.5``, ``1e+16``; ``NaN``, ``Infinity``. A
    ``single`` (a FLOAT, which PySpark hands over widened to a double) in the shortest
    form that reads back as the same FLOAT: ``0.1``, as Spark shows it, not
    ``0.10000000149011612``."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if single:
        value = float(str(np.float32(value)))  # its shortest digits, as a double
    return repr(value)


def format_datetime(value: dt.datetime) -> str:
    """``YYYY-MM-DD HH:MM:SS[.fraction]`` without trailing zeros in the fraction."""
    return _trim_fraction(value.replace(tzinfo=None).isoformat(sep=" "))


def _trim_fraction(text: str) -> str:
    return re.sub(r"\.(\d*?)0+$", lambda m: "." + m.group(1) if m.group(1) else "", text)


def _in_session_zone(value: dt.datetime, dtype: Any, tz: str | None) -> dt.datetime:
    """Undo PySpark's conversion of a TIMESTAMP to the Python process's local time."""
    if tz is None or value.tzinfo is not None or type(dtype).__name__ != "TimestampType":
        return value
    try:
        from zoneinfo import ZoneInfo

        zone: dt.tzinfo = ZoneInfo(tz)
    except (ImportError, ValueError, KeyError):
        offset = re.fullmatch(r"(?:UTC|GMT)?([+-])(\d{1,2}):?(\d{2})?", tz)
        if tz.upper() in ("UTC", "GMT", "Z"):
            zone = dt.timezone.utc
        elif offset:
            sign = 1 if offset.group(1) == "+" else -1
            minutes = int(offset.group(2)) * 60 + int(offset.group(3) or 0)
            zone = dt.timezone(sign * dt.timedelta(minutes=minutes))
        else:
            return value
    try:
        return value.astimezone(zone)
    except (OverflowError, OSError, ValueError):
        return value


# ---------------------------------------------------------------------------- comparing


def sort_table(rows: Table, mode: str, types: str = "") -> Table:
    """Rows in the order they are compared: ``rowsort`` sorts rows, ``valuesort`` values.
    Cells of ``R`` columns sort by their number, so that ``0.00001`` expected and
    ``1e-05`` written pair up (as text they sort apart, and every row after pairs wrong)."""
    if mode == "rowsort":
        return sorted(rows, key=lambda row: _row_key(row, types))
    if mode == "valuesort":
        values = [v for row in rows for v in row]
        letter = valuesort_types(types)
        return [(v,) for v in sorted(values, key=lambda v: _cell_key(v, letter))]
    return list(rows)


def _row_key(row: tuple[str, ...], types: str) -> tuple:
    return tuple(_cell_key(v, types[i] if i < len(types) else "T") for i, v in enumerate(row))


def _cell_key(cell: str, letter: str) -> tuple:
    """Numbers of an ``R`` column before any text, in numeric order (NaN last of them)."""
    if letter == "R":
        try:
            number = float(cell)
        except ValueError:
            return (1, 0.0, cell)
        if math.isnan(number):
            return (0, math.inf, cell)
        return (0, number, "")
    return (1, 0.0, cell)


def valuesort_types(types: str) -> str:
    """The one type letter of ``valuesort``'s single column of all values: ``R`` (compare
    as numbers) only if every column is ``R``."""
    return "R" if types and set(types) == {"R"} else "T"


#: the type letter of an ``R`` column whose values are exact (a DECIMAL, an integer)
EXACT = "E"


def cells_equal(expected: str, actual: str, type_letter: str = "T") -> bool:
    """Exact text, except that ``R`` (float) cells compare as numbers nine significant
    digits apart at most, and :data:`EXACT` ones (a DECIMAL column's) as equal numbers
    (``4.0`` is ``4.00``, a last digit is not)."""
    if expected == actual:
        return True
    if type_letter == EXACT:
        try:
            return Decimal(expected) == Decimal(actual)
        except InvalidOperation:
            return False
    if type_letter != "R":
        return False
    try:
        a, b = float(expected), float(actual)
    except ValueError:
        return False
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def tables_equal(expected: Table, actual: Table, types: str = "") -> bool:
    """Equal row by row and cell by cell (rows already in comparison order)."""
    if len(expected) != len(actual):
        return False
    for exp_row, act_row in zip(expected, actual, strict=True):
        if len(exp_row) != len(act_row):
            return False
        for i, (e, a) in enumerate(zip(exp_row, act_row, strict=True)):
            if not cells_equal(e, a, types[i] if i < len(types) else "T"):
                return False
    return True


def render_table(rows: Table) -> list[str]:
    """One tab-separated line per row, as written in ``.slt`` files."""
    return ["\t".join(row) for row in rows]


def table_diff(expected: Table, actual: Table) -> str:
    """A unified diff from the expected to the actual rows (whole table if short)."""
    exp, act = render_table(expected), render_table(actual)
    context = max(len(exp), len(act)) if max(len(exp), len(act)) <= 40 else 3
    lines = difflib.unified_diff(exp, act, "expected", "actual", lineterm="", n=context)
    text = "\n".join(lines)
    if not text:  # same text, different shape (cannot happen with tab-free values)
        text = "expected:\n" + "\n".join(exp) + "\nactual:\n" + "\n".join(act)
    if not expected:
        text += "\n(expected no rows)"
    if not actual:
        text += "\n(actual result has no rows)"
    return text
