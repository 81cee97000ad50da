"""`--fix`, `--unsafe-fixes` and `--diff`: what is written, what is printed, the exit codes (as ruff),
and that writing keeps the file's bytes, encoding, line endings and permissions."""

from __future__ import annotations

import json
import os
import stat
import sys

import pytest

from .helpers import run_in_process, run_module
from .sources import FUNC, TAPE, write_tree

# A MAP002 finding that has no fix: MAP002 offers none when a comment sits inside the call
# (its text replacement would drop the comment).
MAP = """\
import tensorflow as tf


def act(values):
    return tf.map_fn(lambda v: tf.nn.relu(v),  # one row at a time
                     values)
"""

TAPE_FIXED = TAPE.replace("    with tf.GradientTape() as tape:\n        dy", "    dy")
FUNC_FIXED = """\
import tensorflow as tf


scale = tf.Variable(2.0)


@tf.function
def step(batch):
    return batch * scale
"""
# A variable whose initializer needs the argument: only an unsafe fix (a first-call guard).
GUARDED = """\
import tensorflow as tf


@tf.function
def step(batch):
    total = tf.Variable(tf.zeros_like(batch))
    return batch + total
"""
GUARDED_FIXED = """\
import tensorflow as tf


total = None


@tf.function
def step(batch):
    global total
    if total is None:
        total = tf.Variable(tf.zeros_like(batch))
    return batch + total
"""


def leftovers(directory) -> list[str]:
    return [name for name in os.listdir(directory) if "tapelsp-fix" in name]


def test_fix_writes_the_safe_fixes_and_exits_0_when_nothing_is_left(tmp_path):
    write_tree(tmp_path, {"t.py": TAPE, "f.py": FUNC})
    outcome = run_in_process(["--check", "--fix", "."], cwd=tmp_path)
    assert (outcome.code, outcome.err) == (0, "")
    assert outcome.out == "Found 2 errors (2 fixed, 0 remaining).\n"
    assert (tmp_path / "t.py").read_text() == TAPE_FIXED
    assert (tmp_path / "f.py").read_text() == FUNC_FIXED
    assert not leftovers(tmp_path)
    again = run_in_process(["--check", "--fix", "."], cwd=tmp_path)
    assert (again.code, again.out) == (0, "All checks passed!\n")


def test_fix_exits_1_with_findings_left_and_lists_them(tmp_path):
    write_tree(tmp_path, {"t.py": TAPE, "m.py": MAP, "g.py": GUARDED})
    outcome = run_in_process(["--check", "--fix", "."], cwd=tmp_path)
    assert outcome.code == 1
    lines = outcome.out.splitlines()
    assert lines[0].startswith("g.py:6:13: FUNC001 tf.Variable")  # unsafe: not applied, not marked
    assert lines[1].startswith("m.py:5:12: MAP002")
    assert lines[2:] == ["Found 3 errors (1 fixed, 2 remaining).",
                         "No fixes available (1 hidden fix can be enabled with --unsafe-fixes)."]
    assert (tmp_path / "g.py").read_text() == GUARDED and (tmp_path / "t.py").read_text() == TAPE_FIXED
    assert (tmp_path / "m.py").read_text() == MAP
    assert run_in_process(["--check", "--fix", ".", "--exit-zero"], cwd=tmp_path).code == 0


def test_unsafe_fixes_are_marked_and_applied_on_request(tmp_path):
    write_tree(tmp_path, {"g.py": GUARDED})
    shown = run_in_process(["--check", "--unsafe-fixes", "."], cwd=tmp_path)
    assert shown.code == 1 and "g.py:6:13: FUNC001 [*] " in shown.out
    assert shown.out.endswith("Found 1 error.\n[*] 1 fixable with --fix.\n")
    fixed = run_in_process(["--check", "--fix", "--unsafe-fixes", "."], cwd=tmp_path)
    assert (fixed.code, fixed.out) == (0, "Found 1 error (1 fixed, 0 remaining).\n")
    assert (tmp_path / "g.py").read_text() == GUARDED_FIXED


