from __future__ import annotations

import ast

from ...facts.model import CallSite, Facts, Scope
from ...model import Severity
from ...analysis.traced import called_under_tape
from ..base import Context, Proof, Rule, invalid, valid

# Position of `back_prop` among the positional parameters (TF 2.21, v1 and v2 alike).
_BACK_PROP_INDEX = {
    "tensorflow.map_fn": 4,
    "tensorflow.scan": 4,
    "tensorflow.foldl": 4,
    "tensorflow.foldr": 4,
    "tensorflow.while_loop": 5,
}
_GRADIENT_METHODS = ("gradient", "jacobian", "batch_jacobian")
_GRAPH_MODES = ("disable_eager_execution", "disable_v2_behavior")


class BackPropFalse(Rule):
    """
    ## What it does
    Finds `back_prop=False` on `tf.map_fn`, `tf.scan`, `tf.foldl`, `tf.foldr` and
    `tf.while_loop` where a gradient is taken through the result: the call is inside a
    `tf.GradientTape` block whose gradient is taken, or in a function called inside one.

    ## Why is this bad?
    In a graph (inside a `tf.function`, Keras `fit`, or TF1 graph mode) `back_prop=False`
    cuts the gradient: `tape.gradient` silently returns `None` for everything computed
    through the loop. Executed eagerly the argument is ignored and gradients flow, so the
    same code trains when debugged eagerly and silently stops learning once compiled.
    TensorFlow also logs "back_prop=False is deprecated. Consider using tf.stop_gradient
    instead." The rule stays silent outside differentiated code (inference, custom
    gradients), where cutting the gradient is harmless.

    ## Example
    ```python
    @tf.function
    def step(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.map_fn(tf.sin, x, back_prop=False)
        return tape.gradient(y, x)  # None
    ```

    ## Use instead
    ```python
    y = tf.map_fn(tf.sin, x)                         # gradients wanted
    y = tf.stop_gradient(tf.map_fn(tf.sin, x))       # cut on purpose, in every mode
    ```
    """

    code = "MAP003"
    name = "back-prop-false"
    summary = "back_prop=False on a loop that a gradient is taken through"
    severity = Severity.WARNING
    cheap_without_triggers = True
    triggers = ("back_prop",)
    examples = (
        invalid("""
            import tensorflow as tf

            @tf.function
            def step(x):
                with tf.GradientTape() as tape:
                    tape.watch(x)
                    y = tf.map_fn(tf.sin, x, back_prop=False)
                return tape.gradient(y, x)

            grad = step(tf.constant([0.0, 1.0]))
        """, 7, "inside a tf.function the gradient is cut: None",
            proof=Proof(check="assert grad is None")),
        invalid("""
            import tensorflow as tf

            x = tf.constant([1.0, 2.0])
            with tf.GradientTape() as tape:
                tape.watch(x)
                _, y = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * 2.0), (0, x), back_prop=False)
            eager_grad = tape.gradient(y, x)
        """, 6, "eagerly the argument is ignored (and deprecated); compiled, the gradient is None",
            proof=Proof(isolated=True, check="""
                assert eager_grad.numpy().tolist() == [8.0, 8.0]
                assert any("back_prop=False is deprecated" in line for line in __tapelsp_logs__)

                @tf.function
                def compiled(x):
                    with tf.GradientTape() as tape:
                        tape.watch(x)
                        _, y = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * 2.0), (0, x),
                                             back_prop=False)
                    return tape.gradient(y, x)

                assert compiled(x) is None
            """)),
        invalid("""
            import tensorflow as tf

            def cumulative(x):
                return tf.scan(lambda acc, a: acc + a, x, back_prop=False)

            @tf.function
            def step(x):
                with tf.GradientTape() as tape:
                    tape.watch(x)
                    y = tf.reduce_sum(cumulative(x))
                return tape.gradient(y, x)

            grad = step(tf.constant([1.0, 2.0, 3.0]))
        """, 4, "a helper called inside the tape",
            proof=Proof(check="assert grad is None")),
        valid("""
            import tensorflow as tf

            @tf.function
            def step(x):
                with tf.GradientTape() as tape:
                    tape.watch(x)
                    y = tf.stop_gradient(tf.scan(lambda acc, a: acc + a, x)) + x
                return tape.gradient(y, x)

            grad = step(tf.constant([0.0, 1.0]))
        """, "tf.stop_gradient cuts the gradient the same way in every mode",
            proof=Proof(check="assert grad.numpy().tolist() == [1.0, 1.0]")),
        valid("""
            import tensorflow as tf

            x = tf.constant([0.0, 1.0])
            y = tf.scan(lambda acc, a: acc + a, x, back_prop=False)
        """, "inference: no gradient is taken",
            proof=Proof(check="assert y.shape == (2,)")),
        valid("""
            import tensorflow as tf

            @tf.custom_gradient
            def clipped_sum(x):
                total = tf.foldl(lambda acc, a: acc + a, x, back_prop=False)

                def grad(upstream):
                    return tf.clip_by_value(upstream * tf.ones_like(x), -1.0, 1.0)

                return total, grad

            x = tf.constant([1.0, 2.0])
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = clipped_sum(x)
            g = tape.gradient(y, x)
        """, "a custom gradient defines the gradient itself",
            proof=Proof(check="assert g.numpy().tolist() == [1.0, 1.0]")),
    )

    def check(self, ctx: Context) -> None:
        facts = ctx.facts
        graph = facts.has_mode(*_GRAPH_MODES)
        for site in facts.calls_to(*_BACK_PROP_INDEX):
            flag = _back_prop(site)
            if flag is None or _in_custom_gradient(facts, site.scope):
                continue
            where = _differentiated(facts, site)
            if where is None:
                continue
            op = site.qualname.rsplit(".", 1)[-1]  # type: ignore[union-attr]
            if site.scope.traced_by is not None or graph:
                effect = ("here, in a graph, it cuts the gradient: tape.gradient returns None for what is "
                          "computed through it")
            else:
                effect = ("eagerly it is ignored and gradients flow, but once this code runs in a tf.function "
                          "(or Keras fit) the gradient is cut and tape.gradient returns None")
            ctx.report(
                flag,
                f"back_prop=False on tf.{op} under a gradient ({where[0]}): {effect}. TensorFlow also logs "
                "\"back_prop=False is deprecated. Consider using tf.stop_gradient instead.\" Drop it, or wrap "
                "the result in tf.stop_gradient if the cut is intended.",
                related=[ctx.related(where[1], "the gradient is recorded here")],
            )


