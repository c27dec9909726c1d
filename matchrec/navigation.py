"""Reading values out of a (partial) match: navigation, CLASSIFIER, MATCH_NUMBER, aggregates.

These are the building blocks the planner assembles into DEFINE and MEASURES
evaluators. They run where the matching runs (a Spark Python worker, or a plain Python
test) and never import Spark.

A :class:`MatchContext` describes the match being looked at: the partition's columns,
the first row of the match, the label of each matched row, how many of those rows are
visible (RUNNING semantics see the match up to the current row, FINAL the whole match)
and the match number.
"""

from __future__ import annotations

import functools
import math
import operator
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from itertools import accumulate, compress, islice
from typing import Any

from .collated_values import collated, plain
from .errors import MatchRuntimeError
from .far_timestamps import FarTimestamp
from .function_settings import statistics_nan
from .integer_width import interval_fits
from .java_doubles import java_double_text
from .moments import STATISTICS, second_moment
from .set_order import normalized_double, open_hash_map_order, spark_set_order
from .sql_values import WIDE_DECIMALS, Float32, timestamp_micros, to_text, unsigned_zero

Value = Any
RowValue = Callable[["MatchContext", int], Value]
Evaluator = Callable[["MatchContext"], Value]


class MatchContext:
    """The state one evaluation looks at. Reused and mutated in place on the hot path."""

    __slots__ = (
        "cols",
        "n",
        "low",
        "start",
        "labels",
        "upto",
        "match_number",
        "label_names",
        "memo",
    )

    def __init__(self, cols: dict[str, Sequence[Value]], n: int, label_names: Sequence[str]):
        self.cols = cols
        self.n = n
        #: navigation reads rows [low, n): the partition, or a window's frame
        self.low = 0
        self.label_names = label_names
        self.start = 0
        self.labels: Sequence[int] = ()
        self.upto = 0
        self.match_number = 0
        #: what running aggregates and navigations know of the labels seen so far, keyed
        #: by the label list: see :func:`_remembered`
        self.memo: dict[Any, list[Any]] = {}

    @property
    def current(self) -> int:
        """Partition index of the current row (the last visible row of the match)."""
        return self.start + self.upto - 1


class ColumnAt:
    """Reads input (or precomputed) column ``name`` at a row."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __call__(self, ctx: MatchContext, row: int) -> Value:
        return ctx.cols[self.name][row]


def column_at(name: str) -> RowValue:
    """The value of input (or precomputed) column ``name`` at a row."""
    return ColumnAt(name)


def classifier_at(ctx: MatchContext, row: int) -> Value:
    """The label of ``row`` if it belongs to the match as known so far, else NULL."""
    i = row - ctx.start
    if 0 <= i < len(ctx.labels):
        return ctx.label_names[ctx.labels[i]]
    return None


def match_number_at(ctx: MatchContext, row: int) -> Value:
    return ctx.match_number


def row_found(ctx: MatchContext, row: int) -> Value:
    """TRUE at every row: navigated, whether the navigation lands on a row (else NULL)."""
    return True


class ByLabel:
    """A value that depends on a row's label: ``f(x, CLASSIFIER())`` read at ``row``.

    CLASSIFIER() takes one of the pattern's labels, or NULL outside the match, so the
    planner has Spark compute ``f(x, 'A')``, ``f(x, 'B')``, ... and ``f(x, NULL)`` as
    columns, and this picks the one of the row's label (exact whatever ``f`` is)."""

    __slots__ = ("by_label", "outside")

    def __init__(self, by_label: Sequence[RowValue], outside: RowValue):
        self.by_label = tuple(by_label)  # indexed by label id
        self.outside = outside

    def __call__(self, ctx: MatchContext, row: int) -> Value:
        i = row - ctx.start
        if 0 <= i < len(ctx.labels):
            return self.by_label[ctx.labels[i]](ctx, row)
        return self.outside(ctx, row)


class RowGlue:
    """A value computed in Python at a row from values read at that row and the match
    number (``x * MATCH_NUMBER()``); ``evaluate`` takes the pair (context, row)."""

    __slots__ = ("evaluate",)

    def __init__(self, evaluate: Callable[[tuple[MatchContext, int]], Value]):
        self.evaluate = evaluate

    def __call__(self, ctx: MatchContext, row: int) -> Value:
        return self.evaluate((ctx, row))


def select_row(
    ctx: MatchContext,
    labels: frozenset[int] | None,
    from_end: bool,
    offset: int,
    physical: int,
    final: bool,
) -> int | None:
    """The partition row a navigation lands on, or None (NULL) if there is none.

    Logical step: the ``offset``-th row (0-based) from the end (LAST) or the start (FIRST)
    among the visible rows of the match whose label is in ``labels`` (all rows when None).
    Physical step: then ``physical`` rows forward (NEXT, > 0) or back (PREV, < 0) in the
    partition, where leaving the match is allowed but leaving the partition (or a
    window's frame: rows ``ctx.low`` to ``ctx.n``) gives NULL.
    """
    upto = len(ctx.labels) if final else ctx.upto
    if labels is None:
        if offset >= upto:
            return None
        i = upto - 1 - offset if from_end else offset
    elif upto <= _SHORT:
        i = _scan(ctx.labels, labels, upto, from_end, offset)
        if i < 0:
            return None
    else:
        i = _labelled(ctx, labels, upto, from_end, offset)
        if i < 0:
            return None
    row = ctx.start + i + physical
    if ctx.low <= row < ctx.n:
        return row
    return None


#: matches up to this many rows are scanned; longer ones use what the memo remembers
_SHORT = 32
#: entries a context remembers before it forgets them all (one per label list and reader)
_MEMO_LIMIT = 4096


def _scan(
    seq: Sequence[int], labels: frozenset[int], upto: int, from_end: bool, offset: int
) -> int:
    """Index of the ``offset``-th of the first ``upto`` labels that is in ``labels``,
    counted from the end or the start; -1 if there is none."""
    seen = 0
    for j in range(upto - 1, -1, -1) if from_end else range(upto):
        if seq[j] in labels:
            if seen == offset:
                return j
            seen += 1
    return -1


