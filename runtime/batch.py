"""Run a planned MATCH_RECOGNIZE over a batch DataFrame.

Shape of the Spark job: add the row-local columns the plan asks for (Spark evaluates
them in the JVM), repartition by the PARTITION BY keys, sort each Spark partition by
keys and ORDER BY, then ``mapInArrow`` streams the sorted rows through the matcher one
key group at a time, and a final projection computes the measures in Spark from the
atoms the matcher emitted. Everything that can fail on the user's input is checked when
the DataFrame is built (analysis only), before any job runs.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from matchrec.planner.measure_eval import closest_function
from matchrec.planner.plan import MatchPlan, quote, refuse_untimed_within
from matchrec.planner.sqltext import call_start, written_call
from matchrec.planner.type_checks import TypeCheck, in_spark_order, mismatch
from pyspark.errors import AnalysisException, PySparkValueError
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.pandas.types import to_arrow_type
from pyspark.sql.types import (
    BooleanType,
    ByteType,
    DataType,
    IntegerType,
    LongType,
    ShortType,
    StringType,
    StructField,
    StructType,
)

from matchrec.arrow_rows import ArrowColumns, group_starts  # noqa: F401 - used from here before
from matchrec.errors import MatchRecognizeError, SemanticError, UnsupportedError
from matchrec.integer_width import check_types_known
from matchrec.keyed_stream import LATE_STATUS, MATCHED_STATUS, STATUS, UNMATCHED_STATUS

from .arrow_safe import atoms_for_arrow, months_for_arrow, months_restored
from .collated_keys import boundary_keys, collated_stand_ins
from .determinism import check_deterministic
from .expression_origins import marked, remember
from .guarded_udfs import with_guarded_calls
from .partitions import (
    DEFAULT_CHUNK_ROWS,
    DEFAULT_GROUP_ROWS,
    MATCHED,
    _partition_mapper,
    _timeout_mapper,
)
from .session import ansi_enabled, count_setting, function_settings, quiet_analysis
from .sort_keys import check_sortable
from .udf_errors import remember_udfs

#: rows of one partition held before it is matched in pieces (0: never cut)
CHUNK_ROWS_CONF = "spark.matchrec.chunkRows"
#: rows of complete partitions gathered before they are matched together
GROUP_ROWS_CONF = "spark.matchrec.groupRows"
#: the output column of ONE ROW PER MATCH WITH TIMEOUTS: MATCHED or TIMEOUT
STATUS_COLUMN = "match_status"
#: the column WITH LATE ROWS adds to ONE ROW PER MATCH: the late input row, as a struct
LATE_ROW_COLUMN = "late_row"


def _sort_column(name: str, descending: bool, nulls_first: bool) -> Column:
    c = F.col(quote(name))
    if descending:
        return c.desc_nulls_first() if nulls_first else c.desc_nulls_last()
    return c.asc_nulls_first() if nulls_first else c.asc_nulls_last()


def _probe_types(df: DataFrame, plan: MatchPlan) -> list[DataType]:
    """Spark's type of every atom, from analysing an equivalent expression (no job runs);
    one Spark rejects (``percentile(x, 1.5)``) is a positioned error with Spark's reason."""
    types: dict[str, DataType] = {}
    plain = [a for a in plan.atoms if not a.aggregate]
    aggs = [a for a in plan.atoms if a.aggregate]
    for atoms in (plain, aggs):
        if not atoms:
            continue
        fields = _types_of(df, [f"{a.probe} AS {quote(a.name)}" for a in atoms])
        if fields is None:
            _raise_rejected_atom(df, plan, atoms)
        for f in fields:
            types[f.name] = f.dataType
    return [types[a.name] for a in plan.atoms]


def _raise_rejected_atom(df: DataFrame, plan: MatchPlan, atoms: list) -> None:
    """Raise the first of ``atoms`` Spark cannot analyse, at the user's expression."""
    for atom in atoms:
        err = _analysed(df, [atom.probe])
        if isinstance(err, AnalysisException):
            raise SemanticError(
                f"Spark rejects {atom.text}: {_in_users_words(err, plan, whole=True)}",
                sql=plan.clause.sql,
                pos=atom.pos,
                hint="the arguments must be what Spark's function takes",
            ) from None
    _ = df.selectExpr(*(a.probe for a in atoms)).schema  # only together: Spark's own error


