"""Fixed look-alike: log_softmax over a tuple of axes that flattens them with ops.reshape.

Source: keras-team/keras#18628 "Switch from tensor reshape to ops.reshape"
(https://github.com/keras-team/keras/pull/18628). The PR's fix replaces the tensor
methods `x.reshape(new_shape)` / `x.reshape(original_shape)` with the backend reshape
function, which accepts a plain tf.Tensor. Same helper, layer and heat-map model as case
1109, with `keras.ops.reshape` (the user-facing form of the backend call the fix uses):
the model runs and each map sums to 1. NEGATIVE for NumPy-method-on-tensor.
Changed: as in 1109, the helper is written for this case after the PR's code (merging the
trailing axes only); the model and data are small and random.
"""
import numpy as np
import tensorflow as tf
import keras
from keras import layers


def log_softmax(x, axis=-1):
    if not isinstance(axis, tuple):
        return tf.nn.log_softmax(x, axis=axis)
    # the axes in `axis` are the trailing ones: merge them, normalise, split them back
    original_shape = x.shape
    merged = 1
    for a in axis:
        merged *= original_shape[a]
    new_shape = [d for i, d in enumerate(original_shape) if i not in axis] + [merged]
    x = keras.ops.reshape(x, new_shape)
    x = tf.nn.log_softmax(x, axis=-1)
    x = keras.ops.reshape(x, original_shape)
    return x


class SpatialLogSoftmax(layers.Layer):
    def __init__(self, axis=(1, 2), **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs):
        return log_softmax(inputs, axis=self.axis)


class HeatmapModel(keras.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.dense = layers.Dense(4)
        self.spatial = SpatialLogSoftmax(axis=(1, 2))

    def call(self, inputs):
        return self.spatial(self.dense(inputs))


def main():
    model = HeatmapModel()
    x = np.random.default_rng(0).normal(size=(2, 3, 4)).astype("float32")
    try:
        y = model(tf.constant(x))
        err = None
        normalised = np.allclose(np.exp(np.asarray(y)).sum(axis=(1, 2)), 1.0, atol=1e-5)
        print("normalised:", normalised)
    except AttributeError as e:
        err = e
        print("error:", type(e).__name__, [l for l in str(e).splitlines() if "reshape" in l][:1])
    ok = err is None and normalised
    print(f"ORACLE: bug={not ok} exception={type(err).__name__ if err else None}")


if __name__ == "__main__":
    main()
