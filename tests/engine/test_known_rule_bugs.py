"""Rule bugs found by the test suite (see tests/known_bugs.py): strict xfails, one per bug."""

from __future__ import annotations

import pytest

import tapelsp
from tapelsp import Settings
from tapelsp.rules import rule_by_code

from known_bugs import KNOWN_BUGS, KnownBug


@pytest.mark.parametrize("bug", [pytest.param(bug, id=bug.id, marks=pytest.mark.xfail(strict=True, reason=bug.reason))
                                 for bug in KNOWN_BUGS])
def test_known_rule_bug(bug: KnownBug) -> None:
    findings = tapelsp.check_source(bug.source, "bug.py", Settings(tensorflow_version="2.21"))
    flagged = sorted(v.range.start.line + 1 for v in findings if v.code == bug.code)
    assert flagged == sorted(bug.lines)


@pytest.mark.parametrize("bug", KNOWN_BUGS, ids=[bug.id for bug in KNOWN_BUGS])
def test_known_bug_entries_are_well_formed(bug: KnownBug) -> None:
    assert rule_by_code(bug.code) is not None
    compile(bug.source, bug.id, "exec")
    assert bug.check or bug.raises, "every bug report says how TensorFlow shows it"
