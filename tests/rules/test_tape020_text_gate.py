"""TAPE020's look at the text before any tree walk: is `.trainable_variables` (or
`trainable_weights`, `variables`, `weights`) written after a dot anywhere? It must say yes for
every way Python lets the attribute be written (it only lets the rule skip a file), and it must
cost a `str.find` per occurrence of the words, not a regex search from every dot (which also
backtracked without end on a dot followed by a comment of many `#`)."""

from __future__ import annotations

import pytest

from tapelsp import check_source
from tapelsp.rules.tape.tape020_empty_sources import _read_in_text


@pytest.mark.parametrize("text", [
    "ws = model.trainable_variables\n",
    "ws = model.trainable_weights\n",
    "ws = layer . weights\n",
    "ws = net.\\\n    variables\n",
    "ws = (net.  # the list of the net\n      # more words\n      trainable_variables)\n",
    "ws = net.\tvariables\n",
])
def test_every_way_of_writing_the_attribute_is_seen(text):
    assert _read_in_text(text)


@pytest.mark.parametrize("text", [
    "weights = [1.0, 2.0]\n",
    "x = self.variables_of_the_net\n",
    "x = self.myweights\n",
    "x = self.weights2\n",
    "# the trainable variables\n",
])
def test_the_words_not_after_a_dot_are_not_a_read(text):
    assert not _read_in_text(text)


def test_a_dot_then_a_comment_of_many_hashes_is_answered():
    # The regex this replaces backtracked exponentially here (it never returned in a test run).
    text = "x = y.  " + "# " * 40 + "\nz = 1\n" + "weights = 2\n" * 1000
    assert not _read_in_text(text)


def test_the_rule_still_finds_a_list_kept_before_the_model_is_built():
    source = """\
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
params = model.  \\
    trainable_variables
x = tf.ones((2, 3))
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(model(x))
grads = tape.gradient(loss, params)
"""
    assert [v.code for v in check_source(source, "m.py")] == ["TAPE020"]
