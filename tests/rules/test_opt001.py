"""OPT001 relies on the GradientTape rules' findings, whatever rules the user selected."""

from __future__ import annotations

import inspect

import tapelsp
from tapelsp import Settings
from tapelsp.rules.optimizer.opt001_apply_broken_gradients import ApplyBrokenGradients

BROKEN = ApplyBrokenGradients.examples[0].source


def codes(source: str, **settings) -> list[tuple[str, int]]:
    found = tapelsp.check_source(source, "t.py", Settings(**settings))
    return sorted((v.code, v.range.start.line + 1) for v in found if v.code in ("OPT001", "TAPE005"))


def test_selected_alone_still_sees_the_tape_finding() -> None:
    assert codes(BROKEN, select=("OPT001",)) == [("OPT001", 11)]


def test_reported_next_to_the_root_cause() -> None:
    assert codes(BROKEN, select=("OPT001", "TAPE005")) == [("OPT001", 11), ("TAPE005", 9)]


def test_grads_and_vars_through_a_name() -> None:
    source = BROKEN.replace(
        "optimizer.apply_gradients(zip(grads, model.trainable_variables))",
        "pairs = list(zip(grads, model.trainable_variables))\noptimizer.apply_gradients(pairs)")
    assert codes(source, select=("OPT001",)) == [("OPT001", 12)]


def test_ambiguous_grads_are_left_alone() -> None:
    source = inspect.cleandoc("""
        import tensorflow as tf

        def step(model, optimizer, x, fresh):
            with tf.GradientTape() as tape:
                pred = model(x)
            loss = tf.reduce_mean(pred)
            grads = tape.gradient(loss, model.trainable_variables)
            if fresh:
                grads = [tf.zeros_like(v) for v in model.trainable_variables]
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
    """) + "\n"
    assert codes(source, select=("OPT001",)) == []


def test_keras3_apply_method() -> None:
    source = BROKEN.replace("optimizer.apply_gradients(zip(grads, model.trainable_variables))",
                            "optimizer.apply(grads, model.trainable_variables)")
    assert codes(source, select=("OPT001",)) == [("OPT001", 11)]
