"""A custom Keras loss that prints `err.numpy()`: under fit() the loss runs while the train step traces.

Source: tensorflow/tensorflow#40508 "AttributeError: 'Tensor' object has no attribute 'numpy'"
(https://github.com/tensorflow/tensorflow/issues/40508): "i wanted to print the error in custom
loss function". fit() compiles the train step into a tf.function, so `yT - yP` is a symbolic
tensor when the loss is traced and has no `.numpy()`.

Changed from the posted code: random 28x28 images and one-hot labels instead of MNIST, 64 samples,
one epoch; the model is the user's Flatten/Dense stack, made smaller.
"""
import numpy as np
import tensorflow as tf
from tensorflow.keras.models import Sequential
from tensorflow.keras.layers import Flatten, Dense
from tensorflow.keras.utils import to_categorical


def loss(yT, yP):
    err = yT - yP
    print(err.numpy())
    squaredError = tf.square(err)
    meanError = tf.reduce_mean(squaredError)
    return meanError


def main():
    rng = np.random.default_rng(0)
    xTrain = rng.integers(0, 256, size=(64, 28, 28)).astype("float32") / 255
    yTrain = to_categorical(rng.integers(0, 10, size=64), num_classes=10)

    model = Sequential()
    model.add(Flatten(input_shape=(28, 28)))
    model.add(Dense(32, activation='relu'))
    model.add(Dense(10, activation='softmax'))
    model.compile(optimizer='adam', loss=loss, metrics=['accuracy'])

    err = None
    try:
        model.fit(xTrain, yTrain, epochs=1, batch_size=16, verbose=0)
    except Exception as e:
        err = e
        print(type(e).__name__, str(e).strip().splitlines()[-1][:200])
    no_numpy = err is not None and "numpy" in str(err)
    name = type(err).__name__ if err is not None else "None"
    print(f"ORACLE: bug={no_numpy} exception={name}")


if __name__ == "__main__":
    main()
