"""IncrementalChecker: the findings of each new version of one document, redoing only the
top-level statements an edit can change.

The first version is analysed whole (`engine.check_source`), and cut into chunks (top-level
statements, `chunks.py`) that keep their findings. For each later version:

1. the changed lines are found (`diff.py`); the chunks before them stay, the chunks after
   them move by the number of lines added or removed, with their findings;
2. the lines between the nearest untouched chunks are parsed on their own into new chunks
   (a file cut between two top-level statements is pieces that each parse, and pieces that
   each parse make a file that parses as the pieces, one after the other);
3. the new chunks, the chunks their old and new names tie them to, and everything tied to
   those in turn, are analysed together with the shared chunks (imports, mode switches) by
   `check_source`, on a text in which every other chunk's lines are left empty: the lines
   keep their numbers, the program is small;
4. their findings replace those of the chunks analysed; the others are kept.

Whenever that cannot be trusted (the changed lines do not parse alone, an import or a mode
switch changed, a finding of the partial analysis is not inside a chunk, the settings
changed) the version is analysed whole. tests/engine/test_incremental.py compares every
answer with a whole analysis of the same text over real code and thousands of edits.
"""

from __future__ import annotations

import ast
import bisect
from functools import lru_cache
from dataclasses import dataclass, field, replace
from typing import AbstractSet, Any, Callable, Iterable, Iterator, Optional, Sequence

from ..engine import FixOffer, check_source, deferred_fixes, kept_parses
from ..fixes.names import names_of, reserved_names
from ..model import Fix, Violation
from ..settings import Settings, Targets
from ..suppression import ignores_whole_file
from . import labels
from .chunks import WORD, Chunk, chunks_of
from .diff import LineChange, line_change, split_lines

Label = Callable[[int], str]
Built = tuple[Optional[Fix], Optional[str]]


@dataclass(frozen=True)
class RunStats:
    """How the last version was analysed."""

    mode: str  # "whole", "partial" or "unchanged"
    chunks: int = 0  # chunks analysed (shared ones included)
    lines: int = 0  # lines of those chunks
    reason: str = ""  # why it was analysed whole


@dataclass
class Found:
    violation: Violation  # in the current version's lines, messages with line markers
    offered: bool  # its rule offers a fix
    # Its fix once built (and why there is none), in the current version's lines: kept, moved
    # with the finding, while nothing the fix depends on changes.
    built: Optional[Built] = None


@dataclass
class _State:
    text: str
    lines: list[str]
    chunks: list[Chunk]
    found: list[list[Found]]  # per chunk


@dataclass
class Result:
    violations: list[Violation]  # sorted, labelled, without fixes
    offered: list[bool]  # parallel: the finding comes with a fix offer
    stats: RunStats


@dataclass
class _Run:
    """One analysis by check_source: its findings by chunk, and their fix offers."""

    by_chunk: dict[int, list[Found]] = field(default_factory=dict)
    offers: dict[tuple, FixOffer] = field(default_factory=dict)  # marked identity -> offer
    trusted: bool = True
    parsed: Any = None  # the parse.Parsed check_source analysed (None when it did not parse)


def _key(violation: Violation) -> tuple:
    return (violation.code, violation.range, violation.message)


