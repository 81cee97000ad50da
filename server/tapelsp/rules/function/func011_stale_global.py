from __future__ import annotations

import ast

from ...facts.model import CallSite, Facts, Scope, TfFunction
from ...model import Severity
from ...versions import VersionRange
from ...analysis.python_state import Assignment, FileState, file_state, function_label, inside, position, traced_scopes
from ..base import Context, Proof, Rule, invalid, valid

_REBINDS = ("assign", "augassign", "for", "with", "walrus")


class StaleGlobal(Rule):
    """
    ## What it does
    Finds a `tf.function` whose body reads a module-level name that the program binds
    to a new value after the function has already been called: later in the module
    (or a later notebook cell), in a loop that also calls the function, or through
    `global name` in a function the module calls.

    ## Why is this bad?
    TensorFlow reads a global while it traces the function and bakes the value it saw
    into the graph (a Python number as a constant, a tensor or variable as a capture of
    that very object). Rebinding the name later does not trigger a new trace, so every
    later call silently keeps using the old value. Assigning into a `tf.Variable` with
    `.assign(...)` is seen on every call; rebinding the name is not.

    ## Example
    ```python
    scale = 1.0

    @tf.function
    def apply(x):
        return x * scale

    apply(tf.constant(2.0))   # 2.0
    scale = 3.0
    apply(tf.constant(2.0))   # still 2.0
    ```

    ## Use instead
    ```python
    scale = tf.Variable(1.0)

    @tf.function
    def apply(x):
        return x * scale

    apply(tf.constant(2.0))   # 2.0
    scale.assign(3.0)
    apply(tf.constant(2.0))   # 6.0
    ```
    or pass the value in as an argument (a tensor, to avoid one trace per value).
    """

    code = "FUNC011"
    name = "stale-global-in-tf-function"
    summary = "tf.function reads a global that is rebound after it was traced: the old value stays"
    severity = Severity.WARNING
    tensorflow = VersionRange(">=2.0")
    triggers = (".function", "import function")
    examples = (
        invalid("""
            import tensorflow as tf

            scale = 1.0

            @tf.function
            def apply(x):
                return x * scale

            before = float(apply(tf.constant(2.0)))
            scale = 3.0
            after = float(apply(tf.constant(2.0)))
        """, 7, "a Python float rebound after the first call",
            proof=Proof(check="assert before == after == 2.0, (before, after)")),
        invalid("""
            import tensorflow as tf

            threshold = tf.constant(0.5)

            @tf.function
            def mask(x):
                return tf.cast(x > threshold, tf.float32)

            results = []
            for level in [0.1, 0.5, 0.9]:
                threshold = tf.constant(level)
                results.append(float(tf.reduce_sum(mask(tf.constant([0.3, 0.7])))))
        """, 7, "a tensor rebound in a loop that calls the function",
            proof=Proof(check="assert results == [2.0, 2.0, 2.0], results  # not [2.0, 1.0, 0.0]")),
        invalid("""
            import tensorflow as tf

            learning_rate = 0.1

            def set_learning_rate(value):
                global learning_rate
                learning_rate = value

            @tf.function
            def update(w, g):
                return w - learning_rate * g

            first = float(update(tf.constant(1.0), tf.constant(1.0)))
            set_learning_rate(0.5)
            second = float(update(tf.constant(1.0), tf.constant(1.0)))
        """, 11, "a setter that rebinds the global",
            proof=Proof(check="assert first == second and abs(first - 0.9) < 1e-6, (first, second)")),
        valid("""
            import tensorflow as tf

            scale = tf.Variable(1.0)

            @tf.function
            def apply(x):
                return x * scale

            before = float(apply(tf.constant(2.0)))
            scale.assign(3.0)
            after = float(apply(tf.constant(2.0)))
        """, "a tf.Variable updated with assign",
            proof=Proof(check="assert (before, after) == (2.0, 6.0)")),
        valid("""
            import tensorflow as tf

            scale = 1.0
            scale = 3.0

            @tf.function
            def apply(x):
                return x * scale

            value = float(apply(tf.constant(2.0)))
        """, "rebound before the first call",
            proof=Proof(check="assert value == 6.0")),
        valid("""
            import tensorflow as tf

            @tf.function
            def apply(x, scale):
                return x * scale

            results = []
            for scale in [1.0, 3.0]:
                results.append(float(apply(tf.constant(2.0), tf.constant(scale))))
        """, "the changing value passed as an argument",
            proof=Proof(check="assert results == [2.0, 6.0]")),
    )

    def check(self, ctx: Context) -> None:
        facts = ctx.facts
        state = file_state(facts)
        module_names = state.names(facts.module)
        reported: set[int] = set()
        for scope in traced_scopes(facts):
            traced = scope.traced_by
            assert traced is not None
            own = state.names(scope)
            for name, loads in scope.loads.items():
                if "." in name or name in own.bindings:
                    continue
                defining = state.defining_scope(scope, name)
                if defining is not facts.module:
                    continue
                bindings = module_names.bindings.get(name, [])
                if not bindings or any(b.kind not in _REBINDS for b in bindings):
                    continue
                found = _stale(name, bindings, traced, state, facts)
                if found is None or id(loads[0]) in reported:
                    continue
                reported.add(id(loads[0]))
                rebind, call, how = found
                label = function_label(traced)
                related = [ctx.related(rebind, f"`{name}` rebound here")]
                if call is not None:
                    related.append(ctx.related(call, f"{label} traced by this call"))
                ctx.report(
                    loads[0],
                    f"{label} reads the global `{name}`, which {how}: TensorFlow captured the value it "
                    f"saw when it traced {label} and does not trace again when `{name}` is rebound, so later "
                    "calls silently keep the old value. Pass it as an argument (a tensor), or keep it in a "
                    "`tf.Variable` and update it with `.assign(...)`.",
                    related=related,
                )


