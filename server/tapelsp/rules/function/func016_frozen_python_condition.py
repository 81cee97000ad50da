from __future__ import annotations

import ast
from dataclasses import dataclass

from ...facts.model import Facts, Scope, TfFunction
from ...model import Severity
from ...versions import VersionRange
from ...facts.walk import body_nodes
from ...analysis.traced import function_name, traced_function_nodes, traced_functions
from ...analysis.values import TENSOR, VARIABLE, ValueModel, values_for
from ...analysis.python_state import file_state
from ...facts.names import dotted
from ..base import Context, Proof, Rule, invalid, valid

_MUTATORS = frozenset({"append", "extend", "insert", "pop", "popleft", "appendleft", "remove", "clear", "add",
                       "update", "discard", "setdefault", "popitem", "extendleft", "rotate"})
_SETUP = ("__init__", "build", "setUp", "reset_states")


@dataclass
class _Mutation:
    node: ast.AST
    how: str


class FrozenPythonCondition(Rule):
    """
    ## What it does
    Finds an `if` (or `while`, or conditional expression) inside a `tf.function` whose
    condition reads Python state that other code changes between calls: an attribute
    (`self.buffer`, `self.steps`) or a module-level container, mutated outside the
    function (`self.buffer.append(...)`, `self.steps += 1`).

    ## Why is this bad?
    A Python condition is evaluated once, while the function is traced; the graph keeps
    only the branch taken then. Later calls reuse the graph, so the condition is never
    evaluated again: `if len(self.buffer) < self.min_size: return 0.0` returns 0.0 for
    ever, however full the buffer gets. TensorFlow prints nothing. This is sometimes
    intended (configuration fixed per trace), hence a warning.

    ## Example
    ```python
    class Agent(tf.Module):
        def remember(self, item):
            self.buffer.append(item)

        @tf.function
        def train(self, x):
            if len(self.buffer) < self.min_size:
                return tf.constant(0.0)
            return tf.reduce_sum(x)
    ```

    ## Use instead
    ```python
    if len(agent.buffer) >= agent.min_size:   # decide in Python, outside the graph
        agent.train(x)
    ```
    or pass the changing value in as a tensor argument (`train(x, tf.constant(len(buffer)))`),
    or keep the state in a `tf.Variable`.
    """

    code = "FUNC016"
    name = "frozen-python-condition"
    summary = "A tf.function branches on Python state that changes between calls: decided once, at trace time"
    severity = Severity.WARNING
    tensorflow = VersionRange(">=2.0")
    cheap_without_triggers = True
    triggers = ("function",)
    examples = (
        invalid("""
            import tensorflow as tf

            class Agent(tf.Module):
                def __init__(self):
                    self.buffer = []
                    self.min_size = 3

                def remember(self, item):
                    self.buffer.append(item)

                @tf.function
                def train(self, x):
                    if len(self.buffer) < self.min_size:
                        return tf.constant(0.0)
                    return tf.reduce_sum(x)

            agent = Agent()
            losses = []
            for step in range(5):
                agent.remember(step)
                losses.append(float(agent.train(tf.constant([1.0, 2.0]))))
        """, 13, "the catalogue's replay buffer: training never starts",
            proof=Proof(check="""
                assert losses == [0.0] * 5, losses
                assert agent.train.experimental_get_tracing_count() == 1
            """)),
        invalid("""
            import tensorflow as tf

            class Trainer(tf.Module):
                def __init__(self):
                    self.steps = 0
                    self.w = tf.Variable(1.0)

                @tf.function
                def update(self, g):
                    scale = 0.1 if self.steps < 2 else 1.0
                    self.w.assign_sub(scale * g)
                    return self.w.read_value()

                def step(self, g):
                    self.steps += 1
                    return self.update(g)

            trainer = Trainer()
            values = [round(float(trainer.step(tf.constant(1.0))), 4) for _ in range(4)]
        """, 10, "a warm-up schedule on a Python counter freezes at its first value",
            proof=Proof(check="assert values == [0.9, 0.8, 0.7, 0.6], values")),
        invalid("""
            import tensorflow as tf

            replay = []

            @tf.function
            def learn(x):
                if len(replay) < 3:
                    return tf.zeros([])
                return tf.reduce_mean(x)

            results = []
            for i in range(5):
                replay.append(i)
                results.append(float(learn(tf.constant([2.0, 4.0]))))
        """, 7, "a module-level list filled between calls",
            proof=Proof(check="assert results == [0.0] * 5, results")),
        invalid("""
            import tensorflow as tf

            class DQN(tf.Module):
                def __init__(self):
                    self.experience = {"s": [], "r": []}
                    self.min_experiences = 2

                def add_experience(self, exp):
                    for key, value in exp.items():
                        self.experience[key].append(value)

                @tf.function
                def train(self, x):
                    if len(self.experience["s"]) < self.min_experiences:
                        return 0.0
                    return tf.reduce_sum(x)

            agent = DQN()
            losses = []
            for i in range(4):
                agent.add_experience({"s": i, "r": 1.0})
                losses.append(float(agent.train(tf.constant([1.0, 1.0]))))
        """, 14, "the seed report's DQN: a dict of lists filled by another method",
            proof=Proof(check="assert losses == [0.0] * 4, losses")),
        valid("""
            import tensorflow as tf

            class Agent(tf.Module):
                def __init__(self):
                    self.buffer = []
                    self.min_size = 3

                @tf.function
                def train(self, x):
                    return tf.reduce_sum(x)

            agent = Agent()
            losses = []
            for step in range(5):
                agent.buffer.append(step)
                if len(agent.buffer) >= agent.min_size:
                    losses.append(float(agent.train(tf.constant([1.0, 2.0]))))
        """, "the check made in Python, outside the tf.function",
            proof=Proof(check="assert losses == [3.0, 3.0, 3.0]")),
        valid("""
            import tensorflow as tf

            class Dense(tf.Module):
                def __init__(self, use_bias):
                    self.use_bias = use_bias
                    self.w = tf.Variable(2.0)
                    self.b = tf.Variable(1.0)

                @tf.function
                def __call__(self, x):
                    y = self.w * x
                    if self.use_bias:
                        y = y + self.b
                    return y

            layer = Dense(use_bias=True)
            out = layer(tf.constant(3.0))
        """, "configuration set once in __init__ is meant to be fixed per trace",
            proof=Proof(check="assert float(out) == 7.0")),
        valid("""
            import tensorflow as tf

            class Counter(tf.Module):
                def __init__(self):
                    self.count = tf.Variable(0)

                def tick(self):
                    self.count.assign_add(1)

                @tf.function
                def ready(self):
                    if self.count >= 2:
                        return tf.constant(True)
                    return tf.constant(False)

            counter = Counter()
            flags = []
            for _ in range(3):
                counter.tick()
                flags.append(bool(counter.ready()))
        """, "a tf.Variable condition becomes tf.cond: evaluated on every call",
            proof=Proof(check="assert flags == [False, True, True], flags")),
        valid("""
            import tensorflow as tf

            class Updater(tf.Module):
                def __init__(self, variables):
                    self.slots = {}
                    self._index(variables)

                def _index(self, variables):
                    for i, v in enumerate(variables):
                        self.slots[v.name] = i

                @tf.function
                def apply(self, v, g):
                    if v.name not in self.slots:
                        raise KeyError(f"unknown variable {v.name}")
                    return v.assign_sub(g)

            w = tf.Variable(1.0, name="w")
            updater = Updater([w])
            out = updater.apply(w, tf.constant(0.5))
        """, "state filled during setup, and a validation meant to fail while tracing",
            proof=Proof(check="assert float(out) == 0.5")),
        invalid("""
            import tensorflow as tf

            class Trainer:
                def __init__(self):
                    self.warmup = True

                @tf.function
                def step(self, x):
                    if self.warmup:
                        return x * 0.0
                    return x * 2.0

            trainer = Trainer()
            first = trainer.step(tf.constant(1.0))
            trainer.warmup = False
            second = trainer.step(tf.constant(1.0))
        """, 9, "a flag set through an instance between calls: the warmup branch stays",
            proof=Proof(check="assert float(second) == 0.0")),
    )

    def check(self, ctx: Context) -> None:
        facts = ctx.facts
        values = values_for(ctx)
        for tf_function, node in traced_function_nodes(facts):
            traced = traced_functions(facts, tf_function, values)
            for function in sorted(traced, key=lambda n: (n.lineno, n.col_offset)):
                scope = facts.function_scopes.get(function)
                if scope is None or (scope.tf_function is not None and scope.tf_function is not tf_function):
                    continue
                self._check_function(ctx, tf_function, node, function, values, traced)

    def _check_function(self, ctx: Context, tf_function: TfFunction, traced_node: ast.AST, function: ast.AST,
                        values: ValueModel, traced: set[ast.AST]) -> None:
        facts = ctx.facts
        scope = facts.function_scopes[function]
        owner = scope.enclosing_class
        for node in body_nodes(facts, function, (ast.If, ast.While, ast.IfExp)):
            test = node.test
            if _has_tensor(test, values, scope) or (isinstance(node, ast.If) and _raises(node.body)):
                continue  # a tensor condition (converted), or a validation that fails at trace time
            for key in _state_read(test, facts, scope):
                mutation = _mutated_outside(values, key, owner, traced)
                if mutation is None:
                    continue
                ctx.report(
                    test,
                    f"This condition reads `{key}`, Python state that {mutation.how} outside the tf.function "
                    f"{function_name(traced_node)} ({ctx.where(mutation.node)}). It is evaluated once, when the "
                    "function is traced; later calls reuse the graph and keep that branch, whatever the state "
                    "becomes. Decide it in Python before calling, pass the value in as a tensor, or keep the "
                    "state in a tf.Variable.",
                    related=[ctx.related(mutation.node, "the state changes here, between calls"),
                             ctx.related(tf_function.origin, "traced by this tf.function")],
                )
                break


