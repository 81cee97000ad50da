"""Meta-learning loop that adds the adapted step to a tf.Variable and differentiates through it.

Source: tensorflow/tensorflow#30234 "How to calculate gradients for meta learning loop?"
(https://github.com/tensorflow/tensorflow/issues/30234). alextp's reduction of the report:
`v.assign_add(x); loss = v * v` gives `t.gradient(loss, x) is None`, because assignments to a
tf.Variable are not traced back to their source.
"""
import tensorflow as tf


def main():
    v = tf.Variable(1.0)
    x = tf.convert_to_tensor(2.0)
    with tf.GradientTape() as t:
        t.watch(x)
        v.assign_add(x)
        loss = v * v
    g = t.gradient(loss, x)
    print("gradient:", g)
    print(f"ORACLE: bug={g is None} grad_is_none={g is None}")


if __name__ == "__main__":
    main()
