"""Toy 1-D GAN whose generator output goes through NumPy (moments) before the discriminator.

Source: tensorflow/tensorflow#31919 "tf.GradientTape().tape() is returning None on the
generator loss" (https://github.com/tensorflow/tensorflow/issues/31919), a TF 2.0 port of the
"GANs in 50 lines" example: `D(get_moments(g_fake_data.numpy().T).reshape((1,4)))`.
"""
import numpy as np
import tensorflow as tf
from tensorflow import keras

G = keras.Sequential([keras.Input((1,)), keras.layers.Dense(16, activation="elu"), keras.layers.Dense(1)])
D = keras.Sequential([keras.Input((4,)), keras.layers.Dense(16, activation="elu"), keras.layers.Dense(1, activation="sigmoid")])
criterion = keras.losses.BinaryCrossentropy()
g_optimizer = keras.optimizers.Adam(1e-3)


def get_moments(d):
    mean = np.mean(d)
    diffs = d - mean
    var = np.mean(np.power(diffs, 2.0))
    std = np.power(var, 0.5)
    zscores = diffs / std
    skews = np.mean(np.power(zscores, 3.0))
    kurtoses = np.mean(np.power(zscores, 4.0)) - 3.0
    return np.array([mean, std, skews, kurtoses])


def generator_step(gen_input):
    with tf.GradientTape() as tape:
        g_fake_data = G(gen_input)
        dg_fake_decision = D(get_moments(g_fake_data.numpy().T).reshape((1, 4)))
        g_error = criterion(tf.ones([1, 1]), dg_fake_decision)
    grads = tape.gradient(g_error, G.trainable_variables)
    print(grads)
    return grads


def main():
    gen_input = tf.constant(np.random.default_rng(0).random((100, 1)), tf.float32)
    grads = generator_step(gen_input)
    missing = sum(g is None for g in grads)
    print(f"ORACLE: bug={missing == len(grads)} none_grads={missing}/{len(grads)}")


if __name__ == "__main__":
    main()
