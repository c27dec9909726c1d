"""Which argument types Spark refuses for a built-in function called with two arguments
(``add_months(n, 1)`` of an INT, ``date_add(d, big)`` of a BIGINT count,
``array_contains(n, 1)`` of no array, ``array_join(x, ',')`` of a string), when it
analyses the query, ANSI mode or not: the batch doors hear it from Spark; the table
function and DEFINE's glue, which compute the call in Python, answered something instead.
Spark's answer is the refusal, checked in every door at the argument at fault.

:data:`_TABLE` lists, per function, the types refused as its first argument and, after
``|``, as its second (one-letter codes of :data:`planner.unary_types.CODES`), whatever
the other argument's type among the codes; after ``+``, pairs refused together though
neither type is refused alone (``i=sb``: an INT first with a STRING or BOOLEAN second;
an entry ``name+...`` adds pairs to the function's). Read from Spark 4.3 itself by
calling each function of ``SHOW FUNCTIONS`` that takes two arguments with two columns of
every pair of the codes' types (but INTERVAL YEAR TO MONTH, which no table function
takes) under both ANSI settings: kept are the functions the table function computed
where Spark refuses, with every pair Spark refuses in both settings. A function whose
refusal depends on an argument being a constant (``date_part``'s field, ``to_char``'s
format) is left out: Spark took a pair with a literal, or a NULL constant, in its place.
``tests/test_pair_types.py`` asks Spark again for a sample of it. A call is checked only
where both argument types are among the codes (a DECIMAL of any precision reads as
``m``, but in a function of :data:`_TOGETHER`): ``array_contains`` of an ARRAY<DATE> and
a DATE is not in the probe, so not refused. Spark's condition is UNEXPECTED_INPUT_TYPE
unless :data:`_CONDITIONS` says.
"""

from __future__ import annotations

from dataclasses import dataclass

from .unary_types import CODES

