from __future__ import annotations

import ast

from ...facts.dataflow import inside
from ...model import Applicability, Severity
from ...versions import VersionRange
from ._fixes import unfixed
from ...analysis.modules import label
from ...analysis.paths import NUMPY, Cut, cuts_from_importers, cuts_of, gradient_phrase, lost_term, node_at
from ..base import Context, Proof, Rule, invalid, shares_findings, valid

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
    # `numpy`, `.item(`, `.tolist(`: a cut in a function another module differentiates through
    # (analysis/paths.IMPORTED_CUT_WORDS) is reported here too, in a file without a tape.
    triggers = ("GradientTape", "numpy", ".item(", ".tolist(",
                # functions TFP differentiates (analysis/differentiated.py)
                "HamiltonianMonteCarlo", "NoUTurnSampler", "MetropolisAdjustedLangevinAlgorithm", "value_and_gradient")
    fixable = True
    examples = (
        valid("""
            import tensorflow as tf

            critic = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
            s, s_next = tf.ones((4, 2)), tf.zeros((4, 2))
            with tf.GradientTape() as tape:
                target = 1.0 + 0.9 * critic(s_next).numpy()
                loss = tf.reduce_mean((target - critic(s)) ** 2)
            grads = tape.gradient(loss, critic.trainable_variables)
        """, "a bootstrapped target made a NumPy constant on purpose: it is not a summand of the loss",
            proof=Proof(check="assert all(g is not None for g in grads)")),
        unfixed(invalid("""
            import tensorflow as tf

            class SparseLinear(tf.Module):
                def __init__(self):
                    self.w = tf.Variable([[0.5], [-1.0]])

                def __call__(self, x):
                    return x @ self.w

                def l1(self):
                    return tf.reduce_sum(tf.abs(self.w)).numpy().item()

            def grads(model, x, lam):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model(x) ** 2) + lam * model.l1()
                return tape.gradient(loss, model.w)

            model = SparseLinear()
            x = tf.ones((4, 2))
            with_penalty, without = grads(model, x, 1.0), grads(model, x, 0.0)
        """, 11, "a penalty term made a Python number: the gradient exists but ignores the term (no fix: "
                 "removing `.numpy()` leaves `.item()` on a tensor)",
            proof=Proof(check="assert with_penalty.numpy().tolist() == without.numpy().tolist()"))),
        invalid("""
            import numpy as np
            import tensorflow as tf

            class AttentionPool(tf.keras.layers.Layer):
                def build(self, input_shape):
                    self.query = self.add_weight(shape=(input_shape[-1],), initializer="ones")

                def call(self, tokens):
                    scores = tf.einsum("btd,d->bt", tokens, self.query)
                    weights = np.exp(scores) / np.sum(np.exp(scores), axis=1, keepdims=True)
                    return tf.einsum("bt,btd->bd", tf.convert_to_tensor(weights, tf.float32), tokens)

            pool = AttentionPool()
            tokens = tf.ones((2, 3, 4))
            pool(tokens)
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(pool(tokens) ** 2)
            g = tape.gradient(loss, pool.query)
        """, 10, "NumPy inside a custom layer's call, reached through `pool(tokens)`: every NumPy call of "
                 "the line is converted",
            proof=Proof(check="assert g is None"),
            fixed="""
            import numpy as np
            import tensorflow as tf

            class AttentionPool(tf.keras.layers.Layer):
                def build(self, input_shape):
                    self.query = self.add_weight(shape=(input_shape[-1],), initializer="ones")

                def call(self, tokens):
                    scores = tf.einsum("btd,d->bt", tokens, self.query)
                    weights = tf.exp(scores) / tf.reduce_sum(tf.exp(scores), axis=1, keepdims=True)
                    return tf.einsum("bt,btd->bd", tf.convert_to_tensor(weights, tf.float32), tokens)

            pool = AttentionPool()
            tokens = tf.ones((2, 3, 4))
            pool(tokens)
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(pool(tokens) ** 2)
            g = tape.gradient(loss, pool.query)
        """, fixed_proof=Proof(check="assert g is not None")),
        valid("""
            import tensorflow as tf

            w = tf.Variable([1.0, 2.0])
            with tf.GradientTape() as tape:
                pred = w * 3.0
                weight = float(tf.reduce_mean(pred).numpy())
                loss = weight * tf.reduce_sum(pred ** 2)
            g = tape.gradient(loss, w)
        """, "a NumPy-computed weight multiplying a live term: detached on purpose, the gradient flows through the term",
            proof=Proof(check="assert g is not None")),
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
            proof=Proof(check="assert grads == [None]"),
            fixed="""
            import numpy as np
            import tensorflow as tf

            w = tf.Variable([[1.0], [2.0]])
            x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
            y = tf.constant([[1.0], [0.0]])
            with tf.GradientTape() as tape:
                pred = tf.matmul(x, w)
                loss = tf.reduce_mean(tf.square(pred - y))
            grads = tape.gradient(loss, [w])
        """, fixed_proof=Proof(check="""
            # pred - y = [[4], [11]]; d/dw mean(r^2) = x^T r = [[1*4 + 3*11], [2*4 + 4*11]]
            assert grads[0].numpy().tolist() == [[37.0], [52.0]]
        """)),
        invalid("""
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
            x = tf.ones((4, 3))
            with tf.GradientTape() as tape:
                out = model(x).numpy()
                loss = tf.reduce_mean(out ** 2)
            grads = tape.gradient(loss, model.trainable_variables)
        """, 6, "`.numpy()` on the model output: removed (unsafe: later NumPy-only uses of the value break)",
            proof=Proof(check="assert all(g is None for g in grads)"),
            fixed="""
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
            x = tf.ones((4, 3))
            with tf.GradientTape() as tape:
                out = model(x)
                loss = tf.reduce_mean(out ** 2)
            grads = tape.gradient(loss, model.trainable_variables)
        """, fixed_proof=Proof(check="""
            import numpy as np
            assert all(g is not None for g in grads)
            assert np.allclose(grads[1].numpy(), 2 * np.mean(out.numpy()), atol=1e-5)
        """)),
        unfixed(invalid("""
            import tensorflow as tf

            w = tf.Variable(3.0)
            with tf.GradientTape() as tape:
                scale = float(w * 2.0)
                loss = tf.constant(scale) * 4.0
            g = tape.gradient(loss, w)
        """, 5, "`float()` of a tensor: no fix (what the Python number is used for decides)",
            proof=Proof(check="assert g is None"))),
        unfixed(invalid("""
            import tensorflow as tf

            w = tf.Variable(2.0)
            with tf.GradientTape() as tape:
                h = tf.Variable(w * 3.0)
                loss = h * h
            g = tape.gradient(loss, w)
        """, 5, "re-wrapping a tensor in a new tf.Variable: no fix",
            proof=Proof(check="assert g is None"))),
        unfixed(invalid("""
            import tensorflow as tf
            import tensorflow_probability as tfp

            raw_scale = tf.Variable(0.5)
            with tf.GradientTape() as tape:
                scale = tfp.util.TransformedVariable(raw_scale, tfp.bijectors.Exp())
                dist = tfp.distributions.Normal(loc=0.0, scale=scale)
                nll = -dist.log_prob(1.0)
            g = tape.gradient(nll, raw_scale)
        """, 6, "a TFP TransformedVariable started from a variable inside the tape: no fix",
            proof=Proof(check="assert g is None"))),
        valid("""
            import tensorflow as tf
            import tensorflow_probability as tfp

            raw_scale = tf.Variable(0.5)
            with tf.GradientTape() as tape:
                scale = tfp.util.DeferredTensor(raw_scale, tf.exp)
                dist = tfp.distributions.Normal(loc=0.0, scale=scale)
                nll = -dist.log_prob(1.0)
            g = tape.gradient(nll, raw_scale)
        """, "tfp.util.DeferredTensor transforms the variable itself when it is read",
            proof=Proof(check="assert g is not None")),
        invalid("""
            import numpy as np
            import tensorflow as tf

            def mse(pred, target):
                return np.mean((pred - target) ** 2)

            w = tf.Variable(2.0)
            with tf.GradientTape() as tape:
                loss = tf.convert_to_tensor(mse(w * 3.0, 1.0))
            g = tape.gradient(loss, w)
        """, 5, "inside a helper called in the tape: unsafe, other callers may pass NumPy arrays and get a tensor",
            proof=Proof(check="assert g is None"),
            fixed="""
            import numpy as np
            import tensorflow as tf

            def mse(pred, target):
                return tf.reduce_mean((pred - target) ** 2)

            w = tf.Variable(2.0)
            with tf.GradientTape() as tape:
                loss = tf.convert_to_tensor(mse(w * 3.0, 1.0))
            g = tape.gradient(loss, w)
        """, fixed_proof=Proof(check="assert float(g) == 30.0")),
        invalid("""
            from tensorflow import GradientTape, Variable, convert_to_tensor
            import numpy

            w = Variable([1.0, -2.0])
            with GradientTape() as tape:
                loss = convert_to_tensor(numpy.sum(numpy.abs(w), axis=0))
            g = tape.gradient(loss, w)
        """, 6, "no `import tensorflow`: one is added; the NumPy call around the cut one goes in the same fix",
            proof=Proof(check="assert g is None"),
            fixed="""
            from tensorflow import GradientTape, Variable, convert_to_tensor
            import numpy
            import tensorflow as tf

            w = Variable([1.0, -2.0])
            with GradientTape() as tape:
                loss = convert_to_tensor(tf.reduce_sum(tf.abs(w), axis=0))
            g = tape.gradient(loss, w)
        """, fixed_proof=Proof(check="assert g.numpy().tolist() == [1.0, -1.0]")),
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
        invalid("""
            import tensorflow as tf

            head = tf.keras.layers.Dense(1)
            steps = tf.range(4, dtype=tf.float32)
            with tf.GradientTape() as tape:
                tape.watch(steps)
                forecast = head(steps[:, None]).numpy()
            dfdt = tape.gradient(forecast, steps)
        """, 7, "the target itself made a NumPy array: `tape.gradient` raises before looking at any path",
            proof=Proof(raises=("AttributeError", "object has no attribute '_id'")),
            fixed="""
            import tensorflow as tf

            head = tf.keras.layers.Dense(1)
            steps = tf.range(4, dtype=tf.float32)
            with tf.GradientTape() as tape:
                tape.watch(steps)
                forecast = head(steps[:, None])
            dfdt = tape.gradient(forecast, steps)
        """, fixed_proof=Proof(check="assert dfdt is not None and dfdt.shape == (4,)")),
        unfixed(invalid("""
            import numpy as np
            import tensorflow as tf

            policy = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
            value = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
            obs = tf.ones((4, 3))
            with tf.GradientTape(persistent=True) as tape:
                pg_loss = -np.mean(tf.nn.log_softmax(policy(obs))[:, 0])
                v_loss = tf.reduce_mean(value(obs) ** 2)
            for name, loss, net in (("policy", pg_loss, policy), ("value", v_loss, value)):
                grads = tape.gradient(loss, net.trainable_variables)
        """, 8, "a NumPy scalar among the targets a loop over a literal tuple gives the gradient call (no fix: "
                "the tuple reads the value too, where NumPy may be meant)",
            proof=Proof(raises=("AttributeError", "object has no attribute '_id'")))),
        unfixed(invalid("""
            import numpy as np
            import tensorflow as tf

            inp = tf.keras.Input((4,))
            net = tf.keras.Model(inp, [tf.keras.layers.Dense(2)(inp), tf.keras.layers.Dense(1)(inp)])
            s, a, returns = tf.ones((8, 4)), tf.zeros(8, tf.int32), tf.ones(8)
            with tf.GradientTape() as tape:
                logits, values = net(s)
                values = np.asarray(tf.squeeze(values, 1))
                adv = returns - values
                logp = tf.reduce_sum(tf.nn.log_softmax(logits) * tf.one_hot(a, 2), axis=1)
                actor_loss = -tf.reduce_mean(logp * tf.stop_gradient(adv))
                critic_loss = 0.5 * tf.reduce_mean(adv ** 2)
                total = actor_loss + critic_loss
            grads = tape.gradient(total, net.trainable_variables)
        """, 9, "the critic's term made constant: the actor's term reads the same NumPy value (no fix: "
                "`np.asarray` has no TensorFlow twin taking the same arguments)",
            proof=Proof(check="assert sum(g is None for g in grads) == 2 and grads[0] is not None"))),
        valid("""
            import numpy as np
            import tensorflow as tf

            w = tf.Variable([1.0, 2.0])
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(w ** 2)
                logged = np.asarray(loss)
            g = tape.gradient(loss, w)
        """, "a NumPy copy of the loss for logging, the tensor itself differentiated",
            proof=Proof(check="assert g.numpy().tolist() == [2.0, 4.0] and float(logged) == 5.0")),
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
        invalid("""
            import numpy as np
            import tensorflow as tf
            import tensorflow_probability as tfp

            precision = np.array([[2.0, -0.8], [-0.8, 1.0]])


            def target_log_prob(state):
                theta = state.numpy()
                return tf.constant(-0.5 * theta @ precision @ theta, tf.float32)


            kernel = tfp.mcmc.HamiltonianMonteCarlo(target_log_prob, step_size=0.1, num_leapfrog_steps=2)
            samples = tfp.mcmc.sample_chain(num_results=2, current_state=tf.zeros([2]), kernel=kernel,
                                            trace_fn=None, seed=(0, 1))
        """, 9, "an MCMC target density that reads its state through NumPy: HMC differentiates it",
            proof=Proof(raises=("ValueError", "Encountered `None` gradient.")),
            fixed="""
            import numpy as np
            import tensorflow as tf
            import tensorflow_probability as tfp

            precision = np.array([[2.0, -0.8], [-0.8, 1.0]])


            def target_log_prob(state):
                theta = state.numpy()
                return tf.constant(-0.5 * theta @ precision @ theta, tf.float32)


            kernel = tfp.mcmc.HamiltonianMonteCarlo(target_log_prob, step_size=0.1, num_leapfrog_steps=2)
            samples = tfp.mcmc.sample_chain(num_results=2, current_state=tf.zeros([2]), kernel=kernel,
                                            trace_fn=None, seed=(0, 1))
        """),
        valid("""
            import numpy as np
            import tensorflow as tf
            import tensorflow_probability as tfp

            precision = tf.constant([[2.0, -0.8], [-0.8, 1.0]])


            def target_log_prob(state):
                return -0.5 * tf.tensordot(state, tf.linalg.matvec(precision, state), 1)


            kernel = tfp.mcmc.HamiltonianMonteCarlo(target_log_prob, step_size=0.1, num_leapfrog_steps=2)
            samples = tfp.mcmc.sample_chain(num_results=2, current_state=tf.zeros([2]), kernel=kernel,
                                            trace_fn=None, seed=(0, 1))
        """, "the density in TensorFlow ops",
            proof=Proof(check="assert samples.shape == (2, 2)")),
    )

    @shares_findings
    def check(self, ctx: Context) -> None:
        # A target that is itself a NumPy value or a Python number: the gradient call raises
        # (or, for `jacobian` of an array, returns None) whatever the path from the sources.
        crashed = _report_numpy_targets(ctx)
        # One finding per line (`np.exp(s) / np.sum(np.exp(s))` is one mistake), whose fix
        # converts every NumPy call of the line that cuts the path.
        by_line: dict[int, list] = {}
        for result, found in cuts_of(ctx, NUMPY):
            line = getattr(found.node, "lineno", 0)
            if line not in crashed:
                by_line.setdefault(line, []).append((result, found))
        for pairs in by_line.values():
            result, found = pairs[0]
            others = [cut for _result, cut in pairs[1:]]
            value = found.value
            subject = f"`{ast.unparse(value)}`" if value is not None else "the value"
            if found.what.startswith("re-wrapping"):
                maker = ast.unparse(found.node.func) if isinstance(found.node, ast.Call) else "tf.Variable"
                what = f"`{maker}({ast.unparse(value) if value is not None else '...'}, ...)` starts a new " \
                       "variable with no history while the tape is recording" if isinstance(found.node, ast.Call) \
                    and len(found.node.args) + len(found.node.keywords) > 1 else \
                    f"`{maker}({ast.unparse(value) if value is not None else '...'})` starts a new " \
                    "variable with no history while the tape is recording"
            elif found.what in ("`.item()`", "`.tolist()`"):
                what = (f"{found.what} of the tensor {subject} fails on TensorFlow tensors (AttributeError) unless "
                        "NumPy behaviour is enabled, and even then returns a Python value while the tape is "
                        "recording")
            else:
                what = f"{found.what} turns {subject} into a NumPy/Python value while the tape is recording"
            ctx.report(
                found.node,
                f"{what}: the tape cannot follow it, so {gradient_phrase(ctx, result, found)}. {_advice(found)}",
                related=[ctx.related(result.use.call, f"this {result.use.method} call misses that term's gradient"
                                      if lost_term(result, found) else
                                      f"this {result.use.method} call gets {result.none_for()}")],
                fix=_offer(ctx, found, others) if found.remote is None else None,
            )
        self._cuts_run_from_elsewhere(ctx, set(by_line))
        self._differentiated_by_library(ctx, set(by_line))

    def _differentiated_by_library(self, ctx: Context, lines: set[int]) -> None:
        """A function TFP differentiates (an MCMC kernel's target_log_prob_fn,
        tfp.math.value_and_gradient's f) whose every route from its arguments leaves TensorFlow."""
        from ...analysis.differentiated import differentiated_functions

        for found in differentiated_functions(ctx):
            name = f"`{found.function.name}`" if isinstance(found.function, ast.FunctionDef) else "the lambda"
            library_call = ast.unparse(found.site.node.func)
            for cut in found.cuts:
                line = getattr(cut.node, "lineno", 0)
                if cut.kind != NUMPY or line in lines:
                    continue
                lines.add(line)
                subject = f"`{ast.unparse(cut.value)}`" if cut.value is not None else "the value"
                ctx.report(
                    cut.node,
                    f"{cut.what} turns {subject} into a NumPy/Python value in {name}, which `{library_call}` on "
                    f"{ctx.where(found.site.node)} differentiates with respect to its arguments: TensorFlow cannot "
                    "follow it, so the gradient is None (TFP's kernels raise ValueError \"Encountered `None` "
                    "gradient.\"). Compute it with TensorFlow ops on the argument (`tf.linalg`, `tf.math`, "
                    "`tf.experimental.numpy`).",
                    related=[ctx.related(found.site.node, "differentiates the function here")],
                )

    def _cuts_run_from_elsewhere(self, ctx: Context, lines: set[int]) -> None:
        """A cut in a function of this file that a tape of another module of the project runs
        (main.py reports its call of `soft_dice`; the `.numpy()` is written here)."""
        for result, found, other in cuts_from_importers(ctx):
            if found.kind != NUMPY or found.origin is None:
                continue
            _path, line, column, what = found.origin
            node = node_at(ctx.facts, line, column)
            if node is None or line in lines:
                continue
            lines.add(line)
            use = result.use
            where = f"{label(other)} line {use.call.lineno}"
            ctx.report(
                node,
                f"{what} turns the value into a NumPy/Python value, and {label(other)} differentiates through "
                f"this function: its line {found.node.lineno} runs it while a tape records, and {use.describe()} "
                f"on {where} returns {result.none_for()}. {_advice(Cut(NUMPY, node, what, None))}",
            )


