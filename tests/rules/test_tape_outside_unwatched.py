"""TAPE005 / TAPE006 / TAPE010 on the injector's tape-outside and tape-unwatched-constant
mutants that were missed: a tensor indexed after the block (`score = logits[:, k]`), the
forward pass before the tape in a method whose tape calls a Keras loss held in an attribute, in
a train_step whose tape reads a number attribute, through a module-level function that runs the
global model itself (a notebook's PINN residual), one term of the loss computed by the model
before the tape while the model also runs inside; a tf.constant attribute as the source, and a
tape handed on (`weakref.ref(tape)`) only after the gradient call. Each near variant was run
under TensorFlow 2.21 (the asserts in the snippets hold there); the rule examples carry the
TensorFlow proofs."""

from __future__ import annotations

import inspect

import tapelsp
from tapelsp import Settings


def lines(source: str, code: str) -> list[int]:
    text = inspect.cleandoc(source) + "\n"
    found = tapelsp.check_source(text, "t.py", Settings(tensorflow_version="2.21", select=(code,)))
    return sorted(v.range.start.line + 1 for v in found if v.code == code)


# --- TAPE005: indexing a tensor after the block ------------------------------------------------

def test_a_tensor_sliced_after_the_block_is_the_unrecorded_target() -> None:
    assert lines("""
    import tensorflow as tf

    def saliency(model, image, k):
        with tf.GradientTape() as tape:
            tape.watch(image)
            logits = model(image)
        score = logits[:, k]
        return tape.gradient(score, image)

    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(4)])
    g = saliency(model, tf.ones([2, 3]), 1)
    assert g is None
    """, "TAPE005") == [7]


def test_a_tensor_indexed_in_the_call_after_the_block() -> None:
    assert lines("""
    import tensorflow as tf

    w = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        y = w * w
    g = tape.gradient(y[0], w)
    assert g is None
    """, "TAPE005") == [6]


def test_a_list_indexed_after_the_block_is_an_alias() -> None:
    assert lines("""
    import tensorflow as tf

    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(4)])
    images = tf.ones([2, 3])
    with tf.GradientTape() as tape:
        tape.watch(images)
        outputs = [model(images), model(2.0 * images)]
    score = outputs[0]
    g = tape.gradient(score, images)
    assert g is not None
    """, "TAPE005") == []


def test_a_slice_inside_the_block_is_recorded() -> None:
    assert lines("""
    import tensorflow as tf

    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(4)])
    images = tf.ones([2, 3])
    with tf.GradientTape() as tape:
        tape.watch(images)
        logits = model(images)
        score = logits[:, 1]
    g = tape.gradient(score, images)
    assert g is not None
    """, "TAPE005") == []


# --- TAPE006 -----------------------------------------------------------------------------------

def test_a_keras_loss_attribute_in_the_tape_is_not_another_run_of_the_model() -> None:
    assert lines("""
    import tensorflow as tf

    class Agent:
        def __init__(self):
            self.online = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
            self.huber = tf.keras.losses.Huber()

        def grads(self, states, targets):
            q = self.online(states)
            with tf.GradientTape() as tape:
                loss = self.huber(targets, q)
            return tape.gradient(loss, self.online.trainable_variables)

    grads = Agent().grads(tf.ones([4, 3]), tf.zeros([4, 2]))
    assert all(g is None for g in grads)
    """, "TAPE006") == [9]


def test_a_method_of_the_object_called_in_the_tape_may_run_the_model() -> None:
    assert lines("""
    import tensorflow as tf

    class Agent:
        def __init__(self):
            self.online = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])

        def loss_of(self, targets, q):
            return tf.reduce_mean(tf.square(targets - q - self.online(tf.ones([4, 3]))))

        def grads(self, states, targets):
            q = self.online(states)
            with tf.GradientTape() as tape:
                loss = self.loss_of(targets, q)
            return tape.gradient(loss, self.online.trainable_variables)

    grads = Agent().grads(tf.ones([4, 3]), tf.zeros([4, 2]))
    assert all(g is not None for g in grads)
    """, "TAPE006") == []


def test_a_number_attribute_read_in_a_train_step_tape_runs_nothing() -> None:
    assert lines("""
    import tensorflow as tf

    class Scorer(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = tf.keras.layers.Dense(2)
            self.temperature = 0.5

        def call(self, x):
            return self.dense(x)

        def train_step(self, data):
            z = self(data, training=True)
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.matmul(z, z, transpose_b=True) / self.temperature)
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            return {"loss": loss}
    """, "TAPE006") == [13]


def test_a_variable_attribute_read_in_the_tape_is_not_a_plain_read() -> None:
    # `self.scale` is a variable of the model: its gradient is not None, so the finding's
    # "None for every variable" would be wrong; the rule stays silent.
    assert lines("""
    import tensorflow as tf

    class Scorer(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = tf.keras.layers.Dense(2)
            self.scale = self.add_weight(shape=(), initializer="ones")

        def call(self, x):
            return self.dense(x)

        def gradients(self, x):
            z = self(x, training=True)
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(z * self.scale)
            return tape.gradient(loss, self.trainable_variables)

    grads = Scorer().gradients(tf.ones([4, 3]))
    assert any(g is not None for g in grads)
    """, "TAPE006") == []


