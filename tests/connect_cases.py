"""The queries that ``test_connect`` runs through every door on a classic session and on
a Spark Connect session, and how a result is written down so the two can be compared.

Imported by the test (classic session, in the pytest process) and by
``connect_driver.py`` (a Connect client in a child process); it imports no Spark at
module level.
"""

from __future__ import annotations

import datetime as dt
import decimal
from pathlib import Path
from typing import Any

TABLE = "cx_prices"
SCHEMA = "sym STRING, t INT, price DOUBLE"
# x: V shapes 1-3-5 and 5-7-8 (the first wins), y: one V then a flat step
ROWS = [
    ("x", 1, 10.0), ("x", 2, 9.0), ("x", 3, 8.0), ("x", 4, 9.0), ("x", 5, 11.0),
    ("x", 6, 10.0), ("x", 7, 12.0), ("y", 1, 5.0), ("y", 2, 4.0), ("y", 3, 6.0),
    ("y", 4, 6.0),
]  # fmt: skip

ONE_ROW = """PARTITION BY sym ORDER BY t
  MEASURES FIRST(t) AS start_t, LAST(DOWN.t) AS bottom_t, count(*) AS n
  ONE ROW PER MATCH
  PATTERN (STRT DOWN+ UP+)
  DEFINE DOWN AS price < PREV(price), UP AS price > PREV(price)"""

ONE_ROW_COLUMNS = ["sym", "start_t", "bottom_t", "n"]

ALL_ROWS = """PARTITION BY sym ORDER BY t
  MEASURES classifier() AS cls, match_number() AS mn, RUNNING avg(price) AS avg_p
  ALL ROWS PER MATCH
  PATTERN (STRT DOWN{1,2} UP+)
  DEFINE DOWN AS price < PREV(price), UP AS price > PREV(price)"""

NESTED = f"""SELECT * FROM (SELECT * FROM {TABLE} MATCH_RECOGNIZE ({ONE_ROW}) AS i)
MATCH_RECOGNIZE (
  ORDER BY sym
  MEASURES count(*) AS total, FINAL sum(n) AS rows_in_matches
  PATTERN (M+)
  DEFINE M AS true
) AS o"""

#: name -> (door, text): ``sql`` runs a query with matchrec.sql, ``dataframe`` a clause
#: body with matchrec.match_recognize on the table, ``udtf`` a body through the
#: registered table function, ``magic`` a query through ``%%matchrec``
CASES: dict[str, tuple[str, str]] = {
    "sql_one_row": ("sql", f"SELECT * FROM {TABLE} MATCH_RECOGNIZE ({ONE_ROW}) AS m"),
    "sql_all_rows": ("sql", f"SELECT * FROM {TABLE} MATCH_RECOGNIZE ({ALL_ROWS}) AS m"),
    "sql_nested": ("sql", NESTED),
    "sql_cte_join": (
        "sql",
        f"""WITH only_x AS (SELECT * FROM {TABLE} WHERE sym = 'x')
        SELECT a.sym, a.n, b.cls FROM only_x MATCH_RECOGNIZE ({ONE_ROW}) AS a
        JOIN {TABLE} MATCH_RECOGNIZE ({ALL_ROWS}) AS b ON a.sym = b.sym AND a.start_t = b.t""",
    ),
    "dataframe_one_row": ("dataframe", ONE_ROW),
    "dataframe_all_rows": ("dataframe", ALL_ROWS),
    "udtf_one_row": ("udtf", ONE_ROW),
    "udtf_all_rows": ("udtf", ALL_ROWS),
    "magic_nested": ("magic", NESTED),
    "sql_window": (
        "sql",
        f"""SELECT sym, t, bottom OVER w, count(*) OVER w AS n FROM {TABLE} WHERE t > 1
        WINDOW w AS (PARTITION BY sym ORDER BY t MEASURES LAST(DOWN.t) AS bottom
          ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING
          PATTERN (STRT DOWN+ UP) DEFINE DOWN AS price < PREV(price), UP AS price > PREV(price))""",
    ),
    # spark.sql's arguments: the input a DataFrame by reference, a parameter in DEFINE's
    # glue, in MEASURES and around the clause (see ARGS)
    "sql_args": (
        "sql_args",
        """SELECT * FROM {df} MATCH_RECOGNIZE (PARTITION BY sym ORDER BY t
          MEASURES FIRST(t) AS start_t, count(*) + :bonus AS n, :steps AS steps,
            element_at(:steps, LAST(DOWN.t) - FIRST(t)) AS step
          PATTERN (STRT DOWN+ UP+)
          DEFINE DOWN AS price < PREV(price),
                 UP AS price > PREV(price) AND price > FIRST(STRT.price) - :slack - :margin
        ) AS m WHERE n > :least""",
    ),
    "sql_dynamic": (
        "sql",
        "SELECT rule_id, rule_version, status, match_number, to_json(keys) AS k, "
        f"to_json(measures) AS m, error FROM {TABLE} MATCH_RECOGNIZE_DYNAMIC "
        "(RULES FROM cx_rules) AS r",
    ),
}

