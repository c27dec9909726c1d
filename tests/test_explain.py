"""``matchrec.explain`` and the automaton drawing behind it.

The first half is pure Python: ``matchrec.automaton_dot`` on several patterns, its DOT
checked by a small structural parser (and rendered by Graphviz when ``dot`` is
installed). The second half explains queries on Spark and checks that no job runs.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass, field

import pytest
from matchrec.grammar import parse_clause
from matchrec.planner.plan import plan_clause

import matchrec
from matchrec.automaton_dot import (
    LEGEND,
    pattern_dot,
    pattern_text,
    program_dot,
    quantifier_text,
    render_svg,
)

# ---------------------------------------------------------------------------- a DOT reader


@dataclass
class Graph:
    """What the structural check keeps of a digraph."""

    name: str
    attrs: dict[str, str] = field(default_factory=dict)
    nodes: dict[str, dict[str, str]] = field(default_factory=dict)
    edges: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)

    def edges_from(self, node: str) -> list[tuple[str, dict[str, str]]]:
        return [(dst, attrs) for src, dst, attrs in self.edges if src == node]

    def node_labelled(self, label: str) -> str:
        (found,) = [n for n, attrs in self.nodes.items() if attrs.get("label") == label]
        return found


_TOKEN = re.compile(
    r'\s*(?:(?P<string>"(?:[^"\\]|\\.)*")|(?P<arrow>->)|(?P<id>[A-Za-z_0-9.\-]+)'
    r"|(?P<punct>[{}\[\];,=]))"
)


def _tokens(text: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        assert m, f"DOT: cannot read {text[pos : pos + 30]!r}"
        kind = m.lastgroup
        value = m.group(kind)
        if kind == "string":
            value = re.sub(
                r"\\(.)", lambda e: "\n" if e.group(1) == "n" else e.group(1), value[1:-1]
            )
        out.append((kind, value))
        pos = m.end()
    return out


def parse_dot(text: str) -> Graph:
    """Parse the subset of DOT that ``automaton_dot`` writes: one ``digraph`` of graph
    attributes, node statements and edge statements, each ending with ``;``."""
    toks = _tokens(text)
    assert toks[0] == ("id", "digraph")
    assert toks[1][0] in ("string", "id") and toks[2] == ("punct", "{")
    assert toks[-1] == ("punct", "}"), "the graph is not closed"
    graph = Graph(toks[1][1])
    body = toks[3:-1]
    statements: list[list[tuple[str, str]]] = [[]]
    depth = 0
    for tok in body:
        if tok == ("punct", "["):
            depth += 1
        elif tok == ("punct", "]"):
            depth -= 1
        if tok == ("punct", ";") and depth == 0:
            statements.append([])
        else:
            statements[-1].append(tok)
    assert statements[-1] == [], "a statement is not ended by ';'"
    for stmt in statements[:-1]:
        assert stmt and stmt[0][0] in ("id", "string"), stmt
        if len(stmt) >= 2 and stmt[1] == ("punct", "="):  # graph attribute
            assert len(stmt) == 3, stmt
            graph.attrs[stmt[0][1]] = stmt[2][1]
            continue
        attrs: dict[str, str] = {}
        if ("punct", "[") in stmt:
            start = stmt.index(("punct", "["))
            assert stmt[-1] == ("punct", "]"), stmt
            attrs = _attr_list(stmt[start + 1 : -1])
            stmt = stmt[:start]
        if len(stmt) == 3 and stmt[1] == ("arrow", "->"):
            graph.edges.append((stmt[0][1], stmt[2][1], attrs))
        elif stmt[0][1] in ("node", "edge", "graph"):
            assert len(stmt) == 1, stmt
        else:
            assert len(stmt) == 1, f"not a node statement: {stmt}"
            assert stmt[0][1] not in graph.nodes, f"node {stmt[0][1]} declared twice"
            graph.nodes[stmt[0][1]] = attrs
    for src, dst, _ in graph.edges:
        assert src in graph.nodes and dst in graph.nodes, f"edge {src} -> {dst}: undeclared"
    return graph


def _attr_list(toks: list[tuple[str, str]]) -> dict[str, str]:
    attrs, i = {}, 0
    while i < len(toks):
        key, eq, value = toks[i : i + 3]
        assert key[0] == "id" and eq == ("punct", "=") and value[0] in ("id", "string"), toks
        attrs[key[1]] = value[1]
        i += 3
        if i < len(toks):
            assert toks[i] == ("punct", ","), toks
            i += 1
    return attrs


# ---------------------------------------------------------------------------- helpers


def compiled(pattern: str, define: str = ""):
    clause = parse_clause(f"PATTERN {pattern} {define}")
    plan = plan_clause(clause, ["x"])
    return clause.pattern, plan.program.nfa


def drawn(pattern: str) -> Graph:
    node, program = compiled(pattern)
    graph = parse_dot(pattern_dot(node, program))
    _check_shape(graph, program)
    return graph


def _check_shape(graph: Graph, program) -> None:
    """Every instruction is a state, DONE is the one double circle, the start arrow
    points at state 0, and every state but DONE has a way out."""
    states = {n for n in graph.nodes if re.fullmatch(r"s\d+", n)}
    assert states == {f"s{pc}" for pc in range(len(program))}
    assert [n for n, a in graph.nodes.items() if a.get("shape") == "doublecircle"] == [
        f"s{len(program) - 1}"
    ]
    assert graph.nodes[f"s{len(program) - 1}"]["label"] == "DONE"
    assert graph.edges_from("start") == [("s0", {})]
    for pc in range(len(program) - 1):
        assert graph.edges_from(f"s{pc}"), f"state {pc} has no transition"


def split_order(graph: Graph, state: str) -> list[str]:
    """Targets of a split state, in the preference order its edge numbers give."""
    edges = sorted(graph.edges_from(state), key=lambda e: int(e[1]["label"]))
    return [dst for dst, _ in edges]


# ---------------------------------------------------------------------------- pure tests


@pytest.mark.parametrize(
    "pattern",
    [
        "(A B+ C)",
        "(A+? B*)",
        "(STRT DOWN{2,} UP{2,})",
        "(^ A | B $)",
        "(A {- B+ -} C)",
        "(PERMUTE(A, B, C))",
        "(((A | B)+)+ C?? D{1,3}? E{,2} F{3})",
        '(A "b"+ ())',
        "()",
    ],
)
def test_pattern_text_round_trips(pattern):
    node, program = compiled(pattern)
    text = pattern_text(node)
    again, program_again = compiled(text)
    assert program_again == program
    assert pattern_text(again) == text


def test_quantifier_text():
    cases = {
        (0, None, True): "*",
        (1, None, True): "+",
        (0, 1, False): "??",
        (3, 3, True): "{3}",
        (2, None, False): "{2,}?",
        (0, 4, True): "{,4}",
        (2, 5, True): "{2,5}",
    }
    for (low, high, greedy), text in cases.items():
        assert quantifier_text(low, high, greedy) == text


def test_title_is_the_pattern_and_the_legend():
    graph = drawn("(STRT DOWN+ UP+)")
    assert graph.attrs["label"] == f"PATTERN (STRT DOWN+ UP+)\n{LEGEND}"
    assert graph.attrs["rankdir"] == "LR"


def test_consuming_edges_carry_the_label():
    graph = drawn("(A B C)")
    labels = [(src, dst, a["label"]) for src, dst, a in graph.edges if src != "start"]
    assert labels == [("s0", "s1", "A"), ("s1", "s2", "B"), ("s2", "s3", "C")]


def test_greedy_loop_prefers_another_iteration():
    graph = drawn("(A+ B)")  # 0 A, 1 SPLIT 0, 2, 2 B, 3 DONE
    assert graph.nodes["s1"]["shape"] == "diamond"
    assert split_order(graph, "s1") == ["s0", "s2"]
    (preferred,) = [a for dst, a in graph.edges_from("s1") if dst == "s0"]
    (other,) = [a for dst, a in graph.edges_from("s1") if dst == "s2"]
    assert preferred["label"] == "1" and preferred["style"] == "bold"
    assert other["label"] == "2" and other["style"] == "dashed"


def test_reluctant_loop_prefers_leaving():
    graph = drawn("(A+? B)")
    assert split_order(graph, "s1") == ["s2", "s0"]


def test_alternation_prefers_the_left_branch():
    graph = drawn("(A | B)")  # 0 SPLIT 1, 3; 1 A; 2 JUMP 4; 3 B; 4 DONE
    assert split_order(graph, "s0") == ["s1", "s3"]
    assert graph.edges_from("s2") == [("s4", {"label": "ε", "style": "dotted"})]


def test_anchors_and_exclusion_are_visible():
    graph = drawn("(^ A {- B -} C $)")
    labels = {a["label"] for _, _, a in graph.edges if "label" in a}
    assert {"^ (partition start)", "$ (partition end)", "A", "{- B -}", "C"} <= labels
    (excluded,) = [a for _, _, a in graph.edges if a.get("label") == "{- B -}"]
    assert excluded["color"] == "gray50"


def test_quoted_labels_are_escaped():
    graph = drawn('("a""b" "c\\d")')
    labels = [a["label"] for src, _, a in graph.edges if src != "start"]
    assert labels == ['a"b', "c\\d"]
    assert 'PATTERN ("a""b" "c\\d")' in graph.attrs["label"]


def test_empty_pattern_is_start_then_done():
    graph = drawn("()")
    assert list(graph.nodes) == ["start", "s0"]


def test_huge_program_is_a_note():
    node, program = compiled("((A{0,30}){0,30})")
    graph = parse_dot(pattern_dot(node, program, max_states=100))
    assert list(graph.nodes) == ["note"]
    assert graph.nodes["note"]["label"].startswith(f"{len(program)} instructions")
    assert parse_dot(program_dot(program, max_states=10_000)).nodes.keys() >= {"s0", "start"}


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
@pytest.mark.parametrize("pattern", ["(STRT DOWN{2,} UP{2,})", "(^ (A | B)+? {- C -}* $)"])
def test_graphviz_renders_it(pattern):
    node, program = compiled(pattern)
    source = pattern_dot(node, program)
    proc = subprocess.run(
        ["dot", "-Tsvg"], input=source, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""  # no warnings (unknown attributes, fonts, ...)
    svg = render_svg(source)
    assert svg is not None and svg.startswith("<svg") and "DONE" in svg


def test_html_falls_back_to_dot_source_without_graphviz(monkeypatch):
    from matchrec.runtime import explain as explain_module

    monkeypatch.setattr(shutil, "which", lambda name: None)
    node, program = compiled("(A B)")
    shown = explain_module.Explanation("a < b", [pattern_dot(node, program)])
    html = shown._repr_html_()
    assert html.startswith("<pre>a &lt; b</pre>")
    assert "<svg" not in html and "<pre>digraph" in html
    assert str(shown) == "a < b"


# ---------------------------------------------------------------------------- on Spark

_GROUP = "matchrec-test-explain"

PRICES = [("x", 1, 10.0), ("x", 2, 9.0), ("x", 3, 11.0), ("y", 1, 5.0), ("y", 2, 6.0)]

BODY = """
  {partition}
  ORDER BY t
  MEASURES FIRST(t) AS start_t, LAST(DOWN.price) AS bottom, count(*) AS n
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (STRT DOWN+ UP+?)
  DEFINE DOWN AS price < PREV(price) AND price > 0, UP AS price > LAST(DOWN.price)
