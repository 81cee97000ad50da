from __future__ import annotations

import ast

from ...analysis.python_state import function_label, inside, position, traced_scopes
from ...analysis.values import CLASS, NUMBER, STR, TENSOR, values_for
from ...facts.model import Facts, Scope, TfFunction
from ...model import Severity
from ...versions import VersionRange
from ..base import Context, Proof, Rule, invalid, valid

_WRITES = (ast.Assign, ast.AugAssign, ast.AnnAssign)


class StalePythonState(Rule):
    """
    ## What it does
    Finds a `tf.function` that reads Python state which the program changes between two
    of its calls, where TensorFlow does not trace again:

    - an attribute of the instance a tf.function method is called on (`self.max_len`,
      `self.noise_std`), holding a Python number or string, assigned anew (`trainer.max_len
      = 8`, `self.epsilon *= 0.99`) in the loop that calls the method, or between two calls;
    - an item of a module-level dict or list (`CONFIG["clip"]`) stored anew the same way.

    Rebinding a module-level name is FUNC011. In a notebook, a change made in a later cell
    than the tf.function's read is reported where it is made, in the cell that then calls the
    function and gets the old value.

    ## Why is this bad?
    TensorFlow reads the attribute or item once, while it traces, and bakes its value into
    the graph as a constant. A tf.function method keys its traces on the instance's
    identity, not on its attributes, and a dict item is no input at all: the next calls
    reuse the trace and silently keep the old value (a curriculum that never grows, an
    exploration rate that never decays, a clip range that never anneals).

    ## Example
    ```python
    class Agent:
        def __init__(self):
            self.epsilon = 1.0

        @tf.function
        def act(self, q):
            return tf.where(tf.random.uniform([]) < self.epsilon, -1, tf.argmax(q))

    for episode in range(100):
        agent.epsilon *= 0.99          # never seen by act
        agent.act(q)
    ```

    ## Use instead
    ```python
    class Agent:
        def __init__(self):
            self.epsilon = tf.Variable(1.0, trainable=False)
        ...
    for episode in range(100):
        agent.epsilon.assign(agent.epsilon * 0.99)
        agent.act(q)
    ```
    or pass the value as a tensor argument.
    """

    code = "FUNC017"
    name = "stale-python-state-in-tf-function"
    summary = "tf.function reads an attribute or a dict item that changes between its calls: the traced value stays"
    severity = Severity.WARNING
    tensorflow = VersionRange(">=2.0")
    cheap_without_triggers = True
    triggers = (".function", "import function")
    examples = (
        invalid("""
            import tensorflow as tf

            class Trainer:
                def __init__(self):
                    self.max_len = 2

                @tf.function
                def crop(self, seqs):
                    return tf.shape(seqs[:, : self.max_len])[1]

            trainer = Trainer()
            used = []
            for level in range(3):
                trainer.max_len = 2 * 2 ** level
                used.append(int(trainer.crop(tf.zeros([2, 16]))))
        """, 9, "an attribute set anew in the loop that calls the method",
            proof=Proof(check="assert used == [2, 2, 2], used  # not [2, 4, 8]")),
        invalid("""
            import tensorflow as tf

            class Agent:
                def __init__(self):
                    self.scale = 1.0

                @tf.function
                def act(self, x):
                    return x * self.scale

                def run(self, x):
                    out = []
                    for _ in range(3):
                        out.append(float(self.act(x)))
                        self.scale *= 0.5
                    return out

            outputs = Agent().run(tf.constant(2.0))
        """, 9, "the attribute decayed by another method of the class, in its loop",
            proof=Proof(check="assert outputs == [2.0, 2.0, 2.0], outputs")),
        invalid("""
            import tensorflow as tf

            CONFIG = {"clip": 0.3}

            @tf.function
            def clipped(ratio):
                return tf.clip_by_value(ratio, 1.0 - CONFIG["clip"], 1.0 + CONFIG["clip"])

            first = float(clipped(tf.constant(2.0)))
            CONFIG["clip"] = 0.1
            second = float(clipped(tf.constant(2.0)))
        """, 7, "an item of a global dict changed between two calls",
            proof=Proof(check="assert first == second and abs(second - 1.3) < 1e-6, (first, second)")),
        invalid("""
            import tensorflow as tf

            class SimpleModel(tf.Module):
                def __init__(self):
                    self.bias = 0.0
                    self.weight = 2.0

            @tf.function
            def evaluate(model, x):
                return model.weight * x + model.bias

            simple_model = SimpleModel()
            x = tf.constant(10.0)
            before = float(evaluate(simple_model, x))
            simple_model.bias += 5.0
            after = float(evaluate(simple_model, x))
        """, 10, "an attribute of an object passed in (TensorFlow's tf.function guide: the same instance, the same trace)",
            proof=Proof(check="assert before == after == 20.0, (before, after)")),
        valid("""
            import tensorflow as tf

            class Trainer:
                def __init__(self):
                    self.max_len = tf.Variable(2)

                @tf.function
                def crop(self, seqs):
                    return tf.shape(seqs[:, : self.max_len])[1]

            trainer = Trainer()
            used = []
            for level in range(3):
                trainer.max_len.assign(2 * 2 ** level)
                used.append(int(trainer.crop(tf.zeros([2, 16]))))
        """, "a tf.Variable updated with assign",
            proof=Proof(check="assert used == [2, 4, 8], used")),
        valid("""
            import tensorflow as tf

            class Trainer:
                def __init__(self):
                    self.max_len = 2

                @tf.function
                def crop(self, seqs):
                    return tf.shape(seqs[:, : self.max_len])[1]

            used = []
            for level in range(3):
                trainer = Trainer()
                trainer.max_len = 2 * 2 ** level
                used.append(int(trainer.crop(tf.zeros([2, 16]))))
        """, "a new instance each time round: each traces with its own value",
            proof=Proof(check="assert used == [2, 4, 8], used")),
        valid("""
            import tensorflow as tf

            CONFIG = {"clip": 0.3}
            CONFIG["clip"] = 0.1

            @tf.function
            def clipped(ratio):
                return tf.clip_by_value(ratio, 1.0 - CONFIG["clip"], 1.0 + CONFIG["clip"])

            value = float(clipped(tf.constant(2.0)))
        """, "changed before the first call",
            proof=Proof(check="assert abs(value - 1.1) < 1e-6")),
        valid("""
            import tensorflow as tf

            class Scaler:
                def __init__(self):
                    self.scale = 1.0

                @tf.function
                def apply(self, x):
                    return x * self.scale

            scaler = Scaler()
            value = float(scaler.apply(tf.constant(2.0)))
            scaler.scale = 3.0
        """, "changed after the last call",
            proof=Proof(check="assert value == 2.0")),
    )

    def check(self, ctx: Context) -> None:
        facts = ctx.facts
        values = values_for(ctx)
        for scope in traced_scopes(facts):
            traced = scope.traced_by
            assert traced is not None
            if scope.node is not traced.node:
                continue  # the tf.function's own body only; helpers it calls are read where they are
            found = _attribute_reads(scope, traced, values) + _item_reads(scope, facts)
            found += _parameter_reads(scope, traced)
            for read, key, receivers, method, param in found:
                owner = scope.parent.node if method is not None and scope.parent is not None else None
                hit = _changed_between_calls(facts, key, receivers, method, traced, values, owner, param)
                if hit is None:
                    continue
                store, call, how = hit
                label = function_label(traced)
                text = ast.unparse(read)
                cell = _cell(ctx, store)
                if cell is not None and cell != _cell(ctx, read):
                    # A notebook cell that changes the state after the tf.function's cell traced
                    # with it: the change, in the cell that runs it, is what goes wrong.
                    ctx.report(
                        store,
                        f"This changes {_changed(store, text, label)} ({ctx.where(read)}): TensorFlow read "
                        f"its value once, when it traced {label}, and does not trace again when it changes, so "
                        "the calls after this one silently keep the old value. Keep it in a `tf.Variable` and "
                        "update it with `.assign(...)`, pass it as a tensor argument, or make a new tf.function "
                        "after changing it.",
                        related=[ctx.related(read, f"`{text}` read here, when {label} traced"),
                                 ctx.related(call, f"{label} called here")],
                    )
                    continue
                ctx.report(
                    read,
                    f"{label} reads `{text}`, which {how}: TensorFlow read its value once, when it traced "
                    f"{label}, and does not trace again when it changes, so later calls silently keep the old "
                    "value. Keep it in a `tf.Variable` and update it with `.assign(...)`, or pass it as a "
                    "tensor argument.",
                    related=[ctx.related(store, f"`{text}` changed here"),
                             ctx.related(call, f"{label} called here")],
                )


