"""The streaming processor driven by PySpark's ``TwsTester`` (no stream, no JVM): rows
packed as the stream's ``mapInArrow`` packs them, the watermark set by hand, the state
peeked at between calls. The real streams are in ``test_streaming.py``; these check what
a stream hides: when rows are held and dropped, which timers are set, which rows are
late."""

from __future__ import annotations

from datetime import datetime, timedelta

import pandas as pd
import pyarrow as pa
from matchrec.grammar import parse_clause
from matchrec.planner.plan import plan_clause
from matchrec.runtime.streaming import BUCKET, LATE, MatchProcessor
from pyspark.sql.streaming.tws_tester import TwsTester

from matchrec.arrow_packing import PACKED, pack, unpack, unpacked_batches
from matchrec.keyed_stream import EVENT_MICROS, KeyedStream, StreamSpec, concat_held

BODY = """PARTITION BY card ORDER BY ts
    MEASURES FIRST(S.ts) AS first_ts, count(S.*) AS smalls
    ONE ROW PER MATCH WITH TIMEOUTS
    PATTERN (S{3,} B) WITHIN INTERVAL '10' MINUTE
    DEFINE S AS amount < 2, B AS amount > 500"""
START = datetime(2026, 11, 2, 9, 0)


def processor() -> tuple[MatchProcessor, StreamSpec]:
    plan = plan_clause(parse_clause(BODY), ["card", "ts", "amount"], windows=False)
    assert [text for _, text in plan.precomputed] == ["`amount` < 2", "`amount` > 500"]
    spec = StreamSpec(
        program=plan.program,
        keys=["card"],
        order=plan.order_by,
        carried=["card"],
        atom_types=[pa.timestamp("us", tz="UTC"), pa.int64()],
        buckets=4,
        timeouts=True,
    )
    return MatchProcessor(spec), spec


def rows(*items: tuple[str, float, float]) -> pd.DataFrame:
    """The rows as the processor receives them: packed, one bucket (as Spark's
    ``mapInArrow`` gives them: timestamps in microseconds, UTC)."""
    times = [START + timedelta(minutes=m) for _, m, _ in items]
    amounts = [a for _, _, a in items]
    table = pa.table(
        {
            "card": pa.array([c for c, _, _ in items]),
            "ts": pa.array(times, type=pa.timestamp("us")).cast(pa.timestamp("us", tz="UTC")),
            "amount": pa.array(amounts, type=pa.float64()),
            "__mr_c0": pa.array([a < 2 for a in amounts]),
            "__mr_c1": pa.array([a > 500 for a in amounts]),
            EVENT_MICROS: pa.array(
                [int((t - datetime(1970, 1, 1)).total_seconds() * 1e6) for t in times]
            ),
            BUCKET: pa.array([0] * len(items), type=pa.int64()),
        }
    )
    return pa.Table.from_batches(list(pack(table.to_batches(), BUCKET))).to_pandas()


def matched_rows(out: pd.DataFrame) -> pd.DataFrame:
    """The rows of a processor's output (it yields them packed, as Arrow IPC values)."""
    packed = [blob for blob in out[PACKED] if blob is not None] if len(out) else []
    batches = list(unpacked_batches(packed))
    return pa.Table.from_batches(batches).to_pandas() if batches else pd.DataFrame()


def event_millis(row: pd.Series) -> int:
    """The tester's late filter sees packed rows: the processor finds late rows itself."""
    return 2**62


def millis(minute: float) -> int:
    return int((START + timedelta(minutes=minute) - datetime(1970, 1, 1)).total_seconds() * 1000)


def held(tester: TwsTester, spec: StreamSpec) -> tuple[int, dict]:
    found = tester.peekValueState("bucket", 0)
    stream = KeyedStream.load(spec, found[0] if found else None)
    return stream.held_rows, stream.cursors


def test_rows_wait_for_the_watermark_then_match_and_leave_nothing_held():
    proc, spec = processor()
    tester = TwsTester(proc, timeMode="EventTime", eventTimeExtractor=event_millis)
    # out of order; nothing is final before a watermark
    first = tester.testInPandas(0, rows(("a", 2, 1.0), ("a", 0, 1.0), ("a", 1, 1.5)))
    assert len(matched_rows(first)) == 0
    assert held(tester, spec)[0] == 3
    assert tester.handle.listTimers() is not None
    tester.testInPandas(0, rows(("a", 3, 900.0)))
    out = matched_rows(tester.setWatermark(millis(5)))  # past every row: the timer fires
    assert out["__mr_a1"].tolist() == [3]
    assert out["__mr_status"].tolist() == ["MATCHED"]
    count, cursors = held(tester, spec)
    assert count == 0  # no live search: the key holds no row, only its cursor
    assert cursors[("a",)].number == 2