def _call_names(traced: TfFunction, facts: Facts) -> tuple[set[str], set[str]]:
    """(plain names, method names) through which the tf.function is called in this file."""
    names: set[str] = set()
    methods: set[str] = set()
    node = traced.node
    if traced.kind == "decorator" and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        scope = facts.function_scopes.get(node)
        if scope is not None and scope.parent is not None:
            (methods if scope.parent.kind == "class" else names).add(node.name)
    for binding in facts.bindings:
        if binding.kind == "tf_function" and binding.value is traced.origin:
            if "." in binding.name:
                methods.add(binding.name.rsplit(".", 1)[1])
            else:
                names.add(binding.name)
    return names, methods


def _calls(traced: TfFunction, facts: Facts) -> list[CallSite]:
    names, methods = _call_names(traced, facts)
    found = []
    for site in facts.calls:
        func = site.node.func
        if isinstance(func, ast.Name) and func.id in names:
            found.append(site)
        elif isinstance(func, ast.Attribute) and func.attr in methods:
            found.append(site)
    return found


def _stale(name: str, bindings: list[Assignment], traced: TfFunction, state: FileState, facts: Facts):
    """(rebinding node, earlier call or None, how) when `name` is rebound after a call of the function."""
    cache = state.__dict__.setdefault("_func011_calls", {})
    calls = cache.get(id(traced))
    if calls is None:
        calls = cache[id(traced)] = _calls(traced, facts)
    if not calls:
        return None
    module_calls = [c for c in calls if c.scope.kind == "module"]
    for binding in bindings:
        stmt = binding.stmt
        for call in module_calls:
            if position(call.node) < position(stmt):
                return stmt, call.node, f"is rebound on {facts.line_label(stmt.lineno)}, after {_label(traced)} was called"
            if any(inside(stmt, loop) for loop in call.loops if inside(call.node, loop)):
                return stmt, call.node, f"is rebound on {facts.line_label(stmt.lineno)}, in the loop that calls it"
    # `global name` plus an assignment in a function the module calls.
    for scope in facts.scopes:
        if scope.kind not in ("function", "lambda") or scope.traced_by is not None:
            continue
        names = state.names(scope)
        if name not in names.declared_global:
            continue
        assignment = next((b for b in names.bindings.get(name, []) if b.kind in _REBINDS), None)
        if assignment is None or not _called_after(scope, calls, facts):
            continue
        owner = scope.node
        owner_name = f"`{owner.name}`" if isinstance(owner, (ast.FunctionDef, ast.AsyncFunctionDef)) else "a function"
        return assignment.stmt, calls[0].node, f"{owner_name} rebinds on {facts.line_label(assignment.stmt.lineno)}"
    return None


def _label(traced: TfFunction) -> str:
    return function_label(traced)


def _called_after(scope: Scope, calls: list[CallSite], facts: Facts) -> bool:
    """The function of `scope` is called somewhere, and not only from module code before every call in `calls`."""
    node = scope.node
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    setters = [s for s in facts.calls
               if (isinstance(s.node.func, ast.Name) and s.node.func.id == node.name)
               or (isinstance(s.node.func, ast.Attribute) and s.node.func.attr == node.name)]
    if not setters:
        return False
    first_call = min(position(c.node) for c in calls)
    return not all(s.scope.kind == "module" and not s.loops and position(s.node) < first_call for s in setters)
