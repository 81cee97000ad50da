"""Fixes built one finding at a time, in the worker that found them.

The engine builds a finding's fix (with libcst) only when asked: `check_source(...,
fixes=True)` hands each surviving finding's fix offer to `tapelsp.engine._with_fix`,
which builds and validates it. Building every fix of a large file costs many times the
analysis itself, and an editor needs one fix at a time (the finding under the cursor).
So the worker runs the analysis with `fixes=True` while holding `_with_fix` back: the
offers are kept (they are closures over the analysed tree), the findings go out at once
without fixes, and a later `BuildFixes` job builds exactly the fixes asked for, with the
engine's own `resolve_fix`. When the engine offers this itself (see the closing notes of
issue 6: a `defer_fixes` option on check_source/check_notebook), this module shrinks to
a call of it; without `_with_fix` it falls back to building every fix.
"""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterator, Optional

from ..model import Fix, Violation

Identity = tuple  # convert.identity(violation): (code, cell, range, message)


def identity(violation: Violation) -> Identity:
    return (violation.code, violation.cell, violation.range, violation.message)


@dataclass
class Offer:
    violation: Violation  # as the engine reported it (joined-program positions for notebooks)
    offer: Any
    text: str  # the text the offer's edits refer to
    path: Optional[str]


@dataclass
class OfferSet:
    ident: tuple
    # identity of the finding as the client sees it -> its offer
    offers: dict[Identity, Offer] = field(default_factory=dict)
    # How a notebook finding is mapped back to its cell (None for Python text).
    to_cell: Optional[Callable[[Violation], Violation]] = None
    # For text whose IPython magics were neutralised: drops fixes touching those lines.
    guard: Optional[Callable[[Violation], Violation]] = None


def deferring_supported() -> bool:
    from .. import engine

    return callable(getattr(engine, "_with_fix", None))


@contextlib.contextmanager
def deferred(collected: list[Offer]) -> Iterator[None]:
    """While active, the engine records fix offers instead of building them."""
    from .. import engine

    original = engine._with_fix

    def keep(violation: Violation, offer: Any, source: Any, path: Optional[str]) -> Violation:
        collected.append(Offer(violation, offer, source.text, path))
        return violation

    engine._with_fix = keep  # type: ignore[attr-defined]
    try:
        yield
    finally:
        engine._with_fix = original  # type: ignore[attr-defined]


def build(entry: Offer, offers: OfferSet) -> tuple[Optional[Fix], Optional[str]]:
    """The finding's fix as the client's positions need it, or (None, why not)."""
    from ..fixes.validate import log_dropped, resolve_fix

    fix, error = resolve_fix(entry.offer, entry.text)
    if error is not None:
        log_dropped(entry.violation.code, entry.path, entry.violation.range.start.line, error)
    built = replace(entry.violation, fix=fix, fix_error=error)
    if offers.to_cell is not None:
        built = offers.to_cell(built)
    if offers.guard is not None:
        built = offers.guard(built)
    return built.fix, built.fix_error


class OfferStore:
    """The offers of the latest analysis of each document this worker analysed (a few documents)."""

    def __init__(self, documents: int = 4) -> None:
        self._sets: OrderedDict[str, OfferSet] = OrderedDict()
        self._documents = documents

    def put(self, key: str, offers: OfferSet) -> None:
        self._sets[key] = offers
        self._sets.move_to_end(key)
        while len(self._sets) > self._documents:
            self._sets.popitem(last=False)

    def get(self, key: str, ident: tuple) -> Optional[OfferSet]:
        found = self._sets.get(key)
        return found if found is not None and found.ident == ident else None
