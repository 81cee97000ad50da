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
    call. But an iterator *made* inside the function (`it = iter(ds)` in the body, then
    `next(it)` / `it.get_next()`) is made again by every call, and starts at the first
    element each time: reported at the `iter(...)` when the file calls the function in a
    loop with the same dataset and the body takes elements outside any loop of its own.

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
        invalid("""
            import tensorflow as tf

            dataset = tf.data.Dataset.from_tensor_slices([1, 3, 4, 5])

            @tf.function
            def next_value(ds):
                iterator = iter(ds)
                return iterator.get_next()

            values = [int(next_value(dataset)) for _ in range(3)]
        """, 7, "a tf.data iterator made inside the function (tensorflow/tensorflow#55359): a new one per call",
            proof=Proof(check="assert values == [1, 1, 1], values")),
        invalid("""
            import tensorflow as tf

            dataset = tf.data.Dataset.range(10)

            @tf.function
            def step():
                return next(iter(dataset)) * 2

            outs = []
            for _ in range(3):
                outs.append(int(step()))
        """, 7, "next(iter(ds)) on a captured dataset, called in a loop",
            proof=Proof(check="assert outs == [0, 0, 0], outs")),
        valid("""
            import tensorflow as tf

            dataset = tf.data.Dataset.from_tensor_slices([1, 3, 4, 5])
            iterator = iter(dataset)

            @tf.function
            def next_value(it):
                return it.get_next()

            values = [int(next_value(iterator)) for _ in range(3)]
        """, "the iterator made once, outside, and passed in: it advances",
            proof=Proof(check="assert values == [1, 3, 4], values")),
        valid("""
            import tensorflow as tf

            @tf.function
            def first_value(ds):
                return next(iter(ds))

            firsts = [int(first_value(tf.data.Dataset.range(k, 10))) for k in range(3)]
        """, "a new dataset on every call: its first element is what is asked for",
            proof=Proof(check="assert firsts == [0, 1, 2], firsts")),
        valid("""
            import tensorflow as tf

            dataset = tf.data.Dataset.range(4)

            @tf.function
            def total(ds):
                it = iter(ds)
                s = tf.constant(0, tf.int64)
                for _ in tf.range(4):
                    s += next(it)
                return s

            sums = [int(total(dataset)) for _ in range(2)]
        """, "the iterator is consumed by a loop inside the call: one pass per call is the intent",
            proof=Proof(check="assert sums == [6, 6], sums")),
    )

    def check(self, ctx: Context) -> None:
        state = file_state(ctx.facts)
        _iterators_per_call(ctx, state)
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



# --- an iterator made inside the traced body -------------------------------------------------

_LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _iterators_per_call(ctx: Context, state: FileState) -> None:
    """`it = iter(ds)` (or `next(iter(ds))`) in the body of a tf.function, advanced there with
    `next(it)` / `it.get_next()` outside any loop of the body, while the file calls the
    tf.function in a loop with the same `ds`: every call runs the graph's iterator op again,
    which makes a new iterator, so every call gets the first element(s)."""
    facts = ctx.facts
    for tf_function in facts.tf_functions:
        node = tf_function.node
        scope = facts.function_scopes.get(node) if node is not None else None
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or scope is None:
            continue
        params = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
        for call in state.own(node, (ast.Call,)):
            if not (isinstance(call.func, ast.Name) and call.func.id == "iter" and len(call.args) == 1
                    and not call.keywords and state.is_builtin(scope, "iter")):
                continue
            source = call.args[0]
            if not isinstance(source, ast.Name) or _in_loop(call, node, facts):
                continue
            bound = source.id in params or state.defining_scope(scope, source.id) is not scope
            if not bound or not _advanced_once(call, node, state, facts):
                continue
            loop = _called_in_loop(facts, node, params.index(source.id) if source.id in params else None,
                                   source.id)
            if loop is None:
                continue
            label = function_label(tf_function)
            ctx.report(
                call,
                f"`iter({source.id})` makes a new iterator on every call of the tf.function {label}: the "
                "graph runs the iterator op again each time, so every call starts at the first element and "
                f"the calls in the loop on {facts.line_label(loop.lineno)} all get the same element(s). "
                f"Make the iterator once, outside the function (`it = iter({source.id})`), and pass it in or "
                "capture it: `next(it)` on a tf.data iterator advances on every call.",
                related=[ctx.related(loop, "calls the tf.function repeatedly with the same data")],
            )


def _in_loop(node: ast.AST, function: ast.AST, facts: Facts) -> bool:
    from ...analysis.guards import ancestors

    for _child, parent in ancestors(node, facts):
        if parent is function:
            return False
        if isinstance(parent, _LOOPS):
            return True
    return False


def _advanced_once(call: ast.Call, function: ast.AST, state: FileState, facts: Facts) -> bool:
    """The iterator `call` makes is advanced in the body outside any loop (`next(iter(ds))`,
    `it.get_next()`, `next(it)`), and not handed on (returned, stored) as an iterator."""
    from ...analysis.guards import parents

    parent = parents(facts).get(call)
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "next":
        return True
    if isinstance(parent, ast.Attribute) and parent.attr == "get_next":
        return True
    if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name)):
        return False
    name = parent.targets[0].id
    advanced = False
    for node in state.own(function, (ast.Name,)):
        if node.id != name or not isinstance(node.ctx, ast.Load):
            continue
        user = parents(facts).get(node)
        if isinstance(user, ast.Call) and isinstance(user.func, ast.Name) and user.func.id == "next" \
                and user.args and user.args[0] is node:
            if _in_loop(user, function, facts):
                return False
            advanced = True
        elif isinstance(user, ast.Attribute) and user.attr == "get_next":
            if _in_loop(user, function, facts):
                return False
            advanced = True
        else:
            return False  # returned, stored, looped over: not only advanced here
    return advanced


def _called_in_loop(facts: Facts, function: ast.FunctionDef | ast.AsyncFunctionDef, position: int | None,
                    name: str) -> ast.AST | None:
    """A loop of the file that calls `function` by its name with the same `name` (for a
    parameter: the argument at `position` is a name the loop does not rebind); for a captured
    name, any loop calling it."""
    from ...analysis.guards import ancestors

    for site in facts.calls:
        func = site.node.func
        if not (isinstance(func, ast.Name) and func.id == function.name):
            continue
        argument = None
        if position is not None:
            if position >= len(site.node.args):
                continue
            argument = site.node.args[position]
            if not isinstance(argument, ast.Name):
                continue
        for _child, parent in ancestors(site.node, facts):
            if parent is function:
                break
            if isinstance(parent, _LOOPS):
                if argument is not None and _rebinds(parent, argument.id):
                    break
                return parent
    return None


def _rebinds(loop: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, (ast.Store, ast.Del))
               for n in ast.walk(loop))
