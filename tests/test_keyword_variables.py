"""Pattern variables named as SQL statement keywords (DROP, SHOW, MERGE, VALUES, ...)
are read as Spark reads ``t.price`` of a table of that name: sqlglot read ``DROP.price``
as the start of a command (a column of rewritten measures "cannot be resolved",
"Cannot resolve routine PREV", or its own token text)."""

from __future__ import annotations

import pytest
from doors import DOORS, rows_through

import matchrec

WORDS = ["DROP", "Show", "MERGE", "values", "EXPLAIN", "execute", "DELETE", "SET"]

BODY = """PARTITION BY g ORDER BY id
  MEASURES {0}.id AS first_id, LAST({1}.price) AS low, count({2}.*) AS falls,
           FIRST({3}.price) AS start, CLASSIFIER() AS last_label
  ALL ROWS PER MATCH AFTER MATCH SKIP PAST LAST ROW
  PATTERN ({0} {1}+ {2}* {3}? {4}{{2}} {5}? {6}?? {7}?)
  DEFINE {1} AS {1}.price < PREV({1}.price),
         {2} AS {2}.price < PREV({2}.price) AND {0}.price > 0,
         {3} AS {3}.price >= FIRST({0}.price) OR {1}.price IS NULL,
         {4} AS {4}.price > 0 AND count({2}.*) >= 0,
         {5} AS {5}.price > LAST({4}.price, 1),
         {6} AS PREV({6}.price) IS NOT NULL,
         {7} AS NEXT({7}.price) IS NULL"""


@pytest.fixture(scope="module")
def prices(spark):
    spark.sql(
        """CREATE OR REPLACE TEMP VIEW kw_prices AS SELECT * FROM VALUES
        ('a', 1, 10.0), ('a', 2, 9.0), ('a', 3, 8.0), ('a', 4, 11.0), ('a', 5, 12.0),
        ('a', 6, 13.0), ('a', 7, 14.0), ('a', 8, 15.0), ('b', 1, 5.0), ('b', 2, 4.0),
        ('b', 3, 6.0), ('b', 4, 7.0), ('b', 5, 8.0), ('b', 6, 2.0) AS t(g, id, price)"""
    )
    matchrec.register(spark)
    return "kw_prices"


@pytest.mark.parametrize("door", DOORS)
def test_statement_keywords_name_pattern_variables(spark, prices, door):
    plain = [f"V{i}" for i in range(len(WORDS))]
    want = rows_through(spark, door, prices, BODY.format(*plain))
    renamed = {v: w.upper() for v, w in zip(plain, WORDS)}
    assert want and any(r[-1] != "V0" for r in want)
    got = rows_through(spark, door, prices, BODY.format(*WORDS))
    assert got == [tuple(renamed.get(x, x) for x in r) for r in want]
