"""Results of a benchmark run and their Markdown table."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

from .workloads import LINEAR_RATIO_LIMIT, SCALING_PAIRS


@dataclass
class Result:
    """One measured job: a workload, a baseline, or a workload run by Flink."""

    name: str
    #: "matchrec", "floor", "udtf floor", "naive" or "flink"
    engine: str
    rows: int
    #: wall-clock seconds of each timed run
    times: list[float]
    #: result rows (matches, or input rows for the floor), from a separate untimed run
    count: int | None = None
    #: what an independent computation expects for ``count`` (None: not checked)
    expected: int | None = None
    #: why ``expected`` is missing although the job is checkable, e.g. too large
    check_note: str = ""
    py_max_mb: float | None = None
    py_sum_mb: float | None = None
    #: name of the Result this one is divided by for "x floor" / "x naive"
    floor: str | None = None
    naive: str | None = None
    notes: str = ""
    error: str | None = None

    @property
    def seconds(self) -> float | None:
        """Median of the timed runs."""
        return statistics.median(self.times) if self.times else None

    @property
    def rows_per_second(self) -> float | None:
        s = self.seconds
        return self.rows / s if s else None

    @property
    def check(self) -> str:
        if self.error:
            return "ERROR"
        if self.expected is None:
            return self.check_note
        return "OK" if self.count == self.expected else f"MISMATCH (expected {self.expected:,})"


@dataclass
class Report:
    """All results of a run plus the settings it ran with."""

    settings: dict[str, str] = field(default_factory=dict)
    results: list[Result] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def find(self, name: str | None) -> Result | None:
        return next((r for r in self.results if r.name == name), None)

    def ratio(self, result: Result, other: str | None) -> float | None:
        base = self.find(other)
        if base is None or base.seconds is None or result.seconds is None or base.seconds == 0:
            return None
        return result.seconds / base.seconds

    def scaling(self) -> list[tuple[str, str, float | None]]:
        """(big, small, time ratio) of each measured scaling pair."""
        pairs = []
        for big, small in SCALING_PAIRS:
            b, s = self.find(big), self.find(small)
            if b is not None and s is not None:
                pairs.append((big, small, self.ratio(b, small)))
        return pairs

    @property
    def ok(self) -> bool:
        """No error, no count mismatch."""
        return all(not r.error and not r.check.startswith("MISMATCH") for r in self.results)

    def markdown(self) -> str:
        header = [
            "workload",
            "engine",
            "rows",
            "seconds",
            "runs",
            "rows/s",
            "x floor",
            "x naive",
            "py MB max",
            "py MB sum",
            "result rows",
            "check",
        ]
        lines = [_row(header), _row(["---"] * 2 + ["---:"] * 9 + ["---"])]
        for r in self.results:
            lines.append(
                _row(
                    [
                        r.name,
                        r.engine,
                        f"{r.rows:,}",
                        _num(r.seconds, ".3f"),
                        str(len(r.times)),
                        _num(r.rows_per_second, ",.0f"),
                        _num(self.ratio(r, r.floor), ".2f"),
                        _num(self.ratio(r, r.naive), ".2f"),
                        _num(r.py_max_mb, ".0f"),
                        _num(r.py_sum_mb, ".0f"),
                        "" if r.count is None else f"{r.count:,}",
                        r.check,
                    ]
                )
            )
        out = ["## matchrec benchmarks", ""]
        out += [f"- {k}: {v}" for k, v in self.settings.items()]
        out += ["", *lines, ""]
        for big, small, ratio in self.scaling():
            verdict = (
                "n/a"
                if ratio is None
                else ("linear" if ratio <= LINEAR_RATIO_LIMIT else "NOT LINEAR")
            )
            out.append(
                f"- scaling {big} / {small} (10x the rows): {_num(ratio, '.2f')} "
                f"(linear <= {LINEAR_RATIO_LIMIT:g}): {verdict}"
            )
        out += [f"- {r.name}: {r.notes}" for r in self.results if r.notes]
        out += [f"- {r.name}: error: {r.error}" for r in self.results if r.error]
        out += [f"- skipped: {s}" for s in self.skipped]
        return "\n".join(out) + "\n"


def _num(value: float | None, fmt: str) -> str:
    return "" if value is None else format(value, fmt)


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"
