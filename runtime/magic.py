"""IPython/Jupyter magics: ``%%matchrec`` runs a cell of SQL, ``%matchrec`` one line.

``%load_ext matchrec`` registers them (see :func:`load_ipython_extension`). A query is run
once: the magic fetches ``limit + 1`` rows with ``df.limit(limit + 1).collect()``, shows
the first ``limit`` as an HTML table and knows from the extra row whether more exist. It
never counts the whole result (that would be a second Spark job): the footer says either
the exact number of rows, when they all fit, or "first N rows shown, more available".

SQL is passed to :func:`matchrec.sql` verbatim. A cell magic gets its body untouched by
IPython; the line of both magics would normally go through IPython's ``{expr}`` / ``$var``
expansion, which turns ``A{2,3}`` into ``A(2, 3)``, so the magic opts out of it
(``@no_var_expand``).

Errors the user can fix (matchrec's own, with line, column and caret; Spark's analysis
and parse errors) are raised with a short rendering instead of a traceback: IPython and
Jupyter show what ``_render_traceback_`` returns. The cell still fails, so "Run All"
stops there rather than going on with a stale or missing result. Other exceptions (bugs,
crashing user UDFs) keep their full traceback.

Only DataFrame calls that Spark Connect also has are used (``limit``, ``collect``,
``columns``), so a Connect session works as far as :func:`matchrec.sql` supports it.
"""

from __future__ import annotations

import datetime as dt
import html
import importlib.util
import keyword
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, magics_class, no_var_expand
from IPython.display import display

import matchrec
from matchrec.errors import MatchRecognizeError, line_col, line_excerpt

from .interval_text import intervals_as_text

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

DEFAULT_LIMIT = 20
#: Name under which the last result DataFrame is stored in the user namespace.
LAST_RESULT = "_mrdf"
#: Longest text shown for one value; longer ones end in an ellipsis.
MAX_VALUE_CHARS = 1000

_NULL_HTML = '<span style="color: #888; font-style: italic">NULL</span>'


def load_ipython_extension(ipython: Any) -> None:
    """Register ``%%matchrec`` and ``%matchrec`` with ``ipython`` (``%load_ext matchrec``)."""
    ipython.register_magics(MatchrecMagics)


# --- options ----------------------------------------------------------------------------


@dataclass
class Options:
    """The parsed options of one magic call."""

    output: str | None = None
    limit: int = DEFAULT_LIMIT
    explain: bool = False
    session: str | None = None
    args: str | None = None


_VALUE_OPTIONS = {
    "-o": "output",
    "--output": "output",
    "--limit": "limit",
    "--session": "session",
    "--args": "args",
}
_FLAG_OPTIONS = {"--explain": "explain"}
_TOKEN = re.compile(r"\s*(\S+)")


def parse_line(line: str) -> tuple[Options, str]:
    """Split a magic line into its leading options and the rest (SQL, kept verbatim).

    Options come first; the first token that does not start with ``-`` begins the SQL.
    Hand-written rather than shlex/argparse so that the SQL part is never re-tokenised.
    """
    opts = Options()
    pos = 0
    while True:
        match = _TOKEN.match(line, pos)
        if match is None or not match.group(1).startswith("-"):
            break
        token = match.group(1)
        pos = match.end()
        name, eq, value = token.partition("=")
        if name in _FLAG_OPTIONS and not eq:
            setattr(opts, _FLAG_OPTIONS[name], True)
            continue
        if name not in _VALUE_OPTIONS:
            raise UsageError(f"%matchrec: unknown option {token!r} (see %matchrec?)")
        if not eq:
            nxt = _TOKEN.match(line, pos)
            if nxt is None:
                raise UsageError(f"%matchrec: option {name} needs a value")
            value, pos = nxt.group(1), nxt.end()
        setattr(opts, _VALUE_OPTIONS[name], _check_value(name, value))
    return opts, line[pos:].strip()


def _check_value(name: str, value: str) -> Any:
    if name == "--limit":
        if not value.isdigit():
            raise UsageError(f"%matchrec: --limit needs a whole number >= 0, not {value!r}")
        return int(value)
    if not value.isidentifier() or keyword.iskeyword(value):
        raise UsageError(f"%matchrec: {name} needs a Python variable name, not {value!r}")
    return value


