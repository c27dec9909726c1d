"""What works in ``spark.sql`` works inside the clause, with the same answer, through all
three doors (``matchrec.sql``, ``matchrec.match_recognize``, the table function), and
what Spark rejects is a positioned matchrec error. Expected rows are worked out by hand
from the tiny tables below (or computed by plain Spark SQL), never taken from our output.
"""

from __future__ import annotations

import random

import pytest
from pyspark.errors import AnalysisException, ArithmeticException
from spark_windows import running_and_window

import matchrec
from matchrec.errors import MatchRecognizeError, MatchRuntimeError, SemanticError, UnsupportedError

EVENTS = """
('x', 1, 1, 9, 'NO', false), ('x', 2, 2, 5, 'NO', false), ('x', 3, 5, 7, NULL, false),
('x', 4, 7, 0, 'SE', true), ('x', 5, 3, 0, 'SE', false),
('y', 1, 4, 1, 'US', false), ('y', 2, 8, 2, 'US', true)
"""


@pytest.fixture(scope="module")
def events(spark):
    spark.sql(
        f"CREATE OR REPLACE TEMP VIEW mr_parity AS SELECT * FROM VALUES {EVENTS} "
        "AS t(k, o, v, w, country, ok)"
    )
    matchrec.register(spark)
    return spark.table("mr_parity")


def _literal(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "''") + "'"


def _doors(spark, body: str, view: str = "mr_parity") -> dict[str, list[tuple]]:
    """Sorted rows of ``body`` over ``view`` from each door (their types agree)."""
    frames = {
        "sql": matchrec.sql(spark, f"SELECT * FROM {view} MATCH_RECOGNIZE ({body})"),
        "df": matchrec.match_recognize(spark.table(view), body),
        "udtf": spark.sql(f"SELECT * FROM match_recognize(TABLE({view}), {_literal(body)})"),
    }
    types = {d: [(f.name, f.dataType) for f in df.schema.fields] for d, df in frames.items()}
    assert types["sql"] == types["df"] == types["udtf"]
    return {d: sorted(tuple(r) for r in df.collect()) for d, df in frames.items()}


def test_in_list_mixing_another_variable_and_prev(spark, events):
    # B: v equals A's v + 1 or the previous row's w. x: A=1 (v 1); o=2: 2 in (2, 9);
    # o=3: 5 in (2, 5) through PREV; o=4: 7 in (2, 7); o=5: 3 in (2, 0) no. y: 8 in (5, 1) no
    body = """PARTITION BY k ORDER BY o
        MEASURES count(*) AS n, LAST(o) AS last_o
        PATTERN (A B+) DEFINE B AS v IN (A.v + 1, PREV(w))"""
    for door, rows in _doors(spark, body).items():
        assert rows == [("x", 4, 4)], door


def test_navigation_alone_inside_glue(spark, events):
    # a bare PREV(w) as an argument of a function of another variable's value
    body = """PARTITION BY k ORDER BY o
        MEASURES count(*) AS n
        PATTERN (A B+) DEFINE B AS greatest(A.v, PREV(w)) >= v"""
    # x: A=1; o=2: max(1, 9) >= 2; o=3: max(1, 5) >= 5; o=4: max(1, 7) >= 7;
    # o=5: max(1, 0) >= 3 no -> 4 rows. y: A=1; o=2: max(4, 1) >= 8 no
    for door, rows in _doors(spark, body).items():
        assert rows == [("x", 4)], door


def test_count_of_a_variable_with_filter(spark, events):
    # F rows whose country is known; S needs one F row outside NO
    body = """PARTITION BY k ORDER BY o
        MEASURES count(F.*) FILTER (WHERE country IS NOT NULL) AS known,
                 count(*) FILTER (WHERE NOT ok) AS fails, count(F.*) AS nf
        PATTERN (F+ S) DEFINE F AS NOT ok,
                 S AS ok AND count(F.*) FILTER (WHERE country <> 'NO') >= 1"""
    # x: F = o 1..3 (NO, NO, NULL): no F outside NO -> no match; y: F = o 1 (US), S = o 2
    for door, rows in _doors(spark, body).items():
        assert rows == [("y", 1, 1, 1)], door
    body = body.replace("country <> 'NO'", "country IS NULL OR country = 'NO'")
    # x: F = o 1..3, two of them with a country; S = o 4
    for door, rows in _doors(spark, body).items():
        assert rows == [("x", 2, 3, 3)], door


@pytest.mark.parametrize("condition", ["v", "country", "v + 1", "A.v", "first(v, true)"])
def test_define_condition_must_be_boolean(spark, events, condition):
    body = f"""PARTITION BY k ORDER BY o
        MEASURES count(*) AS n
        PATTERN (A B) DEFINE B AS {condition}"""
    query = f"SELECT * FROM mr_parity MATCH_RECOGNIZE ({body})"
    with pytest.raises(AnalysisException):  # what Spark says of such a WHERE
        spark.sql(f"SELECT * FROM mr_parity WHERE {condition.replace('A.', '')}").collect()
    for run in (
        lambda: matchrec.sql(spark, query),
        lambda: matchrec.match_recognize(spark.table("mr_parity"), body),
    ):
        with pytest.raises(SemanticError) as info:
            run()
        err = info.value
        assert "the condition of DEFINE B must be BOOLEAN" in str(err)
        assert "Expression defining a label must be boolean (actual type: " in str(err)
        assert err.line == 3 and "^" in str(err) and "__mr" not in str(err)
        assert f"({condition})" in err.message  # as written (a rewrite is never shown)
        assert err.pos == err.sql.index(condition, err.sql.index("DEFINE"))
    with pytest.raises(AnalysisException) as info:
        spark.sql(f"SELECT * FROM match_recognize(TABLE(mr_parity), {_literal(body)})")
    assert "the condition of DEFINE B must be BOOLEAN" in str(info.value)


def test_spark_error_while_a_measure_runs_is_ours_at_the_users_expression(spark, events):
    # Spark fails the job (as it would for the same expression in a SELECT); the error is
    # a run-time error of ours at the measure as written, Spark's message whole, and
    # still Spark's class and condition
    query = """SELECT * FROM mr_parity MATCH_RECOGNIZE (PARTITION BY k ORDER BY o
        MEASURES LAST(v) / (FIRST(o) - 1) AS r
        PATTERN (A B) DEFINE B AS true)"""
    with pytest.raises(ArithmeticException) as info:
        matchrec.sql(spark, query).collect()
    err = info.value
    assert isinstance(err, MatchRuntimeError) and err.getCondition() == "DIVIDE_BY_ZERO"
    assert err.message.startswith("[DIVIDE_BY_ZERO] Division by zero. Use `try_divide`")
    assert err.sql == query and err.pos == query.index("LAST(v) /")
    assert str(err).startswith("runtime error: [DIVIDE_BY_ZERO]") and "__mr" not in str(err)


