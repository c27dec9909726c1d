"""MEASURES of the SQL table function, typed and computed in Python, against Spark.

The table function ``match_recognize(TABLE(t), '...')`` types and evaluates each measure
itself (``planner.measure_eval``); ``matchrec.sql`` hands the same measure to Spark. Each
case runs one measure through both doors and asserts the same Spark type and the same
values, and where it reads simply so, against Spark's own GROUP BY over the matched
rows: the pattern ``A B+`` with ``B AS true`` matches each partition whole, so FIRST(A.x)
is ``min_by(x, o)``, LAST(B.x) ``max_by(x, o)`` and an aggregate is the group's.

All cases of one ANSI setting run as one query per door (a UNION ALL of the cases, each
row its case's name, ``typeof`` and value as a string), so the file costs a few jobs.
What the table function cannot compute is refused with our error and a caret when the
query is analysed, before any job.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from matchrec.runtime.session import session_settings
from matchrec.runtime.udtf import build_program
from pyspark.errors import AnalysisException
from pyspark.sql import SparkSession
from pyspark.sql.types import (
    ArrayType,
    ByteType,
    DateType,
    DayTimeIntervalType,
    DecimalType,
    DoubleType,
    IntegerType,
    LongType,
    ShortType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

import matchrec
from matchrec.errors import MatchRecognizeError, SemanticError, UnsupportedError

VIEW = "mr_tfm_t"
ROWS = """
('a', 1, 10, 100, 1, 1.25BD, 10.5BD, 1.5D, 'x', date'2024-01-01', timestamp'2024-01-01 10:00:00',
 array(3, 1), INTERVAL '1 02:03:04' DAY TO SECOND),
('a', 2, 20, 200, 2, 2.50BD, 0.25BD, 2.5D, 'y', date'2024-02-29', timestamp'2024-01-02 11:00:00',
 array(2), INTERVAL '0 05:00:00.5' DAY TO SECOND),
('a', 3, 30, 300, 3, NULL, 3.125BD, 4.0D, 'z', date'2024-03-31', timestamp'2024-01-03 12:00:00',
 NULL, INTERVAL '2 00:00:01' DAY TO SECOND),
('b', 1, 12, 3000, 7, 9.99BD, 1.5BD, -1.0D, 'q', date'2023-12-31', timestamp'2023-12-31 23:59:59',
 array(5, 6, 7), INTERVAL '0 00:00:30' DAY TO SECOND),
('b', 2, 7, 1000, 5, 0.01BD, 2.0BD, 0.5D, 'r', date'2024-01-15', timestamp'2024-01-15 00:00:00',
 array(), INTERVAL '3 00:00:00' DAY TO SECOND)
