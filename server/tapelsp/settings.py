"""What a check is asked to do: which rules, against which TensorFlow.

`Settings` is the one value every front end builds (from pyproject.toml, the
command line, the editor) and hands to the engine.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import PurePath

from .model import Severity
from .versions import DEFAULT_TENSORFLOW, Version, installed_version


@dataclass(frozen=True)
class Targets:
    """The library versions rules are checked against."""

    tensorflow: Version
    keras: Version | None = None
    tensorflow_probability: Version | None = None
    # Where the TensorFlow version came from: "configuration", "installed" or "default".
    origin: str = "default"


@dataclass(frozen=True)
class Settings:
    # Codes or prefixes ("TAPE", "FUNC001"); empty select means every rule.
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    # (glob, codes) pairs, matched against the file path.
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: tuple[str, ...] = ()
    tensorflow_version: str | None = None
    keras_version: str | None = None
    tensorflow_probability_version: str | None = None
    severity_overrides: tuple[tuple[str, Severity], ...] = field(default_factory=tuple)

    def targets(self) -> Targets:
        return resolve_targets(self.tensorflow_version, self.keras_version,
                               self.tensorflow_probability_version)

    def enabled(self, code: str, path: str | None = None) -> bool:
        """Is `code` reported for `path` under these settings? Ignoring always wins."""
        if _best(code, self.ignore) is not None:
            return False
        if path is not None:
            for pattern, codes in self.per_file_ignores:
                if path_matches(path, pattern) and _best(code, codes) is not None:
                    return False
        if code.startswith("TL") or _best(code, self.extend_select) is not None:
            # Meta findings (syntax errors, unreadable files) show unless ignored.
            return True
        return not self.select or _best(code, self.select) is not None

    def severity_for(self, code: str, default: Severity) -> Severity:
        best: tuple[int, Severity] | None = None
        for prefix, severity in self.severity_overrides:
            if code.startswith(prefix) and (best is None or len(prefix) > best[0]):
                best = (len(prefix), severity)
        return best[1] if best else default


def _best(code: str, selectors: tuple[str, ...]) -> int | None:
    """Length of the most specific selector matching `code` ("ALL" counts 0), or None."""
    best: int | None = None
    for selector in selectors:
        if selector == "ALL":
            length = 0
        elif code.startswith(selector):
            length = len(selector)
        else:
            continue
        if best is None or length > best:
            best = length
    return best


def path_matches(path: str, pattern: str) -> bool:
    """Glob match against the whole path, any trailing part of it, or the file name."""
    pure = PurePath(path)
    posix = pure.as_posix()
    if fnmatch.fnmatch(posix, pattern) or fnmatch.fnmatch(pure.name, pattern):
        return True
    parts = pure.parts
    return any(fnmatch.fnmatch(PurePath(*parts[i:]).as_posix(), pattern) for i in range(1, len(parts)))


def resolve_targets(tensorflow: str | None = None, keras: str | None = None,
                    tfp: str | None = None) -> Targets:
    """Configuration first, then installed package metadata, then current TF 2."""
    if tensorflow:
        tf_version, origin = Version.parse(tensorflow), "configuration"
    else:
        found = installed_version("tensorflow")
        if found:
            tf_version, origin = Version.parse(found), "installed"
        else:
            tf_version, origin = Version.parse(DEFAULT_TENSORFLOW), "default"
    keras_text = keras or installed_version("keras")
    tfp_text = tfp or installed_version("tensorflow-probability")
    return Targets(
        tensorflow=tf_version,
        keras=Version.parse(keras_text) if keras_text else None,
        tensorflow_probability=Version.parse(tfp_text) if tfp_text else None,
        origin=origin,
    )
