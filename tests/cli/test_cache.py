"""The results cache (`.tapelsp_cache/`): same output as without it, and no re-checking of
unchanged files; a change of content, settings or tapelsp code is a miss."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
from pathlib import Path

import pytest

from tapelsp.cli import cache as cache_mod
from tapelsp.cli import run as run_mod

from .helpers import run_in_process, run_module
from .sources import FUNC, MAP, TAPE, write_tree


@pytest.fixture
def tree(tmp_path):
    return write_tree(tmp_path, {"a.py": TAPE, "b.py": FUNC, "pkg/c.py": MAP, "broken.py": b"x = '\xe9'\n"})


@pytest.fixture
def checks(monkeypatch):
    """The paths the engine was asked to check, in this process."""
    seen: list[str] = []
    real = run_mod.check_bytes

    def counting(data, path=None, *args, **kwargs):
        seen.append(Path(path).name)
        return real(data, path, *args, **kwargs)

    monkeypatch.setattr(run_mod, "check_bytes", counting)
    return seen


def results_file(root: Path) -> Path:
    [found] = (root / ".tapelsp_cache").glob("results-*.pickle")
    return found


@pytest.mark.parametrize("output_format", ["text", "json", "sarif", "github"])
def test_a_warm_run_prints_exactly_what_a_cold_one_prints_and_checks_nothing(tree, checks, output_format):
    args = ["--check", ".", "--output-format", output_format]
    uncached = run_in_process([*args, "--no-cache"], cwd=tree)
    assert sorted(checks) == ["a.py", "b.py", "broken.py", "c.py"]
    assert not (tree / ".tapelsp_cache").exists()
    checks.clear()
    cold = run_in_process(args, cwd=tree)
    # broken.py is not UTF-8: its TL002 depends on its bytes only, so it is cached too
    # (files that cannot be read at all are not: test_files_that_cannot_be_read_are_never_cached).
    assert sorted(checks) == ["a.py", "b.py", "broken.py", "c.py"]
    checks.clear()
    warm = run_in_process(args, cwd=tree)
    assert checks == []
    assert uncached == cold == warm
    assert warm.code == 1


def test_the_cache_directory_is_tagged_and_ignored_by_git(tree):
    run_in_process(["--check", "."], cwd=tree)
    directory = tree / ".tapelsp_cache"
    assert (directory / "CACHEDIR.TAG").read_bytes().startswith(b"Signature: 8a477f597d28d172789f06886806bc55")
    subprocess.run(["git", "init", "-q", str(tree)], check=True)
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=tree,
                            capture_output=True, text=True, check=True).stdout
    assert ".tapelsp_cache" not in status and "a.py" in status


def test_only_the_edited_file_is_checked_again_and_editing_it_back_hits(tree, checks):
    first = run_in_process(["--check", "."], cwd=tree)
    original = (tree / "a.py").read_text()
    (tree / "a.py").write_text(original.replace("    with tf.GradientTape() as tape:\n        dy",
                                                "    with tf.GradientTape() as tape2:\n        dy"))
    checks.clear()
    edited = run_in_process(["--check", "."], cwd=tree)
    assert checks == ["a.py"]
    assert "TAPE001" in first.out and "TAPE001" not in edited.out
    (tree / "a.py").write_text(original)
    checks.clear()
    assert run_in_process(["--check", "."], cwd=tree) == first
    assert checks == []


@pytest.mark.parametrize("change", [["--select", "FUNC"], ["--ignore", "MAP002"], ["--tensorflow-version", "2.12"],
                                    ["--output-format", "sarif"]])
def test_other_settings_are_a_miss(tree, checks, change):
    run_in_process(["--check", "."], cwd=tree)
    checks.clear()
    changed = run_in_process(["--check", ".", *change], cwd=tree)
    assert sorted(checks) == ["a.py", "b.py", "broken.py", "c.py"]
    assert changed == run_in_process(["--check", ".", *change, "--no-cache"], cwd=tree)


def test_per_file_settings_from_pyproject_are_part_of_the_key(tree, checks):
    run_in_process(["--check", "."], cwd=tree)
    (tree / "pyproject.toml").write_text('[tool.tapelsp]\nper-file-ignores = {"pkg/*" = ["MAP"]}\n')
    checks.clear()
    out = run_in_process(["--check", "."], cwd=tree)
    assert "MAP002" not in out.out
    assert sorted(checks) == ["a.py", "b.py", "broken.py", "c.py"]  # every file's settings changed


def test_no_cache_neither_reads_nor_writes(tree, checks):
    run_in_process(["--check", "."], cwd=tree)
    before = results_file(tree).read_bytes()
    checks.clear()
    run_in_process(["--check", ".", "--no-cache"], cwd=tree)
    assert len(checks) == 4
    assert results_file(tree).read_bytes() == before


def test_cache_dir_moves_it(tree, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp("elsewhere") / "c"
    run_in_process(["--check", ".", "--cache-dir", str(elsewhere)], cwd=tree)
    assert (elsewhere / "CACHEDIR.TAG").is_file() and not (tree / ".tapelsp_cache").exists()


def test_files_that_cannot_be_read_are_never_cached(tree, checks):
    os.symlink(tree / "gone.py", tree / "dangling.py")
    first = run_in_process(["--check", "."], cwd=tree)
    assert "broken symbolic link" in first.out
    (tree / "gone.py").write_text(FUNC)
    checks.clear()
    second = run_in_process(["--check", "."], cwd=tree)
    assert "broken symbolic link" not in second.out and "dangling.py:6:13: FUNC001" in second.out
    assert sorted(checks) == ["dangling.py", "gone.py"]


def test_an_internal_error_is_not_cached(tree, monkeypatch):
    from tapelsp.rules.function.func001_variable_in_function import VariableInFunction

    def broken(self, ctx):
        raise ValueError("planted")

    with monkeypatch.context() as patch:
        patch.setattr(VariableInFunction, "check", broken)
        assert "TL004" in run_in_process(["--check", "b.py"], cwd=tree).out
    assert "FUNC001" in run_in_process(["--check", "b.py"], cwd=tree).out


@pytest.mark.parametrize("content", [b"", b"not a pickle", b"\x80\x05K\x01.", pickle.dumps((1, [1, 2]))])
def test_a_corrupt_cache_is_a_miss_and_is_rewritten(tree, checks, content):
    good = run_in_process(["--check", "."], cwd=tree)
    results_file(tree).write_bytes(content)
    checks.clear()
    assert run_in_process(["--check", "."], cwd=tree) == good
    assert len(checks) == 4
    checks.clear()
    assert run_in_process(["--check", "."], cwd=tree) == good
    assert checks == []


class _Planted:
    def __reduce__(self):
        return (os.system, ("touch planted-by-cache",))


def test_a_planted_pickle_does_not_run_code(tree):
    run_in_process(["--check", "."], cwd=tree)
    results_file(tree).write_bytes(pickle.dumps((0, {"k": (0, _Planted())})))
    good = run_in_process(["--check", ".", "--no-cache"], cwd=tree)
    assert run_in_process(["--check", "."], cwd=tree) == good
    assert not (tree / "planted-by-cache").exists()


def test_an_unwritable_cache_is_a_warning_not_an_error(tree):
    (tree / "blocker").write_text("a file where the cache directory should be")
    got = run_in_process(["--check", ".", "--cache-dir", "blocker/cache"], cwd=tree)
    plain = run_in_process(["--check", ".", "--no-cache"], cwd=tree)
    assert got.code == plain.code == 1 and got.out == plain.out
    assert got.err.startswith("warning: cannot write the cache in ") and "--no-cache" in got.err


def test_the_code_fingerprint_follows_analysis_code_only(tmp_path):
    package = tmp_path / "tapelsp"
    for sub in ("rules", "lsp", "probe"):
        (package / sub).mkdir(parents=True)
        (package / sub / "m.py").write_text("x = 1\n")
    first = cache_mod.code_fingerprint(str(package))
    (package / "lsp" / "m.py").write_text("x = 2  # the editor front end changed\n")
    (package / "probe" / "m.py").write_text("x = 2\n")
    assert cache_mod.code_fingerprint(str(package)) == first
    (package / "rules" / "m.py").write_text("x = 22\n")
    assert cache_mod.code_fingerprint(str(package)) != first


def test_a_run_with_workers_fills_the_cache_that_one_process_reads(tree, checks):
    for index in range(40):
        (tree / f"many_{index:02d}.py").write_text(TAPE if index % 2 else FUNC)
    cold = run_module(["--check", ".", "-j2"], cwd=tree)  # another process, with workers
    warm = run_in_process(["--check", ".", "-j1"], cwd=tree)
    assert checks == []
    assert (cold.code, cold.out) == (warm.code, warm.out)


def test_old_builds_result_files_are_pruned(tree):
    directory = tree / ".tapelsp_cache"
    run_in_process(["--check", "."], cwd=tree)
    current = results_file(tree)
    for index in range(3):
        stale = directory / f"results-old{index}.pickle"
        stale.write_bytes(b"")
        os.utime(stale, (1_000_000 + index, 1_000_000 + index))  # 1970: long unused
    for index in range(cache_mod.KEEP_OTHER_BUILDS + 2):
        (directory / f"results-recent{index}.pickle").write_bytes(b"")
        os.utime(directory / f"results-recent{index}.pickle", None)
    (tree / "a.py").write_text(TAPE + "\n")
    run_in_process(["--check", "."], cwd=tree)
    left = sorted(p.name for p in directory.glob("results-*.pickle") if p != current)
    assert current.exists()
    assert len(left) == cache_mod.KEEP_OTHER_BUILDS and all(name.startswith("results-recent") for name in left)


def test_a_run_answered_from_the_cache_never_loads_the_engine(tree):
    import subprocess
    import sys

    from .helpers import subprocess_env

    script = ("import sys\nfrom tapelsp.cli.main import main\ncode = main(sys.argv[1:])\n"
              "loaded = sorted(m for m in sys.modules if m.startswith(('tapelsp.engine', 'tapelsp.notebook', "
              "'tapelsp.fixes', 'libcst')))\nsys.stderr.write(repr(loaded))\nraise SystemExit(code)\n")

    def loaded_modules() -> list[str]:
        proc = subprocess.run([sys.executable, "-c", script, "--check", ".", "--output-format", "json"], cwd=tree,
                              capture_output=True, text=True, env=subprocess_env(), timeout=120)
        assert proc.returncode == 1, proc.stderr
        return eval(proc.stderr)  # a repr of a list of str, written above

    assert "tapelsp.engine" in loaded_modules()  # cold: files are checked
    # Warm: read, hash, look up, print. (A second try only if tapelsp's own sources changed
    # in between, which starts a new cache: other work edits this checkout too.)
    warm = [loaded_modules() for _ in range(2)]
    assert [] in warm, warm[-1]


LOSSES_WITH_NUMPY = """\
import numpy as np
import tensorflow as tf


