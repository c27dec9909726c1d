"""Drive a real Structured Streaming query from a folder of Parquet files, one file per
micro-batch, with its checkpoint and its Parquet output on disk (tests only)."""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.pandas.types import to_arrow_type
from pyspark.sql.types import StructType

FAR = timedelta(days=3650)  # a row this far ahead moves the watermark past everything


class FolderStream:
    """A stream of rows written as Parquet files into ``root/in``; the query under test
    writes Parquet into ``root/out`` with its checkpoint in ``root/chk``."""

    def __init__(self, spark: SparkSession, root: Path, schema: StructType, event: str, delay: str):
        self.spark, self.root, self.schema = spark, root, schema
        self.event, self.delay = event, delay
        self.inbox = root / "in"
        self.out = root / "out"
        self.checkpoint = root / "chk"
        self.inbox.mkdir(parents=True, exist_ok=True)
        self._files = itertools.count(len(list(self.inbox.glob("*.parquet"))))
        self._stamp = max((f.stat().st_mtime_ns for f in self.inbox.glob("*.parquet")), default=0)
        self.arrow_schema = pa.schema(
            [(f.name, to_arrow_type(f.dataType, timezone="UTC")) for f in schema.fields]
        )

    def source(self) -> DataFrame:
        """The input as a streaming DataFrame (one file per micro-batch)."""
        return (
            self.spark.readStream.schema(self.schema)
            .option("maxFilesPerTrigger", 1)
            .parquet(str(self.inbox))
            .withWatermark(self.event, self.delay)
        )

    def write(self, rows: Sequence[Sequence[Any]]) -> None:
        """One more input file (written aside, then renamed: the source never sees half).

        Spark's file source reads new files in order of modification time, in
        milliseconds; files written in one go can share one, and then the listing order
        decides. Each file is stamped a millisecond or more after the one before, so
        files written before a query starts are read in the order written."""
        columns = list(zip(*rows)) if rows else [[] for _ in self.schema.fields]
        table = pa.table(
            [pa.array(list(c), type=t.type) for c, t in zip(columns, self.arrow_schema)],
            schema=self.arrow_schema,
        )
        name = f"part-{next(self._files):05d}.parquet"
        hidden = self.inbox / f".{name}"
        pq.write_table(table, hidden)
        self._stamp = max(time.time_ns(), self._stamp + 1_000_000)
        os.utime(hidden, ns=(self._stamp, self._stamp))
        os.replace(hidden, self.inbox / name)

    def start(self, result: DataFrame) -> Any:
        return (
            result.writeStream.format("parquet")
            .option("path", str(self.out))
            .option("checkpointLocation", str(self.checkpoint))
            .start()
        )

    def run(self, build: Callable[[DataFrame], DataFrame], files: Sequence[Sequence[Any]]) -> Any:
        """Start the query ``build(source)``, feed ``files`` one micro-batch each, and
        return the (still running) query."""
        query = self.start(build(self.source()))
        for rows in files:
            self.write(rows)
            query.processAllAvailable()
        return query

    def push_watermark(self, query: Any, template: Sequence[Any], when: datetime) -> None:
        """Two rows far after ``when`` (copies of ``template`` with a new event time), each
        in its own micro-batch: the first moves the watermark past every real row, the
        second runs a batch in which the timers of that watermark fire."""
        index = self.schema.fieldNames().index(self.event)
        for step in (1, 2):
            row = list(template)
            row[index] = when + FAR * step
            self.write([row])
            query.processAllAvailable()

    def output(self) -> list[tuple]:
        """What the query has committed to its output folder so far."""
        if not (self.out / "_spark_metadata").exists():
            return []
        return sorted(
            (tuple(r) for r in self.spark.read.parquet(str(self.out)).collect()), key=repr
        )


def at(minute: float, base: datetime = datetime(2026, 11, 2, 9, 0)) -> datetime:
    """A time of the test day, naive UTC, as Spark returns it (session time zone UTC)."""
    return base + timedelta(minutes=minute)
