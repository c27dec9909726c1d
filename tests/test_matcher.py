"""Hand-written cases for the NFA compiler and the matcher (pure Python, no Spark).

Patterns are written in SQL syntax and read by the tiny parser below (the real grammar
lives elsewhere); rows are strings of the labels whose DEFINE holds on them, or values
with DEFINE conditions as Python functions, as in the conformance suite. The helpers
also run the backtracking reference (``reference_matcher``) on every case, so these
expectations pin down the reference as well as the matcher.
"""

from __future__ import annotations

import pickle
import re
from collections.abc import Callable, Sequence

import pytest
from reference_matcher import reference_find_match, reference_match_partition

from matchrec import ast
from matchrec.errors import MatchRuntimeError
from matchrec.matcher import Match, MatchRun, find_match, match_partition, next_start
from matchrec.nfa import Op, compile_pattern, program_size

LABELS = ("A", "B", "C", "D", "L", "Y", "X")
IDS = {name: i for i, name in enumerate(LABELS)}

# ---------------------------------------------------------------------------- helpers

_TOKEN = re.compile(r"\s*(\{-|-\}|PERMUTE|[A-Z]\w*|\d+|[()|*+?{},^$])")


def parse(text: str) -> ast.PatternNode:
    """A pattern in SQL syntax (labels are identifiers; no quoting)."""
    tokens = _TOKEN.findall(text)
    assert "".join(tokens) == re.sub(r"\s+", "", text), f"cannot tokenize {text!r}"
    at = 0

    def peek() -> str | None:
        return tokens[at] if at < len(tokens) else None

    def take(expected: str | None = None) -> str:
        nonlocal at
        token = tokens[at]
        assert expected is None or token == expected, (token, expected)
        at += 1
        return token

    def alternation() -> ast.PatternNode:
        items = [concat()]
        while peek() == "|":
            take()
            items.append(concat())
        return items[0] if len(items) == 1 else ast.Alternation(tuple(items))

    def concat() -> ast.PatternNode:
        items = []
        while peek() not in (None, ")", "|", "-}", ","):
            items.append(quantified())
        if not items:
            return ast.Empty()
        return items[0] if len(items) == 1 else ast.Concat(tuple(items))

    def quantified() -> ast.PatternNode:
        node = primary()
        token = peek()
        if token in ("*", "+", "?"):
            take()
            low, high = {"*": (0, None), "+": (1, None), "?": (0, 1)}[token]
        elif token == "{":
            take()
            low, high = 0, None
            if peek() not in (",", "}"):
                low = high = int(take())
            if peek() == ",":
                take()
                high = int(take()) if peek() != "}" else None
            take("}")
        else:
            return node
        greedy = True
        if peek() == "?":
            take()
            greedy = False
        return ast.Quantified(node, low, high, greedy)

    def primary() -> ast.PatternNode:
        token = take()
        if token == "(":
            inner = alternation() if peek() != ")" else ast.Empty()
            take(")")
            return inner
        if token == "{-":
            inner = alternation()
            take("-}")
            return ast.Exclusion(inner)
        if token in ("^", "$"):
            return ast.Anchor("start" if token == "^" else "end")
        if token == "PERMUTE":
            take("(")
            items = [alternation()]
            while peek() == ",":
                take()
                items.append(alternation())
            take(")")
            return ast.Permute(tuple(items))
        assert token in IDS, token
        return ast.Label(token)

    node = alternation()
    assert at == len(tokens), f"trailing tokens in {text!r}"
    return node


def program(text: str):
    return compile_pattern(parse(text), IDS)


def bits(rows: Sequence[str]) -> Callable[[int, int, Sequence[int]], bool]:
    """An evaluator where row i may get the labels named in ``rows[i]``."""

    def evaluate(label: int, start: int, labels: Sequence[int]) -> bool:
        assert labels[-1] == label
        return LABELS[label] in rows[start + len(labels) - 1]

    return evaluate


def first(text: str, rows: Sequence[str], start: int = 0, **kw) -> tuple[int, str] | None:
    """The match at ``start`` as (end, labels as a string), or None."""
    m = find_match(program(text), start, len(rows), bits(rows), **kw)
    assert m == reference_find_match(parse(text), IDS, start, len(rows), bits(rows))
    if m is None:
        return None
    assert m.start == start and len(m.labels) == m.end - m.start == len(m.excluded)
    return m.end, "".join(LABELS[i] for i in m.labels)


