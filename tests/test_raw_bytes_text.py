"""Text that holds bytes that are no UTF-8 (a CAST of BINARY to STRING): Spark keeps its
bytes, so two such values are equal only when their bytes are, and ``octet_length``,
``length``, the hashes and a CAST back to BINARY read those bytes. DEFINE's conditions and
the table function's MEASURES over two rows must give Spark's answers."""

from __future__ import annotations

import pytest
from doors import DOORS, pair_clause, pair_join, rows_through

import matchrec

VIEW = "mr_raw_bytes"

#: conditions over a STRING made of two rows' bytes; Spark's answer is the self-join's
CONDITIONS = [
    "CAST(concat(A.b, B.b) AS STRING) = CAST(X'00FE' AS STRING)",
    "concat(A.s, B.s) = CAST(X'00FF' AS STRING)",
    "octet_length(CAST(concat(A.b, B.b) AS STRING)) = 2",
    "octet_length(concat(A.s, B.s)) = 2",
    "length(concat(A.s, B.s)) = 1",
    "length(CAST(concat(A.b, B.b) AS STRING)) = 2",
    "xxhash64(concat(A.s, B.s)) = xxhash64(CAST(X'00FF' AS STRING))",
    "hash(concat(A.s, B.s)) = hash(CAST(X'FF41' AS STRING))",
    "md5(concat(A.s, B.s)) = md5(CAST(X'41F0' AS STRING))",
    "is_valid_utf8(concat(A.s, B.s))",
    "concat('x', A.b, B.b) = concat('x', CAST(X'FE41' AS STRING))",
]

#: measures of two rows whose text the table function computes (matchrec.sql's are Spark's)
MEASURES = [
    "hex(concat(A.s, B.s))",
    "hex(CAST(concat(A.s, B.s) AS BINARY))",
    "hex(CAST(concat(A.b, B.b) AS STRING))",
    "hex(encode(concat(A.s, B.s), 'UTF-8'))",
    "length(concat(A.s, B.s))",
    "base64(concat(A.s, B.s))",
]


@pytest.fixture(scope="module")
def raw_bytes(spark):
    matchrec.register(spark)
    spark.sql(
        "SELECT id, b, CAST(b AS STRING) AS s FROM VALUES (1, X'00'), (2, X'FF'), "
        "(3, X'41'), (4, X'F0'), (5, X'C3A9'), (6, X'FF') AS t(id, b)"
    ).createOrReplaceTempView(VIEW)


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize("condition", CONDITIONS)
def test_a_condition_reads_the_bytes_of_text_that_is_no_utf8(spark, raw_bytes, door, condition):
    assert rows_through(spark, door, VIEW, pair_clause(condition)) == pair_join(
        spark, VIEW, condition=condition
    )


@pytest.mark.parametrize("door", DOORS)
def test_a_measure_of_text_that_is_no_utf8_keeps_its_bytes(spark, raw_bytes, door):
    measures = ", ".join(f"{m} AS m{i}" for i, m in enumerate(MEASURES))
    want = pair_join(spark, VIEW, f"A.id AS a, {measures}")
    assert any("FF" in str(row) for row in want), "the data must hold bytes that are no UTF-8"
    got = rows_through(spark, door, VIEW, pair_clause("true", f"A.id AS a, {measures}"))
    assert got == want


@pytest.mark.parametrize("door", DOORS)
def test_text_that_is_no_utf8_is_written_out_with_its_bytes(spark, raw_bytes, door):
    """The table function writes a measure of such text as its bytes, which Spark keeps."""
    body = pair_clause("true", "A.id AS a, concat(A.s, B.s) AS m")
    if door == "matchrec.sql":
        out = matchrec.sql(spark, f"SELECT * FROM {VIEW} MATCH_RECOGNIZE ({body})")
    else:
        quoted = body.replace("'", "''")
        out = spark.sql(f"SELECT * FROM match_recognize(TABLE({VIEW}), '{quoted}')")
    got = sorted(tuple(r) for r in out.selectExpr("a", "hex(CAST(m AS BINARY))").collect())
    assert got == pair_join(spark, VIEW, "A.id AS a, hex(CAST(concat(A.s, B.s) AS BINARY))")


def test_a_python_udf_gets_such_text_as_spark_hands_it(spark, raw_bytes):
    """Spark hands a Python UDF Java's String of the bytes: each bad sequence U+FFFD.
    (The table function calls no session UDF of several rows.)"""
    spark.udf.register("mr_last_code", lambda s: None if not s else ord(s[-1]), "int")
    condition = "mr_last_code(concat(A.s, B.s)) = 65533"
    want = pair_join(spark, VIEW, condition=condition)
    assert want, "Spark's answer must not be empty"
    assert rows_through(spark, "matchrec.sql", VIEW, pair_clause(condition)) == want


def test_a_rule_measures_such_text_as_spark(spark, raw_bytes):
    """MATCH_RECOGNIZE_DYNAMIC reads the bytes too; its VARIANT measures hold text, in
    which each bad sequence is U+FFFD (the job failed in parse_json)."""
    spec = pair_clause("true", "octet_length(concat(A.s, B.s)) AS n, concat(A.s, B.s) AS m")
    rules = spark.createDataFrame(
        [("r", 1, spec, None, None)],
        "rule_id STRING, version INT, spec STRING, active_from TIMESTAMP, enabled BOOLEAN",
    )
    out = matchrec.match_recognize_dynamic(spark.table(VIEW), rules)
    got = sorted(
        (r.n, r.m)
        for r in out.selectExpr("measures:n::int AS n", "measures:m::string AS m").collect()
    )
    want = pair_join(spark, VIEW, "octet_length(concat(A.s, B.s)), concat(A.s, B.s)")
    assert [n for n, _ in got] == [n for n, _ in want]
    assert [m for _, m in got] == [m for _, m in want]  # as PySpark reads Spark's text