"""
SELECT = (
    "k, o, CAST(ti AS TINYINT) AS ti, CAST(si AS SMALLINT) AS si, i, CAST(d AS DECIMAL(4, 2)) "
    "AS d, CAST(e AS DECIMAL(6, 3)) AS e, dbl, s, dt, ts, arr, dti"
)
COLUMNS = "k, o, ti, si, i, d, e, dbl, s, dt, ts, arr, dti"
BODY = (
    "PARTITION BY k ORDER BY o MEASURES {measure} AS m ONE ROW PER MATCH "
    "PATTERN (A B+) DEFINE B AS true"
)
ALL_ROWS = (
    "PARTITION BY k ORDER BY o MEASURES {measure} AS m ALL ROWS PER MATCH "
    "PATTERN (A B+) DEFINE B AS true"
)

# name -> (measure, the same over the group of a partition's rows or None, body)
ANSI_CASES: dict[str, tuple[str, str | None, str]] = {
    # a BIGINT step makes the elements BIGINT (they were typed INT)
    "sequence_bigint_step": ("sequence(FIRST(B.i), 9, CAST(LAST(B.i) AS BIGINT))", None, BODY),
    "sequence_tinyint_bounds": (
        "sequence(CAST(FIRST(B.i) AS TINYINT), CAST(9 AS TINYINT), CAST(1 AS SMALLINT))",
        None,
        BODY,
    ),
    # a constant scale that is no INT literal: Spark's CAST of it to INT (it was "cannot
    # infer the Spark type")
    "round_scale_bigint": ("round(max(B.i) * 33, -1L)", None, BODY),
    "round_scale_decimal": ("round(FIRST(B.e) * 3, 1.7)", None, BODY),
    "bround_scale_cast": ("bround(LAST(B.d), CAST(1 AS BIGINT))", None, BODY),
    "round_double_scale_double": ("round(LAST(B.dbl) / 7, 2e0)", None, BODY),
    # a struct accumulator read by name in the lambdas (it was a bare tuple: "is not a struct")
    "aggregate_struct_accumulator": (
        "aggregate(collect_list(B.i), named_struct('s', 0, 'c', 0), "
        "(acc, x) -> named_struct('s', acc.s + x, 'c', acc.c + 1), acc -> acc.s / acc.c)",
        None,
        BODY,
    ),
    # integer widths and decimal precision/scale
    "sum_tinyint": ("sum(ti)", "sum(ti)", BODY),
    "smallint_plus_one": ("A.si + 1", "min_by(si, o) + 1", BODY),
    "tinyint_plus_tinyint": ("LAST(B.ti) + FIRST(A.ti)", "max_by(ti, o) + min_by(ti, o)", BODY),
    "smallint_minus_tinyint": ("LAST(B.si) - FIRST(A.ti)", "max_by(si, o) - min_by(ti, o)", BODY),
    "tinyint_times_int": ("LAST(B.ti) * FIRST(A.i)", "max_by(ti, o) * min_by(i, o)", BODY),
    "decimal_times": ("LAST(B.e) * FIRST(A.d)", "max_by(e, o) * min_by(d, o)", BODY),
    "decimal_divided": ("LAST(B.e) / FIRST(A.d)", "max_by(e, o) / min_by(d, o)", BODY),
    "decimal_plus": ("LAST(B.e) + FIRST(A.d)", "max_by(e, o) + min_by(d, o)", BODY),
    "decimal_mod": ("LAST(B.e) % FIRST(A.d)", "max_by(e, o) % min_by(d, o)", BODY),
    "decimal_times_int": ("FIRST(A.d) * LAST(B.i)", "min_by(d, o) * max_by(i, o)", BODY),
    "avg_decimal": ("avg(d)", "avg(d)", BODY),
    "sum_decimal": ("sum(e)", "sum(e)", BODY),
    "avg_of_decimal_sum": ("sum(e) / count(*)", "sum(e) / count(*)", BODY),
    "int_div": ("LAST(B.si) div FIRST(A.i)", "max_by(si, o) div min_by(i, o)", BODY),
    # -2147483648 is an INT (Spark reads the sign with the digits): was typed BIGINT
    "negative_int_literal": (
        "try_multiply(-2147483648, LAST(B.i))",
        "try_multiply(-2147483648, max_by(i, o))",
        BODY,
    ),
    # maps and arrays of values of several rows
    "map": ("map(FIRST(A.s), LAST(B.i))", "map(min_by(s, o), max_by(i, o))", BODY),
    "map_keys": (
        "map_keys(map(FIRST(A.s), LAST(B.i), 'w', 0))",
        "map_keys(map(min_by(s, o), max_by(i, o), 'w', 0))",
        BODY,
    ),
    "map_values": (
        "map_values(map(FIRST(A.s), LAST(B.si)))",
        "map_values(map(min_by(s, o), max_by(si, o)))",
        BODY,
    ),
    # maps keyed by structs and arrays (Spark allows any key but a MAP; the glue's dicts
    # could not hold them: "unhashable type"), and complex types widened part by part
    "map_struct_key": (
        "map(named_struct('a', FIRST(A.i)), LAST(B.i))[named_struct('a', 1)]",
        "map(named_struct('a', min_by(i, o)), max_by(i, o))[named_struct('a', 1)]",
        BODY,
    ),
    "map_from_arrays_array_key": (
        "map_from_arrays(array(array(FIRST(A.s)), array(LAST(B.s))), array(1, 2))",
        "map_from_arrays(array(array(min_by(s, o)), array(max_by(s, o))), array(1, 2))",
        BODY,
    ),
    "map_concat_struct_keys_widened": (
        "map_concat(map(named_struct('a', FIRST(A.i)), 1), map(named_struct('A', 70L), 2))",
        "map_concat(map(named_struct('a', min_by(i, o)), 1), map(named_struct('A', 70L), 2))",
        BODY,
    ),
    "map_from_entries_struct_key": (
        "map_from_entries(array(struct(named_struct('k', LAST(B.s)), FIRST(A.i))))",
        "map_from_entries(array(struct(named_struct('k', max_by(s, o)), min_by(i, o))))",
        BODY,
    ),
    "transform_keys_to_arrays": (
        "map_keys(transform_keys(map(FIRST(A.s), LAST(B.i)), (key, v) -> array(key, 'z')))",
        "map_keys(transform_keys(map(min_by(s, o), max_by(i, o)), (key, v) -> array(key, 'z')))",
        BODY,
    ),
    "coalesce_structs_widened": (
        "coalesce(named_struct('a', FIRST(A.si), 'b', 1), named_struct('A', LAST(B.e), 'b', 'x'))",
        "coalesce(named_struct('a', min_by(si, o), 'b', 1), "
        "named_struct('A', max_by(e, o), 'b', 'x'))",
        BODY,
    ),
    "case_arrays_widened": (
        "CASE WHEN count(*) > 2 THEN array(LAST(B.i)) ELSE array(FIRST(A.dbl)) END",
        "CASE WHEN count(*) > 2 THEN array(max_by(i, o)) ELSE array(min_by(dbl, o)) END",
        BODY,
    ),
    # to_char/to_varchar of a DATE, a TIMESTAMP or a BINARY of several rows: Spark's
    # date_format and binary formats (was "not computed here (only numbers)")
    "to_char_date": (
        "to_char(max(B.dt), 'yyyy-MM-dd EEE')",
        "to_char(max(dt) FILTER (WHERE o > 1), 'yyyy-MM-dd EEE')",
        BODY,
    ),
    "to_varchar_timestamp": (
        "to_varchar(min(B.ts), 'dd/MM/yy HH:mm:ss')",
        "to_varchar(min(ts) FILTER (WHERE o > 1), 'dd/MM/yy HH:mm:ss')",
        BODY,
    ),
    "to_char_binary_formats": (
        "concat_ws('|', to_char(CAST(FIRST(A.s) || LAST(B.s) AS BINARY), 'hex'), "
        "to_char(CAST(FIRST(A.s) || LAST(B.s) AS BINARY), 'Base64'), "
        "to_char(CAST(max(B.s) AS BINARY), 'UTF-8'))",
        "concat_ws('|', to_char(CAST(min_by(s, o) || max_by(s, o) AS BINARY), 'hex'), "
        "to_char(CAST(min_by(s, o) || max_by(s, o) AS BINARY), 'Base64'), "
        "to_char(CAST(max(s) FILTER (WHERE o > 1) AS BINARY), 'UTF-8'))",
        BODY,
    ),
    # to_binary/try_to_binary of values of several rows (was "cannot evaluate") and a
    # binary literal beside them
    "to_binary_formats": (
        "concat_ws('|', hex(to_binary(FIRST(A.s) || LAST(B.s), 'utf-8')), "
        "hex(to_binary(count(*) || 'aB')), hex(to_binary('YW' || LAST(B.s), 'BASE64')), "
        "hex(X'A' || to_binary(max(B.s), 'utf8')))",
        "concat_ws('|', hex(to_binary(min_by(s, o) || max_by(s, o), 'utf-8')), "
        "hex(to_binary(count(*) || 'aB')), hex(to_binary('YW' || max_by(s, o), 'BASE64')), "
        "hex(X'A' || to_binary(max(s) FILTER (WHERE o > 1), 'utf8')))",
        BODY,
    ),
    "try_to_binary_of_malformed_text": (
        "concat_ws('|', hex(try_to_binary(FIRST(A.s) || LAST(B.s))), "
        "hex(try_to_binary(LAST(B.s) || '==', 'base64')), "
        "hex(try_to_binary(FIRST(A.s), 'latin1')), hex(try_to_binary(count(*) || '0')))",
        "concat_ws('|', hex(try_to_binary(min_by(s, o) || max_by(s, o))), "
        "hex(try_to_binary(max_by(s, o) || '==', 'base64')), "
        "hex(try_to_binary(min_by(s, o), 'latin1')), hex(try_to_binary(count(*) || '0')))",
        BODY,
    ),
    # array_append/array_prepend widen the elements to the value's type, as Spark's
    # tightest common type (was the array's type: array_append(ints, 2.5D) kept 2)
    "array_append_widened": (
        "array_sort(array_append(collect_list(B.i), 2.5D))",
        "array_sort(array_append(collect_list(i) FILTER (WHERE o > 1), 2.5D))",
        BODY,
    ),
    "array_prepend_date_to_timestamp": (
        "array_sort(array_prepend(collect_list(B.dt), LAST(B.ts)))",
        "array_sort(array_prepend(collect_list(dt) FILTER (WHERE o > 1), max_by(ts, o)))",
        BODY,
    ),
    # higher-order functions of maps built of several rows, a nested field in a lambda
    "map_filter": (
        "map_filter(map(FIRST(A.s), FIRST(A.i), LAST(B.s), LAST(B.i)), (key, v) -> v > 10)",
        "map_filter(map(min_by(s, o), min_by(i, o), max_by(s, o), max_by(i, o)), "
        "(key, v) -> v > 10)",
        BODY,
    ),
    "transform_values": (
        "transform_values(map(FIRST(A.s), FIRST(A.i)), (key, v) -> v * LAST(B.si))",
        "transform_values(map(min_by(s, o), min_by(i, o)), (key, v) -> v * max_by(si, o))",
        BODY,
    ),
    "transform_keys": (
        "transform_keys(map(FIRST(A.s), FIRST(A.dbl)), (key, v) -> key || LAST(B.s))",
        "transform_keys(map(min_by(s, o), min_by(dbl, o)), (key, v) -> key || max_by(s, o))",
        BODY,
    ),
    "map_zip_with": (
        "map_zip_with(map(FIRST(A.s), FIRST(A.i)), map(LAST(B.s), LAST(B.d), FIRST(A.s), 1BD), "
        "(key, x, y) -> coalesce(x, 0) + coalesce(y, 0))",
        "map_zip_with(map(min_by(s, o), min_by(i, o)), map(max_by(s, o), max_by(d, o), "
        "min_by(s, o), 1BD), (key, x, y) -> coalesce(x, 0) + coalesce(y, 0))",
        BODY,
    ),
    "nested_field_in_a_lambda": (
        "array_sort(transform(array_agg(named_struct('g', named_struct('v', i))), e -> e.g.v))",
        "array_sort(transform(array_agg(named_struct('g', named_struct('v', i))), e -> e.g.v))",
        BODY,
    ),
    # a BINARY of several rows: substr keeps it, right() is Spark's STRING of its UTF-8
    "substr_of_binary": (
        "substr(to_binary(FIRST(A.s), 'utf-8') || to_binary(LAST(B.s), 'utf-8'), LAST(B.o) - 1)",
        "substr(to_binary(min_by(s, o) || max_by(s, o), 'utf-8'), max(o) - 1)",
        BODY,
    ),
    "right_of_binary": (
        "right(to_binary(FIRST(A.s), 'utf-8') || to_binary(LAST(B.s), 'utf-8'), LAST(B.o) - 1)",
        "right(to_binary(min_by(s, o) || max_by(s, o), 'utf-8'), max(o) - 1)",
        BODY,
    ),
    # an array of NULL-free elements given a NULL (declared NOT NULL: the job failed)
    "array_append_null": (
        "array_append(FIRST(A.arr), CAST(NULL AS INT))",
        "array_append(min_by(arr, o), CAST(NULL AS INT))",
        BODY,
    ),
    # a struct read from a row (a dict) against one built in place (a tuple): never equal
    "struct_in": (
        "FIRST(named_struct('k', A.s)) IN (named_struct('k', LAST(B.s)), named_struct('k', 'x'))",
        "named_struct('k', min_by(s, o)) IN (named_struct('k', max_by(s, o)), "
        "named_struct('k', 'x'))",
        BODY,
    ),
    "sequence": ("sequence(FIRST(A.o), LAST(B.o))", "sequence(min(o), max(o))", BODY),
    "sequence_down": (
        "sequence(LAST(B.i), FIRST(A.i))",
        "sequence(max_by(i, o), min_by(i, o))",
        BODY,
    ),
    "array_sort": (
        "array_sort(array(LAST(B.i), FIRST(A.i), 4))",
        "array_sort(array(max_by(i, o), min_by(i, o), 4))",
        BODY,
    ),
    "size_of_null": ("size(LAST(B.arr))", "size(max_by(arr, o))", BODY),
    "cardinality_of_null": ("cardinality(LAST(B.arr))", "cardinality(max_by(arr, o))", BODY),
    "array_size_of_null": ("array_size(LAST(B.arr))", "array_size(max_by(arr, o))", BODY),
    # intervals and dates
    "interval_times_int": ("LAST(B.dti) * 2", "max_by(dti, o) * 2", BODY),
    "interval_divided": ("LAST(B.dti) / 3", "max_by(dti, o) / 3", BODY),
    "decimal_times_interval": ("1.5 * FIRST(A.dti)", "1.5 * min_by(dti, o)", BODY),
    "interval_times_column": ("FIRST(A.dti) * LAST(B.o)", "min_by(dti, o) * max(o)", BODY),
    "interval_divided_by_double": (
        "LAST(B.dti) / FIRST(A.dbl)",
        "max_by(dti, o) / min_by(dbl, o)",
        BODY,
    ),
    "date_plus_day_time": ("LAST(B.dt) + FIRST(A.dti)", "max_by(dt, o) + min_by(dti, o)", BODY),
    # a CALENDAR INTERVAL (make_interval of another row's values): months, days, micros
    "timestamp_plus_calendar_interval": (
        "FIRST(A.ts) + make_interval(0, LAST(B.o), 0, LAST(B.i), 1, 2, 3.5)",
        "min_by(ts, o) + make_interval(0, max(o), 0, max_by(i, o), 1, 2, 3.5)",
        BODY,
    ),
    "date_minus_calendar_interval": (
        "LAST(B.dt) - make_interval(0, FIRST(A.o), 0, LAST(B.o))",
        "max_by(dt, o) - make_interval(0, min(o), 0, max(o))",
        BODY,
    ),
    "calendar_interval_of_two_rows": (
        "FIRST(A.ts) + make_interval(0, 0, 0, LAST(B.o) - FIRST(A.o), 0, FIRST(A.i))",
        "min_by(ts, o) + make_interval(0, 0, 0, max(o) - min(o), 0, min_by(i, o))",
        BODY,
    ),
    "calendar_interval_as_text": (
        "CAST(make_interval(FIRST(A.o), -LAST(B.o) * 7, 0, LAST(B.i), FIRST(A.o), 1, -1.5) "
        "AS STRING)",
        "CAST(make_interval(min(o), -max(o) * 7, 0, max_by(i, o), min(o), 1, -1.5) AS STRING)",
        BODY,
    ),
    # a day-time interval cast to a number: a count of its end field (seconds)
    "interval_to_int": ("CAST(LAST(B.dti) AS INT)", "CAST(max_by(dti, o) AS INT)", BODY),
    "interval_to_decimal": (
        "CAST(LAST(B.dti) AS DECIMAL(12, 3))",
        "CAST(max_by(dti, o) AS DECIMAL(12, 3))",
        BODY,
    ),
    "negative_interval_to_bigint": (
        "CAST(FIRST(A.dti) - LAST(B.dti) AS BIGINT)",
        "CAST(min_by(dti, o) - max_by(dti, o) AS BIGINT)",
        BODY,
    ),
    "negative_interval_to_decimal": (
        "CAST(FIRST(A.dti) - LAST(B.dti) AS DECIMAL(9, 0))",
        "CAST(min_by(dti, o) - max_by(dti, o) AS DECIMAL(9, 0))",
        BODY,
    ),
    "date_minus_hours": (
        "LAST(B.dt) - INTERVAL '90' MINUTE * FIRST(A.o)",
        "max_by(dt, o) - INTERVAL '90' MINUTE * min(o)",
        BODY,
    ),
    "date_plus_year_month": (
        "LAST(B.dt) + INTERVAL '1-2' YEAR TO MONTH",
        "max_by(dt, o) + INTERVAL '1-2' YEAR TO MONTH",
        BODY,
    ),
    # a WHEN ... THEN pair of one row beside a value of others: only its parts move
    "case_pair_of_one_row": (
        "CASE WHEN FIRST(A.i) > 1 THEN md5(FIRST(A.s)) ELSE max(B.s) END",
        "CASE WHEN min_by(i, o) > 1 THEN md5(min_by(s, o)) ELSE max(s) END",
        BODY,
    ),
    "simple_case_pair_of_one_row": (
        "CASE FIRST(A.i) WHEN 1 THEN quarter(FIRST(A.dt)) ELSE max(B.o) END",
        "CASE min_by(i, o) WHEN 1 THEN quarter(min_by(dt, o)) ELSE max(o) END",
        BODY,
    ),
    # decode of a row a physical step reads (which may be past the partition), which
    # cannot move inside the navigation: the table function computes its CASE of <=>
    "decode_of_the_next_row": (
        "decode(NEXT(A.i), 2, 'two', NULL, 'none', 'other')",
        None,
        BODY,
    ),
    # overlay keeps its input's type: a STRING from a call sqlglot cannot type itself
    "overlay_of_a_call": (
        "overlay(btrim(max(B.s), 'a') placing 'ZZ' from 2)",
        "overlay(btrim(max(s), 'a') placing 'ZZ' from 2)",
        BODY,
    ),
    # a constant holding a YEAR-MONTH interval, which PySpark cannot pass: Spark computes
    # the whole constant
    "constant_date_plus_year_month": (
        "DATE'2024-02-29' + INTERVAL 1 MONTH",
        "DATE'2024-02-29' + INTERVAL 1 MONTH",
        BODY,
    ),
    "constant_year_months_compared": (
        "(INTERVAL 1 MONTH + INTERVAL '1' YEAR) = INTERVAL '1-1' YEAR TO MONTH",
        "(INTERVAL 1 MONTH + INTERVAL '1' YEAR) = INTERVAL '1-1' YEAR TO MONTH",
        BODY,
    ),
    "date_before_a_constant_date_plus_year_month": (
        "LAST(B.dt) < DATE'2024-02-10' + make_ym_interval(0, 1)",
        "max_by(dt, o) < DATE'2024-02-10' + make_ym_interval(0, 1)",
        BODY,
    ),
    "date_plus_hours": (
        "FIRST(A.dt) + INTERVAL '3' HOUR",
        "min_by(dt, o) + INTERVAL '3' HOUR",
        BODY,
    ),
    "timestamp_difference": ("LAST(B.ts) - FIRST(A.ts)", "max(ts) - min(ts)", BODY),
    "date_difference": ("LAST(B.dt) - FIRST(A.dt)", "max_by(dt, o) - min_by(dt, o)", BODY),
    "date_plus_days": ("FIRST(A.dt) + 1", "min_by(dt, o) + 1", BODY),
    "unix_date_of_several_rows": (
        "unix_date(greatest(FIRST(A.dt), LAST(B.dt)))",
        "unix_date(greatest(min_by(dt, o), max_by(dt, o)))",
        BODY,
    ),
    "map_cast_to_strings": (
        "CAST(map(FIRST(A.s), LAST(B.i), 'n', CAST(NULL AS INT)) AS MAP<STRING, STRING>)",
        "CAST(map(min_by(s, o), max_by(i, o), 'n', CAST(NULL AS INT)) AS MAP<STRING, STRING>)",
        BODY,
    ),
    "struct_cast_to_strings": (
        "CAST(named_struct('a', FIRST(A.i), 'b', LAST(B.dbl)) AS STRUCT<x: STRING, y: STRING>)",
        "CAST(named_struct('a', min_by(i, o), 'b', max_by(dbl, o)) "
        "AS STRUCT<x: STRING, y: STRING>)",
        BODY,
    ),
    "date_minus_days": ("LAST(B.dt) - FIRST(A.i)", "max_by(dt, o) - min_by(i, o)", BODY),
    "days_plus_date": ("FIRST(A.ti) + LAST(B.dt)", "min_by(ti, o) + max_by(dt, o)", BODY),
    # everyday measures
    "strings": (
        "upper(LAST(B.s)) || '-' || lower(FIRST(A.s))",
        "upper(max_by(s, o)) || '-' || lower(min_by(s, o))",
        BODY,
    ),
    "concat_ws": ("concat_ws('/', FIRST(A.s), LAST(B.s))", None, BODY),
    "lpad": ("lpad(LAST(B.s), LAST(B.o) + 2, '*')", None, BODY),
    "datediff": (
        "datediff(LAST(B.dt), FIRST(A.dt))",
        "datediff(max_by(dt, o), min_by(dt, o))",
        BODY,
    ),
    "add_months": ("add_months(FIRST(A.dt), LAST(B.o))", None, BODY),
    "months_between": ("months_between(LAST(B.dt), FIRST(A.dt))", None, BODY),
    "round_avg": ("round(avg(dbl), 1)", "round(avg(dbl), 1)", BODY),
    "round_sum_decimal": ("round(sum(d), 1)", "round(sum(d), 1)", BODY),
    # ceil/floor to a scale: a DECIMAL of the number cast to one
    "ceil_double_scaled": ("ceil(LAST(B.dbl) * 3, 1)", "ceil(max_by(dbl, o) * 3, 1)", BODY),
    "floor_decimal_scaled": ("floor(sum(e) / 7, 2)", "floor(sum(e) / 7, 2)", BODY),
    "ceil_int_negative_scale": ("ceil(sum(i) * 3, -1)", "ceil(sum(i) * 3, -1)", BODY),
    "floor_tinyint_scaled": (
        "floor(LAST(B.ti) - FIRST(A.ti), 1)",
        "floor(max_by(ti, o) - min_by(ti, o), 1)",
        BODY,
    ),
    "greatest": ("greatest(FIRST(A.i), LAST(B.i), 3)", None, BODY),
    "try_multiply_overflow_is_null": (
        "try_multiply(LAST(B.i), 500000000)",
        "try_multiply(max_by(i, o), 500000000)",
        BODY,
    ),
    "nan_to_decimal_is_null": (
        "CAST(LAST(B.dbl) + double('NaN') AS DECIMAL(10, 2))",
        "CAST(max_by(dbl, o) + double('NaN') AS DECIMAL(10, 2))",
        BODY,
    ),
    "ln_of_nan": ("ln(LAST(B.dbl) + double('NaN'))", "ln(max_by(dbl, o) + double('NaN'))", BODY),
    "pmod": ("pmod(LAST(B.i), FIRST(A.o) + 1)", None, BODY),
    "array_agg": ("array_agg(s)", None, BODY),
    "element_at": ("element_at(array_agg(s), 2)", None, BODY),
    "named_struct": ("named_struct('x', FIRST(A.i), 'y', LAST(B.s))", None, BODY),
    "case": ("CASE WHEN count(*) > 2 THEN FIRST(A.s) ELSE LAST(B.s) END", None, BODY),
    "coalesce_decimal": ("coalesce(LAST(B.d), FIRST(A.d))", None, BODY),
    # a STRING beside another type: ANSI casts the string to the other side's type
    "coalesce_int_string": (
        "coalesce(nullif(LAST(B.i), 3), '7')",
        "coalesce(nullif(max_by(i, o), 3), '7')",
        BODY,
    ),
    "case_int_or_string": (
        "CASE WHEN count(*) > 2 THEN LAST(B.i) ELSE '0' END",
        "CASE WHEN count(*) > 2 THEN max_by(i, o) ELSE '0' END",
        BODY,
    ),
    "nvl_decimal_string": ("nvl(FIRST(B.d), '7.5')", None, BODY),
    "if_date_or_string": ("if(count(*) > 2, LAST(B.dt), '2024-06-01')", None, BODY),
    "coalesce_timestamp_string": ("coalesce(FIRST(A.ts), '2024-06-01 12:00:00')", None, BODY),
    "classifier": ("CLASSIFIER()", None, BODY),
    "match_number": ("MATCH_NUMBER() * 10", None, BODY),
    "final_last": ("FINAL LAST(B.o) - FIRST(A.o)", "max(o) - min(o)", BODY),
    "all_rows_running": ("RUNNING LAST(B.i) - FIRST(A.i)", None, ALL_ROWS),
    "all_rows_final_sum": ("FINAL sum(ti)", None, ALL_ROWS),
    "all_rows_running_sum": ("RUNNING sum(si) + 1", None, ALL_ROWS),
    "all_rows_classifier": ("lower(CLASSIFIER())", None, ALL_ROWS),
    # FIRST reads the match's first B row on A's row too (README), also through a
    # function Spark computes (it read NULL there: the absent-row test counted B's rows
    # so far)
    "all_rows_first_of_later_row": ("md5(FIRST(B.s))", None, ALL_ROWS),
    # arrays of NULL-free elements (array_agg's) beside ones that may hold a NULL: the
    # result may hold one (it was declared NULL-free and the job failed on the NULL)
    # an amount the fallback typing cannot read (arithmetic in a lambda): the type is
    # the moved value's, a DATE's TIMESTAMP
    "timestampadd_lambda_amount": (
        "timestampadd(MINUTE, aggregate(collect_list(B.i), 0, (acc, x) -> acc + x), FIRST(A.ts))",
        None,
        BODY,
    ),
    "timestampadd_lambda_amount_date": (
        "timestampadd(HOUR, aggregate(collect_list(B.i), 0, (acc, x) -> acc + x), max(B.dt))",
        None,
        BODY,
    ),
    # the mean of a DECIMAL is rewritten as Spark's optimizer computes it; the rewrite's
    # type kept the positions of its own spelling, read as positions in the query (a
    # refusal of "de()" inside try_divide)
    "decimal_mean_in_call": ("try_divide(coalesce(1.5D, avg(B.d)), FIRST(A.i))", None, BODY),
    # IS DISTINCT FROM is a BOOLEAN (its type was unknown with arithmetic in an operand)
    "is_distinct_from_arithmetic": ("(max(B.dbl) + 1) IS DISTINCT FROM LAST(B.dbl)", None, BODY),
    "concat_nullable_second": ("concat(array_agg(B.i), array(B.i, NULL))", None, BODY),
    "case_nullable_else": (
        "CASE WHEN MATCH_NUMBER() > 5 THEN array_agg(B.i) ELSE array(NULL, B.i) END",
        None,
        BODY,
    ),
    "nested_nullable_second": ("array(array_agg(B.i), array(NULL, B.i))", None, BODY),
    "map_values_nullable_second": (
        "map_concat(map(1, array_agg(B.i)), map(2, array(B.i, NULL)))",
        None,
        BODY,
    ),
    "all_rows_first_offset_of_later_row": ("unix_date(FIRST(B.dt, 1))", None, ALL_ROWS),
    # character, array, map, URL and charset functions of values of several rows
    "nullifzero": (
        "nullifzero(LAST(B.i) - FIRST(A.i) - 20)",
        "nullifzero(max_by(i, o) - min_by(i, o) - 20)",
        BODY,
    ),
    "ascii": (
        "ascii(concat(LAST(B.s), FIRST(A.s)))",
        "ascii(concat(max_by(s, o), min_by(s, o)))",
        BODY,
    ),
    "chr": ("chr(LAST(B.i) * 3 + FIRST(A.i))", "chr(max_by(i, o) * 3 + min_by(i, o))", BODY),
    "array_repeat": (
        "array_repeat(FIRST(A.s), LAST(B.o))",
        "array_repeat(min_by(s, o), max(o))",
        BODY,
    ),
    "array_insert": (
        "array_insert(LAST(B.arr), FIRST(A.o) + 2, FIRST(A.dbl))",
        "array_insert(max_by(arr, o), min(o) + 2, min_by(dbl, o))",
        BODY,
    ),
    "map_concat": (
        "map_values(map_concat(map(coalesce(FIRST(A.s), 'f'), FIRST(A.i)), "
        "map(coalesce(LAST(B.s), 'l'), LAST(B.dbl))))",
        "map_values(map_concat(map(min_by(s, o), min_by(i, o)), "
        "map(max_by(s, o), max_by(dbl, o))))",
        BODY,
    ),
    "unhex": (
        "unhex(concat(FIRST(A.i), LAST(B.i)))",
        "unhex(concat(min_by(i, o), max_by(i, o)))",
        BODY,
    ),
    "soundex": (
        "soundex(concat(FIRST(A.s), 'obert', LAST(B.s)))",
        "soundex(concat(min_by(s, o), 'obert', max_by(s, o)))",
        BODY,
    ),
    "luhn_check": (
        "luhn_check(concat(FIRST(A.i), LAST(B.si)))",
        "luhn_check(concat(min_by(i, o), max_by(si, o)))",
        BODY,
    ),
    "url_encode": (
        "url_encode(concat(FIRST(A.s), ' /é', LAST(B.s)))",
        "url_encode(concat(min_by(s, o), ' /é', max_by(s, o)))",
        BODY,
    ),
    "url_decode": (
        "url_decode(concat(FIRST(A.s), '+%C3%A9', LAST(B.s)))",
        "url_decode(concat(min_by(s, o), '+%C3%A9', max_by(s, o)))",
        BODY,
    ),
    "try_url_decode": (
        "try_url_decode(concat(FIRST(A.s), '%', LAST(B.s)))",
        "try_url_decode(concat(min_by(s, o), '%', max_by(s, o)))",
        BODY,
    ),
    "encode": (
        "hex(encode(concat(FIRST(A.s), '✓', LAST(B.s)), 'UTF-16'))",
        "hex(encode(concat(min_by(s, o), '✓', max_by(s, o)), 'UTF-16'))",
        BODY,
    ),
    "decode": (
        "decode(encode(concat(FIRST(A.s), '✓', LAST(B.s)), 'UTF-16LE'), 'utf-16le')",
        "decode(encode(concat(min_by(s, o), '✓', max_by(s, o)), 'UTF-16LE'), 'utf-16le')",
        BODY,
    ),
    "hash_more_types": (
        "hash(LAST(B.ts), FIRST(A.d), LAST(B.arr), FIRST(A.s))",
        "hash(max_by(ts, o), min_by(d, o), max_by(arr, o), min_by(s, o))",
        BODY,
    ),
    "hash": (
        "hash(FIRST(A.i), LAST(B.s), LAST(B.dbl), FIRST(A.dt))",
        "hash(min_by(i, o), max_by(s, o), max_by(dbl, o), min_by(dt, o))",
        BODY,
    ),
    "hash_of_arithmetic": (
        "hash(LAST(B.ti) + FIRST(A.si), FIRST(A.e) * LAST(B.e))",
        "hash(max_by(ti, o) + min_by(si, o), min_by(e, o) * max_by(e, o))",
        BODY,
    ),
    # a datetime pattern of a call inside another call (it read the outer call's last
    # string: '01HH' for '2024HH'); a string Spark casts to TIMESTAMP for date_format
    "pattern_of_an_inner_call": (
        "concat(date_format(FIRST(A.ts) + (LAST(B.ts) - FIRST(A.ts)), 'yyyy'), 'HH')",
        "concat(date_format(min_by(ts, o) + (max_by(ts, o) - min_by(ts, o)), 'yyyy'), 'HH')",
        BODY,
    ),
    "date_format_of_from_unixtime": (
        "date_format(from_unixtime(unix_timestamp(LAST(B.ts)) - unix_timestamp(FIRST(A.ts))), "
        "'HH:mm EEE')",
        "date_format(from_unixtime(unix_timestamp(max_by(ts, o)) - unix_timestamp(min_by(ts, o))), "
        "'HH:mm EEE')",
        BODY,
    ),
    # intervals as Spark's longs of microseconds; a BINARY padded with zero bytes
    "sign_of_an_interval": (
        "sign(FIRST(A.dti) - LAST(B.dti))",
        "sign(min_by(dti, o) - max_by(dti, o))",
        BODY,
    ),
    "width_bucket_of_intervals": (
        "width_bucket(LAST(B.dti), FIRST(A.dti), FIRST(A.dti) + INTERVAL '3' DAY, 4)",
        "width_bucket(max_by(dti, o), min_by(dti, o), min_by(dti, o) + INTERVAL '3' DAY, 4)",
        BODY,
    ),
    "pads_of_a_binary": (
        "concat(lpad(encode(concat(FIRST(A.s), LAST(B.s)), 'utf-8'), 5), "
        "rpad(encode(LAST(B.s), 'utf-8'), 3))",
        "concat(lpad(encode(concat(min_by(s, o), max_by(s, o)), 'utf-8'), 5), "
        "rpad(encode(max_by(s, o), 'utf-8'), 3))",
        BODY,
    ),
    # Java's formatter over the objects Spark holds each type in
    "format_string_of_each_type": (
        "format_string('%.2f|%x|%X|%s|%d|%s|%,d|%e|%5s|%c', LAST(B.dbl) - FIRST(A.dbl), "
        "LAST(B.ti) - FIRST(A.i) * 100, FIRST(A.si) - 1000, FIRST(A.e) * LAST(B.d), "
        "LAST(B.dt), LAST(B.ts), LAST(B.i) * 1000000, sum(dbl), LAST(B.s), 64 + FIRST(A.i))",
        "format_string('%.2f|%x|%X|%s|%d|%s|%,d|%e|%5s|%c', max_by(dbl, o) - min_by(dbl, o), "
        "max_by(ti, o) - min_by(i, o) * 100, min_by(si, o) - 1000, min_by(e, o) * max_by(d, o), "
        "max_by(dt, o), max_by(ts, o), max_by(i, o) * 1000000, sum(dbl), max_by(s, o), "
        "64 + min_by(i, o))",
        BODY,
    ),
    "xxhash64_more_types": (
        "xxhash64(LAST(B.ts), FIRST(A.d), LAST(B.arr), FIRST(A.s))",
        "xxhash64(max_by(ts, o), min_by(d, o), max_by(arr, o), min_by(s, o))",
        BODY,
    ),
    "xxhash64": (
        "xxhash64(FIRST(A.i), LAST(B.s), LAST(B.dbl), FIRST(A.dt))",
        "xxhash64(min_by(i, o), max_by(s, o), max_by(dbl, o), min_by(dt, o))",
        BODY,
    ),
    "shiftleft": (
        "shiftleft(LAST(B.i), FIRST(A.o) + 30)",
        "shiftleft(max_by(i, o), min(o) + 30)",
        BODY,
    ),
    "shiftright": (
        "shiftright(LAST(B.si) - 1000, FIRST(A.o))",
        "shiftright(max_by(si, o) - 1000, min(o))",
        BODY,
    ),
    "shiftrightunsigned": (
        "shiftrightunsigned(FIRST(A.i) - LAST(B.si), LAST(B.o))",
        "shiftrightunsigned(min_by(i, o) - max_by(si, o), max(o))",
        BODY,
    ),
    "shift_operator": (
        "LAST(B.i) << FIRST(A.ti)",
        "max_by(i, o) << min_by(ti, o)",
        BODY,
    ),
    "try_mod": (
        "try_mod(LAST(B.i), FIRST(A.o) - 1)",
        "try_mod(max_by(i, o), min(o) - 1)",
        BODY,
    ),
    "try_mod_decimal": (
        "try_mod(LAST(B.e), FIRST(A.d))",
        "try_mod(max_by(e, o), min_by(d, o))",
        BODY,
    ),
    "array_compact": (
        "array_compact(array(LAST(B.i), NULL, FIRST(A.i)))",
        "array_compact(array(max_by(i, o), NULL, min_by(i, o)))",
        BODY,
    ),
    "timestampadd": (
        "timestampadd(HOUR, FIRST(A.o), LAST(B.ts))",
        "timestampadd(HOUR, min(o), max_by(ts, o))",
        BODY,
    ),
    "timestampadd_month": (
        "timestampadd(MONTH, LAST(B.o), FIRST(A.dt))",
        "timestampadd(MONTH, max(o), min_by(dt, o))",
        BODY,
    ),
    # reverse of a number is the STRING of its reversed text; of an array, the array
    "reverse_of_a_number": (
        "reverse(LAST(B.i) * FIRST(A.i))",
        "reverse(max_by(i, o) * min_by(i, o))",
        BODY,
    ),
    "reverse_of_an_array": ("reverse(LAST(B.arr))", "reverse(max_by(arr, o))", BODY),
    # Spark reads an untyped NULL as a DOUBLE in abs, floor, round; array_remove,
    # array_except and array_intersect cast both sides to their common type
    "abs_of_null": (
        "abs(if(LAST(B.o) > 0, NULL, NULL))",
        "abs(if(max(o) > 0, NULL, NULL))",
        BODY,
    ),
    "floor_of_null": ("floor(if(LAST(B.o) > 0, NULL, NULL))", "floor(NULL)", BODY),
    "round_of_null": ("round(if(LAST(B.o) > 0, NULL, NULL), 1)", "round(NULL, 1)", BODY),
    "array_remove_widens": (
        "array_remove(LAST(B.arr), FIRST(A.dbl) * 2)",
        "array_remove(max_by(arr, o), min_by(dbl, o) * 2)",
        BODY,
    ),
    "array_except_widens": (
        "array_except(LAST(B.arr), array(FIRST(A.dbl) * 2))",
        "array_except(max_by(arr, o), array(min_by(dbl, o) * 2))",
        BODY,
    ),
    "array_intersect_widens": (
        "array_intersect(array(FIRST(A.dbl) * 2), LAST(B.arr))",
        "array_intersect(array(min_by(dbl, o) * 2), max_by(arr, o))",
        BODY,
    ),
    # a conditional's value is of its operands' common type: 0 of a DECIMAL(4, 2) is 0.00
    "coalesce_of_decimal_and_int": (
        "CAST(coalesce(if(LAST(B.i) > 100, FIRST(A.d), NULL), 0) AS STRING)",
        "CAST(coalesce(if(max_by(i, o) > 100, min_by(d, o), NULL), 0) AS STRING)",
        BODY,
    ),
    "case_of_double_and_int": (
        "CAST(CASE WHEN LAST(B.i) > 15 THEN LAST(B.dbl) ELSE FIRST(A.i) END AS STRING)",
        "CAST(CASE WHEN max_by(i, o) > 15 THEN max_by(dbl, o) ELSE min_by(i, o) END AS STRING)",
        BODY,
    ),
}
# Spark's size() of a NULL is -1 when ANSI is off (spark.sql.legacy.sizeOfNull follows
# it); array_size() stays NULL
#: a STRING beside another type in a comparison, BETWEEN, IN or arithmetic: Spark casts
#: (an integer and the string to BIGINT, a DOUBLE or DECIMAL and the string to DOUBLE, the
#: string to a DATE or TIMESTAMP); these were Python's errors, or IN a wrong answer
STRING_OPERANDS = {
    "string_lt_double": ("LAST(B.dbl) < '2'", "max_by(dbl, o) < '2'"),
    "string_gt_int": ("'15' > FIRST(A.i)", "'15' > min_by(i, o)"),
    "decimal_le_string": ("LAST(B.e) <= '2.0'", "max_by(e, o) <= '2.0'"),
    "timestamp_gt_string": ("LAST(B.ts) > '2024-01-02'", "max_by(ts, o) > '2024-01-02'"),
    "date_eq_string": ("FIRST(A.dt) = '2024-01-01'", "min_by(dt, o) = '2024-01-01'"),
    "int_in_strings": ("LAST(B.i) IN ('30', '7')", "max_by(i, o) IN ('30', '7')"),
    "double_between_strings": (
        "LAST(B.dbl) BETWEEN '0.5' AND '3'",
        "max_by(dbl, o) BETWEEN '0.5' AND '3'",
    ),
    "int_in_decimal_and_string": ("LAST(B.i) IN (2.5, '30')", "max_by(i, o) IN (2.5, '30')"),
    "int_between_int_and_string": (
        "LAST(B.i) BETWEEN 7 AND '29'",
        "max_by(i, o) BETWEEN 7 AND '29'",
    ),
    "int_plus_string": ("LAST(B.i) + '1'", "max_by(i, o) + '1'"),
    "decimal_times_string": ("FIRST(A.d) * '2'", "min_by(d, o) * '2'"),
    # pmod/try_mod coerce as % does (the table function could not type them)
    "pmod_of_double_and_string": ("pmod(LAST(B.dbl), '3')", "pmod(max_by(dbl, o), '3')"),
    "try_mod_of_double_and_string": ("try_mod(LAST(B.dbl), '4')", "try_mod(max_by(dbl, o), '4')"),
}
ANSI_CASES.update({n: (m, g, BODY) for n, (m, g) in STRING_OPERANDS.items()})

NON_ANSI_CASES = {
    f"{name}_ansi_off": ANSI_CASES[name]
    for name in (
        "size_of_null",
        "cardinality_of_null",
        "array_size_of_null",
        "tinyint_plus_tinyint",
        "decimal_divided",
        "nullifzero",
        "chr",
        "array_insert",
        "map_concat",
        "url_decode",
        "decode",
        "hash",
        "xxhash64",
        "shiftleft",
        "try_mod",
        "timestampadd",
        "date_minus_days",
        "coalesce_of_decimal_and_int",
        "case_of_double_and_int",
    )
}
# integer results out of their type's width wrap around at each operator, as Spark's
NON_ANSI_CASES["tinyint_squared_wraps_ansi_off"] = (
    "A.ti * A.ti",
    "min_by(ti, o) * min_by(ti, o)",
    BODY,
)
NON_ANSI_CASES["smallint_product_wraps_ansi_off"] = (
    "(LAST(B.si) * FIRST(A.si)) div 2",
    "(max_by(si, o) * min_by(si, o)) div 2",
    BODY,
)
NON_ANSI_CASES.update(
    {
        f"{name}_ansi_off": (m, g, BODY)
        for name, (m, g) in STRING_OPERANDS.items()
        if "plus" not in name and "times" not in name  # DOUBLE without ANSI: a CAST says so
    }
)
# without ANSI Spark types a STRING beside a number as STRING: said with a CAST
NON_ANSI_CASES["cast_coalesce_int_string_ansi_off"] = (
    "CAST(coalesce(LAST(B.i), FIRST(A.s)) AS STRING)",
    "CAST(coalesce(max_by(i, o), min_by(s, o)) AS STRING)",
    BODY,
)
NON_ANSI_CASES["size_plus_one_ansi_off"] = (
    "size(LAST(B.arr)) + 1",
    "size(max_by(arr, o)) + 1",
    BODY,
)
# without ANSI a DECIMAL's text is Java's BigDecimal.toString: -3.75000E-8, 0E-13
NON_ANSI_CASES["decimal_text_ansi_off"] = (
    "CAST((LAST(B.d) - FIRST(A.d)) / 100000000 AS STRING)",
    "CAST((max_by(d, o) - min_by(d, o)) / 100000000 AS STRING)",
    BODY,
)
NON_ANSI_CASES["decimal_concat_ansi_off"] = (
    "concat(FIRST(A.d) * 0 / 1000000000, '|', LAST(B.e) / 100000000)",
    "concat(min_by(d, o) * 0 / 1000000000, '|', max_by(e, o) / 100000000)",
    BODY,
)


@pytest.fixture(scope="module")
def view(spark: SparkSession) -> Iterator[str]:
    spark.sql(
        f"CREATE OR REPLACE TEMP VIEW {VIEW} AS SELECT {SELECT} FROM VALUES {ROWS} AS t({COLUMNS})"
    )
    matchrec.register(spark)
    yield VIEW


def _literal(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "''") + "'"


def _part(name: str, source: str, k: str = "k") -> str:
    """One case's rows as (case, key, type, value as a string)."""
    return (
        f"SELECT '{name}' AS q, CAST({k} AS STRING) AS k, typeof(m) AS t, "
        f"CAST(m AS STRING) AS v FROM {source}"
    )


