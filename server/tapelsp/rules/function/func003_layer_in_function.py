from __future__ import annotations

import ast

from ...model import Severity
from ...versions import VersionRange
from ._fixes import hoist_offer, snake_case
from ...analysis.guards import created_lazily, eager_context, parents, used_after_construction, variable_error
from ...analysis.objects import Values, function_label, values_for
from ..base import Context, Proof, Rule, invalid, valid

# Layers that hold no variables: constructing and calling them in a trace is harmless.
# (Checked under TensorFlow 2.21 with Keras 3.15 and tf_keras 2.21.)
_STATELESS = frozenset("""
    Flatten ReLU LeakyReLU ELU Softmax ThresholdedReLU Activation Reshape Permute RepeatVector
    Cropping1D Cropping2D Cropping3D ZeroPadding1D ZeroPadding2D ZeroPadding3D UpSampling1D
    UpSampling2D UpSampling3D MaxPooling1D MaxPooling2D MaxPooling3D MaxPool1D MaxPool2D MaxPool3D
    AveragePooling1D AveragePooling2D AveragePooling3D AvgPool1D AvgPool2D AvgPool3D
    GlobalAveragePooling1D GlobalAveragePooling2D GlobalAveragePooling3D GlobalAvgPool1D
    GlobalAvgPool2D GlobalAvgPool3D GlobalMaxPooling1D GlobalMaxPooling2D GlobalMaxPooling3D
    GlobalMaxPool1D GlobalMaxPool2D GlobalMaxPool3D Add Subtract Multiply Average Maximum Minimum
    Concatenate Dot Masking Lambda Identity Layer InputSpec Input InputLayer Rescaling Resizing
    CenterCrop ActivityRegularization UnitNormalization Hashing CategoryEncoding StringLookup
    IntegerLookup TextVectorization Discretization HashedCrossing
""".split())
# Keras 3 gives these a SeedGenerator, whose state is a variable; Keras 2's hold none.
_SEEDED_IN_KERAS3 = frozenset("""
    Dropout SpatialDropout1D SpatialDropout2D SpatialDropout3D GaussianDropout GaussianNoise AlphaDropout
""".split())
_MODEL_CONSTRUCTORS = frozenset({"keras.Sequential", "keras.models.Sequential"})
# Layers that wrap other layers hold variables exactly when what they wrap does.
_WRAPPERS = frozenset({"TimeDistributed", "Bidirectional", "Wrapper"})


class LayerInFunction(Rule):
    """
    ## What it does
    Finds a Keras layer or model constructed in the body of a `tf.function` and used there
    (called, added to a model, or stored and read again), without a first-call guard such
    as `if self.dense is None:`. Layers without variables (`Flatten`, `ReLU`, pooling,
    `Concatenate`...) are left alone, and so are Keras 2's `Dropout` layers.

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
    summary = "Keras layer or model constructed inside a tf.function body on every trace"
    severity = Severity.ERROR
    tensorflow = VersionRange(">=2.0")
    triggers = ("Layer", "layers", "Sequential", "Model", "applications")
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
    )

    def check(self, ctx: Context) -> None:
        facts = ctx.facts
        values = values_for(facts, ctx.targets)
        wording = variable_error(ctx.targets.tensorflow)
        for site in facts.calls:
            traced = site.scope.traced_by
            if traced is None:
                continue
            described = _stateful_construction(site.node, values)
            if described is None:
                continue
            if _inside_other_construction(site.node, values):
                continue
            if created_lazily(site.node, site.guards, facts):
                continue
            eager = eager_context(site.node, facts)
            if eager is not None and "init_scope" not in eager:
                continue
            applications = described.startswith("The pretrained model")
            use = used_after_construction(site.node, site.scope, facts)
            if use is None and not applications:
                continue
            related = [ctx.related(traced.origin, "traced by this tf.function")]
            if use is not None and getattr(use, "lineno", site.node.lineno) != site.node.lineno:
                related.append(ctx.related(use, "used here, which creates its variables"))
            ctx.report(
                site.node,
                f"{described} is constructed inside the tf.function {function_label(traced.node)}: it creates "
                f"new variables on every trace, and TensorFlow raises ValueError \"{wording}\" Construct it "
                "once outside the function (in `__init__`/`build`, or at module level) and only call it here, "
                "or create it behind a first-call guard (`if self.layer is None:`).",
                related=related,
                fix=_hoist(ctx, site, traced.node),
            )


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


def _stateful_construction(call: ast.Call, values: Values) -> str | None:
    """A description of the layer/model `call` constructs when it holds variables, else None."""
    facts = values.facts
    qualname = facts.imports.resolve(call.func)
    if qualname is not None:
        last = qualname.rsplit(".", 1)[-1]
        if qualname.startswith("keras.applications.") and last[:1].isupper():
            return f"The pretrained model `{last}` (its weights are created when it is constructed)"
        if qualname in _MODEL_CONSTRUCTORS:
            return f"The Keras model `{last}`" if _arguments_stateful(call, values) else None
        if qualname.startswith("keras.layers.") and last[:1].isupper() and qualname.count(".") == 2:
            if last in _STATELESS:
                return None
            if last in _WRAPPERS:
                return f"The Keras layer `{last}`" if _arguments_stateful(call, values) else None
            if last in _SEEDED_IN_KERAS3:
                if values.keras_major(call) < 3:
                    return None
                return f"The Keras layer `{last}` (in Keras 3 it holds a seed variable)"
            return f"The Keras layer `{last}`"
        return None
    if isinstance(call.func, ast.Name):
        kind = facts.class_kinds.get(call.func.id)
        if kind in ("layer", "model") and _class_is_stateful(call.func.id, values, set()):
            return f"The Keras {kind} `{call.func.id}`"
    return None


def _arguments_stateful(call: ast.Call, values: Values) -> bool:
    for node in ast.walk(call):
        if node is not call and isinstance(node, ast.Call) and _stateful_construction(node, values):
            return True
    return False


def _class_is_stateful(name: str, values: Values, seen: set[str]) -> bool:
    """Does this module's Layer/Model subclass create variables (add_weight, tf.Variable,
    stateful sublayers), itself or through a base class defined in this module?"""
    if name in seen:
        return False
    seen.add(name)
    facts = values.facts
    cls = facts.classes.get(name)
    if cls is None:
        return False
    for node in ast.walk(cls):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in ("add_weight", "add_variable"):
            return True
        qualname = facts.imports.resolve(func)
        if qualname == "tensorflow.Variable":
            return True
        if isinstance(func, ast.Name) and func.id != name and facts.class_kinds.get(func.id) in ("layer", "model"):
            if _class_is_stateful(func.id, values, seen):
                return True
        elif _stateful_construction(node, values):
            return True
    return any(isinstance(base, ast.Name) and _class_is_stateful(base.id, values, seen) for base in cls.bases)


def _inside_other_construction(call: ast.Call, values: Values) -> bool:
    """`Sequential([Dense(4)])`, `TimeDistributed(Dense(4))`: the outer construction is reported."""
    table = parents(values.facts)
    node: ast.AST = call
    while True:
        parent = table.get(node)
        if parent is None or isinstance(parent, (ast.stmt, ast.Lambda)):
            return False
        if isinstance(parent, ast.Call) and parent.func is not node and values.constructed(parent) in ("model", "layer"):
            return True
        node = parent
