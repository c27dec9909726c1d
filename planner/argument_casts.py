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
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any

from matchrec.errors import MatchRuntimeError
from matchrec.far_dates import FarDate
from matchrec.far_timestamps import FarTimestamp

from .datetime_functions import TIME_FIELDS, TIMESTAMP_UNITS, TRUNC_UNITS, canonical_field
from .implicit_casts import implicit_cast


@dataclass(frozen=True)
class Param:
    """A parameter: the Spark type ``target`` a value of another Python type is cast to;
    the Python types ``taken`` as they are; those cast to STRING instead (``hex`` hexes a
    number's BIGINT but a BOOLEAN's or a DATE's text)."""

    target: str
    taken: tuple[type, ...]
    as_text: tuple[type, ...] = ()
    refused: tuple[type, ...] = ()  # Spark refuses these types when it analyses the call

    @property
    def bytes_or_text(self) -> bool:
        return bytes in self.taken and str in self.taken


_STRING = Param("string", (str,))
_TEXT_OR_BYTES = Param("string", (str, bytes, bytearray))
_INT = Param("int", (int,))
_LONG = Param("bigint", (int,))
_HEX = Param("bigint", (int, str, bytes, bytearray), as_text=(bool, date))  # date: datetime too
_DOUBLE = Param("double", (float,))
_DOUBLE_OR_INTERVAL = Param("double", (float, timedelta))
_TIMESTAMP = Param("timestamp", (datetime,))
_DATE = Param("date", (date,))  # a TIMESTAMP (a datetime) is read by the function itself
_ANY = Param("", ())  # no cast
#: what to_char formats as it is (a DATE or TIMESTAMP past Python's years too)
_FORMATTED_AS_THEY_ARE = (int, Decimal, date, FarDate, FarTimestamp, bytes, bytearray, str, bool)

