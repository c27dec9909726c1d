"""Parser of sqllogictest (``.slt``) files into :class:`Record` objects.

The format (see ``shared/conformance/README.md``): records are separated by blank
lines and lines starting with ``#`` are comments. A record is one of

``statement ok``
    the SQL on the following lines must run without error;
``statement error [<text>]``
    the SQL must fail; ``<text>`` (optional) is matched against the error message as a
    case-insensitive substring or regular expression. A multi-line message may instead
    follow a ``----`` line after the SQL;
``query <types> [nosort|rowsort|valuesort] [<label>]``
    the SQL's result must equal the rows after the ``----`` line, one row per line with
    tab-separated values; ``<types>`` has one letter per column (``I``, ``R``, ``T``);
``query error [<text>]``
    same as ``statement error``.

Control lines: ``skipif <engine>`` / ``onlyif <engine>`` before a record decide
whether it runs on this engine (``matchrec``, also known as ``spark``); ``halt`` ends
the file; ``hash-threshold <n>`` is ignored.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from matchrec.errors import MatchRecognizeError

#: Names this engine answers to in ``skipif`` / ``onlyif`` lines.
ENGINE_NAMES: frozenset[str] = frozenset({"matchrec", "spark"})

SORT_MODES = ("nosort", "rowsort", "valuesort")

#: How an empty string is written in expected results (a blank line would end the record).
EMPTY = "(empty)"


class SltError(MatchRecognizeError):
    """A query suite cannot be run: bad path, unreadable or malformed file."""

    kind = "slt error"


class SltParseError(SltError):
    """A ``.slt`` file does not follow the sqllogictest format."""

    def __init__(self, message: str, *, path: str, line: int) -> None:
        self.path = path
        self.lineno = line
        super().__init__(f"{path}:{line}: {message}")


@dataclass(frozen=True)
class Record:
    """One ``statement`` or ``query`` record of a ``.slt`` file."""

    kind: str
    """``"statement"`` or ``"query"``."""
    sql: str
    path: str
    line: int
    """1-based line of the record's header in ``path``."""
    header: str
    """The header line as written, e.g. ``query IIT rowsort``."""
    expect_error: bool = False
    error: str | None = None
    """Expected error text (substring or regex); None accepts any error."""
    types: str = ""
    sort: str = "nosort"
    expected: tuple[tuple[str, ...], ...] = field(default=())
    skip: bool = False
    """True when a ``skipif`` / ``onlyif`` line excludes it on this engine."""

    @property
    def location(self) -> str:
        """``path:line`` of the record, as editors and terminals link it."""
        return f"{self.path}:{self.line}"

    @property
    def is_setup(self) -> bool:
        """A ``statement ok`` record: it prepares state (views) for the records after it."""
        return self.kind == "statement" and not self.expect_error


