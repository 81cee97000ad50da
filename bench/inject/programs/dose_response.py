"""Sensitivity of a Hill dose-response curve to the doses."""
import tensorflow as tf


def hill(dose, ec50=4.0, n=2.0):
    return dose ** n / (ec50 ** n + dose ** n)


doses = tf.constant([1.0, 2.0, 4.0, 8.0, 16.0])
with tf.GradientTape() as tape:
    tape.watch(doses)
    response = hill(doses)
slope = tape.gradient(response, doses)
print("slopes", slope.numpy())
