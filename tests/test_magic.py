"""The Jupyter magics ``%%matchrec`` / ``%matchrec``: in an in-process IPython shell on
the test run's SparkSession, then once in a real Jupyter kernel driven by nbclient."""

from __future__ import annotations

import html
import re

import pytest

pytest.importorskip("IPython")

from IPython.core.error import UsageError  # noqa: E402
from IPython.utils.capture import capture_output  # noqa: E402
from matchrec.runtime import magic  # noqa: E402

import matchrec  # noqa: E402
from matchrec.errors import SemanticError  # noqa: E402

# x: two V shapes (3 rows down-up, 1-5; 4 rows, 6-10); y: one step down only (no match);
# z: four steps down, so DOWN{2,3} starts one row later (2-6)
PRICES = [
    ("x", 1, 10.0), ("x", 2, 9.0), ("x", 3, 8.0), ("x", 4, 9.0), ("x", 5, 11.0),
    ("x", 6, 10.0), ("x", 7, 9.0), ("x", 8, 8.0), ("x", 9, 7.0), ("x", 10, 12.0),
    ("y", 1, 5.0), ("y", 2, 4.0), ("y", 3, 6.0),
    ("z", 1, 10.0), ("z", 2, 9.0), ("z", 3, 8.0), ("z", 4, 7.0), ("z", 5, 6.0), ("z", 6, 7.0),
]  # fmt: skip

V_QUERY = """\
SELECT sym, start_t, bottom, end_t
FROM mg_prices MATCH_RECOGNIZE (
  PARTITION BY sym
  ORDER BY t
  MEASURES STRT.t AS start_t, LAST(DOWN.price) AS bottom, LAST(UP.t) AS end_t
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (STRT DOWN{2,3} UP+)
  DEFINE DOWN AS price < PREV(price), UP AS price > PREV(price)
) AS m
ORDER BY sym, start_t"""
V_ROWS = [["x", "1", "8.0", "5"], ["x", "6", "7.0", "10"], ["z", "2", "6.0", "6"]]

# the brief's example: a bounded quantifier and the end anchor, on one line
ANCHOR_QUERY = (
    "SELECT sym, first_a, last_t FROM mg_prices MATCH_RECOGNIZE (PARTITION BY sym ORDER BY t "
    "MEASURES FIRST(A.t) AS first_a, B.t AS last_t PATTERN (A{2,3} B$) "
    "DEFINE A AS price > 0) AS m ORDER BY sym"
)
ANCHOR_ROWS = [["x", "7", "10"], ["y", "1", "3"], ["z", "3", "6"]]

BAD_QUERY = """\
SELECT *
FROM mg_prices MATCH_RECOGNIZE (
  ORDER BY t
  MEASURES A.price AS p
  PATTERN (A B+)
  DEFINE B AS price < PREV(prise)
) AS m"""


@pytest.fixture(scope="module")
def ip(spark):
    """The test IPython shell with the extension loaded, HTML output on, ``spark`` set."""
    from IPython.testing.globalipapp import get_ipython

    shell = get_ipython()
    shell.run_line_magic("load_ext", "matchrec")
    formatter = shell.display_formatter
    saved = list(formatter.active_types)
    formatter.active_types = [*saved, "text/html"]
    spark.createDataFrame(PRICES, "sym STRING, t INT, price DOUBLE").createOrReplaceTempView(
        "mg_prices"
    )
    shell.user_ns["spark"] = spark
    yield shell
    formatter.active_types = saved
    for name in ("spark", "res", "_mrdf", "other", "x"):
        shell.user_ns.pop(name, None)


def run(shell, cell):
    """Run a cell as a user would (input transformers included); result and captured output."""
    with capture_output() as cap:
        result = shell.run_cell(cell)
    return result, cap


def html_of(cap) -> str:
    pages = [o.data["text/html"] for o in cap.outputs if "text/html" in o.data]
    assert len(pages) == 1, cap.outputs
    return pages[0]


