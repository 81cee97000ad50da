from __future__ import annotations

import ast

from ...facts.model import CallSite
from ...model import Applicability, Severity
from ...versions import VersionRange
from ...analysis.python_state import FileState, file_state, self_attribute
from ...analysis.traced_bodies import in_eager_branch, traced_bodies
from ..tape._fixes import unfixed
from ._fixes import tensor_context, tf_alias
from ..base import Context, Proof, Rule, invalid, valid

# numpy.random functions that do not draw numbers (constructors, seeding, state).
_NUMPY_QUIET = frozenset({
    "seed", "get_state", "set_state", "default_rng", "RandomState", "Generator", "SeedSequence",
    "BitGenerator", "PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64", "get_bit_generator",
    "set_bit_generator",
})
_RANDOM_QUIET = frozenset({"seed", "getstate", "setstate", "Random", "SystemRandom"})
_CLOCKS = {
    "time.time": "`tf.timestamp()`", "time.time_ns": "`tf.timestamp()`", "time.perf_counter": "`tf.timestamp()`",
    "time.perf_counter_ns": "`tf.timestamp()`", "time.monotonic": "`tf.timestamp()`",
    "time.monotonic_ns": "`tf.timestamp()`", "time.process_time": "`tf.timestamp()`",
    "datetime.datetime.now": "`tf.timestamp()`", "datetime.datetime.utcnow": "`tf.timestamp()`",
    "datetime.datetime.today": "`tf.timestamp()`", "datetime.date.today": "`tf.timestamp()`",
    "uuid.uuid4": "a value computed outside the function and passed in",
}
# Generator objects whose methods draw numbers.
_GENERATORS = frozenset({"numpy.random.RandomState", "numpy.random.default_rng", "numpy.random.Generator",
                         "random.Random"})
_SUGGESTIONS = {
    "randint": "tf.random.uniform(shape, minval, maxval, dtype=tf.int32)",
    "integers": "tf.random.uniform(shape, minval, maxval, dtype=tf.int32)",
    "randrange": "tf.random.uniform([], minval, maxval, dtype=tf.int32)",
    "uniform": "tf.random.uniform", "rand": "tf.random.uniform", "random": "tf.random.uniform",
    "random_sample": "tf.random.uniform", "sample": "tf.random.shuffle", "ranf": "tf.random.uniform",
    "normal": "tf.random.normal", "randn": "tf.random.normal", "standard_normal": "tf.random.normal",
    "gauss": "tf.random.normal", "normalvariate": "tf.random.normal",
    "choice": "tf.random.categorical or tf.random.shuffle", "choices": "tf.random.categorical",
    "shuffle": "tf.random.shuffle", "permutation": "tf.random.shuffle",
    "binomial": "tf.random.stateless_binomial", "poisson": "tf.random.poisson", "gamma": "tf.random.gamma",
    "exponential": "tf.random.gamma", "beta": "tf.random.gamma",
}


def _seeded(site: CallSite, ctx: Context) -> bool:
    """The traced function seeds NumPy's or Python's generator itself (`np.random.seed(10)`):
    the same values on every trace are what it asks for."""
    scope = site.scope.function
    return scope is not None and any(seed.scope.function is scope
                                     for seed in ctx.facts.calls_to("numpy.random.seed", "random.seed"))