def _run(spark: SparkSession, cases: dict[str, tuple[str, str | None, str]], ansi: bool):
    """door -> case -> sorted (key, type, value) rows, one query per door."""
    tf, sql, group = [], [], []
    for name, (measure, grouped, body) in cases.items():
        text = body.format(measure=measure)
        tf.append(_part(name, f"match_recognize(TABLE({VIEW}), {_literal(text)})"))
        sql.append(_part(name, f"{VIEW} MATCH_RECOGNIZE ({text})"))
        if grouped is not None:
            group.append(_part(name, f"(SELECT k, {grouped} AS m FROM {VIEW} GROUP BY k)"))
    out = {}
    with session_settings(spark, {"spark.sql.ansi.enabled": str(ansi).lower()}):
        for door, parts, run in (
            ("tf", tf, spark.sql),
            ("sql", sql, lambda q: matchrec.sql(spark, q)),
            ("group", group, spark.sql),
        ):
            rows = run(" UNION ALL ".join(parts)).collect()
            out[door] = {
                n: sorted((r.k or "", r.t, r.v or "<null>") for r in rows if r.q == n)
                for n in cases
            }
    return out


@pytest.fixture(scope="module")
def ansi_results(spark, view):
    return _run(spark, ANSI_CASES, ansi=True)


