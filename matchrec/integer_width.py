"""Spark's fixed-width integer results for arithmetic that DEFINE's glue computes in Python.

Spark adds, subtracts, multiplies and negates TINYINT, SMALLINT, INT and BIGINT values
in their own width: under ``spark.sql.ansi.enabled`` a result out of range fails with
ARITHMETIC_OVERFLOW, without it the result wraps around (two's complement). Python's
integers have no width, so each such operator of the glue carries an
:class:`IntegerWidth`: the planner records what Spark SQL has the operator's type, the
runtime asks Spark for that type before the query runs (analysis only) and sets
``bits``; the matcher then fits every result to it. Nothing here imports Spark.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from matchrec.errors import MatchRuntimeError

#: Spark's integral type names -> their width in bits
WIDTHS = {"tinyint": 8, "smallint": 16, "int": 32, "bigint": 64}


@dataclass(eq=False)
class IntegerWidth:
    """The width of one arithmetic operator's result (``bits`` None: not an integer
    type, or not known) and what Spark does when a result does not fit."""

    probe: str  # Spark SQL whose type is the operator's result type
    text: str  # the operator's expression as the user wrote it, for messages
    sql: str
    pos: int
    ansi: bool
    bits: int | None = None
    #: ``try_add``/``try_subtract``/``try_multiply``: NULL when the result does not fit
    null_on_overflow: bool = False

    def set_type(self, type_name: str) -> None:
        """Take Spark's type of the result (its ``simpleString``)."""
        self.bits = WIDTHS.get(type_name)

    def fits(self, value: int) -> bool:
        half = 1 << (self.bits - 1) if self.bits else 0
        return not self.bits or -half <= value < half

    def fit(self, value: Any) -> Any:
        """``value`` as Spark's result: unchanged if it fits (or is no integer), else
        wrapped around, or under ANSI mode an error positioned at the operator."""
        if self.bits is None or type(value) is not int or self.fits(value):
            return value
        half = 1 << (self.bits - 1)
        if self.null_on_overflow:
            return None
        if self.ansi:
            type_name = next(k for k, v in WIDTHS.items() if v == self.bits).upper()
            raise MatchRuntimeError(
                f"integer overflow: {self.text} is {value}, outside {type_name} "
                f"[{-half}, {half - 1}] (Spark raises ARITHMETIC_OVERFLOW under "
                "spark.sql.ansi.enabled)",
                sql=self.sql,
                pos=self.pos,
                hint="CAST an operand to a wider type, e.g. CAST(x AS BIGINT) or "
                "CAST(x AS DECIMAL(38, 0)); with spark.sql.ansi.enabled=false the "
                "result wraps around as in Spark",
            )
        return (value + half) % (2 * half) - half
