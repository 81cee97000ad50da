from ...model import Severity
from ..base import Context, Proof, Rule, invalid, valid


class NoneGradientAtRuntime(Rule):
    """
    ## What it does
    Reported by the probe (`tapelsp --check --probe`, or attached to a notebook's kernel),
    never by static analysis: a `tape.gradient`, `jacobian` or `batch_jacobian` call that
    returned None for some of its sources while the program ran, where no static rule
    explains why. The finding names the sources that were None and in how many calls.

    ## Why is this bad?
    A None gradient is silent: the optimizer skips the variable (or fails later with "No
    gradients provided for any variable"), and the model does not learn. When the cause
    is out of static sight (a loss picked from a dictionary, a helper in compiled code, a
    value that leaves TensorFlow inside a library), only the run shows it.

    ## Example
    ```python
    def mse(pred, y):
        return tf.constant(np.mean((pred.numpy() - y) ** 2))  # leaves TensorFlow

    LOSSES = {"mse": mse}
    with tf.GradientTape() as tape:
        loss = LOSSES["mse"](tf.matmul(x, w), 1.0)
    grad = tape.gradient(loss, w)  # None at runtime
    ```

    ## Use instead
    Keep every step from the sources to the target in TensorFlow operations, inside the
    tape's block:
    ```python
    def mse(pred, y):
        return tf.reduce_mean((pred - y) ** 2)
    ```
    """

    code = "RT001"
    name = "none-gradient-at-runtime"
    summary = "A gradient call returned None at runtime for a reason static analysis could not see"
    severity = Severity.WARNING
    # Produced by the probe's merge (tapelsp.probe), not by `check`.
    runtime_only = True
    examples = (
        invalid("""
            import numpy as np
            import tensorflow as tf

            def mse(pred, y):
                return tf.constant(np.mean((pred.numpy() - y) ** 2))

            LOSSES = {"mse": mse}

            w = tf.Variable([[1.0], [2.0]])
            x = tf.constant([[1.0, 2.0]])
            with tf.GradientTape() as tape:
                loss = LOSSES["mse"](tf.matmul(x, w), 1.0)
            grad = tape.gradient(loss, w)
        """, 13, "the loss leaves TensorFlow in a helper picked from a dictionary",
            proof=Proof(check="assert grad is None")),
        valid("""
            import tensorflow as tf

            def mse(pred, y):
                return tf.reduce_mean((pred - y) ** 2)

            LOSSES = {"mse": mse}

            w = tf.Variable([[1.0], [2.0]])
            x = tf.constant([[1.0, 2.0]])
            with tf.GradientTape() as tape:
                loss = LOSSES["mse"](tf.matmul(x, w), 1.0)
            grad = tape.gradient(loss, w)
        """, "the same helper in TensorFlow operations", proof=Proof(check="assert grad is not None")),
    )

    def check(self, ctx: Context) -> None:
        """Runtime findings come from the probe; the static pass reports nothing."""
