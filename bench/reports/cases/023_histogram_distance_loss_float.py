"""Iris classifier with a loss that compares the histogram of per-sample losses to a normal law.

Source: tensorflow/tensorflow#30190 "TF 2.0: tf.GradientTape().gradient() returns None"
(https://github.com/tensorflow/tensorflow/issues/30190). Each per-sample loss is turned into
a Python float, the distance is computed outside TensorFlow and converted back.
The Iris CSV is replaced by random features; tf.keras is the legacy Keras 2 of the report
(Keras 3 variables cannot be passed to `tape.watch`).
"""
import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"
import numpy as np
import tensorflow as tf
from tensorflow import keras

model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(10, activation=tf.nn.relu),
                          keras.layers.Dense(10, activation=tf.nn.relu), keras.layers.Dense(3)])
loss_object = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def get_distance_between_samples_and_distribution(losses, if_plot=0):
    counts, edges = np.histogram(losses, bins=5, density=True)
    centers = (edges[:-1] + edges[1:]) / 2
    mu, sigma = np.mean(losses), np.std(losses) + 1e-6
    normal = np.exp(-0.5 * ((centers - mu) / sigma) ** 2) / (sigma * np.sqrt(2 * np.pi))
    return float(np.sum((counts - normal) ** 2))


def loss(model, x, y):
    y_ = model(x)  # y_.shape is (batch_size, 3)
    losses = []
    for i in range(y.shape[0]):
        loss = loss_object(y_true=y[i], y_pred=y_[i])
        losses.append(float(loss))
    dis = get_distance_between_samples_and_distribution(losses, if_plot=0)
    return tf.convert_to_tensor(dis, dtype=np.float32)


def grad(model, inputs, targets):
    with tf.GradientTape() as tape:
        loss_value = loss(model, inputs, targets)
        tape.watch(model.trainable_variables)
    return loss_value, tape.gradient(loss_value, model.trainable_variables)


def main():
    rng = np.random.default_rng(0)
    features = tf.constant(rng.normal(size=(32, 4)), tf.float32)
    labels = tf.constant(rng.integers(0, 3, size=32))
    loss_value, grads = grad(model, features, labels)
    print("loss_value:", loss_value)
    print("grads:", grads)
    missing = sum(g is None for g in grads)
    print(f"ORACLE: bug={missing == len(grads)} none_grads={missing}/{len(grads)}")


if __name__ == "__main__":
    main()
