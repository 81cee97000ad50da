"""The answer's fix: watch the batch that is fed to the model and differentiate w.r.t. it.

Source: tensorflow/tensorflow#31264 (https://github.com/tensorflow/tensorflow/issues/31264),
alextp: "You need to call tape.watch(images) if you want the gradient wrt images".
"""
import numpy as np
import tensorflow as tf
from tensorflow import keras

model = keras.Sequential([keras.Input((28, 28)), keras.layers.Flatten(), keras.layers.Dense(10)])
loss_object = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def train_step(images, labels):
    with tf.GradientTape() as tape:
        tape.watch(images)
        predictions = model(images)
        loss = loss_object(labels, predictions)
    return tape.gradient(loss, images)


def main():
    rng = np.random.default_rng(0)
    images = tf.constant(rng.random((4, 28, 28), dtype=np.float32))
    labels = tf.constant(rng.integers(0, 10, size=4))
    g = train_step(images, labels)
    print(f"ORACLE: bug={g is None} grad_shape={None if g is None else tuple(g.shape)}")


if __name__ == "__main__":
    main()
