"""Convolutional VAE: the forward pass runs before the tape, only the loss helper runs inside.

The reporter's notebook calls the VAE (`X_recon, mu, log_var = model(X)`) in one cell and
then opens `with tf.GradientTape() as tape:` around `compute_total_loss(data=X,
reconstruction=X_recon, mu=mu, log_var=log_var, alpha=1)` only. The tape never saw the
model's ops, so all 16 gradients are None and `optimizer.apply_gradients` raises
"No gradients provided for any variable".

Source: tensorflow/tensorflow#54341 "ValueError: No gradients provided for any variable:"
(https://github.com/tensorflow/tensorflow/issues/54341).
Changed from the posted code: MNIST is replaced by random 16x16 images, the encoder/decoder
have one or two small conv layers each; the notebook cells are put in one function.
"""
import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers


class Sampling(layers.Layer):
    def call(self, inputs):
        mu, log_var = inputs
        eps = tf.random.normal(tf.shape(mu))
        return mu + tf.exp(0.5 * log_var) * eps


class VAE(keras.Model):
    def __init__(self, latent_dim=4):
        super().__init__()
        self.conv1 = layers.Conv2D(8, 3, strides=2, padding="same", activation="relu")
        self.flatten = layers.Flatten()
        self.mu_layer = layers.Dense(latent_dim)
        self.log_var_layer = layers.Dense(latent_dim)
        self.sampling = Sampling()
        self.dense_dec = layers.Dense(8 * 8 * 8, activation="relu")
        self.reshape = layers.Reshape((8, 8, 8))
        self.deconv = layers.Conv2DTranspose(1, 3, strides=2, padding="same",
                                             activation="sigmoid")

    def call(self, x):
        h = self.flatten(self.conv1(x))
        mu = self.mu_layer(h)
        log_var = self.log_var_layer(h)
        z = self.sampling([mu, log_var])
        x_recon = self.deconv(self.reshape(self.dense_dec(z)))
        return x_recon, mu, log_var


def compute_total_loss(data, reconstruction, mu, log_var, alpha=1):
    recon_loss = tf.reduce_mean(
        tf.reduce_sum(keras.losses.binary_crossentropy(data, reconstruction), axis=(1, 2)))
    kl = -0.5 * tf.reduce_sum(1 + log_var - tf.square(mu) - tf.exp(log_var), axis=1)
    return alpha * recon_loss + tf.reduce_mean(kl)


def main():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(8, 16, 16, 1)).astype(np.float32)
    model = VAE()
    optimizer = keras.optimizers.Adam(learning_rate=1e-3)

    X_recon, mu, log_var = model(X)

    with tf.GradientTape() as tape:
        total_loss = compute_total_loss(
            data=X, reconstruction=X_recon,
            mu=mu, log_var=log_var,
            alpha=1
        )

    grads = tape.gradient(total_loss, model.trainable_weights)
    print("grads None:", sum(g is None for g in grads), "of", len(grads))
    optimizer.apply_gradients(zip(grads, model.trainable_weights))


if __name__ == "__main__":
    try:
        main()
        print("ORACLE: bug=False error=none")
    except ValueError as exc:
        print("ValueError:", exc)
        print("ORACLE: bug=True error=ValueError no_gradients=True")