@pytest.fixture(scope="module")
def non_ansi_results(spark, view):
    return _run(spark, NON_ANSI_CASES, ansi=False)


def _check(results, cases, name):
    assert results["tf"][name], "the case should match something"
    assert results["tf"][name] == results["sql"][name]
    if cases[name][1] is not None:
        assert results["tf"][name] == results["group"][name]


@pytest.mark.parametrize("name", list(ANSI_CASES))
def test_measure_as_spark_computes_it(ansi_results, name):
    _check(ansi_results, ANSI_CASES, name)


@pytest.mark.parametrize("name", list(NON_ANSI_CASES))
def test_measure_as_spark_computes_it_ansi_off(non_ansi_results, name):
    _check(non_ansi_results, NON_ANSI_CASES, name)


def test_spot_values(ansi_results, non_ansi_results):
    """A few values read directly, so that the doors agreeing on a wrong one would not pass."""
    assert ansi_results["tf"]["sum_tinyint"] == [("a", "bigint", "60"), ("b", "bigint", "19")]
    assert ansi_results["tf"]["size_of_null"][0] == ("a", "int", "<null>")
    assert non_ansi_results["tf"]["size_of_null_ansi_off"][0] == ("a", "int", "-1")
    assert non_ansi_results["tf"]["array_size_of_null_ansi_off"][0] == ("a", "int", "<null>")
    assert ansi_results["tf"]["sequence"][0] == ("a", "array<int>", "[1, 2, 3]")
    assert ansi_results["tf"]["try_multiply_overflow_is_null"] == [
        ("a", "int", "1500000000"),
        ("b", "int", "<null>"),
    ]
    assert ansi_results["tf"]["case_int_or_string"] == [("a", "bigint", "3"), ("b", "bigint", "0")]