def test_a_module_function_running_the_global_model_before_the_tape() -> None:
    assert lines("""
    import tensorflow as tf

    net = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])

    def residual(x):
        return net(x) - 1.0

    x = tf.ones([4, 2])
    for step in range(2):
        r = residual(x)
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(r))
        grads = tape.gradient(loss, net.trainable_variables)
    assert all(g is None for g in grads)
    """, "TAPE006") == [10]


def test_a_module_function_that_does_not_read_the_model() -> None:
    assert lines("""
    import tensorflow as tf

    net = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])

    def prepare(x):
        return x * 2.0

    x = tf.ones([4, 2])
    feats = prepare(x)
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(net(feats))
    grads = tape.gradient(loss, net.trainable_variables)
    assert all(g is not None for g in grads)
    """, "TAPE006") == []


def test_a_loss_term_computed_by_the_model_before_the_tape() -> None:
    assert lines("""
    import tensorflow as tf

    net = tf.keras.Sequential([tf.keras.Input((1,)), tf.keras.layers.Dense(4, activation="tanh"),
                               tf.keras.layers.Dense(1)])
    xs = tf.ones([5, 1])
    for step in range(2):
        bc = tf.reduce_sum(net(tf.constant([[0.0], [1.0]])) ** 2)
        with tf.GradientTape() as tape:
            with tf.GradientTape() as inner:
                inner.watch(xs)
                u = net(xs)
            du = inner.gradient(u, xs)
            loss = tf.reduce_mean(du ** 2)
            loss += 10.0 * bc
        grads = tape.gradient(loss, net.trainable_variables)
    assert grads[-1] is None
    """, "TAPE006") == [7]


def test_a_target_from_the_model_before_the_tape_is_not_a_term() -> None:
    assert lines("""
    import tensorflow as tf

    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
    states = tf.ones([4, 3])
    next_q = model(states)
    with tf.GradientTape() as tape:
        q = model(states)
        td = 0.5 + 0.9 * next_q
        loss = tf.reduce_mean(tf.square(q - td))
    grads = tape.gradient(loss, model.trainable_variables)
    assert all(g is not None for g in grads)
    """, "TAPE006") == []


def test_a_stopped_term_is_deliberate() -> None:
    assert lines("""
    import tensorflow as tf

    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
    x = tf.ones([4, 3])
    before = tf.reduce_sum(model(x))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(model(x)) + tf.stop_gradient(before)
    grads = tape.gradient(loss, model.trainable_variables)
    assert all(g is not None for g in grads)
    """, "TAPE006") == []


# --- TAPE010 -----------------------------------------------------------------------------------

def test_a_constant_attribute_source() -> None:
    assert lines("""
    import tensorflow as tf

    class Linear:
        def __init__(self):
            self.w = tf.constant([[2.0]])

        def loss(self, x):
            with tf.GradientTape() as tape:
                out = tf.reduce_sum(x @ self.w)
            return tape.gradient(out, self.w)

    assert Linear().loss(tf.ones((3, 1))) is None
    """, "TAPE010") == [10]


def test_a_watched_constant_attribute_source() -> None:
    assert lines("""
    import tensorflow as tf

    class Linear:
        def __init__(self):
            self.w = tf.constant([[2.0]])

        def loss(self, x):
            with tf.GradientTape() as tape:
                tape.watch(self.w)
                out = tf.reduce_sum(x @ self.w)
            return tape.gradient(out, self.w)

    assert Linear().loss(tf.ones((3, 1))) is not None
    """, "TAPE010") == []


def test_an_attribute_set_from_the_model_in_the_tape_is_recorded() -> None:
    assert lines("""
    import tensorflow as tf

    class Probe:
        def __init__(self, net):
            self.net = net
            self.features = tf.zeros([3, 2])

        def run(self, x):
            self.features = self.net(x)
            return tf.reduce_sum(self.features)

    probe = Probe(tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(2)]))
    with tf.GradientTape() as tape:
        out = probe.run(tf.ones([3, 2]))
    g = tape.gradient(out, probe.features)
    assert g is not None
    """, "TAPE010") == []


def test_a_tape_handed_on_after_the_call_in_a_loop_that_opens_it() -> None:
    assert lines("""
    import weakref
    import tensorflow as tf

    w = tf.constant(2.0)
    alive = []
    for step in range(2):
        with tf.GradientTape(persistent=True) as tape:
            y = w * w
            z = y * w
        dy = tape.gradient(y, w)
        dz = tape.gradient(z, w)
        alive.append(weakref.ref(tape))
        del tape
    assert dy is None and dz is None
    """, "TAPE010") == [10, 11]


def test_a_tape_handed_on_before_the_call_may_watch() -> None:
    assert lines("""
    import tensorflow as tf

    def watch_inputs(tape, x):
        tape.watch(x)

    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        watch_inputs(tape, x)
        y = x * x
    dy = tape.gradient(y, x)
    assert float(dy) == 4.0
    """, "TAPE010") == []


def test_a_tape_bound_outside_the_loop_and_handed_on_after_the_call() -> None:
    # The next time round the same tape object reaches the call again, after the helper had it.
    assert lines("""
    import tensorflow as tf

    def watch_inputs(tape, x):
        tape.watch(x)

    x = tf.constant(2.0)
    tape = tf.GradientTape(persistent=True)
    for step in range(2):
        with tape:
            y = x * x
        dy = tape.gradient(y, x)
        watch_inputs(tape, x)
    """, "TAPE010") == []
