"""Small Python sources with one known finding each, and a tree writer."""

from __future__ import annotations

from pathlib import Path

TAPE = """\
import tensorflow as tf

x = tf.constant(3.0)
with tf.GradientTape() as tape:
    tape.watch(x)
    y = x * x
    with tf.GradientTape() as tape:
        dy = tape.gradient(y, x)
"""
TAPE_AT = "7:10: TAPE001"

FUNC = """\
import tensorflow as tf


@tf.function
def step(batch):
    scale = tf.Variable(2.0)
    return batch * scale
"""
FUNC_AT = "6:13: FUNC001"

MAP = """\
import tensorflow as tf


def act(values):
    return tf.map_fn(lambda v: tf.nn.relu(v), values)
"""
MAP_AT = "5:12: MAP002"

CLEAN = """\
import tensorflow as tf


def act(values):
    return tf.nn.relu(values)
"""

ALL_THREE = TAPE + "\n\n" + FUNC.split("\n", 1)[1] + "\n\n" + MAP.split("\n", 1)[1]


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8", newline="")
    return root


def codes(text_output: str) -> list[str]:
    """`path:row:col: CODE` heads of text output lines (without the messages and summary)."""
    heads = []
    for line in text_output.splitlines():
        if line.startswith(("Found ", "All checks passed", "[*] ")):
            continue
        path, rest = line.split(": ", 1)
        heads.append(f"{path}: {rest.split(' ', 1)[0]}")
    return heads
