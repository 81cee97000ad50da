"""Updating the input image with `optimizer.apply_gradients` while the image is a plain tensor.

Source: Stack Overflow "How to get gradients with respect to input and change input (rather
than trainable vars) to minimize loss in TF 2?" (mirrored at
https://whosebug.com/question/4342485/How-to-get-gradients-with-respect-to-input-and-change-input-rather-than-trainable-vars-to-minimize-loss-in-TF-2).
Second half of the same step as case 906: the user wants the optimizer to change the input, and
writes `optimizer.apply_gradients(zip(gradients, image))` with `image` a tensor from the data.
Here the answer's fix for the first problem (`tape.watch(image)`) is applied, so the gradient
exists; the update still fails, because an optimizer can only update `tf.Variable`s and the image
was never made one (TF 2.21 / Keras 3: AttributeError '...EagerTensor' object has no attribute
'_unique_id').
Changes: MNIST replaced by a random 28x28x1 batch; untrained quickstart model; the exception is
caught for the oracle.
"""
import numpy as np
import tensorflow as tf
from tensorflow.keras import Model
from tensorflow.keras.layers import Conv2D, Dense, Flatten


class MyModel(Model):
    def __init__(self):
        super(MyModel, self).__init__()
        self.conv1 = Conv2D(32, 3, activation='relu')
        self.flatten = Flatten()
        self.d1 = Dense(128, activation='relu')
        self.d2 = Dense(10, activation='softmax')

    def call(self, x):
        x = self.conv1(x)
        x = self.flatten(x)
        x = self.d1(x)
        return self.d2(x)


model = MyModel()
loss_object = tf.keras.losses.SparseCategoricalCrossentropy()
optimizer = tf.keras.optimizers.Adam()


def train_step(image, label):
    with tf.GradientTape() as tape:
        tape.watch(image)
        predictions = model(image)
        loss = loss_object(label, predictions)
    gradients = tape.gradient(loss, image)
    optimizer.apply_gradients(zip(gradients, image))
    return gradients


def main():
    rng = np.random.default_rng(0)
    image = tf.constant(rng.random((4, 28, 28, 1)), tf.float32)
    label = tf.constant(rng.integers(0, 10, size=(4,)))
    error = None
    try:
        train_step(image, label)
    except Exception as e:  # the symptom
        error = e
        print(type(e).__name__, e)
    name = type(error).__name__ if error else "none"
    print(f"ORACLE: bug={error is not None} exception={name}")


if __name__ == "__main__":
    main()