_TABLE = """
    add_months:ildmbBaAMSy|bDTNBaAMSy array_append:ildmsbDTNBMSy|mbDTNBaAMSy+a=s,A=ild
    array_contains:ildmsbDTNBMSy|bDTNBaAMSy+a=s,A=ildm
    array_except:ildmsbDTNBMSy|ildmsbDTNBMSy+a=A,A=a
    array_intersect:ildmsbDTNBMSy|ildmsbDTNBMSy+a=A,A=a
    array_join:ildmsbDTNBMSy|ildmbDTNBaAMSy
    array_position:ildmsbDTNBMSy|mbDTNBaAMSy+a=s,A=ild
    array_prepend:ildmsbDTNBMSy|mbDTNBaAMSy+a=s,A=ild array_repeat:|ldmsbDTNBaAMSy
    arrays_overlap:ildmsbDTNBMSy|ildmsbDTNBMSy+a=A,A=a atan2:bDTNBaAMSy|bDTNBaAMSy
    bit_get:dmsbDTNBaAMSy|bDTNBaAMSy btrim:aAMS|aAMS concat_ws:aAMS|MS
    contains:aAMS|aAMS convert_timezone:aAMS|ildmbBaAMSy
    date_add:ildmbBaAMSy|ldmbDTNBaAMSy date_diff:ildmbBaAMSy|ildmbBaAMSy
    date_sub:ildmbBaAMSy|ldmbDTNBaAMSy date_trunc:aAMS|ildmbBaAMSy
    dateadd:ildmbBaAMSy|ldmbDTNBaAMSy datediff:ildmbBaAMSy|ildmbBaAMSy
    decode:ildmbDTNaAMSy|aAMS element_at:ildmsbDTNBSy|ldmbDTNBaAMSy+a=s,A=s,M=i
    elt:bDTNBaAMSy|aAMS encode:aAMS|aAMS endswith:aAMS|aAMS
    equal_null:M|M+i=DTNBaASy,l=DTNBaASy,d=DTNBaASy,m=DTNBaASy,s=aASy,b=DTNBaASy
    equal_null+D=ildmbBaASy,T=ildmbBaASy,N=ildmbBaASy,B=ildmbDTNaASy,a=ildmsbDTNBASy
    equal_null+A=ildmsbDTNBaSy,S=ildmsbDTNBaAy,y=ildmsbDTNBaAS find_in_set:aAMS|aAMS
    format_number:sbDTNBaAMSy|ldmbDTNBaAMSy format_string:aAMS|
    from_utc_timestamp:ildmbBaAMSy|aAMS get:ildmsbDTNBMSy|bDTNBaAMSy
    get_json_object:ildmbDTNBaAMSy|ildmbDTNBaAMSy getbit:dmsbDTNBaAMSy|bDTNBaAMSy
    greatest:M|M+i=sbDTNBaASy,l=sbDTNBaASy,d=sbDTNBaASy,m=sbDTNBaASy,s=ildmbDTNBaASy
    greatest+b=ildmsDTNBaASy,D=ildmsbBaASy,T=ildmsbBaASy,N=ildmsbBaASy
    greatest+B=ildmsbDTNaASy,a=ildmsbDTNBASy,A=ildmsbDTNBaSy,S=ildmsbDTNBaAy
    greatest+y=ildmsbDTNBaAS hypot:bDTNBaAMSy|bDTNBaAMSy instr:aAMS|aAMS
    jaro_winkler_similarity:aAMS|aAMS
    least:M|M+i=sbDTNBaASy,l=sbDTNBaASy,d=sbDTNBaASy,m=sbDTNBaASy,s=ildmbDTNBaASy
    least+b=ildmsDTNBaASy,D=ildmsbBaASy,T=ildmsbBaASy,N=ildmsbBaASy,B=ildmsbDTNaASy
    least+a=ildmsbDTNBASy,A=ildmsbDTNBaSy,S=ildmsbDTNBaAy,y=ildmsbDTNBaAS
    left:aAMS|bDTNBaAMSy levenshtein:aAMS|aAMS locate:aAMS|aAMS
    log:bDTNBaAMSy|bDTNBaAMSy lpad:aAMS|bDTNBaAMSy ltrim:aAMS|aAMS
    make_dt_interval:bDTNBaAMSy|bDTNBaAMSy
    make_timestamp:ildmsbDTNBaAMSy|ildmsbDTNBaAMSy
    make_timestamp_ltz:ildmsbDTNBaAMSy|ildmsbDTNBaAMSy
    make_timestamp_ntz:ildmsbDTNBaAMSy|ildmsbDTNBaAMSy map:M|
    map_from_arrays:ildmsbDTNBMSy|ildmsbDTNBMSy months_between:ildmbBaAMSy|ildmbBaAMSy
    nanvl:bDTNBaAMSy|bDTNBaAMSy next_day:ildmbBaAMSy|aAMS
    nullif:M|M+i=DTNBaASy,l=DTNBaASy,d=DTNBaASy,m=DTNBaASy,s=aASy,b=DTNBaASy
    nullif+D=ildmbBaASy,T=ildmbBaASy,N=ildmbBaASy,B=ildmbDTNaASy,a=ildmsbDTNBASy
    nullif+A=ildmsbDTNBaSy,S=ildmsbDTNBaAy,y=ildmsbDTNBaAS
    parse_url:ildmbDTNBaAMSy|ildmbDTNBaAMSy position:aAMS|aAMS pow:bDTNBaAMSy|bDTNBaAMSy
    power:bDTNBaAMSy|bDTNBaAMSy printf:aAMS| regexp_count:aAMS|aAMS
    regexp_extract:aAMS|aAMS regexp_extract_all:aAMS|aAMS regexp_instr:aAMS|aAMS
    regexp_like:aAMS|aAMS regexp_substr:aAMS|aAMS repeat:aAMS|bDTNBaAMSy
    replace:aAMS|aAMS right:aAMS|bDTNBaAMSy rpad:aAMS|bDTNBaAMSy rtrim:aAMS|aAMS
    sha2:ildmbDTNaAMSy|bDTNBaAMSy shiftleft:bDTNBaAMSy|bDTNBaAMSy
    shiftright:bDTNBaAMSy|bDTNBaAMSy shiftrightunsigned:bDTNBaAMSy|bDTNBaAMSy
    split:aAMS|aAMS startswith:aAMS|aAMS str_to_map:ildmbDTNBaAMSy|ildmbDTNBaAMSy
    substr:aAMS|bDTNBaAMSy substring:aAMS|bDTNBaAMSy to_utc_timestamp:ildmbBaAMSy|aAMS
    trim:aAMS|aAMS trunc:ildmbBaAMSy|aAMS
    try_element_at:ildmsbDTNBSy|ldmbDTNBaAMSy+a=s,A=s,M=i
    try_make_timestamp:ildmsbDTNBaAMSy|ildmsbDTNBaAMSy
    try_make_timestamp_ltz:ildmsbDTNBaAMSy|ildmsbDTNBaAMSy
    try_make_timestamp_ntz:ildmsbDTNBaAMSy|ildmsbDTNBaAMSy
    try_parse_url:ildmbDTNBaAMSy|ildmbDTNBaAMSy
"""

