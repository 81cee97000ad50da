"""Custom training loop whose loss counts correct rounded predictions on a filtered batch.

Source: tensorflow/tensorflow#58614 "Gradient return None"
(https://github.com/tensorflow/tensorflow/issues/58614): the loss is built from
`tf.math.count_nonzero(tf.math.equal(tf.round(prediction), ...))`, which has no gradient.
"""
import numpy as np
import tensorflow as tf
from tensorflow import keras


class Trainer:
    def __init__(self):
        self.model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="relu"),
                                       keras.layers.Dense(1, activation="sigmoid")])
        self.optimizer = keras.optimizers.Adam(1e-3)

    def custom_loss(self, output, prediction):
        correct_count = tf.math.count_nonzero(tf.math.equal(tf.round(prediction), tf.cast(output, tf.float32)))
        incorrect_count = prediction.shape[0] - correct_count
        return tf.cast(incorrect_count, tf.float32) / tf.cast(prediction.shape[0], tf.float32)

    def train_batch(self, x, y):
        with tf.GradientTape() as tape:
            prediction = self.model(x, training=True)
            keep = x[:, 0] > 0
            loss = self.custom_loss(tf.boolean_mask(y, keep), tf.boolean_mask(prediction, keep))
        grads = tape.gradient(loss, self.model.trainable_weights)
        return grads


def main():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(100, 6)).astype(np.float32)
    y = (rng.random((100, 1)) > 0.5).astype(np.float32)
    grads = Trainer().train_batch(x, y)
    missing = sum(g is None for g in grads)
    print(f"ORACLE: bug={missing == len(grads)} none_grads={missing}/{len(grads)}")


if __name__ == "__main__":
    main()
