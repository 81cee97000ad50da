"""Hessian of an embedding network with the first batch_jacobian taken inside an outer tape.

Source: tensorflow/tensorflow#45234 "[TF 2.3] Hessian of vector field in eager mode"
(https://github.com/tensorflow/tensorflow/issues/45234), the reporter's working version
(comment of 2020-12-08): an outer persistent tape watching `x` encloses an inner persistent
tape that records `y = model(x)`; the inner `batch_jacobian(y, x)` is computed while the outer
tape is still recording, and the outer `batch_jacobian(grads, x)` then gives a non-zero Hessian.
Changes: the embedding model is a two-layer tanh MLP (3 -> 8 -> 4) on a random batch of 5 points.
"""
import os

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
import numpy as np
import tensorflow as tf


def build_embedding(in_dim=3, emb_dim=4):
    return tf.keras.Sequential([
        tf.keras.Input(shape=(in_dim,)),
        tf.keras.layers.Dense(8, activation="tanh"),
        tf.keras.layers.Dense(emb_dim, activation="tanh"),
    ])


def embedding_hessian(model, x):
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        with tf.GradientTape(persistent=True) as tape2:
            tape2.watch(x)
            y = model(x)
        grads = tape2.batch_jacobian(y, x)
    hessian = tape.batch_jacobian(grads, x)
    return hessian


def main():
    tf.random.set_seed(0)
    model = build_embedding()
    x = tf.constant(np.random.default_rng(0).normal(size=(5, 3)), dtype=tf.float32)
    hessian = embedding_hessian(model, x)
    nonzero = bool(hessian.numpy().any() > 0)
    print("hessian shape:", hessian.shape)
    print(f"ORACLE: bug={not nonzero} hessian_any_nonzero={nonzero} shape={tuple(hessian.shape)}")


if __name__ == "__main__":
    main()
