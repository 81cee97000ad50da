from __future__ import annotations

import ast

from ...facts.dataflow import inside
from ...model import Severity
from ...versions import VersionRange
from ._fixes import hoist_offer, snake_case
from ..tape._fixes import unfixed
from ...analysis import library
from ...analysis.guards import ancestors, created_lazily, eager_context, parents, used_after_construction, variable_error
from ...analysis.traced import function_name, trace_of
from ...analysis.values import CLASS, LAYER, METRIC, MODEL, ValueModel, values_for, wrapped_unseen
from ..base import Context, Proof, Rule, invalid, valid

class LayerInFunction(Rule):
    """
    ## What it does
    Finds a Keras layer or model constructed in the body of a `tf.function` and used there
    (called, added to a model, or stored and read again), or a Keras metric constructed
    there, without a first-call guard such as `if self.dense is None:`. Also in a helper the
    tf.function's trace calls (unless every call of the helper is behind such a guard), and in a Keras model's `train_step` / `test_step` /
    `predict_step`, which Keras traces into a tf.function. Layers without variables
    (`Flatten`, `ReLU`, pooling, `Concatenate`...) are left alone, and so are Keras 2's
    `Dropout` layers.

    ## Why is this bad?
    A layer creates its weights when it is first called. Constructed inside the body, a
    new layer is made, and new `tf.Variable`s created, every time TensorFlow traces the
    function; TensorFlow allows variables only on the first trace, and it traces twice on
    the first call to check this, so the very first call raises
    `ValueError: tf.function only supports singleton tf.Variables created on the first call.`
    (before TensorFlow 2.7: "tf.function-decorated function tried to create variables on
    non-first call."). Even when it did not fail, the weights would be fresh on every call
    and never trained.

    ## Example
    ```python
    @tf.function
    def forward(x):
        return tf.keras.layers.Dense(10)(x)
    ```

    ## Use instead
    ```python
    dense = tf.keras.layers.Dense(10)

    @tf.function
    def forward(x):
        return dense(x)
    ```
    In a layer or model, create sublayers in `__init__` (or `build`) and only call them in
    `call` and in the tf.function.
    """

    code = "FUNC003"
    name = "layer-created-in-tf-function"
    summary = "Keras layer, model or metric constructed inside a tf.function body on every trace"
    severity = Severity.ERROR
    tensorflow = VersionRange(">=2.0")
    cheap_without_triggers = True
    triggers = ("Layer", "layers", "Sequential", "Model", "applications", "metrics")
    fixable = True
    examples = (
        invalid("""
            import tensorflow as tf

            @tf.function
            def forward(x):
                hidden = tf.keras.layers.Dense(8, activation="relu")(x)
                return tf.reduce_sum(hidden)

            y = forward(tf.ones([2, 3]))
        """, 5, "a Dense layer made and called in the traced body; the fix makes it once, before the function",
            proof=Proof(raises=("ValueError", "tf.function only supports singleton tf.Variables created on the first call")),
            fixed="""
            import tensorflow as tf

            forward_dense = tf.keras.layers.Dense(8, activation="relu")

            @tf.function
            def forward(x):
                hidden = forward_dense(x)
                return tf.reduce_sum(hidden)

            y = forward(tf.ones([2, 3]))
        """, fixed_proof=Proof(check="""
            assert float(forward(tf.ones([2, 3]))) == float(y), "the same weights on every call"
            assert len(forward_dense.trainable_variables) == 2
        """)),
        invalid("""
            import tensorflow as tf

            class Head(tf.Module):
                def __init__(self):
                    super().__init__()
                    self.base = tf.keras.layers.Dense(4)

                @tf.function
                def __call__(self, x):
                    self.norm = tf.keras.layers.LayerNormalization()
                    return self.norm(self.base(x))

            head = Head()
            out = head(tf.ones([2, 3]))
        """, 10, "a sublayer created in a traced method instead of __init__",
            proof=Proof(raises=("ValueError", "tf.function only supports singleton tf.Variables")),
            fixed="""
            import tensorflow as tf

            class Head(tf.Module):
                def __init__(self):
                    super().__init__()
                    self.base = tf.keras.layers.Dense(4)
                    self.norm = tf.keras.layers.LayerNormalization()

                @tf.function
                def __call__(self, x):
                    return self.norm(self.base(x))

            head = Head()
            out = head(tf.ones([2, 3]))
        """, fixed_proof=Proof(check="""
            import numpy as np
            assert out.shape == (2, 4) and np.allclose(head(tf.ones([2, 3])).numpy(), out.numpy())
            assert len(head.base.trainable_variables) + len(head.norm.trainable_variables) == 4
        """)),
        invalid("""
            import tensorflow as tf

            @tf.function
            def score(x):
                model = tf.keras.Sequential([
                    tf.keras.layers.Dense(4, activation="relu"),
                    tf.keras.layers.Dense(1),
                ])
                return model(x)

            s = score(tf.ones([2, 3]))
        """, 5, "a whole Sequential model, reported once where it is built",
            proof=Proof(raises=("ValueError", "tf.function only supports singleton tf.Variables")),
            fixed="""
            import tensorflow as tf

            model = tf.keras.Sequential([
                tf.keras.layers.Dense(4, activation="relu"),
                tf.keras.layers.Dense(1),
            ])

            @tf.function
            def score(x):
                return model(x)

            s = score(tf.ones([2, 3]))
        """, fixed_proof=Proof(check="""
            import numpy as np
            assert s.shape == (2, 1) and np.allclose(score(tf.ones([2, 3])).numpy(), s.numpy())
        """)),
        invalid("""
            import tensorflow as tf

            @tf.function
            def noisy(x):
                return tf.keras.layers.Dropout(0.5)(x, training=True)

            y = noisy(tf.ones([2, 3]))
        """, 5, "Keras 3's Dropout holds a seed variable",
            proof=Proof(raises=("ValueError", "tf.function only supports singleton tf.Variables")),
            fixed="""
            import tensorflow as tf

            noisy_dropout = tf.keras.layers.Dropout(0.5)

            @tf.function
            def noisy(x):
                return noisy_dropout(x, training=True)

            y = noisy(tf.ones([2, 3]))
        """, fixed_proof=Proof(check="""
            import numpy as np
            masks = [noisy(tf.ones([64])).numpy() for _ in range(3)]
            assert set(np.unique(np.concatenate(masks)).tolist()) <= {0.0, 2.0}
            assert not all((m == masks[0]).all() for m in masks), "a new mask on every call"
        """)),
        invalid("""
            import tensorflow as tf

            @tf.function
            def forward(x, training):
                if training:
                    x = tf.keras.layers.BatchNormalization()(x, training=True)
                return x

            y = forward(tf.ones([2, 3]), True)
        """, 6, "a flag argument is not a first-call guard; moving the layer out of the `if` is unsafe",
            proof=Proof(raises=("ValueError", "tf.function only supports singleton tf.Variables")),
            fixed="""
            import tensorflow as tf

            forward_batch_normalization = tf.keras.layers.BatchNormalization()

            @tf.function
            def forward(x, training):
                if training:
                    x = forward_batch_normalization(x, training=True)
                return x

            y = forward(tf.ones([2, 3]), True)
        """, fixed_proof=Proof(check="""
            z = forward(tf.ones([2, 3]), True)
            assert y.shape == z.shape == (2, 3) and len(forward_batch_normalization.variables) == 4
        """)),
        invalid("""
            import tensorflow as tf

            class Projection(tf.Module):
                @tf.function
                def __call__(self, x):
                    dense = tf.keras.layers.Dense(x.shape[-1] * 2)
                    return dense(x)

            project = Projection()
            out = project(tf.ones([2, 3]))
        """, 6, "a layer sized from the input: the fix creates it on the first call only (unsafe)",
            proof=Proof(raises=("ValueError", "tf.function only supports singleton tf.Variables")),
            fixed="""
            import tensorflow as tf

            class Projection(tf.Module):
                def __init__(self, *args, **kwargs):
                    super().__init__(*args, **kwargs)
                    self._dense = None

                @tf.function
                def __call__(self, x):
                    if self._dense is None:
                        self._dense = tf.keras.layers.Dense(x.shape[-1] * 2)
                    return self._dense(x)

            project = Projection()
            out = project(tf.ones([2, 3]))
        """, fixed_proof=Proof(check="""
            import numpy as np
            assert out.shape == (2, 6) and np.allclose(project(tf.ones([2, 3])).numpy(), out.numpy())
        """)),
        invalid("""
            import tensorflow as tf

            @tf.function
            def forward(x):
                return tf.keras.layers.Dense(8)(x)
        """, 5, "TensorFlow 2.6 and older word the error differently", tensorflow_version="2.6", fixed="""
            import tensorflow as tf

            forward_dense = tf.keras.layers.Dense(8)

            @tf.function
            def forward(x):
                return forward_dense(x)
        """),
        valid("""
            import tensorflow as tf

            class Head(tf.Module):
                def __init__(self):
                    super().__init__()
                    self.dense = None

                @tf.function
                def __call__(self, x):
                    if self.dense is None:
                        self.dense = tf.keras.layers.Dense(4)
                    return tf.keras.layers.Flatten()(self.dense(x))

            head = Head()
            a = head(tf.ones([2, 3]))
            b = head(tf.ones([2, 3]))
        """, "lazy creation behind a first-call guard; a stateless Flatten made in the trace",
            proof=Proof(check="import numpy as np; assert np.allclose(a.numpy(), b.numpy())")),
        valid("""
            import tensorflow as tf

            class Tracker(tf.Module):
                def __init__(self):
                    super().__init__()
                    self.mean = None

                def _make_mean(self):
                    self.mean = tf.keras.metrics.Mean(name="privatized_loss")

                @tf.function
                def __call__(self, x):
                    if self.mean is None:
                        self._make_mean()
                    self.mean.update_state(x)
                    return self.mean.result()

            tracker = Tracker()
            results = [float(tracker(tf.ones([n]))) for n in (2, 3, 4)]
        """, "a helper that makes the metric, called only behind a first-call guard: the metric is made on the "
             "first trace only (retraced here for new shapes)",
            proof=Proof(check="""
                assert results == [1.0, 1.0, 1.0], results
                assert tracker.__call__.experimental_get_tracing_count() >= 2, "traced more than once"
            """)),
        valid("""
            import tensorflow as tf

            dense = tf.keras.layers.Dense(4)

            @tf.function
            def forward(x):
                pooled = tf.keras.layers.GlobalAveragePooling1D()(x)
                return dense(pooled)

            y = forward(tf.ones([2, 5, 3]))
        """, "a layer made once outside and called inside; pooling has no variables",
            proof=Proof(check="assert y.shape == (2, 4)")),
        valid("""
            import tf_keras as keras
            import tensorflow as tf

            @tf.function
            def noisy(x):
                return keras.layers.Dropout(0.5)(x, training=True)
        """, "Keras 2's Dropout has no variables"),
        valid("""
            import tensorflow as tf

            def build(x):
                return tf.keras.layers.Dense(4)(x)

            a = build(tf.ones([2, 3]))
            b = build(tf.ones([2, 3]))
        """, "layers built in a plain Python function",
            proof=Proof(check="assert a.shape == b.shape == (2, 4)")),
        unfixed(invalid("""
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.layers.Dense(1, activation="sigmoid")])
            model.build((None, 3))

            @tf.function
            def evaluate(x, y):
                auc = tf.keras.metrics.AUC(num_thresholds=20)
                auc.update_state(y, model(x))
                return auc.result()

            score = evaluate(tf.ones([4, 3]), tf.constant([[0.0], [1.0], [0.0], [1.0]]))
        """, 8, "a Keras metric makes its variables when constructed; no fix: one metric made once would "
                "accumulate across calls",
            proof=Proof(raises=("ValueError", "tf.function only supports singleton tf.Variables")))),
        unfixed(invalid("""
            import numpy as np
            import tensorflow as tf

            class Net(tf.keras.Model):
                def __init__(self):
                    super().__init__()
                    self.body = tf.keras.layers.Dense(4)

                def call(self, x):
                    return self.body(x)

                def train_step(self, data):
                    x, y = data
                    head = tf.keras.layers.Dense(1)
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean((head(self(x)) - y) ** 2)
                    grads = tape.gradient(loss, self.trainable_variables)
                    self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
                    return {"loss": loss}

            net = Net()
            net.compile(optimizer="sgd")
            net.fit(np.ones((8, 3), "float32"), np.zeros((8, 1), "float32"), epochs=1, verbose=0)
        """, 14, "in a Keras model's train_step, which fit traces (no fix: the head belongs in __init__, with the "
                 "optimizer built for it)",
            proof=Proof(raises=("ValueError", "tf.function only supports singleton tf.Variables")))),
        valid("""
            import tensorflow as tf

            def traced_once_in_a_graph(fn):
                with tf.Graph().as_default():
                    out = fn(tf.compat.v1.placeholder(tf.float32, [3]))
                return out.dtype.name

            @traced_once_in_a_graph
            @tf.function
            def summary(x):
                with tf.init_scope():
                    metric = tf.keras.metrics.Mean()
                metric.update_state(x)
                return metric.result()
        """, "a tf.function handed to a decorator above it, which decides how it is called (here, like "
             "tff.tensorflow.computation: once, in a graph, where the metric made under tf.init_scope() on the "
             "only trace is allowed; called eagerly, the first call would raise)",
            proof=Proof(check="assert summary == 'float32', summary")),
        valid("""
            import unittest
            import tensorflow as tf

            @tf.function
            def scaled(x, scale):
                dense = tf.keras.layers.Dense(2)
                if scale <= 0:
                    raise ValueError("scale must be positive")
                return dense(x) * scale

            case = unittest.TestCase()
            with case.assertRaisesRegex(ValueError, "scale must be positive"):
                scaled(tf.ones([1, 3]), -1)
        """, "called only where the program expects an error: the first trace raises the body's own",
            proof=Proof(check="assert scaled.experimental_get_tracing_count() == 0")),
        invalid("""
            import numpy as np
            import tensorflow as tf
            from tensorflow.keras import layers


            class Residual(layers.Layer):
                def call(self, x):
                    h = layers.Dense(4, activation="relu")(x)
                    return x + h[:, :1]


            inputs = layers.Input((3,))
            model = tf.keras.Model(inputs, layers.Dense(1)(Residual()(inputs)))
            model.compile(optimizer="adam", loss="mse")
            model.fit(np.ones((8, 3), "float32"), np.ones((8, 1), "float32"), verbose=0)
        """, 8, "a layer constructed in a custom layer's `call`: `fit` traces it again",
            proof=Proof(raises=("ValueError", "tf.function only supports singleton tf.Variables")),
            fixed="""
            import numpy as np
            import tensorflow as tf
            from tensorflow.keras import layers


            class Residual(layers.Layer):
                def call(self, x):
                    h = layers.Dense(4, activation="relu")(x)
                    return x + h[:, :1]


            inputs = layers.Input((3,))
            model = tf.keras.Model(inputs, layers.Dense(1)(Residual()(inputs)))
            model.compile(optimizer="adam", loss="mse")
            model.fit(np.ones((8, 3), "float32"), np.ones((8, 1), "float32"), verbose=0)
        """),
        valid("""
            import numpy as np
            import tensorflow as tf
            from tensorflow.keras import layers


            class Residual(layers.Layer):
                def __init__(self, **kwargs):
                    super().__init__(**kwargs)
                    self.inner = layers.Dense(4, activation="relu")

                def call(self, x):
                    h = self.inner(x)
                    pooled = layers.Flatten()(h)
                    return x + pooled[:, :1]


            inputs = layers.Input((3,))
            model = tf.keras.Model(inputs, layers.Dense(1)(Residual()(inputs)))
            model.compile(optimizer="adam", loss="mse")
            history = model.fit(np.ones((8, 3), "float32"), np.ones((8, 1), "float32"), verbose=0)
        """, "the sublayer made once in `__init__`; a layer without variables made in `call`",
            proof=Proof(check="assert len(history.history['loss']) == 1")),
    )

    def check(self, ctx: Context) -> None:
        facts = ctx.facts
        values = values_for(ctx)
        wording = variable_error(ctx.targets.tensorflow)
        # Both answers depend on the scope (the trace) alone: asked once per scope, not per call.
        traces: dict[int, object] = {}
        unseen: dict[int, bool] = {}
        reported: set[int] = set()
        for site in facts.calls:
            key = id(site.scope)
            if key in traces:
                traced = traces[key]
            else:
                traced = traces[key] = trace_of(values, site.scope)
            if traced is None:
                continue
            skip = unseen.get(id(traced.node))
            if skip is None:
                skip = unseen[id(traced.node)] = _called_unseen(traced.node, facts)
            if skip:
                continue
            described = _stateful_construction(site.node, values)
            if described is None:
                continue
            if _inside_other_construction(site.node, values):
                continue
            if created_lazily(site.node, site.guards, facts) or _helper_called_lazily(site, traced, facts):
                continue
            eager = eager_context(site.node, facts)
            if eager is not None and "init_scope" not in eager:
                continue
            made_at_once = described.startswith(("The pretrained model", "The Keras metric"))
            use = used_after_construction(site.node, site.scope, facts)
            if use is None and not made_at_once:
                continue
            related = [traced.related(ctx)]
            if use is not None and getattr(use, "lineno", site.node.lineno) != site.node.lineno:
                related.append(ctx.related(use, "used here, which creates its variables"))
            function = site.scope.function
            where = traced.how if function is None or function.node is traced.node else \
                f"{function_name(function.node)}, which {traced.how} calls"
            reported.add(id(site.node))
            ctx.report(
                site.node,
                f"{described} is constructed inside {where}: it creates "
                f"new variables on every trace, and TensorFlow raises ValueError \"{wording}\" Construct it "
                "once outside the function (in `__init__`/`build`, or at module level) and only call it here, "
                "or create it behind a first-call guard (`if self.layer is None:`).",
                related=related,
                # A metric made once accumulates across calls: moving it out changes what it reports.
                fix=None if described.startswith("The Keras metric") or traced.keras else _hoist(ctx, site, traced.node),
            )
        _in_layer_call(ctx, values, wording, reported)


