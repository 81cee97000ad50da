"""Near misses and variants of FUNC013-FUNC016 beyond the rules' own examples."""

from __future__ import annotations

import inspect

import tapelsp
from tapelsp import Settings


def lines(code: str, source: str) -> list[int]:
    text = inspect.cleandoc(source) + "\n"
    found = tapelsp.check_source(text, "t.py", Settings(select=(code,)))
    return sorted(v.range.start.line + 1 for v in found if v.code == code)


# --- FUNC013 -------------------------------------------------------------------------------

def test_func013_same_attribute_name_on_another_object_is_not_a_read() -> None:
    assert lines("FUNC013", """
        import tensorflow as tf

        class Model(tf.Module):
            @tf.function
            def train(self, x):
                self.loss = tf.reduce_sum(x)
                return self.loss

        class Report:
            loss = 0.0

        model = Model()
        model.train(tf.constant([1.0]))
        report = Report()
        print(report.loss)
    """) == []


def test_func013_python_values_in_globals_are_fine() -> None:
    assert lines("FUNC013", """
        import tensorflow as tf

        traces = 0

        @tf.function
        def step(x):
            global traces
            traces = traces + 1
            return x * 2.0
    """) == []


def test_func013_call_form_and_helper_run_in_the_trace() -> None:
    assert lines("FUNC013", """
        import tensorflow as tf

        class Net(tf.Module):
            def forward(self, x):
                self._record(tf.nn.relu(x))
                return x

            def _record(self, h):
                self.hidden = tf.reduce_mean(h)

            def report(self):
                return float(self.hidden)

        net = Net()
        fast = tf.function(net.forward)
    """) == [9]  # `fast` wraps a method of an instance of a class of this file: the same trace as decorating it
    assert lines("FUNC013", """
        import tensorflow as tf

        class Net(tf.Module):
            @tf.function
            def forward(self, x):
                self._record(tf.nn.relu(x))
                return x

            def _record(self, h):
                self.hidden = tf.reduce_mean(h)

            def report(self):
                return float(self.hidden)
    """) == [10]


# --- FUNC014 -------------------------------------------------------------------------------

def test_func014_range_of_a_tensor_is_a_tf_loop() -> None:
    source = """
        import tensorflow as tf

        @tf.function
        def collect(n):
            out = []
            for i in range(n):
                out.append(i)
            return tf.stack(out)

        collect(tf.constant(3))
    """
    assert lines("FUNC014", source) == [7]
    assert lines("FUNC014", source.replace("collect(tf.constant(3))", "collect(3)")) == []


def test_func014_list_created_in_the_loop_or_without_autograph() -> None:
    assert lines("FUNC014", """
        import tensorflow as tf

        @tf.function
        def f(n):
            total = tf.constant(0)
            for i in tf.range(n):
                parts = []
                parts.append(i)
                total += tf.add_n(parts)
            return total
    """) == []
    assert lines("FUNC014", """
        import tensorflow as tf

        @tf.function(autograph=False)
        def f(n):
            out = []
            for i in tf.range(n):
                out.append(i)
            return out
    """) == []


# --- FUNC015 -------------------------------------------------------------------------------

def test_func015_python_conditions_without_autograph_are_fine() -> None:
    assert lines("FUNC015", """
        import tensorflow as tf

        @tf.function(autograph=False)
        def f(x, seed=None):
            if seed is None:
                seed = 0
            if x.shape.rank == 2 and tf.executing_eagerly():
                x = tf.transpose(x)
            return x

        f(tf.ones([2, 2]))
    """) == []


def test_func015_one_finding_per_condition() -> None:
    assert lines("FUNC015", """
        import tensorflow as tf

        @tf.function(autograph=False)
        def f(a, b):
            if a > 0 and not b > 0:
                return a
            return b

        f(tf.constant(1.0), tf.constant(2.0))
    """) == [5]


def test_func015_break_of_an_inner_loop_belongs_to_it() -> None:
    assert lines("FUNC015", """
        import tensorflow as tf

        @tf.function
        def f(x):
            for i in tf.range(3):
                for j in range(4):
                    x = x * 2.0
                    if x > 10.0:
                        break
            return x

        f(tf.constant(1.0))
    """) == [9]


