"""Minimising a quadratic over a variable created from an integer.

Source: tensorflow/tensorflow#43845 "\"No gradients provided\" with GradientDescentOptimizer
if not using float variable" (https://github.com/tensorflow/tensorflow/issues/43845).
An int32 variable has no gradient, so the optimizer gets none.
"""
import tensorflow as tf


def main():
    x = tf.Variable(3, name="x")
    opt = tf.compat.v1.train.GradientDescentOptimizer(learning_rate=0.1)
    for _ in range(5):
        opt.minimize(lambda: (x - 1) ** 2, var_list=[x])
    return x


if __name__ == "__main__":
    try:
        x = main()
        print("x:", int(x))
        print("ORACLE: bug=False error=none")
    except ValueError as exc:
        print("ValueError:", exc)
        print("ORACLE: bug=True error=ValueError")