# What TensorFlow 2.21 does with a target of each kind, per gradient method: the error it raises,
# or None when the call returns None.
_TARGET_ERRORS = {
    ("gradient", "numpy"): "AttributeError: a NumPy array or scalar has no attribute '_id'",
    ("gradient", "number"): "AttributeError: '{type}' object has no attribute 'dtype'",
    ("jacobian", "numpy"): None,
    ("jacobian", "number"): "AttributeError: '{type}' object has no attribute 'shape'",
    ("batch_jacobian", "numpy"): "AttributeError: 'tuple' object has no attribute 'rank'",
    ("batch_jacobian", "number"): "AttributeError: '{type}' object has no attribute 'shape'",
}


def _report_numpy_targets(ctx: Context) -> set[int]:
    """`tape.gradient(loss, ...)` where `loss` is certainly a NumPy value (or a Python number)
    made from a tensor by a conversion (`.numpy()`, `np.asarray(t)`, `np.mean(t)`, `float(t)`):
    the target must be a tensor, so TensorFlow raises AttributeError (`jacobian` of an array
    returns None). Reported on the conversion; the lines reported."""
    from ...analysis.paths import Cut, gradient_uses
    from ...analysis.values import values_for

    facts = ctx.facts
    reported: set[int] = set()
    uses = gradient_uses(facts)
    if not uses or facts.calls_to("tensorflow.experimental.numpy.experimental_enable_numpy_behavior"):
        return reported
    values = values_for(ctx)
    for use in uses:
        for target, scope in _target_candidates(values, use):
            found = _conversion(ctx, values, target, scope, 0)
            if found is None:
                continue
            node, what, subject, kind = found
            line = getattr(node, "lineno", 0)
            if line in reported:
                continue
            error = _TARGET_ERRORS[(use.method, "numpy" if kind in ("ndarray", "np_scalar") else "number")]
            result = values.value(node, scope)
            python = "int" if result.dtype == "int" else "float"
            outcome = (f"it raises {error.format(type=python)}" if error is not None
                       else f"it returns None for {ast.unparse(use.sources)}")
            text = ast.unparse(subject)
            if len(text) > 50:
                text = text[:47] + "..."
            made = "a NumPy value" if kind in ("ndarray", "np_scalar") else "a Python number"
            cut = Cut(NUMPY, node, what, subject)
            ctx.report(
                node,
                f"{what} turns the tensor `{text}` into {made}, and that is the target of "
                f"{use.describe()} on {ctx.where(use.call)}: `{use.method}` needs a tensor target, so "
                f"{outcome}. {_advice(cut)}",
                related=[ctx.related(use.call, f"this {use.method} call is given {made}")],
                # Through a loop's tuple the value is read there too, where NumPy may be meant.
                fix=_offer(ctx, cut) if target is use.target and inside(target, use.call) else None,
            )
            reported.add(line)
    return reported


