"""Discounted returns with tf.scan (a sequential recurrence), differentiated w.r.t. a reward scale."""
import numpy as np
import tensorflow as tf

rewards = tf.constant(np.random.default_rng(15).uniform(size=20).astype("float32"))
scale = tf.Variable(1.0)
gamma = 0.9

with tf.GradientTape() as tape:
    scaled = rewards * scale
    returns = tf.scan(lambda acc, r: r + gamma * acc, scaled[::-1], initializer=0.0)[::-1]
    objective = tf.reduce_mean(returns)
d_scale = tape.gradient(objective, scale)
print("d objective / d scale", float(d_scale))
