"""Constant arguments of aggregates that Spark's analyser refuses (a percentage outside
[0, 1] or NULL, a NULL accuracy, a fractional or negative frequency, mode's DISTINCT or
non-BOOLEAN flag, approx_count_distinct's relative error): refused when the query is
built, at the call, in MEASURES and DEFINE of both doors. The table function computed
them, and a percentage above 1 in DEFINE failed its worker with an IndexError."""

from __future__ import annotations

import pytest
from doors import refusals
from thorough import in_turn

VIEW = "mr_aggregate_args"

#: each aggregate as Spark's GROUP BY refuses it (v over the group) and as DEFINE reads it
AGGREGATES = [
    "percentile_cont(-0.1) WITHIN GROUP (ORDER BY {v})",
    "percentile_cont(1.5) WITHIN GROUP (ORDER BY {v})",
    "percentile_disc(NULL) WITHIN GROUP (ORDER BY {v})",
    "percentile_cont(array(0.1, 1.5)) WITHIN GROUP (ORDER BY {v})",
    "percentile({v}, NULL)",
    "percentile({v}, 0.5, 1.5)",
    "percentile({v}, 0.5, -1)",
    "approx_percentile({v}, NULL)",
    "approx_percentile({v}, 0.5, NULL)",
    "mode(DISTINCT {v})",
    "mode({v}, 'x')",
    "mode({v}, NULL)",
    "mode({v}, {b})",
    "approx_count_distinct({v}, 0.5)",
    "approx_count_distinct({v}, 0)",
]


@pytest.fixture(scope="module")
def groups(spark):
    spark.sql(
        f"CREATE OR REPLACE TEMP VIEW {VIEW} AS SELECT * FROM VALUES (1, 1, 3, true), "
        "(1, 2, 1, false), (1, 3, 3, true), (2, 4, 9, true) AS t(g, id, v, b)"
    )


@pytest.mark.parametrize(("aggregate", "place"), in_turn(AGGREGATES, ["MEASURES", "DEFINE"]))
def test_an_aggregate_spark_refuses_is_refused_at_the_call(spark, groups, aggregate, place):
    with pytest.raises(Exception):  # noqa: B017 - any refusal of Spark's analyser or job
        spark.sql(f"SELECT g, {aggregate.format(v='v', b='b')} FROM {VIEW} GROUP BY g").collect()
    call = aggregate.format(v="A.v", b="A.b")
    if place == "MEASURES":
        body = f"PARTITION BY g ORDER BY id MEASURES {call} AS m PATTERN (A+) DEFINE A AS true"
    else:
        body = (
            "PARTITION BY g ORDER BY id MEASURES count(*) AS n PATTERN (A+) "
            f"DEFINE A AS {call} IS NOT NULL"
        )
    query, by_sql, by_function = refusals(spark, f"({VIEW})", body)
    name = call.split("(")[0]
    for err, text in ((by_sql, query), (by_function, body)):
        assert err.message.startswith(f"Spark rejects {name}("), err
        assert err.pos is not None
        assert text[err.pos :].startswith(name), (err, text[err.pos :])