class IncrementalChecker:
    def __init__(self, path: Optional[str], settings: Settings, targets: Targets, project: Any = None) -> None:
        self.path = path
        self.settings = settings
        self.targets = targets
        self.project = project
        self._state: Optional[_State] = None
        self._text = ""
        self._offers: dict[tuple, FixOffer] = {}  # marked identity -> offer, for the current text
        # (code, range, message) as `check` returned them -> (that finding, its entry)
        self._shown: dict[tuple, tuple[Violation, Found]] = {}
        self._label: Label = labels.default_label
        self.stats = RunStats("whole")

    def same_setup(self, path: Optional[str], settings: Settings, targets: Targets) -> bool:
        return (path, settings, targets) == (self.path, self.settings, self.targets)

    # -- analysis ---------------------------------------------------------------------------
    def check(self, text: str, label: Optional[Label] = None) -> Result:
        label = label or labels.default_label
        found = self._update(text)
        self._text = text
        self._label = label
        ordered = sorted(((labels.render(f.violation, label), f) for f in found), key=lambda pair: pair[0].sort_key())
        self._shown = {_key(v): (v, f) for v, f in ordered}
        return Result([v for v, _ in ordered], [f.offered for _, f in ordered], self.stats)

    def built(self) -> list[tuple[Violation, Built]]:
        """The findings of the last version whose fix is built already (as `check` returned them)."""
        return [(shown, self._rendered(entry.built)) for shown, entry in self._shown.values()
                if entry.built is not None]

    def _rendered(self, built: Built) -> Built:
        return (labels.render_fix(built[0], self._label), built[1])

    def fixes(self, wanted: Iterable[Violation]) -> dict[tuple, Built]:
        """The fixes of findings of the last version (as `check` returned them), keyed by (code,
        range, message): the ones built before, and the others built now (and kept)."""
        from ..engine import build_fix

        out: dict[tuple, Built] = {}
        missing = []
        for violation in wanted:
            known = self._shown.get(_key(violation))
            if known is None or not known[1].offered:
                continue
            if known[1].built is not None:
                out[_key(violation)] = self._rendered(known[1].built)
            else:
                missing.append(violation)
        if missing:
            offers = self.offers(missing, self._label)
            for violation in missing:
                offer = offers.get(_key(violation))
                if offer is None:
                    continue
                made = build_fix(offer)
                self._forget_offer(violation)  # built and kept: its offer (and its tree) can go
                self._shown[_key(violation)][1].built = (made.fix, made.fix_error)
                out[_key(violation)] = self._rendered((made.fix, made.fix_error))
        return out

    def _update(self, text: str) -> list[Found]:
        lines = split_lines(text)
        state = self._state
        if state is None or ignores_whole_file(text):
            return self._whole(text, lines, "first version" if state is None else "ignore-file")
        change = line_change(state.lines, lines)
        if change is None:
            self.stats = RunStats("unchanged")
            return [f for group in state.found for f in group]
        return self._partial(text, lines, state, change)

    def _whole(self, text: str, lines: list[str], reason: str) -> list[Found]:
        """Analyse the whole text; keep its chunks for the next version when it parses (when it
        does not, the last version that did stays the one the next is compared with)."""
        self._offers = {}
        run = self._run(text, None)
        self._offers = run.offers
        self.stats = RunStats("whole", reason=reason)
        found = [f for group in run.by_chunk.values() for f in group]
        if not run.trusted or ignores_whole_file(text):
            return found
        if run.parsed is None:  # not parsed: nothing in it for any rule
            try:
                tree = ast.parse(text)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                return found
        elif run.parsed.problems or run.parsed.dropped:
            return found  # analysed with recovery: the chunks kept are the last version's that parsed
        else:
            tree = run.parsed.tree
        chunks = chunks_of(tree.body, lines, 0)
        placed = self._place(chunks, found)
        self._state = _State(text, lines, chunks, placed) if placed is not None else None
        return found

    def _partial(self, text: str, lines: list[str], state: _State, change: LineChange) -> list[Found]:
        chunks = state.chunks
        first = bisect.bisect_right([c.end for c in chunks], change.start)  # chunks wholly before
        after = bisect.bisect_left([c.start for c in chunks], change.old_end)  # first wholly after
        begin = chunks[first - 1].end if first > 0 else 0
        stop = (chunks[after].start if after < len(chunks) else len(state.lines)) + change.delta
        region = lines[begin:stop]
        try:
            body = ast.parse("\n".join(region)).body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return self._whole(text, lines, "the changed lines do not parse on their own")
        fresh = chunks_of(body, region, begin)
        gone = chunks[first:after]
        if any(c.shared for c in gone) or any(c.shared for c in fresh):
            return self._whole(text, lines, "an import or a file-wide mode switch changed")
        new_chunks = chunks[:first] + fresh + [c.moved(change.delta) for c in chunks[after:]]
        kept: dict[int, list[Found]] = {}
        seeds = set(range(first, first + len(fresh)))
        # Words the changed lines have now and did not have: a kept fix that writes one of them
        # could clash with it, and is built again when asked for.
        new_words = frozenset().union(*(c.binds | c.uses for c in fresh)) - \
            frozenset().union(*(c.binds | c.uses for c in gone))
        for index, group in enumerate(state.found[:first] + [[] for _ in fresh] + state.found[after:]):
            if first <= index < first + len(fresh):
                continue
            moved = [_moved(f, change.moved, new_words) for f in group]
            if any(f is None for f in moved):
                seeds.add(index)  # it names a line that changed: analysed again
            else:
                kept[index] = moved  # type: ignore[assignment]
        names_gone = frozenset().union(*(c.binds | c.uses for c in gone)) if gone else frozenset()
        binds_gone = frozenset().union(*(c.binds for c in gone)) if gone else frozenset()
        for index, chunk in enumerate(new_chunks):
            if not chunk.shared and (not chunk.uses.isdisjoint(binds_gone) or not chunk.binds.isdisjoint(names_gone)):
                seeds.add(index)
        affected = _closure(new_chunks, seeds)
        self._offers = {}
        self.stats = RunStats("partial")
        if affected:
            included = affected | {i for i, c in enumerate(new_chunks) if c.shared}
            run = self._run(_reduced(text, lines, new_chunks, included), (new_chunks, included), lines)
            if not run.trusted:
                return self._whole(text, lines, "a finding of the partial analysis is outside its chunks")
            for index in affected:
                kept[index] = run.by_chunk.get(index, [])
            self._offers = run.offers
            self.stats = RunStats("partial", len(included), sum(new_chunks[i].end - new_chunks[i].start
                                                                 for i in included))
        found = [kept.get(index, []) for index in range(len(new_chunks))]
        self._state = _State(text, lines, new_chunks, found)
        return [f for group in found for f in group]

    def _run(self, text: str, partial: Optional[tuple[list[Chunk], set[int]]], lines: Sequence[str] = ()) -> _Run:
        """check_source on `text` (the whole text, or a reduced one for `partial` = (chunks,
        the indexes included) of the file whose `lines` these are); findings keyed by chunk
        index (all under -1 when whole)."""
        run = _Run()
        left_out = _LeftOut(lines, *partial) if partial is not None else None
        with deferred_fixes() as collected, _reserving_left_out(left_out), kept_parses() as parses:
            found = check_source(text, self.path, self.settings, self.targets, line_label=labels.marker,
                                 project=self.project, fixes=True)
        run.parsed = parses[0] if parses else None
        offered = {_key(entry.violation): entry for entry in collected}
        for violation in found:
            entry = offered.get(_key(violation))
            if entry is not None:
                run.offers[_key(violation)] = entry if partial is None else \
                    replace(entry, offer=_reserving(left_out, entry.offer))  # type: ignore[arg-type]
        if partial is None:
            run.by_chunk[-1] = [Found(v, _key(v) in offered) for v in found]
            run.trusted = not any(v.code.startswith("TL") for v in found)
            return run
        chunks, included = partial
        starts = [c.start for c in chunks]
        for violation in found:
            index = bisect.bisect_right(starts, violation.range.start.line) - 1
            if (violation.code.startswith("TL") or index < 0 or index not in included
                    or violation.range.start.line >= chunks[index].end):
                run.trusted = False
                return run
            run.by_chunk.setdefault(index, []).append(Found(violation, _key(violation) in offered))
        return run

    @staticmethod
    def _place(chunks: list[Chunk], found: list[Found]) -> Optional[list[list[Found]]]:
        starts = [c.start for c in chunks]
        placed: list[list[Found]] = [[] for _ in chunks]
        for entry in found:
            line = entry.violation.range.start.line
            index = bisect.bisect_right(starts, line) - 1
            if index < 0 or line >= chunks[index].end:
                return None  # a finding between statements: no partial analysis can redo it
            placed[index].append(entry)
        return placed

    def statements(self) -> tuple[tuple[int, int], ...]:
        """The 0-based line spans [start, end) of the top-level statements of the text `check`
        saw last, when it parsed (empty otherwise)."""
        state = self._state
        if state is None or state.text != self._text:
            return ()
        return tuple((c.start, c.end) for c in state.chunks)

    # -- fixes ------------------------------------------------------------------------------
    def offers(self, wanted: Iterable[Violation], label: Optional[Label] = None) -> dict[tuple, FixOffer]:
        """The fix offers of findings of the current version (as `check` returned them), keyed
        by (code, range, message) as returned. Offers of findings the last analysis did not
        redo come from analysing their chunks (and what they are tied to) again."""
        label = label or labels.default_label
        state = self._state
        wanted = list(wanted)
        if state is not None and state.text == self._text:
            starts = [c.start for c in state.chunks]
            missing = set()
            for violation in wanted:
                if not self._offer_for(violation, label) and state.chunks:
                    index = bisect.bisect_right(starts, violation.range.start.line) - 1
                    if index >= 0:
                        missing.add(index)
            if missing:
                affected = _closure(state.chunks, missing)
                included = affected | {i for i, c in enumerate(state.chunks) if c.shared}
                run = self._run(_reduced(state.text, state.lines, state.chunks, included), (state.chunks, included),
                                state.lines)
                if run.trusted:
                    self._offers.update(run.offers)
        out: dict[tuple, FixOffer] = {}
        for violation in wanted:
            entry = self._offer_for(violation, label)
            if entry is not None:
                out[_key(violation)] = entry
        return out

    def _forget_offer(self, violation: Violation) -> None:
        for key, entry in list(self._offers.items()):
            if key[0] == violation.code and key[1] == violation.range and \
                    labels.render(entry.violation, self._label).message == violation.message:
                del self._offers[key]

    def _offer_for(self, violation: Violation, label: Label) -> Optional[FixOffer]:
        for key, entry in self._offers.items():
            if key[0] == violation.code and key[1] == violation.range and \
                    labels.render(entry.violation, label).message == violation.message:
                return replace(entry, violation=violation)
        return None


