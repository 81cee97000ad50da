"""The same minimisation with a float variable, the fix suggested in the thread.

Source: tensorflow/tensorflow#43845 (https://github.com/tensorflow/tensorflow/issues/43845):
with `tf.Variable(3.0)` the optimizer moves x towards 1.
"""
import tensorflow as tf


def main():
    x = tf.Variable(3.0, name="x")
    opt = tf.compat.v1.train.GradientDescentOptimizer(learning_rate=0.1)
    for _ in range(5):
        opt.minimize(lambda: (x - 1) ** 2, var_list=[x])
    return x


if __name__ == "__main__":
    x = main()
    moved = float(x) < 3.0
    print(f"ORACLE: bug={not moved} x={float(x):.4f}")