def table_rows(page: str) -> list[list[str]]:
    """The text of each body row's cells in an HTML table (NULL markup kept as text)."""
    body = page.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return [
        [html.unescape(re.sub(r"<[^>]+>", "", cell)) for cell in re.findall(r"<td>(.*?)</td>", tr)]
        for tr in re.findall(r"<tr>(.*?)</tr>", body, re.S)
    ]


# --- options (no Spark) -----------------------------------------------------------------


def test_parse_line_splits_options_from_verbatim_sql():
    opts, rest = magic.parse_line("-o res --limit=5 --explain --session s  SELECT -1, '{x}' $")
    assert (opts.output, opts.limit, opts.explain, opts.session) == ("res", 5, True, "s")
    assert rest == "SELECT -1, '{x}' $"
    opts, rest = magic.parse_line("--output r --limit 0")
    assert (opts.output, opts.limit, rest) == ("r", 0, "")


@pytest.mark.parametrize(
    "line, message",
    [
        ("--bogus", "unknown option"),
        ("--limit", "needs a value"),
        ("--limit -3", "whole number"),
        ("-o 1x", "variable name"),
        ("-o class", "variable name"),
    ],
)
def test_parse_line_rejects_bad_options(line, message):
    with pytest.raises(UsageError, match=message):
        magic.parse_line(line)


def test_format_value_is_like_spark_show():
    from pyspark.sql import Row

    assert magic.format_value(None) == "NULL"
    assert magic.format_value([1, None, True]) == "[1, NULL, true]"
    assert magic.format_value(Row(a=1, b="x")) == "{1, x}"
    assert magic.format_value({"k": 2}) == "{k -> 2}"
    assert magic.format_value(b"\x01\xff") == "[01 FF]"
    assert len(magic.format_value("a" * 5000)) == magic.MAX_VALUE_CHARS


# --- in-process shell -------------------------------------------------------------------


def test_cell_magic_shows_rows_and_stores_result(ip):
    result, cap = run(ip, "%%matchrec -o res\n" + V_QUERY)
    assert result.error_in_exec is None
    page = html_of(cap)
    assert "<th>sym</th><th>start_t</th><th>bottom</th><th>end_t</th>" in page
    assert table_rows(page) == V_ROWS
    assert re.search(r"3 rows · \d+\.\d+ s", page)
    res, last = ip.user_ns["res"], ip.user_ns["_mrdf"]
    assert res is last
    assert res.columns == ["sym", "start_t", "bottom", "end_t"]


def test_run_cell_magic_directly(ip):
    with capture_output() as cap:
        ip.run_cell_magic("matchrec", "--limit 5", V_QUERY)
    assert table_rows(html_of(cap)) == V_ROWS


def test_quantifier_and_anchor_reach_matchrec_verbatim(ip):
    ip.user_ns["x"] = "expanded"  # would replace {x} and $x if the line were expanded
    for cell in (f"%%matchrec\n{ANCHOR_QUERY}", f"%matchrec {ANCHOR_QUERY}"):
        result, cap = run(ip, cell)
        assert result.error_in_exec is None, cell
        assert table_rows(html_of(cap)) == ANCHOR_ROWS, cell
    _, cap = run(ip, "%matchrec SELECT '{x}' AS braces, '$x' AS dollar, '{2,3}' AS q")
    assert table_rows(html_of(cap)) == [["{x}", "$x", "{2,3}"]]


def test_limit_says_more_rows_exist_without_counting(ip):
    _, cap = run(ip, "%%matchrec --limit 2\n" + V_QUERY)
    page = html_of(cap)
    assert table_rows(page) == V_ROWS[:2]
    assert "first 2 rows shown, more available" in page
    assert ip.user_ns["_mrdf"].count() == 3  # the stored DataFrame is the whole result


def test_values_are_escaped_and_null_is_distinct(ip):
    _, cap = run(ip, "%matchrec SELECT '<b>&' AS s, NULL AS n, 'NULL' AS text")
    page = html_of(cap)
    assert "&lt;b&gt;&amp;" in page and "<b>" not in page
    assert page.count("font-style: italic") == 1  # the real NULL, not the string 'NULL'
    assert "1 row ·" in page


