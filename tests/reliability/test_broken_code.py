"""Broken code never crashes the engine, and findings outside the broken block survive (issue 11, point 2).

Real sources: a fixed sample of tf_keras and tensorflow_probability files (bench/corpus.py puts
them under .cache/bench; tf_keras is also found in /tmp/tfvenv), each damaged by every edit of
tests/reliability/damage.py (deleted line, cut token, unbalanced bracket, bad indentation, NUL,
truncation). Generated sources: mixes of the rules' examples, which have many findings to
lose, damaged the same way. Files with NUL or non-UTF-8 bytes read from disk become one TL002
finding, never an exception.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tapelsp import Settings, check_source
from tapelsp.files import check_path

from .damage import EDITS, Damaged, check_damage, corpus_files
from .programs import example_mixes

SAMPLE = 12
MAX_CHARS = 40_000


def _sample() -> list:
    files = [p for p in corpus_files() if 2_000 < p.stat().st_size < MAX_CHARS]
    if not files:
        return []
    rng = random.Random(20240611)
    keras = [p for p in files if "tf_keras" in p.parts]
    tfp = [p for p in files if "tensorflow_probability" in p.parts]
    tapes = [p for p in files if "GradientTape" in p.read_text(encoding="utf-8", errors="replace")]
    picked = rng.sample(keras, min(5, len(keras))) + rng.sample(tfp, min(4, len(tfp))) + rng.sample(tapes, min(3, len(tapes)))
    return sorted(set(picked))[:SAMPLE]


FILES = _sample()


@pytest.mark.skipif(not FILES, reason="no tf_keras/tensorflow_probability sources: run bench/corpus.py")
@pytest.mark.parametrize("path", FILES, ids=lambda p: "/".join(p.parts[-2:]))
def test_damaged_real_sources(path):
    text = path.read_text(encoding="utf-8")
    rng = random.Random(path.name)
    tried = 0
    for edit in EDITS:
        for _ in range(2):
            damaged = edit(text, rng)
            if damaged is None:
                continue
            check_damage(text, damaged, str(path))
            tried += 1
    assert tried >= 6


@given(example_mixes(), st.sampled_from(EDITS), st.randoms(use_true_random=False))
def test_damaged_rule_examples(text, edit, rng):
    damaged = edit(text, rng)
    if damaged is not None:
        check_damage(text, damaged, "mix.py")


def test_damage_that_still_parses_is_a_new_program():
    """Found in CI: two copies of one example, the second copy's `@tf.function` deleted. That is
    valid Python with another meaning (the last `penalty()` now calls a plain function), so FUNC011
    rightly goes; only a damage that does not parse must keep the findings outside it."""
    copy = ("w = tf.Variable([1.0, -2.0])\n\n@tf.function\ndef penalty():\n"
            "\treturn tf.constant(np.abs(w).sum())\n\np = penalty()\n")
    text = "import numpy as np\nimport tensorflow as tf\n\n" + copy + "\n\n" + copy
    lines = text.splitlines(keepends=True)
    parses = Damaged("".join(lines[:14] + lines[15:]), 14, 16, -1, "deleted line 15")
    assert check_damage(text, parses, "mix.py") == (0, len(check_source(parses.text, "mix.py", Settings())))
    broken = Damaged("".join(lines[:15] + ["def penalty()\n"] + lines[16:]), 14, 16, 0, "colon cut on line 16")
    expected, _ = check_damage(text, broken, "mix.py")
    assert expected >= 2  # FUNC005 in the first copy, FUNC011 on its read of `w`


def test_typing_a_file_from_top_to_bottom():
    """Every prefix of a file with findings (as if typed in order) checks without crashing, and a
    finding in a function that is complete stays once the next one is being typed."""
    text = (
        "import tensorflow as tf\n\n"
        "@tf.function\n"
        "def step(x):\n"
        "    v = tf.Variable(1.0)\n"
        "    return v * x\n\n"
        "def train(x, w):\n"
        "    with tf.GradientTape() as tape:\n"
        "        with tf.GradientTape() as tape:\n"
        "            y = w * x\n"
        "    return tape.gradient(y, w)\n"
    )
    complete = text.index("def train")
    for cut in range(len(text) + 1):
        found = check_source(text[:cut], "typing.py")
        assert not [v for v in found if v.code == "TL004"], text[:cut]
        if cut >= complete:
            assert any(v.code == "FUNC001" and v.range.start.line == 4 for v in found), text[:cut]


@pytest.mark.parametrize("damage", [b"\x00", b"\xff\xfe", b"\xc3(", b"\x80" * 3])
def test_bad_bytes_in_a_file_are_one_finding(tmp_path, damage):
    source = b"import tensorflow as tf\n\n@tf.function\ndef f(x):\n    v = tf.Variable(1.0)\n    return v * x\n"
    cut = source.index(b"v = ")
    path = tmp_path / "bad.py"
    path.write_bytes(source[:cut] + damage + source[cut:])
    result = check_path(path, Settings())
    assert [v.code for v in result.violations] == ["TL002"], result
    assert result.error is not None


def test_a_nul_character_in_text_keeps_the_other_findings():
    text = "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    v = tf.Variable(1.0)\n    return v * x\n\nx = 1\0\n"
    codes = [v.code for v in check_source(text, "nul.py")]
    assert "TL001" in codes and "FUNC001" in codes
