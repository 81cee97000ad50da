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
    to a new value between two calls of the same tf.function: later in the module (or a
    later notebook cell) with a call after it, in a loop that also calls the function, or
    through `global name` in a function the module calls.

    Not reported: a rebinding after the last call; calls of a function of the same name
    made again later (a notebook cell that defines `train_step` anew, a loop that decorates
    again after changing the global: the new tf.function traces with the new value); a
    one-time lazy initialisation (`if NAME is None: NAME = ...` in a setter).

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
        valid("""
            import tensorflow as tf

            scale = 1.0

            @tf.function
            def apply(x):
                return x * scale

            first = float(apply(tf.constant(2.0)))
            scale = 3.0

            @tf.function
            def apply(x):
                return x * scale

            second = float(apply(tf.constant(2.0)))
        """, "the name of the tf.function bound again (a later notebook cell): the new one traces anew",
            proof=Proof(check="assert (first, second) == (2.0, 6.0), (first, second)")),
        valid("""
            import tensorflow as tf

            scale = 1.0

            @tf.function
            def apply(x):
                return x * scale

            value = float(apply(tf.constant(2.0)))
            scale = 3.0
            print(scale)
        """, "rebound after the last call: no call sees the old value",
            proof=Proof(check="assert value == 2.0")),
        valid("""
            import tensorflow as tf

            results = []
            for scale in [1.0, 3.0]:
                @tf.function
                def apply(x):
                    return x * scale

                results.append(float(apply(tf.constant(2.0))))
        """, "a benchmark loop that makes the tf.function again after changing the global",
            proof=Proof(check="assert results == [2.0, 6.0], results")),
        valid("""
            import tensorflow as tf

            TABLE = None

            def table():
                global TABLE
                if TABLE is None:
                    TABLE = tf.constant([1.0, 2.0, 3.0])
                return TABLE

            @tf.function
            def lookup(i):
                return tf.gather(TABLE, i)

            table()
            first = float(lookup(tf.constant(1)))
            table()
            second = float(lookup(tf.constant(2)))
        """, "a one-time lazy initialisation under `if TABLE is None:`",
            proof=Proof(check="assert (first, second) == (2.0, 3.0)")),
        invalid("""
            import tensorflow as tf

            step = 0


            def epsilon():
                return max(0.1, 1.0 - step / 10)


            @tf.function
            def explore_probability(x):
                return x * epsilon()


            seen = []
            for step in range(5):
                seen.append(float(explore_probability(tf.constant(1.0))))
        """, 7, "a helper the tf.function calls reads the global the loop rebinds: frozen at the first trace",
            proof=Proof(check="assert seen == [1.0] * 5")),
        invalid("""
            import tensorflow as tf

            step = 0


            def decay():
                return max(0.1, 1.0 - step / 10)


            class Policy:
                def __init__(self, epsilon):
                    self._epsilon = epsilon

                def action(self, x):
                    return x * self._epsilon()


            class Agent:
                def __init__(self, epsilon):
                    self.collect_policy = Policy(epsilon)


            def main():
                global step
                agent = Agent(decay)
                act = tf.function(agent.collect_policy.action)
                seen = []
                for step in range(5):
                    seen.append(float(act(tf.constant(1.0))))
                return seen


            seen = main()
        """, 7, "the schedule reaches the method `tf.function(agent.collect_policy.action)` traces through two constructors",
            proof=Proof(check="assert len(set(seen)) == 1, seen")),
    )

    def check(self, ctx: Context) -> None:
        facts = ctx.facts
        state = file_state(facts)
        reported: set[int] = set()
        tf_functions: dict[int, TfFunction] = {}
        for scope in traced_scopes(facts):
            traced = scope.traced_by
            assert traced is not None
            tf_functions.setdefault(id(traced), traced)
            self._scope(ctx, state, scope, traced, None, reported)
        if not tf_functions:
            return
        # Defs of the file the traces call (`decay()` in the body, `self._epsilon()` holding it):
        # their reads of a global run while the tf.function traces, like its own.
        from ...analysis.traced import traced_functions
        from ...analysis.values import values_for

        values = values_for(ctx)
        for traced in tf_functions.values():
            for node in sorted(traced_functions(facts, traced, values), key=position):
                scope = facts.function_scopes.get(node)
                if scope is not None and scope.traced_by is None and isinstance(node, ast.FunctionDef):
                    self._scope(ctx, state, scope, traced, node, reported)

    def _scope(self, ctx: Context, state: FileState, scope: Scope, traced: TfFunction,
               helper: ast.FunctionDef | None, reported: set[int]) -> None:
        facts = ctx.facts
        module_names = state.names(facts.module)
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
            reader = label if helper is None else f"`{helper.name}`, which the tf.function {label} calls,"
            related = [ctx.related(rebind, f"`{name}` rebound here")]
            if call is not None:
                related.append(ctx.related(call, f"{label} traced by this call"))
            ctx.report(
                loads[0],
                f"{reader} reads the global `{name}`, which {how}: TensorFlow captured the value it "
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


def _calls(traced: TfFunction, facts: Facts, state: FileState) -> list[CallSite]:
    """The calls of this very tf.function: a call through a name that the module binds to
    several functions (a notebook cell that defines `train_step` again) belongs to the
    binding nearest above it."""
    names, methods = _call_names(traced, facts)
    module = state.names(facts.module).bindings
    found = []
    for site in facts.calls:
        func = site.node.func
        if isinstance(func, ast.Name) and func.id in names:
            if _binds_traced(module.get(func.id, []), site, traced):
                found.append(site)
        elif isinstance(func, ast.Attribute) and func.attr in methods:
            found.append(site)
    return found


def _is_creation(binding: Assignment, traced: TfFunction) -> bool:
    if binding.stmt is traced.node:
        return True
    return binding.value is not None and (binding.value is traced.origin or inside(traced.origin, binding.value))


def _binds_traced(bindings: list[Assignment], site: CallSite, traced: TfFunction) -> bool:
    call = site.node
    before = [b for b in bindings if position(b.stmt) < position(call)]
    if site.scope.kind == "module" and bindings and not before:
        # Module code runs top to bottom: a call above every binding of the name cannot
        # call this function (it raises NameError, or calls something imported as well).
        return False
    if len(bindings) <= 1:
        return True
    nearest = max(before, key=lambda b: position(b.stmt)) if before else min(bindings, key=lambda b: position(b.stmt))
    return _is_creation(nearest, traced)


def _creation(traced: TfFunction, facts: Facts, state: FileState) -> ast.AST | None:
    """The module-level statement that makes the tf.function (its def, or `f = tf.function(g)`)."""
    for bindings in state.names(facts.module).bindings.values():
        for binding in bindings:
            if _is_creation(binding, traced):
                return binding.stmt
    return None


def _stale(name: str, bindings: list[Assignment], traced: TfFunction, state: FileState, facts: Facts):
    """(rebinding node, earlier call or None, how) when `name` is rebound between two calls of the
    function: after one call, with another call of the same tf.function after it."""
    cache = state.__dict__.setdefault("_func011_calls", {})
    calls = cache.get(id(traced))
    if calls is None:
        calls = cache[id(traced)] = _calls(traced, facts, state)
    if not calls:
        return None
    module_calls = [c for c in calls if c.scope.kind == "module"]
    made = _creation(traced, facts, state)
    for binding in bindings:
        stmt = binding.stmt
        earlier = [c for c in module_calls if position(c.node) < position(stmt)]
        if earlier and any(position(c.node) > position(stmt) for c in module_calls):
            return stmt, earlier[0].node, \
                f"is rebound on {facts.line_label(stmt.lineno)}, after {_label(traced)} was called"
        for call in module_calls:
            loops = [loop for loop in call.loops if inside(call.node, loop) and inside(stmt, loop)]
            # A tf.function made again in the loop (a fresh `@tf.function def` each time
            # round) traces again with the new value: only one made outside the loop keeps it.
            if loops and not (made is not None and any(inside(made, loop) for loop in loops)):
                return stmt, call.node, f"is rebound on {facts.line_label(stmt.lineno)}, in the loop that calls it"
    # `global name` plus an assignment in a function the module calls.
    for scope in facts.scopes:
        if scope.kind not in ("function", "lambda") or scope.traced_by is not None:
            continue
        names = state.names(scope)
        if name not in names.declared_global:
            continue
        assignment = next((b for b in names.bindings.get(name, [])
                           if b.kind in _REBINDS and not _lazy_initialisation(b.stmt, name, scope)), None)
        if assignment is None or not _called_after(scope, calls, facts):
            continue
        owner = scope.node
        owner_name = f"`{owner.name}`" if isinstance(owner, (ast.FunctionDef, ast.AsyncFunctionDef)) else "a function"
        return assignment.stmt, calls[0].node, f"{owner_name} rebinds on {facts.line_label(assignment.stmt.lineno)}"
    return None


def _lazy_initialisation(stmt: ast.AST, name: str, scope: Scope) -> bool:
    """`if name is None: name = ...` (or `if not name:`): filled once, the first time it is needed."""
    for node in ast.walk(scope.node):
        if isinstance(node, ast.If) and any(inside(stmt, s) for s in node.body) and _is_unset_test(node.test, name):
            return True
    return False


def _is_unset_test(test: ast.expr, name: str) -> bool:
    if isinstance(test, ast.BoolOp):
        return any(_is_unset_test(v, name) for v in test.values)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return isinstance(test.operand, ast.Name) and test.operand.id == name
    return isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == name \
        and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.Eq)) \
        and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None


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
