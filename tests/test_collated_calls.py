"""Functions Spark computes under their strings' collation (``contains``, ``LIKE``,
``replace``, ``trim`` of given characters, ``nullif``) over values of two rows, and
collations the table function's evaluator lacks: Spark's answer, or a refusal with a
caret before any job; never the answer of UTF8_BINARY (``planner.collation_calls``)."""

from __future__ import annotations

import pytest
from doors import DOORS, pair_clause, refusals, rows_through

import matchrec
from matchrec.errors import MatchRecognizeError, UnsupportedError

ROWS = "SELECT * FROM VALUES (1, 'Ab1'), (2, 'ab1'), (3, 'xB') AS t(id, s)"


@pytest.fixture(scope="module")
def words(spark):
    matchrec.register(spark)
    spark.sql(f"CREATE OR REPLACE TEMP VIEW collated_words AS {ROWS}")
    return "collated_words"


def _spark_rows(spark, condition: str) -> list[tuple]:
    """B's ids where ``condition`` holds of two consecutive rows A, B: Spark's answer."""
    return sorted(
        tuple(r)
        for r in spark.sql(
            f"SELECT B.id FROM ({ROWS}) A JOIN ({ROWS}) B ON B.id = A.id + 1 WHERE {condition}"
        ).collect()
    )


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize(
    ("condition", "call"),
    [
        ("contains(A.s COLLATE UTF8_LCASE, B.s)", "contains("),
        ("B.s LIKE collate(A.s, 'UTF8_LCASE')", "B.s LIKE"),
        ("replace(B.s COLLATE UTF8_LCASE, 'a', A.s) <> B.s", "replace("),
        ("btrim(B.s COLLATE UTF8_LCASE, A.s) = ''", "btrim("),
        ("ltrim(A.s, B.s COLLATE UTF8_LCASE) = '1'", "ltrim("),
        ("nullif(A.s COLLATE UTF8_LCASE, B.s) IS NULL", "nullif("),
    ],
)
def test_a_collated_call_of_two_rows_is_refused_at_the_call(spark, words, door, condition, call):
    """Spark finds 'ab1' in 'Ab1' under UTF8_LCASE; computed over the characters, it
    would not: a refusal at the call, naming its collated string."""
    body = pair_clause(condition, "B.id AS b")
    with pytest.raises(UnsupportedError) as info:
        rows_through(spark, door, words, body)
    err = info.value
    assert "under their collation" in err.message and "UTF8_LCASE" in err.message
    sql = err.sql if err.sql is not None else body
    assert sql[err.pos :].startswith(call)


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize(
    "condition",
    [
        "contains(B.s COLLATE UTF8_LCASE, 'b')",  # one row's: Spark's column
        "A.s = B.s COLLATE UTF8_LCASE",  # a comparison: folded as the collation says
        "contains(lower(A.s), lower(B.s))",  # the refusal's way out
        # the explicit COLLATE on the other row's value: it still decides the comparison
        "A.s COLLATE UTF8_LCASE = B.s",
        "B.s = A.s COLLATE UTF8_LCASE",
        "B.s = collate(A.s, 'UTF8_LCASE')",
    ],
)
def test_one_rows_call_and_comparisons_keep_the_collation(spark, words, door, condition):
    """An explicit COLLATE of another row's value decides the comparison's collation, as
    Spark's precedence of collations says: matchrec.sql refused it ("cannot tell the
    collation"), the table function compared by bytes when it came second."""
    got = rows_through(spark, door, words, pair_clause(condition, "B.id AS b"))
    assert got and got == _spark_rows(spark, condition)


@pytest.mark.parametrize(
    "measure",
    ["A.s COLLATE UNICODE_CI = B.s", "contains(A.s COLLATE UTF8_LCASE, B.s)"],
)
def test_the_table_functions_measures_refuse_what_they_would_compute_by_bytes(
    spark, words, measure
):
    """The table function's MEASURES: a collation its evaluator lacks, or a collated
    call, is refused; matchrec.sql's MEASURES are Spark's own and keep the answer."""
    body = f"ORDER BY id MEASURES {measure} AS m PATTERN (A B) DEFINE B AS B.id = 2"
    with pytest.raises(MatchRecognizeError) as info:
        rows_through(spark, "table function", words, body)
    assert "collation" in info.value.message
    got = rows_through(spark, "matchrec.sql", words, body)
    want = spark.sql(
        f"SELECT {measure} FROM ({ROWS}) A JOIN ({ROWS}) B ON B.id = A.id + 1 WHERE B.id = 2"
    ).collect()
    assert got == [tuple(r) for r in want] == [(True,)]


