"""One alternating GAN update."""
import tensorflow as tf

from losses import discriminator_loss, generator_loss


class GanTrainer:
    def __init__(self, gen, disc, latent=3):
        self.gen = gen
        self.disc = disc
        self.latent = latent
        self.g_opt = tf.keras.optimizers.Adam(1e-3)
        self.d_opt = tf.keras.optimizers.Adam(1e-3)

    def step(self, real):
        noise = tf.random.normal((real.shape[0], self.latent))
        with tf.GradientTape() as d_tape:
            fake = self.gen(noise)
            d_loss = discriminator_loss(self.disc(real), self.disc(fake))
        d_grads = d_tape.gradient(d_loss, self.disc.trainable_variables)
        self.d_opt.apply_gradients(zip(d_grads, self.disc.trainable_variables))
        with tf.GradientTape() as g_tape:
            fake = self.gen(noise)
            g_loss = generator_loss(self.disc(fake))
        g_grads = g_tape.gradient(g_loss, self.gen.trainable_variables)
        self.g_opt.apply_gradients(zip(g_grads, self.gen.trainable_variables))
        return d_loss, g_loss