def _reason(err: AnalysisException) -> str:
    """The first line of Spark's message, without its SQLSTATE and plan."""
    return re.sub(r"\s*SQLSTATE: \w+;?.*$", "", str(err).split("\n")[0])


def _check_types(df: DataFrame, plan: MatchPlan, checks: list[TypeCheck]) -> None:
    """Ask Spark for the operand types of ``checks`` over ``df`` (analysis only) and raise
    the first mix that would fail while the query runs (``planner.type_checks``)."""
    if not checks:
        return
    checks = in_spark_order(checks)
    ansi = ansi_enabled(df.sparkSession)
    typed = _operand_types(df, checks)
    if typed is None:  # one probe Spark cannot type: ask for each check on its own
        typed = [t for check in checks for t in (_operand_types(df, [check]) or [None])]
    for check, types in zip(checks, typed):
        error = None if types is None else mismatch(check, types, ansi, plan.clause.sql)
        if error is not None:
            raise error
    _raise_rejected_operand(df, plan, [c for c, t in zip(checks, typed) if t is None])


def _raise_rejected_operand(df: DataFrame, plan: MatchPlan, checks: list[TypeCheck]) -> None:
    """Raise, at the smallest operand of ``checks`` Spark rejects for its arguments'
    types or values (``percentile(price, 2)`` in DEFINE, which the matcher computes
    itself), Spark's reason; an operand Spark cannot analyse for another reason (a
    probe of what only the matcher computes) is left to the matcher."""
    rejected = []
    for operand in {o for check in checks for o in check.operands}:
        err = _analysed(df, [operand.probe])
        if isinstance(err, AnalysisException) and (err.getCondition() or "").startswith(
            "DATATYPE_MISMATCH"
        ):
            rejected.append((len(operand.text), operand.pos, operand, err))
    if rejected:
        *_, operand, err = min(rejected, key=lambda r: r[:2])
        raise SemanticError(
            f"Spark rejects {operand.text}: {_in_users_words(err, plan, whole=True)}",
            sql=plan.clause.sql,
            pos=call_start(plan.clause.sql, operand.pos, 0)  # a call: at its name
            if re.match(r"\w+\s*\(", operand.text)
            else operand.pos,
            hint="the arguments must be what Spark's function takes",
        ) from None


def _operand_types(df: DataFrame, checks: list[TypeCheck]) -> list[list[str]] | None:
    """Spark's simple type names of the operands of each of ``checks`` (analysis only);
    None when Spark cannot type one of them (it reports that expression itself where it
    is computed)."""
    probes = [o.probe for c in checks for o in c.operands]
    fields = _types_of(df, [f"{p} AS `__mr_t{i}`" for i, p in enumerate(probes)])
    if fields is None:
        return None
    types = iter(f.dataType.simpleString() for f in fields)
    return [[next(types) for _ in check.operands] for check in checks]


def _set_integer_widths(df: DataFrame, plan: MatchPlan) -> None:
    """Ask Spark for the result type of each integer operator of DEFINE's glue (analysis
    only) so that the matcher keeps its results in that width, as Spark does."""
    widths = plan.integer_widths
    if not widths:
        return
    fields = _types_of(df, [f"{w.probe} AS `__mr_i{i}`" for i, w in enumerate(widths)])
    if fields is not None:
        for width, f in zip(widths, fields):
            width.set_type(f.dataType.simpleString())
    else:
        for width in widths:  # one probe Spark cannot type: ask for each on its own
            one = _analysed(df, [width.probe])
            if not isinstance(one, AnalysisException):
                width.set_type(one[0].dataType.simpleString())
            elif one.getCondition() == _NO_SCHEMA:
                raise UnsupportedError(
                    f"cannot tell the collation {width.text} compares its strings in: "
                    "the strings have two collations, and one of them is read from "
                    "another row, where it is no longer an explicit collate()",
                    sql=width.sql,
                    pos=width.pos,
                    hint="collate both sides: collate(A.s, 'UTF8_LCASE') = "
                    "collate(s, 'UTF8_LCASE')",
                )
            # (else Spark reports the expression where it is computed)
    check_types_known(widths)


