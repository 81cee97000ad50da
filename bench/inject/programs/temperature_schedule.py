"""Sampling temperature annealed between calls of a compiled function: it lives in a tf.Variable."""
import numpy as np
import tensorflow as tf

temperature = tf.Variable(1.0)


@tf.function
def soft_predictions(logits):
    scaled = logits / temperature
    return tf.nn.softmax(scaled)


logits = tf.constant(np.random.default_rng(19).normal(size=(4, 5)).astype("float32"))
for epoch in range(4):
    temperature.assign(1.0 / (epoch + 1))
    probs = soft_predictions(logits)
    print(epoch, np.round(probs.numpy()[0], 4))
