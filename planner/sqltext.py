"""Parse one MEASURES/DEFINE expression into a sqlglot tree.

MATCH_RECOGNIZE expressions are Spark SQL plus a few things Spark's grammar does not
know: ``RUNNING``/``FINAL`` before a navigation or aggregate call, ``FIRST``/``LAST``
with a logical offset, and double-quoted names that are identifiers (labels), not
strings (a double-quoted span that names nothing stays Spark's string literal). A
same-length rewrite of the text handles all three, so every offset sqlglot reports still
points into the user's SQL:

* ``FINAL  LAST(`` becomes ``FINAL··LAST(`` (``SEMANTICS_MARK``, a character no unquoted
  Spark name has, so a function the user named ``final_price`` keeps its name): one
  anonymous function whose name carries the semantics;
* ``"b"`` before ``.`` or ``(``, after ``.`` or in ``CLASSIFIER(`` becomes ```b```;
* ``FIRST``/``LAST`` parse as plain calls (sqlglot would otherwise drop their offset);
* ``X '0A'``, Spark's binary literal with spaces before its string, becomes ``X'0A'``
  followed by those spaces (sqlglot reads only the written-together form).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar, copy_context
from datetime import timezone
from decimal import Decimal
from functools import partial

import sqlglot
from matchrec.grammar.scanner import comment_end
from sqlglot import exp
from sqlglot.dialects.spark import Spark
from sqlglot.errors import ErrorLevel
from sqlglot.tokens import Token, TokenType

from matchrec.ast import SqlExpr
from matchrec.balanced import balanced
from matchrec.errors import SEMANTICS_MARK, SemanticError, SqlSyntaxError, UnsupportedError
from matchrec.navigation import AGGREGATES

from .datetime_functions import DATE_TRUNC_UNITS, TRUNC_UNITS
from .function_arity import arity_error
from .java_format import NotComputed, missing_argument, pattern_error
from .lambda_names import unshadowed_parameters
from .map_lookups import map_lookups_as_case
from .nesting_depth import refuse_deep_nesting
from .spark_function_names import SPARK_FUNCTIONS
from .timestamp_text import (
    TimestampNotComputed,
    TimestampTextError,
    date_of_text,
    timestamp_of_text,
)
from .typed_calls import TYPED_CALLS, typed_args, typed_name


class UnsupportedSqlError(UnsupportedError):
    """An expression that sqlglot cannot write back as Spark SQL; ``sql`` and ``pos``
    place it in the user's query (:func:`parse_expression` checks every expression)."""

    def __init__(self, message: str, *, sql: str | None = None, pos: int | None = None) -> None:
        self.reason = message
        super().__init__(
            f"cannot write this expression as Spark SQL ({message})",
            sql=sql,
            pos=pos,
            hint="rewrite the expression with other Spark SQL functions",
        )


def _written_back(name: str, build: Callable[..., exp.Expression]) -> Callable[..., exp.Expression]:
    """sqlglot's builder of function ``name``, but a call whose node sqlglot cannot write
    back as Spark SQL with all its arguments (``to_char(n, '999')`` lost its format;
    ``levenshtein(a, b, 3)``, whose third argument is Spark's threshold, not sqlglot's
    insertion cost) stays a plain call: Spark then reads it as the user wrote it, and
    the planner's functions know it by name or report it."""

    def make(args: list[exp.Expression], dialect=None) -> exp.Expression:
        # a builder that needs the dialect fails without it; sqlglot then calls again
        aggregate = name in _AGGREGATE_NAMES
        written = [a.sql(dialect=MatchRecognizeDialect) for a in args] if aggregate else []
        try:
            node = build(args) if dialect is None else build(args, dialect=dialect)
        except (IndexError, KeyError, ValueError):
            # arguments the builder cannot read (map(1, 2, 3) has a key without a
            # value): kept as written, for the planner to count (planner.function_arity)
            return exp.Anonymous(this=name, expressions=args)
        try:
            text = node.sql(dialect=MatchRecognizeDialect)
        except UnsupportedSqlError:
            return exp.Anonymous(this=name, expressions=args)
        if aggregate and not all(w in text for w in written):
            # an aggregate's argument Spark does not take, which sqlglot dropped or read as
            # another dialect's (collect_list(x, 1), count_if(c, 2)): kept for the planner
            # to count
            return exp.Anonymous(this=name, expressions=args)
        return node

    return make


#: Spark's aggregates whose extra arguments sqlglot's builders drop or reinterpret
_AGGREGATE_NAMES = frozenset(
    "ARRAY_AGG COLLECT_LIST COLLECT_SET COUNT_IF PERCENTILE_APPROX APPROX_PERCENTILE LISTAGG "
    "STRING_AGG GROUP_CONCAT CORR COVAR_POP COVAR_SAMP STDDEV STDDEV_POP STDDEV_SAMP VARIANCE "
    "VAR_POP VAR_SAMP MEDIAN MODE BOOL_AND BOOL_OR EVERY SOME ANY SUM AVG MEAN MIN MAX MAX_BY "
    "MIN_BY SKEWNESS KURTOSIS APPROX_COUNT_DISTINCT".split()
)


def _literal_unit(
    name: str, unit: int, build: Callable[..., exp.Expression], units: Iterable[str]
) -> Callable[..., exp.Expression]:
    """``build`` (a :func:`_written_back` builder) of a function whose argument ``unit``
    sqlglot takes for a keyword: a call whose unit is not a string literal of one of
    Spark's ``units`` stays a plain call, as written (sqlglot reads 'H' as HOUR and 'Q'
    as QUARTER, which Spark's date_trunc and trunc do not: NULL)."""
    known = frozenset(units)

    def make(args: list[exp.Expression], dialect=None) -> exp.Expression:
        given = args[unit] if len(args) > unit else None
        literal = isinstance(given, exp.Literal) and given.is_string
        if given is not None and not (literal and given.this.upper() in known):
            return exp.Anonymous(this=name, expressions=args)
        return build(args, dialect=dialect)

    return make


class WrittenCTE(exp.Expression):
    """A CTE of the statement (``name AS (...)``), written back as the user wrote it."""

    arg_types = {"this": True, "name": True}


#: Spark's function-style casts (``bigint(x)`` is ``CAST(x AS BIGINT)``) that sqlglot's
#: Spark dialect reads as unknown calls (it reads ``int(x)``, ``double(x)``, ... as casts)
_FUNCTION_CASTS = ("BIGINT", "SMALLINT", "TINYINT", "DECIMAL", "BINARY")


def _function_cast(name: str) -> Callable[[list[exp.Expression]], exp.Expression]:
    def build(args: list[exp.Expression]) -> exp.Expression:
        if len(args) != 1:  # Spark's error, as the call it was
            return exp.Anonymous(this=name.lower(), expressions=args)
        return exp.Cast(this=args[0], to=exp.DataType.build(name, dialect="spark"))

    return build


def _distinct_first(cls: type[exp.Func]) -> Callable[[sqlglot.parser.Parser], exp.Expression]:
    """The parser of an aggregate of two arguments that may begin with DISTINCT."""
    return lambda self: self._parse_distinct_arg_function(cls)


def _one_argument(
    name: str, build: Callable[[exp.Expression], exp.Expression]
) -> Callable[[list[exp.Expression]], exp.Expression]:
    """A call of one argument read as the expression Spark replaces it with (its
    ``RuntimeReplaceable``), in parentheses so that it binds as the call did; another
    count of arguments is kept as the call, for sqlglot's builder or Spark's error."""
    fallback = Spark.Parser.FUNCTIONS.get(name)

    def make(args: list[exp.Expression]) -> exp.Expression:
        if len(args) == 1:
            return exp.Paren(this=build(args[0]))
        if fallback is not None:
            return fallback(args)
        return exp.Anonymous(this=name, expressions=args)

    return make


def _cast_to(type_name: str) -> Callable[[exp.Expression], exp.Expression]:
    return lambda x: exp.Cast(this=x, to=exp.DataType.build(type_name, dialect="spark"))


def _try_cast_to(type_name: str, x: exp.Expression) -> exp.Expression:
    return exp.TryCast(this=x, to=exp.DataType.build(type_name, dialect="spark"), safe=True)


#: Spark functions of one argument that Spark itself rewrites as another expression,
#: read as that expression so every evaluator has them: ``isnull(x)`` is ``x IS NULL``,
#: ``zeroifnull(x)`` is ``nvl(x, 0)``, ``to_timestamp_ntz(x)`` a CAST
_REPLACED_CALLS: dict[str, Callable[[exp.Expression], exp.Expression]] = {
    "ISNULL": lambda x: exp.Is(this=x, expression=exp.Null()),
    "ISNOTNULL": lambda x: exp.Not(this=exp.Is(this=x, expression=exp.Null())),
    "NEGATIVE": lambda x: exp.Neg(this=exp.Paren(this=x)),
    "ZEROIFNULL": lambda x: exp.Coalesce(this=x, expressions=[exp.Literal.number(0)]),
    "TO_TIMESTAMP_NTZ": _cast_to("TIMESTAMP_NTZ"),
    "TO_TIMESTAMP_LTZ": _cast_to("TIMESTAMP"),
    # without a pattern, Spark's cast that never fails (its non-ANSI cast: NULL)
    "TRY_TO_TIMESTAMP": lambda x: _try_cast_to("TIMESTAMP", x),
    "TRY_TO_DATE": lambda x: _try_cast_to("DATE", x),
}


#: tokens that already name something (a word before a dot that is none is a keyword)
_NAMING_TOKENS = frozenset({TokenType.VAR, TokenType.IDENTIFIER})
_WORD = re.compile(r"[A-Za-z_]\w*")


