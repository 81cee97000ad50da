"""A small VAE: encoder and decoder models, reparameterised sampling inside the tape."""
import numpy as np
import tensorflow as tf


class VAE:
    def __init__(self, dim=8, latent=2):
        self.latent = latent
        self.encoder = tf.keras.Sequential([tf.keras.Input(shape=(dim,)), tf.keras.layers.Dense(16, activation="relu"),
                                            tf.keras.layers.Dense(2 * latent)])
        self.decoder = tf.keras.Sequential([tf.keras.Input(shape=(latent,)), tf.keras.layers.Dense(16, activation="relu"),
                                            tf.keras.layers.Dense(dim)])
        self.optimizer = tf.keras.optimizers.Adam(1e-3)

    def step(self, x):
        with tf.GradientTape() as tape:
            stats = self.encoder(x)
            mean, logvar = tf.split(stats, 2, axis=1)
            eps = tf.random.normal(tf.shape(mean))
            z = mean + tf.exp(0.5 * logvar) * eps
            recon = self.decoder(z)
            rec_loss = tf.reduce_mean(tf.reduce_sum(tf.square(recon - x), axis=1))
            kl = -0.5 * tf.reduce_mean(tf.reduce_sum(1 + logvar - tf.square(mean) - tf.exp(logvar), axis=1))
            loss = rec_loss + kl
        variables = self.encoder.trainable_variables + self.decoder.trainable_variables
        grads = tape.gradient(loss, variables)
        self.optimizer.apply_gradients(zip(grads, variables))
        return loss


vae = VAE()
data = tf.constant(np.random.default_rng(16).normal(size=(64, 8)).astype("float32"))
for epoch in range(4):
    loss = vae.step(data)
print("elbo loss", float(loss))
