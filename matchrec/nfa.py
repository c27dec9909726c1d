"""Compile a row pattern (``matchrec.ast``) into a small NFA program for the matcher.

The program is a list of instructions in the style of a Pike VM (Thompson NFA with
priorities):

``MATCH_LABEL l``   consume the current row if it may get label ``l`` (its DEFINE holds);
                    the instruction also says whether the row is inside ``{- -}``.
``SPLIT a, b``      continue at both ``a`` and ``b``; ``a`` is preferred.
``JUMP a``          continue at ``a``.
``ANCHOR_START``    continue only at the start of the partition (``^``).
``ANCHOR_END``      continue only after the last row of the partition (``$``).
``DONE``            the pattern matched (always the last instruction, exactly once).

Preferment is the order of the ``SPLIT`` targets: greedy quantifiers prefer one more
iteration, reluctant ones one fewer, alternation the left branch, ``PERMUTE`` its
permutations in lexicographic order of the listed items (it is compiled as that
alternation, as Trino does).

Quantifiers are expanded: ``p{n,m}`` is ``n`` copies of ``p`` followed by ``m - n``
optional copies; ``p{n,}`` is ``n`` copies whose last one loops (``SPLIT`` back to its
start after it), and ``p*`` is an optional loop. The loop test sits after the body (a
do-while loop), as in Trino: after an iteration the thread may loop or leave. There is
no explicit guard against empty iterations: the matcher drops a thread that comes back
to an instruction it already passed at the same row, and with do-while loops that gives
Trino's rules for empty iterations (see ``matchrec.matcher``). Without exclusions the
instruction counts equal Trino's (``(A{0,100}){0,100}`` is 20,101 instructions), so a
limit on the program size, if the planner wants one, means the same as in Trino.

Exclusion needs no instruction either: whether a row is matched inside ``{- -}`` is known
statically, so each ``MATCH_LABEL`` carries an ``excluded`` flag (nested exclusions are
the same as the outermost one).
"""

from __future__ import annotations

import enum
import itertools
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from matchrec import ast


class Op(enum.IntEnum):
    """Instruction kinds."""

    MATCH_LABEL = 0
    SPLIT = 1
    JUMP = 2
    ANCHOR_START = 3
    ANCHOR_END = 4
    DONE = 5


@dataclass(frozen=True)
class Instruction:
    """One instruction. ``label``/``excluded`` are for MATCH_LABEL; ``targets`` are the
    jump targets of SPLIT (preferred first) and JUMP."""

    op: Op
    label: int = -1
    excluded: bool = False
    targets: tuple[int, ...] = ()


