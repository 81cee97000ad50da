"""TAPE018's tape held by an object: reported only for one tape that every call enters again."""

from __future__ import annotations

import inspect

import tapelsp
from tapelsp import Settings

HELD = inspect.cleandoc("""
    import tensorflow as tf

    class Agent:
        def __init__(self):
            self.w = tf.Variable(2.0)
            self.tape = tf.GradientTape(persistent=True)

        def step(self, x):
            with self.tape:
                y = self.w * x
            return self.tape.gradient(y, self.w)

    agent = Agent()
    for i in range(3):
        agent.step(tf.constant(1.0))
""") + "\n"


def lines(source: str) -> list[int]:
    return [v.range.start.line + 1 for v in tapelsp.check_source(source, "t.py", Settings(select=("TAPE018",)))]


def test_one_tape_entered_by_every_call_in_a_loop() -> None:
    assert lines(HELD) == [6]


def test_a_method_called_once_is_one_record() -> None:
    assert lines(HELD.replace("for i in range(3):\n    agent.step", "if True:\n    agent.step")) == []


def test_a_maker_that_records_into_it_gathers_on_purpose() -> None:
    source = HELD.replace("        self.tape = tf.GradientTape(persistent=True)\n",
                          "        self.tape = tf.GradientTape(persistent=True)\n        with self.tape:\n"
                          "            self.tape.watch(self.w)\n")
    assert lines(source) == []


def test_made_anew_after_use_is_released() -> None:
    source = HELD.replace("        return self.tape.gradient(y, self.w)\n",
                          "        g = self.tape.gradient(y, self.w)\n"
                          "        self.tape = tf.GradientTape(persistent=True)\n        return g\n")
    assert lines(source) == []
