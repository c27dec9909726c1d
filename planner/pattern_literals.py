"""Pattern literals of DEFINE and MEASURES (datetime patterns, regular expressions),
checked by Spark when the query is built.

Spark builds the formatter of ``to_date(d, 'DD-MON-YY')``, or compiles the regular
expression of ``regexp_like(s, '(')``, on the first row it computes, so a pattern it
refuses (a week-based letter, an unknown one, too many letters; an unclosed group) fails
the job after the query was accepted, without a position (a regular expression even
with Java's stack trace). The runtime hands :func:`check_pattern_literals` a function
that asks the session about one pattern (``PatternCheck``: Spark's own rules and
settings, such as ``spark.sql.legacy.timeParserPolicy``), and a pattern Spark refuses is
an error at the literal, before any job runs and before DEFINE's glue says what it
computes itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping

from sqlglot import exp

from matchrec import ast
from matchrec.errors import SemanticError

from .function_types import DATETIMES
from .java_regex import JavaPatternError, RegexRefused, translate
from .sqltext import node_pos, parse_expression

#: (function, pattern) -> Spark's reason for refusing the pattern in a call of the
#: function (:data:`REGEX` for any regular expression), or None when Spark takes it
PatternCheck = Callable[[str, str], "str | None"]
#: the function name a check gets for a regular expression (Java's, whatever the call)
REGEX = "regex"

#: sqlglot's node of a datetime call with a pattern -> the function's Spark name
_NODES: dict[type, str] = {
    exp.TimeToStr: "date_format",
    exp.UnixToStr: "from_unixtime",
    exp.StrToTime: "to_timestamp",
    exp.TsOrDsToDate: "to_date",
    exp.StrToUnix: "unix_timestamp",
}
#: Spark's parsing functions sqlglot keeps as calls by name: the pattern is the second argument
_BY_NAME = frozenset(
    {"TO_TIMESTAMP_LTZ", "TO_TIMESTAMP_NTZ", "TRY_TO_TIMESTAMP", "TRY_TO_DATE",
     "TRY_TO_UNIX_TIMESTAMP"}
)  # fmt: skip
#: sqlglot's node of a call with a regular expression -> the arguments that hold one
_REGEX_NODES: dict[type, tuple[str, ...]] = {
    **dict.fromkeys(
        (exp.RegexpLike, exp.RegexpExtract, exp.RegexpExtractAll, exp.RegexpReplace,
         exp.RegexpCount, exp.RegexpInstr, exp.RegexpSubstr, exp.RegexpSplit),
        ("expression",),
    ),
    exp.StrToMap: ("pair_delim", "key_value_delim"),
}  # fmt: skip
#: the pattern character Spark's message names (``detected week-based character: Y``)
_NAMED_CHARACTER = re.compile(r"character(?: found in datetime pattern)?: (\S)")


def literal_patterns(
    tree: exp.Expression, column_type: Callable[[str], str | None] = lambda name: None
) -> Iterator[tuple[str, exp.Literal]]:
    """Each pattern of ``tree`` written as a string literal: (the datetime function's
    name, or :data:`REGEX` for a regular expression; the literal). ``column_type``: an
    input column's Spark type by lower-case name (``to_char`` of a DATE or TIMESTAMP
    column formats it with a datetime pattern; of a number, with a number format that
    Spark checks itself)."""
    for node in tree.walk():
        for arg in _REGEX_NODES.get(type(node), ()):
            fmt = node.args.get(arg)
            if isinstance(fmt, exp.Literal) and fmt.is_string:
                yield REGEX, fmt
        name = _NODES.get(type(node))
        formatted = _to_char(node)
        if formatted is not None and _datetime(formatted[0], column_type):
            yield "to_char", formatted[1]
            continue
        if name is not None:
            fmt = node.args.get("format")
        elif isinstance(node, exp.Anonymous) and str(node.this).upper() in _BY_NAME:
            fmt = node.expressions[1] if len(node.expressions) == 2 else None
            name = str(node.this).lower()
        else:
            continue
        if isinstance(fmt, exp.Literal) and fmt.is_string:
            yield name, fmt


def _to_char(node: exp.Expression) -> tuple[exp.Expression, exp.Literal] | None:
    """(value, pattern literal) of ``to_char``/``to_varchar(value, 'pattern')``."""
    if isinstance(node, exp.ToChar):
        value, fmt = node.this, node.args.get("format")
    elif (
        isinstance(node, exp.Anonymous)
        and str(node.this).upper() in ("TO_CHAR", "TO_VARCHAR")
        and len(node.expressions) == 2
    ):
        value, fmt = node.expressions
    else:
        return None
    return (value, fmt) if isinstance(fmt, exp.Literal) and fmt.is_string else None


#: navigation calls: the value of their first argument, read at another row
_NAVIGATION = frozenset({"PREV", "NEXT", "FIRST", "LAST"})


def _datetime(value: exp.Expression | None, column_type: Callable[[str], str | None]) -> bool:
    """Whether ``value`` is a DATE or TIMESTAMP: a column of that type (navigated or not),
    or a CAST to one."""
    inner = _unnavigated(value)
    if isinstance(inner, exp.Cast):
        return inner.to.this in DATETIMES
    return (column_kind(value, column_type) or "").startswith(("date", "timestamp"))


def column_kind(
    value: exp.Expression | None, column_type: Callable[[str], str | None]
) -> str | None:
    """The head of the Spark type of ``value`` (``array``, ``date``, ``int``...) where it
    is an input column, navigated or not; None where that is not known."""
    value = _unnavigated(value)
    if isinstance(value, exp.Column) and isinstance(value.this, exp.Identifier):
        kind = column_type(value.name.lower())
        return None if kind is None else kind.split("<")[0].split("(")[0].strip().lower()
    return None


def _unnavigated(value: exp.Expression | None) -> exp.Expression | None:
    """``value`` without parentheses and navigation calls around it (``LAST(B.x)``: x)."""
    while isinstance(value, exp.Paren) or (
        isinstance(value, exp.Anonymous)
        and str(value.this).upper() in _NAVIGATION
        and value.expressions
    ):
        value = value.this if isinstance(value, exp.Paren) else value.expressions[0]
    return value


def regex_check(function: str, pattern: str) -> str | None:
    """A :data:`PatternCheck` without a session (the table function's ``analyze``): a
    regular expression ``java.util.regex`` rejects, found by matchrec's reader of Java's
    syntax (``planner.java_regex``); datetime patterns and the regular expressions it
    cannot read are left to Spark."""
    if function != REGEX:
        return None
    try:
        translate(pattern)
    except JavaPatternError as err:
        return f"{err.description} near index {err.offset}"
    except RegexRefused:
        return None
    return None


def check_pattern_literals(
    clause: ast.MatchRecognizeClause,
    check: PatternCheck,
    column_types: Mapping[str, str] | None = None,
) -> None:
    """Raise :class:`SemanticError` at the first pattern literal (a datetime pattern, a
    regular expression) of DEFINE or MEASURES that ``check`` (the session) refuses, with
    Spark's reason. A default sqlglot writes in (``from_unixtime(n)``'s pattern) is not
    the user's and is not asked about. ``column_types``: the input columns' Spark types
    (``simpleString``), where known."""
    types = {k.lower(): v for k, v in (column_types or {}).items()}
    sql = clause.sql
    exprs = [d.expr for d in clause.defines] + [m.expr for m in clause.measures]
    for expr in exprs:
        if "'" not in expr.text and '"' not in expr.text:
            continue  # no string literal, so no pattern
        for name, literal in literal_patterns(parse_expression(expr, sql), types.get):
            pos = node_pos(literal, expr.pos, sql)
            if sql[pos : pos + 1] not in ("'", '"'):
                continue  # not written here: a default
            reason = check(name, literal.this)
            if reason is None:
                continue
            if name == REGEX:
                raise SemanticError(
                    f"Spark cannot use the regular expression {literal.this!r}: {reason}",
                    sql=sql,
                    pos=pos,
                    hint="Spark reads it as Java's java.util.regex.Pattern does; a "
                    "character that is not meant as regex syntax takes a backslash",
                )
            raise SemanticError(
                f"{name}(): Spark cannot use the datetime pattern {literal.this!r}: {reason}",
                sql=sql,
                pos=_at_character(literal, reason, pos, sql),
                hint="write the pattern with the letters of Spark's datetime patterns "
                "(https://spark.apache.org/docs/latest/sql-ref-datetime-pattern.html), "
                "e.g. dd-MMM-yy for 05-Apr-11",
            )


def _at_character(literal: exp.Literal, reason: str, pos: int, sql: str) -> int:
    """Where the character Spark names in ``reason`` is in the literal written at ``pos``
    (its quote), if it is written there unquoted; else the literal's own position."""
    named = _NAMED_CHARACTER.search(reason)
    written = sql[pos + 1 : pos + 1 + len(literal.this)]
    if named is None or written != literal.this:
        return pos
    quoted = False
    for i, c in enumerate(written):
        if c == "'":
            quoted = not quoted
        elif c == named.group(1) and not quoted:
            return pos + 1 + i
    return pos
