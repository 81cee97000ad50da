"""How sensitive is a forecast to the time index? Differentiate w.r.t. a float time grid."""
import tensorflow as tf


def forecast(t, level, trend):
    return level + trend * t + 0.1 * tf.sin(t)


def sensitivity(horizon=12):
    t = tf.range(horizon, dtype=tf.float32)
    level = tf.Variable(1.0)
    trend = tf.Variable(0.5)
    with tf.GradientTape() as tape:
        tape.watch(t)
        y = forecast(t, level, trend)
        total = tf.reduce_sum(y)
    dt = tape.gradient(total, t)
    return dt


print("d forecast / dt", sensitivity().numpy()[:4])
