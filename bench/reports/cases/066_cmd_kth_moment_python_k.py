"""Central moment discrepancy: a tf.function calls another with each Python k of its loop.

Source: lingxiaoli94/CWB#2 "Performance issue in blob/master/cwb/common/utils.py.py"
(https://github.com/lingxiaoli94/CWB/issues/2): `compute_kth_marginal_moment(ps, k)` is called
with the Python ints k = 2..K, so the inner tf.function is traced once per k.
"""
import numpy as np
import tensorflow as tf


@tf.function
def compute_kth_marginal_moment(ps, k):
    # ps - N x D
    mean = tf.reduce_mean(ps, 0)  # D
    ps = ps - tf.expand_dims(mean, 0)  # N x D
    tmp = tf.math.pow(ps, k)  # N x D
    return tf.reduce_mean(tmp, 0)  # D


@tf.function
def compute_CMD(ps, qs, L, K=5):
    p_mean = tf.reduce_mean(ps, 0)  # D
    q_mean = tf.reduce_mean(qs, 0)  # D
    result = tf.norm(p_mean - q_mean) / L
    for k in range(2, K + 1):
        p_ck = compute_kth_marginal_moment(ps, k)
        q_ck = compute_kth_marginal_moment(qs, k)
        tmp = tf.norm(p_ck - q_ck) / (L ** k)
        result += tmp
    return result


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    ps = tf.constant(rng.normal(size=(100, 3)), tf.float32)
    qs = tf.constant(rng.normal(size=(100, 3)), tf.float32)
    for _ in range(3):
        compute_CMD(ps, qs, 2.0)
    traces = compute_kth_marginal_moment.experimental_get_tracing_count()
    print(f"ORACLE: bug={traces >= 4} inner_traces={traces} distinct_k=4")
