"""pygls's protocol with three changes.

- Text and notebook synchronisation is kept by the session (`tapelsp.lsp.documents`),
  which splits lines where LSP does; pygls's workspace copy is not kept at all.
- `initialize` drops the pull-diagnostics capability for clients that cannot pull
  (they get diagnostics pushed instead).
- A request whose parameters cannot be read is answered with InvalidParams instead of
  being dropped (pygls logs it, and the client would wait forever).
"""

from __future__ import annotations

import logging
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

log = logging.getLogger("tapelsp.lsp")


class TapeProtocol(LanguageServerProtocol):
    def _user(self, method: str, params: Any):
        handler = self.fm.features.get(method)
        if handler is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams):
        yield from self._user(types.TEXT_DOCUMENT_DID_OPEN, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams):
        yield from self._user(types.TEXT_DOCUMENT_DID_CHANGE, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams):
        yield from self._user(types.TEXT_DOCUMENT_DID_CLOSE, params)

    @lsp_method(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def lsp_notebook_document__did_open(self, params: types.DidOpenNotebookDocumentParams):
        yield from self._user(types.NOTEBOOK_DOCUMENT_DID_OPEN, params)

    @lsp_method(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def lsp_notebook_document__did_change(self, params: types.DidChangeNotebookDocumentParams):
        yield from self._user(types.NOTEBOOK_DOCUMENT_DID_CHANGE, params)

    @lsp_method(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def lsp_notebook_document__did_close(self, params: types.DidCloseNotebookDocumentParams):
        yield from self._user(types.NOTEBOOK_DOCUMENT_DID_CLOSE, params)

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams):
        result = yield from super().lsp_initialize(params)
        if getattr(params.capabilities.text_document, "diagnostic", None) is None:
            result.capabilities.diagnostic_provider = None
        return result

    def structure_message(self, data: Any) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            request_id = data.get("id") if isinstance(data, dict) else None
            if isinstance(data, dict) and "method" in data and isinstance(request_id, (str, int)) \
                    and not isinstance(request_id, bool):
                method = data.get("method")
                log.warning("unreadable parameters for request %r (%s); answered with InvalidParams",
                            method, request_id)
                self._send_response(request_id, error=types.ResponseError(
                    code=types.ErrorCodes.InvalidParams, message=f"tapelsp cannot read the parameters of {method}"))
            raise error
