"""Keras layer that filters its input with a NumPy function wrapped by tf.py_func.

Source: cleverhans-lab/cleverhans#432 "tf.gradients(loss, x) returns None. Is CleverHans
asking me to implement the gradient for a newly defined operation?"
(https://github.com/cleverhans-lab/cleverhans/issues/432). The FGSM attack needs the
gradient of the loss w.r.t. the input, which cannot cross the py_func. Ported to TF2:
`tf.compat.v1.py_func` and a GradientTape in place of the session.
"""
import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras.layers import Activation, Dense, Layer
from tensorflow.keras.models import Sequential


class MyLayer(Layer):
    def __init__(self, **kwargs):
        super(MyLayer, self).__init__(**kwargs)

    def build(self, input_shape):
        super(MyLayer, self).build(input_shape)

    def call(self, X):
        def __function(X): return np.sinh(X)
        return tf.reshape(tf.compat.v1.py_func(__function, [X], tf.float32), shape=(-1, *X.shape[1:]))
        # tf.reshape() is needed to enforce shape of output


kerasmodel = Sequential([
    keras.Input((4,)),
    MyLayer(),
    Dense(3),
    Activation('softmax'),
])


def main():
    x = tf.constant(np.random.default_rng(0).normal(size=(5, 4)).astype(np.float32))
    y = tf.one_hot([0, 1, 2, 0, 1], 3)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = keras.losses.categorical_crossentropy(y, kerasmodel(x))
    g = tape.gradient(loss, x)
    print(f"ORACLE: bug={g is None} input_grad_is_none={g is None}")


if __name__ == "__main__":
    main()