def test_statement_without_columns_shows_only_the_summary(ip):
    _, cap = run(ip, "%matchrec CREATE OR REPLACE TEMP VIEW mg_one AS SELECT 1 AS one")
    page = html_of(cap)
    assert "<table" not in page and "0 rows ·" in page
    _, cap = run(ip, "%matchrec SELECT * FROM mg_one")
    assert table_rows(html_of(cap)) == [["1"]]


def test_matchrec_error_is_brief_with_caret(ip):
    ip.user_ns["res"] = "before"
    result, cap = run(ip, "%%matchrec -o res\n" + BAD_QUERY)
    assert isinstance(result.error_in_exec, SemanticError)
    out = cap.stdout
    assert "semantic error: Column 'prise' cannot be resolved (line 6, column 28)" in out
    assert "  6 |   DEFINE B AS price < PREV(prise)" in out
    assert re.search(r"\n\s+\^\n", out)
    assert "hint:" in out
    assert "Traceback" not in out and "File " not in out
    assert len(out.strip().splitlines()) == 4
    assert ip.user_ns["res"] == "before"  # a failed cell stores nothing


def test_spark_analysis_error_is_brief_with_caret(ip):
    result, cap = run(ip, "%%matchrec\nSELECT sym, nope\nFROM mg_prices")
    out = cap.stdout
    assert "[UNRESOLVED_COLUMN.WITH_SUGGESTION]" in out
    assert "  1 | SELECT sym, nope\n" in out
    assert "            ^^^^\n" in out  # under `nope`
    assert "Traceback" not in out and "Project [" not in out  # no stack, no logical plan
    assert type(result.error_in_exec).__name__ == "AnalysisException"


def test_runtime_error_from_worker_is_brief(ip):
    query = (
        "SELECT * FROM mg_prices MATCH_RECOGNIZE (PARTITION BY sym ORDER BY t "
        "MEASURES A.t AS a AFTER MATCH SKIP TO FIRST A PATTERN (A B*) "
        "DEFINE B AS price < PREV(price)) AS m"
    )
    result, cap = run(ip, "%matchrec " + query)
    assert result.error_in_exec is not None
    out = cap.stdout.strip()
    # as a planning error: the message at the label, the query line, the caret, the hint
    column = query.index("A PATTERN") + 1
    assert out.startswith(
        f"runtime error: AFTER MATCH SKIP failed: cannot skip to first row of match "
        f"(line 1, column {column})\n  1 | {query}\n"
    )
    assert out.splitlines()[2] == " " * (column + 5) + "^"
    assert out.splitlines()[3].startswith("hint: skipping to a match's first row")
    assert "Traceback" not in out and len(out.splitlines()) == 4


def test_bad_usage_is_a_usage_error(ip):
    with pytest.raises(UsageError, match="options only"):
        ip.run_cell_magic("matchrec", "SELECT 1", "FROM t")
    with pytest.raises(UsageError, match="no SQL"):
        ip.run_line_magic("matchrec", "-o r")
    ip.user_ns["other"] = 42
    with pytest.raises(UsageError, match="is a int, not a SparkSession"):
        ip.run_line_magic("matchrec", "--session other SELECT 1")
    with pytest.raises(UsageError, match="no variable named 'missing'"):
        ip.run_line_magic("matchrec", "--session missing SELECT 1")


def test_session_option_and_defaults(ip, spark):
    ip.user_ns["other"] = spark
    with capture_output() as cap:
        ip.run_line_magic("matchrec", "--session other SELECT 7 AS seven")
    assert table_rows(html_of(cap)) == [["7"]]
    assert magic.resolve_session({}, None) is spark  # the active session
    assert magic.resolve_session({"spark": "not a session"}, None) is spark


