from __future__ import annotations

import ast

from ...facts.model import Scope
from ...model import Applicability, Severity
from ...versions import VersionRange
from ...analysis.python_state import FileState, file_state, is_container, is_number, self_attribute
from ...analysis.traced_bodies import Body, helper_bodies, in_eager_branch, traced_bodies
from ..tape._fixes import unfixed
from ._fixes import tf_alias
from ..base import Context, Proof, Rule, invalid, valid

# Methods that change a Python list, dict, set or deque in place.
_MUTATORS = frozenset({
    "append", "extend", "insert", "remove", "pop", "clear", "sort", "reverse", "update", "setdefault",
    "popitem", "add", "discard", "appendleft", "extendleft", "popleft", "difference_update",
    "intersection_update", "symmetric_difference_update",
})
# Library calls that write files.
_WRITERS = frozenset({
    "numpy.save", "numpy.savez", "numpy.savez_compressed", "numpy.savetxt", "json.dump", "pickle.dump",
})
_WRITE_MODES = set("wax+")


class PythonSideEffect(Rule):
    """
    ## What it does
    Finds Python side effects in the body of a `tf.function`: `print(...)`, changes to a
    Python list, dict or set defined outside the function (`log.append(x)`,
    `cache[k] = v`), Python counters kept in a global, a closure or an attribute
    (`self.calls += 1` on a Python int), and file writes (`open(path, "w")`).
    `print` is reported as information, the others as warnings. Also in the bodies
    TensorFlow traces without a `tf.function`: a function given to `Dataset.map`, `filter`,
    `flat_map`, `interleave` or `reduce` (tf.data traces it once, when the pipeline is
    built, eager or not), and a Keras model's `train_step` / `test_step` / `predict_step`
    (`fit` / `evaluate` / `predict` trace them unless Keras runs eagerly:
    `compile(run_eagerly=True)`, `model.run_eagerly = True`).

    Not reported: trace-time code written as such. A `print` whose text says it marks
    tracing (`print("Tracing with", x)`), a counter named for traces (`num_traces += 1`),
    code under `with tf.init_scope():` (lifted out of the graph on purpose, once per
    trace), and a container filled once behind a guard that it is still empty
    (`if not cache: cache.append(tf.Variable(0.0))`, `if slot[0] is None: slot[0] = ...`).
    State that observes the trace: a local of the function that makes the tf.function,
    which calls it only outside loops, never lets it out and reads the state after it (a
    test counting traces, a helper recording the shapes seen while tracing): each call of
    that function makes a new tf.function that traces once. Code in the eager branch of a
    `tf.executing_eagerly()` test (it does not run in the trace).

    ## Why is this bad?
    TensorFlow runs the Python body of a tf.function only while it traces it into a
    graph: on the first call, and again only when it retraces. Later calls run the graph,
    which contains TensorFlow ops only. So `print` prints once (and shows symbolic
    tensors, not values), the outer list grows by one entry per trace instead of per
    call, the counter counts traces, and the file is written once. TensorFlow says
    nothing about it.

    ## Example
    ```python
    history = []

    @tf.function
    def train_step(x):
        loss = tf.reduce_sum(x * x)
        print("loss", loss)      # prints once, a symbolic tensor
        history.append(loss)     # one entry, however many steps run
        return loss
    ```

    ## Use instead
    ```python
    total = tf.Variable(0.0)

    @tf.function
    def train_step(x):
        loss = tf.reduce_sum(x * x)
        tf.print("loss", loss)   # prints on every call
        total.assign_add(loss)   # state TensorFlow updates on every call
        return loss

    history.append(train_step(x))  # collect results outside the function
    ```
    `tf.print`, `tf.TensorArray`, and a `tf.Variable` with `.assign*` are the
    per-call equivalents.
    """

    code = "FUNC007"
    name = "python-side-effect-in-tf-function"
    summary = "Python side effect in a tf.function body runs only while tracing"
    severity = Severity.WARNING
    tensorflow = VersionRange(">=2.0")
    cheap_without_triggers = True
    triggers = (".function", "import function", ".map(", ".filter(", ".flat_map(", ".interleave(", ".reduce(",
                "train_step", "test_step", "predict_step")
    fixable = True
    examples = (
        unfixed(invalid("""
            import tensorflow as tf


            class Policy:
                def __init__(self):
                    self.steps = 0

                def _count(self):
                    self.steps += 1

                def action(self, x):
                    self._count()
                    return x * 2.0


            policy = Policy()
            act = tf.function(policy.action)
            for _ in range(3):
                act(tf.constant(1.0))
        """, 9, "a helper method that only the tf.function calls; the tf.function wraps a method of an instance",
            proof=Proof(check="assert policy.steps == 1"))),
        valid("""
            import tensorflow as tf


            class Policy:
                def __init__(self):
                    self.steps = 0

                def _count(self):
                    self.steps += 1

                def action(self, x):
                    return x * 2.0

                def act_eagerly(self, x):
                    self._count()
                    return self.action(x)


            policy = Policy()
            act = tf.function(policy.action)
            for _ in range(3):
                policy.act_eagerly(tf.constant(1.0))
        """, "the helper runs in eager code, not in the traced method",
            proof=Proof(check="assert policy.steps == 3")),
        invalid("""
            import tensorflow as tf

            @tf.function
            def scale(x):
                print("scaling", x)
                return x * 2.0

            first = scale(tf.constant(1.0))
        """, 5, "print runs once, while tracing",
            proof=Proof(check="""
                import contextlib, io
                out = io.StringIO()
                with contextlib.redirect_stdout(out):
                    second = scale(tf.constant(3.0))
                assert float(second) == 6.0
                assert out.getvalue() == "", "print should not run on a traced call"
            """),
            fixed="""
            import tensorflow as tf

            @tf.function
            def scale(x):
                tf.print("scaling", x)
                return x * 2.0

            first = scale(tf.constant(1.0))
        """, fixed_proof=Proof(check="""
                import os, sys, tempfile
                sys.stderr.flush()
                saved = os.dup(2)
                with tempfile.TemporaryFile() as capture:
                    os.dup2(capture.fileno(), 2)  # tf.print writes to the process's stderr
                    try:
                        second = scale(tf.constant(3.0))
                    finally:
                        os.dup2(saved, 2)
                        os.close(saved)
                    capture.seek(0)
                    printed = capture.read().decode()
                assert float(second) == 6.0 and "scaling 3" in printed, printed
            """)),
        invalid("""
            import sys
            import tensorflow as tf

            @tf.function
            def step(x, weights):
                loss = tf.reduce_sum(x * weights)
                print("loss:", loss, "norm:", tf.norm(weights), sep=" ", file=sys.stderr)  # progress
                return loss
        """, 7, "print to stderr with sep=: tf.print takes the same arguments (file= is its output_stream=)",
            fixed="""
            import sys
            import tensorflow as tf

            @tf.function
            def step(x, weights):
                loss = tf.reduce_sum(x * weights)
                tf.print("loss:", loss, "norm:", tf.norm(weights), sep=" ", output_stream=sys.stderr)  # progress
                return loss
        """),
        unfixed(invalid("""
            import tensorflow as tf

            @tf.function
            def step(x):
                print(f"step with {x}")
                return x + 1.0
        """, 5, "a string formatted in Python is frozen at trace time: no fix")),
        unfixed(invalid("""
            import tensorflow as tf

            losses = []

            @tf.function
            def train_step(x):
                loss = tf.reduce_sum(x * x)
                losses.append(loss)
                return loss

            for _ in range(3):
                train_step(tf.constant([1.0, 2.0]))
        """, 8, "appending to a list defined outside the function",
            proof=Proof(check="assert len(losses) == 1, len(losses)"))),
        unfixed(invalid("""
            import tensorflow as tf

            class Agent(tf.Module):
                def __init__(self):
                    self.updates = 0

                @tf.function
                def update(self, x):
                    self.updates += 1
                    return x + 1.0

            agent = Agent()
            for _ in range(3):
                agent.update(tf.constant(0.0))
        """, 9, "a Python int counter on self counts traces, not calls",
            proof=Proof(check="assert agent.updates == 1, agent.updates"))),
        unfixed(invalid("""
            import tensorflow as tf

            class Stats:
                def __init__(self):
                    self.calls = 0

            stats = Stats()

            @tf.function
            def step(x, counter):
                counter.calls += 1
                return x * 2.0

            for _ in range(5):
                step(tf.constant(1.0), stats)
        """, 11, "a Python int attribute of an object passed in (tensorflow#31362): one update per trace",
            proof=Proof(check="assert stats.calls == 1, stats.calls"))),
        valid("""
            import tensorflow as tf

            class Logged(tf.keras.Model):
                def __init__(self):
                    super().__init__()
                    self.dense = tf.keras.layers.Dense(2)
                    self.seen = []

                def call(self, x):
                    return self.dense(x)

                def train_step(self, data):
                    x, y = data
                    loss = tf.reduce_mean((self(x) - y) ** 2)
                    self.seen.append(float(loss))
                    return {"loss": loss}

            model = Logged()
            for _ in range(3):
                model.train_step((tf.ones((4, 3)), tf.zeros((4, 2))))
        """, "a train_step the file calls directly, never through fit: plain eager Python",
            proof=Proof(check="assert len(model.seen) == 3, model.seen")),
        valid("""
            import tensorflow as tf

            class Stats:
                def __init__(self):
                    self.calls = tf.Variable(0)

            stats = Stats()

            @tf.function
            def step(x, counter):
                counter.calls.assign_add(1)
                return x * 2.0

            for _ in range(5):
                step(tf.constant(1.0), stats)
        """, "the count kept in a tf.Variable of the object",
            proof=Proof(check="assert int(stats.calls) == 5")),
        unfixed(invalid("""
            import tensorflow as tf

            steps = 0

            @tf.function
            def step(x):
                global steps
                steps += 1
                return x * 0.5

            for _ in range(4):
                step(tf.constant(2.0))
        """, 8, "a global counter",
            proof=Proof(check="assert steps == 1, steps"))),
        unfixed(invalid("""
            import tensorflow as tf

            stats = {"calls": 0}

            @tf.function
            def step(x):
                stats["calls"] += 1
                return x * 0.5

            for _ in range(4):
                step(tf.constant(2.0))
        """, 7, "a dict entry defined outside the function",
            proof=Proof(check="assert stats['calls'] == 1, stats"))),
        unfixed(invalid("""
            import os
            import tempfile
            import tensorflow as tf

            LOG = os.path.join(tempfile.mkdtemp(), "steps.log")

            @tf.function
            def step(x):
                with open(LOG, "a") as handle:
                    handle.write("step\\n")
                return x * 2.0

            for _ in range(3):
                step(tf.constant(1.0))
        """, 9, "a file written once per trace",
            proof=Proof(check="""
                with open(LOG) as written:
                    assert written.read().count("step") == 1
            """))),
        valid("""
            import tensorflow as tf

            calls = tf.Variable(0)

            @tf.function
            def step(x):
                tf.print("step", x)
                calls.assign_add(1)
                parts = tf.TensorArray(tf.float32, size=2)
                parts = parts.write(0, x).write(1, x * 2.0)
                return parts.stack()

            for _ in range(3):
                out = step(tf.constant(1.0))
        """, "tf.print, tf.Variable.assign_add and tf.TensorArray run on every call",
            proof=Proof(check="assert int(calls.numpy()) == 3 and out.numpy().tolist() == [1.0, 2.0]")),
        valid("""
            import tensorflow as tf

            @tf.function
            def stack_squares(x):
                parts = []
                for i in range(3):
                    parts.append(x * i)
                return tf.stack(parts)

            a = stack_squares(tf.constant(2.0))
            b = stack_squares(tf.constant(3.0))
        """, "a list local to the traced body",
            proof=Proof(check="assert b.numpy().tolist() == [0.0, 3.0, 6.0]")),
        valid("""
            import tensorflow as tf

            b = None

            @tf.function
            def f(x):
                global b
                if b is None:
                    b = tf.Variable(12.0)
                return x + b

            y = f(tf.constant(1.0))
        """, "a global variable created lazily behind a first-call guard",
            proof=Proof(check="assert float(y) == 13.0 and float(f(tf.constant(2.0))) == 14.0")),
        valid("""
            import tensorflow as tf

            history = []

            @tf.function
            def step(x):
                return x * 2.0

            for i in range(3):
                loss = step(tf.constant(float(i)))
                print("step", i, float(loss))
                history.append(loss)
        """, "print and list appends outside the tf.function",
            proof=Proof(check="assert len(history) == 3")),
        valid("""
            import tensorflow as tf

            num_traces = 0

            @tf.function
            def double(x):
                global num_traces
                num_traces += 1
                print("Tracing with", x)
                return x + x

            for value in (1.0, 2.0, 3.0):
                double(tf.constant(value))
            double(tf.constant([1.0, 2.0]))
        """, "a print that marks tracing and a counter of traces: once per trace is what they are for",
            proof=Proof(check="assert num_traces == 2, num_traces")),
        valid("""
            import tensorflow as tf

            class Model(tf.Module):
                def __init__(self):
                    self.v = tf.Variable(0)
                    self.counter = 0

                @tf.function
                def __call__(self):
                    if self.counter == 0:
                        with tf.init_scope():
                            self.counter += 1
                            self.v.assign_add(1)
                    return self.v

            m = Model()
            values = [int(m().numpy()) for _ in range(3)]
        """, "a one-time block lifted out of the graph with tf.init_scope()",
            proof=Proof(check="assert values == [1, 1, 1], values")),
        valid("""
            import tensorflow as tf

            slot = []

            @tf.function
            def step(x):
                if not slot:
                    slot.append(tf.Variable(0.0))
                slot[0].assign_add(x)
                return slot[0].read_value()

            for _ in range(3):
                total = step(tf.constant(1.0))
        """, "a container filled once behind a guard that it is empty (a lazily created variable)",
            proof=Proof(check="assert float(total) == 3.0 and len(slot) == 1")),
        invalid("""
            import tensorflow as tf

            def scale(x):
                print("scaling", x)
                return x * 2.0

            data = tf.data.Dataset.from_tensor_slices([1.0, 2.0, 3.0]).map(scale)
        """, 4, "print in a function given to Dataset.map: tf.data traces it once, when map() is called",
            proof=Proof(check="""
                import contextlib, io
                out = io.StringIO()
                with contextlib.redirect_stdout(out):
                    values = [float(v) for v in data]
                assert values == [2.0, 4.0, 6.0], values
                assert out.getvalue() == "", "print should not run per element"
            """),
            fixed="""
            import tensorflow as tf

            def scale(x):
                tf.print("scaling", x)
                return x * 2.0

            data = tf.data.Dataset.from_tensor_slices([1.0, 2.0, 3.0]).map(scale)
        """, fixed_proof=Proof(check="""
                import os, sys, tempfile
                sys.stderr.flush()
                saved = os.dup(2)
                with tempfile.TemporaryFile() as capture:
                    os.dup2(capture.fileno(), 2)  # tf.print writes to the process's stderr
                    try:
                        values = [float(v) for v in data]
                    finally:
                        os.dup2(saved, 2)
                        os.close(saved)
                    capture.seek(0)
                    printed = capture.read().decode()
                assert values == [2.0, 4.0, 6.0] and printed.count("scaling") == 3, printed
            """)),
        unfixed(invalid("""
            import tensorflow as tf

            seen = []

            def parse(x):
                seen.append(x)
                return x + 1

            data = tf.data.Dataset.range(5).map(parse)
            total = sum(int(v) for v in data)
        """, 6, "a list appended to in a Dataset.map function: once per trace, not per element",
            proof=Proof(check="assert total == 15 and len(seen) == 1, (total, len(seen))"))),
        unfixed(invalid("""
            import numpy as np
            import tensorflow as tf

            losses = []

            class Regressor(tf.keras.Model):
                def __init__(self):
                    super().__init__()
                    self.dense = tf.keras.layers.Dense(1)

                def call(self, x):
                    return self.dense(x)

                def train_step(self, data):
                    x, y = data
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean((self(x) - y) ** 2)
                    grads = tape.gradient(loss, self.trainable_variables)
                    self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
                    losses.append(loss)
                    return {"loss": loss}

            model = Regressor()
            model.compile(optimizer="sgd")
            model.fit(np.ones((32, 3), "float32"), np.ones((32, 1), "float32"), batch_size=8, epochs=2, verbose=0)
        """, 20, "a list appended to in a Keras train_step: fit traces train_step into a tf.function",
            proof=Proof(check="assert len(losses) < 8, len(losses)  # 8 steps ran"))),
        unfixed(invalid("""
            import tensorflow as tf

            def train(batches):
                losses = []

                @tf.function
                def step(x):
                    loss = tf.reduce_sum(x * x)
                    losses.append(loss)
                    return loss

                for x in batches:
                    step(x)
                return len(losses)

            count = train([tf.constant([1.0]), tf.constant([2.0]), tf.constant([3.0])])
        """, 9, "a list local to the function that makes the tf.function, which it calls in a loop",
            proof=Proof(check="assert count == 1, count"))),
        valid("""
            import numpy as np
            import tensorflow as tf

            losses = []

            class Regressor(tf.keras.Model):
                def __init__(self):
                    super().__init__()
                    self.dense = tf.keras.layers.Dense(1)

                def call(self, x):
                    return self.dense(x)

                def train_step(self, data):
                    x, y = data
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean((self(x) - y) ** 2)
                    grads = tape.gradient(loss, self.trainable_variables)
                    self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
                    print("step loss", float(loss))
                    losses.append(loss)
                    return {"loss": loss}

            model = Regressor()
            model.compile(optimizer="sgd", run_eagerly=True)
            model.fit(np.ones((32, 3), "float32"), np.ones((32, 1), "float32"), batch_size=8, epochs=2, verbose=0)
        """, "a Keras train_step compiled with run_eagerly=True: fit runs it as Python on every step",
            proof=Proof(check="assert len(losses) == 8, len(losses)")),
        valid("""
            import tensorflow as tf

            def log(x):
                print("element", int(x))
                return x

            data = tf.data.Dataset.range(3).map(lambda x: tf.py_function(log, [x], tf.int64))
        """, "print in a tf.py_function callback of a Dataset.map function: it runs as Python per element",
            proof=Proof(check="""
                import contextlib, io
                out = io.StringIO()
                with contextlib.redirect_stdout(out):
                    values = [int(v) for v in data]
                assert values == [0, 1, 2] and out.getvalue().count("element") == 3, out.getvalue()
            """)),
        valid("""
            import tensorflow as tf

            @tf.function
            def scale(x):
                if tf.executing_eagerly():
                    print("eager value", x.numpy())
                return x * 2.0

            y = scale(tf.constant(1.0))
        """, "print in the eager branch of `if tf.executing_eagerly():`: the branch does not run in the trace",
            proof=Proof(check="""
                import contextlib, io
                out = io.StringIO()
                with contextlib.redirect_stdout(out):
                    z = scale(tf.constant([1.0, 2.0]))  # a new shape: traces again
                assert float(y) == 2.0 and out.getvalue() == "", out.getvalue()
            """)),
        valid("""
            import tensorflow as tf

            def traced_shape(fn, spec):
                seen = []

                @tf.function
                def wrapper(x):
                    result = fn(x)
                    seen.append(result.shape.as_list())
                    return result

                wrapper.get_concrete_function(spec)
                return seen[0]

            shape = traced_shape(lambda x: x[:, :2], tf.TensorSpec([None, 3]))
        """, "state that observes the trace: local to the function that makes the tf.function, "
             "traced once there and read after it (a shape seen at trace time)",
            proof=Proof(check="assert shape == [None, 2], shape")),
        valid("""
            import collections
            import tensorflow as tf

            def traces_of(fn, x):
                counter = collections.Counter()

                @tf.function
                def target(x):
                    counter["calls"] += 1
                    return fn(x)

                target(x)
                target(x)
                return counter["calls"]

            traces = traces_of(lambda v: v * v, tf.constant(2.0))
        """, "a counter of a test that checks its tf.function traces once (read after the calls)",
            proof=Proof(check="assert traces == 1, traces")),
        invalid("""
            import tensorflow as tf


            class NormHistory:
                def __init__(self):
                    self.norms = tf.Variable(tf.zeros(8), trainable=False)
                    self.count = 0

                def __call__(self, grad):
                    self.norms[self.count % 8].assign(tf.norm(grad))
                    self.count += 1
                    return grad


            history = NormHistory()


            @tf.function
            def step(x):
                return history(x * 2.0)


            for _ in range(4):
                step(tf.ones(3))
            print(history.count)
        """, 11, "a module-level object's `__call__`, which the tf.function calls: the count moves only while it traces",
            proof=Proof(check="assert history.count == 1"),
            fixed="""
            import tensorflow as tf


            class NormHistory:
                def __init__(self):
                    self.norms = tf.Variable(tf.zeros(8), trainable=False)
                    self.count = 0

                def __call__(self, grad):
                    self.norms[self.count % 8].assign(tf.norm(grad))
                    self.count += 1
                    return grad


            history = NormHistory()


            @tf.function
            def step(x):
                return history(x * 2.0)


            for _ in range(4):
                step(tf.ones(3))
            print(history.count)
        """),
    )

    def check(self, ctx: Context) -> None:
        state = file_state(ctx.facts)
        bodies = traced_bodies(ctx)
        helpers = helper_bodies(ctx, bodies)
        if helpers:
            bodies = {**bodies, **helpers}
        for body in bodies.values():
            scope = body.scope
            for node in state.own(scope.node, _SIDE_EFFECT_NODES):
                found = _side_effect(node, scope, state, ctx, bodies)
                if found is None or _deliberate(node, found[2], scope, ctx) \
                        or _observes_trace(node, found[2], body, state) or in_eager_branch(node, body, ctx.facts):
                    continue
                where, message, kind, related = found
                related_info = [ctx.related(body.origin, body.note)]
                if related is not None:
                    related_info.append(ctx.related(related[0], related[1]))
                saved = ctx.severity
                if kind == "print" and ctx.severity == self.severity:
                    ctx.severity = Severity.INFORMATION
                fix = _tf_print(ctx, where) if kind == "print" else None
                try:
                    ctx.report(where, message.format(fn=body.label, body=body.where), related=related_info, fix=fix)
                finally:
                    ctx.severity = saved


