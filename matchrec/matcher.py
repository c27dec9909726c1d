"""Find row pattern matches: a Pike VM over the program built by ``matchrec.nfa``.

At a start row the match is the first one in preferment order, the one a backtracking
regex engine would find. Instead of backtracking, the matcher runs every alternative at
once, one row at a time, keeping its threads in preferment order:

* A thread is an instruction waiting to consume the next row (a ``MATCH_LABEL``) plus
  the labels it gave to the rows so far (its history).
* For each row, every thread in order tries its label on the row (the DEFINE evaluator
  decides, looking at the history); survivors follow the instructions that consume no
  row (the epsilon closure, cached per program) to their next ``MATCH_LABEL`` or DONE.
* A thread reaching DONE is a match. Threads after it are less preferred: they are
  dropped. Threads before it are preferred and go on; if one of them matches later, it
  replaces the match. The match is final when no thread is left.
* Two threads at the same instruction with the same history have the same future, so
  the later (less preferred) one is dropped. Histories are hash-consed (interned) per
  row, so "same history" is an identity check. This bounds the number of threads by
  (program size) x (distinct histories): ``((A+)+ B)`` runs in linear time. When the
  caller promises that no DEFINE looks at the history (``history_matters=False``), the
  instruction alone decides and there are at most as many threads as instructions.

Empty loop iterations (Trino's behaviour, which the conformance tests expect): within
one row, each thread's closure visits each instruction at most once, and a path that
comes back to an instruction it already passed at this row dies. Loops are do-while
(the test comes after the body), so:

* the first iteration of a loop at a row may be empty, but then it is the last one:
  going round again reaches the body's start a second time, and the exit of the test
  is taken instead (``(Y?){2,}`` over rows that are all Y is one match of all rows;
  ``(() | A)*`` matches empty, ``()`` being preferred);
* an iteration that follows a non-empty one at the same row may not be empty: coming
  back to the test, already passed at this row, kills it, and its other alternatives
  are tried before the loop exits (``(B | () | A)*`` over rows B, A takes both rows).

The work for one start row is a :class:`MatchRun`, stepped one row at a time, so that a
caller can feed rows as they arrive; :func:`find_match` runs one over a whole partition
and :func:`match_partition` finds all matches of a partition with AFTER MATCH SKIP.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from matchrec.errors import MatchRuntimeError
from matchrec.nfa import Program

Evaluate = Callable[[int, int, Sequence[int]], bool]
"""``evaluate(label_id, start, labels)``: may row ``start + len(labels) - 1`` get label
``label_id``? ``labels[i]`` is the label of row ``start + i`` of the match so far; the last
element is the candidate row with its tentative label (``== label_id``). ``labels`` is
only valid during the call: the matcher reuses the list."""

EvaluateFactory = Callable[[int], Evaluate]
"""``evaluate_factory(match_number)``: the DEFINE evaluator to use while looking for
the match that would get number ``match_number`` (for ``MATCH_NUMBER()`` in DEFINE)."""

SKIP_MODES = frozenset({"past_last", "next_row", "first", "last"})


@dataclass
class Match:
    """One match in a partition.

    ``start`` is the first row; ``end`` is exclusive (``end == start`` for an empty match,
    found at row ``start``). ``labels[i]`` and ``excluded[i]`` describe row ``start + i``:
    its label id, and whether it was matched inside ``{- -}``.
    """

    start: int
    end: int
    labels: list[int]
    excluded: list[bool]

    @property
    def is_empty(self) -> bool:
        return self.end == self.start


class _Node:
    """A history: the labels given to the rows of a match so far, as a linked list.

    ``buf`` is a Python list whose first ``depth`` items are this history's labels, or
    None until needed. Lists are shared along a chain (a child appends to its parent's
    list when the list ends where the parent does), so a run of rows copies nothing;
    only a history that branches off and then keeps being extended gets its own copy.
    """

    __slots__ = ("parent", "label", "excluded", "depth", "buf", "uid", "start")

    def __init__(self, parent, label, excluded, depth, buf, uid, start):
        self.parent = parent
        self.label = label
        self.excluded = excluded
        self.depth = depth
        self.buf = buf
        self.uid = uid  # unique within a run: the interning key
        self.start = start  # the match's first row


def _materialize(node: _Node) -> list[int]:
    """A fresh list of ``node``'s labels (for a history that branched off)."""
    tail = []
    at = node
    while at.buf is None:
        tail.append(at.label)
        at = at.parent
    out = at.buf[: at.depth]
    out.extend(reversed(tail))
    return out


