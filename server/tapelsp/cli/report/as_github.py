"""GitHub Actions workflow commands: one `::error|warning|notice ...::` line per finding.

Escaping follows the workflow-command rules: `%`, `\\r`, `\\n` in the message;
also `:` and `,` in property values.
"""

from __future__ import annotations

from ...model import FileResult, Severity
from .findings import Finding, findings

LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning",
          Severity.INFORMATION: "notice", Severity.HINT: "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def format_command(finding: Finding) -> str:
    violation = finding.violation
    span = finding.span
    properties = {
        "title": f"tapelsp ({violation.code})",
        "file": finding.path,
        "line": str(span.row),
        "col": str(span.column),
        "endLine": str(span.end_row),
        "endColumn": str(span.end_column),
    }
    head = ",".join(f"{key}={escape_property(value)}" for key, value in properties.items())
    cell = f"cell {violation.cell}: " if violation.cell is not None else ""
    return f"::{LEVELS[violation.severity]} {head}::{escape_data(f'{cell}{violation.code} {violation.message}')}"


def render_github(results: list[FileResult]) -> str:
    return "".join(format_command(finding) + "\n" for finding in findings(results))
