"""List appends in a Python `range` loop inside a tf.function: a static unrolling that works.

Source: tensorflow/tensorflow#46518 "Very slow tf.TensorArray and a possible bug when used with
range()" (https://github.com/tensorflow/tensorflow/issues/46518), mdanatg's `list_appends_tff`:
all Python code runs while tracing and the list becomes a stack of constants.
"""
import tensorflow as tf


@tf.function
def list_appends_tff(n):
    l = []
    for i in range(n):
        l.append(i)
    return tf.stack(l)


if __name__ == "__main__":
    out = list_appends_tff(5)
    ok = out.numpy().tolist() == [0, 1, 2, 3, 4]
    print(f"ORACLE: bug={not ok} out={out.numpy().tolist()}")
