"""Write the example datasets (the CSV files beside this script).

Run ``python examples/data/make_data.py`` to regenerate them; the output is deterministic
(no randomness, no clock), so the committed CSVs and the expected results in
``examples/expected/`` stay in step. Every dataset is small enough to check by hand: the
comments below say, case by case, which rows each example's pattern matches and why, and
the expected files were written from that reasoning.

All timestamps are wall-clock times without a time zone (read as ``TIMESTAMP_NTZ``).
"""

from __future__ import annotations

import csv
from datetime import datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
DAY = datetime(2026, 11, 2)


def at(hhmm: str, day: int = 0) -> datetime:
    """``"09:30"`` or ``"09:30:15"`` on 2026-11-02 (plus ``day`` days)."""
    parts = [int(p) for p in hhmm.split(":")] + [0]
    return DAY + timedelta(days=day, hours=parts[0], minutes=parts[1], seconds=parts[2])


def fmt(ts: datetime) -> str:
    return ts.strftime("%Y-%m-%d %H:%M:%S")


def write(name: str, header: list[str], rows: list[list[object]]) -> None:
    with open(HERE / name, "w", newline="") as handle:
        out = csv.writer(handle, lineterminator="\n")
        out.writerow(header)
        for row in rows:
            out.writerow("" if v is None else fmt(v) if isinstance(v, datetime) else v for v in row)


# ---------------------------------------------------------------------------------------
# stock_ticks.csv: one price a minute per symbol, from 09:30.
#
# stock_shapes.py looks for V-shapes (STRT DOWN{2,} UP{2,}: at least two ticks down, then
# at least two up; AFTER MATCH SKIP TO LAST UP, so the top of one V can start the next)
# and W-shapes (STRT D1{2,} U1{2,} D2{2,} U2{2,}; SKIP PAST LAST ROW). A tick is DOWN
# when the price is lower than the previous one, UP when higher; an unchanged price is
# neither, so a flat tick breaks a shape. Legs are maximal runs (greedy quantifiers and
# DOWN/UP exclude each other), so each shape below can be read off the price list.
# "chop" segments alternate +0.25/-0.25 after a flat first tick: never two moves the same
# way in a row, so they hold no shape at all.
#
# Expected (row numbers are minutes after 09:30):
#   ACME  rows 4-10  (09:34-09:40)  V   20.25 -> 19.75, 19.25, 19.00 -> 19.50, 20.00, 20.50
#         rows 12-13 one tick down then up: too shallow for a V
#         rows 15-19 (09:45-09:49)  V   20.75 -> 20.50, 20.00 -> 20.25, 20.75
#         rows 19-24 (09:49-09:54)  V   starts at the top of the previous V (SKIP TO LAST UP)
#         rows 15-24 (09:45-09:54)  W   bottoms 09:47 (20.00) and 09:52 (19.75)
#   GLOBEX rows 3-9  down 3 ticks, one flat tick at 42.25 (09:37), up 2: no V (flat breaks it)
#         rows 9-13  (09:39-09:43)  V   43.25 -> 43.00, 42.50 -> 42.75, 43.25
#         rows 13-16 down 2, up only 1 (09:46) then flat: neither a V nor (with rows 9-13)
#                    a W: the second rise is one tick
#   INITECH rows 1-6 (09:31-09:36)  V   12.00 -> 11.75, 11.50, 11.25 -> 11.50, 11.75
#         rows 6-12  (09:36-09:42)  V   11.75 -> 11.50, 11.25, 11.00 -> 11.25, 11.75, 12.25
#         rows 1-12  (09:31-09:42)  W   bottoms 09:34 (11.25) and 09:39 (11.00)
# ---------------------------------------------------------------------------------------


def chop(start: float, n: int) -> list[float]:
    """``n`` prices: ``start``, then alternately 0.25 up and 0.25 down."""
    return [start + (0.25 if i % 2 else 0.0) for i in range(n)]


STOCKS = {
    "ACME": [20.00, 20.25, 20.00, 20.25]  # 09:30-09:33 chop
    + [20.25, 19.75, 19.25, 19.00, 19.50, 20.00, 20.50]  # 09:34-09:40 V
    + [20.50, 20.25, 20.50, 20.75]  # 09:41-09:44 one-tick dip
    + [20.75, 20.50, 20.00, 20.25, 20.75, 20.50, 20.00, 19.75, 20.25, 21.00]  # 09:45-09:54 W
    + chop(21.00, 15),  # 09:55-10:09
    "GLOBEX": [43.00, 43.25, 43.00, 43.25]  # 09:30-09:33 chop
    + [43.00, 42.50, 42.25, 42.25, 42.75, 43.25]  # 09:34-09:39 flat bottom: no V
    + [43.00, 42.50, 42.75, 43.25]  # 09:40-09:43 V from 09:39
    + [43.00, 42.75, 43.00]  # 09:44-09:46 almost a second V
    + chop(43.00, 13),  # 09:47-09:59
    "INITECH": [12.00, 12.00, 11.75, 11.50, 11.25, 11.50, 11.75]  # 09:30-09:36 first V
    + [11.50, 11.25, 11.00, 11.25, 11.75, 12.25]  # 09:37-09:42 second V: a W
    + chop(12.25, 17),  # 09:43-09:59
}


