from __future__ import annotations

import ast

from ...model import Applicability, Severity
from ...versions import Version, VersionRange
from ._fixes import unfixed
from ...analysis.paths import PREDICT, cuts_of, gradient_phrase
from ..base import Context, Proof, Rule, invalid, shares_findings, valid

_KERAS_3 = Version.parse("3")


class PredictInTape(Rule):
    """
    ## What it does
    Finds `model.predict(...)`, `model.predict_on_batch(...)` or `K.eval(...)` inside a
    `tf.GradientTape` block when the gradient's target is computed from its result and
    nothing else connects the target to the sources.

    ## Why is this bad?
    `predict` runs the model in its own loop (a separate tf.function) and returns a NumPy
    array; `K.eval` turns a tensor into one. The tape records nothing the target could be
    differentiated through, so `tape.gradient` silently returns `None` for every
    variable, and `optimizer.apply_gradients` then fails with "No gradients provided for
    any variable". Calling `model.predict` for targets outside the tape (for example
    the bootstrap value of a TD target) is fine and is not reported.

    ## Example
    ```python
    with tf.GradientTape() as tape:
        pred = model.predict(x)
        loss = tf.reduce_mean((pred - y) ** 2)
    grads = tape.gradient(loss, model.trainable_variables)  # all None
    ```

    ## Use instead
    ```python
    with tf.GradientTape() as tape:
        pred = model(x, training=True)
        loss = tf.reduce_mean((pred - y) ** 2)
    grads = tape.gradient(loss, model.trainable_variables)
    ```
    """

    code = "TAPE008"
    name = "predict-inside-tape"
    summary = "model.predict / predict_on_batch / K.eval on the differentiable path inside a GradientTape"
    severity = Severity.ERROR
    tensorflow = VersionRange(">=2.0")
    cheap_without_triggers = True
    triggers = ("predict", "eval(")
    fixable = True
    examples = (
        valid("""
            import tensorflow as tf

            class Linear:
                def __init__(self):
                    self.w = tf.Variable([[2.0]])

                def predict(self, x):
                    return x @ self.w

            model = Linear()
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(model.predict(tf.ones((3, 1))))
            g = tape.gradient(loss, model.w)
        """, "`predict` of a class that is not a Keras model: a method like any other",
            proof=Proof(check="assert g.numpy().tolist() == [[3.0]]")),
        invalid("""
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.SGD(0.1)
            x = tf.ones((4, 3))
            y = tf.zeros((4, 1))
            with tf.GradientTape() as tape:
                pred = model.predict(x, verbose=0)
                loss = tf.reduce_mean((pred - y) ** 2)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
        """, 8, "predict inside the tape, then apply_gradients; the fix calls the model in inference mode "
                "(unsafe: training=True may be what the step wants)",
            proof=Proof(raises=("ValueError", "No gradients provided for any variable")),
            fixed="""
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.SGD(0.1)
            x = tf.ones((4, 3))
            y = tf.zeros((4, 1))
            with tf.GradientTape() as tape:
                pred = model(x, training=False)
                loss = tf.reduce_mean((pred - y) ** 2)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
        """, fixed_proof=Proof(check="""
            import numpy as np
            assert all(g is not None for g in grads)
            kernel, bias = model.trainable_variables
            # d/db mean((x @ k + b)^2) = 2 * mean(pred), computed before the step
            assert np.allclose(grads[1].numpy(), 2 * np.mean(pred.numpy()), atol=1e-5)
        """)),
        invalid("""
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
            x = tf.ones((4, 3))

            def train_step(x):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model.predict_on_batch(x))
                return tape.gradient(loss, model.trainable_variables)

            grads = train_step(x)
        """, 8, "predict_on_batch in a training step",
            proof=Proof(check="assert all(g is None for g in grads)"),
            fixed="""
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
            x = tf.ones((4, 3))

            def train_step(x):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model(x, training=False))
                return tape.gradient(loss, model.trainable_variables)

            grads = train_step(x)
        """, fixed_proof=Proof(check="""
            assert grads[0].numpy().tolist() == [[1.0], [1.0], [1.0]] and grads[1].numpy().tolist() == [1.0]
        """)),
        invalid("""
            import tensorflow as tf
            import tf_keras
            from tf_keras import backend as K

            model = tf_keras.Sequential([tf_keras.layers.Dense(1, input_shape=(3,))])
            x = tf.ones((4, 3))
            with tf.GradientTape() as tape:
                out = K.eval(model(x))
                loss = tf.reduce_mean(out)
            grads = tape.gradient(loss, model.trainable_variables)
        """, 8, "K.eval of the model output (tf_keras): the fix uses the tensor itself (unsafe)",
            proof=Proof(check="assert all(g is None for g in grads)"),
            fixed="""
            import tensorflow as tf
            import tf_keras
            from tf_keras import backend as K

            model = tf_keras.Sequential([tf_keras.layers.Dense(1, input_shape=(3,))])
            x = tf.ones((4, 3))
            with tf.GradientTape() as tape:
                out = model(x)
                loss = tf.reduce_mean(out)
            grads = tape.gradient(loss, model.trainable_variables)
        """, fixed_proof=Proof(check="""
            assert grads[0].numpy().tolist() == [[1.0], [1.0], [1.0]] and grads[1].numpy().tolist() == [1.0]
        """)),
        unfixed(invalid("""
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
            x = tf.ones((4, 3))
            with tf.GradientTape() as tape:
                pred = model.predict(x, batch_size=2, verbose=0)
                loss = tf.reduce_mean(pred)
            grads = tape.gradient(loss, model.trainable_variables)
        """, 6, "predict with more than the input (batch_size=): no fix, the arguments do not carry over",
            proof=Proof(check="assert all(g is None for g in grads)"))),
        valid("""
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
            target_model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
            x = tf.ones((4, 3))
            rewards = tf.ones((4, 1))
            next_q = target_model.predict(x, verbose=0)
            targets = rewards + 0.9 * next_q
            with tf.GradientTape() as tape:
                q = model(x, training=True)
                loss = tf.reduce_mean((q - targets) ** 2)
            grads = tape.gradient(loss, model.trainable_variables)
        """, "targets computed with model.predict outside the tape",
            proof=Proof(check="assert all(g is not None for g in grads)")),
        valid("""
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
            x = tf.ones((4, 3))
            with tf.GradientTape() as tape:
                pred = model(x, training=True)
                bootstrap = model.predict(x, verbose=0)
                loss = tf.reduce_mean((pred - bootstrap - 1.0) ** 2)
            grads = tape.gradient(loss, model.trainable_variables)
        """, "predict used for a constant part of the target: the gradient flows through `model(x)`",
            proof=Proof(check="assert all(g is not None for g in grads)")),
        invalid("""
            import numpy as np
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3, activation="relu")])
            image = tf.convert_to_tensor(np.random.random((1, 4)).astype("float32"))
            with tf.GradientTape() as tape:
                tape.watch(image)
                activations = model.predict(image, verbose=0)
                score = tf.reduce_mean(activations[:, 0])
            grads = tape.gradient(tf.convert_to_tensor(score), image)
        """, 8, "the target handed to the gradient call through `tf.convert_to_tensor`: the score is "
                "computed from predict's NumPy array, and predict is where the tape lost it",
            proof=Proof(check="assert grads is None"),
            fixed="""
            import numpy as np
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3, activation="relu")])
            image = tf.convert_to_tensor(np.random.random((1, 4)).astype("float32"))
            with tf.GradientTape() as tape:
                tape.watch(image)
                activations = model(image, training=False)
                score = tf.reduce_mean(activations[:, 0])
            grads = tape.gradient(tf.convert_to_tensor(score), image)
        """, fixed_proof=Proof(check="assert grads is not None")),
    )

    @shares_findings
    def check(self, ctx: Context) -> None:
        keras3 = ctx.targets.keras is None or ctx.targets.keras >= _KERAS_3
        for result, found in cuts_of(ctx, PREDICT):
            node = found.node
            if isinstance(node, ast.Call) and not isinstance(node.func, ast.Attribute) or \
                    isinstance(node, ast.Call) and ctx.facts.imports.resolve(node.func) == "keras.backend.eval":
                raw = ctx.facts.imports.raw(node.func) or ""
                note = ""
                if keras3 and not raw.startswith("tf_keras"):
                    note = " (Keras 3 has no `backend.eval` at all: there this line raises AttributeError)"
                message = (f"{found.what} turns the tensor into a NumPy array inside the tape{note}: "
                           f"{gradient_phrase(ctx, result, found)}, and `apply_gradients` then fails with "
                           "\"No gradients provided for any variable\". Use the tensor itself.")
            else:
                receiver = ast.unparse(node.func.value) if isinstance(node, ast.Call) \
                    and isinstance(node.func, ast.Attribute) else "model"
                message = (f"{found.what} runs the model outside the tape and returns a NumPy array: "
                           f"{gradient_phrase(ctx, result, found)}, and `apply_gradients` then fails with "
                           "\"No gradients provided for any variable\". Call the model directly: "
                           f"`{receiver}(x, training=True)`.")
            ctx.report(node, message,
                       related=[ctx.related(result.use.call, f"this {result.use.method} call gets "
                                                             f"{result.none_for()}")],
                       fix=_offer(ctx, node) if found.remote is None else None)


