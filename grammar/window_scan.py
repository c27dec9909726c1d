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

from .query_scan import Token, _is, _name_text, _opening, _relation, _word, tokenize
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
    base: tuple[int, int] | None = None  # (start, end) of the named window's body
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
            if from_at is not None and k < from_at:
                call = _named_item(sql, tokens, call, i, from_at)
            calls.append(call)
    for name, (_, _, o, c) in windows.items():
        if _has_pattern(tokens, o, c) and name not in specs:
            specs[name] = WindowSpec(name, tokens[o].end, tokens[c].start)
    if not specs:
        return None
    if from_at is None:
        raise SemanticError(
            "a window with a row pattern needs a FROM clause: the rows it matches",
            sql=sql,
            pos=tokens[i].start,
            hint="write SELECT ... FROM t WINDOW w AS (...)",
        )
    for word in ("GROUP", "HAVING"):
        if word in clauses:
            raise SemanticError(
                f"a window with a row pattern over the rows of {word} is not supported",
                sql=sql,
                pos=tokens[clauses[word]].start,
                hint="aggregate in a subquery and put the window in the query around it",
            )
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
    )


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
        first = tokens[k + 2] if k + 2 < close else None
        base = None
        skip = 0
        if first is not None and first.kind in ("word", "quoted"):
            named = windows.get(_name_text(first).upper())
            if named is not None:
                base = (tokens[named[2]].end, tokens[named[3]].start)
                skip = first.end - after.end
        specs[key] = WindowSpec(key, after.end, tokens[close].start, base, skip)
        window_end = tokens[close].end
    elif after.kind in ("word", "quoted"):
        key = _name_text(after).upper()
        named = windows.get(key)
        if named is None or not _has_pattern(tokens, named[2], named[3]):
            return None
        if key not in specs:
            specs[key] = WindowSpec(key, tokens[named[2]].end, tokens[named[3]].start)
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
    pattern = [w for w in windows if w in specs]
    if not pattern:
        return ()
    defs = list(windows.values())
    if len(pattern) == len(windows):
        return ((tokens[at].start, tokens[defs[-1][1] - 1].end),)
    spans = []
    for name in pattern:
        first, after, _, _ = windows[name]
        if after < len(tokens) and _is(tokens[after], ","):
            spans.append((tokens[first].start, tokens[after + 1].start))
        else:  # the last one: drop the comma before it
            spans.append((tokens[first - 1].start, tokens[after - 1].end))
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