def stock_ticks() -> list[list[object]]:
    rows: list[list[object]] = []
    for symbol, prices in STOCKS.items():
        for minute, price in enumerate(prices):
            rows.append([symbol, at("09:30") + timedelta(minutes=minute), f"{price:.2f}"])
    return rows


# ---------------------------------------------------------------------------------------
# web_clicks.csv: page events per user. sessionize.py: a session is PATTERN (S N*) where
# N continues the session when it comes at most 30 minutes after the previous event and
# the previous event was not a checkout.
#
# Expected sessions (user, number, start - end, events, ended in checkout):
#   alice 1  09:00-09:24  5  yes
#   alice 2  09:30-10:15  3  no   starts right after the checkout; 09:45 -> 10:15 is a
#                                 gap of exactly 30 minutes, which does not end a session
#   alice 3  10:46-11:05  3  yes  10:15 -> 10:46 is 31 minutes: a new session
#   bob   1  08:00-08:10  2  no
#   bob   2  10:10-10:40  4  no   two hours of silence before it
#   carol 1  12:00-12:00  1  no   a single event
#   carol 2  13:00-13:05  2  yes
#   carol 3  13:06-13:06  1  yes  a second checkout one minute later is its own session
#   dave  1  14:00-17:00 10  no   an event every 20 minutes: sessions have no length cap
#   erin  1  23:50-00:15  3  yes  crosses midnight
# ---------------------------------------------------------------------------------------

CLICKS = {
    "alice": [
        ("09:00", "view", "/"),
        ("09:05", "search", "/search?q=boots"),
        ("09:12", "view", "/p/boots-123"),
        ("09:20", "cart", "/cart"),
        ("09:24", "checkout", "/checkout"),
        ("09:30", "view", "/"),
        ("09:45", "view", "/p/socks-9"),
        ("10:15", "view", "/p/socks-10"),
        ("10:46", "view", "/"),
        ("10:50", "cart", "/cart"),
        ("11:05", "checkout", "/checkout"),
    ],
    "bob": [
        ("08:00", "view", "/"),
        ("08:10", "view", "/p/lamp-7"),
        ("10:10", "search", "/search?q=lamp"),
        ("10:20", "view", "/p/lamp-8"),
        ("10:25", "cart", "/cart"),
        ("10:40", "cart", "/cart"),
    ],
    "carol": [
        ("12:00", "view", "/p/mug-2"),
        ("13:00", "view", "/p/mug-2"),
        ("13:05", "checkout", "/checkout"),
        ("13:06", "checkout", "/checkout"),
    ],
    "dave": [
        (f"{14 + m // 60:02d}:{m % 60:02d}", "view", f"/p/item-{m}") for m in range(0, 181, 20)
    ],
    "erin": [
        ("23:50", "view", "/p/tent-4"),
        ("24:10", "cart", "/cart"),  # 00:10 the next day
        ("24:15", "checkout", "/checkout"),
    ],
}


def web_clicks() -> list[list[object]]:
    rows: list[list[object]] = []
    for user, events in CLICKS.items():
        for hhmm, action, page in events:
            rows.append([user, at(hhmm), action, page])
    rows.sort(key=lambda r: (r[1], r[0]))  # an event log: in time order
    return rows


# ---------------------------------------------------------------------------------------
# shop_events.csv: product events per user. funnel.py: PATTERN (V+ C+ P) WITHIN
# INTERVAL '1' HOUR per (user, product): one or more views, one or more add-to-carts,
# then a purchase, all within one hour of the first view of the match. Views of other
# products in between do not matter (each user/product pair is its own partition).
#
# Expected funnels:
#   u1 p1  10:00 view, 10:10 view, 10:20 cart, 10:30 purchase     30 min  completed
#          14:00 view, 14:05 cart, 14:20 purchase                  20 min  completed
#   u1 p2  10:05 view, 10:15 cart, no purchase                     abandoned cart
#   u2 p1  09:00 view, 09:10 cart, 10:30 purchase                  90 min: too slow
#   u2 p3  11:00 view, 12:30 view, 12:40 cart, 12:50 purchase      from 11:00 it takes 110
#          minutes, so that start fails; from the 12:30 view it is 20 min: completed
#   u3 p2  15:00 view, 15:10 purchase                              no cart step
#   u3 p4  16:00 view, 16:02 cart, 16:03 cart, 16:45 purchase      45 min  completed
#   u4 p2  09:00 view, 09:05 cart, 09:06 purchase                  6 min   completed
#          09:30 view, 09:40 cart, 10:50 purchase                  80 min: too slow
#   u4 p5  13:00 view, 13:30 cart, 13:59 purchase                  59 min  completed
#   u5 p1  08:00, 08:20, 08:40 views only                          browsing
# Per pair: u1 p1 2 (fastest 20), u2 p3 1 (20), u3 p4 1 (45), u4 p2 1 (6), u4 p5 1 (59),
# and 0 (fastest NULL) for u1 p2, u2 p1, u3 p2, u5 p1.
# ---------------------------------------------------------------------------------------