"""


@pytest.fixture(scope="module")
def view(spark):
    name = "test_explain_prices"
    spark.createDataFrame(PRICES, "sym STRING, t INT, price DOUBLE").createOrReplaceTempView(name)
    yield name
    spark.catalog.dropTempView(name)


def _jobs(spark) -> set[int]:
    tracker = spark.sparkContext.statusTracker()
    return set(tracker.getJobIdsForGroup(None)) | set(tracker.getJobIdsForGroup(_GROUP))


def explain_without_jobs(spark, query: str):
    before = _jobs(spark)
    spark.sparkContext.setJobGroup(_GROUP, "explain runs no job")
    try:
        result = matchrec.explain(spark, query)
    finally:
        spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)
    assert _jobs(spark) == before, "explain started a Spark job"
    return result


def test_explain_with_partition_by(spark, view):
    query = f"SELECT * FROM {view} MATCH_RECOGNIZE ({BODY.format(partition='PARTITION BY sym')}) m"
    result = explain_without_jobs(spark, query)
    text = result.text
    assert str(result) == text
    assert text.startswith(f"== MATCH_RECOGNIZE 1 of 1 (line 1): {view} AS m ==")
    assert "Input columns: sym string, t int, price double" in text
    for line in (
        "PARTITION BY  sym",
        "ORDER BY      t ASC NULLS FIRST",
        "PATTERN       (STRT DOWN+ UP+?)",
        "AFTER MATCH   SKIP PAST LAST ROW",
        "ROWS          ONE ROW PER MATCH",
        "bottom      LAST(DOWN.price)",
        "STRT        (not defined: TRUE)",
    ):
        assert line in text, line
    # DOWN's row-local part is vectorized; UP reads LAST(DOWN.price): history, in Python
    down = text[text.index("  DOWN:") : text.index("  UP:")]
    assert re.search(r"vectorized in Spark:  column __mr_c\d+ = .*`price` > 0", down)
    up = text[text.index("  UP:") : text.index("Matcher:")]
    assert "per match in Python:  yes; reads the match so far" in up
    assert "Matcher: history-dependent" in text
    # the Spark side
    assert "hash-partitions the input by sym" in text
    assert "ONE Spark partition" not in text
    assert "== Physical Plan ==" in text and "hashpartitioning(sym" in text
    assert "MapInArrow" in text
    # atoms and the program
    assert re.search(r"__mr_a\d+ +aggregate", text)
    assert "0  MATCH_LABEL STRT" in text and "DONE" in text
    assert len(result.dot) == 1 and parse_dot(result.dot[0]).name == "match_recognize_1"
    # the views sql() would have made are gone
    assert not [t for t in spark.catalog.listTables() if t.name.startswith("__matchrec_")]


def test_explain_without_partition_by_says_one_partition(spark, view):
    inner = f"SELECT * FROM {view} MATCH_RECOGNIZE ({BODY.format(partition='')}) m"
    outer = (
        f"SELECT * FROM ({inner}) MATCH_RECOGNIZE (ORDER BY start_t MEASURES A.n AS n "
        "PATTERN (A) DEFINE A AS n > 1) AS o"
    )
    result = explain_without_jobs(spark, outer)
    text = result.text
    assert "== MATCH_RECOGNIZE 1 of 2" in text and "== MATCH_RECOGNIZE 2 of 2" in text
    assert "(none: the whole input is one partition)" in text
    assert "No PARTITION BY: every row goes to ONE Spark partition" in text
    assert "Exchange SinglePartition" in text
    assert len(result.dot) == 2
    assert [parse_dot(d).attrs["label"].splitlines()[0] for d in result.dot] == [
        "PATTERN (STRT DOWN+ UP+?)",
        "PATTERN (A)",
    ]


def test_explain_says_the_row_order_is_arbitrary_without_order_by(spark, view):
    from matchrec.runtime.explain import NO_ORDER_BY

    from matchrec.errors import ArbitraryOrderWarning

    unordered = f"SELECT * FROM {view} MATCH_RECOGNIZE (PARTITION BY sym MEASURES count(*) AS n "
    unordered += "PATTERN (A+) DEFINE A AS true) m"
    with pytest.warns(ArbitraryOrderWarning):
        text = explain_without_jobs(spark, unordered).text
    assert " ".join(NO_ORDER_BY.split()) in " ".join(text.split())
    ordered = unordered.replace("PARTITION BY sym", "PARTITION BY sym ORDER BY t")
    assert "Row order" not in explain_without_jobs(spark, ordered).text


def test_explain_query_without_match_recognize(spark, view):
    result = explain_without_jobs(spark, f"SELECT * FROM {view}")
    assert "No MATCH_RECOGNIZE" in result.text and result.dot == []


def test_explain_of_the_table_function_explains_its_clause(spark, view):
    """A query that calls the table function is explained by its clause, as
    ``matchrec.sql`` runs it over the same input (it said "No MATCH_RECOGNIZE in this
    query: matchrec.sql hands it to spark.sql unchanged")."""
    matchrec.register(spark)
    body = BODY.format(partition="PARTITION BY sym")
    query = f"SELECT n FROM\n  match_recognize(TABLE({view}), '{body}') WHERE n > 1"
    result = explain_without_jobs(spark, query)
    head = f"== Table function 1 of 1 (line 2): match_recognize(TABLE({view}), ...) =="
    assert result.text.startswith(head)
    same = explain_without_jobs(spark, f"SELECT * FROM {view} MATCH_RECOGNIZE ({body})")
    assert result.dot == same.dot and result.dot
    assert same.text[same.text.index("NFA program") :] in result.text


def test_explain_of_the_table_function_reads_its_input_through_the_query_ctes(spark, view):
    """``TABLE(recent)`` naming a CTE of the query: the clause is explained as it reads at
    the call, inside the query's WITH (Spark did not find ``recent`` without it)."""
    matchrec.register(spark)
    body = BODY.format(partition="PARTITION BY sym")
    query = (
        f"WITH recent AS (SELECT * FROM {view} WHERE t > 1)\n"
        f"SELECT n FROM match_recognize(TABLE(recent), '{body}')"
    )
    result = explain_without_jobs(spark, query)
    assert result.text.startswith("== Table function 1 of 1 (line 2): ")
    same = explain_without_jobs(
        spark,
        f"WITH recent AS (SELECT * FROM {view} WHERE t > 1)\n"
        f"SELECT * FROM recent MATCH_RECOGNIZE ({body})",
    )
    assert result.dot == same.dot and result.dot
    assert "WHERE t > 1" in result.text


def test_explain_reports_query_errors_like_sql(spark, view):
    with pytest.raises(matchrec.SemanticError):
        matchrec.explain(spark, f"SELECT * FROM {view} MATCH_RECOGNIZE (ORDER BY nope PATTERN (A))")


@pytest.mark.parametrize(
    ("outer", "culprit", "error"),
    [
        ("SELECT t ,, m FROM {v}", ",, m", matchrec.SqlSyntaxError),
        ("SELECT nope FROM {v}", "nope", matchrec.SemanticError),
    ],
)
def test_explain_reports_errors_of_the_query_around_the_clause_like_sql(
    spark, view, outer, culprit, error
):
    """It explained the clause and returned: the CLI's explain exited 0 where run said
    where the outer query was wrong."""
    query = outer.format(v=view) + " MATCH_RECOGNIZE (ORDER BY t MEASURES 1 AS m PATTERN (A))"
    with pytest.raises(error) as info:
        explain_without_jobs(spark, query)
    with pytest.raises(error) as same:
        matchrec.sql(spark, query)
    assert info.value.pos == same.value.pos and info.value.message == same.value.message
    assert query[info.value.pos :].startswith(culprit[1:] if culprit[0] == "," else culprit)


def test_explain_takes_parameters_and_dataframes_as_sql_does(spark, view):
    """``args`` bind the markers (the explanation shows the bound value), ``kwargs`` are
    DataFrames; an error is placed in the query as written."""
    body = BODY.format(partition="PARTITION BY sym").replace("price > 0", "price > :floor")
    query = f"SELECT * FROM {{prices}} MATCH_RECOGNIZE ({body}) m"
    text = matchrec.explain(spark, query, {"floor": 4.25}, prices=spark.table(view)).text
    assert "4.25" in text and ":floor" not in text
    bad = query.replace("ORDER BY t", "ORDER BY nope")
    with pytest.raises(matchrec.SemanticError) as err:
        matchrec.explain(spark, bad, {"floor": 4.25}, prices=spark.table(view))
    assert err.value.sql == bad and bad[err.value.pos :].startswith("nope")


WITH_BOTH = "ONE ROW PER MATCH WITH TIMEOUTS WITH LATE ROWS"


@pytest.mark.parametrize(
    ("rows", "shown"),
    [
        ("", "ONE ROW PER MATCH"),
        (WITH_BOTH, WITH_BOTH),
        (
            "ALL ROWS PER MATCH WITH LATE ROWS",
            "ALL ROWS PER MATCH (SHOW EMPTY MATCHES) WITH LATE ROWS",
        ),
        ("ALL ROWS PER MATCH OMIT EMPTY MATCHES", "ALL ROWS PER MATCH OMIT EMPTY MATCHES"),
    ],
)
def test_the_rows_option_is_shown_with_its_extensions(rows, shown):
    from matchrec.runtime.explain import rows_text

    clause = parse_clause(f"ORDER BY ts {rows} PATTERN (A) WITHIN INTERVAL '1' MINUTE")
    assert rows_text(clause.rows_per_match) == shown
