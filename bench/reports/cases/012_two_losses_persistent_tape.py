"""The answer's fix: a persistent tape for the two sets of gradients, deleted afterwards.

Source: tensorflow/tensorflow#31265 (https://github.com/tensorflow/tensorflow/issues/31265),
pandrey-fr's answer: `tf.GradientTape(persistent=True)` and `del tape`.
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
    with tf.GradientTape(persistent=True) as tape:
        code = encoder(x)
        recon_loss = tf.reduce_mean(tf.square(decoder(code) - x))
        clf_loss = xent(y, classifier(code))
    ae_vars = encoder.trainable_variables + decoder.trainable_variables
    ae_grads = tape.gradient(recon_loss, ae_vars)
    clf_grads = tape.gradient(clf_loss, classifier.trainable_variables)
    del tape
    ae_opt.apply_gradients(zip(ae_grads, ae_vars))
    clf_opt.apply_gradients(zip(clf_grads, classifier.trainable_variables))
    return ae_grads + clf_grads


def main():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(16, 20)).astype(np.float32)
    y = rng.integers(0, 3, size=16)
    grads = train_step(x, y)
    missing = sum(g is None for g in grads)
    print(f"ORACLE: bug={missing > 0} none_grads={missing}")


if __name__ == "__main__":
    main()
