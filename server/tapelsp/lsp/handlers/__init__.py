"""LSP handlers, one module per area. Each module has `register(server)`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import code_actions, diagnostics, hover, lifecycle, notebook_sync, probe, status, text_sync, workspace

if TYPE_CHECKING:
    from ..server import TapeLanguageServer

AREAS = (lifecycle, text_sync, notebook_sync, diagnostics, code_actions, hover, workspace, status, probe)


def register_all(server: "TapeLanguageServer") -> None:
    for area in AREAS:
        area.register(server)
