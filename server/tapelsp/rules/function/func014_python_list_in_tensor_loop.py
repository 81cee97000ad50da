from __future__ import annotations

import ast

from ...facts.model import Facts, TfFunction
from ...model import Severity
from ...versions import VersionRange
from ...facts.walk import body_nodes
from ...analysis.traced import function_name, keras3_calls, traced_function_nodes, traced_functions
from ...analysis.values import BUILTIN, TENSOR, VARIABLE, ValueModel, values_for
from ..base import Context, Proof, Rule, invalid, valid

OUT_OF_SCOPE = ("InaccessibleTensorError \"<tf.Tensor 'while/...'> is out of scope and cannot be used here. "
                "Use return values, explicit Python locals or TensorFlow collections to access it.\"")
_GROW = ("append", "extend", "insert")


class PythonListInTensorLoop(Rule):
    """
    ## What it does
    Finds a Python list, created in a `tf.function`, that is appended to inside a loop
    AutoGraph turns into a `tf.while_loop`: `for i in tf.range(n)`, `for row in tensor`,
    `for i in range(n)` with a tensor `n`, or `while` on a tensor condition.

    ## Why is this bad?
    A TensorFlow loop traces its body once, into the loop's own graph. The list is
    appended to once, during that trace, with a tensor of the loop body. Stacking or
    otherwise using it after the loop raises
    `InaccessibleTensorError: <tf.Tensor 'while/mul:0' ...> is out of scope and cannot be
    used here.`; `len()` of it is 1 whatever the number of iterations, silently.

    ## Example
    ```python
    @tf.function
    def squares(n):
        out = []
        for i in tf.range(n):
            out.append(i * i)
        return tf.stack(out)
    ```

    ## Use instead
    ```python
    @tf.function
    def squares(n):
        out = tf.TensorArray(tf.int32, size=n)
        for i in tf.range(n):
            out = out.write(i, i * i)
        return out.stack()
    ```
    """

    code = "FUNC014"
    name = "python-list-in-tensor-loop"
    summary = "A Python list appended to in a loop AutoGraph converts to tf.while_loop"
    severity = Severity.ERROR
    tensorflow = VersionRange(">=2.0")
    cheap_without_triggers = True
    triggers = ("append", "extend", "insert", "+=")
    examples = (
        invalid("""
            import tensorflow as tf

            @tf.function
            def squares(n):
                out = []
                for i in tf.range(n):
                    out.append(i * i)
                return tf.stack(out)

            squares(tf.constant(4))
        """, 7, "the catalogue's loop over tf.range, then stacked",
            proof=Proof(raises=("InaccessibleTensorError", "is out of scope and cannot be used here"))),
        invalid("""
            import tensorflow as tf

            @tf.function
            def count_positive(x):
                found = []
                for value in x:
                    if value > 0:
                        found.append(value)
                return len(found)

            n = count_positive(tf.constant([1.0, -2.0, 3.0, 4.0]))
        """, 8, "iterating a tensor: the list has one entry, silently",
            proof=Proof(check="assert int(n) == 1, int(n)")),
        invalid("""
            import tensorflow as tf

            @tf.function
            def collatz(n):
                steps = []
                while n > 1:
                    n = tf.where(n % 2 == 0, n // 2, 3 * n + 1)
                    steps.append(n)
                return tf.stack(steps)

            collatz(tf.constant(6))
        """, 8, "a while loop on a tensor condition",
            proof=Proof(raises=("InaccessibleTensorError", "is out of scope"))),
        invalid("""
            import tensorflow as tf

            @tf.function
            def squares(n):
                out = []
                for i in tf.range(n):
                    out += [i * i]
                return tf.stack(out)

            squares(tf.constant(4))
        """, 7, "`+=` makes the list a loop variable that changes structure",
            proof=Proof(raises=("TypeError", "does not have the same nested structure after one iteration"))),
        valid("""
            import tensorflow as tf

            @tf.function
            def squares(n):
                out = tf.TensorArray(tf.int32, size=n)
                for i in tf.range(n):
                    out = out.write(i, i * i)
                return out.stack()

            result = squares(tf.constant(4))
        """, "tf.TensorArray",
            proof=Proof(check="assert result.numpy().tolist() == [0, 1, 4, 9]")),
        valid("""
            import tensorflow as tf

            @tf.function
            def powers(x):
                out = []
                for k in range(3):
                    out.append(x ** k)
                return tf.stack(out)

            result = powers(tf.constant(2.0))
        """, "a Python range is unrolled while tracing: the list is fine",
            proof=Proof(check="assert result.numpy().tolist() == [1.0, 2.0, 4.0]")),
        valid("""
            import tensorflow as tf

            def squares(n):
                out = []
                for i in tf.range(n):
                    out.append(i * i)
                return tf.stack(out)

            result = squares(tf.constant(3))
        """, "eager code: the loop runs in Python",
            proof=Proof(check="assert result.numpy().tolist() == [0, 1, 4]")),
        valid("""
            import tensorflow as tf

            inputs = {"a": tf.keras.Input((2,)), "b": tf.keras.Input((2,))}
            extra = tf.keras.Input((1,))
            outputs = {key: tf.keras.layers.Dense(2)(x) for key, x in inputs.items()}
            model = tf.keras.Model(inputs=(inputs, extra), outputs=(outputs, extra))

            @tf.function
            def total(features, extra):
                activations, _ = model((features, extra))
                losses = []
                for key in activations:
                    losses.append(tf.reduce_mean(activations[key]))
                return sum(losses)

            result = total({"a": tf.ones((4, 2)), "b": tf.ones((4, 2))}, tf.ones((4, 1)))
        """, "an output of a model with several outputs may be a dict: the loop over its keys is unrolled",
            proof=Proof(check="assert result.shape == ()")),
    )

    def check(self, ctx: Context) -> None:
        facts = ctx.facts
        values = values_for(ctx)
        for tf_function, node in traced_function_nodes(facts):
            if tf_function.flag("autograph") is False:
                continue  # without AutoGraph there is no TF loop (FUNC015)
            for function in sorted(traced_functions(facts, tf_function, values), key=lambda n: (n.lineno, n.col_offset)):
                scope = facts.function_scopes.get(function)
                if scope is None or (scope.tf_function is not None and scope.tf_function is not tf_function) \
                        or id(function) in keras3_calls(values):
                    continue  # (Keras 3 runs a layer's call without AutoGraph: no TF loop there)
                self._check_function(ctx, tf_function, node, function, values)

    def _check_function(self, ctx: Context, tf_function: TfFunction, traced: ast.AST, function: ast.AST,
                        values: ValueModel) -> None:
        lists = _local_lists(ctx.facts, function)
        if not lists:
            return
        reported: set[int] = set()
        for loop in body_nodes(ctx.facts, function, (ast.For, ast.AsyncFor, ast.While)):
            if not _tensor_loop(loop, values):
                continue
            for node in body_nodes(ctx.facts, loop, (ast.Call, ast.AugAssign)):
                grown = _grown_list(node)
                if grown is None or id(node) in reported:
                    continue
                name, _ = grown
                created = lists.get(name)
                if created is None or _inside(created, loop):
                    continue
                reported.add(id(node))
                header = loop.iter if isinstance(loop, (ast.For, ast.AsyncFor)) else loop.test
                if isinstance(node, ast.AugAssign):
                    symptom = ("`+=` rebinds it, so AutoGraph makes it a loop variable whose structure changes: "
                               f"TypeError \"'{name}' does not have the same nested structure after one iteration.\"")
                else:
                    symptom = ("the body is traced once, so the list gets one tensor of the loop's graph. Using it "
                               "after the loop raises " + OUT_OF_SCOPE + "; its len() is 1 whatever the "
                               "iteration count")
                ctx.report(
                    node,
                    f"`{name}` is a Python list grown inside a loop that AutoGraph turns into a tf.while_loop "
                    f"in the tf.function {function_name(traced)}: {symptom}. Use tf.TensorArray "
                    "(`ta = ta.write(i, v)`, then `ta.stack()`).",
                    related=[ctx.related(header, "this loop runs as a tf.while_loop"),
                             ctx.related(created, "the list is created here")],
                )