class MatchRecognizeDialect(Spark):
    """Spark SQL where FIRST/LAST are kept as calls with all their arguments, and a
    doubled quote inside a string literal is a quote (``'yyyy-MM-dd''T''HH'``), as Spark
    reads it."""

    # datetime patterns stay Spark's letters as written: sqlglot's round trip through
    # strftime wrote 'y' as 'yyyy' (year 999 formatted '0999'; '24-3-1' no longer parsed)
    TIME_MAPPING: dict[str, str] = {}

    class Tokenizer(Spark.Tokenizer):
        STRING_ESCAPES = [*Spark.Tokenizer.STRING_ESCAPES, "'"]
        # the dialect reads expressions: no word starts a command whose text it skips
        COMMANDS: set[TokenType] = set()

        def tokenize(self, sql: str) -> list[Token]:
            """A keyword before a dot names something (``DROP.price``, a pattern
            variable named DROP, as Spark reads ``t.price`` of a table named DROP):
            sqlglot read such a statement keyword as the start of a command."""
            tokens = super().tokenize(sql)
            for word, after in zip(tokens, tokens[1:]):
                if (
                    after.token_type == TokenType.DOT
                    and word.token_type not in _NAMING_TOKENS
                    and _WORD.fullmatch(word.text)
                    and word.end + 1 == after.start
                ):
                    word.token_type = TokenType.VAR
            return tokens

    class Parser(Spark.Parser):
        # FIRST/LAST: navigation; LOG10/LOG2 stay Spark's own functions (sqlglot would
        # write LOG(10, x), which Spark computes as ln(x) / ln(10), another double);
        # ARRAY_SIZE too (sqlglot writes SIZE, which is -1 of a NULL when ANSI is off)
        # every call sqlglot could not write back whole stays a plain call (see
        # _written_back)
        FUNCTIONS = {
            name: _written_back(name, build)
            for name, build in {
                **{
                    k: v
                    for k, v in Spark.Parser.FUNCTIONS.items()
                    if k not in ("FIRST", "LAST", "LOG10", "LOG2", "ARRAY_SIZE")
                },
                # Spark's casts written as functions that sqlglot reads as calls
                **{name: _function_cast(name) for name in _FUNCTION_CASTS},
                **{name: _one_argument(name, build) for name, build in _REPLACED_CALLS.items()},
                "FIRST_VALUE": lambda args: _with_ignore_nulls(exp.FirstValue, args),
                "LAST_VALUE": lambda args: _with_ignore_nulls(exp.LastValue, args),
                "ANY_VALUE": lambda args: _with_ignore_nulls(exp.AnyValue, args),
                # the path stays the text written: sqlglot's parsed JSON path wrote
                # 'abc' as '$.abc' (Spark: no path, NULL) and '$.*' as '$'
                # (of another number of arguments: a plain call, which Spark refuses)
                "GET_JSON_OBJECT": lambda args: (
                    exp.JSONExtractScalar(this=args[0], expression=args[1])
                    if len(args) == 2
                    else exp.Anonymous(this="GET_JSON_OBJECT", expressions=args)
                ),
                # named_struct('a') or named_struct(): sqlglot's reader drops the odd name
                # (a STRUCT with no field); as written, Spark refuses it (WRONG_NUM_ARGS)
                "NAMED_STRUCT": lambda args: (
                    Spark.Parser.FUNCTIONS["NAMED_STRUCT"](args)
                    if args and len(args) % 2 == 0
                    else exp.Anonymous(this="NAMED_STRUCT", expressions=args)
                ),
            }.items()
        }
        # date_trunc(unit, ts) and trunc(d, unit): sqlglot reads a unit that is not a
        # literal as a keyword (date_trunc(grain, ts) became DATE_TRUNC('GRAIN', ts))
        for _name, _unit, _units in (
            ("DATE_TRUNC", 0, DATE_TRUNC_UNITS),
            ("TRUNC", 1, TRUNC_UNITS),
        ):
            FUNCTIONS[_name] = _literal_unit(_name, _unit, FUNCTIONS[_name], _units)
        FUNCTION_PARSERS = {
            **Spark.Parser.FUNCTION_PARSERS,
            "PERCENTILE": lambda self: self._parse_distinct_arg_function(_Percentile),  # type: ignore[arg-type]
            "MAX_BY": lambda self: _top_k(self._parse_distinct_arg_function(exp.ArgMax)),
            "MIN_BY": lambda self: _top_k(self._parse_distinct_arg_function(exp.ArgMin)),
            # DISTINCT before two arguments: sqlglot's reader took both into it, then
            # missed the second ("COVAR_SAMP() is missing an argument")
            **{
                name: _distinct_first(cls)
                for name, cls in (
                    ("CORR", exp.Corr),
                    ("COVAR_SAMP", exp.CovarSamp),
                    ("COVAR_POP", exp.CovarPop),
                    ("REGR_AVGX", exp.RegrAvgx),
                    ("REGR_AVGY", exp.RegrAvgy),
                    ("REGR_SXX", exp.RegrSxx),
                    ("REGR_SXY", exp.RegrSxy),
                    ("REGR_SYY", exp.RegrSyy),
                )
            },
        }
        # ``v:a.b[0]``: Spark's path into a VARIANT (written back as read, see Generator)
        COLON_IS_VARIANT_EXTRACT = True
        # ``||`` binds as ``+`` and ``-`` do in Spark (sqlglot: with the bitwise operators)
        TERM = {
            **Spark.Parser.TERM,
            TokenType.DPIPE: lambda this, expression: exp.DPipe(
                this=this, expression=expression, safe=not Spark.STRICT_STRING_CONCAT
            ),
        }

        def _parse_interval(
            self, require_interval: bool = True, parse_function_unit: bool = True
        ) -> exp.Expression | None:
            """A literal of several units (``INTERVAL 1 DAY 2 HOURS``) is one value, as in
            Spark: sqlglot's sum of one interval per unit, in parentheses (``* v`` after it
            multiplied its last part only)."""
            interval = super()._parse_interval(require_interval, parse_function_unit)
            if require_interval and isinstance(interval, exp.Add):
                return exp.Paren(this=interval)
            return interval

        def _parse_between(self, this: exp.Expression | None) -> exp.Between:
            """``x BETWEEN a AND b``, the AND required as Spark's parser requires it
            (sqlglot read ``x BETWEEN 1 5`` as ``BETWEEN 1 AND 5``)."""
            if isinstance(this, (exp.Is, exp.NullSafeEQ, exp.NullSafeNEQ)):
                this = exp.Paren(this=this)  # as sqlglot keeps the grouping when it writes
            low = self._parse_bitwise()
            if not self._match(TokenType.AND, advance=False) and low is not None:
                at_end = self._curr.token_type == TokenType.SENTINEL
                end = " (at the end)" if at_end else ""
                self.raise_error(f"Expecting AND between the bounds of BETWEEN{end}")
            self._match(TokenType.AND)
            high = self._parse_bitwise()
            return self.expression(exp.Between(this=this, low=low, high=high))

        def _parse_bitwise(self) -> exp.Expression | None:
            """Spark's operators between ``+``/``-`` and the comparisons, each level
            binding tighter than the one before it (sqlglot reads them all as one level,
            so ``1 | 4 >> 1`` was ``(1 | 4) >> 1``), and ``>>>``, Spark's unsigned shift
            right, which sqlglot does not know."""
            return self._parse_spark_level(0)

        def _parse_spark_level(self, level: int) -> exp.Expression | None:
            if level == len(_SPARK_LEVELS):
                return self._parse_term()
            this = self._parse_spark_level(level + 1)
            while True:
                found = _operator(self, _SPARK_LEVELS[level])
                if found is None:
                    return this
                cls, build = found
                operand = self._parse_spark_level(level + 1)
                # sqlglot's check of the operands, then the node Spark reads
                this = build(self.expression(cls(this=this, expression=operand)))

    class Generator(Spark.Generator):
        # WITHIN GROUP stays as written: Spark 4 has percentile_cont/percentile_disc, which
        # sqlglot's Spark dialect would write as percentile_approx
        TRANSFORMS = {
            **{k: v for k, v in Spark.Generator.TRANSFORMS.items() if k is not exp.WithinGroup},
            # Spark 4 functions sqlglot's Spark SQL loses: parse_json(s) was written as s
            # alone; current_catalog and localtimestamp need their parentheses
            exp.ParseJSON: lambda self, e: self.func(
                "TRY_PARSE_JSON" if e.args.get("safe") else "PARSE_JSON", e.this
            ),
            exp.CurrentCatalog: lambda self, e: "CURRENT_CATALOG()",
            WrittenCTE: lambda self, e: e.this,
            exp.JSONExtract: lambda self, e: _json_extract(self, e),
            exp.Localtimestamp: lambda self, e: "LOCALTIMESTAMP()",
            # to_date(s, 'yyyy-MM-dd') parses strictly; sqlglot wrote it as to_date(s), a
            # CAST that also takes '2024-01-05 10:00'
            exp.TsOrDsToDate: lambda self, e: _to_date(self, e),
            exp.StrToDate: lambda self, e: _to_date(self, e),
            # collate(s, 'UTF8_LCASE') was written as s COLLATE 'UTF8_LCASE', which Spark
            # cannot parse: its COLLATE clause takes a name
            exp.Collate: lambda self, e: _collate(self, e),
            # unix_date(d) was written as DATEDIFF(DAY, DATE'1970-01-01', d), Spark's
            # timestampdiff: a BIGINT where Spark's unix_date is an INT
            exp.UnixDate: lambda self, e: self.func("UNIX_DATE", e.this),
            # to_json(parse_json(s)) was written as parse_json(s): a VARIANT, not its text
            exp.JSONFormat: lambda self, e: self.func("TO_JSON", e.this, e.args.get("options")),
        }

        def binary(self, expression: exp.Binary, op: str) -> str:
            """A predicate operand of an operator in parentheses: sqlglot writes
            ``like(s, 'a') = true`` as ``s LIKE 'a' = TRUE``, which Spark reads as
            ``s LIKE ('a' = TRUE)`` (a predicate's right side is a value expression)."""
            sides = [expression.args.get(k) for k in ("this", "expression")]
            if isinstance(expression, (exp.And, exp.Or, exp.Escape)) or not any(
                isinstance(side, _PREDICATES) for side in sides
            ):
                return super().binary(expression, op)
            left, right = (
                f"({self.sql(side)})" if isinstance(side, _PREDICATES) else self.sql(side)
                for side in sides
            )
            return f"{left} {op} {right}"

        def unsupported(self, message: str) -> None:
            """SQL this dialect cannot write is an error, never SQL with a part dropped
            (sqlglot only logs it: ``max_by(x, y, 2)`` would lose its ``2``), unless the
            caller asks for ``unsupported_level=ErrorLevel.IGNORE`` (a type probe, which
            Spark checks)."""
            if self.unsupported_level != ErrorLevel.IGNORE:
                raise UnsupportedSqlError(message)


#: nodes Spark's grammar reads as a predicate after a value expression (``x LIKE p``)
_PREDICATES = (
    exp.Like,
    exp.ILike,
    exp.RegexpLike,
    exp.SimilarTo,
    exp.Between,
    exp.In,
    exp.Is,
    exp.Escape,
)


def _to_date(self: Spark.Generator, node: exp.TsOrDsToDate | exp.StrToDate) -> str:
    """``to_date`` with its pattern whenever one was given."""
    fmt = node.args.get("format")
    if fmt is None:
        return Spark.Generator.TRANSFORMS[type(node)](self, node)
    return self.func("TO_DATE", node.this, fmt)


def _collate(self: Spark.Generator, node: exp.Collate) -> str:
    """``collate(s, 'name')`` as the function it was written as; ``s COLLATE name`` as
    the clause."""
    if isinstance(node.expression, exp.Literal) and node.expression.is_string:
        return self.func("COLLATE", node.this, node.expression)
    return self.collate_sql(node)


def _json_extract(self: Spark.Generator, node: exp.JSONExtract) -> str:
    """Spark SQL of a JSON extraction: ``v:a.b`` as Spark's VARIANT path when it was
    read so, else as the Spark dialect writes it (``get_json_object``)."""
    if node.args.get("variant_extract"):
        return f"{self.sql(node, 'this')}:{_variant_path(node.expression)}"
    return self.func("GET_JSON_OBJECT", node.this, node.expression)