def _check(evaluate: Evaluate, node: _Node, label: int) -> bool:
    """The DEFINE verdict for giving ``label`` to the row after ``node``'s history."""
    buf = node.buf
    if buf is None:
        buf = node.buf = _materialize(node)
    depth = node.depth
    if len(buf) == depth:
        buf.append(label)
        try:
            return bool(evaluate(label, node.start, buf))
        finally:
            buf.pop()
    # a sibling history already extended the shared list: borrow its last slot
    previous = buf[depth]
    buf[depth] = label
    try:
        return bool(evaluate(label, node.start, buf))
    finally:
        buf[depth] = previous


def _extend(node: _Node, label: int) -> list[int] | None:
    """The label list for ``node``'s child with ``label``: shared if possible, else None
    (then built if ever needed)."""
    buf = node.buf
    if buf is None:
        return None
    depth = node.depth
    if len(buf) == depth:
        buf.append(label)
        return buf
    if buf[depth] == label:
        return buf
    return None


class MatchRun:
    """The search for a match, fed one row at a time.

    ``step()`` consumes row ``position`` (the caller guarantees it exists) and returns
    whether the run needs more rows; ``finish()`` says the partition ends at
    ``position`` (``$`` holds there) and settles the result. Once ``finished``,
    ``result`` is the match or None. ``candidate`` is the best match found so far: the
    result, unless a preferred thread, still alive, matches later. A match ending at
    row ``r`` is seen when row ``r`` is stepped (or at ``finish``), because only then is
    it known whether ``$`` holds at ``r``.

    ``history_matters=False`` promises that the DEFINE verdicts do not depend on the
    labels of the match so far: threads then merge by instruction alone.

    ``origin``: rows are counted from partition row ``origin`` (a piece of a long
    partition), so ``^`` holds at row 0 only when ``origin`` is 0.

    ``scan=True`` searches from every row from ``start`` on at once, for the first row
    where a match starts, and that match (so a partition with no match is read once,
    not once per row). Every row is a new start with the lowest priority, until a match
    is found. It is only valid when the verdicts depend on neither the history nor the
    start row (it implies ``history_matters=False``): then a thread from a later start
    at the same instruction as one from an earlier start has the same future, and only
    matters if the earlier start has no match at all.
    """

    __slots__ = (
        "program",
        "start",
        "position",
        "finished",
        "history_matters",
        "scan",
        "max_threads",
        "work",
        "origin",
        "_evaluate",
        "_pcs",
        "_nodes",
        "_best",
        "_next_uid",
        "_result",
    )

    def __init__(
        self,
        program: Program,
        start: int,
        evaluate: Evaluate,
        *,
        history_matters: bool = True,
        scan: bool = False,
        origin: int = 0,
    ):
        self.program = program
        self.origin = origin  # the partition row of row 0 (rows may start mid-partition)
        self.start = start
        self.position = start
        self.finished = False
        self.history_matters = history_matters and not scan
        self.scan = scan
        self.max_threads = 0  # most threads alive at once (a diagnostic)
        self.work = 0  # thread x instruction visits (a diagnostic)
        self._evaluate = evaluate
        # threads waiting to consume row `position`, in preferment order, as parallel
        # lists: the instruction to continue from (after their last MATCH_LABEL), and
        # their history
        self._pcs: list[int] = []
        self._nodes: list[_Node] = []
        self._best: tuple[_Node, int] | None = None
        self._next_uid = 0
        self._result: Match | None = None
        if not scan:
            self._add_start(start)

    def _add_start(self, row: int) -> None:
        self._pcs.append(0)
        self._nodes.append(_Node(None, -1, False, 0, [], self._next_uid, row))
        self._next_uid += 1

    # ------------------------------------------------------------------ results
    @property
    def result(self) -> Match | None:
        """The match, or None; only once ``finished``."""
        if not self.finished:
            raise RuntimeError("the match run is not finished")
        return self._result

    @property
    def candidate(self) -> Match | None:
        """The best match so far (the result once ``finished``)."""
        if self.finished:
            return self._result
        return self._build(self._best)

    def partial(self) -> Match | None:
        """The rows the most preferred live thread has matched so far (None: no thread
        alive, or none has matched a row): what a search cut off here had found."""
        if self.finished or not self._nodes or self._nodes[0].depth == 0:
            return None
        return self._build((self._nodes[0], self.position))

    @staticmethod
    def _build(best: tuple[_Node, int] | None) -> Match | None:
        if best is None:
            return None
        node, end = best
        labels = []
        excluded = []
        while node.parent is not None:
            labels.append(node.label)
            excluded.append(node.excluded)
            node = node.parent
        labels.reverse()
        excluded.reverse()
        return Match(node.start, end, labels, excluded)

    def _settle(self) -> None:
        self.finished = True
        self._pcs = []
        self._nodes = []
        self._result = self._build(self._best)

    # ------------------------------------------------------------------ stepping
    def step(self) -> bool:
        """Consume row ``position``; return True while the run needs more rows."""
        if self.finished:
            return False
        if self.scan and self._best is None:
            self._add_start(self.position)
        program = self.program
        row = self.position
        at_start = row == 0 and self.origin == 0
        cache = program._closures[2 * at_start]
        done_pc = program.done_pc
        prog_labels = program.labels
        prog_excluded = program.excluded
        num_labels = program.num_labels
        size = len(program)
        history = self.history_matters
        evaluate = self._evaluate

        seen: set[int] = set()  # (history, instruction) pairs already reached
        verdicts: dict[int, bool] = {}  # (history, label) -> DEFINE verdict
        children: dict[int, _Node] = {}  # (history, label, excluded) -> interned child
        new_pcs: list[int] = []
        new_nodes: list[_Node] = []
        uid = self._next_uid

        for pc, node in zip(self._pcs, self._nodes):
            targets = cache.get(pc)
            if targets is None:
                targets = program.closure(pc, at_start, False)
            nid = node.uid
            base = nid * size if history else 0
            matched = False
            for target in targets:
                key = base + target
                if key in seen:
                    continue  # a preferred thread is in the same state
                seen.add(key)
                if target == done_pc:
                    # a match; every thread after this one is less preferred
                    self._best = (node, row)
                    matched = True
                    break
                label = prog_labels[target]
                vkey = nid * num_labels + label if history else label
                ok = verdicts.get(vkey)
                if ok is None:
                    ok = verdicts[vkey] = _check(evaluate, node, label)
                if not ok:
                    continue
                excluded = prog_excluded[target]
                ckey = (nid * num_labels + label) * 2 + excluded
                child = children.get(ckey)
                if child is None:
                    child = children[ckey] = _Node(
                        node, label, excluded, node.depth + 1, _extend(node, label), uid, node.start
                    )
                    uid += 1
                new_pcs.append(target + 1)
                new_nodes.append(child)
            if matched:
                break

        self._next_uid = uid
        self.work += len(seen)
        self._pcs = new_pcs
        self._nodes = new_nodes
        self.position = row + 1
        if len(new_pcs) > self.max_threads:
            self.max_threads = len(new_pcs)
        if not new_pcs and (self._best is not None or not self.scan):
            self._settle()
            return False
        return True

    def settled(self) -> bool:
        """Whether the result is known although the rows at hand end at ``position`` and
        more may follow: every thread preferred to the best match so far is dead or ends
        its match here. Then the run is finished."""
        if self.finished:
            return True
        at_start = self.position == 0 and self.origin == 0
        program = self.program
        for pc, node in zip(self._pcs, self._nodes):
            verdict = program.before_next_row(pc, at_start)
            if verdict == program.NEEDS_ROW:
                return False
            if verdict == program.ENDS:
                self._best = (node, self.position)
                break
        self._settle()
        return True

    def finish(self) -> Match | None:
        """The partition ends at ``position``: settle, and return the result."""
        if not self.finished:
            at_start = self.position == 0 and self.origin == 0
            done_pc = self.program.done_pc
            for pc, node in zip(self._pcs, self._nodes):
                if done_pc in self.program.closure(pc, at_start, True):
                    self._best = (node, self.position)
                    break
            self._settle()
        return self._result


