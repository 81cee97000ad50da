"""The GradientTape fixes (issue 5 point 3) on real code: tf_keras, keras, TensorFlow Probability and
the TensorFlow sources that bench/corpus.py installs under .cache/bench.

Those sources have no tape bug of ours, so bugs are planted in their `with ... GradientTape() as t:`
blocks, in their own formatting, and the fixes must undo them:

- TAPE005: the last statement of a block, `loss = ...` that a `t.gradient(loss, ...)` right after the
  block differentiates, is moved out of the block. Fixing gives back the original text exactly.
- TAPE010: a `t.watch(x)` opening a block is removed. Fixing gives back the original text exactly.
- TAPE002: the gradient call after the block is made twice. Fixing makes the tape persistent and
  deletes it after the second call.

Every mutated file must also keep the fix properties (tests/fixes/properties.py). Files over
MAX_LINES lines (keras' 12,000-line numpy_test.py) run only with TAPELSP_FIX_CORPUS=all.
"""

from __future__ import annotations

import ast
import glob
import os
from pathlib import Path

import pytest
from tapelsp import Settings, check_source

from .properties import check_fix_properties

REPO = Path(__file__).resolve().parents[2]
CODES = ("TAPE002", "TAPE003", "TAPE004", "TAPE005", "TAPE007", "TAPE008", "TAPE010", "TAPE011", "TAPE012")
SETTINGS = Settings(tensorflow_version="2.21", select=CODES)
MAX_LINES = 3_000


def _roots() -> list[Path]:
    roots = []
    for site in sorted(glob.glob(str(REPO / ".cache" / "bench" / "venv" / "lib" / "python3*" / "site-packages"))):
        roots += [Path(site) / name for name in ("tf_keras", "keras", "tensorflow_probability")]
    roots.append(REPO / ".cache" / "bench" / "sources")
    return [root for root in roots if root.is_dir()]


def _files() -> list[Path]:
    found = []
    everything = os.environ.get("TAPELSP_FIX_CORPUS", "") == "all"
    for root in _roots():
        for path in sorted(root.rglob("*.py")):
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            if "GradientTape" in text and (everything or text.count("\n") <= MAX_LINES):
                found.append(path)
    return found


FILES = _files()


def _tape_blocks(tree: ast.AST):
    """(statement list, index, with, tape name) for every `with ...GradientTape(...) as name:`."""
    for node in ast.walk(tree):
        for field_name in ("body", "orelse", "finalbody"):
            body = getattr(node, field_name, None)
            if not isinstance(body, list):
                continue
            for index, stmt in enumerate(body):
                if not isinstance(stmt, ast.With) or len(stmt.items) != 1:
                    continue
                item = stmt.items[0]
                call = item.context_expr
                if isinstance(call, ast.Call) and isinstance(call.func, (ast.Attribute, ast.Name)) \
                        and getattr(call.func, "attr", getattr(call.func, "id", "")) == "GradientTape" \
                        and isinstance(item.optional_vars, ast.Name) and stmt.body[0].lineno > stmt.lineno:
                    yield body, index, stmt, item.optional_vars.id


def _gradient_of(stmt: ast.stmt, tape: str) -> ast.Call | None:
    for node in ast.walk(stmt):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "gradient" \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == tape:
            return node
    return None


def _indent(line: str) -> str:
    return line[:len(line) - len(line.lstrip(" \t"))]


def dedent_loss(text: str) -> list[str]:
    """Mutants with the last statement of a tape block (the target of the gradient call right
    after the block) moved out of the block."""
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    mutants = []
    for body, index, with_node, tape in _tape_blocks(tree):
        last = with_node.body[-1]
        if len(with_node.body) < 2 or not isinstance(last, ast.Assign) or last.lineno != last.end_lineno \
                or len(last.targets) != 1 or not isinstance(last.targets[0], ast.Name):
            continue
        if index + 1 >= len(body) or (with_node.end_lineno or 0) != last.end_lineno:
            continue
        call = _gradient_of(body[index + 1], tape)
        if call is None or not call.args or not isinstance(call.args[0], ast.Name) \
                or call.args[0].id != last.targets[0].id:
            continue
        if lines[last.lineno - 2].strip().startswith("#"):
            continue  # a comment above it would go with it
        moved = _indent(lines[with_node.lineno - 1]) + lines[last.lineno - 1].lstrip(" \t")
        mutant = lines[:last.lineno - 1] + [moved] + lines[last.lineno:]
        mutants.append("".join(mutant))
    return mutants


