"""The live probe through the language server: `tapelsp/probe`, `workspace/executeCommand
tapelsp.probe` and `tapelsp.attach`, auto-attach. The server and a real Jupyter kernel in
`.venv/bin/python` (the interpreter running these tests), with real TensorFlow where a
finding is to be confirmed (those tests are slow: few of them)."""

from __future__ import annotations

import asyncio
import os
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from .conftest import HANG_GUARD, Editor, _plain

pytestmark = pytest.mark.asyncio

PYTHON = sys.executable
ENABLED = {"probe": {"enabled": True, "python": PYTHON, "timeout": 120}}

# A tf.Variable created in a tf.function (FUNC001) and a shadowed tape (TAPE001, TAPE002):
# TensorFlow raises for both, the first one caught so that the program goes on.
BOTH = '''import tensorflow as tf


@tf.function
def step(x):
    v = tf.Variable(1.0)
    return v * x


try:
    step(tf.constant(2.0))
except ValueError as error:
    print("step failed:", error)

x = tf.constant(3.0)
with tf.GradientTape() as tape:
    tape.watch(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    dy = tape.gradient(y, x)
d2y = tape.gradient(dy, x)
'''

# Runs until it is stopped; says so in a file first. Mentions tf. so that it is analysed.
SLEEPER = '''import pathlib
import time

pathlib.Path({marker!r}).write_text("running")
time.sleep(600)  # tf.function is not used here
'''


async def request(editor: Editor, method: str, params: Any, msg_id: str | None = None) -> Any:
    future = editor.client.protocol.send_request(method, params, msg_id=msg_id)
    return await asyncio.wait_for(asyncio.wrap_future(future) if not isinstance(future, asyncio.Future)
                                  else future, HANG_GUARD)


async def probe(editor: Editor, uri: str, **extra: Any) -> dict:
    return _plain(await request(editor, "tapelsp/probe", {"textDocument": {"uri": uri}, **extra}))


def write(tmp_path: Path, name: str, text: str) -> str:
    (tmp_path / name).write_text(text, encoding="utf-8")
    return (tmp_path / name).as_uri()


def runtime(diagnostic: types.Diagnostic) -> dict | None:
    data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
    return data.get("runtime")


def process_alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read().decode()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2:][:1] not in ("Z", "X")


def descendants(pid: int) -> list[tuple[int, str]]:
    from tapelsp.lsp.probe_process import children_of

    out = []
    for child in children_of(pid):
        try:
            command = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        out.append((child, command))
    return out


# -- refusals -------------------------------------------------------------------------------
@pytest.mark.parametrize("init", [None, {"probe": {"enabled": False}}, {"probe": {"timeout": 5}}])
async def test_refused_when_the_probe_is_not_enabled(start_editor, tmp_path, init):
    uri = write(tmp_path, "both.py", BOTH)
    editor = await start_editor("vscode", init=init)
    editor.open(uri, BOTH)
    await editor.diagnostics(uri)
    with pytest.raises(JsonRpcException) as refused:
        await probe(editor, uri)
    assert refused.value.code == -32803  # RequestFailed
    assert "tapelsp.probe.enabled" in refused.value.message
    assert any("probe is off" in m.message for m in editor.client.messages)
    status = await editor.status()
    assert status["probe"]["runs"] == 0  # no probe process was started
    assert not any(runtime(d) for d in await editor.diagnostics(uri))


async def test_refused_in_an_untrusted_workspace_even_when_enabled(start_editor, tmp_path):
    uri = write(tmp_path, "both.py", BOTH)
    editor = await start_editor("vscode", init={**ENABLED, "workspaceTrusted": False})
    editor.open(uri, BOTH)
    with pytest.raises(JsonRpcException) as refused:
        await probe(editor, uri)
    assert "untrusted workspace" in refused.value.message
    assert any("untrusted" in m.message and m.type == types.MessageType.Warning for m in editor.client.messages)
    # Trust granted later (VS Code sends the settings again): the refusal is about trust no more.
    editor.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"tapelsp": {**ENABLED, "workspaceTrusted": True, "probe": {"enabled": False}}}))
    with pytest.raises(JsonRpcException) as refused:
        await probe(editor, uri)
    assert "untrusted" not in refused.value.message and "tapelsp.probe.enabled" in refused.value.message
    assert (await editor.status())["probe"]["runs"] == 0


