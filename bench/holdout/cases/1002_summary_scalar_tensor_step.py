"""The fix from the same thread: convert the loop counter to a tensor before calling my_func.

Source: tensorflow/tensorflow#34481 "Summaries producing warnings"
(https://github.com/tensorflow/tensorflow/issues/34481). The reporter's own follow-up (and the
corrected example): `step = tf.convert_to_tensor(step, dtype=tf.int64)` before `my_func(step)`.
An int64 scalar tensor has one signature, so the function is traced once for all steps and no
retracing warning appears.
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
        step = tf.convert_to_tensor(step, dtype=tf.int64)
        my_func(step)
        writer.flush()
    traces = my_func.experimental_get_tracing_count()
    print(f"ORACLE: bug={traces > 1} traces={traces} calls={n_steps}")


if __name__ == "__main__":
    main()
