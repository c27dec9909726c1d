"""``spark.sql``'s arguments for ``matchrec.sql``: ``args`` and keyword ``{name}`` values.

``spark.sql(query, args, **kwargs)`` first formats ``query`` with ``kwargs`` (a
DataFrame becomes a name that reads it, a Column its name, a string a quoted literal,
another value its ``str``), then binds the parameter markers of ``args``. ``matchrec.sql``
does the same before it reads the query, so that both may appear anywhere, the
MATCH_RECOGNIZE clause included: a DataFrame is handed to Spark by reference (the names
``sql_with_frames`` passes), a parameter's value is written into the text as a literal
of the type Spark would bind (``matchrec.sql_literals``). An error found in that text
is told at the text the user wrote (:meth:`QueryArguments.placed`).
"""

from __future__ import annotations

import re
import string
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from matchrec.planner.statement import bound_parameters
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql.types import ArrayType, DataType, MapType, StructType

from matchrec.errors import MatchRecognizeError, UsageError, line_col
from matchrec.sql_literals import sql_literal
from matchrec.text_edits import EditedText

from .session import is_connect

#: ``{{``, ``}}``, a replacement field ``{...}``, or a lone brace (an error, as Python's)
_FORMAT = re.compile(r"\{\{|\}\}|\{([^{}]*)\}|[{}]")


@dataclass
class QueryArguments:
    """The query as matchrec reads it: ``text``, the DataFrames its names stand for, and
    the edits that made it from the user's ``original``."""

    original: str
    text: str
    frames: dict[str, DataFrame] = field(default_factory=dict)
    edits: list[EditedText] = field(default_factory=list)

    def to_original(self, pos: int) -> int:
        """The offset in ``original`` of offset ``pos`` of ``text``."""
        for edit in reversed(self.edits):
            pos = edit.to_original(pos)
        return pos

    def placed(self, err: MatchRecognizeError) -> MatchRecognizeError:
        """``err`` (about ``text``) with its caret in ``original``; ``err`` itself when it
        is about another text or nothing was edited."""
        if not self.edits or err.sql != self.text or err.pos is None:
            return err
        moved = type(err).__new__(type(err))  # its class may take more than a message
        moved.__dict__.update(err.__dict__)
        moved.sql, moved.pos = self.original, self.to_original(err.pos)
        moved.line, moved.column = line_col(self.original, moved.pos)
        moved.args = (moved.render(),)
        return moved


def formatted(spark: SparkSession, query: str, kwargs: Mapping[str, Any]) -> QueryArguments:
    """``query`` formatted with ``kwargs`` as ``spark.sql`` formats it, each DataFrame a
    unique name (as long as the name PySpark gives it, so that Spark's error offsets
    into the text it saw stay right) with that DataFrame in ``frames``."""
    formatter = _Formatter(spark)
    replacements: list[tuple[int, int, str]] = []
    for m in _FORMAT.finditer(query):
        token = m.group()
        if token in ("{{", "}}"):
            replacements.append((m.start(), m.end(), token[0]))
        elif m.group(1) is None:
            raise UsageError(
                f"a single '{token}' in a query formatted with keyword arguments",
                sql=query,
                pos=m.start(),
                hint=f"with keyword arguments the query is formatted as str.format does "
                f"(as spark.sql does): write {token}{token} for a brace of the query",
            )
        else:
            try:
                value = formatter.vformat(token, (), kwargs)
            except (KeyError, IndexError, AttributeError, ValueError, TypeError) as err:
                raise _format_error(query, m, kwargs, err) from None
            replacements.append((m.start(), m.end(), value))
    edit = EditedText.of(query, replacements)
    return QueryArguments(query, edit.text, formatter.frames, [edit])


#: a replacement field that is a row pattern quantifier (``{2,3}``, ``{,5}``, ``{4}``)
_QUANTIFIER = re.compile(r"\s*\d*\s*(?:,\s*\d*\s*)?")


def _format_error(
    query: str, field: re.Match, kwargs: Mapping[str, Any], err: Exception
) -> UsageError:
    """The error of a replacement field ``{...}`` that ``kwargs`` do not fill, at it."""
    token, name = field.group(), field.group(1)
    formatting = (
        "with keyword arguments the query is formatted as str.format does (as spark.sql does)"
    )
    if _QUANTIFIER.fullmatch(name):
        return UsageError(
            f"{token} reads as a keyword argument's place, not a quantifier",
            sql=query,
            pos=field.start(),
            hint=f"{formatting}: double the braces of a quantifier, {{{token}}}",
        )
    if isinstance(err, (KeyError, IndexError)):
        known = ", ".join(sorted(kwargs)) or "none"
        return UsageError(
            f"no keyword argument fills {token} (passed: {known})",
            sql=query,
            pos=field.start(),
            hint=f"{formatting}: pass it, or write {{{token}}} for braces of the query",
        )
    return UsageError(
        f"cannot format {token} with the keyword arguments: {err}",
        sql=query,
        pos=field.start(),
        hint=f"{formatting}: write {{{token}}} for braces of the query",
    )


