"""The last false findings of issue 18 (FUNC003, FUNC001, FUNC010) and the one verdict changed to
true: what TensorFlow 2.21 does with each shape. (The OPT002, FUNC014 and TAPE017 shapes are those
rules' valid examples: a decorator that defers the call in eager mode, a model's dict output
unpacked, an inner loop's `break`; tests/runtime proves them under TensorFlow.)

Each case is a few lines written for this benchmark after a construct met in the scanned trees
(never their code). Run:

    .venv/bin/python bench/precision/repro/issue18_causes.py

Prints one line per case: `<case>: raises <Error>: <message>` or `<case>: runs (<what came out>)`,
then `expected` / `UNEXPECTED` against what the verdicts in verdicts.jsonl rest on. Exit status 0
when every case behaves as expected.

The decorators of tensorflow-federated (`tff.tensorflow.computation`, `tff.federated_computation`)
cannot be installed here. Their documented behaviour ("Life of a computation", TFF's design
docs; the API pages of both): when Python reads the decorated def, the decorator traces the
function once and builds a TFF computation; the name is bound to that computation, and calling it
runs the computation, not the Python body. The `traced_once_in_a_graph` decorator below does the
part that matters for the rules: one call of the function it is given, inside
`tf.Graph().as_default()`, with placeholders for the parameters.
"""

import os
import sys
import unittest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.pop("TF_USE_LEGACY_KERAS", None)

import tensorflow as tf  # noqa: E402
import keras  # noqa: E402
import tf_keras  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cases import Cases  # noqa: E402

CASES = Cases(last_line=True)
case = CASES.case


# --- FUNC003, tensorflow/privacy bolt_on optimizers_test: a Keras model subclass constructed and
#     compiled inside a tf.function called once (the verdict changed from false to true) ----------

def _compiled_in_function(model_base, dense):
    class Holder(model_base):
        def __init__(self):
            super().__init__()
            self.head = dense(1)  # never called: it makes no weights

    @tf.function
    def run():
        model = Holder()
        model.compile(optimizer="sgd", loss="mse")
        return tf.constant(-1.0)

    return float(run())


@case("raises")
def func003_model_compiled_in_tf_function_legacy_keras():
    # The tree imports TensorFlow's own legacy Keras (tensorflow.python.keras): Model.__init__
    # makes its step counters as tf.Variables, compile makes one more.
    from tensorflow.python.keras.layers import Dense
    from tensorflow.python.keras.models import Model
    return _compiled_in_function(Model, Dense)


@case("raises")
def func003_model_compiled_in_tf_function_tf_keras():
    return _compiled_in_function(tf_keras.Model, tf_keras.layers.Dense)


@case("raises")
def func003_model_compiled_in_tf_function_keras3():
    return _compiled_in_function(keras.Model, keras.layers.Dense)


@case("runs")
def func003_model_then_the_bodys_own_error_under_assert_raises():
    # The same body after which the function checks its argument and raises its own ValueError,
    # called only under assertRaisesRegex: the first trace raises it, before TensorFlow traces a
    # second time, and the test gets the error it expects.
    from tensorflow.python.keras.layers import Dense
    from tensorflow.python.keras.models import Model

    class Holder(Model):
        def __init__(self):
            super().__init__()
            self.head = Dense(1)

    @tf.function
    def run(epsilon):
        model = Holder()
        model.compile(optimizer="sgd", loss="mse")
        if epsilon <= 0:
            raise ValueError(f"Detected epsilon: {epsilon}")
        return tf.constant(1.0)

    with unittest.TestCase().assertRaisesRegex(ValueError, "Detected epsilon: -1"):
        run(-1)
    return "the expected ValueError"


# --- FUNC003 / FUNC001, tensorflow/federated fed_recon and apply_optimizer_finalizer: a tf.function
#     handed to a decorator above it that calls it once, in a graph -------------------------------

def traced_once_in_a_graph(fn):
    with tf.Graph().as_default():
        out = fn(tf.compat.v1.placeholder(tf.float32, [3]))
    return out.dtype.name


@case("runs")
def func003_func001_tf_function_traced_once_by_the_decorator_above():
    @traced_once_in_a_graph
    @tf.function
    def next_fn(weights):
        with tf.init_scope():
            kept = tf.Variable(tf.zeros([3]))
            metric = keras.metrics.Mean()
        kept.assign(weights)
        metric.update_state(weights)
        return metric.result()

    return next_fn


@case("raises")
def func003_func001_control_the_same_function_called_eagerly():
    @tf.function
    def next_fn(weights):
        with tf.init_scope():
            kept = tf.Variable(tf.zeros([3]))
        kept.assign(weights)
        return kept.read_value()

    return next_fn(tf.ones([3])).numpy().tolist()


# --- FUNC010, tensorflow/federated custom_federated_algorithms_2: a tf.function defined in the body
#     of a function that a decorator runs once, whose result a loop calls --------------------------

def built_once(fn):
    """Runs the Python body once and returns what calls the traced result (a concrete function)."""
    return tf.function(fn).get_concrete_function(tf.TensorSpec([], tf.float32))


TRACES = []


@case("runs")
def func010_inner_tf_function_of_a_body_the_decorator_runs_once():
    TRACES.clear()

    @built_once
    def batch_train(learning_rate):
        @tf.function
        def train_on_batch(x):
            TRACES.append(1)
            return x * learning_rate

        return train_on_batch(tf.constant(2.0))

    outs = [float(batch_train(tf.constant(0.1))) for _ in range(5)]
    assert len(TRACES) == 1, TRACES
    return f"{outs[-1]:.1f} after 5 calls, {len(TRACES)} trace"


def main() -> int:
    return CASES.main(f"tensorflow {tf.__version__}, keras {keras.__version__}")


if __name__ == "__main__":
    sys.exit(main())