def _target_candidates(values, use):
    """The expressions the target certainly is, each at one run of the gradient call: the target
    itself, or for a loop variable over a literal tuple of tuples (`for name, loss, net in
    (("policy", pg_loss, policy), ...)`) the element of each entry, when nothing in the loop's
    body skips the call."""
    target, scope = use.target, use.site.scope
    if not isinstance(target, ast.Name):
        return [(target, scope)]
    defs, owner = values.definitions(target.id, scope, use.call)
    if len(defs) != 1 or defs[0].kind != "for" or owner is not scope:
        return [(target, scope)]
    loop = defs[0].stmt
    entries = loop.iter
    if not isinstance(entries, (ast.Tuple, ast.List)) or not entries.elts:
        return []
    index = _position_in(loop.target, target.id)
    if index is None:
        return []
    statement = next((stmt for stmt in loop.body if inside(use.call, stmt)), None)
    if statement is None:
        return []
    before = loop.body[:loop.body.index(statement)]
    if any(isinstance(n, (ast.Break, ast.Continue, ast.Return, ast.Raise)) for stmt in before for n in ast.walk(stmt)) \
            or not isinstance(statement, (ast.Assign, ast.Expr, ast.AnnAssign)):
        return []
    out = []
    for entry in entries.elts:
        if index == -1:
            out.append((entry, scope))
        elif isinstance(entry, (ast.Tuple, ast.List)) and len(entry.elts) > index \
                and not any(isinstance(e, ast.Starred) for e in entry.elts):
            out.append((entry.elts[index], scope))
    return out


