"""FUNC002-FUNC006 beyond their examples: the seed's DQN step, version differences, near
misses that must stay silent, and Keras 2 (tf_keras) behaviour under real TensorFlow."""

from __future__ import annotations

import importlib.util
import inspect
import subprocess
import sys
import textwrap

import pytest
import tapelsp
from tapelsp import Settings

CODES = ("FUNC002", "FUNC003", "FUNC004", "FUNC005", "FUNC006")


def src(text: str) -> str:
    return inspect.cleandoc(text) + "\n"


def findings(source: str, tensorflow: str = "2.21", keras: str | None = None, codes=CODES):
    settings = Settings(tensorflow_version=tensorflow, keras_version=keras, select=tuple(codes))
    return [v for v in tapelsp.check_source(source, "t.py", settings) if v.code in codes]


def flagged(source: str, tensorflow: str = "2.21", keras: str | None = None, codes=CODES) -> list[tuple[str, int]]:
    return sorted((v.code, v.range.start.line + 1) for v in findings(source, tensorflow, keras, codes))


# --- the seed: a DQN train method decorated with tf.function ----------------------------------

DQN_STEP = src("""
    import numpy as np
    import tensorflow as tf


    class ReplayAgent:
        def __init__(self, num_actions, batch_size=32, min_experiences=100):
            self.num_actions = num_actions
            self.batch_size = batch_size
            self.min_experiences = min_experiences
            self.gamma = 0.95
            self.memory = {"s": [], "a": [], "r": [], "s2": [], "done": []}
            self.model = tf.keras.Sequential([tf.keras.layers.Dense(64, activation="relu"),
                                              tf.keras.layers.Dense(num_actions)])
            self.optimizer = tf.keras.optimizers.Adam(1e-3)

        @tf.function
        def train(self, target_net, epsilon):
            if len(self.memory["s"]) < self.min_experiences:
                return 0.0
            picks = np.random.randint(0, len(self.memory["s"]), size=self.batch_size)
            states = np.asarray([self.memory["s"][i] for i in picks])
            actions = np.asarray([self.memory["a"][i] for i in picks])
            rewards = np.asarray([self.memory["r"][i] for i in picks])
            next_states = np.asarray([self.memory["s2"][i] for i in picks])
            done = np.asarray([self.memory["done"][i] for i in picks])
            next_q = target_net.predict(next_states)
            best_next = np.max(self.model(next_states), axis=1)
            targets = np.where(done, rewards, rewards + self.gamma * best_next)
            with tf.GradientTape() as tape:
                chosen = tf.reduce_sum(self.model(states) * tf.one_hot(actions, self.num_actions), axis=1)
                loss = tf.reduce_sum(tf.square(targets - chosen))
            grads = tape.gradient(loss, self.model.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
            return loss


    agent = ReplayAgent(2)
    target_model = tf.keras.Sequential([tf.keras.layers.Dense(2)])
    agent.train(target_model, 0.1)
""")


def test_dqn_step_predict_and_numpy_on_the_model_output() -> None:
    # Under TF 2.21 / Keras 3 this raises at line 26 ('SymbolicTensor' has no attribute
    # 'numpy'), and without that line at line 27 (Cannot convert a symbolic tf.Tensor).
    # NumPy on the Python replay buffer (lines 20-25) is fine and must stay silent.
    assert flagged(DQN_STEP) == [("FUNC005", 27), ("FUNC006", 26)]


def test_dqn_step_target_of_unknown_type_is_not_a_model() -> None:
    # The seed's own `TargetNet` is an instance of the agent class, whose `predict` is its own.
    source = DQN_STEP.replace("target_model = tf.keras.Sequential([tf.keras.layers.Dense(2)])",
                              "target_model = ReplayAgent(2)")
    assert ("FUNC006", 26) not in flagged(source)


# --- version differences -----------------------------------------------------------------

TRAIN_ON_BATCH = src("""
    import tensorflow as tf

    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])

    @tf.function
    def step(x, y):
        return model.train_on_batch(x, y)
""")


