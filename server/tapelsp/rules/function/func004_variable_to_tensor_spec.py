from __future__ import annotations

import ast

from ...facts.model import Scope, TfFunction
from ...model import Severity
from ...versions import VersionRange
from ...analysis.python_state import own_nodes
from ...analysis.traced import function_name
from ...analysis.values import TFP_VARIABLE, VARIABLE, ValueModel, values_for
from ..base import Context, Proof, Rule, invalid, valid

_GRADIENT_METHODS = ("gradient", "jacobian", "batch_jacobian")
# Methods of a variable that a plain tensor does not have.
_VARIABLE_METHODS = frozenset({
    "assign", "assign_add", "assign_sub", "read_value", "scatter_update", "scatter_add", "scatter_sub",
    "scatter_nd_update", "scatter_nd_add", "scatter_nd_sub", "scatter_max", "scatter_min",
})


class VariableToTensorSpec(Rule):
    """
    ## What it does
    Finds an `input_signature=[tf.TensorSpec(...), ...]` entry for a parameter that the
    tf.function differentiates with respect to (`tape.gradient(y, p)` with a tape inside the
    function that does not `watch` it) or uses as a variable (`p.assign(...)`), while a call
    in the same module passes a `tf.Variable` (or a TFP `TransformedVariable`) for it.

    ## Why is this bad?
    A `tf.TensorSpec` in the input signature converts whatever is passed to a plain tensor:
    the variable's current value. A GradientTape watches variables automatically but not
    plain tensors, so the gradient with respect to the parameter is silently `None`
    (and `apply_gradients` later says "No gradients provided for any variable"). A variable
    method fails: `AttributeError: 'SymbolicTensor' object has no attribute 'assign_sub'`.
    Without an `input_signature`, TensorFlow 2.21 passes the variable itself and both work,
    so that case is not flagged; neither is a tape outside the function, which still sees
    the variable being read.

    ## Example
    ```python
    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def grad_of_square(v):
        with tf.GradientTape() as tape:
            y = v * v
        return tape.gradient(y, v)  # None

    grad_of_square(tf.Variable(3.0))
    ```

    ## Use instead
    ```python
    @tf.function
    def grad_of_square(v):
        with tf.GradientTape() as tape:
            y = v * v
        return tape.gradient(y, v)  # 6.0
    ```
    or capture the variable instead of passing it, or `tape.watch(v)` when the gradient
    with respect to the value is what you want.
    """

    code = "FUNC004"
    name = "variable-through-tensor-spec"
    summary = "A tf.Variable passed through an input_signature TensorSpec, then differentiated as a variable"
    severity = Severity.WARNING
    tensorflow = VersionRange(">=2.0")
    cheap_without_triggers = True
    triggers = ("input_signature",)
    examples = (
        invalid("""
            import tensorflow as tf

            @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
            def grad_of_square(v):
                with tf.GradientTape() as tape:
                    y = v * v
                return tape.gradient(y, v)

            weight = tf.Variable(3.0)
            g = grad_of_square(weight)
        """, 3, "the variable arrives as a plain tensor the tape does not watch",
            proof=Proof(check="assert g is None")),
        invalid("""
            import tensorflow as tf

            class Fitter(tf.Module):
                def __init__(self):
                    super().__init__()
                    self.scale = tf.Variable(2.0)

                @tf.function(input_signature=[tf.TensorSpec([], tf.float32), tf.TensorSpec([None], tf.float32)])
                def step(self, param, x):
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_sum((param * x - 1.0) ** 2)
                    grads = tape.gradient(loss, [param])
                    return grads[0]

                def train(self, x):
                    return self.step(self.scale, x)

            g = Fitter().train(tf.constant([1.0, 2.0]))
        """, 8, "a method passing its own variable through the signature",
            proof=Proof(check="assert g is None")),
        invalid("""
            import tensorflow as tf

            @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
            def decay(v):
                v.assign_sub(0.1)
                return v

            counter = tf.Variable(1.0)
            decay(counter)
        """, 3, "a variable method on what is now a tensor",
            proof=Proof(raises=("AttributeError", "'SymbolicTensor' object has no attribute 'assign_sub'"))),
        invalid("""
            import tensorflow as tf
            import tensorflow_probability as tfp

            scale = tfp.util.TransformedVariable(1.0, tfp.bijectors.Exp())

            @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
            def nll_grad(s):
                with tf.GradientTape() as tape:
                    nll = -tfp.distributions.Normal(0.0, s).log_prob(0.5)
                return tape.gradient(nll, s)

            g = nll_grad(scale)
        """, 6, "a TFP TransformedVariable (checked by hand with TFP 0.25: g is None; TFP is not a test dependency)"),
        valid("""
            import tensorflow as tf

            @tf.function
            def grad_of_square(v):
                with tf.GradientTape() as tape:
                    y = v * v
                return tape.gradient(y, v)

            weight = tf.Variable(3.0)
            g = grad_of_square(weight)
        """, "without input_signature the variable stays a variable (TF 2.21)",
            proof=Proof(check="assert float(g) == 6.0")),
        valid("""
            import tensorflow as tf

            @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
            def grad_of_square(v):
                with tf.GradientTape() as tape:
                    tape.watch(v)
                    y = v * v
                return tape.gradient(y, v)

            weight = tf.Variable(3.0)
            g = grad_of_square(weight)
        """, "the tape watches the tensor explicitly",
            proof=Proof(check="assert float(g) == 6.0")),
        valid("""
            import tensorflow as tf

            @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
            def square(v):
                return v * v

            weight = tf.Variable(3.0)
            with tf.GradientTape() as tape:
                y = square(weight)
            g = tape.gradient(y, weight)
        """, "a tape outside the function records the read of the variable",
            proof=Proof(check="assert float(g) == 6.0")),
        valid("""
            import tensorflow as tf

            @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
            def grad_of_square(v):
                with tf.GradientTape() as tape:
                    tape.watch(v)
                    y = v * v
                return tape.gradient(y, v)

            g = grad_of_square(tf.constant(3.0))
        """, "only tensors are passed, and watched: the signature changes nothing for a tensor",
            proof=Proof(check="assert float(g) == 6.0")),
    )

    def check(self, ctx: Context) -> None:
        facts = ctx.facts
        values = values_for(ctx)
        for tf_function in facts.tf_functions:
            signature = tf_function.input_signature
            node = tf_function.node
            if not isinstance(signature, (ast.List, ast.Tuple)) or not isinstance(
                    node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            body = facts.function_scopes.get(node)
            if body is None:
                continue
            params = values.positional_parameters(node)
            for index, spec in enumerate(signature.elts):
                if index >= len(params) or not isinstance(spec, ast.Call) or \
                        facts.imports.resolve(spec.func) != "tensorflow.TensorSpec":
                    continue
                param = params[index]
                if _rebound(node, param):
                    continue
                use = _variable_use(param, body, facts)
                if use is None:
                    continue
                caller = _caller_passing_variable(node, param, values)
                if caller is None:
                    continue
                self._report(ctx, tf_function, spec, param, use, caller)

    def _report(self, ctx: Context, tf_function: TfFunction, spec: ast.expr, param: str,
                use: tuple[ast.AST, str], caller: tuple[ast.Call, ast.expr, str]) -> None:
        use_node, what = use
        call, argument, kind = caller
        variable = "TFP TransformedVariable" if kind == TFP_VARIABLE else "tf.Variable"
        passed = ast.unparse(argument)
        if what == "gradient":
            effect = (f"`{ast.unparse(use_node.func)}(..., {param})` on {ctx.where(use_node)} silently returns None, "  # type: ignore[attr-defined]
                      "because a tape only watches variables automatically")
        else:
            effect = (f"`{param}.{what}(...)` on {ctx.where(use_node)} raises AttributeError "
                      f"\"'SymbolicTensor' object has no attribute '{what}'\"")
        ctx.report(
            spec,
            f"This TensorSpec turns the {variable} `{passed}` (passed on {ctx.where(call)}) into a plain "
            f"tensor inside the tf.function {function_name(tf_function.node)}: {effect}. Drop the "
            f"input_signature (without it the variable is passed as a variable), or capture the variable "
            f"instead of passing it.",
            related=[ctx.related(call, f"a {variable} is passed as `{param}` here"),
                     ctx.related(use_node, "the parameter is used as a variable here")],
        )


def _rebound(node: ast.AST, param: str) -> bool:
    for current in own_nodes(node):
        if isinstance(current, ast.Name) and current.id == param and isinstance(current.ctx, ast.Store):
            return True
    return False


def _variable_use(param: str, body: Scope, facts) -> tuple[ast.AST, str] | None:
    """The first `tape.gradient(y, param)` with an unwatching tape, or `param.assign(...)`."""
    for tape in facts.tapes_in(body):
        if tape.name is None:
            continue
        watched = any(_mentions(arg, param) for site in tape.uses("watch") for arg in site.node.args)
        if watched:
            continue
        for site in tape.uses(*_GRADIENT_METHODS):
            call = site.node
            sources = call.args[1] if len(call.args) > 1 else next(
                (k.value for k in call.keywords if k.arg == "sources"), None)
            if sources is not None and _is_or_lists(sources, param):
                return call, "gradient"
    for (receiver, method), sites in body.method_calls.items():
        if receiver == param and method in _VARIABLE_METHODS:
            return sites[0].node, method
    return None


def _mentions(expr: ast.expr, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(expr))


def _is_or_lists(expr: ast.expr, name: str) -> bool:
    if isinstance(expr, ast.Name):
        return expr.id == name
    if isinstance(expr, (ast.List, ast.Tuple)):
        return any(_is_or_lists(e, name) for e in expr.elts)
    if isinstance(expr, ast.Dict):
        return any(_is_or_lists(v, name) for v in expr.values)
    return False


def _caller_passing_variable(node: ast.AST, param: str, values: ValueModel) -> tuple[ast.Call, ast.expr, str] | None:
    for call, scope, bound in values.callers(node):
        expr = values.argument(call, node, param, bound)
        if expr is None:
            continue
        passed = values.value(expr, scope)
        if passed.is_or_none(VARIABLE, TFP_VARIABLE):
            return call, expr, passed.kind
    return None
