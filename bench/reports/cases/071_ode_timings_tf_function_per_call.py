"""Benchmark helper that builds its tf.function right-hand side and loss inside each call.

Source: google-research/google-research#1485 "Performance issues about tf.function"
(https://github.com/google-research/google-research/issues/1485): in
m_theory/m_theory_lib/ode/ode_bp_basic_timings.py `get_ode_timings` defines the tf.functions
`tf_ydot` and `tf_loss` and is called in a loop, so every call traces them again.
A linear ODE integrated with explicit Euler steps stands in for the original system.
"""
import sys
import time

import numpy as np
import tensorflow as tf


def get_ode_timings(dim, num_steps=20, dt=0.01):
    rng = np.random.default_rng(dim)
    m = tf.constant(rng.normal(size=(dim, dim)) / dim, tf.float64)
    y0 = tf.constant(rng.normal(size=dim), tf.float64)

    @tf.function
    def tf_ydot(y):
        return tf.linalg.matvec(m, y)

    @tf.function
    def tf_loss(y):
        for _ in range(num_steps):
            y = y + dt * tf_ydot(y)
        return tf.reduce_sum(y * y)

    t0 = time.perf_counter()
    loss = tf_loss(y0)
    return time.perf_counter() - t0, float(loss)


def count_traces(fn, names):
    """Count executions of the named Python functions (their bodies run only while tracing)."""
    counts = dict.fromkeys(names, 0)

    def hook(frame, event, arg):
        name = frame.f_code.co_name.removeprefix("tf__")  # AutoGraph runs a converted copy
        if event == "call" and name in counts:
            counts[name] += 1
    sys.setprofile(hook)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return counts


def main():
    for _ in range(3):
        for dim in (4, 8):
            get_ode_timings(dim)


if __name__ == "__main__":
    counts = count_traces(main, ["tf_loss"])
    print(f"ORACLE: bug={counts['tf_loss'] >= 6} tf_loss_traces={counts['tf_loss']} calls=6")