def _variant_path(path: exp.Expression) -> str:
    """A JSON path as Spark writes it after ``:`` (``a.b[0]['c d']``)."""
    text = ""
    for part in path.expressions:
        if isinstance(part, exp.JSONPathKey) and not part.args.get("quoted"):
            text += ("." if text else "") + str(part.this)
        elif isinstance(part, exp.JSONPathKey):
            text += "['" + str(part.this).replace("\\", "\\\\").replace("'", "\\'") + "']"
        elif isinstance(part, exp.JSONPathSubscript):
            inner = part.this
            text += "[*]" if isinstance(inner, exp.JSONPathWildcard) else f"[{inner}]"
    return text


def _as_is(node: exp.Expression) -> exp.Expression:
    return node


def _call(name: str) -> Callable[[exp.Expression], exp.Expression]:
    """A binary operator Spark reads as this function (``a >>> b`` is
    ``shiftrightunsigned(a, b)``), written back as the call."""
    return lambda node: exp.Anonymous(this=name, expressions=[node.this, node.expression])


#: Spark's binary operators above the comparisons and below ``+``/``-``, loosest first
#: (``valueExpression`` in Spark's SqlBaseParser.g4): each level's operator tokens (the
#: longest first), the node sqlglot checks its operands with, and what that node becomes
_SPARK_LEVELS: list[list[tuple[tuple[TokenType, ...], type[exp.Binary], Callable]]] = [
    [((TokenType.PIPE,), exp.BitwiseOr, _as_is)],
    [((TokenType.CARET,), exp.BitwiseXor, _as_is)],
    [((TokenType.AMP,), exp.BitwiseAnd, _as_is)],
    [
        (
            (TokenType.GT, TokenType.GT, TokenType.GT),
            exp.BitwiseRightShift,
            _call("shiftrightunsigned"),
        ),
        ((TokenType.GT, TokenType.GT), exp.BitwiseRightShift, _as_is),
        ((TokenType.LT, TokenType.LT), exp.BitwiseLeftShift, _as_is),
    ],
]


def _operator(parser, level: list) -> tuple[type[exp.Binary], Callable] | None:
    """The node class and builder of the operator at ``parser``'s current token among
    ``level``'s (its tokens consumed), None when none is there. A shift's characters
    are adjacent."""
    tokens = parser._tokens
    at = parser._index
    for kinds, cls, build in level:
        found = tokens[at : at + len(kinds)]
        if len(found) == len(kinds) and all(
            t.token_type == k and (i == 0 or found[i - 1].end + 1 == t.start)
            for i, (t, k) in enumerate(zip(found, kinds))
        ):
            parser._advance(len(kinds))
            return cls, build
    return None


class _Percentile:
    """``percentile(x, p[, frequency])``: sqlglot's node has no place for the frequency
    and dropped it; a call of three arguments stays a plain call."""

    @staticmethod
    def from_arg_list(args: list[exp.Expression]) -> exp.Expression:
        if len(args) == 3:
            return exp.Anonymous(this="PERCENTILE", expressions=args)
        return exp.Quantile.from_arg_list(args)


def _top_k(node: exp.Expression) -> exp.Expression:
    """``max_by(x, y, k)``/``min_by`` (Spark 4.2's top k) as a plain call: sqlglot's node
    has room for the count but its Spark SQL drops it."""
    if isinstance(node, (exp.ArgMax, exp.ArgMin)) and node.args.get("count") is not None:
        name = "MAX_BY" if isinstance(node, exp.ArgMax) else "MIN_BY"
        args = [node.this, node.expression, node.args["count"]]
        return exp.Anonymous(this=name, expressions=args)
    return node


def _with_ignore_nulls(cls: type[exp.Func], args: list[exp.Expression]) -> exp.Expression:
    """``first_value(x[, ignoreNulls])`` and its kin as Spark reads them: a literal
    ``true`` is IGNORE NULLS, ``false`` RESPECT NULLS (the default); another second
    argument stays a plain call, which the planner reports."""
    if len(args) == 2 and isinstance(args[1], exp.Boolean):
        call = cls(this=args[0])
        return exp.IgnoreNulls(this=call) if args[1].this else exp.RespectNulls(this=call)
    if len(args) == 1:
        return cls(this=args[0])
    return exp.Anonymous(this=cls.sql_names()[0].lower(), expressions=args)


_SEMANTICS_PREFIX = re.compile(r"\b(RUNNING|FINAL)(\s+)(?=[A-Za-z_]\w*\s*\()", re.IGNORECASE)
#: the meta key of a node the planner put in place of one the user wrote (a function of
#: one row moved inside its navigation): that node, which messages quote as written
STANDS_FOR = "mr_stands_for"
MARKED_CALL = re.compile(rf"^(RUNNING|FINAL){SEMANTICS_MARK}+(\w+)$", re.IGNORECASE)
#: ``X '0A'``: the letter of a binary literal (a word of its own), spaces, its string
_SPACED_HEX = re.compile(r"(?<![\w$`.])[Xx](\s+)(?=')")


def _mask_literals(text: str) -> tuple[str, list[tuple[int, int, str]]]:
    """Return ``text`` with string literals and comments blanked, plus double-quoted spans."""
    masked, quoted, _ = _scan_literals(text)
    return masked, quoted


