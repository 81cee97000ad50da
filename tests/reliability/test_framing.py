"""`tapelsp.lsp.framing` on its own: the same messages come out of the same bytes however the
pipe hands them over (one byte at a time, a few, all at once), and every kind of broken
framing costs only the broken message. The real server is driven in test_protocol_abuse.py."""

from __future__ import annotations

import io
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tapelsp.lsp.framing import MAX_HEADER_LINE, FrameReader, read_message


class Trickle(io.RawIOBase):
    """A pipe that hands over at most `step` bytes per read."""

    def __init__(self, data: bytes, step: int) -> None:
        self.data = data
        self.step = step

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        size = self.step if size < 0 else min(size, self.step)
        out, self.data = self.data[:size], self.data[size:]
        return out


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def message(n: int) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": n, "method": "m"}).encode()


def read_all(data: bytes, step: int, max_body: int = 1 << 20) -> list[tuple]:
    reader = FrameReader(Trickle(data, step), max_body=max_body)
    out = []
    while (item := read_message(reader)) is not None:
        if item.value is not None:
            out.append(("ok", item.value["id"]))
        elif item.parse_error:
            out.append(("parse error",))
        else:
            out.append(("skipped",))
    return out


STREAM = b"".join([
    frame(message(1)),
    b"garbage without a newline " + message(2),  # a body without a header: lost, next one read
    frame(message(3)),
    b"Content-Length: 12x\r\n\r\n" + message(4),  # a length that is not a number
    frame(message(5)),
    b"Content-Length: %d\r\n\r\n" % (len(message(6)) + 30) + message(6)[:20],  # too long: swallows 7's start
    frame(message(7)),
    frame(message(8)),
    b"Content-Length: 5\r\n\r\n" + message(9),  # too short: a parse error, then garbage
    frame(message(10)),
    b"X: " + b"y" * (3 * MAX_HEADER_LINE) + b"\r\n",  # an over-long header line
    b"\r\n\r\n",
    b"content-type: application/vscode-jsonrpc\r\ncontent-length:%d\r\n\r\n" % len(message(11)) + message(11),
])
EXPECTED = [("ok", 1), ("ok", 3), ("skipped",), ("ok", 5), ("parse error",), ("ok", 7), ("ok", 8),
            ("parse error",), ("ok", 10), ("ok", 11)]


@pytest.mark.parametrize("step", [1, 2, 3, 7, 64, 1 << 20])
def test_the_same_messages_whatever_the_pipe_hands_over(step):
    assert read_all(STREAM, step) == EXPECTED


@given(st.lists(st.integers(1, 200), min_size=1, max_size=40))
def test_chunk_boundaries_never_change_the_messages(steps):
    class Varying(Trickle):
        def read(self, size: int = -1) -> bytes:
            self.step = steps[len(self.data) % len(steps)]
            return super().read(size)

    reader = FrameReader(Varying(STREAM, 1))
    out = []
    while (item := read_message(reader)) is not None:
        out.append(("ok", item.value["id"]) if item.value is not None
                   else ("parse error",) if item.parse_error else ("skipped",))
    assert out == EXPECTED


def test_a_body_over_the_limit_is_skipped_and_the_next_one_read():
    data = b"Content-Length: 5000\r\n\r\n" + b"z" * 5000 + frame(message(1))
    assert read_all(data, 4096, max_body=1000) == [("skipped",), ("ok", 1)]


def test_the_stream_ending_inside_a_body_ends_reading():
    assert read_all(frame(message(1)) + b"Content-Length: 100\r\n\r\n{\"jsonrpc\"", 3) == [("ok", 1)]