def test_train_on_batch_is_flagged_for_keras_2_only() -> None:
    assert flagged(TRAIN_ON_BATCH, "2.21") == []
    assert flagged(TRAIN_ON_BATCH, "2.15") == [("FUNC006", 7)]
    assert flagged(TRAIN_ON_BATCH, "2.21", keras="2.15") == [("FUNC006", 7)]
    tf_keras = TRAIN_ON_BATCH.replace("import tensorflow as tf", "import tensorflow as tf\nimport tf_keras") \
        .replace("tf.keras.Sequential([tf.keras.layers.Dense(1)])", "tf_keras.Sequential([tf_keras.layers.Dense(1)])")
    assert flagged(tf_keras, "2.21") == [("FUNC006", 8)]


def test_predict_message_names_the_keras_that_raises() -> None:
    source = TRAIN_ON_BATCH.replace("train_on_batch(x, y)", "predict(x)")
    (keras3,) = findings(source, "2.21")
    (keras2,) = findings(source, "2.15")
    assert "Keras 3 raises AttributeError \"'SymbolicTensor' object has no attribute 'numpy'\"" in keras3.message
    assert "Keras 2 raises RuntimeError \"Detected a call to `Model.predict` inside a `tf.function`." in keras2.message


OPTIMIZER_ONLY = src("""
    import tensorflow as tf

    @tf.function
    def step(x):
        opt = tf.keras.optimizers.Adam(0.1)
        return x
""")


def test_optimizer_constructor_creates_variables_from_keras_2_11_on() -> None:
    assert flagged(OPTIMIZER_ONLY, "2.21") == [("FUNC002", 5)]
    assert flagged(OPTIMIZER_ONLY, "2.15") == [("FUNC002", 5)]
    assert flagged(OPTIMIZER_ONLY, "2.10") == []
    legacy = OPTIMIZER_ONLY.replace("optimizers.Adam", "optimizers.legacy.Adam")
    assert flagged(legacy, "2.15") == []
    assert flagged(OPTIMIZER_ONLY, "1.15") == []


def test_variable_error_wording_changed_in_2_7() -> None:
    source = src("""
        import tensorflow as tf

        @tf.function
        def forward(x):
            return tf.keras.layers.Dense(2)(x)
    """)
    (new,) = findings(source, "2.21")
    (old,) = findings(source, "2.6")
    assert "tf.function only supports singleton tf.Variables created on the first call" in new.message
    assert "tf.function-decorated function tried to create variables on non-first call." in old.message


def test_dropout_holds_a_variable_in_keras_3_only() -> None:
    source = src("""
        import tensorflow as tf

        @tf.function
        def noisy(x):
            return tf.keras.layers.Dropout(0.2)(x, training=True)
    """)
    assert flagged(source, "2.21") == [("FUNC003", 5)]
    assert flagged(source, "2.15") == []


def test_symbolic_tensor_class_name_in_the_message() -> None:
    source = src("""
        import tensorflow as tf

        @tf.function
        def f(x):
            y = tf.square(x)
            return y.numpy()
    """)
    (modern,) = findings(source, "2.21")
    (older,) = findings(source, "2.12")
    assert "'SymbolicTensor' object has no attribute 'numpy'" in modern.message
    assert "'Tensor' object has no attribute 'numpy'" in older.message


# --- near misses that must stay silent ------------------------------------------------------

