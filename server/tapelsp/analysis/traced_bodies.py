"""The function bodies whose Python code runs only while TensorFlow traces them, for the rules
on Python side effects and randomness (FUNC007, FUNC008).

A body inside a `tf.function` (`Scope.traced_by`), and the two kinds TensorFlow traces without
one:

* a function given to `Dataset.map` / `filter` / `flat_map` / `interleave` / `reduce`: tf.data
  always traces it into a graph, once per pipeline, eager mode or not, and also under
  `tf.config.run_functions_eagerly(True)` (only `tf.data.experimental.enable_debug_mode()`
  runs it as Python);
* a Keras model's `train_step` / `test_step` / `predict_step`, which `fit` / `evaluate` /
  `predict` wrap in a tf.function of their own, unless the file asks Keras to run eagerly
  (`compile(run_eagerly=True)`, `model.run_eagerly = True`,
  `tf.config.run_functions_eagerly(True)`).

A def or lambda given to `tf.numpy_function` / `tf.py_function` runs as Python on every call and
is none of them; nor is a decorated def given to tf.data (it gets what the decorator returns,
such as a wrapper that calls the def through `tf.py_function`). The traces themselves come from `traced.trace_of`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ..facts.model import Scope

_DATASET_METHODS = frozenset({"map", "filter", "flat_map", "interleave", "reduce"})
_KERAS_STEPS = frozenset({"train_step", "test_step", "predict_step"})


@dataclass(frozen=True, eq=False)
class Body:
    """A function or lambda scope that runs only while TensorFlow traces `root`."""

    scope: Scope
    root: ast.AST           # the tf.function's def or lambda, the function given to tf.data, the Keras step
    label: str              # "`step`"
    where: str              # "the tf.function `step`", "`augment`, which `ds.map` traces into a graph"
    origin: ast.AST         # what makes it a trace: the decorator, the `ds.map(...)` call, the method
    note: str               # the related note on `origin`
    implicit: bool = False  # traced without an explicit tf.function


def traced_bodies(ctx) -> dict[int, Body]:
    """Every function and lambda scope TensorFlow traces, by id of its node."""
    facts = ctx.facts
    found = facts.__dict__.get("_traced_bodies")
    if found is not None:
        return found
    from .python_state import function_label
    from .traced import function_name

    found = {}
    for scope in facts.scopes:
        if scope.kind not in ("function", "lambda"):
            continue
        traced = scope.traced_by
        if traced is not None:
            label = function_label(traced)
            found[id(scope.node)] = Body(scope, traced.node or scope.node, label, f"the tf.function {label}",
                                         traced.origin, "traced by this tf.function")
    if _may_trace_implicitly(facts):
        from .traced import trace_of
        from .values import DATASET, METHOD, Value, values_for

        values = values_for(ctx)
        eager_keras = _keras_runs_eagerly(facts)
        for scope in facts.scopes:
            if scope.kind not in ("function", "lambda") or id(scope.node) in found or _eager_callback(scope):
                continue
            trace = trace_of(values, scope, combinators=True)
            if trace is None or trace.tf_function is not None:
                continue  # a helper a tf.function calls: left to the lexical bodies above
            if trace.caller is not None:
                if getattr(trace.node, "decorator_list", None):
                    continue  # tf.data gets what the decorator returns (a tf.py_function wrapper...), not the def
                method = values.value(trace.caller.func)
                if not (method.kind == METHOD and isinstance(method.ref, Value) and method.ref.kind == DATASET):
                    continue  # tf.map_fn, tf.cond...: eager outside a tf.function
                caller = f"Dataset.{trace.caller.func.attr}" if isinstance(trace.caller.func, ast.Attribute) \
                    else ast.unparse(trace.caller.func)
                found[id(scope.node)] = Body(scope, trace.node, function_name(trace.node),
                                             f"{function_name(trace.node)}, which `{caller}` traces into a graph",
                                             trace.caller, "traces this function", implicit=True)
            elif trace.keras and not eager_keras and not stepped_directly_only(trace.node, values):
                found[id(scope.node)] = Body(scope, trace.node, function_name(trace.node),
                                             f"{function_name(trace.node)}, which Keras traces into a tf.function",
                                             trace.origin, "Keras traces this method under fit / evaluate / predict",
                                             implicit=True)
    facts.__dict__["_traced_bodies"] = found
    return found


def helper_bodies(ctx, bodies: dict[int, Body]) -> dict[int, Body]:
    """Defs of this file that only tf.functions run: every call of the def in the file is in a
    traced body (or in another such def), and its name is used for nothing but those calls
    (`self._action(...)` in a `@tf.function` method, or in the method `tf.function(policy.action)`
    wraps). Their Python runs only while the tf.function traces, like the tf.function's own."""
    facts = ctx.facts
    found = facts.__dict__.get("_helper_bodies")
    if found is not None:
        return found
    found = {}
    facts.__dict__["_helper_bodies"] = found
    roots = [body for body in bodies.values() if not body.implicit and body.scope.traced_by is not None]
    if not roots:
        return found
    from .python_state import function_label
    from .traced import function_name, traced_functions
    from .values import values_for

    values = values_for(ctx)
    traced = dict(bodies)
    changed = True
    while changed:  # a helper of a helper: until nothing new is found
        changed = False
        for body in roots:
            tf_function = body.scope.traced_by
            for node in traced_functions(facts, tf_function, values):
                scope = facts.function_scopes.get(node)
                if scope is None or id(node) in traced or not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                        or node.decorator_list or _eager_callback(scope):
                    continue
                calls = values.callers(node)
                references = _instance_references(facts, values, node, calls) if node.name == "__call__" \
                    else _references(facts, node.name)
                if not references:
                    continue
                if len(calls) != references \
                        or not all(id(_function_node(caller)) in traced for _call, caller, _bound in calls):
                    continue
                label = function_label(tf_function)
                found[id(node)] = traced[id(node)] = Body(
                    scope, tf_function.node or node, label,
                    f"`{function_name(node)}`, which the tf.function {label} calls", tf_function.origin,
                    "traced by this tf.function")
                changed = True
    return found


