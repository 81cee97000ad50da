"""A tiny GAN on 1-D data: two models, two tapes, one optimizer each."""
import numpy as np
import tensorflow as tf

LATENT = 4


def build(in_dim, out_dim):
    return tf.keras.Sequential([tf.keras.Input(shape=(in_dim,)), tf.keras.layers.Dense(16, activation="relu"),
                                tf.keras.layers.Dense(out_dim)])


generator = build(LATENT, 1)
discriminator = build(1, 1)
g_opt = tf.keras.optimizers.Adam(1e-3)
d_opt = tf.keras.optimizers.Adam(1e-3)
bce = tf.keras.losses.BinaryCrossentropy(from_logits=True)


def gan_step(real):
    noise = tf.random.normal((real.shape[0], LATENT))
    with tf.GradientTape() as g_tape, tf.GradientTape() as d_tape:
        fake = generator(noise, training=True)
        real_logits = discriminator(real, training=True)
        fake_logits = discriminator(fake, training=True)
        d_loss = bce(tf.ones_like(real_logits), real_logits) + bce(tf.zeros_like(fake_logits), fake_logits)
        g_loss = bce(tf.ones_like(fake_logits), fake_logits)
    d_grads = d_tape.gradient(d_loss, discriminator.trainable_variables)
    g_grads = g_tape.gradient(g_loss, generator.trainable_variables)
    d_opt.apply_gradients(zip(d_grads, discriminator.trainable_variables))
    g_opt.apply_gradients(zip(g_grads, generator.trainable_variables))
    return d_loss, g_loss


rng = np.random.default_rng(5)
for step in range(5):
    batch = tf.constant(rng.normal(2.0, 0.5, size=(64, 1)).astype("float32"))
    d_loss, g_loss = gan_step(batch)
print("d", float(d_loss), "g", float(g_loss))
