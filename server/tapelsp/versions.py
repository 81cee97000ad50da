"""Version numbers and version ranges, and which TensorFlow the user has.

The installed versions are read from package metadata (the names of the `.dist-info`
folders on sys.path, importlib.metadata where a name does not say): tapelsp never imports
TensorFlow to learn its version.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

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
    listed = _metadata_directories()
    for dist in _DISTRIBUTIONS.get(package, (package,)):
        found = listed.get(_normalized(dist), _ABSENT)
        if found is _ABSENT:
            continue  # no metadata directory of that name anywhere on sys.path
        if found is None:  # a folder without the version in its name (egg-info): ask its metadata
            found = _version_from_metadata(dist)
        if found is not None:
            return found
    return None


_ABSENT = object()


@lru_cache(maxsize=None)
def _metadata_directories() -> dict[str, str | None]:
    """Distribution name (normalized) -> its version, from the `NAME-VERSION.dist-info` folders
    on sys.path (the first one wins, as importlib.metadata finds it), None for a metadata folder
    whose name does not say the version. Listing the folders costs a few milliseconds; importing
    importlib.metadata to ask it costs a command-line run 20 ms more."""
    import os
    import sys

    found: dict[str, str | None] = {}
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except (OSError, TypeError, ValueError):
            continue
        for name in names:
            if name.endswith(".dist-info"):
                stem = name[:-len(".dist-info")]
                dist, _, version = stem.partition("-")
                found.setdefault(_normalized(dist), version if version and "-" not in version else None)
            elif name.endswith(".egg-info"):
                found.setdefault(_normalized(name[:-len(".egg-info")].partition("-")[0]), None)
    return found


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _version_from_metadata(dist: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(dist)
    except Exception:  # not found after all, or broken metadata: it must not stop a check
        return None