def _function_node(scope: Scope) -> ast.AST | None:
    while scope is not None and scope.kind not in ("function", "lambda"):
        scope = scope.parent
    return scope.node if scope is not None else None


def _instance_references(facts, values, method: ast.AST, calls) -> int:
    """For a class's `__call__`, run by calling its instances (`clipper(grads)`): how often the
    code reads the names its instances are bound to, when each instance is made once, at module
    level, into a plain name (0 otherwise: an instance passed around may be called anywhere)."""
    from .values import INSTANCE

    names: set[str] = set()
    for call, scope, _bound in calls:
        func = call.func if isinstance(call, ast.Call) else None
        if not isinstance(func, ast.Name):
            return 0
        held = values.value(func, scope)
        if held.kind != INSTANCE or not held.certain or not isinstance(held.origin, ast.Call) \
                or not any(method is m for m in getattr(held.user_class, "body", ())):
            return 0
        names.add(func.id)
    if any(name in s.globals for s in facts.scopes for name in names):
        return 0
    from ..facts.dataflow import flow_of

    module_flow = flow_of(facts, facts.module)
    if any(len(module_flow.definitions(name)) != 1 or module_flow.definitions(name)[0].kind != "assign"
           for name in names):
        return 0
    # Reads of an attribute (`clipper.i`) use the instance without calling it: not counted.
    bare = attributes = 0
    for scope in facts.scopes:
        for key, nodes in scope.loads.items():
            head, dot, rest = key.partition(".")
            if head in names:
                if not dot:
                    bare += len(nodes)
                elif "." not in rest:
                    attributes += len(nodes)
    return bare - attributes


def _references(facts, name: str) -> int:
    """How often the code reads `name` or `<name>.name` (`helper`, `self.helper`): each call of a
    helper is one, and so is any other use (handed to a call, stored)."""
    counts = facts.__dict__.get("_name_references")
    if counts is None:
        counts = facts.__dict__["_name_references"] = {}
        for scope in facts.scopes:
            for key, nodes in scope.loads.items():
                last = key.rpartition(".")[2]
                counts[last] = counts.get(last, 0) + len(nodes)
    return counts.get(name, 0)


