"""Per-replica outer products of visible and hidden vectors computed with tf.map_fn.

Source: tensorflow/tensorflow#26907 "Specs" (https://github.com/tensorflow/tensorflow/issues/26907):
`tf.map_fn(lambda x: tf.tensordot(x[0], x[1], 0), elems=(vt[:, j, :], ht[:, j, :]))` is twice as
slow as a NumPy loop. The outer products are one broadcast (or einsum) away.
Ported from the reporter's session code to eager TF2.
"""
import time

import numpy as np
import tensorflow as tf


def outer_products(vt, ht, j):
    return tf.map_fn(lambda x: (tf.tensordot(x[0], x[1], 0)),
                     elems=(tf.convert_to_tensor(vt[:, j, :]), tf.convert_to_tensor(ht[:, j, :])),
                     fn_output_signature=tf.float64)


def _vectorised(vt, ht, j):
    return tf.einsum("ri,rj->rij", vt[:, j, :], ht[:, j, :])


def _best(fn, *args, repeats=3):
    fn(*args)
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn(*args)
        best = min(best, time.perf_counter() - t0)
    return best, out


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    vt = rng.random((256, 10, 78))
    ht = rng.random((256, 10, 34))
    t_map, a = _best(outer_products, vt, ht, 1)
    t_vec, b = _best(_vectorised, vt, ht, 1)
    same = bool(np.allclose(a.numpy(), b.numpy()))
    speedup = t_map / t_vec
    print(f"map_fn {t_map * 1e3:.1f} ms, vectorised {t_vec * 1e3:.2f} ms")
    print(f"ORACLE: bug={same and speedup > 2.0} speedup={speedup:.1f} same_result={same}")
