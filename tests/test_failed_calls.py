"""Spark's run-time errors without a query context reach the user at the call that raised them.

``unbase64`` of bad text, ``rlike``/``split`` with a bad pattern from a column and
``format_string`` with a bad format from a column fail Spark's job with a Java exception
that PySpark cannot convert: ``collect()`` of ``matchrec.sql``'s DataFrame raised py4j's
``Py4JJavaError``, a page of JVM frames. ``regexp_replace``'s INVALID_PARAMETER_VALUE
has no query context either: Spark's error, with no caret. Each is now a
``MatchRuntimeError`` at the call in the user's query, still an exception class of
PySpark's.
"""

from __future__ import annotations

import pytest
from pyspark.errors import IllegalArgumentException, PySparkException, SparkRuntimeException

import matchrec
from matchrec.errors import MatchRuntimeError

#: rows whose second one has text that is not base64, a pattern and a format Java refuses;
#: a TINYINT and a SMALLINT that their sums and products overflow
ROWS = (
    "SELECT * FROM VALUES (1, 'QUJD', 'b+', '%d', CAST(100 AS TINYINT), "
    "CAST(30000 AS SMALLINT)), (2, 'x$%', '[a', '%q', CAST(100 AS TINYINT), "
    "CAST(2 AS SMALLINT)) AS mr_fc(id, b64, pat, fmt, ti, si)"
)

