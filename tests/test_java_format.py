"""format_string/printf over values of several rows: planner.java_format against Spark.

Each family is one Spark query: every pattern applied to every value of one SQL type,
the pattern read from a column so that one job formats them all; the Python formatter
is given the same values with the type Spark reports. Patterns Spark rejects whatever
the value are checked by ``pattern_error`` and by the errors of the doors."""

from __future__ import annotations

import struct

import pytest
from matchrec.grammar import parse_clause
from matchrec.planner.java_format import (
    FormatError,
    NotComputed,
    conversion_error,
    format_typed,
    pattern_error,
)
from matchrec.planner.plan import plan_clause
from matchrec.planner.typed_calls import read_any_collation
from sqlglot import exp

from matchrec.errors import SemanticError

FLOATING = [
    "%f",
    "%.2f",
    "%.0f",
    "%#.0f",
    "%10.3f",
    "%-10.1f|",
    "%+.3e",
    "%e",
    "%.0e",
    "%E",
    "%g",
    "%.3g",
    "%G",
    "%.1g",
    "%,.2f",
    "%08.2f",
    "%(.1f",
    "% .2f",
    "%s",
    "%S",
    "%.3s",
    "%12.4e",
    "%010.3g",
    "%b",
    "%h",
    "%,g",
]
INTEGRAL = [
    "%d",
    "%5d",
    "%-5d|",
    "%05d",
    "%+d",
    "% d",
    "%(d",
    "%,d",
    "%,010d",
    "%x",
    "%X",
    "%#x",
    "%08x",
    "%#010X",
    "%o",
    "%#o",
    "%s",
    "%10s",
    "%.1s",
    "%b",
    "%h",
    "%H",
    "%1$d-%1$x",
    "%d %<x",
]
TEXT = ["%s", "%S", "%10s|", "%-10s|", "%.2s", "%b", "%B", "%h", "%%%s%n", "%5%|%s"]

#: (SQL type, values as SQL literals, patterns)
FAMILIES = [
    (
        "DOUBLE",
        [
            "0.125D",
            "1.005D",
            "2.5D",
            "-0.0D",
            "1e-5D",
            "123456.789D",
            "1e300D",
            "0.0001234D",
            "99999.95D",
            "9.9995D",
            "-1234567.891D",
            "0.1D",
            "1e10D",
            "CAST('NaN' AS DOUBLE)",
            "CAST('Infinity' AS DOUBLE)",
            "CAST('-Infinity' AS DOUBLE)",
            "NULL",
        ],
        FLOATING,
    ),
    (
        "FLOAT",
        [
            "CAST(0.1 AS FLOAT)",
            "CAST(1.0005 AS FLOAT)",
            "CAST(-3.75 AS FLOAT)",
            "CAST(16777217 AS FLOAT)",
            "CAST(1e-3 AS FLOAT)",
        ],
        FLOATING,
    ),
    ("INT", ["0", "7", "-1", "65", "2147483647", "-2147483648", "1234567", "NULL"], INTEGRAL),
    (
        "BIGINT",
        ["-1L", "9223372036854775807L", "-9223372036854775808L", "4294967296L", "123456789012L"],
        INTEGRAL,
    ),
    ("TINYINT", ["CAST(-1 AS TINYINT)", "CAST(127 AS TINYINT)", "CAST(-128 AS TINYINT)"], INTEGRAL),
    ("SMALLINT", ["CAST(-2 AS SMALLINT)", "CAST(300 AS SMALLINT)"], INTEGRAL),
    ("INT", ["65", "128512", "NULL"], ["%c", "%C", "%-3c|", "%1$s%1$c"]),
    ("DATE", ["DATE'2024-01-01'", "DATE'1969-12-31'"], ["%d", "%x", "%s", "%,d", "%h"]),
    (
        "TIMESTAMP",
        ["TIMESTAMP'2024-01-01 10:00:00.123456'", "TIMESTAMP'1969-12-31 23:59:59'"],
        ["%d", "%s", "%,d", "%x", "%h"],
    ),
    ("STRING", ["'abc'", "''", "'Straße'", "'日本'", "'a😀b'", "NULL"], TEXT),
    (
        "INTERVAL DAY TO SECOND",
        ["INTERVAL '1 02:03:04.5' DAY TO SECOND", "INTERVAL '-3' HOUR"],
        ["%d", "%s", "%x"],
    ),
    ("BOOLEAN", ["true", "false"], ["%b", "%B", "%s", "%5s|", "%h"]),
    ("DECIMAL", ["1.10BD", "0.00000001BD", "-12.5BD"], ["%s", "%S", "%b", "%.2s"]),
]


