"""Time-zone conversions, timestamp constructors and next_day over values of several rows.

``from_utc_timestamp``, ``to_utc_timestamp``, ``convert_timezone``, the ``make_timestamp``
family and ``next_day`` of values read at several rows are computed by DEFINE's glue and
by the table function's MEASURES (``planner.zone_functions``). Each is compared with
Spark's own function on generated values in two session zones (one with daylight saving),
and then through the doors.
"""

from __future__ import annotations

import random
import re
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from doors import DOORS, pair_clause, pair_join, rows_through
from matchrec.planner.glue_functions import EXTENDED
from matchrec.runtime.session import session_settings

import matchrec
from matchrec.errors import MatchRuntimeError
from matchrec.far_timestamps import FarTimestamp, timestamp_text
from matchrec.zones import use_zone

SESSION_ZONES = ["UTC", "America/New_York"]
ZONES = [
    "UTC",
    "America/New_York",
    "PST",
    "Europe/Brussels",
    "+05:30",
    "GMT-8",
    "Asia/Kolkata",
    "Australia/Lord_Howe",
    "-3:00",
]
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _instants(rng: random.Random, n: int) -> list[datetime]:
    """Instants near the 2024 clock changes of New York, Brussels and Lord Howe."""
    changes = ["2024-03-10 07:00", "2024-11-03 06:00", "2024-03-31 01:00", "2024-04-06 15:00"]
    bases = [datetime.fromisoformat(c).replace(tzinfo=timezone.utc) for c in changes]
    return [
        rng.choice(bases)
        + timedelta(minutes=rng.randrange(-240, 240), microseconds=rng.choice((0, 1, 500_000)))
        for _ in range(n)
    ]


def _micros(v: datetime | FarTimestamp | str | None) -> int | str | None:
    if isinstance(v, FarTimestamp):  # past Python's years
        return v.micros
    if not isinstance(v, datetime):
        return v
    return (v - _EPOCH) // timedelta(microseconds=1)


def _wall_text(v: datetime | FarTimestamp | str | None) -> str | None:
    """A TIMESTAMP_NTZ as Spark's CAST to STRING writes it."""
    if isinstance(v, FarTimestamp):
        return timestamp_text(v)
    if not isinstance(v, datetime):
        return v
    text = f"{v.year:04d}-{v:%m-%d %H:%M:%S}"
    return text + f".{v.microsecond:06d}".rstrip("0") if v.microsecond else text


#: what the glue gives where Spark's answer is in year 0 or 10000 (a run-time error)
BEYOND = "beyond Python's years"


def _glue(name: str, ansi: bool = False):
    entry = EXTENDED[name]
    fn = entry.ansi_fn if ansi and entry.ansi_fn else entry.fn

    def call(*args):
        if any(a is None for a in args):
            return None
        try:
            return fn(*args)
        except TypeError as err:
            assert "outside the years 1-9999" in str(err)
            return BEYOND

    return call


def _same(got: list[tuple], spark_rows: list) -> None:
    """``got`` equals Spark's rows, but where the glue cannot hold Spark's answer."""
    want = [tuple(r) for r in spark_rows]
    assert len(got) == len(want)
    for ours, theirs in zip(got, want):
        for a, b in zip(ours, theirs):
            if a == BEYOND:
                assert b is not None and str(b)[:4] in ("-621", "2534", "0000", "1000")
            else:
                assert a == b, (ours, theirs)


@pytest.fixture(params=SESSION_ZONES)
def session_zone(request, spark):
    with session_settings(spark, {"spark.sql.session.timeZone": request.param}):
        use_zone(request.param)
        try:
            yield ZoneInfo(request.param)
        finally:
            use_zone(None)


