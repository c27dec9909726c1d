"""User errors: each is a MatchRecognizeError that says what, where (line, column, caret)
and, where it helps, how to fix it, and is raised before any Spark job runs.

Most tests plan a clause body in pure Python (``plan_clause(parse_clause(body), COLUMNS)``).
Expected positions are computed from the query text (``body.index(...)``), never written
as numbers. The tests at the end go through ``matchrec.sql`` on Spark: positions are
relative to the whole query, no Spark job runs for a planning error, and the runtime
errors the standard defines reach the user with Trino's wording.
"""

from __future__ import annotations

import logging
import re
import subprocess
import sys
import unicodedata
from collections.abc import Callable
from datetime import date, timedelta

import pytest
from matchrec.grammar import parse_clause
from matchrec.planner.plan import plan_clause
from matchrec.planner.statement import (
    bound_parameters,
    check_syntax,
    cte_scope,
    read_statement,
)
from matchrec.runtime.session import SettingError, session_settings
from pyspark.errors import AnalysisException, PySparkException

import matchrec
from matchrec.engine import run_partition
from matchrec.errors import (
    MatchRecognizeError,
    MatchRuntimeError,
    SemanticError,
    SqlSyntaxError,
    UnsupportedError,
)
from matchrec.excepthook import carried_error
from matchrec.sql_literals import sql_literal

COLUMNS = ["id", "value", "name", "ts"]


# --------------------------------------------------------------------------- helpers


def plan(body: str, columns: list[str] = COLUMNS):
    return plan_clause(parse_clause(body), columns)


def plan_error(body: str, columns: list[str] = COLUMNS) -> MatchRecognizeError:
    with pytest.raises(MatchRecognizeError) as info:
        plan(body, columns)
    return info.value


def find(text: str, needle: str, nth: int = 0) -> int:
    """Offset of the ``nth`` (0-based) occurrence of ``needle`` in ``text``."""
    pos = -1
    for _ in range(nth + 1):
        pos = text.index(needle, pos + 1)
    return pos