def _changed(store: ast.stmt, read: str, label: str) -> str:
    """What a store changes, as the message names it: `simple_model.bias`, which `evaluate`
    reads as `model.bias` through its parameter."""
    target = store.targets[0] if isinstance(store, ast.Assign) and len(store.targets) == 1 else \
        getattr(store, "target", None)
    if not isinstance(target, (ast.Attribute, ast.Subscript)) or ast.unparse(target) == read:
        return f"`{read}`, which {label} reads"
    return f"`{ast.unparse(target)}`, which {label} reads as `{read}`"


def _cell(ctx: Context, node: ast.AST) -> str | None:
    """The notebook cell of `node` (as the engine's line labels name it), None outside notebooks."""
    _, found, cell = ctx.where(node).rpartition(" of cell ")
    return cell if found else None


# A read: (the node, the attribute or item key, the receiver names that hold the object, the
# method name through which the tf.function is called, or None for a plain function, and for
# an attribute of a parameter its (position, name)).
Read = tuple[ast.expr, str, frozenset[str] | None, str | None, tuple[int, str] | None]


def _attribute_reads(scope: Scope, traced: TfFunction, values) -> list[Read]:
    """`self.attr` loads in a decorated method, where `self.attr` holds a Python number or str,
    or a tensor (captured by the trace as that very tensor)."""
    node = scope.node
    if traced.kind != "decorator" or not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
            or scope.parent is None or scope.parent.kind != "class" or not node.args.args:
        return []
    this = node.args.args[0].arg
    reads: list[Read] = []
    seen: set[str] = set()
    for name, loads in scope.loads.items():
        parts = name.split(".")
        if len(parts) != 2 or parts[0] != this or parts[1] in seen:
            continue
        load = loads[0]
        value = values.value(load, scope)
        # A number or string that may be another number (`self.scale *= 0.5` elsewhere) is
        # still one; a tensor must be certain.
        if value.kind not in (NUMBER, STR) and not (value.certain and value.kind == TENSOR):
            continue
        seen.add(parts[1])
        reads.append((load, parts[1], None, node.name, None))
    return reads


