"""Text edits on source text: positions to offsets, applying, merging and diffing.

Positions are the engine's: 0-based lines split like the tokenizer splits them
(`\\r\\n`, `\\r` and `\\n` end a line) and 0-based columns in code points. Nothing here
imports libcst; the engine uses it to check every fix it is given.
"""

from __future__ import annotations

import ast
import bisect
import difflib
import re
from typing import Iterable, Sequence

from ..model import Applicability, Edit, Fix, Position, Range

_NEWLINE = re.compile(r"\r\n|\r|\n")


class EditError(ValueError):
    """The edits do not fit the text (a position past a line's end, or overlapping edits)."""


def line_starts(text: str) -> list[int]:
    """Offset of the first character of every line (a text ending in a newline has a last, empty line)."""
    return [0] + [match.end() for match in _NEWLINE.finditer(text)]


def line_ending_at(text: str, starts: Sequence[int], line: int) -> int:
    """Offset just after the last character of `line`, before its line ending."""
    if line + 1 < len(starts):
        end = starts[line + 1]
        if text.startswith("\r\n", end - 2) and end - 2 >= starts[line]:
            return end - 2
        return end - 1
    return len(text)


def to_offset(text: str, starts: Sequence[int], position: Position) -> int:
    if not 0 <= position.line < len(starts):
        raise EditError(f"line {position.line + 1} is past the end of the text ({len(starts)} lines)")
    end = line_ending_at(text, starts, position.line)
    offset = starts[position.line] + position.column
    if position.column < 0 or offset > end:
        raise EditError(f"column {position.column + 1} is past the end of line {position.line + 1}")
    return offset


def to_position(starts: list[int], offset: int) -> Position:
    # The last line start at or before `offset`.
    low, high = 0, len(starts) - 1
    while low < high:
        middle = (low + high + 1) // 2
        if starts[middle] <= offset:
            low = middle
        else:
            high = middle - 1
    return Position(low, offset - starts[low])


def newline_of(text: str) -> str:
    """The line ending a text uses: its first one, `\\n` when it has none."""
    match = _NEWLINE.search(text)
    return match.group(0) if match else "\n"


def with_newline(text: str, newline: str) -> str:
    """`text` with every line ending written as `newline`."""
    return _NEWLINE.sub(lambda _match: newline, text) if ("\r" in text or newline != "\n") else text


def overlapping(first: Range, second: Range) -> bool:
    """Whether two edits touch the same text. Two insertions at the same place overlap too
    (their order would be a guess); an insertion where a replacement starts or ends does not."""
    if first.start == first.end and second.start == second.end:
        return first.start == second.start
    return first.start < second.end and second.start < first.end


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """`text` with the edits applied. Inserted text uses the text's own line ending.

    Raises EditError when an edit does not fit the text or two edits overlap.
    """
    ordered = sorted(edits, key=lambda edit: (edit.range.start, edit.range.end))
    if not ordered:
        return text
    return apply_sorted_edits(text, ordered, line_starts(text), newline_of(text), 0, len(text))


def apply_sorted_edits(text: str, ordered: Sequence[Edit], starts: Sequence[int], newline: str,
                       begin_at: int, end_at: int) -> str:
    """`text[begin_at:end_at]` with the edits (sorted by position, all inside that part) applied;
    `starts` and `newline` are the whole text's (`line_starts`, `newline_of`)."""
    out: list[str] = []
    cursor = begin_at
    previous: Range | None = None
    for edit in ordered:
        if previous is not None and overlapping(previous, edit.range):
            raise EditError(f"edits overlap at line {edit.range.start.line + 1}")
        begin = to_offset(text, starts, edit.range.start)
        end = to_offset(text, starts, edit.range.end)
        if end < begin:
            raise EditError(f"an edit ends before it starts (line {edit.range.start.line + 1})")
        out.append(text[cursor:begin])
        out.append(with_newline(edit.new_text, newline))
        cursor = end
        previous = edit.range
    out.append(text[cursor:end_at])
    return "".join(out)


def fits(edits: Sequence[Edit], taken: Sequence[Edit]) -> bool:
    """No edit of `edits` overlaps another of them or one already `taken`."""
    for index, edit in enumerate(edits):
        for other in list(taken) + list(edits[index + 1:]):
            if overlapping(edit.range, other.range):
                return False
    return True