def test_zone_shifts_are_sparks(spark, session_zone):
    rng = random.Random(7)
    rows = [(ts, rng.choice(ZONES)) for ts in _instants(rng, 300)] + [(None, "UTC")]
    got_spark = (
        spark.createDataFrame(rows, "ts TIMESTAMP, z STRING")
        .selectExpr(
            "unix_micros(from_utc_timestamp(ts, z)) AS f",
            "unix_micros(to_utc_timestamp(ts, z)) AS t",
            "unix_micros(from_utc_timestamp(CAST(ts AS DATE), z)) AS fd",
            "unix_micros(to_utc_timestamp(CAST(ts AS TIMESTAMP_NTZ), z)) AS tn",
        )
        .collect()
    )
    from_utc, to_utc = _glue("FROM_UTC_TIMESTAMP"), _glue("TO_UTC_TIMESTAMP")
    got = []
    for ts, z in rows:
        local = None if ts is None else ts.astimezone(session_zone)
        day = None if local is None else local.date()
        wall = None if local is None else local.replace(tzinfo=None)
        got.append(
            (
                _micros(from_utc(local, z)),
                _micros(to_utc(local, z)),
                _micros(from_utc(day, z)),
                _micros(to_utc(wall, z)),
            )
        )
    _same(got, got_spark)


def test_convert_timezone_is_sparks(spark, session_zone):
    rng = random.Random(11)
    rows = [
        (ts.astimezone(session_zone).replace(tzinfo=None), rng.choice(ZONES), rng.choice(ZONES))
        for ts in _instants(rng, 300)
    ]
    got_spark = (
        spark.createDataFrame(rows, "w TIMESTAMP_NTZ, s STRING, t STRING")
        .selectExpr(
            "CAST(convert_timezone(s, t, w) AS STRING) AS three",
            "CAST(convert_timezone(t, w) AS STRING) AS two",
        )
        .collect()
    )
    convert = _glue("CONVERT_TIMEZONE")
    got = [(_wall_text(convert(s, t, w)), _wall_text(convert(t, w))) for w, s, t in rows]
    _same(got, got_spark)


def _fields(rng: random.Random) -> tuple:
    """make_timestamp's fields: mostly valid, some out of range (NULL without ANSI)."""
    seconds = rng.choice(
        [
            Decimal("0"),
            Decimal("59.999999"),
            Decimal("60"),
            Decimal("60.5"),
            Decimal("-0.5"),
            Decimal("61"),
            Decimal(rng.randrange(0, 60_000_000)) / 1_000_000,
        ]
    )
    return (
        rng.choice([1, 1969, 2024, 2024, 2023, 9999]),
        rng.choice([0, 1, 2, 3, 11, 12, 13]),
        rng.choice([0, 1, 28, 29, 30, 31, 32]),
        rng.choice([-1, 0, 1, 2, 3, 23, 24]),
        rng.choice([0, 30, 59, 60]),
        seconds,
        rng.choice(ZONES),
    )


def test_make_timestamp_without_ansi_is_sparks(spark, session_zone, ansi_off):
    rng = random.Random(3)
    rows = [_fields(rng) for _ in range(400)]
    rows += [
        (2024, 3, 10, 2, 30, Decimal(0), "America/New_York"),
        (2024, 11, 3, 1, 30, Decimal("0.5"), "America/New_York"),
        (9999, 12, 31, 23, 59, Decimal("59.999999"), "UTC"),
    ]
    got_spark = (
        spark.createDataFrame(
            rows, "y INT, mo INT, d INT, h INT, mi INT, s DECIMAL(16, 6), z STRING"
        )
        .selectExpr(
            "unix_micros(make_timestamp(y, mo, d, h, mi, s)) AS a",
            "unix_micros(make_timestamp(y, mo, d, h, mi, s, z)) AS b",
            "CAST(make_timestamp_ntz(y, mo, d, h, mi, s) AS STRING) AS c",
            "unix_micros(try_make_timestamp_ltz(y, mo, d, h, mi, s, z)) AS e",
        )
        .collect()
    )
    make, ntz, try_ltz = (
        _glue("MAKE_TIMESTAMP"),
        _glue("MAKE_TIMESTAMP_NTZ"),
        _glue("TRY_MAKE_TIMESTAMP_LTZ"),
    )
    got = [
        (
            _micros(make(*f[:6])),
            _micros(make(*f)),
            _wall_text(ntz(*f[:6])),
            _micros(try_ltz(*f)),
        )
        for f in rows
    ]
    _same(got, got_spark)


