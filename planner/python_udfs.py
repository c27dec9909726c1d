"""Python UDFs of the session called in DEFINE on values from several rows.

``hav(A.lat, A.lon, B.lat, B.lon)`` reads two rows, so no Spark column can hold it: the
glue calls the UDF's own Python function while matching. The runtime finds the function
the session registered (:data:`PythonLookup`); this module turns it into a glue call that
gives what Spark gives:

* the arguments are the Python values PySpark hands a UDF (numbers, strings, booleans,
  ``Decimal``, ``date``; NULL is ``None``); a value of another kind (a timestamp, an
  array, a map, a struct) is a positioned error rather than a guess at its Python form;
* the result is converted as Spark converts a pickled Python UDF's result to its
  declared type: a value of the wrong Python type is NULL (an ``int`` for DOUBLE), an
  integer keeps the low bits of its type's width (Java's ``toInt``), a STRING takes
  Java's text of the value (``True`` is ``true``); an Arrow-optimized UDF's result by the
  conversion the runtime builds from the session's PySpark (``arrow_result``).

Declared types other than the numbers, STRING and BOOLEAN, pandas UDFs, and
non-deterministic ones are refused when the query is built. Nothing here imports Spark.
"""

from __future__ import annotations

import inspect
import math
import struct
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from matchrec.sql_values import double_text, java_text

#: PySpark's ``PythonEvalType.SQL_BATCHED_UDF``: a row-at-a-time UDF with pickled values
BATCHED_UDF = 100
#: PySpark's ``SQL_ARROW_BATCHED_UDF``: the same, its values passed as Arrow (what
#: ``udf()`` makes by default in PySpark 4)
ARROW_BATCHED_UDF = 101
#: PySpark's ``SQL_SCALAR_PANDAS_UDF``: a pandas UDF of one Series per column
SCALAR_PANDAS_UDF = 200


#: the eval type of a UDF a Spark Connect session registered: unknown to its client
ON_SERVER = -1


@dataclass(frozen=True)
class PythonFunction:
    """A Python UDF of the session: its function, declared type (Spark's simple string),
    PySpark eval type and whether Spark takes it as deterministic. A UDF of a Spark
    Connect session is known by name only (no function, eval type :data:`ON_SERVER`): its
    function was pickled to the server, where the client cannot call it."""

    fn: Callable[..., Any] | None
    return_type: str
    eval_type: int
    deterministic: bool
    # an Arrow-optimized UDF's conversion of a result to its type, as the session's
    # PySpark makes it (the runtime builds it); None: a pickled UDF's, done here
    arrow_result: Callable[[Any], Any] | None = None


def arity_error(found: PythonFunction, positional: int, named: list[str]) -> tuple[str, str] | None:
    """The signature of a Python UDF's function and why it does not take ``positional``
    arguments and the ``named`` ones (``too many positional arguments``), or None when it
    does, or when Python cannot tell (a pandas iterator or grouped UDF takes its columns
    otherwise; a wrapper that hides its function's signature is taken as it is)."""
    if found.eval_type not in _ONE_ARGUMENT_PER_COLUMN:
        return None
    try:
        signature = inspect.signature(found.fn, follow_wrapped=False)
    except (TypeError, ValueError):  # a callable Python cannot describe
        return None
    try:
        signature.bind(*[None] * positional, **dict.fromkeys(named))
    except TypeError as err:
        return str(signature), str(err)
    return None


#: PySpark's eval types whose function takes one argument per column of the call: plain
#: and Arrow-optimized Python UDFs, scalar pandas UDFs
_ONE_ARGUMENT_PER_COLUMN = (BATCHED_UDF, ARROW_BATCHED_UDF, SCALAR_PANDAS_UDF)


#: a function name -> the session's Python UDF of that name, or None
PythonLookup = Callable[[str], "PythonFunction | None"]


def _wrapped(bits: int) -> Callable[[Any], Any]:
    """Java's ``Long.toInt``/``toShort``/``toByte`` of a Python int that fits a long; an
    int beyond 64 bits (a BigInteger in the JVM) or any other value is NULL."""

    def convert(v: Any) -> Any:
        if isinstance(v, bool) or not isinstance(v, int) or not -(2**63) <= v < 2**63:
            return None
        v &= (1 << bits) - 1
        return v - (1 << bits) if v >= 1 << (bits - 1) else v

    return convert


def _double(v: Any) -> Any:
    return v if isinstance(v, float) else None