# `print` keywords tf.print takes with the same meaning; `file=` is tf.print's `output_stream=`
# for the streams both know.
_PRINT_KEYWORDS = frozenset({"sep", "end"})
_STREAMS = frozenset({"sys.stdout", "sys.stderr"})
# Arguments whose value is the same whether Python prints it once or tf.print on every call.
_PLAIN = (ast.Constant, ast.Name, ast.Attribute, ast.Subscript, ast.BinOp, ast.UnaryOp, ast.Compare,
          ast.Tuple, ast.List)


def _tf_print(ctx: Context, call: ast.AST):
    """`print(...)` -> `tf.print(...)`: safe when every argument is a plain value or tensor
    (names, constants, attributes, arithmetic, TensorFlow ops), unsafe with other calls
    (their Python result is computed once, at trace time); none for strings formatted in
    Python (f-strings, `%`, `.format`: the text is frozen at trace time), `file=` other than
    sys.stdout/sys.stderr, `flush=`, or `*args`/`**kwargs`. tf.print writes to stderr."""
    if not isinstance(call, ast.Call):
        return None
    alias = tf_alias(ctx.facts)
    if alias is None or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    renames: dict[str, str] = {}
    for keyword in call.keywords:
        if keyword.arg in _PRINT_KEYWORDS:
            continue
        if keyword.arg == "file" and ctx.facts.imports.resolve(keyword.value) in _STREAMS:
            renames["file"] = "output_stream"
            continue
        return None
    safe = True
    for argument in [*call.args, *(k.value for k in call.keywords if k.arg != "file")]:
        for node in ast.walk(argument):
            if isinstance(node, ast.JoinedStr) or (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod)
                                                    and isinstance(node.left, (ast.Constant, ast.JoinedStr))):
                return None
            if isinstance(node, ast.Call):
                if isinstance(node.func, ast.Attribute) and node.func.attr in ("format", "numpy", "item", "tolist"):
                    return None
                if not (ctx.facts.imports.resolve(node.func) or "").startswith("tensorflow."):
                    safe = False
            elif not isinstance(node, (*_PLAIN, ast.expr_context, ast.operator, ast.unaryop, ast.cmpop,
                                       ast.keyword, ast.Slice)):
                safe = False
    text = ctx.facts.source.text

    def build():
        from ...fixes.callee import callee_fix

        return callee_fix(text, call, f"{alias}.print", f"Use `{alias}.print(...)`, which prints on every call",
                          Applicability.SAFE if safe else Applicability.UNSAFE, renames)
    return build