def test_make_timestamp_reads_a_double_or_integer_as_sparks_decimal(spark, session_zone):
    rows = [(45.887,), (59.9999995,), (1.1234565,), (0.1,), (60.0,)]
    got_spark = (
        spark.createDataFrame(rows, "s DOUBLE")
        .selectExpr(
            "unix_micros(make_timestamp(2014, 12, 28, 6, 30, s)) AS a",
            "unix_micros(make_timestamp(2014, 12, 28, 6, 30, CAST(s AS INT))) AS b",
        )
        .collect()
    )
    make = _glue("MAKE_TIMESTAMP", ansi=True)
    got = [
        (_micros(make(2014, 12, 28, 6, 30, s)), _micros(make(2014, 12, 28, 6, 30, int(s))))
        for (s,) in rows
    ]
    _same(got, got_spark)


DAYS = ["MO", "tu", "Wed", "THURSDAY", "fri", "SA", "sunday", "xx", "M", "Mond"]


@pytest.mark.parametrize("ansi", [False, True])
def test_next_day_is_sparks(spark, ansi):
    rng = random.Random(5)
    start = date(2024, 1, 1)
    rows = [
        (start + timedelta(days=rng.randrange(-800, 800)), rng.choice(DAYS)) for _ in range(200)
    ]
    if ansi:
        rows = [(d, w) for d, w in rows if w.upper() not in ("XX", "M", "MOND")]
    with session_settings(spark, {"spark.sql.ansi.enabled": str(ansi).lower()}):
        got_spark = (
            spark.createDataFrame(rows, "d DATE, w STRING")
            .selectExpr("next_day(d, w)", "next_day(CAST(d AS STRING), w)")
            .collect()
        )
    next_day = _glue("NEXT_DAY", ansi)
    assert [(next_day(d, w), next_day(d.isoformat(), w)) for d, w in rows] == [
        tuple(r) for r in got_spark
    ]


PAIRS = """SELECT * FROM VALUES
  (1, 1, TIMESTAMP'2024-03-10 01:10:00', DATE'2024-03-09', 'PST', 2024, 3, 6, 45.887BD),
  (1, 2, TIMESTAMP'2024-03-10 06:30:00', DATE'2024-11-02', 'Europe/Brussels', 2023, 11, 1, 60BD),
  (1, 3, TIMESTAMP'2024-11-03 05:40:00', DATE'2024-02-29', 'Asia/Kolkata', 2024, 2, 23, 0BD),
  (2, 1, TIMESTAMP'2024-11-03 01:30:00', DATE'2024-12-31', '+05:30', 2024, 12, 3, 59.5BD),
  (2, 2, TIMESTAMP'2024-03-31 02:30:00', DATE'2023-03-10', 'America/New_York', 2024, 3, 2, 1BD)
  AS t(k, o, ts, d, z, y, mo, h, sec)"""

#: calls of A's first row and B's last, as the doors take them; Spark's own are the same
#: calls of ``a_<col>`` and ``b_<col>``, columns of the first and the last row
DOOR_CALLS = {
    "from_utc": "from_utc_timestamp(B.ts, A.z)",
    "to_utc": "to_utc_timestamp(greatest(B.ts, A.ts), B.z)",
    "from_utc_date": "from_utc_timestamp(least(B.d, A.d), B.z)",
    "convert": "convert_timezone(A.z, B.z, B.ts)",
    "convert_session": "convert_timezone(B.z, least(A.ts, B.ts))",
    "make": "try_make_timestamp(A.y, B.mo, B.h, B.h, 30, B.sec, A.z)",
    "make_session": "make_timestamp(B.y, A.mo, 1, B.h, 0, B.sec)",
    "make_ntz": "make_timestamp_ntz(B.y, A.mo, B.h, 1, 2, B.sec)",
    "next_day": "next_day(greatest(B.d, A.d), 'wed')",
}
_NAVIGATED = {"A": "FIRST(A.{})", "B": "LAST(B.{})"}


def _with_rows(call: str, form: dict[str, str]) -> str:
    return re.sub(r"\b([AB])\.(\w+)", lambda m: form[m.group(1)].format(m.group(2)), call)


