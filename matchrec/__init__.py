"""matchrec: SQL:2016 row pattern recognition (MATCH_RECOGNIZE) for Apache Spark.

The core (grammar, planner, NFA matcher) never imports Spark; the Spark entry points
below load the runtime only when called.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from matchrec import excepthook as _excepthook
from matchrec.errors import (
    MatchRecognizeError,
    MatchRuntimeError,
    SemanticError,
    SqlSyntaxError,
    UnsupportedError,
)

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

# In a source checkout the subpackages matchrec.grammar, .planner and .runtime live in
# folders beside this one (installed, they are inside it). When Python finds this folder
# first (the checkout's root on sys.path, as for `python -m ...` or a Spark worker started
# there), let the package also look beside it, so both layouts import the same way.
_checkout = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if not os.path.isdir(os.path.join(os.path.dirname(__file__), "runtime")) and os.path.isfile(
    os.path.join(_checkout, "grammar", "match_recognize.lark")
):
    __path__.append(_checkout)  # noqa: F821 - the package's own search path

__version__ = "0.1.0"

_excepthook.install()

__all__ = [
    "MatchRecognizeError",
    "MatchRuntimeError",
    "SemanticError",
    "SqlSyntaxError",
    "UnsupportedError",
    "explain",
    "load_ipython_extension",
    "match_recognize",
    "match_recognize_dynamic",
    "register",
    "sql",
]


def sql(
    spark: SparkSession, query: str, args: dict[str, Any] | list[Any] | None = None, **kwargs: Any
) -> DataFrame:
    """Run a Spark SQL query whose FROM clauses may hold ``MATCH_RECOGNIZE``; ``args``
    (parameter markers ``:name``/``?``) and ``kwargs`` (``{name}`` values, DataFrames
    among them) as ``spark.sql`` takes them."""
    from matchrec.runtime.api import sql as _sql

    return _sql(spark, query, args, **kwargs)


def match_recognize(df: DataFrame, clause: str) -> DataFrame:
    """Apply the body of a MATCH_RECOGNIZE clause (the text inside its parentheses) to ``df``."""
    from matchrec.runtime.api import match_recognize as _mr

    return _mr(df, clause)


def match_recognize_dynamic(
    df: DataFrame,
    rules: DataFrame,
    *,
    keys: list[list[str]] | None = None,
    on_error: str = "skip",
) -> DataFrame:
    """Apply every rule of ``rules`` (``rule_id, version, spec[, active_from][, enabled]``,
    each ``spec`` a MATCH_RECOGNIZE body) to ``df``, batch or stream; ``keys`` are the
    PARTITION BY column sets rules may use (required when ``rules`` is a stream)."""
    from matchrec.runtime.dynamic import match_recognize_dynamic as _dynamic

    return _dynamic(df, rules, keys=keys, on_error=on_error)


def register(spark: SparkSession, name: str = "match_recognize") -> Any:
    """Register the SQL table function ``match_recognize(TABLE(t), '<clause body>')``."""
    from matchrec.runtime.udtf import register as _register

    return _register(spark, name)


def explain(
    spark: SparkSession,
    query: str,
    args: dict[str, Any] | list[Any] | None = None,
    **kwargs: Any,
) -> Any:
    """Explain a query's MATCH_RECOGNIZE clauses: parsed clause, Spark plan, DEFINE
    conditions (vectorized or per match) and the pattern's automaton (Graphviz DOT).
    ``args``/``kwargs``: parameters and DataFrames, as :func:`sql` takes them."""
    from matchrec.runtime.explain import explain as _explain

    return _explain(spark, query, args, **kwargs)


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext matchrec``: register the ``%%matchrec`` cell and ``%matchrec`` line magics."""
    from matchrec.runtime.magic import load_ipython_extension as _load

    _load(ipython)
