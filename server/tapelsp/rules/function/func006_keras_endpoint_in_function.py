from __future__ import annotations

import ast

from ...model import Applicability, Severity
from ...versions import Version, VersionRange
from ...analysis.guards import eager_context, runs_functions_eagerly
from ...analysis.traced import function_name
from ...analysis.values import METHOD, MODEL, ValueModel, values_for
from ..tape._fixes import unfixed
from ..base import Context, Proof, Rule, invalid, valid

# Keras 2 (tf_keras, and tf.keras before TensorFlow 2.16) refuses all of these inside a
# tf.function with the same RuntimeError.
_KERAS2_ENDPOINTS = ("fit", "evaluate", "predict", "train_on_batch", "test_on_batch", "predict_on_batch",
                     "fit_generator", "evaluate_generator", "predict_generator")
_KERAS2_MESSAGE = "RuntimeError \"Detected a call to `Model.{0}` inside a `tf.function`. `Model.{0} is a " \
                  "high-level endpoint that manages its own `tf.function`.\"."
# Keras 2 added that check in TensorFlow 2.2; earlier versions failed less clearly.
_KERAS2_CHECK_SINCE = Version.parse("2.2")
# Keras 3 has no such check: predict converts its symbolic result with `.numpy()`, fit and
# evaluate test a symbolic tensor in Python; train_on_batch and test_on_batch trace fine.
_KERAS3_FAILURES = {
    "predict": "AttributeError \"'SymbolicTensor' object has no attribute 'numpy'\"",
    "predict_on_batch": "AttributeError \"'SymbolicTensor' object has no attribute 'numpy'\"",
    "fit": "OperatorNotAllowedInGraphError \"Using a symbolic `tf.Tensor` as a Python `bool` is not allowed\" "
           "(or ValueError \"You must call `compile()` before using the model.\")",
    "evaluate": "OperatorNotAllowedInGraphError \"Using a symbolic `tf.Tensor` as a Python `bool` is not "
                "allowed\" (or ValueError \"You must call `compile()` before using the model.\")",
}


