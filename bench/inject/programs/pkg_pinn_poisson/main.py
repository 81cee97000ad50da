"""Fit a PINN to u'' = -pi^2 sin(pi x) on [0, 1]."""
import numpy as np
import tensorflow as tf

from physics import laplacian_residual


def source(x):
    return -np.pi ** 2 * tf.sin(np.pi * x)


net = tf.keras.Sequential([tf.keras.Input(shape=(1,)), tf.keras.layers.Dense(16, activation="tanh"),
                           tf.keras.layers.Dense(1)])
optimizer = tf.keras.optimizers.Adam(1e-3)
x = tf.constant(np.linspace(0, 1, 48, dtype="float32")[:, None])
for step in range(4):
    with tf.GradientTape() as tape:
        res = laplacian_residual(net, x, source)
        loss = tf.reduce_mean(tf.square(res))
    grads = tape.gradient(loss, net.trainable_variables)
    optimizer.apply_gradients(zip(grads, net.trainable_variables))
print("loss", float(loss))