def _may_trace_implicitly(facts) -> bool:
    """A cheap test: a call of a tf.data method that traces, or a def of a Keras step."""
    return any(site.method in _DATASET_METHODS for site in facts.calls) or any(
        isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and m.name in _KERAS_STEPS
        for cls in facts.classes.values() for m in cls.body)


def _eager_callback(scope: Scope | None) -> bool:
    while scope is not None and scope.kind in ("function", "lambda"):
        if scope.eager_callback:
            return True
        scope = scope.parent
    return False


def _keras_runs_eagerly(facts) -> bool:
    """The file asks Keras to run its steps as Python: `run_eagerly=` in a call (compile) or an
    assignment to `.run_eagerly` with anything but False, or `tf.config.run_functions_eagerly(True)`."""
    from .guards import runs_functions_eagerly

    if runs_functions_eagerly(facts):
        return True

    text = facts.source.text
    if "run_eagerly" not in text and text.isascii():
        return False  # neither a keyword nor an attribute of that name (only non-ASCII spellings normalise to it)

    def eager(value: ast.expr) -> bool:
        return not (isinstance(value, ast.Constant) and value.value is False)
    for site in facts.calls:
        if any(k.arg == "run_eagerly" and eager(k.value) for k in site.node.keywords):
            return True
    from ..facts.walk import statements_breadth_first

    for node in statements_breadth_first(facts.tree):  # an assignment is a statement
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Attribute) and t.attr == "run_eagerly"
                                                for t in node.targets) and eager(node.value):
            return True
    return False


def in_eager_branch(node: ast.AST, body: Body, facts) -> bool:
    """`node` is in the eager branch of a `tf.executing_eagerly()` test inside the traced body
    (`if tf.executing_eagerly(): print(x.numpy())`): while TensorFlow traces, that test is
    False, so the branch does not run in the trace at all."""
    from .guards import _eager_branch, ancestors

    for child, parent in ancestors(node, facts):
        if parent is body.scope.node:
            return False
        if isinstance(parent, ast.If):
            branch = _eager_branch(parent.test, facts.imports)
            if (branch == "body" and child in parent.body) or (branch == "orelse" and child in parent.orelse):
                return True
        elif isinstance(parent, ast.IfExp):
            branch = _eager_branch(parent.test, facts.imports)
            if (branch == "body" and child is parent.body) or (branch == "orelse" and child is parent.orelse):
                return True
    return False


# The Keras methods that trace a model's train_step / test_step / predict_step into a tf.function.
_KERAS_TRACING = frozenset({
    "fit", "evaluate", "predict", "train_on_batch", "test_on_batch", "predict_on_batch",
    "make_train_function", "make_test_function", "make_predict_function",
})


def stepped_directly_only(step: ast.AST, values) -> bool:
    """Keras traces a model's `train_step` only when `fit` (or another method of
    `_KERAS_TRACING`) runs it. Is this step method called directly (`model.train_step(batch)`,
    plain Python in eager mode) on an instance of its class, while nothing in the file calls a
    tracing method on an object that may be one?"""
    facts = values.facts
    scope = facts.function_scopes.get(step)
    cls = scope.parent.node if scope is not None and scope.parent is not None else None
    name = getattr(step, "name", None)
    if not isinstance(cls, ast.ClassDef) or name is None:
        return False

    def instance(site):
        func = site.node.func
        return values.value(func.value, site.scope) if isinstance(func, ast.Attribute) else None

    direct = False
    for site in facts.calls:
        method = site.node.func.attr if isinstance(site.node.func, ast.Attribute) else None
        if method == name:
            receiver = instance(site)
            if receiver is not None and receiver.user_class is cls:
                direct = True
        elif method in _KERAS_TRACING:
            receiver = instance(site)
            if receiver is None or receiver.user_class is cls or (receiver.user_class is None
                                                                   and not receiver.certain):
                return False  # may be an instance of the class: fit traces the step
    return direct