_SIDE_EFFECT_NODES = (ast.Call, ast.Assign, ast.AugAssign, ast.Delete)  # what `_side_effect` looks at


def _side_effect(node: ast.AST, scope: Scope, state: FileState, ctx: Context, bodies: dict[int, Body]):
    """(node to report, message with {fn}, kind, optional (node, note)) or None."""
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name) and func.id == "print" and state.is_builtin(scope, "print"):
            return (node, "`print` runs only while TensorFlow traces {fn}, not on every call (and it shows "
                    "symbolic tensors, not values). Use `tf.print(...)` to print on every call.", "print", None)
        if isinstance(func, ast.Name) and func.id == "open" and state.is_builtin(scope, "open") \
                and _writes(node):
            return (node, "This file is opened for writing inside {body}: the write runs only "
                    "while TensorFlow traces it, once per trace, not on every call. Write outside the "
                    "function, or use `tf.io.write_file` / `tf.print(..., output_stream=\"file://...\")`.",
                    "file", None)
        qualname = ctx.facts.imports.resolve(func)
        if qualname in _WRITERS:
            return (node, f"`{ast.unparse(func)}(...)` inside {{body}} writes its file only while "
                    "TensorFlow traces it, once per trace, not on every call, and sees symbolic tensors. "
                    "Save results outside the function.", "file", None)
        if isinstance(func, ast.Attribute) and func.attr in _MUTATORS:
            outer = _outer_container(func.value, scope, state, ctx, bodies)
            if outer is not None:
                label, kind_name, defined = outer
                return (node, f"`{label}.{func.attr}(...)` changes the Python {kind_name} `{label}` defined "
                        "outside {body}: it runs only while TensorFlow traces {fn}, once per trace, "
                        "not on every call. Keep per-call state in a `tf.Variable` (`.assign`) or a "
                        "`tf.TensorArray`, or return the value and collect it outside.", "state",
                        (defined, f"`{label}` defined here"))
        return None
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete)):
        targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
        for target in targets:
            if isinstance(target, ast.Subscript):
                outer = _outer_container(target.value, scope, state, ctx, bodies)
                if outer is not None:
                    label, kind_name, defined = outer
                    verb = {ast.Delete: "Deleting from", ast.AugAssign: "Updating"}.get(type(node), "Assigning into")
                    return (node, f"{verb} the Python {kind_name} `{label}` defined outside "
                            "{body} happens only while TensorFlow traces {fn}, once per trace, not on every "
                            "call. Keep per-call state in a `tf.Variable` (`.assign`), or return the value "
                            "and store it outside.", "state", (defined, f"`{label}` defined here"))
        if isinstance(node, (ast.AugAssign, ast.Assign)):
            counter = _counter(node, scope, state)
            if counter is not None:
                label, defined = counter
                return (node, f"`{label}` is a Python number: this update runs only while TensorFlow traces "
                        "{fn}, so it counts traces, not calls. Keep it in a `tf.Variable` and use "
                        "`.assign_add(...)`.", "state", (defined, f"`{label}` starts as a Python number here"))
    return None


