from __future__ import annotations

import ast

from ...analysis.python_state import function_label, own_nodes
from ...analysis.values import FUNCTION, TF_FUNCTION, ValueModel, values_for
from ...facts.model import Scope
from ...model import Severity
from ...versions import VersionRange
from ..base import Context, Proof, Rule, invalid, valid


class RecursiveTfFunction(Rule):
    """
    ## What it does
    Finds a `tf.function` whose body calls the same tf.function again: `return f(n - 1)`
    inside `f`, or `self.step(...)` inside the tf.function method `step`.

    ## Why is this bad?
    TensorFlow does not support recursive tf.functions. Each call made while tracing
    traces again:

    - with a tensor argument, AutoGraph turns the `if n > 0:` that should end the
      recursion into a `tf.cond` and traces both branches, so the recursion never ends:
      `StagingError ... RecursionError: maximum recursion depth exceeded`;
    - with a Python argument, every depth is a trace of its own (`f(5)` traces six times),
      and every new value traces the whole chain again.

    ## Example
    ```python
    @tf.function
    def countdown(n):
        if n > 0:
            return countdown(n - 1)
        return n
    ```

    ## Use instead
    A loop, which AutoGraph turns into one `tf.while_loop`:
    ```python
    @tf.function
    def countdown(n):
        while n > 0:
            n -= 1
        return n
    ```
    """

    code = "FUNC019"
    name = "recursive-tf-function"
    summary = "A tf.function that calls itself: it never finishes tracing with tensors, and traces once per depth with Python values"
    severity = Severity.WARNING
    tensorflow = VersionRange(">=2.0")
    cheap_without_triggers = True
    triggers = ("function",)
    examples = (
        invalid("""
            import tensorflow as tf

            @tf.function
            def recursive_fn(n):
                if n > 0:
                    return recursive_fn(n - 1)
                else:
                    return 1

            result = recursive_fn(tf.constant(5))
        """, 6, "a tensor argument: the recursion never ends",
            proof=Proof(raises=("StagingError", "maximum recursion depth exceeded"))),
        invalid("""
            import tensorflow as tf

            traces = []

            @tf.function
            def factorial(n):
                traces.append(n)
                if n <= 1:
                    return tf.constant(1)
                return n * factorial(n - 1)

            result = int(factorial(5))
        """, 10, "a Python argument: one trace per depth",
            proof=Proof(check="assert result == 120 and len(traces) == 5, (result, traces)")),
        invalid("""
            import tensorflow as tf

            class Walker(tf.Module):
                @tf.function
                def walk(self, n):
                    if n > 0:
                        return self.walk(n - 1)
                    return n

            walker = Walker()
            result = walker.walk(tf.constant(3))
        """, 7, "a tf.function method calling itself",
            proof=Proof(raises=("StagingError", "maximum recursion depth exceeded"))),
        valid("""
            import tensorflow as tf

            @tf.function
            def countdown(n):
                while n > 0:
                    n -= 1
                return n

            result = int(countdown(tf.constant(5)))
        """, "a loop instead of recursion",
            proof=Proof(check="assert result == 0, result")),
        valid("""
            import tensorflow as tf

            def factorial(n):
                return 1 if n <= 1 else n * factorial(n - 1)

            @tf.function
            def scaled(x):
                return x * factorial(4)

            result = float(scaled(tf.constant(2.0)))
        """, "a recursive plain Python helper called from a tf.function",
            proof=Proof(check="assert result == 48.0, result")),
    )

    def check(self, ctx: Context) -> None:
        facts = ctx.facts
        values: ValueModel | None = None
        for tf_function in facts.tf_functions:
            function = tf_function.node
            if tf_function.kind != "decorator" or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            scope = facts.function_scopes.get(function)
            if scope is None:
                continue
            for node in own_nodes(function):
                if not isinstance(node, ast.Call) or not _names_itself(node.func, function, scope):
                    continue
                if values is None:
                    values = values_for(ctx)
                if not _same_function(values, node, scope, function):
                    continue
                label = function_label(tf_function)
                ctx.report(
                    node,
                    f"{label} calls itself. TensorFlow does not support recursive tf.functions: every call "
                    "made while tracing traces again, so with a tensor argument the recursion never ends "
                    "(AutoGraph traces both branches of the `if` that should stop it; `RecursionError`), "
                    "and with a Python argument every depth is a trace of its own. Write it as a loop, "
                    "which becomes one `tf.while_loop`.",
                    related=[ctx.related(tf_function.origin, "the tf.function")],
                )


def _names_itself(func: ast.expr, function: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope) -> bool:
    if isinstance(func, ast.Name):
        return func.id == function.name
    method = scope.parent is not None and scope.parent.kind == "class"
    args = function.args.posonlyargs + function.args.args
    return method and bool(args) and isinstance(func, ast.Attribute) and func.attr == function.name \
        and isinstance(func.value, ast.Name) and func.value.id == args[0].arg


def _same_function(values: ValueModel, call: ast.Call, scope: Scope, function: ast.AST) -> bool:
    """The value model says the call runs this same tf.function (the name is not rebound)."""
    if isinstance(call.func, ast.Attribute):
        receiver = values.value(call.func.value, scope)
        cls = receiver.user_class
        return cls is not None and scope.parent is not None and cls is scope.parent.node
    called = values.value(call.func, scope)
    if called.is_(TF_FUNCTION):
        target = called.ref
        if target is not None and getattr(target, "kind", None) == FUNCTION and target.ref is function:
            return True
    # The name bound several times (a notebook that defines it again in a later cell): recursive
    # whichever it is at the call, when every binding is a tf.function def of that name, this one too.
    assert isinstance(call.func, ast.Name)
    defs, _ = values.definitions(call.func.id, scope, call)
    return any(d.stmt is function for d in defs) and all(
        d.kind == "def" and isinstance(d.stmt, (ast.FunctionDef, ast.AsyncFunctionDef))
        and _decorated_tf_function(values, d.stmt) for d in defs)


def _decorated_tf_function(values: ValueModel, function: ast.AST) -> bool:
    scope = values.facts.function_scopes.get(function)
    return scope is not None and scope.tf_function is not None and scope.tf_function.kind == "decorator"
