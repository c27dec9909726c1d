"""Fields and elements of a navigated row's arrays of structs, as Spark reads them.

``LAST(B.arr)[0].n`` reads one row, the last B row: Spark subscripts that row's array
only. Moved inside the navigation, Spark would subscript every row's array and fail the
job under ANSI mode on a row with an empty one that the match never reads; matchrec
keeps such a subscript (and the field read around it) in its glue, which reads the one
row. A field of an array of structs (``LAST(B.arr).v``) is the array of the elements'
fields, typed so by the table function too.
"""

from __future__ import annotations

import pytest
from matchrec.runtime.session import session_settings

import matchrec

VIEW = "mr_struct_nav"
ROWS = """SELECT * FROM VALUES
 (1, '{"a": 1}', 'http://a.com/x', array(named_struct('v', 1, 'n', 'p'))),
 (2, '{"a": 2}', 'http://b.com/x',
  array(named_struct('v', 2, 'n', 'q'), named_struct('v', 5, 'n', 'z'))),
 (3, '{}', 'http://c.com/x', CAST(array() AS array<struct<v:int,n:string>>)),
 (4, '{"a": 4}', 'http://d.com/x', array(named_struct('v', 4, 'n', 'r')))
 AS t(o, js, url, arr)"""

#: measure of the one match (A: row 1, B: rows 2-4) -> the row it reads and what of it
MEASURES = {
    "LAST(B.arr)[0].n": (4, "arr[0].n"),
    "element_at(LAST(B.arr), 1).v": (4, "element_at(arr, 1).v"),
    "B.arr[0].n": (4, "arr[0].n"),
    "FIRST(B.arr)[1].v * 10": (2, "arr[1].v * 10"),
    "LAST(B.arr).v": (4, "arr.v"),
    "FIRST(B.arr).n": (2, "arr.n"),
    "size(LAST(B.arr).v)": (4, "size(arr.v)"),
    "get_json_object(PREV(LAST(B.js)), '$.a')": (3, "get_json_object(js, '$.a')"),
    "get_json_object(NEXT(FIRST(B.js)), '$.a')": (3, "get_json_object(js, '$.a')"),
    "parse_url(PREV(LAST(B.url), 2), 'HOST')": (2, "parse_url(url, 'HOST')"),
}


@pytest.fixture(scope="module")
def view(spark):
    spark.sql(ROWS).createOrReplaceTempView(VIEW)
    matchrec.register(spark)
    with session_settings(spark, {"spark.sql.ansi.enabled": "true"}):
        yield spark


def _body(measures: str) -> str:
    return f"ORDER BY o MEASURES {measures} ONE ROW PER MATCH PATTERN (A B+) DEFINE B AS true"


def _through(spark, door: str, view: str, body: str):
    """The clause ``body`` over ``view`` through ``door`` (matchrec.sql, table function)."""
    if door == "matchrec.sql":
        return matchrec.sql(spark, f"SELECT * FROM {view} MATCH_RECOGNIZE ({body})")
    quoted = body.replace("'", "''")
    return spark.sql(f"SELECT * FROM match_recognize(TABLE({view}), '{quoted}')")


@pytest.mark.parametrize("door", ["matchrec.sql", "table function"])
def test_a_navigated_rows_struct_fields_are_sparks(view, door):
    spark = view
    measures = ", ".join(f"{m} AS m{i}" for i, m in enumerate(MEASURES))
    df = _through(spark, door, VIEW, _body(measures))
    rows = df.collect()
    assert len(rows) == 1
    for i, (measure, (o, expr)) in enumerate(MEASURES.items()):
        want = spark.sql(f"SELECT {expr} AS v FROM {VIEW} WHERE o = {o}")
        assert rows[0][f"m{i}"] == want.collect()[0].v, measure
        assert df.schema[f"m{i}"].dataType == want.schema["v"].dataType, measure


def test_define_subscripts_only_the_row_it_reads(view):
    """Row 3's array is empty: subscripting it (Spark's INVALID_ARRAY_INDEX under ANSI
    mode) is not what DEFINE asks for, which reads A's row 1."""
    query = f"""SELECT * FROM {VIEW} MATCH_RECOGNIZE (ORDER BY o MEASURES count(*) AS n
  ONE ROW PER MATCH PATTERN (A B+) DEFINE B AS LAST(A.arr).v[0] = 1 AND FIRST(A.arr)[0].n = 'p')"""
    assert [r.n for r in matchrec.sql(view, query).collect()] == [4]


