"""Where two versions of a text differ, in whole lines."""

from __future__ import annotations

import re
from dataclasses import dataclass

_NEWLINE = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """Lines as `SourceText` and `ast` count them (\\r\\n, \\r and \\n end a line)."""
    return _NEWLINE.split(text) if "\r" in text else text.split("\n")


@dataclass(frozen=True)
class LineChange:
    """Lines [start, old_end) of the old text became lines [start, new_end) of the new one;
    every other line is the same text, moved by `delta` when it comes after the change."""

    start: int
    old_end: int
    new_end: int

    @property
    def delta(self) -> int:
        return self.new_end - self.old_end

    def moved(self, line: int) -> int | None:
        """Where a 0-based line of the old text is now; None for a line that changed."""
        if line < self.start:
            return line
        if line >= self.old_end:
            return line + self.delta
        return None


def line_change(old: list[str], new: list[str]) -> LineChange | None:
    """The smallest run of changed lines; None when the texts have the same lines."""
    limit = min(len(old), len(new))
    start = 0
    while start < limit and old[start] == new[start]:
        start += 1
    if start == limit and len(old) == len(new):
        return None
    tail = 0
    room = limit - start
    while tail < room and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    return LineChange(start, len(old) - tail, len(new) - tail)
