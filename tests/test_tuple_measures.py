"""A tuple ``(a, b)`` in MEASURES or DEFINE is Spark's ``struct(a, b)``: its fields are
named as Spark names them, a column by its name and anything else ``colN``. The fields
were named after the planner's columns (``A.vol``, ``FIRST(A.vol)``, once ``LAST(B.t)
#2``)."""

from __future__ import annotations

import pytest
from doors import DOORS, pair_clause

import matchrec

MEASURES = (
    "(A.id, 1) AS v, (A.id + B.id, B.value) AS w, (B.value, (A.id, B.tag)) AS n, "
    "struct(A.id, B.value) AS s"
)


@pytest.fixture(scope="module")
def view(spark):
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW mr_tuples AS SELECT * FROM VALUES "
        "(1, 2.5D, 'x'), (2, 3.5D, 'y'), (3, -1.0D, 'z') AS t(id, value, tag)"
    )
    matchrec.register(spark)
    return "mr_tuples"


@pytest.mark.parametrize("door", DOORS)
def test_a_tuple_measure_is_sparks_struct(spark, view, door):
    spark_answer = spark.sql(
        f"SELECT {MEASURES} FROM {view} A JOIN {view} B ON B.id = A.id + 1 "
        "WHERE (B.value, B.tag) <> (0.0D, 'q')"
    )
    body = pair_clause("(B.value, B.tag) <> (0.0D, 'q')", MEASURES)
    if door == "matchrec.sql":
        ours = matchrec.sql(spark, f"SELECT * FROM {view} MATCH_RECOGNIZE ({body})")
    else:
        quoted = body.replace("'", "''")
        ours = spark.sql(f"SELECT * FROM match_recognize(TABLE({view}), '{quoted}')")
    assert ours.schema.simpleString() == spark_answer.schema.simpleString()
    assert sorted(map(repr, ours.collect())) == sorted(map(repr, spark_answer.collect()))
