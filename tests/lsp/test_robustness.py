"""What must never happen: garbage or a broken rule kills the server, a dead worker stops
diagnostics, a burst of edits queues one analysis per edit, TensorFlow gets imported."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
from concurrent.futures import Future
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from .conftest import HANG_GUARD, codes, server_env, uri_in
from .samples import BOTH, LEARNER

pytestmark = pytest.mark.asyncio


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


async def test_garbage_over_the_protocol_does_not_kill_the_server(start_editor, tmp_path):
    editor = await start_editor("neovim-0.9")
    uri = uri_in(tmp_path, "learner.py")
    editor.open(uri, LEARNER)
    assert codes(await editor.diagnostics(uri)) == ["FUNC001"]
    protocol = editor.client.protocol
    # A request whose parameters make no sense is answered with InvalidParams.
    answer: Future = Future()
    protocol._request_futures["bad-hover"] = answer
    garbage = [
        b"{{{ not json",
        b"[1, 2, 3]",
        b'"a string"',
        b'{"jsonrpc": "1.0", "id": 99, "method": "textDocument/hover"}',
        b'{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": 7}}',
        b'{"jsonrpc": "2.0", "id": "bad-hover", "method": "textDocument/hover", "params": {"textDocument": 42}}',
        "{\"jsonrpc\": \"2.0\", \"method\": \"no/such/notification\", \"params\": \"\u00e9\"}".encode(),
    ]
    for body in garbage:
        protocol.writer.write(frame(body))
    protocol.writer.write(b"Not-A-Header: nonsense\r\n\r\n")
    with pytest.raises(JsonRpcException) as error:
        await asyncio.wait_for(asyncio.wrap_future(answer), HANG_GUARD)
    assert error.value.code == types.ErrorCodes.InvalidParams
    # Still serving: edits are analysed and requests answered.
    editor.insert(uri, "class Learner", "# still here\n")
    assert [d.range.start.line for d in await editor.diagnostics(uri)] == [10]
    hover = await editor.hover(uri, editor.at(uri, "Variable("))
    assert hover is not None and "FUNC001" in hover.contents.value


BROKEN_RULE = textwrap.dedent("""
    # Planted by tests/lsp/test_robustness.py: TAPE001's check raises.
    from tapelsp.rules import rule_by_code

    def _broken(self, ctx):
        raise RuntimeError("planted failure")

    rule_by_code("TAPE001").check = _broken
""")


async def test_a_rule_that_raises_costs_only_its_own_findings(start_editor, tmp_path):
    plant = tmp_path / "plant"
    plant.mkdir()
    (plant / "sitecustomize.py").write_text(BROKEN_RULE)
    pythonpath = os.pathsep.join([str(plant), server_env()["PYTHONPATH"]])
    editor = await start_editor("neovim-0.9", env={"PYTHONPATH": pythonpath})
    uri = uri_in(tmp_path, "both.py")
    editor.open(uri, BOTH)
    assert codes(await editor.diagnostics(uri)) == ["FUNC001", "TAPE002"]  # no TAPE001, no TL004
    logged = [m.message for m in editor.client.log_messages]
    assert any("rule failed" in m and "TAPE001" in m and "planted failure" in m for m in logged)
    editor.insert(uri, "import tensorflow", "# edit\n")
    assert codes(await editor.diagnostics(uri)) == ["FUNC001", "TAPE002"]


async def test_a_killed_worker_is_replaced(start_editor, tmp_path):
    editor = await start_editor("neovim-0.9")
    uri = uri_in(tmp_path, "learner.py")
    editor.open(uri, LEARNER)
    await editor.diagnostics(uri)
    (pid,) = (await editor.status())["workerPids"]
    os.kill(pid, signal.SIGKILL)
    editor.insert(uri, "class Learner", "\n")
    assert [d.range.start.line for d in await editor.diagnostics(uri)] == [10]
    status = await editor.status()
    assert len(status["workerPids"]) == 1 and status["workerPids"] != [pid]


async def test_a_burst_of_changes_is_analysed_once_for_the_last_version(start_editor, tmp_path):
    editor = await start_editor("neovim-0.9")
    uri = uri_in(tmp_path, "learner.py")
    editor.open(uri, LEARNER)
    assert [d.range.start.line for d in await editor.diagnostics(uri)] == [9]
    for _ in range(200):  # as fast as the client can send them, each one a new version
        editor.insert(uri, "class Learner", "#\n")
    (last,) = await editor.diagnostics(uri, version=201)
    assert last.range.start.line == 209
    assert editor.client.published[-1].version == 201
    (document,) = (await editor.status())["documents"]
    # One analysis when the file was opened, then the last version; one more at most if the
    # server happened to see a pause in the burst. Never one per change.
    assert document["analyses"] <= 4, document
    published_versions = {p.version for p in editor.client.published if p.uri == uri}
    assert published_versions <= {1, 201} | set(range(2, 201))
    assert len(published_versions) <= 4


def mapped_files(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return ""


async def test_the_server_and_its_workers_never_import_tensorflow(start_editor, tmp_path):
    editor = await start_editor("vscode", env={"TAPELSP_WORKERS": "2"})
    uri = uri_in(tmp_path, "both.py")
    editor.open(uri, BOTH)  # `import tensorflow as tf`: read, never run
    assert codes(await editor.diagnostics(uri)) == ["FUNC001", "TAPE001", "TAPE002"]
    await editor.code_actions(uri, editor.at(uri, "tf.Variable("))  # builds fixes (libcst) too
    status = await editor.status(workers=True)
    assert status["tensorflowImported"] is False
    assert len(status["workers"]) == 2
    assert [worker["tensorflowImported"] for worker in status["workers"]] == [False, False]
    if sys.platform.startswith("linux"):
        for pid in [status["pid"], *status["workerPids"]]:
            maps = mapped_files(pid)
            assert maps, pid
            assert "tensorflow" not in maps, pid


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def test_tcp_transport_for_debugging(tmp_path):
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "tapelsp", "--tcp", str(port)], env=server_env(),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        for _ in range(600):
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                break
            except OSError:
                await asyncio.sleep(0.1)
        else:
            pytest.fail("the server did not listen")

        async def request(method: str, params: object, request_id: int) -> dict:
            writer.write(frame(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method,
                                           "params": params}).encode()))
            await writer.drain()
            while True:
                headers = {}
                while (line := await asyncio.wait_for(reader.readline(), HANG_GUARD)) not in (b"\r\n", b""):
                    name, value = line.decode().split(":", 1)
                    headers[name.strip().lower()] = value.strip()
                message = json.loads(await reader.readexactly(int(headers["content-length"])))
                if message.get("id") == request_id:
                    return message

        initialized = await request("initialize", {"processId": None, "rootUri": None, "capabilities": {}}, 1)
        assert initialized["result"]["serverInfo"]["name"] == "tapelsp"
        assert (await request("shutdown", None, 2))["result"] is None
        writer.write(frame(b'{"jsonrpc": "2.0", "method": "exit"}'))
        await writer.drain()
        writer.close()
    finally:
        process.terminate()
        process.wait(30)
