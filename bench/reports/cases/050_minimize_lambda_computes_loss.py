"""The answer's fix: the computation moves inside the lambda, where minimize's tape records it.

Source: tensorflow/tensorflow#42167 (https://github.com/tensorflow/tensorflow/issues/42167),
answer by WindQAQ; the reporter confirms it works.
"""
import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"
import tensorflow as tf

y_N = tf.Variable([1., 2., 3.], name="dd")

loss = lambda: -tf.reduce_mean(input_tensor=tf.reduce_sum(input_tensor=tf.math.log(y_N), axis=0))


if __name__ == "__main__":
    before = y_N.numpy().copy()
    train_step = tf.keras.optimizers.Adam(0.5).minimize(loss, var_list=[y_N])
    moved = bool((y_N.numpy() != before).any())
    print(f"ORACLE: bug={not moved} moved={moved}")
