"""Applying LSP text edits the way an editor does, written independently of the server's code."""

from __future__ import annotations

import re
from typing import Iterable

from lsprotocol import types

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def lines_of(text: str) -> list[str]:
    lines = _LINE.findall(text)
    if not lines or lines[-1].endswith(("\n", "\r")):
        lines.append("")
    return lines


def units(char: str, encoding: str) -> int:
    if encoding == "utf-32":
        return 1
    if encoding == "utf-16":
        return 2 if ord(char) > 0xFFFF else 1
    return len(char.encode("utf-8"))


def offset(text: str, position: types.Position, encoding: str = "utf-16") -> int:
    lines = lines_of(text)
    start = sum(len(line) for line in lines[:position.line])
    line = lines[position.line].rstrip("\r\n") if position.line < len(lines) else ""
    count = 0
    for index, char in enumerate(line):
        if count >= position.character:
            return start + index
        count += units(char, encoding)
    return start + len(line)


def position(text: str, index: int, encoding: str = "utf-16") -> types.Position:
    """The LSP position of code-point offset `index`."""
    before = text[:index]
    line = len(re.findall(r"\r\n|\r|\n", before))
    last = max(before.rfind("\n"), before.rfind("\r"))
    prefix = before[last + 1:]
    return types.Position(line=line, character=sum(units(c, encoding) for c in prefix))


def find(text: str, needle: str, encoding: str = "utf-16", nth: int = 0) -> types.Position:
    index = -1
    for _ in range(nth + 1):
        index = text.index(needle, index + 1)
    return position(text, index, encoding)


def apply(text: str, edits: Iterable[types.TextEdit], encoding: str = "utf-16") -> str:
    spans = sorted(((offset(text, e.range.start, encoding), offset(text, e.range.end, encoding), e.new_text)
                    for e in edits), reverse=True)
    for begin, end, new in spans:
        text = text[:begin] + new + text[end:]
    return text


def edits_for(edit: types.WorkspaceEdit, uri: str) -> list[types.TextEdit]:
    found: list[types.TextEdit] = []
    if edit.changes and uri in edit.changes:
        found.extend(edit.changes[uri])
    for change in edit.document_changes or ():
        if isinstance(change, types.TextDocumentEdit) and change.text_document.uri == uri:
            found.extend(change.edits)  # type: ignore[arg-type]
    return found
