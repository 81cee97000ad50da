"""The pre-commit hooks of .pre-commit-hooks.yaml, run by the real pre-commit (`pre-commit
try-repo`, which installs this repository into a hook environment of its own, from PyPI for
tapelsp's dependencies) in a scratch git repository with a staged file that has findings."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "second_derivative.py"
PRE_COMMIT = shutil.which("pre-commit", path=str(Path(sys.executable).parent))


def test_the_hooks_file_declares_check_and_fix_for_python_pyi_and_notebooks() -> None:
    hooks = {hook["id"]: hook for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert sorted(hooks) == ["tapelsp", "tapelsp-fix"]
    assert hooks["tapelsp"]["entry"] == "tapelsp --check --force-exclude"
    assert hooks["tapelsp-fix"]["entry"] == "tapelsp --check --force-exclude --fix"
    for hook in hooks.values():
        assert hook["language"] == "python"
        assert hook["types_or"] == ["python", "pyi", "jupyter"]


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.mark.skipif(PRE_COMMIT is None, reason="pre-commit is not installed (scripts/test installs it)")
def test_try_repo_fails_on_a_staged_finding_prints_it_and_the_fix_hook_fixes_it(tmp_path: Path) -> None:
    repo = tmp_path / "project"
    repo.mkdir()
    _git(repo, "init", "-q")
    _git(repo, "config", "user.email", "dev@example.invalid")
    _git(repo, "config", "user.name", "dev")
    shutil.copy(EXAMPLE, repo / "train.py")
    (repo / "notes.txt").write_text("not Python: no hook runs on it\n")
    _git(repo, "add", "train.py", "notes.txt")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "PRE_COMMIT_COLOR": "never"}
    env.pop("PRE_COMMIT", None)
    # No hook id: both hooks, in the file's order (the check, then the fix), on the staged files.
    run = subprocess.run([PRE_COMMIT, "try-repo", str(ROOT), "--verbose"], cwd=repo, env=env,
                         capture_output=True, text=True, timeout=900)
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    check, fix = out.split("tapelsp (fix)", 1)
    assert "tapelsp....." in check and "Failed" in check, out
    assert "train.py:8:10: TAPE001 [*] This GradientTape rebinds `tape`" in check, out
    assert "train.py:12:11: TAPE002" in check, out
    assert "notes.txt" not in check
    # The fix hook renamed the inner tape (a safe fix, which cures TAPE002 too); pre-commit fails
    # a hook that changed files, so that the fix is looked at and staged.
    assert "Failed" in fix and "files were modified by this hook" in fix, out
    assert "Found 1 error (1 fixed, 0 remaining)." in fix, out
    fixed = (repo / "train.py").read_text()
    assert "with tf.GradientTape() as inner_tape:" in fixed
    assert fixed != EXAMPLE.read_text()