def _families():
    for sql_type, values, patterns in FAMILIES:
        yield pytest.param(sql_type, values, patterns, id=sql_type)


@pytest.mark.parametrize(("sql_type", "values", "patterns"), _families())
def test_the_formatter_equals_spark(spark, sql_type, values, patterns):
    rows = ", ".join(f"({i}, {v})" for i, v in enumerate(values))
    pats = ", ".join(f"({j}, '{p}')" for j, p in enumerate(patterns))
    df = spark.sql(
        f"SELECT i, j, v, p, format_string(p, v) AS want FROM VALUES {rows} AS a(i, v) "
        f"CROSS JOIN VALUES {pats} AS b(j, p)"
    )
    t = exp.DataType.build(df.schema["v"].dataType.simpleString(), dialect="spark")
    wrong = []
    for r in df.collect():
        got = format_typed([(r.p, exp.DataType.build("string")), (r.v, t)])
        if got != r.want:
            wrong.append((r.p, values[r.i], r.want, got))
    assert not wrong, wrong[:10]


@pytest.mark.parametrize(
    ("pattern", "value"),
    [
        ("%.2f", "1.5BD"),
        ("%d", "1.5BD"),
        ("%.2f", "3"),
        ("%d", "1.5D"),
        ("%x", "1.5D"),
        ("%c", "'a'"),
        ("%c", "5L"),
        ("%s %s", "1"),
        ("%+x", "5"),
        ("%2$s", "1"),
    ],
)
def test_values_java_cannot_format_fail_as_in_spark(spark, pattern, value):
    with pytest.raises(Exception):  # noqa: B017, PT011 - Spark's Java exception, wrapped
        spark.sql(f"SELECT format_string('{pattern}', {value})").collect()
    t = exp.DataType.build(
        spark.sql(f"SELECT {value} AS v").schema["v"].dataType.simpleString(), dialect="spark"
    )
    v = spark.sql(f"SELECT {value} AS v").first().v
    with pytest.raises(FormatError):
        format_typed([(pattern, exp.DataType.build("string")), (v, t)])


@pytest.mark.parametrize(
    ("pattern", "at"),
    [
        ("a %q", 2),
        ("%-d", 0),
        ("%05s", 0),
        ("x %,x", 2),
        ("%.2d", 0),
        ("%+ d", 0),
        ("%0$s", 0),
        ("%tY", 0),
        ("%a", 0),
        ("%", 0),
        ("%-05d", 0),
        ("%#d", 0),
    ],
)
def test_patterns_java_rejects_whatever_the_values_are_found(spark, pattern, at):
    found = pattern_error(pattern)
    assert found is not None and found.offset == at, found
    if not isinstance(found, NotComputed):
        with pytest.raises(Exception):  # noqa: B017, PT011
            spark.sql(f"SELECT format_string('{pattern}', 1)").collect()


@pytest.mark.parametrize(
    ("measures", "at", "says"),
    [
        ("format_string('%s %s', LAST(B.s)) AS m", "%s', LAST", "no argument"),
        ("printf('id %q', FIRST(A.s)) AS m", "%q", "unknown"),
        ("format_string('%1$s %3$s', A.s, B.s) AS m", "%3$s", "no argument"),
        ("upper(format_string('%,x', LAST(B.n))) AS m", "%,x", "flag ','"),
    ],
)
def test_a_format_that_fails_for_every_value_is_refused_when_built(measures, at, says):
    """Of one row too (Spark computes it, and failed the job at the first row it formats
    with Java's exception): an error at the specifier before any job runs."""
    body = f"PARTITION BY k ORDER BY id MEASURES {measures} PATTERN (A B) DEFINE B AS B.n > A.n"
    with pytest.raises(SemanticError) as info:
        plan_clause(parse_clause(body), ["k", "id", "s", "n"])
    assert says in info.value.message
    assert info.value.sql[info.value.pos :].startswith(at)