def _remembered(ctx: MatchContext, key: Any, fresh: Callable[[], list[Any]]) -> list[Any]:
    """The memo entry of ``key`` for the label list being looked at, or a new one.

    A running value needs the rows of the match so far; recomputing it at each row makes
    a long match quadratic. The matcher only ever appends to a label list, and changes
    nothing but its last label (the candidate row's tentative label), so what was
    computed from a list's labels before its last one stays true for that list: the
    entry remembers it with the list itself (compared by identity), the match's first
    row and number. Entries are ``[list, start, number, rows covered, state...]``."""
    seq = ctx.labels
    memo = ctx.memo
    full_key = (key, id(seq))
    entry = memo.get(full_key)
    if (
        entry is None
        or entry[0] is not seq
        or entry[1] != ctx.start
        or entry[2] != ctx.match_number
    ):
        if len(memo) >= _MEMO_LIMIT:
            memo.clear()
        entry = memo[full_key] = [seq, ctx.start, ctx.match_number, 0, *fresh()]
    return entry


def _labelled(
    ctx: MatchContext, labels: frozenset[int], upto: int, from_end: bool, offset: int
) -> int:
    """:func:`_scan` for a long match: the positions of the rows with a label in
    ``labels`` are remembered up to the last settled label, so only new rows are read."""
    seq = ctx.labels
    entry = _remembered(ctx, labels, lambda: [[]])
    positions: list[int] = entry[4]
    covered = entry[3]
    settled = min(upto, len(seq) - 1)
    if settled > covered:
        positions.extend(j for j in range(covered, settled) if seq[j] in labels)
        entry[3] = covered = settled
    if covered >= upto:
        count = bisect_left(positions, upto)
        tail: list[int] = []
    else:
        count = len(positions)
        tail = [j for j in range(covered, upto) if seq[j] in labels]
    total = count + len(tail)
    if offset >= total:
        return -1
    j = total - 1 - offset if from_end else offset
    return positions[j] if j < count else tail[j - count]


class Navigate:
    """``[PREV|NEXT]([FIRST|LAST](source of labels, offset), physical)``; its parameters
    are public so that a vectorized evaluator can read them."""

    __slots__ = ("source", "labels", "from_end", "offset", "physical", "final")

    def __init__(self, source, labels, from_end, offset, physical, final):
        self.source: RowValue = source
        self.labels: frozenset[int] | None = labels
        self.from_end: bool = from_end
        self.offset: int = offset
        self.physical: int = physical
        self.final: bool = final

    def __call__(self, ctx: MatchContext) -> Value:
        row = select_row(ctx, self.labels, self.from_end, self.offset, self.physical, self.final)
        return None if row is None else self.source(ctx, row)


def navigate(
    source: RowValue,
    labels: frozenset[int] | None,
    from_end: bool = True,
    offset: int = 0,
    physical: int = 0,
    final: bool = False,
) -> Evaluator:
    """An evaluator for ``[PREV|NEXT]([FIRST|LAST](source of labels, offset), physical)``."""
    return Navigate(source, labels, from_end, offset, physical, final)


def match_number(ctx: MatchContext) -> Value:
    return ctx.match_number


# ----------------------------------------------------------------------------- aggregates


def _non_null(values: list[Value]) -> list[Value]:
    return [v for v in values if v is not None]


def _in_row_order(vals: list[Value]) -> Value:
    """The sum added up row by row, as Spark and Trino do (and as the vectorized matcher
    does, so both give the same bits); Python >= 3.12's ``sum`` compensates rounding.
    Decimals are added exactly (Python's default context would round to 28 digits); a
    FLOAT's sum is a DOUBLE, as Spark types it (one value too)."""
    total = _as_double(functools.reduce(_plus, vals))
    # Spark's sum starts from 0.0 (``coalesce(sum, 0) + x``): -0.0 + 0.0 is 0.0, any
    # other double is itself
    return total + 0.0 if isinstance(total, float) else total


def _as_double(v: Value) -> Value:
    """A FLOAT summed is a DOUBLE (the others unchanged)."""
    return float(v) if type(v) is Float32 else v


def _plus(a: Value, b: Value) -> Value:
    if isinstance(a, Decimal) or isinstance(b, Decimal):
        return WIDE_DECIMALS.add(a, b)
    return a + b


def _sum(values: list[Value]) -> Value:
    vals = _non_null(values)
    return _in_row_order(vals) if vals else None


def _avg(values: list[Value]) -> Value:
    vals = _non_null(values)
    if not vals:
        return None
    if any(isinstance(v, Decimal) for v in vals):
        total = functools.reduce(WIDE_DECIMALS.add, map(Decimal, vals))
        return _decimal_mean(total, len(vals))
    if isinstance(vals[0], int):  # Spark averages integers as doubles added in row order
        vals = [float(v) for v in vals]
    return _mean(_in_row_order(vals), len(vals))


_MICROSECOND = timedelta(microseconds=1)


def _decimal_mean(total: Decimal, count: int) -> Decimal:
    """The mean of DECIMAL(p, s) values as Spark's DECIMAL(p + 4, s + 4) (both capped at
    38), rounded half up: the sum's exponent is the values' scale."""
    scale = min(38, max(0, -int(total.as_tuple().exponent)) + 4)
    mean = WIDE_DECIMALS.quantize(WIDE_DECIMALS.divide(total, count), Decimal(1).scaleb(-scale))
    return unsigned_zero(mean)


