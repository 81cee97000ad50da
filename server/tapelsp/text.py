"""Source text with its lines, and the conversion from `ast` offsets.

`ast` reports columns as UTF-8 byte offsets; the engine speaks code points.
"""

from __future__ import annotations

import ast
import re

from .model import Position, Range

_NEWLINE = re.compile(r"\r\n|\r|\n")


class SourceText:
    __slots__ = ("text", "lines", "_ascii")

    def __init__(self, text: str) -> None:
        self.text = text
        # Split like the tokenizer: only \r\n, \r and \n end a line. (str.splitlines also
        # splits at form feeds, \x1c-\x1e, \x85, \u2028 and \u2029, which would put every
        # later line out of step with the line numbers `ast` reports.)
        self.lines = _NEWLINE.split(text) if "\r" in text else text.split("\n")
        self._ascii = text.isascii()

    def line(self, index: int) -> str:
        """0-based line text without its ending; '' past the end."""
        if 0 <= index < len(self.lines):
            return self.lines[index]
        return ""

    def column(self, line: int, byte_col: int) -> int:
        """Code-point column of a UTF-8 byte offset on a 0-based line."""
        if self._ascii:
            return byte_col
        text = self.line(line)
        if text.isascii():
            return byte_col
        return len(text.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore"))

    def node_range(self, node: ast.AST) -> Range:
        line = node.lineno - 1
        end_line = (getattr(node, "end_lineno", None) or node.lineno) - 1
        end_col = getattr(node, "end_col_offset", None)
        if end_col is None:
            end_col = node.col_offset
        return Range(Position(line, self.column(line, node.col_offset)),
                     Position(end_line, self.column(end_line, end_col)))

    def span(self, first: ast.AST, last: ast.AST) -> Range:
        """From the start of `first` to the end of `last`."""
        return Range(self.node_range(first).start, self.node_range(last).end)

    def line_range(self, line: int) -> Range:
        text = self.line(line)
        stripped = len(text) - len(text.lstrip())
        return Range(Position(line, stripped), Position(line, len(text)))
