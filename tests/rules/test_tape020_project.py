"""TAPE020 in a project of several modules: a training function reads `model.trainable_variables`
before the first call, and every call of it, in another module, passes a model made right there
by a builder of a third module, a Sequential of layers only."""

from __future__ import annotations

import inspect
from pathlib import Path

import tapelsp
from tapelsp import Settings
from tapelsp.project import Project

TRAIN = """
    import tensorflow as tf

    def train(net, x, y, steps=5):
        weights = net.trainable_variables
        for _ in range(steps):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean((net(x) - y) ** 2)
            grads = tape.gradient(loss, weights)
        return weights
"""

BUILDERS = """
    import tensorflow as tf

    def tower(widths=(16, 8)):
        blocks = [tf.keras.layers.Dense(w, activation="tanh") for w in widths]
        blocks.append(tf.keras.layers.Dense(1))
        return tf.keras.Sequential(blocks)

    def shaped_tower():
        return tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
"""

RUN = """
    import numpy as np
    from builders import {builder}
    from train import train

    def run():
        x = np.ones((8, 2), np.float32)
        return train({builder}(), x, x[:, :1])
"""


def _lines(tmp_path: Path, builder: str) -> list[int]:
    for name, text in (("train.py", TRAIN), ("builders.py", BUILDERS), ("run.py", RUN.format(builder=builder))):
        (tmp_path / name).write_text(inspect.cleandoc(text) + "\n", encoding="utf-8")
    path = tmp_path / "train.py"
    found = tapelsp.check_source(path.read_text(encoding="utf-8"), str(path), Settings(select=("TAPE020",)),
                                 project=Project(str(tmp_path)))
    return [v.range.start.line + 1 for v in found]


def test_a_model_every_caller_makes_unbuilt_in_another_module(tmp_path: Path) -> None:
    assert _lines(tmp_path, "tower") == [4]


def test_a_model_made_with_its_input_shape_is_left_alone(tmp_path: Path) -> None:
    assert _lines(tmp_path, "shaped_tower") == []
