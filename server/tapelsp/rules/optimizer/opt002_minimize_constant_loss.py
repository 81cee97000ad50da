from __future__ import annotations

import ast

from ...facts.dataflow import flow_of
from ...facts.model import CallSite, Facts
from ...model import Severity
from ...settings import Targets
from ...versions import Version, VersionRange
from ...analysis.tensors import Tensors, assignments, tensors_at
from ..base import Context, Proof, Rule, invalid, valid
from ...facts.names import dotted as _dotted

KERAS3 = Version.parse("3")
# tf.keras is Keras 3 from TensorFlow 2.16 on (unless TF_USE_LEGACY_KERAS is set).
TF_WITH_KERAS3 = Version.parse("2.16")
NO_GRADIENTS = "No gradients provided for any variable"
TAPE_REQUIRED = "`tape` is required when a `Tensor` loss is passed."
V1_EAGER = "`loss` passed to Optimizer.compute_gradients should be a function when eager execution is enabled."
_GRAPH_MODES = ("disable_eager_execution", "disable_v2_behavior")


class MinimizeConstantLoss(Rule):
    """
    ## What it does
    Finds `optimizer.minimize(lambda: loss, var_list)` where `loss` is a value computed
    before the call, and `optimizer.minimize(loss_tensor, var_list)` with an eager tensor
    and no `tape=`.

    ## Why is this bad?
    `minimize` calls the loss function under its own GradientTape and differentiates
    what it records. A lambda that returns a loss computed earlier records nothing, so
    every gradient is `None`: tf_keras (Keras 2) and `tf.compat.v1.train` optimizers raise
    `ValueError: No gradients provided for any variable`. A tensor loss without the tape
    that computed it raises ``ValueError: `tape` is required when a `Tensor` loss is
    passed.`` (tf_keras), or, for `tf.compat.v1.train` optimizers in eager mode,
    ``RuntimeError: `loss` passed to Optimizer.compute_gradients should be a function when
    eager execution is enabled.`` Keras 3 optimizers (`tf.keras` from TensorFlow 2.16,
    `keras` 3) have no `minimize` at all: `AttributeError`. In TF1 graph mode a tensor
    loss is the intended use and stays silent.

    ## Example
    ```python
    loss = tf.reduce_sum(w * w)
    optimizer.minimize(lambda: loss, [w])
    ```

    ## Use instead
    ```python
    optimizer.minimize(lambda: tf.reduce_sum(w * w), [w])   # tf_keras / Keras 2
    # Keras 3: compute gradients with a tape and apply them
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(w * w)
    optimizer.apply_gradients(zip(tape.gradient(loss, [w]), [w]))
    ```
    """

    code = "OPT002"
    name = "minimize-constant-loss"
    summary = "optimizer.minimize given a loss computed before the call"
    severity = Severity.ERROR
    tensorflow = VersionRange(">=2.0")
    triggers = ("minimize",)
    examples = (
        invalid("""
            import tensorflow as tf
            import tf_keras

            w = tf.Variable(2.0)
            optimizer = tf_keras.optimizers.SGD(0.1)
            loss = w * w
            optimizer.minimize(lambda: loss, [w])
        """, 7, "the catalogue's constant closure with a tf_keras optimizer",
            proof=Proof(raises=("ValueError", NO_GRADIENTS))),
        invalid("""
            import tensorflow as tf

            w = tf.Variable(2.0)
            optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
            loss = tf.square(w - 1.0)
            optimizer.minimize(lambda: loss, var_list=[w])
        """, 6, "a tf.compat.v1.train optimizer in eager mode",
            proof=Proof(raises=("ValueError", NO_GRADIENTS))),
        invalid("""
            import tensorflow as tf
            import tf_keras

            w = tf.Variable(2.0)
            optimizer = tf_keras.optimizers.Adam(0.1)
            loss = tf.square(w - 1.0)
            optimizer.minimize(loss, [w])
        """, 7, "an eager tensor loss without its tape",
            proof=Proof(raises=("ValueError", TAPE_REQUIRED))),
        invalid("""
            import tensorflow as tf

            w = tf.Variable(2.0)
            optimizer = tf.keras.optimizers.SGD(0.1)
            loss = w * w
            optimizer.minimize(lambda: loss, [w])
        """, 6, "Keras 3 (tf.keras on TensorFlow 2.16+): no minimize at all",
            proof=Proof(raises=("AttributeError", "object has no attribute 'minimize'"))),
        invalid("""
            import tensorflow as tf

            w = tf.Variable(2.0)
            optimizer = tf.keras.optimizers.SGD(0.1)
            loss = w * w
            optimizer.minimize(lambda: loss, [w])
        """, 6, "TensorFlow 2.15: tf.keras is Keras 2", tensorflow_version="2.15"),
        valid("""
            import tensorflow as tf
            import tf_keras

            w = tf.Variable(2.0)
            optimizer = tf_keras.optimizers.SGD(0.1)
            optimizer.minimize(lambda: tf.square(w), [w])
        """, "the loss computed inside the lambda",
            proof=Proof(check="assert abs(float(w) - 1.6) < 1e-6")),
        valid("""
            import tensorflow as tf
            import tf_keras

            w = tf.Variable(2.0)
            optimizer = tf_keras.optimizers.SGD(0.1)

            def loss_fn():
                return tf.square(w)

            optimizer.minimize(loss_fn, [w])
        """, "a named loss function",
            proof=Proof(check="assert abs(float(w) - 1.6) < 1e-6")),
        valid("""
            import tensorflow as tf
            import tf_keras

            w = tf.Variable(2.0)
            optimizer = tf_keras.optimizers.SGD(0.1)
            with tf.GradientTape() as tape:
                loss = tf.square(w)
            optimizer.minimize(loss, [w], tape=tape)
        """, "a tensor loss with the tape that recorded it",
            proof=Proof(check="assert abs(float(w) - 1.6) < 1e-6")),
        valid("""
            import tensorflow as tf

            tf.compat.v1.disable_eager_execution()
            w = tf.Variable(2.0)
            loss = tf.square(w)
            train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss)
            with tf.compat.v1.Session() as session:
                session.run(tf.compat.v1.global_variables_initializer())
                session.run(train_op)
                value = session.run(w)
        """, "TF1 graph mode: a tensor loss is how minimize is used",
            proof=Proof(check="assert abs(value - 1.6) < 1e-6", isolated=True)),
    )

    def check(self, ctx: Context) -> None:
        facts = ctx.facts
        graph = facts.has_mode(*_GRAPH_MODES)
        for site in facts.calls:
            if site.method != "minimize" or not isinstance(site.node.func, ast.Attribute):
                continue
            if site.qualname is not None and not site.qualname.startswith(("keras.", "tensorflow.train.")):
                continue  # scipy.optimize.minimize, tfp.math.minimize...
            call = site.node
            loss = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "loss"), None)
            if loss is None:
                continue
            tensors = tensors_at(facts, site.scope)
            if tensors is None:
                continue
            family = _optimizer_family(facts, site, ctx.targets)
            if isinstance(loss, ast.Lambda):
                names = _precomputed(loss, tensors)
                if names is None:
                    continue
                self._constant_closure(ctx, site, loss, names, family)
            elif isinstance(loss, ast.Name) and tensors.is_tensor(loss) and not graph \
                    and site.scope.traced_by is None and not any(k.arg == "tape" for k in call.keywords) \
                    and len(call.args) < 3:
                self._tensor_loss(ctx, site, loss, family)

    def _constant_closure(self, ctx: Context, site: CallSite, loss: ast.Lambda, names: list[ast.Name],
                          family: str) -> None:
        shown = ", ".join(f"`{n.id}`" for n in names)
        where = _defined_at(ctx, site, names[0])
        cause = (f"the lambda returns {shown}, computed {where}before minimize: minimize runs the lambda under "
                 "its own GradientTape, which records no computation, so every gradient is None")
        if family == "keras3":
            message = (f"Keras 3 optimizers have no `minimize`: AttributeError \"'...' object has no attribute "
                       f"'minimize'\". And {cause} (a Keras 2 / tf_keras optimizer raises ValueError "
                       f"\"{NO_GRADIENTS}\"). Compute the loss inside a GradientTape and call apply_gradients.")
        else:
            which = {"keras2": "", "v1": "", "unknown": " (tf_keras / Keras 2 and tf.compat.v1 optimizers)"}[family]
            message = (f"Constant loss: {cause}; the optimizer raises ValueError \"{NO_GRADIENTS}\"{which}. "
                       "Compute the loss inside the lambda (`lambda: loss_fn(...)`).")
        ctx.report(loss, message, related=[ctx.related(site.node, "the optimizer differentiates this call")])

    def _tensor_loss(self, ctx: Context, site: CallSite, loss: ast.Name, family: str) -> None:
        where = _defined_at(ctx, site, loss)
        if family == "keras3":
            message = ("Keras 3 optimizers have no `minimize`: AttributeError \"'...' object has no attribute "
                       f"'minimize'\". `{loss.id}` is a tensor computed {where}before the call; compute it "
                       "inside a GradientTape and call apply_gradients.")
        elif family == "v1":
            message = (f"`{loss.id}` is an eager tensor: a tf.compat.v1.train optimizer raises RuntimeError "
                       f"\"{V1_EAGER}\" Pass a function (`lambda: ...` computing the loss).")
        else:
            which = "" if family == "keras2" else " (tf_keras / Keras 2 optimizers)"
            message = (f"`{loss.id}` is a tensor computed {where}before the call and no `tape=` is given: the "
                       f"optimizer raises ValueError \"{TAPE_REQUIRED}\"{which} Pass the loss as a function "
                       "(`lambda: ...` computing it), or the GradientTape that recorded it as `tape=`.")
        ctx.report(loss, message, related=[ctx.related(site.node, "the minimize call")])


