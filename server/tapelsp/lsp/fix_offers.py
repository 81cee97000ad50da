"""Fixes built one finding at a time, in the worker that found them.

Building every fix of a large file costs many times the analysis itself, and an editor
needs one fix at a time (the finding under the cursor). So the worker analyses within the
engine's `deferred_fixes()`: the findings go out at once without fixes, their offers stay
here (closures over the analysed tree), and a later `BuildFixes` job builds exactly the
fixes asked for with the engine's public `build_fix`.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Optional

from ..model import Fix, Violation

Identity = tuple  # convert.identity(violation): (code, cell, range, message)


def identity(violation: Violation) -> Identity:
    return (violation.code, violation.cell, violation.range, violation.message)


# A finding's fix offer, as the engine hands it over (`tapelsp.engine.FixOffer`): the
# finding as the engine reported it (joined-program positions for notebooks), the offer,
# the text its edits refer to, and the path.
Offer = Any


@dataclass
class OfferSet:
    ident: tuple
    # identity of the finding as the client sees it -> its offer
    offers: dict[Identity, Offer] = field(default_factory=dict)
    # How a notebook finding is mapped back to its cell (None for Python text).
    to_cell: Optional[Callable[[Violation], Violation]] = None
    # For text whose IPython magics were neutralised: drops fixes touching those lines.
    guard: Optional[Callable[[Violation], Violation]] = None
    # For an incremental analysis (`tapelsp.incremental`): `offers` holds the findings, and
    # this builds their fixes (findings -> {(code, range, message): (fix, why none)}).
    build_all: Optional[Callable[[list[Violation]], dict[tuple, tuple[Optional[Fix], Optional[str]]]]] = None


def build_incremental(offers: OfferSet, wanted: tuple[Identity, ...]) -> list[tuple[Identity, Optional[Fix], Optional[str]]]:
    """The fixes of the `wanted` findings of an incremental analysis (built or kept)."""
    assert offers.build_all is not None
    findings = {key: offers.offers[key] for key in wanted if key in offers.offers}
    made = offers.build_all(list(findings.values()))
    out = []
    for key in wanted:
        finding = findings.get(key)
        if finding is None:
            out.append((key, None, None))
            continue
        fix, problem = made.get((finding.code, finding.range, finding.message), (None, None))
        _seen, fix, problem = cell_fix(offers, finding, fix, problem)
        out.append((key, fix, problem))
    return out


def cell_fix(offers: OfferSet, finding: Violation, fix: Optional[Fix],
             problem: Optional[str]) -> tuple[Identity, Optional[Fix], Optional[str]]:
    """(identity as the client sees the finding, its fix in the client's positions, why none)
    for a finding of an incremental analysis and its fix (joined-program positions for a
    notebook; a text's magics guard applied)."""
    with_fix = replace(finding, fix=fix, fix_error=problem)
    if offers.to_cell is not None:
        with_fix = offers.to_cell(with_fix)
    if with_fix.fix is not None and offers.guard is not None:
        with_fix = offers.guard(with_fix)
    return (identity(offers.to_cell(finding) if offers.to_cell is not None else finding),
            with_fix.fix, with_fix.fix_error)


def build(entry: Offer, offers: OfferSet) -> tuple[Optional[Fix], Optional[str]]:
    """The finding's fix as the client's positions need it, or (None, why not)."""
    from ..engine import build_fix

    from ..incremental.labels import default_label, render_fix

    built = build_fix(entry)
    if built.fix is not None:
        built = replace(built, fix=render_fix(built.fix, default_label))
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
