from __future__ import annotations

import ast

from ...facts.model import CallSite, Facts, Scope
from ...model import Severity
from ...versions import VersionRange
from ...analysis.python_state import FileState, file_state, inside, own_nodes
from ...analysis.values import NUMBER, NUMPY_VALUES, TF_VALUES, ValueModel, unseen_decorators, values_for
from ..base import Context, Proof, Rule, invalid, valid

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
# Decorators that make a function run once per set of arguments.
_CACHES = ("functools.lru_cache", "functools.cache", "lru_cache", "cache")


class TfFunctionPerCall(Rule):
    """
    ## What it does
    Finds a `tf.function` created again and again: `tf.function(f)(x)` or
    `g = tf.function(f); g(x)` inside a loop or inside a function that is called
    repeatedly, and `@tf.function`-decorated functions defined inside a loop or inside
    such a function and called there. Inside code a tf.function traces, `tf.function(f)(x)`
    in a loop AutoGraph leaves to Python (over `range` of Python numbers or a literal): the
    trace runs the loop body once per iteration, each time with a new tf.function.

    ## Why is this bad?
    Traces belong to the tf.function object. A new object starts with none, so every
    loop iteration or every call of the surrounding function traces the Python function
    again and builds a new graph: the program runs slower than plain eager code and its
    memory grows. TensorFlow warns only after five of them: "5 out of the last 5 calls
    to <function ...> triggered tf.function retracing. Tracing is expensive and the
    excessive number of tracings could be due to (1) creating @tf.function repeatedly
    in a loop, ...".

    ## Example
    ```python
    for x in batches:
        y = tf.function(forward)(x)   # a new tf.function, a new trace, every iteration
    ```

    ## Use instead
    ```python
    forward_fn = tf.function(forward)   # once
    for x in batches:
        y = forward_fn(x)
    ```
    Create the tf.function once: at module level, in `__init__`, or in a factory whose
    result is kept.

    Not reported: a tf.function whose trace reads the Python value a loop changes on every
    iteration (`for n in (1, 5):` or `for i in range(k):`, directly or through a local computed
    from it, also when the loop passes it to the function that defines the tf.function). Each
    value needs a trace of its own, and a tf.function made once would keep the first value
    baked into its trace.
    """

    code = "FUNC010"
    name = "tf-function-created-per-call"
    summary = "tf.function created inside a loop or on every call retraces every time"
    severity = Severity.WARNING
    tensorflow = VersionRange(">=2.0")
    cheap_without_triggers = True
    triggers = (".function", "import function")
    examples = (
        invalid("""
            import tensorflow as tf

            traces = []


            class Predictor:
                def __init__(self, scale):
                    self.scale = scale

                def test(self, x):
                    return self.run(x)

                def run(self, x):
                    @tf.function
                    def step(v):
                        traces.append(1)
                        return v * self.scale

                    return step(x)


            predictor = Predictor(2.0)
            for _ in range(4):
                out = predictor.test(tf.constant(1.0))
        """, 14, "a method that defines the tf.function, called through another method in a loop",
            proof=Proof(check="assert len(traces) == 4, len(traces)")),
        invalid("""
            import tensorflow as tf

            traces = []

            def square(x):
                traces.append(1)
                return x * x

            for i in range(6):
                y = tf.function(square)(tf.constant(float(i)))
        """, 10, "tf.function(f)(x) in a loop",
            proof=Proof(check="assert len(traces) == 6, len(traces)")),
        invalid("""
            import tensorflow as tf

            traces = []

            def forward(x):
                traces.append(1)
                return tf.nn.relu(x)

            def predict(x):
                return tf.function(forward)(x)

            for _ in range(5):
                predict(tf.constant([1.0, -1.0]))
        """, 10, "a new tf.function on every call of predict",
            proof=Proof(check="assert len(traces) == 5, len(traces)")),
        invalid("""
            import tensorflow as tf

            traces = []

            def evaluate(w, x):
                @tf.function
                def forward(x):
                    traces.append(1)
                    return x * w
                return forward(x)

            for _ in range(5):
                evaluate(2.0, tf.constant(1.0))
        """, 6, "a decorated function defined inside a function that is called in a loop",
            proof=Proof(check="assert len(traces) == 5, len(traces)")),
        invalid("""
            import tensorflow as tf

            traces = []

            def train_step(x):
                traces.append(1)
                return x - 0.1 * x

            for epoch in range(5):
                step = tf.function(train_step)
                for _ in range(3):
                    out = step(tf.constant(1.0))
        """, 10, "re-created on every epoch",
            proof=Proof(check="assert len(traces) == 5, len(traces)")),
        invalid("""
            import tensorflow as tf

            traces = []

            def animate(video):
                @tf.function
                def next_batch(frames):
                    traces.append(1)
                    return frames * 2.0

                out = []
                for start in range(0, 8, 4):
                    out.append(next_batch(video[start:start + 4]))
                return tf.concat(out, 0)

            for video in [tf.ones([8, 2]), tf.zeros([8, 2]), tf.ones([8, 2])]:
                animate(video)
        """, 6, "defined in a function a loop calls and called in that function's own loop: one trace per call",
            proof=Proof(check="assert len(traces) == 3, traces")),
        valid("""
            import tensorflow as tf

            def square(x):
                return x * x

            square_fn = tf.function(square)
            for i in range(6):
                y = square_fn(tf.constant(float(i)))
        """, "created once, called in the loop",
            proof=Proof(check="assert square_fn.experimental_get_tracing_count() == 1")),
        valid("""
            import tensorflow as tf

            _compiled = {}

            def compiled(fn):
                if fn not in _compiled:
                    _compiled[fn] = tf.function(fn)
                return _compiled[fn]

            def make_step(scale):
                @tf.function
                def step(x):
                    return x * scale
                return step

            double = make_step(2.0)
            for i in range(6):
                y = compiled(tf.nn.relu)(tf.constant(float(i)))
                z = double(tf.constant(float(i)))
        """, "a cache and a factory whose result is kept",
            proof=Proof(check="""
                assert compiled(tf.nn.relu).experimental_get_tracing_count() == 1
                assert double.experimental_get_tracing_count() == 1
            """)),
        valid("""
            import tensorflow as tf

            def train_step(x):
                return x - 0.1 * x

            def main():
                step = tf.function(train_step)
                for _ in range(6):
                    out = step(tf.constant(1.0))
                return step

            step = main()
        """, "created once per run of main, then called in its loop",
            proof=Proof(check="assert step.experimental_get_tracing_count() == 1")),
        valid("""
            import tensorflow as tf

            counts = []

            def animate(video):
                @tf.function
                def next_batch(frames):
                    return frames * 2.0

                out = []
                for start in range(0, 8, 4):
                    out.append(next_batch(video[start:start + 4]))
                counts.append(next_batch.experimental_get_tracing_count())
                return tf.concat(out, 0)

            frames = animate(tf.ones([8, 2]))
        """, "a decorated def called in the loop of a function that runs once",
            proof=Proof(check="assert counts == [1], counts")),
        valid("""
            import tensorflow as tf

            def prefix_sums(x):
                sums = []
                for n in (1, 3):
                    @tf.function
                    def head(x):
                        return tf.reduce_sum(x[:n])
                    sums.append(float(head(x)))
                return sums

            heads = prefix_sums(tf.range(5.0))

            @tf.function
            def hoisted(x, n):
                return tf.reduce_sum(x[:n])

            passed = []
            for n in (1, 3):
                passed.append(float(hoisted(tf.range(5.0), tf.constant(n))))
        """, "each iteration's tf.function reads the loop's Python value: each needs its own trace (made once, "
             "it must take the value as a tensor argument)",
            proof=Proof(check="""
                assert heads == [0.0, 3.0], heads
                assert passed == [0.0, 3.0] and hoisted.experimental_get_tracing_count() == 1, passed
            """)),
        valid("""
            import tensorflow as tf

            class Sampler:
                sizes = (2, 4)

                def sample(self, x, i):
                    size = self.sizes[i]

                    @tf.function
                    def draw(x):
                        return tf.reduce_sum(x[:size])
                    return draw(x)

            sampler = Sampler()
            totals = []
            for i in range(2):
                totals.append(float(sampler.sample(tf.range(5.0), i)))
        """, "a loop over Python values passes its value to the function that makes the tf.function, whose "
             "trace depends on it",
            proof=Proof(check="assert totals == [1.0, 6.0], totals")),
        invalid("""
            import tensorflow as tf

            def block(x):
                return tf.nn.relu(x) + 1.0

            @tf.function
            def model(x):
                for _ in range(3):
                    x = tf.function(block)(x)
                return x

            y = model(tf.ones([2]))
        """, 9, "inside a tf.function, in a loop over a Python range: the trace runs the loop in Python and "
                "makes, and traces, a new tf.function per iteration (3 traced copies of `block` in the graph)",
            proof=Proof(check="""
                functions = model.get_concrete_function(tf.ones([2])).graph.as_graph_def().library.function
                assert len([f for f in functions if "block" in f.signature.name]) == 3
            """)),
        valid("""
            import tensorflow as tf

            def block(x):
                return tf.nn.relu(x) + 1.0

            @tf.function
            def model(x):
                for _ in tf.range(3):
                    x = tf.function(block)(x)
                return x

            y = model(tf.ones([2]))
        """, "inside a tf.function, in a loop over a tensor: AutoGraph makes it a `tf.while_loop`, whose body "
             "is traced once",
            proof=Proof(check="""
                functions = model.get_concrete_function(tf.ones([2])).graph.as_graph_def().library.function
                assert len([f for f in functions if "block" in f.signature.name]) == 1 and float(y[0]) == 4.0
            """)),
    )

    def check(self, ctx: Context) -> None:
        state = file_state(ctx.facts)
        for site in ctx.facts.calls_to("tensorflow.function"):
            if not site.node.args:
                continue
            if site.scope.traced_by is not None:
                found = _wrapped_in_unrolled_loop(site, ctx)
                if found is not None:
                    ctx.report(site.node, found[0], related=found[1])
                continue
            found = _wrapped_per_call(site.node, site.scope, tuple(site.loops), tuple(site.guards), state, ctx)
            if found is not None:
                ctx.report(site.node, found[0], related=found[1])
        for tf_function in ctx.facts.tf_functions:
            node = tf_function.node
            if tf_function.kind != "decorator" or not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            scope = ctx.facts.function_scopes.get(node)
            parent = scope.parent if scope is not None else None
            if parent is None or parent.kind not in ("function", "lambda") or parent.traced_by is not None:
                continue
            found = _decorated_per_call(node, parent, state, ctx)
            if found is not None:
                ctx.report(tf_function.origin, found[0], related=found[1])


