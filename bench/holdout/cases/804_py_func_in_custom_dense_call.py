"""A Dense-like custom layer that passes its pre-activation through a Python function wrapped in
tf.py_func inside call(). py_func (numpy_function) has no gradient, so nothing before it -- the
layer's own weight and bias -- receives a gradient and the model cannot be trained.

Source: keras-team/keras#6163 "Using numpy function in .call of a custom Layer"
(https://github.com/keras-team/keras/issues/6163). The reporter's layer keeps a weight matrix
W of shape [input_dim + n, output_dim], computes K.dot(inputs, W[n:, :]) (+ bias) and wraps a
non-TensorFlow function `func` with tf.py_func before the activation; fit breaks with
"ValueError: None values not supported." (the Keras 2 optimizer receiving None gradients).
Changed from the posted code: Keras 3 layer API (add_weight, keras.ops) and tf.compat.v1.py_func
(tf.py_func is the TF1 name); `func` is a small NumPy polynomial with fixed coefficients instead
of the reporter's unspecified function of the extra parameters; synthetic regression data.
"""
import numpy as np
import tensorflow as tf
import keras
from keras import ops


class MyDense(keras.layers.Layer):
    def __init__(self, output_dim, n=2, activation="tanh", use_bias=True, **kwargs):
        super().__init__(**kwargs)
        self.output_dim = output_dim
        self.n = n
        self.activation = keras.activations.get(activation)
        self.use_bias = use_bias
        self.coeffs = np.array([0.5, 1.0, -0.1], dtype=np.float32)

    def build(self, input_shape):
        input_dim = input_shape[-1]
        self.W = self.add_weight(shape=(input_dim + self.n, self.output_dim),
                                 initializer="glorot_uniform", name="W")
        if self.use_bias:
            self.bias = self.add_weight(shape=(self.output_dim,), initializer="zeros", name="bias")

    def func(self, output):
        # do something (not TensorFlow) with the pre-activation
        c = self.coeffs
        return (c[0] + c[1] * output + c[2] * output ** 2).astype(np.float32)

    def call(self, inputs):
        output = ops.matmul(inputs, self.W[self.n:, :])
        if self.use_bias:
            output = output + self.bias
        if self.activation is not None:
            output = self.activation(tf.compat.v1.py_func(self.func, [output], tf.float32))
        output.set_shape((None, self.output_dim))
        return output

    def compute_output_shape(self, input_shape):
        return (input_shape[0], self.output_dim)


def main():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 5)).astype("float32")
    y = np.tanh(x @ rng.normal(size=(5, 3))).astype("float32")

    model = keras.Sequential([keras.Input(shape=(5,)), MyDense(3)])
    model.compile(optimizer="sgd", loss="mse")

    with tf.GradientTape() as tape:
        loss = keras.losses.mean_squared_error(y, model(x))
    grads = tape.gradient(loss, model.trainable_variables)
    n_none = sum(g is None for g in grads)
    print("gradients:", [None if g is None else tuple(g.shape) for g in grads])

    error = None
    try:
        model.fit(x, y, epochs=1, batch_size=16, verbose=0)
    except (ValueError, TypeError) as exc:
        error = type(exc).__name__
        print(f"fit: {error}: {str(exc)[:200]}")
    print(f"ORACLE: bug={n_none == len(grads)} none_grads={n_none}/{len(grads)} fit_error={error}")


if __name__ == "__main__":
    main()
