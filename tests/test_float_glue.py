"""FLOAT arithmetic of several rows has Spark's single precision: DEFINE's glue, its
array form and the table function's MEASURES compute in Python's doubles, so each result
Spark types FLOAT is rounded to a FLOAT, and a FLOAT is written as Java's
``Float.toString`` (``0.3``, not the double's ``0.30000000447034836``). Every pair of
values is checked against Spark's own arithmetic over the same two rows."""

from __future__ import annotations

import pytest

import matchrec
from matchrec.arrow_rows import python_values
from matchrec.sql_values import Float32, to_float32, to_text

FLOATS = [
    "0.1",
    "0.2",
    "1.1",
    "2.2",
    "-0.7",
    "16777216",
    "1",
    "3.4e38",
    "0.001",
    "123.456",
    "-0.0",
    "'NaN'",
]
INTS = [16777217, 1, -3, 2147483647, 0, 5, 7, 9, 11, 13, 15, 17]
SIZE = len(FLOATS)

CALLS = [
    "N.f + S.f",
    "N.f - S.f",
    "N.f * S.f",
    "-(N.f * S.f)",
    "abs(N.f + S.f)",
    "N.f * S.f + N.f",
    "try_mod(N.f, S.f)",
]


def _pairs_sql() -> str:
    """Two-row partitions of every pair of values: part k has S = k // SIZE, N = k % SIZE."""
    rows = []
    for k in range(SIZE * SIZE):
        for row_id, index in ((1, k // SIZE), (2, k % SIZE)):
            rows.append(f"({k}, {row_id}, CAST({FLOATS[index]} AS FLOAT), {INTS[index]})")
    return f"SELECT * FROM VALUES {', '.join(rows)} AS p(part, id, f, i)"


def _with_spark_value(call: str) -> str:
    """The pairs with Spark's value of ``call`` (``want``) and its text (``text``) on
    each second row, computed by Spark itself over a window."""
    value = call.replace("N.", "")
    for c in ("f", "i"):
        value = value.replace(f"S.{c}", f"first_value({c}) OVER (PARTITION BY part ORDER BY id)")
    return f"SELECT *, {value} AS want, CAST({value} AS STRING) AS text FROM ({_pairs_sql()})"


def _matched_parts(spark, call: str, test: str) -> set[int]:
    query = f"""SELECT part FROM ({_with_spark_value(call)})
    MATCH_RECOGNIZE (
      PARTITION BY part ORDER BY id
      MEASURES count(*) AS k
      PATTERN (^S N)
      DEFINE N AS {test.format(call=call)}
    )"""
    return {r.part for r in matchrec.sql(spark, query).collect()}


# ``<=>`` is evaluated by the scalar glue, ``=`` also by the array form of the searches
@pytest.mark.parametrize(
    "test", ["{call} <=> want", "coalesce({call} = want, want IS NULL) OR isnan(want)"]
)
@pytest.mark.parametrize("call", CALLS)
def test_define_computes_float_results_in_single_precision(spark, call, test):
    missing = sorted(set(range(SIZE * SIZE)) - _matched_parts(spark, call, test))
    assert not missing, f"{call}: {len(missing)} pairs differ from Spark, e.g. {missing[:5]}"


@pytest.mark.parametrize("call", [*CALLS[:4], "round(N.f * S.f, -1)", "bround(N.f + S.f, 1)"])
def test_define_writes_a_float_result_as_spark_does(spark, call):
    missing = set(range(SIZE * SIZE)) - _matched_parts(spark, call, "CAST({call} AS STRING) = text")
    assert not missing, (
        f"{call}: {len(missing)} pairs differ from Spark, e.g. {sorted(missing)[:5]}"
    )


@pytest.mark.parametrize(
    "call",
    ["N.i + S.f", "N.f * S.i", "N.f - S.i", "ceil(N.f + S.f, 1)", "floor(N.f * S.f, 2)"],
)
def test_without_ansi_an_integer_meets_a_float_as_a_float(spark, ansi_off, call):
    """Without ANSI mode Spark types INT and FLOAT together FLOAT, casting the integer
    first (16777217 becomes 16777216.0); under it, DOUBLE. ``ceil``/``floor`` to a scale
    read a FLOAT as a DECIMAL(14, 7) (NULL when it does not fit, without ANSI mode)."""
    missing = set(range(SIZE * SIZE)) - _matched_parts(spark, call, "{call} <=> want")
    assert not missing, (
        f"{call}: {len(missing)} pairs differ from Spark, e.g. {sorted(missing)[:5]}"
    )


@pytest.mark.parametrize(
    "call",
    [
        "N.f + S.f",
        "N.f * S.f",
        "N.f || 'x'",
        "array(N.f, S.f)",
        # a lambda's parameter has its array's element type (FLOAT)
        "transform(array(N.f), x -> x + S.f)",
        "aggregate(array(N.f, N.f), S.f, (acc, x) -> acc * x)",
        "filter(array(N.f, S.f), x -> x + S.f = x + N.f)",
    ],
)
def test_table_function_measures_write_floats_as_spark_does(spark, call):
    matchrec.register(spark)
    spark.sql(_with_spark_value(call)).createOrReplaceTempView("float_pairs")
    body = (
        "PARTITION BY part ORDER BY id "
        f"MEASURES CAST({call} AS STRING) AS got, LAST(N.text) AS want "
        "PATTERN (^S N) DEFINE N AS true"
    )
    rows = spark.sql(
        "SELECT part, got, want FROM match_recognize(TABLE(float_pairs), '"
        + body.replace("'", "''")
        + "')"
    ).collect()
    assert len(rows) == SIZE * SIZE
    differ = [(r.part, r.got, r.want) for r in rows if r.got != r.want]
    assert not differ, f"{call}: {len(differ)} pairs differ from Spark, e.g. {differ[:3]}"


def test_aggregates_of_floats_are_typed_as_spark_types_them(spark):
    """``sum`` of a FLOAT is a DOUBLE (one value too), ``max`` a FLOAT (also when the
    table function computes it over arrays)."""
    matchrec.register(spark)
    spark.sql(
        "SELECT * FROM VALUES (1, 1, CAST(0.1 AS FLOAT)), (1, 2, CAST(NULL AS FLOAT)), "
        "(1, 3, CAST(1.1 AS FLOAT)), (2, 1, CAST(0.7 AS FLOAT)), (2, 2, CAST(0.3 AS FLOAT)), "
        "(2, 3, CAST(2.2 AS FLOAT)) AS t(part, id, f)"
    ).createOrReplaceTempView("float_triples")
    measures = {
        "s": "CAST(sum(A.f) AS STRING)",
        "t": "CAST(try_sum(A.f) AS STRING)",
        "m": "concat(max(A.f), '|', B.f)",
        "n": "concat(min(A.f), '|', B.f)",
    }
    want = spark.sql(
        "SELECT part, "
        + ", ".join(
            f"{m.replace('A.f', 'a').replace('B.f', 'b')} AS {k}" for k, m in measures.items()
        )
        + " FROM (SELECT part, f AS a, max_by(f, id) OVER (PARTITION BY part) AS b, id, "
        "max(id) OVER (PARTITION BY part) AS last FROM float_triples) WHERE id < last "
        "GROUP BY part, b ORDER BY part"
    ).collect()
    body = (
        "PARTITION BY part ORDER BY id MEASURES "
        + ", ".join(f"{m} AS {k}" for k, m in measures.items())
        + " PATTERN (A A B) DEFINE B AS true"
    )
    got = spark.sql(
        "SELECT * FROM match_recognize(TABLE(float_triples), '"
        + body.replace("'", "''")
        + "') ORDER BY part"
    ).collect()
    assert [tuple(r) for r in got] == [tuple(r) for r in want]


def test_subnormal_numbers_are_written_as_java_writes_them(spark):
    """Java writes two digits at least, the closest two (4.9E-324, not 5.0E-324)."""
    values = ["4.9E-324D", "1.0E-323D", "2.5E-320D", "-1.0E-310D", "1.0E10D"]
    floats = ["1.4E-45", "2.8E-45", "1.0E-40", "1.0E10"]
    row = spark.sql(
        "SELECT "
        + ", ".join(f"{v} AS d{i}, CAST({v} AS STRING) AS t{i}" for i, v in enumerate(values))
        + ", "
        + ", ".join(
            f"CAST({v} AS FLOAT) AS f{i}, CAST(CAST({v} AS FLOAT) AS STRING) AS u{i}"
            for i, v in enumerate(floats)
        )
    ).first()
    for i in range(len(values)):
        assert to_text(row[f"d{i}"]) == row[f"t{i}"]
    for i in range(len(floats)):
        assert to_text(to_float32(row[f"f{i}"])) == row[f"u{i}"]


def test_arrow_floats_are_read_as_floats_nested_too():
    import pyarrow as pa

    kind = pa.struct([("a", pa.float32()), ("b", pa.list_(pa.float32())), ("c", pa.float64())])
    values = python_values(pa.array([{"a": 0.1, "b": [0.2, None], "c": 0.1}, None], kind))
    assert type(values[0]["a"]) is Float32 and type(values[0]["b"][0]) is Float32
    assert type(values[0]["c"]) is float and values[1] is None
    assert to_text(values[0]["a"]) == "0.1" and to_text(values[0]["c"]) == "0.1"
    assert to_text(values[0]["b"]) == "[0.2, null]"


def test_a_double_rounds_to_the_nearest_float_as_java_does():
    assert to_text(to_float32(0.1 + 0.2)) == "0.3"
    assert to_float32(3.5e38) == float("inf") and to_float32(-3.5e38) == float("-inf")
    assert to_text(to_float32(16777217)) == "1.6777216E7"