def _why(where: str) -> str:
    return (f"A new tf.function is created here {where}: a new tf.function object has no traces yet, so "
            "TensorFlow traces the Python function again each time (\"5 out of the last 5 calls to "
            "<function ...> triggered tf.function retracing ... (1) creating @tf.function repeatedly in a "
            "loop\"). Create it once, at module level or in `__init__`, and reuse it.")


def _wrapped_per_call(call: ast.Call, scope: Scope, loops: tuple, guards: tuple, state: FileState, ctx: Context):
    """For `tf.function(f)` in a loop or a function body: (message, related) when it is used per call."""
    statement, role = _usage(call, scope)
    if role is None:
        return None
    if loops:
        loop = loops[-1]
        if any(inside(guard, loop) for guard in guards):
            return None  # created behind a condition (a cache) inside the loop
        if role == "called":
            return _why(f"on every iteration of the loop on {ctx.where(loop)}"), [ctx.related(loop, "the loop")]
        calls = _calls_of(role, scope)
        if any(inside(c, loop) for c in calls) and not _escapes(role, scope, statement):
            return _why(f"on every iteration of the loop on {ctx.where(loop)}"), [ctx.related(loop, "the loop")]
        return None
    if scope.kind not in ("function", "lambda") or guards:
        return None
    owner = scope.node
    if role == "called":
        calls = [call]
    else:
        calls = _calls_of(role, scope)
        # Called in a loop of its own or not, it is traced again on every call of the function.
        if not calls or _escapes(role, scope, statement):
            return None
    caller = _repeated_caller(owner, scope, ctx.facts)
    if caller is None:
        return None
    return _per_call(owner, caller, ctx)


