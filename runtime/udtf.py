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

PARTITION BY and ORDER BY belong in the string only. The UDTF's static ``analyze`` reads
them there and asks Spark to partition and sort the input itself, so the call must not
add ``PARTITION BY``, ``ORDER BY`` or ``WITH SINGLE PARTITION`` after ``TABLE(t)``;
Spark then rejects the call with TABLE_VALUED_FUNCTION_REQUIRED_METADATA_INCOMPATIBLE_WITH_CALL
(or a syntax error for a lone ORDER BY).

How it runs (PySpark 4.3, a row UDTF with a TABLE argument):

* ``analyze`` (in a Python worker, no Spark session) parses and plans the body against
  the input schema, infers every measure's Spark type (``planner.measure_eval``) and
  returns the output schema, ``partitionBy`` (or ``withSinglePartition`` when the
  clause has no PARTITION BY), ``orderBy`` with Spark's default null order, and a
  ``select`` list: the input columns plus the plan's row-local expressions, so Spark
  evaluates those in the JVM before the rows reach Python. Errors are ours, shown in
  Spark's TABLE_VALUED_FUNCTION_FAILED_TO_ANALYZE_IN_PYTHON.
* ``eval`` is called once per row and only buffers it; ``terminate`` (once per
  partition) runs the matcher (``engine.run_partition``) and computes the measures in
  Python, since nothing can be projected after a UDTF inside it.

Known limits: the UDTF gets rows one at a time through pickling, so it is several times
slower than ``matchrec.sql`` (which uses ``mapInArrow``); each partition is held in
memory; functions of one navigated row move inside the navigation (the plan is made
with ``python_measures=True``), so Spark computes them; what combines several rows is
limited to what ``planner.pyeval`` evaluates plus CAST, and a measure whose type
``planner.measure_eval`` cannot infer must be wrapped in a CAST.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import Any

import pyarrow as pa
from matchrec.planner.function_types import NO_NULL_ELEMENTS
from matchrec.planner.measure_eval import (
    CompiledMeasure,
    check_define_types,
    compile_measures,
    decimal_params,
    type_integer_widths,
)
from matchrec.planner.plan import MatchPlan, plan_clause, refuse_late_rows
from matchrec.planner.statement import read_body
from pyspark.sql import Row, SparkSession
from pyspark.sql.functions import udtf
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
)
from pyspark.sql.udtf import (
    AnalyzeArgument,
    AnalyzeResult,
    OrderingColumn,
    PartitioningColumn,
    SelectedColumn,
)
from sqlglot import exp

from matchrec.engine import run_partition
from matchrec.errors import MatchRecognizeError, SemanticError, UnsupportedError

#: the column metadata Spark's withWatermark sets (as runtime.streaming reads it; not
#: imported from there: this module runs on executors, which need no pandas)
WATERMARK_DELAY = "spark.watermarkDelayMs"

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
}


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def to_sqlglot_type(t: DataType) -> exp.DataType:
    """A Spark type as the sqlglot type ``planner.measure_eval`` reasons with."""
    if isinstance(t, NullType):
        return exp.DataType(this=T.NULL)
    try:
        result = exp.DataType.build(t.simpleString(), dialect="spark")
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
            fields.append(StructField(f.name, inner, True))
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
    arrow_types: dict[str, Any]  # input column -> Arrow type for the engine


