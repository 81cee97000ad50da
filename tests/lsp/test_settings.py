"""Settings from initializationOptions, workspace/configuration and didChangeConfiguration,
merged with `[tool.tapelsp]` in pyproject.toml (reloaded through watched files)."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types

from .conftest import Editor, codes, uri_in
from .samples import BOTH

pytestmark = pytest.mark.asyncio


async def settle(editor: Editor, generation_above: int) -> None:
    """Wait until the server applied new settings and re-checked every open document."""
    while True:
        status = await editor.status()
        if status["generation"] > generation_above and all(d["settled"] for d in status["documents"]):
            return
        await asyncio.sleep(0.05)


async def current_codes(editor: Editor, uri: str) -> list[str]:
    if editor.pulls:
        return codes(await editor.pull(uri))
    return codes(list(editor.client.diagnostics.get(uri, [])))


@pytest.mark.parametrize("name", ["vscode", "neovim-0.9"])
async def test_initialization_options_select_ignore_and_severity(start_editor, tmp_path, name):
    editor = await start_editor(name, init={"ignore": ["TAPE002"], "severity": {"FUNC": "hint"}})
    uri = uri_in(tmp_path, "both.py")
    editor.open(uri, BOTH)
    found = await editor.diagnostics(uri)
    assert codes(found) == ["FUNC001", "TAPE001"]
    severities = {d.code: d.severity for d in found}
    assert severities == {"FUNC001": types.DiagnosticSeverity.Hint, "TAPE001": types.DiagnosticSeverity.Error}


async def test_settings_nested_under_tapelsp_and_select(start_editor, tmp_path):
    editor = await start_editor("neovim-0.9", init={"tapelsp": {"select": ["TAPE"]}})
    uri = uri_in(tmp_path, "both.py")
    editor.open(uri, BOTH)
    assert codes(await editor.diagnostics(uri)) == ["TAPE001", "TAPE002"]


async def test_workspace_configuration_is_asked_for_before_analysing(start_editor, tmp_path):
    # The client has settings in its `tapelsp` section; the server asks for them at start-up
    # and the first analysis already uses them.
    editor = await start_editor("vscode", configuration={"select": ["FUNC"]})
    uri = uri_in(tmp_path, "both.py")
    editor.open(uri, BOTH)
    assert codes(await editor.diagnostics(uri)) == ["FUNC001"]


@pytest.mark.parametrize("name", ["vscode", "neovim-0.9"])
async def test_did_change_configuration_refreshes_diagnostics(start_editor, tmp_path, name):
    editor = await start_editor(name)
    uri = uri_in(tmp_path, "both.py")
    editor.open(uri, BOTH)
    assert codes(await editor.diagnostics(uri)) == ["FUNC001", "TAPE001", "TAPE002"]
    generation = (await editor.status())["generation"]
    refreshes = editor.client.diagnostic_refresh_count
    if editor.pulls:
        # VS Code style: the notification carries nothing; the server asks for the section.
        editor.client.set_configuration({"ignore": ["TAPE"]}, section="tapelsp")
        editor.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    else:
        editor.client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={"tapelsp": {"ignore": ["TAPE"]}}))
    await settle(editor, generation)
    if editor.pulls:
        # The client is told to pull again.
        await editor.wait_for(lambda: editor.client.diagnostic_refresh_count > refreshes)
    assert await current_codes(editor, uri) == ["FUNC001"]


async def test_tensorflow_version_setting(start_editor, tmp_path):
    # FUNC001 applies to TensorFlow 2 only: checked against TF 1.15 it is silent.
    editor = await start_editor("neovim-0.9", init={"tensorflowVersion": "1.15"})
    uri = uri_in(tmp_path, "both.py")
    editor.open(uri, BOTH)
    assert "FUNC001" not in codes(await editor.diagnostics(uri))


async def test_bad_setting_is_reported_and_the_rest_applies(start_editor, tmp_path):
    editor = await start_editor("neovim-0.9", init={"select": "NOPE9", "ignore": ["TAPE002"], "colour": "blue"})
    uri = uri_in(tmp_path, "both.py")
    editor.open(uri, BOTH)
    assert codes(await editor.diagnostics(uri)) == ["FUNC001", "TAPE001"]
    messages = [m.message for m in editor.client.messages]
    assert any("tapelsp.select" in m and "NOPE9" in m for m in messages)
    assert any("tapelsp.colour: unknown setting" in m for m in messages)


PYPROJECT = '[project]\nname = "demo"\n\n[tool.tapelsp]\nignore = ["{code}"]\n'


@pytest.mark.parametrize("name", ["vscode", "neovim-0.9"])
async def test_pyproject_configuration_and_reload_through_watched_files(start_editor, tmp_path, name):
    (tmp_path / "pyproject.toml").write_text(PYPROJECT.format(code="FUNC001"))
    editor = await start_editor(name)
    uri = uri_in(tmp_path, "both.py")
    editor.open(uri, BOTH)
    assert codes(await editor.diagnostics(uri)) == ["TAPE001", "TAPE002"]
    if name == "vscode":  # dynamic registration: the server asked to watch pyproject.toml files
        registrations = editor.client.registrations
        assert [r.method for r in registrations] == [types.WORKSPACE_DID_CHANGE_WATCHED_FILES]
        assert registrations[0].register_options["watchers"][0]["globPattern"] == "**/pyproject.toml"

    generation = (await editor.status())["generation"]
    (tmp_path / "pyproject.toml").write_text(PYPROJECT.format(code="TAPE"))
    editor.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=(tmp_path / "pyproject.toml").as_uri(), type=types.FileChangeType.Changed)]))
    await settle(editor, generation)
    assert await current_codes(editor, uri) == ["FUNC001"]


async def test_editor_settings_override_the_project_key_by_key(start_editor, tmp_path):
    (tmp_path / "pyproject.toml").write_text(PYPROJECT.format(code="FUNC001"))
    editor = await start_editor("neovim-0.9", init={"ignore": ["TAPE002"]})
    uri = uri_in(tmp_path, "both.py")
    editor.open(uri, BOTH)
    # The editor's `ignore` replaces the project's (as --ignore does on the command line).
    assert codes(await editor.diagnostics(uri)) == ["FUNC001", "TAPE001"]


async def test_broken_pyproject_is_reported_and_editor_settings_still_apply(start_editor, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.tapelsp]\nselct = ["TAPE"]\n')
    editor = await start_editor("neovim-0.9", init={"ignore": ["TAPE002"]})
    uri = uri_in(tmp_path, "both.py")
    editor.open(uri, BOTH)
    assert codes(await editor.diagnostics(uri)) == ["FUNC001", "TAPE001"]
    assert any("unknown key `selct`" in m.message for m in editor.client.messages)


async def test_excluded_files_get_no_diagnostics(start_editor, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.tapelsp]\nexclude = ["generated/*"]\n')
    editor = await start_editor("neovim-0.9")
    excluded = uri_in(tmp_path / "generated", "both.py")
    checked = uri_in(tmp_path, "both.py")
    editor.open(excluded, BOTH)
    editor.open(checked, BOTH)
    assert codes(await editor.diagnostics(checked)) == ["FUNC001", "TAPE001", "TAPE002"]
    assert await editor.diagnostics(excluded) == []


async def test_edited_pyproject_is_picked_up_without_file_watching(start_editor, tmp_path):
    # Neovim 0.9 cannot register file watchers: the next analysis notices the change itself.
    (tmp_path / "pyproject.toml").write_text(PYPROJECT.format(code="FUNC001"))
    editor = await start_editor("neovim-0.9")
    uri = uri_in(tmp_path, "both.py")
    editor.open(uri, BOTH)
    assert codes(await editor.diagnostics(uri)) == ["TAPE001", "TAPE002"]
    assert editor.client.registrations == []
    (tmp_path / "pyproject.toml").write_text(PYPROJECT.format(code="TAPE") + "\n# edited\n")
    editor.insert(uri, "import tensorflow", "# an edit\n")
    assert codes(await editor.diagnostics(uri)) == ["FUNC001"]