def _wrapped_in_unrolled_loop(site: CallSite, ctx: Context):
    """`tf.function(f)(x)` in a Python loop of code a tf.function traces (`for i in range(3)`):
    AutoGraph leaves such a loop to Python, so the trace runs its body once per iteration and
    creates, and traces, a new tf.function each time (3 traces of `f` for 1 of the outer
    function on TensorFlow 2.21). A loop AutoGraph converts (over a tensor or a dataset) runs its
    body once while tracing: not reported."""
    if not site.loops:
        return None
    statement, role = _usage(site.node, site.scope)
    if role is None:
        return None
    loop = site.loops[-1]
    if not _unrolled(loop, site.scope, values_for(ctx)) or any(inside(guard, loop) for guard in site.guards):
        return None
    if role != "called":
        calls = _calls_of(role, site.scope)
        if not any(inside(c, loop) for c in calls) or _escapes(role, site.scope, statement):
            return None
    outer = site.scope.traced_by
    label = f"`{outer.node.name}`" if outer is not None and isinstance(
        outer.node, (ast.FunctionDef, ast.AsyncFunctionDef)) else "the tf.function"
    return (_why(f"on every iteration of the loop on {ctx.where(loop)}, which runs in Python while {label} "
                 "traces (AutoGraph unrolls a loop over Python values)"), [ctx.related(loop, "the loop")])


