"""Splitting the client's byte stream into LSP messages, whatever the client sends.

An LSP message is header lines (`Content-Length: N` is the one that matters), an empty
line, then N bytes of JSON. `FrameReader.next_frame` reads one from a blocking binary
stream and never gives up on the stream:

- a header line is read with a length cap, so bytes without a newline cannot grow memory;
- `Content-Length` is found anywhere in a line, so a body sent without a header (which
  runs into the next message's header) costs that body only, not every later message;
- a block of headers without a usable length (missing, not a number) is skipped: its body
  cannot be told from what follows, and the next header is found again;
- a body over `MAX_BODY` bytes is read in chunks and dropped;
- `push_back` returns bytes to the front of the stream: a body that turns out not to be
  JSON and holds a header (the length was too long and the body swallowed the next
  message) is read again from that header.

Each `Frame` says what went wrong (`problem`) in words for the log.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import BinaryIO, Optional

MAX_HEADER_LINE = 8 * 1024  # bytes; LSP headers are a few dozen
MAX_BODY = 64 * 1024 * 1024  # bytes; a 20 MB source file fits even with every character escaped twice over
CHUNK = 1024 * 1024
READ_SIZE = 64 * 1024  # what one read of the stream asks for

_LENGTH = re.compile(rb"content-length[ \t]*:[ \t]*([^\r\n]*)", re.IGNORECASE)
_HEADER = re.compile(rb"^[A-Za-z][A-Za-z0-9-]*[ \t]*:")
HEADER_MARK = re.compile(rb"content-length[ \t]*:", re.IGNORECASE)


@dataclass(frozen=True)
class Frame:
    body: Optional[bytes]  # None: no body could be read (see `problem`)
    problem: Optional[str] = None  # what was wrong with the framing, for the log


class FrameReader:
    """Frames from `stream`, read through `read1` (or `read`) so that a call returns what is
    there instead of waiting for a full buffer. Give it an unbuffered stream (a FileIO of
    the descriptor) when it reads in a thread of its own: a buffered one's lock, held by
    that thread, makes the interpreter abort at exit."""

    def __init__(self, stream: BinaryIO, max_body: int = MAX_BODY) -> None:
        self.stream = stream
        self._read_some = getattr(stream, "read1", None) or stream.read
        self.max_body = max_body
        self._buffer = bytearray()
        self._start = 0  # where the unread part of `_buffer` starts

    # -- the stream, with a buffer of its own ---------------------------------------------------
    def push_back(self, data: bytes) -> None:
        self._buffer = bytearray(data) + self._buffer[self._start:]
        self._start = 0

    def _fill(self) -> bool:
        data = self._read_some(READ_SIZE)
        if not data:
            return False
        if self._start > len(self._buffer) // 2:  # drop what was read, now and then
            del self._buffer[:self._start]
            self._start = 0
        self._buffer += data
        return True

    def _readline(self, limit: int) -> bytes:
        """A line with its ending, at most `limit` bytes (cut there), or what is left at the end."""
        searched = 0  # how far past `_start` there is no line ending (`_fill` may move `_start`)
        while True:
            end = self._buffer.find(b"\n", self._start + searched, self._start + limit)
            if end >= 0:
                cut = end + 1
                break
            if len(self._buffer) - self._start >= limit:
                cut = self._start + limit
                break
            searched = len(self._buffer) - self._start
            if not self._fill():
                cut = len(self._buffer)
                break
        line = bytes(self._buffer[self._start:cut])
        self._start = cut
        return line

    def _read(self, size: int) -> bytes:
        """`size` bytes (fewer only at the end of the stream)."""
        buffered = len(self._buffer) - self._start
        if buffered >= size:
            data = bytes(self._buffer[self._start:self._start + size])
            self._start += size
            return data
        parts = [bytes(self._buffer[self._start:])]
        self._buffer = bytearray()
        self._start = 0
        size -= len(parts[0])
        while size > 0:
            data = self._read_some(min(size, CHUNK))
            if not data:
                break
            parts.append(data)
            size -= len(data)
        return b"".join(parts)

    def _skip(self, size: int) -> None:
        while size > 0:
            data = self._read(min(size, CHUNK))
            if not data:
                return
            size -= len(data)

    # -- frames ------------------------------------------------------------------------------
    def next_frame(self) -> Optional[Frame]:
        """The next message, or a Frame saying what was skipped; None at the end of the stream."""
        length: Optional[int] = None
        problems: dict[str, None] = {}  # in order, each once
        seen_header = False
        while True:
            line = self._readline(MAX_HEADER_LINE)
            if not line:
                return None
            if not line.endswith(b"\n") and len(line) >= MAX_HEADER_LINE:
                _note(problems, f"a header line longer than {MAX_HEADER_LINE} bytes")
                tail = line
                while not tail.endswith(b"\n"):  # drop the rest of the line, a bounded piece at a time
                    tail = self._readline(MAX_HEADER_LINE)
                    if not tail:
                        return None
                continue
            if not line.strip():
                if not seen_header:
                    continue  # stray empty lines between messages
                if length is None:
                    _note(problems, "headers without a usable Content-Length; what follows them was skipped")
                    return Frame(None, "; ".join(problems))
                break
            match = _LENGTH.search(line)
            if match is not None:
                if match.start() > 0:
                    _note(problems, "bytes that are not a header before Content-Length")
                seen_header = True
                value = match.group(1).strip()
                if value.isdigit():
                    length = int(value)
                else:
                    length = None
                    _note(problems, f"Content-Length {value[:40].decode('ascii', 'replace')!r} is not a number")
            elif _HEADER.match(line):
                seen_header = True  # Content-Type or another header: nothing to do with it
            else:
                _note(problems, "bytes that are not a header")
        if length > self.max_body:
            self._skip(length)
            _note(problems, f"a message of {length} bytes, over the limit of {self.max_body}, was skipped")
            return Frame(None, "; ".join(problems))
        body = self._read(length)
        if len(body) < length:
            return None  # the stream ended inside the body
        return Frame(body, "; ".join(problems) or None)


def _note(problems: dict[str, None], problem: str) -> None:
    problems.setdefault(problem, None)


@dataclass(frozen=True)
class Incoming:
    """One thing read from the client: a decoded JSON value, or why there is none."""

    value: object = None
    problem: Optional[str] = None  # framing trouble, for the log
    parse_error: Optional[str] = None  # a body was read but is not JSON: answer -32700


def read_message(reader: FrameReader) -> Optional[Incoming]:
    """The next JSON value from the stream (None at its end). A body that is not JSON but
    holds a header (its length ran into the next message) is read again from that header."""
    frame = reader.next_frame()
    if frame is None:
        return None
    if frame.body is None:
        return Incoming(problem=frame.problem)
    try:
        value = json.loads(frame.body)
    except (ValueError, RecursionError) as error:  # not JSON, not UTF-8, or nested too deeply
        mark = HEADER_MARK.search(frame.body, 1)
        if mark is not None:
            reader.push_back(frame.body[mark.start():])
        what = "nested too deeply" if isinstance(error, RecursionError) else str(error)[:200]
        return Incoming(problem=frame.problem, parse_error=f"a message that is not JSON ({what})")
    return Incoming(value, frame.problem)