def build_program(body: str, input_schema: StructType) -> _Program:
    """Parse, plan and type ``body`` against ``input_schema`` (raises our errors)."""
    clause = read_body(body)
    refuse_late_rows(clause, "the table function (it takes batch tables only)")
    columns = list(input_schema.names)
    plan = plan_clause(clause, columns, python_measures=True)
    fields = {f.name: f for f in input_schema.fields}
    _check_within(plan, fields)
    column_types = {f.name: to_sqlglot_type(f.dataType) for f in input_schema.fields}
    type_integer_widths(plan, column_types)
    check_define_types(plan, column_types)
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
                hint="wrap it in CAST(... AS type), or use matchrec.sql",
            )
        measure_fields.append(StructField(m.alias, spark_type, True))

    position = {c: i for i, c in enumerate(columns)}
    selected = list(plan.precomputed) + [
        (f"__mr_s{i}", text) for i, text in enumerate(compiled.subqueries)
    ]
    keys = plan.partition_by
    if plan.one_row:
        lead_names, trail_names = list(keys), []
    else:
        order_cols = [c for c, _, _ in plan.order_by]
        lead_names = keys + order_cols
        trail_names = [c for c in columns if c not in keys and c not in order_cols]
    schema = StructType(
        [fields[c] for c in lead_names] + measure_fields + [fields[c] for c in trail_names]
    )
    if not schema.fields:
        raise UnsupportedError(
            "this MATCH_RECOGNIZE has no output columns",
            sql=clause.sql,
            pos=0,
            hint="add MEASURES (or PARTITION BY), or use matchrec.sql",
        )
    return _Program(
        plan=plan,
        schema=schema,
        selected=selected,
        names=columns + [name for name, _ in selected],
        leading=[position[c] for c in lead_names],
        trailing=[position[c] for c in trail_names],
        subqueries=list(range(len(columns) + len(plan.precomputed), len(columns) + len(selected))),
        measures=measures,
        arrow_types={f.name: _arrow_type(f.dataType) for f in input_schema.fields},
    )


def _check_within(plan: MatchPlan, fields: dict[str, StructField]) -> None:
    if plan.within_column is None:
        return
    dtype = fields[plan.within_column].dataType
    if not isinstance(dtype, (TimestampType, TimestampNTZType, DateType)):
        raise SemanticError(
            f"WITHIN needs ORDER BY on a timestamp or date column; {plan.within_column!r} is "
            f"{dtype.simpleString()}",
            sql=plan.clause.sql,
            pos=plan.clause.order_by[0].expr.pos,
            hint="order by an event-time column",
        )


_PROGRAMS: dict[tuple[str, str], _Program] = {}


def _program(body: str, input_schema: StructType) -> _Program:
    """``build_program``, once per Python worker for the same call."""
    key = (body, input_schema.json())
    program = _PROGRAMS.get(key)
    if program is None:
        if len(_PROGRAMS) >= 32:  # a long-lived worker serving many different calls
            _PROGRAMS.clear()
        program = _PROGRAMS[key] = build_program(body, input_schema)
    return program


class RowColumns:
    """One partition's buffered rows as the engine's columns: Python values by name, and
    Arrow arrays (built once, on demand) for its vectorized paths.

    ``arrow_types`` gives the Arrow type of the input columns; others (precomputed) are
    inferred. Timestamps stay time-zone-naive, as PySpark hands them to a row UDTF, so
    values read back through Arrow are the same Python values.
    """

    def __init__(
        self, names: Sequence[str], rows: Sequence[Sequence[Any]], arrow_types: dict[str, Any]
    ):
        self._lists = dict(zip(names, (list(c) for c in zip(*rows))))
        self._arrow_types = arrow_types
        self._arrays: dict[str, pa.Array] = {}

    def __getitem__(self, name: str) -> list[Any]:
        return self._lists[name]

    def arrow(self, name: str) -> pa.Array:
        found = self._arrays.get(name)
        if found is None:
            values = self._lists[name]
            try:
                found = pa.array(values, type=self._arrow_types.get(name))
            except (pa.ArrowException, TypeError, ValueError):
                found = pa.array([_plain(v) for v in values])
            self._arrays[name] = found
        return found


def _plain(value: Any) -> Any:
    """A value as pyarrow infers it: a struct (PySpark's Row, a tuple) as a dict."""
    if isinstance(value, Row):
        return value.asDict(recursive=True)
    return value


