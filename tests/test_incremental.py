"""The incremental matcher (``matchrec.incremental``) fed a partition a few rows at a time,
as a stream's watermark reveals them, gives the same output as the whole partition at
once; WITHIN lets searches settle before more rows come, and timed-out partial matches
are reported once."""

from __future__ import annotations

import random
from datetime import timedelta

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st
from matchrec.grammar import parse_clause
from matchrec.planner.plan import plan_clause
from test_wave import DEFINES, PATTERNS, SKIPS, START, Columns, make_columns, run, with_precomputed

from matchrec.incremental import Cursor, Cursors, step, step_pieces

STREAM_PATTERNS = [p for p in PATTERNS if "$" not in p] + [
    "(A | B | C)*",
    "(A | B)*? C?",
    "A? B?? C?",
]


#: DEFINEs that read rows after the current one: a stream decides a row's verdict only
#: once the rows NEXT reads have come
NEXT_DEFINES = [
    "A AS A.v < NEXT(v), B AS NEXT(B.w, 2) > B.w OR b",
    "B AS B.v > PREV(B.v) AND NEXT(B.v) >= B.v, C AS NEXT(a) OR C.w > FIRST(A.w)",
    "A AS NEXT(CLASSIFIER()) IS NULL AND a, B AS count(B.*) < NEXT(v, 3)",
]

MEASURES = "MATCH_NUMBER() AS m, CLASSIFIER() AS c, count(*) AS k, PREV(v) AS p, NEXT(w, 2) AS nx"


def stream_plan(
    define: str,
    pattern: str,
    skip: str,
    rows: str,
    within: bool,
    extra: str = "",
    measures: str = MEASURES,
):
    if "{-" in pattern and "UNMATCHED" in rows:
        rows = "ALL ROWS PER MATCH"  # the standard forbids exclusions WITH UNMATCHED ROWS
    body = (
        f"ORDER BY t MEASURES {measures} {rows} {extra} AFTER MATCH SKIP {skip} "
        f"PATTERN ({pattern}) "
        f"{'WITHIN INTERVAL ' + chr(39) + '4' + chr(39) + ' SECOND ' if within else ''}"
        f"SUBSET U = (A, B) DEFINE {define}"
    )
    return body, plan_clause(parse_clause(body), ["a", "b", "v", "w", "t"], windows=False)


