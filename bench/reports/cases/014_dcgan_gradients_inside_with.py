"""DCGAN step with the two gradient calls indented into the two tapes' `with` block.

Source: tensorflow/docs#1391 "Indentation fixes for with statement."
(https://github.com/tensorflow/docs/pull/1391). The pull request moved the DCGAN
tutorial's `gen_tape.gradient`/`disc_tape.gradient` into the block; reviewers preferred
them outside, but each non-persistent tape is asked once, so the gradients exist either way.
"""
import numpy as np
import tensorflow as tf
from tensorflow import keras

generator = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(4)])
discriminator = keras.Sequential([keras.Input((4,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)])
cross_entropy = keras.losses.BinaryCrossentropy(from_logits=True)
generator_optimizer = keras.optimizers.Adam(1e-4)
discriminator_optimizer = keras.optimizers.Adam(1e-4)


def generator_loss(fake_output):
    return cross_entropy(tf.ones_like(fake_output), fake_output)


def discriminator_loss(real_output, fake_output):
    return cross_entropy(tf.ones_like(real_output), real_output) + cross_entropy(tf.zeros_like(fake_output), fake_output)


def train_step(images, noise):
    with tf.GradientTape() as gen_tape, tf.GradientTape() as disc_tape:
        generated_images = generator(noise, training=True)

        real_output = discriminator(images, training=True)
        fake_output = discriminator(generated_images, training=True)

        gen_loss = generator_loss(fake_output)
        disc_loss = discriminator_loss(real_output, fake_output)

        gradients_of_generator = gen_tape.gradient(gen_loss, generator.trainable_variables)
        gradients_of_discriminator = disc_tape.gradient(disc_loss, discriminator.trainable_variables)

    generator_optimizer.apply_gradients(zip(gradients_of_generator, generator.trainable_variables))
    discriminator_optimizer.apply_gradients(zip(gradients_of_discriminator, discriminator.trainable_variables))
    return gradients_of_generator + gradients_of_discriminator


def main():
    rng = np.random.default_rng(0)
    grads = train_step(rng.normal(size=(8, 4)).astype(np.float32), rng.normal(size=(8, 8)).astype(np.float32))
    missing = sum(g is None for g in grads)
    print(f"ORACLE: bug={missing > 0} none_grads={missing}")


if __name__ == "__main__":
    main()