#: Spark takes no BOOLEAN, DATE or TIMESTAMP where it takes a number (it refuses the call
#: when it analyses it; the table function, which cannot ask, refuses the value)
_NUMBERS = {"int", "bigint", "double"}
_NOT_NUMBERS = (bool, date, timedelta)
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
    "HEX": (_HEX,),
    "SHA2": (_TEXT_OR_BYTES, _INT),
    **dict.fromkeys(("OCTET_LENGTH", "BIT_LENGTH"), (_TEXT_OR_BYTES,)),
    **dict.fromkeys(("UNBASE64", "ENCODE", "STR_TO_MAP"), (_STRING,)),
    # the regular expressions (their patterns are string literals, checked when built)
    **dict.fromkeys(
        ("LIKE", "ILIKE", "RLIKE", "REGEXP", "REGEXP_COUNT", "REGEXP_SUBSTR"), (_STRING,)
    ),
    **dict.fromkeys(("REGEXP_EXTRACT", "REGEXP_EXTRACT_ALL", "SPLIT"), (_STRING, _STRING, _INT)),
    "REGEXP_INSTR": (_STRING, _STRING, _INT),
    "REGEXP_REPLACE": (_STRING, _STRING, _STRING, _INT),
    "REVERSE": (Param("string", (str, list, bytes, bytearray)),),  # a string, bytes or an array
    # a string is read as a DOUBLE (an integer or a DECIMAL stays as it is)
    **dict.fromkeys(("CEIL", "CEILING", "FLOOR"), (Param("double", (int, float, Decimal)),)),
    **dict.fromkeys(
        (
            "SQRT EXP LN SIN COS TAN ASIN ACOS ATAN SINH COSH TANH ASINH ACOSH ATANH COT SEC "
            "CSC ATAN2 HYPOT CBRT EXPM1 DEGREES RADIANS LOG10 LOG2 LOG1P POWER POW"
        ).split(),
        (_DOUBLE,),
    ),
    **dict.fromkeys(("HOUR", "MINUTE", "SECOND"), (_TIMESTAMP,)),
    **dict.fromkeys(
        "YEAR MONTH DAY QUARTER DAYOFWEEK DAYOFYEAR WEEKOFYEAR WEEKDAY LAST_DAY DAYNAME "
        "MONTHNAME".split(),
        (_DATE,),
    ),
    **{f"TIMESTAMPADD_{unit}": (_TIMESTAMP, _LONG) for unit in TIMESTAMP_UNITS},
    "MAKE_DT_INTERVAL": (_INT, _INT, _INT, Param("decimal(18,6)", (int, float, Decimal))),
    "MAKE_INTERVAL": (*[_INT] * 6, Param("decimal(18,6)", (int, float, Decimal))),
    # a shift's base: an INT or BIGINT as it is, another number or a string read as an INT
    **dict.fromkeys(("SHIFTLEFT", "SHIFTRIGHT", "SHIFTRIGHTUNSIGNED"), (_INT,)),
    **dict.fromkeys(("MAKE_DATE", "FACTORIAL"), (_INT,)),
    **dict.fromkeys(("RINT", "ISNAN", "NANVL"), (_DOUBLE,)),
    "WIDTH_BUCKET": (_DOUBLE_OR_INTERVAL, _DOUBLE_OR_INTERVAL, _DOUBLE_OR_INTERVAL, _LONG),
    **dict.fromkeys(("ROUND", "BROUND"), (Param("double", (int, float, Decimal)), _INT)),
    # abs and sign of a string: of the DOUBLE it reads as (an interval stays as it is)
    **dict.fromkeys(
        ("ABS", "SIGN", "SIGNUM"), (Param("double", (int, float, Decimal, timedelta)),)
    ),
    "DATEDIFF": (_DATE,),
    # positive of a string: of the DOUBLE it reads as (an interval stays as it is)
    "POSITIVE": (Param("double", (int, float, Decimal, timedelta)),),
    # the text functions' strings; the epoch constructors' counts
    **dict.fromkeys(("MASK", "QUOTE", "JARO_WINKLER_SIMILARITY"), (_STRING,)),
    **dict.fromkeys(("DATE_FROM_UNIX_DATE", "SPACE"), (_INT,)),
    # date_add's and add_months' count: a string (add_months: any number) read as an INT;
    # Spark refuses date_add of a fractional count
    "__MR_DAYS_ADD": (_ANY, Param("int", (int,), refused=(float, Decimal))),
    "__MR_MONTHS_ADD": (_ANY, _INT),
    **{f"TRUNC_{unit}": (_DATE,) for unit in (*set(TRUNC_UNITS.values()), None)},
    # the unit read from a row: Spark's STRING (trunc(d, u)'s value a DATE)
    "TRUNC": (_DATE, _STRING),
    "DATE_TRUNC": (_STRING,),
    "GET": (_ANY, _INT),
    # the bitwise operators (Spark casts a STRING to BIGINT under ANSI mode only; without
    # it Spark refuses the call)
    **dict.fromkeys(("BITWISE_AND", "BITWISE_OR", "BITWISE_XOR"), (_LONG,)),
    "BIN": (_LONG,),
    # bit_get's position: a string or another number read as an INT
    "GETBIT": (_ANY, _INT),
    "CONV": (_STRING, _INT),
    "SLICE": (_ANY, _INT),
    # to_char of a DOUBLE or FLOAT: of Spark's DECIMAL(30, 15) of it (other types are
    # formatted as they are; the zone, probe and pattern are no values to cast)
    **dict.fromkeys(
        ("TO_CHAR", "TO_VARCHAR", "__MR_TO_CHAR"),
        (Param("decimal(30,15)", _FORMATTED_AS_THEY_ARE), _ANY),
    ),
}


#: functions that read their later arguments only for some value of the first (cast
#: first): ``nanvl(x, y)`` reads ``y`` only when ``x`` is NaN
_READS_REST: dict[str, Callable[[Any], bool]] = {"NANVL": lambda x: x is not None and x != x}


def argument_casts(
    name: str, count: int, *, ansi: bool, sql: str, pos: int | None
) -> Callable[[list[Any]], list[Any]] | None:
    """The casts Spark applies to the ``count`` argument values of function ``name``, as
    one function of the list of values; None for a function without casts here. Where
    bytes meet text in the parameters that take either, the bytes are cast to STRING too
    (Spark keeps BINARY only when all of them are)."""
    if name in ARITHMETIC:
        return _string_operands(ARITHMETIC[name], ansi, sql, pos)
    if name in _EXTRACTS:
        return _field_source(ansi, sql, pos)
    params = PARAMS.get(name)
    if params is None:
        return None
    slots = [params[min(i, len(params) - 1)] for i in range(count)]
    casts = [_caster(p, ansi, sql, pos) for p in slots]
    either = [i for i, p in enumerate(slots) if p.bytes_or_text]
    text = implicit_cast("string", ansi=ansi, sql=sql, pos=pos) if len(either) > 1 else None

    needs_rest = _READS_REST.get(name)

    def cast_all(values: list[Any]) -> list[Any]:
        if needs_rest is not None and casts[0] is not None:
            first = casts[0](values[0])
            if not needs_rest(first):  # Spark never evaluates (so never casts) the rest
                return [first, *values[1:]]
        values = [v if c is None else c(v) for v, c in zip(values, casts)]
        if text is not None and any(isinstance(values[i], str) for i in either):
            for i in either:
                if isinstance(values[i], (bytes, bytearray)):
                    values[i] = text(values[i])
        return values

    return cast_all