def test_spark_error_while_a_define_condition_runs_is_ours_at_the_users_expression(spark, events):
    body = """PARTITION BY k ORDER BY o
        MEASURES count(*) AS n
        PATTERN (A B) DEFINE B AS CAST(country AS INT) > 0"""
    with pytest.raises(MatchRuntimeError) as info:
        matchrec.match_recognize(spark.table("mr_parity"), body).collect()
    err = info.value
    assert err.getCondition() == "CAST_INVALID_INPUT" and "__mr" not in str(err)
    assert body in err.sql and err.pos == err.sql.index("CAST(country")


def test_the_same_measure_in_two_queries_fails_each_at_its_own_place(spark, events):
    """Two clauses with the same measure at different places, both built before either
    runs: each one's error has the caret in its own query."""
    measure = "LAST(v) / (FIRST(o) - 1) AS r"
    first = f"""SELECT * FROM mr_parity MATCH_RECOGNIZE (PARTITION BY k ORDER BY o
        MEASURES {measure} PATTERN (A B) DEFINE B AS true)"""
    second = first.replace("MEASURES", "MEASURES count(*) AS n,")
    frames = {query: matchrec.sql(spark, query) for query in (first, second)}
    for query in (second, first):
        with pytest.raises(MatchRuntimeError) as info:
            frames[query].collect()
        assert info.value.sql == query and info.value.pos == query.index(measure)


def test_spark_analysis_error_in_a_measure_names_the_users_values(spark, events):
    # date_add takes an INT; count(*) is a BIGINT: Spark's own error, with a caret
    query = """SELECT * FROM mr_parity MATCH_RECOGNIZE (PARTITION BY k ORDER BY o
        MEASURES date_add(DATE'2024-01-01', count(*)) AS d
        PATTERN (A B) DEFINE B AS true)"""
    with pytest.raises(AnalysisException):
        spark.sql("SELECT date_add(DATE'2024-01-01', count(*)) FROM mr_parity").collect()
    with pytest.raises(SemanticError) as info:
        matchrec.sql(spark, query)
    text = str(info.value)
    assert "count(*)" in text and "__mr" not in text
    assert info.value.line == 2 and "^" in text


def _whole_partition(spark, measures: str) -> dict[str, list[tuple]]:
    """Each door's rows of one match per partition (all its rows) with ``measures``."""
    body = f"""PARTITION BY k ORDER BY o MEASURES {measures}
        PATTERN (A+) DEFINE A AS true"""
    return _doors(spark, body)


def test_null_skipping_first_and_last_values_are_sparks(spark, events):
    # Spark's first_value(x, true) / last_value(x) IGNORE NULLS / first(x, true) over the
    # partition's rows in order, computed by Spark's own window functions
    expected = sorted(
        tuple(r)
        for r in spark.sql(
            """SELECT DISTINCT k, first_value(country, true) OVER w, last_value(country, true)
                   OVER w, first_value(country, true) OVER w, first(country, true) OVER w,
                   last(country, true) OVER w,
                   last_value(CASE WHEN o < 5 THEN country END, true) OVER w,
                   last_value(country) OVER w, first(country, false) OVER w
               FROM mr_parity
               WINDOW w AS (PARTITION BY k ORDER BY o
                            ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)"""
        ).collect()
    )
    measures = """first_value(country, true) AS f, last_value(country) IGNORE NULLS AS l,
        any_value(country, true) AS a, first(country, true) AS f2, LAST(country, true) AS l2,
        FINAL last_value(country, true) FILTER (WHERE o < 5) AS lf,
        last_value(country) RESPECT NULLS AS lr, FIRST(country, false) AS ff"""
    for door, rows in _whole_partition(spark, measures).items():
        assert rows == expected, door


def test_respect_nulls_flag_and_more_aggregates_are_sparks(spark, events):
    """first_value(x, false) and kin (Spark's ignoreNulls = false, once a syntax error),
    approx_count_distinct, bit_and/bit_or/bit_xor, try_sum/try_avg (once Spark's
    MISSING_GROUP_BY about matchrec's own plan), against Spark over the same rows."""
    expected = sorted(
        tuple(r)
        for r in spark.sql(
            """SELECT k, min_by(country, o), max_by(country, o), min_by(country, o),
                      approx_count_distinct(country), approx_count_distinct(v, 0.1),
                      bit_or(v), bit_and(w), bit_xor(v), try_sum(v), try_avg(w), try_sum(w * 1.5D)
               FROM mr_parity GROUP BY k"""
        ).collect()
    )
    measures = """first_value(country, false) AS f, last_value(country, false) AS l,
        any_value(country, false) AS a, approx_count_distinct(country) AS dc,
        approx_count_distinct(v, 0.1) AS dv, bit_or(v) AS bo, bit_and(w) AS ba,
        bit_xor(v) AS bx, try_sum(v) AS ts, try_avg(w) AS ta, try_sum(w * 1.5D) AS td"""
    for door, rows in _whole_partition(spark, measures).items():
        assert rows == expected, door


def test_new_aggregates_run_in_define(spark, events):
    # B while the distinct countries so far number at most 1 and the OR of v stays below 8.
    # x: o=1 NO (v 1), o=2 NO (v 2 -> OR 3), o=3 NULL (v 5 -> OR 7); o=4 SE makes 2
    # countries: a match of 3 rows; then o=4 SE (v 7), o=5 SE (v 3 -> OR 7): 2 rows.
    # y: o=1 US (v 4); o=2 (v 8 -> OR 12) stops it; from o=2, 8 is not below 8
    body = """PARTITION BY k ORDER BY o
        MEASURES count(B.*) AS nb, LAST(B.o) AS last_b
        PATTERN (B+)
        DEFINE B AS approx_count_distinct(B.country) <= 1 AND bit_or(B.v) < 8"""
    for door, rows in _doors(spark, body).items():
        assert rows == [("x", 2, 5), ("x", 3, 3), ("y", 1, 1)], door


