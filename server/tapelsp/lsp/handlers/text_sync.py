"""textDocument/didOpen, didChange, didClose for Python text documents.

A text document whose name ends in `.ipynb` is jupyterlab-lsp's virtual document (the
notebook's cells joined as Python text); it is analysed as Python with IPython magics
neutralised.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lsprotocol import types

from ..documents import TextDocument

if TYPE_CHECKING:
    from ..server import TapeLanguageServer

log = logging.getLogger("tapelsp.lsp")


def register(server: "TapeLanguageServer") -> None:
    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: "TapeLanguageServer", params: types.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        session = ls.session
        if item.uri in session.cell_owner:
            return  # a notebook cell: synchronised through the notebook
        session.documents[item.uri] = TextDocument.of(item.uri, item.version, item.text, item.language_id)
        session.bump(item.uri)
        session.scheduler.touch(item.uri, delay=0.0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: "TapeLanguageServer", params: types.DidChangeTextDocumentParams) -> None:
        session = ls.session
        uri, version = params.text_document.uri, params.text_document.version
        document = session.documents.get(uri)
        if document is None:
            log.warning("a change to %s, which is not open, was ignored", uri)
            return
        if version <= document.version:  # LSP: versions only go up; an older edit would garble the text
            log.warning("a change to %s with version %d, not newer than its version %d, was ignored",
                        uri, version, document.version)
            return
        for change in params.content_changes:
            document.apply(change, params.text_document.version, session.features.encoding)
        session.bump(document.uri)
        session.scheduler.touch(document.uri)
        session.probes.changed(document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: "TapeLanguageServer", params: types.DidCloseTextDocumentParams) -> None:
        session = ls.session
        uri = params.text_document.uri
        if session.documents.pop(uri, None) is None:
            return
        session.revisions.pop(uri, None)
        session.scheduler.forget(uri)
        session.probes.forget(uri)
        session.clear([uri])
