from __future__ import annotations

import ast

from ...analysis.gradcalls import gradient_calls
from ...analysis.values import TFP_VARIABLE, values_for
from ...model import Severity
from ...versions import VersionRange
from ..base import Context, Proof, Rule, invalid, valid


class TfpObjectSource(Rule):
    """
    ## What it does
    Finds a `tfp.util.TransformedVariable` or `tfp.util.DeferredTensor` given to
    `tape.gradient` (or `jacobian`) as a source or as the target, alone or in a list.

    ## Why is this bad?
    These objects are neither tensors nor variables: they hold a variable and compute a
    tensor from it when used. TensorFlow refuses them outright, with
    `ValueError: Type TransformedVariable is not supported as a gradient source or gradient
    target.` (and the same for `DeferredTensor`).

    ## Example
    ```python
    scale = tfp.util.TransformedVariable(1.0, tfp.bijectors.Exp())
    with tf.GradientTape() as tape:
        loss = tf.square(scale - 2.0)
    grad = tape.gradient(loss, scale)   # ValueError
    ```

    ## Use instead
    ```python
    grads = tape.gradient(loss, scale.trainable_variables)   # the variable it holds
    ```
    """

    code = "TAPE022"
    name = "tfp-object-gradient-source"
    summary = "A TFP TransformedVariable or DeferredTensor given to tape.gradient as a source or target"
    severity = Severity.ERROR
    tensorflow = VersionRange(">=2.0")
    cheap_without_triggers = True
    triggers = ("TransformedVariable", "DeferredTensor")
    examples = (
        invalid("""
            import tensorflow as tf
            import tensorflow_probability as tfp

            scale = tfp.util.TransformedVariable(1.0, tfp.bijectors.Exp())
            with tf.GradientTape() as tape:
                loss = tf.square(scale - 2.0)
            grad = tape.gradient(loss, scale)
        """, 7, "a TransformedVariable as the source",
            proof=Proof(raises=("ValueError", "is not supported as a gradient source or gradient target"))),
        invalid("""
            import tensorflow as tf
            import tensorflow_probability as tfp

            log_rate = tf.Variable(0.0)
            rate = tfp.util.DeferredTensor(log_rate, tf.exp)
            bias = tf.Variable(0.5)
            with tf.GradientTape() as tape:
                loss = tf.square(rate * 3.0 + bias)
            grads = tape.gradient(loss, [rate, bias])
        """, 9, "a DeferredTensor in a list of sources",
            proof=Proof(raises=("ValueError", "is not supported as a gradient source or gradient target"))),
        valid("""
            import tensorflow as tf
            import tensorflow_probability as tfp

            scale = tfp.util.TransformedVariable(1.0, tfp.bijectors.Exp())
            with tf.GradientTape() as tape:
                loss = tf.square(scale - 2.0)
            grads = tape.gradient(loss, scale.trainable_variables)
        """, "the variable the TransformedVariable holds",
            proof=Proof(check="assert len(grads) == 1 and grads[0] is not None")),
    )

    def check(self, ctx: Context) -> None:
        values = values_for(ctx)
        for call in gradient_calls(ctx.facts):
            scope = call.site.scope
            for role, expr in (("source", call.sources), ("target", call.target)):
                if expr is None:
                    continue
                elements = expr.elts if isinstance(expr, (ast.List, ast.Tuple)) else [expr]
                for element in elements:
                    held = values.value(element, scope)
                    if not (held.is_(TFP_VARIABLE) and held.certain):
                        continue
                    made = held.origin if isinstance(held.origin, ast.Call) else None
                    kind = ast.unparse(made.func).rsplit(".", 1)[-1] if made is not None else "TFP object"
                    text = ast.unparse(element)
                    ctx.report(
                        element,
                        f"`{text}` is a TFP `{kind}`, given to `{call.label()}` as a {role}: it is not a tensor "
                        f"or a variable, and TensorFlow raises ValueError \"Type {kind} is not supported as a "
                        f"gradient source or gradient target.\" Differentiate with respect to the variables it "
                        f"holds (`{text}.trainable_variables`).",
                        related=[ctx.related(made, "made here")] if made is not None else [],
                    )
