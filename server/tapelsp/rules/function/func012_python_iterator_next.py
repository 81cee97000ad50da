from __future__ import annotations

import ast

from ...facts.model import Facts, Scope
from ...model import Severity
from ...versions import VersionRange
from ...analysis.python_state import (Assignment, FileState, file_state, function_label, own_nodes, self_attribute,
                            traced_scopes)
from ...analysis.values import FUNCTION, LIST, METHOD, NDARRAY, TF_FUNCTION, TUPLE, Value, values_for
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

    A Python iterator *passed in* as an argument is no better: TensorFlow keys the trace on
    the iterator object's identity, so a second call with the same iterator does not trace
    again and replays the element `next(it)` read while tracing (the tf.function guide's
    `buggy_consume_next`). Reported on the `next(param)` when the file calls the function
    twice with the same Python iterator, or in a loop the iterator was made outside of; a
    tf.data iterator passed in (`iter(dataset)`) is traced as one, and advances.

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
    cheap_without_triggers = True
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
        invalid("""
            import tensorflow as tf

            @tf.function
            def consume_next(iterator):
                return next(iterator)

            iterator = iter([1, 2, 3])
            first = int(consume_next(iterator))
            second = int(consume_next(iterator))
            third = int(consume_next(iterator))
        """, 5, "a Python iterator passed in, three calls with the same one (function guide, cell 90)",
            proof=Proof(check="assert [first, second, third] == [1, 1, 1], (first, second, third)\n"
                              "assert consume_next.experimental_get_tracing_count() == 1")),
        invalid("""
            import numpy as np
            import tensorflow as tf

            def batches():
                step = 0
                while True:
                    step += 1
                    yield np.full([2], step, np.float32)

            @tf.function
            def train_step(source):
                return tf.reduce_sum(next(source))

            source = batches()
            sums = [float(train_step(source)) for _ in range(3)]
        """, 12, "a generator passed in, the calls in a loop",
            proof=Proof(check="assert sums == [2.0, 2.0, 2.0], sums")),
        valid("""
            import tensorflow as tf

            @tf.function
            def consume_next(iterator):
                return next(iterator)

            iterator = iter(tf.data.Dataset.from_tensor_slices([1, 2, 3]))
            values = [int(consume_next(iterator)) for _ in range(3)]
        """, "a tf.data iterator passed in: TensorFlow traces it as one, and next() runs on every call",
            proof=Proof(check="assert values == [1, 2, 3], values")),
        valid("""
            import tensorflow as tf

            @tf.function
            def first_of(iterator):
                return next(iterator)

            rows = [[1, 2], [3, 4], [5, 6]]
            firsts = []
            for row in rows:
                it = iter(row)
                firsts.append(int(first_of(it)))
        """, "a new Python iterator for every call: each call traces, and reads that iterator's first element",
            proof=Proof(check="assert firsts == [1, 3, 5], firsts")),
    )

    def check(self, ctx: Context) -> None:
        state = file_state(ctx.facts)
        _iterators_per_call(ctx, state)
        if ctx.facts.tf_functions:
            _iterators_passed_in(ctx, state, values_for(ctx))
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


# --- a Python iterator passed in as an argument ----------------------------------------------

