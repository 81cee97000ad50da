"""Path globs for `exclude` and `per-file-ignores`.

A glob is matched against a path relative to the directory it was written for
(the configuration file's directory, or the working directory for command-line
options), in POSIX form:

* a glob without `/` matches a file or directory name at any depth
  (`__init__.py`, `*_pb2.py`, `build`);
* a glob with `/` matches from that directory down (`tests/*.py`, `src/gen/**`);
  `*` and `?` stay inside one path part, `**` spans any number of parts;
* a glob that matches a directory also matches everything below it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import PurePosixPath


@lru_cache(maxsize=512)
def _compile(pattern: str) -> re.Pattern[str]:
    out = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = pattern.find("]", i + 2 if pattern[i + 1:i + 2] in ("!", "]") else i + 1)
            if end == -1:
                out.append(re.escape(char))
            else:
                body = pattern[i + 1:end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = end
        else:
            out.append(re.escape(char))
        i += 1
    return re.compile("".join(out) + r"\Z")


def matches(relative: str, pattern: str) -> bool:
    """Does the POSIX `relative` path (or one of its parent directories) match `pattern`?"""
    pattern = pattern.strip()
    if pattern.startswith("./"):
        pattern = pattern[2:]
    pattern = pattern.rstrip("/")
    if not pattern:
        return False
    parts = PurePosixPath(relative).parts
    if "/" not in pattern:
        regex = _compile(pattern)
        return any(regex.match(part) for part in parts)
    regex = _compile(pattern)
    return any(regex.match("/".join(parts[:end])) for end in range(len(parts), 0, -1))


@dataclass(frozen=True)
class GlobSet:
    """Globs written relative to one base directory (absolute, POSIX)."""

    base: str
    patterns: tuple[str, ...] = field(default_factory=tuple)

    def match(self, path: str) -> str | None:
        """The first glob that matches absolute POSIX `path`, or None (also when `path` is outside `base`)."""
        relative = relative_to(path, self.base)
        if relative is None:
            return None
        for pattern in self.patterns:
            if matches(relative, pattern):
                return pattern
        return None


def relative_to(path: str, base: str) -> str | None:
    """`path` relative to `base` (both absolute POSIX), or None when it is not inside it."""
    if path == base:
        return "."
    prefix = base if base.endswith("/") else base + "/"
    if not path.startswith(prefix):
        return None
    return path[len(prefix):]
