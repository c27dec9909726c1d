"""``planner.json_functions`` gives Spark's answers.

``get_json_object``, ``json_array_length`` and ``json_object_keys`` of values read at
several rows of a match run in Python (DEFINE's glue, the table function's MEASURES).
Each is compared with Spark SQL on the same generated inputs (``tests/json_cases.py``:
edge cases and seeded random texts and paths, valid and malformed), all in one query.
Then the functions run through a query's DEFINE and MEASURES.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import json_cases
from matchrec.planner.json_functions import get_json_object, json_array_length, json_object_keys

import matchrec

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

SEED = 20261130
RANDOM_CASES = 1500


def _cases() -> list[tuple[str, str]]:
    """Edge cases Spark answers on one JVM stack, then the seeded random ones."""
    edges = [
        (text, path)
        for text, path in json_cases.edge_cases()
        if len(text) < 20_000 and text.count("[") < 200 and text.count("{") < 200
    ]
    return edges + json_cases.random_cases(RANDOM_CASES, SEED)


def test_json_functions_equal_spark(spark: SparkSession):
    cases = _cases()
    df = spark.createDataFrame(
        [(i, text, path) for i, (text, path) in enumerate(cases)], "i INT, j STRING, p STRING"
    )
    got = df.selectExpr(
        "i", "get_json_object(j, p) AS g", "json_array_length(j) AS n", "json_object_keys(j) AS k"
    ).collect()
    differ = []
    for row in got:
        text, path = cases[row.i]
        mine = (get_json_object(text, path), json_array_length(text), json_object_keys(text))
        theirs = (row.g, row.n, row.k)
        if mine != theirs:
            differ.append((text[:80], path, mine, theirs))
    assert len(got) == len(cases)
    assert not differ, f"{len(differ)} of {len(cases)} differ from Spark, e.g. {differ[:3]}"


QUERY = """SELECT * FROM VALUES
  (1, '{{"a": 1, "b": [1, 2.50, {{"c": "x"}}]}}', 'x'),
  (2, '{{"a": 2, "b": []}}', 'b'),
  (3, 'not json', '[1]')
  AS t(o, js, k)
MATCH_RECOGNIZE (
  ORDER BY o
  MEASURES {measures}
  ONE ROW PER MATCH
  PATTERN (A B C)
  DEFINE {define}
)"""


def test_json_functions_of_several_rows_in_define_and_measures(spark: SparkSession):
    """The JSON text and the path come from different rows: only the glue computes them."""
    measures = (
        "get_json_object(FIRST(A.js), concat('$.', LAST(B.k))) AS g, "
        "json_array_length(concat('[', FIRST(A.o), ',', LAST(C.o), ']')) AS n, "
        "json_object_keys(concat(LAST(C.k), FIRST(A.js))) AS bad_keys, "
        # paths of one row, computed by Spark as written ('a' was written back as '$.a')
        "get_json_object(FIRST(A.js), 'a') AS no_root, "
        "get_json_object(FIRST(A.js), '$.*') AS star"
    )
    define = (
        "B AS get_json_object(A.js, concat('$.', B.k, '[2].c')) = 'x', "
        "C AS json_array_length(concat(C.k, get_json_object(A.js, '$.b'))) = 1"
    )
    query = QUERY.format(measures=measures, define=define)
    rows = matchrec.sql(spark, query).collect()
    want = spark.sql(
        """SELECT get_json_object('{"a": 1, "b": [1, 2.50, {"c": "x"}]}', '$.b') AS g,
                  json_array_length('[1,3]') AS n,
                  json_object_keys('[1]{"a": 1}') AS bad_keys,
                  get_json_object('{"a": 1}', 'a') AS no_root,
                  get_json_object('{"a": 1}', '$.*') AS star"""
    ).collect()
    assert [r.asDict() for r in rows] == [r.asDict() for r in want]


def test_to_json_of_a_variant_is_its_text_in_every_door(spark: SparkSession):
    """``to_json(parse_json(B.v))`` in MEASURES: Spark's JSON text, a STRING (matchrec.sql
    wrote the measure back to Spark as ``parse_json(...)`` alone: a VARIANT)."""
    view = "(SELECT * FROM VALUES (1, '{\"a\":1}'), (2, '[1, 2]') AS t(id, v))"
    measure = "to_json(parse_json(B.v))"
    body = f"ORDER BY id MEASURES {measure} AS m PATTERN (A B) DEFINE B AS true"
    expected = spark.sql(
        f"SELECT {measure} AS m FROM {view} A JOIN {view} B ON B.id = A.id + 1"
    ).collect()
    matchrec.register(spark)
    literal = "'" + body.replace("'", "''") + "'"
    frames = [
        matchrec.sql(spark, f"SELECT m FROM {view} MATCH_RECOGNIZE ({body})"),
        spark.sql(f"SELECT m FROM match_recognize(TABLE{view}, {literal})"),
    ]
    for frame in frames:
        assert frame.schema.simpleString() == "struct<m:string>"
        assert frame.collect() == expected == [("[1,2]",)]