def _moved(found: Found, line_of: Callable[[int], Optional[int]], new_words: frozenset[str]) -> Optional[Found]:
    violation = labels.moved(found.violation, line_of)
    if violation is None:
        return None
    built = found.built
    if built is not None and built[0] is not None:
        fix = labels.moved_fix(built[0], line_of)
        if fix is None or any(not new_words.isdisjoint(WORD.findall(e.new_text)) for e in fix.edits):
            built = None
        elif fix is not built[0]:
            built = (fix, built[1])
    if violation is found.violation and built is found.built:
        return found
    return Found(violation, found.offered, built)


def _closure(chunks: list[Chunk], seeds: set[int]) -> set[int]:
    """The seeds and every chunk tied to one of them by a name, repeatedly (shared chunks
    tie nothing: they are in every analysis)."""
    affected = {i for i in seeds if not chunks[i].shared}
    todo = list(affected)
    while todo:
        chunk = chunks[todo.pop()]
        names = chunk.binds | chunk.uses
        for index, other in enumerate(chunks):
            if index in affected or other.shared:
                continue
            if not other.uses.isdisjoint(chunk.binds) or not other.binds.isdisjoint(names):
                affected.add(index)
                todo.append(index)
    return affected


def _reduced(text: str, lines: list[str], chunks: list[Chunk], included: set[int]) -> str:
    """`text` with every chunk not included reduced to a `pass` on its last line, its other lines
    left empty: lines keep their numbers, and the statements around an included one are where
    they are in the file (a fix's libcst region, from the end of the statement before, is the
    same lines as in the file, not every empty line up to the last included statement)."""
    if "\r" in text:
        import re

        pieces = re.split(r"(\r\n|\r|\n)", text)
        kept, endings = pieces[0::2], pieces[1::2] + [""]
    else:
        kept, endings = list(lines), None
    for index, chunk in enumerate(chunks):
        if index not in included:
            kept[chunk.start:chunk.end] = [""] * (chunk.end - chunk.start - 1) + ["pass"]
    if endings is None:
        return "\n".join(kept)
    return "".join(line + ending for line, ending in zip(kept, endings))


