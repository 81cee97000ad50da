"""KL warm-up for a VAE: a LambdaCallback writes the KL weight into a K.variable each epoch.

Source: Stack Overflow question "Implementing KL warmup in tensorflow:
tf.keras.backend.variable in callback is unstable over epochs", read on its mirror
https://www.whosebug.com/index.php/question/5243579/Implementing-KL-warmup-in-tensorflow-tf-keras-backend-variable-in-callback-is-unstable-over-epochs
The weight `kl_beta` is a backend *variable* handed to a KLDivergenceLayer that adds
`beta * KL` with add_loss, and the callback changes it with K.set_value at every
epoch start. Because it is a variable (not a Python float) the traced training function
reads its current value at every step: the schedule does reach the loss. The
per-epoch steps of the schedule (0 -> 0.5 -> 1) show up in the reported `kl_rate`. A
correct look-alike of "callback changes state read by a traced function": NEGATIVE.
(Running it also shows a small drift inside each epoch: K.variable is trainable by
default and Adam updates it through beta * KL, most likely the asker's "slow decay", a
different pitfall from the one labelled here; the oracle allows for it.)
Changed: the encoder/decoder are two small Dense stacks on random data, warm-up lasts
2 epochs over 3, and the check reads the per-epoch `kl_rate` the layer reports.
"""
import os
os.environ["TF_USE_LEGACY_KERAS"] = "1"

import numpy as np
import tensorflow as tf
import tensorflow.keras.backend as K
from tensorflow.keras.callbacks import LambdaCallback
from tensorflow.keras.layers import Dense, Input, Lambda, Layer
from tensorflow.keras.models import Model


class KLDivergenceLayer(Layer):
    """Passes (mu, log_var) through unchanged and adds beta * KL to the model loss."""

    def __init__(self, beta=1.0, *args, **kwargs):
        super(KLDivergenceLayer, self).__init__(*args, **kwargs)
        self.is_placeholder = True
        self.beta = beta

    def call(self, inputs, **kwargs):
        mu, log_var = inputs
        kl = -0.5 * K.sum(1 + log_var - K.square(mu) - K.exp(log_var), axis=-1)
        self.add_loss(self.beta * K.mean(kl), inputs=inputs)
        self.add_metric(self.beta, aggregation="mean", name="kl_rate")
        return inputs


class VAE:
    def __init__(self, input_dim=12, latent_dim=2, kl_warmup=2):
        self.input_dim = input_dim
        self.latent_dim = latent_dim
        self.kl_warmup = kl_warmup

    def build(self):
        kl_beta = K.variable(1.0, name="kl_beta")
        callbacks = []
        if self.kl_warmup:
            kl_warmup_callback = LambdaCallback(
                on_epoch_begin=lambda epoch, logs: K.set_value(
                    kl_beta, K.min([epoch / self.kl_warmup, 1])
                )
            )
            callbacks.append(kl_warmup_callback)

        x = Input(shape=(self.input_dim,))
        h = Dense(16, activation="relu")(x)
        z_mean = Dense(self.latent_dim)(h)
        z_log_sigma = Dense(self.latent_dim)(h)
        z_mean, z_log_sigma = KLDivergenceLayer(beta=kl_beta)([z_mean, z_log_sigma])
        z = Lambda(lambda t: t[0] + K.exp(0.5 * t[1]) * K.random_normal(K.shape(t[0])))(
            [z_mean, z_log_sigma])
        out = Dense(self.input_dim)(Dense(16, activation="relu")(z))
        vae = Model(x, out)
        vae.compile(optimizer="adam", loss="mse")
        return vae, callbacks


def main():
    rng = np.random.default_rng(0)
    data = rng.normal(size=(128, 12)).astype("float32")
    vae, callbacks = VAE().build()
    hist = vae.fit(data, data, batch_size=32, epochs=3, verbose=0, callbacks=callbacks)
    rates = [round(float(r), 4) for r in hist.history["kl_rate"]]
    print("kl_rate per epoch:", rates)
    followed = np.allclose(rates, [0.0, 0.5, 1.0], atol=0.02)
    print(f"ORACLE: bug={not followed} schedule_reached_loss={followed} kl_rate={rates}")


if __name__ == "__main__":
    main()
