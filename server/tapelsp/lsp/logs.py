"""Where the server's log goes: standard error (the editor's output panel) and, for
warnings and errors, `window/logMessage` to the client. Never standard output, which
carries the protocol."""

from __future__ import annotations

import logging
import sys
import threading
from typing import TYPE_CHECKING

from lsprotocol import types

if TYPE_CHECKING:
    from .server import TapeLanguageServer

_LEVELS = {logging.ERROR: types.MessageType.Error, logging.WARNING: types.MessageType.Warning}


class ClientLogHandler(logging.Handler):
    """Forwards records to the client; only from the server's own thread (pygls is not thread-safe)."""

    def __init__(self, server: "TapeLanguageServer") -> None:
        super().__init__(level=logging.WARNING)
        self.server = server
        self.thread = threading.get_ident()

    def emit(self, record: logging.LogRecord) -> None:
        if threading.get_ident() != self.thread or self.server.protocol.writer is None:
            return
        try:
            kind = _LEVELS.get(record.levelno, types.MessageType.Log)
            self.server.window_log_message(types.LogMessageParams(type=kind, message=f"tapelsp: {self.format(record)}"))
        except Exception:
            pass


class _NotARefusal(logging.Filter):
    """pygls logs every error answer with its traceback; a refused probe is an answer, not an error."""

    def filter(self, record: logging.LogRecord) -> bool:
        from .probing import ProbeRefused

        error = record.exc_info[1] if record.exc_info else None
        return not isinstance(error, ProbeRefused)


def configure(server: "TapeLanguageServer") -> None:
    stderr = logging.StreamHandler(sys.stderr)
    stderr.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [stderr]
    root.setLevel(logging.WARNING)
    # pygls says at INFO and WARNING what happens in normal operation (a cancel for a request
    # that already ended, every message sent...): only its errors are worth a line.
    pygls = logging.getLogger("pygls")
    pygls.setLevel(logging.ERROR)
    stderr.addFilter(_NotARefusal())  # a handler's filter sees the records of every logger
    ours = logging.getLogger("tapelsp")
    ours.setLevel(logging.INFO)
    ours.addHandler(ClientLogHandler(server))