def test_args_bind_parameter_markers_in_the_clause(ip):
    """``--args VAR``: the notebook's dict binds ``:name`` markers (a list, ``?`` ones),
    in the clause too, as ``matchrec.sql(spark, query, args=VAR)``; --explain takes them."""
    query = V_QUERY.replace("UP AS price > PREV(price)", "UP AS price > PREV(price) + :jump")
    ip.user_ns["x"] = {"jump": 2.5}  # of the three V shapes, only x's 7 -> 12 jumps by more
    with capture_output() as cap:
        ip.run_cell_magic("matchrec", "--args x", query)
    assert table_rows(html_of(cap)) == [["x", "6", "7.0", "10"]]
    ip.user_ns["x"] = [2.5]
    with capture_output() as cap:
        ip.run_cell_magic("matchrec", "--args x", query.replace(":jump", "?"))
    assert table_rows(html_of(cap)) == [["x", "6", "7.0", "10"]]
    ip.user_ns["x"] = {"jump": 2.5}
    with capture_output() as cap:
        ip.run_cell_magic("matchrec", "--explain --args x", query)
    assert "2.5" in "".join(str(o.data) for o in cap.outputs)
    ip.user_ns["x"] = 2.5
    with pytest.raises(UsageError, match="must be a dict .* or a list"):
        ip.run_cell_magic("matchrec", "--args x", query)
    with pytest.raises(UsageError, match="no variable named 'nothing'"):
        ip.run_cell_magic("matchrec", "--args nothing", query)


def test_query_runs_once(ip, spark, monkeypatch):
    """One matchrec.sql call and exactly the Spark jobs of ``limit(21).collect()``."""
    sc = spark.sparkContext

    def jobs(group, action):
        sc.setJobGroup(group, group)
        try:
            action()
        finally:
            sc._jsc.clearJobGroup()
        sc._jsc.sc().listenerBus().waitUntilEmpty()
        return len(sc.statusTracker().getJobIdsForGroup(group))

    baseline = jobs("mg-baseline", lambda: matchrec.sql(spark, V_QUERY).limit(21).collect())
    calls = []
    real_sql = matchrec.sql
    monkeypatch.setattr(
        matchrec, "sql", lambda s, q, args=None: calls.append(q) or real_sql(s, q, args)
    )
    with capture_output():
        used = jobs("mg-magic", lambda: ip.run_cell_magic("matchrec", "", V_QUERY))
    assert calls == [V_QUERY]
    assert baseline > 0
    assert used == baseline


def test_explain_displays_explanation_without_running(ip, monkeypatch):
    class Shown:
        def _repr_html_(self):
            return "<pre>the plan</pre>"

    monkeypatch.setattr(magic.importlib.util, "find_spec", lambda name: object())
    monkeypatch.setattr(matchrec, "explain", lambda spark, q, args=None: Shown())
    monkeypatch.setattr(matchrec, "sql", lambda spark, q, args=None: pytest.fail("ran the query"))
    with capture_output() as cap:
        ip.run_cell_magic("matchrec", "--explain", V_QUERY)
    assert html_of(cap) == "<pre>the plan</pre>"


def test_explain_as_text_is_the_explanation(ip, spark):
    """A text frontend (a terminal, %%capture's stdout) showed the dataclass's repr,
    ``Explanation(text='...', dot=[...])``."""
    with capture_output() as cap:
        ip.run_cell_magic("matchrec", "--explain", V_QUERY)
    texts = [o.data["text/plain"] for o in cap.outputs if "text/plain" in o.data]
    assert len(texts) == 1
    expected = str(matchrec.explain(spark, V_QUERY))
    # (the Spark plan at its end numbers its expressions anew each time)
    assert texts[0].splitlines()[:8] == expected.splitlines()[:8]
    assert texts[0].startswith("== MATCH_RECOGNIZE") and "Explanation(" not in texts[0]


def test_an_explain_statement_shows_the_whole_plan_as_text(ip):
    """``EXPLAIN EXTENDED SELECT ...`` returns one value, the plan; it was one table cell
    cut at 1,000 characters."""
    cell = "-- the plan\nEXPLAIN EXTENDED " + V_QUERY
    result, cap = run(ip, f"%%matchrec\n{cell}")
    assert result.success
    page = html_of(cap)
    assert page.startswith('<pre class="matchrec-plan">') and "<table" not in page
    plan = html.unescape(page.split(">", 1)[1].split("</pre>", 1)[0])
    assert len(plan) > 1000 and "…" not in plan
    assert "== Parsed Logical Plan ==" in plan and "== Physical Plan ==" in plan
    with capture_output() as text:
        ip.run_cell_magic("matchrec", "", cell)
    shown = [o.data["text/plain"] for o in text.outputs if "text/plain" in o.data]
    assert shown[0].startswith("== Parsed Logical Plan ==")


