from __future__ import annotations

import ast

from ..model import Severity
from ..versions import VersionRange
from ._tape_paths import NUMPY, cuts_of, gradient_phrase
from .base import Context, Proof, Rule, invalid, valid

# NumPy functions and their TensorFlow equivalents, for the message.
_TF_EQUIVALENTS = {
    "square": "tf.square", "mean": "tf.reduce_mean", "sum": "tf.reduce_sum", "exp": "tf.exp",
    "log": "tf.math.log", "abs": "tf.abs", "sqrt": "tf.sqrt", "maximum": "tf.maximum",
    "minimum": "tf.minimum", "clip": "tf.clip_by_value", "dot": "tf.tensordot", "matmul": "tf.matmul",
    "max": "tf.reduce_max", "min": "tf.reduce_min", "tanh": "tf.tanh", "concatenate": "tf.concat",
    "stack": "tf.stack", "reshape": "tf.reshape", "where": "tf.where", "power": "tf.pow",
    "std": "tf.math.reduce_std", "var": "tf.math.reduce_variance", "prod": "tf.reduce_prod",
    "sin": "tf.sin", "cos": "tf.cos", "log1p": "tf.math.log1p", "transpose": "tf.transpose",
    "expand_dims": "tf.expand_dims", "squeeze": "tf.squeeze", "einsum": "tf.einsum",
    "softmax": "tf.nn.softmax", "sign": "tf.sign", "negative": "tf.negative", "multiply": "tf.multiply",
}