def _position_in(target: ast.expr, name: str) -> int | None:
    """-1 for `for name in ...`, i for the i-th name of `for a, name, b in ...`, else None."""
    if isinstance(target, ast.Name):
        return -1 if target.id == name else None
    if isinstance(target, (ast.Tuple, ast.List)):
        for i, element in enumerate(target.elts):
            if isinstance(element, ast.Name) and element.id == name:
                return i
    return None


def _conversion(ctx: Context, values, expr: ast.expr, scope, depth: int):
    """The conversion that makes `expr` a NumPy value or a Python number from a tensor, followed
    through names bound once, arithmetic, indexing and NumPy functions and methods of NumPy
    values: (node, what, the tensor converted, the kind), or None."""
    if depth > 8:
        return None
    value = values.value(expr, scope)
    kind = value.kind
    if kind not in ("ndarray", "np_scalar", "number"):
        return None
    if isinstance(expr, ast.Name):
        defs, owner = values.definitions(expr.id, scope, expr)
        if len(defs) != 1 or owner is None or defs[0].kind != "assign" or defs[0].value is None:
            return None
        stmt = defs[0].stmt
        if not (isinstance(stmt, (ast.Assign, ast.AnnAssign)) and isinstance(
                stmt.targets[0] if isinstance(stmt, ast.Assign) else stmt.target, ast.Name)):
            return None
        return _conversion(ctx, values, defs[0].value, owner, depth + 1)
    if isinstance(expr, ast.UnaryOp):
        return _conversion(ctx, values, expr.operand, scope, depth + 1)
    if isinstance(expr, ast.BinOp):
        for side in (expr.left, expr.right):
            found = _conversion(ctx, values, side, scope, depth + 1)
            if found is not None:
                return found
        return None
    if isinstance(expr, ast.Subscript):
        return _conversion(ctx, values, expr.value, scope, depth + 1)
    if not isinstance(expr, ast.Call) or any(isinstance(a, ast.Starred) for a in expr.args):
        return None
    func = expr.func
    args = [*expr.args, *(k.value for k in expr.keywords)]
    if isinstance(func, ast.Attribute) and func.attr == "numpy" and not args:
        if kind == "number" or values.value(func.value, scope).kind not in TF_KINDS:
            return None
        return expr, "`.numpy()`", func.value, kind
    qualname = ctx.facts.imports.resolve(func)
    if qualname is not None and qualname.startswith("numpy.") and kind != "number":
        for arg in args:
            if values.value(arg, scope).kind in TF_KINDS:
                return expr, f"`{ast.unparse(func)}`", arg, kind
        for arg in args:
            found = _conversion(ctx, values, arg, scope, depth + 1)
            if found is not None:
                return found
        return None
    if isinstance(func, ast.Name) and func.id in ("float", "int") and qualname in (None, f"builtins.{func.id}") \
            and len(expr.args) == 1 and not expr.keywords and kind == "number":
        if values.value(expr.args[0], scope).kind in TF_KINDS:
            return expr, f"`{func.id}()`", expr.args[0], kind
        return None
    if isinstance(func, ast.Attribute) and kind != "number" \
            and values.value(func.value, scope).kind in ("ndarray", "np_scalar"):
        return _conversion(ctx, values, func.value, scope, depth + 1)  # `t.numpy().mean()`
    return None