def test_func015_python_breaks_are_fine() -> None:
    assert lines("FUNC015", """
        import tensorflow as tf

        @tf.function
        def f(x, steps: int):
            i = 0
            while i < 10:
                x = x + 1.0
                if i >= steps:
                    break
                i += 1
            return x

        f(tf.constant(1.0), 3)
    """) == []


# --- FUNC016 -------------------------------------------------------------------------------

def test_func016_decayed_attribute() -> None:
    assert lines("FUNC016", """
        import tensorflow as tf

        class Agent(tf.Module):
            def __init__(self):
                self.epsilon = 1.0

            def decay(self):
                self.epsilon = self.epsilon * 0.99

            @tf.function
            def act(self, q):
                if self.epsilon > 0.5:
                    return tf.zeros_like(q)
                return q
    """) == [12]


def test_func016_leaves_global_rebinding_and_setup_state_alone() -> None:
    assert lines("FUNC016", """
        import tensorflow as tf

        step = 0

        @tf.function
        def f(x):
            if step > 10:
                return x
            return -x

        def tick():
            global step
            step += 1
    """) == []  # a rebound global is FUNC011's finding
    assert lines("FUNC016", """
        import tensorflow as tf

        class Layer(tf.Module):
            def __init__(self, sizes):
                self.sizes = []
                for s in sizes:
                    self.sizes.append(s)

            @tf.function
            def __call__(self, x):
                if len(self.sizes) > 2:
                    x = x * 2.0
                return x
    """) == []


def test_func016_tensor_conditions_are_converted() -> None:
    # AutoGraph turns this `if` into tf.cond, decided on every call. `len(self.items)` inside
    # it is still a trace-time constant; the rule deliberately leaves mixed conditions alone.
    assert lines("FUNC016", """
        import tensorflow as tf

        class Buffer(tf.Module):
            def __init__(self):
                self.items = []

            def add(self, item):
                self.items.append(item)

            @tf.function
            def ready(self, x):
                if tf.reduce_sum(x) > len(self.items):
                    return x
                return -x
    """) == []


def test_a_keras_train_step_that_leaks_a_tensor_into_a_global_dict() -> None:
    """Keras traces train_step into a tf.function; a callback reading the stored tensor then
    gets the graph's tensor (the dev corpus's 128, labelled under TensorFlow 2.21)."""
    source = inspect.cleandoc('''
        import tensorflow as tf
        import keras

        DEBUG = {}

        class Monitored(keras.Model):
            def __init__(self):
                super().__init__()
                self.hidden = keras.layers.Dense(4)

            def train_step(self, data):
                x, y = data
                h = self.hidden(x)
                DEBUG["hidden"] = h
                return {"loss": tf.reduce_mean(h)}

        class Monitor(keras.callbacks.Callback):
            def on_train_batch_end(self, batch, logs=None):
                print(DEBUG["hidden"])
    ''') + "\n"
    found = [v for v in tapelsp.check_source(source, "t.py", Settings()) if v.code == "FUNC013"]
    assert [v.range.start.line + 1 for v in found] == [14]
    assert found[0].message.startswith("`train_step`, which Keras traces into a tf.function, puts a tensor")


def test_a_tf_keras_layer_call_is_converted_by_autograph() -> None:
    """Keras 2 (tf_keras) wraps `call` in AutoGraph: the Python `if` on a tensor works there
    (checked under TensorFlow 2.21 with tf_keras 2.21), unlike in a Keras 3 layer."""
    keras3 = inspect.cleandoc('''
        import tensorflow as tf
        import keras

        class Clip(keras.layers.Layer):
            def call(self, x):
                if tf.reduce_max(x) > 5.0:
                    return x / tf.reduce_max(x)
                return x
    ''') + "\n"
    keras2 = keras3.replace("import keras", "import tf_keras as keras")
    codes = lambda text: [v.code for v in tapelsp.check_source(text, "t.py", Settings())]  # noqa: E731
    assert codes(keras3) == ["FUNC015"] and codes(keras2) == []
