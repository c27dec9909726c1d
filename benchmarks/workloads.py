"""The benchmark workloads: a table of MATCH_RECOGNIZE queries and the data each runs on.

Every query is a template over ``{table}``, a temp view of one generated dataset. A
dataset is named by its role; :func:`dataset_spec` turns the role and the run's
``--rows``/``--symbols`` into the exact :class:`DatasetSpec`:

============  ==========================  ==============================================
role          rows, symbols               why
============  ==========================  ==============================================
main          N, K                        ticks of K symbols (N/K rows each)
long          N, LONG_SYMBOLS             few, long partitions (W4 at N)
long/10       N/10, LONG_SYMBOLS          the same at a tenth of the size (W4 scaling)
tiny          N, N/10                     many partitions of 10 rows (W6)
============  ==========================  ==============================================
"""

from __future__ import annotations

from dataclasses import dataclass

from .datagen import DatasetSpec
from .reference import VShapeReference

#: Symbols of the "long" datasets: N/10 rows per partition at N rows.
LONG_SYMBOLS = 10


def dataset_spec(role: str, rows: int, symbols: int, seed: int) -> DatasetSpec:
    """The dataset a workload of ``role`` runs on, for a run of ``rows`` and ``symbols``."""
    if role == "main":
        return DatasetSpec(rows, min(symbols, rows), seed)
    if role == "long":
        return DatasetSpec(rows, min(LONG_SYMBOLS, rows), seed)
    if role == "long/10":
        small = max(rows // 10, 1)
        return DatasetSpec(small, min(LONG_SYMBOLS, small), seed)
    if role == "tiny":
        return DatasetSpec(rows, max(rows // 10, 1), seed)
    raise ValueError(f"unknown dataset role {role!r}")


@dataclass(frozen=True)
class Workload:
    """One timed MATCH_RECOGNIZE query."""

    name: str
    #: ``SELECT ... FROM {table} MATCH_RECOGNIZE (...)``; ``{table}`` is the dataset's view
    sql: str
    #: dataset role, see :func:`dataset_spec`
    dataset: str = "main"
    #: PARTITION BY symbol (the floor it is compared with is keyed the same way)
    keyed: bool = True
    #: how to compute the expected result count independently, if we can
    reference: VShapeReference | None = None
    #: also compared with the naive applyInPandas baseline (same query as W1)
    vs_naive: bool = False
    #: only with ``--flink``: the query is also run by Flink SQL
    flink: bool = False
    #: how the query reaches matchrec: ``sql`` (matchrec.sql) or ``udtf`` (plain spark.sql
    #: calling the registered match_recognize table function)
    door: str = "sql"
    notes: str = ""

    def query(self, table: str) -> str:
        return self.sql.format(table=table)


_V_SHAPE = """
SELECT * FROM {{table}} MATCH_RECOGNIZE (
  {partition}ORDER BY {order}
  MEASURES STRT.ts AS s, LAST(DOWN.ts) AS b, LAST(UP.ts) AS e
  {rows_per_match}
  AFTER MATCH SKIP TO LAST UP
  PATTERN (STRT DOWN+ {up})
  DEFINE DOWN AS price < PREV(price), UP AS price > PREV(price)
) AS m
"""


def _v_shape(partitioned: bool = True, all_rows: bool = False, up_plus: bool = True) -> str:
    return _V_SHAPE.format(
        up="UP+" if up_plus else "UP",
        partition="PARTITION BY symbol\n  " if partitioned else "",
        order="ts" if partitioned else "symbol, ts",
        rows_per_match="ALL ROWS PER MATCH" if all_rows else "ONE ROW PER MATCH",
    )


W1_UDTF_SQL = (
    "SELECT * FROM match_recognize(TABLE({table}), '"
    "PARTITION BY symbol ORDER BY ts "
    "MEASURES STRT.ts AS s, LAST(DOWN.ts) AS b, LAST(UP.ts) AS e "
    "ONE ROW PER MATCH AFTER MATCH SKIP TO LAST UP PATTERN (STRT DOWN+ UP+) "
    "DEFINE DOWN AS price < PREV(price), UP AS price > PREV(price)')"
)

W2_SQL = """
SELECT * FROM {table} MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY ts
  MEASURES A.ts AS s, LAST(C.ts) AS e, count(*) AS n
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A B+ C)
  DEFINE B AS B.price >= A.price AND AVG(B.price) < A.price + 1,
         C AS C.price > A.price + 1
) AS m
"""

W3_SQL = """
SELECT * FROM {table} MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY ts
  MEASURES A.ts AS s, LAST(C.ts) AS e, count(*) AS n
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A B* C) WITHIN INTERVAL '10' SECOND
  DEFINE C AS C.price <= A.price - 1
) AS m
"""

W4_SQL = """
SELECT * FROM {table} MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY ts
  MEASURES FIRST(A.ts) AS s, LAST(B.ts) AS e
  ONE ROW PER MATCH
  PATTERN ((A+)+ B)
  DEFINE A AS price = price, B AS price < -1e9
) AS m
"""

WORKLOADS: tuple[Workload, ...] = (
    Workload(
        "W1",
        _v_shape(),
        reference=VShapeReference(),
        vs_naive=True,
        notes="V-shape, row-local DEFINE (PREV only), ONE ROW PER MATCH",
    ),
    Workload(
        "W1-ALL",
        _v_shape(all_rows=True),
        reference=VShapeReference(all_rows=True),
        vs_naive=True,
        notes="W1 with ALL ROWS PER MATCH (rows of matches sharing a last UP come twice)",
    ),
    Workload(
        "W1-UDTF",
        W1_UDTF_SQL,
        reference=VShapeReference(),
        vs_naive=True,
        door="udtf",
        notes="W1 through the SQL table function match_recognize(TABLE(t), '...') (an Arrow UDTF)",
    ),
    Workload(
        "W2",
        W2_SQL,
        notes="match-dependent DEFINE: other labels and a running AVG",
    ),
    Workload(
        "W3",
        W3_SQL,
        notes="time-bounded: WITHIN INTERVAL '10' SECOND",
    ),
    Workload(
        "W4",
        W4_SQL,
        dataset="long",
        notes=f"adversarial ((A+)+ B), no match, {LONG_SYMBOLS} symbols of N/{LONG_SYMBOLS} rows",
    ),
    Workload(
        "W4/10",
        W4_SQL,
        dataset="long/10",
        notes="W4 at a tenth of the rows (same symbols, partitions 10x shorter)",
    ),
    Workload(
        "W5",
        _v_shape(partitioned=False),
        keyed=False,
        reference=VShapeReference(partitioned=False),
        notes="W1 without PARTITION BY, ORDER BY symbol, ts: all rows in one partition, "
        "the same matches as W1 plus any spanning two symbols",
    ),
    Workload(
        "W6",
        _v_shape(),
        dataset="tiny",
        reference=VShapeReference(),
        notes="W1 over N/10 symbols of 10 rows each",
    ),
    Workload(
        "W1-FLINK",
        # Flink rejects W1: "Greedy quantifiers are not allowed as the last element of a
        # Pattern yet" (checked with apache-flink 2.3.0); PREV in DEFINE is accepted.
        _v_shape(up_plus=False),
        reference=VShapeReference(up_plus=False),
        flink=True,
        notes="W1 as Flink accepts it: PATTERN (STRT DOWN+ UP), a greedy last UP+ is "
        "rejected by Flink; same match count as W1",
    ),
)

#: Pairs (big, small) whose time ratio shows whether matching stays linear.
SCALING_PAIRS: tuple[tuple[str, str], ...] = (("W4", "W4/10"),)
#: Largest ratio of a scaling pair that still counts as linear (10x the rows).
LINEAR_RATIO_LIMIT = 11.0


def select(names: str | None, with_flink: bool) -> list[Workload]:
    """The workloads named in ``names`` (comma separated; all by default), in table order.

    ``W1-FLINK`` is included by default only with ``with_flink``; naming the big workload
    of a scaling pair brings its small one.
    """
    if not names:
        return [w for w in WORKLOADS if with_flink or not w.flink]
    wanted = [n.strip().upper() for n in names.split(",") if n.strip()]
    known = {w.name: w for w in WORKLOADS}
    unknown = [n for n in wanted if n not in known]
    if unknown:
        raise ValueError(f"unknown workloads {unknown}; known: {', '.join(known)}")
    for big, small in SCALING_PAIRS:  # a scaling pair is measured whole
        if big in wanted and small not in wanted:
            wanted.append(small)
    return [w for w in WORKLOADS if w.name in wanted]