def line_col(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def caret_char(err: MatchRecognizeError) -> str:
    """The character of the quoted source line that the caret in ``str(err)`` is under."""
    lines = str(err).split("\n")
    k = next(i for i, line in enumerate(lines) if line.strip() == "^")
    return lines[k - 1][lines[k].index("^")]


def assert_error(
    err: MatchRecognizeError,
    sql: str,
    pos: int,
    cls: type = MatchRecognizeError,
    message: str = "",
    hint: str | None = None,
) -> None:
    """``err`` is a ``cls`` about ``message`` at offset ``pos`` of ``sql``, shown with a caret."""
    assert isinstance(err, cls), f"{type(err).__name__}: {err}"
    assert message in err.message, err.message
    assert err.sql == sql
    assert err.pos == pos, f"expected {line_col(sql, pos)}, got {err}"
    assert (err.line, err.column) == line_col(sql, pos)
    rendered = str(err)
    assert rendered.startswith(f"{err.kind}: {err.message} (line {err.line}, column {err.column})")
    assert caret_char(err) == sql[pos]
    if hint is not None:
        assert err.hint is not None and hint in err.hint, err.hint
        assert f"hint: {err.hint}" in rendered


# A clause with every part, spread over several lines; the cases below break one part.
GOOD = """PARTITION BY name
ORDER BY id
MEASURES FIRST(A.value) AS first_value,
         LAST(B.value) AS last_value,
         count(B.*) AS n
ONE ROW PER MATCH
AFTER MATCH SKIP PAST LAST ROW
PATTERN (A B+ C?)
SUBSET U = (B, C)
DEFINE B AS B.value < PREV(B.value),
       C AS C.value > PREV(C.value)"""


def test_the_good_clause_plans():
    result = plan(GOOD)
    assert [m[0] for m in result.measures] == ["first_value", "last_value", "n"]


def broken(old: str, new: str) -> str:
    assert GOOD.count(old) == 1, old
    return GOOD.replace(old, new)


# (id, body, text at the expected caret, occurrence, class, message, hint)
CASES = [
    # ---- unknown pattern variables
    (
        "unknown label in MEASURES",
        broken("FIRST(A.value) AS", "FIRST(X.value) AS"),
        "X.value",
        0,
        SemanticError,
        "X is not a primary pattern variable or subset name",
        "pattern variables: A, B, C, U",
    ),
    (
        "unknown label qualifying a plain column in MEASURES",
        broken("count(B.*) AS n", "D.value AS n"),
        "D.value",
        0,
        SemanticError,
        "D is not a primary pattern variable or subset name",
        "pattern variables: A, B, C, U",
    ),
    (
        "unknown label in count(X.*)",
        broken("count(B.*)", "count(X.*)"),
        "X.*",
        0,
        SemanticError,
        "X is not a primary pattern variable or subset name",
        None,
    ),
    (
        "unknown label in CLASSIFIER(X)",
        broken("count(B.*)", "CLASSIFIER(X)"),
        "X)",
        0,
        SemanticError,
        "X is not a primary pattern variable or subset name",
        None,
    ),
    (
        "unknown label in DEFINE",
        broken("C.value > PREV(C.value)", "C.value > PREV(Q.value)"),
        "Q.value",
        0,
        SemanticError,
        "Q is not a primary pattern variable or subset name",
        "pattern variables: A, B, C, U",
    ),
    (
        "close label name gets a suggestion",
        broken("FIRST(A.value)", 'FIRST("a".value)'),
        '"a".value',
        0,
        SemanticError,
        "a is not a primary pattern variable or subset name",
        "did you mean A?",
    ),
    (
        "a table alias is not a qualifier",
        broken("FIRST(A.value)", "FIRST(t.value)"),
        "t.value",
        0,
        SemanticError,
        "T is not a primary pattern variable or subset name",
        "not a table",
    ),
    (
        "unknown label in SUBSET",
        broken("SUBSET U = (B, C)", "SUBSET U = (B, Z)"),
        "Z)",
        0,
        SemanticError,
        "subset element: Z is not a primary pattern variable (in SUBSET U)",
        "pattern variables: A, B, C",
    ),
    (
        "SUBSET named like a pattern variable",
        broken("SUBSET U = (B, C)", "SUBSET A = (B, C)"),
        "A = (B",
        0,
        SemanticError,
        "union pattern variable name: A is a duplicate of primary pattern variable name",
        None,
    ),
    (
        "unknown label in AFTER MATCH SKIP TO",
        broken("SKIP PAST LAST ROW", "SKIP TO LAST Z"),
        "Z\n",
        0,
        SemanticError,
        "Z is not a primary or union pattern variable (AFTER MATCH SKIP TO names it)",
        "pattern variables: A, B, C, U",
    ),
    # ---- DEFINE
    (
        "label defined twice",
        broken("C AS C.value > PREV(C.value)", "B AS B.value > 0"),
        "B AS B.value > 0",
        0,
        SemanticError,
        "pattern variable with name: B is defined twice",
        "AND",
    ),
    (
        "DEFINE of a variable not in PATTERN",
        broken("C AS C.value > PREV(C.value)", "D AS D.value > 0"),
        "D AS",
        0,
        SemanticError,
        "defined variable: D is not a primary pattern variable (it does not appear in PATTERN)",
        "pattern variables: A, B, C",
    ),
    (
        "DEFINE of a SUBSET",
        broken("C AS C.value > PREV(C.value)", "U AS U.value > 0"),
        "U AS",
        0,
        SemanticError,
        "defined variable: U is not a primary pattern variable (it is a "
        "SUBSET; DEFINE takes the variables of PATTERN)",
        None,
    ),
    (
        "FINAL in DEFINE",
        broken("B.value < PREV(B.value)", "B.value < FINAL LAST(B.value)"),
        "FINAL LAST",
        0,
        SemanticError,
        "FINAL semantics is not supported in DEFINE clause",
        "RUNNING",
    ),
    (
        "FINAL aggregate in DEFINE",
        broken("B.value < PREV(B.value)", "FINAL count(B.*) < 3"),
        "FINAL count",
        0,
        SemanticError,
        "FINAL semantics is not supported in DEFINE clause",
        "RUNNING",
    ),
    # ---- navigation and aggregate nesting
    (
        "PREV inside FIRST",
        broken("FIRST(A.value)", "FIRST(PREV(A.value))"),
        "PREV(A.value)",
        0,
        SemanticError,
        "Cannot nest prev pattern navigation function inside first pattern navigation function",
        "PREV(FIRST(x))",
    ),
    (
        "NEXT inside LAST in DEFINE",
        broken("PREV(C.value)", "LAST(NEXT(C.value))"),
        "NEXT(C.value)",
        0,
        SemanticError,
        "Cannot nest next pattern navigation function inside last pattern navigation function",
        None,
    ),
    (
        "FIRST inside FIRST",
        broken("FIRST(A.value)", "FIRST(FIRST(A.value))"),
        "FIRST(A.value)",
        0,
        SemanticError,
        "Cannot nest first pattern navigation function inside first pattern navigation function",
        "FIRST(B.x, 1), not FIRST(FIRST(B.x))",
    ),
    (
        "PREV inside PREV",
        broken("PREV(B.value)", "PREV(PREV(B.value))"),
        "PREV(B.value)",
        0,
        SemanticError,
        "Cannot nest prev pattern navigation function inside prev pattern navigation function",
        "PREV(x, 2), not PREV(PREV(x))",
    ),
    (
        "FIRST inside an expression argument of PREV",
        broken("PREV(B.value)", "PREV(FIRST(B.value) + 1)"),
        "FIRST(B.value) + 1",
        0,
        SemanticError,
        "Immediate nesting is required for pattern navigation functions",
        None,
    ),
    (
        "navigation inside an aggregate",
        broken("count(B.*)", "sum(PREV(B.value))"),
        "PREV(B.value)",
        0,
        SemanticError,
        "Cannot nest prev pattern navigation function inside sum function",
        "a navigation is no argument of an aggregate",
    ),
    (
        "aggregate inside navigation",
        broken("FIRST(A.value)", "FIRST(avg(A.value))"),
        "avg(A.value)",
        0,
        SemanticError,
        "Cannot nest avg aggregate function inside first function",
        "write the aggregate alone",
    ),
    (
        "aggregate inside PREV in DEFINE",
        broken("PREV(B.value)", "PREV(max(B.value))"),
        "max(B.value)",
        0,
        SemanticError,
        "Cannot nest max aggregate function inside prev function",
        "write the aggregate alone",
    ),
    (
        "aggregates nested",
        broken("count(B.*)", "sum(avg(B.value))"),
        "avg(B.value)",
        0,
        SemanticError,
        "Cannot nest avg aggregate function inside sum function",
        "aggregates do not nest",
    ),
    (
        "aggregates nested in DEFINE",
        broken("PREV(B.value)", "max(count(B.*))"),
        "count(B.*)",
        1,
        SemanticError,
        "Cannot nest count aggregate function inside max function",
        "aggregates do not nest",
    ),
    # ---- unknown columns
    (
        "unknown column in DEFINE",
        broken("B.value < PREV(B.value)", "B.price < PREV(B.value)"),
        "price",
        0,
        SemanticError,
        "Column price prefixed with label B cannot be resolved",
        "input columns: id, value, name, ts",
    ),
    (
        "unknown unqualified column in MEASURES",
        broken("count(B.*) AS n", "vlaue AS n"),
        "vlaue",
        0,
        SemanticError,
        "Column 'vlaue' cannot be resolved",
        "did you mean value?",
    ),
    (
        "a measure named in another measure (a lateral alias in Spark's SELECT)",
        broken("count(B.*) AS n", "last_value - first_value AS n"),
        "last_value - first",
        0,
        SemanticError,
        "Column 'last_value' cannot be resolved",
        "last_value is a measure, and a measure cannot use another (the SQL standard's "
        "scope, unlike Spark's lateral column aliases in SELECT): write its expression, "
        "LAST(B.value), in its place",
    ),
    (
        "unknown column inside navigation",
        broken("LAST(B.value)", "LAST(B.nosuch)"),
        "nosuch",
        0,
        SemanticError,
        "Column nosuch prefixed with label B cannot be resolved",
        None,
    ),
    (
        "unknown column in PARTITION BY",
        broken("PARTITION BY name", "PARTITION BY nmae"),
        "nmae",
        0,
        SemanticError,
        "Column nmae is not present in the input relation (PARTITION BY)",
        "input columns: id, value, name, ts",
    ),
    (
        "unknown column in ORDER BY",
        broken("ORDER BY id", "ORDER BY time"),
        "time",
        0,
        SemanticError,
        "Column time is not present in the input relation (ORDER BY)",
        "input columns",
    ),
    (
        "expression in ORDER BY",
        broken("ORDER BY id", "ORDER BY id + 1"),
        "id + 1",
        0,
        SemanticError,
        "ORDER BY takes column names, not expressions",
        "subquery",
    ),
    # ---- offsets
    (
        "negative PREV offset",
        broken("PREV(B.value)", "PREV(B.value, -1)"),
        "-1",
        0,
        SemanticError,
        "prev pattern recognition navigation function requires a non-negative "
        "number as the second argument",
        "PREV(x, 2)",
    ),
    (
        "negative FIRST offset",
        broken("FIRST(A.value)", "FIRST(A.value, -1)"),
        "-1",
        0,
        SemanticError,
        "first pattern recognition navigation function requires a non-negative "
        "number as the second argument",
        None,
    ),
    (
        "fractional LAST offset",
        broken("LAST(B.value)", "LAST(B.value, 1.5)"),
        "1.5",
        0,
        SemanticError,
        "last pattern recognition navigation function requires a number as the second argument",
        None,
    ),
    (
        "column as NEXT offset",
        broken("PREV(C.value)", "NEXT(C.value, id)"),
        "id)",
        0,
        SemanticError,
        "next pattern recognition navigation function requires a number as the second argument",
        None,
    ),
    (
        "NULL as offset",
        broken("PREV(C.value)", "PREV(C.value, NULL)"),
        "NULL",
        0,
        SemanticError,
        "prev pattern recognition navigation function requires a number as the second argument",
        None,
    ),
    (
        "three arguments to PREV",
        broken("PREV(C.value)", "PREV(C.value, 1, 2)"),
        "2)",
        0,
        SemanticError,
        "prev pattern recognition function requires 1 or 2 arguments",
        None,
    ),
    (
        "PREV without argument",
        broken("PREV(C.value)", "PREV()"),
        "PREV()",
        0,
        SemanticError,
        "prev pattern recognition function requires 1 or 2 arguments",
        None,
    ),
    # ---- one pattern variable per navigation / aggregate
    (
        "two labels in one navigation",
        broken("PREV(B.value)", "PREV(A.value + B.value)"),
        "A.value + ^^B.value",
        0,
        SemanticError,
        "Column references inside argument of function prev must all either be "
        "prefixed with the same label or be not prefixed",
        "PREV(A.x) - PREV(B.x)",
    ),
    (
        "label and no label in one navigation",
        broken("FIRST(A.value)", "FIRST(value - A.value)"),
        "value - ^^A.value",
        0,
        SemanticError,
        "mixes a column without pattern variable and pattern variable A",
        None,
    ),
    (
        "two labels in one aggregate argument",
        broken("count(B.*)", "sum(B.value * C.value)"),
        "C.value",
        0,
        SemanticError,
        "Column references inside argument of function sum must all either be "
        "prefixed with the same label or be not prefixed",
        None,
    ),
    (
        "two labels in an aggregate sqlglot renames",  # was named array_agg
        broken("count(B.*)", "collect_list(B.value * C.value)"),
        "C.value",
        0,
        SemanticError,
        "Column references inside argument of function collect_list must all either be "
        "prefixed with the same label or be not prefixed",
        "collect_list(A.x) - collect_list(B.x)",
    ),
    (
        "two labels across aggregate arguments",
        broken("count(B.*)", "max_by(B.value, C.id)"),
        "C.id",
        0,
        SemanticError,
        "All aggregate function arguments must apply to rows matched with the "
        "same label (MAX_BY mixes pattern variable B and pattern variable C)",
        None,
    ),
    (
        "CLASSIFIER of another label in a navigation",
        broken("FIRST(A.value)", "FIRST(CLASSIFIER(B) || A.name)"),
        "A.name",
        0,
        SemanticError,
        "mixes pattern variable B and pattern variable A",
        None,
    ),
    # ---- WITHIN
    (
        "WITHIN without ORDER BY",
        broken("ORDER BY id\n", "").replace("SUBSET", "WITHIN INTERVAL '10' SECOND\nSUBSET"),
        "WITHIN",
        0,
        SemanticError,
        "WITHIN needs ORDER BY on a time column",
        "ORDER BY",
    ),
    (
        "WITHIN with a descending first key",
        broken("ORDER BY id", "ORDER BY ts DESC").replace(
            "SUBSET", "WITHIN INTERVAL '10' SECOND\nSUBSET"
        ),
        "ts DESC",
        0,
        SemanticError,
        "WITHIN needs the first ORDER BY key ascending",
        None,
    ),
    # ---- odd inputs that used to reach Python or Spark internals
    (
        "CLASSIFIER with two arguments",
        broken("count(B.*)", "CLASSIFIER(A, B)"),
        "B)",
        0,
        SemanticError,
        "CLASSIFIER pattern recognition function takes no arguments or 1 argument",
        "CLASSIFIER(A)",
    ),
    (
        "CLASSIFIER of a column",
        broken("count(B.*)", "CLASSIFIER(A.value)"),
        "CLASSIFIER(^^A.value)",
        0,
        SemanticError,
        "CLASSIFIER function argument should be primary pattern variable or "
        "subset name. Actual: A.value",
        None,
    ),
    (
        "CLASSIFIER with two arguments in DEFINE",
        broken("PREV(C.value)", "PREV(C.value) AND CLASSIFIER(A, B) = 'A'"),
        "B) = 'A'",
        0,
        SemanticError,
        "CLASSIFIER pattern recognition function takes no arguments or 1 argument",
        None,
    ),
    (
        "count with two star arguments",
        broken("count(B.*)", "count(A.*, B.*)"),
        "B.*)",
        0,
        SemanticError,
        "COUNT takes 1 argument, got 2",
        None,
    ),
    (
        "star outside count",
        broken("count(B.*) AS n", "A.* AS n"),
        "A.* AS n",
        0,
        SemanticError,
        "label.* syntax is only supported as the only argument of row pattern count",
        "count(A.*)",
    ),
    (
        "star in arithmetic in DEFINE",
        broken("PREV(C.value)", "PREV(C.value) + C.*"),
        "C.*",
        0,
        SemanticError,
        "label.* syntax is only supported as the only argument of row pattern count",
        None,
    ),
    (
        "star in another aggregate",
        broken("count(B.*)", "sum(B.*)"),
        "B.*",
        0,
        SemanticError,
        "label.* syntax is only supported as the only argument of row pattern "
        "count function, not of sum: B.*",
        "sum(B.x)",
    ),
    (
        "MATCH_NUMBER with an argument",
        broken("count(B.*)", "MATCH_NUMBER(1)"),
        "1)",
        0,
        SemanticError,
        "MATCH_NUMBER pattern recognition function takes no arguments",
        "MATCH_NUMBER()",
    ),
    (
        "unknown function on match-dependent values",
        broken("C.value > PREV(C.value)", "my_udf(C.x, A.value)"),
        "x, A.value",
        0,
        SemanticError,  # C.x is checked first: unknown column
        "Column x prefixed with label C cannot be resolved",
        None,
    ),
    (
        "unknown function applied to another label's column",
        broken("C.value > PREV(C.value)", "my_udf(C.value, A.value)"),
        "my_udf",
        0,
        UnsupportedError,
        "function my_udf() cannot be applied to a value that depends on the match",
        "compute it per row in a subquery",
    ),
    (
        "regex construct the glue cannot translate, in a literal pattern",
        broken("C.value > PREV(C.value)", "concat(C.name, A.name) RLIKE 'ab(?x) c'"),
        "(?^^x) c'",
        0,
        UnsupportedError,
        "the regex construct the flag (?x) (comments) is not computed for values of several rows",
        "rewrite the pattern without it",
    ),
    (
        "regex Java rejects, in a literal pattern",
        broken("C.value > PREV(C.value)", "regexp_count(concat(C.name, A.name), 'a{,2}') > 0"),
        "{,2}'",
        0,
        SemanticError,
        "invalid regex 'a{,2}': Illegal repetition (Java rejects it)",
        None,
    ),
    (
        "CAST of a value of two rows to an interval in DEFINE (numbers, strings, datetimes, "
        "BINARY: glue's)",
        broken("C.value > PREV(C.value)", "CAST(C.name || FIRST(C.name) AS INTERVAL DAY) IS NULL"),
        "CAST(C.name ||",
        0,
        UnsupportedError,
        "CAST cannot be applied to a value that depends on the match",
        None,
    ),
    (
        "subquery referring to a label in DEFINE",
        broken("C.value > PREV(C.value)", "C.value > (SELECT max(A.value) FROM t)"),
        "A.value) FROM",
        0,
        SemanticError,
        "a subquery cannot refer to pattern variable A",
        "not visible inside subqueries",
    ),
    (
        "subquery referring to a label in MEASURES",
        broken("count(B.*)", "(SELECT B.value)"),
        "(SELECT ^^B.value)",
        0,
        SemanticError,
        "a subquery cannot refer to pattern variable B",
        None,
    ),
    (
        "IN subquery referring to a label",
        broken("C.value > PREV(C.value)", "C.value IN (SELECT U.value FROM t)"),
        "U.value FROM",
        0,
        SemanticError,
        "a subquery cannot refer to pattern variable U",
        None,
    ),
    (
        "window function in MEASURES",
        broken("count(B.*)", "sum(B.value) OVER ()"),
        "sum(B.value) OVER",
        0,
        UnsupportedError,
        "Cannot nest window functions or row pattern measures inside pattern "
        "recognition expressions (MEASURES)",
        None,
    ),
    (
        "window over the input reading another variable in DEFINE",
        broken("PREV(C.value)", "avg(B.value) OVER (ORDER BY id)"),
        "B.value) OVER",
        0,
        UnsupportedError,
        "B.value inside a window over the input (OVER) in DEFINE: such a window is "
        "computed over the input rows before matching, from the current row's columns only",
        None,
    ),
    (
        "aggregate FILTER without WHERE (Spark's parser refuses it; sqlglot read it as WHERE)",
        broken("count(B.*)", "sum(B.value) FILTER (B.value > 1)"),
        "B.value > 1",
        0,
        SqlSyntaxError,
        "FILTER needs WHERE: Spark's syntax is agg(x) FILTER (WHERE condition)",
        "write FILTER (WHERE ...)",
    ),
    (
        "aggregate FILTER on any_value",
        broken("count(B.*)", "any_value(B.value) FILTER (WHERE B.value > 1)"),
        "any_value(B.value) FILTER",
        0,
        UnsupportedError,
        "FILTER (WHERE ...) on any_value() is not supported",
        "max_by",
    ),
    (
        "RUNNING before a scalar function",
        broken("count(B.*)", "RUNNING abs(B.value)"),
        "RUNNING abs",
        0,
        SemanticError,
        "RUNNING semantics is supported only for FIRST(), LAST() and "
        "aggregation functions. Actual: abs",
        None,
    ),
    (
        "FINAL before PREV",
        broken("count(B.*)", "FINAL PREV(B.value)"),
        "FINAL PREV",
        0,
        SemanticError,
        "FINAL semantics is not supported with prev pattern recognition function",
        "PREV(FINAL LAST(...))",
    ),
    (
        "two measures with one name",
        broken("count(B.*) AS n", "count(B.*) AS FIRST_VALUE"),
        "FIRST_VALUE",
        0,
        SemanticError,
        "two measures are named 'FIRST_VALUE'",
        "own name",
    ),
    # ---- expression syntax (sqlglot's errors, reworded)
    (
        "operator without right operand",
        broken("PREV(C.value)", "PREV(C.value) AND"),
        "AND",
        0,
        SqlSyntaxError,
        "'AND' needs an operand after it",
        None,
    ),
    # a count of arguments Spark refuses is its WRONG_NUM_ARGS when it analyses the
    # query, not a syntax error (sqlglot's reader refuses these while it parses)
    (
        "too many arguments to a function",
        broken("PREV(C.value)", "PREV(C.value) + abs(C.value, 2)"),
        "2)",
        0,
        SemanticError,
        "[WRONG_NUM_ARGS] abs() takes 1 argument, not 2",
        "DESCRIBE FUNCTION abs",
    ),
    (
        "function without its argument",
        broken("count(B.*)", "sum()"),
        "sum()",
        0,
        SemanticError,
        "[WRONG_NUM_ARGS] sum() takes",
        "DESCRIBE FUNCTION sum",
    ),
    (
        "FINAL before a column, not a navigation",
        broken("FIRST(A.value) AS", "FINAL value AS"),
        "FINAL value",
        0,
        SqlSyntaxError,
        "FINAL applies to a navigation function or an aggregate, not to 'value'",
        "FINAL LAST(value)",
    ),
    (
        "an aggregate of a subset beside CLASSIFIER() in its FILTER: the hint names CLASSIFIER(U)",
        broken("count(B.*)", "max(U.value) FILTER (WHERE CLASSIFIER() = 'C')"),
        "CLASSIFIER()",
        0,
        SemanticError,
        "must all be prefixed with the same label",
        "qualify each column and CLASSIFIER in the max with U: U.x, CLASSIFIER(U)",
    ),
    (
        "count(DISTINCT) of nothing (Spark's parser refuses it; it was counted as count(*))",
        broken("count(B.*)", "count(DISTINCT)"),
        "count(DISTINCT)",
        0,
        SqlSyntaxError,
        "COUNT() is missing an argument",
        None,
    ),
    (
        "function whose reader lets a missing argument through",
        broken("count(B.*)", "datediff(B.value)"),
        "datediff(",
        0,
        SemanticError,
        "[WRONG_NUM_ARGS] datediff() takes",
        "DESCRIBE FUNCTION datediff",
    ),
    (
        "two expressions in a row",
        broken("PREV(C.value)", "PREV(C.value) 1 2"),
        "1 2",
        0,
        SqlSyntaxError,
        "unexpected '1'",
        "operator or a comma missing",
    ),
    (
        "a name after an expression",
        broken("PREV(C.value)", "PREV(C.value) x"),
        "x",
        -1,
        SqlSyntaxError,
        "unexpected 'x' after an expression",
        None,
    ),
    (
        "a query without parentheses",
        broken("C.value > PREV(C.value)", "SELECT true"),
        "SELECT true",
        0,
        SqlSyntaxError,
        "a query used as a value must be in parentheses",
        "(SELECT ...)",
    ),
    (
        "navigation offset beyond 32 bits",
        broken("PREV(C.value)", "PREV(C.value, 3000000000)"),
        "3000000000",
        0,
        SemanticError,
        "The second argument of prev pattern recognition navigation function "
        "must not exceed 2147483647",
        None,
    ),
    (
        "navigation of a constant",
        broken("LAST(B.value) AS", "LAST('x') AS"),
        "'x'",
        0,
        SemanticError,
        "Pattern navigation function last must contain at least one column "
        "reference or CLASSIFIER()",
        "navigate a column",
    ),
    (
        "CLASSIFIER() beside a labelled column in a navigation",
        broken("LAST(B.value) AS", "LAST(B.name || CLASSIFIER()) AS"),
        "CLASSIFIER()",
        0,
        SemanticError,
        "mixes pattern variable B and a column without pattern variable",
        None,
    ),
    (
        "FILTER on a navigation",
        broken("LAST(B.value) AS", "LAST(B.value) FILTER (WHERE B.value > 0) AS"),
        "LAST(B.value) FILTER",
        0,
        SemanticError,
        "Cannot use FILTER with last pattern recognition function",
        "applies to aggregates",
    ),
    (
        "DISTINCT in a navigation",
        broken("LAST(B.value) AS", "LAST(DISTINCT B.value) AS"),
        "LAST(DISTINCT",
        0,
        SemanticError,
        "Cannot use DISTINCT with last pattern recognition function",
        "applies to aggregates",
    ),
    (
        "DISTINCT in CLASSIFIER",
        broken("LAST(B.value) AS", "CLASSIFIER(DISTINCT B) AS"),
        "CLASSIFIER(DISTINCT",
        0,
        SemanticError,
        "Cannot use DISTINCT with classifier pattern recognition function",
        None,
    ),
    (
        "FINAL before CLASSIFIER",
        broken("LAST(B.value) AS", "FINAL CLASSIFIER() AS"),
        "FINAL CLASSIFIER",
        0,
        SemanticError,
        "FINAL semantics is not supported with classifier pattern recognition function",
        "remove FINAL",
    ),
    # ---- the clause as a whole
    (
        "SEEK in MATCH_RECOGNIZE",
        broken("PATTERN (A B+ C?)", "SEEK PATTERN (A B+ C?)"),
        "SEEK",
        0,
        SemanticError,
        "pattern search modifier: SEEK is not allowed in MATCH_RECOGNIZE clause",
        "drop it",
    ),
    (
        "INITIAL in MATCH_RECOGNIZE",
        broken("PATTERN (A B+ C?)", "INITIAL PATTERN (A B+ C?)"),
        "INITIAL",
        0,
        SemanticError,
        "pattern search modifier: INITIAL is not allowed in MATCH_RECOGNIZE clause",
        "drop it",
    ),
    (
        "exclusion with WITH UNMATCHED ROWS",
        broken("ONE ROW PER MATCH", "ALL ROWS PER MATCH WITH UNMATCHED ROWS").replace(
            "(A B+ C?)", "(A {- B+ -} C?)"
        ),
        "{-",
        0,
        SemanticError,
        "pattern exclusion syntax is not allowed when ALL ROWS PER MATCH WITH "
        "UNMATCHED ROWS is specified",
        None,
    ),
    (
        "CAST without a type",
        broken("count(B.*)", "CAST(B.value AS )"),
        "AS ^^)",
        0,
        SqlSyntaxError,
        "CAST needs a type",
        None,
    ),
    # ---- found by mutating the repository's queries (issue 10): each planned before, and
    # then failed deep inside (ValueError, decimal.Overflow), hung, or reached Spark with
    # our column names in its message
    (
        "DECIMAL with a string precision",
        broken("count(B.*)", "CAST(LAST(B.value) AS DECIMAL('str', 20))"),
        "'str'",
        0,
        SqlSyntaxError,
        "the precision of DECIMAL must be an integer",
        "write DECIMAL(p, s) with 1 <= p <= 38 and 0 <= s <= p",
    ),
    (
        "DECIMAL with a fractional precision",
        broken("count(B.*)", "CAST(LAST(B.value) AS DECIMAL(1.5))"),
        "1.5",
        0,
        SqlSyntaxError,
        "the precision of DECIMAL must be an integer",
        None,
    ),
    (
        "DECIMAL precision over 38",
        broken("B.value < PREV", "CAST(B.value AS DECIMAL(50, 2)) < PREV"),
        "50",
        0,
        SemanticError,
        "DECIMAL precision 50 exceeds the maximum precision 38",
        None,
    ),
    (
        "DECIMAL precision of 20 digits",
        broken("B.value < PREV", "CAST(B.value AS DECIMAL(99999999999999999999)) < PREV"),
        "99999999999999999999",
        0,
        SemanticError,
        "exceeds the maximum precision 38",
        None,
    ),
    (
        "DECIMAL scale over its precision",
        broken("count(B.*)", "CAST(LAST(B.value) AS DECIMAL(5, 9))"),
        "DECIMAL(5, ^^9)",
        0,
        SemanticError,
        "DECIMAL scale 9 is greater than its precision 5",
        None,
    ),
    (
        "DECIMAL with three parameters",
        broken("count(B.*)", "CAST(LAST(B.value) AS DECIMAL(1, 2, 3))"),
        "DECIMAL(1, 2, ^^3)",
        0,
        SqlSyntaxError,
        "DECIMAL takes at most two parameters",
        None,
    ),
    (
        "DECIMAL without digits",
        broken("count(B.*)", "CAST(LAST(B.value) AS DECIMAL(0))"),
        "DECIMAL(^^0)",
        0,
        UnsupportedError,
        "DECIMAL precision 0 is not supported",
        None,
    ),
    (
        "a parameter of a type that takes none",
        broken("count(B.*)", "CAST(LAST(B.value) AS STRUCT<a: INT(5)>)"),
        "INT(^^5)",
        0,
        SqlSyntaxError,
        "type INT takes no parameters",
        "write INT without the parentheses",
    ),
    (
        "navigation after a pattern variable and a dot",
        broken("FIRST(A.value) AS", "A.FIRST(value) AS"),
        "A.FIRST",
        0,
        SqlSyntaxError,
        "FIRST(...) cannot follow 'A.'",
        "write FIRST(A.x)",
    ),
    (
        "FINAL navigation after a dot",
        broken("LAST(B.value) AS", "B.FINAL LAST(value) AS"),
        "B.FINAL",
        0,
        SqlSyntaxError,
        "LAST(...) cannot follow 'B.'",
        "write LAST(B.x)",
    ),
    (
        "aggregate after a dot in DEFINE",
        broken("B.value < PREV(B.value)", "B.count(value) < 3"),
        "B.count",
        0,
        SqlSyntaxError,
        "COUNT(...) cannot follow 'B.'",
        "write COUNT(B.x)",
    ),
    (
        "CLASSIFIER after a dot",
        broken("count(B.*)", "U.CLASSIFIER()"),
        "U.CLASSIFIER",
        0,
        SqlSyntaxError,
        "CLASSIFIER(...) cannot follow 'U.'",
        "write CLASSIFIER(U)",
    ),
    (
        "quantifier that unrolls to billions of instructions",
        broken("PATTERN (A B+ C?)", "PATTERN (A{2147483647,} B+ C?)"),
        "{2147483647,}",
        0,
        UnsupportedError,
        "this part of the pattern unrolls to 2,147,483,648 matcher instructions, more than "
        "the 100,000 matchrec compiles",
        None,
    ),
    (
        "nested bounded quantifiers, the outer one too large",
        broken("PATTERN (A B+ C?)", "PATTERN (A (B{0,100}){0,1000} C?)"),
        "{0,1000}",
        0,
        UnsupportedError,
        "unrolls to 201,000 matcher instructions",
        None,
    ),
    (
        "listagg WITHIN GROUP without a value",
        broken("count(B.*)", "LISTAGG() WITHIN GROUP (ORDER BY B.id)"),
        "LISTAGG",
        0,
        SemanticError,
        "listagg() needs the value to aggregate",
        "write listagg(x) or listagg(x, ',') WITHIN GROUP (ORDER BY ...)",
    ),
    (
        "string_agg WITHIN GROUP without a value",
        broken("count(B.*)", "string_agg(DISTINCT) WITHIN GROUP (ORDER BY B.id)"),
        "string_agg",
        0,
        SemanticError,
        "string_agg() needs the value to aggregate",
        None,
    ),
    (
        "PERMUTE of ten variables",
        broken("PATTERN (A B+ C?)", "PATTERN (PERMUTE(A, B, C, D, E, F, G, H, I, J))"),
        "PERMUTE",
        0,
        UnsupportedError,
        "PERMUTE unrolls to",
        "PERMUTE tries every order of its items: list fewer",
    ),
]


def _expected_pos(body: str, needle: str, nth: int) -> int:
    """Where ``needle`` is (at its ``^^`` if it has one); nth -1 is the last occurrence."""
    if "^^" in needle:
        before, after = needle.split("^^")
        return _expected_pos(body, before + after, nth) + len(before)
    if nth >= 0:
        return find(body, needle, nth)
    return body.rindex(needle)


@pytest.mark.parametrize(
    ("body", "needle", "nth", "cls", "message", "hint"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_planning_error(body, needle, nth, cls, message, hint):
    err = plan_error(body)
    assert_error(err, body, _expected_pos(body, needle, nth), cls, message, hint)


def test_every_case_is_on_a_later_line_than_the_first():
    # positions are offsets into the whole body, not into one expression: most cases sit
    # below line 1, so a wrong base would show up as a wrong line
    lines = [line_col(c[1], _expected_pos(c[1], c[2], c[3]))[0] for c in CASES]
    assert sum(1 for line in lines if line > 1) > len(CASES) * 3 // 4


# --------------------------------------------------------------------------- syntax errors


def test_syntax_error_lists_expected_tokens():
    body = "ORDER BY id\nPATTERN (A B+)\nDEFINE B true"
    with pytest.raises(SqlSyntaxError) as info:
        plan(body)
    assert_error(info.value, body, body.index("true"), SqlSyntaxError, "unexpected 'true'")
    assert "expected AS" in info.value.message


def test_syntax_error_in_clause_order_has_hint():
    body = "PATTERN (A B+)\nORDER BY id\nDEFINE B AS true"
    with pytest.raises(SqlSyntaxError) as info:
        plan(body)
    assert_error(
        info.value,
        body,
        body.index("ORDER"),
        SqlSyntaxError,
        "unexpected 'ORDER'; expected one of:",
        hint="the clauses go in this order",
    )


def test_empty_define_condition():
    body = "ORDER BY id\nPATTERN (A B+)\nDEFINE B AS"
    with pytest.raises(SqlSyntaxError) as info:
        plan(body)
    err = info.value
    assert "expected an expression" in err.message
    assert (err.line, err.column) == line_col(body, len(body))


def test_permute_without_items_says_how_it_was_read():
    body = "ORDER BY id PATTERN (PERMUTE()) DEFINE A AS value > 0, B AS value < 0"
    err = plan_error(body)
    assert err.message.startswith("defined variable: A is not a primary pattern variable")
    assert err.hint.startswith("PERMUTE() without items reads as a variable PERMUTE")
    assert err.pos == body.index("A AS")
    other = plan_error("ORDER BY id PATTERN (X ()) DEFINE A AS value > 0")
    assert other.hint == "pattern variables: X"


@pytest.mark.parametrize(
    ("condition", "at", "found"),
    [
        ("B.value BETWEEN 1 5", "5", "found '5'"),
        ("B.value BETWEEN PREV(value) OR 5", "OR", "found 'OR'"),
        ("B.value NOT BETWEEN 1", None, "the expression ends"),
    ],
)
def test_between_without_and_is_a_syntax_error(condition, at, found):
    """Spark's parser requires AND between BETWEEN's bounds; sqlglot read ``BETWEEN 1 5``
    as ``BETWEEN 1 AND 5`` and the query ran."""
    body = f"ORDER BY id PATTERN (A B+) DEFINE B AS {condition}"
    err = plan_error(body)
    assert isinstance(err, SqlSyntaxError) and "BETWEEN needs AND and an upper bound" in err.message
    assert found in err.message and err.hint == "write x BETWEEN a AND b"
    assert err.pos == (len(body) if at is None else body.rindex(at))


def test_between_of_an_is_keeps_its_grouping_when_written():
    """sqlglot writes ``(x IS NULL) BETWEEN ...`` with its parentheses; the BETWEEN that
    requires AND kept that (without them Spark cannot parse what is written)."""
    from matchrec.planner.sqltext import MatchRecognizeDialect, parse_expression

    from matchrec.ast import SqlExpr

    text = "B.value IS NULL BETWEEN false AND true"
    written = parse_expression(SqlExpr(text, 0), text).sql(dialect=MatchRecognizeDialect)
    assert written.startswith("(B.value IS NULL) BETWEEN")


def test_unclosed_parenthesis_in_expression():
    body = "ORDER BY id\nPATTERN (A B+)\nDEFINE B AS (B.value > 1"
    err = plan_error(body)
    assert_error(err, body, body.index("(B.value"), SqlSyntaxError, "'(' is never closed")


# --------------------------------------------------------------------------- robustness

ODD_BODIES = [
    "ORDER BY id PATTERN (A B+) DEFINE B AS PREV()",
    "ORDER BY id PATTERN (A B+) DEFINE B AS NEXT(B.value, 1, 2, 3)",
    "ORDER BY id MEASURES CLASSIFIER(A, B) AS c PATTERN (A B+) DEFINE B AS true",
    "ORDER BY id MEASURES CLASSIFIER('A') AS c PATTERN (A B+) DEFINE B AS true",
    "ORDER BY id MEASURES count(A.*, B.*) AS c PATTERN (A B+) DEFINE B AS true",
    "ORDER BY id MEASURES count(DISTINCT A.*) AS c PATTERN (A B+) DEFINE B AS true",
    "ORDER BY id MEASURES FIRST(A.value, -1) AS c PATTERN (A B+) DEFINE B AS true",
    "ORDER BY id MEASURES LAST(A.value, 1.5) AS c PATTERN (A B+) DEFINE B AS true",
    "ORDER BY id MEASURES A.* AS c PATTERN (A B+) DEFINE B AS true",
    "ORDER BY id MEASURES upper(A.*) AS c PATTERN (A B+) DEFINE B AS true",
    "ORDER BY id MEASURES MATCH_NUMBER(1) AS c PATTERN (A B+) DEFINE B AS true",
    "ORDER BY id MEASURES max_by(A.value) AS c PATTERN (A B+) DEFINE B AS true",
    "ORDER BY id MEASURES sum(DISTINCT) AS c PATTERN (A B+) DEFINE B AS true",
    "ORDER BY id MEASURES FINAL FINAL LAST(A.value) AS c PATTERN (A B+) DEFINE B AS true",
    "ORDER BY id PATTERN (A B+) DEFINE B AS my_udf(B.value, A.value)",
    "ORDER BY id PATTERN (A B+) DEFINE B AS B.value > (SELECT max(A.value) FROM t)",
    "ORDER BY id PATTERN (A B+) DEFINE B AS EXISTS (SELECT 1 FROM t WHERE t.x = A.value)",
    "ORDER BY id PATTERN (A B+) DEFINE B AS B.name LIKE A.name ESCAPE '!!'",
    "ORDER BY id PATTERN (A B+) DEFINE B AS sum(B.value, 1) > 1",
    "ORDER BY id PATTERN (A B+) DEFINE B AS B.value >>>> 1",
    "ORDER BY id PATTERN (A B+) DEFINE B AS 1 +* 2",
    "ORDER BY id PATTERN (A B+) DEFINE B AS a..b",
    "ORDER BY id PATTERN (A B+) DEFINE B AS B.value BETWEEN 1",
    "ORDER BY id PATTERN (A B+) DEFINE B AS CASE WHEN B.value THEN",
    "ORDER BY id PATTERN (A B+) DEFINE B AS (B.value + A.value).x > 1",
    "ORDER BY id PATTERN (A B+) DEFINE B AS B.value > 1 x",
    'ORDER BY id PATTERN (A B+) DEFINE B AS "".value > 1',
]


# bodies the table function and MATCH_RECOGNIZE_DYNAMIC rules failed on with a ValueError
# or decimal.Overflow from their type inference (the caret's text after the body)
TYPED_BODIES = [
    (
        "ORDER BY id PATTERN ((A | B)* X) DEFINE X AS avg(CAST(B.id AS decimal('str', 20))) = 1",
        "'str'",
    ),
    ("ORDER BY id PATTERN ((A | B)* X) DEFINE X AS sum(CAST(B.id AS decimal(30, ''))) = 1", "''"),
    ("ORDER BY id MEASURES CAST(LAST(B.id) AS decimal(50, 2)) AS x PATTERN (A B+)", "50"),
    ("ORDER BY id MEASURES CAST(LAST(B.id) AS decimal(1.5)) AS x PATTERN (A B+)", "1.5"),
    (
        "ORDER BY id MEASURES CAST(LAST(B.id) AS decimal(99999999999999999999)) AS x PATTERN (A)",
        "9",
    ),
    ("ORDER BY id MEASURES CAST(LAST(B.id) + 1 AS decimal(5, 9)) AS x PATTERN (A B+)", "9)"),
]


def planning_doors(body: str) -> dict[str, Callable[[], object]]:
    """Each door's planning of ``body`` over INT columns id and value, without Spark:
    the clause's planner, the table function's program and a dynamic rule."""
    from matchrec.planner.rules import RuleRow, compile_rule
    from matchrec.runtime.udtf import build_program, to_sqlglot_type
    from pyspark.sql.types import IntegerType, StructField, StructType

    schema = StructType([StructField("id", IntegerType()), StructField("value", IntegerType())])
    types = {f.name: to_sqlglot_type(f.dataType) for f in schema.fields}
    return {
        "plan": lambda: plan(body, ["id", "value"]),
        "table function": lambda: build_program(body, schema),
        "dynamic rule": lambda: compile_rule(RuleRow("r", 1, body), types),
    }


def clause_body(clause: str) -> str:
    """A whole body around ``DEFINE B AS ...`` or ``MEASURES ... DEFINE B AS ...``, over
    the columns of :func:`planning_doors`, pattern (A B)."""
    if clause.startswith("DEFINE"):
        return f"ORDER BY id MEASURES count(*) AS n PATTERN (A B) {clause}"
    return f"ORDER BY id {clause.replace(' DEFINE', ' PATTERN (A B) DEFINE', 1)}"


def clause_errors(body: str) -> dict[str, MatchRecognizeError]:
    """The error each door of :func:`planning_doors` raises for ``body``, but a dynamic
    rule's (its functions are its own evaluator's, ``planner.rules``); a door that raises
    none fails the test."""
    errors = {}
    for door, call in planning_doors(body).items():
        if door == "dynamic rule":
            continue
        with pytest.raises(MatchRecognizeError) as info:
            call()
        errors[door] = info.value
    return errors


@pytest.mark.parametrize(("body", "culprit"), TYPED_BODIES)
def test_bad_type_parameters_are_positioned_in_every_door(body, culprit):
    for door, call in planning_doors(body).items():
        with pytest.raises(MatchRecognizeError) as info:
            call()
        assert info.value.pos == body.index(culprit), (door, str(info.value))
        assert "DECIMAL" in info.value.message, door


#: numeric literals Spark's parser refuses (the condition in its message, the caret's
#: text): the table function computed 1e999 as infinity
OUT_OF_RANGE_LITERALS = [
    ("LAST(B.value) * 1e999", "INVALID_NUMERIC_LITERAL_RANGE", "1e999"),
    ("LAST(B.value) * -1.8E308", "INVALID_NUMERIC_LITERAL_RANGE", "-1.8E308"),
    ("LAST(B.value) - 9223372036854775808L", "INVALID_NUMERIC_LITERAL_RANGE", "92233"),
    ("LAST(B.value) + 3.5e38F", "INVALID_NUMERIC_LITERAL_RANGE", "3.5e38"),
    # past the bound's decimal text, though Python's float rounds it to the bound
    ("LAST(B.value) / 1.7976931348623158e308", "INVALID_NUMERIC_LITERAL_RANGE", "1.79769"),
    ("LAST(B.value) + 3.4028235e38F", "INVALID_NUMERIC_LITERAL_RANGE", "3.40282"),
    ("LAST(B.value) + 128Y", "INVALID_NUMERIC_LITERAL_RANGE", "128Y"),
    # a minus after an operand subtracts: 128Y alone is out of range
    ("CASE WHEN LAST(B.value) > 0 THEN 1 END -128Y", "INVALID_NUMERIC_LITERAL_RANGE", "128Y"),
    ("LAST(B.date) -128Y", "INVALID_NUMERIC_LITERAL_RANGE", "128Y"),
    ("LAST(B.value) + 1" + "0" * 40, "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION", "10000"),
    ("LAST(B.value) + 0." + "0" * 38 + "1", "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION", "0.000"),
]


@pytest.mark.parametrize(("measure", "condition", "culprit"), OUT_OF_RANGE_LITERALS)
def test_literals_out_of_their_types_range_are_refused_in_every_door(measure, condition, culprit):
    body = f"ORDER BY id MEASURES {measure} AS x PATTERN (A B+) DEFINE B AS true"
    for door, call in planning_doors(body).items():
        with pytest.raises(SqlSyntaxError) as info:
            call()
        assert info.value.pos == body.index(culprit), (door, str(info.value))
        assert f"[{condition}]" in info.value.message, door


EDGE_LITERALS = [
    "-9223372036854775808L",
    "-128Y",
    "B.value - -128Y",
    "1e-999",
    "1.7976931348623157e308",
    "3.4028234663852886e38F",
    "9" * 38,
    "0." + "1" * 38,
]


@pytest.mark.parametrize("literal", EDGE_LITERALS)
def test_literals_at_the_edge_of_their_range_are_accepted(literal):
    plan(f"ORDER BY id MEASURES LAST(B.value) AS x PATTERN (A B+) DEFINE B AS B.value > {literal}")


def test_the_table_functions_refusal_quotes_no_column_of_ours():
    from matchrec.runtime.udtf import build_program
    from pyspark.sql.types import IntegerType, StringType, StructField, StructType

    schema = StructType([StructField("id", IntegerType()), StructField("v", StringType())])
    body = "ORDER BY id MEASURES concat_ws(('', collect_list(CLASSIFIER()))) AS x PATTERN (A)"
    with pytest.raises(UnsupportedError) as info:
        build_program(body, schema)
    assert "__mr" not in str(info.value)
    assert "cannot evaluate a tuple (..., ...)" in info.value.message


def test_the_table_functions_type_error_quotes_the_call_as_written():
    """A call the planner rewrote for the table function (LAST moved into
    regexp_extract) is quoted as the user wrote it, not as REGEXP_EXTRACT(msg, ...)."""
    from matchrec.runtime.udtf import build_program
    from pyspark.sql.types import IntegerType, StringType, StructField, StructType

    schema = StructType([StructField("id", IntegerType()), StructField("msg", StringType())])
    call = "regexp_extract(LAST(msg), '([0-9]+)ms', 1)"
    body = f"ORDER BY id MEASURES {call} + 1 AS s PATTERN (A) DEFINE A AS true"
    with pytest.raises(SemanticError) as info:
        build_program(body, schema)
    assert info.value.message.startswith("+ mixes regexp_extract(LAST(msg),")
    assert f"try_cast({call[:30]}" in info.value.hint
    assert info.value.pos == body.index(call)


@pytest.mark.parametrize(
    "operand",
    [
        "DATE'2024-01-01'",
        "date  '2024-01-01'",
        "TIMESTAMP_NTZ'2024-01-01 00:00:00' + INTERVAL '1' DAY",
        "LAST(d) + INTERVAL 1 DAY",
        "INTERVAL 90 MINUTES + LAST(d)",
        "interval '1' day + LAST(d)",
        "-INTERVAL 3 DAYS + LAST(d)",
        "INTERVAL 1 DAY",
        "LAST(d) - INTERVAL 1 DAY + INTERVAL 2 HOURS",
    ],
)
def test_a_type_error_quotes_typed_literals_and_intervals_as_written(operand):
    """An operand with a typed literal (sqlglot's CAST of a string) or an interval whose
    number and unit carry no position is quoted as the user wrote it (spaces collapsed,
    a long one clipped)."""
    from matchrec.runtime.udtf import build_program
    from pyspark.sql.types import ArrayType, DateType, IntegerType, StructField, StructType

    schema = StructType(
        [
            StructField("id", IntegerType()),
            StructField("d", DateType()),
            StructField("arr", ArrayType(IntegerType())),
        ]
    )
    body = f"ORDER BY id MEASURES count(*) AS n PATTERN (A B) DEFINE B AS A.arr < {operand}"
    with pytest.raises(SemanticError) as info:
        build_program(body, schema)
    written = " ".join(operand.split())
    assert f" with {written[:37]}" in info.value.message


def test_a_select_distinct_subquery_is_no_distinct_of_nothing():
    """count(DISTINCT) of nothing is refused; a subquery's SELECT DISTINCT, which sqlglot
    also reads as a DISTINCT without expressions, is not."""
    body = (
        "ORDER BY id MEASURES count(*) AS n PATTERN (A B+) "
        "DEFINE B AS name IN (SELECT DISTINCT name FROM names)"
    )
    assert plan(body).defines


def test_the_largest_pattern_that_compiles_is_refused_one_instruction_later():
    from matchrec.nfa import MAX_PROGRAM_SIZE

    fits = f"ORDER BY id PATTERN (A{{{MAX_PROGRAM_SIZE // 2}}} B{{{MAX_PROGRAM_SIZE // 2}}})"
    assert len(plan(fits + " DEFINE A AS true").program.nfa) == MAX_PROGRAM_SIZE + 1  # DONE
    body = fits.replace("B{", "C B{") + " DEFINE A AS true"
    err = plan_error(body)
    assert isinstance(err, UnsupportedError) and err.pos == body.index("A{"), str(err)


@pytest.mark.parametrize("body", ODD_BODIES)
def test_odd_input_gives_a_positioned_error(body):
    err = plan_error(body)
    assert err.sql == body
    assert err.pos is not None and 0 <= err.pos <= len(body)
    assert err.line == 1 and err.column == err.pos + 1
    assert "Traceback" not in str(err)
    assert "sqlglot" not in str(err) and "<class" not in str(err)


def test_mutated_clauses_only_raise_matchrec_errors():
    """Deleting, repeating or swapping tokens of a good clause never leaks another error."""
    import random
    import re

    tokens = re.findall(r"\w+|[^\w\s]|\s+", GOOD)
    words = sorted({t for t in tokens if not t.isspace()}) + [
        "-1",
        "1.5",
        "SELECT",
        "OVER",
        "FINAL",
        "'s'",
        '"q"',
        "::",
        "[",
        "]",
        "CASE",
    ]
    rng = random.Random(20240611)
    for _ in range(400):
        mutated = list(tokens)
        for _ in range(rng.randint(1, 3)):
            j = rng.randrange(len(mutated))
            op = rng.random()
            if op < 0.33:
                del mutated[j]
            elif op < 0.66:
                mutated.insert(j, rng.choice(words) + " ")
            else:
                mutated[j] = rng.choice(words)
        body = "".join(mutated)
        try:
            plan(body)
        except MatchRecognizeError as err:
            assert err.pos is not None and err.line is not None, (body, err)


# --------------------------------------------------------------------------- runtime errors
# (pure Python: the planned program run over one partition)


_CONSTANTS = {"TRUE": True, "FALSE": False}


def _run(body: str, cols: dict[str, list]):
    """Run the planned program over one partition; precomputed columns may be constants."""
    result = plan(body, list(cols))
    n = len(next(iter(cols.values())))
    cols = dict(cols)
    for name, text in result.precomputed:
        value = _CONSTANTS[text] if text in _CONSTANTS else int(text)
        cols[name] = [value] * n
    return run_partition(result.program, cols, n)


def test_runtime_type_error_in_define_is_positioned():
    # (with Spark, the operand types are checked when the query is built; this is the
    # matcher's own guard when the program runs on values it was not planned for)
    body = "ORDER BY id\nPATTERN (A B+)\nDEFINE B AS B.name > A.id"
    with pytest.raises(MatchRuntimeError) as info:
        _run(body, {"id": [1, 2, 3], "name": ["a", "b", "c"]})
    assert_error(
        info.value,
        body,
        body.index("> A.id"),
        MatchRuntimeError,
        "could not apply > to 'b' (STRING), 1 (INT)",  # row 2's name, A's id
        hint="CAST",
    )


@pytest.mark.parametrize(
    ("condition", "spark_condition"),
    [
        ("size(slice(array(A.id, B.id), B.zero, 1)) > 0", "INVALID_PARAMETER_VALUE.START"),
        ("size(array_insert(array(A.id, B.id), B.zero, 1)) > 0", "INVALID_INDEX_OF_ZERO"),
    ],
)
def test_a_glue_functions_error_names_sparks_condition(condition, spark_condition):
    """They said the condition in parentheses, which spark_condition did not read."""
    body = f"ORDER BY id\nPATTERN (A B)\nDEFINE B AS {condition}"
    with pytest.raises(MatchRuntimeError) as info:
        _run(body, {"id": [1, 2], "zero": [0, 0]})
    assert info.value.spark_condition == spark_condition
    assert info.value.message.startswith(f"[{spark_condition}]")


@pytest.mark.parametrize(
    ("measure", "extra", "plain"),
    [
        ("collect_list(A.id, 1)", "1)", "collect_list(id, 1)"),
        ("count_if(A.id > 1, 2)", "2)", "count_if(id > 1, 2)"),
        ("percentile_approx(A.id, 0.5, 100, 2)", "2)", "percentile_approx(id, 0.5, 100, 2)"),
        ("listagg(A.name, ',', 1)", "1)", "listagg(name, ',', 1)"),
    ],
)
def test_an_aggregate_given_an_argument_spark_does_not_take_is_refused_at_it(
    spark, measure, extra, plain
):
    """sqlglot dropped the argument, or read it as another dialect's (a weight, an
    overflow rule), and the aggregate ran without it; Spark refuses each call."""
    with pytest.raises(AnalysisException, match="WRONG_NUM_ARGS"):
        spark.sql(f"SELECT {plain} FROM VALUES (1, 'a') AS t(id, name)").collect()
    body = f"ORDER BY id MEASURES {measure} AS m PATTERN (A B) DEFINE B AS true"
    with pytest.raises(SemanticError, match="argument") as info:
        plan_clause(parse_clause(body), ["id", "name"])
    assert body[info.value.pos :].startswith(extra)


def test_runtime_error_in_a_measure_is_positioned():
    # the matcher's guard for a measure's aggregate given values it cannot compute with
    # (with Spark, types are checked first; here the program runs on other values)
    body = (
        "ORDER BY id\nMEASURES count(*) AS n,\n  sum(A.name) AS total\n"
        "PATTERN (A+)\nDEFINE A AS true"
    )
    with pytest.raises(MatchRuntimeError) as info:
        _run(body, {"id": [1, 2, 3], "name": [date(2024, 1, d) for d in (1, 2, 3)]})
    assert_error(
        info.value,
        body,
        body.index("sum(A.name)"),
        MatchRuntimeError,
        "could not compute SUM(A.name) over the match: TypeError",
        hint="CAST",
    )


@pytest.mark.parametrize(
    ("skip", "message"),
    [
        ("TO A", "AFTER MATCH SKIP failed: cannot skip to first row of match"),
        ("TO FIRST A", "AFTER MATCH SKIP failed: cannot skip to first row of match"),
        ("TO D", "AFTER MATCH SKIP failed: pattern variable is not present in match"),
    ],
)
def test_after_match_skip_errors_in_python(skip, message):
    body = (
        f"AFTER MATCH SKIP {skip} PATTERN (A B+ C+ D?) "
        "DEFINE B AS B.value < PREV(B.value), C AS C.value > PREV(C.value), D AS false"
    )
    with pytest.raises(MatchRuntimeError, match=message):
        _run(body, {"id": [1, 2, 3, 4, 5, 6], "value": [90, 80, 70, 80, 70, 80]})


# --------------------------------------------------------------------------- through Spark

QUERY = """SELECT m.*
FROM {view} MATCH_RECOGNIZE (
  PARTITION BY name
  ORDER BY id
  MEASURES FIRST(A.value) AS first_value,
           LAST(B.value) AS last_value
  PATTERN (A B+)
  DEFINE B AS B.value < PREV(B.value)
) AS m"""


@pytest.fixture(scope="module")
def view(spark):
    name = "test_errors_t"
    spark.sql(
        f"CREATE OR REPLACE TEMP VIEW {name} AS SELECT * FROM VALUES "
        "(1, 90, 'x', TIMESTAMP'2024-01-01 00:00:00'), (2, 80, 'x', TIMESTAMP'2024-01-01 "
        "00:00:05'), (3, 70, 'x', TIMESTAMP'2024-01-01 00:00:09'), (4, 80, 'x', "
        "TIMESTAMP'2024-01-01 00:00:20'), (5, 70, 'x', TIMESTAMP'2024-01-01 00:00:21'), "
        f"(6, 80, 'x', TIMESTAMP'2024-01-01 00:00:30') AS {name}(id, value, name, ts)"
    )
    yield name
    spark.catalog.dropTempView(name)


_GROUP = "matchrec-test-errors"


def _jobs(spark) -> set[int]:
    tracker = spark.sparkContext.statusTracker()
    return set(tracker.getJobIdsForGroup(None)) | set(tracker.getJobIdsForGroup(_GROUP))


def _in_job_group(spark, action):
    """Run ``action`` with this module's Spark job group set; return the jobs it started."""
    before = _jobs(spark)
    spark.sparkContext.setJobGroup(_GROUP, "matchrec error tests")
    try:
        action()
    finally:
        spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)
    return _jobs(spark) - before


def sql_error(spark, query: str) -> MatchRecognizeError:
    """The error ``matchrec.sql`` raises for ``query``; checks that no Spark job ran."""
    caught: list[MatchRecognizeError] = []

    def action():
        with pytest.raises(MatchRecognizeError) as info:
            matchrec.sql(spark, query).collect()
        caught.append(info.value)

    assert _in_job_group(spark, action) == set(), "a Spark job ran before the error"
    return caught[0]


def test_the_job_check_sees_jobs(spark, view):
    started = _in_job_group(spark, lambda: matchrec.sql(spark, QUERY.format(view=view)).collect())
    assert started


def test_good_query_runs(spark, view):
    rows = matchrec.sql(spark, QUERY.format(view=view)).collect()
    assert [(r.first_value, r.last_value) for r in rows] == [(90, 70), (80, 70)]


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("", "the query is empty"),
        ("  \n ", "the query is empty"),
        ("-- MATCH_RECOGNIZE\n/* soon */", "the query holds only comments"),
    ],
)
def test_an_empty_query_is_ours(spark, query, message):
    """It was Spark's raw ParseException (PARSE_EMPTY_STATEMENT, or a syntax error at the
    end of input), not the error every other query without a statement gets."""
    with pytest.raises(SqlSyntaxError) as err:
        matchrec.sql(spark, query)
    assert err.value.message == message and "SELECT" in err.value.hint