SHOP = {
    ("u1", "p1"): [
        ("10:00", "view"),
        ("10:10", "view"),
        ("10:20", "cart"),
        ("10:30", "purchase"),
        ("14:00", "view"),
        ("14:05", "cart"),
        ("14:20", "purchase"),
    ],
    ("u1", "p2"): [("10:05", "view"), ("10:15", "cart")],
    ("u2", "p1"): [("09:00", "view"), ("09:10", "cart"), ("10:30", "purchase")],
    ("u2", "p3"): [("11:00", "view"), ("12:30", "view"), ("12:40", "cart"), ("12:50", "purchase")],
    ("u3", "p2"): [("15:00", "view"), ("15:10", "purchase")],
    ("u3", "p4"): [("16:00", "view"), ("16:02", "cart"), ("16:03", "cart"), ("16:45", "purchase")],
    ("u4", "p2"): [
        ("09:00", "view"),
        ("09:05", "cart"),
        ("09:06", "purchase"),
        ("09:30", "view"),
        ("09:40", "cart"),
        ("10:50", "purchase"),
    ],
    ("u4", "p5"): [("13:00", "view"), ("13:30", "cart"), ("13:59", "purchase")],
    ("u5", "p1"): [("08:00", "view"), ("08:20", "view"), ("08:40", "view")],
}


def shop_events() -> list[list[object]]:
    rows: list[list[object]] = []
    for (user, product), events in SHOP.items():
        for hhmm, event in events:
            rows.append([user, product, at(hhmm), event])
    rows.sort(key=lambda r: (r[2], r[0], r[1]))
    return rows


# ---------------------------------------------------------------------------------------
# login_attempts.csv: sign-in attempts. failed_logins.py: PATTERN (F{3,} S) WITHIN
# INTERVAL '10' MINUTE per account: three or more failures in a row, then a success, the
# whole run within ten minutes.
#
# Expected alerts:
#   alice 10:00:05-10:01:40  3 failures from one IP, then a success
#   bob   two failures then a success: not enough failures
#   carol failures at 10:00, 10:04, 10:08, 10:12, 10:13 (five IPs), success 10:15:
#         from 10:00 or 10:04 the success comes after more than ten minutes, so the
#         match starts at 10:08: 3 failures, 3 distinct IPs, success from the last one
#   dave  failures 09:00-09:03, success 09:14: 11+ minutes after every start with three
#         failures before it: no alert
#   erin  08:00:00-08:01:00  3 failures, one IP
#         13:00:00-13:00:50  4 failures from 4 IPs (credential stuffing), then a success
#   grace fail, fail, success, fail, success: never three failures in a row
#   user01..user08: ordinary sign-ins; every third has one typo (a failure 20 seconds
#         before its first success): never three failures in a row
# ---------------------------------------------------------------------------------------

LOGINS = {
    "alice": [
        ("10:00:05", "FAIL", "203.0.113.7"),
        ("10:00:35", "FAIL", "203.0.113.7"),
        ("10:01:10", "FAIL", "203.0.113.7"),
        ("10:01:40", "SUCCESS", "203.0.113.7"),
    ],
    "bob": [
        ("11:00", "FAIL", "198.51.100.20"),
        ("11:01", "FAIL", "198.51.100.20"),
        ("11:02", "SUCCESS", "198.51.100.20"),
    ],
    "carol": [
        ("10:00", "FAIL", "198.51.100.1"),
        ("10:04", "FAIL", "198.51.100.2"),
        ("10:08", "FAIL", "198.51.100.3"),
        ("10:12", "FAIL", "198.51.100.4"),
        ("10:13", "FAIL", "198.51.100.5"),
        ("10:15", "SUCCESS", "198.51.100.5"),
    ],
    "dave": [
        ("09:00", "FAIL", "192.0.2.44"),
        ("09:01", "FAIL", "192.0.2.44"),
        ("09:02", "FAIL", "192.0.2.44"),
        ("09:03", "FAIL", "192.0.2.44"),
        ("09:14", "SUCCESS", "192.0.2.44"),
    ],
    "erin": [
        ("08:00:00", "FAIL", "192.0.2.10"),
        ("08:00:20", "FAIL", "192.0.2.10"),
        ("08:00:40", "FAIL", "192.0.2.10"),
        ("08:01:00", "SUCCESS", "192.0.2.10"),
        ("13:00:00", "FAIL", "203.0.113.21"),
        ("13:00:10", "FAIL", "203.0.113.22"),
        ("13:00:20", "FAIL", "203.0.113.23"),
        ("13:00:30", "FAIL", "203.0.113.24"),
        ("13:00:50", "SUCCESS", "203.0.113.24"),
    ],
    "grace": [
        ("15:00", "FAIL", "192.0.2.77"),
        ("15:01", "FAIL", "192.0.2.77"),
        ("15:02", "SUCCESS", "192.0.2.77"),
        ("15:03", "FAIL", "192.0.2.77"),
        ("15:04", "SUCCESS", "192.0.2.77"),
    ],
}


