from __future__ import annotations

import ast
from dataclasses import dataclass

from ...facts.model import Facts, Scope
from ...model import Severity
from ...versions import VersionRange
from ...facts.walk import body_nodes
from ...analysis.traced import function_name, keras_traces, traced_function_nodes, traced_functions
from ...analysis.values import TENSOR, ValueModel, values_for
from ...analysis.python_state import file_state
from ..base import Context, Proof, Rule, invalid, valid

OUT_OF_SCOPE = ("is out of scope and cannot be used here. Use return values, explicit Python locals or "
                "TensorFlow collections to access it.")
_CONTAINER_METHODS = ("append", "insert", "add", "appendleft")


@dataclass
class _Leak:
    node: ast.AST  # the assignment or call that stores the tensor
    key: str  # "name" or "self.attr": what the leaked tensor is stored in
    kind: str  # "global", "attribute", "container"
    function: ast.AST  # the def whose body stores it


class LeakedTensor(Rule):
    """
    ## What it does
    Finds a tensor computed inside a `tf.function` (or a Keras model's `train_step`,
    `test_step`, `predict_step`, which Keras traces) that is stored where it outlives
    the trace: assigned to a `global`, to an attribute (`self.last = loss`, not a
    `tf.Variable` assign), or put into a list or dict that lives outside the function,
    and then read outside the trace or on a later call.

    ## Why is this bad?
    Inside a tf.function every tensor is a symbolic tensor of the function's graph. The
    stored value is not the result of a call, it is a placeholder of the graph built
    during the trace. Used after the call, TensorFlow raises
    `TypeError: <tf.Tensor 'mul:0' ...> is out of scope and cannot be used here. Use
    return values, explicit Python locals or TensorFlow collections to access it.`
    (or "'SymbolicTensor' object has no attribute 'numpy'"). State carried across calls
    this way (`self.total = self.total + x`) silently stops updating, because later
    calls reuse the graph without running the Python line, and a retrace fails with the
    same out-of-scope error.

    ## Example
    ```python
    @tf.function
    def step(x):
        global last_loss
        loss = tf.reduce_mean(x ** 2)
        last_loss = loss
        return loss
    ```

    ## Use instead
    ```python
    @tf.function
    def step(x):
        return tf.reduce_mean(x ** 2)

    last_loss = step(x)
    ```
    Keep state that must change across calls in a `tf.Variable` and `.assign()` it.
    """

    code = "FUNC013"
    name = "tensor-leaked-from-tf-function"
    summary = "A tensor of a tf.function's graph stored in a global, an attribute or an outer container"
    severity = Severity.ERROR
    tensorflow = VersionRange(">=2.0")
    cheap_without_triggers = True
    triggers = ("function", "_step")  # a tf.function, or a Keras train_step / test_step / predict_step
    examples = (
        invalid("""
            import tensorflow as tf

            last = None

            @tf.function
            def step(x):
                global last
                y = x * 2.0
                last = y
                return y

            step(tf.constant(1.0))
            doubled = last + 1.0
        """, 9, "a global assigned inside the function, used after the call",
            proof=Proof(raises=("TypeError", "is out of scope and cannot be used here"))),
        invalid("""
            import tensorflow as tf

            class Model(tf.Module):
                def __init__(self):
                    self.w = tf.Variable(2.0)
                    self.last_loss = None

                @tf.function
                def train(self, x):
                    loss = tf.reduce_mean(self.w * x)
                    self.last_loss = loss
                    return loss

            model = Model()
            model.train(tf.constant([1.0, 2.0]))
            print(model.last_loss + 0.0)
        """, 11, "an attribute read after the call",
            proof=Proof(raises=("TypeError", "is out of scope and cannot be used here"))),
        invalid("""
            import tensorflow as tf

            history = []

            @tf.function
            def step(x):
                loss = tf.reduce_sum(x)
                history.append(loss)
                return loss

            for _ in range(3):
                step(tf.constant([1.0, 2.0]))
            recorded = len(history)
            mean_loss = tf.reduce_mean(tf.stack(history))
        """, 8, "an outer list collecting losses: one symbolic entry, unusable",
            proof=Proof(raises=("TypeError", "is out of scope and cannot be used here"),
                        check="assert recorded == 1, recorded")),
        invalid("""
            import tensorflow as tf

            class Accumulator(tf.Module):
                def __init__(self):
                    self.total = tf.zeros([])

                @tf.function
                def __call__(self, x):
                    self.total = self.total + x
                    return self.total

            acc = Accumulator()
            results = [float(acc(tf.constant(1.0))) for _ in range(3)]
        """, 9, "state carried in an attribute across calls stops updating",
            proof=Proof(check="""
                assert results == [1.0, 1.0, 1.0], results
                try:
                    acc(tf.constant([1.0, 2.0]))  # a new shape retraces and reads the old graph's tensor
                except TypeError as error:
                    assert "is out of scope and cannot be used here" in str(error)
                else:
                    raise AssertionError("the retrace should fail")
            """)),
        valid("""
            import tensorflow as tf

            class Accumulator(tf.Module):
                def __init__(self):
                    self.total = tf.Variable(0.0)

                @tf.function
                def __call__(self, x):
                    self.total.assign_add(x)
                    return self.total.read_value()

            acc = Accumulator()
            results = [float(acc(tf.constant(1.0))) for _ in range(3)]
        """, "state in a tf.Variable, updated with assign_add",
            proof=Proof(check="assert results == [1.0, 2.0, 3.0]")),
        valid("""
            import tensorflow as tf

            @tf.function
            def step(x):
                parts = []
                for i in range(3):
                    parts.append(x * float(i))
                return tf.stack(parts)

            out = step(tf.constant(2.0))
        """, "a local list, stacked and returned",
            proof=Proof(check="assert out.numpy().tolist() == [0.0, 2.0, 4.0]")),
        valid("""
            import tensorflow as tf

            class Block(tf.Module):
                def __init__(self):
                    self.scale = 3.0

                @tf.function
                def __call__(self, x):
                    self.hidden = x * self.scale
                    return self._finish()

                def _finish(self):
                    return self.hidden + 1.0

            block = Block()
            out = block(tf.constant(1.0))
        """, "an attribute used only by a helper running in the same trace",
            proof=Proof(check="assert float(out) == 4.0")),
        valid("""
            import tensorflow as tf

            class Counter(tf.Module):
                def __init__(self):
                    self.calls = 0
                    self.built = False

                @tf.function
                def __call__(self, x):
                    self.built = True
                    return x + 1.0

            counter = Counter()
            out = counter(tf.constant(1.0))
            ready = counter.built
        """, "Python values in attributes are not tensors",
            proof=Proof(check="assert float(out) == 2.0 and ready is True")),
    )

    def check(self, ctx: Context) -> None:
        facts = ctx.facts
        values = values_for(ctx)
        roots = [(f"the tf.function {function_name(node)}", ctx.related(tf_function.origin, "traced by this tf.function"),
                  tf_function, traced_functions(facts, tf_function, values))
                 for tf_function, node in traced_function_nodes(facts)]
        roots += [(trace.how, trace.related(ctx), None, traced) for trace, traced in keras_traces(values)]
        for label, related, tf_function, traced in roots:
            for function in sorted(traced, key=lambda n: (n.lineno, n.col_offset)):
                scope = facts.function_scopes.get(function)
                if scope is None or (scope.tf_function is not None and scope.tf_function is not tf_function):
                    continue
                for leak in _leaks(values, function, scope):
                    self._report(ctx, values, label, related, leak, traced)

    def _report(self, ctx: Context, values: ValueModel, label: str, origin, leak: _Leak,
                traced: set[ast.AST]) -> None:
        """`label`: "the tf.function `step`" (or a Keras train_step); `origin`: the related location
        that says what traces it."""
        facts = ctx.facts
        where = label[0].upper() + label[1:] + ("," if ", which" in label else "")
        related = [origin]
        if leak.kind == "global":
            message = (f"{where} stores a tensor of its graph in the global `{leak.key}`. "
                       f"Used after the call or in another trace it raises TypeError \"<tf.Tensor ...> "
                       f"{OUT_OF_SCOPE}\" Return the value instead.")
            ctx.report(leak.node, message, related=related)
            return
        carried = _read_before(facts, leak, traced)
        outside = _read_outside(values, leak, traced)
        if carried is not None:
            message = (f"`{leak.key}` carries a tensor of {label}'s graph across calls: later "
                       "calls reuse the graph without running this line, so the value never updates, and a "
                       f"retrace reads the old graph's tensor: TypeError \"<tf.Tensor ...> {OUT_OF_SCOPE}\" "
                       "Keep the state in a tf.Variable and assign to it.")
            related.append(ctx.related(carried, "the previous value is read here"))
        elif outside is not None:
            what = "puts a tensor of its graph into" if leak.kind == "container" else "stores a tensor of its graph in"
            message = (f"{where} {what} `{leak.key}`, which is read outside the trace "
                       f"({ctx.where(outside)}): there it raises TypeError \"<tf.Tensor ...> {OUT_OF_SCOPE}\" "
                       "Return the value instead (or keep it in a tf.Variable).")
            related.append(ctx.related(outside, "read outside the trace here"))
        else:
            return
        ctx.report(leak.node, message, related=related)