def test_semantic_error_through_sql_is_positioned_in_the_query(spark, view):
    query = QUERY.format(view=view).replace("LAST(B.value)", "LAST(C.value)")
    err = sql_error(spark, query)
    message = "C is not a primary pattern variable or subset name"
    assert_error(err, query, query.index("C.value"), SemanticError, message)
    assert err.line == 6


@pytest.mark.parametrize(
    ("call", "close"),
    [("datedif(B.ts, FIRST(A.ts))", "datediff"), ("no_such_fn(B.value, PREV(B.value))", None)],
)
def test_an_unknown_function_of_several_rows_is_sparks_unresolved_routine(spark, view, call, close):
    """A misspelt function in DEFINE's glue is Spark's UNRESOLVED_ROUTINE at the call
    (with the closest name Spark has), not a limit of matchrec's evaluator."""
    query = QUERY.format(view=view).replace("B.value < PREV(B.value)", f"{call} > 0")
    err = sql_error(spark, query)
    name = call.split("(")[0]
    assert_error(err, query, query.index(call), SemanticError, f"Cannot resolve routine `{name}`")
    assert "UNRESOLVED_ROUTINE" in err.message
    assert (err.hint == f"did you mean {close}?") if close else not err.hint


def test_unknown_column_through_sql(spark, view):
    query = QUERY.format(view=view).replace("B.value < PREV", "B.price < PREV")
    err = sql_error(spark, query)
    assert_error(
        err,
        query,
        query.index("price"),
        SemanticError,
        "Column price prefixed with label B cannot be resolved",
    )
    assert err.line == 8 and "input columns: id, value, name, ts" in err.hint