def _types_of(df: DataFrame, expressions: list[str]) -> StructType | None:
    """Spark's schema of ``df.selectExpr(*expressions)`` (analysis only, no job); None
    when Spark cannot analyse one of them (PySpark's log of that error kept quiet)."""
    result = _analysed(df, expressions)
    return None if isinstance(result, AnalysisException) else result


def _analysed(df: DataFrame, expressions: list[str]) -> StructType | AnalysisException:
    """The schema of ``df.selectExpr(*expressions)`` (analysis only), or Spark's error.
    A schema Spark cannot write out (a string of an indeterminate collation, as
    ``coalesce`` of two collations gives: INTERNAL_ERROR) is an error of analysis too."""
    try:
        with quiet_analysis():
            return df.selectExpr(*expressions).schema
    except AnalysisException as err:
        return err
    except PySparkValueError as err:
        if err.getCondition() != "CANNOT_PARSE_DATATYPE":
            raise
        return AnalysisException(message=str(err), errorClass=_NO_SCHEMA)


#: the condition of :func:`_analysed`'s error for a schema Spark cannot write out
_NO_SCHEMA = "CANNOT_PARSE_DATATYPE"


def _check_within(df: DataFrame, plan: MatchPlan) -> None:
    if plan.within_column is not None:
        refuse_untimed_within(
            plan,
            df.schema[plan.within_column].dataType.simpleString(),
            hint="order by an event-time column, e.g. CAST(x AS TIMESTAMP) computed in a subquery",
        )


def _check_frame_type(df: DataFrame, plan: MatchPlan) -> None:
    """A window's ``n FOLLOWING`` computed per row must be a whole number."""
    search = plan.program.window
    if search is None or search.column is None:
        return
    dtype = df.schema[search.column].dataType
    if not isinstance(dtype, (ByteType, ShortType, IntegerType, LongType)):
        raise SemanticError(
            f"the window frame's end must be a whole number of rows; {search.text} is "
            f"{dtype.simpleString()}",
            sql=plan.clause.sql,
            pos=search.pos,
            hint=f"write e.g. CAST({search.text} AS INT) FOLLOWING",
        )


def _sorted_partitions(df: DataFrame, keys: list[str], order: list[Column]) -> DataFrame:
    """``df`` with each PARTITION BY key group in one Spark partition, sorted by the keys
    and the clause's ORDER BY (all rows in one partition without keys)."""
    if keys:
        return df.repartition(*(F.col(quote(k)) for k in keys)).sortWithinPartitions(
            *(F.col(quote(k)) for k in keys), *order
        )
    if order:
        return df.repartition(1).sortWithinPartitions(*order)
    return df.coalesce(1)