def _arrow_type(t: DataType) -> pa.DataType | None:
    if isinstance(t, (TimestampType, TimestampNTZType)):
        return pa.timestamp("us")
    try:
        return to_arrow_type(t, timezone="UTC")
    except Exception:  # a type Arrow cannot carry: let pyarrow infer from the values
        return None


def _python_values(values: Any) -> list[Any]:
    """An engine output column (Python list, Arrow or NumPy array) as Python values."""
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        return values.to_pylist(maps_as_pydicts="lossy")  # a UDTF returns maps as dicts
    if hasattr(values, "tolist"):
        return values.tolist()
    return values


def run_rows(program: _Program, rows: Sequence[Sequence[Any]]) -> Iterator[tuple]:
    """Output rows of one partition whose input ``rows`` are sorted and laid out as
    ``program.names``."""
    n = len(rows)
    if n == 0:
        return
    cols = RowColumns(program.names, rows, program.arrow_types)
    out = run_partition(program.plan.program, cols, n)
    measures = [m.evaluate for m in program.measures]
    unmatched = (None,) * len(measures)
    leading, trailing, subqueries = program.leading, program.trailing, program.subqueries
    atoms = [_python_values(a) for a in out.atoms]
    atom_rows = zip(*atoms) if atoms else repeat(())
    matched_rows = repeat(True) if out.matched is None else out.matched
    for r, matched, vals in zip(_python_values(out.rows), matched_rows, atom_rows):
        row = rows[r]
        if subqueries:
            vals = vals + tuple(row[i] for i in subqueries)
        values = tuple(m(vals) for m in measures) if matched else unmatched
        yield (tuple(row[i] for i in leading) + values + tuple(row[i] for i in trailing))


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
    select = [SelectedColumn(_quote(c)) for c in input_schema.names] + [
        SelectedColumn(text, alias=name) for name, text in program.selected
    ]
    order = [
        # the plan's null order: Spark's default (ASC NULLS FIRST, DESC NULLS LAST) unless written
        OrderingColumn(_quote(c), ascending=not desc, overrideNullsFirst=bool(nulls_first))
        for c, desc, nulls_first in plan.order_by
    ]
    if plan.partition_by:
        return MatchAnalyzeResult(
            schema=program.schema,
            partitionBy=[PartitioningColumn(_quote(k)) for k in plan.partition_by],
            orderBy=order,
            select=select,
            body=body.value,
            input_schema=input_schema,
        )
    return MatchAnalyzeResult(
        schema=program.schema,
        withSinglePartition=True,
        orderBy=order,
        select=select,
        body=body.value,
        input_schema=input_schema,
    )


class MatchRecognizeUDTF:
    """The Python UDTF behind ``match_recognize(TABLE(t), '<clause body>')``."""

    def __init__(self, analyze_result: MatchAnalyzeResult | None = None) -> None:
        if analyze_result is None or analyze_result.input_schema is None:
            raise SemanticError(
                "match_recognize must be called as match_recognize(TABLE(t), '<clause body>')"
            )
        self._program = _program(analyze_result.body, analyze_result.input_schema)
        self._rows: list[Any] = []

    @staticmethod
    def analyze(table: AnalyzeArgument, body: AnalyzeArgument) -> MatchAnalyzeResult:
        try:
            return analyze_call(table, body)
        except MatchRecognizeError as err:
            # Spark prints the traceback with the message: keep it to this frame
            raise err.with_traceback(None) from None

    def eval(self, row: Any, body: str) -> None:
        self._rows.append(row)

    def terminate(self) -> Iterator[tuple]:
        rows, self._rows = self._rows, []
        yield from run_rows(self._program, rows)


def register(spark: SparkSession, name: str = "match_recognize") -> Any:
    """Register ``name(TABLE(t), '<clause body>')`` for ``spark.sql``; returns the UDTF."""
    from .cluster import prepare

    prepare(spark, door="udtf")  # on a cluster: ship matchrec, check the executors (once)
    function = udtf(MatchRecognizeUDTF, useArrow=False)
    return spark.udtf.register(name, function)
