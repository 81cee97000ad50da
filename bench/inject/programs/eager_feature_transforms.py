"""Eager feature engineering on a batch before a small model scores it."""
import numpy as np
import tensorflow as tf

rng = np.random.default_rng(12)
batch = tf.constant(rng.normal(size=(512, 16)).astype("float32"))

activated = tf.nn.relu(batch)
squashed = tf.tanh(batch)
energy = tf.square(batch)
positive = tf.nn.softplus(batch)
features = tf.concat([activated, squashed, energy, positive], axis=1)

scorer = tf.keras.Sequential([tf.keras.Input(shape=(64,)), tf.keras.layers.Dense(1)])
scores = scorer(features)
print("scores", scores.shape, float(tf.reduce_mean(scores)))
