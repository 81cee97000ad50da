"""Protocol abuse against the real server process (issue 11, point 3).

The server (`python -m tapelsp`) is driven over its standard input with raw bytes
(`wire.WireClient`). After every abuse the server must still be running and answer a
well-formed request correctly: `healthy` asks for the status and for the diagnostics of a
document opened at the start, whose one finding is known.

What the server does with each kind of abuse:

- framing (garbage between messages, a body without a header, a length that is not a
  number, too short or too long, an over-long header line): the bytes that cannot be read
  as a message are skipped and logged, and reading resumes at the next `Content-Length`
  header; where a body was read but is not JSON the answer is ParseError (-32700, id null);
  a length too long that swallowed the next message gives that message back;
- JSON that is not a JSON-RPC 2.0 message: InvalidRequest (-32600), with the id when it
  has a usable one;
- parameters of the wrong type: InvalidParams (-32602) for a request, ignored (and logged)
  for a notification;
- an unknown method: MethodNotFound (-32601) for a request (`$/` ones too), ignored for a
  notification;
- a change to a document that is not open: ignored, with a log line;
- a range past the end of the document: clamped to the end (LSP: a character past the end
  of a line means the end of the line);
- a change whose version is not newer than the document's: ignored, with a log line;
- a 20 MB document: kept, not analysed (a log line says why), memory bounded;
- 2,000 requests and notifications without waiting: all answered, memory bounded, the
  last state right;
- a request before `initialize`: ServerNotInitialized (-32002), a notification dropped;
- a request after `shutdown`: InvalidRequest, and `exit` still ends the server with 0.

The text the server holds is checked through the positions of its diagnostics: the same
finding moves exactly as far as the client's edits say.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from .wire import WireClient, encode, frame, memory_kb

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from lsp.samples import LEARNER  # noqa: E402

FUNC001_AT = (9, 15)  # LEARNER's one finding: `tf.Variable` in a tf.function
APPENDIX = "\n@tf.function\ndef g(x):\n    v = tf.Variable(1.0)\n    return v * x\n"  # a second FUNC001
MEMORY_BOUND_KB = 1536 * 1024  # 1.5 GB: generous; the server holds a 20 MB text several times over at most

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602
REQUEST_CANCELLED = -32800
SERVER_NOT_INITIALIZED = -32002


def uri_of(name: str) -> str:
    return f"file:///abuse/{name}"


ANCHOR = uri_of("anchor.py")


def findings(client: WireClient, uri: str) -> list[tuple[str, int, int]]:
    return [(d["code"], d["range"]["start"]["line"], d["range"]["start"]["character"])
            for d in client.diagnostics(uri)]


def healthy(client: WireClient) -> None:
    """Alive, answering, and the anchor document still holds the text it was opened with."""
    status = client.request("tapelsp/status")
    assert status["result"]["pid"] == client.process.pid, status
    assert findings(client, ANCHOR) == [("FUNC001", *FUNC001_AT)]
    assert client.alive()
    assert client.framing_errors == []


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    wire = WireClient(tmp_path_factory.mktemp("abuse"))
    try:
        wire.initialize()
        wire.open(ANCHOR, LEARNER)
        healthy(wire)
        yield wire
    finally:
        wire.close()


def status_request(request_id) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tapelsp/status"}).encode()


def null_errors(client: WireClient) -> list[int]:
    return [message["error"]["code"] for message in client.null_responses]


# -- framing -----------------------------------------------------------------------------------

FRAMING = {
    "garbage between messages": b"\x00\xff\xfe garbage\r\n\x1b[31m more garbage\r\n\r\n",
    "a body without a header": status_request("lost-1"),
    "a length that is not a number": b"Content-Length: twelve\r\n\r\n" + status_request("lost-2"),
    "a negative length": b"Content-Length: -5\r\n\r\n" + status_request("lost-3"),
    "headers without a length": b"Content-Type: application/vscode-jsonrpc\r\n\r\n" + status_request("lost-4"),
    "an over-long header line": b"X-Padding: " + b"x" * 100_000 + b"\r\n",
    "empty lines between messages": b"\r\n\r\n\r\n",
}


@pytest.mark.parametrize("data", list(FRAMING.values()), ids=list(FRAMING))
def test_broken_framing_is_skipped_and_reading_resumes(client, data):
    before = len(client.logged())
    client.write(data)
    healthy(client)
    assert not any(str(key).startswith("lost") for key in client.responses)  # bytes without a frame: no answer
    if data.strip():
        assert any("framing" in line for line in client.logged()[before:]), client.logged()[before:]


def test_headers_in_any_case_and_order_are_read(client):
    body = status_request("mixed-case")
    client.write(b"content-type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length:%d\r\n\r\n"
                 % len(body) + body)
    assert client.response("mixed-case")["result"]["pid"] == client.process.pid
    healthy(client)


def test_a_length_too_short_gives_a_parse_error_then_resyncs(client):
    before = null_errors(client)
    body = status_request("short")
    client.write(b"Content-Length: %d\r\n\r\n" % (len(body) - 10) + body)
    healthy(client)
    assert null_errors(client)[len(before):] == [PARSE_ERROR]
    assert "short" not in client.responses


def test_a_length_too_long_gives_a_parse_error_and_the_swallowed_request_back(client):
    before = null_errors(client)
    cut = b'{"jsonrpc": "2.0", "id": "cut", "met'
    client.write(b"Content-Length: %d\r\n\r\n" % (len(cut) + 150) + cut)
    swallowed = [f"swallowed-{n}" for n in range(3)]  # about 250 bytes: the body takes the first two
    for request_id in swallowed:
        client.write(frame(status_request(request_id)))
    for request_id in swallowed:
        assert client.response(request_id)["result"]["pid"] == client.process.pid
    healthy(client)
    assert null_errors(client)[len(before):] == [PARSE_ERROR]
    assert "cut" not in client.responses


# -- bodies that are not JSON-RPC ----------------------------------------------------------------

NOT_JSON = {
    "not JSON": b"{{{ not json",
    "not UTF-8": b'{"jsonrpc": "2.0", "method": "\xff\xfe"}',
    "an empty body": b"",
    "nested 100,000 deep": b"[" * 100_000 + b"]" * 100_000,
}


@pytest.mark.parametrize("body", list(NOT_JSON.values()), ids=list(NOT_JSON))
def test_a_body_that_is_not_json_is_answered_with_parse_error(client, body):
    before = null_errors(client)
    client.write(frame(body))
    healthy(client)
    assert null_errors(client)[len(before):] == [PARSE_ERROR]


NOT_JSON_RPC = {
    "a batch": (b"[1, 2, 3]", None),
    "a string": (b'"a string"', None),
    "a number": (b"42", None),
    "JSON-RPC 1.0": (b'{"jsonrpc": "1.0", "id": 90099, "method": "tapelsp/status"}', 90099),
    "no jsonrpc member": (b'{"id": 90098, "method": "tapelsp/status"}', 90098),
    "an object as id": (b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "tapelsp/status"}', None),
    "a number as method": (b'{"jsonrpc": "2.0", "id": 90097, "method": 5}', 90097),
    "neither request nor response": (b'{"jsonrpc": "2.0", "id": 90096}', 90096),
}


@pytest.mark.parametrize("body, answer_to", list(NOT_JSON_RPC.values()), ids=list(NOT_JSON_RPC))
def test_json_that_is_not_a_json_rpc_message_is_answered_with_invalid_request(client, body, answer_to):
    before = null_errors(client)
    client.write(frame(body))
    healthy(client)
    if answer_to is None:
        assert null_errors(client)[len(before):] == [INVALID_REQUEST]
    else:
        assert client.response(answer_to)["error"]["code"] == INVALID_REQUEST
        assert null_errors(client)[len(before):] == []


# -- parameters and methods -----------------------------------------------------------------------

POSITION = {"line": 9, "character": 20}
WRONG_PARAMS = {
    "a number as textDocument": ("textDocument/hover", {"textDocument": 42, "position": POSITION}),
    "a string as line": ("textDocument/hover", {"textDocument": {"uri": ANCHOR},
                                                "position": {"line": "nine", "character": 0}}),
    "a negative line": ("textDocument/hover", {"textDocument": {"uri": ANCHOR},
                                               "position": {"line": -1, "character": 0}}),
    "no position": ("textDocument/hover", {"textDocument": {"uri": ANCHOR}}),
    "an array": ("textDocument/diagnostic", [ANCHOR]),
    "a string": ("textDocument/codeAction", "everything"),
    "no params at all": ("textDocument/diagnostic", None),
}


@pytest.mark.parametrize("method, params", list(WRONG_PARAMS.values()), ids=list(WRONG_PARAMS))
def test_a_request_with_wrong_parameters_is_answered_with_invalid_params(client, method, params):
    answer = client.request(method, params)
    assert answer["error"]["code"] == INVALID_PARAMS, answer
    healthy(client)


WRONG_NOTIFICATIONS = {
    "didChange with a number as textDocument": ("textDocument/didChange", {"textDocument": 7, "contentChanges": []}),
    "didChange with text that is a number": ("textDocument/didChange", {
        "textDocument": {"uri": ANCHOR, "version": 50}, "contentChanges": [{"text": 12}]}),
    "didOpen without text": ("textDocument/didOpen", {"textDocument": {"uri": ANCHOR, "languageId": "python",
                                                                        "version": 60}}),
    "didClose of a number": ("textDocument/didClose", {"textDocument": {"uri": 3}}),
    "params that are a string": ("textDocument/didChange", "\u00e9"),
}


@pytest.mark.parametrize("method, params", list(WRONG_NOTIFICATIONS.values()), ids=list(WRONG_NOTIFICATIONS))
def test_a_notification_with_wrong_parameters_is_ignored(client, method, params):
    client.notify(method, params)
    healthy(client)  # the anchor document is neither changed, reopened nor closed


def test_unknown_methods(client):
    before = null_errors(client)
    assert client.request("no/such/method", {"x": 1})["error"]["code"] == METHOD_NOT_FOUND
    assert client.request("$/no/such/method")["error"]["code"] == METHOD_NOT_FOUND
    client.notify("no/such/notification", {"x": 1})
    client.notify("$/no/such/notification", {"x": 1})
    client.notify("$/cancelRequest", {"id": 123456})  # nothing runs under that id
    client.notify("$/setTrace", {"value": "verbose"})
    healthy(client)
    assert null_errors(client) == before


@pytest.mark.parametrize("request_id", ["a-string-id", 0, 2**53], ids=["string", "zero", "2**53"])
def test_request_ids_come_back_as_sent(client, request_id):
    client.write(frame(status_request(request_id)))
    assert client.response(request_id)["result"]["pid"] == client.process.pid


def test_a_response_nobody_asked_for_is_ignored(client):
    client.send({"jsonrpc": "2.0", "id": 424242, "result": {"unasked": True}})
    client.send({"jsonrpc": "2.0", "id": 424243, "error": {"code": -1, "message": "unasked"}})
    healthy(client)


# -- documents --------------------------------------------------------------------------------------

def test_a_change_to_a_document_that_is_not_open_is_ignored_and_logged(client):
    uri = uri_of("never_opened.py")
    before = len(client.logged())
    client.change(uri, 2, [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
                            "text": "\n\n\n"}])
    client.change(uri, 3, [{"text": "x = 1\n"}])
    healthy(client)
    assert any("not open" in line and "never_opened.py" in line for line in client.logged()[before:])
    client.open(uri, LEARNER)  # opened now: the stray changes left nothing behind
    assert findings(client, uri) == [("FUNC001", *FUNC001_AT)]


def end_range(start_line: int, start_char: int, end_line: int, end_char: int) -> dict:
    return {"start": {"line": start_line, "character": start_char}, "end": {"line": end_line, "character": end_char}}


def test_a_range_past_the_end_is_clamped_to_the_end(client):
    uri = uri_of("past_the_end.py")
    client.open(uri, LEARNER)
    # Lines 500..900 do not exist: the range is the end of the text, and the text is appended.
    client.change(uri, 2, [{"range": end_range(500, 0, 900, 3), "text": APPENDIX}])
    # A character past the end of line 0 is the end of line 0.
    client.change(uri, 3, [{"range": end_range(0, 999, 0, 5000), "text": "  # past the end of the line"}])
    # What the client now holds: LEARNER + APPENDIX with a comment on the first line.
    assert findings(client, uri) == [("FUNC001", *FUNC001_AT), ("FUNC001", 15, 8)]
    client.change(uri, 4, [{"range": end_range(0, 0, 0, 0), "text": "# one more line\n"}])
    assert findings(client, uri) == [("FUNC001", 10, 15), ("FUNC001", 16, 8)]
    # The first line kept its comment and nothing else moved: replace the whole of line 1
    # (the import with the comment) by itself, by its client-side length.
    line = "import tensorflow as tf  # past the end of the line"
    client.change(uri, 5, [{"range": end_range(1, 0, 1, len(line)), "text": line}])
    assert findings(client, uri) == [("FUNC001", 10, 15), ("FUNC001", 16, 8)]
    healthy(client)


def test_changes_with_stale_versions_are_ignored(client):
    uri = uri_of("versions.py")
    client.open(uri, LEARNER, version=5)
    top = end_range(0, 0, 0, 0)
    before = len(client.logged())
    client.change(uri, 4, [{"range": top, "text": "\n\n\n"}])  # older than the open
    client.change(uri, 5, [{"range": top, "text": "\n\n\n"}])  # the same version again
    assert findings(client, uri) == [("FUNC001", *FUNC001_AT)]
    assert sum("versions.py" in line and "version" in line for line in client.logged()[before:]) == 2
    client.change(uri, 7, [{"range": top, "text": "\n"}])  # newer (versions may skip)
    client.change(uri, 6, [{"range": top, "text": "\n\n\n"}])  # out of order: older than 7
    assert findings(client, uri) == [("FUNC001", FUNC001_AT[0] + 1, FUNC001_AT[1])]
    healthy(client)


# -- size and volume ---------------------------------------------------------------------------------

def big_text(megabytes: float) -> str:
    block = LEARNER + "\n\ndef helper(a, b):\n    total = a + b\n    return total * 2\n\n"
    return block * int(megabytes * 1024 * 1024 / len(block) + 1)


def test_a_twenty_megabyte_document_is_kept_not_analysed_and_memory_stays_bounded(tmp_path):
    wire = WireClient(tmp_path)
    try:
        wire.initialize()
        wire.open(ANCHOR, LEARNER)
        healthy(wire)
        big = uri_of("huge.py")
        text = big_text(20)
        wire.open(big, text)
        assert wire.diagnostics(big) == []  # refused, not analysed...
        assert any("huge.py" in line and "not analysed" in line for line in wire.logged()), wire.logged()
        # ...but kept: an edit to it is applied, and the server answers the rest as before.
        wire.change(big, 2, [{"range": end_range(0, 0, 0, 0), "text": "# edited\n"}])
        wire.change(big, 3, [{"text": LEARNER}])  # now it is small again: analysed
        assert findings(wire, big) == [("FUNC001", *FUNC001_AT)]
        healthy(wire)
        peak = memory_kb(wire.process.pid, "VmHWM")
        print(f"\n20 MB document: server peak RSS {peak / 1024:.0f} MB, now "
              f"{memory_kb(wire.process.pid) / 1024:.0f} MB")
        assert peak < MEMORY_BOUND_KB
        assert wire.shutdown() == 0
    finally:
        wire.close()


def test_a_message_over_the_size_limit_is_skipped_without_holding_it(tmp_path):
    from tapelsp.lsp.framing import MAX_BODY

    wire = WireClient(tmp_path)
    try:
        wire.initialize()
        wire.open(ANCHOR, LEARNER)
        healthy(wire)
        wire.write(b"Content-Length: %d\r\n\r\n" % (MAX_BODY + 1))
        chunk = b" " * (1024 * 1024)
        for _ in range(MAX_BODY // len(chunk)):
            wire.write(chunk)
        wire.write(b" ")
        healthy(wire)
        assert any("over the limit" in line for line in wire.logged())
        peak = memory_kb(wire.process.pid, "VmHWM")
        print(f"\n{MAX_BODY + 1} bytes skipped: server peak RSS {peak / 1024:.0f} MB")
        assert peak < 512 * 1024  # read in chunks and dropped, never held whole
    finally:
        wire.close()


def test_a_flood_of_two_thousand_messages(tmp_path):
    wire = WireClient(tmp_path)
    try:
        wire.initialize()
        uri = uri_of("flood.py")
        wire.open(uri, LEARNER)
        assert findings(wire, uri) == [("FUNC001", *FUNC001_AT)]
        top = end_range(0, 0, 0, 0)
        hovers = []
        body = bytearray()
        for version in range(2, 1002):  # 1,000 edits and 1,000 requests, interleaved, never waiting
            body += encode({"jsonrpc": "2.0", "method": "textDocument/didChange",
                            "params": {"textDocument": {"uri": uri, "version": version},
                                       "contentChanges": [{"range": top, "text": "#\n"}]}})
            request_id = f"hover-{version}"
            hovers.append(request_id)
            body += encode({"jsonrpc": "2.0", "id": request_id, "method": "textDocument/hover",
                            "params": {"textDocument": {"uri": uri},
                                       "position": {"line": version - 2 + FUNC001_AT[0], "character": 20}}})
            if version % 4 == 0:
                body += encode({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": request_id}})
        wire.write(bytes(body))
        answers = [wire.response(request_id) for request_id in hovers]
        cancelled = [a for a in answers if a.get("error", {}).get("code") == REQUEST_CANCELLED]
        other_errors = [a for a in answers if "error" in a and a not in cancelled]
        assert other_errors == []
        assert len(cancelled) <= 250
        # The last state is right: 1,000 lines were added above the finding.
        assert findings(wire, uri) == [("FUNC001", FUNC001_AT[0] + 1000, FUNC001_AT[1])]
        last = wire.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                   "position": {"line": FUNC001_AT[0] + 1000, "character": 20}})
        assert "FUNC001" in json.dumps(last["result"])
        peak = memory_kb(wire.process.pid, "VmHWM")
        print(f"\nflood of {len(hovers) * 2 + len(hovers) // 4} messages: {len(cancelled)} cancelled, "
              f"server peak RSS {peak / 1024:.0f} MB")
        assert peak < MEMORY_BOUND_KB
        assert wire.alive() and wire.framing_errors == []
    finally:
        wire.close()


def test_before_initialize_requests_are_refused_and_notifications_dropped(tmp_path):
    wire = WireClient(tmp_path)
    try:
        answer = wire.request("textDocument/hover", {"textDocument": {"uri": ANCHOR}, "position": POSITION})
        assert answer["error"]["code"] == SERVER_NOT_INITIALIZED
        wire.open(ANCHOR, "import tensorflow as tf\n")  # dropped: the document is not open afterwards
        wire.initialize()
        assert wire.request("tapelsp/status")["result"]["documents"] == []
        wire.open(ANCHOR, LEARNER)
        healthy(wire)
        assert wire.shutdown() == 0
    finally:
        wire.close()


def test_a_request_after_shutdown_is_refused_and_exit_still_ends_the_server(tmp_path):
    wire = WireClient(tmp_path)
    try:
        wire.initialize()
        assert wire.request("shutdown").get("result", "missing") is None
        assert wire.request("tapelsp/status")["error"]["code"] == INVALID_REQUEST
        wire.notify("exit")
        assert wire.process.wait(timeout=60) == 0
    finally:
        wire.close()
