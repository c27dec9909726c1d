"""Pure-Python tests of the planner (``matchrec.planner``): how a clause is lowered.

No Spark: ``plan_clause`` gets the input column names, and where a test runs the planned
program it does so with :func:`matchrec.engine.run_partition` over Python lists (the few
row-local columns Spark would add are constants there and filled in by ``run``).
"""

from __future__ import annotations

import pytest
from matchrec.grammar import parse_clause
from matchrec.planner.plan import MatchPlan, plan_clause
from matchrec.planner.sqltext import node_pos, parse_expression, prepare
from sqlglot import exp

from matchrec.ast import SqlExpr
from matchrec.engine import run_partition
from matchrec.errors import SemanticError

COLUMNS = ["id", "Value", "name", "ts"]


def plan(body: str, columns: list[str] = COLUMNS) -> MatchPlan:
    return plan_clause(parse_clause(body), columns)


def define(body: str, label: str = "B"):
    return plan(body).defines[label]


_CONSTANTS = {"TRUE": True, "FALSE": False, "NULL": None}


def run(body: str, cols: dict[str, list]) -> tuple[MatchPlan, list[tuple[int, list]]]:
    """Plan ``body`` over ``cols`` and run it; returns the plan and, per output row, the
    input row it comes from and its atom values."""
    result = plan(body, list(cols))
    n = len(next(iter(cols.values())))
    cols = dict(cols)
    for name, text in result.precomputed:
        if text in _CONSTANTS:
            value = _CONSTANTS[text]
        elif text.startswith("'"):
            value = text[1:-1]
        else:
            value = int(text)
        cols[name] = [value] * n
    out = run_partition(result.program, cols, n)
    # the engine may give Arrow arrays (vectorized measures) or Python lists
    atoms = [a.to_pylist() if hasattr(a, "to_pylist") else list(a) for a in out.atoms]
    rows = [(int(r), [column[i] for column in atoms]) for i, r in enumerate(out.rows)]
    return result, rows


# --------------------------------------------------------------------------- DEFINE split


def test_row_local_define_is_one_spark_column():
    d = define("ORDER BY id PATTERN (A B+) DEFINE B AS B.value > 10 AND name = 'x'")
    assert d.glue is None and d.history_free
    p = plan("ORDER BY id PATTERN (A B+) DEFINE B AS B.value > 10 AND name = 'x'")
    # label qualifiers are stripped and names take the input's spelling
    assert p.precomputed == [(d.local_column, "`Value` > 10 AND `name` = 'x'")]


def test_prev_of_the_current_row_becomes_a_spark_lag_over_the_sorted_rows():
    p = plan(
        "PARTITION BY name ORDER BY id DESC PATTERN (A B+) "
        "DEFINE B AS B.value > 10 AND B.value > PREV(B.value, 2)"
    )
    d = p.defines["B"]
    window = "PARTITION BY `name` ORDER BY `id` DESC NULLS LAST"  # Spark's default for DESC
    assert p.precomputed == [
        (d.local_column, f"`Value` > 10 AND `Value` > LAG(`Value`, 2) OVER ({window})")
    ]
    assert d.glue is None and d.history_free


def test_define_splits_row_local_and_match_dependent_conjuncts():
    # without ORDER BY there is no window to compute PREV in: it stays in Python
    p = plan("PATTERN (A B+) DEFINE B AS B.value > 10 AND B.value > PREV(B.value)")
    d = p.defines["B"]
    assert p.precomputed == [(d.local_column, "`Value` > 10")]
    assert d.glue is not None
    assert d.history_free  # PREV of the current row depends on the row index only


def test_or_is_not_split():
    p = plan("PATTERN (A B+) DEFINE B AS B.value > 10 OR B.value > PREV(B.value)")
    d = p.defines["B"]
    assert d.local_column is None and d.glue is not None