def _deliberate(node: ast.AST, kind: str, scope: Scope, ctx: Context) -> bool:
    """Trace-time code written as such: a print that says it marks tracing, a counter of
    traces, a block under `tf.init_scope()` (lifted out of the graph on purpose, run once per
    trace), a container filled once behind a guard that it is still empty."""
    if kind == "print":
        return _marks_tracing(node)
    if _counts_traces(node):
        return True
    enclosing = _enclosing(node, scope)
    for outer in enclosing:
        if isinstance(outer, ast.With) and any(
                isinstance(item.context_expr, ast.Call)
                and ctx.facts.imports.resolve(item.context_expr.func) == "tensorflow.init_scope"
                for item in outer.items):
            return True
    if kind == "state":
        filled = _filled_container(node)
        if filled is not None and any(isinstance(outer, ast.If) and _inside_body(node, outer)
                                      and _tests_unset(outer.test, filled) for outer in enclosing):
            return True
    return False


def _observes_trace(node: ast.AST, kind: str, body: Body, state: FileState) -> bool:
    """State that observes the trace, kept in the function that makes the tf.function: the
    container or counter is a local of an untraced function that defines the tf.function, calls
    it (or `get_concrete_function`, or hands it to a call) only outside loops and never lets it
    out, and reads the state after the def (`logged.append(...)` then `len(logged)`,
    `counter["calls"] += 1` then `assert counter == ...`). Each call of that function makes a new
    tf.function that traces once, so once per trace is once per call there, and what is written
    is what the code reads."""
    root = body.root
    if kind != "state" or body.implicit or not isinstance(root, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    name = _state_name(node)
    if name is None:
        return False
    owner = state.defining_scope(body.scope, name)
    root_scope = state.scope_for(root)
    if owner is None or owner.kind != "function" or owner.traced_by is not None or root_scope is None \
            or root_scope.parent is None or root_scope.parent.function is not owner:
        return False
    end = getattr(root, "end_lineno", root.lineno)
    if not any(load.lineno > end for load in owner.loads.get(name, ())):
        return False
    loops = [n for n in state.own(owner.node, _LOOPS)]
    uses = owner.loads.get(root.name, ())
    if not uses or any(_within(other, owner) and other.loads.get(root.name) for other in state.facts.scopes
                       if other is not owner):
        return False  # also called from a nested def or lambda (`timeit(lambda: f(x))`): how often is unknown
    parents = _parents(state, owner.node)
    for use in uses:
        if any(_contains(loop, use) for loop in loops):
            return False
        parent = parents.get(id(use))
        if isinstance(parent, ast.Call) and (parent.func is use or use in parent.args):
            continue
        if isinstance(parent, ast.keyword):
            continue
        if isinstance(parent, ast.Attribute) and parent.attr == "get_concrete_function":
            continue
        return False  # returned, stored, or anything else that lets it be called again
    return True


_LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _within(scope: Scope, outer: Scope) -> bool:
    current = scope.parent
    while current is not None:
        if current is outer:
            return True
        current = current.parent
    return False


def _state_name(node: ast.AST) -> str | None:
    """The local name a side effect writes: `x.append(...)`, `x[k] = ...`, `x[k] += 1`, `x += 1`."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        target = node.func.value
    elif isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
    elif isinstance(node, ast.AugAssign):
        target = node.target
    else:
        return None
    if isinstance(target, ast.Subscript):
        target = target.value
    return target.id if isinstance(target, ast.Name) else None


def _parents(state: FileState, function: ast.AST) -> dict[int, ast.AST]:
    found: dict[int, ast.AST] = {}
    for parent in state.own(function):
        for child in ast.iter_child_nodes(parent):
            found[id(child)] = parent
    return found


def _marks_tracing(call: ast.AST) -> bool:
    """`print("Tracing with", x)`, `print("<<TRACING>>")`: the text says it runs when tracing."""
    if not isinstance(call, ast.Call):
        return False
    for argument in call.args:
        parts = argument.values if isinstance(argument, ast.JoinedStr) else \
            [argument.left] if isinstance(argument, ast.BinOp) else [argument]
        for part in parts:
            if isinstance(part, ast.Constant) and isinstance(part.value, str) and "trac" in part.value.lower():
                return True
    return False


def _counts_traces(node: ast.AST) -> bool:
    """`num_traces += 1`, `self.trace_count += 1`, `counts["traces"] += 1`: a counter named for traces."""
    if not isinstance(node, ast.AugAssign):
        return False
    target = node.target
    label = ast.unparse(target).lower()
    return "trac" in label


def _enclosing(node: ast.AST, scope: Scope) -> list[ast.AST]:
    """The statements of the traced body that contain `node`, outermost first."""
    found: list[ast.AST] = []
    body = getattr(scope.node, "body", None)
    stack = list(body) if isinstance(body, list) else []
    while stack:
        stmt = stack.pop()
        if stmt is node or not _contains(stmt, node) or isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                          ast.ClassDef)):
            continue
        found.append(stmt)
        stack = [child for name in ("body", "orelse", "finalbody", "handlers")
                 for child in getattr(stmt, name, None) or []]
    return found


def _contains(outer: ast.AST, node: ast.AST) -> bool:
    start = (outer.lineno, outer.col_offset)
    end = (getattr(outer, "end_lineno", 0) or 0, getattr(outer, "end_col_offset", 0) or 0)
    return start <= (node.lineno, node.col_offset) and \
        (getattr(node, "end_lineno", 0) or 0, getattr(node, "end_col_offset", 0) or 0) <= end


def _inside_body(node: ast.AST, branch: ast.If) -> bool:
    return any(_contains(stmt, node) for stmt in branch.body)


def _filled_container(node: ast.AST) -> str | None:
    """The container (as text) that `x.append(...)`, `x[k] = ...`, `x[0] = ...` fills."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return ast.unparse(node.func.value)
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript):
        return ast.unparse(node.targets[0].value)
    return None


