"""Spark's implicit casts of the arguments of functions the glue computes.

``upper(A.n + B.n)``, ``substring(s, A.x + B.x, 3)`` of a DOUBLE position,
``hex(A.d + B.d)`` of a DECIMAL, ``hour(least(A.d, B.d))`` of a DATE: Spark casts each
argument to the type its function takes; DEFINE's glue and the table function's MEASURES
cast it the same way (``planner.argument_casts``). Each call is compared with Spark's own
over the same two rows, through both doors, with and without ANSI mode.
"""

from __future__ import annotations

import re

import pytest
from matchrec.runtime.session import session_settings
from matchrec.runtime.udtf import build_program
from pyspark.errors import AnalysisException, PythonException
from pyspark.sql.types import (
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    StringType,
    StructField,
    StructType,
)

import matchrec
from matchrec.errors import MatchRuntimeError

VIEW = "mr_cast_args"
ROWS = """SELECT 1 AS o, 1 AS i, 1.5BD AS dc, '5' AS s, DATE'2024-01-01' AS d, 2.5D AS x,
  true AS b, CAST(1.25 AS FLOAT) AS f, X'4142' AS bin, TIMESTAMP'2024-01-01 10:00:00' AS ts
UNION ALL SELECT 2, 3, 2.75BD, '12', DATE'2024-01-05', 2.75D, false, CAST(-0.5 AS FLOAT),
  X'43', TIMESTAMP'2024-03-10 07:30:05'"""

