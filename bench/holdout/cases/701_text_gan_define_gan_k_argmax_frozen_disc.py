"""A sequence GAN's combined model puts `K.argmax` between the generator and the frozen
discriminator: no gradient reaches the generator, so training the combined model fails.

Source: tensorflow/tensorflow#52260 "No gradient is provided to any variable. This occurs only
when I want to use lambda layer for keras.argmax function and keep a model non trainable"
(https://github.com/tensorflow/tensorflow/issues/52260). The reporter's `define_gan` freezes the
discriminator, keeps the generator trainable and feeds `K.argmax(generator_output)` to the
discriminator; `train_on_batch` raises "No gradients provided for any variable" (with the
discriminator trainable it "works" only because the discriminator's own weights get gradients).
Changed: the generator/discriminator bodies (not posted in full) are small Embedding/LSTM/Dense
models, the data is random token ids, `lr=` is spelled `learning_rate=`. The user's code is Keras 2
(`K.argmax` on a symbolic tensor), so tf_keras is used.
"""
import os
os.environ["TF_USE_LEGACY_KERAS"] = "1"

import numpy as np
import tensorflow as tf
from tensorflow.keras import backend as K
from tensorflow.keras.layers import Input, Embedding, LSTM, Dense
from tensorflow.keras.models import Model
from tensorflow.keras.optimizers import Adam

VOCAB = 20
TIMESTEP = 8


def build_generator(timestep):
    z = Input(shape=(timestep,))
    h = Embedding(VOCAB, 16)(z)
    h = LSTM(16, return_sequences=True)(h)
    out = Dense(VOCAB, activation="softmax")(h)
    return Model(z, out, name="generator")


def build_discriminator(timestep):
    s = Input(shape=(timestep,))
    h = Embedding(VOCAB, 16)(s)
    h = LSTM(16)(h)
    out = Dense(1, activation="sigmoid")(h)
    d = Model(s, out, name="discriminator")
    d.compile(loss="binary_crossentropy", optimizer=Adam(learning_rate=0.0002, beta_1=0.5))
    return d


generator = build_generator(TIMESTEP)
discriminator = build_discriminator(TIMESTEP)


def define_gan(g_model, d_model, timestep):
    discriminator.trainable = False
    generator.trainable = True

    a = Input(shape=(timestep,))
    b = g_model(a)
    c = K.argmax(b, axis=-1)
    output_d = d_model(c)
    model = Model(inputs=a, outputs=output_d)

    opt = Adam(learning_rate=0.0002, beta_1=0.5)
    model.compile(loss=["binary_crossentropy"], optimizer=opt, metrics=["accuracy"])
    return model


def main():
    gan = define_gan(generator, discriminator, TIMESTEP)
    noise = np.random.randint(0, VOCAB, size=(16, TIMESTEP))
    y_gan = np.ones((16, 1))
    err = None
    try:
        gan.train_on_batch(noise, y_gan)
    except ValueError as e:
        err = e
    print("error:", type(err).__name__ if err else None, str(err)[:100] if err else "")
    bug = err is not None and "No gradients provided" in str(err)
    print(f"ORACLE: bug={bug} exception={type(err).__name__ if err else None} no_gradients={bug}")


if __name__ == "__main__":
    main()