SILENT = {
    "numpy on python values and shapes": """
        import numpy as np
        import tensorflow as tf

        @tf.function
        def f(x, n):
            k = np.prod(x.shape) * np.sqrt(n)
            return x * k

        f(tf.ones([2]), 3.0)
    """,
    "numpy on a parameter nobody passes a tensor for": """
        import numpy as np
        import tensorflow as tf

        @tf.function
        def f(x, scale):
            return x * np.float32(np.log(scale))
    """,
    "numpy inside init_scope": """
        import numpy as np
        import tensorflow as tf

        table = tf.constant([1.0, 2.0])

        @tf.function
        def f(x):
            with tf.init_scope():
                host = np.asarray(tf.identity(table))
            return x + host.sum()
    """,
    "run_functions_eagerly(True)": """
        import tensorflow as tf

        tf.config.run_functions_eagerly(True)

        @tf.function
        def f(x):
            return tf.square(x).numpy()
    """,
    "numpy after the tf.function returns": """
        import numpy as np
        import tensorflow as tf

        @tf.function
        def f(x):
            return tf.square(x)

        values = np.mean(f(tf.ones([3])).numpy())
    """,
    "model.predict outside, call inside": """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])

        @tf.function
        def f(x):
            return model(x)

        y = model.predict(tf.ones([2, 2]))
    """,
    "predict on something that is not known to be a Keras model": """
        import tensorflow as tf

        def load():
            return object()

        @tf.function
        def f(estimator, x):
            return estimator.predict(x)
    """,
    "a layer made once and reused; lazy creation": """
        import tensorflow as tf

        class Net(tf.Module):
            def __init__(self):
                super().__init__()
                self.dense = None

            @tf.function
            def __call__(self, x):
                self.dense = self.dense or tf.keras.layers.Dense(3)
                return self.dense(x)
    """,
    "a layer constructed but never used": """
        import tensorflow as tf

        @tf.function
        def f(x):
            unused = tf.keras.layers.Dense(3)
            return x
    """,
    "one optimizer through an argument": """
        import tensorflow as tf

        opt = tf.keras.optimizers.Adam()
        w = tf.Variable(1.0)

        @tf.function
        def step(optimizer):
            with tf.GradientTape() as tape:
                loss = w * w
            optimizer.apply_gradients([(tape.gradient(loss, w), w)])

        step(opt)
        step(opt)
    """,
    "a TensorSpec parameter given tensors only, and a variable without a signature": """
        import tensorflow as tf

        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def f(v):
            with tf.GradientTape() as tape:
                tape.watch(v)
                y = v * v
            return tape.gradient(y, v)

        @tf.function
        def g(v):
            with tf.GradientTape() as tape:
                y = v * v
            return tape.gradient(y, v)

        f(tf.constant(2.0))
        g(tf.Variable(2.0))
    """,
}


@pytest.mark.parametrize("name", sorted(SILENT))
def test_near_miss_is_silent(name: str) -> None:
    assert flagged(src(SILENT[name])) == []


# --- Keras 2 under real TensorFlow --------------------------------------------------------------

KERAS2_PROOF = textwrap.dedent("""
    import tensorflow as tf
    import tf_keras as keras

    model = keras.Sequential([keras.layers.Dense(1)])
    model.build((None, 2))

    @tf.function
    def predict_inside(x):
        return model.predict(x, verbose=0)

    try:
        predict_inside(tf.ones([2, 2]))
    except RuntimeError as error:
        assert "Detected a call to `Model.predict` inside a `tf.function`" in str(error), error
    else:
        raise AssertionError("tf_keras accepted predict inside a tf.function")

    @tf.function
    def noisy(x):
        return keras.layers.Dropout(0.5)(x, training=True)

    assert noisy(tf.ones([2, 2])).shape == (2, 2)  # Keras 2's Dropout holds no variable

    w1, w2 = tf.Variable(1.0), tf.Variable(2.0)

    @tf.function
    def step(optimizer, w):
        with tf.GradientTape() as tape:
            loss = w * w
        optimizer.apply_gradients([(tape.gradient(loss, w), w)])

    step(keras.optimizers.SGD(0.1), w1)
    try:
        step(keras.optimizers.SGD(0.1), w2)
    except ValueError as error:
        assert "tf.function only supports singleton tf.Variables" in str(error), error
    else:
        raise AssertionError("Keras 2's SGD applied through one tf.function twice did not fail")
    print("KERAS2-OK")
""")


