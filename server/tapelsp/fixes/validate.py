"""Turning what a rule offers as a fix into a Fix the engine can hand out, or a reason why not.

A rule passes `Context.report(..., fix=...)` either a `Fix` or a zero-argument builder
returning `Fix | None`; the builder runs only when fixes were asked for. A builder that
raises, or a fix whose result would not parse, is dropped: the finding stays, without a
fix, and carries the reason in `Violation.fix_error`.
"""

from __future__ import annotations

import bisect
import logging
import traceback
from pathlib import Path
from typing import Callable, Union

from ..model import Fix
from .edits import EditError, apply_edits, apply_sorted_edits, parse_problem
from .per_source import BARRY, line_index

FixBuilder = Callable[[], Union[Fix, None]]
FixOffer = Union[Fix, FixBuilder]

log = logging.getLogger("tapelsp.fixes")


def resolve_fix(offer: FixOffer, text: str) -> tuple[Fix | None, str | None]:
    """(fix, None) for a usable fix, (None, reason) for a dropped one, (None, None) for no fix."""
    try:
        fix = offer() if not isinstance(offer, Fix) and callable(offer) else offer
    except RecursionError:
        return None, "building the fix ran out of stack (the code nests too deeply)"
    except Exception as error:  # a fix builder's bug must cost the fix only
        where = traceback.extract_tb(error.__traceback__)
        place = f" at {Path(where[-1].filename).name}:{where[-1].lineno}" if where else ""
        return None, f"building the fix failed ({type(error).__name__}: {error}{place})"
    if fix is None:
        return None, None
    if not isinstance(fix, Fix):
        return None, f"the fix builder returned {type(fix).__name__}, not a Fix"
    if not fix.edits:
        return None, None
    try:
        verdict = _check_in_region(text, fix)
    except EditError as error:
        return None, f"its edits do not fit the file ({error})"
    if verdict is not None:
        return verdict
    return whole_file_verdict(fix, text)


def whole_file_verdict(fix: Fix, text: str) -> tuple[Fix | None, str | None]:
    """The verdict on `fix` from applying its edits to the whole file and parsing the result
    (what `resolve_fix` falls back to when the statements around the edits cannot tell)."""
    try:
        fixed = apply_edits(text, fix.edits)
    except EditError as error:
        return None, f"its edits do not fit the file ({error})"
    if fixed == text:
        return None, None
    problem = parse_problem(fixed)
    if problem is not None:
        if parse_problem(text) is not None:
            return None, "the file does not parse, so no fix is offered"
        return None, f"the fixed code would not parse ({problem})"
    return fix, None


def log_dropped(code: str, path: str | None, line: int, reason: str, kept: bool = False) -> None:
    """Log why a finding's fix is not offered (or, `kept`, offered as unsafe only): the reasons
    of fixes/verify.py say so themselves ("fix not offered: ...", "fix offered as unsafe: ...")."""
    where = path or "<source>"
    if reason.startswith("fix "):
        (log.info if kept else log.warning)("%s:%d: %s %s", where, line + 1, code, reason)
    else:
        log.warning("%s:%d: %s fix dropped: %s", where, line + 1, code, reason)


def _check_in_region(text: str, fix: Fix) -> tuple[Fix | None, None] | None:
    """The verdict on `fix`, found on just the run of whole top-level statements its edits
    touch, or None when that cannot tell (then the whole fixed file is checked).

    A file that parses, cut where one top-level statement ends and the next begins, is
    pieces that each parse, and changing one piece so that it still parses on its own keeps
    the whole parsing (Python's grammar makes a file of its statements, one after the other).
    So a fix that leaves its piece parsing is good, at the cost of that piece, not of the
    file: a file with N fixes costs N pieces, not N files. When the piece does not parse,
    the whole fixed file is parsed, as before, for the verdict and the message. (A piece
    ending in a backslash is not trusted: Python accepts one at the end of a text, but in
    the file it joins the next line. The cuts are never after one in the text itself.)"""
    index = line_index(text)
    if index.cuts is None:
        return None  # the file does not parse (or says `barry_as_FLUFL`): check it whole
    ordered = sorted(fix.edits, key=lambda edit: (edit.range.start, edit.range.end))
    first_line = ordered[0].range.start.line
    last_line = max(edit.range.end.line for edit in ordered)
    if first_line < 0:
        return None  # does not fit: the whole file's check says so
    cuts = index.cuts  # starts with 0
    begin = index.starts[cuts[bisect.bisect_right(cuts, first_line) - 1]]
    after = bisect.bisect_right(cuts, last_line)
    end = index.starts[cuts[after]] if after < len(cuts) else len(text)
    piece = apply_sorted_edits(text, ordered, index.starts, index.newline, begin, end)
    if piece == text[begin:end]:
        return None, None
    if piece.rstrip("\r\n").endswith("\\"):
        return None  # its last line would go on into the next piece (a piece may end so)
    if BARRY not in piece and parse_problem(piece) is None:
        return fix, None
    return None