def test_spark_aggregate_matchrec_lacks_is_a_positioned_error(spark, events):
    body = """PARTITION BY k ORDER BY o
        MEASURES histogram_numeric(v, 2) AS h PATTERN (A+) DEFINE A AS true"""
    with pytest.raises(UnsupportedError) as info:
        matchrec.match_recognize(spark.table("mr_parity"), body)
    err = info.value
    assert err.message == "aggregate histogram_numeric() is not supported in MEASURES"
    assert err.column == body.splitlines()[1].index("histogram_numeric") + 1
    assert "__mr" not in str(err) and "GROUP BY" not in err.message


def _spark_aggregates(spark) -> list[str]:
    """The names of every aggregate function of this Spark (its registry's agg_funcs)."""
    registry = spark._jvm.org.apache.spark.sql.catalyst.analysis.FunctionRegistry.builtin()
    names = registry.listFunction().iterator()
    found = set()
    while names.hasNext():
        info = registry.lookupFunction(names.next()).get()
        if str(info.getGroup()) == "agg_funcs":
            found.add(str(info.getName()))
    return sorted(found)


def test_every_spark_aggregate_is_computed_or_refused_at_its_name(spark, events):
    """bitmap_and_agg (not in matchrec's list of Spark aggregates it lacks) went to Spark
    as a scalar of the match, which failed with MISSING_GROUP_BY and a plan dump; inside
    another call (hex(bitmap_or_agg(...))) the refusal named the outer call."""
    names = _spark_aggregates(spark)
    assert "bitmap_and_agg" in names and "sum" in names
    for name in names:
        for measure in (f"{name}(A.v)", f"hex({name}(A.v))"):
            query = f"""SELECT * FROM mr_parity MATCH_RECOGNIZE (PARTITION BY k ORDER BY o
                MEASURES {measure} AS m PATTERN (A+) DEFINE A AS true)"""
            try:
                matchrec.sql(spark, query).collect()
            except MatchRecognizeError as err:  # ours: a refusal, or a call missing args
                assert not isinstance(err, MatchRuntimeError), (measure, err.message)
                if "is not supported" in err.message:
                    assert err.message.startswith(f"aggregate {name}()"), err.message
                    assert query[err.pos :].lower().startswith(name), (name, err.pos)
            except AnalysisException as err:  # Spark's own refusal of the call's arguments
                assert "MISSING_GROUP_BY" not in str(err), (measure, str(err)[:300])
                assert err.getCondition() in _ARGUMENT_CONDITIONS, (measure, str(err)[:300])


#: Spark's refusals of an aggregate's arguments (an INT where a sketch is wanted, ...)
_ARGUMENT_CONDITIONS = {
    "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
    "WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
}


def test_null_skipping_value_in_define(spark, events):
    # B: the last known country so far is not NO. x: o=1..2 NO, o=3 NULL (still NO), o=4 SE
    body = """PARTITION BY k ORDER BY o
        MEASURES FIRST(B.o) AS first_b, count(B.*) AS nb
        PATTERN (A B+) DEFINE B AS last_value(country, true) <> 'NO'"""
    for door, rows in _doors(spark, body).items():
        assert rows == [("x", 4, 2), ("y", 2, 1)], door


def test_filter_on_running_and_final_aggregates(spark, events):
    expected = sorted(
        tuple(r)
        for r in spark.sql(
            """SELECT k, sum(v) FILTER (WHERE ok), count(*) FILTER (WHERE v > 2),
                      max_by(o, w) FILTER (WHERE o < 5),
                      count(DISTINCT country) FILTER (WHERE o > 1)
               FROM mr_parity GROUP BY k"""
        ).collect()
    )
    measures = """FINAL sum(v) FILTER (WHERE ok) AS s, RUNNING count(*) FILTER (WHERE v > 2) AS c,
        FINAL max_by(o, w) FILTER (WHERE o < 5) AS m,
        FINAL count(DISTINCT country) FILTER (WHERE o > 1) AS d"""
    for door, rows in _whole_partition(spark, measures).items():
        assert rows == expected, door


DOUBLES = """
('a', 1, 1.0D, 5), ('a', 2, NULL, 3), ('a', 3, double('NaN'), NULL), ('a', 4, 2.0D, NULL),
('a', 5, 0.5D, 8), ('a', 6, double('NaN'), 1), ('b', 1, double('NaN'), 1),
('b', 2, double('NaN'), 2), ('c', 1, double('Infinity'), 1), ('c', 2, double('NaN'), 1)
"""


@pytest.fixture(scope="module")
def doubles(spark):
    spark.sql(
        f"CREATE OR REPLACE TEMP VIEW mr_doubles AS SELECT * FROM VALUES {DOUBLES} AS t(k, o, x, n)"
    )
    return spark.table("mr_doubles")


@pytest.mark.parametrize(
    "condition",
    [
        "A.x > 1.5",
        "x > A.x",
        "x <= A.x",
        "A.x <> x",
        "A.x = A.x",
        "greatest(x, A.x) > 1.5",
        "least(x, A.x) < 1.5",
        "least(n, A.n) >= 3",
        "greatest(n, A.n, 4) = 5",
        "coalesce(A.x, 0) > 1.5",
    ],
)
def test_match_dependent_comparisons_of_nan_and_null_are_sparks(spark, doubles, condition):
    # B pairs with the row before it (A); Spark's answer: the same condition over LAG
    body = f"""PARTITION BY k ORDER BY o MEASURES B.o AS bo AFTER MATCH SKIP TO NEXT ROW
        PATTERN (A B) DEFINE B AS {condition}"""
    got = sorted(r.bo for r in matchrec.match_recognize(doubles, body).collect())
    lagged = condition.replace("A.x", "ax").replace("A.n", "an")
    expected = sorted(
        r.o
        for r in spark.sql(
            f"""SELECT o FROM (SELECT *, lag(x) OVER w AS ax, lag(n) OVER w AS an,
                                      lag(o) OVER w AS ao FROM mr_doubles
                               WINDOW w AS (PARTITION BY k ORDER BY o))
                WHERE ao IS NOT NULL AND ({lagged})"""
        ).collect()
    )
    assert got == expected


@pytest.mark.parametrize(
    "aggregate",
    [
        "min(x)",
        "max(x)",
        "sum(x)",
        "avg(x)",
        "max(n)",
        "max_by(o, x)",
        "min_by(o, x)",
        "max_by(x, n)",
        "min_by(o, n)",
        "stddev(x)",
        "var_pop(x)",
        "mode(x, true)",
    ],
)
@pytest.mark.parametrize("semantics", ["RUNNING", "FINAL"])
def test_aggregates_of_nan_and_infinity_are_sparks(spark, doubles, aggregate, semantics):
    got, expected = running_and_window(spark, "mr_doubles", aggregate, semantics)
    assert got == expected