def _tests_unset(test: ast.expr, container: str) -> bool:
    """`not x`, `not x[0]`, `x is None`, `x[0] is None`, `len(x) == 0`, `key not in x`."""
    if isinstance(test, ast.BoolOp):
        return any(_tests_unset(v, container) for v in test.values)

    def names(expr: ast.expr) -> bool:
        text = ast.unparse(expr)
        return text == container or text.startswith(container + "[")
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return names(test.operand)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        op, right = test.ops[0], test.comparators[0]
        if isinstance(op, ast.Is) and isinstance(right, ast.Constant) and right.value is None:
            return names(test.left)
        if isinstance(op, ast.NotIn):
            return ast.unparse(right) == container
        if isinstance(op, ast.Eq) and isinstance(right, ast.Constant) and right.value == 0 \
                and isinstance(test.left, ast.Call) and isinstance(test.left.func, ast.Name) \
                and test.left.func.id == "len" and test.left.args:
            return names(test.left.args[0])
    return False


def _writes(call: ast.Call) -> bool:
    mode = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "mode"), None)
    return isinstance(mode, ast.Constant) and isinstance(mode.value, str) and bool(_WRITE_MODES & set(mode.value))


def _kind_name(value: ast.expr) -> str:
    if isinstance(value, (ast.Dict, ast.DictComp)):
        return "dict"
    if isinstance(value, (ast.Set, ast.SetComp)):
        return "set"
    if isinstance(value, ast.Call):
        name = ast.unparse(value.func).rsplit(".", 1)[-1]
        return {"defaultdict": "dict", "OrderedDict": "dict", "Counter": "dict"}.get(name, name)
    return "list"


