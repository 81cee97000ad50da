"""Every invalid example of a fixable rule carries its expected fixed source, and the fix gives
exactly that text (all of the rule's fixes, unsafe ones included, applied to a fixpoint)."""

from __future__ import annotations

import pytest

import tapelsp
from tapelsp import Settings
from tapelsp.fixes import apply_fixes
from tapelsp.fixes.verify import NOT_OFFERED, UNSAFE
from tapelsp.rules import all_rules
from tapelsp.rules.base import Example, Rule

DEFAULT_TF = "2.21"


def _ids(rule: type[Rule]) -> list[tuple[str, Example]]:
    counts = {"valid": 0, "invalid": 0}
    out = []
    for example in rule.examples:
        kind = "valid" if example.valid else "invalid"
        counts[kind] += 1
        out.append((f"{rule.code}-{kind}-{counts[kind]}", example))
    return out


FIXABLE = [rule for rule in all_rules() if rule.fixable]
FIX_CASES = [(rule, example) for rule in FIXABLE for _id, example in _ids(rule) if not example.valid]
FIX_IDS = [case_id for rule in FIXABLE for case_id, example in _ids(rule) if not example.valid]
ALL_CASES = [(rule, example) for rule in all_rules() for _id, example in _ids(rule)]
ALL_IDS = [case_id for rule in all_rules() for case_id, _example in _ids(rule)]


def _settings(rule: type[Rule], example: Example) -> Settings:
    return Settings(tensorflow_version=example.tensorflow_version or DEFAULT_TF, select=(rule.code,))


def test_the_named_fixes_are_there() -> None:
    assert {"FUNC001", "TAPE001"} <= {rule.code for rule in FIXABLE}


@pytest.mark.parametrize(("rule", "example"), FIX_CASES, ids=FIX_IDS)
def test_fixed_source_is_exactly_the_expected_one(rule: type[Rule], example: Example) -> None:
    assert example.fixed is not None, f"{rule.code} is fixable: every invalid example needs fixed=..."
    result = apply_fixes(example.source, "example.py", _settings(rule, example), unsafe=True)
    if example.fixed == example.source:
        # fixed= the source itself: the rule deliberately offers no fix for this example.
        assert not result.fixed and result.text == example.source, result.fixed
        assert [v for v in result.remaining if v.code == rule.code]
        return
    assert [v.code for v in result.fixed] and {v.code for v in result.fixed} == {rule.code}, result.problems
    assert result.text == example.fixed, (
        f"\n--- expected\n{example.fixed}\n--- got\n{result.text}\nproblems: {result.problems}")
    assert not [v for v in result.remaining if v.code == rule.code]


@pytest.mark.parametrize(("rule", "example"), ALL_CASES, ids=ALL_IDS)
def test_only_rules_marked_fixable_offer_fixes(rule: type[Rule], example: Example) -> None:
    settings = Settings(tensorflow_version=example.tensorflow_version or DEFAULT_TF)
    for violation in tapelsp.check_source(example.source, "example.py", settings, fixes=True):
        owner = next(r for r in all_rules() if r.code == violation.code)
        if violation.fix is not None:
            assert owner.fixable, f"{owner.code} offers a fix but is not marked fixable"
        # Every fix builds; one the check of its fixed text turns down says why (fixes/verify.py:
        # with every rule on, another rule's fix may be one that would not cure, TAPE001-invalid-1).
        assert violation.fix_error is None or violation.fix_error.startswith((NOT_OFFERED, UNSAFE)), \
            f"{violation.code}: {violation.fix_error}"


def test_the_fix_of_each_rule_example_passes_the_check_of_its_fixed_text() -> None:
    """With only the example's rule on (as the fix tests run), no fix of an invalid example is
    turned down or made unsafe by fixes/verify.py: the examples' fixes are the ones it lets by."""
    turned = []
    for rule, example in FIX_CASES:
        for violation in tapelsp.check_source(example.source, "example.py", _settings(rule, example), fixes=True):
            if violation.fix_error is not None:
                turned.append(f"{rule.code} {example.title[:50]}: {violation.fix_error}")
    assert not turned, turned


@pytest.mark.parametrize(("rule", "example"), ALL_CASES, ids=ALL_IDS)
def test_examples_without_fixes_requested_carry_none(rule: type[Rule], example: Example) -> None:
    settings = Settings(tensorflow_version=example.tensorflow_version or DEFAULT_TF)
    assert all(v.fix is None for v in tapelsp.check_source(example.source, "example.py", settings))


def test_fixed_is_only_given_to_fixable_rules() -> None:
    stray = [rule.code for rule in all_rules() if not rule.fixable
             for example in rule.examples if example.fixed is not None]
    assert not stray, f"examples with fixed= in rules without a fix: {stray}"