@pytest.mark.tensorflow
def test_keras_2_behaviour_under_tensorflow() -> None:
    if importlib.util.find_spec("tensorflow") is None or importlib.util.find_spec("tf_keras") is None:
        pytest.skip("needs tensorflow and tf_keras in this interpreter")
    done = subprocess.run([sys.executable, "-c", KERAS2_PROOF], check=False, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0 and "KERAS2-OK" in done.stdout, done.stderr[-3000:]


def test_keras_2_proof_matches_what_the_rules_say() -> None:
    """The script above is what the rules claim for Keras 2: check the rules agree with it."""
    source = KERAS2_PROOF.split("try:")[0]
    assert flagged(source, "2.21") == [("FUNC006", 10)]
    dropout = src("""
        import tensorflow as tf
        import tf_keras as keras

        @tf.function
        def noisy(x):
            return keras.layers.Dropout(0.5)(x, training=True)
    """)
    assert flagged(dropout, "2.21") == []
    sgd = src("""
        import tensorflow as tf
        import tf_keras as keras

        w1, w2 = tf.Variable(1.0), tf.Variable(2.0)
        sgd1, sgd2 = keras.optimizers.SGD(0.1), keras.optimizers.SGD(0.1)

        @tf.function
        def step(optimizer, w):
            with tf.GradientTape() as tape:
                loss = w * w
            optimizer.apply_gradients([(tape.gradient(loss, w), w)])

        step(sgd1, w1)
        step(sgd2, w2)
    """)
    assert flagged(sgd, "2.21") == [("FUNC002", 14)]
    assert flagged(sgd.replace("tf_keras as keras", "keras"), "2.21") == []


def test_repeated_reassignment_is_followed_without_blowup() -> None:
    """`x = x * 2 + y` sixty times: each binding refers to the name itself."""
    body = "\n".join("    x = x * 2 + y" for _ in range(60))
    source = f"import numpy as np\nimport tensorflow as tf\n\n@tf.function\ndef f(y):\n    x = tf.zeros([3])\n{body}\n" \
             "    return np.sum(x)\n"
    assert flagged(source) == [("FUNC005", 67)]
    assert flagged(source.replace("x = tf.zeros([3])", "x = 0.0")) == []


def test_flags_are_not_first_call_guards_but_none_checks_are() -> None:
    source = src("""
        import tensorflow as tf

        class Net(tf.Module):
            def __init__(self, use_bias):
                super().__init__()
                self.use_bias = use_bias
                self.extra = None

            @tf.function
            def __call__(self, x, training):
                if self.use_bias:
                    x = tf.keras.layers.Dense(3)(x)
                if not training:
                    x = tf.keras.layers.Dense(3)(x)
                if self.extra is None:
                    self.extra = tf.keras.layers.Dense(3)
                if not self.extra.built:
                    self.extra.build(x.shape)
                return self.extra(x)
    """)
    assert flagged(source) == [("FUNC003", 12), ("FUNC003", 14)]


def test_a_layer_made_in_a_helper_the_trace_calls() -> None:
    """The helper runs while the tf.function traces, so its Dense is made on every trace
    (TensorFlow 2.21: ValueError "tf.function only supports singleton tf.Variables created on
    the first call"), like FUNC003's examples in the body itself. No fix: the helper may run
    outside the trace too."""
    source = (
        "import tensorflow as tf\n\n"
        "encoder = tf.keras.Sequential([tf.keras.layers.Dense(4)])\n"
        "encoder.build((None, 3))\n\n"
        "def project(features):\n"
        "    head = tf.keras.layers.Dense(2)\n"
        "    return head(features)\n\n"
        "@tf.function\n"
        "def embed(x):\n"
        "    return project(encoder(x))\n\n"
        "z = embed(tf.ones([2, 3]))\n"
    )
    assert flagged(source) == [("FUNC003", 7)]
    [finding] = [v for v in tapelsp.check_source(source, "t.py", Settings()) if v.code == "FUNC003"]
    assert "inside `project`, which the tf.function `embed` calls" in finding.message


def test_numpy_methods_of_a_tensor_are_fine_with_numpy_behavior_enabled() -> None:
    """tf.experimental.numpy.experimental_enable_numpy_behavior() gives tf.Tensor `reshape`,
    `astype`... (TensorFlow 2.21): FUNC005 says nothing about them then."""
    source = (
        "import tensorflow as tf\n\n"
        "@tf.function\n"
        "def flatten(x):\n"
        "    return x.reshape(-1)\n\n"
        "y = flatten(tf.ones([2, 3]))\n"
    )
    assert flagged(source) == [("FUNC005", 5)]
    enabled = source.replace("import tensorflow as tf\n", "import tensorflow as tf\n"
                             "tf.experimental.numpy.experimental_enable_numpy_behavior()\n")
    assert flagged(enabled) == []
