"""FUNC017's reach: the instance must be of the tf.function's class, and odd scopes do not crash it."""

from __future__ import annotations

import inspect

import tapelsp
from tapelsp import Settings


def flagged(source: str) -> list[tuple[str, int]]:
    found = tapelsp.check_source(inspect.cleandoc(source) + "\n", "t.py", Settings(select=("FUNC017", "TL004")))
    return sorted((v.code, v.range.start.line + 1) for v in found)


def test_an_attribute_of_another_class_is_not_the_tf_function_s_state() -> None:
    source = """
        import tensorflow as tf

        class Trainer:
            def __init__(self):
                self.max_len = 2

            @tf.function
            def crop(self, seqs):
                return tf.shape(seqs[:, : self.max_len])[1]

        class Config:
            def __init__(self):
                self.max_len = 2

            def crop(self, seqs):
                return seqs

        trainer, config = Trainer(), Config()
        for level in range(3):
            config.max_len = level
            config.crop(tf.zeros([2, 16]))
            trainer.crop(tf.zeros([2, 16]))
    """
    assert flagged(source) == []
    assert flagged(source.replace("config.max_len = level", "trainer.max_len = level")) == [("FUNC017", 9)]


def test_lambda_scopes_next_to_a_tf_function() -> None:
    """A lambda's body is an expression, not a list of statements (an internal error in the scan)."""
    source = """
        import tensorflow as tf

        CONFIG = {"k": 1}
        scale = lambda x: x * CONFIG["k"]

        @tf.function
        def f(x):
            return x * CONFIG["k"]

        f(1.0)
        CONFIG["k"] = 2
        f(1.0)
    """
    assert flagged(source) == [("FUNC017", 8)]


def _notebook(*cells: str) -> dict:
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
            "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                       "source": inspect.cleandoc(cell) + "\n"} for cell in cells]}


_MODEL_CELL = """
    import tensorflow as tf

    class SimpleModel(tf.Module):
        def __init__(self):
            self.bias = 0.
            self.weight = 2.

    @tf.function
    def evaluate(model, x):
        return model.weight * x + model.bias

    simple_model = SimpleModel()
    x = tf.constant(10.)
    print(evaluate(simple_model, x))
"""


def test_a_change_in_a_later_notebook_cell_is_reported_where_it_is_made() -> None:
    # TF 2.21 (tensorflow/docs' function guide, cells 112-113): the second call prints 20.0
    # again; the cell that changes the attribute is the one that goes wrong.
    from tapelsp.notebook import check_notebook

    found = check_notebook(_notebook(_MODEL_CELL, """
        simple_model.bias += 5.0
        print(evaluate(simple_model, x))
    """), "guide.ipynb", Settings(select=("FUNC017",)))
    assert [(v.cell, v.range.start.line + 1) for v in found] == [(2, 1)]
    assert "`simple_model.bias`, which `evaluate` reads as `model.bias` (line 10 of cell 1)" in found[0].message


def test_a_change_in_the_same_notebook_cell_is_reported_at_the_read() -> None:
    from tapelsp.notebook import check_notebook

    cell = inspect.cleandoc(_MODEL_CELL) + "\nsimple_model.bias += 5.0\nprint(evaluate(simple_model, x))\n"
    found = check_notebook(_notebook(cell), "guide.ipynb", Settings(select=("FUNC017",)))
    assert [(v.cell, v.range.start.line + 1) for v in found] == [(1, 10)]