class ValueLeavesTensorFlow(Rule):
    """
    ## What it does
    Finds a value that leaves TensorFlow inside a `tf.GradientTape` block on the way from
    the gradient's sources to its target: `.numpy()`, NumPy functions applied to tensors
    (`np.square(t)`, `np.asarray(t)`), `float()` / `int()` of a tensor, `.item()` /
    `.tolist()`, `keras.ops.convert_to_numpy`, or re-wrapping a tensor in `tf.Variable(t)`.
    It reports only when every route from a source to the target goes through such a
    conversion, so the gradient is certainly `None`.

    ## Why is this bad?
    The tape records TensorFlow operations only. A NumPy array or a Python float is a
    constant to it; whatever is computed from it is not connected to the variables, and
    `tape.gradient` silently returns `None` (Keras optimizers then fail with "No gradients
    provided for any variable"). A new `tf.Variable` built from a tensor starts a fresh
    value with no history. `.numpy()` for logging after the step, under
    `tape.stop_recording()`, or on values the target does not depend on is fine and is
    not reported; so is `tf.constant(t)` of an eager tensor, which keeps the gradient.

    ## Example
    ```python
    with tf.GradientTape() as tape:
        logits = model(x)
        loss = tf.reduce_mean(np.square(logits - y))  # a NumPy array
    grads = tape.gradient(loss, model.trainable_variables)  # [None, None]
    ```

    ## Use instead
    ```python
    with tf.GradientTape() as tape:
        logits = model(x)
        loss = tf.reduce_mean(tf.square(logits - y))
    grads = tape.gradient(loss, model.trainable_variables)
    print(loss.numpy())  # logging after the step is fine
    ```
    """

    code = "TAPE007"
    name = "value-leaves-tensorflow-in-tape"
    summary = "A value on the differentiable path leaves TensorFlow inside a GradientTape"
    severity = Severity.ERROR
    tensorflow = VersionRange(">=2.0")
    triggers = ("GradientTape",)
    examples = (
        invalid("""
            import numpy as np
            import tensorflow as tf

            w = tf.Variable([[1.0], [2.0]])
            x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
            y = tf.constant([[1.0], [0.0]])
            with tf.GradientTape() as tape:
                pred = tf.matmul(x, w)
                loss = tf.reduce_mean(np.square(pred - y))
            grads = tape.gradient(loss, [w])
        """, 9, "a NumPy function on a tensor",
            proof=Proof(check="assert grads == [None]")),
        invalid("""
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
            x = tf.ones((4, 3))
            with tf.GradientTape() as tape:
                out = model(x).numpy()
                loss = tf.reduce_mean(out ** 2)
            grads = tape.gradient(loss, model.trainable_variables)
        """, 6, "`.numpy()` on the model output",
            proof=Proof(check="assert all(g is None for g in grads)")),
        invalid("""
            import tensorflow as tf

            w = tf.Variable(3.0)
            with tf.GradientTape() as tape:
                scale = float(w * 2.0)
                loss = tf.constant(scale) * 4.0
            g = tape.gradient(loss, w)
        """, 5, "`float()` of a tensor",
            proof=Proof(check="assert g is None")),
        invalid("""
            import tensorflow as tf

            w = tf.Variable(2.0)
            with tf.GradientTape() as tape:
                h = tf.Variable(w * 3.0)
                loss = h * h
            g = tape.gradient(loss, w)
        """, 5, "re-wrapping a tensor in a new tf.Variable",
            proof=Proof(check="assert g is None")),
        invalid("""
            import numpy as np
            import tensorflow as tf

            def mse(pred, target):
                return np.mean((pred - target) ** 2)

            w = tf.Variable(2.0)
            with tf.GradientTape() as tape:
                loss = tf.convert_to_tensor(mse(w * 3.0, 1.0))
            g = tape.gradient(loss, w)
        """, 5, "inside a helper called in the tape",
            proof=Proof(check="assert g is None")),
        valid("""
            import tensorflow as tf

            w = tf.Variable(2.0)
            history = []
            with tf.GradientTape() as tape:
                loss = w * w
            g = tape.gradient(loss, w)
            history.append(loss.numpy())
        """, "`.numpy()` for logging after the step",
            proof=Proof(check="assert float(g) == 4.0 and history == [4.0]")),
        valid("""
            import tensorflow as tf

            w = tf.Variable(2.0)
            with tf.GradientTape() as tape:
                loss = w * w
                with tape.stop_recording():
                    logged = float(loss.numpy())
            g = tape.gradient(loss, w)
        """, "metrics under `tape.stop_recording()`",
            proof=Proof(check="assert float(g) == 4.0 and logged == 4.0")),
        valid("""
            import tensorflow as tf

            w = tf.Variable(2.0)
            with tf.GradientTape() as tape:
                h = w * 3.0
                loss = tf.constant(h) * 2.0
            g = tape.gradient(loss, w)
        """, "`tf.constant` of an eager tensor keeps the gradient on TF 2.21",
            proof=Proof(check="assert float(g) == 6.0")),
        valid("""
            import numpy as np
            import tensorflow as tf

            w = tf.Variable(2.0)
            x = tf.constant(3.0)
            with tf.GradientTape() as tape:
                pred = w * x
                weight = np.exp(-abs(pred.numpy()))
                loss = weight * pred
            g = tape.gradient(loss, w)
        """, "a NumPy-computed weight treated as a constant: the gradient still flows through `pred`",
            proof=Proof(check="assert g is not None")),
        valid("""
            import numpy as np
            import tensorflow as tf

            w = tf.Variable(2.0)
            labels = np.array([1.0, 0.0], dtype=np.float32)
            with tf.GradientTape() as tape:
                target = np.float32(labels.mean())
                loss = (w - target) ** 2
                accuracy = float(loss)
            g = tape.gradient(loss, w)
        """, "NumPy on data and `float()` off the path",
            proof=Proof(check="assert float(g) == 3.0")),
    )

    def check(self, ctx: Context) -> None:
        for result, found in cuts_of(ctx, NUMPY):
            value = found.value
            subject = f"`{ast.unparse(value)}`" if value is not None else "the value"
            if found.what.startswith("re-wrapping"):
                what = f"`tf.Variable({ast.unparse(value) if value is not None else '...'})` starts a new " \
                       "variable with no history while the tape is recording"
            elif found.what in ("`.item()`", "`.tolist()`"):
                what = (f"{found.what} of the tensor {subject} fails on TensorFlow tensors (AttributeError) unless "
                        "NumPy behaviour is enabled, and even then returns a Python value while the tape is "
                        "recording")
            else:
                what = f"{found.what} turns {subject} into a NumPy/Python value while the tape is recording"
            ctx.report(
                found.node,
                f"{what}: the tape cannot follow it, so {gradient_phrase(ctx, result)}. {_advice(found)}",
                related=[ctx.related(result.use.call, f"this {result.use.method} call gets "
                                                      f"{result.none_for()}")],
            )


def _advice(found) -> str:
    node = found.node
    if found.what.startswith("re-wrapping"):
        return "Use the tensor itself; create variables outside the tape and update them with `.assign`."
    if found.what in ("`.numpy()`", "`.item()`", "`.tolist()`"):
        return "Keep the value a tensor inside the tape; convert it for logging after the gradient call."
    if found.what.startswith("`float(") or found.what.startswith("`int(") or found.what.startswith("`bool("):
        return "Keep it a tensor (use `tf.cast` to change the dtype)."
    if isinstance(node, ast.Call):
        last = ast.unparse(node.func).rsplit(".", 1)[-1]
        if last in ("asarray", "array"):
            return "Pass the tensor itself (or `tf.convert_to_tensor`)."
        if last in _TF_EQUIVALENTS:
            return f"Use `{_TF_EQUIVALENTS[last]}` instead."
    return "Use the TensorFlow equivalent of this operation."
