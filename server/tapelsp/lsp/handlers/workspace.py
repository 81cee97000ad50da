"""workspace/didChangeConfiguration, didChangeWatchedFiles, didChangeWorkspaceFolders."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.uris import to_fs_path

from .lifecycle import pull_configuration

if TYPE_CHECKING:
    from ..server import TapeLanguageServer


def register(server: "TapeLanguageServer") -> None:
    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: "TapeLanguageServer", params: types.DidChangeConfigurationParams) -> None:
        settings = params.settings
        if isinstance(settings, dict) and "tapelsp" in settings:
            ls.session.apply_settings(settings["tapelsp"])
        elif ls.session.features.configuration:
            # VS Code and others send nothing useful here: ask for the section instead.
            await pull_configuration(ls)
        elif isinstance(settings, dict) and settings:
            ls.session.apply_settings(settings)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(ls: "TapeLanguageServer", params: types.DidChangeWatchedFilesParams) -> None:
        paths = [to_fs_path(change.uri) or change.uri for change in params.changes]
        if any(os.path.basename(path) == "pyproject.toml" for path in paths):
            ls.session.reload_configuration()

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def did_change_folders(ls: "TapeLanguageServer", params: types.DidChangeWorkspaceFoldersParams) -> None:
        session = ls.session
        removed = {to_fs_path(folder.uri) for folder in params.event.removed}
        added = [to_fs_path(folder.uri) for folder in params.event.added]
        session.folders = [f for f in session.folders if f not in removed] + [f for f in added if f]
        session.reload_configuration()
