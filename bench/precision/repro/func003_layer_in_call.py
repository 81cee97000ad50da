"""FUNC003 in a Keras layer's or model's `call`: a layer with variables constructed there is made
again on every call. Under TensorFlow 2.21 (Keras 3) `fit` traces `call` in a tf.function, and the
second layer's variables raise ValueError; Keras 3's Dropout holds a seed variable, so it counts.
The precision verdicts on keras-cv's TransformerEncoder and the SNGP tutorial's DeepResNet rest
on this reproduction (written here in the shape of that code, not copied from it).

    .venv/bin/python bench/precision/repro/func003_layer_in_call.py
"""

import numpy as np
import tensorflow as tf


class DropoutInLayerCall(tf.keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(4)

    def call(self, x):
        y = self.dense(x)
        y = tf.keras.layers.Dropout(0.1)(y)
        return tf.keras.layers.Add()([y, x])


class DropoutInModelCall(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden = tf.keras.layers.Dense(8, activation="relu")
        self.out = tf.keras.layers.Dense(2)

    def call(self, inputs):
        h = self.hidden(inputs)
        h = tf.keras.layers.Dropout(0.1)(h)
        return self.out(h)


def fit_raises(model) -> str:
    model.compile(optimizer="adam", loss="mse")
    try:
        model.fit(np.ones((8, 4), "float32"), np.ones((8, model.output_size), "float32"), verbose=0)
    except ValueError as error:
        return "ValueError: " + str(error).split("\n")[2 if "\n" in str(error) else 0][:90]
    return "no error"


def main() -> None:
    inputs = tf.keras.Input((4,))
    functional = tf.keras.Model(inputs, DropoutInLayerCall()(inputs))
    functional.output_size = 4
    subclassed = DropoutInModelCall()
    subclassed.output_size = 2
    for name, model in (("Dropout in a layer's call (functional model)", functional),
                        ("Dropout in a model's call (subclassed)", subclassed)):
        print(f"{name}: {fit_raises(model)}")


if __name__ == "__main__":
    main()
