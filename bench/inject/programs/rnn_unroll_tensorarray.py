"""A hand-unrolled RNN inside a tf.function: per-step outputs are collected in a TensorArray."""
import numpy as np
import tensorflow as tf

rng = np.random.default_rng(18)
W = tf.Variable(rng.normal(0, 0.3, size=(3, 4)).astype("float32"))
U = tf.Variable(rng.normal(0, 0.3, size=(4, 4)).astype("float32"))


@tf.function
def unroll(xs):
    steps = tf.shape(xs)[0]
    outputs = tf.TensorArray(tf.float32, size=steps)
    h = tf.zeros((xs.shape[1], 4))
    for t in tf.range(steps):
        h = tf.tanh(xs[t] @ W + h @ U)
        outputs = outputs.write(t, h)
    return outputs.stack()


sequence = tf.constant(rng.normal(size=(6, 2, 3)).astype("float32"))
states = unroll(sequence)
print("states", states.shape, float(tf.reduce_sum(states)))
