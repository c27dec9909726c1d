"""Spark's SQL settings that change what a function computes, as this worker's glue reads
them.

A session may set, for instance, ``spark.sql.mapKeyDedupPolicy=LAST_WIN``; Spark then
builds a map with a repeated key where its default raises. The functions matchrec
computes itself (DEFINE over several rows, the table function's MEASURES, aggregates over
a match) must answer as Spark does under the session's value. Each door reads the
settings when the query is built and sets them in every worker before matching, as it
does the session time zone (:mod:`matchrec.zones`): a worker may serve several sessions.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar

SIZE_OF_NULL = "spark.sql.legacy.sizeOfNull"
NEGATIVE_INDEX_IN_ARRAY_INSERT = "spark.sql.legacy.negativeIndexInArrayInsert"
MAP_KEY_DEDUP_POLICY = "spark.sql.mapKeyDedupPolicy"
STATISTICAL_AGGREGATE = "spark.sql.legacy.statisticalAggregate"

#: each setting the glue follows, and Spark's default value of it
DEFAULTS: dict[str, str] = {
    SIZE_OF_NULL: "true",
    NEGATIVE_INDEX_IN_ARRAY_INSERT: "false",
    MAP_KEY_DEDUP_POLICY: "EXCEPTION",
    STATISTICAL_AGGREGATE: "false",
}

_SETTINGS: ContextVar[Mapping[str, str]] = ContextVar(
    "matchrec_function_settings", default=DEFAULTS
)


def use_settings(values: Mapping[str, str] | None) -> None:
    """Make ``values`` (setting -> the session's value; a missing one is Spark's default)
    the settings this worker's glue reads."""
    chosen = {key: str(value).strip() for key, value in (values or {}).items() if key in DEFAULTS}
    _SETTINGS.set({**DEFAULTS, **chosen})


def setting(key: str) -> str:
    """The value of setting ``key`` (one of :data:`DEFAULTS`) this worker's glue reads."""
    return _SETTINGS.get().get(key, DEFAULTS[key])


def setting_on(key: str) -> bool:
    """Whether the boolean setting ``key`` is true for this worker's glue."""
    return setting(key).lower() == "true"


def last_key_wins() -> bool:
    """Whether a repeated map key keeps its first place with the last value
    (``spark.sql.mapKeyDedupPolicy=LAST_WIN``) rather than being Spark's error."""
    return setting(MAP_KEY_DEDUP_POLICY).upper() == "LAST_WIN"


def statistics_nan() -> float | None:
    """What a statistical aggregate gives where its formula divides by zero: NULL, or NaN
    under ``spark.sql.legacy.statisticalAggregate``."""
    return float("nan") if setting_on(STATISTICAL_AGGREGATE) else None
