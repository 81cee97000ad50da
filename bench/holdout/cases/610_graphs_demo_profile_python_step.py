"""TensorBoard graph demo: the loop's Python int `step` is passed to two tf.functions.

Source: tensorflow/tensorboard#6219 "Performance issue in tensorboard/plugins/graph/graphs_demo.py"
(https://github.com/tensorflow/tensorboard/issues/6219): in `profile()`, `f(step)` and `g(step)`
receive the Python int `step` of `for step in range(3)`, so each call traces a new graph (a
maintainer replied that the demo code is unlikely to be changed, the loop being short).
Changed from the repository: the log directory is a temporary directory and
`tf.summary.trace_on(profiler=True)` becomes `profiler=False` (no profiler plugin needed here).
"""
import contextlib
import os
import tempfile

import tensorflow as tf

LOGDIR = tempfile.mkdtemp(prefix="graphs_demo_")


@contextlib.contextmanager
def _nullcontext():
    yield


def _silence_deprecation_warnings():
    try:
        from tensorflow.python.util import deprecation
        return deprecation.silence()
    except (ImportError, AttributeError):
        return _nullcontext()


def profile():
    logdir = os.path.join(LOGDIR, "profile")

    @tf.function
    def f(i):
        return tf.constant(i) + tf.constant(i)

    @tf.function
    def g(i):
        return tf.constant(i) * tf.constant(i)

    with tf.summary.create_file_writer(logdir).as_default():
        for step in range(3):
            with _silence_deprecation_warnings():
                tf.summary.trace_on(profiler=False)
                print(f(step).numpy())
                tf.summary.trace_export("prof_f", step=step)

                tf.summary.trace_on(profiler=False)
                print(g(step).numpy())
                tf.summary.trace_export("prof_g", step=step)
    return f.experimental_get_tracing_count(), g.experimental_get_tracing_count()


if __name__ == "__main__":
    f_traces, g_traces = profile()
    print(f"ORACLE: bug={f_traces >= 3 and g_traces >= 3} f_traces={f_traces} g_traces={g_traces} calls_each=3")
