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


# The rules these tests are about. The catalogue keeps growing and several rules may see
# the same bug from different sides, so CLI tests pin the selection: a configuration with
# PINNED_CONFIG is written at the root of every tree that does not bring its own.
PINNED = ("TAPE001", "FUNC001", "MAP002")
PINNED_SELECT = ",".join(PINNED)
PINNED_CONFIG = "[tool.tapelsp]\nselect = [" + ", ".join(f'"{code}"' for code in PINNED) + "]\n"


def write_tree(root: Path, files: dict[str, str | bytes], *, pin: bool = True) -> Path:
    """Write `files` under `root`; without a root pyproject.toml, one pinning the rules is added."""
    if pin and "pyproject.toml" not in files and not (root / "pyproject.toml").exists():
        (root / "pyproject.toml").write_text(PINNED_CONFIG, encoding="utf-8")
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
