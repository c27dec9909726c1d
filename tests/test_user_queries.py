"""Queries a Spark user writes around and across the clause: input relations, key
types, session settings. Each answer is compared with what Spark computes by itself
(GROUP BY, window functions) through every door the query fits, never with our output.
"""

from __future__ import annotations

import pyarrow as pa
import pytest

import matchrec
from matchrec.arrow_rows import group_starts
from matchrec.errors import SemanticError


def _literal(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "''") + "'"


def _doors(spark, view: str, body: str) -> dict[str, list[tuple]]:
    """Sorted rows (by repr, NaN included) of ``body`` over ``view`` from each door."""
    matchrec.register(spark)
    frames = {
        "sql": matchrec.sql(spark, f"SELECT * FROM {view} MATCH_RECOGNIZE ({body})"),
        "df": matchrec.match_recognize(spark.table(view), body),
        "udtf": spark.sql(f"SELECT * FROM match_recognize(TABLE({view}), {_literal(body)})"),
    }
    return {d: _rows(df) for d, df in frames.items()}


def _rows(df) -> list[tuple]:
    return sorted((tuple(r) for r in df.collect()), key=repr)


@pytest.fixture(scope="module")
def keys(spark):
    """Rows whose keys Spark groups although Python's ``==`` would not: NaN with NaN,
    -0.0 with 0.0, arrays and structs by value."""
    spark.sql(
        """CREATE OR REPLACE TEMP VIEW mr_keys AS SELECT * FROM VALUES
        (1, -0.0D, CAST('NaN' AS FLOAT), array(1, 2), named_struct('a', 1, 'b', 'x')),
        (2, double('NaN'), CAST('NaN' AS FLOAT), array(1, 2), named_struct('a', 1, 'b', 'x')),
        (3, CAST('NaN' AS DOUBLE), CAST(1 AS FLOAT), array(), named_struct('a', 2, 'b', NULL)),
        (4, 0.0D, CAST('NaN' AS FLOAT), array(NULL), named_struct('a', 2, 'b', NULL)),
        (5, CAST('NaN' AS DOUBLE), CAST(1 AS FLOAT), NULL, NULL),
        (6, 1.0D, CAST(-0.0 AS FLOAT), array(), NULL),
        (7, -0.0D, CAST(0.0 AS FLOAT), array(1, 2), named_struct('a', 1, 'b', 'x'))
        AS t(id, d, f, arr, st)"""
    )
    return "mr_keys"


@pytest.mark.parametrize("key", ["d", "f", "arr", "st", "d, arr", "f, st"])
def test_partition_keys_group_as_spark_groups_them(spark, keys, key):
    # one match per partition, all its rows: the partitions are Spark's groups
    body = f"""PARTITION BY {key} ORDER BY id
        MEASURES count(*) AS n, collect_list(id) AS ids
        PATTERN (A+) DEFINE A AS true"""
    expected = _rows(
        spark.sql(
            f"SELECT count(*) AS n, array_sort(collect_list(id)) AS ids FROM {keys} GROUP BY {key}"
        )
    )
    for door, rows in _doors(spark, keys, body).items():
        # the key columns as the rows hold them (-0.0 or 0.0) aside: the groups
        assert sorted(r[-2:] for r in rows) == sorted(expected), door


def test_prev_across_nan_keys_reads_the_same_partition(spark, keys):
    # PREV reads Spark's window of the partition, so the matcher must see the same one:
    # rows 2, 3 and 5 are one partition (NaN), rows 1, 4 and 7 another (0.0)
    body = """PARTITION BY d ORDER BY id
        MEASURES FIRST(id) AS first_id, count(*) AS n
        PATTERN (A B+) DEFINE B AS id > PREV(id)"""
    for door, rows in _doors(spark, keys, body).items():
        assert sorted(r[-2:] for r in rows) == [(1, 3), (2, 3)], door


def test_group_starts_compares_keys_as_spark():
    table = pa.table(
        {
            "d": [float("nan"), float("nan"), -0.0, 0.0, None, None, 1.0],
            "arr": [[1], [1], [], [], None, None, [None]],
            "st": [{"a": 1}, {"a": 1}, {"a": 2}, {"a": 2}, None, None, {"a": None}],
        }
    )
    for key in ("d", "arr", "st"):
        assert group_starts(table, [key]) == [2, 4, 6], key


def test_partition_by_a_map_is_a_positioned_error(spark, keys):
    spark.sql(f"CREATE OR REPLACE TEMP VIEW mr_map_keys AS SELECT id, map('k', id) m FROM {keys}")
    for clause in ("PARTITION BY m ORDER BY id", "PARTITION BY id ORDER BY m"):
        query = f"""SELECT * FROM mr_map_keys MATCH_RECOGNIZE (
            {clause} MEASURES count(*) AS n PATTERN (A) DEFINE A AS true)"""
        with pytest.raises(SemanticError) as info:
            matchrec.sql(spark, query)
        text = str(info.value)
        assert "column 'm' is MAP<STRING,INT>, which Spark cannot compare or sort" in text
        assert info.value.line == 2 and "^" in text and "__mr" not in text


@pytest.fixture(scope="module")
def uneven(spark):
    """Rows 1 and 2 match ``A B``; row 3, never read by a measure, would fail each
    computation under ANSI mode (an empty array, a malformed number, a zero divisor)."""
    spark.sql(
        """CREATE OR REPLACE TEMP VIEW mr_uneven AS SELECT * FROM VALUES
        (1, array(1, 2), '5', 1, 'a'), (2, array(7), '6', 2, NULL), (3, array(), 'x', 0, 'c')
        AS t(id, arr, n, z, s)"""
    )
    return "mr_uneven"


def test_measure_computes_a_navigated_value_from_the_rows_it_reads(spark, uneven):
    # FIRST(f(x)) is f at the match's first row only: Spark must not compute f on row 3
    body = """ORDER BY id
        MEASURES FIRST(arr[0]) AS a, FIRST(CAST(n AS INT)) AS c, LAST(id / z) AS d,
                 LAST(coalesce(s, 'none')) AS e, PREV(FIRST(coalesce(s, 'none')), 3) AS p
        PATTERN (A B) DEFINE B AS id > PREV(id)"""
    expected = _rows(
        spark.sql(
            f"""SELECT f.arr[0] AS a, CAST(f.n AS INT) AS c, l.id / l.z AS d,
                coalesce(l.s, 'none') AS e, CAST(NULL AS STRING) AS p
            FROM {uneven} f JOIN {uneven} l ON f.id = 1 AND l.id = 2"""
        )
    )
    assert expected == [(1, 5, 1.0, "none", None)]  # the guard: p has no row, so NULL
    for door, rows in _doors(spark, uneven, body).items():
        assert rows == expected, door


def test_measure_of_an_unmatched_row_reads_nothing(spark, uneven):
    # WITH UNMATCHED ROWS: row 3 is output, its measure is NULL and is not computed
    body = """ORDER BY id MEASURES FIRST(arr[0] * 10) AS a
        ALL ROWS PER MATCH WITH UNMATCHED ROWS PATTERN (A) DEFINE A AS size(arr) > 0"""
    rows = _rows(matchrec.sql(spark, f"SELECT id, a FROM {uneven} MATCH_RECOGNIZE ({body})"))
    assert rows == [(1, 10), (2, 70), (3, None)]