def _unrolled(loop: ast.stmt, scope: Scope, values: ValueModel) -> bool:
    """A `for` loop AutoGraph leaves to Python: over a literal of constants, or `range(...)` of
    Python numbers (through `enumerate` / `zip` / `reversed` too)."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)) or not _python_valued(loop.iter):
        return False
    ranges = [n for n in ast.walk(loop.iter) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
              and n.func.id == "range"]
    return all(n.args and all(_python_number(a, scope, values) for a in n.args) for n in ranges)


def _python_number(expr: ast.expr, scope: Scope, values: ValueModel) -> bool:
    if isinstance(expr, ast.Constant):
        return type(expr.value) is int
    if isinstance(expr, ast.BinOp):
        return _python_number(expr.left, scope, values) and _python_number(expr.right, scope, values)
    value = values.value(expr, scope)
    return value.is_(NUMBER) and value.dtype == "int"


def _decorated_per_call(node: ast.FunctionDef | ast.AsyncFunctionDef, parent: Scope, state: FileState,
                        ctx: Context):
    name = node.name
    calls = _calls_of(name, parent)
    if not calls or _escapes(name, parent, node):
        return None
    loop = _enclosing_loop(node, parent)
    if loop is not None:
        if _specialized(node, parent, _python_values_of(loop), values_for(ctx)):
            return None
        if any(inside(c, loop) for c in calls):
            return _why(f"on every iteration of the loop on {ctx.where(loop)}"), [ctx.related(loop, "the loop")]
        return None
    if _guarded(node, parent):
        return None  # defined behind a condition (a cache)
    caller = _repeated_caller(parent.node, parent, ctx.facts, decorated=node, values=values_for(ctx))
    if caller is None:
        return None
    return _per_call(parent.node, caller, ctx)


def _per_call(owner: ast.AST, caller: CallSite, ctx: Context):
    loop = caller.loops[-1]
    func = caller.node.func
    called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    through = f" (through `{called}`)" if called is not None and called != getattr(owner, "name", None) else ""
    return (_why(f"on every call of {_name(owner)}, which the loop on {ctx.where(loop)} calls again and again"
                 f"{through}"),
            [ctx.related(caller.node, f"{_name(owner)} called in a loop here{through}")])


def _usage(call: ast.Call, scope: Scope) -> tuple[ast.AST | None, str | None]:
    """How the new tf.function is used: ("called") right away, or bound to a local name."""
    for node in own_nodes(scope.node):
        if isinstance(node, ast.Call) and node.func is call:
            return node, "called"
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is call:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if len(targets) == 1 and isinstance(targets[0], ast.Name):
                return node, targets[0].id
            return node, None  # stored on an attribute or in a container: kept
    return None, None


def _calls_of(name: str, scope: Scope) -> list[ast.Call]:
    return [n for n in own_nodes(scope.node)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name]


def _escapes(name: str, scope: Scope, definition: ast.AST | None) -> bool:
    """The local tf.function is returned, yielded, stored or passed on: it outlives this call."""
    for node in own_nodes(scope.node):
        if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom)) and node.value is not None \
                and _mentions(node.value, name):
            return True
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node is not definition and node.value is not None \
                and _mentions(node.value, name):
            return True
        if isinstance(node, ast.Call):
            if any(_mentions(a, name) for a in node.args) or any(_mentions(k.value, name) for k in node.keywords):
                return True
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return True
    return False


def _mentions(expr: ast.AST, name: str) -> bool:
    """`name` is used as a value in `expr` (calling it, `name(...)`, does not count)."""
    callees = {id(n.func) for n in ast.walk(expr) if isinstance(n, ast.Call)}
    return any(isinstance(n, ast.Name) and n.id == name and id(n) not in callees for n in ast.walk(expr))


def _loops_in(scope: Scope) -> list[ast.stmt]:
    return [n for n in own_nodes(scope.node) if isinstance(n, _LOOPS)]


def _enclosing_loop(node: ast.AST, scope: Scope) -> ast.stmt | None:
    found = [loop for loop in _loops_in(scope) if inside(node, loop)]
    return found[-1] if found else None


def _guarded(node: ast.AST, scope: Scope) -> bool:
    return any(isinstance(n, ast.If) and inside(node, n) for n in own_nodes(scope.node))


def _name(node: ast.AST) -> str:
    return f"`{node.name}`" if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else "this function"


def _repeated_caller(owner: ast.AST, scope: Scope, facts: Facts,
                     decorated: ast.AST | None = None, values: ValueModel | None = None,
                     depth: int = 0) -> CallSite | None:
    """A call of the function `owner` made inside a loop of this file (evidence it runs many times).

    Without such evidence (a library function, a test, an entry point) the function may well
    run once; creating a tf.function per call is then not worth a finding. Nor is a loop that
    passes its own Python value (`for i in range(k): self.sample(i)`) to a parameter that the
    `decorated` tf.function's trace depends on: each iteration needs a trace of its own.
    """
    if not isinstance(owner, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    for decorator in owner.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if (facts.imports.resolve(target) or ast.unparse(target)) in _CACHES:
            return None
    if owner.decorator_list and unseen_decorators(facts, owner):
        return None  # its name calls what the decorator made (tff.tensorflow.computation: traced once)
    is_method = scope.parent is not None and scope.parent.kind == "class"
    for site in facts.calls:
        if not site.loops:
            continue
        func = site.node.func
        if is_method:
            if not (isinstance(func, ast.Attribute) and func.attr == owner.name):
                continue
        elif not (isinstance(func, ast.Name) and func.id == owner.name):
            continue
        if decorated is not None and values is not None \
                and _specialized(decorated, scope, _varied_parameters(site, owner, is_method), values):
            continue
        return site
    if depth == 0:
        # Through one function of this file that calls it outside a loop (`test` calling
        # `self.run_predictions`), called in a loop with nothing the loop changes.
        for site in facts.calls:
            func = site.node.func
            wrapper = site.scope.function
            if site.loops or wrapper is None or wrapper.node is owner \
                    or not isinstance(wrapper.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            if not ((is_method and isinstance(func, ast.Attribute) and func.attr == owner.name
                     and isinstance(func.value, ast.Name) and func.value.id == "self")
                    or (not is_method and isinstance(func, ast.Name) and func.id == owner.name)):
                continue
            outer = _repeated_caller(wrapper.node, wrapper, facts, depth=1)
            if outer is not None and not _reads(outer.node, _loop_targets(outer.loops)):
                return outer
    return None


def _loop_targets(loops: tuple[ast.stmt, ...]) -> set[str]:
    """Every name the loops around a call bind on each iteration."""
    return {n.id for loop in loops if isinstance(loop, (ast.For, ast.AsyncFor))
            for n in ast.walk(loop.target) if isinstance(n, ast.Name)}


def _python_values_of(loop: ast.stmt) -> set[str]:
    """The names a `for` loop binds to a new Python value on every iteration: its targets when it
    iterates `range(...)`, a literal of constants, or `enumerate`/`zip`/`reversed` of those."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)) or not _python_valued(loop.iter):
        return set()
    return {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}


