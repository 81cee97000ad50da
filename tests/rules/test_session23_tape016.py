"""TAPE016 in methods: reported only when every use of the method's name in the file is a call
on an instance of its class from eager code. The reported form and the one called only in a
tf.function have TensorFlow proofs among the rule's examples; these are the near variants."""

from __future__ import annotations

import inspect

import tapelsp
from tapelsp import Settings


def lines(source: str) -> list[int]:
    text = inspect.cleandoc(source) + "\n"
    found = tapelsp.check_source(text, "t.py", Settings(tensorflow_version="2.21", select=("TAPE016",)))
    return sorted(v.range.start.line + 1 for v in found if v.code == "TAPE016")


CLASS = """
    import tensorflow as tf

    class Fitter:
        def __init__(self):
            self.w = tf.Variable(2.0)

        def {name}(self, x):
            loss = self.w * x
            return tf.gradients(loss, [self.w])

        def run(self, x):
            return self.{name}(x)

    fitter = Fitter()
"""


def test_a_method_called_eagerly_through_another_method_is_reported() -> None:
    assert lines(CLASS.format(name="step") + """
    grads = fitter.run(tf.constant(3.0))
    """) == [9]


def test_a_method_passed_on_is_not_reported() -> None:
    assert lines(CLASS.format(name="step") + """
    step = tf.function(fitter.step)
    grads = step(tf.constant(3.0))
    """) == []


def test_a_method_keras_may_call_is_not_reported() -> None:
    assert lines(CLASS.format(name="train_step") + """
    grads = fitter.run(tf.constant(3.0))
    """) == []


def test_a_method_called_on_an_object_of_unknown_class_is_not_reported() -> None:
    assert lines(CLASS.format(name="step") + """
    def use(agent, x):
        return agent.step(x)

    grads = fitter.run(tf.constant(3.0))
    """) == []


def test_a_method_whose_caller_runs_in_a_tf_function_is_not_reported() -> None:
    assert lines(CLASS.format(name="step") + """
    @tf.function
    def traced(x):
        return fitter.run(x)

    grads = traced(tf.constant(3.0))
    """) == []


def test_a_method_never_called_is_not_reported() -> None:
    assert lines(CLASS.format(name="step")) == []


def test_a_method_of_another_class_of_the_same_name_does_not_count() -> None:
    assert lines(CLASS.format(name="step") + """
    class Other:
        def step(self, x):
            return x

    other = Other()

    @tf.function
    def traced(x):
        return other.step(x)

    grads = fitter.run(tf.constant(3.0))
    """) == [9]