def test_diff_prints_and_writes_nothing(tmp_path):
    write_tree(tmp_path, {"t.py": TAPE, "m.py": MAP})
    outcome = run_in_process(["--check", "--diff", "."], cwd=tmp_path)
    assert outcome.code == 1
    assert outcome.out == (
        "--- t.py\n+++ t.py\n@@ -4,5 +4,4 @@\n with tf.GradientTape() as tape:\n     tape.watch(x)\n"
        "     y = x * x\n-    with tf.GradientTape() as tape:\n-        dy = tape.gradient(y, x)\n"
        "+    dy = tape.gradient(y, x)\n")
    assert outcome.err == "Would fix 1 error.\n"
    assert (tmp_path / "t.py").read_text() == TAPE and not leftovers(tmp_path)
    clean = run_in_process(["--check", "--diff", "m.py"], cwd=tmp_path)
    assert (clean.code, clean.out, clean.err) == (0, "", "No errors would be fixed.\n")
    unsafe = run_in_process(["--check", "--diff", "--unsafe-fixes", "-q", "."], cwd=tmp_path)
    assert unsafe.code == 1 and unsafe.err == ""


@pytest.mark.parametrize("newline", ["\r\n", "\r", "\n"])
def test_line_endings_tabs_bom_and_permissions_are_kept(tmp_path, newline):
    source = TAPE.replace("    ", "\t").replace("\n", newline)
    data = b"\xef\xbb\xbf" + ("# caf\u00e9 \u2615" + newline + source).encode("utf-8")
    path = tmp_path / "t.py"
    write_tree(tmp_path, {"t.py": data})
    os.chmod(path, 0o640)
    outcome = run_in_process(["--check", "--fix", "t.py"], cwd=tmp_path)
    assert outcome.code == 0, outcome
    expected = b"\xef\xbb\xbf" + ("# caf\u00e9 \u2615" + newline + TAPE_FIXED.replace("    ", "\t")
                                  .replace("\n", newline)).encode("utf-8")
    assert path.read_bytes() == expected
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640


def test_a_declared_encoding_is_kept(tmp_path):
    source = "# -*- coding: latin-1 -*-\n# d\u00e9j\u00e0 vu\n" + TAPE
    write_tree(tmp_path, {"t.py": source.encode("latin-1")})
    assert run_in_process(["--check", "--fix", "t.py"], cwd=tmp_path).code == 0
    assert (tmp_path / "t.py").read_bytes() == ("# -*- coding: latin-1 -*-\n# d\u00e9j\u00e0 vu\n" + TAPE_FIXED) \
        .encode("latin-1")


def test_a_symlink_stays_a_link_to_the_fixed_file(tmp_path):
    write_tree(tmp_path, {"real/t.py": TAPE})
    (tmp_path / "link.py").symlink_to(tmp_path / "real" / "t.py")
    assert run_in_process(["--check", "--fix", "link.py"], cwd=tmp_path).code == 0
    assert (tmp_path / "link.py").is_symlink()
    assert (tmp_path / "real" / "t.py").read_text() == TAPE_FIXED


def test_a_file_changed_on_disk_meanwhile_is_not_overwritten(tmp_path, monkeypatch):
    import tapelsp.cli.fixing as fixing

    write_tree(tmp_path, {"t.py": TAPE})
    path = tmp_path / "t.py"
    real_fix_bytes = fixing.fix_bytes

    def slow_fix(*args, **kwargs):  # an editor saves while the fix is computed
        outcome = real_fix_bytes(*args, **kwargs)
        path.write_text(TAPE + "# edited\n")
        return outcome

    monkeypatch.setattr(fixing, "fix_bytes", slow_fix)
    outcome = run_in_process(["--check", "--fix", "-j1", "t.py"], cwd=tmp_path)
    assert outcome.code == 2
    assert "t.py: the file changed on disk while it was being fixed; it was not overwritten" in outcome.err
    assert path.read_text() == TAPE + "# edited\n" and not leftovers(tmp_path)


def test_write_refuses_when_the_bytes_differ_at_the_last_moment(tmp_path):
    from tapelsp.cli.fixing import ChangedOnDisk, write_atomically

    path = tmp_path / "a.py"
    path.write_bytes(b"x = 1\n")
    with pytest.raises(ChangedOnDisk):
        write_atomically(str(path), b"x = 2\n", expected=b"x = 0\n")
    assert path.read_bytes() == b"x = 1\n" and not leftovers(tmp_path)
    write_atomically(str(path), b"x = 2\n", expected=b"x = 1\n")
    assert path.read_bytes() == b"x = 2\n"


NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Gradients\n", "ünïcode kept"]},
        {"cell_type": "code", "execution_count": 1, "metadata": {"collapsed": False},
         "outputs": [{"name": "stdout", "output_type": "stream", "text": ["3.0\n"]}],
         "source": ["%matplotlib inline\n", "import tensorflow as tf\n", "x = tf.constant(3.0)"]},
        {"cell_type": "code", "execution_count": 2, "metadata": {}, "outputs": [],
         "source": ["with tf.GradientTape() as tape:\n", "    tape.watch(x)\n", "    y = x * x\n",
                    "    with tf.GradientTape() as tape:\n", "        dy = tape.gradient(y, x)"]},
    ],
    "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
    "nbformat": 4,
    "nbformat_minor": 5,
}


