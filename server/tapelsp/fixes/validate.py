"""Turning what a rule offers as a fix into a Fix the engine can hand out, or a reason why not.

A rule passes `Context.report(..., fix=...)` either a `Fix` or a zero-argument builder
returning `Fix | None`; the builder runs only when fixes were asked for. A builder that
raises, or a fix whose result would not parse, is dropped: the finding stays, without a
fix, and carries the reason in `Violation.fix_error`.
"""

from __future__ import annotations

import logging
import traceback
from pathlib import Path
from typing import Callable, Union

from ..model import Fix
from .edits import EditError, apply_edits, parse_problem

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


def log_dropped(code: str, path: str | None, line: int, reason: str) -> None:
    log.warning("%s:%d: %s fix dropped: %s", path or "<source>", line + 1, code, reason)
