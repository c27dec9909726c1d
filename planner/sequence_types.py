"""Which argument types of ``sequence(start, stop[, step])`` Spark refuses when it
analyses the query (its DATATYPE_MISMATCH.SEQUENCE_WRONG_INPUT_TYPES), ANSI mode or not:
start and stop are integers, dates or timestamps; integers step by an integer, dates and
timestamps by an interval. One rule for every door, read from Spark's simple type names
(``int``, ``decimal(4,2)``, ``interval day``): the batch doors have them from Spark, the
table function from its own typing. Strings are left out: Spark's ANSI mode casts them
(``sequence(1, 5, '2')`` is an ARRAY<BIGINT>), its legacy mode refuses them."""

from __future__ import annotations

_INTEGRAL = ("tinyint", "smallint", "int", "bigint")
_DATETIMES = ("date", "timestamp", "timestamp_ntz")


def _kind(name: str) -> str:
    """``integral``, ``datetime``, ``interval``, ``open`` (NULL's type, a string: either
    mode's cast decides) or ``other``."""
    base = name.split("(")[0].split(" collate ")[0].strip().lower()
    if base in _INTEGRAL:
        return "integral"
    if base in _DATETIMES:
        return "datetime"
    if base.startswith("interval"):
        return "interval"
    if base in ("void", "string", "char", "varchar"):
        return "open"
    return "other"


#: bounds' kind -> (the step kinds Spark takes, what the message says it takes, a hint)
_STEPS: dict[str, tuple[tuple[str, ...], str, str]] = {
    "integral": (
        ("integral", "open"),
        "integers takes an integral step",
        "CAST the step to an integer type: CAST(... AS INT)",
    ),
    "datetime": (
        ("interval",),
        "dates or timestamps takes an interval step",
        "write the step as an interval: INTERVAL 1 DAY",
    ),
}


def sequence_refusal(bounds: tuple[str, str], step: str | None) -> tuple[int, str, str] | None:
    """Why Spark refuses a ``sequence`` of argument types ``bounds`` and ``step`` (None:
    no step), or None: (the index of the argument at fault, what is wrong, a hint)."""
    kinds = [_kind(b) for b in bounds]
    for at, (kind, name) in enumerate(zip(kinds, bounds)):
        if kind in ("interval", "other"):
            return (
                at,
                f"sequence() counts integers, dates or timestamps, not {name.upper()} values",
                "CAST start and stop to BIGINT, DATE or TIMESTAMP",
            )
    known = {k for k in kinds if k != "open"}
    if len(known) > 1:
        return (
            1,
            f"sequence() takes start and stop of one kind, not {bounds[0].upper()} and "
            f"{bounds[1].upper()}",
            "CAST one of them to the other's type",
        )
    if step is None or not known:
        return None
    (bound_kind,) = known
    takes, says, hint = _STEPS[bound_kind]
    step_kind = _kind(step)
    if step_kind in takes:
        return None
    return 2, f"sequence() of {says}, not one of type {step.upper()}", hint