@pytest.mark.parametrize("percentages", ["0.5", "0.1", "array(0.0, 0.25, 0.5, 0.99, 1.0)"])
def test_percentile_approx_with_nan_is_sparks(spark, doubles, percentages):
    """Spark's summary drops the minimum when the second sorted value is NaN ({inf, NaN}
    gives NaN); the whole match against Spark's GROUP BY over the same rows."""
    expected = sorted(
        tuple(r)
        for r in spark.sql(
            f"SELECT k, percentile_approx(x, {percentages}) FROM mr_doubles GROUP BY k"
        ).collect()
    )
    body = f"""PARTITION BY k ORDER BY o MEASURES percentile_approx(x, {percentages}) AS p
        PATTERN (A+) DEFINE A AS true"""
    got = sorted(tuple(r) for r in matchrec.match_recognize(doubles, body).collect())
    assert repr(got) == repr(expected)


@pytest.mark.parametrize(
    ("values", "kind"),
    [
        (["1.234567890123456789", "1.234567890123456789", "5.5", "-2"], "DECIMAL(38, 18)"),
        (["9007199254740993", "9007199254740993", "1", "9223372036854775807"], "BIGINT"),
        (["0.1", "0.30000000000000004", "123456789012345678.9"], "DECIMAL(20, 1)"),
        (["2300-01-01 00:00:00.000001"] * 2 + ["2024-01-01 10:00:00"], "TIMESTAMP"),
        (["1500-06-30 12:00:00.000007"] * 2 + ["2024-01-01 10:00:00"], "TIMESTAMP_NTZ"),
    ],
)
@pytest.mark.parametrize("percentage", ["0.5", "array(0.0, 0.5, 1.0)"])
def test_percentile_approx_of_wide_numbers_comes_back_from_a_double(
    spark, values, kind, percentage
):
    """Spark's summary holds doubles: a DECIMAL or BIGINT with more digits than a double
    keeps, or a timestamp's microseconds centuries from 1970, comes back as the double's
    value, in the column's type."""
    rows = ", ".join(f"('k', {i}, CAST('{v}' AS {kind}))" for i, v in enumerate(values))
    spark.sql(f"CREATE OR REPLACE TEMP VIEW mr_wide AS SELECT * FROM VALUES {rows} AS t(k, o, x)")
    expected = spark.sql(f"SELECT k, percentile_approx(x, {percentage}) FROM mr_wide GROUP BY k")
    got = matchrec.sql(
        spark,
        f"""SELECT * FROM mr_wide MATCH_RECOGNIZE (PARTITION BY k ORDER BY o
              MEASURES percentile_approx(x, {percentage}) AS p PATTERN (A+) DEFINE A AS true)""",
    )
    assert repr([tuple(r) for r in got.collect()]) == repr([tuple(r) for r in expected.collect()])


def test_distinct_values_take_nan_as_one(spark, doubles):
    measures = "count(DISTINCT x) AS d, array_sort(collect_set(x)) AS s, sum(DISTINCT x) AS t"
    expected = spark.sql(
        "SELECT k, count(DISTINCT x), array_sort(collect_set(x)), sum(DISTINCT x) "
        "FROM mr_doubles GROUP BY k"
    )
    got = matchrec.sql(
        spark,
        f"""SELECT * FROM mr_doubles MATCH_RECOGNIZE (PARTITION BY k ORDER BY o
              MEASURES {measures} PATTERN (A+) DEFINE A AS true)""",
    )
    assert sorted(map(str, map(tuple, got.collect()))) == sorted(
        map(str, map(tuple, expected.collect()))
    )


def test_double_sums_of_later_matches_add_their_own_rows(spark):
    # values of very different sizes: a sum of a match's rows is not a difference of
    # sums over all rows before it
    values = [1e16, 0.1, -1e16, 0.3, 1 / 3, 0.2, 7.7, 1e16, 0.1]
    rows = ", ".join(f"('a', {i}, {v!r}D)" for i, v in enumerate(values))
    spark.sql(f"CREATE OR REPLACE TEMP VIEW mr_sums AS SELECT * FROM VALUES {rows} AS t(k, o, x)")
    got = matchrec.sql(
        spark,
        """SELECT * FROM mr_sums MATCH_RECOGNIZE (PARTITION BY k ORDER BY o
             MEASURES FIRST(o) AS f, sum(x) AS s, avg(x) AS a, RUNNING sum(x) AS r
             PATTERN (A B{2}) DEFINE A AS true)""",
    ).collect()
    assert [r.f for r in got] == [0, 3, 6]
    for r in got:
        part = values[r.f : r.f + 3]
        total = 0.0
        for v in part:  # Spark's sum: row after row
            total += v
        assert (r.s, r.a, r.r) == (total, total / 3, total)


def test_doubled_quote_in_a_string_literal_is_a_quote(spark, events):
    # Spark reads 'it''s' as it's and 'yyyy-MM-dd''T''HH' as a pattern with a quoted T
    assert spark.sql("SELECT 'it''s' AS s").first().s == "it's"
    body = """PARTITION BY k ORDER BY o
        MEASURES date_format(make_date(2024, 1, LAST(o)), 'yyyy-MM-dd''T''HH') AS f,
                 'it''s ' || FIRST(country) AS g
        PATTERN (A B) DEFINE B AS concat(country, '''') <> 'SE'''"""
    # x: o=1 (NO) and 2 (NO''), o=3 NULL fails, o=4 (SE') fails, o=5 (SE') fails;
    # y: o=1, 2 (US')
    for door, rows in _doors(spark, body).items():
        assert rows == [("x", "2024-01-02T00", "it's NO"), ("y", "2024-01-02T00", "it's US")], door


@pytest.mark.parametrize(
    "function", ["log10(x)", "log2(x)", "ln(x)", "exp(x / 10)", "pow(x, 1.7)", "log(10, x)"]
)
def test_transcendental_functions_are_sparks_to_the_last_bit(spark, events, function):
    values = [3.0, 7.0, 50.0, 49.0, 0.5, 12.5, 1e-3, 123456.789]
    rows = ", ".join(f"('a', {i}, {v!r}D)" for i, v in enumerate(values))
    spark.sql(f"CREATE OR REPLACE TEMP VIEW mr_math AS SELECT * FROM VALUES {rows} AS t(k, o, x)")
    expected = sorted(tuple(r) for r in spark.sql(f"SELECT o, {function} FROM mr_math").collect())
    body = f"""PARTITION BY k ORDER BY o MEASURES {function} AS v
        ALL ROWS PER MATCH PATTERN (A+) DEFINE A AS true"""
    doors = {
        "sql": matchrec.sql(spark, f"SELECT o, v FROM mr_math MATCH_RECOGNIZE ({body})"),
        "udtf": spark.sql(f"SELECT o, v FROM match_recognize(TABLE(mr_math), {_literal(body)})"),
    }
    for door, df in doors.items():
        assert sorted(tuple(r) for r in df.collect()) == expected, door