@pytest.mark.parametrize("alias", [") AS m(a, b, c, d)", ") m (a)"])
def test_an_alias_column_list_of_the_wrong_length_is_told_at_the_list(spark, view, alias):
    """Spark names no place for ASSIGNMENT_ARITY_MISMATCH (the caret went to SELECT)."""
    query = QUERY.format(view=view).replace(") AS m", alias)
    err = sql_error(spark, query)
    assert_error(err, query, query.rindex("("), SemanticError, "ASSIGNMENT_ARITY_MISMATCH")
    assert "alias's list" in err.hint


def test_partition_by_unknown_column_through_sql(spark, view):
    query = QUERY.format(view=view).replace("PARTITION BY name", "PARTITION BY nam")
    err = sql_error(spark, query)
    message = "Column nam is not present in the input relation"
    assert_error(err, query, query.index("nam\n"), SemanticError, message)
    assert err.line == 3


def test_nesting_error_through_sql(spark, view):
    query = QUERY.format(view=view).replace("FIRST(A.value)", "FIRST(PREV(A.value))")
    err = sql_error(spark, query)
    assert_error(
        err,
        query,
        query.index("PREV(A.value)"),
        SemanticError,
        "Cannot nest prev pattern navigation function inside first pattern navigation function",
    )
    assert err.line == 5


def test_syntax_error_through_sql(spark, view):
    query = QUERY.format(view=view).replace("PATTERN (A B+)", "PATTERN (A B+ | )")
    err = sql_error(spark, query)
    assert_error(err, query, query.index(")\n  DEFINE"), SqlSyntaxError, "unexpected ')'")
    assert "expected one of: a pattern variable, '('" in err.message
    assert err.line == 7


def test_unbalanced_parenthesis_through_sql(spark, view):
    query = QUERY.format(view=view).replace("PATTERN (A B+)", "PATTERN (A B+")
    err = sql_error(spark, query)
    assert_error(err, query, query.index("(A B+"), SqlSyntaxError, "'(' is never closed")
    assert err.line == 7


def test_expression_syntax_error_through_sql(spark, view):
    query = QUERY.format(view=view).replace("B.value < PREV(B.value)", "B.value < PREV(B.value) OR")
    err = sql_error(spark, query)
    assert_error(err, query, query.index("OR\n"), SqlSyntaxError, "'OR' needs an operand")
    assert err.line == 8


def test_error_in_second_clause_of_a_query(spark, view):
    inner = QUERY.format(view=view)
    query = f"SELECT * FROM ({inner}) AS x\nUNION ALL\n" + inner.replace(
        "FIRST(A.value)", "FIRST(A.value, -2)"
    )
    err = sql_error(spark, query)
    assert_error(
        err,
        query,
        query.index("-2"),
        SemanticError,
        "first pattern recognition navigation function requires a non-negative number",
    )
    assert err.line > 10


def test_within_needs_a_time_column(spark, view):
    query = (
        QUERY.format(view=view)
        .replace("ORDER BY id", "ORDER BY value")
        .replace("PATTERN (A B+)", "PATTERN (A B+)\n  WITHIN INTERVAL '10' SECOND")
    )
    err = sql_error(spark, query)
    assert_error(
        err,
        query,
        query.index("value\n"),
        SemanticError,
        "WITHIN needs ORDER BY on a timestamp or date column; 'value' is int",
        hint="event-time column",
    )


def test_within_without_order_by_through_sql(spark, view):
    query = (
        QUERY.format(view=view)
        .replace("  ORDER BY id\n", "")
        .replace("PATTERN (A B+)", "PATTERN (A B+)\n  WITHIN INTERVAL '10' SECOND")
    )
    err = sql_error(spark, query)
    assert_error(
        err, query, query.index("WITHIN"), SemanticError, "WITHIN needs ORDER BY on a time column"
    )


def test_within_on_a_timestamp_runs(spark, view):
    query = (
        QUERY.format(view=view)
        .replace("ORDER BY id", "ORDER BY ts")
        .replace("PATTERN (A B+)", "PATTERN (A B+)\n  WITHIN INTERVAL '10' SECOND")
    )
    rows = matchrec.sql(spark, query).collect()
    assert [(r.first_value, r.last_value) for r in rows] == [(90, 70), (80, 70)]


@pytest.mark.parametrize(
    ("skip", "message"),
    [
        ("TO A", "AFTER MATCH SKIP failed: cannot skip to first row of match"),
        ("TO D", "AFTER MATCH SKIP failed: pattern variable is not present in match"),
    ],
)
def test_after_match_skip_errors_reach_the_user(spark, view, skip, message):
    query = f"""SELECT m.id, m.match
FROM {view} MATCH_RECOGNIZE (
  ORDER BY id
  MEASURES match_number() AS match
  ALL ROWS PER MATCH
  AFTER MATCH SKIP {skip}
  PATTERN (A B+ C+ D?)
  DEFINE
    B AS B.value < PREV (B.value),
    C AS C.value > PREV (C.value),
    D AS false
) AS m"""
    df = matchrec.sql(spark, query)  # planning succeeds: the error is one of the data
    with pytest.raises(Exception) as info:
        df.collect()
    assert message in str(info.value)


# operands of one operator that Spark would convert implicitly (and fail on while the
# job runs, under ANSI) or that DEFINE's per-match Python part cannot mix: (old, new,
# the operand the caret marks, the message)
TYPE_MIXES = [
    # row-local DEFINE, computed by Spark: the string column against a number
    ("B.value < PREV(B.value)", "name < PREV(value)", "name <", "< mixes name (STRING) and"),
    ("B.value < PREV(B.value)", "value < PREV(name)", "PREV(name)", "PREV(name) (STRING)"),
    ("B.value < PREV(B.value)", "value IN (1, name)", "name)", "IN mixes name (STRING)"),
    # match-dependent DEFINE, evaluated per match
    ("B.value < PREV(B.value)", "FIRST(B.name) > 1", "FIRST(B.name)", "> mixes FIRST(B.name)"),
    ("B.value < PREV(B.value)", "B.value > A.name", "A.name", "without Spark's implicit casts"),
    # (IS DISTINCT FROM was unchecked: TRUE for any string beside a number)
    (
        "B.value < PREV(B.value)",
        "B.value IS DISTINCT FROM A.name",
        "A.name",
        "without Spark's implicit casts",
    ),
    # equal_null is <=> written as a function (it answered false for '12' against 12)
    (
        "B.value < PREV(B.value)",
        "NOT equal_null(coalesce(B.name, A.name), 12)",
        "coalesce(B.name",
        "equal_null mixes coalesce(B.name, A.name) (STRING) and 12 (INT)",
    ),
    # a string as an operand of AND / OR / NOT: cast to BOOLEAN while the job runs ('x'
    # fails), the glue does not cast; a number is no BOOLEAN
    ("B.value < PREV(B.value)", "name AND value > 0", "name AND", "AND takes BOOLEAN operands"),
    ("B.value < PREV(B.value)", "value > 0 OR A.name", "A.name", "not STRING (A.name)"),
    ("B.value < PREV(B.value)", "NOT name", "name", "NOT takes BOOLEAN operands"),
    ("B.value < PREV(B.value)", "value > 0 AND A.value", "A.value", "not INT (A.value)"),
    # MEASURES
    ("LAST(B.value) AS", "LAST(B.name) - 1 AS", "LAST(B.name)", "- mixes LAST(B.name) (STRING)"),
]


@pytest.mark.parametrize(("old", "new", "culprit", "message"), TYPE_MIXES)
def test_type_mixes_are_found_when_the_query_is_built(spark, view, old, new, culprit, message):
    query = QUERY.format(view=view).replace(old, new)
    err = sql_error(spark, query)
    assert_error(err, query, query.rindex(culprit), SemanticError, message, hint="try_cast(")
    assert "__mr_" not in str(err)


def test_without_ansi_spark_converts_strings_in_row_local_parts(spark, view):
    query = QUERY.format(view=view).replace("B.value < PREV(B.value)", "name < PREV(value)")
    spark.conf.set("spark.sql.ansi.enabled", "false")
    try:
        assert matchrec.sql(spark, query).collect() == []  # 'x' < 90 is NULL: no B row
        # a string of another row too: the glue casts it to the number's type, as Spark
        glue = QUERY.format(view=view).replace("B.value < PREV(B.value)", "FIRST(B.name) > 1")
        explicit = glue.replace("FIRST(B.name) > 1", "CAST(FIRST(B.name) AS INT) > 1")
        assert matchrec.sql(spark, glue).collect() == matchrec.sql(spark, explicit).collect()
    finally:
        spark.conf.unset("spark.sql.ansi.enabled")


def test_string_literals_compared_with_numbers_are_left_to_spark(spark, view):
    query = QUERY.format(view=view).replace("B.value < PREV(B.value)", "B.value < '85'")
    rows = matchrec.sql(spark, query).collect()
    assert rows == matchrec.sql(spark, query.replace("'85'", "85")).collect()
    assert [(r.first_value, r.last_value) for r in rows] == [(90, 80)]


@pytest.mark.parametrize(
    ("old", "new", "culprit"),
    [
        # an extra ')' ends the clause early: the caret is on it, not on Spark's rewritten query
        ("PREV(B.value)", "PREV(B.value))", 13),
        # ... and the rest of the clause follows it (with parentheses of its own)
        ("PATTERN (A B+)", "PATTERN (A B+))", 14),
        # a '(' never closed inside DEFINE, inside MEASURES
        ("B.value < PREV", "(B.value < PREV", 0),
        ("PREV(B.value)", "PREV(B.value", 4),
        ("LAST(B.value)", "(LAST(B.value)", 0),
        # an extra ')' in the query around the clause
        (") AS m", ") AS m)", 6),
    ],
)
def test_unbalanced_parentheses_point_at_the_culprit(spark, view, old, new, culprit):
    query = QUERY.format(view=view).replace(old, new)
    err = sql_error(spark, query)
    pos = query.index(new) + culprit
    extra = query[pos] == ")"
    message = "')' without a matching '('" if extra else "'(' is never closed"
    assert_error(err, query, pos, SqlSyntaxError, message)
    assert "__matchrec" not in str(err)


@pytest.mark.parametrize(
    ("type_name", "culprit"),
    [
        ("DECIMAL('str', 20)", "'str'"),
        ("DECIMAL(1.5)", "1.5"),
        ("DECIMAL(50, 2)", "50"),
        ("DECIMAL(5, 9)", "9"),
        ("DECIMAL(1, 2, 3)", "3"),
        ("INT(5)", "5"),
    ],
)
def test_types_refused_in_the_clause_are_refused_by_spark(spark, view, type_name, culprit):
    with pytest.raises(PySparkException):  # a parse error, or DECIMAL_PRECISION_EXCEEDS_...
        spark.sql(f"SELECT CAST(0 AS {type_name}) AS c").collect()
    query = QUERY.format(view=view).replace(
        "LAST(B.value) AS", f"CAST(LAST(B.value) AS {type_name}) AS"
    )
    err = sql_error(spark, query)
    at = query.index(type_name)
    assert err.pos == at + type_name.rindex(culprit), str(err)
    assert "__mr" not in str(err)


def test_sparks_message_about_define_shows_the_navigation_as_written(spark, view):
    # Spark analyses the row-local part of DEFINE over our columns (PREV is a window
    # column of ours); its message named that column (`__mr_w0`)
    query = QUERY.format(view=view).replace(
        "B.value < PREV(B.value)", "B.value + DATE'2020-01-01' < abs(PREV (B.value))"
    )
    err = sql_error(spark, query)
    assert "__mr" not in str(err)
    assert "< abs(PREV (B.value))" in err.message
    assert err.pos == query.index("B.value + DATE")


def test_an_aggregate_of_null_is_what_spark_gives_in_both_doors(spark, view):
    # Spark types collect_list(NULL) as ARRAY<VOID> without NULLs, which Arrow cannot
    # carry: both doors failed with pyarrow's "A null type field may not be non-nullable"
    measures = "array_agg(NULL) AS a, map(1, collect_list(NULL)) AS m, count(*) AS n"
    body = (
        f"PARTITION BY name ORDER BY id MEASURES {measures} "
        "PATTERN (A B+) DEFINE B AS B.value < PREV(B.value)"
    )
    matched = matchrec.sql(spark, f"SELECT * FROM {view} MATCH_RECOGNIZE ({body}) AS m")
    matchrec.register(spark)
    udtf = spark.sql(f"SELECT * FROM match_recognize(TABLE({view}), '{body}')")
    # the matches are rows 1-3 and 4-5 (value falls from 90 to 70, then from 80 to 70)
    plain = spark.sql(
        f"SELECT name, {measures} FROM {view} WHERE id <= 3 GROUP BY name "
        f"UNION ALL SELECT name, {measures} FROM {view} WHERE id IN (4, 5) GROUP BY name"
    )
    expected = sorted(map(tuple, plain.collect()), key=lambda r: r[-1])
    for df in (matched, udtf):
        assert sorted(map(tuple, df.collect()), key=lambda r: r[-1]) == expected
        assert df.schema["a"].dataType.simpleString() == "array<void>"


