"""A valid example of a rule is a correct TensorFlow program, so no rule may flag it.

tests/engine/test_rule_examples.py checks that a valid example is not flagged by its own
rule. This checks every rule: a valid example that shows another rule's pitfall is a wrong
lesson in the docs, and the bug injector (bench/inject) takes the valid examples as correct
programs, so such an example would count as a false positive there and `--fix` would rewrite
it. Only the examples about the installed TensorFlow's semantics are checked (no
`tensorflow_version`: an example about TensorFlow 1.15 or 2.6 may be the pitfall under 2.21)
and only those that import TensorFlow.
"""

from __future__ import annotations

import pytest

import tapelsp
from tapelsp import Settings
from tapelsp.rules import all_rules

DEFAULT_TF = "2.21"


def _cases():
    out = []
    for rule in all_rules():
        k = 0
        for example in rule.examples:
            if not example.valid:
                continue
            k += 1
            if example.tensorflow_version is None and "import tensorflow" in example.source:
                out.append(pytest.param(example, id=f"{rule.code}-valid-{k}"))
    return out


CASES = _cases()


def test_there_are_cases() -> None:
    assert len(CASES) > 100


@pytest.mark.parametrize("example", CASES)
def test_valid_example_has_no_finding_of_any_rule(example) -> None:
    findings = [v for v in tapelsp.check_source(example.source, "example.py",
                                                Settings(tensorflow_version=DEFAULT_TF))
                if not v.code.startswith("TL")]
    numbered = "\n".join(f"{n:>4} | {line}" for n, line in enumerate(example.source.splitlines(), 1))
    assert not findings, (
        f"a valid example{f' ({example.title})' if example.title else ''} is flagged:\n{numbered}\n" +
        "\n".join(f"  {v.code} line {v.range.start.line + 1}: {v.message}" for v in findings))