_LEAK_TYPES = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Call)


def _leaks(values: ValueModel, function: ast.AST, scope: Scope) -> list[_Leak]:
    facts = values.facts
    found: list[_Leak] = []
    for node in body_nodes(facts, function, _LEAK_TYPES):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if not values.value(node.value, scope).is_(TENSOR):
                continue
            for target in targets:
                if isinstance(target, ast.Name) and target.id in scope.globals:
                    found.append(_Leak(node, target.id, "global", function))
                elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                        and target.value.id in ("self", "cls"):
                    key = f"{target.value.id}.{target.attr}"
                    if not _variable_attribute(facts, key):
                        found.append(_Leak(node, key, "attribute", function))
                elif isinstance(target, ast.Subscript):
                    key = _outer_container(target.value, facts, scope)
                    if key is not None:
                        found.append(_Leak(node, key, "container", function))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in _CONTAINER_METHODS and node.args:
            if not values.value(node.args[-1], scope).is_(TENSOR):
                continue
            key = _outer_container(node.func.value, facts, scope)
            if key is not None:
                found.append(_Leak(node, key, "container", function))
    return found


def _outer_container(expr: ast.expr, facts: Facts, scope: Scope) -> str | None:
    """`history` (a name not bound in the function) or `self.items`: a container outliving the call."""
    if isinstance(expr, ast.Name):
        return None if file_state(facts).names(scope).binds(expr.id) else expr.id
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id in ("self", "cls"):
        return f"{expr.value.id}.{expr.attr}"
    return None


