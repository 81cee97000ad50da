"""The reporter's fix: the gradient call, with f(x) in it, moved inside the tape's block.

Source: tensorflow/tensorflow#27660 "gradient not computed unless variable is assigned."
(https://github.com/tensorflow/tensorflow/issues/27660), the reporter's closing comment.
"""
import tensorflow as tf


def f(x):
    return x ** 2


def grad(x):
    with tf.GradientTape() as t:
        t.watch(x)
        return t.gradient(f(x), x)


def main():
    x = tf.convert_to_tensor(9.0)
    g = grad(x)
    ok = g is not None and abs(float(g) - 18.0) < 1e-4
    print(f"ORACLE: bug={not ok} grad={None if g is None else float(g)}")


if __name__ == "__main__":
    main()