def _parameter_reads(scope: Scope, traced: TfFunction) -> list[Read]:
    """`model.bias` loads in a decorated plain function, `model` one of its parameters: the
    object passed in is the trace key, not its attributes (the tf.function guide's
    SimpleModel)."""
    node = scope.node
    if traced.kind != "decorator" or not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
            or scope.parent is None or scope.parent.kind == "class":
        return []
    params = [a.arg for a in node.args.args]
    reads: list[Read] = []
    for name, loads in scope.loads.items():
        parts = name.split(".")
        if len(parts) == 2 and parts[0] in params and not _bound_in(node, parts[0]):
            reads.append((loads[0], parts[1], None, None, (params.index(parts[0]), parts[0])))
    return reads


def _item_reads(scope: Scope, facts: Facts) -> list[Read]:
    """`TABLE["key"]` loads of a module-level dict or list, in a tf.function's body."""
    module_names = _module_containers(facts)
    reads: list[Read] = []
    seen: set[tuple[str, object]] = set()
    for node in ast.walk(scope.node):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and isinstance(node.value, ast.Name) \
                and node.value.id in module_names and isinstance(node.slice, ast.Constant) \
                and not _bound_in(scope.node, node.value.id):
            key = (node.value.id, node.slice.value)
            if key in seen:
                continue
            seen.add(key)
            reads.append((node, f"{node.value.id}[{node.slice.value!r}]", frozenset({node.value.id}), None, None))
    return reads


