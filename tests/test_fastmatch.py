"""The DFA bit matcher agrees with the Pike VM on random patterns and rows.

Both run the same compiled program; the bit matcher only applies when every DEFINE
verdict is a fixed bit per row and label, which is what the rows here are.
"""

from __future__ import annotations

from hypothesis import given, note, settings
from hypothesis import strategies as st
from test_matcher_property import EXAMPLES, IDS, patterns, show

from matchrec.errors import MatchRuntimeError
from matchrec.fastmatch import BitMatcher
from matchrec.matcher import match_partition
from matchrec.nfa import compile_pattern

rows_strategy = st.lists(st.integers(min_value=0, max_value=7), min_size=0, max_size=7)
skips = st.sampled_from(
    [
        ("past_last", frozenset()),
        ("next_row", frozenset()),
        ("last", frozenset([1])),
        ("first", frozenset([0, 2])),
    ]
)


def pike_matches(program, symbols, skip):
    def factory(number):
        return lambda label, start, labels: bool(symbols[start + len(labels) - 1] >> label & 1)

    out = []
    try:
        for number, m in match_partition(
            program,
            len(symbols),
            factory,
            skip_mode=skip[0],
            skip_labels=skip[1],
            history_matters=False,
        ):
            out.append((number, m.start, m.end, list(m.labels), list(m.excluded)))
    except MatchRuntimeError as err:
        out.append(str(err))
    return out


def bit_matches(program, symbols, skip, symbol_at=None):
    out = []
    try:
        for number, m in BitMatcher(program).matches(
            symbols, len(symbols), skip_mode=skip[0], skip_labels=skip[1], symbol_at=symbol_at
        ):
            out.append((number, m.start, m.end, list(m.labels), list(m.excluded)))
    except MatchRuntimeError as err:
        out.append(str(err))
    return out


@settings(max_examples=EXAMPLES, deadline=None)
@given(pattern=patterns(), symbols=rows_strategy, skip=skips)
def test_bit_matcher_equals_pike_vm(pattern, symbols, skip):
    note(show(pattern))
    program = compile_pattern(pattern, IDS)
    expected = pike_matches(program, symbols, skip)
    assert bit_matches(program, symbols, skip) == expected
    # the per-start-row search (used when symbols depend on the start row) agrees too
    assert bit_matches(program, symbols, skip, symbol_at=lambda s, r: symbols[r]) == expected


def test_adversarial_nested_loops_stay_small():
    """((A+)+ B) over rows that are all A: the DFA has a handful of states."""
    from matchrec import ast

    pattern = ast.Concat(
        (
            ast.Quantified(ast.Quantified(ast.Label("A"), 1, None), 1, None),
            ast.Label("B"),
        )
    )
    program = compile_pattern(pattern, IDS)
    matcher = BitMatcher(program)
    assert list(matcher.matches([1] * 5000, 5000)) == []
    assert len(matcher._states) < 10
