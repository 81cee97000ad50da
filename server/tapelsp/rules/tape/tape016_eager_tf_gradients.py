from __future__ import annotations

import ast

from ...facts.model import CallSite, Facts, Scope
from ...model import Severity
from ...versions import Version, VersionRange
from ..base import Context, Proof, Rule, invalid, valid

MESSAGE = "tf.gradients is not supported when eager execution is enabled. Use tf.GradientTape instead."
_GRAPH_MODES = ("disable_eager_execution", "disable_v2_behavior", "session", "placeholder")
_KERAS_3 = Version.parse("3")


class EagerTfGradients(Rule):
    """
    ## What it does
    Finds `tf.gradients(...)` (also `tf.compat.v1.gradients`) and `K.gradients(...)`
    called eagerly in TensorFlow 2: at module level, or in a plain function that this
    file calls eagerly, with no `tf.function` around it and no TF1 graph mode
    (`tf.compat.v1.disable_eager_execution()`, `disable_v2_behavior()`, sessions,
    placeholders, `with graph.as_default():`).

    ## Why is this bad?
    `tf.gradients` builds symbolic gradient ops in a graph. With eager execution, the
    default in TensorFlow 2, it raises
    `RuntimeError: tf.gradients is not supported when eager execution is enabled. Use tf.GradientTape instead.`
    `K.gradients` of tf_keras calls it and fails the same way; Keras 3 has no
    `K.gradients` at all. Inside a `tf.function` or in TF1 graph mode it works, and
    functions this file never calls are left alone (they may well be traced).

    ## Example
    ```python
    x = tf.Variable(3.0)
    y = x * x
    dy = tf.gradients(y, x)  # RuntimeError
    ```

    ## Use instead
    ```python
    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = x * x
    dy = tape.gradient(y, x)
    ```
    """

    code = "TAPE016"
    name = "eager-tf-gradients"
    summary = "tf.gradients / K.gradients called eagerly in TensorFlow 2"
    severity = Severity.ERROR
    tensorflow = VersionRange(">=2.0")
    triggers = ("gradients",)
    examples = (
        invalid("""
            import tensorflow as tf

            x = tf.Variable(3.0)
            y = x * x
            dy = tf.gradients(y, x)
        """, 5, "module-level tf.gradients",
            proof=Proof(raises=("RuntimeError", MESSAGE))),
        invalid("""
            import tensorflow as tf

            def input_gradient(model, x):
                y = model(x)
                return tf.compat.v1.gradients(y, x)

            model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
            g = input_gradient(model, tf.ones((1, 2)))
        """, 5, "a helper called eagerly",
            proof=Proof(raises=("RuntimeError", MESSAGE))),
        invalid("""
            import tensorflow as tf
            import tf_keras
            from tf_keras import backend as K

            w = tf.Variable(2.0)
            loss = w * w
            grads = K.gradients(loss, [w])
        """, 7, "K.gradients of tf_keras",
            proof=Proof(raises=("RuntimeError", MESSAGE))),
        valid("""
            import tensorflow as tf

            x = tf.Variable(3.0)

            @tf.function
            def derivative():
                y = x * x
                return tf.gradients(y, x)[0]

            dy = derivative()
        """, "inside a tf.function",
            proof=Proof(check="assert float(dy) == 6.0")),
        valid("""
            import tensorflow as tf

            tf.compat.v1.disable_eager_execution()
            x = tf.compat.v1.placeholder(tf.float32, ())
            y = x * x
            dy = tf.gradients(y, x)
            with tf.compat.v1.Session() as sess:
                value = sess.run(dy, {x: 3.0})
        """, "TF1 graph mode", proof=Proof(check="assert value[0] == 6.0", isolated=True)),
        valid("""
            import tensorflow as tf

            graph = tf.Graph()
            with graph.as_default():
                x = tf.constant(3.0)
                y = x * x
                dy = tf.gradients(y, x)
        """, "inside `with graph.as_default():`",
            proof=Proof(check="assert dy[0].graph is graph")),
        valid("""
            import tensorflow as tf

            def hessian_vector_product(f, x, v):
                g = tf.gradients(f(x), x)[0]
                return tf.gradients(tf.reduce_sum(g * v), x)[0]
        """, "a library helper this file never calls eagerly"),
        valid("""
            import tensorflow as tf

            x = tf.Variable(3.0)
            y = x * x
            dy = tf.gradients(y, x)
        """, "TensorFlow 1 targets: graph mode is the default", tensorflow_version="1.15"),
    )

    def check(self, ctx: Context) -> None:
        facts = ctx.facts
        sites = facts.calls_to("tensorflow.gradients", "keras.backend.gradients")
        if not sites or facts.has_mode(*_GRAPH_MODES) or _graph_blocks(facts):
            return
        keras3 = ctx.targets.keras is None or ctx.targets.keras >= _KERAS_3
        for site in sites:
            if not _runs_eagerly(facts, site.scope, 0):
                continue
            if site.qualname == "keras.backend.gradients":
                raw = facts.imports.raw(site.node.func) or ""
                if keras3 and not raw.startswith("tf_keras"):
                    ctx.report(site.node, "Keras 3 has no `backend.gradients`: this line raises AttributeError. "
                                          "Compute the gradient with a tf.GradientTape.")
                    continue
                what = "`K.gradients` calls `tf.gradients`, which"
            else:
                what = f"`{ast.unparse(site.node.func)}`"
            ctx.report(
                site.node,
                f"{what} runs here with eager execution on (TensorFlow 2, no tf.function around it): it raises "
                f"RuntimeError \"{MESSAGE}\" Record the computation under a tf.GradientTape and call "
                "`tape.gradient`, or run this code inside a tf.function.",
            )


def _graph_blocks(facts: Facts) -> bool:
    """The file builds graphs explicitly (`graph.as_default()`, `tf.Graph()`): assume graph mode."""
    if facts.calls_to("tensorflow.Graph", "tensorflow.get_default_graph", "tensorflow.Session",
                      "keras.backend.function", "keras.backend.get_session"):
        return True
    return any(site.method in ("as_default", "as_graph_def") for site in facts.calls)


def _runs_eagerly(facts: Facts, scope: Scope, depth: int) -> bool:
    """Module code, or a plain function that this file only ever calls directly from eager code."""
    if scope.traced_by is not None:
        return False
    if scope.kind == "module":
        return True
    if scope.kind != "function" or depth > 3:
        return False
    node = scope.node
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.decorator_list:
        return False
    parent = scope.parent
    if parent is None or parent.kind == "class":
        return False  # methods may be traced by Keras or a caller elsewhere
    calls = _direct_calls(facts, node.name)
    if calls is None or not calls:
        return False
    return all(_runs_eagerly(facts, site.scope, depth + 1) for site in calls)


def _direct_calls(facts: Facts, name: str) -> list[CallSite] | None:
    """Calls `name(...)` in the file; None when the name is also used otherwise (passed on)."""
    calls = [site for site in facts.calls if isinstance(site.node.func, ast.Name) and site.node.func.id == name]
    loads = sum(len(scope.loads.get(name, ())) for scope in facts.scopes)
    if loads != len(calls):
        return None
    return calls
