"""Path globs for `exclude` and `per-file-ignores`.

A glob is matched against a path relative to the directory it was written for
(the configuration file's directory, or the working directory for command-line
options), in POSIX form:

* a glob without `/` matches a file or directory name at any depth
  (`__init__.py`, `*_pb2.py`, `build`);
* a glob with `/` matches from that directory down (`tests/*.py`, `src/gen/**`,
  and `./setup.py` or `/setup.py` for a name at the top only);
  `*` and `?` stay inside one path part, `**` spans any number of parts;
* a glob that matches a directory also matches everything below it (while
  walking a tree the directory is pruned instead, so a directory named on the
  command line is walked even when a glob matches it or one of its parents).
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


def matches(relative: str, pattern: str, *, parents: bool = True) -> bool:
    """Does the POSIX `relative` path match `pattern`? With `parents`, a matching parent directory counts too."""
    pattern = pattern.strip()
    anchored = pattern.startswith(("./", "/"))
    pattern = pattern.lstrip("/") if pattern.startswith("/") else pattern[2:] if anchored else pattern
    pattern = pattern.rstrip("/")
    if not pattern:
        return False
    parts = PurePosixPath(relative).parts
    if not parts:
        return False
    regex = _compile(pattern)
    if "/" not in pattern and not anchored:
        names = parts if parents else parts[-1:]
        return any(regex.match(name) for name in names)
    ends = range(len(parts), 0, -1) if parents else (len(parts),)
    return any(regex.match("/".join(parts[:end])) for end in ends)


@dataclass(frozen=True)
class GlobSet:
    """Globs written relative to one base directory (absolute, POSIX)."""

    base: str
    patterns: tuple[str, ...] = field(default_factory=tuple)

    def match(self, path: str, *, parents: bool = True) -> str | None:
        """The first glob that matches absolute POSIX `path`, or None (also when `path` is outside `base`)."""
        relative = relative_to(path, self.base)
        if relative is None:
            return None
        for pattern in self.patterns:
            if matches(relative, pattern, parents=parents):
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