def _spark_values(spark) -> dict[str, list]:
    """Each call computed by Spark from the first row's and the last row's values."""
    firsts = ", ".join(
        f"first_value({c}) OVER (PARTITION BY k ORDER BY o) AS a_{c}, {c} AS b_{c}"
        for c in ("ts", "d", "z", "y", "mo", "h", "sec")
    )
    calls = ", ".join(
        f"CAST({_with_rows(c, {'A': 'a_{}', 'B': 'b_{}'})} AS STRING) AS {n}"
        for n, c in DOOR_CALLS.items()
    )
    rows = spark.sql(
        f"SELECT k, {calls} FROM (SELECT *, {firsts}, "
        "max(o) OVER (PARTITION BY k) AS last_o FROM mr_zone_t) WHERE o = last_o ORDER BY k"
    ).collect()
    return {n: [(r.k, r[n]) for r in rows] for n in DOOR_CALLS}


MEASURED = """PARTITION BY k ORDER BY o
  MEASURES {measures}
  ONE ROW PER MATCH
  PATTERN (A B+)
  DEFINE A AS true, B AS true"""


@pytest.mark.parametrize("zone", SESSION_ZONES)
def test_the_table_functions_measures_are_sparks(spark, zone):
    """The table function computes the calls of two rows in Python (matchrec.sql's
    MEASURES hand them to Spark)."""
    matchrec.register(spark)
    spark.sql(PAIRS).createOrReplaceTempView("mr_zone_t")
    measures = ", ".join(
        f"CAST({_with_rows(c, _NAVIGATED)} AS STRING) AS {n}" for n, c in DOOR_CALLS.items()
    )
    body = MEASURED.format(measures=measures).replace("'", "''")
    with session_settings(spark, {"spark.sql.session.timeZone": zone}):
        want = _spark_values(spark)
        rows = spark.sql(
            f"SELECT * FROM match_recognize(TABLE(mr_zone_t), '{body}') ORDER BY k"
        ).collect()
    for name in DOOR_CALLS:
        assert any(v is not None for _, v in want[name]), name
        assert [(r.k, r[name]) for r in rows] == want[name], name


DEFINED = """SELECT * FROM (SELECT *, {wants} FROM mr_zone_t) MATCH_RECOGNIZE (
  PARTITION BY k ORDER BY o
  MEASURES count(B.*) AS n
  ONE ROW PER MATCH
  PATTERN (A B+)
  DEFINE B AS {tests}
) ORDER BY k"""


@pytest.mark.parametrize("zone", SESSION_ZONES)
def test_define_computes_them_over_two_rows_as_spark(spark, zone):
    """DEFINE's glue: each B row's call of FIRST(A.x) and its own values equals Spark's
    (every B row matches only if all do)."""
    spark.sql(PAIRS).createOrReplaceTempView("mr_zone_t")
    firsts = {"A": "first_value({}) OVER (PARTITION BY k ORDER BY o)", "B": "{}"}
    wants = ", ".join(f"{_with_rows(c, firsts)} AS want_{n}" for n, c in DOOR_CALLS.items())
    tests = " AND ".join(
        f"({_with_rows(c, {'A': 'FIRST(A.{})', 'B': 'B.{}'})} <=> want_{n})"
        for n, c in DOOR_CALLS.items()
    )
    with session_settings(spark, {"spark.sql.session.timeZone": zone}):
        rows = matchrec.sql(spark, DEFINED.format(wants=wants, tests=tests)).collect()
    assert [(r.k, r.n) for r in rows] == [(1, 2), (2, 1)]


def test_an_invalid_zone_is_a_positioned_error(spark):
    spark.sql(PAIRS).createOrReplaceTempView("mr_zone_t")
    query = """SELECT * FROM mr_zone_t MATCH_RECOGNIZE (
  PARTITION BY k ORDER BY o
  MEASURES count(*) AS n
  PATTERN (A B+)
  DEFINE B AS from_utc_timestamp(greatest(B.ts, FIRST(A.ts)), B.z || '/x') > A.ts)"""
    with pytest.raises(MatchRuntimeError, match="INVALID_TIMEZONE") as info:
        matchrec.sql(spark, query).collect()
    assert "line 5" in str(info.value)


