"""Draw a compiled row pattern (:class:`matchrec.nfa.Program`) as a Graphviz DOT graph.

One state per instruction, numbered by its program counter so the picture and the
program listing (``Program.dump``) tell the same story. Transitions:

* ``MATCH_LABEL A``: a solid edge labelled ``A`` to the next state; the matcher takes
  it by consuming one row whose DEFINE for ``A`` holds. Rows matched inside ``{- -}``
  get a grey edge labelled ``{- A -}``.
* ``SPLIT``: edges that consume no row, numbered ``1, 2, ...`` in preference order: a
  greedy quantifier's ``1`` enters one more iteration, a reluctant one's leaves, an
  alternation's ``1`` is its left branch. Edge ``1`` is bold, the others dashed.
* ``JUMP``: a dotted edge labelled ``ε``.
* ``^`` / ``$``: an edge that is passable only at the start / after the end of the
  partition.
* ``DONE``: a double circle; reaching it is a match.

The graph's title is the pattern as text (:func:`pattern_text`). :func:`render_svg`
turns DOT into SVG with Graphviz's ``dot`` when it is installed. Nothing here imports
Spark.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from matchrec import ast
from matchrec.nfa import Op, Program

#: Programs with more instructions than this are drawn as one note (the graph would be
#: unreadable and slow to lay out; e.g. ``(A{0,100}){0,100}`` has 20,101 instructions).
MAX_STATES = 400

LEGEND = "edges out of a split are numbered in preference order (1 = tried first)"

# ---------------------------------------------------------------------------- pattern text

_BARE_LABEL = re.compile(r"[A-Z_][A-Z0-9_]*")


def pattern_text(node: ast.PatternNode) -> str:
    """``node`` written back as PATTERN syntax, e.g. ``(STRT DOWN+ UP+?)``, parenthesised
    as the whole pattern is in ``PATTERN (...)``."""
    return "(" + _text(node) + ")" if not isinstance(node, ast.Empty) else "()"


def _text(node: ast.PatternNode) -> str:
    writer = _WRITERS.get(type(node))
    if writer is None:
        raise TypeError(f"not a pattern node: {node!r}")
    return writer(node)


def _label(node: ast.Label) -> str:
    # canonical names: unquoted labels are upper case; anything else was double-quoted
    if _BARE_LABEL.fullmatch(node.name):
        return node.name
    return '"' + node.name.replace('"', '""') + '"'


def _concat(node: ast.Concat) -> str:
    return " ".join(_grouped(item, (ast.Alternation,)) for item in node.items)


def _alternation(node: ast.Alternation) -> str:
    return " | ".join(_grouped(item, (ast.Alternation,)) for item in node.items)


def _quantified(node: ast.Quantified) -> str:
    inner = _grouped(node.inner, (ast.Concat, ast.Alternation, ast.Quantified, ast.Anchor))
    return inner + quantifier_text(node.min, node.max, node.greedy)


def _grouped(node: ast.PatternNode, needs_parens: tuple[type, ...]) -> str:
    text = _text(node)
    return f"({text})" if isinstance(node, needs_parens) else text


_WRITERS = {
    ast.Label: _label,
    ast.Empty: lambda node: "()",
    ast.Anchor: lambda node: "^" if node.kind == "start" else "$",
    ast.Concat: _concat,
    ast.Alternation: _alternation,
    ast.Permute: lambda node: "PERMUTE(" + ", ".join(_text(i) for i in node.items) + ")",
    ast.Exclusion: lambda node: "{- " + _text(node.inner) + " -}",
    ast.Quantified: _quantified,
}

# the short forms of common bounds; others are written {n}, {n,}, {,m}, {n,m}
_SHORT_QUANTIFIERS = {(0, None): "*", (1, None): "+", (0, 1): "?"}


def quantifier_text(low: int, high: int | None, greedy: bool = True) -> str:
    """``*``, ``+``, ``?``, ``{n}``, ``{n,}``, ``{,m}`` or ``{n,m}``, with ``?`` if reluctant."""
    text = _SHORT_QUANTIFIERS.get((low, high))
    if text is None:
        if high is None:
            text = f"{{{low},}}"
        elif low == high:
            text = f"{{{low}}}"
        elif low == 0:
            text = f"{{,{high}}}"
        else:
            text = f"{{{low},{high}}}"
    return text if greedy else text + "?"


# ---------------------------------------------------------------------------- DOT


@dataclass(frozen=True)
class _Edge:
    target: int
    label: str
    attrs: str  # extra DOT attributes, e.g. 'style=dashed'


# Node attributes per instruction kind. The label is the program counter (DONE says so).
_NODE_ATTRS = {
    Op.MATCH_LABEL: "shape=circle",
    Op.SPLIT: "shape=diamond, style=filled, fillcolor=lightyellow",
    Op.JUMP: "shape=circle, width=0.3, fontsize=10",
    Op.ANCHOR_START: "shape=circle, color=darkgreen",
    Op.ANCHOR_END: "shape=circle, color=darkgreen",
    Op.DONE: "shape=doublecircle, style=filled, fillcolor=palegreen",
}

_CONSUME = 'fontname="Helvetica-Bold"'
_EXCLUDED = "color=gray50, fontcolor=gray50"
_JUMP = "style=dotted"
_PREFERRED = "style=bold, color=royalblue, fontcolor=royalblue"
_LESS_PREFERRED = "style=dashed, color=gray40, fontcolor=gray40"
_ANCHOR = "style=dotted, color=darkgreen, fontcolor=darkgreen"


def _match_edges(program: Program, pc: int) -> list[_Edge]:
    ins = program[pc]
    name = program.label_name(ins.label)
    if ins.excluded:
        return [_Edge(pc + 1, "{- " + name + " -}", _EXCLUDED)]
    return [_Edge(pc + 1, name, _CONSUME)]


def _split_edges(program: Program, pc: int) -> list[_Edge]:
    targets = program[pc].targets
    return [
        _Edge(target, str(rank), _PREFERRED if rank == 1 else _LESS_PREFERRED)
        for rank, target in enumerate(targets, start=1)
    ]


# instruction kind -> its outgoing transitions
_EDGES: dict[Op, Callable[[Program, int], list[_Edge]]] = {
    Op.MATCH_LABEL: _match_edges,
    Op.SPLIT: _split_edges,
    Op.JUMP: lambda program, pc: [_Edge(t, "ε", _JUMP) for t in program[pc].targets],
    Op.ANCHOR_START: lambda program, pc: [_Edge(pc + 1, "^ (partition start)", _ANCHOR)],
    Op.ANCHOR_END: lambda program, pc: [_Edge(pc + 1, "$ (partition end)", _ANCHOR)],
    Op.DONE: lambda program, pc: [],
}


def quote(text: str) -> str:
    """``text`` as a DOT double-quoted string (backslashes, quotes, newlines escaped)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def program_dot(
    program: Program, title: str = "", *, name: str = "pattern", max_states: int = MAX_STATES
) -> str:
    """The DOT source (a ``digraph``) of ``program``, with ``title`` above it."""
    lines = [
        f"digraph {quote(name)} {{",
        "  rankdir=LR;",
        f"  label={quote(title + chr(10) + LEGEND if title else LEGEND)};",
        "  labelloc=t;",
        '  fontname="Helvetica";',
        '  node [fontname="Helvetica"];',
        '  edge [fontname="Helvetica"];',
    ]
    lines += [f"  {line}" for line in _body(program, max_states)]
    lines.append("}")
    return "\n".join(lines) + "\n"