def _python_valued(expr: ast.expr) -> bool:
    if isinstance(expr, (ast.Tuple, ast.List, ast.Set)):
        return bool(expr.elts) and all(isinstance(e, ast.Constant)
                                       or (isinstance(e, ast.UnaryOp) and isinstance(e.operand, ast.Constant))
                                       for e in expr.elts)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and not expr.keywords:
        if expr.func.id == "range":
            return True
        if expr.func.id in ("enumerate", "zip", "reversed") and expr.args:
            return all(_python_valued(a) for a in expr.args)
    return False


def _varied_parameters(site: CallSite, owner: ast.FunctionDef | ast.AsyncFunctionDef, is_method: bool) -> set[str]:
    """The parameters of `owner` that this call, in loops over Python values, passes the
    loops' values to (`self.sample(mean, i)` in `for i in range(k):`). None when a loop around
    the call passes nothing of its own: it repeats the same calls."""
    varied: set[str] = set()
    for loop in site.loops:
        own = _python_values_of(loop)
        if not own or not any(_reads(a, own) for a in (*site.node.args, *(k.value for k in site.node.keywords))):
            return set()
        varied |= own
    params = [a.arg for a in (*owner.args.posonlyargs, *owner.args.args)]
    if is_method and params:
        params = params[1:]
    found = {params[i] for i, arg in enumerate(site.node.args)
             if i < len(params) and not isinstance(arg, ast.Starred) and _reads(arg, varied)}
    found |= {k.arg for k in site.node.keywords if k.arg is not None and _reads(k.value, varied)}
    return found