@pytest.mark.parametrize(
    ("names", "values", "clause"),
    [
        # a map's TIMESTAMP keys, indexed by a DATE: Spark casts the date at midnight in
        # the session zone (the table function had no zone: no TIMESTAMP column)
        (
            "sym, id, mp, d",
            "('a', 1, map(TIMESTAMP'2024-01-02 00:00:00', 'x', TIMESTAMP'2024-01-03 00:00:00', "
            "'y'), DATE'2024-01-02'), ('a', 2, map(TIMESTAMP'2024-01-02 00:00:00', 'x'), "
            "DATE'2024-01-03')",
            "MEASURES FIRST(A.mp)[LAST(B.d)] AS m, FIRST(A.mp)[FIRST(A.d)] AS m2 "
            "PATTERN (A B) DEFINE B AS true",
        ),
        # an instant of dates only: midnight in the session zone (it was UTC's)
        (
            "sym, id, d",
            "('a', 1, DATE'2024-01-02'), ('a', 2, DATE'2024-01-03')",
            "MEASURES unix_timestamp(CAST(greatest(FIRST(A.d), LAST(B.d)) AS TIMESTAMP)) AS u "
            "PATTERN (A B) DEFINE B AS unix_timestamp(CAST(greatest(FIRST(A.d), B.d) AS "
            "TIMESTAMP)) > 0",
        ),
        (
            "sym, id, s",
            "('a', 1, '2024-01-02'), ('a', 2, '2024-01-03 10:00')",
            "MEASURES unix_timestamp(CAST(greatest(FIRST(A.s), LAST(B.s)) AS TIMESTAMP)) AS u "
            "PATTERN (A B) DEFINE B AS true",
        ),
    ],
)
def test_a_time_without_a_timestamp_column_is_in_the_session_zone(
    spark, session_zone, names, values, clause
):
    """The table function learns the session zone from a TIMESTAMP column of its input;
    with none (only dates, or a TIMESTAMP inside a map) it read wall-clock times as UTC's,
    or compared them with the map's instants as never equal."""
    matchrec.register(spark)
    spark.sql(f"SELECT * FROM VALUES {values} AS t({names})").createOrReplaceTempView("no_ts")
    body = f"PARTITION BY sym ORDER BY id {clause}"
    got = {door: rows_through(spark, door, "no_ts", body) for door in DOORS}
    assert got["matchrec.sql"] and got["table function"] == got["matchrec.sql"]


