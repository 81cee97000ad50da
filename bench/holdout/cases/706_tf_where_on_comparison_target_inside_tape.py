"""Correct look-alike: `tf.where(x > 0, x, x * x)` selects between two differentiable branches
with a boolean from a comparison. The comparison itself has no gradient, but the selected branches
do, so once the scalar target is computed inside the tape the gradient is defined.

Source: tensorflow/tensorflow#115116 "[Bug] tf.where returns None gradient for differentiable
expression" (https://github.com/tensorflow/tensorflow/issues/115116). The reporter got `None`
because `tf.reduce_sum(y)` was evaluated inside the `tape.gradient(...)` call, after the block;
the thread (and the linked docs PR #115258) point out that the target must be built inside the
tape and that `tf.where` itself passes gradients through the chosen branch. This is that fixed
code. Changed: the piecewise expression is put in a helper and the sum is taken inside the tape.
"""
import tensorflow as tf


def piecewise(x):
    return tf.where(x > 0, x, x * x)


def main():
    x = tf.Variable([-1.0, 2.0, -3.0])

    with tf.GradientTape() as tape:
        y = piecewise(x)
        total = tf.reduce_sum(y)

    grad = tape.gradient(total, x)

    print("y:", y.numpy())
    print("grad:", grad)
    expected = [-2.0, 1.0, -6.0]
    ok = grad is not None and grad.numpy().tolist() == expected
    print(f"ORACLE: bug={not ok} grad_is_none={grad is None} grad_matches_piecewise={ok}")


if __name__ == "__main__":
    main()
