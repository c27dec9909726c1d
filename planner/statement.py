"""The planner's door for SQL text: the clauses of a statement, read by the grammar.

Data flows one way in matchrec: SQL text, the grammar (``matchrec.grammar``), the AST,
the planner, the core, the runtime. The runtime receives SQL from its users (a query, a
clause body, a rule's spec) but never reads it itself: it asks this module, which hands
back ASTs and the places of the clauses in the text, every position an offset into the
text the user wrote (so errors point there).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import sqlglot
from matchrec.grammar import parse_clause
from matchrec.grammar.nesting import (
    refuse_nested_recognition,
    refuse_row_pattern_clauses_without_pattern,
)
from matchrec.grammar.parameters import (
    bind_parameters,
    markers_and_braces,
)
from matchrec.grammar.parser import parse_dynamic
from matchrec.grammar.query_scan import (
    Occurrence,
    TempView,
    cte_scope,
    find_match_recognize,
    in_lateral,
    outer_order_by,
    string_value,
    table_function_calls,
    temp_view_definition,
    tokenize,
    visible_ctes,
)
from matchrec.grammar.window_scan import find_pattern_windows
from sqlglot import exp

from matchrec.ast import DynamicClause, MatchRecognizeClause
from matchrec.errors import SemanticError, SqlSyntaxError
from matchrec.text_edits import EditedText

from .window_query import read_windows

__all__ = [
    "Occurrence",
    "is_constant_literal",
    "TempView",
    "bound_parameters",
    "clause_bodies",
    "read_body",
    "read_statement",
    "check_syntax",
    "statement_starts",
    "read_temp_view",
    "visible_ctes",
    "cte_scope",
    "in_lateral",
    "TableFunctionClause",
    "table_function_clauses",
]


@dataclass(frozen=True)
class TableFunctionClause:
    """A call of the SQL table function in a query, read as Spark hands it over."""

    start: int  # offset of the function's name in the query
    name: str  # as written
    table: str  # its input as a relation: a name, or a query in parentheses
    body: str  # the clause body, the string literal's value


def table_function_clauses(
    query: str, names: Collection[str], escaped: bool = False
) -> list[TableFunctionClause]:
    """The calls in ``query`` of the table function registered under one of ``names``
    (lower case), each body read as Spark reads the literal (``escaped``: Spark's
    ``spark.sql.parser.escapedStringLiterals``); calls written otherwise are left out."""
    return [
        TableFunctionClause(
            call.start,
            query[call.start : query.index("(", call.start)].strip(),
            call.table,
            string_value(call.body, escaped),
        )
        for call in table_function_calls(query, names)
    ]


def read_body(body: str) -> MatchRecognizeClause:
    """The clause whose body (the text inside ``MATCH_RECOGNIZE ( ... )``) is ``body``;
    raises :class:`~matchrec.errors.SqlSyntaxError` with a caret into ``body``. A body is
    a string of its own (the table function's, the DataFrame door's): nothing binds a
    parameter marker or formats a ``{name}`` in it, so either is refused at its place."""
    clause = parse_clause(body)
    _refuse_unfilled(body)
    return clause


def _refuse_unfilled(body: str) -> None:
    """A parameter marker (``:gap``, ``?``) or a ``{name}`` placeholder in a clause body
    that is a string: Spark would fail on the planner's text of it (UNBOUND_SQL_PARAMETER
    with its plan, a syntax error at ``{``), showing no place in the body."""
    markers, braces = markers_and_braces(body)
    if markers:
        first = markers[0]
        shown = body[first.start : first.end]
        raise SemanticError(
            f"[UNBOUND_SQL_PARAMETER] the parameter marker {shown} is inside the clause's text, "
            "where nothing binds it (Spark binds the markers of the query around it)",
            sql=body,
            pos=first.start,
            hint="write the value into the text, or run the query with matchrec.sql(spark, "
            "query, args=...), which binds markers in DEFINE and MEASURES",
        )
    if braces:
        brace = braces[0]
        after = tokenize(body[brace.end :])
        named = bool(after) and after[0].kind == "word"
        raise SqlSyntaxError(
            "a '{' outside PATTERN: "
            + (f"an unformatted {{{after[0].text}}} placeholder" if named else "no Spark SQL"),
            sql=body,
            pos=brace.start,
            hint="write the value into the text (str.format before the call), or pass it "
            "to matchrec.sql(spark, query, name=value), which formats {name}",
        )


def read_statement(
    query: str,
) -> list[tuple[Occurrence, MatchRecognizeClause | DynamicClause]]:
    """Every ``MATCH_RECOGNIZE`` and ``MATCH_RECOGNIZE_DYNAMIC`` of ``query``, innermost
    first as :func:`~matchrec.grammar.query_scan.find_match_recognize` orders them, each
    with its parsed clause. All are parsed before the caller plans any, so a syntax error
    anywhere in the query is reported first."""
    refuse_nested_recognition(query)
    return [
        (
            o,
            (parse_dynamic if o.dynamic else parse_clause)(
                query[o.body_start : o.body_end], base=o.body_start, sql=query
            ),
        )
        for o in find_match_recognize(query)
    ]


def check_syntax(query: str) -> None:
    """Raise the first syntax error of ``query``'s MATCH_RECOGNIZE clauses and windows
    with a row pattern, as :func:`matchrec.sql` would, without a Spark session: a command
    line tool tells a mistyped clause before it pays for starting Spark."""
    if clause_bodies(query):
        visible_ctes(query)  # a malformed WITH list: its inputs would be read without it
    read_statement(query)
    read_windows(query)


def statement_starts(text: str) -> list[int]:
    """Where each statement of ``text`` (statements separated by ``;`` outside strings,
    names, comments and parentheses) starts, none for comments alone; a text that does not
    tokenize counts as one statement. (A ``;`` inside parentheses is the statement's
    mistake, which the planner reports where it stands.)"""
    try:
        tokens = tokenize(text)
    except SqlSyntaxError:
        return [0]
    starts, after_semicolon, depth = [], True, 0
    for token in tokens:
        if token.kind == "punct" and token.text in "()":
            depth += 1 if token.text == "(" else -1
        if token.kind == "punct" and token.text == ";" and depth <= 0:
            after_semicolon = True
        elif after_semicolon:
            starts.append(token.start)
            after_semicolon = False
    return starts


def refuse_empty_query(query: str) -> None:
    """An empty query, or one of comments alone, is an error saying so (Spark's is
    "unexpected empty statement" or "syntax error at end of input")."""
    if not statement_starts(query):
        what = "only comments" if _has_comment(query) else "no statement"
        raise SqlSyntaxError(
            "the query is empty" if not query.strip() else f"the query holds {what}",
            sql=query,
            pos=len(query.rstrip()),
            hint="write a query, e.g. SELECT * FROM t MATCH_RECOGNIZE (...)",
        )


def _has_comment(query: str) -> bool:
    """Whether ``query`` (of no statement) holds a comment, not only ``;``."""
    return "--" in query or "/*" in query


def read_temp_view(query: str) -> TempView | None:
    """The temporary view ``query`` defines (``CREATE [OR REPLACE] [GLOBAL] TEMP VIEW v AS
    ...``), None for any other statement: the runtime registers such a view itself when
    its query holds a MATCH_RECOGNIZE."""
    return temp_view_definition(query)


def statement_order_by(query: str) -> int | None:
    """Where the statement's own ORDER BY (or SORT BY) is, outside every parenthesis."""
    return outer_order_by(query)