def _in_layer_call(ctx: Context, values: ValueModel, wording: str, reported: set[int]) -> None:
    """A layer with variables constructed and used in the `call` of a Keras layer or model of
    this file (`theta = layers.Conv2D(8, 1)(inputs)`), without a first-call guard: every call of
    the layer makes a new one. Keras runs `call` in the tf.function of `fit`, and eagerly the new
    variables are never the ones trained."""
    facts = ctx.facts
    forwards: dict[int, ast.ClassDef] = {}
    for cls in facts.classes.values():
        forward = next((m for m in cls.body if isinstance(m, ast.FunctionDef) and m.name == "call"), None)
        if forward is not None and values.class_kind(cls) in (LAYER, MODEL):
            scope = facts.function_scopes.get(forward)
            if scope is not None:
                forwards[id(scope)] = cls
    if not forwards:
        return
    for site in facts.calls:
        cls = forwards.get(id(site.scope))
        if cls is None or id(site.node) in reported:
            continue
        described = _stateful_construction(site.node, values)
        if described is None or not described.startswith("The Keras layer"):
            continue
        if _inside_other_construction(site.node, values) or created_lazily(site.node, site.guards, facts):
            continue
        use = used_after_construction(site.node, site.scope, facts)
        if use is None or _stored_on_object(site.node, facts):
            continue
        eagerly = "." if "seed" in described else \
            "; called eagerly, each call gets freshly initialised weights that no optimizer step ever updates."
        ctx.report(
            site.node,
            f"{described} is constructed inside `{cls.name}.call`: every call of the {values.class_kind(cls)} makes "
            f"a new one, with new variables. Keras runs `call` in the tf.function of `fit`, where TensorFlow raises "
            f"ValueError \"{wording}\"{eagerly} Construct it once in `__init__` (or `build`) and only call it here.",
            related=[ctx.related(use, "used here, which creates its variables")]
            if getattr(use, "lineno", site.node.lineno) != site.node.lineno else [],
        )


