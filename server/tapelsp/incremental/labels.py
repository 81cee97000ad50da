"""Line numbers in messages that can move with the code they name.

Rules name lines in their messages through `Facts.line_label` ("opened on line 12").
A finding kept from an earlier analysis must name where that line is now, so incremental
analyses label a line with a marker (a NUL, the 1-based line, a NUL: no source text can put
a NUL in a message, Python refuses source holding one) that is moved with the code and
turned into the caller's label when the findings go out.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Callable

from ..model import Edit, Fix, Position, Range, Related, Violation

MARK = "\0"
_MARKER = re.compile("\0(-?[0-9]+)\0")


def marker(line: int) -> str:
    return f"{MARK}{line}{MARK}"


def default_label(line: int) -> str:
    return f"line {line}"


def marked_lines(violation: Violation) -> list[int]:
    """The 1-based lines the finding's texts name."""
    texts = [violation.message] + [related.message for related in violation.related]
    return [int(found) for text in texts if MARK in text for found in _MARKER.findall(text)]


def render(violation: Violation, label: Callable[[int], str]) -> Violation:
    """The finding with its markers written as `label` names the lines."""
    if MARK not in violation.message and not any(MARK in r.message for r in violation.related):
        return violation

    def write(text: str) -> str:
        return _MARKER.sub(lambda found: label(int(found.group(1))), text) if MARK in text else text

    return replace(violation, message=write(violation.message),
                   related=tuple(replace(r, message=write(r.message)) for r in violation.related))


def render_fix(fix: Fix | None, label: Callable[[int], str]) -> Fix | None:
    if fix is None or MARK not in fix.title:
        return fix
    return replace(fix, title=_MARKER.sub(lambda found: label(int(found.group(1))), fix.title))


def moved_text(text: str, line_of: Callable[[int], int | None]) -> str | None:
    """`text` with the lines its markers name put where `line_of` says; None when one changed."""
    if MARK not in text:
        return text
    failed = False

    def one(found: re.Match) -> str:
        nonlocal failed
        number = int(found.group(1))
        if number <= 0:
            return found.group(0)
        now = line_of(number - 1)
        if now is None:
            failed = True
            return found.group(0)
        return marker(now + 1)

    written = _MARKER.sub(one, text)
    return None if failed else written


def moved_range(rng: Range, line_of: Callable[[int], int | None]) -> Range | None:
    start, end = line_of(rng.start.line), line_of(rng.end.line)
    if start is None or end is None:
        return None
    if start == rng.start.line and end == rng.end.line:
        return rng
    return Range(Position(start, rng.start.column), Position(end, rng.end.column))


def moved(violation: Violation, line_of: Callable[[int], int | None]) -> Violation | None:
    """The finding with every line it names (its range, its related places, the lines its
    messages name) put where `line_of` (0-based old line -> 0-based new line, None for a
    line that changed) says; None when one of them changed."""
    rng = moved_range(violation.range, line_of)
    message = moved_text(violation.message, line_of)
    if rng is None or message is None:
        return None
    related = []
    for entry in violation.related:
        where, text = moved_range(entry.range, line_of), moved_text(entry.message, line_of)
        if where is None or text is None:
            return None
        related.append(entry if where is entry.range and text is entry.message else Related(where, text))
    if rng is violation.range and message is violation.message and all(
            a is b for a, b in zip(related, violation.related)):
        return violation
    return replace(violation, range=rng, message=message, related=tuple(related))


def moved_fix(fix: Fix, line_of: Callable[[int], int | None]) -> Fix | None:
    """The fix with its edits and the lines its title names moved; None when one changed."""
    title = moved_text(fix.title, line_of)
    if title is None:
        return None
    edits = []
    for edit in fix.edits:
        where = moved_range(edit.range, line_of)
        if where is None:
            return None
        edits.append(edit if where is edit.range else Edit(where, edit.new_text))
    if title is fix.title and all(a is b for a, b in zip(edits, fix.edits)):
        return fix
    return replace(fix, title=title, edits=tuple(edits))