@pytest.mark.parametrize(
    "condition",
    [
        "B.value > A.value",  # another variable's last row
        "B.value > FIRST(B.value)",  # logical navigation
        "count(B.*) < 3",  # aggregate over the match
        "PREV(CLASSIFIER()) = 'A'",  # the label of an earlier row
        "PREV(A.value) > 0",  # PREV of another variable
    ],
)
def test_match_dependent_conditions_are_not_history_free(condition):
    p = plan(f"ORDER BY id PATTERN (A B+) DEFINE B AS {condition}")
    assert p.defines["B"].glue is not None
    assert not p.defines["B"].history_free
    assert not p.program.history_free


def test_classifier_of_the_current_row_is_the_label_being_defined():
    # the row is tentatively B: the condition is constant, Spark computes it
    p = plan("ORDER BY id PATTERN (A B+) DEFINE B AS CLASSIFIER() = 'B' AND B.value > 0")
    assert p.defines["B"].glue is None and p.defines["B"].local_column is not None
    assert p.defines["B"].history_free


def test_history_free_needs_every_define():
    p = plan("ORDER BY id PATTERN (A B+ C) DEFINE B AS B.value < PREV(B.value), C AS C.value > 0")
    assert p.program.history_free
    p = plan("ORDER BY id PATTERN (A B+ C) DEFINE B AS B.value < PREV(B.value), C AS C.id > A.id")
    assert not p.program.history_free


def test_subset_containing_the_variable_is_the_current_row():
    p = plan("ORDER BY id PATTERN (A B+) SUBSET U = (A, B) DEFINE B AS U.value > 1")
    d = p.defines["B"]
    assert d.glue is None
    assert p.precomputed == [(d.local_column, "`Value` > 1")]


def test_subquery_is_row_local():
    p = plan("ORDER BY id PATTERN (A B+) DEFINE B AS (SELECT true)")
    assert p.defines["B"].glue is None
    assert p.precomputed == [(p.defines["B"].local_column, "(SELECT TRUE)")]


def test_same_row_local_text_is_computed_once():
    p = plan(
        "ORDER BY id PATTERN (A B+ C) DEFINE B AS B.value > 10, C AS C.value > 10",
    )
    assert p.defines["B"].local_column == p.defines["C"].local_column
    assert len(p.precomputed) == 1


def test_variable_without_define_is_always_true():
    p = plan("ORDER BY id PATTERN (A B+) DEFINE B AS B.value > 1")
    assert set(p.program.defines) == {p.program.label_names.index("B")}


# --------------------------------------------------------------------------- MEASURES


def test_measures_are_spark_sql_over_atoms():
    p = plan(
        "ORDER BY id MEASURES FINAL LAST(B.value) - FIRST(A.value) AS d, count(*) AS n, "
        "CLASSIFIER() AS c, value AS v, MATCH_NUMBER() AS m PATTERN (A B+) DEFINE B AS true"
    )
    assert p.measures == [
        ("d", "__mr_a0 - __mr_a1"),
        ("n", "__mr_a2"),
        ("c", "__mr_a3"),
        ("v", "__mr_a4"),
        ("m", "__mr_a5"),
    ]
    assert [(a.name, a.probe, a.aggregate) for a in p.atoms] == [
        ("__mr_a0", "`Value`", False),
        ("__mr_a1", "`Value`", False),
        ("__mr_a2", "CAST(NULL AS BIGINT)", True),
        ("__mr_a3", "CAST(NULL AS STRING)", False),
        ("__mr_a4", "`Value`", False),
        ("__mr_a5", "CAST(NULL AS BIGINT)", False),
    ]


def test_navigation_of_an_expression_reads_a_precomputed_column():
    # in DEFINE, Spark computes the argument as a column and the navigation reads it
    p = plan("ORDER BY id PATTERN (A B+) DEFINE B AS B.value > FIRST(A.value * 2)")
    assert "`Value` * 2" in dict((text, name) for name, text in p.precomputed)


