"""`# tapelsp: ignore[CODE]`, `# noqa: CODE` and `# tapelsp: ignore-file`."""

from __future__ import annotations

import re

from .model import Violation
from .text import SourceText

_FILE = re.compile(r"^[ \t]*#[ \t]*tapelsp:[ \t]*ignore-file\b", re.MULTILINE)
# `# tapelsp: ignore`, `# tapelsp: ignore[TAPE001, FUNC]`
_TAPELSP = re.compile(r"#[ \t]*tapelsp:[ \t]*ignore(?!-)(?:\[(?P<codes>[^\]]*)\])?", re.IGNORECASE)
# `# noqa`, `# noqa: TAPE001,FUNC001`. A code is letters and digits (`FUNC001`, `func001`) or
# a prefix in capitals (`FUNC`), so the words of an explanation after the codes
# (`# noqa: FUNC001 tape is fine here`) are not read as code prefixes.
_CODE = r"(?:[A-Za-z]+[0-9]+|[A-Z]+)"
_NOQA = re.compile(rf"#[ \t]*(?i:noqa)(?P<colon>:[ \t]*(?P<codes>{_CODE}(?:[ \t]*,?[ \t]*{_CODE})*)?)?")

ALL = ("",)


def ignores_whole_file(text: str) -> bool:
    return "ignore-file" in text and _FILE.search(text) is not None


def codes_on_line(line: str) -> tuple[str, ...] | None:
    """The codes a suppression comment on `line` silences; ALL for a bare one; None if none."""
    if "#" not in line:
        return None
    found: list[str] = []
    bare = False
    for pattern in (_TAPELSP, _NOQA):
        for match in pattern.finditer(line):
            codes = match.group("codes")
            if pattern is _NOQA and match.group("colon") and codes is None and line[match.end():].strip():
                continue  # `# noqa: not a code`: a malformed directive suppresses nothing
            if codes is None or not codes.strip():
                bare = True
            else:
                found.extend(c.strip().upper() for c in re.split(r"[,\s]+", codes) if c.strip())
    if bare:
        return ALL
    return tuple(found) if found else None


def filter_suppressed(violations: list[Violation], source: SourceText) -> list[Violation]:
    kept = []
    cache: dict[int, tuple[str, ...] | None] = {}
    for violation in violations:
        line = violation.range.start.line
        if line not in cache:
            cache[line] = codes_on_line(source.line(line))
        codes = cache[line]
        if codes is not None and any(violation.code.startswith(code) for code in codes):
            continue
        kept.append(violation)
    return kept