#: instants whose wall clock 30 days, 364 days or a month away is in the fall-back hour
#: of America/Los_Angeles (2026-11-01 01:00-02:00 happens twice), from either offset
OVERLAP_ROWS = """SELECT * FROM VALUES (1, TIMESTAMP'2026-12-01T09:30:00Z'),
    (2, TIMESTAMP'2026-11-01T09:30:00Z'), (3, TIMESTAMP'2026-10-02T08:30:00Z'),
    (4, TIMESTAMP'2026-11-01T08:30:00Z'), (5, TIMESTAMP'2025-11-02T09:30:00Z') AS t(id, ts)"""


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize(
    "moved",
    [
        "timestampadd(DAY, -30, max(A.ts))",
        "timestampadd(DAY, 30, max(A.ts))",
        "timestampadd(MONTH, -1, max(A.ts))",
        "timestampadd(WEEK, 52, max(A.ts))",
    ],
)
def test_wall_clock_arithmetic_into_an_overlap_keeps_the_offset(spark, door, moved):
    """Java's ``ZonedDateTime.plusDays``/``plusMonths``, which Spark uses, keep the
    source's offset where the wall clock reached has it (01:30 PST stays PST, 09:30Z); the
    glue took the earlier offset (PDT, 08:30Z), an hour off, and missed the match."""
    matchrec.register(spark)
    spark.sql(OVERLAP_ROWS).createOrReplaceTempView("mr_overlap")
    body = pair_clause(f"{moved} <= B.ts", f"A.id AS a, CAST({moved} AS BIGINT) AS m")
    one_row = moved.replace("max(A.ts)", "A.ts")
    with session_settings(spark, {"spark.sql.session.timeZone": "America/Los_Angeles"}):
        want = spark.sql(
            f"SELECT A.id, CAST({one_row} AS BIGINT) FROM mr_overlap A JOIN mr_overlap B"
            f" ON B.id = A.id + 1 WHERE {one_row} <= B.ts ORDER BY 1"
        ).collect()
        assert rows_through(spark, door, "mr_overlap", body) == [tuple(r) for r in want]


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize("session_zone", ["UTC+05:30", "PST", "-08"])
def test_a_session_zone_named_as_java_names_it_reaches_the_glue(spark, door, session_zone):
    """Spark hands TIMESTAMPs to Python in the session zone as Java names it; Arrow's
    conversion could not read ``UTC+05:30`` or ``PST`` (a raw UnknownTimeZoneError from
    the worker, the job failed): it reads the same zone by Python's name."""
    matchrec.register(spark)
    spark.sql(
        "SELECT * FROM VALUES"
        " (1, TIMESTAMP'2026-03-08T08:30:00Z', TIMESTAMP_NTZ'2026-03-08 00:30:00'),"
        " (2, TIMESTAMP'2026-03-08T09:45:00Z', TIMESTAMP_NTZ'2026-03-08 01:45:00'),"
        " (3, TIMESTAMP'2026-03-09T10:15:00Z', TIMESTAMP_NTZ'2026-03-09 03:15:00')"
        " AS t(id, ts, ntz)"
    ).createOrReplaceTempView("mr_java_zones")
    body = pair_clause("B.ntz > A.ts", "A.id AS a, CAST(max(ts) AS STRING) AS m")
    with session_settings(spark, {"spark.sql.session.timeZone": session_zone}):
        want = spark.sql(
            "SELECT A.id, CAST(greatest(A.ts, B.ts) AS STRING) FROM mr_java_zones A"
            " JOIN mr_java_zones B ON B.id = A.id + 1 WHERE B.ntz > A.ts ORDER BY 1"
        ).collect()
        got = rows_through(spark, door, "mr_java_zones", body)
        assert want and got == [tuple(r) for r in want]


FAR_ROWS = """SELECT * FROM VALUES
    (1, TIMESTAMP'1800-01-01T12:00:00Z'), (2, TIMESTAMP'0001-01-01T00:00:00Z'),
    (3, TIMESTAMP'2026-01-01T00:00:00Z'), (4, TIMESTAMP'2026-01-05T00:00:00Z') AS t(id, ts)"""


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize(
    "condition",
    [
        "B.ts - A.ts > INTERVAL '1' DAY",
        "A.ts + INTERVAL '1' DAY < B.ts",
        "greatest(A.ts, B.ts) = B.ts",
        "unix_micros(A.ts) < unix_micros(B.ts)",
    ],
)
def test_an_instant_whose_wall_clock_python_cannot_hold_is_compared(spark, door, condition):
    """0001-01-01 00:00 UTC, a common sentinel, is year 0 in Los Angeles, which Python's
    datetime cannot hold: every condition of two rows reading it failed ("outside years
    1-9999"). What needs only the instant is computed, as Spark does."""
    matchrec.register(spark)
    spark.sql(FAR_ROWS).createOrReplaceTempView("mr_far_instants")
    with session_settings(spark, {"spark.sql.session.timeZone": "America/Los_Angeles"}):
        want = pair_join(spark, "mr_far_instants", condition=condition)
        assert want and rows_through(spark, door, "mr_far_instants", pair_clause(condition)) == want