def _has_tensor(test: ast.expr, values: ValueModel, scope) -> bool:
    for sub in ast.walk(test):
        if isinstance(sub, ast.expr) and values.value(sub, scope).is_(TENSOR, VARIABLE):
            return True
    return False


def _state_read(test: ast.expr, facts: Facts, scope) -> list[str]:
    """`self.x` attributes and module-level names (not bound in the function) the test reads."""
    names = file_state(facts).names(scope)
    keys: list[str] = []
    for sub in ast.walk(test):
        if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == "self" \
                and isinstance(sub.ctx, ast.Load):
            keys.append(f"self.{sub.attr}")
        elif isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load) and sub.id != "self" \
                and not names.binds(sub.id):
            keys.append(sub.id)
    return list(dict.fromkeys(keys))


def _mutated_outside(values: ValueModel, key: str, owner: ast.ClassDef | None,
                     traced: set[ast.AST]) -> _Mutation | None:
    """Where `key` is changed by code that does not run in the trace (setup methods excluded),
    or, for `self.attr`, set through an instance of the class (`trainer.warmup = False`)."""
    facts = values.facts
    attribute = key.startswith("self.")
    if not attribute and key not in _module_names(facts):
        return None
    index = _all_mutations(facts)
    if attribute:
        if owner is None:
            return None
        candidates = index.get((key, id(owner)), []) + index.get((f"rebind:{key}", id(owner)), [])
    else:
        candidates = index.get((key, None), [])
    for function, found in candidates:
        if function is not None and function in traced:
            continue
        if attribute and function in _setup_methods(facts, owner):  # type: ignore[arg-type]
            continue
        return found
    if attribute and owner is not None:
        for node, target, scope in _instance_stores(facts).get(key.split(".", 1)[1], ()):
            function = scope.function
            if function is not None and function.node in traced:
                continue
            if values.value(target.value, scope).user_class is owner:
                return _Mutation(node, f"is set through `{ast.unparse(target.value)}`")
    return None


