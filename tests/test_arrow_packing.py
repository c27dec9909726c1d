"""Rows packed per bucket (what a stream's ``mapInArrow`` sends to the stateful
processor) come back as the same rows, in the same order within each bucket."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from matchrec.arrow_packing import ipc_bytes, pack, unpack, unpacked_batches


def table(n: int) -> pa.Table:
    return pa.table(
        {
            "b": pa.array([(i * 7) % 3 for i in range(n)], type=pa.int64()),
            "x": pa.array(range(n), type=pa.int64()),
            "s": pa.array([None if i % 5 == 0 else f"v{i}" for i in range(n)]),
        }
    )


@pytest.mark.parametrize("flush_rows", [1, 4, 10, 1000])
def test_each_bucket_gets_its_rows_back_in_order(flush_rows):
    rows = table(23)
    packed = pa.Table.from_batches(list(pack(rows.to_batches(max_chunksize=5), "b", flush_rows)))
    assert packed.column_names == ["b", "__mr_rows"]
    for bucket in (0, 1, 2):
        blobs = [
            blob.as_py()
            for b, blob in zip(packed.column("b"), packed.column("__mr_rows"))
            if b.as_py() == bucket
        ]
        # at most one packed row per bucket for each flush of input rows
        assert len(blobs) <= -(-23 // min(flush_rows, 23)) + 1
        got = unpack(blobs)
        want = rows.filter(pc.equal(rows.column("b"), bucket)).drop_columns(["b"])
        assert got.equals(want)


def test_no_rows_pack_to_nothing():
    assert list(pack(iter([]), "b")) == []
    assert unpack([]) is None


def test_a_packed_value_holds_any_nested_value_as_it_was():
    """A processor's output batches packed and unpacked: NaN, -0.0 and a 38-digit
    DECIMAL at any depth come back as they were (None is no value)."""
    big = pa.array([10**37 + 1, None], type=pa.decimal128(38, 0))
    batch = pa.record_batch(
        {
            "ys": pa.array([[float("nan"), -0.0], None]),
            "m": pa.array([[("k", float("nan"))], []], type=pa.map_(pa.string(), pa.float64())),
            "s": pa.StructArray.from_arrays([big], ["d"]),
        }
    )
    got = list(unpacked_batches([None, ipc_bytes(batch), ipc_bytes(batch.slice(0, 0))]))
    assert [b.num_rows for b in got] == [2, 0]
    assert got[0].schema == batch.schema
    assert repr(got[0].to_pylist()) == repr(batch.to_pylist())  # (NaN is no NaN's equal)
    assert "nan" in repr(got[0].to_pylist()) and "-0.0" in repr(got[0].to_pylist())