def _back_prop(site: CallSite) -> ast.AST | None:
    """The `back_prop=False` keyword (or positional False) of the call, if any."""
    for keyword in site.node.keywords:
        if keyword.arg == "back_prop":
            return keyword if _is_false(keyword.value) else None
    index = _BACK_PROP_INDEX[site.qualname]  # type: ignore[index]
    args = site.node.args
    if len(args) > index and not any(isinstance(a, ast.Starred) for a in args[:index + 1]) \
            and _is_false(args[index]):
        return args[index]
    return None


def _is_false(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value is False


def _in_custom_gradient(facts: Facts, scope: Scope | None) -> bool:
    while scope is not None:
        node = scope.node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                name = facts.imports.resolve(target) or ""
                if name.endswith("custom_gradient") or (isinstance(target, ast.Attribute)
                                                        and target.attr == "custom_gradient"):
                    return True
            if any(isinstance(n, ast.FunctionDef) and n.name.startswith("grad") for n in node.body) \
                    and _returns_pair_with_function(node):
                return True
        scope = scope.parent
    return False


def _returns_pair_with_function(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """`return value, grad_fn`: the shape of a custom-gradient forward function."""
    local_defs = {n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for stmt in ast.walk(node):
        if isinstance(stmt, ast.Return) and isinstance(stmt.value, ast.Tuple) and len(stmt.value.elts) == 2:
            last = stmt.value.elts[1]
            if isinstance(last, ast.Name) and last.id in local_defs:
                return True
    return False


def _differentiated(facts: Facts, site: CallSite) -> tuple[str, ast.AST] | None:
    """Where a gradient is recorded through the call: its own tape block, or a call of its function."""
    for tape in reversed(site.tapes):
        if any(u.node.lineno > site.node.lineno or (u.node.lineno == site.node.lineno
                                                      and u.node.col_offset > site.node.col_offset)
               for u in tape.uses(*_GRADIENT_METHODS)):
            return "inside a GradientTape block", tape.node
    function = site.scope.function
    if function is None or not isinstance(function.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    caller = called_under_tape(facts, _GRADIENT_METHODS).get(function.node.name)
    if caller is not None:
        return f"`{function.node.name}` is called inside a GradientTape block", caller.node
    return None

