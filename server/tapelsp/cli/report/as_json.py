"""A JSON list with ruff's fields for each finding, plus `severity`.

`filename` is the path as displayed (relative to the working directory when the
file is inside it). Rows and columns are 1-based, columns in code points; an
`end_location` column points just after the last character. For notebooks,
`cell` is the 1-based cell number and rows count inside the cell.
"""

from __future__ import annotations

import json

from ...model import Edit, Evidence, FileResult, Fix
from .findings import Finding, Span, findings


def _location(row: int, column: int) -> dict:
    return {"column": column, "row": row}


def _edit(edit: Edit) -> dict:
    span = Span.of(edit.range)
    return {"content": edit.new_text, "end_location": _location(span.end_row, span.end_column),
            "location": _location(span.row, span.column)}


def fix_object(fix: Fix | None) -> dict | None:
    if fix is None:
        return None
    return {"applicability": fix.applicability.value, "edits": [_edit(edit) for edit in fix.edits],
            "message": fix.title}


def evidence_object(evidence: Evidence) -> dict:
    return {"confirmed": evidence.verdict == "confirmed", "verdict": evidence.verdict,
            "summary": evidence.summary, "details": list(evidence.details)}


def finding_object(finding: Finding) -> dict:
    violation = finding.violation
    span = finding.span
    found = {
        "cell": violation.cell,
        "code": violation.code,
        "end_location": _location(span.end_row, span.end_column),
        "filename": finding.path,
        "fix": fix_object(violation.fix),
        "location": _location(span.row, span.column),
        "message": violation.message,
        "noqa_row": span.row,
        "severity": violation.severity.label,
        "url": violation.url,
    }
    if violation.evidence is not None:  # only with --probe: what TensorFlow showed at runtime
        found["evidence"] = evidence_object(violation.evidence)
    return found


def render_json(results: list[FileResult]) -> str:
    objects = [finding_object(finding) for finding in findings(results)]
    return json.dumps(objects, indent=2, ensure_ascii=False) + "\n"

