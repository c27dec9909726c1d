"""Integer arithmetic in DEFINE's match-dependent glue keeps Spark's widths: TINYINT,
SMALLINT, INT and BIGINT results wrap around without ANSI mode and fail with a positioned
error under it, as Spark's own arithmetic does (Python's integers have no width)."""

from __future__ import annotations

import itertools

import pytest
from doors import DOORS, pair_clause

import matchrec
from matchrec.carried import rebuild
from matchrec.errors import MatchRuntimeError
from matchrec.excepthook import carried_error
from matchrec.integer_width import IntegerWidth

COLUMNS = {
    "t": ("TINYINT", [0, 1, -1, 127, -128, 100]),
    "s": ("SMALLINT", [0, 1, -1, 32767, -32768, 200]),
    "i": ("INT", [0, 1, -1, 2147483647, -2147483648, 46341, -65536]),
    "b": ("BIGINT", [0, 1, -1, 9223372036854775807, -9223372036854775808, 3037000500, 1 << 32]),
}
SIZE = max(len(values) for _, values in COLUMNS.values())

CALLS = [
    "N.t + S.t",
    "N.s * S.s",
    "N.i + S.i",
    "N.i - S.i",
    "N.i * S.i",
    "-(N.i + S.i)",
    "abs(N.i - S.i)",
    "N.b + S.b",
    "N.b * S.b",
    "N.b - S.b",
    "N.i * S.b",  # INT times BIGINT is BIGINT: no INT overflow
    "N.i + S.i + 1",
    "(N.i + S.i) / 2",  # the sum overflows before the division
]


