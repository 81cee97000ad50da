"""The target is computed inside the `tape.gradient(...)` call, after the tape's block.

Source: tensorflow/tensorflow#27660 "gradient not computed unless variable is assigned."
(https://github.com/tensorflow/tensorflow/issues/27660). With `out = f(x)` commented out
the gradient of `f(x)` is None; the reporter then found it was a scoping problem.
"""
import tensorflow as tf


def f(x):
    return x ** 2


def grad(x):
    with tf.GradientTape() as t:
        t.watch(x)
        # out = f(x)
    return t.gradient(f(x), x)


def main():
    x = tf.convert_to_tensor(9.0)
    g = grad(x)
    print("gradient:", g)
    print(f"ORACLE: bug={g is None} grad_is_none={g is None}")


if __name__ == "__main__":
    main()
