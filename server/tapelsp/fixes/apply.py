"""Applying every applicable fix to a source (or a notebook's cells) until nothing is left to fix.

One round: check with fixes, take the applicable fixes in position order, skip a fix whose
edits overlap one already taken (it is retried next round, on the new text), apply, and
make sure the result still parses. Rounds repeat until no fix applies or `max_rounds` is
reached. Only `safe` fixes are applied unless `unsafe=True`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

from ..model import Applicability, Edit, Fix, Range, Violation
from .edits import TakenEdits, apply_edits, line_starts, parse_problem, to_position

MAX_ROUNDS = 10

Checker = Callable[[str], list[Violation]]


def applicable(fix: Fix | None, unsafe: bool) -> bool:
    return fix is not None and (unsafe or fix.applicability == Applicability.SAFE)


@dataclass(frozen=True)
class Round:
    """What one round started from and which findings' fixes it applied."""

    before: str
    applied: tuple[Violation, ...]


@dataclass(frozen=True)
class FixResult:
    text: str
    # Every finding whose fix was applied, over all rounds.
    fixed: tuple[Violation, ...]
    # The findings of the fixed text (with their fixes, when fixes were built).
    remaining: tuple[Violation, ...]
    # Fixes that were not applied, and why (their result would not parse...).
    problems: tuple[str, ...] = ()
    rounds: tuple[Round, ...] = field(default=(), repr=False)

    @property
    def changed(self) -> bool:
        return bool(self.rounds) and self.text != self.rounds[0].before


def choose(violations: Sequence[Violation], unsafe: bool) -> tuple[list[Violation], list[Violation]]:
    """The findings whose fixes go together this round (no overlapping edits), and the deferred ones."""
    taken: list[Violation] = []
    edits = TakenEdits()
    deferred: list[Violation] = []
    for violation in sorted(violations, key=Violation.sort_key):
        fix = violation.fix
        if not applicable(fix, unsafe):
            continue
        assert fix is not None
        if not edits.fit(fix.edits):
            deferred.append(violation)
            continue
        taken.append(violation)
        edits.add(fix.edits)
    return taken, deferred


def _apply_round(text: str, chosen: list[Violation], problems: list[str],
                 parses: Callable[[str], str | None]) -> tuple[str, list[Violation]]:
    """Apply the chosen fixes together; if the result does not parse, keep the ones that do alone."""
    edits = [edit for violation in chosen for edit in violation.fix.edits]  # type: ignore[union-attr]
    fixed = apply_edits(text, edits)
    if parses(fixed) is None:
        return fixed, chosen
    kept: list[Violation] = []
    current = text
    for violation in chosen:
        # One at a time, on the original text: positions stay valid as long as edits are
        # applied together, so re-apply the kept ones with this one.
        trial_edits = [e for v in kept + [violation] for e in v.fix.edits]  # type: ignore[union-attr]
        trial = apply_edits(text, trial_edits)
        problem = parses(trial)
        if problem is None:
            kept.append(violation)
            current = trial
        else:
            problems.append(f"{violation.code} at line {violation.range.start.line + 1}: "
                            f"fix not applied, the result would not parse ({problem})")
    return current, kept


def _left_unfixed(violation: Violation, unsafe: bool) -> bool:
    """A finding left with a reason why its fix was not applied: it was not offered, or it was
    offered as unsafe only (fixes/verify.py) and unsafe fixes were not asked for."""
    return bool(violation.fix_error) and (violation.fix is None or not applicable(violation.fix, unsafe))


def fix_text(text: str, check: Checker, *, unsafe: bool = False, max_rounds: int = MAX_ROUNDS,
             parses: Callable[[str], str | None] = parse_problem) -> FixResult:
    """Fix `text` to a fixpoint with `check` (text -> findings with fixes built)."""
    rounds: list[Round] = []
    fixed: list[Violation] = []
    problems: list[str] = []
    violations = check(text)
    for _ in range(max_rounds):
        chosen, _deferred = choose(violations, unsafe)
        if not chosen:
            break
        new_text, applied = _apply_round(text, chosen, problems, parses)
        if not applied or new_text == text:
            break
        rounds.append(Round(text, tuple(applied)))
        fixed.extend(applied)
        text = new_text
        violations = check(text)
    for violation in violations:
        if _left_unfixed(violation, unsafe):
            problems.append(f"{violation.code} at line {violation.range.start.line + 1}: {violation.fix_error}")
    return FixResult(text, tuple(fixed), tuple(violations), tuple(dict.fromkeys(problems)), tuple(rounds))


