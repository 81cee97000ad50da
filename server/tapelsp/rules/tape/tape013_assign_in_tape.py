from __future__ import annotations

import ast

from ...model import Severity
from ...versions import VersionRange
from ...analysis.paths import ASSIGN, cuts_of, gradient_phrase, lost_term, optimizer_step
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
    cheap_without_triggers = True
    triggers = ("assign", "apply_gradients", "minimize", ".apply(", "set_weights")
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
        invalid("""
            import tensorflow as tf

            w = tf.Variable(2.0)
            x = tf.constant(3.0)
            acc = tf.Variable(0.0)
            with tf.GradientTape() as tape:
                acc.assign_add(x * w)
                loss = acc * 2.0 + w
            g = tape.gradient(loss, w)
        """, 7, "another route to `w` remains, and the assigned part is silently lost: 1.0, not 2 * 3 + 1",
            proof=Proof(check="assert float(g) == 1.0")),
        invalid("""
            import tensorflow as tf

            class TiedAutoencoder(tf.Module):
                def __init__(self):
                    self.encoder = tf.Variable([[0.5], [-1.0]])
                    self.decoder = tf.Variable(tf.zeros((1, 2)), trainable=False)

                def __call__(self, x):
                    self.decoder.assign(tf.transpose(self.encoder))
                    return (x @ self.encoder) @ self.decoder

            ae = TiedAutoencoder()
            x = tf.constant([[1.0, 2.0]])
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(ae(x))
            g = tape.gradient(loss, ae.encoder)
            with tf.GradientTape() as tape:
                tied = tf.reduce_sum((x @ ae.encoder) @ tf.transpose(ae.encoder))
            g_tied = tape.gradient(tied, ae.encoder)
        """, 9, "tied weights copied by assign: the decoder's share of the gradient is lost (a factor, not a term)",
            proof=Proof(check="assert float(tf.reduce_max(tf.abs(g - g_tied))) > 0.1")),
        invalid("""
            import tensorflow as tf

            w = tf.Variable(1.0)
            log_lr = tf.Variable(-1.0)
            opt = tf.keras.optimizers.SGD(learning_rate=lambda: tf.exp(log_lr))
            with tf.GradientTape() as outer:
                with tf.GradientTape() as inner:
                    train = (w - 3.0) ** 2
                grads = inner.gradient(train, [w])
                opt.apply_gradients(zip(grads, [w]))
                val = (w - 2.0) ** 2
            meta = outer.gradient(val, log_lr)
        """, 10, "a meta-gradient through an optimizer step: the learning rate is used by an assignment",
            proof=Proof(check="assert meta is None")),
        valid("""
            import tensorflow as tf

            w = tf.Variable(1.0)
            log_lr = tf.Variable(-1.0)
            with tf.GradientTape() as outer:
                with tf.GradientTape() as inner:
                    train = (w - 3.0) ** 2
                grads = inner.gradient(train, [w])
                w_new = w - tf.exp(log_lr) * grads[0]
                val = (w_new - 2.0) ** 2
            meta = outer.gradient(val, log_lr)
        """, "the step written as a tensor expression: the meta-gradient exists",
            proof=Proof(check="assert meta is not None")),
        invalid("""
            import tensorflow as tf

            def clone(net):
                twin = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
                twin.set_weights(net.get_weights())
                return twin

            model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
            x = tf.ones((4, 2))
            with tf.GradientTape() as tape:
                adapted = clone(model)
                loss = tf.reduce_sum(adapted(x))
            grads = tape.gradient(loss, model.trainable_variables)
        """, 5, "a copy made with set_weights for a MAML-style step: the original's variables get None",
            proof=Proof(check="assert all(g is None for g in grads)")),
        valid("""
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
            copy = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
            x = tf.ones((4, 2))
            copy.set_weights(model.get_weights())
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(copy(x))
            grads = tape.gradient(loss, copy.trainable_variables)
        """, "the copy trained for its own variables",
            proof=Proof(check="assert all(g is not None for g in grads)")),
        invalid("""
            import tensorflow as tf


            def pairwise_spread(batch):
                n = batch.shape[0]
                spread = tf.Variable(tf.zeros([n, n]))
                for i in range(n):
                    for j in range(n):
                        spread[i, j].assign(tf.abs(batch[i] - batch[j]))
                return tf.reduce_mean(spread)


            batch = tf.constant([1.0, 2.0, 4.0])
            with tf.GradientTape() as tape:
                tape.watch(batch)
                loss = pairwise_spread(batch)
            grad = tape.gradient(loss, batch)
        """, 9, "an assign to a slice of a variable (`spread[i, j].assign(...)`) in a helper the tape runs",
            proof=Proof(check="assert grad is None")),
        valid("""
            import tensorflow as tf


            def pairwise_spread(batch):
                spread = tf.abs(batch[:, None] - batch[None, :])
                return tf.reduce_mean(spread)


            batch = tf.constant([1.0, 2.0, 4.0])
            with tf.GradientTape() as tape:
                tape.watch(batch)
                loss = pairwise_spread(batch)
            grad = tape.gradient(loss, batch)
        """, "the same spread computed with tensor ops: differentiable",
            proof=Proof(check="assert grad is not None")),
    )

    @shares_findings
    def check(self, ctx: Context) -> None:
        for result, found in cuts_of(ctx, ASSIGN):
            node = found.node
            receiver = ast.unparse(node.func.value) if isinstance(node, ast.Call) \
                and isinstance(node.func, ast.Attribute) else "the variable"
            written = optimizer_step(node)
            if written is not None:
                self._report_step(ctx, result, found, written)
                continue
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "set_weights":
                self._report_copy(ctx, result, found, receiver)
                continue
            if lost_term(result, found):
                effect = (f"what the target reads from `{receiver}` is a constant for the tape, so "
                          f"{result.use.describe()} on {ctx.where(result.use.call)} misses every contribution "
                          f"through `{receiver}` (the gradient comes from the target's other uses of "
                          f"`{result.root.label}` only)")
                gets = "a gradient without the part through the assignment"
            else:
                effect = f"so {gradient_phrase(ctx, result)}"
                gets = result.none_for()
            ctx.report(
                node,
                f"{found.what} writes a value computed from `{result.root.label}` into `{receiver}` while the tape "
                f"records, and the target is read back from `{receiver}`: assignments are not differentiable, "
                f"{effect}. Compute the value as a tensor inside the tape and assign it after the gradient call.",
                related=[ctx.related(result.use.call, f"this {result.use.method} call gets {gets}")],
            )

    def _report_step(self, ctx: Context, result, found, written: str) -> None:
        effect = (f"{result.use.describe()} on {ctx.where(result.use.call)} misses every contribution through "
                  f"the step" if lost_term(result, found) else gradient_phrase(ctx, result))
        ctx.report(
            found.node,
            f"{found.what} updates `{written}` by assignment while the tape records, and the target is computed "
            f"from `{written}` afterwards: an optimizer step is not differentiable, so what the step used that "
            f"comes from `{result.root.label}` (its gradients, its learning rate) does not reach the target and "
            f"{effect}. To differentiate through an update, write it as a tensor expression "
            "(`w_new = w - lr * g`) and compute the target from that.",
            related=[ctx.related(result.use.call, f"this {result.use.method} call gets {result.none_for()}")],
        )

    def _report_copy(self, ctx: Context, result, found, receiver: str) -> None:
        effect = (f"{result.use.describe()} on {ctx.where(result.use.call)} misses every contribution through "
                  f"`{receiver}`" if lost_term(result, found) else gradient_phrase(ctx, result))
        ctx.report(
            found.node,
            f"{found.what} copies weights as NumPy arrays and assigns them to `{receiver}` while the tape "
            f"records, and the target is computed with `{receiver}`: the copy's variables are not connected to "
            f"`{result.root.label}`, so {effect}. To differentiate through a copy, compute its weights as "
            "tensors from the original's (for example `w - lr * g`) and run the forward pass with those tensors.",
            related=[ctx.related(result.use.call, f"this {result.use.method} call gets {result.none_for()}")],
        )
