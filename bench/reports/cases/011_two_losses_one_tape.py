"""Two intertwined losses (autoencoder + classifier) differentiated from one non-persistent tape.

Source: tensorflow/tensorflow#31265 "No gradients provided for any variable"
(https://github.com/tensorflow/tensorflow/issues/31265). The answer (pandrey-fr) explains
that a default tape computes gradients once and that two sets of gradients need
`persistent=True`. Data is synthetic.
"""
import numpy as np
import tensorflow as tf
from tensorflow import keras

encoder = keras.Sequential([keras.Input((20,)), keras.layers.Dense(8, activation="relu")])
decoder = keras.Sequential([keras.Input((8,)), keras.layers.Dense(20)])
classifier = keras.Sequential([keras.Input((8,)), keras.layers.Dense(3)])
ae_opt = keras.optimizers.Adam(1e-3)
clf_opt = keras.optimizers.Adam(1e-3)
xent = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def train_step(x, y):
    with tf.GradientTape() as tape:
        code = encoder(x)
        recon_loss = tf.reduce_mean(tf.square(decoder(code) - x))
        clf_loss = xent(y, classifier(code))
    ae_vars = encoder.trainable_variables + decoder.trainable_variables
    ae_grads = tape.gradient(recon_loss, ae_vars)
    clf_grads = tape.gradient(clf_loss, classifier.trainable_variables)
    ae_opt.apply_gradients(zip(ae_grads, ae_vars))
    clf_opt.apply_gradients(zip(clf_grads, classifier.trainable_variables))
    return recon_loss, clf_loss


def main():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(16, 20)).astype(np.float32)
    y = rng.integers(0, 3, size=16)
    train_step(x, y)


if __name__ == "__main__":
    try:
        main()
        print("ORACLE: bug=False error=none")
    except RuntimeError as exc:
        print("RuntimeError:", exc)
        print("ORACLE: bug=True error=RuntimeError")
