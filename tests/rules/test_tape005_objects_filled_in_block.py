"""TAPE005 beyond its examples (injector mutants of tapelsp's own examples; what TensorFlow
2.21 does was run, see the commit message).

- a target in the inner block of a nested tape that binds the same name is recorded (silent);
- TAPE005: a target computed after the block from an object the block filled (a list it
  appended recorded tensors to, an attribute it stored one into);
"""

from __future__ import annotations

import textwrap

import tapelsp
from tapelsp import Settings


def flagged(source: str, *codes: str) -> list[tuple[str, int]]:
    found = tapelsp.check_source(textwrap.dedent(source).lstrip("\n"), None,
                                 Settings(tensorflow_version="2.21", select=codes))
    return sorted((v.code, v.range.start.line + 1) for v in found)


def test_target_in_the_inner_block_of_a_shadowing_tape_is_silent() -> None:
    assert flagged("""
        import tensorflow as tf

        x = tf.constant(2.0)
        with tf.GradientTape() as tape:
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = x * x
            g = tape.gradient(y, x)
    """, "TAPE005") == []


def test_list_filled_in_a_loop_of_episodes() -> None:
    assert flagged("""
        import tensorflow as tf

        policy = tf.keras.Sequential([tf.keras.layers.Dense(2)])
        state = tf.ones([1, 4])
        memory = []
        for episode in range(2):
            with tf.GradientTape() as tape:
                for t in range(3):
                    memory.append(policy(state))
            loss = -tf.reduce_mean(tf.stack(memory))
            grads = tape.gradient(loss, policy.trainable_variables)
            memory.clear()
    """, "TAPE005") == [("TAPE005", 10)]


def test_item_of_a_layer_set_in_the_block() -> None:
    assert flagged("""
        import tensorflow as tf
        import tf_keras

        main_network = tf_keras.Sequential([tf_keras.Input((3,)), tf_keras.layers.Dense(1, use_bias=False)])
        hypernetwork = tf_keras.Sequential([tf_keras.Input((3,)), tf_keras.layers.Dense(3)])
        x = tf.ones((1, 3))
        with tf.GradientTape() as tape:
            main_network.layers[0].kernel = tf.reshape(hypernetwork(x), (3, 1))
        loss = tf.reduce_sum(main_network(x))
        grads = tape.gradient(loss, hypernetwork.trainable_weights)
    """, "TAPE005") == [("TAPE005", 9)]


def test_object_state_set_before_the_block_or_from_plain_names_is_silent() -> None:
    # Filled before the block; stored from a name made before the block: nothing the block recorded.
    assert flagged("""
        import tensorflow as tf

        w = tf.Variable(1.0)
        parts = []
        parts.append(w * 2.0)
        with tf.GradientTape() as tape:
            y = w * 3.0
        total = tf.add_n(parts)
        grads = tape.gradient(y, w)
    """, "TAPE005") == []