def execute(df: DataFrame, plan: MatchPlan) -> DataFrame:
    """The DataFrame of ``plan`` applied to ``df`` (a stream goes to :mod:`.streaming`)."""
    if df.isStreaming:
        from .streaming import execute_stream

        return execute_stream(df, plan)
    remember_udfs(df.sparkSession, plan)
    input_columns = list(df.columns)
    check_sortable(plan, {f.name: f for f in df.schema.fields})
    keys = plan.partition_by
    order = [_sort_column(c, d, nf) for c, d, nf in plan.order_by]
    df = _sorted_partitions(df, keys, order)
    stand_ins = collated_stand_ins(df.schema, keys, plan.order_by)
    if stand_ins:  # a collated key: the matcher compares each partition's first value
        df = df.withColumns({name: F.expr(text) for name, text in stand_ins.values()})
    # after the sort: PREV/NEXT became LAG/LEAD windows ordered as the sort, so Spark
    # computes them on the sorted rows without another shuffle or sort
    for stage in plan.stages:
        df = _select(df, plan, ["*"], stage)
    if plan.scratch:
        df = df.drop(*plan.scratch)
    if plan.input_windows:  # the window's own shuffle and sort moved the rows
        df = _sorted_partitions(df, keys, order)
    _check_within(df, plan)
    _check_frame_type(df, plan)
    _check_types(df, plan, plan.define_checks)
    _set_integer_widths(df, plan)
    atom_types = _probe_types(df, plan)

    df, encoded = months_for_arrow(df, plan, atom_types)
    atom_types = atoms_for_arrow(plan, atom_types, encoded)

    timeouts = plan.clause.rows_per_match.timeouts
    bounds = boundary_keys(keys, stand_ins)
    out_schema, carried = matcher_output(df, plan, input_columns, atom_types)
    zone = df.sparkSession.conf.get("spark.sql.session.timeZone") or "UTC"
    arrow_types = [to_arrow_type(t, timezone=zone) for t in atom_types]
    chunk_rows = count_setting(df.sparkSession, CHUNK_ROWS_CONF, DEFAULT_CHUNK_ROWS, least=0)
    group_rows = count_setting(df.sparkSession, GROUP_ROWS_CONF, DEFAULT_GROUP_ROWS)
    settings = function_settings(df.sparkSession)
    if timeouts:
        mapper = _timeout_mapper(plan.program, bounds, carried, arrow_types, zone, settings)
    else:
        mapper = _partition_mapper(
            plan.program, bounds, carried, arrow_types, chunk_rows, group_rows, zone, settings
        )
    matched = map_in_arrow(df, mapper, out_schema)
    return project_measures(months_restored(matched, encoded), plan, input_columns)


def map_in_arrow(df: DataFrame, mapper: Callable, schema: StructType) -> DataFrame:
    """``df.mapInArrow(mapper, schema)``, ``mapper`` seeing ``df``'s column names, whatever
    they hold (see :func:`_without_dots`)."""
    dotless, names = _without_dots(df)
    return dotless.mapInArrow(_named_batches(mapper, names), schema)


def _without_dots(df: DataFrame) -> tuple[DataFrame, list[str]]:
    """``df`` with every column whose name holds a dot or a backtick renamed (PySpark's
    ``mapInArrow`` reads its input columns by unquoted name: ``A.info`` would be field
    ``info`` of ``A``), and the original names in order."""
    names = list(df.columns)
    renamed = {n: f"__mr_dotted{i}" for i, n in enumerate(names) if "." in n or "`" in n}
    if not renamed:
        return df, names
    return df.select(*(F.col(quote(n)).alias(renamed.get(n, n)) for n in names)), names


def _named_batches(mapper, names: list[str]):
    """``mapper`` fed batches whose columns carry ``names`` again (see ``_without_dots``)."""

    def run(batches):
        return mapper(b.rename_columns(names) for b in batches)

    return run


def matcher_output(
    df: DataFrame,
    plan: MatchPlan,
    input_columns: list[str],
    atom_types: list[DataType],
    stream: bool = False,
) -> tuple[StructType, list[str]]:
    """The schema of the rows the matcher emits (carried input columns, one column per
    atom, MATCHED, and the status with WITH TIMEOUTS, or on a ``stream`` WITH LATE ROWS)
    and the carried columns: the partition keys for ONE ROW PER MATCH (MATCHED also keeps
    the row count when there is no other column; WITH LATE ROWS every input column, for
    the late row's struct), every input column for ALL ROWS PER MATCH."""
    by_name = {f.name: f for f in df.schema.fields}
    mode = plan.clause.rows_per_match
    if plan.one_row:
        carried = list(plan.partition_by)
        if mode.late_rows:
            carried += [c for c in input_columns if c not in carried]
    else:
        carried = list(input_columns)
    fields = [by_name[c] for c in carried]
    fields += [StructField(a.name, t, True) for a, t in zip(plan.atoms, atom_types)]
    fields.append(StructField(MATCHED, BooleanType(), False))
    if mode.timeouts or (stream and mode.late_rows):
        fields.append(StructField(STATUS, StringType(), False))
    return StructType(fields), carried