def apply_fixes(text: str, path: str | None = None, settings: Any = None, targets: Any = None, *,
                unsafe: bool = False, max_rounds: int = MAX_ROUNDS, project: Any = None) -> FixResult:
    """Apply every safe fix (and unsafe ones with `unsafe=True`) to Python source `text`."""
    from ..engine import check_source

    def check(current: str) -> list[Violation]:
        return check_source(current, path, settings, targets, project=project, fixes=True)

    return fix_text(text, check, unsafe=unsafe, max_rounds=max_rounds)


# --- notebooks ---------------------------------------------------------------------------

@dataclass(frozen=True)
class NotebookFixResult:
    notebook: dict
    # 1-based cell number -> (source before, source after), for cells that changed.
    cells: dict[int, tuple[str, str]]
    fixed: tuple[Violation, ...]
    remaining: tuple[Violation, ...]
    problems: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.cells)


def cell_source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def set_cell_source(cell: dict, text: str) -> None:
    """Store `text` the way the cell stored its source (a list of lines, or one string)."""
    if isinstance(cell.get("source"), list):
        cell["source"] = text.splitlines(keepends=True)
    else:
        cell["source"] = text


def _clamped(text: str, edits: Sequence[Edit]) -> list[Edit]:
    """Edits whose positions past the end of the cell (the newline the joined program adds
    after a cell without one) are moved to the cell's end."""
    starts = line_starts(text)
    end = to_position(starts, len(text))
    out = []
    for edit in edits:
        start = min(edit.range.start, end)
        stop = min(edit.range.end, end)
        out.append(Edit(Range(start, stop), edit.new_text))
    return out


def apply_notebook_fixes(notebook: str | bytes | dict, path: str | None = None, settings: Any = None,
                         targets: Any = None, *, unsafe: bool = False, max_rounds: int = MAX_ROUNDS,
                         project: Any = None) -> NotebookFixResult:
    """Apply fixes to the code cells of a notebook (JSON text or parsed dict, which is not changed)."""
    from ..notebook import check_notebook, neutralise_magics

    data = json.loads(notebook) if isinstance(notebook, (str, bytes)) else json.loads(json.dumps(notebook))
    cells = data.get("cells") if isinstance(data, dict) else None
    original = {n: cell_source(c) for n, c in enumerate(cells or [], start=1)
                if isinstance(c, dict) and c.get("cell_type") == "code"}
    fixed: list[Violation] = []
    problems: list[str] = []

    def check() -> list[Violation]:
        return check_notebook(data, path, settings, targets, project=project, fixes=True)

    violations = check()
    for _ in range(max_rounds):
        chosen_by_cell: dict[int, list[Violation]] = {}
        for violation in violations:
            if violation.cell is not None and applicable(violation.fix, unsafe):
                chosen_by_cell.setdefault(violation.cell, []).append(violation)
        applied_any = False
        for number, candidates in chosen_by_cell.items():
            chosen, _deferred = choose(candidates, unsafe)
            cell = cells[number - 1]  # type: ignore[index]
            before = cell_source(cell)
            clamped = [replace(v, fix=replace(v.fix, edits=tuple(_clamped(before, v.fix.edits))))  # type: ignore[arg-type, union-attr]
                       for v in chosen]

            def parses(text: str) -> str | None:
                return parse_problem(neutralise_magics(text))

            after, applied = _apply_round(before, clamped, problems, parses)
            if applied and after != before:
                set_cell_source(cell, after)
                fixed.extend(applied)
                applied_any = True
        if not applied_any:
            break
        violations = check()
    for violation in violations:
        if _left_unfixed(violation, unsafe):
            problems.append(f"{violation.code} in cell {violation.cell} at line {violation.range.start.line + 1}: "
                            f"{violation.fix_error}")
    changed = {n: (before, cell_source(cells[n - 1])) for n, before in original.items()  # type: ignore[index]
               if cell_source(cells[n - 1]) != before}  # type: ignore[index]
    return NotebookFixResult(data, changed, tuple(fixed), tuple(violations), tuple(dict.fromkeys(problems)))


def notebook_json(notebook: dict, like: str) -> str:
    """The notebook serialised the way `like` (the file's original JSON text) was written:
    its indentation, ASCII escaping and final newline (nbformat writes indent 1, UTF-8)."""
    indent: int | str | None = 1
    lines = like.splitlines()
    if len(lines) > 1:
        second = lines[1]
        stripped = second.lstrip(" \t")
        lead = second[:len(second) - len(stripped)]
        indent = lead if "\t" in lead else len(lead)
    else:
        indent = None
    ensure_ascii = like.isascii() and "\\u" in like
    separators = (",", ": ") if indent is not None else ((", ", ": ") if ", " in like else (",", ":"))
    text = json.dumps(notebook, indent=indent, ensure_ascii=ensure_ascii, separators=separators)
    if like.endswith("\n"):
        text += "\n"
    return text
