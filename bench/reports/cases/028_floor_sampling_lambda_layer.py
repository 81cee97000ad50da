"""Output layer that samples binary piano-key presses with floor(x + uniform noise).

Source: keras-team/keras#5521 "Error using K.round() and tf.floor() in custom layers"
(https://github.com/keras-team/keras/issues/5521): the Lambda(FloorSampling) output layer makes
fit() fail because tf.floor has no gradient. Data is random.
"""
import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras.layers import Dense, Lambda
from tensorflow.keras.models import Sequential


def FloorSampling(x):
    """Returns a tensor which is only consist of several 1 and several 0."""
    return tf.floor(x + tf.random.uniform(tf.shape(x), 0, 1))


def main():
    model = Sequential()
    model.add(keras.Input((12,)))
    model.add(Dense(88, activation="sigmoid"))
    model.add(Lambda(FloorSampling, output_shape=lambda x: x))
    rng = np.random.default_rng(0)
    x = rng.normal(size=(16, 12)).astype(np.float32)
    y = (rng.random((16, 88)) > 0.9).astype(np.float32)
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(keras.losses.binary_crossentropy(y, model(x)))
    grads = tape.gradient(loss, model.trainable_variables)
    missing = sum(g is None for g in grads)
    print(f"ORACLE: bug={missing == len(grads)} none_grads={missing}/{len(grads)}")


if __name__ == "__main__":
    main()
