"""DCGAN train_step rewritten with one non-persistent tape for both networks.

Source: Stack Overflow question "Tf 2.0 : RuntimeError: GradientTape.gradient can only be called
once on non-persistent tapes", as mirrored (Japanese translation) at
https://web-dev-qa-db-ja.com/ja/python/tf-20%EF%BC%9Aruntimeerror%EF%BC%9Agradienttapegradient%E3%81%AF%E3%80%81%E9%9D%9E%E6%B0%B8%E7%B6%9A%E7%9A%84%E3%81%AA%E3%83%86%E3%83%BC%E3%83%97%E3%81%A71%E5%9B%9E%E3%81%A0%E3%81%91%E5%91%BC%E3%81%B3%E5%87%BA%E3%81%99%E3%81%93%E3%81%A8%E3%81%8C%E3%81%A7%E3%81%8D%E3%81%BE%E3%81%99/809781426
The asker took the TF 2.0 DCGAN tutorial, replaced `gen_tape` and `disc_tape` by a single
`tape`, and got the RuntimeError at the second `tape.gradient(...)` (the discriminator's). The
tutorial's convolutional generator and discriminator are replaced by small dense networks and MNIST
by random vectors; `@tf.function` and the loss helpers are kept.
"""
import numpy as np
import tensorflow as tf
from tensorflow.keras import layers

BATCH_SIZE = 16
noise_dim = 8
data_dim = 32

cross_entropy = tf.keras.losses.BinaryCrossentropy(from_logits=True)


def make_generator_model():
    return tf.keras.Sequential([layers.Dense(32, activation="relu"), layers.Dense(data_dim, activation="tanh")])


def make_discriminator_model():
    return tf.keras.Sequential([layers.Dense(32), layers.LeakyReLU(), layers.Dense(1)])


def discriminator_loss(real_output, fake_output):
    real_loss = cross_entropy(tf.ones_like(real_output), real_output)
    fake_loss = cross_entropy(tf.zeros_like(fake_output), fake_output)
    return real_loss + fake_loss


def generator_loss(fake_output):
    return cross_entropy(tf.ones_like(fake_output), fake_output)


generator = make_generator_model()
discriminator = make_discriminator_model()
generator_optimizer = tf.keras.optimizers.Adam(1e-4)
discriminator_optimizer = tf.keras.optimizers.Adam(1e-4)


@tf.function
def train_step(images):
    noise = tf.random.normal([BATCH_SIZE, noise_dim])

    with tf.GradientTape() as tape:
        generated_images = generator(noise, training=True)

        real_output = discriminator(images, training=True)
        fake_output = discriminator(generated_images, training=True)

        gen_loss = generator_loss(fake_output)
        disc_loss = discriminator_loss(real_output, fake_output)

    gradients_of_generator = tape.gradient(gen_loss, generator.trainable_variables)
    gradients_of_discriminator = tape.gradient(disc_loss, discriminator.trainable_variables)

    generator_optimizer.apply_gradients(zip(gradients_of_generator, generator.trainable_variables))
    discriminator_optimizer.apply_gradients(zip(gradients_of_discriminator, discriminator.trainable_variables))


def train(dataset, epochs):
    for epoch in range(epochs):
        for image_batch in dataset:
            train_step(image_batch)


def main():
    rng = np.random.default_rng(0)
    data = rng.uniform(-1, 1, size=(64, data_dim)).astype("float32")
    dataset = tf.data.Dataset.from_tensor_slices(data).batch(BATCH_SIZE, drop_remainder=True)
    try:
        train(dataset, epochs=1)
        print("ORACLE: bug=False error=none")
    except RuntimeError as exc:
        print(f"RuntimeError: {str(exc).splitlines()[-1][:160]}")
        print("ORACLE: bug=True error=RuntimeError")


if __name__ == "__main__":
    main()
