"""TL004: one rule that raises is reported, and every other rule's findings are still there."""

from __future__ import annotations

import json

import pytest

import tapelsp
from tapelsp import Settings
from tapelsp.rules import rule_by_code

SETTINGS = Settings(tensorflow_version="2.21")
SOURCE = '''\
import tensorflow as tf

x = tf.constant([1.0, 2.0])
y = tf.map_fn(lambda a: a ** 2, x)

@tf.function
def scale(v):
    w = tf.Variable(2.0)
    return w * v
'''


@pytest.fixture
def broken_map002(monkeypatch: pytest.MonkeyPatch):
    def explode(self, ctx):
        raise KeyError("boom")

    monkeypatch.setattr(rule_by_code("MAP002"), "check", explode)


def codes(findings) -> list[str]:
    return [v.code for v in findings if v.code in ("FUNC001", "MAP002", "TL004")]


def test_baseline() -> None:
    assert codes(tapelsp.check_source(SOURCE, "a.py", SETTINGS)) == ["MAP002", "FUNC001"]


def test_a_rule_that_raises_gives_tl004_and_the_others_still_report(broken_map002) -> None:
    findings = tapelsp.check_source(SOURCE, "a.py", SETTINGS)
    assert sorted(codes(findings)) == ["FUNC001", "TL004"]
    (internal,) = [v for v in findings if v.code == "TL004"]
    assert "MAP002" in internal.message and "KeyError" in internal.message and "boom" in internal.message
    assert "test_internal_error.py" in internal.message, "where it failed, for the bug report"
    assert internal.severity == rule_by_code("TL004").severity


def test_tl004_in_a_notebook(broken_map002) -> None:
    notebook = json.dumps({"cells": [{"cell_type": "code", "source": SOURCE, "metadata": {}, "outputs": []}]})
    findings = tapelsp.check_notebook(notebook, "a.ipynb", SETTINGS)
    assert sorted(codes(findings)) == ["FUNC001", "TL004"]
    assert all(v.cell == 1 for v in findings)


def test_tl004_can_be_ignored(broken_map002) -> None:
    findings = tapelsp.check_source(SOURCE, "a.py", Settings(tensorflow_version="2.21", ignore=("TL004",)))
    assert codes(findings) == ["FUNC001"]


def test_a_rule_that_is_not_selected_cannot_crash(broken_map002) -> None:
    findings = tapelsp.check_source(SOURCE, "a.py", Settings(tensorflow_version="2.21", select=("FUNC",)))
    assert codes(findings) == ["FUNC001"]


def test_every_rule_failing_at_once_still_returns(monkeypatch: pytest.MonkeyPatch) -> None:
    from tapelsp.rules import all_rules

    def explode(self, ctx):
        raise RuntimeError(f"{type(self).__name__} broke")

    real = [rule for rule in all_rules() if not rule.code.startswith("TL")]
    for rule in real:
        monkeypatch.setattr(rule, "check", explode)
    findings = tapelsp.check_source(SOURCE, "a.py", SETTINGS)
    internal = [v for v in findings if v.code == "TL004"]
    assert internal and {v.code for v in findings} == {"TL004"}
    # one TL004 per rule that ran (rules whose triggers are absent are not run at all)
    assert len({v.message for v in internal}) == len(internal)
