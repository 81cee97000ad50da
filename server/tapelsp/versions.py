"""Version numbers and version ranges, and which TensorFlow the user has.

The installed versions are read from package metadata (importlib.metadata):
tapelsp never imports TensorFlow to learn its version.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata

# Current TensorFlow 2 when nothing else is known.
DEFAULT_TENSORFLOW = "2.21"

_DISTRIBUTIONS = {
    "tensorflow": ("tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tensorflow-macos",
                   "tensorflow-intel", "tf-nightly", "tf-nightly-cpu", "tensorflow-aarch64"),
    "keras": ("keras", "tf-keras"),
    "tensorflow-probability": ("tensorflow-probability", "tfp-nightly"),
}

# A release number, optionally followed by a PEP 440 pre/post/dev/local part (ignored).
_VERSION = re.compile(r"^\s*v?(\d+(?:\.\d+)*)(?:[._-]?(?:a|b|rc|alpha|beta|c|pre|preview|post|dev)\.?\d*)*"
                      r"(?:\+[a-z0-9.]+)?\s*$", re.IGNORECASE)


@dataclass(frozen=True, order=True)
class Version:
    parts: tuple[int, ...]

    @classmethod
    def parse(cls, text: str) -> "Version":
        match = _VERSION.match(str(text))
        if not match:
            raise ValueError(f"not a version number: {text!r}")
        parts = tuple(int(p) for p in match.group(1).split("."))
        while len(parts) > 1 and parts[-1] == 0:
            parts = parts[:-1]
        return cls(parts)

    def __str__(self) -> str:
        return ".".join(str(p) for p in self.parts)


_CLAUSE = re.compile(r"^\s*(>=|<=|==|!=|>|<)\s*(\S+)\s*$")


@dataclass(frozen=True)
class VersionRange:
    """A conjunction like ">=2.0,<2.7"; the empty string matches everything."""

    spec: str = ""

    def __post_init__(self) -> None:
        self._clauses()  # validate early

    def _clauses(self) -> list[tuple[str, Version]]:
        out = []
        for clause in filter(None, (c.strip() for c in self.spec.split(","))):
            match = _CLAUSE.match(clause)
            if not match:
                raise ValueError(f"bad version clause {clause!r} in {self.spec!r}")
            out.append((match.group(1), Version.parse(match.group(2))))
        return out

    def contains(self, version: Version) -> bool:
        checks = {
            ">=": lambda a, b: a >= b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
            "<": lambda a, b: a < b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
        }
        return all(checks[op](version, bound) for op, bound in self._clauses())

    def __str__(self) -> str:
        return self.spec or "any"


@lru_cache(maxsize=None)
def installed_version(package: str) -> str | None:
    """The version of `package` installed for this interpreter, from metadata only."""
    for dist in _DISTRIBUTIONS.get(package, (package,)):
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
        except Exception:  # broken metadata must not stop a check
            continue
    return None
