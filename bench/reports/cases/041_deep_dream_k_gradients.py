"""Deep Dream from "Deep Learning with Python" (chapter 8) run on TensorFlow 2.

Source: fchollet/deep-learning-with-python-notebooks#169 "K.gradients (chapter -8)"
(https://github.com/fchollet/deep-learning-with-python-notebooks/issues/169):
`grads = K.gradients(loss, dream)[0]` raises "tf.gradients is not supported when eager
execution is enabled". A small random conv net replaces InceptionV3; tf.keras is Keras 2
(tf_keras), which the book's code needs.
"""
import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"
import numpy as np
import tensorflow as tf
from tensorflow.keras import backend as K
from tensorflow.keras import layers, models

inp = layers.Input((32, 32, 3))
x = layers.Conv2D(8, 3, activation="relu", name="mixed2")(inp)
x = layers.Conv2D(8, 3, activation="relu", name="mixed3")(x)
model = models.Model(inp, x)

layer_contributions = {'mixed2': 0.2, 'mixed3': 3.}
layer_dict = dict([(layer.name, layer) for layer in model.layers])


def main():
    loss = K.variable(0.)
    for layer_name in layer_contributions:
        coeff = layer_contributions[layer_name]
        activation = layer_dict[layer_name].output
        scaling = K.prod(K.cast(K.shape(activation), 'float32'))
        loss = loss + coeff * K.sum(K.square(activation[:, 2: -2, 2: -2, :])) / scaling

    dream = model.input
    grads = K.gradients(loss, dream)[0]
    grads /= K.maximum(K.mean(K.abs(grads)), 1e-7)
    return grads


if __name__ == "__main__":
    try:
        main()
        print("ORACLE: bug=False error=none")
    except (RuntimeError, ValueError, TypeError) as exc:
        print(f"{type(exc).__name__}: {str(exc).strip().splitlines()[0][:300]}")
        print(f"ORACLE: bug=True error={type(exc).__name__}")
