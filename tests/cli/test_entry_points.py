"""`tapelsp` (console script) and `python -m tapelsp` are the same program."""

from __future__ import annotations

import importlib
import tomllib

from tapelsp import __version__

from .helpers import REPO, run_in_process, run_module
from .sources import TAPE, write_tree


def test_console_script_points_at_main():
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    target = project["project"]["scripts"]["tapelsp"]
    assert target == "tapelsp.cli.main:main"
    module, function = target.split(":")
    assert callable(getattr(importlib.import_module(module), function))


def test_python_dash_m_behaves_like_the_command(tmp_path):
    write_tree(tmp_path, {"t.py": TAPE})
    # (No arguments starts the language server: tests/cli/test_no_traceback.py and tests/lsp.)
    for args in (["--version"], ["--check", "."], ["--check", ".", "--output-format", "json"],
                 ["--explain", "TAPE001"], ["--check", "nope.py"]):
        assert run_module(args, cwd=tmp_path) == run_in_process(args, cwd=tmp_path), args
    assert run_module(["--version"], cwd=tmp_path).out == f"tapelsp {__version__}\n"
