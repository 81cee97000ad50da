"""Linear regression: `Adam().minimize(cost_value, var_list=[W, b])` given a computed tensor.

The reporter follows the docs ("Tensor or callable... If a Tensor, the tape argument must be
passed"): `cost_value = cost()` is an already computed tensor, and the Keras optimizer cannot
differentiate it without the tape that recorded it, so `minimize` raises
"`tape` is required when a `Tensor` loss is passed." The reporter notes that passing the
callable `cost` itself works (see case 405).

Source: tensorflow/tensorflow#51622 "ValueError: `tape` is required when a `Tensor` loss is
passed." (https://github.com/tensorflow/tensorflow/issues/51622).
Changed from the posted code: nothing of substance; `optimizer.minimize` exists only in
Keras 2, so the case runs on tf_keras (TF_USE_LEGACY_KERAS=1), as the reporter's TF 2.5 did.
"""
import os
os.environ["TF_USE_LEGACY_KERAS"] = "1"

import tensorflow as tf

x_train = [1, 2, 3]
y_train = [1, 2, 3]

W = tf.Variable(tf.random.normal([1], seed=1), name='weight')
b = tf.Variable(tf.random.normal([1], seed=2), name='bias')
hypothesis = W * x_train + b


@tf.function
def cost():
    y_model = W * x_train + b
    error = tf.reduce_mean(tf.square(y_train - y_model))
    return error


def main():
    cost_value = cost()
    train = tf.keras.optimizers.Adam().minimize(cost_value, var_list=[W, b])
    tf.print(W)
    tf.print(b)


if __name__ == "__main__":
    try:
        main()
        print("ORACLE: bug=False error=none")
    except ValueError as exc:
        print("ValueError:", exc)
        print("ORACLE: bug=True error=ValueError tape_required=True")
