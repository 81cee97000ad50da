"""Attribution on tabular features that arrive as integers: cast them to float first."""
import numpy as np
import tensorflow as tf

weights = tf.Variable(tf.random.normal((6, 1), seed=3))


def score(x):
    return tf.nn.sigmoid(x @ weights)


raw = tf.constant(np.random.default_rng(8).integers(0, 10, size=(16, 6)).astype("int64"))
features = tf.cast(raw, tf.float32)
with tf.GradientTape() as tape:
    tape.watch(features)
    s = score(features)
    total = tf.reduce_sum(s)
attribution = tape.gradient(total, features)
print("attribution", attribution.shape, float(tf.reduce_sum(attribution)))