def _outer_container(expr: ast.expr, scope: Scope, state: FileState, ctx: Context, bodies: dict[int, Body]):
    """(label, kind, defining node) when `expr` is a Python container bound outside the trace."""
    if isinstance(expr, ast.Name):
        defining = state.defining_scope(scope, expr.id)
        if defining is None or (defining.kind != "module" and id(defining.node) in bodies):
            return None
        bindings = state.names(defining).bindings.get(expr.id, [])
        return _containers(expr.id, bindings, ctx)
    attr = self_attribute(expr)
    if attr is not None:
        cls = state.class_of(scope)
        if cls is None:
            return None
        return _containers(f"self.{attr}", state.class_attrs(cls).get(attr, []), ctx)
    return None


def _containers(label: str, bindings, ctx: Context):
    assigned = [b for b in bindings if b.kind != "augassign"]
    if not assigned or any(b.kind != "assign" or not is_container(b.value, ctx.facts) for b in assigned):
        return None
    first = assigned[0]
    return label, _kind_name(first.value), first.stmt


def _object_counter(target: ast.expr, scope: Scope, state: FileState):
    """(label, defining node) for `obj.n += 1` on an object made outside the traced body (a global,
    or a parameter given one: a Python object is a trace key by identity), whose attribute the
    value model knows as a Python number: an instance of a class of this file that sets it."""
    if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)):
        return None
    name = target.value.id
    function = scope.node
    params = {a.arg for a in getattr(getattr(function, "args", None), "args", [])}
    local = name not in params and any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
                                       for n in ast.walk(function))
    if local:
        return None  # an object made in the body is new on every trace
    from ...analysis.values import INSTANCE, NUMBER, values_of

    values = values_of(state.facts)
    where = dict(lineno=target.lineno, col_offset=target.col_offset)
    holder = values.value(ast.Name(name, ast.Load(), **where), scope)
    read = values.value(ast.Attribute(ast.Name(name, ast.Load(), **where), target.attr, ast.Load(), **where), scope)
    if not (holder.certain and holder.kind == INSTANCE and isinstance(holder.ref, ast.ClassDef)
            and read.kind == NUMBER):
        return None
    initial = [b for b in state.class_attrs(holder.ref).get(target.attr, []) if b.kind == "assign"
               and is_number(b.value)]
    if not initial:
        return None
    return ast.unparse(target), initial[0].stmt


