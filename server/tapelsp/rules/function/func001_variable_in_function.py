from __future__ import annotations

import ast

from ...model import Severity
from ...versions import Version, VersionRange
from ...analysis.guards import _enclosing_params, ancestors, eager_context, is_first_call_guard
from ...analysis.values import wrapped_unseen
from ..base import Context, Proof, Rule, invalid, valid
from ..tape._fixes import unfixed

# Calls that create a tf.Variable (Keras's own wrappers included).
_CREATORS = ("tensorflow.Variable", "keras.backend.variable", "keras.Variable")

NEW_MESSAGE = ("tf.function only supports singleton tf.Variables created on the first call. "
               "Make sure the tf.Variable is only created once or created outside tf.function.")
OLD_MESSAGE = "tf.function-decorated function tried to create variables on non-first call."
# TensorFlow changed the wording of this error in 2.7.
NEW_MESSAGE_SINCE = Version.parse("2.7")


class VariableInFunction(Rule):
    """
    ## What it does
    Finds `tf.Variable(...)` created in the body of a `tf.function` without a
    first-call guard such as `if self.v is None:`, or in a Keras model's `train_step` /
    `test_step` / `predict_step`, which `fit` / `evaluate` / `predict` trace into a
    tf.function of their own (unless Keras runs eagerly); also a variable (`tf.Variable`,
    `K.variable`, `keras.Variable`) created in a loss or metric given to `model.compile`
    (or a function it calls), which `model.fit` traces into a tf.function of its own.
    A variable made under `tf.init_scope()` in a tf.function handed to a decorator the
    engine cannot see through (`@tff.tensorflow.computation` above `@tf.function`, which
    traces it once, in a graph) is left alone: that decorator decides how often it is traced.

    ## Why is this bad?
    A tf.function traces its Python body into a graph, and traces it again for new
    input shapes or types. TensorFlow allows variables to be created only on the
    first trace; creating one on every call raises
    `ValueError: tf.function only supports singleton tf.Variables created on the first call.`
    (before TensorFlow 2.7: "tf.function-decorated function tried to create variables on
    non-first call."). TensorFlow traces twice on the first call to check this, so the
    error appears right away, far from where the variable was meant to live.

    ## Example
    ```python
    @tf.function
    def scale(x):
        v = tf.Variable(2.0)
        return v * x
    ```

    ## Use instead
    ```python
    v = tf.Variable(2.0)

    @tf.function
    def scale(x):
        return v * x
    ```
    or create it in `__init__`, or lazily behind `if self.v is None:`.
    """

    code = "FUNC001"
    name = "variable-created-in-tf-function"
    summary = "tf.Variable created inside a tf.function body on every call"
    severity = Severity.ERROR
    tensorflow = VersionRange(">=2.0")
    cheap_without_triggers = True
    triggers = ("Variable", "variable")
    fixable = True
    examples = (
        invalid("""
            import tensorflow as tf

            @tf.function
            def scale(x):
                v = tf.Variable(2.0)
                return v * x

            y = scale(tf.constant(3.0))
        """, 5, "a variable in a decorated function",
            proof=Proof(raises=("ValueError", "tf.function only supports singleton tf.Variables created on the first call")),
            fixed="""
            import tensorflow as tf

            v = tf.Variable(2.0)

            @tf.function
            def scale(x):
                return v * x

            y = scale(tf.constant(3.0))
        """, fixed_proof=Proof(check="assert float(y) == 6.0 and float(scale(tf.constant(4.0))) == 8.0")),
        invalid("""
            import tensorflow as tf

            class Counter(tf.Module):
                @tf.function
                def __call__(self, x):
                    self.count = tf.Variable(0.0)
                    self.count.assign_add(1.0)
                    return x + self.count

            counter = Counter()
            counter(tf.constant(1.0))
        """, 6, "a method creating its state on every call",
            proof=Proof(raises=("ValueError", "tf.function only supports singleton tf.Variables")),
            fixed="""
            import tensorflow as tf

            class Counter(tf.Module):
                def __init__(self, *args, **kwargs):
                    super().__init__(*args, **kwargs)
                    self.count = tf.Variable(0.0)

                @tf.function
                def __call__(self, x):
                    self.count.assign_add(1.0)
                    return x + self.count

            counter = Counter()
            counter(tf.constant(1.0))
        """, fixed_proof=Proof(check="""
            assert float(counter(tf.constant(1.0))) == 3.0
            assert float(counter.count) == 2.0 and len(counter.trainable_variables) == 1
        """)),
        invalid("""
            import tensorflow as tf

            def train_step(x):
                w = tf.Variable(tf.ones([3, 1]))
                return tf.matmul(x, w)

            step = tf.function(train_step)
            out = step(tf.ones([2, 3]))
        """, 4, "a function wrapped with tf.function(...) later",
            proof=Proof(raises=("ValueError", "tf.function only supports singleton tf.Variables")),
            fixed="""
            import tensorflow as tf

            w = tf.Variable(tf.ones([3, 1]))

            def train_step(x):
                return tf.matmul(x, w)

            step = tf.function(train_step)
            out = step(tf.ones([2, 3]))
        """, fixed_proof=Proof(check="assert out.numpy().tolist() == [[3.0], [3.0]]")),
        invalid("""
            import tensorflow as tf

            class Scaler(tf.Module):
                def __init__(self, factor):
                    super().__init__()
                    self.factor = factor

                @tf.function
                def __call__(self, x):
                    scale = tf.Variable(self.factor)  # the learned scale
                    return scale * x

            s = Scaler(2.0)
            y = s(tf.constant(3.0))
        """, 10, "an initializer from attributes `__init__` sets: moved to the end of `__init__`",
            proof=Proof(raises=("ValueError", "tf.function only supports singleton tf.Variables")),
            fixed="""
            import tensorflow as tf

            class Scaler(tf.Module):
                def __init__(self, factor):
                    super().__init__()
                    self.factor = factor
                    self.scale = tf.Variable(self.factor)  # the learned scale

                @tf.function
                def __call__(self, x):
                    return self.scale * x

            s = Scaler(2.0)
            y = s(tf.constant(3.0))
        """, fixed_proof=Proof(check="""
            assert float(y) == 6.0 and float(s(tf.constant(5.0))) == 10.0
            assert len(s.trainable_variables) == 1
        """)),
        invalid("""
            import tensorflow as tf

            class Dense(tf.Module):
                def __init__(self, units):
                    super().__init__()
                    self.units = units

                @tf.function
                def __call__(self, x):
                    w = tf.Variable(tf.ones([x.shape[-1], self.units]))
                    return tf.matmul(x, w)

            layer = Dense(2)
            y = layer(tf.ones([1, 3]))
        """, 10, "an initializer that needs the input's shape: behind a first-call guard (unsafe)",
            proof=Proof(raises=("ValueError", "tf.function only supports singleton tf.Variables")),
            fixed="""
            import tensorflow as tf

            class Dense(tf.Module):
                def __init__(self, units):
                    super().__init__()
                    self.units = units
                    self._w = None

                @tf.function
                def __call__(self, x):
                    if self._w is None:
                        self._w = tf.Variable(tf.ones([x.shape[-1], self.units]))
                    return tf.matmul(x, self._w)

            layer = Dense(2)
            y = layer(tf.ones([1, 3]))
        """, fixed_proof=Proof(check="""
            assert y.numpy().tolist() == [[3.0, 3.0]]
            assert layer(tf.ones([4, 3])).shape == (4, 2) and len(layer.trainable_variables) == 1
        """)),
        invalid("""
            import tensorflow as tf

            @tf.function
            def accumulate(x):
                total = tf.Variable(tf.zeros_like(x))
                total.assign_add(x)
                return total.read_value()

            a = accumulate(tf.constant([1.0, 2.0]))
        """, 5, "a module-level function whose initializer needs its argument: a global behind a guard (unsafe)",
            proof=Proof(raises=("ValueError", "tf.function only supports singleton tf.Variables")),
            fixed="""
            import tensorflow as tf

            total = None

            @tf.function
            def accumulate(x):
                global total
                if total is None:
                    total = tf.Variable(tf.zeros_like(x))
                total.assign_add(x)
                return total.read_value()

            a = accumulate(tf.constant([1.0, 2.0]))
        """, fixed_proof=Proof(check="""
            b = accumulate(tf.constant([1.0, 2.0]))
            assert a.numpy().tolist() == [1.0, 2.0] and b.numpy().tolist() == [2.0, 4.0]
        """)),
        invalid("""
            import tensorflow as tf

            @tf.function
            def scale(x):
                v = tf.Variable(2.0)
                return v * x
        """, 5, "TensorFlow 2.6 and older word the error differently", tensorflow_version="2.6",
            fixed="""
            import tensorflow as tf

            v = tf.Variable(2.0)

            @tf.function
            def scale(x):
                return v * x
        """),
        invalid("""
            import tensorflow as tf

            @tf.function
            def step(x, training):
                if training:
                    v = tf.Variable(2.0)
                    return v * x
                return x

            step(tf.constant(1.0), True)
        """, 6, "a flag is not a first-call guard: the variable is made on every trace with training=True",
            proof=Proof(raises=("ValueError", "tf.function only supports singleton tf.Variables created on the first call")),
            fixed="""
            import tensorflow as tf

            v = tf.Variable(2.0)

            @tf.function
            def step(x, training):
                if training:
                    return v * x
                return x

            step(tf.constant(1.0), True)
        """, fixed_proof=Proof(check="assert float(step(tf.constant(3.0), True)) == 6.0")),
        valid("""
            import tensorflow as tf

            class Scaler(tf.Module):
                def __init__(self):
                    self.v = None

                @tf.function
                def __call__(self, x):
                    if self.v is None:
                        self.v = tf.Variable(2.0)
                    return self.v * x

            s = Scaler()
            a = s(tf.constant(1.0))
            b = s(tf.constant(2.0))
        """, "lazy creation behind a first-call guard",
            proof=Proof(check="assert float(a) == 2.0 and float(b) == 4.0")),
        valid("""
            import tensorflow as tf

            v = tf.Variable(2.0)

            @tf.function
            def scale(x):
                tf.print("scaling", x)
                noise = tf.random.uniform([])
                return v * x + 0.0 * noise

            a = scale(tf.constant(3.0))
        """, "a variable created once outside; tf.print and tf.random inside",
            proof=Proof(check="assert float(a) == 6.0")),
        valid("""
            import tensorflow as tf

            def make(x):
                v = tf.Variable(x)
                return v

            a = make(1.0)
            b = make(2.0)
        """, "variables created in a plain Python function",
            proof=Proof(check="assert float(a) == 1.0 and float(b) == 2.0")),
        unfixed(invalid("""
            import numpy as np
            import tensorflow as tf
            from tensorflow.keras import backend as K

            def weighted_loss(y_true, y_pred):
                weights = K.variable(np.array([1.0, 5.0]))
                return K.mean(K.square(y_true - y_pred) * weights)

            model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
            model.compile(optimizer="sgd", loss=weighted_loss)
            model.fit(np.ones((4, 3), "float32"), np.ones((4, 2), "float32"), verbose=0)
        """, 6, "`K.variable` in a loss that `model.fit` traces: no fix",
            proof=Proof(raises=("ValueError", "tf.function only supports singleton tf.Variables created on the first call")))),
        valid("""
            import numpy as np
            import tensorflow as tf
            from tensorflow.keras import backend as K

            def weighted_loss(y_true, y_pred):
                weights = K.constant(np.array([1.0, 5.0]))
                return K.mean(K.square(y_true - y_pred) * weights)

            model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
            model.compile(optimizer="sgd", loss=weighted_loss)
            history = model.fit(np.ones((4, 3), "float32"), np.ones((4, 2), "float32"), verbose=0)
        """, "a constant in the loss",
            proof=Proof(check="assert len(history.history['loss']) == 1")),
        valid("""
            import numpy as np
            import tensorflow as tf
            from tensorflow.keras import backend as K

            def weighted_loss(y_true, y_pred):
                weights = K.variable(np.array([1.0, 5.0]))
                return K.mean(K.square(y_true - y_pred) * weights)

            model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
            model.compile(optimizer="sgd", loss=weighted_loss, run_eagerly=True)
            history = model.fit(np.ones((4, 3), "float32"), np.ones((4, 2), "float32"), verbose=0)
        """, "a loss that Keras runs eagerly (`run_eagerly=True`) may create variables",
            proof=Proof(check="assert len(history.history['loss']) == 1")),
        unfixed(invalid("""
            import numpy as np
            import tensorflow as tf

            class Regressor(tf.keras.Model):
                def __init__(self):
                    super().__init__()
                    self.dense = tf.keras.layers.Dense(1)

                def call(self, x):
                    return self.dense(x)

                def train_step(self, data):
                    x, y = data
                    scale = tf.Variable(1.0)
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean((self(x) * scale - y) ** 2)
                    grads = tape.gradient(loss, self.trainable_variables)
                    self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
                    return {"loss": loss}

            model = Regressor()
            model.compile(optimizer="sgd")
            model.fit(np.ones((4, 2), "float32"), np.ones((4, 1), "float32"), verbose=0)
        """, 14, "a variable in a Keras train_step override, which `fit` traces: no fix",
            proof=Proof(raises=("ValueError", "tf.function only supports singleton tf.Variables created on the first call")))),
        valid("""
            import numpy as np
            import tensorflow as tf

            class Regressor(tf.keras.Model):
                def __init__(self):
                    super().__init__()
                    self.dense = tf.keras.layers.Dense(1)
                    self.scale = None

                def call(self, x):
                    return self.dense(x)

                def train_step(self, data):
                    x, y = data
                    if self.scale is None:
                        self.scale = tf.Variable(1.0)
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean((self(x) * self.scale - y) ** 2)
                    grads = tape.gradient(loss, self.trainable_variables)
                    self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
                    return {"loss": loss}

            model = Regressor()
            model.compile(optimizer="sgd")
            history = model.fit(np.ones((4, 2), "float32"), np.ones((4, 1), "float32"), epochs=2, verbose=0)
        """, "the train_step's variable behind a first-call guard",
            proof=Proof(check="assert len(history.history['loss']) == 2")),
        valid("""
            import numpy as np
            import tensorflow as tf

            class Regressor(tf.keras.Model):
                def __init__(self):
                    super().__init__()
                    self.dense = tf.keras.layers.Dense(1)

                def call(self, x):
                    return self.dense(x)

                def train_step(self, data):
                    x, y = data
                    scale = tf.Variable(1.0)
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean((self(x) * scale - y) ** 2)
                    grads = tape.gradient(loss, self.trainable_variables)
                    self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
                    return {"loss": loss}

            model = Regressor()
            model.compile(optimizer="sgd", run_eagerly=True)
            history = model.fit(np.ones((4, 2), "float32"), np.ones((4, 1), "float32"), epochs=2, verbose=0)
        """, "a train_step that Keras runs eagerly (`run_eagerly=True`) may create variables",
            proof=Proof(check="assert len(history.history['loss']) == 2")),
        valid("""
            import tensorflow as tf

            def traced_once_in_a_graph(fn):
                with tf.Graph().as_default():
                    out = fn(tf.compat.v1.placeholder(tf.float32, [3]))
                return out.dtype.name

            @traced_once_in_a_graph
            @tf.function
            def scaled(x):
                with tf.init_scope():
                    scale = tf.Variable(2.0)
                return scale * x
        """, "a tf.function handed to a decorator above it, which decides how it is called (here, like "
             "tff.tensorflow.computation: once, in a graph, where a variable lifted out with tf.init_scope() on "
             "the only trace is allowed; called eagerly, the first call would raise)",
            proof=Proof(check="assert scaled == 'float32', scaled")),
        valid("""
            import tensorflow as tf

            @tf.function
            def scale(x):
                v = tf.Variable(2.0)
                return v * x
        """, "tf.function does not exist before TensorFlow 2", tensorflow_version="1.15"),
    )

    def check(self, ctx: Context) -> None:
        wording = NEW_MESSAGE if ctx.targets.tensorflow >= NEW_MESSAGE_SINCE else OLD_MESSAGE
        for site in ctx.facts.calls_to("tensorflow.Variable"):
            traced = site.scope.traced_by
            if traced is None or _created_once(site, ctx.facts):
                continue
            if _lifted_for_unseen_caller(site, traced, ctx.facts):
                continue
            where = _function_name(traced.node) if traced.node is not None else "this tf.function"
            fix = None
            function = site.scope.function
            if function is not None and function.node is traced.node \
                    and isinstance(traced.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                fix = _hoist_builder(ctx, site.node, traced.node)
            ctx.report(
                site.node,
                f"tf.Variable created inside the tf.function {where}: TensorFlow raises "
                f"ValueError \"{wording}\" Create it once outside the function (in `__init__` or at "
                "module level), or behind a first-call guard (`if self.v is None:`).",
                related=[ctx.related(traced.origin, "traced by this tf.function")],
                fix=fix,
            )
        _check_keras_steps(ctx, wording)
        _check_keras(ctx, wording)


def _check_keras_steps(ctx: Context, wording: str) -> None:
    """Variables created in a Keras model's train_step / test_step / predict_step (and the defs
    it makes), which `fit` / `evaluate` / `predict` trace into a tf.function of their own
    (analysis/traced_bodies.py: not when the file runs Keras eagerly, nor for a step it only
    calls directly). Only `tf.Variable`, the creator proven there; no fix: where the variable
    belongs in a Keras model is the author's call."""
    sites = [s for s in ctx.facts.calls_to("tensorflow.Variable")
             if s.scope.traced_by is None and s.scope.function is not None and not _created_once(s, ctx.facts)]
    if not sites:
        return
    from ...analysis.traced_bodies import traced_bodies

    bodies = traced_bodies(ctx)
    for site in sites:
        body = bodies.get(id(site.scope.function.node))
        if body is None or not body.implicit or not isinstance(body.origin, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue  # not a Keras step (a function given to tf.data is traced differently)
        ctx.report(
            site.node,
            f"tf.Variable created inside {body.where}: TensorFlow raises ValueError "
            f"\"{wording}\" Create it once in `__init__` (or `build`), or behind a first-call guard "
            "(`if self.v is None:`).",
            related=[ctx.related(body.origin, body.note)],
        )


def _check_keras(ctx: Context, wording: str) -> None:
    """Variables created in a loss or metric that `model.fit` traces (analysis/keras_graph.py)."""
    facts = ctx.facts
    sites = [s for s in facts.calls_to(*_CREATORS) if s.scope.traced_by is None and not _created_once(s, facts)]
    if not sites or not any(site.method == "compile" for site in facts.calls):
        return
    from ...analysis.keras_graph import keras_trace_of
    from ...analysis.values import values_for

    values = values_for(ctx)
    for site in sites:
        trace = keras_trace_of(values, site.scope)
        if trace is None:
            continue
        function = site.scope.function
        where = trace.how if function is None or function.node is trace.node else \
            f"{_function_name(function.node)}, which {trace.how} calls"
        made = "tf.Variable created" if site.qualname == "tensorflow.Variable" else \
            f"`{ast.unparse(site.node.func)}` creates a tf.Variable"
        ctx.report(
            site.node,
            f"{made} inside {where}: Keras traces it into a tf.function, where TensorFlow raises "
            f"ValueError \"{wording}\" Create it once outside the {trace.role} (at module level), or use a "
            "constant (`K.constant`, `tf.constant`).",
            related=[trace.related(ctx), ctx.related(trace.runner, "traces it here")],
        )


def _hoist_builder(ctx: Context, call: ast.Call, function: ast.AST):
    """The fix, built only when asked for (it imports libcst)."""
    def build():
        from ...fixes.hoist import hoist_fix

        return hoist_fix(ctx.facts.source.text, ctx.facts.tree, call, function, noun="tf.Variable")
    return build


def _function_name(node: ast.AST) -> str:
    return f"`{node.name}`" if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else "(a lambda)"


def _lifted_for_unseen_caller(site, traced, facts) -> bool:
    """Is the variable made under `tf.init_scope()` in a tf.function handed to a decorator the
    value model cannot see through (`@tff.tensorflow.computation(...)` above `@tf.function`)?
    That decorator decides how often the function is traced: TFF traces it once, in a graph,
    where a variable lifted out by init_scope on the only trace is allowed (called eagerly, the
    first call would raise). Without init_scope the trace itself raises, in a graph too."""
    if traced.node is None or not wrapped_unseen(facts, traced.node):
        return False
    eager = eager_context(site.node, facts)
    return eager is not None and "init_scope" in eager


def _created_once(site, facts) -> bool:
    """Is the variable made behind a first-call guard, so later traces skip its creation?

    Accepted: `if self.v is None:` (and the other tests `analysis.guards.is_first_call_guard` knows),
    `tf.Variable(...) if self.v is None else self.v`, an earlier `if self.v is not None: return`,
    and an `except AttributeError:` / `except KeyError:` handler. Not accepted: a flag such as
    `if training:`, and `self.v or tf.Variable(...)`, whose both sides AutoGraph traces.
    """
    params = _enclosing_params(site.node, facts)
    if any(is_first_call_guard(guard.test, params) for guard in site.guards):
        return True
    for child, parent in ancestors(site.node, facts):
        if isinstance(parent, ast.IfExp) and child is not parent.test and is_first_call_guard(parent.test, params):
            return True
        if isinstance(parent, ast.ExceptHandler) and _catches_missing(parent):
            return True
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return _returns_early_when_created(parent, site.node, params)
    return False


def _catches_missing(handler: ast.ExceptHandler) -> bool:
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(k, ast.Name) and k.id in ("AttributeError", "KeyError", "NameError") for k in kinds)


def _returns_early_when_created(function: ast.AST, call: ast.AST, params) -> bool:
    """`if self.v is not None: return ...` before the creation, at the top of the body."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    for stmt in function.body:
        if (stmt.lineno, stmt.col_offset) >= (call.lineno, call.col_offset):
            return False
        if isinstance(stmt, ast.If) and stmt.body and isinstance(stmt.body[-1], (ast.Return, ast.Raise)) \
                and is_first_call_guard(stmt.test, params):
            return True
    return False