"""The scripts in ``examples/`` run and return exactly the rows in ``examples/expected/``.

Each example is imported by path and its ``main(spark)`` run on the shared session. The
result is compared, column names included, with ``examples/expected/<name>.tsv``: a header
line, then one tab-separated line per row. Values are written as ``str(value)``, except
NULL for None and ``true``/``false`` for booleans (as Spark prints them); rows are
compared sorted, so the files are order-free. The expected rows were derived by hand from
the data (see the comments in ``examples/data/make_data.py``), not copied from a run.

The notebook ``examples/matchrec_tour.ipynb`` is executed (nbclient, a python3 kernel)
when the IPython extension ``matchrec.runtime.magic`` and the notebook tools are there.
"""

from __future__ import annotations

import csv
import importlib.util
import io
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
NAMES = [
    "stock_shapes",
    "sessionize",
    "funnel",
    "failed_logins",
    "sensor_threshold",
    "card_fraud_stream",
]


def load_module(path: Path) -> ModuleType:
    """Import the script at ``path`` as a module (``examples/`` is not a package)."""
    spec = importlib.util.spec_from_file_location(f"matchrec_example_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fmt(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def read_expected(name: str) -> tuple[list[str], list[tuple[str, ...]]]:
    lines = (EXAMPLES / "expected" / f"{name}.tsv").read_text().splitlines()
    header, *rows = [tuple(line.split("\t")) for line in lines if line]
    return list(header), sorted(rows)


@pytest.mark.parametrize("name", NAMES)
def test_example(spark, name: str, capsys: pytest.CaptureFixture[str]) -> None:
    result = load_module(EXAMPLES / f"{name}.py").main(spark)
    printed = capsys.readouterr().out
    columns, expected = read_expected(name)
    assert result.columns == columns
    rows = sorted(tuple(fmt(v) for v in row) for row in result.collect())
    assert rows == expected
    assert f"|{columns[0]}" in printed  # main() printed the table


@pytest.mark.parametrize("name", NAMES)
def test_expected_files_are_sorted_and_rectangular(name: str) -> None:
    lines = (EXAMPLES / "expected" / f"{name}.tsv").read_text().splitlines()
    rows = [tuple(line.split("\t")) for line in lines[1:]]
    assert rows == sorted(rows)
    assert {len(row) for row in rows} == {len(lines[0].split("\t"))}


def test_data_files_match_their_generator(tmp_path: Path, monkeypatch) -> None:
    """The committed CSVs are what ``examples/data/make_data.py`` writes."""
    make_data = load_module(EXAMPLES / "data" / "make_data.py")
    monkeypatch.setattr(make_data, "HERE", tmp_path)
    make_data.main()
    written = sorted(p.name for p in tmp_path.glob("*.csv"))
    assert written == sorted(p.name for p in (EXAMPLES / "data").glob("*.csv"))
    for name in written:
        assert (tmp_path / name).read_text() == (EXAMPLES / "data" / name).read_text(), name
        rows = list(csv.reader(io.StringIO((tmp_path / name).read_text())))
        assert 20 <= len(rows) <= 500, name


def test_notebook_matches_its_builder() -> None:
    """The committed notebook is what ``examples/make_notebook.py`` writes."""
    pytest.importorskip("nbformat", reason="nbformat is not installed (pip install -e '.[test]')")
    make_notebook = load_module(EXAMPLES / "make_notebook.py")
    assert (EXAMPLES / "matchrec_tour.ipynb").read_text() == make_notebook.render()


def _notebook_skip_reason() -> str | None:
    if importlib.util.find_spec("matchrec.runtime.magic") is None:
        return "runtime/magic.py (the %%matchrec cell magic) does not exist yet"
    for module in ("nbformat", "nbclient", "ipykernel"):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed (pip install -e '.[test]')"
    return None


@pytest.mark.skipif(_notebook_skip_reason() is not None, reason=str(_notebook_skip_reason()))
def test_notebook_runs() -> None:
    """Execute the tour in a python3 kernel (its own Spark session): no cell fails, and
    the matchrec.sql cell, the %%matchrec cell and the cell using its -o result show
    their rows."""
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(str(EXAMPLES / "matchrec_tour.ipynb"), as_version=4)
    client = NotebookClient(
        notebook,
        kernel_name="python3",
        timeout=600,
        resources={"metadata": {"path": str(EXAMPLES)}},
    )
    client.execute()  # raises CellExecutionError when a cell fails
    shown: dict[str, str] = {}
    for cell in notebook.cells:
        texts = []
        for output in cell.get("outputs", []):
            assert output.get("output_type") != "error", output
            if output.get("name") != "stderr":
                texts.append(output.get("text", ""))
                texts.extend(str(v) for v in output.get("data", {}).values())
        shown[cell.source] = "\n".join(texts)

    def output_of(start: str) -> str:
        (text,) = [out for source, out in shown.items() if source.startswith(start)]
        return text

    hot = output_of("import matchrec")
    assert "|boiler-3 |2026-11-02 08:45:00|2026-11-02 08:59:00|14     |15      |87.5  |" in hot
    assert hot.count("|boiler-") == 3
    magic = output_of("%%matchrec -o runs --limit 10")
    assert "| boiler-2  | 2026-11-02 08:21:00 | 81.0   | 2 " in magic
    assert "first 10 rows shown, more available" in magic
    assert "<table" in magic
    counts = output_of("runs.groupBy")
    assert "| boiler-1|    8|" in counts
    assert "| boiler-3|   15|" in counts
