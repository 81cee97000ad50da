"""Rule bugs found while building the test suite, waiting for their rule's owner.

Each entry is a snippet, the lines its rule should flag, and how TensorFlow shows the
problem. tests/engine/test_known_rule_bugs.py asserts the rule flags the snippet (strict
xfail until it is fixed: an XPASS fails, so the entry is then moved into the rule's own
examples and deleted here); tests/runtime/test_known_bug_symptoms.py runs the snippet under
real TensorFlow to prove the bug report is right.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class KnownBug:
    id: str
    code: str
    lines: tuple[int, ...]
    source: str
    reason: str
    check: str = ""
    raises: tuple[str, str] | None = None


KNOWN_BUGS = [
    KnownBug(
        id="TAPE001-source-watched-by-the-outer-tape-only",
        code="TAPE001",
        lines=(6,),
        source='''\
import tensorflow as tf

x = tf.constant(1.0)
with tf.GradientTape() as tape:
    tape.watch(x)
    with tf.GradientTape() as tape:
        y = x * x
    g = tape.gradient(y, x)
''',
        reason=("TAPE001 accepts a gradient whose target was computed inside the inner block, but the "
                "source `x` was watched by the outer tape only: the inner tape returns None"),
        check="assert g is None\n",
    ),
    KnownBug(
        id="FUNC001-boolean-argument-is-not-a-first-call-guard",
        code="FUNC001",
        lines=(6,),
        source='''\
import tensorflow as tf

@tf.function
def step(x, training):
    if training:
        v = tf.Variable(2.0)
        return v * x
    return x

step(tf.constant(1.0), True)
''',
        reason=("FUNC001 takes any `if name:` / `if obj.attr:` for a first-call guard, so a variable "
                "created under `if training:` is not flagged; TensorFlow raises on the first call"),
        raises=("ValueError", "tf.function only supports singleton tf.Variables created on the first call"),
    ),
]
