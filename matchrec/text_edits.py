"""A text with some of its spans replaced, and the way back to the original offsets.

``matchrec.sql`` runs a query after PySpark's ``{name}`` formatting and after its
parameter markers (``:name``, ``?``) were replaced by SQL literals; an error found in
that text is told at the text the user wrote: :meth:`EditedText.to_original` maps an
offset back (one inside a replacement goes to the start of what it replaced).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class EditedText:
    """``text`` is ``original`` with each span of ``spans`` replaced: (start and end in
    ``original``, start and end in ``text``), in text order."""

    original: str
    text: str
    spans: tuple[tuple[int, int, int, int], ...] = ()

    @classmethod
    def of(cls, original: str, replacements: Iterable[tuple[int, int, str]]) -> EditedText:
        """``original`` with each ``(start, end, new text)`` applied (spans must not
        overlap)."""
        parts: list[str] = []
        spans: list[tuple[int, int, int, int]] = []
        last = length = 0
        for start, end, new in sorted(replacements):
            parts.append(original[last:start])
            length += start - last
            spans.append((start, end, length, length + len(new)))
            parts.append(new)
            length += len(new)
            last = end
        parts.append(original[last:])
        return cls(original, "".join(parts), tuple(spans))

    def to_original(self, pos: int) -> int:
        """The offset in ``original`` of offset ``pos`` of ``text``."""
        shift = 0
        for start, end, new_start, new_end in self.spans:
            if pos < new_start:
                break
            if pos < new_end:
                return start
            shift = end - new_end
        return pos + shift
