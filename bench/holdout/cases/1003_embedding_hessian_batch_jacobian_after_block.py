"""Embedding Hessian from two batch_jacobian calls on a persistent tape, both after its block.

Source: tensorflow/tensorflow#45234 "[TF 2.3] Hessian of vector field in eager mode"
(https://github.com/tensorflow/tensorflow/issues/45234). The reporter records `y = model(x)` on a
persistent tape that watches `x`, then, after the `with` block, takes
`grads = tape.batch_jacobian(y, x)` and `hessian = tape.batch_jacobian(grads, x)`;
`hessian.numpy().any() > 0` printed False. The first jacobian is computed while the tape is no
longer recording, so `grads` has no taped connection to `x` and the second jacobian is all zeros.
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
        y = model(x)
    grads = tape.batch_jacobian(y, x)
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
