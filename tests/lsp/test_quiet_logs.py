"""Normal operation leaves no pygls lines in the server's log (issue 6): a cancel for a
request that already ended, a refused probe... are answered, not logged as problems."""

from __future__ import annotations

import json
import subprocess
import sys

from .conftest import server_env


def frame(message: dict) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    return f"Content-Length: {len(body)}\r\n\r\n".encode() + body


def read(stream) -> dict:
    length = None
    while True:
        line = stream.readline()
        if not line:
            raise EOFError("the server closed its output")
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    assert length is not None
    return json.loads(stream.read(length))


def test_a_normal_session_logs_nothing_from_pygls(tmp_path):
    uri = (tmp_path / "t.py").as_uri()
    messages = [
        {"id": 1, "method": "initialize", "params": {"processId": None, "rootUri": tmp_path.as_uri(),
                                                     "capabilities": {}}},
        {"method": "initialized", "params": {}},
        {"method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": "import tensorflow as tf\n"}}},
        {"id": 2, "method": "textDocument/hover", "params": {"textDocument": {"uri": uri},
                                                             "position": {"line": 0, "character": 0}}},
        {"method": "$/cancelRequest", "params": {"id": 2}},  # usually after the answer: normal
        {"method": "$/cancelRequest", "params": {"id": 77}},
        {"id": 3, "method": "tapelsp/probe", "params": {"textDocument": {"uri": uri}}},  # refused: probe off
        {"id": 4, "method": "shutdown"},
    ]
    server = subprocess.Popen([sys.executable, "-m", "tapelsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env=server_env())
    try:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(b"".join(frame(m) for m in messages))
        server.stdin.flush()
        answers = {}
        while 4 not in answers:  # every answer up to shutdown's, then exit (as a client does)
            message = read(server.stdout)
            if "id" in message and "method" not in message:
                answers[message["id"]] = message
        server.stdin.write(frame({"method": "exit"}))
        server.stdin.close()
        server.stdout.read()
        log = server.stderr.read().decode()  # type: ignore[union-attr]
        assert server.wait(60) == 0, log
    finally:
        if server.poll() is None:
            server.kill()
    assert answers[3]["error"]["code"] == -32803  # the refusal is an answer
    assert "pygls" not in log, log
    assert "Traceback" not in log, log
