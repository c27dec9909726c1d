"""Ask the session whether Spark takes a pattern: a datetime pattern or a regular
expression (``planner.pattern_literals``).

Spark refuses a pattern when it builds its formatter or compiles it, which for a
column's values is on the first row of a job. Computing the same function of a constant
makes Spark do it while it optimises the query (constant folding), so a pattern it
refuses raises then, with its own reason and under the session's own settings, and no
job runs. A regular expression is compiled by ``split``, whose error is Java's own
reason (``Unclosed group near index 1``, an IllegalArgumentException). Answers are kept
(the latest 4096), by the session's ``spark.sql.legacy.timeParserPolicy`` (the one
setting that changes them): a notebook or a query suite asks once per pattern.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from matchrec.planner.pattern_literals import REGEX, PatternCheck
from pyspark.errors import IllegalArgumentException, PySparkException

from .recent import Recent
from .session import quiet_analysis

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

#: Spark's error conditions of a pattern it refuses (as opposed to a value it cannot read)
_REFUSED = ("INVALID_DATETIME_PATTERN", "INCONSISTENT_BEHAVIOR_CROSS_VERSION.DATETIME_")
#: Spark's condition of a regular expression Java cannot compile (``split`` raises Java's
#: own IllegalArgumentException, without one)
_BAD_REGEX = "INVALID_PARAMETER_VALUE.PATTERN"
#: the constant a function formats (the others parse text: an empty string)
_CONSTANTS = {
    "date_format": "TIMESTAMP'2000-01-01 00:00:00'",
    "to_char": "TIMESTAMP'2000-01-01 00:00:00'",
    "from_unixtime": "0",
}


#: (parser policy, function, pattern) -> Spark's answer ("" when it takes the pattern),
#: the most recently asked kept
_ANSWERS: Recent[tuple[str, str, str], str] = Recent(4096)
_POLICY = "spark.sql.legacy.timeParserPolicy"


def session_pattern_check(spark: SparkSession) -> PatternCheck:
    """Spark's reason for refusing a pattern in a call of a function, or None when it
    takes it."""
    policy: list[str] = []

    def check(function: str, pattern: str) -> str | None:
        if not policy:  # read once per query, when it has a pattern
            policy.append(str(spark.conf.get(_POLICY, "CORRECTED")).upper())
        key = (policy[0], function, pattern)
        answer = _ANSWERS.get(key)
        if answer is None:
            answer = _refusal(spark, function, pattern) or ""
            _ANSWERS.put(key, answer)
        return answer or None

    return check


def _refusal(spark: SparkSession, function: str, pattern: str) -> str | None:
    if function == REGEX:
        call = "SELECT split('', :pattern)"
    else:
        constant = _CONSTANTS.get(function, "''")  # text, for a function that parses
        call = f"SELECT {function}({constant}, :pattern)"
    try:
        with quiet_analysis():
            spark.sql(call, args={"pattern": pattern}).collect()
    except PySparkException as exc:
        condition = exc.getCondition() or ""
        if function == REGEX and (
            isinstance(exc, IllegalArgumentException) or condition.startswith(_BAD_REGEX)
        ):
            return _reason(exc).split(" " + pattern)[0]  # Java's: the pattern, a caret line
        if function != REGEX and condition.startswith(_REFUSED):
            return _reason(exc)
    return None


def _reason(exc: PySparkException) -> str:
    """Spark's message on one line, without its SQLSTATE."""
    text = " ".join(line.strip() for line in str(exc).splitlines() if line.strip())
    return text.split(" SQLSTATE:")[0] or type(exc).__name__