def project_measures(matched: DataFrame, plan: MatchPlan, input_columns: list[str]) -> DataFrame:
    """The clause's output from the matcher's rows: Spark computes the measures over the
    atom columns (so their values and types are Spark's), in the standard's column order."""
    _check_types(matched, plan, plan.measure_checks)
    matched, renamed = _readable_atoms(matched, plan)
    keys = plan.partition_by
    mode = plan.clause.rows_per_match
    # a batch has no late rows: its matcher emits no status without WITH TIMEOUTS
    status = STATUS if STATUS in matched.columns else f"'{MATCHED_STATUS}'"
    readable = _readable(renamed)
    guard = [MATCHED] if plan.with_unmatched else []
    guard += [f"{status} <> '{LATE_STATUS}'"] if mode.late_rows else []
    matched = with_guarded_calls(
        matched, plan.guarded_calls, readable, " AND ".join(guard) or "TRUE"
    )
    measures = []
    for alias, text in plan.measures:
        text = readable(text)
        # a window function over a window with a row pattern sees no row where there is
        # no match (count 0, ...): its atoms are those of an empty match
        wrap = plan.with_unmatched and alias not in plan.clause.frame_functions
        expr = f"CASE WHEN {MATCHED} THEN ({text}) END" if wrap else text
        if mode.late_rows:
            expr = f"CASE WHEN {status} = '{LATE_STATUS}' THEN NULL ELSE ({expr}) END"
        measures.append((alias, expr))
    if mode.timeouts or mode.late_rows:
        if plan.with_unmatched:  # a row in no match, as MATCH_RECOGNIZE_DYNAMIC's
            status = (
                f"CASE WHEN {status} = '{MATCHED_STATUS}' AND NOT {MATCHED} "
                f"THEN '{UNMATCHED_STATUS}' ELSE {status} END"
            )
        measures.append((STATUS_COLUMN, status))
    if plan.one_row:
        if mode.late_rows:
            columns = ", ".join(quote(c) for c in input_columns)
            row = f"CASE WHEN {status} = '{LATE_STATUS}' THEN struct({columns}) END"
            measures.append((LATE_ROW_COLUMN, row))
        return _select(matched, plan, [quote(k) for k in keys], measures)
    order_cols = [c for c, _, _ in plan.order_by]
    others = [c for c in input_columns if c not in keys and c not in order_cols]
    return _select(
        matched, plan, [quote(c) for c in keys + order_cols], measures, [quote(c) for c in others]
    )


#: an atom column in a measure's Spark SQL, quoted or not
_ATOM = re.compile(r"`?\b(__mr_a\d+)\b`?")


def _readable(renamed: dict[str, str]) -> Callable[[str], str]:
    """A measure's Spark SQL with each atom column under its readable name."""
    return lambda text: _ATOM.sub(lambda m: quote(renamed.get(m.group(1), m.group(0))), text)


def _readable_atoms(matched: DataFrame, plan: MatchPlan) -> tuple[DataFrame, dict[str, str]]:
    """``matched`` with each atom column named as the user wrote its value
    (`` `LAST(seq)` ``), and atom -> that name: Spark's errors about a measure, at
    analysis or while the job runs (DIVIDE_BY_ZERO, CAST_INVALID_INPUT), then quote the
    user's expression, not our column names."""
    taken = {c.lower() for c in matched.columns}  # Spark's names are case-insensitive
    renamed: dict[str, str] = {}
    for atom in plan.atoms:
        name = atom.text or atom.name
        n = 1
        while name.lower() in taken:
            n += 1
            name = f"{atom.text or atom.name} #{n}"
        taken.add(name.lower())
        renamed[atom.name] = name
    return matched.withColumnsRenamed(renamed), renamed