def all_matches(text: str, rows: Sequence[str], **kw) -> list[tuple[int, int, str]]:
    """(start, end, labels) of every match of the partition."""
    out = []
    found = list(match_partition(program(text), len(rows), lambda n: bits(rows), **kw))
    reference = reference_match_partition(
        parse(text),
        IDS,
        len(rows),
        lambda n: bits(rows),
        kw.get("skip_mode", "past_last"),
        kw.get("skip_labels", frozenset()),
    )
    assert found == list(reference)
    for number, m in found:
        assert number == len(out) + 1
        out.append((m.start, m.end, "".join(LABELS[i] for i in m.labels)))
    return out


def value_rows(
    text: str,
    values: Sequence[int],
    defines: dict[str, Callable[[Sequence[int], int], bool]],
    skip: str = "past_last",
    to: str = "",
) -> list[tuple[int, int, str | None]]:
    """ALL ROWS PER MATCH output as the conformance suite shows it: (id, match number,
    label) for every non-excluded row of every match, (id, number, None) for an empty
    match; ids are 1-based. ``defines`` are row-local conditions (the values, the row)."""

    def evaluate(label: int, start: int, labels: Sequence[int]) -> bool:
        test = defines.get(LABELS[label])
        return True if test is None else test(values, start + len(labels) - 1)

    skip_labels = frozenset(IDS[x] for x in to)
    found = list(
        match_partition(
            program(text), len(values), lambda n: evaluate, skip_mode=skip, skip_labels=skip_labels
        )
    )
    reference = reference_match_partition(
        parse(text), IDS, len(values), lambda n: evaluate, skip, skip_labels
    )
    assert found == list(reference)
    out: list[tuple[int, int, str | None]] = []
    for number, m in found:
        if m.end == m.start:
            out.append((m.start + 1, number, None))
        for i, (label, excluded) in enumerate(zip(m.labels, m.excluded)):
            if not excluded:
                out.append((m.start + i + 1, number, LABELS[label]))
    return out


def lower(values: Sequence[int], row: int) -> bool:
    """``X.value < PREV(X.value)``"""
    return row > 0 and values[row] < values[row - 1]


def lower_eq(values: Sequence[int], row: int) -> bool:
    """``X.value <= PREV(X.value)``"""
    return row > 0 and values[row] <= values[row - 1]


def higher(values: Sequence[int], row: int) -> bool:
    """``X.value > PREV(X.value)``"""
    return row > 0 and values[row] > values[row - 1]


# ---------------------------------------------------------------------------- compiler


def test_dump_is_readable():
    text = str(program("A {- B -}* $"))
    assert text.splitlines() == [
        "0  MATCH_LABEL A",
        "1  SPLIT 2, 4",
        "2  MATCH_LABEL B  {- excluded -}",
        "3  SPLIT 2, 4",
        "4  ANCHOR_END",
        "5  DONE",
    ]


def test_loops_are_do_while_and_reluctant_swaps_preference():
    p = program("A+?")
    assert [(i.op, i.targets) for i in p] == [
        (Op.MATCH_LABEL, ()),
        (Op.SPLIT, (2, 0)),
        (Op.DONE, ()),
    ]
    # {2,} loops on its last mandatory copy
    p = program("B{2,}")
    assert [i.op for i in p] == [Op.MATCH_LABEL, Op.MATCH_LABEL, Op.SPLIT, Op.DONE]
    assert p[2].targets == (1, 3)


def test_program_sizes_match_trino():
    # instruction counts of Trino's compiler for the same patterns (DONE included)
    assert len(program("A{4999}")) == 5000
    assert len(program("A{0,5000}")) == 10001
    assert len(program("(A{0,100}){0,100}")) == 20101
    assert len(program("PERMUTE(A, B, C, D, L)")) == 839


@pytest.mark.parametrize(
    "pattern",
    [
        "A",
        "A B | C",
        "(A | B | C)*?",
        "A{3,}",
        "A{2,5}",
        "(A{0,4}){2,3}",
        "PERMUTE(A, B, C)",
        "{- A+ -} B?",
        "^ A* $",
        "()",
        "(A | ()){1,3}",
        "PERMUTE(A B, C | D)",
    ],
)
def test_program_size_counts_what_the_compiler_emits(pattern):
    assert program_size(parse(pattern)) == len(program(pattern)) - 1  # DONE


def test_permute_is_alternation_in_lexicographic_order():
    assert program("PERMUTE(A, B, C)") == program("A B C | A C B | B A C | B C A | C A B | C B A")


