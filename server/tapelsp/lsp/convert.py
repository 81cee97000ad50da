"""Engine values to LSP values, in the client's position encoding.

Every range that leaves the server goes through here (or through `positions`), with
the lines of the exact text the range refers to: the document's text for a Python
file, the cell's own text for a notebook finding.
"""

from __future__ import annotations

from typing import Any, Sequence

from lsprotocol import types

from ..model import Edit, Fix, Violation
from .fix_offers import identity
from .positions import to_client_range

__all__ = ["SOURCE", "digest", "fix_data", "identity", "text_edit", "to_diagnostic"]

SOURCE = "tapelsp"
RUNTIME_CONFIRMED = "confirmed"  # a static finding the probe reproduced
RUNTIME_ONLY = "runtime-only"  # a finding only the probe saw (RT codes)


def fix_data(fix: Fix, lines: Sequence[str], encoding: str) -> dict[str, Any]:
    return {
        "title": fix.title,
        "applicability": fix.applicability.value,
        "edits": [{"range": _range_json(to_client_range(lines, edit.range, encoding)), "newText": edit.new_text}
                  for edit in fix.edits],
    }


def _range_json(rng: types.Range) -> dict[str, Any]:
    return {"start": {"line": rng.start.line, "character": rng.start.character},
            "end": {"line": rng.end.line, "character": rng.end.character}}


def to_diagnostic(violation: Violation, uri: str, lines: Sequence[str], encoding: str, version: int | None,
                  fixable: bool = False, fix: Fix | None = None) -> types.Diagnostic:
    """The LSP diagnostic for a finding. `data` says whether the finding has a fix to build
    (`fixable`) and carries the fix itself once it has been built."""
    related = [
        types.DiagnosticRelatedInformation(
            location=types.Location(uri=uri, range=to_client_range(lines, item.range, encoding)),
            message=item.message)
        for item in violation.related
    ]
    data: dict[str, Any] = {"code": violation.code, "version": version, "fixable": fixable}
    if fix is not None:
        data["fix"] = fix_data(fix, lines, encoding)
    evidence = violation.evidence
    if evidence is not None:
        # What the probe saw (see client/vscode/src/runtime.ts for the client's side).
        status = RUNTIME_CONFIRMED if evidence.verdict == "confirmed" else RUNTIME_ONLY
        data["runtime"] = {"status": status, "evidence": evidence.summary, "details": list(evidence.details)}
        if not any(item.message.startswith("at runtime") for item in related):
            related.append(types.DiagnosticRelatedInformation(
                location=types.Location(uri=uri, range=to_client_range(lines, violation.range, encoding)),
                message=f"at runtime: {evidence.summary}"))
    return types.Diagnostic(
        range=to_client_range(lines, violation.range, encoding),
        message=violation.message,
        severity=types.DiagnosticSeverity(int(violation.severity)),
        code=violation.code,
        code_description=types.CodeDescription(href=violation.url) if violation.url else None,
        source=SOURCE,
        related_information=related or None,
        data=data,
    )


def text_edit(edit: Edit, lines: Sequence[str], encoding: str) -> types.TextEdit:
    return types.TextEdit(range=to_client_range(lines, edit.range, encoding), new_text=edit.new_text)


def digest(violations: Sequence[Violation], fixes: Sequence[Any] = ()) -> str:
    """A short fingerprint of what a report says (part of pull result ids; stable for
    the life of the server process, which is as long as result ids live)."""
    value = hash((tuple(fixes), tuple((identity(v), v.severity, v.related, v.evidence) for v in violations)))
    return f"{value & 0xFFFFFFFFFFFF:012x}"
