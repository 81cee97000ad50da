"""Sparse autoencoder ported to TF2: `optimizer.minimize(cost, var_list=weight_list)` on a tensor.

The repository's `se_autoencoder(data, p)` was written for TF1: it builds `cost` from the
weights and then `train_step = optimizer.minimize(cost, var_list=weight_list)`, a graph op run
by `sess.run`. Run under TF2 with a Keras optimizer, `cost` is an eager tensor already
computed, and `minimize` raises "`tape` is required when a `Tensor` loss is passed" (the
reporter: "Cost variable is surely a tensor").

Source: jadhavhninad/Sparse_autoencoder#3 "ValueError found in sparseae_generic.py"
(https://github.com/jadhavhninad/Sparse_autoencoder/issues/3); the code shape is the
repository's sparseae_generic.py.
Changed from the posted code: MNIST is replaced by random 64-d inputs (200 hidden units ->
16), `tf.contrib` Xavier init by `tf.keras.initializers.GlorotUniform`, `tf.log` by
`tf.math.log`, `tf.train.GradientDescentOptimizer` by the Keras SGD the TF2 user reached for;
the session and the plots are dropped. `minimize` exists only in Keras 2: tf_keras
(TF_USE_LEGACY_KERAS=1).
"""
import os
os.environ["TF_USE_LEGACY_KERAS"] = "1"

import numpy as np
import tensorflow as tf


def get_kld(p, p_hat):
    kl_val = p * tf.math.log(p) - p * tf.math.log(p_hat) + (1 - p) * tf.math.log(1 - p) \
        - (1 - p) * tf.math.log(1 - p_hat)
    return kl_val


def init_weights(shape):
    xinit = tf.keras.initializers.GlorotUniform(seed=0)
    return tf.Variable(xinit(shape))


def se_autoencoder(data, p):
    print("Model generating for p = ", p)
    n_in = 64
    n_out = 16
    W1 = init_weights((n_out, n_in))
    b1 = init_weights((n_out, 1))
    W2 = init_weights((n_in, n_out))
    b2 = init_weights((n_in, 1))

    activation = tf.nn.sigmoid
    optimizer = tf.keras.optimizers.SGD(0.1)
    lval = 0.001
    beta = 3
    X = tf.cast(data, tf.float32)

    A1 = activation(tf.matmul(W1, X) + b1)
    X_hat = activation(tf.matmul(W2, A1) + b2)
    p_hat = tf.reduce_mean(A1, axis=0)

    kld = get_kld(p, p_hat)
    diff = X - X_hat
    cost = tf.reduce_mean(tf.reduce_sum(diff**2, axis=0)) \
        + 0.5 * lval * (tf.nn.l2_loss(W1) + tf.nn.l2_loss(W2)) + beta * tf.reduce_mean(kld)
    weight_list = [W1, W2]
    train_step = optimizer.minimize(cost, var_list=weight_list)

    for i in range(3):
        print("cost at ", i, float(cost))
    print("Done for p = ", p)


def main():
    rng = np.random.default_rng(0)
    train_data = rng.uniform(size=(64, 100)).astype(np.float32)
    for p in [0.1, 0.5]:
        se_autoencoder(train_data, p)


if __name__ == "__main__":
    try:
        main()
        print("ORACLE: bug=False error=none")
    except ValueError as exc:
        print("ValueError:", exc)
        print("ORACLE: bug=True error=ValueError tape_required=True")