def test_program_is_picklable_and_introspectable():
    p = program("(A | B)+ C")
    q = pickle.loads(pickle.dumps(p))
    assert q == p and str(q) == str(p)
    assert p.successors(0) == p[0].targets
    assert p.successors(len(p) - 1) == ()
    assert p.label_names[:3] == ("A", "B", "C")


def test_unknown_label_is_an_error():
    with pytest.raises(ValueError, match="no label id"):
        compile_pattern(ast.Label("Q"), IDS)


# ---------------------------------------------------------------------------- quantifiers


@pytest.mark.parametrize(
    "pattern, rows, expected",
    [
        ("B{2}", "BBBB", 2),
        ("B{2}?", "BBBB", 2),
        ("B{2,}", "BBBB", 4),
        ("B{2,}?", "BBBB", 2),
        ("B{,2}", "BBBB", 2),
        ("B{,2}?", "BBBB", 0),
        ("B{1,3}", "BBBB", 3),
        ("B{1,3}?", "BBBB", 1),
        ("B*", "BBBB", 4),
        ("B*?", "BBBB", 0),
        ("B+", "BBBB", 4),
        ("B+?", "BBBB", 1),
        ("B?", "BBBB", 1),
        ("B??", "BBBB", 0),
        ("B{5}", "BBBB", None),
        ("B{3,}", "BB", None),
    ],
)
def test_quantifier_bounds(pattern, rows, expected):
    found = first(pattern, list(rows))
    assert (None if found is None else found[0]) == expected


def test_greedy_and_reluctant_give_back_rows():
    assert first("A* A", ["A"] * 3) == (3, "AAA")
    assert first("A*? A", ["A"] * 3) == (1, "A")
    assert first("A+? B", ["A", "AB", "B"]) == (2, "AB")
    assert first("A+ B", ["A", "AB", "B"]) == (3, "AAB")
    # the preferred path, not the longest
    assert first("A+? B*", ["AB", "AB", "AB"]) == (3, "ABB")
    assert first("(A | B)*? C", ["AB", "AB", "C"]) == (3, "AAC")


def test_alternation_prefers_left():
    assert first("A | B", ["AB"]) == (1, "A")
    assert first("B | A", ["AB"]) == (1, "B")
    assert first("A | A B", ["AB", "AB"]) == (1, "A")  # first in preferment, not longest
    assert first("A B | A", ["A", "B"]) == (2, "AB")
    assert first("A B | A", ["A", "A"]) == (1, "A")
    assert first("(A | B) C", ["AB", "C"]) == (2, "AC")
    assert first("(A | B) C", ["B", "C"]) == (2, "BC")


def test_permute_prefers_listed_order():
    assert first("PERMUTE(A, B, C)", ["ABC"] * 3) == (3, "ABC")
    assert first("PERMUTE(C, B, A)", ["ABC"] * 3) == (3, "CBA")
    assert first("PERMUTE(A, B, C)", ["B", "ABC", "ABC"]) == (3, "BAC")
    assert first("PERMUTE(A, B, C)", ["C", "B", "A"]) == (3, "CBA")
    assert first("PERMUTE(A, B)", ["A", "C"]) is None


# ---------------------------------------------------------------------------- anchors


def test_anchors():
    rows = ["A", "A", "A"]
    assert [first("^A", rows, s) for s in range(3)] == [(1, "A"), None, None]
    assert [first("A$", rows, s) for s in range(3)] == [None, None, (3, "A")]
    assert first("A+ $", rows) == (3, "AAA")
    assert first("A+? $", rows, 1) == (3, "AA")
    assert first("^A^", rows) is None
    assert first("$A", rows) is None
    assert first("$", rows, 3) == (3, "")  # after the last row
    assert first("^ $", [], 0) == (0, "")
    assert all_matches("^A", rows) == [(0, 1, "A")]
    assert all_matches("A$", rows) == [(2, 3, "A")]


# ---------------------------------------------------------------------------- exclusion


def test_exclusion_marks_rows():
    m = find_match(program("A {- B+ -} C"), 0, 4, bits(["A", "B", "B", "C"]))
    assert m == Match(0, 4, [IDS["A"], IDS["B"], IDS["B"], IDS["C"]], [False, True, True, False])
    m = find_match(program("{- A {- B -} -} C"), 0, 3, bits(["A", "B", "C"]))
    assert m is not None and m.excluded == [True, True, False]
    # the same label inside and outside an exclusion: the preferred path decides
    m = find_match(program("({- A -} | A) A"), 0, 2, bits(["A", "A"]))
    assert m is not None and m.excluded == [True, False]
    m = find_match(program("(A | {- A -}) A"), 0, 2, bits(["A", "A"]))
    assert m is not None and m.excluded == [False, False]