def _module_containers(facts: Facts) -> set[str]:
    """Module-level names bound once, to a dict or list display (worked out once per file)."""
    found = facts.__dict__.get("_func017_module_containers")
    if found is None:
        found = facts.__dict__["_func017_module_containers"] = _bound_once_to_containers(facts)
    return found


def _bound_once_to_containers(facts: Facts) -> set[str]:
    counts: dict[str, int] = {}
    containers: set[str] = set()
    for stmt in facts.module.node.body:  # type: ignore[attr-defined]
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    counts[target.id] = counts.get(target.id, 0) + 1
                    if isinstance(stmt.value, (ast.Dict, ast.List)):
                        containers.add(target.id)
    return {name for name in containers if counts[name] == 1}


def _bound_in(fn: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in ast.walk(fn))


def _changed_between_calls(facts: Facts, key: str, receivers: frozenset[str] | None, method: str | None,
                           traced: TfFunction, values, owner: ast.AST | None, param: tuple[int, str] | None = None):
    """(the store, a call, how) when the state is written between two calls of the tf.function:
    in a loop around one of its calls, or after one call with another after it, in one scope."""
    for scope in _written_in(facts).get(key, ()):
        if scope.traced_by is not None or scope.kind == "class":
            continue
        body = scope.node
        if isinstance(body, (ast.FunctionDef, ast.AsyncFunctionDef)) and body.name == "__init__":
            continue
        stores = [(store, receiver) for store, receiver in _stores(facts, body, key, receivers)
                  if (owner is None or _instance_of(values, receiver, store, scope, owner))
                  and (param is None or _plain_value(values, store, scope))]
        if not stores:
            continue
        calls = [site for site in facts.calls if site.scope is scope
                 and _calls_it(site.node, method, traced, stores, facts.module.node)]  # type: ignore[arg-type]
        for store, receiver in stores:
            for site in calls:
                if (method is not None or param is not None) and _receiver(site.node, param) != receiver:
                    continue
                loops = [loop for loop in site.loops if inside(store, loop)]
                if loops and not any(_made_in(loop, receiver) for loop in loops):
                    return store, site.node, "is changed in the loop that calls it"
            same = [site for site in calls
                    if (method is None and param is None) or _receiver(site.node, param) == receiver]
            before = [site for site in same if position(site.node) < position(store)]
            after = [site for site in same if position(site.node) > position(store)]
            if before and after and not any(position(before[-1].node) < position(m) < position(after[0].node)
                                            for m in _makings(body, receiver)):
                return store, before[-1].node, f"is changed on {facts.line_label(store.lineno)}, between two calls"
    return None


def _instance_of(values, receiver: str, at: ast.AST, scope: Scope, owner: ast.AST) -> bool:
    """Does `receiver` (at `at`) hold an instance of the class `owner`: the first parameter of
    one of its methods, or a name the value model knows as one?"""
    node = scope.node
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and scope.parent is not None \
            and scope.parent.node is owner and node.args.args and node.args.args[0].arg == receiver:
        return True
    value = values.value(ast.Name(receiver, ast.Load(), lineno=at.lineno, col_offset=at.col_offset), scope)  # type: ignore[attr-defined]
    return value.ref is owner and value.kind != CLASS  # an instance (a plain object, a tf.Module, a model)


def _stores(facts: Facts, body: ast.AST, key: str, receivers: frozenset[str] | None) -> list[tuple[ast.stmt, str]]:
    """Statements in `body` (not in nested defs) that write the attribute `key` of some name
    (receivers None), or the item `key` of one of `receivers`: (statement, receiver name)."""
    return [(node, receiver) for node, item, written, receiver in _writes(facts, body)
            if written == key and item == (receivers is not None)
            and (receivers is None or receiver in receivers)]


