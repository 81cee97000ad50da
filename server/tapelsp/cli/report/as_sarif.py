"""SARIF 2.1.0: one run, the full rule catalogue as `tool.driver.rules`, one result per finding.

Artifact URIs are relative POSIX paths (percent-encoded) for files inside the
working directory, `file://` URIs otherwise. Regions are 1-based; columns are
Unicode code points (`columnKind`). A notebook finding's region counts rows
inside its cell, and the cell number is in `properties.cell` of the result and of
its related locations (which are always in the same cell).
"""

from __future__ import annotations

import json
from pathlib import PurePosixPath
from urllib.parse import quote

from ... import __version__
from ...model import FileResult, Range, Related, Severity
from .findings import Finding, Span, findings

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/tapelsp/tapelsp"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning",
          Severity.INFORMATION: "note", Severity.HINT: "note"}


def artifact_uri(path: str) -> str:
    if path.startswith("/"):
        return PurePosixPath(path).as_uri()
    return quote(path, safe="/")


def _region(rng: Range) -> dict:
    span = Span.of(rng)
    return {"startLine": span.row, "startColumn": span.column,
            "endLine": span.end_row, "endColumn": span.end_column}


def _physical(path: str, rng: Range) -> dict:
    return {"artifactLocation": {"uri": artifact_uri(path)}, "region": _region(rng)}


def rule_descriptors() -> list[dict]:
    from ...rules import all_rules

    return [{
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.doc()},
        "helpUri": rule.url(),
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
    } for rule in all_rules()]


def result_object(finding: Finding) -> dict:
    violation = finding.violation
    result: dict = {
        "ruleId": violation.code,
        "level": LEVELS[violation.severity],
        "message": {"text": violation.message},
        "locations": [{"physicalLocation": _physical(finding.path, violation.range)}],
    }
    if violation.related:
        result["relatedLocations"] = [_related(finding, number, related)
                                      for number, related in enumerate(violation.related)]
    if violation.cell is not None:
        result["properties"] = {"cell": violation.cell}
    return result


def _related(finding: Finding, number: int, related: Related) -> dict:
    location: dict = {"id": number, "physicalLocation": _physical(finding.path, related.range),
                      "message": {"text": related.message}}
    if finding.violation.cell is not None:
        location["properties"] = {"cell": finding.violation.cell}
    return location


def sarif_log(results: list[FileResult]) -> dict:
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "tapelsp", "version": __version__,
                                "informationUri": INFORMATION_URI, "rules": rule_descriptors()}},
            "columnKind": "unicodeCodePoints",
            "results": [result_object(finding) for finding in findings(results)],
        }],
    }


def render_sarif(results: list[FileResult]) -> str:
    return json.dumps(sarif_log(results), indent=2, ensure_ascii=False) + "\n"