#: name -> (door, text) of queries with a mistake: the same error class, message and
#: caret on both kinds of session
ERRORS: dict[str, tuple[str, str]] = {
    # found by matchrec's own planner
    "unknown_label": (
        "sql",
        f"SELECT *\nFROM {TABLE} MATCH_RECOGNIZE (\n  ORDER BY t\n  PATTERN (A B)\n"
        "  DEFINE C AS true\n) m",
    ),
    # found by Spark's analysis of a measure (lazy on Connect)
    "unknown_function": (
        "sql",
        f"SELECT * FROM {TABLE} MATCH_RECOGNIZE (\n  PARTITION BY sym ORDER BY t\n"
        "  MEASURES no_such_fn(price) AS bad\n  PATTERN (A B+)\n"
        "  DEFINE B AS price < PREV(price)\n) m",
    ),
    # found by Spark's analysis of the query around the clause (lazy on Connect)
    "unknown_column_around": (
        "sql",
        f"SELECT sym, nope\nFROM {TABLE} MATCH_RECOGNIZE (\n  PARTITION BY sym ORDER BY t\n"
        "  MEASURES count(*) AS n\n  PATTERN (A B+)\n  DEFINE B AS price < PREV(price)\n) m",
    ),
    # a parameter without a value, after a formatted {df}
    "unbound_parameter": (
        "sql_args",
        "SELECT *\nFROM {df} MATCH_RECOGNIZE (\n  ORDER BY t\n  MEASURES :nothing AS x\n"
        "  PATTERN (A B)\n  DEFINE B AS price > :slack\n) m",
    ),
    # raised by Spark while the job runs (ANSI), at the measure as written
    "divide_by_zero_in_measure": (
        "sql",
        f"SELECT * FROM {TABLE} MATCH_RECOGNIZE (\n  PARTITION BY sym ORDER BY t\n"
        "  MEASURES 1 / (count(*) - count(B.t) - 1) AS bad\n  PATTERN (A B+)\n"
        "  DEFINE B AS price < PREV(price)\n) m",
    ),
    # raised by Spark (ANSI) in a part it computes over the table function's input
    "udtf_divide_by_zero_in_define": (
        "udtf",
        "PARTITION BY sym ORDER BY t MEASURES count(*) AS n PATTERN (A B+) "
        "DEFINE B AS price / (t - t) > 1",
    ),
    # raised by Spark while the job runs with no query context: the failed query's plan
    # (which Connect's server explains) says it is matchrec's
    "make_date_without_context": (
        "sql",
        f"SELECT * FROM {TABLE} MATCH_RECOGNIZE (\n  PARTITION BY sym ORDER BY t\n"
        "  MEASURES make_date(2026, count(*) + 12, 1) AS bad\n  PATTERN (A B+)\n"
        "  DEFINE B AS price < PREV(price)\n) m",
    ),
    # a TINYINT product out of range: Spark's BINARY_ARITHMETIC_OVERFLOW has no context
    "tinyint_overflow_without_context": (
        "sql",
        f"SELECT * FROM {TABLE} MATCH_RECOGNIZE (\n  PARTITION BY sym ORDER BY t\n"
        "  MEASURES CAST(LAST(t) AS TINYINT) * CAST(100 AS TINYINT) AS bad\n"
        "  PATTERN (A B+)\n  DEFINE B AS price < PREV(price)\n) m",
    ),
    # a function the session lacks, left to Spark by the table function
    "udtf_unknown_function": (
        "udtf",
        "PARTITION BY sym ORDER BY t MEASURES count(*) AS n PATTERN (A B+) "
        "DEFINE B AS no_such_fn(price) > 1",
    ),
    # found in the table function's analyze, in a Python worker of the server
    "udtf_unknown_label": (
        "udtf_sql",
        f"SELECT *\nFROM match_recognize(TABLE({TABLE}), '\n  PARTITION BY sym ORDER BY t\n"
        "  MEASURES LAST(Z.t) AS z\n  PATTERN (A B+)\n  DEFINE B AS price < PREV(price)')",
    ),
}


