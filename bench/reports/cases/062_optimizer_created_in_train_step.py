"""Seq2seq training step that creates its Adam optimizer inside the tf.function.

Source: tensorflow/tensorflow#27120 "tf.function-decorated function tried to create variables on
non-first call" (https://github.com/tensorflow/tensorflow/issues/27120), comment by liuneng1994:
"I tried to create new optimizer instance in every training step". A small dense model stands
in for the SeqToSeq model; tf.keras is Keras 2 (tf_keras), whose Model does not own a `loss`
attribute that would shadow the model's loss method.
"""
import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"
import numpy as np
import tensorflow as tf
from tensorflow.keras import optimizers


class SeqToSeq(tf.keras.Model):
    def __init__(self, units, vocab):
        super().__init__()
        self.enc = tf.keras.layers.Dense(units, activation="tanh")
        self.dec = tf.keras.layers.Dense(vocab)

    def call(self, x1, x2):
        return self.dec(self.enc(tf.concat([x1, x2], axis=-1)))

    def loss(self, y, target):
        return tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(target, y, from_logits=True))


@tf.function
def train_one_step(model, x1, x2, target):
    optim = optimizers.Adam(0.001)
    with tf.GradientTape() as tape:
        y = model(x1, x2)
        loss = model.loss(y, target)
        grad = tape.gradient(loss, model.trainable_variables)
        clipped_gradients, _ = tf.clip_by_global_norm(grad, 5)
        optim.apply_gradients(zip(grad, model.trainable_variables))
    return loss


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    model = SeqToSeq(16, 12)
    x1 = tf.constant(rng.normal(size=(8, 5)), tf.float32)
    x2 = tf.constant(rng.normal(size=(8, 5)), tf.float32)
    target = tf.constant(rng.integers(0, 12, size=8))
    try:
        for step in range(3):
            train_one_step(model, x1, x2, target)
        print("ORACLE: bug=False error=none")
    except ValueError as exc:
        print("ValueError:", str(exc).strip().splitlines()[-1][:300])
        print("ORACLE: bug=True error=ValueError")
