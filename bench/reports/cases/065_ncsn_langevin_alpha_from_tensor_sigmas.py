"""Annealed Langevin sampling (NCSN) calling a tf.function step with a per-level step size.

Source: Xemnas0/NCSN-TF2.0#26 "Performance issues about tf.function"
(https://github.com/Xemnas0/NCSN-TF2.0/issues/26): a static checker reported that the Python
argument `alpha_i` passed to `sample_one_step` in a loop retraces it for every noise level.
In generate.py the sigma levels come from tf.linspace / tf.exp, so `alpha_i` is a tensor and
the step is traced once: the report is a false alarm. A tiny score model replaces RefineNet.
"""
import numpy as np
import tensorflow as tf


class ScoreNet(tf.keras.Model):
    def __init__(self, num_L):
        super().__init__()
        self.embed = tf.keras.layers.Embedding(num_L, 4)
        self.conv = tf.keras.layers.Conv2D(1, 3, padding="same")

    def call(self, inputs):
        x, idx_sigmas = inputs
        scale = tf.reduce_mean(self.embed(idx_sigmas), axis=-1)[:, None, None, None]
        return self.conv(x) * scale


@tf.function
def sample_one_step(model, x, idx_sigmas, alpha_i):
    z_t = tf.random.normal(shape=x.get_shape(), mean=0, stddev=1.0)  # TODO: check if stddev is correct
    score = model([x, idx_sigmas])
    noise = tf.sqrt(alpha_i) * z_t
    return x + alpha_i / 2 * score + noise


def sample_and_save(model, sigmas, eps=2 * 1e-5, T=100, n_images=1, save_directory=None):
    image_size = (n_images, 8, 8, 1)

    x = tf.random.uniform(shape=image_size)

    for i, sigma_i in enumerate(sigmas):
        alpha_i = eps * (sigma_i / sigmas[-1]) ** 2
        idx_sigmas = tf.ones(n_images, dtype=tf.int32) * i
        for t in range(T):
            x = sample_one_step(model, x, idx_sigmas, alpha_i)
    return x


def main():
    num_L = 5
    sigma_levels = tf.math.exp(tf.linspace(tf.math.log(1.0), tf.math.log(0.01), num_L))
    model = ScoreNet(num_L)
    model([tf.zeros((2, 8, 8, 1)), tf.zeros((2,), tf.int32)])  # built, as when loaded from a checkpoint
    sample_and_save(model, sigma_levels, n_images=2, T=4)
    traces = sample_one_step.experimental_get_tracing_count()
    print(f"ORACLE: bug={traces > 1} traces={traces} levels={num_L}")


if __name__ == "__main__":
    main()