#: the ``args`` of the ``sql_args`` door (its DataFrame keyword argument ``df`` is the
#: table; ``run_case`` adds a Column ``steps``)
ARGS = {"bonus": 100, "slack": -0.5, "least": 100}


def value(v: Any) -> Any:
    """A result value as JSON can carry it, the same whichever session produced it."""
    if isinstance(v, (dt.date, dt.datetime, decimal.Decimal)):
        return str(v)
    if isinstance(v, float):
        return round(v, 9)
    return v


def written(df: Any) -> dict[str, Any]:
    """A result DataFrame as columns and rows (sorted: no query here has an ORDER BY)."""
    rows = sorted(([value(v) for v in r] for r in df.collect()), key=repr)
    return {"columns": list(df.columns), "rows": rows}


def setup(spark: Any) -> None:
    """The table of the cases, and the table function, on ``spark``."""
    import matchrec

    spark.createDataFrame(ROWS, SCHEMA).createOrReplaceTempView(TABLE)
    spark.createDataFrame(
        [("v", 1, ONE_ROW), ("all", 1, ALL_ROWS), ("bad", 1, "PATTERN (A")],
        "rule_id STRING, version INT, spec STRING",
    ).createOrReplaceTempView("cx_rules")
    matchrec.register(spark)


def run_case(spark: Any, door: str, text: str) -> Any:
    """The result DataFrame of one case through ``door`` on ``spark``."""
    import matchrec

    if door == "sql":
        return matchrec.sql(spark, text)
    if door == "dataframe":
        return matchrec.match_recognize(spark.table(TABLE), text)
    if door == "udtf":
        body = text.replace("'", "''")
        return spark.sql(f"SELECT * FROM match_recognize(TABLE({TABLE}), '{body}')")
    if door == "udtf_sql":
        return matchrec.sql(spark, text)
    if door == "sql_args":
        from pyspark.sql import functions as F

        # Column values too: Spark writes them as SQL on classic, evaluates them on
        # Connect (a DECIMAL there is CAST(0.25BD AS decimal(2,2)), which DEFINE took
        # into endless recursion)
        args = {
            **ARGS,
            "steps": F.array(F.lit(1), F.lit(None), F.lit(3)).cast("array<tinyint>"),
            "margin": F.expr("0.25"),
        }
        return matchrec.sql(spark, text, args=args, df=spark.table(TABLE))
    if door == "magic":
        from IPython.testing.globalipapp import get_ipython  # test_magic's shell too
        from IPython.utils.capture import capture_output

        shell = get_ipython()
        shell.user_ns["spark"] = spark
        shell.run_line_magic("load_ext", "matchrec")
        with capture_output():
            shell.run_cell_magic("matchrec", "-o magic_out --limit 100", text)
        return shell.user_ns["magic_out"]
    raise ValueError(f"unknown door {door!r}")


def error_of(spark: Any, door: str, text: str) -> dict[str, Any]:
    """The error one case raises through ``door``: its class and message."""
    try:
        run_case(spark, door, text).collect()
    except Exception as exc:  # the case is about what is raised
        return {"class": type(exc).__name__, "message": str(exc)}
    return {"class": None, "message": "no error"}


def run_all(spark: Any) -> dict[str, Any]:
    """Every case and error case on ``spark``, written down."""
    setup(spark)
    results = {name: written(run_case(spark, door, text)) for name, (door, text) in CASES.items()}
    errors = {name: error_of(spark, door, text) for name, (door, text) in ERRORS.items()}
    return {"results": results, "errors": errors}


#: the query of the ``matchrec run`` cases, over table ``cli_t`` (its rows in sym order)
CLI_QUERY = f"SELECT * FROM cli_t MATCH_RECOGNIZE ({ONE_ROW}) AS m ORDER BY sym"


def cli_query_file(folder: Path) -> Path:
    """A query file for ``matchrec run`` over the table file of :func:`write_table_file`."""
    path = folder / "query.sql"
    path.write_text(CLI_QUERY + ";\n")
    return path


def write_table_file(folder: Path) -> Path:
    """The case table as a CSV file (header, no inference needed with --schema)."""
    path = folder / "prices.csv"
    path.write_text("sym,t,price\n" + "".join(f"{s},{t},{p}\n" for s, t, p in ROWS))
    return path