def parse_file(
    path: str | os.PathLike[str], engines: frozenset[str] = ENGINE_NAMES
) -> list[Record]:
    """Parse the ``.slt`` file at ``path``; raises :class:`SltError` if unreadable."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")  # a BOM (Windows editors) is no text
    except (OSError, UnicodeDecodeError) as exc:
        raise SltError(f"cannot read {os.fspath(path)}: {exc}") from exc
    return parse_slt(text, os.fspath(path), engines)


def parse_slt(
    text: str, path: str = "<string>", engines: frozenset[str] = ENGINE_NAMES
) -> list[Record]:
    """Parse sqllogictest ``text``; ``path`` only names it in records and errors. Lines
    end at ``\n`` (``\r\n``) only, as other runners read them: a U+2028 or a form feed
    is a character of its line, not a line break (``str.splitlines`` broke there)."""
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    if lines and lines[-1] == "":
        lines.pop()
    return _Parser(lines, path, engines).parse()


class _Parser:
    """A cursor over the lines of one file."""

    def __init__(self, lines: list[str], path: str, engines: frozenset[str]) -> None:
        self.lines = [line.rstrip("\r") for line in lines]
        self.path = path
        self.engines = engines
        self.pos = 0  # index of the next line to read

    def error(self, message: str, index: int | None = None) -> SltParseError:
        line = (self.pos if index is None else index) + 1
        return SltParseError(message, path=self.path, line=line)

    def parse(self) -> list[Record]:
        records: list[Record] = []
        skip = False  # set by skipif / onlyif for the next record
        while self.pos < len(self.lines):
            index = self.pos
            words = self.lines[index].split()
            self.pos += 1
            if not words or words[0].startswith("#"):
                continue
            directive = words[0]
            if directive in ("skipif", "onlyif"):
                if len(words) < 2:
                    raise self.error(f"{directive} needs an engine name", index)
                named = words[1].lower() in self.engines
                skip = skip or (named if directive == "skipif" else not named)
            elif directive == "halt":
                if not skip:
                    break
                skip = False
            elif directive == "hash-threshold":
                continue
            elif directive == "statement":
                records.append(self.statement(index, words, skip))
                skip = False
            elif directive == "query":
                records.append(self.query(index, words, skip))
                skip = False
            else:
                raise self.error(f"unknown record type {directive!r}", index)
        return records

    def statement(self, index: int, words: list[str], skip: bool) -> Record:
        header = self.lines[index].strip()
        if len(words) < 2 or words[1] not in ("ok", "error"):
            raise self.error("expected 'statement ok' or 'statement error [<message>]'", index)
        if words[1] == "ok":
            if len(words) > 2:
                raise self.error("'statement ok' takes no arguments", index)
            sql, has_results = self.sql_lines(index)
            if has_results:
                raise self.error("'statement ok' has no '----' section", index)
            return Record("statement", sql, self.path, index + 1, header, skip=skip)
        return self.error_record("statement", index, header, skip)

    def query(self, index: int, words: list[str], skip: bool) -> Record:
        header = self.lines[index].strip()
        if len(words) >= 2 and words[1] == "error":
            return self.error_record("query", index, header, skip)
        if len(words) < 2 or not words[1].isalpha():
            raise self.error(
                "expected 'query <types> [<sort mode>]', e.g. 'query IIT rowsort'", index
            )
        types = words[1].upper()
        sort = words[2] if len(words) > 2 else "nosort"
        if sort not in SORT_MODES:
            raise self.error(
                f"unknown sort mode {sort!r}; use one of {', '.join(SORT_MODES)}", index
            )
        sql, has_results = self.sql_lines(index)
        rows = expected_rows(self.block(), len(types)) if has_results else ()
        return Record(
            "query",
            sql,
            self.path,
            index + 1,
            header,
            types=types,
            sort=sort,
            expected=rows,
            skip=skip,
        )

    def error_record(self, kind: str, index: int, header: str, skip: bool) -> Record:
        message = header.split(None, 2)[2].strip() if len(header.split(None, 2)) > 2 else ""
        sql, has_results = self.sql_lines(index)
        if has_results:
            if message:
                raise self.error(
                    "give the expected error on the header line or after '----', not both", index
                )
            message = "\n".join(self.block()).strip()
        return Record(
            kind,
            sql,
            self.path,
            index + 1,
            header,
            expect_error=True,
            error=message or None,
            skip=skip,
        )

    def sql_lines(self, index: int) -> tuple[str, bool]:
        """The SQL after the header, up to a blank line, ``----`` (True) or the end."""
        sql: list[str] = []
        has_results = False
        while self.pos < len(self.lines):
            line = self.lines[self.pos]
            if not line.strip():
                break
            self.pos += 1
            if line.rstrip() == "----":
                has_results = True
                break
            if line.lstrip().startswith("#"):
                continue
            self._refuse_header(line, self.pos - 1)
            sql.append(line)
        text = "\n".join(sql).strip()
        if not text:
            raise self.error("record has no SQL", index)
        return text, has_results

    def block(self) -> list[str]:
        """Lines up to the next blank line or the end of the file."""
        out: list[str] = []
        while self.pos < len(self.lines) and self.lines[self.pos].strip():
            self._refuse_header(self.lines[self.pos], self.pos)
            out.append(self.lines[self.pos])
            self.pos += 1
        return out

    def _refuse_header(self, line: str, index: int) -> None:
        """A record's header inside the one before it: the blank line between them is
        missing, and the next record would be run as part of this one's SQL or rows. A
        header starts its line (indented SQL such as ``  query q`` is no header) and
        names its column types in capitals."""
        if line[:1].isspace() or "\t" in line.strip():
            return  # indented, or a row of several values
        if _HEADER.fullmatch(" ".join(line.split())):
            raise self.error(
                f"{line.strip()!r} starts a record inside the one before it: records are "
                "separated by a blank line; add one before it",
                index,
            )


#: a record's header line (``statement ok``, ``query IIT rowsort``, ``query error ...``)
_HEADER = re.compile(
    r"statement (?:ok|error(?: .*)?)|query (?:error(?: .*)?|[A-Z]+(?: (?:"
    + "|".join(SORT_MODES)
    + r")(?: \S+)?)?)"
)


#: an expected result given as its hash (sqllogictest's form for long results): the
#: count of values and their md5
HASHED = re.compile(r"(\d+) values? hashing to ([0-9a-f]{32})")


def expected_rows(lines: list[str], width: int) -> tuple[tuple[str, ...], ...]:
    """The expected rows of a query of ``width`` columns in each layout of the
    sqllogictest format: values separated by tabs (matchrec's, as ``matchrec test``
    writes them); by spaces, where every line has ``width`` words (sqllogictest-rs); or
    one value per line, ``width`` lines a row (SQLite's), where a value may hold a
    space."""
    hashed = len(lines) == 1 and HASHED.fullmatch(lines[0].strip())
    if width <= 1 or hashed or any("\t" in line for line in lines):
        return tuple(_split_row(line) for line in lines)
    words = [line.split() for line in lines]
    if all(len(w) == width for w in words):
        return tuple(tuple(w) for w in words)
    if len(lines) % width == 0:
        values = [line.strip() or EMPTY for line in lines]
        return tuple(tuple(values[i : i + width]) for i in range(0, len(values), width))
    return tuple(_split_row(line) for line in lines)  # (the diff shows what differs)


def _split_row(line: str) -> tuple[str, ...]:
    """One expected row: tab-separated values, an empty value spelled ``(empty)``."""
    return tuple(value if value else EMPTY for value in line.split("\t"))
