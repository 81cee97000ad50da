"""`tapelsp --values FILE[:LINES]`: what the value model says each name holds, for debugging."""

from __future__ import annotations

import json

from .helpers import run_in_process

SOURCE = """\
import numpy as np
import tensorflow as tf

grid = tf.constant(np.linspace(-1.0, 1.0, 21)[:, None], dtype=tf.float32)
steps = tf.reshape(tf.range(0, 10), [-1, 1])
w = tf.Variable(0, trainable=False)
with tf.GradientTape() as tape:
    y = tf.reduce_sum(grid ** 2)
g = tape.gradient(y, grid)
"""


def test_values_of_the_names_on_some_lines(tmp_path):
    (tmp_path / "train.py").write_text(SOURCE)
    outcome = run_in_process(["--values", "train.py:4-6"], cwd=tmp_path)
    assert outcome.code == 0, outcome.err
    lines = outcome.out.splitlines()
    assert lines[0] == ("train.py:4:1: `grid`: tf.Tensor float32, eager, made on line 4 from plain data; "
                        "not watched by `tape`")
    assert lines[1].startswith("train.py:5:1: `steps`: tf.Tensor int32, eager, made on line 5")
    assert lines[2] == "train.py:6:1: `w`: tf.Variable int32, not trainable, made on line 6"
    assert len(lines) == 3  # `np`, `tf` and library functions are not values


def test_values_of_every_line_and_of_a_notebook(tmp_path):
    (tmp_path / "train.py").write_text(SOURCE)
    every = run_in_process(["--values", "train.py"], cwd=tmp_path)
    assert any(line.startswith("train.py:9:1: `g`:") for line in every.out.splitlines())
    notebook = {"cells": [{"cell_type": "code", "source": "import tensorflow as tf\n"},
                          {"cell_type": "markdown", "source": "# x\n"},
                          {"cell_type": "code", "source": "x = tf.range(3)\ny = x * 2.5\n"}],
                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "nb.ipynb").write_text(json.dumps(notebook))
    cells = run_in_process(["--values", "nb.ipynb:2"], cwd=tmp_path)
    assert cells.out.splitlines() == [
        "nb.ipynb[cell 3]:2:1: `y`: unknown",
        "nb.ipynb[cell 3]:2:5: `x`: tf.Tensor int32, eager, made on line 1 of cell 3 from plain data",
    ]


def test_values_of_a_file_that_cannot_be_read_is_a_usage_error(tmp_path):
    outcome = run_in_process(["--values", "missing.py"], cwd=tmp_path)
    assert outcome.code == 2
    assert "missing.py" in outcome.err
