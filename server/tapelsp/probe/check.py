"""Check a file with the probe: run it, check it statically against the runtime versions,
merge (tapelsp side). What the CLI's `--probe` and, later, the language server call."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

from ..files import check_path, is_notebook, read_source
from ..model import FileResult, Violation
from ..settings import Settings, Targets
from .merge import Merged, merge
from .run import DEFAULT_TIMEOUT, FINISHED, RAISED, ProbeRun, probe_file
from .runtime_findings import outcome_finding
from .source_map import SourceMap
from .targets import probe_targets

# Runtime findings that already say why a run stopped on their line.
_STOP_CODES = ("RT003", "RT004", "RT005")


@dataclass(frozen=True)
class ProbeCheck:
    result: FileResult  # the merged findings, as the static check's result
    run: ProbeRun
    merged: Merged
    targets: Targets


def check_with_probe(path: str, settings: Settings | None = None, *, python: str | None = None,
                     timeout: float = DEFAULT_TIMEOUT, memory_limit_mb: float | None = None,
                     fixes: bool = False) -> ProbeCheck:
    """Run `path` under the probe and return its findings merged with the runtime's.
    Raises `ProbeError` when the probe cannot run at all."""
    run = probe_file(path, python=python, timeout=timeout, memory_limit_mb=memory_limit_mb)
    return merge_run(path, run, settings, fixes=fixes)


def merge_run(path: str, run: ProbeRun, settings: Settings | None = None, *, fixes: bool = False) -> ProbeCheck:
    settings = settings or Settings()
    full = os.path.abspath(path)
    targets = probe_targets(settings, run.report)
    static = check_path(full, settings, targets, fixes=fixes)
    if static.error is not None:
        return ProbeCheck(static, run, Merged(static.violations), targets)
    unit = SourceMap(full, read_source(full).text, is_notebook(full))
    merged = merge(static.violations, run.report, unit, settings)
    violations = list(merged.violations)
    stop = _stop_finding(run, unit, settings, violations)
    if stop is not None:
        violations.append(stop)
        merged = replace(merged, runtime_only=merged.runtime_only + (stop,))
    violations.sort(key=Violation.sort_key)
    merged = replace(merged, violations=tuple(violations))
    return ProbeCheck(replace(static, violations=tuple(violations)), run, merged, targets)


def _stop_finding(run: ProbeRun, unit: SourceMap, settings: Settings, found: list[Violation]) -> Violation | None:
    outcome = run.outcome
    if outcome.status == FINISHED:
        return None
    line = unit.unit_line(outcome.place) if outcome.place is not None else None
    if line is None and outcome.cell is not None and unit.notebook:
        cell = next((c for c in unit.cells if c.number == outcome.cell), None)
        line = cell.first_line + 1 if cell is not None else None
    if outcome.status == RAISED and line is not None:
        cell, rng = unit.range_of(line)
        explained = [v for v in found if v.cell == cell and v.range.start.line == rng.start.line
                     and (v.confirmed or v.code in _STOP_CODES)]
        if explained:
            return None
    return outcome_finding(outcome.message, line, outcome.cell, unit, settings)


__all__ = ["check_with_probe", "merge_run", "ProbeCheck"]
