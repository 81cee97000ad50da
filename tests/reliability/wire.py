"""A small LSP client that speaks raw bytes to the real server process (`python -m tapelsp`).

It frames well-formed messages itself and can also write anything at all to the server's
standard input. A reader thread splits the server's standard output into messages (strictly:
a framing error there fails the test), answers the few requests a server sends a client, and
keeps responses by id and notifications in order. Waiting has a generous hang guard only.
"""

from __future__ import annotations

import itertools
import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Optional

REPO = Path(__file__).resolve().parents[2]
HANG_GUARD = 120.0  # seconds; only so that a broken server fails the test instead of hanging it


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def encode(message: dict) -> bytes:
    return frame(json.dumps(message).encode("utf-8"))


def server_env(extra: Optional[dict[str, str]] = None) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "server"), env.get("PYTHONPATH")]))
    env["TAPELSP_WORKERS"] = "1"
    env.pop("PYTHONWARNINGS", None)
    env.update(extra or {})
    return env


def memory_kb(pid: int, field: str = "VmRSS") -> int:
    """VmRSS (now) or VmHWM (peak) of a process, in kB."""
    with open(f"/proc/{pid}/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise AssertionError(f"no {field} for {pid}")


class WireClient:
    def __init__(self, tmp_path: Path, env: Optional[dict[str, str]] = None) -> None:
        self.stderr_path = tmp_path / "server-stderr.log"
        self._stderr = open(self.stderr_path, "wb")
        self.process = subprocess.Popen([sys.executable, "-m", "tapelsp"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=self._stderr, env=server_env(env),
                                        cwd=tmp_path)
        self.ids = itertools.count(1)  # the tests write their own ids from 90000 up
        self.responses: dict[Any, dict] = {}
        self.notifications: list[dict] = []
        self.null_responses: list[dict] = []
        self.framing_errors: list[str] = []
        self._changed = threading.Condition()
        self._write_lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    # -- writing ----------------------------------------------------------------------------
    def write(self, data: bytes) -> None:
        with self._write_lock:
            self.process.stdin.write(data)
            self.process.stdin.flush()

    def send(self, message: dict) -> None:
        self.write(encode(message))

    def notify(self, method: str, params: Any = None) -> None:
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def request_async(self, method: str, params: Any = None) -> int:
        request_id = next(self.ids)
        message = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return request_id

    def request(self, method: str, params: Any = None) -> dict:
        """The whole response message (with "result" or "error")."""
        return self.response(self.request_async(method, params))

    def response(self, request_id: Any) -> dict:
        return self.wait(lambda: self.responses.get(request_id))

    def wait(self, condition: Callable[[], Any], guard: float = HANG_GUARD) -> Any:
        end = time.monotonic() + guard
        with self._changed:
            while True:
                value = condition()
                if value:
                    return value
                if self.process.poll() is not None and not self._reader.is_alive():
                    raise AssertionError(f"the server exited with {self.process.returncode}: {self.stderr()[-3000:]}")
                remaining = end - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(f"no answer within the hang guard; stderr: {self.stderr()[-3000:]}")
                self._changed.wait(min(remaining, 0.5))

    # -- the LSP verbs the tests use ----------------------------------------------------------
    def initialize(self) -> dict:
        answer = self.request("initialize", {
            "processId": os.getpid(), "rootUri": None,
            "capabilities": {"textDocument": {"diagnostic": {"dynamicRegistration": False},
                                              "hover": {"contentFormat": ["markdown", "plaintext"]}},
                             "general": {"positionEncodings": ["utf-16"]}}})
        assert "result" in answer, answer
        self.notify("initialized", {})
        return answer["result"]

    def open(self, uri: str, text: str, version: int = 1) -> None:
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python",
                                                              "version": version, "text": text}})

    def change(self, uri: str, version: int, changes: list[dict]) -> None:
        self.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                               "contentChanges": changes})

    def diagnostics(self, uri: str) -> list[dict]:
        answer = self.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})
        assert "result" in answer, answer
        return answer["result"]["items"]

    def shutdown(self) -> int:
        """shutdown + exit; the server's exit status."""
        answer = self.request("shutdown")
        assert answer.get("result", "missing") is None, answer
        self.notify("exit")
        return self.process.wait(timeout=HANG_GUARD)

    def alive(self) -> bool:
        return self.process.poll() is None

    def stderr(self) -> str:
        self._stderr.flush()
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    def logged(self) -> list[str]:
        """The server's window/logMessage texts so far."""
        return [n["params"]["message"] for n in list(self.notifications) if n.get("method") == "window/logMessage"]

    def close(self) -> None:
        """End of input first (the server ends and stops its workers), SIGKILL if it does not."""
        if self.process.poll() is None:
            try:
                self.process.stdin.close()
            except (OSError, ValueError):
                pass
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.process.wait(timeout=30)
        for stream in (self.process.stdin, self.process.stdout):
            try:
                stream.close()
            except (OSError, ValueError):
                pass
        self._stderr.close()

    # -- reading -------------------------------------------------------------------------------
    def _read(self) -> None:
        stream = self.process.stdout
        try:
            while True:
                length = None
                while True:
                    line = stream.readline()
                    if not line:
                        return
                    if line == b"\r\n":
                        break
                    name, _, value = line.decode("ascii").partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value.strip())
                if length is None:
                    self.framing_errors.append("a message without Content-Length")
                    continue
                body = stream.read(length)
                self._dispatch(json.loads(body))
        except Exception as error:  # noqa: BLE001 - recorded, the test asserts on it
            self.framing_errors.append(repr(error))
        finally:
            with self._changed:
                self._changed.notify_all()

    def _dispatch(self, message: dict) -> None:
        if "method" in message and "id" in message:  # a request to the client
            result: Any = None
            if message["method"] == "workspace/configuration":
                result = [None for _ in message.get("params", {}).get("items", [])]
            try:
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": result})
            except (BrokenPipeError, ValueError):
                pass
            return
        with self._changed:
            if "method" in message:
                self.notifications.append(message)
            elif message.get("id") is None:
                self.null_responses.append(message)  # errors about messages without a usable id
            else:
                self.responses[message["id"]] = message
            self._changed.notify_all()