def test_navigation_of_an_expression_in_a_measure_computes_it_after():
    # in MEASURES, the navigation reads the columns and the value is computed from them
    # (a row the measure never reads cannot fail the job), NULL where no row is found
    p = plan(
        "ORDER BY id MEASURES FIRST(A.value * 2) AS f, LAST(A.value * 2, 1) AS g "
        "PATTERN (A B+) DEFINE B AS B.value > 0"
    )
    assert "`Value` * 2" not in dict((text, name) for name, text in p.precomputed)
    assert [a.probe for a in p.atoms] == ["`Value`", "CAST(NULL AS BOOLEAN)"] * 2
    assert p.measures == [
        ("f", "(CASE WHEN __mr_a1 THEN __mr_a0 * 2 END)"),
        ("g", "(CASE WHEN __mr_a3 THEN __mr_a2 * 2 END)"),
    ]


def test_aggregate_probe_keeps_function_and_distinct():
    p = plan(
        "ORDER BY id MEASURES sum(B.value) AS s, count(DISTINCT B.name) AS d "
        "PATTERN (A B+) DEFINE B AS true"
    )
    assert [a.probe for a in p.atoms] == ["SUM(`Value`)", "COUNT(DISTINCT `name`)"]
    assert all(a.aggregate for a in p.atoms)


def test_measure_subquery_is_left_to_spark():
    p = plan("ORDER BY id MEASURES (SELECT 'x') AS val PATTERN (A) DEFINE A AS true")
    assert p.measures == [("val", "(SELECT 'x')")]
    assert p.atoms == []


def test_origins_locate_precomputed_columns_and_measures():
    body = (
        "ORDER BY id MEASURES FIRST(A.value * 2) AS f, B.name AS n "
        "PATTERN (A B+) DEFINE B AS B.value > 10 AND FIRST(A.value + 1) > 0"
    )
    p = plan(body)
    by_text = {text: name for name, text in p.precomputed}
    assert p.origins[by_text["`Value` + 1"]] == body.index("A.value + 1")
    assert p.origins[by_text["`Value` > 10"]] == body.index("B.value > 10")
    assert p.origins["f"] == body.index("FIRST(")
    assert p.origins["n"] == body.index("B.name")


# --------------------------------------------------------------------------- clause parts


def test_partition_and_order_resolve_column_names():
    p = plan(
        'PARTITION BY "name", `ts` ORDER BY VALUE DESC NULLS FIRST, id PATTERN (A) DEFINE A AS true'
    )
    assert p.partition_by == ["name", "ts"]
    # as written; else Spark's default: ASC NULLS FIRST, DESC NULLS LAST
    assert p.order_by == [("Value", True, True), ("id", False, True)]
    p = plan("ORDER BY value DESC, id ASC NULLS LAST PATTERN (A) DEFINE A AS true")
    assert p.order_by == [("Value", True, False), ("id", False, False)]


def test_labels_skip_and_within():
    p = plan(
        "ORDER BY ts AFTER MATCH SKIP TO LAST U PATTERN (A B C) WITHIN INTERVAL '2' MINUTE "
        "SUBSET U = (A, C) DEFINE B AS true"
    )
    assert p.program.label_names == ["A", "B", "C"]
    assert p.program.skip_mode == "last"
    assert p.program.skip_labels == frozenset({0, 2})
    assert p.within_column == "ts" and p.program.within_seconds == 120.0


@pytest.mark.parametrize(
    ("rows", "one_row", "with_unmatched"),
    [
        ("ONE ROW PER MATCH", True, False),
        ("ALL ROWS PER MATCH", False, False),
        ("ALL ROWS PER MATCH WITH UNMATCHED ROWS", False, True),
    ],
)
def test_rows_per_match_flags(rows, one_row, with_unmatched):
    p = plan(f"ORDER BY id {rows} PATTERN (A) DEFINE A AS true")
    assert (p.one_row, p.with_unmatched) == (one_row, with_unmatched)


# --------------------------------------------------------------------------- running plans

VALUES = {"id": [1, 2, 3, 4, 5, 6], "value": [90, 80, 70, 80, 70, 80]}


