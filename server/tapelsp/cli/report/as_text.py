"""`path:row:col: CODE message`, one line per finding, then a summary.

Notebook findings name their cell: `path:cell N:row:col: CODE message`, with
row and column counted inside that cell. `[*]` marks a finding whose fix `--fix`
would apply: a safe fix, or any fix with `--unsafe-fixes`. After `--fix`, the
summary counts what was fixed and what is left.
"""

from __future__ import annotations

from ...model import FileResult
from .findings import Finding, findings


def format_line(finding: Finding, unsafe_fixes: bool = False) -> str:
    span = finding.span
    where = finding.path
    if finding.violation.cell is not None:
        where += f":cell {finding.violation.cell}"
    fixable = finding.has_safe_fix or (unsafe_fixes and finding.has_unsafe_fix)
    mark = "[*] " if fixable else ""
    return f"{where}:{span.row}:{span.column}: {finding.violation.code} {mark}{finding.violation.message}"


def summary(count: int, fixable: int, hidden: int = 0, fixed: int | None = None) -> list[str]:
    """The closing lines. `hidden`: unsafe fixes not shown as fixable; `fixed`: applied by --fix."""
    if fixed is not None:
        if count == 0 and fixed == 0:
            return ["All checks passed!"]
        total = count + fixed
        lines = [f"Found {total} error{'' if total == 1 else 's'} ({fixed} fixed, {count} remaining)."]
    elif count == 0:
        return ["All checks passed!"]
    else:
        lines = [f"Found {count} error{'' if count == 1 else 's'}."]
    more = f"{hidden} hidden fix{'' if hidden == 1 else 'es'} can be enabled with --unsafe-fixes"
    if fixable:
        lines.append(f"[*] {fixable} fixable with --fix" + (f" ({more})." if hidden else "."))
    elif hidden:
        lines.append(f"No fixes available ({more}).")
    return lines


def render_text(results: list[FileResult], *, quiet: bool = False, unsafe_fixes: bool = False,
                fixed: int | None = None) -> str:
    found = list(findings(results))
    lines = [format_line(finding, unsafe_fixes) for finding in found]
    if not quiet:
        fixable = sum(1 for f in found if f.has_safe_fix or (unsafe_fixes and f.has_unsafe_fix))
        hidden = 0 if unsafe_fixes else sum(1 for f in found if f.has_unsafe_fix)
        lines.extend(summary(len(found), fixable, hidden, fixed))
    return "".join(line + "\n" for line in lines)
