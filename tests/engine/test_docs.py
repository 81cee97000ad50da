"""The rule reference, `--list-rules` and `--explain` all come from the rules themselves."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from tapelsp.docs import explain, list_rules, rules_markdown
from tapelsp.rules import all_rules
from tapelsp.rules.base import DOC_SECTIONS, anchor

DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
REGENERATE = "PYTHONPATH=server python -m tapelsp.docs > docs/rules.md"
CODES = [rule.code for rule in all_rules()]


def test_docs_rules_md_is_up_to_date() -> None:
    expected = rules_markdown()
    actual = DOCS.read_text(encoding="utf-8") if DOCS.exists() else ""
    if actual != expected:
        diff = "".join(difflib.unified_diff(actual.splitlines(keepends=True), expected.splitlines(keepends=True),
                                            "docs/rules.md (committed)", "docs/rules.md (generated)", n=1))
        pytest.fail(f"docs/rules.md is stale; regenerate it with\n    {REGENERATE}\n\n{diff[:6000]}", pytrace=False)


def test_reference_covers_every_rule_with_its_anchor_and_examples() -> None:
    text = rules_markdown()
    for rule in all_rules():
        assert f'<a id="{anchor(rule)}"></a>' in text
        assert f"### {rule.code} {rule.name}" in text
        assert f"[{rule.code}](#{anchor(rule)})" in text, "the summary table links to it"
        for example in rule.examples:
            assert example.source in text, f"{rule.code}: an example is missing from the reference"


@pytest.mark.parametrize("code", CODES)
def test_explain_every_code(code: str) -> None:
    rule = next(r for r in all_rules() if r.code == code)
    text = explain(code)
    assert text is not None and text.startswith(f"# {code} ({rule.name})")
    assert rule.summary in text and rule.severity.label in text
    for section in DOC_SECTIONS:
        assert f"## {section}" in text, f"{code}: --explain lacks {section!r}"
    assert explain(code.lower()) == text, "codes are case-insensitive"


@pytest.mark.parametrize("code", ["", "NOPE001", "TAPE", "TAPE9999"])
def test_explain_unknown_code(code: str) -> None:
    assert explain(code) is None


def test_list_rules_lists_every_code_once() -> None:
    lines = list_rules().splitlines()
    assert lines[0].split()[:3] == ["code", "name", "severity"]
    listed = [line.split()[0] for line in lines[1:] if line.strip()]
    assert listed == CODES
    for rule in all_rules():
        row = next(line for line in lines[1:] if line.split()[0] == rule.code)
        assert rule.name in row and rule.severity.label in row and rule.summary in row
