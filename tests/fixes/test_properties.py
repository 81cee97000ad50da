"""The fix properties (tests/fixes/properties.py) over every example of every rule."""

from __future__ import annotations

import pytest

import tapelsp
from tapelsp import Settings
from tapelsp.rules import all_rules

from .properties import check_fix_properties, check_ignore_properties
from .test_fix_examples import ALL_CASES, ALL_IDS, DEFAULT_TF


@pytest.mark.parametrize(("rule", "example"), ALL_CASES, ids=ALL_IDS)
@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
def test_fix_properties_on_examples(rule, example, unsafe):
    settings = Settings(tensorflow_version=example.tensorflow_version or DEFAULT_TF)
    check_fix_properties(example.source, "example.py", settings, unsafe=unsafe)


@pytest.mark.parametrize(("rule", "example"), [c for c in ALL_CASES if not c[1].valid],
                         ids=[i for i, c in zip(ALL_IDS, ALL_CASES) if not c[1].valid])
def test_ignore_edit_properties_on_examples(rule, example):
    settings = Settings(tensorflow_version=example.tensorflow_version or DEFAULT_TF)
    for violation in tapelsp.check_source(example.source, "example.py", settings):
        if violation.code == rule.code:
            check_ignore_properties(example.source, violation, "example.py", settings)


def test_every_fixable_rule_is_exercised():
    fixable = {rule.code for rule in all_rules() if rule.fixable}
    fixed = set()
    for rule, example in ALL_CASES:
        settings = Settings(tensorflow_version=example.tensorflow_version or DEFAULT_TF)
        fixed |= {v.code for v in tapelsp.check_source(example.source, "example.py", settings, fixes=True)
                  if v.fix is not None}
    assert fixable <= fixed, fixable - fixed
