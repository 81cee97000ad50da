"""A TF1-style optimizer used eagerly: minimize() takes a callable loss."""
import numpy as np
import tensorflow as tf

rng = np.random.default_rng(13)
x = tf.constant(rng.uniform(size=(50, 1)).astype("float32"))
y = 2.0 * x + 1.0

w = tf.Variable(0.0)
b = tf.Variable(0.0)
optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.5)


def loss_fn():
    return tf.reduce_mean(tf.square(w * x + b - y))


for step in range(30):
    optimizer.minimize(lambda: loss_fn(), var_list=[w, b])
print("w", float(w.numpy()), "b", float(b.numpy()))
