"""Find row pattern recognition in windows inside a whole Spark SQL query.

SQL:2016 (feature R020) lets a window specification hold a row pattern::

    SELECT id, val OVER w, count(*) OVER w
    FROM t
    WINDOW w AS (PARTITION BY k ORDER BY id MEASURES LAST(v) AS val
                 ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING PATTERN (A B+) DEFINE ...)

Spark's parser knows none of it. Like :mod:`.query_scan` for MATCH_RECOGNIZE, this
scanner only locates things, respecting strings, quoted names and comments: each SELECT
that uses such a window, its FROM and WHERE (the window's input), its window
specifications with a pattern (named in WINDOW or written in OVER (...)), the calls over
them (``m OVER w`` for a measure, ``f(...) OVER w`` for a window function), and the
``*`` of its select list. The specifications are parsed by the grammar as clause bodies.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from matchrec.errors import SemanticError, SqlSyntaxError

from .query_scan import (
    Token,
    _is,
    _name_text,
    _opening,
    _relation,
    _word,
    refuse_unbalanced,
    tokenize,
)
from .query_scan import _matching as _closing  # the ``)`` of a ``(``

#: words that end a SELECT's FROM clause (and each other clause) at its depth
_CLAUSES = {
    "WHERE",
    "GROUP",
    "HAVING",
    "WINDOW",
    "QUALIFY",
    "ORDER",
    "SORT",
    "CLUSTER",
    "DISTRIBUTE",
    "LIMIT",
    "OFFSET",
}
#: words that end a SELECT at its depth
_SET_OPERATORS = {"UNION", "EXCEPT", "INTERSECT", "MINUS"}
#: window functions that ignore the frame: over a row pattern window they see the
#: partition as its PARTITION BY and ORDER BY give it
RANKING = {
    "row_number",
    "rank",
    "dense_rank",
    "percent_rank",
    "cume_dist",
    "ntile",
    "lag",
    "lead",
}


@dataclass(frozen=True)
class WindowSpec:
    """A window specification with a row pattern: the text inside its parentheses, and
    for ``OVER (w MEASURES ...)`` the body of the named window ``w`` it extends."""

    key: str  # the window's name (upper case), or "#<offset>" for one written in OVER
    body_start: int
    body_end: int
    #: (start, end) of the bodies of the named windows it extends, nearest first, each
    #: without the name of the window it extends in turn (``w2 AS (w1 ...)``)
    base: tuple[tuple[int, int], ...] = ()
    body_skip: int = 0  # characters of the body's start that name the base window


@dataclass(frozen=True)
class WindowCall:
    """``m OVER w`` (``measure``) or ``f(...) OVER w`` (``function``: the call's text)."""

    start: int
    end: int  # the end of the window's name or of OVER's ``)``
    spec: str  # the key of its WindowSpec
    measure: str | None = None
    measure_pos: int = -1
    function: str | None = None
    function_name: str = ""
    function_pos: int = -1
    #: the call is a whole item of the select list without an alias: the column it
    #: becomes is named as written (the measure's name, or the call's text)
    name: str | None = None
    #: the functions whose arguments hold the call: (name, offset of the name)
    enclosing: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class WindowSelect:
    """One SELECT that calls measures or functions over windows with a row pattern."""

    select_start: int
    from_start: int  # the first character after FROM
    input_end: int  # the end of the FROM clause, or of WHERE when there is one
    alias: str | None  # the input relation's name, when FROM has one relation
    joined: bool  # FROM has several relations (a join, or a comma)
    specs: tuple[WindowSpec, ...]
    calls: tuple[WindowCall, ...]
    removals: tuple[tuple[int, int], ...]  # WINDOW definitions to drop
    stars: tuple[tuple[int, int, str | None], ...]  # ``*`` / ``q.*`` of the select list
    end: int  # the end of the SELECT
    from_end: int = -1  # the end of the FROM clause (before WHERE)
    #: GROUP BY's keys (spans of column names): the windows run over the groups
    group_keys: tuple[tuple[int, int], ...] = ()
    group_end: int = -1  # the end of the GROUP BY clause
    having: tuple[int, int] | None = None  # the span of ``HAVING ...``


def _depths(tokens: list[Token]) -> list[int]:
    """The parenthesis depth at each token (a ``(`` or ``)`` counts as outside)."""
    depths, depth = [], 0
    for tok in tokens:
        if _is(tok, ")"):
            depth -= 1
        depths.append(depth)
        if _is(tok, "("):
            depth += 1
    return depths


def _has_pattern(tokens: list[Token], i: int, j: int) -> bool:
    """Whether the parentheses ``tokens[i]``..``tokens[j]`` hold ``PATTERN (`` at their
    own level: a window specification with a row pattern."""
    depth = 0
    for k in range(i + 1, j):
        t = tokens[k]
        if _is(t, "("):
            depth += 1
        elif _is(t, ")"):
            depth -= 1
        elif depth == 0 and _word(t, "PATTERN") and k + 1 < j and _is(tokens[k + 1], "("):
            return True
    return False


def find_pattern_windows(sql: str) -> list[WindowSelect]:
    """Every SELECT of ``sql`` that uses a window with a row pattern, in text order."""
    tokens = tokenize(sql)
    if not any(_word(t, "PATTERN") for t in tokens):
        return []
    refuse_unbalanced(tokens, sql)
    depths = _depths(tokens)
    selects = [i for i, t in enumerate(tokens) if _word(t, "SELECT")]
    spans = [(i, _select_end(tokens, depths, i)) for i in selects]
    found = []
    for i, end in spans:
        inner = [s for s in spans if s != (i, end) and i < s[0] < end]
        select = _scan_select(sql, tokens, depths, i, end, inner)
        if select is not None:
            found.append(select)
    return found


def _select_end(tokens: list[Token], depths: list[int], i: int) -> int:
    """Index of the first token after the SELECT at ``i``."""
    d = depths[i]
    for j in range(i + 1, len(tokens)):
        t = tokens[j]
        if depths[j] < d or (depths[j] == d and (_is(t, ";") or t.text.upper() in _SET_OPERATORS)):
            return j
    return len(tokens)


def _scan_select(
    sql: str,
    tokens: list[Token],
    depths: list[int],
    i: int,
    end: int,
    inner: list[tuple[int, int]],
) -> WindowSelect | None:
    d = depths[i]

    def own(k: int) -> bool:  # token k belongs to this SELECT, not to a nested one
        return not any(a <= k < b for a, b in inner)

    clauses: dict[str, int] = {}
    from_at = None
    for k in range(i + 1, end):
        t = tokens[k]
        if depths[k] != d or t.kind != "word":
            continue
        word = t.text.upper()
        if word == "FROM" and from_at is None:
            from_at = k
        elif word in _CLAUSES and from_at is not None and word not in clauses:
            clauses[word] = k
    windows = _named_windows(sql, tokens, clauses.get("WINDOW"), clauses, end)
    specs: dict[str, WindowSpec] = {}
    calls: list[WindowCall] = []
    for k in range(i + 1, end):
        if not (_word(tokens[k], "OVER") and own(k)) or k + 1 >= end:
            continue
        call = _call(sql, tokens, k, windows, specs)
        if call is not None:
            call = _nesting(sql, tokens, call, i, clauses.get("WINDOW"))
            if from_at is not None and k < from_at:
                call = _named_item(sql, tokens, call, i, from_at)
            calls.append(call)
    for name, (_, _, o, c) in windows.items():
        if _has_pattern(tokens, o, c) and name not in specs:
            specs[name] = _spec(sql, tokens, name, o, c, windows)
    if not specs:
        return None
    if from_at is None:
        raise SemanticError(
            "a window with a row pattern needs a FROM clause: the rows it matches",
            sql=sql,
            pos=tokens[i].start,
            hint="write SELECT ... FROM t WINDOW w AS (...)",
        )
    grouping = _grouping(sql, tokens, depths, clauses, end)
    after_from = min([clauses[w] for w in clauses if w != "WHERE"] + [end])
    where = clauses.get("WHERE")
    relation_end = where if where is not None else after_from
    if relation_end == from_at + 1:
        raise SqlSyntaxError("FROM needs a table or subquery", sql=sql, pos=tokens[from_at].end)
    found = _relation(tokens, relation_end)
    alias = found[2] if found is not None and found[0] == from_at + 1 else None
    joined = any(
        depths[k] == d and (_is(tokens[k], ",") or _word(tokens[k], "JOIN"))
        for k in range(from_at + 1, relation_end)
    )
    removals = _removals(tokens, clauses.get("WINDOW"), windows, specs, sql)
    return WindowSelect(
        select_start=tokens[i].start,
        from_start=tokens[from_at].end,
        input_end=tokens[after_from - 1].end,
        alias=alias,
        joined=joined,
        specs=tuple(specs.values()),
        calls=tuple(calls),
        removals=removals,
        stars=_stars(tokens, depths, i, from_at),
        end=tokens[end - 1].end,
        from_end=tokens[relation_end - 1].end,
        group_keys=grouping[0],
        group_end=grouping[1],
        having=grouping[2],
    )


#: words of a GROUP BY that make it more than a list of columns
_GROUPING_WORDS = {"ROLLUP", "CUBE", "GROUPING", "SETS", "ALL", "WITH"}


def _grouping(
    sql: str, tokens: list[Token], depths: list[int], clauses: dict[str, int], end: int
) -> tuple[tuple[tuple[int, int], ...], int, tuple[int, int] | None]:
    """GROUP BY of a SELECT with a row pattern window: the spans of its keys (each a
    column), the end of the clause, and the span of HAVING (its whole text)."""

    def stop(at: int) -> int:
        return min([k for k in clauses.values() if k > at] + [end])

    having = None
    if "HAVING" in clauses:
        at = clauses["HAVING"]
        having = (tokens[at].start, tokens[stop(at) - 1].end)
    if "GROUP" not in clauses:
        if having is not None:
            raise SemanticError(
                "a window with a row pattern over the rows of HAVING without GROUP BY is not "
                "supported",
                sql=sql,
                pos=having[0],
                hint="aggregate in a subquery and put the window in the query around it",
            )
        return (), -1, None
    at = clauses["GROUP"]
    last = stop(at)
    keys, k = [], at + 2
    while k < last:
        j = k
        while j < last and not (_is(tokens[j], ",") and depths[j] == depths[at]):
            j += 1
        item = tokens[k:j]
        plain = all(
            t.kind in ("word", "quoted") if n % 2 == 0 else _is(t, ".") for n, t in enumerate(item)
        )
        if not item or not plain or len(item) % 2 == 0 or item[0].text.upper() in _GROUPING_WORDS:
            where = item[0] if item else tokens[at]
            raise SemanticError(
                "a window with a row pattern over GROUP BY takes grouping keys that are columns",
                sql=sql,
                pos=where.start,
                hint="group in a subquery (naming each key) and put the window in the query "
                "around it",
            )
        keys.append((item[0].start, item[-1].end))
        k = j + 1
    return tuple(keys), tokens[last - 1].end, having


def _named_windows(
    sql: str, tokens: list[Token], at: int | None, clauses: dict[str, int], end: int
) -> dict[str, tuple[int, int, int, int]]:
    """``WINDOW w AS (...), v AS (...)``: name (upper case) -> token indexes of the name,
    the end of its definition (the token after ``)``), ``(`` and ``)``."""
    if at is None:
        return {}
    stop = min([k for k in clauses.values() if k > at] + [end])
    found = {}
    k = at + 1
    while k + 2 < stop and _word(tokens[k + 1], "AS") and _is(tokens[k + 2], "("):
        close = _closing(tokens, k + 2, sql)
        name = _name_text(tokens[k]).upper()
        found[name] = (k, close + 1, k + 2, close)
        k = close + 1
        if k < stop and _is(tokens[k], ","):
            k += 1
        else:
            break
    return found


def _call(
    sql: str,
    tokens: list[Token],
    k: int,
    windows: dict[str, tuple[int, int, int, int]],
    specs: dict[str, WindowSpec],
) -> WindowCall | None:
    """The call whose OVER is ``tokens[k]``, if its window has a row pattern."""
    after = tokens[k + 1]
    if _is(after, "("):
        close = _closing(tokens, k + 1, sql)
        if not _has_pattern(tokens, k + 1, close):
            return None
        key = f"#{after.start}"
        specs[key] = _spec(sql, tokens, key, k + 1, close, windows)
        window_end = tokens[close].end
    elif after.kind in ("word", "quoted"):
        key = _name_text(after).upper()
        named = windows.get(key)
        if named is None:
            if any(_has_pattern(tokens, o, c) for _, _, o, c in windows.values()):
                raise SemanticError(
                    f"Cannot resolve WINDOW name {_name_text(after)}",
                    sql=sql,
                    pos=after.start,
                    hint="the WINDOW clause names: "
                    + ", ".join(_name_text(tokens[n]) for n, _, _, _ in windows.values()),
                )
            return None
        if not _has_pattern(tokens, named[2], named[3]):
            return None
        if key not in specs:
            specs[key] = _spec(sql, tokens, key, named[2], named[3], windows)
        window_end = after.end
    else:
        return None
    j = k - 1
    before = tokens[j]
    if before.kind in ("word", "quoted") and not _word(before, "NULLS"):
        return WindowCall(
            before.start, window_end, key, measure=_name_text(before), measure_pos=before.start
        )
    # f(...) [FILTER (WHERE ...)] [IGNORE | RESPECT NULLS] OVER w
    if _word(before, "NULLS") and j >= 1:
        j -= 2
    if j >= 0 and _is(tokens[j], ")"):
        o = _opening(tokens, j)
        if o >= 1 and _word(tokens[o - 1], "FILTER") and o >= 2 and _is(tokens[o - 2], ")"):
            o = _opening(tokens, o - 2)
        if o >= 1 and tokens[o - 1].kind in ("word", "quoted"):
            start = tokens[o - 1].start
            return WindowCall(
                start,
                window_end,
                key,
                function=sql[start : tokens[k - 1].end],
                function_name=_name_text(tokens[o - 1]).lower(),
                function_pos=start,
            )
    raise SqlSyntaxError(
        "OVER a window with a row pattern follows a measure's name or a window function",
        sql=sql,
        pos=tokens[k].start,
        hint="write m OVER w for a measure m of the window, or e.g. count(*) OVER w",
    )


#: words before ``(`` that open no function's arguments
_NOT_FUNCTIONS = {"IN", "EXISTS", "AS", "FROM", "JOIN", "SELECT", "WHERE", "AND", "OR", "NOT"}


def _spec(
    sql: str,
    tokens: list[Token],
    key: str,
    open_at: int,
    close: int,
    windows: dict[str, tuple[int, int, int, int]],
) -> WindowSpec:
    """The specification in ``tokens[open_at]``..``tokens[close]``, with the chain of named
    windows its body starts with (``(w MEASURES ...)``, w maybe ``(v ORDER BY ...)``)."""
    bases: list[tuple[int, int]] = []
    skip = 0
    o, c, seen = open_at, close, {key}
    while o + 1 < c and tokens[o + 1].kind in ("word", "quoted"):
        name = _name_text(tokens[o + 1]).upper()
        named = windows.get(name)
        if named is None or name in seen:
            break
        seen.add(name)
        if not bases:
            skip = tokens[o + 1].end - tokens[o].end
        else:  # the previous base's body starts with this window's name: leave it out
            low, high = bases[-1]
            bases[-1] = (tokens[o + 1].end, high)
        o, c = named[2], named[3]
        bases.append((tokens[o].end, tokens[c].start))
    return WindowSpec(key, tokens[open_at].end, tokens[close].start, tuple(bases), skip)


def _nesting(
    sql: str, tokens: list[Token], call: WindowCall, select: int, window_at: int | None
) -> WindowCall:
    """``call`` with the functions whose arguments hold it; a call inside another window's
    specification or a window function's arguments is an error (as Trino and Spark)."""
    first = next(j for j, t in enumerate(tokens) if t.start == call.start)
    enclosing = []
    depth = 0
    for j in range(first - 1, select, -1):
        t = tokens[j]
        if _is(t, ")"):
            depth += 1
            continue
        if not _is(t, "("):
            continue
        if depth:
            depth -= 1
            continue
        prev = tokens[j - 1]
        in_window = window_at is not None and j > window_at and _word(prev, "AS")
        if _word(prev, "OVER") or in_window:
            raise SemanticError(
                "Cannot nest window functions or row pattern measures inside window specification",
                sql=sql,
                pos=call.start,
                hint="compute the measure in a subquery and use its column in the window",
            )
        if prev.kind not in ("word", "quoted") or prev.text.upper() in _NOT_FUNCTIONS:
            continue
        name = _name_text(prev)
        after = _closing(tokens, j, sql) + 1
        if after < len(tokens) and _word(tokens[after], "FILTER"):
            after = _closing(tokens, after + 1, sql) + 1
        if after + 1 < len(tokens) and tokens[after + 1].text.upper() == "NULLS":
            after += 2
        if after < len(tokens) and _word(tokens[after], "OVER"):
            raise SemanticError(
                f"Cannot nest window functions or row pattern measures inside window "
                f"function '{name}'",
                sql=sql,
                pos=call.start,
                hint="compute the measure in a subquery and call the window function in "
                "the query around it",
            )
        enclosing.append((name, prev.start))
    return replace(call, enclosing=tuple(enclosing))


def _named_item(
    sql: str, tokens: list[Token], call: WindowCall, select: int, from_at: int
) -> WindowCall:
    """``call`` with the name its column gets when it is a select item of its own
    without an alias (``val OVER w`` is column ``val``)."""
    first = next(j for j, t in enumerate(tokens) if t.start == call.start)
    last = next(j for j, t in enumerate(tokens) if t.end == call.end)
    before = tokens[first - 1]
    after = tokens[last + 1] if last + 1 < len(tokens) else None
    starts_item = first - 1 == select or _is(before, ",") or _word(before, "DISTINCT")
    ends_item = after is None or _is(after, ",") or last + 1 == from_at
    if not (starts_item and ends_item):
        return call
    name = call.measure if call.measure is not None else sql[call.start : call.end]
    return replace(call, name=" ".join(name.split()))


def _removals(
    tokens: list[Token],
    at: int | None,
    windows: dict[str, tuple[int, int, int, int]],
    specs: dict[str, WindowSpec],
    sql: str,
) -> tuple[tuple[int, int], ...]:
    """The spans to delete so that the WINDOW clause keeps only windows without a row
    pattern (all of it when none is left)."""
    if at is None:
        return ()
    # and the windows that extend another (``w1 AS (w0 ORDER BY c)``, which Spark does not
    # parse): bases of windows with a row pattern, read into their clauses
    pattern = [
        w
        for w, (_, _, o, c) in windows.items()
        if w in specs
        or (
            o + 1 < c
            and tokens[o + 1].kind in ("word", "quoted")
            and _name_text(tokens[o + 1]).upper() in windows
        )
    ]
    if not pattern:
        return ()
    defs = list(windows.values())
    if len(pattern) == len(windows):
        return ((tokens[at].start, tokens[defs[-1][1] - 1].end),)
    # each run of dropped definitions goes with the comma after it, the last run with
    # the comma before it
    names = list(windows)
    spans = []
    k = 0
    while k < len(names):
        if names[k] not in pattern:
            k += 1
            continue
        run = k
        while k < len(names) and names[k] in pattern:
            k += 1
        first = windows[names[run]][0]
        if k < len(names):
            spans.append((tokens[first].start, tokens[windows[names[k]][0]].start))
        else:
            kept_end = tokens[windows[names[run - 1]][1] - 1].end
            spans.append((kept_end, tokens[windows[names[k - 1]][1] - 1].end))
    return tuple(spans)


def _stars(
    tokens: list[Token], depths: list[int], i: int, from_at: int
) -> tuple[tuple[int, int, str | None], ...]:
    """``*`` and ``q.*`` items of the select list: (start, end, qualifier)."""
    d = depths[i]
    found = []
    for k in range(i + 1, from_at):
        t = tokens[k]
        if not _is(t, "*") or depths[k] != d:
            continue
        nxt = tokens[k + 1]
        if not (_is(nxt, ",") or _word(nxt, "FROM")):
            continue
        prev = tokens[k - 1]
        if _is(prev, ".") and tokens[k - 2].kind in ("word", "quoted"):
            found.append((tokens[k - 2].start, t.end, tokens[k - 2].text))
        elif _is(prev, ",") or prev.text.upper() in ("SELECT", "DISTINCT", "ALL"):
            found.append((t.start, t.end, None))
    return tuple(found)