#: calls whose argument ``coalesce(B.c, A.c)`` (B's value) is of a type the function casts
CALLS = [
    "upper(coalesce(B.i, A.i))",
    "lower(coalesce(B.d, A.d))",
    "upper(coalesce(B.b, A.b))",
    "initcap(coalesce(B.ts, A.ts))",
    "length(coalesce(B.x, A.x))",
    "length(coalesce(B.f, A.f))",
    "char_length(coalesce(B.bin, A.bin))",
    "lpad(coalesce(B.dc, A.dc), 7, 'x')",
    "rpad('ab', coalesce(B.x, A.x), coalesce(B.i, A.i))",
    "repeat('ab', coalesce(B.s, A.s))",
    "substring('abcdef', coalesce(B.x, A.x), 3)",
    "substring(coalesce(B.i, A.i) * 1000, 2, coalesce(B.dc, A.dc))",
    "left(coalesce(B.x, A.x), coalesce(B.s, A.s))",
    "right(coalesce(B.d, A.d), coalesce(B.dc, A.dc))",
    "locate('2', coalesce(B.dc, A.dc))",
    "instr(coalesce(B.x, A.x), '7')",
    "replace(coalesce(B.x, A.x), '7', coalesce(B.i, A.i))",
    "trim(coalesce(B.dc, A.dc))",
    "startswith(coalesce(B.d, A.d), '2024')",
    "split_part(coalesce(B.d, A.d), '-', coalesce(B.x, A.x))",
    "substring_index(coalesce(B.d, A.d), '-', coalesce(B.s, A.s))",
    "levenshtein(coalesce(B.i, A.i), coalesce(B.x, A.x))",
    "translate(coalesce(B.x, A.x), '.', ',')",
    "find_in_set(coalesce(B.i, A.i), '1,2,3')",
    "elt(coalesce(B.x, A.x) - 1, 'a', coalesce(B.i, A.i))",
    "ascii(coalesce(B.i, A.i))",
    "chr(coalesce(B.x, A.x) * 30)",
    "hex(coalesce(B.dc, A.dc))",
    "hex(coalesce(B.x, A.x) * 100)",
    "sqrt(coalesce(B.s, A.s))",
    "sqrt(coalesce(B.dc, A.dc))",
    "ln(coalesce(B.dc, A.dc) - 1.75)",
    "sin(coalesce(B.s, A.s))",
    "atan2(coalesce(B.s, A.s), coalesce(B.dc, A.dc))",
    "power(coalesce(B.s, A.s), coalesce(B.i, A.i))",
    "hour(coalesce(B.d, A.d))",
    "minute(concat(coalesce(B.d, A.d), ' 10:', coalesce(B.s, A.s)))",
    "second(coalesce(B.ts, A.ts))",
    "make_date(coalesce(B.s, A.s), coalesce(B.x, A.x), coalesce(B.dc, A.dc) * 4)",
    "factorial(coalesce(B.dc, A.dc) + 2)",
    "rint(coalesce(B.s, A.s))",
    "isnan(coalesce(B.i, A.i))",
    "nanvl(coalesce(B.i, A.i), 0)",
    "nanvl(coalesce(B.x, A.x), coalesce(B.s, A.s) || 'x')",  # Spark never casts the text
    "width_bucket(coalesce(B.s, A.s), 0, coalesce(B.dc, A.dc) * 10, 4)",
    "bin(coalesce(B.x, A.x) * 4)",
    "conv(coalesce(B.i, A.i) * 5, 10, coalesce(B.s, A.s))",
    "slice(array(1, 2, 3), coalesce(B.x, A.x), coalesce(B.s, A.s))",
    # hex: a number as a BIGINT, a BOOLEAN, DATE or TIMESTAMP as its text
    "hex(coalesce(B.b, A.b))",
    "hex(coalesce(B.ts, A.ts))",
    "hex(coalesce(B.d, A.d))",
    # bytes beside text are cast to text; bytes beside bytes stay bytes
    "lpad(coalesce(B.bin, A.bin), 5, 'x')",
    "rpad(coalesce(B.bin, A.bin), 4, coalesce(B.bin, A.bin))",
    "startswith(coalesce(B.bin, A.bin), 'C')",
    "octet_length(coalesce(B.x, A.x))",
    "sha2(coalesce(B.s, A.s), coalesce(B.dc, A.dc) * 0 + 256)",
    "split(coalesce(B.x, A.x), '7')",
    "split(coalesce(B.d, A.d), '-', coalesce(B.x, A.x))",
    "reverse(coalesce(B.i, A.i) * 12)",
    "regexp_replace(coalesce(B.x, A.x), '7', 'x')",
    "regexp_extract(coalesce(B.d, A.d), '([0-9]+)-', coalesce(B.dc, A.dc) - 1.75)",
    "regexp_count(coalesce(B.i, A.i) * 11, '3')",
    "regexp_instr(coalesce(B.dc, A.dc), '7')",
    "rlike(coalesce(B.x, A.x), '^2')",
    "ceil(coalesce(B.s, A.s))",
    "floor(concat(coalesce(B.s, A.s), '.5'))",
    # LIKE, ILIKE and RLIKE written as operators read a number's, a date's or bytes' text
    "coalesce(B.i, A.i) LIKE '3%'",
    "coalesce(B.x, A.x) NOT LIKE '2._5'",
    "coalesce(B.d, A.d) ILIKE '2024-01%'",
    "coalesce(B.bin, A.bin) LIKE 'C'",
    "coalesce(B.dc, A.dc) RLIKE '^2.7'",
    "coalesce(B.s, A.s) LIKE coalesce(B.i, A.i) * 4",
    # the day functions read a string (or a TIMESTAMP's day) as a DATE
    "weekday('20' || coalesce(B.s, A.s) || '-01-05')",
    "dayofweek(concat(coalesce(B.d, A.d), ' 23:00:00'))",
    "dayofyear(concat('2024-', coalesce(B.s, A.s), '-31'))",
    "year(concat(coalesce(B.d, A.d), ''))",
    "last_day(concat(coalesce(B.d, A.d), ''))",
    "weekofyear(coalesce(B.ts, A.ts))",
    # a shift's base of another type read as an INT, its count as an INT
    "shiftleft(coalesce(B.s, A.s), 1)",
    "shiftright(coalesce(B.dc, A.dc) * 10, coalesce(B.s, A.s))",
    "coalesce(B.x, A.x) << coalesce(B.i, A.i)",
    "shiftrightunsigned(-coalesce(B.f, A.f) * 8, coalesce(B.dc, A.dc))",
    # timestampadd's count as a BIGINT, make_dt_interval's fields as INTs and seconds
    "timestampadd(HOUR, coalesce(B.dc, A.dc), coalesce(B.ts, A.ts))",
    "timestampadd(DAY, coalesce(B.s, A.s), coalesce(B.d, A.d))",
    "make_dt_interval(coalesce(B.x, A.x), coalesce(B.s, A.s), 0, coalesce(B.s, A.s))",
    # round of a string as a DOUBLE; datediff and trunc of a string (or a TIMESTAMP) as a
    # DATE; get's DOUBLE index as an INT
    "round(coalesce(B.s, A.s), 1)",
    "abs(concat('-', coalesce(B.s, A.s)))",
    "sign(coalesce(B.s, A.s))",
    "bround(concat(coalesce(B.s, A.s), '.25'), 1)",
    "datediff(concat(coalesce(B.d, A.d), ''), coalesce(B.ts, A.ts))",
    "trunc(concat(coalesce(B.d, A.d), ''), 'MM')",
    "get(array(1, 2, 3), coalesce(B.x, A.x) - 1)",
    # arithmetic of a string: BIGINT beside an integer under ANSI mode, else DOUBLE; a
    # try_ form is NULL for a string that does not convert
    "try_multiply(coalesce(B.s, A.s), 2)",
    "try_add(coalesce(B.s, A.s), coalesce(B.x, A.x))",
    "try_subtract(coalesce(B.dc, A.dc), coalesce(B.s, A.s))",
    "try_divide(coalesce(B.s, A.s), coalesce(B.i, A.i))",
    "try_mod(concat(coalesce(B.s, A.s), '.5'), 2)",
    "pmod(coalesce(B.i, A.i) * 7, coalesce(B.s, A.s))",
    # a map's text
    "map(coalesce(B.s, A.s), coalesce(B.i, A.i), 'k', NULL)",
    # add_months' count of any type as an INT; date_add's and add_months' date of several
    # rows (a string, a TIMESTAMP) as a DATE; extract's string as a TIMESTAMP, its DATE too
    "add_months(coalesce(B.d, A.d), coalesce(B.s, A.s))",
    "add_months(coalesce(B.d, A.d), coalesce(B.x, A.x))",
    "add_months(concat(coalesce(B.d, A.d), ''), coalesce(B.dc, A.dc))",
    "date_add(coalesce(B.ts, A.ts), coalesce(B.i, A.i))",
    "date_sub(concat(coalesce(B.d, A.d), ' 10:00'), coalesce(B.i, A.i))",
    "extract(YEAR FROM concat(coalesce(B.d, A.d), ''))",
    "date_part('SECOND', concat(coalesce(B.ts, A.ts), ''))",
    "extract(HOUR FROM coalesce(B.d, A.d))",
    # a DECIMAL remainder or try_ quotient has the scale Spark types it with (1.50, not 1.5)
    "pmod(7, coalesce(B.dc, A.dc))",
    "try_mod(-7, coalesce(B.dc, A.dc))",
    "try_divide(coalesce(B.dc, A.dc), 2)",
    "try_divide(7, coalesce(B.dc, A.dc))",
    "coalesce(B.dc, A.dc) % 0.7",
    # from_unixtime's string seconds as a BIGINT
    "from_unixtime(coalesce(B.s, A.s), 'yyyy HH:mm:ss')",
]