async def test_unsaved_changes_are_refused_rather_than_probing_other_code(start_editor, tmp_path):
    uri = write(tmp_path, "both.py", BOTH)
    editor = await start_editor("vscode", init=ENABLED)
    editor.open(uri, BOTH + "print('not saved')\n")
    with pytest.raises(JsonRpcException) as refused:
        await probe(editor, uri)
    assert "save it first" in refused.value.message
    assert (await editor.status())["probe"]["runs"] == 0


async def test_the_server_advertises_the_request_and_the_commands(start_editor):
    editor = await start_editor("vscode")
    capabilities = editor.initialize_result.capabilities  # type: ignore[attr-defined]
    assert capabilities.experimental == {"tapelspProbe": True}
    assert set(capabilities.execute_command_provider.commands) == {"tapelsp.probe", "tapelsp.attach"}
    vscode = await start_editor("vscode", init={"serverCommands": False})
    assert vscode.initialize_result.capabilities.execute_command_provider is None  # type: ignore[attr-defined]
    assert vscode.initialize_result.capabilities.experimental == {"tapelspProbe": True}  # type: ignore[attr-defined]


# -- run mode with TensorFlow -------------------------------------------------------------------
async def test_probe_request_confirms_findings_with_evidence_and_reports_progress(start_editor, tmp_path):
    uri = write(tmp_path, "both.py", BOTH)
    editor = await start_editor("vscode", init=ENABLED)
    editor.open(uri, BOTH)
    static = await editor.diagnostics(uri)
    assert {"FUNC001", "TAPE001"} <= {d.code for d in static} and not any(runtime(d) for d in static)

    answer = await probe(editor, uri)
    assert answer["published"] is True and answer["confirmed"] >= 2, answer
    probed = {d.code: d for d in await editor.diagnostics(uri)}
    for code in ("FUNC001", "TAPE001"):
        marked = runtime(probed[code])
        assert marked and marked["status"] == "confirmed", probed[code]
        assert "[confirmed at runtime:" in probed[code].message
        assert any(r.message.startswith("at runtime") for r in probed[code].related_information or ())
    assert "tf.function only supports singleton tf.Variables" in runtime(probed["FUNC001"])["evidence"]
    assert "non-persistent GradientTape" in runtime(probed["TAPE001"])["evidence"]
    # The fix offers of the static findings are still there.
    assert probed["FUNC001"].data["fixable"] is True

    # Progress: the server created a token and sent begin ... end on it.
    kinds = [[getattr(v, "kind", None) for v in values] for values in editor.client.progress_reports.values()]
    assert any(k and k[0] == "begin" and k[-1] == "end" for k in kinds), kinds
    assert any("probed both.py" in m.message for m in editor.client.log_messages)

    # An edit brings the static findings back: a runtime fact about old text is not kept.
    editor.insert(uri, "x = tf.constant(3.0)", "# edited\n")
    after = await editor.diagnostics(uri)
    assert {"FUNC001", "TAPE001"} <= {d.code for d in after} and not any(runtime(d) for d in after)


@pytest.mark.parametrize("name", ["neovim-0.9", "neovim-0.11"])
async def test_execute_command_probes_for_editors_without_the_request(start_editor, tmp_path, name):
    uri = write(tmp_path, "both.py", BOTH)
    editor = await start_editor(name, init=ENABLED)
    editor.open(uri, BOTH)
    await editor.diagnostics(uri)
    answer = _plain(await asyncio.wait_for(editor.client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="tapelsp.probe", arguments=[uri])), HANG_GUARD))
    assert answer["confirmed"] >= 2 and answer["published"], answer
    # Pushed before the answer (Neovim 0.9), or there at the next pull (Neovim 0.11, which
    # cannot be asked to pull again).
    marked = [d for d in await editor.diagnostics(uri) if (runtime(d) or {}).get("status") == "confirmed"]
    assert {"FUNC001", "TAPE001"} <= {d.code for d in marked}


