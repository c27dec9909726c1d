"""Columns whose type PySpark's Arrow conversion cannot carry to the matcher.

PySpark 4.3 has no Arrow type for year-month intervals (``INTERVAL YEAR``, ``INTERVAL
YEAR TO MONTH``, ...): a DataFrame holding one fails inside ``mapInArrow`` with an error
about Arrow; a ``CALENDAR INTERVAL`` goes in (Arrow's month-day-nano interval) but
cannot come out. A year-month column the matcher only carries along (ALL ROWS PER
MATCH, or a column the clause never reads) travels as its number of months and gets its
type back after the matcher; a calendar interval Spark computes for DEFINE
(``make_interval(0, 0, 0, PREV(n))``) is read by the matcher; any other value of such a
type the matcher reads, carries or computes is an error naming it, before any job runs.

Arrow also refuses a struct with two fields of one name (``struct(id, id)``, which Spark
allows): such a column travels with the repeated names made unique and gets its type
back after the matcher (a cast, by position).
"""

from __future__ import annotations

from matchrec.planner.plan import MatchPlan, quote
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import (
    ArrayType,
    CalendarIntervalType,
    DataType,
    MapType,
    NullType,
    StructField,
    StructType,
    YearMonthIntervalType,
)

from matchrec.errors import SemanticError, UnsupportedError

_HINT = (
    "compute it as a number of months (CAST(CAST(x AS INTERVAL YEAR TO MONTH) AS INT)) "
    "and make the interval in the query around the clause (make_ym_interval(0, months))"
)


def holds(t: DataType, kinds: tuple[type, ...]) -> bool:
    """Whether ``t`` is one of the types ``kinds``, or holds one at any depth (an array's
    elements, a map's keys or values, a struct's fields)."""
    if isinstance(t, kinds):
        return True
    if isinstance(t, ArrayType):
        return holds(t.elementType, kinds)
    if isinstance(t, MapType):
        return holds(t.keyType, kinds) or holds(t.valueType, kinds)
    if isinstance(t, StructType):
        return any(holds(f.dataType, kinds) for f in t.fields)
    return False


def _uncarried(t: DataType) -> bool:
    """Whether ``t`` is, or holds, a type PySpark's Arrow conversion has no form for."""
    return holds(t, (YearMonthIntervalType, CalendarIntervalType))


def nullable_voids(t: DataType) -> DataType:
    """``t`` with every NULL-typed element, map value or struct field marked nullable.

    Spark types ``collect_list(NULL)`` (``array_agg(NULL)``) as an array of VOID that
    contains no NULL; Arrow has no non-nullable field of its null type, so PySpark's
    conversion of that type fails. Only the nullability flag changes: the values are the
    same (an array of VOID holds nothing but NULLs, which collect_list drops)."""
    if isinstance(t, ArrayType):
        inner = nullable_voids(t.elementType)
        return ArrayType(inner, t.containsNull or isinstance(inner, NullType))
    if isinstance(t, MapType):
        value = nullable_voids(t.valueType)
        return MapType(
            nullable_voids(t.keyType), value, t.valueContainsNull or isinstance(value, NullType)
        )
    if isinstance(t, StructType):
        return StructType(
            [
                StructField(
                    f.name,
                    nullable_voids(f.dataType),
                    f.nullable or isinstance(f.dataType, NullType),
                    f.metadata,
                )
                for f in t.fields
            ]
        )
    return t


def _unique_names(t: DataType) -> DataType | None:
    """``t`` with the repeated field names of every struct in it made unique (``id``,
    ``id`` becomes ``id``, ``id_2``), or None if no struct in ``t`` repeats a name."""
    if isinstance(t, ArrayType):
        inner = _unique_names(t.elementType)
        return None if inner is None else ArrayType(inner, t.containsNull)
    if isinstance(t, MapType):
        key, value = _unique_names(t.keyType), _unique_names(t.valueType)
        if key is None and value is None:
            return None
        return MapType(key or t.keyType, value or t.valueType, t.valueContainsNull)
    if not isinstance(t, StructType):
        return None
    names = [f.name for f in t.fields]
    inner = [_unique_names(f.dataType) for f in t.fields]
    if len(set(names)) == len(names) and all(i is None for i in inner):
        return None
    fields, taken = [], set(names)
    for i, (f, new) in enumerate(zip(t.fields, inner)):
        name = f.name
        if names.index(name) != i:  # a repeat: the first keeps the name
            n = i + 1
            while f"{name}_{n}" in taken:
                n += 1
            name = f"{name}_{n}"
            taken.add(name)
        fields.append(StructField(name, new or f.dataType, f.nullable, f.metadata))
    return StructType(fields)


