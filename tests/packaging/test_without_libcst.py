"""The language server in a Python without libcst, as the universal .vsix runs it: a bare venv
with tapelsp and its pure-Python dependencies on PYTHONPATH and nothing else. Detection works;
a finding whose fix needs libcst gets a disabled quick fix saying what to install (or, for a
client that does not show disabled actions, one message), and nothing crashes."""

from __future__ import annotations

import asyncio
import importlib.metadata
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig

from lsp.clients import EDITORS
from lsp.conftest import HANG_GUARD, Editor, make_client

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = (ROOT / "examples" / "second_derivative.py").read_text(encoding="utf-8")
LEFT_OUT = {"libcst", "pyyaml", "pyyaml-ft"}


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _closure(name: str, seen: set[str]) -> None:
    """`name` and what it needs here (markers evaluated for this Python), without LEFT_OUT."""
    from packaging.requirements import Requirement

    for line in importlib.metadata.requires(name) or []:
        requirement = Requirement(line)
        key = _normal(requirement.name)
        if key in seen or key in LEFT_OUT:
            continue
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
            continue
        seen.add(key)
        _closure(requirement.name, seen)


@pytest.fixture(scope="module")
def bare(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """(a venv's python without any package, PYTHONPATH with tapelsp and its dependencies less libcst)."""
    base = tmp_path_factory.mktemp("without-libcst")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(base / "venv")], check=True)
    python = base / "venv" / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    libs = base / "libs"
    libs.mkdir()
    wanted: set[str] = set()
    _closure("tapelsp", wanted)
    top_levels = importlib.metadata.packages_distributions()
    for module, distributions in top_levels.items():
        if not any(_normal(d) in wanted for d in distributions):
            continue
        spec = importlib.util.find_spec(module)
        if spec is None or spec.origin is None:
            continue
        origin = Path(spec.origin)
        source = origin.parent if origin.name == "__init__.py" else origin
        (libs / source.name).symlink_to(source)
    assert not (libs / "libcst").exists()
    assert (libs / "pygls").exists() and (libs / "lsprotocol").exists()
    check = subprocess.run([str(python), "-c", "import libcst"], capture_output=True, text=True,
                           env={**os.environ, "PYTHONPATH": f"{ROOT / 'server'}{os.pathsep}{libs}"})
    assert check.returncode != 0 and "No module named 'libcst'" in check.stderr
    return python, f"{ROOT / 'server'}{os.pathsep}{libs}"


async def _start(python: Path, path: str, editor: str, root: Path) -> Editor:
    env = {**os.environ, "PYTHONPATH": path, "TAPELSP_WORKERS": "1"}
    config = ClientServerConfig(server_command=[str(python), "-m", "tapelsp"], client_factory=make_client,
                                server_env=env)
    client = await config.start()
    capabilities = EDITORS[editor]()
    await asyncio.wait_for(client.initialize_session(types.InitializeParams(
        capabilities=capabilities, root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)])), HANG_GUARD)
    return Editor(client, capabilities, "utf-16")


async def _tape001(editor: Editor, directory: Path) -> tuple[str, types.Diagnostic]:
    """Opens the example; its URI and its TAPE001 finding (on line 8)."""
    uri = (directory / "second_derivative.py").as_uri()
    editor.open(uri, EXAMPLE)
    tape = next(d for d in await editor.diagnostics(uri) if d.code == "TAPE001")
    assert tape.range.start.line == 7
    return uri, tape


async def _stop(editor: Editor) -> None:
    try:
        await asyncio.wait_for(editor.client.shutdown_session(), 30)
    finally:
        await editor.client.stop()


@pytest.mark.asyncio
async def test_a_disabled_quick_fix_says_to_install_libcst(bare: tuple[Path, str], tmp_path: Path) -> None:
    python, path = bare
    editor = await _start(python, path, "vscode", tmp_path)
    try:
        uri, tape = await _tape001(editor, tmp_path)
        actions = await editor.code_actions(uri, tape.range.start)
        unavailable = [a for a in actions if a.disabled is not None]
        assert [a.title for a in unavailable] == ["Fix TAPE001: needs libcst (pip install libcst)"]
        action = unavailable[0]
        assert action.edit is None and action.command is None
        assert action.kind == types.CodeActionKind.QuickFix
        assert action.diagnostics and action.diagnostics[0].code == "TAPE001"
        reason = action.disabled.reason
        assert "tapelsp's fixes need libcst" in reason
        assert f"`{python} -m pip install libcst`" in reason
        # The ignore action still works; the server is alive and answers again.
        assert any(a.title.startswith("Ignore TAPE001") and a.edit is not None for a in actions), \
            [a.title for a in actions]
        again = await editor.code_actions(uri, tape.range.start)
        assert [a.title for a in again if a.disabled is not None] == [action.title]
        assert editor.client.messages == []
    finally:
        await _stop(editor)


@pytest.mark.asyncio
async def test_a_client_without_disabled_actions_is_told_once(bare: tuple[Path, str], tmp_path: Path) -> None:
    python, path = bare
    editor = await _start(python, path, "neovim-0.9", tmp_path)
    try:
        uri, tape = await _tape001(editor, tmp_path)
        for _ in range(2):
            actions = await editor.code_actions(uri, tape.range.start)
            assert all(a.disabled is None for a in actions)
            assert not any("TAPE001" in a.title and not a.title.startswith("Ignore") for a in actions)
        messages = editor.client.messages
        for _ in range(50):  # window/showMessage is a notification: it may come after the answer
            if messages:
                break
            await asyncio.sleep(0.1)
        assert len(messages) == 1, messages
        assert messages[0].type == types.MessageType.Warning
        assert f"`{python} -m pip install libcst`" in messages[0].message
    finally:
        await _stop(editor)


@pytest.mark.asyncio
async def test_with_libcst_the_fix_is_offered_and_nothing_is_disabled(tmp_path: Path) -> None:
    """The same request in the test venv (libcst installed): the real fix, no disabled action."""
    editor = await _start(Path(sys.executable), str(ROOT / "server"), "vscode", tmp_path)
    try:
        uri, tape = await _tape001(editor, tmp_path)
        actions = await editor.code_actions(uri, tape.range.start)
        assert all(a.disabled is None for a in actions)
        assert any("(TAPE001)" in a.title and a.edit is not None for a in actions), [a.title for a in actions]
    finally:
        await _stop(editor)
