"""Split a Spark function of values read at several rows into one-row parts Spark computes.

``datediff(N.d, FIRST(S.d))`` reads two rows of the match; Spark computes columns before
matching, one row at a time, so it cannot compute this call. But the call is exactly
``days(N.d) - days(FIRST(S.d))`` with ``days(x) = datediff(x, DATE'1970-01-01')``: each
part is the *same Spark function of one row* (so the same implicit casts, the same ANSI
errors, the same time zone), which ``planner.pushdown`` then moves inside the navigation
(``FIRST(datediff(S.d, DATE'1970-01-01'))``), and what remains for DEFINE's Python glue
is an integer subtraction (still vectorized). We call this *anchoring*: a function of
two values is rewritten through the function of each value against a constant.

Rules (each exact, none approximate):

* ``datediff(end, start)`` (and ``date_diff``, ``datediff(DAY, ...)`` on dates):
  ``days(end) - days(start)``.
* ``timestampdiff(unit, start, end)`` (and ``datediff/date_diff(unit, start, end)`` with
  a unit): Spark counts whole units between the two *local* date-times of the session
  time zone (``ChronoUnit.between``). With ``L(x) = timestampdiff(MICROSECOND,
  TIMESTAMP'1970-01-01 00:00:00', x)`` (local microseconds, exact), a fixed-length unit
  is ``(L(end) - L(start)) DIV unit`` (``DIV`` truncates toward zero, as Java does);
  MONTH, QUARTER and YEAR count calendar months from both local date-times in Python
  (``glue_functions.local_months_until``, Java's algorithm).
* ``months_between(a, b[, roundOff])``: each side's local date and seconds into that
  day are computed by Spark; Spark's formula (31-day months, rounding to 8 digits) runs
  in Python on them (``glue_functions.months_between``).
* ``date_add(d, n)``, ``date_sub(d, n)``, ``add_months(d, n)``: the date is anchored
  (``CAST(d AS DATE)``, Spark's implicit cast of ``d``), the day or month arithmetic runs
  in Python.
* ``timestampadd(unit, n, x)``: ``x`` is anchored (``timestampadd(MICROSECOND, 0, x)``,
  Spark's cast to TIMESTAMP), the unit's arithmetic runs in Python.
* ``from_unixtime(n[, fmt])``, ``date_format(x, fmt)``, ``to_timestamp(s, fmt)``,
  ``to_date(s, fmt)``, ``unix_timestamp(x[, fmt])`` / ``to_unix_timestamp`` with a
  literal pattern: the session time zone is a one-row part (``current_timezone()``); the
  glue formats or parses with the pattern as written (``planner.datetime_patterns``).
* ``x + INTERVAL '1' MONTH``, ``x - INTERVAL '1-6' YEAR TO MONTH`` (a constant
  YEAR-MONTH interval: literals, ``make_ym_interval`` of integers, their sums,
  products and quotients with integer or DECIMAL literals): the months are a
  constant, the glue adds them to the DATE or the TIMESTAMP as Spark does (PySpark has
  no Arrow form of the interval to hand over).
* ``base64(x)``: Spark's base64 of a constant probe tells the glue whether the session
  chunks lines; the glue encodes ``x``.
* a field of a struct built in place (``named_struct('x', a, 'y', b).y``) is that
  field's expression (``b``); ``decode(x, s1, r1, ..., default)`` is its CASE with
  ``<=>``, as Spark defines it.

A call is rewritten only where pushdown cannot move it whole (its arguments read more
than one row); synthesized nodes carry the position of the call the user wrote, so an
error names that call (``function datediff()``), never a part of the rewrite.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal

from sqlglot import exp

_FIXED_UNITS: dict[str, int] = {
    "MICROSECOND": 1,
    "MILLISECOND": 1_000,
    "SECOND": 1_000_000,
    "MINUTE": 60_000_000,
    "HOUR": 3_600_000_000,
    "DAY": 86_400_000_000,
    "WEEK": 7 * 86_400_000_000,
}
_MONTH_UNITS: dict[str, int] = {"MONTH": 1, "QUARTER": 3, "YEAR": 12}

Rule = Callable[[exp.Expression], exp.Expression | None]


def _type(name: str) -> exp.DataType:
    return exp.DataType(this=exp.DataType.Type[name], nested=False)


#: the internal calls written here for calls of another name (the others drop ``__MR_``)
_WRITTEN_AS = {
    "__MR_MONTHS_UNTIL": "timestampdiff",
    "__MR_DAYS_ADD": "date_add",
    "__MR_MONTHS_ADD": "add_months",
}


def is_internal(name: str) -> bool:
    """Whether ``name`` is a call this module or ``datetime_patterns`` writes."""
    return name.upper().startswith("__MR_")


def user_call_name(name: str) -> str:
    """The name of the call the user wrote that internal call ``name`` stands for
    (``__MR_DATE_FORMAT``: ``date_format``), for messages; other names lower-cased."""
    upper = name.upper()
    if not is_internal(upper):
        return name.lower()
    return _WRITTEN_AS.get(upper, upper[len("__MR_") :].lower())


def _internal(name: str, *args: exp.Expression) -> exp.Expression:
    return exp.Anonymous(this=name, expressions=list(args))


def _date_literal(text: str) -> exp.Expression:
    return exp.Cast(this=exp.Literal.string(text), to=_type("DATE"))


def _timestamp_literal(text: str) -> exp.Expression:
    return exp.Cast(this=exp.Literal.string(text), to=_type("TIMESTAMP"))


def _unit(node: exp.Expression) -> str | None:
    unit = node.args.get("unit")
    if unit is None:
        return None
    return (unit.name if isinstance(unit, exp.Expression) else str(unit)).upper()


def _uncast(node: exp.Expression) -> exp.Expression:
    """The argument sqlglot wrapped in a date conversion when it parsed ``datediff``
    (Spark casts the same way, implicitly; without a unit the wrapper is harmless, with
    one it is wrong: ``datediff(HOUR, a, b)`` is ``timestampdiff``)."""
    if isinstance(node, exp.TsOrDsToDate) and node.args.get("format") is None:
        return node.this
    return node


def _days(x: exp.Expression) -> exp.Expression:
    return exp.DateDiff(this=x.copy(), expression=_date_literal("1970-01-01"))


def _local_micros(x: exp.Expression) -> exp.Expression:
    return exp.TimestampDiff(
        this=x.copy(),
        expression=_timestamp_literal("1970-01-01 00:00:00"),
        unit=exp.var("MICROSECOND"),
    )


def _timestampdiff(unit: str | None, start: exp.Expression, end: exp.Expression):
    if unit in _FIXED_UNITS:
        delta = exp.Sub(this=_local_micros(end), expression=_local_micros(start))
        if _FIXED_UNITS[unit] == 1:
            return exp.Paren(this=delta)
        return exp.IntDiv(
            this=exp.Paren(this=delta), expression=exp.Literal.number(_FIXED_UNITS[unit])
        )
    if unit in _MONTH_UNITS:
        months = _internal("__MR_MONTHS_UNTIL", _local_micros(start), _local_micros(end))
        if _MONTH_UNITS[unit] == 1:
            return months
        return exp.IntDiv(this=months, expression=exp.Literal.number(_MONTH_UNITS[unit]))
    return None


def _datediff(node: exp.Expression) -> exp.Expression | None:
    unit = _unit(node)
    end, start = node.this, node.expression
    if unit is None:
        days = exp.Sub(this=_days(_uncast(end)), expression=_days(_uncast(start)))
        return exp.Paren(this=days)
    return _timestampdiff(unit, _uncast(start), _uncast(end))


def _timestamp_diff(node: exp.Expression) -> exp.Expression | None:
    return _timestampdiff(_unit(node), node.expression, node.this)


def _day_and_seconds(x: exp.Expression) -> tuple[exp.Expression, exp.Expression]:
    """Spark's view of ``x`` in ``months_between``: days of its local date since
    1970-01-01, and whole seconds from the start of that day to ``x``."""
    ts = exp.Cast(this=x.copy(), to=_type("TIMESTAMP"))
    day = exp.Cast(this=ts.copy(), to=_type("DATE"))
    midnight = exp.Cast(this=day.copy(), to=_type("TIMESTAMP"))
    micros = exp.Sub(
        this=exp.Anonymous(this="unix_micros", expressions=[ts.copy()]),
        expression=exp.Anonymous(this="unix_micros", expressions=[midnight]),
    )
    seconds = exp.IntDiv(this=exp.Paren(this=micros), expression=exp.Literal.number(1_000_000))
    return _days(day), seconds


def _months_between(node: exp.Expression) -> exp.Expression | None:
    round_off = node.args.get("roundoff")
    if round_off is not None and not isinstance(round_off, exp.Boolean):
        return None
    days1, seconds1 = _day_and_seconds(node.this)
    days2, seconds2 = _day_and_seconds(node.expression)
    flag = round_off.copy() if round_off is not None else exp.true()
    return _internal("__MR_MONTHS_BETWEEN", days1, seconds1, days2, seconds2, flag)


def _date_add(node: exp.Expression) -> exp.Expression | None:
    if (_unit(node) or "DAY") != "DAY":
        return None
    return _internal("__MR_DAYS_ADD", _as_date(node.this), node.expression.copy())


def _add_months(node: exp.Expression) -> exp.Expression | None:
    return _internal("__MR_MONTHS_ADD", _as_date(node.this), node.expression.copy())


def _as_date(day: exp.Expression) -> exp.Expression:
    """The DATE ``date_add``/``add_months`` read ``day`` as: Spark's implicit cast of a
    string or a timestamp is its CAST to DATE (one-row, Spark computes it; of values of
    several rows, the glue)."""
    return exp.Cast(this=day.copy(), to=_type("DATE"))


def _timestamp_add(node: exp.Expression) -> exp.Expression | None:
    """``timestampadd(unit, n, x)``: ``x`` anchored as ``timestampadd(MICROSECOND, 0, x)``
    (Spark's cast of a DATE or a string to TIMESTAMP, in the session zone), the unit's
    arithmetic in Python (``planner.datetime_functions``)."""
    unit = node.args.get("unit")
    if unit is None:
        return None
    anchor = exp.TimestampAdd(
        this=node.this.copy(), expression=exp.Literal.number(0), unit=exp.var("MICROSECOND")
    )
    return exp.TimestampAdd(this=anchor, expression=node.expression.copy(), unit=unit.copy())


_YEAR_MONTH_UNITS = {"YEAR": 12, "YEARS": 12, "MONTH": 1, "MONTHS": 1}
_INT_MAX = 2**31 - 1


#: the text of an integer literal; of an integer or DECIMAL literal (not ``1.5D``, ``1e0``)
_INTEGER_TEXT = re.compile(r"\d+")
_EXACT_TEXT = re.compile(r"\d+(\.\d*)?|\.\d+")


def _number_literal(node: exp.Expression, text: re.Pattern[str]) -> Decimal | None:
    """The value of a number literal whose text matches ``text``, with its sign and
    parentheses (``2``, ``-2``, ``(-1.5)``); None for anything else."""
    if isinstance(node, exp.Paren):
        return _number_literal(node.this, text)
    if isinstance(node, exp.Neg):
        value = _number_literal(node.this, text)
        return None if value is None else -value
    if isinstance(node, exp.Literal) and not node.is_string and text.fullmatch(node.name):
        return Decimal(node.name)
    return None


def _integer(node: exp.Expression) -> int | None:
    """The value of an integer literal (``2``, ``-2``, ``(2)``); None for anything else."""
    value = _number_literal(node, _INTEGER_TEXT)
    return None if value is None else int(value)


def _in_range(months: int) -> int | None:
    """``months`` where Spark's exact interval arithmetic keeps it (an INT), else None:
    Spark's overflow error stays Spark's."""
    return months if abs(months) <= _INT_MAX else None


def _make_ym_interval(node: exp.Expression) -> int | None:
    """``make_ym_interval(years, months)`` of integer literals (both default to 0)."""
    args = [_integer(a) for a in node.expressions]
    if len(args) > 2 or None in args:
        return None
    years, months = (args + [0, 0])[:2]
    return _in_range(years * 12 + months)


def _exact_number(node: exp.Expression) -> Decimal | None:
    """An integer or DECIMAL literal (``2``, ``-1.5``); None for anything else (a
    DOUBLE, ``1.5D`` or ``1e0``, Spark rounds another way)."""
    return _number_literal(node, _EXACT_TEXT)


def _rounded_months(months: Decimal) -> int | None:
    """Spark's whole months of a product or quotient by an integer or a DECIMAL: half
    away from zero (``HALF_UP``)."""
    return _in_range(int(months.to_integral_value(rounding=ROUND_HALF_UP)))


def _year_month_combined(node: exp.Expression) -> int | None:
    """The months of ``+``/``-`` of two YEAR-MONTH constants (also the units of a
    multi-unit literal, ``INTERVAL 1 YEAR 2 MONTHS``), of one times an integer or
    DECIMAL literal (either side), or divided by one (not by zero: Spark's error)."""
    left, right = node.this, node.expression
    if isinstance(node, exp.Mul):
        for interval, times in ((left, right), (right, left)):
            months, n = _year_month_months(interval), _exact_number(times)
            if months is not None and n is not None:
                return _rounded_months(months * n)
        return None
    if isinstance(node, exp.Div):
        months, n = _year_month_months(left), _exact_number(right)
        if months is None or not n:
            return None
        return _rounded_months(Decimal(months) / n)
    a, b = _year_month_months(left), _year_month_months(right)
    if a is None or b is None:
        return None
    return _in_range(a + b if isinstance(node, exp.Add) else a - b)


def _year_month_months(node: exp.Expression) -> int | None:
    """The months of a constant YEAR-MONTH interval: a literal (``INTERVAL '1' MONTH``,
    ``INTERVAL '1-6' YEAR TO MONTH``, ``INTERVAL 1 YEAR 2 MONTHS``, ``-INTERVAL '2'
    YEAR``), ``make_ym_interval`` of integer literals, their sums and differences, and
    their products with and quotients by integer or DECIMAL literals; None for anything
    else or beyond Spark's range (Spark's own error stays Spark's)."""
    if isinstance(node, exp.Paren):
        return _year_month_months(node.this)
    if isinstance(node, exp.Neg):
        months = _year_month_months(node.this)
        return None if months is None else -months
    if isinstance(node, (exp.Add, exp.Sub, exp.Mul, exp.Div)):
        return _year_month_combined(node)
    if isinstance(node, exp.Anonymous) and node.name.lower() == "make_ym_interval":
        return _make_ym_interval(node)
    if not isinstance(node, exp.Interval) or not isinstance(node.this, exp.Literal):
        return None
    text, unit = node.this.name.strip(), node.args.get("unit")
    if isinstance(unit, exp.IntervalSpan):
        span = (unit.this.name.upper(), unit.expression.name.upper())
        found = re.fullmatch(r"([+-]?)(\d+)-(\d+)", text)
        if span != ("YEAR", "MONTH") or not found or int(found[3]) > 11:
            return None
        months = int(found[2]) * 12 + int(found[3])
        months = -months if found[1] == "-" else months
    elif isinstance(unit, exp.Var) and unit.name.upper() in _YEAR_MONTH_UNITS:
        if not re.fullmatch(r"[+-]?\d+", text):
            return None
        months = int(text) * _YEAR_MONTH_UNITS[unit.name.upper()]
    else:
        return None
    return _in_range(months)


def _year_month_add(node: exp.Expression) -> exp.Expression | None:
    """``x + INTERVAL '1' MONTH`` (either side), ``x - INTERVAL '1-6' YEAR TO MONTH``:
    the months are a constant; the glue adds them as Spark adds a YEAR-MONTH interval to
    a DATE (``add_months``) or a TIMESTAMP (its wall-clock date in the session zone)."""
    sides = [(node.this, node.expression)]
    if isinstance(node, exp.Add):
        sides.append((node.expression, node.this))
    for value, interval in sides:
        months = _year_month_months(interval)
        if months is not None and _year_month_months(value) is None:
            months = -months if isinstance(node, exp.Sub) else months
            return _internal("__MR_YEAR_MONTH_ADD", value.copy(), exp.Literal.number(months))
    return None


def _zone() -> exp.Expression:
    """The session time zone, as a one-row part Spark computes (``current_timezone()``)."""
    return exp.Anonymous(this="current_timezone", expressions=[])


def _patterned(name: str, need_format: bool) -> Rule:
    """A datetime function of a value and a literal pattern (``from_unixtime``,
    ``date_format``, ``to_timestamp``, ``to_date``, ``unix_timestamp``): its value and
    the session's zone go to the glue (``planner.datetime_patterns``) with the pattern
    literal, which the dialect keeps as written."""

    def rule(node: exp.Expression) -> exp.Expression | None:
        fmt = node.args.get("format")
        if fmt is None and need_format:
            return None  # to_date(x), to_timestamp(x): a CAST, not a pattern
        if fmt is not None and not (isinstance(fmt, exp.Literal) and fmt.is_string):
            return None
        value = node.this
        if isinstance(value, exp.TimeStrToTime):  # sqlglot's wrapper of date_format's value
            value = value.this
        pattern = [fmt.copy()] if fmt is not None else []  # as written (Spark's default)
        return _internal(name, value.copy(), _zone(), *pattern)

    return rule


#: Spark's parsing functions sqlglot keeps as written -> their internal calls
_PATTERNED_BY_NAME = {
    "TO_TIMESTAMP_LTZ": "__MR_TO_TIMESTAMP_LTZ",
    "TO_TIMESTAMP_NTZ": "__MR_TO_TIMESTAMP_NTZ",
    "TRY_TO_TIMESTAMP": "__MR_TRY_TO_TIMESTAMP",
    "TRY_TO_DATE": "__MR_TRY_TO_DATE",
}


def _by_name(node: exp.Anonymous) -> exp.Expression | None:
    """``try_to_timestamp(s, fmt)``, ``to_timestamp_ntz(s, fmt)``...: as ``to_timestamp``
    (a call without a pattern is a CAST, not one of these); ``to_char`` and
    ``to_varchar`` as :func:`_to_char` reads them."""
    if str(node.this).upper() in ("TO_CHAR", "TO_VARCHAR"):
        return _to_char(node)
    name = _PATTERNED_BY_NAME.get(str(node.this).upper())
    if name is None or len(node.expressions) != 2:
        return None
    value, fmt = node.expressions
    if not (isinstance(fmt, exp.Literal) and fmt.is_string):
        return None
    return _internal(name, value.copy(), _zone(), fmt.copy())


#: Spark's base64 of 58 bytes (a constant part): it tells the glue whether the session
#: chunks lines (``spark.sql.chunkBase64String``)
BASE64_PROBE = exp.Anonymous(
    this="base64",
    expressions=[
        exp.Anonymous(this="repeat", expressions=[exp.Literal.string("x"), exp.Literal.number(58)])
    ],
)


def _base64_probe() -> exp.Expression:
    return BASE64_PROBE.copy()


def _base64(node: exp.Expression) -> exp.Expression | None:
    """``base64(x)``: the glue encodes, chunked as the session's base64 of a probe is."""
    return _internal("__MR_BASE64", node.this.copy(), _base64_probe())


def _to_char(node: exp.Expression) -> exp.Expression | None:
    """``to_char``/``to_varchar(x, 'fmt')``: the glue formats ``x`` as Spark does for its
    type (``planner.char_formats``), with the session zone for a TIMESTAMP and the base64
    probe for a BINARY (a format that is no literal is Spark's error)."""
    if isinstance(node, exp.ToChar):
        value, fmt = node.this, node.args.get("format")
    elif len(node.expressions) == 2:
        value, fmt = node.expressions
    else:
        return None
    if not (isinstance(fmt, exp.Literal) and fmt.is_string):
        return None
    return _internal("__MR_TO_CHAR", value.copy(), _zone(), _base64_probe(), fmt.copy())


def _struct_field(node: exp.Dot) -> exp.Expression | None:
    """``named_struct('x', a, 'y', b).y`` is ``b``; ``struct(a AS p, c).col2`` is ``c``
    (Spark names an unnamed field ``col<n>``, a column its own name). The field is
    looked up as Spark does by default, ignoring case; none or two of that name: no
    rewrite (the call stays as written and is reported)."""
    fields = struct_fields(node)
    if fields is None:
        return None
    wanted = node.expression.name.lower()
    found = [value for name, value in fields if name.lower() == wanted]
    return found[0].copy() if len(found) == 1 else None


def struct_fields(node: exp.Dot) -> list[tuple[str, exp.Expression]] | None:
    """The fields (name, value) of the struct built in place that ``node`` reads a field
    of (``struct(...).f``, ``named_struct(...).f``); None for another ``.``."""
    struct = node.this
    while isinstance(struct, exp.Paren):
        struct = struct.this
    if not isinstance(struct, exp.Struct) or not isinstance(node.expression, exp.Identifier):
        return None
    fields = []
    for i, item in enumerate(struct.expressions):
        if isinstance(item, exp.PropertyEQ):
            fields.append((item.this.name, item.expression))
        elif isinstance(item, exp.Alias):
            fields.append((item.alias, item.this))
        else:
            fields.append((f"col{i + 1}", item))
    return fields


#: meta key of a CASE written as ``decode(...)``: without ANSI mode Spark types one of
#: results of several types as a STRING of each result's own text, not their common type
DECODED = "decoded"


def _decode(node: exp.DecodeCase) -> exp.Expression | None:
    """Spark's ``decode(x, s1, r1, s2, r2, ..., default)`` is ``CASE WHEN x <=> s1 THEN r1
    WHEN x <=> s2 THEN r2 ... ELSE default END`` (a NULL search value finds a NULL; the
    default unwritten is ``CAST(NULL AS STRING)``)."""
    args = node.expressions
    if len(args) < 3:
        return None
    value, rest = args[0], args[1:]
    ifs = [
        exp.If(this=exp.NullSafeEQ(this=value.copy(), expression=s.copy()), true=r.copy())
        for s, r in zip(rest[0::2], rest[1::2])
    ]
    # without one, Spark's default is a STRING NULL, which joins the results' type (a
    # STRING without ANSI mode; INT results are a BIGINT under it)
    default = rest[-1].copy() if len(rest) % 2 else exp.cast(exp.null(), "string")
    case = exp.Case(ifs=ifs, default=default)
    case.meta[DECODED] = True
    return case


RULES: dict[type, Rule] = {
    exp.Add: _year_month_add,
    exp.Sub: _year_month_add,
    exp.DecodeCase: _decode,
    exp.Dot: _struct_field,
    exp.DateDiff: _datediff,
    exp.TimestampDiff: _timestamp_diff,
    exp.MonthsBetween: _months_between,
    exp.TsOrDsAdd: _date_add,
    exp.AddMonths: _add_months,
    exp.TimestampAdd: _timestamp_add,
    exp.UnixToStr: _patterned("__MR_FROM_UNIXTIME", need_format=False),
    exp.TimeToStr: _patterned("__MR_DATE_FORMAT", need_format=True),
    exp.StrToUnix: _patterned("__MR_UNIX_TIMESTAMP", need_format=False),
    exp.StrToTime: _patterned("__MR_TO_TIMESTAMP", need_format=True),
    exp.TsOrDsToDate: _patterned("__MR_TO_DATE", need_format=True),
    exp.ToBase64: _base64,
    exp.ToChar: _to_char,
    exp.Anonymous: _by_name,
}


#: meta key marking the nodes of the expression a rule splits while it runs
_WRITTEN = "__mr_written"


def decompose(node: exp.Expression) -> exp.Expression | None:
    """``node`` rewritten into one-row parts and glue (see the module docstring), or None
    when no rule applies. New nodes get ``node``'s position."""
    rule = RULES.get(type(node))
    if node.meta.get("decomposed"):
        return None  # a part of an earlier split (``days(x)``): it reads one row or none
    if rule is None:
        return None
    originals = list(node.walk())
    for n in originals:  # a copy the rule makes of the user's expression keeps the mark
        n.meta[_WRITTEN] = True
    try:
        new = rule(node)
    finally:
        for n in originals:
            n.meta.pop(_WRITTEN, None)
    if new is None:
        return None
    kept = {id(n) for n in originals}
    for n in new.walk():
        # the user's own sub-expressions, copied or kept, may be split in turn
        # (``datediff(max(A.d) + INTERVAL '1' MONTH, d)``); the rule's own nodes not
        if n.meta.pop(_WRITTEN, False) or id(n) in kept:
            continue
        if not n.meta:
            n.meta.update({k: v for k, v in node.meta.items() if k in ("start", "end")})
            n.meta["decomposed"] = True
    if type(node) in _OPERATOR_TEXT:  # an operator split: errors name it, not its operand
        new.meta["written"] = f"operator {_OPERATOR_TEXT[type(node)]}"
    return new


_OPERATOR_TEXT = {exp.Add: "+", exp.Sub: "-"}