def _stored_on_object(call: ast.Call, facts) -> bool:
    """`self.conv = Conv2D(...)` (or any attribute or item): kept for later calls, a lazy build
    whose guard is not spelt as a first-call test."""
    for _child, parent in ancestors(call, facts):
        if isinstance(parent, ast.Assign):
            return any(not isinstance(t, ast.Name) for t in parent.targets)
        if isinstance(parent, ast.stmt):
            return False
    return False


def _called_unseen(function: ast.AST | None, facts) -> bool:
    """Is the tf.function called only in ways that never reach the failing second trace: handed
    to a decorator the value model cannot see through (`@tff.tf_computation(...)` above
    `@tf.function` traces it once, in a graph), or called only where the program expects the
    call to raise (`with self.assertRaises(...)`, `pytest.raises`): a test of an error its body
    raises on the first trace, or of this very error?"""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    if wrapped_unseen(facts, function):
        return True
    scope = facts.function_scopes.get(function)
    home = scope.parent.node if scope is not None and scope.parent is not None else None
    local = isinstance(home, (ast.FunctionDef, ast.AsyncFunctionDef))  # a def in a function: called there
    calls = [site.node for site in facts.calls_by_last_name(function.name) if isinstance(site.node.func, ast.Name)
             and (not local or inside(site.node, home))]
    return bool(calls) and all(_expects_raise(call, facts) for call in calls)