def _iterators_passed_in(ctx: Context, state: FileState, values) -> None:
    """`next(p)` in a tf.function whose parameter `p` receives, at calls of the file, one
    Python iterator more than once (two calls with the name bound by the same statement, or a
    call in a loop the binding is outside of). TensorFlow keys traces on a plain Python object
    by its identity: the second call with the same iterator does not trace again, and the
    graph replays the element `next` read while tracing."""
    from ...facts.dataflow import flow_at, flow_of

    facts = ctx.facts
    for tf_function in facts.tf_functions:
        node = tf_function.node
        scope = facts.function_scopes.get(node) if node is not None else None
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or scope is None \
                or tf_function.input_signature is not None:
            continue
        params = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
        body_flow = flow_of(facts, scope)
        nexts: dict[str, list[ast.Call]] = {}
        for call in state.own(node, (ast.Call,)):
            if not (isinstance(call.func, ast.Name) and call.func.id == "next" and call.args
                    and isinstance(call.args[0], ast.Name) and call.args[0].id in params
                    and state.is_builtin(scope, "next")):
                continue
            name = call.args[0].id
            if all(d.kind == "param" for d in body_flow.reaching(name, call)):
                nexts.setdefault(name, []).append(call)
        if not nexts:
            continue
        method = scope.parent is not None and scope.parent.kind == "class" and not any(
            isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)
        by_binding: dict[str, dict[int, tuple[object, list]]] = {}
        for site in facts.calls:
            if not _calls(site, node, tf_function, values):
                continue
            bound = isinstance(site.node.func, ast.Attribute) and method
            for name in nexts:
                arg = _argument_for(site.node, params, name, skip=1 if bound else 0)
                if not isinstance(arg, ast.Name):
                    continue
                flow = flow_at(facts, site.node)
                reaching = flow.reaching(arg.id, site.node) if flow is not None else []
                if len(reaching) != 1 or not _makes_python_iterator(reaching[0], state, facts,  # type: ignore[arg-type]
                                                                  lambda: values):
                    continue
                binding = reaching[0]
                entry = by_binding.setdefault(name, {}).setdefault(id(binding.stmt), (binding, []))
                entry[1].append((site, arg))
        for name, groups in by_binding.items():
            for binding, sites in groups.values():
                loop = next((lp for site, _ in sites for lp in _loops_around(site.node, site.scope, facts)
                             if not _inside(binding.stmt, lp)), None)
                if len(sites) < 2 and loop is None:
                    continue
                site, arg = sites[0]
                label = function_label(tf_function)
                if loop is not None:
                    how = f"the call in the loop on {facts.line_label(loop.lineno)} passes"
                else:
                    lines = ", ".join(facts.line_label(s.node.lineno) for s, _ in sites)
                    how = f"the calls on {lines} pass"
                for call in nexts[name]:
                    ctx.report(
                        call,
                        f"`next({name})` runs only while TensorFlow traces {label}, and {how} it the same "
                        f"Python iterator `{arg.id}`: TensorFlow keys traces on a Python object by its "
                        "identity, so the later calls do not trace again and reuse the element read while "
                        f"tracing; `{arg.id}` does not advance. Pass a tf.data iterator "
                        "(`iter(tf.data.Dataset.from_tensor_slices(...))`), whose `next` runs on every call, "
                        "or take the element outside and pass the element itself as a tensor "
                        f"(`{label.strip('`')}(tf.constant(next({arg.id})))`, without `next` in the body).",
                        related=[ctx.related(binding.stmt, f"`{arg.id}` is a Python iterator made here"),
                                 ctx.related(loop if loop is not None else sites[1][0].node,
                                             "calls the tf.function again with the same iterator"),
                                 ctx.related(tf_function.origin, "traced by this tf.function")],
                    )


def _calls(site, node: ast.FunctionDef | ast.AsyncFunctionDef, tf_function, values) -> bool:
    """Does the call at `site` call the tf.function `tf_function` (whose def is `node`)?"""
    func = site.node.func
    if not isinstance(func, (ast.Name, ast.Attribute)):
        return False
    if isinstance(func, ast.Attribute) and func.attr != node.name and tf_function.kind == "decorator":
        return False
    called = values.value(func, site.scope)
    if called.is_(METHOD) and called.home is None:
        return called.origin is node  # a method of a class of the file, the decorated def
    if not called.is_(TF_FUNCTION) or called.home is not None:
        return False
    if called.origin is tf_function.origin:
        return True
    target = called.ref
    return isinstance(target, Value) and target.kind == FUNCTION and target.ref is node and target.home is None


def _argument_for(call: ast.Call, params: list[str], name: str, skip: int) -> ast.expr | None:
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    index = params.index(name) - skip
    if index < 0 or any(isinstance(a, ast.Starred) for a in call.args[:index + 1]):
        return None
    return call.args[index] if index < len(call.args) else None


def _loops_around(node: ast.AST, scope, facts: Facts) -> list[ast.AST]:
    """The loops (statements and comprehensions) around `node` in its own function or module."""
    from ...analysis.guards import ancestors

    found = []
    for _child, parent in ancestors(node, facts):
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            break
        if isinstance(parent, _LOOPS):
            found.append(parent)
    return found


def _inside(node: ast.AST, outer: ast.AST) -> bool:
    return node is not outer and (getattr(outer, "lineno", 0), getattr(outer, "col_offset", 0)) <= \
        (getattr(node, "lineno", 0), getattr(node, "col_offset", 0)) and \
        (getattr(node, "end_lineno", 0), getattr(node, "end_col_offset", 0)) <= \
        (getattr(outer, "end_lineno", 0), getattr(outer, "end_col_offset", 0))