def _spark_values(spark) -> list[str | None]:
    """Each call by Spark over the first row (A) and the second (B)."""
    joined = [re.sub(r"\b([AB])\.", lambda m: m.group(1).lower() + ".", c) for c in CALLS]
    texts = [f"CAST({c} AS STRING) AS c{i}" for i, c in enumerate(joined)]
    row = spark.sql(
        f"SELECT {', '.join(texts)} FROM {VIEW} a JOIN {VIEW} b ON a.o = 1 AND b.o = 2"
    ).collect()[0]
    return list(row)


def _literal(v: str | None) -> str:
    return "NULL" if v is None else "'" + v.replace("'", "''") + "'"


@pytest.fixture(params=["true", "false"], ids=["ansi", "ansi_off"])
def answers(request, spark):
    spark.sql(ROWS).createOrReplaceTempView(VIEW)
    matchrec.register(spark)
    with session_settings(spark, {"spark.sql.ansi.enabled": request.param}):
        yield spark, _spark_values(spark)


def test_define_casts_arguments_as_spark(answers):
    """Each call of B's value and A's is Spark's (B matches only if all are)."""
    spark, want = answers
    tests = "\n    AND ".join(
        f"(CAST({c} AS STRING) <=> {_literal(w)})" for c, w in zip(CALLS, want, strict=True)
    )
    query = f"""SELECT * FROM {VIEW} MATCH_RECOGNIZE (
  ORDER BY o MEASURES count(*) AS n ONE ROW PER MATCH
  PATTERN (A B) DEFINE B AS {tests})"""
    assert [r.n for r in matchrec.sql(spark, query).collect()] == [2]


def test_the_table_functions_measures_cast_arguments_as_spark(answers):
    spark, want = answers
    navigated = [
        re.sub(r"\bA\.(\w+)", r"FIRST(A.\1)", re.sub(r"\bB\.(\w+)", r"LAST(B.\1)", c))
        for c in CALLS
    ]
    measures = ", ".join(f"CAST({c} AS STRING) AS c{i}" for i, c in enumerate(navigated))
    body = (
        f"ORDER BY o MEASURES {measures} ONE ROW PER MATCH PATTERN (A B) DEFINE B AS true"
    ).replace("'", "''")
    row = spark.sql(f"SELECT * FROM match_recognize(TABLE({VIEW}), '{body}')").collect()[0]
    got = [row[f"c{i}"] for i in range(len(CALLS))]
    assert dict(zip(CALLS, got)) == dict(zip(CALLS, want))