INPUT = StructType(
    [
        StructField(n, t)
        for n, t in [
            ("k", StringType()),
            ("o", IntegerType()),
            ("ti", ByteType()),
            ("si", ShortType()),
            ("i", IntegerType()),
            ("bi", LongType()),
            ("d", DecimalType(4, 2)),
            ("dbl", DoubleType()),
            ("s", StringType()),
            ("dt", DateType()),
            ("ts", TimestampType()),
            ("arr", ArrayType(IntegerType())),
            ("dti", DayTimeIntervalType(0, 3)),
        ]
    ]
)


@pytest.mark.parametrize(
    ("measure", "result", "start"),
    [
        ("aggregate(collect_list(B.d), 0, (acc, x) -> acc + x)", "DECIMAL(13, 2)", "INT"),
        ("aggregate(collect_list(B.i), 0L, (acc, x) -> acc + x)", "BIGINT", "BIGINT"),
        # a start value read from the match: the hint's example does not show it as our
        # column (it was CAST(CAST(__mr_a1 AS DECIMAL(12, 2)) AS DECIMAL(13, 2)))
        (
            "aggregate(collect_list(B.d), CAST(LAST(B.d) AS DECIMAL(12, 2)), (acc, x) -> acc + x)",
            "DECIMAL(13, 2)",
            "DECIMAL(12, 2)",
        ),
        ("aggregate(collect_list(B.i), 0.5D, (acc, x) -> acc + x)", "DOUBLE", "DOUBLE"),
        # Spark compares structs without their fields' names
        (
            "aggregate(collect_list(B.i), named_struct('a', 0), "
            "(acc, x) -> named_struct('A', acc.a + x), acc -> acc.a)",
            "STRUCT",
            "STRUCT",
        ),
    ],
)
def test_an_aggregate_whose_merge_changes_the_start_values_type_is_sparks_refusal(
    measure, result, start
):
    """Spark refuses ``aggregate(xs, zero, merge)`` where the merge function's type is not
    the start value's (DATATYPE_MISMATCH), as matchrec.sql does; the table function
    folded the DECIMAL sum into the INT of the start value (3 for 3.49)."""
    body = BODY.format(measure=measure)
    if result != start:
        with pytest.raises(MatchRecognizeError) as info:
            build_program(body, INPUT)
        assert f"merge function returns {result}, but its start value is {start}" in str(info.value)
        assert "__mr_" not in str(info.value)
        assert body[info.value.pos :].startswith("aggregate(")
    else:
        build_program(body, INPUT)


@pytest.mark.parametrize(
    ("measure", "refused"),
    [
        ("array_sort(collect_list(B.i), (a, b) -> b - a + 0L)", "returns BIGINT"),
        ("array_sort(collect_list(B.i), (a, b) -> b - a)", None),
        ("filter(collect_list(B.i), x -> x)", "returns INT"),
        ("exists(collect_list(B.s), x -> x || 'a')", "returns STRING"),
        ("forall(collect_list(B.i), x -> NULL)", None),
        ("map_filter(map(LAST(B.s), count(*)), (k, v) -> v)", "returns BIGINT"),
        ("filter(collect_list(B.i), (x, i) -> i > 0)", None),
    ],
)
def test_a_lambda_of_a_type_its_function_does_not_take_is_sparks_refusal(measure, refused):
    """Spark refuses a filter/exists/forall/map_filter predicate that is no BOOLEAN and an
    array_sort comparator that is no INT (DATATYPE_MISMATCH), as matchrec.sql does; the
    table function computed them (a BIGINT comparator's sign, an INT's truth)."""
    body = BODY.format(measure=measure)
    if refused is None:
        build_program(body, INPUT)
        return
    with pytest.raises(MatchRecognizeError) as info:
        build_program(body, INPUT)
    assert refused in str(info.value) and "DATATYPE_MISMATCH" in str(info.value)
    assert body[info.value.pos :].startswith(measure.split("(")[0])


@pytest.mark.parametrize(
    ("measure", "at", "says"),
    [
        ("INTERVAL '1' YEAR * LAST(B.o)", "INTERVAL", "YEAR TO MONTH"),
        ("LAST(B.dt) + make_ym_interval(1, FIRST(A.o))", "make_ym", "YEAR-MONTH"),
        ("make_ym_interval(0, LAST(B.o)) * 2", "make_ym", "YEAR TO MONTH"),
        ("my_sql_udf(LAST(B.i) - FIRST(A.i))", "my_sql_udf", "cannot evaluate my_sql_udf()"),
        ("no_such_fn(LAST(B.i), FIRST(A.i))", "no_such_fn", "cannot evaluate no_such_fn()"),
        # a first argument that is a built-in call: not "Spark has no function py_risk()"
        ("py_risk(sum(B.i), count(*))", "py_risk", "cannot evaluate py_risk()"),
        ("py_risk(abs(LAST(B.i) - FIRST(A.i)))", "py_risk", "cannot evaluate py_risk()"),
        # a function the table function does not compute over values of several rows
        (
            "sentences(concat(FIRST(A.s), ' ', LAST(B.s)))",
            "sentences",
            "cannot evaluate sentences()",
        ),
        (
            "sequence(FIRST(A.dt), LAST(B.dt), INTERVAL 1 MONTH)",
            "sequence",
            "cannot infer the Spark",
        ),
    ],
)
def test_refused_with_a_caret_before_any_job(measure, at, says):
    body = BODY.format(measure=measure)
    with pytest.raises(UnsupportedError) as info:
        build_program(body, INPUT)
    assert says in info.value.message
    assert body[info.value.pos :].startswith(at)


#: sequence() arguments Spark refuses (both ANSI modes), the argument at fault and what
#: the message says; against :data:`INPUT`
REFUSED_SEQUENCES = [
    (
        "sequence(1, 5, LAST(B.dbl))",
        "LAST(B.dbl)",
        "takes an integral step, not one of type DOUBLE",
    ),
    ("sequence(FIRST(A.i), 5, LAST(B.d))", "LAST(B.d)", "not one of type DECIMAL(4,2)"),
    ("sequence(FIRST(A.i), 5, FIRST(A.dt))", "FIRST(A.dt)", "integral step, not one of type DATE"),
    ("sequence(1, 9, FIRST(A.dti))", "FIRST(A.dti)", "not one of type INTERVAL DAY TO SECOND"),
    ("sequence(FIRST(A.dt), LAST(B.dt), FIRST(A.i))", "FIRST(A.i)", "an interval step, not"),
    ("sequence(FIRST(A.ts), LAST(B.ts), NULL)", "NULL", "an interval step, not one of type VOID"),
    ("sequence(FIRST(A.dbl), 9)", "FIRST(A.dbl)", "integers, dates or timestamps, not DOUBLE"),
    ("sequence(1, LAST(B.d), 1)", "LAST(B.d)", "integers, dates or timestamps, not DECIMAL(4,2)"),
    ("sequence(FIRST(A.dt), 9)", "9", "of one kind, not DATE and INT"),
]


@pytest.mark.parametrize(("call", "at", "says"), REFUSED_SEQUENCES)
@pytest.mark.parametrize("clause", ["MEASURES", "DEFINE"])
def test_a_sequence_spark_refuses_is_its_error_at_the_argument_before_any_job(
    call, at, says, clause
):
    """Spark refuses these argument types when it analyses the query (its
    SEQUENCE_WRONG_INPUT_TYPES, as matchrec.sql shows); the table function says so too,
    with the caret at the argument at fault, in MEASURES and DEFINE alike."""
    if clause == "MEASURES":
        body = BODY.format(measure=f"size({call})")
    else:
        body = BODY.format(measure="count(*)").replace("B AS true", f"B AS size({call}) > 0")
    with pytest.raises(SemanticError) as info:
        build_program(body, INPUT)
    assert info.value.message.startswith("[DATATYPE_MISMATCH.SEQUENCE_WRONG_INPUT_TYPES]")
    assert says in info.value.message
    assert f"in {clause}" in info.value.message
    assert body[info.value.pos :].startswith(at)


