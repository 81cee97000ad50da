"""OPT002's wording follows the optimizer family and the configured TensorFlow / Keras."""

from __future__ import annotations

import inspect

import tapelsp
from tapelsp import Settings

TF_KERAS_CLOSURE = inspect.cleandoc("""
    import tensorflow as tf

    w = tf.Variable(2.0)
    optimizer = tf.keras.optimizers.SGD(0.1)
    loss = w * w
    optimizer.minimize(lambda: loss, [w])
""") + "\n"


def messages(source: str, **settings) -> list[str]:
    found = tapelsp.check_source(source, "t.py", Settings(select=("OPT002",), **settings))
    return [v.message for v in found if v.code == "OPT002"]


def test_tf_keras_is_keras3_from_tensorflow_2_16() -> None:
    [new] = messages(TF_KERAS_CLOSURE, tensorflow_version="2.21")
    [old] = messages(TF_KERAS_CLOSURE, tensorflow_version="2.15")
    assert new.startswith("Keras 3 optimizers have no `minimize`")
    assert old.startswith("Constant loss") and "No gradients provided for any variable" in old


def test_standalone_keras_follows_the_keras_version() -> None:
    source = TF_KERAS_CLOSURE.replace("import tensorflow as tf", "import tensorflow as tf\nimport keras") \
        .replace("tf.keras.optimizers", "keras.optimizers")
    [three] = messages(source, tensorflow_version="2.21", keras_version="3.15")
    [two] = messages(source, tensorflow_version="2.21", keras_version="2.15")
    assert three.startswith("Keras 3") and two.startswith("Constant loss")


def test_other_minimize_functions_are_not_optimizers() -> None:
    source = inspect.cleandoc("""
        import tensorflow as tf
        import tensorflow_probability as tfp
        import scipy.optimize

        w = tf.Variable(2.0)
        loss = w * w
        tfp.math.minimize(lambda: loss, num_steps=10, optimizer=None)
        scipy.optimize.minimize(lambda: loss, 0.0)
    """) + "\n"
    assert messages(source) == []


def test_lambda_that_computes_or_returns_a_variable_is_fine() -> None:
    for body in ("w * w", "w", "loss_fn()", "model.losses[0]"):
        source = TF_KERAS_CLOSURE.replace("lambda: loss", f"lambda: {body}")
        assert messages(source, tensorflow_version="2.15") == [], body


def test_tensor_loss_inside_a_tf_function_or_graph_mode_is_left_alone() -> None:
    graph = inspect.cleandoc("""
        import tensorflow as tf

        tf.compat.v1.disable_eager_execution()
        w = tf.Variable(2.0)
        optimizer = tf.compat.v1.train.AdamOptimizer(0.1)
        loss = tf.square(w)
        train_op = optimizer.minimize(loss)
    """) + "\n"
    assert messages(graph) == []
    assert len(messages(graph.replace("tf.compat.v1.disable_eager_execution()\n", ""))) == 1


def test_a_tensor_loss_from_a_method_with_tf_use_legacy_keras_is_keras2() -> None:
    """TF_USE_LEGACY_KERAS=1 set before TensorFlow is imported makes tf.keras tf_keras (Keras 2),
    whose minimize wants a tape for a tensor loss; the loss comes from a method of the class."""
    source = inspect.cleandoc("""
        import os
        os.environ["TF_USE_LEGACY_KERAS"] = "1"
        import tensorflow as tf

        class Trainer:
            def __init__(self):
                self.model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
                self.optimizer = tf.keras.optimizers.Adam(1e-2)

            def compute_loss(self, x, y):
                return tf.reduce_mean(tf.square(self.model(x) - y))

            def fit_batch(self, x, y):
                loss = self.compute_loss(x, y)
                self.optimizer.minimize(loss, self.model.trainable_variables)
    """) + "\n"
    [message] = messages(source, tensorflow_version="2.21")
    assert "`tape` is required when a `Tensor` loss is passed." in message
    [keras3] = messages(source.replace('os.environ["TF_USE_LEGACY_KERAS"] = "1"\n', ""), tensorflow_version="2.21")
    assert keras3.startswith("Keras 3 optimizers have no `minimize`")


def test_a_tensor_loss_returned_by_a_call_of_an_unknown_optimizer_is_left_alone() -> None:
    """`optimizer.minimize(loss_fn())` in code that hands in its optimizer (tf_keras's own
    distribute/test_example.py: a TF1 optimizer in graph code takes a tensor loss): silent."""
    source = inspect.cleandoc("""
        import tensorflow as tf

        def model_fn(optimizer, layer, x):
            def loss_fn():
                y = tf.reshape(layer(x), []) - tf.constant(1.0)
                return y * y
            return optimizer.minimize(loss_fn())
    """) + "\n"
    assert messages(source, tensorflow_version="2.21") == []