def test_exclusion_conformance():
    # exclusion_syntax.slt
    values = [90, 80, 70, 80, 90, 50, 40, 60]
    defines = {"B": lower, "C": higher}
    assert value_rows("A {- B+ -} C+", values, defines) == [
        (1, 1, "A"), (4, 1, "C"), (5, 1, "C"), (6, 2, "A"), (8, 2, "C"),
    ]  # fmt: skip
    assert value_rows("{- A -} {- B+ -} C+", values, defines) == [
        (4, 1, "C"), (5, 1, "C"), (8, 2, "C"),
    ]  # fmt: skip
    assert value_rows("A {- {- B+ -} C+ -}", values, defines) == [(1, 1, "A"), (6, 2, "A")]
    assert value_rows("{- A B+ C+ -}", values, defines) == []
    assert value_rows("A B+ {- ()* -} C+", values, defines) == value_rows(
        "A B+ C+", values, defines
    )


# ---------------------------------------------------------------------------- empty matches


def test_empty_match_is_a_match():
    m = find_match(program("A*"), 1, 3, bits(["A", "B", "A"]))
    assert m == Match(1, 1, [], [])
    assert m.is_empty
    assert all_matches("A*", ["A", "B", "A"]) == [(0, 1, "A"), (1, 1, ""), (2, 3, "A")]
    assert all_matches("() | A", ["A", "A"]) == [(0, 0, ""), (1, 1, "")]
    assert all_matches("A | ()", ["A", "B"]) == [(0, 1, "A"), (1, 1, "")]


def test_empty_matches_conformance():
    # empty_matches.slt (the ALL ROWS part; rows 1 and 6 are unmatched)
    values = [100, 100, 90, 80, 70, 100]
    assert value_rows("A B{2}", values, {"B": lower}, skip="next_row") == [
        (2, 1, "A"), (3, 1, "B"), (4, 1, "B"), (3, 2, "A"), (4, 2, "B"), (5, 2, "B"),
    ]  # fmt: skip


EMPTY_CYCLE = [90, 80, 70, 70]


@pytest.mark.parametrize(
    "pattern, expected",
    [
        ("()* | B", [(1, 1, None), (2, 2, None), (3, 3, None), (4, 4, None)]),
        ("()+ | B", [(1, 1, None), (2, 2, None), (3, 3, None), (4, 4, None)]),
        ("(){5,} | B", [(1, 1, None), (2, 2, None), (3, 3, None), (4, 4, None)]),
        ("B | ()*", [(1, 1, None), (2, 2, "B"), (3, 3, "B"), (4, 4, None)]),
        ("(B ()*)*", [(1, 1, None), (2, 2, "B"), (3, 2, "B"), (4, 3, None)]),
        ("(B ()*)*?", [(1, 1, None), (2, 2, None), (3, 3, None), (4, 4, None)]),
        ("^* | B", [(1, 1, None), (2, 2, None), (3, 3, None), (4, 4, None)]),
        ("^+ | B", [(1, 1, None), (2, 2, "B"), (3, 3, "B")]),
        ("^* A B", [(1, 1, "A"), (2, 1, "B")]),
        ("$* | B", [(1, 1, None), (2, 2, None), (3, 3, None), (4, 4, None)]),
        ("$+ | B", [(2, 1, "B"), (3, 2, "B")]),
        ("B A $+", [(3, 1, "B"), (4, 1, "A")]),
    ],
)
def test_empty_cycle_conformance(pattern, expected):
    # empty_cycle.slt: DEFINE B AS B.value < PREV(B.value)
    assert value_rows(pattern, EMPTY_CYCLE, {"B": lower}) == expected


def test_empty_iteration_ends_the_loop():
    # kill_thread.slt: one match of all rows
    assert all_matches("(Y?){2,}", ["Y"] * 5) == [(0, 5, "YYYYY")]
    assert all_matches("(Y?){2,}", ["", "Y"]) == [(0, 0, ""), (1, 2, "Y")]
    # () is preferred, the empty iteration ends the loop
    assert first("(() | A)*", ["A", "A"]) == (0, "")
    assert first("(() | C | C)*", ["C"]) == (0, "")
    assert first("(() | A)+", ["A", "A"]) == (0, "")
    # after a non-empty iteration an empty one is a cycle: the next alternative is tried
    assert first("(B | () | A)*", ["B", "A", "B"]) == (3, "BAB")
    assert first("(A | ())*", ["A", "A", "B"]) == (2, "AA")
    assert first("(A?)*", ["A", "A", "B"]) == (2, "AA")
    assert first("((A?)*)*", ["A", "B"]) == (1, "A")
    assert first("(A? B??)* C", ["A", "BC"]) == (2, "AC")