def _written_in(facts: Facts) -> dict[str, list[Scope]]:
    """The scopes whose own statements write each attribute or item, in the order of `scopes`."""
    index = facts.__dict__.get("_func017_written_in")
    if index is None:
        index = facts.__dict__["_func017_written_in"] = {}
        for scope in facts.scopes:
            for _, _, written, _ in _writes(facts, scope.node):
                held = index.setdefault(written, [])
                if not held or held[-1] is not scope:
                    held.append(scope)
    return index


def _writes(facts: Facts, body: ast.AST) -> list[tuple[ast.stmt, bool, str, str]]:
    """Every write of `name.attr` or `name[constant]` in `body`'s own statements: (statement,
    an item?, "attr" or "name['key']", name). Found once per scope: FUNC017 asks about each
    piece of state in every scope of the file."""
    cache = facts.__dict__.setdefault("_func017_writes", {})
    found = cache.get(id(body))
    if found is not None:
        return found
    found = cache[id(body)] = []
    for node in _own_statements(body):
        if not isinstance(node, _WRITES):
            continue
        for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                found.append((node, False, target.attr, target.value.id))
            elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
                    and isinstance(target.slice, ast.Constant):
                found.append((node, True, f"{target.value.id}[{target.slice.value!r}]", target.value.id))
    return found


def _own_statements(body: ast.AST):
    statements = getattr(body, "body", [])
    stack = list(statements) if isinstance(statements, list) else []  # a lambda's body is an expression
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                stack.append(child)
            elif isinstance(child, (ast.excepthandler, ast.match_case)):
                stack.extend(c for c in ast.iter_child_nodes(child) if isinstance(c, ast.stmt))


def _calls_it(call: ast.Call, method: str | None, traced: TfFunction, stores, module: ast.Module) -> bool:
    func = call.func
    if method is not None:
        return isinstance(func, ast.Attribute) and func.attr == method and isinstance(func.value, ast.Name) \
            and any(func.value.id == receiver for _, receiver in stores)
    node = traced.node
    name = node.name if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
    return name is not None and isinstance(func, ast.Name) and func.id == name \
        and _nearest_def(call, name, module) is node


def _nearest_def(call: ast.Call, name: str, module: ast.Module) -> ast.AST | None:
    """The last module-level def or assignment of `name` above the call (a notebook cell that
    defines the function again makes a new tf.function with its own traces)."""
    found = None
    for stmt in module.body:
        if position(stmt) >= position(call):
            break
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == name or \
                isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets):
            found = stmt
    return found




def _receiver(call: ast.Call, param: tuple[int, str] | None = None) -> str | None:
    """The name holding the object whose state the call's trace reads: the receiver of a method
    call, or the argument given for the parameter `param`."""
    if param is not None:
        index, name = param
        given = call.args[index] if index < len(call.args) else \
            next((k.value for k in call.keywords if k.arg == name), None)
        return given.id if isinstance(given, ast.Name) else None
    func = call.func
    return func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else None


def _plain_value(values, store: ast.stmt, scope: Scope) -> bool:
    """The attribute written holds a Python number or string (what a trace bakes in)."""
    value = store.value if isinstance(store, (ast.Assign, ast.AnnAssign)) else store.target  # type: ignore[union-attr]
    return value is not None and values.value(value, scope).kind in (NUMBER, STR)


def _makings(body: ast.AST, receiver: str) -> list[ast.stmt]:
    """Assignments of `receiver` itself (a new instance) in `body`."""
    return [n for n in _own_statements(body) if isinstance(n, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == receiver for t in n.targets)]


def _made_in(loop: ast.stmt, receiver: str) -> bool:
    """Is the receiver bound anew inside the loop (a fresh instance per iteration)?"""
    return bool(_makings(loop, receiver)) or \
        (isinstance(loop, (ast.For, ast.AsyncFor)) and any(isinstance(n, ast.Name) and n.id == receiver
                                                            for n in ast.walk(loop.target)))