def test_prev_condition_runs():
    _, rows = run(
        "MEASURES FIRST(A.id) AS a, LAST(B.id) AS b "
        "PATTERN (A B+) DEFINE B AS B.value < PREV(B.value)",
        VALUES,
    )
    assert [atoms for _, atoms in rows] == [[1, 3], [4, 5]]


def test_other_variable_column_in_define_is_its_last_row():
    # B.value < A.value means B.value < LAST(A.value), RUNNING
    body = "MEASURES A.id AS a, LAST(B.id) AS b PATTERN (A B+) DEFINE B AS {}"
    _, plain = run(body.format("B.value < A.value"), VALUES)
    _, explicit = run(body.format("B.value < LAST(A.value)"), VALUES)
    assert plain == explicit == [(0, [1, 6])]


def test_classifier_of_a_variable_inside_navigation():
    body = (
        "MEASURES LAST(CLASSIFIER(A)) AS la, FIRST(CLASSIFIER(B)) AS fb, "
        "LAST(CLASSIFIER()) AS l PATTERN (A B+) DEFINE B AS B.value < PREV(B.value)"
    )
    _, rows = run(body, VALUES)
    assert [atoms for _, atoms in rows] == [["A", "B", "B"], ["A", "B", "B"]]


def test_is_distinct_from_in_glue():
    body = (
        "MEASURES count(*) AS n PATTERN (A B+) DEFINE B AS PREV(B.value) IS DISTINCT FROM B.value"
    )
    _, rows = run(body, {"id": [1, 2, 3, 4], "value": [1, 1, 2, None]})
    assert [atoms for _, atoms in rows] == [[3]]


@pytest.mark.parametrize(
    ("condition", "value", "expected"),
    [
        # values of two rows (B's previous row, A's): the glue computes the function
        # (of one row's values Spark would, moved inside the navigation)
        ("sqrt(PREV(B.value) - A.value * 2) IS NULL", 50, False),  # NaN, as in Spark
        ("ln(PREV(B.value) - A.value) IS NULL", 50, True),  # NULL, as in Spark
        ("power(PREV(B.value), A.value * 20) > 0", 50, True),  # +inf, not an OverflowError
    ],
)
def test_glue_math_follows_spark(condition, value, expected):
    body = f"MEASURES count(*) AS n PATTERN (A B) DEFINE B AS {condition}"
    _, rows = run(body, {"id": [1, 2], "value": [value, value]})
    assert bool(rows) is expected


# --------------------------------------------------------------------------- expression text


def test_prepare_keeps_length_and_marks_semantics():
    text = "FINAL  LAST(\"b\".x) + RUNNING count(*) + 'FINAL LAST('"
    out = prepare(text)
    assert len(out) == len(text)
    assert out.startswith("FINAL\u00b7\u00b7LAST(`b`.x) + RUNNING\u00b7count(*)")
    assert out.endswith("'FINAL LAST('")  # string literals are left alone


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ('"b".x + count("b".*)', ["b", "b"]),
        ('A."price" > PREV("price")', ["price"]),
        ('lower(CLASSIFIER( "b" )) = "b"', ["b"]),
        ('"PREV"(x) = "x"', ["PREV"]),
        ('sym = "ACME" AND concat(a, "-", b) <> "a.b"', []),
    ],
)
def test_double_quotes_name_labels_and_columns_else_are_spark_strings(text, names):
    # Spark reads "..." as a string literal; matchrec keeps that, except where the span
    # can only be a name (a qualifier, a field, a function, CLASSIFIER's label)
    tree = parse_expression(SqlExpr(text, 0), text)
    quoted = [i.this for i in tree.find_all(exp.Identifier) if i.quoted]
    assert sorted(quoted) == sorted(names)
    strings = [lit.this for lit in tree.find_all(exp.Literal) if lit.is_string]
    assert len(strings) == text.count('"') // 2 - len(names)


