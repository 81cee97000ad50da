"""Nearest-lower grid value for every element of a query volume, mapped element by element.

Source: tensorflow/tensorflow#28458 "map_fn() missing GPU implementation"
(https://github.com/tensorflow/tensorflow/issues/28458), comment by arman-kazemi: a "binary
search finding the closest value in xaxis to query" with tf.map_fn over the flattened query.
The same lookup is one broadcast comparison for all elements. Sizes are reduced.
"""
import time

import numpy as np
import tensorflow as tf

x = np.sort(np.random.default_rng(1).random(65)).astype(np.float32)
x[0] = 0.0
xaxis = tf.constant(x)


def lookup(query):
    vals = tf.map_fn(lambda x: xaxis[tf.argmin(tf.cast(x >= xaxis, dtype=tf.int32)[1:] - tf.cast(x >= xaxis, dtype=tf.int32)[:-1])], tf.reshape(query, [-1]))
    return tf.reshape(vals, query.shape)


def _vectorised(query):
    flat = tf.reshape(query, [-1, 1])
    ge = tf.cast(flat >= xaxis[None, :], tf.int32)
    idx = tf.argmin(ge[:, 1:] - ge[:, :-1], axis=1)
    return tf.reshape(tf.gather(xaxis, idx), query.shape)


def _best(fn, arg, repeats=2):
    fn(arg)
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn(arg)
        best = min(best, time.perf_counter() - t0)
    return best, out


if __name__ == "__main__":
    query = tf.constant(np.random.default_rng(0).uniform(0, 1, [5, 10, 20]).astype(np.float32))
    t_map, a = _best(lookup, query)
    t_vec, b = _best(_vectorised, query)
    same = bool(np.allclose(a.numpy(), b.numpy()))
    speedup = t_map / t_vec
    print(f"map_fn {t_map * 1e3:.1f} ms, vectorised {t_vec * 1e3:.2f} ms")
    print(f"ORACLE: bug={same and speedup > 2.0} speedup={speedup:.1f} same_result={same}")