#: (clause body, the call the caret is under, PySpark's class, words of the message)
CASES = {
    "unbase64 in MEASURES": (
        "ORDER BY id MEASURES hex(unbase64(LAST(A.b64))) AS u PATTERN (A+) DEFINE A AS true",
        "unbase64(",
        IllegalArgumentException,
        "unbase64(): java.lang.IllegalArgumentException",
    ),
    "rlike in DEFINE": (
        "ORDER BY id MEASURES count(*) AS n PATTERN (A+) DEFINE A AS b64 RLIKE pat",
        "RLIKE pat",
        IllegalArgumentException,
        "RLIKE: java.util.regex.PatternSyntaxException",
    ),
    "split in MEASURES": (
        "ORDER BY id MEASURES size(split(FIRST(A.b64), LAST(A.pat))) AS u PATTERN (A+) "
        "DEFINE A AS true",
        "split(",
        IllegalArgumentException,
        "split(): java.util.regex.PatternSyntaxException",
    ),
    "format_string in MEASURES": (
        "ORDER BY id MEASURES format_string(LAST(A.fmt), 1) AS u PATTERN (A+) DEFINE A AS true",
        "format_string(",
        IllegalArgumentException,
        "format_string(): java.util.UnknownFormatConversionException",
    ),
    "regexp_replace in MEASURES": (
        "ORDER BY id MEASURES regexp_replace(FIRST(A.b64), LAST(A.pat), 'x') AS u "
        "PATTERN (A+) DEFINE A AS true",
        "regexp_replace(",
        PySparkException,
        "regexp_replace(): [INVALID_PARAMETER_VALUE.PATTERN]",
    ),
    "raise_error in DEFINE": (
        "ORDER BY id MEASURES count(*) AS n PATTERN (A+) "
        "DEFINE A AS raise_error(concat('bad ', b64)) IS NULL",
        "raise_error(",
        PySparkException,
        "raise_error(): [USER_RAISED_EXCEPTION] bad QUJD",
    ),
    "bit_get in MEASURES": (
        "ORDER BY id MEASURES bit_get(LAST(A.id) + 1, 40) AS u PATTERN (A+) DEFINE A AS true",
        "bit_get(",
        PySparkException,
        # (Spark names it getbit: the quote is the call written, to its parenthesis)
        "in bit_get(LAST(A.id) + 1, 40): [INVALID_PARAMETER_VALUE.BIT_POSITION_RANGE]",
    ),
    "to_date in MEASURES": (
        "ORDER BY id MEASURES to_date(LAST(A.pat), 'yyyy') AS u PATTERN (A+) DEFINE A AS true",
        "to_date(",
        PySparkException,
        "to_date(): [CANNOT_PARSE_TIMESTAMP]",
    ),
    "make_date in DEFINE": (
        "ORDER BY id MEASURES count(*) AS n PATTERN (A+) "
        "DEFINE A AS make_date(2026, id * 7, 1) > DATE'2000-01-01'",
        "make_date(",
        PySparkException,
        "make_date(): [DATETIME_FIELD_OUT_OF_BOUNDS.WITHOUT_SUGGESTION] Invalid value for "
        "MonthOfYear",
    ),
    "sequence in MEASURES": (
        "ORDER BY id MEASURES size(sequence(1, count(*), 0)) AS u PATTERN (A+) DEFINE A AS true",
        "sequence(",
        PySparkException,
        "sequence(): Illegal sequence boundaries: 1 to 2 by 0",
    ),
    "CAST in DEFINE": (
        "ORDER BY id MEASURES count(*) AS n PATTERN (A+) "
        "DEFINE A AS CAST(id * 1e300 * 1e300 AS INT) > 0",
        "CAST(id",
        PySparkException,
        "CAST(): [CAST_OVERFLOW] The value Infinity",
    ),
    "map_from_arrays in MEASURES": (
        "ORDER BY id MEASURES map_from_arrays(collect_list(id), "
        "collect_list(CASE WHEN id = 1 THEN b64 END)) AS u PATTERN (A+) DEFINE A AS true",
        "map_from_arrays(",
        PySparkException,
        "map_from_arrays(): The key array and value array of MapData must have the same length",
    ),
    # a TINYINT's or SMALLINT's overflow has no context (BIGINT's and INT's have one)
    "TINYINT + in MEASURES": (
        "ORDER BY id MEASURES LAST(A.ti) + FIRST(A.ti) AS u PATTERN (A+) DEFINE A AS true",
        "+ FIRST(A.ti)",
        PySparkException,
        "operator +: [BINARY_ARITHMETIC_OVERFLOW] 100",
    ),
    "SMALLINT * in DEFINE": (
        "ORDER BY id MEASURES count(*) AS n PATTERN (A+) DEFINE A AS si * si > 0",
        "* si",
        PySparkException,
        "operator *: [BINARY_ARITHMETIC_OVERFLOW] 30000",
    ),
    "assert_true in MEASURES": (
        "ORDER BY id MEASURES assert_true(LAST(A.id) < 2) AS u PATTERN (A+) DEFINE A AS true",
        "assert_true(",
        PySparkException,
        "assert_true(): [USER_RAISED_EXCEPTION]",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_job_failure_without_context_is_shown_at_the_call(spark, case):
    spark.sql(ROWS).createOrReplaceTempView("mr_fc")
    body, caret, spark_class, words = CASES[case]
    query = f"SELECT *\nFROM mr_fc MATCH_RECOGNIZE (\n  {body})"
    with pytest.raises(MatchRuntimeError) as info:
        matchrec.sql(spark, query).collect()
    err = info.value
    assert isinstance(err, spark_class)
    assert words in err.message and "\tat " not in str(err)
    assert err.sql == query and err.sql[err.pos :].startswith(caret)
    assert str(err).splitlines()[0].startswith("runtime error: Spark's job failed in ")


def test_an_invalid_datetime_pattern_is_shown_at_the_call_that_reads_it(spark):
    """Spark builds a datetime formatter as the job runs, and its refusal of a pattern
    (INCONSISTENT_BEHAVIOR_CROSS_VERSION, INVALID_DATETIME_PATTERN) has no query context:
    the table function's MEASURE, which Spark computes, came out as Spark's bare error.
    It is at the call that reads the pattern, not at another call of the function; a
    query of the user's own with another pattern keeps Spark's error."""
    matchrec.register(spark)
    spark.sql(
        "SELECT * FROM VALUES (1, TIMESTAMP'2026-01-01 10:00:00'),"
        " (2, TIMESTAMP'2026-01-02 10:00:00') AS t(id, ts)"
    ).createOrReplaceTempView("mr_fc_dates")
    body = (
        "ORDER BY id MEASURES date_format(FIRST(A.ts), 'yyyy') AS y,\n"
        "  date_format(LAST(A.ts), 'yyyy GGGGG') AS era PATTERN (A+) DEFINE A AS true"
    )
    quoted = body.replace("'", "''")
    with pytest.raises(MatchRuntimeError) as info:
        spark.sql(f"SELECT * FROM match_recognize(TABLE(mr_fc_dates), '{quoted}')").collect()
    err = info.value
    assert isinstance(err, PySparkException)
    assert "DATETIME_PATTERN_RECOGNITION" in err.message and "'yyyy GGGGG'" in err.message
    assert err.sql == body and body[err.pos :].startswith("date_format(LAST")
    assert "datetime pattern guide" in (err.hint or "")
    with pytest.raises(PySparkException) as plain:
        spark.sql("SELECT date_format(ts, 'yyyy GGGGGG') FROM mr_fc_dates").collect()
    assert not isinstance(plain.value, MatchRuntimeError)


#: a user's own query failing in a function a matchrec query failed in: (the matchrec
#: case, the query, the action that runs it)
OWN_QUERIES = (
    ("make_date in DEFINE", "SELECT make_date(2026, id * 7, 1) FROM mr_fc", "collect"),
    ("raise_error in DEFINE", "SELECT raise_error(concat('own ', b64)) FROM mr_fc", "toPandas"),
    ("rlike in DEFINE", "SELECT b64 RLIKE pat FROM mr_fc DISTRIBUTE BY id", "show"),
    ("to_date in MEASURES", "SELECT to_date(pat, 'yyyy') FROM mr_fc", "write"),
    ("TINYINT + in MEASURES", "SELECT ti + ti FROM mr_fc", "collect"),
)


def test_a_users_own_query_failing_in_the_same_function_keeps_sparks_error(spark, tmp_path):
    """Spark's error without a context names a function, not a query: after a matchrec
    query failed in a function (and was told at its call), the user's own ``spark.sql``
    failing in the same function must stay Spark's error, whatever action runs it, not
    be told at the matchrec query's call."""
    spark.sql(ROWS).createOrReplaceTempView("mr_fc")
    told = {}
    for case, text, action in OWN_QUERIES:
        with pytest.raises(MatchRuntimeError):
            matchrec.sql(spark, f"SELECT * FROM mr_fc MATCH_RECOGNIZE ({CASES[case][0]})").collect()
        df = spark.sql(text)
        run = {
            "collect": df.collect,
            "toPandas": df.toPandas,
            "show": df.show,
            "write": df.write.mode("overwrite").parquet,
        }[action]
        with pytest.raises(Exception) as info:
            run(*([str(tmp_path / "out")] if action == "write" else []))
        told[case] = type(info.value).__name__
    assert all(name != "MatchRuntimeError" for name in told.values()), told


@pytest.mark.parametrize("place", ["DEFINE", "MEASURES"])
def test_map_from_arrays_of_unequal_arrays_is_spark_s_error_in_the_table_function(spark, place):
    """Spark's _LEGACY_ERROR_TEMP_2128, a SparkRuntimeException, at the call (it was
    matchrec's own words, with no condition)."""
    spark.sql(ROWS).createOrReplaceTempView("mr_fc")
    matchrec.register(spark)
    call = "map_from_arrays(collect_list(A.id), collect_list(CASE WHEN A.id = 1 THEN A.b64 END))"
    body = (
        f"ORDER BY id MEASURES {call} AS u PATTERN (A+) DEFINE A AS true"
        if place == "MEASURES"
        else f"ORDER BY id MEASURES count(*) AS n PATTERN (A+) DEFINE A AS size({call}) > 0"
    )
    with pytest.raises(MatchRuntimeError) as info:
        spark.sql(f"SELECT * FROM match_recognize(TABLE(mr_fc), '{body}')").collect()
    err = info.value
    assert err.spark_condition == "_LEGACY_ERROR_TEMP_2128"
    assert isinstance(err, SparkRuntimeException)
    assert "must have the same length" in err.message
    assert body[err.pos :].startswith("map_from_arrays(")
