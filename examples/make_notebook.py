"""Write ``matchrec_tour.ipynb`` beside this script (``python examples/make_notebook.py``).

The notebook is kept without outputs and with fixed cell ids, so rebuilding it gives the
same file; tests/test_examples.py checks that and, when the ``%%matchrec`` magic and the
notebook tools are installed, executes it.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent
NOTEBOOK = HERE / "matchrec_tour.ipynb"


def _example(name: str) -> ModuleType:
    """An example script of this folder, imported by path (its query and schema are the
    notebook's, so the two cannot drift apart)."""
    spec = importlib.util.spec_from_file_location(f"matchrec_example_{name}", HERE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SENSOR = _example("sensor_threshold")

CELLS: list[tuple[str, str]] = [
    (
        "md",
        """\
# A tour of matchrec

`MATCH_RECOGNIZE` (SQL:2016 row pattern recognition) on Apache Spark. This notebook finds
boilers that ran hot for five minutes or more, first from Python with `matchrec.sql`,
then with the `%%matchrec` cell magic.

Run it from the `examples/` folder (the data path below is relative to it) with matchrec
installed: `pip install -e '.[test]'`, then open it in Jupyter.""",
    ),
    ("md", "## Start Spark\n\nA small local session (the one matchrec's own tools use)."),
    (
        "code",
        """\
from matchrec.runtime.session import get_spark

spark = get_spark()
spark.version""",
    ),
    (
        "md",
        """\
## Load the data

One temperature reading a minute for three boilers (`data/sensor_readings.csv`, written
by `data/make_data.py`), as the temporary view `sensor_readings`.""",
    ),
    (
        "code",
        "readings = spark.read.csv(\n"
        '    "data/sensor_readings.csv",\n'
        "    header=True,\n"
        f'    schema="{SENSOR.SCHEMA}",\n'
        ")\n"
        'readings.createOrReplaceTempView("sensor_readings")\n'
        "readings.show(5)",
    ),
    (
        "md",
        """\
## A query with `matchrec.sql`

`PATTERN (H+)` with `H AS temp_c > 80.0` finds each run of consecutive hot readings, one
row per run; the outer `WHERE` keeps runs that last at least five minutes. Any Spark SQL
can surround the `MATCH_RECOGNIZE` clause.""",
    ),
    (
        "code",
        'import matchrec\n\nquery = """' + SENSOR.QUERY + '"""\n'
        "hot = matchrec.sql(spark, query)\nhot.show(truncate=False)",
    ),
    (
        "md",
        """\
## The `%%matchrec` cell magic

`%load_ext matchrec` adds `%%matchrec [-o NAME] [--limit N]`: the rest of the cell is SQL,
run through `matchrec.sql` (on the session in the variable `spark`), shown as a table;
`-o NAME` keeps the result DataFrame in `NAME`.

Here every reading of every long hot run, with `ALL ROWS PER MATCH`: with one reading a
minute, "at least five minutes" is six or more readings, `H{6,}`, and `RUNNING` measures
number the minutes of the run and track its peak so far.""",
    ),
    ("code", "%load_ext matchrec"),
    (
        "code",
        """\
%%matchrec -o runs --limit 10
SELECT sensor_id, ts, temp_c, minute_of_run, peak_so_far
FROM sensor_readings MATCH_RECOGNIZE (
  PARTITION BY sensor_id
  ORDER BY ts
  MEASURES
    RUNNING count(*) AS minute_of_run,
    RUNNING max(temp_c) AS peak_so_far
  ALL ROWS PER MATCH
  PATTERN (H{6,})
  DEFINE H AS temp_c > 80.0
) AS m
ORDER BY sensor_id, ts""",
    ),
    ("md", "`runs` (set by `-o runs`) is an ordinary DataFrame: hot readings per boiler."),
    ("code", 'runs.groupBy("sensor_id").count().orderBy("sensor_id").show()  # noqa: F821'),
]


def build() -> nbformat.NotebookNode:
    notebook = new_notebook()
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    notebook.metadata["language_info"] = {"name": "python"}
    for number, (kind, source) in enumerate(CELLS, 1):
        cell = new_markdown_cell(source) if kind == "md" else new_code_cell(source)
        cell.id = f"tour-{number:02d}"
        notebook.cells.append(cell)
    nbformat.validate(notebook)
    return notebook


def render() -> str:
    return nbformat.writes(build()) + "\n"


def main() -> None:
    NOTEBOOK.write_text(render())


if __name__ == "__main__":
    main()
