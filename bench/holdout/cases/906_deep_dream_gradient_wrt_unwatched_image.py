"""Gradient of the loss w.r.t. the input image, which is a plain (unwatched) tensor.

Source: Stack Overflow "How to get gradients with respect to input and change input (rather
than trainable vars) to minimize loss in TF 2?" (mirrored at
https://whosebug.com/question/4342485/How-to-get-gradients-with-respect-to-input-and-change-input-rather-than-trainable-vars-to-minimize-loss-in-TF-2).
The user trains the TF 2 quickstart `MyModel` (Conv2D/Flatten/Dense/Dense) with the usual
`train_step`, then, Deep-Dream style, copies it into a step that takes
`tape.gradient(loss, image)` and applies it to the image with
`optimizer.apply_gradients(zip(gradients, image))`; "this does not work". The answer: the tape
only differentiates w.r.t. watched tensors; variables are watched automatically, an arbitrary
tensor must be `tape.watch`ed. The gradient is None.
Changes: MNIST is replaced by one random 28x28x1 batch; the model is untrained; the failing
`apply_gradients` is caught and reported.
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
        predictions = model(image)
        loss = loss_object(label, predictions)
    gradients = tape.gradient(loss, image)
    try:
        optimizer.apply_gradients(zip(gradients, image))
    except Exception as e:
        print("apply_gradients:", type(e).__name__, e)
    return gradients


def main():
    rng = np.random.default_rng(0)
    image = tf.constant(rng.random((4, 28, 28, 1)), tf.float32)
    label = tf.constant(rng.integers(0, 10, size=(4,)))
    gradients = train_step(image, label)
    print("gradients", gradients)
    print(f"ORACLE: bug={gradients is None} grad_is_none={gradients is None}")


if __name__ == "__main__":
    main()