#: arithmetic that reads a STRING operand as a number -> whether a string that does not
#: convert is NULL (the try_ forms) rather than the cast's error
ARITHMETIC = {
    **dict.fromkeys(("TRY_ADD", "TRY_SUBTRACT", "TRY_MULTIPLY", "TRY_DIVIDE", "TRY_MOD"), True),
    "PMOD": False,
}


def _string_operands(
    safe: bool, ansi: bool, sql: str, pos: int | None
) -> Callable[[list[Any]], list[Any]]:
    """Spark's cast of a STRING operand of arithmetic: under ANSI mode to BIGINT beside an
    integer and to DOUBLE beside a fractional number, without it to DOUBLE (so
    ``try_multiply('12', 2)`` is 24, not the string repeated)."""
    to_long = implicit_cast("bigint", ansi=ansi, sql=sql, pos=pos)
    to_double = implicit_cast("double", ansi=ansi, sql=sql, pos=pos)

    def cast_all(values: list[Any]) -> list[Any]:
        if not any(isinstance(v, str) for v in values):
            return values
        integral = any(isinstance(v, int) and not isinstance(v, bool) for v in values)
        cast = to_long if ansi and integral else to_double
        try:
            return [cast(v) if isinstance(v, str) else v for v in values]  # type: ignore[misc]
        except MatchRuntimeError:
            if safe:
                return [None] * len(values)
            raise

    return cast_all


#: extract(field FROM x) and date_part('field', x)
_EXTRACTS = ("EXTRACT", "DATE_PART", "DATEPART")


def _field_source(ansi: bool, sql: str, pos: int | None) -> Callable[[list[Any]], list[Any]]:
    """Spark's cast of ``extract``'s source: a string is read as a DATE for a date field
    (``'2024-01-01 00:00+05:30'`` is in 2024 whatever the zone) and as a TIMESTAMP for
    HOUR, MINUTE and SECOND, as is a DATE (its midnight)."""
    to_date = implicit_cast("date", ansi=ansi, sql=sql, pos=pos)
    to_stamp = implicit_cast("timestamp", ansi=ansi, sql=sql, pos=pos)

    def cast_all(values: list[Any]) -> list[Any]:
        field, source = values
        timed = canonical_field(str(field)) in TIME_FIELDS
        if isinstance(source, str) or (timed and type(source) is date):
            source = (to_stamp if timed else to_date)(source)  # type: ignore[misc]
        return [field, source]

    return cast_all


def _caster(param: Param, ansi: bool, sql: str, pos: int | None) -> Callable[[Any], Any] | None:
    """The cast of one argument (None: every value is taken as it is)."""
    cast = implicit_cast(param.target, ansi=ansi, sql=sql, pos=pos) if param.target else None
    if cast is None:
        return None
    as_text = implicit_cast("string", ansi=ansi, sql=sql, pos=pos) if param.as_text else None
    numeric = param.target in _NUMBERS

    def convert(v: Any) -> Any:
        if v is None:
            return v
        if as_text is not None and isinstance(v, param.as_text):
            return as_text(v)
        if isinstance(v, param.taken) and not isinstance(v, bool):
            return v
        if numeric and isinstance(v, _NOT_NUMBERS):
            raise TypeError(f"Spark takes no {_spark_kind(v)} where it takes a number")
        if isinstance(v, param.refused):
            raise TypeError("Spark takes only an integer here")
        return cast(v)

    return convert


def _spark_kind(v: Any) -> str:
    """The Spark type a Python value of one of :data:`_NOT_NUMBERS` stands for."""
    if isinstance(v, bool):
        return "BOOLEAN"
    if isinstance(v, timedelta):
        return "INTERVAL"
    return "TIMESTAMP" if isinstance(v, datetime) else "DATE"
