"""check_source pauses the cyclic garbage collector while it runs, and always turns it back on."""

import gc

import pytest

from tapelsp.engine import check_source
from tapelsp.rules.function.func001_variable_in_function import VariableInFunction

SOURCE = "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    v = tf.Variable(1.0)\n    return v * x\n"


def test_collector_is_off_during_a_check_and_on_after(monkeypatch):
    seen = []
    original = VariableInFunction.check

    def spy(self, ctx):
        seen.append(gc.isenabled())
        return original(self, ctx)

    monkeypatch.setattr(VariableInFunction, "check", spy)
    assert gc.isenabled()
    codes = [v.code for v in check_source(SOURCE)]
    assert seen == [False]
    assert gc.isenabled()
    assert "FUNC001" in codes


def test_collector_back_on_when_the_check_raises(monkeypatch):
    monkeypatch.setattr("tapelsp.engine._check_source", lambda *a, **k: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        check_source(SOURCE)
    assert gc.isenabled()


def test_a_disabled_collector_stays_disabled():
    gc.disable()
    try:
        check_source(SOURCE)
        assert not gc.isenabled()
    finally:
        gc.enable()