# ---------------------------------------------------------------------------- drivers


def find_match(
    program: Program,
    start: int,
    n_rows: int,
    evaluate: Evaluate,
    *,
    history_matters: bool = True,
) -> Match | None:
    """The first match in preferment order starting at row ``start`` of a partition of
    ``n_rows`` rows, or None.

    ``history_matters=False`` promises that no DEFINE verdict depends on the labels of
    the match so far; threads then merge by instruction alone.
    """
    if not 0 <= start <= n_rows:
        raise ValueError(f"start row {start} outside a partition of {n_rows} rows")
    run = MatchRun(program, start, evaluate, history_matters=history_matters)
    while run.position < n_rows:
        if not run.step():
            return run.result
    return run.finish()


def match_partition(
    program: Program,
    n_rows: int,
    evaluate_factory: EvaluateFactory,
    *,
    skip_mode: str = "past_last",
    skip_labels: frozenset[int] = frozenset(),
    history_matters: bool = True,
    start_matters: bool = True,
) -> Iterator[tuple[int, Match]]:
    """All matches of one partition, as ``(match_number, match)``, numbered 1, 2, 3...

    Matching is tried at row 0; after a match the next start row follows AFTER MATCH
    SKIP (``skip_mode`` one of ``past_last``, ``next_row``, ``first``, ``last``; for
    ``first``/``last``, ``skip_labels`` are the label ids of the target variable, several
    for a SUBSET). After an empty match, or where no match starts, it is the next row.

    ``evaluate_factory(n)`` gives the DEFINE evaluator used while looking for match
    number ``n``; it is called once per number, when needed.

    ``history_matters=False``: no verdict depends on the labels of the match so far.
    ``start_matters=False``: no verdict depends on the start row (a WITHIN bound does).
    With both False, the rows are scanned once for all candidate start rows together
    (linear in the partition when nothing matches) instead of once per start row.

    Raises :class:`MatchRuntimeError` (after yielding the match) when SKIP TO FIRST/LAST
    names a variable absent from the match, or would start again at the match's first row.
    """
    if skip_mode not in SKIP_MODES:
        raise ValueError(f"unknown AFTER MATCH SKIP mode {skip_mode!r}")
    scan = not history_matters and not start_matters
    number = 1
    evaluate: Evaluate | None = None
    row = 0
    while row < n_rows:
        if evaluate is None:
            evaluate = evaluate_factory(number)
        if scan:
            run = MatchRun(program, row, evaluate, scan=True)
            while run.position < n_rows and run.step():
                pass
            match = run.finish()
            if match is None:
                return  # no match starts at any row from `row` on
        else:
            match = find_match(program, row, n_rows, evaluate, history_matters=history_matters)
            if match is None:
                row += 1
                continue
        yield number, match
        number += 1
        evaluate = None
        row = next_start(match, skip_mode, skip_labels)