WINDOW_QUERY = """SELECT {items}
FROM {view}
WINDOW w AS (
  PARTITION BY name ORDER BY id
  MEASURES LAST(value) AS val, CLASSIFIER() AS label
  ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING
  PATTERN (A B+)
  DEFINE B AS B.value < PREV(B.value)
)"""


def test_a_missing_comma_between_window_calls_is_told_at_the_second(spark, view):
    # each call became a column of ours: Spark took the second as the first's alias (one
    # column named __mrw0_1), or named our column in its syntax error
    query = WINDOW_QUERY.format(items="id, val OVER w label OVER w", view=view)
    err = sql_error(spark, query)
    assert err.pos == query.index("label OVER w"), str(err)
    assert "__mr" not in str(err) and "label OVER w" in err.message
    assert err.hint == "is a comma missing between the items of the SELECT?"


def test_an_expression_over_a_window_call_is_named_as_written(spark, view):
    query = WINDOW_QUERY.format(items="id, val OVER w + 1, upper(label OVER w)", view=view)
    df = matchrec.sql(spark, query)
    assert df.columns == ["id", "(val OVER w + 1)", "upper(label OVER w)"]
    rows = {r[0]: tuple(r[1:]) for r in df.collect()}
    # from row 1 the match is rows 1-3 (90, 80, 70), its measures taken at its last row
    assert rows[1] == (71, "B") and rows[3] == (None, None)


def test_one_row_per_match_without_columns_is_refused_before_a_job(spark, view):
    query = (
        f"SELECT 1 FROM {view} MATCH_RECOGNIZE (\n"
        "  ORDER BY id\n  PATTERN (A B+)\n  DEFINE B AS true)"
    )
    with pytest.raises(SemanticError) as info:
        matchrec.sql(spark, query)
    err = info.value
    assert "output table has no columns" in err.message
    assert err.pos == query.index("PATTERN")
    assert "add MEASURES" in err.hint


def test_division_in_a_branch_raises_only_where_it_is_taken():
    # a row-local division inside IF stays in the glue: never computed on a row whose
    # condition takes the other branch, a positioned error on one that takes it
    quiet = "ORDER BY id\nPATTERN (A B+)\nDEFINE B AS IF(MATCH_NUMBER() > 1, 1 / 0, 0) = 0"
    assert list(_run(quiet, {"id": [1, 2, 3]}).rows) == [0]  # one match, from row 0
    body = "ORDER BY id\nPATTERN (A B+)\nDEFINE B AS IF(MATCH_NUMBER() >= 1, 1 / 0, 0) = 0"
    with pytest.raises(MatchRuntimeError) as info:
        _run(body, {"id": [1, 2, 3]})
    assert_error(
        info.value, body, body.index("/ 0"), MatchRuntimeError, "[DIVIDE_BY_ZERO] Division by zero"
    )
    assert info.value.spark_condition == "DIVIDE_BY_ZERO" and info.value.spark_sqlstate == "22012"


@pytest.mark.parametrize(
    ("outer", "culprit", "condition"),
    [
        ("SELECT * FROM ({clause}) x\nWHERE last_value < 'x'", "last_value < 'x'", "CAST"),
        (
            "WITH r AS (\n{clause}\n)\n"
            "SELECT first_value DIV (last_value - last_value) AS q FROM r",
            "first_value DIV",
            "DIVIDE_BY_ZERO",
        ),
    ],
    ids=["where_after", "cte_before"],
)
def test_run_time_errors_of_the_query_around_the_clause_are_at_its_text(
    spark, view, outer, culprit, condition
):
    """Spark's ANSI error while the job runs, in the query around the clause: at the
    user's line, not at a line of the rewritten text Spark ran."""
    clause = QUERY.format(view=view)
    query = outer.format(clause=clause)
    with pytest.raises(MatchRuntimeError) as info:
        matchrec.sql(spark, query).collect()
    assert_error(info.value, query, query.index(culprit), MatchRuntimeError, condition)
    assert info.value.spark_condition.startswith(condition)
    assert "_pyspark_" not in str(info.value)


def test_a_plain_query_failing_at_the_same_place_is_left_to_spark(spark, view):
    """After a matchrec query fails in its outer SELECT, a plain spark.sql failing in the
    same expression at the same offset (another table) stays Spark's own error."""
    select = "SELECT 1 DIV (first_value - first_value) AS q FROM "
    clause = QUERY.format(view=view).replace("SELECT m.*\n", "SELECT *\n")
    with pytest.raises(MatchRuntimeError):
        matchrec.sql(spark, f"{select}({clause}) x").collect()
    with pytest.raises(PySparkException) as info:
        spark.sql(f"{select}(SELECT 1 AS first_value) x").collect()
    assert not isinstance(info.value, MatchRecognizeError)
    assert "DIVIDE_BY_ZERO" in str(info.value)


@pytest.mark.parametrize("call", ["MATCH_NUMBER()", "CLASSIFIER()", "PREV(m.last_value)"])
def test_a_row_pattern_function_outside_the_clause_points_to_measures(spark, view, call):
    query = QUERY.format(view=view).replace("SELECT m.*", f"SELECT {call} AS x")
    err = sql_error(spark, query)
    assert_error(err, query, query.index(call), MatchRecognizeError, "UNRESOLVED_ROUTINE")
    assert "known only inside MATCH_RECOGNIZE: compute it in MEASURES" in err.hint


def test_a_clause_input_reading_a_lateral_s_outer_row_says_to_join_after(spark, view):
    """Spark resolves the outer row's column inside LATERAL; a clause's input is read on
    its own: the error says so instead of only that ``s.name`` is unknown."""
    clause = QUERY.format(view=f"(SELECT * FROM {view} WHERE name = s.name)").replace(
        "SELECT m.*\n", "SELECT *\n"
    )
    query = f"SELECT s.name, x.* FROM (SELECT 'a' AS name) s, LATERAL ({clause}) x"
    err = sql_error(spark, query)
    assert_error(err, query, query.index("s.name)"), MatchRecognizeError, "UNRESOLVED_COLUMN")
    assert "join its result instead" in err.hint


@pytest.mark.parametrize(
    "old, new",
    [
        ("LAST(B.value)", "no_such_fn(B.value)"),  # a measure: Spark analyses it
        # a call of a value of another row in DEFINE: looked up among the session's
        # functions (DESCRIBE FUNCTION) before the glue is built
        ("B.value < PREV(B.value)", "no_such_fn(PREV(B.value)) > 0"),
    ],
)
def test_analysis_errors_matchrec_catches_are_not_logged_by_pyspark(spark, view, old, new):
    """PySpark logs each SQL error it raises as a JSON line on stderr (unless the session
    was built by matchrec, which quiets those loggers): the analysis errors matchrec
    asks for and reports itself must not reach a user's console before its own."""
    seen: list[logging.LogRecord] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record)

    handler = Collect()
    loggers = [
        logging.getLogger(n) for n in ("SQLQueryContextLogger", "DataFrameQueryContextLogger")
    ]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.NOTSET)  # as on a session the user built
        logger.addHandler(handler)
    try:
        query = QUERY.format(view=view).replace(old, new)
        err = sql_error(spark, query)
        assert "no_such_fn" in err.message.lower()
        assert query[err.pos :].startswith("no_such_fn")
    finally:
        for logger, level in zip(loggers, levels):
            logger.setLevel(level)
            logger.removeHandler(handler)
    assert seen == []


def test_quieting_pysparks_error_loggers_keeps_them_pysparks():
    """PySpark logs an SQL error with keywords only its own logger class takes: had
    matchrec made the logger first as a plain ``logging.Logger``, every later SQL error on
    the session would be a TypeError (``Logger._log() got an unexpected keyword argument
    'errorClass'``). A fresh interpreter, as a user's script."""
    script = (
        "import logging\n"
        "from matchrec.runtime.session import quiet_analysis\n"
        "with quiet_analysis():\n"
        "    pass\n"
        "from pyspark.logger import PySparkLogger\n"
        "names = ('SQLQueryContextLogger', 'DataFrameQueryContextLogger')\n"
        "assert all(isinstance(logging.getLogger(n), PySparkLogger) for n in names)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


#: (old text of QUERY, new text, the culprit's text in the new query, sqlglot's reason):
#: Spark SQL that sqlglot cannot write back, in MEASURES, in a row-local DEFINE and in
#: DEFINE's glue
UNWRITABLE = [
    (
        "LAST(B.value) AS last_value",
        "initcap(LAST(B.name), '-') AS last_value",
        "initcap(",
        "INITCAP does not support custom delimiters",
    ),
    (
        "B.value < PREV(B.value)",
        "initcap(name, '-') = 'X' AND B.value < PREV(B.value)",
        "initcap(",
        "INITCAP does not support custom delimiters",
    ),
    (
        "B.value < PREV(B.value)",
        "B.value < FIRST(A.value) AND initcap(FIRST(A.name), '-') = 'X'",
        "initcap(",
        "INITCAP does not support custom delimiters",
    ),
    (
        "B.value < PREV(B.value)",
        "B.value < PREV(B.value) AND B.value IN (SELECT value FROM test_errors_t FOR UPDATE)",
        "value FROM",
        "Locking reads using 'FOR UPDATE/SHARE' are not supported",
    ),
]


@pytest.mark.parametrize(("old", "new", "culprit", "reason"), UNWRITABLE)
def test_sql_sqlglot_cannot_write_is_an_error_at_the_users_expression(
    spark, view, old, new, culprit, reason
):
    from matchrec.planner.sqltext import UnsupportedSqlError

    query = QUERY.format(view=view).replace(old, new)
    err = sql_error(spark, query)
    message = f"cannot write this expression as Spark SQL ({reason})"
    assert_error(err, query, query.index(culprit), UnsupportedSqlError, message)
    assert isinstance(err, UnsupportedError)
    assert err.hint == "rewrite the expression with other Spark SQL functions"


def test_after_match_skip_errors_point_at_the_label(spark, view):
    query = f"""SELECT m.id
FROM {view} MATCH_RECOGNIZE (
  ORDER BY id
  MEASURES match_number() AS match
  ALL ROWS PER MATCH
  AFTER MATCH SKIP TO FIRST D
  PATTERN (A B+ C+ D?)
  DEFINE B AS B.value < PREV(B.value), C AS C.value > PREV(C.value), D AS false
) AS m"""
    with pytest.raises(PySparkException) as info:
        matchrec.sql(spark, query).collect()
    carried = carried_error(info.value)
    line, column = line_col(query, query.index("D\n  PATTERN"))
    assert carried.startswith(
        "runtime error: AFTER MATCH SKIP failed: pattern variable is not present in match "
        f"(line {line}, column {column})"
    ), carried
    assert f"  {line} |   AFTER MATCH SKIP TO FIRST D\n" in carried
    assert "hint: a match had no row of the label to skip to" in carried


@pytest.mark.parametrize(
    ("define", "expected"),
    [
        # value 90 80 70 80 70 80 (ids 1-6): a B row must be under 85, a reluctant B+?
        # ends at the first; no B row is over 85
        ("any(B.value < 85)", [(1, 2), (3, 4), (5, 6)]),
        ("any(B.value > 85)", []),
    ],
)
def test_any_is_the_boolean_aggregate_in_define(spark, view, define, expected):
    """Spark's ``any(x)`` is ``bool_or(x)``; sqlglot read it as the quantifier of
    ``x = ANY(...)``, which Spark then got without a window (MISSING_GROUP_BY)."""
    query = f"""SELECT m.* FROM {view} MATCH_RECOGNIZE (
  ORDER BY id
  MEASURES FIRST(A.id) AS a, LAST(B.id) AS b
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A B+?)
  DEFINE B AS {define}
) AS m"""
    rows = matchrec.sql(spark, query).collect()
    assert [tuple(r) for r in rows] == expected


def test_any_of_a_number_is_an_error_at_its_argument(spark, view):
    query = QUERY.format(view=view).replace("B.value < PREV(B.value)", "any(B.value)")
    err = sql_error(spark, query)
    assert_error(
        err, query, query.index("any(B.value)") + 4, SemanticError, "takes BOOLEAN values, not INT"
    )


def test_a_call_after_a_cast_operator_is_a_syntax_error():
    # sqlglot read the call as the target "type" and wrote SQL it could not read back,
    # a ParseError from deep inside the planner
    body = "ORDER BY id\nPATTERN (A B)\nDEFINE B AS id::struct<a:int>(B.value) > A.id"
    err = plan_error(body)
    assert_error(err, body, body.index("::"), SqlSyntaxError, "needs a type after it")


def test_sparks_reason_for_a_rejected_aggregate_names_the_users_expression(spark, view):
    query = QUERY.format(view=view).replace(
        "LAST(B.value) AS last_value", "percentile(coalesce(value, 1), 2) AS last_value"
    )  # (a sum of BOOLEANs is matchrec's own error: test_aggregate_values)
    err = sql_error(spark, query)
    assert_error(err, query, query.index("percentile(coalesce"), SemanticError, "Spark rejects")
    assert "__mr_" not in str(err)
    assert "percentile(coalesce(value, 1), 2)" in err.message.lower()


@pytest.mark.parametrize(
    "query",
    [
        "SELECT * FROM (VALUES (1, 90), (2, {big})) t(id, value) MATCH_RECOGNIZE (\n"
        "  ORDER BY id MEASURES LAST(value) AS v PATTERN (A B) DEFINE B AS true)",
        "SELECT id, v OVER w\nFROM (VALUES (1, 90), (2, {big})) t(id, value)\nWINDOW w AS (\n"
        "  ORDER BY id MEASURES LAST(value) AS v\n"
        "  ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING PATTERN (A B) DEFINE B AS true)",
    ],
)
def test_a_number_no_decimal_holds_in_the_input_is_told_at_it(spark, query):
    # Spark raises this while it parses the relation (an ArithmeticException, no place)
    query = query.format(big="1234567890123456789012345678901234567890.5")
    err = sql_error(spark, query)
    assert_error(
        err,
        query,
        query.index("1234567890"),
        SemanticError,
        "Decimal precision 41 exceeds max precision 38",
        hint="at most 38 digits",
    )


@pytest.mark.parametrize(
    "condition",
    [
        "try_add(FIRST(A.ts), B.value) IS NULL",
        "(B.ts - FIRST(A.value)) IS NOT NULL",
        "B.name LIKE concat(FIRST(A.name), B.ts - A.value) ESCAPE '!'",
        "named_struct('x', B.ts - FIRST(A.value)).x IS NULL",
    ],
)
def test_a_type_error_under_is_null_escape_or_a_named_struct_is_found_before_any_job(
    spark, view, condition
):
    """A condition Spark cannot type is an error before any job runs whatever surrounds
    it: under ``IS NULL``, ``LIKE ... ESCAPE`` or in ``named_struct`` its type check once
    never ran (the check's SQL did not parse) and the matcher failed while running with a
    worker traceback."""
    query = QUERY.format(view=view).replace("B.value < PREV(B.value)", condition)
    err = sql_error(spark, query)
    assert isinstance(err, SemanticError)
    # Spark's refusal at the condition, or matchrec's of a TIMESTAMP minus a number at it
    assert err.message.startswith(("Spark rejects", "- mixes B.ts (TIMESTAMP) and")), err
    start = query.index(condition)
    assert start <= err.pos < start + len(condition)
    assert "__mr_" not in str(err)


@pytest.mark.parametrize("measure", ["RUNNING sum(A.iv)", "FINAL avg(A.iv)", "sum(A.iv)"])
def test_an_interval_overflow_names_the_aggregate_as_written(measure):
    """The overflow of a sum of DAY-TIME intervals quotes the aggregate as the user wrote
    it (once ``RUNNING_SUM(A.iv)``, the planner's internal spelling), caret at it."""
    body = f"ORDER BY id MEASURES {measure} AS s ALL ROWS PER MATCH PATTERN (A+) DEFINE A AS id > 0"
    program = plan(body, ["id", "iv"])
    cols = {"id": [1, 2, 3], "iv": [timedelta(days=100_000_000)] * 3}
    cols.update({name: [True] * 3 for name, _ in program.precomputed})
    with pytest.raises(MatchRuntimeError) as info:
        list(run_partition(program.program, cols, 3))
    assert_error(info.value, body, body.index(measure), MatchRuntimeError, f"of {measure} reaches")


@pytest.mark.parametrize(
    ("line", "culprit"),
    [("\t\tLAST(B.pricee) AS p1", "B.pricee"), ("  name = '价格价格' AND pricee > 1", "pricee")],
    ids=["tabs", "wide_characters"],
)
def test_the_caret_stands_under_the_culprit_after_tabs_and_wide_characters(line, culprit):
    """A terminal expands a tab to its next stop and shows a CJK character two cells wide:
    the caret line keeps the tabs and doubles those characters, so the caret is under the
    culprit, not in the indentation before it."""
    sql = f"SELECT *\n{line}\nFROM t"
    rendered = SemanticError("x", sql=sql, pos=sql.index(culprit)).render().splitlines()
    shown, caret = rendered[1].expandtabs(8), rendered[2].expandtabs(8)

    def cells(text: str) -> int:
        return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)

    assert cells(caret) - 1 == cells(shown[: shown.index(culprit)])


@pytest.mark.parametrize(
    ("ending", "after"),
    [
        ("  DEFINE B AS B.value < 10\nAS m", "10"),
        ("  DEFINE B AS B.value < PREV(B.value)\nWHERE m.last_value > 2", "PREV(B.value)"),
        ("  DEFINE B AS B.value < PREV(B.value)\n", "PREV(B.value)"),
        ("  DEFINE B AS B.value < 10 m", "10"),
    ],
    ids=["alias", "where", "end", "bare_alias"],
)
def test_a_clause_without_its_closing_parenthesis_is_told_where_it_ends(ending, after):
    """The clause's last ')' forgotten: the caret goes where it belongs (after the last
    condition), not to PATTERN's or PREV's '(', which are closed."""
    query = QUERY.format(view="t").split("  DEFINE")[0] + ending
    with pytest.raises(SqlSyntaxError) as err:
        check_syntax(query)
    assert err.value.message == "unbalanced parenthesis: the '(' of MATCH_RECOGNIZE is never closed"
    assert err.value.pos == query.index(after) + len(after)


@pytest.mark.parametrize(
    ("old", "new", "marker", "offset"),
    [
        # a call's '(' left out: the ')' after it ends the clause early, lines before its end
        ("LAST(B.value) AS", "LASTB.value) AS", "B.value)", 7),
        ("LAST(B.value) AS", "LAST(B.value) ) AS", ") ) AS", 2),
        # a '(' doubled in PATTERN inside a CTE: the CTE's own '(' counts as the one unclosed
        ("PATTERN (A B+)", "PATTERN ( (A B+)", "( (A", 0),
        ("PREV(B.value)", "PREV((B.value)", "PREV((", 4),
    ],
    ids=["missing_open", "extra_close", "extra_open", "extra_open_define"],
)
def test_unbalanced_parentheses_are_found_by_the_layout(old, new, marker, offset):
    """A ')' starting a line closes the '(' ending the line above it with the same indent,
    as a reader pairs them: the mistake is inside the pair that does not balance."""
    inner = QUERY.format(view="t").replace(old, new).replace("\n", "\n  ")
    query = f"WITH res AS (\n  {inner}\n)\nSELECT * FROM res"
    with pytest.raises(SqlSyntaxError) as err:
        check_syntax(query)
    pos = query.index(marker) + offset
    message = "')' without a matching '('" if query[pos] == ")" else "'(' is never closed"
    assert_error(err.value, query, pos, SqlSyntaxError, message)