def _select(
    df: DataFrame,
    plan: MatchPlan,
    head: list[str],
    named: list[tuple[str, str]],
    tail: tuple[str, ...] | list[str] = (),
) -> DataFrame:
    """``df.selectExpr(*head, *(text AS name), *tail)``; a Spark analysis error in one of
    the user's expressions becomes our error pointing at that expression in the query.
    A column of ours (``__mr_...``) is computed under its expression's text and renamed
    after, so that Spark's errors while the job runs (INVALID_ARRAY_INDEX, ...) show the
    user's expression, not our column name."""
    shown = _shown_names(df, named)
    texts = [marked(f"{text} AS {quote(shown[n])}") for n, text in named]
    for (name, _), text in zip(named, texts):
        remember(text, plan.clause.sql, plan.origins.get(name))
    try:
        with quiet_analysis():
            selected = analysed(df.selectExpr(*head, *texts, *tail))
        names = {shown[n]: n for n, _ in named}
        check_deterministic(selected, names, plan.clause.sql, plan.origins)
        back = {shown[n]: n for n, _ in named if shown[n] != n}
        return selected.withColumnsRenamed(back) if back else selected
    except AnalysisException as err:
        for name, text in named:
            try:
                with quiet_analysis():  # beside the same columns: an aggregate needs a group
                    analysed(df.selectExpr(*head, f"{text} AS {quote(name)}"))
            except AnalysisException as one:
                raise _expression_error(one, plan, name) from None
        raise err


def _expression_error(err: AnalysisException, plan: MatchPlan, name: str) -> MatchRecognizeError:
    """Our error, at the user's expression ``name``, for Spark's analysis error of it."""
    condition = err.getCondition() or ""
    if _reads_a_clause_result(err):
        cls, message, hint = SemanticError, *_CLAUSE_RESULT
    elif condition in _GROUP_AGGREGATES:
        cls, message, hint = UnsupportedError, *_GROUP_AGGREGATE
    else:
        cls = SemanticError
        message = f"Spark cannot evaluate this expression: {_in_users_words(err, plan)}"
        hint = _ANALYSIS_HINTS.get(condition.split(".")[0])
        close = _meant_function(err) if condition == "UNRESOLVED_ROUTINE" else None
        hint = f"did you mean {close}()? {hint}" if close else hint
    return cls(message, sql=plan.clause.sql, pos=plan.origins.get(name), hint=hint)


def _meant_function(err: AnalysisException) -> str | None:
    """The built-in function the routine Spark could not resolve misspells (``cout``:
    count), else None; a name qualified by a schema (``db.cout``) names no built-in."""
    name = (err.getMessageParameters() or {}).get("routineName", "").strip("`")
    return closest_function(name) if name and "`.`" not in name else None


#: (message, hint): a subquery reads a CTE of the statement that is a clause's result
_CLAUSE_RESULT = (
    "a subquery in DEFINE or MEASURES reads the result of another MATCH_RECOGNIZE (through "
    "a CTE of the statement), which matchrec cannot hand to it",
    "register that result first: matchrec.sql(spark, 'CREATE TEMP VIEW m AS SELECT ... "
    "MATCH_RECOGNIZE (...)'), then read m",
)

#: Spark's conditions for an aggregate outside any group (one a UDF or UDAF holds)
_GROUP_AGGREGATES = {"MISSING_GROUP_BY", "MISSING_AGGREGATION"}
_GROUP_AGGREGATE = (
    "an aggregate Spark computes over the groups of a GROUP BY (a pandas or Arrow aggregate "
    "UDF, a Java UDAF) cannot aggregate the rows of a match",
    "use an aggregate over the match (avg, sum, collect_list, ...), e.g. a scalar UDF of "
    "collect_list(x), or aggregate the ALL ROWS PER MATCH output by MATCH_NUMBER() in Spark",
)

#: Spark's condition (its first part) -> what to check, where one hint fits
_ANALYSIS_HINTS = {
    "UNRESOLVED_ROUTINE": "check the function's name (SHOW FUNCTIONS lists the session's)",
    "WRONG_NUM_ARGS": "check the number of the function's arguments",
    "DATATYPE_MISMATCH": "check the argument types, or CAST a value to the type meant",
    "UNRESOLVED_COLUMN": "check the column's name",
    "UNRESOLVED_FIELD": "check the field's name",
    "INVALID_EXTRACT_BASE_FIELD_TYPE": "a subscript or field reads an array, map or struct",
}


