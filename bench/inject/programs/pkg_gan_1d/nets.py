"""Generator and discriminator of a 1-D GAN."""
import tensorflow as tf


def generator(latent=3):
    return tf.keras.Sequential([tf.keras.Input(shape=(latent,)), tf.keras.layers.Dense(16, activation="relu"),
                                tf.keras.layers.Dense(1)])


def discriminator():
    return tf.keras.Sequential([tf.keras.Input(shape=(1,)), tf.keras.layers.Dense(16, activation="relu"),
                                tf.keras.layers.Dense(1)])
