"""Which function bodies run while a tf.function is traced, and which run outside it.

`Scope.traced_by` covers lexical nesting. A trace also runs the helpers it calls: a
module-level function called by name, or a method of the same class called through
`self`; with the file's value model, also whatever def of this file a call runs by what
the callee holds (`rnn(x)` for `rnn = Elman(...)` runs `Elman.__call__`, `agent.act(s)`
runs `Agent.act`). Shared by the FUNC013-FUNC016 rules and the value model.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ..facts.model import CallSite, Facts, Scope, TfFunction
from ..facts.walk import statements_breadth_first

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def traced_functions(facts: Facts, tf_function: TfFunction, values=None) -> set[ast.AST]:
    """Defs and lambdas whose bodies run during a trace of `tf_function` (its own included);
    `values` (the file's ValueModel) resolves calls by what their callee holds."""
    cache = facts.__dict__.setdefault("_issue4_traced", {})
    key = (id(tf_function), values is not None)
    if key in cache:
        return cache[key]
    found: set[ast.AST] = set()
    if tf_function.node is None:
        cache[key] = found
        return found
    found.update(_lexically_traced(facts).get(id(tf_function), ()))
    children = _children(facts)
    module_defs, class_defs = _definitions(facts)
    pending = list(found)
    while pending:
        node = pending.pop()
        scope = facts.function_scopes.get(node)
        if scope is None:
            continue
        owner = scope.enclosing_class
        for site in _calls_in(facts, node):
            func = site.node.func
            target: ast.AST | None = None
            if isinstance(func, ast.Name):
                target = module_defs.get(func.id)
            elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                    and func.value.id in ("self", "cls") and owner is not None:
                target = class_defs.get((id(owner), func.attr))
            if target is None and values is not None:
                target = _callee(values, site)
            if target is None or target in found:
                continue
            target_scope = facts.function_scopes.get(target)
            if target_scope is not None and target_scope.tf_function is not None:
                continue  # another tf.function: a graph of its own
            found.add(target)
            pending.append(target)
            nested = list(children.get(id(target), ()))
            while nested:
                inner = nested.pop()
                if inner not in found:
                    found.add(inner)
                    pending.append(inner)
                    nested.extend(children.get(id(inner), ()))
    cache[key] = found
    return found


def _callee(values, site: CallSite) -> ast.AST | None:
    """The def or lambda of this file that a call runs, by the value model: a function, a
    method of a class of this file, or the `call` / `__call__` of an instance of one."""
    from .values import FUNCTION, INSTANCE, LAYER, METHOD, MODEL, MODULE, _class_method

    called = values.value(site.node.func, site.scope)
    if called.home is not None or called.remote is not None:
        return None
    if called.kind == FUNCTION:
        return called.ref
    if called.kind == METHOD:
        return called.origin if isinstance(called.origin, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
    cls = called.user_class
    if cls is None or called.kind not in (INSTANCE, LAYER, MODEL, MODULE):
        return None
    for name in ("call", "__call__") if called.kind in (LAYER, MODEL) else ("__call__",):
        method = _class_method(values.facts, cls, name)
        if method is not None:
            return method
    return None


def runs_in_trace(facts: Facts, scope: Scope, tf_function: TfFunction) -> bool:
    function = scope.function
    return function is not None and function.node in traced_functions(facts, tf_function)


def _lexically_traced(facts: Facts) -> dict[int, list[ast.AST]]:
    """tf.function (by id) -> the defs and lambdas whose `traced_by` it is."""
    cache = facts.__dict__.get("_issue4_lexically_traced")
    if cache is None:
        cache = {}
        for node, scope in facts.function_scopes.items():
            traced = scope.traced_by
            if traced is not None:
                cache.setdefault(id(traced), []).append(node)
        facts.__dict__["_issue4_lexically_traced"] = cache
    return cache


def _children(facts: Facts) -> dict[int, list[ast.AST]]:
    """A def or lambda (by id) -> the defs and lambdas directly nested in it (through classes too)."""
    cache = facts.__dict__.get("_issue4_function_children")
    if cache is None:
        cache = {}
        for node, scope in facts.function_scopes.items():
            parent = scope.parent
            while parent is not None and parent.kind == "class":
                parent = parent.parent
            if parent is not None and parent.kind in ("function", "lambda"):
                cache.setdefault(id(parent.node), []).append(node)
        facts.__dict__["_issue4_function_children"] = cache
    return cache


def _definitions(facts: Facts) -> tuple[dict[str, ast.AST], dict[tuple[int, str], ast.AST]]:
    cache = facts.__dict__.get("_issue4_definitions")
    if cache is None:
        module_defs: dict[str, ast.AST] = {}
        class_defs: dict[tuple[int, str], ast.AST] = {}
        for node, scope in facts.function_scopes.items():
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or scope.parent is None:
                continue
            if scope.parent.kind == "module":
                module_defs.setdefault(node.name, node)
            elif scope.parent.kind == "class":
                class_defs.setdefault((id(scope.parent.node), node.name), node)
        cache = (module_defs, class_defs)
        facts.__dict__["_issue4_definitions"] = cache
    return cache


def _calls_in(facts: Facts, node: ast.AST) -> list:
    cache = facts.__dict__.get("_issue4_calls_by_function")
    if cache is None:
        cache = {}
        for site in facts.calls:
            function = site.scope.function
            if function is not None:
                cache.setdefault(id(function.node), []).append(site)
        facts.__dict__["_issue4_calls_by_function"] = cache
    return cache.get(id(node), [])


def traced_function_nodes(facts: Facts) -> list[tuple[TfFunction, ast.AST]]:
    """Every tf.function whose def or lambda is in this file, with that node."""
    return [(tf_function, tf_function.node) for tf_function in facts.tf_functions
            if isinstance(tf_function.node, _FUNCTIONS)]


def function_name(node: ast.AST | None) -> str:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return f"`{node.name}`"
    return "(a lambda)"


def called_under_tape(facts: Facts, methods: tuple[str, ...]) -> dict[str, "CallSite"]:
    """Function names called (`f(...)`, `self.f(...)`) inside a tape block on which one of
    `methods` (gradient, jacobian...) is called later: the first such call of each name."""
    cache = facts.__dict__.setdefault("_issue4_called_under_tape", {})
    if methods in cache:
        return cache[methods]
    found: dict[str, CallSite] = {}
    for site in facts.calls:
        if not site.tapes:
            continue
        func = site.node.func
        if isinstance(func, ast.Name):
            name = func.id
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in ("self", "cls"):
            name = func.attr
        else:
            continue
        if name in found:
            continue
        if any(u.node.lineno > site.node.lineno for tape in site.tapes for u in tape.uses(*methods)):
            found[name] = site
    cache[methods] = found
    return found


# --- how a scope comes to be traced ------------------------------------------------------------

_KERAS_STEPS = ("train_step", "test_step", "predict_step")


@dataclass(frozen=True, eq=False)
class Trace:
    """What traces a body: `node` is the function whose trace runs it (a tf.function's def, or a
    Keras model's train_step), `origin` what makes that a trace (the tf.function decorator or
    call; the method itself for Keras, which wraps it in a tf.function of its own)."""

    node: ast.AST
    origin: ast.AST
    tf_function: TfFunction | None = None
    caller: ast.Call | None = None  # `ds.map(fn)`, `tf.map_fn(fn, x)`: the call that traces `node`

    @property
    def keras(self) -> bool:
        return self.tf_function is None and self.caller is None

    @property
    def how(self) -> str:
        """"the tf.function `step`", "`train_step`, which Keras traces into a tf.function",
        "`augment`, which `ds.map` traces into a graph"."""
        if self.caller is not None:
            return f"{function_name(self.node)}, which `{ast.unparse(self.caller.func)}` traces into a graph"
        if self.keras:
            return f"{function_name(self.node)}, which Keras traces into a tf.function"
        return f"the tf.function {function_name(self.node)}"

    def related(self, ctx):
        if self.caller is not None:
            return ctx.related(self.caller, "traces this function")
        return ctx.related(self.origin, "Keras traces this method" if self.keras else "traced by this tf.function")


def trace_of(values, scope: Scope, combinators: bool = False) -> Trace | None:
    """The trace that runs code in `scope`, if any: lexically inside a tf.function, in a def of
    this file that a tf.function's trace calls (by the value model), or in a Keras model's
    train_step / test_step / predict_step (and what they define); with `combinators`, also a
    function that `Dataset.map`, `tf.map_fn` and the like trace (the library table's traced_fn)."""
    facts = values.facts
    index = facts.__dict__.get("_traces")
    if index is None:
        index = facts.__dict__["_traces"] = _traces(values)
    function = scope.function
    if function is None:
        return None
    lexical = function.traced_by
    if lexical is not None and lexical.node is not None:
        return index.get(id(lexical.node)) or Trace(lexical.node, lexical.origin, lexical)
    found = index.get(id(function.node))
    if found is None and combinators and _may_combine(values):
        current: Scope | None = function
        while current is not None and current.kind in ("function", "lambda"):
            caller = values.tracing_call(current.node)
            if caller is not None:
                return Trace(current.node, caller, caller=caller)
            current = current.parent
    return found


def _may_combine(values) -> bool:
    """Does the file call anything the table says traces a function it is given (`.map(`,
    tf.map_fn...)? Most files do not: then no function of theirs is asked what traces it."""
    facts = values.facts
    found = facts.__dict__.get("_may_combine")
    if found is None:
        from . import library
        from .values import DATASET

        found = any((site.qualname is not None and (library.api(site.qualname) or _NO_API).traced_fn)
                    or (site.method is not None and (library.method(DATASET, site.method) or _NO_API).traced_fn)
                    for site in facts.calls)
        facts.__dict__["_may_combine"] = found
    return found


class _NoApi:
    traced_fn = ()


_NO_API = _NoApi()


def _traces(values) -> dict[int, Trace]:
    from .values import MODEL

    facts = values.facts
    index: dict[int, Trace] = {}
    if not facts.tf_functions and not any(
            isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and m.name in _KERAS_STEPS
            for cls in facts.classes.values() for m in cls.body):
        return index  # nothing in this file is traced (the cheap answer for most files)
    for tf_function in facts.tf_functions:
        if tf_function.node is None:
            continue
        trace = Trace(tf_function.node, tf_function.origin, tf_function)
        index.setdefault(id(tf_function.node), trace)
        for node in traced_functions(facts, tf_function, values):
            index.setdefault(id(node), trace)
    children = _children(facts)
    for cls in facts.classes.values():
        if values.class_kind(cls) != MODEL:
            continue
        for method in cls.body:
            if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) and method.name in _KERAS_STEPS:
                trace = Trace(method, method)
                pending = [method]
                while pending:
                    node = pending.pop()
                    if id(node) not in index:
                        index[id(node)] = trace
                        pending.extend(children.get(id(node), ()))
    return index


def keras_traces(values) -> list[tuple[Trace, set[ast.AST]]]:
    """Each Keras train_step / test_step / predict_step of this file's models, with the bodies
    its trace runs (the method and what it defines)."""
    trace_of(values, values.facts.module)  # builds the index
    groups: dict[int, tuple[Trace, set[ast.AST]]] = {}
    nodes = {id(node): node for node in values.facts.function_scopes}
    for key, trace in values.facts.__dict__["_traces"].items():
        if trace.keras and key in nodes:
            groups.setdefault(id(trace), (trace, set()))[1].add(nodes[key])
    return list(groups.values())


def keras3_calls(values) -> dict[int, ast.ClassDef]:
    """`call` methods of this file's Keras 3 layers and models (by id), with their class: Keras 3
    runs them without AutoGraph whenever it traces them (fit, predict, a functional model, a
    tf.function that calls the layer); Keras 2 (tf_keras) converts them."""
    from .values import LAYER, MODEL

    facts = values.facts
    found = facts.__dict__.get("_keras3_calls")
    if found is None:
        found = {}
        rebound: set[str] | None = None
        for cls in facts.classes.values():
            if not any(isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and m.name == "call"
                       and not m.decorator_list for m in cls.body):
                continue  # no undecorated `call`: nothing to find (the cheap look first)
            if values.class_kind(cls) not in (LAYER, MODEL):
                continue
            if rebound is None:
                # `Cls.call = tf.autograph.to_graph(Cls.call)` (or any rebinding of `call`): converted.
                # Assignments are statements: walked without visiting any expression.
                rebound = {target.value.id for node in statements_breadth_first(facts.tree)
                           if isinstance(node, ast.Assign) for target in node.targets
                           if isinstance(target, ast.Attribute) and target.attr == "call"
                           and isinstance(target.value, ast.Name)}
            if cls.name in rebound:
                continue
            if any(values.keras_major(ast.Call(func=base, args=[], keywords=[])) < 3 for base in cls.bases):
                continue
            for method in cls.body:
                # A decorated `call` (`@tf.function`, which converts it) is not Keras's to run as is.
                if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) and method.name == "call" \
                        and not method.decorator_list:
                    found[id(method)] = cls
        facts.__dict__["_keras3_calls"] = found
    return found
