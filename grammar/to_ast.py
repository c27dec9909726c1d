"""Lark's parse tree of a clause body -> :mod:`matchrec.ast` nodes.

Also checks what the grammar cannot: quantifier bounds fit in 32 bits and min <= max,
and the WITHIN amount is a whole number.
"""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

from lark import Token, Tree, v_args
from lark.exceptions import VisitError
from lark.visitors import Transformer_NonRecursive

from matchrec import ast
from matchrec.errors import SqlSyntaxError

__all__ = ["MAX_BOUND", "to_ast"]

MAX_BOUND = 2**31 - 1  # largest quantifier bound (a 32-bit int, as Trino parses them)


def to_ast(tree: Tree, sql: str) -> ast.MatchRecognizeClause | ast.DynamicClause:
    """The clause that Lark's ``tree`` stands for; positions in it are offsets into ``sql``."""
    try:
        return _ToAst(sql).transform(tree)
    except VisitError as exc:  # a check in the transformer (e.g. A{3,2}) failed
        raise exc.orig_exc from None


def _canonical(token: Token) -> str:
    """Pattern variable names: unquoted ones are case-insensitive (upper-cased)."""
    return _unquote(token) if token[0] in '"`' else token.upper()


def _unquote(token: Token) -> str:
    """The name as written, without delimiting quotes ("" and `` stand for one quote)."""
    quote = token[0]
    if quote in '"`':
        return token[1:-1].replace(quote * 2, quote)
    return str(token)


def _expr(token: Token) -> ast.SqlExpr:
    return ast.SqlExpr(str(token), token.start_pos)


class _Quantifier(NamedTuple):
    min: int
    max: int | None
    greedy: bool
    pos: int