def next_start(match: Match, skip_mode: str, skip_labels: frozenset[int] = frozenset()) -> int:
    """The row where matching resumes after ``match`` (AFTER MATCH SKIP)."""
    if match.end == match.start:
        return match.start + 1
    if skip_mode == "past_last":
        return match.end
    if skip_mode == "next_row":
        return match.start + 1
    labels = match.labels
    offset = -1
    if skip_mode == "first":
        for i, label in enumerate(labels):
            if label in skip_labels:
                offset = i
                break
    else:
        for i in range(len(labels) - 1, -1, -1):
            if labels[i] in skip_labels:
                offset = i
                break
    if offset < 0:
        raise MatchRuntimeError(SKIP_ABSENT)
    if offset == 0:
        raise MatchRuntimeError(SKIP_TO_START)
    return match.start + offset


#: the run-time errors of AFTER MATCH SKIP TO (Trino's words), and how to avoid each
SKIP_ABSENT = "AFTER MATCH SKIP failed: pattern variable is not present in match"
SKIP_TO_START = "AFTER MATCH SKIP failed: cannot skip to first row of match"
_SKIP_HINTS = {
    SKIP_ABSENT: "a match had no row of the label to skip to: make that label mandatory "
    "in PATTERN, or use AFTER MATCH SKIP PAST LAST ROW / TO NEXT ROW",
    SKIP_TO_START: "skipping to a match's first row would find the same match again: skip "
    "to a label that cannot start a match, or use AFTER MATCH SKIP TO NEXT ROW",
}


def placed_skip_error(err: MatchRuntimeError, sql: str, pos: int) -> MatchRuntimeError:
    """``err`` pointing at AFTER MATCH SKIP's label (offset ``pos`` of ``sql``) with how to
    avoid it, when it is one of :func:`next_start`'s errors without a place; else ``err``.
    The matcher raises them without the query, which the runtime that runs it has."""
    hint = _SKIP_HINTS.get(err.message)
    if hint is None or err.line is not None or pos < 0 or not sql:
        return err
    return MatchRuntimeError(err.message, sql=sql, pos=pos, hint=hint)
