"""TAPE016 in a project of several modules: a function of one module that another module calls
eagerly (`from fit import fit`, then `fit(...)` in the `main()` it runs)."""

from __future__ import annotations

import inspect
from pathlib import Path

import tapelsp
from tapelsp import Settings
from tapelsp.project import Project

FIT = """
    import tensorflow as tf

    def fit(model, x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((model(x) - y) ** 2)
        return tf.gradients(loss, model.trainable_variables)
"""

MAIN = """
    import numpy as np
    import tensorflow as tf
    from fit import fit

    def main():
        model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
        x = np.ones((4, 3), np.float32)
        return fit(model, x, x[:, :1])

    if __name__ == "__main__":
        main()
"""


def _lines(tmp_path: Path, main: str) -> list[int]:
    for name, text in (("fit.py", FIT), ("main.py", main)):
        (tmp_path / name).write_text(inspect.cleandoc(text) + "\n", encoding="utf-8")
    path = tmp_path / "fit.py"
    found = tapelsp.check_source(path.read_text(), str(path), Settings(tensorflow_version="2.21", select=("TAPE016",)),
                                 project=Project(str(tmp_path)))
    return [v.range.start.line + 1 for v in found]


def test_called_eagerly_from_another_module(tmp_path: Path) -> None:
    assert _lines(tmp_path, MAIN) == [6]


def test_traced_in_the_other_module_is_silent(tmp_path: Path) -> None:
    assert _lines(tmp_path, MAIN.replace("return fit(model", "return tf.function(fit)(model")) == []


def test_called_from_a_function_nothing_runs_is_silent(tmp_path: Path) -> None:
    assert _lines(tmp_path, MAIN.replace('if __name__ == "__main__":\n        main()', "")) == []


def test_called_inside_a_tf_function_is_silent(tmp_path: Path) -> None:
    assert _lines(tmp_path, MAIN.replace("    def main():", "    @tf.function\n    def main():")) == []
