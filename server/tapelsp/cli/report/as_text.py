"""`path:row:col: CODE message`, one line per finding, then a summary.

Notebook findings name their cell: `path:cell N:row:col: CODE message`, with
row and column counted inside that cell. `[*]` marks a finding with a safe fix.
"""

from __future__ import annotations

from ...model import FileResult
from .findings import Finding, findings


def format_line(finding: Finding) -> str:
    span = finding.span
    where = finding.path
    if finding.violation.cell is not None:
        where += f":cell {finding.violation.cell}"
    mark = "[*] " if finding.has_safe_fix else ""
    return f"{where}:{span.row}:{span.column}: {finding.violation.code} {mark}{finding.violation.message}"


def summary(count: int, fixable: int) -> list[str]:
    if count == 0:
        return ["All checks passed!"]
    lines = [f"Found {count} error{'' if count == 1 else 's'}."]
    if fixable:
        lines.append(f"[*] {fixable} fixable with --fix.")
    return lines


def render_text(results: list[FileResult], *, quiet: bool = False) -> str:
    found = list(findings(results))
    lines = [format_line(finding) for finding in found]
    if not quiet:
        lines.extend(summary(len(found), sum(1 for finding in found if finding.has_safe_fix)))
    return "".join(line + "\n" for line in lines)