TF_KINDS = frozenset({"tensor", "variable"})


def _offer(ctx: Context, found, others=()):
    """`np.square(t)` -> `tf.square(t)` for NumPy/math functions whose TensorFlow twin takes the
    same arguments (safe inside the tape's block; unsafe in a helper, whose other callers may
    pass NumPy data), with the line's other NumPy calls on the path; `t.numpy()` -> `t` (unsafe:
    later NumPy-only uses of the value break), not offered when a NumPy-only method is called on
    the result right there (`t.numpy().item()` would become `t.item()`, an AttributeError)."""
    if not ctx.fixes:
        return None  # the offer is worked out only when fixes are wanted
    node = found.node
    if not isinstance(node, ast.Call):
        return None
    text = ctx.facts.source.text
    if found.what == "`.numpy()`" and isinstance(node.func, ast.Attribute) and not node.args and not node.keywords:
        receiver = node.func.value
        from ...analysis import library
        from ...analysis.guards import parents

        parent = parents(ctx.facts).get(node)
        if isinstance(parent, ast.Attribute) and parent.value is node:
            method = library.method("tensor", parent.attr)
            if method is None or method.has("numpy_only") or method.grad == "leave":
                return None

        def build_unwrap():
            from ...fixes.blocks import replace_by_part

            return replace_by_part(text, node, receiver, "Keep the tensor: remove `.numpy()`", Applicability.UNSAFE)
        return build_unwrap
    from ...fixes.numpy_ops import tf_equivalent

    qualname = ctx.facts.imports.resolve(node.func)
    twin = tf_equivalent(qualname, node)
    alias = _tf_alias(ctx)
    if twin is None or alias is None:
        return None
    name, add_import = alias
    short = ast.unparse(node.func)
    facts = ctx.facts

    more = []
    for other in others:
        other_twin = tf_equivalent(ctx.facts.imports.resolve(other.node.func), other.node) \
            if isinstance(other.node, ast.Call) else None
        if other_twin is None:
            return None  # a NumPy call of the line the fix could not convert: it would stay cut
        more.append((other.node, other_twin))

    def build_twin():
        from ...fixes.numpy_ops import enclosing_twins, numpy_call_fix

        # The NumPy calls around this one would be cut next: they go in the same fix.
        calls = [(node, twin)] + more
        calls += [pair for call, _twin in list(calls) for pair in enclosing_twins(facts.tree, call, facts.imports.resolve)]
        seen: set[int] = set()
        calls = [pair for pair in calls if id(pair[0]) not in seen and not seen.add(id(pair[0]))]
        in_block = all(any(tape.item is not None and inside(call, tape.node) for tape in facts.tapes)
                       for call, _twin in calls)
        return numpy_call_fix(text, calls, name, add_import, f"Use `{name}.{twin.path}` instead of `{short}`",
                              Applicability.SAFE if in_block else Applicability.UNSAFE)
    return build_twin


def _tf_alias(ctx: Context) -> tuple[str, bool] | None:
    """The name the file binds TensorFlow to (and False), or ("tf", True) when an
    `import tensorflow as tf` must be added; None when `tf` means something else."""
    imports = ctx.facts.imports
    bound = sorted(local for local, qualname in imports.names.items()
                   if qualname in ("tensorflow", "tensorflow.compat.v2"))
    real = [local for local in bound if local not in imports.assumed]
    if real:
        return ("tf", False) if "tf" in real else (real[0], False)
    from ...fixes.names import identifiers

    used = "tf" in identifiers(ctx.facts.tree)
    if "tf" in bound and used:  # used without an import the file shows (a notebook, a star import)
        return "tf", False
    if ("tf" in imports.names and "tf" not in imports.assumed) or used:
        return None
    return "tf", True


def _advice(found) -> str:
    node = found.node
    if found.what.startswith("re-wrapping"):
        if "TransformedVariable" in found.what:
            return ("Create the TransformedVariable once, before the tape, and take the gradient with respect to "
                    "its `trainable_variables`; or keep the variable and transform it lazily with "
                    "`tfp.util.DeferredTensor(variable, transform_fn)`.")
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