def _variable_attribute(facts: Facts, key: str) -> bool:
    return any(b.kind == "variable" and b.name == key for b in facts.bindings)


def _read_before(facts: Facts, leak: _Leak, traced: set[ast.AST]) -> ast.AST | None:
    """A read of the attribute in the same function before it is stored: state carried across calls."""
    if leak.kind != "attribute":
        return None
    scope = facts.function_scopes.get(leak.function)
    if scope is None:
        return None
    for load in scope.loads.get(leak.key, ()):
        if (load.lineno, load.col_offset) <= (leak.node.lineno, leak.node.col_offset) or _inside(load, leak.node):
            return load
    return None


def _read_outside(values: ValueModel, leak: _Leak, traced: set[ast.AST]) -> ast.AST | None:
    """A read of the stored value in code that does not run in this trace."""
    facts = values.facts
    owner = facts.function_scopes[leak.function].enclosing_class
    attr = leak.key.split(".", 1)[1] if "." in leak.key else None
    inside = _with_helpers(facts, traced)
    for scope in facts.scopes:
        function = scope.function
        if function is not None and function.node in inside:
            continue
        if attr is not None:
            # `self.attr` in the other methods of the class; `obj.attr` anywhere outside it.
            for key, loads in scope.loads.items():
                base, _, name = key.partition(".")
                if name != attr:
                    continue
                if base in ("self", "cls"):
                    if scope.enclosing_class is not owner or function is None \
                            or _is_init(function.node):
                        continue
                elif _inside_class(scope, owner) or owner is None or not any(
                        isinstance(load, ast.Attribute) and values.value(load.value, scope).user_class is owner
                        for load in loads):
                    continue  # another object's attribute of the same name
                return loads[0]
        else:
            for load in scope.loads.get(leak.key, ()):
                if not _inside(load, leak.node):
                    return load
    return None


def _with_helpers(facts: Facts, traced: set[ast.AST]) -> set[ast.AST]:
    """The traced functions and the methods called only from them, through any depth."""
    inside = set(traced)
    methods = [s.function.node for s in facts.scopes if s.function is not None and s.enclosing_class is not None
               and isinstance(s.function.node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    grown = True
    while grown:
        grown = False
        for method in methods:
            if method not in inside and _called_only_from(facts, method, inside):
                inside.add(method)
                grown = True
    return inside


def _called_only_from(facts: Facts, function: ast.AST, traced: set[ast.AST]) -> bool:
    """A method that the file calls (`self.name(...)`) only from code of this trace (a WGAN's
    `_gradient_penalty`, called by `train_step`): it runs inside the trace."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    calls = [site for site in facts.calls if isinstance(site.node.func, ast.Attribute)
             and site.node.func.attr == function.name and isinstance(site.node.func.value, ast.Name)
             and site.node.func.value.id == "self"]
    loads = sum(len(scope.loads.get(f"self.{function.name}", ())) for scope in facts.scopes)
    return bool(calls) and loads == len(calls) and all(
        site.scope.function is not None and site.scope.function.node in traced for site in calls)


def _is_init(node: ast.AST) -> bool:
    return isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in ("__init__", "build")


def _inside_class(scope: Scope, owner: ast.ClassDef | None) -> bool:
    here: Scope | None = scope
    while here is not None:
        if owner is not None and here.node is owner:
            return True
        here = here.parent
    return False


def _inside(node: ast.AST, container: ast.AST) -> bool:
    return (container.lineno, container.col_offset) <= (node.lineno, node.col_offset) \
        and (node.end_lineno or node.lineno, node.end_col_offset or 0) <= \
        (container.end_lineno or container.lineno, container.end_col_offset or 0)