@pytest.mark.parametrize(
    "call",
    [
        "sequence(1, 5, CAST(LAST(B.i) AS BIGINT))",
        "sequence(FIRST(A.ti), LAST(B.si), 2)",
        "sequence(1, 5, NULL)",
        "sequence(FIRST(A.dt), LAST(B.ts), INTERVAL 1 DAY)",
        "sequence(FIRST(A.dt), LAST(B.dt), FIRST(A.dti))",
        "sequence(FIRST(A.ts), LAST(B.ts))",
    ],
)
def test_a_sequence_spark_takes_is_typed(call):
    """Types Spark takes (a wider integer step, NULL for numbers, a date and a timestamp,
    a day-time step of dates) are not refused."""
    build_program(BODY.format(measure=f"size({call})"), INPUT)


@pytest.mark.parametrize("step", ["FIRST(B.dbl)", "FIRST(B.dbl) + B.dbl"])
def test_a_sequence_step_spark_refuses_is_a_positioned_error_in_both_doors(spark, step):
    """In DEFINE, both doors stop before any job with matchrec's positioned error, of
    Spark's class (not a wrong INVALID_SEQUENCE_BOUNDARIES, or an answer)."""
    body = (
        "PARTITION BY p ORDER BY k MEASURES count(*) AS n PATTERN (A B*) "
        f"DEFINE B AS size(sequence(1, 5, {step})) > 0"
    )
    source = "(SELECT * FROM VALUES (1, 1, 1.5D), (1, 2, 2.5D), (1, 3, 0.5D) AS u(p, k, dbl))"
    matchrec.register(spark)
    with pytest.raises(SemanticError, match="SEQUENCE_WRONG_INPUT_TYPES") as info:
        matchrec.sql(spark, f"SELECT * FROM {source} MATCH_RECOGNIZE ({body})")
    assert info.value.sql[info.value.pos :].startswith(step)
    with pytest.raises(MatchRecognizeError, match="SEQUENCE_WRONG_INPUT_TYPES"):
        spark.sql(f"SELECT * FROM match_recognize(TABLE{source}, {_literal(body)})").collect()


@pytest.mark.parametrize(
    "measure",
    [
        "coalesce(LAST(B.ts), FIRST(A.ntz))",
        "coalesce(FIRST(A.ntz), LAST(B.ts))",
        "IF(count(*) > 10, FIRST(A.ts), LAST(B.ntz))",
        "array(FIRST(A.ntz), LAST(B.ts))",
    ],
)
def test_a_timestamp_beside_a_timestamp_ntz_is_a_timestamp(spark, view, measure):
    """Spark's common type of TIMESTAMP and TIMESTAMP_NTZ is TIMESTAMP, the NTZ read in
    the session zone, whichever comes first (the table function took the second's type:
    TIMESTAMP_NTZ, seven hours off in Los Angeles)."""
    body = BODY.format(measure=measure)
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW mr_tfm_ntz AS SELECT * FROM VALUES "
        "('a', 1, TIMESTAMP'2024-03-10 01:30:00', TIMESTAMP_NTZ'2024-03-10 01:30:00'), "
        "('a', 2, TIMESTAMP'2024-03-11 02:00:00', TIMESTAMP_NTZ'2024-03-09 23:59:59') "
        "AS t(k, o, ts, ntz)"
    )
    with session_settings(spark, {"spark.sql.session.timeZone": "America/Los_Angeles"}):
        expected = matchrec.sql(spark, f"SELECT * FROM mr_tfm_ntz MATCH_RECOGNIZE ({body})")
        actual = spark.sql(f"SELECT * FROM match_recognize(TABLE(mr_tfm_ntz), {_literal(body)})")
        assert "ntz" not in expected.schema["m"].dataType.simpleString()
        assert actual.schema.simpleString() == expected.schema.simpleString()
        assert actual.collect() == expected.collect()


@pytest.mark.parametrize(
    ("measure", "ansi"),
    [("FIRST(A.i) > 0 < LAST(B.i)", "true"), ("FIRST(A.i) > 0 = LAST(B.i)", "true")]
    + [("FIRST(A.i) > 0 < LAST(B.i)", "false"), ("(FIRST(A.i) > 0) + 1", "false")],
)
def test_a_boolean_compared_with_a_number_is_refused_in_every_door(spark, view, measure, ansi):
    """Spark refuses BOOLEAN < INT (and = under ANSI mode) when it analyses the query;
    the table function computed an answer."""
    body = BODY.format(measure=measure)
    with session_settings(spark, {"spark.sql.ansi.enabled": ansi}):
        with pytest.raises(AnalysisException):
            spark.sql(f"SELECT {measure.replace('A.', '').replace('B.', '')} FROM {VIEW}")
        with pytest.raises(AnalysisException, match="BOOLEAN"):
            spark.sql(f"SELECT * FROM match_recognize(TABLE({VIEW}), {_literal(body)})")
        with pytest.raises(MatchRecognizeError, match="BOOLEAN"):
            matchrec.sql(spark, f"SELECT * FROM {VIEW} MATCH_RECOGNIZE ({body})")


@pytest.mark.parametrize(
    ("measure", "grouped"),
    [
        ("date_add(max(B.dt), count(*))", "date_add(max(dt), count(*))"),
        ("date_sub(FIRST(A.dt), MATCH_NUMBER())", "date_sub(min(dt), count(*))"),
        ("array_repeat(LAST(B.s), sum(B.i))", "array_repeat(max(s), sum(i))"),
        ("element_at(array_agg(B.i), count(*))", "element_at(array_agg(i), count(*))"),
        ("try_element_at(array_agg(B.i), 1.0D * count(*))", "try_element_at(array(1), 1.0D)"),
        ("format_number(avg(B.dbl), max(B.d))", "format_number(avg(dbl), max(d))"),
        ("array_insert(array_agg(B.i), count(*), 0)", "array_insert(array_agg(i), count(*), 0)"),
    ],
)
def test_a_wider_number_where_spark_takes_an_int_is_refused_in_every_door(
    spark, view, measure, grouped
):
    """Spark takes an INT, SMALLINT or TINYINT count or position there (no implicit cast
    from BIGINT, DECIMAL or DOUBLE, ANSI mode or not) and refuses the call when it
    analyses it; the table function computed an answer."""
    body = BODY.format(measure=measure)
    with pytest.raises(AnalysisException, match="DATATYPE_MISMATCH"):
        spark.sql(f"SELECT {grouped} FROM {VIEW}").collect()
    with pytest.raises(AnalysisException, match="takes an INT"):
        spark.sql(f"SELECT * FROM match_recognize(TABLE({VIEW}), {_literal(body)})")
    with pytest.raises(MatchRecognizeError, match="takes an INT") as caught:
        matchrec.sql(spark, f"SELECT * FROM {VIEW} MATCH_RECOGNIZE ({body})")
    assert "^" in str(caught.value)


@pytest.mark.parametrize("ansi", ["true", "false"])
def test_an_interval_too_big_for_the_number_fails_with_or_without_ansi(spark, view, ansi):
    """Spark's CAST of an interval to a number overflows with CAST_OVERFLOW whatever
    spark.sql.ansi.enabled says (the table function gave NULL without ANSI mode)."""
    body = BODY.format(measure="CAST(LAST(B.dti) - FIRST(A.dti) AS TINYINT)")
    with session_settings(spark, {"spark.sql.ansi.enabled": ansi}):
        with pytest.raises(Exception, match="CAST_OVERFLOW"):
            matchrec.sql(spark, f"SELECT * FROM {VIEW} MATCH_RECOGNIZE ({body})").collect()
        with pytest.raises(Exception, match="CAST_OVERFLOW"):
            spark.sql(f"SELECT * FROM match_recognize(TABLE({VIEW}), {_literal(body)})").collect()


def _binary_view(spark: SparkSession) -> None:
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW mr_tfm_bin AS SELECT * FROM VALUES "
        "('a', 1, 'hello', X'7A'), ('a', 2, 'é', X'C3A9'), ('a', 3, 'abc', X'616263'), "
        "('a', 4, '', X''), ('a', 5, NULL, X'00') AS t(k, o, s, b)"
    )


@pytest.mark.parametrize("op", ["<", "=", ">=", "<=>"])
def test_a_string_beside_a_binary_is_compared_as_its_utf8_bytes(spark, view, op):
    """Spark casts the STRING to BINARY (which never fails, so ANSI mode allows it) and
    compares bytes, unsigned: both doors give Spark's answer (they refused, or the table
    function failed comparing str with bytes)."""
    _binary_view(spark)
    body = (
        f"PARTITION BY k ORDER BY o MEASURES RUNNING LAST(A.s) {op} LAST(A.b) AS m "
        "ALL ROWS PER MATCH PATTERN (A+) DEFINE A AS true"
    )
    want = [r.m for r in spark.sql(f"SELECT s {op} b AS m FROM mr_tfm_bin ORDER BY o").collect()]
    got = matchrec.sql(spark, f"SELECT * FROM mr_tfm_bin MATCH_RECOGNIZE ({body}) ORDER BY o")
    tf = spark.sql(f"SELECT * FROM match_recognize(TABLE(mr_tfm_bin), {_literal(body)}) ORDER BY o")
    assert [r.m for r in got.collect()] == want
    assert [r.m for r in tf.collect()] == want


@pytest.mark.parametrize("op", ["<", ">=", "<>"])
def test_define_compares_a_string_with_a_binary_of_another_row(spark, view, op):
    """DEFINE's glue compares them as Spark does (it refused: no implicit casts there)."""
    _binary_view(spark)
    body = (
        "PARTITION BY k ORDER BY o MEASURES FIRST(A.o) AS start ONE ROW PER MATCH "
        f"AFTER MATCH SKIP TO NEXT ROW PATTERN (A B) DEFINE B AS B.s {op} FIRST(A.b)"
    )
    pairs = f"SELECT x.o FROM mr_tfm_bin x JOIN mr_tfm_bin y ON y.o = x.o + 1 WHERE y.s {op} x.b"
    want = sorted(r.o for r in spark.sql(pairs).collect())
    got = matchrec.sql(spark, f"SELECT * FROM mr_tfm_bin MATCH_RECOGNIZE ({body})")
    assert sorted(r.start for r in got.collect()) == want
    assert want  # some pair compares true


@pytest.fixture(scope="module")
def udfs(spark: SparkSession) -> Iterator[None]:
    spark.sql("CREATE OR REPLACE TEMPORARY FUNCTION mr_plus_one(x INT) RETURNS INT RETURN x + 1")
    spark.udf.register("mr_py_twice", lambda x: None if x is None else 2 * x, "int")
    yield
    spark.sql("DROP TEMPORARY FUNCTION IF EXISTS mr_plus_one")


@pytest.mark.parametrize("udf", ["mr_plus_one", "mr_py_twice"])
def test_udf_of_several_rows_is_our_error_when_analysed(spark, view, udfs, udf):
    """A session UDF (SQL or Python) of values of several rows: Spark computes it under
    matchrec.sql; the table function, which has no session to call it from, says so at
    the call, while Spark analyses the query (no PythonException from a job)."""
    body = BODY.format(measure=f"{udf}(LAST(B.i) - FIRST(A.i))")
    expected = matchrec.sql(spark, f"SELECT * FROM {VIEW} MATCH_RECOGNIZE ({body})")
    assert len(expected.collect()) == 2
    with pytest.raises(AnalysisException, match=f"cannot evaluate {udf}\\(\\)"):
        spark.sql(f"SELECT * FROM match_recognize(TABLE({VIEW}), {_literal(body)})")


