"""Dotted field names checked against the input's types when the query is built.

``info.cty`` of a STRUCT without ``cty``, or ``o.x`` of an INT, is an analysis error in
Spark (FIELD_NOT_FOUND, INVALID_EXTRACT_BASE_FIELD_TYPE). The batch doors asked Spark and
placed its message at the whole condition; the table function, whose row-local DEFINE
conditions Spark analyses only after ``analyze`` returned, showed Spark's raw error with
no caret. Every door knows its input columns' types, so the planner checks the path
itself and points at the field name (with the one meant, when one is close).

Spark reads a field without case (``spark.sql.caseSensitive`` is false by default; when
true, a name that matches no field without case fails there too). ``m.k`` of a MAP with
STRING keys is ``m['k']`` and ``arr.f`` of an ARRAY of STRUCTs is each element's ``f``.
A type this module cannot read ends the check: Spark then decides, as before.
"""

from __future__ import annotations

from sqlglot import exp
from sqlglot.errors import SqlglotError

from matchrec.errors import SemanticError

from .close_names import close_match
from .function_types import array_of, dtype
from .sqltext import node_pos
from .type_names import type_name

T = exp.DataType.Type
_STRINGS = (T.VARCHAR, T.TEXT, T.CHAR)
#: types with no fields at all (a type not listed is left to Spark)
_SCALARS = (*exp.DataType.TEMPORAL_TYPES, *exp.DataType.NUMERIC_TYPES, *_STRINGS, T.BOOLEAN)


def check_field_path(
    column: str,
    column_type: str | None,
    names: list[exp.Identifier],
    sql: str,
    base: int,
    start: int,
) -> None:
    """Raise at the first of ``names`` (read in turn from ``column``, of Spark type
    ``column_type`` as ``simpleString`` writes it) that Spark cannot read: at the name
    for a struct without it, at ``start`` (the dotted path's) for a value of no fields."""
    if column_type is None:
        return
    try:
        current: exp.DataType | None = dtype(column_type)
    except (SqlglotError, ValueError):
        return
    shown = column
    for name in names:
        if current is None:
            return
        current = _step(current, name, shown, sql, base, start)
        shown = f"{shown}.{name.this}"


def _step(
    t: exp.DataType, name: exp.Identifier, shown: str, sql: str, base: int, start: int
) -> exp.DataType | None:
    """The type of field ``name`` of ``t`` (the value ``shown``), or an error."""
    if t.this == T.ARRAY and t.expressions:
        inner = _step(t.expressions[0], name, shown, sql, base, start)
        return None if inner is None else array_of(inner)
    if t.this == T.MAP and len(t.expressions) == 2:
        return t.expressions[1] if t.expressions[0].this in _STRINGS else None
    if t.this != T.STRUCT:
        if t.is_type(*_SCALARS):
            raise SemanticError(
                f"[INVALID_EXTRACT_BASE_FIELD_TYPE] cannot read field {name.this} of {shown}: "
                f"it is {type_name(t).upper()}, not a STRUCT, MAP or ARRAY",
                sql=sql,
                pos=start,
                hint=f"a dotted name reads a field of a struct column; is {shown} the column "
                "you meant?",
            )
        return None
    fields = [f for f in t.expressions if isinstance(f, exp.ColumnDef)]
    found = [f for f in fields if f.name.lower() == name.this.lower()]
    if not found and fields:  # (no fields: a type text that did not read back whole)
        names = [f.name for f in fields]
        close = close_match(name.this, names)
        raise SemanticError(
            f"[FIELD_NOT_FOUND] {shown} has no field {name.this} (its fields: {', '.join(names)})",
            sql=sql,
            pos=node_pos(name, base, sql),
            hint=f"did you mean {close}?" if close else None,
        )
    kind = found[0].args.get("kind") if len(found) == 1 else None
    return kind if isinstance(kind, exp.DataType) else None
