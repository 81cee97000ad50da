"""Which files `tapelsp --check DIR` looks at, and in which order."""

from __future__ import annotations

import os

from tapelsp.cli.args import Options
from tapelsp.cli.discover import SKIPPED_DIRECTORIES, collect
from tapelsp.cli.resolve import Resolver

from .helpers import run_in_process
from .sources import TAPE, codes, write_tree


def found(root, *paths, **options):
    resolver = Resolver(Options(check=True, **options), cwd=str(root))
    return [resolver.display(path) for path in collect(paths or (".",), resolver)]


def test_suffixes_and_order(tmp_path):
    write_tree(tmp_path, {"b.py": "", "a.pyi": "", "c.ipynb": "{}", "d.txt": "", "e.pyc": "", "f.PY": "",
                          "z/a.py": "", "a/z.py": "", "a/b/c.py": "", "a.py": "", "setup.cfg": ""})
    assert found(tmp_path) == ["a/b/c.py", "a/z.py", "a.py", "a.pyi", "b.py", "c.ipynb", "f.PY", "z/a.py"]


def test_skipped_directories(tmp_path):
    names = [".git", "__pycache__", "node_modules", ".venv", "venv", ".tox", ".nox", ".tapelsp_cache",
             ".ipynb_checkpoints"]
    assert set(names) <= SKIPPED_DIRECTORIES
    write_tree(tmp_path, {f"{name}/x.py": TAPE for name in names})
    write_tree(tmp_path, {"myenv/pyvenv.cfg": "home = /usr/bin\n", "myenv/lib/x.py": TAPE,
                          "src/.git/x.py": TAPE, "src/ok.py": TAPE, ".hidden/ok.py": TAPE})
    assert found(tmp_path) == [".hidden/ok.py", "src/ok.py"]


def test_a_skipped_directory_named_on_the_command_line_is_checked(tmp_path):
    write_tree(tmp_path, {".venv/x.py": TAPE, "node_modules/pkg/y.py": TAPE})
    assert found(tmp_path, ".venv", "node_modules/pkg/y.py") == [".venv/x.py", "node_modules/pkg/y.py"]


def test_duplicates_are_checked_once(tmp_path):
    write_tree(tmp_path, {"a.py": TAPE, "sub/b.py": TAPE})
    assert found(tmp_path, "a.py", ".", "sub", "./a.py", str(tmp_path / "sub" / "b.py")) == ["a.py", "sub/b.py"]
    assert codes(run_in_process(["--check", "a.py", "a.py", "."], cwd=tmp_path).out) == [
        "a.py:7:10: TAPE001", "sub/b.py:7:10: TAPE001"]


def test_symlinked_directories_are_not_followed(tmp_path):
    write_tree(tmp_path, {"real/a.py": TAPE})
    os.symlink(tmp_path / "real", tmp_path / "link")
    os.symlink(tmp_path, tmp_path / "real" / "loop")
    assert found(tmp_path) == ["real/a.py"]
    # Named explicitly, the link is walked.
    assert found(tmp_path, "link") == ["link/a.py"]


def test_symlinked_files_are_checked(tmp_path):
    write_tree(tmp_path, {"real.txt": TAPE})
    os.symlink(tmp_path / "real.txt", tmp_path / "alias.py")
    assert codes(run_in_process(["--check", "."], cwd=tmp_path).out) == ["alias.py:7:10: TAPE001"]


def test_a_named_file_is_checked_whatever_its_suffix(tmp_path):
    write_tree(tmp_path, {"train_script": TAPE})
    assert codes(run_in_process(["--check", "train_script"], cwd=tmp_path).out) == ["train_script:7:10: TAPE001"]
    assert run_in_process(["--check", "."], cwd=tmp_path).out == "All checks passed!\n"


def test_directories_excluded_by_glob_are_pruned(tmp_path):
    write_tree(tmp_path, {"pyproject.toml": '[tool.tapelsp]\nexclude = ["build", "docs/*.py"]\n',
                          "build/a.py": TAPE, "src/build/b.py": TAPE, "docs/c.py": TAPE, "docs/x/d.py": TAPE,
                          "src/e.py": TAPE})
    assert found(tmp_path) == ["docs/x/d.py", "src/e.py"]


def test_empty_directory(tmp_path):
    outcome = run_in_process(["--check", "."], cwd=tmp_path)
    assert (outcome.code, outcome.out) == (0, "All checks passed!\n")


def test_a_run_from_the_filesystem_root_does_not_take_it_as_the_project(tmp_path):
    """Without a configuration, the project whose other modules a file may read is the working
    directory; from `/` that would be every Python file of the machine: the file's directory."""
    path = tmp_path / "train.py"
    path.write_text("import tensorflow as tf\n", encoding="utf-8")
    from_root = Resolver(Options(check=True, isolated=True), cwd="/")
    assert from_root.project_root(str(path)) == str(tmp_path)
    from_parent = Resolver(Options(check=True, isolated=True), cwd=str(tmp_path.parent))
    assert from_parent.project_root(str(path)) == str(tmp_path.parent)