# --- the magic --------------------------------------------------------------------------


@magics_class
class MatchrecMagics(Magics):
    """The ``%matchrec`` / ``%%matchrec`` magics."""

    @line_cell_magic
    @no_var_expand
    def matchrec(self, line: str, cell: str | None = None) -> None:
        """Run SQL with MATCH_RECOGNIZE through matchrec.sql and show the first rows.

        Usage::

            %%matchrec [-o NAME] [--limit N] [--explain] [--session VAR] [--args VAR]
            SELECT ... FROM t MATCH_RECOGNIZE (...) ...

            %matchrec [options] SELECT ...

        Shows the first N rows (default 20) as a table with the row count and the elapsed
        time; the query runs once (N + 1 rows are fetched; the total is not counted when
        there are more). The DataFrame is stored as ``_mrdf`` and, with ``-o NAME``, as
        NAME.

        Options:
          -o NAME, --output NAME  also store the result DataFrame in variable NAME
          --limit N               show at most N rows (default 20)
          --explain               show matchrec.explain(spark, sql) instead of running
          --session VAR           the SparkSession in variable VAR (default: ``spark``
                                  if it is one, else the active session, else a new
                                  local one from matchrec.runtime.session.get_spark)
          --args VAR              bind the query's parameter markers to variable VAR:
                                  a dict for ``:name`` markers, a list for ``?`` ones
                                  (as ``matchrec.sql(spark, query, args=VAR)``)

        The SQL is used verbatim: no ``{expr}`` or ``$var`` expansion, so patterns like
        ``A{2,3} B$`` are safe in both forms.
        """
        opts, rest = parse_line(line)
        if cell is None:
            query = rest
        elif rest:
            raise UsageError(
                f"%%matchrec: the first line takes options only, not {rest!r}; "
                "put the SQL on the following lines"
            )
        else:
            query = cell
        if not query.strip():
            raise UsageError("%matchrec: no SQL given")

        spark = resolve_session(self.shell.user_ns, opts.session)
        args = resolve_args(self.shell.user_ns, opts.args)
        try:
            if opts.explain:
                display(_explain(spark, query, args))
                return
            df, result = run_query(spark, query, opts.limit, args)
        except Exception as exc:
            brief = brief_error(exc, query)
            if brief is None:
                raise
            exc._render_traceback_ = lambda: brief  # type: ignore[attr-defined]
            raise
        self.shell.user_ns[LAST_RESULT] = df
        if opts.output:
            self.shell.user_ns[opts.output] = df
        display(result)


def _explain(spark: SparkSession, query: str, args: dict | list | None = None) -> Any:
    """``matchrec.explain``'s result, or a clear message while that module is missing."""
    if importlib.util.find_spec("matchrec.runtime.explain") is None:
        raise UsageError(
            "%matchrec --explain: this matchrec has no explain support "
            "(matchrec.runtime.explain is not installed)"
        )
    return matchrec.explain(spark, query, args)


def run_query(
    spark: SparkSession, query: str, limit: int, args: dict | list | None = None
) -> tuple[DataFrame, ResultTable | PlanText]:
    """Run ``query`` once and return its DataFrame and a table of its first ``limit`` rows
    (an ``EXPLAIN`` statement's plan: the whole text).

    Exactly one action: ``df.limit(limit + 1).collect()`` (the extra row only tells
    whether there are more rows than shown), or an EXPLAIN's ``df.collect()``.
    """
    start = time.perf_counter()
    df = matchrec.sql(spark, query, args)
    if _EXPLAIN_STATEMENT.match(query) and df.columns == ["plan"]:
        plan = "\n".join(str(row[0]) for row in df.collect())
        return df, PlanText(plan, time.perf_counter() - start)
    rows = intervals_as_text(df.limit(limit + 1)).collect()
    elapsed = time.perf_counter() - start
    table = ResultTable(
        columns=list(df.columns),
        rows=[tuple(row) for row in rows[:limit]],
        more=len(rows) > limit,
        seconds=elapsed,
    )
    return df, table


