"""Tests of the MATCH_RECOGNIZE clause grammar (``matchrec.grammar.parse_clause``).

Pure Python: no Spark. Pattern shapes are compared with positions cleared (``_nopos``);
positions get their own tests.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matchrec.grammar import parse_clause
from matchrec.grammar.nesting import (
    refuse_nested_recognition,
    refuse_row_pattern_clauses_without_pattern,
)
from matchrec.grammar.query_scan import find_match_recognize, string_value, table_function_calls

from matchrec.ast import (
    Alternation,
    Anchor,
    Concat,
    Empty,
    Exclusion,
    Label,
    MatchRecognizeClause,
    Measure,
    Permute,
    Quantified,
    RowsPerMatch,
    SkipTo,
    SortKey,
    SqlExpr,
    Within,
)
from matchrec.errors import SemanticError, SqlSyntaxError

CONFORMANCE = Path("/work/shared/conformance/standard")


def _nopos(node):
    """``node`` with every ``pos`` set to -1 (recursively), to compare shapes only."""
    if isinstance(node, tuple):
        return tuple(_nopos(item) for item in node)
    if not dataclasses.is_dataclass(node):
        return node
    changes = {f.name: _nopos(getattr(node, f.name)) for f in dataclasses.fields(node)}
    if "pos" in changes:
        changes["pos"] = -1
    return dataclasses.replace(node, **changes)


def pattern(text: str):
    """The pattern node of ``PATTERN (<text>)``, without positions."""
    return _nopos(parse_clause(f"PATTERN ({text})").pattern)


def syntax_error(text: str, **kwargs) -> SqlSyntaxError:
    with pytest.raises(SqlSyntaxError) as info:
        parse_clause(text, **kwargs)
    return info.value


def caret_under(err: SqlSyntaxError) -> str:
    """The character of the source line that the rendered caret points at."""
    lines = str(err).splitlines()
    caret_row = next(i for i, line in enumerate(lines) if line.strip() == "^")
    source_line, caret_line = lines[caret_row - 1], lines[caret_row]
    gutter = source_line.index("| ") + 2
    column = caret_line.index("^")
    assert column - gutter == err.column - 1
    return source_line[column : column + 1]  # "" just past the end of the line


def all_exprs(clause: MatchRecognizeClause) -> list[SqlExpr]:
    return [
        *clause.partition_by,
        *(key.expr for key in clause.order_by),
        *(measure.expr for measure in clause.measures),
        *(define.expr for define in clause.defines),
    ]


A, B, C, D = Label("A"), Label("B"), Label("C"), Label("D")


# ------------------------------------------------------------------------ patterns


@pytest.mark.parametrize(
    "text, expected",
    [
        ("A", A),
        ("A B C", Concat((A, B, C))),
        ("A | B | C", Alternation((A, B, C))),
        ("A B | C", Alternation((Concat((A, B)), C))),
        ("A (B | C)", Concat((A, Alternation((B, C))))),
        ("(A)", A),
        ("((A))", A),
        ("(((A) (B (C))))", Concat((A, Concat((B, C))))),
        ("()", Empty()),
        ("() | A", Alternation((Empty(), A))),
        ("^A$", Concat((Anchor("start"), A, Anchor("end")))),
        ("$A", Concat((Anchor("end"), A))),
        ("A {- B+ -} C", Concat((A, Exclusion(Quantified(B, 1, None)), C))),
        (
            "A {- {- B+ -} C+ -}",
            Concat(
                (A, Exclusion(Concat((Exclusion(Quantified(B, 1, None)), Quantified(C, 1, None)))))
            ),
        ),
        ("PERMUTE(A, B, C)", Permute((A, B, C))),
        ("PERMUTE(A, B C, D | A)", Permute((A, Concat((B, C)), Alternation((D, A))))),
        ("permute (A)", Permute((A,))),
        ("(){5,} | B", Alternation((Quantified(Empty(), 5, None), B))),
        ("(Y?){2,}", Quantified(Quantified(Label("Y"), 0, 1), 2, None)),
        ("^* | B", Alternation((Quantified(Anchor("start"), 0, None), B))),
        ("B A $+", Concat((B, A, Quantified(Anchor("end"), 1, None)))),
        ("{- A -}{1,2}", Quantified(Exclusion(A), 1, 2)),
        ("(B ()*)*?", Quantified(Concat((B, Quantified(Empty(), 0, None))), 0, None, False)),
        # whitespace between pattern tokens is optional
        ("A+B*", Concat((Quantified(A, 1, None), Quantified(B, 0, None)))),
        ("(A|B){2,3}?C", Concat((Quantified(Alternation((A, B)), 2, 3, False), C))),
        ("A{-B-}C", Concat((A, Exclusion(B), C))),
        # any identifier is a label inside PATTERN, keywords included
        ("(A | B)+ LAST", Concat((Quantified(Alternation((A, B)), 1, None), Label("LAST")))),
        ("PERMUTE", Label("PERMUTE")),
        ("PERMUTE PATTERN", Concat((Label("PERMUTE"), Label("PATTERN")))),
        ("A -- a comment\n B /* another */", Concat((A, B))),
    ],
)
def test_pattern_shapes(text, expected):
    assert pattern(text) == expected


@pytest.mark.parametrize(
    "quantifier, low, high, greedy",
    [
        ("*", 0, None, True),
        ("*?", 0, None, False),
        ("+", 1, None, True),
        ("+?", 1, None, False),
        ("?", 0, 1, True),
        ("??", 0, 1, False),
        ("{3}", 3, 3, True),
        ("{3}?", 3, 3, False),
        ("{2,}", 2, None, True),
        ("{2,}?", 2, None, False),
        ("{,4}", 0, 4, True),
        ("{,4}?", 0, 4, False),
        ("{2,4}", 2, 4, True),
        ("{ 2 , 4 }?", 2, 4, False),
        ("{,}", 0, None, True),
        ("{5,5}", 5, 5, True),
    ],
)
def test_quantifiers(quantifier, low, high, greedy):
    assert pattern(f"A{quantifier}") == Quantified(A, low, high, greedy)
    assert pattern(f"A {quantifier}") == Quantified(A, low, high, greedy)


@pytest.mark.parametrize(
    "sql, expected",
    [
        ("PATTERN(A B+)", Concat((A, Quantified(B, 1, None)))),
        ("PATTERN (A+B*)", Concat((Quantified(A, 1, None), Quantified(B, 0, None)))),
        ("PATTERN((A|B){2,3}?C)", Concat((Quantified(Alternation((A, B)), 2, 3, False), C))),
        ("PATTERN(A)DEFINE A AS(x>0)", A),
    ],
)
def test_no_whitespace_needed(sql, expected):
    assert _nopos(parse_clause(sql).pattern) == expected


def test_pattern_empty_parentheses_accepted():
    assert pattern("") == Empty()


def test_pattern_positions():
    text = "PATTERN (A (B|c)+? {- D -} PERMUTE(A, B) ^)"
    clause = parse_clause(text)
    assert clause.pattern_pos == 0
    concat = clause.pattern
    assert isinstance(concat, Concat)
    a, quantified, exclusion, permute, anchor = concat.items
    assert concat.pos == text.index("A (")
    assert a.pos == text.index("A (")
    assert quantified.pos == text.index("+?")  # a quantifier points at the quantifier
    assert quantified.inner.pos == text.index("B|")
    assert [label.pos for label in quantified.inner.items] == [text.index("B|"), text.index("c")]
    assert exclusion.pos == text.index("{-")
    assert exclusion.inner.pos == text.index("D")
    assert permute.pos == text.index("PERMUTE")
    assert anchor.pos == text.index("^")
    assert parse_clause("PATTERN (A ())").pattern.items[1].pos == len("PATTERN (A ")


# ------------------------------------------------------------------------- labels


def test_label_case_rules():
    clause = parse_clause(
        'AFTER MATCH SKIP TO FIRST "b" PATTERN (a "b"+ "c""d" `e`) '
        'SUBSET u = (a, "b"), "V" = (C) DEFINE "b" AS "b".value < 1, c AS true'
    )
    assert pattern('a "b"+ "c""d"') == Concat((A, Quantified(Label("b"), 1, None), Label('c"d')))
    assert [label.name for label in clause.pattern.items[::2]] == ["A", 'c"d']
    assert clause.pattern.items[3] == Label("e", clause.pattern.items[3].pos)
    assert clause.after_match_skip.label == "b"
    assert [(s.name, s.labels) for s in clause.subsets] == [("U", ("A", "b")), ("V", ("C",))]
    assert [d.label for d in clause.defines] == ["b", "C"]


def test_keywords_are_case_insensitive():
    clause = parse_clause(
        "partition by p order by o measures x as y all rows per match omit empty matches "
        "after match skip to next row seek pattern (a b) within interval '5' minutes "
        "subset s = (a) define b as b.v > 0"
    )
    assert clause.rows_per_match == RowsPerMatch("all", "omit")
    assert clause.after_match_skip.mode == "next_row"
    assert clause.initial is False
    assert clause.within == Within("5", "MINUTE", clause.within.pos)
    assert clause.defines[0].label == "B"
    assert clause.measures[0].alias == "y"


# ------------------------------------------------------------------------ clauses


def test_defaults():
    clause = parse_clause("PATTERN (A)")
    assert clause == MatchRecognizeClause(pattern=Label("A", 9), pattern_pos=0, sql="PATTERN (A)")
    assert clause.rows_per_match == RowsPerMatch("one", "show")
    assert clause.after_match_skip == SkipTo("past_last", None, -1)
    assert clause.initial is True
    assert clause.within is None


@pytest.mark.parametrize(
    "text, expected",
    [
        ("ONE ROW PER MATCH", RowsPerMatch("one")),
        ("ALL ROWS PER MATCH", RowsPerMatch("all", "show")),
        ("ALL ROWS PER MATCH SHOW EMPTY MATCHES", RowsPerMatch("all", "show")),
        ("ALL ROWS PER MATCH OMIT EMPTY MATCHES", RowsPerMatch("all", "omit")),
        ("ALL ROWS PER MATCH WITH UNMATCHED ROWS", RowsPerMatch("all", "unmatched")),
    ],
)
def test_rows_per_match(text, expected):
    assert parse_clause(f"{text} PATTERN (A)").rows_per_match == expected


@pytest.mark.parametrize(
    "text, mode, label",
    [
        ("PAST LAST ROW", "past_last", None),
        ("TO NEXT ROW", "next_row", None),
        ("TO FIRST C", "first", "C"),
        ("TO LAST b", "last", "B"),
        ("TO B", "last", "B"),
        ('TO "b"', "last", "b"),
        # keyword-like label names: the keyword wins only when the rest still parses
        ("TO LAST", "last", "LAST"),
        ("TO FIRST", "last", "FIRST"),
        ("TO NEXT", "last", "NEXT"),
        ("TO LAST LAST", "last", "LAST"),
        ("TO FIRST LAST", "first", "LAST"),
    ],
)
def test_after_match_skip(text, mode, label):
    sql = f"AFTER MATCH SKIP {text} PATTERN (A)"
    skip = parse_clause(sql).after_match_skip
    assert (skip.mode, skip.label) == (mode, label)
    if label is None:
        assert skip.pos == 0  # points at AFTER
    else:
        assert sql[skip.pos :].upper().lstrip('"').startswith(label.upper())
        assert skip.pos == sql.rindex(" ", 0, sql.index(" PATTERN")) + 1


def test_initial_and_seek():
    assert parse_clause("INITIAL PATTERN (A)").initial is True
    assert parse_clause("SEEK PATTERN (A)").initial is False


@pytest.mark.parametrize(
    "text, amount, unit",
    [
        ("WITHIN INTERVAL '10' SECOND", "10", "SECOND"),
        ("WITHIN INTERVAL '10' SECONDS", "10", "SECOND"),
        ("within interval '250' milliseconds", "250", "MILLISECOND"),
        ("WITHIN INTERVAL '1' MINUTE", "1", "MINUTE"),
        ("WITHIN INTERVAL '2' HOURS", "2", "HOUR"),
        ("WITHIN INTERVAL '3' DAY", "3", "DAY"),
        ("WITHIN INTERVAL 7 DAYS", "7", "DAY"),
    ],
)
def test_within(text, amount, unit):
    sql = f"PATTERN (A B+ C) {text}"
    within = parse_clause(sql).within
    assert within == Within(amount, unit, sql.upper().index("WITHIN"))


def test_subset_and_define_positions():
    sql = (
        "PATTERN (L H A)\nSUBSET\n  U = (L, H),\n  W = (A, L, H)\n"
        "DEFINE\n  A AS A.value = 80,\n  L AS L.value < 80"
    )
    clause = parse_clause(sql)
    u, w = clause.subsets
    assert (u.name, u.labels, u.pos) == ("U", ("L", "H"), sql.index("U ="))
    assert u.label_pos == (sql.index("L, H"), sql.index("H)"))
    assert (w.name, w.labels) == ("W", ("A", "L", "H"))
    a, low = clause.defines
    assert (a.label, a.label_pos) == ("A", sql.index("A AS"))
    assert a.expr == SqlExpr("A.value = 80", sql.index("A.value"))
    assert low.expr == SqlExpr("L.value < 80", sql.index("L.value"))


# -------------------------------------------------------------------- expressions


def _measures(text: str) -> list[tuple[str, str]]:
    clause = parse_clause(f"MEASURES {text} PATTERN (A)")
    return [(m.expr.text, m.alias) for m in clause.measures]


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "CAST(lower(LAST(CLASSIFIER())) || '_label' AS varchar(7)) AS label",
            [("CAST(lower(LAST(CLASSIFIER())) || '_label' AS varchar(7))", "label")],
        ),
        ("(SELECT 'x') AS val", [("(SELECT 'x')", "val")]),
        (
            "FINAL LAST(A.value + (SELECT 1000)) AS val",
            [("FINAL LAST(A.value + (SELECT 1000))", "val")],
        ),
        (
            "match_number() AS match, RUNNING LAST(value) AS val",
            [("match_number()", "match"), ("RUNNING LAST(value)", "val")],
        ),
        (
            "CASE WHEN a > 1 THEN 'x, y' ELSE b END AS c",
            [("CASE WHEN a > 1 THEN 'x, y' ELSE b END", "c")],
        ),
        (
            "FIRST(A.value) IN (300, LAST(A.value)) AS val",
            [("FIRST(A.value) IN (300, LAST(A.value))", "val")],
        ),
        ("'foo' AS foo", [("'foo'", "foo")]),
        ("value AS val", [("value", "val")]),
        ('x AS "My Col"', [("x", "My Col")]),
        ("x AS `a``b`", [("x", "a`b")]),
        ("x AS Mixed_Case", [("x", "Mixed_Case")]),
        ("x AS pattern", [("x", "pattern")]),
        # AS may be left out: the alias is the last name
        ("RUNNING LAST(v) lv, x y", [("RUNNING LAST(v)", "lv"), ("x", "y")]),
        ("a.b c", [("a.b", "c")]),
        ('x "quoted alias"', [("x", "quoted alias")]),
        ("CASE WHEN a THEN b END e", [("CASE WHEN a THEN b END", "e")]),
        ("x IS NULL n", [("x IS NULL", "n")]),
        ("'it''s' s", [("'it''s'", "s")]),
        ("x pattern", [("x", "pattern")]),
        # strings, comments, quotes hide parens, commas and keywords
        ("f(')', \"a,b\", `c)`) AS q", [("f(')', \"a,b\", `c)`)", "q")]),
        ("f(x /* ) , PATTERN */) AS q", [("f(x /* ) , PATTERN */)", "q")]),
        ("'a\\'b, c' AS q", [("'a\\'b, c'", "q")]),
        ("r'a\\' AS q", [("r'a\\'", "q")]),
        ("x[0] AS q, m['k,)'] AS r", [("x[0]", "q"), ("m['k,)']", "r")]),
        ("transform(a, x -> x + 1) AS q", [("transform(a, x -> x + 1)", "q")]),
        (
            "max(x) OVER (PARTITION BY y ORDER BY z) AS w",
            [("max(x) OVER (PARTITION BY y ORDER BY z)", "w")],
        ),
    ],
)
def test_measure_expressions(text, expected):
    assert _measures(text) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("id", [("id", False, None)]),
        ("id ASC, id DESC", [("id", False, None), ("id", True, None)]),
        ("a DESC NULLS FIRST, b NULLS LAST", [("a", True, True), ("b", False, False)]),
        ("a + b asc nulls first", [("a + b", False, True)]),
        ("f(x DESC, y)", [("f(x DESC, y)", False, None)]),
        # columns named like clause keywords do not end the expression
        (
            "one, initial, within",
            [("one", False, None), ("initial", False, None), ("within", False, None)],
        ),
        ("after, all", [("after", False, None), ("all", False, None)]),
    ],
)
def test_order_by(text, expected):
    clause = parse_clause(f"ORDER BY {text} PATTERN (A)")
    assert [(k.expr.text, k.descending, k.nulls_first) for k in clause.order_by] == expected


def test_partition_by_then_next_clauses():
    clause = parse_clause("PARTITION BY a, lower(b), c.d ORDER BY x ONE ROW PER MATCH PATTERN (A)")
    assert [e.text for e in clause.partition_by] == ["a", "lower(b)", "c.d"]
    for follower in (
        "MEASURES x AS y",
        "ALL ROWS PER MATCH",
        "AFTER MATCH SKIP TO NEXT ROW",
        "INITIAL",
        "SEEK",
    ):
        clause = parse_clause(f"PARTITION BY a {follower} PATTERN (A)")
        assert [e.text for e in clause.partition_by] == ["a"]


def test_define_expressions_span_lines_and_end_at_commas():
    sql = (
        "PATTERN ((A | B)+ LAST)\n"
        "DEFINE LAST AS FIRST(CLASSIFIER()) = 'B' AND\n"
        "               FIRST(CLASSIFIER(), 1) = 'B', -- trailing comment\n"
        "  B AS B.value < PREV (B.value) /* done */\n"
    )
    clause = parse_clause(sql)
    last, b = clause.defines
    assert last.label == "LAST"
    assert (
        last.expr.text
        == "FIRST(CLASSIFIER()) = 'B' AND\n               FIRST(CLASSIFIER(), 1) = 'B'"
    )
    assert b.expr == SqlExpr("B.value < PREV (B.value)", sql.index("B.value"))
    # keywords that only start clauses elsewhere are plain words in a condition
    clause = parse_clause("PATTERN (A) DEFINE A AS one > 1 AND initial AND seek OR all AND order")
    assert clause.defines[0].expr.text == "one > 1 AND initial AND seek OR all AND order"


def test_expression_spans_are_exact_source_slices_with_base():
    body = """
        PARTITION BY  part
        ORDER BY id   DESC
        MEASURES  CLASSIFIER()   AS label,  x  y
        PATTERN (A B+)
        DEFINE B AS B.value < PREV (B.value)
    """
    sql = f"SELECT * FROM t MATCH_RECOGNIZE ({body}) AS m"
    base = sql.index("(") + 1
    clause = parse_clause(body, base=base, sql=sql)
    assert clause.sql == sql
    exprs = all_exprs(clause)
    assert [e.text for e in exprs] == [
        "part",
        "id",
        "CLASSIFIER()",
        "x",
        "B.value < PREV (B.value)",
    ]
    for e in exprs:
        assert sql[e.pos : e.pos + len(e.text)] == e.text
    assert clause.measures[1] == Measure(SqlExpr("x", sql.index("x  y")), "y", sql.index("y\n"))
    assert clause.pattern_pos == sql.index("PATTERN")
    assert clause.pattern.items[0].pos == sql.index("A B+")


def test_parse_clause_checks_its_arguments():
    with pytest.raises(ValueError):
        parse_clause("PATTERN (A)", base=3)
    with pytest.raises(ValueError):
        parse_clause("PATTERN (A)", base=0, sql="SELECT 1")


# -------------------------------------------------------------------- conformance


def _clause_bodies(sql: str):
    """(offset, body) of every MATCH_RECOGNIZE ( ... ) in ``sql``."""
    for match in re.finditer(r"MATCH_RECOGNIZE\s*\(", sql, re.IGNORECASE):
        depth, i = 1, match.end()
        while depth:
            char = sql[i]
            if char in "'\"":
                i = sql.index(char, i + 1)
            depth += {"(": 1, ")": -1}.get(char, 0)
            i += 1
        yield match.end(), sql[match.end() : i - 1]


def _conformance_files():
    return sorted(CONFORMANCE.glob("*.slt"))


@pytest.mark.skipif(not CONFORMANCE.is_dir(), reason="conformance suite not present")
@pytest.mark.parametrize("path", _conformance_files(), ids=lambda p: p.stem)
def test_conformance_bodies_parse(path):
    sql = path.read_text(encoding="utf-8")
    bodies = list(_clause_bodies(sql))
    assert bodies
    for base, body in bodies:
        clause = parse_clause(body, base=base, sql=sql)
        for expr in all_exprs(clause):
            assert sql[expr.pos : expr.pos + len(expr.text)] == expr.text
            assert expr.text == expr.text.strip()


@pytest.mark.skipif(not CONFORMANCE.is_dir(), reason="conformance suite not present")
def test_conformance_examples():
    sql = (CONFORMANCE / "case_sensitive_labels.slt").read_text(encoding="utf-8")
    ((base, body),) = _clause_bodies(sql)
    clause = parse_clause(body, base=base, sql=sql)
    assert _nopos(clause.pattern) == Concat(
        (A, Quantified(Label("b"), 1, None), Quantified(C, 1, None))
    )
    assert [d.label for d in clause.defines] == ["b", "C"]
    assert clause.order_by == (SortKey(SqlExpr("id", sql.index("id\n  MEASURES")), False, None),)


# ------------------------------------------------------------------------- errors


def test_error_missing_pattern():
    err = syntax_error("ORDER BY id\nDEFINE A AS true")
    assert "unexpected 'DEFINE'" in err.message
    assert (
        "expected one of: ',', ASC, DESC, NULLS, MEASURES, ONE, ALL, ROWS, AFTER, INITIAL, SEEK, "
        "PATTERN" in err.message
    )
    assert (err.line, err.column) == (2, 1)
    assert caret_under(err) == "D"
    assert "PATTERN clause is required" in err.hint


def test_error_empty_body():
    err = syntax_error("   ")
    assert "unexpected end of clause" in err.message
    assert "PARTITION" in err.message and "PATTERN" in err.message


def test_error_unclosed_pattern_points_at_the_parenthesis():
    err = syntax_error("PATTERN (A B\nDEFINE A AS true")
    assert err.message == "'(' is never closed"
    assert (err.line, err.column) == (1, 9)
    assert caret_under(err) == "("


def test_error_min_greater_than_max():
    sql = "PATTERN (A B{3,2})"
    err = syntax_error(sql)
    assert "lower bound must not exceed upper bound: {3,2}" in err.message
    assert "minimum (3)" in err.message
    assert err.pos == sql.index("{")
    assert caret_under(err) == "{"
    assert err.hint == "write {2,3}"


@pytest.mark.parametrize("quantifier", ["{0}", "{0,0}", "{,0}", "{0}?"])
def test_error_quantifier_upper_bound_zero(quantifier):
    sql = f"PATTERN (A B{quantifier})"
    err = syntax_error(sql)
    assert "upper bound must be greater than or equal to 1" in err.message
    assert caret_under(err) == "{"


def test_error_quantifier_bound_too_large():
    err = syntax_error("PATTERN (A{99999999999999999999999})")
    assert "too large" in err.message
    assert caret_under(err) == "9"


@pytest.mark.parametrize(
    "sql, word, suggestion",
    [
        ("PATERN (A) DEFINE A AS true", "PATERN", "PATTERN"),
        ("ORDER BY id\n  PATERN (A)\n  DEFINE A AS true", "PATERN", "PATTERN"),
        ("MEASURES x AS y PATERN (A)", "PATERN", "PATTERN"),
        ("PARTITION BY x ORDRE BY y PATTERN (A)", "ORDRE", "ORDER"),
        ("PATTERN (A) DEFIN A AS true", "DEFIN", "DEFINE"),
        ("ALL ROWS PER MATCH OMIT EMPTY MATCH PATTERN (A)", "MATCH", "MATCHES"),
    ],
)
def test_error_misspelled_keyword(sql, word, suggestion):
    err = syntax_error(sql)
    assert f"unexpected '{word}'" in err.message
    assert suggestion in err.message.split("expected", 1)[1]
    assert err.hint == f"did you mean {suggestion}?"
    assert err.pos == sql.index(word, sql.index(word) if word != "MATCH" else sql.index("EMPTY"))
    assert caret_under(err) == word[0]


def test_error_unmatched_rows_with_one_row_per_match():
    sql = "ONE ROW PER MATCH WITH UNMATCHED ROWS PATTERN (A)"
    err = syntax_error(sql)
    assert err.message == "unexpected 'UNMATCHED'; expected one of: TIMEOUTS, LATE"
    assert err.pos == sql.index("UNMATCHED")
    assert "only go with ALL ROWS PER MATCH" in err.hint
    assert syntax_error("ONE ROW PER MATCH OMIT EMPTY MATCHES PATTERN (A)").hint == err.hint


@pytest.mark.parametrize(
    "sql", ["PATTERN (A**)", "PATTERN (A+*)", "PATTERN (A*??)", "PATTERN (A{2}{3})"]
)
def test_error_quantifier_on_quantifier(sql):
    err = syntax_error(sql)
    assert err.pos == len("PATTERN (A") + (2 if "??" in sql else 1) + (2 if "{2}" in sql else 0)
    assert "one quantifier" in err.hint


def test_error_clause_out_of_order():
    sql = "PATTERN (A) DEFINE A AS x > 0\nORDER BY x"
    err = syntax_error(sql)
    assert err.message == "unexpected 'ORDER'; expected one of: ',', end of clause"
    assert (err.line, err.column) == (2, 1)
    assert "PARTITION BY, ORDER BY, MEASURES" in err.hint


def test_error_measure_without_alias():
    err = syntax_error("MEASURES a + b PATTERN (A)")
    assert err.message == "unexpected 'PATTERN'; expected one of: a column name, AS"
    assert "AS <name>" in err.hint
    err = syntax_error("MEASURES a OR b, c AS d PATTERN (A)")
    assert err.pos == len("MEASURES a OR b")


@pytest.mark.parametrize(
    "sql, message, at",
    [
        (
            "PATTERN (A|)",
            "unexpected ')'; expected one of: a pattern variable, '(', '^', '$', '{-', PERMUTE",
            ")",
        ),
        ("PATTERN (A{})", "unexpected '}'; expected one of: a number, ','", "}"),
        ("PATTERN (A @ B)", "unexpected '@'", "@"),
        ("PATTERN (A) SUBSET U = (A,)", "unexpected ')'; expected a pattern variable", ")"),
        (
            "PATTERN (A) WITHIN INTERVAL '1' WEEK",
            "unexpected 'WEEK'; expected one of: MILLISECOND,",
            "W",
        ),
        (
            "PATTERN (A) WITHIN INTERVAL '1.5' SECOND",
            "the WITHIN interval must be a whole number",
            "'",
        ),
        (
            "PATTERN (A) WITHIN INTERVAL '-5' MINUTE",
            "the WITHIN interval must be a positive whole number, not '-5'",
            "'",
        ),
        ("PARTITION BY ORDER BY x PATTERN (A)", "unexpected 'ORDER'; expected an expression", "O"),
        ("PATTERN (A) DEFINE A AS (x > 1", "'(' is never closed", "("),
        ("PATTERN (A) DEFINE A AS f(x]", "']' does not match '('", "]"),
        ("PATTERN (A) DEFINE A AS 'abc", "unterminated string literal", "'"),
        ('PATTERN (A "b)', "unterminated quoted name", '"'),
        ("PATTERN (A) /* x", "unterminated comment", "/"),
        ('PATTERN (A) DEFINE "" AS 1', "a quoted name cannot be empty", '"'),
        ("PATTERN (A) DEFINE A true", "unexpected 'true'; expected AS", "t"),
        ("PATTERN (A) DEFINE A AS", "unexpected end of clause; expected an expression", ""),
        ("PATTERN (A) DEFINE A AS x,", "unexpected end of clause; expected a pattern variable", ""),
        ("PATTERN (A B) PATTERN (C)", "unexpected 'PATTERN'", "P"),
        ("PATTERN (A) )", "')' without a matching '('", ")"),
        ("PATTERN (A 2a)", "unexpected '2a'", "2"),
        ("PATTERN (A) WITHIN '1' SECOND", "unexpected string '1'; expected INTERVAL", "'"),
    ],
)
def test_error_messages_and_positions(sql, message, at):
    err = syntax_error(sql)
    assert err.message.startswith(message)
    assert caret_under(err) == at


def test_error_positions_in_the_whole_query():
    body = "\n  ORDER BY id\n  PATTERN (A B{3,1})\n"
    sql = f"SELECT *\nFROM t MATCH_RECOGNIZE ({body}) AS m"
    base = sql.index(body)
    err = syntax_error(body, base=base, sql=sql)
    assert err.sql == sql
    assert err.pos == sql.index("{3,1}")
    assert (err.line, err.column) == (4, 15)
    assert caret_under(err) == "{"
    err = syntax_error("PATTERN (A", base=5, sql="xxxx(PATTERN (A)")
    assert err.pos == 13 and err.message == "'(' is never closed"


# ------------------------------------------------------------------------ fuzzing

_PIECES = [
    "PARTITION BY",
    "ORDER BY",
    "MEASURES",
    "ONE ROW PER MATCH",
    "ALL ROWS PER MATCH",
    "WITH UNMATCHED ROWS",
    "AFTER MATCH SKIP",
    "TO",
    "FIRST",
    "LAST",
    "NEXT ROW",
    "PAST",
    "INITIAL",
    "SEEK",
    "PATTERN",
    "SUBSET",
    "DEFINE",
    "AS",
    "ASC",
    "DESC",
    "NULLS",
    "WITHIN INTERVAL",
    "'10'",
    "SECOND",
    "PERMUTE",
    "A",
    "b",
    '"c"',
    "`d`",
    "x.y",
    "1",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "{-",
    "-}",
    ",",
    "|",
    "^",
    "$",
    "*",
    "+",
    "?",
    "=",
    "f(x)",
    "'s''t'",
    "-- c\n",
    "/* c */",
    "\n",
    "<",
    "CASE WHEN",
    "THEN",
    "END",
    "'",
    '"',
    "/*",
    "\\",
]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=25), st.text(max_size=3))
def test_never_anything_but_syntax_errors(pieces, noise):
    body = " ".join(pieces) + noise
    sql = f"SELECT * FROM t MATCH_RECOGNIZE ({body})"
    base = sql.index("(") + 1
    try:
        clause = parse_clause(body, base=base, sql=sql)
    except SqlSyntaxError as err:
        assert base <= err.pos <= base + len(body)
        assert err.message and str(err)
    else:
        for expr in all_exprs(clause):
            assert sql[expr.pos : expr.pos + len(expr.text)] == expr.text


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.sampled_from(["A", "b", "()", "^", "$", "PERMUTE(A, B)", "{- C -}"]),
        min_size=1,
        max_size=6,
    ),
    st.lists(st.sampled_from(["", "*", "+?", "{2}", "{1,3}?", "{,2}"]), min_size=6, max_size=6),
    st.booleans(),
)
def test_generated_patterns_parse(primaries, quantifiers, alternate):
    items = [f"{p}{q}" for p, q in zip(primaries, quantifiers[: len(primaries)], strict=True)]
    text = " | ".join(items) if alternate else " ".join(items)
    node = parse_clause(f"PATTERN ({text})").pattern
    kinds = (Alternation, Concat, Label, Empty, Anchor, Permute, Exclusion, Quantified)
    assert isinstance(node, kinds)
    if len(items) > 1:
        assert isinstance(node, Alternation if alternate else Concat)
        assert len(node.items) == len(items)


@pytest.mark.parametrize(
    ("query", "relation", "aliased"),
    [
        ("FROM t MATCH_RECOGNIZE (X)", "t", False),
        ("FROM db.t MATCH_RECOGNIZE (X) AS m", "db.t", False),
        ("FROM `my t` MATCH_RECOGNIZE (X)", "`my t`", False),
        ("FROM db.t x MATCH_RECOGNIZE (X)", "db.t x", True),
        ("FROM db.t AS x MATCH_RECOGNIZE (X)", "db.t AS x", True),
        ("FROM (SELECT 1) MATCH_RECOGNIZE (X)", "(SELECT 1)", False),
        ("FROM (SELECT 1) s MATCH_RECOGNIZE (X)", "(SELECT 1) s", True),
        # Trino's and the standard's form: an alias with column names
        ("FROM (VALUES (1, 90), (2, 80)) t(id, v) MATCH_RECOGNIZE (X)", None, True),
        ("FROM (VALUES (1, 90)) AS t (id, v) MATCH_RECOGNIZE (X)", None, True),
        ("FROM VALUES (1, 90), (2, 80) AS t(id, v) MATCH_RECOGNIZE (X)", None, True),
        ("FROM range(10) MATCH_RECOGNIZE (X)", "range(10)", False),
        ("FROM range(10) r(x) MATCH_RECOGNIZE (X)", "range(10) r(x)", True),
        ("FROM a JOIN b AS bb MATCH_RECOGNIZE (X) AS m ON true", "b AS bb", True),
        ("FROM a, b MATCH_RECOGNIZE (X) AS m", "b", False),
        # Spark's sampling clause belongs to the relation, before its alias
        ("FROM t TABLESAMPLE (10 PERCENT) MATCH_RECOGNIZE (X)", None, False),
        ("FROM t TABLESAMPLE (5 ROWS) REPEATABLE (3) MATCH_RECOGNIZE (X)", None, False),
        ("FROM db.t TABLESAMPLE (BUCKET 1 OUT OF 2) AS s MATCH_RECOGNIZE (X)", None, True),
        ("FROM (SELECT 1) TABLESAMPLE (50 PERCENT) s MATCH_RECOGNIZE (X)", None, True),
    ],
)
def test_the_input_relation_is_found_with_its_alias(query: str, relation, aliased: bool) -> None:
    """The relation before MATCH_RECOGNIZE, with its own alias (and column names) if it
    has one; ``None``: everything after FROM."""
    from matchrec.grammar.query_scan import find_match_recognize

    sql = f"SELECT * {query}"
    (found,) = find_match_recognize(sql)
    want = relation or query[len("FROM ") : query.index(" MATCH_RECOGNIZE")]
    assert sql[found.relation_start : found.relation_end] == want
    assert found.relation_aliased is aliased


@pytest.mark.parametrize(
    ("query", "at"),
    [
        ("FROM a JOIN b USING (k, o) MATCH_RECOGNIZE (X)", "(k, o)"),
        ("FROM a JOIN b ON a.k = b.k MATCH_RECOGNIZE (X)", "b.k MATCH"),
        ("FROM a JOIN b ON a.k = b.k AND (a.o < b.o) MATCH_RECOGNIZE (X)", "b.k AND"),
    ],
)
def test_match_recognize_after_a_join_condition_is_a_positioned_error(query, at) -> None:
    """Not a read of the condition's last name (``b.k``) as a table, or of ``USING``'s
    columns as a subquery."""
    from matchrec.grammar.query_scan import find_match_recognize

    sql = f"SELECT * {query}"
    with pytest.raises(SqlSyntaxError, match="follows a join condition") as info:
        find_match_recognize(sql)
    assert info.value.column == sql.index(at) + 1
    assert "subquery" in info.value.hint


@pytest.mark.parametrize(
    ("rows", "mode", "empty", "timeouts"),
    [
        ("ONE ROW PER MATCH WITH LATE ROWS", "one", "show", False),
        ("ONE ROW PER MATCH WITH TIMEOUTS WITH LATE ROWS", "one", "show", True),
        ("ALL ROWS PER MATCH WITH LATE ROWS", "all", "show", False),
        ("ALL ROWS PER MATCH WITH UNMATCHED ROWS WITH LATE ROWS", "all", "unmatched", False),
    ],
)
def test_with_late_rows_follows_either_rows_per_match(rows, mode, empty, timeouts):
    body = f"ORDER BY ts {rows} PATTERN (A) DEFINE A AS x > 0"
    found = parse_clause(body).rows_per_match
    assert (found.mode, found.empty, found.timeouts, found.late_rows) == (
        mode,
        empty,
        timeouts,
        True,
    )
    assert body[found.late_pos :].startswith("LATE ROWS")
    assert not parse_clause("ORDER BY ts PATTERN (A)").rows_per_match.late_rows


@pytest.mark.parametrize("first", ["-amt", "+amt", "~vol", "- 1"])
def test_first_measure_may_start_with_a_prefix_operator(first):
    # MEASURES after ORDER BY: the key ends at MEASURES, not at `ts MEASURES - amt`
    clause = parse_clause(
        f"PARTITION BY k ORDER BY ts MEASURES {first} AS v, -x w PATTERN (A) DEFINE A AS true"
    )
    assert [o.expr.text for o in clause.order_by] == ["ts"]
    assert [(m.alias, m.expr.text) for m in clause.measures] == [("v", first), ("w", "-x")]


@pytest.mark.parametrize(
    ("sql", "fields"),
    [
        ("CREATE OR REPLACE TEMP VIEW v AS SELECT 1", ("v", None, True, False, False)),
        (
            "create temporary view `my v` (a, b COMMENT 'x') AS SELECT 1, 2",
            ("my v", ["a", "b"], False, False, False),
        ),
        (
            "CREATE GLOBAL TEMP VIEW g COMMENT 'c' AS WITH x AS (SELECT 1) SELECT * FROM x",
            ("g", None, False, True, False),
        ),
        (
            "CACHE LAZY TABLE c OPTIONS ('storageLevel' 'DISK_ONLY') SELECT 1",
            ("c", None, False, False, True),
        ),
        ("CREATE VIEW p AS SELECT 1", None),
        ("CACHE TABLE c", None),
        ("SELECT 1", None),
    ],
)
def test_temporary_view_definitions_are_read(sql, fields):
    from matchrec.grammar.query_scan import temp_view_definition

    found = temp_view_definition(sql)
    if fields is None:
        assert found is None
        return
    name, columns, replace, is_global, cache = fields
    assert (found.name, found.columns, found.replace, found.is_global) == (
        name,
        columns,
        replace,
        is_global,
    )
    assert found.cache == cache
    assert sql[found.query_start :].split()[0].upper() in ("SELECT", "WITH")


def test_a_temporary_view_if_not_exists_is_refused_as_spark_refuses_it():
    from matchrec.grammar.query_scan import temp_view_definition

    sql = "create temporary view if not exists v AS SELECT 1"
    with pytest.raises(SqlSyntaxError) as info:
        temp_view_definition(sql)
    assert sql[info.value.pos :].startswith("if not exists")


@pytest.mark.parametrize(
    ("body", "at", "hint"),
    [
        (
            "ORDER BY id RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING PATTERN (A)",
            "RANGE",
            "requires ROWS frame type",
        ),
        (
            "ORDER BY id ONE ROW PER MATCH ROWS BETWEEN CURRENT ROW AND 2 FOLLOWING PATTERN (A)",
            "ROWS BETWEEN",
            "stands where MATCH_RECOGNIZE has ONE ROW PER MATCH",
        ),
    ],
)
def test_window_frame_mistakes_have_hints(body: str, at: str, hint: str) -> None:
    err = syntax_error(body)
    assert err.pos == body.index(at)
    assert hint in (err.hint or "")


# -- row pattern recognition nested in another, or in a recursive query ---------------

NESTED_RECOGNITION = [
    # a row pattern window in DEFINE of MATCH_RECOGNIZE
    (
        "SELECT * FROM t MATCH_RECOGNIZE (MEASURES 1 AS c PATTERN (A) DEFINE A AS "
        "m OVER (MEASURES 1 AS m ROWS BETWEEN CURRENT ROW AND 5 FOLLOWING PATTERN (X) "
        "DEFINE X AS true) > 0)",
        "OVER (MEASURES 1 AS m",
        "in row pattern recognition",
    ),
    # MATCH_RECOGNIZE in a subquery of a row pattern window's MEASURES
    (
        "SELECT m OVER (MEASURES (SELECT max(c) FROM u MATCH_RECOGNIZE (MEASURES 1 AS c "
        "PATTERN (X) DEFINE X AS true)) AS m ROWS BETWEEN CURRENT ROW AND 5 FOLLOWING "
        "PATTERN (A) DEFINE A AS true) FROM t",
        "MATCH_RECOGNIZE (MEASURES 1 AS c",
        "in row pattern recognition",
    ),
    # the recursive part of WITH RECURSIVE
    (
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r MATCH_RECOGNIZE "
        "(MEASURES 1 AS c PATTERN (X) DEFINE X AS true) WHERE n < 3) SELECT * FROM r",
        "MATCH_RECOGNIZE (MEASURES",
        "in a recursive query (WITH RECURSIVE r)",
    ),
]


@pytest.mark.parametrize(("sql", "at", "message"), NESTED_RECOGNITION)
def test_nested_row_pattern_recognition_is_refused_where_it_starts(sql, at, message) -> None:
    with pytest.raises(SemanticError) as info:
        refuse_nested_recognition(sql)
    assert message in info.value.message
    assert info.value.pos == sql.index(at)


def test_row_pattern_recognition_beside_a_recursive_query_is_fine() -> None:
    refuse_nested_recognition(
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3), "
        "m AS (SELECT * FROM r MATCH_RECOGNIZE (MEASURES 1 AS c PATTERN (X) DEFINE X AS true)) "
        "SELECT * FROM m"
    )


WITHOUT_PATTERN = [
    (
        "SELECT rank() OVER (MEASURES A.x AS m ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING) FROM t",
        "MEASURES",
        "(MEASURES)",
    ),
    (
        "SELECT rank() OVER w FROM t WINDOW w AS (ORDER BY k ROWS BETWEEN CURRENT ROW AND "
        "1 FOLLOWING AFTER MATCH SKIP TO NEXT ROW)",
        "AFTER",
        "AFTER MATCH SKIP",
    ),
    ("SELECT count(*) OVER (ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING SEEK) FROM t", "SEEK", "SEEK"),
    (
        "SELECT count(*) OVER (ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING DEFINE B AS x > 0) FROM t",
        "DEFINE",
        "(DEFINE)",
    ),
]


@pytest.mark.parametrize(("sql", "at", "what"), WITHOUT_PATTERN)
def test_row_pattern_clauses_of_a_window_without_pattern_are_refused(sql, at, what) -> None:
    with pytest.raises(SemanticError) as info:
        refuse_row_pattern_clauses_without_pattern(sql)
    assert what in info.value.message and "no PATTERN" in info.value.message
    assert info.value.pos == sql.index(at)


def test_windows_named_like_row_pattern_clauses_are_plain_windows() -> None:
    refuse_row_pattern_clauses_without_pattern(
        "SELECT sum(x) OVER (PARTITION BY subset ORDER BY seek, measures ROWS BETWEEN "
        "1 PRECEDING AND CURRENT ROW) FROM t"
    )


@pytest.mark.parametrize(
    "body",
    [
        "ORDER BY y ROWS CURRENT ROW PATTERN (A) DEFINE A AS true",
        "MEASURES z AS m ROWS CURRENT ROW EXCLUDE NO OTHERS PATTERN (A) DEFINE A AS true",
    ],
)
def test_rows_current_row_is_the_frame_of_the_current_row(body) -> None:
    clause = parse_clause(body)
    assert clause.frame is not None and clause.frame.end == "current"
    assert clause.frame.pos == body.index("ROWS")
    assert all(key.expr.text == "y" for key in clause.order_by)


def test_a_bracketed_comment_in_the_clause_may_nest():
    """As in Spark: /* a /* b */ c */ is one comment, a parenthesis inside is text."""
    sql = (
        "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY id /* x /* y */ ) */ PATTERN (A) "
        "DEFINE A AS true)"
    )
    (found,) = find_match_recognize(sql)
    assert sql[found.body_end] == ")" and found.body_end == len(sql) - 1
    clause = parse_clause(sql[found.body_start : found.body_end])
    assert [k.expr.text for k in clause.order_by] == ["id"]


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ("ORDER BY id PATTERN (A) DEFINE", "DEFINE A AS <condition>"),
        ("ORDER BY id PATTERN (A) DEFINE A AS", "write the expression before the clause ends"),
        ("ORDER BY id PATTERN (A B) DEFINE A AS true, B AS", "write the expression before"),
    ],
)
def test_a_clause_that_ends_too_soon_says_what_to_write(body, words):
    """``DEFINE)`` and ``DEFINE A AS)`` told what was expected, with no hint."""
    with pytest.raises(SqlSyntaxError) as info:
        parse_clause(body)
    assert info.value.pos == len(body) and words in info.value.hint


@pytest.mark.parametrize(
    ("query", "found"),
    [
        ("SELECT * FROM match_recognize(TABLE(t), 'PATTERN (A)')", [("t", "'PATTERN (A)'")]),
        (
            "SELECT * FROM MATCH_RECOGNIZE(body => 'PATTERN (A)' ' DEFINE A AS x > ''a''', "
            "table => TABLE (SELECT * FROM t WHERE x > 1) PARTITION BY x)",
            [("(SELECT * FROM t WHERE x > 1)", "'PATTERN (A)' ' DEFINE A AS x > ''a'''")],
        ),
        ("SELECT * FROM match_recognize(TABLE db.t, 'B')", [("db.t", "'B'")]),
        ("SELECT * FROM match_recognize(TABLE `my t`, 'B')", [("`my t`", "'B'")]),
        ("SELECT * FROM match_recognize(TABLE(db.t), 'B')", [("db.t", "'B'")]),
        # not the table function's calls: another catalog's, no TABLE argument, a clause
        ("SELECT * FROM c.match_recognize(TABLE(t), 'B')", []),
        ("SELECT * FROM match_recognize(t, 'B')", []),
        ("SELECT * FROM t MATCH_RECOGNIZE (PATTERN (A) DEFINE A AS true)", []),
    ],
)
def test_table_function_calls_are_found_with_their_input_and_body(query, found):
    calls = table_function_calls(query, {"match_recognize"})
    assert [(c.table, c.body) for c in calls] == found
    assert all(query[c.body_start :].startswith(c.body) for c in calls)


@pytest.mark.parametrize(
    ("literals", "escaped", "text"),
    [
        ("'a''b' 'c'", False, "a'bc"),
        (r"'\\d+\n\%\u0041\q'", False, "\\d+\n\\%Aq"),
        (r"'\\d+'", True, r"\\d+"),
    ],
)
def test_a_string_literal_reads_as_spark_reads_it(literals, escaped, text):
    """The body of a table function call, as Spark hands it to the function."""
    assert string_value(literals, escaped) == text