#: measures over all B rows (2-4) that write structs as text or compare them in sets
#: -> the same over those rows
OVER_THE_MATCH = {
    "CAST(collect_list(B.arr) AS STRING)": "CAST(collect_list(arr) AS STRING)",
    "array_join(transform(collect_list(B.arr), x -> CAST(x AS STRING)), ';')": (
        "array_join(transform(collect_list(arr), x -> CAST(x AS STRING)), ';')"
    ),
    "concat('<', CAST(max_by(B.arr, B.o)[0] AS STRING), '>')": (
        "concat('<', CAST(max_by(arr, o)[0] AS STRING), '>')"
    ),
    "array_distinct(flatten(collect_list(B.arr || B.arr)))": (
        "array_distinct(flatten(collect_list(arr || arr)))"
    ),
    "size(array_union(min_by(B.arr, B.o), max_by(B.arr, B.o)))": (
        "size(array_union(min_by(arr, o), max_by(arr, o)))"
    ),
    "array_position(flatten(collect_list(B.arr)), named_struct('v', 5, 'n', 'z'))": (
        "array_position(flatten(collect_list(arr)), named_struct('v', 5, 'n', 'z'))"
    ),
}


@pytest.mark.parametrize("door", ["matchrec.sql", "table function"])
def test_structs_over_the_match_are_sparks(view, door):
    """A struct read from rows of the match is written ``{4, r}`` as Spark writes it
    (the table function wrote ``{v -> 4, n -> r}``, a map's text) and is one value in
    array_distinct and array_union (the table function failed: unhashable)."""
    spark = view
    measures = ", ".join(f"{m} AS m{i}" for i, m in enumerate(OVER_THE_MATCH))
    df = _through(spark, door, VIEW, _body(measures))
    row = df.collect()[0]
    for i, (measure, expr) in enumerate(OVER_THE_MATCH.items()):
        want = spark.sql(f"SELECT {expr} AS v FROM {VIEW} WHERE o >= 2").collect()[0].v
        assert row[f"m{i}"] == want, measure


CHOSEN = """SELECT * FROM VALUES
 ('o', 0, named_struct('city', 'Paris', 'zip', 75000)),
 ('o', 1, named_struct('city', 'Lyon', 'zip', CAST(NULL AS INT))),
 ('o', 2, CAST(NULL AS STRUCT<city: STRING, zip: INT>)),
 ('o', 3, named_struct('city', 'Lyon', 'zip', 69003)),
 ('o', 4, named_struct('city', 'Paris', 'zip', 75004)) AS t(k, o, addr)"""


@pytest.mark.parametrize("door", ["matchrec.sql", "table function"])
def test_a_field_of_a_struct_chosen_by_coalesce_or_case_is_read(view, door):
    """``coalesce(B.addr, A.addr).zip``, ``if(...).city`` and ``greatest(...).city`` read
    the chosen struct's field in DEFINE and MEASURES, as the same conditions written with
    CASE over the fields do (they were 'cannot evaluate operator DOT')."""
    spark = view
    spark.sql(CHOSEN).createOrReplaceTempView("mr_chosen")

    def body(zip_, city, measures):
        return (
            f"PARTITION BY k ORDER BY o MEASURES {measures} ALL ROWS PER MATCH "
            f"PATTERN (A B*) DEFINE B AS {zip_} > 70000 OR {city} = 'Lyon'"
        )

    chosen = body(
        "coalesce(B.addr, A.addr).zip",
        "if(B.o > 2, B.addr, A.addr).city",
        "coalesce(LAST(B.addr), FIRST(A.addr)).zip AS z, "
        "greatest(LAST(B.addr), FIRST(A.addr)).city AS g",
    )
    spelled = body(
        "CASE WHEN B.addr IS NOT NULL THEN B.addr.zip ELSE A.addr.zip END",
        "CASE WHEN B.o > 2 THEN B.addr.city ELSE A.addr.city END",
        "CASE WHEN LAST(B.addr) IS NOT NULL THEN LAST(B.addr.zip) ELSE FIRST(A.addr.zip) END "
        "AS z, CASE WHEN LAST(B.addr) > FIRST(A.addr) OR FIRST(A.addr) IS NULL "
        "THEN LAST(B.addr.city) ELSE FIRST(A.addr.city) END AS g",
    )
    want = matchrec.sql(spark, f"SELECT * FROM mr_chosen MATCH_RECOGNIZE ({spelled})")
    got = _through(spark, door, "mr_chosen", chosen)
    expected = sorted(tuple(r) for r in want.collect())
    assert len({r[1] for r in expected}) > 2, "some rows should match as B"
    assert sorted(tuple(r) for r in got.collect()) == expected