# -- responsiveness and cancellation ---------------------------------------------------------------
async def test_hover_is_answered_while_a_probe_runs_and_cancel_kills_the_kernel(start_editor, tmp_path):
    marker = tmp_path / "started"
    text = SLEEPER.format(marker=str(marker)) + BOTH
    uri = write(tmp_path, "sleeper.py", text)
    editor = await start_editor("vscode", init=ENABLED)
    editor.open(uri, text)
    await editor.diagnostics(uri)
    msg_id = f"probe-{uuid.uuid4()}"
    pending = asyncio.ensure_future(request(editor, "tapelsp/probe", {"textDocument": {"uri": uri}}, msg_id))
    while not marker.exists():  # the user's program runs in the kernel
        assert not pending.done(), pending.result()
        await asyncio.sleep(0.1)
    status = await editor.status()
    [process] = status["probe"]["processes"]
    assert process["uri"] == uri
    probe_pid = process["pid"]
    started = descendants(probe_pid)
    assert any("kernel.json" in command for _pid, command in started), started  # the kernel

    hover = await editor.hover(uri, editor.at(uri, "tf.Variable"))
    assert hover is not None and "FUNC001" in str(hover.contents)
    assert not pending.done()

    editor.client.protocol.notify("$/cancelRequest", types.CancelParams(id=msg_id))
    with pytest.raises(JsonRpcException) as cancelled:
        await pending
    assert cancelled.value.code == -32800  # RequestCancelled
    pids = [probe_pid, *(pid for pid, _command in started)]
    while any(process_alive(pid) for pid in pids):  # the hang guard fails the test if they stay
        await asyncio.sleep(0.1)
    assert (await editor.status())["probe"]["running"] == []
    assert not any(runtime(d) for d in await editor.diagnostics(uri))


# -- attach mode -----------------------------------------------------------------------------
STEP_CELL = "@tf.function\ndef step(x):\n    v = tf.Variable(1.0)\n    return v * x\n"
CALL_CELL = "try:\n    step(tf.constant(2.0))\nexcept ValueError as error:\n    print(error)\n"
CELLS = [("code", "import tensorflow as tf\n"), ("markdown", "# A step"), ("code", STEP_CELL), ("code", CALL_CELL)]


def open_notebook(editor: Editor, path: Path, metadata: dict | None) -> list[str]:
    uri = path.as_uri()
    cells = [f"vscode-notebook-cell:{path}#C{index}" for index in range(len(CELLS))]
    editor.client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
        notebook_document=types.NotebookDocument(
            uri=uri, notebook_type="jupyter-notebook", version=0, metadata=metadata,
            cells=[types.NotebookCell(kind=types.NotebookCellKind.Code if kind == "code" else
                                      types.NotebookCellKind.Markup, document=cell)
                   for cell, (kind, _text) in zip(cells, CELLS)]),
        cell_text_documents=[types.TextDocumentItem(uri=cell, language_id="python" if kind == "code" else "markdown",
                                                    version=1, text=text)
                             for cell, (kind, text) in zip(cells, CELLS)]))
    return cells


def edit_cell(editor: Editor, path: Path, cell: str, text: str, version: int) -> None:
    editor.client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
        notebook_document=types.VersionedNotebookDocumentIdentifier(version=version, uri=path.as_uri()),
        change=types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(text_content=[
            types.NotebookDocumentCellContentChanges(
                document=types.VersionedTextDocumentIdentifier(uri=cell, version=version + 1),
                changes=[types.TextDocumentContentChangeWholeDocument(text=text)])]))))


async def test_auto_attach_is_off_by_default(start_editor, tmp_path):
    connection = tmp_path / "kernel-none.json"  # no kernel behind it: contacting it would fail
    connection.write_text("{}")
    editor = await start_editor("vscode", init={"probe": {"enabled": True}})
    path = tmp_path / "steps.ipynb"
    cells = open_notebook(editor, path, {"tapelsp": {"connectionFile": str(connection)}})
    await editor.pull(cells[2])
    edit_cell(editor, path, cells[3], CALL_CELL + "\n", 1)
    await editor.pull(cells[3])
    status = await editor.status()
    assert status["probe"]["attachments"] == [
        {"uri": path.as_uri(), "connectionFile": str(connection), "attaches": 0, "pending": False}]
    assert status["probe"]["runs"] == 0