def test_node_pos_finds_the_first_token_of_a_node():
    sql = "xx DEFINE B AS a + -(1) > PREV(b)"
    base = sql.index("a +")
    tree = parse_expression(SqlExpr(sql[base:], base), sql)
    add = tree.this
    neg = add.expression
    assert node_pos(tree, base, sql) == base
    assert node_pos(neg, base, sql) == sql.index("-(")
    assert node_pos(neg.this, base, sql) == sql.index("(1)")
    assert node_pos(tree.expression, base, sql) == sql.index("PREV")


@pytest.mark.parametrize(
    "text",
    [
        "CAST(CAST(S.v AS DECIMAL(10, 2)) * N.v AS DECIMAL(5, 2)) IS NULL",
        "CAST((CAST(a AS INT)) + 1 AS INT) > 0",
        "-(-(a) + b) > 0",
        "NOT (NOT a AND b)",
    ],
)
def test_node_pos_of_a_cast_negation_or_not_whose_operand_starts_with_one(text):
    """The outer CAST, ``-`` or NOT is placed on its own token, not on its operand's."""
    sql = f"xx DEFINE B AS {text}"
    base = sql.index(text)
    tree = parse_expression(SqlExpr(text, base), sql)
    outer = next(n for n in tree.walk() if isinstance(n, (exp.Cast, exp.TryCast, exp.Neg, exp.Not)))
    assert node_pos(outer, base, sql) == base


@pytest.mark.parametrize(
    "text",
    [
        "INTERVAL 90 MINUTES + ts",
        "interval '1' day + ts",
        "-INTERVAL 3 DAYS + ts",
        "INTERVAL 1 DAY",
        "INTERVAL '1 2' DAY TO HOUR - ts",
    ],
)
def test_node_pos_of_an_expression_starting_with_an_interval(text):
    """An interval keeps no position of its keyword, nor of an unquoted number and its
    unit: an expression it starts is placed on ``INTERVAL`` (or the ``-`` before it),
    not on the first token after it."""
    sql = f"xx DEFINE B AS PREV(ts) < {text}"
    base = sql.index("PREV")
    tree = parse_expression(SqlExpr(sql[base:], base), sql)
    assert node_pos(tree.expression, base, sql) == sql.index(text)


def test_node_pos_of_an_interval_first_after_another_operand():
    """The interval placed is the run of intervals right before the first positioned
    token, not an earlier operand's (``x > INTERVAL 1 DAY AND ...``)."""
    text = "INTERVAL 2 HOURS + ts < PREV(ts)"
    sql = f"xx DEFINE B AS PREV(ts) > INTERVAL 1 DAY AND {text}"
    base = sql.index("PREV")
    tree = parse_expression(SqlExpr(sql[base:], base), sql)
    assert node_pos(tree.expression.this, base, sql) == sql.index(text)


def test_sql_udfs_are_looked_up_only_where_the_glue_would_call_them():
    """A SQL UDF of two rows is inlined (its body, arguments CAST to the parameter
    types), and so is one of another row's value (Spark would call it on every row: it
    may fail on one the match never reads); a call of the current row alone stays
    Spark's, and is never looked up."""
    asked: list[str] = []

    def lookup(name: str):
        asked.append(name)
        return (["a INT", "b INT DEFAULT 0"], "abs(a - b)") if name == "gap" else None

    def plan(define: str) -> MatchPlan:
        body = f"ORDER BY o MEASURES count(*) AS c PATTERN (A B) DEFINE B AS {define}"
        return plan_clause(parse_clause(body), ["o", "n"], sql_functions=lookup)

    plan("gap(B.n, 3) < 5 AND pmod(n, 3) = 0")
    assert asked == []
    for define in ("gap(A.n, B.n) < 5", "gap(A.n) > 1"):
        asked.clear()
        found = plan(define)
        assert set(asked) == {"gap"}
        texts = " ".join(text for _, text in found.precomputed).upper()
        assert "GAP" not in texts and "CAST" in texts