def _local_lists(facts: Facts, function: ast.AST) -> dict[str, ast.stmt]:
    """Names assigned an empty list (`[]`, `list()`) in the function body."""
    found: dict[str, ast.stmt] = {}
    for node in body_nodes(facts, function, (ast.Assign, ast.AnnAssign)):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            value = node.value
            is_list = isinstance(value, ast.List) or (
                isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "list"
                and not value.args)
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    if is_list:
                        found.setdefault(target.id, node)
                    else:
                        found.pop(target.id, None)
    return found


def _tensor_loop(loop: ast.stmt, values: ValueModel) -> bool:
    """A loop AutoGraph turns into a tf.while_loop: over a tensor, while a tensor condition, or
    over `range(n)` with a tensor `n` (AutoGraph makes it tf.range)."""
    if isinstance(loop, ast.While):
        return values.value(loop.test).is_(TENSOR)
    iterable = loop.iter  # type: ignore[attr-defined]
    if values.value(iterable).is_(TENSOR):
        return True
    if not isinstance(iterable, ast.Call):
        return False
    func = values.value(iterable.func)
    return func.kind == BUILTIN and func.ref == "range" and any(values.value(a).is_(TENSOR, VARIABLE) for a in iterable.args)


def _grown_list(node: ast.AST) -> tuple[str, ast.AST] | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _GROW \
            and isinstance(node.func.value, ast.Name):
        return node.func.value.id, node
    if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and isinstance(node.target, ast.Name) \
            and isinstance(node.value, (ast.List, ast.Tuple)):
        return node.target.id, node
    return None


def _inside(node: ast.AST, container: ast.AST) -> bool:
    return (container.lineno, container.col_offset) <= (node.lineno, node.col_offset) \
        and (node.end_lineno or node.lineno) <= (container.end_lineno or container.lineno)