# ---------------------------------------------------------------------------- AFTER MATCH SKIP


SKIP_VALUES = [90, 80, 70, 80, 70, 80]
SKIP_DEFINES = {"B": lower, "C": higher, "D": lambda values, row: False}
SKIP_PATTERN = "A B+ C+ D?"


def test_skip_past_last_and_next_row():
    # after_match_skip.slt
    assert value_rows(SKIP_PATTERN, SKIP_VALUES, SKIP_DEFINES) == [
        (1, 1, "A"), (2, 1, "B"), (3, 1, "B"), (4, 1, "C"),
    ]  # fmt: skip
    assert value_rows(SKIP_PATTERN, SKIP_VALUES, SKIP_DEFINES, skip="next_row") == [
        (1, 1, "A"), (2, 1, "B"), (3, 1, "B"), (4, 1, "C"),
        (2, 2, "A"), (3, 2, "B"), (4, 2, "C"),
        (4, 3, "A"), (5, 3, "B"), (6, 3, "C"),
    ]  # fmt: skip


@pytest.mark.parametrize(
    "skip, to",
    [("first", "C"), ("last", "B"), ("last", "CD")],  # TO FIRST C, TO LAST B, TO U = (C, D)
)
def test_skip_to_label(skip, to):
    assert value_rows(SKIP_PATTERN, SKIP_VALUES, SKIP_DEFINES, skip=skip, to=to) == [
        (1, 1, "A"), (2, 1, "B"), (3, 1, "B"), (4, 1, "C"),
        (4, 2, "A"), (5, 2, "B"), (6, 2, "C"),
    ]  # fmt: skip


def test_skip_errors():
    with pytest.raises(MatchRuntimeError) as err:
        value_rows(SKIP_PATTERN, SKIP_VALUES, SKIP_DEFINES, skip="last", to="A")
    assert err.value.message == "AFTER MATCH SKIP failed: cannot skip to first row of match"
    with pytest.raises(MatchRuntimeError) as err:
        value_rows(SKIP_PATTERN, SKIP_VALUES, SKIP_DEFINES, skip="last", to="D")
    assert err.value.message == "AFTER MATCH SKIP failed: pattern variable is not present in match"
    # the match that causes the error is yielded first
    found = []
    with pytest.raises(MatchRuntimeError):
        for item in match_partition(
            program("A B"), 2, lambda n: bits(["A", "B"]), skip_mode="first", skip_labels={IDS["A"]}
        ):
            found.append(item)
    assert [m.end for _, m in found] == [2]


def test_skip_after_empty_match_goes_to_next_row():
    empty = Match(3, 3, [], [])
    for mode in ("past_last", "next_row", "first", "last"):
        assert next_start(empty, mode, frozenset({0})) == 4
    assert all_matches("A*", ["B", "B"], skip_mode="last", skip_labels=frozenset({0})) == [
        (0, 0, ""),
        (1, 1, ""),
    ]


def test_overlapping_matches_are_independent():
    rows = ["A", "AB", "B", "B"]
    assert all_matches("A B+", rows, skip_mode="next_row") == [(0, 4, "ABBB"), (1, 4, "ABB")]
    assert all_matches("A B+", rows, skip_mode="first", skip_labels=frozenset({1})) == [
        (0, 4, "ABBB"),
        (1, 4, "ABB"),
    ]


def test_unknown_skip_mode():
    with pytest.raises(ValueError):
        list(match_partition(program("A"), 1, lambda n: bits(["A"]), skip_mode="to_next"))


# ---------------------------------------------------------------------------- match-dependent


def test_condition_on_previous_label():
    # B only right after an A; (B | A)+ prefers B
    def evaluate(label, start, labels):
        if label == IDS["B"]:
            return len(labels) >= 2 and labels[-2] == IDS["A"]
        return label == IDS["A"]

    m = find_match(program("(B | A)+"), 0, 5, evaluate)
    assert m is not None and [LABELS[x] for x in m.labels] == list("ABABA")


