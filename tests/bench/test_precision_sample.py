"""A fixed sample of the precision benchmark (bench/precision/): the verdict file is sound, and
small programs of each false-positive class removed for it stay silent while the true
patterns next to them are still reported. The programs are this project's own few lines,
written after patterns met in the scanned trees; the runtime proofs of the same classes are
the rules' valid examples (tests/runtime)."""

from __future__ import annotations

import json
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest

import tapelsp

BENCH = Path(__file__).resolve().parents[2] / "bench" / "precision"
sys.path.insert(0, str(BENCH))
import scan  # noqa: E402
import trees  # noqa: E402


def codes(source: str) -> list[tuple[str, int]]:
    return sorted((v.code, v.range.start.line + 1) for v in tapelsp.check_source(textwrap.dedent(source), "t.py"))


def test_verdicts_parse_and_have_no_duplicates() -> None:
    verdicts = scan.load_verdicts()
    assert len(verdicts) > 400
    keys = Counter((v["repo"], v["path"], v["cell"], v["line"], v["code"], v["fp"], v.get("nth", 0))
                   for v in verdicts)
    assert [k for k, n in keys.items() if n > 1] == []
    known = {r.name for r in trees.load()}
    assert {v["repo"] for v in verdicts} <= known
    assert all(v["reason"].strip() and len(v["fp"]) == 10 for v in verdicts)
    assert all(not v.get("open") or v["verdict"] == "false" for v in verdicts)


def test_matching_survives_moved_lines_and_pairs_each_verdict_once() -> None:
    verdict = {"repo": "r", "path": "a.py", "cell": None, "line": 10, "code": "FUNC007",
               "fp": scan.fingerprint("    print('x')"), "verdict": "false", "reason": "why"}
    twin = dict(verdict, line=30)
    moved = [{"repo": "r", "path": "a.py", "cell": None, "line": line, "code": "FUNC007",
              "fp": scan.fingerprint("print( 'x' )")} for line in (14, 33, 50)]
    pairs, left = scan.match(moved, [verdict, twin])
    assert [(f["line"], v and v["line"]) for f, v in pairs] == [(14, 10), (33, 30), (50, None)]
    assert left == []


def test_repos_are_pinned() -> None:
    repos = trees.load()
    assert len(repos) >= 15
    for repo in repos:
        assert repo.source.startswith(("github:", "pypi:")) and repo.commit, repo


FIXED_CLASSES = {
    "FUNC011 name bound to a new tf.function": """
        import tensorflow as tf
        scale = 1.0
        @tf.function
        def step(x):
            return x * scale
        step(tf.constant(1.0))
        scale = 2.0
        @tf.function
        def step(x):
            return x * scale
        step(tf.constant(1.0))
    """,
    "FUNC011 rebound after the last call": """
        import tensorflow as tf
        rate = 0.1
        @tf.function
        def step(x):
            return x * rate
        step(tf.constant(1.0))
        rate = 0.2
    """,
    "FUNC007 trace markers and init_scope": """
        import tensorflow as tf
        traces = 0
        @tf.function
        def step(x):
            global traces
            traces += 1
            print("Tracing with", x)
            with tf.init_scope():
                print("once per trace")
            return x
    """,
    "FUNC008 numpy_function callback": """
        import numpy as np
        import tensorflow as tf
        @tf.function
        def jitter(x):
            def noisy(v):
                return v * np.random.random()
            return tf.numpy_function(noisy, [x], tf.float32)
    """,
    "OPT002 graph code": """
        import tensorflow as tf
        with tf.Graph().as_default():
            w = tf.compat.v1.get_variable("w", initializer=2.0)
            loss = tf.square(w)
            train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss)
    """,
}


@pytest.mark.parametrize("name", sorted(FIXED_CLASSES))
def test_fixed_false_positive_class_stays_silent(name: str) -> None:
    assert codes(FIXED_CLASSES[name]) == []


def test_the_true_patterns_next_to_them_are_still_reported() -> None:
    found = codes("""
        import numpy as np
        import tensorflow as tf
        scale = 1.0
        @tf.function
        def step(x):
            print("loss", x)
            return x * scale * np.random.random()
        step(tf.constant(1.0))
        scale = 2.0
        step(tf.constant(1.0))
    """)
    assert {code for code, _ in found} >= {"FUNC007", "FUNC008", "FUNC011"}, found


def test_notebook_lines_ipython_accepts() -> None:
    cells = ["pip install datasets", "import tensorflow as tf\nprint(\n    'n=%d'\n    % (3,)\n)",
             "pip install a\npip install b"]
    notebook = {"cells": [{"cell_type": "code", "source": c, "metadata": {}, "outputs": []} for c in cells],
                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    found = {v.cell for v in tapelsp.check_notebook(json.dumps(notebook)) if v.code == "TL001"}
    assert found == {3}  # IPython applies automagic to one-line cells only