#: (function, argument: 0, 1, or 2 for a pair) -> Spark's condition where it is not
#: UNEXPECTED_INPUT_TYPE
_CONDITIONS: dict[tuple[str, int], str] = {
    ("array_append", 1): "ARRAY_FUNCTION_DIFF_TYPES",
    ("array_append", 2): "ARRAY_FUNCTION_DIFF_TYPES",
    ("array_contains", 1): "ARRAY_FUNCTION_DIFF_TYPES",
    ("array_contains", 2): "ARRAY_FUNCTION_DIFF_TYPES",
    ("array_except", 0): "BINARY_ARRAY_DIFF_TYPES",
    ("array_except", 1): "BINARY_ARRAY_DIFF_TYPES",
    ("array_except", 2): "BINARY_ARRAY_DIFF_TYPES",
    ("array_intersect", 0): "BINARY_ARRAY_DIFF_TYPES",
    ("array_intersect", 1): "BINARY_ARRAY_DIFF_TYPES",
    ("array_intersect", 2): "BINARY_ARRAY_DIFF_TYPES",
    ("array_position", 1): "ARRAY_FUNCTION_DIFF_TYPES",
    ("array_position", 2): "ARRAY_FUNCTION_DIFF_TYPES",
    ("array_prepend", 1): "ARRAY_FUNCTION_DIFF_TYPES",
    ("array_prepend", 2): "ARRAY_FUNCTION_DIFF_TYPES",
    ("arrays_overlap", 0): "BINARY_ARRAY_DIFF_TYPES",
    ("arrays_overlap", 1): "BINARY_ARRAY_DIFF_TYPES",
    ("arrays_overlap", 2): "BINARY_ARRAY_DIFF_TYPES",
    ("equal_null", 0): "BINARY_OP_DIFF_TYPES",
    ("equal_null", 1): "BINARY_OP_DIFF_TYPES",
    ("equal_null", 2): "BINARY_OP_DIFF_TYPES",
    ("greatest", 0): "DATA_DIFF_TYPES",
    ("greatest", 1): "DATA_DIFF_TYPES",
    ("greatest", 2): "DATA_DIFF_TYPES",
    ("least", 0): "DATA_DIFF_TYPES",
    ("least", 1): "DATA_DIFF_TYPES",
    ("least", 2): "DATA_DIFF_TYPES",
    ("map", 0): "INVALID_MAP_KEY_TYPE",
    ("nullif", 0): "BINARY_OP_DIFF_TYPES",
    ("nullif", 1): "BINARY_OP_DIFF_TYPES",
    ("nullif", 2): "BINARY_OP_DIFF_TYPES",
}

_DEFAULT = "UNEXPECTED_INPUT_TYPE"
_NAMES = {name: code for code, name in CODES.items()}


@dataclass(frozen=True)
class PairRule:
    """The types a function refuses as its first and second argument, and together."""

    first: frozenset[str]
    second: frozenset[str]
    pairs: frozenset[str]


def _read(table: str) -> dict[str, PairRule]:
    rules = {}
    for entry in table.split():
        head, _, pairs = entry.partition("+")
        name, _, positions = head.partition(":")
        first, _, second = positions.partition("|")
        together = {a + b for group in pairs.split(",") if group for a, b in _group(group)}
        if name in rules:  # more pairs of a function already read
            together |= rules[name].pairs
            first, second = "".join(rules[name].first), "".join(rules[name].second)
        rules[name] = PairRule(frozenset(first), frozenset(second), frozenset(together))
    return rules


def _group(group: str) -> list[tuple[str, str]]:
    """``i=sb``: a first argument's code, then the second arguments' refused with it."""
    first, _, seconds = group.partition("=")
    return [(first, second) for second in seconds]


#: function name -> the argument types Spark refuses
PAIR_REFUSALS: dict[str, PairRule] = _read(_TABLE)


#: functions that take their arguments' common type, where a DECIMAL's precision counts
#: (``array_append`` of INTs and a DECIMAL(10,2) is refused, of a DECIMAL(12,2) taken)
_TOGETHER = frozenset(name for (name, _), c in _CONDITIONS.items() if c.endswith("DIFF_TYPES"))


def _code(type_name: str, together: bool) -> str | None:
    name = type_name.lower()
    if name.startswith("decimal(") and not together:
        return "m"
    return _NAMES.get(name)


def pair_refusal(name: str, first: str, second: str) -> tuple[int, str] | None:
    """Which argument Spark refuses (0 or 1) and its DATATYPE_MISMATCH condition, for
    ``name`` called with arguments of the types ``first`` and ``second`` (Spark's simple
    names), or None where it takes them (or a type is not one checked here)."""
    rule = PAIR_REFUSALS.get(name.lower())
    together = name.lower() in _TOGETHER
    codes = (_code(first, together), _code(second, together))
    if rule is None or None in codes:
        return None
    a, b = codes
    at = 0 if a in rule.first else 1 if b in rule.second else 2 if a + b in rule.pairs else None
    if at is None:
        return None
    return min(at, 1), _CONDITIONS.get((name.lower(), at), _DEFAULT)
