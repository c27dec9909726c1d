"""Trino's row pattern tests as a query suite: ``tests/trino_cases/*.slt``.

Each file holds the assertions of one Trino test method group (TestRowPatternMatching,
TestRowPatternMatchingInWindow, TestAggregationsInRowPatternMatching,
TestCopyAggregationStateInRowPatternMatching, TestExpressionRewriteInRowPatternMatching;
the analyzer's, parser's and matcher's checks
of row patterns from TestAnalyzer, TestSqlParser and TestPatternMatchingMachine in the
``analyzer_*`` files) in Spark SQL; each record names its source.
The files run here through the query-suite runner (:func:`matchrec.runtime.slt.run_file`),
one test per file in the shared session; ``conftest.py`` keeps the ``.slt`` plugin from
collecting them a second time (``pytest tests/trino_cases/<file>.slt`` still runs one file
record by record).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from matchrec.runtime.slt import run_file
from matchrec.runtime.slt_parser import parse_file

TRINO_CASES = Path(__file__).parent / "trino_cases"
FILES = sorted(TRINO_CASES.glob("*.slt"))
HEADER = re.compile(r"^(query|statement) ", re.MULTILINE)


def test_every_record_names_its_trino_source() -> None:
    assert len(FILES) >= 20
    for path in FILES:
        assert parse_file(path)
        for block in path.read_text(encoding="utf-8").split("\n\n"):
            if HEADER.search(block):
                assert re.search(r"^# source: trino Test\w+\.test\w+$", block, re.MULTILINE), (
                    f"{path.name}: a record without its source:\n{block}"
                )


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_trino_cases(spark, path: Path) -> None:
    result = run_file(path, spark=spark)
    failures = [case.report() for case in result.cases if case.failed]
    assert not failures, "\n\n".join(failures)
    assert result.passed > 0
