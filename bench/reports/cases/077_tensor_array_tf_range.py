"""The TensorArray version from the same thread, for a loop over tf.range.

Source: tensorflow/tensorflow#46518 (https://github.com/tensorflow/tensorflow/issues/46518),
mdanatg's `t_array_tff_tfr`.
"""
import tensorflow as tf


@tf.function
def t_array_tff_tfr(n):
    t = tf.TensorArray(dtype=tf.int32, size=0, dynamic_size=True)
    for i in tf.range(n):
        t = t.write(i, i)
    return t.stack()


if __name__ == "__main__":
    out = t_array_tff_tfr(tf.constant(5))
    ok = out.numpy().tolist() == [0, 1, 2, 3, 4]
    print(f"ORACLE: bug={not ok} out={out.numpy().tolist()}")
