"""A stream's bucket (``matchrec.keyed_stream.KeyedStream``) matches all its keys in one
step: its output must be what each key gives in a bucket of its own, whatever the
arrival order within the watermark delay, the micro-batches and the state round trips
(the state is saved and loaded between every two calls, as the processor does)."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import given, settings
from hypothesis import strategies as st
from test_incremental import MANY_KEY_DEFINES, STREAM_PATTERNS, stream_plan
from test_wave import SKIPS, START, Columns, make_columns, with_precomputed

from matchrec.arrow_rows import atom_column, group_starts, key_tuples, sortable_keys
from matchrec.keyed_stream import EVENT_MICROS, KeyedStream, StreamSpec

MEASURES = "MATCH_NUMBER() AS m, count(*) AS n, LAST(v) AS l, PREV(w) AS p"
ATOM_TYPES = [pa.int64(), pa.int64(), pa.int64(), pa.float64()]
DELAY = 3_000_000  # the watermark delay, in microseconds
EPOCH = datetime(1970, 1, 1)


def key_table(key: str, cols: Columns, names: list[str]) -> pa.Table:
    """One key's rows as the processor hands them over: input and precomputed columns,
    the key, and the event time in microseconds."""
    size = len(cols["t"])
    arrays = {"k": pa.array([key] * size, type=pa.string())}
    for name in names:
        kind = cols.types.get(name, pa.timestamp("us") if name == "t" else None)
        arrays[name] = pa.array(cols[name], type=kind)
    micros = [int((t - EPOCH).total_seconds() * 1_000_000) for t in cols["t"]]
    arrays[EVENT_MICROS] = pa.array(micros, type=pa.int64())
    return pa.table(arrays)


def run_stream(spec: StreamSpec, chunks: list[pa.Table], marks: list[int]) -> list[tuple]:
    """The output rows of one bucket fed ``chunks`` with watermarks ``marks``, then a
    watermark past every row; the state goes through save/load between calls. A wake-up
    time is after the watermark it was set at: Spark fires a timer at or behind it in
    the same micro-batch, after the bucket advanced, and it would wake nothing again."""
    blob = None
    out: list[tuple] = []
    for chunk, mark in [*zip(chunks, marks), (None, marks[-1] + 10**12 if marks else 10**18)]:
        stream = KeyedStream.load(spec, blob)
        done = stream.advance(chunk, mark)
        assert done.wake_micros is None or done.wake_micros > mark
        blob = stream.save()
        for batch in done.batches:
            out += [tuple(row.values()) for row in batch.to_pylist()]
    return sorted(out, key=repr)


@settings(max_examples=120, deadline=None)
@given(
    define=st.sampled_from(MANY_KEY_DEFINES),
    pattern=st.sampled_from(STREAM_PATTERNS),
    skip=st.sampled_from(SKIPS),
    rows=st.sampled_from(["ONE ROW PER MATCH", "ALL ROWS PER MATCH WITH UNMATCHED ROWS"]),
    within=st.booleans(),
    keys=st.integers(1, 5),
    size=st.integers(0, 15),
    chunks=st.integers(1, 6),
    seed=st.integers(0, 100_000),
)
def test_a_bucket_of_many_keys_emits_what_a_bucket_per_key_emits(
    define, pattern, skip, rows, within, keys, size, chunks, seed
):
    timeouts = within and rows == "ONE ROW PER MATCH"
    extra = "WITH TIMEOUTS" if timeouts else ""
    body, plan = stream_plan(define, pattern, skip, rows, within, extra, measures=MEASURES)
    rng = random.Random(seed)
    names = None
    tables = []
    for k in range(keys):
        cols = with_precomputed(make_columns(rng, rng.randint(0, size)), plan)
        names = names or list(cols)
        tables.append(key_table(f"k{k}", cols, names))
    table = pa.concat_tables(tables)
    # arrival: event time plus up to 2 s of jitter (under the 3 s delay: no row is late)
    events = table.column(EVENT_MICROS).to_numpy()
    jitter = np.array([rng.randint(0, 2_000_000) for _ in range(table.num_rows)])
    table = table.take(pa.array(np.argsort(events + jitter, kind="stable")))
    cuts = sorted(rng.sample(range(1, table.num_rows), max(0, min(chunks - 1, table.num_rows - 1))))
    edges = [0, *cuts, table.num_rows]
    parts = [table.slice(low, high - low) for low, high in zip(edges, edges[1:])]
    marks, seen = [], None
    for part in parts:
        if part.num_rows:
            top = int(np.max(part.column(EVENT_MICROS).to_numpy()))
            seen = top if seen is None else max(seen, top)
        marks.append(None if seen is None else seen - DELAY)
    carried = ["k", *names] if not plan.program.one_row else ["k"]
    spec = StreamSpec(
        program=plan.program,
        keys=["k"],
        order=plan.order_by,
        carried=carried,
        atom_types=ATOM_TYPES,
        buckets=1,
        timeouts=timeouts,
    )

    def outcome(chunks_of_bucket: list[pa.Table]):
        try:
            return run_stream(spec, chunks_of_bucket, marks)
        except Exception as err:  # SKIP TO an absent variable fails both ways
            return type(err).__name__

    together = outcome(parts)
    alone = []
    for k in range(keys):
        mine = [p.filter(pa.compute.equal(p.column("k"), f"k{k}")) for p in parts]
        alone.append(outcome(mine))
    errors = [a for a in alone if isinstance(a, str)]
    if errors or isinstance(together, str):
        assert together in errors, body
        return
    assert together == sorted((row for rows_of in alone for row in rows_of), key=repr), body


def test_a_search_past_within_waiting_for_the_row_next_reads_wakes_when_that_row_is_final():
    """B's verdict reads the row after it (NEXT), which is far later and not final yet
    when the watermark passes the search's WITHIN bound: the bucket must wake once that
    row is final (after the watermark: a timer at or behind it fires at once and is
    spent), and the match comes out then."""
    body, plan = stream_plan(
        "A AS a, B AS NEXT(v) > v", "A B", "PAST LAST ROW", "ONE ROW PER MATCH", True, "", MEASURES
    )

    seconds = [0, 1, 30, 31]
    cols = Columns(
        a=[True, False, False, False],
        b=[False] * 4,
        v=[1, 2, 3, 0],
        w=[0.0] * 4,
        t=[START + timedelta(seconds=s) for s in seconds],
    )
    table = key_table("k", with_precomputed(cols, plan), list(with_precomputed(cols, plan)))
    spec = StreamSpec(
        program=plan.program,
        keys=["k"],
        order=plan.order_by,
        carried=["k"],
        atom_types=ATOM_TYPES,
        buckets=1,
    )
    stream = KeyedStream(spec, None, None)
    mark = int((START - EPOCH).total_seconds() * 1e6) + 10_000_000  # rows 0 and 1 final
    done = stream.advance(table, mark)
    assert not done.batches
    assert done.wake_micros is not None and done.wake_micros > mark, body
    out = []
    while done.wake_micros is not None:  # as the processor's timer wakes it
        mark = done.wake_micros
        done = stream.advance(None, mark)
        assert done.wake_micros is None or done.wake_micros > mark
        out += [row[atom_column(0)] for b in done.batches for row in b.to_pylist()]
    assert out == [1]


def test_a_key_of_nan_zero_struct_or_array_finds_its_partition_in_every_table():
    """A bucket finds a key's cursor by the key's values, read anew from each micro-batch
    and from its saved state: NaN (any NaN) and -0.0 (as 0.0), alone or inside a struct
    or an array, must find the partition Spark puts them in."""
    nan = float("nan")
    keys = ["d", "s", "a"]
    first = pa.table(
        {"d": [nan, -0.0, 1.0], "s": [{"x": nan}, {"x": 0.0}, None], "a": [[nan], [-0.0], []]}
    )
    second = pa.table(
        {"d": [-nan, 0.0, 1.0], "s": [{"x": -nan}, {"x": -0.0}, None], "a": [[-nan], [0.0], []]}
    )
    slot = {key: i for i, key in enumerate(key_tuples(first, keys))}
    again = key_tuples(second, keys)
    assert [slot.get(key) for key in again] == [0, 1, 2]
    assert repr(list(again[1])) == "[0.0, {'x': -0.0}, [0.0]]"  # the values as written
    both = pa.concat_tables([first, second])
    table, names = sortable_keys(both, keys)
    ordered = both.take(pc.sort_indices(table, sort_keys=[(n, "ascending") for n in names]))
    assert group_starts(ordered, keys) == [2, 4]