def _mean(total: Any, count: int) -> Any:
    """``total / count``; a DAY-TIME interval's mean rounded half up to the microsecond
    (Spark divides the microseconds with ``RoundingMode.HALF_UP``; Python's timedelta
    division rounds half to even)."""
    if isinstance(total, Decimal):
        return _decimal_mean(total, count)
    if not isinstance(total, timedelta):
        return total / count
    quotient, rest = divmod(abs(total // _MICROSECOND), count)
    quotient += 2 * rest >= count
    return timedelta(microseconds=quotient if total >= timedelta(0) else -quotient)


def instant(v: Value) -> Value:
    """``v`` as Spark compares it: a timestamp by its instant. (Python compares and equates
    two datetimes of one zone by their wall clock, which takes the hour a DST change
    repeats for the earlier one.)"""
    if isinstance(v, datetime) and v.tzinfo is not None:
        try:
            return v.astimezone(timezone.utc)
        except OverflowError:  # 0001-01-01 east of UTC: an instant in year 0
            return FarTimestamp(timestamp_micros(v), timezone.utc)
    return v


def spark_order(v: Value) -> Any:
    """Sort key of a value as Spark orders it: NaN above every other double; a timestamp
    by its instant; a struct (a dict, or a row tuple) field by field and an array element
    by element, a NULL inside below any value, a shorter array below a longer one it
    begins."""
    if isinstance(v, float) and math.isnan(v):
        return (1, 0.0)
    if isinstance(v, dict):
        v = tuple(v.values())
    if isinstance(v, (list, tuple)):
        return (0, tuple((0,) if x is None else (1, spark_order(x)) for x in v))
    return (0, instant(v))


def _distinct_key(v: Value) -> Any:
    """Key under which DISTINCT (and sets) take equal values as one: NaN equals NaN; an
    array, map or struct by its elements (entries, fields) in order, as Spark compares
    their bytes."""
    if isinstance(v, float):
        return spark_order(v)
    if isinstance(v, dict):
        return ("{", tuple((_distinct_key(k), _distinct_key(x)) for k, x in v.items()))
    if isinstance(v, (list, tuple)):
        return ("[", tuple(_distinct_key(x) for x in v))
    return instant(v)


def _min(values: list[Value]) -> Value:
    vals = _non_null(values)
    return min(vals, key=spark_order) if vals else None


def _max(values: list[Value]) -> Value:
    vals = _non_null(values)
    return max(vals, key=spark_order) if vals else None


def _bool_and(values: list[Value]) -> Value:
    vals = _non_null(values)
    return all(vals) if vals else None


def _bool_or(values: list[Value]) -> Value:
    vals = _non_null(values)
    return any(vals) if vals else None


def _by(pick_max: bool) -> Callable[[list[Value], list[Value]], Value]:
    """``max_by``/``min_by`` as Spark updates them row by row: a row replaces the kept
    one unless the kept key is strictly better, so of equal keys (NaN equals NaN) the
    last row's value wins."""

    def pick(values: list[Value], keys: list[Value]) -> Value:
        best, best_key = None, None
        for v, k in zip(values, keys):
            if k is None:
                continue
            if best_key is None:
                best, best_key = v, k
                continue
            key, top = spark_order(k), spark_order(best_key)
            if key >= top if pick_max else key <= top:
                best, best_key = v, k
        return best

    return pick


def _top_k(pick_max: bool) -> Callable[[list[Value], list[Value], list[Value]], Value]:
    """``max_by(x, y, k)``/``min_by(x, y, k)`` (Spark 4.2): the ``x`` of the ``k`` rows
    with the greatest (least) ``y``, sorted by ``y``, as Spark keeps them row by row: a
    binary heap of at most ``k`` slots whose root is the weakest kept key; a row replaces
    the root only with a strictly better key, so of equal keys the earlier rows stay, and
    the final sort is stable over the slots. Rows with a NULL ``y`` are skipped; without a
    row left the result is NULL (Spark's, over no rows as over only NULL keys)."""

    def better(a: Value, b: Value) -> bool:  # a would sit below b in the heap
        ka, kb = spark_order(a), spark_order(b)
        return ka > kb if pick_max else ka < kb

    def aggregate(values: list[Value], keys: list[Value], ks: list[Value]) -> Value:
        k = ks[0] if ks else 0
        slot_values: list[Value] = []
        slot_keys: list[Value] = []
        heap: list[int] = []  # slot indices, the weakest key at the root

        def sift_up(pos: int) -> None:
            while pos > 0:
                parent = (pos - 1) // 2
                if not better(slot_keys[heap[parent]], slot_keys[heap[pos]]):
                    return
                heap[pos], heap[parent] = heap[parent], heap[pos]
                pos = parent

        def sift_down(pos: int) -> None:
            size = len(heap)
            while 2 * pos + 1 < size:
                child = 2 * pos + 1
                if child + 1 < size and better(slot_keys[heap[child]], slot_keys[heap[child + 1]]):
                    child += 1
                if not better(slot_keys[heap[pos]], slot_keys[heap[child]]):
                    return
                heap[pos], heap[child] = heap[child], heap[pos]
                pos = child

        for v, key in zip(values, keys):
            if key is None:
                continue
            if len(heap) < k:
                slot_values.append(v)
                slot_keys.append(key)
                heap.append(len(heap))
                sift_up(len(heap) - 1)
            elif better(key, slot_keys[heap[0]]):
                slot_values[heap[0]] = v
                slot_keys[heap[0]] = key
                sift_down(0)
        if not heap:
            return None
        order = sorted(
            range(len(slot_keys)), key=lambda i: spark_order(slot_keys[i]), reverse=pick_max
        )
        return [slot_values[i] for i in order]

    return aggregate


def _listagg(values: list[Value], separators: list[Value]) -> Value:
    """Spark's ``listagg``/``string_agg``: the non-NULL values as text (or BINARY values
    as bytes), in match order, joined by the (constant) separator; NULL when there is
    none."""
    vals = _non_null(values)
    if not vals:
        return None
    sep = separators[0] if separators and separators[0] is not None else ""
    if isinstance(vals[0], (bytes, bytearray)):
        return bytes(sep or b"").join(bytes(v) for v in vals)
    return to_text(sep).join(to_text(v) for v in vals)


def _variance(sample: bool, root: bool) -> Callable[[list[Value]], Value]:
    """var/stddev, population or sample; NULL without rows, and for one row (sample) NULL
    or NaN as the session says (:func:`statistics_nan`)."""

    def aggregate(values: list[Value]) -> Value:
        n, m2 = second_moment(values)
        if n == 0.0:
            return None
        if sample and n == 1.0:
            return statistics_nan()
        result = m2 / (n - 1.0 if sample else n)
        return result**0.5 if root else result

    return aggregate


def _percentile_of(ordered: list[float], p: float) -> float:
    """Spark's exact ``percentile``: linear interpolation between the two values around
    position ``p * (n - 1)`` of the sorted values, in Spark's own arithmetic."""
    position = (len(ordered) - 1) * p
    lower, higher = math.floor(position), math.ceil(position)
    low, high = float(ordered[lower]), float(ordered[higher])
    if lower == higher or low == high:  # Spark's "same key": -0.0 and 0.0 are the lower
        return low
    return low + (position - lower) * (high - low)


def _percentile_disc(ordered: list[float], p: float) -> float:
    """Spark's ``percentile_disc``: the first value whose cumulative share of the values
    reaches ``p`` (the value at position ``ceil(n * p)``, counted from 1; the first for 0)."""
    higher = math.ceil(len(ordered) * p)
    return float(ordered[max(higher, 1) - 1])


def _percentiles(
    pick: Callable[[list, float], Value], descending: bool = False
) -> Callable[..., Value]:
    """An aggregate of the non-NULL values at a constant percentage (or array of them),
    the values sorted ascending (or descending: ``WITHIN GROUP (ORDER BY x DESC)``)."""

    def aggregate(values: list[Value], percentages: list[Value], *more: list[Value]) -> Value:
        frequencies = more[0] if more and pick is not _approx_rank else None
        ordered: Sequence[Value] = sorted(_non_null(values), key=spark_order, reverse=descending)
        p = percentages[0] if percentages else None
        if not ordered or p is None:
            return None
        at = pick
        if isinstance(ordered[0], timedelta) and pick is not _approx_rank:
            at = _in_microseconds(pick)
            ordered = [v // _MICROSECOND for v in ordered]
        if frequencies is not None:  # percentile(x, p, frequency)
            ordered = _Repeated.of(values, frequencies, descending)
            if not ordered:
                return None
        if isinstance(p, (list, tuple)):
            return [None if q is None else at(ordered, float(q)) for q in p]
        return at(ordered, float(p))

    return aggregate


class _Repeated(Sequence):
    """The sorted values of ``percentile(x, p, frequency)`` with each one repeated its
    row's frequency times (Spark counts a row that often; a NULL value or frequency, or
    0, not at all), read by position without being written out."""

    def __init__(self, keys: list[Value], ends: list[int]) -> None:
        self._keys, self._ends = keys, ends  # a key's last position + 1, increasing

    @classmethod
    def of(cls, values: list[Value], frequencies: list[Value], descending: bool) -> _Repeated:
        counts: dict[Value, int] = {}
        for value, frequency in zip(values, frequencies):
            if value is None or frequency is None:
                continue
            if frequency < 0:
                raise MatchRuntimeError(
                    f"[NEGATIVE_VALUES_IN_FREQUENCY_EXPRESSION] Found the negative value in "
                    f"the frequency of percentile: {frequency}, but expected a positive "
                    "integral value",
                    hint="give each row a frequency of 0 or more",
                )
            key = value // _MICROSECOND if isinstance(value, timedelta) else value
            counts[key] = counts.get(key, 0) + int(frequency)
        keys = sorted((k for k, n in counts.items() if n), key=spark_order, reverse=descending)
        ends = list(accumulate(counts[k] for k in keys))
        return cls(keys, ends)

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    def __getitem__(self, i: int) -> Value:  # type: ignore[override]
        return self._keys[bisect_right(self._ends, i)]


def _in_microseconds(pick: Callable[[list, float], float]) -> Callable[[list, float], Value]:
    """``pick`` over DAY-TIME intervals given as microseconds: Spark computes the
    percentile of the microseconds as doubles and truncates the result to a whole
    microsecond (its ``Double.toLong``)."""

    def at(ordered: list, p: float) -> Value:
        return timedelta(microseconds=int(pick(ordered, p)))

    return at


def _approx_rank(ordered: list, p: float) -> Value:
    """Spark's ``percentile_approx`` where its summary (QuantileSummaries, relative error
    1/10,000) keeps every value: fewer values than the accuracy. The smallest value with
    at least ``p`` of the values at or below it, with Spark's quirk on NaN: its compress
    step keeps the minimum only if ``minimum <= second``, false when the second sorted
    value is NaN ({inf, NaN} gives NaN at every percentage). Spark's summary holds
    doubles: the value comes back from its double (:func:`_through_double`)."""
    return _through_double(_approx_pick(ordered, p))


def _through_double(v: Value) -> Value:
    """A value as Spark's ``percentile_approx`` returns it after holding it as a double: a
    BIGINT the double's long (saturated, as Java's cast), a DECIMAL the double's Java
    text (``1.234567890123456789`` is ``1.2345678901234567``), a TIMESTAMP or day-time
    interval its microseconds' (exact within about 285 years of 1970); smaller integers,
    FLOATs and DATEs come back as they were."""
    if isinstance(v, Decimal):
        return Decimal(java_double_text(float(v)))
    if isinstance(v, int) and not isinstance(v, bool):
        return min(max(int(float(v)), -_LONG), _LONG - 1)
    if isinstance(v, timedelta):
        return timedelta(microseconds=int(float(v // _MICROSECOND)))
    if isinstance(v, datetime):
        base = _EPOCH.replace(tzinfo=v.tzinfo and timezone.utc)
        micros = timestamp_micros(v)
        rounded = int(float(micros))
        if rounded == micros:
            return v
        try:
            moved = base + timedelta(microseconds=rounded)
        except OverflowError:
            raise MatchRuntimeError(
                f"percentile_approx of {v} is {rounded} microseconds from 1970 as Spark "
                "holds it (a double), past year 9999, which the evaluator cannot hold",
                hint="compute it with unix_micros(x) and timestamp_micros(...)",
            ) from None
        return moved.astimezone(v.tzinfo) if v.tzinfo else moved
    return v


_EPOCH = datetime(1970, 1, 1)


def _approx_pick(ordered: list, p: float) -> Value:
    count = len(ordered)
    sampled = ordered
    if count > 1 and _is_nan_value(ordered[1]):
        sampled = ordered[1:]
    relative_error = 1e-4
    if p <= relative_error:
        return sampled[0]
    if p >= 1 - relative_error:
        return sampled[-1]
    rank = math.ceil(p * count)
    return sampled[rank - 1] if 1 <= rank < len(sampled) else sampled[-1]


def _is_nan_value(v: Value) -> bool:
    return isinstance(v, float) and v != v


def _collect_set(values: list[Value]) -> list[Value]:
    """The distinct non-NULL values (one NaN, and 0.0 for -0.0, as Spark's set) in
    Spark's order of them (its hash set's, :mod:`set_order`), or first-seen where that
    order is not known."""
    kept: dict[Any, Value] = {}
    last_new = last = -1
    for i, v in enumerate(_non_null(values)):
        last = i
        if _distinct_key(v) not in kept:
            kept[_distinct_key(v)] = normalized_double(v) if isinstance(v, float) else v
            last_new = i
    distinct = list(kept.values())
    return spark_set_order(distinct, added_after=last > last_new) or distinct


def _mode(values: list[Value], *rest: list[Value], highest: bool = False) -> Value:
    """The most frequent non-NULL value (-0.0 and 0.0 one value, 0.0, as in Spark). Of
    equally frequent ones: the lowest with ``mode(x, true)`` and ``mode() WITHIN GROUP
    (ORDER BY x)``, the highest with ``... ORDER BY x DESC``; with plain ``mode(x)``, the
    one Spark finds first in its hash map (:func:`open_hash_map_order`; the lowest where
    that order is not known here: a negative integer, a timestamp, a decimal ...)."""
    counts: dict[Any, int] = {}
    first: dict[Any, Value] = {}  # distinct key -> the value (NaN counts as one value)
    for v in _non_null(values):
        key = _distinct_key(v)
        counts[key] = counts.get(key, 0) + 1
        first.setdefault(key, normalized_double(v) if isinstance(v, float) else v)
    if not counts:
        return None
    top = max(counts.values())
    deterministic = highest or bool(rest and rest[0] and rest[0][0] is True)
    if not deterministic:
        listed = open_hash_map_order(list(first.values()))
        if listed is not None:
            return next(v for v in listed if counts[_distinct_key(v)] == top)
    pick = max if highest else min
    return pick((first[k] for k, c in counts.items() if c == top), key=spark_order)


def _bits(combine: Callable[[int, int], int]) -> Callable[[list[Value]], Value]:
    """``bit_and``/``bit_or``/``bit_xor`` of the non-NULL integers (Python's unbounded
    integers give the same bits as Spark's two's complement of the input's width)."""

    def aggregate(values: list[Value]) -> Value:
        vals = _non_null(values)
        if not vals:
            return None
        result = vals[0]
        for v in vals[1:]:
            result = combine(result, v)
        return result

    return aggregate


_LONG = 2**63


def _try_sum(values: list[Value]) -> Value:
    """``try_sum``: ``sum``, but NULL once an integer sum leaves BIGINT's range (Spark's
    sum of integers is a BIGINT whose overflow is checked at every row)."""
    vals = _non_null(values)
    if not vals:
        return None
    if all(isinstance(v, int) and not isinstance(v, bool) for v in vals):
        total = 0
        for v in vals:
            total += v
            if not -_LONG <= total < _LONG:
                return None
        return total
    if isinstance(vals[0], timedelta):  # Spark's interval sum overflows past BIGINT µs
        total = timedelta(0)
        for v in vals:
            total += v
            if not interval_fits(total):
                return None
        return total
    if isinstance(vals[0], Decimal):
        # NULL past DECIMAL(38, s), as Spark's try_sum of a DECIMAL(p, s) with p >= 28
        # (a narrower one's sum type holds the sum of any realistic number of values)
        total = _in_row_order(vals)
        scale = max(-v.as_tuple().exponent for v in vals)
        return None if total.copy_abs() >= WIDE_DECIMALS.power(10, 38 - scale) else total
    return _sum(values)


def _try_avg(values: list[Value]) -> Value:
    """``try_avg``: ``avg``, but NULL where the sum overflows (DAY-TIME intervals, a
    DECIMAL past 38 digits) or where a DECIMAL(p, s)'s mean does not fit its type
    DECIMAL(p + 4, s + 4), capped at 38 digits: which happens only at the cap, so the
    scale of the values tells the limit without their precision."""
    vals = _non_null(values)
    if vals and isinstance(vals[0], (timedelta, Decimal)) and _try_sum(vals) is None:
        return None
    mean = _avg(values)
    if isinstance(mean, Decimal):
        scale = -int(mean.as_tuple().exponent)
        if mean.copy_abs() >= WIDE_DECIMALS.power(10, 38 - scale):
            return None
    return mean


#: Spark's HyperLogLogPlusPlusHelper.THRESHOLDS: below, linear counting is the estimate
_HLL_THRESHOLDS = (10, 20, 40, 80, 220, 400, 900, 1800, 3100, 6500, 11500, 20000, 50000)
#: HyperLogLog's constant for the smallest register counts (a formula of m from 128 up)
_HLL_ALPHA = {4: 0.673, 5: 0.697, 6: 0.709}
_MASK64 = 2**64 - 1


class ApproxDistinctTooLarge(MatchRuntimeError):
    """More distinct values than the linear-counting range of Spark's HLL++ estimate."""


def _approx_count_distinct(hashes: list[Value], rsd: list[Value] | None = None) -> int:
    """``approx_count_distinct`` as Spark's HyperLogLog++ computes it, from each row's
    ``xxhash64`` of the value (NULL for a NULL value; the planner has Spark hash it with
    the seed HLL++ uses): registers of ``2**p`` buckets, then Spark's choice of estimate:
    linear counting while it stays below Spark's threshold (hundreds of distinct values at
    the default relative error) or while the raw estimate is at most 2.5 buckets, the raw
    HyperLogLog estimate from 5 buckets up. Between those, Spark corrects the raw
    estimate's bias from empirical tables not copied here: a run-time error there."""
    relative_sd = float(rsd[0]) if rsd and rsd[0] is not None else 0.05
    p = math.ceil(2.0 * math.log(1.106 / relative_sd) / math.log(2.0))
    if p < 4:
        raise MatchRuntimeError(
            "the relative error of approx_count_distinct must be at most 0.39 (as in Spark)"
        )
    m = 1 << p
    registers = [0] * m
    for h in hashes:
        if h is None:
            continue
        u = h & _MASK64
        w = ((u << p) & _MASK64) | (1 << (p - 1))
        idx = u >> (64 - p)
        registers[idx] = max(registers[idx], 64 - w.bit_length() + 1)
    zeros = registers.count(0)
    if zeros == m:
        return 0
    inverse = 0.0
    for r in registers:
        inverse += 1.0 / (1 << r)
    raw = _HLL_ALPHA.get(p, 0.7213 / (1.0 + 1.079 / m)) * m * m / inverse
    if zeros > 0:
        linear = m * math.log(m / zeros)
        below = p - 4 < len(_HLL_THRESHOLDS) and linear <= _HLL_THRESHOLDS[p - 4]
        if below or raw <= 2.5 * m:
            return math.floor(linear + 0.5)  # Java's Math.round
    if raw >= 5.0 * m:
        return math.floor(raw + 0.5)
    raise ApproxDistinctTooLarge(
        f"approx_count_distinct over about {math.floor(raw + 0.5)} distinct values with "
        f"relative error {relative_sd} is not computed (Spark's bias correction between "
        f"{math.floor(2.5 * m)} and {5 * m} estimated values is not copied)",
        hint="use count(DISTINCT x), or a smaller relative error (more buckets)",
    )


#: the one column Spark averages for regr_avgx/regr_avgy(y, x): x (y) where neither is NULL
_ONE_COLUMN_OF_TWO: dict[str, Callable[[list[Value], list[Value]], list[Value]]] = {
    "REGR_AVGX": lambda ys, xs: [None if y is None else x for y, x in zip(ys, xs)],
    "REGR_AVGY": lambda ys, xs: [None if x is None else y for y, x in zip(ys, xs)],
}

# name -> (number of arguments, or the numbers it takes; function over the argument value
# lists)
AGGREGATES: dict[str, tuple[int | tuple[int, ...], Callable[..., Value]]] = {
    "COUNT": (1, lambda vals: len(_non_null(vals))),
    "SUM": (1, _sum),
    "AVG": (1, _avg),
    "MEAN": (1, _avg),
    "MIN": (1, _min),
    "MAX": (1, _max),
    "ARRAY_AGG": (1, _non_null),
    "COLLECT_LIST": (1, _non_null),
    "COLLECT_SET": (1, _collect_set),
    "BOOL_AND": (1, _bool_and),
    "EVERY": (1, _bool_and),
    "BOOL_OR": (1, _bool_or),
    "ANY": (1, _bool_or),
    "SOME": (1, _bool_or),
    "COUNT_IF": (1, lambda vals: sum(1 for v in vals if v is True)),
    "MAX_BY": (2, _by(True)),
    "MIN_BY": (2, _by(False)),
    # the forms written another way (the planner maps them; a name with "/" is never
    # one a user can call)
    "MAX_BY/K": (3, _top_k(True)),
    "MIN_BY/K": (3, _top_k(False)),
    "PERCENTILE/DESC": (2, _percentiles(_percentile_of, descending=True)),
    "PERCENTILE_DISC/ASC": (2, _percentiles(_percentile_disc)),
    "PERCENTILE_DISC/DESC": (2, _percentiles(_percentile_disc, descending=True)),
    "MODE/ASC": (1, lambda vals: _mode(vals, [True])),
    "MODE/DESC": (1, lambda vals: _mode(vals, highest=True)),
    "STDDEV": (1, _variance(sample=True, root=True)),
    "STD": (1, _variance(sample=True, root=True)),
    "STDDEV_SAMP": (1, _variance(sample=True, root=True)),
    "STDDEV_POP": (1, _variance(sample=False, root=True)),
    "VARIANCE": (1, _variance(sample=True, root=False)),
    "VAR_SAMP": (1, _variance(sample=True, root=False)),
    "VAR_POP": (1, _variance(sample=False, root=False)),
    "ANY_VALUE": (1, lambda vals: vals[0] if vals else None),  # Spark: the first row's
    "LISTAGG": (2, _listagg),
    "STRING_AGG": (2, _listagg),
    "FIRST_VALUE": (1, lambda vals: vals[0] if vals else None),
    "LAST_VALUE": (1, lambda vals: vals[-1] if vals else None),
    "MEDIAN": (1, lambda vals: _percentiles(_percentile_of)(vals, [0.5])),
    "PERCENTILE": ((2, 3), _percentiles(_percentile_of)),
    "PERCENTILE_APPROX": ((2, 3), _percentiles(_approx_rank)),
    "APPROX_PERCENTILE": ((2, 3), _percentiles(_approx_rank)),
    "MODE": ((1, 2), _mode),
    "BIT_AND": (1, _bits(lambda a, b: a & b)),
    "BIT_OR": (1, _bits(lambda a, b: a | b)),
    "BIT_XOR": (1, _bits(lambda a, b: a ^ b)),
    "TRY_SUM": (1, _try_sum),
    "TRY_AVG": (1, _try_avg),
    "APPROX_COUNT_DISTINCT": ((1, 2), _approx_count_distinct),
    **STATISTICS,
    # Spark's avg of x (of y) over the rows where neither is NULL: a DECIMAL's exactly
    "REGR_AVGX": (2, lambda ys, xs: _avg(_ONE_COLUMN_OF_TWO["REGR_AVGX"](ys, xs))),
    "REGR_AVGY": (2, lambda ys, xs: _avg(_ONE_COLUMN_OF_TWO["REGR_AVGY"](ys, xs))),
}


class _Fold:
    """A running aggregate as a left fold: ``step(state, value)`` per row, in row order,
    and ``result(state)``; states are never changed in place (a fold goes on from the
    state remembered for the rows settled so far)."""

    __slots__ = ("init", "step", "result")

    def __init__(self, init: Any, step: Callable[[Any, Value], Any], result=None):
        self.init = init
        self.step = step
        self.result = result or (lambda state: state)


def _keep(better: Callable[[Any, Any], bool]) -> Callable[[Value, Value], Value]:
    """min/max row by row: the kept value changes only for a strictly better one, so the
    first of equal values stays (as Python's min/max keep it)."""

    def step(kept: Value, v: Value) -> Value:
        if v is None:
            return kept
        if kept is None or better(spark_order(v), spark_order(kept)):
            return v
        return kept

    return step


def _added(kept: Value, v: Value) -> Value:
    return kept if v is None else (_as_double(v) if kept is None else _plus(kept, v))


def _averaged(state: tuple[Any, int], v: Value) -> tuple[Any, int]:
    total, count = state
    if v is None:
        return state
    if isinstance(v, int):  # as _avg: integers as doubles
        v = float(v)
    if count == 0:
        return (0 + v if isinstance(v, Decimal) else v), 1  # as _avg adds Decimals
    return _plus(total, v), count + 1


def _truth(combine: Callable[[bool, bool], bool]) -> Callable[[Value, Value], Value]:
    def step(kept: Value, v: Value) -> Value:
        if v is None:
            return kept
        return bool(v) if kept is None else combine(kept, bool(v))

    return step


def _picked_by(pick_max: bool) -> Callable[[Any, tuple[Value, Value]], Any]:
    def step(state: tuple[Value, Value], pair: tuple[Value, Value]) -> tuple[Value, Value]:
        v, k = pair
        best, best_key = state
        if k is None:
            return state
        if best_key is None:
            return v, k
        key, top = spark_order(k), spark_order(best_key)
        return (v, k) if (key >= top if pick_max else key <= top) else state

    return step


_FIRST = _Fold((False, None), lambda s, v: s if s[0] else (True, v), lambda s: s[1])


def _long_sum(overflow: Any, values: list[Value]) -> Value:
    """``sum`` with its integer totals fitted to Spark's BIGINT (``overflow``: a
    :class:`matchrec.integer_width.LongSum`); module functions, so plans pickle."""
    return overflow.total(_non_null(values), _sum(values))


def _long_added(overflow: Any, kept: Value, v: Value) -> Value:
    return overflow.fit(_added(kept, v))


def _checked_avg(overflow: Any, values: list[Value]) -> Value:
    """``avg`` whose sum of DAY-TIME intervals is checked at every row as Spark's."""
    vals = _non_null(values)
    if vals and isinstance(vals[0], timedelta):
        overflow.total(vals, vals[0])
    return _avg(values)


def _checked_averaged(overflow: Any, state: tuple[Any, int], v: Value) -> tuple[Any, int]:
    total, count = _averaged(state, v)
    return overflow.fit(total), count


def _average(state: tuple[Any, int]) -> Value:
    return None if state[1] == 0 else _mean(*state)


#: the aggregates a running evaluation updates row by row (each equal to its list
#: function in AGGREGATES); the others are computed again from the remembered values
FOLDS: dict[str, _Fold] = {
    "COUNT": _Fold(0, lambda n, v: n if v is None else n + 1),
    "SUM": _Fold(None, _added),
    "AVG": _Fold((None, 0), _averaged, _average),
    "MIN": _Fold(None, _keep(operator.lt)),
    "MAX": _Fold(None, _keep(operator.gt)),
    "COUNT_IF": _Fold(0, lambda n, v: n + 1 if v is True else n),
    "BOOL_AND": _Fold(None, _truth(operator.and_)),
    "BOOL_OR": _Fold(None, _truth(operator.or_)),
    "ANY_VALUE": _FIRST,
    "FIRST_VALUE": _FIRST,
    "LAST_VALUE": _Fold(None, lambda _, v: v),
    "MAX_BY": _Fold((None, None), _picked_by(True), lambda s: s[0]),
    "MIN_BY": _Fold((None, None), _picked_by(False), lambda s: s[0]),
}
for _alias, _name in (
    ("MEAN", "AVG"),
    ("EVERY", "BOOL_AND"),
    ("ANY", "BOOL_OR"),
    ("SOME", "BOOL_OR"),
):
    FOLDS[_alias] = FOLDS[_name]
_ROWS = _Fold(0, lambda n, _: n + 1)  # count(*)


class Aggregate:
    """An aggregate over the visible rows of ``labels`` (``args`` None: ``count(*)``); its
    parameters are public so that a vectorized evaluator can read them.

    A running aggregate is evaluated again at every row of a match: it remembers (per
    label list, see :func:`_remembered`) its fold state, or the argument values, of the
    rows settled so far and reads only the rows after them: with a fold (:data:`FOLDS`)
    a long match costs linear time, not quadratic; the others still apply their function
    to every value at each row, but no longer read the rows again. A FINAL one remembers
    its value for the match."""

    __slots__ = (
        "func",
        "args",
        "labels",
        "final",
        "distinct",
        "order",
        "overflow",
        "collations",
        "_fn",
        "_fold",
    )

    def __init__(
        self, func, args, labels, final, distinct, order=(), overflow=None, collations=None
    ):
        self.func: str = func
        self.args: tuple[RowValue, ...] | None = None if args is None else tuple(args)
        self.labels: frozenset[int] | None = labels
        self.final: bool = final
        self.distinct: bool = distinct
        # WITHIN GROUP (ORDER BY ...): (descending, nulls first) of each of the last
        # len(order) arguments, the keys the rows are sorted by before ``func`` reads them
        self.order: tuple[tuple[bool, bool], ...] = tuple(order)
        # ``sum``'s BIGINT of integers (matchrec.integer_width.LongSum): each running
        # total checked, or wrapped around, as Spark's; None: Python's exact sum
        self.overflow = overflow
        # per argument, what compares its values (an object whose ``fold`` is a collated
        # string type's folding, set once Spark's type is known; None: compared as is),
        # for the aggregates that compare or group values: matchrec.collated_values
        self.collations: tuple[Any, ...] | None = None if collations is None else tuple(collations)
        self._fn = AGGREGATES[func][1]
        # a collated argument keeps the fold: its values arrive wrapped (``_at``), and
        # compare under the collation in the fold's steps as anywhere else
        plain = not (distinct or self.order)
        self._fold: _Fold | None = _ROWS if args is None else FOLDS.get(func) if plain else None
        if overflow is not None and func == "SUM":
            self._fn = functools.partial(_long_sum, overflow)
            if self._fold is not None:
                self._fold = _Fold(None, functools.partial(_long_added, overflow))
        if overflow is not None and func in ("AVG", "MEAN"):  # a sum of intervals, checked
            self._fn = functools.partial(_checked_avg, overflow)
            if self._fold is not None:
                self._fold = _Fold(
                    (None, 0), functools.partial(_checked_averaged, overflow), _average
                )

    def rows(self, ctx: MatchContext) -> list[int]:
        upto = len(ctx.labels) if self.final else ctx.upto
        start = ctx.start
        labels = self.labels
        if labels is None:
            return list(range(start, start + upto))
        visible = islice(ctx.labels, upto)
        return list(compress(range(start, start + upto), map(labels.__contains__, visible)))

    def __call__(self, ctx: MatchContext) -> Value:
        if self.collations:
            return plain(self._value(ctx))
        return self._value(ctx)

    def _at(self, k: int, ctx: MatchContext, rows: list[int]) -> list[Value]:
        """Argument ``k``'s values at ``rows``, collated strings as their collation
        compares them."""
        values = _values_at(self.args[k], ctx, rows)
        holder = self.collations[k] if self.collations else None
        return values if holder is None else collated(values, holder.fold)

    def _value(self, ctx: MatchContext) -> Value:
        if self.final and len(ctx.labels) > _SHORT:
            entry = _remembered(ctx, self, lambda: [None])
            if entry[3] != len(ctx.labels) + 1:  # 0: not computed yet
                entry[4] = self._of_rows(ctx, self.rows(ctx))
                entry[3] = len(ctx.labels) + 1
            return entry[4]
        if self.final or ctx.upto <= _SHORT:
            return self._of_rows(ctx, self.rows(ctx))
        return self._running(ctx)

    def _of_rows(self, ctx: MatchContext, picked: list[int]) -> Value:
        if self.args is None:
            return len(picked)
        return self._of_values([self._at(k, ctx, picked) for k in range(len(self.args))])

    def _of_values(self, columns: list[list[Value]]) -> Value:
        if self.order:
            keys = columns[-len(self.order) :]
            rows = sorted_rows(keys, self.order)
            columns = [[c[i] for i in rows] for c in columns[: -len(self.order)]]
        fn = self._fn
        if self.func in _ONE_COLUMN_OF_TWO:
            # Spark replaces regr_avgx(y, x) by avg(if(y IS NULL, NULL, x)): its DISTINCT
            # is of that one column
            columns, fn = [_ONE_COLUMN_OF_TWO[self.func](*columns)], _avg
        if self.distinct:
            # DISTINCT is of the arguments together (corr(DISTINCT x, y): of the pairs)
            seen: dict[Any, None] = {}
            keep = []
            for i, row in enumerate(zip(*columns)):
                key = tuple(_distinct_key(v) for v in row)
                if key not in seen:
                    seen[key] = None
                    keep.append(i)
            # Spark groups the distinct values normalized: -0.0 counts (and reads) as 0.0
            columns = [
                [normalized_double(c[i]) if isinstance(c[i], float) else c[i] for i in keep]
                for c in columns
            ]
        return fn(*columns)

    def _picked(self, ctx: MatchContext, low: int, high: int) -> list[int]:
        """Rows among match positions [low, high) that the aggregate reads."""
        start, labels, seq = ctx.start, self.labels, ctx.labels
        if labels is None:
            return list(range(start + low, start + high))
        return [start + j for j in range(low, high) if seq[j] in labels]

    def _folded(self, ctx: MatchContext, state: Any, rows: list[int]) -> Any:
        step = self._fold.step
        if self.args is None:
            for _ in rows:
                state = step(state, None)
            return state
        values = [self._at(k, ctx, rows) for k in range(len(self.args))]
        for v in values[0] if len(values) == 1 else zip(*values):
            state = step(state, v)
        return state

    def _running(self, ctx: MatchContext) -> Value:
        fold = self._fold
        upto = ctx.upto
        entry = _remembered(ctx, self, lambda: [fold.init] if fold else [[[] for _ in self.args]])
        if entry[3] > upto:  # an earlier row than last time (MEASURES): start again
            entry[3], entry[4] = 0, fold.init if fold else [[] for _ in self.args]
        settled = min(upto, len(ctx.labels) - 1)
        covered, state = entry[3], entry[4]
        if settled > covered:
            rows = self._picked(ctx, covered, settled)
            if fold is None:
                for k, column in enumerate(state):
                    column.extend(self._at(k, ctx, rows))
            else:
                state = entry[4] = self._folded(ctx, state, rows)
            entry[3] = covered = settled
        tail = self._picked(ctx, covered, upto)
        if fold is not None:
            return fold.result(self._folded(ctx, state, tail) if tail else state)
        if tail:
            state = [c + self._at(k, ctx, tail) for k, c in enumerate(state)]
        return self._of_values(state)


def sorted_rows(keys: list[list[Value]], order: Sequence[tuple[bool, bool]]) -> list[int]:
    """The positions of the rows sorted by the key columns, each (descending, nulls
    first) as ``order`` says; a stable sort, so rows of equal keys keep their order (as
    Spark's sort of an aggregate's buffer)."""
    rows = list(range(len(keys[0]) if keys else 0))
    for column, (descending, nulls_first) in reversed(list(zip(keys, order))):
        null_rank = 1 if nulls_first == descending else 0  # sorted after a reversal

        def key(i: int, column=column, null_rank=null_rank) -> tuple:
            v = column[i]
            return (null_rank,) if v is None else (1 - null_rank, spark_order(v))

        rows.sort(key=key, reverse=descending)
    return rows


def _values_at(value: RowValue, ctx: MatchContext, rows: list[int]) -> list[Value]:
    """``value`` at each of ``rows``; a plain column is read without a call per row (a
    running aggregate in DEFINE reads every row of the match again at each row)."""
    if type(value) is ColumnAt:
        column = ctx.cols[value.name]
        return [column[r] for r in rows]
    return [value(ctx, r) for r in rows]


def aggregate(
    func: str,
    args: Sequence[RowValue] | None,
    labels: frozenset[int] | None,
    final: bool,
    distinct: bool = False,
    order: Sequence[tuple[bool, bool]] = (),
    overflow: Any = None,
    collations: Sequence[Any] | None = None,
) -> Evaluator:
    """An evaluator for an aggregate over the visible rows of ``labels`` (``args`` None:
    ``*``); ``order``: the WITHIN GROUP sort of the last arguments; ``overflow``: how
    ``sum`` fits its integer totals to Spark's BIGINT; ``collations``: how each argument's
    strings compare (see :class:`Aggregate`)."""
    return Aggregate(func, args, labels, final, distinct, order, overflow, collations)