class Program:
    """A compiled pattern: a sequence of :class:`Instruction`, plus the label names.

    It behaves as a read-only list of instructions (``len``, indexing, iteration). The
    matcher reads the flat tables and the cached epsilon closures below; they are built
    once per program and shared by every match attempt.
    """

    def __init__(self, instructions: tuple[Instruction, ...], label_names: tuple[str, ...]):
        if not instructions or instructions[-1].op is not Op.DONE:
            raise ValueError("a program ends with DONE")
        self.instructions = instructions
        self.label_names = label_names
        self.num_labels = len(label_names)
        self.done_pc = len(instructions) - 1
        # flat tables for the matcher's hot loop
        self.labels = tuple(i.label for i in instructions)
        self.excluded = tuple(i.excluded for i in instructions)
        # closure caches, indexed by 2 * at_start + at_end
        self._closures: tuple[dict[int, tuple[int, ...]], ...] = ({}, {}, {}, {})

    # ------------------------------------------------------------------ sequence protocol
    def __len__(self) -> int:
        return len(self.instructions)

    def __getitem__(self, pc: int) -> Instruction:
        return self.instructions[pc]

    def __iter__(self) -> Iterator[Instruction]:
        return iter(self.instructions)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Program):
            return NotImplemented
        return self.instructions == other.instructions and self.label_names == other.label_names

    __hash__ = None  # type: ignore[assignment]

    def __getstate__(self) -> dict[str, object]:
        return {"instructions": self.instructions, "label_names": self.label_names}

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__init__(state["instructions"], state["label_names"])  # type: ignore[misc, arg-type]

    # ------------------------------------------------------------------ introspection
    def successors(self, pc: int) -> tuple[int, ...]:
        """The instructions control may flow to from ``pc``, preferred first (MATCH_LABEL
        and the anchors continue at ``pc + 1`` when they succeed; DONE has none)."""
        ins = self.instructions[pc]
        if ins.op in (Op.SPLIT, Op.JUMP):
            return ins.targets
        if ins.op is Op.DONE:
            return ()
        return (pc + 1,)

    def label_name(self, label: int) -> str:
        if 0 <= label < len(self.label_names) and self.label_names[label]:
            return self.label_names[label]
        return f"#{label}"

    def describe(self, pc: int) -> str:
        """One instruction as text, e.g. ``MATCH_LABEL A`` or ``SPLIT 1, 4``."""
        ins = self.instructions[pc]
        if ins.op is Op.MATCH_LABEL:
            text = f"MATCH_LABEL {self.label_name(ins.label)}"
            return text + "  {- excluded -}" if ins.excluded else text
        if ins.targets:
            return f"{ins.op.name} " + ", ".join(str(t) for t in ins.targets)
        return ins.op.name

    def dump(self) -> str:
        """The whole program, one numbered instruction per line."""
        width = len(str(len(self.instructions) - 1))
        return "\n".join(
            f"{pc:>{width}}  {self.describe(pc)}" for pc in range(len(self.instructions))
        )

    def __str__(self) -> str:
        return self.dump()

    def __repr__(self) -> str:
        return f"<Program of {len(self.instructions)} instructions>"

    #: what a thread at an instruction does with the rows after the ones at hand
    DEAD, ENDS, NEEDS_ROW = 0, 1, 2

    def before_next_row(self, pc: int, at_start: bool) -> int:
        """Whether a thread waiting at ``pc`` when no further row is known yet is
        :attr:`DEAD` (its closure is empty), :attr:`ENDS` (its preferred way on is to
        end the match here: no later row changes that) or :attr:`NEEDS_ROW` (it prefers
        to consume the next row, which may or may not come). ``$`` is taken not to hold:
        more rows may follow."""
        targets = self.closure(pc, at_start, False)
        if not targets:
            return self.DEAD
        return self.ENDS if targets[0] == self.done_pc else self.NEEDS_ROW

    # ------------------------------------------------------------------ epsilon closure
    def closure(self, pc: int, at_start: bool, at_end: bool) -> tuple[int, ...]:
        """The MATCH_LABEL and DONE instructions reachable from ``pc`` without consuming a
        row, in preferment order, each once.

        ``at_start``/``at_end`` say whether the current position is the partition's start
        (``^`` holds) or end (``$`` holds). The search is a depth-first walk that visits
        every instruction at most once: a path that comes back to an instruction it (or a
        preferred path) already reached at this position is dropped. That is what ends
        an empty loop iteration, and it keeps only the preferred way to reach a state.
        """
        cache = self._closures[2 * at_start + at_end]
        found = cache.get(pc)
        if found is None:
            found = cache[pc] = self._walk(pc, at_start, at_end)
        return found

    def _walk(self, pc: int, at_start: bool, at_end: bool) -> tuple[int, ...]:
        instructions = self.instructions
        visited: set[int] = set()
        out: list[int] = []
        stack = [pc]
        # Marking on pop gives the same visiting order as a recursive depth-first walk.
        while stack:
            at = stack.pop()
            if at in visited:
                continue
            visited.add(at)
            ins = instructions[at]
            op = ins.op
            if op is Op.MATCH_LABEL or op is Op.DONE:
                out.append(at)
            elif op is Op.SPLIT or op is Op.JUMP:
                stack.extend(reversed(ins.targets))
            elif (op is Op.ANCHOR_START and at_start) or (op is Op.ANCHOR_END and at_end):
                stack.append(at + 1)
        return tuple(out)


# ---------------------------------------------------------------------------- compiler


def compile_pattern(pattern: ast.PatternNode, label_ids: Mapping[str, int]) -> Program:
    """Compile ``pattern`` to a :class:`Program`.

    ``label_ids`` maps every primary label name of the pattern (canonical, as in the AST)
    to a dense id ``0..k-1``; the ids are what the matcher passes to the DEFINE evaluator.
    """
    names = [""] * (max(label_ids.values(), default=-1) + 1)
    for name, label in label_ids.items():
        names[label] = name
    compiler = _Compiler(label_ids)
    compiler.node(pattern, False)
    compiler.emit(Op.DONE)
    return Program(tuple(compiler.finish()), tuple(names))


#: the most instructions a pattern may compile to: the compiler unrolls bounded
#: quantifiers (``A{n,m}`` is n copies and m - n optional ones) and PERMUTE (every order),
#: so ``A{2147483647}`` would take hours and all memory before the first row is matched
MAX_PROGRAM_SIZE = 100_000


def program_size(node: ast.PatternNode) -> int:
    """The number of instructions :func:`compile_pattern` emits for ``node`` (without the
    final DONE), computed without compiling: one product per quantifier or PERMUTE."""
    if isinstance(node, (ast.Label, ast.Anchor)):
        return 1
    if isinstance(node, ast.Empty):
        return 0
    if isinstance(node, ast.Concat):
        return sum(program_size(item) for item in node.items)
    if isinstance(node, ast.Alternation):
        return sum(program_size(item) for item in node.items) + 2 * (len(node.items) - 1)
    if isinstance(node, ast.Permute):
        orders = math.factorial(len(node.items))
        return orders * sum(program_size(item) for item in node.items) + 2 * (orders - 1)
    if isinstance(node, ast.Exclusion):
        return program_size(node.inner)
    if isinstance(node, ast.Quantified):
        inner = program_size(node.inner)
        if node.max is None:
            return inner + 2 if node.min == 0 else node.min * inner + 1
        return node.min * inner + (node.max - node.min) * (inner + 1)
    raise TypeError(f"not a pattern node: {node!r}")