class TakenEdits:
    """Edits taken so far, none overlapping another: whether more edits fit among them
    (`fits` on all of them) costs a bisection each, not a pass over every edit taken.

    Kept in position order; as no two overlap, each one ends where or before the next starts,
    so their ends are in order too and the edits a new one could overlap are together."""

    def __init__(self) -> None:
        self._keys: list[tuple[Position, Position]] = []  # (start, end) of each, in order
        self._ends: list[Position] = []

    def fit(self, edits: Sequence[Edit]) -> bool:
        """Whether no edit of `edits` overlaps another of them or one taken (`fits`)."""
        for index, edit in enumerate(edits):
            if self._overlaps(edit.range):
                return False
            if any(overlapping(edit.range, other.range) for other in edits[index + 1:]):
                return False
        return True

    def add(self, edits: Iterable[Edit]) -> None:
        """Take `edits` (which must `fit`)."""
        for edit in edits:
            key = (edit.range.start, edit.range.end)
            at = bisect.bisect_right(self._keys, key)
            self._keys.insert(at, key)
            self._ends.insert(at, edit.range.end)

    def _overlaps(self, rng: Range) -> bool:
        # Every edit `rng` overlaps ends at or after its start and starts at or before its end.
        at = bisect.bisect_left(self._ends, rng.start)
        while at < len(self._keys) and self._keys[at][0] <= rng.end:
            start, end = self._keys[at]
            if overlapping(Range(start, end), rng):
                return True
            at += 1
        return False


def _split_keepends(text: str) -> list[str]:
    lines = []
    start = 0
    for match in _NEWLINE.finditer(text):
        lines.append(text[start:match.end()])
        start = match.end()
    if start < len(text):
        lines.append(text[start:])
    return lines


def text_edits(old: str, new: str) -> tuple[Edit, ...]:
    """The smallest line-aligned edits (trimmed to the characters that differ) turning `old` into `new`.

    Lines that do not change are never inside an edit, so unrelated code stays byte-identical
    and edits of different fixes rarely collide.
    """
    if old == new:
        return ()
    a, b = _split_keepends(old), _split_keepends(new)
    a_offsets = [0]
    for line in a:
        a_offsets.append(a_offsets[-1] + len(line))
    b_offsets = [0]
    for line in b:
        b_offsets.append(b_offsets[-1] + len(line))
    starts = line_starts(old)
    edits: list[Edit] = []
    # The lines both share at the start and at the end are left out of the comparison: a
    # fix changes a few lines of a long text, and the matcher's cost grows with the square
    # of the lines it compares when many are alike (the empty lines of a partial analysis).
    head = 0
    while head < len(a) and head < len(b) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < len(a) - head and tail < len(b) - head and a[len(a) - 1 - tail] == b[len(b) - 1 - tail]:
        tail += 1
    matcher = difflib.SequenceMatcher(None, a[head:len(a) - tail], b[head:len(b) - tail], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        i1, i2, j1, j2 = i1 + head, i2 + head, j1 + head, j2 + head
        begin, end = a_offsets[i1], a_offsets[i2]
        replacement = new[b_offsets[j1]:b_offsets[j2]]
        begin, end, replacement = _trim(old, begin, end, replacement)
        edits.append(Edit(Range(to_position(starts, begin), to_position(starts, end)), replacement))
    return tuple(edits)


def _trim(old: str, begin: int, end: int, replacement: str) -> tuple[int, int, str]:
    """Drop the characters the replaced text and the replacement share at both ends,
    without cutting a `\\r\\n` in two (a position cannot point between them)."""
    removed = old[begin:end]
    prefix = 0
    limit = min(len(removed), len(replacement))
    while prefix < limit and removed[prefix] == replacement[prefix]:
        prefix += 1
    suffix = 0
    limit -= prefix
    while suffix < limit and removed[len(removed) - 1 - suffix] == replacement[len(replacement) - 1 - suffix]:
        suffix += 1
    # Keep a CRLF whole on either side of the cut.
    while prefix > 0 and removed[prefix - 1] == "\r" and removed[prefix:prefix + 1] == "\n":
        prefix -= 1
    while suffix > 0 and removed[len(removed) - suffix] == "\n" and removed[len(removed) - suffix - 1:len(removed) - suffix] == "\r":
        suffix -= 1
    return begin + prefix, end - suffix, replacement[prefix:len(replacement) - suffix]


def fix_from_texts(old: str, new: str, title: str, applicability: Applicability) -> Fix | None:
    """A fix turning `old` into `new`, or None when they are the same."""
    edits = text_edits(old, new)
    return Fix(title, applicability, edits) if edits else None


def parse_problem(text: str) -> str | None:
    """Why `text` is not valid Python, or None when it parses."""
    try:
        compile(text, "<fixed>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as error:
        where = f" (line {error.lineno})" if error.lineno else ""
        return f"{error.msg}{where}"
    except (ValueError, RecursionError, MemoryError) as error:
        return f"{type(error).__name__}: {error}"
    return None