def _scan_literals(
    text: str,
) -> tuple[str, list[tuple[int, int, str]], list[tuple[int, int]]]:
    """:func:`_mask_literals`, and the spans of the single-quoted literals (each opening
    and closing quote's offset)."""
    out = list(text)
    quoted: list[tuple[int, int, str]] = []
    strings: list[tuple[int, int]] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "'":
            j = i + 1
            while j < n:
                if text[j] == "\\":
                    j += 2
                    continue
                if text[j] == "'":
                    if j + 1 < n and text[j + 1] == "'":
                        j += 2
                        continue
                    break
                j += 1
            for k in range(i + 1, min(j, n)):
                out[k] = " "
            strings.append((i, min(j, n)))
            i = j + 1
        elif c == '"':
            j = text.find('"', i + 1)
            j = n if j < 0 else j
            quoted.append((i, j, text[i + 1 : j]))
            i = j + 1
        elif c == "`":
            j = text.find("`", i + 1)
            i = n if j < 0 else j + 1
        elif text.startswith("--", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = " "
            i = j
        elif text.startswith("/*", i):
            j = comment_end(text, i) or n
            for k in range(i, j):
                out[k] = " " if text[k] != "\n" else "\n"
            i = j
        else:
            i += 1
    return "".join(out), quoted, strings


def quote(name: str) -> str:
    """A column name as a Spark SQL identifier."""
    return "`" + name.replace("`", "``") + "`"


_CLASSIFIER_OPEN = re.compile(r"\bCLASSIFIER\s*\($", re.IGNORECASE)


def _names_something(masked: str, start: int, end: int) -> bool:
    """Whether the double-quoted span ``masked[start:end + 1]`` is a name: a label or
    column before ``.`` (``"b".price``, ``count("b".*)``), a field after one
    (``A."price"``), a function name (``"PREV"(x)``) or CLASSIFIER's label
    (``CLASSIFIER("b")``). Anywhere else it is a string literal, as in Spark."""
    after = masked[end + 1 :].lstrip()
    before = masked[:start].rstrip()
    return (
        after.startswith((".", "("))
        or before.endswith(".")
        or bool(_CLASSIFIER_OPEN.search(before))
    )


#: the session's ``spark.sql.ansi.doubleQuotedIdentifiers``: ``"price"`` is a name
#: anywhere, as Spark's parser reads it then (else a string but where it names something)
_DOUBLE_QUOTED_IDENTIFIERS: ContextVar[bool] = ContextVar(
    "double_quoted_identifiers", default=False
)


@contextmanager
def double_quoted_identifiers(on: bool) -> Iterator[None]:
    """While planning for a session whose ``spark.sql.ansi.doubleQuotedIdentifiers`` is
    ``on``: DEFINE and MEASURES read ``"x"`` as the name x, as Spark does."""
    token = _DOUBLE_QUOTED_IDENTIFIERS.set(on)
    try:
        yield
    finally:
        _DOUBLE_QUOTED_IDENTIFIERS.reset(token)


def double_quoted_string(text: str) -> int | None:
    """The offset of the first ``"..."`` of ``text`` (a clause body) read as a string
    literal by default, which ``spark.sql.ansi.doubleQuotedIdentifiers`` makes a name;
    None if there is none."""
    masked, quoted = _mask_literals(text)
    return next((s for s, e, _ in quoted if not _names_something(masked, s, e)), None)


def backslash_error(sql: str, pos: int) -> UnsupportedError:
    """The error at a string literal with a backslash (at ``pos`` of ``sql``) under
    ``spark.sql.parser.escapedStringLiterals``, which the clause does not follow."""
    return UnsupportedError(
        "a string literal with a backslash in DEFINE or MEASURES is read with Spark's "
        "escapes (\\t a tab, \\w the letter w), not as written as "
        "spark.sql.parser.escapedStringLiterals asks",
        sql=sql,
        pos=pos,
        hint="unset spark.sql.parser.escapedStringLiterals and write each backslash meant "
        "twice ('^\\\\w$'), or compute the string before the clause",
    )


def backslash_string(text: str) -> int | None:
    """The offset of the first string literal of expression ``text`` that holds a
    backslash (``'^\\d+$'``), None if none does: its value depends on Spark's
    ``spark.sql.parser.escapedStringLiterals``."""
    masked, quoted, strings = _scan_literals(text)
    found = [start for start, end in strings if "\\" in text[start:end]]
    found += [s for s, e, q in quoted if "\\" in q and not _names_something(masked, s, e)]
    return min(found, default=None)


def prepare(text: str) -> str:
    """The same-length rewrite described in the module docstring."""
    masked, quoted = _mask_literals(text)
    chars = list(text)
    names = _DOUBLE_QUOTED_IDENTIFIERS.get()
    for start, end, _ in quoted:
        if not (names or _names_something(masked, start, end)):
            continue  # Spark's string literal: sqlglot reads "..." as one
        chars[start] = "`"
        if end < len(chars):
            chars[end] = "`"
    for m in _SEMANTICS_PREFIX.finditer(masked):
        ws_start, ws_end = m.span(2)
        for k in range(ws_start, ws_end):
            chars[k] = SEMANTICS_MARK
    for m in _SPACED_HEX.finditer(masked):
        ws_start, ws_end = m.span(1)
        close = masked.find("'", ws_end + 1)
        if close < 0:
            continue
        literal = text[ws_end : close + 1]
        chars[ws_start : close + 1] = list(literal + text[ws_start:ws_end])
    return "".join(chars)


#: the WITH lists around the clause being planned, outermost first (``statement_ctes``):
#: each whether it is RECURSIVE and its CTEs
_STATEMENT_CTES: ContextVar[tuple[tuple[bool, list[WrittenCTE]], ...]] = ContextVar(
    "statement_ctes", default=()
)
_CTE_NAME = re.compile(r"\s*(`(?:[^`]|``)+`|\w+)")


@contextmanager
def statement_ctes(levels: Sequence[tuple[str, Sequence[str]]]) -> Iterator[None]:
    """While planning a clause inside the WITH lists ``levels`` (outermost first: each
    its keyword, WITH [RECURSIVE], and the text of each CTE, ``name AS (...)``), a
    subquery of DEFINE or MEASURES sees them, as every subquery there does in Spark:
    Spark analyses it apart from the statement, so the CTEs it names are written around
    it, as the user wrote them."""
    seen = []
    for keyword, texts in levels:
        ctes = []
        for text in texts:
            name = _CTE_NAME.match(text)
            if name:
                ctes.append(WrittenCTE(this=text, name=name.group(1).strip("`").lower()))
        if ctes:
            seen.append(("RECURSIVE" in keyword.upper(), ctes))
    token = _STATEMENT_CTES.set(tuple(seen))
    try:
        yield
    finally:
        _STATEMENT_CTES.reset(token)


def _with_statement_ctes(tree: exp.Expression) -> exp.Expression:
    """``tree`` with each subquery that names a CTE of the statement (:func:`statement_ctes`)
    read inside the WITH lists around the clause, nested as they are: the innermost list
    joins the subquery's own WITH (a CTE of its own hides one of the statement's), each
    outer list wraps it (``WITH outer ... SELECT * FROM (WITH inner ... subquery)``), so
    that an inner CTE reads the outer one it hides, as in Spark (the clause's input is
    read through the same lists as text: ``grammar.query_scan.cte_scope``)."""
    levels = _STATEMENT_CTES.get()
    if not levels:
        return tree
    names = {c.args["name"] for _, ctes in levels for c in ctes}
    for query in list(tree.find_all(exp.Query)):
        if (
            isinstance(query, exp.Subquery)
            or query.root() is not tree
            or not isinstance(query.parent, (exp.Subquery, exp.Exists, exp.In))
        ):
            continue  # the query inside a subquery's parentheses, once, and unscoped
        read = {t.name.lower() for t in query.find_all(exp.Table) if not t.args.get("db")}
        if not read & names:
            continue
        *outer, (recursive, ctes) = levels
        own = query.args.get("with_")
        mine = list(own.expressions) if own else []
        taken = {c.alias_or_name.lower() for c in mine}
        inner = [c.copy() for c in ctes if c.args["name"] not in taken]
        query.set("with_", exp.With(expressions=inner + mine, recursive=recursive or None))
        scoped = query
        for depth, (recursive, ctes) in enumerate(reversed(outer)):
            alias = exp.TableAlias(this=exp.to_identifier(f"__matchrec_scope{depth}"))
            wrapped = exp.select("*").from_(exp.Subquery(this=scoped.copy(), alias=alias))
            wrapped.set(
                "with_", exp.With(expressions=[c.copy() for c in ctes], recursive=recursive or None)
            )
            scoped = scoped.replace(wrapped)
        if scoped.parent is tree and isinstance(tree, exp.Subquery):
            # sqlglot writes the WITH of a whole expression's subquery before its "("
            return exp.Paren(this=tree)
    return tree


_PARENTHESES = (TokenType.L_PAREN, TokenType.R_PAREN)


def _tokens_checked_for_nesting(text: str, expr: SqlExpr, sql: str) -> list[Token]:
    """The tokens of ``text`` (none where it does not tokenize: parsing reports that),
    after refusing parentheses nested deeper than matchrec reads, before sqlglot
    recurses into them."""
    try:
        tokens = MatchRecognizeDialect().tokenize(text)
    except sqlglot.errors.TokenError:
        return []
    parens = [(t.text, t.start) for t in tokens if t.token_type in _PARENTHESES]
    refuse_deep_nesting(parens, sql, expr.pos)
    return tokens


#: two tokens in a row that leave a list item out (Spark's parser refuses each; sqlglot's
#: reads the list as if the item were not missing) -> (which token to point at, message,
#: hint)
_MISSING_ITEMS: dict[tuple[TokenType, TokenType], tuple[int, str, str]] = {
    (TokenType.COMMA, TokenType.R_PAREN): (
        0,
        "unexpected ')' after ','",
        "remove the comma, or write the argument after it",
    ),
    (TokenType.COMMA, TokenType.COMMA): (
        1,
        "unexpected ',' after ','",
        "remove one comma, or write the argument between them",
    ),
    (TokenType.L_PAREN, TokenType.COMMA): (
        1,
        "unexpected ',' after '('",
        "write the argument before the comma, or remove the comma",
    ),
}


def _check_semicolons(tokens: list[Token], expr: SqlExpr, sql: str) -> None:
    """A ``;`` in an expression (sqlglot reads it as the statement's end): at it, whether
    what follows parses (``DEFINE B AS x < 1; C AS ...``, a ',' meant) or not."""
    for tok in tokens:
        if tok.token_type is TokenType.SEMICOLON:
            raise SqlSyntaxError(
                "unexpected ';' inside the clause",
                sql=sql,
                pos=expr.pos + tok.start,
                hint="a ';' ends a whole statement: remove it here (items of MEASURES and "
                "DEFINE are separated by ',')",
            )


def _check_missing_items(tokens: list[Token], expr: SqlExpr, sql: str) -> None:
    """A list with an item left out (``PREV(price,)``, ``coalesce(a,, b)``, ``f(, x)``),
    an empty IN list or a ``;``, in the expression's ``tokens``, which Spark's parser
    refuses and sqlglot's reads as if nothing were wrong."""
    _check_semicolons(tokens, expr, sql)
    for k, (first, second) in enumerate(zip(tokens, tokens[1:])):
        missing = _MISSING_ITEMS.get((first.token_type, second.token_type))
        if missing is not None:
            at, message, hint = missing
            raise SqlSyntaxError(
                message, sql=sql, pos=expr.pos + (first, second)[at].start, hint=hint
            )
        if (
            first.token_type is TokenType.IN
            and second.token_type is TokenType.L_PAREN
            and k + 2 < len(tokens)
            and tokens[k + 2].token_type is TokenType.R_PAREN
        ):
            raise SqlSyntaxError(
                "IN needs at least one value: Spark refuses an empty IN list",
                sql=sql,
                pos=expr.pos + first.start,
                hint="write FALSE for x IN (), TRUE for x NOT IN ()",
            )
    _check_filter_where(tokens, expr, sql)


def _check_filter_where(tokens: list[Token], expr: SqlExpr, sql: str) -> None:
    """An aggregate's FILTER without WHERE (``sum(x) FILTER (x > 0)``): Spark's parser
    refuses it (``FILTER (WHERE ...)``), sqlglot's reads it as if WHERE were there. The
    function ``filter(arr, x -> ...)`` follows no call's ``)``."""
    types = [t.token_type for t in tokens]
    for k in range(1, len(tokens) - 2):
        if types[k - 1 : k + 2] == [TokenType.R_PAREN, TokenType.FILTER, TokenType.L_PAREN]:
            if types[k + 2] is not TokenType.WHERE:
                raise SqlSyntaxError(
                    "FILTER needs WHERE: Spark's syntax is agg(x) FILTER (WHERE condition)",
                    sql=sql,
                    pos=expr.pos + tokens[k + 2].start,
                    hint="write FILTER (WHERE ...)",
                )


#: the longest chain of one AND or OR kept as the parser nests it (one level per term)
_LONGEST_CHAIN = 32


def balanced_chains(tree: exp.Expression) -> exp.Expression:
    """``tree`` with each long chain of one AND or OR (``a OR b OR ... OR z``, which the
    parser nests one level per term) as a balanced tree of the same terms in the same
    order: a rule generated with a thousand terms is as deep as one with ten, for the
    planner's walks, which recurse. AND and OR are associative, NULLs included, and Spark
    promises no order of evaluation."""
    for node in list(tree.walk()):
        kind = type(node)
        if kind not in (exp.And, exp.Or) or type(node.parent) is kind:
            continue  # not the top of a chain
        terms: list[exp.Expression] = []
        stack: list[exp.Expression] = [node]
        while stack:
            top = stack.pop()
            if type(top) is kind:
                stack += [top.expression, top.this]
            else:
                terms.append(top)
        if len(terms) <= _LONGEST_CHAIN:
            continue
        for term in terms:
            term.pop()
        joined = balanced(terms, lambda a, b, kind=kind: kind(this=a, expression=b))
        if node is tree:
            tree = joined
        else:
            node.replace(joined)
    return tree


def parse_expression(expr: SqlExpr, sql: str) -> exp.Expression:
    """Parse ``expr`` (a span of ``sql``) or raise SqlSyntaxError pointing into ``sql``."""
    text = prepare(expr.text)
    tokens = _tokens_checked_for_nesting(text, expr, sql)
    try:
        tree = sqlglot.parse_one(text, read=MatchRecognizeDialect)
    except sqlglot.errors.ParseError as err:
        _raise_misspelled_operator(expr, sql)
        _check_semicolons(tokens, expr, sql)  # sqlglot read on past it
        info = err.errors[0] if err.errors else {}
        message, offset, hint = _describe_parse_error(expr.text, info, str(err))
        _raise_arity_error(sql, expr.pos + offset, message)
        raise SqlSyntaxError(message, sql=sql, pos=expr.pos + offset, hint=hint) from None
    except sqlglot.errors.TokenError as err:
        raise SqlSyntaxError(
            f"cannot read expression: {err}",
            sql=sql,
            pos=expr.pos,
            hint="MEASURES and DEFINE take Spark SQL expressions",
        ) from None
    if tree is None:
        raise SqlSyntaxError("empty expression", sql=sql, pos=expr.pos)
    _check_missing_items(tokens, expr, sql)
    _check_numeric_literals(tokens, expr, sql)
    tree = balanced_chains(negative_typed_literals(tree))
    _check_shape(tree, expr, sql)
    _check_type_parameters(tree, expr, sql)
    _check_typed_literals(tree, expr, sql)
    _check_writable(tree, expr, sql)
    _check_arguments(tree, expr, sql)
    _check_format_patterns(tree, expr, sql)
    tree = quantified_likes(
        any_aggregates(
            quoted_spark_calls(qualified_calls(unshadowed_parameters(higher_order_exists(tree))))
        )
    )
    return _with_statement_ctes(map_lookups_as_case(tuples_as_structs(tree)))


#: what a tuple made a struct may sit in: the expression is that value (or holds it)
_VALUE_HOLDERS = (exp.Tuple, exp.Struct, exp.PropertyEQ, exp.Paren, exp.Array)


def tuples_as_structs(tree: exp.Expression) -> exp.Expression:
    """Each tuple ``(a, b)`` that is the expression's value, or a field or element of
    it, as the ``struct(a, b)`` Spark reads it, its fields named as Spark names them: a
    column by its name, anything else ``colN``. Left a tuple, an atom's column name
    (``FIRST(A.vol)``) became the field's. A tuple compared (``(a, b) = (1, 2)``) or
    passed to a function stays one, for the checks of those."""

    def held_as_value(node: exp.Expression) -> bool:
        parent = node.parent
        while parent is not None:
            if not isinstance(parent, _VALUE_HOLDERS):
                return False
            parent = parent.parent
        return True

    for node in reversed(list(tree.find_all(exp.Tuple))):  # the innermost first
        if not held_as_value(node):
            continue
        fields = [
            exp.PropertyEQ(
                this=item.this.copy()
                if isinstance(item, exp.Column) and isinstance(item.this, exp.Identifier)
                else exp.to_identifier(f"col{k + 1}"),
                expression=item,
            )
            for k, item in enumerate(node.expressions)
        ]
        struct = exp.Struct(expressions=fields)
        struct.meta.update(node.meta)
        if node is tree:
            return struct
        node.replace(struct)
    return tree


def negative_typed_literals(tree: exp.Expression) -> exp.Expression:
    """``-9223372036854775808L`` as the one literal Spark reads: sqlglot reads a typed
    literal (``5L``, ``128Y``) as a cast of its digits, so the minus came outside a cast
    of 9223372036854775808 to BIGINT, which overflows (an error under ANSI mode, NULL
    without it). Only integers: ``-0.0D`` is the negation of the DOUBLE 0.0, -0.0, where
    a cast of the number -0.0 (a DECIMAL, whose zero has no sign) is 0.0."""

    def folded(node: exp.Expression) -> exp.Expression:
        cast = node.this if isinstance(node, exp.Neg) else None
        if (
            type(cast) is exp.TryCast
            and "safe" not in cast.args  # (a typed literal's; TRY_CAST(...) has one)
            and isinstance(cast.this, exp.Literal)
            and not cast.this.is_string
            and not cast.this.this.startswith("-")
            and cast.to.is_type(*exp.DataType.INTEGER_TYPES)
        ):
            negative = cast.copy()
            negative.set("this", exp.Literal.number(f"-{cast.this.this}"))
            return negative
        return node

    return tree.transform(folded)


#: operators written as another language (or a slip) writes them -> Spark's
_MISSPELLED_OPERATORS = {"=<": "<=", "!==": "!=", "===": "="}
_MISSPELLED = re.compile(r"!==|===|=<")


def _raise_misspelled_operator(expr: SqlExpr, sql: str) -> None:
    """Raise at an operator Spark does not have (``=<``, ``!==``) in an expression that
    does not parse: sqlglot reads ``=`` and ``<`` apart and stops at the end, where its
    error would point."""
    masked, _ = _mask_literals(expr.text)
    found = _MISSPELLED.search(masked)
    if found is None:
        return
    written = found.group()
    raise SqlSyntaxError(
        f"unknown operator {written!r}",
        sql=sql,
        pos=expr.pos + found.start(),
        hint=f"did you mean {_MISSPELLED_OPERATORS[written]}?",
    )


def any_aggregates(tree: exp.Expression) -> exp.Expression:
    """``tree`` with each call ``any(x)`` that is not the right side of a quantified
    comparison (``x = ANY(...)``, ``s LIKE ANY (...)``) as ``bool_or(x)``, which it is in
    Spark: sqlglot reads it as the quantifier, which the planner would hand to Spark as a
    row-local value (an aggregate without a window: MISSING_GROUP_BY)."""
    for node in list(tree.find_all(exp.Any)):
        parent = node.parent
        quantified = isinstance(parent, (exp.Binary, exp.Predicate))
        if quantified and parent.args.get("expression") is node:
            continue
        arg = node.this.unnest() if isinstance(node.this, exp.Paren) else node.this
        tree = _replaced(tree, node, exp.LogicalOr(this=arg))
    return tree


#: How Spark joins the LIKEs of ``x [NOT] LIKE ANY|ALL (p1, p2, ...)``: ANY is true when
#: one pattern gives true (``NOT LIKE ANY`` when one pattern does not match), ALL when each
#: does; three-valued logic gives Spark's NULLs.
_QUANTIFIED_JOINS: dict[type[exp.Expression], type[exp.Connector]] = {
    exp.Any: exp.Or,
    exp.All: exp.And,
}


def quantified_likes(tree: exp.Expression) -> exp.Expression:
    """``tree`` with each ``x [NOT] [I]LIKE ANY|ALL (...)`` whose patterns are not all
    literals as the OR (ANY) or AND (ALL) of one LIKE per pattern. Spark's parser does the
    same when a pattern is not foldable; here it lets a pattern that depends on the match
    (``B.s LIKE ANY (FIRST(A.s) || '%', 'x%')``) reach DEFINE's glue, which has LIKE."""
    for like in list(tree.find_all(exp.Like, exp.ILike)):
        quantifier = like.expression
        join = _QUANTIFIED_JOINS.get(type(quantifier))
        if join is None:
            continue
        inner = quantifier.this
        patterns = inner.expressions if isinstance(inner, exp.Tuple) else [inner.unnest()]
        if all(isinstance(p, exp.Literal) for p in patterns):
            continue
        negate = like.args.get("negate")
        parts = [
            type(like)(this=like.this.copy(), expression=p.copy(), negate=negate) for p in patterns
        ]
        for part in parts:
            part.meta.update(like.meta)
        combined = parts[0]
        for part in parts[1:]:
            combined = join(this=combined, expression=part)
        tree = _replaced(tree, like, exp.Paren(this=combined))
    return tree


def _replaced(tree: exp.Expression, node: exp.Expression, call: exp.Expression) -> exp.Expression:
    """``tree`` with ``node`` replaced by ``call``, which takes its position (``meta``)."""
    call.meta.update(node.meta)
    if node is tree:
        return call
    node.replace(call)
    return tree


#: Spark aggregates whose names are also row pattern navigations: a quoted name
#: (```first`(x)``, ``"LAST"(x)``) is the function of that name, as in Spark, never the
#: navigation (as Trino: a quoted PREV, CLASSIFIER, ... is no row pattern function either,
#: and Spark then finds no function of that name). Spark's ``first``/``last`` are its
#: ``first_value``/``last_value``.
_QUOTED_AGGREGATES: dict[str, type[exp.Func]] = {"FIRST": exp.FirstValue, "LAST": exp.LastValue}


def qualified_calls(tree: exp.Expression) -> exp.Expression:
    """``tree`` with each call of a qualified name (``default.gap(a, b)``, a permanent
    function of a schema), which sqlglot reads as a field of a column, as one call of the
    dotted name: the planner's functions see a call, not a field access."""
    for node in list(tree.find_all(exp.Dot)):
        call, head = node.expression, node.this
        if not isinstance(call, exp.Anonymous) or not isinstance(call.this, str):
            continue
        if builtin_name(call.this):  # ``A.FIRST(x)``, ``B.count(x)``: the planner's error
            continue
        parts = _qualifier_parts(head)
        if parts is None:
            continue
        named = exp.Anonymous(this=".".join([*parts, call.this]), expressions=call.expressions)
        tree = _replaced(tree, node, named)
    return tree


def builtin_name(name: str) -> bool:
    """Whether ``name`` is a built-in function's or a row pattern function's."""
    upper = re.sub(rf"^(?:RUNNING|FINAL){SEMANTICS_MARK}+", "", name.upper())  # as prepared
    return (
        upper in ROW_PATTERN_CALLS
        or upper in AGGREGATES
        or upper in SPARK_FUNCTIONS
        or upper in Spark.Parser.FUNCTIONS
    )


#: the row pattern functions, which sqlglot reads as plain calls
ROW_PATTERN_CALLS = frozenset({"FIRST", "LAST", "PREV", "NEXT", "CLASSIFIER", "MATCH_NUMBER"})


def _qualifier_parts(node: exp.Expression) -> list[str] | None:
    """The unquoted names of ``schema`` or ``catalog.schema`` before a call, or None."""
    if isinstance(node, exp.Identifier) and not node.quoted:
        return [node.this]
    if isinstance(node, exp.Dot):
        head, last = _qualifier_parts(node.this), _qualifier_parts(node.expression)
        return None if head is None or last is None or len(last) != 1 else head + last
    if isinstance(node, exp.Column) and all(
        isinstance(p, exp.Identifier) and not p.quoted for p in node.parts
    ):
        return [p.this for p in node.parts]
    return None


def quoted_spark_calls(tree: exp.Expression) -> exp.Expression:
    """``tree`` with each call of a quoted name in :data:`_QUOTED_AGGREGATES` as the Spark
    aggregate it names (``first`(x, true)`` keeps its NULL-skipping flag as IGNORE NULLS)."""
    for node in list(tree.find_all(exp.Anonymous)):
        ident = node.this
        if not (isinstance(ident, exp.Identifier) and ident.quoted):
            continue
        build = _QUOTED_AGGREGATES.get(ident.this.upper())
        args = list(node.expressions)
        if build is None or not 1 <= len(args) <= 2:
            continue
        if len(args) == 2 and not isinstance(args[1], exp.Boolean):
            continue
        call: exp.Expression = build(this=args[0])
        if len(args) == 2 and args[1].this:
            call = exp.IgnoreNulls(this=call)
        tree = _replaced(tree, node, call)
    return tree


def _check_writable(tree: exp.Expression, expr: SqlExpr, sql: str) -> None:
    """Raise :class:`UnsupportedSqlError` at the innermost part of ``tree`` that sqlglot
    cannot write back as Spark SQL (``initcap(s, '-')``, a window's EXCLUDE), so that the
    error points at it rather than being raised, unplaced, where the planner writes it."""
    found = _unwritable(tree)
    if found is not None:
        node, reason = found
        raise UnsupportedSqlError(reason, sql=sql, pos=call_pos(node, expr.pos, sql))


#: an argument sqlglot's reader of a call takes (for another dialect) where Spark's
#: function has none, and how many arguments Spark's takes at most
_NOT_SPARKS: dict[type[exp.Expression], tuple[str, int]] = {exp.Round: ("truncate", 2)}


def _check_arguments(tree: exp.Expression, expr: SqlExpr, sql: str) -> None:
    """Raise :class:`SqlSyntaxError` at a call that lacks an argument Spark requires but
    that sqlglot's reader of that function let through (``datediff(ts)``), as its
    other calls are refused (``upper()``): written back it would not parse; and at one
    with an argument only sqlglot's reader takes (``round(x, 1, 2)``), which the table
    function's evaluator would ignore."""
    for node in tree.walk():
        extra = _NOT_SPARKS.get(type(node))
        if extra is not None and node.args.get(extra[0]) is not None:
            pos = call_pos(node, expr.pos, sql)
            name = re.match(r"\w*", sql[pos:])[0].upper() or type(node).__name__.upper()
            message = f"{name} takes at most {extra[1]} arguments, got {extra[1] + 1}"
            _raise_arity_error(sql, pos, message)
            raise SqlSyntaxError(
                message,
                sql=sql,
                pos=pos,
            )
        missing = isinstance(node, exp.Func) and any(
            needed and node.args.get(arg) is None for arg, needed in node.arg_types.items()
        )
        # count(DISTINCT): sqlglot reads a DISTINCT of nothing, Spark's parser refuses it
        missing = missing or (
            isinstance(node, exp.Distinct)
            and not node.expressions
            and isinstance(node.parent, exp.Func)  # not SELECT DISTINCT
        )
        if missing:
            call = node
            while not _starts(call) and call.parent is not None:
                call = call.parent
            pos = call_pos(call, expr.pos, sql)
            name = re.match(r"\w*", sql[pos:])[0] or type(call).__name__
            message = f"{name.upper()}() is missing an argument"
            _raise_arity_error(sql, pos, message)
            raise SqlSyntaxError(message, sql=sql, pos=pos)


#: how the messages above tell a call with a count of arguments its reader refuses
_ARITY_MESSAGE = re.compile(r"takes at most \d+ arguments?, got|\(\) is missing an argument")


def _raise_arity_error(sql: str, pos: int, message: str) -> None:
    """Raise Spark's WRONG_NUM_ARGS (an analysis error, with its hint) where ``message``
    refuses the count of arguments of a built-in call at ``pos`` that Spark refuses too:
    Spark reads such a call and refuses it when it analyses the query, not as a syntax
    error (``round(x, 1, 2)``, ``coalesce()``)."""
    if _ARITY_MESSAGE.search(message) is None:
        return
    found = arity_error(sql, pos)
    if found is not None:
        raise found


def specifier_pos(sql: str, pos: int, pattern: str, found: Exception) -> int:
    """Where in ``sql`` the specifier of ``found`` (an error with its ``.offset`` in
    ``pattern``) is written, the pattern's literal written at ``pos``; ``pos`` when the
    literal is not written there as ``pattern`` reads."""
    offset = getattr(found, "offset", 0)
    if sql[pos : pos + 1] in ("'", '"') and sql.startswith(pattern[:offset], pos + 1):
        return pos + 1 + offset
    return pos


def _check_format_patterns(tree: exp.Expression, expr: SqlExpr, sql: str) -> None:
    """Raise :class:`SemanticError` at a ``format_string``/``printf`` specifier that fails
    for every value (``%q``, ``%-d``, a ``%s`` without its argument): Spark would fail the
    job on the first row it formats."""
    for node in tree.walk():
        name = typed_name(node)
        if name is None or not TYPED_CALLS[name].pattern:
            continue
        args = typed_args(node)
        fmt = args[0] if args else None
        if not (isinstance(fmt, exp.Literal) and fmt.is_string):
            continue
        found = pattern_error(fmt.this)
        if found is None:
            found = missing_argument(fmt.this, len(args) - 1)
        if found is None or isinstance(found, NotComputed):
            continue
        raise SemanticError(
            f"{name.lower()}(): {found}",
            sql=sql,
            pos=specifier_pos(sql, node_pos(fmt, expr.pos, sql), fmt.this, found),
            hint="see Java's java.util.Formatter for the conversions and flags Spark's "
            "format_string takes",
        )


def call_pos(node: exp.Expression, base: int, sql: str) -> int:
    """Where ``node`` starts in ``sql``: at its name for a function written as a call
    (``upper(s)``), else at its first token (:func:`node_pos`)."""
    pos = node_pos(node, base, sql)
    if "start" in node.meta:  # sqlglot's position of a call is its name's
        return pos  # (from there, the name before the parenthesis is an outer call's)
    if isinstance(node, exp.Func) and not isinstance(node, (exp.Binary, exp.Unary)):
        pos = call_start(sql, pos, base)
    return pos


def call_start(sql: str, pos: int, base: int) -> int:
    """The offset of the function name whose ``(`` comes right before ``pos`` (a call's
    first argument), or ``pos`` when no name is there."""
    i = pos
    while i > base and sql[i - 1].isspace():
        i -= 1
    if i <= base or sql[i - 1] != "(":
        return pos
    j = i - 1
    while j > base and sql[j - 1].isspace():
        j -= 1
    k = j
    while k > base and (sql[k - 1].isalnum() or sql[k - 1] == "_"):
        k -= 1
    return k if k < j else pos


def _closed_at(sql: str, start: int, end: int) -> int | None:
    """The offset just after the span of ``sql`` from ``start`` that reaches ``end`` and
    closes every parenthesis opened in it (strings and quoted names skipped); None if it
    closes one it did not open, or leaves one open."""
    depth, quote_char, i = 0, None, start
    while i < len(sql) and (i < end or depth > 0):
        ch = sql[i]
        if quote_char:
            quote_char = None if ch == quote_char else quote_char
        elif ch in "'\"`":
            quote_char = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                return None
        i += 1
    return None if depth or quote_char else i


def written_text(node: exp.Expression, sql: str, base: int) -> str | None:
    """The text of ``sql`` that ``node`` was read from, spaces collapsed, or None where
    that is not known for sure: the span from its first to its last positioned token,
    with the parentheses opened inside closed, kept only if it reads back as ``node``
    (a node the planner rewrote, or one ending in a word sqlglot keeps no position of,
    as in ``x IS NULL``, does not)."""
    reading = written_reading(node, sql, base)
    return None if reading is None else reading()


def written_reading(node: exp.Expression, sql: str, base: int) -> Callable[[], str | None] | None:
    """:func:`written_text` in two steps: the spans that may be ``node``'s text, found
    now (None: none), and a call that reads them back, kept for when the text is shown
    (an error's message); reading every operand of a deeply nested expression back
    would parse it again once per level."""
    ends = _ends(node)
    start = node_pos(node, base, sql)
    if ends:
        end = _closed_at(sql, start, base + max(ends) + 1)
    elif isinstance(node, exp.Interval) and _INTERVAL_WORD.match(sql, start):
        end = start + len("INTERVAL")  # ``INTERVAL 1 DAY``: no token of it has a position
    else:
        return None
    if end is None or not sql[start:end].strip():
        return None
    # a last token sqlglot keeps no position of (``INTERVAL 1 DAY``'s number and unit,
    # ``x IS NULL``'s NULL) is looked for after the positioned ones
    tail = _UNPOSITIONED_TAIL if any(_unpositioned_leaf(n) for n in node.walk()) else 0
    spans = [sql[start:end]]
    for _ in range(tail):
        more = _NEXT_TOKEN.match(sql, end)
        if more is None:
            break
        end = more.end()
        spans.append(sql[start:end])
    # read back later as now: the reading depends on settings held in context variables
    return partial(copy_context().run, _read_back, spans, node.sql(dialect=MatchRecognizeDialect))


def _read_back(spans: list[str], wanted: str) -> str | None:
    """The first of ``spans`` that reads as ``wanted`` (Spark SQL), spaces collapsed."""
    for span in spans:
        try:
            read = sqlglot.parse_one(prepare(span), read=MatchRecognizeDialect)
            if read.sql(dialect=MatchRecognizeDialect) == wanted:
                return " ".join(span.split())
        except (sqlglot.errors.ParseError, sqlglot.errors.TokenError, UnsupportedSqlError):
            pass
    return None


#: how many tokens without a position may end a node's text, and one such token
_UNPOSITIONED_TAIL = 8
_NEXT_TOKEN = re.compile(r"\s*(?:[A-Za-z_]\w*|\d+(?:\.\d*)?|'[^']*'|[-+*/%<>=!|&]+)")


def _unpositioned_leaf(node: exp.Expression) -> bool:
    """A node of no sub-expressions and no position (``1`` of ``INTERVAL 1 DAY``)."""
    return "start" not in node.meta and next(node.iter_expressions(), None) is None


def written_call(sql: str, start: int, limit: int = 60) -> str | None:
    """The call that starts at ``start`` as the user wrote it (name through its closing
    parenthesis, spaces collapsed, clipped to ``limit``), or None if it does not close."""
    opening = sql.find("(", start)
    end = None if opening < 0 else _closed_at(sql, start, opening + 1)
    if end is None:
        return None
    text = " ".join(sql[start:end].split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _unwritable(node: exp.Expression) -> tuple[exp.Expression, str] | None:
    """The innermost node of ``node`` whose Spark SQL sqlglot cannot write, and why."""
    try:
        node.sql(dialect=MatchRecognizeDialect)
        return None
    except UnsupportedSqlError as err:
        for child in node.iter_expressions():
            found = _unwritable(child)
            if found is not None:
                return found
        return node, err.reason


def higher_order_exists(tree: exp.Expression) -> exp.Expression:
    """``tree`` with Spark's higher-order ``exists(array, x -> ...)``, which sqlglot reads
    as an EXISTS node with a lambda, as a plain function call: it is no subquery."""
    for node in list(tree.find_all(exp.Exists)):
        if isinstance(node.args.get("expression"), exp.Lambda):
            call = exp.Anonymous(this="exists", expressions=[node.this, node.expression])
            call.meta.update(node.meta)
            if node is tree:
                tree = call  # the calls nested in its lambda are still to be replaced
            else:
                node.replace(call)
    return tree


_GENERIC_HINT = "MEASURES and DEFINE take Spark SQL expressions"
_MISSING = re.compile(r"Required keyword: '(\w+)' missing for <class '[\w.]*?(\w+)'>")
_TOO_MANY = re.compile(
    r"number of provided arguments \((\d+)\) is greater than the maximum "
    r"number of supported arguments \((\d+)\)"
)


#: operators that take a left operand (``-`` and ``+`` may stand alone)
_BINARY_OPERATORS = {
    TokenType.LT,
    TokenType.GT,
    TokenType.LTE,
    TokenType.GTE,
    TokenType.EQ,
    TokenType.NEQ,
    TokenType.NULLSAFE_EQ,
    TokenType.AND,
    TokenType.OR,
    TokenType.STAR,
    TokenType.SLASH,
    TokenType.MOD,
    TokenType.DPIPE,
}
#: tokens after which an operand starts
_OPERAND_BEFORE = {
    TokenType.L_PAREN,
    TokenType.COMMA,
    TokenType.CASE,
    TokenType.WHEN,
    TokenType.THEN,
    TokenType.ELSE,
    TokenType.NOT,
    *_BINARY_OPERATORS,
}


def _leading_operator(text: str, before: int) -> tuple[str, int] | None:
    """The last binary operator of ``text`` before offset ``before`` that has nothing to
    its left (it starts the text, or follows ``(``, ``,``, WHEN, NOT, another operator
    ...): (its text, its offset)."""
    tokens = MatchRecognizeDialect().tokenize(text)  # it tokenized before failing to parse
    found = None
    for k, tok in enumerate(tokens):
        if tok.start >= before:
            break
        opens = k == 0 or tokens[k - 1].token_type in _OPERAND_BEFORE
        if opens and tok.token_type in _BINARY_OPERATORS:
            found = (text[tok.start : tok.end + 1], tok.start)
    return found


def _describe_parse_error(text: str, info: dict, fallback: str) -> tuple[str, int, str | None]:
    """Turn one of sqlglot's parse errors into (message, offset into ``text``, hint).

    sqlglot reports the line and column of the *last* character of the token it stopped
    at (``highlight``); the offset returned is that token's first character.
    """
    highlight = str(info.get("highlight") or "")
    end = _offset_of(text, info.get("line", 1), info.get("col", 1))
    start = max(0, end - max(len(highlight), 1) + 1)
    token = highlight.strip() or "end of expression"
    desc = str(info.get("description") or fallback.splitlines()[0])

    m = _MISSING.search(desc)
    if m:
        arg, name = m.group(1), m.group(2)
        cls = getattr(exp, name, None)
        if isinstance(cls, type) and issubclass(cls, exp.Column):
            return f"a name is missing after {token!r}", start, None
        if isinstance(cls, type) and issubclass(cls, exp.Between):
            return "BETWEEN needs a lower and an upper bound: x BETWEEN a AND b", start, None
        if isinstance(cls, type) and issubclass(cls, (exp.If, exp.Case)):
            return f"a value is missing after {token!r}", start, "write CASE WHEN c THEN v END"
        if isinstance(cls, type) and issubclass(cls, exp.Func) and not issubclass(cls, exp.Binary):
            call = _call_before(text, start)
            fname = text[call[0] : call[1]].upper() if call else cls.__name__.upper()
            where = call[0] if call else start
            return f"{fname}() is missing an argument", where, None
        if isinstance(cls, type) and issubclass(cls, exp.Binary) and arg == "this":
            lead = _leading_operator(text, start)
            if lead is not None:
                return f"{lead[0]!r} needs an operand before it", lead[1], _GENERIC_HINT
        if (
            isinstance(cls, type)
            and issubclass(cls, (exp.Binary, exp.Unary))
            or arg == "expression"
        ):
            return f"{token!r} needs an operand after it", start, _GENERIC_HINT
        return f"incomplete expression at {token!r}", start, _GENERIC_HINT
    m = _TOO_MANY.search(desc)
    if m:
        given, most = int(m.group(1)), int(m.group(2))
        call = _call_before(text, start)
        fname = text[call[0] : call[1]].upper() if call else "the function"
        s = "" if most == 1 else "s"
        return (
            f"{fname} takes at most {most} argument{s}, got {given}",
            call[0] if call else start,
            None,
        )
    if desc.startswith("Expecting )"):
        return f"expected ')' after {token!r}", start, _GENERIC_HINT
    if desc.startswith("Invalid expression / Unexpected token"):
        semantics = _SEMANTICS_BEFORE_NAME.search(text, 0, start)
        if semantics and token == ".":  # ``FINAL DOWN.price``
            word, name = semantics.group(1).upper(), semantics.group(2)
            field = re.match(r"\.\s*(\w+)", text[start:])
            written = name + ("." + field.group(1) if field else "")
            return (
                f"{word} applies to a navigation function or an aggregate, not to {written!r}",
                semantics.start(),
                f"write {word} LAST({written}), or leave {word} out",
            )
        return (
            f"unexpected {token!r}",
            start,
            "is an operator or a comma missing before it?",
        )
    if desc.startswith("Expecting AND between the bounds of BETWEEN"):
        found = "the expression ends" if desc.endswith("(at the end)") else f"found {token!r}"
        return (
            f"BETWEEN needs AND and an upper bound after its lower bound: {found}",
            end + 1 if desc.endswith("(at the end)") else start,
            "write x BETWEEN a AND b",
        )
    if desc.startswith("Expected TYPE after CAST"):
        return "CAST needs a type: CAST(x AS type)", start, None
    return f"cannot parse expression: {desc}", start, _GENERIC_HINT


#: RUNNING or FINAL then a name, ending where sqlglot stopped (``FINAL DOWN|.price``)
_SEMANTICS_BEFORE_NAME = re.compile(r"\b(RUNNING|FINAL)\s+([A-Za-z_]\w*)\s*$", re.IGNORECASE)


def _call_before(text: str, close: int) -> tuple[int, int] | None:
    """Span of the function name whose argument list contains offset ``close``."""
    depth = 0
    i = min(close, len(text) - 1)
    if i >= 0 and text[i] == ")":
        i -= 1
    while i >= 0:
        c = text[i]
        if c == ")":
            depth += 1
        elif c == "(":
            if depth == 0:
                j = i
                while j > 0 and text[j - 1].isspace():
                    j -= 1
                k = j
                while k > 0 and (text[k - 1].isalnum() or text[k - 1] == "_"):
                    k -= 1
                return (k, j) if k < j else None
            depth -= 1
        i -= 1
    return None


def _check_shape(tree: exp.Expression, expr: SqlExpr, sql: str) -> None:
    """Reject what sqlglot accepts but is not a Spark SQL expression here."""
    if isinstance(tree, (exp.Select, exp.Union, exp.Query)) and not isinstance(tree, exp.Subquery):
        raise SqlSyntaxError(
            "a query used as a value must be in parentheses",
            sql=sql,
            pos=node_pos(tree, expr.pos, sql),
            hint="write (SELECT ...)",
        )
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (exp.Subquery, exp.Select, exp.Exists)):
            continue
        if isinstance(node, exp.Alias) and not isinstance(node.parent, exp.Func):
            alias = node.args.get("alias")
            target = alias if isinstance(alias, exp.Expression) else node
            word = node.this
            if isinstance(word, exp.Column) and not word.table and word.name.upper() in _SEMANTICS:
                if not word.this.quoted:  # ``FINAL amount``: the keyword before a name
                    raise SqlSyntaxError(
                        f"{word.name.upper()} applies to a navigation function or an "
                        f"aggregate, not to {node.alias!r}",
                        sql=sql,
                        pos=node_pos(word, expr.pos, sql),
                        hint=f"write {word.name.upper()} LAST({node.alias}), or leave "
                        f"{word.name.upper()} out",
                    )
            raise SqlSyntaxError(
                f"unexpected {node.alias!r} after an expression",
                sql=sql,
                pos=node_pos(target, expr.pos, sql),
                hint="is an operator or a comma missing? (a name cannot follow an expression here)",
            )
        stack.extend(node.iter_expressions())


#: the words that set a navigation's or an aggregate's semantics
_SEMANTICS = ("RUNNING", "FINAL")

#: the tokens an operand ends with: a ``-`` after one subtracts, elsewhere it negates
_OPERAND_END = frozenset(
    {
        TokenType.NUMBER,
        TokenType.VAR,
        TokenType.STRING,
        TokenType.R_PAREN,
        TokenType.R_BRACKET,
        TokenType.IDENTIFIER,
        TokenType.NULL,
        TokenType.TRUE,
        TokenType.FALSE,
        TokenType.END,  # CASE ... END - 1
    }
)

#: a numeric literal's type by its suffix (``1e3D``, ``7Y``) -> (Spark's name, its range)
_LITERAL_RANGES: dict[TokenType, tuple[str, float, float]] = {
    TokenType.DOUBLE: ("double", -1.7976931348623157e308, 1.7976931348623157e308),
    TokenType.FLOAT: ("float", -3.4028234663852886e38, 3.4028234663852886e38),
    TokenType.BIGINT: ("bigint", -(2**63), 2**63 - 1),
    TokenType.SMALLINT: ("smallint", -(2**15), 2**15 - 1),
    TokenType.TINYINT: ("tinyint", -(2**7), 2**7 - 1),
}
_SHOWN_BOUND = {  # as Spark writes them
    -1.7976931348623157e308: "-1.7976931348623157E+308",
    1.7976931348623157e308: "1.7976931348623157E+308",
    -3.4028234663852886e38: "-3.4028234663852886E+38",
    3.4028234663852886e38: "3.4028234663852886E+38",
}


def _check_numeric_literals(tokens: list[Token], expr: SqlExpr, sql: str) -> None:
    """Reject a numeric literal Spark's parser refuses: beyond its type's range
    (``1e999`` is a DOUBLE, ``300Y`` a TINYINT: INVALID_NUMERIC_LITERAL_RANGE), or a
    DECIMAL of more than 38 digits (``0.`` and 40 digits, an integer of 42 digits). sqlglot
    reads them; a DOUBLE beyond the range was infinity where Python computes it."""
    for k, tok in enumerate(tokens):
        if tok.token_type != TokenType.NUMBER:
            continue
        text = tok.text
        after = tokens[k + 1 : k + 3]
        suffixed = len(after) == 2 and after[0].token_type == TokenType.DCOLON
        suffixed = suffixed and after[0].start == tok.start  # ``1e3D``: no ``::`` written
        kind = after[1].token_type if suffixed else None
        if kind is None and ("e" in text or "E" in text):
            kind = TokenType.DOUBLE
        pos = expr.pos + tok.start
        if kind in _LITERAL_RANGES:
            name, low, high = _LITERAL_RANGES[kind]
            # as Spark compares: the text exactly with the bound's shortest decimal text
            # (1.7976931348623158e308 is past 1.7976931348623157E308)
            value = Decimal(text)
            before = tokens[k - 2] if k >= 2 else None
            named = k >= 3 and tokens[k - 3].token_type == TokenType.DOT  # B.date - 1: a name
            if (
                k >= 1
                and tokens[k - 1].token_type == TokenType.DASH
                and (before is None or before.token_type not in _OPERAND_END)
                and not named
            ):
                value, text, pos = -value, "-" + text, expr.pos + tokens[k - 1].start
            if not Decimal(repr(low)) <= value <= Decimal(repr(high)):
                shown = (_SHOWN_BOUND.get(low, str(low)), _SHOWN_BOUND.get(high, str(high)))
                raise SqlSyntaxError(
                    f"[INVALID_NUMERIC_LITERAL_RANGE] Numeric literal {text} is outside the "
                    f"valid range for {name} with minimum value of {shown[0]} and maximum "
                    f"value of {shown[1]}",
                    sql=sql,
                    pos=pos,
                    hint="write a value within the range"
                    + ("" if name in ("double", "float") else ", or a wider type's literal"),
                )
        elif kind is None:  # an INT, a BIGINT, or beyond them a DECIMAL(p, s)
            digits = Decimal(text).as_tuple()
            scale = max(0, -int(digits.exponent))
            precision = max(len(digits.digits), scale)
            if precision > MAX_DECIMAL_PRECISION:
                raise SqlSyntaxError(
                    f"[DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION] Decimal precision {precision} "
                    f"exceeds max precision {MAX_DECIMAL_PRECISION} (the literal {text})",
                    sql=sql,
                    pos=pos,
                    hint="write it with at most 38 digits, or as a DOUBLE (with an "
                    "exponent: 1.5E40)",
                )


#: Spark's largest DECIMAL precision
MAX_DECIMAL_PRECISION = 38


#: a typed literal as written (``DATE '2024-01-01'``), which Spark reads when it parses
_TYPED_LITERAL = re.compile(r"(?i)\b(DATE|TIMESTAMP(?:_LTZ|_NTZ)?)\s*$")
_LITERAL_READERS: dict[str, Callable[[str], object]] = {
    "DATE": date_of_text,
    "TIMESTAMP": partial(timestamp_of_text, session=timezone.utc),
    "TIMESTAMP_LTZ": partial(timestamp_of_text, session=timezone.utc),
    # (a text it cannot read as a TIMESTAMP's is no TIMESTAMP_NTZ's either)
    "TIMESTAMP_NTZ": partial(timestamp_of_text, session=timezone.utc),
}


#: the words Spark reads as a date or timestamp (``DATE 'today'``, ``TIMESTAMP 'epoch'``)
_SPECIAL_DATETIMES = frozenset({"epoch", "now", "today", "yesterday", "tomorrow"})


def _check_typed_literals(tree: exp.Expression, expr: SqlExpr, sql: str) -> None:
    """Reject a DATE or TIMESTAMP literal whose text Spark does not read (``DATE 'x'``,
    ``DATE '2024-13-01'``): Spark's parser refuses the query (INVALID_TYPED_LITERAL);
    sqlglot reads a cast, which would fail only while the job runs under ANSI mode and be
    NULL without it."""
    for cast in tree.find_all(exp.Cast):
        value = cast.this
        if type(cast) is not exp.Cast or not (isinstance(value, exp.Literal) and value.is_string):
            continue
        quote = node_pos(value, expr.pos, sql)  # the literal's text, after its type
        written = _TYPED_LITERAL.search(sql, expr.pos, quote)
        if written is None:  # ``DATE('x')``: a cast, Spark's to evaluate
            continue
        start = written.start()
        kind = written.group(1).upper()
        if value.this.strip().lower() in _SPECIAL_DATETIMES:
            continue
        try:
            _LITERAL_READERS[kind](value.this)
        except TimestampTextError:
            raise SqlSyntaxError(
                f'[INVALID_TYPED_LITERAL] The value of the typed literal "{kind}" is invalid: '
                f"{exp.Literal.string(value.this).sql()}",
                sql=sql,
                pos=start,
                hint="write a date as DATE 'yyyy-mm-dd', a timestamp as TIMESTAMP 'yyyy-mm-dd "
                "hh:mm:ss'",
            ) from None
        except TimestampNotComputed:  # a time without a date: Spark's to read
            continue


def _check_type_parameters(tree: exp.Expression, expr: SqlExpr, sql: str) -> None:
    """Reject a type's parameters that Spark's parser or ``DecimalType`` refuses
    (``DECIMAL('a', 2)``, ``DECIMAL(50, 2)``, ``DECIMAL(5, 9)``, ``INT(5)``): sqlglot
    reads them, and the planner's type inference would then fail deep inside or type the
    value wrongly, while Spark itself would refuse the query."""
    for cast in tree.find_all(exp.Cast):
        target = cast.args.get("to")
        if target is not None and not isinstance(target, exp.DataType):
            # ``x::struct<a:int>(y)``: sqlglot reads a call of the type as the target
            start = node_pos(cast, expr.pos, sql)
            colons = sql.find("::", start, expr.pos + len(expr.text))
            raise SqlSyntaxError(
                "a CAST or :: needs a type after it, not an expression",
                sql=sql,
                pos=colons if colons >= 0 else start,
                hint="write x::type or CAST(x AS type), e.g. x::int",
            )
    for node in tree.find_all(exp.DataType):
        params = [p for p in node.expressions if isinstance(p, exp.DataTypeParam)]
        if not params:
            continue
        name = node.this.value if isinstance(node.this, exp.DataType.Type) else str(node.this)
        if node.this != exp.DataType.Type.DECIMAL:
            raise SqlSyntaxError(
                f"type {name} takes no parameters",
                sql=sql,
                pos=node_pos(params[0], expr.pos, sql),
                hint=f"write {name} without the parentheses",
            )
        _check_decimal(params, expr, sql)


def _check_decimal(params: list[exp.DataTypeParam], expr: SqlExpr, sql: str) -> None:
    """DECIMAL(precision[, scale]): integers, 1 <= precision <= 38, 0 <= scale <= precision."""
    hint = f"write DECIMAL(p, s) with 1 <= p <= {MAX_DECIMAL_PRECISION} and 0 <= s <= p"
    if len(params) > 2:
        raise SqlSyntaxError(
            "DECIMAL takes at most two parameters (precision, scale)",
            sql=sql,
            pos=node_pos(params[2], expr.pos, sql),
            hint=hint,
        )
    values = []
    for what, param in zip(("precision", "scale"), params):
        value = param.this
        digits = value.this if isinstance(value, exp.Literal) and not value.is_string else ""
        if not re.fullmatch(r"\d+", str(digits)):
            raise SqlSyntaxError(
                f"the {what} of DECIMAL must be an integer",
                sql=sql,
                pos=node_pos(param, expr.pos, sql),
                hint=hint,
            )
        values.append(int(digits))
    precision, scale = values[0], values[1] if len(values) > 1 else 0
    if precision > MAX_DECIMAL_PRECISION:
        raise SemanticError(
            f"DECIMAL precision {precision} exceeds the maximum precision {MAX_DECIMAL_PRECISION}",
            sql=sql,
            pos=node_pos(params[0], expr.pos, sql),
            hint=hint,
        )
    if precision == 0:
        # Spark takes DECIMAL(0, 0), which holds only 0; Arrow, which carries values
        # between Spark and the matcher, has no decimal without digits
        raise UnsupportedError(
            "DECIMAL precision 0 is not supported",
            sql=sql,
            pos=node_pos(params[0], expr.pos, sql),
            hint=hint,
        )
    if scale > precision:
        raise SemanticError(
            f"DECIMAL scale {scale} is greater than its precision {precision}",
            sql=sql,
            pos=node_pos(params[1], expr.pos, sql),
            hint=hint,
        )


def _offset_of(text: str, line: int, col: int) -> int:
    lines = text.split("\n")
    line = max(1, min(line, len(lines)))
    return sum(len(x) + 1 for x in lines[: line - 1]) + max(0, col - 1)


# A node without a token of its own starts before its first positioned leaf: the text
# between is one of these (after the leaf, going backwards, whitespace skipped).
_LEADING: dict[type, tuple[str, ...]] = {
    exp.Neg: ("-",),
    exp.Paren: ("(",),
    exp.Subquery: ("(",),
    exp.Not: ("NOT",),
    # a typed literal (``DATE'2024-01-01'``) is a CAST of its string, at the type's word
    exp.Cast: ("CAST(", "CAST (", "TIMESTAMP_NTZ", "TIMESTAMP_LTZ", "TIMESTAMP", "DATE"),
    exp.TryCast: ("TRY_CAST(", "CAST(", "TRY_CAST (", "CAST ("),
    exp.Exists: ("EXISTS(", "EXISTS ("),
    exp.Interval: ("INTERVAL",),  # ``INTERVAL '1' DAY``: of its string's position
}


def node_pos(node: exp.Expression, base: int, sql: str | None = None) -> int:
    """Best known absolute offset of ``node``: its earliest positioned token.

    ``base`` is the offset of the expression text in ``sql``. With ``sql`` given, a node
    that starts with a token sqlglot keeps no position of (``-x``, ``(x)``, ``NOT x``,
    ``CAST(x ...)``) is placed on that token.
    """
    starts = _starts(node)
    if not starts:
        return _unpositioned(node, base, sql)
    pos = base + min(starts)
    if sql is not None:
        pos = _leading(node, pos, base, sql)
        if isinstance(node, exp.Func) and "start" not in node.meta and type(node) not in _LEADING:
            pos = _called_at(pos, base, sql)
        left = node
        while isinstance(left, exp.Binary) and isinstance(left.this, exp.Expression):
            left = left.this  # ``CAST(x AS INT) > 0`` starts where its left operand does
        if left is not node and type(left) in _LEADING:
            # only from the operand's own tokens: placing an unpositioned one asks its
            # parent, which would ask this node again
            inner = _starts(left)
            if inner:
                pos = min(pos, _leading(left, base + min(inner), base, sql))
            elif isinstance(left.unnest(), exp.Interval) or (  # ``INTERVAL 90 MINUTES + x``
                isinstance(left, exp.Neg) and isinstance(left.this, exp.Interval)
            ):
                pos = _leading(left, _interval_before(pos, base, sql), base, sql)
    return pos


_INTERVAL_WORD = re.compile(r"(?i)\bINTERVAL\b")
#: intervals and the arithmetic between them, up to the position searched: no other
#: operand (a comparison, AND, a call's parenthesis or comma) in between
_INTERVAL_RUN = re.compile(
    r"(?i)INTERVAL(?:\s+|'[^']*'|\d+(?:\.\d*)?|[-+*/%]|(?!(?:AND|OR|NOT|IS|IN|BETWEEN|"
    r"LIKE|RLIKE|ILIKE|CASE|WHEN|THEN|ELSE|END|DIV)\b)[A-Za-z_]\w*)*"
)


def _interval_before(pos: int, base: int, sql: str) -> int:
    """Where the intervals that end right before ``pos`` (an operator between) start,
    ``INTERVAL 90 MINUTES`` having no position of its own; ``pos`` if none does."""
    for keyword in _INTERVAL_WORD.finditer(sql, base, pos):
        if _INTERVAL_RUN.fullmatch(sql, keyword.start(), pos):
            return keyword.start()
    return pos


_NAME_BEFORE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(\s*$")


def _called_at(pos: int, base: int, sql: str) -> int:
    """Where a call sqlglot keeps no position of starts: its name, written before the
    parenthesis that opens right before its first argument (``substring(x, 2)``), or
    ``pos`` where no name is written there."""
    found = _NAME_BEFORE.search(sql, base, pos)
    return found.start() if found is not None else pos


def _starts(node: exp.Expression) -> list[int]:
    return [n.meta["start"] for n in node.walk() if "start" in (getattr(n, "meta", None) or {})]


def _ends(node: exp.Expression) -> list[int]:
    return [n.meta["end"] for n in node.walk() if "end" in (getattr(n, "meta", None) or {})]


def _unpositioned(node: exp.Expression, base: int, sql: str | None) -> int:
    """Place a node none of whose tokens has a position (``NULL``, ``TRUE``): find its text
    after the siblings before it, else fall back to its parent's position."""
    parent = node.parent
    if parent is None:
        return base
    if sql is not None:
        after = None
        for child in parent.iter_expressions():
            if child is node:
                break
            ends = _ends(child)
            if ends:
                after = max(ends) + 1
        if after is None:
            after = node_pos(parent, base, sql) - base
        try:
            text = node.sql(dialect=MatchRecognizeDialect).upper()
        except UnsupportedSqlError:  # its text is unknown: placed at its parent
            text = ""
        if isinstance(node, exp.Interval):  # its number is written unquoted (``INTERVAL 1 DAY``)
            found = _INTERVAL_WORD.search(sql, base + after)
            return found.start() if found is not None else node_pos(parent, base, sql)
        i = sql.upper().find(text, base + after) if text else -1
        if i >= 0:
            return i
    return node_pos(parent, base, sql)


def _leading(node: exp.Expression, pos: int, base: int, sql: str) -> int:
    prefixes = next((p for cls, p in _LEADING.items() if type(node) is cls), None)
    if prefixes is None:
        return pos
    inner = node.args.get("this")
    while isinstance(inner, exp.Binary) and isinstance(inner.this, exp.Expression):
        inner = inner.this  # CAST(CAST(x AS t) * y AS u) starts before its operand's CAST
    if (
        isinstance(inner, exp.Expression)
        and any(type(inner) is cls for cls in _LEADING)
        and _starts(inner)  # an unpositioned one would be placed by asking this node
    ):
        pos = min(pos, node_pos(inner, base, sql))  # -(x), NOT (x), CAST((x) AS t)
    i = pos
    while i > base and sql[i - 1].isspace():
        i -= 1
    for prefix in prefixes:
        start = i - len(prefix)
        if start >= base and sql[start:i].upper() == prefix:
            return start
    return pos


def call_name(node: exp.Expression) -> tuple[str | None, str]:
    """For a call node: (``RUNNING``/``FINAL``/None, upper-case function name)."""
    if isinstance(node, exp.Anonymous):
        name = str(node.this)
        m = MARKED_CALL.match(name)
        if m:
            return m.group(1).upper(), m.group(2).upper()
        return None, name.upper()
    return None, (node.sql_name() if isinstance(node, exp.Func) else type(node).__name__).upper()
