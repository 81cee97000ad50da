"""A function that works eagerly and fails once decorated: it creates a tf.Variable.

Source: tensorflow/tensorflow#26812 "Can't declare tf.Variable in @tf.function decorated
function" (https://github.com/tensorflow/tensorflow/issues/26812), also the example of the
answer quoted in shared/seeds/001_*.txt.
"""
import tensorflow as tf


@tf.function
def f():
    a = tf.constant([[10, 10], [11., 1.]])
    x = tf.constant([[1., 0.], [0., 1.]])
    b = tf.Variable(12.)
    y = tf.matmul(a, x) + b
    return y


if __name__ == "__main__":
    try:
        print(f())
        print(f())
        print("ORACLE: bug=False error=none")
    except ValueError as exc:
        print("ValueError:", str(exc).strip().splitlines()[-1][:300])
        print("ORACLE: bug=True error=ValueError")