def _precomputed(loss: ast.Lambda, tensors: Tensors) -> list[ast.Name] | None:
    """The names a parameterless lambda returns when its body computes nothing itself:
    a name or arithmetic of names and numbers, at least one a tensor, none a tf.Variable."""
    args = loss.args
    if args.args or args.posonlyargs or args.vararg or args.kwonlyargs or args.kwarg:
        return None
    names: list[ast.Name] = []
    for node in ast.walk(loss.body):
        if isinstance(node, ast.Name):
            names.append(node)
        elif isinstance(node, ast.Constant):
            if not isinstance(node.value, (int, float)):
                return None
        elif not isinstance(node, (ast.BinOp, ast.UnaryOp, ast.operator, ast.unaryop, ast.Load)):
            return None  # a call, an attribute, a subscript: the lambda computes something
    if not names or any(tensors.is_variable(n) for n in names) or not any(tensors.is_tensor(n) for n in names):
        return None
    return names


def _defined_at(ctx: Context, site: CallSite, name: ast.Name) -> str:
    scope = site.scope.function or ctx.facts.module
    reaching = flow_of(ctx.facts, scope).reaching(name.id, site.node)
    if len(reaching) == 1 and reaching[0].kind in ("assign", "augassign"):
        return f"on {ctx.where(reaching[0].stmt)} "
    return ""