def _pairs_sql() -> str:
    """Two-row partitions of every pair of values: part k has S = k // SIZE, N = k % SIZE."""
    rows = []
    for k in range(SIZE * SIZE):
        for row_id, index in ((1, k // SIZE), (2, k % SIZE)):
            cells = ", ".join(
                f"CAST({values[index % len(values)]} AS {kind})"
                for kind, values in COLUMNS.values()
            )
            rows.append(f"({k}, {row_id}, {cells})")
    return f"SELECT * FROM VALUES {', '.join(rows)} AS p(part, id, {', '.join(COLUMNS)})"


def _query(call: str, test: str, want: bool = True) -> str:
    """The pairs matched by ``^S N`` with ``DEFINE N AS test``; ``want``: with a column
    ``want``, Spark's value of ``call`` over the two rows."""
    spark_value = call.replace("N.", "")
    for c in COLUMNS:
        first = f"first_value({c}) OVER (PARTITION BY part ORDER BY id)"
        spark_value = spark_value.replace(f"S.{c}", first)
    extra = f", {spark_value} AS want" if want else ""
    return f"""SELECT part FROM (SELECT *{extra} FROM ({_pairs_sql()}))
    MATCH_RECOGNIZE (
      PARTITION BY part ORDER BY id
      MEASURES count(*) AS k
      PATTERN (^S N)
      DEFINE N AS {test.format(call=call)}
    )"""


# ``<=>`` is evaluated by the scalar glue, ``=`` also by the array form of the searches
@pytest.mark.parametrize("test", ["{call} <=> want", "{call} = want"])
@pytest.mark.parametrize("call", CALLS)
def test_without_ansi_integer_results_wrap_around_as_in_spark(spark, ansi_off, call, test):
    got = {r.part for r in matchrec.sql(spark, _query(call, test)).collect()}
    missing = sorted(set(range(SIZE * SIZE)) - got)
    assert not missing, f"{call}: {len(missing)} pairs differ from Spark, e.g. {missing[:5]}"


@pytest.mark.parametrize(
    ("call", "shown"),
    [("N.i + S.i", "INT"), ("N.b * S.b", "BIGINT"), ("N.t + S.t", "TINYINT")],
)
def test_under_ansi_an_integer_overflow_is_a_positioned_error(spark, call, shown):
    """Spark's default (ANSI) raises ARITHMETIC_OVERFLOW: so does DEFINE, with the
    operator's expression, its type and a caret under it."""
    query = _query(call, "{call} > 0 OR {call} <= 0", want=False)
    with pytest.raises(Exception) as info:
        matchrec.sql(spark, query).collect()
    err = rebuild(carried_error(info.value) or "", query)
    assert isinstance(err, MatchRuntimeError), info.value
    assert "integer overflow" in err.message and shown in err.message
    assert "ARITHMETIC_OVERFLOW" in err.message
    assert err.sql[err.pos :].startswith(call)


def test_under_ansi_results_that_fit_are_not_errors(spark):
    query = _query("CAST(N.i AS BIGINT) + S.i", "{call} <=> want")
    assert len(matchrec.sql(spark, query).collect()) == SIZE * SIZE


@pytest.mark.parametrize(
    ("bits", "value", "want"),
    [
        (32, 2**31, -(2**31)),
        (32, -(2**31) - 1, 2**31 - 1),
        (8, 200, -56),
        (64, 2**64 + 5, 5),
        (16, 32767, 32767),
    ],
)
def test_a_width_wraps_what_does_not_fit(bits, value, want):
    width = IntegerWidth("x", "x", "x", 0, ansi=False, bits=bits)
    assert width.fit(value) == want
    assert width.fit(None) is None and width.fit(1.5e300) == 1.5e300


def test_values_of_other_types_and_unknown_widths_are_left_alone():
    for bits, value in itertools.product([None, 32], [True, 2.5, None]):
        width = IntegerWidth("x", "x", "x", 0, ansi=True, bits=bits)
        assert width.fit(value) is value
    assert IntegerWidth("x", "x", "x", 0, ansi=True).fit(2**80) == 2**80


def test_the_table_function_keeps_spark_widths_too(spark):
    """The table function types the operators itself (it has no DataFrame to ask)."""
    matchrec.register(spark)
    spark.sql(_pairs_sql()).createOrReplaceTempView("overflow_pairs")
    body = "PARTITION BY part ORDER BY id MEASURES count(*) AS k PATTERN (^S N) "
    fits = body + "DEFINE N AS CAST(N.i AS BIGINT) + S.i > 0 OR CAST(N.i AS BIGINT) + S.i <= 0"
    rows = spark.sql(f"SELECT * FROM match_recognize(TABLE(overflow_pairs), '{fits}')")
    assert rows.count() == SIZE * SIZE
    overflows = body + "DEFINE N AS N.i + S.i > 0 OR N.i + S.i <= 0"
    query = f"SELECT * FROM match_recognize(TABLE(overflow_pairs), '{overflows}')"
    with pytest.raises(Exception) as info:
        spark.sql(query).collect()
    assert "integer overflow" in str(info.value) and "ARITHMETIC_OVERFLOW" in str(info.value)


@pytest.fixture(scope="module")
def extreme_pair(spark) -> str:
    """Two rows whose differences and products overflow each integer type."""
    spark.sql(
        """CREATE OR REPLACE TEMP VIEW overflow_extremes AS SELECT * FROM VALUES
        (1, CAST(-100 AS TINYINT), CAST(-30000 AS SMALLINT), -2147483647, -(1L << 62)),
        (2, CAST(100 AS TINYINT), CAST(30000 AS SMALLINT), 2147483647, 1L << 62)
        AS v(id, t, s, i, b)"""
    )
    matchrec.register(spark)
    return "overflow_extremes"


def _condition(error: BaseException, query: str) -> str | None:
    """The error condition a user's code reads: Spark's, or matchrec's name of it."""
    if hasattr(error, "getCondition"):
        return error.getCondition()
    if not isinstance(error, MatchRuntimeError):
        error = rebuild(carried_error(error) or "", query)
    return error.spark_condition


@pytest.mark.parametrize("place", ["DEFINE", "MEASURES"])
@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize(
    "call", ["B.t - A.t", "B.t * A.t", "B.s - A.s", "B.s * A.s", "B.i - A.i", "B.b * A.b"]
)
def test_under_ansi_an_overflow_is_spark_s_condition(spark, extreme_pair, place, door, call):
    """A TINYINT or SMALLINT ``+``/``-``/``*`` is Spark's BINARY_ARITHMETIC_OVERFLOW, an
    INT or BIGINT one its ARITHMETIC_OVERFLOW, in every door (DEFINE's glue and the table
    function's MEASURES said ARITHMETIC_OVERFLOW for all)."""
    joined = call.replace("A.", "a.").replace("B.", "b.")
    with pytest.raises(Exception) as spark_error:
        spark.sql(
            f"SELECT {joined} FROM {extreme_pair} a JOIN {extreme_pair} b ON b.id = a.id + 1"
        ).collect()
    want = spark_error.value.getCondition()
    if place == "DEFINE":
        body = pair_clause(f"{call} <> 0")
    else:
        body = pair_clause("true", f"{call} AS m")
    query = (
        f"SELECT * FROM {extreme_pair} MATCH_RECOGNIZE ({body})"
        if door == "matchrec.sql"
        else f"SELECT * FROM match_recognize(TABLE({extreme_pair}), '{body}')"
    )
    run = matchrec.sql if door == "matchrec.sql" else lambda s, q: s.sql(q)
    with pytest.raises(Exception) as info:
        run(spark, query).collect()
    assert _condition(info.value, query) == want
