"""pygls's protocol with three changes.

- Text and notebook synchronisation is kept by the session (`tapelsp.lsp.documents`),
  which splits lines where LSP does; pygls's workspace copy is not kept at all.
- `initialize` drops the pull-diagnostics capability for clients that cannot pull
  (they get diagnostics pushed instead), and adds the probe's (see `capabilities`).
- A request whose parameters cannot be read is answered with InvalidParams instead of
  being dropped (pygls logs it, and the client would wait forever).
- Strings and integers in parameters must be strings and integers (cattrs would convert).
- Standard input is read by `serve_stdio` instead of pygls's loop: the framing survives
  anything (`framing`), a body that is not JSON is answered with ParseError (-32700), a
  value that is not a JSON-RPC 2.0 message with InvalidRequest (-32600), a request before
  `initialize` with ServerNotInitialized (-32002) (a notification is dropped), after
  `shutdown` with InvalidRequest, and a message without `params` is read as `params: null`.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
from typing import Any, BinaryIO, Optional

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.protocol import LanguageServerProtocol
from pygls.io_ import StdoutWriter
from pygls.protocol.language_server import lsp_method

from .framing import FrameReader, Incoming, read_message

from .capabilities import probe_capabilities

log = logging.getLogger("tapelsp.lsp")


def _strict(kind: type, previous: Any):
    def structure(value: Any, target: Any) -> Any:
        if target is not kind:  # an enum of str or int values: as before
            return previous(value, target)
        if type(value) is not kind:  # noqa: E721 - True is not an int here, nor 12 a str
            raise TypeError(f"expected {kind.__name__}, got {type(value).__name__}")
        return value
    return structure


class TapeProtocol(LanguageServerProtocol):
    def __init__(self, server: Any, converter: Any) -> None:
        super().__init__(server, converter)
        self.initialize_received = False  # `serve_stdio` answers requests before it with -32002
        # cattrs would turn 12 into "12" and "9" into 9: a parameter of the wrong type is
        # InvalidParams (a request) or an ignored notification, never a guess.
        for kind in (str, int, bool):
            converter.register_structure_hook(kind, _strict(kind, converter.get_structure_hook(kind)))

    def _check_handler_result(self, future: Any) -> None:
        super()._check_handler_result(future)
        # pygls keeps the future of each notification whose handler is a generator or a
        # coroutine (didOpen, didChange... here) in `_request_futures`, from which it removes
        # only requests' futures, when it answers them: one entry more per change for the
        # life of the server (bench/editor_memory.py: 2 KB an edit). Done, it is no use.
        for key in [key for key, value in self._request_futures.items() if value is future]:
            del self._request_futures[key]

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
        probe_capabilities(params, result.capabilities)
        return result

    def structure_message(self, data: Any) -> Any:
        if isinstance(data, dict) and "method" in data and "params" not in data:
            data = {**data, "params": None}  # JSON-RPC lets a message leave `params` out
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


PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
SERVER_NOT_INITIALIZED = -32002
QUEUED_MESSAGES = 8  # read ahead of the handlers; the reader waits when the queue is full


def invalid_message(value: Any) -> Optional[tuple[Any, str, int]]:
    """(id to answer, reason, error code) when `value` is not a JSON-RPC 2.0 message LSP allows."""
    if isinstance(value, list):
        return None, "a batch (LSP does not use JSON-RPC batches)", INVALID_REQUEST
    if not isinstance(value, dict):
        return None, f"a JSON {type(value).__name__}, not a JSON-RPC message", INVALID_REQUEST
    has_id = "id" in value
    request_id = value.get("id")
    valid_id = isinstance(request_id, (str, int)) and not isinstance(request_id, bool)
    answer_to = request_id if valid_id else None
    if value.get("jsonrpc") != "2.0":
        return answer_to, "not a JSON-RPC 2.0 message (\"jsonrpc\" is not \"2.0\")", INVALID_REQUEST
    if has_id and not valid_id:
        return None, "an id that is neither a number nor a string", INVALID_REQUEST
    if "method" in value:
        if not isinstance(value["method"], str):
            return answer_to, "a method that is not a string", INVALID_REQUEST
        if "params" in value and not isinstance(value["params"], (dict, list, type(None))):
            return answer_to, "params that are neither an object nor an array", INVALID_PARAMS
        return None
    if has_id and ("result" in value or "error" in value):
        return None  # a response to one of our requests
    return answer_to, "neither a request, a notification nor a response", INVALID_REQUEST


def receive(protocol: "TapeProtocol", item: Incoming) -> None:
    """Hand one thing the client sent to pygls, or answer and log what was wrong with it."""
    if item.problem:
        log.warning("framing: %s", item.problem)
    if item.parse_error is not None:
        log.warning("%s; answered with ParseError", item.parse_error)
        _send_error(protocol, None, PARSE_ERROR, f"tapelsp: {item.parse_error}")
        return
    if item.value is None:
        return
    invalid = invalid_message(item.value)
    if invalid is not None:
        answer_to, reason, code = invalid
        if code == INVALID_PARAMS and answer_to is None:
            log.warning("a notification with %s: ignored", reason)
            return
        log.warning("an invalid message: %s; answered with error %d", reason, code)
        _send_error(protocol, answer_to, code, f"tapelsp: {reason}")
        return
    data = item.value
    if protocol._shutdown and "id" in data and data.get("method") not in (None, types.EXIT):
        _send_error(protocol, data["id"], INVALID_REQUEST, "tapelsp: the server is shutting down")
        return
    method = data.get("method")
    if not protocol.initialize_received and method not in (None, types.INITIALIZE, types.EXIT):
        if "id" in data:  # LSP: an error for a request before initialize, notifications dropped
            _send_error(protocol, data["id"], SERVER_NOT_INITIALIZED, "tapelsp: initialize first")
        else:
            log.warning("%s before initialize: ignored", method)
        return
    try:
        message = protocol.structure_message(data)
    except JsonRpcException as error:  # requests were answered with InvalidParams already
        log.warning("unreadable %s %r: %s", "request" if "id" in data else "message", data.get("method"), error)
        return
    if method == types.INITIALIZE:
        protocol.initialize_received = True
    try:
        protocol.handle_message(message)
    except Exception as error:  # noqa: BLE001 - one bad message must not end the server
        log.exception("handling %r failed", data.get("method"))
        protocol._server._report_server_error(error, JsonRpcException)


def _send_error(protocol: "TapeProtocol", request_id: Any, code: int, message: str) -> None:
    protocol._send_data({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}})


async def serve_frames(server: Any, stream: BinaryIO) -> None:
    """Read messages from `stream` in a thread of their own and handle them here, until the
    stream ends or the server stops. The thread waits while `QUEUED_MESSAGES` are unhandled,
    so a client that floods the server fills a pipe, not the server's memory."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue = asyncio.Queue(maxsize=QUEUED_MESSAGES)
    reader = FrameReader(stream)

    def pump() -> None:
        item: Optional[Incoming] = None
        try:
            while True:
                item = read_message(reader)
                asyncio.run_coroutine_threadsafe(queue.put(item), loop).result()
                if item is None:
                    return
        except RuntimeError:
            return  # the event loop is gone: the server is ending
        except Exception:  # noqa: BLE001 - reading failed (the stream broke): end as at its end
            log.exception("reading from the client failed")
            try:
                asyncio.run_coroutine_threadsafe(queue.put(None), loop)
            except RuntimeError:
                pass

    threading.Thread(target=pump, name="tapelsp-stdin", daemon=True).start()
    while not server._stop_event.is_set():
        item = await queue.get()
        if item is None:
            return
        receive(server.protocol, item)


def serve_stdio(server: Any, stdin: Optional[BinaryIO] = None, stdout: Optional[BinaryIO] = None) -> None:
    """`LanguageServer.start_io` with `serve_frames` reading standard input."""
    server._stop_event = threading.Event()
    server.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
    try:
        # Unbuffered: the reading thread must not hold the lock of sys.stdin's buffer (see FrameReader).
        stream = stdin or open(sys.stdin.fileno(), "rb", buffering=0, closefd=False)
        asyncio.run(serve_frames(server, stream))
    except BrokenPipeError:
        log.error("the connection to the client is lost; the server ends")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()