def soft_loss(y_true, y_pred):
    p = y_pred.numpy()
    return tf.constant(float(np.mean((p - y_true) ** 2)))
"""
LOSSES_IN_TENSORFLOW = """\
import tensorflow as tf


def soft_loss(y_true, y_pred):
    return tf.reduce_mean((y_pred - y_true) ** 2)
"""
TRAIN_WITH_IMPORTED_LOSS = """\
import tensorflow as tf

from losses import soft_loss

model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
x = tf.ones((4, 2))
with tf.GradientTape() as tape:
    loss = soft_loss(tf.zeros((4, 1)), model(x))
grads = tape.gradient(loss, model.trainable_variables)
"""


def test_a_finding_that_reads_another_module_is_checked_again_when_that_module_changes(tmp_path, checks):
    """train.py's TAPE007 comes from losses.py: the cached result holds only while losses.py
    is unchanged (train.py's own bytes are the same)."""
    write_tree(tmp_path, {"losses.py": LOSSES_WITH_NUMPY, "train.py": TRAIN_WITH_IMPORTED_LOSS})
    args = ["--check", "train.py", "--output-format", "json", "--select", "TAPE007"]
    first = run_in_process(args, cwd=tmp_path)
    found = json.loads(first.out)
    assert [f["code"] for f in found] == ["TAPE007"]
    assert "losses.py line 6" in found[0]["message"]
    checks.clear()
    again = run_in_process(args, cwd=tmp_path)
    assert checks == [] and again == first
    losses = tmp_path / "losses.py"
    losses.write_text(LOSSES_IN_TENSORFLOW)
    os.utime(losses, ns=(losses.stat().st_atime_ns, losses.stat().st_mtime_ns + 10_000_000))
    fixed = run_in_process(args, cwd=tmp_path)
    assert checks == ["train.py"]
    assert json.loads(fixed.out) == [] and fixed.code == 0
