"""FUNC001: a variable in a Keras model's train_step / test_step (traced by fit / evaluate), and
the exemption for a tf.function handed to a decorator the engine cannot see through, which
lifts its variable out with tf.init_scope() (TFF's tff.tensorflow.computation traces it once,
in a graph). The exempt and the reported forms that have TensorFlow proofs are the rule's
examples; these are the near variants."""

from __future__ import annotations

import inspect

import tapelsp
from tapelsp import Settings


def lines(source: str) -> list[int]:
    text = inspect.cleandoc(source) + "\n"
    found = tapelsp.check_source(text, "t.py", Settings(tensorflow_version="2.21", select=("FUNC001",)))
    return sorted(v.range.start.line + 1 for v in found if v.code == "FUNC001")


MODEL = """
    import numpy as np
    import tensorflow as tf

    class Regressor(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = tf.keras.layers.Dense(1)

        def call(self, x):
            return self.dense(x)

        def {step}(self, data):
            x, y = data
            scale = tf.Variable(1.0)
            loss = tf.reduce_mean((self(x) * scale - y) ** 2)
            return {{"loss": loss}}

    model = Regressor()
    model.compile(optimizer="sgd"{eager})
    {run}
"""


def test_a_variable_in_train_step_or_test_step_is_reported() -> None:
    fit = 'model.fit(np.ones((4, 2), "float32"), np.ones((4, 1), "float32"), verbose=0)'
    evaluate = 'model.evaluate(np.ones((4, 2), "float32"), np.ones((4, 1), "float32"), verbose=0)'
    assert lines(MODEL.format(step="train_step", eager="", run=fit)) == [14]
    assert lines(MODEL.format(step="test_step", eager="", run=evaluate)) == [14]


def test_a_keras_step_run_eagerly_is_not_reported() -> None:
    fit = 'model.fit(np.ones((4, 2), "float32"), np.ones((4, 1), "float32"), verbose=0)'
    assert lines(MODEL.format(step="train_step", eager=", run_eagerly=True", run=fit)) == []


def test_a_method_of_another_name_is_not_a_keras_step() -> None:
    fit = 'model.fit(np.ones((4, 2), "float32"), np.ones((4, 1), "float32"), verbose=0)'
    assert lines(MODEL.format(step="my_step", eager="", run=fit)) == []


def test_a_keras_step_behind_a_first_call_guard_is_not_reported() -> None:
    source = MODEL.format(step="train_step", eager="", run="model.fit(np.ones((4, 2)), np.ones((4, 1)))")
    source = source.replace("scale = tf.Variable(1.0)",
                            "if getattr(self, 'scale', None) is None:\n                self.scale = tf.Variable(1.0)")
    assert "if getattr" in source
    assert lines(source.replace("* scale", "* self.scale")) == []


UNSEEN = """
    import tensorflow as tf

    def traced_once_in_a_graph(fn):
        with tf.Graph().as_default():
            out = fn(tf.compat.v1.placeholder(tf.float32, [3]))
        return out.dtype.name

    {decorator}
    @tf.function
    def scaled(x):
        {body}
        return scale * x
"""
LIFTED = "with tf.init_scope():\n            scale = tf.Variable(2.0)"


def test_init_scope_under_an_unseen_decorator_is_not_reported() -> None:
    assert lines(UNSEEN.format(decorator="@traced_once_in_a_graph", body=LIFTED)) == []


def test_without_init_scope_the_unseen_decorator_does_not_help() -> None:
    # TensorFlow 2.21: tracing it in a graph raises the singleton-variable ValueError too
    assert lines(UNSEEN.format(decorator="@traced_once_in_a_graph", body="scale = tf.Variable(2.0)")) == [11]


def test_init_scope_in_a_tf_function_called_eagerly_is_reported() -> None:
    # TensorFlow 2.21: the first eager call raises (the variable is made again on the second trace)
    source = UNSEEN.format(decorator="", body=LIFTED) + "\n    y = scaled(tf.ones([3]))\n"
    assert lines(source) == [12]


def test_a_decorator_returning_its_argument_is_seen_through() -> None:
    source = """
        import tensorflow as tf

        REGISTRY = []

        def register(fn):
            REGISTRY.append(fn)
            return fn

        @register
        @tf.function
        def scaled(x):
            with tf.init_scope():
                scale = tf.Variable(2.0)
            return scale * x

        y = scaled(tf.ones([3]))
    """
    assert lines(source) == [13]
