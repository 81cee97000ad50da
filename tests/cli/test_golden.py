"""Golden outputs of `tapelsp --check .` on tests/cli/fixtures/project, in every format.

Regenerate with `PYTHONPATH=server python3 tests/cli/regen_golden.py` (see golden_cases.py).
"""

from __future__ import annotations

import json
import re

import pytest

from .golden_cases import CASES, golden_path, normalise, produce
from .helpers import PROJECT, run_module


@pytest.mark.parametrize("output_format", sorted(CASES))
def test_output_matches_golden(output_format):
    outcome = produce(output_format)
    expected = golden_path(output_format).read_text(encoding="utf-8")
    assert outcome.err == ""
    assert outcome.code == 1
    assert outcome.out == expected


def _finding_lines(text: str) -> list[str]:
    """The text output's finding lines: everything before the `Found N errors.` summary."""
    lines = text.splitlines()
    return lines[:next(i for i, line in enumerate(lines) if line.startswith("Found "))]


def test_golden_text_summary_counts_every_line():
    text = golden_path("text").read_text(encoding="utf-8")
    findings = _finding_lines(text)
    summary = text.splitlines()[len(findings):]
    assert summary[0] == f"Found {len(findings)} errors."
    marked = sum(1 for line in findings if re.search(r": [A-Z]+[0-9]+ \[\*\] ", line))
    assert summary[1:] == ([f"[*] {marked} fixable with --fix."] if marked else [])


def test_golden_json_is_the_same_findings_as_text():
    text = _finding_lines(golden_path("text").read_text(encoding="utf-8"))
    findings = json.loads(golden_path("json").read_text(encoding="utf-8"))
    rebuilt = []
    for item in findings:
        cell = f":cell {item['cell']}" if item["cell"] is not None else ""
        fixable = item["fix"] is not None and item["fix"]["applicability"] == "safe"
        rebuilt.append(f"{item['filename']}{cell}:{item['location']['row']}:{item['location']['column']}: "
                       f"{item['code']} {'[*] ' if fixable else ''}{item['message']}")
    assert rebuilt == text


@pytest.mark.parametrize("output_format", ["text", "sarif"])
def test_python_dash_m_prints_the_golden_output(output_format):
    """What a user runs: a fresh interpreter, `python -m tapelsp`."""
    outcome = run_module(["--check", ".", "--output-format", output_format], cwd=PROJECT)
    assert outcome.code == 1
    assert outcome.err == ""
    assert normalise(output_format, outcome.out) == golden_path(output_format).read_text(encoding="utf-8")


def test_fixture_tree_excludes_and_skips():
    text = golden_path("text").read_text(encoding="utf-8")
    # generated/ is excluded by the fixture configuration, env/ holds pyvenv.cfg.
    assert "generated/" not in text
    assert "env/" not in text
    # legacy/old.py has FUNC001 silenced by per-file-ignores, MAP002 kept.
    assert "legacy/old.py:7:12: MAP002 " in text
    assert "legacy/old.py:6" not in text
    # suppressed.py silences its findings with comments; clean.py has none.
    assert "suppressed.py" not in text and "clean.py" not in text