def resolve_args(user_ns: dict[str, Any], var: str | None) -> dict | list | None:
    """The parameter values in variable ``var`` of the notebook (a dict or a list)."""
    if var is None:
        return None
    if var not in user_ns:
        raise UsageError(f"%matchrec: --args {var}: no variable named {var!r}")
    value = user_ns[var]
    if not isinstance(value, (dict, list)):
        raise UsageError(
            f"%matchrec: --args {var} must be a dict (for :name markers) or a list (for ? "
            f"markers), not {type(value).__name__}"
        )
    return value


def resolve_session(user_ns: dict[str, Any], var: str | None) -> SparkSession:
    """The SparkSession to run on: variable ``var`` if given, else the variable ``spark``
    if it holds a session, else the active session, else :func:`get_spark`'s."""
    if var is not None:
        if var not in user_ns:
            raise UsageError(f"%matchrec --session {var}: no variable named {var!r}")
        if not is_spark_session(user_ns[var]):
            kind = type(user_ns[var]).__name__
            raise UsageError(f"%matchrec --session {var}: {var} is a {kind}, not a SparkSession")
        return user_ns[var]
    if is_spark_session(user_ns.get("spark")):
        return user_ns["spark"]
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    from matchrec.runtime.session import get_spark

    return get_spark()


def is_spark_session(obj: Any) -> bool:
    """Whether ``obj`` is a classic or a Spark Connect SparkSession.

    The Connect class is not a subclass of the classic one; it is only checked when its
    module is already loaded (a Connect session cannot exist otherwise), because
    importing it needs grpc.
    """
    from pyspark.sql import SparkSession

    if isinstance(obj, SparkSession):
        return True
    connect = sys.modules.get("pyspark.sql.connect.session")
    return connect is not None and isinstance(obj, connect.SparkSession)


# --- errors -----------------------------------------------------------------------------

_WORKER_ERROR = re.compile(r"^matchrec\.errors\.\w+: ", re.MULTILINE)


def brief_error(exc: BaseException, query: str) -> list[str] | None:
    """The lines to show instead of a traceback for ``exc``, or None to keep the traceback.

    Brief: matchrec's errors (already rendered with a caret), Spark's errors about the
    query (message plus a caret under the spot Spark names, when that spot is in
    ``query``), and matchrec's run-time errors raised inside a Python worker. Kept: any
    other exception, including other worker crashes, whose traceback is the useful part.
    """
    if isinstance(exc, MatchRecognizeError):
        return str(exc).splitlines()
    try:
        from pyspark.errors import PySparkException, PythonException
        from pyspark.errors.exceptions.base import ParseException
    except ImportError:  # pragma: no cover - pyspark is a dependency
        return None
    if not isinstance(exc, PySparkException):
        return None
    text = str(exc)
    if isinstance(exc, PythonException):
        found = list(_WORKER_ERROR.finditer(text))
        if not found:
            return None
        message = text[found[-1].end() :]
        return _cut_jvm_trace(message).split(" SQLSTATE:")[0].rstrip().splitlines()
    if isinstance(exc, ParseException):  # the message holds the SQL and a caret already
        return _cut_jvm_trace(text).strip().splitlines()
    lines = exc.getMessage().strip().splitlines()
    if "== SQL" not in text:
        lines += _context_caret(exc, query)
    return lines


def _cut_jvm_trace(text: str) -> str:
    return text.split("\nJVM stacktrace:")[0]


def _context_caret(exc: Any, query: str) -> list[str]:
    """``  line | text`` and a caret under the fragment Spark's query context names.

    The context's offsets refer to the text Spark parsed, which matchrec may have
    rewritten; they are used only if the fragment is there in ``query``, else the
    fragment is looked for once in ``query``.
    """
    try:
        contexts = exc.getQueryContext()
    except Exception:
        return []
    for ctx in contexts:
        try:
            if ctx.objectType() or ctx.contextType().name != "SQL":
                continue
            fragment, start = ctx.fragment(), ctx.startIndex()
        except Exception:
            continue
        if not fragment:
            continue
        if query[start : start + len(fragment)] != fragment:
            if query.count(fragment) != 1:
                continue
            start = query.find(fragment)
        line, col = line_col(query, start)
        text, before = line_excerpt(query.split("\n")[line - 1], col - 1)
        width = max(1, min(len(fragment.split("\n")[0]), len(text) - before))
        gutter = " " * (len(str(line)) + 3)
        return [f"  {line} | {text}", f"  {gutter}{' ' * before}{'^' * width}"]
    return []