def _offer(ctx: Context, node: ast.AST):
    """`model.predict(x)` -> `model(x, training=False)`; `K.eval(t)` -> `t`. Both unsafe: the
    value becomes a tensor (NumPy-only uses of it break), and the step may want training=True."""
    if not ctx.fixes:
        return None  # the offer is worked out only when fixes are wanted
    if not isinstance(node, ast.Call) or any(isinstance(a, ast.Starred) for a in node.args) \
            or any(k.arg is None for k in node.keywords):
        return None
    text = ctx.facts.source.text
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in ("predict", "predict_on_batch"):
        keywords = {k.arg: k.value for k in node.keywords}
        model_input = node.args[0] if len(node.args) == 1 and "x" not in keywords else \
            keywords.pop("x", None) if not node.args else None
        keywords.pop("verbose", None)  # only a progress bar
        if model_input is None or keywords or len(node.args) > 1:
            return None
        model = ast.unparse(func.value)

        def build_call():
            from ...fixes.predict import model_call_fix

            return model_call_fix(text, node, model_input,  # type: ignore[arg-type]
                                  f"Call the model on the tape: `{model}(..., training=False)`", Applicability.UNSAFE)
        return build_call
    if ctx.facts.imports.resolve(func) == "keras.backend.eval" and len(node.args) == 1 and not node.keywords:
        inner = node.args[0]

        def build_unwrap():
            from ...fixes.blocks import replace_by_part

            return replace_by_part(text, node, inner, "Use the tensor itself", Applicability.UNSAFE)  # type: ignore[arg-type]
        return build_unwrap
    return None
