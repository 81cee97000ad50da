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