def bound(arguments: QueryArguments, spark: SparkSession, args: Any) -> QueryArguments:
    """``arguments`` with the parameter markers of its text replaced by the literals of
    ``args`` (a dict for ``:name``, a list for ``?``, None for none)."""
    if args is not None and not isinstance(args, (dict, list)):
        raise UsageError(
            f"args must be a dict or a list, not {type(args).__name__}",
            hint="pass parameter values as a dict for :name markers or a list for ? markers",
        )
    if isinstance(args, dict):
        values: Mapping[str, str] | Sequence[str] | None = {
            k: _literal(spark, v) for k, v in args.items()
        }
    elif isinstance(args, list):
        values = [_literal(spark, v) for v in args]
    else:
        values = None
    edit = bound_parameters(arguments.text, values)
    if not edit.spans:
        return arguments
    return QueryArguments(arguments.original, edit.text, arguments.frames, [*arguments.edits, edit])


def _literal(spark: SparkSession, value: Any) -> str:
    """A parameter's value as Spark SQL: a Column (``F.array(...)``) as Spark writes its
    expression (classic PySpark only), any other value as ``lit`` types it."""
    if isinstance(value, Column):
        if is_connect(spark):
            return _evaluated(spark, value)
        return spark._jsparkSession.expression(value._jc).sql()
    return sql_literal(value)


def _evaluated(spark: SparkSession, column: Column) -> str:
    """A Column's value as a literal of its type, evaluated by a Spark Connect server
    (whose client cannot write a Column as SQL); ``spark.sql`` takes only constant
    Columns (``lit``, ``array(lit(..))``, ...) as parameter values."""
    row = spark.range(1).select(column.alias("v"))
    return typed_literal(row.first()[0], row.schema["v"].dataType)


def typed_literal(value: Any, dtype: DataType) -> str:
    """``value``, as PySpark collects a value of ``dtype``, as Spark SQL of that type."""
    if value is None:
        return f"CAST(NULL AS {dtype.simpleString()})"
    if isinstance(dtype, ArrayType):
        items = ", ".join(typed_literal(v, dtype.elementType) for v in value)
        return f"CAST(array({items}) AS {dtype.simpleString()})"
    if isinstance(dtype, MapType):
        pairs = ", ".join(
            f"{typed_literal(k, dtype.keyType)}, {typed_literal(v, dtype.valueType)}"
            for k, v in value.items()
        )
        return f"CAST(map({pairs}) AS {dtype.simpleString()})"
    if isinstance(dtype, StructType):
        fields = ", ".join(
            f"{sql_literal(f.name)}, {typed_literal(v, f.dataType)}"
            for f, v in zip(dtype.fields, value)
        )
        return f"named_struct({fields})"
    return f"CAST({sql_literal(value)} AS {dtype.simpleString()})"


class _Formatter(string.Formatter):
    """PySpark's formatter of ``spark.sql``'s keyword arguments, but a DataFrame becomes
    a name kept in ``frames`` (handed to Spark by reference when the query runs) instead
    of a temporary view of this call."""

    def __init__(self, spark: SparkSession):
        super().__init__()
        if is_connect(spark):
            from pyspark.sql.connect.sql_formatter import SQLStringFormatter
        else:
            from pyspark.sql.sql_formatter import SQLStringFormatter
        self.pyspark = SQLStringFormatter(spark)
        self.length = len("_pyspark_connect_temp_view_" if is_connect(spark) else "_pyspark_") + 32
        self.frames: dict[str, DataFrame] = {}

    def get_field(self, field_name: str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
        value, first = super().get_field(field_name, args, kwargs)
        if isinstance(value, DataFrame):
            return self._name(value), first
        return self.pyspark._convert_value(value, field_name), first

    def _name(self, df: DataFrame) -> str:
        for name, known in self.frames.items():
            if known is df:
                return name
        name = ("__matchrec_df_" + uuid.uuid4().hex + uuid.uuid4().hex)[: self.length]
        self.frames[name] = df
        return name
