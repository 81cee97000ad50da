"""Gradient of the loss with respect to `model.inputs`, watched inside the training step.

Source: tensorflow/tensorflow#31264 "GradientTape() unable to compute the gradient wrt Keras
model inputs" (https://github.com/tensorflow/tensorflow/issues/31264). The reporter gets
[None] wherever `tape.watch(model.inputs)` is placed; the answer (alextp) is to watch
`images`, the tensor actually fed to the model. (Keras 3 raises instead: a KerasTensor
cannot be watched.) Fashion-MNIST is replaced by random data.
"""
import numpy as np
import tensorflow as tf
from tensorflow import keras

model = keras.Sequential([keras.Input((28, 28)), keras.layers.Flatten(), keras.layers.Dense(10)])
loss_object = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def train_step(images, labels):
    with tf.GradientTape() as tape:
        predictions = model(images)
        tape.watch(model.inputs)
        loss = loss_object(labels, predictions)
    print(tape.gradient(loss, model.inputs))


def main():
    rng = np.random.default_rng(0)
    images = tf.constant(rng.random((4, 28, 28), dtype=np.float32))
    labels = tf.constant(rng.integers(0, 10, size=4))
    train_step(images, labels)


if __name__ == "__main__":
    import contextlib
    import io
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf):
            main()
        printed = buf.getvalue().strip()
        print(printed)
        print(f"ORACLE: bug={printed == '[None]'} printed={printed.replace(' ', '')[:40]}")
    except ValueError as exc:
        print("ValueError:", exc)
        print("ORACLE: bug=True error=ValueError")
