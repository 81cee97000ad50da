"""The tapelsp language server: a pygls `LanguageServer` holding one `Session`."""

from __future__ import annotations

import logging
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from .. import __version__
from .handlers import register_all
from .probing import ProbeRefused
from .protocol import TapeProtocol, serve_stdio
from .session import Session

log = logging.getLogger("tapelsp.lsp")


def notebook_sync() -> types.NotebookDocumentSyncOptions:
    # '*' matches every notebook type. Every cell is synchronised, markdown too, so that cells
    # are numbered as in the file (and as `tapelsp --check` numbers them); only Python code
    # cells are analysed (`notebooks.python_cells`).
    return types.NotebookDocumentSyncOptions(
        notebook_selector=[types.NotebookDocumentFilterWithNotebook(notebook="*")],
        save=False,
    )


class TapeLanguageServer(LanguageServer):
    def __init__(self, *, workers: int = 2) -> None:
        super().__init__("tapelsp", __version__, protocol_cls=TapeProtocol,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
                         notebook_document_sync=notebook_sync())
        self.session = Session(self, workers=workers)
        register_all(self)

    def start_io(self, stdin: Any = None, stdout: Any = None) -> None:
        """Serve over standard input/output with tapelsp's own reading loop (`protocol.serve_stdio`)."""
        serve_stdio(self, stdin, stdout)

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Log it; never pop up a message for every malformed message a client sends."""
        if isinstance(error, ProbeRefused):
            return  # a refusal is an answer (the user was told), not a server error
        log.error("%s: %s", getattr(source, "__name__", source), error)
        try:
            self.window_log_message(types.LogMessageParams(type=types.MessageType.Error,
                                                           message=f"tapelsp: {error}"))
        except Exception:  # the connection itself may be what failed
            pass