#: the streaming case: card payments in files, each file one micro-batch (rows out of
#: order within a file), the last file a late row then a far row that moves the watermark
STREAM_SCHEMA = "card STRING, ts TIMESTAMP, amount DOUBLE"
STREAM_QUERY = """SELECT * FROM cx_stream MATCH_RECOGNIZE (
  PARTITION BY card ORDER BY ts
  MEASURES FIRST(S.ts) AS first_ts, LAST(B.amount) AS big, count(S.*) AS smalls
  ONE ROW PER MATCH WITH TIMEOUTS
  PATTERN (S{2,} B) WITHIN INTERVAL '10' MINUTE
  DEFINE S AS amount < 2, B AS amount > 500) AS m"""
STREAM_FILES = [
    [("a", "00:02", 1.0), ("a", "00:00", 1.5), ("b", "00:01", 1.0), ("a", "00:01", 0.5)],
    [("a", "00:04", 900.0), ("b", "00:02", 1.0), ("a", "00:03", 1.0)],
    [("b", "00:31", 1.0), ("b", "00:32", 700.0), ("b", "00:30", 1.0)],
    [("c", "03:00", 1.0)],
    [("a", "00:05", 1.0)],  # late: the watermark (1 minute) passed 02:59
    [("c", "06:00", 1.0)],
]


def run_stream(spark: Any, folder: Path) -> dict[str, Any]:
    """:data:`STREAM_QUERY` as a Structured Streaming query over files written one
    micro-batch at a time into ``folder``: its output and its late-row count."""
    import json as json_

    from matchrec.runtime.streaming import late_rows

    import matchrec

    inbox = folder / "in"
    inbox.mkdir()
    source = (
        spark.readStream.schema(STREAM_SCHEMA)
        .option("maxFilesPerTrigger", 1)
        .json(str(inbox))
        .withWatermark("ts", "1 minute")
    )
    source.createOrReplaceTempView("cx_stream")
    result = matchrec.sql(spark, STREAM_QUERY)
    query = None
    try:
        for k, rows in enumerate(STREAM_FILES):
            hidden = inbox / f".f{k}.json"
            hidden.write_text(
                "\n".join(
                    json_.dumps({"card": c, "ts": f"2024-01-01T{t}:00", "amount": a})
                    for c, t, a in rows
                )
            )
            hidden.rename(inbox / f"f{k}.json")
            if query is None:
                query = (
                    result.writeStream.format("parquet")
                    .option("checkpointLocation", str(folder / "chk"))
                    .start(str(folder / "out"))
                )
            query.processAllAvailable()
        late = late_rows(query)
    finally:
        if query is not None:
            query.stop()
    return {**written(spark.read.parquet(str(folder / "out"))), "late": late}


#: a Python UDF in DEFINE: of one row (Spark calls it), then of two rows (matchrec's glue
#: calls its function, which only a classic session can hand it)
PYTHON_UDF_ROW = """PARTITION BY sym ORDER BY t
  MEASURES count(*) AS n, cx_neg(LAST(B.price)) AS neg_bottom
  PATTERN (A B+)
  DEFINE B AS cx_neg(price) > cx_neg(PREV(price))"""
PYTHON_UDF_ROWS = """PARTITION BY sym ORDER BY t
  MEASURES count(*) AS n
  PATTERN (A B+)
  DEFINE B AS cx_neg(B.price - A.price) > 0"""


def python_udf_calls(spark: Any) -> dict[str, Any]:
    """A registered Python UDF in DEFINE: the rows of a call of one row, and what a call of
    values of two rows gives (rows on a classic session, an error on Connect)."""
    import matchrec

    spark.udf.register("cx_neg", lambda x: None if x is None else -x, "double")
    one_row = written(
        matchrec.sql(spark, f"SELECT * FROM {TABLE} MATCH_RECOGNIZE ({PYTHON_UDF_ROW})")
    )
    query = f"SELECT * FROM {TABLE} MATCH_RECOGNIZE (\n  {PYTHON_UDF_ROWS}\n)"
    try:
        two_rows: dict[str, Any] = written(matchrec.sql(spark, query))
    except matchrec.MatchRecognizeError as err:
        two_rows = {
            "class": type(err).__name__,
            "message": err.message,
            "hint": err.hint,
            "at": err.sql[err.pos :][:20],
        }
    return {"one_row": one_row, "two_rows": two_rows}
