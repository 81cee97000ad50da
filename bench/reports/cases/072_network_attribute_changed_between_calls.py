"""A tf.function method reading `self.weights`, which the caller replaces between two calls.

Source: tensorflow/tensorflow#44980 "Changing self properties does not trigger retracing"
(https://github.com/tensorflow/tensorflow/issues/44980): eager and graph mode give different
results, because the graph keeps the tensor it captured on the first call.
"""
import tensorflow as tf


class Network:
    def call(self, x):
        self.weights = tf.zeros((4, 5), dtype=tf.double)
        first = self.encoder_graph(x)
        self.weights = tf.zeros((2, 3), dtype=tf.double)
        second = self.encoder_graph(x)
        return first, second

    @tf.function
    def encoder_graph(self, x):
        return self.weights + x


if __name__ == "__main__":
    net = Network()
    first, second = net.call(tf.constant(1.0, dtype=tf.double))
    print("shapes:", first.shape, second.shape)
    stale = tuple(second.shape) != (2, 3)
    print(f"ORACLE: bug={stale} second_shape={tuple(second.shape)} expected=(2,3)")