def _reads_a_clause_result(err: AnalysisException) -> bool:
    """Whether Spark's ``err`` is a missing view that stands for a clause's result (a
    CTE of the statement written into a subquery names it; no view of that name exists)."""
    text = str(err)
    return "TABLE_OR_VIEW_NOT_FOUND" in text and "__matchrec_" in text


def _shown_names(df: DataFrame, named: list[tuple[str, str]]) -> dict[str, str]:
    """name -> the name ``_select`` computes it under: the expression's text for our own
    columns (``__mr_...``) where that text names no other column and holds no ``${``
    (Spark's variable substitution would change the name as it changes the text), else
    the name."""
    taken = {c.lower() for c in df.columns} | {n.lower() for n, _ in named}
    shown = {}
    for name, text in named:
        readable = " ".join(text.replace("`", "").split())
        if name.startswith("__mr_") and readable.lower() not in taken and "${" not in readable:
            taken.add(readable.lower())
            shown[name] = readable
        else:
            shown[name] = name
    return shown


def analysed(df: DataFrame) -> DataFrame:
    """``df``, once Spark has analysed it. Classic PySpark analyses each DataFrame as it
    is built; Spark Connect only when something asks for its schema (or at the action),
    which is too late for an error to be translated into one pointing at the query."""
    _ = df.schema
    return df


#: a column matchrec added, as Spark's messages name it
_INTERNAL_NAME = re.compile(r"`?\b(__mr_\w+)\b`?")
_NAME_LIST = re.compile(r"\[([^\[\]]*)\]")
#: a call or name as written: RUNNING/FINAL, a dotted name, then balanced parentheses
_WRITTEN_HEAD = re.compile(r"(?:(?:RUNNING|FINAL)\s+)?[\w.`\"]+\s*", re.IGNORECASE)


def _in_users_words(err: Exception, plan: MatchPlan, whole: bool = False) -> str:
    """Spark's first line about an expression of ours, without our column names: a list
    of suggested names keeps the user's, and a column that stands for part of the
    user's expression (a PREV's window, a navigation) is shown as that part as written;
    with ``whole``, a row-local value the aggregate reads (``__mr_c0``) as its whole
    expression (only its start is known as written)."""
    first = first_line(err)
    first = _NAME_LIST.sub(
        lambda m: (
            "[" + ", ".join(i for i in m.group(1).split(", ") if not _INTERNAL_NAME.search(i)) + "]"
        ),
        first,
    )
    written = {a.name: _written_at(plan.clause.sql, a.pos) for a in plan.atoms if a.pos is not None}
    written.update((name, _written_at(plan.clause.sql, pos)) for name, pos in plan.origins.items())
    if whole:
        written.update((name, text.replace("`", "")) for name, text in plan.precomputed)

    def shown(m: re.Match[str]) -> str:
        return written.get(m.group(1)) or "(part of the expression)"

    return _INTERNAL_NAME.sub(shown, first)


def _written_at(sql: str, pos: int) -> str | None:
    """The name or call that starts at offset ``pos`` of ``sql`` as written (``PREV
    (B.value)``, ``FINAL LAST(x)``), None when none starts there."""
    head = _WRITTEN_HEAD.match(sql, pos)
    if head is None:
        return None
    end = head.end()
    if end < len(sql) and sql[end] == "(":
        return written_call(sql, pos, limit=len(sql))
    return sql[pos:end].strip() or None


def first_line(err: Exception) -> str:
    """The first line of Spark's message without its SQLSTATE and position tail (classic
    PySpark and Spark Connect word that tail differently; our caret says where)."""
    text = getattr(err, "getMessage", lambda: str(err))() or str(err)
    first = text.strip().splitlines()[0] if text.strip() else type(err).__name__
    return re.sub(r"\s*SQLSTATE: .*$", "", first)
