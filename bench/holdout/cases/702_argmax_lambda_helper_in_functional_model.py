"""A helper returns a `Lambda` layer wrapping `tf.math.argmax`; a functional model ends with it and
`model.fit` fails because argmax has no gradient.

Source: Mainak431/List-of-Differentiable--OPs-and-Non-differentiable-OPs--in-Tensorflow#4
"Incorrect list - I guess the script somehow also needs to check return values?"
(https://github.com/Mainak431/List-of-Differentiable--OPs-and-Non-differentiable-OPs--in-Tensorflow/issues/4).
The repository lists ArgMax as differentiable because a gradient function is registered, but that
function returns [None, None]; the reporter's model with an `ArgMax()` Lambda raises
"No gradients provided for any variable". Changed: runs under Keras 3 (`tf.keras`) with the user's Lambda
unchanged; only `verbose=0` and 2 epochs differ.
"""
import numpy as np
import tensorflow as tf
from tensorflow.keras.layers import Input, Dense, Lambda
from tensorflow.keras.models import Model
from tensorflow.keras.optimizers import SGD


def ArgMax():
    return Lambda(lambda q: tf.math.argmax(q, 2))


def build():
    inputs1 = Input(shape=(1, 1))
    d = Dense(3)(inputs1)
    out = ArgMax()(d)
    model = Model(inputs=[inputs1], outputs=[out], name="test")
    model.compile(SGD(0.1), loss="mae")
    return model


def main():
    model = build()
    err = None
    try:
        model.fit(x=[np.ones((100, 1, 1))], y=[np.zeros((100, 1))],
                  batch_size=100, verbose=0, epochs=2)
    except ValueError as e:
        err = e
    print("error:", str(err)[:120] if err else None)
    bug = err is not None and "No gradients provided" in str(err)
    print(f"ORACLE: bug={bug} exception={type(err).__name__ if err else None} no_gradients={bug}")


if __name__ == "__main__":
    main()
