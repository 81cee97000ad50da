"""Least-squares regression minimised by passing the loss tensor to optimizer.minimize.

Source: tensorflow/tensorflow#29944 "[TF 2.0] tf.keras.optimizers.Adam"
(https://github.com/tensorflow/tensorflow/issues/29944): minimize() fails with
"'tensorflow.python.framework.ops.EagerTensor' object is not callable". tf.keras is Keras 2
(tf_keras), whose optimizers have minimize (Keras 3's do not).
"""
import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"
import numpy as np
import tensorflow as tf

N = 1000                               # Number of samples
n = 4                                  # Dimension of the optimization variable
np.random.seed(0)
X = tf.Variable(np.random.randn(n, 1))  # Variables will be tuned by the optimizer
C = tf.constant(np.random.randn(N, n))  # Data will not be tuned
D = tf.constant(np.random.randn(N, 1))


def f_batch_tensorflow(x, A, B):
    e = tf.matmul(A, x) - B
    return tf.reduce_sum(tf.square(e))


def main():
    fx = f_batch_tensorflow(X, C, D)
    print(fx)
    adam_opt = tf.keras.optimizers.Adam()
    for _ in range(3):
        adam_opt.minimize(fx, [X])


if __name__ == "__main__":
    try:
        main()
        print("ORACLE: bug=False error=none")
    except (TypeError, ValueError) as exc:
        print(f"{type(exc).__name__}: {exc}")
        print(f"ORACLE: bug=True error={type(exc).__name__}")