def _expects_raise(node: ast.AST, facts) -> bool:
    table = parents(facts)
    current = table.get(node)
    while current is not None and not isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        if isinstance(current, (ast.With, ast.AsyncWith)):
            for item in current.items:
                expr = item.context_expr
                if not isinstance(expr, ast.Call):
                    continue
                func = expr.func
                if isinstance(func, ast.Attribute) and func.attr.startswith("assertRaises") \
                        or facts.imports.resolve(func) == "pytest.raises":
                    return True
        current = table.get(current)
    return False


def _helper_called_lazily(site, traced, facts) -> bool:
    """Is the construction in a helper (not the traced function itself) whose every call in
    this file is behind a first-call guard (`if self.metric is None: self._make_metric()`),
    itself or through helpers called that way? Then it runs on the first trace only."""
    function = site.scope.function
    seen: set[int] = set()

    def lazily(scope, depth: int) -> bool:
        node = scope.node if scope is not None else None
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node is traced.node \
                or depth > 3 or id(node) in seen:
            return False
        seen.add(id(node))
        is_method = scope.parent is not None and scope.parent.kind == "class"
        calls = []
        for call in facts.calls:
            func = call.node.func
            if is_method and isinstance(func, ast.Attribute) and func.attr == node.name \
                    and isinstance(func.value, ast.Name) and func.value.id in ("self", "cls"):
                calls.append(call)
            elif not is_method and isinstance(func, ast.Name) and func.id == node.name:
                calls.append(call)
        return bool(calls) and all(created_lazily(call.node, call.guards, facts)
                                   or lazily(call.scope.function, depth + 1) for call in calls)

    return lazily(function, 0)


