"""Hand-written conv net trained with `optimizer.minimize(loss(ground_truth, output), [k1, k2,
k3])`: the first argument is an already computed value (here even a NumPy scalar, since the
loss is written with np.sum / np.positive), not a callable, and no tape is given, so the Keras
optimizer cannot compute gradients: "`tape` is required when a `Tensor` loss is passed."

Source: tensorflow/tensorflow#42447 "ValueError: `tape` is required when a `Tensor` loss is
passed." (https://github.com/tensorflow/tensorflow/issues/42447). The reporter's loss is
np.sum(np.positive(ground_truth - output)), the kernels are tf.Variable(np.random.rand(*args),
dtype=tf.float32), and minimize(..., k3) in train.py raises although "loss is a number".
Changed from the posted code: image size, channel counts and the number of layers are small
and the data random; the optimizer (not shown in the excerpt) is Adam. Optimizer.minimize with
a value is Keras 2 API, so TF_USE_LEGACY_KERAS=1 selects tf_keras.
"""
import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"

import numpy as np
import tensorflow as tf


def loss(ground_truth, output):
    return np.sum(np.positive(ground_truth - output))


def kernel(*args):
    return tf.Variable(np.random.rand(*args), dtype=tf.float32)  # kernel 1


color_channels = 3
feature_size = 4


def forward(x, k1, k2, k3):
    h = tf.nn.relu(tf.nn.conv2d(x, k1, strides=1, padding="SAME"))
    h = tf.nn.relu(tf.nn.conv2d(h, k2, strides=1, padding="SAME"))
    return tf.nn.conv2d(h, k3, strides=1, padding="SAME")


def main():
    np.random.seed(0)
    k1 = kernel(3, 3, color_channels, feature_size)
    k2 = kernel(3, 3, feature_size, feature_size)
    k3 = kernel(3, 3, feature_size, color_channels)
    x = np.random.rand(2, 16, 16, color_channels).astype(np.float32)
    ground_truth = np.random.rand(2, 16, 16, color_channels).astype(np.float32)

    optimizer = tf.keras.optimizers.Adam(learning_rate=1e-3)
    before = k3.numpy().copy()
    try:
        output = forward(x, k1, k2, k3)
        optimizer.minimize(loss(ground_truth, output), [k1, k2, k3])
        changed = not np.allclose(before, k3.numpy())
        print("k3 updated:", changed)
        print(f"ORACLE: bug={not changed} error=None")
    except (ValueError, TypeError) as exc:
        print(f"{type(exc).__name__}: {str(exc)[:200]}")
        print(f"ORACLE: bug=True error={type(exc).__name__}")


if __name__ == "__main__":
    main()
