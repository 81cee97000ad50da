"""Notebook cells as a frontend (the JupyterLab extension) sends them, findings as it shows them.

A frontend sends the cells of one notebook: an id, a type and a source each. The code
cells are checked as one program (`notebook.check_notebook`); each finding is returned
in its cell's coordinates: `cell_index` among ALL cells of the request (0-based), ranges
with 0-based lines in the cell and characters in UTF-16 code units (what JavaScript and
CodeMirror count), the fix's edits per cell in the same units.

`probe_cells` does the same with the runtime facts of the notebook's running kernel
(attach mode of the probe: nothing of the user's is run) merged in. Neither imports
TensorFlow: the kernel does that, in its own process.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Sequence

from .model import Edit, Fix, Range, Violation
from .notebook import check_notebook
from .settings import Settings, Targets
from .text import SourceText

CELL_TYPES = ("code", "markdown", "raw")
RUNTIME_STATUS = {"confirmed": "confirmed", "runtime": "runtime-only"}
REFUTED = "refuted"
LOAD_HINT = "run `%load_ext tapelsp.probe` in the notebook (before the cells to check), then run the cells"


class RequestError(ValueError):
    """The request's cells are not what `parse_cells` accepts; the text says why."""


class NotProbed(Exception):
    """The kernel answered, but there is nothing the probe can tell about it (no
    instrumentation, no TensorFlow); the text says what to do."""


@dataclass(frozen=True)
class RequestCell:
    id: str
    cell_type: str  # code, markdown or raw
    source: str


@dataclass(frozen=True)
class ProbeAnswer:
    findings: list[dict[str, Any]]
    runtime: dict[str, Any]
    message: str


def parse_cells(value: Any) -> list[RequestCell]:
    """The request's `cells` (a list of {"id", "cell_type", "source"}); RequestError when the
    shape is wrong. A source may be a string or a list of strings (as in .ipynb files)."""
    if not isinstance(value, list):
        raise RequestError("`cells` must be a list of cells")
    cells = []
    seen: set[str] = set()
    for index, cell in enumerate(value):
        if not isinstance(cell, dict):
            raise RequestError(f"cell {index} must be an object")
        cell_id, cell_type, source = cell.get("id"), cell.get("cell_type"), cell.get("source", "")
        if not isinstance(cell_id, str) or not cell_id:
            raise RequestError(f"cell {index}: `id` must be a non-empty string")
        if cell_id in seen:
            raise RequestError(f"cell {index}: id {cell_id!r} is used by another cell")
        seen.add(cell_id)
        if cell_type not in CELL_TYPES:
            raise RequestError(f"cell {index}: `cell_type` must be one of {', '.join(CELL_TYPES)}")
        if isinstance(source, list) and all(isinstance(part, str) for part in source):
            source = "".join(source)
        if not isinstance(source, str):
            raise RequestError(f"cell {index}: `source` must be a string")
        cells.append(RequestCell(cell_id, cell_type, source))
    return cells


def notebook_of(cells: Sequence[RequestCell]) -> dict[str, Any]:
    """The cells as a notebook dict (cell numbers are 1-based among all cells, as the engine counts)."""
    return {"cells": [{"cell_type": cell.cell_type, "source": cell.source} for cell in cells]}


def settings_for(path: str | None) -> tuple[Settings, str | None]:
    """The `[tool.tapelsp]` settings for a notebook at `path` (an OS path) as the command line
    finds them, and the problem with the configuration file if it is broken (then: defaults)."""
    if path is None:
        return Settings(), None
    from .cli.args import Options
    from .cli.config import ConfigError
    from .cli.resolve import Resolver

    try:
        return Resolver(Options(), cwd=os.path.dirname(os.path.abspath(path))).settings_for(path), None
    except ConfigError as error:
        return Settings(), str(error)


def check_cells(cells: Sequence[RequestCell], path: str | None = None, settings: Settings | None = None,
                targets: Targets | None = None) -> list[Violation]:
    """Findings for the code cells, each with `cell` (1-based among all cells) and its fix built."""
    return check_notebook(notebook_of(cells), path, settings, targets, fixes=True)


# -- findings as JSON -----------------------------------------------------------------------

def utf16_column(line: str, column: int) -> int:
    """A code-point column of `line` in UTF-16 code units (clamped to the line)."""
    prefix = line[:max(0, column)]
    return len(prefix) if prefix.isascii() else len(prefix.encode("utf-16-le", errors="surrogatepass")) // 2


def range_json(rng: Range, text: SourceText) -> dict[str, Any]:
    """A cell range in UTF-16 units. A position past the cell's end (the engine joins cells
    with a newline the cell may not have) is moved to the cell's end."""
    last = max(0, len(text.lines) - 1)

    def position(line: int, column: int) -> dict[str, int]:
        if line > last:
            line, column = last, len(text.line(last))
        return {"line": max(0, line), "character": utf16_column(text.line(line), column)}

    return {"start": position(rng.start.line, rng.start.column), "end": position(rng.end.line, rng.end.column)}


def _edit_json(edit: Edit, cell: RequestCell, text: SourceText) -> dict[str, Any]:
    return {"cell_id": cell.id, "range": range_json(edit.range, text), "new_text": edit.new_text}


