from __future__ import annotations

import ast

from ...facts.model import CallSite, Facts, Tape
from ...model import Severity
from ...settings import Targets
from ...versions import Version
from ...analysis.traced import called_under_tape
from ..base import Context, Proof, Rule, invalid, valid

TF2 = Version.parse("2")

_SILENT_NONE = "tape.gradient silently returns None for everything computed through it"
_NOT_IMPLEMENTED = ("tape.gradient raises NotImplementedError \"tf.GradientTape.gradients() does not support "
                    "graph control flow operations like tf.cond or tf.while at this time. Use tf.gradients() "
                    "instead.\"")
_SCAN = ("tape.gradient raises ValueError \"Expected op/tensor name to start with gradients (excluding "
         "scope)\" (from the TensorArray gradient)")
# What TensorFlow 2.21 does, measured with disable_v2_behavior() and with
# disable_control_flow_v2() + disable_eager_execution().
_SYMPTOMS = {
    "tensorflow.map_fn": _SILENT_NONE,
    "tensorflow.scan": _SCAN,
    "tensorflow.foldl": _NOT_IMPLEMENTED,
    "tensorflow.foldr": _NOT_IMPLEMENTED,
    "tensorflow.while_loop": _NOT_IMPLEMENTED,
}


class V1ControlFlowUnderTape(Rule):
    """
    ## What it does
    Finds `tf.map_fn`, `tf.scan`, `tf.foldl`, `tf.foldr` and `tf.while_loop` inside a
    `tf.GradientTape` block whose gradient is taken, in a program where TensorFlow 1
    graph mode *and* v1 control flow are active: TensorFlow 1.x, or TensorFlow 2 after
    `tf.compat.v1.disable_v2_behavior()`, or after both `disable_control_flow_v2()` and
    `disable_eager_execution()`.

    ## Why is this bad?
    A GradientTape cannot differentiate v1 graph control flow. Measured on TensorFlow
    2.21 with v1 behaviour switched on: through `tf.map_fn` the gradient is silently
    `None`; through `tf.while_loop`, `tf.foldl` and `tf.foldr`, `tape.gradient` raises
    `NotImplementedError: tf.GradientTape.gradients() does not support graph control flow
    operations like tf.cond or tf.while at this time. Use tf.gradients() instead.`;
    through `tf.scan` it raises `ValueError: Expected op/tensor name to start with
    gradients`. TensorFlow 1.x behaves the same way.

    The rule stays silent where the problem does not exist: TensorFlow 2 eager code,
    `disable_eager_execution()` alone (control flow v2 stays on and the tape works),
    `disable_control_flow_v2()` alone (eager execution ignores it), tapes inside a
    `tf.function` (function graphs always use control flow v2), and `tf.gradients`.

    ## Example
    ```python
    tf.compat.v1.disable_v2_behavior()

    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.map_fn(lambda a: a * a, x)
    grad = tape.gradient(y, x)  # None
    ```

    ## Use instead
    ```python
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x  # the vectorized op, or tf.vectorized_map(fn, x)
    grad = tape.gradient(y, x)
    ```
    or, in graph mode, `grad = tf.gradients(y, x)`, or drop `disable_v2_behavior()`.
    """

    code = "MAP001"
    name = "v1-control-flow-under-tape"
    summary = "A GradientTape over map_fn/scan/foldl/while_loop with v1 graph control flow active"
    severity = Severity.ERROR
    cheap_without_triggers = True
    triggers = ("map_fn", "scan", "foldl", "foldr", "while_loop")
    examples = (
        invalid("""
            import tensorflow as tf

            tf.compat.v1.disable_v2_behavior()

            x = tf.constant([1.0, 2.0, 3.0])
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = tf.map_fn(lambda a: a * a, x)
            grad = tape.gradient(y, x)
        """, 8, "disable_v2_behavior(): the gradient through map_fn is None on TensorFlow 2.21",
            proof=Proof(check="assert grad is None", isolated=True)),
        invalid("""
            import tensorflow as tf

            tf.compat.v1.disable_control_flow_v2()
            tf.compat.v1.disable_eager_execution()

            x = tf.constant([1.0, 2.0, 3.0])
            with tf.GradientTape() as tape:
                tape.watch(x)
                _, y = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * 2.0), (0, x))
            grad = tape.gradient(y, x)
        """, 9, "v1 control flow in graph mode: while_loop under a tape raises",
            proof=Proof(raises=("NotImplementedError", "does not support graph control flow operations"),
                        isolated=True)),
        invalid("""
            import tensorflow.compat.v1 as tf

            tf.disable_v2_behavior()

            x = tf.constant([1.0, 2.0, 3.0])
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = tf.scan(lambda acc, a: acc + a * a, x)
            grad = tape.gradient(y, x)
        """, 8, "tensorflow.compat.v1 with v2 behaviour disabled: scan under a tape",
            proof=Proof(raises=("ValueError", "Expected op/tensor name to start with gradients"), isolated=True)),
        invalid("""
            import tensorflow as tf

            tf.compat.v1.disable_v2_behavior()

            def squash(v):
                return tf.map_fn(lambda a: tf.tanh(a), v)

            x = tf.constant([0.0, 1.0])
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = squash(x)
            grad = tape.gradient(y, x)
        """, 6, "a helper called inside the tape",
            proof=Proof(check="assert grad is None", isolated=True)),
        invalid("""
            import tensorflow as tf

            x = tf.constant([1.0, 2.0, 3.0])
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = tf.map_fn(lambda a: a * a, x)
            grad = tape.gradient(y, x)
        """, 6, "TensorFlow 1.15: graph mode and v1 control flow by default", tensorflow_version="1.15"),
        valid("""
            import tensorflow as tf

            x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
            lengths = tf.constant([1, 2])
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = tf.map_fn(lambda t: tf.reduce_sum(t[0][:t[1]] ** 2), (x, lengths), fn_output_signature=tf.float32)
            grad = tape.gradient(y, x)
        """, "TensorFlow 2 eager: the tape differentiates map_fn (here the sum of squares of each row's "
             "first `length` entries, a variable-length slice per row)",
            proof=Proof(check="assert grad.numpy().tolist() == [[2.0, 0.0], [6.0, 8.0]]", isolated=True)),
        valid("""
            import tensorflow as tf

            tf.compat.v1.disable_eager_execution()

            x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
            lengths = tf.constant([1, 2])
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = tf.map_fn(lambda t: tf.reduce_sum(t[0][:t[1]] ** 2), (x, lengths), fn_output_signature=tf.float32)
            grad = tape.gradient(y, x)
            with tf.compat.v1.Session() as session:
                value = session.run(grad)
        """, "disable_eager_execution() alone keeps control flow v2: the gradient exists",
            proof=Proof(check="assert grad is not None and value.tolist() == [[2.0, 0.0], [6.0, 8.0]]",
                        isolated=True)),
        valid("""
            import tensorflow as tf

            tf.compat.v1.disable_control_flow_v2()

            x = tf.constant([1.0, 2.0, 3.0])
            with tf.GradientTape() as tape:
                tape.watch(x)
                _, y = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * 2.0), (0, x))
            grad = tape.gradient(y, x)
        """, "disable_control_flow_v2() alone: eager execution does not build v1 control flow",
            proof=Proof(check="assert grad.numpy().tolist() == [8.0, 8.0, 8.0]", isolated=True)),
        valid("""
            import tensorflow as tf

            tf.compat.v1.disable_v2_behavior()

            @tf.function
            def grad_of_squares(x, lengths):
                with tf.GradientTape() as tape:
                    tape.watch(x)
                    y = tf.map_fn(lambda t: tf.reduce_sum(t[0][:t[1]] ** 2), (x, lengths), fn_output_signature=tf.float32)
                return tape.gradient(y, x)

            grad = grad_of_squares(tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant([1, 2]))
            with tf.compat.v1.Session() as session:
                value = session.run(grad)
        """, "a tape inside a tf.function: function graphs use control flow v2",
            proof=Proof(check="assert value.tolist() == [[2.0, 0.0], [6.0, 8.0]]", isolated=True)),
        valid("""
            import tensorflow as tf

            tf.compat.v1.disable_v2_behavior()

            x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
            lengths = tf.constant([1, 2])
            y = tf.map_fn(lambda t: tf.reduce_sum(t[0][:t[1]] ** 2), (x, lengths), fn_output_signature=tf.float32)
            grad = tf.gradients(y, x)[0]
            with tf.compat.v1.Session() as session:
                value = session.run(grad)
        """, "graph mode differentiated with tf.gradients",
            proof=Proof(check="assert value.tolist() == [[2.0, 0.0], [6.0, 8.0]]", isolated=True)),
        valid("""
            import tensorflow as tf

            tf.compat.v1.disable_v2_behavior()

            x = tf.constant([1.0, 2.0, 3.0])
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = x * x
            total = tf.scan(lambda acc, a: acc + a, y)
            grad = tape.gradient(y, x)
        """, "a loop after the tape block is not differentiated by it"),
        valid("""
            import tensorflow as tf

            tf.enable_eager_execution()

            x = tf.constant([1.0, 2.0, 3.0])
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = tf.map_fn(lambda a: a * a, x)
            grad = tape.gradient(y, x)
        """, "TensorFlow 1.15 with eager execution enabled", tensorflow_version="1.15"),
    )

    def check(self, ctx: Context) -> None:
        active = _v1_control_flow_graph(ctx.facts, ctx.targets)
        if active is None:
            return
        reason, marker = active
        for site in ctx.facts.calls_to(*_SYMPTOMS):
            if site.scope.traced_by is not None:
                continue
            tape, use = _differentiating_tape(site)
            if tape is not None and use is not None:
                related = [ctx.related(tape.node, "the GradientTape recording it"),
                           ctx.related(use.node, "the gradient taken through it")]
            else:
                caller = _helper_called_under_tape(ctx.facts, site)
                if caller is None:
                    continue
                related = [ctx.related(caller.node, "called inside a GradientTape block whose gradient is taken")]
            op = site.qualname.rsplit(".", 1)[-1]  # type: ignore[union-attr]
            if marker is not None:
                related.append(ctx.related(marker, "v1 graph control flow switched on here"))
            ctx.report(
                site.node,
                f"tf.{op} under a GradientTape with {reason}: {_SYMPTOMS[site.qualname]}. "  # type: ignore[index]
                "Vectorize (the elementwise op directly, or tf.vectorized_map), use tf.gradients in graph "
                "mode, or keep TensorFlow 2 behaviour (control flow v2).",
                related=related,
            )


