"""Linear regression: `optimizer.minimize(cost, var_list=[W, b])` given the callable (correct).

The reporter's working variant in the same thread: the zero-argument function `cost` is passed
to `minimize`, which calls it under its own GradientTape, so W and b are updated. Same program
as case 404 otherwise, with a few steps to show the cost going down.

Source: tensorflow/tensorflow#51622 "ValueError: `tape` is required when a `Tensor` loss is
passed." (https://github.com/tensorflow/tensorflow/issues/51622), the second snippet
("takes callable function as the input of minimize(), which is easy").
Changed from the posted code: `optimizer.minimize` exists only in Keras 2, so the case runs on
tf_keras (TF_USE_LEGACY_KERAS=1); 20 steps instead of a training loop of the tutorial's length.
"""
import os
os.environ["TF_USE_LEGACY_KERAS"] = "1"

import tensorflow as tf

x_train = [1, 2, 3]
y_train = [1, 2, 3]

W = tf.Variable(tf.random.normal([1], seed=1), name='weight')
b = tf.Variable(tf.random.normal([1], seed=2), name='bias')


@tf.function
def cost():
    y_model = W * x_train + b
    error = tf.reduce_mean(tf.square(y_train - y_model))
    return error


def main():
    optimizer = tf.optimizers.SGD(learning_rate=0.01)
    first = float(cost())
    for step in range(20):
        optimizer.minimize(cost, var_list=[W, b])
    last = float(cost())
    tf.print(W)
    tf.print(b)
    return first, last


if __name__ == "__main__":
    try:
        first, last = main()
        print("cost", first, "->", last)
        print(f"ORACLE: bug={not last < first} error=none cost_decreased={last < first}")
    except ValueError as exc:
        print("ValueError:", exc)
        print("ORACLE: bug=True error=ValueError")
