"""DOUBLE and FLOAT values written as Spark on Java 17 writes them (``CAST(x AS STRING)``).

Java 17's ``Double.toString`` and ``Float.toString`` do not always print the shortest
digits (``9.999999999999999E22`` for 1e23, ``2.81474977E14`` for the FLOAT 2.8147498E14);
``matchrec.java_doubles`` computes their digits, which the glue's CAST, ``concat``,
``||`` and the JSON functions write. Compared with Spark's CAST on seeded values of every
magnitude and random bit patterns, in one query each.
"""

from __future__ import annotations

import math
import random
import struct
from typing import TYPE_CHECKING

from matchrec.sql_values import double_text, float_text, to_float32

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

SEED = 20261130


def _values(count: int, bits: int) -> list[float]:
    """Seeded values: random bit patterns of a ``bits``-wide float, numbers of every
    decimal magnitude, and integers past the significand's width."""
    r = random.Random(SEED + bits)
    pack, unpack = ("<Q", "<d") if bits == 64 else ("<I", "<f")
    values = [1e23, 2.82879384806159e17, 2.0**53, 2.0**63, 1e7, 9999999.0, 1e-3, 9.9e-4]
    while len(values) < count:
        x = struct.unpack(unpack, struct.pack(pack, r.getrandbits(bits)))[0]
        if math.isfinite(x):
            values.append(x)
        values.append(r.random() * 10.0 ** r.randrange(-30, 30))
        values.append(float(r.randrange(2**20, 2**64)))
    return values if bits == 64 else [float(to_float32(v)) for v in values]


def _differ(spark: SparkSession, values: list[float], kind: str, text) -> list[tuple]:  # noqa: ANN001
    df = spark.createDataFrame([(i, v) for i, v in enumerate(values)], f"i INT, x {kind}")
    rows = df.selectExpr("i", "CAST(x AS STRING) AS t").collect()
    assert len(rows) == len(values)
    return [(values[r.i], text(values[r.i]), r.t) for r in rows if text(values[r.i]) != r.t]


def test_double_text_is_sparks_cast(spark: SparkSession):
    differ = _differ(spark, _values(6000, 64), "DOUBLE", double_text)
    assert not differ, f"{len(differ)} differ from Spark, e.g. {differ[:3]}"


def test_float_text_is_sparks_cast(spark: SparkSession):
    differ = _differ(spark, _values(6000, 32), "FLOAT", lambda v: float_text(to_float32(v)))
    assert not differ, f"{len(differ)} differ from Spark, e.g. {differ[:3]}"


def test_java_17_writes_more_digits_than_the_shortest():
    """Pure Python: the digits Java 17 prints where they are not the shortest."""
    assert double_text(1e23) == "9.999999999999999E22"
    assert double_text(2.82879384806159e17) == "2.82879384806159008E17"
    assert float_text(to_float32(2.8147498e14)) == "2.81474977E14"
    assert double_text(-1e7) == "-1.0E7"
    assert double_text(0.001) == "0.001"
    assert float_text(to_float32(-12.9)) == "-12.9"
