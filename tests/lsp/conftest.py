"""End-to-end tests of the language server: the real server (`python -m tapelsp`) over stdio,
driven by pytest-lsp's client with recorded capability sets of real editors.

`editor(name, ...)` starts a server, initializes it as that editor would, and gives an
`Editor` with the few verbs the tests need. Waiting has a generous hang guard only; no
test asserts how long anything takes.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any, AsyncIterator, Callable, Optional

import pytest_asyncio
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from . import editing
from .clients import EDITORS, pulls

SERVER = Path(__file__).resolve().parents[2] / "server"
HANG_GUARD = 180.0  # seconds; only so that a broken server fails the test instead of hanging it


def server_env(extra: Optional[dict[str, str]] = None) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SERVER), env.get("PYTHONPATH")]))
    env.setdefault("TAPELSP_WORKERS", "1")
    env.update(extra or {})
    return env


def _record_publish(client: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
    client.diagnostics[params.uri] = params.diagnostics
    client.published.append(params)  # type: ignore[attr-defined]
    _wake(client)


def _record_refresh(client: LanguageClient, params: None) -> None:
    client.diagnostic_refresh_count += 1
    _wake(client)


def _wake(client: LanguageClient) -> None:
    waiters, client.waiters = client.waiters, []  # type: ignore[attr-defined]
    for future in waiters:
        if not future.done():
            future.set_result(None)


def _accept_registration(client: LanguageClient, params: types.RegistrationParams) -> None:
    client.registrations.extend(params.registrations)  # type: ignore[attr-defined]


def make_client() -> LanguageClient:
    client = LanguageClient(converter_factory=default_converter)
    features = dict(DEFAULT_CLIENT_FEATURES)
    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = _record_publish
    features[types.WORKSPACE_DIAGNOSTIC_REFRESH] = _record_refresh
    features[types.CLIENT_REGISTER_CAPABILITY] = _accept_registration
    register_lsp_features(client, features)
    client.published = []  # type: ignore[attr-defined]
    client.waiters = []  # type: ignore[attr-defined]
    client.registrations = []  # type: ignore[attr-defined]
    return client


class Editor:
    """A client that behaves like one editor: its capabilities, pull or push diagnostics."""

    def __init__(self, client: LanguageClient, capabilities: types.ClientCapabilities, encoding: str) -> None:
        self.client = client
        self.capabilities = capabilities
        self.encoding = encoding
        self.pulls = pulls(capabilities)
        self.texts: dict[str, str] = {}
        self.versions: dict[str, int] = {}
        self.result_ids: dict[str, str] = {}

    # -- waiting ------------------------------------------------------------------------
    async def _changed(self) -> None:
        future = asyncio.get_running_loop().create_future()
        self.client.waiters.append(future)  # type: ignore[attr-defined]
        await asyncio.wait_for(future, HANG_GUARD)

    async def wait_for(self, condition: Callable[[], Any]) -> Any:
        while True:
            value = condition()
            if value:
                return value
            await self._changed()

    # -- documents ------------------------------------------------------------------------
    def open(self, uri: str, text: str, language: str = "python") -> None:
        self.texts[uri] = text
        self.versions[uri] = 1
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)))

    def replace(self, uri: str, start: int, end: int, new_text: str) -> None:
        """An incremental change: code-point offsets `start:end` of the current text become `new_text`."""
        text = self.texts[uri]
        rng = types.Range(start=editing.position(text, start, self.encoding),
                          end=editing.position(text, end, self.encoding))
        self.texts[uri] = text[:start] + new_text + text[end:]
        self.versions[uri] += 1
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]),
            content_changes=[types.TextDocumentContentChangePartial(range=rng, text=new_text)]))

    def insert(self, uri: str, needle: str, new_text: str, *, after: bool = False) -> None:
        index = self.texts[uri].index(needle) + (len(needle) if after else 0)
        self.replace(uri, index, index, new_text)

    def substitute(self, uri: str, old: str, new: str) -> None:
        index = self.texts[uri].index(old)
        self.replace(uri, index, index + len(old), new)

    def apply(self, uri: str, edits: list[types.TextEdit]) -> str:
        """Apply edits from the server as one change (whole-document), like an editor does."""
        text = editing.apply(self.texts[uri], edits, self.encoding)
        self.texts[uri] = text
        self.versions[uri] += 1
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
        return text

    def close(self, uri: str) -> None:
        self.texts.pop(uri, None)
        self.client.text_document_did_close(types.DidCloseTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=uri)))

    # -- diagnostics ----------------------------------------------------------------------
    async def diagnostics(self, uri: str, version: Optional[int] = None) -> list[types.Diagnostic]:
        """The diagnostics for `uri` at its current version (pulled, or waited for when pushed)."""
        version = self.versions.get(uri) if version is None else version
        if self.pulls:
            return await self.pull(uri)
        return await self.pushed(uri, version)

    async def pull(self, uri: str) -> list[types.Diagnostic]:
        report = await asyncio.wait_for(self.client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=uri))), HANG_GUARD)
        assert report.kind == "full"
        return list(report.items)

    async def pushed(self, uri: str, version: Optional[int]) -> list[types.Diagnostic]:
        def latest() -> Any:
            for params in reversed(self.client.published):  # type: ignore[attr-defined]
                if params.uri == uri:
                    return params if (version is None or params.version == version) else None
            return None
        params = await self.wait_for(latest)
        return list(params.diagnostics)

    async def settled(self) -> None:
        """Wait until the server has delivered the results of every open document's
        current version (push mode: everything it had to publish has been sent)."""
        while True:
            status = await self.status()
            if all(document.get("settled") for document in status["documents"]):
                return
            await asyncio.sleep(0.05)

    async def cleared(self, uri: str) -> None:
        """Push mode: wait for the server to clear `uri`."""
        def empty() -> bool:
            for params in reversed(self.client.published):  # type: ignore[attr-defined]
                if params.uri == uri:
                    return not params.diagnostics
            return False
        await self.wait_for(empty)

    # -- requests ---------------------------------------------------------------------------
    async def code_actions(self, uri: str, at: types.Position, only: Optional[list[str]] = None,
                           end: Optional[types.Position] = None) -> list[types.CodeAction]:
        result = await asyncio.wait_for(self.client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), range=types.Range(start=at, end=end or at),
            context=types.CodeActionContext(diagnostics=[], only=only))), HANG_GUARD)
        return [item for item in result or [] if isinstance(item, types.CodeAction)]

    async def resolved(self, action: types.CodeAction) -> types.CodeAction:
        if action.edit is not None:
            return action
        return await asyncio.wait_for(self.client.code_action_resolve_async(action), HANG_GUARD)

    async def hover(self, uri: str, at: types.Position) -> Optional[types.Hover]:
        return await asyncio.wait_for(self.client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=at)), HANG_GUARD)

    async def status(self, workers: bool = False) -> dict:
        """The server's `tapelsp/status` answer, as plain dicts and lists."""
        answer = await asyncio.wait_for(self.client.protocol.send_request_async(
            "tapelsp/status", {"workers": workers}), HANG_GUARD)
        return _plain(answer)

    def at(self, uri: str, needle: str, nth: int = 0) -> types.Position:
        return editing.find(self.texts[uri], needle, self.encoding, nth)