def _fix_json(fix: Fix | None, cell: RequestCell, text: SourceText) -> dict[str, Any] | None:
    if fix is None:
        return None
    return {"title": fix.title, "safe": fix.applicability.value == "safe",
            "edits": [_edit_json(edit, cell, text) for edit in fix.edits]}


def finding_json(violation: Violation, cells: Sequence[RequestCell], runtime: dict[str, str] | None = None,
                 ) -> dict[str, Any] | None:
    """One finding as the frontend reads it; None when it is not in one of `cells`."""
    if violation.cell is None or not 1 <= violation.cell <= len(cells):
        return None
    cell = cells[violation.cell - 1]
    text = SourceText(cell.source)
    if runtime is None and violation.evidence is not None:
        runtime = {"status": RUNTIME_STATUS.get(violation.evidence.verdict, violation.evidence.verdict),
                   "evidence": _evidence_text(violation)}
    return {
        "code": violation.code,
        "message": violation.message,
        "severity": violation.severity.label,  # error, warning, information or hint
        "cell_id": cell.id,
        "cell_index": violation.cell - 1,
        "range": range_json(violation.range, text),
        "doc_url": violation.url,
        "related": [{"cell_id": cell.id, "range": range_json(item.range, text), "message": item.message}
                    for item in violation.related],
        "fix": _fix_json(violation.fix, cell, text),
        "runtime": runtime,
    }


def _evidence_text(violation: Violation) -> str:
    evidence = violation.evidence
    assert evidence is not None
    details = [_unquoted_rest(detail, evidence.summary) for detail in evidence.details]
    details = [detail for detail in details if detail]
    if not details:
        return evidence.summary
    return f"{evidence.summary.rstrip('.')}: {'; '.join(details)}"


def _unquoted_rest(detail: str, summary: str) -> str:
    """`detail` without its start when the summary already quotes that start (the summary
    quotes the first sentence of TensorFlow's message, the detail is the whole message)."""
    for start in (quoted.strip() for quoted in summary.split('"')[1::2]):
        if start and detail.startswith(start):
            return detail[len(start):].strip()
    return detail


def _sort_key(finding: dict[str, Any]) -> tuple:
    start = finding["range"]["start"]
    return (finding["cell_index"], start["line"], start["character"], finding["code"], finding["message"])


def findings_json(violations: Sequence[Violation], cells: Sequence[RequestCell]) -> list[dict[str, Any]]:
    """The findings as JSON, sorted by cell_index, line, character."""
    found = [finding_json(violation, cells) for violation in violations]
    return sorted((f for f in found if f is not None), key=_sort_key)


# -- the running kernel (attach mode) -------------------------------------------------------

def probe_cells(cells: Sequence[RequestCell], connection_file: str, path: str | None = None,
                settings: Settings | None = None, timeout: float | None = None) -> ProbeAnswer:
    """The cells' findings merged with what the kernel behind `connection_file` recorded.

    Raises `ProbeError` (tapelsp.probe.kernel) when the kernel cannot be reached or does not
    answer in time, `NotProbed` when it has no instrumentation or has not imported TensorFlow."""
    from .probe.attach import DEFAULT_TIMEOUT, attach
    from .probe.merge import merge
    from .probe.source_map import SourceMap
    from .probe.targets import probe_targets

    settings = settings or Settings()
    numbers = {cell.id: number for number, cell in enumerate(cells, start=1)}
    report = attach(connection_file, DEFAULT_TIMEOUT if timeout is None else timeout, numbers).report
    if not report.instrumented:
        raise NotProbed(f"The kernel has no tapelsp instrumentation: {LOAD_HINT}.")
    if not report.mode.tensorflow_imported:
        raise NotProbed("The kernel has not imported TensorFlow yet: run the notebook's cells first "
                        "(with `%load_ext tapelsp.probe` loaded).")
    notebook = notebook_of(cells)
    static = check_cells(cells, path, settings, probe_targets(settings, report))
    unit = SourceMap(path or "notebook.ipynb", json.dumps(notebook), notebook=True)
    merged = merge(static, report, unit, settings)
    findings = [f for f in (finding_json(v, cells) for v in merged.violations) if f is not None]
    for refuted in merged.refuted:
        found = finding_json(refuted.violation, cells, {"status": REFUTED, "evidence": refuted.reason})
        if found is not None:
            findings.append(found)
    findings.sort(key=_sort_key)
    runtime = {
        "versions": {name: version for name, version in report.versions},
        "eager": bool(report.mode.executing_eagerly),
        "control_flow_v2": bool(report.mode.control_flow_v2),
        "events": sum(event.count for event in report.events),
    }
    tensorflow = report.version("tensorflow") or "?"
    message = (f"Kernel: TensorFlow {tensorflow}, {report.describe_mode()}. "
               f"{len(merged.confirmed)} confirmed, {len(merged.refuted)} refuted, "
               f"{len(merged.runtime_only)} found only at runtime.")
    return ProbeAnswer(findings, runtime, message)


__all__ = ["RequestCell", "RequestError", "NotProbed", "ProbeAnswer", "parse_cells", "notebook_of", "settings_for",
           "check_cells", "finding_json", "findings_json", "range_json", "utf16_column", "probe_cells"]
