"""`np.random.randn` inside a `@tf.function`: the "random" matrix is the same on every call.

Source: blog post on AutoGraph rules (Chinese), https://ipadbbs.8miu.com/read-54326.html:
"functions decorated with @tf.function that draw random numbers with np are identical every
time, those using tf are not" - `np_random()` called twice prints the same 3x3 array, because
the NumPy call runs once while tracing and its result is baked into the graph as a constant;
`tf_random()` (tf.random.normal) changes on each call.
Changes: the post's `input_signature=[tf.TensorSpec(shape=[], dtype=tf.float32)]` is dropped
(the function takes no argument, so that signature cannot be called in TF 2.21); both functions
also return the matrix so the oracle can compare the two calls.
"""
import numpy as np
import tensorflow as tf


@tf.function
def np_random():
    a = np.random.randn(3, 3)
    tf.print(a)
    return a


@tf.function
def tf_random():
    b = tf.random.normal((3, 3))
    tf.print(b)
    return b


def main():
    # np_random gives the same numbers on every call
    a1 = np_random().numpy()
    a2 = np_random().numpy()
    # tf_random gives new numbers on every call
    b1 = tf_random().numpy()
    b2 = tf_random().numpy()
    np_same = bool(np.array_equal(a1, a2))
    tf_same = bool(np.array_equal(b1, b2))
    print(f"ORACLE: bug={np_same} np_random_same_each_call={np_same} tf_random_same={tf_same}")


if __name__ == "__main__":
    main()