def drop_watch(text: str) -> list[str]:
    """Mutants without the `tape.watch(x)` (of a plain name) that opens a tape block."""
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    mutants = []
    for _body, _index, with_node, tape in _tape_blocks(tree):
        first = with_node.body[0]
        if len(with_node.body) < 2 or not isinstance(first, ast.Expr) or first.lineno != first.end_lineno:
            continue
        call = first.value
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "watch"
                and isinstance(call.func.value, ast.Name) and call.func.value.id == tape
                and len(call.args) == 1 and isinstance(call.args[0], ast.Name)):
            continue
        mutants.append("".join(lines[:first.lineno - 1] + lines[first.lineno:]))
    return mutants


def repeat_gradient(text: str) -> list[str]:
    """Mutants where the `g = tape.gradient(...)` after a non-persistent tape's block is made twice."""
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    mutants = []
    for body, index, with_node, tape in _tape_blocks(tree):
        call = with_node.items[0].context_expr
        if call.args or call.keywords or index + 1 >= len(body):  # type: ignore[attr-defined]
            continue
        after = body[index + 1]
        if not isinstance(after, ast.Assign) or after.lineno != after.end_lineno or _gradient_of(after, tape) is None:
            continue
        line = lines[after.lineno - 1]
        mutants.append("".join(lines[:after.lineno] + [line] + lines[after.lineno:]))
    return mutants


def _mutants(kind) -> list[tuple[Path, str, str]]:
    out = []
    for path in FILES:
        text = path.read_text(encoding="utf-8", errors="replace")
        try:
            out += [(path, text, mutant) for mutant in kind(text)]
        except SyntaxError:
            continue
    return out


def _fixed(mutant: str, path: Path, code: str) -> str | None:
    """The mutant fixed, or None when the planted bug is not reported (the rule stays silent
    where it cannot be sure: that is its precision, not the fix's business)."""
    found = [v for v in check_source(mutant, str(path), SETTINGS, fixes=True) if v.code == code]
    if not found:
        return None
    assert all(v.fix_error is None for v in found), [v.fix_error for v in found]
    return check_fix_properties(mutant, str(path), SETTINGS, unsafe=True).text


pytestmark = pytest.mark.skipif(not FILES, reason="no corpus under .cache/bench (python bench/corpus.py)")


def test_a_loss_moved_out_of_the_block_is_moved_back() -> None:
    restored = 0
    for path, original, mutant in _mutants(dedent_loss):
        fixed = _fixed(mutant, path, "TAPE005")
        if fixed is not None:
            assert fixed == original, path
            restored += 1
    assert restored >= 3, restored


def test_a_dropped_watch_is_put_back() -> None:
    restored = 0
    for path, original, mutant in _mutants(drop_watch):
        fixed = _fixed(mutant, path, "TAPE010")
        if fixed is not None:
            assert fixed == original, path
            restored += 1
    if not restored:
        # The corpora watch function parameters, whose kind TAPE010 cannot know: it stays silent.
        pytest.skip("no dropped watch is reported in these corpora")


def test_a_repeated_gradient_call_gets_a_persistent_tape() -> None:
    fixed_count = 0
    for path, _original, mutant in _mutants(repeat_gradient):
        fixed = _fixed(mutant, path, "TAPE002")
        if fixed is not None:
            assert "persistent=True" in fixed
            assert not [v for v in check_source(fixed, str(path), SETTINGS) if v.code == "TAPE002"]
            fixed_count += 1
    assert fixed_count >= 3, fixed_count


def test_mutations_on_a_small_file() -> None:
    text = (
        "import tensorflow as tf\n"
        "\n"
        "def step(model, x, w):\n"
        "    with tf.GradientTape() as tape:\n"
        "        tape.watch(x)\n"
        "        pred = model(x) * w\n"
        "        loss = tf.reduce_sum(pred)\n"
        "    grads = tape.gradient(loss, [w, x])\n"
        "    return grads\n"
    )
    assert dedent_loss(text) == [text.replace("        loss = tf.reduce_sum(pred)\n    grads",
                                              "    loss = tf.reduce_sum(pred)\n    grads")]
    assert drop_watch(text) == [text.replace("        tape.watch(x)\n", "")]
    assert repeat_gradient(text) == [text.replace("    grads = tape.gradient(loss, [w, x])\n",
                                                  "    grads = tape.gradient(loss, [w, x])\n" * 2)]