def _v1_control_flow_graph(facts: Facts, targets: Targets) -> tuple[str, ast.AST | None] | None:
    """Why graph mode with v1 control flow is active in this file, and the call that does it."""
    def marker(*kinds: str) -> ast.AST | None:
        return next((m.node for m in facts.modes if m.kind in kinds), None)

    if targets.tensorflow < TF2:
        if facts.has_mode("enable_eager_execution", "enable_v2_behavior", "enable_control_flow_v2"):
            return None
        return (f"TensorFlow {targets.tensorflow} (graph mode, v1 control flow)", None)
    if facts.has_mode("enable_control_flow_v2", "enable_v2_behavior"):
        return None
    v2_off = marker("disable_v2_behavior")
    if v2_off is not None:
        return ("v2 behaviour disabled (graph mode, v1 control flow)", v2_off)
    cf_off = marker("disable_control_flow_v2")
    eager_off = marker("disable_eager_execution")
    if cf_off is not None and eager_off is not None:
        return ("control flow v2 and eager execution disabled", cf_off)
    return None


def _helper_called_under_tape(facts: Facts, site: CallSite) -> CallSite | None:
    """The call, inside a differentiated tape block, of the function that makes this call."""
    function = site.scope.function
    if function is None or not isinstance(function.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    caller = called_under_tape(facts, ("gradient", "jacobian", "batch_jacobian")).get(function.node.name)
    if caller is None or caller.scope.traced_by is not None:
        return None
    return caller


def _differentiating_tape(site: CallSite) -> tuple[Tape | None, CallSite | None]:
    """The innermost tape around the call whose gradient (or jacobian) is taken."""
    for tape in reversed(site.tapes):
        uses = [u for u in tape.uses("gradient", "jacobian", "batch_jacobian")
                if (u.node.lineno, u.node.col_offset) > (site.node.lineno, site.node.col_offset)]
        if uses:
            return tape, uses[0]
    return None, None