def test_intervals_show_as_spark_shows_them(ip):
    """A YEAR-MONTH interval crashed the cell (PySpark cannot collect one) and a DAY-TIME
    one showed as Python's timedelta."""
    cell = (
        "SELECT m.span, INTERVAL '1-2' YEAR TO MONTH AS ym FROM mg_prices MATCH_RECOGNIZE ("
        "PARTITION BY sym ORDER BY t MEASURES make_dt_interval(0, LAST(A.t)) AS span "
        "PATTERN (A+) DEFINE A AS true) AS m ORDER BY sym"
    )
    result, cap = run(ip, f"%%matchrec\n{cell}")
    assert result.success
    assert table_rows(html_of(cap))[0] == [
        "INTERVAL '0 10:00:00' DAY TO SECOND",
        "INTERVAL '1-2' YEAR TO MONTH",
    ]


def test_intervals_inside_values_show_as_spark_shows_them(ip):
    """A YEAR-MONTH interval inside an array or struct crashed the cell."""
    cell = (
        "SELECT array(make_ym_interval(0, m.f), make_ym_interval(0, m.l)), "
        "named_struct('y', make_ym_interval(1, 0), 'n', m.n) "
        "FROM (SELECT * FROM mg_prices WHERE sym = 'y') MATCH_RECOGNIZE (PARTITION BY sym "
        "ORDER BY t MEASURES FIRST(A.t) AS f, LAST(A.t) AS l, count(*) AS n "
        "PATTERN (A{2}) DEFINE A AS true) AS m"
    )
    result, cap = run(ip, f"%%matchrec\n{cell}")
    assert result.success
    assert table_rows(html_of(cap))[0] == [
        "[INTERVAL '0-1' YEAR TO MONTH, INTERVAL '0-2' YEAR TO MONTH]",
        "{INTERVAL '1-0' YEAR TO MONTH, 2}",
    ]


def test_explain_without_module_says_so(ip, monkeypatch):
    monkeypatch.setattr(magic.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(UsageError, match="no explain support"):
        ip.run_cell_magic("matchrec", "--explain", V_QUERY)


# --- a real Jupyter kernel --------------------------------------------------------------


def test_notebook_in_a_real_kernel(tmp_path):
    """One kernel, one JVM: load the extension, make a view, run a V-shape query, a bad one,
    and use the stored result from Python."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    rows = ", ".join(f"('{s}', {t}, {p})" for s, t, p in PRICES)
    cells = [
        "%load_ext matchrec",
        "from matchrec.runtime.session import get_spark\n"
        "spark = get_spark()\n"
        f'spark.sql("CREATE OR REPLACE TEMP VIEW mg_prices AS SELECT * FROM VALUES {rows} '
        'AS v(sym, t, price)")',
        "%%matchrec -o res\n" + V_QUERY,
        "%%matchrec\n" + BAD_QUERY,
        "print(res.count(), type(_mrdf).__name__)",
    ]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    nb.cells[3].metadata["tags"] = ["raises-exception"]
    client = nbclient.NotebookClient(
        nb,
        kernel_name="python3",
        timeout=300,
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()

    shown = [o for o in nb.cells[2].outputs if o.output_type == "display_data"]
    assert len(shown) == 1
    page = shown[0].data["text/html"]
    assert table_rows(page) == V_ROWS
    assert "3 rows ·" in page

    errors = [o for o in nb.cells[3].outputs if o.output_type == "error"]
    assert len(errors) == 1 and errors[0].ename == "SemanticError"
    text = "\n".join(errors[0].traceback)
    assert "Column 'prise' cannot be resolved (line 6, column 28)" in text
    assert "  6 |   DEFINE B AS price < PREV(prise)" in text
    assert re.search(r"\n\s+\^\n", text)
    assert "Traceback" not in text and len(errors[0].traceback) == 4

    printed = "".join(o.get("text", "") for o in nb.cells[4].outputs if o.output_type == "stream")
    assert "3 DataFrame" in printed
