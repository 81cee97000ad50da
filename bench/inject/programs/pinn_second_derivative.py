"""Physics-informed net for u'' = -sin(x): nested tapes give the second derivative."""
import numpy as np
import tensorflow as tf

net = tf.keras.Sequential([tf.keras.Input(shape=(1,)), tf.keras.layers.Dense(16, activation="tanh"),
                           tf.keras.layers.Dense(16, activation="tanh"), tf.keras.layers.Dense(1)])
optimizer = tf.keras.optimizers.Adam(1e-3)


def residual(x):
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            u = net(x)
        u_x = inner.gradient(u, x)
    u_xx = outer.gradient(u_x, x)
    return u_xx + tf.sin(x)


x_col = tf.constant(np.linspace(0.0, np.pi, 64, dtype="float32")[:, None])
for step in range(5):
    with tf.GradientTape() as tape:
        res = residual(x_col)
        loss = tf.reduce_mean(tf.square(res))
    grads = tape.gradient(loss, net.trainable_variables)
    optimizer.apply_gradients(zip(grads, net.trainable_variables))
print("pde loss", float(loss))
