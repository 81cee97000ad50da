"""GAN losses."""
import tensorflow as tf

bce = tf.keras.losses.BinaryCrossentropy(from_logits=True)


def discriminator_loss(real_logits, fake_logits):
    return bce(tf.ones_like(real_logits), real_logits) + bce(tf.zeros_like(fake_logits), fake_logits)


def generator_loss(fake_logits):
    return bce(tf.ones_like(fake_logits), fake_logits)