@pytest.mark.parametrize("udf", ["mr_plus_one", "mr_py_twice"])
def test_udf_of_one_row_with_a_cast_as_matchrec_sql(spark, view, udfs, udf):
    """The same UDF of one row runs in Spark before matching; with a CAST to type it,
    the table function gives what matchrec.sql gives."""
    body = BODY.format(measure=f"CAST({udf}(LAST(B.i)) AS INT) + FIRST(A.i)")
    expected = matchrec.sql(spark, f"SELECT * FROM {VIEW} MATCH_RECOGNIZE ({body})")
    actual = spark.sql(f"SELECT * FROM match_recognize(TABLE({VIEW}), {_literal(body)})")
    assert actual.schema == expected.schema
    assert sorted(actual.collect()) == sorted(expected.collect())


_UNREAD_BAD_VALUES = """(1, 1, 'x', 1), (1, 2, '12', 5), (1, 3, 'bad', -2),
 (1, 4, 'y', 1), (1, 5, '7', 3), (1, 6, 'worse', 40) AS u(p, o, s, i)"""


@pytest.mark.parametrize(
    "measure",
    [
        "make_date(2024, 2, FIRST(B.i))",
        "FIRST(make_date(2024, 2, B.i))",
        "make_date(2024, 2, FIRST(B.i)) + FIRST(B.i)",
        "make_date(2024, 2, FIRST(B.i)) < max(make_date(2024, 1, pmod(B.i, 28) + 1))",
        # a CAST that fails ('bad' as an INT), under calls of the glue and a constant
        "format_number(CAST(FIRST(B.s) AS INT), 1)",
        "CAST(FIRST(B.s) AS INT) * 2 + quarter(DATE'2024-05-01')",
        "dayofmonth(make_date(2024, 2, FIRST(B.i))) * 2",
        # under calls split into the glue's parts (date_add, date_format, to_char)
        "date_add(make_date(2024, 2, FIRST(B.i)), 1)",
        "unix_date(date_sub(make_date(2024, 2, FIRST(B.i)), 3))",
        "date_format(make_date(2024, 2, FIRST(B.i)), 'yyyy-MM-dd')",
        "datediff(make_date(2024, 2, FIRST(B.i)), DATE'2024-01-01')",
        "add_months(make_date(2024, 2, FIRST(B.i)), 1)",
        # a failing call over a split one (base64's is the glue's own call)
        "CAST(unbase64(base64(FIRST(B.s))) AS STRING)",
        "to_char(make_date(2024, 2, FIRST(B.i)), 'yyyy-MM-dd')",  # the glue's of a DATE
    ],
)
def test_a_function_failing_on_a_row_the_measure_never_reads_fails_no_job(spark, view, measure):
    """make_date(2024, 2, -2) fails under ANSI mode, on a B row that is no match's first
    one: the table function computes the measure from the one row it reads, as Spark
    does in matchrec.sql, rather than over every B row."""
    body = (
        f"PARTITION BY p ORDER BY o MEASURES {measure} AS m ONE ROW PER MATCH "
        "PATTERN (A B*) DEFINE A AS A.s IN ('x', 'y'), B AS B.s NOT IN ('x', 'y')"
    )
    source = f"(SELECT * FROM VALUES {_UNREAD_BAD_VALUES})"
    expected = matchrec.sql(spark, f"SELECT * FROM {source} MATCH_RECOGNIZE ({body})")
    actual = spark.sql(f"SELECT * FROM match_recognize(TABLE{source}, {_literal(body)})")
    assert actual.schema == expected.schema
    rows = sorted(actual.collect())
    assert rows == sorted(expected.collect())
    assert len(rows) == 2


def test_date_plus_whole_days_of_a_day_time_interval_across_a_clock_change(spark, view):
    """DATE + a DAY TO SECOND interval is a TIMESTAMP in Spark: its days move the date,
    the rest is elapsed time from that date's midnight in the session zone; on the day
    New York moves its clocks, 1 day from midnight is the next midnight, 23 hours on,
    and 3 hours from midnight is 04:00."""
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW mr_tfm_dst AS SELECT * FROM VALUES "
        "('a', 1, date'2024-03-10', INTERVAL '1 00:00:00' DAY TO SECOND), "
        "('a', 2, date'2024-03-10', INTERVAL '0 01:30:00' DAY TO SECOND), "
        "('b', 1, date'2024-03-09', INTERVAL '0 03:00:00' DAY TO SECOND), "
        "('b', 2, date'2024-03-10', INTERVAL '0 01:30:00' DAY TO SECOND) AS t(k, o, dt, dti)"
    )
    body = BODY.format(measure="LAST(B.dt) + FIRST(A.dti)")
    grouped = "SELECT k, max_by(dt, o) + min_by(dti, o) AS m FROM mr_tfm_dst GROUP BY k"
    with session_settings(spark, {"spark.sql.session.timeZone": "America/New_York"}):
        actual = spark.sql(f"SELECT * FROM match_recognize(TABLE(mr_tfm_dst), {_literal(body)})")
        expected = matchrec.sql(spark, f"SELECT * FROM mr_tfm_dst MATCH_RECOGNIZE ({body})")
        rows = sorted((r.k, r.m) for r in actual.collect())
        assert actual.schema == expected.schema
        assert len(rows) == 2
        assert rows == sorted((r.k, r.m) for r in expected.collect())
        assert rows == sorted((r.k, r.m) for r in spark.sql(grouped).collect())


@pytest.mark.parametrize(
    "measure",
    [
        "sequence(FIRST(A.dt), LAST(B.dt))",
        "sequence(FIRST(A.dt), LAST(B.dt), INTERVAL 30 HOUR)",
        "sequence(FIRST(A.ts), LAST(B.ts))",
        "sequence(FIRST(A.ts), LAST(B.ts), INTERVAL '1 01' DAY TO HOUR)",
        "sequence(FIRST(A.dt), LAST(B.ts), INTERVAL 13 HOUR)",
        "sequence(CAST(FIRST(A.ts) AS TIMESTAMP_NTZ), LAST(B.dt), INTERVAL 25 HOUR)",
    ],
)
def test_sequences_of_dates_and_timestamps_across_a_clock_change(spark, view, measure):
    """``sequence`` of dates and timestamps: a step's whole days move the session zone's
    wall clock, its hours are elapsed time (New York moves its clocks on 2024-03-10)."""
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW mr_tfm_seq AS SELECT * FROM VALUES "
        "('a', 1, date'2024-03-08', timestamp'2024-03-08 23:30:00'), "
        "('a', 2, date'2024-03-12', timestamp'2024-03-12 22:00:00'), "
        "('b', 1, date'2024-03-09', timestamp'2024-03-09 02:30:00'), "
        "('b', 2, date'2024-03-11', timestamp'2024-03-11 03:00:00') AS t(k, o, dt, ts)"
    )
    body = BODY.format(measure=measure)
    grouped = re.sub(r"FIRST\(A\.(\w+)\)", r"min_by(\1, o)", measure)
    grouped = re.sub(r"LAST\(B\.(\w+)\)", r"max_by(\1, o)", grouped)
    with session_settings(spark, {"spark.sql.session.timeZone": "America/New_York"}):
        actual = spark.sql(f"SELECT * FROM match_recognize(TABLE(mr_tfm_seq), {_literal(body)})")
        rows = sorted((r.k, r.m) for r in actual.collect())
        spark_rows = spark.sql(f"SELECT k, {grouped} AS m FROM mr_tfm_seq GROUP BY k").collect()
        assert (
            actual.schema
            == matchrec.sql(spark, f"SELECT * FROM mr_tfm_seq MATCH_RECOGNIZE ({body})").schema
        )
        assert len(rows) == 2 and all(len(m) > 1 for _, m in rows)
        assert rows == sorted((r.k, r.m) for r in spark_rows)


@pytest.mark.parametrize(
    "measure",
    [
        "collate(LAST(B.s), 'UTF8_LCASE')",
        "collate(LAST(B.s), 'UTF8_LCASE') = FIRST(A.s)",
        "LAST(B.s) COLLATE UTF8_LCASE = FIRST(A.s)",
        "collate(concat(FIRST(A.s), LAST(B.s)), 'UTF8_LCASE')",
        "collate(concat(FIRST(A.s), LAST(B.s)), 'UTF8_LCASE') = 'abcABC'",
        "concat(FIRST(A.s), LAST(B.s)) COLLATE UTF8_LCASE IN ('ABCABC', 'x')",
    ],
)
def test_collated_measures_are_typed_and_compared_as_spark(spark, view, measure):
    """``COLLATE`` in MEASURES: its type names the collation, its comparisons ignore case
    under UTF8_LCASE, through the table function as through ``matchrec.sql``."""
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW mr_tfm_coll AS SELECT * FROM VALUES "
        "('a', 1, 'abc'), ('a', 2, 'ABC'), ('b', 1, 'x'), ('b', 2, 'y') AS t(k, o, s)"
    )
    body = BODY.format(measure=measure)
    actual = spark.sql(f"SELECT * FROM match_recognize(TABLE(mr_tfm_coll), {_literal(body)})")
    expected = matchrec.sql(spark, f"SELECT * FROM mr_tfm_coll MATCH_RECOGNIZE ({body})")
    assert actual.schema == expected.schema
    assert sorted(actual.collect()) == sorted(expected.collect())


def test_a_string_beside_a_number_without_ansi_mode_asks_for_a_cast(spark, view):
    """``analyze`` cannot read the session's ANSI setting and declares ANSI mode's type
    (BIGINT for a STRING beside an INT); without ANSI mode Spark's type is STRING, so the
    query stops with our message at the measure rather than a wrong type."""
    body = BODY.format(measure="coalesce(LAST(B.i), FIRST(A.s))")
    query = f"SELECT * FROM match_recognize(TABLE({VIEW}), {_literal(body)})"
    with session_settings(spark, {"spark.sql.ansi.enabled": "false"}):
        with pytest.raises(Exception) as info:
            spark.sql(query).collect()
    message = str(info.value)
    assert "Spark types measure 'm' as STRING" in message
    assert "CAST(... AS STRING)" in message


#: strings Python's int()/float()/Decimal() read otherwise than Spark's CAST
NUMBER_TEXTS = [
    "12", " 12 ", "+12", "-12.9", "12.", ".5", ".", "", "1_000", "10e1", "1e2",
    "\u0661\u0662", "1d", "0x1p3", "0x10", "inf", "-Infinity", "NaN", "+nan", "1e500",
    "12a", "007", "3000000000", "99999999.995", "1.005", "+.5e1",
]  # fmt: skip


TARGETS = ["INT", "BIGINT", "DOUBLE", "FLOAT", "DECIMAL(10, 2)"]


@pytest.mark.parametrize("ansi", [True, False])
def test_a_string_cast_to_a_number_reads_as_spark_reads_it(spark, view, ansi):
    """The table function casts a string built from two rows in Python; Spark's GROUP
    BY over the same rows casts it in Spark (``try_cast`` under ANSI, which gives NULL
    where the ANSI cast fails)."""
    rows = [f"({k}, 1, {_literal(t)}, 'x'), ({k}, 2, '', '')" for k, t in enumerate(NUMBER_TEXTS)]
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW mr_tfm_texts AS SELECT * FROM VALUES "
        f"{', '.join(rows)} AS t(k, o, s, e)"
    )
    cast = "try_cast" if ansi else "CAST"
    measures = ", ".join(
        f"CAST({cast}(concat(FIRST(A.s), LAST(B.e)) AS {t}) AS STRING) AS m{n}"
        for n, t in enumerate(TARGETS)
    )
    body = f"PARTITION BY k ORDER BY o MEASURES {measures} PATTERN (A B) DEFINE B AS true"
    grouped = ", ".join(
        f"CAST({cast}(concat(min_by(s, o), max_by(e, o)) AS {t}) AS STRING) AS m{n}"
        for n, t in enumerate(TARGETS)
    )
    with session_settings(spark, {"spark.sql.ansi.enabled": str(ansi).lower()}):
        got = spark.sql(f"SELECT * FROM match_recognize(TABLE(mr_tfm_texts), {_literal(body)})")
        want = spark.sql(f"SELECT k, {grouped} FROM mr_tfm_texts GROUP BY k")
        assert sorted(got.collect()) == sorted(want.collect())


