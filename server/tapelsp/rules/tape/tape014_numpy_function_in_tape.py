from __future__ import annotations

from ...model import Severity
from ...versions import VersionRange
from ...analysis.paths import NUMPY_FUNCTION, cuts_of, gradient_phrase
from ..base import Context, Proof, Rule, invalid, shares_findings, valid
from . import _keras


class NumpyFunctionInTape(Rule):
    """
    ## What it does
    Finds `tf.numpy_function(...)` or `tf.compat.v1.py_func(...)` inside a
    `tf.GradientTape` block when every route from the gradient's sources to its target
    goes through it; also where Keras runs it: in a layer of a model the file builds (a
    `Lambda(fn)` layer, a custom layer's `call`) that a tape or `model.fit` differentiates
    through, and in a loss given to `model.compile` that `model.fit` uses.

    ## Why is this bad?
    Both wrap Python code that works on NumPy arrays; TensorFlow has no gradient for
    them. The tape silently returns `None` for the sources; `model.fit` raises
    "No gradients provided for any variable" for such a loss. `tf.py_function` works on
    eager tensors and *is* differentiable: it is not reported.

    ## Example
    ```python
    with tf.GradientTape() as tape:
        y = tf.numpy_function(lambda a: a ** 2, [x * w], tf.float32)
        loss = tf.reduce_sum(y)
    g = tape.gradient(loss, w)  # None
    ```

    ## Use instead
    ```python
    with tf.GradientTape() as tape:
        y = tf.py_function(lambda a: a ** 2, [x * w], tf.float32)  # or plain TF ops
        loss = tf.reduce_sum(y)
    g = tape.gradient(loss, w)
    ```
    """

    code = "TAPE014"
    name = "numpy-function-in-tape"
    summary = "tf.numpy_function / py_func on the differentiable path inside a GradientTape"
    severity = Severity.ERROR
    tensorflow = VersionRange(">=2.0")
    cheap_without_triggers = True
    triggers = ("numpy_function", "py_func")
    examples = (
        invalid("""
            import numpy as np
            import tensorflow as tf


            class Agent:
                def __init__(self):
                    self.model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(2)])

                def rollout(self):
                    out = self.model(np.ones((1, 4), np.float32))
                    return out.numpy()

                def train_step(self):
                    with tf.GradientTape() as tape:
                        logits = tf.numpy_function(self.rollout, [], tf.float32)
                        loss = tf.reduce_sum(logits)
                    return tape.gradient(loss, self.model.trainable_variables)


            grads = Agent().train_step()
        """, 15, "a method of the agent that runs its model, wrapped in tf.numpy_function",
            proof=Proof(check="assert all(g is None for g in grads)")),
        invalid("""
            import tensorflow as tf

            w = tf.Variable(2.0)
            x = tf.constant(3.0)
            with tf.GradientTape() as tape:
                y = tf.numpy_function(lambda a: a ** 2, [x * w], tf.float32)
                loss = tf.reduce_sum(y)
            g = tape.gradient(loss, w)
        """, 6, "tf.numpy_function on the path",
            proof=Proof(check="assert g is None")),
        invalid("""
            import numpy as np
            import tensorflow as tf

            def clip(a):
                return np.clip(a, 0.0, 1.0).astype(np.float32)

            w = tf.Variable(0.5)
            with tf.GradientTape() as tape:
                y = tf.compat.v1.py_func(clip, [w * 1.0], tf.float32)
                loss = y * 2.0
            g = tape.gradient(loss, w)
        """, 9, "tf.compat.v1.py_func on the path",
            proof=Proof(check="assert g is None")),
        valid("""
            import tensorflow as tf

            w = tf.Variable(2.0)
            x = tf.constant(3.0)
            with tf.GradientTape() as tape:
                y = tf.py_function(lambda a: a ** 2, [x * w], tf.float32)
                loss = tf.reduce_sum(y)
            g = tape.gradient(loss, w)
        """, "tf.py_function is differentiable",
            proof=Proof(check="assert float(g) == 36.0")),
        valid("""
            import tensorflow as tf

            w = tf.Variable(2.0)
            with tf.GradientTape() as tape:
                noise = tf.numpy_function(lambda: __import__("numpy").float32(0.5), [], tf.float32)
                loss = w * w + noise
            g = tape.gradient(loss, w)
        """, "numpy_function for data that does not depend on the sources",
            proof=Proof(check="assert float(g) == 4.0")),
        invalid("""
            import numpy as np
            import tensorflow as tf


            class Polynomial(tf.keras.layers.Layer):
                def __init__(self, units, activation="tanh", use_bias=True):
                    super().__init__()
                    self.units = units
                    self.activation = tf.keras.activations.get(activation)
                    self.use_bias = use_bias

                def build(self, input_shape):
                    self.kernel = self.add_weight(shape=(input_shape[-1], self.units), name="kernel")
                    if self.use_bias:
                        self.bias = self.add_weight(shape=(self.units,), initializer="zeros", name="bias")

                def call(self, inputs):
                    output = tf.matmul(inputs, self.kernel)
                    if self.use_bias:
                        output = output + self.bias
                    if self.activation is not None:
                        output = self.activation(tf.numpy_function(np.square, [output], tf.float32))
                    return output


            layer = Polynomial(3)
            x = np.ones((4, 5), np.float32)
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(layer(x))
            grads = tape.gradient(loss, layer.trainable_variables)
        """, 22, "in a custom layer's call, behind `if` tests the value model knows are taken (`self.activation` is the function `activations.get` names, `use_bias` keeps its default)",
            proof=Proof(check="assert len(grads) == 2 and all(g is None for g in grads)")),
        valid("""
            import numpy as np
            import tensorflow as tf


            class Polynomial(tf.keras.layers.Layer):
                def __init__(self, units, activation="tanh", use_bias=True):
                    super().__init__()
                    self.units = units
                    self.activation = tf.keras.activations.get(activation)
                    self.use_bias = use_bias

                def build(self, input_shape):
                    self.kernel = self.add_weight(shape=(input_shape[-1], self.units), name="kernel")
                    if self.use_bias:
                        self.bias = self.add_weight(shape=(self.units,), initializer="zeros", name="bias")

                def call(self, inputs):
                    output = tf.matmul(inputs, self.kernel)
                    if self.use_bias:
                        output = output + self.bias
                    if self.activation is not None:
                        output = self.activation(tf.py_function(tf.square, [output], tf.float32))
                    return output


            layer = Polynomial(3)
            x = np.ones((4, 5), np.float32)
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(layer(x))
            grads = tape.gradient(loss, layer.trainable_variables)
        """, "the same layer with tf.py_function of a TensorFlow function: differentiable",
            proof=Proof(check="assert len(grads) == 2 and all(g is not None for g in grads)")),
    )

    @shares_findings
    def check(self, ctx: Context) -> None:
        reported: set[int] = set()
        for result, found in cuts_of(ctx, NUMPY_FUNCTION):
            reported.add(id(found.node))
            ctx.report(
                found.node,
                f"{found.what} runs Python on NumPy arrays and has no gradient: "
                f"{gradient_phrase(ctx, result)}. Use `tf.py_function` (differentiable) or TensorFlow ops.",
                related=[ctx.related(result.use.call, f"this {result.use.method} call gets "
                                                      f"{result.none_for()}")],
            )
        for finding in _keras.findings(ctx, NUMPY_FUNCTION, reported):
            ctx.report(finding.cut.node,
                       f"{finding.cut.what} runs Python on NumPy arrays and has no gradient{finding.where}: "
                       f"{_keras.consequence(ctx, finding)}. Use `tf.py_function` (differentiable) or TensorFlow ops.",
                       related=_keras.related(ctx, finding))