def test_partition_by_a_struct_field_says_it_is_a_field():
    # Spark's window would take the expression; MATCH_RECOGNIZE takes column names
    with pytest.raises(SemanticError) as info:
        plan_clause(
            parse_clause("PARTITION BY info.city ORDER BY id PATTERN (A) DEFINE A AS true"),
            ["id", "info"],
        )
    assert info.value.message == (
        "Expected column reference. Actual: info.city (a field of column info; "
        "PARTITION BY takes column names, not expressions)"
    )
    assert info.value.pos == len("PARTITION BY ")
    assert "SELECT *, info.city AS city FROM" in info.value.hint


def test_a_column_twice_in_partition_by_is_refused_at_the_second():
    body = "PARTITION BY id, name, ID ORDER BY ts PATTERN (A) DEFINE A AS true"
    with pytest.raises(SemanticError, match="column 'id' appears twice in PARTITION BY") as info:
        plan(body)
    assert body[info.value.pos :].startswith("ID ORDER")


@pytest.mark.parametrize(
    "condition",
    [
        "price < PREV(price) - CAST(0.5BD AS decimal(1,1))",
        "NOT (CAST(1BD AS INT) > 0)",
        "-(CAST(2BD AS DOUBLE)) < price",
    ],
)
def test_a_cast_of_a_typed_literal_plans(condition):
    """A CAST of a literal sqlglot keeps no position of (``0.5BD``, what a DECIMAL
    parameter bound on Spark Connect becomes) took node_pos into endless recursion."""
    body = f"PARTITION BY sym ORDER BY t PATTERN (A B+) DEFINE B AS {condition}"
    assert plan_clause(parse_clause(body), ["sym", "t", "price"]).defines["B"] is not None


@pytest.mark.parametrize("connector", [" OR ", " AND "])
def test_a_condition_of_thousands_of_terms_is_planned(connector):
    """A generated rule (``B.v = A.v OR B.v = A.v + 1 OR ...``, 1500 terms) is planned as Spark
    takes it: the parser nests a chain one level per term, and the planner's walks
    recursed past Python's limit (a bare RecursionError from about 400 terms on). The
    terms stay in their order, for the match-dependent part the glue evaluates too."""
    terms = [f"B.Value {'=' if connector == ' OR ' else '<>'} A.Value + {k}" for k in range(1500)]
    body = f"ORDER BY id PATTERN (A B) DEFINE B AS {connector.join(terms)}"
    _, rows = run(
        body, {"id": [1, 2, 3], "Value": [5, 5 + 1499, 7], "name": ["", "", ""], "ts": [0, 0, 0]}
    )
    assert [row for row, _ in rows] == ([0] if connector == " OR " else [1])


@pytest.mark.parametrize(
    "body",
    [
        "ORDER BY id MEASURES round(LAST(B.Value),) AS r PATTERN (A B) DEFINE B AS id > 0",
        "ORDER BY id MEASURES count(*) AS r PATTERN (A B) DEFINE B AS Value > PREV(Value,)",
        "ORDER BY id MEASURES count(B.id,) AS r PATTERN (A B) DEFINE B AS id > 0",
    ],
)
def test_a_comma_before_a_closing_parenthesis_is_a_syntax_error_at_it(body):
    """Spark's parser refuses ``PREV(price,)``; sqlglot read it as ``PREV(price)`` and the
    query ran as if the comma were not there."""
    from matchrec.errors import SqlSyntaxError

    with pytest.raises(SqlSyntaxError) as info:
        plan(body)
    assert info.value.message == "unexpected ')' after ','"
    assert body[info.value.pos :].startswith(",)")


