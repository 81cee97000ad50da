"""A tf.Module holding a learnable gain and offset, fitted to sensor readings."""
import numpy as np
import tensorflow as tf


class Calibration(tf.Module):
    def __init__(self):
        super().__init__()
        self.gain = tf.Variable(1.0)
        self.offset = tf.Variable(0.0)

    def __call__(self, reading):
        return self.gain * reading + self.offset


def fit(module, readings, truth, steps=50, lr=0.05):
    for step in range(steps):
        with tf.GradientTape() as tape:
            pred = module(readings)
            loss = tf.reduce_mean(tf.square(pred - truth))
        grads = tape.gradient(loss, module.trainable_variables)
        for var, grad in zip(module.trainable_variables, grads):
            var.assign_sub(lr * grad)
    return loss


rng = np.random.default_rng(14)
readings = tf.constant(rng.uniform(0, 5, size=100).astype("float32"))
truth = 1.5 * readings - 0.3
calib = Calibration()
print("loss", float(fit(calib, readings, truth)), float(calib.gain.numpy()), float(calib.offset.numpy()))
