from __future__ import annotations

import ast

from ...facts.model import Facts, Scope
from ...model import Severity
from ...versions import VersionRange
from ...analysis.python_state import (Assignment, FileState, file_state, function_label, own_nodes, self_attribute,
                            traced_scopes)
from ...analysis.values import LIST, NDARRAY, TUPLE, values_for
from ..base import Context, Proof, Rule, invalid, valid

# Calls that make a Python iterator from Python data.
_PYTHON_ITERATORS = frozenset({"iter", "enumerate", "zip", "map", "filter", "reversed"})
_ITERTOOLS = "itertools."
_PYTHON_DATA = (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.ListComp, ast.SetComp, ast.DictComp,
                ast.GeneratorExp, ast.Constant, ast.JoinedStr)


class PythonIteratorNext(Rule):
    """
    ## What it does
    Finds `next(it)` in the body of a `tf.function` when `it` is a Python iterator or
    generator defined outside the function: `iter(a_list)`, `zip(...)`, `itertools.*`,
    a generator expression, or the result of a generator function.

    ## Why is this bad?
    TensorFlow runs the Python body of a tf.function only while it traces it. `next(it)`
    runs once, at trace time, and the element it returned is baked into the graph as a
    constant: every later call sees that same element, and the iterator does not advance.
    A `tf.data` iterator is different: `next()` on it becomes an op that runs on every
    call.

    ## Example
    ```python
    batches = iter(python_batches)

    @tf.function
    def train_step():
        x = next(batches)     # the first batch, on every call
        ...
    ```

    ## Use instead
    ```python
    batches = iter(tf.data.Dataset.from_tensor_slices(python_batches))

    @tf.function
    def train_step():
        x = next(batches)     # a new element on every call
        ...
    ```
    or take the element outside the function and pass it in: `train_step(next(batches))`.
    """

    code = "FUNC012"
    name = "python-iterator-next-in-tf-function"
    summary = "next() on a Python iterator inside a tf.function returns the same element on every call"
    severity = Severity.WARNING
    tensorflow = VersionRange(">=2.0")
    triggers = ("next(",)
    examples = (
        invalid("""
            import tensorflow as tf

            batches = iter([1.0, 2.0, 3.0])

            @tf.function
            def train_step(w):
                x = next(batches)
                return w * x

            seen = [float(train_step(tf.constant(1.0))) for _ in range(3)]
        """, 7, "a Python list iterator",
            proof=Proof(check="assert seen == [1.0, 1.0, 1.0], seen")),
        invalid("""
            import numpy as np
            import tensorflow as tf

            def make_batches(n=3):
                out = []
                for i in range(n):
                    out.append(np.full([2], i + 1.0, np.float32))
                return out

            batches = iter(make_batches())

            @tf.function
            def train_step():
                return tf.reduce_sum(next(batches))

            sums = [float(train_step()) for _ in range(3)]
        """, 14, "an iterator over the list a function of the file returns",
            proof=Proof(check="assert sums == [2.0, 2.0, 2.0], sums")),
        invalid("""
            import numpy as np
            import tensorflow as tf

            def batch_generator():
                step = 0
                while True:
                    step += 1
                    yield np.full([2], step, np.float32)

            class Trainer(tf.Module):
                def __init__(self):
                    self.batches = batch_generator()

                @tf.function
                def step(self):
                    return tf.reduce_sum(next(self.batches))

            trainer = Trainer()
            sums = [float(trainer.step()) for _ in range(3)]
        """, 16, "a generator kept on self",
            proof=Proof(check="assert sums == [2.0, 2.0, 2.0], sums")),
        valid("""
            import tensorflow as tf

            batches = iter(tf.data.Dataset.from_tensor_slices([1.0, 2.0, 3.0]))

            @tf.function
            def train_step(w):
                x = next(batches)
                return w * x

            seen = [float(train_step(tf.constant(1.0))) for _ in range(3)]
        """, "a tf.data iterator advances on every call",
            proof=Proof(check="assert seen == [1.0, 2.0, 3.0], seen")),
        valid("""
            import tensorflow as tf

            batches = iter([1.0, 2.0, 3.0])

            @tf.function
            def train_step(w, x):
                return w * x

            seen = [float(train_step(tf.constant(1.0), tf.constant(next(batches)))) for _ in range(3)]
        """, "next() outside the function, the element passed in",
            proof=Proof(check="assert seen == [1.0, 2.0, 3.0], seen")),
    )

    def check(self, ctx: Context) -> None:
        state = file_state(ctx.facts)
        for scope in traced_scopes(ctx.facts):
            for node in state.own(scope.node, (ast.Call,)):
                if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "next"
                        and node.args and state.is_builtin(scope, "next")):
                    continue
                found = _python_iterator(node.args[0], scope, state, ctx.facts, lambda: values_for(ctx))
                if found is None:
                    continue
                label, defined = found
                traced = scope.traced_by
                assert traced is not None
                fn = function_label(traced)
                ctx.report(
                    node,
                    f"`next({label})` runs only while TensorFlow traces {fn}: the element it returns then is "
                    f"baked into the graph, so every call gets that same element and `{label}` does not "
                    "advance. Take the element outside and pass it in (`f(next(it))`), or iterate a "
                    "`tf.data.Dataset`, whose iterator advances on every call.",
                    related=[ctx.related(defined, f"`{label}` is a Python iterator made here"),
                             ctx.related(traced.origin, "traced by this tf.function")],
                )