class _LeftOut:
    """The names and the attribute names of the chunks a partial analysis leaves out, as a
    whole analysis would count them (fixes.names: `identifiers`, `attribute_names`), gathered
    on first use (only a fix that picks a new name asks). A chunk's words would count a local
    `scale` as an attribute name taken, and a fix would pick `self._scale` where the whole
    analysis picks `self.scale`."""

    def __init__(self, lines: Sequence[str], chunks: list[Chunk], included: set[int]) -> None:
        self._lines, self._chunks, self._included = lines, chunks, included
        self._found: Optional[tuple[frozenset[str], frozenset[str]]] = None
        self.names: AbstractSet[str] = _View(self, 0)
        self.attributes: AbstractSet[str] = _View(self, 1)

    def found(self) -> tuple[frozenset[str], frozenset[str]]:
        if self._found is None:
            names: set[str] = set()
            attributes: set[str] = set()
            for index, chunk in enumerate(self._chunks):
                if index in self._included:
                    continue
                words = _words_of("\n".join(self._lines[chunk.start:chunk.end]))
                if words is None:
                    taken = chunk.binds | chunk.uses  # taken as both: a name a fix picks is never one of them
                    names.update(taken)
                    attributes.update(taken)
                    continue
                names.update(words[0])
                attributes.update(words[1])
            self._found = (frozenset(names), frozenset(attributes))
        return self._found