@pytest.mark.parametrize(
    ("condition", "at", "message"),
    [
        ("Value > PREV(Value,, 1)", ", 1", "unexpected ',' after ','"),
        ("Value > coalesce(, 1)", ", 1", "unexpected ',' after '('"),
        ("Value IN ()", "IN (", "IN needs at least one value"),
        ("Value NOT IN ( )", "IN (", "IN needs at least one value"),
        # sqlglot took the ';' for the statement's end: the query ran as if it were not there
        ("Value > PREV(Value);", ";", "unexpected ';' inside the clause"),
        # ... and where what follows it does not parse (a ',' meant between two items)
        ("Value > PREV(Value);\n  C AS Value > 1", ";", "unexpected ';' inside the clause"),
    ],
)
def test_an_item_left_out_of_a_list_is_a_syntax_error_at_it(condition, at, message):
    """Spark's parser refuses ``PREV(price,, 1)``, ``f(, x)`` and ``x IN ()``; sqlglot read
    the first two as if nothing were missing (the query ran) and ``IN ()`` as FALSE."""
    from matchrec.errors import SqlSyntaxError

    body = f"ORDER BY id PATTERN (A B) DEFINE B AS {condition}"
    with pytest.raises(SqlSyntaxError) as info:
        plan(body)
    assert info.value.message.startswith(message)
    assert info.value.pos == body.index(at, body.index("DEFINE"))


@pytest.mark.parametrize(
    ("condition", "operator"),
    [
        ("< Value PREV(Value)", "<"),
        ("AND Value > 1", "AND"),
        ("Value > 1 AND (= 3)", "="),
        ("CASE WHEN < 3 THEN true END", "<"),
        ("NOT < 3", "<"),
    ],
)
def test_an_operator_without_its_left_operand_is_told_at_the_operator(condition, operator):
    """It said "'PREV' needs an operand after it", at the word after the operand."""
    from matchrec.errors import SqlSyntaxError

    body = f"ORDER BY id PATTERN (A B) DEFINE B AS {condition}"
    with pytest.raises(SqlSyntaxError) as info:
        plan(body)
    assert info.value.message == f"{operator!r} needs an operand before it"
    assert info.value.pos == body.index(f"{operator} ", body.index("DEFINE"))


def test_only_an_aggregate_argument_that_can_fail_is_guarded_by_its_rows():
    """``sum(CAST(B.s AS INT))`` under ANSI mode is no Spark column: the matcher casts the
    rows it reads; ``sum(CAST(B.s AS INT) + 1)``, whose width Spark's column keeps, is
    computed only at rows that meet B's row-local condition (another event's text would
    fail the job); arithmetic that cannot fail stays one plain column, shared by the
    aggregates that read it, which the array form of rules computes (it has no CASE)."""
    body = (
        "ORDER BY id MEASURES sum(A.Value * A.id) AS a, sum(B.Value * B.id) AS b, "
        "avg(Value * id) AS c, sum(CAST(B.name AS INT)) AS d, "
        "sum(CAST(B.name AS INT) + 1) AS e "
        "PATTERN (A B+) DEFINE A AS id > 1, B AS Value < 5"
    )
    types = {"id": "int", "value": "double", "name": "string", "ts": "timestamp"}
    guarded = dict(
        plan_clause(parse_clause(body), COLUMNS, ansi=True, column_types=types).precomputed
    )
    texts = sorted(guarded.values())
    assert texts.count("`Value` * `id`") == 1
    assert "CASE WHEN (`Value` < 5) THEN CAST(`name` AS INT) + 1 END" in texts
    assert not [t for t in texts if t.startswith("CAST(")]  # d's argument: no column
    plain = dict(
        plan_clause(parse_clause(body), COLUMNS, ansi=False, column_types=types).precomputed
    )
    assert "CAST(`name` AS INT)" in plain.values()  # cannot fail without ANSI mode


@pytest.mark.parametrize("written", ["‘ok’", "“ok”"])
def test_typographic_quotes_are_named_in_the_hint(written):
    """Text pasted from a document: ``note = ‘ok’`` was an unknown column with the
    input columns listed, no word of the quotes."""
    from matchrec.errors import SemanticError

    body = f"ORDER BY id PATTERN (A) DEFINE A AS Value = {written}"
    with pytest.raises(SemanticError) as info:
        plan(body)
    assert "are no SQL quotes" in info.value.hint and "'ok'" in info.value.hint
    assert info.value.pos == body.index(written)