@pytest.mark.parametrize(
    ("header", "culprit"),
    [
        ("WITH base AS AS (SELECT 1)", "AS ("),
        ("WITH base = (SELECT 1)", "="),
        ("WITH base AS SELECT (SELECT 1)", "SELECT ("),
        ("WITH base AS (SELECT 1),", ","),
    ],
)
def test_a_malformed_with_list_is_a_syntax_error_where_it_goes_wrong(header, culprit):
    """Spark refuses it at that token; read past, the clause's input was looked for
    without the list (table ``base`` not found)."""
    query = header + "\n" + QUERY.format(view="base")
    with pytest.raises(SqlSyntaxError) as err:
        check_syntax(query)
    assert_error(err.value, query, header.rindex(culprit), SqlSyntaxError, "WITH clause")


@pytest.mark.parametrize(
    "header",
    [
        "WITH base (SELECT 1)",
        "WITH base(a) (SELECT 1)",
        "WITH base(a) AS (SELECT 1)",
        "WITH RECURSIVE base MAX RECURSION LEVEL 5 AS (SELECT 1)",
        "WITH RECURSIVE base(a) MAX RECURSION LEVEL 10 AS (SELECT 1)",
    ],
)
def test_with_lists_spark_reads_are_read(header):
    """Each form of Spark's CTE header: the clause's input reads the CTE, as written."""
    query = header + "\n" + QUERY.format(view="base")
    check_syntax(query)
    scoped = cte_scope(query, query.index("base MATCH_RECOGNIZE"))("SELECT * FROM base")
    assert scoped == f"{header} SELECT * FROM base"


def test_a_column_named_with_is_no_with_list():
    query = QUERY.format(view="(SELECT with, id FROM (SELECT 1 AS with, 2 AS id) s)")
    check_syntax(query)
    assert cte_scope(query, query.index("MATCH_RECOGNIZE"))("SELECT 1") == "SELECT 1"


@pytest.mark.parametrize(
    ("body", "marker"),
    [
        ("PATTERN (A B)) DEFINE A AS true", "B))"),
        ("MEASURES LASTB.x) AS e PATTERN (A) DEFINE A AS true", "B.x)"),
    ],
)
def test_a_clause_body_with_a_stray_parenthesis_says_so(body, marker):
    """The table function's body alone: a ')' nothing opened is named as such."""
    with pytest.raises(SqlSyntaxError) as err:
        parse_clause(body)
    pos = body.index(marker) + len(marker) - 1
    assert_error(err.value, body, pos, SqlSyntaxError, "')' without a matching '('")


@pytest.mark.parametrize(
    "where", ["MEASURES round(LAST(B.value), 1, 2) AS r", "DEFINE B AS round(value, 1, 2) > 0"]
)
def test_round_with_three_arguments_is_refused_as_spark_refuses_it(where):
    """sqlglot reads a third argument of round() (another dialect's truncation), which the
    table function's evaluator ignored: it gave round(x, 1) where Spark refuses the call.
    Spark refuses it as WRONG_NUM_ARGS, an analysis error: it was a syntax error here,
    with no condition and no hint."""
    measures, define = (where, "DEFINE B AS true") if "MEASURES" in where else ("", where)
    body = f"ORDER BY id {measures} PATTERN (A B) {define}"
    with pytest.raises(SemanticError) as err:
        plan_clause(parse_clause(body), COLUMNS)
    assert err.value.message == "[WRONG_NUM_ARGS] round() takes 1 or 2 arguments, not 3"
    assert body[err.value.pos :].startswith("2) ") and "DESCRIBE FUNCTION round" in err.value.hint


@pytest.mark.parametrize(
    ("condition", "written", "meant"),
    [
        ("value =< PREV(value)", "=<", "<="),
        ("name !== 'x'", "!==", "!="),
        ("value === 1", "===", "="),
    ],
)
def test_an_operator_spark_does_not_have_is_named_at_its_place(condition, written, meant):
    """The caret was at the end of the condition ("')' needs an operand after it")."""
    body = f"ORDER BY id PATTERN (A B) DEFINE B AS {condition}"
    with pytest.raises(SqlSyntaxError) as err:
        plan_clause(parse_clause(body), COLUMNS)
    assert err.value.message == f"unknown operator {written!r}"
    assert err.value.hint == f"did you mean {meant}?"
    assert err.value.pos == body.index(written)


@pytest.mark.parametrize(
    ("order", "word", "meant"),
    [("id DESCENDING", "DESCENDING", "DESC"), ("id NULL FIRST", "NULL", "NULLS")],
)
def test_a_misspelled_sort_keyword_is_a_syntax_error_at_the_word(order, word, meant):
    """It read as an expression with an alias ("Expected column reference. Actual: (id
    DESCENDING)", hint: a subquery)."""
    body = f"ORDER BY {order} PATTERN (A B) DEFINE B AS true"
    with pytest.raises(SqlSyntaxError) as err:
        plan_clause(parse_clause(body), COLUMNS)
    assert err.value.message == f"unexpected {word!r}"
    assert err.value.hint == f"did you mean {meant}?" and err.value.pos == body.index(word)


def test_a_misspelled_order_by_after_partition_by_is_told_at_the_word():
    """``PARTITION BY name ORDER ON id`` read as one PARTITION BY item: "Expected column
    reference. Actual: (name ORDER ON id)"."""
    body = "PARTITION BY name ORDER ON id MEASURES count(*) AS n PATTERN (A B) DEFINE B AS true"
    err = plan_error(body)
    assert isinstance(err, SqlSyntaxError) and err.message == "unexpected 'ON'"
    assert err.hint == "did you mean ORDER BY?" and err.pos == body.index("ON id")


@pytest.mark.parametrize(
    ("order", "words"),
    [("id\n  RUNNING", "(id RUNNING)"), ("name SORTED ON id", "(name SORTED ON id)")],
)
def test_an_order_by_of_bare_words_asks_about_a_keyword_on_one_line(order, words):
    """A misspelled keyword after the keys read as an alias: the message kept the line
    break of the text (the table function cut it there, with the position) and the hint
    said to compute an expression in a subquery."""
    body = f"PARTITION BY {order} MEASURES count(*) AS n PATTERN (A B) DEFINE B AS true"
    err = plan_error(body)
    assert isinstance(err, SemanticError) and "\n" not in err.message
    assert f"Actual: {words} (PARTITION BY takes column names" in err.message
    assert err.hint == "a keyword misspelled, or a comma missing between two columns?"


@pytest.mark.parametrize("pattern", ["(A B?)", "(A{2} B?)", "((A B)? C)"])
def test_a_misspelled_pattern_keyword_is_named_before_a_quantifier_reads_as_a_parameter(pattern):
    """``PATTERNS (A B?)``: its ``?`` was taken for an unbound parameter marker
    (UNBOUND_SQL_PARAMETER, hint: pass args)."""
    query = f"SELECT * FROM t MATCH_RECOGNIZE (ORDER BY id PATTERNS {pattern} DEFINE B AS true)"
    with pytest.raises(SqlSyntaxError) as err:
        read_statement(bound_parameters(query, None).text)
    assert err.value.hint == "did you mean PATTERN?"
    assert "?" not in bound_parameters("SELECT * FROM t WHERE a = ? AND b > ?", ["1", "2"]).text


@pytest.mark.parametrize("condition", ["PREV(1) > 0", "NEXT(LAST('x')) = 'x'", "FIRST(2 + 3) > 1"])
def test_a_navigation_of_a_constant_in_define_is_refused_as_in_measures(condition):
    """Trino's analyzer refuses it; in MEASURES it was, in DEFINE it ran."""
    body = f"ORDER BY id MEASURES count(*) AS n PATTERN (A B+) DEFINE B AS {condition} AND id > 0"
    err = plan_error(body)
    assert "must contain at least one column reference or CLASSIFIER()" in err.message
    assert body[err.pos :].startswith(condition.split("(", 1)[1][:2])


_BODY = " (ORDER BY id PATTERN (A B+) DEFINE B AS value > PREV(value))"


@pytest.mark.parametrize(
    ("query", "culprit", "words"),
    [
        ("SELECT * FROM MATCH_RECOGNIZE t" + _BODY, "t (", "must be followed by ("),
        ("SELECT * FROM t MATCH_RECOGNIZE\n  e" + _BODY, "e (", "must be followed by ("),
        ("SELECT * FROM t MATCH_RECOGNIZE ," + _BODY, ", (", "must be followed by ("),
        (  # without its "(" inside a CTE: the rest of the query is unbalanced
            "WITH r AS (\n  SELECT * FROM t MATCH_RECOGNIZE\n    ORDER BY id PATTERN (A B+)\n"
            "    DEFINE B AS value > PREV(value)\n  ) m\n)\nSELECT * FROM r",
            "\n    ORDER BY",
            "must be followed by (",
        ),
        ("SELECT * FROM t MATCH_RECOGNISE" + _BODY, "MATCH_RECOGNISE", "unknown word"),
        ("SELECT * FROM t MatchRecognize" + _BODY, "MatchRecognize", "unknown word"),
        ("SELECT * FORM t MATCH_RECOGNIZE" + _BODY, "FORM", "unknown word"),
        ("SELECT * FROM t MATCH RECOGNIZE" + _BODY, "MATCH RECOGNIZE", "unknown words"),
        ("SELECT * FROM t\nmatch  recognise" + _BODY, "match  recognise", "unknown words"),
        ("SELECT * FROM t AS m MATCH RECOGNIZE" + _BODY, "MATCH RECOGNIZE", "unknown words"),
        (  # chained: the second clause read the first's keyword as the table's alias
            "SELECT * FROM t MATCH_RECOGNIZE" + _BODY + " MATCH_RECOGNIZE" + _BODY,
            "MATCH_RECOGNIZE (ORDER BY id PATTERN (A B+) DEFINE B AS value > PREV(value))$",
            "cannot follow another row pattern clause",
        ),
        (
            "SELECT * FROM t MATCH_RECOGNIZE" + _BODY + " AS m\nMATCH_RECOGNIZE" + _BODY,
            "MATCH_RECOGNIZE (ORDER BY id PATTERN (A B+) DEFINE B AS value > PREV(value))$",
            "cannot follow another row pattern clause",
        ),
    ],
)
def test_a_misplaced_or_misspelled_match_recognize_is_ours_at_the_word(query, culprit, words):
    """They went to Spark as they were: its PARSE_SYNTAX_ERROR at '(', sometimes without
    the query's text, and no hint."""
    with pytest.raises(SqlSyntaxError) as err:
        check_syntax(query)
    assert words in err.value.message
    rest = query[err.value.pos :]  # a culprit ending in $ is the rest of the query
    assert rest == culprit[:-1] if culprit.endswith("$") else rest.startswith(culprit)
    assert ("FROM" if culprit == "FORM" else "MATCH_RECOGNIZE") in err.value.hint
    check_syntax("SELECT 1 AS match_recognize, 2 AS match_recognise FROM t")
    check_syntax("SELECT match, recognize FROM t")


def test_with_timeouts_without_within_points_at_the_option():
    """The caret was on PATTERN, 60-odd characters from what needs WITHIN."""
    body = (
        "ORDER BY id MEASURES count(*) AS n ONE ROW PER MATCH WITH TIMEOUTS "
        "PATTERN (A B) DEFINE B AS true"
    )
    err = plan_error(body)
    assert err.message.startswith("WITH TIMEOUTS needs WITHIN")
    assert body[err.pos :].startswith("TIMEOUTS")


@pytest.mark.parametrize(
    ("literal", "kind"),
    [
        ("DATE 'x'", "DATE"),
        ("date'2023-02-29'", "DATE"),
        ("TIMESTAMP '2024-01-01 25:00'", "TIMESTAMP"),
        ("TIMESTAMP_LTZ 'nope'", "TIMESTAMP_LTZ"),
        ("TIMESTAMP_NTZ '2026-13-01 00:00:00'", "TIMESTAMP_NTZ"),
    ],
)
def test_a_typed_literal_spark_does_not_read_is_refused_when_built(literal, kind):
    """Spark's parser refuses it (INVALID_TYPED_LITERAL); sqlglot read a cast, which failed
    while the job ran under ANSI mode and was NULL without it (a silent no-match)."""
    body = f"ORDER BY id PATTERN (A B*) DEFINE B AS ts > {literal}"
    err = plan_error(body)
    assert isinstance(err, SqlSyntaxError) and err.message.startswith("[INVALID_TYPED_LITERAL]")
    assert f'typed literal "{kind}" is invalid' in err.message
    assert body[err.pos :].startswith(literal)


@pytest.mark.parametrize(
    "literal",
    [
        "DATE '2024'",
        "DATE ' 2024-1-5 '",
        "DATE('x')",
        "TIMESTAMP 'T10:00'",
        "DATE '2024-01-01T'",
        # Spark's special values
        "DATE 'today'",
        "DATE ' Yesterday '",
        "TIMESTAMP 'epoch'",
        "TIMESTAMP_NTZ 'now'",
        "TIMESTAMP_LTZ 'tomorrow'",
    ],
)
def test_typed_literals_spark_reads_and_date_casts_still_plan(literal):
    plan_clause(parse_clause(f"ORDER BY id PATTERN (A B*) DEFINE B AS ts > {literal}"), COLUMNS)


_MOMENTS_SCHEMA = [("id", "int"), ("n", "int"), ("b", "bigint"), ("d", "date"), ("ts", "timestamp")]


def _moments_struct():
    from pyspark.sql import types as T

    spark_types = {"int": T.IntegerType(), "bigint": T.LongType(), "date": T.DateType()}
    spark_types["timestamp"] = T.TimestampType()
    return T.StructType([T.StructField(n, spark_types[t]) for n, t in _MOMENTS_SCHEMA])


@pytest.mark.parametrize(
    ("condition", "culprit", "words"),
    [
        ("ts > PREV(ts) + 1", "1", "+ mixes PREV(ts) (TIMESTAMP) and 1 (INT)"),
        ("d > 1", "1", "> mixes d (DATE) and 1 (INT)"),
        ("d + b > PREV(d)", "b", "+ mixes d (DATE) and b (BIGINT)"),
        ("2 - d < PREV(d)", "2", "- mixes d (DATE) and 2 (INT)"),
        ("ts * 2 > PREV(ts)", "2", "* mixes ts (TIMESTAMP) and 2 (INT)"),
    ],
)
def test_a_date_or_timestamp_with_a_number_is_refused_where_matchrec_types_it(
    condition, culprit, words
):
    """Spark refuses these, ANSI mode or not; the table function (whose row-local parts
    Spark analysed after it, with a plan dump at "line 1 pos 7") and a rule say so at the
    number, in the user's words."""
    from matchrec.planner.rules import RuleRow, compile_rule
    from matchrec.runtime.udtf import build_program
    from sqlglot import exp

    schema = _moments_struct()
    types = {n: exp.DataType.build(t, dialect="spark") for n, t in _MOMENTS_SCHEMA}
    body = f"ORDER BY ts MEASURES count(*) AS c PATTERN (A B) DEFINE B AS {condition}"
    for door, call in {
        "table function": lambda: build_program(body, schema),
        "dynamic rule": lambda: compile_rule(RuleRow("r", 1, body), types),
    }.items():
        with pytest.raises(SemanticError) as info:
            call()
        assert info.value.message.startswith(words), (door, info.value.message)
        assert info.value.pos == body.rindex(culprit), door


#: (condition, the number it mixes with an interval, the message's start)
_INTERVAL_WITH_NUMBER = [
    ("B.d - A.d < 30", "30", "< mixes B.d - A.d (INTERVAL DAY) and 30 (INT)"),
    ("B.ts - A.ts > B.b", "B.b", "> mixes B.ts - A.ts (INTERVAL DAY TO SECOND) and B.b (BIGINT)"),
    ("(B.ts - A.ts) + 1 > B.ts - A.ts", "1", "+ mixes (B.ts - A.ts) (INTERVAL DAY TO SECOND)"),
    ("B.n / (B.ts - A.ts) > 0", "B.n", "/ mixes (B.ts - A.ts) (INTERVAL DAY TO SECOND) and B.n"),
]


@pytest.mark.parametrize(("condition", "culprit", "words"), _INTERVAL_WITH_NUMBER)
def test_an_interval_with_a_number_is_refused_where_matchrec_types_it(condition, culprit, words):
    """The table function let ``B.d - A.d < 30`` through to run time (Python's "'<' not
    supported between instances of 'datetime.timedelta' and 'int'", or rows when an AND
    skipped it); Spark refuses it when analysing (test below)."""
    from matchrec.planner.rules import RuleRow, compile_rule
    from matchrec.runtime.udtf import build_program
    from sqlglot import exp

    types = {n: exp.DataType.build(t, dialect="spark") for n, t in _MOMENTS_SCHEMA}
    body = f"ORDER BY ts MEASURES count(*) AS c PATTERN (A B) DEFINE B AS {condition}"
    for door, call in {
        "table function": lambda: build_program(body, _moments_struct()),
        "dynamic rule": lambda: compile_rule(RuleRow("r", 1, body), types),
    }.items():
        with pytest.raises(SemanticError) as info:
            call()
        assert info.value.message.startswith(words), (door, info.value.message)
        assert info.value.pos == body.rindex(culprit), door


def test_an_interval_with_a_number_is_what_spark_refuses(spark):
    """matchrec.sql says so at the number (the caret was at the condition's start, in
    Spark's words); Spark itself refuses each, and takes an interval scaled by a number."""
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW mr_moments AS SELECT * FROM VALUES "
        "(1, 2, 3L, DATE'2024-01-01', TIMESTAMP'2024-01-01 10:00:00'), "
        "(2, 4, 5L, DATE'2024-01-09', TIMESTAMP'2024-01-01 12:00:00') AS t(id, n, b, d, ts)"
    )
    pair = "(SELECT * FROM mr_moments WHERE id = 1) A, (SELECT * FROM mr_moments WHERE id = 2) B"
    for condition, culprit, words in _INTERVAL_WITH_NUMBER:
        with pytest.raises(AnalysisException):
            spark.sql(f"SELECT {condition} FROM {pair}").collect()
        query = (
            "SELECT * FROM mr_moments MATCH_RECOGNIZE (ORDER BY ts MEASURES count(*) AS c "
            f"PATTERN (A B) DEFINE B AS {condition})"
        )
        with pytest.raises(SemanticError) as info:
            matchrec.sql(spark, query)
        assert info.value.message.startswith(words) and info.value.pos == query.rindex(culprit)
    scaled = "(B.ts - A.ts) * B.n > (B.ts - A.ts) / 2"
    assert spark.sql(f"SELECT {scaled} FROM {pair}").collect()[0][0] is True
    query = (
        "SELECT * FROM mr_moments MATCH_RECOGNIZE (ORDER BY ts MEASURES count(*) AS c "
        f"PATTERN (A B) DEFINE B AS {scaled})"
    )
    assert [r.c for r in matchrec.sql(spark, query).collect()] == [2]


