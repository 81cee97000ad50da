"""Programs the probe runs in the tests, shaped like the seed reports."""

from __future__ import annotations

import json
import textwrap


def dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


# Seed 000: the nested tape rebinds the outer one. Seed 001: a variable created inside a
# tf.function. Plus a training loop that passes a Python float (retracing).
SEEDS = dedent('''
    import tensorflow as tf

    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x * x * x
        with tf.GradientTape() as tape:
            dy = tape.gradient(y, x)

    @tf.function
    def train_step(x, epsilon):
        return x * epsilon

    epsilon = 1.0
    for episode in range(6):
        train_step(tf.constant(1.0), epsilon)
        epsilon = epsilon * 0.9

    @tf.function
    def scale(x):
        v = tf.Variable(2.0)
        return v * x

    scale(tf.constant(3.0))
''')
SEEDS_LINES = {"TAPE001": 7, "FUNC009": 16, "FUNC001": 21}

# Seed 004 on TensorFlow 2.21: map_fn under a tape in TF1 graph mode. With control flow v2
# switched back on in a way static analysis cannot see, the gradient exists: MAP001 is refuted.
MAP_FN_CFV2 = dedent('''
    import tensorflow as tf

    tf.compat.v1.disable_v2_behavior()
    getattr(tf.compat.v1, "enable_control_flow_v2")()

    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.map_fn(lambda a: a ** 2, x)
    g = tape.gradient(y, x)
''')
# The same without control flow v2: the gradient really is None, MAP001 is confirmed.
MAP_FN_CFV1 = MAP_FN_CFV2.replace('getattr(tf.compat.v1, "enable_control_flow_v2")()\n', "\n")
MAP_FN_LINE = 9

# Seed 003 in plain TensorFlow: a variable passed to a tf.function, with and without an
# input_signature that turns it into a tensor.
VARIABLE_ARGUMENT = dedent('''
    import tensorflow as tf

    noise = tf.Variable(0.1, name="noise")

    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def loss_with_signature(v):
        return v * v

    @tf.function
    def loss_without_signature(v):
        return v * v

    with tf.GradientTape() as tape:
        loss = loss_with_signature(noise)
    grad_with = tape.gradient(loss, noise)

    with tf.GradientTape() as tape:
        loss = loss_without_signature(noise)
    grad_without = tape.gradient(loss, noise)
''')
WITH_SIGNATURE_GRADIENT_LINE = 15
WITHOUT_SIGNATURE_GRADIENT_LINE = 19


def notebook(*cells: str) -> str:
    return json.dumps({
        "nbformat": 4, "nbformat_minor": 5, "metadata": {},
        "cells": [{"cell_type": "markdown", "metadata": {}, "source": "# probe test"}] + [
            {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": dedent(c)}
            for c in cells],
    })


NOTEBOOK_CELLS = (
    """
    import tensorflow as tf
    x = tf.constant(3.0)
    """,
    """
    %time z = 1
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        with tf.GradientTape() as tape:
            dy = tape.gradient(y, x)
    """,
    """
    def weird_loss(v):
        return tf.constant(v.numpy() * 2.0)

    losses = {"weird": weird_loss}
    w = tf.Variable(1.0)
    with tf.GradientTape() as t2:
        loss = losses["weird"](w)
    g = t2.gradient(loss, w)
    """,
)
