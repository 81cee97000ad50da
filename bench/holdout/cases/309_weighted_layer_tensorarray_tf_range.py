"""The WeightedLayer of keras-team/keras#15360 with the list replaced by a tf.TensorArray (correct).

Source: keras-team/keras#15360 "how use "append" in tensorflow loop without python collections?"
(https://github.com/keras-team/keras/issues/15360). The user asked what to use instead of
`list.append` inside the `tf.range` loop; the TensorFlow answer is a `tf.TensorArray` written at the
loop index and stacked after the loop, which a tf.while_loop can carry.

Changed from the posted code: n_input 4 and n_memb 3 instead of 16 and 3, random inputs, a
tf.function around the layer instead of the user's training; the list is a TensorArray.
TF_USE_LEGACY_KERAS=1 (tf_keras, the Keras 2 the user had) as in the matching positive.
"""
import os
os.environ["TF_USE_LEGACY_KERAS"] = "1"
import tensorflow as tf
from tensorflow.keras.layers import Layer


class WeightedLayer(Layer):
    def __init__(self, n_input, n_memb, **kwargs):
        super(WeightedLayer, self).__init__(**kwargs)
        self.n = n_input
        self.m = n_memb

    def build(self, batch_input_shape):
        super(WeightedLayer, self).build(batch_input_shape)

    def call(self, input_):
        self.batch_size = tf.shape(input_)[0]
        CP = tf.TensorArray(tf.float32, size=self.batch_size)
        for batch in tf.range(self.batch_size):
            xd_shape = [self.m]
            c_shape = [1]
            cp = input_[batch, 0, :]
            for d in range(1, self.n):
                c_shape.insert(0, self.m)
                xd_shape.insert(0, 1)
                xd = tf.reshape(input_[batch, d, :], (xd_shape))
                c = tf.reshape(cp, (c_shape))
                cp = tf.matmul(c, xd)
            flat_cp = tf.reshape(cp, (1, self.m ** self.n))
            CP = CP.write(batch, flat_cp)
        c = CP.stack()
        return tf.reshape(c, (self.batch_size, self.m ** self.n))


def main():
    n_input, n_memb = 4, 3
    layer = WeightedLayer(n_input, n_memb)

    @tf.function
    def forward(x):
        return layer(x)

    x = tf.random.uniform((8, n_input, n_memb))
    err = None
    try:
        out = forward(x)
        print("output shape", out.shape)
    except Exception as e:
        err = e
        print(type(e).__name__, str(e).splitlines()[0][:200])
    name = type(err).__name__ if err is not None else "None"
    print(f"ORACLE: bug={err is not None} exception={name}")


if __name__ == "__main__":
    main()