@pytest.mark.parametrize(
    "condition", ["d + 1 > PREV(d)", "1 + d > PREV(d)", "d - n = PREV(d)", "ts > PREV(ts)"]
)
def test_days_added_to_a_date_are_sparks_date_add(condition):
    from matchrec.runtime.udtf import build_program

    body = f"ORDER BY ts MEASURES count(*) AS c PATTERN (A B) DEFINE B AS {condition}"
    build_program(body, _moments_struct())


@pytest.mark.parametrize(
    ("skip", "hint"),
    [
        ("AFTER MATCH SKIP TO NEXT", "did you mean AFTER MATCH SKIP TO NEXT ROW?"),
        ("AFTER MATCH SKIP TO LAST", "SKIP TO LAST names a variable: AFTER MATCH SKIP TO LAST A"),
    ],
)
def test_skip_to_without_its_last_word_says_what_was_meant(skip, hint):
    body = f"ORDER BY id MEASURES count(*) AS c {skip} PATTERN (A B) DEFINE B AS true"
    with pytest.raises(SemanticError) as err:
        plan_clause(parse_clause(body), COLUMNS)
    assert err.value.hint == hint


def test_a_subquery_reading_a_cte_that_holds_a_clause_is_refused_clearly(spark):
    """``WITH m AS (... MATCH_RECOGNIZE ...)`` read by a subquery in another clause's
    DEFINE: matchrec cannot hand the first clause's result to it. The error says so (it
    named an internal view no user wrote) and how to register the result instead."""
    spark.sql(
        "SELECT * FROM VALUES ('a', 1, 5), ('a', 2, 3), ('a', 3, 4) AS t(k, ts, p)"
    ).createOrReplaceTempView("mr_cte_t")
    query = """WITH m AS (SELECT * FROM mr_cte_t MATCH_RECOGNIZE (PARTITION BY k ORDER BY ts
    MEASURES LAST(DOWN.p) AS bottom PATTERN (STRT DOWN+ UP+)
    DEFINE DOWN AS p < PREV(p), UP AS p > PREV(p)))
SELECT * FROM mr_cte_t MATCH_RECOGNIZE (PARTITION BY k ORDER BY ts
    MEASURES LAST(A.ts) AS ts1 PATTERN (A) DEFINE A AS p = (SELECT min(bottom) FROM m))"""
    err = sql_error(spark, query)
    assert_error(
        err,
        query,
        query.index("p = (SELECT"),
        SemanticError,
        "reads the result of another MATCH_RECOGNIZE",
        hint="CREATE TEMP VIEW",
    )
    assert "__matchrec_" not in str(err)


@pytest.mark.parametrize(
    ("measure", "define"),
    [
        ("LAST(ts) + INTERVAL '1-2' DAY", "value > 0"),
        ("LAST(ts)", "ts > TIMESTAMP '2026-01-01' + INTERVAL '1-2' DAY"),
    ],
)
def test_an_interval_literal_spark_cannot_read_is_shown_at_the_literal(
    spark, view, measure, define
):
    """Spark's parser refuses ``INTERVAL '1-2' DAY`` (a year-month text with a day unit)
    naming no place: matchrec.sql and the DataFrame door show its message at the literal,
    before any job (it was PySpark's raw IllegalArgumentException)."""
    body = f"ORDER BY id MEASURES {measure} AS z PATTERN (A B+) DEFINE B AS {define}"
    err = sql_error(spark, f"SELECT * FROM {view} MATCH_RECOGNIZE ({body})")
    assert err.message.startswith("[INVALID_INTERVAL_FORMAT.INVALID_VALUE]")
    assert err.sql[err.pos :].startswith("INTERVAL '1-2' DAY")
    with pytest.raises(SemanticError) as info:
        matchrec.match_recognize(spark.table(view), body)
    assert info.value.sql[info.value.pos :].startswith("INTERVAL '1-2' DAY")


@pytest.mark.parametrize(
    ("measure", "define", "call"),
    [
        ("explode(array(FIRST(A.value), LAST(B.value)))", "value < PREV(value)", "explode("),
        ("count(*)", "posexplode_outer(array(value)) IS NOT NULL", "posexplode_outer("),
        ("stack(2, FIRST(A.id), LAST(B.id))", "value < PREV(value)", "stack("),
        ("inline(array(named_struct('v', LAST(B.value))))", "value < PREV(value)", "inline("),
    ],
)
def test_a_generator_is_refused_at_its_call(spark, view, measure, define, call):
    """A generator (explode, stack, inline, ...) makes rows, where a measure or a
    condition is one value: refused at the call before any job (explode in MEASURES gave
    a row per element under ONE ROW PER MATCH)."""
    body = f"ORDER BY id MEASURES {measure} AS z PATTERN (A B+) DEFINE B AS {define}"
    err = sql_error(spark, f"SELECT * FROM {view} MATCH_RECOGNIZE ({body})")
    assert isinstance(err, UnsupportedError)
    assert "returns rows, not a value" in err.message
    assert err.sql[err.pos :].startswith(call)


@pytest.mark.parametrize(
    ("measure", "define", "call"),
    [
        (
            "CAST(window(LAST(B.ts), '1 minute').start AS TIMESTAMP)",
            "value < PREV(value)",
            "window(",
        ),
        ("count(*)", "window(B.ts, '10 seconds').start IS NOT NULL", "window("),
        ("count(*)", "`window`(B.ts, '10 seconds').start IS NOT NULL", "`window`("),
        ("session_window(FIRST(A.ts), '5 seconds')", "value < PREV(value)", "session_window("),
        ("window_time(LAST(B.ts))", "value < PREV(value)", "window_time("),
    ],
)
def test_a_time_window_is_refused_at_its_call(spark, view, measure, define, call):
    """Spark's window(), session_window() and window_time() rewrite the query around them
    (the rows with a NULL time dropped, a row repeated per sliding window, two of them
    refused): refused at the call in every door. The table function gave no rows for a
    CAST window measure; matchrec.sql a raw AnalysisException for two of them."""
    body = f"ORDER BY id MEASURES {measure} AS z PATTERN (A B+) DEFINE B AS {define}"
    err = sql_error(spark, f"SELECT * FROM {view} MATCH_RECOGNIZE ({body})")
    assert isinstance(err, UnsupportedError)
    assert "groups rows into time windows" in err.message
    assert err.sql[err.pos :].startswith(call)
    matchrec.register(spark)
    with pytest.raises(UnsupportedError) as info:
        spark.sql(f"SELECT * FROM match_recognize(TABLE({view}), {sql_literal(body)})").collect()
    assert info.value.sql[info.value.pos :].startswith(call)


@pytest.mark.parametrize(
    ("measure", "define", "meant"),
    [
        ("cout(*)", "value < PREV(value)", "count"),
        ("lenght(LAST(B.name))", "value < PREV(value)", "length"),
        ("count(*)", "lenght(B.name) > PREV(B.id)", "length"),
    ],
)
def test_a_misspelled_function_is_named_with_the_one_meant(spark, view, measure, define, meant):
    """Spark's UNRESOLVED_ROUTINE for a misspelled built-in says which one was meant, and
    the table function's refusal of cout(*) in MEASURES says the name is unknown (it said
    it could not evaluate cout() over values from several rows)."""
    body = f"ORDER BY id MEASURES {measure} AS z PATTERN (A B+) DEFINE B AS {define}"
    err = sql_error(spark, f"SELECT * FROM {view} MATCH_RECOGNIZE ({body})")
    assert f"did you mean {meant}()?" in err.hint
    assert err.sql[err.pos :].startswith(("cout(", "lenght("))
    if measure.startswith("cout"):
        matchrec.register(spark)
        with pytest.raises(UnsupportedError) as info:
            spark.sql(
                f"SELECT * FROM match_recognize(TABLE({view}), {sql_literal(body)})"
            ).collect()
        assert info.value.message.startswith("cout() is no built-in function")
        assert f"did you mean {meant}()?" in info.value.message
        assert info.value.sql[info.value.pos :].startswith("cout(*)")


@pytest.mark.parametrize(
    ("value", "says"),
    [
        (":gap", "the parameter marker :gap is inside the clause's text"),
        ("?", "the parameter marker ? is inside the clause's text"),
        ("{limit}", "an unformatted {limit} placeholder"),
    ],
)
def test_a_marker_or_placeholder_in_a_clause_string_is_refused_at_its_place(
    spark, view, value, says
):
    """The table function's string and the DataFrame door's clause are texts nothing
    binds or formats: Spark failed on the planner's text of them (UNBOUND_SQL_PARAMETER
    with its plan and ``_6`` for ``?``, a syntax error at '{' at "line 1 pos 14")."""
    body = f"ORDER BY id MEASURES count(*) AS n PATTERN (A{{1,2}} B+) DEFINE B AS value > {value}"
    matchrec.register(spark)
    attempts = [
        lambda: spark.sql(f"SELECT * FROM match_recognize(TABLE({view}), {sql_literal(body)})"),
        lambda: matchrec.match_recognize(spark.table(view), body),
    ]
    for attempt in attempts:
        with pytest.raises(MatchRecognizeError) as info:
            attempt().collect()
        assert says in info.value.message
        assert body[info.value.pos :].startswith(value)


def test_a_function_of_a_schema_is_not_taken_for_a_misspelled_built_in(spark, view):
    """``db.cout(...)`` names a schema's function, which no built-in is: Spark's
    UNRESOLVED_ROUTINE is kept without "did you mean count()?"."""
    body = (
        "ORDER BY id MEASURES `default`.`cout`(LAST(B.value)) AS z PATTERN (A B+) "
        "DEFINE B AS value < PREV(value)"
    )
    err = sql_error(spark, f"SELECT * FROM {view} MATCH_RECOGNIZE ({body})")
    assert "UNRESOLVED_ROUTINE" in err.message
    assert "did you mean" not in (err.hint or "")
    assert err.sql[err.pos :].startswith("`default`.`cout`(")


@pytest.mark.parametrize("call", ["named_struct('a')", "named_struct('a', LAST(B.value), 'b')"])
def test_a_named_struct_of_an_odd_count_is_sparks_refusal(spark, view, call):
    """Spark refuses named_struct of an odd number of arguments (WRONG_NUM_ARGS); sqlglot's
    reader dropped the last name, and the measure was an empty STRUCT."""
    body = f"ORDER BY id MEASURES {call} AS z PATTERN (A B+) DEFINE B AS value < PREV(value)"
    err = sql_error(spark, f"SELECT * FROM {view} MATCH_RECOGNIZE ({body})")
    assert "WRONG_NUM_ARGS" in err.message
    assert err.sql[err.pos :].startswith("named_struct(")


@pytest.mark.parametrize(
    ("measure", "define", "caret"),
    [
        (
            "get_json_object(CAST(LAST(B.value) AS STRING), '$.a', 3)",
            "value < PREV(value)",
            "3)",  # the first argument too many, as for an aggregate's
        ),
        (
            "LAST(B.value)",
            "get_json_object(CAST(PREV(value) AS STRING)) IS NULL",
            "get_json_object(",
        ),
    ],
)
def test_get_json_object_of_another_count_is_sparks_refusal(spark, view, measure, define, caret):
    """A third argument was dropped (the call answered) and one argument was "')' needs
    an operand after it"; Spark refuses both (WRONG_NUM_ARGS)."""
    body = f"ORDER BY id MEASURES {measure} AS z PATTERN (A B+) DEFINE B AS {define}"
    err = sql_error(spark, f"SELECT * FROM {view} MATCH_RECOGNIZE ({body})")
    assert "WRONG_NUM_ARGS" in err.message
    assert err.sql[err.pos :].startswith(caret)


@pytest.mark.parametrize(
    ("door", "call", "key", "caret"),
    [
        ("define", "to_json(map(CAST(A.name AS BINARY), value))", "BINARY", "map("),
        ("define", "to_json(named_struct('m', map(array(A.id), value)))", "ARRAY", "named_"),
        ("table function", "to_json(map(CAST(FIRST(name) AS BINARY), LAST(value)))", "BINARY", 0),
        ("rule", "to_json(map(CAST(FIRST(name) AS BINARY), LAST(value)))", "BINARY", 0),
    ],
)
def test_to_json_of_map_keys_spark_writes_as_object_text_is_refused(
    spark, view, door, call, key, caret
):
    """Spark writes a BINARY, ARRAY or STRUCT map key as the text of its JVM object
    (``[B@1a2b3c``). matchrec's to_json of values of several rows raised a bare
    NotImplementedError inside the job: a Python worker traceback, and for a rule the
    whole query failed instead of the rule being reported."""
    reason = re.escape(f"to_json() of a map with {key} keys is not computed here")
    if door == "define":
        body = f"ORDER BY id MEASURES count(*) AS n PATTERN (A B+) DEFINE B AS {call} IS NULL"
        err = sql_error(spark, f"SELECT * FROM {view} MATCH_RECOGNIZE ({body})")
        assert re.search(reason, err.message) and err.sql[err.pos :].startswith(caret)
        return
    body = f"ORDER BY id MEASURES {call} AS j PATTERN (A B+) DEFINE B AS value < PREV(value)"
    if door == "table function":
        matchrec.register(spark)
        with pytest.raises(UnsupportedError, match=reason):
            spark.sql(f"SELECT * FROM match_recognize(TABLE({view}), {sql_literal(body)})")
        return
    rules = spark.createDataFrame([("r", 1, body)], "rule_id STRING, version INT, spec STRING")
    with pytest.warns(UserWarning, match=f"skips rule 'r' version 1: {reason}"):
        out = matchrec.match_recognize_dynamic(spark.table(view), rules).collect()
    assert [(r.rule_id, r.status) for r in out] == [("r", "ERROR")]


@pytest.mark.parametrize(
    ("interval", "unit", "meant"),
    [
        ("INTERVAL '30' MINUTS", "MINUTS", "MINUTES"),
        ("INTERVAL '1 02' DAY TO HOURS", "HOURS", "HOUR"),
        ("INTERVAL '1' DAY + INTERVAL 2 HOURZ", "HOURZ", "HOUR"),
    ],
)
def test_a_misspelled_interval_unit_is_our_error_at_it(spark, view, interval, unit, meant):
    """``INTERVAL '30' MINUTS`` was Spark's syntax error at an ``AS`` matchrec writes (the
    caret at the condition), and the table function's raw INVALID_TYPED_LITERAL."""
    body = (
        f"ORDER BY id MEASURES count(*) AS n PATTERN (A B+) DEFINE B AS ts - PREV(ts) <= {interval}"
    )
    err = sql_error(spark, f"SELECT * FROM {view} MATCH_RECOGNIZE ({body})")
    assert f"{unit} is no unit of an interval" in err.message
    assert err.sql[err.pos :].startswith(unit) and f"did you mean {meant}?" in err.hint
    matchrec.register(spark)
    with pytest.raises(SemanticError, match=f"{unit} is no unit"):
        spark.sql(f"SELECT * FROM match_recognize(TABLE({view}), {sql_literal(body)})").collect()


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("spark.matchrec.groupRows", "abc"),
        ("spark.matchrec.groupRows", "0"),
        ("spark.matchrec.chunkRows", "-5"),
        ("spark.matchrec.stream.buckets", "1.5"),
    ],
)
def test_a_setting_matchrec_cannot_use_is_an_error_naming_it(spark, view, key, value):
    """``groupRows=abc`` was a bare ``ValueError: invalid literal for int()`` and ``0`` or
    ``-5`` were taken."""
    rules = spark.createDataFrame(
        [("r", 1, "ORDER BY id PATTERN (A) DEFINE A AS true")],
        "rule_id STRING, version INT, spec STRING",
    )
    with session_settings(spark, {key: value}):
        with pytest.raises(SettingError) as info:
            if key.endswith("buckets"):  # read by MATCH_RECOGNIZE_DYNAMIC and streams
                matchrec.match_recognize_dynamic(spark.table(view), rules)
            else:
                matchrec.sql(
                    spark,
                    f"SELECT * FROM {view} MATCH_RECOGNIZE (ORDER BY id "
                    "MEASURES count(*) AS n PATTERN (A+) DEFINE A AS true)",
                )
    least = 0 if key.endswith("chunkRows") else 1  # (0: never cut)
    assert f"{key} must be a whole number of at least {least}, not '{value}'" in str(info.value)


@pytest.mark.parametrize(
    ("measure", "says", "at"),
    [
        (
            "RUNNING histogram_numeric(B.value, 3)",
            "aggregate histogram_numeric() is not",
            "histogram_numeric(",
        ),
        ("random()", "random() is not deterministic", "random("),
    ],
)
def test_a_refused_call_is_named_as_written(spark, view, measure, says, at):
    """``RUNNING histogram_numeric(...)`` was refused as ``running_histogram_numeric()``
    (a name matchrec reads it by), ``random()`` as ``rand()`` (sqlglot's)."""
    body = f"ORDER BY id MEASURES {measure} AS z PATTERN (A B+) DEFINE B AS value < PREV(value)"
    err = sql_error(spark, f"SELECT * FROM {view} MATCH_RECOGNIZE ({body})")
    assert says in err.message and err.sql[err.pos :].startswith(at)


@pytest.mark.parametrize(
    "condition", ["ts > INTERVAL '5' DAY", "INTERVAL '1' MONTH <= CAST(PREV(ts) AS DATE)"]
)
def test_a_time_compared_with_an_interval_is_a_positioned_error(spark, view, condition):
    """Spark refuses it (DATATYPE_MISMATCH); the table function's caller got Spark's raw
    error and the rewritten plan, with internal names: now matchrec's."""
    with pytest.raises(AnalysisException, match="DATATYPE_MISMATCH"):
        spark.sql(f"SELECT {condition.replace('PREV(ts)', 'ts')} FROM {view}").collect()
    body = f"ORDER BY id MEASURES count(*) AS n PATTERN (A B+) DEFINE B AS {condition}"
    err = sql_error(spark, f"SELECT * FROM {view} MATCH_RECOGNIZE ({body})")
    assert "BINARY_OP_DIFF_TYPES" in err.message  # (Spark's, asked about the condition)
    matchrec.register(spark)
    with pytest.raises(SemanticError, match="a point in time with a length of time"):
        spark.sql(f"SELECT * FROM match_recognize(TABLE({view}), {sql_literal(body)})").collect()


@pytest.mark.parametrize("at", ["c3,", "c500,", "x >"])
def test_a_long_line_is_shown_around_the_caret(at):
    """A generated query put its 5,000-character line above the caret whole."""
    sql = "SELECT " + ", ".join(f"c{i}" for i in range(1000)) + " FROM t WHERE x > 1"
    shown, caret = SqlSyntaxError("x", sql=sql, pos=sql.index(at)).render().splitlines()[1:3]
    assert len(shown) < 520
    assert shown[caret.index("^") :].startswith(at)


