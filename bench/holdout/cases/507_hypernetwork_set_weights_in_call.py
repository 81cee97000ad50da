"""Hypernetwork wrapper that writes its predicted weights into the wrapped layer with `set_weights`.

Source: tensorflow/tensorflow#32927 "set_weights crashes in tf.function because it tries to convert
tensors into numpy arrays" (https://github.com/tensorflow/tensorflow/issues/32927), by the author
of the "hypernetwork wrapper which uses get_weights and set_weights" comment on #29663. The
wrapper's `call` predicts the wrapped layer's kernel and bias and does
`self.layer.set_weights(weights)` before calling the layer. On TF 2.0 this crashed inside
`tf.function`; on TF 2.21 / Keras 3 `set_weights` accepts tensors, assigns them, and the training
step runs, but `set_weights` is a variable assignment: nothing connects the loss to the
hypernetwork, whose gradients are all None. (On #29663 the Keras maintainer's advice was to
"create a custom layer" rather than set weight tensors.) The user's model is replaced by one wrapped
Dense layer, a task-embedding input and random regression data.
"""
import numpy as np
import tensorflow as tf


class HyperNetworkWrapper(tf.keras.layers.Layer):
    """Predicts the weights of `layer` from a context vector."""

    def __init__(self, layer, hidden=16, **kwargs):
        super().__init__(**kwargs)
        self.layer = layer
        self.hidden = hidden

    def build(self, input_shape):
        x_shape, context_shape = input_shape
        self.layer.build(x_shape)
        self.shapes = [tuple(w.shape) for w in self.layer.weights]
        n_out = int(sum(np.prod(s) for s in self.shapes))
        self.hyper_hidden = tf.keras.layers.Dense(self.hidden, activation="tanh")
        self.hyper_out = tf.keras.layers.Dense(n_out)
        self.hyper_hidden.build(context_shape)
        self.hyper_out.build((context_shape[0], self.hidden))

    def predict_weights(self, context):
        flat = self.hyper_out(self.hyper_hidden(context))[0]
        weights, start = [], 0
        for shape in self.shapes:
            size = int(np.prod(shape))
            weights.append(tf.reshape(flat[start:start + size], shape))
            start += size
        return weights

    def call(self, inputs):
        x, context = inputs
        weights = self.predict_weights(context)
        self.layer.set_weights(weights)
        return self.layer(x)


wrapper = HyperNetworkWrapper(tf.keras.layers.Dense(1))
optimizer = tf.keras.optimizers.Adam(1e-2)


@tf.function
def train_step(x, context, y):
    with tf.GradientTape() as tape:
        pred = wrapper((x, context))
        loss = tf.reduce_mean(tf.square(y - pred))
    hyper_vars = wrapper.hyper_hidden.trainable_variables + wrapper.hyper_out.trainable_variables
    grads = tape.gradient(loss, hyper_vars)
    return loss, grads


def main():
    rng = np.random.default_rng(0)
    x = tf.constant(rng.normal(size=(32, 5)).astype("float32"))
    y = tf.constant(rng.normal(size=(32, 1)).astype("float32"))
    context = tf.constant(rng.normal(size=(1, 3)).astype("float32"))
    wrapper((x, context))

    loss, grads = train_step(x, context, y)
    n_none = sum(g is None for g in grads)
    print("loss:", float(loss), "None gradients for the hypernetwork:", n_none, "of", len(grads))
    print(f"ORACLE: bug={n_none > 0} hyper_grads_none={n_none}/{len(grads)}")


if __name__ == "__main__":
    main()