def test_input_column_names_with_dots(spark, events):
    # column names as JSON or pandas data often have them: `a.b` is one column here
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW mr_dotted AS SELECT * FROM VALUES "
        "('a', 1, 2, named_struct('c', 'x'), 0), ('a', 2, 3, named_struct('c', 'y'), 1), "
        "('a', 3, 1, named_struct('c', 'z'), 2) AS t(k, o, `price.usd`, `A.info`, `it``s`)"
    )
    body = """PARTITION BY k ORDER BY o
        MEASURES A.`A.info`.c AS first_c, LAST(`price.usd`) AS last_price, count(*) AS n,
                 sum(`it``s`) AS s
        ALL ROWS PER MATCH PATTERN (A B+) DEFINE B AS `price.usd` > PREV(`price.usd`)"""
    frames = {
        "sql": matchrec.sql(spark, f"SELECT * FROM mr_dotted MATCH_RECOGNIZE ({body})"),
        "df": matchrec.match_recognize(spark.table("mr_dotted"), body),
        "udtf": spark.sql(f"SELECT * FROM match_recognize(TABLE(mr_dotted), {_literal(body)})"),
    }
    for door, df in frames.items():
        rows = sorted(
            (r["o"], r["first_c"], r["last_price"], r["n"], r["price.usd"]) for r in df.collect()
        )
        assert rows == [(1, "x", 2, 1, 2), (2, "x", 3, 2, 3)], door


def test_approx_count_distinct_is_sparks_hyperloglog(spark, events):
    """Spark's HLL++ estimate (hash collisions included: rsd 0.1 counts some pairs as one)
    on generated groups of ints, strings, doubles (NaN, -0.0) and dates, every door."""
    spark.sql(
        """CREATE OR REPLACE TEMP VIEW mr_hll AS
           SELECT g, id, id * 7919 % 1000 AS n, concat('s', id % (g + 3)) AS s,
                  CASE id % 5 WHEN 0 THEN double('NaN') WHEN 1 THEN -0.0D WHEN 2 THEN 0.0D
                       ELSE id / 3D END AS d,
                  date_add(DATE'2024-01-01', id % 9) AS day
           FROM (SELECT explode(array(1, 2, 5, 17, 40, 60)) AS g)
           LATERAL VIEW explode(sequence(1, g)) AS id"""
    )
    aggregates = """approx_count_distinct(n), approx_count_distinct(n, 0.1),
        approx_count_distinct(s), approx_count_distinct(s, 0.1), approx_count_distinct(d),
        approx_count_distinct(day, 0.3)"""
    expected = sorted(
        tuple(r) for r in spark.sql(f"SELECT g, {aggregates} FROM mr_hll GROUP BY g").collect()
    )
    measures = ", ".join(f"{a.strip()} AS a{i}" for i, a in enumerate(aggregates.split("),")))
    measures = measures.replace(" AS a", ") AS a").replace(")) AS", ") AS")
    body = f"PARTITION BY g ORDER BY id MEASURES {measures} PATTERN (A+) DEFINE A AS true"
    for door, rows in _doors(spark, body, "mr_hll").items():
        assert rows == expected, door


def test_min_and_max_of_structs_and_arrays_are_sparks(spark, events):
    """Spark orders structs field by field and arrays element by element, a NULL inside
    first (once a Python error comparing dicts); a field of the result reads as Spark's."""
    spark.sql(
        """CREATE OR REPLACE TEMP VIEW mr_nested AS SELECT * FROM VALUES
           ('x', 1, named_struct('c', 'Rome', 'kg', 2), array(3, 1)),
           ('x', 2, named_struct('c', 'Oslo', 'kg', NULL), array(3, NULL)),
           ('x', 3, named_struct('c', 'Oslo', 'kg', 1), array(3)),
           ('x', 4, named_struct('c', NULL, 'kg', 9), NULL),
           ('y', 1, NULL, array(NULL, 2)), ('y', 2, named_struct('c', 'Bern', 'kg', 0), array(1))
           AS t(k, o, st, arr)"""
    )
    aggregates = "min(st), max(st), min(arr), max(arr), max(st).c, min(st).kg + 1"
    expected = sorted(
        tuple(r) for r in spark.sql(f"SELECT k, {aggregates} FROM mr_nested GROUP BY k").collect()
    )
    measures = ", ".join(f"{a} AS m{i}" for i, a in enumerate(aggregates.split(", ")))
    body = f"PARTITION BY k ORDER BY o MEASURES {measures} PATTERN (A+) DEFINE A AS true"
    for door, rows in _doors(spark, body, "mr_nested").items():
        assert rows == expected, door


STATISTICS = [
    "skewness(x)",
    "kurtosis(n)",
    "covar_pop(x, y)",
    "covar_samp(y, n)",
    "corr(x, y)",
    "regr_count(y, x)",
    "regr_avgx(y, x)",
    "regr_avgy(y, n)",
    "regr_sxx(y, x)",
    "regr_syy(y, x)",
    "regr_sxy(y, x)",
    "regr_slope(y, x)",
    "regr_intercept(y, x)",
    "regr_r2(y, x)",
]


@pytest.fixture(scope="module")
def samples(spark):
    """Three partitions of 24 rows: doubles with NULLs, x constant in partition c (the
    divisions by zero of these aggregates), y sometimes equal to o."""
    rng = random.Random(5)
    rows = []
    for k in ("a", "b", "c"):
        for o in range(1, 25):
            x = None if rng.random() < 0.1 else (3.0 if k == "c" else round(rng.gauss(2, 3), 3))
            y = None if rng.random() < 0.1 else rng.choice([rng.random() * 10, float(o)])
            rows.append((k, o, x, y, rng.randint(-5, 9)))
    frame = spark.createDataFrame(rows, "k string, o int, x double, y double, n int")
    frame.createOrReplaceTempView("mr_samples")
    return frame


@pytest.mark.parametrize("aggregate", STATISTICS)
@pytest.mark.parametrize("semantics", ["RUNNING", "FINAL"])
def test_statistical_aggregates_are_sparks_to_the_last_bit(spark, samples, aggregate, semantics):
    """skewness, kurtosis, covariance, correlation and regr_* over the match: the same
    doubles as Spark's window over the same rows (Spark updates their moments row by row,
    and so does matchrec, in the same order)."""
    got, expected = running_and_window(spark, "mr_samples", aggregate, semantics)
    assert got == expected