def oversized_part(node: ast.PatternNode, limit: int = MAX_PROGRAM_SIZE) -> ast.PatternNode | None:
    """The innermost quantifier or PERMUTE of ``node`` whose unrolled program exceeds
    ``limit`` instructions while its parts do not (the one to shrink), else ``node`` itself
    when only the whole is too large, else None."""
    if program_size(node) <= limit:
        return None
    children: tuple[ast.PatternNode, ...] = ()
    if isinstance(node, (ast.Concat, ast.Alternation, ast.Permute)):
        children = node.items
    elif isinstance(node, (ast.Exclusion, ast.Quantified)):
        children = (node.inner,)
    for child in children:
        found = oversized_part(child, limit)
        if found is not None:
            return found
    return node


class _Compiler:
    """Emits instructions; jump targets are patched once they are known."""

    def __init__(self, label_ids: Mapping[str, int]):
        self.label_ids = label_ids
        self.code: list[list] = []  # [op, label, excluded, targets]

    def emit(self, op: Op, label: int = -1, excluded: bool = False) -> int:
        self.code.append([op, label, excluded, ()])
        return len(self.code) - 1

    def here(self) -> int:
        return len(self.code)

    def set_targets(self, pc: int, *targets: int) -> None:
        self.code[pc][3] = targets

    def split(self, pc: int, body: int, skip: int, greedy: bool) -> None:
        """Make ``pc`` a SPLIT preferring ``body`` (greedy) or ``skip`` (reluctant)."""
        self.set_targets(pc, *((body, skip) if greedy else (skip, body)))

    def finish(self) -> list[Instruction]:
        return [Instruction(*fields) for fields in self.code]

    # ------------------------------------------------------------------ nodes
    def node(self, node: ast.PatternNode, excluded: bool) -> None:
        if isinstance(node, ast.Label):
            if node.name not in self.label_ids:
                raise ValueError(f"pattern label {node.name!r} has no label id")
            self.emit(Op.MATCH_LABEL, self.label_ids[node.name], excluded)
        elif isinstance(node, ast.Empty):
            pass
        elif isinstance(node, ast.Anchor):
            self.emit(Op.ANCHOR_START if node.kind == "start" else Op.ANCHOR_END)
        elif isinstance(node, ast.Concat):
            for item in node.items:
                self.node(item, excluded)
        elif isinstance(node, ast.Alternation):
            self.alternation([[item] for item in node.items], excluded)
        elif isinstance(node, ast.Permute):
            orders = itertools.permutations(range(len(node.items)))
            self.alternation([[node.items[i] for i in order] for order in orders], excluded)
        elif isinstance(node, ast.Exclusion):
            self.node(node.inner, True)
        elif isinstance(node, ast.Quantified):
            self.quantified(node, excluded)
        else:
            raise TypeError(f"not a pattern node: {node!r}")

    def alternation(self, branches: list[list[ast.PatternNode]], excluded: bool) -> None:
        """``b1 | b2 | ... | bn``, each branch a concatenation, the left one preferred."""
        if not branches:
            return
        jumps = []
        for branch in branches[:-1]:
            split = self.emit(Op.SPLIT)
            for item in branch:
                self.node(item, excluded)
            jumps.append(self.emit(Op.JUMP))
            self.set_targets(split, split + 1, self.here())
        for item in branches[-1]:
            self.node(item, excluded)
        for jump in jumps:
            self.set_targets(jump, self.here())

    def quantified(self, node: ast.Quantified, excluded: bool) -> None:
        low, high, greedy = node.min, node.max, node.greedy
        if low < 0 or (high is not None and high < low):
            raise ValueError(f"bad quantifier bounds {{{low},{high}}}")
        if high is None:
            if low == 0:
                # SPLIT(body, exit); body; SPLIT(body, exit)
                entry = self.emit(Op.SPLIT)
                body = self.here()
                self.node(node.inner, excluded)
                loop = self.emit(Op.SPLIT)
                self.split(loop, body, loop + 1, greedy)
                self.split(entry, body, loop + 1, greedy)
            else:
                # body{low-1} then the last mandatory copy, which loops
                for _ in range(low - 1):
                    self.node(node.inner, excluded)
                body = self.here()
                self.node(node.inner, excluded)
                loop = self.emit(Op.SPLIT)
                self.split(loop, body, loop + 1, greedy)
            return
        for _ in range(low):
            self.node(node.inner, excluded)
        # optional copies: each SPLIT either enters its copy or skips all remaining ones
        splits = []
        for _ in range(high - low):
            splits.append(self.emit(Op.SPLIT))
            self.node(node.inner, excluded)
        end = self.here()
        for split in splits:
            self.split(split, split + 1, end, greedy)