@pytest.mark.parametrize("door", DOORS)
def test_the_wall_clock_of_such_an_instant_is_spark_s(spark, door):
    """Its wall clock in the session zone (year 0 in Los Angeles), where the evaluator of
    several rows needs it (the table function's MEASURES), is Spark's, not UTC's: it was
    a run-time error."""
    matchrec.register(spark)
    spark.sql(FAR_ROWS).createOrReplaceTempView("mr_far_instants")
    measures = "A.id AS a, CAST(least(A.ts, B.ts) AS STRING) AS m, hour(least(A.ts, B.ts)) AS h"
    body = pair_clause("true", measures)
    with session_settings(spark, {"spark.sql.session.timeZone": "America/Los_Angeles"}):
        got = rows_through(spark, door, "mr_far_instants", body)
        want = pair_join(
            spark,
            "mr_far_instants",
            "A.id, CAST(least(A.ts, B.ts) AS STRING), hour(least(A.ts, B.ts))",
        )
    assert got == want
    assert any(m.startswith("0000-12-31") for _, m, _ in got)


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize(
    "call",
    [
        "date_format(convert_timezone('UTC', 'America/Los_Angeles', {w}), 'HH:mm XXX')",
        "unix_seconds(CAST(convert_timezone('UTC', 'America/Los_Angeles', {w}) AS TIMESTAMP))",
        "date_format(from_utc_timestamp(CAST({w} AS TIMESTAMP), 'UTC'), 'HH:mm XXX')",
        "unix_seconds(CAST(to_utc_timestamp({w}, 'UTC') AS TIMESTAMP_NTZ))",
    ],
)
def test_a_repeated_wall_clock_is_read_at_its_earlier_offset(spark, door, call):
    """A TIMESTAMP_NTZ made in the repeated hour of a fall-back (01:30 in Los Angeles on
    2024-11-03, the second time) reads as a TIMESTAMP at the earlier offset, -07:00, as
    Spark reads it (it kept Python's ``fold`` and read -08:00)."""
    with session_settings(spark, {"spark.sql.session.timeZone": "America/Los_Angeles"}):
        spark.sql(
            """CREATE OR REPLACE TEMP VIEW repeated_hour_rows AS
            SELECT *, lag(w) OVER (ORDER BY id) AS prev_w FROM (
            SELECT CAST(id AS INT) AS id,
            TIMESTAMP_NTZ'2024-11-03 07:30:00' + make_dt_interval(0, CAST(id AS INT)) AS w
            FROM range(1, 6))"""
        )
        matchrec.register(spark)
        ours = call.format(w="greatest(A.w, B.w)")
        sparks = call.format(w="greatest(B.prev_w, B.w)")
        got = rows_through(
            spark, door, "repeated_hour_rows", pair_clause(f"string({ours}) <=> string({sparks})")
        )
    assert got == [(a,) for a in range(1, 5)]


def assert_calls_are_sparks(spark, door: str, view: str, calls: list[str], pairs: int) -> None:
    """Each call of ``{d}`` (a DATE) and ``{w}`` (a TIMESTAMP_NTZ) read at two rows (the
    least of A's and B's) gives, in MEASURES and in DEFINE, what Spark's own call of one
    row gives over the same values (the least of B's and the row before's), as text."""
    matchrec.register(spark)
    both = [
        (
            call.format(d="least(A.d, B.d)", w="least(A.w, B.w)"),
            call.format(d="least(B.prev_d, B.d)", w="least(B.prev_w, B.w)"),
        )
        for call in calls
    ]
    measures = ", ".join(
        f"string({ours}) AS o{i}, string({sparks}) AS s{i}" for i, (ours, sparks) in enumerate(both)
    )
    measured = rows_through(spark, door, view, pair_clause("true", measures))
    condition = " AND ".join(f"string({o}) <=> string({s})" for o, s in both)
    defined = rows_through(spark, door, view, pair_clause(condition))
    assert len(measured) == pairs
    for row in measured:
        ours = {c: row[2 * i] for i, c in enumerate(calls)}
        assert ours == {c: row[2 * i + 1] for i, c in enumerate(calls)}
    assert defined == [(a,) for a in range(pairs)]


#: calls of a DATE ``{d}`` whose midnight, or a TIMESTAMP_NTZ ``{w}`` whose wall clock,
#: the session zone skips (a daylight-saving gap at midnight), met with a TIMESTAMP
GAP_CALLS = [
    "CAST({d} AS TIMESTAMP)",
    "to_timestamp({d})",
    "B.t - {d}",
    "{d} - B.t",
    "B.t - CAST({d} AS TIMESTAMP)",
    "date_trunc('DAY', B.t) - {d}",
    "coalesce({d}, B.t)",
    "IF(B.id > 0, {d}, B.t)",
    "array({d}, B.t)",
    "greatest({d}, B.t)",
    "hour(CAST({d} AS TIMESTAMP))",
    "CAST({w} AS TIMESTAMP)",
    "greatest({w}, B.t)",
    "B.t - CAST({w} AS TIMESTAMP)",
    "date_format(CAST({w} AS TIMESTAMP), 'HH:mm XXX')",
    "date_format({d}, 'yyyy-MM-dd HH:mm XXX')",
    "unix_timestamp({d})",
    "timestampdiff(MINUTE, {d}, B.t)",
    "timestampdiff(HOUR, B.t, {w})",
    "unix_seconds({w})",
    "unix_micros({w})",
]