def test_a_run_cut_off_by_within_is_a_timeout_and_its_rows_are_dropped():
    proc, spec = processor()
    tester = TwsTester(proc, timeMode="EventTime", eventTimeExtractor=event_millis)
    tester.testInPandas(0, rows(("b", 0, 1.0), ("b", 1, 1.0), ("b", 2, 1.0), ("b", 3, 1.0)))
    assert len(matched_rows(tester.setWatermark(millis(4)))) == 0  # the search may go on
    assert held(tester, spec)[0] == 4
    out = matched_rows(tester.setWatermark(millis(11)))  # 10 minutes after the first row
    assert out["__mr_status"].tolist() == ["TIMEOUT"]
    assert out["__mr_a1"].tolist() == [4]
    # the searches from the later rows are still within their bound: rows kept until then
    assert held(tester, spec)[0] == 3
    tester.setWatermark(millis(20))
    assert held(tester, spec)[0] == 0


def test_rows_at_or_behind_the_watermark_the_bucket_passed_are_late_and_counted():
    proc, spec = processor()
    tester = TwsTester(proc, timeMode="EventTime", eventTimeExtractor=event_millis)
    tester.testInPandas(0, rows(("c", 0, 1.0), ("c", 1, 1.0), ("c", 2, 1.0)))
    tester.setWatermark(millis(2))
    # 1 minute is behind the watermark, 2 is at it: late; 3 and 4 are on time
    out = tester.testInPandas(0, rows(("c", 1, 1.0), ("c", 2, 1.0), ("c", 3, 1.0), ("c", 4, 900)))
    late = out[out[LATE].notna()]
    assert late[LATE].tolist() == [2]
    matched = matched_rows(tester.setWatermark(millis(9)))
    assert matched["__mr_a1"].tolist() == [4]  # S S S S B: the late rows are not in it
    assert held(tester, spec)[0] == 0
    found = tester.peekValueState("bucket", 0)
    assert KeyedStream.load(spec, found[0]).watermark == millis(9) * 1000


def test_rows_held_under_one_time_zone_go_on_under_another():
    """A query restarted from its checkpoint under another session time zone: the held
    rows' timestamps carry the old zone, the new rows' the new one; the bucket goes on
    with both (pyarrow refused to join them: "Cannot merge timestamps with differing
    timezones"), and the match starts at the held row's instant."""
    proc, spec = processor()
    tester = TwsTester(proc, timeMode="EventTime", eventTimeExtractor=event_millis)
    tester.testInPandas(0, rows(("z", 0, 1.0), ("z", 1, 1.0)))
    stream = KeyedStream.load(spec, tester.peekValueState("bucket", 0)[0])
    assert stream.held_rows == 2
    later = unpack(rows(("z", 2, 1.0), ("z", 3, 900.0))[PACKED])
    tokyo = pa.timestamp("us", tz="Asia/Tokyo")
    later = later.set_column(
        later.schema.get_field_index("ts"), "ts", later.column("ts").cast(tokyo)
    )
    done = stream.advance(later, millis(9) * 1000)
    out = pa.Table.from_batches(done.batches).to_pylist()
    assert [(r["__mr_status"], r["__mr_a1"]) for r in out] == [("MATCHED", 3)]
    assert out[0]["__mr_a0"].replace(tzinfo=None) == START


def test_held_rows_of_another_zone_join_the_new_rows_at_any_depth():
    """What a bucket of MATCH_RECOGNIZE_DYNAMIC holds joins the same way (its pending
    events were joined without the zone change: pyarrow's ArrowInvalid)."""
    instant = datetime(2026, 11, 2, 9, 0)

    def table(zone: str) -> pa.Table:
        kind = pa.timestamp("us", tz=zone)
        ts = pa.array([instant], type=pa.timestamp("us")).cast(pa.timestamp("us", tz="UTC"))
        ts = ts.cast(kind)
        return pa.table({"ts": ts, "s": pa.StructArray.from_arrays([ts], ["t"]), "n": [1]})

    joined = concat_held(table("America/Los_Angeles"), table("Asia/Tokyo"))
    assert joined.schema == table("Asia/Tokyo").schema
    times = [r["s"]["t"].astimezone(None).timestamp() for r in joined.to_pylist()]
    assert times[0] == times[1]