@lru_cache(maxsize=4096)
def _words_of(text: str) -> Optional[tuple[frozenset[str], frozenset[str]]]:
    """The names and the attribute names of one chunk's text (None when it does not parse on
    its own). Kept by text: each fix built after an edit asks about every chunk left out of its
    partial analysis, and most chunks are the same from one fix to the next."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    names: set[str] = set()
    attributes: set[str] = set()
    for node in ast.walk(tree):
        names.update(names_of(node))
        if isinstance(node, ast.Attribute):
            attributes.add(node.attr)
    return frozenset(names), frozenset(attributes)


class _View(AbstractSet[str]):
    """One of the two sets of a `_LeftOut`, read when first asked."""

    def __init__(self, left_out: _LeftOut, which: int) -> None:
        self._left_out, self._which = left_out, which

    def _all(self) -> frozenset[str]:
        return self._left_out.found()[self._which]

    def __contains__(self, name: object) -> bool:
        return name in self._all()

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())

    def __bool__(self) -> bool:
        return True


def _reserving_left_out(left_out: Optional[_LeftOut]):
    """`reserved_names` for what a partial analysis leaves out (nothing for a whole one)."""
    if left_out is None:
        return reserved_names(frozenset())
    return reserved_names(left_out.names, left_out.attributes)


def _reserving(left_out: _LeftOut, offer: Any) -> Any:
    """A fix builder of a partial analysis that builds with the names left out taken."""
    if not callable(offer):
        return offer

    def build() -> Any:
        with _reserving_left_out(left_out):
            return offer()

    return build