def _instance_stores(facts: Facts) -> dict[str, list[tuple[ast.stmt, ast.Attribute, Scope]]]:
    """attr -> `obj.attr = ...` / `obj.attr += ...` with `obj` a name other than self / cls."""
    cache = facts.__dict__.get("_func016_instance_stores")
    if cache is None:
        cache = {}
        for scope in facts.scopes:
            if scope.kind == "class":
                continue
            for node in body_nodes(facts, scope.node, (ast.Assign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                            and target.value.id not in ("self", "cls"):
                        cache.setdefault(target.attr, []).append((node, target, scope))
        facts.__dict__["_func016_instance_stores"] = cache
    return cache


def _all_mutations(facts: Facts) -> dict[tuple[str, int | None], list[tuple[ast.AST | None, _Mutation]]]:
    """(key, id of the class for `self.` keys) -> the bodies (None: the module's) that change it."""
    cache = facts.__dict__.get("_func016_all_mutations")
    if cache is None:
        cache = {}
        bodies: list[tuple[ast.AST | None, int | None]] = [(None, None)]
        for node, scope in facts.function_scopes.items():
            if scope.kind == "function":
                owner = scope.enclosing_class
                bodies.append((node, id(owner) if owner is not None else None))
        for body, owner_id in bodies:
            for key, mutation in _mutations_in(facts, body if body is not None else facts.tree).items():
                bare = key.split(":", 1)[-1]
                scope_id = owner_id if bare.startswith(("self.", "cls.")) else None
                cache.setdefault((key, scope_id), []).append((body, mutation))
        facts.__dict__["_func016_all_mutations"] = cache
    return cache


def _mutations_in(facts: Facts, owner: ast.AST) -> dict[str, _Mutation]:
    """The first change of each container or attribute in one body, by key (cached per body)."""
    cache = facts.__dict__.setdefault("_func016_mutations", {})
    found = cache.get(id(owner))
    if found is not None:
        return found
    found = {}
    for node in body_nodes(facts, owner, (ast.Call, ast.Assign, ast.AugAssign, ast.Delete)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MUTATORS:
            key = _container(node.func.value)
            if key is not None:
                found.setdefault(key, _Mutation(node, f"is changed by `.{node.func.attr}()`"))
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for target in targets:
                if isinstance(target, ast.Subscript):
                    key = _container(target.value)
                    if key is not None:
                        found.setdefault(key, _Mutation(node, "is changed by item assignment"))
                    continue
                key = dotted(target)
                if key is None:
                    continue
                if isinstance(node, ast.AugAssign) or (
                        isinstance(node, ast.Assign) and any(dotted(n) == key for n in ast.walk(node.value)
                                                             if isinstance(n, (ast.Attribute, ast.Name)))):
                    # Rebinding a global is FUNC011's finding; for attributes it is this rule's.
                    found.setdefault(f"rebind:{key}", _Mutation(node, "is updated"))
    cache[id(owner)] = found
    return found


def _container(expr: ast.expr) -> str | None:
    """`self.experience` for `self.experience`, `self.experience["s"]`, `self.experience[key][0]`."""
    while isinstance(expr, ast.Subscript):
        expr = expr.value
    return dotted(expr)


def _raises(body: list[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], ast.Raise)


def _setup_methods(facts: Facts, owner: ast.ClassDef) -> set[ast.AST]:
    """`__init__`, `build` and the methods they call through `self` (transitively)."""
    cache = facts.__dict__.setdefault("_func016_setup", {})
    if id(owner) in cache:
        return cache[id(owner)]
    methods = {n.name: n for n in owner.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    found = {methods[name] for name in _SETUP if name in methods}
    pending = list(found)
    while pending:
        method = pending.pop()
        for sub in body_nodes(facts, method, (ast.Call,)):
            if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) \
                    and isinstance(sub.func.value, ast.Name) and sub.func.value.id == "self":
                callee = methods.get(sub.func.attr)
                if callee is not None and callee not in found:
                    found.add(callee)
                    pending.append(callee)
    cache[id(owner)] = found
    return found


def _module_names(facts: Facts) -> set[str]:
    """Names bound at module level to a mutable container literal."""
    cache = facts.__dict__.get("_func016_module_containers")
    if cache is None:
        cache = set()
        for stmt in facts.tree.body:
            if isinstance(stmt, ast.Assign) and isinstance(stmt.value, (ast.List, ast.Dict, ast.Set)) or (
                    isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call)
                    and isinstance(stmt.value.func, (ast.Name, ast.Attribute))
                    and (dotted(stmt.value.func) or "").rsplit(".", 1)[-1] in ("list", "dict", "set", "deque")):
                for target in stmt.targets:
                    if isinstance(target, ast.Name):
                        cache.add(target.id)
        facts.__dict__["_func016_module_containers"] = cache
    return cache
