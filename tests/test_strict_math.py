"""``planner.strict_math`` gives Spark's bits: each function, on a few thousand seeded
inputs (edge values included), returns exactly the double Spark SQL returns (NaN equal
to NaN); where Spark answers NULL (a logarithm at or below its asymptote) the input must
be one. The pure-Python tests pin Java's special cases and the values that Python's
``math`` module rounds differently."""

from __future__ import annotations

import math
import random
import struct
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest
from matchrec.planner import strict_math as sm

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

SEED = 20240607
COUNT = 3000

EDGES = [
    0.0,
    1.0,
    2.0,
    0.5,
    3.0,
    10.0,
    2.75,
    27.0,
    math.inf,
    math.nan,
    5e-324,
    2.2250738585072014e-308,
    2.225073858507201e-308,
    1.7976931348623157e308,
    709.782712893384,
    709.7827128933841,
    745.1332191019411,
    745.1332191019412,
    710.4758600739439,
    710.475860073944,
    22.0,
    0.34657359027997264,
    1.0397207708399179,
    0.41422,
    0.2929,
    0.975,
    0.4375,
    2.4375,
    1.1875,
    2.0**-28,
    2.0**-29,
    2.0**-54,
    2.0**-55,
    2.0**28,
    2.0**66,
    1.0 + 2.0**-52,
    1.0 - 2.0**-53,
    0.9999995231628418,
    1.0000009536743162,
    2.0**31,
    2.0**53,
    1024.0,
    1075.0,
    1 / 3,
]
EDGES += [-v for v in EDGES]

# Spark SQL expression -> the strict_math computation of the same value
UNARY: dict[str, Callable[[float], float]] = {
    "ln(x)": sm.log,
    "log10(x)": sm.log10,
    "log1p(x)": sm.log1p,
    "log2(x)": sm.log2,
    "exp(x)": sm.exp,
    "expm1(x)": sm.expm1,
    "cbrt(x)": sm.cbrt,
    "sinh(x)": sm.sinh,
    "cosh(x)": sm.cosh,
    "tanh(x)": sm.tanh,
    "asin(x)": sm.asin,
    "acos(x)": sm.acos,
    "atan(x)": sm.atan,
    "asinh(x)": sm.asinh,
    "acosh(x)": sm.acosh,
    "atanh(x)": sm.atanh,
}
BINARY: dict[str, Callable[[float, float], float]] = {
    "power(x, y)": sm.pow,
    "hypot(x, y)": sm.hypot,
    "atan2(y, x)": lambda x, y: sm.atan2(y + 0.0, x + 0.0),
    "log(x, y)": sm.log_base,
}
# NULL in Spark exactly when the arguments are at or below the asymptote
NULL_WHEN: dict[str, Callable[..., bool]] = {
    "ln(x)": lambda x: x <= 0.0,
    "log10(x)": lambda x: x <= 0.0,
    "log2(x)": lambda x: x <= 0.0,
    "log1p(x)": lambda x: x <= -1.0,
    "log(x, y)": lambda x, y: x <= 0.0 or y <= 0.0,
}