# --- rendering --------------------------------------------------------------------------


#: an ``EXPLAIN ...`` statement, after any leading comments
_EXPLAIN_STATEMENT = re.compile(r"(?:\s|--[^\n]*(?:\n|$)|/\*.*?\*/)*EXPLAIN\b", re.I | re.S)


@dataclass
class PlanText:
    """The plan an ``EXPLAIN`` statement returns (one long text value), shown whole as
    preformatted text rather than cut to fit a table cell."""

    text: str
    seconds: float

    def _repr_html_(self) -> str:
        return (
            f'<pre class="matchrec-plan">{html.escape(self.text)}</pre>\n'
            f'<p class="matchrec-summary" style="color: #666">{_seconds(self.seconds)}</p>'
        )

    def __repr__(self) -> str:
        return f"{self.text}\n{_seconds(self.seconds)}"


@dataclass
class ResultTable:
    """The first rows of a result, shown as HTML in notebooks and as text elsewhere."""

    columns: list[str]
    rows: list[tuple[Any, ...]]
    more: bool
    seconds: float

    def summary(self) -> str:
        """Row count and time, e.g. ``3 rows · 0.41 s`` or ``first 20 rows shown, ...``."""
        n = len(self.rows)
        if not self.more:
            count = f"{n} row" if n == 1 else f"{n} rows"
        elif n == 0:
            count = "rows available, none shown (--limit 0)"
        else:
            count = f"first {n} row{'' if n == 1 else 's'} shown, more available"
        return f"{count} · {_seconds(self.seconds)}"

    def _repr_html_(self) -> str:
        summary = (
            f'<p class="matchrec-summary" style="color: #666">{html.escape(self.summary())}</p>'
        )
        if not self.columns:  # a statement such as CREATE VIEW: nothing to tabulate
            return summary
        head = "".join(f"<th>{html.escape(c)}</th>" for c in self.columns)
        body = "".join(
            "<tr>" + "".join(f"<td>{_html_value(v)}</td>" for v in row) + "</tr>\n"
            for row in self.rows
        )
        return (
            '<div class="matchrec-result">\n'
            '<table class="dataframe matchrec">\n'
            f"<thead><tr>{head}</tr></thead>\n<tbody>\n{body}</tbody>\n</table>\n"
            f"{summary}\n</div>"
        )

    def __repr__(self) -> str:
        cells = [[format_value(v) for v in row] for row in self.rows]
        widths = [len(c) for c in self.columns]
        for row in cells:
            widths = [max(w, len(c)) for w, c in zip(widths, row)]

        def line(values: Sequence[str]) -> str:
            return "| " + " | ".join(v.ljust(w) for v, w in zip(values, widths)) + " |"

        rule = "+-" + "-+-".join("-" * w for w in widths) + "-+"
        out = [rule, line(self.columns), rule, *(line(r) for r in cells), rule]
        return "\n".join([*out, self.summary()]) if self.columns else self.summary()


def _seconds(seconds: float) -> str:
    return f"{seconds:.2f} s" if seconds < 10 else f"{seconds:.1f} s"


def _html_value(value: Any) -> str:
    return _NULL_HTML if value is None else html.escape(format_value(value))


def format_value(value: Any) -> str:
    """A value as text, close to Spark's ``show()``: NULL, true/false, [array], {struct},
    {key -> value}; at most :data:`MAX_VALUE_CHARS` characters."""
    text = _format(value)
    return text if len(text) <= MAX_VALUE_CHARS else text[: MAX_VALUE_CHARS - 1] + "…"


def _format(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, (bytes, bytearray)):
        return "[" + " ".join(f"{b:02X}" for b in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_format(k)} -> {_format(v)}" for k, v in value.items()) + "}"
    if isinstance(value, tuple) and hasattr(value, "__fields__"):  # a Row: a struct
        return "{" + ", ".join(_format(v) for v in value) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_format(v) for v in value) + "]"
    return str(value)
