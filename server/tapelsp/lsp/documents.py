"""The text of an open document, kept as the client edits it.

The text is held as a list of lines with their endings, so an incremental change
splices a few lines instead of copying the whole text, and the text is joined only
when it is analysed. Lines end where LSP says they do (`\\r\\n`, `\\r`, `\\n`), which
is also where the engine's lines end; `str.splitlines` would also split at form feeds
and `\\u2028`, and put every later position on the wrong line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lsprotocol import types

from .positions import from_client_column, line_text

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def split_lines(text: str) -> list[str]:
    """Lines with their endings; always at least one line, the last one without an ending."""
    lines = _LINE.findall(text)
    if not lines or lines[-1].endswith(("\n", "\r")):
        lines.append("")
    return lines


@dataclass
class TextDocument:
    uri: str
    version: int
    language_id: str = "python"
    lines: list[str] = field(default_factory=lambda: [""])
    _joined: str | None = field(default=None, repr=False)

    @classmethod
    def of(cls, uri: str, version: int, text: str, language_id: str = "python") -> "TextDocument":
        return cls(uri, version, language_id, split_lines(text), text)

    @property
    def text(self) -> str:
        if self._joined is None:
            self._joined = "".join(self.lines)
        return self._joined

    def line(self, index: int) -> str:
        """Line `index` without its ending."""
        return line_text(self.lines, index)

    def apply(self, change: object, version: int, encoding: str) -> None:
        """Apply one content change event (incremental or whole-document)."""
        rng = getattr(change, "range", None)
        text = getattr(change, "text", "")
        if not isinstance(text, str):
            raise ValueError("a content change without text")
        if rng is None:
            self.lines = split_lines(text)
            self._joined = text
        else:
            self._splice(rng, text, encoding)
            self._joined = None
        self.version = version

    def _splice(self, rng: types.Range, text: str, encoding: str) -> None:
        lines = self.lines
        start_line, start_col = self._locate(rng.start, encoding)
        end_line, end_col = self._locate(rng.end, encoding)
        if (end_line, end_col) < (start_line, start_col):
            start_line, start_col, end_line, end_col = end_line, end_col, start_line, start_col
        chunk = lines[start_line][:start_col] + text + lines[end_line][end_col:]
        # Re-split the change with one untouched line on each side, so an ending that the
        # edit completes or breaks (`\r` + `\n`) comes out as the whole text would split.
        low = max(0, start_line - 1)
        high = min(len(lines), end_line + 2)
        window = "".join(lines[low:start_line]) + chunk + "".join(lines[end_line + 1:high])
        replaced = split_lines(window)
        if high < len(lines):
            replaced.pop()  # the window ends with a line ending; its empty tail is not a line
        lines[low:high] = replaced

    def _locate(self, position: types.Position, encoding: str) -> tuple[int, int]:
        """(line, code-point column) of a client position, clamped into the text."""
        lines = self.lines
        if position.line < 0:
            return 0, 0
        if position.line >= len(lines):
            last = len(lines) - 1
            return last, len(line_text(lines, last))
        content = line_text(lines, position.line)
        return position.line, from_client_column(content, position.character, encoding)