def _counter(node: ast.Assign | ast.AugAssign, scope: Scope, state: FileState):
    """(label, defining node) for `n += 1` on a global/nonlocal/self attribute that holds a Python number."""
    if isinstance(node, ast.AugAssign):
        target, increment = node.target, node.value
    else:
        if len(node.targets) != 1 or not isinstance(node.value, ast.BinOp):
            return None
        target = node.targets[0]
        value = node.value
        same = ast.dump(value.left) == ast.dump(target) if isinstance(target, (ast.Name, ast.Attribute)) else False
        if not same:
            return None
        increment = value.right
    if not is_number(increment):
        return None
    names = state.names(scope)
    if isinstance(target, ast.Name):
        if target.id in names.declared_global:
            owner = state.facts.module
        elif target.id in names.declared_nonlocal and scope.parent is not None:
            owner = state.defining_scope(scope.parent, target.id)
        else:
            return None
        if owner is None:
            return None
        bindings = [b for b in state.names(owner).bindings.get(target.id, []) if b.kind != "augassign"]
        if bindings and all(b.kind == "assign" and is_number(b.value) for b in bindings):
            return target.id, bindings[0].stmt
        return None
    attr = self_attribute(target)
    if attr is None:
        return _object_counter(target, scope, state)
    cls = state.class_of(scope)
    if cls is None:
        return None
    bindings = [b for b in state.class_attrs(cls).get(attr, []) if b.kind == "assign"]
    # `self.n = self.n + 1` itself is an assignment; only the initial values decide.
    initial = [b for b in bindings if not (isinstance(b.value, ast.BinOp) and ast.dump(b.value.left) == ast.dump(b.target))]
    if initial and all(is_number(b.value) for b in initial):
        return f"self.{attr}", initial[0].stmt
    return None
