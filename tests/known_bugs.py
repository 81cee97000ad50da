"""Rule bugs found while building the test suite, waiting for their rule's owner.

Each entry is a snippet, the lines its rule should flag, and how TensorFlow shows the
problem. tests/engine/test_known_rule_bugs.py asserts the rule flags the snippet (strict
xfail until it is fixed: an XPASS fails, so the entry is then moved into the rule's own
examples and deleted here); tests/runtime/test_known_bug_symptoms.py runs the snippet under
real TensorFlow to prove the bug report is right.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class KnownBug:
    id: str
    code: str
    lines: tuple[int, ...]
    source: str
    reason: str
    check: str = ""
    raises: tuple[str, str] | None = None


KNOWN_BUGS: list[KnownBug] = []
