"""Digits collected in a Python list inside a loop over tf.range, then summed with tf.add_n.

Source: tensorflow/tensorflow#29504 "tf.function fails to parse for-loop in some circumstances"
(https://github.com/tensorflow/tensorflow/issues/29504): the same function without
@tf.function returns 10; decorated it fails.
"""
import tensorflow as tf


@tf.function
def tf_function_with_loop(num_iter):
    digit_list = []
    for i in tf.range(num_iter):
        digit_list.append(i)
    return tf.add_n(digit_list)


if __name__ == "__main__":
    try:
        print(tf_function_with_loop(5))
        print("ORACLE: bug=False error=none")
    except Exception as exc:  # InaccessibleTensorError, a ValueError subclass
        print(f"{type(exc).__name__}: {str(exc)[:300]}")
        print(f"ORACLE: bug=True error={type(exc).__name__}")