class KerasEndpointInFunction(Rule):
    """
    ## What it does
    Finds `model.predict`, `fit`, `evaluate`, `predict_on_batch`, `train_on_batch` and
    `test_on_batch` called inside a `tf.function` body, when `model` is known to be a Keras
    model: built from `keras.Sequential`/`keras.Model`/a `keras.Model` subclass/`load_model`
    in this file, assigned to `self.model` in the class, or passed as a model by every
    caller.

    ## Why is this bad?
    These are high-level endpoints that run their own loop and their own `tf.function`, and
    hand back NumPy values. Inside a trace they fail. Keras 2 (`tf_keras`, and `tf.keras`
    before TensorFlow 2.16) raises `RuntimeError: Detected a call to `Model.predict` inside
    a `tf.function`.`; Keras 3 raises `AttributeError: 'SymbolicTensor' object has no
    attribute 'numpy'` for `predict` and `predict_on_batch` and
    `OperatorNotAllowedInGraphError` for `fit` and `evaluate`. Keras 3's `train_on_batch`
    and `test_on_batch` do work inside a tf.function, so they are only flagged for Keras 2.

    ## Example
    ```python
    @tf.function
    def train_step(states, next_states, rewards):
        q_next = target_model.predict(next_states)
        ...
    ```

    ## Use instead
    ```python
    @tf.function
    def train_step(states, next_states, rewards):
        q_next = target_model(next_states, training=False)
        ...
    ```
    Call the model directly on tensors inside a tf.function, and call `fit`/`predict` from
    plain Python outside it.
    """

    code = "FUNC006"
    name = "keras-endpoint-in-tf-function"
    summary = "Keras `Model.predict`/`fit`/`evaluate` called inside a tf.function"
    severity = Severity.ERROR
    tensorflow = VersionRange(">=2.0")
    cheap_without_triggers = True
    triggers = ("predict", "fit", "evaluate", "train_on_batch", "test_on_batch")
    fixable = True
    examples = (
        invalid("""
            import numpy as np
            import tensorflow as tf

            class Agent:
                def __init__(self, num_actions):
                    self.model = tf.keras.Sequential([tf.keras.layers.Dense(num_actions)])
                    self.target_model = tf.keras.Sequential([tf.keras.layers.Dense(num_actions)])
                    self.optimizer = tf.keras.optimizers.Adam(1e-3)
                    self.gamma = 0.99

                @tf.function
                def train(self, states, actions, rewards, next_states):
                    q_next = self.target_model.predict(next_states, verbose=0)
                    targets = rewards + self.gamma * tf.reduce_max(q_next, axis=1)
                    with tf.GradientTape() as tape:
                        q = tf.reduce_sum(self.model(states) * tf.one_hot(actions, 2), axis=1)
                        loss = tf.reduce_mean(tf.square(targets - q))
                    variables = self.model.trainable_variables
                    self.optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
                    return loss

            agent = Agent(2)
            s = np.random.rand(4, 3).astype("float32")
            agent.train(s, np.zeros(4, "int32"), np.ones(4, "float32"), s)
        """, 13, "a DQN target network queried with predict in the traced step (Keras 3): the fix calls it "
                 "(unsafe: the value becomes a tensor)",
            proof=Proof(raises=("AttributeError", "'SymbolicTensor' object has no attribute 'numpy'")),
            fixed="""
            import numpy as np
            import tensorflow as tf

            class Agent:
                def __init__(self, num_actions):
                    self.model = tf.keras.Sequential([tf.keras.layers.Dense(num_actions)])
                    self.target_model = tf.keras.Sequential([tf.keras.layers.Dense(num_actions)])
                    self.optimizer = tf.keras.optimizers.Adam(1e-3)
                    self.gamma = 0.99

                @tf.function
                def train(self, states, actions, rewards, next_states):
                    q_next = self.target_model(next_states, training=False)
                    targets = rewards + self.gamma * tf.reduce_max(q_next, axis=1)
                    with tf.GradientTape() as tape:
                        q = tf.reduce_sum(self.model(states) * tf.one_hot(actions, 2), axis=1)
                        loss = tf.reduce_mean(tf.square(targets - q))
                    variables = self.model.trainable_variables
                    self.optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
                    return loss

            agent = Agent(2)
            s = np.random.rand(4, 3).astype("float32")
            agent.train(s, np.zeros(4, "int32"), np.ones(4, "float32"), s)
""", fixed_proof=Proof(check="""
                loss = agent.train(s, np.zeros(4, "int32"), np.ones(4, "float32"), s)
                assert np.isfinite(float(loss)) and int(agent.optimizer.iterations) == 2
            """)),
        unfixed(invalid("""
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.compile(optimizer="sgd", loss="mse")

            @tf.function
            def fit_once(x, y):
                return model.fit(x, y, epochs=1, verbose=0)

            history = fit_once(tf.ones([4, 2]), tf.zeros([4, 1]))
        """, 8, "fit inside a tf.function (Keras 3); no fix: the training step has to be written",
            proof=Proof(raises=("OperatorNotAllowedInGraphError", "Using a symbolic `tf.Tensor` as a Python `bool`")))),
        unfixed(invalid("""
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.compile(optimizer="sgd", loss="mse")

            @tf.function
            def train_batch(x, y):
                return model.train_on_batch(x, y)
        """, 8, "Keras 2 refuses train_on_batch in a tf.function (TensorFlow 2.15, tf.keras is Keras 2)",
            tensorflow_version="2.15")),
        invalid("""
            import tf_keras as keras
            import tensorflow as tf

            class Critic(keras.Model):
                def __init__(self):
                    super().__init__()
                    self.dense = keras.layers.Dense(1)

                def call(self, x):
                    return self.dense(x)

                @tf.function
                def value_of(self, states):
                    return self.predict(states, verbose=0)
        """, 14, "a Keras 2 model subclass calling its own predict (tf_keras; run by tests/rules)", fixed="""
            import tf_keras as keras
            import tensorflow as tf

            class Critic(keras.Model):
                def __init__(self):
                    super().__init__()
                    self.dense = keras.layers.Dense(1)

                def call(self, x):
                    return self.dense(x)

                @tf.function
                def value_of(self, states):
                    return self(states, training=False)
        """),
        valid("""
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.compile(optimizer="sgd", loss="mse")

            @tf.function
            def train_batch(x, y):
                return model.train_on_batch(x, y)

            first = float(train_batch(tf.ones([4, 2]), tf.zeros([4, 1])))
            second = float(train_batch(tf.ones([4, 2]), tf.zeros([4, 1])))
        """, "Keras 3's train_on_batch traces fine inside a tf.function",
            proof=Proof(check="assert second < first")),
        valid("""
            import numpy as np
            import tensorflow as tf

            class DQN:
                def __init__(self):
                    self.model = tf.keras.Sequential([tf.keras.layers.Dense(2)])

                def predict(self, states):
                    return self.model(states)

                @tf.function
                def best_action(self, target, states):
                    return tf.argmax(target.predict(states), axis=1)

            net, target = DQN(), DQN()
            actions = net.best_action(target, np.ones([3, 4], "float32"))
        """, "a user class's own predict method that calls the model",
            proof=Proof(check="assert actions.shape == (3,)")),
        valid("""
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])

            @tf.function
            def forward(x):
                return model(x, training=False)

            y = forward(tf.ones([2, 3]))
            z = model.predict(tf.ones([2, 3]), verbose=0)
        """, "calling the model inside, predict outside the tf.function",
            proof=Proof(check="import numpy as np; assert np.allclose(y.numpy(), z)")),
    )

    def check(self, ctx: Context) -> None:
        facts = ctx.facts
        if runs_functions_eagerly(facts):
            return
        values = values_for(ctx)
        for site in facts.calls:
            if site.method not in _KERAS2_ENDPOINTS or site.scope.traced_by is None:
                continue
            receiver = site.node.func.value  # type: ignore[attr-defined]
            origin = _keras_model(site.node, site.scope, values)
            if origin is False or eager_context(site.node, facts) is not None:
                continue
            major = values.keras_major(origin if isinstance(origin, ast.expr) else None)
            message = _message(site.method, major, ctx)
            if message is None:
                continue
            traced = site.scope.traced_by
            text = ast.unparse(receiver)
            related = [ctx.related(traced.origin, "traced by this tf.function")]
            if isinstance(origin, ast.expr):
                related.append(ctx.related(origin, f"`{text}` is a Keras model made here"))
            ctx.report(
                site.node.func,
                f"`{text}.{site.method}(...)` inside the tf.function {function_name(traced.node)}: "
                f"{message} {_advice(site.method, text)}",
                related=related,
                fix=_call_the_model(ctx, site.node, text),
            )