@pytest.mark.parametrize(
    ("measure", "spark_sql"),
    [
        ("min(B.x)", "min(x) FILTER (WHERE o > 1)"),
        ("collect_list(B.x)", "collect_list(x) FILTER (WHERE o > 1)"),
        ("CASE WHEN count(*) > 1 THEN FIRST(B.x) END", "min_by(x, o) FILTER (WHERE o > 1)"),
        ("sum(x)", "sum(x)"),
    ],
)
def test_decimals_of_all_38_digits_are_kept(spark, view, measure, spark_sql):
    """A DECIMAL(38, 10) at the edge of its range (38 digits) computed in Python is the
    value Spark gives: Python's default context keeps 28 digits."""
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW mr_tfm_wide AS SELECT * FROM VALUES "
        "('a', 1, CAST('1234567890123456789012345678.0123456789' AS DECIMAL(38, 10))), "
        "('a', 2, CAST('-9999999999999999999999999999.9999999999' AS DECIMAL(38, 10))), "
        "('a', 3, CAST(NULL AS DECIMAL(38, 10))) AS t(k, o, x)"
    )
    actual = _through_the_table_function(spark, "mr_tfm_wide", BODY.format(measure=measure))
    expected = spark.sql(f"SELECT k, {spark_sql} AS m FROM mr_tfm_wide GROUP BY k")
    assert actual.schema.simpleString() == expected.schema.simpleString()
    assert actual.collect() == expected.collect()


def _through_the_table_function(spark, view: str, body: str):
    return spark.sql(f"SELECT * FROM match_recognize(TABLE({view}), {_literal(body)})")


@pytest.fixture
def float_view(spark):
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW mr_tfm_float AS SELECT * FROM VALUES "
        "('a', 1, 3000000000L, 7, CAST(1.5 AS FLOAT)), ('a', 2, 10L, 9, CAST(0.2 AS FLOAT)) "
        "AS t(k, o, bi, i, f)"
    )
    return "mr_tfm_float"


@pytest.mark.parametrize(
    "measure",
    ["FIRST(A.bi) + LAST(B.f)", "FIRST(A.i) * LAST(B.f)", "coalesce(FIRST(A.i), LAST(B.f))"],
)
def test_an_integer_beside_a_float_without_ansi_asks_for_a_cast(
    spark, view, float_view, ansi_off, measure
):
    """Without ANSI mode Spark types an integer beside a FLOAT as FLOAT (ANSI mode: a
    DOUBLE, which the table function declares, not knowing the session's setting): the
    table function refuses at the measure instead of a DOUBLE; with the CAST it asks for,
    it gives matchrec.sql's FLOAT."""
    body = BODY.format(measure=measure)
    with pytest.raises(UnsupportedError) as info:
        _through_the_table_function(spark, float_view, body).collect()
    assert "as FLOAT" in info.value.message
    assert info.value.sql.splitlines()[info.value.line - 1][info.value.column - 1 :].startswith(
        measure
    )
    cast = BODY.format(measure=f"CAST({measure} AS FLOAT)")
    actual = _through_the_table_function(spark, float_view, cast)
    expected = matchrec.sql(spark, f"SELECT * FROM {float_view} MATCH_RECOGNIZE ({body})")
    assert actual.schema == expected.schema
    assert actual.collect() == expected.collect()


def test_a_decimal_out_of_its_type_is_null_without_ansi_as_spark(spark, view, ansi_off):
    """A DECIMAL the measure's type cannot hold is NULL without ANSI mode, as Spark's (it
    was an error of the table function's own, 'cannot be represented'): DECIMAL(18, 0)'s
    largest through percentile_approx's double is 1.0E18."""
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW mr_tfm_huge AS SELECT * FROM VALUES "
        "('a', 1, CAST('999999999999999999' AS DECIMAL(18, 0))), "
        "('a', 2, CAST('999999999999999999' AS DECIMAL(18, 0))) AS t(k, o, x)"
    )
    body = BODY.format(measure="percentile_approx(x, 0.5)")
    actual = _through_the_table_function(spark, "mr_tfm_huge", body)
    expected = spark.sql("SELECT k, percentile_approx(x, 0.5) AS m FROM mr_tfm_huge GROUP BY k")
    assert actual.schema.simpleString() == expected.schema.simpleString()
    assert actual.collect() == expected.collect() == [("a", None)]


def test_a_measure_of_a_generated_chain_of_thousands_of_terms_is_planned():
    """The table function types and compiles a measure again from its text: a chain of
    1500 ORs (a generated rule) raised a bare RecursionError there, nested one level per
    term as the parser reads it."""
    chain = " OR ".join(f"LAST(B.i) = {k}" for k in range(1500))
    program = build_program(BODY.format(measure=f"CASE WHEN {chain} THEN 1 ELSE 0 END"), INPUT)
    assert program is not None


@pytest.mark.parametrize(
    ("measure", "kind"),
    [
        ("timestampadd(HOUR, 1, FIRST(A.ntz))", "timestamp_ntz"),
        ("timestampadd(MINUTE, LAST(B.o), LAST(B.ntz))", "timestamp_ntz"),
        ("timestampadd(HOUR, 1, FIRST(A.ts))", "timestamp"),
    ],
)
def test_timestampadd_keeps_a_timestamp_ntz(measure, kind):
    """Spark's timestampadd of a TIMESTAMP_NTZ is a TIMESTAMP_NTZ (matchrec.sql's type);
    the table function typed it TIMESTAMP, an instant, whose value a later change of the
    session's time zone or a write would read otherwise."""
    from pyspark.sql.types import TimestampNTZType

    schema = StructType(
        [
            StructField("k", StringType()),
            StructField("o", IntegerType()),
            StructField("ntz", TimestampNTZType()),
            StructField("ts", TimestampType()),
        ]
    )
    program = build_program(BODY.format(measure=measure), schema)
    assert program.schema["m"].dataType.simpleString() == kind


WIDE_MEASURES = {
    "coalesce": "coalesce(LAST(B.f), LAST(B.a))",
    "case": "CASE WHEN LAST(B.o) = 2 THEN LAST(B.a) ELSE LAST(B.f) END",
    "if_wide": "if(LAST(B.a) > 1000, LAST(B.w), LAST(B.a))",
    "nvl2": "nvl2(FIRST(A.f), LAST(B.a) - FIRST(A.f), LAST(B.a))",
    "in": "LAST(B.a) IN (950, 150.00, 5000.001)",
    "equal": "LAST(B.a) = 5000.001",
    "less": "LAST(B.a) < LAST(B.f) + 4854.8563",
    # an integer literal takes its own digits: no cast of z to DECIMAL(38, 28)
    "literal": "LAST(B.z) = 1",
    "in_literal": "LAST(B.z) IN (1, 2)",
}


@pytest.mark.parametrize("ansi", [True, False])
def test_wide_decimals_meet_in_sparks_wider_type(spark, ansi):
    """DECIMAL(38, 2) beside DECIMAL(10, 4): Spark's common type keeps the integer digits
    and drops fraction digits, DECIMAL(38, 2). The table function kept the scale
    (DECIMAL(38, 4): 145.1447 for 145.14; NULL or an overflow for a DECIMAL(38, 0)) and
    compared exactly (``5000.00 IN (..., 5000.001)`` false)."""
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW mr_tfm_wide AS SELECT k, o, CAST(a AS DECIMAL(38, 2)) a, "
        "CAST(f AS DECIMAL(10, 4)) f, CAST(w AS DECIMAL(38, 0)) w, "
        "CAST(z AS DECIMAL(38, 30)) z FROM VALUES "
        "('c', 1, '1.00', '0.1447', '1', '1'), "
        "('c', 2, '5000.00', '145.1447', '12345678901234567890123456789012345678', "
        "'1.000000000000000000000000000001') AS t(k, o, a, f, w, z)"
    )
    matchrec.register(spark)
    parts = {"tf": [], "sql": []}
    for name, measure in WIDE_MEASURES.items():
        text = BODY.format(measure=measure)
        parts["tf"].append(_part(name, f"match_recognize(TABLE(mr_tfm_wide), {_literal(text)})"))
        parts["sql"].append(_part(name, f"mr_tfm_wide MATCH_RECOGNIZE ({text})"))
    with session_settings(spark, {"spark.sql.ansi.enabled": str(ansi).lower()}):
        tf = spark.sql(" UNION ALL ".join(parts["tf"])).collect()
        sql = matchrec.sql(spark, " UNION ALL ".join(parts["sql"])).collect()
    assert sorted(map(tuple, tf)) == sorted(map(tuple, sql))
    assert len(tf) == len(WIDE_MEASURES)


@pytest.mark.parametrize(
    "measure",
    [
        "from_json(S.payload, 'items ARRAY<STRUCT<q: INT>>').items[0].q",
        "LAST(CAST(S.qty AS INT)) + 1",
        "FIRST(S.qty :: INT)",
    ],
)
def test_a_navigated_value_that_can_fail_is_computed_only_where_it_is_read(spark, measure):
    """The table function has Spark compute a function of one navigated row at every row:
    under ANSI mode an F row (``"items": []``, ``qty`` 'n/a') failed the query with Spark's
    INVALID_ARRAY_INDEX or CAST_INVALID_INPUT, a row the measure never reads. Guarded by
    S's row-local condition now, as matchrec.sql computes it."""
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW mr_tfm_json AS SELECT * FROM VALUES "
        """('h', 1, 'FAIL', '{"items":[]}', 'n/a'), ('h', 2, 'OK', '{"items":[{"q":2}]}', '7') """
        "AS t(h, s, kind, payload, qty)"
    )
    matchrec.register(spark)
    body = (
        f"PARTITION BY h ORDER BY s MEASURES {measure} AS m "
        "PATTERN (F S) DEFINE F AS kind = 'FAIL', S AS kind = 'OK'"
    )
    with session_settings(spark, {"spark.sql.ansi.enabled": "true"}):
        tf = spark.sql(f"SELECT * FROM match_recognize(TABLE(mr_tfm_json), {_literal(body)})")
        sql = matchrec.sql(spark, f"SELECT * FROM mr_tfm_json MATCH_RECOGNIZE ({body})")
        assert tf.collect() == sql.collect() and len(sql.collect()) == 1


@pytest.mark.parametrize(
    ("measure", "operand"),
    [
        ("btrim(upper(B.s), 'a') = MATCH_NUMBER()", "btrim(upper(B.s), 'a')"),
        ("dayofyear(last_day(A.dt)) = LAST(B.s)", "dayofyear(last_day(A.dt))"),
        # an operand holding a rewritten call (datediff of two rows, split in two)
        (
            "B.s = 2 * datediff(FIRST(B.dt), B.dt)",
            "2 * datediff(FIRST(B.dt), B.dt)",
        ),
    ],
)
def test_a_type_mix_names_the_operand_as_written(measure, operand):
    """The table function moves a function of one row's values inside its navigation
    (``LAST(btrim(upper(s), 'a'))``); its type error named that rewrite ("(CASE WHEN
    COUNT(B.*) > 0 THEN LAST(B..."), not what the user wrote."""
    body = ALL_ROWS.format(measure=measure)
    with pytest.raises(MatchRecognizeError) as info:
        build_program(body, INPUT)
    assert f"mixes {operand} (" in info.value.message or f"and {operand} (" in info.value.message
    assert "CASE WHEN" not in info.value.message and "LAST(DAYOFYEAR" not in info.value.message
    assert "DATEDIFF" not in info.value.message


def test_an_int_argument_error_names_the_navigation_as_written():
    """date_add's count moved inside its navigation is named as the user wrote it, not
    as the column the navigation reads."""
    body = BODY.format(measure="date_add(LAST(dt), FIRST(bi))")
    with pytest.raises(MatchRecognizeError) as info:
        build_program(body, INPUT)
    assert "not FIRST(bi) (BIGINT)" in info.value.message
    assert body[info.value.pos :].startswith("FIRST(bi)")
