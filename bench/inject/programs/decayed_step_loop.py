"""A compiled update called every epoch; the schedule value is passed as a tensor."""
import numpy as np
import tensorflow as tf

params = tf.Variable(tf.ones((4,)))
target = tf.constant([1.0, -1.0, 2.0, 0.5])


@tf.function
def update(lr):
    with tf.GradientTape() as tape:
        diff = params - target
        loss = tf.reduce_sum(tf.square(diff))
    grad = tape.gradient(loss, params)
    params.assign_sub(lr * grad)
    return loss


@tf.function
def evaluate(x):
    err = tf.abs(params - x)
    return tf.reduce_max(err)


for epoch in range(6):
    loss = update(tf.constant(0.1 * 0.9 ** epoch))
    worst = evaluate(target)
print("loss", float(loss), "max error", float(worst), np.round(params.numpy(), 3))
