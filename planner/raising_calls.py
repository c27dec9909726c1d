"""Which Spark functions can fail on some rows' values, whatever the query's constants:
``parse_json('x')``, ``to_date('bad')`` under ANSI mode, ``make_date(2024, 2, 30)``,
``map_from_arrays`` of a repeated key. A column matchrec has Spark compute on every row
for one row a navigation reads (``parse_json(FIRST(A.payload))`` is computed as
``FIRST(parse_json(A.payload))``) is guarded by the rows it can read where such a call
is in it: Spark fails the job on a row the match never reads otherwise."""

from __future__ import annotations

from sqlglot import exp

from matchrec.errors import UnsupportedError

from .pyeval import shallow
from .spark_function_names import SPARK_FUNCTIONS
from .sqltext import MatchRecognizeDialect

#: functions that fail on some values (each tried on bad values in Spark 4 under ANSI
#: mode), besides those with a ``try_`` twin, which Spark has for exactly that reason
_FAILING = frozenset(
    """
    ABS ADD_MONTHS AES_DECRYPT AES_ENCRYPT ARRAY_INSERT ASSERT_TRUE BIN BIT_GET CONV
    CONVERT_TIMEZONE DATE_ADD DATE_FORMAT DATE_SUB DECODE ELT ENCODE FORMAT_STRING FROM_CSV
    FROM_JSON FROM_UNIXTIME FROM_UTC_TIMESTAMP FROM_XML GETBIT MAKE_DATE MAKE_DT_INTERVAL
    MAKE_TIME MAKE_YM_INTERVAL MAP MAP_CONCAT MAP_FROM_ARRAYS MAP_FROM_ENTRIES NEXT_DAY PMOD
    PRINTF RAISE_ERROR REGEXP REGEXP_COUNT REGEXP_EXTRACT REGEXP_EXTRACT_ALL REGEXP_INSTR
    REGEXP_LIKE REGEXP_REPLACE REGEXP_SUBSTR RLIKE SEQUENCE SLICE SPLIT SPLIT_PART STR_TO_MAP
    TIMESTAMP_MICROS TIMESTAMP_MILLIS TIMESTAMP_SECONDS TO_UNIX_TIMESTAMP TO_UTC_TIMESTAMP
    TRANSFORM_KEYS UNBASE64 UNIX_TIMESTAMP XPATH XPATH_BOOLEAN XPATH_DOUBLE XPATH_FLOAT
    XPATH_INT XPATH_LONG XPATH_NUMBER XPATH_SHORT XPATH_STRING
    """.split()
)
# (``date(s)``, ``to_timestamp_ntz(s)`` and the like are CASTs: ``pushdown.failing_cast``)

_TWINNED = {n[4:] for n in SPARK_FUNCTIONS if n.startswith("TRY_") and n[4:] in SPARK_FUNCTIONS}
#: a CAST fails under ANSI mode only, and only some: ``pushdown.failing_cast`` says which
FAILING_FUNCTIONS = (_FAILING | _TWINNED) - {"CAST"}


#: failing functions that fail on text they parse or convert, or on a pattern, format or
#: zone that is no literal (``to_date(s)``, ``regexp_extract(s, p)``, ``date_add(s, 1)``):
#: of the dates, timestamps and literal patterns conditions mostly read they cannot fail,
#: and Spark's column, computed before matching, is the faster form
PARSING = frozenset(
    """
    ADD_MONTHS CONVERT_TIMEZONE DATE_ADD DATE_FORMAT DATE_SUB FROM_UNIXTIME
    FROM_UTC_TIMESTAMP NEXT_DAY REGEXP REGEXP_COUNT REGEXP_EXTRACT REGEXP_EXTRACT_ALL
    REGEXP_INSTR REGEXP_LIKE REGEXP_REPLACE REGEXP_SUBSTR RLIKE SPLIT TO_DATE TO_TIMESTAMP
    TO_UNIX_TIMESTAMP TO_UTC_TIMESTAMP UNIX_TIMESTAMP
    """.split()
)


def fails_on_values(node: exp.Expression) -> bool:
    """Whether ``node`` is a call of a function in :data:`FAILING_FUNCTIONS`."""
    if isinstance(node, (exp.Like, exp.ILike)):  # a pattern from a row: a bad escape
        pattern = node.expression
        return not (isinstance(pattern, exp.Literal) and pattern.is_string)
    return _failing_name(node) is not None


def fails_on_plain_values(node: exp.Expression) -> bool:
    """Whether ``node`` calls a function that fails on some values other than text it
    parses or a pattern (:data:`PARSING`): ``make_date(2024, 2, d)``, ``unbase64(s)``."""
    name = _failing_name(node)
    return name is not None and name not in PARSING


def _failing_name(node: exp.Expression) -> str | None:
    """The upper-case name of the function of :data:`FAILING_FUNCTIONS` ``node`` calls."""
    if isinstance(node, exp.Anonymous):
        name = node.name
    else:
        name = _NODE_NAMES.get(type(node).__name__)
        if name is None and isinstance(node, exp.Func) and not isinstance(node, exp.AggFunc):
            name = _written_name(node)
    return name.upper() if name is not None and name.upper() in FAILING_FUNCTIONS else None


def _written_name(node: exp.Func) -> str:
    """The name Spark SQL calls ``node`` by, as sqlglot writes it (``slice``, not
    sqlglot's ``ARRAY_SLICE``); with its arguments NULL, a call sqlglot cannot write so
    (``initcap`` of a NULL delimiter) by sqlglot's name."""
    try:
        return shallow(node).sql(dialect=MatchRecognizeDialect).split("(", 1)[0].strip()
    except UnsupportedError:
        return node.sql_name()


#: Spark's names of the nodes sqlglot writes as another call (``date_add`` as a CAST of
#: it), as no function (``from_utc_timestamp``), or cannot write with NULL arguments
_NODE_NAMES = {
    "TsOrDsAdd": "DATE_ADD",
    "AtTimeZone": "FROM_UTC_TIMESTAMP",
    "FromTimeZone": "TO_UTC_TIMESTAMP",
    "VarMap": "MAP",
    "RegexpLike": "RLIKE",
}
