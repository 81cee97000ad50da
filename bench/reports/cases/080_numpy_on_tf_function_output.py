"""The suggested fix: return the tensor and call .numpy() on the function's (eager) output.

Source: tensorflow/tensorflow#57195 (https://github.com/tensorflow/tensorflow/issues/57195),
comment by Mrutyunjay01.
"""
import tensorflow as tf

x = tf.ones([1])
y = tf.ones([1])


@tf.function
def f(x, y):
    return x + y


if __name__ == "__main__":
    out = f(x, y).numpy()
    print(out)
    print(f"ORACLE: bug={out.tolist() != [2.0]} out={out.tolist()}")
