"""pytest plugin: query suites (``.slt`` files) as pytest tests.

pytest loads it by itself (``pytest11`` entry point of the matchrec distribution). It
does nothing unless asked; a ``.slt`` file is collected when

* it is named on the command line: ``pytest shared/conformance/standard/simple_query.slt``,
* or ``--slt`` is given: then every ``.slt`` file under the paths given (or under
  ``testpaths``) is collected: ``pytest --slt shared/conformance``.

Each record is one test item ``<file>::<line>`` (the line of its header), so ``-k``,
``-x`` and ``--lf`` work as usual and a failure shows the record's SQL with a diff of
expected and actual rows. The records run in the shared session of
:func:`matchrec.runtime.session.get_spark` through :func:`matchrec.sql`;
``--slt-engine=spark`` runs them with plain ``spark.sql`` instead. Before a record
runs, the ``statement ok`` records above it in its file are (re)applied if needed, so
a record selected alone with ``-k`` still finds its views.

Nothing heavy is imported until an ``.slt`` item runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from matchrec.errors import MatchRecognizeError

if TYPE_CHECKING:
    from matchrec.runtime.slt import CaseResult, Executor
    from matchrec.runtime.slt_parser import Record

_STATE = pytest.StashKey[dict[str, Any]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--slt`` and ``--slt-engine``."""
    group = parser.getgroup("matchrec", "matchrec query suites (.slt)")
    group.addoption(
        "--slt",
        action="store_true",
        default=False,
        help="collect every .slt file under the given paths (files named explicitly "
        "are always collected)",
    )
    group.addoption(
        "--slt-engine",
        choices=("matchrec", "spark"),
        default="matchrec",
        help="run .slt records with matchrec.sql (default) or plain spark.sql",
    )


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """Collect ``file_path`` if it is a ``.slt`` file that was asked for."""
    if file_path.suffix != ".slt":
        return None
    if parent.config.getoption("slt") or parent.session.isinitpath(file_path):
        return SltFile.from_parent(parent, path=file_path)
    return None


class SltFailure(Exception):
    """A record failed; carries its :class:`~matchrec.runtime.slt.CaseResult`."""

    def __init__(self, result: CaseResult) -> None:
        self.result = result
        super().__init__(result.report())


class SltFile(pytest.File):
    """One ``.slt`` file: its records become :class:`SltItem` children."""

    records: list[Record]

    def collect(self):
        from matchrec.runtime.slt_parser import SltError, parse_file

        try:
            self.records = parse_file(self.path)
        except SltError as exc:
            raise self.CollectError(str(exc)) from exc
        for index, record in enumerate(self.records):
            yield SltItem.from_parent(self, name=str(record.line), record=record, index=index)

    def prepare(self, index: int, executor: Executor, spark: Any) -> None:
        """Apply the ``statement ok`` records before record ``index`` not yet applied.

        The session's state belongs to the file that ran last; when another file ran
        in between, or records run out of order, the session is set back to its state
        before the first file and the file's setup is replayed from the start.
        """
        from matchrec.runtime.slt import run_record
        from matchrec.runtime.slt_session import restore, session_state

        state = self.config.stash.setdefault(_STATE, {"file": None, "pos": 0})
        if "baseline" not in state:
            state["baseline"] = session_state(spark)
        if state["file"] != self.nodeid or state["pos"] > index:
            restore(spark, state["baseline"])  # what another file (or run) left behind
            state["file"], state["pos"] = self.nodeid, 0
        for record in self.records[state["pos"] : index]:
            if record.is_setup and not record.skip:
                result = run_record(record, executor, spark)
                if result.failed:
                    result.setup = True
                    raise SltFailure(result)
        state["pos"] = index

    def done(self, index: int) -> None:
        """Record ``index`` has run: the session now holds the state after it."""
        self.config.stash[_STATE].update(file=self.nodeid, pos=index + 1)


class SltItem(pytest.Item):
    """One record of a ``.slt`` file."""

    def __init__(self, *, record: Record, index: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.record = record
        self.index = index

    def runtest(self) -> None:
        from matchrec.runtime.slt import run_record

        if self.record.skip:
            pytest.skip("excluded by skipif/onlyif")
        executor, spark = _engine(self.config)
        parent = self.parent
        assert isinstance(parent, SltFile)
        parent.prepare(self.index, executor, spark)
        result = run_record(self.record, executor, spark)
        parent.done(self.index)
        if result.failed:
            raise SltFailure(result)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style=None) -> str:
        if isinstance(excinfo.value, SltFailure):
            return excinfo.value.result.report()
        if isinstance(excinfo.value, MatchRecognizeError):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int, str]:
        headline = f"{self.path.name}:{self.name}: {self.record.header}"
        return self.path, self.record.line - 1, headline


def _engine(config: pytest.Config) -> tuple[Executor, Any]:
    """The executor and SparkSession for this run, resolved once."""
    from matchrec.runtime.session import get_spark
    from matchrec.runtime.slt import default_executor, open_doors, spark_executor

    state = config.stash.setdefault(_STATE, {"file": None, "pos": 0})
    if "executor" not in state:
        engine = config.getoption("slt_engine")
        state["executor"] = spark_executor if engine == "spark" else default_executor()
        open_doors(get_spark(), state["executor"])
    return state["executor"], get_spark()