def test_a_float_computed_in_double_precision_is_formatted_as_javas_float(spark):
    """The glue multiplies FLOATs in double precision; the formatter reads the value as
    the Float Spark holds (3.85, not 3.850000001490116; beyond its range an infinity)."""
    want = spark.sql(
        "SELECT format_string('%s|%h|%.3f', x, x, x) AS m FROM (SELECT CAST(1.1 AS FLOAT) "
        "* CAST(3.5 AS FLOAT) AS x UNION ALL SELECT CAST(3e38 AS FLOAT) * CAST(-2 AS FLOAT))"
    ).collect()
    a, b, c, d = (struct.unpack("f", struct.pack("f", v))[0] for v in (1.1, 3.5, 3e38, -2.0))
    floats = exp.DataType.build("float")
    got = [
        format_typed([("%s|%h|%.3f", exp.DataType.build("string"))] + [(x, floats)] * 3)
        for x in (a * b, c * d)
    ]
    assert got == [r.m for r in want]


#: a value of each type the doors meet, and each conversion Java may refuse for one
TYPED_VALUES = [
    "CAST(7 AS TINYINT)",
    "CAST(7 AS SMALLINT)",
    "7",
    "7L",
    "CAST(1.5 AS FLOAT)",
    "1.5D",
    "1.5BD",
    "'a'",
    "true",
    "DATE'2024-01-01'",
    "TIMESTAMP'2024-01-01 10:00:00'",
    "X'41'",
    "array(1)",
    "INTERVAL '2' DAY",
    "NULL",
]
CONVERSIONS = ["%s", "%b", "%h", "%c", "%d", "%o", "%x", "%e", "%.2f", "%g", "%2$s %1$d"]


@pytest.mark.parametrize("value", TYPED_VALUES)
def test_conversions_refused_for_a_type_are_those_spark_refuses(spark, value):
    """``conversion_error`` (the check made when the query is built) refuses a
    conversion for a type exactly where Spark's format_string fails on a value of it."""
    kind = spark.sql(f"SELECT {value} AS v").schema["v"].dataType.simpleString()
    t = read_any_collation(kind)
    differ = []
    for pattern in CONVERSIONS:
        try:
            spark.sql(f"SELECT format_string('{pattern}', {value}, 'x')").collect()
            spark_fails = False
        except Exception:  # noqa: BLE001 - Spark's Java exception, wrapped
            spark_fails = True
        refused = conversion_error(pattern, [t, exp.DataType.build("string")]) is not None
        if refused != spark_fails:
            differ.append((pattern, kind, "Spark fails" if spark_fails else "Spark formats"))
    assert not differ, differ


@pytest.mark.parametrize(
    ("door", "measure", "at"),
    [
        ("sql", "format_string('%.2f', sum(A.n))", "sum(A.n)"),
        ("sql", "printf('%s: %d', FIRST(A.s), avg(A.n))", "avg(A.n)"),
        ("tf", "format_string('%.2f', sum(A.n))", "sum(A.n)"),
        ("tf", "format_string('%x', LAST(B.n) / FIRST(A.n))", "LAST(B.n) / FIRST(A.n)"),
    ],
)
def test_a_conversion_refused_for_an_arguments_type_is_an_error_when_built(
    spark, door, measure, at
):
    """Spark fails the job at the first value (a Java IllegalFormatConversionException in
    a Py4J trace); the doors refuse the query first, the caret at the argument."""
    import matchrec

    spark.sql(
        "CREATE OR REPLACE TEMP VIEW mr_format_t AS SELECT * FROM VALUES "
        "('p', 1, 'a', 3), ('p', 2, 'b', 5) AS v(k, id, s, n)"
    )
    body = f"PARTITION BY k ORDER BY id MEASURES {measure} AS m PATTERN (A B) DEFINE B AS true"
    if door == "sql":
        with pytest.raises(SemanticError) as info:
            matchrec.sql(spark, f"SELECT * FROM mr_format_t MATCH_RECOGNIZE ({body})")
        err = info.value
        assert err.sql[err.pos :].startswith(at), err
        text = str(err)
    else:
        matchrec.register(spark)
        quoted = body.replace("'", "''")
        with pytest.raises(Exception) as info:  # noqa: PT011 - Spark wraps the UDTF's error
            spark.sql(f"SELECT * FROM match_recognize(TABLE(mr_format_t), '{quoted}')")
        text = str(info.value)
        assert f"cannot format {at}" in text
    assert "IllegalFormatConversionException" in text and "CAST the argument" in text
