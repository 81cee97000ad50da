"""Memory-augmented Keras layer whose memories are updated with `.assign` inside call().

Sources: tensorflow/tensorflow#54568 and keras-team/keras#16128 "How to propagate gradients
after a assign op?" (https://github.com/tensorflow/tensorflow/issues/54568,
https://github.com/keras-team/keras/issues/16128): with `.assign` the write controller gets
"Gradients do not exist for variables"; with `=` a new tensor is created. Sizes are reduced.
"""
import numpy as np
import tensorflow as tf
from tensorflow import keras


class MemoryLayer(keras.layers.Layer):
    def __init__(self, n_clusters=10, key_dims=8, **kwargs):
        super().__init__(**kwargs)
        self.n_clusters = n_clusters
        self.key_dims = key_dims
        self.write_controller = keras.layers.Dense(key_dims, activation="tanh")

    def build(self, input_shape):
        self.key_memory = self.add_weight(name="key_memory", shape=(self.n_clusters, self.key_dims),
                                          initializer="glorot_uniform", trainable=False)

    def call(self, inputs):
        write = self.write_controller(inputs)
        erase = tf.reduce_mean(write, axis=0, keepdims=True)
        self.key_memory.assign(self.key_memory * (1.0 - erase) + erase)
        scores = tf.matmul(inputs[:, :self.key_dims], self.key_memory, transpose_b=True)
        return tf.nn.softmax(scores)


def main():
    layer = MemoryLayer()
    x = tf.constant(np.random.default_rng(0).normal(size=(4, 8)).astype(np.float32))
    with tf.GradientTape() as tape:
        out = layer(x)
        loss = tf.reduce_sum(out * tf.range(10, dtype=tf.float32))
    grads = tape.gradient(loss, layer.write_controller.trainable_variables)
    missing = sum(g is None for g in grads)
    print(f"ORACLE: bug={missing == len(grads)} controller_none_grads={missing}/{len(grads)}")


if __name__ == "__main__":
    main()
