"""Squash scores with a per-element function."""
import tensorflow as tf

scores = tf.random.normal([10_000])
squashed = tf.map_fn(lambda s: tf.tanh(0.5 * s) + 1.0, scores)  # one op per element