def _hoist(ctx: Context, site, traced_node: ast.AST | None):
    """Construct the layer or model once: in `__init__`, before the function, or behind a
    first-call guard when its arguments need the call (hoist.py decides safe or unsafe)."""
    function = site.scope.function
    if function is None or function.node is not traced_node:
        return None
    func = site.node.func
    last = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else "layer"
    base = "model" if last in ("Sequential", "Model") else snake_case(last)
    return hoist_offer(ctx, site.node, traced_node, noun=f"`{last}`", base_name=base)


def _stateful_construction(call: ast.Call, values: ValueModel) -> str | None:
    """A description of the Keras layer or model `call` constructs when it holds variables
    (the library table's `creates`, `seed_keras3` and `wraps` flags), else None."""
    qualname = values.facts.imports.resolve(call.func)
    if qualname is not None:
        api = library.api(qualname)
        if api is None or api.kind not in (LAYER, MODEL, METRIC) or not api.name.startswith("keras."):
            return None
        last = qualname.rsplit(".", 1)[-1]
        if api.kind == METRIC:
            # Keras metrics make their variables when constructed.
            return f"The Keras metric `{last}`" if api.has("creates") else None
        if qualname.startswith("keras.applications."):
            return f"The pretrained model `{last}` (its weights are created when it is constructed)"
        what = "model" if api.kind == MODEL else "layer"
        if api.has("wraps"):
            return f"The Keras {what} `{last}`" if _arguments_stateful(call, values) else None
        if api.has("seed_keras3"):
            if values.keras_major(call) < 3:
                return None
            return f"The Keras layer `{last}` (in Keras 3 it holds a seed variable)"
        if api.has("creates") and what == "layer":
            return f"The Keras layer `{last}`"
        return None
    if values.value(call.func).kind != CLASS:
        return None  # (cheap: most calls in a traced body are methods)
    made = values.value(call)
    cls = made.user_class
    if cls is not None and made.home is None and made.kind in (LAYER, MODEL) and made.origin is call \
            and _class_is_stateful(cls, values, set()):
        return f"The Keras {made.kind} `{cls.name}`"
    return None