class PythonRandomness(Rule):
    """
    ## What it does
    Finds NumPy or Python randomness (`np.random.*`, `random.*`, a `RandomState` or
    `default_rng()` generator) and clock reads (`time.time()`, `datetime.now()`) in the
    body of a `tf.function`, and in the bodies TensorFlow traces without one: a function
    given to `Dataset.map` / `filter` / `flat_map` / `interleave` / `reduce`, and a Keras
    model's `train_step` / `test_step` / `predict_step` run by `fit` / `evaluate` /
    `predict` (unless Keras runs eagerly: `compile(run_eagerly=True)`).

    ## Why is this bad?
    TensorFlow runs the Python body of a tf.function only while it traces it. A NumPy or
    Python random number drawn there is computed once and baked into the graph as a
    constant: every later call uses the same "random" value (the same minibatch indices,
    the same exploration decision, the same dropout mask), and the clock always shows the
    time of the trace. TensorFlow says nothing.

    Not reported: randomness in a function given to `tf.numpy_function` or
    `tf.py_function` (TensorFlow calls it as Python on every run), in a body that
    seeds the generator itself (`np.random.seed(10)`: fixed values on purpose), a draw
    made a graph constant with `tf.constant(np.random.randn(...))` (a fixed value is what
    it asks for), and code in the eager branch of a `tf.executing_eagerly()` test.

    ## Example
    ```python
    @tf.function
    def sample_batch(data):
        ids = np.random.randint(0, 1000, size=32)   # the same 32 ids on every call
        return tf.gather(data, ids)
    ```

    ## Use instead
    ```python
    @tf.function
    def sample_batch(data):
        ids = tf.random.uniform([32], 0, 1000, dtype=tf.int32)
        return tf.gather(data, ids)
    ```
    `tf.random.*` ops, a `tf.random.Generator`, and `tf.timestamp()` run on every call.
    """

    code = "FUNC008"
    name = "python-randomness-in-tf-function"
    summary = "NumPy/Python randomness or clock in a tf.function body is frozen at trace time"
    severity = Severity.WARNING
    tensorflow = VersionRange(">=2.0")
    cheap_without_triggers = True
    triggers = ("random", "time", "datetime", "uuid")
    fixable = True
    examples = (
        invalid("""
            import numpy as np
            import tensorflow as tf

            data = tf.reshape(tf.range(1000.0), [1000, 1])

            @tf.function
            def sample_batch():
                ids = np.random.randint(low=0, high=1000, size=8)
                return tf.gather(data, ids)

            batches = [sample_batch().numpy() for _ in range(3)]
        """, 8, "the seed report: minibatch indices drawn with numpy",
            proof=Proof(check="""
                assert all((b == batches[0]).all() for b in batches), "the same batch on every call"
            """),
            fixed="""
            import numpy as np
            import tensorflow as tf

            data = tf.reshape(tf.range(1000.0), [1000, 1])

            @tf.function
            def sample_batch():
                ids = tf.random.uniform([8], 0, 1000, dtype=tf.int32)
                return tf.gather(data, ids)

            batches = [sample_batch().numpy() for _ in range(3)]
        """, fixed_proof=Proof(check="""
                assert not all((b == batches[0]).all() for b in batches), "a new batch on every call"
                assert all(b.shape == (8, 1) and (0 <= b).all() and (b < 1000).all() for b in batches)
            """)),
        invalid("""
            import random
            import tensorflow as tf

            @tf.function
            def act(q_values, epsilon):
                if random.random() < epsilon:
                    return tf.random.uniform([], 0, 4, dtype=tf.int64)
                return tf.argmax(q_values)

            q = tf.constant([0.1, 0.9, 0.3, 0.2])
            actions = [int(act(q, 0.5)) for _ in range(20)]
        """, 6, "epsilon-greedy decided once, while tracing",
            proof=Proof(check="""
                # The coin was tossed once, while tracing: only one branch made it into the graph.
                graph = act.get_concrete_function(q, 0.5).graph
                ops = {op.type for op in graph.get_operations()}
                assert ("ArgMax" in ops) != ("RandomUniformInt" in ops), "only one branch is in the graph"
            """),
            fixed="""
            import random
            import tensorflow as tf

            @tf.function
            def act(q_values, epsilon):
                if tf.random.uniform([]) < epsilon:
                    return tf.random.uniform([], 0, 4, dtype=tf.int64)
                return tf.argmax(q_values)

            q = tf.constant([0.1, 0.9, 0.3, 0.2])
            actions = [int(act(q, 0.5)) for _ in range(20)]
        """, fixed_proof=Proof(check="""
                # The coin is an op now, and AutoGraph turns the `if` on it into a tf.cond (an If op).
                graph = act.get_concrete_function(q, 0.5).graph
                ops = {op.type for op in graph.get_operations()}
                assert "RandomUniform" in ops and ops & {"If", "StatelessIf"}, ops
                more = [int(act(q, 0.5)) for _ in range(60)]
                assert len(set(actions + more)) > 1 and act.experimental_get_tracing_count() == 1
            """)),
        invalid("""
            import numpy as np
            import tensorflow as tf

            @tf.function
            def add_noise(x):
                noise = np.random.normal(0.0, 0.1, size=(2, 3))  # Gaussian noise
                scale = np.random.uniform(0.5, 1.5)
                return x * scale + noise

            first = add_noise(tf.zeros([2, 3]))
            second = add_noise(tf.zeros([2, 3]))
        """, (6, 7), "noise and a scale drawn with NumPy: tf.random takes the same values in another order "
                     "(unsafe here: the values reach the caller, as float32 instead of float64)",
            proof=Proof(check="import numpy as np; assert np.array_equal(first.numpy(), second.numpy())"),
            fixed="""
            import numpy as np
            import tensorflow as tf

            @tf.function
            def add_noise(x):
                noise = tf.random.normal((2, 3), 0.0, 0.1)  # Gaussian noise
                scale = tf.random.uniform([], 0.5, 1.5)
                return x * scale + noise

            first = add_noise(tf.zeros([2, 3]))
            second = add_noise(tf.zeros([2, 3]))
        """, fixed_proof=Proof(check="""
                import numpy as np
                assert not np.array_equal(first.numpy(), second.numpy()), "new noise on every call"
            """)),
        invalid("""
            import numpy as np
            import tensorflow as tf

            @tf.function
            def jitter(x):
                noise = np.random.normal(0.0, 0.2, size=(1, 2)).astype("float32")
                return x + noise

            first = jitter(tf.zeros([1, 2]))
            second = jitter(tf.zeros([1, 2]))
        """, 6, "a NumPy draw cast with .astype: the whole chain becomes one op with that dtype (a tensor "
                "has no .astype)",
            proof=Proof(check="import numpy as np; assert np.array_equal(first.numpy(), second.numpy())"),
            fixed="""
            import numpy as np
            import tensorflow as tf

            @tf.function
            def jitter(x):
                noise = tf.random.normal((1, 2), 0.0, 0.2, dtype=tf.float32)
                return x + noise

            first = jitter(tf.zeros([1, 2]))
            second = jitter(tf.zeros([1, 2]))
        """, fixed_proof=Proof(check="""
                import numpy as np
                assert first.dtype == tf.float32 and not np.array_equal(first.numpy(), second.numpy())
            """)),
        unfixed(invalid("""
            import numpy as np
            import tensorflow as tf

            @tf.function
            def pick(x):
                order = np.random.permutation(3).tolist()
                weights = np.random.uniform(size=3).tolist()
                return tf.gather(x, order) * weights[0]

            first = pick(tf.constant([1.0, 2.0, 3.0]))
        """, (6, 7), "a NumPy method on the draw (.tolist()): no fix, a tensor has no such method",
            proof=Proof(check="assert pick.experimental_get_tracing_count() == 1"))),
        unfixed(invalid("""
            import time
            import tensorflow as tf

            @tf.function
            def stamp(x):
                return x + time.time()

            first = float(stamp(tf.constant(0.0, tf.float64)))
            time.sleep(0.05)
            second = float(stamp(tf.constant(0.0, tf.float64)))
        """, 6, "the clock read once, while tracing",
            proof=Proof(check="assert first == second"))),
        unfixed(invalid("""
            import numpy as np
            import tensorflow as tf

            rng = np.random.default_rng(0)

            @tf.function
            def noisy(x):
                return x + rng.normal()

            values = [float(noisy(tf.constant(0.0))) for _ in range(3)]
        """, 8, "a NumPy Generator defined outside the function",
            proof=Proof(check="assert values[0] == values[1] == values[2]"))),
        unfixed(invalid("""
            import random
            import tensorflow as tf

            def augment(x):
                if random.random() < 0.5:
                    return tf.reverse(x, [0])
                return x

            @tf.function
            def step(x):
                return augment(x) * 2.0

            outs = [step(tf.constant([1.0, 2.0])).numpy().tolist() for _ in range(20)]
        """, 5, "a helper the tf.function calls: its Python runs in the trace too",
            proof=Proof(check="assert all(o == outs[0] for o in outs) and step.experimental_get_tracing_count() == 1"))),
        unfixed(invalid("""
            import random
            import numpy as np
            import keras
            import tensorflow as tf

            class DropPath(keras.layers.Layer):
                def __init__(self):
                    super().__init__()
                    self.fc = keras.layers.Dense(4)

                def call(self, x, training=False):
                    if training and random.random() < 0.5:
                        return x
                    return x + self.fc(x)

            block = DropPath()

            @tf.function
            def forward(x):
                return block(x, training=True)

            x = tf.ones((2, 4))
            dropped = [bool(np.allclose(forward(x).numpy(), x.numpy())) for _ in range(20)]
        """, 12, "stochastic depth in a Keras layer's call, run by a tf.function's trace",
            proof=Proof(check="assert len(set(dropped)) == 1, dropped"))),
        valid("""
            import random
            import tensorflow as tf

            def noise():
                return random.random()

            @tf.function
            def step(x, n):
                return x + n

            outs = [float(step(tf.constant(0.0), tf.constant(noise()))) for _ in range(5)]
        """, "a helper called outside the tf.function, its draw passed in as a tensor",
            proof=Proof(check="assert len(set(outs)) > 1 and step.experimental_get_tracing_count() == 1")),
        valid("""
            import random
            import tensorflow as tf

            def draw():
                return random.random()

            @tf.function
            def step(x):
                return x + tf.py_function(draw, [], tf.float64)

            outs = [float(step(tf.constant(0.0, tf.float64))) for _ in range(5)]
        """, "a helper given to tf.py_function: TensorFlow calls it as Python on every run",
            proof=Proof(check="assert len(set(outs)) > 1")),
        valid("""
            import tensorflow as tf

            data = tf.reshape(tf.range(1000.0), [1000, 1])

            @tf.function
            def sample_batch():
                ids = tf.random.uniform([8], minval=0, maxval=1000, dtype=tf.int32)
                return tf.gather(data, ids)

            batches = [sample_batch().numpy() for _ in range(3)]
        """, "tf.random draws on every call",
            proof=Proof(check="assert not all((b == batches[0]).all() for b in batches)")),
        valid("""
            import numpy as np
            import tensorflow as tf

            @tf.function
            def step(x, noise):
                return x + noise

            for _ in range(3):
                y = step(tf.constant(0.0), tf.constant(np.random.normal(), tf.float32))
        """, "numpy randomness drawn outside the function and passed in as a tensor",
            proof=Proof(check="assert step.experimental_get_tracing_count() == 1")),
        valid("""
            import numpy as np
            import tensorflow as tf

            @tf.function
            def dropout(x):
                return tf.nn.dropout(x, rate=0.5, seed=np.random.randint(1 << 30))

            a = dropout(tf.ones([64]))
            b = dropout(tf.ones([64]))
        """, "a NumPy value used only as an op seed: the op still draws on every call",
            proof=Proof(check="assert not bool(tf.reduce_all(a == b))")),
        valid("""
            import random
            import numpy as np
            import tensorflow as tf

            @tf.function
            def rotate(volume):
                def scipy_rotate(volume):
                    angle = random.choice([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0])
                    return (volume * angle).astype(np.float32)
                return tf.numpy_function(scipy_rotate, [volume], tf.float32)

            @tf.function
            def jitter(x):
                return tf.py_function(lambda v: v * np.random.random(), [x], tf.float32)

            angles = {float(rotate(np.float32(1.0))) for _ in range(20)}
            noise = {float(jitter(tf.constant(1.0))) for _ in range(5)}
        """, "randomness inside a tf.numpy_function / tf.py_function callback: it runs as Python on every call",
            proof=Proof(check="assert len(angles) > 1 and len(noise) > 1, (angles, noise)")),
        valid("""
            import numpy as np
            import tensorflow as tf

            @tf.function(autograph=False)
            def estimate():
                np.random.seed(10)
                samples = np.random.random(size=(3,))
                return tf.reduce_sum(tf.constant(samples))

            first, second = float(estimate()), float(estimate())
        """, "seeded in the body: the author fixes the values on purpose",
            proof=Proof(check="assert first == second")),
        invalid("""
            import numpy as np
            import tensorflow as tf

            def jitter(image):
                return image + np.random.normal(0.0, 0.1)

            images = tf.data.Dataset.from_tensor_slices(tf.zeros([4, 2])).map(jitter)
            noise = [float(image[0]) for image in images]
        """, 5, "np.random in a function given to Dataset.map: one draw for every element",
            proof=Proof(check="assert len(set(noise)) == 1, noise"), fixed="""
            import numpy as np
            import tensorflow as tf

            def jitter(image):
                return image + tf.random.normal([], 0.0, 0.1)

            images = tf.data.Dataset.from_tensor_slices(tf.zeros([4, 2])).map(jitter)
            noise = [float(image[0]) for image in images]
        """, fixed_proof=Proof(check="assert len(set(noise)) == 4, noise")),
        invalid("""
            import numpy as np
            import tensorflow as tf

            class Loader:
                def __init__(self, images):
                    self.images = images

                def _augment(self, image):
                    return image + np.random.normal(0.0, 0.1)

                def dataset(self):
                    return tf.data.Dataset.from_tensor_slices(self.images).map(self._augment)

            noise = [float(image[0]) for image in Loader(tf.zeros([4, 2])).dataset()]
        """, 9, "a bound method given to Dataset.map (`map(self._augment)`): tf.data traces the method once",
            proof=Proof(check="assert len(set(noise)) == 1, noise"), fixed="""
            import numpy as np
            import tensorflow as tf

            class Loader:
                def __init__(self, images):
                    self.images = images

                def _augment(self, image):
                    return image + tf.random.normal([], 0.0, 0.1)

                def dataset(self):
                    return tf.data.Dataset.from_tensor_slices(self.images).map(self._augment)

            noise = [float(image[0]) for image in Loader(tf.zeros([4, 2])).dataset()]
        """, fixed_proof=Proof(check="assert len(set(noise)) == 4, noise")),
        valid("""
            import numpy as np
            import tensorflow as tf

            class Jitter:
                def _augment(self, image):
                    return image + np.random.normal(0.0, 0.1)

            class Loader:
                def __init__(self, images):
                    self.images = images

                def _augment(self, image):
                    return image + tf.random.normal([], 0.0, 0.1)

                def dataset(self):
                    return tf.data.Dataset.from_tensor_slices(self.images).map(self._augment)

            noise = [float(image[0]) for image in Loader(tf.zeros([4, 2])).dataset()]
            eager = [float(Jitter()._augment(tf.zeros([2]))[0]) for _ in range(3)]
        """, "`map(self._augment)` traces the method of its own class: another class's `_augment` "
             "with np.random runs eagerly, a new draw on every call",
            proof=Proof(check="assert len(set(noise)) == 4 and len(set(eager)) == 3, (noise, eager)")),
        invalid("""
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
                    scale = np.random.uniform(0.5, 1.5)
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean((self(x) - y) ** 2) * scale
                    grads = tape.gradient(loss, self.trainable_variables)
                    self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
                    return {"loss": loss, "scale": scale}

            model = Regressor()
            model.compile(optimizer="sgd")
            history = model.fit(np.ones((8, 3), "float32"), np.ones((8, 1), "float32"), epochs=3, verbose=0)
        """, 14, "np.random in a Keras train_step: fit traces it, so every step gets the same draw",
            proof=Proof(check="assert len(set(history.history['scale'])) == 1, history.history"), fixed="""
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
                    scale = tf.random.uniform([], 0.5, 1.5)
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean((self(x) - y) ** 2) * scale
                    grads = tape.gradient(loss, self.trainable_variables)
                    self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
                    return {"loss": loss, "scale": scale}

            model = Regressor()
            model.compile(optimizer="sgd")
            history = model.fit(np.ones((8, 3), "float32"), np.ones((8, 1), "float32"), epochs=3, verbose=0)
        """, fixed_proof=Proof(check="assert len(set(history.history['scale'])) == 3, history.history")),
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
                    scale = np.random.uniform(0.5, 1.5)
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean((self(x) - y) ** 2) * scale
                    grads = tape.gradient(loss, self.trainable_variables)
                    self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
                    return {"loss": loss, "scale": tf.constant(scale)}

            model = Regressor()
            model.compile(optimizer="sgd", run_eagerly=True)
            history = model.fit(np.ones((8, 3), "float32"), np.ones((8, 1), "float32"), epochs=3, verbose=0)
        """, "np.random in a Keras train_step compiled with run_eagerly=True: a new draw on every step",
            proof=Proof(check="assert len(set(history.history['scale'])) == 3, history.history")),
        valid("""
            import tensorflow as tf

            def jitter(image):
                return image + tf.random.normal([], 0.0, 0.1)

            images = tf.data.Dataset.from_tensor_slices(tf.zeros([4, 2])).map(jitter)
            noise = [float(image[0]) for image in images]
        """, "tf.random in a Dataset.map function draws for every element",
            proof=Proof(check="assert len(set(noise)) == 4, noise")),
        valid("""
            import time
            import tensorflow as tf

            def eager(func):
                def wrapper(x):
                    return tf.py_function(func, [x], tf.float64)
                return wrapper

            @eager
            def stamp(x):
                return time.perf_counter() + 0.0 * float(x)

            stamps = [float(t) for t in tf.data.Dataset.range(3).map(stamp)]
        """, "a decorated def given to Dataset.map: tf.data traces the decorator's tf.py_function wrapper, "
             "which runs the def as Python per element",
            proof=Proof(check="assert len(set(stamps)) == 3, stamps")),
        valid("""
            import numpy as np
            import tensorflow as tf

            @tf.function
            def power(x):
                a = tf.constant(np.random.randn(20, 20), dtype=tf.float32)
                c = a
                for _ in range(5):
                    c = c @ a
                return tf.reduce_mean(c + x)

            first, second = float(power(tf.constant(1.0))), float(power(tf.constant(1.0)))
        """, "a random matrix made a graph constant with tf.constant: a fixed value is what it asks for",
            proof=Proof(check="assert first == second")),
    )

    def check(self, ctx: Context) -> None:
        state = file_state(ctx.facts)
        bodies = traced_bodies(ctx)
        helpers = _traced_helpers(ctx, bodies)
        if not bodies and not helpers:
            return
        for site in ctx.facts.calls:
            function = site.scope.function
            body = bodies.get(id(function.node)) if function is not None else None
            if body is None and function is not None:
                body = helpers.get(id(function.node))
            if body is None:
                continue
            found = _frozen(site, state, ctx)
            if found is None or _is_seed_argument(site.node, site.scope.node) or _seeded(site, ctx) \
                    or _made_constant(site, ctx) or in_eager_branch(site.node, body, ctx.facts):
                continue
            what, instead = found
            ctx.report(
                site.node,
                f"`{what}` runs only while TensorFlow traces {body.where}: its value is computed once and "
                f"baked into the graph, so every later call gets the same value. Use {instead} inside "
                "the function, or compute the value outside and pass it in as a tensor.",
                related=[ctx.related(body.origin, body.note)],
                # In a helper the draw may feed a Python `if` that no AutoGraph converts (a Keras 3
                # Layer.call): a tensor there would not run. No fix.
                fix=_tf_random(ctx, site) if id(function.node) not in helpers else None,
            )


def _traced_helpers(ctx: Context, bodies: dict) -> dict:
    """Defs of this file that a tf.function's trace runs without enclosing them: a helper it calls
    by name, a method through `self`, the `call` of a Keras layer or model of this file it calls
    (`block(x)`): their Python runs during that trace too (analysis/traced.py). By id of the def."""
    facts = ctx.facts
    if not facts.tf_functions:
        return {}
    from ...analysis.traced import function_name, traced_functions
    from ...analysis.traced_bodies import Body
    from ...analysis.values import values_for

    values = values_for(ctx)
    found: dict = {}
    for tf_function in facts.tf_functions:
        if tf_function.node is None or id(tf_function.node) not in bodies:
            continue
        outer = bodies[id(tf_function.node)]
        for node in traced_functions(facts, tf_function, values):
            scope = facts.function_scopes.get(node)
            if id(node) in bodies or id(node) in found or scope is None or scope.traced_by is not None \
                    or _in_callback(scope):
                continue
            found[id(node)] = Body(scope, node, function_name(node),
                                   f"{outer.where}, which runs {function_name(node)}", outer.origin, outer.note)
    return found


def _in_callback(scope) -> bool:
    while scope is not None and scope.kind in ("function", "lambda"):
        if scope.eager_callback:
            return True
        scope = scope.parent
    return False


def _tf_random(ctx: Context, site: CallSite):
    """`np.random.*` / `random.*` -> the `tf.random` op drawing the same numbers on every call
    (fixes/random_ops.py maps the arguments). Safe when the bounds and the size are literals
    and the value only feeds TensorFlow ops or arithmetic; unsafe otherwise (a Python `if` on
    it needs AutoGraph, NumPy or Python may use the value, the dtype becomes float32/int32).
    Generators (`rng.normal()`) and clocks: no fix."""
    qualname = site.qualname
    if qualname is None or not qualname.startswith(("numpy.random.", "random.")):
        return None
    alias = tf_alias(ctx.facts)
    if alias is None:
        return None
    from ...fixes.random_ops import tf_random_call

    text = ctx.facts.source.text
    found = tf_random_call(qualname, site.node, alias, text)
    if found is None:
        return None
    from ...fixes.random_ops import chained, integer_draw, with_dtype

    function = site.scope.node
    chain = chained(site.node, function, ctx.facts.imports)
    if chain is None:
        return None  # a NumPy method on the draw: a tensor has none of them
    call = site.node
    replacement = found.text
    if chain.node is not None:
        # `np.random.normal(...).astype("float32")` -> `tf.random.normal(..., dtype=tf.float32)`
        replacement = with_dtype(found, chain.dtype, integer_draw(qualname), alias)  # type: ignore[arg-type]
        if replacement is None:
            return None
        call = chain.node
    feeds = isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) \
        and tensor_context(call, function, ctx.facts)
    applicability = Applicability.SAFE if found.literal and feeds else Applicability.UNSAFE
    short = ast.unparse(site.node.func)

    def build():
        from ...fixes.random_ops import random_call_fix

        return random_call_fix(text, call, replacement, f"Draw with `{alias}.random.{found.op}` on every call "
                               f"instead of `{short}`", applicability)
    return build


def _frozen(site: CallSite, state: FileState, ctx: Context) -> tuple[str, str] | None:
    """(what is called, what to use instead) for a call that draws randomness or reads the clock."""
    qualname = site.qualname
    if qualname is not None:
        if qualname.startswith("numpy.random.") and qualname.count(".") == 2:
            name = qualname.rsplit(".", 1)[1]
            if name in _NUMPY_QUIET:
                return None
            return f"{ast.unparse(site.node.func)}(...)", _suggest(name)
        if qualname.startswith("random.") and qualname.count(".") == 1:
            name = qualname.split(".", 1)[1]
            if name in _RANDOM_QUIET:
                return None
            return f"{ast.unparse(site.node.func)}(...)", _suggest(name)
        if qualname in _CLOCKS:
            return f"{ast.unparse(site.node.func)}()", _CLOCKS[qualname]
        return None
    func = site.node.func
    if not isinstance(func, ast.Attribute) or func.attr.startswith("_"):
        return None
    if func.attr in _NUMPY_QUIET or func.attr in _RANDOM_QUIET or func.attr in ("bit_generator", "spawn"):
        return None
    if _is_generator(func.value, site, state, ctx):
        return f"{ast.unparse(func)}(...)", _suggest(func.attr)
    return None


def _suggest(name: str) -> str:
    found = _SUGGESTIONS.get(name, "the matching tf.random op")
    return f"`{found}`" if found.startswith("tf.") and " or " not in found else found


def _is_generator(expr: ast.expr, site: CallSite, state: FileState, ctx: Context) -> bool:
    """`rng` (module or closure) or `self.rng` bound to a NumPy/Python random generator."""
    if isinstance(expr, ast.Name):
        defining = state.defining_scope(site.scope, expr.id)
        if defining is None or (defining.kind != "module" and id(defining.node) in traced_bodies(ctx)):
            return False
        bindings = [b for b in state.names(defining).bindings.get(expr.id, [])]
    else:
        attr = self_attribute(expr)
        cls = state.class_of(site.scope) if attr else None
        if cls is None:
            return False
        bindings = state.class_attrs(cls).get(attr, [])  # type: ignore[arg-type]
    return bool(bindings) and all(
        b.kind == "assign" and isinstance(b.value, ast.Call)
        and ctx.facts.imports.resolve(b.value.func) in _GENERATORS for b in bindings)


def _made_constant(site: CallSite, ctx: Context) -> bool:
    """The draw is the value of `tf.constant(...)` (also through `.astype(...)` / `.reshape(...)`):
    the code asks for a constant of the graph, and a value fixed when the graph is built is what
    it gets (`tf.constant(np.random.randn(2000, 2000))`, a random matrix to benchmark with)."""
    for node in ast.walk(site.scope.node):
        if not isinstance(node, ast.Call) or ctx.facts.imports.resolve(node.func) != "tensorflow.constant":
            continue
        value = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "value"), None)
        while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
                and value.func.attr in ("astype", "reshape") and value is not site.node:
            value = value.func.value
        if value is site.node:
            return True
    return False


def _is_seed_argument(call: ast.Call, root: ast.AST) -> bool:
    """The call is (part of) a `seed=` argument: the seeded op still draws on every call."""
    for node in ast.walk(root):
        if isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg in ("seed", "seed2", "op_seed") and any(n is call for n in ast.walk(keyword.value)):
                    return True
    return False
