"""Gradient with respect to an intermediate tensor built before the tape opened.

Source: tensorflow/tensorflow#29942 "`tf.GradientTape.gradient` returns `None` when `sources`
is a tensor (not a variable)" (https://github.com/tensorflow/tensorflow/issues/29942).
`x = x0 + x1` is a plain tensor computed before the `with` block; inside it `z = x + y`, and
`tape.gradient(z, x)` is None because the tape only watches trainable variables, not `x`
(`tf.gradients` in graph mode gave 1). Changes: the TF1 `tf.get_variable` / `Session` parts
become a `tf.Variable` and eager code in a helper function.
"""
import tensorflow as tf


def grad_wrt_sum(x0, x1, y):
    x = x0 + x1
    with tf.GradientTape() as tape:
        z = x + y
        tape_grad = tape.gradient(z, x)
    return tape_grad


def main():
    x0 = tf.Variable(0.5, name="x0", dtype=tf.float32)
    x1 = tf.constant(3.)
    y = tf.constant(4.0)
    tape_grad = grad_wrt_sum(x0, x1, y)
    print(tape_grad)  # None
    print(f"ORACLE: bug={tape_grad is None} grad_is_none={tape_grad is None}")


if __name__ == "__main__":
    main()
