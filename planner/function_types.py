"""Spark's result types of SQL functions, as a table, for typing without a Spark session.

The SQL table function declares its output schema in ``analyze``, where no Spark session
exists (see ``planner.measure_eval``). Most measures are functions Spark computes on one
row and the matcher then reads (``LAST(year(ts))``); their types come from here. Each
entry says how Spark types the call: a fixed type, the type of an argument, the element
type of an array argument, and so on. ``test_function_types_match_spark`` (tests/test_udtf.py)
checks them against the schema Spark itself gives the same expression.

Keys are sqlglot node class names (sqlglot parses most functions to typed nodes) or, for
calls sqlglot does not know (``exp.Anonymous``), the upper-case function name.
Types are sqlglot ``DataType`` nodes; nothing here imports Spark.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from .datetime_functions import canonical_field

T = exp.DataType.Type

#: the integer digits a DECIMAL needs to hold every value of an integral type
INTEGRAL_DIGITS = {T.TINYINT: 3, T.SMALLINT: 5, T.INT: 10, T.BIGINT: 20}


def decimal_params(t: exp.DataType) -> tuple[int, int] | None:
    """(precision, scale) of a DECIMAL type (Spark's bare DECIMAL is decimal(10,0))."""
    if t.this != T.DECIMAL:
        return None
    params = [int(p.this.this) if isinstance(p.this, exp.Literal) else None for p in t.expressions]
    precision = params[0] if params and params[0] is not None else 10
    scale = params[1] if len(params) > 1 and params[1] is not None else 0
    return precision, scale


TypeOf = Callable[[exp.Expression], "exp.DataType | None"]


def dtype(text: str) -> exp.DataType:
    """A type from its Spark SQL spelling, e.g. ``dtype("decimal(10,2)")``, without the
    positions of its tokens in that spelling (put in a user's expression, they would
    be read as positions in the query: a caret inside another call's name)."""
    built = exp.DataType.build(text, dialect="spark")
    for node in built.walk():
        for key in ("line", "col", "start", "end"):
            node.meta.pop(key, None)
    return built


#: the meta key of a string type's collation (an input column's, e.g. UTF8_LCASE)
COLLATION = "matchrec_collation"

#: the meta key marking a struct field (a ColumnDef) that is never NULL
NOT_NULL_FIELD = "mr_not_null_field"

#: the meta key marking an array type whose elements are never NULL (Spark's
#: ``containsNull = false``, e.g. what collect_list returns)
NO_NULL_ELEMENTS = "mr_no_null_elements"


def array_of(element: exp.DataType, no_nulls: bool = False) -> exp.DataType:
    """``array<element>``; ``no_nulls``: Spark declares its elements non-NULL."""
    result = exp.DataType(this=T.ARRAY, expressions=[element.copy()], nested=True)
    if no_nulls:
        result.meta[NO_NULL_ELEMENTS] = True
    return result


def _names(text: str) -> list[str]:
    return text.split()


# calls whose result type never depends on their arguments
_FIXED: dict[str, str] = {}
for _type, _keys in {
    "int": "INSTR XPATH_INT BitwiseCount FIND_IN_SET Year Month Day DayOfMonth DayOfWeek "
    "DayOfYear WeekOfYear "
    "Quarter Hour Minute Second DateDiff Length ArraySize BitLength Ascii StrPosition RegexpCount "
    "RegexpInstr UnixDate Levenshtein HASH WEEKDAY OCTET_LENGTH CARDINALITY ARRAY_SIZE "
    "JSON_ARRAY_LENGTH CHAR_LENGTH CHARACTER_LENGTH DAYOFMONTH",
    "bigint": "XPATH_LONG BitmapBitPosition BitmapBucketNumber BitmapCount StrToUnix "
    "TimeToUnix UnixSeconds TimestampDiff Factorial WidthBucket "
    "ArrayPosition XXHASH64 CRC32 UNIX_MILLIS UNIX_MICROS UnixMillis UnixMicros",
    "double": "JARO_WINKLER_SIMILARITY XPATH_DOUBLE XPATH_NUMBER Sqrt Exp Ln Log Pow Sign Cbrt "
    "Degrees Radians Pi Sin Cos Tan Asin Acos Atan "
    "Atan2 Sinh Cosh Tanh Rint MonthsBetween E LOG2 LOG10 LOG1P EXPM1 COT HYPOT SIGNUM "
    "Acosh Asinh Atanh Sec Csc Cot",
    "string": "MAKE_VALID_UTF8 VALIDATE_UTF8 TRY_VALIDATE_UTF8 TRY_PARSE_URL XPATH_STRING USER "
    "CURRENT_PATH Lower Upper ConcatWs Right Trim Initcap "
    "Repeat Replace Translate RegexpExtract RegexpReplace RegexpSubstr SplitPart TimeToStr "
    "UnixToStr MD5 SHA SHA2 Hex ToBase64 Chr Format ToChar Typeof Dayname Monthname "
    "ArrayToString JSONFormat JSONExtractScalar Decode FORMAT_NUMBER CONV SOUNDEX LTRIM RTRIM "
    "BTRIM SPACE OVERLAY PRINTF SubstringIndex BIN Elt ParseUrl URL_DECODE URL_ENCODE "
    "TRY_URL_DECODE SCHEMA_OF_JSON TO_CSV MASK QUOTE SCHEMA_OF_CSV SCHEMA_OF_XML TO_XML "
    "SCHEMA_OF_VARIANT TO_VARCHAR Collation VERSION CurrentUser",
    "tinyint": "Getbit",
    "boolean": "IS_VALID_UTF8 XPATH_BOOLEAN StartsWith EndsWith Contains ArrayContains IsNan "
    "IsInf RegexpLike REGEXP Exists "
    "EXISTS ARRAY_CONTAINS_ALL FORALL ARRAYS_OVERLAP MapContainsKey ISNULL ISNOTNULL EqualNull "
    "LUHN_CHECK IS_VARIANT_NULL",
    "date": "TRY_TO_DATE TsOrDsToDate StrToDate TsOrDsAdd AddMonths LastDay NextDay "
    "DateTrunc DateFromUnixDate CurrentDate MAKE_DATE DATE_FROM_UNIX_DATE TRUNC",
    "timestamp": "MAKE_TIMESTAMP_LTZ TRY_MAKE_TIMESTAMP TRY_MAKE_TIMESTAMP_LTZ NOW DATE_TRUNC "
    "TimestampTrunc TimestampFromParts AtTimeZone FromTimeZone StrToTime "
    "UnixToTime CurrentTimestamp TIMESTAMP_SECONDS TIMESTAMP_MILLIS TIMESTAMP_MICROS "
    "TRY_TO_TIMESTAMP MAKE_TIMESTAMP TO_TIMESTAMP_LTZ",
    "timestamp_ntz": "TRY_MAKE_TIMESTAMP_NTZ TO_TIMESTAMP_NTZ MAKE_TIMESTAMP_NTZ ConvertTimezone",
    "interval": "MakeInterval",
    # the combinations of calls planner.decompose splits (typed as the calls they stand for)
    "bigint ": "__MR_MONTHS_UNTIL",
    "double ": "__MR_MONTHS_BETWEEN",
    "date ": "__MR_DAYS_ADD __MR_MONTHS_ADD __MR_TO_DATE __MR_TRY_TO_DATE",
    "string ": "__MR_DATE_FORMAT __MR_FROM_UNIXTIME __MR_BASE64 __MR_TO_CHAR",
    "timestamp ": "__MR_TO_TIMESTAMP __MR_TRY_TO_TIMESTAMP __MR_TO_TIMESTAMP_LTZ",
    "timestamp_ntz ": "__MR_TO_TIMESTAMP_NTZ",
    "bigint  ": "__MR_UNIX_TIMESTAMP",
    "binary": "TRY_TO_BINARY Encode Unhex UNBASE64 ToBinary HMAC AES_ENCRYPT AES_DECRYPT "
    "TRY_AES_DECRYPT",
    "interval day to second": "MAKE_DT_INTERVAL",
    "interval year to month": "MAKE_YM_INTERVAL",
    "smallint": "XPATH_SHORT",
    "null": "RAISE_ERROR",
    "float": "XPATH_FLOAT VECTOR_COSINE_SIMILARITY VECTOR_INNER_PRODUCT VECTOR_L2_DISTANCE "
    "VECTOR_NORM",
    "array<string>": "XPATH",
    "array<float>": "VECTOR_NORMALIZE",
    "variant": "ParseJSON TRY_PARSE_JSON TO_VARIANT_OBJECT",
}.items():
    for _key in _names(_keys):
        _FIXED[_key] = _type.strip()

# calls typed like their first argument (the array functions keep the array type)
_SAME_AS_FIRST = set(
    _names(
        "Abs Neg Negative POSITIVE Nullif NULLIFZERO BitwiseNot Reverse ArrayDistinct "
        "ArraySort ArraySlice "
        "ArrayFilter SORT_ARRAY SHUFFLE ARRAY_COMPACT "
        "MAP_FILTER __MR_YEAR_MONTH_ADD"
    )
)
_REVERSE = exp.Reverse.__name__
# calls of a STRING, or of a BINARY that they keep (substr, left, lpad, rpad; Spark's
# right() of a BINARY is a STRING)
_STRING_OR_BINARY = set(_names("Substring Left Pad"))
# the shifts: Spark shifts an INT or a BIGINT (a TINYINT or SMALLINT is cast to INT)
_SHIFTS = set(_names("BitwiseLeftShift BitwiseRightShift SHIFTRIGHTUNSIGNED"))
# calls typed like the element of their first argument (an array)
_ELEMENT_OF_FIRST = set(_names("ArrayMax ArrayMin ARRAY_MAX ARRAY_MIN GET"))
# calls typed as Spark's common type of their argument and the INT 0
_COMMON_WITH_ZERO = {"ZEROIFNULL"}
# calls typed as Spark's common type of all their arguments
_COMMON_OF_ALL = set(_names("Greatest Least Coalesce BitwiseAnd BitwiseOr BitwiseXor NVL IFNULL"))


def key(node: exp.Expression) -> str:
    """The table key of call ``node``."""
    if isinstance(node, exp.Anonymous):
        return str(node.this).upper()
    return type(node).__name__


def call_arguments(node: exp.Expression) -> list[exp.Expression]:
    """A call's arguments in the order sqlglot keeps them (as written)."""
    if isinstance(node, exp.Anonymous):
        return list(node.expressions)
    args: list[exp.Expression] = []
    for k in node.arg_types:
        value = node.args.get(k)
        if isinstance(value, exp.Expression):
            args.append(value)
        elif isinstance(value, list):
            args.extend(v for v in value if isinstance(v, exp.Expression))
    return args


def _first_arg(node: exp.Expression) -> exp.Expression | None:
    args = call_arguments(node)
    return args[0] if args else None


def element_type(t: exp.DataType | None) -> exp.DataType | None:
    """The element type of an array type, the value type of a map type, else None."""
    if t is None:
        return None
    if t.this == T.ARRAY and t.expressions:
        return t.expressions[0]
    if t.this == T.MAP and len(t.expressions) == 2:
        return t.expressions[1]
    return None


def field_type(t: exp.DataType | None, name: str) -> exp.DataType | None:
    """The type of field ``name`` of a struct type (Spark matches names without case); of
    an array of structs, the array of that field (``arr.v``: each element's ``v``)."""
    if t is not None and t.this == T.ARRAY and t.expressions:
        inner = field_type(t.expressions[0], name)
        return (
            None if inner is None else exp.DataType(this=T.ARRAY, expressions=[inner], nested=True)
        )
    if t is not None and t.this == T.MAP and len(t.expressions) == 2:
        key = t.expressions[0]  # ``m.k`` of a map with string keys: Spark's m['k']
        return t.expressions[1] if key.this in (T.VARCHAR, T.TEXT, T.CHAR) else None
    if t is None or t.this != T.STRUCT:
        return None
    for f in t.expressions:
        if isinstance(f, exp.ColumnDef) and f.name.lower() == name.lower():
            kind = f.args.get("kind")
            return kind if isinstance(kind, exp.DataType) else None
    return None


def internal_probe(node: exp.Anonymous, probes: list[str]) -> str:
    """Spark SQL with the type of an internal call of ``planner.decompose``
    (``__MR_DAYS_ADD(...)`` of ``date_add(A.d, B.n)``), whose arguments' Spark SQL is
    ``probes``: Spark cannot analyse the internal call itself. ``to_timestamp`` is typed
    by Spark (its type follows the session's ``spark.sql.timestampType``), the sum with a
    YEAR-MONTH interval is Spark's own (a STRING refused as Spark refuses it), the others
    are fixed."""
    name = node.name.upper()
    if name in ("__MR_TO_TIMESTAMP", "__MR_TRY_TO_TIMESTAMP") and len(probes) == 3:
        return f"{name[5:].lower()}({probes[0]}, {probes[2]})"
    if name == "__MR_YEAR_MONTH_ADD" and len(probes) == 2:
        return f"({probes[0]}) + make_ym_interval(0, {probes[1]})"
    return f"CAST(NULL AS {_FIXED[name].upper()})"


def call_type(
    node: exp.Expression, type_of: TypeOf, common: Callable[[list], exp.DataType | None]
) -> exp.DataType | None:
    """Spark's result type of call ``node`` from the table, or None if it has no rule.
    ``type_of`` types an argument; ``common`` gives Spark's common type of a list of
    argument expressions."""
    k = key(node)
    if k in _FIXED:
        return dtype(_FIXED[k])
    written = exp.FUNCTION_BY_NAME.get(k) if isinstance(node, exp.Anonymous) else None
    if written is not None and written.__name__ in _FIXED:
        # a call kept as written (sqlglot could not write its node back whole, e.g.
        # to_char(n, '999')): typed as the node it stands for when that type is fixed
        return dtype(_FIXED[written.__name__])
    if k in _SAME_AS_FIRST:
        first = _first_arg(node)
        typed = type_of(first) if first is not None else None
        if k == _REVERSE and typed is not None and typed.this not in (T.ARRAY, T.BINARY):
            return dtype("string")  # Spark reverses the text of anything else
        if k == "POSITIVE" and typed is not None and typed.this in (T.VARCHAR, T.TEXT, T.NULL):
            return dtype("double")  # of the DOUBLE a string (or a NULL) reads as
        return typed
    if k in _STRING_OR_BINARY:
        first = _first_arg(node)
        typed = type_of(first) if first is not None else None
        binary = typed is not None and typed.this in (T.BINARY, T.VARBINARY)
        return dtype("binary" if binary else "string")
    if k in _SHIFTS:
        first = _first_arg(node)
        shifted = type_of(first) if first is not None else None
        if shifted is None or shifted.this == T.BIGINT:
            return shifted
        return dtype("int")  # Spark reads any other base as an INT
    if k in _ELEMENT_OF_FIRST:
        first = _first_arg(node)
        return element_type(type_of(first)) if first is not None else None
    if k in _COMMON_OF_ALL:
        return common(call_arguments(node))
    if k in _COMMON_WITH_ZERO:  # zeroifnull(x) is nvl(x, 0)
        return common([*call_arguments(node)[:1], exp.Literal.number(0)])
    rule = _STRUCTURAL.get(k)
    return rule(node, type_of, common) if rule is not None else None


def _bracket(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    """``arr[i]``, ``m[k]``, and ``s['f']`` of a struct: its field ``f``."""
    if len(node.expressions) != 1:
        return None
    base, key = type_of(node.this), node.expressions[0].unnest()
    if base is not None and base.this == T.STRUCT:
        is_name = isinstance(key, exp.Literal) and key.is_string
        return field_type(base, key.this) if is_name else None
    return element_type(base)


def _dot(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    return field_type(type_of(node.this), node.expression.name)


def _array(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    args = call_arguments(node)
    element = common(args) if args else None
    return array_of(element) if element is not None and element.this != T.NULL else None


def _split(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    return array_of(dtype("string"), no_nulls=True)


def _map_keys(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    t = type_of(node.this)
    if t is None or t.this != T.MAP or len(t.expressions) != 2:
        return None
    return array_of(t.expressions[0])


def _map_values(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    value = element_type(type_of(call_arguments(node)[0]))
    return array_of(value) if value is not None else None


def _flatten(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    inner = element_type(type_of(node.this))
    return inner if inner is not None and inner.this == T.ARRAY else None


def _concat(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    """``concat``/``||``: of strings a string, of arrays an array."""
    types = [type_of(a) for a in call_arguments(node)]
    if any(t is not None and t.this == T.ARRAY for t in types):
        return common(call_arguments(node))
    if types and all(t is not None and t.this == T.BINARY for t in types):
        return dtype("binary")
    return dtype("string")


def struct_fields(node: exp.Expression) -> list[tuple[str, exp.Expression]] | None:
    """(name, value) of each field of a lowered ``STRUCT(x AS name, ...)`` (the planner
    names every field as Spark does), or None when a field has no name."""
    fields = []
    for e in node.expressions:
        if not isinstance(e, (exp.PropertyEQ, exp.Alias)):
            return None
        name = e.this if isinstance(e, exp.PropertyEQ) else e.args.get("alias")
        value = e.expression if isinstance(e, exp.PropertyEQ) else e.this
        if not isinstance(name, exp.Identifier):
            return None
        fields.append((name.this, value))
    return fields


def _struct(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    fields = struct_fields(node)
    if not fields:
        return None
    typed = [(name, type_of(value)) for name, value in fields]
    if any(t is None for _, t in typed):
        return None
    return _struct_of(typed)  # type: ignore[arg-type]


def _nvl2(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    return common(call_arguments(node)[1:])


#: the DATE and TIMESTAMP types (EXTRACT/date_part's SECOND of one is a DECIMAL(8, 6),
#: seconds with their fraction; every other field of one is an INT)
DATETIMES = (T.DATE, T.TIMESTAMP, T.TIMESTAMPTZ, T.TIMESTAMPNTZ, T.TIMESTAMPLTZ, T.DATETIME)


def _extract(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    """``extract(field FROM d)``, ``date_part('field', d)`` of a date or timestamp, or of
    a day-time interval (its hours and minutes are TINYINT, its days INT)."""
    if isinstance(node, exp.Extract):
        field, source = node.this, node.expression
    else:
        args = call_arguments(node)
        if len(args) != 2:
            return None
        field, source = args
    name = field.name.upper() if isinstance(field, (exp.Var, exp.Literal, exp.Column)) else ""
    source_type = type_of(source)
    if name and source_type is not None and day_time_span(source_type):
        name = canonical_field(name)
        return dtype(_INTERVAL_FIELD_TYPES[name]) if name in _INTERVAL_FIELD_TYPES else None
    if source_type is not None and source_type.this in (T.VARCHAR, T.TEXT, T.CHAR):
        source_type = dtype("timestamp")  # Spark reads a string's fields as a TIMESTAMP's
    if not name or source_type is None or source_type.this not in DATETIMES:
        return None
    return dtype("decimal(8,6)") if canonical_field(name) == "SECOND" else dtype("int")


#: the types of a day-time interval's fields
_INTERVAL_FIELD_TYPES = {
    "DAY": "int",
    "HOUR": "tinyint",
    "MINUTE": "tinyint",
    "SECOND": "decimal(8,6)",
}
#: a day-time interval's fields, coarsest first
DAY_TIME_FIELDS = ("DAY", "HOUR", "MINUTE", "SECOND")


def day_time_span(t: exp.DataType) -> tuple[str, str] | None:
    """The start and end fields of a day-time interval type (``('DAY', 'SECOND')``),
    else None."""
    unit = t.this.args.get("unit") if isinstance(t.this, exp.Interval) else None
    if unit is None:
        return None
    start, end = (
        (unit.this, unit.expression) if isinstance(unit, exp.IntervalSpan) else (unit, unit)
    )
    names = (start.name.upper(), end.name.upper())
    return names if all(n in DAY_TIME_FIELDS for n in names) else None  # type: ignore[return-value]


def _pmod(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    """``pmod(a, b)`` is typed as ``a % b``."""
    args = call_arguments(node)
    if len(args) != 2:
        return None
    return type_of(exp.Mod(this=args[0].copy(), expression=args[1].copy()))


def _decode(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    """``decode(x, search, result, ..., default)``: the results' type when they all have
    one (Spark's coercion of mixed results is not copied here)."""
    args = call_arguments(node)[1:]
    results = [a for i, a in enumerate(args) if i % 2 == 1 or i == len(args) - 1]
    types = {t.sql("spark") for t in (type_of(r) for r in results) if t is None or t.this != T.NULL}
    if len(types) != 1 or "None" in types:
        return None
    return common(results)


def _var_map(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    """``map(k1, v1, ...)``: Spark's common key and value types; values may be NULL
    unless every one is a non-NULL literal."""
    keys, values = node.args["keys"].expressions, node.args["values"].expressions
    key, value = common(keys), common(values)
    if key is None or value is None or key.this == T.NULL:
        return None
    result = exp.DataType(this=T.MAP, expressions=[key.copy(), value.copy()], nested=True)
    if all(isinstance(v, (exp.Literal, exp.Boolean)) for v in values):
        result.meta[NO_NULL_ELEMENTS] = True
    return result


def _map_from_arrays(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    keys, values = type_of(node.args["keys"]), type_of(node.args["values"])
    key, value = element_type(keys), element_type(values)
    if key is None or value is None:
        return None
    result = exp.DataType(this=T.MAP, expressions=[key.copy(), value.copy()], nested=True)
    if values is not None and values.meta.get(NO_NULL_ELEMENTS):
        result.meta[NO_NULL_ELEMENTS] = True
    return result


_INTEGRAL = (T.TINYINT, T.SMALLINT, T.INT, T.BIGINT)


def _sequence(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    """``sequence(start, end[, step])`` of numbers, dates or timestamps: their common
    type (a number's step's too: ``sequence(1, 5, 2L)`` is an ARRAY<BIGINT>), never
    NULL; None where Spark refuses the types (:mod:`planner.sequence_types`)."""
    from .sequence_types import sequence_refusal  # its names are type_names', built on this
    from .type_names import type_name

    step = node.args.get("step")
    bounds = [node.args["start"], node.args["end"]]
    types = [type_of(b) for b in bounds]
    step_type = type_of(step) if step is not None else None
    if any(t is None for t in types) or (step is not None and step_type is None):
        return None
    names = (type_name(types[0]), type_name(types[1]))
    if sequence_refusal(names, type_name(step_type) if step_type is not None else None):
        return None
    if step_type is not None and step_type.this in _INTEGRAL:
        bounds.append(step)
    element = common(bounds)
    if element is None or element.this not in (*_INTEGRAL, *DATETIMES):
        return None
    if step is not None and is_year_month(step_type):  # no Python value of its type
        return None
    return array_of(element, no_nulls=True)


def _regexp_extract_all(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType:
    return array_of(dtype("string"))


def _str_to_map(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType:
    return exp.DataType(this=T.MAP, expressions=[dtype("string"), dtype("string")], nested=True)


def _array_union(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    types = [type_of(a) for a in call_arguments(node)]
    if len(types) != 2 or any(t is None or t.this != T.ARRAY for t in types):
        return None
    element = tightest(element_type(types[0]), element_type(types[1]))  # Spark casts both
    if element is None:
        return None
    return array_of(element, no_nulls=all(t.meta.get(NO_NULL_ELEMENTS) for t in types))


def _array_pair(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    """``array_except(a, b)``/``array_intersect(a, b)``: an array of the common type of
    both arrays' elements (Spark casts both); NULL elements where ``a`` has them (and, for
    the intersection, ``b`` too)."""
    result = _array_union(node, type_of, common)
    if result is None:
        return None
    a, b = (type_of(x) for x in call_arguments(node))
    no_nulls = [t is not None and bool(t.meta.get(NO_NULL_ELEMENTS)) for t in (a, b)]
    intersect = isinstance(node, exp.ArrayIntersect)
    return array_of(element_type(result), no_nulls=any(no_nulls) if intersect else no_nulls[0])


def _array_remove(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    """``array_remove(a, x)``: an array of the tightest common type of ``a``'s elements
    and ``x``."""
    args = call_arguments(node)
    values = type_of(args[0]) if len(args) == 2 else None
    value = type_of(args[1]) if values is not None and values.this == T.ARRAY else None
    if values is None or value is None:
        return None
    element = tightest(element_type(values), value)
    if element is None:
        return None
    return array_of(element, no_nulls=bool(values.meta.get(NO_NULL_ELEMENTS)))


def _typed_null(t: exp.DataType) -> exp.Expression:
    return exp.Cast(this=exp.null(), to=t.copy())


def _array_repeat(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    """``array_repeat(x, n)``: an array of ``x``'s type."""
    args = call_arguments(node)
    element = type_of(args[0]) if len(args) == 2 else None
    return array_of(element) if element is not None and element.this != T.NULL else None


def _array_insert(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    """``array_insert(arr, pos, x)``: an array of the tightest common type of the elements
    and ``x``."""
    args = call_arguments(node)
    values = type_of(args[0]) if len(args) == 3 else None
    value = type_of(args[2]) if values is not None and values.this == T.ARRAY else None
    if values is None or value is None:
        return None
    element = tightest(element_type(values), value)
    return array_of(element) if element is not None else None


def _map_concat(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    """``map_concat(m1, m2, ...)``: Spark's common key and value types of the maps (of
    none, a map of strings)."""
    types = [type_of(a) for a in call_arguments(node)]
    if not types:
        return dtype("map<string,string>")
    if any(t is None or t.this != T.MAP or len(t.expressions) != 2 for t in types):
        return None
    key = common([_typed_null(t.expressions[0]) for t in types])
    value = common([_typed_null(t.expressions[1]) for t in types])
    if key is None or value is None:
        return None
    result = exp.DataType(this=T.MAP, expressions=[key.copy(), value.copy()], nested=True)
    if all(t.meta.get(NO_NULL_ELEMENTS) for t in types):
        result.meta[NO_NULL_ELEMENTS] = True
    return result


def _array_compact(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    """``array_compact(arr)``: its array type, whose elements are never NULL."""
    element = element_type(type_of(node.this))
    return array_of(element, no_nulls=True) if element is not None else None


# ------------------------------------------------------------------ higher-order functions


def _lambda_body(lam: exp.Expression, params: list[exp.DataType]) -> exp.Expression | None:
    """The body of lambda ``lam`` with each parameter replaced by a NULL of its type,
    ready to be typed like any expression."""
    if not isinstance(lam, exp.Lambda) or len(lam.expressions) > len(params):
        return None
    bound = {p.name.lower(): t for p, t in zip(lam.expressions, params)}
    body = lam.this.copy()
    for ident in list(body.find_all(exp.Identifier)):
        target = ident.parent if isinstance(ident.parent, exp.Column) else ident
        if isinstance(target, exp.Column) and target.table:
            continue
        t = bound.get(ident.name.lower())
        if t is not None:
            typed = exp.Cast(this=exp.null(), to=t.copy())
            if target is body:
                body = typed
            else:
                target.replace(typed)
    return body


#: operators whose result is NULL only when an operand is (under ANSI mode)
_NULL_KEEPING = (
    exp.Add,
    exp.Sub,
    exp.Mul,
    exp.Neg,
    exp.Paren,
    exp.Lower,
    exp.Upper,
    exp.Concat,
    exp.DPipe,
)


def _never_null(lam: exp.Lambda, non_null: set[str]) -> bool:
    """Whether Spark declares lambda ``lam``'s result non-NULL: built of parameters in
    ``non_null``, non-NULL literals and NULL-keeping operators only."""

    def check(node: exp.Expression) -> bool:
        if isinstance(node, (exp.Identifier, exp.Column)) and not getattr(node, "table", ""):
            return node.name.lower() in non_null
        if isinstance(node, exp.Literal):
            return True
        if isinstance(node, _NULL_KEEPING):
            return all(check(c) for c in node.iter_expressions())
        return False

    return check(lam.this)


def _transform(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    """``transform(arr, x -> f)`` / ``(x, i) -> f``: an array of f's type."""
    array = type_of(node.this)
    element = element_type(array) if array is not None and array.this == T.ARRAY else None
    lam = node.expression
    body = _lambda_body(lam, [element, dtype("int")]) if element is not None else None
    inner = type_of(body) if body is not None else None
    if inner is None:
        return None
    names = [p.name.lower() for p in lam.expressions]
    non_null = set(names[1:]) | (set(names[:1]) if array.meta.get(NO_NULL_ELEMENTS) else set())
    return array_of(inner, no_nulls=_never_null(lam, non_null))


def _reduce(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    """``aggregate(arr, zero, (acc, x) -> merge[, acc -> finish])``: the zero's type, or
    the finish function's of it."""
    zero = type_of(node.args["initial"])
    finish = node.args.get("finish")
    if zero is None or finish is None:
        return zero
    body = _lambda_body(finish, [zero])
    return type_of(body) if body is not None else None


def _zip_with(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    """``zip_with(a, b, (x, y) -> f)``: an array of f's type (x or y may be NULL, past the
    shorter array's end)."""
    args = call_arguments(node)
    if len(args) != 3:
        return None
    elements = [element_type(type_of(a)) for a in args[:2]]
    body = _lambda_body(args[2], elements) if None not in elements else None
    inner = type_of(body) if body is not None else None
    if inner is None:
        return None
    return array_of(inner, no_nulls=_never_null(args[2], set()))


def _map_lambda(node: exp.Expression, type_of: TypeOf) -> tuple[exp.DataType, exp.DataType] | None:
    """(map type, lambda body type) of ``f(map, (k, v) -> body)``."""
    args = call_arguments(node)
    t = type_of(args[0]) if len(args) == 2 else None
    if t is None or t.this != T.MAP or len(t.expressions) != 2:
        return None
    body = _lambda_body(args[1], list(t.expressions))
    inner = type_of(body) if body is not None else None
    return None if inner is None else (t, inner)


def _map_of(key: exp.DataType, value: exp.DataType, no_nulls: bool) -> exp.DataType:
    result = exp.DataType(this=T.MAP, expressions=[key.copy(), value.copy()], nested=True)
    if no_nulls:  # Spark's valueContainsNull = false
        result.meta[NO_NULL_ELEMENTS] = True
    return result


def _transform_values(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    """``transform_values(m, (k, v) -> f)``: m's keys to f's type."""
    found = _map_lambda(node, type_of)
    if found is None:
        return None
    lam = call_arguments(node)[1]
    names = [p.name.lower() for p in lam.expressions]
    non_null = set(names[:1]) | (set(names[1:]) if found[0].meta.get(NO_NULL_ELEMENTS) else set())
    return _map_of(found[0].expressions[0], found[1], _never_null(lam, non_null))


def _transform_keys(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    """``transform_keys(m, (k, v) -> f)``: f's type to m's values."""
    found = _map_lambda(node, type_of)
    if found is None:
        return None
    t = found[0]
    return _map_of(found[1], t.expressions[1], bool(t.meta.get(NO_NULL_ELEMENTS)))


def _json_keys(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    return array_of(dtype("string"))


def _from_json(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    """``from_json(s, schema)``: the schema literal as Spark reads it, a type
    (``'ARRAY<INT>'``, ``'STRUCT<a: INT>'``) or a list of fields (``'a INT, b
    STRING'``: a struct of them)."""
    return _schema_type(node.expression)


def _from_csv(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    """``from_csv(s, schema[, options])`` and ``from_xml``: a struct of the schema's fields."""
    args = call_arguments(node)
    t = _schema_type(args[1]) if len(args) > 1 else None
    return t if t is not None and t.this == T.STRUCT else None


def _schema_type(schema: exp.Expression | None) -> exp.DataType | None:
    schema = schema.unnest() if schema is not None else None
    if not (isinstance(schema, exp.Literal) and schema.is_string):
        return None
    for text in (schema.this, f"struct<{schema.this}>"):
        try:
            t = exp.DataType.build(text, dialect="spark")
        except Exception:  # noqa: BLE001 - sqlglot raises several kinds for a bad type
            continue
        if t.this in (T.ARRAY, T.MAP) or (
            t.this == T.STRUCT and all(isinstance(f, exp.ColumnDef) for f in t.expressions)
        ):
            return t
    return None


def _variant_get(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    """``variant_get(v, path[, type])`` / ``try_variant_get``: the type its literal names,
    a VARIANT without one."""
    args = call_arguments(node)
    if len(args) < 3:
        return dtype("variant")
    kind = args[2].unnest()
    if not (isinstance(kind, exp.Literal) and kind.is_string):
        return None
    try:
        return exp.DataType.build(kind.this, dialect="spark")
    except Exception:  # noqa: BLE001 - sqlglot raises several kinds for a bad type
        return None


def _map_zip_with(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    """``map_zip_with(m1, m2, (k, v1, v2) -> f)``: the keys to f's type (v1 or v2 is NULL
    where a map lacks the key)."""
    args = call_arguments(node)
    maps = [type_of(a) for a in args[:2]] if len(args) == 3 else []
    if len(maps) != 2 or any(t is None or t.this != T.MAP for t in maps):
        return None
    key = maps[0].expressions[0]  # Spark requires both maps' keys of one type
    body = _lambda_body(args[2], [key, maps[0].expressions[1], maps[1].expressions[1]])
    inner = type_of(body) if body is not None else None
    if inner is None:
        return None
    names = [p.name.lower() for p in args[2].expressions]
    return _map_of(key, inner, _never_null(args[2], set(names[:1])))


#: the types Spark widens one to another by rank in its ``findTightestCommonType``:
#: numbers but DECIMAL by precedence, then dates and times (any TIMESTAMP ranks last)
_TIGHTEST_RANKS = [
    {T.TINYINT: 0, T.SMALLINT: 1, T.INT: 2, T.BIGINT: 3, T.FLOAT: 4, T.DOUBLE: 5},
    {T.DATE: 0, T.TIMESTAMPNTZ: 1, T.TIMESTAMP: 2, T.TIMESTAMPTZ: 2, T.TIMESTAMPLTZ: 2},
]


def tightest(a: exp.DataType, b: exp.DataType) -> exp.DataType | None:
    """Spark's tightest common type of ``a`` and ``b`` (the element type ``array_append``,
    ``array_remove`` and ``array_union`` take), None where it has none (a STRING beside a
    number, a DECIMAL beside a fraction or an integer it cannot hold, intervals of other
    units: Spark refuses the call); arrays, maps and structs part by part."""
    if b.this == T.NULL or a == b:
        return a
    if a.this == T.NULL:
        return b
    for ranks in _TIGHTEST_RANKS:
        if a.this in ranks and b.this in ranks:
            return a if ranks[a.this] >= ranks[b.this] else b
    for decimal, integral in ((a, b), (b, a)):
        digits = decimal_params(decimal)
        if digits is not None and integral.this in INTEGRAL_DIGITS:
            return decimal if digits[0] - digits[1] >= INTEGRAL_DIGITS[integral.this] else None
    return _part_by_part(a, b, tightest)


def _part_by_part(
    a: exp.DataType,
    b: exp.DataType,
    join: Callable[[exp.DataType, exp.DataType], exp.DataType | None],
) -> exp.DataType | None:
    """Two arrays, maps or structs (of the same field names, regardless of case; the
    first one's kept) joined part by part by ``join``; None for any other pair."""
    if a.this != b.this or a.this not in _NESTED or len(a.expressions) != len(b.expressions):
        return None
    parts: list[exp.Expression] = []
    for x, y in zip(a.expressions, b.expressions):
        if isinstance(x, exp.ColumnDef) and isinstance(y, exp.ColumnDef):
            kinds = (x.args.get("kind"), y.args.get("kind"))
            same = None not in kinds and x.name.lower() == y.name.lower()
            joined = join(*kinds) if same else None
            parts.append(exp.ColumnDef(this=x.this.copy(), kind=joined.copy()) if joined else None)
        elif isinstance(x, exp.DataType) and isinstance(y, exp.DataType):
            joined = join(x, y)
            parts.append(joined.copy() if joined is not None else None)
        else:
            return None
    if any(p is None for p in parts):
        return None
    return exp.DataType(this=a.this, expressions=parts, nested=True)


_NESTED = (T.ARRAY, T.MAP, T.STRUCT)
_NUMBERS = (*_TIGHTEST_RANKS[0], T.DECIMAL)


def joins_without_strings(a: exp.DataType, b: exp.DataType) -> bool:
    """Whether Spark has a wider type of ``a`` and ``b`` without casting to STRING (what
    ``array_contains`` needs of its array's elements and its value): the tightest, or
    any two numbers (a DECIMAL beside a DOUBLE), part by part in arrays and structs."""
    if tightest(a, b) is not None or (a.this in _NUMBERS and b.this in _NUMBERS):
        return True
    return _part_by_part(a, b, lambda x, y: x if joins_without_strings(x, y) else None) is not None


def _array_append(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    """``array_append(arr, x)`` / ``array_prepend``: an array of the tightest common type of
    ``arr``'s elements and ``x`` (``array_append(array(1L), 2.5D)`` is ARRAY<DOUBLE>), its
    elements NULL-free only when ``arr``'s are and ``x`` is a non-NULL literal (Spark:
    containsNull or x's nullability; declaring NOT NULL elements a NULL then fills fails
    the job)."""
    array, element = node.this, node.expression
    t = type_of(array) if array is not None and element is not None else None
    if t is None or t.this != T.ARRAY:
        return t
    value = type_of(element)
    joined = tightest(t.expressions[0], value) if value is not None else None
    if joined is None:
        return None
    literal = isinstance(element, (exp.Literal, exp.Boolean))
    return array_of(joined, no_nulls=bool(t.meta.get(NO_NULL_ELEMENTS)) and literal)


def _sentences(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType:
    """``sentences(s[, lang, country])``: arrays of words, never NULL ones."""
    return array_of(array_of(dtype("string"), no_nulls=True), no_nulls=True)


def _map_entries(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    """``map_entries(m)``: an array of (key, value) structs, never a NULL one."""
    t = type_of(call_arguments(node)[0]) if call_arguments(node) else None
    if t is None or t.this != T.MAP or len(t.expressions) != 2:
        return None
    never_null = ("key", "value") if t.meta.get(NO_NULL_ELEMENTS) else ("key",)
    entry = _struct_of([("key", t.expressions[0]), ("value", t.expressions[1])], never_null)
    return array_of(entry, no_nulls=True)


def _map_from_entries(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    """``map_from_entries(array of (k, v) structs)``: a map of the fields' types."""
    entry = element_type(type_of(node.this))
    fields = list(entry.expressions) if entry is not None else []
    kinds = [f.args.get("kind") for f in fields]
    if entry is None or entry.this != T.STRUCT or len(fields) != 2 or None in kinds:
        return None
    result = exp.DataType(this=T.MAP, expressions=[kinds[0].copy(), kinds[1].copy()], nested=True)
    if fields[1].meta.get(NOT_NULL_FIELD):
        result.meta[NO_NULL_ELEMENTS] = True
    return result


def _arrays_zip(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    """``arrays_zip(a, b, ...)``: an array of structs, a field per array named as its
    column (its index when it is no column), never a NULL struct."""
    fields = []
    for i, arg in enumerate(call_arguments(node)):
        element = element_type(type_of(arg))
        if element is None:
            return None
        fields.append((_zip_field_name(arg, i), element))
    return array_of(_struct_of(fields), no_nulls=True) if fields else None


def _zip_field_name(arg: exp.Expression, place: int) -> str:
    """Spark's name of the field ``arrays_zip`` makes of its argument ``arg``: a column's
    name, else its place. ``IF(FALSE, col, NULL)`` is the pushdown's value of column
    ``col`` at an absent row (``planner.pushdown``), named as the column it stands for."""
    if isinstance(arg, exp.If) and isinstance(arg.this, exp.Boolean) and not arg.this.this:
        if isinstance(arg.args.get("false"), exp.Null):
            arg = arg.args.get("true")
    return arg.name if isinstance(arg, exp.Column) else str(place)


def _struct_of(
    fields: list[tuple[str, exp.DataType]], not_null: tuple[str, ...] = ()
) -> exp.DataType:
    """A struct type; the fields named in ``not_null`` are never NULL (Spark's
    ``nullable = false``)."""
    defs = []
    for name, t in fields:
        field = exp.ColumnDef(this=exp.to_identifier(name, quoted=True), kind=t.copy())
        if name in not_null:
            field.meta[NOT_NULL_FIELD] = True
        defs.append(field)
    return exp.DataType(this=T.STRUCT, expressions=defs, nested=True)


def _to_number(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    """``to_number(s, fmt)``: a DECIMAL with a digit per ``0``/``9`` of the literal
    format, those after its ``.`` (or ``D``) the scale."""
    args = call_arguments(node)
    fmt = args[1].unnest() if len(args) == 2 else None  # (a probe's literal is in parentheses)
    if not (isinstance(fmt, exp.Literal) and fmt.is_string):
        return None
    text = fmt.this.upper()
    point = min((text.find(c) for c in ".D" if c in text), default=len(text))
    digits = sum(text.count(d) for d in "09")
    scale = sum(text[point:].count(d) for d in "09")
    return dtype(f"decimal({digits},{scale})") if digits else None


def _nanvl(node: exp.Expression, type_of: TypeOf, common) -> exp.DataType | None:
    """``nanvl(a, b)``: a FLOAT of two FLOATs, else a DOUBLE (Spark casts a DECIMAL or an
    integer to DOUBLE)."""
    types = [type_of(a) for a in call_arguments(node)]
    if any(t is None for t in types):
        return None
    return dtype("float" if all(t.this == T.FLOAT for t in types) else "double")


_STRUCTURAL: dict[str, Callable[..., exp.DataType | None]] = {
    "Nanvl": _nanvl,
    "MAP_ENTRIES": _map_entries,
    "MapFromEntries": _map_from_entries,
    "ArraysZip": _arrays_zip,
    "ToNumber": _to_number,
    "TRY_TO_NUMBER": _to_number,
    "JSONKeys": _json_keys,
    "FromJson": _from_json,
    "VARIANT_GET": _variant_get,
    "TRY_VARIANT_GET": _variant_get,
    "ZIP_WITH": _zip_with,
    "TRANSFORM_VALUES": _transform_values,
    "TRANSFORM_KEYS": _transform_keys,
    "MAP_ZIP_WITH": _map_zip_with,
    "FROM_CSV": _from_csv,
    "SENTENCES": _sentences,
    "ArrayAppend": _array_append,
    "ArrayPrepend": _array_append,
    "FROM_XML": _from_csv,
    "PMOD": _pmod,
    "TRY_MOD": _pmod,
    "DecodeCase": _decode,
    "VarMap": _var_map,
    "Map": _map_from_arrays,
    "GenerateSeries": _sequence,
    "ARRAY_UNION": _array_union,
    "ArrayExcept": _array_pair,
    "ArrayIntersect": _array_pair,
    "ArrayRemove": _array_remove,
    "RegexpExtractAll": _regexp_extract_all,
    "StrToMap": _str_to_map,
    "Transform": _transform,
    "Reduce": _reduce,
    "Extract": _extract,
    "DATE_PART": _extract,
    "DATEPART": _extract,
    "Nvl2": _nvl2,
    "Struct": _struct,
    "Concat": _concat,
    "DPipe": _concat,
    "Bracket": _bracket,
    "Dot": _dot,
    "Array": _array,
    "RegexpSplit": _split,
    "MapKeys": _map_keys,
    "MAP_VALUES": _map_values,
    "Flatten": _flatten,
    "ARRAY_REPEAT": _array_repeat,
    "ArrayInsert": _array_insert,
    "MAP_CONCAT": _map_concat,
    "ArrayCompact": _array_compact,
}


# ------------------------------------------------------------------ intervals and dates


def typed_call_names() -> frozenset[str]:
    """The names (upper case, as written) of the calls this module has a type rule for:
    functions sqlglot parses as anonymous calls (``array_repeat``) among them."""
    tables = (_FIXED, _SAME_AS_FIRST, _STRING_OR_BINARY, _SHIFTS, _ELEMENT_OF_FIRST, _STRUCTURAL)
    names = {k for table in (*tables, _COMMON_WITH_ZERO, _COMMON_OF_ALL) for k in table}
    return frozenset(k for k in names if k == k.upper())


_YEAR_MONTH = ("YEAR", "MONTH")
_DAY_TIME = ("DAY", "HOUR", "MINUTE", "SECOND")


def interval_type(node: exp.Interval) -> exp.DataType | None:
    """The type of an interval literal such as ``INTERVAL 1 HOUR`` or
    ``INTERVAL '1 02:03' DAY TO MINUTE``."""
    unit = node.args.get("unit")
    if isinstance(unit, exp.IntervalSpan):
        start, end = unit.this.name.upper(), unit.expression.name.upper()
        for fields in (_YEAR_MONTH, _DAY_TIME):
            if start in fields and end in fields and fields.index(start) < fields.index(end):
                span = exp.IntervalSpan(this=exp.var(start), expression=exp.var(end))
                return exp.DataType(this=exp.Interval(unit=span))
        return None
    name = unit.name.upper() if isinstance(unit, exp.Var) else ""
    name = {"WEEK": "DAY", "WEEKS": "DAY"}.get(name, name.rstrip("S"))
    if name in ("YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND"):
        return dtype(f"interval {name.lower()}")
    return None


def is_interval(t: exp.DataType | None) -> bool:
    return t is not None and isinstance(t.this, exp.Interval)


def is_year_month(t: exp.DataType | None) -> bool:
    """Whether ``t`` is a YEAR-MONTH interval (``INTERVAL YEAR``, ``... YEAR TO MONTH``)."""
    return is_interval(t) and all(
        unit.name.upper() in _YEAR_MONTH for unit in t.this.find_all(exp.Var)
    )


_DATE_UNITS = {"DAY", "WEEK", "MONTH", "YEAR"}
_TIMESTAMPS = {T.TIMESTAMP, T.TIMESTAMPTZ, T.TIMESTAMPLTZ, T.TIMESTAMPNTZ}


#: the integers Spark adds to a DATE as days (``d + 1``, its ``date_add``)
_DAY_COUNTS = {T.TINYINT, T.SMALLINT, T.INT}


def datetime_arithmetic(
    node: exp.Binary, left: exp.DataType, right: exp.DataType
) -> exp.DataType | None:
    """Spark's type of ``+``/``-`` on dates, timestamps and day-time intervals, or None
    when neither side is one of them (then it is numeric arithmetic)."""
    moments = _TIMESTAMPS | {T.DATE}
    if left.this == T.DATE and right.this in _DAY_COUNTS:  # date_add/date_sub: a DATE
        return left
    if isinstance(node, exp.Add) and right.this == T.DATE and left.this in _DAY_COUNTS:
        return right
    if left.this in moments and right.this == T.INTERVAL:  # make_interval(...): Spark's
        return left  # DateAddInterval keeps a DATE, TimeAdd the timestamp type
    if isinstance(node, exp.Add) and right.this in moments and left.this == T.INTERVAL:
        return right
    if left.this in moments and is_interval(right):
        if left.this == T.DATE:  # moved by days, months or years: a DATE still
            unit = right.this.args.get("unit")
            if isinstance(unit, exp.Var) and unit.name.upper() in _DATE_UNITS:
                return left
            return left if is_year_month(right) else dtype("timestamp")
        return left
    if isinstance(node, exp.Add) and right.this in moments and is_interval(left):
        return datetime_arithmetic(node, right, left)
    if isinstance(node, exp.Sub) and left.this in moments and right.this in moments:
        if left.this == right.this == T.DATE:
            return dtype("interval day")
        return dtype("interval day to second")
    both = _day_time_fields(left), _day_time_fields(right)
    if both[0] and both[1]:  # Spark: from the earlier start field to the later end field
        start = min(both[0][0], both[1][0])
        end = max(both[0][1], both[1][1])
        return _day_time_type(start, end)
    return None  # a year-month interval, or an interval with a number: not typed here


def _day_time_fields(t: exp.DataType) -> tuple[int, int] | None:
    """A DAY-TIME interval type's start and end fields as places in DAY, HOUR, MINUTE,
    SECOND; None for other types."""
    if not is_interval(t):
        return None
    unit = t.this.args.get("unit")
    ends = (unit.this, unit.expression) if isinstance(unit, exp.IntervalSpan) else (unit, unit)
    names = [e.name.upper() if isinstance(e, exp.Var) else "" for e in ends]
    if not all(n in _DAY_TIME for n in names):
        return None
    return _DAY_TIME.index(names[0]), _DAY_TIME.index(names[1])


def _day_time_type(start: int, end: int) -> exp.DataType:
    if start == end:
        return dtype(f"interval {_DAY_TIME[start].lower()}")
    return dtype(f"interval {_DAY_TIME[start].lower()} to {_DAY_TIME[end].lower()}")