def clause_bodies(query: str) -> list[tuple[int, int]]:
    """The span of the body (the text inside the parentheses) of every
    ``MATCH_RECOGNIZE`` (or ``MATCH_RECOGNIZE_DYNAMIC``) clause of ``query`` and of every
    window specification with a row pattern, none when
    it holds no clause; raises :class:`~matchrec.errors.SqlSyntaxError` as
    :func:`read_statement` does when one is malformed around its parentheses."""
    refuse_nested_recognition(query)
    refuse_row_pattern_clauses_without_pattern(query)
    bodies = [(o.body_start, o.body_end) for o in find_match_recognize(query)]
    # row pattern recognition in windows: each window specification with a pattern
    bodies += [(s.body_start, s.body_end) for w in find_pattern_windows(query) for s in w.specs]
    return bodies


def bound_parameters(query: str, values: Mapping[str, str] | Sequence[str] | None) -> EditedText:
    """``query`` with its parameter markers (``:name``, ``?``) replaced by the SQL text of
    their values (see :mod:`matchrec.grammar.parameters`), offsets mapped back."""
    return bind_parameters(query, values)


#: nodes that make a parameter's text more than a constant
_NOT_CONSTANT = (exp.Column, exp.Star, exp.Subquery, exp.Select, exp.Placeholder, exp.Parameter)


def is_constant_literal(text: str) -> bool:
    """Whether ``text`` is one constant Spark SQL expression (``5``, ``'ACME'``,
    ``DATE'2024-01-01'``, ``INTERVAL 5 MINUTES``, ``array(1, 2)``), which a command line
    parameter must be: a bare word would read as a column."""
    from .sqltext import MatchRecognizeDialect

    try:
        tree = sqlglot.parse_one(text, read=MatchRecognizeDialect)
    except sqlglot.errors.SqlglotError:
        return False
    return not any(isinstance(n, _NOT_CONSTANT) for n in tree.walk())