def test_statistical_aggregates_through_every_door(spark, events, samples):
    """One row per partition with all of them: every door gives Spark's values and the
    same types (the table function types them without Spark's help)."""
    # a window over the partition in order, as a GROUP BY merges partial results
    window = (
        "OVER (PARTITION BY k ORDER BY o ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)"
    )
    columns = ", ".join(f"{a} {window}" for a in STATISTICS)
    expected = sorted(
        tuple(r) for r in spark.sql(f"SELECT DISTINCT k, {columns} FROM mr_samples").collect()
    )
    measures = ", ".join(f"{a} AS s{i}" for i, a in enumerate(STATISTICS))
    body = f"PARTITION BY k ORDER BY o MEASURES {measures} PATTERN (A+) DEFINE A AS true"
    for door, rows in _doors(spark, body, "mr_samples").items():
        assert rows == expected, door


def test_statistical_aggregate_in_define(spark, events, samples):
    """A running correlation as a DEFINE condition: B rows while corr(x, y) of the match
    so far is not below 0.5 (NULL for fewer than two pairs: a match needs a second row
    that keeps it defined). Expected: the same rule applied, SKIP PAST LAST ROW, to
    Spark's corr of every run of rows (one query)."""
    body = """PARTITION BY k ORDER BY o
        MEASURES FIRST(o) AS f, LAST(o) AS l
        PATTERN (B{2,}) DEFINE B AS corr(B.x, B.y) >= 0.5 OR count(B.*) = 1"""
    got = _doors(spark, body, "mr_samples")
    runs = spark.sql(
        """SELECT a.k, a.o AS s, b.o AS e, corr(c.x, c.y) AS r FROM mr_samples a
           JOIN mr_samples b ON b.k = a.k AND b.o > a.o
           JOIN mr_samples c ON c.k = a.k AND c.o BETWEEN a.o AND b.o
           GROUP BY a.k, a.o, b.o"""
    ).collect()
    corr = {(r.k, r.s, r.e): r.r for r in runs}
    expected = []
    for k in ("a", "b", "c"):
        start, last = 1, 24
        while start <= last:
            end = start + 1
            while end <= last and (corr[k, start, end] or 0) >= 0.5:
                end += 1
            if end - start >= 2:
                expected.append((k, start, end - 1))
                start = end
            else:
                start += 1
    assert len(expected) > 5
    for door, found in got.items():
        assert found == sorted(expected), door


def test_approx_count_distinct_of_thousands_is_sparks(spark, events):
    """Past linear counting, Spark's raw HyperLogLog estimate (from five estimated values
    per bucket on): every door gives Spark's number, at the default relative error and
    at 0.3 (16 buckets)."""
    spark.sql(
        """CREATE OR REPLACE TEMP VIEW mr_hll_many AS
           SELECT g, id, id * 7919 % 100000 AS n, concat('s', id) AS s
           FROM (SELECT explode(array(300, 3000, 6000)) AS g)
           LATERAL VIEW explode(sequence(1, g)) AS id"""
    )
    aggregates = ["approx_count_distinct(n, 0.3)", "approx_count_distinct(s, 0.3)"]
    expected = spark.sql(
        f"SELECT g, {', '.join(aggregates)}, approx_count_distinct(n) FROM mr_hll_many "
        "WHERE g = 6000 OR g = 3000 GROUP BY g"
    ).collect()
    expected = sorted((r[0], r[1], r[2], r[3] if r[0] == 6000 else None) for r in expected)
    measures = ", ".join(f"{a} AS a{i}" for i, a in enumerate(aggregates))
    body = f"""PARTITION BY g ORDER BY id
        MEASURES {measures},
                 CASE WHEN count(*) = 6000 THEN approx_count_distinct(n) END AS d
        PATTERN (A+) DEFINE A AS true"""
    for door, rows in _doors(spark, body, "mr_hll_many").items():
        assert [r for r in rows if r[0] != 300] == expected, door


def test_calls_sqlglot_cannot_write_back_stay_as_written(spark, events):
    """sqlglot reads ``to_char(v, '999')`` and ``levenshtein(a, b, 1)`` into nodes whose
    Spark SQL drops the format (``to_char(v)`` gave '5', not '  5') and the threshold;
    such calls now reach Spark as written. Expected: Spark's own values over the rows."""
    expected = sorted(
        tuple(r)
        for r in spark.sql(
            """SELECT k, o, to_char(v, '999'), levenshtein(country, 'NOPE', 1)
               FROM mr_parity WHERE levenshtein(country, 'SEX', 1) = -1
                                AND to_char(w, '99') <> ' 5'"""
        ).collect()
    )
    body = """PARTITION BY k ORDER BY o
        MEASURES A.o AS o, to_char(A.v, '999') AS c, levenshtein(A.country, 'NOPE', 1) AS d
        AFTER MATCH SKIP TO NEXT ROW
        PATTERN (A) DEFINE A AS levenshtein(A.country, 'SEX', 1) = -1
                                AND to_char(A.w, '99') <> ' 5'"""
    for door, rows in _doors(spark, body).items():
        assert rows == expected, door


def test_truncation_units_read_from_columns(spark, events):
    """date_trunc(unit, ts) and trunc(d, unit) with the unit in a column: sqlglot took the
    column's name for the unit (DATE_TRUNC('GRAIN', ts): NULL). Expected: Spark's values."""
    spark.sql(
        """CREATE OR REPLACE TEMP VIEW mr_grains AS SELECT * FROM VALUES
             (1, 'HOUR', 'MM', timestamp'2024-05-17 10:42:13'),
             (2, 'YEAR', 'YEAR', timestamp'2024-06-18 11:00:00'),
             (3, 'DAY', 'WEEK', timestamp'2024-06-19 12:30:00')
           AS t(o, grain, fmt, ts)"""
    )
    expected = sorted(
        tuple(r)
        for r in spark.sql(
            """SELECT o, date_trunc(grain, ts), trunc(to_date(ts), fmt) FROM mr_grains
               WHERE date_trunc(grain, ts) < ts"""
        ).collect()
    )
    body = """ORDER BY o MEASURES A.o AS o, date_trunc(A.grain, A.ts) AS t,
                 trunc(to_date(A.ts), A.fmt) AS d
        AFTER MATCH SKIP TO NEXT ROW PATTERN (A) DEFINE A AS date_trunc(grain, ts) < ts"""
    for door, rows in _doors(spark, body, "mr_grains").items():
        assert rows == expected, door