def ticks_of(cols: Columns, low: int, high: int) -> np.ndarray:
    return np.array(
        [(t - START) // timedelta(microseconds=1) for t in cols["t"][low:high]], dtype=np.int64
    )


def feed(program, cols: Columns, size: int, cuts: list[int], timeouts: bool = False):
    """Reveal the rows up to each cut in turn (times before the next row's time are known
    complete, as a watermark says), then end the partition; collect what is emitted."""
    cursor = Cursor()
    rows: list[int] = []
    atoms: list[list] = [[] for _ in program.atoms]
    partial_rows: list[int] = []
    limit = (program.within_seconds or 0) * 1_000_000
    all_ticks = ticks_of(cols, 0, size)
    for cut in [*cuts, size]:
        final = cut == size
        low = cursor.origin
        piece = Columns({k: v[low:cut] for k, v in cols.items()})
        piece.types = cols.types
        ticks = all_ticks[low:cut]
        horizon = all_ticks[cut] if cut < size else None
        expired = 0
        if program.within_column and horizon is not None:
            expired = int(np.searchsorted(ticks, horizon - limit, side="left"))
        done = step(
            program,
            piece,
            cut - low,
            cursor,
            expired=expired,
            final=final,
            timeouts=timeouts,
            within_ticks=(ticks, limit) if program.within_column else None,
        )
        rows += [int(r) + low for r in done.output.rows]
        for column, got in zip(atoms, done.output.atoms):
            column += got.to_pylist() if isinstance(got, pa.Array) else list(got)
        if done.timeouts is not None:
            partial_rows += [int(r) + low for r in done.timeouts.rows]
        cursor = done.cursor
    return (rows, atoms), partial_rows


@settings(max_examples=300, deadline=None)
@given(
    define=st.sampled_from(DEFINES + NEXT_DEFINES),
    pattern=st.sampled_from(STREAM_PATTERNS),
    skip=st.sampled_from(SKIPS),
    rows=st.sampled_from(
        ["ONE ROW PER MATCH", "ALL ROWS PER MATCH", "ALL ROWS PER MATCH WITH UNMATCHED ROWS"]
    ),
    within=st.booleans(),
    size=st.integers(0, 30),
    seed=st.integers(0, 100_000),
)
def test_rows_revealed_a_few_at_a_time_give_the_whole_partition_output(
    define, pattern, skip, rows, within, size, seed
):
    body, plan = stream_plan(define, pattern, skip, rows, within)
    program = plan.program
    rng = random.Random(seed)
    cols = with_precomputed(make_columns(rng, size), plan)
    # a watermark reveals rows only up to a new time: cut where the time changes
    changes = [i for i in range(1, size) if cols["t"][i] != cols["t"][i - 1]]
    cuts = sorted(rng.sample(changes, min(len(changes), rng.randint(0, 8))))
    want = run(program, cols, size)
    try:
        got, _ = feed(program, cols, size, cuts)
    except Exception as err:  # SKIP TO an absent variable fails both ways
        assert want == (type(err).__name__, str(err)), body
        return
    assert got == want, body


def test_within_settles_a_search_before_more_rows_come():
    """``A B*`` WITHIN 4 s: the match of row 0 is settled once the horizon is past 4 s,
    although no row after it is known."""
    _, plan = stream_plan(
        "A AS a, B AS NOT b",
        "A B*",
        "PAST LAST ROW",
        "ONE ROW PER MATCH",
        True,
        measures="count(*) AS k",
    )
    cols = Columns(
        a=[True, False, False],
        b=[False] * 3,
        v=[1, 2, 2],
        w=[0.0] * 3,
        t=[START + timedelta(seconds=s) for s in (0, 1, 2)],
    )
    cols = with_precomputed(cols, plan)
    program = plan.program
    ticks = ticks_of(cols, 0, 3)
    limit = 4_000_000
    before = step(program, cols, 3, Cursor(), expired=0, within_ticks=(ticks, limit))
    assert len(before.output.rows) == 0  # B* may still grow
    after = step(program, cols, 3, Cursor(), expired=1, within_ticks=(ticks, limit))
    assert [int(r) for r in after.output.rows] == [0]
    assert after.cursor.resume == 3 and after.drop >= 2


def test_a_run_that_never_completes_is_reported_once_as_timed_out():
    """``A C{2,} B`` WITHIN 4 s over five A-or-C rows and no B: one partial match of the five
    rows (the search from row 0), not one per row; searches that die (row 5 is not C)
    are not timeouts."""
    _, plan = stream_plan(
        "A AS a, B AS NOT b, C AS a",
        "A C{2,} B",
        "PAST LAST ROW",
        "ONE ROW PER MATCH",
        True,
        "WITH TIMEOUTS",
    )
    size = 8
    cols = Columns(
        a=[True] * 5 + [False] * 3,
        b=[True] * size,
        v=[1] * size,
        w=[0.0] * size,
        t=[START + timedelta(seconds=s) for s in (0, 1, 1, 2, 2, 20, 30, 40)],
    )
    cols = with_precomputed(cols, plan)
    (rows, _), partials = feed(plan.program, cols, size, [6, 7], timeouts=True)
    assert rows == []
    assert partials == [0]


#: DEFINEs of the multi-key test: those of the one-key test, and row-local ones (the
#: bits-only programs, which scan each key with the DFA)
MANY_KEY_DEFINES = (
    DEFINES
    + NEXT_DEFINES
    + [
        "A AS a, B AS NOT b",
        "A AS NOT b, B AS a, C AS a",
    ]
)


def laid_out(parts: list[Columns], held: list[tuple[int, int]]) -> tuple[Columns, list[int]]:
    """The held rows ``held[k]`` of every key's columns ``parts[k]``, side by side, and
    the first row of each key in them."""
    out = Columns({name: [] for name in parts[0]})
    out.types = parts[0].types
    lows = []
    for cols, (low, high) in zip(parts, held):
        lows.append(len(out["t"]))
        for name in out:
            out[name].extend(cols[name][low:high])
    return out, lows


def _owner(row: int, lows, highs, which: list[int], held) -> tuple[int, int]:
    """The key of a row of the laid-out columns, and its partition row."""
    i = int(np.searchsorted(lows, row, side="right")) - 1
    assert lows[i] <= row < highs[i]
    k = which[i]
    return k, row - int(lows[i]) + held[k][0]


def feed_many(program, parts: list[Columns], cuts: list[list[int]], timeouts: bool):
    """:func:`feed` for several keys at once: each round, the keys that reveal rows (a
    key with fewer cuts is done early) are stepped together by one ``step_pieces`` call
    over the held rows of all keys laid side by side (keys not stepped are gaps between
    them); keys whose partition ends this round go in a second call with ``final``."""
    keys = len(parts)
    sizes = [len(cols["t"]) for cols in parts]
    schedule = [[*c, size] for c, size in zip(cuts, sizes)]
    cursors = Cursors.new(keys)
    revealed = [0] * keys
    rows: list[list[int]] = [[] for _ in range(keys)]
    atoms: list[list[list]] = [[[] for _ in program.atoms] for _ in range(keys)]
    partials: list[list[int]] = [[] for _ in range(keys)]
    limit = (program.within_seconds or 0) * 1_000_000
    all_ticks = [ticks_of(cols, 0, size) for cols, size in zip(parts, sizes)]
    for r in range(max(len(s) for s in schedule)):
        for k in range(keys):
            if r < len(schedule[k]):
                revealed[k] = schedule[k][r]
        for final in (False, True):
            which = [
                k
                for k in range(keys)
                if r < len(schedule[k]) and (revealed[k] == sizes[k]) == final
            ]
            if not which:
                continue
            held = [(int(cursors.origin[k]), revealed[k]) for k in range(keys)]
            cols, lows = laid_out(parts, held)
            n = len(cols["t"])
            ticks = np.concatenate(
                [all_ticks[k][low:high] for k, (low, high) in enumerate(held)]
            ).astype(np.int64)
            expired = []
            for k in which:
                low, cut = held[k]
                horizon = all_ticks[k][cut] if cut < sizes[k] else None
                count = 0
                if program.within_column and horizon is not None:
                    count = int(np.searchsorted(all_ticks[k][low:cut], horizon - limit))
                expired.append(count)
            at = np.array(which, dtype=np.int64)
            piece_lows = np.array([lows[k] for k in which], dtype=np.int64)
            piece_highs = piece_lows + np.array([held[k][1] - held[k][0] for k in which])
            done = step_pieces(
                program,
                cols,
                n,
                piece_lows,
                piece_highs,
                cursors.take(at),
                expired=np.array(expired, dtype=np.int64),
                final=final,
                timeouts=timeouts,
                within_ticks=(ticks, limit) if program.within_column else None,
            )

            values = [
                got.to_pylist() if isinstance(got, pa.Array) else list(got)
                for got in done.output.atoms
            ]
            for j, row in enumerate(done.output.rows):
                k, partition_row = _owner(int(row), piece_lows, piece_highs, which, held)
                rows[k].append(partition_row)
                for column, got in zip(atoms[k], values):
                    column.append(got[j])
            if done.timeouts is not None:
                for row in done.timeouts.rows:
                    k, partition_row = _owner(int(row), piece_lows, piece_highs, which, held)
                    partials[k].append(partition_row)
            cursors.put(at, done.cursors)
    return [(rows[k], atoms[k]) for k in range(keys)], partials


@settings(max_examples=200, deadline=None)
@given(
    define=st.sampled_from(MANY_KEY_DEFINES),
    pattern=st.sampled_from(STREAM_PATTERNS),
    skip=st.sampled_from(SKIPS),
    rows=st.sampled_from(
        ["ONE ROW PER MATCH", "ALL ROWS PER MATCH", "ALL ROWS PER MATCH WITH UNMATCHED ROWS"]
    ),
    within=st.booleans(),
    keys=st.integers(1, 5),
    size=st.integers(0, 20),
    seed=st.integers(0, 100_000),
)
def test_many_keys_stepped_together_give_each_key_its_whole_partition_output(
    define, pattern, skip, rows, within, keys, size, seed
):
    """Keys matched in one step (as a stream's bucket does) give each key exactly its
    whole-partition output, and the timed-out partial matches of the key alone."""
    body, plan = stream_plan(define, pattern, skip, rows, within)
    program = plan.program
    rng = random.Random(seed)
    parts = [with_precomputed(make_columns(rng, rng.randint(0, size)), plan) for _ in range(keys)]
    cuts = []
    for cols in parts:
        t = cols["t"]
        changes = [i for i in range(1, len(t)) if t[i] != t[i - 1]]
        cuts.append(sorted(rng.sample(changes, min(len(changes), rng.randint(0, 6)))))
    want = [run(program, cols, len(cols["t"])) for cols in parts]
    errors = [w for w in want if isinstance(w[0], str)]
    try:
        got, partials = feed_many(program, parts, cuts, timeouts=within)
    except Exception as err:  # SKIP TO an absent variable fails both ways
        assert (type(err).__name__, str(err)) in errors, body
        return
    assert not errors, body
    assert got == want, body
    if within:
        alone = [feed(program, c, len(c["t"]), k, timeouts=True)[1] for c, k in zip(parts, cuts)]
        assert partials == alone, body