@pytest.mark.parametrize("measure", ["upper(LAST(name))", "concat(LAST(name))", "abs(B.value)"])
def test_filter_after_a_function_that_is_no_aggregate_is_sparks_syntax_error(measure):
    """It ran: ``upper(LAST(url)) FILTER (WHERE ...)`` gave NULL and ``concat(LAST(url))
    FILTER (...)`` ignored the filter; Spark refuses FILTER after a non-aggregate."""
    body = (
        f"ORDER BY id MEASURES {measure} FILTER (WHERE B.value > 100) AS v "
        "PATTERN (A B+) DEFINE B AS value > 0"
    )
    name = measure.split("(")[0]
    assert_error(
        plan_error(body),
        body,
        body.index(measure),
        SqlSyntaxError,
        f"The function `{name}` does not support FILTER clause",
        "FILTER (WHERE ...) goes after an aggregate",
    )


def _nested(depth: int) -> str:
    """A clause body whose DEFINE condition and measure nest ``depth`` parentheses deep,
    as a query generator writes them."""
    cond = "".join(f"(value > {-k} AND " for k in range(depth - 1)) + "value < PREV(value)"
    measure = "sum(" + "abs(" * (depth - 1) + "B.value" + ")" * depth
    return (
        f"ORDER BY id MEASURES {measure} AS s PATTERN (A B+) DEFINE B AS {cond}{')' * (depth - 1)}"
    )


def test_an_expression_150_parentheses_deep_plans_in_every_door():
    """40 levels raised a bare RecursionError (sqlglot recurses about 25 frames per
    level); Spark reads such text. The table function's typing recursed as deep."""
    from matchrec.runtime.udtf import build_program
    from pyspark.sql.types import IntegerType, StringType, StructField, StructType

    limit = sys.getrecursionlimit()
    body = _nested(150)
    plan(body)
    schema = StructType(
        [StructField(c, IntegerType() if c != "name" else StringType()) for c in COLUMNS]
    )
    build_program(body, schema)
    assert sys.getrecursionlimit() == limit


def test_an_expression_nested_deeper_than_matchrec_reads_is_refused_at_the_deepest():
    body = _nested(201)
    deepest = body.index("PREV(") + len("PREV")
    assert_error(
        plan_error(body), body, deepest, SqlSyntaxError, "nested 201 parentheses deep", "flatter"
    )


@pytest.mark.parametrize(("pattern", "word"), [("STRT AS DOWN+", "AS"), ("A SELECT", "SELECT")])
def test_a_reserved_word_is_no_pattern_variable_unless_quoted(pattern, word):
    """``PATTERN (STRT AS DOWN+ UP+)`` read AS as a variable without a condition, which
    matches any row: 13 matches where the query without it found 16."""
    body = f"ORDER BY id PATTERN ({pattern} B) DEFINE B AS value > 0"
    assert_error(
        plan_error(body),
        body,
        body.index(f" {word}") + 1,
        SqlSyntaxError,
        f"{word} is a reserved word",
        f"quote it (`{word}`)",
    )
    plan(body.replace(f" {word} ", f" `{word}` ", 1))


def test_on_and_in_still_name_states():
    """Trino reserves them; a state machine's ``PATTERN (OFF+ ON+)`` ran before."""
    plan("ORDER BY id PATTERN (OFF+ ON+ IN) DEFINE ON AS value > 0, OFF AS value <= 0")


def test_filter_after_a_call_sqlglot_does_not_know_is_left_to_spark():
    """Only a known scalar function is refused: a name sqlglot does not know may be an
    aggregate (``product``, a UDAF), whose FILTER Spark takes: what is said is about the
    call itself."""
    err = plan_error(
        "ORDER BY id MEASURES product(B.value) FILTER (WHERE B.value > 1) AS p "
        "PATTERN (A B+) DEFINE B AS value > 0"
    )
    assert "FILTER" not in err.message and "product()" in err.message


def test_a_rule_150_parentheses_deep_compiles():
    """A rule of MATCH_RECOGNIZE_DYNAMIC parsed before the room to nest was made: 60
    levels raised a bare RecursionError."""
    from matchrec.planner.rules import RuleRow, compile_rule
    from sqlglot import exp

    columns = {c: exp.DataType.build("int" if c != "name" else "string") for c in COLUMNS}
    compile_rule(RuleRow("r", 1, _nested(150)), columns)


@pytest.mark.parametrize(
    ("body", "culprit", "message", "hint"),
    [
        (  # SKIP TO without its target read PATTERN as the variable to go to
            "ORDER BY id MEASURES count(*) AS n AFTER MATCH SKIP TO PATTERN (A B+) "
            "DEFINE B AS value < PREV(value)",
            "(A B+)",
            "unexpected '('",
            "read as the variable AFTER MATCH SKIP TO goes to",
        ),
        (  # it said "unexpected '.'; is an operator or a comma missing before it?"
            "ORDER BY id MEASURES FINAL B.value AS v PATTERN (A B+) "
            "DEFINE B AS value < PREV(value)",
            "FINAL",
            "FINAL applies to a navigation function or an aggregate, not to 'B.value'",
            "FINAL LAST(B.value)",
        ),
        (
            "ORDER BY id MEASURES count(*) AS n PATTERN (A{-1} B) DEFINE B AS true",
            "1}",
            "unexpected '1'",
            "a quantifier's bounds are numbers of 0 or more",
        ),
        (  # the message showed the character itself: nothing
            "ORDER BY id MEASURES count(*) AS n PATTERN (A B\u200b+) DEFINE B AS true",
            "\u200b",
            "the invisible character U+200B (ZERO WIDTH SPACE)",
            None,
        ),
        (  # the hint gave the order of the clauses
            "ORDER BY measures MEASURES count(*) AS n PATTERN (A B+) DEFINE B AS true",
            "measures MEASURES",
            "unexpected 'measures'; expected an expression",
            "a column of that name is written with backquotes: `measures`",
        ),
        (  # standard SQL's quoted name is a string in Spark
            'ORDER BY id MEASURES LAST("value") AS v PATTERN (A B+) DEFINE B AS true',
            '"value"',
            "must contain at least one column reference",
            '"value" is a string; Spark quotes a column name with backquotes: LAST(`value`)',
        ),
        (  # Spark's PARSE_SYNTAX_ERROR at a '(' of the rewritten expression
            "ORDER BY id MEASURES count(*) AS n PATTERN (A B+) DEFINE B AS count(B.id) OVER w > 0",
            "w > 0",
            "[MISSING_WINDOW_SPECIFICATION] Window specification is not defined for w",
            "write the window in place: OVER (PARTITION BY ... ORDER BY ...)",
        ),
    ],
)
def test_a_mistake_is_told_as_what_was_meant(body, culprit, message, hint):
    assert_error(plan_error(body), body, body.index(culprit), message=message, hint=hint)


def test_an_unbound_parameter_says_how_each_door_passes_its_value():
    """The hint named only ``matchrec.sql(..., args=...)``, also in ``%%matchrec`` (which
    takes ``--args VAR``) and ``matchrec run`` (``--param NAME=VALUE``)."""
    query = "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY id PATTERN (A) DEFINE A AS id > :k)"
    with pytest.raises(SemanticError) as err:
        bound_parameters(query, None)
    assert err.value.pos == query.index(":k")
    for door in ("args={'k': ...}", "--args VAR in %%matchrec", "--param k=... in matchrec run"):
        assert door in err.value.hint


def _map_input():
    from pyspark.sql.types import IntegerType, MapType, StringType, StructField, StructType

    return StructType(
        [
            StructField("id", IntegerType()),
            StructField("m", MapType(StringType(), IntegerType())),
        ]
    )


@pytest.mark.parametrize(
    "condition",
    ["B.m > PREV(B.m)", "B.m = map('a', 1)", "struct(B.m) <=> struct(PREV(B.m))", "B.m IN (B.m)"],
)
def test_a_map_compared_is_refused_at_the_map_by_the_table_function(condition):
    """Spark orders and equates no MAP values (INVALID_ORDERING_TYPE): the table function
    left it to Spark, whose error came after ``analyze``, with no caret."""
    from matchrec.runtime.udtf import build_program

    body = f"ORDER BY id MEASURES count(*) AS n PATTERN (A B+) DEFINE B AS {condition}"
    with pytest.raises(SemanticError) as info:
        build_program(body, _map_input())
    err = info.value
    assert "INVALID_ORDERING_TYPE" in err.message
    assert err.sql[err.pos :].startswith(condition.split(" ")[0])


def _map_and_array_input():
    from pyspark.sql.types import (
        ArrayType,
        IntegerType,
        MapType,
        StringType,
        StructField,
        StructType,
    )

    entries = MapType(StringType(), IntegerType())
    return StructType(
        [
            StructField("id", IntegerType()),
            StructField("m", entries),
            StructField("am", ArrayType(entries)),
        ]
    )


#: calls of a MAP that Spark refuses when it analyses them (its condition), in MEASURES
#: or DEFINE, and the argument the caret is under
MAP_REFUSED = [
    ("MEASURES", "max(B.m)", "B.m", "INVALID_ORDERING_TYPE"),
    ("MEASURES", "min(DISTINCT B.m)", "B.m", "INVALID_ORDERING_TYPE"),
    ("MEASURES", "max_by(B.id, B.m)", "B.m", "INVALID_ORDERING_TYPE"),
    ("MEASURES", "greatest(FIRST(B.m), LAST(B.m))", "FIRST(B.m)", "INVALID_ORDERING_TYPE"),
    ("MEASURES", "sort_array(LAST(B.am))", "B.am", "INVALID_ORDERING_TYPE"),
    ("MEASURES", "array_distinct(collect_list(B.m))", "collect_list(B.m)", "INVALID_ORDERING_TYPE"),
    ("MEASURES", "hash(LAST(B.m))", "B.m", "HASH_MAP_TYPE"),
    ("MEASURES", "xxhash64(B.id, B.m)", "B.m", "HASH_MAP_TYPE"),
    ("MEASURES", "collect_set(B.m)", "B.m", "UNSUPPORTED_INPUT_TYPE"),
    ("DEFINE", "array_contains(am, m)", "am", "INVALID_ORDERING_TYPE"),
    ("DEFINE", "hash(m) > hash(PREV(m))", "m", "HASH_MAP_TYPE"),
]
#: calls of a MAP that Spark takes (no ordering, hashing nor set of maps)
MAP_TAKEN = [
    "max_by(B.m, B.id)",
    "count(DISTINCT B.m)",
    "collect_list(B.m)",
    "first(B.m)",
    "array_sort(LAST(B.am), (x, y) -> size(x) - size(y))",
    "cardinality(LAST(B.m))",
]


def _call_body(clause: str, call: str) -> str:
    """A body over id with ``call`` in DEFINE B, or as measure r."""
    if clause == "DEFINE":
        return f"ORDER BY id MEASURES count(*) AS n PATTERN (A B+) DEFINE B AS {call}"
    return f"ORDER BY id MEASURES {call} AS r PATTERN (A B+) DEFINE B AS true"


@pytest.mark.parametrize(("clause", "call", "operand", "condition"), MAP_REFUSED)
def test_a_map_the_function_refuses_is_refused_by_the_table_function_and_rules(
    clause, call, operand, condition
):
    """Spark orders, hashes and collects as a set no MAP value (nor one holding a map);
    the table function and rules computed ``max(B.m)``, ``collect_set(B.m)`` (answers
    Spark never gives) or left ``hash(m)`` to Spark's own error, after ``analyze`` and
    without a caret. Both refuse it at the argument, with Spark's condition."""
    from matchrec.planner.rules import RuleRow, compile_rule
    from matchrec.runtime.udtf import build_program
    from sqlglot import exp

    body = _call_body(clause, call)
    with pytest.raises(SemanticError) as info:
        build_program(body, _map_and_array_input())
    err = info.value
    assert f"[{condition}]" in err.message and "MAP" in err.message
    assert err.sql[err.pos :].startswith(operand)
    columns = {
        "k": exp.DataType.build("string"),
        "id": exp.DataType.build("int"),
        "m": exp.DataType.build("map<string,int>"),
        "am": exp.DataType.build("array<map<string,int>>"),
    }
    with pytest.raises(SemanticError, match=rf"\[{condition}\]") as info:
        compile_rule(RuleRow("r", 1, f"PARTITION BY k {body}"), columns)
    assert info.value.sql[info.value.pos :].startswith(operand)


@pytest.mark.parametrize("call", MAP_TAKEN)
def test_a_map_the_function_takes_is_taken_by_the_table_function(call):
    from matchrec.runtime.udtf import build_program

    build_program(_call_body("MEASURES", call), _map_and_array_input())


def test_spark_refuses_and_takes_the_calls_of_maps_as_the_table_function(spark):
    """The refusals above are Spark's own: each call, over a row of the same columns, is
    refused by Spark's analysis with the same condition; the calls taken are taken."""
    frame = spark.createDataFrame([(1, {"a": 1}, [{"a": 1}])], _map_and_array_input())
    unlabelled = {"FIRST(B.m)": "m", "LAST(B.m)": "m", "LAST(B.am)": "am", "B.": ""}

    def plain(call: str) -> str:
        for written, column in unlabelled.items():
            call = call.replace(written, column)
        return call.replace("PREV(m)", "m")

    for _, call, _, condition in MAP_REFUSED:
        with pytest.raises(AnalysisException) as info:
            frame.selectExpr(plain(call))
        assert (info.value.getCondition() or "").endswith(condition), call
    for call in MAP_TAKEN:
        assert frame.selectExpr(plain(call)).columns


#: literal arguments that fail their call on every row Spark computes it on (a regular
#: expression's group: on every value it matches), with Spark's condition and the caret
LITERAL_FAILURES = [
    ("DEFINE", "size(slice(B.arr, 0, 2)) > 0", "0, 2", "INVALID_PARAMETER_VALUE.START"),
    ("MEASURES", "slice(LAST(B.arr), 1, -1)", "-1)", "INVALID_PARAMETER_VALUE.LENGTH"),
    ("MEASURES", "element_at(FIRST(A.arr), 0)", "0)", "INVALID_INDEX_OF_ZERO"),
    ("DEFINE", "try_element_at(arr, 0) > 1", "0)", "INVALID_INDEX_OF_ZERO"),
    ("DEFINE", "split_part(B.s, ',', 0) = 'a'", "0)", "INVALID_INDEX_OF_ZERO"),
    ("MEASURES", "regexp_extract(LAST(B.s), '([a-z])', 2)", "2)", "REGEX_GROUP_INDEX"),
    ("MEASURES", "regexp_extract(LAST(B.s), '[0-9]+')", "'[0-9]+'", "REGEX_GROUP_INDEX"),
]
#: the same calls with arguments Spark takes
LITERALS_TAKEN = [
    "element_at(LAST(B.m), 0)",  # a map's key
    "LAST(B.arr)[0]",  # counts from 0
    "slice(LAST(B.arr), -2, 2)",
    "regexp_extract(LAST(B.s), '[0-9]+', 0)",
    "split_part(LAST(B.s), ',', -1)",
]


@pytest.fixture(scope="module")
def literal_events(spark):
    spark.createDataFrame(
        [(1, [1, 2], "a,b7", {0: 1})], "id INT, arr ARRAY<INT>, s STRING, m MAP<INT, INT>"
    ).createOrReplaceTempView("literal_events")
    return spark.table("literal_events")


@pytest.mark.parametrize(("clause", "call", "caret", "condition"), LITERAL_FAILURES)
def test_a_literal_argument_that_fails_every_row_is_refused_when_built(
    spark, literal_events, clause, call, caret, condition
):
    """``slice(arr, 0, 2)``, ``element_at(arr, 0)``, ``split_part(s, ',', 0)`` and a
    regular expression's missing group failed the job on its first row with Spark's
    error, which has no position (Spark gives such errors no query context), through
    ``matchrec.sql``; the table function and rules at run time. Every door refuses them
    when the query is built, at the literal, with Spark's condition; Spark itself fails
    with that condition on a value of the test's row."""
    from matchrec.planner.rules import RuleRow, compile_rule
    from matchrec.runtime.udtf import build_program, to_sqlglot_type

    body = _call_body(clause, call)
    query = f"SELECT * FROM literal_events MATCH_RECOGNIZE ({body})"
    schema = literal_events.schema
    types = {f.name: to_sqlglot_type(f.dataType) for f in schema.fields}
    doors = {
        "matchrec.sql": lambda: matchrec.sql(spark, query),
        "table function": lambda: build_program(body, schema),
        "dynamic rule": lambda: compile_rule(RuleRow("r", 1, body), types),
    }
    for door, build in doors.items():
        with pytest.raises(SemanticError) as info:
            build()
        err = info.value
        assert condition in err.message, door
        assert err.sql[err.pos :].startswith(caret), (door, err.sql[err.pos :])
    plain = call.replace("FIRST(A.arr)", "arr").replace("LAST(B.", "(").replace("B.", "")
    with pytest.raises(PySparkException, match=condition.split(".")[-1]):
        literal_events.selectExpr(f"{plain} AS r").collect()


@pytest.mark.parametrize("call", LITERALS_TAKEN)
def test_a_literal_argument_spark_takes_is_taken(spark, literal_events, call):
    query = f"SELECT * FROM literal_events MATCH_RECOGNIZE ({_call_body('MEASURES', call)})"
    assert matchrec.sql(spark, query).columns == ["r"]


@pytest.mark.parametrize(("call", "meant"), [("prevv", "prev"), ("frist", "first")])
def test_a_misspelled_pattern_function_is_named_by_the_table_function(call, meant):
    """With no session to ask, ``prevv(B.id)`` was left to Spark as a UDF's call: its
    UNRESOLVED_ROUTINE came without a caret, and without the function meant."""
    from matchrec.runtime.udtf import build_program

    body = f"ORDER BY id MEASURES count(*) AS n PATTERN (A B+) DEFINE B AS {call}(B.id) < 1"
    with pytest.raises(SemanticError) as info:
        build_program(body, _map_input())
    err = info.value
    assert err.sql[err.pos :].startswith(f"{call}(B.id)")
    assert f"did you mean {meant}()?" in err.hint


@pytest.mark.parametrize("interval", ["INTERVAL '178000000' YEAR", "make_ym_interval(178000000)"])
def test_a_year_month_constant_added_beyond_sparks_dates_names_the_operator(interval):
    """A date past Spark's DATE range (Python's ends at year 9999, Spark's near year
    5881580) is Spark's ARITHMETIC_OVERFLOW, a positioned error naming the ``+`` the
    user wrote; it named the function at the operand's start (``max()``)."""
    body = f"ORDER BY id\nPATTERN (A B)\nDEFINE B AS B.d < max(A.d) + {interval}"
    with pytest.raises(MatchRuntimeError) as info:
        _run(body, {"id": [1, 2], "d": [date(2024, 1, 31), date(2024, 2, 1)]})
    assert_error(
        info.value,
        body,
        body.index("max(A.d) +"),
        MatchRuntimeError,
        "[ARITHMETIC_OVERFLOW] operator +: 178002024-01-31 is beyond the DATE range",
    )
