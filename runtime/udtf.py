"""The SQL table function: ``match_recognize(TABLE(t), '<MATCH_RECOGNIZE clause body>')``.

``matchrec.register(spark)`` registers a Python UDTF so that plain ``spark.sql`` users
can write::

    SELECT * FROM match_recognize(
      TABLE(ticker),
      'PARTITION BY symbol ORDER BY ts
       MEASURES FIRST(A.price) AS start_price, LAST(B.price) AS bottom
       PATTERN (A B+) DEFINE B AS price < PREV(price)'
    )

The second argument is exactly the text inside ``MATCH_RECOGNIZE ( ... )`` and must be a
constant string; quotes inside it are doubled as in any SQL string literal
(``DEFINE A AS s = ''x''``), and error positions refer to the string's value. The
result has the same rows, column names and types as
``matchrec.sql(spark, "SELECT * FROM ticker MATCH_RECOGNIZE (<same body>)")``.

PARTITION BY and ORDER BY belong in the string only. With an ORDER BY, the call must
not add ``PARTITION BY``, ``ORDER BY`` or ``WITH SINGLE PARTITION`` after ``TABLE(t)``
beyond the same keys: other keys split the clause's partitions and fail the query with
matchrec's message; without one, Spark rejects the call
(TABLE_VALUED_FUNCTION_REQUIRED_METADATA_INCOMPATIBLE_WITH_CALL).

How it runs (PySpark 4.3, an Arrow UDTF with a TABLE argument and ``analyze``):

* ``analyze`` (in a Python worker, no Spark session) parses and plans the body against
  the input schema, infers every measure's Spark type (``planner.measure_eval``) and
  returns the output schema and a ``select`` list: the input columns, the plan's
  row-local expressions (Spark evaluates them in the JVM, LAG/LEAD windows included)
  and ``row_number() OVER (PARTITION BY keys ORDER BY ...)``. That window makes Spark
  shuffle by the keys and sort each Spark partition by keys and ORDER BY once, for
  DEFINE's LAG/LEAD and the matcher alike; asking for ``partitionBy``/``orderBy`` as
  well would shuffle and sort a second time (Spark does not see that the window's
  partitioning is the table argument's), and would give every key its own UDTF
  instance. Without ORDER BY, ``partitionBy`` (or ``withSinglePartition``) groups the
  rows. Errors are ours, shown in Spark's
  TABLE_VALUED_FUNCTION_FAILED_TO_ANALYZE_IN_PYTHON.
* ``eval`` gets Arrow batches of sorted rows (many keys), checks the order by the row
  numbers (:class:`RowOrder`) and feeds them to the same :class:`PartitionMatcher` as
  the batch job's ``mapInArrow``: complete partitions are matched together, long ones
  in pieces; ``terminate`` matches what is left. Measures are computed in Python
  (:func:`measured_rows`), since nothing can be projected after a UDTF inside it: one
  that is an atom as it is keeps the engine's Arrow array.

PySpark's ``arrow_udtf`` refuses a class with ``analyze`` (SPARK-53286) in its Python
client only; :func:`arrow_udtf_with_analyze` builds the same UDTF without that check.

Known limits: functions of one navigated row move inside the navigation (the plan is
made with ``python_measures=True``), so Spark computes them; what combines several rows
is limited to what ``planner.pyeval`` evaluates plus CAST (a session UDF, SQL or Python,
of values of several rows is refused: there is no session to call it from), and a measure
whose type ``planner.measure_eval`` cannot infer must be wrapped in a CAST. PySpark passes
no YEAR-MONTH interval to or from a Python UDTF: a measure of that type, or a row-local
value of it that the matcher would read, is refused with a caret.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import tzinfo
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import sqlglot
from matchrec.planner.function_types import NO_NULL_ELEMENTS, NOT_NULL_FIELD, is_year_month
from matchrec.planner.legacy_intervals import LEGACY_INTERVALS_CONF, refuse_legacy_intervals
from matchrec.planner.measure_eval import (
    COLLATION,
    CompiledMeasure,
    CompiledMeasures,
    check_operand_types,
    compile_measures,
    decimal_params,
    infer_type,
    type_env,
    type_integer_widths,
)
from matchrec.planner.nesting_depth import room_to_nest
from matchrec.planner.pattern_literals import regex_check
from matchrec.planner.plan import (
    MatchPlan,
    check_output_columns,
    plan_clause,
    refuse_late_rows,
    refuse_untimed_within,
    window_spec,
)
from matchrec.planner.sqltext import (
    MatchRecognizeDialect,
    backslash_error,
    backslash_string,
    double_quoted_string,
)
from matchrec.planner.statement import read_body
from pyspark.sql import SparkSession
from pyspark.sql.pandas.types import to_arrow_type
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    ByteType,
    DataType,
    DateType,
    DayTimeIntervalType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    MapType,
    NullType,
    ShortType,
    StringType,
    StructField,
    StructType,
    TimestampNTZType,
    TimestampType,
    VariantType,
)
from pyspark.sql.udtf import (
    AnalyzeArgument,
    AnalyzeResult,
    PartitioningColumn,
    SelectedColumn,
)
from pyspark.util import PythonEvalType
from sqlglot import exp

from matchrec import ast
from matchrec.arrow_rows import arrow_array, group_starts, python_values
from matchrec.engine import PartitionOutput
from matchrec.errors import (
    MatchRecognizeError,
    MatchRuntimeError,
    SemanticError,
    UnsupportedError,
)
from matchrec.function_settings import use_settings
from matchrec.sql_values import with_wide_decimals
from matchrec.zones import SESSION_ZONE, zone_named

from . import shared_origins
from .arrow_safe import holds, nullable_voids, refuse_uncarried
from .collated_keys import boundary_keys, collated_stand_ins, is_collated
from .partitions import DEFAULT_CHUNK_ROWS, DEFAULT_GROUP_ROWS, PartitionMatcher, key_at
from .session import (
    DOUBLE_QUOTED_IDENTIFIERS_CONF,
    ESCAPED_STRING_LITERALS_CONF,
    task_ansi_enabled,
    task_function_settings,
    task_setting,
)
from .sort_keys import check_sortable
from .type_text import type_text

#: the column metadata Spark's withWatermark sets (as runtime.streaming reads it; not
#: imported from there: this module runs on executors, which need no pandas)
WATERMARK_DELAY = "spark.watermarkDelayMs"

#: the column that numbers a partition's rows in ORDER BY order (see ``build_program``)
ROW_NUMBER = "__mr_rn"
#: the column that names the session time zone, where no input column carries it
ZONE = "__mr_tz"

T = exp.DataType.Type
#: the meta key of a sqlglot type made from a Spark type: that Spark type
EXACT_SPARK_TYPE = "mr_spark_type"

_SIMPLE_TYPES: dict[exp.DataType.Type, DataType] = {
    T.TINYINT: ByteType(),
    T.SMALLINT: ShortType(),
    T.INT: IntegerType(),
    T.BIGINT: LongType(),
    T.FLOAT: FloatType(),
    T.DOUBLE: DoubleType(),
    T.TEXT: StringType(),
    T.VARCHAR: StringType(),
    T.CHAR: StringType(),
    T.BOOLEAN: BooleanType(),
    T.DATE: DateType(),
    T.TIMESTAMP: TimestampType(),
    T.TIMESTAMPTZ: TimestampType(),
    T.TIMESTAMPLTZ: TimestampType(),
    T.TIMESTAMPNTZ: TimestampNTZType(),
    T.BINARY: BinaryType(),
    T.NULL: NullType(),
    T.VARIANT: VariantType(),
}


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def to_sqlglot_type(t: DataType) -> exp.DataType:
    """A Spark type as the sqlglot type ``planner.measure_eval`` reasons with."""
    if isinstance(t, NullType):
        return exp.DataType(this=T.NULL)
    if is_collated(t):  # sqlglot has no collations: a STRING that remembers its own
        result = exp.DataType.build("string", dialect="spark")
        result.meta[EXACT_SPARK_TYPE] = t
        result.meta[COLLATION] = t.collation  # type: ignore[attr-defined]
        return result
    try:
        result = exp.DataType.build(type_text(t), dialect="spark")
    except Exception:  # a type sqlglot cannot spell: unknown, never guessed
        return exp.DataType(this=T.UNKNOWN)
    # the exact type (nested nullability included) for a measure that returns the
    # column's value as it is
    result.meta[EXACT_SPARK_TYPE] = t
    if (isinstance(t, ArrayType) and not t.containsNull) or (
        isinstance(t, MapType) and not t.valueContainsNull
    ):
        result.meta[NO_NULL_ELEMENTS] = True  # what transform(t, x -> ...) reasons with
    return result


def to_spark_type(t: exp.DataType) -> DataType | None:
    """The Spark type of an inferred measure type, or None if it has no safe equivalent."""
    exact = t.meta.get(EXACT_SPARK_TYPE)
    if isinstance(exact, DataType):
        return exact
    if t.meta.get(COLLATION) and t.this in (T.TEXT, T.VARCHAR):  # upper(x) of a collated x
        return StringType(t.meta[COLLATION])
    if t.this in _SIMPLE_TYPES:
        return _SIMPLE_TYPES[t.this]
    if t.this == T.DECIMAL:
        precision, scale = decimal_params(t) or (10, 0)
        return DecimalType(precision, scale)
    if t.this == T.ARRAY and t.expressions:
        inner = to_spark_type(t.expressions[0])
        nulls = not t.meta.get(NO_NULL_ELEMENTS)
        return ArrayType(inner, nulls) if inner is not None else None
    if t.this == T.MAP and len(t.expressions) == 2:
        key, value = (to_spark_type(e) for e in t.expressions)
        nulls = not t.meta.get(NO_NULL_ELEMENTS)
        return MapType(key, value, nulls) if key is not None and value is not None else None
    if t.this == T.STRUCT:
        fields = []
        for f in t.expressions:
            kind = f.args.get("kind") if isinstance(f, exp.ColumnDef) else None
            inner = to_spark_type(kind) if isinstance(kind, exp.DataType) else None
            if inner is None:
                return None
            fields.append(StructField(f.name, inner, not f.meta.get(NOT_NULL_FIELD)))
        return StructType(fields)
    if isinstance(t.this, exp.Interval):
        return _day_time_interval(t.this)
    return None


_DAY_TIME_FIELDS = {"DAY": 0, "HOUR": 1, "MINUTE": 2, "SECOND": 3}


def _day_time_interval(interval: exp.Interval) -> DataType | None:
    """``INTERVAL DAY``, ``INTERVAL DAY TO SECOND``, ...: a Spark day-time interval type."""
    unit = interval.args.get("unit")
    if isinstance(unit, exp.IntervalSpan):
        start, end = unit.this.name.upper(), unit.expression.name.upper()
    elif isinstance(unit, exp.Var):
        start = end = unit.name.upper()
    else:
        return None
    if start not in _DAY_TIME_FIELDS or end not in _DAY_TIME_FIELDS:
        return None
    return DayTimeIntervalType(_DAY_TIME_FIELDS[start], _DAY_TIME_FIELDS[end])


# --------------------------------------------------------------------------- the plan


@dataclass
class _Program:
    """Everything one table-function call needs, built from the body and input schema."""

    plan: MatchPlan
    schema: StructType  # output
    # the rows ``eval`` receives: input columns, the plan's precomputed row-local
    # expressions, then the subqueries of MEASURES
    selected: list[tuple[str, str]]  # (column name, Spark SQL) beyond the input columns
    names: list[str]
    leading: list[int]  # row positions output before the measures
    trailing: list[int]  # row positions output after the measures (ALL ROWS)
    subqueries: list[int]  # row positions of the MEASURES subqueries
    measures: list[CompiledMeasure]
    arrow_schema: pa.Schema  # the output as Arrow batches
    bounds: list[str]  # the columns whose changes are partition boundaries (collated_keys)


def build_program(body: str, input_schema: StructType, ansi: bool = True) -> _Program:
    """Parse, plan and type ``body`` against ``input_schema`` (raises our errors) under
    ``spark.sql.ansi.enabled`` = ``ansi``. ``analyze`` has no session to read it from and
    plans under ANSI mode (Spark 4's default), whose type checks are the stricter; each
    worker plans again under the setting of the session running the query."""
    clause = read_body(body)
    with room_to_nest(clause.sql):
        return _build_program(clause, input_schema, ansi)


def _build_program(
    clause: ast.MatchRecognizeClause, input_schema: StructType, ansi: bool
) -> _Program:
    refuse_late_rows(clause, "the table function (it takes batch tables only)")
    refuse_uncarried(input_schema, "input", clause.sql)
    if clause.rows_per_match.timeouts:
        raise UnsupportedError(
            "ONE ROW PER MATCH WITH TIMEOUTS is not available in the table function",
            sql=clause.sql,
            pos=clause.rows_per_match.timeouts_pos,
            hint="run the query with matchrec.sql(spark, query), which adds the timed-out "
            "partial matches with match_status, or drop WITH TIMEOUTS",
        )
    columns = list(input_schema.names)
    plan = plan_clause(
        clause,
        columns,
        ansi=ansi,
        python_measures=True,
        column_types={f.name: type_text(f.dataType) for f in input_schema.fields},
        pattern_check=regex_check,
    )
    check_output_columns(clause)
    fields = {f.name: f for f in input_schema.fields}
    _check_within(plan, fields)
    check_sortable(plan, fields)
    column_types = {f.name: to_sqlglot_type(f.dataType) for f in input_schema.fields}
    type_integer_widths(plan, column_types)
    check_operand_types(plan, column_types)
    compiled = compile_measures(plan, column_types)
    measures = compiled.measures
    measure_fields = []
    for m, spec in zip(measures, clause.measures):
        spark_type = to_spark_type(m.type)
        if spark_type is None:
            raise UnsupportedError(
                f"measure {m.alias!r} has type {m.type.sql('spark')}, which the table "
                "function cannot return",
                sql=clause.sql,
                pos=spec.expr.pos,
                hint=_YEAR_MONTH_HINT
                if is_year_month(m.type)
                else "wrap it in CAST(... AS type), or use matchrec.sql",
            )
        twice = _field_named_twice(spark_type)
        if twice is not None:
            raise UnsupportedError(
                f"measure {m.alias!r} is a STRUCT with two fields named {twice!r} (Spark names "
                "a field after its column), which a Python table function cannot return "
                "(PySpark renames them)",
                sql=clause.sql,
                pos=spec.expr.pos,
                hint="name the fields: named_struct('first', FIRST(x), 'last', LAST(x)) or "
                "struct(FIRST(x) AS first, LAST(x) AS last), or use matchrec.sql",
            )
        measure_fields.append(StructField(m.alias, nullable_voids(spark_type), True))
    _refuse_year_month_columns(plan, column_types)
    _refuse_year_month_constants(plan, column_types, compiled)

    position = {c: i for i, c in enumerate(columns)}
    keys = plan.partition_by
    selected = list(plan.precomputed) + [
        (f"__mr_s{i}", text) for i, text in enumerate(compiled.subqueries)
    ]
    if _reads_zone(input_schema, measure_fields, clause.sql):
        selected.append((ZONE, "current_timezone()"))
    if plan.order_by:
        # Spark's Window operator sorts each partition for this number (and for any
        # LAG/LEAD of DEFINE, over the same window): the rows reach the UDTF in order
        selected.append((ROW_NUMBER, f"row_number() OVER ({window_spec(keys, plan.order_by)})"))
    stand_ins = collated_stand_ins(input_schema, keys, plan.order_by)
    selected += list(stand_ins.values())
    if plan.one_row:
        lead_names, trail_names = list(keys), []
    else:
        order_cols = [c for c, _, _ in plan.order_by]
        lead_names = keys + order_cols
        trail_names = [c for c in columns if c not in keys and c not in order_cols]
    schema = StructType(
        [fields[c] for c in lead_names] + measure_fields + [fields[c] for c in trail_names]
    )
    if not plan.one_row:
        _refuse_repeated_keys(clause, plan)
    _refuse_repeated_names(clause, lead_names + trail_names)
    if not schema.fields:
        raise UnsupportedError(
            "this MATCH_RECOGNIZE has no output columns",
            sql=clause.sql,
            pos=0,
            hint="add MEASURES (or PARTITION BY), or use matchrec.sql",
        )
    refuse_uncarried(schema, "output", clause.sql)
    return _Program(
        plan=plan,
        schema=schema,
        selected=selected,
        names=columns + [name for name, _ in selected],
        leading=[position[c] for c in lead_names],
        trailing=[position[c] for c in trail_names],
        subqueries=list(range(len(columns) + len(plan.precomputed), len(columns) + len(selected))),
        measures=measures,
        arrow_schema=pa.schema(list(to_arrow_type(schema, timezone="UTC"))),
        bounds=boundary_keys(keys, stand_ins),
    )


_YEAR_MONTH_HINT = (
    "PySpark passes no YEAR-MONTH interval to or from a Python table function: compute "
    "with months as numbers (e.g. add_months), or use matchrec.sql"
)


def _refuse_year_month_columns(plan: MatchPlan, columns: dict[str, exp.DataType]) -> None:
    """Refuse a row-local value that Spark would compute as a YEAR-MONTH interval for the
    matcher to read (``LAST(d) + make_ym_interval(0, FIRST(n))``): PySpark cannot hand it
    to the table function (its worker failed on it with an Arrow KeyError)."""
    env = type_env(plan, columns)
    for name, text in plan.precomputed:
        if is_year_month(env.column_type(name)):
            raise UnsupportedError(
                f"the table function cannot read {text} of each row: it is a YEAR-MONTH interval",
                sql=plan.clause.sql,
                pos=plan.origins.get(name, 0),
                hint=_YEAR_MONTH_HINT,
            )


def _refuse_year_month_constants(
    plan: MatchPlan, columns: dict[str, exp.DataType], compiled: CompiledMeasures
) -> None:
    """Refuse a constant of MEASURES that Spark would compute as a YEAR-MONTH interval
    for the table function (``max(ts) + INTERVAL '1' MONTH``): PySpark cannot hand it to
    the worker, which failed with Arrow's KeyError and a traceback."""
    env = type_env(plan, columns)
    for text, pos in zip(compiled.subqueries, compiled.subquery_pos):
        if is_year_month(infer_type(sqlglot.parse_one(text, read=MatchRecognizeDialect), env)):
            raise UnsupportedError(
                f"the table function cannot compute {text} in this measure: it is a "
                "YEAR-MONTH interval",
                sql=plan.clause.sql,
                pos=pos,
                hint=_YEAR_MONTH_HINT + " (add_months(max(ts), 1) for + INTERVAL '1' MONTH)",
            )


def _refuse_repeated_keys(clause: ast.MatchRecognizeClause, plan: MatchPlan) -> None:
    """Refuse an ORDER BY column named twice, or also in PARTITION BY, under ALL ROWS PER
    MATCH, which outputs each of their columns: ``matchrec.sql`` returns it twice, as
    Trino does, but Spark's Arrow reader cannot take two columns of one name."""
    seen = dict.fromkeys((k.lower() for k in plan.partition_by), "PARTITION BY and ORDER BY")
    for (column, _, _), key in zip(plan.order_by, clause.order_by):
        if column.lower() in seen:
            raise SemanticError(
                f"column {column!r} is named twice in {seen[column.lower()]}, and ALL ROWS "
                "PER MATCH outputs each of their columns: the table function cannot "
                "return two columns of one name",
                sql=clause.sql,
                pos=key.expr.pos,
                hint="name it once (a repeated sort key changes no order), or run the "
                "query with matchrec.sql, which returns the column twice as Trino does",
            )
        seen[column.lower()] = "ORDER BY"


def _refuse_repeated_names(clause: ast.MatchRecognizeClause, carried: list[str]) -> None:
    """Refuse a measure named as an input column the result also carries (ALL ROWS PER
    MATCH: any input column; ONE ROW PER MATCH: a PARTITION BY column). ``matchrec.sql``
    returns both columns under that name, as Trino does, but a table function's rows
    cannot hold two columns of one name (Spark's Arrow reader fails on them)."""
    taken = {c.lower(): c for c in carried}
    for m in clause.measures:
        column = taken.get(m.alias.lower())
        if column is not None:
            rows = (
                "ALL ROWS PER MATCH"
                if clause.rows_per_match.mode != "one"
                else ("ONE ROW PER MATCH (as a PARTITION BY column)")
            )
            raise SemanticError(
                f"measure {m.alias!r} has the name of input column {column!r}, which "
                f"{rows} also outputs: the table function cannot return two columns of "
                "one name",
                sql=clause.sql,
                pos=m.alias_pos,
                hint=f"name the measure otherwise (e.g. AS {m.alias}_m), or run the query "
                "with matchrec.sql, which returns both columns as Trino does",
            )


def _check_within(plan: MatchPlan, fields: dict[str, StructField]) -> None:
    if plan.within_column is not None:
        refuse_untimed_within(plan, fields[plan.within_column].dataType.simpleString())


def check_declared_types(program: _Program, declared: _Program) -> None:
    """Refuse a measure whose type without ANSI mode (``program``) differs from the one
    ``analyze`` declared under it (``declared``): Spark types ``coalesce(s, 1)`` of a
    STRING ``s`` as BIGINT under ANSI and as STRING without, and ``analyze`` cannot read
    the session's setting."""
    clause = program.plan.clause
    for measure, got, want in zip(clause.measures, program.measures, declared.measures):
        if got.type != want.type:
            name = got.type.sql("spark").upper()
            raise UnsupportedError(
                f"with spark.sql.ansi.enabled=false Spark types measure {got.alias!r} as "
                f"{name}, but the table function declared it as under ANSI mode, "
                f"{want.type.sql('spark').upper()}",
                sql=clause.sql,
                pos=measure.expr.pos,
                hint=f"say which with a CAST(... AS {name}), or use matchrec.sql",
            )


_PROGRAMS: dict[tuple[str, str, bool], _Program] = {}


def _program(body: str, input_schema: StructType, ansi: bool) -> _Program:
    """``build_program``, once per Python worker for the same call."""
    key = (body, input_schema.json(), ansi)
    program = _PROGRAMS.get(key)
    if program is None:
        if len(_PROGRAMS) >= 32:  # a long-lived worker serving many different calls
            _PROGRAMS.clear()
        program = _PROGRAMS[key] = build_program(body, input_schema, ansi)
    return program


def _field_named_twice(t: DataType) -> str | None:
    """A field name that a STRUCT in ``t`` (nested in arrays and maps too) has twice."""
    if isinstance(t, StructType):
        names = [f.name for f in t.fields]
        twice = next((n for n in names if names.count(n) > 1), None)
        if twice is not None:
            return twice
        return next((n for f in t.fields if (n := _field_named_twice(f.dataType))), None)
    if isinstance(t, ArrayType):
        return _field_named_twice(t.elementType)
    if isinstance(t, MapType):
        return _field_named_twice(t.keyType) or _field_named_twice(t.valueType)
    return None


def _measure_column(
    measure: CompiledMeasure,
    rows: list[tuple] | None,
    atoms: list[Any],
    matched: pa.Array | None,
    arrow_type: pa.DataType,
) -> pa.Array:
    """One measure's output column: a measure that is one atom as it is keeps the engine's
    Arrow array; any other is computed row by row in Python over the atom values (``rows``),
    NULL on unmatched rows."""
    if measure.atom is not None and isinstance(atoms[measure.atom], pa.Array):
        values = atoms[measure.atom]
        if values.type != arrow_type:
            values = values.cast(arrow_type)
        if matched is None:
            return values
        return pc.if_else(matched, values, pa.nulls(len(values), arrow_type))
    assert rows is not None
    evaluate = measure.evaluate
    if matched is None:
        computed = [evaluate(vals) for vals in rows]
    else:
        computed = [evaluate(vals) if m else None for vals, m in zip(rows, matched.to_pylist())]
    return arrow_array(computed, arrow_type)


def _value_rows(
    program: _Program, table: pa.Table, indices: pa.Array, atoms: list[Any]
) -> list[tuple] | None:
    """Each output row's atom values then subquery values, as Python tuples (None when
    every measure is one atom that the engine returned as an Arrow array)."""
    if all(m.atom is not None and isinstance(atoms[m.atom], pa.Array) for m in program.measures):
        return None
    columns = [_python_values(a) for a in atoms]
    columns += [python_values(table.column(i).take(indices)) for i in program.subqueries]
    return list(zip(*columns)) if columns else [()] * len(indices)


@with_wide_decimals
def measured_rows(program: _Program, table: pa.Table, out: PartitionOutput) -> pa.Table | None:
    """The table function's output rows for the engine's output ``out`` over ``table``
    (rows laid out as ``program.names``): carried columns and measures; None when
    there are none."""
    if len(out.rows) == 0:
        return None
    indices = pa.array(out.rows, type=pa.int64())
    matched = None if out.matched is None else pa.array(out.matched, type=pa.bool_())
    atoms = list(out.atoms)
    rows = _value_rows(program, table, indices, atoms)
    schema = program.arrow_schema
    measures = [
        _measure_column(m, rows, atoms, matched, schema.field(len(program.leading) + k).type)
        for k, m in enumerate(program.measures)
    ]
    arrays = [table.column(i).take(indices) for i in program.leading]
    arrays += measures + [table.column(i).take(indices) for i in program.trailing]
    typed = [a if a.type == f.type else a.cast(f.type) for a, f in zip(arrays, schema)]
    return pa.Table.from_arrays(typed, schema=schema)


def _python_values(values: Any) -> list[Any]:
    """An engine output column (Python list, Arrow or NumPy array) as Python values."""
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        return python_values(values)
    if hasattr(values, "tolist"):
        return values.tolist()
    return values


# --------------------------------------------------------------------------- the UDTF


@dataclass
class MatchAnalyzeResult(AnalyzeResult):
    """``AnalyzeResult`` that also carries what each UDTF instance re-plans from."""

    body: str = ""
    input_schema: StructType | None = None


def _reject_stream(schema: StructType) -> None:
    """A streaming TABLE argument (seen by its watermark column) cannot run in a table
    function: Spark sorts its partitions, which a stream has not, and a UDTF keeps no
    state between micro-batches. Say so before Spark's own error about sorting."""
    for f in schema.fields:
        if WATERMARK_DELAY in (f.metadata or {}):
            raise UnsupportedError(
                "the table function match_recognize takes batch tables; this input is a "
                f"stream (its column {f.name!r} has a watermark)",
                hint="write it as SELECT * FROM <stream> MATCH_RECOGNIZE (<the same body>) "
                "and run it with matchrec.sql(spark, query), which runs MATCH_RECOGNIZE on "
                "streams",
            )


def analyze_call(table: AnalyzeArgument, body: AnalyzeArgument) -> MatchAnalyzeResult:
    """What ``analyze`` returns for ``match_recognize(table, body)``."""
    if not table.isTable:
        raise SemanticError(
            "the first argument of match_recognize must be a table",
            hint="write match_recognize(TABLE(t), '<clause body>')",
        )
    if not isinstance(body.value, str) or not body.isConstantExpression:
        raise SemanticError(
            "the second argument of match_recognize must be a constant string",
            hint="pass the text inside MATCH_RECOGNIZE ( ... ) as a string literal",
        )
    input_schema = table.dataType
    assert isinstance(input_schema, StructType)
    _reject_stream(input_schema)
    program = build_program(body.value, input_schema)
    plan = program.plan
    # Spark's run-time error in one of these is told at the user's expression
    origins = plan.origins
    shared_origins.record(
        [(text, body.value, origins[name]) for name, text in program.selected if name in origins]
    )
    shared_origins.record_calls(plan.calls, body.value)  # a Python UDF's error: at its call
    aliases = shown_aliases(input_schema.names, program.selected)
    select = [SelectedColumn(_quote(c)) for c in input_schema.names] + [
        SelectedColumn(text, alias=alias) for (_, text), alias in zip(program.selected, aliases)
    ]
    if plan.order_by or program.bounds != plan.partition_by:
        # no partitioning asked: the window of ROW_NUMBER (build_program) partitions and
        # sorts the rows, once for it and DEFINE's LAG/LEAD alike; the UDTF checks the order.
        # A collated key's stand-in (collated_keys) is a window too, which groups each
        # partition's rows together: Spark's own partitionBy would cut them by byte value
        return MatchAnalyzeResult(
            schema=program.schema, select=select, body=body.value, input_schema=input_schema
        )
    if plan.partition_by:
        return MatchAnalyzeResult(
            schema=program.schema,
            partitionBy=[PartitioningColumn(_quote(k)) for k in plan.partition_by],
            select=select,
            body=body.value,
            input_schema=input_schema,
        )
    return MatchAnalyzeResult(
        schema=program.schema,
        withSinglePartition=True,
        select=select,
        body=body.value,
        input_schema=input_schema,
    )


def shown_aliases(inputs: list[str], selected: list[tuple[str, str]]) -> list[str]:
    """The alias Spark gets for each column of ours that the table function selects: its
    expression's text, unless another column has that name.

    ``eval`` reads the columns by position, so the names are free; Spark shows them when
    it rejects one of the expressions (a DEFINE comparing a number with a map: Spark
    analyses them only after ``analyze`` returned, with no caret for us to give) in the
    plan it prints, where the user's own text says which expression is meant and an
    internal ``__mr_c0`` would not."""
    taken = {c.lower() for c in inputs}
    aliases = []
    for _, text in selected:
        readable = " ".join(text.replace("`", "").split())
        alias, n = readable, 1
        while alias.lower() in taken:
            n += 1
            alias = f"{readable} #{n}"
        taken.add(alias.lower())
        aliases.append(alias)
    return aliases


def _refuse_unread_settings(body: str) -> None:
    """Settings of Spark's parser that ``analyze`` cannot read (it has no session) and
    that change what ``body`` means: an error at the text they change, not another
    query's rows. Under ``spark.sql.ansi.doubleQuotedIdentifiers`` a ``"x"`` that
    ``analyze`` read as a string is a name; under ``spark.sql.parser.escapedStringLiterals``
    a backslash in a string literal is itself, not an escape."""
    if task_setting(DOUBLE_QUOTED_IDENTIFIERS_CONF):
        at = double_quoted_string(body)
        if at is not None:
            raise UnsupportedError(
                "the table function cannot read a double-quoted name under "
                "spark.sql.ansi.doubleQuotedIdentifiers (it types its columns before it can "
                'read the setting, reading "..." as a string)',
                sql=body,
                pos=at,
                hint="write the name in backticks (`x`) and a string in single quotes, or use "
                "matchrec.sql, which reads the setting",
            )
    if task_setting(ESCAPED_STRING_LITERALS_CONF):
        at = backslash_string(body)
        if at is not None:
            raise backslash_error(body, at)


class MatchRecognizeUDTF:
    """The Python UDTF behind ``match_recognize(TABLE(t), '<clause body>')``: an Arrow
    UDTF, so ``eval`` gets batches of rows sorted by partition keys and ORDER BY (one
    Spark partition's, many keys; or one key's, with PARTITION BY and no ORDER BY), which
    a :class:`PartitionMatcher` matches as the batch job's ``mapInArrow`` does."""

    def __init__(self, analyze_result: MatchAnalyzeResult | None = None) -> None:
        if analyze_result is None or analyze_result.input_schema is None:
            raise SemanticError(
                "match_recognize must be called as match_recognize(TABLE(t), '<clause body>')"
            )
        ansi = task_ansi_enabled()
        body, input_schema = analyze_result.body, analyze_result.input_schema
        _refuse_unread_settings(body)
        program = self._program = _program(body, input_schema, ansi)
        if task_setting(LEGACY_INTERVALS_CONF):
            columns = {f.name: to_sqlglot_type(f.dataType) for f in input_schema.fields}
            refuse_legacy_intervals(program.plan.clause, columns, ansi)
        if not ansi:  # ``analyze`` declared the types ANSI mode gives
            check_declared_types(program, _program(body, input_schema, True))
        self._matcher = PartitionMatcher(
            program.plan.program,
            program.bounds,
            lambda table, out: measured_rows(program, table, out),
            DEFAULT_CHUNK_ROWS,
            DEFAULT_GROUP_ROWS,
        )
        self._order = RowOrder(program.bounds) if program.plan.order_by else None
        self._zone: tuple[tzinfo | None] | None = None  # (the session's zone,) once known
        self._settings = task_function_settings()

    @staticmethod
    def analyze(table: AnalyzeArgument, body: AnalyzeArgument) -> MatchAnalyzeResult:
        try:
            return analyze_call(table, body)
        except MatchRecognizeError as err:
            # Spark prints the traceback with the message: keep it to this frame
            raise err.with_traceback(None) from None

    def eval(self, table: pa.RecordBatch, body: Any) -> Iterator[pa.Table]:
        # the parameters are named as analyze's: a call may name them (table => TABLE(t));
        # the columns are read by position: their names are Spark's, and may hold dots
        batch = table.rename_columns(self._program.names)
        starts = None if self._order is None else self._order.check(batch)
        if self._zone is None:
            self._zone = (session_zone(batch),)
        SESSION_ZONE.set(self._zone[0])  # the worker may have served another session
        use_settings(self._settings)
        yield from self._matcher.push(batch, starts)

    def terminate(self) -> Iterator[pa.Table]:
        SESSION_ZONE.set(self._zone[0] if self._zone else None)
        use_settings(self._settings)
        yield from self._matcher.finish()


def session_zone(batch: pa.RecordBatch) -> tzinfo | None:
    """The session time zone: Spark hands TIMESTAMP values to Python in it (a column's, or
    inside one: a map's keys, an array's elements, a struct's fields), and
    ``build_program`` selects it by name where the input has none (None: not needed)."""
    name = next(filter(None, (_zone_of(field.type) for field in batch.schema)), None)
    if name is None and ZONE in batch.schema.names and batch.num_rows:
        name = batch.column(ZONE)[0].as_py()
    return zone_named(name)


def _zone_of(arrow_type: pa.DataType) -> str | None:
    """The zone of a TIMESTAMP in ``arrow_type``, at any depth (None: it holds none)."""
    if pa.types.is_timestamp(arrow_type):
        return arrow_type.tz or None
    inner = [arrow_type.field(i).type for i in range(arrow_type.num_fields)]
    return next(filter(None, map(_zone_of, inner)), None)


#: words of every SQL that makes a time from no date or time value (a literal, a CAST, a
#: function of a string or a number: ``TIMESTAMP'...'``, ``to_timestamp(s)``,
#: ``timestamp_seconds(n)``, ``from_unixtime(n)``, ``make_dt_interval(...)``)
_TIME_WORDS = re.compile(r"(?i)timestamp|date|time|zone|unix|interval|epoch|hour|minute|second")


def _reads_zone(input_schema: StructType, measures: list[StructField], sql: str) -> bool:
    """Whether the session's time zone must be selected for the glue: an instant and a
    wall-clock time meet (a DATE cast to TIMESTAMP, ``unix_timestamp`` of a DATE, a
    TIMESTAMP measure of a wall-clock time) and no input TIMESTAMP, of a column or inside
    one, carries the zone. Each is a value of a time type in the input or the measures,
    or is written with a word of :data:`_TIME_WORDS`."""
    if any(holds(f.dataType, (TimestampType,)) for f in input_schema.fields):
        return False  # its Arrow type names the zone
    wall_clocks = (DateType, TimestampNTZType)
    return (
        any(holds(f.dataType, (TimestampType,)) for f in measures)
        or any(holds(f.dataType, wall_clocks) for f in input_schema.fields)
        or _TIME_WORDS.search(sql) is not None
    )


class RowOrder:
    """Checks that rows arrive as the ROW_NUMBER window sorted them: each partition's
    rows together, numbered 1, 2, 3, ... The table function asks Spark for no order of
    its own here (see ``analyze_call``), so a plan that lost the order, or a PARTITION BY
    written after ``TABLE(t)`` that splits the partitions, fails the query rather than
    match rows out of order."""

    def __init__(self, keys: list[str]) -> None:
        self.keys = keys
        self.last: tuple[tuple, int] | None = None  # the last row's key and number

    def check(self, batch: pa.RecordBatch) -> list[int]:
        """Raise unless ``batch`` continues the order; its partitions' starts
        (``group_starts``), which the matcher needs too."""
        n = batch.num_rows
        if n == 0:
            return []
        numbers = batch.column(ROW_NUMBER).to_numpy(zero_copy_only=False)
        expected = np.empty(n, dtype=numbers.dtype)
        expected[1:] = numbers[:-1] + 1
        first = key_at(batch, self.keys, 0)
        continues = self.last is not None and self.last[0] == first
        expected[0] = self.last[1] + 1 if continues else 1
        starts = group_starts(batch, self.keys)
        expected[starts] = 1
        if not np.array_equal(numbers, expected):
            raise MatchRuntimeError(
                "the rows of a partition reached match_recognize split or out of ORDER BY order",
                hint="PARTITION BY and ORDER BY go inside the clause string, not after "
                "TABLE(t); if the call has none, run the query with matchrec.sql(spark, query)",
            )
        self.last = (key_at(batch, self.keys, n - 1), int(numbers[-1]))
        return starts


def arrow_udtf_with_analyze(handler: type, name: str, spark: SparkSession) -> Any:
    """``handler`` as an Arrow UDTF whose output schema its ``analyze`` gives.

    PySpark 4.3's ``arrow_udtf`` refuses a class with ``analyze`` (SPARK-53286, a check
    in the Python client only): Spark itself analyses such a UDTF, partitions and sorts
    its input as ``analyze`` asks, passes the result to ``__init__`` and hands ``eval``
    Arrow batches of one partition at a time. The UDTF is built as ``arrow_udtf`` would
    build it, without that check, in the client that ``spark`` uses (classic or Connect).
    """
    if type(spark).__module__.startswith("pyspark.sql.connect"):
        from pyspark.sql.connect.udtf import UserDefinedTableFunction
    else:
        from pyspark.sql.udtf import UserDefinedTableFunction
    return UserDefinedTableFunction(
        handler, returnType=None, name=name, evalType=PythonEvalType.SQL_ARROW_UDTF
    )


def register(spark: SparkSession, name: str = "match_recognize") -> Any:
    """Register ``name(TABLE(t), '<clause body>')`` for ``spark.sql``; returns the UDTF."""
    from .cluster import prepare
    from .failing_query import note_table_function
    from .worker_errors import install

    install()  # its errors of analysis and of a match: raised as matchrec's, caret first
    note_table_function(name)  # a plan that runs it is a matchrec query (failing_query)
    prepare(spark, door="udtf")  # on a cluster: ship matchrec, check the executors (once)
    return spark.udtf.register(name, arrow_udtf_with_analyze(MatchRecognizeUDTF, name, spark))