def test_same_state_different_history_is_kept():
    # two threads reach C with different histories; only the less preferred can finish
    def evaluate(label, start, labels):
        if label == IDS["C"]:
            return IDS["B"] in labels[:-1]
        return True

    assert find_match(program("(A | B) C"), 0, 2, evaluate).labels == [IDS["B"], IDS["C"]]
    # merging threads by instruction alone would be wrong here
    assert find_match(program("(A | B) C"), 0, 2, evaluate, history_matters=False) is None


def test_condition_sees_start_and_candidate():
    calls = []

    def evaluate(label, start, labels):
        calls.append((label, start, list(labels)))
        return True

    find_match(program("A B"), 3, 5, evaluate)
    assert calls == [(IDS["A"], 3, [IDS["A"]]), (IDS["B"], 3, [IDS["A"], IDS["B"]])]


@pytest.mark.parametrize("scan", [False, True])
def test_match_number_in_condition(scan):
    # B allowed only from match 2 on
    factory_calls: list[int] = []

    def factory(number):
        factory_calls.append(number)
        return lambda label, start, labels: label == IDS["A"] or number >= 2

    flags = {"history_matters": not scan, "start_matters": not scan}
    found = [(n, m.start, m.end) for n, m in match_partition(program("A B?"), 4, factory, **flags)]
    assert found == [(1, 0, 1), (2, 1, 3), (3, 3, 4)]
    assert factory_calls == [1, 2, 3]


def test_exponential_match_conformance():
    # exponential_match.slt: LAST needs the first 8 labels to be B
    def evaluate(label, start, labels):
        if label == IDS["L"]:
            return len(labels) > 8 and all(x == IDS["B"] for x in labels[:8])
        return True

    m = find_match(program("(A | B)+ L"), 0, 9, evaluate)
    assert m is not None and "".join(LABELS[x] for x in m.labels) == "BBBBBBBBL"


# ---------------------------------------------------------------------------- performance


def test_nested_loops_stay_linear():
    p = program("(A+)+ B")
    n = 2000
    only_a = bits(["A"] * n)
    for history_matters in (True, False):
        run = MatchRun(p, 0, only_a, history_matters=history_matters)
        while run.position < n and run.step():
            pass
        assert run.finish() is None
        assert run.max_threads <= len(p)
        assert run.work <= 3 * n
    # the whole partition, scanning all start rows at once
    scan = match_partition(p, n, lambda k: only_a, history_matters=False, start_matters=False)
    assert list(scan) == []
    # potentially_exponential_match.slt
    assert list(match_partition(p, 20, lambda k: bits(["A"] * 20))) == []


def test_many_alternatives_stay_bounded():
    # many paths reach the same instruction with the same history: they merge
    p = program("(A | A | A)* (A | A)* B")
    n = 300
    run = MatchRun(p, 0, bits(["A"] * n))
    while run.position < n and run.step():
        pass
    assert run.finish() is None
    assert run.max_threads <= len(p)


# ---------------------------------------------------------------------------- incremental


def test_match_run_is_incremental():
    p = program("A B+ C?")
    rows = ["A", "B", "B", "C", "A"]
    run = MatchRun(p, 0, bits(rows))
    assert run.step() and run.position == 1  # A
    assert run.step()  # B
    assert run.candidate is None  # a match ending at row 2 is seen when row 2 is stepped
    assert run.step()  # B
    assert run.candidate == Match(0, 2, [0, 1], [False, False])  # B+ and C? may extend it
    assert run.step()  # C
    assert run.candidate is not None and run.candidate.end == 3
    assert not run.step()  # A: nothing extends A B B C
    assert run.finished and run.result == Match(0, 4, [0, 1, 1, 2], [False] * 4)
    assert not run.step()


def test_match_run_finish_checks_end_anchor():
    run = MatchRun(program("A+ $"), 0, bits(["A", "A"]))
    assert run.step() and run.step()
    with pytest.raises(RuntimeError):
        run.result  # noqa: B018
    assert run.finish() == Match(0, 2, [0, 0], [False, False])


def test_scan_finds_first_start_row():
    p = program("A B")
    rows = ["B", "A", "C", "A", "B"]
    run = MatchRun(p, 0, bits(rows), scan=True)
    while run.position < len(rows) and run.step():
        pass
    assert run.finish() == Match(3, 5, [0, 1], [False, False])


def test_find_match_rejects_bad_start():
    with pytest.raises(ValueError):
        find_match(program("A"), 3, 2, bits(["A", "A"]))