def _call_the_model(ctx: Context, call: ast.Call, model: str):
    """`model.predict(x)` / `predict_on_batch(x)` -> `model(x, training=False)` (fixes/predict.py,
    the TAPE008 fix), only when the call has just the input (and `verbose=`, a progress bar).
    Unsafe: the value becomes a tensor, and NumPy-only uses of it may break. fit/evaluate and
    the rest: no fix (the training step has to be written)."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr not in ("predict", "predict_on_batch") \
            or any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    keywords = {k.arg: k.value for k in call.keywords}
    keywords.pop("verbose", None)
    if len(call.args) == 1:
        model_input = call.args[0]
    elif not call.args and set(keywords) == {"x"}:
        model_input = keywords.pop("x")
    else:
        return None
    if keywords:
        return None
    text = ctx.facts.source.text

    def build():
        from ...fixes.predict import model_call_fix

        return model_call_fix(text, call, model_input, f"Call the model: `{model}(..., training=False)`",
                              Applicability.UNSAFE)
    return build


def _keras_model(call: ast.Call, scope, values: ValueModel) -> ast.expr | bool | None:
    """False when the receiver of `call` is not known to be a Keras model (or None, for a
    model created lazily) whose class does not define the method itself; else the
    constructor call that made it (None when it is known by its class, e.g. `self` in a
    keras.Model subclass)."""
    func = call.func
    assert isinstance(func, ast.Attribute)
    model = values.value(func.value, scope)
    if not model.is_or_none(MODEL):
        return False
    method = values.value(func, scope)
    if method.kind == METHOD and isinstance(method.origin, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False  # the model's own class defines it
    origin = model.origin
    return origin if isinstance(origin, ast.Call) and model.remote is None else None


def _message(method: str, major: int, ctx: Context) -> str | None:
    if major >= 3:
        failure = _KERAS3_FAILURES.get(method)
        if failure is None:
            return None  # train_on_batch / test_on_batch trace fine; *_generator do not exist
        reason = "converts its results to NumPy" if method.startswith("predict") else "inspects its data in Python"
        return f"Keras 3 raises {failure} while TensorFlow traces it, because `{method}` {reason}."
    if ctx.targets.tensorflow < _KERAS2_CHECK_SINCE:
        return "Keras fails when this endpoint runs inside a tf.function."
    return f"Keras 2 raises {_KERAS2_MESSAGE.format(method)}"


def _advice(method: str, model: str) -> str:
    if method.startswith("predict"):
        return (f"Inside a tf.function call the model directly, `{model}(x, training=False)`, which returns "
                f"a tensor; keep `{method}` for plain Python outside it.")
    if method.startswith(("fit", "train")):
        return (f"Inside a tf.function write the training step itself (`{model}(x, training=True)` under a "
                f"GradientTape, then `optimizer.apply_gradients`), or call `{method}` outside it.")
    return (f"Inside a tf.function compute the loss from `{model}(x, training=False)`, or call `{method}` "
            "outside it.")