def test_a_string_in_a_bitwise_operator_is_read_as_a_bigint_under_ansi_mode(spark):
    """``'12' & 3``: Spark casts the string to BIGINT under ANSI mode (and refuses the
    call without it); DEFINE's glue reads it so too."""
    spark.sql(ROWS).createOrReplaceTempView(VIEW)
    tests = {
        "coalesce(B.s, A.s) & 7": 4,
        "coalesce(B.s, A.s) | 1": 13,
        "3 ^ coalesce(B.s, A.s)": 15,
    }
    with session_settings(spark, {"spark.sql.ansi.enabled": "true"}):
        for call, want in tests.items():
            plain = re.sub(r"\b([AB])\.", lambda m: m.group(1).lower() + ".", call)
            spark_says = (
                spark.sql(f"SELECT {plain} AS v FROM {VIEW} a JOIN {VIEW} b ON a.o = 1 AND b.o = 2")
                .collect()[0]
                .v
            )
            assert spark_says == want
            query = f"""SELECT * FROM {VIEW} MATCH_RECOGNIZE (
  ORDER BY o MEASURES count(*) AS n ONE ROW PER MATCH PATTERN (A B) DEFINE B AS {call} = {want})"""
            assert [r.n for r in matchrec.sql(spark, query).collect()] == [2], call


def test_an_argument_spark_cannot_cast_is_its_error_at_the_call(spark):
    """Under ANSI mode a value the implicit cast cannot read is Spark's CAST_INVALID_INPUT,
    the caret at the call that casts it (not at its first argument)."""
    spark.sql(ROWS).createOrReplaceTempView(VIEW)
    query = f"""SELECT * FROM {VIEW} MATCH_RECOGNIZE (
  ORDER BY o MEASURES count(*) AS n ONE ROW PER MATCH PATTERN (A B)
  DEFINE B AS substring(coalesce(B.d, A.d), coalesce(B.s, A.s) || 'x', 2) = 'x')"""
    with session_settings(spark, {"spark.sql.ansi.enabled": "true"}):
        with pytest.raises(MatchRuntimeError, match="CAST_INVALID_INPUT") as info:
            matchrec.sql(spark, query).collect()
    assert "(line 3, column 15)" in str(info.value)


def test_a_run_time_error_of_the_table_function_points_at_its_call(spark):
    """The table function's measure: the error is at the call inside the measure (it was
    at the measure's start, naming its outermost call)."""
    spark.sql(ROWS).createOrReplaceTempView(VIEW)
    matchrec.register(spark)
    body = (
        "ORDER BY o MEASURES concat('<', repeat(LAST(B.s), FIRST(A.s) || 'x')) AS m "
        "ONE ROW PER MATCH PATTERN (A B) DEFINE B AS true"
    )
    with session_settings(spark, {"spark.sql.ansi.enabled": "true"}):
        with pytest.raises(PythonException) as info:
            quoted = body.replace("'", "''")
            spark.sql(f"SELECT * FROM match_recognize(TABLE({VIEW}), '{quoted}')").collect()
    err = info.value
    assert isinstance(err, MatchRuntimeError), err
    assert "CAST_INVALID_INPUT" in err.message
    assert err.sql[err.pos :].startswith("repeat(")


def _refused_measure(spark, measure: str):
    spark.sql(ROWS).createOrReplaceTempView(VIEW)
    matchrec.register(spark)
    body = (
        f"ORDER BY o MEASURES {measure} AS m ONE ROW PER MATCH PATTERN (A B) DEFINE B AS true"
    ).replace("'", "''")
    return spark.sql(f"SELECT * FROM match_recognize(TABLE({VIEW}), '{body}')")


def test_an_argument_spark_refuses_is_refused_by_the_table_function(spark):
    """substring(s, <BOOLEAN>, 3): Spark refuses it when it analyses it rather than read
    the BOOLEAN as 1; the table function, which types measures itself, refuses the value."""
    with pytest.raises(PythonException) as info:
        _refused_measure(spark, "substring('abcdef', coalesce(LAST(B.b), FIRST(A.b)), 3)").collect()
    assert isinstance(info.value, MatchRuntimeError), info.value
    assert "no BOOLEAN where" in info.value.message


def test_a_double_day_count_is_refused_when_the_query_is_built(spark):
    """date_add(d, <DOUBLE>): Spark refuses it when it analyses it (add_months casts it),
    and so does the table function, before any job: not truncated."""
    with pytest.raises(AnalysisException, match="takes an INT, SMALLINT or TINYINT"):
        _refused_measure(spark, "date_add(LAST(B.d), coalesce(LAST(B.x), FIRST(A.x)))")


def test_nanvl_of_a_decimal_is_a_double_in_the_table_function():
    fields = [("k", StringType()), ("o", IntegerType()), ("dc", DecimalType(10, 2))]
    fields += [("f", FloatType())]
    schema = StructType([StructField(n, t) for n, t in fields])
    types = {}
    for measure in ("nanvl(LAST(B.dc), FIRST(A.dc))", "nanvl(LAST(B.f), FIRST(A.f))"):
        body = f"PARTITION BY k ORDER BY o MEASURES {measure} AS m PATTERN (A B) DEFINE B AS true"
        types[measure] = build_program(body, schema).schema["m"].dataType
    assert list(types.values()) == [DoubleType(), FloatType()]