def _body(program: Program, max_states: int) -> Iterator[str]:
    if len(program) > max_states:
        note = f"{len(program)} instructions: too many to draw (limit {max_states})"
        yield f"note [shape=box, label={quote(note)}];"
        return
    yield "start [shape=point, width=0.15];"
    yield "start -> s0;"
    for pc, ins in enumerate(program):
        label = "DONE" if ins.op is Op.DONE else str(pc)
        yield f"s{pc} [label={quote(label)}, {_NODE_ATTRS[ins.op]}];"
    for pc in range(len(program)):
        for edge in _EDGES[program[pc].op](program, pc):
            yield f"s{pc} -> s{edge.target} [label={quote(edge.label)}, {edge.attrs}];"


def pattern_dot(
    pattern: ast.PatternNode,
    program: Program,
    *,
    name: str = "pattern",
    max_states: int = MAX_STATES,
) -> str:
    """The DOT graph of ``program`` (compiled from ``pattern``) titled ``PATTERN (...)``."""
    return program_dot(
        program, "PATTERN " + pattern_text(pattern), name=name, max_states=max_states
    )


# ---------------------------------------------------------------------------- SVG


def render_svg(dot: str, timeout: float = 30.0) -> str | None:
    """``dot`` rendered as an inline ``<svg>`` by Graphviz, or None when Graphviz's ``dot``
    is not on PATH or fails (callers then show the DOT source)."""
    exe = shutil.which("dot")
    if exe is None:
        return None
    try:
        proc = subprocess.run(
            [exe, "-Tsvg"], input=dot, capture_output=True, text=True, timeout=timeout
        )
    except (OSError, subprocess.SubprocessError):
        return None
    start = proc.stdout.find("<svg")
    if proc.returncode != 0 or start < 0:
        return None
    return proc.stdout[start:]  # without the XML prolog, for inlining in HTML
