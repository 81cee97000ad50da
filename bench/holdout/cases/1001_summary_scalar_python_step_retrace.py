"""tf.function logging a summary receives the Python loop counter `step` on every call.

Source: tensorflow/tensorflow#34481 "Summaries producing warnings"
(https://github.com/tensorflow/tensorflow/issues/34481). The reporter followed the tf.summary
example: a `@tf.function` `my_func(step)` that writes `tf.summary.scalar(..., step=step)` inside
`with writer.as_default()`, called as `my_func(step)` from `for step in range(100)`. Every new
Python int is a new tf.function cache key, so each call traces a new graph and TensorFlow prints
"N out of the last N calls to <function my_func> triggered tf.function retracing".
Changes: the log directory is a temporary directory, 20 steps instead of 100, `tf.summary.scalar`
is replaced by the core `tf.summary.write` (TensorBoard, which implements `scalar`, is not
installed here; the step handling is the same), and the trace count
is read with `experimental_get_tracing_count()`.
"""
import os
import tempfile

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
import tensorflow as tf

logdir = tempfile.mkdtemp(prefix="tf_function_summaries_")
writer = tf.summary.create_file_writer(logdir)


@tf.function
def my_func(step):
    with writer.as_default():
        # other model code would go here
        tf.summary.write("my_metric", 0.5, step=step)


def main():
    n_steps = 20
    for step in range(n_steps):
        my_func(step)
        writer.flush()
    traces = my_func.experimental_get_tracing_count()
    print(f"ORACLE: bug={traces == n_steps} traces={traces} calls={n_steps}")


if __name__ == "__main__":
    main()