def _bits(value: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", value))[0]


def _from_bits(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", bits & 0xFFFF_FFFF_FFFF_FFFF))[0]


def _same(a: float, b: float) -> bool:
    return (a != a and b != b) or _bits(a) == _bits(b)


def _any_finite(rnd: random.Random) -> float:
    while True:
        value = _from_bits(rnd.getrandbits(64))
        if math.isfinite(value):
            return value


def _unary_inputs() -> list[float]:
    rnd = random.Random(SEED)
    makers: list[Callable[[], float]] = [
        lambda: rnd.uniform(-10, 10),
        lambda: rnd.choice((-1, 1)) * 10 ** rnd.uniform(-20, 20),
        lambda: _any_finite(rnd),
        lambda: float(rnd.randint(-1000, 1000)),
        lambda: 1.0 + rnd.uniform(-1e-6, 1e-6),
        lambda: rnd.choice((-1, 1)) * 2.0 ** rnd.uniform(-70, -15),
        lambda: rnd.choice((-1, 1)) * 2.0 ** rnd.uniform(500, 1023.9),
        lambda: _from_bits(rnd.getrandbits(52) | rnd.getrandbits(1) << 63),  # subnormal
        lambda: rnd.uniform(-1, 1),
        lambda: rnd.uniform(-750, 750),
        lambda: _from_bits(_bits(rnd.choice(EDGES)) + rnd.randint(-3, 3)),
    ]
    values = list(EDGES)
    while len(values) < COUNT:
        values.append(rnd.choice(makers)())
    return values


def _binary_inputs() -> list[tuple[float, float]]:
    rnd = random.Random(SEED + 1)
    few = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, -8.0, 1 / 3, -1 / 3]
    few += [math.inf, -math.inf, math.nan, 5e-324, -5e-324, 1e308, -1e308, 2.0**53, -(2.0**53)]
    makers: list[Callable[[], tuple[float, float]]] = [
        lambda: (10 ** rnd.uniform(-30, 30), rnd.uniform(-50, 50)),
        lambda: (-rnd.uniform(0, 100), float(rnd.randint(-60, 60))),
        lambda: (1 + rnd.uniform(-1e-7, 1e-7), rnd.choice((-1, 1)) * 10 ** rnd.uniform(5, 12)),
        lambda: (float(rnd.randint(-20, 20)), float(rnd.randint(-30, 30))),
        lambda: (rnd.uniform(0, 10), rnd.uniform(-5, 5)),
        lambda: (_any_finite(rnd), _any_finite(rnd)),
        lambda: (rnd.uniform(0, 2), rnd.uniform(-1100, 1100)),
        lambda: (_from_bits(rnd.getrandbits(52)), rnd.uniform(-2, 2)),
        lambda: (rnd.uniform(-10, 10), rnd.uniform(-10, 10)),
    ]
    pairs = [(x, y) for x in few for y in few] + [(2.0, 2.75), (3.0, 10.0)]
    while len(pairs) < COUNT:
        pairs.append(rnd.choice(makers)())
    return pairs


def _spark_rows(spark: SparkSession, rows: list[tuple], schema: str, exprs: list[str]) -> list:
    frame = spark.createDataFrame(rows, schema)
    selected = frame.selectExpr("i", *[f"{e} AS r{k}" for k, e in enumerate(exprs)])
    return sorted(selected.collect(), key=lambda row: row[0])


@pytest.fixture(scope="module")
def unary_answers(spark: SparkSession) -> tuple[list[float], list]:
    values = _unary_inputs()
    rows = [(i, v) for i, v in enumerate(values)]
    return values, _spark_rows(spark, rows, "i long, x double", list(UNARY))


@pytest.fixture(scope="module")
def binary_answers(spark: SparkSession) -> tuple[list[tuple[float, float]], list]:
    pairs = _binary_inputs()
    rows = [(i, x, y) for i, (x, y) in enumerate(pairs)]
    return pairs, _spark_rows(spark, rows, "i long, x double, y double", list(BINARY))


def _mismatches(
    expr: str, function: Callable[..., float], inputs: list[Any], rows: list, column: str
) -> list[tuple[Any, Any, float]]:
    wrong = []
    for args, row in zip(inputs, rows, strict=True):
        args = args if isinstance(args, tuple) else (args,)
        spark_value = row[column]
        if spark_value is None:
            if expr not in NULL_WHEN or not NULL_WHEN[expr](*args):
                wrong.append((args, None, function(*args)))
        elif not _same(spark_value, function(*args)):
            wrong.append((args, spark_value, function(*args)))
    return wrong


@pytest.mark.parametrize("expr", list(UNARY))
def test_unary_bits_equal_spark(expr: str, unary_answers: tuple[list[float], list]) -> None:
    values, rows = unary_answers
    column = f"r{list(UNARY).index(expr)}"
    assert _mismatches(expr, UNARY[expr], values, rows, column)[:5] == []


@pytest.mark.parametrize("expr", list(BINARY))
def test_binary_bits_equal_spark(expr: str, binary_answers: tuple[list, list]) -> None:
    pairs, rows = binary_answers
    column = f"r{list(BINARY).index(expr)}"
    assert _mismatches(expr, BINARY[expr], pairs, rows, column)[:5] == []


@pytest.mark.parametrize(
    ("function", "args", "spark_value"),
    [
        (sm.log, (3.0,), 1.0986122886681096),
        (sm.pow, (2.0, 2.75), 6.727171322029717),
        (sm.cbrt, (2.75,), 1.4010196653276936),
    ],
)
def test_where_the_c_library_differs(
    function: Callable[..., float], args: tuple[float, ...], spark_value: float
) -> None:
    assert _same(function(*args), spark_value)


NAN = math.nan
INF = math.inf


@pytest.mark.parametrize(
    ("function", "args", "java_value"),
    [
        (sm.pow, (NAN, 0.0), 1.0),
        (sm.pow, (NAN, -0.0), 1.0),
        (sm.pow, (-8.0, 1 / 3), NAN),
        (sm.pow, (-2.0, 3.0), -8.0),
        (sm.pow, (-2.0, -3.0), -0.125),
        (sm.pow, (-0.0, -1.0), -INF),
        (sm.pow, (-0.0, 3.0), -0.0),
        (sm.pow, (-0.0, 0.5), 0.0),
        (sm.pow, (-INF, 0.5), INF),
        (sm.pow, (-INF, 3.0), -INF),
        (sm.pow, (1.0, INF), NAN),
        (sm.pow, (-1.0, 2.5), NAN),
        (sm.pow, (0.5, -INF), INF),
        (sm.pow, (10.0, 400.0), INF),
        (sm.pow, (-10.0, 401.0), -INF),
        (sm.pow, (2.0, -1074.0), 5e-324),
        (sm.log, (-1.0,), NAN),
        (sm.log, (-0.0,), -INF),
        (sm.log, (INF,), INF),
        (sm.log1p, (-1.0,), -INF),
        (sm.log1p, (-2.0,), NAN),
        (sm.log1p, (-0.0,), -0.0),
        (sm.log10, (1000.0,), 3.0),
        (sm.exp, (-INF,), 0.0),
        (sm.exp, (710.0,), INF),
        (sm.exp, (-745.2,), 0.0),
        (sm.expm1, (-INF,), -1.0),
        (sm.expm1, (-0.0,), -0.0),
        (sm.cbrt, (-27.0,), -3.0),
        (sm.cbrt, (-0.0,), -0.0),
        (sm.atan2, (0.0, -0.0), math.pi),
        (sm.atan2, (-0.0, -1.0), -math.pi),
        (sm.atan2, (INF, -INF), 3 * math.pi / 4),
        (sm.hypot, (NAN, INF), INF),
        (sm.hypot, (3.0, 4.0), 5.0),
        (sm.sinh, (-0.0,), -0.0),
        (sm.sinh, (711.0,), INF),
        (sm.cosh, (-INF,), INF),
        (sm.tanh, (-INF,), -1.0),
        (sm.asin, (1.5,), NAN),
        (sm.acos, (-1.0,), math.pi),
        (sm.acosh, (0.5,), NAN),
        (sm.asinh, (-INF,), -INF),
        (sm.atanh, (1.0,), INF),
        (sm.log_base, (1.0, 2.0), INF),
        (sm.log_base, (1.0, 1.0), NAN),
    ],
)
def test_java_special_cases(
    function: Callable[..., float], args: tuple[float, ...], java_value: float
) -> None:
    assert _same(function(*args), java_value)