def _float(v: Any) -> Any:
    if not isinstance(v, float):
        return None
    if math.isfinite(v) and abs(v) > 3.4028235677973366e38:
        return math.copysign(math.inf, v)  # Java's (float) of a double too large
    return struct.unpack("f", struct.pack("f", v))[0]


def _boolean(v: Any) -> Any:
    return v if isinstance(v, bool) else None


def _java_text(v: Any) -> Any:
    """Spark's STRING of the JVM object a Python value unpickles to (``toString``)."""
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return double_text(v)
    raise TypeError(f"a STRING UDF returned {type(v).__name__} {v!r}")


#: declared result type -> conversion of the value the function returned
RESULTS: dict[str, Callable[[Any], Any]] = {
    "double": _double,
    "float": _float,
    "bigint": _wrapped(64),
    "int": _wrapped(32),
    "smallint": _wrapped(16),
    "tinyint": _wrapped(8),
    "boolean": _boolean,
    "string": _java_text,
}

_ARGUMENT_TYPES = (bool, int, float, str, Decimal)


#: PySpark's eval types of vectorized UDFs -> what the user made (``pandas_udf``,
#: ``arrow_udf``), for the refusal of a call of several rows
_VECTORIZED: dict[int, str] = {
    **dict.fromkeys((200, 204), "a pandas UDF (its conversions are pandas')"),
    **dict.fromkeys((202, 217), "a grouped aggregate pandas UDF"),
    **dict.fromkeys((250, 251), "an Arrow UDF (arrow_udf: its conversions are Arrow's)"),
    **dict.fromkeys((252, 254), "a grouped aggregate Arrow UDF"),
}


def refusal(found: PythonFunction) -> str | None:
    """Why the glue cannot call ``found`` as Spark would, or None if it can."""
    if found.eval_type == ON_SERVER:
        return "a UDF of a Spark Connect session, whose function stays on the server"
    if not found.deterministic:
        return "a non-deterministic UDF"
    if found.eval_type == ARROW_BATCHED_UDF and found.arrow_result is None:
        return "an Arrow-optimized UDF with the legacy pandas conversion of its results"
    if found.eval_type not in (BATCHED_UDF, ARROW_BATCHED_UDF):
        return _VECTORIZED.get(found.eval_type, "a vectorized UDF (of batches of rows)")
    if found.return_type not in RESULTS:
        return f"a UDF returning {found.return_type.upper()}"
    return None


def refusal_hint(found: PythonFunction) -> str:
    """What to do instead of a call :func:`refusal` refuses."""
    if found.eval_type == ON_SERVER:
        return (
            "write it as a SQL UDF (CREATE TEMPORARY FUNCTION f(x DOUBLE) RETURNS DOUBLE "
            "RETURN ...), which matchrec inlines on Connect too, run the query on a classic "
            "session, or compute each row's part in a subquery (f(x) AS fx, then B.fx > A.fx)"
        )
    return (
        "register it as a plain Python UDF (useArrow=False) returning a number, STRING or "
        "BOOLEAN, or compute each row's part in a subquery"
    )


def glue_call(found: PythonFunction) -> Callable[..., Any]:
    """The function the glue calls: checks the arguments, calls the UDF, converts its
    result to the declared type as Spark does."""
    convert = found.arrow_result or RESULTS[found.return_type]
    fn = found.fn

    def call(*args: Any, **named: Any) -> Any:
        for a in [*args, *named.values()]:
            if a is not None and (
                not isinstance(a, _ARGUMENT_TYPES)
                and not (isinstance(a, date) and not isinstance(a, datetime))
            ):
                raise TypeError(
                    f"matchrec passes a Python UDF numbers, strings, booleans, decimals and "
                    f"dates from several rows, not {type(a).__name__}"
                )
        args = tuple(_as_java_text(a) for a in args)
        named = {k: _as_java_text(a) for k, a in named.items()}
        try:
            result = fn(*args, **named)
        except Exception as err:  # the user's code: Spark fails the job with it
            raise ValueError(f"the UDF raised {type(err).__name__}: {err}") from err
        return None if result is None else convert(result)

    return call


def _as_java_text(value: Any) -> Any:
    """An argument as Spark hands it to Python: text that holds bytes that are no UTF-8
    as Java's String of them (each bad sequence U+FFFD), others as they are."""
    return java_text(value) if isinstance(value, str) else value