class _ToAst(Transformer_NonRecursive):
    """Turns Lark's tree into :mod:`matchrec.ast` nodes. Clause rules return dicts of
    :class:`~matchrec.ast.MatchRecognizeClause` fields; the body merges them."""

    def __init__(self, sql: str) -> None:
        super().__init__(visit_tokens=False)
        self.sql = sql

    # ---------------------------------------------------------------- clauses

    def match_recognize_body(self, children: list[dict]) -> ast.MatchRecognizeClause:
        fields: dict = {}
        for clause in children:
            fields.update(clause)
        return ast.MatchRecognizeClause(**fields, sql=self.sql)

    def dynamic_body(self, children: list) -> ast.DynamicClause:
        rules, key_sets, on_error = children
        return ast.DynamicClause(rules, key_sets, on_error or "skip", sql=self.sql)

    def rules_from(self, children: list[Token]) -> ast.SqlExpr:
        (name,) = children
        return _expr(name)

    def rule_keys(self, children: list[tuple]) -> tuple:
        return tuple(children)

    def key_set(self, children: list) -> tuple[ast.SqlExpr, ...]:
        return tuple(_expr(t) for t in children if t is not None)

    def on_error_skip(self, _: list) -> str:
        return "skip"

    def on_error_fail(self, _: list) -> str:
        return "fail"

    def partition_by(self, children: list[Token]) -> dict:
        return {"partition_by": tuple(_expr(t) for t in children)}

    def order_by(self, children: list[ast.SortKey]) -> dict:
        return {"order_by": tuple(children)}

    def sort_key(self, children: list) -> ast.SortKey:
        expression, descending, nulls_first = children
        return ast.SortKey(_expr(expression), bool(descending), nulls_first)

    def ascending(self, _: list) -> bool:
        return False

    def descending(self, _: list) -> bool:
        return True

    def nulls_first(self, _: list) -> bool:
        return True

    def nulls_last(self, _: list) -> bool:
        return False

    def measures(self, children: list[ast.Measure]) -> dict:
        return {"measures": tuple(children)}

    def measure(self, children: list[Token]) -> ast.Measure:
        expression, alias = children
        return ast.Measure(_expr(expression), _unquote(alias), alias.start_pos)

    def one_row_per_match(self, children: list) -> dict:
        timeouts, late = children
        return {
            "rows_per_match": ast.RowsPerMatch(
                "one",
                timeouts=timeouts is not None,
                timeouts_pos=_pos(timeouts),
                late_rows=late is not None,
                late_pos=_pos(late),
            )
        }

    @v_args(meta=True)
    def window_frame(self, meta, children: list) -> dict:
        end, _ = children
        return {"frame": replace(end, pos=meta.start_pos)}

    @v_args(meta=True)
    def window_frame_current_row(self, meta, children: list) -> dict:
        return {"frame": ast.WindowFrame("current", pos=meta.start_pos)}

    def frame_following(self, children: list[Token]) -> ast.WindowFrame:
        expression, _ = children
        if " ".join(expression.split()).upper() == "UNBOUNDED":
            return ast.WindowFrame("unbounded")
        return ast.WindowFrame("following", _expr(expression))

    def frame_at(self, children: list[Token]) -> ast.WindowFrame:
        (expression,) = children
        if " ".join(expression.split()).upper() == "CURRENT ROW":
            return ast.WindowFrame("current")
        raise SqlSyntaxError(
            f"a window with a row pattern has ROWS BETWEEN CURRENT ROW AND CURRENT ROW, "
            f"AND <n> FOLLOWING or AND UNBOUNDED FOLLOWING, not AND {expression}",
            sql=self.sql,
            pos=expression.start_pos,
            hint="the frame starts at the current row: the pattern is searched from there on",
        )

    def timeout_rows(self, children: list[Token]) -> int:
        return children[0].start_pos

    def late_rows(self, children: list[Token]) -> int:
        return children[0].start_pos

    def all_rows_per_match(self, children: list) -> dict:
        empty, late = children
        return {
            "rows_per_match": ast.RowsPerMatch(
                "all", empty or "show", late_rows=late is not None, late_pos=_pos(late)
            )
        }

    def show_empty_matches(self, _: list) -> str:
        return "show"

    def omit_empty_matches(self, _: list) -> str:
        return "omit"

    def with_unmatched_rows(self, _: list) -> str:
        return "unmatched"

    @v_args(meta=True)
    def after_match_skip(self, meta, children: list[ast.SkipTo]) -> dict:
        (skip,) = children
        if skip.label is None:  # no label to point at: point at AFTER
            skip = replace(skip, pos=meta.start_pos)
        return {"after_match_skip": skip}

    def skip_past_last_row(self, _: list) -> ast.SkipTo:
        return ast.SkipTo("past_last")

    def skip_to_next_row(self, _: list) -> ast.SkipTo:
        return ast.SkipTo("next_row")

    def skip_to_first(self, children: list[Token]) -> ast.SkipTo:
        (label,) = children
        return ast.SkipTo("first", _canonical(label), label.start_pos)

    def skip_to_last(self, children: list[Token]) -> ast.SkipTo:
        (label,) = children
        return ast.SkipTo("last", _canonical(label), label.start_pos)

    @v_args(meta=True)
    def initial(self, meta, _: list) -> dict:
        return {"initial": True, "initial_pos": meta.start_pos}

    @v_args(meta=True)
    def seek(self, meta, _: list) -> dict:
        return {"initial": False, "initial_pos": meta.start_pos}

    @v_args(meta=True)
    def pattern_clause(self, meta, children: list) -> dict:
        pattern, within = children
        return {"pattern": pattern, "pattern_pos": meta.start_pos, "within": within}

    @v_args(meta=True)
    def row_pattern(self, meta, children: list) -> ast.PatternNode:
        (pattern,) = children
        return pattern if pattern is not None else ast.Empty(meta.start_pos)

    @v_args(meta=True)
    def within(self, meta, children: list) -> ast.Within:
        amount, unit = children
        value = _unquote_string(amount).strip() if amount.type == "STRING" else str(amount)
        if not (value.isascii() and value.isdigit()):
            negative = value.startswith("-") and value[1:].isascii() and value[1:].isdigit()
            raise SqlSyntaxError(
                f"the WITHIN interval must be a {'positive ' if negative else ''}whole "
                f"number, not {amount}",
                sql=self.sql,
                pos=amount.start_pos,
                hint="write e.g. WITHIN INTERVAL '10' SECOND",
            )
        return ast.Within(value, unit, meta.start_pos)

    def time_unit(self, children: list[Token]) -> str:
        unit = children[0].upper()
        return unit[:-1] if unit.endswith("S") else unit

    def subset_clause(self, children: list[ast.Subset]) -> dict:
        return {"subsets": tuple(children)}

    def subset_item(self, children: list[Token]) -> ast.Subset:
        name, *labels = children
        return ast.Subset(
            _canonical(name),
            tuple(_canonical(t) for t in labels),
            name.start_pos,
            tuple(t.start_pos for t in labels),
        )

    def define_clause(self, children: list[ast.Define]) -> dict:
        return {"defines": tuple(children)}

    def definition(self, children: list[Token]) -> ast.Define:
        label, expression = children
        return ast.Define(_canonical(label), _expr(expression), label.start_pos)

    # ---------------------------------------------------------------- pattern

    @v_args(meta=True)
    def alternation(self, meta, children: list) -> ast.Alternation:
        return ast.Alternation(tuple(children), meta.start_pos)

    @v_args(meta=True)
    def concatenation(self, meta, children: list) -> ast.Concat:
        return ast.Concat(tuple(children), meta.start_pos)

    def quantified(self, children: list) -> ast.Quantified:
        inner, quantifier = children
        return ast.Quantified(
            inner, quantifier.min, quantifier.max, quantifier.greedy, quantifier.pos
        )

    def label(self, children: list[Token]) -> ast.Label:
        (name,) = children
        return ast.Label(_canonical(name), name.start_pos)

    @v_args(meta=True)
    def start_anchor(self, meta, _: list) -> ast.Anchor:
        return ast.Anchor("start", meta.start_pos)

    @v_args(meta=True)
    def end_anchor(self, meta, _: list) -> ast.Anchor:
        return ast.Anchor("end", meta.start_pos)

    @v_args(meta=True)
    def empty(self, meta, _: list) -> ast.Empty:
        return ast.Empty(meta.start_pos)

    @v_args(meta=True)
    def exclusion(self, meta, children: list) -> ast.Exclusion:
        (inner,) = children
        return ast.Exclusion(inner, meta.start_pos)

    @v_args(meta=True)
    def permute(self, meta, children: list) -> ast.Permute:
        return ast.Permute(tuple(children), meta.start_pos)

    @v_args(meta=True)
    def quantifier(self, meta, children: list) -> _Quantifier:
        (low, high), reluctant = children
        if high is not None and low > high:
            text = self.sql[meta.start_pos : meta.end_pos]
            raise SqlSyntaxError(
                f"pattern quantifier lower bound must not exceed upper bound: {text} has a "
                f"minimum ({low}) greater than its maximum ({high})",
                sql=self.sql,
                pos=meta.start_pos,
                hint=f"write {{{high},{low}}}{'' if reluctant is None else '?'}",
            )
        if high == 0:
            text = self.sql[meta.start_pos : meta.end_pos]
            raise SqlSyntaxError(
                f"pattern quantifier upper bound must be greater than or equal to 1 ({text})",
                sql=self.sql,
                pos=meta.start_pos,
                hint="a part repeated at most 0 times matches nothing: drop it, or write ()",
            )
        return _Quantifier(low, high, reluctant is None, meta.start_pos)

    def reluctant(self, _: list) -> bool:
        return True

    def zero_or_more(self, _: list) -> tuple[int, None]:
        return (0, None)

    def one_or_more(self, _: list) -> tuple[int, None]:
        return (1, None)

    def zero_or_one(self, _: list) -> tuple[int, int]:
        return (0, 1)

    def exactly(self, children: list[Token]) -> tuple[int, int]:
        count = self._bound(children[0], "lower")
        return (count, count)

    def between(self, children: list) -> tuple[int, int | None]:
        low, high = children
        return (
            self._bound(low, "lower") if low is not None else 0,
            self._bound(high, "upper") if high is not None else None,
        )

    def _bound(self, token: Token, which: str) -> int:
        if len(token.lstrip("0")) > len(str(MAX_BOUND)) or int(token) > MAX_BOUND:
            raise SqlSyntaxError(
                f"pattern quantifier {which} bound must not exceed {MAX_BOUND}: {token} is too "
                "large",
                sql=self.sql,
                pos=token.start_pos,
                hint=f"bounds go up to {MAX_BOUND}",
            )
        return int(token)


def _unquote_string(token: Token) -> str:
    """The value of a '...' literal (enough for the digits of an interval)."""
    body = token[2:-1] if token[0] in "rR" else token[1:-1]
    return body.replace("''", "'")


def _pos(found: int | None) -> int:
    """A position the parse may lack (an optional part not written): -1 then."""
    return -1 if found is None else found