@pytest.mark.parametrize(
    ("measure", "define", "message", "at"),
    [
        (
            "sum(country)",
            "true",
            "sum() of country (STRING) in MEASURES: matchrec computes sum over the match "
            "without Spark's implicit cast of strings to DOUBLE",
            "country)",
        ),
        (
            "percentile_cont(0.5) WITHIN GROUP (ORDER BY country)",
            "true",
            "percentile_cont() of country (STRING) in MEASURES: matchrec computes "
            "percentile_cont over the match without Spark's implicit cast of strings to DOUBLE",
            "country)",
        ),
        (
            "count(*)",
            "avg(A.country) IS NULL OR true",
            "avg() of A.country (STRING) in DEFINE: matchrec computes avg over the match "
            "without Spark's implicit cast of strings to DOUBLE",
            "A.country)",
        ),
    ],
)
def test_a_numeric_aggregate_of_strings_is_a_positioned_error(
    spark, events, measure, define, message, at
):
    """Spark casts the strings to DOUBLE; matchrec's aggregates would join them (sum of
    '1' and '2' was '12'): an error before any job runs, through every door."""
    body = f"PARTITION BY k ORDER BY o\nMEASURES {measure} AS m\nPATTERN (A+) DEFINE A AS {define}"
    line = body.splitlines()[1 if "MEASURES" in message else 2]
    for run in (
        lambda: matchrec.match_recognize(spark.table("mr_parity"), body),
        lambda: matchrec.sql(spark, f"SELECT * FROM mr_parity MATCH_RECOGNIZE ({body})"),
    ):
        with pytest.raises(SemanticError) as info:
            run()
        assert info.value.message == message
        assert info.value.column == line.index(at) + 1
    with pytest.raises(AnalysisException) as info:
        spark.sql(f"SELECT * FROM match_recognize(TABLE(mr_parity), {_literal(body)})").collect()
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("define", "at", "reason"),
    [
        # the matcher computes an aggregate of DEFINE itself: Spark's check of its
        # arguments is done when the query is built, in every door
        ("percentile(v, 2) > 0", "percentile", "percentage must be between"),
        ("v > approx_percentile(A.v, array(0.5, 1.5))", "approx_percentile", "percentage"),
        ("v > percentile_approx(v, 0.5, 0)", "percentile_approx", "accuracy must be between"),
        ("v < approx_percentile(A.v, 0.5, 1.5)", "approx_percentile", '"INTEGRAL"'),
        ("v < approx_percentile(A.v, 0.5, -2)", "approx_percentile", "2147483647]"),
    ],
)
def test_an_aggregate_in_define_spark_rejects_is_a_positioned_error(
    spark, events, define, at, reason
):
    body = f"ORDER BY o\nMEASURES count(*) AS n\nPATTERN (A B+) DEFINE B AS {define}"
    for run in (
        lambda: matchrec.match_recognize(spark.table("mr_parity"), body),
        lambda: matchrec.sql(spark, f"SELECT * FROM mr_parity MATCH_RECOGNIZE ({body})"),
    ):
        with pytest.raises(SemanticError) as info:
            run()
        assert info.value.message.startswith("Spark rejects ")
        assert reason in info.value.message
        written = define[define.index(at) :].split(")")[0]  # the call as the user wrote it
        assert info.value.message.startswith(f"Spark rejects {written}")
        assert (info.value.line, info.value.column) == (3, body.splitlines()[2].index(at) + 1)
    with pytest.raises(AnalysisException, match=reason):
        spark.sql(f"SELECT * FROM match_recognize(TABLE(mr_parity), {_literal(body)})").collect()
    with pytest.raises(AnalysisException, match=reason):  # Spark's own verdict
        spark.sql(f"SELECT {define.replace('A.', '')} FROM mr_parity").collect()


def test_an_argument_spark_rejects_in_define_is_told_at_the_aggregate(spark, events):
    # not a percentage: Spark's analyser is asked, as for a measure
    body = (
        "ORDER BY o\nMEASURES count(*) AS n\n"
        "PATTERN (A B+) DEFINE B AS v > percentile_approx(v, 0.5, 0)"
    )
    with pytest.raises(SemanticError) as info:
        matchrec.sql(spark, f"SELECT * FROM mr_parity MATCH_RECOGNIZE ({body})")
    assert "accuracy must be between" in info.value.message
    assert (info.value.line, info.value.column) == (3, body.splitlines()[2].index("percentile") + 1)


def test_an_aggregate_spark_rejects_is_a_positioned_error(spark, events):
    body = "ORDER BY o\nMEASURES percentile(v, 1.5) AS p\nPATTERN (A+) DEFINE A AS true"
    with pytest.raises(SemanticError) as info:
        matchrec.match_recognize(spark.table("mr_parity"), body)
    assert info.value.message.lower().startswith("spark rejects percentile(v, 1.5): ")
    assert "percentage must be between" in info.value.message
    assert (info.value.line, info.value.column) == (2, len("MEASURES ") + 1)


@pytest.mark.parametrize(
    "measure",
    ["unix_date(LAST(date_from_unix_date(v)))", "LAST(unix_date(date_from_unix_date(v)))"],
)
def test_unix_date_is_an_int_in_every_door(spark, events, measure):
    """sqlglot wrote unix_date(d) back as DATEDIFF(DAY, DATE'1970-01-01', d), Spark's
    timestampdiff: a BIGINT in the sql and DataFrame doors, where Spark's is an INT."""
    body = (
        f"PARTITION BY k ORDER BY o MEASURES {measure} AS u ONE ROW PER MATCH "
        "PATTERN (A B) DEFINE B AS true"
    )
    rows = _doors(spark, body)  # the doors' types agree
    df = matchrec.sql(spark, f"SELECT * FROM mr_parity MATCH_RECOGNIZE ({body})")
    assert (
        df.schema["u"].dataType
        == spark.sql("SELECT unix_date(current_date()) AS u").schema["u"].dataType
    )
    assert rows["sql"] and all(isinstance(r[1], int) for r in rows["sql"])