def login_attempts() -> list[list[object]]:
    rows: list[list[object]] = []
    for account, attempts in LOGINS.items():
        for hhmm, outcome, ip in attempts:
            rows.append([account, at(hhmm), outcome, ip])
    for i in range(8):  # ordinary users: three sign-ins a day, sometimes a typo first
        account, ip = f"user{i + 1:02d}", f"192.0.2.{100 + i}"
        first = at("08:00") + timedelta(minutes=7 * i)
        if i % 3 == 0:
            rows.append([account, first - timedelta(seconds=20), "FAIL", ip])
        for hours in (0, 4, 8):
            rows.append([account, first + timedelta(hours=hours), "SUCCESS", ip])
    rows.sort(key=lambda r: (r[1], r[0]))
    return rows


# ---------------------------------------------------------------------------------------
# sensor_readings.csv: one temperature reading a minute per sensor, 08:00-08:59.
# sensor_threshold.py: PATTERN (H+) with H AS temp_c > 80.0, one row per run, kept when
# its first and last reading are at least 5 minutes apart. Outside the episodes below the
# readings are 70.0-74.0 degrees.
#
# Expected alerts:
#   boiler-1  08:10-08:17  7 min  8 readings  peak 85.0
#             08:30-08:33 above 80: only 3 minutes
#   boiler-2  08:20-08:25  5 min  6 readings  peak 82.0   (exactly 5 minutes is enough)
#             08:40-08:47 above 80 but 08:44 is missing (NULL): two runs of 3 and 2 min
#             08:50-08:56 above 80 except 08:53 at exactly 80.0: two runs of 2 minutes
#   boiler-3  08:05 a one-reading spike (95.0): no alert
#             08:45-08:59 14 min  15 readings  peak 87.5   (runs to the end of the data)
# ---------------------------------------------------------------------------------------

EPISODES: dict[str, dict[int, float | None]] = {
    "boiler-1": {
        **dict(zip(range(10, 18), [81.5, 83.0, 84.5, 85.0, 84.0, 82.5, 81.0, 80.5])),
        **dict(zip(range(30, 34), [80.5, 82.0, 81.5, 80.5])),
    },
    "boiler-2": {
        **dict(zip(range(20, 26), [80.5, 81.0, 81.5, 82.0, 81.5, 81.0])),
        **dict(zip(range(40, 48), [85.0, 86.0, 86.5, 86.0, None, 86.0, 85.5, 85.0])),
        **dict(zip(range(50, 57), [81.0, 81.5, 82.0, 80.0, 81.0, 81.5, 82.0])),
    },
    "boiler-3": {
        5: 95.0,
        **{m: 80.5 + 0.5 * (m - 45) for m in range(45, 60)},
    },
}


def sensor_readings() -> list[list[object]]:
    rows: list[list[object]] = []
    for s, (sensor, episodes) in enumerate(EPISODES.items()):
        for minute in range(60):
            normal = 70.0 + ((minute * 7 + s * 3) % 9) * 0.5  # 70.0 .. 74.0
            temp = episodes[minute] if minute in episodes else normal
            value = None if temp is None else f"{temp:.1f}"
            rows.append([sensor, at("08:00") + timedelta(minutes=minute), value])
    return rows


def main() -> None:
    write("stock_ticks.csv", ["symbol", "ts", "price"], stock_ticks())
    write("web_clicks.csv", ["user_id", "ts", "action", "page"], web_clicks())
    write("shop_events.csv", ["user_id", "product_id", "ts", "event"], shop_events())
    write("login_attempts.csv", ["account", "ts", "outcome", "ip"], login_attempts())
    write("sensor_readings.csv", ["sensor_id", "ts", "temp_c"], sensor_readings())


if __name__ == "__main__":
    main()