async def test_auto_attach_merges_what_a_running_kernel_recorded(start_editor, tmp_path):
    from tapelsp.probe.kernel import KernelProcess
    from tapelsp.probe.run import LOAD_EXTENSION
    from tapelsp.probe.report import CELL_ID_PREFIX

    import time

    with KernelProcess(PYTHON, cwd=str(tmp_path)) as kernel:
        deadline = time.monotonic() + HANG_GUARD
        assert kernel.run_silent(LOAD_EXTENSION, deadline).status == "ok"
        # The notebook's cells as a front end runs them (cell ids name the cells, as run mode does).
        for number, (kind, text) in enumerate(CELLS, start=1):
            if kind == "code":
                assert kernel.run(text, deadline, cell_id=f"{CELL_ID_PREFIX}{number}").status == "ok"
        connection = kernel.manager.connection_file
        editor = await start_editor("vscode", init={"probe": {"enabled": True, "autoAttach": True}})
        path = tmp_path / "steps.ipynb"
        cells = open_notebook(editor, path, {"tapelsp": {"connectionFile": connection}})

        async def confirmed() -> list:
            while True:
                found = [d for d in await editor.pull(cells[2]) if (runtime(d) or {}).get("status") == "confirmed"]
                if found:
                    return found
                await editor._changed()  # the refresh the server sends after the attach
        found = await asyncio.wait_for(confirmed(), HANG_GUARD)
        assert [d.code for d in found] == ["FUNC001"]
        assert "tf.function only supports singleton tf.Variables" in runtime(found[0])["evidence"]
        # Cells are numbered as in the file, markdown included (as `tapelsp --check` numbers them).
        assert "on line 3 of cell 3" in runtime(found[0])["evidence"]
        status = await editor.status()
        assert status["probe"]["attachments"][0]["attaches"] >= 1
        assert kernel.alive()  # asked, not disturbed


async def test_execute_command_is_cancelled_through_its_progress(start_editor, tmp_path):
    """workspace/executeCommand cannot be cancelled by its request in pygls: the probe's
    progress is cancellable (window/workDoneProgress/cancel), and that stops it and its kernel."""
    marker = tmp_path / "started"
    text = SLEEPER.format(marker=str(marker))
    uri = write(tmp_path, "sleeper.py", text)
    editor = await start_editor("neovim-0.9", init=ENABLED)
    editor.open(uri, text)
    pending = asyncio.ensure_future(asyncio.wait_for(editor.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="tapelsp.probe", arguments=[{"uri": uri, "timeout": 300}])), HANG_GUARD))
    while not marker.exists():
        assert not pending.done(), pending.result()
        await asyncio.sleep(0.1)
    [process] = (await editor.status())["probe"]["processes"]
    pids = [process["pid"], *(pid for pid, _command in descendants(process["pid"]))]
    assert len(pids) > 1, "no kernel under the probe process"
    [token] = [token for token, values in editor.client.progress_reports.items()
               if values and getattr(values[0], "cancellable", False)]
    editor.client.protocol.notify("window/workDoneProgress/cancel", types.WorkDoneProgressCancelParams(token=token))
    with pytest.raises(JsonRpcException) as cancelled:
        await pending
    assert cancelled.value.code == -32800
    while any(process_alive(pid) for pid in pids):
        await asyncio.sleep(0.1)
    assert getattr(editor.client.progress_reports[token][-1], "kind", None) == "end"


async def test_a_notebook_is_probed_as_saved_and_its_findings_land_on_its_cells(start_editor, tmp_path):
    """Run mode on a notebook: the saved .ipynb runs cell by cell in a kernel; the FUNC001
    finding of cell 3 (a markdown cell before it) is confirmed on that cell."""
    import json

    path = tmp_path / "steps.ipynb"
    path.write_text(json.dumps({"cells": [{"cell_type": kind, "source": text, "metadata": {},
                                           **({"outputs": [], "execution_count": None} if kind == "code" else {})}
                                          for kind, text in CELLS],
                                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}), encoding="utf-8")
    editor = await start_editor("vscode", init=ENABLED)
    cells = open_notebook(editor, path, None)
    assert "FUNC001" in {d.code for d in await editor.pull(cells[2])}
    answer = await probe(editor, path.as_uri())
    assert answer["confirmed"] >= 1 and answer["published"], answer
    [confirmed] = [d for d in await editor.pull(cells[2]) if runtime(d)]
    assert confirmed.code == "FUNC001" and runtime(confirmed)["status"] == "confirmed"
    assert "on line 3 of cell 3" in runtime(confirmed)["evidence"]
