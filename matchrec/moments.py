"""Spark's statistical aggregates over the rows of a match: skewness and kurtosis,
covariance, correlation and the ``regr_*`` linear regression family.

Spark computes each of them by updating a few running moments row by row (Welford's
method in doubles) and finishing with a formula; doing the same, in the same order,
gives Spark's answers to the last bit rather than a textbook formula's. Rows where an
argument is NULL are skipped (for two arguments, the pair is). Where the finishing
formula would divide by zero, Spark returns NULL, or NaN under
``spark.sql.legacy.statisticalAggregate``, and so do these (:func:`statistics_nan`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .function_settings import statistics_nan

Value = Any


def _numbers(values: list[Value]) -> list[float]:
    return [float(v) for v in values if v is not None]


def _pairs(firsts: list[Value], seconds: list[Value]) -> list[tuple[float, float]]:
    return [
        (float(a), float(b)) for a, b in zip(firsts, seconds) if a is not None and b is not None
    ]


def second_moment(values: list[Value]) -> tuple[float, float]:
    """(count, sum of squared deviations) updated row by row as Spark's CentralMomentAgg
    does (Welford's method in doubles): variance and stddev, regr_sxx/regr_syy."""
    n = mean = m2 = 0.0
    for x in _numbers(values):
        n += 1.0
        delta = x - mean
        delta_n = delta / n
        mean += delta_n
        m2 += delta * (delta - delta_n)
    return n, m2


def central_moments(values: list[Value]) -> tuple[float, float, float, float]:
    """(n, m2, m3, m4): the count and the sums of the 2nd, 3rd and 4th powers of the
    deviations from the mean, updated one value at a time."""
    n = mean = m2 = m3 = m4 = 0.0
    for x in _numbers(values):
        n += 1.0
        delta = x - mean
        delta_n = delta / n
        mean += delta_n
        m2 += delta * (delta - delta_n)
        delta2, delta_n2 = delta * delta, delta_n * delta_n
        # left to right, as Spark adds them (the rounding differs otherwise)
        m3 = m3 - 3.0 * delta_n * m2 + delta * (delta2 - delta_n2)
        m4 = (
            m4
            - 4.0 * delta_n * m3
            - 6.0 * delta_n2 * m2
            + delta * (delta * delta2 - delta_n * delta_n2)
        )
    return n, m2, m3, m4


def skewness(values: list[Value]) -> Value:
    n, m2, m3, _ = central_moments(values)
    if n == 0.0:
        return None
    if m2 == 0.0:
        return statistics_nan()
    return math.sqrt(n) * m3 / math.sqrt(m2 * m2 * m2)


def kurtosis(values: list[Value]) -> Value:
    n, m2, _, m4 = central_moments(values)
    if n == 0.0:
        return None
    if m2 == 0.0:
        return statistics_nan()
    return n * m4 / (m2 * m2) - 3.0


class CoMoments:
    """Running co-moments of (x, y) pairs: count, means, the sum of products of
    deviations (``ck``) and each side's sum of squared deviations."""

    def __init__(self, pairs: list[tuple[float, float]]):
        n = x_avg = y_avg = ck = x_mk = y_mk = 0.0
        for x, y in pairs:
            n += 1.0
            dx, dy = x - x_avg, y - y_avg
            x_avg += dx / n
            y_avg += dy / n
            ck += dx * (y - y_avg)
            x_mk += dx * (x - x_avg)
            y_mk += dy * (y - y_avg)
        self.n, self.x_avg, self.y_avg = n, x_avg, y_avg
        self.ck, self.x_mk, self.y_mk = ck, x_mk, y_mk


def _co(finish: Callable[[CoMoments], Value]):
    """An aggregate of two arguments (x, y) finished by ``finish``, over the pairs where
    neither is NULL."""

    def aggregate(xs: list[Value], ys: list[Value]) -> Value:
        return finish(CoMoments(_pairs(xs, ys)))

    return aggregate


def _regression(finish: Callable[[list[tuple[float, float]]], Value]):
    """A ``regr_*(y, x)`` aggregate: ``finish`` gets the (y, x) pairs where neither is
    NULL; NULL when there is none."""

    def aggregate(ys: list[Value], xs: list[Value]) -> Value:
        pairs = _pairs(ys, xs)
        return finish(pairs) if pairs else None

    return aggregate


def _m2(values: list[float]) -> float:
    return second_moment(values)[1]


def _mean(values: list[float]) -> float:
    """The sum added row by row, divided by the count (Spark's ``avg``)."""
    total = 0.0
    for v in values:
        total += v
    return total / len(values)


def _covar_samp(m: CoMoments) -> Value:
    if m.n == 0.0:
        return None
    return statistics_nan() if m.n == 1.0 else m.ck / (m.n - 1.0)


def _corr(m: CoMoments) -> Value:
    if m.n == 0.0:
        return None
    if m.n == 1.0:
        return statistics_nan()
    bottom = math.sqrt(m.x_mk * m.y_mk)
    return None if bottom == 0.0 else m.ck / bottom


def _fit(pairs: list[tuple[float, float]]) -> tuple[float, CoMoments] | None:
    """For regr_slope/regr_intercept: x's sum of squared deviations and the co-moments
    over (x, y) pairs; None where x does not vary (no line fits)."""
    sxx = _m2([x for _, x in pairs])
    return None if sxx == 0.0 else (sxx, CoMoments([(x, y) for y, x in pairs]))


def _slope(pairs: list[tuple[float, float]]) -> Value:
    fit = _fit(pairs)
    return None if fit is None else fit[1].ck / fit[0]


def _intercept(pairs: list[tuple[float, float]]) -> Value:
    fit = _fit(pairs)
    if fit is None:
        return None
    sxx, m = fit
    return m.y_avg - m.ck / sxx * m.x_avg


def _r2(pairs: list[tuple[float, float]]) -> Value:
    m = CoMoments(pairs)  # over (y, x) pairs: its "x" is y
    if m.y_mk == 0.0:
        return None
    if m.x_mk == 0.0:
        return 1.0
    corr = m.ck / math.sqrt(m.x_mk * m.y_mk)
    return corr * corr


#: name -> (number of arguments, function of each argument's values over the rows); which
#: moments each uses, and over which order of the pair, is Spark's (checked bit for bit)
STATISTICS: dict[str, tuple[int, Callable[..., Value]]] = {
    "SKEWNESS": (1, skewness),
    "KURTOSIS": (1, kurtosis),
    "COVAR_POP": (2, _co(lambda m: None if m.n == 0.0 else m.ck / m.n)),
    "COVAR_SAMP": (2, _co(_covar_samp)),
    "CORR": (2, _co(_corr)),
    "REGR_COUNT": (2, lambda ys, xs: len(_pairs(ys, xs))),
    "REGR_AVGX": (2, _regression(lambda pairs: _mean([x for _, x in pairs]))),
    "REGR_AVGY": (2, _regression(lambda pairs: _mean([y for y, _ in pairs]))),
    "REGR_SXX": (2, _regression(lambda pairs: _m2([x for _, x in pairs]))),
    "REGR_SYY": (2, _regression(lambda pairs: _m2([y for y, _ in pairs]))),
    "REGR_SXY": (2, _regression(lambda pairs: CoMoments(pairs).ck)),
    "REGR_SLOPE": (2, _regression(_slope)),
    "REGR_INTERCEPT": (2, _regression(_intercept)),
    "REGR_R2": (2, _regression(_r2)),
}
