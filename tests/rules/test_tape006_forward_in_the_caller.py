"""TAPE006 across a call: the caller runs the model and hands its output to the function whose
tape asks for the model's variables (reports case 006, from a tensorflow/tensorflow issue: "No
gradients provided for any variable"). Reported on the caller's forward pass; TAPE015 stays
silent for it."""

from __future__ import annotations

from tapelsp import check_source

SOURCE = """\
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])

def train_step(logits, labels):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((logits - labels) ** 2)
    return tape.gradient(loss, model.trainable_variables)

def train(images, labels):
    logits = model(images)
    return train_step(logits, labels)
{more}
"""


def codes(more: str = "") -> list[tuple[str, int]]:
    return [(v.code, v.range.start.line + 1) for v in check_source(SOURCE.format(more=more), "m.py")]


def test_the_forward_pass_in_the_caller_is_reported():
    assert codes() == [("TAPE006", 11)]


def test_not_when_another_caller_hands_in_something_else():
    # `train_step(tf.ones(...), ...)`: not every call hands in the model's output; the target
    # still does not depend on the model: TAPE015 on the gradient call, as without callers.
    assert codes("\ndef warm_up():\n    return train_step(tf.ones((4, 2)), tf.zeros((4, 2)))\n") == [("TAPE015", 8)]


def test_not_when_a_caller_has_a_model_of_its_own_under_that_name():
    assert codes("\ndef other(images, labels, model):\n    logits = model(images)\n"
                 "    return train_step(logits, labels)\n") == [("TAPE015", 8)]
