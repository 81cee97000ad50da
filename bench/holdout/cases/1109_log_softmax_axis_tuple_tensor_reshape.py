"""log_softmax over a tuple of axes that flattens them with `x.reshape(...)` on the tensor.

Source: keras-team/keras#18628 "Switch from tensor reshape to ops.reshape"
(https://github.com/keras-team/keras/pull/18628). Keras 3's `ops.softmax` /
`ops.log_softmax` handled `axis=(1, 2)` by merging the axes with `x = x.reshape(new_shape)`
and restoring them with `x.reshape(original_shape)`. That works on KerasTensors (which
have a `.reshape` method) but "tensorflow tensors don't always have a `.reshape`
property": a tf.Tensor only gets NumPy methods after
tf.experimental.numpy.experimental_enable_numpy_behavior(), so with the TensorFlow
backend the call raises AttributeError (test_log_softmax_3d_axis_tuple failed). Written
here as a user-side helper inside a spatial log-softmax layer of a small subclassed
heat-map model; calling the model on a batch raises AttributeError.
Changed: the helper is written for this case after the PR's pre-fix code (merging the
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
    x = x.reshape(new_shape)
    x = tf.nn.log_softmax(x, axis=-1)
    x = x.reshape(original_shape)
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
        print("normalised:", np.allclose(np.exp(np.asarray(y)).sum(axis=(1, 2)), 1.0, atol=1e-5))
    except AttributeError as e:
        err = e
        print("error:", type(e).__name__, [l for l in str(e).splitlines() if "reshape" in l][:1])
    print(f"ORACLE: bug={err is not None} exception={type(err).__name__ if err else None}")


if __name__ == "__main__":
    main()
