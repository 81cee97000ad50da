"""Printing findings: text, JSON (ruff's fields), SARIF 2.1.0 and GitHub annotations."""

from __future__ import annotations

from ...model import FileResult
from .as_github import render_github
from .as_json import render_json
from .as_sarif import render_sarif
from .as_text import render_text


def render(output_format: str, results: list[FileResult], *, quiet: bool = False, unsafe_fixes: bool = False,
           fixed: int | None = None) -> str:
    """All of a run's output for `results` (in display order, paths as displayed).

    Text only: `unsafe_fixes` marks unsafe fixes as applicable too; `fixed` (after --fix)
    is the number of findings fixed, for the summary."""
    if output_format == "text":
        return render_text(results, quiet=quiet, unsafe_fixes=unsafe_fixes, fixed=fixed)
    if output_format == "json":
        return render_json(results)
    if output_format == "sarif":
        return render_sarif(results)
    if output_format == "github":
        return render_github(results)
    raise ValueError(f"unknown output format {output_format!r}")


__all__ = ["render", "render_text", "render_json", "render_sarif", "render_github"]
