"""Move row-local functions of one navigated row inside the navigation, so Spark computes them.

``unix_timestamp(FIRST(S.ts))`` reads one row (the first S row) and applies a function to
it: that is ``FIRST(unix_timestamp(S.ts))``, and there the function is row-local, a
column Spark computes before matching with its own semantics (types, NULLs, ANSI
errors, SQL and Python UDFs). DEFINE's Python glue is then left with the comparison
around it. :func:`push_down` rewrites a DEFINE condition that way wherever every value
a sub-expression reads comes from the same navigated row (``FIRST(S.x)``,
``LAST(S.x, 2)``, another variable's column ``A.x``, which is ``LAST(A.x)``), the rest
being constants, and the glue does not have every function in it (what it has, like
arithmetic or ``coalesce``, stays in the glue and in its array form).

Only the row's absence needs care: ``FIRST(f(S.x))`` is NULL while no S row exists, but
``f(FIRST(S.x))`` is ``f(NULL)``, not always NULL (``coalesce``, ``concat_ws``, a UDF).
Functions known to give NULL for a NULL argument are moved as they are; for any other
the result is ``CASE WHEN count(S.*) > offset THEN FIRST(f(S.x)) ELSE f(NULL) END``,
where ``f(NULL)`` is row-local too (each column replaced by a NULL of its type); in
MEASURES, where a RUNNING ``FIRST`` reads the whole match, FIRST's count is FINAL.

MEASURES of the table function use the same rewrite (their glue runs in Python, see
``planner.measure_eval``): there no row is current, so ``f(NULL)`` is read at the last
row of the match (``absent="last"``), which every match but an empty one has; for a
pattern that can match empty, functions that are not NULL-preserving stay where they
are (``absent=None``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from sqlglot import exp

from matchrec.errors import SEMANTICS_MARK

from .decompose import decompose, is_internal
from .higher_order import reads_outer_parameter
from .lazy import may_raise
from .pyeval import compiles, date_cast
from .raising_calls import fails_on_plain_values
from .sqltext import STANDS_FOR, call_name

# nodes that give NULL whenever one argument is NULL (and so commute with a navigation
# that finds no row); everything else gets the explicit absent-row branch (size() too:
# -1 of a NULL when ANSI is off)
_STRICT_NAMES = (
    "Add Sub Mul Div Mod IntDiv EQ NEQ LT LTE GT GTE DPipe Like ILike RegexpLike Cast "
    "TryCast Neg Abs Lower Upper Length Substring Trim Round Floor Ceil Sqrt Ln Exp Pow "
    "DateDiff TimestampDiff AddMonths MonthsBetween DateAdd DateSub TsOrDsAdd TsOrDsToDate "
    "StrToUnix TimeToUnix UnixToTime "
    "TimestampTrunc DateTrunc Year Month Day Quarter DayOfWeek DayOfMonth DayOfYear "
    "WeekOfYear Hour Minute Second Extract Concat Interval Paren Sign Initcap Left Right "
    "Reverse Repeat Lpad Rpad StrPosition Md5 SHA SHA2 Unhex Hex Dot Bracket "
    "TimeToStr TimeStrToTime UnixToStr RegexpExtract RegexpReplace LastDay JSONExtractScalar "
    "ParseUrl"
)
STRICT: tuple[type, ...] = tuple(
    getattr(exp, n) for n in _STRICT_NAMES.split() if isinstance(getattr(exp, n, None), type)
)

_STRICT_OR_LEAF = set(STRICT) | {
    exp.Column,
    exp.Literal,
    exp.Boolean,
    exp.Null,
    exp.Identifier,
    exp.DataType,
    exp.Var,
}

#: the parsed literal path of ``get_json_object`` (its parts are constants)
_PATH = (exp.JSONPath, exp.JSONPathPart)

# what a sub-expression reads: "const", "local" (the current row), a navigated row
# (kind, offset, qualifier, physical steps) or None (several rows, aggregates, ...)
Ref = str | tuple[str, int, str | None, int] | None


def push_down(
    tree: exp.Expression,
    local_labels: set,
    qualifier: Callable[[exp.Column], str | None],
    special: Callable[[exp.Expression], str | None],
    aggregate: Callable[[exp.Expression], str | None],
    glue_evaluates: Callable[[exp.Expression], bool],
    absent: str | None = "local",
    ansi: bool = False,
    column_type: Callable[[str], str | None] = lambda name: None,
    kept_call: Callable[[exp.Expression], bool] = lambda node: False,
    lags: bool = True,
    found: Callable[[str, int, str | None], bool] = lambda kind, offset, label: False,
) -> exp.Expression:
    """``tree`` with each maximal function of one navigated row moved inside the
    navigation (see the module docstring). ``qualifier``, ``special`` and ``aggregate``
    are the lowering's own helpers: a column's pattern variable, PREV/NEXT/FIRST/LAST/
    CLASSIFIER/MATCH_NUMBER of a call, and the aggregate a call is; ``glue_evaluates``
    tells whether DEFINE's Python glue has every operator of a sub-expression;
    ``absent`` says where ``f(NULL)`` of an absent row is computed: ``"local"`` (the
    current row), ``"last"`` (the match's last row) or None (nowhere: only functions
    that are NULL for a NULL argument move). ``ansi``: the session's ANSI mode, under
    which a CAST of another row's value that can fail stays in the glue
    (:func:`failing_cast`, which reads the input's ``column_type`` by lower-case name:
    a ``simpleString``, None where unknown). ``kept_call``: a call the glue runs itself
    on the one row read (a session UDF, which can fail on a row the match never reads
    as Spark's column over every row would), kept with what around it the glue runs.
    ``lags``: Spark computes PREV/NEXT of the current row's values before matching (LAG
    and LEAD over the sorted partition: batch); without (a stream, a rule, a clause in a
    time window) the matcher reads that row, so a function of it moves inside the
    navigation as of any other row (``PREV(LAST(date_add(d, 1)), 1)``). ``found``: whether
    FIRST/LAST of a variable at an offset finds its row wherever it is read, so that no
    f(NULL) of an absent row is computed (Spark would call a UDF on NULL for every row)."""

    def ref(node: exp.Expression) -> Ref:
        if isinstance(node, (exp.Literal, exp.Boolean, exp.Null, exp.DataType, exp.Var)):
            return "const"
        if isinstance(node, (exp.Subquery, exp.Exists, exp.Select, exp.Identifier)):
            return "local" if not isinstance(node, exp.Identifier) else "const"
        if isinstance(node, exp.Column):
            if isinstance(node.this, exp.Star):
                return None
            q = qualifier(node)
            return "local" if q in local_labels else ("LAST", 0, q, 0)
        kind = special(node)
        if kind in ("FIRST", "LAST"):
            row = _navigated_row(node, kind, qualifier, special, aggregate, absent != "local")
            return row
        if kind in ("PREV", "NEXT"):
            lagged = local_labels if lags else set()
            row = _physical_row(node, kind, lagged, qualifier, special, aggregate)
            if row is None and lags and absent == "local" and _lagged(node, ref):
                return "local"  # Spark's LAG/LEAD of the current row: a column of its own
            return row
        if kind or aggregate(node) or isinstance(node, exp.Window):
            return None
        refs = [ref(c) for c in node.iter_expressions()]
        rows = {r for r in refs if isinstance(r, tuple)}
        if None in refs or len(rows) > 1 or (rows and "local" in refs):
            return None
        if rows:
            return rows.pop()
        return "local" if "local" in refs else "const"

    def keeps(node: exp.Expression, fails: bool | None = None) -> bool:
        """Whether the glue computes ``node`` of one navigated row: what it evaluates, and
        what can fail on a row the condition never reads (a subscript, a failing function
        or CAST, a session UDF) where it compiles the rest; ``fails``: whether ``node``
        does, if known (:func:`_fails_somewhere`)."""
        fails = _fails_somewhere(node) if fails is None else fails
        # (an ANSI division of a row's value under a CAST or call the glue would not keep)
        fails = fails or (ansi and any(_divides_by_value(n) for n in node.walk()))
        return (
            glue_evaluates(node)
            or (fails and compiles_with_casts(constants_as_atoms(node)))
            or (ansi and failing_cast(node, column_type) and compiles_with_casts(node))
            or _keeps_call(node, kept_call)
        )

    def constants_as_atoms(node: exp.Expression) -> exp.Expression:
        """``node`` with its constant calls the glue lacks (``current_timezone()`` of a
        split ``date_format``) as NULLs: Spark computes those, as any constant part."""
        return node.transform(
            lambda n: (
                exp.Null()
                if isinstance(n, exp.Func) and ref(n) == "const" and not compiles(n)
                else n
            )
        )

    def rewrite(node: exp.Expression) -> exp.Expression:
        """Push every maximal single-row sub-expression of ``node`` (in place)."""
        r = ref(node)
        if r is None and not (special(node) or aggregate(node)):
            # a function of several rows: its one-row parts, if it has an exact split
            parts = decompose(node)
            if parts is not None:
                return _standing_for(rewrite(parts), node)
        # ``b => x`` is no value of its own; a split's call (``__MR_BASE64``) is the glue's
        movable = not isinstance(node, exp.Kwarg) and not (
            isinstance(node, exp.Anonymous) and is_internal(node.name)
        )
        if (
            isinstance(r, tuple)
            and movable
            and _composite(node, special)
            and not reads_outer_parameter(node)
        ):
            # what the glue evaluates itself (arithmetic, coalesce, lower, ...) stays, so
            # conditions keep their array form and measured speed
            # a physical step may leave the partition: only NULL-preserving functions
            # move inside it (the absent-row branch below knows logical absence only)
            fails = _fails_somewhere(node)
            if fails:
                # a failing call under one Spark computes whole (``date_add(make_date(
                # 2024, 2, FIRST(B.i)), 1)``) or the glue has for some types only
                # (``to_char`` of a DATE): split into parts the glue keeps, if any
                split = split_all(node, lambda n: ref(n) != "const")
                if split is not None and keeps(split):
                    return _standing_for(rewrite(split), node)
            kept = keeps(node, fails)
            pushed = None if kept else _pushed(node, r, special, absent, found)
            if pushed is not None:
                return pushed
            parts = None if kept else decompose(node)
            if parts is not None:  # it cannot move (``decode(NEXT(x), ...)``): its split
                return _standing_for(rewrite(parts), node)
        if special(node) or aggregate(node) or isinstance(node, (exp.Subquery, exp.Select)):
            return node  # their arguments are read at other rows, or are Spark's already
        for child in _arguments(node):
            new = rewrite(child)
            if new is not child:
                child.replace(new)
        return node

    return rewrite(tree)


def _keeps_call(node: exp.Expression, kept_call: Callable[[exp.Expression], bool]) -> bool:
    """Whether ``node`` has a call ``kept_call`` keeps and the glue compiles the rest."""
    kept = {id(n) for n in node.walk() if isinstance(n, exp.Anonymous) and kept_call(n)}
    return bool(kept) and compiles(node, also=lambda n: id(n) in kept)


def _divides_by_value(node: exp.Expression) -> bool:
    """Whether ``node`` is a division or remainder whose divisor may be zero (not a
    constant other than 0): under ANSI mode, Spark fails on such a row."""
    if not may_raise(node):  # (a division or a remainder)
        return False
    divisor = node.expression.unnest()
    return not (isinstance(divisor, exp.Literal) and not divisor.is_string and float(divisor.this))


def _fails_somewhere(node: exp.Expression) -> bool:
    """Whether ``node`` has a subscript or a call that fails on some values (not one that
    parses text: ``pushdown.failing_cast`` and the README's known difference)."""
    return failing_subscript(node) or any(fails_on_plain_values(n) for n in node.walk())


def split_all(
    node: exp.Expression, splits: Callable[[exp.Expression], bool]
) -> exp.Expression | None:
    """A copy of ``node`` with every exact split of :func:`decompose` applied to the
    sub-expressions ``splits`` says, nested ones too (``unix_date(date_sub(x, 3))`` to
    the glue's day arithmetic of ``x``); None when no split applies."""
    changed = False

    def split(n: exp.Expression) -> exp.Expression:
        nonlocal changed
        if not splits(n):
            return n
        parts = decompose(n)
        if parts is not None:
            changed = True
            if n.parent is not None:
                n.replace(parts)
            n = parts
        for child in list(n.iter_expressions()):
            split(child)
        return n

    new = split(node.copy())
    return new if changed else None


def failing_subscript(node: exp.Expression) -> bool:
    """Whether ``node`` subscripts an array in a way that fails for a short one under ANSI
    mode (``arr[0]``, ``element_at(arr, 1)``; a string key reads a map, NULL if absent).
    Moved inside the navigation, Spark would compute it on every row, and fail on a row
    the match never reads; the glue subscripts the one row read (``LAST(B.arr)[0].n``)."""
    return any(
        isinstance(n, exp.Bracket)
        and not n.args.get("safe")
        and not all(isinstance(i, exp.Literal) and i.is_string for i in n.expressions)
        for n in node.walk()
    )


def failing_cast(node: exp.Expression, column_type: Callable[[str], str | None]) -> bool:
    """Whether ``node`` has a CAST that can fail under ANSI mode (``CAST(A.s AS INT)``,
    ``A.s::DATE``, ``to_date(A.s)`` of a STRING; a number narrowed). Moved inside the
    navigation, Spark would cast every row's value, and fail the job on a row the
    condition never reads as that variable (another event's text); the glue casts the
    one row read, as Spark does. TRY_CAST, a cast to a string and one that widens
    (``CAST(A.price AS DOUBLE)`` of an INT column) cannot fail: Spark's column stays."""
    for n in node.walk():
        if date_cast(n):
            target = exp.DataType.build("DATE")
        elif isinstance(n, (exp.Cast, exp.TryCast)) and not n.args.get("safe"):
            target = n.to
        else:
            continue
        sources = {column_type(c.name.lower()) for c in n.this.find_all(exp.Column)}
        if not target.is_type(*exp.DataType.TEXT_TYPES) and not _widens(sources, target):
            return True
    return False


_NUMBERS = re.compile(r"tinyint|smallint|int|bigint|float|double|decimal\(\d+,\d+\)")
_DATETIMES = {"date", "timestamp", "timestamp_ntz"}


def _widens(sources: set[str | None], target: exp.DataType) -> bool:
    """Whether a CAST of values of columns of types ``sources`` to ``target`` never fails:
    numbers to DOUBLE, FLOAT or BOOLEAN, dates and timestamps to each other."""
    T = exp.DataType.Type
    if not sources or None in sources:
        return False
    if all(_NUMBERS.fullmatch(s) for s in sources if s is not None):
        return target.is_type(T.DOUBLE, T.FLOAT, T.BOOLEAN)
    if sources <= _DATETIMES:
        return target.is_type(T.DATE, T.TIMESTAMP, T.TIMESTAMPLTZ, T.TIMESTAMPNTZ)
    return False


def compiles_with_casts(node: exp.Expression) -> bool:
    """Whether the glue compiles ``node``, its CASTs included (to the types it converts,
    ``measure_eval.cast_evaluator``)."""
    from .measure_eval import glue_casts_to  # it builds on the planner's expressions

    casts = [n for n in node.walk() if isinstance(n, (exp.Cast, exp.TryCast))]
    if not all(glue_casts_to(c.to) for c in casts):
        return False
    return compiles(_without_casts(node.copy()))


def _without_casts(node: exp.Expression) -> exp.Expression:
    """``node`` (changed in place) with every CAST and date cast replaced by its operand,
    nested ones too (sqlglot's ``transform`` does not visit a replacement's children)."""
    for child in list(node.iter_expressions()):
        _without_casts(child)
    if not (isinstance(node, (exp.Cast, exp.TryCast)) or date_cast(node)):
        return node
    operand = node.this
    if node.parent is not None:
        node.replace(operand)
    return operand


def _arguments(node: exp.Expression) -> list[exp.Expression]:
    """The sub-expressions of ``node`` that may move: those of ``map(k1, v1, ...)`` are its
    keys and values, not the ARRAY(k1, ...) and ARRAY(v1, ...) sqlglot holds them in (a
    map of those moved as one value cannot be written back as Spark SQL); those of a
    CASE are its operand, conditions, results and ELSE, not its WHEN ... THEN pairs
    (sqlglot's ``If`` nodes, no value of their own)."""
    children = list(node.iter_expressions())
    if isinstance(node, exp.VarMap):
        return [e for c in children for e in (c.expressions if isinstance(c, exp.Array) else [c])]
    if isinstance(node, exp.Case):
        return [e for c in children for e in (_arguments(c) if _is_when(c, node) else [c])]
    return children


def _is_when(node: exp.Expression, case: exp.Case) -> bool:
    """Whether ``node`` is one WHEN ... THEN pair of ``case``."""
    return isinstance(node, exp.If) and any(node is w for w in case.args.get("ifs") or [])


def _lagged(node: exp.Expression, ref: Callable[[exp.Expression], Ref]) -> bool:
    """Whether ``PREV/NEXT(x[, k])`` reads the current row's values ``k`` rows away (a
    literal ``k``), which Spark computes before matching (LAG/LEAD)."""
    read = _stepped(node)
    return read is not None and ref(read[0]) == "local"


def _stepped(node: exp.Expression) -> tuple[exp.Expression, int] | None:
    """(argument, literal steps) of ``PREV/NEXT(x[, k])``; None for another form."""
    args = list(node.expressions)
    if not args or len(args) > 2:
        return None
    if len(args) == 1:
        return args[0], 1
    o = args[1]
    if not (isinstance(o, exp.Literal) and not o.is_string and o.this.isdigit()):
        return None
    return args[0], int(o.this)


def _physical_row(node, kind, local_labels, qualifier, special, aggregate) -> Ref:
    """The row of ``PREV/NEXT(FIRST/LAST(S.x[, n])[, k])`` or ``PREV/NEXT(S.x[, k])`` (S
    another variable: its last row so far, ``k`` rows back or ahead); None otherwise
    (PREV of the current row's values is Spark's LAG, row-local already)."""
    read = _stepped(node)
    if read is None:
        return None
    arg, steps = read
    physical = -steps if kind == "PREV" else steps
    inner = arg.this if isinstance(arg, exp.Paren) else arg
    inner_kind = special(inner)
    if inner_kind in ("FIRST", "LAST"):
        row = _navigated_row(inner, inner_kind, qualifier, special, aggregate)
    elif inner_kind is None:
        row = _navigated_row(
            exp.Anonymous(this="LAST", expressions=[inner.copy()]),
            "LAST",
            qualifier,
            special,
            aggregate,
        )
        if isinstance(row, tuple) and row[2] in local_labels:
            return None
    else:
        return None
    if not isinstance(row, tuple):
        return None
    return (row[0], row[1], row[2], physical)


def _navigated_row(node, kind, qualifier, special, aggregate, final: bool = False) -> Ref:
    """(kind, offset, qualifier) of ``FIRST/LAST(arg[, offset])`` when ``arg`` reads the
    columns of one variable only (no nested navigation or aggregate). ``final``: FINAL
    navigation counts too (MEASURES), its kind is then the call's marked name."""
    semantics, _ = call_name(node)
    args = list(node.expressions)
    if (semantics == "FINAL" and not final) or not args or len(args) > 2:
        return None
    if semantics == "FINAL":
        kind = str(node.this)
    offset = 0
    if len(args) == 2:
        o = args[1]
        if not (isinstance(o, exp.Literal) and not o.is_string and o.this.isdigit()):
            return None
        offset = int(o.this)
    names = set()
    for n in args[0].walk():
        if n is not args[0] and (special(n) or aggregate(n)):
            return None
        if special(n) or aggregate(n) or isinstance(n, (exp.Subquery, exp.Select)):
            return None
        if isinstance(n, exp.Column):
            if isinstance(n.this, exp.Star):
                return None
            names.add(qualifier(n))
    if len(names) != 1:
        return None
    return (kind, offset, names.pop(), 0)


def _strict(node: exp.Expression) -> bool:
    """Whether ``node`` is NULL whenever a column it reads is NULL."""
    # exact types: a subclass may differ (ConcatWs is a Concat that skips NULLs)
    return all(type(n) in _STRICT_OR_LEAF or isinstance(n, _PATH) for n in node.walk())


#: calls that fail on a NULL key (Spark's NULL_MAP_KEY): their value for an absent row,
#: computed by Spark on every row, would fail the job though no output reads it
_NULL_KEY_FAILS = (exp.VarMap, exp.Map, exp.MapFromEntries, exp.StrToMap)


def _fails_on_null(node: exp.Expression) -> bool:
    """Whether ``node`` builds a map of a row's values (a constant map of options is
    never NULL)."""
    return any(
        (
            isinstance(n, _NULL_KEY_FAILS)
            or (isinstance(n, exp.Anonymous) and n.name.upper() in ("MAP", "MAP_FROM_ARRAYS"))
        )
        and n.find(exp.Column) is not None
        for n in node.walk()
    )


def _composite(node: exp.Expression, special) -> bool:
    """Whether ``node`` is more than a bare navigation or column (worth pushing)."""
    node = node.this if isinstance(node, exp.Paren) else node
    if isinstance(node, (exp.PropertyEQ, exp.Alias)):
        return False  # a field name of STRUCT(x AS name): its value may be pushed
    return not (isinstance(node, exp.Column) or special(node) in ("FIRST", "LAST"))


def _pushed(
    node,
    row: tuple[str, int, str | None, int],
    special,
    absent: str | None,
    found: Callable[[str, int, str | None], bool],
) -> exp.Expression | None:
    kind, offset, label, physical = row
    inner = node.copy()
    for n in list(inner.walk()):
        if special(n) in ("PREV", "NEXT"):
            n.replace(_unnavigated(n))
    for n in list(inner.walk()):
        if special(n) in ("FIRST", "LAST"):
            n.replace(_unnavigated(n))
    if physical and not _strict(inner):
        return None
    args = [inner] + ([exp.Literal.number(offset)] if offset else [])
    navigation = exp.Anonymous(this=kind, expressions=args)
    if physical:
        step = "PREV" if physical < 0 else "NEXT"
        navigation = exp.Anonymous(
            this=step, expressions=[navigation, exp.Literal.number(abs(physical))]
        )
    if _strict(inner) or (not physical and kind in ("FIRST", "LAST") and found(*row[:3])):
        return _standing_for(exp.Paren(this=navigation), node)
    if absent is None or kind not in ("FIRST", "LAST") or _fails_on_null(inner):
        return None  # (FINAL: the absent-row test below counts the running rows)
    # f(NULL) for an absent row: each column of the row replaced by a NULL of its type
    absent_value = inner.copy()
    for col in list(absent_value.find_all(exp.Column)):
        plain = exp.column(col.name, quoted=bool(col.this.args.get("quoted")))
        col.replace(exp.If(this=exp.false(), true=plain, false=exp.null()))
    if absent == "last":
        absent_value = exp.Anonymous(this="LAST", expressions=[absent_value])
    if label is None:
        star: exp.Expression = exp.Star()
    else:
        star = exp.Column(
            this=exp.Star(), table=exp.to_identifier(label, quoted=label != label.upper())
        )
    # FIRST reads the whole match in a RUNNING measure too (README), so in MEASURES its
    # row is there when the match has it, not only when the rows so far do
    count = (
        exp.Anonymous(this=f"FINAL{SEMANTICS_MARK}count", expressions=[star])
        if kind == "FIRST" and absent == "last"
        else exp.Count(this=star)
    )
    present = exp.GT(this=count, expression=exp.Literal.number(offset))
    return _standing_for(
        exp.Paren(this=exp.Case(ifs=[exp.If(this=present, true=navigation)], default=absent_value)),
        node,
    )


def _unnavigated(navigation: exp.Expression) -> exp.Expression:
    """The value a navigation reads, for the row it reads; as an argument of
    ``arrays_zip``, wrapped so that Spark still names its field by its place, as it
    names that of the navigation written, not after the column it now is."""
    value = navigation.expressions[0]
    return exp.Coalesce(this=value) if isinstance(navigation.parent, exp.ArraysZip) else value


def _standing_for(pushed: exp.Expression, written: exp.Expression) -> exp.Expression:
    """``pushed``, remembering the node it replaces (its messages quote that one)."""
    pushed.meta[STANDS_FOR] = written
    return pushed
