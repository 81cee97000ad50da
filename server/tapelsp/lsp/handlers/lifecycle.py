"""initialize, initialized, shutdown: negotiation, settings, worker start-up and tear-down."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from lsprotocol import types

if TYPE_CHECKING:
    from ..server import TapeLanguageServer

log = logging.getLogger("tapelsp.lsp")

PYPROJECT_WATCH_ID = "tapelsp-pyproject-watch"


def register(server: "TapeLanguageServer") -> None:
    @server.feature(types.INITIALIZE)
    def initialize(ls: "TapeLanguageServer", params: types.InitializeParams) -> None:
        ls.session.initialize(params, ls.workspace.position_encoding)
        ls.session.pool.start()

    @server.feature(types.INITIALIZED)
    async def initialized(ls: "TapeLanguageServer", params: types.InitializedParams) -> None:
        session = ls.session
        if session.features.watched_files_registration:
            watcher = types.FileSystemWatcher(glob_pattern="**/pyproject.toml")
            registration = types.Registration(
                id=PYPROJECT_WATCH_ID, method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=[watcher]))
            _background(ls.client_register_capability_async(types.RegistrationParams(registrations=[registration])),
                        "registering the pyproject.toml watcher")
        try:
            if session.features.configuration:
                await pull_configuration(ls)
        finally:
            session.settings_arrived()

    @server.feature(types.SHUTDOWN)
    async def shutdown(ls: "TapeLanguageServer", params: None) -> None:
        await ls.session.close()


async def pull_configuration(ls: "TapeLanguageServer") -> None:
    """Ask the client for the `tapelsp` section; apply it when the client has one."""
    params = types.ConfigurationParams(items=[types.ConfigurationItem(section="tapelsp")])
    try:
        result = await asyncio.wait_for(ls.workspace_configuration_async(params), 10.0)
    except Exception as error:  # a client that never answers must not hang the server
        log.warning("workspace/configuration failed: %s", error)
        return
    value = result[0] if isinstance(result, (list, tuple)) and result else None
    if value is not None:
        ls.session.apply_settings(value)


def _background(coroutine, what: str) -> None:
    task = asyncio.ensure_future(coroutine)

    def done(finished: asyncio.Future) -> None:
        if not finished.cancelled() and finished.exception() is not None:
            log.warning("%s failed: %s", what, finished.exception())

    task.add_done_callback(done)