@pytest_asyncio.fixture
async def start_editor(tmp_path: Path) -> AsyncIterator[Callable[..., Any]]:
    """`await start_editor("vscode", init=..., root=..., configuration=..., env=...)` -> Editor."""
    started: list[LanguageClient] = []

    async def start(name: str = "vscode", *, init: Any = None, root: Optional[Path] = None,
                    configuration: Optional[dict] = None, env: Optional[dict[str, str]] = None) -> Editor:
        config = ClientServerConfig(server_command=[sys.executable, "-m", "tapelsp"],
                                    client_factory=make_client, server_env=server_env(env))
        client = await config.start()
        started.append(client)
        if configuration is not None:
            client.set_configuration(configuration, section="tapelsp")
        capabilities = EDITORS[name]()
        root_dir = root or tmp_path
        result = await asyncio.wait_for(client.initialize_session(types.InitializeParams(
            capabilities=capabilities, root_uri=root_dir.as_uri(), initialization_options=init,
            workspace_folders=[types.WorkspaceFolder(uri=root_dir.as_uri(), name=root_dir.name)])), HANG_GUARD)
        encoding = str(getattr(result.capabilities.position_encoding, "value", result.capabilities.position_encoding)
                       or "utf-16")
        editor = Editor(client, capabilities, encoding)
        editor.initialize_result = result  # type: ignore[attr-defined]
        return editor

    yield start
    for client in started:
        try:
            await asyncio.wait_for(client.shutdown_session(), 30)
        except Exception:
            pass
        await client.stop()


def _plain(value: Any) -> Any:
    """pygls hands unknown results over as namedtuples: back to dicts and lists."""
    if hasattr(value, "_asdict"):
        return {key: _plain(item) for key, item in value._asdict().items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def uri_in(directory: Path, name: str) -> str:
    return (directory / name).as_uri()


def codes(diagnostics: list[types.Diagnostic]) -> list[str]:
    return sorted(str(d.code) for d in diagnostics)
