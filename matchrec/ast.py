"""The syntax tree of a MATCH_RECOGNIZE clause.

The grammar (``matchrec.grammar``) builds these nodes from SQL text; the planner
(``matchrec.planner``) checks and lowers them; the NFA compiler (``matchrec.nfa``)
turns the pattern nodes into a program. The nodes are plain data with no behaviour, so
every stage (and the later MATCH_RECOGNIZE_DYNAMIC rules table) can share them.

Positions (``pos``) are 0-based character offsets into the SQL text the parser was
given; errors turn them into line, column and caret.

Label names are canonical: an unquoted label is upper-cased (labels are
case-insensitive), a double-quoted one is kept exactly as written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

# --------------------------------------------------------------------------- pattern


@dataclass(frozen=True)
class Label:
    """A primary pattern variable such as ``A`` or ``"b"``."""

    name: str
    pos: int = -1


@dataclass(frozen=True)
class Empty:
    """The empty pattern ``()``: matches without consuming a row."""

    pos: int = -1


@dataclass(frozen=True)
class Anchor:
    """``^`` (start of partition) or ``$`` (end of partition)."""

    kind: Literal["start", "end"]
    pos: int = -1


@dataclass(frozen=True)
class Concat:
    """Items that must match one after the other."""

    items: tuple[PatternNode, ...]
    pos: int = -1


@dataclass(frozen=True)
class Alternation:
    """``a | b | c``: the leftmost branch that leads to a match is preferred."""

    items: tuple[PatternNode, ...]
    pos: int = -1


@dataclass(frozen=True)
class Permute:
    """``PERMUTE(a, b, c)``: every order, preferred in lexicographic order of the items."""

    items: tuple[PatternNode, ...]
    pos: int = -1


@dataclass(frozen=True)
class Exclusion:
    """``{- p -}``: rows matched by ``p`` are part of the match but not output by ALL ROWS."""

    inner: PatternNode
    pos: int = -1


@dataclass(frozen=True)
class Quantified:
    """``p*``, ``p+``, ``p?``, ``p{n}``, ``p{n,}``, ``p{,m}``, ``p{n,m}``; ``greedy`` is False
    when the quantifier is followed by ``?`` (reluctant). ``max`` None means unbounded."""

    inner: PatternNode
    min: int
    max: int | None
    greedy: bool = True
    pos: int = -1


PatternNode = Label | Empty | Anchor | Concat | Alternation | Permute | Exclusion | Quantified

# --------------------------------------------------------------------------- clause


@dataclass(frozen=True)
class SqlExpr:
    """A Spark SQL expression kept as text; the planner parses it with sqlglot.

    ``text`` is exactly the source span (so ``pos + i`` locates ``text[i]`` in the SQL).
    """

    text: str
    pos: int


@dataclass(frozen=True)
class SortKey:
    expr: SqlExpr
    descending: bool = False
    nulls_first: bool | None = None  # None: Spark's default (first for ASC, last for DESC)


@dataclass(frozen=True)
class Measure:
    expr: SqlExpr
    alias: str  # as written (Spark column names are case-insensitive; case is kept for output)
    alias_pos: int = -1


@dataclass(frozen=True)
class Define:
    label: str
    expr: SqlExpr
    label_pos: int = -1


@dataclass(frozen=True)
class Subset:
    name: str
    labels: tuple[str, ...]
    pos: int = -1
    label_pos: tuple[int, ...] = ()


@dataclass(frozen=True)
class RowsPerMatch:
    mode: Literal["one", "all"] = "one"
    # only for ALL ROWS PER MATCH
    empty: Literal["show", "omit", "unmatched"] = "show"
    # only for ONE ROW PER MATCH (extension): WITH TIMEOUTS adds timed-out partial matches
    timeouts: bool = False
    timeouts_pos: int = -1  # where TIMEOUTS of WITH TIMEOUTS is written
    # extension, for streams: WITH LATE ROWS adds a row for each late input row
    late_rows: bool = False
    late_pos: int = -1  # where WITH LATE ROWS is written


@dataclass(frozen=True)
class SkipTo:
    """AFTER MATCH SKIP: ``past_last`` (default), ``next_row``, ``first`` / ``last`` label.
    ``SKIP TO X`` is ``last``."""

    mode: Literal["past_last", "next_row", "first", "last"] = "past_last"
    label: str | None = None
    pos: int = -1


@dataclass(frozen=True)
class Within:
    """Extension: ``WITHIN INTERVAL '10' SECOND`` after PATTERN (Flink SQL's syntax)."""

    amount: str
    unit: str  # upper-case: SECOND, MINUTE, HOUR, DAY, MILLISECOND, ...
    pos: int = -1


@dataclass(frozen=True)
class WindowFrame:
    """``ROWS BETWEEN CURRENT ROW AND <end>`` of row pattern recognition in a window:
    ``end`` is ``current`` (CURRENT ROW), ``unbounded`` (UNBOUNDED FOLLOWING) or
    ``following`` (``offset`` FOLLOWING, an expression of the row)."""

    end: Literal["current", "unbounded", "following"]
    offset: SqlExpr | None = None
    pos: int = -1  # where ROWS is written


@dataclass(frozen=True)
class MatchRecognizeClause:
    """Everything between ``MATCH_RECOGNIZE (`` and its closing ``)``."""

    pattern: PatternNode
    partition_by: tuple[SqlExpr, ...] = ()
    order_by: tuple[SortKey, ...] = ()
    measures: tuple[Measure, ...] = ()
    rows_per_match: RowsPerMatch = field(default_factory=RowsPerMatch)
    after_match_skip: SkipTo = field(default_factory=SkipTo)
    initial: bool = True  # INITIAL (default) or SEEK
    initial_pos: int = -1  # where INITIAL or SEEK is written (-1: not written)
    within: Within | None = None
    # row pattern recognition in a window: its frame (None in MATCH_RECOGNIZE)
    frame: WindowFrame | None = None
    subsets: tuple[Subset, ...] = ()
    defines: tuple[Define, ...] = ()
    pattern_pos: int = -1
    sql: str = ""  # the text the positions refer to
    # the clause is a window's specification (``WINDOW w AS (...)``, ``OVER (...)``);
    # the aliases of the measures that stand for a window function called over it
    # (``count(*) OVER w``: over the match's rows, over no row where there is none)
    in_window: bool = False
    frame_functions: frozenset[str] = frozenset()


@dataclass(frozen=True)
class DynamicClause:
    """Everything between ``MATCH_RECOGNIZE_DYNAMIC (`` and its closing ``)``."""

    rules: SqlExpr  # the table or view the rules are read from
    # the PARTITION BY column sets rules may use (KEYS ...); None: taken from the rules
    key_sets: tuple[tuple[SqlExpr, ...], ...] | None = None
    on_error: Literal["skip", "fail"] = "skip"
    sql: str = ""
