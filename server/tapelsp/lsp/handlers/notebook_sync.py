"""notebookDocument/didOpen, didChange, didClose (LSP 3.17 notebook synchronisation).

The notebook's Python cells are analysed together as one program; findings are
published per cell, and a cell that was removed or became clean is cleared.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from ..notebooks import change_notebook, open_notebook

if TYPE_CHECKING:
    from ..server import TapeLanguageServer


def register(server: "TapeLanguageServer") -> None:
    @server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def did_open(ls: "TapeLanguageServer", params: types.DidOpenNotebookDocumentParams) -> None:
        session = ls.session
        notebook = open_notebook(params)
        session.notebooks[notebook.uri] = notebook
        for cell in notebook.cells:
            session.cell_owner[cell.uri] = notebook.uri
        session.bump(notebook.uri)
        session.scheduler.touch(notebook.uri, delay=0.0)
        session.probes.notebook_metadata(notebook.uri, params.notebook_document.metadata)
        session.probes.changed(notebook.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def did_change(ls: "TapeLanguageServer", params: types.DidChangeNotebookDocumentParams) -> None:
        session = ls.session
        notebook = session.notebooks.get(params.notebook_document.uri)
        if notebook is None:
            return
        removed = change_notebook(notebook, params, session.features.encoding)
        for cell in notebook.cells:
            session.cell_owner[cell.uri] = notebook.uri
        for uri in removed:
            session.cell_owner.pop(uri, None)
        session.clear(removed)
        session.bump(notebook.uri)
        session.scheduler.touch(notebook.uri)
        if params.change.metadata is not None:
            session.probes.notebook_metadata(notebook.uri, params.change.metadata)
        session.probes.changed(notebook.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def did_close(ls: "TapeLanguageServer", params: types.DidCloseNotebookDocumentParams) -> None:
        session = ls.session
        notebook = session.notebooks.pop(params.notebook_document.uri, None)
        if notebook is None:
            return
        uris = notebook.cell_uris() + [item.uri for item in params.cell_text_documents]
        for uri in uris:
            session.cell_owner.pop(uri, None)
        session.revisions.pop(notebook.uri, None)
        session.scheduler.forget(notebook.uri)
        session.probes.forget(notebook.uri)
        session.clear(list(dict.fromkeys(uris)))
