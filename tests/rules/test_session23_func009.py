"""FUNC009 on loops too short for TensorFlow's retracing warning: reported only for a Python
float that takes a new value on every call (every call traces); ints, sweeps over listed
values and inner loops stay silent. The reported and the sweep forms with TensorFlow proofs are
the rule's examples."""

from __future__ import annotations

import inspect

import tapelsp
from tapelsp import Settings


def found(source: str) -> list:
    text = inspect.cleandoc(source) + "\n"
    return [v for v in tapelsp.check_source(text, "t.py", Settings(tensorflow_version="2.21", select=("FUNC009",)))
            if v.code == "FUNC009"]


def lines(source: str) -> list[int]:
    return sorted(v.range.start.line + 1 for v in found(source))


HEAD = """
    import tensorflow as tf

    @tf.function
    def update(x, decay):
        return x * decay

    x = tf.ones([2])
"""


def test_a_float_new_on_each_of_four_calls_is_reported_with_its_count() -> None:
    result = found(HEAD + """
    for step in range(4):
        y = update(x, decay=0.99 ** step)
    """)
    assert [v.range.start.line + 1 for v in result] == [10]
    assert "each of its 4 values" in result[0].message


def test_a_long_loop_keeps_the_warning_message() -> None:
    result = found(HEAD + """
    for step in range(100):
        y = update(x, decay=0.99 ** step)
    """)
    assert len(result) == 1 and "out of the last" in result[0].message


def test_a_python_int_of_a_short_loop_is_not_reported() -> None:
    assert lines(HEAD + """
    for step in range(4):
        y = update(x, step)
    """) == []


def test_a_short_loop_in_a_function_called_in_a_loop_is_not_reported() -> None:
    # the same four values come back on every call of run(): their traces are reused
    assert lines(HEAD + """
    def run():
        for step in range(4):
            update(x, decay=0.99 ** step)

    for epoch in range(10):
        run()
    """) == []


def test_a_short_inner_loop_is_not_reported() -> None:
    # the inner loop's four values repeat on every outer iteration: four traces in all
    assert lines(HEAD + """
    for epoch in range(10):
        for step in range(4):
            y = update(x, decay=0.99 ** step)
    """) == []


def test_a_sweep_over_listed_values_around_an_inner_loop_is_not_reported() -> None:
    assert lines(HEAD + """
    for lr in [0.1, 0.01]:
        for step in range(10):
            y = update(x, lr)
    """) == []
