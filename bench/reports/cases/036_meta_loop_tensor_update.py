"""The fix given in the thread: keep the adapted value in a plain tensor, not a Variable.

Source: tensorflow/tensorflow#30234 (https://github.com/tensorflow/tensorflow/issues/30234),
alextp: "To get the gradient to be not None you need to replace the tf.Variable with a
normal tensor."
"""
import tensorflow as tf


def main():
    v = tf.Variable(1.0)
    x = tf.convert_to_tensor(2.0)
    with tf.GradientTape() as t:
        t.watch(x)
        adapted = v + x
        loss = adapted * adapted
    g = t.gradient(loss, x)
    ok = g is not None and abs(float(g) - 6.0) < 1e-5
    print(f"ORACLE: bug={not ok} grad={None if g is None else float(g)}")


if __name__ == "__main__":
    main()