def _optimizer_family(facts: Facts, site: CallSite, targets: Targets) -> str:
    """"keras2", "keras3", "v1" or "unknown", from what the receiver was constructed with."""
    func = site.node.func
    receiver = func.value if isinstance(func, ast.Attribute) else None  # type: ignore[union-attr]
    constructor: ast.expr | None = None
    if isinstance(receiver, ast.Call):
        constructor = receiver.func
    elif receiver is not None and site.receiver is not None:
        for node in assignments(facts):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and any(
                    _dotted(t) == site.receiver for t in node.targets):
                constructor = node.value.func
    if constructor is None:
        return "unknown"
    raw = facts.imports.raw(constructor) or ""
    qualname = facts.imports.resolve(constructor) or ""
    if qualname.startswith("tensorflow.train.") and qualname.endswith("Optimizer"):
        return "v1"
    if not qualname.startswith("keras.optimizers."):
        return "unknown"
    if raw.startswith("tf_keras") or qualname.startswith("keras.optimizers.legacy."):
        return "keras2"
    keras = targets.keras
    if raw.startswith("keras.") and keras is not None:
        return "keras3" if keras >= KERAS3 else "keras2"
    # tf.keras follows TensorFlow: Keras 3 from 2.16 on.
    return "keras3" if targets.tensorflow >= TF_WITH_KERAS3 else "keras2"

