"""The "ignore this finding on this line" edit: `# tapelsp: ignore[CODE]`.

The comment goes at the end of the line the finding starts on (that is the line the
suppression is read from). An existing `# tapelsp: ignore[...]` comment on the line gets
the code added to its list. A line whose end is inside a string (a triple-quoted literal
going on) or continued with a backslash cannot carry a comment: no edit then.
"""

from __future__ import annotations

import io
import re
import tokenize

from ..model import Applicability, Edit, Fix, Position, Range, Violation
from ..suppression import codes_on_line
from ..text import SourceText

_DIRECTIVE = re.compile(r"#[ \t]*tapelsp:[ \t]*ignore(?!-)(?:\[(?P<codes>[^\]]*)\])?", re.IGNORECASE)


def ignore_fix(violation: Violation, source: str) -> Fix | None:
    """The edit that silences `violation` on its line, or None when the line cannot take one.

    `source` is the text the violation's range refers to (a notebook cell's source for a
    notebook finding).
    """
    text = SourceText(source)
    line_number = violation.range.start.line
    if line_number >= len(text.lines):
        return None
    line = text.line(line_number)
    codes = codes_on_line(line)
    if codes is not None and any(violation.code.startswith(code) for code in codes):
        return None  # already silenced (by a bare directive or by this code)
    if not _can_end_with_comment(source, line_number, line):
        return None
    title = f"Ignore {violation.code} on this line"
    comment = _comment_column(source, line_number, line)
    if comment is not None:
        match = _DIRECTIVE.search(line, comment)
        if match is not None and match.group("codes") is not None:
            inner_end = match.end("codes")
            listed = match.group("codes").rstrip()
            insert_at = match.start("codes") + len(listed)
            addition = f", {violation.code}" if listed.strip() else violation.code
            end = inner_end if not listed.strip() else insert_at
            edit = Edit(Range(Position(line_number, insert_at), Position(line_number, end)), addition)
            return Fix(title, Applicability.SAFE, (edit,))
    content_end = len(line.rstrip(" \t\f"))
    edit = Edit(Range(Position(line_number, content_end), Position(line_number, len(line))),
                f"  # tapelsp: ignore[{violation.code}]")
    return Fix(title, Applicability.SAFE, (edit,))


def _tokens(source: str) -> list[tokenize.TokenInfo] | None:
    try:
        return list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError, ValueError):
        return None


def _can_end_with_comment(source: str, line_number: int, line: str) -> bool:
    stripped = line.rstrip(" \t\f")
    if stripped.endswith("\\"):
        return False
    tokens = _tokens(source)
    if tokens is None:
        return True  # a file that does not tokenize: the line itself is the best guess
    row = line_number + 1
    for token in tokens:
        if token.start[0] > row:
            break
        if token.type == tokenize.STRING or _is_fstring_part(token):
            # The line's end is inside a string that starts on or before it and ends after it.
            if token.start[0] <= row < token.end[0]:
                return False
    return True


def _is_fstring_part(token: tokenize.TokenInfo) -> bool:
    return tokenize.tok_name.get(token.type, "") in ("FSTRING_MIDDLE", "FSTRING_START", "FSTRING_END")


def _comment_column(source: str, line_number: int, line: str) -> int | None:
    """Where the line's comment starts (code points), or None."""
    tokens = _tokens(source)
    if tokens is None:
        match = _DIRECTIVE.search(line)
        return match.start() if match else None
    row = line_number + 1
    for token in tokens:
        if token.type == tokenize.COMMENT and token.start[0] == row:
            return token.start[1]
        if token.start[0] > row:
            break
    return None
