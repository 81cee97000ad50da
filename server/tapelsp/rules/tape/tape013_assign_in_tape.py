from __future__ import annotations

import ast

from ...model import Severity
from ...versions import VersionRange
from ...analysis.paths import ASSIGN, cuts_of, gradient_phrase
from ..base import Context, Proof, Rule, invalid, shares_findings, valid


class AssignInTape(Rule):
    """
    ## What it does
    Finds a stateful `v.assign(...)` / `assign_add` / `assign_sub` inside a
    `tf.GradientTape` block whose value comes from the gradient's sources, when the
    target is then computed by reading the variable back and no other route connects it
    to the sources.

    ## Why is this bad?
    Assignments are not differentiable: the tape does not connect what a variable holds
    to what was written into it. Reading the variable afterwards gives a value that does
    not depend on the sources for the tape, so `tape.gradient` silently returns `None`.

    ## Example
    ```python
    acc = tf.Variable(0.0)
    with tf.GradientTape() as tape:
        acc.assign_add(x * w)
        loss = acc * 2.0
    g = tape.gradient(loss, w)  # None
    ```

    ## Use instead
    ```python
    with tf.GradientTape() as tape:
        total = acc + x * w
        loss = total * 2.0
    g = tape.gradient(loss, w)
    acc.assign(total)  # keep the state after the gradient
    ```
    """

    code = "TAPE013"
    name = "gradient-through-assign"
    summary = "The target reads a variable that was assigned from the sources inside the tape"
    severity = Severity.WARNING
    tensorflow = VersionRange(">=2.0")
    triggers = ("assign",)
    examples = (
        invalid("""
            import tensorflow as tf

            class ElmanCell(tf.Module):
                def __init__(self):
                    self.w_in = tf.Variable([[0.5, -0.5]])
                    self.w_out = tf.Variable([[1.0], [1.0]])
                    self.h = tf.Variable(tf.zeros((1, 2)), trainable=False)

                def step(self, x):
                    self.h.assign(tf.tanh(x @ self.w_in))
                    return self.h @ self.w_out

            cell = ElmanCell()
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(cell.step(tf.ones((1, 1))))
            g_in, g_out = tape.gradient(loss, [cell.w_in, cell.w_out])
        """, 10, "the state assigned inside a method, then read: the input weights get None",
            proof=Proof(check="assert g_in is None and g_out is not None")),
        invalid("""
            import tensorflow as tf

            w = tf.Variable(2.0)
            x = tf.constant(3.0)
            acc = tf.Variable(0.0)
            with tf.GradientTape() as tape:
                acc.assign_add(x * w)
                loss = acc * 2.0
            g = tape.gradient(loss, w)
        """, 7, "accumulating into a variable, then reading it",
            proof=Proof(check="assert g is None")),
        invalid("""
            import tensorflow as tf

            class Smoother(tf.Module):
                def __init__(self):
                    self.w = tf.Variable(1.5)
                    self.state = tf.Variable(0.0)

                def step(self, x):
                    with tf.GradientTape() as tape:
                        self.state.assign(0.9 * self.state + 0.1 * x * self.w)
                        loss = tf.square(self.state - 1.0)
                    return tape.gradient(loss, self.w)

            g = Smoother().step(tf.constant(2.0))
        """, 10, "state kept in an attribute",
            proof=Proof(check="assert g is None")),
        valid("""
            import tensorflow as tf

            w = tf.Variable(2.0)
            x = tf.constant(3.0)
            acc = tf.Variable(0.0)
            with tf.GradientTape() as tape:
                total = acc + x * w
                loss = total * 2.0
            g = tape.gradient(loss, w)
            acc.assign(total)
        """, "compute functionally inside the tape, assign afterwards",
            proof=Proof(check="assert float(g) == 6.0 and float(acc) == 6.0")),
        valid("""
            import tensorflow as tf

            w = tf.Variable(2.0)
            x = tf.constant(3.0)
            steps = tf.Variable(0.0)
            with tf.GradientTape() as tape:
                steps.assign_add(1.0)
                loss = x * w * w
            g = tape.gradient(loss, w)
        """, "a counter assigned in the tape that the loss does not read",
            proof=Proof(check="assert float(g) == 12.0")),
        valid("""
            import tensorflow as tf

            w = tf.Variable(2.0)
            x = tf.constant(3.0)
            acc = tf.Variable(0.0)
            with tf.GradientTape() as tape:
                acc.assign_add(x * w)
                loss = acc * 2.0 + w
            g = tape.gradient(loss, w)
        """, "another route to `w` remains (the assigned part still gets no gradient, silently)",
            proof=Proof(check="assert float(g) == 1.0")),
    )

    @shares_findings
    def check(self, ctx: Context) -> None:
        for result, found in cuts_of(ctx, ASSIGN):
            node = found.node
            receiver = ast.unparse(node.func.value) if isinstance(node, ast.Call) \
                and isinstance(node.func, ast.Attribute) else "the variable"
            ctx.report(
                node,
                f"{found.what} writes a value computed from `{result.root.label}` into `{receiver}` while the tape "
                f"records, and the target is read back from `{receiver}`: assignments are not differentiable, "
                f"so {gradient_phrase(ctx, result)}. Compute the value as a tensor inside the tape and "
                "assign it after the gradient call.",
                related=[ctx.related(result.use.call, f"this {result.use.method} call gets "
                                                      f"{result.none_for()}")],
            )