def months_for_arrow(
    df: DataFrame, plan: MatchPlan, atom_types: list[DataType]
) -> tuple[DataFrame, dict[str, DataType]]:
    """``df`` with each year-month column the matcher only carries as INT months, and
    those columns' types; raise for a value of an uncarried type the matcher reads."""
    for atom, t in zip(plan.atoms, atom_types):
        if _uncarried(t):
            raise SemanticError(
                f"{atom.text} is {t.simpleString().upper()}, a type matchrec cannot compute "
                "over the match (PySpark passes no such values to Python)",
                sql=plan.clause.sql,
                pos=atom.pos,
                hint=_HINT,
            )
    # what the matcher reads, as the user wrote it: a key, or a value Spark computes
    read = {name: name for name in plan.partition_by}
    read.update(
        (name, name if name == text.strip("`") else text) for name, text in plan.precomputed
    )
    computed = {name for name, _ in plan.precomputed}
    encoded: dict[str, DataType] = {}
    for f in df.schema.fields:
        if not _uncarried(f.dataType) or _read_as_interval(f, computed):
            continue
        key = f.name in plan.partition_by  # compared for equality only: months will do
        if (f.name in read and not key) or not isinstance(f.dataType, YearMonthIntervalType):
            raise SemanticError(
                f"{read.get(f.name, f.name)} is {f.dataType.simpleString().upper()}, a type "
                "matchrec's matcher cannot read (PySpark has no Arrow form for it)",
                sql=plan.clause.sql,
                pos=plan.origins.get(f.name),
                hint=_HINT,
            )
        encoded[f.name] = f.dataType
    unique = {}
    for f in df.schema.fields:
        new = _unique_names(f.dataType)
        if new is not None and f.name not in encoded:
            encoded[f.name] = f.dataType
            unique[f.name] = F.col(quote(f.name)).cast(new)
    if not encoded:
        return df, encoded
    months = {
        name: F.expr(f"CAST(CAST({quote(name)} AS INTERVAL YEAR TO MONTH) AS INT)")
        for name in encoded
        if name not in unique
    }
    return df.withColumns({**months, **unique}), encoded


def _read_as_interval(f: StructField, computed: set[str]) -> bool:
    """Whether ``f`` is a CALENDAR INTERVAL that Spark computes for the matcher to read
    (``PREV(ts) + make_interval(0, 0, 0, PREV(n))``): Arrow carries it into the matcher,
    which computes with it; only out of Python has PySpark no form for it."""
    return isinstance(f.dataType, CalendarIntervalType) and f.name in computed


def atoms_for_arrow(
    plan: MatchPlan, atom_types: list[DataType], encoded: dict[str, DataType]
) -> list[DataType]:
    """The types the matcher emits its atoms in: a struct whose field names repeat with
    them made unique, that atom's own type recorded in ``encoded`` for
    :func:`months_restored`."""
    emitted = []
    for atom, t in zip(plan.atoms, atom_types):
        new = _unique_names(t)
        if new is not None:
            encoded[atom.name] = t
        emitted.append(nullable_voids(new or t))
    return emitted


def months_restored(matched: DataFrame, encoded: dict[str, DataType]) -> DataFrame:
    """The matcher's output with each column :func:`months_for_arrow` encoded back in
    its type: a year-month interval, or a struct whose field names repeat."""
    if not encoded:
        return matched
    present = [name for name in encoded if name in matched.columns]
    return matched.withColumns(
        {
            name: F.expr(
                f"CAST(make_ym_interval(0, {quote(name)}) AS {encoded[name].simpleString()})"
            )
            if _uncarried(encoded[name])
            else F.col(quote(name)).cast(encoded[name])
            for name in present
        }
    )


#: how a year-month column reaches a table function: as its months
_MONTHS_HINT = (
    "select it as a number of months in the table argument, "
    "TABLE(SELECT ..., CAST(CAST(x AS INTERVAL YEAR TO MONTH) AS INT) AS x ...), "
    "or use matchrec.sql, which carries such columns"
)


def refuse_uncarried(
    schema: StructType,
    what: str,
    sql: str | None,
    pos: int | None = 0,
    to: str = "a Python table function",
    hint: str = _MONTHS_HINT,
) -> None:
    """Raise for the first column of ``schema`` (the table function's input or output,
    MATCH_RECOGNIZE_DYNAMIC's events: ``what`` says which) whose type PySpark passes to
    no Python code (``to`` says which)."""
    for f in schema.fields:
        if _uncarried(f.dataType):
            raise UnsupportedError(
                f"{what} column {f.name} is {f.dataType.simpleString().upper()}: PySpark "
                f"passes no such values to {to}",
                sql=sql,
                pos=pos,
                hint=hint,
            )
