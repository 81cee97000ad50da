"""The "ignore this finding on this line" edit: `# tapelsp: ignore[CODE]`.

The comment goes at the end of the line the finding starts on (that is the line the
suppression is read from). An existing `# tapelsp: ignore[...]` comment on the line gets
the code added to its list. A line whose end is inside a string (a triple-quoted literal
going on) or continued with a backslash cannot carry a comment: no edit then.
"""

from __future__ import annotations

import bisect
import io
import re
import tokenize
from typing import Sequence

from ..model import Applicability, Edit, Fix, Position, Range, Violation
from ..suppression import codes_on_line
from ..text import SourceText

_DIRECTIVE = re.compile(r"#[ \t]*tapelsp:[ \t]*ignore(?!-)(?:\[(?P<codes>[^\]]*)\])?", re.IGNORECASE)


def ignore_fix(violation: Violation, source: str,
               statements: Sequence[tuple[int, int]] = ()) -> Fix | None:
    """The edit that silences `violation` on its line, or None when the line cannot take one.

    `source` is the text the violation's range refers to (a notebook cell's source for a
    notebook finding). `statements`, when the caller knows them, are the 0-based line spans
    [start, end) of the text's top-level statements, in order: only the statement holding the
    line is then read (a complete statement tokenizes alone), not the text up to it.
    """
    text = SourceText(source)
    line_number = violation.range.start.line
    if line_number >= len(text.lines):
        return None
    line = text.line(line_number)
    codes = codes_on_line(line)
    if codes is not None and any(violation.code.startswith(code) for code in codes):
        return None  # already silenced (by a bare directive or by this code)
    if line.rstrip(" \t\f").endswith("\\"):
        return None
    first, last = _window(statements, line_number, len(text.lines))
    ends_in_string, comment = _line_tokens("\n".join(text.lines[first:last]) + "\n", line_number - first, line)
    if ends_in_string:
        return None
    title = f"Ignore {violation.code} on this line"
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


def _window(statements: Sequence[tuple[int, int]], line: int, count: int) -> tuple[int, int]:
    """The lines to tokenize for `line`: its statement's, or from the start of the text."""
    if statements:
        index = bisect.bisect_right([start for start, _end in statements], line) - 1
        if index >= 0 and line < statements[index][1]:
            return statements[index]
        if index < 0 or line >= statements[index][1]:
            return line, line + 1  # between statements: a comment or an empty line
    return 0, count  # read lazily: tokenizing stops after the line (or the string going over it)


def _line_tokens(source: str, line_number: int, line: str) -> tuple[bool, int | None]:
    """(whether the 0-based line ends inside a string, where its comment starts or None),
    tokenizing `source` only up to that line."""
    row = line_number + 1
    comment = None
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.start[0] > row:
                break
            if (token.type == tokenize.STRING or _is_fstring_part(token)) and token.start[0] <= row < token.end[0]:
                return True, None  # a string that starts on or before the line goes on after it
            if token.type == tokenize.COMMENT and token.start[0] == row:
                comment = token.start[1]
    except (tokenize.TokenError, SyntaxError, IndentationError, ValueError):
        # What does not tokenize (up to the line): the line itself is the best guess.
        match = _DIRECTIVE.search(line)
        return False, match.start() if match else None
    return False, comment


def _is_fstring_part(token: tokenize.TokenInfo) -> bool:
    return tokenize.tok_name.get(token.type, "") in ("FSTRING_MIDDLE", "FSTRING_START", "FSTRING_END")
