"""Gradient of a Keras model's output w.r.t. its input with K.gradients in eager TF 2.

Source: Stack Overflow "How do I get the gradient of a keras model with respect to its inputs?"
(mirrored at https://www.whosebug.com/question/4868852/How-do-I-get-the-gradient-of-a-keras-model-with-respect-to-its-inputs
and https://qa.1r1g.com/sf/ask/4171353651). The user builds a two-Dense functional model with
constant initializers, calls `model.predict(input_data)`, then follows an older answer and runs
`grads = K.gradients(model.output, model.input)`; TF 2 raises "tf.gradients is not supported when
eager execution is enabled. Use tf.GradientTape instead."
Changes: `cols`/`input_data` are small random NumPy data; `K` is the Keras 2 backend, so the case
sets TF_USE_LEGACY_KERAS=1 (Keras 3 has no `K.gradients`); the exception is caught for the oracle.
"""
import os
os.environ["TF_USE_LEGACY_KERAS"] = "1"

import numpy as np
import tensorflow as tf
from tensorflow.keras import backend as K

cols = 4


def build_model():
    inputs = tf.keras.Input((cols,), name='input')
    layer_1 = tf.keras.layers.Dense(
        10,
        name='layer_1',
        input_dim=cols,
        use_bias=True,
        kernel_initializer=tf.constant_initializer(0.5),
        bias_initializer=tf.constant_initializer(0.1))(inputs)
    outputs = tf.keras.layers.Dense(
        1,
        name='alpha',
        use_bias=True,
        kernel_initializer=tf.constant_initializer(0.1),
        bias_initializer=tf.constant_initializer(0))(layer_1)
    return tf.keras.Model(inputs=inputs, outputs=outputs)


def main():
    input_data = np.random.default_rng(0).normal(size=(8, cols)).astype(np.float32)
    model = build_model()
    prediction = model.predict(input_data, verbose=0)
    print("prediction shape", prediction.shape)
    error = None
    try:
        grads = K.gradients(model.output, model.input)
        print("grads", grads)
    except Exception as e:  # the reported symptom
        error = e
        print(type(e).__name__, e)
    name = type(error).__name__ if error else "none"
    print(f"ORACLE: bug={error is not None} exception={name}")


if __name__ == "__main__":
    main()
