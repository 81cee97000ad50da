"""A small fixed sample of the bug injector (bench/inject): mutations and one TensorFlow proof.

The benchmark itself (thousands of mutants) runs outside the test suite; see bench/inject/README.md.
"""
from __future__ import annotations

import ast
import difflib
import os
import sys
from pathlib import Path

import pytest

INJECT = Path(__file__).resolve().parents[2] / "bench" / "inject"
os.environ.setdefault("TAPELSP_INJECT_PYTHON", sys.executable)
sys.path.insert(0, str(INJECT))

import confirm  # noqa: E402
import inject  # noqa: E402
import operators  # noqa: E402
import sources  # noqa: E402


def _program(name: str) -> sources.Program:
    prog = sources._load_dir_program(INJECT / "programs" / name, "own", "own/" + name)
    assert prog is not None, name
    return prog


def _mutation(prog: sources.Program, op: str, rel: str | None = None) -> operators.Mutation:
    rel = rel or prog.modules()[0]
    found = [m for m in operators.mutations(rel, prog.module_text(rel), prog.kind) if m.op == op]
    assert found, f"{op} made no mutant of {prog.name}"
    return found[0]


def _changed(old: str, new: str) -> tuple[list[str], list[str]]:
    removed, added = [], []
    for line in difflib.ndiff(old.splitlines(), new.splitlines()):
        if line.startswith("- "):
            removed.append(line[2:])
        elif line.startswith("+ "):
            added.append(line[2:])
    return removed, added


def test_loss_moved_after_the_block():
    prog = _program("linear_regression_sgd.py")
    m = _mutation(prog, "loss-after-block")
    ast.parse(m.text)
    lines = m.text.splitlines()
    # The loss now follows the `with` block, at the block's own indentation; nothing else moved.
    assert lines[m.root - 1] == "        loss = tf.reduce_mean(tf.square(pred - y))"
    assert lines[m.root - 3].strip() == "with tf.GradientTape() as tape:"
    assert lines[m.root].strip() == "dw, db = tape.gradient(loss, [w, b])"
    removed, added = _changed(prog.module_text(m.rel), m.text)
    assert removed == ["            loss = tf.reduce_mean(tf.square(pred - y))"]
    assert added == ["        loss = tf.reduce_mean(tf.square(pred - y))"]
    assert (m.family, m.context, m.oracle["kind"]) == ("tape-outside", "function", "none-grad")


def test_variable_made_constant_points_at_the_gradient_call():
    prog = _program("linear_regression_sgd.py")
    m = _mutation(prog, "variable-to-constant")
    removed, added = _changed(prog.module_text(m.rel), m.text)
    assert removed == ["    w = tf.Variable(0.0)"] and added == ["    w = tf.constant(0.0)"]
    lines = m.text.splitlines()
    assert lines[m.root - 1].strip() == "dw, db = tape.gradient(loss, [w, b])"
    assert [lines[a - 1].strip() for a in m.alt] == ["w = tf.constant(0.0)"]


def test_assign_sub_rebound():
    prog = _program("linear_regression_sgd.py")
    m = _mutation(prog, "rebind")
    removed, added = _changed(prog.module_text(m.rel), m.text)
    assert removed == ["        w.assign_sub(lr * dw)"] and added == ["        w = w - (lr * dw)"]
    assert m.text.splitlines()[m.root - 1] == "        w = w - (lr * dw)"


def test_autograph_disabled_and_python_float():
    prog = _program("autograph_clip.py")
    off = _mutation(prog, "autograph-off")
    removed, added = _changed(prog.module_text(off.rel), off.text)
    assert removed == ["@tf.function"] and added == ["@tf.function(autograph=False)"]
    assert off.text.splitlines()[off.root - 1].strip() == "if norm > max_norm:"
    scalar = _mutation(prog, "python-float-arg")
    removed, added = _changed(prog.module_text(scalar.rel), scalar.text)
    assert added == ["def clipped_step(x, y, max_norm, decay=1.0):",
                     "    loss = clipped_step(x, y, tf.constant(1.0), decay=0.99 ** step)"]
    assert scalar.text.splitlines()[scalar.root - 1].strip().startswith("loss = clipped_step(")
    assert scalar.oracle == {"kind": "retrace"}


def test_notebook_mutant_maps_to_its_cell():
    prog = _program("nb_linear_regression.ipynb")
    m = _mutation(prog, "loss-after-block")
    mutant = prog.with_module(m.rel, m.text)
    # Splitting the mutated module back into cells and joining it again gives the same text,
    # and the markdown cells are still there.
    assert mutant.module_text(m.rel) == m.text
    cell, row = mutant.cell_line(m.rel, m.root)
    nb_cells = __import__("json").loads(mutant.files[m.rel])["cells"]
    assert nb_cells[cell - 1]["cell_type"] == "code"
    assert "".join(nb_cells[cell - 1]["source"]).splitlines()[row - 1] == "    loss = tf.reduce_mean(tf.square(pred - y))"
    assert [c["cell_type"] for c in nb_cells].count("markdown") == 2
    assert m.context == "notebook"


@pytest.mark.tensorflow
def test_tensorflow_confirms_the_mutant_and_not_the_original():
    from tfrun import Runner

    prog = _program("linear_regression_sgd.py")
    m = _mutation(prog, "loss-after-block")
    mt = inject.Mutant(prog, m, prog.with_module(m.rel, m.text))
    runner = Runner(cache=None)
    try:
        orig = runner.run(prog.job("graph"))
        mut = runner.run(mt.job("graph"))
    finally:
        runner.stop()
    assert orig["final"] is None and orig["exit"] == 0
    grad_line = f"{m.rel}:{prog.module_text(m.rel).splitlines().index('        dw, db = tape.gradient(loss, [w, b])') + 1}"
    assert orig["grads"][grad_line] == [40, 0, 0]  # 40 steps, no None
    v = confirm.verdict(prog, m, orig, mut)
    assert v["confirmed"], v
    # The mutant's own run fails on the None gradient (lr * None) after recording it.
    assert mut["final"][1] == "TypeError"
    # The original compared with itself shows no symptom: the check is not vacuous.
    same = operators.Mutation(m.op, m.family, m.rel, prog.module_text(m.rel), m.root, m.alt, m.oracle)
    assert not confirm.verdict(prog, same, orig, orig)["confirmed"]
