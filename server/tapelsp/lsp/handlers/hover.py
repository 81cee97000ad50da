"""textDocument/hover: the rule's documentation, on a finding or on a code in a suppression
comment (`# tapelsp: ignore[TAPE001]`, `# noqa: FUNC001`); on a name, what tapelsp infers it
holds (the value model, asked of a worker: "`x`: tf.Tensor float32, eager, made on line 4")."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Optional

from lsprotocol import types

from ...docs import explain
from ...model import Position, Range
from ...rules import all_rules, rule_by_code
from ..positions import from_client_position, line_text, to_client_range
from .code_actions import findings_of

if TYPE_CHECKING:
    from ..server import TapeLanguageServer

# A suppression comment and the codes it lists.
_DIRECTIVE = re.compile(r"#[ \t]*(?:tapelsp:[ \t]*ignore\[(?P<listed>[^\]]*)\]"
                        r"|(?i:noqa):[ \t]*(?P<noqa>[A-Za-z0-9, \t]+))", re.IGNORECASE)
_CODE = re.compile(r"[A-Za-z]+[0-9]*")


def register(server: "TapeLanguageServer") -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: "TapeLanguageServer", params: types.HoverParams) -> Optional[types.Hover]:
        session = ls.session
        uri = params.text_document.uri
        lines = session.text_lines(uri)
        if lines is None:
            return None
        encoding = session.features.encoding
        position = from_client_position(lines, params.position, encoding)
        found = code_in_comment(line_text(lines, position.line), position)
        if found is not None:
            code, rng = found
            return _hover(ls, code, to_client_range(lines, rng, encoding))
        key = session.owner_of(uri)
        analysis = await session.scheduler.current(key) if key is not None else None
        if analysis is None or analysis.error is not None:
            return None
        here = Range(position, position)
        snapshot = analysis.snapshot
        target_lines = (snapshot.lines if not snapshot.is_notebook
                        else snapshot.cell_by_uri(uri).lines)  # type: ignore[union-attr]
        value = await _value_at(ls, snapshot, uri, position)
        for violation in findings_of(analysis, uri):
            if violation.range.start <= here.start <= violation.range.end:
                return _hover(ls, violation.code, to_client_range(target_lines, violation.range, encoding),
                              violation.message, value[0] if value else None)
        if value is None:
            return None
        text, rng = value
        kind = types.MarkupKind.Markdown if ls.session.features.hover_markdown else types.MarkupKind.PlainText
        return types.Hover(contents=types.MarkupContent(kind=kind, value=text),
                           range=to_client_range(target_lines, rng, encoding))


def code_in_comment(line: str, position: Position) -> Optional[tuple[str, Range]]:
    """The rule code (or code prefix) under the cursor inside a suppression comment."""
    for directive in _DIRECTIVE.finditer(line):
        group = "listed" if directive.group("listed") is not None else "noqa"
        start, end = directive.span(group)
        if not start <= position.column <= end:
            continue
        for token in _CODE.finditer(line, start, end):
            if token.start() <= position.column <= token.end():
                code = token.group(0).upper()
                if rule_by_code(code) is not None or any(r.code.startswith(code) for r in all_rules()):
                    return code, Range(Position(position.line, token.start()), Position(position.line, token.end()))
    return None


def rule_markdown(code: str) -> Optional[str]:
    text = explain(code)
    if text is not None:
        return text
    family = [rule for rule in all_rules() if rule.code.startswith(code)]
    if not family:
        return None
    rows = "\n".join(f"- **{rule.code}** ({rule.name}): {rule.summary}" for rule in family)
    return f"# {code}: {len(family)} rules\n\n{rows}\n"


async def _value_at(ls: "TapeLanguageServer", snapshot, uri: str, position: Position) -> tuple[str, Range] | None:
    """What tapelsp infers the name under the cursor holds, and where the name is (in the
    document, or in the cell for a notebook)."""
    offset = 0
    if snapshot.is_notebook:
        cell = snapshot.cell_by_uri(uri)
        if cell is None or not cell.python:
            return None
        offset = _cell_offset(snapshot, cell.number)
        if offset is None:
            return None
    described = await ls.session.scheduler.describe(snapshot, position.line + offset, position.column)
    if described is None or described.text is None or described.span is None:
        return None
    line, start, end = described.span
    return described.text, Range(Position(line - offset, start), Position(line - offset, end))


def _cell_offset(snapshot, number: int) -> int | None:
    """The 0-based line where cell `number` starts in the program the worker analyses."""
    from ...notebook import join_cells

    cells = [(index + 1, text) for index, (kind, text) in enumerate(snapshot.source.cells) if kind == "code"]
    _text, mapped = join_cells(cells)
    return next((cell.first_line for cell in mapped if cell.number == number), None)


def _hover(ls: "TapeLanguageServer", code: str, rng: types.Range, message: str | None = None,
           value: str | None = None) -> Optional[types.Hover]:
    text = rule_markdown(code)
    if text is None:
        return None
    if value:
        text = f"{value}\n\n---\n\n{text}"
    if message:
        text = f"**{code}**: {message}\n\n---\n\n{text}"
    kind = types.MarkupKind.Markdown if ls.session.features.hover_markdown else types.MarkupKind.PlainText
    return types.Hover(contents=types.MarkupContent(kind=kind, value=text), range=rng)
