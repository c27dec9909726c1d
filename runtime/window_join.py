"""A join as the input of windows with a row pattern.

A window with a row pattern runs over one DataFrame whose columns it names unqualified,
yet a SELECT may join relations that share a column name (``a.k`` and ``b.k``) and
qualify columns with the join's names (``ORDER BY a.id``, ``SELECT b.k``), as Spark and
Trino allow. :func:`joined_input` builds that DataFrame: the join's columns of a unique
name, and per relation of the join (per name ``q`` that ``q.*`` expands) a hidden struct
column of its columns. The window never sees a twice-named column (naming it is
ambiguous); its PARTITION BY and ORDER BY read a relation's columns as fields of the
struct (:meth:`JoinedInput.scope`), and the query around the windows reads the structs
under the relations' names (:meth:`JoinedInput.outer_from`), so ``a.k`` is a field.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from matchrec.planner.sqltext import quote
from matchrec.planner.window_query import relation_name_candidates
from pyspark.errors import AnalysisException
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from matchrec.errors import SemanticError

from .session import quiet_analysis

__all__ = ["JoinedInput", "joined_input"]


@dataclass(frozen=True)
class JoinedInput:
    """The DataFrame a window reads from a join, and how to read the join's names."""

    relation: DataFrame
    #: the join's columns in Spark's order, as ``SELECT *`` gives them (names may repeat)
    columns: tuple[str, ...]
    #: per relation name of the join: its hidden struct column and its columns
    relations: tuple[tuple[str, str, tuple[str, ...]], ...]

    @property
    def twice(self) -> list[str]:
        """The column names two relations of the join share."""
        lowered = [c.lower() for c in self.columns]
        return sorted({c for c in self.columns if lowered.count(c.lower()) > 1})

    def scope(self, relation: DataFrame) -> DataFrame:
        """``relation`` with each relation's struct under the relation's name, for
        expressions such as ``a.id`` (drop the names with :meth:`names`)."""
        return relation.withColumns({q: F.col(quote(h)) for q, h, _ in self.relations})

    def names(self) -> list[str]:
        return [q for q, _, _ in self.relations]

    def outer_from(self, view: str) -> str:
        """The FROM of the query around the windows: their result, where each relation's
        name reads its struct."""
        items = [f"{quote(h)} AS {quote(q)}" for q, h, _ in self.relations]
        # a twice-named column, once per relation: naming it unqualified is ambiguous
        twice = {c.lower() for c in self.twice}
        items += [
            f"{quote(h)}.{quote(c)} AS {quote(c)}"
            for _, h, cols in self.relations
            for c in cols
            if c.lower() in twice
        ]
        return f" (SELECT *, {', '.join(items)} FROM {view}) AS __mrj_from"

    def explained(self, err: SemanticError) -> SemanticError:
        """A window's error about its input in the join's terms: a twice-named column is
        ambiguous (not unknown), and the hidden columns stay out of the hint."""
        unknown = re.fullmatch(r"Column '(.+)' cannot be resolved", err.message)
        twice = {c.lower(): c for c in self.twice}
        if unknown and unknown.group(1).lower() in twice:
            name = twice[unknown.group(1).lower()]
            owners = [f"{q}.{name}" for q, _, cols in self.relations if name in cols]
            return SemanticError(
                f"Column '{name}' is ambiguous: the join has {' and '.join(owners)}",
                sql=err.sql,
                pos=err.pos,
                hint="a window with a row pattern names its input's columns unqualified: "
                "rename one of them in a subquery of the join",
            )
        if err.hint and "__mr" in err.hint:
            err.hint = re.sub(r",? ?`?__mr\w+`?", "", err.hint)
        return err

    def star(self) -> str:
        """``*`` of the select list: every column of the join, twice-named ones from their
        relation's struct."""
        return ", ".join(f"{quote(q)}.{quote(c)}" for q, _, cols in self.relations for c in cols)


def joined_input(
    sql: Callable[[str], DataFrame], from_text: str, columns: list[str]
) -> JoinedInput | None:
    """The window input of the join ``from_text`` (FROM's text, WHERE included) whose
    ``SELECT *`` has ``columns``; ``sql`` runs a query's analysis. None when the join's
    relations cannot all be named (a twice-named column of a relation without a name)."""
    lowered = {c.lower() for c in columns}
    found: list[tuple[str, str, tuple[str, ...]]] = []
    seen: set[str] = set()
    for name in relation_name_candidates(from_text):
        key = name.lower()
        if key in seen or key in lowered:
            continue
        seen.add(key)
        try:
            with quiet_analysis():
                cols = tuple(sql(f"SELECT {quote(name)}.* FROM {from_text}").columns)
        except AnalysisException:
            continue
        found.append((name, f"__mrj{len(found)}", cols))
    twice = {c.lower() for c in columns if [x.lower() for x in columns].count(c.lower()) > 1}
    if twice and sum(len(cols) for _, _, cols in found) != len(columns):
        return None
    items = [quote(c) for c in columns if c.lower() not in twice]
    items += [f"struct({quote(q)}.*) AS {quote(h)}" for q, h, _ in found]
    relation = sql(f"SELECT {', '.join(items)} FROM {from_text}")
    return JoinedInput(relation, tuple(columns), tuple(found))