@pytest.mark.parametrize(
    ("measure", "sparks"),
    [
        (
            "arrays_zip(array_agg(v), array_agg(country))",
            "arrays_zip(array_agg(a.v), array_agg(a.country))",
        ),
        ("arrays_zip(A.v_arr, B.v_arr)", "arrays_zip(a.v_arr, b.v_arr)"),
        (
            "arrays_zip(array(FIRST(v), LAST(v)), array_agg(w))",
            "arrays_zip(array(1, 2), array_agg(a.w))",
        ),
    ],
    ids=["aggregates", "columns", "expression"],
)
def test_arrays_zip_names_its_fields_as_spark_does(spark, events, measure, sparks):
    """Its fields were named after matchrec's columns (``COLLECT_LIST(v)``, ``A.v_arr``):
    Spark names a column's field after the column, any other argument's by its place."""
    view = "(SELECT *, array(v, w) AS v_arr FROM mr_parity)"
    body = f"PARTITION BY k ORDER BY o MEASURES {measure} AS z PATTERN (A B) DEFINE B AS true"
    got = matchrec.sql(spark, f"SELECT * FROM {view} MATCH_RECOGNIZE ({body})")
    want = spark.sql(
        f"SELECT {sparks} AS z FROM {view} a JOIN {view} b ON a.k = b.k AND b.o = a.o + 1 "
        "GROUP BY a.v_arr, b.v_arr"
    )
    names = [f.name for f in got.schema["z"].dataType.elementType.fields]
    assert names == [f.name for f in want.schema["z"].dataType.elementType.fields]
    assert got.collect()


@pytest.mark.parametrize(
    "condition",
    [
        # MATCH_NUMBER() is 1: Spark never takes the branch that divides by zero
        "IF(MATCH_NUMBER() > 5, 1 / (o - o) > 0, true)",
        "CASE WHEN FIRST(A.o) > 100 THEN 6 / (o - 2) >= 3 ELSE o > 2 END",
    ],
)
def test_a_division_in_a_branch_spark_never_takes_does_not_raise(spark, events, condition):
    """Under ANSI mode, a row-local division by zero inside a branch of IF/CASE that the
    match never takes: matchrec computed the comparison around it as a Spark column
    over every row, which raised (the division alone was kept to the glue)."""
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW mr_tried AS SELECT * FROM VALUES "
        "(1, 'x'), (2, 'a'), (3, 'b'), (4, 'x') AS t(o, lab)"
    )
    body = f"""ORDER BY o MEASURES A.o AS a, B.o AS b PATTERN (A B)
        DEFINE A AS lab = 'a', B AS {condition}"""
    spark.conf.set("spark.sql.ansi.enabled", "true")
    for door, rows in _doors(spark, body, "mr_tried").items():
        assert rows == [(2, 3)], door


@pytest.mark.parametrize("condition", ["kwh >= 2.0", "kwh >= 2.0 AND kwh >= FIRST(kwh) - 10"])
def test_within_counts_the_time_that_passed_across_a_dst_change(spark, events, condition):
    """Readings at 04:00, 05:00, 06:00 and 07:00 UTC on 2026-11-01, when New York's
    clocks go back: the fourth is 3 hours after the first, though its wall clock is 2
    hours later. A row-local DEFINE measured the wall clocks (4 rows within 2 hours), a
    match-dependent one the time that passed (3 rows), as a stream's timers do."""
    from matchrec.runtime.session import session_settings

    with session_settings(spark, {"spark.sql.session.timeZone": "America/New_York"}):
        spark.sql(
            "CREATE OR REPLACE TEMP VIEW mr_dst AS SELECT 'M2' AS meter, id AS seq, "
            "timestamp_seconds(1793505600 + 3600 * id) AS read_at, 2.0D + id / 10 AS kwh "
            "FROM range(4)"
        )
        span = spark.sql("SELECT max(read_at) - min(read_at) AS d FROM mr_dst").first().d
        assert span.total_seconds() == 7200  # Spark's subtraction: the wall clocks
        body = f"""PARTITION BY meter ORDER BY read_at MEASURES count(*) AS n
            PATTERN (H{{3,}}) WITHIN INTERVAL '2' HOUR DEFINE H AS {condition}"""
        for door, rows in _doors(spark, body, "mr_dst").items():
            assert rows == [("M2", 3)], door


def test_a_lambda_parameter_named_as_a_column_keeps_the_columns_value(spark, events):
    """``x -> A.x > x``: the parameter x and A's column x are two values (the planner
    wrote A.x as x, which the lambda's parameter took over: no match, wrong arrays)."""
    spark.sql(
        """CREATE OR REPLACE TEMP VIEW mr_shadow AS SELECT * FROM VALUES
             ('k', 1, 100, array(1, 7)), ('k', 2, 5, array(50, 150)), ('k', 3, 6, array(3))
           AS t(k, o, x, items)"""
    )
    expected = sorted(
        tuple(r)
        for r in spark.sql(
            """SELECT a.k, transform(b.items, x -> x + a.x), exists(b.items, x -> x > b.x * 20)
               FROM mr_shadow a JOIN mr_shadow b ON b.o = a.o + 1
               WHERE exists(b.items, x -> a.x > x) AND exists(a.items, x -> a.x > 10 * x)"""
        ).collect()
    )
    body = """PARTITION BY k ORDER BY o
        MEASURES transform(LAST(B.items), x -> x + A.x) AS t,
                 exists(LAST(B.items), x -> x > LAST(B.x) * 20) AS above
        PATTERN (A B) DEFINE A AS exists(A.items, x -> A.x > 10 * x),
                             B AS exists(B.items, x -> A.x > x)"""
    assert expected == [("k", [150, 250], True)]
    for door, rows in _doors(spark, body, "mr_shadow").items():
        assert rows == expected, door


def test_a_maps_value_read_with_a_dot_is_sparks_lookup_in_every_door(spark, events):
    """``stats.xp`` of a MAP is Spark's ``stats['xp']`` (the key as written, NULL where it
    is missing): the table function refused it ('cannot infer the Spark type') and read
    ``max_by(stats, o).XP`` without case, as a struct's field."""
    spark.sql(
        """CREATE OR REPLACE TEMP VIEW mr_mapdot AS SELECT * FROM VALUES
             ('k', 1, map('xp', 10, 'hp', 3)), ('k', 2, map('xp', 25)), ('k', 3, map('xp', 40))
           AS t(k, o, stats)"""
    )
    expected = [("k", 25, 15, 25, None, None)]
    body = """PARTITION BY k ORDER BY o
        MEASURES LAST(B.stats.xp) AS xp, B.stats.xp - A.stats.xp AS gain,
                 max_by(stats, o).xp AS top, max_by(stats, o).XP AS upper, B.stats.hp AS hp
        PATTERN (A B) DEFINE B AS stats.xp > A.stats.xp AND A.stats.hp IS NOT NULL"""
    for door, rows in _doors(spark, body, "mr_mapdot").items():
        assert rows == expected, door