@pytest.mark.parametrize("place", ["MEASURES", "DEFINE"])
@pytest.mark.parametrize(
    "argument", ["A.s COLLATE UTF8_LCASE", "array(collate(A.s, 'UNICODE_CI'))", "upper(A.c)"]
)
def test_collect_set_of_a_collated_string_is_refused_at_the_call(spark, words, argument, place):
    """Spark collects no set of strings of a collation other than UTF8_BINARY, at any
    depth (UNSUPPORTED_INPUT_TYPE when it analyses the query): both doors refuse it at
    the call; the table function collected them by their bytes."""
    source = f"(SELECT id, s, s COLLATE UTF8_LCASE AS c FROM {words})"
    spark_form = argument.replace("A.", "")
    with pytest.raises(Exception, match="UNSUPPORTED_INPUT_TYPE"):
        spark.sql(f"SELECT collect_set({spark_form}) FROM {source}").collect()
    call = f"collect_set({argument})"
    if place == "MEASURES":
        body = f"ORDER BY id MEASURES {call} AS m PATTERN (A+) DEFINE A AS true"
    else:
        body = f"ORDER BY id MEASURES count(*) AS n PATTERN (A+) DEFINE A AS size({call}) < 9"
    query, by_sql, by_function = refusals(spark, source, body)
    for err, text in ((by_sql, query), (by_function, body)):
        assert "UNSUPPORTED_INPUT_TYPE" in err.message, err
        assert err.pos is not None and text[err.pos :].startswith((call, argument)), (err, text)


LISTAGGS = [
    "listagg(A.c, ',')",
    "string_agg(DISTINCT A.c, ',')",
    "listagg(A.s, X'2C')",
    "listagg(A.b, ',')",
    "listagg(A.c)",
    "listagg(A.c, ',' COLLATE UTF8_LCASE)",
    "listagg(DISTINCT A.c, ',' COLLATE UTF8_LCASE)",
    "listagg(A.b, X'2C')",
    "listagg(A.s, ',') WITHIN GROUP (ORDER BY A.c)",
]


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize("call", LISTAGGS)
def test_listagg_takes_a_separator_of_its_values_type(spark, words, call, door):
    """Spark joins values with a separator of their own type (the collation of a string
    included) and types the result as the values; a separator of another type is its
    DATA_DIFF_TYPES, which every door says before any job (the table function joined
    them, or failed in its worker on STRING with BINARY)."""
    source = f"(SELECT id, s, s COLLATE UTF8_LCASE AS c, CAST(s AS BINARY) AS b FROM {words})"
    body = f"ORDER BY id MEASURES {call} AS m ONE ROW PER MATCH PATTERN (A+) DEFINE A AS true"
    try:
        want = spark.sql(f"SELECT {call.replace('A.', '')} AS m FROM {source}")
        want_rows, want_type = [tuple(r) for r in want.collect()], want.schema[0].dataType
    except Exception as refused:  # noqa: BLE001 - Spark's analyser refuses the call
        assert "DATA_DIFF_TYPES" in str(refused)
        with pytest.raises(MatchRecognizeError, match="DATA_DIFF_TYPES"):
            rows_through(spark, door, source, body)
        return
    if door == "matchrec.sql":
        got = matchrec.sql(spark, f"SELECT * FROM {source} MATCH_RECOGNIZE ({body})")
    else:
        literal = "'" + body.replace("'", "''") + "'"
        got = spark.sql(f"SELECT * FROM match_recognize(TABLE{source}, {literal})")
    assert [tuple(r) for r in got.collect()] == want_rows
    assert got.schema[0].dataType == want_type