GAP_ROWS = """CREATE OR REPLACE TEMP VIEW gap_rows AS
    SELECT *, lag(d) OVER (ORDER BY id) AS prev_d, lag(w) OVER (ORDER BY id) AS prev_w
    FROM (SELECT CAST(id AS INT) AS id, DATE'{day}' + CAST(id DIV 2 AS INT) AS d,
          TIMESTAMP_NTZ'{day} 00:30:00' + make_dt_interval(CAST(id DIV 2 AS INT)) AS w,
          TIMESTAMP'{day} 12:00:00' + make_dt_interval(CAST(id AS INT)) AS t
          FROM range(0, 4))"""


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize(
    ("zone", "day"), [("America/Santiago", "2024-09-08"), ("Asia/Beirut", "2024-03-31")]
)
def test_a_wall_clock_the_zone_skips_is_read_after_the_gap(spark, door, zone, day):
    """A DATE whose midnight is in a daylight-saving gap becomes a TIMESTAMP at its first
    instant (01:00 there), a TIMESTAMP_NTZ in the gap an hour later, as Spark (Java)
    reads them, in DEFINE and in MEASURES. They kept the wall clock the zone skips: a
    TIMESTAMP minus such a DATE was an hour longer than Spark's, its text 00:00."""
    with session_settings(spark, {"spark.sql.session.timeZone": zone}):
        spark.sql(GAP_ROWS.format(day=day))
        assert_calls_are_sparks(spark, door, "gap_rows", GAP_CALLS, pairs=3)


EDGE_CALLS = [
    "CAST({d} AS TIMESTAMP)",
    "CAST({w} AS TIMESTAMP)",
    "B.t - {d}",
    "B.t - CAST({w} AS TIMESTAMP)",
    "IF(B.id > 0, {d}, B.t)",
    "coalesce({w}, B.t)",
    "array({d}, B.t)",
    "greatest({d}, B.t)",
    "least({w}, B.t)",
    "timestampdiff(MINUTE, {w}, B.t)",
    "unix_seconds(CAST({w} AS TIMESTAMP))",
]


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize(
    ("zone", "d", "w", "t"),
    [
        ("Asia/Tokyo", "0001-01-01", "0001-01-01 00:30:00", "0001-01-01 12:00:00"),
        ("America/Los_Angeles", "9999-12-30", "9999-12-31 23:00:00", "9999-12-31 12:00:00"),
    ],
)
def test_a_wall_clock_whose_instant_python_cannot_hold_becomes_a_timestamp(
    spark, door, zone, d, w, t
):
    """A DATE or TIMESTAMP_NTZ at either end of Python's years whose instant is past
    them (0001-01-01 in Tokyo is year 0 in UTC; 9999-12-31 23:00 in Los Angeles is year
    10000), read as a TIMESTAMP beside one: Spark's answers, not an error or NULL."""
    with session_settings(spark, {"spark.sql.session.timeZone": zone}):
        spark.sql(
            f"""CREATE OR REPLACE TEMP VIEW edge_rows AS
            SELECT *, lag(d) OVER (ORDER BY id) AS prev_d, lag(w) OVER (ORDER BY id) AS prev_w
            FROM (SELECT CAST(id AS INT) AS id, DATE'{d}' AS d,
                  TIMESTAMP_NTZ'{w}' - make_dt_interval(0, 0, CAST(id AS INT)) AS w,
                  TIMESTAMP'{t}' + make_dt_interval(0, CAST(id AS INT)) AS t
                  FROM range(0, 3))"""
        )
        assert_calls_are_sparks(spark, door, "edge_rows", EDGE_CALLS, pairs=2)
