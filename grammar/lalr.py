"""The LALR(1) parser built from ``match_recognize.lark`` and exact lookahead in it.

:func:`load_grammar` builds Lark's parser once and derives the tables the scanner needs
(which words are keywords, which punctuation the grammar uses, how terminals are named
in messages). :class:`Grammar` answers, for a state stack, which terminals the parser
takes next; it replays reductions on a copy of the stack, so the answer is exact.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from lark import Lark
from lark.lexer import Lexer, PatternStr
from lark.parsers.lalr_analysis import Shift

__all__ = ["DYNAMIC_RULE", "GRAMMAR_FILE", "START_RULE", "Grammar", "load_grammar"]

# read through importlib.resources: matchrec may run from a zip (shipped to executors)
GRAMMAR_FILE = resources.files(__package__).joinpath("match_recognize.lark")
START_RULE = "match_recognize_body"
#: the body of MATCH_RECOGNIZE_DYNAMIC ( ... )
DYNAMIC_RULE = "dynamic_body"


class _FedByHand(Lexer):
    """Placeholder lexer: :class:`~matchrec.grammar.parser.ClauseParser` feeds the
    tokens itself."""

    def __init__(self, lexer_conf: object) -> None:
        pass

    def lex(self, data: object) -> None:  # pragma: no cover - never called
        raise NotImplementedError


# How the terminals that the scanner makes are named in error messages.
_TERMINAL_NAMES = {
    "EXPR": "an expression",
    "LABEL": "a pattern variable",
    "ALIAS": "a column name",
    "NUMBER": "a number",
    "STRING": "a string",
    "$END": "end of clause",
}


@dataclass(frozen=True)
class Grammar:
    """The Lark parser and the tables the scanner derives from the grammar file."""

    lark: Lark
    states: dict
    end_state: object
    keywords: dict[str, str]  # upper-case word -> terminal name
    punctuation: dict[str, str]  # text -> terminal name
    names: dict[str, str]  # terminal name -> how messages show it
    rank: dict[str, int]  # terminal name -> order in "expected one of" lists

    def advance(self, stack: list, terminal: str) -> list | None:
        """The state stack after ``terminal`` is shifted, or None if it would be refused.

        Replays LALR reductions on a copy of the stack, so that the answer is exact
        (merged LALR lookaheads would otherwise claim tokens the parser later refuses).
        """
        states, stack = self.states, list(stack)
        while True:
            action = states[stack[-1]].get(terminal)
            if action is None:
                return None
            kind, arg = action
            if kind is Shift:
                stack.append(arg)
                return stack
            if arg.expansion:
                del stack[-len(arg.expansion) :]
            stack.append(states[stack[-1]][arg.origin.name][1])
            if terminal == "$END" and stack[-1] == self.end_state:
                return stack

    def accepts(self, stack: list, terminal: str) -> bool:
        return self.advance(stack, terminal) is not None

    def expected(self, stack: list) -> set[str]:
        """Every terminal the parser takes next in state ``stack``."""
        candidates = self.states[stack[-1]]
        return {t for t in candidates if t.isupper() and self.accepts(stack, t)}

    def phrase(self, terminals: set[str]) -> str:
        """`expected X` or `expected one of: X, Y, Z`, in grammar order."""
        names: list[str] = []
        for terminal in sorted(terminals, key=lambda t: self.rank.get(t, -1)):
            name = self.names.get(terminal, terminal)
            if name not in names:
                names.append(name)
        return names[0] if len(names) == 1 else "one of: " + ", ".join(names)


@lru_cache(maxsize=2)
def load_grammar(start: str = START_RULE) -> Grammar:
    """Build the LALR parser for the body that rule ``start`` describes, once, on first use."""
    lark = Lark(
        GRAMMAR_FILE.read_text(encoding="utf-8"),
        parser="lalr",
        lexer=_FedByHand,
        start=start,
        propagate_positions=True,
        maybe_placeholders=True,
    )
    keywords, punctuation, names = {}, {}, dict(_TERMINAL_NAMES)
    for terminal in lark.terminals:
        pattern = terminal.pattern
        if not isinstance(pattern, PatternStr):
            continue
        if re.fullmatch(r"\w+", pattern.value):
            assert "i" in pattern.flags, f"keyword {pattern.value} must be case-insensitive"
            keywords[pattern.value.upper()] = terminal.name
            names[terminal.name] = pattern.value.upper()
        else:
            punctuation[pattern.value] = terminal.name
            names[terminal.name] = f"'{pattern.value}'"
    # Scanner-made terminals first, then the grammar's in order of appearance.
    order = ["EXPR", "LABEL", "ALIAS", "NUMBER", "STRING"]
    order += [t.name for t in lark.terminals] + ["$END"]
    parser_state = lark.parse_interactive("").parser_state
    return Grammar(
        lark=lark,
        states=parser_state.parse_conf.states,
        end_state=parser_state.parse_conf.end_state,
        keywords=keywords,
        punctuation=punctuation,
        names=names,
        rank={name: i for i, name in enumerate(order)},
    )