@pytest.mark.parametrize("indent", [1, 2])
def test_notebook_cells_are_fixed_and_the_rest_is_kept(tmp_path, indent):
    text = json.dumps(NOTEBOOK, indent=indent, ensure_ascii=False) + "\n"
    write_tree(tmp_path, {"nb.ipynb": text})
    diff = run_in_process(["--check", "--diff", "nb.ipynb"], cwd=tmp_path)
    assert diff.code == 1 and diff.out.startswith("--- nb.ipynb:cell 3\n+++ nb.ipynb:cell 3\n")
    outcome = run_in_process(["--check", "--fix", "nb.ipynb"], cwd=tmp_path)
    assert (outcome.code, outcome.out) == (0, "Found 1 error (1 fixed, 0 remaining).\n")
    written = (tmp_path / "nb.ipynb").read_text(encoding="utf-8")
    expected = json.loads(text)
    expected["cells"][2]["source"] = ["with tf.GradientTape() as tape:\n", "    tape.watch(x)\n", "    y = x * x\n",
                                      "    dy = tape.gradient(y, x)"]
    assert written == json.dumps(expected, indent=indent, ensure_ascii=False) + "\n"


def test_stdin_fix_prints_the_fixed_source_and_reports_on_stderr(tmp_path):
    write_tree(tmp_path, {})
    outcome = run_in_process(["--check", "--fix", "--stdin-filename", "t.py", "-"], cwd=tmp_path,
                             stdin=(TAPE + "\n" + MAP.split("\n", 1)[1]).encode())
    assert outcome.code == 1
    assert outcome.out == TAPE_FIXED + "\n" + MAP.split("\n", 1)[1]
    assert "MAP002" in outcome.err and "Found 2 errors (1 fixed, 1 remaining)." in outcome.err
    diff = run_in_process(["--check", "--diff", "-"], cwd=tmp_path, stdin=TAPE.encode())
    assert diff.code == 1 and diff.out.startswith("--- -\n+++ -\n")


def test_json_after_fix_lists_what_is_left(tmp_path):
    write_tree(tmp_path, {"t.py": TAPE, "m.py": MAP})
    outcome = run_in_process(["--check", "--fix", "--output-format", "json", "."], cwd=tmp_path)
    assert outcome.code == 1
    assert [item["code"] for item in json.loads(outcome.out)] == ["MAP002"]


def test_json_check_carries_the_fix(tmp_path):
    write_tree(tmp_path, {"t.py": TAPE})
    [item] = json.loads(run_in_process(["--check", "--output-format", "json", "."], cwd=tmp_path).out)
    assert item["fix"] == {"applicability": "safe", "message": "Remove the inner tape, so the gradient call asks "
                           "the outer tape", "edits": [{"content": "", "location": {"row": 7, "column": 5},
                                                        "end_location": {"row": 8, "column": 9}}]}


def test_fix_needs_check(tmp_path):
    for args in (["--fix", "."], ["--diff"], ["--unsafe-fixes"]):
        outcome = run_in_process(args, cwd=tmp_path)
        assert outcome.code == 2 and "go with --check" in outcome.err


def test_workers_fix_the_same_as_one_process(tmp_path):
    files = {f"pkg{i}/t.py": TAPE for i in range(20)} | {f"pkg{i}/f.py": FUNC for i in range(20)}
    one, many = tmp_path / "one", tmp_path / "many"
    one.mkdir()
    many.mkdir()
    write_tree(one, files)
    write_tree(many, files)
    a = run_in_process(["--check", "--fix", "-j1", "."], cwd=one)
    b = run_in_process(["--check", "--fix", "-j4", "."], cwd=many)
    assert a == b and a.out == "Found 40 errors (40 fixed, 0 remaining).\n"
    assert all((many / name).read_text() == (one / name).read_text() for name in files)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_python_dash_m_fix(tmp_path):
    write_tree(tmp_path, {"t.py": TAPE})
    outcome = run_module(["--check", "--fix", "t.py"], cwd=tmp_path)
    assert (outcome.code, outcome.out, outcome.err) == (0, "Found 1 error (1 fixed, 0 remaining).\n", "")
    assert (tmp_path / "t.py").read_text() == TAPE_FIXED
