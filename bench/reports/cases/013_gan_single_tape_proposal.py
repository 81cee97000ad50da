"""GAN step rewritten, as proposed in a question, with one tape for both networks.

Source: manicman1999/StyleGAN2-Tensorflow-2.0#14 "Why two gradient tapes are used?"
(https://github.com/manicman1999/StyleGAN2-Tensorflow-2.0/issues/14). The reply: the tape's
resources are released at the first `gradient()` call, so two tapes are needed.
Small dense networks and random data replace StyleGAN2.
"""
import numpy as np
import tensorflow as tf
from tensorflow import keras


class GANPair:
    def __init__(self):
        self.GM = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"),
                                    keras.layers.Dense(4)])
        self.D = keras.Sequential([keras.Input((4,)), keras.layers.Dense(16, activation="relu"),
                                   keras.layers.Dense(1)])


class Trainer:
    def __init__(self):
        self.GAN = GANPair()
        self.g_opt = keras.optimizers.Adam(1e-4)
        self.d_opt = keras.optimizers.Adam(1e-4)

    def train_step(self, images, noise):
        with tf.GradientTape() as tape:
            generated = self.GAN.GM(noise, training=True)
            real_output = self.GAN.D(images, training=True)
            fake_output = self.GAN.D(generated, training=True)
            gen_loss = tf.reduce_mean(tf.nn.softplus(-fake_output))
            disc_loss = tf.reduce_mean(tf.nn.softplus(fake_output) + tf.nn.softplus(-real_output))

        gradients_of_generator = tape.gradient(gen_loss, self.GAN.GM.trainable_variables)
        gradients_of_discriminator = tape.gradient(disc_loss, self.GAN.D.trainable_variables)
        self.g_opt.apply_gradients(zip(gradients_of_generator, self.GAN.GM.trainable_variables))
        self.d_opt.apply_gradients(zip(gradients_of_discriminator, self.GAN.D.trainable_variables))


def main():
    rng = np.random.default_rng(0)
    Trainer().train_step(rng.normal(size=(8, 4)).astype(np.float32), rng.normal(size=(8, 8)).astype(np.float32))


if __name__ == "__main__":
    try:
        main()
        print("ORACLE: bug=False error=none")
    except RuntimeError as exc:
        print("RuntimeError:", exc)
        print("ORACLE: bug=True error=RuntimeError")
