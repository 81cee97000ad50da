"""Columns in the client's units and back: the only place the language server converts.

The engine counts columns in code points. An LSP client counts them in the position
encoding agreed at `initialize`: UTF-16 code units (the default every client supports),
UTF-8 bytes or UTF-32 code points. Lines are the same everywhere: LSP and the engine both
end a line at `\\r\\n`, `\\r` or `\\n` only.
"""

from __future__ import annotations

from typing import Sequence

from lsprotocol import types

from ..model import Position, Range

UTF8 = "utf-8"
UTF16 = "utf-16"
UTF32 = "utf-32"
ENCODINGS = (UTF8, UTF16, UTF32)


def normalise_encoding(value: object) -> str:
    """The encoding name for a `PositionEncodingKind` (or its string); UTF-16 when unknown."""
    text = getattr(value, "value", value)
    return text if text in ENCODINGS else UTF16


def _units(char: str, encoding: str) -> int:
    point = ord(char)
    if encoding == UTF16:
        return 2 if point > 0xFFFF else 1
    if point < 0x80:
        return 1
    if point < 0x800:
        return 2
    return 3 if point <= 0xFFFF else 4


def to_client_column(line: str, column: int, encoding: str) -> int:
    """Code-point `column` of `line` in the client's units (clamped to the line's end)."""
    column = max(0, min(column, len(line)))
    if encoding == UTF32:
        return column
    prefix = line[:column]
    if prefix.isascii():
        return column
    if encoding == UTF8:
        return len(prefix.encode("utf-8", errors="surrogatepass"))
    return len(prefix.encode("utf-16-le", errors="surrogatepass")) // 2


def from_client_column(line: str, units: int, encoding: str) -> int:
    """Code-point column of a position `units` client units into `line`.

    Positions past the line's end clamp to the end; a position inside a character (half
    of a surrogate pair, the middle of a UTF-8 sequence) goes to that character's end.
    """
    if units <= 0:
        return 0
    if encoding == UTF32 or line.isascii():
        return min(units, len(line))
    count = 0
    for index, char in enumerate(line):
        if count >= units:
            return index
        count += _units(char, encoding)
    return len(line)


def line_text(lines: Sequence[str], line: int) -> str:
    """Line `line` without its ending; '' past the end."""
    if 0 <= line < len(lines):
        text = lines[line]
        if text.endswith("\r\n"):
            return text[:-2]
        if text.endswith(("\n", "\r")):
            return text[:-1]
        return text
    return ""


def to_client_position(lines: Sequence[str], position: Position, encoding: str) -> types.Position:
    return types.Position(line=max(0, position.line),
                          character=to_client_column(line_text(lines, position.line), position.column, encoding))


def to_client_range(lines: Sequence[str], rng: Range, encoding: str) -> types.Range:
    return types.Range(start=to_client_position(lines, rng.start, encoding),
                       end=to_client_position(lines, rng.end, encoding))


def from_client_position(lines: Sequence[str], position: types.Position, encoding: str) -> Position:
    """The engine's position for a client position, clamped into the text."""
    if position.line >= len(lines):
        last = len(lines) - 1
        return Position(last, len(line_text(lines, last))) if last >= 0 else Position(0, 0)
    line = max(0, position.line)
    return Position(line, from_client_column(line_text(lines, line), position.character, encoding))


def from_client_range(lines: Sequence[str], rng: types.Range, encoding: str) -> Range:
    return Range(from_client_position(lines, rng.start, encoding), from_client_position(lines, rng.end, encoding))
