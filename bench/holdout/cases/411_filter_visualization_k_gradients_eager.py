"""CNN filter visualisation: `keras.backend.gradients(loss, img_input)` on a trained model in TF2.

To visualise what a convolution filter responds to, the reporter takes the model's symbolic
input (`baseline_model.input`), a layer's symbolic output from `layer_dict`, builds
`loss = K.mean(layer_output[:, neuron_index, :, :])` and asks `keras.backend.gradients(loss,
img_input)` for the gradient, to be wrapped in a `keras.function` for gradient ascent. Under
TensorFlow 2 eager execution that graph API raises "RuntimeError: tf.gradients is not
supported when eager execution is enabled. Use tf.GradientTape instead." The maintainer points
to the keras.io example that does the ascent with a GradientTape.

Source: tensorflow/tensorflow#44813 "eager execution and gradients"
(https://github.com/tensorflow/tensorflow/issues/44813).
Changed from the posted code: the reporter's baseline CNN is a small Sequential conv net
trained one epoch on random images; the layer name is that model's (`conv2d_171` in the post).
`keras.backend.gradients` exists only in Keras 2: tf_keras (TF_USE_LEGACY_KERAS=1).
"""
import os
os.environ["TF_USE_LEGACY_KERAS"] = "1"

import numpy as np
import tensorflow as tf
from tensorflow import keras


def build_baseline_model():
    model = keras.Sequential([
        keras.layers.Conv2D(8, 3, activation="relu", input_shape=(28, 28, 1), name="conv2d_170"),
        keras.layers.Conv2D(16, 3, activation="relu", name="conv2d_171"),
        keras.layers.MaxPooling2D(),
        keras.layers.Flatten(),
        keras.layers.Dense(10, activation="softmax"),
    ])
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    return model


def main():
    rng = np.random.default_rng(0)
    x = rng.uniform(size=(32, 28, 28, 1)).astype(np.float32)
    y = rng.integers(0, 10, size=32)
    baseline_model = build_baseline_model()
    baseline_model.fit(x, y, epochs=1, verbose=0)

    layer_dict = dict([(layer.name, layer) for layer in baseline_model.layers[1:]])
    img_input = baseline_model.input
    neuron_index = 1
    layer_output = layer_dict['conv2d_171'].output
    loss = keras.backend.mean(layer_output[:, neuron_index, :, :])
    gradients = keras.backend.gradients(loss, img_input)[0]
    gradients = tf.linalg.normalize(gradients)
    iterate = keras.backend.function([img_input], [loss, gradients])
    return iterate


if __name__ == "__main__":
    try:
        main()
        print("ORACLE: bug=False error=none")
    except RuntimeError as exc:
        print("RuntimeError:", exc)
        print("ORACLE: bug=True error=RuntimeError eager_tf_gradients=True")