def _python_iterator(expr: ast.expr, scope: Scope, state: FileState, facts: Facts, values=None):
    """(label, defining node) when `expr` names a Python iterator bound outside the trace."""
    if isinstance(expr, ast.Name):
        defining = state.defining_scope(scope, expr.id)
        if defining is None or (defining.kind != "module" and defining.traced_by is not None):
            return None
        bindings = state.names(defining).bindings.get(expr.id, [])
        label = expr.id
    else:
        attr = self_attribute(expr)
        cls = state.class_of(scope) if attr else None
        if cls is None:
            return None
        bindings = state.class_attrs(cls).get(attr, [])  # type: ignore[arg-type]
        label = f"self.{attr}"
    if not bindings or not all(_makes_python_iterator(b, state, facts, values) for b in bindings):
        return None
    return label, bindings[0].stmt


def _makes_python_iterator(binding: Assignment, state: FileState, facts: Facts, values=None) -> bool:
    if binding.kind != "assign" or binding.value is None:
        return False
    value = binding.value
    if isinstance(value, ast.GeneratorExp):
        return True
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    if isinstance(func, ast.Name) and func.id in _PYTHON_ITERATORS and func.id not in facts.imports.names:
        return bool(value.args) and all(_python_data(a, facts) or _python_container(a, binding, values)
                                        for a in value.args)
    qualname = facts.imports.resolve(func)
    if qualname is not None and qualname.startswith(_ITERTOOLS):
        return True
    return _generator_function(func, facts) is not None


def _python_container(expr: ast.expr, binding: Assignment, values) -> bool:
    """`iter(make_batches())`: the value model says the argument is certainly a Python list or
    tuple, or a NumPy array (a function of this file that returns one), never a Dataset."""
    if values is None or not isinstance(expr, (ast.Call, ast.Name)):
        return False
    model = values()
    return model.value(expr, model.scope_at(binding.stmt)).is_(LIST, TUPLE, NDARRAY)


def _python_data(expr: ast.expr, facts: Facts) -> bool:
    """Python values (literals, comprehensions, range(), NumPy arrays), never a tf.data Dataset."""
    if isinstance(expr, _PYTHON_DATA):
        return True
    if isinstance(expr, ast.Call):
        if isinstance(expr.func, ast.Name) and expr.func.id in ("range", "list", "tuple", "sorted") \
                and expr.func.id not in facts.imports.names:
            return True
        qualname = facts.imports.resolve(expr.func) or ""
        return qualname.startswith("numpy.")
    return False


def _generator_function(func: ast.expr, facts: Facts) -> ast.AST | None:
    """The def of a generator function (one that yields) called as `gen()` or `self.gen()`."""
    name = func.id if isinstance(func, ast.Name) else self_attribute(func)
    if name is None:
        return None
    for node in facts.function_scopes:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name \
                and any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in own_nodes(node)):
            return node
    return None