def _arguments_stateful(call: ast.Call, values: ValueModel) -> bool:
    for node in ast.walk(call):
        if node is not call and isinstance(node, ast.Call) and _stateful_construction(node, values):
            return True
    return False


def _class_is_stateful(cls: ast.ClassDef, values: ValueModel, seen: set[int]) -> bool:
    """Does this module's Layer/Model subclass create variables (add_weight, tf.Variable,
    stateful sublayers), itself or through a base class defined in this module?"""
    if id(cls) in seen:
        return False
    seen.add(id(cls))
    facts = values.facts
    for node in ast.walk(cls):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in ("add_weight", "add_variable"):
            return True
        if facts.imports.resolve(func) == "tensorflow.Variable":
            return True
        if isinstance(func, ast.Name) and func.id in facts.classes:
            other = facts.classes[func.id]
            if other is not cls and values.class_kind(other) in (LAYER, MODEL) and _class_is_stateful(other, values, seen):
                return True
        elif _stateful_construction(node, values):
            return True
    return any(isinstance(base, ast.Name) and base.id in facts.classes
               and _class_is_stateful(facts.classes[base.id], values, seen) for base in cls.bases)


def _inside_other_construction(call: ast.Call, values: ValueModel) -> bool:
    """`Sequential([Dense(4)])`, `TimeDistributed(Dense(4))`: the outer construction is reported."""
    table = parents(values.facts)
    node: ast.AST = call
    while True:
        parent = table.get(node)
        if parent is None or isinstance(parent, (ast.stmt, ast.Lambda)):
            return False
        if isinstance(parent, ast.Call) and parent.func is not node:
            made = values.value(parent)
            if made.kind in (MODEL, LAYER) and made.origin is parent:
                return True
        node = parent
