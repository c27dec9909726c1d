"""Spark SQL that matchrec reads and writes back (the row-local parts of DEFINE and
MEASURES go to Spark as sqlglot writes them) must mean what the user wrote. Every
example in Spark's own function documentation, read and written back by matchrec's
dialect, gives Spark's answer for the example as written (found this way: parse_json(s)
was written as s, date_trunc(unit_column, ts) as DATE_TRUNC('UNIT_COLUMN', ts),
to_char(n, '999') as TO_CHAR(n))."""

from __future__ import annotations

import re
from pathlib import Path

import sqlglot
from matchrec.planner.sqltext import MatchRecognizeDialect

#: examples whose answer changes from one call to the next, or that sqlglot does not
#: read (Spark's TIME type, ``>>>``, binary literals written ``X '10'``): not compared
_UNSTABLE = re.compile(
    r"\b(rand|randn|random|uuid|shuffle|reflect|try_reflect|java_method|aes_encrypt|"
    r"current_\w+|now|localtime|localtimestamp|curdate|session_user|user)\b|unix_timestamp\(\)|"
    r"TIME'|>>>|X '",
    re.IGNORECASE,
)
_EXAMPLE = re.compile(r"> SELECT (.*?);\s*$", re.MULTILINE)
_BATCH = 40
EXPRESSIONS = Path(__file__).parent / "queries" / "spark_expressions.txt"


def _examples(spark) -> list[str]:
    """The SELECT lists of the documented examples that read no table."""
    catalog = spark._jsparkSession.sessionState().catalog()
    identifier = spark._jvm.org.apache.spark.sql.catalyst.FunctionIdentifier
    found = []
    for row in spark.sql("SHOW SYSTEM FUNCTIONS").collect():
        try:
            info = catalog.lookupFunctionInfo(identifier.apply(row.function))
        except Exception:
            continue  # operators such as ! have no examples to read
        for select in _EXAMPLE.findall(info.getExamples() or ""):
            if " FROM " in select.upper() or " OVER" in select.upper() or _UNSTABLE.search(select):
                continue
            found.append(select)
    return found


def _answers(spark, selects: list[str]) -> list[str | None]:
    """Each SELECT list's first value as text (None where Spark rejects it): one query
    per batch, one per SELECT list where the batch fails."""
    try:
        row = spark.sql("SELECT " + ", ".join(f"({s}) AS c{i}" for i, s in enumerate(selects)))
        return [str(v) for v in row.collect()[0]]
    except Exception:
        if len(selects) == 1:
            return [None]
    return [a for s in selects for a in _answers(spark, [s])]


def _written_back(select: str) -> str | None:
    """``select`` read and written back by matchrec's dialect; None if it is refused
    when read (an error, never another meaning) or is not one plain expression."""
    try:
        tree = sqlglot.parse_one(f"SELECT {select}", read=MatchRecognizeDialect)
    except sqlglot.errors.ParseError:
        return None
    if len(tree.expressions) != 1 or isinstance(tree.expressions[0], sqlglot.exp.Alias):
        return None
    return tree.expressions[0].sql(dialect=MatchRecognizeDialect)


def _differences(spark, selects: list[str]) -> list[tuple]:
    """(as written, as written back, Spark's answers) where the answers differ."""
    pairs = [(s, b) for s in selects if (b := _written_back(s)) is not None]
    differ = []
    for start in range(0, len(pairs), _BATCH):
        batch = pairs[start : start + _BATCH]
        written = _answers(spark, [s for s, _ in batch])
        back = _answers(spark, [b for _, b in batch])
        differ += [
            (s, b, w, x) for (s, b), w, x in zip(batch, written, back) if w is not None and w != x
        ]
    return differ


def test_every_documented_example_means_the_same_written_back(spark):
    examples = _examples(spark)
    assert len(examples) > 700
    assert not (differ := _differences(spark, examples)), differ[:5]


def test_literals_operators_casts_and_formats_mean_the_same_written_back(spark):
    lines = EXPRESSIONS.read_text(encoding="utf-8").splitlines()
    selects = [line for line in lines if line.strip() and not line.startswith("#")]
    assert all(_written_back(s) is not None for s in selects)
    assert not (differ := _differences(spark, selects)), differ[:5]