def _specialized(decorated: ast.AST, scope: Scope, varied: set[str], values: ValueModel) -> bool:
    """Does the trace of `decorated` (a def in the function of `scope`) read one of the `varied`
    Python values, directly or through a local computed from one (`n = sizes[i]`) or a nested
    def reading one? Then every value needs a trace of its own, and one tf.function made once
    would keep the first value baked into its trace. A local holding a tensor or an array
    (`xb = x[i:i + 16]`) is data, not one: a tf.function made once could take it as an argument
    and trace once."""
    if not varied:
        return False
    owner = scope.node
    dependent = set(varied)
    changed = True
    while changed:
        changed = False
        for node in ast.walk(owner):
            if node is decorated:
                continue
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None \
                    and _reads(node.value, dependent):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    for name in ast.walk(target):
                        if isinstance(name, ast.Name) and name.id not in dependent \
                                and values.value(name, scope).kind not in _DATA:
                            dependent.add(name.id)
                            changed = True
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node is not owner \
                    and node.name not in dependent and any(_reads(s, dependent) for s in node.body):
                dependent.add(node.name)
                changed = True
    return any(_reads(statement, dependent) for statement in decorated.body)


_DATA = TF_VALUES | NUMPY_VALUES


def _reads(node: ast.AST, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in names for n in ast.walk(node))
