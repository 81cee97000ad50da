"""TAPE010 beyond its examples (injector mutants of tapelsp's own examples and of dev/053; what
TensorFlow 2.21 does was run, see the commit message): a source computed in the block only from
unwatched constants; a source that is, on a later iteration, the tensor the loop computed after
the block.
"""

from __future__ import annotations

import textwrap

import tapelsp
from tapelsp import Settings


def flagged(source: str, *codes: str) -> list[tuple[str, int]]:
    found = tapelsp.check_source(textwrap.dedent(source).lstrip("\n"), None,
                                 Settings(tensorflow_version="2.21", select=codes))
    return sorted((v.code, v.range.start.line + 1) for v in found)


def test_source_computed_in_the_block_from_something_watched_is_silent() -> None:
    assert flagged("""
        import tensorflow as tf

        x = tf.constant([1.0, 2.0])
        v = tf.Variable([1.0, 1.0])
        model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(2)])
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = x * 2.0
            a = x * v
            b = model(x[None])
            z = tf.reduce_sum(y ** 2) + tf.reduce_sum(a) + tf.reduce_sum(b)
        g = tape.gradient(z, [y, a, b])
    """, "TAPE010") == []


def test_source_from_a_variable_or_a_model_in_the_block_is_silent() -> None:
    assert flagged("""
        import tensorflow as tf

        x = tf.constant([1.0, 2.0])
        v = tf.Variable([1.0, 1.0])
        with tf.GradientTape() as tape:
            a = x * v
            z = tf.reduce_sum(a ** 2)
        g = tape.gradient(z, a)
    """, "TAPE010") == []


def test_fast_weights_watched_each_step_are_silent() -> None:
    assert flagged("""
        import tensorflow as tf

        def adapt(w0, xs, ys, steps=3, alpha=0.1):
            w = w0
            for _ in range(steps):
                with tf.GradientTape() as tape:
                    tape.watch(w)
                    loss = tf.reduce_mean((xs @ w - ys) ** 2)
                g = tape.gradient(loss, w)
                w = w - alpha * g
            return w

        w = adapt(tf.Variable([[0.5], [0.5]]), tf.ones((4, 2)), tf.zeros((4, 1)))
    """, "TAPE010") == []


def test_a_conditional_update_in_the_loop_is_left_alone() -> None:
    assert flagged("""
        import tensorflow as tf

        def adapt(w0, xs, ys, steps=3, alpha=0.1):
            w = w0
            for step in range(steps):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean((xs @ w - ys) ** 2)
                g = tape.gradient(loss, w)
                if step == steps - 1:
                    w = w - alpha * g
            return w

        w = adapt(tf.Variable([[0.5], [0.5]]), tf.ones((4, 2)), tf.zeros((4, 1)))
    """, "TAPE010") == []
