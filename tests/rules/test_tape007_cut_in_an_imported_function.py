"""TAPE007 in a project of several modules: a loss function of one module turns the prediction
into NumPy (`y_pred.numpy()`), and another module calls it inside its tape and differentiates the
result (dev/pkg_197). The module with the tape reports its call; the module with the loss reports
the `.numpy()` itself, where it is written (under TensorFlow 2.21 every gradient is None and
`apply_gradients` raises "No gradients provided for any variable")."""

from __future__ import annotations

import inspect
from pathlib import Path

import tapelsp
from tapelsp.project import Project

LOSSES = """
    import numpy as np
    import tensorflow as tf

    def soft_dice(y_true, y_pred, eps=1.0):
        p = y_pred.numpy().reshape(len(y_pred), -1)
        t = np.asarray(y_true).reshape(len(y_true), -1)
        inter = (p * t).sum(axis=1)
        return tf.constant(1.0 - ((2 * inter + eps) / (p.sum(axis=1) + t.sum(axis=1) + eps)).mean())
"""

TRAIN = """
    import numpy as np
    import tensorflow as tf
    from losses import soft_dice

    def main():
        model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(4)])
        x = np.ones((2, 4), np.float32)
        with tf.GradientTape() as tape:
            loss = soft_dice(x, model(x))
        return tape.gradient(loss, model.trainable_variables)
"""

EAGER = """
    import numpy as np
    from losses import soft_dice

    def report(y, p):
        return float(soft_dice(y, p))
"""


def found_in_losses(tmp_path: Path, **modules: str) -> list[tuple[str, int]]:
    for name, text in {"losses": LOSSES, **modules}.items():
        (tmp_path / f"{name}.py").write_text(inspect.cleandoc(text) + "\n", encoding="utf-8")
    path = tmp_path / "losses.py"
    found = tapelsp.check_source(path.read_text(), str(path), project=Project(str(tmp_path)))
    return [(v.code, v.range.start.line + 1) for v in found]


def test_the_cut_is_reported_where_it_is_written(tmp_path):
    assert found_in_losses(tmp_path, train=TRAIN) == [("TAPE007", 5)]


def test_silent_when_no_module_differentiates_through_the_function(tmp_path):
    assert found_in_losses(tmp_path, evaluate=EAGER) == []


def test_silent_without_the_project(tmp_path):
    (tmp_path / "losses.py").write_text(inspect.cleandoc(LOSSES) + "\n", encoding="utf-8")
    assert tapelsp.check_source((tmp_path / "losses.py").read_text(), str(tmp_path / "losses.py")) == []


def test_the_module_with_the_tape_still_reports_its_call(tmp_path):
    for name, text in (("losses", LOSSES), ("train", TRAIN)):
        (tmp_path / f"{name}.py").write_text(inspect.cleandoc(text) + "\n", encoding="utf-8")
    path = tmp_path / "train.py"
    found = tapelsp.check_source(path.read_text(), str(path), project=Project(str(tmp_path)))
    assert [(v.code, v.range.start.line + 1) for v in found] == [("TAPE007", 9)]
